"""What ``pokerduel evolve --repeat m`` and ``--lag L`` cost in selection accuracy, at the evolution's scale.

``--repeat m`` makes each selector decision sample its pair m times, dividing the decision overhead by m;
``--lag L`` makes each decision with the L most recent samples still pending, so that deals play while
the selector decides; ``--refit-every r`` refits ML-POCBAm's model at every r-th decision only. This
script measures what each does to the answer on the synthetic problems of the core paper at the size of
an evolving population: K = 50 players, top k = 15, a budget of 2,000 samples from one warm-up sample
per pair (1,225), the rest adaptive. For each method and variant it
reports the mean overlap of the selected top-k with the true top-k over ``--reps`` seeded instances,
the paired difference from uniform allocation and the paired difference from the same method with
one sample per decision and no lag, on the same instances and noise. Usage::

    python scripts/evolve_repeat_tradeoff.py --reps 300
    python scripts/evolve_repeat_tradeoff.py --reps 300 --problems perturbed:0.3 --runs uniform:1:0:1,hybrid:1:4:8
"""

from __future__ import annotations

import argparse

import numpy as np

from pokerduel.evolution.evolve import repeating
from pokerduel.selectors import SELECTORS
from pokerduel.selectors.studies import make_problem

#: (method, repeat, lag, refit_every)
RUNS = (("uniform", 1, 0, 1), ("hybrid", 1, 0, 1), ("hybrid", 10, 0, 1), ("hybrid", 20, 0, 1), ("hybrid", 1, 1, 1),
        ("hybrid", 1, 2, 1), ("hybrid", 1, 4, 1), ("hybrid", 1, 2, 2), ("hybrid", 1, 2, 4), ("hybrid", 1, 2, 8),
        ("ml-pocbam", 1, 0, 1), ("ml-pocbam", 1, 2, 4), ("pocbam", 1, 0, 1), ("pocbam", 5, 0, 1), ("pocbam", 1, 2, 1))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--K", type=int, default=50)
    ap.add_argument("--k", type=int, default=15)
    ap.add_argument("--budget", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=150)
    ap.add_argument("--problems", default="perturbed:0.3,thurstone")
    ap.add_argument("--runs", default=None, help="only these METHOD:REPEAT:LAG:REFIT variants (comma-separated)")
    args = ap.parse_args(argv)
    runs = RUNS if args.runs is None else [(a, int(b), int(c), int(d)) for a, b, c, d in
                                           (v.split(":") for v in args.runs.split(","))]
    print("problem        method    repeat lag refit   overlap with the true top-k   minus uniform    "
          "minus the paper's method (repeat 1, lag 0, refit 1)")
    for spec in args.problems.split(","):
        base = None
        plain = {}
        for name, m, lag, refit in runs:
            overlap = np.empty(args.reps)
            for rep in range(args.reps):
                oracle = make_problem(spec, args.K, np.random.default_rng([100 + rep, 1]),
                                      np.random.default_rng([100 + rep, 2]))
                truth = set(oracle.true_top_k(args.k).tolist())
                extra = {"refit_every": refit} if refit > 1 else {}
                sel = repeating(SELECTORS[name], m)(oracle, args.k, args.budget, n0=1, lag=lag,
                                                    rng=np.random.default_rng(100 + rep), **extra)
                overlap[rep] = len(truth & set(sel.run().tolist()))
            base = overlap if base is None else base
            if (m, lag, refit) == (1, 0, 1):
                plain[name] = overlap
            se = overlap.std(ddof=1) / np.sqrt(args.reps)
            cols = []
            for ref in (base, plain.get(name)):
                d = None if ref is None or ref is overlap else overlap - ref
                cols.append("" if d is None else f"{d.mean():+.3f} +- {d.std(ddof=1) / np.sqrt(args.reps):.3f}")
            print(f"{spec:14s} {name:9s} {m:6d} {lag:3d} {refit:5d}   {overlap.mean():6.3f} +- {se:.3f} of {args.k}"
                  f"        {cols[0]:16s} {cols[1]}", flush=True)


if __name__ == "__main__":
    main()
