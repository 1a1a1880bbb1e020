"""Fitness against fixed opponents (ASHE 1.0's ANE), shared hand strengths, and evolution with it."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner

from pokerduel.cli import main
from pokerduel.engine.rules import BIG_BLIND
from pokerduel.evolution.evolve import (
    ASHE1_TABLE2,
    ASHE1_TABLE2_CI,
    FINAL_MATCH_DEALS,
    PRESETS,
    EvolveConfig,
    average_genome,
    average_seed,
    ane_seed,
    choose_validated,
    evaluate,
    final_validation_seed,
    hall_members,
    initial_population,
    load_run,
    raising_seed,
    rank_validated,
    resolve_opponent,
    run_evolution,
    run_panel,
    training_opponents,
    validate,
    validation_seed,
)
from pokerduel.evolution.fitness import ane, chips_of, earnings_matrix, mbb_per_hand, normalized_earnings
from pokerduel.infra.parallel import SerialBackend, get_backend
from pokerduel.play.matches import deal_strengths, play_duplicate
from pokerduel.play.populations import new_population
from pokerduel.players.ashe import HEADER, P_RAISING_RANGE
from pokerduel.players.base import TRAINING_BOTS, make_player
from pokerduel.players.genomes import (
    AsheSettings,
    ashe_player,
    handbuilt_genome,
    patient_genome,
    reader_folds_genome,
    reader_genome,
    river_reader_genome,
    steady_reader_genome,
)

SMALL = AsheSettings(prt_capacity=256)
TINY_ANE = dict(population=6, generations=4, keep=3, fitness="ane", opponents=("calling-machine", "hothead-maniac"),
                deals=6, seed=5, panel_deals=4, panel_bots=("calling-machine", "tight-aggressive"), prt_capacity=256)


def assert_same_run(a, b):
    """Two runs hold the same records (timings aside) and end with the same population."""
    for k, v in a.records.items():
        if k != "timing":
            assert np.array_equal(v, b.records[k], equal_nan=True), k
    assert np.array_equal(a.population, b.population)
    assert (a.validation is None) == (b.validation is None)
    for k in () if a.validation is None else a.validation:
        assert np.array_equal(a.validation[k], b.validation[k]), k


def run_and_resume(cfg, tmp_path, stop_after):
    """``cfg`` run whole and run in two calls (stopped after ``stop_after`` generations, then resumed): the
    same run. Returns the whole one."""
    whole = run_evolution(cfg, tmp_path / "whole.h5").run
    run_evolution(cfg, tmp_path / "parts.h5", stop_after=stop_after)
    assert_same_run(whole, run_evolution(cfg, tmp_path / "parts.h5", resume=True).run)
    return whole


# ----------------------------------------------------------------------------------------- ANE


def test_ane_by_hand():
    e = np.array([[200.0, -50.0, 40.0], [100.0, 300.0, 10.0], [-100.0, 50.0, -20.0]])
    # n_j = max(BB, max_i e_ij): 200, 300, and 100 (the best earned 40 < BB = 100)
    z = normalized_earnings(e)
    assert np.allclose(z, e / np.array([200.0, 300.0, 100.0]))
    assert np.allclose(ane(e), [(1 - 50 / 300 + 0.4) / 3, (0.5 + 1 + 0.1) / 3, (-0.5 + 50 / 300 - 0.2) / 3])
    # two pools: pool 0 = columns 0, 1 (weight 1), pool 1 = column 2 (weight 3)
    f = ane(e, np.array([0, 0, 1]), [1.0, 3.0])
    assert np.allclose(f, (z[:, :2].mean(axis=1) + 3 * z[:, 2]) / 4)
    # an absent opponent (NaN column) drops out, and its pool's weight with it
    e2 = e.copy()
    e2[:, 2] = np.nan
    assert np.allclose(ane(e2, np.array([0, 0, 1]), [1.0, 3.0]), z[:, :2].mean(axis=1))
    with pytest.raises(ValueError, match="positive pool weight"):
        ane(e2, np.array([0, 0, 1]), [0.0, 3.0])


def test_ane_with_targets_by_hand():
    e = np.array([[200.0, -50.0, 40.0], [100.0, 300.0, 10.0], [-100.0, 50.0, -20.0]])
    # column 0 capped at 150 and column 1 at 100: the earnings count up to them, then n_j = 150, 100, 100
    capped = np.array([[150.0, -50.0, 40.0], [100.0, 100.0, 10.0], [-100.0, 50.0, -20.0]])
    assert np.allclose(ane(e, caps=[150.0, 100.0, None]), (capped / [150.0, 100.0, 100.0]).mean(axis=1))
    # a surplus above the target buys nothing: 300 and 40 beat 150 and 80 without a target, not with one at 150
    two = np.array([[300.0, 40.0], [150.0, 80.0]])
    assert np.allclose(ane(two), [(1 + 0.4) / 2, (0.5 + 0.8) / 2])
    assert np.allclose(ane(two, caps=[150.0, None]), [(1 + 0.4) / 2, (1 + 0.8) / 2])
    assert ane(e, caps=[100.0, None, None])[0] == pytest.approx((1 - 50 / 300 + 0.4) / 3)
    assert np.allclose(ane(e, caps=[np.inf, None, None]), ane(e))
    e[:, 2] = np.nan  # an absent opponent stays absent
    assert np.allclose(ane(e, caps=[None, None, 5.0]), ane(e))
    # targets in mBB/hand as chips over the deals: 500 mBB/hand over 10 deals (20 hands) = 1,000 chips
    assert chips_of([500.0, None], 10) == [1000.0, None] and chips_of(None, 10) is None


def test_ane_with_column_weights_by_hand():
    e = np.array([[200.0, -50.0, 40.0], [100.0, 300.0, 10.0], [-100.0, 50.0, -20.0]])
    z = normalized_earnings(e)
    # one pool: a weighted mean of the normalized earnings, weights 1, 3, 4
    assert np.allclose(ane(e, column_weights=[1, 3, 4]), (z[:, 0] + 3 * z[:, 1] + 4 * z[:, 2]) / 8)
    # two pools: the weights act within each pool (pool 1's single column is unaffected by its own weight)
    f = ane(e, np.array([0, 0, 1]), [1.0, 3.0], column_weights=[1, 3, 9])
    assert np.allclose(f, ((z[:, 0] + 3 * z[:, 1]) / 4 + 3 * z[:, 2]) / 4)
    # weights proportional to the columns' scales make a chip count the same against each opponent
    assert np.allclose(ane(e, column_weights=[200, 300, 100]), e.sum(axis=1) / 600)
    assert np.allclose(ane(e, column_weights=[2, 2, 2]), ane(e))
    with pytest.raises(ValueError, match="positive weight per opponent column"):
        ane(e, column_weights=[1, 0, 1])


def test_an_ane_run_with_opponent_weights_scores_the_weighted_mean(tmp_path):
    cfg = EvolveConfig(**{**TINY_ANE, "generations": 1, "opponent_weights": (3.0, 1.0)})
    run = run_evolution(cfg, tmp_path / "w.h5").run
    e = run.records["fixed_mbb"][0] * 2 * cfg.deals * BIG_BLIND / 1000
    z = normalized_earnings(e)
    assert np.allclose(run.records["scores"][0], (3 * z[:, 0] + z[:, 1]) / 4)
    assert not np.allclose(run.records["scores"][0], ane(e))


def test_an_ane_run_with_targets_scores_the_capped_earnings(tmp_path):
    cfg = EvolveConfig(**{**TINY_ANE, "generations": 2, "targets": (0.0, None)})
    run = run_evolution(cfg, tmp_path / "t.h5").run
    e = run.records["fixed_mbb"][0] * 2 * cfg.deals * BIG_BLIND / 1000  # chips over the generation's deals
    assert e[:, 0].max() > 0  # someone beat the Calling Machine: its earnings are capped at 0
    assert np.allclose(run.records["scores"][0], ane(e, caps=[0.0, None]))
    assert not np.allclose(run.records["scores"][0], ane(e))


def test_an_ane_run_with_opponent_deals_plays_and_scores_each_opponent_on_its_deals(tmp_path):
    """``opponent_deals``: each candidate meets each training opponent on that many of the generation's common
    decks (the hall of fame on ``deals``); the budget, the recorded results and the capped fitness follow."""
    cfg = EvolveConfig(**{**TINY_ANE, "generations": 3, "hall_of_fame": 1, "pool_weights": (0.0, 0.5, 1.0),
                          "opponent_deals": (2, 10), "targets": (0.0, None)})
    assert cfg.fixed_deals == (2, 10, 6) and cfg.budget == cfg.population * 18
    assert EvolveConfig.from_dict(cfg.to_dict()) == cfg
    genomes = initial_population(cfg)
    res = evaluate(cfg, genomes, 2, training_opponents(cfg), np.zeros(1, np.int64), [genomes[0]], SerialBackend())
    e = np.array([[play_duplicate(ashe_player(g, cfg.settings), o, d, ane_seed(cfg, 2)).hand_payoffs.sum()
                   for o, d in zip([*cfg.opponents, ashe_player(genomes[0], cfg.settings)], cfg.fixed_deals)]
                  for g in genomes])
    per = np.array(cfg.fixed_deals)
    assert np.allclose(res["fixed_mbb"], e / (2 * per) / 100 * 1000)
    caps = chips_of([0.0, None, None], per)
    assert np.allclose(res["scores"], ane(e, np.array([2, 2, 1]), cfg.pool_weights, caps=caps))
    assert res["samples_used"] == cfg.budget
    run = run_evolution(cfg, tmp_path / "d.h5").run        # generation 1 has no hall member yet
    assert list(run.records["samples_used"]) == [cfg.population * 12] + [cfg.budget] * 2


def test_shared_hand_strengths_give_the_same_hands():
    hero = ashe_player(handbuilt_genome(SMALL), SMALL)
    rnd = new_population(2, 9, SMALL).player(0)
    table = deal_strengths(11, 40)
    assert table.shape == (40, 2, 4) and np.all((table >= 0) & (table <= 1))
    for a, b in ((hero, "calling-machine"), (rnd, "candid-statistician"), ("scared-limper", hero), (hero, rnd)):
        plain = play_duplicate(a, b, 40, 11)
        shared = play_duplicate(a, b, 40, 11, strengths=table, chunk=7)
        assert np.array_equal(plain.hand_payoffs, shared.hand_payoffs)
    with pytest.raises(ValueError, match="shape"):
        play_duplicate(hero, "calling-machine", 40, 11, strengths=table[:10])


def test_earnings_matrix_is_every_match_on_common_decks_on_any_backend():
    pop = new_population(3, 2, SMALL)
    cands = [pop.player(i) for i in range(3)]
    opps = ["calling-machine", "hothead-maniac"]
    e, seconds, actions = earnings_matrix(cands, opps, 8, 77, SerialBackend())
    assert seconds > 0
    for i in range(3):
        want = np.zeros(3, np.int64)
        for j, o in enumerate(opps):
            r = play_duplicate(cands[i], o, 8, 77, records=True)
            assert e[i, j] == r.hand_payoffs.sum()
            for h in r.records:   # the candidate's own decisions, from the hand histories
                for _, actor, action, _ in h.actions:
                    if actor == h.half:
                        want[action] += 1
        assert np.array_equal(actions[i], want)     # action codes: fold 0, check/call 1, raise 2
    with get_backend("multiprocess", workers=2) as backend:
        e2, _, actions2 = earnings_matrix(cands, opps, 8, 77, backend)
    assert np.array_equal(e, e2) and np.array_equal(actions, actions2)


def test_matches_split_the_deals_into_matches_from_fresh_memories():
    """``matches=3``: each pair's 12 deals are three 4-deal matches on consecutive decks, memories fresh for
    each (the sums of three separate matches); one match is the plain match."""
    cands = [ashe_player(handbuilt_genome(SMALL), SMALL), new_population(1, 4, SMALL).player(0)]
    opps = ["scared-limper", "candid-statistician"]
    e, _, _ = earnings_matrix(cands, opps, 12, 91, SerialBackend(), matches=3)
    e1, _, _ = earnings_matrix(cands, opps, 12, 91, SerialBackend())
    for i, c in enumerate(cands):
        for j, o in enumerate(opps):
            parts = [play_duplicate(c, o, 4, 91, first_deal=4 * m).hand_payoffs.sum() for m in range(3)]
            assert e[i, j] == sum(parts)
            assert e1[i, j] == play_duplicate(c, o, 12, 91).hand_payoffs.sum()
    # the memory matters: an ASHE player's three short matches differ from its one long match somewhere
    assert not np.array_equal(e, e1)
    with get_backend("multiprocess", workers=2) as backend:
        assert np.array_equal(earnings_matrix(cands, opps, 12, 91, backend, matches=3)[0], e)
    for bad in (0, 5, 2.0):
        with pytest.raises(ValueError, match="divides deals"):
            earnings_matrix(cands, opps, 12, 91, SerialBackend(), matches=bad)


def test_deals_per_opponent_play_each_opponent_on_the_first_of_the_same_decks():
    """One number of deals per opponent: each column is the matrix of that many deals alone (the first decks
    of the same seed, the hand strengths computed once for the most), split into matches alike."""
    cands = [ashe_player(handbuilt_genome(SMALL), SMALL), new_population(1, 4, SMALL).player(0)]
    opps = ["scared-limper", "candid-statistician", "hothead-maniac"]
    e, _, _ = earnings_matrix(cands, opps, [4, 12, 8], 93, SerialBackend(), matches=2)
    for j, (o, d) in enumerate(zip(opps, (4, 12, 8))):
        assert np.array_equal(e[:, j], earnings_matrix(cands, [o], d, 93, SerialBackend(), matches=2)[0][:, 0])
    assert np.array_equal(earnings_matrix(cands, opps, [6, 6, 6], 93, SerialBackend())[0],
                          earnings_matrix(cands, opps, 6, 93, SerialBackend())[0])
    with get_backend("multiprocess", workers=2) as backend:
        assert np.array_equal(earnings_matrix(cands, opps, np.array([4, 12, 8]), 93, backend, matches=2)[0], e)
    for bad in ([4, 12], [4, 0, 8], [4, 2.5, 8]):
        with pytest.raises(ValueError, match="one per opponent"):
            earnings_matrix(cands, opps, bad, 93, SerialBackend())
    with pytest.raises(ValueError, match="divides deals"):
        earnings_matrix(cands, opps, [4, 12, 9], 93, SerialBackend(), matches=2)
    # per-column units: chips over each column's deals
    assert np.allclose(mbb_per_hand(np.array([[400, 400]]), [2, 4]), [[1000, 500]])
    assert chips_of([1000.0, None, 500.0], [2, 3, 4]) == [400.0, None, 400.0]


# ----------------------------------------------------------------------------------------- evolution with ANE


def test_evaluate_ranks_by_ane_of_the_generations_common_decks():
    cfg = EvolveConfig(**TINY_ANE)
    genomes = initial_population(cfg)
    opps = training_opponents(cfg)
    res = evaluate(cfg, genomes, 2, opps, np.zeros(0, np.int64), [], SerialBackend())
    e = np.array([[play_duplicate(ashe_player(g, cfg.settings), o, cfg.deals, ane_seed(cfg, 2)).hand_payoffs.sum()
                   for o in cfg.opponents] for g in genomes])
    assert np.allclose(res["fixed_mbb"], e / (2 * cfg.deals) / 100 * 1000)
    assert np.allclose(res["scores"], ane(e))
    assert list(res["survivors"]) == list(np.argsort(-ane(e), kind="stable")[:cfg.keep])
    assert res["samples_used"] == cfg.budget == 6 * 2 * 6


def test_ane_run_with_several_matches_resumes_exactly(tmp_path):
    cfg = EvolveConfig(**{**TINY_ANE, "matches": 3})
    assert cfg.to_dict()["matches"] == 3 and EvolveConfig.from_dict(cfg.to_dict()) == cfg
    whole = run_and_resume(cfg, tmp_path, stop_after=2)
    plain = run_evolution(EvolveConfig(**TINY_ANE), tmp_path / "plain.h5").run
    assert whole.records["fixed_mbb"].shape == plain.records["fixed_mbb"].shape
    assert not np.array_equal(whole.records["fixed_mbb"], plain.records["fixed_mbb"])


def test_hall_of_fame_last_and_best():
    cfg = EvolveConfig(**{**TINY_ANE, "hall_of_fame": 3})
    champs = [np.full(3, g) for g in range(5)]
    assert list(hall_members(cfg, champs[:1], [0.0])) == [0, -1, -1]
    assert list(hall_members(cfg, champs, [0.0] * 5)) == [2, 3, 4]
    best = EvolveConfig(**{**TINY_ANE, "hall_of_fame": 2, "hall_policy": "best"})
    assert list(hall_members(best, champs, [5.0, 9.0, 1.0, 9.0, 3.0])) == [1, 3]


def test_ane_run_keeps_fixed_opponents_out_of_the_population_and_resumes_exactly(tmp_path):
    cfg = EvolveConfig(**{**TINY_ANE, "hall_of_fame": 2})
    whole = run_and_resume(cfg, tmp_path, stop_after=2)
    rec = whole.records
    assert rec["fixed_mbb"].shape == (4, 6, 4) and rec["trace_x"].shape == (4, 0)
    # the hall: none in generation 1, then the champions of the generations before, frozen
    assert [list(h) for h in rec["hall"]] == [[-1, -1], [0, -1], [0, 1], [1, 2]]
    assert np.all(np.isnan(rec["fixed_mbb"][0, :, 2:])) and not np.any(np.isnan(rec["fixed_mbb"][3]))
    # survivors are candidates; the population stays K players bred from them
    assert rec["survivors"].max() < cfg.population and whole.population.shape[0] == cfg.population
    assert np.all(rec["origin"][:, :cfg.keep] <= 1) and np.all(rec["origin"][:, cfg.keep:] == 2)
    best = [rec["fixed_mbb"][g, rec["survivors"][g, 0], :2].mean() for g in range(4)]
    assert np.allclose(rec["champion_train"], best)


@pytest.mark.parametrize("kw, match", [
    ({"opponents": ("nobody",)}, "unknown opponent"),
    ({"opponents": ()}, "needs fixed opponents"),
    ({"hall_of_fame": 4}, "hall_of_fame <= 3"),
    ({"pool_weights": (1.0, 0.0, 0.0)}, "sum to a positive number"),
    ({"pool_weights": (1.0, -1.0, 1.0)}, "finite numbers >= 0"),
    ({"hall_policy": "best", "hall_of_fame": 1, "opponents": (), "fitness": "ane"}, "needs fixed|training"),
    ({"budget": 5}, "set --deals"),
    ({"fitness": "selector", "selector": "ar"}, "cannot rank candidates against fixed opponents"),
    ({"matches": 4}, "must be a multiple of matches"),
    ({"validate_window": 2, "opponents": (), "hall_of_fame": 1}, "validate_window re-scores"),
    ({"validate_matches": 0}, "validate_matches .* must be an integer >= 1"),
    ({"validate_window": 2, "validate_rule": "best"}, "validate_rule must be one of ane, shortfall"),
    ({"validate_window": 2, "validate_rule": "shortfall"}, "give targets > 0"),
    ({"validate_window": 2, "validate_rule": "shortfall", "targets": (None, -5.0)}, "give targets > 0"),
    ({"validate_rule": "shortfall", "targets": (None, 600.0)}, "give validate_window > 0"),
    ({"validate_window": 2, "validate_finalists": 1}, "give 0 \\(off\\) or at least 2 with validate_window > 0"),
    ({"validate_finalists": 2}, "give 0 \\(off\\) or at least 2 with validate_window > 0"),
    ({"validate_window": 2, "validate_finalists": 2, "validate_final_matches": 0},
     "validate_final_matches .* must be an integer >= 1"),
    ({"matches": 0}, "matches .* must be an integer >= 1"),
    ({"opponent_deals": (6,)}, "one whole number >= 1 per training opponent \\(2: calling-machine"),
    ({"opponent_deals": (6, 0)}, "one whole number >= 1 per training opponent"),
    ({"opponent_deals": (6, 3), "matches": 2}, "each a multiple of matches \\(2\\)"),
    ({"opponent_deals": (6, 6), "fitness": "selector", "selector": "pocbam"},
     "opponent_deals applies to --fitness ane"),
    ({"matches": 2, "fitness": "selector", "selector": "pocbam"}, "matches applies to --fitness ane"),
    ({"init": "patient", "hidden": 1}, "needs hidden >= 2"),
    ({"init": "reader", "hidden": 2}, "needs hidden >= 3"),
])
def test_bad_pool_options_are_value_errors(kw, match):
    with pytest.raises(ValueError, match=match):
        EvolveConfig(**{**TINY_ANE, **kw})


def test_opponent_specs_of_run_and_population_files(tmp_path):
    cfg = EvolveConfig(**{**TINY_ANE, "generations": 2})
    run = run_evolution(cfg, tmp_path / "r.h5").run
    champ = resolve_opponent(f"{tmp_path}/r.h5:champion")
    assert np.array_equal(champ.params[HEADER:], run.records["champion"][-1].astype(np.float64))
    first = resolve_opponent(f"{tmp_path}/r.h5:champion:1")
    assert np.array_equal(first.params[HEADER:], run.records["champion"][0].astype(np.float64))
    assert np.array_equal(make_player(f"{tmp_path}/r.h5:champion:1").params, first.params)
    member = resolve_opponent(f"{tmp_path}/r.h5:2")
    assert np.array_equal(member.params[HEADER:], run.population[2].astype(np.float64))
    for bad in (f"{tmp_path}/r.h5:champion:3", f"{tmp_path}/r.h5:9", "nobody"):
        with pytest.raises(ValueError):
            resolve_opponent(bad)
    other = EvolveConfig(**{**TINY_ANE, "opponents": (f"{tmp_path}/r.h5:champion", "calling-machine")})
    assert training_opponents(other)[1].name == "calling-machine"


def test_validation_makes_the_best_recent_champion_on_fresh_decks_the_runs_champion(tmp_path):
    """With a validate_window the last generations' champions each play validate_matches matches (fresh
    memories, consecutive decks of the validation seed) against every training opponent; the best by the run's
    ANE (targets, opponent weights) becomes the run's champion; a run stopped before validating (its file
    without the group) does only that on --resume, with the same result."""
    import h5py

    cfg = EvolveConfig(**{**TINY_ANE, "validate_window": 3, "validate_matches": 2, "targets": (None, 600.0),
                          "opponent_weights": (1.0, 3.0)})
    whole = run_and_resume(cfg, tmp_path, stop_after=2)
    v = whole.validation
    assert list(v["generations"]) == [2, 3, 4]
    per, seed = cfg.panel_deals, validation_seed(cfg)
    assert seed not in (ane_seed(cfg, g) for g in range(cfg.generations))
    e = np.array([[sum(play_duplicate(ashe_player(whole.records["champion"][g - 1], cfg.settings), o, per, seed,
                                      first_deal=m * per).hand_payoffs.sum() for m in range(2))
                   for o in cfg.opponents] for g in (2, 3, 4)])
    fitness = ane(e, caps=chips_of(cfg.targets, 2 * per), column_weights=(1.0, 3.0))
    assert np.allclose(v["fitness"], fitness) and np.allclose(v["mbb"], e / (4 * per) / BIG_BLIND * 1000)
    assert whole.champion_generation == 2 + int(np.argmax(fitness))
    assert np.array_equal(whole.champion, whole.records["champion"][whole.champion_generation - 1])
    spec = resolve_opponent(f"{tmp_path}/whole.h5:champion")
    assert np.array_equal(spec.params[HEADER:], whole.champion.astype(np.float64))
    with h5py.File(tmp_path / "parts.h5", "a") as f:     # killed after the last generation, before validating
        del f["validation"]
    assert load_run(tmp_path / "parts.h5").champion_generation == cfg.generations
    assert_same_run(whole, run_evolution(cfg, tmp_path / "parts.h5", resume=True).run)
    # a window wider than the run re-scores every generation's champion; without one there is no validation
    wide = run_evolution(EvolveConfig(**{**TINY_ANE, "generations": 2, "validate_window": 9}), tmp_path / "w.h5").run
    assert list(wide.validation["generations"]) == [1, 2]
    plain = run_evolution(EvolveConfig(**{**TINY_ANE, "generations": 2}), tmp_path / "p.h5").run
    assert plain.validation is None and plain.champion_generation == 2
    assert "validate_window" not in plain.config.to_dict() and "validate_rule" not in plain.config.to_dict()
    # ranked by the worst shortfall below the targets instead: the same matches, the choice by hand
    short = validate(replace(cfg, validate_rule="shortfall"), list(whole.records["champion"]), SerialBackend())
    assert np.array_equal(short["mbb"], v["mbb"]) and np.array_equal(short["fitness"], v["fitness"])
    worst = np.maximum(0.0, 1.0 - v["mbb"][:, 1] / 600.0)
    best = [i for i in range(3) if worst[i] == worst.min()]
    assert short["champion"] == 2 + max(best, key=lambda i: (fitness[i], -i))


def test_finalists_are_re_scored_on_their_own_decks_and_those_alone_decide(tmp_path):
    """With validate_finalists the first of the re-scored champions by the run's rule each play
    validate_final_matches matches of FINAL_MATCH_DEALS deals (fresh memories, consecutive decks of the
    finalists' own seed) against every training opponent, and the first of them by the same rule on those
    results alone is the run's champion; the file keeps both stages, and a resumed run ends the same."""
    cfg = EvolveConfig(**{**TINY_ANE, "validate_window": 4, "validate_matches": 1, "targets": (None, 600.0),
                          "validate_rule": "shortfall", "validate_finalists": 2, "validate_final_matches": 2})
    whole = run_and_resume(cfg, tmp_path, stop_after=3)
    v, champions = whole.validation, whole.records["champion"]
    order = rank_validated(v["mbb"], v["fitness"], cfg.targets, "shortfall")
    assert list(v["finalists"]) == [int(v["generations"][i]) for i in order[:2]]
    per, seed = FINAL_MATCH_DEALS, final_validation_seed(cfg)
    assert seed != validation_seed(cfg) and seed not in (ane_seed(cfg, g) for g in range(cfg.generations))
    e = np.array([[sum(play_duplicate(ashe_player(champions[g - 1], cfg.settings), o, per, seed,
                                      first_deal=m * per).hand_payoffs.sum() for m in range(2))
                   for o in cfg.opponents] for g in v["finalists"]])
    assert np.allclose(v["final_mbb"], e / (4 * per) / BIG_BLIND * 1000)
    assert np.allclose(v["final_fitness"], ane(e, caps=chips_of(cfg.targets, 2 * per)))
    best = choose_validated(v["final_mbb"], v["final_fitness"], cfg.targets, "shortfall")
    assert whole.champion_generation == v["finalists"][best]
    # the first stage is the one-stage validation's, number for number
    one = validate(replace(cfg, validate_finalists=0), list(champions), SerialBackend())
    assert set(one) == {"generations", "mbb", "fitness", "champion"} and one["champion"] == v["finalists"][0]
    assert all(np.array_equal(one[k], v[k]) for k in ("generations", "mbb", "fitness"))
    # more finalists than champions: all of them
    every = validate(replace(cfg, validate_finalists=9, validate_final_matches=1), list(champions), SerialBackend())
    assert sorted(every["finalists"]) == [1, 2, 3, 4]


def test_average_genome_by_hand():
    """The mean of the last W champions, summed in float64 and stored as float32; W beyond them takes all."""
    champions = np.array([[1.0, -2.0], [0.1, 0.2], [0.3, 0.4], [1e-8, 3.0]], np.float32)
    avg = average_genome(champions, 3)
    assert avg.dtype == np.float32
    assert np.array_equal(avg, (champions[1:].astype(np.float64).sum(axis=0) / 3).astype(np.float32))
    assert np.array_equal(average_genome(champions, 9), champions.astype(np.float64).mean(axis=0).astype(np.float32))
    assert np.array_equal(average_genome(list(champions), 1), champions[-1])


def test_an_averaged_champion_replaces_the_validated_one_where_it_reaches_the_floors(tmp_path):
    """With average_windows the means of the last W champions each play average_matches matches of
    FINAL_MATCH_DEALS deals (fresh memories, consecutive decks of their own seed) against every training
    opponent; the first at every floor is the run's champion (its genome, its panel results, RUN.h5:champion),
    kept by a resumed run; with floors no window reaches, the validated generation stays the champion."""
    cfg = EvolveConfig(**{**TINY_ANE, "validate_window": 3, "validate_matches": 1, "average_windows": (3, 9, 2),
                          "average_floors": (-1e9, None), "average_matches": 2})
    whole = run_and_resume(cfg, tmp_path, stop_after=3)
    v, champions = whole.validation, whole.records["champion"]
    assert list(v["averages"]) == [3, 4, 2] and v["average"] == 3 and whole.champion_average == 3
    per, seed = FINAL_MATCH_DEALS, average_seed(cfg)
    assert seed not in (validation_seed(cfg), final_validation_seed(cfg), *(ane_seed(cfg, g) for g in range(4)))
    e = np.array([[sum(play_duplicate(ashe_player(average_genome(champions, w), cfg.settings), o, per, seed,
                                      first_deal=m * per).hand_payoffs.sum() for m in range(2))
                   for o in cfg.opponents] for w in (3, 4, 2)])
    assert np.allclose(v["average_mbb"], e / (4 * per) / BIG_BLIND * 1000)
    assert np.array_equal(whole.champion, average_genome(champions, 3))
    assert whole.champion_generation == 4 and whole.champion_label == "the mean of generations 2-4's champions"
    mean, ci = run_panel(cfg, whole.champion, whole.heldout, SerialBackend())
    assert np.array_equal(whole.champion_panel()[0], mean) and np.array_equal(whole.champion_panel()[1], ci)
    spec = resolve_opponent(f"{tmp_path}/whole.h5:champion")
    assert np.array_equal(spec.params[HEADER:], whole.champion.astype(np.float64))
    # floors above every result: no window is kept and the first stage's choice stands, with the same matches
    high = validate(replace(cfg, average_floors=(None, 1e9)), list(champions), SerialBackend())
    assert high["average"] == 0 and high["champion"] == v["champion"]
    assert np.array_equal(high["average_mbb"], v["average_mbb"])
    # the floors default to the targets
    assert replace(cfg, average_floors=None, targets=(5.0, None)).floors == (5.0, None)
    # averaging comes after the last generation: the generations are those of the run without it
    plain = run_evolution(replace(cfg, average_windows=(), average_floors=None), tmp_path / "plain.h5").run
    assert all(np.array_equal(plain.records[k], whole.records[k], equal_nan=True) for k in whole.records
               if k != "timing")
    assert plain.validation["champion"] == v["champion"] and "averages" not in plain.validation


def test_choose_average_takes_the_first_window_at_every_floor(monkeypatch):
    """The choice alone, on results set by hand: floors of None are ignored, a result equal to its floor
    reaches it, and the windows' order (not their width) decides."""
    from pokerduel.evolution import evolve

    cfg = EvolveConfig(**{**TINY_ANE, "opponents": ("calling-machine", "hothead-maniac", "random"),
                          "validate_window": 2, "average_windows": (25, 10, 50), "average_floors": (100.0, 50.0, None)})
    rows = {25: [100.0, 49.0, -9e9], 10: [100.0, 50.0, -9e9], 50: [500.0, 500.0, 0.0]}
    monkeypatch.setattr(evolve, "_rescore", lambda cfg, players, *a: (
        np.array([rows[int(p.name.split(":")[1])] for p in players]), np.zeros(len(players))))
    champions = list(np.zeros((60, cfg.settings.genome_size), np.float32))
    assert evolve.choose_average(cfg, champions, None, 0)["average"] == 10
    rows[10][0] = 99.9
    assert evolve.choose_average(cfg, champions, None, 0)["average"] == 50
    rows[50][1] = 0.0
    assert evolve.choose_average(cfg, champions, None, 0)["average"] == 0


def test_the_champion_plays_at_the_first_raising_range_at_every_floor(tmp_path):
    """With champion_raising_ranges the run's champion, once chosen, plays average_matches matches of
    FINAL_MATCH_DEALS deals against every training opponent at each raising range (its own decks); it plays at
    the first at every floor (its panel results, RUN.h5:champion, its label), also in a resumed run; at floors
    none reaches it keeps the run's raising range, and the generations are those of the run without it."""
    cfg = EvolveConfig(**{**TINY_ANE, "anchored": True, "raising_range": 0.25, "validate_window": 3,
                          "validate_matches": 1, "average_floors": (-1e9, None), "average_matches": 2,
                          "champion_raising_ranges": (1.0, 0.5)})
    whole = run_and_resume(cfg, tmp_path, stop_after=3)
    v = whole.validation
    assert list(v["raising_ranges"]) == [1.0, 0.5] and v["raising_range"] == 1.0
    per, seed = FINAL_MATCH_DEALS, raising_seed(cfg)
    assert seed not in (validation_seed(cfg), average_seed(cfg), *(ane_seed(cfg, g) for g in range(4)))
    champion = whole.records["champion"][v["champion"] - 1]
    assert np.array_equal(whole.champion, champion)
    e = np.array([[sum(play_duplicate(ashe_player(champion, replace(cfg.settings, raising_range=r)), o, per, seed,
                                      first_deal=m * per).hand_payoffs.sum() for m in range(2))
                   for o in training_opponents(cfg)] for r in (1.0, 0.5)])
    assert np.allclose(v["raising_mbb"], e / (4 * per) / BIG_BLIND * 1000)
    settings = replace(cfg.settings, raising_range=1.0)
    assert whole.champion_settings == settings
    assert whole.champion_label == f"generation {v['champion']} at raising range 1"
    mean, ci = run_panel(cfg, champion, whole.heldout, SerialBackend(), settings)
    assert np.array_equal(whole.champion_panel()[0], mean) and np.array_equal(whole.champion_panel()[1], ci)
    player = resolve_opponent(f"{tmp_path}/whole.h5:champion")
    assert player.params[P_RAISING_RANGE] == 1.0 and np.array_equal(player.params[HEADER:], champion.astype(np.float64))
    assert resolve_opponent(f"{tmp_path}/whole.h5:champion:{v['champion']}").params[P_RAISING_RANGE] == 0.25
    # floors above every result: the run's raising range, and the panel results are the generation's
    high = replace(cfg, average_floors=(None, 1e9))
    run = run_evolution(high, tmp_path / "high.h5").run
    assert run.validation["raising_range"] == 0.25 and run.champion_settings == cfg.settings
    assert np.array_equal(run.validation["raising_mbb"], v["raising_mbb"]) and "panel_mean" not in run.validation
    assert run.champion_label == f"generation {v['champion']}"
    plain = run_evolution(replace(cfg, champion_raising_ranges=(), average_floors=None), tmp_path / "plain.h5").run
    assert all(np.array_equal(plain.records[k], whole.records[k], equal_nan=True) for k in whole.records
               if k != "timing")
    assert plain.validation["champion"] == v["champion"] and "raising_range" not in plain.validation


def test_choose_raising_range_takes_the_first_at_every_floor(monkeypatch):
    """The choice alone, on results set by hand: the order given (not the width) decides, a result equal to
    its floor reaches it, and with none at its floors the run's own raising range stays."""
    from pokerduel.evolution import evolve

    cfg = EvolveConfig(**{**TINY_ANE, "anchored": True, "raising_range": 0.5, "validate_window": 2,
                          "average_floors": (100.0, None), "champion_raising_ranges": (0.75, 1.0, 0.6)})
    rows = {0.75: [99.0, 0.0], 1.0: [100.0, -9e9], 0.6: [500.0, 0.0]}
    monkeypatch.setattr(evolve, "_rescore", lambda cfg, players, *a: (
        np.array([rows[p.params[P_RAISING_RANGE]] for p in players]), np.zeros(len(players))))
    genome = np.zeros(cfg.settings.genome_size, np.float32)
    assert evolve.choose_raising_range(cfg, genome, None, 0)["raising_range"] == 1.0
    rows[1.0][0] = 99.9
    assert evolve.choose_raising_range(cfg, genome, None, 0)["raising_range"] == 0.6
    rows[0.6][0] = 0.0
    assert evolve.choose_raising_range(cfg, genome, None, 0)["raising_range"] == 0.5


def test_validate_ranks_by_the_configured_rule(tmp_path, monkeypatch):
    """``validate`` hands its re-scored results, the run's targets and its ``validate_rule`` to
    ``rank_validated`` and makes the first row of its order the champion (a tiny run's champions all play
    alike, so the rule cannot be told apart from their results)."""
    from pokerduel.evolution import evolve

    cfg = EvolveConfig(**{**TINY_ANE, "generations": 3, "validate_window": 3, "targets": (None, 600.0),
                          "validate_rule": "shortfall"})
    run = run_evolution(cfg, tmp_path / "r.h5").run
    calls = []

    def spy(mbb, fitness, targets, rule):
        calls.append((mbb, fitness, targets, rule))
        return np.array([1, 0, 2])

    monkeypatch.setattr(evolve, "rank_validated", spy)
    v = validate(cfg, list(run.records["champion"]), SerialBackend())
    ((mbb, fitness, targets, rule),) = calls
    assert rule == "shortfall" and targets == (None, 600.0) and v["champion"] == 2
    assert np.array_equal(mbb, run.validation["mbb"]) and np.array_equal(fitness, run.validation["fitness"])


def test_choose_validated_by_hand():
    """ANE takes the highest fitness; shortfall the smallest worst shortfall below the targets (in units of
    each target, opponents without one ignored), ties to the higher fitness, then the earlier row."""
    targets = (1000.0, None, 40000.0)
    mbb = np.array([[1100.0, 90000.0, 30000.0],    # 25 % short of the third target, the best ANE
                    [900.0, 10.0, 39000.0],        # worst 10 % (first target)
                    [990.0, 5.0, 36000.0],         # worst 10 % (third target), the higher fitness of the two
                    [1000.0, -50.0, 45000.0]])     # every target met
    fitness = np.array([0.9, 0.6, 0.7, 0.5])
    assert choose_validated(mbb, fitness, targets) == 0
    assert choose_validated(mbb, fitness, targets, "shortfall") == 3
    assert choose_validated(mbb[:3], fitness[:3], targets, "shortfall") == 2
    assert choose_validated(mbb[1:3], np.array([0.7, 0.7]), targets, "shortfall") == 0   # a tie: the earlier
    assert list(rank_validated(mbb, fitness, targets)) == [0, 2, 1, 3]
    assert list(rank_validated(mbb, fitness, targets, "shortfall")) == [3, 2, 1, 0]
    assert list(rank_validated(mbb, np.array([0.7, 0.7, 0.7, 0.7]), targets)) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="rule must be one of"):
        choose_validated(mbb, fitness, targets, "median")


