"""Duplicate matches in nopython mode: one score sample per deal, the deal played twice with seats swapped.

Half 0 of a deal seats player A at position 0 (big blind), half 1 at position 1 (button); both halves
use the same nine cards per position. Each player keeps one memory bank per half, reset when the match
starts, so playing deal by deal is the same as the paper's protocol of playing all of half 0, clearing
memories and playing all of half 1. A **score sample** is A's chips won over the two hands of a deal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numba
import numpy as np
from numba.extending import overload

from ..engine.decks import DEAL_SLOTS, N_DEAL_CARDS, SALTS, deal_cards, seed_keys, stream_key
from ..engine.evaluator import eval7_pair
from ..engine.rules import (
    BIG_BLIND,
    MAX_ACTIONS_PER_HAND,
    RAISE,
    S_ACTIONS,
    S_ACTOR,
    S_FINISHED,
    S_FOLDED,
    S_MAX_SPENT,
    S_MIN_RAISE_TO,
    S_ROUND,
    S_ROUND_ACTIONS,
    S_SPENT0,
    S_SPENT1,
    STATE_SIZE,
    choose,
    clamp_action,
    legal_bit,
    new_hand,
    payoff0,
    raise_bounds,
    raise_range,
    store_state,
    transition,
)
from ..infra.jit import kernel
from ..players import policy
from ..players.base import RANDOM, make_player
from ..players.bots import random_choice
from ..players.hand_strength import DEFAULT_SAMPLES

_NO_STRENGTHS = np.zeros((0, 2, 4), np.float64)


def _act(mine, kind_a, params_a, imem_a, fmem_a, rng_a, kind_b, params_b, imem_b, fmem_b, rng_b,
         bank, pos, st, lo, hi, cards, hist, hs, hs_key, hs_samples):
    """``policy.act`` for A if ``mine`` else for B (numba only: see the overload below)."""
    raise NotImplementedError("numba only")


@overload(_act, inline="always")
def _act_overload(mine, kind_a, params_a, imem_a, fmem_a, rng_a, kind_b, params_b, imem_b, fmem_b, rng_b,
                  bank, pos, st, lo, hi, cards, hist, hs, hs_key, hs_samples):
    """One call of ``policy.act`` with the acting player's arguments selected (who acts next is random in
    random play, so a branch on it would mispredict), or a branch when A's and B's arrays differ in type."""
    if (params_a, imem_a, fmem_a, rng_a) == (params_b, imem_b, fmem_b, rng_b):
        def impl(mine, kind_a, params_a, imem_a, fmem_a, rng_a, kind_b, params_b, imem_b, fmem_b, rng_b,
                 bank, pos, st, lo, hi, cards, hist, hs, hs_key, hs_samples):
            return policy.act(choose(mine, kind_a, kind_b), choose(mine, params_a, params_b),
                              choose(mine, imem_a, imem_b), choose(mine, fmem_a, fmem_b), bank, pos, st, lo, hi,
                              cards, hist, hs, hs_key, hs_samples, choose(mine, rng_a, rng_b))
    else:
        def impl(mine, kind_a, params_a, imem_a, fmem_a, rng_a, kind_b, params_b, imem_b, fmem_b, rng_b,
                 bank, pos, st, lo, hi, cards, hist, hs, hs_key, hs_samples):
            if mine:
                return policy.act(kind_a, params_a, imem_a, fmem_a, bank, pos, st, lo, hi, cards, hist, hs,
                                  hs_key, hs_samples, rng_a)
            return policy.act(kind_b, params_b, imem_b, fmem_b, bank, pos, st, lo, hi, cards, hist, hs, hs_key,
                              hs_samples, rng_b)
    return impl


@kernel(inline="always")
def _record_action(hist, n, rnd, actor, action, amount):
    """Row ``n`` of the hand's history: (round, actor, action, raise-to or 0)."""
    row = np.uint64(n)  # an unsigned index: no negative-index wraparound
    hist[row, 0] = rnd
    hist[row, 1] = actor
    hist[row, 2] = action
    hist[row, 3] = amount


