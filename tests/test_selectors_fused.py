"""The one-pass weighted POCBAm decision (``_fused``) against the five-pass kernel it replaces: the same pair,
threshold and work arrays bit for bit, call after call as the statistics change under its cache."""

from __future__ import annotations

import numpy as np
import pytest

from pokerduel.selectors import _fused
from pokerduel.selectors import _kernels as kern
from pokerduel.selectors.weights import pool_weights, resolve_weights


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
        want = kern.pocbam_decide_w(k, sw.pi, sw.pj, sw.wa, sw.wb, n, nc, xbar, m2, 1e-12, mu, var, pvar, nu0)
        got = _fused.pocbam_decide_fused_w(k, sw.pi, sw.pj, sw.wa, sw.wb, n, nc, xbar, m2, 1e-12, mu2, var2, pvar2,
                                           nu0, *cache)
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
        a = _fused.pocbam_decide_fused_w(2, sw.pi, sw.pj, sw.wa, sw.wb, n, n, xbar, m2, 1e-12, *out, 0.0, *cache)
        b = kern.pocbam_decide_w(2, sw.pi, sw.pj, sw.wa, sw.wb, n, n, xbar, m2, 1e-12, *ref, 0.0)
        assert a == b
        assert all(np.array_equal(x, y) for x, y in zip(out, ref))
