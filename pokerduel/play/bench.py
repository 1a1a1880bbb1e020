"""Throughput measurements behind ``pokerduel bench engine``: ours next to peers measured in the same run."""

from __future__ import annotations

import time

import numpy as np


def _best_rate(fn, count, repeat=3):
    """Best items/s over ``repeat`` timed calls of ``fn`` (each processing ``count`` items)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return count / best


def random_hands(n: int, seed: int = 0) -> np.ndarray:
    """``(n, 7)`` uint8 random-order seven-card hands."""
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :7].astype(np.uint8)


def bench_evaluator(n: int = 5_000_000, n_peer: int = 200_000) -> dict:
    """Seven-card evaluations per second: our batch API and eval7 (if installed) on random hands."""
    from ..engine.evaluator import evaluate

    hands = random_hands(n)
    evaluate(hands[:10])
    out = {"pokerduel_evals_per_s": _best_rate(lambda: evaluate(hands), n)}
    try:
        import eval7
    except ImportError:
        out["eval7_evals_per_s"] = None
        return out
    from ..engine.cards import card_str

    deck = [eval7.Card(card_str(c)) for c in range(52)]
    lists = [[deck[c] for c in h] for h in hands[:n_peer].tolist()]
    ev = eval7.evaluate
    out["eval7_evals_per_s"] = _best_rate(lambda: [ev(h) for h in lists], n_peer)
    return out


def bench_engine(n_deals: int = 1_000_000, n_peer: int = 300, repeat: int = 5) -> dict:
    """Hands per second: random-bot duplicate deals end to end (through their own loop and through the
    per-decision loop of every other pair), Calling Machines, rule bots, and pokerkit replaying hands.

    The first three are timed in turns, ``repeat`` rounds, best of each: the machine's speed drifts, and
    interleaving keeps the peers comparable.
    """
    from .matches import play_duplicate

    cases = {"random_hands_per_s": ("random", "random", {}),
             "random_generic_hands_per_s": ("random", "random", {"generic_loop": True}),
             "calling_hands_per_s": ("calling-machine", "calling-machine", {})}
    best = dict.fromkeys(cases, float("inf"))
    for a, b, kw in cases.values():
        play_duplicate(a, b, 10, seed=0, **kw)
    for _ in range(repeat):
        for key, (a, b, kw) in cases.items():
            t0 = time.perf_counter()
            play_duplicate(a, b, n_deals, seed=1, **kw)
            best[key] = min(best[key], time.perf_counter() - t0)
    out = {key: 2 * n_deals / t for key, t in best.items()}
    m = max(n_deals // 100, 100)
    play_duplicate("candid-statistician", "hothead-maniac", 10, seed=0)
    out["rule_bot_hands_per_s"] = _best_rate(
        lambda: play_duplicate("candid-statistician", "hothead-maniac", m, seed=1), 2 * m, repeat=1)
    try:
        from ..engine import pokerkit_bridge
    except ImportError:
        out["pokerkit_hands_per_s"] = None
        return out
    records = play_duplicate("random", "random", n_peer // 2, seed=2, records=True).records
    out["pokerkit_hands_per_s"] = _best_rate(
        lambda: [pokerkit_bridge.replay_payoffs(r.cards, r.actions) for r in records], len(records), repeat=1)
    return out
