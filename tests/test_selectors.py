"""Top-k selectors: the maths of POCBAm / ML-POCBAm (Groves & Branke eqs 4-19) checked from first
principles, the common selector contract (exact budget, anytime k distinct answers, reproducible
traces, warm-up batch == stepping), bad input, the problems (oracles), and a seeded statistical check
that the adaptive methods beat uniform allocation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, special, stats

from pokerduel.selectors import (
    SELECTORS,
    BernoulliOracle,
    CallableOracle,
    GaussianOracle,
    make_selector,
    perturbed_thurstone,
    separated_top1,
    thurstone,
)
from pokerduel.selectors import _kernels as kern
from pokerduel.selectors.problems import pair_arrays, pair_index_matrix

NAMES = list(SELECTORS)


def _rngs(seed):
    return np.random.default_rng([seed, 0]), np.random.default_rng([seed, 1])


def _oracle(K, seed=0, **kw):
    return thurstone(K, *_rngs(seed), **kw)


def _warm(name, K, k, extra, seed=0, **kw):
    """A selector after its warm-up and ``extra`` decisions."""
    o = _oracle(K, seed)
    s = make_selector(name, o, k, 3 * K * (K - 1) // 2 + extra + 1, rng=np.random.default_rng(seed), **kw)
    s._warmup_batch()
    for _ in range(extra):
        s.step()
    return o, s


# --- numerical building blocks ----------------------------------------------------------------------

def test_log_ndtr_matches_scipy_in_both_tails():
    z = np.r_[np.linspace(-60, 40, 2001), -20.0, -19.999, 5.0, 5.0001, -1e3, 1e3]
    ours = np.array([kern.log_ndtr(v) for v in z])
    np.testing.assert_allclose(ours, special.log_ndtr(z), rtol=1e-10, atol=1e-300)


def test_welford_statistics_match_numpy():
    rng = np.random.default_rng(3)
    n, xbar, m2 = np.zeros(2, np.int64), np.zeros(2), np.zeros(2)
    x = rng.normal(5.0, 2.0, 50)
    kern.record_many(n, xbar, m2, np.zeros(50, np.int64), x)
    assert n[0] == 50 and math.isclose(xbar[0], x.mean(), rel_tol=1e-13)
    assert math.isclose(m2[0] / 49, x.var(ddof=1), rel_tol=1e-12)


# --- threshold c, APCS, AEPCS ----------------------------------------------------------------------

def test_c_lies_between_kth_and_k_plus_1th_means():
    rng = np.random.default_rng(1)
    for _ in range(500):
        K = int(rng.integers(2, 30))
        k = int(rng.integers(1, K))
        mu = rng.normal(size=K) * rng.choice([1e-3, 1.0, 1e3])
        var = rng.uniform(0, 2, size=K) ** 3
        order, c = kern.threshold(mu, var, k)
        srt = np.sort(mu)[::-1]
        assert srt[k] <= c <= srt[k - 1]
        assert np.array_equal(order, np.argsort(-mu, kind="stable"))
        sa, sb = np.sqrt(var[order[k - 1]]), np.sqrt(var[order[k]])
        assert math.isclose(c, (sb * srt[k - 1] + sa * srt[k]) / (sa + sb), rel_tol=1e-12, abs_tol=1e-12)


def test_c_with_zero_variances_is_the_midpoint():
    order, c = kern.threshold(np.array([3.0, 1.0, 2.0]), np.zeros(3), 1)
    assert c == 2.5 and list(order) == [0, 2, 1]


def test_apcs_rises_when_any_variance_shrinks():
    """With c fixed (as in eq 14), shrinking any alternative's variance never lowers APCS (eq 12)."""
    rng = np.random.default_rng(2)
    for _ in range(300):
        K = int(rng.integers(2, 12))
        k = int(rng.integers(1, K))
        mu = rng.normal(size=K)
        var = rng.uniform(0.01, 2, size=K)
        _, c = kern.threshold(mu, var, k)
        base = kern.log_apcs(mu, var, k, c)
        ref = sum(stats.norm.logcdf(((mu[i] - c) if r < k else (c - mu[i])) / np.sqrt(var[i]))
                  for r, i in enumerate(np.argsort(-mu, kind="stable")))
        assert math.isclose(base, ref, rel_tol=1e-9, abs_tol=1e-12)
        i = int(rng.integers(K))
        for f in (0.99, 0.5, 0.1):
            v2 = var.copy()
            v2[i] *= f
            assert kern.log_apcs(mu, v2, k, c) >= base - 1e-15


