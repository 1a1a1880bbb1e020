"""``pokerduel ground-truth``: bit-identical on every backend, resumable after SIGKILL, strict about old files."""

import itertools
import json
import os
import signal
import subprocess
import sys
import time

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

from pokerduel.cli import main
from pokerduel.infra.parallel import SerialBackend, get_backend
from pokerduel.play.ground_truth import (
    ConfigMismatch,
    CorruptFile,
    borda_ranking,
    file_job,
    intransitive_triplets,
    load_ground_truth,
    negative_upper,
    pair_seed,
    parts_dir,
    population_seed,
    random_job,
    run_ground_truth,
)
from pokerduel.play.matches import play_duplicate
from pokerduel.play.populations import new_population, save_population

SMALL = ["--populations", "2", "--size", "4", "--hands", "40", "--seed", "5"]
# The job killed with SIGKILL: long enough (20 pairs of 1,500 deals, about 1-3 s) to be caught midway.
KILLED = ["--populations", "2", "--size", "5", "--hands", "3000", "--seed", "3"]


@pytest.fixture
def run():
    runner = CliRunner()
    return lambda *args: runner.invoke(main, [str(a) for a in args])


def assert_same_truth(a, b):
    assert a.config == b.config and len(a) == len(b)
    for x, y in zip(a.populations, b.populations):
        for name in ("genomes", "mean", "var", "hand_var", "count", "invalid_actions", "pair_seed", "pairs",
                     "all_samples", "borda", "ranking"):
            u, v = getattr(x, name), getattr(y, name)
            assert u.dtype == v.dtype and np.array_equal(u, v, equal_nan=True), name
        assert (x.negative_upper, x.intransitive_triplets) == (y.negative_upper, y.intransitive_triplets)


@pytest.fixture(scope="module")
def small_reference(tmp_path_factory):
    path = tmp_path_factory.mktemp("ref") / "ref.h5"
    run_ground_truth(random_job(2, 4, 40, 5), path, SerialBackend())
    return load_ground_truth(path)


@pytest.fixture(scope="module")
def killed_reference(tmp_path_factory):
    path = tmp_path_factory.mktemp("ref") / "killed_ref.h5"
    run_ground_truth(random_job(2, 5, 3000, 3), path, SerialBackend())
    return load_ground_truth(path)


# ------------------------------------------------------------------------------------ seeds and contents


def test_seeds_depend_on_identity_alone():
    assert population_seed(1, 0) != population_seed(1, 1) != population_seed(2, 1)
    assert pair_seed(1, 0, 0, 1) != pair_seed(1, 0, 0, 2) != pair_seed(1, 1, 0, 2)
    three, two = random_job(3, 4, 40, 9), random_job(2, 4, 40, 9)
    for a, b in zip(two.populations, three.populations):  # adding a population keeps the others
        np.testing.assert_array_equal(a.genomes, b.genomes)
    assert three.populations[0].genomes.tolist() == new_population(4, population_seed(9, 0)).genomes.tolist()


def test_file_holds_every_pair_as_play_duplicate_plays_it(small_reference):
    t = small_reference
    assert t.config["hands"] == 40 and t.config["deals"] == 20 and len(t) == 2
    pop = t[1].population()
    k = len(pop)
    assert t[1].pairs.tolist() == [[i, j] for i in range(k) for j in range(i + 1, k)]
    for i, j in [(0, 1), (1, 3), (2, 3)]:
        seed = pair_seed(5, 1, i, j)
        assert int(t[1].pair_seed[i, j]) == int(t[1].pair_seed[j, i]) == seed
        r = play_duplicate(pop.player(i), pop.player(j), 20, seed)
        np.testing.assert_array_equal(t[1].samples(i, j), r.samples)
        np.testing.assert_array_equal(t[1].samples(j, i), -r.samples)
        s = r.samples.astype(float)
        assert t[1].mean[i, j] == s.mean() == -t[1].mean[j, i]
        assert t[1].var[i, j] == pytest.approx(s.var(ddof=1))
        assert t[1].hand_var[i, j] == pytest.approx(r.hand_payoffs.astype(float).var(ddof=1))
    assert t[1].all_samples.dtype == np.int32 and np.all(t[1].count[~np.eye(k, dtype=bool)] == 20)
    assert np.all(np.diag(t[1].mean) == 0) and np.all(t[1].invalid_actions == 0)
    with pytest.raises(ValueError, match="two different players"):
        t[1].samples(2, 2)


