"""Eq 16 of Groves & Branke (§5.1.1) by simulation: the probability that the best of 10 Thurstone
alternatives beats the second best in a SELECT match of n comparisons decided by the sum of scores.

The paper takes the mean gap between the two largest of 10 uniforms (1/11) and a standard deviation of 0.5
("the expected value of the standard deviation parameter"), and prints ``1 - Phi((n/11)/sqrt(0.25 n))``
while quoting 0.572 (n = 1) and 0.717 (n = 10), which are the values of ``Phi(...)``: the printed formula
is the probability of losing. The simulation plays the match with SELECT/TOP's own kernel (K = 2, nu = n
comparisons) on ``N(1/11, 0.25)`` samples; it also checks the two ingredients (the order-statistic gap
and E[sd] under both readings of the variance law).

    python scripts/eq16.py [--reps 200000] [--seed 16]
"""

from __future__ import annotations

import argparse
import math
import os

import numpy as np
from scipy import stats

from pokerduel.selectors import GaussianOracle
from pokerduel.selectors import _top as top
from pokerduel.selectors.problems import pair_index_matrix


def simulate(n: int, reps: int, seed: int) -> float:
    o = GaussianOracle(np.array([[0, 1 / 11], [-1 / 11, 0]]), np.full((2, 2), 0.25), np.random.default_rng(0),
                       streams="counter")
    left, right, parent = top.build_tree(2, 1)
    order = np.arange(2)
    pidx = pair_index_matrix(2)
    keys = np.random.default_rng([seed, n]).integers(0, 2**63, size=reps, dtype=np.int64).astype(np.uint64)
    out = np.empty(1, dtype=np.int64)
    wins = 0
    for key in keys:
        top.run_counter(2, 1, n, left, right, parent, order, pidx, o._mu, o._sd, key, False, False, key, out)
        wins += int(out[0] == 0)
    return wins / reps


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--out", default="docs/results/eq16.md")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    u = np.sort(rng.uniform(size=(args.reps, 10)), axis=1)
    gap = u[:, -1] - u[:, -2]
    sd_law = rng.uniform(size=args.reps)
    var_law = np.sqrt(rng.uniform(size=args.reps))
    lines = ["# Eq 16 by simulation", "",
             f"`python scripts/eq16.py --reps {args.reps} --seed {args.seed}`", "",
             f"- gap between the two largest of 10 uniforms: {gap.mean():.5f} ± {1.96 * gap.std() / math.sqrt(gap.size):.5f} "
             f"(paper: 1/11 = {1 / 11:.5f})",
             f"- E[sd] with sd ~ U[0,1]: {sd_law.mean():.4f} (paper: 0.5); with variance ~ U[0,1]: {var_law.mean():.4f} "
             "(2/3): the paper's 0.5 is the sd ~ U[0,1] reading", "",
             "| n | Phi((n/11)/sqrt(0.25 n)) | paper's printed 1 - Phi | simulated P(best wins) [95% CI] | paper quotes |",
             "|---|---|---|---|---|"]
    quoted = {1: "0.572", 10: "0.717"}
    for n in range(1, 11):
        p = stats.norm.cdf((n / 11) / math.sqrt(0.25 * n))
        sim = simulate(n, args.reps, args.seed)
        half = 1.96 * math.sqrt(sim * (1 - sim) / args.reps)
        z = (sim - p) / math.sqrt(p * (1 - p) / args.reps)
        lines.append(f"| {n} | {p:.4f} | {1 - p:.4f} | {sim:.4f} [{sim - half:.4f}, {sim + half:.4f}] (z = {z:+.2f}) | "
                     f"{quoted.get(n, '')} |")
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