def _aepcs_brute(mu, var, pvar, n, k):
    """AEPCS^{i,j} of eq 14 for every pair, straight from eqs 11, 13 and 14 (products, scipy's Phi)."""
    K = mu.size
    top = np.argsort(-mu, kind="stable")[:k]
    a, b = np.argsort(-mu, kind="stable")[k - 1:k + 1]
    sa, sb = np.sqrt(var[a]), np.sqrt(var[b])
    c = (sb * mu[a] + sa * mu[b]) / (sa + sb)
    pi, pj = pair_arrays(K)
    pidx = pair_index_matrix(K)
    out = np.empty(pi.size)
    for p, (i, j) in enumerate(zip(pi, pj)):
        prod = 1.0
        for q in range(K):
            v = sum(pvar[pidx[q, r]] / (n[pidx[q, r]] + (pidx[q, r] == p)) for r in range(K) if r != q)
            z = (c - mu[q]) / np.sqrt(v)
            prod *= (1 - stats.norm.cdf(z)) if q in top else stats.norm.cdf(z)
        out[p] = prod
    return out, c


@pytest.mark.parametrize("name", ["pocbam", "ml-pocbam"])
@pytest.mark.parametrize("K,k", [(3, 1), (4, 2), (5, 1), (5, 3), (6, 2)])
def test_chosen_pair_maximises_aepcs(name, K, k):
    for seed in range(4):
        o, s = _warm(name, K, k, extra=3 * seed, seed=seed)
        p = s._decide()
        mu, var = s.posterior()
        pvar = s._pvar if name == "pocbam" else s.sig2
        brute, c = _aepcs_brute(mu, var, pvar, s.n, k)
        assert math.isclose(s.last_c, c, rel_tol=1e-12, abs_tol=1e-14)
        assert brute[p] >= brute.max() * (1 - 1e-9), (p, int(np.argmax(brute)), brute)


def test_pruned_pair_scan_equals_the_full_scan():
    """choose_pair skips pairs whose bound cannot beat the best gain; its answer is the full scan's."""
    rng = np.random.default_rng(8)
    for trial in range(1500):
        K = int(rng.integers(2, 40))
        k = int(rng.integers(1, K))
        pi, pj = pair_arrays(K)
        mu = rng.normal(size=K) * rng.choice([1e-3, 1.0, 30.0])
        if trial % 7 == 0:
            mu = np.round(mu)                                    # ties, items at c
        var = rng.uniform(1e-3, 2, size=K) * rng.choice([1e-4, 1.0, 100.0])
        n = rng.integers(1, 50, size=pi.size)
        pvar = rng.uniform(0, 1, size=pi.size) * rng.choice([1e-6, 1e-2, 1.0, 1e3])
        if trial % 5 == 0:   # players in one to three groups of identical ones: exact ties among the bounds
            group = rng.integers(0, int(rng.integers(1, 4)), size=K)
            mu, var = rng.normal(size=3)[group], rng.uniform(0.1, 2, size=3)[group]
            table_n, table_v = rng.integers(1, 5, size=(3, 3)), rng.uniform(0.1, 2, size=(3, 3))
            n, pvar = table_n[group[pi], group[pj]], table_v[group[pi], group[pj]]
        assert kern.choose_pair(mu, var, pvar, n, pi, pj, k) == kern.choose_pair_scan(mu, var, pvar, n, pi, pj, k)
    for trial in range(200):       # pairs in another order (not row-major): the general layout's scan
        K = int(rng.integers(2, 40))
        k = int(rng.integers(1, K))
        pi, pj = pair_arrays(K)
        order = rng.permutation(pi.size)
        pi, pj = pi[order], pj[order]
        mu, var = rng.normal(size=K), rng.uniform(1e-3, 2, size=K)
        n, pvar = rng.integers(1, 50, size=pi.size), rng.uniform(0, 1, size=pi.size)
        assert kern.choose_pair(mu, var, pvar, n, pi, pj, k) == kern.choose_pair_scan(mu, var, pvar, n, pi, pj, k)
    for name in ("pocbam", "ml-pocbam"):          # states of real runs: K = 30, and K = 50 from n0 = 1
        for K, k, n0 in ((30, 12, 3), (50, 15, 1)):
            o, s = _warm(name, K, k, extra=40, seed=3, n0=n0)
            mu, var = s.posterior()
            pvar = s._pvar if name == "pocbam" else s.sig2
            assert kern.choose_pair(mu, var, pvar, s.n, s.pi, s.pj, k) == \
                kern.choose_pair_scan(mu, var, pvar, s.n, s.pi, s.pj, k)


