"""Round robins: every pair of a list of players plays duplicate deals; means, variances and counts.

This is the serial core; ``pokerduel ground-truth`` adds parallel backends, checkpoints and files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..engine.rules import CALL, FOLD, RAISE, STACK
from ..players.base import make_player
from .matches import play_duplicate


def borda_ranking(mean: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Borda scores (row sums of pairwise means) and player indices best first (ties by index)."""
    borda = np.asarray(mean, dtype=np.float64).sum(axis=1)
    return borda, np.lexsort((np.arange(len(borda)), -borda)).astype(np.int64)


def negative_upper(mean: np.ndarray, ranking: np.ndarray) -> int:
    """Negative means above the diagonal of the rank-ordered matrix: a better-ranked player loses."""
    m = np.asarray(mean)[np.ix_(ranking, ranking)]
    return int(np.sum(np.triu(m, 1) < 0))


def intransitive_triplets(mean: np.ndarray) -> int:
    """Triplets of players beating each other in a cycle (strictly; a zero mean is no win)."""
    wins = (np.asarray(mean) > 0).astype(np.int64)
    return int(np.trace(wins @ wins @ wins)) // 3  # each 3-cycle is counted once per starting player


@dataclass
class RoundRobin:
    """Pairwise results: ``mean[i, j]`` is i's mean chips per deal against j (``mean[j, i] = -mean[i, j]``)."""

    names: list[str]
    mean: np.ndarray  # (K, K) chips per duplicate deal
    var: np.ndarray  # (K, K) sample variance of the per-deal samples
    hand_var: np.ndarray  # (K, K) sample variance of single hands (both seats pooled)
    count: np.ndarray  # (K, K) deals played
    actions: np.ndarray | None = None  # (K, 4) fold, check/call, raise below all-in, all-in (if recorded)

    def borda(self) -> np.ndarray:
        """Each player's sum of pairwise means (the ranking criterion of the core paper)."""
        return borda_ranking(self.mean)[0]

    def ranking(self) -> np.ndarray:
        """Player indices, best Borda score first (ties by index)."""
        return borda_ranking(self.mean)[1]


def round_robin(players, n_deals: int, seed: int = 0, *, count_actions: bool = False,
                progress: Callable[[int], None] | None = None) -> RoundRobin:
    """Play every pair ``i < j`` for ``n_deals`` duplicate deals of the deck stream of ``seed``.

    Every pair sees the same decks (common random numbers). With ``count_actions`` the hands are
    recorded and each player's actions tallied (slower: records are Python objects).
    """
    players = [make_player(p) for p in players]
    k = len(players)
    if k < 2:
        raise ValueError(f"a round robin needs at least two players, got {k}")
    mean, var, hand_var = np.zeros((k, k)), np.zeros((k, k)), np.zeros((k, k))
    count = np.zeros((k, k), np.int64)
    actions = np.zeros((k, 4), np.int64) if count_actions else None
    for i in range(k):
        for j in range(i + 1, k):
            r = play_duplicate(players[i], players[j], n_deals, seed, records=count_actions)
            s = r.samples.astype(np.float64)
            mean[i, j], mean[j, i] = s.mean(), -s.mean()
            var[i, j] = var[j, i] = s.var(ddof=1) if n_deals > 1 else np.nan
            hand_var[i, j] = hand_var[j, i] = r.hand_payoffs.astype(np.float64).var(ddof=1)
            count[i, j] = count[j, i] = n_deals
            if count_actions:
                for rec in r.records:
                    seat = {0: i, 1: j} if rec.half == 0 else {0: j, 1: i}
                    for _, actor, action, amount in rec.actions:
                        kind = {FOLD: 0, CALL: 1}.get(action, 3 if amount == STACK else 2)
                        actions[seat[actor], kind] += action in (FOLD, CALL, RAISE)
            if progress is not None:
                progress(1)
    return RoundRobin([p.name for p in players], mean, var, hand_var, count, actions)
