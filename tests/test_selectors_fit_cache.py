"""The Thurstone fit's fast path (fit cache, fused passes, upper-triangle Cholesky) equals the plain method
bit for bit, so ML-POCBAm's decisions are those of a straightforward reference."""

import numpy as np
import pytest

from pokerduel.selectors import _kernels as kern
from pokerduel.selectors import make_selector, thurstone
from pokerduel.selectors.problems import pair_arrays, pair_index_matrix

from .test_selectors_kernels_chol import reference_solve


@pytest.mark.parametrize("padded", [False, True])
@pytest.mark.parametrize("m", [1, 2, 3, 4, 5, 7, 8, 9, 13, 31, 99])
def test_upper_cholesky_equals_textbook_bit_for_bit(m, padded):
    rng = np.random.default_rng(m)
    B = rng.normal(size=(m, m))
    A = B @ B.T + m * np.eye(m)
    b = rng.normal(size=m)
    work = kern.chol_matrix(m) if padded else np.empty((m, m))   # padded: rows of a multiple of 8, aligned
    work[...] = np.nan                        # the lower triangle and the padding never reach the factor
    work[:, :m] = np.triu(A) + np.tril(np.full((m, m), np.nan), -1)
    x = b.copy()
    assert kern.chol_solve_upper(work, x, m, np.empty(m))
    assert np.array_equal(x, reference_solve(A, b))
    if padded:
        assert work.shape[1] % 8 == 0 and work.ctypes.data % 64 == 0


@pytest.mark.parametrize("K", [2, 5, 17, 40])
def test_posterior_reductions_equal_the_separate_kernels(K):
    """Eq 9's variances, eq 13's reductions, each item's largest reduction and a likelihood sum from one loop
    are those of ``score_posterior``, ``_reductions``, a plain maximum and a plain sum, bit for bit."""
    rng = np.random.default_rng(K)
    P = K * (K - 1) // 2
    n = rng.integers(1, 30, size=P)
    pvar = rng.uniform(0.0, 2.0, size=P) * rng.choice([1e-6, 1.0, 1e3], size=P)
    T = rng.normal(size=P) * 1e3
    var, DV, D = np.empty(K), np.empty(P), np.empty(K)
    ll = kern._posterior_reductions(K, n, pvar, var, DV, D, T, True)
    want_var = np.empty(K)
    kern.score_posterior(K, n, pvar, want_var)
    want_dv = kern._reductions(pvar, n)
    pi, pj = pair_arrays(K)
    want_d = np.zeros(K)
    np.maximum.at(want_d, pi, want_dv)
    np.maximum.at(want_d, pj, want_dv)
    want_ll = 0.0
    for t in T:
        want_ll += t
    assert np.array_equal(var, want_var) and np.array_equal(DV, want_dv) and np.array_equal(D, want_d)
    assert ll == want_ll


@pytest.mark.parametrize("m", [2, 5, 9])
def test_upper_cholesky_refuses_where_the_plain_one_does(m):
    rng = np.random.default_rng(m)
    B = rng.normal(size=(m, m))
    for bad in range(m):
        A = B @ B.T + m * np.eye(m)
        A[bad, bad] = 0.5 * A[bad, bad] - 2.0 * m
        assert kern.chol_solve(A.copy(), np.ones(m), m) == kern.chol_solve_upper(A.copy(), np.ones(m), m,
                                                                               np.empty(m))


def _run_fits(K, n0, nu0, sd, steps, seed):
    """Fit after every sample of a run, warm-started, with the cached fast path and with the plain method."""
    rng = np.random.default_rng(seed)
    pi, pj = pair_arrays(K)
    pidx = pair_index_matrix(K)
    P = pi.size
    gam = rng.uniform(size=K)
    n, xbar, m2 = np.zeros(P, np.int64), np.zeros(P), np.zeros(P)
    for _ in range(n0):
        for p in range(P):
            kern.record(n, xbar, m2, p, gam[pi[p]] - gam[pj[p]] + sd[p] * rng.normal())
    C, G = kern.new_fit_cache(K, P)
    g1, s1, g2, s2 = np.zeros(K), np.ones(P), np.zeros(K), np.ones(P)
    for t in range(steps):
        init = t == 0
        i1 = kern.fit_thurstone_ref(K, pidx, pi, pj, n, xbar, m2, g1, s1, init, 1e-12, 1e-8, 200, nu0)
        i2 = kern.fit_thurstone_cached(K, pidx, pi, pj, n, xbar, m2, g2, s2, init, 1e-12, 1e-8, 200, nu0, C, G)
        assert i1 == i2 and np.array_equal(g1, g2) and np.array_equal(s1, s2), t
        p = int(rng.integers(P)) if t % 3 else int(np.argmin(n))
        kern.record(n, xbar, m2, p, gam[pi[p]] - gam[pj[p]] + sd[p] * rng.normal())


@pytest.mark.parametrize("K,n0,nu0", [(19, 3, 0.0), (17, 1, 0.0), (18, 2, 2.0), (16, 1, 1.5)])
def test_cached_fit_equals_plain_fit_along_a_run(K, n0, nu0):
    assert K >= kern._FAST_FIT_K          # the fast path, not the plain one it falls back to below
    sd = np.random.default_rng(K).uniform(0.2, 1.0, K * (K - 1) // 2)
    _run_fits(K, n0, nu0, sd, 40, K)


@pytest.mark.parametrize("every", [3, 1])
def test_cached_fit_equals_plain_fit_with_noiseless_pairs(every):
    """Pairs whose samples are all equal have no variance of their own; with every pair noiseless the
    residuals are rounding errors and the variances sit on the floor, which moves with every sample."""
    K = 16
    sd = np.random.default_rng(3).uniform(0.2, 1.0, K * (K - 1) // 2)
    sd[::every] = 0.0
    _run_fits(K, 3, 0.0, sd, 40, 5)


def test_ml_pocbam_decisions_equal_a_plain_reference():
    """The selector's pairs equal those of a loop over the plain fit, eq 9 and the full AEPCS scan."""
    K, k, budget = 16, 6, 3 * 120 + 120
    oracle = thurstone(K, np.random.default_rng(11), np.random.default_rng(12))
    sel = make_selector("ml-pocbam", oracle, k, budget, rng=np.random.default_rng(0))
    sel.run()
    tr = sel.trace
    pi, pj = pair_arrays(K)
    pidx = pair_index_matrix(K)
    P = pi.size
    n, xbar, m2 = np.zeros(P, np.int64), np.zeros(P), np.zeros(P)
    gamma, sig2, mu, var = np.zeros(K), np.ones(P), np.empty(K), np.empty(K)
    for t in range(budget):
        p = int(pidx[tr.i[t], tr.j[t]])
        if t >= 3 * P:
            kern.fit_thurstone_ref(K, pidx, pi, pj, n, xbar, m2, gamma, sig2, t == 3 * P, 1e-12, 1e-8, 200, 0.0)
            kern.model_posterior(K, pidx, n, gamma, sig2, mu, var)
            assert kern.choose_pair_scan(mu, var, sig2, n, pi, pj, k)[0] == p, t
        else:
            assert p == t % P
        kern.record(n, xbar, m2, p, tr.x[t])