def test_a_run_whose_opponent_file_is_out_of_reach_says_so(tmp_path, monkeypatch):
    """A relative ``FILE.h5:INDEX`` opponent is found from the run's working directory, and only there."""
    monkeypatch.chdir(tmp_path)
    run_evolution(EvolveConfig(**{**TINY_ANE, "generations": 1}), "r.h5")
    cfg = EvolveConfig(**{**TINY_ANE, "generations": 1, "opponents": ("r.h5:champion", "calling-machine")})
    run_evolution(cfg, "league.h5")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    with pytest.raises(ValueError, match="found relative to the directory the run was started in"):
        load_run("../league.h5")


def test_cli_preset_and_usage_errors(tmp_path):
    r = CliRunner().invoke(main, ["evolve", "--preset", "ashe1", "--population", "5", "--keep", "2", "--generations",
                                  "2", "--deals", "3", "--panel-deals", "2", "--panel-bots", "random",
                                  "--prt-capacity", "64", "--backend", "serial", "--out", str(tmp_path / "p.h5")])
    assert r.exit_code == 0, r.output
    cfg = load_run(tmp_path / "p.h5").config
    assert cfg.fitness == "ane" and cfg.opponents == TRAINING_BOTS and cfg.population == 5 and cfg.deals == 3
    assert cfg.tser.rate_start == 0.25 and cfg.budget == 5 * 4 * 3
    r = CliRunner().invoke(main, ["evolve", "--preset", "ashe1", "--model", "ashe1", "--hidden", "20", "--population",
                                  "5", "--keep", "2", "--generations", "2", "--deals", "3", "--panel-deals", "2",
                                  "--decision-output", "logistic", "--raise-sizes", "pot", "--panel-bots", "random",
                                  "--backend", "serial",
                                  "--out", str(tmp_path / "m.h5")])
    assert r.exit_code == 0, r.output
    run = load_run(tmp_path / "m.h5")
    assert run.config.settings == AsheSettings(model="ashe1", hidden=20, prt_capacity=run.config.prt_capacity,
                                               decision_output="logistic", raise_sizes="pot")
    assert run.population.shape == (5, AsheSettings(model="ashe1", hidden=20).genome_size)
    for args, match in ((["--fitness", "ane"], "needs fixed opponents"),
                        (["--preset", "ashe1", "--opponents", "nobody"], "unknown opponent"),
                        (["--preset", "ashe1", "--hall-of-fame", "250"], "hall_of_fame <= 249"),
                        (["--preset", "ashe1", "--pool-weights", "1", "0", "0"], "positive number"),
                        (["--preset", "ashe1", "--matches", "3"], "multiple of matches"),
                        (["--preset", "ashe1", "--init", "patient", "--hidden", "1"], "needs hidden >= 2"),
                        (["--preset", "ashe1", "--init", "reader", "--hidden", "2"], "needs hidden >= 3"),
                        (["--preset", "ashe1", "--freeze-init"], "choose an init of"),
                        (["--preset", "ashe1", "--targets", "1,2"], "one value per training opponent (4: scared"),
                        (["--preset", "ashe1", "--targets", "1,x,3,4"], "'-' for none"),
                        (["--preset", "ashe1", "--opponent-deals", "5,5,5"], "per training opponent (4: scared"),
                        (["--preset", "ashe1", "--opponent-deals", "5,5,x,5"], "comma-separated whole numbers"),
                        (["--preset", "ashe1", "--validate-window", "5", "--validate-rule", "shortfall"],
                         "give targets > 0"),
                        (["--opponents", "calling-machine", "--targets", "1"], "targets applies to --fitness ane"),
                        (["--fitness", "ane", "--hall-of-fame", "1", "--validate-window", "5"],
                         "validate_window re-scores champions against the training opponents"),
                        (["--opponents", "calling-machine", "--selector", "uniform", "--batch", "2"],
                         "got uniform; allowed: batch = 1"),
                        (["--preset", "ashe1", "--model", "ashe1", "--read-raises"], "apply to the ashe2 model only"),
                        (["--preset", "ashe1", "--raise-sizes", "pot"], "apply to the ashe1 model only"),
                        (["--preset", "ashe1", "--model", "ashe1", "--init", "patient"],
                         "is a genome of the ashe2 model"),
                        (["--preset", "generalist", "--anchored"], "with anchored choose init 'random'"),
                        (["--preset", "ashe1", "--average-windows", "50"], "give validate_window > 0"),
                        (["--preset", "ashe1", "--validate-window", "5", "--average-windows", "50,1"],
                         "distinct whole numbers >= 2"),
                        (["--preset", "ashe1", "--validate-window", "5", "--average-windows", "9,9"],
                         "distinct whole numbers >= 2"),
                        (["--preset", "ashe1", "--validate-window", "5", "--average-windows", "x"],
                         "comma-separated whole numbers"),
                        (["--preset", "ashe1", "--validate-window", "5", "--average-windows", "50"],
                         "give average_floors (or targets)"),
                        (["--preset", "ashe1", "--average-floors", "1,2,3,4"], "give average_windows"),
                        (["--preset", "scratch", "--champion-raising-ranges", "0.5"], "in (0.5, 1] (wider than"),
                        (["--preset", "scratch", "--champion-raising-ranges", "1,1"], "distinct numbers"),
                        (["--preset", "scratch", "--champion-raising-ranges", "1,x"], "comma-separated numbers"),
                        (["--preset", "table2", "--champion-raising-ranges", "1"], "give anchored"),
                        (["--preset", "scratch", "--validate-window", "0", "--validate-rule", "ane",
                          "--average-windows", "none", "--champion-raising-ranges", "1"], "give validate_window > 0"),
                        (["--preset", "scratch", "--average-floors", "1,2"], "one value per training opponent (5: "),
                        (["--preset", "scratch", "--average-floors", "1,2,y,4,-"], "'-' for none")):
        r = CliRunner().invoke(main, ["evolve", *args, "--out", str(tmp_path / "x.h5")])
        assert r.exit_code == 2 and match in r.output and "Traceback" not in r.output, (args, r.output)


