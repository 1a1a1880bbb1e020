"""Regret-minimising dueling bandits: Sup-KLUCB (Agrawal & Chaporkar 2019), RUCB (Zoghi et al. 2014) and
Double Thompson Sampling (Wu & Liu 2016).

Each class plays exactly ``horizon`` duels, one per ``step()``; ``run()`` plays the rest. On a
``PreferenceOracle`` ``run()`` hands the remaining rounds to a compiled whole-run kernel that executes
the same round kernel with the same per-pair feedback streams, so step-by-step and whole runs give
identical traces (tested). Any other oracle is turned into win/loss by the sign of its samples
(``BinaryFeedback``) and played round by round. ``winner()`` is the anytime estimate, ``trace`` the
pairs played so far.
"""

from __future__ import annotations

import numpy as np

from . import _kernels as kern
from .base import DuelingBandit, _check_float, _check_int  # noqa: F401  (re-exported)
from .problems import PreferenceOracle
from .savage import Savage


class SupKLUCB(DuelingBandit):
    """Sup-KLUCB, Algorithm 1 of Agrawal & Chaporkar (arXiv:1902.02778), for Copeland problems.

    Every unordered pair ``(i, j)``, ``i <= j``, self-pairs included, is an arm of a ``K(K+1)/2``-armed
    bandit with mean ``mu = Sup_i Sup_j``, where ``Sup_i`` is the empirical normalised Copeland score
    (``P^_ij = W_ij / N_ij > 1/2``, strict). After one play of every pair (row-major), it plays the largest
    KL-UCB index ``max{q : N_a K(mu_a, q) <= c1 ln(n - Kbar) + c2 ln(ln(n - Kbar) + 1)}`` (bisection to
    ``tol``; random tie-break). Two typos of the paper's listing are fixed: step 7 computes ``Sup_i`` for
    arms ``i in A`` (not ``B``) and step 11 accumulates ``W[a] <- W[a] + w_n(a)`` (not ``<-``).

    ``c1 = 2/K`` and ``c2 = 3/K + 40/(K-2)^2`` by default (the paper's Copeland values). ``c2`` is
    undefined at ``K = 2``; there ``(K-2)^2`` is replaced by 1 (``c2 = 41.5``, the K = 3 term carried
    over): with two arms the winner is the arm that wins the one duel, and any ``c2 > 0`` is consistent.
    """

    name = "sup-klucb"

    def __init__(self, oracle, horizon: int, *, c1: float | None = None, c2: float | None = None,
                 tol: float = 1e-9, rng=None, ties: str = "coin"):
        super().__init__(oracle, horizon, rng=rng, ties=ties)
        K = self.K
        self.c1 = 2.0 / K if c1 is None else _check_float(c1, "c1", 0.0, lo_open=False)
        self.c2 = 3.0 / K + 40.0 / max(1, (K - 2) ** 2) if c2 is None else _check_float(c2, "c2", 0.0, lo_open=False)
        self.tol = _check_float(tol, "tol (bisection tolerance)", 0.0)
        ai, aj = np.triu_indices(K, 0)
        self.ai = ai.astype(np.int64)
        self.aj = aj.astype(np.int64)
        self.NA = np.zeros(self.ai.size, dtype=np.int64)
        self.cw = np.zeros(K, dtype=np.int64)
        nkey = (K - 1) ** 2 + 1
        self._kq = np.zeros(nkey)
        self._ks = np.zeros((3, nkey), dtype=np.int64)
        self._keys = np.zeros(self.ai.size, dtype=np.int64)

    def _choose(self, t):
        a = kern.sk_choose(t, self.K, self.cw, self.ai, self.aj, self.NA, self.c1, self.c2, self.tol, self._kq,
                           self._ks, self._keys, self.st)
        self._a = a
        return int(self.ai[a]), int(self.aj[a])

    def _record(self, i, j, w):
        kern.sk_record(self.W, self.cw, self.ai, self.aj, self.NA, self._a, w)

    def _run_fast(self, P, key, pidx, pos):
        kern.sk_run(P, key, pidx, pos, self.W, self.cw, self.ai, self.aj, self.NA, self.c1, self.c2, self.tol,
                    self._kq, self._ks, self._keys, self.st, self.t, self.horizon, self._ti, self._tj)

    def sup(self) -> np.ndarray:
        """The empirical normalised Copeland scores ``Sup_i``."""
        return self.cw / (self.K - 1)

    def winner(self) -> int:
        """``argmax_i Sup_i`` (the paper's answer), ties to the lower index."""
        return int(np.argmax(self.cw))


class _UCBBased(DuelingBandit):
    def __init__(self, oracle, horizon, *, alpha: float = 0.51, rng=None, ties="coin"):
        super().__init__(oracle, horizon, rng=rng, ties=ties)
        self.alpha = _check_float(alpha, "alpha", 0.0)
        K = self.K
        self.G = np.empty((K, K))
        self.H = np.empty((K, K))
        self.Q = np.empty((K, K))
        kern.ucb_reset(self.G, self.H, self.Q)

    def _record(self, i, j, w):
        kern.ucb_record(self.W, self.G, self.H, self.Q, self.alpha, i, j, w)


