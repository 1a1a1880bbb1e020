"""Gaussian-process classifier over duels for Preferential Bayesian Optimization (González et al. 2017 §2).

A duel ``[x, x']`` has a latent ``f([x, x'])`` and outcome y = 1 (x wins) with probability ``link(f)``,
link the probit Phi or the logistic sigma. The GP prior on duels uses the antisymmetric *preference
kernel* ``k([x,x'],[z,z']) = k(x,z) + k(x',z') - k(x,z') - k(x',z)``: it is the law of
``f = h(x) - h(x')`` for a GP ``h ~ GP(0, k)`` on the q-dimensional domain, so the symmetry
``pi([x',x]) = 1 - pi([x,x'])`` the paper states holds exactly and every duel between grid points
follows from the posterior of h on the grid (a G x G covariance instead of a G^2 x G^2 one). ``k`` is a
squared-exponential kernel with one length scale per dimension (ARD) on the unit cube.

Inference is the Laplace approximation (Rasmussen & Williams 2006, Algorithm 3.1 with step halving);
hyperparameters maximise its marginal likelihood (Algorithm 5.1 gradients, L-BFGS-B in log space within
bounds). Everything is numpy/scipy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg, optimize, special

LIKELIHOODS = ("probit", "logistic")
MOMENT_METHODS = ("closed-form", "gauss-hermite")
_LAMBDA2 = np.pi / 8  # sigma(f) ~ Phi(sqrt(pi/8) f), the matched-slope probit approximation (R&W §3.4)


def _check_likelihood(likelihood: str) -> None:
    if likelihood not in LIKELIHOODS:
        raise ValueError(f"unknown likelihood {likelihood!r}; choose one of {', '.join(LIKELIHOODS)}")


def link(f, likelihood: str = "probit") -> np.ndarray:
    """The inverse link: P(y = 1 | f) = Phi(f) (probit) or 1 / (1 + exp(-f)) (logistic)."""
    _check_likelihood(likelihood)
    return special.ndtr(f) if likelihood == "probit" else special.expit(f)


def log_lik_derivs(f: np.ndarray, y: np.ndarray, likelihood: str):
    """log p(y|f) summed, and its first, minus second (W) and third derivatives per duel (y in {0, 1})."""
    s = 2.0 * y - 1.0
    if likelihood == "probit":
        z = s * f
        logcdf = special.log_ndtr(z)
        r = np.exp(-0.5 * z * z - 0.5 * np.log(2 * np.pi) - logcdf)  # inverse Mills ratio N(z)/Phi(z)
        d1 = s * r
        W = np.clip(r * (z + r), 0.0, 1.0)  # in (0, 1); the clip guards rounding where z << 0
        dr = -r * (z + r)
        d3 = -s * (r + z * dr + 2 * r * dr)
        return float(logcdf.sum()), d1, W, d3
    p = special.expit(f)
    d1 = y - p
    W = p * (1 - p)
    d3 = -W * (1 - 2 * p)
    return float(special.log_expit(s * f).sum()), d1, W, d3


def link_moments(mu, var, likelihood: str = "probit", method: str = "closed-form", n_nodes: int = 40):
    """E[link(f)] and V[link(f)] for f ~ N(mu, var): the predictive win probability and its epistemic variance.

    Probit: exact, with E[Phi(f)^2] a bivariate normal orthant probability written with Owen's T.
    Logistic: ``closed-form`` applies the same formulas to Phi(sqrt(pi/8) f) (an approximation);
    ``gauss-hermite`` integrates numerically with ``n_nodes`` nodes (either likelihood).
    """
    _check_likelihood(likelihood)
    if method not in MOMENT_METHODS:
        raise ValueError(f"unknown moment method {method!r}; choose one of {', '.join(MOMENT_METHODS)}")
    mu = np.asarray(mu, dtype=np.float64)
    var = np.maximum(np.asarray(var, dtype=np.float64), 0.0)
    if method == "gauss-hermite":
        t, w = np.polynomial.hermite_e.hermegauss(n_nodes)
        w = w / w.sum()
        vals = link(mu[..., None] + np.sqrt(var)[..., None] * t, likelihood)
        mean = vals @ w
        return mean, np.maximum((vals * vals) @ w - mean * mean, 0.0)
    lam2 = 1.0 if likelihood == "probit" else _LAMBDA2
    denom = 1.0 + lam2 * var
    a = np.sqrt(lam2) * mu / np.sqrt(denom)
    mean = special.ndtr(a)
    rho = lam2 * var / denom
    second = mean - 2.0 * special.owens_t(a, np.sqrt((1.0 - rho) / (1.0 + rho)))
    return mean, np.maximum(second - mean * mean, 0.0)


def rbf(A: np.ndarray, B: np.ndarray, variance: float, lengthscales: np.ndarray) -> np.ndarray:
    """Squared-exponential kernel matrix variance * exp(-|a - b|^2_ell / 2) between rows of A and B."""
    a, b = A / lengthscales, B / lengthscales
    sq = np.sum(a * a, axis=1)[:, None] + np.sum(b * b, axis=1)[None, :] - 2 * a @ b.T
    return variance * np.exp(-0.5 * np.maximum(sq, 0.0))


@dataclass
class LaplaceState:
    """The Laplace approximation at the posterior mode of the duel latents."""

    f: np.ndarray  # mode
    a: np.ndarray  # K^-1 f (= d log p / d f at the mode)
    d1: np.ndarray
    W: np.ndarray
    d3: np.ndarray
    L: np.ndarray  # lower Cholesky factor of I + sqrt(W) K sqrt(W)
    log_marginal: float
    iterations: int


def laplace_mode(K: np.ndarray, y: np.ndarray, likelihood: str, a0: np.ndarray | None = None,
                 tol: float = 1e-9, max_iter: int = 100) -> LaplaceState:
    """Newton's method for the mode of p(f | y) with prior N(0, K) (R&W Algorithm 3.1), with step halving.

    ``a0`` warm-starts at f = K a0 (pass the previous ``a`` extended with zeros after adding duels).
    """
    n = len(y)
    a = np.zeros(n) if a0 is None else np.asarray(a0, dtype=np.float64).copy()
    f = K @ a
    ll, d1, W, d3 = log_lik_derivs(f, y, likelihood)
    psi = -0.5 * a @ f + ll
    it = 0
    for it in range(1, max_iter + 1):
        sW = np.sqrt(W)
        L = linalg.cholesky(np.eye(n) + sW[:, None] * K * sW[None, :], lower=True)
        b = W * f + d1
        a_new = b - sW * linalg.cho_solve((L, True), sW * (K @ b))
        step = a_new - a
        for _ in range(30):
            f_new = K @ (a + step)
            ll_new, d1_new, W_new, d3_new = log_lik_derivs(f_new, y, likelihood)
            psi_new = -0.5 * (a + step) @ f_new + ll_new
            if psi_new >= psi - 1e-12 * max(1.0, abs(psi)):
                break
            step *= 0.5
        a, f, d1, W, d3 = a + step, f_new, d1_new, W_new, d3_new
        done = abs(psi_new - psi) < tol * max(1.0, abs(psi))
        psi = psi_new
        if done:
            break
    sW = np.sqrt(W)
    L = linalg.cholesky(np.eye(n) + sW[:, None] * K * sW[None, :], lower=True)
    log_marginal = psi - float(np.log(np.diag(L)).sum())
    return LaplaceState(f, a, d1, W, d3, L, log_marginal, it)


class PreferenceGP:
    """Laplace GP classifier on duels with the preference kernel; see the module docstring.

    ``variance`` and ``lengthscale`` are the initial hyperparameters; ``optimize_hyper`` in ``fit``
    maximises the Laplace marginal likelihood within ``variance_bounds`` and ``lengthscale_bounds`` (unit
    cube), from the current values and (``restart``) also from the initial ones, keeping the better.
    """

    def __init__(self, dim: int, likelihood: str = "probit", variance: float = 1.0,
                 lengthscale: float | np.ndarray = 0.2, variance_bounds=(1e-2, 1e2),
                 lengthscale_bounds=(0.02, 2.0), moments: str = "closed-form", restart: bool = True):
        if not isinstance(dim, (int, np.integer)) or dim < 1:
            raise ValueError(f"dim must be a positive integer, got {dim!r}")
        _check_likelihood(likelihood)
        if moments not in MOMENT_METHODS:
            raise ValueError(f"unknown moment method {moments!r}; choose one of {', '.join(MOMENT_METHODS)}")
        ls = np.broadcast_to(np.asarray(lengthscale, dtype=np.float64), (dim,)).copy()
        for name, (lo, hi) in (("variance_bounds", variance_bounds), ("lengthscale_bounds", lengthscale_bounds)):
            if not 0 < lo < hi:
                raise ValueError(f"{name} must be (low, high) with 0 < low < high, got {(lo, hi)!r}")
        if not variance_bounds[0] <= variance <= variance_bounds[1]:
            raise ValueError(f"variance {variance!r} outside variance_bounds {variance_bounds!r}")
        if np.any(ls < lengthscale_bounds[0]) or np.any(ls > lengthscale_bounds[1]):
            raise ValueError(f"lengthscale {lengthscale!r} outside lengthscale_bounds {lengthscale_bounds!r}")
        self.dim = int(dim)
        self.likelihood = likelihood
        self.moments = moments
        self.variance = float(variance)
        self.lengthscales = ls
        self.variance_bounds = tuple(map(float, variance_bounds))
        self.lengthscale_bounds = tuple(map(float, lengthscale_bounds))
        self.X = np.zeros((0, dim))
        self.Xp = np.zeros((0, dim))
        self.y = np.zeros(0)
        self.state: LaplaceState | None = None
        self.restart = bool(restart)
        self._theta0 = self._theta()

    # --- kernel -------------------------------------------------------------------------------------

    def _theta(self) -> np.ndarray:
        return np.concatenate([[np.log(self.variance)], np.log(self.lengthscales)])

    def _set_theta(self, theta: np.ndarray) -> None:
        self.variance = float(np.exp(theta[0]))
        self.lengthscales = np.exp(np.asarray(theta[1:], dtype=np.float64))

    def duel_kernel(self, A, Ap, B, Bp, variance=None, lengthscales=None) -> np.ndarray:
        """Preference-kernel matrix between duels [A_i, Ap_i] and [B_j, Bp_j]."""
        v = self.variance if variance is None else variance
        ls = self.lengthscales if lengthscales is None else lengthscales
        return rbf(A, B, v, ls) + rbf(Ap, Bp, v, ls) - rbf(A, Bp, v, ls) - rbf(Ap, B, v, ls)

    def _kernel_and_grads(self, theta):
        """K of the data duels and dK/dtheta for theta = (log variance, log lengthscales)."""
        v, ls = np.exp(theta[0]), np.exp(theta[1:])
        n = len(self.y)
        U = np.vstack([self.X, self.Xp])
        Kb = rbf(U, U, v, ls)

        def fold(M):  # P M P^T with P = [I, -I]: the duel kernel from the point kernel's blocks
            return M[:n, :n] + M[n:, n:] - M[:n, n:] - M[n:, :n]

        K = fold(Kb)
        grads = [K]
        for d in range(self.dim):
            diff2 = (U[:, None, d] - U[None, :, d]) ** 2 / ls[d] ** 2
            grads.append(fold(Kb * diff2))
        return K, grads

    # --- fitting ------------------------------------------------------------------------------------

    def set_data(self, X, Xp, y) -> None:
        """Replace the duels: first elements X (n, q), second elements Xp (n, q), outcomes y in {0, 1}."""
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        Xp = np.atleast_2d(np.asarray(Xp, dtype=np.float64))
        y = np.asarray(y, dtype=np.float64).ravel()
        if X.shape != Xp.shape or X.shape[1] != self.dim or X.shape[0] != len(y) or len(y) < 1:
            raise ValueError(f"need X and Xp of shape (n, {self.dim}) and n >= 1 outcomes, got {X.shape}, "
                             f"{Xp.shape}, {y.shape}")
        if not np.all((y == 0) | (y == 1)):
            raise ValueError("outcomes y must be 0 or 1")
        old = len(self.y)
        prefix = (old <= len(y) and self.state is not None and np.array_equal(self.X, X[:old])
                  and np.array_equal(self.Xp, Xp[:old]) and np.array_equal(self.y, y[:old]))
        self._a0 = np.concatenate([self.state.a, np.zeros(len(y) - old)]) if prefix else None
        self.X, self.Xp, self.y = X, Xp, y

    def log_marginal(self, theta: np.ndarray, a0=None) -> tuple[float, np.ndarray, LaplaceState]:
        """Laplace log marginal likelihood at theta and its gradient (R&W Algorithm 5.1, sign of s2 as derived)."""
        K, grads = self._kernel_and_grads(np.asarray(theta, dtype=np.float64))
        st = laplace_mode(K, self.y, self.likelihood, a0)
        sW = np.sqrt(st.W)
        Z = sW[:, None] * linalg.cho_solve((st.L, True), np.diag(sW))
        C = linalg.solve_triangular(st.L, sW[:, None] * K, lower=True)
        # d log q / d f_hat = +1/2 diag((K^-1 + W)^-1) * d3 (W = -d2 so dW/df = -d3; as in GPML's infLaplace)
        s2 = 0.5 * (np.diag(K) - np.sum(C * C, axis=0)) * st.d3
        g = np.empty(len(grads))
        for j, Cj in enumerate(grads):
            s1 = 0.5 * st.a @ Cj @ st.a - 0.5 * np.sum(Z * Cj)
            b = Cj @ st.d1
            s3 = b - K @ (Z @ b)
            g[j] = s1 + s2 @ s3
        return st.log_marginal, g, st

    def fit(self, X=None, Xp=None, y=None, optimize_hyper: bool = False, max_evals: int = 60) -> PreferenceGP:
        """Laplace-fit the duels (new data if given); with ``optimize_hyper``, first maximise the marginal
        likelihood over the hyperparameters, starting from the current ones."""
        if X is not None:
            self.set_data(X, Xp, y)
        if len(self.y) == 0:
            raise ValueError("no duels to fit")
        a0 = getattr(self, "_a0", None)
        if optimize_hyper:
            warm = {"a": a0}
            bounds = [tuple(np.log(self.variance_bounds))] + [tuple(np.log(self.lengthscale_bounds))] * self.dim

            def objective(theta):
                try:
                    value, grad, st = self.log_marginal(theta, warm["a"])
                except (ValueError, np.linalg.LinAlgError):  # a numerically hopeless theta: steer away
                    return 1e10, np.zeros_like(theta)
                if not (np.isfinite(value) and np.all(np.isfinite(grad))):
                    return 1e10, np.zeros_like(theta)
                warm["a"] = st.a
                return -value, -grad

            starts = [self._theta()]
            if self.restart and not np.allclose(starts[0], self._theta0):
                starts.append(self._theta0)  # ML-II is multimodal: also start from the initial values
            best = None
            for start in starts:
                warm["a"] = a0
                res = optimize.minimize(objective, start, jac=True, method="L-BFGS-B", bounds=bounds,
                                        options={"maxfun": max_evals})
                if np.all(np.isfinite(res.x)) and res.fun < 1e10 and (best is None or res.fun < best[0].fun):
                    best = (res, warm["a"])
            if best is not None:
                self._set_theta(best[0].x)
                a0 = best[1]
        K = self.duel_kernel(self.X, self.Xp, self.X, self.Xp)
        self.state = laplace_mode(K, self.y, self.likelihood, a0)
        self._a0 = None
        return self

    # --- prediction ---------------------------------------------------------------------------------

    def _require_fit(self):
        if self.state is None:
            raise ValueError("the GP has not been fitted")
        return self.state

    def latent_factors(self, Z: np.ndarray):
        """Posterior of h on points Z (G, q) in factored form: mean m (G,), the prior covariance K_ZZ and
        V (n, G) with Cov = K_ZZ - V^T V, so that blocks of the covariance cost only what they hold."""
        st = self._require_fit()
        Z = np.atleast_2d(np.asarray(Z, dtype=np.float64))
        C = rbf(Z, self.X, self.variance, self.lengthscales) - rbf(Z, self.Xp, self.variance, self.lengthscales)
        m = C @ st.d1
        V = linalg.solve_triangular(st.L, np.sqrt(st.W)[:, None] * C.T, lower=True)
        key = (Z.shape, Z.tobytes(), self.variance, self.lengthscales.tobytes())
        if getattr(self, "_prior_key", None) != key:  # the grid's prior covariance, reused while theta is fixed
            self._prior_key, self._prior = key, rbf(Z, Z, self.variance, self.lengthscales)
        return m, self._prior, V

    def latent(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean (G,) and covariance (G, G) of h on points Z (G, q); f([x,x']) = h(x) - h(x')."""
        m, prior, V = self.latent_factors(Z)
        return m, prior - V.T @ V

    def predict_duels(self, A, Ap) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and variance of the latent f on duels [A_i, Ap_i] (any points, not only a grid)."""
        st = self._require_fit()
        A = np.atleast_2d(np.asarray(A, dtype=np.float64))
        Ap = np.atleast_2d(np.asarray(Ap, dtype=np.float64))
        Ks = self.duel_kernel(A, Ap, self.X, self.Xp)
        mean = Ks @ st.d1
        V = linalg.solve_triangular(st.L, np.sqrt(st.W)[:, None] * Ks.T, lower=True)
        prior = 2 * self.variance - 2 * np.array([rbf(A[i:i + 1], Ap[i:i + 1], self.variance,
                                                      self.lengthscales)[0, 0] for i in range(len(A))])
        return mean, np.maximum(prior - np.sum(V * V, axis=0), 0.0)

    def win_probability(self, A, Ap) -> tuple[np.ndarray, np.ndarray]:
        """pi([A_i, Ap_i]; D) = E[link(f)] and the epistemic variance V[link(f)] (the PE acquisition)."""
        mean, var = self.predict_duels(A, Ap)
        return link_moments(mean, var, self.likelihood, self.moments)

    def rff_sampler(self, rng: np.random.Generator, n_features: int = 500, Z=None, data_index=None):
        """An approximate posterior sample of h as a function, by random Fourier features.

        The RBF kernel is approximated by ``n_features`` features (Rahimi & Recht 2008); the weights get
        the Gaussian posterior of the Laplace approximation's pseudo-observations (same mode and W), so as
        ``n_features`` grows the samples follow the Laplace posterior. Returns the function ``h(Z)`` for
        (G, q) arrays; or, given points ``Z`` and ``data_index = (i, j)`` with the data duels being
        ``[Z[i], Z[j]]``, the sample's values on Z (features computed once).
        """
        st = self._require_fit()
        if not isinstance(n_features, (int, np.integer)) or n_features < 1:
            raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
        omega = rng.standard_normal((n_features, self.dim)) / self.lengthscales
        phase = rng.uniform(0.0, 2 * np.pi, n_features)
        scale = np.sqrt(2.0 * self.variance / n_features)

        def features(Z):
            return scale * np.cos(np.atleast_2d(Z) @ omega.T + phase)

        if Z is not None:
            FZ = features(Z)
            Phi = FZ[np.asarray(data_index[0])] - FZ[np.asarray(data_index[1])]
        else:
            Phi = features(self.X) - features(self.Xp)
        A = np.eye(n_features) + Phi.T @ (st.W[:, None] * Phi)
        R = linalg.cholesky(A, lower=True)
        mu = linalg.cho_solve((R, True), Phi.T @ (st.W * st.f + st.d1))
        w = mu + linalg.solve_triangular(R.T, rng.standard_normal(n_features), lower=False)
        if Z is not None:
            return FZ @ w
        return lambda Z: features(Z) @ w


def duel_moments_on_grid(m: np.ndarray, S: np.ndarray, rows=None, cols=None):
    """Mean and variance of f([z_i, z_j]) = h(z_i) - h(z_j) for grid rows i and columns j."""
    d = np.diag(S)
    rows = slice(None) if rows is None else np.asarray(rows)
    cols = slice(None) if cols is None else np.asarray(cols)
    block = S[rows][:, cols]
    var = d[rows][:, None] + d[cols][None, :] - 2 * block
    np.maximum(var, 0.0, out=var)
    return m[rows][:, None] - m[cols][None, :], var


def copeland_from_moments(mu: np.ndarray, var: np.ndarray, likelihood: str = "probit",
                          moments: str = "closed-form") -> np.ndarray:
    """Row means of pi = E[link(f)] over a (G, M) block of duel latent means and variances."""
    if moments == "closed-form":  # only the mean is needed: skip Owen's T
        lam2 = 1.0 if likelihood == "probit" else _LAMBDA2
        return special.ndtr(np.sqrt(lam2) * mu / np.sqrt(1.0 + lam2 * var)).mean(axis=1)
    return link_moments(mu, var, likelihood, moments)[0].mean(axis=1)


def soft_copeland(m: np.ndarray, S: np.ndarray, likelihood: str = "probit", landmarks=None,
                  moments: str = "closed-form") -> np.ndarray:
    """Soft-Copeland score C(x_i) = mean over landmarks x_k of pi([x_i, x_k]; D) for every grid point
    (eq. 5: Monte-Carlo integration over the domain; all grid points by default)."""
    mu, var = duel_moments_on_grid(m, S, None, landmarks)
    return copeland_from_moments(mu, var, likelihood, moments)
