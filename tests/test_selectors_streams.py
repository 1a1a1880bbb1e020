"""Counter-based noise streams (``streams="counter"``): exact standard normals and uniforms, a pair's t-th
value independent of the order of requests, independent streams, and the same values inside compiled
loops as through the oracle."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from pokerduel.selectors import BernoulliOracle, _rng, make_selector, thurstone


def test_counter_normals_and_uniforms_have_the_right_distribution():
    z = np.empty(100_000)
    _rng.fill_normals(np.uint64(12345), 7, 0, z)
    assert stats.kstest(z, "norm").pvalue > 1e-3
    assert abs(z.mean()) < 4 / np.sqrt(z.size) and abs(z.var() - 1) < 4 * np.sqrt(2 / z.size)
    u = np.empty(100_000)
    _rng.fill_uniforms(np.uint64(12345), 7, 0, u)
    assert stats.kstest(u, "uniform").pvalue > 1e-3 and 0.0 <= u.min() and u.max() < 1.0
    # neighbouring streams and neighbouring counters are uncorrelated
    z2 = np.empty(z.size)
    _rng.fill_normals(np.uint64(12345), 8, 0, z2)
    assert abs(np.corrcoef(z, z2)[0, 1]) < 4 / np.sqrt(z.size)
    assert abs(np.corrcoef(z[:-1], z[1:])[0, 1]) < 4 / np.sqrt(z.size)


def test_a_pairs_samples_do_not_depend_on_the_order_of_requests():
    a = thurstone(6, np.random.default_rng(1), np.random.default_rng(2), streams="counter")
    b = thurstone(6, np.random.default_rng(1), np.random.default_rng(2), streams="counter")
    xs = [a.sample(0, 3) for _ in range(5)]
    b.sample_many(1, 2, 100)
    b.sample(4, 5)
    assert xs == [-b.sample(3, 0) for _ in range(5)]
    more = a.sample_many(0, 3, 4)
    np.testing.assert_array_equal(more, b.sample_pairs([0, 3, 0, 0], [3, 0, 3, 3]) * [1, -1, 1, 1])
    z = np.empty(9)
    _rng.fill_normals(a.noise_key, 2, 0, z)                        # pair (0, 3) is pair index 2
    np.testing.assert_allclose(xs + list(more), a._mu[2] + a._sd[2] * z, rtol=1e-15)


def test_counter_streams_give_the_same_selectors_results_as_recomputed():
    """A selector on a counter-stream oracle is reproducible from the key alone."""
    runs = []
    for _ in range(2):
        o = thurstone(7, np.random.default_rng(3), np.random.default_rng(4), streams="counter")
        s = make_selector("pocbam", o, 3, 150, rng=np.random.default_rng(0))
        runs.append((list(s.run()), s.trace.x.copy()))
    assert runs[0][0] == runs[1][0] and np.array_equal(runs[0][1], runs[1][1])


def test_bernoulli_counter_stream():
    P = np.array([[.5, .7, .9], [.3, .5, .6], [.1, .4, .5]])
    o = BernoulliOracle(P, np.random.default_rng(0), streams="counter")
    x = o.sample_many(0, 1, 20000)
    assert set(np.unique(x)) == {-1.0, 1.0} and abs((x > 0).mean() - 0.7) < 4 * np.sqrt(0.21 / 20000)


def test_other_streams_have_no_key():
    assert thurstone(3, np.random.default_rng(0), np.random.default_rng(0)).noise_key is None
    with pytest.raises(ValueError, match="unknown streams 'x'; allowed: 'per-pair', 'counter', 'shared'"):
        thurstone(3, np.random.default_rng(0), np.random.default_rng(0), streams="x")
