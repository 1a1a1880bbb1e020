"""Every pair of evolution champions head to head on fresh decks, and each mode's mean against the others.

Each run file's champion (``EvolutionRun.champion``) plays every other one ``--deals`` duplicate deals on
decks no run trained on (the panel's and the fitness decks come from each run's own seed). Runs are
grouped by mode (the folder name by default, or ``NAME=GLOB``); the report gives the matrix (row's
mBB/hand against the column, 95% interval) and, per pair of modes, the mean over their champions' matches
with a 95% interval over those matches.

    python scripts/champions_round_robin.py ashe1=runs/ashe1/seed*.h5 mixed=runs/mixed/seed*.h5 --report rr.md
"""

from __future__ import annotations

import argparse
import glob
import itertools
import json
import os
import sys
from pathlib import Path

import numpy as np

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from pokerduel.evolution.evolve import load_run  # noqa: E402
from pokerduel.infra.parallel import get_backend  # noqa: E402
from pokerduel.play.matches import play_duplicate  # noqa: E402

#: the seed of the head-to-head decks (no run trains on it; ``evolution_champions.TEST_SEED`` + 1)
SEED = 909_090_910


def _match(task):
    a, b, deals = task
    r = play_duplicate(a, b, deals, SEED)
    return r.mbb_per_hand()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("groups", nargs="+", metavar="[NAME=]GLOB")
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--report", default=None)
    args = ap.parse_args(argv)
    names, players = [], []
    for spec in args.groups:
        name, sep, pattern = spec.partition("=")
        if not sep:
            name, pattern = None, spec
        for path in sorted(glob.glob(pattern)):
            run = load_run(path)
            mode = name or Path(path).parent.name
            names.append((mode, Path(path).stem))
            players.append(run.champion_player(name=f"{mode}/{Path(path).stem}"))
    n = len(players)
    if n < 2:
        raise SystemExit("need at least two run files")
    pairs = list(itertools.combinations(range(n), 2))
    mean = np.full((n, n), np.nan)
    ci = np.full((n, n), np.nan)
    with get_backend("multiprocess", workers=args.workers) as backend:
        for idx, (m, c) in backend.map_unordered(_match, [(players[i], players[j], args.deals) for i, j in pairs]):
            i, j = pairs[idx]
            mean[i, j], ci[i, j] = m, c
            mean[j, i], ci[j, i] = -m, c
    modes = list(dict.fromkeys(m for m, _ in names))
    lines = ["| champion | " + " | ".join(f"{m}/{s}" for m, s in names) + " | mean |",
             "|---|" + "---|" * (n + 1)]
    for i, (m, s) in enumerate(names):
        lines.append(f"| {m}/{s} | " + " | ".join("—" if i == j else f"{mean[i, j]:+,.0f} ± {ci[i, j]:,.0f}"
                                                  for j in range(n)) + f" | {np.nanmean(mean[i]):+,.0f} |")
    lines += ["", "| mode vs mode (mean over champion pairs, 95% CI over pairs) | " + " | ".join(modes) + " |",
              "|---|" + "---|" * len(modes)]
    for a in modes:
        cells = []
        for b in modes:
            ia = [i for i, (m, _) in enumerate(names) if m == a]
            ib = [j for j, (m, _) in enumerate(names) if m == b]
            x = np.array([mean[i, j] for i in ia for j in ib if i != j])
            half = 1.96 * x.std(ddof=1) / np.sqrt(len(x)) if len(x) > 1 else float("nan")
            cells.append(f"{x.mean():+,.0f} ± {half:,.0f}" if len(x) else "—")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    table = "\n".join(lines)
    print(table)
    if args.report:
        Path(args.report).write_text(table + "\n")
        Path(args.report).with_suffix(".json").write_text(json.dumps(
            {"players": [f"{m}/{s}" for m, s in names], "mean": mean.tolist(), "ci": ci.tolist(), "deals": args.deals,
             "seed": SEED}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
