"""ACPC betting rules: hand-written cases from game.c semantics and a differential test against pokerkit."""

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerduel.engine.decks import deal_decks
from pokerduel.engine.evaluator import eval7
from pokerduel.engine.rules import (
    BIG_BLIND,
    CALL,
    FOLD,
    OK,
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
    STACK,
    HandState,
    apply_legal,
    check_action,
    choose,
    legal_bit,
    raise_bounds,
    raise_range,
)


def play(betting: str) -> HandState:
    """Replay an ACPC betting string such as ``r300c/cr600f``."""
    h = HandState()
    i = 0
    while i < len(betting):
        ch = betting[i]
        if ch == "/":
            i += 1
            continue
        if ch == "f":
            h.fold()
        elif ch == "c":
            h.call()
        elif ch == "r":
            j = i + 1
            while j < len(betting) and betting[j].isdigit():
                j += 1
            h.raise_to(int(betting[i + 1 : j]))
            i = j
            continue
        i += 1
    return h


def test_blinds_and_order():
    h = HandState()
    assert h.spent == (100, 50) and h.actor == 1 and h.round == 0
    la = h.legal_actions()
    assert la.can_fold and la.to_call == 50 and (la.min_raise_to, la.max_raise_to) == (200, STACK)
    h.call()  # limp: the round stays open for the big blind
    assert h.actor == 0 and h.round == 0 and not h.legal_actions().can_fold
    h.call()
    assert h.round == 1 and h.actor == 0  # position 0 acts first after the flop
    assert h.legal_actions().min_raise_to == 200  # first bet of a street is at least one big blind


def test_min_raise_is_largest_increment_in_round():
    h = play("r300")  # increment 200
    assert h.legal_actions().min_raise_to == 500
    h.raise_to(1000)  # increment 700
    assert h.legal_actions().min_raise_to == 1700
    h = play("r300c/r400")  # flop bet of 100 over 300... increment 100 = one big blind
    assert h.legal_actions().min_raise_to == 500


def test_short_stack_raise_is_all_in_only_and_all_in_below_minimum_is_legal():
    h = play("r12000")  # increment 11900: a full re-raise would need 23900 > stack
    la = h.legal_actions()
    assert (la.min_raise_to, la.max_raise_to) == (STACK, STACK)
    h.raise_to(STACK)
    la = h.legal_actions()
    assert not la.can_raise and la.can_fold  # facing all-in: fold or call only
    h.call()
    assert h.finished and h.showdown and h.round == 3 and h.acpc_betting() == "r12000r20000c///"


def test_fold_illegal_when_check_is_free_and_errors_name_legal_actions():
    h = play("cc/")
    with pytest.raises(ValueError, match="legal: check, raise to 200..20000"):
        h.fold()
    with pytest.raises(ValueError, match="out of range"):
        h.raise_to(150)
    with pytest.raises(ValueError, match="out of range"):
        h.raise_to(20001)
    h = play("r20000")
    with pytest.raises(ValueError, match="no raise is legal"):
        h.raise_to(20000)
    h = play("f")
    with pytest.raises(ValueError, match="hand is over"):
        h.call()


def test_63_action_cap_per_round():
    h = HandState()
    for k in range(63):
        h.raise_to(200 + 100 * k)
    assert h.spent[0] == 6300 or h.spent[1] == 6400
    assert max(h.spent) == 6400
    la = h.legal_actions()
    assert not la.can_raise and la.can_fold
    h.call()
    assert h.round == 1 and h.legal_actions().can_raise  # the cap is per round


def test_payoffs_fold_showdown_tie():
    assert play("r300f").payoffs() == (-100, 100)  # the big blind folds to a raise
    assert play("f").payoffs() == (50, -50)
    h = play("r300c/cc/cc/cc")
    assert h.payoffs(5, 3) == (300, -300) and h.payoffs(3, 5) == (-300, 300) and h.payoffs(4, 4) == (0, 0)
    with pytest.raises(ValueError):
        play("r300").payoffs()


def _random_action(rng, legal):
    u = rng.random()
    if legal.can_fold and u < 0.15:
        return 0, 0
    if not legal.can_raise or u < 0.6:
        return 1, 0
    v = rng.random()
    lo, hi = legal.min_raise_to, legal.max_raise_to
    if v < 0.4:
        return 2, lo
    if v < 0.55:
        return 2, hi
    return 2, int(rng.integers(lo, min(hi, 3 * lo) + 1))  # up to three times the minimum


