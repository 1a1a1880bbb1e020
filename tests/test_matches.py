"""Duplicate matches: every bot pairing replayed through the checked rules with eval7 showdowns, the
duplicate identities (self-play cancels, seat swap negates), chunking and continuation, common random
numbers, closed-form outcomes of simple pairings, the mbb/hand summary and argument checks."""

from itertools import product

import numpy as np
import pytest

from pokerduel.engine.cards import card_str
from pokerduel.engine.decks import deal_decks
from pokerduel.engine.rules import CALL, STACK, HandState, raise_range
from pokerduel.play.matches import play_duplicate
from pokerduel.players.base import BOTS, make_player
from pokerduel.players.bots import candid_statistician_act, scared_limper_act
from pokerduel.players.hand_strength import hand_strength

NAMES = list(BOTS)
DETERMINISTIC = ["calling-machine", "scared-limper", "hothead-maniac", "candid-statistician"]


def _eval7_values(cards):
    """Independent seven-card values (eval7, higher is better) of position 0 and position 1 for one deal."""
    eval7 = pytest.importorskip("eval7")
    deck = [eval7.Card(card_str(c)) for c in cards]
    board = deck[4:9]
    return eval7.evaluate(deck[0:2] + board), eval7.evaluate(deck[2:4] + board)


def _sign(x):
    return (x > 0) - (x < 0)


def _replay(rec) -> HandState:
    """Replay a recorded hand through the checked rules API (raises on any illegal action)."""
    h = HandState()
    for rnd, actor, action, amount in rec.actions:
        assert (h.round, h.actor) == (rnd, actor)
        {0: h.fold, 1: h.call, 2: lambda: h.raise_to(amount)}[action]()
        if action != 2:
            assert amount == 0
    assert h.finished
    return h


@pytest.mark.parametrize("a, b", list(product(NAMES, NAMES)))
def test_every_pairing_is_legal_and_payoffs_agree_with_replay(a, b):
    n = 300
    res = play_duplicate(a, b, n, seed=2024, records=True)
    assert res.invalid_actions == 0
    assert res.hand_payoffs.shape == (n, 2) and res.n_hands == 2 * n
    assert np.abs(res.hand_payoffs).max() <= STACK
    assert len(res.records) == 2 * n
    for rec in res.records:
        d, half = rec.deal, rec.half
        assert rec.names == ((a, b) if half == 0 else (b, a))
        h = _replay(rec)
        if h.showdown:
            p = h.payoffs(*_eval7_values(rec.cards))
        else:
            p = h.payoffs()
        assert p == rec.payoffs and p[0] + p[1] == 0 and abs(p[0]) <= STACK
        assert res.hand_payoffs[d, half] == p[half]  # A sits at position ``half``
    np.testing.assert_array_equal(res.samples, res.hand_payoffs.sum(axis=1))


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_deterministic_bot_against_itself_scores_zero_every_deal(name):
    res = play_duplicate(name, name, 300, seed=5)
    assert np.all(res.samples == 0)
    assert np.any(res.hand_payoffs != 0)  # the hands themselves are won and lost


@pytest.mark.parametrize("a, b", [(x, y) for i, x in enumerate(DETERMINISTIC) for y in DETERMINISTIC[i + 1:]])
def test_deterministic_bots_are_antisymmetric(a, b):
    ab = play_duplicate(a, b, 300, seed=6)
    ba = play_duplicate(b, a, 300, seed=6)
    np.testing.assert_array_equal(ab.samples, -ba.samples)
    np.testing.assert_array_equal(ab.hand_payoffs[:, 0], -ba.hand_payoffs[:, 1])  # same seating, same hand
    a_m, a_ci = ab.mbb_per_hand()
    b_m, b_ci = ba.mbb_per_hand()
    assert a_m == -b_m and a_ci == pytest.approx(b_ci, rel=1e-12)


