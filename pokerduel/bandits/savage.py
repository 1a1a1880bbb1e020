"""SAVAGE (Urvoy, Clerot, Feraud & Naamane, ICML 2013) for Copeland, Borda and Condorcet winners, its
identification baselines, and a Borda top-k variant that runs among the fixed-budget top-k selectors.

The paper's text available here lost its formulas; they follow ``../shared/notes/other-seed-algorithms.md``
section 2 (reconstructed from the paper's prose and the D-TS author's and Komiyama's code). Exploration
variables are the pairs ``i < j``; the least-sampled live pair is sampled (round robin); its confidence
interval ``[lo, hi]`` is intersected with ``[mean - c(n), mean + c(n)]`` (the successive confidence sets
are forced to be nested); a pair leaves the live set once the decision no longer depends on it
(``IndepTest``); exploration stops when the box decides the winner or no pair is live. The radius is
``c(n) = sqrt(log(eta / delta) / (2 n))`` with ``eta = 2 N T`` given a horizon ``T`` and
``eta = pi^2 N n^2 / 3`` without one (``N = K(K-1)/2``). For regret, explore-then-exploit with
``delta = 1/T``: once exploration stops the decision ``d`` is played as the pair ``(d, d)``.

SAVAGE Sampling (``test="sampling"``, the paper's Algorithm 2) replaces the hand-made independence
predicate by an estimate from "introspective" simulations: multi-start random walks in the box, each point
probed by redrawing the variable alone and comparing the decision (``_savage.sampled_independent``). The
paper's text available here lost Algorithm 2 itself; what survives (multi-start random walks, parameters
m and M, an almost-everywhere statement with a one-sided risk that more samples make arbitrarily low) is
implemented literally, and the details it leaves open are parameters: ``starts`` (m), ``steps`` (M),
``step`` (the walk's increment) and ``retest`` (how often the tests run).
"""

from __future__ import annotations

import math

import numpy as np

from . import _savage as sk
from .base import DuelingBandit, _check_float, _check_int
from .problems import PreferenceOracle

WINNERS = {"copeland": sk.COPELAND, "borda": sk.BORDA, "condorcet": sk.CONDORCET}
TESTS = {"savage": sk.TEST_SAVAGE, "none": sk.TEST_NONE, "arm": sk.TEST_ARM, "ucb": sk.TEST_UCB,
         "sampling": sk.TEST_SAMPLING}


def log_eta_over_delta(N: int, delta: float, horizon: int | None) -> tuple[float, bool]:
    """``(log(eta / delta) without the n-dependent part, anytime)`` of the radius ``c(n)``."""
    if horizon is None:
        return math.log(math.pi ** 2 * N / 3.0 / delta), True
    return math.log(2.0 * N * horizon / delta), False


