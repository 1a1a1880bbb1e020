"""The common machinery of fixed-budget top-k selectors: warm-up, budget, trace, anytime answer."""

from __future__ import annotations

import inspect
import math
import queue
import threading
from collections import deque
from typing import NamedTuple

import numpy as np

from . import _kernels as kern
from .problems import check_k, n_pairs, pair_arrays, pair_index_matrix, top_k_of
from .weights import ScoreWeights, resolve_weights


class Trace(NamedTuple):
    """The samples taken so far, in order: pair ``(i[t], j[t])`` with ``i < j`` and its score ``x[t]``."""

    i: np.ndarray
    j: np.ndarray
    x: np.ndarray


def _check_int(value, what: str, lo: int, hint: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"{what} must be an integer >= {lo}{hint}, got {value!r}")
    return int(value)


def check_lag(cls, lag) -> int:
    """``lag`` as an int, if it is one that selector class ``cls`` accepts (``ValueError`` otherwise)."""
    lag = _check_int(lag, "lag (samples pending at a decision)", 0, "")
    if lag and not cls.supports_lag:
        from . import SELECTORS

        able = [name for name, c in SELECTORS.items() if c.supports_lag]
        raise ValueError(f"{cls.name} does not take lag > 0 (its decisions need every sample); allowed: lag = 0, "
                         f"or one of {', '.join(able)}")
    return lag


def check_batch(cls, batch, weighted: bool) -> int:
    """``batch`` as an int, if selector class ``cls`` accepts it (``ValueError`` otherwise); ``weighted``: the
    selector has candidates or weights."""
    batch = _check_int(batch, "batch (samples per decision, the best pairs of one decision)", 1, "")
    if batch > 1 and not (cls.supports_batch and weighted):
        from . import SELECTORS

        able = [name for name, c in SELECTORS.items() if c.supports_batch]
        raise ValueError(f"batch > 1 needs a selector that ranks pairs ({', '.join(able)}) with candidates or "
                         f"weights (fixed opponents, a weighted score); got {cls.name}"
                         f"{' without them' if cls.supports_batch else ''}; allowed: batch = 1")
    return batch


def check_weights_support(cls, candidates, weights) -> None:
    """``ValueError`` unless selector class ``cls`` accepts the given ``candidates`` / ``weights`` (``None``
    for both is always accepted)."""
    if (candidates is not None or weights is not None) and not cls.supports_weights:
        from . import SELECTORS

        able = [name for name, c in SELECTORS.items() if c.supports_weights]
        raise ValueError(f"{cls.name} ranks all K alternatives by their Borda score and does not take candidates "
                         f"or weights (fixed opponents, a weighted score); these are accepted by "
                         f"{', '.join(able)}")


def _check_k_candidates(k, Kc: int) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k < Kc:
        raise ValueError(f"k must be an integer with 1 <= k < candidates = {Kc} (a proper, non-empty subset of "
                         f"the candidates), got {k!r}")
    return int(k)


