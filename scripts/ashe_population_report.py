"""How random ASHE populations play (core paper §7): dominant actions and the spread of pair variances.

    python scripts/ashe_population_report.py --populations 3 --size 10 --deals 1000 --seed 1
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pokerduel.play.populations import new_population
from pokerduel.play.tournament import round_robin


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--populations", type=int, default=3)
    ap.add_argument("--size", type=int, default=10)
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for p in range(args.populations):
        t0 = time.perf_counter()
        pop = new_population(args.size, seed=args.seed + p)
        rr = round_robin(pop.players(), args.deals, seed=args.seed + p, count_actions=True)
        share = rr.actions / rr.actions.sum(axis=1, keepdims=True)
        dominant = share.max(axis=1)
        iu = np.triu_indices(args.size, 1)
        hv = rr.hand_var[iu]
        v = rr.var[iu]
        nz = v[v > 0]
        order = rr.ranking()
        upper = rr.mean[np.ix_(order, order)][np.triu_indices(args.size, 1)]
        print(f"population {p} (seed {args.seed + p}), {args.deals} deals per pair, {time.perf_counter() - t0:.1f} s")
        print("  action shares (fold, call, raise, all-in) per player:")
        for i in range(args.size):
            print(f"    {i}: " + " ".join(f"{x:5.2f}" for x in share[i]) + f"   dominant {dominant[i]:.2f}")
        print(f"  players with one action >= 80% of their actions: {(dominant >= 0.8).sum()} of {args.size}")
        print(f"  pair variances (chips^2 per deal): {np.sum(v == 0)} pairs exactly 0; nonzero from {nz.min():.3g} "
              f"to {nz.max():.3g} (x{nz.max() / nz.min():.3g}), median {np.median(nz):.3g}" if len(nz) else
              "  all pair variances are 0")
        print(f"  single-hand variances: from {hv.min():.3g} to {hv.max():.3g} (x{hv.max() / hv.min():.3g}), "
              f"median {np.median(hv):.3g}")
        print(f"  negative means above the diagonal in rank order: {(upper < 0).sum()} of {len(upper)}")


if __name__ == "__main__":
    main()
