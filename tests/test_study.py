"""Success-rate studies: the compiled replications equal the Python selectors on the same samples, common
random numbers across methods, the same results for any worker count, result files (atomic, with their
attributes), the plot, the intervals, and ``pokerduel study`` (JSON summary, usage errors exit 2)."""

from __future__ import annotations

import json
import math
import os
from dataclasses import replace

import h5py
import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

from pokerduel.cli import main
from pokerduel.selectors import _kernels as kern
from pokerduel.selectors import _replicate as rep
from pokerduel.selectors import make_selector
from pokerduel.selectors.problems import pair_arrays, pair_index_matrix
from pokerduel.selectors.studies import (
    StudyConfig,
    StudyResult,
    budget_grid,
    crossings,
    make_problem,
    paired_difference,
    parse_problem,
    run_study,
    sign_runs,
    wilson,
)

CODES = {"uniform": rep.UNIFORM, "pocbam": rep.POCBAM, "ml-pocbam": rep.ML, "hybrid": rep.HYBRID}


@pytest.mark.parametrize("name, nu0", [(m, 0.0) for m in CODES] + [(m, 1.5) for m in CODES if m != "uniform"])
@pytest.mark.parametrize("spec", ["thurstone", "perturbed:0.4"])
@pytest.mark.parametrize("n0", [3, 1])
def test_compiled_replication_equals_the_python_selector(name, nu0, spec, n0):
    """The answer (and the II of the fit) after b samples equals that of the selector run with budget b,
    with the paper's variances and with the variance prior ``var_prior = nu0`` (uniform has no variances)."""
    K, k = 7, 3
    pi, pj = pair_arrays(K)
    pidx = pair_index_matrix(K)
    checkpoints = np.array([63, 64, 70, 100, 161] if n0 == 3 else [21, 22, 30, 42, 90], dtype=np.int64)
    for seed in range(3):
        def oracle():
            return make_problem(spec, K, np.random.default_rng([seed, 1]), np.random.default_rng([seed, 2]))

        o = oracle()
        truth = np.zeros(K, dtype=np.int8)
        truth[o.true_top_k(k)] = 1
        success = np.zeros(checkpoints.size, dtype=np.uint8)
        ii = np.zeros(checkpoints.size)
        tops = np.zeros((checkpoints.size, k), dtype=np.int64)
        rep.bayes_run(CODES[name], K, k, n0, pi, pj, pidx, o._mu, o._sd, o.noise_key, checkpoints, truth, 1e-12,
                      1e-8, 200, True, 0.17, True, False, True, success, ii, tops, nu0)
        for c, b in enumerate(checkpoints):
            opts = {"var_prior": nu0} if nu0 else {}
            s = make_selector(name, oracle(), k, int(b), n0=n0, rng=np.random.default_rng(0), **opts)
            top = s.run()
            assert list(tops[c]) == list(top), (seed, int(b))
            assert success[c] == (set(top.tolist()) == set(np.flatnonzero(truth).tolist()))
            if name == "ml-pocbam":
                g, s2 = s.fit()
                want = kern.intransitivity_index(K, s.pidx, s.n, s.xbar, s.m2, g, s2, True, False, 1e-12, nu0)
                assert math.isclose(ii[c], want, rel_tol=1e-9)
            elif name == "hybrid":
                assert math.isclose(ii[c], s.final_ii, rel_tol=1e-9)


def _config(**kw):
    base = dict(K=6, k=2, budgets=(10, 30, 45, 60, 90), methods=("uniform", "pocbam", "ml-pocbam", "select-top"),
                problems=("thurstone", "perturbed:0.3"), replications=24, seed=5)
    base.update(kw)
    return StudyConfig(**base)


