"""CPPL: online preselection of k of n arms under the contextual Plackett-Luce model, with its baselines.

El Mesaoudi-Paul, Bengs & Hüllermeier, "Online Preselection with Context Information under the
Plackett-Luce Model" (arXiv:2002.04275), Algorithm 1 and §6. Every learner here runs ``replicas``
independent copies in lockstep (arrays with a leading replication axis), so the paper's 50-100
repetitions cost one vectorised loop; ``replicas=1`` is an ordinary single learner.

- ``CPPL(strategy="ucb")``: Polyak-Ruppert averaged SGD ascent on the PL log-likelihood
  (``theta_hat += gamma1 t^-alpha grad``, ``theta_bar`` the running mean), and the subset of the k largest
  upper bounds ``v_hat + c`` (§5.3). The bound uses the rank-one identity
  ``||Sigma^1/2 M Sigma^1/2||_op = exp(2 x.theta) x^T Sigma x`` (no matrix square root), so
  ``c_i = omega * v_hat_i * sqrt((2 log t + d + 2 sqrt(d log t)) * x_i^T Sigma x_i)`` with the sandwich
  ``Sigma_t = t^-1 S^-1 V S^-1 = Ssum^+ Vsum Ssum^+`` of running sums of Hessians and gradient outer
  products at the averaged iterate (a pseudo-inverse while ``Ssum`` is singular).
- ``CPPL(strategy="greedy")``: Max-Theta (top-k of ``v_hat``); ``strategy="epsilon-greedy"``: Max-Theta
  with probability ``1 - epsilon``, a uniformly random k-subset otherwise.
- ``MMPreselector``: context-free PL strengths by Hunter's MM on all feedback so far, top-k greedy.

Problems (``SyntheticProblem``: §6.1; ``AlgorithmSelectionProblem``: §6.2 on the SAPS x SWGCP data) give
contexts and true log-utilities; ``simulate`` plays a learner against a problem and returns the regret of
eq 9 per round. No poker imports.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .plackett_luce import _gumbel_top, _mm_iterate, _ordered_stats

__all__ = [
    "CPPL",
    "DEFAULT_SAPS_DIR",
    "METHODS",
    "STRATEGIES",
    "AlgorithmSelectionProblem",
    "MMPreselector",
    "SyntheticProblem",
    "compare",
    "confidence_widths",
    "confidence_widths_explicit",
    "load_saps_swgcp",
    "preprocess_instance_features",
    "simulate",
]

STRATEGIES = ("ucb", "greedy", "epsilon-greedy")
#: the methods of §6 by their plot names: CPPL's strategies and the context-free MM baseline
METHODS = {"CPPL": "ucb", "Max-Theta": "greedy", "eps-greedy": "epsilon-greedy", "MM": "mm"}
DEFAULT_SAPS_DIR = Path("/work/shared/data/cppl-saps-swgcp")
#: eigenvalues of the Hessian sum below this fraction of the largest count as zero in the pseudo-inverse
#: (numpy's default, ~d * 2e-16, lets the rounding noise of thousands of summed Hessians through as
#: huge spurious variances in directions no observation has varied)
PINV_RCOND = 1e-10


def _int(value, what: str, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo or (hi is not None and value > hi):
        allowed = f">= {lo}" if hi is None else f"in {lo}..{hi}"
        raise ValueError(f"{what} must be an integer {allowed}, got {value!r}")
    return int(value)


def _rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def _beta(t: int, d: int) -> float:
    """The chi-square/F quantile factor ``2 log t + d + 2 sqrt(d log t)`` of §5.3 (Lemma 1)."""
    lt = math.log(t)
    return 2.0 * lt + d + 2.0 * math.sqrt(d * lt)


def confidence_widths(X, theta_bar, s_sum, v_sum, t: int, omega: float = 1.0, ridge: float = 0.0) -> np.ndarray:
    """c_{t,i} of §5.3 by the closed form ``omega v_hat_i sqrt(beta_t x_i^T Sigma x_i)``; stacks allowed.

    ``X`` (..., n, d), ``theta_bar`` (..., d), ``s_sum``/``v_sum`` (..., d, d) the running sums of the
    Hessians and gradient outer products of the ``t - 1`` observations so far; ``t`` the current round
    (c = 0 at t = 1, before any observation). ``ridge``: see ``CPPL``.
    """
    X = np.asarray(X, dtype=np.float64)
    if t <= 1:
        return np.zeros(X.shape[:-1])
    sigma = _sandwich(s_sum, v_sum, ridge)
    q = np.maximum(np.einsum("...nd,...de,...ne->...n", X, sigma, X), 0.0)
    v_hat = np.exp(np.einsum("...nd,...d->...n", X, theta_bar))
    return omega * v_hat * np.sqrt(_beta(t, X.shape[-1]) * q)


def confidence_widths_explicit(X, theta_bar, hessians, gradients, t: int, omega: float = 1.0) -> np.ndarray:
    """The same c_{t,i} straight from the paper's matrices, for tests: ``S_hat``, ``V_hat`` as means,
    ``Sigma = t^-1 S^-1 V S^-1``, ``M = exp(2 x.theta) x x^T``, operator norm of ``Sigma^1/2 M Sigma^1/2``
    with a symmetric eigen-decomposition square root. ``hessians`` (t', d, d), ``gradients`` (t', d) hold
    the ``t' = t - 1`` observations so far; single problem (``X`` (n, d))."""
    X = np.asarray(X, dtype=np.float64)
    hessians = np.asarray(hessians, dtype=np.float64)
    gradients = np.asarray(gradients, dtype=np.float64)
    tt = len(hessians)
    S = hessians.mean(axis=0)
    V = np.einsum("ti,tj->ij", gradients, gradients) / tt
    S_inv = np.linalg.inv(S)
    sigma = S_inv @ V @ S_inv / tt
    sigma = (sigma + sigma.T) / 2
    w, U = np.linalg.eigh(sigma)
    root = U @ np.diag(np.sqrt(np.maximum(w, 0.0))) @ U.T
    d = X.shape[1]
    out = np.empty(len(X))
    for i, x in enumerate(X):
        M = math.exp(2.0 * float(x @ theta_bar)) * np.outer(x, x)
        info = np.linalg.norm(root @ M @ root, ord=2)
        out[i] = omega * math.sqrt(_beta(t, d) * info)
    return out


