"""The ``pokerduel`` command: results agree with the Python API, bad input is a usage error (exit 2)."""

import json

import pytest
from click.testing import CliRunner

from pokerduel.cli import main
from pokerduel.play.matches import play_duplicate


@pytest.fixture
def run():
    runner = CliRunner()
    return lambda *args: runner.invoke(main, list(args), catch_exceptions=False)


def test_play_json_matches_the_python_api(run):
    res = run("play", "--a", "candid-statistician", "--b", "hothead-maniac", "--deals", "300", "--seed", "5", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output.strip().splitlines()[-1])
    expected = play_duplicate("candid-statistician", "hothead-maniac", 300, seed=5)
    mean, ci = expected.mbb_per_hand()
    assert out["mbb_per_hand"] == pytest.approx(mean) and out["ci95"] == pytest.approx(ci)
    assert out["hands"] == 600 and out["invalid_actions"] == 0 and out["seed"] == 5


def test_play_prints_result_with_confidence_interval(run):
    res = run("play", "--a", "calling-machine", "--b", "random", "--deals", "200")
    assert res.exit_code == 0
    assert "mBB/hand (95% CI)" in res.output and "over 400 hands" in res.output


def test_play_writes_phh(run, tmp_path):
    path = tmp_path / "hands.phhs"
    res = run("play", "--a", "random", "--b", "random", "--deals", "50", "--phh", str(path))
    assert res.exit_code == 0
    text = path.read_text()
    assert text.count("variant = 'NT'") == 100 and "[100]" in text
    assert text.count("finishing_stacks = [") == 100 and text.count("seat_count = 2") == 100


@pytest.mark.parametrize(
    "args, message",
    [
        (["play", "--a", "nobody"], "unknown player 'nobody'"),
        (["play", "--deals", "0"], "--deals"),
        (["play", "--seed", "-1"], "--seed"),
        (["play", "--hs-samples", "0"], "--hs-samples"),
        (["bench", "engine", "--deals", "5"], "--deals"),
        (["nonsense"], "No such command"),
    ],
)
def test_usage_errors_exit_2(run, args, message):
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2
    assert message in res.output


def test_bench_engine_reports_ours_and_peers(run):
    res = run("bench", "engine", "--evals", "20000", "--deals", "200", "--json")
    assert res.exit_code == 0
    out = json.loads(res.output.strip().splitlines()[-1])
    for key in ("pokerduel_evals_per_s", "random_hands_per_s", "random_generic_hands_per_s", "calling_hands_per_s",
                "rule_bot_hands_per_s"):
        assert out[key] > 0
    assert out["eval7_evals_per_s"] > 0 and out["pokerkit_hands_per_s"] > 0  # the test extra installs both


def test_help_and_version(run):
    assert "play" in run("--help").output
    assert run("--version").output.startswith("pokerduel")
