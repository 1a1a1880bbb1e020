"""Rule bots of ASHE 1.0 and the random bot, driven directly on betting states.

Expected actions are written out by hand for crafted spots and computed by an independent reference of
Algorithm 1 (a brute-force argmin over whole big blinds) on a few thousand states from random legal play.
"""

from fractions import Fraction
from math import ceil

import numpy as np
import pytest

from pokerduel.engine.rules import (
    BIG_BLIND,
    CALL,
    FOLD,
    OK,
    RAISE,
    S_MAX_SPENT,
    S_MIN_RAISE_TO,
    S_ROUND_ACTIONS,
    S_SPENT0,
    STACK,
    HandState,
    check_action,
    raise_range,
)
from pokerduel.players.base import hothead_maniac
from pokerduel.players.bots import (
    algorithm1,
    algorithm1_pot,
    calling_machine_act,
    candid_statistician_act,
    hothead_maniac_act,
    pot_raise_to,
    random_act,
    random_act_general,
    scared_limper_act,
)


def play(betting: str) -> HandState:
    """Replay an ACPC betting string such as ``r300c/cr600``."""
    h = HandState()
    for token in betting.replace("/", " ").replace("c", " c ").replace("f", " f ").replace("r", " r").split():
        if token == "c":
            h.call()
        elif token == "f":
            h.fold()
        else:
            h.raise_to(int(token[1:]))
    return h


def spot(betting: str):
    """``(st, pos, lo, hi)`` of the player to act after ``betting``."""
    h = play(betting)
    lo, hi = raise_range(h.st)
    return h.st, h.actor, lo, hi