def _sandwich(s_sum, v_sum, ridge: float = 0.0):
    """``Ssum^+ Vsum Ssum^+`` (= t^-1 S_hat^-1 V_hat S_hat^-1: the counts cancel), symmetrised; with
    ``ridge > 0``, ``(Ssum - ridge I)^-1 (Vsum + ridge I) (Ssum - ridge I)^-1`` instead."""
    if ridge > 0:
        eye = np.eye(s_sum.shape[-1])
        p = np.linalg.inv(s_sum - ridge * eye)
        v_sum = v_sum + ridge * eye
    else:
        p = np.linalg.pinv(s_sum, rcond=PINV_RCOND, hermitian=True)
    sig = p @ v_sum @ p
    return (sig + np.swapaxes(sig, -1, -2)) / 2


def _topk(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest scores per row, largest first (ties to the lower index)."""
    return np.argsort(-scores, axis=-1, kind="stable")[..., :k]


def _random_subsets(rng, R: int, n: int, k: int) -> np.ndarray:
    return np.argsort(rng.random((R, n)), axis=-1)[:, :k]


def _ordered(S: np.ndarray, ranking: np.ndarray) -> np.ndarray:
    """Rows of S reordered: the ranked items first (rank order), then the others in S's order."""
    R, k = S.shape
    m = ranking.shape[1]
    if m == k:
        return ranking
    taken = (S[:, :, None] == ranking[:, None, :]).any(axis=-1)
    rest = S[~taken].reshape(R, k - m)
    return np.concatenate([ranking, rest], axis=1)


class _Learner:
    """Shared validation of the select/update protocol (shapes of contexts, subsets and rankings)."""

    def __init__(self, n, k, d, replicas):
        self.n = _int(n, "n (number of arms)", 2)
        self.k = _int(k, "k (subset size)", 1, self.n - 1)
        self.d = _int(d, "d (context dimension)", 1)
        self.replicas = _int(replicas, "replicas", 1)
        self.t = 0  # observations so far

    def _contexts(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        R, n, d = self.replicas, self.n, self.d
        if X.shape == (n, d) and R == 1:
            X = X[None]
        if X.shape != (R, n, d):
            raise ValueError(f"X must have shape (replicas, n, d) = {(R, n, d)}" + (f" or {(n, d)}" if R == 1 else "")
                             + f", got {X.shape}")
        if not np.all(np.isfinite(X)):
            raise ValueError("contexts X must be finite")
        return X

    def _feedback(self, S, ranking) -> tuple[np.ndarray, np.ndarray]:
        R, k = self.replicas, self.k
        S = np.asarray(S)
        ranking = np.asarray(ranking)
        if R == 1 and S.ndim == 1:
            S = S[None]
        if R == 1 and ranking.ndim == 1:
            ranking = ranking[None]
        if ranking.ndim == 1 and ranking.shape[0] == R and R > 1:
            ranking = ranking[:, None]
        if S.shape != (R, k) or not np.issubdtype(S.dtype, np.integer):
            raise ValueError(f"S must be integer arm indices of shape (replicas, k) = {(R, k)}, got {S.shape}")
        if ranking.ndim != 2 or ranking.shape[0] != R or not 1 <= ranking.shape[1] <= k \
                or not np.issubdtype(ranking.dtype, np.integer):
            raise ValueError(f"ranking must be integer arm indices of shape (replicas, m) with 1 <= m <= {k}, "
                             f"got {ranking.shape}")
        if S.min() < 0 or S.max() >= self.n:
            raise ValueError(f"S must hold arm indices in 0..{self.n - 1}")
        srt = np.sort(S, axis=1)
        if np.any(srt[:, 1:] == srt[:, :-1]):
            raise ValueError("each row of S must hold k distinct arms")
        member = (ranking[:, :, None] == S[:, None, :])
        if not np.all(member.any(axis=-1)):
            raise ValueError("every ranked arm must be a member of that row's subset S")
        rs = np.sort(ranking, axis=1)
        if np.any(rs[:, 1:] == rs[:, :-1]):
            raise ValueError("a ranking must not repeat an arm")
        return S.astype(np.int64), ranking.astype(np.int64)


class CPPL(_Learner):
    """Algorithm 1 (CPPL) and the Max-Theta / epsilon-greedy baselines of §6.1, ``replicas`` copies at once.

    Parameters
    ----------
    n, k, d : arms, subset size (``1 <= k < n``), context dimension.
    strategy : "ucb" (CPPL), "greedy" (Max-Theta) or "epsilon-greedy".
    gamma1, alpha : SGD step ``gamma1 * t**-alpha`` (paper: 2 and 0.6; alpha in (1/2, 1)).
    omega : width multiplier of the bound (paper: 1).
    epsilon : exploration probability of "epsilon-greedy" (paper: 0.1).
    theta0 : initial ``theta_hat`` (d,) or (replicas, d); default: uniform on [0, 1]^d from ``rng``
        (the paper says "randomly" only).
    ridge : 0 (default) inverts the Hessian sum by a pseudo-inverse while it is singular, as the paper's
        ``S_hat^-1`` read literally allows; the sandwich then has zero variance in every direction no
        observation has varied, so CPPL never explores there (what happens on the §6.2 data, where the
        contexts of the chosen arms differ only along a few directions). ``ridge > 0`` (our addition, not
        in the paper) adds a Gaussian prior of precision ``ridge``: ``(Ssum - ridge I)^-1 (Vsum + ridge I)
        (Ssum - ridge I)^-1``, i.e. variance ``1/ridge`` in unexplored directions.
    rng : ``numpy.random.Generator`` for the initialisation and the epsilon-greedy choices.

    Protocol: ``S = select(X)`` with ``X`` (replicas, n, d), then ``update(X, S, ranking)`` with the
    observed top-m ranking of each row of ``S`` (m = 1: winner feedback; m = k: full ranking).
    Gradients and Hessians for the bound are taken at the averaged iterate after each update (the
    paper's ``grad L(theta_bar_s | Y_s, S_s, X_s)``), and only for strategy "ucb".
    """

    def __init__(self, n, k, d, *, strategy: str = "ucb", gamma1: float = 2.0, alpha: float = 0.6,
                 omega: float = 1.0, epsilon: float = 0.1, replicas: int = 1, theta0=None,
                 ridge: float = 0.0, rng: np.random.Generator | None = None):
        super().__init__(n, k, d, replicas)
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
        if not (np.isfinite(gamma1) and gamma1 > 0):
            raise ValueError(f"gamma1 must be > 0, got {gamma1!r}")
        if not 0.5 < alpha < 1:
            raise ValueError(f"alpha must be in (1/2, 1) (§5.3), got {alpha!r}")
        if not (np.isfinite(omega) and omega >= 0):
            raise ValueError(f"omega must be >= 0, got {omega!r}")
        if not 0 <= epsilon <= 1:
            raise ValueError(f"epsilon must be in [0, 1], got {epsilon!r}")
        if not (np.isfinite(ridge) and ridge >= 0):
            raise ValueError(f"ridge must be >= 0, got {ridge!r}")
        self.ridge = float(ridge)
        self.rng = _rng(rng if rng is not None else np.random.default_rng())
        self.strategy, self.gamma1, self.alpha = strategy, float(gamma1), float(alpha)
        self.omega, self.epsilon = float(omega), float(epsilon)
        R, d = self.replicas, self.d
        if theta0 is None:
            theta0 = self.rng.random((R, d))
        theta0 = np.asarray(theta0, dtype=np.float64)
        if theta0.shape == (d,):
            theta0 = np.broadcast_to(theta0, (R, d))
        if theta0.shape != (R, d) or not np.all(np.isfinite(theta0)):
            raise ValueError(f"theta0 must be finite with shape ({d},) or ({R}, {d}), got {theta0.shape}")
        self.theta_hat = theta0.copy()
        self.theta_bar = theta0.copy()
        self.s_sum = np.zeros((R, d, d))
        self.v_sum = np.zeros((R, d, d))

    @property
    def name(self) -> str:
        return {"ucb": "CPPL", "greedy": "Max-Theta", "epsilon-greedy": "eps-greedy"}[self.strategy]

    def log_scores(self, X) -> np.ndarray:
        """log(v_hat + c) per arm (replicas, n); the log form never overflows and ranks like v_hat + c."""
        X = self._contexts(X)
        u = np.einsum("rnd,rd->rn", X, self.theta_bar)
        if self.strategy != "ucb" or self.t == 0 or self.omega == 0:
            return u
        sigma = _sandwich(self.s_sum, self.v_sum, self.ridge)
        q = np.maximum(np.einsum("rnd,rde,rne->rn", X, sigma, X), 0.0)
        return u + np.log1p(self.omega * np.sqrt(_beta(self.t + 1, self.d) * q))

    def widths(self, X) -> np.ndarray:
        """The confidence widths c_{t,i} (replicas, n) of the coming round t = observations + 1."""
        X = self._contexts(X)
        return confidence_widths(X, self.theta_bar, self.s_sum, self.v_sum, self.t + 1, self.omega, self.ridge)

    def select(self, X) -> np.ndarray:
        """The k arms (replicas, k) with the largest ``v_hat + c`` (or ``v_hat``), best first."""
        S = _topk(self.log_scores(X), self.k)
        if self.strategy == "epsilon-greedy":
            explore = self.rng.random(self.replicas) < self.epsilon
            if explore.any():
                S[explore] = _random_subsets(self.rng, int(explore.sum()), self.n, self.k)
        return S

    def update(self, X, S, ranking) -> None:
        """One SGD ascent step on the observed top-m rankings, the Polyak-Ruppert average, and the sums."""
        X = self._contexts(X)
        S, ranking = self._feedback(S, ranking)
        m = ranking.shape[1]
        order = _ordered(S, ranking)
        Xo = np.take_along_axis(X, order[:, :, None], axis=1)
        self.t += 1
        t = self.t
        g = _ordered_stats(self.theta_hat, Xo, m, "g")
        self.theta_hat = self.theta_hat + self.gamma1 * t ** -self.alpha * g
        self.theta_bar = ((t - 1) * self.theta_bar + self.theta_hat) / t
        if self.strategy == "ucb":
            gb, hb = _ordered_stats(self.theta_bar, Xo, m, "gh")
            self.s_sum += hb
            self.v_sum += gb[:, :, None] * gb[:, None, :]


class MMPreselector(_Learner):
    """Context-free PL baseline (§6.1): strengths by Hunter's MM on all rankings so far, top-k greedy.

    The strengths are refitted with ``mm_iters`` MM steps warm-started from the last fit once
    ``max(refit_every, refit_growth * t)`` rounds have passed since the last refit (so about
    ``log(T) / refit_growth`` refits in all, each over the whole history: the cost stays near linear in T;
    ``refit_every=1, refit_growth=0`` and many ``mm_iters`` is the exact per-round MLE; these are our
    choices, the paper gives none). A Gamma(``shape``, ``rate``) prior keeps never-won arms finite; unplayed arms keep strength
    ``(shape-1)/rate`` = 1 by default, so they are tried before arms that keep losing.
    """

    def __init__(self, n, k, d, *, replicas: int = 1, horizon: int = 10_000, refit_every: int = 10,
                 refit_growth: float = 0.05, mm_iters: int = 5, shape: float = 2.0, rate: float = 1.0, rng: np.random.Generator | None = None):
        super().__init__(n, k, d, replicas)
        self.horizon = _int(horizon, "horizon", 1)
        self.refit_every = _int(refit_every, "refit_every", 1)
        self.mm_iters = _int(mm_iters, "mm_iters", 1)
        if not 0 <= refit_growth <= 1:
            raise ValueError(f"refit_growth must be in [0, 1], got {refit_growth!r}")
        self.refit_growth = float(refit_growth)
        self._last_fit = 0
        if not (shape >= 1 and rate > 0):
            raise ValueError(f"need shape >= 1 and rate > 0, got shape={shape}, rate={rate}")
        self.shape, self.rate = float(shape), float(rate)
        self.rng = _rng(rng if rng is not None else np.random.default_rng())
        self.gamma = np.full((self.replicas, self.n), (self.shape - 1) / self.rate if shape > 1 else 1.0)
        self._sets = np.zeros((self.replicas, self.horizon, self.k), dtype=np.int64)
        self._m = None

    name = "MM"

    def select(self, X) -> np.ndarray:
        self._contexts(X)
        # ties (e.g. unplayed arms) broken at random so that the first rounds explore
        jitter = self.rng.random((self.replicas, self.n)) * 1e-12
        return _topk(np.log(self.gamma) + jitter, self.k)

    def update(self, X, S, ranking) -> None:
        self._contexts(X)
        S, ranking = self._feedback(S, ranking)
        m = ranking.shape[1]
        if self._m is None:
            self._m = m
        elif m != self._m:
            raise ValueError(f"MMPreselector needs the same ranking length every round ({self._m}), got {m}")
        if self.t >= self.horizon:
            raise ValueError(f"more than horizon={self.horizon} updates; raise horizon")
        self._sets[:, self.t] = _ordered(S, ranking)
        self.t += 1
        if self.t - self._last_fit >= max(self.refit_every, self.refit_growth * self.t):
            self._last_fit = self.t
            self.gamma = _mm_iterate(self.gamma, self._sets[:, :self.t], m, self.n, self.mm_iters,
                                     self.shape, self.rate)


# ------------------------------------------------------------------------------------------- problems

class SyntheticProblem:
    """§6.1: theta* ~ U[0,1]^d per replication, fresh contexts x_{t,i} ~ U[0,1]^d every round.

    ``context_law`` "uniform" is that reading of "sampled at random from the unit interval resp. unit
    square"; the contexts are drawn from this problem's own generator, so every learner given a problem
    built from the same seed sees the same theta* and the same contexts (common random numbers).
    """

    def __init__(self, n: int, d: int, replicas: int, rng: np.random.Generator):
        self.n = _int(n, "n", 2)
        self.d = _int(d, "d", 1)
        self.replicas = _int(replicas, "replicas", 1)
        self.rng = _rng(rng)
        self.theta_star = self.rng.random((self.replicas, self.d))

    def contexts(self, t: int) -> np.ndarray:
        self._X = self.rng.random((self.replicas, self.n, self.d))
        return self._X

    def log_utilities(self, t: int) -> np.ndarray:
        """log v*_{t,i} = x_{t,i} . theta* for the contexts of round t (call ``contexts(t)`` first)."""
        return np.einsum("rnd,rd->rn", self._X, self.theta_star)


class AlgorithmSelectionProblem:
    """§6.2: a random order of the instances per replication (without replacement), contexts
    ``kron(instance features, arm features)``, true log-utilities ``-lam * runtime`` (v = exp(-10 R)).

    ``arm_scaling``: "raw" (default) uses the parametrisations as given (the paper's Table 1 values; §6.2
    states the [0, 1] normalisation for the instance features only); "minmax" scales each parametrisation
    feature to [0, 1] over the arms, the reading in which the normalisation covers the arm features too.
    """

    def __init__(self, instance_features, arm_features, runtimes, replicas: int, rng: np.random.Generator,
                 *, lam: float = 10.0, arm_scaling: str = "raw"):
        F = np.asarray(instance_features, dtype=np.float64)
        P = np.asarray(arm_features, dtype=np.float64)
        Rt = np.asarray(runtimes, dtype=np.float64)
        if F.ndim != 2 or P.ndim != 2 or Rt.shape != (F.shape[0], P.shape[0]):
            raise ValueError(f"need instance_features (N, f), arm_features (n, p), runtimes (N, n); got "
                             f"{F.shape}, {P.shape}, {Rt.shape}")
        if not (np.all(np.isfinite(F)) and np.all(np.isfinite(P)) and np.all(np.isfinite(Rt))):
            raise ValueError("features and runtimes must be finite")
        if not lam > 0:
            raise ValueError(f"lam must be > 0, got {lam!r}")
        if arm_scaling not in ("raw", "minmax"):
            raise ValueError(f"arm_scaling must be 'raw' or 'minmax', got {arm_scaling!r}")
        if arm_scaling == "minmax":
            lo, hi = P.min(axis=0), P.max(axis=0)
            P = (P - lo) / np.where(hi > lo, hi - lo, 1.0)
        self.arm_scaling = arm_scaling
        self.F, self.P, self.runtimes, self.lam = F, P, Rt, float(lam)
        self.n, self.d = P.shape[0], F.shape[1] * P.shape[1]
        self.replicas = _int(replicas, "replicas", 1)
        self.rng = _rng(rng)
        self.order = np.stack([self.rng.permutation(len(F)) for _ in range(self.replicas)])
        self.horizon = len(F)

    def contexts(self, t: int) -> np.ndarray:
        if not 1 <= t <= self.horizon:
            raise ValueError(f"round t must be in 1..{self.horizon} (one instance a round), got {t}")
        self._inst = self.order[:, t - 1]
        f = self.F[self._inst]  # (R, f)
        return (f[:, None, :, None] * self.P[None, :, None, :]).reshape(self.replicas, self.n, self.d)

    def log_utilities(self, t: int) -> np.ndarray:
        return -self.lam * self.runtimes[self._inst]


def simulate(learner, problem, T: int, m: int, rng: np.random.Generator, *, progress=None) -> np.ndarray:
    """Play ``T`` rounds; return the per-round regret (replicas, T) of eq 9: ``1 - max_{S} v* / max v*``.

    Feedback is a PL top-``m`` ranking of the chosen subset under the problem's true utilities (m = 1:
    winner, m = k: full ranking), drawn with ``rng``.
    """
    T = _int(T, "T", 1)
    m = _int(m, "m (ranking length)", 1, learner.k)
    rng = _rng(rng)
    if (learner.n, learner.d, learner.replicas) != (problem.n, problem.d, problem.replicas):
        raise ValueError(f"learner (n, d, replicas) = {(learner.n, learner.d, learner.replicas)} does not match "
                         f"the problem's {(problem.n, problem.d, problem.replicas)}")
    regret = np.empty((problem.replicas, T))
    for t in range(1, T + 1):
        X = problem.contexts(t)
        logv = problem.log_utilities(t)
        S = learner.select(X)
        chosen = np.take_along_axis(logv, S, axis=1)
        regret[:, t - 1] = -np.expm1(chosen.max(axis=1) - logv.max(axis=1))
        pos = _gumbel_top(chosen, m, rng)
        learner.update(X, S, np.take_along_axis(S, pos, axis=1))
        if progress is not None:
            progress(t)
    return regret


# --------------------------------------------------------------------------------- SAPS x SWGCP data

def load_saps_swgcp(folder=DEFAULT_SAPS_DIR) -> tuple[np.ndarray, list[str], np.ndarray, np.ndarray]:
    """Read the §6.2 data: instance features (5000, 28), their names, SAPS parametrisations (20, 4) and
    runtimes (5000, 20). ``ValueError`` naming the folder if it or a file is missing or malformed.
    Plain text parsing only (CSV and a JSON-style list); nothing is evaluated."""
    import csv
    import json

    folder = Path(folder)
    files = {"features": "Reduced_Features_SWGCP_only_5000.csv", "runtimes": "cpu_times_inst_param.csv",
             "params": "Random_Parameters_SAPS.txt"}
    for f in files.values():
        if not (folder / f).is_file():
            raise ValueError(f"{folder}: missing {f} (the SAPS x SWGCP data folder of the CPPL paper)")
    with open(folder / files["features"], newline="") as fh:
        rows = list(csv.reader(fh))
    names = rows[0][1:]
    feat_inst = [r[0] for r in rows[1:]]
    feats = np.array([[float(v) for v in r[1:]] for r in rows[1:]])
    with open(folder / files["runtimes"], newline="") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))
    run_inst = [r[0] for r in rows[1:]]
    runtimes = np.array([[float(v) for v in r[1:]] for r in rows[1:]])
    params = np.array(json.loads((folder / files["params"]).read_text()), dtype=np.float64)
    if feat_inst != run_inst:
        raise ValueError(f"{folder}: the instance names of the feature and runtime files differ")
    if params.ndim != 2 or runtimes.shape != (len(feats), len(params)):
        raise ValueError(f"{folder}: runtimes {runtimes.shape} do not match {len(feats)} instances x "
                         f"{len(params)} parametrisations")
    return feats, names, params, runtimes