def test_cli_generalist_preset_and_its_overrides(tmp_path):
    """The generalist preset sets the hand-built start and opponent and the 0.1-weighted hall of fame at ASHE 1.0's
    hands per player (9 opponents x 222 deals <= 4 x 500); an explicit --init-range overrides both its ends, and
    --explore and --read-aggression reach the players' settings."""
    from pokerduel.cli.evolve import evolve as evolve_command

    assert {p for p in evolve_command.params if p.name == "preset"}.pop().type.choices == tuple(PRESETS)
    preset = PRESETS["generalist"]
    assert (len(preset["opponents"]) + preset["hall_of_fame"]) * preset["deals"] <= 4 * PRESETS["ashe1"]["deals"]
    r = CliRunner().invoke(main, ["evolve", "--preset", "generalist", "--population", "5", "--keep", "2",
                                  "--generations", "3", "--hall-of-fame", "1", "--deals", "2", "--init-range", "-0.2",
                                  "0.3", "--panel-deals", "2", "--panel-bots", "random", "--prt-capacity", "64",
                                  "--explore", "0.05", "--read-aggression", "--backend", "serial",
                                  "--out", str(tmp_path / "g.h5")])
    assert r.exit_code == 0, r.output
    cfg = load_run(tmp_path / "g.h5").config
    assert cfg.opponents == (*TRAINING_BOTS, "handbuilt") and cfg.init == "handbuilt"
    assert cfg.pool_weights == (0.0, 0.1, 1.0) and cfg.hall_of_fame == 1 and cfg.deals == 2
    assert (cfg.init_low, cfg.init_high) == (-0.2, 0.3) and cfg.population == 5 and cfg.fitness == "ane"
    assert cfg.settings.explore == 0.05 and cfg.settings.read_aggression


