"""Where the time of a hand goes: timings of reduced kernels (docs/benchmarks.md).

    python scripts/profile_engine.py
"""

import time

import numba
import numpy as np

from pokerduel.engine.decks import deal_cards
from pokerduel.engine.evaluator import eval7
from pokerduel.matches import play_duplicate


@numba.njit
def _deal_only(key, n):
    cards = np.zeros(9, dtype=np.int64)
    s = 0
    for d in range(n):
        deal_cards(key, d, cards)
        s += cards[8]
    return s


@numba.njit
def _deal_and_evaluate(key, n):
    cards = np.zeros(9, dtype=np.int64)
    s = 0
    for d in range(n):
        deal_cards(key, d, cards)
        v0 = eval7(cards[0], cards[1], cards[4], cards[5], cards[6], cards[7], cards[8])
        v1 = eval7(cards[2], cards[3], cards[4], cards[5], cards[6], cards[7], cards[8])
        s += v0 > v1
    return s


def best_ns(fn, n, repeat=3):
    fn(10)
    best = min(_timed(fn, n) for _ in range(repeat))
    return best / n * 1e9


def _timed(fn, n):
    t0 = time.perf_counter()
    fn(n)
    return time.perf_counter() - t0


if __name__ == "__main__":
    key = np.uint64(3)
    n = 2_000_000
    print(f"deal nine cards           {best_ns(lambda m: _deal_only(key, m), n):6.1f} ns/deal")
    print(f"deal + evaluate both      {best_ns(lambda m: _deal_and_evaluate(key, m), n):6.1f} ns/deal")
    for a, b in [("calling-machine", "calling-machine"), ("random", "random")]:
        ns = best_ns(lambda m: play_duplicate(a, b, m, seed=1), 500_000) / 2
        rec = play_duplicate(a, b, 20_000, seed=1, records=True).records
        actions = np.mean([len(r.actions) for r in rec])
        print(f"{a} vs {b}: {ns:6.1f} ns/hand, {actions:.2f} actions/hand, {1e3 / ns:.2f} M hands/s")
