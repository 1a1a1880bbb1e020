"""Rule-based bots of ASHE 1.0 (Li & Miikkulainen 2017, Algorithms 1-5) and a random bot, as numba kernels.

Each kernel takes the betting state ``st`` and the acting position and returns ``(action, amount)``
with ``amount`` the raise-to total; every returned action is legal.
"""

from __future__ import annotations

import numpy as np

from ..engine.decks import next_below
from ..engine.rules import (
    BIG_BLIND,
    CALL,
    FOLD,
    RAISE,
    S_MAX_SPENT,
    S_ROUND,
    S_ROUND_ACTIONS,
    S_SPENT0,
    S_SPENT1,
    STACK,
    choose,
    imax,
    imin,
    pot,
    to_call,
)
from ..infra.jit import kernel


@kernel
def pot_raise_to(st, pos, halves):
    """Raise-to total for a raise of ``halves / 2`` times the pot after calling (pot-limit convention)."""
    x = to_call(st, pos)
    return st[S_MAX_SPENT] + (halves * (pot(st) + x) + 1) // 2


# Number of the pot-fraction raises 2m, 3m, 4m, 5m below an all-in of STACK, by the amount m put in so far.
_POT_RAISES_BELOW_STACK = np.array([sum(j * m < STACK for j in (2, 3, 4, 5)) for m in range(STACK + 1)], np.int8)


@kernel(inline="always")
def random_act(st, pos, lo, hi, rng):
    """Uniform over the distinct legal actions among fold, check/call, raise 0.5/1/1.5/2 pot and all-in.

    In every state of a hand the player not to act has put in the most, ``m = S_MAX_SPENT``, and the
    minimum raise-to is at most ``2m`` (``m`` plus the round's largest increment or the big blind, neither
    above ``m``); the pot after calling is then ``2m`` and the four pot fractions are
    raises to ``2m, 3m, 4m, 5m``: those below the all-in are distinct legal sizes, the others are the
    all-in (``random_choice``). Any other state goes to ``random_act_general``; both draw the same way
    and agree everywhere.
    """
    m = st[S_MAX_SPENT]
    first = pos == 0
    if (choose(first, st[S_SPENT1], st[S_SPENT0]) != m) | ((lo >= 0) & ((hi != STACK) | (lo > 2 * m))):
        return random_act_general(st, pos, lo, hi, rng)
    return random_choice(m, m > choose(first, st[S_SPENT0], st[S_SPENT1]), lo >= 0, rng)


@kernel(inline="always")
def random_choice(m, facing_bet, can_raise, rng):
    """``random_act`` in a state of a hand where the player not to act has put in ``m``, the most.

    ``facing_bet``: the player to act has put in less (fold is legal); ``can_raise``: a raise is legal
    (the range is then up to STACK). Selects instead of branches: the choices are random, so branches
    would mispredict.
    """
    below = choose(can_raise, _POT_RAISES_BELOW_STACK[np.uint64(m)], -1)  # -1: no raise at all
    t = next_below(rng, 2 + facing_bet + below) + 1 - facing_bet  # 0 fold, 1 check/call, 2.. the (t-1)-th raise
    return imin(t, RAISE), choose(t >= 2, choose(t < below + 2, t * m, STACK), 0)