@kernel(inline="always")
def _play_hand(half, kind_a, params_a, imem_a, fmem_a, kind_b, params_b, imem_b, fmem_b,
               st, cards, hist, hs, hs_key, hs_samples, rng_a, rng_b):
    """Play one hand with A at position ``half``; return the number of repaired (invalid) actions.

    Memories are passed whole with the bank index ``half``: slicing them per hand costs reference counting.
    Each action reads the state at the top and writes it back at the end (players read ``st``; nothing
    writes it in between), so the compiled loop keeps the state in registers. Who acts and the random
    players' choices are unpredictable: the player's arguments are selected, not branched on.
    """
    new_hand(st)
    invalid = 0
    finished = 0
    while finished == 0:
        rnd = st[S_ROUND]
        actor = st[S_ACTOR]
        spent0 = st[S_SPENT0]
        spent1 = st[S_SPENT1]
        max_spent = st[S_MAX_SPENT]
        min_raise_to = st[S_MIN_RAISE_TO]
        round_actions = st[S_ROUND_ACTIONS]
        n = st[S_ACTIONS]
        lo, hi = raise_range(st)
        action, amount = _act(actor == half, kind_a, params_a, imem_a, fmem_a, rng_a, kind_b, params_b, imem_b,
                              fmem_b, rng_b, half, actor, st, lo, hi, cards, hist, hs, hs_key, hs_samples)
        if legal_bit(max_spent - choose(actor == 0, spent0, spent1), lo, hi, action, amount) == 0:
            action, amount = clamp_action(st, action, amount)  # the ACPC dealer's repair
            invalid += 1
        size = choose(action == RAISE, amount, 0)
        _record_action(hist, n, rnd, actor, action, size)
        rnd2, actor2, spent0_2, spent1_2, max2, min2, round2, folded, finished = transition(
            rnd, actor, spent0, spent1, max_spent, min_raise_to, round_actions, action, size)
        store_state(st, rnd2, actor2, spent0_2, spent1_2, max2, min2, round2, folded, finished, n + 1)
    return invalid


@kernel(inline="always")
def _play_random_hand(half, st, hist, rng_a, rng_b):
    """``_play_hand`` for two random bots (A at position ``half``): the same actions, states and history.

    The state stays in local variables and is written to ``st`` when the hand is over: no player reads
    it in between (``random_choice`` is ``random_act`` on those variables), there is no dispatch on the
    players' kinds and no legality check (``random_act`` only makes legal actions; the tests check it on
    every state met in random play, and check this loop against ``_play_hand``).
    """
    new_hand(st)
    rnd = st[S_ROUND]
    actor = st[S_ACTOR]
    spent0 = st[S_SPENT0]
    spent1 = st[S_SPENT1]
    max_spent = st[S_MAX_SPENT]
    min_raise_to = st[S_MIN_RAISE_TO]
    round_actions = st[S_ROUND_ACTIONS]
    folded = st[S_FOLDED]
    finished = st[S_FINISHED]
    n = st[S_ACTIONS]
    while finished == 0:
        lo, _ = raise_bounds(round_actions, max_spent, min_raise_to)
        action, amount = random_choice(max_spent, max_spent > choose(actor == 0, spent0, spent1), lo >= 0,
                                       choose(actor == half, rng_a, rng_b))
        _record_action(hist, n, rnd, actor, action, amount)
        rnd, actor, spent0, spent1, max_spent, min_raise_to, round_actions, folded, finished = transition(
            rnd, actor, spent0, spent1, max_spent, min_raise_to, round_actions, action, amount)
        n += 1
    store_state(st, rnd, actor, spent0, spent1, max_spent, min_raise_to, round_actions, folded, finished, n)


@numba.njit(cache=True, nogil=True)
def duplicate_kernel(kind_a, params_a, imem_a, fmem_a, kind_b, params_b, imem_b, fmem_b,
                     deck_key, rng_key, hs_samples, first_deal, n_deals,
                     hand_payoffs, record, rec_cards, rec_hist, rec_nact, generic, hs_table):
    """Play deals ``first_deal..first_deal+n_deals-1``; fill ``hand_payoffs[d, half]`` (A's chips).

    With ``record`` it also stores each deal's cards and each hand's actions. Returns the number of
    actions the dealer had to repair (zero for correct players). ``generic`` plays two random bots
    through the per-decision loop of every other pair instead of ``_play_random_hand`` (for the tests).
    ``hs_table[d]`` (``deal_strengths`` of the same seed and deals; empty: none) holds deal ``d``'s hand
    strengths, computed once for every pair that plays those decks; the results are the same without it.
    It releases the GIL: matches can be played by threads in parallel.
    """
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    cards = np.zeros(DEAL_SLOTS, dtype=np.int64)  # nine cards and the dealer's scratch
    hist = np.zeros((MAX_ACTIONS_PER_HAND, 4), dtype=np.int64)
    hs = np.empty((2, 4), dtype=np.float64)
    rng_a = np.zeros(1, dtype=np.uint64)
    rng_b = np.zeros(1, dtype=np.uint64)
    return _play_deals(kind_a, params_a, imem_a, fmem_a, kind_b, params_b, imem_b, fmem_b,
                       deck_key, rng_key, hs_samples, first_deal, n_deals, hand_payoffs, record, rec_cards,
                       rec_hist, rec_nact, st, cards, hist, hs, rng_a, rng_b, generic, hs_table)


