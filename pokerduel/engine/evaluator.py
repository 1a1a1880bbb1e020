"""Seven-card hand evaluator: numba scalar kernel ``eval7`` and the batch API ``evaluate``.

Values are ``category << 12 | rank_within_category``: higher is better, equal hands are equal,
``value >> 12`` is the category (0 high card ... 8 straight flush). The tables are built by
``evaluator_tables.py`` and shipped in ``pokerduel/data/evaluator_tables.npz``.
"""

from __future__ import annotations

from importlib import resources

import numpy as np

from ..infra.jit import kernel
from .cards import CATEGORY_NAMES
from .evaluator_tables import BUCKET_BITS, FLUSH_BITS, HASH_MUL_BUCKET, HASH_MUL_SLOT, SLOT_BITS, SUIT_KEY_INIT


def _load_tables():
    with resources.files("pokerduel").joinpath("data/evaluator_tables.npz").open("rb") as fh:
        data = np.load(fh, allow_pickle=False)
        return data["flush"].copy(), data["displacement"].copy(), data["rank_values"].copy()


FLUSH_TABLE, DISPLACEMENT, RANK_VALUES = _load_tables()
CARD_KEYS = np.array(
    [(5 ** (c >> 2)) << 16 | 1 << (4 * (c & 3)) for c in range(52)], dtype=np.uint64
)

_MUL_B = np.uint64(HASH_MUL_BUCKET)
_MUL_S = np.uint64(HASH_MUL_SLOT)
_SHIFT_B = np.uint64(64 - BUCKET_BITS)
_SHIFT_S = np.uint64(64 - SLOT_BITS)
_SHIFT_RANK = np.uint64(16)
_INIT = np.uint64(SUIT_KEY_INIT)
_FLUSH_BITS = np.uint64(FLUSH_BITS)


@kernel
def _key(card):
    """The card's term of the hand key (an unsigned index: no negative-index wraparound in the lookup)."""
    return CARD_KEYS[np.uint64(card)]


@kernel
def _flush_suit(flush_bits):
    if flush_bits & np.uint64(0x8):
        return 0
    if flush_bits & np.uint64(0x80):
        return 1
    if flush_bits & np.uint64(0x800):
        return 2
    return 3


@kernel
def eval7(c0, c1, c2, c3, c4, c5, c6):
    """Value of the best five-card hand among seven distinct card integers (numba scalar kernel)."""
    key = _INIT + _key(c0) + _key(c1) + _key(c2) + _key(c3) + _key(c4) + _key(c5) + _key(c6)
    flush_bits = key & _FLUSH_BITS
    if flush_bits:
        suit = _flush_suit(flush_bits)
        mask = 0
        if (c0 & 3) == suit:
            mask |= 1 << (c0 >> 2)
        if (c1 & 3) == suit:
            mask |= 1 << (c1 >> 2)
        if (c2 & 3) == suit:
            mask |= 1 << (c2 >> 2)
        if (c3 & 3) == suit:
            mask |= 1 << (c3 >> 2)
        if (c4 & 3) == suit:
            mask |= 1 << (c4 >> 2)
        if (c5 & 3) == suit:
            mask |= 1 << (c5 >> 2)
        if (c6 & 3) == suit:
            mask |= 1 << (c6 >> 2)
        return np.int32(FLUSH_TABLE[mask])
    rank_key = key >> _SHIFT_RANK
    bucket = (rank_key * _MUL_B) >> _SHIFT_B
    slot = ((rank_key * _MUL_S) >> _SHIFT_S) ^ np.uint64(DISPLACEMENT[bucket])
    return np.int32(RANK_VALUES[slot])


@kernel
def _eval_keyed(key, c0, c1, c2, c3, c4, c5, c6):
    """``eval7`` given the cards' summed key: the flush check and the rank lookup, or ``eval7`` on a flush."""
    if key & _FLUSH_BITS:  # about one hand in 33
        return eval7(c0, c1, c2, c3, c4, c5, c6)
    rank_key = key >> _SHIFT_RANK
    bucket = (rank_key * _MUL_B) >> _SHIFT_B
    slot = ((rank_key * _MUL_S) >> _SHIFT_S) ^ np.uint64(DISPLACEMENT[bucket])
    return np.int32(RANK_VALUES[slot])


@kernel(inline="always")
def eval7_pair(a0, a1, b0, b1, c0, c1, c2, c3, c4):
    """Values of the hands ``a0 a1`` and ``b0 b1`` on the board ``c0..c4``: ``eval7`` twice, the board summed once."""
    board = _INIT + _key(c0) + _key(c1) + _key(c2) + _key(c3) + _key(c4)
    return (_eval_keyed(board + _key(a0) + _key(a1), a0, a1, c0, c1, c2, c3, c4),
            _eval_keyed(board + _key(b0) + _key(b1), b0, b1, c0, c1, c2, c3, c4))


@kernel
def _evaluate_batch(hands, out):
    """Fill ``out``; return the first row holding a repeated card, or -1 (cards already checked <= 51)."""
    bad = -1
    one = np.uint64(1)
    for i in range(hands.shape[0]):
        c0, c1, c2, c3, c4, c5, c6 = hands[i, 0], hands[i, 1], hands[i, 2], hands[i, 3], hands[i, 4], hands[i, 5], hands[i, 6]
        b0, b1, b2, b3 = one << np.uint64(c0), one << np.uint64(c1), one << np.uint64(c2), one << np.uint64(c3)
        b4, b5, b6 = one << np.uint64(c4), one << np.uint64(c5), one << np.uint64(c6)
        # A repeated card makes the sum carry, so it differs from the OR.
        if (b0 + b1 + b2 + b3 + b4 + b5 + b6) != (b0 | b1 | b2 | b3 | b4 | b5 | b6):
            if bad < 0:
                bad = i
            out[i] = -1
        else:
            out[i] = eval7(c0, c1, c2, c3, c4, c5, c6)
    return bad


def evaluate(hands) -> np.ndarray:
    """Values of an ``(n, 7)`` array of card integers (int32, higher is better, equal for equal hands)."""
    hands = np.asarray(hands)
    if hands.ndim != 2 or hands.shape[1] != 7:
        raise ValueError(f"evaluate takes an (n, 7) array of card integers, got shape {hands.shape}")
    if hands.dtype != np.uint8:
        if not np.issubdtype(hands.dtype, np.integer):
            raise ValueError(f"evaluate takes integer cards 0..51, got dtype {hands.dtype}")
        if hands.size and (hands.min() < 0 or hands.max() > 51):
            raise ValueError("card integers must lie in 0..51")
        hands = hands.astype(np.uint8)
    elif hands.size and hands.max() > 51:
        raise ValueError("card integers must lie in 0..51")
    hands = np.ascontiguousarray(hands)
    out = np.empty(hands.shape[0], dtype=np.int32)
    bad = _evaluate_batch(hands, out)
    if bad >= 0:
        raise ValueError(f"row {bad} of hands, {hands[bad].tolist()}, is not seven distinct cards in 0..51")
    return out


def category(values) -> np.ndarray:
    """Category codes (0 high card ... 8 straight flush) of evaluator values."""
    return np.asarray(values) >> 12


def category_name(value: int) -> str:
    """Name of the category of one evaluator value, e.g. ``"full house"``."""
    return CATEGORY_NAMES[int(value) >> 12]