def test_cli_refine_preset(tmp_path):
    """The refine preset is the generalist's opponents, hall and hands from the reader-steady player with its reading
    settings and lookahead, small generation-0 noise and TSER's late mutation constants throughout; explicit
    mutation options override it."""
    assert {k: v for k, v in PRESETS["refine"].items() if k in PRESETS["generalist"] and "init" not in k} == {
        k: v for k, v in PRESETS["generalist"].items() if "init" not in k}
    r = CliRunner().invoke(main, ["evolve", "--preset", "refine", "--population", "5", "--keep", "2",
                                  "--generations", "2", "--hall-of-fame", "1", "--deals", "2", "--sigma-start", "0.3",
                                  "--panel-deals", "2", "--panel-bots", "random", "--prt-capacity", "64",
                                  "--backend", "serial", "--out", str(tmp_path / "r.h5")])
    assert r.exit_code == 0, r.output
    run = load_run(tmp_path / "r.h5")
    cfg = run.config
    assert cfg.init == "reader-steady" and (cfg.init_low, cfg.init_high) == (-0.03, 0.03)
    assert cfg.settings.read_raises and cfg.settings.read_reraises and cfg.settings.lookahead
    assert (cfg.tser.rate_start, cfg.tser.rate_end, cfg.tser.sigma_start, cfg.tser.sigma_end) == (0.05, 0.05, 0.3, 0.1)
    assert np.abs(run.population0 - steady_reader_genome(cfg.settings)).max() <= 0.03


