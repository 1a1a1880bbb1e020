"""A poker use of CPPL: preselect k evaluation opponents for a challenger from its population, so that the
set contains the challenger's toughest opponent (the one that beats it by the most), using the shipped
ground truth ``data/ground_truth_10x10_seed1.h5`` (10 populations of 10 ASHE players, 10,000 duplicate
deals per pair).

Each round draws a population and a challenger c at random; the arms are the 9 other players. Context of
arm j (the "current generation's statistics", known before the round): a cheap pilot round robin of the
first ``--pilot`` deals of every pair gives (1) j's pilot mean against c and (2) j's pilot Borda score (mean
over its population), each standardised over the 9 arms (d = 2). The learner picks k opponents; each
plays ``--deals`` duplicate deals against c (per-deal samples of the ground truth drawn at random from the
deals after the pilot), and the k opponents are ranked by their observed mean against c: real, noisy
ranking feedback, not PL-generated. Regret: the ground-truth gap between c's toughest opponent and the
toughest one chosen, in mbb/hand, and the fraction of rounds that missed it.

Compared: CPPL, Max-Theta, eps-greedy (all learning the weights of the two statistics online), the fixed
rules "pilot-pair" (top-k by the pilot mean against c), "pilot-borda" (top-k by pilot Borda) and
"random". Context-free MM does not apply: arm j is a different player in every round.

    python scripts/cppl_poker.py                       # k = 2, 3; 50 repetitions of T = 2000 rounds
    python scripts/cppl_poker.py --pilot 20 --deals 10 --reps 20 --T 500
"""

from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse
import math
import sys
import time

import numpy as np

from pokerduel.bandits.cppl import CPPL
from pokerduel.infra.storage import atomic_h5, stamp
from pokerduel.play.ground_truth import load_ground_truth
from pokerduel.play.matches import BIG_BLIND
from pokerduel.selectors.studies import atomic_savefig

RULES = ("pilot-pair", "pilot-borda", "random")
LEARNERS = {"CPPL": "ucb", "Max-Theta": "greedy", "eps-greedy": "epsilon-greedy"}


def _z(a):
    """Standardise over the last axis (the arms); constant rows become 0."""
    sd = a.std(axis=-1, keepdims=True)
    return (a - a.mean(axis=-1, keepdims=True)) / np.where(sd > 0, sd, 1.0)


class PokerOpponents:
    """Per population: true means ``M[p, i, j]`` (i's chips per deal against j), per-deal samples and the
    pilot statistics. ``samples[p][i, j]`` is i's per-deal chips against j (10,000 deals)."""

    def __init__(self, path, pilot: int):
        gt = load_ground_truth(path)
        self.P = len(gt)
        self.size = len(gt[0])
        if any(len(gt[p]) != self.size for p in range(self.P)):
            raise ValueError(f"{path}: populations of different sizes")
        self.deals = gt.config["deals"]
        if not 1 <= pilot < self.deals:
            raise ValueError(f"--pilot must be in 1..{self.deals - 1}, got {pilot}")
        K = self.size
        self.M = np.stack([gt[p].mean for p in range(self.P)])
        self.samples = np.zeros((self.P, K, K, self.deals), dtype=np.float32)
        for p in range(self.P):
            for i in range(K):
                for j in range(K):
                    if i != j:
                        self.samples[p, i, j] = gt[p].samples(i, j)
        self.pilot = pilot
        pm = self.samples[..., :pilot].mean(axis=-1)  # (P, K, K)
        self.pilot_mean = pm
        self.pilot_borda = pm.sum(axis=2) / (K - 1)  # (P, K)

    def round(self, rng, R):
        """Draw (population, challenger) per replication; return them, the arms (R, K-1) and contexts."""
        p = rng.integers(self.P, size=R)
        c = rng.integers(self.size, size=R)
        others = np.array([[j for j in range(self.size) if j != cc] for cc in c])
        pair = self.pilot_mean[p[:, None], others, c[:, None]]  # arm j's pilot mean against c
        borda = self.pilot_borda[p[:, None], others]
        X = np.stack([_z(pair), _z(borda)], axis=-1)
        truth = self.M[p[:, None], others, c[:, None]]  # arm j's true mean against c
        return p, c, others, X, truth, pair, borda

    def play(self, rng, p, c, others, S, deals):
        """Observed mean chips of each chosen arm against c over ``deals`` random post-pilot deals."""
        idx = rng.integers(self.pilot, self.deals, size=(len(p), S.shape[1], deals))
        j = np.take_along_axis(others, S, axis=1)
        return self.samples[p[:, None, None], j[..., None], c[:, None, None], idx].mean(axis=-1)


