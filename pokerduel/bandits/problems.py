"""Preference matrices, binary feedback and the winners and regrets of dueling bandits.

A **preference matrix** ``P`` has ``P[i, j]`` = probability that ``i`` beats ``j``, ``P + P.T = 1`` off
the diagonal and ``P[i, i] = 1/2``. Feedback is binary: ``win(i, j)`` is 1.0 if ``i`` won the duel, 0.0 if
it lost (and, from a score oracle, 1/2 or a fair coin on a tie).

``PreferenceOracle`` draws the duels of each unordered pair from its own counter-based stream (the
``streams="counter"`` ``BernoulliOracle`` of the selectors), so a pair's t-th duel is the same whatever
the order of play, and the compiled whole-run kernels reproduce the Python step-by-step runs exactly.
``BinaryFeedback`` turns any zero-sum score oracle (the poker players too: "who won the duplicate deal")
into win/loss by the sign of the sample.
"""

from __future__ import annotations

import numpy as np

from ..selectors.problems import BernoulliOracle, _check_generator, pair_index_matrix

TIES = ("coin", "half")


def check_preference_matrix(P) -> np.ndarray:
    """``P`` as a float64 copy with a 1/2 diagonal, or a ValueError saying what is wrong."""
    P = np.array(P, dtype=np.float64)
    if P.ndim != 2 or P.shape[0] != P.shape[1] or P.shape[0] < 2:
        raise ValueError(f"a preference matrix must be square with K >= 2, got shape {P.shape}")
    off = ~np.eye(P.shape[0], dtype=bool)
    if not np.all(np.isfinite(P[off])) or np.any(P[off] < 0) or np.any(P[off] > 1):
        raise ValueError("preference probabilities must lie in [0, 1]")
    if not np.allclose((P + P.T)[off], 1.0, atol=1e-12):
        raise ValueError("a preference matrix needs P[i, j] + P[j, i] == 1 for i != j")
    np.fill_diagonal(P, 0.5)
    return P


class PreferenceOracle(BernoulliOracle):
    """Duels drawn from a preference matrix with per-pair counter streams (reproducible in any order).

    ``sample(i, j)`` is +1/-1 (the score-oracle protocol of ``pokerduel.selectors``), ``win(i, j)`` the
    same duel as 1.0/0.0. ``noise_rng`` seeds the 64-bit stream key.
    """

    def __init__(self, P, noise_rng: np.random.Generator):
        super().__init__(check_preference_matrix(P), _check_generator(noise_rng, "noise_rng"), streams="counter")

    def win(self, i: int, j: int) -> float:
        """1.0 if ``i`` beats ``j`` in their next duel, else 0.0."""
        return 1.0 if self.sample(i, j) > 0 else 0.0

    @property
    def stream_state(self):
        """``(P, key, pidx, pos)`` for the compiled runs; ``pos`` is shared, so they advance the oracle."""
        return self.P, np.uint64(self._noise.key), self._pidx, self._noise.pairs.pos


class BinaryFeedback:
    """Win/loss from any zero-sum score oracle by the sign of its sample.

    ``ties``: ``"half"`` scores a zero sample 1/2 for each side; ``"coin"`` gives it to either side with
    a fair coin drawn from the generator passed to ``win`` (the bandit's own). ``P`` is known when the
    oracle has ``means`` and is a ``BernoulliOracle`` (else ``None``).
    """

    def __init__(self, oracle, *, ties: str = "coin"):
        K = getattr(oracle, "K", None)
        if not callable(getattr(oracle, "sample", None)) or isinstance(K, bool) \
                or not isinstance(K, (int, np.integer)) or K < 2:
            raise ValueError("oracle must have an integer K >= 2 and a method sample(i, j) -> float")
        if ties not in TIES:
            raise ValueError(f"unknown ties rule {ties!r}; allowed: {', '.join(map(repr, TIES))}")
        self.oracle = oracle
        self.K = int(K)
        self.ties = ties

    def win(self, i: int, j: int, rng: np.random.Generator | None = None) -> float:
        x = float(self.oracle.sample(i, j))
        if not np.isfinite(x):
            raise ValueError(f"the oracle returned a non-finite sample {x!r} for pair ({i}, {j})")
        if x > 0:
            return 1.0
        if x < 0:
            return 0.0
        if self.ties == "half":
            return 0.5
        if rng is None:
            raise ValueError("ties='coin' needs the bandit's generator")
        return float(rng.random() < 0.5)


def as_feedback(oracle, ties: str = "coin"):
    """A ``PreferenceOracle`` as it is, any other oracle wrapped in ``BinaryFeedback``."""
    if isinstance(oracle, PreferenceOracle):
        return oracle
    if isinstance(oracle, BinaryFeedback):
        return oracle
    return BinaryFeedback(oracle, ties=ties)


# --- winners and scores --------------------------------------------------------------------------------

def copeland_scores(P) -> np.ndarray:
    """Normalised Copeland scores ``zeta_i = #{j : P_ij > 1/2} / (K - 1)``."""
    P = np.asarray(P, dtype=np.float64)
    K = P.shape[0]
    beats = P > 0.5
    np.fill_diagonal(beats, False)
    return beats.sum(axis=1) / (K - 1)


def borda_scores(P) -> np.ndarray:
    """Normalised Borda scores ``b_i = mean_{j != i} P_ij``."""
    P = np.asarray(P, dtype=np.float64)
    K = P.shape[0]
    return (P.sum(axis=1) - np.diag(P)) / (K - 1)


