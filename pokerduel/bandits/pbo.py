"""Preferential Bayesian Optimization (González, Dai, Damianou & Lawrence, ICML 2017) on a grid.

Algorithm 1: fit the duel GP (``pbo_gp.PreferenceGP``) to the duels so far, pick the next duel by an
acquisition, run it, repeat; the current guess is the Condorcet winner, the argmax of the soft-Copeland
score (eq. 5). Acquisitions (§3): ``pe`` pure exploration (max V[link(f)]), ``cei`` Copeland Expected
Improvement (one-step lookahead over both outcomes), ``dts`` dueling-Thompson sampling (argmax of a
sampled soft-Copeland score, then max V[link(f)] along that row). Baselines of §4: ``random`` duels with
the most frequent winner as the guess, ``sparring`` (Ailon et al. 2014: two UCB1 players over the grid) and
``ibo`` (interactive Bayesian optimization, Brochu 2010: Expected Improvement of the latent utility of a
probit preference GP, the EI maximiser dueling the incumbent).

Every policy works on grid indices and has the same small interface: ``tell(i, j, y)`` records a duel
(y = 1: grid point i won), ``guess()`` is the current best grid index, ``ask()`` the next duel. Randomness
comes only from the injected generator. No poker imports here.
"""

from __future__ import annotations

import math
import time

import numpy as np
from scipy import special

from .pbo_gp import (
    LIKELIHOODS,
    PreferenceGP,
    copeland_from_moments,
    duel_moments_on_grid,
    laplace_mode,
    link,
    link_moments,
    log_lik_derivs,
    soft_copeland,
)

ACQUISITIONS = ("pe", "cei", "dts")
METHODS = ("random", "sparring", "ibo") + tuple(f"pbo-{a}" for a in ACQUISITIONS)
IBO_INCUMBENTS = ("observed", "grid")
IBO_SIGMAS = ("marginal", "difference")
CEI_REFITS = ("one-site", "full")
DTS_SAMPLERS = ("rff", "exact")


def argmax_random_tie(values: np.ndarray, rng: np.random.Generator, rtol: float = 1e-12) -> int:
    """Index of the largest value; ties (within ``rtol`` of the largest magnitude) broken uniformly."""
    values = np.asarray(values, dtype=np.float64).ravel()
    best = values.max()
    ties = np.flatnonzero(values >= best - rtol * max(1.0, abs(best)))
    return int(ties[0] if len(ties) == 1 else rng.choice(ties))


def _check_rng(rng):
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator")
    return rng


def _check_grid(grid):
    grid = np.asarray(grid, dtype=np.float64)
    if grid.ndim != 2 or len(grid) < 2 or not np.all(np.isfinite(grid)):
        raise ValueError("grid must be a (G, q) array of at least two finite points")
    return grid


class _DuelLog:
    """The duels told so far, as grid indices and outcomes."""

    def __init__(self, G: int):
        self.G = G
        self.i: list[int] = []
        self.j: list[int] = []
        self.y: list[int] = []

    def tell(self, i: int, j: int, y: int) -> None:
        """Record that grid point ``i`` beat ``j`` (y = 1) or lost to it (y = 0)."""
        for name, v in (("i", i), ("j", j)):
            if not isinstance(v, (int, np.integer)) or not 0 <= v < self.G:
                raise ValueError(f"{name} must be a grid index in [0, {self.G}), got {v!r}")
        if y not in (0, 1):
            raise ValueError(f"y must be 0 or 1, got {y!r}")
        self.i.append(int(i))
        self.j.append(int(j))
        self.y.append(int(y))


class _GPDuels(_DuelLog):
    """A duel log with a preference GP (``self.gp`` on ``self.grid``), refitted when duels were added; the
    kernel hyperparameters are re-maximised every ``self.optimize_every`` duels."""

    def _refit(self) -> bool:
        """Fit the GP to the duels so far and set the grid posterior factors ``m, _prior, _V``; ``False`` if
        no duel came since the last fit."""
        n = len(self.y)
        if n == 0:
            raise ValueError("tell at least one duel before fitting")
        if n == self._fitted_n:
            return False
        opt = self._optimized_n is None or n - self._optimized_n >= self.optimize_every
        self.gp.fit(self.grid[np.array(self.i)], self.grid[np.array(self.j)], np.array(self.y, dtype=np.float64),
                    optimize_hyper=opt)
        if opt:
            self._optimized_n = n
        self._fitted_n = n
        self.m, self._prior, self._V = self.gp.latent_factors(self.grid)
        return True