def test_cli_table2_preset(tmp_path):
    """The table2 preset is refine with Table 2's means as targets, the Maniac weighted 2 and the champion
    chosen among every generation's on validation decks by its shortfall below the targets (a smaller
    --validate-window: among the last ones); another opponent list without matching targets is a usage error."""
    assert {k: v for k, v in PRESETS["table2"].items() if k in PRESETS["refine"]} == PRESETS["refine"]
    args = ["evolve", "--preset", "table2", "--population", "4", "--keep", "2", "--generations", "2",
            "--hall-of-fame", "1", "--deals", "2", "--opponent-deals", "2,2,2,2,2", "--panel-deals", "2",
            "--panel-bots", "random",
            "--prt-capacity", "64", "--backend", "serial", "--out", str(tmp_path / "t.h5")]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    run = load_run(tmp_path / "t.h5")
    cfg = run.config
    assert cfg.targets == (998.6, 40368.0, 36158.0, 9800.0, None) and cfg.opponents[4] == "handbuilt"
    assert cfg.opponent_weights == (1.0, 1.0, 2.0, 1.0, 1.0) and cfg.init == "reader-steady"
    # ASHE 1.0's 500 deals against each bot, 222 against the hand-built player (overridden above to keep this short)
    assert PRESETS["table2"]["opponent_deals"] == (500, 500, 500, 500, 222) and cfg.opponent_deals == (2,) * 5
    # the champion chosen among every generation's (the preset's 250)
    assert cfg.validate_window == 250 and cfg.validate_rule == "shortfall"
    assert list(run.validation["generations"]) == [1, 2]
    assert (f"the run's champion (generation {run.champion_generation}, the best of all 2 on validation decks, "
            "by its shortfall below the targets)") in r.output
    r = CliRunner().invoke(main, [*args[:-1], str(tmp_path / "w.h5"), "--validate-window", "1"])
    assert r.exit_code == 0, r.output
    assert list(load_run(tmp_path / "w.h5").validation["generations"]) == [2]
    assert "(generation 2, the best of the last 1 on validation decks" in r.output
    r = CliRunner().invoke(main, [*args[:-1], str(tmp_path / "f.h5"), "--validate-finalists", "2",
                                  "--validate-final-matches", "1"])
    assert r.exit_code == 0, r.output
    final = load_run(tmp_path / "f.h5").validation
    assert sorted(final["finalists"]) == [1, 2] and final["final_mbb"].shape == (2, 5)
    assert "on validation decks, then of the first 2 on more decks, by its shortfall" in r.output
    r = CliRunner().invoke(main, [*args[:-1], str(tmp_path / "g.h5"), "--validate-finalists", "1"])
    assert r.exit_code == 2 and "give 0 (off) or at least 2" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(main, [*args[:-1], str(tmp_path / "u.h5"), "--opponents", "calling-machine"])
    assert r.exit_code == 2 and "one finite number > 0 per training opponent (1: calling-machine)" in r.output
    assert "Traceback" not in r.output


