"""CPPL §6.2 (Fig 2): online algorithm preselection on the public SAPS x SWGCP data. Arms are 20 SAPS
parametrisations (4 features each), one of the 5000 SWGCP instances is drawn per round without
replacement (T = 5000), the context of arm i is kron(instance features, parametrisation features) with the
instance features min-max scaled and reduced to 7 (variance < 0.01 and greedy |corr| > 0.95 removal), so
d = 28; feedback is a PL ranking of the chosen subset with v_i = exp(-10 runtime_i); regret (eq 9) uses the
same v. 50 repetitions (random instance orders). Writes ``docs/results/cppl_algorithm_selection.{md,png}``
and ``runs/cppl_algorithm_selection.h5``.

    python scripts/cppl_algorithm_selection.py                      # k = 2, 5, 10, 50 repetitions, T = 5000
    python scripts/cppl_algorithm_selection.py --data DIR --ks 5 --reps 10 --T 1000
    python scripts/cppl_algorithm_selection.py --ridge 1 --scale-arms --theta0 zero --out /tmp/x --runs /tmp/x

Readings the paper leaves open, each an option whose default is the run in the results page: ``--ridge``
(prior precision in the bound's sandwich, 0 = pseudo-inverse), ``--scale-arms`` (min-max the SAPS
features too), ``--theta0`` (uniform on [0, 1]^d or zero), ``--gamma1`` / ``--alpha`` (paper: 2, 0.6).

The data folder (default ``/work/shared/data/cppl-saps-swgcp``) is read, never copied; a missing folder
is a usage error (exit 2). The k values of the paper's Fig 2 are not in its text.
"""

from __future__ import annotations

import os

# one BLAS thread: the 28x28 eigen-decompositions of the bound are ~100x slower when OpenBLAS spreads
# them over the cores of a loaded machine (measured); set before numpy is imported
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse
import sys
import time

import numpy as np
from cppl_synthetic import plot_panels, regret_table, summary

from pokerduel.bandits.cppl import (
    DEFAULT_SAPS_DIR,
    METHODS,
    AlgorithmSelectionProblem,
    compare,
    load_saps_swgcp,
    preprocess_instance_features,
)
from pokerduel.infra.storage import atomic_h5, stamp