def test_samples_are_compressed_and_checksummed(small_reference):
    with h5py.File(small_reference.path, "r") as f:
        ds = f["pop00/samples"]
        assert ds.compression == "gzip" and ds.shuffle and ds.fletcher32
        assert json.loads(f.attrs["config"]) == small_reference.config
        assert f.attrs["format"] == "pokerduel.ground_truth" and "wall_seconds_last_run" in f.attrs


# ------------------------------------------------------------------------------------ summaries


def _brute_force(mean):
    k = len(mean)
    borda = [sum(mean[i]) for i in range(k)]
    ranking = sorted(range(k), key=lambda i: (-borda[i], i))
    upsets = sum(mean[ranking[a]][ranking[b]] < 0 for a in range(k) for b in range(a + 1, k))
    cycles = 0
    for a, b, c in itertools.combinations(range(k), 3):
        beats = lambda x, y: mean[x][y] > 0  # noqa: E731
        cycles += (beats(a, b) and beats(b, c) and beats(c, a)) or (beats(b, a) and beats(c, b) and beats(a, c))
    return ranking, upsets, cycles


@pytest.mark.parametrize("seed", range(6))
def test_summaries_match_a_brute_force_count(seed):
    rng = np.random.default_rng(seed)
    k = 9
    upper = rng.integers(-3, 4, (k, k)).astype(float)  # many ties (zeros), as card-blind pairs give
    mean = np.triu(upper, 1) - np.triu(upper, 1).T
    ranking, upsets, cycles = _brute_force(mean.tolist())
    borda, got = borda_ranking(mean)
    assert got.tolist() == ranking and np.allclose(borda, mean.sum(1))
    assert negative_upper(mean, got) == upsets
    assert intransitive_triplets(mean) == cycles


def test_triplets_of_a_tie_free_tournament_follow_the_score_formula():
    rng = np.random.default_rng(3)
    k = 10
    upper = np.triu(rng.choice([-1.0, 1.0], (k, k)), 1)
    mean = upper - upper.T
    wins = (mean > 0).sum(1)
    assert intransitive_triplets(mean) == k * (k - 1) * (k - 2) // 6 - sum(w * (w - 1) // 2 for w in wins)
    order = np.argsort(-mean.sum(1), kind="stable")
    assert negative_upper(mean[np.ix_(order, order)], np.arange(k)) == negative_upper(mean, borda_ranking(mean)[1])


# ------------------------------------------------------------------------------------ determinism


def test_serial_and_two_workers_are_bit_identical(tmp_path, run, small_reference):
    res = run("ground-truth", *SMALL, "--out", tmp_path / "mp.h5", "--workers", "2", "--json")
    assert res.exit_code == 0, res.output
    info = json.loads(res.output.strip().splitlines()[-1])
    assert info["backend"] == "multiprocess (2 workers)" and info["pairs_played"] == 12
    assert_same_truth(load_ground_truth(tmp_path / "mp.h5"), small_reference)
    assert not parts_dir(tmp_path / "mp.h5").exists()


# ------------------------------------------------------------------------------------ resuming


def test_resume_after_sigkill_equals_an_uninterrupted_run(tmp_path, run, killed_reference):
    out = tmp_path / "gt.h5"
    parts = parts_dir(out)
    cmd = [sys.executable, "-c", "from pokerduel.cli import main; main()",
           "ground-truth", *KILLED, "--out", str(out), "--workers", "2"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(list(parts.glob("pair-*.npz"))) < 3:
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "no pair finished within 60 s"
            time.sleep(0.005)
        assert proc.poll() is None
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        # The pool's workers die with their parent: nothing of the session is left after a moment.
        for _ in range(200):
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.01)
        else:
            pytest.fail("worker processes outlived the killed command")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    done = len(list(parts.glob("pair-*.npz")))
    assert not out.exists() and 3 <= done < 20
    res = run("ground-truth", *KILLED, "--out", out, "--backend", "serial", "--json")
    assert res.exit_code == 0, res.output
    info = json.loads(res.output.strip().splitlines()[-1])
    assert info["pairs_resumed"] == done and info["pairs_played"] == 20 - done
    assert_same_truth(load_ground_truth(out), killed_reference)
    assert not parts.exists()


