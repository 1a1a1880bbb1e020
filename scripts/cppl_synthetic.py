"""CPPL §6.1 (Fig 1): cumulative regret of CPPL, Max-Theta, epsilon-greedy and the context-free MM
method on synthetic contextual Plackett-Luce problems, theta* ~ U[0,1]^d, contexts ~ U[0,1]^d fresh each
round, winner feedback, 100 repetitions, mean +- standard error. Writes ``docs/results/cppl_synthetic*.md``
and ``.png`` and the per-repetition cumulative regrets to ``runs/cppl_synthetic*.h5``.

    python scripts/cppl_synthetic.py                        # 9 panels, winner feedback, 100 reps, T = 2000
    python scripts/cppl_synthetic.py --feedback ranking     # the same with full-ranking feedback
    python scripts/cppl_synthetic.py --panels 20,5,3 --reps 20 --T 500   # one small panel

The paper's (n, d, k) and horizon appear only in its figure (not in the text); the default grid here is
n in {10, 20, 50} x (d, k) in {(2, 2), (5, 3), (10, 5)}.
"""

from __future__ import annotations

import os

# one BLAS thread: the 28x28 eigen-decompositions of the bound are ~100x slower when OpenBLAS spreads
# them over the cores of a loaded machine (measured); set before numpy is imported
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse
import math
import sys
import time

import numpy as np

from pokerduel.bandits.cppl import METHODS, SyntheticProblem, compare
from pokerduel.infra.storage import atomic_h5, stamp
from pokerduel.selectors.studies import atomic_savefig

DEFAULT_PANELS = "10,2,2;20,2,2;50,2,2;10,5,3;20,5,3;50,5,3;10,10,5;20,10,5;50,10,5"
COLORS = {"CPPL": "C0", "Max-Theta": "C1", "eps-greedy": "C2", "MM": "C3"}


def parse_panels(text: str) -> list[tuple[int, int, int]]:
    """``"n,d,k;n,d,k"`` -> [(n, d, k), ...]; ValueError on anything malformed or k >= n."""
    out = []
    for part in text.split(";"):
        try:
            n, d, k = (int(v) for v in part.split(","))
        except ValueError:
            raise ValueError(f"a panel is 'n,d,k' (three integers), got {part!r}") from None
        if not (n >= 2 and d >= 1 and 1 <= k < n):
            raise ValueError(f"panel {part!r}: need n >= 2, d >= 1, 1 <= k < n")
        out.append((n, d, k))
    return out


def summary(regret: dict[str, np.ndarray]) -> dict[str, tuple[float, float]]:
    """Final cumulative regret: mean and standard error over repetitions."""
    out = {}
    for name, r in regret.items():
        c = r.sum(axis=1)
        out[name] = (float(c.mean()), float(c.std(ddof=1) / math.sqrt(len(c))) if len(c) > 1 else float("nan"))
    return out


def paired(regret, a: str, b: str) -> tuple[float, float]:
    """Mean and standard error of the paired difference of final cumulative regrets, a - b."""
    diff = regret[a].sum(axis=1) - regret[b].sum(axis=1)
    return float(diff.mean()), float(diff.std(ddof=1) / math.sqrt(len(diff))) if len(diff) > 1 else float("nan")