@pytest.mark.slow
def test_differential_against_pokerkit_on_random_legal_hands():
    """At every decision pokerkit agrees on actor, fold legality and raise range; payoffs agree at the end."""
    pytest.importorskip("pokerkit")
    from pokerduel.engine import pokerkit_bridge as oracle

    rng = np.random.default_rng(11)
    decks = deal_decks(2024, 1500)
    n_showdowns = n_allin = 0
    for cards in decks:
        ours = HandState()
        theirs = oracle.new_state(cards)
        while not ours.finished:
            oracle.deal_pending_board(theirs, cards)
            legal = ours.legal_actions()
            assert theirs.actor_index == ours.actor
            assert theirs.can_fold() == legal.can_fold
            expected = (legal.min_raise_to, legal.max_raise_to) if legal.can_raise else None
            assert oracle.acpc_raise_range(theirs) == expected
            action, amount = _random_action(rng, legal)
            {0: ours.fold, 1: ours.call}.get(action, lambda: ours.raise_to(amount))()
            oracle.apply(theirs, action, amount)
        oracle.deal_pending_board(theirs, cards)
        v0 = eval7(*cards[[0, 1, 4, 5, 6, 7, 8]])
        v1 = eval7(*cards[[2, 3, 4, 5, 6, 7, 8]])
        p = ours.payoffs(v0, v1)
        assert p == tuple(theirs.payoffs)
        assert p[0] + p[1] == 0 and abs(p[0]) <= STACK and max(ours.spent) <= STACK
        n_showdowns += ours.showdown
        n_allin += max(ours.spent) == STACK
    assert n_showdowns > 200 and n_allin > 100  # the sample covers showdowns and all-ins


def _drive(hand, choices):
    """Apply legal actions picked by ``choices`` (pairs of a kind and a fraction of the raise range)."""
    for kind, frac in choices:
        if hand.finished:
            break
        legal = hand.legal_actions()
        if kind == 0 and legal.can_fold:
            hand.fold()
        elif kind == 2 and legal.can_raise:
            hand.raise_to(legal.min_raise_to + int(frac * (legal.max_raise_to - legal.min_raise_to)))
        else:
            hand.call()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.floats(0, 1)), max_size=40))
def test_invariants_on_any_legal_sequence(choices):
    """Chips never exceed the stack, the raise range stays inside it, and the ACPC string replays identically."""
    from pokerduel.engine.histories import replay_acpc

    hand = HandState()
    _drive(hand, choices)
    assert max(hand.spent) <= STACK and min(hand.spent) >= 50
    if not hand.finished:
        legal = hand.legal_actions()
        assert (not legal.can_raise) or (max(hand.spent) < legal.min_raise_to <= legal.max_raise_to == STACK)
        _drive(hand, [(1, 0.0)] * 300)  # check/call down to the end
    assert hand.finished
    p = hand.payoffs(0, 1) if hand.showdown else hand.payoffs()  # 7h7c (position 1) wins the board below
    assert p[0] + p[1] == 0 and abs(p[0]) == (min(hand.spent) if hand.folded is not None else hand.spent[0])
    cards = "AsKd|7h7c" + "".join(["/2c8dJs", "/3c", "/4d"][: hand.round])
    assert replay_acpc(f"STATE:0:{hand.acpc_betting()}:{cards}") == p


# ---------------------------------------------------------------- the branch-free kernels of the match loop

