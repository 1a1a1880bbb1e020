"""Preferential Bayesian Optimization (González et al. 2017): the Laplace duel GP against brute-force
quadrature, the marginal-likelihood gradient against finite differences, predictive moments against
Gauss-Hermite, the soft-Copeland maximiser against the latent minimiser, each acquisition against its
definition computed independently, the baselines, and argument validation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, special, stats

from pokerduel.bandits.pbo import IBO, PBO, RandomDuels, Sparring, expected_improvement, make_policy, run_trial
from pokerduel.bandits.pbo_functions import (
    OBJECTIVES,
    DuelSimulator,
    get_objective,
    unit_grid,
)
from pokerduel.bandits.pbo_gp import (
    PreferenceGP,
    link,
    link_moments,
    log_lik_derivs,
    soft_copeland,
)


def _tiny_gp(likelihood="probit"):
    """Two duels on the line and a test duel; hyperparameters fixed."""
    gp = PreferenceGP(1, likelihood, variance=2.0, lengthscale=0.3)
    gp.fit(np.array([[0.1], [0.5]]), np.array([[0.6], [0.9]]), np.array([1.0, 0.0]))
    return gp


def _exact_posterior(gp, n=401):
    """Exact posterior of the two duel latents on a quadrature grid (prior N(0, K) times the likelihood)."""
    K = gp.duel_kernel(gp.X, gp.Xp, gp.X, gp.Xp)
    sd = np.sqrt(np.diag(K))
    a = np.linspace(-7 * sd[0], 7 * sd[0], n)
    b = np.linspace(-7 * sd[1], 7 * sd[1], n)
    F = np.stack(np.meshgrid(a, b, indexing="ij"), axis=-1).reshape(-1, 2)
    logp = stats.multivariate_normal(np.zeros(2), K).logpdf(F)
    s = 2 * gp.y - 1
    logp = logp + np.log(link(s[None, :] * F, gp.likelihood)).sum(axis=1)
    w = np.exp(logp - logp.max())
    return F, w / w.sum(), K, logp


@pytest.mark.parametrize("likelihood", ["probit", "logistic"])
def test_laplace_mode_and_curvature_match_brute_force(likelihood):
    gp = _tiny_gp(likelihood)
    K = gp.duel_kernel(gp.X, gp.Xp, gp.X, gp.Xp)
    s = 2 * gp.y - 1
    Kinv = np.linalg.inv(K)

    def neg_log_post(f):
        return 0.5 * f @ Kinv @ f - np.log(link(s * f, likelihood)).sum()

    ref = optimize.minimize(neg_log_post, np.zeros(2), method="Nelder-Mead",
                            options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 5000}).x
    np.testing.assert_allclose(gp.state.f, ref, atol=1e-6)
    h = 1e-4  # Laplace covariance = inverse Hessian of the negative log posterior, by finite differences
    H = np.empty((2, 2))
    for i in range(2):
        for j in range(2):
            ei, ej = np.eye(2)[i] * h, np.eye(2)[j] * h
            H[i, j] = (neg_log_post(ref + ei + ej) - neg_log_post(ref + ei - ej) - neg_log_post(ref - ei + ej)
                       + neg_log_post(ref - ei - ej)) / (4 * h * h)
    cov_laplace = np.linalg.inv(Kinv + np.diag(gp.state.W))
    np.testing.assert_allclose(cov_laplace, np.linalg.inv(H), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("variance", [0.5, 2.0])
def test_laplace_predictive_against_quadrature_posterior(variance):
    """On a quadrature grid of the two duel latents: integrating the test duel's win probability against
    the Laplace Gaussian reproduces ``win_probability`` (the prediction algebra, exactly); against the exact
    posterior it differs only by the Laplace approximation's error, small when the prior is tight."""
    gp = PreferenceGP(1, "probit", variance=variance, lengthscale=0.3)
    gp.fit(np.array([[0.1], [0.5]]), np.array([[0.6], [0.9]]), np.array([1.0, 0.0]))
    F, w, K, _ = _exact_posterior(gp)
    tests = np.array([[0.2, 0.8], [0.55, 0.1], [0.9, 0.3]])
    Ks = gp.duel_kernel(tests[:, :1], tests[:, 1:], gp.X, gp.Xp)
    kss = 2 * variance - 2 * variance * np.exp(-0.5 * ((tests[:, 0] - tests[:, 1]) / 0.3) ** 2)
    cond_mean = F @ np.linalg.solve(K, Ks.T)  # E[f* | f_D] for every quadrature point, (points, tests)
    cond_var = kss - np.einsum("ij,ji->i", Ks, np.linalg.solve(K, Ks.T))
    pi_given_f = special.ndtr(cond_mean / np.sqrt(1 + cond_var))
    laplace_cov = np.linalg.inv(np.linalg.inv(K) + np.diag(gp.state.W))
    wl = stats.multivariate_normal(gp.state.f, laplace_cov).pdf(F)
    approx, _ = gp.win_probability(tests[:, :1], tests[:, 1:])
    np.testing.assert_allclose(wl / wl.sum() @ pi_given_f, approx, atol=2e-4)
    exact = w @ pi_given_f
    assert np.max(np.abs(approx - exact)) < (0.02 if variance == 0.5 else 0.06)


