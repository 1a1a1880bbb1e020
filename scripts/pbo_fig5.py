"""Fig 5 of González et al. 2017 (PBO): g at the current Condorcet winner against the number of duels on
Forrester (1-D), six-hump camel, Goldstein-Price and Levy (2-D), 33 grid points per dimension, 5 random
initial duels shared by all methods of a trial, then 200 duels. Methods: PBO-PE, PBO-DTS, PBO-CEI (1-D
only), random duels (most frequent winner), Sparring (two UCB1 players) and IBO (Brochu 2010: Expected
Improvement on a probit preference GP, the EI maximiser against the incumbent; ``ibo-diff`` is IBO with
the spread of h(x) - h(x+) in EI instead of the marginal spread of h(x)).

Writes ``docs/results/pbo_fig5.png`` and ``pbo_fig5.md`` and ``runs/pbo_fig5.h5`` (every curve).

    nice -n 10 python scripts/pbo_fig5.py [--trials 20] [--trials-2d 20] [--random-trials 100] [--cei-trials 5]
        [--workers 2] [--methods pbo-dts,pbo-pe,pbo-cei,random,sparring,ibo,ibo-diff]
"""

from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # one BLAS thread per worker: threads oversubscribe the two cores

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

FUNCTIONS = ("forrester", "six-hump-camel", "goldstein-price", "levy")
METHODS = ("pbo-dts", "pbo-pe", "pbo-cei", "random", "sparring", "ibo", "ibo-diff")  # index seeds its streams
SHOW = (0, 10, 25, 50, 100, 150, 200)


def options(method: str, dim: int, args) -> dict:
    """The documented per-method settings (the paper leaves them open)."""
    if method in ("ibo", "ibo-diff"):  # the same GP and hyperparameter schedule as PBO's
        return {"optimize_every": args.optimize_every, "lengthscale_bounds": (0.02, 1.0),
                "sigma": "difference" if method == "ibo-diff" else "marginal"}
    if not method.startswith("pbo-"):
        return {}
    opt = {"optimize_every": args.optimize_every, "n_features": args.features,
           "lengthscale_bounds": (0.02, 1.0)}
    if dim > 1:  # 1089 grid points: Monte-Carlo landmarks and random PE candidates
        opt.update(landmarks=args.landmarks, pe_candidates=args.pe_candidates)
    return opt


