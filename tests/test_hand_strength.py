"""Hand strength: the preflop table against published equities and its exact invariant, the river against
brute force with eval7, flop and turn Monte Carlo against exact enumeration, determinism and input checks."""

from itertools import combinations

import numpy as np
import pytest

from pokerduel.engine.cards import card_str, parse_cards
from pokerduel.engine.evaluator import evaluate
from pokerduel.players.hand_strength import (
    DEFAULT_SAMPLES,
    PREFLOP_HS,
    hand_strength,
    hand_strength_kernel,
    preflop_cell,
    river_strength,
)

RANKS = "23456789TJQKA"


def _cell(name: str) -> tuple[int, int]:
    """Table cell of a class written ``AKs``, ``AKo`` or ``AA`` (the layout documented in the module)."""
    hi, lo = RANKS.index(name[0]), RANKS.index(name[1])
    if hi == lo:
        return hi, lo
    return (hi, lo) if name[2] == "s" else (lo, hi)


# Equity against one uniformly random hand, all five board cards rolled out (published tables, 3 decimals).
PUBLISHED = {"AA": 0.852, "KK": 0.824, "AKs": 0.670, "AKo": 0.653, "72o": 0.346}


@pytest.mark.parametrize("name, equity", sorted(PUBLISHED.items()))
def test_preflop_table_matches_published_equities(name, equity):
    assert PREFLOP_HS[_cell(name)] == pytest.approx(equity, abs=1e-3)


def test_preflop_table_combination_weighted_mean_is_one_half():
    """Against a random hand every matchup is counted from both sides, so the mean over all 1326 hands is 1/2."""
    assert PREFLOP_HS.shape == (13, 13) and np.all((PREFLOP_HS > 0.3) & (PREFLOP_HS < 0.9))
    weights = np.where(np.tril(np.ones((13, 13), bool), -1), 4, 12)  # [hi, lo], below the diagonal: suited
    np.fill_diagonal(weights, 6)
    assert weights.sum() == 1326
    assert float((weights * PREFLOP_HS).sum() / 1326) == pytest.approx(0.5, abs=1e-12)


def test_preflop_table_orientation_and_monotone_pairs():
    # Suited beats offsuit for the same ranks; pairs rise with rank.
    hi, lo = np.triu_indices(13, 1)[1], np.triu_indices(13, 1)[0]
    assert np.all(PREFLOP_HS[hi, lo] > PREFLOP_HS[lo, hi])
    assert np.all(np.diff(np.diag(PREFLOP_HS)) > 0)


def test_preflop_lookup_for_all_1326_hands():
    empty = np.zeros(5, dtype=np.int64)
    for a, b in combinations(range(52), 2):
        ra, rb = a >> 2, b >> 2
        suited = (a & 3) == (b & 3)
        name = RANKS[max(ra, rb)] + RANKS[min(ra, rb)] + ("" if ra == rb else "s" if suited else "o")
        expected = PREFLOP_HS[_cell(name)]
        assert hand_strength_kernel(a, b, empty, 0, 1, np.uint64(0)) == expected
        assert hand_strength_kernel(b, a, empty, 0, 1, np.uint64(0)) == expected
        assert preflop_cell(a, b) == _cell(name)
    assert hand_strength("AsKs") == PREFLOP_HS[12, 11] and hand_strength("7h2c") == PREFLOP_HS[0, 5]


def _class_cells(c0, c1):
    """Table cells of hole-card arrays (suited [hi, lo], offsuit [lo, hi])."""
    r0, r1 = c0 // 4, c1 // 4
    hi, lo = np.maximum(r0, r1), np.minimum(r0, r1)
    suited = c0 % 4 == c1 % 4
    return np.where(suited, hi, lo), np.where(suited, lo, hi)


