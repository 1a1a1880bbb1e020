"""Fitness against fixed opponents: every candidate plays every opponent on common decks (ASHE 1.0's ANE).

Li & Miikkulainen (2017), restated in ``../shared/notes/ashe-player.md`` §2.4: individual ``i`` plays
opponent ``j`` one duplicate match (``deals`` deals = two halves of ``deals`` hands, seats swapped, memories
fresh for each half); ``e_ij`` is its cumulative earnings in chips. The **normalized earnings** are
``e_ij / n_j`` with ``n_j = max(BB, max_i e_ij)`` (the best in the population scores 1, so every opponent
weighs at most one unit and specialists do not dominate), and the **Average Normalized Earnings** are
their mean over the opponents. Here the opponents fall into pools (training opponents, hall of fame) and
the fitness is the pool-weighted mean of each pool's ANE (equal weights and one pool: ASHE 1.0's ANE).

Every individual of a generation plays the same decks (common random numbers: differences between
individuals are not luck of the cards), and each deck's hand strengths are computed once for all of
them (``matches.deal_strengths``). The matches are tasks on a backend (``parallel``), each a chunk of
(individual, opponent) pairs with all of its inputs, so the results do not depend on the backend, the
worker count or the order of completion.
"""

from __future__ import annotations

import time

import numpy as np

from ..engine.rules import BIG_BLIND
from ..play.matches import deal_strengths, play_duplicate, reset_memory
from ..players.base import MODELS
from ..players.genomes import action_counts
from ..players.hand_strength import DEFAULT_SAMPLES


def normalized_earnings(earnings: np.ndarray) -> np.ndarray:
    """``e_ij / n_j`` with ``n_j = max(BB, max_i e_ij)`` (columns: opponents; NaN columns stay NaN)."""
    e = np.asarray(earnings, dtype=np.float64)
    if e.ndim != 2 or e.shape[0] < 1:
        raise ValueError(f"earnings must be a 2-D array (individuals x opponents), got shape {e.shape}")
    with np.errstate(invalid="ignore"):
        top = np.where(np.all(np.isnan(e), axis=0), np.nan, np.nanmax(np.where(np.isnan(e), -np.inf, e), axis=0))
    return e / np.maximum(float(BIG_BLIND), top)


def ane(earnings: np.ndarray, pools: np.ndarray | None = None, weights=None, caps=None,
        column_weights=None) -> np.ndarray:
    """The fitness of every individual: the ``weights``-weighted mean over pools of the mean normalized
    earnings against each pool's opponents (one pool, the default: ASHE 1.0's ANE).

    ``pools[j]`` is the pool of opponent column ``j`` (0, 1, ...); a column of NaN is an absent opponent
    (an empty hall-of-fame slot) and a pool without opponents drops out, its weight with it. ``caps[j]``
    (same units as the earnings; None or inf: none) credits earnings against opponent ``j`` only up to it,
    before the normalisation: a player above an opponent's target gains nothing there, so that fitness
    does not trade a shortfall against one opponent for a surplus against another. ``column_weights[j]``
    (> 0; None: all 1) weighs opponent ``j`` within its pool's mean."""
    if caps is not None:
        c = np.array([np.inf if x is None else x for x in caps], np.float64)
        earnings = np.minimum(np.asarray(earnings, np.float64), c)  # NaN (absent) stays NaN
    z = normalized_earnings(earnings)
    m = z.shape[1]
    pools = np.zeros(m, np.int64) if pools is None else np.asarray(pools, np.int64)
    n_pools = int(pools.max()) + 1 if m else 0
    weights = np.ones(n_pools) if weights is None else np.asarray(weights, np.float64)
    cw = np.ones(m) if column_weights is None else np.asarray(column_weights, np.float64)
    if pools.shape != (m,) or weights.shape != (n_pools,) or np.any(weights < 0):
        raise ValueError(f"need one pool per opponent ({m}) and a non-negative weight per pool ({n_pools})")
    if cw.shape != (m,) or not np.all(cw > 0):
        raise ValueError(f"need a positive weight per opponent column ({m}), got {column_weights!r}")
    total = np.zeros(len(z))
    wsum = 0.0
    for p in range(n_pools):
        cols = (pools == p) & ~np.all(np.isnan(z), axis=0)
        if weights[p] > 0 and cols.any():
            zp = z[:, cols]
            total += weights[p] * (zp.mean(axis=1) if column_weights is None else zp @ cw[cols] / cw[cols].sum())
            wsum += weights[p]
    if wsum <= 0:
        raise ValueError("no opponent with a positive pool weight: the fitness is undefined")
    return total / wsum


