"""Population files: seeded generation, round trips, clear failures on wrong files, specs and the CLI."""

import json

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

from pokerduel.cli import main
from pokerduel.play.matches import play_duplicate
from pokerduel.play.populations import load_population, new_population, save_population
from pokerduel.players.base import ASHE1, make_player
from pokerduel.players.genomes import AsheSettings


@pytest.fixture
def run():
    runner = CliRunner()
    return lambda *args: runner.invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_new_population_is_seeded_uniform_and_prefix_stable():
    pop = new_population(6, seed=3)
    assert pop.genomes.shape == (6, AsheSettings().genome_size) and pop.genomes.dtype == np.float32
    assert pop.genomes.min() >= -1 and pop.genomes.max() <= 1
    # Mean and variance of U[-1, 1] (1/3), within 5 standard errors over ~14k weights.
    n = pop.genomes.size
    assert abs(pop.genomes.mean()) < 5 * np.sqrt(1 / 3 / n)
    assert abs(pop.genomes.var() - 1 / 3) < 5 * np.sqrt(4 / 45 / n)
    np.testing.assert_array_equal(new_population(6, seed=3).genomes, pop.genomes)
    np.testing.assert_array_equal(new_population(3, seed=3).genomes, pop.genomes[:3])
    assert not np.array_equal(new_population(6, seed=4).genomes, pop.genomes)


def test_round_trip_and_attributes(tmp_path):
    pop = new_population(4, seed=1, settings=AsheSettings(hidden=4, prt_capacity=512, lstm_reset="half"))
    path = tmp_path / "pop.h5"
    save_population(pop, path)
    back = load_population(path)
    np.testing.assert_array_equal(back.genomes, pop.genomes)
    assert back.settings == pop.settings and back.seed == 1 and list(back.init) == [-1.0, 1.0]
    with h5py.File(path) as f:
        assert f.attrs["format"] == "pokerduel.population" and "pokerduel_version" in f.attrs
        assert json.loads(f.attrs["config"])["settings"]["lstm_reset"] == "half"
    assert not list(tmp_path.glob(".*.tmp"))  # the temporary file was renamed into place


def corrupt(path, how):
    with h5py.File(path, "r+") as f:
        if how == "format":
            f.attrs["format"] = "something.else"
        elif how == "settings":
            cfg = json.loads(f.attrs["config"])
            cfg["settings"]["hidden"] = 7
            f.attrs["config"] = json.dumps(cfg)
        elif how == "unknown-setting":
            cfg = json.loads(f.attrs["config"])
            cfg["settings"]["colour"] = "red"
            f.attrs["config"] = json.dumps(cfg)
        elif how == "config":
            f.attrs["config"] = "{not json"
        elif how == "dtype":
            g = f["genomes"][()]
            del f["genomes"]
            f.create_dataset("genomes", data=g.astype(np.float64))
        elif how == "nan":
            f["genomes"][1, 5] = np.nan
        elif how == "missing":
            del f["genomes"]
        elif how == "size":
            cfg = json.loads(f.attrs["config"])
            cfg["size"] = 5
            f.attrs["config"] = json.dumps(cfg)


@pytest.mark.parametrize("how,message", [
    ("format", "not a pokerduel.population file"), ("settings", "shape"), ("unknown-setting", "unknown ASHE settings"),
    ("config", "corrupt config"), ("dtype", "float32"), ("nan", "non-finite"), ("missing", "no 'genomes'"),
    ("size", "config says 5 players"),
])
def test_wrong_files_fail_clearly(tmp_path, how, message):
    path = tmp_path / "pop.h5"
    save_population(new_population(3, seed=1), path)
    corrupt(path, how)
    with pytest.raises(ValueError, match=message):
        load_population(path)


def test_not_an_h5_file(tmp_path):
    path = tmp_path / "pop.h5"
    path.write_bytes(b"\x80\x04 this is a pickle, and will never be loaded")
    with pytest.raises(ValueError, match="not a readable HDF5 file"):
        load_population(path)
    with pytest.raises(ValueError, match="no such file"):
        load_population(tmp_path / "absent.h5")


def test_specs_name_players_of_population_files(tmp_path):
    path = tmp_path / "pop.h5"
    pop = new_population(4, seed=2)
    save_population(pop, path)
    player = make_player(f"{path}:3")
    assert player.name == f"{path}:3"
    np.testing.assert_array_equal(player.params[-pop.settings.genome_size:], pop.genomes[3].astype(np.float64))
    a = play_duplicate(f"{path}:0", f"{path}:3", 200, seed=1)
    b = play_duplicate(pop.player(0), pop.player(3), 200, seed=1)
    np.testing.assert_array_equal(a.samples, b.samples)
    for spec, message in [(f"{path}:4", "out of range"), (f"{path}:x", "INDEX"), ("nothing", "unknown player")]:
        with pytest.raises(ValueError, match=message):
            make_player(spec)