@pytest.mark.parametrize("likelihood", ["probit", "logistic"])
def test_marginal_likelihood_gradient_matches_finite_differences(likelihood):
    rng = np.random.default_rng(3)
    X, Xp = rng.random((25, 2)), rng.random((25, 2))

    def g(x):
        return np.sin(5 * x[:, 0]) + x[:, 1] ** 2

    y = (rng.random(25) < special.expit(3 * (g(Xp) - g(X)))).astype(float)
    gp = PreferenceGP(2, likelihood, variance=1.5, lengthscale=[0.3, 0.6])
    gp.set_data(X, Xp, y)
    theta = gp._theta()
    _, grad, _ = gp.log_marginal(theta)
    num = [(gp.log_marginal(theta + e)[0] - gp.log_marginal(theta - e)[0]) / 2e-5 for e in np.eye(3) * 1e-5]
    np.testing.assert_allclose(grad, num, rtol=1e-4, atol=1e-6)
    before = gp.log_marginal(theta)[0]
    gp.fit(optimize_hyper=True)
    assert gp.state.log_marginal >= before - 1e-9


def test_likelihood_derivatives_match_finite_differences():
    f = np.linspace(-4, 4, 9)
    for lik in ("probit", "logistic"):
        for yv in (0.0, 1.0):
            y = np.full_like(f, yv)
            _, d1, W, d3 = log_lik_derivs(f, y, lik)

            def lp(x):
                return np.log(link((2 * yv - 1) * x, lik))

            h = 1e-4
            np.testing.assert_allclose(d1, (lp(f + h) - lp(f - h)) / (2 * h), rtol=1e-6, atol=1e-8)
            np.testing.assert_allclose(-W, (lp(f + h) - 2 * lp(f) + lp(f - h)) / h**2, rtol=1e-4, atol=1e-6)
            _, d1p, _, _ = log_lik_derivs(f + h, y, lik)
            _, d1m, _, _ = log_lik_derivs(f - h, y, lik)
            _, _, Wp, _ = log_lik_derivs(f + h, y, lik)
            _, _, Wm, _ = log_lik_derivs(f - h, y, lik)
            np.testing.assert_allclose(d3, -(Wp - Wm) / (2 * h), rtol=1e-4, atol=1e-7)


def test_link_moments_against_gauss_hermite():
    mu = np.array([-2.0, -0.3, 0.0, 0.7, 3.0])
    var = np.array([0.1, 4.0, 1.0, 9.0, 0.5])
    m, v = link_moments(mu, var, "probit")
    mg, vg = link_moments(mu, var, "probit", "gauss-hermite", 120)
    np.testing.assert_allclose(m, mg, atol=1e-6)
    np.testing.assert_allclose(v, vg, atol=1e-6)
    m, v = link_moments(mu, var, "logistic")  # probit approximation of the logistic: close, not exact
    mg, vg = link_moments(mu, var, "logistic", "gauss-hermite", 120)
    assert np.max(np.abs(m - mg)) < 0.02 and np.max(np.abs(v - vg)) < 0.01
    z = np.random.default_rng(0).standard_normal(200_000)  # and Gauss-Hermite against Monte Carlo
    samples = special.expit(0.7 + 3.0 * z)
    assert abs(samples.mean() - mg[3]) < 4 * samples.std() / np.sqrt(len(z))


