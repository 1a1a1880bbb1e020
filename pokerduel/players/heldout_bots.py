"""Rule-based bots of the held-out test panel, as numba kernels.

These bots measure whether evolved players generalise: no preset or default ever trains against them
(the training opponents are the ASHE 1.0 bots), so a player's result against them shows how it does
against styles it never met. Each plays a recognisable human style from the hand strength ``hs``
(P(win) + P(tie)/2 against a random hand, the input the ASHE 1.0 bots use):

* ``tight_aggressive_act``: plays few hands and bets or raises them;
* ``loose_passive_act``: calls nearly everything, raises only near-nut hands;
* ``bluffer_act``: polarised, big bets with weak hands at a set frequency, small value bets;
* ``check_raiser_act``: never bets first, raises when bet into (check-raises out of position);
* ``pot_odds_act``: calls when the hand strength beats the pot odds, raises well above them.

Each kernel takes the betting state ``st``, the acting position, the legal raise-to range ``lo, hi``
(``-1`` when no raise is legal), the hand strength and its rule constants, and returns ``(action,
amount)`` with ``amount`` the raise-to total; every returned action is legal. Raise sizes are in half
pots after calling (``pot_raise_to``), clamped to the legal range, so a size beyond the stack is the
all-in. Random choices draw from the player's generator word ``rng`` (``next_u64``) as the random bot
does, so a seed gives the same hands every time.
"""

from __future__ import annotations

import numpy as np

from ..engine.decks import next_u64
from ..engine.rules import BIG_BLIND, CALL, FOLD, RAISE, S_MAX_SPENT, S_ROUND, S_ROUND_ACTIONS, pot, to_call
from ..infra.jit import kernel
from .bots import pot_raise_to

_UNIT = 1.0 / 9007199254740992.0  # 2**-53: a 53-bit integer times this is uniform on [0, 1)


@kernel
def chance(rng, p):
    """True with probability ``p``: one draw of the player's generator (53 bits, as exact as a float allows)."""
    return np.float64(next_u64(rng) >> np.uint64(11)) * _UNIT < p


@kernel
def facing_raise(st, pos):
    """The player must add chips to stay in, and not only the big blind (preflop the blinds are no raise)."""
    return (to_call(st, pos) > 0) & ((st[S_ROUND] != 0) | (st[S_MAX_SPENT] > BIG_BLIND))


@kernel
def fold_or_check(st, pos):
    """Give up: fold when there is something to call, otherwise check (folding is illegal then)."""
    if to_call(st, pos) > 0:
        return FOLD, 0
    return CALL, 0


@kernel
def raise_pots(st, pos, lo, hi, halves):
    """Raise ``halves / 2`` pots after calling, clamped to the legal range; call when no raise is legal."""
    if lo < 0:
        return CALL, 0
    return RAISE, min(max(pot_raise_to(st, pos, np.int64(halves)), lo), hi)


@kernel
def tight_aggressive_act(st, pos, lo, hi, hs, play_pre, strong_pre, play_post, strong_post, halves):
    """Tight-aggressive: a hand below the street's ``play`` threshold folds to any bet (checks when free);
    a playable hand bets or raises ``halves / 2`` pots when not facing a raise (preflop: opens, or raises a
    limp) and calls a raise, re-raising the same size only at or above the street's ``strong`` threshold.

    Preflop thresholds ``play_pre, strong_pre`` (defaults 0.57 and 0.65: about the best 25 % and 5 % of
    starting hands), postflop ``play_post, strong_post``. Preflop the button's first decision faces only
    the big blind: a weak hand folds there rather than limping.
    """
    pre = st[S_ROUND] == 0
    play = play_pre if pre else play_post
    strong = strong_pre if pre else strong_post
    if hs < play:
        return fold_or_check(st, pos)
    if facing_raise(st, pos) & (hs < strong):
        return CALL, 0
    return raise_pots(st, pos, lo, hi, halves)


