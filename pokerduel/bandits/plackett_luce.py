"""The contextual Plackett-Luce model of CPPL (El Mesaoudi-Paul, Bengs & Hüllermeier 2020, eqs 3-7, App. A).

Arm ``i`` of a context ``X`` (rows ``x_i``) has utility ``v_i = exp(theta . x_i)``. Feedback on a chosen
subset ``S`` is its top-``m`` ranking: the first ``m`` items of a PL ranking of ``S``. ``m = 1`` is the paper's
winner feedback (eq 6), ``m = |S|`` (or ``|S| - 1``, the same information) its partial-ranking feedback
(eq 4); any ``m`` in between is top-m feedback with the same formulas. Every quantity is a sum over the
``m`` stages of softmax terms over the items not yet ranked (the suffix sums a_i, b_i, c_i of Appendix A):

    log L = sum_i [u_{sigma(i)} - log sum_{l >= i} exp(u_{sigma(l)})],   u = X theta
    grad  = sum_i [x_{sigma(i)} - mean_i],        mean_i = a_i / b_i  (softmax mean over the suffix)
    hess  = -sum_i cov_i = sum_i [a_i a_i^T / b_i^2 - c_i / b_i]

computed with shifted log-sum-exp so that large utilities never overflow. The internal functions with a
leading underscore work on stacks (any leading shape, e.g. one problem per replication); the public ones
validate a single problem. No poker imports.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

__all__ = [
    "brute_force_probability",
    "gradient",
    "hessian",
    "log_likelihood",
    "loglik_grad_hess",
    "mm_fit",
    "ordered_items",
    "ranking_probability",
    "sample_top",
]


# --------------------------------------------------------------------------------------------- kernels

def _stage_weights(u: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Softmax weights of the ``m`` stages over their suffixes and each stage's log-sum-exp.

    ``u`` (..., s) holds the utilities' logs of the ordered items (ranked items first). Returns
    ``w`` (..., m, s) with ``w[..., i, l] = 0`` for ``l < i``, and ``lse`` (..., m).
    """
    s = u.shape[-1]
    mask = np.arange(s)[None, :] >= np.arange(m)[:, None]  # (m, s): item l is still unranked at stage i
    logits = np.where(mask, u[..., None, :], -np.inf)
    top = logits.max(axis=-1, keepdims=True)
    e = np.exp(logits - top)
    tot = e.sum(axis=-1)
    lse = np.log(tot) + top[..., 0]
    return e / tot[..., None], lse


def _ordered_stats(theta: np.ndarray, Xo: np.ndarray, m: int, need: str = "lgh"):
    """Log-likelihood, gradient and Hessian of top-``m`` rankings for stacks of ordered subsets.

    ``theta`` (..., d), ``Xo`` (..., s, d) with the ``m`` ranked items first (best first) and the rest of
    the subset after them in any order. ``need`` picks the outputs ("l", "g", "h" in that order).
    """
    u = np.einsum("...sd,...d->...s", Xo, theta)
    m = min(m, max(Xo.shape[-2] - 1, 1))  # a full ranking's last stage has one item: exactly 0, skipped
    w, lse = _stage_weights(u, m)
    out = []
    if "l" in need:
        out.append((u[..., :m] - lse).sum(axis=-1))
    if "g" in need or "h" in need:
        mu = w @ Xo  # (..., m, d): softmax mean of every stage
        if "g" in need:
            out.append(Xo[..., :m, :].sum(axis=-2) - mu.sum(axis=-2))
        if "h" in need:
            W = w.sum(axis=-2)  # (..., s): total weight of each item over the stages
            second = np.swapaxes(Xo * W[..., None], -1, -2) @ Xo
            out.append(np.swapaxes(mu, -1, -2) @ mu - second)
    return out[0] if len(out) == 1 else tuple(out)


def _gumbel_top(logits: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
    """Positions (..., m) of a PL top-m ranking of the last axis: sort of logits + Gumbel noise (exact)."""
    keys = logits + rng.gumbel(size=logits.shape)
    return np.argsort(-keys, axis=-1, kind="stable")[..., :m]


# ------------------------------------------------------------------------------------------ validation

def _check_problem(theta, X, subset, ranking):
    theta = np.asarray(theta, dtype=np.float64)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"X must be a 2-d array (n arms, d features), got shape {X.shape}")
    n, d = X.shape
    if theta.shape != (d,):
        raise ValueError(f"theta must have shape ({d},) to match X's {d} features, got {theta.shape}")
    if not (np.all(np.isfinite(theta)) and np.all(np.isfinite(X))):
        raise ValueError("theta and X must be finite")
    order = ordered_items(n, subset, ranking)
    return theta, X[order], len(np.atleast_1d(ranking))