def test_soft_copeland_maximiser_is_latent_minimiser_noiseless():
    g = np.array([3.0, 1.0, 2.5, 0.2, 0.9, 4.0, 2.0, 1.5, 3.5, 0.6, 2.8])
    G = len(g)
    # Exact latent (no uncertainty): pi([x, x']) = Phi(g(x') - g(x)); soft-Copeland argmax = argmin g.
    assert np.argmax(soft_copeland(-g, np.zeros((G, G)))) == np.argmin(g)
    # Learned from noiseless duels: every ordered pair once, y = 1 iff g(x) < g(x').
    grid = np.linspace(0, 1, G)[:, None]
    pol = PBO(grid, "pe", np.random.default_rng(0), optimize_every=1)
    for i in range(G):
        for j in range(G):
            if i != j:
                pol.tell(i, j, int(g[i] < g[j]))
    assert pol.guess() == np.argmin(g)
    assert np.argmax(pol.scores) == np.argmin(g)


def _fitted_pbo(acq, **kw):
    """A PBO on a 1-D grid of 17 points whose duels all lie in [0, 0.4]."""
    grid = np.linspace(0, 1, 17)[:, None]
    pol = PBO(grid, acq, np.random.default_rng(1), optimize_every=1000, variance=4.0, lengthscale=0.15, **kw)
    rng = np.random.default_rng(2)
    g = get_objective("forrester")(grid)
    for _ in range(12):
        i, j = rng.integers(0, 7, 2)
        pol.tell(int(i), int(j), int(rng.random() < special.expit(g[j] - g[i])))
    pol.fit()
    return pol, grid


def test_pe_picks_the_duel_of_largest_epistemic_variance():
    pol, grid = _fitted_pbo("pe")
    i, j = pol.ask()
    iu, ju = np.triu_indices(len(grid), 1)
    mean, var = pol.gp.predict_duels(grid[iu], grid[ju])  # independent route: the duel-space kernel
    _, v = link_moments(mean, var, "probit", "gauss-hermite", 80)
    assert pol.pe_values([i], [j])[0, 0] >= v.max() - 1e-9
    assert max(i, j) > 6  # exploration leaves the data region [0, 0.4]
    assert v[(iu == min(i, j)) & (ju == max(i, j))][0] == pytest.approx(v.max(), abs=1e-9)


def test_dts_step1_is_argmax_of_sampled_copeland_and_step2_is_pe_row():
    pol, grid = _fitted_pbo("dts")
    h = np.zeros(len(grid))
    h[11] = 3.0  # a constructed sample: point 11 beats everything, the rest tie
    x, xp = pol.dts_from_sample(h)
    assert x == 11
    row = [link_moments(*[a.ravel() for a in pol.gp.predict_duels(grid[[11]], grid[[k]])], "probit",
                        "gauss-hermite", 80)[1][0] for k in range(len(grid))]
    assert xp == int(np.argmax(row))
    assert xp != 11  # V[link(f([x, x]))] = 0 under the preference kernel
    # The RFF sample follows the posterior: mean of many sampled duel latents near the posterior mean.
    # (150 features keep the test fast; their kernel error, O(1/sqrt(150)), is the allowance beyond 4 s.e.)
    draws = np.array([pol.gp.rff_sampler(np.random.default_rng(k), 150)(grid) for k in range(120)])
    duels = draws[:, 2] - draws[:, 12]
    m, S = pol.gp.latent(grid)
    sd = np.sqrt(S[2, 2] + S[12, 12] - 2 * S[2, 12])
    assert abs(duels.mean() - (m[2] - m[12])) < 4 * sd / np.sqrt(120) + 0.15 * sd
    assert 0.6 * sd < duels.std() < 1.4 * sd


