"""Fig 5 of Groves & Branke (§6): ML-POCBAm and POCBAm on top 4 of 10 with noise-perturbed Thurstone means
(eps_ij ~ N(0, d^2), d in {0.1, 0.2, 0.3, 0.4}): (a) ML-POCBAm, (b) POCBAm, (c) their difference.
Writes ``docs/results/fig5.png`` and ``fig5.md``, and ``runs/fig5.h5``. All four d share the replication's
gamma, variances and standard-normal perturbations (scaled by d), and both methods the sample noise.

    python scripts/fig5.py [--reps 10000] [--variance-law variance]
"""

from __future__ import annotations

import argparse
import os

from pokerduel.selectors.studies import (
    StudyConfig,
    atomic_savefig,
    crossings,
    markdown_table,
    paired_difference,
    run_or_load,
    sign_runs,
)

DS = (0.1, 0.2, 0.3, 0.4)
SHOW = (135, 200, 250, 300, 500, 750, 1000)
WHO = {"+": "ML-POCBAm better", "-": "POCBAm better", "0": "no significant difference"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=10000)
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--variance-law", choices=("variance", "sd"), default="variance")
    ap.add_argument("--out-dir", default="docs/results")
    ap.add_argument("--runs-dir", default="runs")
    ap.add_argument("--replot", action="store_true", help="redraw the PNG and table from runs/fig5*.h5")
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    os.makedirs(args.runs_dir, exist_ok=True)
    problems = tuple(f"perturbed:{d}" for d in DS)
    cfg = StudyConfig(K=10, k=4, budgets=tuple(range(135, 1001, 5)), methods=("ml-pocbam", "pocbam"),
                      problems=problems, replications=args.reps, seed=args.seed, variance_law=args.variance_law)
    suffix = "" if args.variance_law == "variance" else "-sd"
    h5 = os.path.join(args.runs_dir, f"fig5{suffix}.h5")
    res = run_or_load(cfg, h5, workers=args.workers, replot=args.replot, label="fig 5")
    if args.replot:
        args.reps, args.seed, args.workers = res.config.replications, res.config.seed, res.workers
    wall = res.seconds

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for c, (d, spec) in enumerate(zip(DS, problems)):
        for ax, m in zip(axes[:2], ("ml-pocbam", "pocbam")):
            b, rate, lo, hi = res.rate(spec, m)
            ax.plot(b, rate, color=colors[c], label=f"d = {d}")
            ax.fill_between(b, lo, hi, color=colors[c], alpha=0.2, linewidth=0)
        b, diff, half = paired_difference(res, spec, "ml-pocbam", "pocbam")
        axes[2].plot(b, diff, color=colors[c], label=f"d = {d}")
        axes[2].fill_between(b, diff - half, diff + half, color=colors[c], alpha=0.2, linewidth=0)
    law = "sigma^2 ~ U[0,1]" if args.variance_law == "variance" else "sigma ~ U[0,1]"
    for ax, title in zip(axes, ("(a) ML-POCBAm", "(b) POCBAm", "(c) ML-POCBAm − POCBAm")):
        ax.set_title(f"{title}, top 4 of 10, {law}", fontsize=9)
        ax.set_xlabel("samples (budget)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    axes[0].set_ylabel("success rate")
    axes[0].set_ylim(0, 1)
    axes[1].set_ylim(0, 1)
    axes[2].axhline(0, color="black", lw=0.8)
    axes[2].set_ylabel("difference in success rate (paired, 95% CI)")
    fig.suptitle(f"Fig 5: noise-perturbed Thurstone, {args.reps} replications, seed {args.seed}", fontsize=9)
    fig.tight_layout()
    atomic_savefig(fig, os.path.join(args.out_dir, f"fig5{suffix}.png"))

    lines = [f"# Fig 5: ML-POCBAm and POCBAm, top 4 of 10, noise-perturbed Thurstone, {law}", "",
             f"`python scripts/fig5.py --reps {args.reps} --seed {args.seed}{' --variance-law sd' if suffix else ''}`: "
             f"{args.reps} replications (paper: 10,000), {wall:.0f} s wall on {args.workers} workers "
             "(a shared 2-core machine).", ""]
    for d, spec in zip(DS, problems):
        b, diff, half = paired_difference(res, spec, "ml-pocbam", "pocbam")
        runs = "; ".join(f"{WHO[s]} at {lo}–{hi}" if lo != hi else f"{WHO[s]} at {lo}"
                         for s, lo, hi in sign_runs(b, diff, half, min_run=4))
        cross = crossings(b, diff)
        lines += [f"## d = {d}", "", markdown_table(res, SHOW, problem=spec), "",
                  "ML-POCBAm − POCBAm: " + ", ".join(f"{int(x)}: {y:+.3f} ± {h:.3f}" for x, y, h in zip(b, diff, half)
                                                   if x in SHOW) + ".", "",
                  f"By budget: {runs}. The mean difference changes sign {len(cross)} times"
                  + (f" (first at {cross[0]:.0f})." if cross else "."), ""]
    text = "\n".join(lines)
    with open(os.path.join(args.out_dir, f"fig5{suffix}.md"), "w") as f:
        f.write(text)
    print(text)
    print(f"fig 5: {wall:.1f} s wall on {args.workers} workers")


if __name__ == "__main__":
    main()