class Selector:
    """Base of the selectors: one oracle sample per ``step()``, exactly ``budget`` samples in all.

    Parameters
    ----------
    oracle : an object with ``K`` (>= 2) and ``sample(i, j) -> float`` (zero-sum); ``sample_pairs(i, j)``
        is used for the warm-up batch when present (see ``problems.Oracle``).
    k : size of the subset to select, ``1 <= k < K``.
    budget : total number of samples, warm-up included; at least the warm-up ``n0 * K (K - 1) / 2``.
    n0 : warm-up samples per pair, taken round-robin over the pairs (row-major ``i < j``) before any
        decision (paper: 3).
    rng : ``numpy.random.Generator`` for any random choice of the selector (the methods here decide
        deterministically; it is kept for subclasses and reproducibility). ``None`` makes a fresh
        unseeded generator.
    lag : decide with the ``lag`` most recent samples still unseen (default 0: every decision sees every
        sample before it, as in the papers). With ``lag = L`` the sample of decision ``t`` becomes
        visible to the method after decision ``t + L`` is made, so ``run()`` plays the oracle's samples
        in a background thread while the method decides (``docs/selectors.md``, *Lag*). The pending
        samples' pairs count as sampled in the posterior and one-more-sample variances (their values are
        unknown); means, variances and fits use the samples seen. Results depend on ``lag`` only, never
        on timing: ``step()`` gives the same samples and state as ``run()``. Only the selectors with
        ``supports_lag`` accept ``lag > 0``; warm-up samples are always seen at once.
    candidates : ``K_c``: the alternatives ``0 .. K_c - 1`` are ranked and selected, ``K_c .. K - 1`` are
        fixed opponents that are never selected and never play each other (default ``None``: all ``K``
        are candidates). Needs ``1 <= k < K_c``.
    weights : the weights ``w_ij`` of the score ``S_i = sum_j w_ij mu_ij`` of candidate ``i`` (eq 1):
        ``None`` (default: 1, the Borda score), a length-``K`` vector ``v`` (``w_ij = v_j``, the weight of a
        result against ``j``; ``weights.pool_weights`` builds one from pools of opponents) or a ``K x K``
        matrix (row ``i``: candidate ``i``'s weights; the diagonal and the rows of fixed opponents 0).
        Only the pairs a candidate weights (``w_ij > 0``) are sampled: the **active pairs**, in the
        warm-up as well (``docs/selectors.md``, *Fixed opponents and weights*). Only the selectors with
        ``supports_weights`` accept ``candidates`` or ``weights``.
    batch : samples per decision (default 1: a decision per sample, as in the papers). With ``batch = b`` a
        decision ranks the pairs once and the next ``b`` samples take its ``b`` best pairs, best first (fewer
        where fewer pairs have a finite gain; the next decision comes when they are used up), so the
        decisions cost ``1 / b`` as much per sample. Unlike ``repeat`` (``b`` samples of one pair) it spreads
        the samples over ``b`` pairs; unlike the sequential method it does not update the posteriors between
        them (``docs/selectors.md``, *Batch*). Only the selectors with ``supports_batch`` accept ``batch >
        1``, with ``candidates`` or ``weights``; it combines with ``lag``.

    The anytime answer ``top_k()`` always returns ``k`` distinct indices (of candidates), best first;
    before the warm-up is complete it ranks by the score of the sample means (unsampled pairs count 0).
    ``scores()`` has one entry per candidate (``K_c``; ``K`` without ``candidates``).
    """

    name = "base"
    min_n0 = 1
    #: the decisions never depend on the budget, so the state after ``b`` samples is the same for every
    #: budget ``>= b`` and one run gives the whole success-against-budget curve (``studies``)
    anytime = True
    #: whether the method accepts ``lag > 0`` (decisions with the most recent samples pending)
    supports_lag = False
    #: whether the method accepts ``candidates`` and ``weights`` (fixed opponents, a weighted score)
    supports_weights = False
    #: whether the method accepts ``batch > 1`` (with candidates or weights): its ``_decide`` fills ``_top``
    supports_batch = False

    @classmethod
    def min_budget(cls, K: int, k: int, **options) -> int:
        """The smallest budget the selector accepts for ``K`` alternatives (its warm-up, at least 1)."""
        n0 = options.get("n0", inspect.signature(cls.__init__).parameters["n0"].default)
        candidates, weights = options.get("candidates"), options.get("weights")
        check_weights_support(cls, candidates, weights)
        sw = resolve_weights(K, candidates, weights)
        return max(int(n0) * (n_pairs(K) if sw is None else sw.pi.size), 1)

    def __init__(self, oracle, k: int, budget: int, *, n0: int = 3, rng: np.random.Generator | None = None,
                 lag: int = 0, candidates: int | None = None, weights=None, batch: int = 1):
        K = getattr(oracle, "K", None)
        if not callable(getattr(oracle, "sample", None)) or isinstance(K, bool) \
                or not isinstance(K, (int, np.integer)) or K < 2:
            raise ValueError("oracle must have an integer K >= 2 and a method sample(i, j) -> float")
        self.oracle = oracle
        self.K = K = int(K)
        check_weights_support(type(self), candidates, weights)
        sw = resolve_weights(K, candidates, weights)
        #: the validated candidates and weights (``weights.ScoreWeights``), ``None`` in the plain mode (all
        #: ``K`` alternatives candidates, Borda score)
        self.score_weights: ScoreWeights | None = sw
        #: ``K_c``: alternatives ``0 .. K_c - 1`` are ranked, the rest are fixed opponents
        self.candidates = K if sw is None else sw.candidates
        self.k = check_k(k, K) if sw is None or sw.candidates == K else _check_k_candidates(k, sw.candidates)
        self.n0 = _check_int(n0, "n0 (warm-up samples per pair)", self.min_n0,
                             f" for {self.name}" if self.min_n0 > 1 else "")
        P = n_pairs(K) if sw is None else sw.pi.size
        self.warmup = self.n0 * P
        if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)):
            raise ValueError(f"budget must be an integer, got {budget!r}")
        if budget < self.warmup or budget < 1:
            what = "K(K-1)/2" if sw is None else "(active pairs)"
            where = f"K = {K}" if sw is None else f"K = {K}, {self.candidates} candidates"
            raise ValueError(f"budget {budget} is smaller than the warm-up n0 * {what} = {self.n0} * {P} = "
                             f"{self.warmup} samples ({where}); allowed: budget >= {max(self.warmup, 1)}")
        self.budget = int(budget)
        if rng is None:
            rng = np.random.default_rng()
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        self.rng = rng
        if sw is None:
            self.pi, self.pj = pair_arrays(K)
            self.pidx = pair_index_matrix(K)
        else:   # the active pairs only: the warm-up, the decisions and the statistics know no others
            self.pi, self.pj, self.pidx = sw.pi, sw.pj, sw.pidx
        self.n = np.zeros(P, dtype=np.int64)
        self.xbar = np.zeros(P)
        self.m2 = np.zeros(P)
        self.used = 0
        self._tp = np.empty(self.budget, dtype=np.int64)
        self._tx = np.empty(self.budget)
        self.lag = check_lag(type(self), lag)
        self._pending: deque = deque()   # (t, p, x) of samples taken, not yet seen; x None in flight
        # the sample counts of the posteriors: ``n`` plus the pending samples (a copy kept up to date from
        # the first lagged decision on; ``n`` itself without a lag)
        self._counts = self.n
        self.batch = check_batch(type(self), batch, sw is not None)
        #: a decision's best pairs, best first (``_decide`` fills it where ``supports_batch``), and the ones
        #: not yet sampled
        self._top = np.full(self.batch, -1, dtype=np.int64)
        self._queued: deque = deque()
        self.decisions = 0          # calls of ``_decide`` (with a batch, fewer than the samples after the warm-up)

    # --- sampling -------------------------------------------------------------------------------------
    def is_finished(self) -> bool:
        return self.used >= self.budget

    @property
    def seen(self) -> int:
        """Samples the method has seen (``used`` minus those pending under ``lag``)."""
        return self.used - len(self._pending)

    def _decide(self) -> int:  # pragma: no cover - abstract
        """Pair index of the next sample after the warm-up."""
        raise NotImplementedError

    def _bad_sample(self, i, j, x):
        raise ValueError(f"the oracle returned a non-finite sample {x!r} for pair ({i}, {j}); samples must "
                         "be finite floats")

    def step(self) -> tuple[int, int, float]:
        """Take one sample (a warm-up one, then the method's choice); return ``(i, j, x)``."""
        if self.used >= self.budget:
            raise RuntimeError(f"the budget of {self.budget} samples is used up")
        t = self.used
        p = t % self.pi.size if t < self.warmup else self._decide_lagged()
        i = int(self.pi[p])
        j = int(self.pj[p])
        x = float(self.oracle.sample(i, j))
        if not math.isfinite(x):
            self._bad_sample(i, j, x)
        self._tp[t] = p
        self._tx[t] = x
        self.used = t + 1
        if self.lag and t >= self.warmup:
            self._pending.append((t, p, x))
            self._counts[p] += 1
            self._see_pending(None)
        else:
            self._see(t, p, x)
        return i, j, x

    def _see(self, t: int, p: int, x: float) -> None:
        """Sample ``t`` (pair ``p``, value ``x``) becomes visible to the method."""
        kern.record(self.n, self.xbar, self.m2, p, x)
        self._after_sample(p, x)

    def _see_pending(self, next_result) -> None:
        """See the oldest pending samples until ``lag`` remain (all of them once the budget is used). A
        sample still in flight (``x`` None) is the next value of ``next_result()``, which waits for
        ``run``'s oracle thread (it plays the samples in decision order)."""
        keep = self.lag if self.used < self.budget else 0
        while len(self._pending) > keep:
            t, p, x = self._pending.popleft()
            if x is None:
                x = next_result()
                if not math.isfinite(x):
                    self._bad_sample(int(self.pi[p]), int(self.pj[p]), x)
                self._tx[t] = x
            self._see(t, p, x)

    def _decide_lagged(self) -> int:
        """``_decide()``, with a lag from ``_counts``: ``n`` plus the pending samples' pairs (the caller
        counts the decision's own pair there when it becomes pending); with a batch, the last decision's
        next best pair while there is one."""
        if self._queued:
            self._batch_step()
            return self._queued.popleft()
        if self.lag and self._counts is self.n:     # the first decision: nothing pending yet
            self._counts = self.n.copy()
        p = self._decide()
        self.decisions += 1
        if self.batch > 1:
            self._queued.extend(q for q in self._top[1:].tolist() if q >= 0)
        return p

    def _batch_step(self) -> None:
        """Hook: a sample of the last decision's batch, not its first, is about to be taken."""

    def _take(self, p: int, m: int) -> None:
        """``m`` consecutive samples of pair ``p`` (the same values and state as ``m`` steps choosing ``p``),
        in one oracle call where the oracle has ``sample_many``."""
        t = self.used
        if m < 1 or t + m > self.budget:
            raise ValueError(f"cannot take {m} samples with {self.budget - t} of the budget left")
        i, j = int(self.pi[p]), int(self.pj[p])
        many = getattr(self.oracle, "sample_many", None)
        if callable(many):
            xs = np.asarray(many(i, j, m), dtype=np.float64)
        else:
            xs = np.array([float(self.oracle.sample(i, j)) for _ in range(m)])
        bad = np.flatnonzero(~np.isfinite(xs))
        if bad.size:
            self._bad_sample(i, j, float(xs[bad[0]]))
        kern.record_many(self.n, self.xbar, self.m2, np.full(m, p, dtype=np.int64), xs)
        self._tp[t:t + m] = p
        self._tx[t:t + m] = xs
        self.used = t + m
        for x in xs:
            self._after_sample(p, float(x))

    def _after_sample(self, p: int, x: float) -> None:
        """Hook for methods that keep their own state: sample ``x`` of pair ``p`` (``pi[p]``'s view)."""

    def _warmup_batch(self) -> None:
        """The rest of the warm-up in one oracle call (same samples and order as stepping)."""
        t0, t1 = self.used, self.warmup
        if t1 <= t0:
            return
        ps = np.arange(t0, t1, dtype=np.int64) % self.pi.size
        i, j = self.pi[ps], self.pj[ps]
        batch = getattr(self.oracle, "sample_pairs", None)
        if callable(batch):
            xs = np.asarray(batch(i, j), dtype=np.float64)
        else:
            xs = np.array([float(self.oracle.sample(int(a), int(b))) for a, b in zip(i, j)])
        bad = np.flatnonzero(~np.isfinite(xs))
        if bad.size:
            self._bad_sample(int(i[bad[0]]), int(j[bad[0]]), float(xs[bad[0]]))
        kern.record_many(self.n, self.xbar, self.m2, ps, xs)
        self._tp[t0:t1] = ps
        self._tx[t0:t1] = xs
        self.used = t1

    def run(self, thread: bool = True) -> np.ndarray:
        """Spend the rest of the budget; return ``top_k()``.

        With ``lag > 0`` the oracle samples in a background thread, in decision order, while the method
        makes its next decisions (the same samples and state as stepping; the oracle is used by that
        thread alone until ``run`` returns). ``thread=False`` samples in this thread between decisions
        instead, as ``step()`` does (the same samples and state): on a machine with no free core the two
        threads' hand-offs cost more than the overlap saves."""
        self._warmup_batch()
        if self.lag and self.used < self.budget and thread:
            self._run_lagged()
        while self.used < self.budget:
            self.step()
        return self.top_k()

    def _run_lagged(self) -> None:
        """The decisions of ``run`` with the oracle in a second thread, at most ``lag + 1`` samples ahead.

        The numba kernels of the engine and of the selectors release the GIL, so a poker oracle's deals
        and the method's decisions use two cores. Each decision's samples (its ``batch`` best pairs) go to
        the oracle thread as one request, and the samples that become visible are recorded in one kernel
        call: the deciding thread's Python per sample, which holds the GIL the deals need between two
        engine calls, is what is left to hide. After an oracle error the selector cannot go on."""
        asks, wake = queue.SimpleQueue(), queue.SimpleQueue()
        done: list = []          # the samples in decision order (an exception ends it)
        sample = self.oracle.sample
        # The oracle thread wakes the deciding thread once per ``every`` samples (or when it runs out of
        # asks), not once per sample: on a shared machine each wake-up costs the deal thread tens of
        # microseconds (futex, preemption), and it still has ``lag - every`` asks queued meanwhile.
        every = max(1, (self.lag + 1) // 2)

        def play():
            while (pairs := asks.get()) is not None:
                for i, j in pairs:
                    try:
                        done.append(float(sample(i, j)))
                    except BaseException as err:  # noqa: BLE001 - handed to the deciding thread
                        done.append(err)
                        wake.put(None)
                        return
                    if len(done) % every == 0:
                        wake.put(None)
                if asks.empty():
                    wake.put(None)

        taken = 0

        def results(m: int) -> list:
            """The next ``m`` samples in decision order (waiting for the oracle thread)."""
            nonlocal taken
            end = taken + m
            while len(done) < end and not (done and isinstance(done[-1], BaseException)):
                wake.get()
            if isinstance(done[-1], BaseException) and len(done) <= end:
                raise done[-1]
            out = done[taken:end]
            taken = end
            return out

        def next_result() -> float:
            return results(1)[0]

        worker = threading.Thread(target=play, name="pokerduel-oracle", daemon=True)
        worker.start()
        try:
            pi, pj = self.pi.tolist(), self.pj.tolist()
            tp, tx, pending, budget = self._tp, self._tx, self._pending, self.budget
            # ``_see_pending`` inlined where seeing a sample is recording it (no ``_after_sample`` hook)
            inline = type(self)._after_sample is Selector._after_sample
            n, xbar, m2 = self.n, self.xbar, self.m2
            while self.used < budget:
                t = self.used
                chunk = [self._decide_lagged()]
                counts = self._counts
                counts[chunk[0]] += 1
                while self._queued and t + len(chunk) < budget:   # the rest of the decision's batch
                    self.used = t + len(chunk)
                    q = self._decide_lagged()
                    counts[q] += 1
                    chunk.append(q)
                m = len(chunk)
                asks.put([(pi[q], pj[q]) for q in chunk])
                tp[t:t + m] = chunk
                tx[t:t + m] = np.nan
                self.used = t + m
                pending.extend((t + r, q, None) for r, q in enumerate(chunk))
                if not inline:
                    self._see_pending(next_result)
                    continue
                see = len(pending) - (self.lag if t + m < budget else 0)
                while see > 0 and pending[0][2] is not None:     # samples taken by step() before run()
                    s, q, x = pending.popleft()
                    kern.record(n, xbar, m2, q, x)
                    see -= 1
                if see > 0:
                    s0 = pending[0][0]
                    xs = np.array(results(see), dtype=np.float64)
                    ps = tp[s0:s0 + see]
                    bad = np.flatnonzero(~np.isfinite(xs))
                    if bad.size:
                        self._bad_sample(pi[ps[bad[0]]], pj[ps[bad[0]]], float(xs[bad[0]]))
                    tx[s0:s0 + see] = xs
                    kern.record_many(n, xbar, m2, ps, xs)
                    for _ in range(see):
                        pending.popleft()
        finally:
            asks.put(None)
            worker.join()

    # --- answers --------------------------------------------------------------------------------------
    @property
    def trace(self) -> Trace:
        p = self._tp[:self.used]
        return Trace(self.pi[p], self.pj[p], self._tx[:self.used].copy())

    def sample_borda(self) -> np.ndarray:
        """Borda scores of the sample means, ``sum_j xbar_ij`` (unsampled pairs count 0); with candidates or
        weights, ``sample_scores()``."""
        if self.score_weights is not None:
            return self.sample_scores()
        out = np.empty(self.K)
        kern.borda_means(self.K, self.pidx, self.xbar, out)
        return out

    def sample_scores(self) -> np.ndarray:
        """The candidates' scores (eq 1) of the sample means, ``sum_j w_ij xbar_ij`` (unsampled pairs count 0);
        the Borda scores ``sample_borda()`` in the plain mode."""
        sw = self.score_weights
        if sw is None:
            return self.sample_borda()
        out = np.empty(self.candidates)
        kern.wscore_means(self.pi, self.pj, sw.wa, sw.wb, self.xbar, out)
        return out

    def scores(self) -> np.ndarray:
        """The scores the current answer ranks by (higher is better), one per candidate."""
        return self.sample_scores()

    def top_k(self) -> np.ndarray:
        """The current top-k: ``k`` distinct indices, best first (ties go to the lower index)."""
        return top_k_of(self.scores(), self.k)