def test_cei_matches_its_definition_with_full_refits():
    pol, grid = _fitted_pbo("cei", cei_refit="full")
    pairs = np.array([[2, 14], [8, 9], [0, 16], [5, 5]])
    got = pol.cei_values(pairs)
    c_now = soft_copeland(*pol.gp.latent(grid)).max()
    for (i, j), value in zip(pairs, got):
        mean, var = pol.gp.predict_duels(grid[[i]], grid[[j]])
        pi = link_moments(mean, var, "probit")[0][0]
        after = []
        for y in (1.0, 0.0):  # refit from scratch on the augmented data at the same hyperparameters
            gp = PreferenceGP(1, "probit", variance=pol.gp.variance, lengthscale=pol.gp.lengthscales)
            gp.fit(np.vstack([pol.gp.X, grid[[i]]]), np.vstack([pol.gp.Xp, grid[[j]]]), np.append(pol.gp.y, y))
            after.append(soft_copeland(*gp.latent(grid)).max())
        expected = pi * max(after[0] - c_now, 0) + (1 - pi) * max(after[1] - c_now, 0)
        assert value == pytest.approx(expected, abs=1e-7)
    assert got[3] == pytest.approx(0.0, abs=1e-9)  # a duel of a point with itself teaches nothing
    one_site = PBO.cei_values.__get__(pol)  # the one-site fantasy is close to the full refit
    pol.cei_refit = "one-site"
    approx = one_site(pairs)
    assert np.max(np.abs(approx - got)) < 0.25 * got.max() + 1e-4
    i, j = pol.ask()
    all_pairs = np.stack(np.triu_indices(len(grid), 1), axis=1)
    assert pol.cei_values([[i, j]])[0] == pytest.approx(pol.cei_values(all_pairs).max())


def test_random_and_sparring_baselines():
    rnd = RandomDuels(5, np.random.default_rng(0))
    for i, j, y in [(0, 1, 1), (2, 0, 0), (3, 4, 1), (0, 4, 1)]:
        rnd.tell(i, j, y)
    assert rnd.guess() == 0  # three wins
    sp = Sparring(4, np.random.default_rng(0))
    first = {sp.ask() for _ in range(1)}
    assert all(0 <= a < 4 and 0 <= b < 4 for a, b in first)
    for i, j, y in [(0, 0, 1), (1, 1, 0), (2, 2, 1), (3, 3, 0), (0, 1, 1), (2, 3, 0)]:
        sp.tell(i, j, y)
    n, r = sp.plays[0], sp.rewards[0]
    index = r / n + np.sqrt(2.0 * np.log(sp._t[0]) / n)
    assert np.sum(index == index.max()) == 1 and sp.ask()[0] == int(np.argmax(index))
    assert sp.guess() in (0, 3)  # all played 3 times (pooled); best pooled win rate 2/3


def test_pbo_dts_finds_forrester_minimum_seeded():
    obj = get_objective("forrester")
    grid = unit_grid(1, 33)
    g = obj(grid)
    sim = DuelSimulator(g, np.random.default_rng(5))
    pol = make_policy("pbo-dts", grid, np.random.default_rng(6), n_features=100)
    init = [(3, 20, sim.duel(3, 20)), (10, 30, sim.duel(10, 30)), (0, 15, sim.duel(0, 15))]
    guesses, asked, _ = run_trial(pol, sim.duel, init, 40)
    assert len(guesses) == 41 and asked.shape == (40, 2)
    assert g[guesses[-1]] <= np.sort(g)[2]  # one of the three best grid points (min -5.99 at 0.75)


def test_objectives_known_minima_and_reproducibility():
    for name, obj in OBJECTIVES.items():
        grid = unit_grid(obj.dim, 65)
        assert obj(grid).min() >= obj.f_min - 1e-4
        assert obj(grid).min() <= obj.f_min + 0.05 * (1 + abs(obj.f_min))
    grid = unit_grid(1, 17)
    runs = []
    for _ in range(2):
        sim = DuelSimulator(get_objective("forrester")(grid), np.random.default_rng(9))
        pol = make_policy("pbo-pe", grid, np.random.default_rng(10))
        runs.append(run_trial(pol, sim.duel, [(1, 2, 1)], 5)[:2])
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])


