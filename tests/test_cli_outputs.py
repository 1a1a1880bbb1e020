"""Nothing a user types loses data or shows a traceback: existing files survive, bad paths and options are
one-line errors, Ctrl-C and SIGTERM end long commands quickly and cleanly."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import h5py
import pytest
from click.testing import CliRunner

from pokerduel.cli import main
from pokerduel.evolution.evolve import EvolveConfig, load_run, run_evolution
from pokerduel.play.matches import play_duplicate

TRUTH = Path(__file__).resolve().parents[1] / "data" / "ground_truth_10x10_seed1.h5"


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def sha(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def clean(res, code):
    """The command exited with ``code``, and whatever went wrong was said in words, not a traceback."""
    assert res.exit_code == code, res.output
    assert "Traceback" not in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)


@pytest.fixture
def truth(tmp_path):
    """A copy of the shipped ground truth: the kind of file that must never be lost."""
    path = tmp_path / "gt.h5"
    shutil.copyfile(TRUTH, path)
    return path


@pytest.fixture(scope="module")
def run_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("run") / "run.h5"
    cfg = EvolveConfig(population=3, generations=1, keep=2, seed=1, panel_deals=2, panel_heldout=0,
                       panel_bots=("random",))
    run_evolution(cfg, path)
    return path


def _no_temporary_files(folder):
    assert not [p.name for p in Path(folder).iterdir() if p.name.endswith(".tmp")]


# ----------------------------------------------------------------------------------------- data kept


def test_dealer_with_no_seat_keeps_an_existing_file(truth):
    before = sha(truth)
    res = invoke("dealer", "--hands", "10", "--log", truth, "--start-timeout-ms", "50")
    clean(res, 2)
    assert "exists" in res.output and "--overwrite" in res.output
    res = invoke("dealer", "--hands", "10", "--log", truth, "--start-timeout-ms", "50", "--overwrite")
    clean(res, 1)  # no seat connected: the match never began, so no log replaces the file
    assert "did not connect" in res.output
    assert sha(truth) == before
    _no_temporary_files(truth.parent)


@pytest.mark.parametrize("command", [
    ["population", "new", "--size", "2", "--out", "{gt}"],
    ["study", "synthetic", "--K", "4", "--k", "2", "--reps", "2", "--budget", "40", "--points", "2", "--workers", "1",
     "--out", "{gt}"],
    ["study", "synthetic", "--K", "4", "--k", "2", "--reps", "2", "--budget", "40", "--points", "2", "--workers", "1",
     "--out", "{tmp}/s.h5", "--plot", "{img}"],
    ["plot", "evolution", "{run}", "--out", "{img}"],
    ["plot", "matrices", "{gt}", "--out", "{img}"],
    ["study", "poker", "--ground-truth", "{gt}", "--reps", "1", "--budget", "200", "--points", "2", "--populations",
     "0", "--backend", "serial", "--out", "{tmp}/p.h5", "--plot", "{img}"],
    ["play", "--deals", "2", "--phh", "{gt}"],
    ["ground-truth", "--populations", "1", "--size", "2", "--hands", "2", "--backend", "serial", "--out",
     "{tmp}/pop.h5"],
    ["evolve", "--population", "3", "--keep", "2", "--generations", "1", "--backend", "serial", "--out",
     "{tmp}/pop.h5"],
])
def test_no_command_replaces_another_kind_of_file(command, truth, run_file, tmp_path):
    """Result files may replace only their own kind, plots and logs no existing file, unless --overwrite;
    the refusal comes before any work."""
    other, img = tmp_path / "pop.h5", tmp_path / "fig.png"
    assert invoke("population", "new", "--size", "2", "--out", other).exit_code == 0
    shutil.copyfile(truth, img)  # a ground truth under an image's name
    kept = {p: sha(p) for p in (truth, other, img)}
    args = [a.format(gt=truth, run=run_file, tmp=tmp_path, img=img) for a in command]
    res = invoke(*args)
    clean(res, 2)
    assert "exists" in res.output and "--overwrite" in res.output
    assert {p: sha(p) for p in kept} == kept
    assert not (tmp_path / "s.h5").exists() and not (tmp_path / "p.h5.parts").exists()


def test_overwrite_replaces_and_own_kind_is_replaced(truth, tmp_path):
    res = invoke("population", "new", "--size", "2", "--out", truth, "--overwrite")
    clean(res, 0)
    with h5py.File(truth) as f:
        assert f.attrs["format"] == "pokerduel.population"
    clean(invoke("population", "new", "--size", "3", "--out", truth), 0)  # a population may replace a population
    _no_temporary_files(tmp_path)


def test_evolve_resume_of_a_missing_file_says_it_starts_anew(tmp_path):
    out = tmp_path / "new.h5"
    res = invoke("evolve", "--population", "3", "--keep", "2", "--generations", "1", "--panel-deals", "2",
                 "--panel-heldout", "0", "--panel-bots", "random", "--backend", "serial", "--out", out, "--resume")
    clean(res, 0)
    assert "does not exist: nothing to resume, starting a new run" in res.stderr
    assert load_run(out).completed == 1


# ----------------------------------------------------------------------------------------- play

def test_play_streams_a_long_match_in_blocks(monkeypatch, tmp_path):
    """The match is played in blocks of one continuing match: the same result as one call, and a huge
    --deals allocates one block at a time (interrupted here after three blocks, the PHH file kept)."""
    import importlib

    import pokerduel.play.matches as matches

    cli_play = importlib.import_module("pokerduel.cli.play")  # the module, not the command it defines

    monkeypatch.setattr(cli_play, "BLOCK", 1000)
    res = invoke("play", "--a", "candid-statistician", "--b", "scared-limper", "--deals", "2500", "--seed", "4",
                 "--json")
    clean(res, 0)
    got = json.loads(res.stdout.strip().splitlines()[-1])
    mean, ci = play_duplicate("candid-statistician", "scared-limper", 2500, seed=4).mbb_per_hand()
    assert got["mbb_per_hand"] == pytest.approx(mean, rel=1e-12) and got["ci95"] == pytest.approx(ci, rel=1e-9)
    assert got["hands"] == 5000

    phh = tmp_path / "hands.phhs"
    phh.write_text("precious\n")
    calls = []
    real = matches.play_duplicate

    def counted(a, b, n_deals, *args, **kwargs):
        calls.append(n_deals)
        if len(calls) > 3:
            raise KeyboardInterrupt
        return real(a, b, n_deals, *args, **kwargs)

    monkeypatch.setattr(matches, "play_duplicate", counted)
    res = invoke("play", "--a", "random", "--b", "random", "--deals", "2000000000", "--phh", phh, "--overwrite")
    clean(res, 130)
    assert "interrupted (SIGINT)" in res.output
    assert calls == [cli_play.RECORD_BLOCK] * 4
    assert phh.read_text() == "precious\n"
    _no_temporary_files(tmp_path)


# ----------------------------------------------------------------------------------------- one-line errors

@pytest.fixture
def busy_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


@pytest.mark.parametrize("args, code, message", [
    (["play", "--deals", "99999999999999999999"], 2, "--deals"),
    (["play", "--deals", "2", "--phh", "{file}/x.phhs"], 2, "cannot write"),
    (["plot", "evolution", "{run}", "--out", "{file}/x.png"], 2, "cannot write"),
    (["plot", "evolution", "{run}", "--out", "{tmp}/fig.xyz"], 2, "allowed suffixes"),
    (["study", "poker", "--ground-truth", TRUTH, "--option", "hybrid.threshold=abc", "--backend", "serial",
      "--out", "{tmp}/p.h5"], 2, "option threshold of selector hybrid takes a number, got 'abc'"),
    (["study", "poker", "--ground-truth", TRUTH, "--option", "hybrid.thresh=0.2", "--backend", "serial",
      "--out", "{tmp}/p.h5"], 2, "selector hybrid has no option thresh"),
    (["ground-truth", "--populations", "1", "--size", "2", "--hands", "2", "--backend", "dask", "--scheduler",
      "notaurl", "--out", "{tmp}/g.h5"], 2, "bad Dask scheduler address 'notaurl'"),
    (["dealer", "--hands", "2", "--host", "256.1.1.1", "--no-log"], 2, "cannot listen on 256.1.1.1"),
    (["dealer", "--hands", "2", "--port", "{port}", "--no-log"], 2, "cannot listen"),
    (["dealer", "--hands", "2", "--log", "{file}/x.log"], 2, "cannot write"),
    (["evolve", "--population", "4", "--keep", "2", "--selector-option", "threshold=abc", "--out", "{tmp}/e.h5"], 2,
     "threshold must be a number in [0, 1] (II lies in [0, 1]), got 'abc'"),
    (["evolve", "--population", "4", "--keep", "2", "--selector-option", "thresh=0.2", "--out", "{tmp}/e.h5"], 2,
     "selector hybrid has no option thresh"),
])
def test_bad_invocations_are_one_line_errors(args, code, message, run_file, tmp_path, busy_port):
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    res = invoke(*[str(a).format(file=a_file, run=run_file, tmp=tmp_path, port=busy_port) for a in args])
    clean(res, code)
    assert message in res.output
    assert not (tmp_path / "p.h5.parts").exists()  # refused before any work


def test_missing_output_folders_are_created(run_file, tmp_path):
    clean(invoke("play", "--deals", "3", "--phh", tmp_path / "a" / "b" / "x.phhs"), 0)
    assert (tmp_path / "a" / "b" / "x.phhs").read_text().count("variant = 'NT'") == 6
    clean(invoke("plot", "evolution", run_file, "--out", tmp_path / "c" / "x.png"), 0)
    assert (tmp_path / "c" / "x.png").read_bytes()[:4] == b"\x89PNG"
    res = invoke("dealer", "--hands", "2", "--log", tmp_path / "d" / "x.log", "--start-timeout-ms", "50")
    clean(res, 1)  # no seat: the folder is made, no log is written
    assert (tmp_path / "d").is_dir() and not list((tmp_path / "d").iterdir())


# ----------------------------------------------------------------------------------------- signals

def _completed(path) -> int:
    try:
        with h5py.File(path, "r") as f:
            return int(f.attrs["completed"])
    except (OSError, KeyError):
        return 0


@pytest.mark.parametrize("signum, group", [(signal.SIGINT, True), (signal.SIGTERM, False)])
def test_a_signal_ends_evolve_quickly_with_its_checkpoint(tmp_path, signum, group):
    """Ctrl-C (SIGINT to the whole process group, workers included) or SIGTERM to the command ends
    ``evolve`` with its default multiprocess backend within a few seconds: exit code 128 + signal, one line
    and no traceback from it or its workers, and a run file that --resume continues."""
    out = tmp_path / "run.h5"
    cmd = [sys.executable, "-c", "from pokerduel.cli import main; main()", "evolve", "--population", "8", "--keep",
           "3", "--generations", "500", "--seed", "2", "--panel-deals", "40", "--panel-heldout", "1", "--workers", "2",
           "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while _completed(out) < 1 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)  # into the next generation: selection, panel and checkpoint all under way
        assert proc.poll() is None, "the run ended before the signal"
        t0 = time.monotonic()
        if group:
            os.killpg(proc.pid, signum)
        else:
            os.kill(proc.pid, signum)
        _, err = proc.communicate(timeout=30)
        seconds = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 128 + signum, err
    assert seconds < 5, f"{seconds:.1f} s from the signal to the exit"
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    done = load_run(out).completed
    assert f"{out} holds {done}/500 generations" in err.splitlines()[-1]
    _no_temporary_files(tmp_path)