def play_pairs(task: dict) -> dict:
    """Worker function: each ``(i, j)`` of ``task["pairs"]``, candidate ``i`` against opponent ``j`` on the
    task's decks; returns their cumulative chips (``e_ij``) and seconds (plain data, any backend)."""
    cand, opps = task["candidates"], task["opponents"]
    matches = task["matches"]
    strengths = task["strengths"]
    out = np.zeros(len(task["pairs"]))
    actions = np.zeros((len(task["pairs"]), 3), np.int64)
    t0 = time.perf_counter()
    for n, (i, j) in enumerate(task["pairs"]):
        a, b = cand[i], opps[j]
        per = task["deals"][j] // matches
        for m in range(matches):  # each match from fresh memories, on the next ``per`` deals of the decks
            memory = (*a.new_memory(), *b.new_memory())
            reset_memory(a.kind, a.params, memory[0], memory[1])
            reset_memory(b.kind, b.params, memory[2], memory[3])
            r = play_duplicate(a, b, per, task["seed"], first_deal=m * per, hs_samples=task["hs_samples"],
                               strengths=None if strengths is None else strengths[m * per:(m + 1) * per],
                               memory=memory)
            out[n] += float(r.hand_payoffs.sum())
            if a.kind in MODELS.values():
                actions[n] += action_counts(a.kind, memory[0])
    return {"pairs": task["pairs"], "earnings": out, "actions": actions, "seconds": time.perf_counter() - t0}


def earnings_matrix(candidates: list, opponents: list, deals, seed: int, backend,
                    hs_samples: int = DEFAULT_SAMPLES, tasks_per_worker: int = 4,
                    matches: int = 1) -> tuple[np.ndarray, float, np.ndarray]:
    """``e[i, j]``: candidate ``i``'s chips over ``deals`` duplicate deals against opponent ``j`` (players or
    specs), every pair on the same decks of ``seed``; the engine seconds the matches took; and each ASHE
    candidate's decisions over all its matches (``actions[i]``: folds, checks/calls, raises).

    ``deals``: one number for every opponent, or one per opponent; every candidate meets opponent ``j`` on
    the first ``deals[j]`` decks of ``seed``.

    ``matches``: the deals of a pair are played as that many consecutive matches of ``deals / matches``
    deals, each from fresh memories (1: one match, ASHE 1.0's). An adaptive player's result depends on how
    its memory of the opponent develops; more matches sample that more often on the same hands.

    The (candidate, opponent) matches are split into about ``tasks_per_worker`` tasks per worker of
    ``backend`` (serial: one task)."""
    from ..players.base import make_player

    candidates = [make_player(c) for c in candidates]
    opponents = [make_player(o) for o in opponents]
    per_opponent = [deals] * len(opponents) if isinstance(deals, (int, np.integer)) else list(deals)
    if len(per_opponent) != len(opponents) or not all(
            isinstance(d, (int, np.integer)) and d >= 1 for d in per_opponent):
        raise ValueError(f"deals must be a positive integer or one per opponent ({len(opponents)}), got {deals!r}")
    if not isinstance(matches, (int, np.integer)) or matches < 1 or any(d % matches for d in per_opponent):
        raise ValueError(f"matches must be a positive integer that divides deals ({deals}), got {matches!r}")
    pairs = [(i, j) for j in range(len(opponents)) for i in range(len(candidates))]
    e = np.full((len(candidates), len(opponents)), np.nan)
    actions = np.zeros((len(candidates), 3), np.int64)
    if not pairs:
        return e, 0.0, actions
    strengths = deal_strengths(seed, max(per_opponent), 0, hs_samples) if any(
        p.uses_hand_strength for p in candidates + opponents) else None
    n_tasks = max(1, min(len(pairs), backend.workers * tasks_per_worker if backend.name != "serial" else 1))
    chunks = [pairs[t::n_tasks] for t in range(n_tasks)]
    base = {"candidates": candidates, "opponents": opponents, "deals": [int(d) for d in per_opponent],
            "seed": int(seed), "hs_samples": int(hs_samples), "strengths": strengths, "matches": int(matches)}
    seconds = 0.0
    for _, res in backend.map_unordered(play_pairs, [{**base, "pairs": c} for c in chunks]):
        for (i, j), x, acts in zip(res["pairs"], res["earnings"], res["actions"]):
            e[i, j] = x
            actions[i] += acts
        seconds += res["seconds"]
    return e, seconds, actions


def chips_of(targets, deals):
    """Targets in mBB/hand (None: none) as cumulative chips over ``deals`` duplicate deals (one number, or one
    per target; None stays None)."""
    if targets is None:
        return None
    per = np.broadcast_to(np.asarray(deals, np.float64), (len(targets),))
    return [None if t is None else t / 1000 * BIG_BLIND * 2 * d for t, d in zip(targets, per)]


def mbb_per_hand(earnings: np.ndarray, deals) -> np.ndarray:
    """Cumulative chips over ``deals`` duplicate deals (``2 deals`` hands; one number, or one per column) in
    milli-big-blinds per hand."""
    return np.asarray(earnings, np.float64) / (2 * np.asarray(deals, np.float64)) / BIG_BLIND * 1000
