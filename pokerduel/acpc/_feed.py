"""The client's hot path in numba: parse a chunk of dealer lines, check them, play the player's turns.

One call handles every line of a ``recv`` (Python then only moves bytes), doing what
``client.ReferenceSession.handle`` does line by line in Python: the same checks in the same order,
failures returned as a negative code that ``client`` turns into the reference's message. The state
between lines lives in ``ctx`` (fields ``C_*``) and ``prev`` (the betting and cards of the last line).
"""

from __future__ import annotations

import numpy as np

from ..engine.rules import (
    CALL,
    FOLD,
    OK,
    RAISE,
    S_ACTIONS,
    S_ACTOR,
    S_FINISHED,
    S_FOLDED,
    S_ROUND,
)
from ..infra.jit import kernel
from .agent import agent_act, agent_finish, apply_token, hand_keys, start_hand

# ctx fields
(C_HAND, C_POS, C_IN_HAND, C_BET_LEN, C_N_ROUND, C_CARDS_LEN, C_N_GROUPS, C_OPP_SHOWN, C_OWN0, C_OWN1,
 C_BANK, C_PAIRS, C_PAYOFF, C_REPAIRED, C_REPLIED, C_OUT_LEN, C_LINE_START, C_LINE_END, C_HS_SAMPLES,
 C_DETAIL) = range(20)
CTX_SIZE = 20
MAX_FIELD = 4096  # longest betting or cards field kept for the prefix checks

# error codes (negative); ``client.ERRORS`` holds their messages
(E_MALFORMED, E_ASCII, E_POSITION, E_HOLES, E_BOARD, E_CARD, E_REPEATED, E_OWN_MISSING, E_OVER,
 E_BACKWARDS, E_NOT_OVER, E_POS_CHANGED, E_EXTEND, E_LIMIT, E_BETTING, E_AFTER_END, E_ROUND, E_ILLEGAL,
 E_ROUNDS_SHOWN, E_BOARD_ROUNDS, E_SHOWDOWN, E_OWN_CHANGED, E_BOARD_GONE, E_LONG, E_N_ROUNDS) = range(-1, -26, -1)

_RANK = np.full(256, -1, dtype=np.int64)
_SUIT = np.full(256, -1, dtype=np.int64)
for _i, _ch in enumerate("23456789TJQKA"):
    _RANK[ord(_ch)] = _i
    _RANK[ord(_ch.lower())] = _i
for _i, _ch in enumerate("cdhs"):
    _SUIT[ord(_ch)] = _i
    _SUIT[ord(_ch.upper())] = _i
_BOARD_SIZES = np.array([3, 1, 1], dtype=np.int64)
_COLON, _BAR, _SLASH, _NL, _CR = 58, 124, 47, 10, 13
_PREFIX = np.frombuffer(b"MATCHSTATE:", dtype=np.uint8).copy()


@kernel
def _find(data, s, e, ch):
    """Index of the first ``ch`` in ``data[s:e]``, or -1."""
    for t in range(s, e):
        if data[t] == ch:
            return t
    return -1


@kernel
def _number(data, s, e):
    """The decimal number ``data[s:e]`` (1 to 9 digits), or -1."""
    if (e <= s) | (e - s > 9):
        return -1
    v = 0
    for t in range(s, e):
        d = np.int64(data[t]) - 48
        if (d < 0) | (d > 9):
            return -1
        v = v * 10 + d
    return v


@kernel
def _put_int(buf, o, v):
    """Write the non-negative integer ``v`` in decimal at ``buf[o:]``; return the index after it."""
    digits = 1
    x = v
    while x >= 10:
        x //= 10
        digits += 1
    x = v
    for k in range(digits - 1, -1, -1):
        buf[o + k] = 48 + x % 10
        x //= 10
    return o + digits


@kernel
def _card(data, t):
    r = _RANK[data[t]]
    s = _SUIT[data[t + 1]]
    return choose_card(r, s)


@kernel
def choose_card(r, s):
    if (r < 0) | (s < 0):
        return -1
    return r * 4 + s


