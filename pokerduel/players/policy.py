"""Numba dispatch from a player's kind code to its kernels: ``act``, ``reset`` and ``observe``."""

from __future__ import annotations

from ..engine.decks import stream_key
from ..engine.rules import S_FOLDED, S_ROUND
from ..infra.jit import kernel
from .ashe import ashe_act, ashe_observe, ashe_reset
from .ashe1 import ashe1_act, ashe1_observe
from .base import (
    ASHE,
    ASHE1,
    BLUFFER,
    CALLING_MACHINE,
    CANDID_STATISTICIAN,
    CHECK_RAISER,
    HOTHEAD_MANIAC,
    LOOSE_PASSIVE,
    POT_ODDS,
    RANDOM,
    SCARED_LIMPER,
    TIGHT_AGGRESSIVE,
)
from .bots import (
    calling_machine_act,
    candid_statistician_act,
    hothead_maniac_act,
    random_act,
    scared_limper_act,
)
from .hand_strength import hand_strength_kernel
from .heldout_bots import bluffer_act, check_raiser_act, loose_passive_act, pot_odds_act, tight_aggressive_act


@kernel
def cached_strength(hs, hs_key, hs_samples, cards, pos, rnd):
    """Hand strength of position ``pos`` in round ``rnd``, computed once per deal (``hs`` < 0 means unset)."""
    if hs[pos, rnd] < 0.0:
        n_board = 0 if rnd == 0 else rnd + 2
        hs[pos, rnd] = hand_strength_kernel(
            cards[2 * pos], cards[2 * pos + 1], cards[4:9], n_board, hs_samples, stream_key(hs_key, pos, rnd)
        )
    return hs[pos, rnd]


@kernel(inline="always")
def act(kind, params, imem, fmem, bank, pos, st, lo, hi, cards, hist, hs, hs_key, hs_samples, rng):
    """The action ``(code, raise_to)`` of a player of ``kind`` at position ``pos``, memory bank ``bank``.

    ``cards`` holds both players' hole cards and the whole board (deal order); a kernel reads only its
    own hole cards and the board cards of the current round. ``hist[i] = (round, actor, action, amount)``
    for the ``st[S_ACTIONS]`` actions so far. ``lo, hi`` is the legal raise-to range (-1 if none).
    """
    if kind == RANDOM:
        return random_act(st, pos, lo, hi, rng)
    if kind == CALLING_MACHINE:
        return calling_machine_act(st, pos)
    if kind == HOTHEAD_MANIAC:
        return hothead_maniac_act(st, pos, lo, hi, params[0], params[1])
    return _act_with_strength(kind, params, imem, fmem, bank, pos, st, lo, hi, cards, hist, hs, hs_key, hs_samples,
                              rng)


@kernel
def _act_with_strength(kind, params, imem, fmem, bank, pos, st, lo, hi, cards, hist, hs, hs_key, hs_samples, rng):
    """Kinds that decide from hand strength (kept out of ``act`` so the common path stays small); ``rng``
    is the player's generator word, for the held-out bots' random choices."""
    strength = cached_strength(hs, hs_key, hs_samples, cards, pos, st[S_ROUND])
    if kind == SCARED_LIMPER:
        return scared_limper_act(st, pos, lo, hi, strength, params[0])
    if kind == CANDID_STATISTICIAN:
        return candid_statistician_act(st, pos, lo, hi, strength, params[0])
    if kind == ASHE:
        return ashe_act(params, imem, fmem, bank, pos, st, lo, hi, hist, strength)
    if kind == ASHE1:
        return ashe1_act(params, imem, fmem, bank, pos, st, lo, hi, strength)
    if kind == TIGHT_AGGRESSIVE:
        return tight_aggressive_act(st, pos, lo, hi, strength, params[0], params[1], params[2], params[3], params[4])
    if kind == LOOSE_PASSIVE:
        return loose_passive_act(st, pos, lo, hi, strength, params[0], params[1], params[2], params[3])
    if kind == BLUFFER:
        return bluffer_act(st, pos, lo, hi, strength, params[0], params[1], params[2], params[3], params[4],
                           params[5], rng)
    if kind == CHECK_RAISER:
        return check_raiser_act(st, pos, lo, hi, strength, params[0], params[1], params[2], params[3], rng)
    if kind == POT_ODDS:
        return pot_odds_act(st, pos, lo, hi, strength, params[0], params[1])
    return -1, 0  # unknown kind: the match loop counts it as an invalid action


@kernel
def reset(kind, params, imem, fmem):
    """Clear a player's memory (one bank) for a new opponent or a new half of a duplicate match."""
    if kind == ASHE:
        ashe_reset(params, imem, fmem)
        return
    for j in range(imem.shape[0]):
        imem[j] = 0
    for j in range(fmem.shape[0]):
        fmem[j] = 0.0


@kernel(inline="always")
def observe(kind, params, imem, fmem, bank, pos, st, cards, hist, payoff, hs, hs_key, hs_samples):
    """End-of-hand update of memory bank ``imem[bank], fmem[bank]`` (the rule bots keep none).

    Opponent hole cards may be read only when the hand went to showdown (``st[S_FOLDED] < 0``); hand
    strengths come from the deal's cache (``cached_strength``), shared with ``act``. Inlined into the
    match loop so that players without memory cost one comparison, not a call.
    """
    if kind == ASHE:
        _observe_ashe(params, imem, fmem, bank, pos, st, cards, hist, payoff, hs, hs_key, hs_samples)
    elif kind == ASHE1:
        ashe1_observe(fmem, bank)


@kernel
def _observe_ashe(params, imem, fmem, bank, pos, st, cards, hist, payoff, hs, hs_key, hs_samples):
    showdown = st[S_FOLDED] < 0
    opp = cached_strength(hs, hs_key, hs_samples, cards, 1 - pos, 3) if showdown else -1.0
    ashe_observe(params, imem, fmem, bank, pos, st, hist, payoff, opp)