def test_bad_arguments_raise_value_error():
    grid = unit_grid(1, 9)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="acquisition"):
        PBO(grid, "ucb", rng)
    with pytest.raises(ValueError, match="likelihood"):
        PBO(grid, "pe", rng, likelihood="cauchit")
    with pytest.raises(ValueError, match="optimize_every"):
        PBO(grid, "pe", rng, optimize_every=0)
    with pytest.raises(ValueError, match="rng"):
        PBO(grid, "pe", 3)
    with pytest.raises(ValueError, match="method"):
        make_policy("pbo-xyz", grid, rng)
    with pytest.raises(ValueError, match="grid index"):
        PBO(grid, "pe", rng).tell(0, 9, 1)
    with pytest.raises(ValueError, match="y must be"):
        RandomDuels(3, rng).tell(0, 1, 2)
    with pytest.raises(ValueError, match="objective"):
        get_objective("rosenbrock")
    with pytest.raises(ValueError, match="fit"):
        PBO(grid, "pe", rng).fit()
    with pytest.raises(ValueError, match="outcomes"):
        PreferenceGP(1).fit(np.zeros((1, 1)), np.ones((1, 1)), np.array([0.5]))
    with pytest.raises(ValueError, match="moment"):
        link_moments(0.0, 1.0, "probit", "simpson")
    with pytest.raises(ValueError, match="lengthscale"):
        PreferenceGP(1, lengthscale=5.0)


# --- IBO (Brochu 2010) ------------------------------------------------------------------------------------

def test_expected_improvement_against_quadrature():
    from scipy import integrate

    for mu, sd, best, xi in [(0.3, 0.5, 0.0, 0.0), (-1.2, 0.4, 0.1, 0.05), (2.0, 1.5, 2.5, 0.0), (0.0, 3.0, 4.0, 0.2)]:
        ref = integrate.quad(lambda u: (u - best - xi) * stats.norm.pdf(u, mu, sd), best + xi, np.inf)[0]
        assert expected_improvement(mu, sd, best, xi) == pytest.approx(ref, rel=1e-7, abs=1e-12)
    # no uncertainty: the plain improvement
    np.testing.assert_allclose(expected_improvement([1.0, -1.0], [0.0, 0.0], 0.25), [0.75, 0.0])
    # EI grows with the mean and with the spread
    ei = expected_improvement
    assert ei(0.1, 1.0, 0.0) > ei(0.0, 1.0, 0.0) > ei(0.0, 0.5, 0.0)


def _fitted_ibo(**kw):
    """An IBO on a 1-D grid of 11 points after 10 noisy Forrester duels among the first 7 points."""
    grid = np.linspace(0, 1, 11)[:, None]
    pol = IBO(grid, np.random.default_rng(1), variance=3.0, lengthscale=0.2, **kw)
    rng = np.random.default_rng(4)
    g = get_objective("forrester")(grid)
    for _ in range(10):
        i, j = rng.choice(7, 2, replace=False)
        pol.tell(int(i), int(j), int(rng.random() < special.expit(g[j] - g[i])))
    pol.fit()
    return pol, grid


def _utility_laplace(pol, grid):
    """Independent Laplace fit in utility space: maximise log N(h; 0, K) + sum log Phi(s_k (h_i - h_j)) over h
    on the grid (whitened, BFGS), then Cov = K - K D^T (W^-1 + D K D^T)^-1 D K."""
    from pokerduel.bandits.pbo_gp import rbf

    K = rbf(grid, grid, pol.gp.variance, pol.gp.lengthscales)
    L = np.linalg.cholesky(K + 1e-10 * np.eye(len(grid)))
    D = np.zeros((len(pol.y), len(grid)))
    D[np.arange(len(pol.y)), pol.i] += 1.0
    D[np.arange(len(pol.y)), pol.j] -= 1.0
    s = 2.0 * np.array(pol.y) - 1.0
    A = s[:, None] * (D @ L)

    def objective(z):
        u = A @ z
        return 0.5 * z @ z - special.log_ndtr(u).sum(), z - A.T @ np.exp(stats.norm.logpdf(u) - special.log_ndtr(u))

    z = optimize.minimize(objective, np.zeros(len(grid)), jac=True, method="BFGS", options={"gtol": 1e-10}).x
    h = L @ z
    f = D @ h
    r = np.exp(stats.norm.logpdf(s * f) - special.log_ndtr(s * f))  # -d2 log Phi(s f) / df2 = r (r + s f)
    W = r * (r + s * f)
    cov = K - K @ D.T @ np.linalg.solve(np.diag(1.0 / W) + D @ K @ D.T, D @ K)
    return h, cov


