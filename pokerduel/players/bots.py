"""Rule-based bots of ASHE 1.0 (Li & Miikkulainen 2017, Algorithms 1-5) and a random bot, as numba kernels.

Each kernel takes the betting state ``st`` and the acting position and returns ``(action, amount)``
with ``amount`` the raise-to total; every returned action is legal.
"""

from __future__ import annotations

import numba
import numpy as np

from ..engine.decks import next_below
from ..engine.rules import (
    BIG_BLIND, CALL, FOLD, RAISE, S_MAX_SPENT, S_ROUND, S_ROUND_ACTIONS, S_SPENT0, STACK,
    pot, raise_range, to_call,
)

POT_FRACTIONS = (0.5, 1.0, 1.5, 2.0)  # ASHE's own raise sizes, plus all-in


@numba.njit(cache=True, inline="always")
def pot_raise_to(st, pos, frac):
    """Raise-to total for a raise of ``frac`` times the pot after calling (pot-limit convention)."""
    x = to_call(st, pos)
    return st[S_MAX_SPENT] + np.int64(frac * (pot(st) + x) + 0.5)


@numba.njit(cache=True)
def random_act(st, pos, rng):
    """Uniform over the distinct legal actions among fold, check/call, raise 0.5/1/1.5/2 pot and all-in."""
    can_fold = to_call(st, pos) > 0
    lo, hi = raise_range(st)
    n_fixed = 2 if can_fold else 1
    if lo < 0:
        k = next_below(rng, n_fixed)
        return (FOLD, 0) if (can_fold and k == 0) else (CALL, 0)
    r0 = min(max(pot_raise_to(st, pos, 0.5), lo), hi)
    r1 = min(max(pot_raise_to(st, pos, 1.0), lo), hi)
    r2 = min(max(pot_raise_to(st, pos, 1.5), lo), hi)
    r3 = min(max(pot_raise_to(st, pos, 2.0), lo), hi)
    # Sizes are non-decreasing, so distinct sizes are those that differ from their predecessor.
    n_raise = 1 + (r1 != r0) + (r2 != r1) + (r3 != r2) + (hi != r3)
    k = next_below(rng, n_fixed + n_raise)
    if k < n_fixed:
        return (FOLD, 0) if (can_fold and k == 0) else (CALL, 0)
    k -= n_fixed
    for r, fresh in ((r0, True), (r1, r1 != r0), (r2, r2 != r1), (r3, r3 != r2), (hi, hi != r3)):
        if fresh:
            if k == 0:
                return RAISE, r
            k -= 1
    return RAISE, hi


@numba.njit(cache=True)
def algorithm1(st, pos, o):
    """ASHE 1.0 Algorithm 1: commit up to ``y = o * stack`` extra chips, raises rounded to whole big blinds."""
    y = o * STACK
    x = to_call(st, pos)
    if y < x:
        return (FOLD, 0) if x > 0 else (CALL, 0)
    lo, hi = raise_range(st)
    if lo < 0 or y < x + (lo - st[S_MAX_SPENT]):
        return CALL, 0
    k = np.int64(y / BIG_BLIND + 0.5)
    target = st[S_SPENT0 + pos] + k * BIG_BLIND
    return RAISE, min(max(target, lo), hi)


@numba.njit(cache=True)
def calling_machine_act(st, pos):
    """Check if possible, otherwise call."""
    return CALL, 0


@numba.njit(cache=True)
def scared_limper_act(st, pos, hs, exponent):
    """Limp on the button preflop; otherwise Algorithm 1 with ``o = hs ** exponent`` (50 in the paper)."""
    if st[S_ROUND] == 0 and pos == 1 and st[S_ROUND_ACTIONS] == 0:
        return CALL, 0
    return algorithm1(st, pos, hs**exponent)


@numba.njit(cache=True)
def candid_statistician_act(st, pos, hs, exponent):
    """Bet honestly: Algorithm 1 with ``o = hs ** exponent`` (7 in the paper)."""
    return algorithm1(st, pos, hs**exponent)


@numba.njit(cache=True)
def hothead_maniac_act(st, pos, unraised_frac, raised_frac):
    """Raise the pot when not facing a raise (a limp, a check, only the blinds); re-raise twice the pot when raised.

    The blinds alone do not count as a raise. When no raise is legal it calls.
    """
    lo, hi = raise_range(st)
    if lo < 0:
        return CALL, 0
    x = to_call(st, pos)
    facing_raise = x > 0 and not (st[S_ROUND] == 0 and st[S_MAX_SPENT] <= BIG_BLIND)
    frac = raised_frac if facing_raise else unraised_frac
    return RAISE, min(max(pot_raise_to(st, pos, frac), lo), hi)
