"""Score-based dueling problems (oracles) for top-k selection, with their true top-k.

An **oracle** answers ``sample(i, j) -> float``: one zero-sum score sample of alternative ``i`` against
``j`` (``X_ji = -X_ij``). Its attribute ``K`` is the number of alternatives. The goal of a selector is the
top-k by **Borda score**, the sum of pairwise means ``S_i = sum_{j != i} mu_ij`` (Groves & Branke eqs 1-2).

Randomness is injected: a problem *instance* (qualities, variances, perturbations) is drawn from one
``numpy.random.Generator`` and the *sample noise* from another, so that several selectors can face the
same instance with the same noise (common random numbers). With ``streams="per-pair"`` (the default)
each unordered pair has its own noise stream, seeded once from the noise generator: the t-th sample of a
pair is then the same whichever order a selector asks for pairs in, which is as common as random
numbers can be across methods. ``streams="counter"`` has the same property with counter-based streams
(``_rng``): the t-th noise value of pair ``p`` is a hash of ``(key, p, t)`` with one 64-bit key drawn from
the noise generator, computable without state, so compiled replication loops (``studies``) reproduce the
oracle's samples exactly. ``streams="shared"`` draws from the noise generator itself, in call order.

Pairs are oriented ``i < j`` internally; asking for ``(j, i)`` returns the negated sample of the same
stream, so orientation never changes the numbers.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from . import _rng

STREAMS = ("per-pair", "counter", "shared")
VARIANCE_LAWS = ("variance", "sd")

_BLOCK = 64  # per-pair noise is drawn in blocks of this many values


def n_pairs(K: int) -> int:
    """Number of unordered pairs of ``K`` alternatives."""
    return K * (K - 1) // 2


def pair_arrays(K: int) -> tuple[np.ndarray, np.ndarray]:
    """``(pi, pj)``: the unordered pairs ``i < j`` in row-major order (pair index ``p`` is the position)."""
    pi, pj = np.triu_indices(K, 1)
    return pi.astype(np.int64), pj.astype(np.int64)


def pair_index_matrix(K: int) -> np.ndarray:
    """``K x K`` int64 matrix: the pair index of ``{i, j}`` (both orientations), ``-1`` on the diagonal."""
    pi, pj = pair_arrays(K)
    m = np.full((K, K), -1, dtype=np.int64)
    m[pi, pj] = np.arange(pi.size)
    m[pj, pi] = np.arange(pi.size)
    return m


def check_k(k, K: int) -> int:
    """``k`` as an int, or a ValueError unless ``1 <= k < K``."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise ValueError(f"k must be an integer with 1 <= k < K = {K}, got {k!r}")
    if not 1 <= k < K:
        raise ValueError(f"k must satisfy 1 <= k < K = {K} (a proper, non-empty subset), got k = {k}")
    return int(k)


def _check_generator(rng, what: str) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"{what} must be a numpy.random.Generator (np.random.default_rng(seed)), "
                         f"got {type(rng).__name__}")
    return rng


def _check_choice(value, allowed, what):
    if value not in allowed:
        raise ValueError(f"unknown {what} {value!r}; allowed: {', '.join(map(repr, allowed))}")
    return value


