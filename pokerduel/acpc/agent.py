"""A pokerduel player one decision at a time, as a network client needs it, making the decisions of a local match.

``matches._play_hand`` runs a whole hand inside numba; a client instead learns the betting line by line.
``Agent`` keeps what ``_play_hand`` keeps (the state array, the hand's history, the hand-strength cache,
the random word, two memory banks) and its kernels call ``policy.act`` and ``policy.observe`` exactly as
the local loop does, with the same keys: for hand ``h`` of a *paired* match (``pairs=True``; the layout of
``pokerduel dealer --duplicate``) the deal is ``h // 2`` and the half ``h % 2``, so two agents seeded like
``play_duplicate(a, b, n, seed)`` reproduce it action for action. Unpaired, the deal is ``h`` and the
half 0 (one memory bank for the whole match).
"""

from __future__ import annotations

import numpy as np

from ..engine.decks import SALTS, seed_keys, stream_key
from ..engine.evaluator import eval7_pair
from ..engine.rules import (
    MAX_ACTIONS_PER_HAND,
    OK,
    RAISE,
    S_ACTIONS,
    S_ACTOR,
    S_FINISHED,
    S_FOLDED,
    S_MAX_SPENT,
    S_ROUND,
    S_SPENT0,
    STATE_SIZE,
    apply_legal,
    check_action,
    choose,
    clamp_action,
    legal_bit,
    new_hand,
    payoff0,
    raise_range,
)
from ..infra.jit import kernel
from ..play.matches import reset_memory
from ..players import policy
from ..players.base import Player, make_player
from ..players.hand_strength import DEFAULT_SAMPLES


@kernel
def hand_keys(rng_key, deal, half, pos, rng, keys):
    """The player's random word (``rng[0]``) and the deal's hand-strength key (``keys[0]``), as
    ``matches._play_deals`` derives them for the player at position ``pos`` in half ``half``."""
    deal_key = stream_key(rng_key, deal, 0)
    keys[0] = deal_key ^ SALTS[4]
    rng[0] = deal_key ^ SALTS[2 * half + choose(pos != half, 1, 0)]


@kernel
def start_hand(st, hist, hs, cards):
    """Blinds posted, empty history and hand-strength cache, no cards known."""
    new_hand(st)
    for i in range(hs.shape[0]):
        for j in range(hs.shape[1]):
            hs[i, j] = -1.0
    for i in range(cards.shape[0]):
        cards[i] = 0


@kernel
def apply_token(st, hist, action, amount):
    """Apply a received action if it is legal, recording it in the history as the local loop does.

    Returns ``(status, round, actor, finished, showdown)`` after the action (status 0 if it was legal).
    """
    status = check_action(st, action, amount)
    if status == OK:
        size = choose(action == RAISE, amount, 0)
        n = st[S_ACTIONS]
        hist[n, 0] = st[S_ROUND]
        hist[n, 1] = st[S_ACTOR]
        hist[n, 2] = action
        hist[n, 3] = size
        apply_legal(st, action, size)
    return status, st[S_ROUND], st[S_ACTOR], st[S_FINISHED], (st[S_FINISHED] != 0) & (st[S_FOLDED] < 0)


@kernel
def agent_act(kind, params, imem, fmem, bank, pos, st, cards, hist, hs, hs_key, hs_samples, rng):
    """``(action, raise-to or 0, repaired)``: the player's decision, repaired as the local match loop (and the
    ACPC dealer) would repair it, so the action sent is always legal."""
    lo, hi = raise_range(st)
    action, amount = policy.act(kind, params, imem, fmem, bank, pos, st, lo, hi, cards, hist, hs, hs_key,
                                hs_samples, rng)
    repaired = 0
    if legal_bit(st[S_MAX_SPENT] - st[S_SPENT0 + pos], lo, hi, action, amount) == 0:
        action, amount = clamp_action(st, action, amount)
        repaired = 1
    return action, choose(action == RAISE, amount, 0), repaired


@kernel
def agent_finish(kind, params, imem, fmem, bank, pos, st, cards, hist, hs, hs_key, hs_samples):
    """Chips won by the player at ``pos`` in the finished hand; feeds the hand to the player's memory."""
    v0 = 0
    v1 = 0
    if st[S_FOLDED] < 0:
        v0, v1 = eval7_pair(cards[0], cards[1], cards[2], cards[3], cards[4], cards[5], cards[6], cards[7],
                            cards[8])
    p0 = payoff0(st, v0, v1)
    mine = choose(pos == 0, p0, -p0)
    policy.observe(kind, params, imem, fmem, bank, pos, st, cards, hist, mine, hs, hs_key, hs_samples)
    return mine


