"""The variance prior (``var_prior``) against the paper's methods, paired on common random numbers: Fig 2a
(synthetic) and Fig 8 replayed (poker). Reads the result files of the two figure scripts run with and without
``--var-prior`` on the same seed, prints markdown tables (success with 95% intervals, paired differences with
95% intervals) and draws ``docs/results/robust-variance.png``.

    python scripts/fig2.py --panels a --reps 10000 --seed 2 --out-dir /tmp/base      # runs/fig2a.h5
    python scripts/fig2.py --panels a --reps 10000 --seed 2 --var-prior 2            # runs/fig2a-vp2.h5
    python scripts/fig8.py --reps 200 --live-reps 0 --seed 2 --out-dir /tmp/base     # runs/fig8-replay.h5
    python scripts/fig8.py --reps 200 --live-reps 0 --seed 2 --var-prior 2           # runs/fig8-replay-vp2.h5
    pokerduel study poker --ground-truth data/ground_truth_evolved.h5 --reps 300 --seed 2 \
        --methods uniform,pocbam,ml-pocbam,hybrid --out runs/evolved.h5                 # and --var-prior 2
    python scripts/robust_variance.py --var-prior 2 [--sensitivity 1,5] [--evolved runs/evolved.h5 runs/evolved-vp2.h5]

Same seed, same replication: the same instance and samples (synthetic) or the same recorded deals in the same
order (replay) for both runs, so each method with the prior is compared with itself without it, and with
uniform allocation, replication by replication.
"""

from __future__ import annotations

import argparse
import math
import os

import numpy as np

from pokerduel.selectors.studies import StudyResult, atomic_savefig, sign_runs, wilson
from pokerduel.studies.poker import PokerStudyResult

Z = 1.959963984540054
RUN = {"+": "> 0", "-": "< 0", "0": "n.s."}