class _DiesAfter:
    """A backend that plays ``n`` pairs and then fails, like a crash in the middle of a job."""

    name = "dies"
    workers = 1

    def __init__(self, n):
        self.n = n

    def map_unordered(self, fn, items):
        for index, item in enumerate(items):
            if index == self.n:
                raise KeyboardInterrupt
            yield index, fn(item)

    def describe(self):
        return "dies"


def test_interrupted_job_resumes_without_replaying(tmp_path, small_reference):
    out = tmp_path / "gt.h5"
    job = random_job(2, 4, 40, 5)
    with pytest.raises(KeyboardInterrupt):
        run_ground_truth(job, out, _DiesAfter(5))
    assert len(list(parts_dir(out).glob("pair-*.npz"))) == 5 and not out.exists()
    report = run_ground_truth(job, out, _DiesAfter(7))
    assert (report.pairs_resumed, report.pairs_played) == (5, 7)
    assert_same_truth(report.truth, small_reference)
    again = run_ground_truth(job, out, _DiesAfter(0))  # complete: reused, nothing played
    assert again.reused_output and again.pairs_played == 0


# ------------------------------------------------------------------------------------ refusals


def test_changed_config_is_refused_unless_overwrite(tmp_path, run):
    out = tmp_path / "gt.h5"
    assert run("ground-truth", *SMALL, "--out", out, "--backend", "serial").exit_code == 0
    res = run("ground-truth", *SMALL[:-1], "6", "--out", out, "--backend", "serial")
    assert res.exit_code == 2 and "holds another ground truth" in res.output and "seed: 5 there, 6 now" in res.output
    assert load_ground_truth(out).config["seed"] == 5
    res = run("ground-truth", *SMALL[:-1], "6", "--out", out, "--backend", "serial", "--overwrite")
    assert res.exit_code == 0, res.output
    assert load_ground_truth(out).config["seed"] == 6
    res = run("ground-truth", *SMALL[:-1], "6", "--out", out, "--backend", "serial")
    assert res.exit_code == 0 and "already holds this ground truth" in res.output


def test_changed_config_against_a_checkpoint_is_refused(tmp_path):
    out = tmp_path / "gt.h5"
    with pytest.raises(KeyboardInterrupt):
        run_ground_truth(random_job(2, 4, 40, 5), out, _DiesAfter(2))
    with pytest.raises(ConfigMismatch, match="hands: 40 there, 80 now"):
        run_ground_truth(random_job(2, 4, 80, 5), out, SerialBackend())
    report = run_ground_truth(random_job(2, 4, 80, 5), out, SerialBackend(), overwrite=True)
    assert report.pairs_resumed == 0 and report.truth.config["hands"] == 80