def test_cli_scratch_preset(tmp_path):
    """The scratch preset is table2's opponents, hands and aim from random weights near zero with anchored
    estimators, refine's mutation load and the settings it names, none of the hand-made reader's own; its champion
    averaged, then widened in its raising range, where that keeps Table 2's lower ends; an explicit --init-range
    overrides its noise, and --average-windows none leaves the raising ranges and their floors."""
    scratch, table2 = PRESETS["scratch"], PRESETS["table2"]
    assert {k: v for k, v in table2.items() if k in scratch and "init" not in k} == {
        k: v for k, v in scratch.items() if k in table2 and "init" not in k}
    assert not any(k in scratch for k in ("read_raises", "read_reraises", "lookahead"))
    r = CliRunner().invoke(main, ["evolve", "--preset", "scratch", "--population", "4", "--keep", "2",
                                  "--generations", "2", "--hall-of-fame", "1", "--deals", "2",
                                  "--opponent-deals", "2,2,2,2,2", "--init-range", "-0.05", "0.05",
                                  "--average-matches", "1", "--panel-deals", "2", "--panel-bots", "random",
                                  "--prt-capacity", "64", "--backend", "serial", "--out", str(tmp_path / "s.h5")])
    assert r.exit_code == 0, r.output
    run = load_run(tmp_path / "s.h5")
    cfg, st = run.config, run.config.settings
    assert cfg.init == "random" and (cfg.init_low, cfg.init_high) == (-0.05, 0.05)
    assert (cfg.tser.rate_start, cfg.tser.sigma_start) == (0.05, 0.1) and cfg.targets == table2["targets"]
    assert st.anchored and st.read_aggression and st.call_option and st.option_reraise and st.raising_range == 0.5
    assert not (st.read_raises or st.read_reraises or st.lookahead)
    assert np.abs(run.population0).max() <= 0.05 and np.abs(run.population0).max() > 0
    # its champion: the widest of the last 50, 25, 10 generations' means (here all 2) at Table 2's lower ends
    lower = [ASHE1_TABLE2[b] - ASHE1_TABLE2_CI[b] for b in TRAINING_BOTS]
    assert cfg.average_windows == (50, 25, 10) and cfg.floors == (*lower, None)
    assert list(run.validation["averages"]) == [2]
    reached = np.all(run.validation["average_mbb"][0, :4] >= lower)
    assert run.champion_average == (2 if reached else 0)
    # then played at the first of the raising ranges 1, 0.75, 0.6 at those floors, else at the run's 0.5
    assert cfg.champion_raising_ranges == (1.0, 0.75, 0.6)
    assert list(run.validation["raising_ranges"]) == [1.0, 0.75, 0.6]
    at = np.all(run.validation["raising_mbb"][:, :4] >= lower, axis=1)
    assert run.champion_settings.raising_range == ([1.0, 0.75, 0.6][np.argmax(at)] if at.any() else 0.5)
    r = CliRunner().invoke(main, ["evolve", "--preset", "scratch", "--population", "4", "--keep", "2",
                                  "--generations", "2", "--hall-of-fame", "1", "--deals", "2",
                                  "--opponent-deals", "2,2,2,2,2", "--average-windows", "none", "--panel-deals", "2",
                                  "--average-matches", "1", "--panel-bots", "random", "--prt-capacity", "64",
                                  "--backend", "serial", "--out", str(tmp_path / "n.h5")])
    assert r.exit_code == 0, r.output
    off = load_run(tmp_path / "n.h5")
    assert off.config.average_windows == () and "averages" not in off.validation
    assert off.config.floors == (*lower, None) and "raising_ranges" in off.validation  # the ranges keep the floors