@kernel
def parse_cards(data, s, e, tmp):
    """Cards field ``data[s:e]`` into ``tmp`` (hole 0, hole 1, board; -1 where hidden).

    Returns ``(code, n_groups)``: code 0, or ``E_HOLES``, ``E_BOARD``, ``E_CARD``, ``E_REPEATED``.
    """
    for i in range(9):
        tmp[i] = -1
    bar = -1
    t = s
    while (t < e) and (data[t] != _SLASH):
        if data[t] == _BAR:
            if bar >= 0:
                return E_HOLES, 0
            bar = t
        t += 1
    if bar < 0:
        return E_HOLES, 0
    used = np.uint64(0)
    for h in range(2):
        hs_ = s if h == 0 else bar + 1
        he = bar if h == 0 else t
        if he - hs_ == 0:
            continue
        if he - hs_ != 4:
            return E_HOLES, 0
        for k in range(2):
            c = _card(data, hs_ + 2 * k)
            if c < 0:
                return E_CARD, 0
            bit = np.uint64(1) << np.uint64(c)
            if used & bit:
                return E_REPEATED, 0
            used |= bit
            tmp[2 * h + k] = c
    g = 0
    nb = 0
    while t < e:
        t += 1  # the '/'
        gs = t
        while (t < e) and (data[t] != _SLASH):
            if data[t] == _BAR:
                return E_HOLES, 0
            t += 1
        if g >= 3:
            return E_BOARD, 0
        if t - gs != 2 * _BOARD_SIZES[g]:
            return E_BOARD, 0
        for k in range(_BOARD_SIZES[g]):
            c = _card(data, gs + 2 * k)
            if c < 0:
                return E_CARD, 0
            bit = np.uint64(1) << np.uint64(c)
            if used & bit:
                return E_REPEATED, 0
            used |= bit
            tmp[4 + nb] = c
            nb += 1
        g += 1
    return 0, g


@kernel
def _new_hand(ctx, hand, pos, tmp, rng_key, st, hist, hs, cards, rng, keys):
    start_hand(st, hist, hs, cards)
    pairs = ctx[C_PAIRS] != 0
    deal = hand // 2 if pairs else hand
    half = hand % 2 if pairs else 0
    hand_keys(rng_key, deal, half, pos, rng, keys)
    cards[2 * pos] = tmp[2 * pos]
    cards[2 * pos + 1] = tmp[2 * pos + 1]
    ctx[C_HAND] = hand
    ctx[C_POS] = pos
    ctx[C_IN_HAND] = 1
    ctx[C_BET_LEN] = 0
    ctx[C_N_ROUND] = 0
    ctx[C_CARDS_LEN] = -1  # parse the cards below
    ctx[C_N_GROUPS] = 0
    ctx[C_OPP_SHOWN] = 0
    ctx[C_OWN0] = tmp[2 * pos]
    ctx[C_OWN1] = tmp[2 * pos + 1]
    ctx[C_BANK] = half
    ctx[C_REPLIED] = -1