class RUCB(_UCBBased):
    """Relative Upper Confidence Bound (Zoghi, Whiteson, Munos & de Rijke, ICML 2014), Algorithm 1.

    ``u_ij = W_ij/N_ij + sqrt(alpha ln t / N_ij)`` (1 when ``N_ij = 0``, ``u_ii = 1/2``); candidates
    ``C = {c : u_cj >= 1/2 for all j}``; the hypothesised best arm ``B`` is kept while it stays in ``C``
    and is drawn with probability 1/2; the opponent is ``argmax_j u_jc`` (random tie-break, ``d != c``
    when ``c`` ties). ``alpha = 0.51`` as in the paper's experiments (needs ``alpha > 1/2`` for the
    theory; any ``alpha > 0`` is accepted).
    """

    name = "rucb"

    def __init__(self, oracle, horizon, *, alpha: float = 0.51, rng=None, ties="coin"):
        super().__init__(oracle, horizon, alpha=alpha, rng=rng, ties=ties)
        self.Bst = np.array([-1], dtype=np.int64)
        self._inC = np.zeros(self.K, dtype=np.bool_)

    def _choose(self, t):
        cd = kern.rucb_choose(t, self.W, self.G, self.alpha, self.Bst, self._inC, self.st)
        return divmod(int(cd), self.K)

    def _run_fast(self, P, key, pidx, pos):
        kern.rucb_run(P, key, pidx, pos, self.W, self.G, self.H, self.Q, self.alpha, self.Bst, self._inC, self.st,
                      self.t, self.horizon, self._ti, self._tj)


class DTS(_UCBBased):
    """Double Thompson Sampling (Wu & Liu, NIPS 2016), Algorithm 1.

    Phase 1: candidates maximise the optimistic Copeland count ``#{j : u_ij > 1/2}``; among them ``a1``
    maximises the Copeland count of one Beta posterior sample ``theta_ij ~ Beta(W_ij+1, W_ji+1)``
    (``theta_ji = 1 - theta_ij``; random tie-break). Phase 2: fresh samples ``theta_{i a1}`` for the arms
    with ``l_{i a1} <= 1/2`` (``theta_{a1 a1} = 1/2``), ``a2`` their argmax. ``alpha = 0.51`` as in the
    paper. The Beta draws are replaced by exactly equivalent cheaper draws (see ``_kernels.dts_choose``).
    """

    name = "dts"

    def __init__(self, oracle, horizon, *, alpha: float = 0.51, rng=None, ties="coin"):
        super().__init__(oracle, horizon, alpha=alpha, rng=rng, ties=ties)
        K = self.K
        self._Z = np.zeros(K, dtype=np.int64)
        self._S = np.zeros((K, K))
        self._inC = np.zeros(K, dtype=np.bool_)

    def _choose(self, t):
        aa = kern.dts_choose(t, self.W, self.G, self.H, self.Q, self._Z, self._S, self._inC, self.st)
        return divmod(int(aa), self.K)

    def _run_fast(self, P, key, pidx, pos):
        kern.dts_run(P, key, pidx, pos, self.W, self.G, self.H, self.Q, self.alpha, self._Z, self._S, self._inC,
                     self.st, self.t, self.horizon, self._ti, self._tj)


BANDITS = {"sup-klucb": SupKLUCB, "rucb": RUCB, "dts": DTS}


def make_bandit(name: str, oracle, horizon: int, **options) -> DuelingBandit:
    """The bandit registered as ``name`` (``BANDITS`` and ``"savage"``) with the given options."""
    if name == "savage":
        return Savage(oracle, horizon, **options)
    cls = BANDITS.get(name)
    if cls is None:
        raise ValueError(f"unknown bandit {name!r}; known: {', '.join(list(BANDITS) + ['savage'])}")
    return cls(oracle, horizon, **options)


def run_on_matrix(name: str, P, horizon: int, seed, **options) -> tuple[np.ndarray, np.ndarray, int]:
    """One whole run of bandit ``name`` on preference matrix ``P``: ``(ti, tj, winner)``.

    ``seed`` (an int, ``SeedSequence`` or ``Generator``) is split into the feedback stream key and the
    bandit's generator, so a run is reproducible from the seed alone.
    """
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(
        int(seed.integers(2**63)) if isinstance(seed, np.random.Generator) else seed)
    fb, own = ss.spawn(2)
    oracle = PreferenceOracle(P, np.random.default_rng(fb))
    b = make_bandit(name, oracle, horizon, rng=np.random.default_rng(own), **options)
    w = b.run()
    ti, tj = b.trace
    return ti, tj, w