def run_task(task):
    """One trial of one method on one function; everything comes from the task's seeds."""
    from pokerduel.bandits.pbo import make_policy, run_trial
    from pokerduel.bandits.pbo_functions import DuelSimulator, get_objective, unit_grid

    fname, method, trial, seed, per_dim, n_init, n_duels, opts = task
    obj = get_objective(fname)
    grid = unit_grid(obj.dim, per_dim)
    g = obj(grid)
    f_idx, m_idx = FUNCTIONS.index(fname), METHODS.index(method)
    init_rng = np.random.default_rng([seed, f_idx, trial, 0])  # shared by every method of this trial
    init = []
    for _ in range(n_init):
        i, j = init_rng.integers(len(grid), size=2)
        init.append((i, j, int(init_rng.random() < DuelSimulator(g, init_rng).prob_first_wins(i, j))))
    sim = DuelSimulator(g, np.random.default_rng([seed, f_idx, trial, 1, m_idx]))
    policy = make_policy("ibo" if method == "ibo-diff" else method, grid,
                         np.random.default_rng([seed, f_idx, trial, 2, m_idx]), **opts)
    guesses, asked, secs = run_trial(policy, sim.duel, init, n_duels)
    return g[guesses], secs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=20, help="trials of PBO-PE, PBO-DTS, Sparring, IBO")
    ap.add_argument("--trials-2d", type=int, default=None, help="trials of those on 2-D functions (default --trials)")
    ap.add_argument("--random-trials", type=int, default=100)
    ap.add_argument("--cei-trials", type=int, default=5, help="PBO-CEI trials (Forrester only)")
    ap.add_argument("--functions", default=",".join(FUNCTIONS))
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--duels", type=int, default=200)
    ap.add_argument("--init", type=int, default=5)
    ap.add_argument("--per-dim", type=int, default=33)
    ap.add_argument("--optimize-every", type=int, default=10)
    ap.add_argument("--features", type=int, default=256)
    ap.add_argument("--landmarks", type=int, default=256, help="soft-Copeland landmarks in 2-D")
    ap.add_argument("--pe-candidates", type=int, default=20000, help="random PE candidate duels in 2-D")
    ap.add_argument("--seed", type=int, default=2017)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out-dir", default="docs/results")
    ap.add_argument("--runs-dir", default="runs")
    ap.add_argument("--name", default="pbo_fig5")
    args = ap.parse_args()
    functions = tuple(args.functions.split(","))
    methods = tuple(args.methods.split(","))
    args.trials_2d = args.trials if args.trials_2d is None else args.trials_2d
    bad = [f for f in functions if f not in FUNCTIONS] + [m for m in methods if m not in METHODS]
    counts = (args.trials, args.trials_2d, args.random_trials, args.cei_trials, args.duels, args.init, args.per_dim,
              args.optimize_every, args.features, args.landmarks, args.pe_candidates, args.workers)
    if bad or min(counts) < 0 or args.per_dim < 2 or args.workers < 1 or args.init < 1:
        print(f"usage error: functions must be among {', '.join(FUNCTIONS)}, methods among {', '.join(METHODS)}; "
              "counts must be non-negative, "
              "--per-dim >= 2, --init and --workers >= 1", file=sys.stderr)
        sys.exit(2)
    from pokerduel.bandits.pbo_functions import get_objective, unit_grid
    from pokerduel.infra.parallel import get_backend
    from pokerduel.infra.storage import atomic_h5, stamp
    from pokerduel.selectors.studies import atomic_savefig

    tasks = []
    for fname in functions:
        dim = get_objective(fname).dim
        for method in methods:
            n = {"random": args.random_trials, "pbo-cei": args.cei_trials if dim == 1 else 0}.get(
                method, args.trials if dim == 1 else args.trials_2d)
            tasks += [(fname, method, t, args.seed, args.per_dim, args.init, args.duels, options(method, dim, args))
                      for t in range(n)]
    tasks.sort(key=lambda t: (t[1] == "random" or t[1] == "sparring", get_objective(t[0]).dim == 1))  # long first
    curves: dict = {}
    secs: dict = {}
    t0 = time.perf_counter()
    with get_backend("multiprocess" if args.workers > 1 else "serial", workers=args.workers) as backend:
        for done, (k, (curve, s)) in enumerate(backend.map_unordered(run_task, tasks), 1):
            key = tasks[k][:2]
            curves.setdefault(key, {})[tasks[k][2]] = curve
            secs[key] = secs.get(key, 0.0) + s
            if done % 10 == 0 or done == len(tasks):
                print(f"{done}/{len(tasks)} tasks, {time.perf_counter() - t0:.0f} s", flush=True)
    wall = time.perf_counter() - t0
    curves = {k: np.array([v[t] for t in sorted(v)]) for k, v in curves.items()}

    os.makedirs(args.runs_dir, exist_ok=True)
    with atomic_h5(os.path.join(args.runs_dir, f"{args.name}.h5")) as f:
        stamp(f, "pbo-fig5", 1, **{k: v for k, v in vars(args).items()}, wall_seconds=wall)
        for (fname, method), c in curves.items():
            f.create_dataset(f"{fname}/{method}", data=c)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(functions), figsize=(4.2 * len(functions), 7), squeeze=False)
    lines = ["# PBO Fig 5 (González et al. 2017): g(x_c) against duels", "",
             f"`nice -n 10 python scripts/pbo_fig5.py --trials {args.trials} --trials-2d {args.trials_2d} "
             f"--random-trials {args.random_trials} --cei-trials {args.cei_trials} --functions {args.functions} "
             f"--methods {args.methods} --workers {args.workers} --seed {args.seed}`"
             f" (duels {args.duels}, initial {args.init}, grid {args.per_dim} per dimension, hyperparameters "
             f"re-optimised every {args.optimize_every} duels, {args.features} Fourier features; in 2-D "
             f"{args.landmarks} soft-Copeland landmarks and {args.pe_candidates} random PE candidates): "
             f"{wall:.0f} s wall on {args.workers} workers of a shared, loaded 2-core machine.", "",
             "Entries: mean g(x_c) ± standard error over trials after that many duels (0 = after the initial "
             "duels only). `grid min` is the smallest g on the grid.", ""]
    for c, fname in enumerate(functions):
        obj = get_objective(fname)
        gmin = float(obj(unit_grid(obj.dim, args.per_dim)).min())
        lines += [f"## {fname} (grid min {gmin:.4g}, true min {obj.f_min:.4g})", "",
                  "| method | trials | " + " | ".join(str(s) for s in SHOW if s <= args.duels) + " | s/trial |",
                  "|---|---|" + "---|" * (len([s for s in SHOW if s <= args.duels]) + 1)]
        for method in METHODS:
            if (fname, method) not in curves:
                continue
            cv = curves[(fname, method)]
            mean, se = cv.mean(0), cv.std(0, ddof=1) / np.sqrt(len(cv)) if len(cv) > 1 else np.zeros(cv.shape[1])
            x = np.arange(cv.shape[1])
            axes[0, c].plot(x, mean, label=f"{method} ({len(cv)})")
            axes[1, c].plot(x, np.maximum(mean - gmin, 1e-4), label=method)
            cells = " | ".join(f"{mean[s]:.4g} ± {se[s]:.2g}" for s in SHOW if s <= args.duels)
            lines.append(f"| {method} | {len(cv)} | {cells} | {secs[(fname, method)] / len(cv):.1f} |")
        lines.append("")
        axes[0, c].axhline(gmin, color="black", lw=0.6, ls=":")
        axes[0, c].set_title(fname, fontsize=10)
        axes[1, c].set_yscale("log")
        axes[1, c].set_xlabel("duels")
        for r in range(2):
            axes[r, c].grid(alpha=0.3)
        axes[0, c].legend(fontsize=7)
    axes[0, 0].set_ylabel("mean g(x_c)")
    axes[1, 0].set_ylabel("mean g(x_c) − grid min (log)")
    fig.suptitle("PBO Fig 5 reproduction: g at the Condorcet winner (mean over trials)", fontsize=10)
    fig.tight_layout()
    os.makedirs(args.out_dir, exist_ok=True)
    atomic_savefig(fig, os.path.join(args.out_dir, f"{args.name}.png"))
    text = "\n".join(lines)
    with open(os.path.join(args.out_dir, f"{args.name}.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    print(f"pbo fig 5: {wall:.1f} s wall on {args.workers} workers")


if __name__ == "__main__":
    main()
