"""Counter-based random streams: deck ``d`` of a seed is computed directly, never by running earlier decks.

Every random number comes from splitmix64 applied to a 64-bit key and a counter, so a deal, a player's
random choice or a Monte Carlo roll-out is a pure function of (key, deal index, purpose). That makes
results independent of chunking, worker count and play order, and gives common random numbers: the
same seed deals the same decks to every pair of players.
"""

from __future__ import annotations

import numba
import numpy as np

from .._jit import kernel

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
N_DEAL_CARDS = 9  # hole cards of position 0, of position 1, then flop, turn, river


@kernel
def mix64(z):
    """splitmix64 finaliser: a bijective 64-bit hash with full avalanche."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def stream_key(key, a, b):
    """Key of the sub-stream ``(a, b)`` of ``key`` (e.g. deal index and purpose)."""
    return mix64(mix64(key ^ (np.uint64(a) * GOLDEN)) + np.uint64(b) * GOLDEN + np.uint64(1))


# Salts that split one per-deal key into independent splitmix64 streams (players, hand strength).
SALTS = np.random.SeedSequence(20261121).generate_state(8, dtype=np.uint64)


@kernel
def next_u64(rng):
    """Next 64-bit word of the splitmix64 generator whose state is ``rng[0]``."""
    rng[0] += GOLDEN
    return mix64(rng[0])


@kernel
def next_below(rng, n):
    """Integer in ``0..n-1`` (multiply-shift on 32 bits; bias below n / 2**32)."""
    return np.int64(((next_u64(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@kernel
def deal_cards(deck_key, deal, out):
    """Fill ``out[:9]`` with deal ``deal`` of the stream ``deck_key``: nine distinct uniform cards.

    Each 64-bit word gives two cards (multiply-shift on each 32-bit half; bias below 52 / 2**32),
    repeats are redrawn.
    """
    state = stream_key(deck_key, deal, 0)
    used = np.uint64(0)
    i = 0
    low = np.uint64(0xFFFFFFFF)
    while i < N_DEAL_CARDS:
        state += GOLDEN
        word = mix64(state)
        c = ((word >> np.uint64(32)) * np.uint64(52)) >> np.uint64(32)
        bit = np.uint64(1) << c
        if not used & bit:
            used |= bit
            out[i] = c
            i += 1
        if i < N_DEAL_CARDS:
            c = ((word & low) * np.uint64(52)) >> np.uint64(32)
            bit = np.uint64(1) << c
            if not used & bit:
                used |= bit
                out[i] = c
                i += 1


def seed_keys(seed, n: int = 2) -> np.ndarray:
    """``n`` 64-bit stream keys from a seed (int or ``numpy.random.SeedSequence``)."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return ss.generate_state(n, dtype=np.uint64)


def deal_decks(seed, n_deals: int, first_deal: int = 0) -> np.ndarray:
    """The ``(n_deals, 9)`` uint8 cards of deals ``first_deal...`` of the deck stream of ``seed``."""
    key = seed_keys(seed, 1)[0]
    return _deal_many(key, first_deal, n_deals)


@numba.njit(cache=True)
def _deal_many(key, first, n):
    out = np.empty((n, N_DEAL_CARDS), dtype=np.uint8)
    for d in range(n):
        deal_cards(key, first + d, out[d])
    return out
