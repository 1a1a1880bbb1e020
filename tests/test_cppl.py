"""CPPL (El Mesaoudi-Paul, Bengs & Hüllermeier 2020): the contextual Plackett-Luce maths against independent
truth (finite differences, brute-force enumeration of rankings, the explicit matrix form of the bound),
parameter recovery on simulated data, the MM baseline against the score equations, the regret
ordering of the paper on a small synthetic problem, bad input, and the §6.2 data preprocessing."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from pokerduel.bandits import plackett_luce as pl
from pokerduel.bandits.cppl import (
    CPPL,
    DEFAULT_SAPS_DIR,
    AlgorithmSelectionProblem,
    MMPreselector,
    SyntheticProblem,
    compare,
    confidence_widths,
    confidence_widths_explicit,
    load_saps_swgcp,
    preprocess_instance_features,
    simulate,
)

# (subset size, ranking length): winner feedback, top-2 and full rankings
CASES = [(4, 1), (4, 2), (4, 4), (5, 3), (2, 1), (3, 3)]


def _problem(seed, n=6, d=3, s=4, m=1, scale=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * scale
    theta = rng.normal(size=d)
    subset = rng.choice(n, size=s, replace=False)
    ranking = rng.permutation(subset)[:m]
    return theta, X, subset, ranking


# ------------------------------------------------------------------------------------ PL likelihood

@pytest.mark.parametrize("s,m", CASES)
def test_likelihood_matches_brute_force_enumeration(s, m):
    for seed in range(3):
        theta, X, subset, ranking = _problem(seed, s=s, m=m)
        assert pl.ranking_probability(theta, X, subset, ranking) == pytest.approx(
            pl.brute_force_probability(theta, X, subset, ranking), rel=1e-12)


@pytest.mark.parametrize("s,m", [(4, 1), (4, 2), (4, 3), (4, 4)])
def test_top_m_probabilities_sum_to_one(s, m):
    theta, X, subset, _ = _problem(7, s=s)
    total = sum(pl.ranking_probability(theta, X, subset, list(r)) for r in itertools.permutations(subset, m))
    assert total == pytest.approx(1.0, abs=1e-12)


def test_winner_likelihood_is_eq7_softmax():
    theta, X, subset, ranking = _problem(3, s=5, m=1)
    u = X[subset] @ theta
    expect = float(X[ranking[0]] @ theta) - math.log(np.exp(u).sum())
    assert pl.log_likelihood(theta, X, subset, ranking) == pytest.approx(expect, rel=1e-13)


def test_large_utilities_do_not_overflow():
    theta, X, subset, ranking = _problem(4, s=4, m=4, scale=400.0)
    ll, g, h = pl.loglik_grad_hess(theta, X, subset, ranking)
    assert np.isfinite(ll) and ll <= 0 and np.all(np.isfinite(g)) and np.all(np.isfinite(h))


@pytest.mark.parametrize("s,m", CASES)
def test_gradient_matches_finite_differences(s, m):
    for seed in range(3):
        theta, X, subset, ranking = _problem(10 + seed, s=s, m=m)
        h = 1e-6
        fd = np.array([(pl.log_likelihood(theta + h * e, X, subset, ranking)
                        - pl.log_likelihood(theta - h * e, X, subset, ranking)) / (2 * h) for e in np.eye(3)])
        np.testing.assert_allclose(pl.gradient(theta, X, subset, ranking), fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("s,m", CASES)
def test_hessian_matches_finite_differences_and_is_nsd(s, m):
    for seed in range(3):
        theta, X, subset, ranking = _problem(20 + seed, s=s, m=m)
        h = 1e-5
        fd = np.array([(pl.gradient(theta + h * e, X, subset, ranking)
                        - pl.gradient(theta - h * e, X, subset, ranking)) / (2 * h) for e in np.eye(3)])
        H = pl.hessian(theta, X, subset, ranking)
        np.testing.assert_allclose(H, fd, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(H, H.T, atol=1e-14)
        assert np.linalg.eigvalsh(H).max() <= 1e-12


def test_stacked_kernel_equals_single_problems():
    rng = np.random.default_rng(5)
    R, s, d, m = 7, 5, 4, 2
    thetas, Xo = rng.normal(size=(R, d)), rng.normal(size=(R, s, d))
    ll, g, h = pl._ordered_stats(thetas, Xo, m, "lgh")
    for r in range(R):
        ll1, g1, h1 = pl.loglik_grad_hess(thetas[r], Xo[r], np.arange(s), np.arange(m))
        assert ll[r] == pytest.approx(ll1, rel=1e-13)
        np.testing.assert_allclose(g[r], g1, atol=1e-13)
        np.testing.assert_allclose(h[r], h1, atol=1e-13)


def test_sample_top_frequencies_match_pl_probabilities():
    rng = np.random.default_rng(11)
    logits = np.array([0.7, -0.2, 0.0, 1.1])
    N = 40_000
    draws = pl.sample_top(np.broadcast_to(logits, (N, 4)), 2, rng)
    X, theta = np.eye(4), logits
    for r in itertools.permutations(range(4), 2):
        p = pl.brute_force_probability(theta, X, range(4), list(r))
        freq = np.mean((draws[:, 0] == r[0]) & (draws[:, 1] == r[1]))
        assert abs(freq - p) < 4.5 * math.sqrt(p * (1 - p) / N), (r, freq, p)


def test_pl_input_validation():
    theta, X, subset, ranking = _problem(0, s=4, m=2)
    with pytest.raises(ValueError, match="distinct members of the subset"):
        pl.log_likelihood(theta, X, subset, [subset[0], subset[0]])
    with pytest.raises(ValueError, match="distinct arm indices"):
        pl.log_likelihood(theta, X, [0, 0, 1], [0])
    with pytest.raises(ValueError, match="theta must have shape"):
        pl.gradient(theta[:2], X, subset, ranking)
    with pytest.raises(ValueError, match="m must be"):
        pl.sample_top(np.zeros(3), 4, np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng must be"):
        pl.sample_top(np.zeros(3), 1, 0)


# ----------------------------------------------------------------------------------------------- MM

def test_mm_fixed_point_solves_the_score_equations():
    """Context-free PL is the contextual model with one-hot contexts (X = I, theta = log gamma): at Hunter's
    MM fixed point the summed gradient of the log-likelihood must vanish."""
    rng = np.random.default_rng(3)
    n, s, m, N = 6, 4, 2, 3000
    true = rng.normal(size=n)
    sets = np.stack([rng.choice(n, size=s, replace=False) for _ in range(N)])
    pos = pl.sample_top(true[sets], m, rng)
    ranked = np.take_along_axis(sets, pos, axis=1)
    ordered = np.stack([pl.ordered_items(n, S, r) for S, r in zip(sets, ranked)])
    gamma = pl.mm_fit(n, ordered, m, iters=2000, shape=1.0, rate=0.0)
    theta = np.log(gamma)
    score = sum(pl.gradient(theta, np.eye(n), S, r) for S, r in zip(sets, ranked))
    assert np.abs(score).max() < 1e-6 * N
    # and the fit is close to the truth (up to PL's scale invariance)
    est, tru = theta - theta.mean(), true - true.mean()
    assert np.abs(est - tru).max() < 0.2


# ------------------------------------------------------------------------------------- CPPL learner

def test_bound_closed_form_equals_explicit_matrix_form():
    rng = np.random.default_rng(8)
    n, d, s, T = 6, 3, 3, 40
    hess, grads = [], []
    for _ in range(T):
        X = rng.normal(size=(n, d))
        sub = rng.choice(n, size=s, replace=False)
        th = rng.normal(size=d) * 0.3
        hess.append(pl.hessian(th, X, sub, sub[:1]))
        grads.append(pl.gradient(th, X, sub, sub[:1]))
    hess, grads = np.array(hess), np.array(grads)
    X = rng.normal(size=(n, d))
    theta_bar = rng.normal(size=d) * 0.3
    closed = confidence_widths(X, theta_bar, hess.sum(0), np.einsum("ti,tj->ij", grads, grads), T + 1, 1.3)
    explicit = confidence_widths_explicit(X, theta_bar, hess, grads, T + 1, 1.3)
    np.testing.assert_allclose(closed, explicit, rtol=1e-8)
    assert np.all(closed > 0)


def test_learner_sums_are_hessians_and_gradients_at_the_averaged_iterate():
    rng = np.random.default_rng(9)
    n, k, d, T = 8, 3, 4, 25
    L = CPPL(n, k, d, rng=np.random.default_rng(1), theta0=np.zeros(d))
    hess, grads, theta_hat = [], [], np.zeros(d)
    for t in range(1, T + 1):
        X = rng.normal(size=(n, d))
        if t == 1:
            assert np.all(L.widths(X) == 0)
        S = L.select(X)[0]
        ranking = rng.permutation(S)[:2]
        g_hat = pl.gradient(theta_hat, X, S, ranking)
        theta_hat = theta_hat + 2.0 * t ** -0.6 * g_hat
        L.update(X, S, ranking)
        theta_bar = L.theta_bar[0]
        hess.append(pl.hessian(theta_bar, X, S, ranking))
        grads.append(pl.gradient(theta_bar, X, S, ranking))
    np.testing.assert_allclose(L.theta_hat[0], theta_hat, atol=1e-12)
    X = rng.normal(size=(n, d))
    np.testing.assert_allclose(L.widths(X)[0], confidence_widths_explicit(X, L.theta_bar[0], hess, grads, T + 1),
                               rtol=1e-7)
    # the selection is the top-k of v_hat + c
    ucb = np.exp(X @ L.theta_bar[0]) + L.widths(X)[0]
    assert set(L.select(X)[0]) == set(np.argsort(-ucb)[:k])


def test_theta_recovered_on_simulated_data():
    """Averaged SGD on random subsets with full-ranking feedback: theta_bar converges to theta* (the error
    at T = 3000 is within 0.15 everywhere and its RMS at least halves from T = 300, where sqrt(10) is the
    asymptotic ratio), and the sandwich covariance of §5.1 has the right size: the median Wald statistic
    (eq 11, chi-square(d) asymptotically, median 2.37) is below the chi-square 90% point (6.25)."""
    R, n, k, d, T = 40, 10, 4, 3, 3000
    rng = np.random.default_rng(21)
    theta_star = rng.uniform(-1, 1, size=(R, d))
    L = CPPL(n, k, d, replicas=R, rng=np.random.default_rng(2), theta0=np.zeros(d))
    rms = {}
    for t in range(1, T + 1):
        X = rng.normal(size=(R, n, d))
        S = np.argsort(rng.random((R, n)), axis=1)[:, :k]
        logv = np.take_along_axis(np.einsum("rnd,rd->rn", X, theta_star), S, axis=1)
        L.update(X, S, np.take_along_axis(S, pl.sample_top(logv, k, rng), axis=1))
        if t in (300, T):
            rms[t] = math.sqrt(np.mean((L.theta_bar - theta_star) ** 2))
    err = L.theta_bar - theta_star
    assert np.abs(err).max() < 0.15
    assert rms[T] < 0.5 * rms[300]
    p = np.linalg.pinv(L.s_sum)
    sigma = p @ L.v_sum @ p
    wald = np.einsum("ri,rij,rj->r", err, np.linalg.inv(sigma), err)
    assert np.median(wald) < stats.chi2.ppf(0.9, d)


def test_widths_shrink_on_stationary_data():
    rng = np.random.default_rng(4)
    n, k, d = 10, 3, 3
    L = CPPL(n, k, d, rng=np.random.default_rng(0))
    theta_star = rng.random(d)
    X_probe = rng.random((n, d))
    widths = {}
    for t in range(1, 2001):
        X = rng.random((n, d))
        S = L.select(X)
        logv = X[S[0]] @ theta_star
        L.update(X, S, S[:, pl.sample_top(logv, 1, rng)])
        if t in (100, 2000):
            widths[t] = L.widths(X_probe).mean()
    assert widths[2000] < 0.5 * widths[100]


def test_pseudo_inverse_bound_is_blind_to_unexplored_directions_and_ridge_is_not():
    """With every observed context difference along feature 0, the sandwich has no variance along feature 1:
    ridge = 0 gives c = 0 for an arm that differs only there; a ridge gives it a positive width."""
    rng = np.random.default_rng(6)
    n, k, d = 4, 2, 2
    widths = {}
    for ridge in (0.0, 1.0):
        L = CPPL(n, k, d, rng=np.random.default_rng(0), theta0=np.zeros(d), ridge=ridge)
        for _ in range(50):
            X = np.column_stack([rng.random(n), np.full(n, 0.5)])
            S = L.select(X)
            L.update(X, S, S[:, :1])
        widths[ridge] = L.widths(np.array([[0.0, 1.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]))[0, 0]
    assert widths[0.0] == pytest.approx(0.0, abs=1e-9)
    assert widths[1.0] > 0.1


def _regrets(n, d, k, R, T, seed, m=1):
    out = {}
    for name in ("ucb", "greedy", "epsilon-greedy", "mm"):
        prob = SyntheticProblem(n, d, R, np.random.default_rng([seed, 0]))
        if name == "mm":
            L = MMPreselector(n, k, d, replicas=R, horizon=T, rng=np.random.default_rng([seed, 1]))
        else:
            L = CPPL(n, k, d, strategy=name, replicas=R, rng=np.random.default_rng([seed, 1]))
        out[name] = simulate(L, prob, T, m, np.random.default_rng([seed, 2])).sum(axis=1)
    return out


def test_regret_ordering_on_synthetic_problem():
    """The paper's ordering at d = 5, n = 20, k = 3 (winner feedback): CPPL and Max-Theta well below
    epsilon-greedy, which is far below the context-free MM; paired differences > 3 standard errors."""
    R = 60
    reg = _regrets(20, 5, 3, R, 600, seed=1)

    def z(a, b):
        diff = reg[b] - reg[a]
        return diff.mean() / (diff.std(ddof=1) / math.sqrt(R))

    assert z("ucb", "epsilon-greedy") > 3
    assert z("greedy", "epsilon-greedy") > 3
    assert z("epsilon-greedy", "mm") > 3


def test_same_seed_same_regret_and_regret_definition():
    a = _regrets(6, 2, 2, 3, 50, seed=5, m=2)
    b = _regrets(6, 2, 2, 3, 50, seed=5, m=2)
    for name in a:
        np.testing.assert_array_equal(a[name], b[name])
    # regret is in [0, 1) per round, 0 exactly when the best arm is chosen
    prob = SyntheticProblem(6, 2, 4, np.random.default_rng(0))
    X = prob.contexts(1)
    logv = prob.log_utilities(1)

    class Fixed:
        n, d, k, replicas = 6, 2, 2, 4

        def select(self, X):
            return np.stack([np.argsort(-logv[:, :]) [r, [0, 5]] for r in range(4)])

        def update(self, X, S, ranking):
            pass

    prob2 = SyntheticProblem(6, 2, 4, np.random.default_rng(0))
    reg = simulate(Fixed(), prob2, 1, 1, np.random.default_rng(0))[:, 0]
    assert np.all(reg == 0)
    assert np.allclose(X, prob2._X)


def test_learner_validation():
    with pytest.raises(ValueError, match="k \\(subset size\\) must be an integer in 1..4"):
        CPPL(5, 5, 2)
    with pytest.raises(ValueError, match="strategy must be one of"):
        CPPL(5, 2, 2, strategy="thompson")
    with pytest.raises(ValueError, match="alpha must be in"):
        CPPL(5, 2, 2, alpha=0.5)
    L = CPPL(5, 2, 2, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="X must have shape"):
        L.select(np.zeros((5, 3)))
    X = np.zeros((5, 2))
    with pytest.raises(ValueError, match="member of that row's subset"):
        L.update(X, [0, 1], [2])
    with pytest.raises(ValueError, match="distinct arms"):
        L.update(X, [1, 1], [1])
    with pytest.raises(ValueError, match="rng must be"):
        CPPL(5, 2, 2, rng=3)


# ------------------------------------------------------------------------------ §6.2 data (optional)

def _data_or_skip():
    if not DEFAULT_SAPS_DIR.is_dir():
        pytest.skip(f"SAPS x SWGCP data folder {DEFAULT_SAPS_DIR} is absent (CPPL paper §6.2 data)")
    return load_saps_swgcp(DEFAULT_SAPS_DIR)


def test_saps_preprocessing_gives_the_papers_seven_features_and_d28():
    F, _names, P, runtimes = _data_or_skip()
    assert F.shape == (5000, 28) and P.shape == (20, 4) and runtimes.shape == (5000, 20)
    for drop in ("mean-corr", "later"):
        G, _ = preprocess_instance_features(F, drop=drop)
        assert G.shape == (5000, 7)
        assert G.min() >= 0 and G.max() <= 1
        assert np.all(G.var(axis=0) >= 0.01)
        C = np.abs(np.corrcoef(G, rowvar=False)) - np.eye(7)
        assert C.max() <= 0.95
    prob = AlgorithmSelectionProblem(G, P, runtimes, 2, np.random.default_rng(0))
    X = prob.contexts(1)
    inst = prob.order[:, 0]
    assert X.shape == (2, 20, 28)
    np.testing.assert_allclose(X[1, 3], np.kron(G[inst[1]], P[3]))
    np.testing.assert_allclose(prob.log_utilities(1), -10 * runtimes[inst])


def test_missing_data_folder_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="missing Reduced_Features_SWGCP_only_5000.csv"):
        load_saps_swgcp(tmp_path)


def test_arm_scaling_minmax_scales_only_the_arm_features_and_raw_is_the_default():
    rng = np.random.default_rng(3)
    F, P, Rt = rng.random((6, 3)), rng.normal(size=(4, 2)) * 2 + 1, rng.random((6, 4))
    raw = AlgorithmSelectionProblem(F, P, Rt, 2, np.random.default_rng(0))
    same = AlgorithmSelectionProblem(F, P, Rt, 2, np.random.default_rng(0), arm_scaling="raw")
    mm = AlgorithmSelectionProblem(F, P, Rt, 2, np.random.default_rng(0), arm_scaling="minmax")
    assert np.array_equal(raw.contexts(1), same.contexts(1))
    Ps = (P - P.min(axis=0)) / (P.max(axis=0) - P.min(axis=0))
    inst = mm.order[:, 0]
    X = mm.contexts(1)
    for r in range(2):
        for i in range(4):
            np.testing.assert_allclose(X[r, i], np.kron(F[inst[r]], Ps[i]))
    np.testing.assert_allclose(raw.contexts(1)[0, 2], np.kron(F[raw.order[0, 0]], P[2]))
    assert np.array_equal(mm.log_utilities(1), raw.log_utilities(1))
    with pytest.raises(ValueError, match="arm_scaling"):
        AlgorithmSelectionProblem(F, P, Rt, 2, np.random.default_rng(0), arm_scaling="zscore")


def test_learner_options_equal_to_the_defaults_change_nothing_bit_for_bit():
    """What the §6.2 script passes by default (gamma1 2, alpha 0.6, ridge 0) gives the very same regret."""
    rng = np.random.default_rng(5)
    F, P, Rt = rng.random((40, 2)), rng.random((5, 2)), rng.random((40, 5))

    def make(r):
        return AlgorithmSelectionProblem(F, P, Rt, 3, r)

    a = compare(make, 5, 2, 4, 3, 30, 2, [7], methods=("CPPL", "Max-Theta"))
    b = compare(make, 5, 2, 4, 3, 30, 2, [7], methods=("CPPL", "Max-Theta"),
                learner_options={"gamma1": 2.0, "alpha": 0.6, "ridge": 0.0})
    for name in a:
        assert np.array_equal(a[name], b[name])
