"""Fig 7 from a ground-truth file (matplotlib with the Agg backend: no display needed)."""

from __future__ import annotations

import math

import numpy as np

from ..engine.rules import BIG_BLIND
from ..infra.figures import save_figure


def mbb_per_hand(chips_per_deal):
    """Chips per duplicate deal (two hands) in milli-big-blinds per hand."""
    return np.asarray(chips_per_deal, dtype=np.float64) / 2 / BIG_BLIND * 1000


def plot_matrices(truth, out, populations=None, columns: int = 5, dpi: int = 150, linthresh: float = 100.0):
    """The core paper's Fig 7 panel: each population's pairwise-mean matrix, players in true rank order.

    Entry (r, c) is the mean result of the player ranked r against the player ranked c, in mBB/hand;
    red above the diagonal is a better-ranked player losing (an "upset"). One colour scale for all
    panels, symmetric around 0 and logarithmic beyond ``linthresh`` mBB/hand: means span four orders of
    magnitude (a few all-in pairs at ±50,000, most pairs within ±1,000), and a linear scale shows only
    the extreme pairs.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import SymLogNorm

    index = list(range(len(truth))) if populations is None else list(populations)
    if not index:
        raise ValueError("no populations to plot")
    for p in index:
        if not 0 <= p < len(truth):
            raise ValueError(f"population {p} out of range: the file holds {len(truth)}")
    mats = [mbb_per_hand(truth[p].ordered_mean()) for p in index]
    scale = max(float(np.abs(np.concatenate([m.ravel() for m in mats])).max()), 10 * linthresh)
    cols = min(columns, len(index))
    rows = math.ceil(len(index) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(2.4 * cols + 1.2, 2.5 * rows + 0.6), squeeze=False)
    norm = SymLogNorm(linthresh, vmin=-scale, vmax=scale, base=10)
    image = None
    for ax, p, m in zip(axes.ravel(), index, mats):
        image = ax.imshow(m, cmap="RdBu", norm=norm, interpolation="nearest")
        k = len(m)
        ax.set_xticks(range(k))
        ax.set_yticks(range(k))
        ax.set_xticklabels(truth[p].ranking, fontsize=6)
        ax.set_yticklabels(truth[p].ranking, fontsize=6)
        ax.set_title(f"pop {p}: {truth[p].negative_upper} upsets, {truth[p].intransitive_triplets} cycles",
                     fontsize=7)
    for ax in axes.ravel()[len(index):]:
        ax.axis("off")
    bar = fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.8)
    bar.set_label("row player's mean, mBB/hand")
    hands = truth.config.get("hands")
    fig.suptitle(f"Pairwise means in true (Borda) rank order, best first (row vs column); {hands} hands per pair; "
                 f"upsets = negative means above the diagonal, cycles = intransitive triplets", fontsize=8)
    try:
        save_figure(fig, out, dpi)
    finally:
        plt.close(fig)