def test_results_do_not_depend_on_the_worker_count_and_share_random_numbers():
    cfg = _config(methods=("uniform", "pocbam", "ml-pocbam", "hybrid", "select-top", "pbr", "ar"))
    one = run_study(cfg, workers=1)
    two = run_study(cfg, workers=2)
    assert one.success.keys() == two.success.keys()
    for key in one.success:
        assert np.array_equal(one.success[key], two.success[key]), key
    for key in one.ii:
        assert np.array_equal(one.ii[key], two.ii[key], equal_nan=True)
    # common random numbers: at the warm-up (45 samples) uniform, POCBAm and PBR have seen the same samples
    # and rank by the same sample Borda scores, replication by replication
    for spec in cfg.problems:
        cols = {m: list(one.budgets[(spec, m)]).index(45) for m in ("uniform", "pocbam", "pbr")}
        u = one.success[(spec, "uniform")][:, cols["uniform"]]
        assert np.array_equal(u, one.success[(spec, "pocbam")][:, cols["pocbam"]])
        assert np.array_equal(u, one.success[(spec, "pbr")][:, cols["pbr"]])
    # budgets below a method's warm-up are left out; SELECT/TOP starts at its minimum
    assert list(one.budgets[("thurstone", "pocbam")]) == [45, 60, 90]
    assert list(one.budgets[("thurstone", "select-top")]) == [10, 30, 45, 60, 90]
    assert list(one.budgets[("thurstone", "ar")]) == [10, 30, 45, 60, 90]
    # a method can be measured at its own budgets (SELECT/TOP at multiples of its match count)
    own = run_study(_config(methods=("uniform", "select-top"), own_budgets={"select-top": (8, 16, 24, 120)}))
    assert list(own.budgets[("thurstone", "select-top")]) == [8, 16, 24, 120]
    assert own.success[("thurstone", "select-top")].shape == (24, 4)


class _Killed(Exception):
    pass


def test_a_killed_study_resumes_from_its_checkpoint_with_the_same_result(tmp_path):
    cfg = _config(methods=("uniform", "pocbam", "ml-pocbam", "select-top"))
    whole = run_study(cfg, workers=1)
    partial = tmp_path / "study.h5.partial"

    def kill_after_first_task(n):
        raise _Killed                   # raised after the task's checkpoint write, like a kill -9 there

    with pytest.raises(_Killed):
        run_study(cfg, workers=2, progress=kill_after_first_task, checkpoint=partial, checkpoint_every=0)
    with h5py.File(partial) as f:
        held = int(f["done"][()].sum())
    assert 0 < held < cfg.replications
    seen = []
    resumed = run_study(cfg, workers=1, progress=seen.append, checkpoint=partial)
    assert seen[0] == held and sum(seen) == cfg.replications      # the held replications are not played again
    assert not partial.exists()
    for key in whole.success:
        assert np.array_equal(whole.success[key], resumed.success[key]), key
    for key in whole.ii:
        assert np.array_equal(whole.ii[key], resumed.ii[key], equal_nan=True)
    # a checkpoint of another study is refused, not mixed in
    with pytest.raises(_Killed):
        run_study(cfg, workers=1, progress=kill_after_first_task, checkpoint=partial, checkpoint_every=0)
    with pytest.raises(ValueError, match="checkpoint of another study"):
        run_study(_config(seed=6), checkpoint=partial)


def test_replication_uses_the_same_instance_for_every_problem_and_method():
    from pokerduel.selectors.studies import replication_seeds

    inst, noise, _ = replication_seeds(3, 7)
    a = make_problem("thurstone", 6, np.random.default_rng(inst), np.random.default_rng(noise))
    b = make_problem("perturbed:0.2", 6, np.random.default_rng(inst), np.random.default_rng(noise))
    np.testing.assert_array_equal(a.gamma, b.gamma)
    np.testing.assert_array_equal(a.variances, b.variances)
    assert a.noise_key == b.noise_key
    other = make_problem("thurstone", 6, *(np.random.default_rng(s) for s in replication_seeds(3, 8)[:2]))
    assert not np.array_equal(a.gamma, other.gamma)