class Savage(DuelingBandit):
    """SAVAGE as an explore-then-exploit dueling bandit (``horizon`` duels in all).

    Parameters
    ----------
    winner : ``"copeland"`` (default), ``"borda"`` or ``"condorcet"``: the independence test and decision.
    delta : confidence; default ``1/horizon`` (the paper's explore-then-exploit setting).
    anytime : use the horizon-free radius (``eta = pi^2 N n^2 / 3``) instead of ``eta = 2 N T``.
    test : ``"savage"`` (the paper's), ``"none"`` (uniform exploration: no variable is ever dropped),
        ``"arm"`` (naive elimination: arm-level only, the Copeland sign test (a) is not applied) or
        ``"ucb"`` (naive UCB: no variable is ever dropped, UCB1 sampling over the pairs instead of the
        round robin, SAVAGE's stopping rule; see ``_savage.sv_pick_ucb``) or ``"sampling"`` (SAVAGE
        Sampling: the independence predicate estimated by random walks; Copeland and Borda winners).
    exploit : after exploration play ``(d, d)`` (default); with ``False`` the run ends at the stop.
    starts, steps : SAVAGE Sampling's m random walks of M points each per test of one variable (default
        10 and 10: 100 probes before a variable is declared independent).
    step : half-width of a walk step, as a fraction of each interval's width (default 0.25).
    retest : the sampled tests run after round 1, then after every ``max(1, floor(retest * t))`` more
        rounds (default 0: after every duel, as Algorithm 1 reads; the exact predicates are cheap enough
        for that, the sampled one costs up to ``starts * steps`` decisions per live variable). The
        acceptance test (the box decides the winner) stays exact and runs as in SAVAGE.
    """

    name = "savage"

    def __init__(self, oracle, horizon, *, winner: str = "copeland", delta: float | None = None,
                 anytime: bool = False, test: str = "savage", exploit: bool = True, rng=None, ties="coin",
                 starts: int = 10, steps: int = 10, step: float = 0.25, retest: float = 0.0):
        super().__init__(oracle, horizon, rng=rng, ties=ties)
        if winner not in WINNERS:
            raise ValueError(f"unknown winner {winner!r}; allowed: {', '.join(map(repr, WINNERS))}")
        if test not in TESTS:
            raise ValueError(f"unknown test {test!r}; allowed: {', '.join(map(repr, TESTS))}")
        if test == "sampling" and winner == "condorcet":
            raise ValueError("test 'sampling' needs winner 'copeland' or 'borda' (its random walks stay in the box; "
                             "the Condorcet feasible set is not a box)")
        if test == "sampling" and winner == "copeland" and self.K > 62:
            raise ValueError(f"test 'sampling' with winner 'copeland' supports K <= 62 arms, got K = {self.K}")
        self.starts = _check_int(starts, "starts", 1)
        self.steps = _check_int(steps, "steps", 1)
        self.step_size = _check_float(step, "step", 0.0)
        if self.step_size > 1:
            raise ValueError(f"step must lie in (0, 1], got {step!r}")
        self.retest = _check_float(retest, "retest", 0.0, lo_open=False)
        self.winner_kind = winner
        self.mode = WINNERS[winner]
        self.test = TESTS[test]
        self.delta = 1.0 / self.horizon if delta is None else _check_float(delta, "delta", 0.0)
        if not 0 < self.delta < 1:
            raise ValueError(f"delta must lie in (0, 1), got {self.delta}")
        self.anytime = bool(anytime)
        self.exploit = bool(exploit)
        K = self.K
        pi, pj = np.triu_indices(K, 1)
        self.pi = pi.astype(np.int64)
        self.pj = pj.astype(np.int64)
        N = self.pi.size
        self.log_ed, _ = log_eta_over_delta(N, self.delta, None if self.anytime else self.horizon)
        self.n = np.zeros(N, dtype=np.int64)
        self.s = np.zeros(N)
        self.lo = np.zeros(N)
        self.hi = np.ones(N)
        self.live = np.ones(N, dtype=np.bool_)
        self.cmin = np.zeros(K, dtype=np.int64)
        self.cplus = np.zeros(K, dtype=np.int64)
        self.lb = np.zeros(K)
        self.ub = np.zeros(K)
        self.alive = np.ones(K, dtype=np.bool_)
        self.ist = np.zeros(3, dtype=np.int64)
        self._x = np.zeros(N)
        self._score = np.zeros(K)
        self._dec = np.zeros(1, dtype=np.int64)
        sk.sv_refresh(self.mode, self.test, K, self.pi, self.pj, self.lo, self.hi, self.live, self.cmin,
                      self.cplus, self.lb, self.ub, self.alive)

    @property
    def stopped_at(self) -> int:
        """The round at which exploration stopped (0 while exploring): the sample complexity."""
        return int(self.ist[0])

    def step(self):
        if self.ist[0] and not self.exploit:
            raise RuntimeError("exploration has stopped and exploit=False")
        return super().step()

    def _choose(self, t):
        if self.ist[0]:
            d = int(self._dec[0])
            return d, d
        if self.test == sk.TEST_UCB:
            self._p = int(sk.sv_pick_ucb(self.mode, self.pi, self.pj, self.n, self.s, self.ub, self.log_ed,
                                         self.anytime))
        else:
            self._p = int(sk.sv_pick(self.live, self.n))
        return int(self.pi[self._p]), int(self.pj[self._p])

    def _record(self, i, j, w):
        if self.ist[0]:
            return
        p = self._p
        self.W[i, j] += w
        self.W[j, i] += 1.0 - w
        changed = sk.sv_update(p, w, self.n, self.s, self.lo, self.hi, self.log_ed, self.anytime)
        if self.test == sk.TEST_SAMPLING and sk.sv_sampling_due(self.ist, self.t + 1, self.retest):
            sk.sv_sample_tests(self.mode, self.K, self.pi, self.pj, self.lo, self.hi, self.live, self.starts,
                               self.steps, self.step_size, self.st, self._x, self._score)
            changed = True
        if changed or self.mode == sk.BORDA:
            if sk.sv_refresh(self.mode, self.test, self.K, self.pi, self.pj, self.lo, self.hi, self.live, self.cmin,
                             self.cplus, self.lb, self.ub, self.alive):
                self.ist[0] = self.t + 1
                self._dec[0] = self._decide()

    def run(self) -> int:
        if not self.exploit:
            if isinstance(self.feedback, PreferenceOracle):
                self._run_fast(*self.feedback.stream_state, stop_early=True)
            else:
                while self.t < self.horizon and not self.ist[0]:
                    self.step()
            return self.winner()
        return super().run()

    def _run_fast(self, P, key, pidx, pos, stop_early: bool = False):
        t1 = self.horizon
        if stop_early:
            # explore in chunks and stop at the first chunk boundary after the stop (then trim)
            while self.t < self.horizon and not self.ist[0]:
                t1 = min(self.horizon, self.t + 4096)
                self._run_chunk(P, key, pidx, pos, t1)
            if self.ist[0]:
                self.t = int(self.ist[0])
            return
        self._run_chunk(P, key, pidx, pos, t1)

    def _run_chunk(self, P, key, pidx, pos, t1):
        # the W matrix is rebuilt from the pair counts after a compiled run
        sk.sv_run(P, key, pidx, pos, self.mode, self.test, self.pi, self.pj, self.n, self.s, self.lo, self.hi,
                  self.live, self.cmin, self.cplus, self.lb, self.ub, self.alive, self.log_ed, self.anytime,
                  self.ist, self.t, t1, self._dec, self._ti, self._tj, self.starts, self.steps, self.step_size,
                  self.retest, self.st, self._x, self._score)
        self.W[self.pi, self.pj] = self.s
        self.W[self.pj, self.pi] = self.n - self.s
        self.t = t1

    def _decide(self) -> int:
        if self.test == sk.TEST_SAMPLING:
            return int(sk.decide_at_estimate(self.mode, self.K, self.pi, self.pj, self.n, self.s, self.lo, self.hi,
                                             self._x, self._score))
        return int(sk.sv_decide(self.mode, self.K, self.pi, self.pj, self.lo, self.hi, self.cmin, self.cplus,
                                self.lb, self.ub, self.alive))

    def winner(self) -> int:
        """The decision once exploration stopped, else the decision on the current box (SAVAGE Sampling:
        f at the point of the box nearest the empirical means)."""
        if self.ist[0]:
            return int(self._dec[0])
        return self._decide()