def test_every_preflop_cell_agrees_with_monte_carlo():
    """Every one of the 169 cells within 4.5 standard errors of a Monte Carlo estimate from 3M random deals.

    Each deal scores both players' hole cards (1 - s for the second). 4.5 SE is Bonferroni over 169 cells
    for a family-wise false alarm near 1e-3.
    """
    from pokerduel.engine.decks import deal_decks

    deals = deal_decks(77, 3_000_000)
    v0 = evaluate(deals[:, [0, 1, 4, 5, 6, 7, 8]])
    v1 = evaluate(deals[:, [2, 3, 4, 5, 6, 7, 8]])
    s0 = (v0 > v1) + 0.5 * (v0 == v1)
    i0, j0 = _class_cells(deals[:, 0].astype(np.int64), deals[:, 1].astype(np.int64))
    i1, j1 = _class_cells(deals[:, 2].astype(np.int64), deals[:, 3].astype(np.int64))
    total = np.zeros((13, 13))
    count = np.zeros((13, 13))
    np.add.at(total, (i0, j0), s0)
    np.add.at(total, (i1, j1), 1.0 - s0)
    np.add.at(count, (i0, j0), 1)
    np.add.at(count, (i1, j1), 1)
    assert count.min() > 17_000  # 6M hands: about 18,000 per suited class
    z = (total / count - PREFLOP_HS) / (0.5 / np.sqrt(count))
    assert np.abs(z).max() < 4.5, np.unravel_index(np.abs(z).argmax(), z.shape)


# ---------------------------------------------------------------- river: exact against eval7 brute force

def _eval7_cards(cards):
    eval7 = pytest.importorskip("eval7")
    return [eval7.Card(card_str(c)) for c in cards]


def _brute_force_river(hole, board):
    eval7 = pytest.importorskip("eval7")
    used = set(hole) | set(board)
    b = _eval7_cards(board)
    hero = eval7.evaluate(_eval7_cards(hole) + b)
    wins = ties = total = 0
    for o in combinations([c for c in range(52) if c not in used], 2):
        v = eval7.evaluate(_eval7_cards(o) + b)
        wins += hero > v
        ties += hero == v
        total += 1
    assert total == 990
    return wins, ties


@pytest.mark.parametrize(
    "hole, board",
    [
        ("AsKs", "QsJsTs2c3d"),  # royal flush: wins every time
        ("2c3d", "AsKsQsJsTs"),  # royal flush on board: everyone ties
        ("7h2c", "AdKcQs9h5d"),  # weak high card
        ("8c8d", "8h8sAc5d2h"),  # quads
        ("Ah5h", "Kh9h2h7c7d"),  # nut flush on a paired board
        ("Tc9c", "8d7s6hKhKd"),  # straight on a paired board: boats beat it
    ],
)
def test_river_strength_is_exact(hole, board):
    h, b = parse_cards(hole), parse_cards(board)
    wins, ties = _brute_force_river(h.tolist(), b.tolist())
    hs = hand_strength(h, b)
    assert hs == pytest.approx((wins + 0.5 * ties) / 990, abs=1e-14)
    assert river_strength(*h.astype(np.int64), *b.astype(np.int64)) == hs
    if hole == "AsKs":
        assert hs == 1.0
    if hole == "2c3d":
        assert hs == 0.5


# ---------------------------------------------------------------- flop and turn: Monte Carlo vs exact

def _exact_strength(hole, board):
    """Exact hand strength by enumerating every roll-out and opponent hand with the batch evaluator."""
    hole, board = list(hole), list(board)
    rest = [c for c in range(52) if c not in set(hole) | set(board)]
    rows_me, rows_opp = [], []
    for runout in combinations(rest, 5 - len(board)):
        left = np.array([c for c in rest if c not in runout])
        full = board + list(runout)
        i, j = np.triu_indices(len(left), 1)
        opp = np.column_stack([left[i], left[j], np.tile(full, (len(i), 1))])
        rows_opp.append(opp)
        rows_me.append(np.tile(hole + full, (len(i), 1)))
    me, opp = evaluate(np.concatenate(rows_me)), evaluate(np.concatenate(rows_opp))
    expected_rows = {4: 46 * 990, 3: 1081 * 990}[len(board)]
    assert len(me) == expected_rows
    return float(np.mean((me > opp) + 0.5 * (me == opp)))


