"""Poker oracles: live samples are the pair's continuing duplicate match (checked against ``play_duplicate``),
common random numbers across query orders and methods, replay without replacement, and selectors on both."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pokerduel.play.ground_truth import load_ground_truth
from pokerduel.play.matches import play_duplicate
from pokerduel.play.oracles import LiveOracle, MemoryPool, ReplayOracle, pair_seed
from pokerduel.selectors import make_selector

DATA = Path(__file__).resolve().parents[1] / "data" / "ground_truth_10x10_seed1.h5"


@pytest.fixture(scope="module")
def truth():
    return load_ground_truth(DATA)[2]


@pytest.fixture(scope="module")
def players(truth):
    pop = truth.population()
    return [pop.player(i) for i in range(6)] + ["calling-machine", "candid-statistician"]


def test_live_samples_are_the_pairs_continuing_match(players):
    """Samples asked in pieces, interleaved with other pairs, are the first n deals of one match."""
    o = LiveOracle(players, 7)
    got = {(0, 3): [], (2, 6): [], (1, 7): []}
    for size in (1, 3, 2, 5):
        for (i, j) in got:
            got[(i, j)].extend(o.sample_many(i, j, size))
    for (i, j), xs in got.items():
        ref = play_duplicate(players[i], players[j], len(xs), pair_seed(7, i, j)).samples
        np.testing.assert_array_equal(xs, ref)
    assert o.deals_played.sum() == 3 * 11


def test_orientation_and_query_order(players):
    """sample(j, i) is the negation of the pair's next sample; the n-th sample of a pair does not depend on
    the order in which pairs are asked (common random numbers)."""
    a, b = LiveOracle(players, 3), LiveOracle(players, 3)
    xa = [a.sample(1, 4) for _ in range(4)] + [a.sample(0, 5) for _ in range(4)]
    xb_rev = [b.sample(5, 0) for _ in range(4)]
    xb = [b.sample(4, 1) for _ in range(4)]
    np.testing.assert_array_equal(xa[:4], -np.array(xb))
    np.testing.assert_array_equal(xa[4:], -np.array(xb_rev))
    # another seed, other decks (a pair of rule bots whose results vary with the cards)
    assert LiveOracle(players, 4).sample_many(6, 7, 8).tolist() != LiveOracle(players, 3).sample_many(6, 7, 8).tolist()


def test_reset_plays_every_deal_with_fresh_memories(players):
    o = LiveOracle(players, 11, reset=True)
    xs = o.sample_many(0, 1, 4)
    for d in range(4):
        ref = play_duplicate(players[0], players[1], 1, pair_seed(11, 0, 1), first_deal=d).samples[0]
        assert xs[d] == ref


def test_rewind_replays_without_playing_again(players):
    o = LiveOracle(players, 5, lookahead=4)
    first = np.array([o.sample(2, 3) for _ in range(6)])
    played = o.deals_played.sum()
    o.rewind()
    np.testing.assert_array_equal(o.sample_many(2, 3, 6), first)
    assert o.deals_played.sum() == played == 8  # two look-ahead calls of 4 deals, none after the rewind
    assert o.used(3, 2) == 6


def test_reused_memories_give_the_samples_of_fresh_ones():
    """Memories from a pool, dirty from another generation's matches, are reset before each match: the
    samples equal those of fresh memories (ASHE players, whose PRTs and LSTMs fill their memories)."""
    from pokerduel.play.populations import new_population
    from pokerduel.players.genomes import AsheSettings, ashe_player

    settings = AsheSettings(prt_capacity=256)
    pops = [[ashe_player(g, settings) for g in new_population(4, seed, settings).genomes] for seed in (1, 2)]
    pairs = [(0, 1), (2, 3), (0, 3), (1, 2), (0, 1), (1, 3), (0, 2), (0, 1)] * 3
    pool = MemoryPool()
    for gen, players in enumerate(pops):
        pooled = LiveOracle(players, 7 + gen, memory_pool=pool)
        fresh = LiveOracle(players, 7 + gen)
        assert [pooled.sample(i, j) for i, j in pairs] == [fresh.sample(i, j) for i, j in pairs]
        pooled.release()
        assert len(pool) == 2 * 6           # both players' memories of the 6 pairs are spare again
        with pytest.raises(RuntimeError, match="released"):
            pooled.sample(0, 1)
        pooled.rewind()
        assert pooled.sample(0, 1) == fresh.pair_samples(0, 1, 1)[0]   # played samples stay readable
    with pytest.raises(ValueError, match="memory_pool must be a MemoryPool"):
        LiveOracle(pops[0], 0, memory_pool=[])


def test_common_decks_give_every_candidate_a_fixed_opponents_decks(players):
    """With ``common_decks_from`` every candidate meets a fixed opponent j on the decks of ``pair_seed(seed, j, j)``:
    two copies of one player get identical samples; pairs of candidates keep their own decks."""
    pl = [players[1], players[1], players[5], "calling-machine", "candid-statistician"]
    o = LiveOracle(pl, 9, common_decks_from=3)
    for j in (3, 4):
        x0, x1, x2 = (o.sample_many(i, j, 6) for i in (0, 1, 2))
        np.testing.assert_array_equal(x0, x1)
        np.testing.assert_array_equal(x2, play_duplicate(pl[2], pl[j], 6, pair_seed(9, j, j)).samples)
    np.testing.assert_array_equal(o.sample_many(0, 2, 4), play_duplicate(pl[0], pl[2], 4, pair_seed(9, 0, 2)).samples)
    np.testing.assert_array_equal(o.sample_many(3, 4, 4), play_duplicate(pl[3], pl[4], 4, pair_seed(9, 3, 4)).samples)
    own = LiveOracle(pl, 9)  # without: each pair its own decks, so the two copies' results differ
    assert own.sample_many(0, 3, 6).tolist() != own.sample_many(1, 3, 6).tolist()
    for bad in (0, 6, True, 1.5):
        with pytest.raises(ValueError, match="common_decks_from"):
            LiveOracle(pl, 9, common_decks_from=bad)


def test_live_oracle_validates(players):
    with pytest.raises(ValueError, match="seed"):
        LiveOracle(players, -1)
    with pytest.raises(ValueError, match="lookahead"):
        LiveOracle(players, 1, lookahead=0)
    with pytest.raises(ValueError, match="means"):
        LiveOracle(players, 1, means=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="different"):
        LiveOracle(players, 1).sample(2, 2)


def test_replay_draws_without_replacement(truth):
    o = ReplayOracle(truth, np.random.default_rng(1))
    n = o.recorded
    j, i = (int(x) for x in np.unravel_index(np.argmax(truth.var), truth.var.shape))  # a pair whose deals vary
    xs = o.sample_many(i, j, n)
    np.testing.assert_array_equal(np.sort(xs), np.sort(truth.samples(i, j).astype(np.float64)))
    assert not np.array_equal(xs, truth.samples(i, j))  # shuffled
    with pytest.raises(ValueError, match="recorded deals"):
        o.sample(j, i)
    # the order depends on the generator and the pair, not on the order of the queries
    a, b = ReplayOracle(truth, np.random.default_rng(9)), ReplayOracle(truth, np.random.default_rng(9))
    xa = [a.sample(0, 1) for _ in range(3)] + [a.sample(2, 3) for _ in range(3)]
    xb = [b.sample(2, 3) for _ in range(3)] + [b.sample(0, 1) for _ in range(3)]
    assert xa == xb[3:] + xb[:3]
    assert set(o.true_top_k(4)) == set(truth.ranking[:4])


@pytest.mark.parametrize("name", ["uniform", "ml-pocbam", "select-top"])
def test_selectors_run_on_poker_oracles(truth, players, name):
    """Any selector runs on either oracle with its budget used exactly; a live sample is played once."""
    opts = {} if name == "select-top" else {"n0": 2}
    s = make_selector(name, ReplayOracle(truth, np.random.default_rng(2)), 4, 120, rng=np.random.default_rng(3),
                      **opts)
    top = s.run()
    assert s.used == s.budget == 120 and len(set(top.tolist())) == 4
    live = LiveOracle(players, 2)
    s = make_selector(name, live, 3, 70, rng=np.random.default_rng(3), **opts)
    s.run()
    assert live.deals_played.sum() == s.budget == 70
    pairs = {}
    for i, j, x in zip(*s.trace):
        pairs.setdefault((min(i, j), max(i, j)), []).append(x if i < j else -x)
    for (i, j), xs in pairs.items():
        np.testing.assert_array_equal(xs, play_duplicate(players[i], players[j], len(xs), pair_seed(2, i, j)).samples)
