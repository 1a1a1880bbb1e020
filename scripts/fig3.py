"""Fig 3 of Groves & Branke (§5.1.1): top 1 of 100 with a separated best alternative (gamma_0 = 1.2, the
others ~ U[0,1]) for ML-POCBAm, uniform allocation and SELECT/TOP. Writes ``docs/results/fig3.png`` and
``fig3.md``, and ``runs/fig3*.h5``.

ML-POCBAm (a few hundred microseconds a decision at K = 100 after the warm-up, ``docs/benchmarks.md``) runs as a
study of its own, with ``--reps-ml`` replications (default: ``--reps``, every method the same count); both
studies use the same seed, so their replications share instances and noise.

    python scripts/fig3.py [--reps 2000] [--reps-ml N] [--budget 16000]
"""

from __future__ import annotations

import argparse
import os

import numpy as np

from pokerduel.selectors.studies import StudyConfig, atomic_savefig, rate_cells, run_or_load, wilson

K, k = 100, 1
WARM = 3 * K * (K - 1) // 2


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--reps-ml", type=int, default=None, help="ML-POCBAm's replications (default: --reps)")
    ap.add_argument("--budget", type=int, default=16000)
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--variance-law", choices=("variance", "sd"), default="variance")
    ap.add_argument("--out-dir", default="docs/results")
    ap.add_argument("--runs-dir", default="runs")
    ap.add_argument("--replot", action="store_true", help="redraw the PNG and table from runs/fig3*.h5")
    args = ap.parse_args()
    if args.reps_ml is None:
        args.reps_ml = args.reps
    os.makedirs(args.out_dir, exist_ok=True)
    os.makedirs(args.runs_dir, exist_ok=True)
    st_grid = sorted(set(range(99, WARM + 1, 396)) | {99, 198, 297, 495, 990})
    anytime = list(range(WARM, args.budget + 1, 150)) + [args.budget]
    results = {}
    suffix = "" if args.variance_law == "variance" else "-sd"
    for methods, reps, budgets in ((("uniform", "select-top"), args.reps, sorted(set(st_grid) | set(anytime))),
                                   (("ml-pocbam",), args.reps_ml, sorted(set(anytime)))):
        h5 = os.path.join(args.runs_dir, f"fig3{suffix}-{'-'.join(methods)}.h5")
        cfg = StudyConfig(K=K, k=k, budgets=tuple(budgets), methods=methods, problems=("separated",),
                          replications=reps, seed=args.seed, variance_law=args.variance_law)
        res = run_or_load(cfg, h5, workers=args.workers, replot=args.replot, label="+".join(methods))
        for m in methods:
            results[m] = res
    wall = sum(r.seconds for r in {id(r): r for r in results.values()}.values())
    args.reps, args.reps_ml = results["uniform"].config.replications, results["ml-pocbam"].config.replications
    args.workers = results["uniform"].workers

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    rows = []
    style = {"select-top": dict(lw=1.5), "uniform": dict(lw=2.5, ls="--"), "ml-pocbam": dict(lw=1, marker="o", ms=3)}
    for m in ("select-top", "uniform", "ml-pocbam"):
        b, rate, lo, hi = results[m].rate("separated", m)
        line, = ax.plot(b, rate, label=f"{m} ({results[m].config.replications} reps)", **style[m])
        ax.fill_between(b, lo, hi, color=line.get_color(), alpha=0.2, linewidth=0)
        rows.append((m, b, rate, lo, hi))
    rows = [rows[2], rows[1], rows[0]]              # ML-POCBAm, uniform, SELECT/TOP in the table
    ax.axvline(WARM, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("samples (budget)")
    ax.set_ylabel("success rate (top-1 correct)")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    law = "sigma^2 ~ U[0,1]" if args.variance_law == "variance" else "sigma ~ U[0,1]"
    ax.set_title(f"Fig 3: top 1 of 100, gamma_0 = 1.2 ({law}), 95% Wilson intervals", fontsize=9)
    fig.tight_layout()
    atomic_savefig(fig, os.path.join(args.out_dir, f"fig3{suffix}.png"))

    ml_b, ml_rate, _, _ = rows[0][1:]
    at_warm = float(ml_rate[0])
    st = results["select-top"]
    sb, srate, slo, shi = st.rate("separated", "select-top")
    reach = {lvl: next((int(b) for b, r in zip(sb, srate) if r >= lvl), None) for lvl in (0.95, 0.99, 0.995, 0.998)}
    full = {m: next((int(b) for b, r in zip(rb, rr) if r >= 1.0), None) for m, rb, rr, _, _ in rows}
    show = sorted({b for b in (99, 495, 990, 2475, 4950, 9900, 12870, WARM, WARM + 150, WARM + 300, WARM + 900)
                   if b <= args.budget} | {args.budget})
    lines = [f"# Fig 3: top 1 of 100, separated best (gamma_0 = 1.2), {law}", "",
             f"`python scripts/fig3.py --reps {args.reps} --reps-ml {args.reps_ml} --budget {args.budget} "
             f"--seed {args.seed}{' --variance-law sd' if suffix else ''}`: uniform and SELECT/TOP {args.reps} "
             f"replications, ML-POCBAm {args.reps_ml} (paper: 10,000); {wall:.0f} s wall on {args.workers} "
             f"worker{'s' if args.workers != 1 else ''} (a shared 2-core machine).", "",
             "| method | " + " | ".join(str(b) for b in show) + " |", "|---" * (len(show) + 1) + "|"]
    for m, b, rate, lo, hi in rows:
        lines.append(f"| {m} | " + " | ".join(rate_cells((b, rate, lo, hi), show)) + " |")
    lines += ["", f"- ML-POCBAm right after its warm-up ({WARM} samples): {at_warm:.3f}.",
              "- SELECT/TOP first reaches a success rate of " + ", ".join(
                  f"{lvl} at {b} samples ({100 * (1 - b / WARM):.0f}% fewer than the warm-up)" if b else f"{lvl}: never"
                  for lvl, b in reach.items()) + " (paper: ML-POCBAm's post-warm-up rate with about 12% fewer).",
              "- First budget with every replication correct: "
              + ", ".join(f"{m} {v if v is not None else 'not reached'}" for m, v in full.items()) + "."]
    lo_s, hi_s = wilson(np.array([int(round(at_warm * results['ml-pocbam'].config.replications))]),
                        results["ml-pocbam"].config.replications)
    lines.append(f"- (ML-POCBAm's rate at the warm-up has the 95% interval [{lo_s[0]:.3f}, {hi_s[0]:.3f}].)")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.out_dir, f"fig3{suffix}.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
