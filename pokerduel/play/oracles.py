"""Poker players as oracles for the selectors: the engine live, or the recorded samples of a ground truth.

Both are ``pokerduel.selectors.problems.Oracle``s, so every selector (and every bandit that takes an
oracle) runs on poker players with no poker code of its own. A **sample** of pair ``(i, j)`` is player
``i``'s chips over one duplicate deal (the deal played twice with seats swapped, so two hands); divide
by ``2 * BIG_BLIND`` for big blinds per hand.

- ``LiveOracle``: ``sample(i, j)`` plays the next deal of the pair's match with the engine. The pair
  keeps its match memory across samples, as if the match simply continued (``reset=True`` starts every
  deal with fresh memories). Decks and player randomness of pair ``(i, j)`` come from a stream seeded by
  the oracle's seed and the pair alone, so the n-th sample of a pair is the same whichever order pairs
  are asked in, for every selector given the same seed (common random numbers).
- ``ReplayOracle``: draws a pair's recorded per-deal samples from a ground-truth file without
  replacement, in an order drawn per pair from the oracle's generator.

``rewind()`` makes either oracle start every pair again from its first sample, keeping what was already
played: several methods then face exactly the same samples, and a live deal is played once however many
methods read it.
"""

from __future__ import annotations

import time

import numpy as np

from ..engine.decks import N_DEAL_CARDS, seed_keys
from ..engine.rules import BIG_BLIND, MAX_ACTIONS_PER_HAND
from ..players.base import make_player
from ..players.hand_strength import DEFAULT_SAMPLES
from ..selectors.problems import Oracle, pair_arrays
from .matches import _NO_STRENGTHS, duplicate_kernel, reset_memory

__all__ = ["LiveOracle", "ReplayOracle", "MemoryPool", "pair_seed", "CHIPS_PER_BB_HAND"]

#: a sample in chips is ``CHIPS_PER_BB_HAND`` times the same result in big blinds per hand
CHIPS_PER_BB_HAND = 2 * BIG_BLIND

_NO_CARDS = np.zeros((0, N_DEAL_CARDS), dtype=np.int64)
_NO_HIST = np.zeros((0, 2, MAX_ACTIONS_PER_HAND, 4), dtype=np.int64)
_NO_NACT = np.zeros((0, 2), dtype=np.int64)


def _seed_sequence(seed) -> np.random.SeedSequence:
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer or a numpy.random.SeedSequence, got {seed!r}")
    return np.random.SeedSequence(int(seed))


def pair_seed(seed, i: int, j: int) -> np.random.SeedSequence:
    """The seed of pair ``(i, j)``'s match (``i < j``): ``seed``'s spawn key extended by ``(i, j)``.

    ``play_duplicate(players[i], players[j], n, pair_seed(seed, i, j))`` plays the pair's first ``n``
    live samples."""
    ss = _seed_sequence(seed)
    return np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, int(i), int(j)))


class MemoryPool:
    """Spare match memories (``Player.new_memory`` arrays) for ``LiveOracle``s to reuse.

    A fresh memory is zeroed pages: at K = 50, allocating and first touching the 1,225 pairs' memories
    of a generation costs ~0.3 s, more than half of the deals themselves. An oracle given a pool takes its
    memories from it and, after ``release()``, gives them back; every memory is reset before a match
    starts, so the samples are those of fresh memories (tested)."""

    def __init__(self):
        self._free: dict = {}

    def take(self, player) -> tuple[np.ndarray, np.ndarray]:
        """A memory for ``player``: a spare one of the same widths, else a new one."""
        spare = self._free.get(player.memory_widths)
        return spare.pop() if spare else player.new_memory()

    def give(self, imem: np.ndarray, fmem: np.ndarray) -> None:
        self._free.setdefault((imem.shape[1], fmem.shape[1]), []).append((imem, fmem))

    def __len__(self) -> int:
        return sum(len(v) for v in self._free.values())


class _Cached(Oracle):
    """Per-pair sample sequences read through a cursor: ``_ensure(p, n)`` makes the first ``n`` exist."""

    def _init_cache(self, K: int) -> None:
        self._setup_pairs(K)
        self._pi, self._pj = pair_arrays(self.K)
        P = self._pi.size
        self._seq = [np.zeros(0) for _ in range(P)]
        self._have = [0] * P     # Python lists: a sample's bookkeeping is a few list look-ups
        self._cursor = [0] * P
        self.seconds = 0.0  # time spent making samples (playing deals, shuffling recorded ones)

    def _ensure(self, p: int, n: int) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _draw(self, p: int, count: int) -> np.ndarray:
        c = self._cursor[p]
        if c + count > self._have[p]:
            self._ensure(p, c + count)
        self._cursor[p] = c + count
        return self._seq[p][c:c + count].copy()

    def sample(self, i: int, j: int) -> float:
        """One score sample of ``i`` against ``j`` (the same value as ``_draw(p, 1)``, without the array)."""
        p, s = self._pair(i, j)
        c = self._cursor[p]
        if c >= self._have[p]:
            self._ensure(p, c + 1)
        self._cursor[p] = c + 1
        return float(s * self._seq[p][c])

    def rewind(self) -> None:
        """Start every pair again from its first sample (samples already made are kept and reused)."""
        self._cursor = [0] * len(self._cursor)

    def used(self, i: int, j: int) -> int:
        """Samples of pair ``(i, j)`` read since the last ``rewind``."""
        p, _ = self._pair(i, j)
        return self._cursor[p]

    def pair_samples(self, i: int, j: int, n: int) -> np.ndarray:
        """The first ``n`` samples of pair ``(i, j)`` from ``i``'s point of view, whatever the cursor."""
        p, s = self._pair(i, j)
        if n > self._have[p]:
            self._ensure(p, int(n))
        return s * self._seq[p][:n]


