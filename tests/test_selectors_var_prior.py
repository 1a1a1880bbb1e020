"""The variance prior of POCBAm, ML-POCBAm and the hybrid (``var_prior = nu0``): the default is the paper's
method decision for decision, the shrunk variances and the penalised fit by hand, bad values, a pair whose
warm-up samples are all equal is sampled again with the prior, and the compiled replications follow it."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest
from click.testing import CliRunner

from pokerduel.cli import main
from pokerduel.selectors import CallableOracle, GaussianOracle, make_selector, perturbed_thurstone
from pokerduel.selectors import _kernels as kern
from pokerduel.selectors import _replicate as rep
from pokerduel.selectors.problems import pair_arrays, pair_index_matrix
from pokerduel.selectors.studies import make_problem

METHODS = ("pocbam", "ml-pocbam", "hybrid")
CODES = {"pocbam": rep.POCBAM, "ml-pocbam": rep.ML, "hybrid": rep.HYBRID}


def _digest(*arrays) -> str:
    d = hashlib.sha256()
    for a in arrays:
        d.update(np.ascontiguousarray(a, dtype=np.int64).tobytes())
    return d.hexdigest()[:16]


# --- the default is the paper's method, unchanged ---------------------------------------------------------

# the traces and answers of the selectors before the option existed (perturbed Thurstone, K = 7, k = 3,
# 80 decisions after the warm-up; sha256 of trace.i, trace.j and the answer)
BEFORE = {("pocbam", 3): "01bcd39429764eb1", ("pocbam", 1): "13fbdb6b73761f47",
          ("ml-pocbam", 3): "0815c936c53bc5f0", ("ml-pocbam", 1): "c6eb7874daae969b",
          ("hybrid", 3): "b4080d30af0afdf4", ("hybrid", 1): "5f6d2efdc538cea1"}
# the compiled replications' answers at 135, 200, 500 and 1,000 samples on five Fig 2a instances
BEFORE_COMPILED = {"pocbam": "adb8a50908eec54c", "ml-pocbam": "4f4ea7c005e72936", "hybrid": "7bda0f2c0fa34911"}


@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("n0", [3, 1])
@pytest.mark.parametrize("options", [{}, {"var_prior": 0}, {"var_prior": 0.0}])
def test_default_makes_the_same_decisions_as_before(name, n0, options):
    o = perturbed_thurstone(7, 0.3, np.random.default_rng([4, 0]), np.random.default_rng([4, 1]))
    s = make_selector(name, o, 3, (63 if n0 == 3 else 21) + 80, n0=n0, rng=np.random.default_rng(0), **options)
    top = s.run()
    assert s.var_prior == 0.0
    assert _digest(s.trace.i, s.trace.j, top) == BEFORE[(name, n0)]


@pytest.mark.parametrize("name", METHODS)
def test_default_compiled_replications_are_unchanged(name):
    K, k = 10, 4
    pi, pj = pair_arrays(K)
    pidx = pair_index_matrix(K)
    cps = np.array([135, 200, 500, 1000], dtype=np.int64)
    for extra in ((), (0.0,)):
        tops_all = []
        for seed in range(5):
            o = make_problem("thurstone", K, np.random.default_rng([seed, 1]), np.random.default_rng([seed, 2]))
            truth = np.zeros(K, np.int8)
            truth[o.true_top_k(k)] = 1
            tops = np.zeros((cps.size, k), np.int64)
            rep.bayes_run(CODES[name], K, k, 3, pi, pj, pidx, o._mu, o._sd, o.noise_key, cps, truth, 1e-12, 1e-8, 200,
                          True, 0.17, True, False, True, np.zeros(cps.size, np.uint8), np.zeros(cps.size), tops,
                          *extra)
            tops_all.append(tops)
        assert _digest(*tops_all) == BEFORE_COMPILED[name]


# --- the formulas by hand ---------------------------------------------------------------------------------

def _stats(K, samples):
    pi, pj = pair_arrays(K)
    pidx = pair_index_matrix(K)
    n, xbar, m2 = np.zeros(pi.size, np.int64), np.zeros(pi.size), np.zeros(pi.size)
    for (i, j), xs in samples.items():
        kern.record_many(n, xbar, m2, np.full(len(xs), pidx[i, j], np.int64), np.asarray(xs, float))
    return pi, pj, pidx, n, xbar, m2


SMALL = {(0, 1): [5.0, 5.0, 5.0], (0, 2): [1.0, 3.0, 2.0, 6.0], (1, 2): [-2.0, 2.0]}


def test_shrunk_pair_variance_by_hand():
    nu0 = 2.0
    pi, pj, pidx, n, xbar, m2 = _stats(3, SMALL)
    s2 = {pq: np.var(xs, ddof=1) for pq, xs in SMALL.items()}            # 0, 14/3, 8
    pool = (s2[0, 1] + s2[0, 2] + s2[1, 2]) / 3                            # the mean unbiased pair variance
    assert math.isclose(kern.data_scale2(n, xbar, m2), pool, rel_tol=1e-14)
    want = {pq: (nu0 * pool + (len(xs) - 1) * s2[pq]) / (nu0 + len(xs) - 1) for pq, xs in SMALL.items()}
    assert math.isclose(want[0, 1], 2 * pool / 4)                           # three equal samples: half the pool
    out = np.empty(3)
    kern.sample_variances(n, m2, 0.0, pool, out, nu0)
    for pq, v in want.items():
        assert math.isclose(out[pidx[pq]], v, rel_tol=1e-13)
    kern.sample_variances(n, m2, 0.0, pool, out)                            # no prior: eq 7
    for pq, v in s2.items():
        assert math.isclose(out[pidx[pq]], v, rel_tol=1e-13, abs_tol=1e-15)


def test_pocbam_posterior_uses_the_shrunk_variances():
    """After a run, ``var_i = sum_j s2_ij / n_ij`` with ``s2_ij`` shrunk toward the mean pair variance, by hand
    from the trace."""
    K, nu0 = 5, 3.0
    o = perturbed_thurstone(K, 0.3, np.random.default_rng(1), np.random.default_rng(2))
    s = make_selector("pocbam", o, 2, 30 + 25, var_prior=nu0)
    s.run()
    xs = {(i, j): s.trace.x[(s.trace.i == i) & (s.trace.j == j)] for i, j in zip(*pair_arrays(K))}
    pool = np.mean([np.var(x, ddof=1) for x in xs.values()])
    shrunk = {pq: (nu0 * pool + (x.size - 1) * np.var(x, ddof=1)) / (nu0 + x.size - 1) for pq, x in xs.items()}
    mu, var = s.posterior()
    for i in range(K):
        want = sum(shrunk[min(i, j), max(i, j)] / xs[min(i, j), max(i, j)].size for j in range(K) if j != i)
        assert math.isclose(var[i], want, rel_tol=1e-10)
        assert math.isclose(mu[i], sum(np.mean(xs[i, j]) if i < j else -np.mean(xs[j, i])
                                       for j in range(K) if j != i), rel_tol=1e-10, abs_tol=1e-12)


def _penalised_ll(K, samples, gamma, sig2, pool, nu0):
    pidx = pair_index_matrix(K)
    ll = 0.0
    for (i, j), xs in samples.items():
        s = sig2[pidx[i, j]]
        r = np.asarray(xs) - gamma[i] + gamma[j]
        ll += np.sum(-0.5 * np.log(2 * np.pi * s) - 0.5 * r * r / s) - 0.5 * nu0 * (np.log(s) + pool / s)
    return ll


@pytest.mark.parametrize("nu0", [0.5, 2.0, 10.0])
def test_fit_with_prior_maximises_the_penalised_likelihood(nu0):
    """Given gamma each variance is ``(nu0 pool + m2 + n r^2) / (nu0 + n)``, the gradient in gamma is zero, and
    a general-purpose optimiser finds no higher penalised likelihood."""
    from scipy import optimize

    K = 5
    rng = np.random.default_rng(3)
    gamma_true = rng.uniform(0, 1, K)
    samples = {}
    for i, j in zip(*pair_arrays(K)):
        xs = gamma_true[i] - gamma_true[j] + rng.uniform(0.2, 1.5) * rng.standard_normal(3 + int(rng.integers(0, 3)))
        samples[int(i), int(j)] = xs
    samples[0, 1] = np.array([2.0, 2.0, 2.0])                # equal samples: no variance of their own
    pi, pj, pidx, n, xbar, m2 = _stats(K, samples)
    pool = kern.data_scale2(n, xbar, m2)
    g, s2 = np.zeros(K), np.ones(pi.size)
    it = kern.fit_thurstone(K, pidx, pi, pj, n, xbar, m2, g, s2, True, 1e-12, 1e-12, 500, nu0)
    assert it > 0
    for (i, j), xs in samples.items():
        r = xbar[pidx[i, j]] - g[i] + g[j]
        want = (nu0 * pool + m2[pidx[i, j]] + len(xs) * r * r) / (nu0 + len(xs))
        assert math.isclose(s2[pidx[i, j]], want, rel_tol=1e-12)
    assert s2[pidx[0, 1]] >= nu0 * pool / (nu0 + 3)          # cannot collapse
    for a in range(1, K):
        grad = sum(np.sum(np.asarray(xs) - g[i] + g[j]) / s2[pidx[i, j]] * ((i == a) - (j == a))
                   for (i, j), xs in samples.items())
        assert abs(grad) < 1e-7
    best = _penalised_ll(K, samples, g, s2, pool, nu0)
    assert math.isclose(kern.profile_ll(pi, pj, n, xbar, m2, 0.0, pool, g, s2.copy(), nu0), best, rel_tol=1e-12)

    def neg(theta):
        return -_penalised_ll(K, samples, np.r_[0.0, theta[:K - 1]], np.exp(theta[K - 1:]), pool, nu0)

    res = optimize.minimize(neg, np.r_[np.zeros(K - 1), np.zeros(pi.size)], method="L-BFGS-B")
    assert -res.fun <= best + 1e-7 * abs(best)


def test_ii_is_zero_on_exact_data_with_the_prior():
    """Shrinking the observed variances like the fitted ones keeps eq 17 at 0 when the data fit the model."""
    K = 6
    gamma = np.linspace(1, 0, K)
    o = GaussianOracle(gamma[:, None] - gamma[None, :], np.zeros((K, K)), np.random.default_rng(0))
    s = make_selector("hybrid", o, 2, 45 + 10, var_prior=2.0)
    s.run()
    assert s.intransitivity_index() < 1e-9
    assert s.final_mode == 1


# --- bad values -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("bad", [-1, -1e-9, float("nan"), float("inf"), "2", True, None, [2.0]])
def test_bad_var_prior_is_a_clear_error(name, bad):
    o = perturbed_thurstone(5, 0.1, np.random.default_rng(0), np.random.default_rng(1))
    with pytest.raises(ValueError, match=r"var_prior .* must be a finite number >= 0"):
        make_selector(name, o, 2, 60, var_prior=bad)


def test_methods_without_pair_variances_refuse_the_option():
    o = perturbed_thurstone(5, 0.1, np.random.default_rng(0), np.random.default_rng(1))
    with pytest.raises(TypeError, match="var_prior"):
        make_selector("uniform", o, 2, 60, var_prior=2.0)


# --- what it is for: a pair whose warm-up samples are equal -----------------------------------------------

M = np.array([[0, 0, 0.5, 1], [0, 0, 0.5, 1], [-0.5, -0.5, 0, 2], [-1, -1, -2, 0]], float)


def _two_point_oracle(seed):
    """Pair (0, 1) is +-3 with mean 0 but its first three samples are +3 (zero sample variance after the
    warm-up); pair (2, 3) is +-10 around 2 (a large pooled variance, as among poker players); the rest is
    N(mean, 1). The true top 2 is {0, 1}; after the warm-up player 1 sits at the boundary."""
    rng = np.random.default_rng(seed)
    count = {(0, 1): 0, (2, 3): 0}

    def fn(i, j):
        if (i, j) in count:
            count[i, j] += 1
            t = count[i, j]
            if (i, j) == (0, 1):
                return 3.0 if t <= 3 or t % 2 == 0 else -3.0
            return 2.0 + (10.0 if t % 2 else -10.0)
        return M[i, j] + rng.standard_normal()

    return CallableOracle(4, fn, means=M)


@pytest.mark.parametrize("name", ["pocbam", "hybrid"])
def test_equal_warm_up_pair_is_sampled_again_with_the_prior(name):
    for seed in range(4):
        counts = {}
        for nu0 in (0.0, 2.0):
            s = make_selector(name, _two_point_oracle(seed), 2, 18 + 100, var_prior=nu0)
            s.run()
            counts[nu0] = int(s.n[s.pidx[0, 1]])
        assert counts[0.0] == 3, "without the prior the pair looks certain and is never sampled again"
        assert counts[2.0] >= 10, counts


def test_ml_pocbam_samples_the_equal_warm_up_pair_with_the_prior():
    for seed in range(4):
        s = make_selector("ml-pocbam", _two_point_oracle(seed), 2, 18 + 100, var_prior=2.0)
        s.run()
        assert s.n[s.pidx[0, 1]] >= 10


# --- the compiled replications follow the option ----------------------------------------------------------

# test_study.py::test_compiled_replication_equals_the_python_selector covers var_prior too.


def test_poker_replay_compiled_path_follows_the_prior():
    from pathlib import Path

    from pokerduel.play.ground_truth import load_ground_truth
    from pokerduel.studies.poker import PokerStudyConfig, run_unit

    data = str(Path(__file__).resolve().parents[1] / "data" / "ground_truth_10x10_seed1.h5")
    truth = load_ground_truth(data)
    opts = {m: {"var_prior": 2.0} for m in METHODS}
    opts["hybrid"]["threshold"] = 0.17
    cfg = PokerStudyConfig(data, budgets=(135, 180, 300, 500), methods=METHODS, options=opts)
    plain = PokerStudyConfig(data, budgets=(135, 180, 300, 500), methods=METHODS)
    differs = False
    for p in (2, 9):
        slow = run_unit(cfg, truth[p], p, 0, 3, compiled=False)
        fast = run_unit(cfg, truth[p], p, 0, 3, compiled=True)
        for m in METHODS:
            np.testing.assert_array_equal(slow[(m, "success")], fast[(m, "success")], err_msg=m)
        np.testing.assert_allclose(slow[("hybrid", "ii")], fast[("hybrid", "ii")], rtol=1e-6)
        base = run_unit(plain, truth[p], p, 0, 3, compiled=True)
        differs |= not np.array_equal(base[("hybrid", "ii")], fast[("hybrid", "ii")])
    assert differs                                   # the option reaches the compiled kernels


# --- command lines ----------------------------------------------------------------------------------------

def test_study_cli_takes_the_prior_and_refuses_bad_values(tmp_path):
    out = tmp_path / "s.h5"
    args = ["study", "synthetic", "--K", "5", "--k", "2", "--methods", "uniform,pocbam,ml-pocbam", "--budgets",
            "30,60", "--reps", "4", "--workers", "1", "--out", str(out)]
    r = CliRunner().invoke(main, args + ["--var-prior", "2"])
    assert r.exit_code == 0, r.output
    from pokerduel.selectors.studies import StudyResult

    assert StudyResult.load(out).config.options == {"pocbam": {"var_prior": 2.0}, "ml-pocbam": {"var_prior": 2.0}}
    r = CliRunner().invoke(main, args + ["--option", "pocbam.var_prior=-1", "--overwrite"])
    assert r.exit_code == 2 and "var_prior" in r.output


def test_evolution_passes_the_prior_through_its_selector_options():
    """``pokerduel evolve --selector-option var_prior=NU0`` reaches the selector; bad values are refused."""
    from pokerduel.evolution.evolve import EvolveConfig

    base = dict(population=6, generations=1, keep=3, selector="hybrid", deals=10, panel_bots=("random",), seed=1)
    cfg = EvolveConfig(**base, selector_options={"var_prior": 2.0})
    assert cfg.selector_options == {"var_prior": 2.0}
    with pytest.raises(ValueError, match="var_prior"):
        EvolveConfig(**base, selector_options={"var_prior": -1.0})
