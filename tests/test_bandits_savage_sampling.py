"""SAVAGE Sampling (Urvoy et al. 2013, Algorithm 2): the decision at a point of the box against brute force,
the sampled independence test's witness probability against an exact enumeration of sign configurations,
its one-sided risk (a variable the decision does not depend on is never kept), the reflected walk, the
compiled run against the step loop, identification on hard Condorcet matrices, and bad arguments."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from pokerduel.bandits import PreferenceOracle, Savage, copeland_scores, hard_condorcet_matrix, identify
from pokerduel.bandits import _savage as sk
from pokerduel.bandits.problems import shuffled


def _matrix(K, pi, pj, x):
    P = np.full((K, K), 0.5)
    P[pi, pj] = x
    P[pj, pi] = 1 - x
    return P


def _winner_mask(P):
    wins = (P > 0.5).sum(axis=1)
    return sum(1 << k for k in np.flatnonzero(wins == wins.max()))


def _st(seed):
    return np.array([np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]], dtype=np.uint64)


def test_box_decision_against_brute_force():
    rng = np.random.default_rng(0)
    for K in (3, 5, 8):
        pi, pj = (a.astype(np.int64) for a in np.triu_indices(K, 1))
        score = np.zeros(K)
        for _ in range(50):
            x = rng.random(pi.size)
            P = _matrix(K, pi, pj, x)
            assert sk.box_decision(sk.COPELAND, K, pi, pj, x, score) == _winner_mask(P)
            b = P.sum(axis=1) - 0.5
            assert sk.box_decision(sk.BORDA, K, pi, pj, x, score) == int(np.argmax(b))


def _exact_witness_probability(K, pi, pj, lo, hi, p):
    """P(one probe at a uniform point of the box changes the Copeland decision): the decision reads only the
    signs, which are independent with P(x_q > 1/2) = (hi - max(lo, 1/2)) / (hi - lo); the probe redraws x_p,
    so the sign changes with probability 2 r (1 - r), r = P(x_p > 1/2)."""
    up = np.clip((hi - np.maximum(lo, 0.5)) / (hi - lo), 0, 1)
    others = [q for q in range(pi.size) if q != p]
    depend = 0.0
    for signs in itertools.product((0, 1), repeat=len(others)):
        prob = np.prod([up[q] if s else 1 - up[q] for q, s in zip(others, signs)])
        x = np.full(pi.size, 0.25)
        x[others] = np.where(np.array(signs) == 1, 0.75, 0.25)
        masks = []
        for v in (0.25, 0.75):
            x[p] = v
            masks.append(_winner_mask(_matrix(K, pi, pj, x)))
        depend += prob * (masks[0] != masks[1])
    return 2 * up[p] * (1 - up[p]) * depend


def test_sampled_test_witness_rate_matches_exact_enumeration():
    """With one start of one point the test answers "dependent" with the exact witness probability;
    with m independent starts it answers "independent" with probability (1 - q)^m (4 s.e. tolerance)."""
    K = 4
    pi, pj = (a.astype(np.int64) for a in np.triu_indices(K, 1))
    lo = np.array([0.55, 0.3, 0.2, 0.45, 0.1, 0.6])
    hi = np.array([0.9, 0.8, 0.7, 0.65, 0.4, 0.95])
    x, score = np.zeros(pi.size), np.zeros(K)
    st = _st(1)
    reps = 3000
    seen_dependent = False
    for p in range(pi.size):
        q = _exact_witness_probability(K, pi, pj, lo, hi, p)
        for starts in (1, 3):
            expected = 1 - (1 - q) ** starts
            got = np.mean([not sk.sampled_independent(sk.COPELAND, K, pi, pj, lo, hi, p, starts, 1, 0.25, st, x,
                                                      score) for _ in range(reps)])
            se = math.sqrt(max(expected * (1 - expected), 1e-4) / reps)
            assert abs(got - expected) < 4 * se, (p, starts, got, expected)
        if lo[p] > 0.5 or hi[p] < 0.5:
            assert q == 0.0  # a settled sign: no witness can exist
        seen_dependent |= q > 0.05
    assert seen_dependent


def test_sampled_test_never_keeps_what_savage_drops_and_finds_clear_dependence():
    """On random boxes: a pair SAVAGE's exact predicate drops is one the decision does not depend on, so no
    probe can witness a change and the sampled test always drops it; a pair with witness probability
    q >= 0.1 per probe is kept by 100 independent starts except with probability 0.9^100 < 3e-5."""
    K = 5
    pi, pj = (a.astype(np.int64) for a in np.triu_indices(K, 1))
    rng = np.random.default_rng(7)
    x, score = np.zeros(pi.size), np.zeros(K)
    st = _st(2)
    dropped = kept = 0
    for _ in range(12):
        c = rng.random(pi.size)
        w = rng.random(pi.size) * 0.4
        lo, hi = np.clip(c - w, 0, 1), np.clip(c + w, 0, 1)
        live = np.ones(pi.size, dtype=np.bool_)
        cmin, cplus = np.zeros(K, np.int64), np.zeros(K, np.int64)
        lb, ub, alive = np.zeros(K), np.zeros(K), np.ones(K, np.bool_)
        sk.sv_refresh(sk.COPELAND, sk.TEST_SAVAGE, K, pi, pj, lo, hi, live, cmin, cplus, lb, ub, alive)
        for p in range(pi.size):
            if not live[p]:
                assert sk.sampled_independent(sk.COPELAND, K, pi, pj, lo, hi, p, 20, 5, 0.25, st, x, score)
                dropped += 1
            elif _exact_witness_probability(K, pi, pj, lo, hi, p) >= 0.1:
                assert not sk.sampled_independent(sk.COPELAND, K, pi, pj, lo, hi, p, 100, 1, 0.25, st, x, score)
                kept += 1
    assert dropped > 10 and kept > 10


def test_reflect_folds_into_the_interval():
    for v, want in [(0.5, 0.5), (1.2, 0.8), (-0.3, 0.3), (2.3, 0.3), (-1.2, 0.8), (0.0, 0.0), (1.0, 1.0)]:
        assert sk.reflect(v, 0.0, 1.0) == pytest.approx(want)
    assert sk.reflect(0.9, 0.2, 0.6) == pytest.approx(0.3)
    assert sk.reflect(5.0, 0.4, 0.4) == 0.4
    # the reflected uniform walk keeps the uniform law: from uniform starts, after 20 steps still uniform
    rng = np.random.default_rng(3)
    v = rng.random(20000)
    for _ in range(20):
        v = np.array([sk.reflect(a, 0.0, 1.0) for a in v + rng.uniform(-0.25, 0.25, v.size)])
    counts = np.histogram(v, bins=10, range=(0, 1))[0]
    chi2 = ((counts - 2000) ** 2 / 2000).sum()
    assert chi2 < 30  # 9 degrees of freedom: P(chi2 > 30) < 0.001


@pytest.mark.parametrize("winner", ["copeland", "borda"])
def test_sampling_compiled_run_matches_steps(winner):
    P = shuffled(hard_condorcet_matrix(6), np.random.default_rng(4))
    runs = []
    for compiled in (True, False):
        b = Savage(PreferenceOracle(P, np.random.default_rng(1)), 10**6, winner=winner, test="sampling", delta=0.05,
                   anytime=True, exploit=False, rng=np.random.default_rng(2), retest=0.02)
        if compiled:
            b.run()
        else:
            while not b.stopped_at:
                b.step()
        runs.append((b.stopped_at, b.n.copy(), b.live.copy(), b.winner()))
    assert runs[0][0] == runs[1][0] > 0
    for a, c in zip(runs[0][1:], runs[1][1:]):
        assert np.array_equal(a, c)


def test_sampling_identifies_hard_condorcet_winners():
    """Fixed seeds: on shuffled hard Condorcet matrices (K = 6) SAVAGE Sampling stops, names the winner, and
    its settled pairs are never sampled after they are dropped (the live set only shrinks)."""
    P = hard_condorcet_matrix(6)
    for seed in range(4):
        Ps = shuffled(P, np.random.default_rng(seed))
        truth = int(np.argmax(copeland_scores(Ps)))
        b = Savage(PreferenceOracle(Ps, np.random.default_rng(seed)), 10**6, test="sampling", delta=0.05,
                   anytime=True, exploit=False, rng=np.random.default_rng(100 + seed))
        was_live = b.live.copy()
        while not b.stopped_at:
            b.step()
            assert not np.any(b.live & ~was_live)
            was_live = b.live.copy()
        assert b.winner() == truth
        used, dec = identify(Ps, "copeland", "sampling", delta=0.05, max_duels=10**6, seed=seed)
        assert used < 10**6 and dec == truth


def test_sampling_bad_arguments():
    P = hard_condorcet_matrix(4)
    o = PreferenceOracle(P, np.random.default_rng(0))
    with pytest.raises(ValueError, match="condorcet|Condorcet"):
        Savage(o, 100, winner="condorcet", test="sampling")
    for kw, match in [({"starts": 0}, "starts"), ({"steps": 1.5}, "steps"), ({"step": 0.0}, "step"),
                      ({"step": 1.5}, "step"), ({"retest": -0.1}, "retest"), ({"retest": "x"}, "retest")]:
        with pytest.raises(ValueError, match=match):
            Savage(o, 100, test="sampling", **kw)
    with pytest.raises(ValueError, match="test"):
        Savage(o, 100, test="sampled")
    with pytest.raises(ValueError, match="K <= 62"):
        Savage(PreferenceOracle(hard_condorcet_matrix(63), np.random.default_rng(0)), 100, test="sampling")