# --- PBO ----------------------------------------------------------------------------------------------

class PBO(_GPDuels):
    """PBO (Algorithm 1) over the points of ``grid`` (unit-cube coordinates, shape (G, q)).

    Choices the paper leaves open, as parameters:
      ``likelihood``: probit (default; exact predictive moments) or logistic (paper's eq. 2).
      ``optimize_every``: re-maximise the marginal likelihood over the kernel hyperparameters at the
        first fit and after every this many new duels (1 = every step, as Algorithm 1 reads); between
        those the Laplace mode is refitted at fixed hyperparameters.
      ``variance``, ``lengthscale``: initial kernel hyperparameters (unit-cube coordinates), optimised
        within ``variance_bounds`` and ``lengthscale_bounds``.
      ``landmarks``: None integrates the soft-Copeland score over all grid points; an integer M draws M
        uniform landmarks (eq. 5) afresh at each fit.
      ``pe_candidates``: None maximises PE over every duel of the grid; an integer draws that many
        random duels instead (for large 2-D grids).
      ``cei_refit``: ``one-site`` fantasises each outcome by a Laplace update of the new duel only (the
        other duels' curvature held fixed; O(G^2) a candidate), ``full`` refits the whole Laplace mode.
      ``cei_candidates``: None scores all unordered pairs of distinct grid points; an integer a random
        subset of that size.
      ``dts_sampler``: ``rff`` (random Fourier features, the paper's continuous sample) or ``exact``
        (joint Gaussian sample of h on the grid).
    """

    def __init__(self, grid, acquisition: str, rng: np.random.Generator, *, likelihood: str = "probit",
                 variance: float = 1.0, lengthscale: float = 0.2, variance_bounds=(1e-2, 1e2),
                 lengthscale_bounds=(0.02, 1.0), optimize_every: int = 5,
                 landmarks: int | None = None, pe_candidates: int | None = None,
                 cei_refit: str = "one-site", cei_candidates: int | None = None,
                 dts_sampler: str = "rff", n_features: int = 500):
        self.grid = _check_grid(grid)
        super().__init__(len(self.grid))
        if acquisition not in ACQUISITIONS:
            raise ValueError(f"unknown acquisition {acquisition!r}; choose one of {', '.join(ACQUISITIONS)}")
        if likelihood not in LIKELIHOODS:
            raise ValueError(f"unknown likelihood {likelihood!r}; choose one of {', '.join(LIKELIHOODS)}")
        if cei_refit not in CEI_REFITS:
            raise ValueError(f"unknown cei_refit {cei_refit!r}; choose one of {', '.join(CEI_REFITS)}")
        if dts_sampler not in DTS_SAMPLERS:
            raise ValueError(f"unknown dts_sampler {dts_sampler!r}; choose one of {', '.join(DTS_SAMPLERS)}")
        for name, v in (("optimize_every", optimize_every), ("n_features", n_features)):
            if not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        for name, v in (("landmarks", landmarks), ("pe_candidates", pe_candidates),
                        ("cei_candidates", cei_candidates)):
            if v is not None and (not isinstance(v, (int, np.integer)) or v < 1):
                raise ValueError(f"{name} must be None or a positive integer, got {v!r}")
        self.acquisition = acquisition
        self.rng = _check_rng(rng)
        self.gp = PreferenceGP(self.grid.shape[1], likelihood, variance=variance, lengthscale=lengthscale,
                               variance_bounds=variance_bounds, lengthscale_bounds=lengthscale_bounds)
        self.optimize_every = int(optimize_every)
        self.landmarks = landmarks
        self.pe_candidates = pe_candidates
        self.cei_refit = cei_refit
        self.cei_candidates = cei_candidates
        self.dts_sampler = dts_sampler
        self.n_features = int(n_features)
        self._fitted_n = 0
        self._optimized_n = None
        self.m = self.diag = self.scores = self._landmark_idx = self._full_S = None

    # model

    def fit(self) -> None:
        """Algorithm 1 step 1: fit the GP to the duels so far and the grid posterior of h."""
        if not self._refit():
            return
        self._full_S = None
        self.diag = np.diag(self._prior) - np.einsum("ij,ij->j", self._V, self._V)
        self._landmark_idx = (None if self.landmarks is None
                              else self.rng.choice(self.G, size=min(self.landmarks, self.G), replace=False))
        cols = self._landmark_idx
        mu, var = self.duel_block(None, cols)
        self.scores = copeland_from_moments(mu, var, self.gp.likelihood, self.gp.moments)

    @property
    def S(self) -> np.ndarray:
        """The full posterior covariance of h on the grid (computed on demand)."""
        self.fit()
        if self._full_S is None:
            self._full_S = self._prior - self._V.T @ self._V
        return self._full_S

    def cov_block(self, rows=None, cols=None) -> np.ndarray:
        """Posterior covariance of h between grid rows and columns (all when None)."""
        if self._full_S is not None or (rows is None and cols is None):
            S = self.S
            return S[slice(None) if rows is None else rows][:, slice(None) if cols is None else cols]
        r = slice(None) if rows is None else np.asarray(rows)
        c = slice(None) if cols is None else np.asarray(cols)
        return self._prior[r][:, c] - self._V[:, r].T @ self._V[:, c]

    def duel_block(self, rows=None, cols=None) -> tuple[np.ndarray, np.ndarray]:
        """Mean and variance of the latent f([x_i, x_j]) for grid rows i and columns j."""
        r = slice(None) if rows is None else np.asarray(rows)
        c = slice(None) if cols is None else np.asarray(cols)
        var = self.diag[r][:, None] + self.diag[c][None, :] - 2 * self.cov_block(rows, cols)
        return self.m[r][:, None] - self.m[c][None, :], np.maximum(var, 0.0)

    def guess(self) -> int:
        """The Condorcet winner: the grid point of largest soft-Copeland score."""
        self.fit()
        return argmax_random_tie(self.scores, self.rng)

    def ask(self) -> tuple[int, int]:
        """Algorithm 1 steps 2-3: the duel [x, x'] (grid indices) maximising the acquisition."""
        self.fit()
        return {"pe": self._ask_pe, "cei": self._ask_cei, "dts": self._ask_dts}[self.acquisition]()

    # acquisitions

    def pe_values(self, rows=None, cols=None) -> np.ndarray:
        """alpha_PE([x_i, x_j]) = V[link(f)] for grid rows i and columns j (all by default)."""
        self.fit()
        mu, var = self.duel_block(rows, cols)
        return link_moments(mu, var, self.gp.likelihood, self.gp.moments)[1]

    def _ask_pe(self) -> tuple[int, int]:
        if self.pe_candidates is None:
            iu, ju = np.triu_indices(self.G, 1)  # V is symmetric in the two arguments
        else:
            iu = self.rng.integers(0, self.G, self.pe_candidates)
            ju = self.rng.integers(0, self.G, self.pe_candidates)
        d = self.diag
        mu = self.m[iu] - self.m[ju]
        if self._full_S is not None or self.pe_candidates is None:
            cross = self.S[iu, ju]
        else:
            cross = self._prior[iu, ju] - np.einsum("ij,ij->j", self._V[:, iu], self._V[:, ju])
        var = np.maximum(d[iu] + d[ju] - 2 * cross, 0.0)
        v = link_moments(mu, var, self.gp.likelihood, self.gp.moments)[1]
        k = argmax_random_tie(v, self.rng)
        return int(iu[k]), int(ju[k])

    def sample_h(self) -> np.ndarray:
        """One posterior sample of h on the grid (RFF or exact joint sample, per ``dts_sampler``)."""
        self.fit()
        if self.dts_sampler == "rff":
            return self.gp.rff_sampler(self.rng, self.n_features, self.grid, (self.i, self.j))
        w, U = np.linalg.eigh(self.S)
        return self.m + U @ (np.sqrt(np.maximum(w, 0.0)) * self.rng.standard_normal(self.G))

    def dts_from_sample(self, h: np.ndarray) -> tuple[int, int]:
        """DTS given a sample h of the latent: x = argmax of the sampled soft-Copeland score
        mean_k link(h(x) - h(x_k)); x' = argmax over x' of V[link(f([x, x']))]."""
        cols = self._landmark_idx
        hc = h if cols is None else h[cols]
        sampled = link(h[:, None] - hc[None, :], self.gp.likelihood).mean(axis=1)
        x = argmax_random_tie(sampled, self.rng)
        row = self.pe_values([x], None)[0]
        return x, argmax_random_tie(row, self.rng)

    def _ask_dts(self) -> tuple[int, int]:
        return self.dts_from_sample(self.sample_h())

    def cei_values(self, pairs: np.ndarray) -> np.ndarray:
        """alpha_CEI for duels ``pairs`` (k, 2): pi (c*_x - c*)_+ + (1 - pi) (c*_x' - c*)_+, where c*_x and
        c*_x' are the largest soft-Copeland scores after adding the duel won by x, resp. by x'."""
        self.fit()
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        c_now = self.scores.max()
        mu, var = duel_moments_on_grid(self.m, self.S)  # CEI is for small grids: use the full covariance
        pi = link_moments(mu[pairs[:, 0], pairs[:, 1]], var[pairs[:, 0], pairs[:, 1]],
                          self.gp.likelihood, self.gp.moments)[0]
        if self.cei_refit == "full":
            c1 = np.array([self._fantasy_full(i, j, 1) for i, j in pairs])
            c0 = np.array([self._fantasy_full(i, j, 0) for i, j in pairs])
        else:
            c1, c0 = self._fantasy_one_site(pairs, 1), self._fantasy_one_site(pairs, 0)
        return pi * np.maximum(c1 - c_now, 0.0) + (1 - pi) * np.maximum(c0 - c_now, 0.0)

    def _fantasy_full(self, i: int, j: int, y: int) -> float:
        """Max soft-Copeland score after refitting the Laplace mode with the duel added (fixed hyperparameters)."""
        gp = self.gp
        X = np.vstack([gp.X, self.grid[i]])
        Xp = np.vstack([gp.Xp, self.grid[j]])
        yy = np.append(gp.y, float(y))
        K = gp.duel_kernel(X, Xp, X, Xp)
        st = laplace_mode(K, yy, gp.likelihood, np.append(gp.state.a, 0.0))
        saved_X, saved_Xp, saved_y, saved_state = gp.X, gp.Xp, gp.y, gp.state
        try:
            gp.X, gp.Xp, gp.y, gp.state = X, Xp, yy, st
            m, S = gp.latent(self.grid)
        finally:
            gp.X, gp.Xp, gp.y, gp.state = saved_X, saved_Xp, saved_y, saved_state
        return float(soft_copeland(m, S, gp.likelihood, self._landmark_idx, gp.moments).max())

    def _fantasy_one_site(self, pairs: np.ndarray, y: int, chunk: int = 64) -> np.ndarray:
        """Max soft-Copeland scores after a Laplace update of the new duel's site only, for every pair.

        The new latent f ~ N(mu, v) from the current posterior; its 1-D Laplace mode f_hat gives the
        site curvature w = W(f_hat); the grid posterior of h becomes m + s d1(f_hat) and
        S - w s s^T / (1 + w v), s = Cov(h, f) = S[:, i] - S[:, j].
        """
        lik = self.gp.likelihood
        d = np.diag(self.S)
        mu = self.m[pairs[:, 0]] - self.m[pairs[:, 1]]
        v = np.maximum(d[pairs[:, 0]] + d[pairs[:, 1]] - 2 * self.S[pairs[:, 0], pairs[:, 1]], 1e-12)
        yy = np.full(len(pairs), float(y))
        f = mu.copy()
        for _ in range(50):  # Newton on -(f - mu)^2 / 2v + log p(y | f), concave
            _, d1, W, _ = log_lik_derivs(f, yy, lik)
            step = (d1 - (f - mu) / v) / (W + 1.0 / v)
            f += step
            if np.max(np.abs(step)) < 1e-10:
                break
        _, d1, W, _ = log_lik_derivs(f, yy, lik)
        cols = np.arange(self.G) if self._landmark_idx is None else self._landmark_idx
        lam2 = 1.0 if lik == "probit" else np.pi / 8
        out = np.empty(len(pairs))
        for s0 in range(0, len(pairs), chunk):
            sl = slice(s0, s0 + chunk)
            s = self.S[:, pairs[sl, 0]].T - self.S[:, pairs[sl, 1]].T  # (c, G)
            kappa = (W[sl] / (1.0 + W[sl] * v[sl]))[:, None]
            m2 = self.m[None, :] + s * d1[sl][:, None]
            d2 = d[None, :] - kappa * s * s
            S2 = self.S[None, :, cols] - kappa[:, :, None] * s[:, :, None] * s[:, None, cols]
            var2 = np.maximum(d2[:, :, None] + d2[:, None, cols] - 2 * S2, 0.0)
            mean = special.ndtr(np.sqrt(lam2) * (m2[:, :, None] - m2[:, None, cols]) / np.sqrt(1 + lam2 * var2))
            out[sl] = mean.mean(axis=2).max(axis=1)
        return out

    def _ask_cei(self) -> tuple[int, int]:
        iu, ju = np.triu_indices(self.G, 1)  # alpha_CEI([x, x']) = alpha_CEI([x', x])
        if self.cei_candidates is not None and self.cei_candidates < len(iu):
            pick = self.rng.choice(len(iu), self.cei_candidates, replace=False)
            iu, ju = iu[pick], ju[pick]
        pairs = np.stack([iu, ju], axis=1)
        k = argmax_random_tie(self.cei_values(pairs), self.rng)
        return int(pairs[k, 0]), int(pairs[k, 1])