def best_fixed_subset(v: np.ndarray, k: int) -> tuple[float, list[int], bool]:
    """Mean per-round regret of the best fixed k-subset of arms on the whole data (``v`` instances x arms):
    exhaustive for k <= 3, forward-greedy above (then an upper bound on the best, flagged False)."""
    import itertools

    best = v.max(axis=1)

    def loss(S):
        return float((1 - v[:, list(S)].max(axis=1) / best).mean())

    if k <= 3:
        S = min(itertools.combinations(range(v.shape[1]), k), key=loss)
        return loss(S), list(S), True
    S: list[int] = []
    while len(S) < k:
        S.append(min((i for i in range(v.shape[1]) if i not in S), key=lambda i: loss(S + [i])))
    return loss(S), S, False


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DEFAULT_SAPS_DIR), help="the SAPS x SWGCP data folder")
    ap.add_argument("--ks", default="2,5,10", help="subset sizes, comma-separated (1 <= k < 20)")
    ap.add_argument("--reps", type=int, default=50, help="repetitions (paper: 50)")
    ap.add_argument("--T", type=int, default=5000, help="rounds (at most the 5000 instances)")
    ap.add_argument("--feedback", choices=("ranking", "winner"), default="ranking")
    ap.add_argument("--drop", choices=("mean-corr", "later"), default="mean-corr",
                    help="which feature of a correlated pair goes (the paper does not say)")
    ap.add_argument("--lam", type=float, default=10.0, help="v = exp(-lam * runtime) (paper: 10)")
    ap.add_argument("--gamma1", type=float, default=2.0, help="CPPL SGD step gamma1 (paper: 2)")
    ap.add_argument("--alpha", type=float, default=0.6, help="CPPL SGD step exponent alpha (paper: 0.6)")
    ap.add_argument("--ridge", type=float, default=0.0,
                    help="prior precision in the bound (0: pseudo-inverse, the paper read literally)")
    ap.add_argument("--theta0", choices=("uniform", "zero"), default="uniform",
                    help="initial theta_hat (paper: 'randomly')")
    ap.add_argument("--scale-arms", action="store_true",
                    help="min-max scale the SAPS parametrisation features to [0, 1] as well")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="docs/results")
    ap.add_argument("--runs", default="runs")
    args = ap.parse_args(argv)
    try:
        F, names, P, runtimes = load_saps_swgcp(args.data)
        ks = [int(v) for v in args.ks.split(",")]
        if any(not 1 <= k < len(P) for k in ks):
            raise ValueError(f"--ks values must be in 1..{len(P) - 1}, got {ks}")
        methods = tuple(args.methods.split(","))
        if any(m not in METHODS for m in methods):
            raise ValueError(f"--methods must be a subset of {list(METHODS)}")
        if args.reps < 2 or not 1 <= args.T <= len(F):
            raise ValueError(f"--reps must be >= 2 and --T in 1..{len(F)}")
        if not args.lam > 0:
            raise ValueError("--lam must be > 0")
        if not (args.gamma1 > 0 and 0.5 < args.alpha < 1 and args.ridge >= 0):
            raise ValueError("need --gamma1 > 0, --alpha in (0.5, 1) and --ridge >= 0")
    except ValueError as err:
        ap.error(str(err))  # exits 2
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.runs, exist_ok=True)
    G, keep = preprocess_instance_features(F, drop=args.drop)
    n, d = len(P), G.shape[1] * P.shape[1]
    print(f"{len(keep)} instance features kept: {[names[j] for j in keep]}; d = {d}", flush=True)
    # the defaults equal CPPL's own, so the default run is unchanged; theta0 "uniform" keeps CPPL's rng draw
    learner_options = {"gamma1": args.gamma1, "alpha": args.alpha, "ridge": args.ridge}
    if args.theta0 == "zero":
        learner_options["theta0"] = np.zeros(d)
    arm_scaling = "minmax" if args.scale_arms else "raw"
    results, times = [], []
    t_all = time.perf_counter()
    for k in ks:
        t0 = time.perf_counter()
        m = k if args.feedback == "ranking" else 1
        regret = compare(lambda rng: AlgorithmSelectionProblem(G, P, runtimes, args.reps, rng, lam=args.lam,
                                                               arm_scaling=arm_scaling),
                         n, k, d, args.reps, args.T, m, [args.seed, k], methods=methods,
                         learner_options=learner_options)
        times.append(time.perf_counter() - t0)
        results.append((f"k={k}", regret))
        print(f"k={k}: " + ", ".join(f"{a} {mu:.1f}±{se:.1f}" for a, (mu, se) in summary(regret).items())
              + f"  ({times[-1]:.1f} s)", flush=True)
    wall = time.perf_counter() - t_all
    # reference points: the best single parametrisation and random subsets, on the whole data set
    v = np.exp(-args.lam * runtimes)
    best = v.max(axis=1)
    single = (1 - v / best[:, None]).mean(axis=0)
    sbs = int(np.argmin(single))
    fixed = {k: best_fixed_subset(v, k) for k in ks}
    with atomic_h5(os.path.join(args.runs, "cppl_algorithm_selection.h5")) as f:
        stamp(f, "pokerduel-cppl-algorithm-selection", 1, data=os.path.abspath(args.data), ks=ks, reps=args.reps,
              T=args.T, feedback=args.feedback, drop=args.drop, lam=args.lam, methods=list(methods),
              seed=args.seed, features=[names[j] for j in keep], gamma1=args.gamma1, alpha=args.alpha,
              ridge=args.ridge, theta0=args.theta0, arm_scaling=arm_scaling)
        for (label, regret) in results:
            g = f.create_group(label.replace("=", ""))
            for name, r in regret.items():
                g.create_dataset(name, data=np.cumsum(r, axis=1)[:, :: max(1, args.T // 500)], compression="gzip")
    cmd = "python scripts/cppl_algorithm_selection.py" + ("" if args.ks == "2,5,10" else f" --ks {args.ks}") \
        + ("" if args.reps == 50 else f" --reps {args.reps}") + ("" if args.T == 5000 else f" --T {args.T}") \
        + ("" if args.feedback == "ranking" else f" --feedback {args.feedback}") \
        + ("" if args.drop == "mean-corr" else f" --drop {args.drop}") \
        + ("" if args.seed == 1 else f" --seed {args.seed}") \
        + ("" if args.gamma1 == 2.0 else f" --gamma1 {args.gamma1:g}") \
        + ("" if args.alpha == 0.6 else f" --alpha {args.alpha:g}") \
        + ("" if args.ridge == 0.0 else f" --ridge {args.ridge:g}") \
        + ("" if args.theta0 == "uniform" else f" --theta0 {args.theta0}") \
        + (" --scale-arms" if args.scale_arms else "") \
        + ("" if methods == tuple(METHODS) else f" --methods {args.methods}")
    plot_panels(results, os.path.join(args.out, "cppl_algorithm_selection.png"),
                f"CPPL §6.2 SAPS x SWGCP, {args.feedback} feedback, {args.reps} repetitions, T = {args.T}, "
                "mean ± 1 SE (MM shown: here it is not worse)", skip=())
    lines = ["# CPPL §6.2: algorithm preselection, SAPS × SWGCP", "",
             f"`{cmd}`: {args.reps} repetitions (random instance orders) of T = {args.T} rounds, "
             f"seed {args.seed}; {wall:.0f} s wall in all (one process, a shared 2-core machine under load).", "",
             f"Instance features kept ({len(keep)}, drop rule `{args.drop}`): "
             + ", ".join(f"`{names[j]}`" for j in keep) + f"; contexts kron(7 instance, 4 SAPS) features, d = {d}. "
             f"Feedback: PL {args.feedback} of S_t with v = exp(−{args.lam:g} · runtime); regret of eq 9 on the "
             "same v. CPPL: gamma1 = 2, alpha = 0.6, omega = 1; epsilon = 0.1.", "",
             "Final cumulative regret R_T, mean ± standard error; paired differences (same instance orders):", "",
             *regret_table(results, methods), "",
             f"Reference (whole data set, not learned): the single best parametrisation (#{sbs + 1}) has mean "
             f"per-round regret {single[sbs]:.3f} as a single choice, i.e. R_T ≈ {single[sbs] * args.T:.0f} for k = 1. "
             "The best fixed (context-free) k-subset in hindsight, per-round regret and R_T at this T: "
             + "; ".join(f"k = {k}: {r:.4f}, {r * args.T:.0f} (arms {[a + 1 for a in S]}{'' if exact else ', greedy'})"
                         for k, (r, S, exact) in fixed.items()) + ".",
             "", "Wall time per k (s): " + ", ".join(f"{lab}: {t:.1f}" for (lab, _), t in zip(results, times)), ""]
    text = "\n".join(lines)
    with open(os.path.join(args.out, "cppl_algorithm_selection.md"), "w") as fh:
        fh.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