class Agent:
    """A pokerduel player fed one hand at a time: ``begin``, ``apply`` each action, ``decide`` on its turn,
    ``show_board`` / ``show_opponent`` as cards appear, ``finish`` at the end of the hand.

    ``seed`` is the seed of a local match whose player randomness this agent reproduces (its second
    ``SeedSequence`` key); ``pairs`` selects the deal/half layout described in the module docstring.
    """

    def __init__(self, player: str | Player, seed: int = 0, *, pairs: bool = False,
                 hs_samples: int = DEFAULT_SAMPLES):
        self.player = make_player(player)
        if not isinstance(hs_samples, (int, np.integer)) or isinstance(hs_samples, bool) or hs_samples < 1:
            raise ValueError(f"hs_samples must be a positive integer, got {hs_samples!r}")
        if not isinstance(seed, (int, np.integer, np.random.SeedSequence)) or isinstance(seed, bool) or (
                not isinstance(seed, np.random.SeedSequence) and seed < 0):
            raise ValueError(f"seed must be a non-negative integer or a SeedSequence, got {seed!r}")
        self.rng_key = seed_keys(seed, 2)[1]
        self.pairs = bool(pairs)
        self.hs_samples = int(hs_samples)
        p = self.player
        self.imem, self.fmem = p.new_memory()
        reset_memory(p.kind, p.params, self.imem, self.fmem)
        self.st = np.zeros(STATE_SIZE, dtype=np.int64)
        self.hist = np.zeros((MAX_ACTIONS_PER_HAND, 4), dtype=np.int64)
        self.hs = np.full((2, 4), -1.0)
        self.cards = np.zeros(12, dtype=np.int64)
        self.rng = np.zeros(1, dtype=np.uint64)
        self.keys = np.zeros(1, dtype=np.uint64)
        self.pos = 0
        self.bank = 0
        self.round, self.actor, self.finished, self.showdown = 0, 1, False, False  # mirror ``st``
        self.repaired = 0  # decisions the player got wrong and the agent repaired before sending

    def begin(self, hand: int, pos: int, hole) -> None:
        """Start hand number ``hand`` at position ``pos`` with hole cards ``hole`` (two card ints)."""
        if pos not in (0, 1):
            raise ValueError(f"position must be 0 or 1, got {pos!r}")
        if not isinstance(hand, (int, np.integer)) or hand < 0:
            raise ValueError(f"hand number must be a non-negative integer, got {hand!r}")
        start_hand(self.st, self.hist, self.hs, self.cards)
        self.round, self.actor, self.finished, self.showdown = 0, 1, False, False
        deal, half = (hand // 2, hand % 2) if self.pairs else (hand, 0)
        self.pos, self.bank = int(pos), half
        hand_keys(self.rng_key, np.int64(deal), np.int64(half), np.int64(pos), self.rng, self.keys)
        self.cards[2 * pos] = hole[0]
        self.cards[2 * pos + 1] = hole[1]

    def show_board(self, board) -> None:
        """The board cards shown so far (deal order)."""
        for i, c in enumerate(board):
            self.cards[4 + i] = c

    def show_opponent(self, hole) -> None:
        """The opponent's hole cards, revealed at a showdown."""
        o = 1 - self.pos
        self.cards[2 * o] = hole[0]
        self.cards[2 * o + 1] = hole[1]

    def apply(self, action: int, amount: int = 0) -> int:
        """Apply the next action of the hand (either player's); returns a ``rules`` status code (0 if legal)
        and updates ``round``, ``actor``, ``finished`` and ``showdown``."""
        status, self.round, self.actor, finished, showdown = apply_token(self.st, self.hist, action, amount)
        self.finished, self.showdown = bool(finished), bool(showdown)
        return status

    def decide(self) -> tuple[int, int]:
        """The player's legal action ``(code, raise-to or 0)`` at the current state (its turn)."""
        p = self.player
        action, amount, repaired = agent_act(p.kind, p.params, self.imem, self.fmem, np.int64(self.bank),
                                             np.int64(self.pos), self.st, self.cards, self.hist, self.hs,
                                             self.keys[0], np.int64(self.hs_samples), self.rng)
        self.repaired += repaired
        return int(action), int(amount)

    def finish(self) -> int:
        """Chips won in the finished hand (showdowns need ``show_opponent`` first); updates the memory."""
        p = self.player
        return int(agent_finish(p.kind, p.params, self.imem, self.fmem, np.int64(self.bank), np.int64(self.pos),
                                self.st, self.cards, self.hist, self.hs, self.keys[0], np.int64(self.hs_samples)))