def condorcet_winner(P) -> int | None:
    """The arm that beats every other (``P_ij > 1/2``), or ``None``."""
    z = copeland_scores(P)
    w = np.flatnonzero(z == 1.0)
    return int(w[0]) if w.size else None


def copeland_winners(P) -> np.ndarray:
    z = copeland_scores(P)
    return np.flatnonzero(z == z.max())


def regret_per_round(ti, tj, P, kind: str = "copeland") -> np.ndarray:
    """Per-round regret of the played pairs ``(ti[t], tj[t])``.

    ``copeland``: ``(2 zeta* - zeta_a1 - zeta_a2) / 2`` (Agrawal & Chaporkar eq. 9, normalised scores);
    ``borda``: the same with normalised Borda scores; ``condorcet``: ``(eps_{*a1} + eps_{*a2}) / 2``
    with ``eps_{*j} = P_{*j} - 1/2`` (Yue et al.'s strong regret; needs a Condorcet winner).
    """
    ti = np.asarray(ti, dtype=np.int64)
    tj = np.asarray(tj, dtype=np.int64)
    if kind == "copeland":
        s = copeland_scores(P)
    elif kind == "borda":
        s = borda_scores(P)
    elif kind == "condorcet":
        w = condorcet_winner(P)
        if w is None:
            raise ValueError("condorcet regret needs a matrix with a Condorcet winner")
        eps = np.asarray(P, dtype=np.float64)[w] - 0.5
        return 0.5 * (eps[ti] + eps[tj])
    else:
        raise ValueError(f"unknown regret {kind!r}; allowed: 'copeland', 'borda', 'condorcet'")
    return s.max() - 0.5 * (s[ti] + s[tj])


# --- problem generators -----------------------------------------------------------------------------------

def random_copeland_matrix(K: int, rng: np.random.Generator, *, no_condorcet: bool = False,
                           max_tries: int = 100000) -> np.ndarray:
    """A random preference matrix with a unique Copeland winner.

    ``P_ij ~ U(0, 1)`` for ``i < j``, ``P_ji = 1 - P_ij`` (the D-TS author's ``INPUT_TYPE_RANDOM``),
    rejected until the Copeland winner is unique (the Sup-KLUCB paper's only assumption), and, with
    ``no_condorcet``, until no arm beats all others (a genuine Copeland problem).
    """
    _check_generator(rng, "rng")
    if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 2:
        raise ValueError(f"K must be an integer >= 2, got {K!r}")
    if no_condorcet and K < 5:
        raise ValueError(f"with K = {K} arms a unique Copeland winner is always a Condorcet winner; "
                         "no_condorcet needs K >= 5")
    iu = np.triu_indices(K, 1)
    for _ in range(max_tries):
        P = np.full((K, K), 0.5)
        P[iu] = rng.random(iu[0].size)
        P.T[iu] = 1.0 - P[iu]
        if np.any(P[iu] == 0.5):
            continue
        if copeland_winners(P).size != 1:
            continue
        if no_condorcet and condorcet_winner(P) is not None:
            continue
        return P
    raise ValueError(f"no matrix with a unique Copeland winner in {max_tries} tries (K = {K})")


#: The 5-arm preference matrix of the MSLR (Microsoft learning-to-rank) informational click model used in
#: the D-TS author's experiments (HuasenWu/DuelingBandits), with arm 0 the Condorcet winner.
MSLR5 = np.array([
    [0.5, 0.53519466, 0.6125935, 0.75696008, 0.76547422],
    [0.46480534, 0.5, 0.57985831, 0.72745116, 0.73820053],
    [0.3874065, 0.42014169, 0.5, 0.65895708, 0.66877089],
    [0.24303992, 0.27254884, 0.34104292, 0.5, 0.50999465],
    [0.23452578, 0.26179947, 0.33122911, 0.49000535, 0.5],
])


def hard_condorcet_matrix(K: int) -> np.ndarray:
    """Urvoy et al.'s "hard Condorcet" matrix (1-indexed): ``P_ij = 1/2 + j / (2K)`` for ``i < j``.

    In 0-based indices ``P[i, j] = 1/2 + (j + 1) / (2K)`` for ``i < j``: arm 0 is the Condorcet winner,
    arm ``j`` loses to every lower arm with the same probability, so the duel against arm 1
    (``P = 1/2 + 1/K``) is the hard one and the duel against the last arm (``P = 1``) the easy one.
    """
    if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 2:
        raise ValueError(f"K must be an integer >= 2, got {K!r}")
    P = np.full((K, K), 0.5)
    for i in range(K):
        for j in range(i + 1, K):
            P[i, j] = 0.5 + (j + 1) / (2.0 * K)
            P[j, i] = 1.0 - P[i, j]
    return P


def shuffled(P, rng: np.random.Generator) -> np.ndarray:
    """``P`` with its arms in a random order."""
    order = _check_generator(rng, "rng").permutation(P.shape[0])
    return np.asarray(P)[np.ix_(order, order)]


__all__ = ["PreferenceOracle", "BinaryFeedback", "as_feedback", "check_preference_matrix", "copeland_scores",
           "borda_scores", "condorcet_winner", "copeland_winners", "regret_per_round", "random_copeland_matrix",
           "hard_condorcet_matrix", "shuffled", "pair_index_matrix"]
