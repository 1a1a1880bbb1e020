"""Where the time of a hand goes: timings of reduced kernels (docs/benchmarks.md).

    taskset -c 1 python scripts/profile_engine.py

Each line times one piece of the duplicate-match loop on its own (best of several runs): dealing, the
two seven-card evaluations, the betting of a hand without dealing (cards fixed), and whole matches.
The machine is shared, so compare lines of one run rather than runs.
"""

import time

import numba
import numpy as np

from pokerduel.engine.decks import DEAL_SLOTS, SALTS, deal_cards, stream_key
from pokerduel.engine.evaluator import eval7_pair
from pokerduel.engine.rules import MAX_ACTIONS_PER_HAND, S_ACTIONS, STATE_SIZE
from pokerduel.infra.jit import kernel
from pokerduel.play.matches import _play_hand, _play_random_hand, play_duplicate
from pokerduel.players.base import make_player


@numba.njit
def _deal_only(key, n):
    cards = np.zeros(DEAL_SLOTS, dtype=np.int64)
    s = 0
    for d in range(n):
        deal_cards(key, d, cards)
        s += cards[8]
    return s


@numba.njit
def _deal_and_evaluate(key, n):
    cards = np.zeros(DEAL_SLOTS, dtype=np.int64)
    s = 0
    for d in range(n):
        deal_cards(key, d, cards)
        v0, v1 = eval7_pair(cards[0], cards[1], cards[2], cards[3], cards[4], cards[5], cards[6], cards[7], cards[8])
        s += v0 > v1
    return s


@kernel
def _betting_loop(kind, params, imem, fmem, n_deals, own_loop, st, cards, hist, hs, rng_a, rng_b):
    """The hands of ``n_deals`` deals between two players of ``kind`` on fixed cards: betting alone.

    Returns the number of actions. ``own_loop`` plays random bots through ``_play_random_hand``.
    Without numba's runtime, like the match loop (inlined hand loops reference-count their arrays).
    """
    actions = 0
    for d in range(n_deals):
        deal_key = stream_key(np.uint64(9), d, 0)
        for half in range(2):
            rng_a[0] = deal_key ^ SALTS[2 * half]
            rng_b[0] = deal_key ^ SALTS[2 * half + 1]
            if own_loop:
                _play_random_hand(half, st, hist, rng_a, rng_b)
            else:
                _play_hand(half, kind, params, imem, fmem, kind, params, imem, fmem, st, cards, hist, hs,
                           deal_key, 100, rng_a, rng_b)
            actions += st[S_ACTIONS]
    return actions


@numba.njit
def _betting_only(kind, params, n_deals, own_loop):
    return _betting_loop(kind, params, np.zeros((2, 1), dtype=np.int64), np.zeros((2, 1)), n_deals, own_loop,
                         np.zeros(STATE_SIZE, dtype=np.int64), np.arange(DEAL_SLOTS, dtype=np.int64) * 4,
                         np.zeros((MAX_ACTIONS_PER_HAND, 4), dtype=np.int64), np.full((2, 4), -1.0),
                         np.zeros(1, dtype=np.uint64), np.zeros(1, dtype=np.uint64))


def best_ns(fn, n, repeat=5):
    """Best nanoseconds per item of ``fn(n)`` over ``repeat`` runs (after a warm-up call)."""
    fn(10)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(n)
        best = min(best, time.perf_counter() - t0)
    return best / n * 1e9


if __name__ == "__main__":
    key = np.uint64(3)
    n = 2_000_000
    print(f"deal nine cards                      {best_ns(lambda m: _deal_only(key, m), n):6.1f} ns/deal")
    print(f"deal + evaluate both hands           {best_ns(lambda m: _deal_and_evaluate(key, m), n):6.1f} ns/deal")
    random, calling = make_player("random"), make_player("calling-machine")
    for label, p, own in [("random bots, own loop", random, True), ("random bots, per-decision loop", random, False),
                          ("calling machines", calling, False)]:
        deals = 400_000
        ns = best_ns(lambda m: _betting_only(p.kind, p.params, m, own), deals) / 2
        actions = _betting_only(p.kind, p.params, deals, own) / (2 * deals)
        print(f"betting only, {label:31s} {ns:6.1f} ns/hand, {actions:.2f} actions/hand")
    for label, a, b, kw in [("random vs random", "random", "random", {}),
                            ("random vs random, per-decision loop", "random", "random", {"generic_loop": True}),
                            ("calling-machine vs calling-machine", "calling-machine", "calling-machine", {})]:
        ns = best_ns(lambda m: play_duplicate(a, b, m, seed=1, **kw), 500_000) / 2
        print(f"{label:37s} {ns:6.1f} ns/hand, {1e3 / ns:.2f} M hands/s (play_duplicate, end to end)")