def preprocess_instance_features(F, *, var_threshold: float = 0.01, corr_threshold: float = 0.95,
                                 drop: str = "mean-corr") -> tuple[np.ndarray, np.ndarray]:
    """§6.2 preprocessing: min-max to [0, 1], drop features of variance < ``var_threshold``, then greedily
    drop one of the two most correlated remaining features while |corr| > ``corr_threshold``.

    The paper does not say which of the pair goes; ``drop="mean-corr"`` removes the one with the larger
    mean |correlation| to the other remaining features, ``drop="later"`` the later column. Returns the
    kept features and their column indices. Constant columns have variance 0 and go in the first step.
    """
    if drop not in ("mean-corr", "later"):
        raise ValueError(f"drop must be 'mean-corr' or 'later', got {drop!r}")
    F = np.asarray(F, dtype=np.float64)
    lo, hi = F.min(axis=0), F.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    G = (F - lo) / span
    keep = [j for j in range(G.shape[1]) if G[:, j].var() >= var_threshold]
    while len(keep) > 1:
        C = np.abs(np.corrcoef(G[:, keep], rowvar=False))
        np.fill_diagonal(C, 0.0)
        a, b = np.unravel_index(np.argmax(C), C.shape)
        if C[a, b] <= corr_threshold:
            break
        a, b = min(a, b), max(a, b)
        if drop == "later":
            gone = b
        else:
            gone = a if C[a].mean() > C[b].mean() else b
        keep.pop(gone)
    return G[:, keep], np.array(keep)


