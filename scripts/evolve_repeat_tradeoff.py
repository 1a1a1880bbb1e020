"""What ``pokerduel evolve --repeat m`` and ``--lag L`` cost in selection accuracy, at the evolution's scale.

``--repeat m`` makes each selector decision sample its pair m times, dividing the decision overhead by m;
``--lag L`` makes each decision with the L most recent samples still pending, so that deals play while
the selector decides; ``--refit-every r`` refits ML-POCBAm's model at every r-th decision only. This
script measures what each does to the answer on the synthetic problems of the core paper at the size of
an evolving population: K = 50 players, top k = 15, a budget of 2,000 samples from one warm-up sample
per pair (1,225), the rest adaptive. For each method and variant it
reports the mean overlap of the selected top-k with the true top-k over ``--reps`` seeded instances,
the paired difference from the first variant listed (uniform allocation by default) and from the first
variant listed of the same method (by default the paper's: one sample per decision, no lag), on the same
instances and noise.

``--pools`` adds fixed opponents as in the evolution's mixed mode (``selectors.candidates_vs_opponents``:
``K`` candidates ranked by eq 1 with ``--population`` spread over the other candidates and each pool
``SIZE:WEIGHT`` over its opponents); a run's fifth field is then its ``batch`` (samples per decision, the
decision's best pairs). Usage::

    python scripts/evolve_repeat_tradeoff.py --reps 300
    python scripts/evolve_repeat_tradeoff.py --reps 300 --problems perturbed:0.3 --runs uniform:1:0:1,hybrid:1:4:8
    python scripts/evolve_repeat_tradeoff.py --K 30 --k 9 --budget 12000 --pools 4:0.25,4:6.3 --population 0.1 \
        --problems perturbed:0.3 --runs uniform:1:0:1,pocbam:1:8:1:1,pocbam:1:8:1:4
"""

from __future__ import annotations

import argparse

import numpy as np

from pokerduel.evolution.evolve import repeating
from pokerduel.selectors import SELECTORS, candidates_vs_opponents
from pokerduel.selectors.studies import make_problem, parse_problem

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
    ap.add_argument("--n0", type=int, default=1, help="warm-up samples per pair")
    ap.add_argument("--problems", default="perturbed:0.3,thurstone")
    ap.add_argument("--runs", default=None,
                    help="only these METHOD:REPEAT:LAG:REFIT[:BATCH] variants (comma-separated)")
    ap.add_argument("--pools", default=None, help="fixed opponents: SIZE:WEIGHT pools (comma-separated)")
    ap.add_argument("--population", type=float, default=1.0, help="the other candidates' weight (with --pools)")
    args = ap.parse_args(argv)
    runs = [(*r, 1) for r in RUNS] if args.runs is None else \
        [(a, int(b), int(c), int(d), int(e[0]) if e else 1) for a, b, c, d, *e in
         (v.split(":") for v in args.runs.split(","))]
    pools = None if args.pools is None else [(int(a), float(b)) for a, b in
                                             (v.split(":") for v in args.pools.split(","))]
    M = 0 if pools is None else sum(size for size, _ in pools)

    def problem(spec, rep):
        irng, nrng = np.random.default_rng([100 + rep, 1]), np.random.default_rng([100 + rep, 2])
        if pools is None:
            return make_problem(spec, args.K, irng, nrng)
        kind, d = parse_problem(spec)
        if kind not in ("thurstone", "perturbed"):
            raise SystemExit(f"--pools takes thurstone or perturbed:D problems, not {spec}")
        return candidates_vs_opponents(args.K, M, irng, nrng, d=d or 0.0, pools=pools, population=args.population)

    print("problem        method    repeat lag refit batch   overlap with the true top-k   minus the first run  "
          "minus the method's first run")
    for spec in args.problems.split(","):
        base = None
        plain = {}
        for name, m, lag, refit, batch in runs:
            overlap = np.empty(args.reps)
            for rep in range(args.reps):
                oracle = problem(spec, rep)
                truth = set(oracle.true_top_k(args.k).tolist())
                extra = {"refit_every": refit} if refit > 1 else {}
                extra.update({"batch": batch} if batch > 1 else {})
                extra.update(getattr(oracle, "selector_options", {}))
                sel = repeating(SELECTORS[name], m)(oracle, args.k, args.budget, n0=args.n0, lag=lag,
                                                    rng=np.random.default_rng(100 + rep), **extra)
                overlap[rep] = len(truth & set(sel.run().tolist()))
            base = overlap if base is None else base
            plain.setdefault(name, overlap)
            se = overlap.std(ddof=1) / np.sqrt(args.reps)
            cols = []
            for ref in (base, plain.get(name)):
                d = None if ref is None or ref is overlap else overlap - ref
                cols.append("" if d is None else f"{d.mean():+.3f} +- {d.std(ddof=1) / np.sqrt(args.reps):.3f}")
            print(f"{spec:14s} {name:9s} {m:6d} {lag:3d} {refit:5d} {batch:5d}   {overlap.mean():6.3f} +- {se:.3f} "
                  f"of {args.k}        {cols[0]:16s} {cols[1]}", flush=True)


if __name__ == "__main__":
    main()