def random_states(seed: int, n_hands: int):
    """Every decision state ``(HandState copy, legal actions)`` met in ``n_hands`` random legal hands."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_hands):
        h = HandState()
        while not h.finished:
            la = h.legal_actions()
            snap = HandState()
            snap.st[:] = h.st
            out.append((snap, la))
            u = rng.random()
            if la.can_fold and u < 0.08:
                h.fold()
            elif not la.can_raise or u < 0.55:
                h.call()
            else:
                v = rng.random()
                lo, hi = la.min_raise_to, la.max_raise_to
                amount = lo if v < 0.4 else hi if v < 0.47 else int(rng.integers(lo, min(hi, 4 * lo) + 1))
                h.raise_to(amount)
    return out


STATES = random_states(8, 700)


def test_random_states_cover_the_interesting_spots():
    rounds = {h.round for h, _ in STATES}
    assert rounds == {0, 1, 2, 3}
    assert sum(not la.can_raise for _, la in STATES) > 20  # facing all-in
    assert sum(la.can_raise and la.min_raise_to == la.max_raise_to == STACK for _, la in STATES) > 5
    assert sum(la.to_call == 0 for _, la in STATES) > 300


# ---------------------------------------------------------------- Algorithm 1

def algorithm1_reference(h: HandState, o: float):
    """Algorithm 1 of ASHE 1.0 from the paper's text: y = o * stack extra chips."""
    la = h.legal_actions()
    y, x = o * STACK, la.to_call
    if y < x:
        return (FOLD, 0) if x > 0 else (CALL, 0)
    if not la.can_raise:
        return CALL, 0
    r_min = la.min_raise_to - max(h.spent)  # the smallest legal raise increment
    if y < x + r_min:
        return CALL, 0
    k = min(range(STACK // BIG_BLIND + 2), key=lambda k: (abs(k * BIG_BLIND - y), -k))  # ties round up
    target = h.spent[h.actor] + k * BIG_BLIND
    return RAISE, min(max(target, la.min_raise_to), la.max_raise_to)


BIG_BLIND_CASES = [
    # Button first to act: x = 50, minimum raise to 200 (increment 100).
    ("", 49, (FOLD, 0)),
    ("", 50, (CALL, 0)),
    ("", 149, (CALL, 0)),
    ("", 151, (RAISE, 250)),  # k = 2: 50 + 200
    ("", 1040, (RAISE, 1050)),  # k = 10
    ("", 1060, (RAISE, 1150)),  # k = 11
    ("", 19_990, (RAISE, STACK)),  # 50 + 20000 is beyond the stack: all-in
    ("", 20_000, (RAISE, STACK)),
    # Big blind after a limp: x = 0, never folds.
    ("c", 0, (CALL, 0)),
    ("c", 99, (CALL, 0)),
    ("c", 100, (RAISE, 200)),
    ("c", 260, (RAISE, 400)),
    # Big blind facing a raise to 300: x = 200, minimum raise to 500 (increment 200).
    ("r300", 199, (FOLD, 0)),
    ("r300", 200, (CALL, 0)),
    ("r300", 399, (CALL, 0)),
    ("r300", 401, (RAISE, 500)),
    ("r300", 440, (RAISE, 500)),
    ("r300", 460, (RAISE, 600)),  # commit 500 more: 100 + 500
    # Flop, first to act: x = 0, minimum bet one big blind (to 400).
    ("r300c/", 60, (CALL, 0)),
    ("r300c/", 100, (RAISE, 400)),
    ("r300c/", 740, (RAISE, 1000)),
    # Flop, the button facing a bet of 1000 into 600: x = 1000, minimum raise to 2300.
    ("r300c/r1300", 999, (FOLD, 0)),
    ("r300c/r1300", 1000, (CALL, 0)),
    ("r300c/r1300", 1999, (CALL, 0)),
    ("r300c/r1300", 2000, (RAISE, 2300)),
    ("r300c/r1300", 5020, (RAISE, 5300)),  # 300 + 50 big blinds
    # Facing 12000 the only raise is all-in (increment 8000, below the minimum).
    ("r12000", 11_899, (FOLD, 0)),
    ("r12000", 11_900, (CALL, 0)),
    ("r12000", 19_899, (CALL, 0)),
    ("r12000", 19_900, (RAISE, STACK)),
    # Facing all-in no raise is legal: call whatever y beyond x.
    ("r20000", 19_899, (FOLD, 0)),
    ("r20000", 20_000, (CALL, 0)),
]


def test_algorithm1_no_raise_after_63_actions():
    h = HandState()
    for k in range(63):
        h.raise_to(200 + 100 * k)
    lo, hi = raise_range(h.st)
    assert lo < 0
    assert algorithm1(h.st, h.actor, lo, hi, 1.0) == (CALL, 0)
    assert algorithm1(h.st, h.actor, lo, hi, 0.0) == (FOLD, 0)


def algorithm1_pot_reference(h: HandState, o: float):
    """Algorithm 1 with the paper's Slumbot adjustments, from its text: below a quarter pot a call, else the
    nearest of half, one, one and a half and two pots (the pot once called) or all-in."""
    la = h.legal_actions()
    y, x = o * STACK, la.to_call
    if y < x:
        return (FOLD, 0) if x > 0 else (CALL, 0)
    p = sum(h.spent) + x
    if not la.can_raise or y - x < p / 4:
        return CALL, 0
    sizes = [p / 2, p, 3 * p / 2, 2 * p, la.max_raise_to - max(h.spent)]
    best = min(reversed(sizes), key=lambda size: abs(size - (y - x)))  # a tie goes to the earlier size
    target = max(h.spent) + int(best + 0.5)
    return RAISE, min(max(target, la.min_raise_to), la.max_raise_to)


POT_CASES = [
    # Big blind facing a raise to 300: x = 200, the pot once called 600 (a quarter 150, half 300).
    ("r300", 199, (FOLD, 0)),
    ("r300", 349, (CALL, 0)),  # wants 149 more: below a quarter pot
    ("r300", 350, (RAISE, 600)),  # wants 150: half a pot, to 300 + 300
    ("r300", 840, (RAISE, 900)),  # wants 640: one pot (600), to 300 + 600
    ("r300", 1160, (RAISE, 1200)),  # wants 960: one and a half pots (900) are nearer than two (1200)
    # Flop, first to act after 300-300: x = 0, the pot 600.
    ("r300c/", 149, (CALL, 0)),
    ("r300c/", 150, (RAISE, 600)),  # half a pot: bet 300
    ("r300c/", 1300, (RAISE, 1500)),  # two pots (1200) bet
    ("r300c/", 12_000, (RAISE, STACK)),  # all-in is nearest
    # Facing all-in no raise is legal.
    ("r20000", 20_000, (CALL, 0)),
]
#: Algorithm 1 as the bots play it, and with the Slumbot adjustments: (kernel, reference from the text)
RULES = {"big-blinds": (algorithm1, algorithm1_reference), "pot": (algorithm1_pot, algorithm1_pot_reference)}


@pytest.mark.parametrize("rule, betting, y, expected",
                         [("big-blinds", *case) for case in BIG_BLIND_CASES] + [("pot", *case) for case in POT_CASES])
def test_algorithm1_hand_computed(rule, betting, y, expected):
    kernel, reference = RULES[rule]
    st, pos, lo, hi = spot(betting)
    o = y / STACK
    assert kernel(st, pos, lo, hi, o) == expected
    assert reference(play(betting), o) == expected


@pytest.mark.parametrize("rule", RULES)
def test_algorithm1_matches_reference_on_random_states(rule):
    kernel, reference = RULES[rule]
    rng = np.random.default_rng(1)
    counts = {FOLD: 0, CALL: 0, RAISE: 0}
    for h, la in STATES[::2]:
        lo, hi = raise_range(h.st)
        # Log-uniform o from 1e-4 to 1 so that small y (calls, min raises) are as common as big ones.
        for o in 10.0 ** rng.uniform(-4, 0, size=6):
            got = kernel(h.st, h.actor, lo, hi, o)
            assert got == reference(h, o), (h.st, o)
            counts[got[0]] += 1
    assert min(counts.values()) > 500, counts


# ---------------------------------------------------------------- the four ASHE 1.0 opponents

def test_calling_machine_always_checks_or_calls():
    for h, _ in STATES:
        assert calling_machine_act(h.st, h.actor) == (CALL, 0)


def test_candid_statistician_is_algorithm1_with_hs_to_the_seventh():
    st, pos, lo, hi = spot("")
    # 0.8**7 * 20000 = 4194.3 chips: 42 big blinds on top of the 50 already in.
    assert candid_statistician_act(st, pos, lo, hi, 0.8, 7.0) == (RAISE, 4250)
    assert candid_statistician_act(st, pos, lo, hi, 0.5, 7.0) == (RAISE, 250)  # 156.25 >= 50 + 100: 2 big blinds
    assert candid_statistician_act(st, pos, lo, hi, 0.45, 7.0) == (CALL, 0)  # 74.7 chips: call, no raise
    assert candid_statistician_act(st, pos, lo, hi, 0.4, 7.0) == (FOLD, 0)  # 32.8 chips < 50
    rng = np.random.default_rng(2)
    for h, _ in STATES[1::3]:
        lo, hi = raise_range(h.st)
        hs = rng.random()
        assert candid_statistician_act(h.st, h.actor, lo, hi, hs, 7.0) == algorithm1_reference(h, hs**7)


def test_scared_limper_limps_on_the_button_then_uses_hs_to_the_fiftieth():
    st, pos, lo, hi = spot("")
    for hs in (0.0, 0.3, 0.9, 1.0):  # whatever the hand
        assert scared_limper_act(st, pos, lo, hi, hs, 50.0) == (CALL, 0)
    # Not the button's first action: Algorithm 1 with o = hs**50.
    st, pos, lo, hi = spot("c")  # big blind after the limp
    assert scared_limper_act(st, pos, lo, hi, 1.0, 50.0) == (RAISE, STACK)
    assert scared_limper_act(st, pos, lo, hi, 0.95, 50.0) == (RAISE, 100 + 1500)  # 0.95**50*20000 = 1538.9
    st, pos, lo, hi = spot("cr300")  # the button again, facing a raise: x = 200
    assert scared_limper_act(st, pos, lo, hi, 0.9, 50.0) == (FOLD, 0)  # 0.9**50*20000 = 103.1 < 200
    assert scared_limper_act(st, pos, lo, hi, 0.97, 50.0) == (RAISE, 4500)  # 4362.4: 100 + 44 big blinds
    st, pos, lo, hi = spot("r300c/c")  # the button on the flop after a check
    assert scared_limper_act(st, pos, lo, hi, 0.9, 50.0) == (RAISE, 400)  # 0.9**50*20000 = 103.1
    rng = np.random.default_rng(3)
    for h, _ in STATES[2::3]:
        lo, hi = raise_range(h.st)
        hs = rng.random() ** 0.02  # near 1, where hs**50 spans (0, 1)
        limp = (h.round, h.actor, h.st[S_ROUND_ACTIONS]) == (0, 1, 0)
        expected = (CALL, 0) if limp else algorithm1_reference(h, hs**50)
        assert scared_limper_act(h.st, h.actor, lo, hi, hs, 50.0) == expected


@pytest.mark.parametrize(
    "betting, expected",
    [
        ("", 300),  # only the blinds: pot 150 + 50 to call, raise to 100 + 200
        ("c", 300),  # after a limp: pot 200, raise to 100 + 200
        ("r300", 1500),  # raised: twice (pot 400 + 200 to call) on top of 300
        ("cr300", 1500),
        ("r300c/", 900),  # flop, unbet: pot 600
        ("r300c/c", 900),  # flop after a check
        ("r300c/r900", 4500),  # facing a bet: 900 + 2 * (1200 + 600)
        ("r300c/r900r4500", STACK),  # 4500 + 2 * (5400 + 3600) = 22500: all-in
        ("r300c/r900c/", 2700),
        ("r7000", STACK),  # 7000 + 2 * 14000
        ("r12000", STACK),  # only the all-in raise is legal
    ],
)
def test_hothead_maniac_raise_sizes(betting, expected):
    st, pos, lo, hi = spot(betting)
    assert hothead_maniac_act(st, pos, lo, hi, 2.0, 4.0) == (RAISE, expected)
    assert check_action(st, RAISE, expected) == OK


def test_hothead_maniac_calls_when_no_raise_is_legal_and_honours_its_parameters():
    st, pos, lo, hi = spot("r20000")
    assert hothead_maniac_act(st, pos, lo, hi, 2.0, 4.0) == (CALL, 0)
    p = hothead_maniac(0.5, 1.5).params
    assert list(p) == [1.0, 3.0]
    assert hothead_maniac_act(*spot(""), p[0], p[1]) == (RAISE, 200)  # half pot: 100 + 100
    assert hothead_maniac_act(*spot("r300"), p[0], p[1]) == (RAISE, 1200)  # 1.5 pots: 300 + 900
    assert pot_raise_to(*spot("r300")[:2], 3) == 1200


def test_every_bot_action_is_legal_on_random_states():
    rng = np.random.default_rng(4)
    bad = []
    for h, la in STATES:
        st, pos = h.st, h.actor
        lo, hi = raise_range(st)
        hs = rng.random()
        acts = {
            "calling": calling_machine_act(st, pos),
            "candid": candid_statistician_act(st, pos, lo, hi, hs, 7.0),
            "limper": scared_limper_act(st, pos, lo, hi, hs ** 0.02, 50.0),
            "maniac": hothead_maniac_act(st, pos, lo, hi, 2.0, 4.0),
            "maniac-half": hothead_maniac_act(st, pos, lo, hi, 1.0, 1.0),
            "algorithm1": algorithm1(st, pos, lo, hi, rng.random()),
            "random": random_act(st, pos, lo, hi, np.array([rng.integers(2**63)], dtype=np.uint64)),
        }
        for name, (action, amount) in acts.items():
            if check_action(st, action, amount) != OK or (action != RAISE and amount != 0):
                bad.append((name, st.copy(), action, amount))
    assert not bad, bad[:5]


# ---------------------------------------------------------------- the random bot

def random_options(h: HandState) -> set:
    """The distinct legal options among fold, check/call, raises of 0.5/1/1.5/2 pots (after calling) and all-in."""
    la = h.legal_actions()
    opts = {(CALL, 0)} | ({(FOLD, 0)} if la.can_fold else set())
    if la.can_raise:
        unit = sum(h.spent) + la.to_call
        for f in (Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(2)):
            opts.add((RAISE, min(max(max(h.spent) + ceil(f * unit), la.min_raise_to), la.max_raise_to)))
        opts.add((RAISE, la.max_raise_to))
    return opts


@pytest.mark.parametrize(
    "betting, expected",
    [
        ("", {(FOLD, 0), (CALL, 0), (RAISE, 200), (RAISE, 300), (RAISE, 400), (RAISE, 500), (RAISE, STACK)}),
        ("cc/", {(CALL, 0), (RAISE, 200), (RAISE, 300), (RAISE, 400), (RAISE, 500), (RAISE, STACK)}),
        ("r300c/r900r4500",
         {(FOLD, 0), (CALL, 0), (RAISE, 9000), (RAISE, 13500), (RAISE, 18000), (RAISE, STACK)}),
        ("r12000", {(FOLD, 0), (CALL, 0), (RAISE, STACK)}),
        ("r20000", {(FOLD, 0), (CALL, 0)}),
    ],
)
def test_random_bot_is_uniform_over_distinct_legal_options(betting, expected):
    h = play(betting)
    assert random_options(h) == expected
    st, pos, lo, hi = spot(betting)
    rng = np.array([12345], dtype=np.uint64)
    n = 14_000
    counts: dict = {}
    for _ in range(n):
        a = random_act(st, pos, lo, hi, rng)
        counts[a] = counts.get(a, 0) + 1
    assert set(counts) == expected
    k = len(expected)
    p = 1 / k
    se = np.sqrt(n * p * (1 - p))
    for option, c in counts.items():
        assert abs(c - n * p) < 4 * se, (option, c, n * p)
    # Chi-square goodness of fit at the 1e-4 level as well.
    from scipy.stats import chi2

    stat = sum((c - n * p) ** 2 / (n * p) for c in counts.values())
    assert stat < chi2.ppf(1 - 1e-4, k - 1)


def test_random_bot_options_on_random_states_and_determinism():
    seen_all = 0
    for i, (h, la) in enumerate(STATES[::4]):
        lo, hi = raise_range(h.st)
        expected = random_options(h)
        rng = np.array([i + 1], dtype=np.uint64)
        draws = [random_act(h.st, h.actor, lo, hi, rng) for _ in range(40)]
        assert set(draws) <= expected, (h.st, set(draws) - expected)
        seen_all += set(draws) == expected
        again = np.array([i + 1], dtype=np.uint64)
        assert draws == [random_act(h.st, h.actor, lo, hi, again) for _ in range(40)]
        assert rng[0] != i + 1  # the generator state advances in place
    assert seen_all > 0.8 * len(STATES[::4])


def test_states_of_a_hand_satisfy_the_random_bot_shortcut():
    """``random_act`` relies on this: the player not to act has put in the most (``m``), the minimum raise
    is at most ``2m`` and the maximum is the stack, so the pot fractions are the raises to 2m..5m."""
    for h, la in STATES:
        m = h.st[S_MAX_SPENT]
        assert h.st[S_SPENT0 + 1 - h.actor] == m
        assert not la.can_raise or (la.min_raise_to <= 2 * m and la.max_raise_to == STACK)


@pytest.mark.parametrize("shift", [0, 1])
def test_random_act_draws_exactly_as_the_general_formula(shift):
    """Same draws, same options, same generator state as ``random_act_general`` on every state met in random
    play, on the crafted spots, and on states that break the shortcut's assumptions (which take the general path)."""
    spots = [HandState()] + [play(b) for b in ("c", "r300", "cc/", "r300c/r900r4500", "r12000", "r20000", "r19950")]
    states = [h for h, _ in STATES[shift::2]] + spots
    odd = []
    for h in spots[:4]:  # the other player put in less than the maximum, or a minimum raise above 2m
        g = HandState()
        g.st[:] = h.st
        g.st[S_SPENT0 + 1 - h.actor] -= 10
        odd.append(g)
        g = HandState()
        g.st[:] = h.st
        g.st[S_MIN_RAISE_TO] = 3 * h.st[S_MAX_SPENT]
        odd.append(g)
    for i, h in enumerate(states + odd):
        lo, hi = raise_range(h.st)
        fast, general = np.array([7 + i], np.uint64), np.array([7 + i], np.uint64)
        for _ in range(20):
            assert random_act(h.st, h.actor, lo, hi, fast) == random_act_general(h.st, h.actor, lo, hi, general)
        assert fast[0] == general[0]


def test_bot_specs_with_rule_constants():
    """``NAME(key=value, ...)`` builds the bot with those constants: same parameters and same play as the
    factory called directly, named as written; bad keys or values are clear errors."""
    from pokerduel.play.matches import play_duplicate
    from pokerduel.players.base import candid_statistician, hothead_maniac, make_player, split_specs

    p = make_player("candid-statistician(exponent=15)")
    assert p.name == "candid-statistician(exponent=15)"
    np.testing.assert_array_equal(p.params, candid_statistician(15.0).params)
    q = make_player("hothead-maniac( unraised=0.5, raised=1 )")
    np.testing.assert_array_equal(q.params, hothead_maniac(0.5, 1.0).params)
    a = play_duplicate(p, q, 50, 3).hand_payoffs
    b = play_duplicate(candid_statistician(15.0), hothead_maniac(0.5, 1.0), 50, 3).hand_payoffs
    np.testing.assert_array_equal(a, b)
    assert make_player("calling-machine()").name == "calling-machine"
    for bad, words in (("candid-statistician(exp=3)", "one of exponent"),
                       ("candid-statistician(exponent=x)", "must be a number"),
                       ("candid-statistician(exponent=3,exponent=4)", "each key once"),
                       ("hothead-maniac(unraised=0.3)", "multiple of 0.5"),
                       ("no-such-bot(a=1)", "unknown player")):
        with pytest.raises(ValueError, match=words):
            make_player(bad)
    assert split_specs("calling-machine, hothead-maniac(unraised=0.5,raised=1),x.h5:3") == (
        "calling-machine", "hothead-maniac(unraised=0.5,raised=1)", "x.h5:3")