def _direct_rates(spec, method, budgets, reps, seed, **options):
    """Success rates of ``method`` by running its Python selector on each replication's problem (K 6, k 2)."""
    from pokerduel.selectors.studies import replication_seeds

    hits = np.zeros(len(budgets))
    for r in range(reps):
        inst, noise, sel = replication_seeds(seed, r)
        for c, b in enumerate(budgets):
            o = make_problem(spec, 6, np.random.default_rng(inst), np.random.default_rng(noise))
            s = make_selector(method, o, 2, b, rng=np.random.default_rng(sel), **options)
            hits[c] += set(s.run().tolist()) == set(o.true_top_k(2).tolist())
    return hits / reps


def test_success_rates_agree_with_a_direct_computation():
    cfg = _config(methods=("uniform",), problems=("thurstone",), budgets=(45, 150), replications=200, seed=11)
    res = run_study(cfg, workers=1)
    b, rate, lo, hi = res.rate("thurstone", "uniform")
    np.testing.assert_allclose(rate, _direct_rates("thurstone", "uniform", (45, 150), 200, 11))
    assert np.all((lo <= rate) & (rate <= hi))


@pytest.mark.parametrize("options", [{"lag": 2}, {"refit_every": 3}])
def test_options_without_a_compiled_counterpart_run_the_python_selector(options):
    """A lag or a refit interval is not ignored by the compiled replay: the study runs each budget's
    Python selector (with a lag a fresh run per budget, since mid-run states leave samples unseen)."""
    cfg = _config(methods=("ml-pocbam",), problems=("perturbed:0.4",), budgets=(20, 45), replications=6, seed=5,
                  options={"ml-pocbam": {"n0": 1, **options}})
    res = run_study(cfg, workers=1)
    np.testing.assert_allclose(res.rate("perturbed:0.4", "ml-pocbam")[1],
                               _direct_rates("perturbed:0.4", "ml-pocbam", (20, 45), 6, 5, n0=1, **options))
    from pokerduel.selectors.studies import _fast_params

    o = make_problem("perturbed:0.4", 6, np.random.default_rng(0), np.random.default_rng(1))
    assert _fast_params(cfg, "ml-pocbam", o) is None
    assert _fast_params(_config(methods=("ml-pocbam",), options={"ml-pocbam": {"n0": 1}}), "ml-pocbam", o)["n0"] == 1