def ordered_items(n: int, subset, ranking) -> np.ndarray:
    """The subset's items with the ranked ones first (in rank order), the others after them in subset order.

    ``subset``: distinct arm indices in ``0..n-1`` (at least 2); ``ranking``: the observed top-m of the
    subset, best first (``1 <= m <= len(subset)``). Raises ``ValueError`` on anything else.
    """
    sub = np.asarray(subset)
    rk = np.atleast_1d(np.asarray(ranking))
    if sub.ndim != 1 or sub.size < 2 or not np.issubdtype(sub.dtype, np.integer):
        raise ValueError(f"subset must be a 1-d array of at least 2 arm indices, got {subset!r}")
    if np.any(sub < 0) or np.any(sub >= n) or len(set(sub.tolist())) != sub.size:
        raise ValueError(f"subset must hold distinct arm indices in 0..{n - 1}, got {sub.tolist()}")
    if rk.ndim != 1 or rk.size < 1 or rk.size > sub.size or not np.issubdtype(rk.dtype, np.integer):
        raise ValueError(f"ranking must be 1 to {sub.size} arm indices of the subset, best first, got {ranking!r}")
    if len(set(rk.tolist())) != rk.size or not set(rk.tolist()) <= set(sub.tolist()):
        raise ValueError(f"ranking must hold distinct members of the subset {sub.tolist()}, got {rk.tolist()}")
    rest = [i for i in sub.tolist() if i not in set(rk.tolist())]
    return np.array(rk.tolist() + rest, dtype=np.int64)


# ------------------------------------------------------------------------------------------ public API

def log_likelihood(theta, X, subset, ranking) -> float:
    """Log-probability (eqs 5 and 7) of observing ``ranking`` (top-m, best first) when ``subset`` is shown."""
    theta, Xo, m = _check_problem(theta, X, subset, ranking)
    return float(_ordered_stats(theta, Xo, m, "l"))


def gradient(theta, X, subset, ranking) -> np.ndarray:
    """Gradient in theta of ``log_likelihood`` (Appendix A)."""
    theta, Xo, m = _check_problem(theta, X, subset, ranking)
    return _ordered_stats(theta, Xo, m, "g")


def hessian(theta, X, subset, ranking) -> np.ndarray:
    """Hessian in theta of ``log_likelihood`` (Appendix A); negative semi-definite (minus softmax covariances)."""
    theta, Xo, m = _check_problem(theta, X, subset, ranking)
    return _ordered_stats(theta, Xo, m, "h")


def loglik_grad_hess(theta, X, subset, ranking):
    """``(log_likelihood, gradient, hessian)`` in one pass."""
    theta, Xo, m = _check_problem(theta, X, subset, ranking)
    ll, g, h = _ordered_stats(theta, Xo, m, "lgh")
    return float(ll), g, h


def ranking_probability(theta, X, subset, ranking) -> float:
    """P(ranking | subset, X) under the contextual PL model (eq 4 for full rankings, eq 6 for winners)."""
    return math.exp(log_likelihood(theta, X, subset, ranking))


def brute_force_probability(theta, X, subset, ranking) -> float:
    """P(top-m = ranking) by enumerating every full ranking of the subset and multiplying eq 4's factors.

    Independent of the stage formulas above (no suffix sums, no log-sum-exp); for tests on tiny subsets.
    """
    theta = np.asarray(theta, dtype=np.float64)
    X = np.asarray(X, dtype=np.float64)
    sub = [int(i) for i in subset]
    rk = [int(i) for i in np.atleast_1d(ranking)]
    if len(sub) > 8:
        raise ValueError(f"brute force enumerates |S|! rankings; allowed |S| <= 8, got {len(sub)}")
    v = {i: math.exp(float(X[i] @ theta)) for i in sub}
    total = 0.0
    for perm in itertools.permutations(sub):
        if list(perm[:len(rk)]) != rk:
            continue
        p = 1.0
        for pos in range(len(perm)):
            p *= v[perm[pos]] / sum(v[j] for j in perm[pos:])
        total += p
    return total