def wrapped_identify(P, kind: str, *, delta: float, max_duels: int, seed, anytime: bool = True) -> tuple[int, int]:
    """Wrapped UCB (``kind="ucb"``) or wrapped elimination (``"elimination"``) for the Borda winner of
    ``P``: ``(duels used, decision)``. See ``_savage.wrapped_run``."""
    from ..selectors._rng import key_from

    if kind not in ("ucb", "elimination"):
        raise ValueError(f"unknown wrapped baseline {kind!r}; allowed: 'ucb', 'elimination'")
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    fb, own = ss.spawn(2)
    oracle = PreferenceOracle(P, np.random.default_rng(fb))
    Pm, key, pidx, pos = oracle.stream_state
    K = oracle.K
    log_ed, at = log_eta_over_delta(K, _check_float(delta, "delta", 0.0), None if anytime else max_duels)
    st = np.array([key_from(np.random.default_rng(own))], dtype=np.uint64)
    out = np.zeros(1, dtype=np.int64)
    used = sk.wrapped_run(Pm, key, pidx, pos, kind == "ucb", np.zeros(K, dtype=np.int64), np.zeros(K), log_ed, at,
                          st, int(max_duels), out)
    return int(used), int(out[0])


def identify(P, winner: str, test: str, *, delta: float, max_duels: int, seed, anytime: bool = True,
             **sampling) -> tuple[int, int]:
    """SAVAGE (or a baseline ``test``: ``"none"`` uniform, ``"arm"`` naive elimination, ``"ucb"`` naive UCB;
    or ``"sampling"``, SAVAGE Sampling, whose ``starts``, ``steps``, ``step``, ``retest`` go in ``sampling``)
    as a pure identification run on ``P``: ``(duels used, decision)``; ``duels used == max_duels`` means it
    did not stop."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    fb, own = ss.spawn(2)
    oracle = PreferenceOracle(P, np.random.default_rng(fb))
    b = Savage(oracle, max_duels, winner=winner, test=test, delta=delta, anytime=anytime, exploit=False,
               rng=np.random.default_rng(own), **sampling)
    w = b.run()
    return (b.stopped_at if b.stopped_at else max_duels), w
