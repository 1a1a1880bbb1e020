"""What ``pokerduel evolve --repeat m`` costs in selection accuracy, at the evolution's own scale.

``--repeat m`` makes each selector decision sample its pair m times, dividing the decision overhead by m.
This script measures what that does to the answer on the synthetic problems of the core paper at the
size of an evolving population: K = 50 players, top k = 15, a budget of 2,000 samples from one warm-up
sample per pair (1,225), the rest adaptive. For each method and m it reports the mean overlap of the
selected top-k with the true top-k over ``--reps`` seeded instances, and the paired difference from
uniform allocation on the same instances and noise. Usage::

    python scripts/evolve_repeat_tradeoff.py --reps 150
"""

from __future__ import annotations

import argparse

import numpy as np

from pokerduel.evolve import repeating
from pokerduel.selectors import SELECTORS
from pokerduel.selectors.studies import make_problem

RUNS = (("uniform", 1), ("hybrid", 1), ("hybrid", 10), ("hybrid", 20), ("pocbam", 1), ("pocbam", 5))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--K", type=int, default=50)
    ap.add_argument("--k", type=int, default=15)
    ap.add_argument("--budget", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=150)
    ap.add_argument("--problems", default="perturbed:0.3,thurstone")
    args = ap.parse_args(argv)
    print("problem        method   repeat   overlap with the true top-k    minus uniform (paired)")
    for spec in args.problems.split(","):
        base = None
        for name, m in RUNS:
            overlap = np.empty(args.reps)
            for rep in range(args.reps):
                oracle = make_problem(spec, args.K, np.random.default_rng([100 + rep, 1]),
                                      np.random.default_rng([100 + rep, 2]))
                truth = set(oracle.true_top_k(args.k).tolist())
                sel = repeating(SELECTORS[name], m)(oracle, args.k, args.budget, n0=1,
                                                    rng=np.random.default_rng(100 + rep))
                overlap[rep] = len(truth & set(sel.run().tolist()))
            base = overlap if base is None else base
            d = overlap - base
            se = overlap.std(ddof=1) / np.sqrt(args.reps)
            dse = d.std(ddof=1) / np.sqrt(args.reps) if name != "uniform" else 0.0
            print(f"{spec:14s} {name:8s} {m:6d}   {overlap.mean():6.3f} +- {se:.3f} of {args.k}"
                  f"            {d.mean():+.3f} +- {dse:.3f}", flush=True)


if __name__ == "__main__":
    main()