@kernel
def random_act_general(st, pos, lo, hi, rng):
    """``random_act`` for any state: the pot fractions clamped to ``lo..hi``, counted when distinct."""
    x = to_call(st, pos)
    n_fixed = 1 + (x > 0)
    unit = pot(st) + x
    base = st[S_MAX_SPENT]
    r0 = imin(imax(base + (unit + 1) // 2, lo), hi)
    r1 = imin(imax(base + unit, lo), hi)
    r2 = imin(imax(base + (3 * unit + 1) // 2, lo), hi)
    r3 = imin(imax(base + 2 * unit, lo), hi)
    # Sizes are non-decreasing; c_j counts the distinct ones among r0..r_j (none when no raise is legal).
    c1 = 1 + (r1 != r0)
    c2 = c1 + (r2 != r1)
    c3 = c2 + (r3 != r2)
    c4 = choose(lo >= 0, c3 + (hi != r3), 0)
    u = next_below(rng, n_fixed + c4)
    k = u - n_fixed
    size = choose(k < 1, r0, choose(k < c1, r1, choose(k < c2, r2, choose(k < c3, r3, hi))))
    action = choose(k >= 0, RAISE, choose(k == -1, CALL, FOLD))
    return action, choose(k >= 0, size, 0)


@kernel
def algorithm1(st, pos, lo, hi, o):
    """ASHE 1.0 Algorithm 1: commit up to ``y = o * stack`` extra chips, raises rounded to whole big blinds."""
    y = o * STACK
    x = to_call(st, pos)
    if y < x:
        return (FOLD, 0) if x > 0 else (CALL, 0)
    if (lo < 0) | (y < x + (lo - st[S_MAX_SPENT])):
        return CALL, 0
    k = np.int64(y / BIG_BLIND + 0.5)
    target = st[S_SPENT0 + pos] + k * BIG_BLIND
    return RAISE, min(max(target, lo), hi)


@kernel
def algorithm1_pot(st, pos, lo, hi, o):
    """Algorithm 1 with ASHE 1.0's adjustments for Slumbot (its §4.3): a raise of less than a quarter of the pot
    is played as a call, and a raise is the nearest of 0.5, 1, 1.5 and 2 pots or all-in.

    "The pot" is the pot once the player has called (a pot-size raise is then the usual one); the raise wanted
    is ``y - x``, the chips committed beyond the call.
    """
    y = o * STACK
    x = to_call(st, pos)
    if y < x:
        return (FOLD, 0) if x > 0 else (CALL, 0)
    p = np.float64(pot(st) + x)
    want = y - x
    if (lo < 0) | (want < 0.25 * p):
        return CALL, 0
    best = np.float64(hi - st[S_MAX_SPENT])  # all-in
    for k in range(1, 5):
        size = 0.5 * k * p
        if abs(size - want) < abs(best - want):
            best = size
    target = st[S_MAX_SPENT] + np.int64(best + 0.5)
    return RAISE, min(max(target, lo), hi)


@kernel
def calling_machine_act(st, pos):
    """Check if possible, otherwise call."""
    return CALL, 0


@kernel
def scared_limper_act(st, pos, lo, hi, hs, exponent):
    """Limp on the button preflop; otherwise Algorithm 1 with ``o = hs ** exponent`` (50 in the paper)."""
    if (st[S_ROUND] == 0) & (pos == 1) & (st[S_ROUND_ACTIONS] == 0):
        return CALL, 0
    return algorithm1(st, pos, lo, hi, hs**exponent)


@kernel
def candid_statistician_act(st, pos, lo, hi, hs, exponent):
    """Bet honestly: Algorithm 1 with ``o = hs ** exponent`` (7 in the paper)."""
    return algorithm1(st, pos, lo, hi, hs**exponent)


@kernel
def hothead_maniac_act(st, pos, lo, hi, unraised_halves, raised_halves):
    """Raise the pot when not facing a raise (a limp, a check, only the blinds); re-raise twice the pot when raised.

    Sizes are in half pots (2 and 4 by default). The blinds alone do not count as a raise. When no raise
    is legal it calls.
    """
    if lo < 0:
        return CALL, 0
    x = to_call(st, pos)
    preflop_unraised = (st[S_ROUND] == 0) & (st[S_MAX_SPENT] <= BIG_BLIND)
    facing_raise = (x > 0) & (not preflop_unraised)
    halves = np.int64(raised_halves if facing_raise else unraised_halves)
    return RAISE, min(max(pot_raise_to(st, pos, halves), lo), hi)