def top_k_of(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest scores, best first; ties go to the lower index (stable sort)."""
    order = np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
    return order[:k].astype(np.int64)


class Oracle:
    """Base of the zero-sum pairwise oracles.

    Subclasses set ``K`` and implement ``_draw(p, count)``: ``count`` samples of pair ``p`` from the
    point of view of its lower index. ``means`` (``K x K``, antisymmetric) is known to synthetic problems
    and lets them report ``borda()`` and ``true_top_k(k)``; an oracle without known means (``means is
    None``) can still be sampled.
    """

    K: int
    means: np.ndarray | None = None

    def _setup_pairs(self, K: int) -> None:
        if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 2:
            raise ValueError(f"an oracle needs K >= 2 alternatives, got K = {K!r}")
        self.K = int(K)
        self._pidx = pair_index_matrix(self.K)

    def _pair(self, i, j) -> tuple[int, float]:
        K = self.K
        if not (0 <= i < K and 0 <= j < K):
            raise ValueError(f"alternatives must be in 0..{K - 1}, got ({i}, {j})")
        if i == j:
            raise ValueError(f"a pair needs two different alternatives, got ({i}, {j})")
        return int(self._pidx[i, j]), (1.0 if i < j else -1.0)

    def _draw(self, p: int, count: int) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def sample(self, i: int, j: int) -> float:
        """One score sample of ``i`` against ``j`` (zero-sum: the sample of ``(j, i)`` is its negation)."""
        p, s = self._pair(i, j)
        return float(s * self._draw(p, 1)[0])

    def sample_many(self, i: int, j: int, n: int) -> np.ndarray:
        """``n`` consecutive samples of ``i`` against ``j`` (the same values as ``n`` calls of ``sample``)."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise ValueError(f"n must be a non-negative integer, got {n!r}")
        p, s = self._pair(i, j)
        return s * self._draw(p, int(n))

    def sample_pairs(self, i, j) -> np.ndarray:
        """One sample for each ``(i[t], j[t])`` in order (the same values as calling ``sample`` in a loop)."""
        i = np.asarray(i, dtype=np.int64).ravel()
        j = np.asarray(j, dtype=np.int64).ravel()
        if i.shape != j.shape:
            raise ValueError(f"i and j must have the same length, got {i.size} and {j.size}")
        out = np.empty(i.size)
        if i.size == 0:
            return out
        K = self.K
        if i.min() < 0 or j.min() < 0 or i.max() >= K or j.max() >= K:
            raise ValueError(f"alternatives must be in 0..{K - 1}")
        if np.any(i == j):
            raise ValueError("a pair needs two different alternatives")
        p = self._pidx[i, j]
        sign = np.where(i < j, 1.0, -1.0)
        order = np.argsort(p, kind="stable")              # each pair's requests in call order
        ps = p[order]
        starts = np.flatnonzero(np.r_[True, ps[1:] != ps[:-1]])
        ends = np.r_[starts[1:], ps.size]
        vals = np.empty(i.size)
        for q, a, b in zip(ps[starts].tolist(), starts.tolist(), ends.tolist()):   # Python ints: a lean loop
            vals[a:b] = self._draw(q, b - a)
        out[order] = vals
        return sign * out

    def borda(self) -> np.ndarray:
        """True Borda scores ``S_i = sum_j mu_ij`` (needs known means)."""
        if self.means is None:
            raise ValueError("this oracle has no known means, so its Borda scores and true top-k are unknown")
        return self.means.sum(axis=1)

    def true_top_k(self, k: int) -> np.ndarray:
        """The true top-k by Borda score, best first; ties go to the lower index."""
        return top_k_of(self.borda(), check_k(k, self.K))

    @property
    def noise_key(self):
        """The ``numpy.uint64`` key of ``streams="counter"`` noise, else ``None``."""
        noise = getattr(self, "_noise", None)
        return None if noise is None else noise.key


class _PairStreams:
    """Per-pair noise streams: pair ``p`` draws from its own generator, seeded once from ``noise_rng``."""

    def __init__(self, P: int, noise_rng: np.random.Generator, kind: str):
        self.seeds = noise_rng.integers(0, 2**63 - 1, size=P, dtype=np.int64)
        self.kind = kind
        self.gens: dict[int, np.random.Generator] = {}
        self.buf: dict[int, np.ndarray] = {}
        self.pos = np.zeros(P, dtype=np.int64)

    def _fresh(self, g: np.random.Generator, count: int) -> np.ndarray:
        return g.standard_normal(count) if self.kind == "normal" else g.random(count)

    def draw(self, p: int, count: int) -> np.ndarray:
        buf = self.buf.get(p)
        pos = self.pos[p]
        if buf is not None and pos + count <= buf.size:
            self.pos[p] = pos + count
            return buf[pos:pos + count]
        g = self.gens.get(p)
        if g is None:
            g = self.gens[p] = np.random.default_rng(int(self.seeds[p]))
        rest = buf[pos:] if buf is not None else np.empty(0)
        need = count - rest.size
        new = self._fresh(g, max(_BLOCK, need))     # blocks: the stream's values do not depend on count
        buf = np.concatenate([rest, new])
        self.buf[p] = buf
        self.pos[p] = count
        return buf[:count]


class _CounterStreams:
    """Counter-based per-pair streams: value ``t`` of pair ``p`` is ``_rng.normal_at``/``uniform_at``."""

    def __init__(self, P: int, noise_rng: np.random.Generator, kind: str):
        self.key = np.uint64(_rng.key_from(noise_rng))
        self.fill = _rng.fill_normals if kind == "normal" else _rng.fill_uniforms
        self.pos = np.zeros(P, dtype=np.int64)

    def draw(self, p: int, count: int) -> np.ndarray:
        out = np.empty(count)
        self.fill(self.key, p, self.pos[p], out)
        self.pos[p] += count
        return out


class _Noise:
    def __init__(self, P: int, noise_rng, streams: str, kind: str):
        _check_generator(noise_rng, "noise_rng")
        _check_choice(streams, STREAMS, "streams")
        self.kind = kind
        self.rng = noise_rng
        self.streams = streams
        self.pairs = (_PairStreams(P, noise_rng, kind) if streams == "per-pair"
                      else _CounterStreams(P, noise_rng, kind) if streams == "counter" else None)

    @property
    def key(self):
        """The 64-bit key of counter streams (``None`` for the other kinds)."""
        return self.pairs.key if self.streams == "counter" else None

    def draw(self, p: int, count: int) -> np.ndarray:
        if self.pairs is not None:
            return self.pairs.draw(p, count)
        return self.rng.standard_normal(count) if self.kind == "normal" else self.rng.random(count)


class GaussianOracle(Oracle):
    """Samples ``X_ij ~ N(means[i, j], variances[i, j])`` from given mean and variance matrices.

    ``means`` must be antisymmetric (``means[j, i] = -means[i, j]``) and ``variances`` symmetric and
    non-negative, both finite (the diagonals are ignored). ``gamma`` optionally records the Thurstone
    qualities the means came from.
    """

    def __init__(self, means, variances, noise_rng: np.random.Generator, *, streams: str = "per-pair",
                 gamma=None):
        means = np.array(means, dtype=np.float64)
        variances = np.array(variances, dtype=np.float64)
        if means.ndim != 2 or means.shape[0] != means.shape[1] or variances.shape != means.shape:
            raise ValueError(f"means and variances must be square matrices of one shape, got {means.shape} "
                             f"and {variances.shape}")
        self._setup_pairs(means.shape[0])
        off = ~np.eye(self.K, dtype=bool)
        if not (np.all(np.isfinite(means[off])) and np.all(np.isfinite(variances[off]))):
            raise ValueError("means and variances must be finite")
        if not np.allclose(means[off], -means.T[off], rtol=1e-12, atol=1e-12):
            raise ValueError("means must be antisymmetric (zero-sum: means[j, i] == -means[i, j])")
        if not np.allclose(variances, variances.T) or np.any(variances[off] < 0):
            raise ValueError("variances must be symmetric and non-negative")
        np.fill_diagonal(means, 0.0)
        np.fill_diagonal(variances, 0.0)
        self.means = means
        self.variances = variances
        self.gamma = None if gamma is None else np.asarray(gamma, dtype=np.float64)
        pi, pj = pair_arrays(self.K)
        self._mu = means[pi, pj].copy()
        self._sd = np.sqrt(variances[pi, pj])
        self._noise = _Noise(pi.size, noise_rng, streams, "normal")

    def _draw(self, p: int, count: int) -> np.ndarray:
        return self._mu[p] + self._sd[p] * self._noise.draw(p, count)


class BernoulliOracle(Oracle):
    """Win/loss feedback from a preference matrix: ``i`` beats ``j`` with probability ``P[i, j]``.

    A sample is ``+1`` when ``i`` wins and ``-1`` when it loses, so it is zero-sum like every oracle here
    (``X_ji = -X_ij``); its mean is ``mu_ij = 2 P_ij - 1``, and the Borda ranking of these means is the
    ranking by ``sum_j P_ij``. ``P`` must satisfy ``P[i, j] + P[j, i] = 1`` with entries in ``[0, 1]``.
    """

    def __init__(self, P, noise_rng: np.random.Generator, *, streams: str = "per-pair"):
        P = np.array(P, dtype=np.float64)
        if P.ndim != 2 or P.shape[0] != P.shape[1]:
            raise ValueError(f"P must be a square matrix, got shape {P.shape}")
        self._setup_pairs(P.shape[0])
        off = ~np.eye(self.K, dtype=bool)
        if not np.all(np.isfinite(P[off])) or np.any(P[off] < 0) or np.any(P[off] > 1):
            raise ValueError("preference probabilities must lie in [0, 1]")
        if not np.allclose((P + P.T)[off], 1.0):
            raise ValueError("P must satisfy P[i, j] + P[j, i] == 1")
        np.fill_diagonal(P, 0.5)
        self.P = P
        self.means = 2.0 * P - 1.0
        np.fill_diagonal(self.means, 0.0)
        pi, pj = pair_arrays(self.K)
        self._p = P[pi, pj].copy()
        self._noise = _Noise(pi.size, noise_rng, streams, "uniform")

    def _draw(self, p: int, count: int) -> np.ndarray:
        return np.where(self._noise.draw(p, count) < self._p[p], 1.0, -1.0)


class CallableOracle(Oracle):
    """Wraps ``fn(i, j) -> float`` (called with ``i < j`` only; the reverse orientation is negated).

    ``means`` (optional, antisymmetric ``K x K``) gives the true top-k. Used for scripted data in tests and
    for live oracles whose means are unknown.
    """

    def __init__(self, K: int, fn: Callable[[int, int], float], *, means=None):
        self._setup_pairs(K)
        self.fn = fn
        self.means = None if means is None else np.asarray(means, dtype=np.float64)
        pi, pj = pair_arrays(self.K)
        self._pi, self._pj = pi, pj

    def _draw(self, p: int, count: int) -> np.ndarray:
        i, j = int(self._pi[p]), int(self._pj[p])
        return np.array([float(self.fn(i, j)) for _ in range(count)], dtype=np.float64)


def _antisym(K: int, upper: np.ndarray) -> np.ndarray:
    m = np.zeros((K, K))
    pi, pj = pair_arrays(K)
    m[pi, pj] = upper
    m[pj, pi] = -upper
    return m


def _sym(K: int, upper: np.ndarray) -> np.ndarray:
    m = np.zeros((K, K))
    pi, pj = pair_arrays(K)
    m[pi, pj] = upper
    m[pj, pi] = upper
    return m


def _thurstone_parts(K, instance_rng, variance_law):
    _check_generator(instance_rng, "instance_rng")
    _check_choice(variance_law, VARIANCE_LAWS, "variance_law")
    if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 2:
        raise ValueError(f"K must be an integer >= 2, got {K!r}")
    P = n_pairs(K)
    gamma = instance_rng.uniform(0.0, 1.0, size=K)
    u = instance_rng.uniform(0.0, 1.0, size=P)
    var = u if variance_law == "variance" else u * u
    return gamma, var


def thurstone(K: int, instance_rng: np.random.Generator, noise_rng: np.random.Generator, *,
              variance_law: str = "variance", streams: str = "per-pair") -> GaussianOracle:
    """The value-based Thurstone problem of §5.1: ``gamma_i ~ U[0,1]``, ``X_ij ~ N(gamma_i - gamma_j, s2_ij)``.

    ``variance_law="variance"`` (the paper's text): ``s2_ij ~ U[0,1]``. ``"sd"``: the standard deviation
    ``~ U[0,1]`` (the reading under eq 16, which uses E[sd] = 0.5). The instance draws ``gamma`` (K values)
    then the pair variances (row-major ``i < j``) from ``instance_rng``.
    """
    gamma, var = _thurstone_parts(K, instance_rng, variance_law)
    return GaussianOracle(gamma[:, None] - gamma[None, :], _sym(K, var), noise_rng, streams=streams,
                          gamma=gamma)


def perturbed_thurstone(K: int, d: float, instance_rng: np.random.Generator, noise_rng: np.random.Generator,
                        *, variance_law: str = "variance", streams: str = "per-pair") -> GaussianOracle:
    """The noise-perturbed Thurstone problem of §6: means ``gamma_i - gamma_j + eps_ij``, ``eps_ij ~ N(0, d^2)``.

    ``eps`` is antisymmetric (``eps_ji = -eps_ij``) so the problem stays zero-sum. The instance draws
    ``gamma`` and the variances exactly as ``thurstone`` does, then ``eps``: with ``d = 0`` it is the same
    instance as ``thurstone`` with the same generator.
    """
    if not np.isfinite(d) or d < 0:
        raise ValueError(f"the perturbation scale d must be finite and >= 0, got {d!r}")
    gamma, var = _thurstone_parts(K, instance_rng, variance_law)
    eps = d * instance_rng.standard_normal(n_pairs(K))
    means = gamma[:, None] - gamma[None, :] + _antisym(K, eps)
    return GaussianOracle(means, _sym(K, var), noise_rng, streams=streams, gamma=gamma)


def separated_top1(instance_rng: np.random.Generator, noise_rng: np.random.Generator, *, K: int = 100,
                   gamma0: float = 1.2, variance_law: str = "variance", streams: str = "per-pair"):
    """The separated top-1 problem of Fig 3: Thurstone with ``gamma_0 = 1.2``, the others ``~ U[0,1]``.

    All K qualities are drawn as in ``thurstone`` and then ``gamma_0`` is overwritten, so the rest of the
    instance is the plain Thurstone instance of the same generator.
    """
    gamma, var = _thurstone_parts(K, instance_rng, variance_law)
    gamma[0] = gamma0
    return GaussianOracle(gamma[:, None] - gamma[None, :], _sym(K, var), noise_rng, streams=streams,
                          gamma=gamma)


class CandidatesOracle(GaussianOracle):
    """A ``GaussianOracle`` whose alternatives ``0 .. K_c - 1`` are candidates and the rest fixed opponents.

    The true score of candidate ``i`` is eq 1, ``S_i = sum_j w_ij mu_ij``, with ``weights`` as a selector
    takes them (``None``: 1; a length-K vector ``v`` with ``w_ij = v_j``; or a ``K x K`` matrix; see
    ``weights.resolve_weights``), and ``true_top_k(k)`` is the top-k candidates by it. ``means`` are
    known for every pair, so the oracle can be sampled anywhere; a selector given
    ``**selector_options`` never asks for two fixed opponents.
    """

    def __init__(self, means, variances, noise_rng: np.random.Generator, *, candidates: int, weights=None,
                 streams: str = "per-pair", gamma=None):
        from .weights import resolve_weights

        super().__init__(means, variances, noise_rng, streams=streams, gamma=gamma)
        if candidates is None:
            raise ValueError("candidates must be an integer (the number K_c of alternatives ranked)")
        sw = resolve_weights(self.K, candidates, weights)
        self.candidates = sw.candidates
        self.weights = None if weights is None else np.array(weights, dtype=np.float64)
        self.weight_matrix = sw.matrix

    @property
    def selector_options(self) -> dict:
        """The ``candidates`` and ``weights`` options that make a selector rank this problem's score."""
        return {"candidates": self.candidates, "weights": self.weights}

    def true_scores(self) -> np.ndarray:
        """The candidates' true scores ``S_i = sum_j w_ij mu_ij`` (eq 1), length ``K_c``."""
        Kc = self.candidates
        return (self.weight_matrix[:Kc] * self.means[:Kc]).sum(axis=1)

    def true_top_k(self, k: int) -> np.ndarray:
        """The true top-k candidates by their weighted score, best first; ties go to the lower index."""
        return top_k_of(self.true_scores(), check_k(k, self.candidates))


def candidates_vs_opponents(candidates: int, opponents: int, instance_rng: np.random.Generator,
                            noise_rng: np.random.Generator, *, d: float = 0.0, pools=None, population: float = 1.0,
                            variance_law: str = "variance", streams: str = "per-pair") -> CandidatesOracle:
    """Candidates against fixed opponents: ``K_c`` candidates ranked by eq 1 with pool weights.

    The instance is ``perturbed_thurstone``'s for ``K = K_c + M`` alternatives, drawn the same way from
    ``instance_rng`` (``gamma_i ~ U[0,1]``, pair variances by ``variance_law``, perturbations ``eps_ij ~
    N(0, d^2)``; ``d = 0`` is Thurstone): alternatives ``0 .. K_c - 1`` are the candidates and ``K_c ..
    K - 1`` the ``M = opponents`` fixed opponents. The weights are ``weights.pool_weights(K_c, pools,
    population)``: ``population`` spread over the other candidates and each pool ``(size, weight)`` over its
    opponents, numbered in order (default: one pool of all ``M`` opponents with weight 1).
    """
    from .weights import pool_weights

    if isinstance(opponents, bool) or not isinstance(opponents, (int, np.integer)) or opponents < 0:
        raise ValueError(f"opponents (the number M of fixed opponents) must be an integer >= 0, got {opponents!r}")
    if pools is None:
        pools = [(int(opponents), 1.0)] if opponents else []
    weights = pool_weights(candidates, pools, population)
    K = weights.size
    if K != candidates + opponents:
        raise ValueError(f"the pools hold {K - candidates} opponents, not opponents = {opponents}")
    if not np.isfinite(d) or d < 0:
        raise ValueError(f"the perturbation scale d must be finite and >= 0, got {d!r}")
    gamma, var = _thurstone_parts(K, instance_rng, variance_law)
    eps = d * instance_rng.standard_normal(n_pairs(K))
    means = gamma[:, None] - gamma[None, :] + _antisym(K, eps)
    return CandidatesOracle(means, _sym(K, var), noise_rng, candidates=candidates, weights=weights, streams=streams,
                            gamma=gamma)
