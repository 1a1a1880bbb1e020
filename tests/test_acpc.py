"""ACPC protocol: line parsing, and matches over loopback that must equal the same match played locally."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import numpy as np
import pytest

from pokerduel.acpc.agent import Agent
from pokerduel.acpc.client import ReferenceSession, Session, run_client
from pokerduel.acpc.dealer import Dealer, deal_match, read_log_states
from pokerduel.acpc.protocol import ProtocolError, parse_action, parse_matchstate
from pokerduel.engine.cards import format_cards, parse_cards
from pokerduel.engine.histories import hand_to_acpc, replay_acpc
from pokerduel.engine.rules import CALL, FOLD, RAISE, HandState
from pokerduel.play.matches import play_duplicate
from pokerduel.players.base import Player
from pokerduel.players.genomes import (
    AsheSettings,
    ashe_player,
    handbuilt_genome,
    random_genome,
)

TIMEOUT = 20.0  # seconds: a hung socket fails the test instead of hanging the suite


@pytest.fixture(scope="module", autouse=True)
def compiled():
    """Compile (or load) the client's and dealer's kernels before any timed network exchange."""
    Session(Agent("random")).warm_up()
    deal_match(np.uint64(1), 1)


def run_match(a, b, hands, seed, *, duplicate=True, log_path=None, timeout=TIMEOUT):
    """Dealer in this thread, two pokerduel clients in threads; returns (dealer result, client results)."""
    dealer = Dealer(hands, seed, duplicate=duplicate, names=("A", "B"), log_path=log_path, timeout=timeout,
                    start_timeout=timeout, warn=lambda text: None)
    out = {}

    def client(i, player, port):
        try:
            out[i] = run_client("127.0.0.1", port, Agent(player, seed, pairs=duplicate), timeout=timeout,
                                expected_hands=hands)
        except (ProtocolError, OSError) as err:  # reported by the assertion below
            out[i] = err

    threads = [threading.Thread(target=client, args=(i, p, port), daemon=True)
               for i, (p, port) in enumerate(zip((a, b), dealer.ports))]
    for t in threads:
        t.start()
    result = dealer.run()
    for t in threads:
        t.join(timeout)
        assert not t.is_alive(), "client thread hung"
    return result, out


def check_log(path, result):
    """Every STATE line replays to its logged payoffs; SCORE holds the seats' totals."""
    text = path.read_text().splitlines()
    states = read_log_states(path)
    assert len(states) == result.n_hands
    for line in states:
        logged = tuple(int(x) for x in line.split(":")[4].split("|"))
        assert replay_acpc(line) == logged
    score = [ln for ln in text if ln.startswith("SCORE:")]
    assert len(score) == 1 and text[-1] == score[0]
    totals = result.payoffs.sum(axis=0) if result.n_hands else [0, 0]
    assert score[0] == f"SCORE:{totals[0]}|{totals[1]}:A|B"
    return states


# ---- protocol --------------------------------------------------------------------------------------
def test_parse_matchstate_fields():
    s = parse_matchstate("MATCHSTATE:1:7:cr300c/r400:|AsKd/2c8dJs\r\n")
    assert (s.position, s.hand, s.betting) == (1, 7, "cr300c/r400")
    assert s.holes == (None, tuple(parse_cards("AsKd").tolist()))
    assert s.board == tuple(parse_cards("2c8dJs").tolist())
    showdown = parse_matchstate("MATCHSTATE:0:3:r20000c///:AsKd|7h7c/2c8dJs/Th/3s")
    assert showdown.holes[1] == tuple(parse_cards("7h7c").tolist()) and len(showdown.board) == 5


