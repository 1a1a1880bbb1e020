"""Neuroevolution of ASHE players: fitness against fixed opponents, TSER reproduction, the ``pokerduel evolve``
loop with a top-k selector (or ANE) choosing the survivors, run files and their plots.

Builds on ``play`` (matches, populations, oracles) and ``selectors``.
"""