@kernel
def loose_passive_act(st, pos, lo, hi, hs, fold_below, large, nuts, halves):
    """Loose-passive: raises ``halves / 2`` pots only with ``hs >= nuts``; folds only a hand below
    ``fold_below`` facing a large bet, one of at least ``large`` times the pot it was made into
    (``x >= large * (P - x)``, ``x`` to call, ``P`` the pot); checks or calls everything else.
    """
    if (hs >= nuts) & (lo >= 0):
        return raise_pots(st, pos, lo, hi, halves)
    x = to_call(st, pos)
    if (x > 0) & (hs < fold_below) & (x >= large * (pot(st) - x)):
        return FOLD, 0
    return CALL, 0


@kernel
def bluffer_act(st, pos, lo, hi, hs, weak, strong, bluff, shove, bluff_halves, value_halves, rng):
    """Bluffer, a polarised bettor: big bets with weak hands, small bets with strong ones, calls with the rest.

    * ``hs < weak``: with probability ``bluff`` (one draw) bets or raises big: all-in with probability
      ``shove`` (a second draw), otherwise ``bluff_halves / 2`` pots; else it folds to a bet or checks.
      Draws happen only at decisions where a raise is legal; without one a weak hand gives up.
    * ``weak <= hs < strong``: checks or calls.
    * ``hs >= strong``: bets or raises ``value_halves / 2`` pots (half a pot by default), calls when no raise is legal.
    """
    if hs >= strong:
        return raise_pots(st, pos, lo, hi, value_halves)
    if hs >= weak:
        return CALL, 0
    if lo >= 0:
        if chance(rng, bluff):
            if chance(rng, shove):
                return RAISE, hi
            return raise_pots(st, pos, lo, hi, bluff_halves)
    return fold_or_check(st, pos)


@kernel
def check_raise_spot(st, pos):
    """Postflop, the player acts first (position 0), checked, and now faces a bet: the check-raise spot."""
    return (st[S_ROUND] > 0) & (pos == 0) & (st[S_ROUND_ACTIONS] == 2) & (to_call(st, pos) > 0)


@kernel
def check_raiser_act(st, pos, lo, hi, hs, medium, strong, bluff, halves, rng):
    """Check-raiser: never bets or raises first; when bet into, raises big with strong hands.

    * Nothing to call, or preflop only the big blind to call: checks; the button limps a hand with
      ``hs >= medium`` and folds the rest (it never opens with a raise).
    * Facing a bet or raise: ``hs >= strong`` raises ``halves / 2`` pots (two by default); ``medium <= hs <
      strong`` calls; a weaker hand folds, except in the check-raise spot (postflop, first to act, it
      checked and faces a bet) where it raises the same size as a bluff with probability ``bluff`` (one draw).
    """
    if not facing_raise(st, pos):
        if (to_call(st, pos) > 0) & (hs < medium):
            return FOLD, 0  # the button's weak hands preflop
        return CALL, 0
    if hs >= strong:
        return raise_pots(st, pos, lo, hi, halves)
    if hs >= medium:
        return CALL, 0
    if check_raise_spot(st, pos) & (lo >= 0):
        if chance(rng, bluff):
            return raise_pots(st, pos, lo, hi, halves)
    return FOLD, 0


@kernel
def pot_odds_act(st, pos, lo, hi, hs, margin, halves):
    """Pot-odds player: with ``q = x / (P + x)`` the share of the final pot it must pay (``x`` to call,
    ``P`` the pot; 0 when checking is free), folds when ``hs < q``, raises ``halves / 2`` pots when
    ``hs >= q + margin * (1 - q)``, and otherwise checks or calls.
    """
    x = to_call(st, pos)
    q = x / (pot(st) + x)
    if hs < q:
        return FOLD, 0  # q > 0 here, so there is something to call
    if (hs >= q + margin * (1.0 - q)) & (lo >= 0):
        return raise_pots(st, pos, lo, hi, halves)
    return CALL, 0