@kernel
def _play_deals(kind_a, params_a, imem_a, fmem_a, kind_b, params_b, imem_b, fmem_b,
                deck_key, rng_key, hs_samples, first_deal, n_deals, hand_payoffs, record, rec_cards,
                rec_hist, rec_nact, st, cards, hist, hs, rng_a, rng_b, generic, hs_table):
    """The deal loop, free of numba's runtime so the inlined hand loop does no reference counting.

    Two random bots play through their own loop, ``_play_random_hand`` (the same hands as the per-decision
    loop, which ``generic`` forces); every other pair through ``_play_hand``.
    """
    both_random = (kind_a == RANDOM) & (kind_b == RANDOM) & (not generic)
    tabled = hs_table.shape[0] > 0
    invalid = 0
    for d in range(n_deals):
        deal = first_deal + d
        deal_cards(deck_key, deal, cards)
        v0, v1 = eval7_pair(cards[0], cards[1], cards[2], cards[3], cards[4], cards[5], cards[6], cards[7], cards[8])
        for i in range(2):
            for j in range(4):
                hs[i, j] = hs_table[d, i, j] if tabled else -1.0
        deal_key = stream_key(rng_key, deal, 0)
        hs_key = deal_key ^ SALTS[4]
        for half in range(2):
            rng_a[0] = deal_key ^ SALTS[2 * half]
            rng_b[0] = deal_key ^ SALTS[2 * half + 1]
            if both_random:
                _play_random_hand(half, st, hist, rng_a, rng_b)
            else:
                invalid += _play_hand(half, kind_a, params_a, imem_a, fmem_a, kind_b, params_b, imem_b, fmem_b,
                                      st, cards, hist, hs, hs_key, hs_samples, rng_a, rng_b)
            p0 = payoff0(st, v0, v1)
            pa = p0 if half == 0 else -p0
            policy.observe(kind_a, params_a, imem_a, fmem_a, half, half, st, cards, hist, pa, hs, hs_key,
                           hs_samples)
            policy.observe(kind_b, params_b, imem_b, fmem_b, half, 1 - half, st, cards, hist, -pa, hs, hs_key,
                           hs_samples)
            hand_payoffs[d, half] = pa
            if record:
                n = st[S_ACTIONS]
                rec_nact[d, half] = n
                for i in range(n):
                    for j in range(4):
                        rec_hist[d, half, i, j] = hist[i, j]
        if record:
            for i in range(N_DEAL_CARDS):
                rec_cards[d, i] = cards[i]
    return invalid


@numba.njit(cache=True, nogil=True)
def _strengths_kernel(deck_key, rng_key, hs_samples, first_deal, out):
    cards = np.zeros(DEAL_SLOTS, dtype=np.int64)
    for d in range(out.shape[0]):
        deal = first_deal + d
        deal_cards(deck_key, deal, cards)
        hs_key = stream_key(rng_key, deal, 0) ^ SALTS[4]
        for pos in range(2):
            for rnd in range(4):
                out[d, pos, rnd] = -1.0
                policy.cached_strength(out[d], hs_key, hs_samples, cards, pos, rnd)


def deal_strengths(seed: int, n_deals: int, first_deal: int = 0, hs_samples: int = DEFAULT_SAMPLES) -> np.ndarray:
    """Both positions' hand strengths in every round of deals ``first_deal..first_deal+n_deals-1`` of
    ``seed``'s deck stream: ``(n_deals, 2, 4)``, the values the players of any match on those decks see.

    Matches of many players on common decks (``play_duplicate(..., strengths=)``) then compute them once
    instead of once per match; it costs all eight values of a deal, where a match computes only the
    rounds it reaches."""
    deck_key, rng_key = seed_keys(seed, 2)
    out = np.empty((n_deals, 2, 4), np.float64)
    _strengths_kernel(deck_key, rng_key, hs_samples, first_deal, out)
    return out


@kernel
def reset_memory(kind, params, imem, fmem):
    for half in range(2):
        policy.reset(kind, params, imem[half], fmem[half])


@dataclass(frozen=True)
class HandRecord:
    """One played hand: the deal's cards (hole 0, hole 1, board), actions, and chips won per position."""

    deal: int
    half: int  # A sat at position ``half``
    cards: np.ndarray
    actions: list  # (round, actor position, action code, raise-to or 0)
    payoffs: tuple[int, int]
    names: tuple[str, str]  # player names by position


