"""Seven-card evaluator against exhaustive enumeration, eval7, and hands spelled out."""

import numba
import numpy as np
import pytest

from pokerduel.engine import evaluator_tables
from pokerduel.engine.cards import parse_cards
from pokerduel.engine.evaluator import category, category_name, eval7, eval7_pair, evaluate

TEXTBOOK_7CARD_COUNTS = {
    "straight flush": 41_584,
    "four of a kind": 224_848,
    "full house": 3_473_184,
    "flush": 4_047_644,
    "straight": 6_180_020,
    "three of a kind": 6_461_620,
    "two pair": 31_433_400,
    "one pair": 58_627_800,
    "high card": 23_294_460,
}


@numba.njit
def _all_seven_card_hands(counts, seen):
    total = 0
    for a in range(46):
        for b in range(a + 1, 47):
            for c in range(b + 1, 48):
                for d in range(c + 1, 49):
                    for e in range(d + 1, 50):
                        for f in range(e + 1, 51):
                            for g in range(f + 1, 52):
                                v = eval7(a, b, c, d, e, f, g)
                                counts[v >> 12] += 1
                                seen[v] = True
                                total += 1
    return total


def test_exhaustive_category_counts_match_textbook():
    counts = np.zeros(9, dtype=np.int64)
    seen = np.zeros(1 << 16, dtype=np.bool_)
    assert _all_seven_card_hands(counts, seen) == 133_784_560
    names = ["high card", "one pair", "two pair", "three of a kind", "straight", "flush",
             "full house", "four of a kind", "straight flush"]
    assert {n: int(c) for n, c in zip(names, counts)} == TEXTBOOK_7CARD_COUNTS
    assert seen.sum() == 4824  # distinct seven-card hand classes


def _random_hands(rng, n):
    return np.argsort(rng.random((n, 52)), axis=1)[:, :7].astype(np.uint8)


@pytest.mark.slow
def test_ordering_agrees_with_eval7_on_a_million_pairs():
    eval7lib = pytest.importorskip("eval7")
    from pokerduel.engine.cards import card_str

    deck = [eval7lib.Card(card_str(c)) for c in range(52)]
    rng = np.random.default_rng(7)
    hands = _random_hands(rng, 2_000_000)
    ours = evaluate(hands)
    theirs = np.fromiter((eval7lib.evaluate([deck[c] for c in h]) for h in hands.tolist()),
                         dtype=np.int64, count=len(hands))
    a, b = ours[0::2], ours[1::2]
    ta, tb = theirs[0::2], theirs[1::2]
    assert len(a) == 1_000_000
    np.testing.assert_array_equal(np.sign(a.astype(np.int64) - b), np.sign(ta - tb))
    # Stronger: one strictly increasing map from our values to eval7's over all two million hands.
    order = np.argsort(ours, kind="stable")
    ours_s, theirs_s = ours[order], theirs[order]
    same = ours_s[1:] == ours_s[:-1]
    assert np.all(theirs_s[1:][same] == theirs_s[:-1][same])
    assert np.all(theirs_s[1:][~same] > theirs_s[:-1][~same])


def v(text):
    c = parse_cards(text)
    assert len(c) == 7
    return int(eval7(*c))


@pytest.mark.parametrize(
    "hand, name",
    [
        ("Ah 2c 3d 4s 5h 9c Kd", "straight"),          # wheel
        ("Ah 2h 3h 4h 5h 9c Kd", "straight flush"),    # steel wheel
        ("9c Th Jh Qh Kh 2h 3h", "flush"),             # straight and flush, not the same five cards
        ("Ts Js Qs Ks As Ad Ac", "straight flush"),    # royal flush over trips
        ("Kc Kd Ks 7h 7c 7d 2s", "full house"),         # two trips
        ("Kc Kd 7s 7h 2c 2d As", "two pair"),           # three pairs
        ("9c 9d 9h 9s Ac Kd 2s", "four of a kind"),
        ("2c 3d 4h 5s 7c 9d Jh", "high card"),
    ],
)
def test_categories_of_hands_spelled_out(hand, name):
    assert category_name(v(hand)) == name


