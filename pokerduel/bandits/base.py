"""Common machinery of the regret-minimising dueling bandits: argument checks and ``DuelingBandit``.

Its own module so that every bandit (``algorithms``, ``savage``) builds on it and ``algorithms`` can
register SAVAGE in ``make_bandit`` with imports pointing one way.
"""

from __future__ import annotations

import numpy as np

from ..selectors._rng import key_from
from .problems import TIES, PreferenceOracle, as_feedback, check_preference_matrix


def _check_int(value, what: str, lo: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"{what} must be an integer >= {lo}, got {value!r}")
    return int(value)


def _check_float(value, what: str, lo: float, lo_open: bool = True) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number, got {value!r}") from None
    if not np.isfinite(v) or (v <= lo if lo_open else v < lo):
        raise ValueError(f"{what} must be a finite number {'>' if lo_open else '>='} {lo}, got {value!r}")
    return v


class DuelingBandit:
    """Common machinery: oracle -> binary feedback, horizon used exactly, injected rng, trace.

    Parameters
    ----------
    oracle : a ``PreferenceOracle`` (fast whole runs), or any score oracle (``K``, ``sample(i, j)``).
    horizon : number of duels, used exactly.
    rng : ``numpy.random.Generator`` for every random choice of the bandit (seeds its compiled stream
        and tie coins); ``None`` makes a fresh unseeded one.
    ties : how a zero score sample counts, ``"coin"`` (default) or ``"half"`` (see ``BinaryFeedback``).
    """

    name = "base"

    def __init__(self, oracle, horizon: int, *, rng: np.random.Generator | None = None, ties: str = "coin"):
        if ties not in TIES:
            raise ValueError(f"unknown ties rule {ties!r}; allowed: {', '.join(map(repr, TIES))}")
        self.feedback = as_feedback(oracle, ties)
        self.oracle = oracle
        self.K = K = int(self.feedback.K)
        self.horizon = _check_int(horizon, "horizon (number of duels)", 1)
        if rng is None:
            rng = np.random.default_rng()
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        self.rng = rng
        self.st = np.array([key_from(rng)], dtype=np.uint64)
        self.W = np.zeros((K, K))
        self.t = 0
        self._ti = np.zeros(self.horizon, dtype=np.int64)
        self._tj = np.zeros(self.horizon, dtype=np.int64)

    # --- playing ----------------------------------------------------------------------------------------
    def _win(self, i: int, j: int) -> float:
        if i == j:
            return 0.5
        if isinstance(self.feedback, PreferenceOracle):
            return self.feedback.win(i, j)
        return self.feedback.win(i, j, self.rng)

    def step(self) -> tuple[int, int, float]:
        """Play one duel; return ``(i, j, w)`` with ``w`` = 1 if ``i`` won (an arm against itself: 1/2,
        never asked of the oracle)."""
        if self.t >= self.horizon:
            raise RuntimeError(f"the horizon of {self.horizon} duels is used up")
        i, j = self._choose(self.t + 1)
        w = self._win(i, j)
        self._record(i, j, w)
        self._ti[self.t] = i
        self._tj[self.t] = j
        self.t += 1
        return i, j, w

    def run(self) -> int:
        """Play the rest of the horizon; return ``winner()``."""
        if self.t < self.horizon:
            if isinstance(self.feedback, PreferenceOracle):
                self._run_fast(*self.feedback.stream_state)
                self.t = self.horizon
            else:
                while self.t < self.horizon:
                    self.step()
        return self.winner()

    def _choose(self, t: int) -> tuple[int, int]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _record(self, i: int, j: int, w: float) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _run_fast(self, P, key, pidx, pos) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    # --- answers ----------------------------------------------------------------------------------------
    @property
    def trace(self) -> tuple[np.ndarray, np.ndarray]:
        """``(i, j)``: the pairs played so far, in order."""
        return self._ti[:self.t].copy(), self._tj[:self.t].copy()

    def empirical_preferences(self) -> np.ndarray:
        """``W_ij / (W_ij + W_ji)``, 1/2 where a pair was never played."""
        N = self.W + self.W.T
        with np.errstate(invalid="ignore", divide="ignore"):
            P = np.where(N > 0, self.W / N, 0.5)
        np.fill_diagonal(P, 0.5)
        return P

    def winner(self) -> int:
        """Anytime estimate: the arm with the largest empirical Copeland count (strict ``> 1/2``), ties
        to the lower index."""
        P = self.empirical_preferences()
        return int(np.argmax((P > 0.5).sum(axis=1)))

    def regret(self, P, kind: str = "copeland") -> np.ndarray:
        """Per-round regret of the trace under the true matrix ``P`` (see ``problems.regret_per_round``)."""
        from .problems import regret_per_round

        ti, tj = self.trace
        return regret_per_round(ti, tj, check_preference_matrix(P), kind)
