"""SAVAGE: the true winner survives on noiseless feedback, the delta guarantee holds in simulation, the
explore-then-exploit regret on the D-TS author's 5-arm matrix, fewer duels than uniform exploration, the
wrapped Borda baselines, and the Borda top-k selector among the selectors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pokerduel.bandits import (
    PreferenceOracle,
    Savage,
    SavageTopK,
    borda_scores,
    copeland_scores,
    hard_condorcet_matrix,
    identify,
    random_copeland_matrix,
    regret_per_round,
    run_on_matrix,
    wrapped_identify,
)
from pokerduel.bandits.problems import MSLR5, shuffled
from pokerduel.bandits.savage_topk import register
from pokerduel.selectors import GaussianOracle, make_selector, thurstone


def _noiseless(K, rng):
    """A 0/1 preference matrix (a random tournament) with a unique Copeland winner."""
    while True:
        P = np.full((K, K), 0.5)
        iu = np.triu_indices(K, 1)
        P[iu] = (rng.random(iu[0].size) < 0.5).astype(float)
        P.T[iu] = 1 - P[iu]
        z = copeland_scores(P)
        if np.sum(z == z.max()) == 1:
            return P


@pytest.mark.parametrize("winner", ["copeland", "borda", "condorcet"])
def test_true_winner_never_eliminated_noiseless(winner):
    rng = np.random.default_rng(4)
    for rep in range(6):
        K = 6
        P = _noiseless(K, rng)
        if winner == "condorcet":
            P = np.full((K, K), 0.5)
            for i in range(K):                     # a 0/1 total order in a random arm order
                for j in range(i + 1, K):
                    P[i, j], P[j, i] = 1.0, 0.0
            P = shuffled(P, rng)
        truth = int(np.argmax(copeland_scores(P) if winner != "borda" else borda_scores(P)))
        if winner == "borda" and np.sum(borda_scores(P) == borda_scores(P).max()) > 1:
            continue
        b = Savage(PreferenceOracle(P, np.random.default_rng(rep)), 200000, winner=winner, delta=0.05,
                   anytime=True, exploit=False, rng=np.random.default_rng(rep))
        while not b.stopped_at:
            b.step()
            assert b.alive[truth]                  # the winner is never ruled out ...
            if winner == "copeland":
                assert b.cplus[truth] >= b.cmin.max()
            if winner == "borda":
                assert b.ub[truth] >= b.lb.max()
        assert b.winner() == truth                 # ... and is the decision
        assert b.stopped_at < 200000


def test_delta_guarantee_in_simulation():
    """Error rate of the decision at the stop <= delta (binomial 3-sigma margin), Copeland and Borda."""
    delta = 0.2
    R = 60
    for winner in ("copeland", "borda"):
        errors = 0
        for r in range(R):
            rng = np.random.default_rng(1000 + r)
            P = random_copeland_matrix(4, rng)
            s = copeland_scores(P) if winner == "copeland" else borda_scores(P)
            if np.sum(s == s.max()) > 1:
                continue
            used, dec = identify(P, winner, "savage", delta=delta, max_duels=400000, seed=r)
            errors += used < 400000 and dec != int(np.argmax(s))
        assert errors <= delta * R + 3 * math.sqrt(delta * (1 - delta) * R)


def test_explore_then_exploit_mslr_matrix():
    """Condorcet SAVAGE with delta = 1/T on the D-TS author's 5-arm MSLR matrix. While all 10 pairs are
    live the round robin costs exactly 1/2 Copeland regret per duel (zeta = 1, .75, .5, .25, 0 and every
    arm is in 4 of the 10 pairs). At T = 3000 the mean cumulative regret matches the author's published
    10-run average, 1055 (``MSLR_Informational_5_Condorcet_results_EteOnly.mat``), within 3 combined
    standard errors (theirs estimated from our spread and their 10 runs)."""
    ti, tj, _ = run_on_matrix("savage", MSLR5, 100, 0, winner="condorcet")
    assert regret_per_round(ti, tj, MSLR5).sum() == pytest.approx(50.0)
    T = 3000
    regs = []
    for seed in range(12):
        oracle = PreferenceOracle(MSLR5, np.random.default_rng(seed))
        b = Savage(oracle, T, winner="condorcet", rng=np.random.default_rng(seed))
        b.run()
        regs.append(b.regret(MSLR5).sum())
        if b.stopped_at:
            ti, tj = b.trace
            assert np.all(ti[b.stopped_at:] == b.winner()) and np.all(tj[b.stopped_at:] == b.winner())
    regs = np.array(regs)
    sd = regs.std(ddof=1)
    se = math.sqrt(sd ** 2 / regs.size + sd ** 2 / 10)
    assert abs(regs.mean() - 1055.0) < 3 * se
    assert regs.max() <= 0.5 * T


def test_savage_beats_uniform_on_hard_condorcet():
    """Same seeds (common feedback streams): SAVAGE stops after fewer duels than uniform exploration,
    and both name the true winner."""
    P = hard_condorcet_matrix(8)
    sav, uni = [], []
    for seed in range(5):
        Ps = shuffled(P, np.random.default_rng(seed))
        truth = int(np.argmax(copeland_scores(Ps)))
        for winner in ("condorcet", "copeland"):
            u1, d1 = identify(Ps, winner, "savage", delta=0.05, max_duels=10**6, seed=seed)
            u0, d0 = identify(Ps, winner, "none", delta=0.05, max_duels=10**6, seed=seed)
            assert d1 == d0 == truth
            sav.append(u1)
            uni.append(u0)
    diff = np.array(uni) - np.array(sav)
    assert diff.mean() - 3 * diff.std(ddof=1) / math.sqrt(diff.size) > 0


def test_uniform_samples_every_pair_equally():
    P = random_copeland_matrix(5, np.random.default_rng(3))
    b = Savage(PreferenceOracle(P, np.random.default_rng(1)), 10**6, test="none", delta=0.1, anytime=True,
               exploit=False, rng=np.random.default_rng(2))
    b.run()
    assert b.stopped_at > 0
    assert b.n.max() - b.n.min() <= 1
    assert b.n.sum() == b.stopped_at == b.t


def test_wrapped_borda_baselines():
    P = random_copeland_matrix(5, np.random.default_rng(9))
    truth = int(np.argmax(borda_scores(P)))
    for kind in ("elimination", "ucb"):
        used, dec = wrapped_identify(P, kind, delta=0.05, max_duels=2 * 10**6, seed=1)
        if used < 2 * 10**6:
            assert dec == truth
    used, dec = wrapped_identify(P, "elimination", delta=0.05, max_duels=2 * 10**6, seed=1)
    assert used < 2 * 10**6 and dec == truth
    with pytest.raises(ValueError, match="wrapped"):
        wrapped_identify(P, "lucb", delta=0.05, max_duels=10, seed=1)


# --- the Borda top-k selector ---------------------------------------------------------------------------------

def test_savage_topk_among_selectors():
    register()
    oracle = thurstone(8, np.random.default_rng(1), np.random.default_rng(2))
    sel = make_selector("savage", oracle, k=3, budget=3000, rng=np.random.default_rng(3))
    assert isinstance(sel, SavageTopK)
    top = sel.run()
    assert sel.used == 3000 and sel.trace.i.size == 3000
    assert set(top) == set(oracle.true_top_k(3))


def test_savage_topk_independence_against_brute_force():
    K, k = 7, 2
    mu = np.zeros((K, K))
    q = np.linspace(4, -4, K)
    mu = q[:, None] - q[None, :]
    oracle = GaussianOracle(mu, np.ones((K, K)), np.random.default_rng(0))
    sel = SavageTopK(oracle, k, 4000, rng=np.random.default_rng(0))
    for _ in range(2000):
        sel.step()
    lb, ub = np.zeros(K), np.zeros(K)
    for p in range(sel.pi.size):
        i, j = sel.pi[p], sel.pj[p]
        lb[i] += sel.lo[p]
        ub[i] += sel.hi[p]
        lb[j] -= sel.hi[p]
        ub[j] -= sel.lo[p]
    assert np.allclose((lb, ub), sel.bounds())
    settled = np.zeros(K, dtype=bool)
    for i in range(K):
        surely_in = sum(ub[l] >= lb[i] for l in range(K) if l != i) <= k - 1
        surely_out = sum(lb[l] > ub[i] for l in range(K) if l != i) >= k
        settled[i] = surely_in or surely_out
    assert np.array_equal(settled, sel.settled())
    assert np.array_equal(sel.live, ~(settled[sel.pi] & settled[sel.pj]))
    assert settled[0] and not sel.live.all()           # the clear best is settled and pairs were dropped
    with pytest.raises(ValueError, match="delta"):
        SavageTopK(oracle, k, 4000, delta=2)


def test_radius_and_hard_matrix():
    from pokerduel.bandits._savage import radius
    from pokerduel.bandits.savage import log_eta_over_delta

    N, T, delta = 45, 10**4, 0.1
    led, anytime = log_eta_over_delta(N, delta, T)
    assert not anytime
    for n in (1, 10, 100):     # eta = 2NT: the notes' check values for K = 5 are 2.69, 0.85, 0.27 (N = 10)
        assert radius(led, anytime, n) == pytest.approx(math.sqrt(math.log(2 * N * T / delta) / (2 * n)))
    led10, _ = log_eta_over_delta(10, 0.1, 10**4)
    assert [round(radius(led10, False, n), 2) for n in (1, 10, 100)] == [2.69, 0.85, 0.27]
    led, anytime = log_eta_over_delta(N, delta, None)
    assert anytime
    assert radius(led, anytime, 7) == pytest.approx(math.sqrt(math.log(math.pi ** 2 * N * 49 / 3 / delta) / 14))
    P = hard_condorcet_matrix(100)
    assert P[0, 1] == pytest.approx(0.51) and P[0, 99] == pytest.approx(1.0)
    assert np.allclose(P + P.T, 1.0) and copeland_scores(P)[0] == 1.0


# --- naive UCB (UCB1 over the pairs, SAVAGE's stopping rule) ---------------------------------------------------

def _total_order(K, x):
    """Arm 0 beats every later arm with probability ``x`` (a Condorcet, Copeland and Borda winner)."""
    P = np.full((K, K), 0.5)
    iu = np.triu_indices(K, 1)
    P[iu] = x
    P.T[iu] = 1 - x
    return P


@pytest.mark.parametrize("winner", ["copeland", "borda", "condorcet"])
def test_naive_ucb_never_rules_out_the_winner_noiseless(winner):
    """On 0/1 feedback the box never rules the true winner out, the decision at the stop is the winner,
    and no pair is ever dropped (naive UCB keeps every pair live). Copeland and Condorcet stop; Borda,
    whose UCB keeps the runner-ups' upper bounds at the leader's level, may run to its (smaller) cap."""
    rng = np.random.default_rng(5)
    cap = 4000 if winner == "borda" else 50000
    stops = 0
    for rep in range(5):
        K = 6
        P = _noiseless(K, rng) if winner != "condorcet" else shuffled(_total_order(K, 1.0), rng)
        s = borda_scores(P) if winner == "borda" else copeland_scores(P)
        if np.sum(s == s.max()) > 1:
            continue
        truth = int(np.argmax(s))
        b = Savage(PreferenceOracle(P, np.random.default_rng(rep)), cap, winner=winner, test="ucb", delta=0.05,
                   anytime=True, exploit=False, rng=np.random.default_rng(rep))
        while not b.stopped_at and b.t < cap:
            b.step()
            assert b.alive[truth] and b.live.all()
            if winner == "copeland":
                assert b.cplus[truth] >= b.cmin.max()
            if winner == "borda":
                assert b.ub[truth] >= b.lb.max()
        if b.stopped_at:
            stops += 1
            assert b.winner() == truth
        else:
            assert winner == "borda" and b.t == b.n.sum() == cap
    assert stops >= (1 if winner == "borda" else 5)


def test_naive_ucb_compiled_run_matches_steps():
    """The compiled whole run and the Python step loop sample the same pairs and stop at the same duel."""
    P = random_copeland_matrix(6, np.random.default_rng(5))
    runs = []
    for compiled in (True, False):
        b = Savage(PreferenceOracle(P, np.random.default_rng(1)), 10**6, winner="copeland", test="ucb", delta=0.05,
                   anytime=True, exploit=False, rng=np.random.default_rng(2))
        if compiled:
            b.run()
        else:
            while not b.stopped_at:
                b.step()
        runs.append((b.stopped_at, b.n.copy(), b.winner()))
    assert runs[0][0] == runs[1][0] > 0 and np.array_equal(runs[0][1], runs[1][1]) and runs[0][2] == runs[1][2]


def test_naive_ucb_samples_the_closest_pair_most():
    """UCB1 on c(n) - |xhat - 1/2| spends most duels on the pair closest to 1/2 (round robin would not)."""
    P = random_copeland_matrix(6, np.random.default_rng(5))
    gap = np.abs(P - 0.5)[np.triu_indices(6, 1)]
    b = Savage(PreferenceOracle(P, np.random.default_rng(1)), 10**6, winner="copeland", test="ucb", delta=0.05,
               anytime=True, exploit=False, rng=np.random.default_rng(2))
    b.run()
    assert b.stopped_at > 0 and b.winner() == int(np.argmax(copeland_scores(P)))
    assert np.argmax(b.n) == np.argmin(gap)
    assert b.n.max() > 0.5 * b.n.sum()


def test_naive_ucb_budget_cap_and_easy_stop():
    """Without a stop the run uses exactly its cap; on an easy matrix it stops, names the winner, and the
    duels used are the stop round."""
    P = random_copeland_matrix(8, np.random.default_rng(101))   # Borda: the runner-ups' upper bounds stay high
    cap = 30000
    b = Savage(PreferenceOracle(P, np.random.default_rng(1)), cap, winner="borda", test="ucb", delta=0.05,
               anytime=True, exploit=False, rng=np.random.default_rng(2))
    b.run()
    assert b.stopped_at == 0 and b.t == cap and b.n.sum() == cap
    assert identify(P, "borda", "ucb", delta=0.05, max_duels=cap, seed=1)[0] == cap
    E = _total_order(5, 0.9)
    for winner in ("copeland", "condorcet", "borda"):
        b = Savage(PreferenceOracle(E, np.random.default_rng(3)), 200000, winner=winner, test="ucb", delta=0.05,
                   anytime=True, exploit=False, rng=np.random.default_rng(4))
        b.run()
        assert 0 < b.stopped_at < 200000 and b.n.sum() == b.stopped_at == b.t and b.winner() == 0
        used, dec = identify(E, winner, "ucb", delta=0.05, max_duels=200000, seed=3)
        assert used < 200000 and dec == 0
    with pytest.raises(ValueError, match="'ucb'"):
        identify(E, "copeland", "lucb", delta=0.05, max_duels=10, seed=1)


def test_study_methods_share_the_feedback_streams():
    """A study task does not consume the run's SeedSequence: the same task twice gives the same run (the
    serial backend passes one shared object to every method of a run)."""
    from pokerduel.bandits.studies import _savage_task

    P = shuffled(hard_condorcet_matrix(6), np.random.default_rng(0))
    feed = np.random.SeedSequence(11).spawn(1)[0]
    task = {"P": P, "kind": "savage", "winner": "copeland", "test": "none", "delta": 0.05, "max_duels": 10**6,
            "feed": feed}
    first = _savage_task(task)["used"]
    assert _savage_task(task)["used"] == first == identify(P, "copeland", "none", delta=0.05, max_duels=10**6,
                                                              seed=np.random.SeedSequence(11).spawn(1)[0])[0]
    wtask = {**task, "kind": "wrapped", "winner": "borda", "test": "elimination"}
    assert _savage_task(wtask)["used"] == _savage_task(wtask)["used"]
