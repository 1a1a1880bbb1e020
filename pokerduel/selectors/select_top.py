"""SELECT/TOP (Mohajer, Suh & Elmahdy, ICML 2017) under a fixed budget; see ``_top`` for the algorithm.

Groves & Branke (§5) compare against SELECT/TOP with the repetition parameter nu (comparisons per match)
varied to trace success against the average number of samples. Here the budget is the input, as for every
selector: ``budget = SelectTop.budget_for(K, k, nu)`` gives every match at least nu comparisons (SELECT:
exactly nu, ``(K - 1) nu`` in all), and any budget ``>= max_matches(K, k)`` is dealt out match by match.
"""

from __future__ import annotations

import numpy as np

from . import _kernels as kern
from . import _rng
from . import _top as top
from .base import Selector, _check_int, check_weights_support
from .problems import _check_choice

DECISIONS = ("sum", "majority")
TIES = ("coin", "first")


class SelectTop(Selector):
    """SELECT (k = 1) and TOP (k > 1): knockout brackets with repeated comparisons, then replacement.

    Parameters (beyond ``Selector``'s; there is no warm-up)
    ----------
    decide : ``"sum"`` (default): a match goes to the item whose scores sum to more (eq 16 of the core
        paper is this rule's win probability); ``"majority"``: to the item that won more comparisons.
    ties : ``"coin"`` (default): a tied match is decided by a fair coin drawn from ``rng``;
        ``"first"``: the item from the left of the bracket advances.
    shuffle : place the items in the brackets in a random order drawn from ``rng`` (default ``False``:
        item ``s`` in slot ``s``, so group ``g`` holds items ``g, g+k, ...``).

    The answer is the k outputs in the order found (best first). The anytime ``top_k()`` returns the
    outputs found so far, then the other items still in the brackets by matches won and sample Borda
    score, then the removed ones.
    """

    name = "select-top"
    min_n0 = 0
    anytime = False           # the comparisons per match depend on the budget

    def __init__(self, oracle, k, budget, *, n0: int = 0, rng=None, decide: str = "sum", ties: str = "coin",
                 shuffle: bool = False, candidates=None, weights=None):
        check_weights_support(type(self), candidates, weights)
        if n0 != 0:
            raise ValueError(f"SELECT/TOP has no warm-up: n0 must be 0, got {n0!r}")
        super().__init__(oracle, k, budget, n0=0, rng=rng)
        self.decide = _check_choice(decide, DECISIONS, "decide")
        self.ties = _check_choice(ties, TIES, "ties")
        if not isinstance(shuffle, (bool, np.bool_)):
            raise ValueError(f"shuffle must be True or False, got {shuffle!r}")
        self.shuffle = bool(shuffle)
        K = self.K
        self.left, self.right, self.parent = top.build_tree(K, self.k)
        self.max_matches = int(top.max_matches(K, self.k, self.left, self.right, self.parent))
        if self.budget < self.max_matches:
            raise ValueError(f"budget {self.budget} is smaller than SELECT/TOP's minimum of one comparison per "
                             f"match: {self.max_matches} matches at most for K = {K}, k = {self.k}; allowed: "
                             f"budget >= {self.max_matches}")
        self.order, self.tie_key = self.draws(self.rng, K, bool(shuffle))
        size = 2 * K - 1
        self._st = np.zeros(top.N_STATE, dtype=np.int64)
        self._fs = np.zeros(1)
        self._win = np.empty(size, dtype=np.int64)
        self._live = np.empty(size, dtype=np.int64)
        self._wins = np.empty(K, dtype=np.int64)
        self._out = np.empty(self.k, dtype=np.int64)
        self._path = np.empty(size, dtype=np.int64)
        self._more = top.init(K, self.k, self.budget, self.left, self.right, self.parent, self._st, self._fs,
                              self._win, self._live, self._wins, self._out, self._path)
        self.matches = 0

    @staticmethod
    def draws(rng: np.random.Generator, K: int, shuffle: bool) -> tuple[np.ndarray, np.uint64]:
        """What a SELECT/TOP run draws from its ``rng``, in order: the placement of the items (slot ``s`` holds
        item ``order[s]``) and the key of its tie-breaking coins."""
        order = rng.permutation(K).astype(np.int64) if shuffle else np.arange(K, dtype=np.int64)
        return order, np.uint64(_rng.key_from(rng))

    # --- the budget -------------------------------------------------------------------------------------
    @classmethod
    def min_budget(cls, K: int, k: int, **options) -> int:
        check_weights_support(cls, options.get("candidates"), options.get("weights"))
        left, right, parent = top.build_tree(K, k)
        return int(top.max_matches(K, k, left, right, parent))

    @classmethod
    def budget_for(cls, K: int, k: int, nu: int) -> int:
        """The budget that gives every match at least ``nu`` comparisons (SELECT: exactly ``nu``)."""
        nu = _check_int(nu, "nu (comparisons per match)", 1, "")
        return nu * cls.min_budget(K, k)

    @property
    def nu(self) -> int:
        """The comparisons every match gets at least: ``budget // max_matches``."""
        return self.budget // self.max_matches

    # --- sampling ---------------------------------------------------------------------------------------
    def _match_items(self) -> tuple[int, int]:
        return int(self.order[self._st[top.A]]), int(self.order[self._st[top.B]])

    def _decide(self) -> int:
        if not self._more:          # cannot happen: the last match ends with the budget
            raise RuntimeError("SELECT/TOP has no match left to play")
        a, b = self._match_items()
        return int(self.pidx[a, b])

    def _feed(self, xs) -> None:
        """Comparisons of the current match, scores from its first item's point of view."""
        xs = np.asarray(xs, dtype=np.float64)
        # a sequential sum, as the compiled loop adds them
        dsum = float(np.cumsum(np.sign(xs) if self.decide == "majority" else xs)[-1])
        self._more = top.feed(dsum, xs.size, self._st, self._fs, self.left, self.right, self.parent, self._win,
                              self._live, self._wins, self._out, self._path, self.ties == "first", self.tie_key)
        self.matches = int(self._st[top.NMATCH])

    def _after_sample(self, p: int, x: float) -> None:
        a = int(self.order[self._st[top.A]])
        self._feed([x if a == self.pi[p] else -x])

    def run(self) -> np.ndarray:
        """Spend the rest of the budget, one oracle batch per match; same samples as stepping."""
        batch = getattr(self.oracle, "sample_pairs", None)
        while self.used < self.budget:
            a, b = self._match_items()
            need = int(self._st[top.ALLOC] - self._st[top.DONE])
            if not callable(batch) or need <= 1:
                self.step()
                continue
            xs = np.asarray(batch(np.full(need, a), np.full(need, b)), dtype=np.float64)   # a's point of view
            bad = np.flatnonzero(~np.isfinite(xs))
            if bad.size:
                self._bad_sample(a, b, float(xs[bad[0]]))
            p = int(self.pidx[a, b])
            t0 = self.used
            low = xs if a < b else -xs
            kern.record_many(self.n, self.xbar, self.m2, np.full(need, p, dtype=np.int64), low)
            self._tp[t0:t0 + need] = p
            self._tx[t0:t0 + need] = low
            self.used = t0 + need
            self._feed(xs)
        return self.top_k()

    # --- answers ----------------------------------------------------------------------------------------
    def top_k(self) -> np.ndarray:
        st = self._st
        nout = int(st[top.NOUT])
        if st[top.PHASE] == top.FINISHED:
            return self.order[self._out[:self.k]].copy()
        chosen = [int(self.order[s]) for s in self._out[:nout]]
        rest = [s for s in range(self.K) if self._live[s] > 0 and int(self.order[s]) not in chosen]
        gone = [s for s in range(self.K) if self._live[s] == 0 and int(self.order[s]) not in chosen]
        borda = self.sample_borda()
        out = list(chosen)
        for group in (rest, gone):
            items = np.array([self.order[s] for s in group], dtype=np.int64)
            wins = np.array([self._wins[s] for s in group], dtype=np.int64)
            # matches won, then sample Borda score, then the lower index
            out.extend(int(items[r]) for r in np.lexsort((items, -borda[items], -wins)))
        return np.array(out[:self.k], dtype=np.int64)