def compare(make_problem, n: int, k: int, d: int, replicas: int, T: int, m: int, seed, *,
            methods=tuple(METHODS), learner_options: dict | None = None, progress=None) -> dict[str, np.ndarray]:
    """Per-round regret (replicas, T) of each method on the same problems (common random numbers).

    ``make_problem(rng)`` builds the problem; every method gets one built from the same generator seed
    (same theta*, contexts or instance order), its own initialisation stream and its own feedback stream,
    all derived from ``seed`` (an int or a sequence of ints) by ``numpy.random.SeedSequence`` entropy.
    ``learner_options`` go to every ``CPPL`` (e.g. ``gamma1``, ``omega``).
    """
    seed = [int(s) for s in np.atleast_1d(seed)]
    for name in methods:
        if name not in METHODS:
            raise ValueError(f"unknown method {name!r}; allowed: {tuple(METHODS)}")
    out = {}
    for name in methods:
        problem = make_problem(np.random.default_rng([*seed, 0]))
        init = np.random.default_rng([*seed, 1])
        if METHODS[name] == "mm":
            learner = MMPreselector(n, k, d, replicas=replicas, horizon=T, rng=init)
        else:
            learner = CPPL(n, k, d, strategy=METHODS[name], replicas=replicas, rng=init, **(learner_options or {}))
        out[name] = simulate(learner, problem, T, m, np.random.default_rng([*seed, 2]))
        if progress is not None:
            progress(name)
    return out