def _ci(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and 95% half-width over the first axis (replications)."""
    n = d.shape[0]
    return d.mean(axis=0), Z * d.std(axis=0, ddof=1) / math.sqrt(n)


def _runs(budgets, d, h, min_run: int = 3) -> str:
    """Where a paired difference is significant; runs shorter than ``min_run`` budgets join the run before."""
    return "; ".join(f"{RUN[s]} at {lo}" + (f"–{hi}" if hi != lo else "")
                     for s, lo, hi in sign_runs(budgets, d, h, min_run=min_run))


# --- Fig 2a -------------------------------------------------------------------------------------------------

def fig2a(base: StudyResult, vp: StudyResult, shown, nu0) -> list[str]:
    prob = "thurstone"
    R = base.config.replications
    assert vp.config.replications == R and vp.config.seed == base.config.seed
    lines = [f"Fig 2a (top 4 of 10, Thurstone, sigma^2 ~ U[0,1]), {R} replications, seed {base.config.seed}: "
             "success [95% Wilson interval]", "",
             "| method | " + " | ".join(str(b) for b in shown) + " |", "|---" * (len(shown) + 1) + "|"]
    rows = [("uniform", base, "uniform"), ("POCBAm", base, "pocbam"), (f"POCBAm, var_prior {nu0:g}", vp, "pocbam"),
            ("ML-POCBAm", base, "ml-pocbam"), (f"ML-POCBAm, var_prior {nu0:g}", vp, "ml-pocbam")]
    for label, res, m in rows:
        b, rate, lo, hi = res.rate(prob, m)
        cells = [f"{rate[i]:.3f} [{lo[i]:.3f}, {hi[i]:.3f}]" for i in (int(np.flatnonzero(b == x)[0]) for x in shown)]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += ["", "Paired differences (same instances and samples), mean ± 95% half-width, and where they are "
              "significant over the whole grid:", ""]
    for m, name in (("pocbam", "POCBAm"), ("ml-pocbam", "ML-POCBAm")):
        b = base.budgets[(prob, m)]
        uni_b = base.budgets[(prob, "uniform")]
        iu = np.searchsorted(uni_b, b)
        for label, d in ((f"{name} with − without the prior",
                          vp.success[(prob, m)].astype(float) - base.success[(prob, m)]),
                         (f"{name} with the prior − uniform",
                          vp.success[(prob, m)].astype(float) - base.success[(prob, "uniform")][:, iu]),
                         (f"{name} without the prior − uniform",
                          base.success[(prob, m)].astype(float) - base.success[(prob, "uniform")][:, iu])):
            mean, half = _ci(d)
            cells = ", ".join(f"{x}: {mean[i]:+.3f} ± {half[i]:.3f}"
                              for x in shown for i in [int(np.flatnonzero(b == x)[0])])
            lines.append(f"- {label}: {cells}. Over budgets {b[0]}–{b[-1]}: {_runs(b, mean, half)}; mean over the "
                         f"grid {mean.mean():+.4f}")
    return lines


# --- Fig 8 replay -------------------------------------------------------------------------------------------

def _stack(res: PokerStudyResult, m: str) -> np.ndarray:
    """populations x replications x budgets success."""
    return np.stack([res.arrays[(p, m, "success")].astype(float) for p in res.populations()])


def fig8(base: PokerStudyResult, vp: PokerStudyResult, nu0, title: str = "Fig 8 replayed") -> list[str]:
    pops = base.populations()
    R = base.config.replications
    assert vp.config.replications == R and vp.config.seed == base.config.seed and vp.populations() == pops
    b = base.budgets[(pops[0], "uniform")]
    lines = [f"{title}, {R} replications per population, seed {base.config.seed}: success averaged over the "
             f"{len(pops)} populations, ± 95% half-width (replications are independent across populations, so the "
             "half-width comes from the per-replication average over populations)", "",
             "| method | " + " | ".join(str(x) for x in b) + " |", "|---" * (len(b) + 1) + "|"]
    rows = [("uniform", base, "uniform")]
    for m, name in (("pocbam", "POCBAm"), ("ml-pocbam", "ML-POCBAm"), ("hybrid", "hybrid")):
        rows += [(name, base, m), (f"{name}, var_prior {nu0:g}", vp, m)]
    for label, res, m in rows:
        mean, half = _ci(_stack(res, m).mean(axis=0))
        lines.append(f"| {label} | " + " | ".join(f"{x:.3f} ± {h:.3f}" for x, h in zip(mean, half)) + " |")
    lines += ["", "Paired differences averaged over the populations (mean ± 95% half-width):", "",
              "| difference | " + " | ".join(str(x) for x in b) + " | significant |", "|---" * (len(b) + 2) + "|"]
    uni = _stack(base, "uniform")
    for m, name in (("pocbam", "POCBAm"), ("ml-pocbam", "ML-POCBAm"), ("hybrid", "hybrid")):
        for label, d in ((f"{name}: with − without the prior", _stack(vp, m) - _stack(base, m)),
                         (f"{name} with the prior − uniform", _stack(vp, m) - uni),
                         (f"{name} without the prior − uniform", _stack(base, m) - uni)):
            mean, half = _ci(d.mean(axis=0))
            lines.append(f"| {label} | " + " | ".join(f"{x:+.3f} ± {h:.3f}" for x, h in zip(mean, half))
                         + f" | {_runs(b, mean, half, min_run=1)} |")
    lines += ["", "Per population: mean paired difference over all budgets (95% half-width from the replications' "
              "means over the budgets); a cell is bold where the interval excludes 0:", "",
              "| population | " + " | ".join(str(p) for p in pops) + " |", "|---" * (len(pops) + 1) + "|"]
    for m, name in (("pocbam", "POCBAm"), ("ml-pocbam", "ML-POCBAm"), ("hybrid", "hybrid")):
        for label, a, c in ((f"{name} prior − uniform", _stack(vp, m), uni),
                            (f"{name} prior − no prior", _stack(vp, m), _stack(base, m))):
            cells = []
            for q in range(len(pops)):
                mean, half = _ci((a[q] - c[q]).mean(axis=1)[:, None])
                text = f"{mean[0]:+.3f} ± {half[0]:.3f}"
                cells.append(f"**{text}**" if abs(mean[0]) > half[0] else text)
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    ml = [float(np.nanmean(vp.arrays[(p, "hybrid", "ml_fraction")])) for p in pops]
    ml0 = [float(np.nanmean(base.arrays[(p, "hybrid", "ml_fraction")])) for p in pops]
    ii = np.nanmean([np.nanmean(vp.arrays[(p, "hybrid", "ii")]) for p in pops])
    ii0 = np.nanmean([np.nanmean(base.arrays[(p, "hybrid", "ii")]) for p in pops])
    lines += ["", f"Hybrid: mean II of its answers {ii0:.3f} without the prior, {ii:.3f} with it; share of "
              "decisions in ML-POCBAm mode per population without / with: "
              + ", ".join(f"{a:.2f}/{c:.2f}" for a, c in zip(ml0, ml))]
    return lines


def sensitivity(base: StudyResult, runs: dict) -> list[str]:
    """Fig 2a's paired differences (with − without the prior) summarised per prior weight: the mean over the
    budget grid and the most negative budget with its interval."""
    prob = "thurstone"
    law = base.config.variance_law
    lines = [f"Fig 2a ({'sigma^2' if law == 'variance' else 'sigma'} ~ U[0,1]), {base.config.replications} "
             f"replications, seed {base.config.seed}: with − without the prior, paired", "",
             "| method | var_prior | mean over budgets | at the warm-up | at 1,000 | lowest (budget) | significant |",
             "|---|---|---|---|---|---|---|"]
    for m, name in (("pocbam", "POCBAm"), ("ml-pocbam", "ML-POCBAm")):
        b = base.budgets[(prob, m)]
        for nu0, res in runs.items():
            mean, half = _ci(res.success[(prob, m)].astype(float) - base.success[(prob, m)])
            lo = int(np.argmin(mean))
            lines.append(f"| {name} | {nu0:g} | {mean.mean():+.4f} | {mean[0]:+.3f} ± {half[0]:.3f} | "
                         f"{mean[-1]:+.3f} ± {half[-1]:.3f} | {mean[lo]:+.3f} ± {half[lo]:.3f} ({b[lo]}) | "
                         f"{_runs(b, mean, half)} |")
    return lines


def _poker_panel(ax, base, vp, nu0, title) -> None:
    pops = base.populations()
    n = len(pops) * base.config.replications
    for label, res, m, style in (("uniform", base, "uniform", "k-"), ("POCBAm", base, "pocbam", "C0--"),
                                 (f"POCBAm, var_prior {nu0:g}", vp, "pocbam", "C0-"),
                                 ("ML-POCBAm", base, "ml-pocbam", "C1--"),
                                 (f"ML-POCBAm, var_prior {nu0:g}", vp, "ml-pocbam", "C1-"),
                                 ("hybrid", base, "hybrid", "C2--"),
                                 (f"hybrid, var_prior {nu0:g}", vp, "hybrid", "C2-")):
        b = res.budgets[(pops[0], m)]
        hits = _stack(res, m).sum(axis=(0, 1))
        lo, hi = wilson(hits, n)
        ax.plot(b, hits / n, style, lw=1.2, marker=".", label=label)
        ax.fill_between(b, lo, hi, color=style[:2] if style[0] == "C" else "k", alpha=0.12, linewidth=0)
    ax.set_xscale("log")
    ax.set_title(f"{title}: mean of {len(pops)} populations x {base.config.replications} replications", fontsize=9)
    ax.set_xlabel("samples (duplicate deals)")
    ax.set_ylabel("success rate (pooled 95% Wilson)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")


def plot(f2b, f2v, f8b, f8v, nu0, path, evolved=None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3 if evolved else 2, figsize=(18 if evolved else 12, 4.4))
    ax = axes[0]
    for label, res, m, style in (("uniform", f2b, "uniform", "k-"), ("POCBAm", f2b, "pocbam", "C0--"),
                                 (f"POCBAm, var_prior {nu0:g}", f2v, "pocbam", "C0-"),
                                 ("ML-POCBAm", f2b, "ml-pocbam", "C1--"),
                                 (f"ML-POCBAm, var_prior {nu0:g}", f2v, "ml-pocbam", "C1-")):
        b, rate, lo, hi = res.rate("thurstone", m)
        ax.plot(b, rate, style, lw=1.2, label=label)
        ax.fill_between(b, lo, hi, color=style[:2] if style[0] == "C" else "k", alpha=0.12, linewidth=0)
    ax.set_title(f"Fig 2a: top 4 of 10, Thurstone, {f2b.config.replications} replications", fontsize=9)
    ax.set_xlabel("samples")
    ax.set_ylabel("success rate (95% Wilson)")
    ax.set_ylim(0.3, 0.85)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    _poker_panel(axes[1], f8b, f8v, nu0, "Fig 8 replayed, random populations")
    if evolved:
        _poker_panel(axes[2], *evolved, nu0, "replayed, evolved populations")
    fig.tight_layout()
    atomic_savefig(fig, path)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--var-prior", type=float, default=2.0)
    ap.add_argument("--runs-dir", default="runs")
    ap.add_argument("--plot", default="docs/results/robust-variance.png")
    ap.add_argument("--sensitivity", default="", metavar="NU0,...",
                    help="also summarise Fig 2a with these prior weights (runs/fig2a[-sd]-vpNU0.h5 must exist)")
    ap.add_argument("--evolved", nargs=2, metavar=("BASE.h5", "PRIOR.h5"), default=None,
                    help="poker studies (pokerduel study poker) of the evolved populations without and with the prior")
    args = ap.parse_args()
    tag = f"-vp{args.var_prior:g}"
    f2b = StudyResult.load(os.path.join(args.runs_dir, "fig2a.h5"))
    f2v = StudyResult.load(os.path.join(args.runs_dir, f"fig2a{tag}.h5"))
    f8b = PokerStudyResult.load(os.path.join(args.runs_dir, "fig8-replay.h5"))
    f8v = PokerStudyResult.load(os.path.join(args.runs_dir, f"fig8-replay{tag}.h5"))
    lines = fig2a(f2b, f2v, (135, 200, 300, 500, 750, 1000), args.var_prior) + [""]
    lines += fig8(f8b, f8v, args.var_prior)
    evolved = None
    if args.evolved:
        evolved = tuple(PokerStudyResult.load(p) for p in args.evolved)
        lines += [""] + fig8(*evolved, args.var_prior, title="Evolved populations replayed")
    for law in ("", "-sd"):
        nus = [float(x) for x in args.sensitivity.split(",") if x.strip()]
        paths = {nu: os.path.join(args.runs_dir, f"fig2a{law}-vp{nu:g}.h5") for nu in nus}
        have = {nu: StudyResult.load(p) for nu, p in paths.items() if os.path.exists(p)}
        base = os.path.join(args.runs_dir, f"fig2a{law}.h5")
        if have and os.path.exists(base):
            lines += [""] + sensitivity(StudyResult.load(base), have)
    print("\n".join(lines))
    plot(f2b, f2v, f8b, f8v, args.var_prior, args.plot, evolved)
    print(f"\nwrote {args.plot}")


if __name__ == "__main__":
    main()
