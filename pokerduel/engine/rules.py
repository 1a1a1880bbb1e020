"""Betting rules of ACPC ``holdem.nolimit.2p.reverse_blinds``: a numba state machine and a checked Python API.

Position 0 posts the big blind (100) and position 1 the small blind (50) and is the button; position 1
acts first preflop and position 0 first on the flop, turn and river. Stacks are 20,000 and reset every
hand. Raises are "raise to" totals for the whole hand; the minimum raise increment is the largest
increment so far in the round and at least the big blind; a raise beyond the stack is only legal as
all-in, and an all-in below the minimum is allowed. Folding is illegal when checking is free. No raise
is legal once 63 actions were made in a round (ACPC ``MAX_NUM_ACTIONS = 64``). The semantics follow the
ACPC server's ``game.c``; see ``docs/architecture.md`` and ``../shared/notes/acpc-engine.md``.

The state is a small int64 array (fields ``S_*``) so numba kernels keep it without allocating.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic

from ..infra.jit import kernel

STACK = 20_000
BIG_BLIND = 100
SMALL_BLIND = 50
N_ROUNDS = 4
MAX_ACTIONS_PER_ROUND = 64  # ACPC MAX_NUM_ACTIONS; heads-up no raise once 63 actions were made
MAX_ACTIONS_PER_HAND = N_ROUNDS * MAX_ACTIONS_PER_ROUND

FOLD, CALL, RAISE = 0, 1, 2

# State fields.
S_ROUND, S_ACTOR, S_SPENT0, S_SPENT1, S_MAX_SPENT, S_MIN_RAISE_TO, S_ROUND_ACTIONS, S_FOLDED, S_FINISHED, S_ACTIONS = range(10)
STATE_SIZE = 10

# Status codes returned by ``apply_action``.
OK, ERR_FINISHED, ERR_FOLD, ERR_NO_RAISE, ERR_RAISE_SIZE, ERR_ACTION = range(6)


@intrinsic
def choose(typingctx, cond, a, b):
    """``a if cond else b`` as one select marked unpredictable, so LLVM keeps it a conditional move.

    numba's ternaries and ``min``/``max`` leave LLVM free to turn selects into branches, which
    mispredict about half the time on random choices. Integers and booleans give an int64; two arrays
    of the same type give that array (a select of the array structures).
    """
    if isinstance(a, types.Array) or isinstance(b, types.Array):
        if a != b:
            return None
        ty = a
    elif isinstance(a, (types.Integer, types.Boolean)) and isinstance(b, (types.Integer, types.Boolean)):
        ty = types.int64
    else:
        return None

    def codegen(context, builder, signature, args):
        c = context.cast(builder, args[0], signature.args[0], types.boolean)
        x = context.cast(builder, args[1], signature.args[1], ty)
        y = context.cast(builder, args[2], signature.args[2], ty)
        inst = builder.select(c, x, y)
        inst.set_metadata("unpredictable", builder.module.add_metadata([]))
        return impl_ret_borrowed(context, builder, ty, inst)  # a new reference to an array (none without NRT)

    return ty(cond, a, b), codegen


@kernel
def imin(a, b):
    """``min(a, b)`` as a conditional move."""
    return choose(a < b, a, b)


@kernel
def imax(a, b):
    """``max(a, b)`` as a conditional move."""
    return choose(a > b, a, b)


@kernel
def new_hand(st):
    """Reset ``st`` to the start of a hand: blinds posted, the button (position 1) to act."""
    st[S_ROUND] = 0
    st[S_ACTOR] = 1
    st[S_SPENT0] = BIG_BLIND
    st[S_SPENT1] = SMALL_BLIND
    st[S_MAX_SPENT] = BIG_BLIND
    st[S_MIN_RAISE_TO] = 2 * BIG_BLIND
    st[S_ROUND_ACTIONS] = 0
    st[S_FOLDED] = -1
    st[S_FINISHED] = 0
    st[S_ACTIONS] = 0


@kernel
def to_call(st, pos):
    """Chips position ``pos`` must add to call."""
    return st[S_MAX_SPENT] - st[S_SPENT0 + pos]


@kernel
def pot(st):
    """Chips both players have put in so far."""
    return st[S_SPENT0] + st[S_SPENT1]


@kernel
def raise_range(st):
    """``(min_to, max_to)`` for the player to act, or ``(-1, -1)`` when no raise is legal.

    No raise once the hand is over, after 63 actions in the round, or when someone is all-in; a minimum
    above the stack leaves only the all-in raise. Selects, not branches (see ``choose``).
    """
    # Kernels here also avoid value-level ``and``/``or`` and variables reassigned before a tuple return:
    # numba compiles both into code about 40 times slower.
    lo, hi = raise_bounds(st[S_ROUND_ACTIONS], imax(st[S_SPENT0], st[S_SPENT1]), st[S_MIN_RAISE_TO])
    over = st[S_FINISHED] != 0
    return choose(over, -1, lo), choose(over, -1, hi)


@kernel
def raise_bounds(round_actions, max_spent, min_raise_to):
    """``raise_range`` of a hand in progress from its fields (``max_spent``: the larger amount put in)."""
    none = (round_actions + 2 > MAX_ACTIONS_PER_ROUND) | (max_spent >= STACK)
    return choose(none, -1, imin(min_raise_to, STACK)), choose(none, -1, STACK)


@kernel
def can_fold(st):
    """Folding is legal only when there is something to call."""
    return (st[S_FINISHED] == 0) & (to_call(st, st[S_ACTOR]) > 0)


@kernel
def check_action(st, action, amount):
    """Status code saying whether ``action`` (FOLD, CALL or RAISE to ``amount``) is legal now (OK if so)."""
    if st[S_FINISHED]:
        return ERR_FINISHED
    if action == CALL:
        return OK
    if action == FOLD:
        return OK if to_call(st, st[S_ACTOR]) > 0 else ERR_FOLD
    if action == RAISE:
        lo, hi = raise_range(st)
        if lo < 0:
            return ERR_NO_RAISE
        return ERR_RAISE_SIZE if (amount < lo) | (amount > hi) else OK
    return ERR_ACTION


@kernel
def transition(rnd, actor, spent0, spent1, max_spent, min_raise_to, round_actions, action, amount):
    """The betting state after a legal action, on scalars: ``apply_legal`` without the state array.

    Returns ``(round, actor, spent0, spent1, max_spent, min_raise_to, round_actions, folded, finished)``.
    All selects (``choose``), no branches: in random play the action type is unpredictable and
    mispredicted branches would dominate the cost of a hand.
    """
    is_raise = action == RAISE
    is_fold = action == FOLD
    closes = (action == CALL) & (round_actions > 0)  # a call that is not the round's first action
    last = (max_spent >= STACK) | (rnd == N_ROUNDS - 1)  # all-in (the whole board is dealt) or the river
    next_round = closes & (not last)
    new_max = choose(is_raise, amount, max_spent)
    puts = (not is_fold) & (actor == 0)  # position 0 puts in chips (calls or raises to new_max)
    return (
        choose(closes & last, N_ROUNDS - 1, rnd + next_round),
        choose(next_round, 0, 1 - actor),
        choose(puts, new_max, spent0),
        choose((not is_fold) & (not puts), new_max, spent1),
        new_max,
        choose(next_round, new_max + BIG_BLIND, imax(min_raise_to, choose(is_raise, 2 * amount - max_spent, 0))),
        choose(next_round, 0, round_actions + 1),
        choose(is_fold, actor, -1),
        np.int64(is_fold | (closes & last)),
    )


@kernel
def store_state(st, rnd, actor, spent0, spent1, max_spent, min_raise_to, round_actions, folded, finished, n_actions):
    """Write every field of the betting state."""
    st[S_ROUND] = rnd
    st[S_ACTOR] = actor
    st[S_SPENT0] = spent0
    st[S_SPENT1] = spent1
    st[S_MAX_SPENT] = max_spent
    st[S_MIN_RAISE_TO] = min_raise_to
    st[S_ROUND_ACTIONS] = round_actions
    st[S_FOLDED] = folded
    st[S_FINISHED] = finished
    st[S_ACTIONS] = n_actions


@kernel
def apply_legal(st, action, amount):
    """Apply an action already known to be legal (the match loop checks once per decision)."""
    rnd, actor, spent0, spent1, max_spent, min_raise_to, round_actions, folded, finished = transition(
        st[S_ROUND], st[S_ACTOR], st[S_SPENT0], st[S_SPENT1], st[S_MAX_SPENT], st[S_MIN_RAISE_TO],
        st[S_ROUND_ACTIONS], action, amount)
    store_state(st, rnd, actor, spent0, spent1, max_spent, min_raise_to, round_actions, folded, finished,
                st[S_ACTIONS] + 1)


@kernel
def legal_bit(to_call_chips, lo, hi, action, amount):
    """1 if ``action`` (with ``amount``) is legal for the player to act, else 0; ``lo, hi = raise_range(st)``.

    A bit test rather than a chain of comparisons of ``action``, which LLVM turns into branches that
    mispredict when actions are random: the match loop's legality check is then one predictable branch.
    """
    ok = 2 | (to_call_chips > 0) | (((lo >= 0) & (lo <= amount) & (amount <= hi)) << 2)
    return (ok >> choose((action >= 0) & (action <= RAISE), action, 3)) & 1


@kernel
def apply_action(st, action, amount):
    """Apply ``action`` (FOLD, CALL or RAISE to ``amount``) for the player to act; return a status code."""
    status = check_action(st, action, amount)
    if status == OK:
        apply_legal(st, action, amount)
    return status


@kernel
def payoff0(st, value0, value1):
    """Chips won by position 0 in a finished hand, given both players' seven-card values."""
    folded = st[S_FOLDED]
    win = choose(folded >= 0, folded == 1, value0 > value1)
    lose = choose(folded >= 0, folded == 0, value0 < value1)
    return choose(win != 0, st[S_SPENT1], choose(lose != 0, -st[S_SPENT0], 0))


