"""How a run's champions move against each training opponent as the run goes, from what the runs stored.

A run with ``--validate-window`` (``--preset table2``) re-scores every window generation's champion on the
same fresh decks and stores the results (``validation/mbb``, mBB/hand against each training opponent). This
averages them over bands of generations, then over runs, with a 95 % t interval over the runs: what evolution
adds or gives up against each opponent between the start and the end. No match is played.

    python scripts/validation_bands.py runs/table2/seed*.h5
    python scripts/validation_bands.py runs/table2/seed*.h5 --bands 1-10,11-50,51-100,101-175,176-250
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from champion_table import interval, over_runs

from pokerduel.evolution.evolve import load_run

DEFAULT_BANDS = "1-10,11-50,51-100,101-175,176-250"


def parse_bands(text: str) -> list[tuple[int, int]]:
    """``"1-10,11-50"`` as ``[(1, 10), (11, 50)]``; ``ValueError`` for anything else."""
    bands = []
    for part in text.split(","):
        lo, sep, hi = part.strip().partition("-")
        if not sep or not lo.isdigit() or not hi.isdigit() or not 1 <= int(lo) <= int(hi):
            raise ValueError(f"a band is FIRST-LAST generations with 1 <= FIRST <= LAST, got {part!r}")
        bands.append((int(lo), int(hi)))
    return bands


def band_means(run, bands) -> np.ndarray:
    """``[band, opponent]``: the mean validation result of the champions of each band's generations (NaN for a
    band with none re-scored)."""
    gens = np.asarray(run.validation["generations"])
    mbb = np.asarray(run.validation["mbb"], np.float64)
    out = np.full((len(bands), mbb.shape[1]), np.nan)
    for i, (lo, hi) in enumerate(bands):
        inside = (gens >= lo) & (gens <= hi)
        if inside.any():
            out[i] = mbb[inside].mean(axis=0)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="finished evolution run files with a stored validation")
    ap.add_argument("--bands", default=DEFAULT_BANDS, help=f"generation bands (default {DEFAULT_BANDS})")
    args = ap.parse_args(argv)
    try:
        bands = parse_bands(args.bands)
        runs = [load_run(p) for p in args.runs]
    except (OSError, ValueError) as err:
        ap.error(str(err))
    names = None
    for path, run in zip(args.runs, runs):
        if run.validation is None:
            ap.error(f"{path} has no stored validation (a run with --validate-window that has finished)")
        these = list(run.config.opponents)
        if names not in (None, these):
            ap.error(f"{path} has training opponents {these}, the runs before it {names}")
        names = these
    x = np.array([band_means(run, bands) for run in runs])  # run, band, opponent
    print(f"Mean over {len(runs)} runs of each band's champions on the runs' validation decks (mBB/hand, 95 % t "
          "interval over runs)\n")
    print("| generations | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for i, (lo, hi) in enumerate(bands):
        cells = []
        for j in range(len(names)):
            v = x[:, i, j][np.isfinite(x[:, i, j])]
            cells.append("{:+,.0f} ± {:,.0f}".format(*interval(over_runs(v))) if len(v) else "")
        print(f"| {lo}-{hi} | " + " | ".join(cells) + " |")
    print("\nchosen generations: " + ", ".join(
        f"the mean of the last {run.champion_average}" if run.champion_average else str(run.champion_generation)
        for run in runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
