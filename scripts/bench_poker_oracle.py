"""Selector overhead per sample against the cost of one live duplicate deal, at K = 10 (issue: the former
must stay below the latter).

For each shipped population: the live oracle plays ``--deals`` deals of every pair (continuing matches) and
reports engine seconds per deal; each selector runs ``--reps`` times on the replay oracle to ``--budget``
samples through its Python API and reports its own seconds per sample (the oracle's time taken out),
and the compiled replication path's seconds per sample.

    python scripts/bench_poker_oracle.py --populations 0,1,2 --deals 40 --budget 1000 --reps 3
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pokerduel.play.ground_truth import load_ground_truth
from pokerduel.play.oracles import LiveOracle, ReplayOracle
from pokerduel.selectors import make_selector
from pokerduel.studies.poker import PokerStudyConfig, run_unit


def selector_seconds(truth, method: str, budget: int, reps: int) -> float:
    spent = 0.0
    for r in range(reps):
        oracle = ReplayOracle(truth, np.random.default_rng(r))
        s = make_selector(method, oracle, 4, budget, rng=np.random.default_rng(r))
        t0, e0 = time.perf_counter(), oracle.seconds
        s.run()
        spent += time.perf_counter() - t0 - (oracle.seconds - e0)
    return spent / (reps * budget)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--truth", default="data/ground_truth_10x10_seed1.h5")
    ap.add_argument("--populations", default="0,1,2")
    ap.add_argument("--deals", type=int, default=40, help="live deals per pair")
    ap.add_argument("--budget", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    gt = load_ground_truth(args.truth)
    pops = [int(x) for x in args.populations.split(",")]
    methods = ("uniform", "pocbam", "ml-pocbam", "hybrid", "select-top")
    for m in methods:  # compile or load every kernel first
        selector_seconds(gt[pops[0]], m, 200, 1)
    cfg = PokerStudyConfig(args.truth, budgets=(args.budget,), replications=1, populations=(pops[0],))
    run_unit(cfg, gt[pops[0]], pops[0], 0, 1)
    print("| population | live deal (µs) | " + " | ".join(f"{m} (µs/sample)" for m in methods)
          + " | compiled replication, all five (µs/sample) |")
    print("|---|---|" + "---|" * (len(methods) + 1))
    for p in pops:
        t = gt[p]
        pop = t.population()
        live = LiveOracle([pop.player(i) for i in range(len(t))], 1)
        for i in range(len(t)):
            for j in range(i + 1, len(t)):
                live.sample_many(i, j, args.deals)
        deal = live.seconds / live.deals_played.sum()
        sel = [selector_seconds(t, m, args.budget, args.reps) for m in methods]
        cfg = PokerStudyConfig(args.truth, budgets=(args.budget,), replications=args.reps, populations=(p,))
        t0 = time.perf_counter()
        run_unit(cfg, t, p, 0, args.reps)
        compiled = (time.perf_counter() - t0) / (args.reps * args.budget * len(methods))
        print(f"| {p} | {deal * 1e6:,.1f} | " + " | ".join(f"{x * 1e6:,.1f}" for x in sel)
              + f" | {compiled * 1e6:,.1f} |")


if __name__ == "__main__":
    main()