def test_a_short_ashe1_run_beats_the_calling_machine(tmp_path):
    """A few generations of ANE against the four bots find a player that beats the Calling Machine on fresh
    decks: the lower end of its 95% interval is above zero (fixed seeds)."""
    cfg = EvolveConfig(population=16, generations=6, keep=5, fitness="ane", opponents=TRAINING_BOTS, deals=40, seed=2,
                       panel_deals=2, panel_bots=("random",), prt_capacity=256)
    run = run_evolution(cfg, tmp_path / "s.h5").run
    champ = ashe_player(run.records["champion"][-1], cfg.settings)
    mean, ci = play_duplicate(champ, "calling-machine", 400, seed=123456).mbb_per_hand()
    assert mean - ci > 0, (mean, ci)


def test_populations_of_evolved_players_from_run_files(tmp_path):
    """``pokerduel population from-run``: the champions of chosen generations and the current population of
    each run, in order, in a population file that says where they came from and ranks like any other."""
    from pokerduel.evolution.evolve import population_from_runs
    from pokerduel.play.populations import load_population

    paths = [tmp_path / f"r{s}.h5" for s in (1, 2)]
    runs = [run_evolution(EvolveConfig(**{**TINY_ANE, "generations": 3, "seed": s}), p).run
            for s, p in zip((1, 2), paths)]
    pop = population_from_runs(paths, [1, 3], current=True)
    want = [g for r in runs for g in (r.records["champion"][0], r.records["champion"][2], *r.population)]
    assert np.array_equal(pop.genomes, np.stack(want))
    out = tmp_path / "evolved.h5"
    r = CliRunner().invoke(main, ["population", "from-run", *map(str, paths), "--champions", "1,3", "--current",
                                  "--out", str(out)])
    assert r.exit_code == 0, r.output
    saved = load_population(out)
    assert np.array_equal(saved.genomes, pop.genomes)
    assert saved.origin == f"{paths[0]}: champions of generations 1,3; {paths[0]}: population after generation 3; " \
                           f"{paths[1]}: champions of generations 1,3; {paths[1]}: population after generation 3"
    assert "evolved" in CliRunner().invoke(main, ["population", "show", str(out)]).output
    gt = CliRunner().invoke(main, ["ground-truth", "--population", str(out), "--hands", "4", "--seed", "3",
                                   "--backend", "serial", "--out", str(tmp_path / "gt.h5"), "--json"])
    assert gt.exit_code == 0, gt.output
    from pokerduel.play.ground_truth import load_ground_truth
    assert load_ground_truth(tmp_path / "gt.h5")[0].source["origin"] == saved.origin
    for args, words in ((["--champions", "0-2"], "generations 1..3"), ([], "--champions GENERATIONS, --current"),
                        (["--champions", "3-1"], "1-based")):
        bad = CliRunner().invoke(main, ["population", "from-run", str(paths[0]), *args, "--out",
                                        str(tmp_path / "x.h5")])
        assert bad.exit_code == 2 and words in bad.output, bad.output