@pytest.mark.parametrize("line, words", [
    ("MATCHSTATE:0:0:AsKd|", "expected MATCHSTATE"),
    ("MATCH:0:0::AsKd|", "expected MATCHSTATE"),
    ("MATCHSTATE:2:0::||AsKd", "unexpected game"),           # a third position
    ("MATCHSTATE:0:0::AsKd||", "unexpected game"),           # three hole-card fields
    ("MATCHSTATE:0:0::AsKdQh|", "unexpected game"),          # three hole cards
    ("MATCHSTATE:1:0:r:|AsKd", "limit game"),                # raise without a size
    ("MATCHSTATE:0:0:cc/:AsKd|/2c8d", "unexpected game"),    # a two-card flop
    ("MATCHSTATE:0:0::AsAs|", "repeated card"),
    ("MATCHSTATE:0:0::AxKd|", "bad card"),
    ("MATCHSTATE:0:0:cx:AsKd|", "malformed betting"),
    ("MATCHSTATE:0:0::|AsKd", "own hole cards missing"),
])
def test_parse_matchstate_rejects(line, words):
    with pytest.raises(ProtocolError, match=words):
        parse_matchstate(line)


def test_parse_action():
    assert parse_action("f") == (FOLD, 0) and parse_action("c\r\n") == (CALL, 0)
    assert parse_action("r1234") == (RAISE, 1234)
    for bad in ("", "r", "x", "r12a", "call", "k"):
        assert parse_action(bad) is None


def test_session_rejects_inconsistent_states():
    """Lines that cannot follow each other in one game stop the client, whatever the line alone looks like."""
    s = Session(Agent("calling-machine"))
    assert s.handle("MATCHSTATE:1:0::|AsKd") == "MATCHSTATE:1:0::|AsKd:c"
    assert s.handle("MATCHSTATE:1:0:cr300:|AsKd") == "MATCHSTATE:1:0:cr300:|AsKd:c"
    with pytest.raises(ProtocolError, match="does not extend"):
        s.handle("MATCHSTATE:1:0:cr400:|AsKd")       # the opponent's raise changed
    s = Session(Agent("calling-machine"))
    s.handle("MATCHSTATE:0:0:r300:AsKd|")
    with pytest.raises(ProtocolError, match="illegal"):
        s.handle("MATCHSTATE:0:0:r300r350:AsKd|")    # a raise below the minimum: another game's rules
    s = Session(Agent("calling-machine"))
    s.handle("MATCHSTATE:0:0:c:AsKd|")
    with pytest.raises(ProtocolError, match="not over"):
        s.handle("MATCHSTATE:0:1::AsKd|")            # next hand before this one ended
    s = Session(Agent("calling-machine"))
    s.handle("MATCHSTATE:0:0:cc/:AsKd|/2c8dJs")
    with pytest.raises(ProtocolError, match="board"):
        s.handle("MATCHSTATE:0:0:cc/cc/:AsKd|/2c8dJs")   # the turn card is missing
    s = Session(Agent("calling-machine"))
    with pytest.raises(ProtocolError, match="showdown without"):
        s.handle("MATCHSTATE:0:0:r20000c///:AsKd|/2c8dJs/Th/3s")


def seat_lines(rec, hand, pos):
    """The lines a dealer sends position ``pos`` in a recorded hand (``matches.HandRecord``), built
    independently of the dealer with ``HandState``."""
    c = [int(x) for x in rec.cards]
    holes = (format_cards(c[0:2]), format_cards(c[2:4]))
    flop = "/" + format_cards(c[4:7])
    boards = ("", flop, flop + "/" + format_cards(c[7:8]), flop + "/" + format_cards(c[7:8]) + "/" + format_cards(c[8:9]))
    view = holes[0] + "|" if pos == 0 else "|" + holes[1]
    h = HandState()
    lines = []
    for _, _, action, amount in rec.actions:
        lines.append(f"MATCHSTATE:{pos}:{hand}:{h.acpc_betting()}:{view}{boards[h.round]}")
        h.fold() if action == FOLD else h.call() if action == CALL else h.raise_to(amount)
    if h.showdown:
        view = holes[0] + "|" + holes[1]
    lines.append(f"MATCHSTATE:{pos}:{hand}:{h.acpc_betting()}:{view}{boards[h.round]}")
    return lines


def outcomes(session, lines):
    """What a session makes of each line: its reply, or "error" (and nothing after the first error)."""
    out = []
    for line in lines:
        try:
            out.append(session.handle(line))
        except ProtocolError:
            out.append("error")
            break
    return out


