"""Sup-KLUCB, RUCB and D-TS: the KL-UCB index against closed forms, the D-TS posterior cache against
scipy's Beta, the compiled whole runs against step-by-step runs, the horizon used exactly, winners on
small matrices and sublinear regret on an easy Condorcet matrix (fixed seeds, standard-error margins)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from pokerduel.bandits import (
    DTS,
    RUCB,
    BinaryFeedback,
    PreferenceOracle,
    Savage,
    SupKLUCB,
    copeland_scores,
    make_bandit,
    random_copeland_matrix,
    regret_per_round,
    run_on_matrix,
)
from pokerduel.bandits import _kernels as kern
from pokerduel.selectors import GaussianOracle

NAMES = ["sup-klucb", "rucb", "dts", "savage"]


def _easy_condorcet(K, gap=0.3):
    """Arm 0 beats everyone, and every duel is decided with probability 1/2 + gap (a total order)."""
    P = np.full((K, K), 0.5)
    for i in range(K):
        for j in range(i + 1, K):
            P[i, j] = 0.5 + gap
            P[j, i] = 0.5 - gap
    return P


# --- KL-UCB index ---------------------------------------------------------------------------------------

def test_klucb_closed_forms_and_inverse():
    # mu = 0: K(0, q) = -log(1 - q), so the index is 1 - exp(-rhs / n) exactly
    for n, rhs in [(1, 0.5), (7, 3.0), (100, 0.01)]:
        assert kern.klucb_index(0.0, n, rhs, 1e-12) == pytest.approx(1 - math.exp(-rhs / n), abs=1e-15)
    assert kern.klucb_index(1.0, 5, 2.0, 1e-9) == 1.0
    assert kern.klucb_index(0.3, 5, 0.0, 1e-9) == 0.3
    # the index inverts n K(mu, q0) = rhs: it lies in [q0 - tol, q0] (up to rounding)
    rng = np.random.default_rng(0)
    tol = 1e-9
    for _ in range(3000):
        mu = rng.random() ** 2
        n = int(rng.integers(1, 500))
        q0 = mu + (1 - mu) * rng.random() * 0.999
        rhs = n * kern.kl_bernoulli(mu, q0)
        q = kern.klucb_index(mu, n, rhs, tol)
        assert q0 - tol * (1 + 1e-6) <= q <= q0 + 1e-10
    # an index that reaches 1: K(mu, 1) = inf, so only the whole interval up to 1 (but never 1) is feasible
    q = kern.klucb_index(0.9, 1, 50.0, 1e-9)
    assert 1 - 1e-6 < q < 1


def test_klucb_monotone():
    mus = np.linspace(0.01, 0.99, 25)
    idx = [kern.klucb_index(m, 10, 2.0, 1e-10) for m in mus]
    assert np.all(np.diff(idx) > 0)                   # increasing in the mean
    ns = np.arange(1, 40)
    idx = [kern.klucb_index(0.4, int(n), 2.0, 1e-10) for n in ns]
    assert np.all(np.diff(idx) < 0)                   # decreasing in the count
    rhs = np.linspace(0.01, 5, 30)
    idx = [kern.klucb_index(0.4, 10, float(r), 1e-10) for r in rhs]
    assert np.all(np.diff(idx) > 0)                   # increasing in the exploration term


def test_klucb_index_is_kl_root():
    # finite differences: moving 1e-6 above the index breaks the constraint, 1e-6 below satisfies it
    for mu, n, rhs in [(0.2, 3, 1.5), (0.7, 50, 4.0), (0.05, 200, 2.0)]:
        q = kern.klucb_index(mu, n, rhs, 1e-12)
        assert n * kern.kl_bernoulli(mu, q - 1e-6) < rhs < n * kern.kl_bernoulli(mu, q + 1e-6)


def test_kl_bernoulli_conventions():
    assert kern.kl_bernoulli(0.0, 0.5) == pytest.approx(math.log(2))
    assert kern.kl_bernoulli(1.0, 0.5) == pytest.approx(math.log(2))
    assert kern.kl_bernoulli(0.3, 0.0) == np.inf
    assert kern.kl_bernoulli(0.3, 1.0) == np.inf
    assert kern.kl_bernoulli(0.0, 0.0) == 0.0
    p, q = 0.3, 0.6
    assert kern.kl_bernoulli(p, q) == pytest.approx(p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q)))


# --- D-TS posterior cache -----------------------------------------------------------------------------------

def test_dts_posterior_cache_matches_beta():
    """Q[i, j] = P(Beta(W_ij + 1, W_ji + 1) > 1/2) through the incremental recurrences (and ties)."""
    K = 3
    W = np.zeros((K, K))
    G, H, Q = np.empty((K, K)), np.empty((K, K)), np.empty((K, K))
    kern.ucb_reset(G, H, Q)
    rng = np.random.default_rng(5)
    for step in range(400):
        i, j = rng.choice(K, 2, replace=False)
        w = 0.5 if step % 37 == 0 else float(rng.random() < 0.6)
        kern.ucb_record(W, G, H, Q, 0.51, int(i), int(j), w)
        if step % 40 == 0 or step == 399:
            for a in range(K):
                for b in range(K):
                    if a != b:
                        truth = stats.beta.sf(0.5, W[a, b] + 1, W[b, a] + 1)
                        assert Q[a, b] == pytest.approx(truth, abs=1e-10)
                        n = W[a, b] + W[b, a]
                        if n == 0:
                            assert G[a, b] < 0 and H[a, b] < 0      # unknown: u = 1, l = 0
                            continue
                        d = W[a, b] / n - 0.5
                        lt = math.log(step + 2)
                        r = math.sqrt(0.51 * lt / n)
                        # the cached thresholds give the same bound comparisons as the square roots
                        assert (G[a, b] < lt) == (W[a, b] / n + r > 0.5)
                        assert (H[a, b] <= lt) == (W[a, b] / n - r <= 0.5) or abs(abs(d) - r) < 1e-12


# --- whole runs against steps, horizon ------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_fast_run_equals_steps(name):
    P = random_copeland_matrix(6, np.random.default_rng(11))
    T = 3000
    runs = []
    for fast in (False, True):
        oracle = PreferenceOracle(P, np.random.default_rng(1))
        b = make_bandit(name, oracle, T, rng=np.random.default_rng(2))
        if fast:
            for _ in range(17):          # a few steps first: the compiled run continues the same state
                b.step()
            w = b.run()
        else:
            while b.t < T:
                b.step()
            w = b.winner()
        runs.append((b.trace, w, oracle.stream_state[3].copy()))
    (ti0, tj0), w0, pos0 = runs[0]
    (ti1, tj1), w1, pos1 = runs[1]
    assert np.array_equal(ti0, ti1) and np.array_equal(tj0, tj1)
    assert w0 == w1
    assert np.array_equal(pos0, pos1)


@pytest.mark.parametrize("name", NAMES)
def test_horizon_used_exactly(name):
    P = random_copeland_matrix(5, np.random.default_rng(3))
    oracle = PreferenceOracle(P, np.random.default_rng(4))
    T = 777
    b = make_bandit(name, oracle, T, rng=np.random.default_rng(5))
    b.run()
    ti, tj = b.trace
    assert ti.size == T == b.t
    # every duel of two different arms was asked of the oracle exactly once; self-duels never
    assert oracle.stream_state[3].sum() == int(np.sum(ti != tj))
    with pytest.raises(RuntimeError, match="used up"):
        b.step()


def test_score_oracle_sign_feedback_and_ties():
    """A score oracle plays through the sign of its samples; zero samples are ties (coin or 1/2)."""
    K = 4
    mu = np.zeros((K, K))
    mu[0, 1:], mu[1:, 0] = 1.0, -1.0
    var = np.ones((K, K))
    oracle = GaussianOracle(mu, var, np.random.default_rng(1))
    b = DTS(oracle, 400, rng=np.random.default_rng(2))
    assert b.run() == 0
    assert b.W.sum() == np.sum(b.trace[0] != b.trace[1])
    zero = GaussianOracle(np.zeros((K, K)), np.zeros((K, K)), np.random.default_rng(1))
    half = RUCB(BinaryFeedback(zero, ties="half"), 50, rng=np.random.default_rng(3))
    half.run()
    assert np.allclose(half.W, half.W.T)               # every duel was a half-half tie
    coin = RUCB(zero, 2000, ties="coin", rng=np.random.default_rng(3))
    coin.run()
    played = coin.W + coin.W.T
    frac = coin.W[played > 0].sum() / played[played > 0].sum()
    assert frac == pytest.approx(0.5)                  # both orientations counted: exactly half
    assert set(np.unique(coin.W % 1)) <= {0.0}         # coins give whole wins
    with pytest.raises(ValueError, match="ties"):
        BinaryFeedback(zero, ties="toss")


# --- winners and regret -------------------------------------------------------------------------------------------

def test_supklucb_finds_copeland_winner_small():
    hits = 0
    total = 0
    for seed in range(6):
        rng = np.random.default_rng(100 + seed)
        K = 5            # (with 4 arms no matrix has a unique Copeland winner and no Condorcet winner)
        while True:      # a Copeland matrix whose duels are all clearly decided
            P = random_copeland_matrix(K, rng, no_condorcet=True)
            iu = np.triu_indices(K, 1)
            if np.min(np.abs(P[iu] - 0.5)) > 0.2:
                break
        ti, tj, w = run_on_matrix("sup-klucb", P, 20000, seed)
        hits += w == int(np.argmax(copeland_scores(P)))
        total += 1
        # and it ends up playing (a*, a*): the last quarter is mostly the winner's self-pair
        a = int(np.argmax(copeland_scores(P)))
        assert np.mean((ti[-5000:] == a) & (tj[-5000:] == a)) > 0.9
    assert hits == total


def test_k2_and_parameters():
    P = np.array([[0.5, 0.8], [0.2, 0.5]])
    b = SupKLUCB(PreferenceOracle(P, np.random.default_rng(1)), 2000, rng=np.random.default_rng(2))
    assert b.c1 == 1.0 and b.c2 == pytest.approx(1.5 + 40.0)
    assert b.run() == 0
    b10 = SupKLUCB(PreferenceOracle(random_copeland_matrix(10, np.random.default_rng(1)), np.random.default_rng(1)), 10)
    assert b10.c1 == pytest.approx(0.2) and b10.c2 == pytest.approx(0.3 + 40 / 64)


@pytest.mark.parametrize("name", NAMES)
def test_regret_sublinear_easy_condorcet(name):
    """Mean regret of the second half of the horizon, plus 3 standard errors over seeds, is below half
    that of the first half (linear regret would make them equal; logarithmic makes the second tiny)."""
    P = _easy_condorcet(5)
    T = 10000
    first, second = [], []
    for seed in range(6):
        ti, tj, _ = run_on_matrix(name, P, T, seed)
        r = regret_per_round(ti, tj, P, "copeland")
        first.append(r[:T // 2].sum())
        second.append(r[T // 2:].sum())
        rc = regret_per_round(ti, tj, P, "condorcet")
        assert rc[T // 2:].sum() <= rc[:T // 2].sum()
    first, second = np.array(first), np.array(second)
    se = second.std(ddof=1) / math.sqrt(second.size)
    assert second.mean() + 3 * se < 0.5 * first.mean()


def test_regret_definitions():
    P = random_copeland_matrix(6, np.random.default_rng(2))
    z = copeland_scores(P)
    a = int(np.argmax(z))
    ti = np.array([a, 0, 1])
    tj = np.array([a, 2, 1])
    r = regret_per_round(ti, tj, P)
    assert r[0] == 0.0
    assert r[1] == pytest.approx((2 * z[a] - z[0] - z[2]) / 2)
    with pytest.raises(ValueError, match="regret"):
        regret_per_round(ti, tj, P, "kemeny")


def test_random_copeland_matrix():
    rng = np.random.default_rng(7)
    for K in (5, 12):
        P = random_copeland_matrix(K, rng, no_condorcet=True)
        assert np.allclose(P + P.T, 1.0)
        z = copeland_scores(P)
        assert np.sum(z == z.max()) == 1 and z.max() < 1.0
    for K in (2, 3, 4):
        z = copeland_scores(random_copeland_matrix(K, rng))
        assert np.sum(z == z.max()) == 1
        with pytest.raises(ValueError, match="K >= 5"):
            random_copeland_matrix(K, rng, no_condorcet=True)


def test_bad_arguments():
    P = _easy_condorcet(3)
    o = PreferenceOracle(P, np.random.default_rng(0))
    with pytest.raises(ValueError, match="horizon"):
        RUCB(o, 0)
    with pytest.raises(ValueError, match="alpha"):
        DTS(o, 10, alpha=-1)
    with pytest.raises(ValueError, match="rng"):
        SupKLUCB(o, 10, rng=3)
    with pytest.raises(ValueError, match="unknown bandit"):
        make_bandit("btm", o, 10)
    with pytest.raises(ValueError, match="P\\[i, j\\] \\+ P\\[j, i\\]"):
        PreferenceOracle(np.array([[0.5, 0.7], [0.7, 0.5]]), np.random.default_rng(0))
    with pytest.raises(ValueError, match="winner"):
        Savage(o, 10, winner="kemeny")
    with pytest.raises(ValueError, match="K >= 2"):
        RUCB(object(), 10)


# --- the study and its command ------------------------------------------------------------------------------

def test_copeland_study_command(tmp_path):
    """A small configuration of `pokerduel study copeland`: files written, regret consistent with the
    traces of the same seeds, results independent of the worker count, usage errors exit with 2."""
    from click.testing import CliRunner

    from pokerduel.bandits.studies import CopelandConfig, _copeland_task, copeland_games, read_copeland
    from pokerduel.cli import main

    out = tmp_path / "cop"
    args = ["study", "copeland", "--games", "2", "--runs", "2", "--horizon", "600", "--k-max", "6", "--workers", "1",
            "--out", str(out)]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    for suffix in (".h5", ".md", "-a.png", "-b.png"):
        assert (tmp_path / f"cop{suffix}").stat().st_size > 0
    r = read_copeland(f"{out}.h5")
    assert r["regret"].shape[:3] == (3, 2, 2) and r["grid"][-1] == 600
    assert np.all(np.diff(r["regret"], axis=-1) >= -1e-9)           # cumulative regret never decreases
    # a task carries its own seed: one (game, algorithm) recomputed alone gives the same numbers as in
    # the full run (so worker count and completion order cannot matter)
    cfg = CopelandConfig(games=2, runs=2, horizon=600, k_max=6)
    games = copeland_games(cfg)
    one = _copeland_task({"P": games[1][1], "horizon": 600, "grid": cfg.grid(), "seed": cfg.seed, "game": 1,
                          "runs": 2, "algorithm": "dts"})
    assert np.array_equal(one["regret"], r["regret"][1, 1]) and np.array_equal(one["hit"], r["hit"][1, 1])
    # and it is the cumulative regret of the run with that seed
    run1 = np.random.SeedSequence(cfg.seed).spawn(2)[1].spawn(3)[2]
    ti, tj, _ = run_on_matrix("dts", games[1][1], 600, run1)
    assert r["regret"][1, 1, 1, -1] == pytest.approx(regret_per_round(ti, tj, games[1][1]).sum())
    bad = CliRunner().invoke(main, ["study", "copeland", "--k-min", "9", "--k-max", "4", "--out", str(out)])
    assert bad.exit_code == 2 and "k_max" in bad.output
    bad = CliRunner().invoke(main, ["study", "copeland", "--algorithms", "btm", "--out", str(out)])
    assert bad.exit_code == 2 and "unknown algorithm" in bad.output


def test_dts_choice_distribution_matches_brute_force():
    """One D-TS round on a fixed history: the (a1, a2) frequencies of the compiled round (Bernoulli events
    for phase 1, conditional draws for phase 2) match a direct transcription of Wu & Liu's Algorithm 1
    that draws every Beta sample, cell by cell within 4.5 standard errors."""
    K, t, alpha = 4, 60, 0.51
    W = np.array([[0, 6, 3, 9], [4, 0, 5, 2], [5, 3, 0, 4], [1, 6, 4, 0]], dtype=float)
    G, H, Q = np.empty((K, K)), np.empty((K, K)), np.empty((K, K))
    kern.ucb_reset(G, H, Q)
    W0 = np.zeros((K, K))
    for i in range(K):               # replay the history through the cache updates
        for j in range(K):
            for _ in range(int(W[i, j])):
                kern.ucb_record(W0, G, H, Q, alpha, i, j, 1.0)
    assert np.array_equal(W0, W)
    n = 6000
    st = np.array([12345], dtype=np.uint64)
    Z, S, inC = np.zeros(K, dtype=np.int64), np.zeros((K, K)), np.zeros(K, dtype=np.bool_)
    fast = np.zeros((K, K))
    for _ in range(n):
        aa = kern.dts_choose(t, W, G, H, Q, Z, S, inC, st)
        fast[aa // K, aa % K] += 1
    rng = np.random.default_rng(0)
    N = W + W.T
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.sqrt(alpha * math.log(t) / N)
        U = np.where(N > 0, W / N + r, 1.0)
        L = np.where(N > 0, W / N - r, 0.0)
    np.fill_diagonal(U, 0.5)
    np.fill_diagonal(L, 0.5)
    zeta = (U > 0.5).sum(axis=1) - (np.diag(U) > 0.5)
    C = np.flatnonzero(zeta == zeta.max())
    brute = np.zeros((K, K))
    for _ in range(n):
        th = np.full((K, K), 0.5)
        for i in range(K):
            for j in range(i + 1, K):
                th[i, j] = rng.beta(W[i, j] + 1, W[j, i] + 1)
                th[j, i] = 1 - th[i, j]
        score = (th > 0.5).sum(axis=1)
        best = C[score[C] == score[C].max()]
        a1 = int(rng.choice(best))
        th2 = np.array([rng.beta(W[i, a1] + 1, W[a1, i] + 1) if i != a1 else 0.5 for i in range(K)])
        elig = [i for i in range(K) if L[i, a1] <= 0.5]
        a2 = elig[int(np.argmax(th2[elig]))]
        brute[a1, a2] += 1
    p = (fast + brute) / (2 * n)
    se = np.sqrt(np.maximum(p * (1 - p), 1e-12) * 2 / n)
    assert np.all(np.abs(fast / n - brute / n) <= 4.5 * se + 1e-12)
    assert (fast > 0).sum() >= 3                       # a non-trivial distribution was compared


def test_supklucb_plays_argmax_of_paper_index():
    """Every round after the round robin plays a pair whose index is the largest of Algorithm 1's
    ``max{q : N K(mu, q) <= c1 ln(n - Kbar) + c2 ln(ln(n - Kbar) + 1)}`` over all pairs, with the plug-in
    ``mu = Sup_i Sup_j`` recomputed here from the win counts (strict ``P^ > 1/2``), and is a least-played
    pair of its mu. An empirical Condorcet winner ``c`` has ``mu_cc = 1`` and index exactly 1, so from then on
    only ``(c, c)`` is played (exploration stops; the paper's rule, no tie in exact arithmetic)."""
    for K, seed in ((4, 1), (5, 2), (7, 3)):
        P = random_copeland_matrix(K, np.random.default_rng(seed))
        b = SupKLUCB(PreferenceOracle(P, np.random.default_rng(seed)), 400, rng=np.random.default_rng(seed + 9))
        c1, c2 = 2 / K, 3 / K + 40 / (K - 2) ** 2
        ai, aj = np.triu_indices(K, 0)
        Kbar = ai.size
        for n in range(1, 401):
            N = np.array([b.NA[k] for k in range(Kbar)])
            Wm = b.W.copy()
            i, j, _ = b.step()
            a = int(np.flatnonzero((ai == i) & (aj == j))[0])
            if n <= Kbar:
                assert a == n - 1
                continue
            sup = np.array([sum(Wm[x, y] > Wm[y, x] for y in range(K) if y != x) for x in range(K)]) / (K - 1)
            mu = sup[ai] * sup[aj]
            rhs = c1 * math.log(n - Kbar) + c2 * math.log(math.log(n - Kbar) + 1)
            idx = np.array([kern.klucb_index(mu[k], N[k], rhs, 1e-12) for k in range(Kbar)])
            assert idx[a] >= idx.max() - 1e-9
            assert N[a] == N[mu == mu[a]].min()
    # hand case, K = 5 (c1 = 0.4, c2 = 0.6 + 40/9): arm 2 won all its duels, (2, 2) was played 50 times and
    # every other pair once. At n = Kbar + 100 (rhs = 10.54) every other pair has mu <= 1/2 and an index
    # below 1, (2, 2) has mu = 1 and index 1: it is played, also a million rounds later
    K = 5
    ai, aj = np.triu_indices(K, 0)
    cw = np.array([1, 2, 4, 1, 2], dtype=np.int64)
    NA = np.ones(ai.size, dtype=np.int64)
    a22 = int(np.flatnonzero((ai == 2) & (aj == 2))[0])
    NA[a22] = 50
    st = np.array([7], dtype=np.uint64)
    scratch = (np.zeros((K - 1) ** 2 + 1), np.zeros((3, (K - 1) ** 2 + 1), dtype=np.int64),
               np.zeros(ai.size, dtype=np.int64))
    rhs = 0.4 * math.log(100) + (0.6 + 40 / 9) * math.log(math.log(100) + 1)
    assert rhs == pytest.approx(10.537, abs=0.001)
    for n in (ai.size + 100, ai.size + 10**6):
        assert kern.sk_choose(n, K, cw, ai.astype(np.int64), aj.astype(np.int64), NA, 0.4, 0.6 + 40 / 9, 1e-9,
                              *scratch, st) == a22