def test_ibo_utility_posterior_incumbent_ei_and_duel_match_independent_computation():
    pol, grid = _fitted_ibo()
    h, cov = _utility_laplace(pol, grid)
    np.testing.assert_allclose(pol.m, h, atol=1e-5)
    np.testing.assert_allclose(pol.diag, np.diag(cov), atol=1e-6)
    seen = np.unique(pol.i + pol.j)
    best = int(seen[np.argmax(h[seen])])
    assert pol.guess() == best and best < 7  # the incumbent is a point that took part in a duel
    # EI of h(x) ~ N(h_x, cov_xx) over h(x+), by quadrature
    ei = [integrate_ei(h[k], np.sqrt(cov[k, k]), h[best]) for k in range(len(grid))]
    np.testing.assert_allclose(pol.ei_values(), ei, rtol=1e-6, atol=1e-10)
    x, xp = pol.ask()
    masked = np.array(ei)
    masked[best] = -np.inf
    assert (x, xp) == (int(np.argmax(masked)), best)
    # "difference": the spread of h(x) - h(x+) from the duel-space kernel (independent of the grid algebra)
    diff = IBO(grid, np.random.default_rng(1), variance=3.0, lengthscale=0.2, sigma="difference")
    for i, j, y in zip(pol.i, pol.j, pol.y):
        diff.tell(i, j, y)
    mean, var = diff.gp.fit(grid[pol.i], grid[pol.j], np.array(pol.y, float)).predict_duels(
        grid, np.repeat(grid[[diff.guess()]], len(grid), axis=0))
    ref = expected_improvement(diff.m[diff.guess()] + mean, np.sqrt(var), diff.m[diff.guess()])
    np.testing.assert_allclose(diff.ei_values(), ref, rtol=1e-6, atol=1e-9)
    # "grid": the incumbent maximises the mean over every grid point
    assert IBO.guess(_fitted_ibo(incumbent="grid")[0]) == int(np.argmax(h))


def integrate_ei(mu, sd, best):
    from scipy import integrate

    return integrate.quad(lambda u: (u - best) * stats.norm.pdf(u, mu, sd), best, np.inf)[0]


def test_ibo_seeded_forrester_run_duels_the_incumbent_and_is_reproducible():
    obj = get_objective("forrester")
    grid = unit_grid(1, 33)
    g = obj(grid)
    runs = []
    for _ in range(2):
        sim = DuelSimulator(g, np.random.default_rng(5))
        pol = make_policy("ibo", grid, np.random.default_rng(6), optimize_every=10)
        init = [(3, 20, sim.duel(3, 20)), (10, 30, sim.duel(10, 30)), (0, 15, sim.duel(0, 15))]
        runs.append(run_trial(pol, sim.duel, init, 40)[:2])
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    guesses, asked = runs[0]
    # greedy and local: from g = 0.66 it climbs one grid step at a time towards the minimum at index 24
    assert g[guesses[-1]] < g[guesses[0]] - 2.0
    assert np.all(asked[:, 1] == guesses[:-1])  # every duel is [EI maximiser, incumbent]
    assert np.all(asked[:, 0] != asked[:, 1])


def test_ibo_bad_arguments_raise_value_error():
    grid = unit_grid(1, 9)
    rng = np.random.default_rng(0)
    for kw, match in [({"incumbent": "best"}, "incumbent"), ({"sigma": "joint"}, "sigma"), ({"xi": -0.1}, "xi"),
                      ({"xi": "a"}, "xi"), ({"optimize_every": 0}, "optimize_every"),
                      ({"likelihood": "cauchit"}, "likelihood"), ({"lengthscale": 5.0}, "lengthscale")]:
        with pytest.raises(ValueError, match=match):
            IBO(grid, rng, **kw)
    with pytest.raises(ValueError, match="rng"):
        IBO(grid, 3)
    with pytest.raises(ValueError, match="grid"):
        IBO(np.zeros(4), rng)
    with pytest.raises(ValueError, match="fit"):
        IBO(grid, rng).ask()
    with pytest.raises(ValueError, match="grid index"):
        IBO(grid, rng).tell(0, 9, 1)
