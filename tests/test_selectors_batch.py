"""Batched decisions (``batch = b``): one decision's ``b`` best pairs sampled in turn. The kernels' best ``b``
pairs against a full scan sorted by gain; the selectors' contract (exact budget, the same run with ``b = 1``,
each batch the decision's best pairs, the hybrid's traces); success on a separated problem; bad input."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from pokerduel.selectors import SELECTORS, CallableOracle, candidates_vs_opponents, make_selector, resolve_weights
from pokerduel.selectors import _kernels as kern
from pokerduel.selectors.problems import n_pairs

from .test_selectors_weighted import _separated

BATCHED = [name for name, cls in SELECTORS.items() if cls.supports_batch]


def _problem(seed, Kc=9, M=3):
    return candidates_vs_opponents(Kc, M, np.random.default_rng([seed, 0]), np.random.default_rng([seed, 1]), d=0.2)


def test_the_batched_selectors():
    assert BATCHED == ["pocbam", "ml-pocbam", "hybrid"]


def test_best_pairs_equal_the_full_scan_sorted():
    """The pruned scan's ``b`` best pairs are the first ``b`` of every active pair's AEPCS gain sorted in
    decreasing order (ties to the lower index; NaN gains never), on random states with ties and extremes."""
    rng = np.random.default_rng(5)
    for trial in range(400):
        K = int(rng.integers(3, 22))
        Kc = int(rng.integers(2, K + 1))
        k = int(rng.integers(1, Kc))
        w = rng.uniform(0, 2, K) * (rng.uniform(size=K) < 0.8)
        w[:Kc] += 0.1
        sw = resolve_weights(K, Kc, w)
        P = sw.pi.size
        mu = rng.normal(size=Kc) * rng.choice([1e-3, 1.0, 30.0])
        if trial % 5 == 0:
            mu = np.round(mu)
        n = rng.integers(1, 40, size=P)
        if trial % 3 == 0:
            n[:] = 7                                     # equal counts and variances: tied gains
        pvar = rng.uniform(0, 1, size=P) * rng.choice([1e-6, 1.0, 1e3])
        if trial % 3 == 0:
            pvar[:] = 0.5
        var = np.empty(Kc)
        kern.wscore_variances(sw.pi, sw.pj, sw.wa, sw.wb, n, pvar, var)
        c, sign, base = kern._sides(mu, var, k)
        gains = np.array([kern._pair_gain_w(p, mu, var, pvar, n, sw.pi, sw.pj, sw.wa, sw.wb, sign, base, c)
                          for p in range(P)])
        order = [p for p in sorted(range(P), key=lambda p: (-gains[p], p)) if gains[p] == gains[p]]
        for b in (1, 2, 5, P + 3):
            top = np.empty(b, np.int64)
            first, c2 = kern.choose_pair_w(mu, var, pvar, n, sw.pi, sw.pj, sw.wa, sw.wb, k, top)
            want = (order + [-1] * b)[:b]
            assert top.tolist() == want, (trial, b)
            assert first == top[0] and c2 == c
            assert first == kern.choose_pair_scan_w(mu, var, pvar, n, sw.pi, sw.pj, sw.wa, sw.wb, k)[0]


def _run(name, batch, lag=0, budget_extra=150, seed=3, **opts):
    o = _problem(seed)
    budget = n_pairs(o.K) - n_pairs(o.K - o.candidates) + budget_extra
    opts = {**opts, **({} if batch is None else {"batch": batch})}
    s = make_selector(name, o, 3, budget, n0=1, lag=lag, **o.selector_options, **opts, rng=np.random.default_rng(0))
    s.run()
    return s


@pytest.mark.parametrize("name", BATCHED)
@pytest.mark.parametrize("lag", [0, 4])
def test_batch_one_is_the_sequential_method(name, lag):
    opts = {"refit_every": 2} if name != "pocbam" else {}
    a, b = _run(name, 1, lag, **opts), _run(name, None, lag, **opts)
    assert np.array_equal(a.trace.x, b.trace.x) and np.array_equal(a.trace.i, b.trace.i)
    assert np.array_equal(a.top_k(), b.top_k())


@pytest.mark.parametrize("name", BATCHED)
@pytest.mark.parametrize("batch,lag", [(4, 0), (5, 3), (8, 8)])
def test_each_batch_is_a_decisions_best_pairs(name, batch, lag):
    """The budget is spent exactly; every decision (spied) is followed by its best pairs, in order; the
    same samples whether run in a thread or stepped."""
    cls = SELECTORS[name]
    made = []

    class Spy(cls):
        def _decide(self):
            p = super()._decide()
            made.append((self.used, [q for q in self._top.tolist() if q >= 0]))
            return p

    o = _problem(7)
    warm = n_pairs(o.K) - n_pairs(o.K - o.candidates)
    opts = {"refit_every": 3} if name != "pocbam" else {}
    s = Spy(o, 3, warm + 203, n0=1, lag=lag, batch=batch, **o.selector_options, **opts,
            rng=np.random.default_rng(1))
    s.run()
    assert s.used == s.seen == warm + 203 == int(s.n.sum())
    p_trace = s.pidx[s.trace.i, s.trace.j]
    t_next = warm
    for t, best in made:
        assert t == t_next and 1 <= len(best) <= batch
        m = min(len(best), s.budget - t)
        assert p_trace[t:t + m].tolist() == best[:m]
        t_next = t + len(best)
    assert t_next >= s.budget
    stepped = make_selector(name, _problem(7), 3, warm + 203, n0=1, lag=lag, batch=batch, **o.selector_options,
                            **opts, rng=np.random.default_rng(1))
    while not stepped.is_finished():
        stepped.step()
    assert np.array_equal(stepped.trace.x, s.trace.x) and np.array_equal(stepped.top_k(), s.top_k())
    if name == "hybrid":       # every sample after the warm-up carries its decision's II and mode
        assert np.all(np.isfinite(s.ii_trace[warm:])) and np.all(s.mode_trace[warm:] > 0)


@pytest.mark.parametrize("name", BATCHED)
def test_a_well_separated_top_k_is_found_with_batches(name):
    """The design of ``test_selectors_weighted.test_a_well_separated_top_k_is_found`` (40 replications, at
    least 38 successes) with decisions of 4 pairs."""
    ok = 0
    for r in range(40):
        o = _separated(r)
        s = make_selector(name, o, 3, 300, n0=2, lag=2, batch=4, **o.selector_options, rng=np.random.default_rng(r))
        ok += set(s.run().tolist()) == set(o.true_top_k(3).tolist())
    assert ok >= 38, ok


@pytest.mark.parametrize("bad", ["raise", "nan"])
def test_an_oracle_failure_in_a_batch_reaches_the_caller(bad):
    K, calls = 7, [0]

    def fn(i, j):
        calls[0] += 1
        if calls[0] == 40 + 7:        # the seventh sample after the warm-up: inside a batch
            if bad == "raise":
                raise RuntimeError("engine broke")
            return float("nan")
        return 0.1 * (j - i) + 0.01 * (calls[0] % 7)

    s = make_selector("pocbam", CallableOracle(K, fn), 2, 120, n0=2, lag=6, batch=4, candidates=5,
                      rng=np.random.default_rng(0))
    assert s.warmup == 40
    before = threading.active_count()
    with pytest.raises(RuntimeError if bad == "raise" else ValueError,
                       match="engine broke" if bad == "raise" else "non-finite sample"):
        s.run()
    assert threading.active_count() == before   # the oracle thread has ended


def test_bad_batches_raise_clear_errors():
    o = _problem(0)
    with pytest.raises(ValueError, match="batch .* must be an integer >= 1"):
        make_selector("pocbam", o, 2, 500, batch=0, **o.selector_options)
    with pytest.raises(ValueError, match="without them; allowed: batch = 1"):
        make_selector("pocbam", o, 2, 500, batch=2)
    with pytest.raises(ValueError, match="got uniform; allowed: batch = 1"):
        make_selector("uniform", o, 2, 500, batch=2, **o.selector_options)
