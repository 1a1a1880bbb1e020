"""Populations of evolved players as a benchmark for top-k selection, and the statistics of their ground truth.

``build`` takes evolution run files and writes, per run, three populations of ten champions: **early**,
**middle** and **late** (generations in the first, middle and last fifth of the run). Within each window it
keeps the generations whose champion differs from the previous generation's (an elite can stay champion for
several generations, and two copies of one player only ever tie) and picks ten of them evenly spread. Then
``pokerduel ground-truth --population ...`` builds the 20,000-hand matrices, and ``stats`` reports what
``docs/results/fig7.md`` reports for the random populations.

    python scripts/evolved_populations.py build runs/ashe1/seed1.h5 runs/ashe1/seed2.h5 runs/ashe1/seed3.h5 \\
        --out-dir data/evolved
    pokerduel ground-truth $(for f in data/evolved/*.h5; do echo --population $f; done) --hands 20000 \\
        --seed 1 --out data/ground_truth_evolved.h5
    python scripts/evolved_populations.py stats data/ground_truth_evolved.h5
    python scripts/evolved_populations.py ii runs/fig8-replay.h5 runs/fig8-replay-evolved.h5

``ii`` reads Fig 8 replay results and prints, per population, the distribution of the hybrid's final
intransitivity index over replications and the share of replications below each threshold.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from pokerduel.evolution.evolve import load_run, population_from_runs
from pokerduel.play.ground_truth import load_ground_truth
from pokerduel.play.populations import save_population

STAGES = {"early": (0.0, 0.2), "middle": (0.4, 0.6), "late": (0.8, 1.0)}


def stage_generations(champions: np.ndarray, lo: float, hi: float, size: int) -> list[int]:
    """``size`` 1-based generations in the window ``(lo, hi]`` of the run, each with a new champion."""
    n = len(champions)
    first, last = int(lo * n) + 1, int(hi * n)
    new = [g for g in range(first, last + 1)
           if g == 1 or not np.array_equal(champions[g - 1], champions[g - 2])]
    if len(new) < size:
        raise ValueError(f"generations {first}-{last} have only {len(new)} distinct champions, need {size}")
    return [new[i] for i in np.linspace(0, len(new) - 1, size).round().astype(int)]


def build(args) -> int:
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for path in args.runs:
        champions = load_run(path).records["champion"]
        for stage, (lo, hi) in STAGES.items():
            gens = stage_generations(champions, lo, hi, args.size)
            pop = population_from_runs([path], gens)
            target = out / f"{Path(path).stem}-{stage}.h5"
            save_population(pop, target)
            print(f"{target}: {pop.origin}")
    return 0


def borda_gap(t, a: int, b: int) -> tuple[float, float]:
    """Borda score of player ``a`` minus ``b`` (chips per deal, summed over opponents) and its standard error,
    from the per-pair sample variances (pairs independent)."""
    k = len(t)
    n = t.count
    d = t.borda[a] - t.borda[b]
    var = 4 * t.var[a, b] / n[a, b]
    for j in range(k):
        if j not in (a, b):
            var += t.var[a, j] / n[a, j] + t.var[b, j] / n[b, j]
    return float(d), float(np.sqrt(var))


def stats(args) -> int:
    truth = load_ground_truth(args.ground_truth)
    print("| population | origin | negative means above the diagonal (of 45) | intransitive triplets | pairs with "
          "zero variance | smallest–largest nonzero pair variance (chips²/deal) | 4th − 5th Borda score (chips/deal) "
          "| in standard errors |")
    print("|---|---|---|---|---|---|---|---|")
    rows = []
    for p, t in enumerate(truth.populations):
        k = len(t)
        iu = np.triu_indices(k, 1)
        v = t.var[iu]
        zero = int(np.sum(v == 0))
        nz = v[v > 0]
        gap, se = borda_gap(t, int(t.ranking[3]), int(t.ranking[4]))
        origin = t.source.get("origin") or t.source.get("source", "")
        rng = f"{nz.min():.1e} – {nz.max():.1e}" if nz.size else "–"
        print(f"| {p} | {origin} | {t.negative_upper} | {t.intransitive_triplets} | {zero} | {rng} | "
              f"{gap:,.0f} | {gap / se:.1f} |")
        rows.append((t.negative_upper, t.intransitive_triplets, zero))
    m = np.mean(rows, axis=0)
    print(f"| mean | | {m[0]:.1f} | {m[1]:.1f} | {m[2]:.1f} | | | |")
    return 0


def ii_distribution(args) -> int:
    from pokerduel.studies.poker import PokerStudyResult

    th = args.thresholds
    print("| file | population | II 10th / 50th / 90th percentile | " +
          " | ".join(f"share < {t:g}" for t in th) + " | ML-POCBAm decisions |")
    print("|---|---|---|" + "---|" * len(th) + "---|")
    for path in args.results:
        res = PokerStudyResult.load(path)
        for p in res.populations():
            final = res.arrays[(p, "hybrid", "ii")][:, -1]
            q = np.nanpercentile(final, [10, 50, 90])
            ml = np.nanmean(res.arrays[(p, "hybrid", "ml_fraction")][:, -1])
            print(f"| {Path(path).name} | {p} | {q[0]:.3f} / {q[1]:.3f} / {q[2]:.3f} | " +
                  " | ".join(f"{np.nanmean(final < t):.2f}" for t in th) + f" | {ml:.2f} |")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="write early/middle/late champion populations of each run")
    b.add_argument("runs", nargs="+")
    b.add_argument("--out-dir", required=True)
    b.add_argument("--size", type=int, default=10)
    s = sub.add_parser("stats", help="Fig 7-style statistics of a ground-truth file")
    s.add_argument("ground_truth")
    i = sub.add_parser("ii", help="the hybrid's intransitivity index per population in Fig 8 replay results")
    i.add_argument("results", nargs="+")
    i.add_argument("--thresholds", type=float, nargs="+", default=[0.05, 0.13, 0.17, 0.5])
    args = ap.parse_args(argv)
    return {"build": build, "stats": stats, "ii": ii_distribution}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