def test_wilson_interval_matches_scipy_and_covers():
    for x, n in ((0, 10), (3, 10), (50, 100), (999, 1000), (1000, 1000)):
        lo, hi = wilson(np.array([x]), n)
        ci = stats.binomtest(x, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert math.isclose(lo[0], ci.low, abs_tol=1e-12) and math.isclose(hi[0], ci.high, abs_tol=1e-12)


def test_paired_difference_crossings_and_sign_runs():
    cfg = _config(methods=("uniform", "pocbam"), problems=("thurstone",))
    res = run_study(cfg, workers=1)
    b, d, h = paired_difference(res, "thurstone", "pocbam", "uniform")
    assert list(b) == [45, 60, 90]
    sa = res.success[("thurstone", "pocbam")].astype(float)
    su = res.success[("thurstone", "uniform")].astype(float)           # measured at 45, 60, 90 too
    np.testing.assert_allclose(d, (sa - su).mean(0))
    np.testing.assert_allclose(h, 1.959963984540054 * (sa - su).std(0, ddof=1) / np.sqrt(24))
    assert crossings([0, 10, 20, 30], [1.0, -1.0, -1.0, 3.0]) == [5.0, 22.5]
    assert crossings([0, 10, 20, 30], [0.0, 1.0, 0.0, 2.0]) == []
    assert crossings([0, 10, 20, 30], [1.0, 0.0, 0.0, -2.0]) == [10.0]
    assert sign_runs([1, 2, 3, 4], [0.5, 0.4, 0.0, -0.5], [0.1, 0.1, 0.1, 0.1]) == [("+", 1, 2), ("0", 3, 3),
                                                                                    ("-", 4, 4)]


def test_save_load_plot(tmp_path):
    cfg = _config(methods=("pocbam", "ml-pocbam", "select-top"))
    res = run_study(cfg, workers=1)
    path = tmp_path / "s.h5"
    res.save(path)
    assert sorted(os.listdir(tmp_path)) == ["s.h5"]                 # no temporary file left
    with h5py.File(path, "r") as f:
        assert f.attrs["format"] == "pokerduel-study" and f.attrs["seed"] == 5
        assert f.attrs["pokerduel_version"] and json.loads(f.attrs["config"])["K"] == 6
        assert f.attrs["replications"] == 24
    back = StudyResult.load(path)
    assert back.config == cfg
    for key in res.success:
        assert np.array_equal(back.success[key], res.success[key])
        assert np.array_equal(back.budgets[key], res.budgets[key])
    for key in res.ii:
        assert np.array_equal(back.ii[key], res.ii[key], equal_nan=True)
    png = tmp_path / "s.png"
    res.plot(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="not a readable HDF5"):
        (tmp_path / "bad.h5").write_text("x")
        StudyResult.load(tmp_path / "bad.h5")


@pytest.mark.parametrize("kw,message", [
    (dict(k=6), "k must satisfy"),
    (dict(k=0), "k must satisfy"),
    (dict(budgets=(10, 30)), r"budget 30 is below the warm-up of 'uniform': it needs at least 45"),
    (dict(budgets=(60, 50)), "strictly increasing"),
    (dict(methods=("uniform", "nope")), "unknown method 'nope'"),
    (dict(problems=("gauss",)), "unknown problem 'gauss'"),
    (dict(problems=("perturbed",)), "needs the perturbation scale"),
    (dict(problems=("perturbed:-1",)), ">= 0"),
    (dict(replications=0), "replications"),
    (dict(variance_law="x"), "unknown variance_law"),
    (dict(options={"pocbam": {"bogus": 1}}), "bad options for 'pocbam'"),
    (dict(options={"hybrid": {"threshold": 0.2}}), "options must map methods of the study"),
    (dict(own_budgets={"select-top": (5, 20)}), r"budgets of 'select-top' must be .* at least its minimum 8"),
    (dict(own_budgets={"ar": (5, 20)}), "own_budgets must map methods of the study"),
])
def test_config_errors(kw, message):
    with pytest.raises(ValueError, match=message):
        _config(**kw).validate()


def test_problem_specs():
    assert parse_problem("thurstone") == ("thurstone", None)
    assert parse_problem("perturbed:0.25") == ("perturbed", 0.25)
    assert parse_problem("separated") == ("separated", 1.2)
    o = make_problem("separated:1.5", 20, np.random.default_rng(0), np.random.default_rng(1))
    assert o.gamma[0] == 1.5 and list(o.true_top_k(1)) == [0]
    assert budget_grid(10, 4, ("uniform", "select-top"), 1000, 3) == (19, 135, 510, 568, 1000)


@pytest.fixture
def runner():
    return CliRunner()


def test_cli_json_matches_the_python_api(runner, tmp_path):
    out = tmp_path / "r.h5"
    args = ["study", "synthetic", "--K", "6", "--k", "2", "--methods", "uniform,ml-pocbam,select-top",
            "--budgets", "10,45,90", "--reps", "20", "--seed", "3", "--problem", "thurstone", "--problem",
            "perturbed:0.3", "--workers", "2", "--out", str(out), "--json"]
    res = runner.invoke(main, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    summary = json.loads(res.output.strip().splitlines()[-1])
    assert summary["workers"] == 2 and summary["config"]["seed"] == 3
    assert os.path.exists(out) and os.path.exists(tmp_path / "r.png")
    cfg = StudyConfig(K=6, k=2, budgets=(10, 45, 90), methods=("uniform", "ml-pocbam", "select-top"),
                      problems=("thurstone", "perturbed:0.3"), replications=20, seed=3)
    direct = run_study(cfg, workers=1)
    for curve in summary["curves"]:
        b, rate, lo, hi = direct.rate(curve["problem"], curve["method"])
        assert curve["budgets"] == list(b) and np.allclose(curve["success_rate"], rate)
        assert np.allclose(curve["ci95_low"], lo) and np.allclose(curve["ci95_high"], hi)


def test_cli_prints_rates_and_writes_files(runner, tmp_path):
    out = tmp_path / "x.h5"
    res = runner.invoke(main, ["study", "synthetic", "--K", "5", "--k", "1", "--budget", "60", "--points", "3",
                               "--reps", "10", "--out", str(out), "--plot", str(tmp_path / "p.png"), "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "success rate [95% CI]" in res.output and "ml-pocbam" in res.output and "select-top" in res.output
    assert (tmp_path / "p.png").exists() and out.exists()


@pytest.mark.parametrize("args,message", [
    (["--k", "10"], "k must satisfy 1 <= k < K = 10"),
    (["--k", "0"], "--k"),
    (["--K", "1"], "--K"),
    (["--budget", "100"], "below the warm-up of 'uniform'"),
    (["--budgets", "10,100"], "below the warm-up of 'uniform'"),
    (["--methods", "uniform,select"], "unknown method 'select'"),
    (["--problem", "gauss"], "unknown problem 'gauss'"),
    (["--option", "hybrid.threshold"], "METHOD.NAME=VALUE"),
    (["--methods", "hybrid", "--option", "hybrid.threshold=3"], "threshold must be a number in [0, 1]"),
    (["--reps", "0"], "--reps"),
    (["--budgets", "1,x"], "comma-separated list of integers"),
    (["--variance-law", "x"], "--variance-law"),
])
def test_cli_usage_errors_exit_2(runner, tmp_path, args, message):
    res = runner.invoke(main, ["study", "synthetic", *args, "--reps", "2", "--out", str(tmp_path / "z.h5")]
                        if "--reps" not in args else ["study", "synthetic", *args, "--out", str(tmp_path / "z.h5")])
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert not (tmp_path / "z.h5").exists()


def test_studies_import_no_poker_code():
    import subprocess
    import sys
    code = ("import sys, pokerduel.selectors.studies; "
            "bad = [m for m in sys.modules if m.startswith(('pokerduel.engine', 'pokerduel.players', "
            "'pokerduel.play'))]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)



def test_a_dask_cluster_gives_the_same_study():
    pytest.importorskip("dask.distributed")
    from pokerduel.infra.parallel import get_backend

    cfg = _config(methods=("uniform", "ml-pocbam", "select-top"))
    local = run_study(cfg, workers=1)
    with get_backend("dask", workers=2, threads=True) as backend:
        remote = run_study(cfg, backend=backend)
    assert remote.workers == 2
    for key in local.success:
        assert np.array_equal(local.success[key], remote.success[key]), key


def _killed_study(cfg, partial):
    """Leave the checkpoint of ``cfg``'s study killed after its first task."""
    def kill(n):
        raise _Killed

    with pytest.raises(_Killed):
        run_study(cfg, progress=kill, checkpoint=partial, checkpoint_every=0)


def test_cli_resumes_a_killed_study_and_refuses_another_studys_checkpoint(runner, tmp_path):
    cfg = StudyConfig(K=5, k=1, budgets=(30, 60), methods=("uniform", "ml-pocbam"), problems=("thurstone",),
                      replications=12, seed=1)
    args = ["study", "synthetic", "--K", "5", "--k", "1", "--budgets", "30,60", "--methods", "uniform,ml-pocbam",
            "--problem", "thurstone", "--reps", "12", "--seed", "1", "--workers", "1"]
    out = tmp_path / "s.h5"
    _killed_study(cfg, f"{out}.partial")
    res = runner.invoke(main, [*args, "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert not os.path.exists(f"{out}.partial")
    assert np.array_equal(StudyResult.load(out).success[("thurstone", "ml-pocbam")],
                          run_study(cfg).success[("thurstone", "ml-pocbam")])
    other = tmp_path / "o.h5"
    _killed_study(replace(cfg, seed=2), f"{other}.partial")
    res = runner.invoke(main, [*args, "--out", str(other)])
    assert res.exit_code == 2 and "checkpoint of another study" in res.output, res.output
    res = runner.invoke(main, [*args, "--out", str(other), "--overwrite"])
    assert res.exit_code == 0, res.output