@kernel
def clamp_action(st, action, amount):
    """The ACPC dealer's repair of an action: raise sizes clamped to range, anything else illegal becomes a call."""
    if action == RAISE:
        lo, hi = raise_range(st)
        if lo < 0:
            return CALL, 0
        return RAISE, min(max(amount, lo), hi)
    if action == FOLD:
        return (FOLD, 0) if can_fold(st) else (CALL, 0)
    return CALL, 0


@dataclass(frozen=True)
class LegalActions:
    """What the player to act may do: fold, call (always), and raise to ``min_raise_to..max_raise_to``."""

    can_fold: bool
    can_raise: bool
    min_raise_to: int
    max_raise_to: int
    to_call: int

    def describe(self) -> str:
        parts = (["fold"] if self.can_fold else []) + ["check" if self.to_call == 0 else f"call {self.to_call}"]
        if self.can_raise:
            parts.append(f"raise to {self.min_raise_to}..{self.max_raise_to}")
        return ", ".join(parts)


class HandState:
    """The betting of one hand with checked actions; the Python face of the numba state machine.

    >>> h = HandState()
    >>> h.raise_to(300); h.call(); h.actor
    0
    >>> h.acpc_betting()
    'r300c/'
    """

    def __init__(self):
        self.st = np.zeros(STATE_SIZE, dtype=np.int64)
        new_hand(self.st)
        self.actions: list[tuple[int, int, int, int]] = []  # (round, actor, action, raise-to or 0)

    round = property(lambda self: int(self.st[S_ROUND]), doc="Betting round 0..3 (preflop..river).")
    actor = property(lambda self: None if self.finished else int(self.st[S_ACTOR]), doc="Position to act.")
    finished = property(lambda self: bool(self.st[S_FINISHED]))
    folded = property(lambda self: None if self.st[S_FOLDED] < 0 else int(self.st[S_FOLDED]))
    spent = property(lambda self: (int(self.st[S_SPENT0]), int(self.st[S_SPENT1])), doc="Chips in per position.")

    @property
    def showdown(self) -> bool:
        return self.finished and self.folded is None

    def legal_actions(self) -> LegalActions:
        if self.finished:
            raise ValueError("the hand is over: no action is legal")
        lo, hi = raise_range(self.st)
        return LegalActions(bool(can_fold(self.st)), lo >= 0, int(lo), int(hi), int(to_call(self.st, self.st[S_ACTOR])))

    def _apply(self, action: int, amount: int) -> None:
        if self.finished:
            raise ValueError("the hand is over: no action is legal")
        legal = self.legal_actions()
        rnd, actor = self.round, self.actor
        status = apply_action(self.st, action, amount)
        if status == ERR_FOLD:
            raise ValueError(f"folding is illegal when checking is free; legal: {legal.describe()}")
        if status == ERR_NO_RAISE:
            raise ValueError(f"no raise is legal here; legal: {legal.describe()}")
        if status == ERR_RAISE_SIZE:
            raise ValueError(f"raise to {amount} is out of range; legal: {legal.describe()}")
        if status != OK:
            raise ValueError(f"unknown action code {action}; legal: {legal.describe()}")
        self.actions.append((rnd, actor, action, amount if action == RAISE else 0))

    def fold(self) -> None:
        self._apply(FOLD, 0)

    def call(self) -> None:
        """Check or call."""
        self._apply(CALL, 0)

    def raise_to(self, amount: int) -> None:
        """Raise (or bet) so that this player's total for the hand is ``amount``."""
        if not isinstance(amount, (int, np.integer)):
            raise ValueError(f"raise_to takes a whole number of chips, got {amount!r}")
        self._apply(RAISE, int(amount))

    def payoffs(self, value0: int = 0, value1: int = 0) -> tuple[int, int]:
        """Chips won per position; showdowns need both players' evaluator values."""
        if not self.finished:
            raise ValueError("the hand is not over yet")
        p0 = int(payoff0(self.st, value0, value1))
        return p0, -p0

    def acpc_betting(self) -> str:
        """The ACPC betting string, e.g. ``r300c/cr600f``."""
        rounds = [""] * N_ROUNDS
        for rnd, _, action, amount in self.actions:
            rounds[rnd] += "f" if action == FOLD else "c" if action == CALL else f"r{amount}"
        return "/".join(rounds[: self.round + 1])