@pytest.mark.parametrize(
    "a, b", [("random", "random"), ("random", "candid-statistician"), ("scared-limper", "random"),
             ("hothead-maniac", "candid-statistician")],
)
def test_results_do_not_depend_on_chunking_or_splitting(a, b):
    whole = play_duplicate(a, b, 300, seed=11, records=True)
    chunked = play_duplicate(a, b, 300, seed=11, records=True, chunk=7)
    first = play_duplicate(a, b, 110, seed=11, records=True)
    rest = play_duplicate(a, b, 190, seed=11, first_deal=110, records=True, chunk=64)
    split = np.concatenate([first.hand_payoffs, rest.hand_payoffs])
    np.testing.assert_array_equal(whole.hand_payoffs, chunked.hand_payoffs)
    np.testing.assert_array_equal(whole.hand_payoffs, split)
    for r1, r2, r3 in zip(whole.records, chunked.records, first.records + rest.records):
        assert r1.deal == r2.deal == r3.deal and r1.half == r2.half == r3.half
        assert r1.actions == r2.actions == r3.actions
        np.testing.assert_array_equal(r1.cards, r3.cards)
    assert rest.records[0].deal == 110 and rest.first_deal == 110
    chunks = []
    play_duplicate(a, b, 300, seed=11, chunk=128, progress=chunks.append)
    assert chunks == [128, 128, 44]


def test_same_seed_same_results_and_the_seed_matters():
    r1 = play_duplicate("random", "random", 300, seed=3)
    r2 = play_duplicate("random", "random", 300, seed=3)
    r3 = play_duplicate("random", "random", 300, seed=4)
    np.testing.assert_array_equal(r1.hand_payoffs, r2.hand_payoffs)
    assert not np.array_equal(r1.hand_payoffs, r3.hand_payoffs)
    # The two seats of the random bot draw from different streams: random vs random is not a mirror.
    assert np.any(r1.samples != 0)


def test_common_random_numbers_across_pairings():
    seed, n = 9, 60
    decks = deal_decks(seed, n).astype(np.int64)
    shifted = deal_decks(seed, 20, first_deal=40).astype(np.int64)
    for a, b in [("random", "calling-machine"), ("hothead-maniac", "scared-limper"), ("candid-statistician", "random")]:
        res = play_duplicate(a, b, n, seed=seed, records=True)
        cards = np.array([rec.cards for rec in res.records]).reshape(n, 2, 9)
        np.testing.assert_array_equal(cards[:, 0], decks)
        np.testing.assert_array_equal(cards[:, 1], decks)  # both halves of a deal see the same cards
        late = play_duplicate(a, b, 20, seed=seed, first_deal=40, records=True)
        np.testing.assert_array_equal(np.array([r.cards for r in late.records[::2]]), shifted)
    assert all(len(set(row)) == 9 and min(row) >= 0 and max(row) <= 51 for row in decks.tolist())
    assert np.array_equal(shifted, decks[40:60])


def test_strength_bots_act_on_their_own_cards_preflop_and_on_the_river():
    """Where hand strength is exact (preflop table, river enumeration), every recorded decision of a strength
    bot is the bot kernel applied to the strength of its own hole cards and the visible board."""
    kernels = {"candid-statistician": (candid_statistician_act, 7.0), "scared-limper": (scared_limper_act, 50.0)}
    checked = {0: 0, 3: 0}
    for a, b in [("candid-statistician", "random"), ("random", "scared-limper"),
                 ("candid-statistician", "calling-machine"), ("calling-machine", "scared-limper")]:
        res = play_duplicate(a, b, 150, seed=17, records=True)
        for rec in res.records:
            h = HandState()
            for rnd, actor, action, amount in rec.actions:
                name = rec.names[actor]
                if name in kernels and rnd in (0, 3):
                    act, exponent = kernels[name]
                    hole = rec.cards[2 * actor: 2 * actor + 2]
                    hs = hand_strength(hole, rec.cards[4:9] if rnd == 3 else ())
                    lo, hi = raise_range(h.st)
                    assert act(h.st, actor, lo, hi, hs, exponent) == (action, amount)
                    checked[rnd] += 1
                {0: h.fold, 1: h.call, 2: lambda: h.raise_to(amount)}[action]()
    assert checked[0] > 1000 and checked[3] > 100, checked


def test_calling_machines_check_down_and_showdown_matches_eval7():
    res = play_duplicate("calling-machine", "calling-machine", 300, seed=12, records=True)
    check_down = [(r, p, CALL, 0) for r, first in enumerate((1, 0, 0, 0)) for p in (first, 1 - first)]
    outcomes = set()
    for rec in res.records:
        assert rec.actions == check_down
        v0, v1 = _eval7_values(rec.cards)
        assert rec.payoffs == (100 * _sign(v0 - v1), -100 * _sign(v0 - v1))
        outcomes.add(_sign(v0 - v1))
    assert outcomes == {-1, 0, 1}
    assert np.all(res.samples == 0)


