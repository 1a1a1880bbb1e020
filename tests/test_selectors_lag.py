"""Selectors with a lag (``lag = L``): decision t sees the samples before t - L and counts the L pending
ones; ``run()`` plays the oracle in a second thread and must give exactly what stepping gives. And the
model-based methods with a refit interval (``refit_every``), which reuse a fit between refits."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from pokerduel.selectors import SELECTORS, CallableOracle, GaussianOracle, make_selector, perturbed_thurstone
from pokerduel.selectors import _kernels as kern

LAGGED = [name for name, cls in SELECTORS.items() if cls.supports_lag]


def _oracle(K, seed=0):
    return perturbed_thurstone(K, 0.3, np.random.default_rng([seed, 0]), np.random.default_rng([seed, 1]))


def _state(s):
    out = [s.top_k(), *s.trace, s.n, s.xbar, s.m2]
    if hasattr(s, "gamma"):
        out += [s.gamma, s.sig2]
    if hasattr(s, "ii_trace"):
        out += [s.ii_trace, s.mode_trace]
    return out


def test_the_lagged_selectors_are_the_posterior_methods():
    assert LAGGED == ["uniform", "pocbam", "ml-pocbam", "hybrid"]


@pytest.mark.parametrize("name", LAGGED)
@pytest.mark.parametrize("lag,n0", [(1, 1), (3, 2), (6, 1)])
def test_run_in_a_thread_equals_stepping(name, lag, n0):
    K, k, budget = 9, 3, 36 * n0 + 70
    runs = []
    for how in ("run", "step", "mixed"):
        s = make_selector(name, _oracle(K), k, budget, n0=n0, lag=lag, rng=np.random.default_rng(2))
        if how == "run":
            s.run()
        else:
            while not s.is_finished() and (how == "step" or s.used < 36 * n0 + 9):
                s.step()
            s.run()                      # "mixed": steps leave samples pending, run() takes them over
        assert s.used == s.seen == budget == s.n.sum() == len(s.trace.x)
        assert np.isfinite(s.trace.x).all()
        runs.append(_state(s))
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            assert np.array_equal(a, b, equal_nan=True)


@pytest.mark.parametrize("name", ["pocbam", "ml-pocbam", "hybrid"])
@pytest.mark.parametrize("lag", [1, 4])
def test_decision_t_sees_the_samples_before_t_minus_lag_and_counts_the_pending(name, lag):
    """Every decision's inputs rebuilt independently from the final trace: the seen counts and means are
    those of the first max(warm-up, t - lag) samples, the posterior counts add the pending ones."""
    K, k, n0 = 8, 3, 1
    P = K * (K - 1) // 2
    cls = SELECTORS[name]
    seen = []

    class Spy(cls):
        def _decide(self):
            seen.append((self.used, self.n.copy(), self.xbar.copy(), self._counts.copy()))
            return super()._decide()

    s = Spy(_oracle(K, 4), k, P * n0 + 60, n0=n0, lag=lag, rng=np.random.default_rng(0))
    s.run()
    p_trace = s.pidx[s.trace.i, s.trace.j]
    x_trace = s.trace.x
    assert len(seen) == 60
    for t, n, xbar, counts in seen:
        cut = max(s.warmup, t - lag)
        ref_n = np.bincount(p_trace[:cut], minlength=P)
        ref_mean = np.bincount(p_trace[:cut], weights=x_trace[:cut], minlength=P) / np.maximum(ref_n, 1)
        assert np.array_equal(n, ref_n)
        np.testing.assert_allclose(xbar, ref_mean, rtol=1e-12, atol=1e-12)
        assert np.array_equal(counts, np.bincount(p_trace[:t], minlength=P))
    # and the POCBAm decision with those inputs is the kernel's, pending samples counted
    if name == "pocbam":
        t, n, xbar, counts = seen[-1]
        cut = t - lag
        m2 = np.zeros(P)
        for p in range(P):
            xs = x_trace[:cut][p_trace[:cut] == p]
            m2[p] = ((xs - xs.mean()) ** 2).sum() if xs.size else 0.0
        mu, var, pvar = np.empty(K), np.empty(K), np.empty(P)
        p, _ = kern.pocbam_decide(K, k, s.pidx, s.pi, s.pj, n, counts, xbar, m2, 1e-12, mu, var, pvar)
        assert p == p_trace[t]


@pytest.mark.parametrize("name", LAGGED)
def test_run_without_the_thread_equals_the_threaded_run(name):
    """``run(thread=False)`` samples between decisions in one thread: the same samples and state."""
    runs = []
    for thread in (True, False):
        s = make_selector(name, _oracle(9), 3, 36 * 2 + 70, n0=2, lag=4, rng=np.random.default_rng(2))
        s.run(thread=thread)
        runs.append(_state(s))
    for a, b in zip(*runs):
        assert np.array_equal(a, b, equal_nan=True)


def test_uniform_allocation_does_not_depend_on_the_lag():
    traces = [make_selector("uniform", _oracle(6), 2, 70, n0=1, lag=lag, rng=np.random.default_rng(0))
              for lag in (0, 5)]
    for s in traces:
        s.run()
    assert np.array_equal(traces[0].trace.i, traces[1].trace.i)
    assert np.array_equal(traces[0].trace.x, traces[1].trace.x)


@pytest.mark.parametrize("name", ["pocbam", "ml-pocbam", "hybrid"])
def test_noiseless_total_order_is_found_with_a_lag(name):
    K, k = 8, 3
    gamma = np.linspace(1, 0, K)
    o = GaussianOracle(gamma[:, None] - gamma[None, :], np.zeros((K, K)), np.random.default_rng(0))
    s = make_selector(name, o, k, 3 * 28 + 10, lag=3, rng=np.random.default_rng(0))
    assert list(s.run()) == [0, 1, 2]


def test_lag_is_validated():
    o = _oracle(5)
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(ValueError, match=r"lag \(samples pending at a decision\) must be an integer >= 0"):
            make_selector("pocbam", o, 2, 100, lag=bad, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="select-top does not take lag > 0.*one of uniform, pocbam, ml-pocbam, hybrid"):
        make_selector("select-top", o, 2, 100, lag=1, rng=np.random.default_rng(0))
    make_selector("select-top", o, 2, 100, rng=np.random.default_rng(0))


@pytest.mark.parametrize("bad", ["raise", "nan"])
@pytest.mark.parametrize("lag", [2, 6])
def test_an_oracle_failure_in_the_thread_reaches_the_caller(bad, lag):
    K = 5
    calls = [0]

    def fn(i, j):
        calls[0] += 1
        if calls[0] == 10 * 2 + 7:
            if bad == "raise":
                raise RuntimeError("engine broke")
            return float("nan")
        return 0.1 * (j - i) + 0.01 * (calls[0] % 7)

    s = make_selector("ml-pocbam", CallableOracle(K, fn), 2, 60, n0=2, lag=lag, rng=np.random.default_rng(0))
    before = threading.active_count()
    with pytest.raises(RuntimeError if bad == "raise" else ValueError,
                       match="engine broke" if bad == "raise" else "non-finite sample"):
        s.run()
    assert threading.active_count() == before   # the oracle thread has ended


@pytest.mark.parametrize("name", ["ml-pocbam", "hybrid"])
@pytest.mark.parametrize("lag,every", [(0, 1), (0, 3), (2, 4)])
def test_answers_read_between_steps_do_not_change_the_decisions(name, lag, every):
    """``top_k()`` refits the model for the answer; the decisions keep their own fit and warm start."""
    runs = []
    for read in (False, True):
        s = make_selector(name, _oracle(10, 3), 3, 45 + 80, n0=1, lag=lag, refit_every=every,
                          rng=np.random.default_rng(1))
        while not s.is_finished():
            s.step()
            if read and s.used >= s.warmup:
                s.top_k()
        runs.append(_state(s))
    for a, b in zip(*runs):
        assert np.array_equal(a, b, equal_nan=True)


@pytest.mark.parametrize("name", ["ml-pocbam", "hybrid"])
def test_refit_every_reuses_the_last_fit_with_current_counts(name):
    K, k, every = 8, 3, 3
    cls = SELECTORS[name]
    log = []

    class Spy(cls):
        def _decide(self):
            before = self._dgamma.copy(), self._dsig2.copy(), self._counts.copy()
            fits = self._fit_at
            p = super()._decide()
            log.append((p, before, fits != self._fit_at or self._decisions == 1))
            return p

    s = Spy(_oracle(K, 5), k, 28 + 40, n0=1, lag=1, refit_every=every, rng=np.random.default_rng(0))
    s.run()
    refits = [r for _, _, r in log]
    assert refits == [d % every == 0 for d in range(40)]
    mu, var = np.empty(K), np.empty(K)
    for d, (p, (gamma, sig2, counts), refit) in enumerate(log):
        if refit or (name == "hybrid" and s.mode_trace[28 + d] == 2):
            continue
        q, _ = kern.ml_choose(K, k, s.pidx, s.pi, s.pj, counts, gamma, sig2, mu, var)
        assert q == p
    if name == "hybrid":   # II and mode are those of the block's refit
        for d in range(40):
            assert s.ii_trace[28 + d] == s.ii_trace[28 + d - d % every]
    with pytest.raises(ValueError, match="refit_every must be an integer >= 1"):
        make_selector(name, _oracle(K), k, 100, refit_every=0, rng=np.random.default_rng(0))