def test_corrupt_output_is_reported_not_reused(tmp_path, run):
    out = tmp_path / "gt.h5"
    assert run("ground-truth", *SMALL, "--out", out, "--backend", "serial").exit_code == 0
    data = out.read_bytes()
    out.write_bytes(data[: len(data) // 2])  # truncated
    res = run("ground-truth", *SMALL, "--out", out, "--backend", "serial")
    assert res.exit_code == 1 and "not reused" in res.output and "--overwrite" in res.output
    with pytest.raises(CorruptFile):
        load_ground_truth(out)
    assert run("ground-truth", *SMALL, "--out", out, "--backend", "serial", "--overwrite").exit_code == 0
    load_ground_truth(out)


def test_flipped_sample_bits_fail_the_checksum(tmp_path, small_reference):
    out = tmp_path / "gt.h5"
    out.write_bytes(open(small_reference.path, "rb").read())
    with h5py.File(out, "r") as f:
        offset = f["pop00/samples"].id.get_chunk_info(0).byte_offset
    raw = bytearray(out.read_bytes())
    raw[offset + 3] ^= 0xFF
    out.write_bytes(bytes(raw))
    with pytest.raises(CorruptFile, match="damaged"):
        load_ground_truth(out)


@pytest.mark.parametrize("damage", ["garbage", "flip", "other-config"])
def test_corrupt_checkpoint_is_reported(tmp_path, damage):
    out = tmp_path / "gt.h5"
    job = random_job(2, 4, 40, 5)
    with pytest.raises(KeyboardInterrupt):
        run_ground_truth(job, out, _DiesAfter(3))
    part = sorted(parts_dir(out).glob("pair-*.npz"))[1]
    if damage == "garbage":
        part.write_bytes(b"not an npz file")
    else:
        with np.load(part) as z:
            arrays = dict(z)
        if damage == "flip":
            arrays["samples"][0] ^= 1
        else:
            arrays["digest"] = np.array("0123456789abcdef")
        np.savez(part, **arrays)
    with pytest.raises(CorruptFile, match=part.name):
        run_ground_truth(job, out, SerialBackend())


# ------------------------------------------------------------------------------------ CLI


def test_population_files_and_summaries_on_the_command_line(tmp_path, run):
    paths = []
    for s in (11, 12):
        paths += ["--population", tmp_path / f"p{s}.h5"]
        save_population(new_population(3, s), tmp_path / f"p{s}.h5")
    out = tmp_path / "gt.h5"
    res = run("ground-truth", *paths, "--hands", "20", "--out", out, "--backend", "serial")
    assert res.exit_code == 0, res.output
    t = load_ground_truth(out)
    assert [p["source"] for p in t.config["populations"]] == ["file", "file"]
    np.testing.assert_array_equal(t[1].genomes, new_population(3, 12).genomes)
    for p in range(2):
        line = (f"population {p}: Borda ranking {' '.join(map(str, t[p].ranking))}; negative means above the "
                f"diagonal {t[p].negative_upper}/3; intransitive triplets {t[p].intransitive_triplets}")
        assert line in res.output
    assert "core paper: 11.1 of 45" in res.output
    save_population(new_population(3, 13), tmp_path / "p12.h5")  # same path, other players
    res = run("ground-truth", *paths, "--hands", "20", "--out", out, "--backend", "serial")
    assert res.exit_code == 2 and "different players or settings" in res.output
    assert file_job([tmp_path / "p11.h5"], 20, 1).inputs == (str(tmp_path / "p11.h5"),)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--hands", "41"], "41 is odd"),
        (["--hands", "0"], "--hands"),
        (["--populations", "0"], "--populations"),
        (["--size", "1"], "--size"),
        (["--seed", "-1"], "--seed"),
        (["--workers", "0"], "--workers"),
        (["--backend", "threads"], "--backend"),
        (["--backend", "serial", "--workers", "2"], "serial backend has one worker"),
        (["--scheduler", "tcp://localhost:8786"], "only the dask backend"),
        (["--population", "x.h5", "--size", "3"], "exclusive"),
        (["--population", "missing.h5"], "no such file"),
    ],
)
def test_usage_errors_exit_2(tmp_path, args, message):
    res = CliRunner().invoke(main, ["ground-truth", "--out", str(tmp_path / "gt.h5"), *args])
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert not (tmp_path / "gt.h5").exists()


def test_dask_backend_without_dask_is_a_usage_error_with_the_install_hint(tmp_path, run, monkeypatch):
    for name in ("dask", "dask.distributed"):      # as if Dask were not installed
        monkeypatch.setitem(sys.modules, name, None)
    res = run("ground-truth", *SMALL, "--out", tmp_path / "gt.h5", "--backend", "dask")
    assert res.exit_code == 2 and 'pip install "pokerduel[dask]"' in res.output


@pytest.mark.parametrize("threads", [False, True])
def test_dask_local_cluster_matches_serial(tmp_path, small_reference, threads):
    pytest.importorskip("dask.distributed")
    with get_backend("dask", workers=2, threads=threads) as backend:
        report = run_ground_truth(random_job(2, 4, 40, 5), tmp_path / "gt.h5", backend)
    assert_same_truth(report.truth, small_reference)


def test_plot_matrices_draws_the_rank_ordered_panel(tmp_path, run, small_reference):
    out = tmp_path / "fig7.png"
    res = run("plot", "matrices", small_reference.path, "--out", out)
    assert res.exit_code == 0, res.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    np.testing.assert_array_equal(small_reference[0].ordered_mean()[0], small_reference[0].mean[
        small_reference[0].ranking[0], small_reference[0].ranking])
    assert run("plot", "matrices", small_reference.path, "--out", out, "--population", "7").exit_code == 2
    assert run("plot", "matrices", tmp_path / "nope.h5", "--out", out).exit_code == 2
