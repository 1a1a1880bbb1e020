"""Candidates, fixed opponents and the weighted score of eq 1: which pairs are played and how they count.

The core paper defines an alternative's score as ``S_i = sum_{j != i} w_ij mu_ij`` (eq 1) and studies
only ``w_ij = 1`` (the Borda score). Here the oracle's alternatives ``0 .. K_c - 1`` are **candidates**,
ranked and selected, and ``K_c .. K - 1`` are **fixed opponents** (training bots, frozen champions):
they have no score, are never selected, and two of them never play each other. ``w_ij`` is the weight
of candidate ``i``'s mean result against alternative ``j``.

A pair is **active** when one of its ends is a candidate that weights the other end: ``w_ij > 0`` for a
candidate ``i``. Only active pairs are ever sampled (the others enter no score). Since candidates come
first, the lower end ``pi[p]`` of an active pair is always a candidate.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .problems import pair_arrays


class ScoreWeights(NamedTuple):
    """The validated weighting of a selector: candidates, ``w``, and the active pairs.

    ``matrix`` is ``K x K`` with ``matrix[i, j] = w_ij`` (rows of fixed opponents and the diagonal 0);
    ``column`` is the vector ``v`` with ``w_ij = v_j`` for every candidate ``i != j`` when the weights
    have that form (a weight per opponent, the same for every candidate), else ``None``. Per active pair
    ``p`` (row-major ``pi[p] < pj[p]``): ``wa[p] = w[pi, pj]`` (the lower end's weight) and ``wb[p] =
    w[pj, pi]`` (0 when ``pj`` is a fixed opponent). ``pidx`` maps ``{i, j}`` to its active pair index
    (``-1`` for inactive pairs and the diagonal); ``degree[i]`` counts the active pairs of ``i``.
    """

    K: int
    candidates: int
    matrix: np.ndarray
    column: np.ndarray | None
    pi: np.ndarray
    pj: np.ndarray
    wa: np.ndarray
    wb: np.ndarray
    pidx: np.ndarray
    degree: np.ndarray

    @property
    def all_pairs(self) -> bool:
        """Whether every pair of the ``K`` alternatives is active."""
        return self.pi.size == self.K * (self.K - 1) // 2


def _check_candidates(candidates, K: int) -> int:
    if isinstance(candidates, bool) or not isinstance(candidates, (int, np.integer)) or not 2 <= candidates <= K:
        raise ValueError(f"candidates (the number K_c of alternatives 0..K_c-1 that are ranked; the rest are fixed "
                         f"opponents) must be an integer with 2 <= K_c <= K = {K}, got {candidates!r}")
    return int(candidates)


def _as_float_array(weights) -> np.ndarray:
    try:
        return np.array(weights, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"weights must be a numeric array (a length-K vector or a K x K matrix), got "
                         f"{type(weights).__name__}") from None


def resolve_weights(K: int, candidates=None, weights=None) -> ScoreWeights | None:
    """Validate ``candidates`` and ``weights`` for ``K`` alternatives; ``None`` when both are ``None`` (every
    alternative a candidate, Borda score: the selectors' plain mode).

    ``candidates``: ``K_c``, the alternatives ``0 .. K_c - 1`` are ranked (default: all ``K``).
    ``weights``: ``None`` (``w_ij = 1`` for every candidate ``i`` and ``j != i``), a length-``K`` vector ``v``
    (``w_ij = v_j``: the weight of a result against ``j``, the same for every candidate) or a ``K x K``
    matrix ``w`` (row ``i`` candidate ``i``'s weights; the diagonal and the rows of fixed opponents must be
    0). Weights are finite and ``>= 0``, and every candidate has a positive total weight.
    """
    if candidates is None and weights is None:
        return None
    Kc = K if candidates is None else _check_candidates(candidates, K)
    cand = np.arange(K) < Kc
    if weights is None:
        w = np.zeros((K, K))
        w[:Kc] = 1.0
        np.fill_diagonal(w, 0.0)
        column = np.ones(K)
    else:
        a = _as_float_array(weights)
        if a.ndim == 1:
            if a.shape != (K,):
                raise ValueError(f"a weight vector must have one entry per alternative (length K = {K}), got "
                                 f"length {a.size}")
        elif a.shape != (K, K):
            raise ValueError(f"weights must be a length-K vector or a K x K matrix (K = {K}), got shape {a.shape}")
        if not np.all(np.isfinite(a)):
            raise ValueError("weights must be finite")
        if np.any(a < 0):
            raise ValueError("weights must be >= 0")
        if a.ndim == 1:
            column = a
            w = np.zeros((K, K))
            w[:Kc] = a[None, :]
            np.fill_diagonal(w, 0.0)
        else:
            if np.any(np.diag(a) != 0):
                raise ValueError("the diagonal of a weight matrix must be 0 (an alternative does not play itself)")
            if np.any(a[Kc:] != 0):
                raise ValueError(f"rows {Kc}..{K - 1} of the weight matrix (the fixed opponents) must be 0: a fixed "
                                 "opponent has no score of its own, and two fixed opponents never play")
            w = a
            column = _column_form(w, Kc)
    total = w[:Kc].sum(axis=1)
    if np.any(total <= 0):
        bad = int(np.flatnonzero(total <= 0)[0])
        raise ValueError(f"every candidate needs a positive total weight; candidate {bad} has none (its score "
                         "would be 0 whatever it plays)")
    pi, pj = pair_arrays(K)
    wa_all, wb_all = w[pi, pj], w[pj, pi]
    active = cand[pi] & ((wa_all > 0) | (cand[pj] & (wb_all > 0)))
    pi, pj = pi[active], pj[active]
    wa, wb = wa_all[active].copy(), np.where(cand[pj], wb_all[active], 0.0)
    pidx = np.full((K, K), -1, dtype=np.int64)
    pidx[pi, pj] = np.arange(pi.size)
    pidx[pj, pi] = np.arange(pi.size)
    degree = (np.bincount(pi, minlength=K) + np.bincount(pj, minlength=K)).astype(np.float64)
    return ScoreWeights(K, Kc, w, None if column is None else np.ascontiguousarray(column, dtype=np.float64),
                        pi, pj, wa, wb, pidx, degree)


def _column_form(w: np.ndarray, Kc: int) -> np.ndarray | None:
    """``v`` with ``w[i, j] = v_j`` for every candidate ``i != j``, if the matrix has that form."""
    K = w.shape[0]
    v = np.empty(K)
    for j in range(K):
        rows = [i for i in range(Kc) if i != j]
        col = w[rows, j]
        if np.any(col != col[0]):
            return None
        v[j] = col[0]
    return v


def connected(K: int, pi: np.ndarray, pj: np.ndarray) -> bool:
    """Whether the comparison graph of the pairs ``(pi, pj)`` joins all ``K`` alternatives."""
    parent = list(range(K))

    def root(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    parts = K
    for a, b in zip(pi.tolist(), pj.tolist()):
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[ra] = rb
            parts -= 1
    return parts == 1


def pool_weights(candidates: int, pools, population: float = 1.0) -> np.ndarray:
    """The weight vector (``weights`` of a selector) of a score made of pools of opponents.

    Candidate ``i``'s score is ``population`` times its mean result against the other candidates plus, for
    each pool ``(size, weight)`` in order, ``weight`` times its mean result against that pool's opponents:
    ``w_ij = population / (K_c - 1)`` for another candidate ``j`` and ``weight / size`` for an opponent ``j``
    of the pool. The opponents are numbered after the candidates, pool by pool.
    """
    if isinstance(candidates, bool) or not isinstance(candidates, (int, np.integer)) or candidates < 2:
        raise ValueError(f"candidates must be an integer >= 2, got {candidates!r}")
    Kc = int(candidates)
    parts = [np.full(Kc, _check_weight(population, "population") / (Kc - 1))]
    for entry in pools:
        try:
            size, weight = entry
        except (TypeError, ValueError):
            raise ValueError(f"each pool must be a pair (size, weight), got {entry!r}") from None
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
            raise ValueError(f"a pool's size must be an integer >= 1, got {size!r}")
        parts.append(np.full(int(size), _check_weight(weight, "a pool's weight") / int(size)))
    return np.concatenate(parts)


def _check_weight(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not np.isfinite(value) or value < 0:
        raise ValueError(f"{what} must be a finite number >= 0, got {value!r}")
    return float(value)