def test_pocbam_posterior_is_sample_borda_with_eq7_variances():
    o, s = _warm("pocbam", 5, 2, extra=7)
    mu, var = s.posterior()
    K = 5
    X = {}
    for i, j, x in zip(*s.trace):
        X.setdefault((i, j), []).append(x)
    M = np.zeros((K, K))
    V = np.zeros((K, K))
    for (i, j), xs in X.items():
        M[i, j], M[j, i] = np.mean(xs), -np.mean(xs)
        V[i, j] = V[j, i] = np.var(xs, ddof=1) / len(xs)
    np.testing.assert_allclose(mu, M.sum(1), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(var, V.sum(1), rtol=1e-12)


# --- the ML fit of eq 4 -----------------------------------------------------------------------------

def _stats_from(K, samples):
    """Per-pair (n, xbar, m2) from a dict {(i, j): samples} with i < j."""
    pi, pj = pair_arrays(K)
    pidx = pair_index_matrix(K)
    n, xbar, m2 = np.zeros(pi.size, np.int64), np.zeros(pi.size), np.zeros(pi.size)
    for (i, j), xs in samples.items():
        p = pidx[i, j]
        kern.record_many(n, xbar, m2, np.full(len(xs), p, np.int64), np.asarray(xs, float))
    return pi, pj, pidx, n, xbar, m2


def _fit(K, samples, init=True, gamma=None):
    pi, pj, pidx, n, xbar, m2 = _stats_from(K, samples)
    g = np.zeros(K) if gamma is None else gamma.copy()
    s2 = np.ones(pi.size)
    it = kern.fit_thurstone(K, pidx, pi, pj, n, xbar, m2, g, s2, init, 1e-12, 1e-10, 500)
    return g, s2, it, (pi, pj, pidx, n, xbar, m2)


def _ll(K, st, gamma, sig2):
    pi, pj, pidx, n, xbar, m2 = st
    return kern.log_likelihood(K, pidx, n, xbar, m2, gamma, sig2)


def _ll_direct(K, samples, gamma, sig2):
    """Eq 4 sample by sample."""
    pidx = pair_index_matrix(K)
    ll = 0.0
    for (i, j), xs in samples.items():
        s = sig2[pidx[i, j]]
        r = np.asarray(xs) - gamma[i] + gamma[j]
        ll += np.sum(-0.5 * np.log(2 * np.pi) - 0.5 * np.log(s) - 0.5 * r * r / s)
    return ll


def _thurstone_samples(K, seed, n_per_pair, sd_scale=1.0, unequal=False):
    rng = np.random.default_rng(seed)
    gamma = rng.uniform(0, 1, K)
    pi, pj = pair_arrays(K)
    out = {}
    for i, j in zip(pi, pj):
        n = n_per_pair + (int(rng.integers(0, 6)) if unequal else 0)
        sd = sd_scale * np.sqrt(rng.uniform(0.05, 1))
        out[(int(i), int(j))] = gamma[i] - gamma[j] + sd * rng.standard_normal(n)
    return gamma, out


@pytest.mark.parametrize("unequal", [False, True])
def test_ml_fit_recovers_gamma_on_noiseless_data(unequal):
    K = 8
    gamma, samples = _thurstone_samples(K, 5, 3, sd_scale=0.0, unequal=unequal)
    g, s2, it, _ = _fit(K, samples)
    assert it > 0
    np.testing.assert_allclose(g, gamma - gamma[0], atol=1e-10)


def test_ml_fit_recovers_gamma_with_little_noise_and_unequal_counts():
    K = 8
    gamma, samples = _thurstone_samples(K, 6, 4, sd_scale=1e-4, unequal=True)
    # start far away (warm start from zeros) to exercise the global part of the method
    g, s2, it, _ = _fit(K, samples, init=False, gamma=np.zeros(K))
    np.testing.assert_allclose(g, gamma - gamma[0], atol=2e-4)


@pytest.mark.parametrize("seed", range(6))
def test_ml_fit_raises_likelihood_and_is_a_stationary_maximum(seed):
    K = 6
    gamma, samples = _thurstone_samples(K, seed, 3, unequal=seed % 2 == 1)
    g, s2, it, st = _fit(K, samples)
    assert it > 0
    pi, pj, pidx, n, xbar, m2 = st
    # the eqs 6-7 starting point
    g0 = np.zeros(K)
    s0 = np.ones(pi.size)
    kern.init_eq67(K, pidx, n, xbar, m2, 0.0, kern.data_scale2(n, xbar, m2), g0, s0)
    ll0, ll1 = _ll(K, st, g0, s0), _ll(K, st, g, s2)
    assert ll1 > ll0
    assert math.isclose(ll1, _ll_direct(K, samples, g, s2), rel_tol=1e-11)
    # eq 5: zero gradient in gamma and sigma at the fit
    for k in range(1, K):
        grad = sum(np.sum(np.asarray(xs) - g[i] + g[j]) / s2[pidx[i, j]] * ((i == k) - (j == k))
                   for (i, j), xs in samples.items())
        assert abs(grad) < 1e-6
    for (i, j), xs in samples.items():
        s = s2[pidx[i, j]]
        r = np.asarray(xs) - g[i] + g[j]
        assert abs(-len(xs) / np.sqrt(s) + np.sum(r * r) / s ** 1.5) < 1e-6 * len(xs) / np.sqrt(s)
    # a general-purpose optimiser from the same start finds no higher likelihood nearby
    def negll(theta):
        gg = np.r_[0.0, theta[:K - 1]]
        return -_ll_direct(K, samples, gg, np.exp(theta[K - 1:]))
    res = optimize.minimize(negll, np.r_[g0[1:], np.log(s0)], method="L-BFGS-B")
    assert -res.fun <= ll1 + 1e-7 * abs(ll1)


def test_warm_and_cold_fits_agree_on_a_selector_run():
    o, s = _warm("ml-pocbam", 8, 3, extra=60, seed=4)
    g_warm, s_warm = s.fit()
    g, s2 = np.zeros(8), np.ones(s.pi.size)
    kern.fit_thurstone(8, s.pidx, s.pi, s.pj, s.n, s.xbar, s.m2, g, s2, True, s.var_floor, s.fit_tol, 500)
    np.testing.assert_allclose(g_warm, g, atol=1e-6)
    assert s.unconverged_fits == 0


def test_ml_posterior_is_eq9():
    o, s = _warm("ml-pocbam", 6, 2, extra=10)
    g, s2 = s.fit()
    mu, var = s.posterior()
    K = 6
    pidx = pair_index_matrix(K)
    for i in range(K):
        assert math.isclose(mu[i], sum(g[i] - g[j] for j in range(K) if j != i), abs_tol=1e-12)
        assert math.isclose(var[i], sum(s2[pidx[i, j]] / s.n[pidx[i, j]] for j in range(K) if j != i),
                            rel_tol=1e-12)


# --- one warm-up sample per pair (n0 = 1): the pooled variance -----------------------------------------

def test_one_sample_pairs_get_the_pooled_variance():
    """Below two samples a pair's variance is the mean unbiased variance of the pairs that have two
    (before any has, the mean squared sample): POCBAm's eq 9 variances from the trace by hand."""
    K = 5
    o, s = _warm("pocbam", K, 2, extra=0, n0=1)
    X = {}
    for i, j, x in zip(*s.trace):
        X.setdefault((i, j), []).append(x)
    assert all(len(xs) == 1 for xs in X.values())
    pool = np.mean([xs[0] ** 2 for xs in X.values()])
    _, var = s.posterior()
    np.testing.assert_allclose(var, (K - 1) * pool, rtol=1e-12)
    for _ in range(6):
        s.step()
    X = {}
    for i, j, x in zip(*s.trace):
        X.setdefault((i, j), []).append(x)
    two = [np.var(xs, ddof=1) for xs in X.values() if len(xs) >= 2]
    assert two, "the decisions resampled no pair"
    pool = np.mean(two)
    V = np.zeros((K, K))
    for (i, j), xs in X.items():
        V[i, j] = V[j, i] = (np.var(xs, ddof=1) if len(xs) >= 2 else pool) / len(xs)
    _, var = s.posterior()
    np.testing.assert_allclose(var, V.sum(1), rtol=1e-12)


def test_ml_fit_with_one_sample_per_pair_is_eq6_least_squares():
    """With one sample per pair every pair has the same (pooled) variance, so eq 4 is least squares on a
    complete balanced design, whose solution is eq 6: gamma_i = (S_i - S_0) / K."""
    K = 7
    gamma, samples = _thurstone_samples(K, 3, 1)
    g, s2, it, st = _fit(K, samples)
    pi, pj, pidx, n, xbar, m2 = st
    S = np.zeros(K)
    for (i, j), xs in samples.items():
        S[i] += xs[0]
        S[j] -= xs[0]
    np.testing.assert_allclose(g, (S - S[0]) / K, atol=1e-10)
    np.testing.assert_allclose(s2, np.mean(xbar ** 2), rtol=1e-12)
    assert it > 0


@pytest.mark.parametrize("seed", range(4))
def test_ml_fit_with_some_one_sample_pairs_is_a_stationary_maximum(seed):
    """Pairs with one sample keep the pooled variance; the rest are profiled as in eq 5. The fit has zero
    gradient in gamma and a general-purpose optimiser of that likelihood finds nothing higher."""
    K = 6
    rng = np.random.default_rng(seed)
    gamma, samples = _thurstone_samples(K, seed, 1)
    for key in list(samples)[::2]:                       # every other pair gets 1-4 more samples
        samples[key] = np.r_[samples[key], gamma[key[0]] - gamma[key[1]] + rng.standard_normal(rng.integers(1, 5))]
    g, s2, it, st = _fit(K, samples)
    pi, pj, pidx, n, xbar, m2 = st
    pool = np.mean([np.var(xs, ddof=1) for xs in samples.values() if len(xs) >= 2])
    one = [pidx[key] for key, xs in samples.items() if len(xs) == 1]
    np.testing.assert_allclose(s2[one], pool, rtol=1e-12)
    for k in range(1, K):
        grad = sum(np.sum(np.asarray(xs) - g[i] + g[j]) / s2[pidx[i, j]] * ((i == k) - (j == k))
                   for (i, j), xs in samples.items())
        assert abs(grad) < 1e-6

    def negll(theta):
        gg = np.r_[0.0, theta]
        ll = 0.0
        for (i, j), xs in samples.items():
            r = np.asarray(xs) - gg[i] + gg[j]
            v = pool if len(xs) == 1 else np.mean(r * r)        # eq 5's maximiser for the others
            ll += np.sum(-0.5 * np.log(2 * np.pi * v) - 0.5 * r * r / v)
        return -ll

    res = optimize.minimize(negll, np.zeros(K - 1), method="BFGS")
    assert -res.fun <= -negll(g[1:]) + 1e-7 * abs(res.fun)
    assert math.isclose(-negll(g[1:]), _ll(K, st, g, s2), rel_tol=1e-11)


@pytest.mark.parametrize("name", ["pocbam", "ml-pocbam", "hybrid"])
def test_n0_one_uses_the_budget_and_finds_a_noisy_order(name):
    """From one warm-up sample per pair the methods spend exactly the budget and, on a well separated
    noisy problem, return the true top-k."""
    K, k = 8, 3
    gamma = np.linspace(4, 0, K)
    o = GaussianOracle(gamma[:, None] - gamma[None, :], np.full((K, K), 0.25), np.random.default_rng(0))
    s = make_selector(name, o, k, 28 + 60, n0=1, rng=np.random.default_rng(0))
    assert list(s.run()) == [0, 1, 2]
    assert s.used == 88 and s.warmup == 28 and len(s.trace.i) == 88


# --- intransitivity index --------------------------------------------------------------------------

def _exact_model_oracle(K, seed):
    """Samples that fit the Thurstone model exactly: per pair, gamma_i - gamma_j +- delta_ij alternately,
    so every even-sized sample has mean gamma_i - gamma_j exactly."""
    rng = np.random.default_rng(seed)
    gamma = np.round(rng.uniform(0, 1, K), 3)
    delta = np.round(rng.uniform(0.1, 1, (K, K)), 3)
    count = {}

    def fn(i, j):
        t = count.get((i, j), 0)
        count[(i, j)] = t + 1
        return gamma[i] - gamma[j] + (delta[i, j] if t % 2 == 0 else -delta[i, j])

    return CallableOracle(K, fn, means=gamma[:, None] - gamma[None, :]), gamma


@pytest.mark.parametrize("scale", ["sample", "posterior"])
def test_ii_is_zero_when_data_follow_the_model_exactly(scale):
    K = 7
    o, gamma = _exact_model_oracle(K, 1)
    s = make_selector("hybrid", o, 3, 2 * K * (K - 1) // 2, n0=2, rng=np.random.default_rng(0), ii_scale=scale)
    s.run()
    assert s.intransitivity_index() < 1e-12
    np.testing.assert_allclose(s.fit()[0], gamma - gamma[0], atol=1e-12)


def test_ii_matches_eq17_and_grows_with_perturbation():
    K = 10
    means = {}
    for d in (0.0, 0.4):
        vals = []
        for seed in range(6):
            o = perturbed_thurstone(K, d, *_rngs(seed))
            s = make_selector("hybrid", o, 4, 20 * K * (K - 1) // 2, n0=20, rng=np.random.default_rng(seed))
            s.run()
            ii = s.intransitivity_index()
            # eq 17 from eq 19's KL, per-sample distributions with the ML (biased) observed variance
            g, s2 = s.fit()
            pidx = pair_index_matrix(K)
            acc = 0.0
            for i in range(K):
                js = [j for j in range(K) if j != i]
                ps = [pidx[i, j] for j in js]
                mo = sum(s.xbar[p] if i < j else -s.xbar[p] for j, p in zip(js, ps))
                vo = sum(s.m2[p] / s.n[p] for p in ps)
                mm = sum(g[i] - g[j] for j in js)
                vm = sum(s2[p] for p in ps)
                kl = lambda m1, v1, m2_, v2: np.log(np.sqrt(v2 / v1)) + (v1 + (m1 - m2_) ** 2) / (2 * v2) - 0.5
                acc += kl(mo, vo, mm, vm) + kl(mm, vm, mo, vo)
            assert math.isclose(ii, 1 - np.exp(-acc / (2 * K)), rel_tol=1e-9)
            assert 0 <= ii < 1
            vals.append(ii)
        means[d] = np.mean(vals)
    assert means[0.0] < 0.1 < means[0.4]


def test_hybrid_records_ii_and_mode():
    K, k = 6, 2
    o = perturbed_thurstone(K, 0.5, *_rngs(3))
    s = make_selector("hybrid", o, k, 200, rng=np.random.default_rng(1))
    s.run()
    w = s.warmup
    assert np.all(np.isnan(s.ii_trace[:w])) and np.all(s.mode_trace[:w] == 0)
    assert np.all(np.isfinite(s.ii_trace[w:])) and set(np.unique(s.mode_trace[w:])) <= {1, 2}
    assert np.array_equal(s.mode_trace[w:] == 2, s.ii_trace[w:] > s.threshold)
    # threshold 1 never leaves ML-POCBAm, threshold 0 always uses POCBAm: same traces as those methods
    for thr, other in ((1.0, "ml-pocbam"), (0.0, "pocbam")):
        runs = []
        for name, kw in (("hybrid", {"threshold": thr}), (other, {})):
            sel = make_selector(name, perturbed_thurstone(K, 0.5, *_rngs(3)), k, 200,
                                rng=np.random.default_rng(1), **kw)
            runs.append((sel.run(), sel.trace))
        assert np.array_equal(runs[0][0], runs[1][0])
        assert all(np.array_equal(a, b) for a, b in zip(runs[0][1], runs[1][1]))


# --- the selector contract --------------------------------------------------------------------------

class CountingOracle:
    def __init__(self, inner):
        self.inner, self.K, self.calls = inner, inner.K, 0

    def sample(self, i, j):
        self.calls += 1
        return self.inner.sample(i, j)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("K,k,extra", [(2, 1, 0), (2, 1, 5), (3, 1, 0), (3, 2, 7), (5, 2, 0), (5, 4, 13),
                                       (9, 3, 1), (12, 6, 40)])
def test_budget_is_used_exactly(name, K, k, extra):
    o = CountingOracle(_oracle(K, 7))          # no sample_pairs: every sample goes through sample()
    budget = 3 * K * (K - 1) // 2 + extra
    s = make_selector(name, o, k, budget, rng=np.random.default_rng(0))
    top = s.run()
    assert s.is_finished() and s.used == budget == o.calls == int(s.n.sum()) == len(s.trace.x)
    assert np.all(s.n >= s.n0)
    assert len(set(top.tolist())) == k and top.min() >= 0 and top.max() < K
    with pytest.raises(RuntimeError, match="used up"):
        s.step()
    assert o.calls == budget


@pytest.mark.parametrize("name", NAMES)
def test_top_k_is_always_k_distinct_indices(name):
    K, k = 6, 3
    s = make_selector(name, _oracle(K, 2), k, 3 * 15 + 40, rng=np.random.default_rng(0))
    for t in range(s.budget + 1):
        top = s.top_k()
        assert top.dtype.kind == "i" and len(top) == k and len(set(top.tolist())) == k
        assert top.min() >= 0 and top.max() < K
        if t < s.budget:
            s.step()


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_trace_and_run_equals_stepping(name):
    def go(stepwise):
        s = make_selector(name, _oracle(7, 11), 3, 120, rng=np.random.default_rng(5))
        if stepwise:
            while not s.is_finished():
                s.step()
            return s.top_k(), s.trace
        return s.run(), s.trace
    a, b, c = go(False), go(False), go(True)
    for other in (b, c):
        assert np.array_equal(a[0], other[0])
        for x, y in zip(a[1], other[1]):
            assert np.array_equal(x, y)
    tr = a[1]
    assert np.all(tr.i < tr.j) and tr.i.dtype.kind == "i"


def test_warmup_is_round_robin_and_uniform_continues_it():
    K = 4
    s = make_selector("uniform", _oracle(K), 2, 6 * 3 + 8, rng=np.random.default_rng(0))
    s.run()
    pi, pj = pair_arrays(K)
    t = np.arange(s.budget) % 6
    assert np.array_equal(s.trace.i, pi[t]) and np.array_equal(s.trace.j, pj[t])


@pytest.mark.parametrize("name", ["pocbam", "ml-pocbam", "hybrid"])
def test_noiseless_total_order_is_found(name):
    K, k = 8, 3
    gamma = np.linspace(1, 0, K)
    o = GaussianOracle(gamma[:, None] - gamma[None, :], np.zeros((K, K)), np.random.default_rng(0))
    s = make_selector(name, o, k, 3 * 28 + 10, rng=np.random.default_rng(0))
    assert list(s.run()) == [0, 1, 2]


# --- bad input --------------------------------------------------------------------------------------

def test_bad_input_raises_clear_errors():
    o = _oracle(5)
    rng = np.random.default_rng(0)
    for k in (0, 5, 7, -1, 2.0, True):
        with pytest.raises(ValueError, match="k must"):
            make_selector("pocbam", o, k, 100, rng=rng)
    with pytest.raises(ValueError, match=r"smaller than the warm-up .* allowed: budget >= 30"):
        make_selector("ml-pocbam", o, 2, 29, rng=rng)
    make_selector("ml-pocbam", o, 2, 30, rng=rng)                 # == warm-up is fine
    with pytest.raises(ValueError, match=r"unknown selector 'select'; known: uniform, pocbam, ml-pocbam, hybrid, "
                                         r"select-top, pbr, ar"):
        make_selector("select", o, 2, 100, rng=rng)
    with pytest.raises(ValueError, match=r"n0 \(warm-up samples per pair\) must be"):
        make_selector("pocbam", o, 2, 100, n0=0, rng=rng)
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        make_selector("uniform", o, 2, 100, rng=np.random.RandomState(0))
    with pytest.raises(ValueError, match="unknown ii_scale 'x'; allowed: 'sample', 'posterior'"):
        make_selector("hybrid", o, 2, 100, rng=rng, ii_scale="x")
    with pytest.raises(ValueError, match="oracle must have"):
        make_selector("uniform", object(), 1, 100, rng=rng)
    with pytest.raises(TypeError):
        make_selector("uniform", o, 2, 100, rng=rng, no_such_option=1)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("when", ["warmup-batch", "warmup-step", "decision"])
def test_non_finite_sample_is_an_error(bad, when):
    K = 4
    calls = [0]
    at = 3 if when != "decision" else 3 * 6 + 2

    def fn(i, j):
        calls[0] += 1
        return bad if calls[0] == at else 0.1 * (i - j) + 0.01 * calls[0] % 0.07

    o = CallableOracle(K, fn)
    s = make_selector("ml-pocbam", o, 2, 40, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="non-finite sample"):
        if when == "warmup-batch":
            s.run()
        else:
            while True:
                s.step()


def test_oracle_validation():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="antisymmetric"):
        GaussianOracle(np.ones((3, 3)), np.ones((3, 3)), rng)
    with pytest.raises(ValueError, match="symmetric and non-negative"):
        GaussianOracle(np.zeros((3, 3)), -np.ones((3, 3)), rng)
    with pytest.raises(ValueError, match="finite"):
        GaussianOracle(np.full((3, 3), np.nan), np.ones((3, 3)), rng)
    with pytest.raises(ValueError, match=r"P\[i, j\] \+ P\[j, i\] == 1"):
        BernoulliOracle(np.full((3, 3), 0.3), rng)
    with pytest.raises(ValueError, match="K must be an integer >= 2"):
        thurstone(1, rng, rng)
    with pytest.raises(ValueError, match="noise_rng must be a numpy.random.Generator"):
        thurstone(3, rng, 5)
    with pytest.raises(ValueError, match="unknown variance_law"):
        thurstone(3, rng, rng, variance_law="sigma")
    with pytest.raises(ValueError, match="unknown streams"):
        thurstone(3, rng, rng, streams="x")
    o = thurstone(4, rng, rng)
    with pytest.raises(ValueError, match="two different"):
        o.sample(1, 1)
    with pytest.raises(ValueError, match="0..3"):
        o.sample(0, 4)
    with pytest.raises(ValueError, match="k must satisfy"):
        o.true_top_k(4)
    with pytest.raises(ValueError, match="no known means"):
        CallableOracle(3, lambda i, j: 0.0).true_top_k(1)


# --- problems ---------------------------------------------------------------------------------------

def test_thurstone_instance_and_samples():
    K = 6
    o = thurstone(K, *_rngs(1))
    g = o.gamma
    assert np.all((0 <= g) & (g <= 1))
    np.testing.assert_allclose(o.means, g[:, None] - g[None, :])
    off = ~np.eye(K, dtype=bool)
    assert np.all((o.variances[off] >= 0) & (o.variances[off] <= 1))
    np.testing.assert_allclose(o.borda(), K * g - g.sum())
    assert list(o.true_top_k(3)) == list(np.argsort(-g)[:3])
    x = o.sample_many(1, 4, 20000)
    assert abs(x.mean() - o.means[1, 4]) < 5 * np.sqrt(o.variances[1, 4] / 20000)
    assert abs(x.var() / o.variances[1, 4] - 1) < 0.05
    sd = thurstone(K, *_rngs(1), variance_law="sd")
    np.testing.assert_allclose(sd.variances, o.variances ** 2)


def test_zero_sum_streams_and_common_random_numbers():
    a, b = thurstone(5, *_rngs(2)), thurstone(5, *_rngs(2))
    # orientation does not change the stream; sample_many / sample_pairs equal the one-by-one calls
    assert a.sample(1, 3) == -b.sample(3, 1)
    many = a.sample_many(0, 2, 150)
    one = np.array([b.sample(0, 2) for _ in range(150)])
    np.testing.assert_array_equal(many, one)
    c, d = thurstone(5, *_rngs(3)), thurstone(5, *_rngs(3))
    I = np.array([0, 3, 0, 2, 4, 0, 3])
    J = np.array([1, 1, 1, 4, 2, 1, 1])
    np.testing.assert_array_equal(c.sample_pairs(I, J), [d.sample(i, j) for i, j in zip(I, J)])
    # per-pair streams: pair (0, 1)'s samples do not depend on what else was sampled in between
    e, f = thurstone(5, *_rngs(4)), thurstone(5, *_rngs(4))
    xs = [e.sample(0, 1) for _ in range(3)]
    f.sample_many(2, 3, 500)
    assert xs == [f.sample(0, 1) for _ in range(3)]
    # shared streams: the noise generator itself, in call order
    g = thurstone(3, np.random.default_rng(0), np.random.default_rng(9), streams="shared")
    z = np.random.default_rng(9).standard_normal(2)
    assert g.sample(0, 1) == g.means[0, 1] + np.sqrt(g.variances[0, 1]) * z[0]


def test_perturbed_and_separated_problems():
    K = 8
    base = thurstone(K, *_rngs(5))
    p0 = perturbed_thurstone(K, 0.0, *_rngs(5))
    np.testing.assert_allclose(p0.means, base.means)
    p = perturbed_thurstone(K, 0.3, *_rngs(5))
    eps = p.means - base.means
    np.testing.assert_allclose(eps, -eps.T)
    assert 0.15 < eps[np.triu_indices(K, 1)].std() < 0.45
    with pytest.raises(ValueError, match="d must be"):
        perturbed_thurstone(K, -1, *_rngs(5))
    s = separated_top1(*_rngs(5))
    assert s.K == 100 and s.gamma[0] == 1.2 and list(s.true_top_k(1)) == [0]
    np.testing.assert_allclose(s.gamma[1:], thurstone(100, *_rngs(5)).gamma[1:])


def test_bernoulli_oracle():
    P = np.array([[.5, .8, .6, .9], [.2, .5, .7, .6], [.4, .3, .5, .55], [.1, .4, .45, .5]])
    o = BernoulliOracle(P, np.random.default_rng(0))
    x = o.sample_many(0, 1, 20000)
    assert set(np.unique(x)) == {-1.0, 1.0}
    assert abs((x > 0).mean() - 0.8) < 0.015
    assert o.sample(2, 3) in (-1.0, 1.0)
    np.testing.assert_allclose(o.means, 2 * P - 1 - np.diag(np.diag(2 * P - 1)))
    assert list(o.true_top_k(2)) == [0, 1]
    s = make_selector("pocbam", o, 1, 200, rng=np.random.default_rng(0))
    assert len(s.run()) == 1


# --- statistics: the adaptive methods beat uniform allocation ---------------------------------------

def test_adaptive_methods_beat_uniform_on_thurstone():
    """Top-1 of 15, budget 600 (warm-up 315), sigma ~ U[0,1]; 400 replications with common random
    numbers (replication r: the same instance and per-pair noise streams for every method). The paired
    differences in success against uniform must exceed 2.5 standard errors (about 4 at these seeds)."""
    K, k, budget, R = 15, 1, 600, 400
    ok = {name: np.zeros(R) for name in ("uniform", "pocbam", "ml-pocbam")}
    for r in range(R):
        truth = None
        for name in ok:
            o = thurstone(K, np.random.default_rng([7, r]), np.random.default_rng([8, r]), variance_law="sd")
            truth = set(o.true_top_k(k).tolist())
            s = make_selector(name, o, k, budget, rng=np.random.default_rng(r))
            ok[name][r] = set(s.run().tolist()) == truth
    for name in ("pocbam", "ml-pocbam"):
        d = ok[name] - ok["uniform"]
        z = d.mean() / (d.std(ddof=1) / np.sqrt(R))
        assert z > 2.5, (name, {m: v.mean() for m, v in ok.items()}, z)


def test_selectors_import_no_poker_code():
    import subprocess
    import sys
    code = ("import sys, pokerduel.selectors; "
            "bad = [m for m in sys.modules if m.startswith(('pokerduel.engine', 'pokerduel.players', "
            "'pokerduel.play'))]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)
