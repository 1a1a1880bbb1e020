"""PBR (Busa-Fekete et al. 2013, sum of expectations) and AR (Heckel et al. 2019) under a fixed budget:
the decision steps against brute-force restatements of the rules, the round structure (every active
pair / item once a round), the kappa = 1 case that the strict inequality cannot select, restarts that
spend the budget, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pokerduel.selectors import GaussianOracle, make_selector, thurstone
from pokerduel.selectors.problems import pair_arrays, pair_index_matrix
from pokerduel.selectors.racing import ar_beta, ar_update, pbr_update


def _stats(K, rng, n_lo=2, n_hi=30):
    pi, pj = pair_arrays(K)
    n = rng.integers(n_lo, n_hi, size=pi.size)
    xbar = rng.normal(0, 1, size=pi.size)
    m2 = rng.uniform(0.1, 2.0, size=pi.size) * (n - 1)
    return n.astype(np.int64), xbar, m2


def _pbr_brute(K, k, n, xbar, m2, status, delta, strict):
    P = n.size
    pidx = pair_index_matrix(K)
    lo, up = np.zeros(K), np.zeros(K)
    for i in range(K):
        for j in range(K):
            if i == j:
                continue
            p = pidx[i, j]
            m = xbar[p] if i < j else -xbar[p]
            r = math.sqrt(2 * m2[p] / (n[p] - 1) * math.log(2 * P * n[p] * (n[p] + 1) / delta) / n[p])
            lo[i] += m - r
            up[i] += m + r
    U = [i for i in range(K) if status[i] == 0]
    kappa = k - int(np.sum(status == 1))
    new = status.copy()
    for i in U:
        beats = sum(lo[i] > up[j] for j in U if j != i)
        beaten = sum(lo[j] > up[i] for j in U if j != i)
        if (beats > len(U) - kappa) if strict else (beats >= len(U) - kappa):
            new[i] = 1
        elif (beaten > kappa) if strict else (beaten >= kappa):
            new[i] = 2
    if (new == 1).sum() == k:
        new[new == 0] = 2
    elif (new == 0).sum() == k - (new == 1).sum():
        new[new == 0] = 1
    return new


@pytest.mark.parametrize("strict", [False, True])
def test_pbr_update_is_the_racing_rule(strict):
    rng = np.random.default_rng(1)
    for _ in range(300):
        K = int(rng.integers(3, 9))
        k = int(rng.integers(1, K))
        n, xbar, m2 = _stats(K, rng)
        xbar *= rng.choice([1.0, 5.0, 20.0])
        status = np.zeros(K, dtype=np.int64)
        if rng.random() < 0.3:                    # some already decided
            i = int(rng.integers(K))
            status[i] = 1 if k > 1 else 0
        delta = float(rng.choice([0.05, 0.2]))
        want = _pbr_brute(K, k, n, xbar, m2, status, delta, strict)
        got = status.copy()
        left = pbr_update(K, k, pair_index_matrix(K), n, xbar, m2, got, delta, strict, 1e-12)
        assert np.array_equal(got, want) and left == int(np.sum(got == 0))
        assert np.sum(got == 1) <= k and np.sum(got != 2) >= k


def test_pbr_non_strict_selects_a_clear_winner_for_k1_and_strict_cannot():
    K = 5
    pi, pj = pair_arrays(K)
    n = np.full(pi.size, 50, dtype=np.int64)
    xbar = np.where(pi == 0, 10.0, 0.0)            # 0 beats everyone by far, the rest are even
    m2 = np.full(pi.size, 49.0)
    for strict, selected in ((False, True), (True, False)):
        st = np.zeros(K, dtype=np.int64)
        pbr_update(K, 1, pair_index_matrix(K), n, xbar, m2, st, 0.05, strict, 1e-12)
        assert (st[0] == 1) == selected
        assert np.all(st[1:] == (2 if selected else 0))


def test_pbr_rounds_sample_every_active_pair_once():
    K, k = 7, 2
    o = thurstone(K, np.random.default_rng(4), np.random.default_rng(5))
    s = make_selector("pbr", o, k, 2000, rng=np.random.default_rng(0))
    s._warmup_batch()
    s.top_k()                                      # the decision step due at the end of the warm-up
    seen_decided = False
    while s.used < s.budget:
        assert s._qpos == 0                        # a round starts
        status = s.status.copy()
        queue = s._queue.copy()
        und = status == 0
        assert np.array_equal(queue, np.flatnonzero(und[s.pi] | und[s.pj]))   # the active pairs, row-major
        start = s.used
        n = min(queue.size, s.budget - s.used)
        for _ in range(n):
            s.step()
        tr = s.trace
        assert np.array_equal(tr.i[start:], s.pi[queue[:n]]) and np.array_equal(tr.j[start:], s.pj[queue[:n]])
        seen_decided |= bool(np.any(status != 0))
    assert seen_decided


def test_pbr_finds_the_noiseless_order_and_restarts_to_spend_the_budget():
    K, k = 8, 3
    g = np.linspace(1, 0, K)
    o = GaussianOracle(g[:, None] - g[None, :], np.zeros((K, K)), np.random.default_rng(0))
    s = make_selector("pbr", o, k, 400, rng=np.random.default_rng(0))
    assert sorted(s.run().tolist()) == [0, 1, 2]
    assert s.restarts >= 1 and s.used == 400 and s.delta < s.delta0


def _ar_brute(K, k, cnt, mean, m2, status, delta, mult):
    act = [i for i in range(K) if status[i] == 0]
    kappa = k - int(np.sum(status == 1))
    new = status.copy()
    if kappa <= 0 or len(act) <= kappa:
        new[new == 0] = 2 if kappa <= 0 else 1
        return new
    var = [m2[i] / (cnt[i] - 1) for i in range(K)]
    beta = [math.log(K / delta) + 0.75 * math.log(math.log(K / delta)) + 1.5 * math.log(1 + math.log(cnt[i] / 2))
            for i in range(K)]
    r = [math.sqrt(2 * var[i] * beta[i] / cnt[i]) for i in range(K)]
    order = sorted(act, key=lambda i: (-mean[i], i))
    a, b = order[kappa], order[kappa - 1]
    for i in act:
        if i != a and mean[i] - mean[a] > mult * (r[i] + r[a]) / 2:
            new[i] = 1
        elif i != b and mean[b] - mean[i] > mult * (r[b] + r[i]) / 2:
            new[i] = 2
    return new


def test_ar_update_is_the_elimination_rule():
    rng = np.random.default_rng(2)
    for _ in range(300):
        K = int(rng.integers(3, 10))
        k = int(rng.integers(1, K))
        cnt = rng.integers(2, 400, size=K).astype(np.int64)
        mean = rng.normal(0, 1, size=K)
        m2 = rng.uniform(0.05, 1.0, size=K) * (cnt - 1)
        status = np.zeros(K, dtype=np.int64)
        mult = float(rng.choice([1.0, 4.0]))
        want = _ar_brute(K, k, cnt, mean, m2, status, 0.05, mult)
        got = status.copy()
        left = ar_update(K, k, cnt, mean, m2, got, 0.05, mult, 1e-12)
        assert np.array_equal(got, want) and left == int(np.sum(got == 0))
        assert np.sum(got == 1) <= k and np.sum(got != 2) >= k


def test_ar_beta_is_the_papers():
    d = 0.05 / 10
    for t in (1, 2, 10, 1000):
        assert math.isclose(ar_beta(t, d), math.log(1 / d) + 0.75 * math.log(math.log(1 / d))
                            + 1.5 * math.log(1 + math.log(t / 2)), rel_tol=1e-12)


def test_ar_rounds_compare_each_active_item_with_a_uniform_opponent():
    K, k = 6, 2
    o = thurstone(K, np.random.default_rng(6), np.random.default_rng(7))
    s = make_selector("ar", o, k, 6000, rng=np.random.default_rng(0), delta=1e-9)   # few decisions
    own = {i: [] for i in range(K)}
    opp = np.zeros((K, K), dtype=np.int64)
    while not s.is_finished():
        queue = s._queue[s._qpos:].copy() if s._qpos < s._queue.size else None
        i, j, x = s.step()
        item = s._item
        if queue is not None:
            assert item == queue[0]
        other = j if item == i else i
        opp[item, other] += 1
        own[item].append(x if item == i else -x)
    for i in range(K):
        assert math.isclose(s.mean[i], np.mean(own[i]), rel_tol=1e-9, abs_tol=1e-12)
        assert s.cnt[i] == len(own[i]) and opp[i, i] == 0
    row = opp[0, 1:]                               # item 0's opponents: uniform over the other 5
    from scipy import stats
    assert stats.chisquare(row).pvalue > 1e-4


@pytest.mark.parametrize("name", ["pbr", "ar"])
def test_racing_beats_chance_and_improves_with_budget(name):
    K, k, R = 6, 2, 40
    ok = {50: 0, 900: 0}
    for r in range(R):
        for budget in ok:
            o = thurstone(K, np.random.default_rng([r, 1]), np.random.default_rng([r, 2]), variance_law="sd")
            s = make_selector(name, o, k, max(budget, s_min(name, K)), rng=np.random.default_rng(r))
            ok[budget] += set(s.run().tolist()) == set(o.true_top_k(k).tolist())
    chance = 1 / math.comb(K, k)
    assert ok[900] / R > 0.5 > 5 * chance and ok[900] > ok[50]


def s_min(name, K):
    return 3 * K * (K - 1) // 2 if name == "pbr" else 1


def test_warmup_samples_count_for_both_items_in_ar():
    K = 5
    o = thurstone(K, np.random.default_rng(1), np.random.default_rng(2))
    s = make_selector("ar", o, 2, 40, n0=2, rng=np.random.default_rng(0))
    s._warmup_batch()
    s.top_k()
    borda = s.sample_borda()
    np.testing.assert_allclose(s.mean, borda / (K - 1), rtol=1e-12, atol=1e-12)
    assert np.all(s.cnt == 2 * (K - 1))


@pytest.mark.parametrize("name", ["pbr", "ar"])
def test_racing_bad_input(name):
    o = thurstone(6, np.random.default_rng(0), np.random.default_rng(0))
    rng = np.random.default_rng(0)
    for bad in (0.0, 1.0, -0.1, float("nan"), "x"):
        with pytest.raises(ValueError, match="delta"):
            make_selector(name, o, 2, 200, rng=rng, delta=bad)
    with pytest.raises(ValueError, match="restart_factor"):
        make_selector(name, o, 2, 200, rng=rng, restart_factor=1.0)
    if name == "pbr":
        with pytest.raises(ValueError, match="strict must be True or False"):
            make_selector(name, o, 2, 200, rng=rng, strict="yes")
        with pytest.raises(ValueError, match="n0"):
            make_selector(name, o, 2, 200, rng=rng, n0=1)
        with pytest.raises(ValueError, match="smaller than the warm-up"):
            make_selector(name, o, 2, 44, rng=rng)
    else:
        with pytest.raises(ValueError, match="mult"):
            make_selector(name, o, 2, 200, rng=rng, mult=0)