def plot_panels(panels: list[tuple[str, dict[str, np.ndarray]]], path: str, title: str, ncols: int = 3,
                skip=("MM",)) -> None:
    """One axis per panel: mean cumulative regret +- 1 standard error against t (MM drawn dashed, or left
    out as in the paper when named in ``skip``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, min(ncols, len(panels)), figsize=(4.2 * min(ncols, len(panels)), 3.2 * nrows),
                             squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (label, regret) in zip(axes.flat, panels):
        for name, r in regret.items():
            if name in skip:
                continue
            c = np.cumsum(r, axis=1)
            mean = c.mean(axis=0)
            se = c.std(axis=0, ddof=1) / math.sqrt(len(c)) if len(c) > 1 else np.zeros_like(mean)
            t = np.arange(1, len(mean) + 1)
            ax.plot(t, mean, color=COLORS.get(name), label=name)
            ax.fill_between(t, mean - se, mean + se, color=COLORS.get(name), alpha=0.25, linewidth=0)
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("t", fontsize=8)
        ax.set_ylabel("cumulative regret", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    axes.flat[0].legend(fontsize=7, loc="upper left")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    atomic_savefig(fig, path)
    plt.close(fig)


def regret_table(rows: list[tuple[str, dict[str, np.ndarray]]], methods) -> list[str]:
    """Markdown rows: final cumulative regret mean +- SE per method, and the paired CPPL differences."""
    head = "| panel | " + " | ".join(methods) + " | CPPL − Max-Theta (paired) | CPPL − eps-greedy (paired) |"
    lines = [head, "|---" * (len(methods) + 3) + "|"]
    for label, regret in rows:
        s = summary(regret)
        cells = [f"{s[m][0]:.1f} ± {s[m][1]:.1f}" for m in methods]
        for other in ("Max-Theta", "eps-greedy"):
            if "CPPL" in regret and other in regret:
                d, e = paired(regret, "CPPL", other)
                cells.append(f"{d:+.1f} ± {e:.1f}")
            else:
                cells.append("–")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--panels", default=DEFAULT_PANELS, help="'n,d,k;n,d,k;...' (default: the 3x3 grid)")
    ap.add_argument("--reps", type=int, default=100, help="repetitions per panel (paper: 100)")
    ap.add_argument("--T", type=int, default=2000, help="rounds per repetition (paper: not stated)")
    ap.add_argument("--feedback", choices=("winner", "ranking"), default="winner")
    ap.add_argument("--methods", default=",".join(METHODS), help=f"comma-separated subset of {','.join(METHODS)}")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="docs/results")
    ap.add_argument("--runs", default="runs")
    args = ap.parse_args(argv)
    try:
        panels = parse_panels(args.panels)
        methods = tuple(args.methods.split(","))
        bad = [m for m in methods if m not in METHODS]
        if bad:
            raise ValueError(f"unknown methods {bad}; allowed: {list(METHODS)}")
        if args.reps < 2 or args.T < 1:
            raise ValueError("--reps must be >= 2 and --T >= 1")
    except ValueError as err:
        ap.error(str(err))  # exits 2
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.runs, exist_ok=True)
    suffix = "" if args.feedback == "winner" else "_ranking"
    results, times = [], []
    t_all = time.perf_counter()
    for p, (n, d, k) in enumerate(panels):
        t0 = time.perf_counter()
        m = 1 if args.feedback == "winner" else k
        regret = compare(lambda rng, n=n, d=d: SyntheticProblem(n, d, args.reps, rng), n, k, d, args.reps, args.T, m,
                         [args.seed, n, d, k], methods=methods)
        times.append(time.perf_counter() - t0)
        label = f"n={n}, d={d}, k={k}"
        results.append((label, regret))
        s = summary(regret)
        print(f"{label}: " + ", ".join(f"{name} {mu:.1f}±{se:.1f}" for name, (mu, se) in s.items())
              + f"  ({times[-1]:.1f} s)", flush=True)
    wall = time.perf_counter() - t_all
    h5 = os.path.join(args.runs, f"cppl_synthetic{suffix}.h5")
    with atomic_h5(h5) as f:
        stamp(f, "pokerduel-cppl-synthetic", 1, panels=panels, reps=args.reps, T=args.T, feedback=args.feedback,
              methods=list(methods), seed=args.seed, gamma1=2.0, alpha=0.6, omega=1.0, epsilon=0.1)
        for (label, regret), (n, d, k) in zip(results, panels):
            g = f.create_group(f"n{n}_d{d}_k{k}")
            for name, r in regret.items():
                g.create_dataset(name, data=np.cumsum(r, axis=1)[:, :: max(1, args.T // 500)], compression="gzip")
    cmd = "python scripts/cppl_synthetic.py" + ("" if args.panels == DEFAULT_PANELS else f" --panels '{args.panels}'") \
        + ("" if args.reps == 100 else f" --reps {args.reps}") + ("" if args.T == 2000 else f" --T {args.T}") \
        + ("" if args.feedback == "winner" else f" --feedback {args.feedback}") \
        + ("" if args.seed == 1 else f" --seed {args.seed}") \
        + ("" if methods == tuple(METHODS) else f" --methods {args.methods}")
    title = (f"CPPL §6.1 synthetic, {args.feedback} feedback, {args.reps} repetitions, T = {args.T}, "
             f"mean ± 1 SE (MM left out as in the paper: linear regret)")
    plot_panels(results, os.path.join(args.out, f"cppl_synthetic{suffix}.png"), title)
    lines = [f"# CPPL §6.1: synthetic contextual PL problems, {args.feedback} feedback", "",
             f"`{cmd}`: {args.reps} repetitions of T = {args.T} rounds per panel, seed {args.seed}; "
             f"{wall:.0f} s wall in all (one process, a shared 2-core machine under load).", "",
             "theta* ~ U[0,1]^d per repetition, contexts x_{t,i} ~ U[0,1]^d fresh every round, "
             "CPPL with gamma1 = 2, alpha = 0.6, omega = 1; epsilon = 0.1. Regret of eq 9 "
             "(1 − v*(best in S_t) / v*(best arm)). Final cumulative regret R_T, mean ± standard error over "
             "repetitions; the differences are paired (common random numbers: every method sees the same "
             "theta*, contexts and initial theta_hat).", "",
             *regret_table(results, methods), "",
             "Wall time per panel (s): " + ", ".join(f"{lab}: {t:.1f}" for (lab, _), t in zip(results, times)), ""]
    text = "\n".join(lines)
    with open(os.path.join(args.out, f"cppl_synthetic{suffix}.md"), "w") as fh:
        fh.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