class LiveOracle(_Cached):
    """The engine as an oracle: ``sample(i, j)`` plays the next duplicate deal of ``players[i]`` against
    ``players[j]`` and returns ``i``'s chips.

    Parameters
    ----------
    players : player specs or ``Player`` objects (anything ``make_player`` takes), ``K >= 2`` of them.
    seed : an int or a ``numpy.random.SeedSequence``; pair ``(i, j)``'s match is seeded by
        ``pair_seed(seed, i, j)`` (common random numbers across methods and query orders).
    reset : start every deal with fresh memories instead of continuing the pair's match.
    hs_samples : roll-outs of the Monte Carlo hand strength (flop and turn).
    lookahead : deals played per engine call when a pair needs more (results do not depend on it: deal
        ``n`` of a pair depends on its earlier deals only; larger values cut the per-call overhead).
    means : optional ``K x K`` matrix of true pair means (e.g. a ground truth's), for ``true_top_k``.
    memory_pool : a ``MemoryPool`` to take the pairs' match memories from; ``release()`` gives them back
        (for oracles made one after another, such as an evolution's generations).
    common_decks_from : players from this index on are fixed opponents that every player before it meets
        on the same decks (``pair_seed(seed, j, j)`` for opponent ``j``): common random numbers, so that
        candidates are compared on equal cards. Pairs of two candidates, or of two fixed opponents, keep
        their own decks. None (the default): every pair its own.

    Memory: a continuing match keeps both players' memories per pair, allocated when the pair is first
    sampled (``Player.new_memory``: about 4 MB per pair of ASHE players with the default PRT capacity).
    ``seconds`` (total), ``pair_seconds`` and ``deals_played`` (per pair) time the engine, for wall-clock
    studies. One thread at a time may sample an oracle (a lagged selector's ``run`` uses its own thread).
    """

    def __init__(self, players, seed=0, *, reset: bool = False, hs_samples: int = DEFAULT_SAMPLES,
                 lookahead: int = 1, means=None, memory_pool: MemoryPool | None = None,
                 common_decks_from: int | None = None):
        players = [make_player(p) for p in players]
        self._init_cache(len(players))
        if common_decks_from is not None and (isinstance(common_decks_from, bool)
                                              or not isinstance(common_decks_from, (int, np.integer))
                                              or not 1 <= common_decks_from <= len(players)):
            raise ValueError(f"common_decks_from must be None or an index in 1..{len(players)}, "
                             f"got {common_decks_from!r}")
        self.common_decks_from = None if common_decks_from is None else int(common_decks_from)
        self.players = players
        self.seed = _seed_sequence(seed)
        self.reset = bool(reset)
        for value, what in ((hs_samples, "hs_samples"), (lookahead, "lookahead")):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{what} must be a positive integer, got {value!r}")
        self.hs_samples = int(hs_samples)
        self.lookahead = int(lookahead)
        if means is not None:
            means = np.asarray(means, dtype=np.float64)
            if means.shape != (self.K, self.K):
                raise ValueError(f"means must be a {self.K} x {self.K} matrix, got shape {means.shape}")
            self.means = means
        P = len(self._seq)
        self._match: list = [None] * P   # per pair once sampled: (deck key, rng key, player a, player b, memories)
        if memory_pool is not None and not isinstance(memory_pool, MemoryPool):
            raise ValueError(f"memory_pool must be a MemoryPool, got {type(memory_pool).__name__}")
        self.memory_pool = memory_pool
        self._released = False
        self._seconds = [0.0] * P
        self._deals = [0] * P
        self._pay = np.zeros((1, 2), dtype=np.int64)   # one deal's chips (every entry written by the kernel)

    @property
    def pair_seconds(self) -> np.ndarray:
        """Engine seconds per pair."""
        return np.array(self._seconds)

    @property
    def deals_played(self) -> np.ndarray:
        """Deals played per pair."""
        return np.array(self._deals, dtype=np.int64)

    def _pair_state(self, p: int):
        if self._match[p] is None:
            i, j = int(self._pi[p]), int(self._pj[p])
            c = self.common_decks_from
            shared = c is not None and i < c <= j  # a candidate against a fixed opponent: that opponent's decks
            deck_key, rng_key = seed_keys(pair_seed(self.seed, j if shared else i, j), 2)
            a, b = self.players[i], self.players[j]
            pool = self.memory_pool
            mem = (*a.new_memory(), *b.new_memory()) if pool is None else (*pool.take(a), *pool.take(b))
            reset_memory(a.kind, a.params, mem[0], mem[1])
            reset_memory(b.kind, b.params, mem[2], mem[3])
            self._match[p] = (deck_key, rng_key, a, b, mem)
        return self._match[p]

    def _ensure(self, p: int, n: int) -> None:
        have = self._have[p]
        if n <= have:
            return
        if self._released:
            raise RuntimeError("this oracle's matches were released (release()); it plays no more deals")
        t0 = time.perf_counter()
        deck_key, rng_key, a, b, mem = self._match[p] or self._pair_state(p)
        m = max(n - have, 1 if self.reset else self.lookahead)
        pay = self._pay if m == 1 else np.empty((m, 2), dtype=np.int64)
        if self.reset:
            for d in range(m):  # every deal a fresh match, still deal ``have + d`` of the pair's decks
                reset_memory(a.kind, a.params, mem[0], mem[1])
                reset_memory(b.kind, b.params, mem[2], mem[3])
                duplicate_kernel(a.kind, a.params, mem[0], mem[1], b.kind, b.params, mem[2], mem[3], deck_key,
                                 rng_key, self.hs_samples, have + d, 1, pay[d:d + 1], False, _NO_CARDS, _NO_HIST,
                                 _NO_NACT, False, _NO_STRENGTHS)
        else:
            duplicate_kernel(a.kind, a.params, mem[0], mem[1], b.kind, b.params, mem[2], mem[3], deck_key, rng_key,
                             self.hs_samples, have, m, pay, False, _NO_CARDS, _NO_HIST, _NO_NACT, False,
                             _NO_STRENGTHS)
        seq = self._seq[p]
        if seq.size < have + m:
            grown = np.empty(max(have + m, 2 * seq.size, 4))
            grown[:have] = seq[:have]
            self._seq[p] = seq = grown
        if m == 1:
            seq[have] = pay[0, 0] + pay[0, 1]
        else:
            seq[have:have + m] = pay.sum(axis=1)
        self._have[p] = have + m
        self._deals[p] += m
        dt = time.perf_counter() - t0
        self._seconds[p] += dt
        self.seconds += dt

    def match_memories(self):
        """``(i, j, (imem_i, fmem_i, imem_j, fmem_j))`` of every pair whose match has begun (before ``release``)."""
        for p, match in enumerate(self._match):
            if match is not None:
                yield int(self._pi[p]), int(self._pj[p]), match[4]

    def release(self) -> None:
        """End the matches: give the pairs' memories back to the pool. Samples already played can still be
        read (``rewind``); playing new deals is an error."""
        self._released = True
        pool = self.memory_pool
        if pool is not None:
            for match in self._match:
                if match is not None:
                    mem = match[4]
                    pool.give(mem[0], mem[1])
                    pool.give(mem[2], mem[3])
        self._match = [None] * len(self._match)

    def deal_cost(self) -> np.ndarray:
        """Mean engine seconds per deal of each pair played so far (NaN for pairs not played)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.pair_seconds / self.deals_played


class ReplayOracle(_Cached):
    """A ground truth's recorded per-deal samples as an oracle, drawn without replacement.

    ``truth`` is one population of a ground-truth file (``load_ground_truth(path)[p]``). Each pair's
    recorded deals are read in a random order, a permutation drawn from a per-pair generator seeded once
    from ``rng`` at construction, so the order depends on ``rng`` and the pair, not on the order of the
    queries. Asking a pair for more samples than were recorded is an error. ``means`` are the recorded
    means, so ``true_top_k(k)`` is the ground truth's top-k by Borda score.
    """

    def __init__(self, truth, rng: np.random.Generator):
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), got "
                             f"{type(rng).__name__}")
        self._init_cache(len(truth))
        self.truth = truth
        self.means = np.asarray(truth.mean, dtype=np.float64)
        self._records = np.asarray(truth.all_samples)
        self._pair_seeds = rng.integers(0, 2**63 - 1, size=len(self._seq))

    @property
    def recorded(self) -> int:
        """Recorded deals per pair."""
        return self._records.shape[1]

    def _ensure(self, p: int, n: int) -> None:
        if n > self.recorded:
            i, j = (int(x) for x in self.truth.pairs[p])
            raise ValueError(f"pair ({i}, {j}) has only {self.recorded} recorded deals; {n} were asked for "
                             "(a replay draws without replacement)")
        if self._have[p] == 0:
            t0 = time.perf_counter()
            order = np.random.default_rng(int(self._pair_seeds[p])).permutation(self.recorded)
            self._seq[p] = self._records[p][order].astype(np.float64)
            self._have[p] = self.recorded
            self.seconds += time.perf_counter() - t0
