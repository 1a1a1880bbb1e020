"""The core paper's §7 experiments on poker players: Fig 7 (``plots``: a ground truth's rank-ordered
mean matrices) and Fig 8 (``poker``: every selector on every population of a ground truth, live or
replayed).

Builds on ``play`` (ground truths, oracles) and ``selectors``.
"""