def test_pitfall_orderings():
    # The wheel is the lowest straight; the 5-high straight flush beats quads.
    assert v("Ah 2c 3d 4s 5h 9c Kd") < v("6h 2c 3d 4s 5h 9c Kd")
    assert v("Ah 2h 3h 4h 5h 9c Kd") > v("9c 9d 9h 9s Ac Kd 2s")
    # Flush kickers: the fifth card decides.
    assert v("Ah Kh 9h 7h 4h 2c 3d") > v("Ah Kh 9h 7h 3h 2c 5d")
    # Board plays: a board straight ties exactly whatever the hole cards.
    assert v("2c 3d 5s 6h 7c 8d 9h") == v("Kc Qd 5s 6h 7c 8d 9h")
    # Board flush plays when the hole cards are lower non-suited cards.
    assert v("2c 3d As Ks 9s 7s 4s") == v("2d 3c As Ks 9s 7s 4s")
    # Three pairs: the best kicker may come from the third pair.
    assert v("Kc Kd 7s 7h 5c 5d 2s") == v("Kc Kd 7s 7h 5c 4d 2s")
    assert v("Kc Kd 7s 7h 6c 6d 2s") > v("Kc Kd 7s 7h 5c 5d 2s")
    # Quads take the best kicker, from the board or not.
    assert v("9c 9d 9h 9s Ac 2d 3s") > v("9c 9d 9h 9s Kc Qd Js")


def test_batch_matches_scalar_and_categories():
    rng = np.random.default_rng(3)
    hands = _random_hands(rng, 1000)
    vals = evaluate(hands)
    assert vals.dtype == np.int32 and vals.shape == (1000,)
    assert all(vals[i] == eval7(*hands[i]) for i in range(1000))
    assert np.array_equal(category(vals), vals >> 12)
    assert np.array_equal(evaluate(hands.astype(np.int64)), vals)


@pytest.mark.parametrize(
    "bad, message",
    [
        (np.zeros((3, 6), dtype=np.uint8), "shape"),
        (np.full((1, 7), 52, dtype=np.uint8), "0..51"),
        (np.array([[0, 1, 2, 3, 4, 5, 5]]), "row 0"),
        (np.array([[0, 1, 2, 3, 4, 5, -1]]), "0..51"),
        (np.zeros((1, 7), dtype=np.float64), "integer"),
    ],
)
def test_evaluate_rejects_bad_input(bad, message):
    with pytest.raises(ValueError, match=message):
        evaluate(bad)


def test_shipped_tables_equal_a_fresh_build():
    from importlib import resources

    fresh = evaluator_tables.build_tables()
    with resources.files("pokerduel").joinpath("data/evaluator_tables.npz").open("rb") as fh:
        shipped = np.load(fh, allow_pickle=False)
        for name, table in fresh.items():
            np.testing.assert_array_equal(shipped[name], table)


@numba.njit
def _pairs_disagree(decks):
    bad = 0
    flushes = 0
    for i in range(decks.shape[0]):
        c = decks[i]
        v0, v1 = eval7_pair(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8])
        w0 = eval7(c[0], c[1], c[4], c[5], c[6], c[7], c[8])
        w1 = eval7(c[2], c[3], c[4], c[5], c[6], c[7], c[8])
        bad += (v0 != w0) + (v1 != w1)
        flushes += ((w0 >> 12) == 5) + ((w1 >> 12) == 5) + ((w0 >> 12) == 8) + ((w1 >> 12) == 8)
    return bad, flushes


def test_pair_evaluation_equals_two_seven_card_evaluations():
    """The match loop's ``eval7_pair`` (board summed once) against ``eval7`` on each player's seven cards."""
    from pokerduel.engine.decks import deal_decks

    bad, flushes = _pairs_disagree(deal_decks(17, 300_000).astype(np.int64))
    assert bad == 0
    assert flushes > 10_000  # the flush path is exercised too