@dataclass
class DuplicateResult:
    """Per-deal score samples of A against B, in chips; each deal is two hands."""

    names: tuple[str, str]
    seed: int
    first_deal: int
    hand_payoffs: np.ndarray  # (n_deals, 2): A's chips in each half
    invalid_actions: int = 0
    records: list = field(default_factory=list)

    @property
    def samples(self) -> np.ndarray:
        """A's chips over the two mirrored hands of each deal (the score samples)."""
        return self.hand_payoffs.sum(axis=1)

    @property
    def n_hands(self) -> int:
        return 2 * len(self.hand_payoffs)

    def mbb_per_hand(self) -> tuple[float, float]:
        """A's mean result in milli-big-blinds per hand and the half-width of its 95% confidence interval.

        The interval uses the per-deal samples, which are independent; the two hands of a deal are not.
        """
        s = self.samples.astype(np.float64) / 2 / BIG_BLIND * 1000
        n = len(s)
        half = 1.96 * s.std(ddof=1) / np.sqrt(n) if n > 1 else float("nan")
        return float(s.mean()), float(half)


def play_duplicate(a, b, n_deals: int, seed: int = 0, *, first_deal: int = 0,
                   hs_samples: int = DEFAULT_SAMPLES, records: bool = False, memory=None,
                   progress: Callable[[int], None] | None = None, chunk: int = 4096,
                   generic_loop: bool = False, strengths: np.ndarray | None = None) -> DuplicateResult:
    """Play ``n_deals`` duplicate deals of player ``a`` against ``b``; return the per-deal score samples.

    Decks come from the deck stream of ``seed`` alone, so every pair of players given the same seed
    sees the same decks (common random numbers). ``memory`` continues a match: pass the
    ``(imem_a, fmem_a, imem_b, fmem_b)`` of an earlier call (they are updated in place); by default
    both players start fresh. ``progress(n)`` is called after each chunk of ``n`` deals.
    ``generic_loop`` plays two random bots through the per-decision loop used for every other pair
    rather than through their own loop (same results; for the tests). ``strengths``: the
    ``deal_strengths(seed, n_deals, first_deal, hs_samples)`` of these deals, when many matches share the
    decks (same results, each deal's hand strengths computed once).
    """
    a, b = make_player(a), make_player(b)
    if not isinstance(n_deals, (int, np.integer)) or n_deals < 1:
        raise ValueError(f"n_deals must be a positive integer, got {n_deals!r}")
    if not isinstance(first_deal, (int, np.integer)) or first_deal < 0:
        raise ValueError(f"first_deal must be a non-negative integer, got {first_deal!r}")
    if not isinstance(hs_samples, (int, np.integer)) or hs_samples < 1:
        raise ValueError(f"hs_samples must be a positive integer, got {hs_samples!r}")
    if not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise ValueError(f"chunk must be a positive integer, got {chunk!r}")  # 0 would loop forever
    if strengths is None:
        strengths = _NO_STRENGTHS
    else:
        strengths = np.ascontiguousarray(strengths, dtype=np.float64)
        if strengths.shape != (n_deals, 2, 4):
            raise ValueError(f"strengths must have shape ({n_deals}, 2, 4) (deal_strengths of these deals), "
                             f"got {strengths.shape}")
    deck_key, rng_key = seed_keys(seed, 2)
    if memory is None:
        memory = (*a.new_memory(), *b.new_memory())
        reset_memory(a.kind, a.params, memory[0], memory[1])
        reset_memory(b.kind, b.params, memory[2], memory[3])
    imem_a, fmem_a, imem_b, fmem_b = memory
    hand_payoffs = np.zeros((n_deals, 2), dtype=np.int64)
    step = min(chunk, n_deals)
    rec_cards = np.zeros((step if records else 0, N_DEAL_CARDS), dtype=np.int64)
    rec_hist = np.zeros((step if records else 0, 2, MAX_ACTIONS_PER_HAND, 4), dtype=np.int64)
    rec_nact = np.zeros((step if records else 0, 2), dtype=np.int64)
    result = DuplicateResult((a.name, b.name), seed, first_deal, hand_payoffs)
    done = 0
    while done < n_deals:
        m = min(step, n_deals - done)
        result.invalid_actions += duplicate_kernel(
            a.kind, a.params, imem_a, fmem_a, b.kind, b.params, imem_b, fmem_b,
            deck_key, rng_key, hs_samples, first_deal + done, m,
            hand_payoffs[done:done + m], records, rec_cards, rec_hist, rec_nact, bool(generic_loop),
            strengths[done:done + m] if strengths.size else strengths,
        )
        if records:
            for d in range(m):
                for half in range(2):
                    pa = int(hand_payoffs[done + d, half])
                    acts = [tuple(int(x) for x in row) for row in rec_hist[d, half, : rec_nact[d, half]]]
                    result.records.append(HandRecord(
                        deal=first_deal + done + d, half=half, cards=rec_cards[d].copy(), actions=acts,
                        payoffs=(pa, -pa) if half == 0 else (-pa, pa),
                        names=(a.name, b.name) if half == 0 else (b.name, a.name),
                    ))
        done += m
        if progress is not None:
            progress(m)
    return result