def sample_top(logits, m: int, rng: np.random.Generator) -> np.ndarray:
    """Positions (into the last axis of ``logits`` = log-utilities) of a PL top-``m`` ranking, best first.

    Uses the Gumbel-max construction (argsort of log v + Gumbel noise is an exact PL ranking); works on
    stacks: ``logits`` (..., s) gives (..., m).
    """
    logits = np.asarray(logits, dtype=np.float64)
    if logits.ndim < 1 or logits.shape[-1] < 1:
        raise ValueError(f"logits must have at least one item on the last axis, got shape {logits.shape}")
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or not 1 <= m <= logits.shape[-1]:
        raise ValueError(f"m must be an integer in 1..{logits.shape[-1]}, got {m!r}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    if np.any(np.isnan(logits)) or np.any(logits == np.inf):
        raise ValueError("logits must not be NaN or +inf")
    return _gumbel_top(logits, int(m), rng)


# ------------------------------------------------------------------------------------------ MM (Hunter)

def _mm_iterate(gamma, sets, m, n, iters, shape, rate):
    """``iters`` MM steps on stacks: ``gamma`` (R, n), ``sets`` (R, N, s) ordered items (ranked first)."""
    R, N, s = sets.shape
    stages = min(m, s - 1)  # the last stage of a full ranking has one item and no information
    flat = (sets + (np.arange(R) * n)[:, None, None]).reshape(-1)
    wins = np.bincount(flat.reshape(R, N, s)[:, :, :stages].reshape(-1), minlength=R * n).reshape(R, n)
    for _ in range(iters):
        g = np.take_along_axis(gamma, sets.reshape(R, -1), axis=1).reshape(R, N, s)
        suffix = np.cumsum(g[..., ::-1], axis=-1)[..., ::-1][..., :stages]  # (R, N, stages)
        inv = np.cumsum(1.0 / suffix, axis=-1)  # item at position l is in stages 0..min(l, stages-1)
        pos = np.minimum(np.arange(s), stages - 1)
        contrib = inv[..., pos]  # (R, N, s)
        denom = np.bincount(flat, weights=contrib.reshape(-1), minlength=R * n).reshape(R, n)
        gamma = (shape - 1.0 + wins) / (rate + denom)
    return gamma


def mm_fit(n: int, sets, m: int, *, iters: int = 100, shape: float = 2.0, rate: float = 1.0,
           gamma0=None) -> np.ndarray:
    """Context-free PL strengths from top-m rankings by Hunter's (2004) MM algorithm, with a Gamma prior.

    ``sets`` (N, s): each row one observation, its ranked items first (best first) then the rest of the
    shown subset. The update is the MAP form of Caron & Doucet (2012),
    ``gamma_i <- (shape - 1 + w_i) / (rate + sum over stages containing i of 1 / sum_{l in stage} gamma_l)``,
    where ``w_i`` counts the stages item ``i`` won; ``shape = 1, rate = 0`` is Hunter's plain MM (it needs
    every item to have won once). The prior keeps never-won items finite (the choice is ours: the paper
    does not say how its MM baseline handles them).
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"n must be an integer >= 2, got {n!r}")
    sets = np.asarray(sets)
    if sets.ndim != 2 or sets.shape[1] < 2 or not np.issubdtype(sets.dtype, np.integer):
        raise ValueError(f"sets must be an integer array (observations, subset size >= 2), got shape {sets.shape}")
    if sets.size and (sets.min() < 0 or sets.max() >= n):
        raise ValueError(f"sets must hold arm indices in 0..{n - 1}")
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or not 1 <= m <= sets.shape[1]:
        raise ValueError(f"m must be an integer in 1..{sets.shape[1]}, got {m!r}")
    if not (shape >= 1.0 and rate >= 0.0):
        raise ValueError(f"need shape >= 1 and rate >= 0 (Gamma prior), got shape={shape}, rate={rate}")
    if isinstance(iters, bool) or not isinstance(iters, (int, np.integer)) or iters < 1:
        raise ValueError(f"iters must be a positive integer, got {iters!r}")
    gamma = np.ones(n) if gamma0 is None else np.asarray(gamma0, dtype=np.float64).copy()
    if gamma.shape != (n,) or np.any(gamma <= 0):
        raise ValueError(f"gamma0 must be {n} positive numbers")
    out = _mm_iterate(gamma[None], sets[None].astype(np.int64), int(m), n, int(iters), float(shape), float(rate))[0]
    if rate == 0.0:
        out = out / out.sum()
    return out