def run(env: PokerOpponents, k: int, R: int, T: int, deals: int, seed, methods) -> dict[str, dict]:
    out = {}
    n = env.size - 1
    for name in methods:
        world = np.random.default_rng([*seed, 0])  # same rounds and the same deals for every method
        play_rng = np.random.default_rng([*seed, 2])
        own = np.random.default_rng([*seed, 1])
        learner = CPPL(n, k, 2, strategy=LEARNERS[name], replicas=R, rng=own) if name in LEARNERS else None
        gap = np.empty((R, T))
        for t in range(T):
            p, c, others, X, truth, pair, borda = env.round(world, R)
            if learner is not None:
                S = learner.select(X)
            elif name == "pilot-pair":
                S = np.argsort(-pair, axis=1, kind="stable")[:, :k]
            elif name == "pilot-borda":
                S = np.argsort(-borda, axis=1, kind="stable")[:, :k]
            else:
                S = np.argsort(own.random((R, n)), axis=1)[:, :k]
            gap[:, t] = truth.max(axis=1) - np.take_along_axis(truth, S, axis=1).max(axis=1)
            obs = env.play(play_rng, p, c, others, S, deals)
            order = np.argsort(-(obs + 1e-9 * play_rng.random(obs.shape)), axis=1)  # ties at random
            if learner is not None:
                learner.update(X, S, np.take_along_axis(S, order, axis=1))
        out[name] = {"gap": gap / 2 / BIG_BLIND * 1000,
                     "theta": None if learner is None else learner.theta_bar.copy()}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--truth", default="data/ground_truth_10x10_seed1.h5")
    ap.add_argument("--ks", default="2,3")
    ap.add_argument("--pilot", type=int, default=50, help="pilot deals per pair for the context statistics")
    ap.add_argument("--deals", type=int, default=20, help="deals each chosen opponent plays per round")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--T", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="docs/results")
    ap.add_argument("--runs", default="runs")
    args = ap.parse_args(argv)
    methods = (*LEARNERS, *RULES)
    try:
        ks = [int(v) for v in args.ks.split(",")]
        if args.reps < 2 or args.T < 1 or args.deals < 1:
            raise ValueError("--reps must be >= 2, --T and --deals >= 1")
        env = PokerOpponents(args.truth, args.pilot)
        if any(not 2 <= k < env.size - 1 for k in ks):
            raise ValueError(f"--ks values must be in 2..{env.size - 2} (k = 1 gives no ranking to learn from)")
    except (ValueError, OSError) as err:
        ap.error(str(err))
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.runs, exist_ok=True)
    t_all = time.perf_counter()
    results = {}
    for k in ks:
        results[k] = run(env, k, args.reps, args.T, args.deals, [args.seed, k], methods)
        print(f"k={k}: " + ", ".join(f"{m} {results[k][m]['gap'].mean():.1f}" for m in methods), flush=True)
    wall = time.perf_counter() - t_all
    with atomic_h5(os.path.join(args.runs, "cppl_poker.h5")) as f:
        stamp(f, "pokerduel-cppl-poker", 1, truth=os.path.abspath(args.truth), ks=ks, pilot=args.pilot,
              deals=args.deals, reps=args.reps, T=args.T, seed=args.seed, methods=list(methods))
        for k in ks:
            for m in methods:
                f.create_dataset(f"k{k}/{m}/gap", data=results[k][m]["gap"].mean(axis=0), compression="gzip")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(ks), figsize=(5.5 * len(ks), 3.8), squeeze=False)
    for ax, k in zip(axes[0], ks):
        for m in methods:
            c = np.cumsum(results[k][m]["gap"], axis=1)
            mean, se = c.mean(axis=0), c.std(axis=0, ddof=1) / math.sqrt(args.reps)
            tt = np.arange(1, args.T + 1)
            line, = ax.plot(tt, mean, "-" if m in LEARNERS else "--", label=m)
            ax.fill_between(tt, mean - se, mean + se, color=line.get_color(), alpha=0.2, linewidth=0)
        ax.set_title(f"k = {k} of 9 opponents", fontsize=9)
        ax.set_xlabel("round")
        ax.set_ylabel("cumulative gap to the toughest opponent (mbb/hand)", fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"CPPL poker opponent preselection: pilot {args.pilot} deals, {args.deals} deals per chosen "
                 f"opponent, {args.reps} repetitions, mean ± 1 SE", fontsize=9)
    fig.tight_layout()
    atomic_savefig(fig, os.path.join(args.out, "cppl_poker.png"))
    plt.close(fig)
    cmd = "python scripts/cppl_poker.py" + ("" if args.ks == "2,3" else f" --ks {args.ks}") \
        + ("" if args.pilot == 50 else f" --pilot {args.pilot}") + ("" if args.deals == 20 else f" --deals {args.deals}") \
        + ("" if args.reps == 50 else f" --reps {args.reps}") + ("" if args.T == 2000 else f" --T {args.T}") \
        + ("" if args.seed == 1 else f" --seed {args.seed}")
    lines = ["# CPPL poker use: preselecting a challenger's evaluation opponents", "",
             f"`{cmd}`: {args.reps} repetitions of T = {args.T} rounds, {wall:.0f} s wall (shared 2-core machine "
             "under load).", "",
             f"Ground truth `{args.truth}`: {env.P} populations of {env.size}. Context per arm: its pilot mean "
             f"against the challenger and its pilot Borda score ({args.pilot} deals per pair), standardised over "
             f"the 9 arms; feedback: the chosen opponents ranked by {args.deals} post-pilot deals each against the "
             "challenger. Per-round gap = true mean of the challenger's toughest opponent − that of the toughest "
             "chosen one (mbb/hand; 0 when it was chosen); miss = fraction of rounds with gap > 0. Mean over all "
             "rounds and repetitions; last-quarter columns use rounds after 3T/4 only (what is left once learned). "
             "± is the standard error over repetitions.", ""]
    head = "| k | method | mean gap (mbb/hand) | miss rate | last-quarter gap | last-quarter miss | vs pilot-pair, last quarter (paired) |"
    lines += [head, "|---|---|---|---|---|---|---|"]
    q = args.T * 3 // 4
    for k in ks:
        base = results[k]["pilot-pair"]["gap"][:, q:].mean(axis=1)
        for m in methods:
            g = results[k][m]["gap"]
            per = g.mean(axis=1)
            miss = (g > 1e-9).mean(axis=1)
            late, late_miss = g[:, q:].mean(axis=1), (g[:, q:] > 1e-9).mean(axis=1)
            diff = late - base
            sq = math.sqrt(args.reps)
            lines.append(f"| {k} | {m} | {per.mean():.1f} ± {per.std(ddof=1) / sq:.1f} | {miss.mean():.3f} | "
                         f"{late.mean():.1f} ± {late.std(ddof=1) / sq:.1f} | {late_miss.mean():.3f} | "
                         + ("–" if m == "pilot-pair" else f"{diff.mean():+.1f} ± {diff.std(ddof=1) / sq:.1f}") + " |")
    thetas = {k: results[k]["CPPL"]["theta"].mean(axis=0) for k in ks}
    lines += ["", "CPPL's learned weights (mean theta_bar over repetitions, [pair, borda]): "
              + "; ".join(f"k = {k}: [{t[0]:.2f}, {t[1]:.2f}]" for k, t in thetas.items()), ""]
    text = "\n".join(lines)
    with open(os.path.join(args.out, "cppl_poker.md"), "w") as fh:
        fh.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
