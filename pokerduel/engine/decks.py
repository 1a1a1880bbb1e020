"""Counter-based random streams: deck ``d`` of a seed is computed directly, never by running earlier decks.

Every random number comes from a 64-bit key and a counter: splitmix64 for the decks, the per-deal keys and
the Monte Carlo roll-outs, the wyrand mixer for the random bot's choices. A deal, a player's random choice
or a roll-out is thus a pure function of (key, deal index, purpose). That makes results independent of
chunking, worker count and play order, and gives common random numbers: the same seed deals the same
decks to every pair of players.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ..infra.jit import kernel

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
N_DEAL_CARDS = 9  # hole cards of position 0, of position 1, then flop, turn, river
DEAL_SLOTS = 12  # room ``deal_cards`` needs in its output: nine cards, then scratch for repeated draws


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


# Salts that split one per-deal key into independent streams (players, hand strength).
SALTS = np.random.SeedSequence(20261121).generate_state(8, dtype=np.uint64)

_WY_STEP = np.uint64(0xA0761D6478BD642F)  # wyrand's Weyl increment and output constant
_WY_MIX = np.uint64(0xE7037ED1A0B428DB)


@intrinsic
def mulhi(typingctx, a, b):
    """High 64 bits of the 128-bit product of two uint64 (one ``mul`` on x86-64, ``umulh`` on arm64)."""
    if a != types.uint64 or b != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        return builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))

    return types.uint64(types.uint64, types.uint64), codegen


@kernel
def next_u64(rng):
    """Next 64-bit word of the generator whose state is ``rng[0]``: Wang Yi's wyrand, a Weyl counter
    whose 128-bit product with a scrambled copy is folded to 64 bits (reported to pass BigCrush and PractRand).

    One multiplication instead of splitmix64's two and three shifts: the random bot draws at every decision.
    """
    rng[0] += _WY_STEP
    s = rng[0]
    t = s ^ _WY_MIX
    return mulhi(s, t) ^ (s * t)


@kernel
def next_below(rng, n):
    """Integer in ``0..n-1`` (Lemire's multiply-shift of a 64-bit word; bias below n / 2**64)."""
    return np.int64(mulhi(next_u64(rng), np.uint64(n)))


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of a uint64 (``llvm.ctpop``: one instruction where the CPU has it)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@kernel
def _place(out, used, card):
    """Write ``card`` after the distinct cards drawn so far (``used``, a bit set); return the new set.

    A repeated card is written too, into the slot the next new card overwrites: no branch on repeats.
    """
    out[popcount(used)] = card
    return used | (np.uint64(1) << card)


@kernel(inline="always")
def deal_cards(deck_key, deal, out):
    """Fill ``out[:9]`` with deal ``deal`` of the stream ``deck_key``: nine distinct uniform cards.

    The cards are the first nine distinct ones of a stream of draws: each 64-bit word gives two
    (multiply-shift on each 32-bit half; bias below 52 / 2**32). ``out`` needs ``DEAL_SLOTS`` (12)
    entries: the first twelve draws are placed without a branch (repeats land in scratch slots), and
    only the rare deal with more than three repeats among them draws on in a loop.
    """
    state = stream_key(deck_key, deal, 0)
    used = np.uint64(0)
    low = np.uint64(0xFFFFFFFF)
    n52 = np.uint64(52)
    s32 = np.uint64(32)
    for _ in range(DEAL_SLOTS // 2):
        state += GOLDEN
        word = mix64(state)
        used = _place(out, used, ((word >> s32) * n52) >> s32)
        used = _place(out, used, ((word & low) * n52) >> s32)
    while popcount(used) < N_DEAL_CARDS:
        state += GOLDEN
        word = mix64(state)
        used = _place(out, used, ((word >> s32) * n52) >> s32)
        if popcount(used) < N_DEAL_CARDS:
            used = _place(out, used, ((word & low) * n52) >> s32)


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
    cards = np.empty(DEAL_SLOTS, dtype=np.int64)
    for d in range(n):
        deal_cards(key, first + d, cards)
        for i in range(N_DEAL_CARDS):
            out[d, i] = cards[i]
    return out