# --- IBO ----------------------------------------------------------------------------------------------

def expected_improvement(mu, sd, best: float, xi: float = 0.0) -> np.ndarray:
    """E[max(u - best - xi, 0)] for u ~ N(mu, sd^2): (mu - best - xi) Phi(z) + sd phi(z), z = (mu - best - xi) / sd;
    max(mu - best - xi, 0) where sd = 0."""
    mu = np.asarray(mu, dtype=np.float64)
    sd = np.asarray(sd, dtype=np.float64)
    gain = mu - best - xi
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(sd > 0, gain / np.where(sd > 0, sd, 1.0), 0.0)
    ei = gain * special.ndtr(z) + sd * np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    return np.where(sd > 0, np.maximum(ei, 0.0), np.maximum(gain, 0.0))


class IBO(_GPDuels):
    """Interactive Bayesian optimization (Brochu 2010; Brochu, de Freitas & Ghosh 2007) over ``grid``.

    The model is a GP on the latent utility h of the domain with the probit preference likelihood
    P(x beats x') = Phi(h(x) - h(x')) (Chu & Ghahramani 2005) and the Laplace approximation: the duel GP
    ``PreferenceGP`` with ``likelihood="probit"`` is exactly that model (its duel latent is h(x) - h(x'),
    the noise scale is absorbed into the variance of h), with the hyperparameters of ``PBO`` (ML-II every
    ``optimize_every`` duels within the same bounds). The incumbent x+ maximises the posterior mean of h;
    the acquisition is the Expected Improvement of h over mu(x+):
    EI(x) = (mu(x) - mu(x+) - xi) Phi(z) + s(x) phi(z), z = (mu(x) - mu(x+) - xi) / s(x); the next duel is
    [argmax over x != x+ of EI, x+] (greedy: a one-point improvement criterion, nothing rewards learning
    about duels elsewhere). The guess is the incumbent.

    Choices the sources leave open, as parameters:
      ``incumbent``: ``observed`` (default; Brochu's mu_max: the best posterior mean among grid points that
        took part in a duel) or ``grid`` (the best posterior mean over the whole grid).
      ``sigma``: ``marginal`` (default; s(x) the posterior sd of h(x), Brochu's EI) or ``difference``
        (s(x) the posterior sd of h(x) - h(x+), which accounts for their correlation).
      ``xi``: the exploration margin of EI (default 0).
    """

    def __init__(self, grid, rng: np.random.Generator, *, likelihood: str = "probit", variance: float = 1.0,
                 lengthscale: float = 0.2, variance_bounds=(1e-2, 1e2), lengthscale_bounds=(0.02, 1.0),
                 optimize_every: int = 5, incumbent: str = "observed", sigma: str = "marginal", xi: float = 0.0):
        self.grid = _check_grid(grid)
        super().__init__(len(self.grid))
        if likelihood not in LIKELIHOODS:
            raise ValueError(f"unknown likelihood {likelihood!r}; choose one of {', '.join(LIKELIHOODS)}")
        if incumbent not in IBO_INCUMBENTS:
            raise ValueError(f"unknown incumbent {incumbent!r}; choose one of {', '.join(IBO_INCUMBENTS)}")
        if sigma not in IBO_SIGMAS:
            raise ValueError(f"unknown sigma {sigma!r}; choose one of {', '.join(IBO_SIGMAS)}")
        if not isinstance(optimize_every, (int, np.integer)) or isinstance(optimize_every, bool) or optimize_every < 1:
            raise ValueError(f"optimize_every must be a positive integer, got {optimize_every!r}")
        try:
            xi = float(xi)
        except (TypeError, ValueError):
            raise ValueError(f"xi must be a finite number >= 0, got {xi!r}") from None
        if not (np.isfinite(xi) and xi >= 0):
            raise ValueError(f"xi must be a finite number >= 0, got {xi!r}")
        self.rng = _check_rng(rng)
        self.gp = PreferenceGP(self.grid.shape[1], likelihood, variance=variance, lengthscale=lengthscale,
                               variance_bounds=variance_bounds, lengthscale_bounds=lengthscale_bounds)
        self.optimize_every = int(optimize_every)
        self.incumbent = incumbent
        self.sigma = sigma
        self.xi = xi
        self._fitted_n = 0
        self._optimized_n = None
        self.m = self.diag = None
        self._best = None

    def fit(self) -> None:
        """Fit the GP to the duels so far; posterior mean and variance of h on the grid; the incumbent."""
        if not self._refit():
            return
        self.diag = np.maximum(np.diag(self._prior) - np.einsum("ij,ij->j", self._V, self._V), 0.0)
        if self.incumbent == "observed":
            cand = np.unique(np.concatenate([self.i, self.j]))
            self._best = int(cand[argmax_random_tie(self.m[cand], self.rng)])
        else:
            self._best = argmax_random_tie(self.m, self.rng)

    def guess(self) -> int:
        """The incumbent x+: the grid point of largest posterior mean utility (see ``incumbent``)."""
        self.fit()
        return self._best

    def ei_values(self) -> np.ndarray:
        """EI of h over mu(x+) at every grid point (x+ itself included)."""
        self.fit()
        b = self._best
        if self.sigma == "marginal":
            sd = np.sqrt(self.diag)
        else:
            cross = self._prior[:, b] - self._V.T @ self._V[:, b]
            sd = np.sqrt(np.maximum(self.diag + self.diag[b] - 2 * cross, 0.0))
        return expected_improvement(self.m, sd, float(self.m[b]), self.xi)

    def ask(self) -> tuple[int, int]:
        """The duel [argmax_{x != x+} EI(x), x+] (grid indices)."""
        self.fit()
        ei = self.ei_values()
        ei[self._best] = -np.inf
        return argmax_random_tie(ei, self.rng), self._best