def test_cli_population_new_show_and_play(run, tmp_path):
    out = tmp_path / "pop.h5"
    res = run("population", "new", "--size", 5, "--seed", 1, "--out", out, "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.output)
    assert summary["size"] == 5 and summary["genome_size"] == AsheSettings().genome_size
    np.testing.assert_array_equal(load_population(out).genomes, new_population(5, seed=1).genomes)
    res = run("population", "show", out, "--json")
    assert json.loads(res.output)["settings"] == AsheSettings().to_dict()
    res = run("play", "--a", f"{out}:0", "--b", f"{out}:4", "--deals", 300, "--seed", 2, "--json")
    assert res.exit_code == 0, res.output
    got = json.loads(res.output.strip().splitlines()[-1])
    mean, _ = play_duplicate(f"{out}:0", f"{out}:4", 300, seed=2).mbb_per_hand()
    assert got["mbb_per_hand"] == pytest.approx(mean)
    res = run("population", "new", "--size", 2, "--explore", 0.05, "--read-raises", "--read-reraises",
              "--lookahead", "--read-aggression", "--out", tmp_path / "x.h5", "--json")
    assert res.exit_code == 0, res.output
    assert load_population(tmp_path / "x.h5").settings == AsheSettings(
        explore=0.05, read_raises=True, read_reraises=True, lookahead=True, read_aggression=True)
    res = run("population", "new", "--size", 2, "--model", "ashe1", "--hidden", 20, "--decision-output", "logistic",
              "--raise-sizes", "pot", "--out", tmp_path / "y.h5")
    assert res.exit_code == 0, res.output
    pop = load_population(tmp_path / "y.h5")
    assert pop.settings == AsheSettings(model="ashe1", hidden=20, decision_output="logistic", raise_sizes="pot")
    assert pop.player(1).kind == ASHE1
    res = run("population", "new", "--size", 2, "--mark-reraises", "--out", tmp_path / "z.h5")
    assert res.exit_code == 0, res.output
    assert load_population(tmp_path / "z.h5").settings == AsheSettings(mark_reraises=True)
    res = run("population", "new", "--size", 2, "--call-option", "--out", tmp_path / "o.h5")
    assert res.exit_code == 0, res.output
    assert load_population(tmp_path / "o.h5").settings == AsheSettings(call_option=True)
    res = run("population", "new", "--size", 2, "--call-option", "--option-reraise", "--out", tmp_path / "r.h5")
    assert res.exit_code == 0, res.output
    assert load_population(tmp_path / "r.h5").settings == AsheSettings(call_option=True, option_reraise=True)
    res = run("population", "new", "--size", 2, "--anchored", "--out", tmp_path / "a.h5")
    assert res.exit_code == 0, res.output
    assert load_population(tmp_path / "a.h5").settings == AsheSettings(anchored=True)
    for args, match in ((["--mark-reraises", "--read-aggression"], "at most one"),
                        (["--call-option", "--lookahead"], "at most one"),
                        (["--option-reraise"], "needs call_option"),
                        (["--mark-reraises", "--model", "ashe1"], "ashe2 model only"),
                        (["--anchored", "--model", "ashe1"], "ashe2 model only"),
                        (["--decision-output", "logistic"], "ashe1 model only")):
        res = run("population", "new", "--size", 2, *args, "--out", tmp_path / "w.h5")
        assert res.exit_code == 2 and match in res.output and "Traceback" not in res.output, (args, res.output)
        assert not (tmp_path / "w.h5").exists()


@pytest.mark.parametrize("args", [
    ["population", "new", "--size", "0", "--out", "x.h5"],
    ["population", "new", "--explore", "2", "--out", "x.h5"],
    ["population", "new", "--lstm-reset", "never", "--out", "x.h5"],
    ["population", "new"],
    ["population", "show", "missing.h5"],
    ["play", "--a", "missing.h5:0"],
])
def test_cli_usage_errors_exit_2(run, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2, res.output


def test_shipped_populations_load_and_play():
    """Every population file under data/ reads back (format, settings, shapes) and its players play."""
    from pathlib import Path

    files = sorted((Path(__file__).resolve().parents[1] / "data").glob("*/*.h5"))
    assert files, "no shipped populations found"
    for path in files:
        pop = load_population(path)
        assert pop.origin and len(pop.genomes) >= 3, path
    league = load_population(files[0].parents[1] / "league" / "callingrange.h5")
    assert league.settings.calling_range == 1.0
    r = play_duplicate(make_player(f"{files[0]}:0"), make_player("calling-machine"), 4, seed=1)
    assert r.samples.shape == (4,)
