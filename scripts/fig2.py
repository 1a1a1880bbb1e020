"""Fig 2 of Groves & Branke: success rate against samples on the value-based Thurstone problem (§5.1)
for ML-POCBAm, POCBAm, SELECT/TOP and uniform allocation: (a) top 4 of 10, (b) top 1 of 10, (c) top 40 of
100. Writes ``docs/results/fig2<panel>.png`` and ``.md`` (a table at selected budgets, the paired
differences and where the curves cross) and the full results to ``runs/fig2<panel>.h5``.

    python scripts/fig2.py                          # all panels, 10,000 replications for (a) and (b)
    python scripts/fig2.py --panels a --reps 10000  # Fig 2a in full, timed (the issue's 5-minute target)
    python scripts/fig2.py --panels c --reps-c 1000 # (c): 1.6 s a replication on one Zen 5 core (docs/benchmarks.md)
    python scripts/fig2.py --panels a --var-prior 2 # POCBAm and ML-POCBAm with var_prior = 2: fig2a-vp2.*
    python scripts/fig2.py --panels c --reps-c 10000 --scheduler tcp://HEAD:8786   # the paper's count on Dask

The paper's budgets: 1,000 samples for K = 10 and 30,000 for K = 100, the first 3 samples of every pair
as warm-up for the OCBA methods; SELECT/TOP's budget is varied through its repetitions per match.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from pokerduel.selectors import SelectTop
from pokerduel.selectors.studies import (
    StudyConfig,
    atomic_savefig,
    crossings,
    markdown_table,
    paired_difference,
    run_or_load,
    sign_runs,
)

METHODS = ("ml-pocbam", "pocbam", "select-top", "uniform")
RUN = {"+": "significantly > 0 at", "-": "significantly < 0 at", "0": "not significant at"}
PANELS = {"a": (10, 4, 1000, 5), "b": (10, 1, 1000, 5), "c": (100, 40, 30000, 500)}
TABLE = {"a": (19, 57, 95, 135, 200, 300, 500, 750, 1000), "b": (9, 45, 90, 135, 200, 300, 500, 750, 1000),
         "c": (373, 3730, 14850, 18000, 21000, 24000, 27000, 30000)}


def budgets(K, k, top, step):
    """The anytime methods' grid (every ``step`` samples from the warm-up) and SELECT/TOP's: its budgets for
    nu = 1, 2, ... repetitions per match (every 4th nu for K = 100), as the paper varies nu."""
    warm = 3 * K * (K - 1) // 2
    st = SelectTop.min_budget(K, k)
    grid = sorted(set(range(warm, top + 1, step)) | {top})
    nus = range(1, top // st + 1) if K == 10 else [1, *range(4, top // st + 1, 4)]
    return tuple(grid), tuple(st * nu for nu in nus)


def plot(res, maj, path, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4.4))
    curves = [(m, res.rate("thurstone", m), "-") for m in METHODS]
    if maj is not None:
        curves.append(("select-top (majority of wins)", maj.rate("thurstone", "select-top"), "--"))
    top = 0.0
    for label, (b, rate, lo, hi), style in curves:
        line, = ax.plot(b, rate, style, label=label)
        ax.fill_between(b, lo, hi, color=line.get_color(), alpha=0.2, linewidth=0)
        top = max(top, float(hi.max()))
    ax.set_xlabel("samples (budget)")
    ax.set_ylabel("success rate (top-k correct)")
    ax.set_ylim(0, 1 if top > 0.6 else top + 0.1)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right" if top > 0.6 else "upper left", fontsize=8)
    ax.set_title(title, fontsize=8)
    fig.tight_layout()
    atomic_savefig(fig, path)
    plt.close(fig)


def run_panel(panel, reps, workers, seed, law, out_dir, runs_dir, replot=False, var_prior=0.0, backend=None):
    K, k, top, step = PANELS[panel]
    suffix = ("" if law == "variance" else "-sd") + (f"-vp{var_prior:g}" if var_prior else "")
    # the variance prior (docs/selectors.md): POCBAm's and ML-POCBAm's pair variances shrunk toward the pooled one
    options = {m: {"var_prior": var_prior} for m in ("pocbam", "ml-pocbam")} if var_prior else {}
    h5 = os.path.join(runs_dir, f"fig2{panel}{suffix}.h5")
    grid, st_grid = budgets(K, k, top, step)
    cfg = StudyConfig(K=K, k=k, budgets=grid, methods=METHODS, problems=("thurstone",), replications=reps,
                      seed=seed, variance_law=law, own_budgets={"select-top": st_grid}, options=options)
    res = run_or_load(cfg, h5, workers=workers, replot=replot, label=f"fig 2{panel}", backend=backend)
    workers = res.workers          # a Dask backend's, or the saved run's with --replot
    if replot:
        reps, seed = res.config.replications, res.config.seed
    wall = res.seconds
    # SELECT/TOP with win/loss majorities (its original, preference-based form): a cheap extra study on the
    # same seed, hence the same instances and samples
    h5m = os.path.join(runs_dir, f"fig2{panel}{suffix}-majority.h5")
    if replot and not os.path.exists(h5m):
        maj = None
    else:
        maj_cfg = StudyConfig(K=K, k=k, budgets=st_grid, methods=("select-top",), problems=("thurstone",),
                              replications=reps, seed=seed, variance_law=law,
                              options={"select-top": {"decide": "majority"}})
        maj = run_or_load(maj_cfg, h5m, workers=workers, replot=replot, label=f"fig 2{panel}, majority",
                          backend=backend)
    law_text = ("sigma^2 ~ U[0,1]" if law == "variance" else "sigma ~ U[0,1]") + \
        (f", POCBAm and ML-POCBAm with var_prior {var_prior:g}" if var_prior else "")
    plot(res, maj, os.path.join(out_dir, f"fig2{panel}{suffix}.png"),
         f"Fig 2{panel}: top {k} of {K}, Thurstone ({law_text}), {reps} replications, seed {seed}, "
         "95% Wilson intervals")
    lines = [f"# Fig 2{panel}: top {k} of {K}, Thurstone, {law_text}", "",
             f"`python scripts/fig2.py --panels {panel} --reps{'-c' if panel == 'c' else ''} {reps} --seed {seed}"
             f"{' --variance-law sd' if law == 'sd' else ''}{f' --var-prior {var_prior:g}' if var_prior else ''}`: "
             f"{reps} replications (paper: 10,000), "
             f"{wall:.0f} s wall on {workers} workers (a shared 2-core machine).", "",
             "Success rate [95% Wilson interval] at selected budgets (SELECT/TOP is measured at its own budgets; "
             "'at' marks the nearest one below):", "", markdown_table(res, TABLE[panel]), ""]
    if maj is not None:
        lines += ["SELECT/TOP deciding each match by the majority of won comparisons (its preference-based form) "
                  "instead of the sum of scores:", "",
                  markdown_table(maj, TABLE[panel]).replace("| select-top |", "| select-top, majority |"),
                  ""]
    lines += ["Paired differences (common random numbers), mean [95% CI] at selected budgets, and where they "
              "change sign:", ""]
    for a, b in (("ml-pocbam", "pocbam"), ("pocbam", "uniform"), ("ml-pocbam", "uniform"), ("uniform", "select-top")):
        bud, d, h = paired_difference(res, "thurstone", a, b)
        if bud.size == 0:
            continue
        pick = [i for i in range(bud.size) if bud[i] in TABLE[panel]] or list(range(0, bud.size, max(1, bud.size // 6)))
        cells = ", ".join(f"{int(bud[i])}: {d[i]:+.3f} ± {h[i]:.3f}" for i in pick)
        runs = "; ".join(f"{RUN[sg]} {lo}–{hi}" if lo != hi else f"{RUN[sg]} {lo}"
                         for sg, lo, hi in sign_runs(bud, d, h, min_run=4))
        cross = crossings(bud, d)
        lines.append(f"- {a} − {b}: {cells}. By budget: {runs}. The mean difference changes sign "
                     f"{len(cross)} times" + (f" (first at {cross[0]:.0f}, last at {cross[-1]:.0f})" if cross else ""))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out_dir, f"fig2{panel}{suffix}.md"), "w") as f:
        f.write(text)
    print(text)
    print(f"fig 2{panel}: {len(METHODS)} methods x {reps} replications x {top} samples, K = {K}: "
          f"{wall:.1f} s wall on {workers} workers")
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--panels", default="abc")
    ap.add_argument("--reps", type=int, default=10000, help="replications for panels a and b")
    ap.add_argument("--reps-c", type=int, default=100, help="replications for panel c")
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="run the replications on this Dask scheduler (e.g. tcp://head:8786) instead of local workers")
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--variance-law", choices=("variance", "sd"), default="variance")
    ap.add_argument("--out-dir", default="docs/results")
    ap.add_argument("--runs-dir", default="runs")
    ap.add_argument("--replot", action="store_true", help="redraw the PNG and table from runs/fig2*.h5")
    ap.add_argument("--var-prior", type=float, default=0.0, metavar="NU0",
                    help="var_prior of POCBAm and ML-POCBAm (the pooled variance's weight in each pair variance, in "
                         "pseudo-samples; 0: the paper's methods). Files get the suffix -vpNU0.")
    args = ap.parse_args()
    if not args.var_prior >= 0:
        ap.error(f"--var-prior must be >= 0, got {args.var_prior}")
    os.makedirs(args.out_dir, exist_ok=True)
    backend = None
    if args.scheduler:
        from pokerduel.infra.parallel import get_backend

        backend = get_backend("dask", scheduler=args.scheduler)
    for panel in args.panels.replace(",", ""):
        if panel not in PANELS:
            ap.error(f"unknown panel {panel!r}; panels: a, b, c")
        reps = args.reps_c if panel == "c" else args.reps
        run_panel(panel, reps, args.workers, args.seed, args.variance_law, args.out_dir, args.runs_dir, args.replot,
                  args.var_prior, backend)
    if backend is not None:
        backend.close()
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