def test_session_replays_local_match_and_matches_reference():
    """Fed the lines of a local match, the numba session and the plain-Python reference answer with the
    local match's own actions, and end with its chips."""
    a, b = ashe_player(handbuilt_genome()), "candid-statistician"
    local = play_duplicate(a, b, 60, 21, records=True)
    for seat, player in ((0, a), (1, b)):
        fast, ref = Session(Agent(player, 21, pairs=True)), ReferenceSession(Agent(player, 21, pairs=True))
        for hand, rec in enumerate(local.records):
            pos = (hand + seat) % 2
            lines = seat_lines(rec, hand, pos)
            got = outcomes(fast, lines)
            assert got == outcomes(ref, lines)
            mine = [f"{line}:{'f' if act == FOLD else 'c' if act == CALL else f'r{amt}'}"
                    for line, (_, actor, act, amt) in zip(lines, rec.actions) if actor == pos]
            assert [r for r in got if r is not None] == mine
        pay = local.hand_payoffs.reshape(-1) * (1 if seat == 0 else -1)
        assert list(fast.result.payoffs) == list(ref.result.payoffs) == list(pay)


def test_session_agrees_with_reference_on_corrupted_lines():
    """Random single-character corruptions: the numba session accepts or rejects exactly what the reference does."""
    rng = np.random.default_rng(4)
    local = play_duplicate("random", "hothead-maniac", 20, 5, records=True)
    streams = [[line for h, r in enumerate(local.records) for line in seat_lines(r, h, (h + seat) % 2)]
               for seat in (0, 1)]
    alphabet = "0123456789:|/fcrAKTshdx \r"
    for trial in range(300):
        seat = trial % 2
        lines = list(streams[seat])
        k = int(rng.integers(len(lines)))
        line = lines[k]
        i = int(rng.integers(len(line) + 1))
        how = rng.integers(3)
        ch = alphabet[int(rng.integers(len(alphabet)))]
        line = (line[:i] + ch + line[i + 1:] if how == 0 else line[:i] + ch + line[i:] if how == 1
                else line[:i] + line[i + 1:])
        lines[k] = line
        lines = lines[: k + 8]
        player = "random" if seat == 0 else "hothead-maniac"
        fast = outcomes(Session(Agent(player, 5, pairs=True)), lines)
        ref = outcomes(ReferenceSession(Agent(player, 5, pairs=True)), lines)
        assert fast == ref, (k, lines[k])


def test_agent_repairs_illegal_decisions():
    """A player whose kernel returns nonsense still sends only legal actions (repaired, counted)."""
    broken = Player("broken", kind=99)  # policy.act answers (-1, 0) for an unknown kind
    s = Session(Agent(broken))
    assert s.handle("MATCHSTATE:1:0::|AsKd") == "MATCHSTATE:1:0::|AsKd:c"
    assert s.repaired == 1


# ---- matches over loopback -------------------------------------------------------------------------
def _ashe(seed):
    settings = AsheSettings(prt_capacity=512)
    return ashe_player(random_genome(settings, np.random.default_rng(seed)), settings, name=f"ashe{seed}")


@pytest.mark.parametrize("a, b, deals, seed", [
    ("candid-statistician", "random", 1000, 11),            # hand strength + the random word
    (ashe_player(handbuilt_genome()), "hothead-maniac", 400, 3),   # ASHE memory (PRT, showdown strengths)
    (_ashe(5), _ashe(6), 300, 4),
])
def test_network_match_equals_local_match(tmp_path, a, b, deals, seed):
    log = tmp_path / "match.log"
    result, clients = run_match(a, b, 2 * deals, seed, log_path=log)
    assert result.aborted is None, result.aborted
    assert result.invalid == [0, 0]
    local = play_duplicate(a, b, deals, seed, records=True)
    # Bit for bit: the same chips in every hand...
    assert np.array_equal(result.payoffs[:, 0].reshape(deals, 2), local.hand_payoffs)
    assert np.all(result.payoffs.sum(axis=1) == 0)
    # ...the same actions and cards: the log equals the local records written as ACPC lines...
    states = check_log(log, result)
    names = lambda rec: ("A", "B") if rec.half == 0 else ("B", "A")
    expected = [hand_to_acpc(i, r.cards, r.actions, r.payoffs, names(r)) for i, r in enumerate(local.records)]
    assert states == expected
    # ...and each client saw its own result.
    for seat in (0, 1):
        got = clients[seat]
        assert not isinstance(got, Exception), got
        assert np.array_equal(np.frombuffer(got.payoffs, dtype=np.int64), result.payoffs[:, seat])
        assert got.repaired == 0
    mean, ci = result.mbb_per_hand(0)
    assert (mean, ci) == pytest.approx(local.mbb_per_hand())


