"""Microseconds per decision of the top-k selectors on Thurstone problems (K = 10, k = 4; K = 100, k = 40).

A *decision* is the choice of the next pair after the warm-up (for ML-POCBAm: the warm-started fit of
eq 4 on the data including the previous sample, the eq 9 posteriors and the AEPCS scan); a *step* adds
the oracle sample and the bookkeeping. Numba compilation is excluded (one warm-up run first).

    python scripts/bench_selectors.py [--decisions 400] [--seed 1]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pokerduel.selectors import SELECTORS, make_selector, thurstone

CASES = ((10, 4), (100, 40))


def bench(name: str, K: int, k: int, decisions: int, seed: int) -> tuple[float, float]:
    oracle = thurstone(K, np.random.default_rng(seed), np.random.default_rng(seed + 1))
    warmup = 3 * K * (K - 1) // 2
    sel = make_selector(name, oracle, k, warmup + 2 * decisions, rng=np.random.default_rng(seed + 2))
    sel._warmup_batch()
    for _ in range(decisions // 4):          # let the posterior settle a little
        sel.step()
    decide = sel._decide
    spent = [0.0]

    def timed_decide():
        t = time.perf_counter()
        p = decide()
        spent[0] += time.perf_counter() - t
        return p

    sel._decide = timed_decide                # instance attribute: step() calls it once per sample
    t0 = time.perf_counter()
    for _ in range(decisions):
        sel.step()
    t_all = time.perf_counter() - t0
    return spent[0] / decisions * 1e6, t_all / decisions * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--decisions", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for name in SELECTORS:                    # compile (or load the cache) outside the timings
        bench(name, 10, 4, 5, 0)
    print(f"{'selector':<10} {'K':>4} {'k':>3} {'us/decision':>12} {'us/step':>10}")
    for K, k in CASES:
        n = args.decisions if K == 10 else max(args.decisions // 4, 20)
        for name in SELECTORS:
            d, s = bench(name, K, k, n, args.seed)
            print(f"{name:<10} {K:>4} {k:>3} {d:>12.1f} {s:>10.1f}")


if __name__ == "__main__":
    main()