def _apply_reference(st, action, amount):
    """The ACPC transition written out with branches: fold ends the hand; a call that is not the round's
    first action closes the round (showdown on the river or when someone is all-in); a raise sets the
    new maximum and the minimum raise-to (the largest increment so far)."""
    st = st.copy()
    actor, rnd, m = int(st[S_ACTOR]), int(st[S_ROUND]), int(st[S_MAX_SPENT])
    st[S_ACTIONS] += 1
    st[S_FOLDED] = -1
    if action == FOLD:
        st[S_FOLDED] = actor
        st[S_FINISHED] = 1
    elif action == RAISE:
        st[S_SPENT0 + actor] = amount
        st[S_MIN_RAISE_TO] = max(int(st[S_MIN_RAISE_TO]), 2 * amount - m)
        st[S_MAX_SPENT] = amount
    else:
        st[S_SPENT0 + actor] = m
        if st[S_ROUND_ACTIONS] > 0 and (m >= STACK or rnd == 3):
            st[S_ROUND] = 3
            st[S_FINISHED] = 1
        elif st[S_ROUND_ACTIONS] > 0:
            st[S_ROUND] = rnd + 1
            st[S_ACTOR] = 0
            st[S_ROUND_ACTIONS] = 0
            st[S_MIN_RAISE_TO] = m + BIG_BLIND
            return st
    st[S_ACTOR] = 1 - actor
    st[S_ROUND_ACTIONS] += 1
    return st


def _random_states(seed, n_hands):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_hands):
        h = HandState()
        while not h.finished:
            out.append(h.st.copy())
            h._apply(*_random_action(rng, h.legal_actions()))
    return out


STATES = _random_states(5, 600)


def test_apply_legal_equals_the_written_out_transition():
    rng = np.random.default_rng(2)
    n_round_ends = 0
    for st0 in STATES:
        lo, hi = raise_range(st0)
        candidates = [(CALL, 0)] + ([(FOLD, 0)] if st0[S_MAX_SPENT] > st0[S_SPENT0 + st0[S_ACTOR]] else [])
        if lo >= 0:
            candidates += [(RAISE, lo), (RAISE, hi), (RAISE, int(rng.integers(lo, hi + 1)))]
        for action, amount in candidates:
            st = st0.copy()
            apply_legal(st, action, amount)
            np.testing.assert_array_equal(st, _apply_reference(st0, action, amount), err_msg=str((st0, action)))
            n_round_ends += st[S_ROUND] != st0[S_ROUND]
    assert len(STATES) > 2000 and n_round_ends > 300


def test_legal_bit_agrees_with_check_action():
    rng = np.random.default_rng(3)
    n_illegal = 0
    for state in STATES[::2]:
        lo, hi = raise_range(state)
        x = state[S_MAX_SPENT] - state[S_SPENT0 + state[S_ACTOR]]
        amounts = [0, lo - 1, lo, hi, hi + 1, int(rng.integers(-5, STACK + 5))]
        for action in (-1, FOLD, CALL, RAISE, 3, 9):
            for amount in amounts:
                expected = check_action(state, action, amount) == OK
                assert legal_bit(x, lo, hi, action, amount) == expected, (state, action, amount)
                n_illegal += not expected
    assert n_illegal > 1000


def test_raise_bounds_is_raise_range_of_a_hand_in_progress():
    for state in STATES:
        bounds = raise_bounds(state[S_ROUND_ACTIONS], state[S_MAX_SPENT], state[S_MIN_RAISE_TO])
        assert bounds == raise_range(state)


@numba.njit
def _choices(flags, a, b, xs, ys):
    out = np.empty(flags.shape[0], dtype=np.int64)
    for i in range(flags.shape[0]):
        out[i] = choose(flags[i], a[i], b[i]) + choose(flags[i], xs, ys)[i]
    return out


@numba.njit
def _count_into_chosen_arrays(n):
    """Arrays owned by a function with numba's runtime, written through ``choose``: ``choose`` hands out a
    new reference, else each use would drop a count and free the arrays early."""
    xs = np.zeros(4, dtype=np.int64)
    ys = np.zeros(4, dtype=np.int64)
    for i in range(n):
        chosen = choose(i % 3 == 0, xs, ys)
        chosen[i % 4] += 1
    return xs, ys


def test_choose_selects_integers_booleans_and_arrays():
    flags = np.array([True, False, True, False])
    a, b = np.array([1, 2, 3, 4]), np.array([10, 20, 30, 40])
    xs, ys = np.array([100, 200, 300, 400]), np.array([5, 6, 7, 8])
    assert _choices(flags, a, b, xs, ys).tolist() == [101, 26, 303, 48]
    xs, ys = _count_into_chosen_arrays(3000)
    assert (xs.sum(), ys.sum()) == (1000, 2000)
    assert xs.base.refcount == ys.base.refcount == 1  # numba's MemInfo: only the returned array holds it