def test_plain_match_rotates_seats_and_replays(tmp_path):
    """Without --duplicate every hand has its own deal; seats still rotate and the log replays."""
    log = tmp_path / "match.log"
    result, clients = run_match("scared-limper", "random", 600, 8, duplicate=False, log_path=log)
    assert result.aborted is None and result.invalid == [0, 0]
    states = check_log(log, result)
    assert [s.split(":")[5] for s in states[:2]] == ["A|B", "B|A"]
    boards = {s.split(":")[3][:9] for s in states}
    assert len(boards) > 590  # fresh hole cards nearly every hand (no mirrored pairs)
    for seat in (0, 1):
        assert np.array_equal(np.frombuffer(clients[seat].payoffs, dtype=np.int64), result.payoffs[:, seat])


def test_cli_dealer(tmp_path):
    """``pokerduel dealer`` in its own process: ports line, exit code, printed results, the log."""
    log = tmp_path / "cli.log"
    dealer = subprocess.Popen([sys.executable, "-c", "from pokerduel.cli import main; main()", "dealer",
                               "--hands", "200", "--seed", "2", "--duplicate", "--log", str(log),
                               "--names", "cm,maniac", "--json", "--timeout-ms", "30000",
                               "--start-timeout-ms", "60000"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ports = [int(p) for p in dealer.stdout.readline().split()]
        assert len(ports) == 2
        got = {}

        def client(i, spec):
            got[i] = run_client("127.0.0.1", ports[i], Agent(spec, 2, pairs=True), timeout=TIMEOUT)

        threads = [threading.Thread(target=client, args=(i, spec), daemon=True)
                   for i, spec in enumerate(("calling-machine", "hothead-maniac"))]
        for t in threads:
            t.start()
        out, err = dealer.communicate(timeout=60)
        for t in threads:
            t.join(TIMEOUT)
    finally:
        if dealer.poll() is None:
            dealer.kill()
    assert dealer.returncode == 0, err
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["hands"] == 200 and summary["aborted"] is None
    local = play_duplicate("calling-machine", "hothead-maniac", 100, 2)
    assert summary["seats"][0]["chips"] == int(local.hand_payoffs.sum()) == got[0].chips == -got[1].chips
    assert summary["seats"][0]["mbb_per_hand"] == pytest.approx(local.mbb_per_hand()[0])
    assert len(read_log_states(log)) == 200
    assert log.read_text().splitlines()[-1].endswith(":cm|maniac")


def test_cli_client():
    """``pokerduel acpc-client`` plays a whole match and prints its result (exit code 0)."""
    from click.testing import CliRunner

    from pokerduel.cli import main

    dealer = Dealer(100, 9, duplicate=True, timeout=TIMEOUT, start_timeout=TIMEOUT, warn=lambda text: None)
    box = {}
    threads = [threading.Thread(target=lambda: box.setdefault("dealer", dealer.run()), daemon=True),
               threading.Thread(target=lambda: box.setdefault("other", run_client(
                   "127.0.0.1", dealer.ports[1], Agent("random", 9, pairs=True), timeout=TIMEOUT)), daemon=True)]
    for t in threads:
        t.start()
    res = CliRunner().invoke(main, ["acpc-client", "--port", str(dealer.ports[0]), "--player", "scared-limper",
                                    "--seed", "9", "--duplicate", "--hands", "100", "--report-every", "50",
                                    "--timeout", str(TIMEOUT)])
    for t in threads:
        t.join(TIMEOUT)
    assert res.exit_code == 0, res.output
    local = play_duplicate("scared-limper", "random", 50, 9)
    chips = int(local.hand_payoffs.sum())
    assert box["dealer"].payoffs[:, 0].sum() == chips
    assert f"scared-limper: {chips:+d} chips over 100 hands" in res.output
    assert "50 hands" in res.output  # the running result