def test_closed_form_outcomes_of_simple_pairings():
    # Hothead raises the pot every street and the Calling Machine calls: 8100 chips each at showdown.
    res = play_duplicate("calling-machine", "hothead-maniac", 200, seed=13, records=True)
    for rec in res.records:
        v0, v1 = _eval7_values(rec.cards)
        mine = (v0 - v1) if rec.half == 0 else (v1 - v0)
        assert res.hand_payoffs[rec.deal, rec.half] == 8100 * _sign(mine)
    # The Scared Limper folds to every raise (0.852**50 * 20000 < 7 chips): it loses 100 in each seat.
    res = play_duplicate("scared-limper", "hothead-maniac", 200, seed=13)
    assert np.all(res.hand_payoffs == -100)
    assert res.mbb_per_hand() == (-1000.0, 0.0)


@pytest.mark.parametrize("a, b", [("random", "candid-statistician"), ("hothead-maniac", "random")])
def test_mbb_per_hand_matches_numpy(a, b):
    res = play_duplicate(a, b, 300, seed=21)
    chips = res.hand_payoffs[:, 0].astype(float) + res.hand_payoffs[:, 1]
    mbb = chips / 2 / 100 * 1000
    mean, half = res.mbb_per_hand()
    assert mean == pytest.approx(mbb.mean(), rel=1e-12, abs=1e-9)
    assert half == pytest.approx(1.96 * np.std(mbb, ddof=1) / np.sqrt(300), rel=1e-12)
    assert half > 0
    one = play_duplicate(a, b, 1, seed=21)
    m1, h1 = one.mbb_per_hand()
    assert m1 == pytest.approx(mbb[0]) and np.isnan(h1)


@pytest.mark.parametrize("seed", [0, 19])
def test_random_bots_own_loop_equals_the_per_decision_loop(seed):
    """Two random bots play through ``_play_random_hand``; the per-decision loop of every other pair (kind
    dispatch, the dealer's legality check) gives the same hands, payoffs and no repairs."""
    own = play_duplicate("random", "random", 3000, seed=seed, records=True, chunk=1000)
    generic = play_duplicate("random", "random", 3000, seed=seed, records=True, chunk=1000, generic_loop=True)
    np.testing.assert_array_equal(own.hand_payoffs, generic.hand_payoffs)
    assert own.invalid_actions == generic.invalid_actions == 0
    assert [r.actions for r in own.records] == [r.actions for r in generic.records]
    assert max(len(r.actions) for r in own.records) >= 12 and np.abs(own.hand_payoffs).max() == STACK


def test_players_with_arrays_of_different_layouts_still_play():
    """The loop selects the acting player's arrays when A's and B's have one numba type, and branches
    otherwise (here a memory array that is a strided view): the results are the same."""
    a, b = make_player("hothead-maniac"), make_player("random")
    imem_a, fmem_a = a.new_memory()
    _, fmem_b = b.new_memory()
    strided = np.zeros((2, 2), dtype=np.int64)[:, :1]
    assert not strided.flags.c_contiguous
    odd = play_duplicate(a, b, 300, seed=8, memory=(imem_a, fmem_a, strided, fmem_b))
    np.testing.assert_array_equal(odd.hand_payoffs, play_duplicate(a, b, 300, seed=8).hand_payoffs)
    assert odd.invalid_actions == 0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(a="random", b="random", n_deals=0), "n_deals"),
        (dict(a="random", b="random", n_deals=-3), "n_deals"),
        (dict(a="random", b="random", n_deals=2.5), "n_deals"),
        (dict(a="random", b="random", n_deals=10, first_deal=-1), "first_deal"),
        (dict(a="random", b="nobody", n_deals=10), "unknown player 'nobody'"),
        (dict(a="Random", b="random", n_deals=10), "unknown player 'Random'"),
        (dict(a="random", b="random", n_deals=10, hs_samples=0), "hs_samples"),
        (dict(a="random", b="random", n_deals=10, hs_samples=2.5), "hs_samples"),
        (dict(a="random", b="random", n_deals=10, chunk=0), "chunk"),
    ],
)
def test_play_duplicate_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        play_duplicate(**kwargs)
