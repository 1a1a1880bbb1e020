"""The dealer's hot path in numba: write the state lines, read the acting seat's reply, apply it.

Python keeps the sockets, the warnings and the log; per decision it makes one ``emit`` call (both
seats' state lines into their output buffers) and one ``take`` call per received line. The hand's
scalars live in ``hctx`` (fields ``H_*``), its betting string in ``bet``, its card text in ``ctext``
(hole 0, hole 1, then ``/flop/turn/river``) and the line the actor must echo in ``expect``.
"""

from __future__ import annotations

import numpy as np

from ..engine.rules import (
    CALL,
    FOLD,
    RAISE,
    S_ACTOR,
    S_FINISHED,
    S_MAX_SPENT,
    S_ROUND,
    S_SPENT0,
    apply_legal,
    clamp_action,
    legal_bit,
    new_hand,
    raise_range,
)
from ..infra.jit import kernel
from ._feed import _find, _number, _put_int

(H_HAND, H_ROUND, H_ACTOR, H_FINISHED, H_BLEN, H_ELEN, H_NEXT, H_LINE_START, H_LINE_END, H_ASKED, H_AMOUNT,
 H_ACTION, H_SIZE, H_REPAIRED) = range(14)
HCTX_SIZE = 14
BET_SIZE = 4096  # a hand's betting string is at most about 1,600 characters
NEED, DONE, OTHER = 0, 1, 2  # ``take`` results

_RANKS = np.frombuffer(b"23456789TJQKA", dtype=np.uint8).copy()
_SUITS = np.frombuffer(b"cdhs", dtype=np.uint8).copy()
_PREFIX = np.frombuffer(b"MATCHSTATE:", dtype=np.uint8).copy()
_BOARD_LEN = np.array([0, 7, 10, 13], dtype=np.int64)  # characters of ``/flop/turn/river`` shown per round


@kernel
def dealer_step(st, action, amount):
    """Repair (as the ACPC dealer) and apply the acting seat's action.

    Returns ``(action, raise-to or 0, repaired, round, actor, finished)`` after the action.
    """
    lo, hi = raise_range(st)
    repaired = 0
    if legal_bit(st[S_MAX_SPENT] - st[S_SPENT0 + st[S_ACTOR]], lo, hi, action, amount) == 0:
        action, amount = clamp_action(st, action, amount)
        repaired = 1
    size = amount if action == RAISE else 0
    apply_legal(st, action, size)
    return action, size, repaired, st[S_ROUND], st[S_ACTOR], st[S_FINISHED]


@kernel
def begin_hand(hctx, st, hand, c, ctext):
    """Start hand ``hand`` on the deal's nine cards ``c``: fresh betting, the card text written once."""
    new_hand(st)
    hctx[H_HAND] = hand
    hctx[H_ROUND] = 0
    hctx[H_ACTOR] = st[S_ACTOR]
    hctx[H_FINISHED] = 0
    hctx[H_BLEN] = 0
    o = 0
    for i in range(9):
        if (i == 4) | (i == 7) | (i == 8):  # the '/' before the flop, turn and river
            ctext[o] = 47
            o += 1
        ctext[o] = _RANKS[c[i] >> 2]
        ctext[o + 1] = _SUITS[c[i] & 3]
        o += 2


@kernel
def _state_line(buf, o, pos, hand, bet, blen, ctext, rnd, both):
    """Write ``MATCHSTATE:pos:hand:betting:cards`` at ``buf[o:]``; return the end."""
    for t in range(11):
        buf[o + t] = _PREFIX[t]
    o += 11
    buf[o] = 48 + pos
    buf[o + 1] = 58
    o = _put_int(buf, o + 2, hand)
    buf[o] = 58
    o += 1
    for t in range(blen):
        buf[o + t] = bet[t]
    o += blen
    buf[o] = 58
    o += 1
    if both | (pos == 0):
        for t in range(4):
            buf[o + t] = ctext[t]
        o += 4
    buf[o] = 124
    o += 1
    if both | (pos == 1):
        for t in range(4):
            buf[o + t] = ctext[4 + t]
        o += 4
    for t in range(_BOARD_LEN[rnd]):
        buf[o + t] = ctext[8 + t]
    return o + _BOARD_LEN[rnd]


@kernel
def emit(hctx, out, olen, bet, ctext, expect):
    """Append the current state line to both seats' output (seat ``s`` sits at position ``(s + hand) % 2``);
    the actor's line goes to ``expect`` too. After the hand, both hole-card pairs show if it was a showdown."""
    hand = hctx[H_HAND]
    finished = hctx[H_FINISHED] != 0
    both = finished & (hctx[H_ACTION] != FOLD)
    for pos in range(2):
        seat = (pos + hand) % 2
        start = olen[seat]
        o = _state_line(out[seat], start, pos, hand, bet, hctx[H_BLEN], ctext, hctx[H_ROUND], both)
        if (not finished) & (pos == hctx[H_ACTOR]):
            for t in range(start, o):
                expect[t - start] = out[seat, t]
            hctx[H_ELEN] = o - start
        out[seat, o] = 13
        out[seat, o + 1] = 10
        olen[seat] = o + 2


@kernel
def take(inbuf, start, end, hctx, expect, st, bet):
    """Look at the next line in ``inbuf[start:end]``: ``NEED`` (no complete line), ``OTHER`` (not an answer
    to ``expect``: Python decides what to warn), or ``DONE`` (the action applied, ``hctx`` updated).

    An answer whose action does not parse is asked as action -1, which ``dealer_step`` turns into a call
    and counts as invalid.
    """
    j = _find(inbuf, start, end, 10)
    if j < 0:
        hctx[H_NEXT] = start
        return NEED
    k = j
    while (k > start) and (inbuf[k - 1] == 13):
        k -= 1
    hctx[H_LINE_START] = start
    hctx[H_LINE_END] = k
    hctx[H_NEXT] = j + 1
    elen = hctx[H_ELEN]
    if k - start < elen:
        return OTHER
    for t in range(elen):
        if inbuf[start + t] != expect[t]:
            return OTHER
    a = start + elen
    if (a < k) and (inbuf[a] != 58):
        return OTHER
    a += 1
    asked = -1
    amount = 0
    if k - a == 1:
        if inbuf[a] == 102:
            asked = FOLD
        elif inbuf[a] == 99:
            asked = CALL
    elif (k - a >= 2) and (inbuf[a] == 114):
        v = _number(inbuf, a + 1, k)
        if v >= 0:
            asked = RAISE
            amount = v
    hctx[H_ASKED] = asked
    hctx[H_AMOUNT] = amount
    rnd0 = st[S_ROUND]
    action, size, repaired, rnd, actor, finished = dealer_step(st, asked, amount)
    b = hctx[H_BLEN]
    if action == FOLD:
        bet[b] = 102
        b += 1
    elif action == CALL:
        bet[b] = 99
        b += 1
    else:
        bet[b] = 114
        b = _put_int(bet, b + 1, size)
    for _ in range(rnd - rnd0):
        bet[b] = 47
        b += 1
    hctx[H_BLEN] = b
    hctx[H_ACTION] = action
    hctx[H_SIZE] = size
    hctx[H_REPAIRED] = repaired
    hctx[H_ROUND] = rnd
    hctx[H_ACTOR] = actor
    hctx[H_FINISHED] = finished
    return DONE
