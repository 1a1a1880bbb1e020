"""The weighted decisions that keep caches (``_fused``) against the plain kernels: the one-pass POCBAm decision
against the five-pass one (the same pair, threshold and work arrays bit for bit, call after call as the
statistics change under its cache), and the refits with the fit cache against fresh fits."""

from __future__ import annotations

import numpy as np
import pytest

from pokerduel.selectors import _fused, candidates_vs_opponents, make_selector
from pokerduel.selectors import _kernels as kern
from pokerduel.selectors.weights import pool_weights, resolve_weights

ONE = np.empty(1, np.int64)   # one best pair: the sequential decision


def _problem(Kc, n_fixed, seed):
    K = Kc + n_fixed
    w = pool_weights(Kc, [(n_fixed, 1.0)], 0.1) if n_fixed else None
    sw = resolve_weights(K, Kc, w)
    rng = np.random.default_rng(seed)
    means = rng.normal(0.0, 1.0, sw.pi.size)
    sds = rng.choice([0.0, 0.5, 2.0], size=sw.pi.size)   # 0: a pair whose samples are all equal
    return sw, means, sds, rng


@pytest.mark.parametrize("Kc,n_fixed,n0,nu0", [(8, 3, 2, 0.0), (8, 3, 1, 0.0), (10, 0, 2, 0.0), (7, 2, 2, 1.5)])
def test_fused_decision_equals_pocbam_decide_w(Kc, n_fixed, n0, nu0):
    sw, means, sds, rng = _problem(Kc, n_fixed, 7 + Kc + n0)
    P = sw.pi.size
    n = np.zeros(P, np.int64)
    xbar, m2 = np.zeros(P), np.zeros(P)
    for _ in range(n0):
        for p in range(P):
            kern.record(n, xbar, m2, p, float(np.round(means[p] + sds[p] * rng.normal(), 1)))
    nc = n.copy()
    cache = _fused.new_cache(P)
    k = 3
    pending = []
    for step in range(300):
        mu, var, pvar = np.empty(Kc), np.empty(Kc), np.empty(P)
        mu2, var2, pvar2 = np.empty(Kc), np.empty(Kc), np.empty(P)
        want = kern.pocbam_decide_w(k, sw.pi, sw.pj, sw.wa, sw.wb, n, nc, xbar, m2, 1e-12, mu, var, pvar, nu0, ONE)
        got = _fused.pocbam_decide_fused_w(k, sw.pi, sw.pj, sw.wa, sw.wb, n, nc, xbar, m2, 1e-12, mu2, var2, pvar2,
                                           nu0, *cache, ONE)
        assert got[0] == want[0] and np.array_equal([got[1]], [want[1]], equal_nan=True)
        for a, b in ((mu, mu2), (var, var2), (pvar, pvar2)):
            assert np.array_equal(a, b, equal_nan=True)
        p = int(want[0])
        nc[p] += 1                               # a lag of 2: the sample is seen two decisions later
        pending.append((p, float(np.round(means[p] + sds[p] * rng.normal(), 1))))
        if len(pending) > 2:
            q, x = pending.pop(0)
            kern.record(n, xbar, m2, q, x)


def test_fused_cache_follows_counts_recorded_elsewhere():
    """Samples recorded between two decisions (the warm-up, ``posterior()``'s reads) refresh the cache."""
    sw, means, sds, rng = _problem(6, 2, 3)
    P = sw.pi.size
    n = np.zeros(P, np.int64)
    xbar, m2 = np.zeros(P), np.zeros(P)
    cache = _fused.new_cache(P)
    for _ in range(4):
        for p in range(P):
            kern.record(n, xbar, m2, p, float(means[p] + 1.0 * rng.normal()))
        out = [np.empty(6), np.empty(6), np.empty(P)]
        ref = [np.empty(6), np.empty(6), np.empty(P)]
        a = _fused.pocbam_decide_fused_w(2, sw.pi, sw.pj, sw.wa, sw.wb, n, n, xbar, m2, 1e-12, *out, 0.0, *cache, ONE)
        b = kern.pocbam_decide_w(2, sw.pi, sw.pj, sw.wa, sw.wb, n, n, xbar, m2, 1e-12, *ref, 0.0, ONE)
        assert a == b
        assert all(np.array_equal(x, y) for x, y in zip(out, ref))


@pytest.mark.parametrize("name,threshold", [("hybrid", 0.0), ("hybrid", 1.0), ("ml-pocbam", None)])
def test_weighted_refits_with_caches_equal_a_plain_reference(name, threshold):
    """The weighted ML-POCBAm and hybrid decisions (fit cache kept between fits, the one-pass POCBAm decision)
    are those of a loop of fresh fits, eq 17 and the five-pass or eq 9 choice, at K >= the fast fit's K."""
    Kc, M, k, n0 = 14, 4, 4, 2
    o = candidates_vs_opponents(Kc, M, np.random.default_rng([5, 0]), np.random.default_rng([5, 1]), d=0.3)
    assert Kc + M >= kern._FAST_FIT_K
    options = {} if threshold is None else {"threshold": threshold}
    budget = n0 * (Kc * (Kc - 1) // 2 + Kc * M) + 120     # the warm-up over the active pairs, then decisions
    s = make_selector(name, o, k, budget, n0=n0, rng=np.random.default_rng(0), **o.selector_options, **options)
    s.run()
    if threshold is not None:      # every decision in the mode the threshold forces
        assert set(s.mode_trace[s.warmup:].tolist()) == {2 if threshold == 0.0 else 1}
    sw, tr = s.score_weights, s.trace
    index = {(int(a), int(b)): p for p, (a, b) in enumerate(zip(s.pi, s.pj))}
    P, K = s.pi.size, s.K
    n, xbar, m2 = np.zeros(P, np.int64), np.zeros(P), np.zeros(P)
    gamma, sig2, mu, var, pvar = np.zeros(K), np.ones(P), np.empty(Kc), np.empty(Kc), np.empty(P)
    colw = np.zeros(0) if sw.column is None else sw.column
    use_col = sw.column is not None
    for t in range(budget):
        p = index[(int(tr.i[t]), int(tr.j[t]))]
        if t >= s.warmup:
            kern.fit_graph(K, s.pidx, s.pi, s.pj, sw.degree, n, xbar, m2, gamma, sig2, t == s.warmup, 1e-12, 1e-8,
                           200, 0.0)
            ii = kern.intransitivity_index_w(s.pi, s.pj, sw.wa, sw.wb, colw, use_col, n, xbar, m2, gamma, sig2,
                                             True, False, 1e-12, np.empty(Kc), 0.0)
            if threshold is not None and ii > threshold:
                want = kern.pocbam_decide_w(k, s.pi, s.pj, sw.wa, sw.wb, n, n, xbar, m2, 1e-12, mu, var, pvar, 0.0,
                                            ONE)
            else:
                want = kern.ml_choose_w(k, s.pi, s.pj, sw.wa, sw.wb, colw, use_col, n, gamma, sig2, mu, var, ONE)
            assert want[0] == p, t
            if threshold is not None:
                assert s.ii_trace[t] == ii
        kern.record(n, xbar, m2, p, float(tr.x[t]))
