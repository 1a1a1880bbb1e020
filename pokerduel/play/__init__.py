"""Playing players against each other: duplicate matches, populations, round robins, ground truths, oracles.

Above ``engine`` and ``players``; ``evolution`` and ``studies`` build on it.
"""
