"""Racing baselines under a fixed budget: PBR (Busa-Fekete et al. 2013) and AR (Heckel et al. 2019).

Both are PAC algorithms: they stop once confident at level ``delta`` and, as published, report nothing
before. Fitted to the common interface (exact budget, anytime answer):

- the answer at any time is the items already selected (accepted), then the undecided ones by their
  current score estimate, then the discarded (rejected) ones: k distinct indices;
- when a race ends with budget left, a new race starts with ``delta / restart_factor`` (default 10) on the
  statistics gathered so far, so the budget keeps going to the items that are still in doubt;
- the samples are scores, not wins: confidence radii are Gaussian (sub-Gaussian) radii with the sample
  variance plugged in, where the papers use Hoeffding's bound for outcomes in [0, 1]. With win/loss
  outcomes coded +-1 (``BernoulliOracle``) the variance is at most 1 and the radii are of Hoeffding's size.

Neither decision rule depends on the budget, so a run passes through the same states whatever the budget
(``anytime = True``).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from . import _kernels as kern
from . import _rng
from .base import Selector

UNDECIDED, SELECTED, DISCARDED = 0, 1, 2
_GROUP = np.array([1, 0, 2])


def _njit(fn):
    return numba.njit(cache=True, error_model="numpy")(fn)


def _check_unit(value, what, lo=0.0, hi=1.0):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) \
            or not np.isfinite(value) or not lo < value < hi:
        raise ValueError(f"{what} must be a number in ({lo:g}, {hi:g}), got {value!r}")
    return float(value)


def _check_above(value, what, lo):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) \
            or not np.isfinite(value) or not value > lo:
        raise ValueError(f"{what} must be a finite number > {lo:g}, got {value!r}")
    return float(value)


@_njit
def pbr_update(K, k, pidx, n, xbar, m2, status, delta, strict, var_floor):
    """One PBR sum-of-expectations decision step (Busa-Fekete et al. 2013, Algorithm 1 with SE).

    For every undecided item, the Borda score ``sum_j mu_ij`` lies in ``[lo_i, up_i] = sum_j (xbar_ij -+ c_ij)``
    with ``c_ij = s_ij sqrt(2 log(2 P n (n + 1) / delta) / n)`` (a union bound over the ``P`` pairs and over
    all sample counts ``n``, since ``sum_n 1/(n(n+1)) = 1``). Among the ``N`` undecided items, with ``kappa``
    places left: select ``i`` if it is surely better than at least ``N - kappa`` of them, discard it if at
    least ``kappa`` of them are surely better (``strict``: more than). Returns the number still undecided.
    """
    P = n.size
    floor = var_floor * kern.data_scale2(n, xbar, m2)
    lo = np.zeros(K)
    up = np.zeros(K)
    for i in range(K):
        if status[i] != 0:
            continue
        for j in range(K):
            if j == i:
                continue
            p = pidx[i, j]
            c = n[p]
            m = xbar[p] if i < j else -xbar[p]
            if c >= 2:
                v = m2[p] / (c - 1)
                if v < floor:
                    v = floor
                r = math.sqrt(2.0 * v * math.log(2.0 * P * c * (c + 1.0) / delta) / c)
            else:
                r = np.inf
            lo[i] += m - r
            up[i] += m + r
    nsel = 0
    nund = 0
    for i in range(K):
        if status[i] == 1:
            nsel += 1
        elif status[i] == 0:
            nund += 1
    kappa = k - nsel
    new = status.copy()
    for i in range(K):
        if status[i] != 0:
            continue
        beats = 0
        beaten = 0
        for j in range(K):
            if j == i or status[j] != 0:
                continue
            if lo[i] > up[j]:
                beats += 1
            if lo[j] > up[i]:
                beaten += 1
        if (beats > nund - kappa) if strict else (beats >= nund - kappa):
            new[i] = 1
        elif (beaten > kappa) if strict else (beaten >= kappa):
            new[i] = 2
    nsel = 0
    nund = 0
    for i in range(K):
        status[i] = new[i]
        if new[i] == 1:
            nsel += 1
        elif new[i] == 0:
            nund += 1
    if nund > 0 and (nsel == k or nund == k - nsel):
        fill = 2 if nsel == k else 1
        for i in range(K):
            if status[i] == 0:
                status[i] = fill
        nund = 0
    return nund


@_njit
def ar_beta(t, delta_item):
    """beta(t, delta') of Heckel et al.: log(1/d') + 0.75 log log(1/d') + 1.5 log(1 + log(t / 2))."""
    inv = 1.0 / delta_item
    return math.log(inv) + 0.75 * math.log(math.log(inv)) + 1.5 * math.log(1.0 + math.log(t / 2.0))


@_njit
def ar_update(K, k, cnt, mean, m2, status, delta, mult, var_floor):
    """One AR top-k elimination step (Heckel et al. 2019, the top-k case of their Algorithm 1).

    Active items sorted by the score estimate ``tau_i`` (mean score against uniformly random opponents);
    with ``kappa`` places left, the references are the kappa-th and (kappa+1)-th active items. ``i`` is
    accepted if ``tau_i - tau_(kappa+1) > mult (r_i + r_(kappa+1)) / 2`` and rejected if ``tau_(kappa) - tau_i
    > mult (r_(kappa) + r_i) / 2``, with ``r_i = sqrt(2 s_i^2 beta(t_i, delta / K) / t_i)``: the paper's
    ``alpha_t = sqrt(beta / (2 t))`` for outcomes in [0, 1] (variance at most 1/4), and its gap of
    ``4 alpha_t`` for ``mult = 4``. Returns the number still active.
    """
    nacc = 0
    nact = 0
    for i in range(K):
        if status[i] == 1:
            nacc += 1
        elif status[i] == 0:
            nact += 1
    kappa = k - nacc
    act = np.empty(nact, dtype=np.int64)
    score = np.empty(nact)
    c = 0
    for i in range(K):
        if status[i] == 0:
            act[c] = i
            score[c] = -mean[i]
            c += 1
    order = act[np.argsort(score, kind="mergesort")]
    if kappa <= 0 or nact <= kappa:
        fill = 2 if kappa <= 0 else 1
        for i in range(K):
            if status[i] == 0:
                status[i] = fill
        return 0
    tot = 0.0
    cc = 0
    for i in range(K):
        if cnt[i] >= 2:
            tot += m2[i] / (cnt[i] - 1)
            cc += 1
    floor = var_floor * (tot / cc if cc > 0 and tot > 0.0 else 1.0)
    rad = np.empty(K)
    for i in range(K):
        t = cnt[i]
        if t >= 2:
            v = m2[i] / (t - 1)
            if v < floor:
                v = floor
            rad[i] = math.sqrt(2.0 * v * ar_beta(t, delta / K) / t)
        else:
            rad[i] = np.inf
    a = order[kappa]            # the (kappa+1)-th
    b = order[kappa - 1]        # the kappa-th
    new = status.copy()
    for i in order:
        if i != a and mean[i] - mean[a] > mult * 0.5 * (rad[i] + rad[a]):
            new[i] = 1
        elif i != b and mean[b] - mean[i] > mult * 0.5 * (rad[b] + rad[i]):
            new[i] = 2
    nact = 0
    for i in range(K):
        status[i] = new[i]
        if new[i] == 0:
            nact += 1
    return nact


class _Racing(Selector):
    """Shared parts: decision status per item, rounds, restarts, the anytime answer.

    A decision step is due when the warm-up is complete (the first one) and whenever every sample of the
    current round has been taken; ``_sync`` applies it, after every sample and before every answer, so
    the state after ``b`` samples does not depend on the budget.
    """

    def __init__(self, oracle, k, budget, *, n0, rng, delta, restart_factor, var_floor, candidates=None,
                 weights=None):
        super().__init__(oracle, k, budget, n0=n0, rng=rng, candidates=candidates, weights=weights)
        self.delta0 = _check_unit(delta, "delta (the race's error probability)")
        self.restart_factor = _check_above(restart_factor, "restart_factor", 1.0)
        self.var_floor = _check_above(var_floor, "var_floor", 0.0)
        self.delta = self.delta0
        self.status = np.zeros(self.K, dtype=np.int64)
        self.restarts = 0
        self.rounds = 0
        self._queue = np.empty(0, dtype=np.int64)
        self._qpos = 0
        self._started = False

    def _sync(self) -> None:
        if not self._started:
            if self.used < self.warmup:
                return
            self._started = True
            self._begin()
            self._round_end()
        elif self._qpos >= self._queue.size:
            self._round_end()

    def _begin(self) -> None:
        """Called once when the warm-up is complete, before the first decision step."""

    def _round_end(self) -> None:
        if self._update() == 0:                # the race is over: a new one at a smaller delta
            self.delta /= self.restart_factor
            self.restarts += 1
            self.status[:] = UNDECIDED
        self._queue = self._new_round()
        self._qpos = 0
        self.rounds += 1

    def _next(self) -> int:
        self._sync()
        q = self._queue[self._qpos]
        self._qpos += 1
        return int(q)

    def _after_sample(self, p, x) -> None:
        self._sync()

    def _estimates(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def top_k(self) -> np.ndarray:
        """Selected items, then undecided, then discarded, each by the current score estimate."""
        self._sync()
        est = self._estimates()
        group = _GROUP[self.status]            # selected 0, undecided 1, discarded 2
        return np.lexsort((np.arange(self.K), -est, group))[:self.k].astype(np.int64)


class PBR(_Racing):
    """Preference-based racing with the sum-of-expectations (Borda) ranking (Busa-Fekete et al. 2013).

    Rounds sample every *active* pair once, in row-major order: a pair is active while one of its items
    is undecided (an undecided item's Borda score needs all its pairs). After each round ``pbr_update``
    selects and discards items. The first ``n0`` rounds are the common warm-up (every pair, ``n0 >= 2`` so
    that sample variances exist).

    Parameters (beyond ``Selector``'s)
    ----------
    delta : error probability of a race (default 0.05).
    strict : ``False`` (default): select when surely better than ``>= N - kappa`` undecided items; ``True``:
        ``> N - kappa`` as duelpy and the R PBR-SSCO learner do, which can never select for ``kappa = 1``.
    restart_factor : delta is divided by this when a race ends with budget left (default 10).
    var_floor : pair variances are floored at this times the mean pair variance (default 1e-12).
    """

    name = "pbr"
    min_n0 = 2

    def __init__(self, oracle, k, budget, *, n0: int = 3, rng=None, delta: float = 0.05, strict: bool = False,
                 restart_factor: float = 10.0, var_floor: float = 1e-12, candidates=None, weights=None):
        super().__init__(oracle, k, budget, n0=n0, rng=rng, delta=delta, restart_factor=restart_factor,
                         var_floor=var_floor, candidates=candidates, weights=weights)
        if not isinstance(strict, (bool, np.bool_)):
            raise ValueError(f"strict must be True or False, got {strict!r}")
        self.strict = bool(strict)

    def _update(self) -> int:
        return int(pbr_update(self.K, self.k, self.pidx, self.n, self.xbar, self.m2, self.status, self.delta,
                              self.strict, self.var_floor))

    def _new_round(self) -> np.ndarray:
        und = self.status == UNDECIDED
        return np.flatnonzero(und[self.pi] | und[self.pj]).astype(np.int64)

    def _decide(self) -> int:
        return self._next()

    def _estimates(self) -> np.ndarray:
        return self.sample_borda()


class AR(_Racing):
    """Active ranking for the top-k (Heckel, Shah, Ramchandran & Wainwright 2019), score-based.

    Each round compares every *active* item, in index order, with one opponent drawn uniformly from the
    other ``K - 1`` items (a counter stream keyed from ``rng``); the score estimate ``tau_i`` is the mean of
    i's scores in its own comparisons, an unbiased estimate of ``S_i / (K - 1)``. After each round
    ``ar_update`` accepts and rejects items. No warm-up by default (``n0 = 0``); warm-up samples, if any,
    count for both items of a pair (each meets every opponent once per warm-up round).

    Parameters (beyond ``Selector``'s)
    ----------
    delta : error probability of a race (default 0.05); ``beta`` uses ``delta / K`` per item.
    mult : the elimination gap in radii (default 4, the paper's ``4 alpha_t``; the authors' code uses 1 with
        an empirical alpha).
    restart_factor : delta is divided by this when a race ends with budget left (default 10).
    var_floor : item variances are floored at this times their mean (default 1e-12).
    """

    name = "ar"
    min_n0 = 0

    def __init__(self, oracle, k, budget, *, n0: int = 0, rng=None, delta: float = 0.05, mult: float = 4.0,
                 restart_factor: float = 10.0, var_floor: float = 1e-12, candidates=None, weights=None):
        super().__init__(oracle, k, budget, n0=n0, rng=rng, delta=delta, restart_factor=restart_factor,
                         var_floor=var_floor, candidates=candidates, weights=weights)
        self.mult = _check_above(mult, "mult", 0.0)
        self.opponent_key = np.uint64(_rng.stream_key(np.uint64(_rng.key_from(self.rng)), 0))
        self.cnt = np.zeros(self.K, dtype=np.int64)
        self.mean = np.zeros(self.K)
        self.m2i = np.zeros(self.K)
        self._item = -1
        self._sync()

    def _update(self) -> int:
        return int(ar_update(self.K, self.k, self.cnt, self.mean, self.m2i, self.status, self.delta, self.mult,
                             self.var_floor))

    def _new_round(self) -> np.ndarray:
        return np.flatnonzero(self.status == UNDECIDED).astype(np.int64)

    def _begin(self) -> None:
        tr = self.trace                          # warm-up samples count for both items
        for a, b, x in zip(tr.i, tr.j, tr.x):
            kern.record(self.cnt, self.mean, self.m2i, a, x)
            kern.record(self.cnt, self.mean, self.m2i, b, -x)

    def _decide(self) -> int:
        i = self._next()
        j = min(int(_rng.uniform_at(self.opponent_key, self.used) * (self.K - 1)), self.K - 2)
        j += j >= i
        self._item = i
        return int(self.pidx[i, j])

    def _after_sample(self, p, x) -> None:
        if self._started:
            i = self._item
            kern.record(self.cnt, self.mean, self.m2i, i, x if i == self.pi[p] else -x)
        self._sync()

    def _estimates(self) -> np.ndarray:
        return self.mean.copy()
