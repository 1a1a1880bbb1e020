"""Hand strength: P(win) + P(tie)/2 against a uniformly random opponent hand, the board rolled out.

* Preflop: the exact 169-class table ``pokerduel/data/preflop_hs.npy`` (``scripts/build_preflop_table.py``
  enumerates every board and opponent hand).
* Flop and turn: Monte Carlo over ``samples`` opponent hands and roll-outs drawn from a counter-based
  stream, so the value is deterministic given its key; standard error at most ``0.5 / sqrt(samples)``
  (0.0158 at the default 1000).
* River: exact over the 990 opponent hands.
"""

from __future__ import annotations

from importlib import resources

import numpy as np

from ..engine.decks import GOLDEN, mix64
from ..engine.evaluator import eval7
from ..infra.jit import kernel

DEFAULT_SAMPLES = 1000


def _load_preflop():
    with resources.files("pokerduel").joinpath("data/preflop_hs.npy").open("rb") as fh:
        return np.load(fh, allow_pickle=False)


PREFLOP_HS = _load_preflop()  # [hi, lo] suited, [lo, hi] offsuit, [r, r] pairs


@kernel
def preflop_cell(c0, c1):
    """Row and column of two hole cards in the 13x13 class grid: ``[hi, lo]`` suited, ``[lo, hi]`` offsuit."""
    r0, r1 = c0 >> 2, c1 >> 2
    hi, lo = max(r0, r1), min(r0, r1)
    if (c0 & 3) == (c1 & 3):
        return hi, lo
    return lo, hi


@kernel
def river_strength(c0, c1, b0, b1, b2, b3, b4):
    """Exact hand strength on a full board: compare with all 990 opponent hands."""
    one = np.uint64(1)
    used = (one << np.uint64(c0)) | (one << np.uint64(c1)) | (one << np.uint64(b0)) | (one << np.uint64(b1))
    used |= (one << np.uint64(b2)) | (one << np.uint64(b3)) | (one << np.uint64(b4))
    hero = eval7(c0, c1, b0, b1, b2, b3, b4)
    wins = 0
    ties = 0
    total = 0
    for a in range(51):
        if used >> np.uint64(a) & np.uint64(1):
            continue
        for b in range(a + 1, 52):
            if used >> np.uint64(b) & np.uint64(1):
                continue
            v = eval7(a, b, b0, b1, b2, b3, b4)
            total += 1
            if hero > v:
                wins += 1
            elif hero == v:
                ties += 1
    return (wins + 0.5 * ties) / total


@kernel
def _draw(state, used):
    """Draw a card not in ``used``; returns (card, new state, new used)."""
    while True:
        state += GOLDEN
        c = ((mix64(state) >> np.uint64(32)) * np.uint64(52)) >> np.uint64(32)
        bit = np.uint64(1) << c
        if not used & bit:
            return np.int64(c), state, used | bit


@kernel
def rollout_strength(c0, c1, board, n_board, samples, key):
    """Monte Carlo hand strength with ``n_board`` (3 or 4) known board cards; deterministic given ``key``."""
    used = (np.uint64(1) << np.uint64(c0)) | (np.uint64(1) << np.uint64(c1))
    for i in range(n_board):
        used |= np.uint64(1) << np.uint64(board[i])
    b0, b1, b2 = np.int64(board[0]), np.int64(board[1]), np.int64(board[2])
    b3 = np.int64(board[3]) if n_board > 3 else np.int64(0)
    state = np.uint64(key)  # an int64 key would turn ``state += GOLDEN`` into float arithmetic
    score = 0.0
    for _ in range(samples):
        u = used
        o0, state, u = _draw(state, u)
        o1, state, u = _draw(state, u)
        t = b3
        if n_board == 3:
            t, state, u = _draw(state, u)
        r, state, u = _draw(state, u)
        hero = eval7(c0, c1, b0, b1, b2, t, r)
        opp = eval7(o0, o1, b0, b1, b2, t, r)
        if hero > opp:
            score += 1.0
        elif hero == opp:
            score += 0.5
    return score / samples


@kernel
def hand_strength_kernel(c0, c1, board, n_board, samples, key):
    """Hand strength of hole cards ``c0, c1`` with the first ``n_board`` cards of ``board`` (0, 3, 4 or 5)."""
    if n_board == 0:
        i, j = preflop_cell(c0, c1)
        return PREFLOP_HS[i, j]
    if n_board == 5:
        return river_strength(c0, c1, board[0], board[1], board[2], board[3], board[4])
    return rollout_strength(c0, c1, board, n_board, samples, key)


def hand_strength(hole, board=(), samples: int = DEFAULT_SAMPLES, seed: int = 0) -> float:
    """Hand strength of two hole cards and 0, 3, 4 or 5 board cards (card integers or a string like ``"AsKd"``).

    Flop and turn values are Monte Carlo estimates (standard error <= 0.5/sqrt(samples)); ``seed``
    picks the roll-outs.
    """
    from ..engine.cards import parse_cards

    hole = parse_cards(hole) if isinstance(hole, str) else np.asarray(hole, dtype=np.int64)
    board = parse_cards(board) if isinstance(board, str) else np.asarray(board, dtype=np.int64)
    if hole.shape != (2,):
        raise ValueError(f"hand_strength takes two hole cards, got {hole.tolist()}")
    if len(board) not in (0, 3, 4, 5):
        raise ValueError(f"the board holds 0, 3, 4 or 5 cards, got {len(board)}")
    cards = np.concatenate([hole, board]).astype(np.int64)
    if cards.min() < 0 or cards.max() > 51 or len(set(cards.tolist())) != len(cards):
        raise ValueError(f"cards must be distinct integers in 0..51, got {cards.tolist()}")
    if not isinstance(samples, (int, np.integer)) or samples < 1:
        raise ValueError(f"samples must be a positive integer, got {samples!r}")
    padded = np.zeros(5, dtype=np.int64)
    padded[: len(board)] = board
    # A uint64 scalar: numba hands mix64's result back as a Python int, which the dispatcher would type as
    # int64 below 2**63 (compiling a second, wrong specialisation) and reject above it.
    key = np.uint64(mix64(np.uint64((int(seed) + int(GOLDEN)) % 2**64)))
    return float(hand_strength_kernel(cards[0], cards[1], padded, len(board), samples, key))