def test_turn_enumeration_agrees_with_eval7():
    """The test's own enumeration, checked once against the independent eval7 library on a turn spot."""
    eval7 = pytest.importorskip("eval7")
    hole, board = parse_cards("JhTh").tolist(), parse_cards("9h8c2h Ks").tolist()
    rest = [c for c in range(52) if c not in set(hole) | set(board)]
    deck = _eval7_cards(range(52))
    score = 0.0
    n = 0
    for r in rest:
        full = [deck[c] for c in board + [r]]
        hero = eval7.evaluate([deck[hole[0]], deck[hole[1]]] + full)
        for a, b in combinations([c for c in rest if c != r], 2):
            v = eval7.evaluate([deck[a], deck[b]] + full)
            score += 1.0 if hero > v else 0.5 if hero == v else 0.0
            n += 1
    assert n == 46 * 990
    assert _exact_strength(hole, board) == pytest.approx(score / n, abs=1e-12)


SPOTS = [
    ("JhTh", "9h8c2hKs"),  # open-ended straight flush draw on the turn
    ("AcAd", "Ks7h2c9d"),  # overpair
    ("6c5c", "AhKdQs"),  # flop: nothing
    ("KhQh", "Ah7h3c"),  # flop: flush draw and gutshot
]


@pytest.mark.parametrize("hole, board", SPOTS)
def test_monte_carlo_within_four_standard_errors_of_exact(hole, board):
    h, b = parse_cards(hole), parse_cards(board)
    exact = _exact_strength(h.tolist(), b.tolist())
    samples = 20_000
    for seed in (0, 1, 2):
        est = hand_strength(h, b, samples=samples, seed=seed)
        assert abs(est - exact) < 4 * 0.5 / np.sqrt(samples), (seed, est, exact)
    # The default sample count, averaged over 100 seeds: the pooled estimate must be unbiased too.
    pooled = np.mean([hand_strength(h, b, seed=s) for s in range(100)])
    assert abs(pooled - exact) < 4 * 0.5 / np.sqrt(100 * DEFAULT_SAMPLES)


def test_monte_carlo_is_deterministic_given_the_seed():
    h, b = parse_cards("KhQh"), parse_cards("Ah7h3c")
    first = [hand_strength(h, b, seed=s) for s in range(5)]
    assert first == [hand_strength(h, b, seed=s) for s in range(5)]
    assert len(set(first)) > 1  # the seed does pick the roll-outs
    assert hand_strength(h, b, samples=1, seed=3) in (0.0, 0.5, 1.0)
    # Card integers and card text give the same value; the key does not depend on the input type.
    assert hand_strength("KhQh", "Ah7h3c", seed=4) == hand_strength(list(h), list(b), seed=4) == first[4]


@pytest.mark.parametrize(
    "hole, board, samples, message",
    [
        ([0, 1, 2], (), 10, "two hole cards"),
        ([0], (), 10, "two hole cards"),
        ([5, 5], (), 10, "distinct"),
        ([0, 1], [1, 8, 9], 10, "distinct"),
        ([0, 1], [8, 9, 9, 10], 10, "distinct"),
        ([0, 52], (), 10, "0..51"),
        ([-1, 3], (), 10, "0..51"),
        ([0, 1], [8, 9], 10, "0, 3, 4 or 5"),
        ([0, 1], [8, 9, 10, 11, 12, 13], 10, "0, 3, 4 or 5"),
        ([0, 1], [8, 9, 10], 0, "samples"),
        ([0, 1], [8, 9, 10, 11], -5, "samples"),
        ([0, 1], [8, 9, 10, 11], 2.5, "samples"),
        ("AsAs", (), 10, "duplicate"),
    ],
)
def test_hand_strength_rejects_bad_input(hole, board, samples, message):
    with pytest.raises(ValueError, match=message):
        hand_strength(hole, board, samples=samples)
