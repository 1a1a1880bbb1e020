"""The champion's panel results, opponent by opponent, over windows of generations: does it get better?

Every generation's champion plays the run's benchmark panel on one fixed deck set (``panel_deals`` deals an
opponent, the same decks every generation), so a change from one window to another is the champion's, not the
cards'. For each opponent this prints the mean over runs of each run's mean over the window, with a 95 % t
interval over the runs, and the change from the first window to the last with a paired interval. One
generation's panel match is noisy (±1,000 to ±5,000 mBB/hand at 250 deals), hence windows.

    python scripts/panel_progress.py runs/scratch/seed*.h5 --window 10
    python scripts/panel_progress.py runs/scratch/seed*.h5 --window 25 --at 1,50,100,150,200,250
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from scipy.stats import t as t_dist

from pokerduel.evolution.evolve import load_run


def mean_ci(x: np.ndarray) -> tuple[float, float]:
    """Mean and 95 % t half-width over the runs (NaN half-width for one run)."""
    if x.size < 2:
        return float(x.mean()), float("nan")
    return float(x.mean()), float(t_dist.ppf(0.975, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size))


def fmt(m: float, h: float) -> str:
    return f"{m:+,.0f}" if np.isnan(h) else f"{m:+,.0f} ± {h:,.0f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", help="evolution run files with the same panel")
    ap.add_argument("--window", type=int, default=10, help="generations per window (default 10)")
    ap.add_argument("--at", default=None,
                    help="comma-separated first generations of the windows (default: the first and the last)")
    args = ap.parse_args(argv)
    runs = [load_run(p) for p in args.runs]
    names = runs[0].panel_names
    if any(r.panel_names != names for r in runs):
        raise SystemExit("the runs have different panels; give runs of one configuration")
    n = min(r.completed for r in runs)
    if args.window < 1 or args.window > n:
        raise SystemExit(f"--window must be between 1 and {n} (the generations every run has)")
    try:
        starts = [1, n - args.window + 1] if args.at is None else [int(a) for a in args.at.split(",")]
    except ValueError:
        raise SystemExit(f"--at {args.at!r}: expected comma-separated generation numbers") from None
    if any(s < 1 or s + args.window - 1 > n for s in starts):
        raise SystemExit(f"--at: every window must lie within generations 1-{n}")
    # runs x windows x opponents
    w = np.array([[r.records["panel_mean"][s - 1:s - 1 + args.window].mean(axis=0) for s in starts] for r in runs])
    heads = [f"generations {s}-{s + args.window - 1}" for s in starts]
    print(f"{len(runs)} runs; the champion's mean mBB/hand over each window, mean over runs ± 95 % (t)\n")
    print("| opponent | " + " | ".join(heads) + " | last − first, paired |")
    print("|---|" + "---|" * (len(heads) + 1))
    for c, name in enumerate(names):
        cells = [fmt(*mean_ci(w[:, k, c])) for k in range(len(starts))]
        cells.append(fmt(*mean_ci(w[:, -1, c] - w[:, 0, c])))
        print(f"| {name} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