# --- baselines ----------------------------------------------------------------------------------------

class RandomDuels(_DuelLog):
    """Uniformly random duels; the guess is the grid point with the most wins (paper §4, footnote 5),
    ties broken uniformly."""

    def __init__(self, G: int, rng: np.random.Generator):
        if not isinstance(G, (int, np.integer)) or G < 2:
            raise ValueError(f"G must be an integer >= 2, got {G!r}")
        super().__init__(int(G))
        self.rng = _check_rng(rng)
        self.wins = np.zeros(self.G, np.int64)

    def tell(self, i, j, y):
        super().tell(i, j, y)
        self.wins[i if y == 1 else j] += 1

    def ask(self) -> tuple[int, int]:
        return int(self.rng.integers(self.G)), int(self.rng.integers(self.G))

    def guess(self) -> int:
        return argmax_random_tie(self.wins, self.rng)


class Sparring(_DuelLog):
    """Sparring (Ailon, Karnin & Joachims 2014): a left and a right UCB1 player over the G grid arms;
    each picks its arm, the duel is played, and the winner's player gets reward 1.

    UCB1 index: mean + sqrt(``c`` ln t / n) with t the player's plays so far, unplayed arms first (in a
    random order). The guess is the arm played most by both players together (``recommend='most-played'``)
    or the arm of best pooled win rate among those played (``'best-mean'``); ties broken uniformly.
    """

    def __init__(self, G: int, rng: np.random.Generator, c: float = 2.0, recommend: str = "most-played"):
        if not isinstance(G, (int, np.integer)) or G < 2:
            raise ValueError(f"G must be an integer >= 2, got {G!r}")
        if not c > 0:
            raise ValueError(f"c must be positive, got {c!r}")
        if recommend not in ("most-played", "best-mean"):
            raise ValueError(f"recommend must be 'most-played' or 'best-mean', got {recommend!r}")
        super().__init__(int(G))
        self.rng = _check_rng(rng)
        self.c = float(c)
        self.recommend = recommend
        self.plays = np.zeros((2, self.G), np.int64)
        self.rewards = np.zeros((2, self.G), np.float64)
        self._t = np.zeros(2, np.int64)

    def _ucb(self, p: int) -> int:
        n = self.plays[p]
        if np.any(n == 0):
            return int(self.rng.choice(np.flatnonzero(n == 0)))
        index = self.rewards[p] / n + np.sqrt(self.c * math.log(max(self._t[p], 1)) / n)
        return argmax_random_tie(index, self.rng)

    def ask(self) -> tuple[int, int]:
        return self._ucb(0), self._ucb(1)

    def tell(self, i, j, y):
        """Credit both players (initial random duels count as plays of both players too)."""
        super().tell(i, j, y)
        for p, arm, r in ((0, i, y), (1, j, 1 - y)):
            self.plays[p, arm] += 1
            self.rewards[p, arm] += r
            self._t[p] += 1

    def guess(self) -> int:
        n = self.plays.sum(axis=0)
        if self.recommend == "most-played":
            rate = np.where(n > 0, self.rewards.sum(axis=0) / np.maximum(n, 1), -1.0)
            return argmax_random_tie(n + 0.5 * rate, self.rng)  # most plays, then best rate
        return argmax_random_tie(np.where(n > 0, self.rewards.sum(axis=0) / np.maximum(n, 1), -1.0), self.rng)