# ----------------------------------------------------------------------------------------- fixed opponents, selectors


@pytest.mark.parametrize("selector,batch", [("uniform", 1), ("pocbam", 1), ("hybrid", 1), ("pocbam", 3), ("hybrid", 4)])
def test_selector_mode_with_fixed_opponents_ranks_candidates_only_and_resumes_exactly(tmp_path, selector, batch):
    cfg = EvolveConfig(population=6, generations=4, keep=3, selector=selector, opponents=("calling-machine", "random"),
                       hall_of_fame=2, pool_weights=(1.0, 0.5, 2.0), seed=4, panel_deals=4,
                       panel_bots=("calling-machine",), prt_capacity=256, batch=batch)
    assert cfg.played_pairs == 15 + 6 * 4 and cfg.budget == (cfg.n0 + 1) * cfg.played_pairs
    whole = run_and_resume(cfg, tmp_path, stop_after=1)
    rec = whole.records
    assert np.all(rec["samples_used"] == cfg.budget)
    warm = cfg.n0 * cfg.played_pairs                       # with the hall of fame full (generations 2 on)
    if batch > 1:     # a decision per batch of pairs (fewer where fewer pairs had a finite gain)
        assert np.all(rec["decisions"][2:] >= -(-(cfg.budget - warm) // batch))
        assert np.all(rec["decisions"][2:] < cfg.budget - warm)
    assert rec["survivors"].max() < cfg.population
    i, j = rec["trace_i"], rec["trace_j"]
    assert np.all(i < cfg.population)                      # every sample has a candidate (two fixed never meet)
    n_fixed_present = 2 + (rec["hall"] >= 0).sum(axis=1)
    assert np.all(j.max(axis=1) == cfg.population + n_fixed_present - 1)
    shares = rec["actions"]
    assert shares.shape == (4, 6, 3) and np.allclose(shares.sum(axis=2), 1)   # every candidate played and decided
    # fixed_mbb is each candidate's mean against each fixed opponent, from the trace
    g = 3
    for c in range(cfg.population):
        for m in range(n_fixed_present[g]):
            x = rec["trace_x"][g][(i[g] == c) & (j[g] == cfg.population + m)]
            assert rec["fixed_mbb"][g, c, m] == pytest.approx(x.mean() / 2 / 100 * 1000)


def test_selector_mode_budget_and_selector_checks():
    base = dict(population=6, generations=3, keep=3, opponents=("calling-machine",), hall_of_fame=1)
    cfg = EvolveConfig(**base, selector="uniform")
    with pytest.raises(ValueError, match=f"allowed: budget >= {cfg.played_pairs}"):
        EvolveConfig(**base, selector="uniform", budget=cfg.played_pairs - 1)
    with pytest.raises(ValueError, match="cannot rank candidates against fixed opponents"):
        EvolveConfig(**base, selector="select-top")
    only_fixed = EvolveConfig(**base, selector="pocbam", pool_weights=(0.0, 1.0, 1.0))
    assert only_fixed.played_pairs == 6 * 2


def test_default_selector_is_pocbam_with_fixed_opponents_and_the_hybrid_without():
    base = dict(population=6, generations=3, keep=3)
    assert EvolveConfig(**base).selector == "hybrid"
    assert EvolveConfig(**base, opponents=("calling-machine",)).selector == "pocbam"
    assert EvolveConfig(**base, hall_of_fame=1).selector == "pocbam"
    assert EvolveConfig(**base, opponents=("calling-machine",), selector="hybrid").selector == "hybrid"
    assert EvolveConfig(**base, opponents=("calling-machine",), fitness="ane", deals=2).selector == "hybrid"


def test_the_hand_made_players_are_training_opponents():
    cfg = EvolveConfig(population=6, generations=2, keep=3, fitness="ane", deals=2,
                       opponents=("calling-machine", "handbuilt", "patient", "reader", "reader-folds", "reader-steady",
                                  "reader-river"))
    assert [p.name for p in training_opponents(cfg)] == ["calling-machine", "handbuilt", "patient", "reader",
                                                          "reader-folds", "reader-steady", "reader-river"]
    for spec, genome in (("handbuilt", handbuilt_genome), ("patient", patient_genome), ("reader", reader_genome),
                         ("reader-folds", reader_folds_genome), ("reader-steady", steady_reader_genome),
                         ("reader-river", river_reader_genome)):
        settings = AsheSettings(prt_capacity=1024, read_raises=spec.startswith("reader"),
                                read_reraises=spec in ("reader-folds", "reader-steady", "reader-river"))
        player = resolve_opponent(spec)
        assert player.name == spec
        assert np.array_equal(player.params, ashe_player(genome(settings), settings).params)


def test_panel_groups_and_the_multi_run_plot(tmp_path):
    paths = []
    for seed in (1, 2):
        panel = ("calling-machine", "hothead-maniac", "random", "tight-aggressive", "bluffer")
        cfg = EvolveConfig(**{**TINY_ANE, "generations": 3, "seed": seed, "panel_bots": panel})
        paths.append(str(tmp_path / f"s{seed}.h5"))
        run = run_evolution(cfg, paths[-1]).run
        mean = run.records["panel_mean"]
        assert list(run.panel_columns("training")) == [0, 1]      # the run's training opponents
        assert list(run.panel_columns("heldout")) == [3, 4]       # the held-out bots; random is in neither
        assert np.allclose(run.panel_score("heldout"), mean[:, 3:].mean(axis=1))
        assert np.allclose(run.panel_score(), mean.mean(axis=1))
    r = CliRunner().invoke(main, ["plot", "evolution", *paths, "--out", str(tmp_path / "m.png")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "m.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    runs = [load_run(p) for p in paths]
    want = np.mean([x.panel_score("heldout")[-1] for x in runs])
    assert f"{want:+.0f} over 2 runs" in r.output


def test_ane_run_is_the_same_on_a_process_pool(tmp_path):
    cfg = EvolveConfig(**{**TINY_ANE, "generations": 3, "hall_of_fame": 1})
    serial = run_evolution(cfg, tmp_path / "s.h5").run
    with get_backend("multiprocess", workers=2) as backend:
        pooled = run_evolution(cfg, tmp_path / "p.h5", backend).run
    assert_same_run(serial, pooled)


def test_run_file_players_are_player_specs_everywhere(tmp_path):
    run = run_evolution(EvolveConfig(**{**TINY_ANE, "generations": 2}), tmp_path / "r.h5").run
    spec = f"{tmp_path}/r.h5:champion"
    code = ("import json, sys; from pokerduel.players.base import make_player; "
            f"p = make_player({spec!r}); assert 'pokerduel.evolution.evolve' in sys.modules; "
            f"print(json.dumps(p.params[{HEADER}:{HEADER + 3}].tolist()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert np.allclose(json.loads(out), run.records["champion"][-1][:3])
    r = CliRunner().invoke(main, ["play", "--a", spec, "--b", "pot-odds", "--deals", "20", "--seed", "1"])
    assert r.exit_code == 0 and "mBB/hand" in r.output, r.output
    with pytest.raises(ValueError, match="RUN.h5:champion"):
        resolve_opponent("nobody")