@kernel
def handle_line(data, a, b, ctx, prev, tmp, kind, params, imem, fmem, st, cards, hist, hs, keys, rng_key, rng,
                out):
    """One line ``data[a:b]`` (no end of line): 0, 1 when it finished a hand, or a negative error code."""
    for t in range(a, b):
        if data[t] >= 128:
            return E_ASCII
    if b - a < 11:
        return E_MALFORMED
    for t in range(11):
        if data[a + t] != _PREFIX[t]:
            return E_MALFORMED
    c1 = _find(data, a + 11, b, _COLON)
    c2 = _find(data, c1 + 1, b, _COLON) if c1 >= 0 else -1
    c3 = _find(data, c2 + 1, b, _COLON) if c2 >= 0 else -1
    if c3 < 0:
        return E_MALFORMED
    if _find(data, c3 + 1, b, _COLON) >= 0:
        return E_MALFORMED
    pos = _number(data, a + 11, c1)
    hand = _number(data, c1 + 1, c2)
    if (pos < 0) | (hand < 0):
        return E_MALFORMED
    if pos > 1:
        return E_POSITION
    if (c3 - c2 - 1 > MAX_FIELD) | (b - c3 - 1 > MAX_FIELD):
        return E_LONG
    if hand != ctx[C_HAND]:
        if ctx[C_IN_HAND] != 0:
            return E_NOT_OVER
        if hand < ctx[C_HAND]:
            return E_BACKWARDS
        code, _ = parse_cards(data, c3 + 1, b, tmp)
        if code != 0:
            return code
        if tmp[2 * pos] < 0:
            return E_OWN_MISSING
        _new_hand(ctx, hand, pos, tmp, rng_key, st, hist, hs, cards, rng, keys)
    elif ctx[C_IN_HAND] == 0:
        return E_OVER
    elif pos != ctx[C_POS]:
        return E_POS_CHANGED
    # the betting must extend the last line's
    bs = c2 + 1
    blen = c3 - bs
    old = ctx[C_BET_LEN]
    if blen < old:
        return E_EXTEND
    for t in range(old):
        if data[bs + t] != prev[t]:
            return E_EXTEND
    if blen != old:
        # syntax of the new part first (as the reference checks the whole string before applying)
        t = bs + old
        rnd = ctx[C_N_ROUND]
        while t < c3:
            ch = data[t]
            if ch == _SLASH:
                rnd += 1
                t += 1
                continue
            if (ch == 102) | (ch == 99):  # 'f', 'c'
                t += 1
                continue
            if ch == 114:  # 'r'
                u = t + 1
                while (u < c3) and (data[u] >= 48) and (data[u] <= 57):
                    u += 1
                if u == t + 1:
                    return E_LIMIT
                if u - t - 1 > 9:
                    return E_BETTING
                t = u
                continue
            return E_BETTING
        if rnd > 3:
            return E_N_ROUNDS
        t = bs + old
        rnd = ctx[C_N_ROUND]
        while t < c3:
            ch = data[t]
            if ch == _SLASH:
                rnd += 1
                t += 1
                continue
            amount = 0
            if ch == 102:
                action = FOLD
                t += 1
            elif ch == 99:
                action = CALL
                t += 1
            else:
                u = t + 1
                while (u < c3) and (data[u] >= 48) and (data[u] <= 57):
                    u += 1
                amount = _number(data, t + 1, u)
                action = RAISE
                t = u
            if st[S_FINISHED] != 0:
                return E_AFTER_END
            if rnd != st[S_ROUND]:
                ctx[C_DETAIL] = rnd
                return E_ROUND
            status, _, _, _, _ = apply_token(st, hist, action, amount)
            if status != OK:
                return E_ILLEGAL
        for t in range(old, blen):
            prev[t] = data[bs + t]
        ctx[C_BET_LEN] = blen
        ctx[C_N_ROUND] = rnd
    if ctx[C_N_ROUND] != st[S_ROUND]:
        return E_ROUNDS_SHOWN
    # cards: parsed again only when they changed (new hand, new board round, showdown)
    cs = c3 + 1
    clen = b - cs
    same = clen == ctx[C_CARDS_LEN]
    if same:
        for t in range(clen):
            if data[cs + t] != prev[MAX_FIELD + t]:
                same = False
                break
    if not same:
        code, n_groups = parse_cards(data, cs, b, tmp)
        if code != 0:
            return code
        p = ctx[C_POS]
        if (tmp[2 * p] != ctx[C_OWN0]) | (tmp[2 * p + 1] != ctx[C_OWN1]):
            return E_OWN_CHANGED
        if n_groups < ctx[C_N_GROUPS]:
            return E_BOARD_GONE
        o = 1 - p
        if tmp[2 * o] >= 0:
            cards[2 * o] = tmp[2 * o]
            cards[2 * o + 1] = tmp[2 * o + 1]
            ctx[C_OPP_SHOWN] = 1
        nb = 0 if n_groups == 0 else n_groups + 2
        for i in range(nb):
            cards[4 + i] = tmp[4 + i]
        for t in range(clen):
            prev[MAX_FIELD + t] = data[cs + t]
        ctx[C_CARDS_LEN] = clen
        ctx[C_N_GROUPS] = n_groups
    if ctx[C_N_GROUPS] != st[S_ROUND]:
        return E_BOARD_ROUNDS
    pos = ctx[C_POS]
    if st[S_FINISHED] != 0:
        if (st[S_FOLDED] < 0) & (ctx[C_OPP_SHOWN] == 0):
            return E_SHOWDOWN
        ctx[C_PAYOFF] = agent_finish(kind, params, imem, fmem, ctx[C_BANK], pos, st, cards, hist, hs, keys[0],
                                     ctx[C_HS_SAMPLES])
        ctx[C_IN_HAND] = 0
        return 1
    if (st[S_ACTOR] != pos) | (ctx[C_REPLIED] == st[S_ACTIONS]):
        return 0
    action, amount, repaired = agent_act(kind, params, imem, fmem, ctx[C_BANK], pos, st, cards, hist, hs,
                                         keys[0], ctx[C_HS_SAMPLES], rng)
    ctx[C_REPAIRED] += repaired
    ctx[C_REPLIED] = st[S_ACTIONS]
    o = ctx[C_OUT_LEN]
    if o + (b - a) + 16 > out.shape[0]:
        return E_LONG
    for t in range(a, b):
        out[o] = data[t]
        o += 1
    out[o] = _COLON
    o += 1
    if action == FOLD:
        out[o] = 102
        o += 1
    elif action == CALL:
        out[o] = 99
        o += 1
    else:
        out[o] = 114
        o = _put_int(out, o + 1, amount)
    out[o] = _CR
    out[o + 1] = _NL
    ctx[C_OUT_LEN] = o + 2
    return 0


@kernel
def feed(data, start, end, ctx, prev, tmp, kind, params, imem, fmem, st, cards, hist, hs, keys, rng_key, rng, out):
    """Handle the complete lines of ``data[start:end]``; returns ``(code, next start)``.

    Stops after a line that finished a hand (code 1, so Python can record it), at the first error
    (negative code; ``ctx[C_LINE_START:C_LINE_END]`` is the line), or when only a partial line is left
    (code 0). Replies are appended to ``out[:ctx[C_OUT_LEN]]``.
    """
    i = start
    while i < end:
        j = _find(data, i, end, _NL)
        if j < 0:
            return 0, i
        k = j
        if (k > i) and (data[k - 1] == _CR):
            k -= 1
        ctx[C_LINE_START] = i
        ctx[C_LINE_END] = k
        code = handle_line(data, i, k, ctx, prev, tmp, kind, params, imem, fmem, st, cards, hist, hs, keys,
                           rng_key, rng, out)
        if code < 0:
            return code, i
        i = j + 1
        if code == 1:
            return 1, i
    return 0, i