def make_policy(method: str, grid, rng: np.random.Generator, **options):
    """A policy by name: one of ``METHODS``; ``options`` go to ``PBO`` (or ``Sparring``, ``IBO``)."""
    grid = _check_grid(grid)
    if method == "random":
        if options:
            raise ValueError(f"random takes no options, got {sorted(options)}")
        return RandomDuels(len(grid), rng)
    if method == "sparring":
        return Sparring(len(grid), rng, **options)
    if method == "ibo":
        return IBO(grid, rng, **options)
    if method.startswith("pbo-") and method[4:] in ACQUISITIONS:
        return PBO(grid, method[4:], rng, **options)
    raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")


def run_trial(policy, duel, init_duels, n_duels: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Tell ``init_duels`` ((i, j, y) triples), then ``n_duels`` times ask, ``duel(i, j)`` and tell.

    Returns the guesses after the initial duels and after each new duel (n_duels + 1 grid indices), the
    asked duels (n_duels, 2) and the wall time in seconds.
    """
    if not isinstance(n_duels, (int, np.integer)) or n_duels < 0:
        raise ValueError(f"n_duels must be a non-negative integer, got {n_duels!r}")
    t0 = time.perf_counter()
    for i, j, y in init_duels:
        policy.tell(int(i), int(j), int(y))
    guesses = [policy.guess()]
    asked = np.zeros((n_duels, 2), np.int64)
    for t in range(n_duels):
        i, j = policy.ask()
        asked[t] = i, j
        policy.tell(i, j, duel(i, j))
        guesses.append(policy.guess())
    return np.array(guesses), asked, time.perf_counter() - t0
