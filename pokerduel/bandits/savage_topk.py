"""SAVAGE for the Borda top-k under a fixed budget, as a ``pokerduel.selectors.Selector``.

The variables are the pair means ``mu_ij`` (zero-sum scores, ``i < j``), each with a nested confidence
interval ``[lo, hi]`` (radius ``scale * sqrt(log(eta / delta) / (2 n))``, horizon-free ``eta = pi^2 N n^2 /
3``, so decisions never depend on the budget). The Borda sums ``S_i = sum_j mu_ij`` get box bounds
``[lb_i, ub_i]``. Arm ``i`` is settled *in* when at most ``k - 1`` others have ``ub_l >= lb_i`` and *out*
when at least ``k`` others have ``lb_l > ub_i``; pair ``(i, j)`` is independent of the top-k set (SAVAGE's
IndepTest) once both arms are settled. Each step samples the least-sampled live pair; when no pair is
live the budget is spent on the least-sampled pair overall (the budget is used exactly).

``scale``: the width of a sample's range for Hoeffding's bound. ``None`` (default) uses ``2 sigma``, with
``sigma`` the pooled standard deviation of the warm-up (a sub-Gaussian bound for scores of unknown range;
``scale = 2`` is exact Hoeffding for +1/-1 duels).

Registering it with the selectors (``make_selector("savage", ...)``) is ``register()``; see ``docs/bandits.md``.
"""

from __future__ import annotations

import math

import numpy as np

from ..selectors.base import Selector


class SavageTopK(Selector):
    """SAVAGE Borda top-k under a fixed budget (see the module docstring)."""

    name = "savage"
    min_n0 = 2

    def __init__(self, oracle, k, budget, *, n0: int = 3, delta: float = 0.05, scale: float | None = None,
                 rng=None):
        super().__init__(oracle, k, budget, n0=n0, rng=rng)
        try:
            delta = float(delta)
        except (TypeError, ValueError):
            raise ValueError(f"delta must be a number in (0, 1), got {delta!r}") from None
        if not 0.0 < delta < 1.0:
            raise ValueError(f"delta must be a number in (0, 1), got {delta!r}")
        self.delta = delta
        if scale is not None:
            try:
                scale = float(scale)
            except (TypeError, ValueError):
                raise ValueError(f"scale must be a positive number or None, got {scale!r}") from None
            if not (np.isfinite(scale) and scale > 0):
                raise ValueError(f"scale must be a positive number or None, got {scale!r}")
        self.scale = scale
        P = self.pi.size
        self._log_ed = math.log(math.pi ** 2 * P / 3.0 / delta)
        self.lo = np.full(P, -np.inf)
        self.hi = np.full(P, np.inf)
        self.live = np.ones(P, dtype=bool)
        self._ready = False

    def _scale(self) -> float:
        if self.scale is None:
            dof = np.maximum(self.n - 1, 0).sum()
            sd = math.sqrt(self.m2.sum() / dof) if dof > 0 else 1.0
            self.scale = 2.0 * sd if sd > 0 else 1e-12
        return self.scale

    def _after_sample(self, p, x):
        # (the base class's batched warm-up calls no hook: the intervals start at the first sample after it)
        if self.used < self.warmup:
            return
        if not self._ready:
            self._ready = True
            self._scale()
            for q in range(self.pi.size):
                self._tighten(q)
        else:
            self._tighten(p)
        self._refresh()

    def _decide(self) -> int:
        if not self._ready:
            self._after_sample(-1, 0.0)
        n = np.where(self.live, self.n, np.iinfo(np.int64).max) if self.live.any() else self.n
        return int(np.argmin(n))

    def _tighten(self, p):
        n = self.n[p]
        r = self.scale * math.sqrt((self._log_ed + 2.0 * math.log(n)) / (2.0 * n))
        self.lo[p] = max(self.lo[p], self.xbar[p] - r)
        self.hi[p] = min(self.hi[p], self.xbar[p] + r)
        if self.lo[p] > self.hi[p]:
            self.lo[p] = self.hi[p] = self.xbar[p]

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Box bounds ``(lb, ub)`` of the Borda sums."""
        K = self.K
        lb = np.zeros(K)
        ub = np.zeros(K)
        np.add.at(lb, self.pi, self.lo)
        np.add.at(ub, self.pi, self.hi)
        np.add.at(lb, self.pj, -self.hi)
        np.add.at(ub, self.pj, -self.lo)
        return lb, ub

    def settled(self) -> np.ndarray:
        """Arms whose membership of the top-k no longer depends on the box."""
        lb, ub = self.bounds()
        k = self.k
        # others whose upper bound reaches my lower bound (minus myself: ub_i >= lb_i always)
        above = (ub[None, :] >= lb[:, None]).sum(axis=1) - 1
        beaten = (lb[None, :] > ub[:, None]).sum(axis=1)
        return (above <= k - 1) | (beaten >= k)

    def _refresh(self):
        s = self.settled()
        self.live = ~(s[self.pi] & s[self.pj])

def register() -> None:
    """Add ``"savage"`` to ``pokerduel.selectors.SELECTORS`` (idempotent)."""
    from .. import selectors

    selectors.SELECTORS.setdefault("savage", SavageTopK)
