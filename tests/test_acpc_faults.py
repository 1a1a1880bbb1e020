"""ACPC fault cases over loopback: misbehaving clients at our dealer, a misbehaving dealer at our client."""

from __future__ import annotations

import socket
import threading

import pytest

from pokerduel.acpc.agent import Agent
from pokerduel.acpc.client import ConnectionLost, run_client
from pokerduel.acpc.dealer import Dealer, read_log_states
from pokerduel.acpc.protocol import ProtocolError
from pokerduel.engine.histories import replay_acpc
from pokerduel.engine.rules import HandState

TIMEOUT = 20.0


class RawClient(threading.Thread):
    """A hand-written client: sends ``hello`` (default the VERSION line), then ``reply(line)`` bytes for
    each line received; ``reply`` returning ``None`` closes the connection."""

    def __init__(self, port, reply, hello=b"VERSION:2.0.0\r\n"):
        super().__init__(daemon=True)
        self.port, self.reply, self.hello = port, reply, hello
        self.release = threading.Event()

    def run(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=TIMEOUT) as sock:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.sendall(self.hello)
            buf = b""
            while True:
                try:
                    data = sock.recv(65536)
                except OSError:
                    return
                if not data:
                    return
                buf += data
                *lines, buf = buf.split(b"\n")
                for raw in lines:
                    out = self.reply(raw.decode().rstrip("\r"))
                    if out is None:
                        return
                    if out == b"hold":
                        self.release.wait(TIMEOUT)
                        return
                    try:
                        sock.sendall(out)
                    except OSError:
                        return


def start(dealer, seat0, opponent="random"):
    """Seat 0 is ``seat0`` (a RawClient factory taking a port), seat 1 a pokerduel client; run the dealer."""
    raw = seat0(dealer.ports[0])
    raw.start()
    box = {}

    def client():
        try:
            box["client"] = run_client("127.0.0.1", dealer.ports[1], Agent(opponent, 1), timeout=TIMEOUT,
                                       expected_hands=dealer.n_hands)
        except (ProtocolError, OSError) as err:
            box["client"] = err

    t = threading.Thread(target=client, daemon=True)
    t.start()
    result = dealer.run()
    raw.release.set()
    t.join(TIMEOUT)
    raw.join(TIMEOUT)
    assert not t.is_alive() and not raw.is_alive(), "a client hung"
    return result, box["client"]


def seat_actions(line, seat):
    """The actions (``f``, ``c``, ``r<n>``) that ``seat`` made in a logged hand (hand h: seat 0 at position h % 2)."""
    _, hand, betting, *_ = line.split(":")
    pos = (int(hand) + seat) % 2
    h = HandState()
    out = []
    for rnd in betting.split("/"):
        i = 0
        while i < len(rnd):
            j = i + 1
            while j < len(rnd) and rnd[j].isdigit():
                j += 1
            tok = rnd[i:j]
            if h.actor == pos:
                out.append(tok)
            h.fold() if tok == "f" else h.call() if tok == "c" else h.raise_to(int(tok[1:]))
            i = j
    return out


def check_log(path, result):
    states = read_log_states(path)
    assert len(states) == result.n_hands
    for line in states:
        assert replay_acpc(line) == tuple(int(x) for x in line.split(":")[4].split("|"))
    last = path.read_text().splitlines()[-1]
    tot = result.payoffs.sum(axis=0) if result.n_hands else (0, 0)
    assert last == f"SCORE:{tot[0]}|{tot[1]}:seat1|seat2"
    return states


def new_dealer(tmp_path, hands=60, timeout=TIMEOUT):
    warnings = []
    d = Dealer(hands, 5, log_path=tmp_path / "f.log", timeout=timeout, start_timeout=TIMEOUT,
               warn=warnings.append)
    return d, warnings


# ---- clients that misbehave at our dealer ----------------------------------------------------------
def test_garbage_from_client_is_ignored_or_called(tmp_path):
    """Junk lines are ignored, stale states are ignored, an unparseable action becomes a call (counted)."""
    dealer, warnings = new_dealer(tmp_path)

    def reply(line):
        return b"hello\r\n# a comment\r\n\xff\xfe junk\r\n" + line.encode() + b":zz\r\n"

    result, other = start(dealer, lambda port: RawClient(port, reply))
    assert result.aborted is None and result.n_hands == 60
    states = check_log(tmp_path / "f.log", result)
    ours = [a for s in states for a in seat_actions(s, 0)]
    assert ours and set(ours) == {"c"}
    assert result.invalid == [len(ours), 0]
    assert any("bad action format" in w for w in warnings)
    logged = [ln for ln in (tmp_path / "f.log").read_text().splitlines() if "bad action format" in ln]
    assert len(logged) == len(ours) and all(ln.startswith("# WARNING") for ln in logged)  # in the log too
    assert any("bad state format" in w for w in warnings)
    assert any("un-requested" in w for w in warnings)
    assert not isinstance(other, Exception), other


def test_illegal_actions_are_repaired(tmp_path):
    """An over-sized raise is clamped to all-in (or called when no raise is legal), an illegal fold called."""
    dealer, warnings = new_dealer(tmp_path)
    result, _ = start(dealer, lambda port: RawClient(port, lambda line: line.encode() + b":r999999\r\n"),
                          opponent="calling-machine")
    assert result.aborted is None
    states = check_log(tmp_path / "f.log", result)
    ours = [a for s in states for a in seat_actions(s, 0)]
    assert set(ours) <= {"r20000", "c"} and "r20000" in ours
    assert result.invalid == [len(ours), 0]
    assert any("changed to r20000" in w for w in warnings)

    dealer, warnings = new_dealer(tmp_path, hands=20)
    result, _ = start(dealer, lambda port: RawClient(port, lambda line: line.encode() + b":f\r\n"),
                      opponent="calling-machine")
    states = check_log(tmp_path / "f.log", result)
    ours = [a for s in states for a in seat_actions(s, 0)]
    assert "c" in ours and result.invalid[0] == ours.count("c")  # every check was an illegal fold repaired


def test_client_disconnecting_mid_hand_ends_the_match(tmp_path):
    dealer, _ = new_dealer(tmp_path)

    def reply(line):
        return None if line.split(":")[2] == "5" else line.encode() + b":c\r\n"

    result, other = start(dealer, lambda port: RawClient(port, reply))
    assert result.aborted is not None and "seat 1" in result.aborted
    assert result.n_hands == 5
    check_log(tmp_path / "f.log", result)
    assert "# match ended after 5 of 60 hands" in (tmp_path / "f.log").read_text()
    assert isinstance(other, ConnectionLost)


def test_silent_client_times_out(tmp_path):
    dealer, _ = new_dealer(tmp_path, timeout=0.3)
    result, other = start(dealer, lambda port: RawClient(port, lambda line: b"hold"))
    assert "timed out" in result.aborted and "seat 1" in result.aborted
    check_log(tmp_path / "f.log", result)
    assert isinstance(other, ConnectionLost)


def test_bad_handshake_ends_the_match(tmp_path):
    dealer, _ = new_dealer(tmp_path)
    result, other = start(dealer, lambda port: RawClient(port, lambda line: b"", hello=b"HELLO\r\n"))
    assert "instead of VERSION" in result.aborted and result.n_hands == 0
    check_log(tmp_path / "f.log", result)
    assert isinstance(other, ConnectionLost)


def test_dealer_rejects_bad_arguments():
    with pytest.raises(ValueError, match="even"):
        Dealer(5, duplicate=True)
    with pytest.raises(ValueError, match="names"):
        Dealer(4, names=("a:b", "c"))
    with pytest.raises(ValueError, match="n_hands"):
        Dealer(0)


# ---- a dealer that misbehaves at our client --------------------------------------------------------
class FakeDealer(threading.Thread):
    """Accepts one client, reads its VERSION line, sends ``script`` bytes, then closes or holds the socket."""

    def __init__(self, script, hold=False):
        super().__init__(daemon=True)
        self.script, self.hold = script, hold
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(TIMEOUT)
        self.port = self.server.getsockname()[1]
        self.release = threading.Event()
        self.version = None

    def run(self):
        conn, _ = self.server.accept()
        with conn:
            conn.settimeout(TIMEOUT)
            self.version = conn.recv(100)
            conn.sendall(self.script)
            if self.hold:
                self.release.wait(TIMEOUT)
            else:  # end of match: no more lines, but take the client's replies until it hangs up
                conn.shutdown(socket.SHUT_WR)
                try:
                    while conn.recv(65536):
                        pass
                except OSError:
                    pass
        self.server.close()


def client_against(script, hold=False, timeout=TIMEOUT, player="calling-machine"):
    fake = FakeDealer(script, hold)
    fake.start()
    try:
        return run_client("127.0.0.1", fake.port, Agent(player), timeout=timeout)
    finally:
        fake.release.set()
        fake.join(TIMEOUT)
        assert fake.version == b"VERSION:2.0.0\r\n"


@pytest.mark.parametrize("script, words", [
    (b"MATCHSTATE:0:0::AsKd|\r\nhello dealer\r\n", "malformed message"),
    (b"MATCHSTATE:0:0::AsKd|\r\nMATCHSTATE:0:0:c\r\n", "malformed message"),
    (b"MATCHSTATE:0:0::AsKd||\r\n", "unexpected game"),                  # three players
    (b"MATCHSTATE:0:0:r:AsKd|\r\n", "limit game"),
    (b"MATCHSTATE:0:0:r300r350:AsKd|\r\n", "illegal"),                   # a min-raise of another game
    (b"MATCHSTATE:0:0::AsKd|\r\n\xff\xfe\r\n", "non-ASCII"),
])
def test_client_fails_on_malformed_dealer_line(script, words):
    with pytest.raises(ProtocolError, match=words):
        client_against(script)


def test_client_fails_when_dealer_closes_mid_hand():
    with pytest.raises(ConnectionLost, match="middle of hand 0"):
        client_against(b"MATCHSTATE:0:0:c:AsKd|\r\n")


def test_client_fails_when_dealer_is_silent():
    with pytest.raises(ConnectionLost, match="no message"):
        client_against(b"", hold=True, timeout=0.3)


def test_client_ends_normally_after_a_finished_hand():
    res = client_against(b"MATCHSTATE:1:0::|AsKd\r\nMATCHSTATE:1:0:f:|AsKd\r\n")
    assert list(res.payoffs) == [-50]


def test_client_cannot_connect():
    s = socket.create_server(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with pytest.raises(ConnectionLost, match="could not connect"):
        run_client("127.0.0.1", port, Agent("random"), timeout=1.0)


def test_cli_client_exit_code_on_malformed_line():
    from click.testing import CliRunner

    from pokerduel.cli import main

    fake = FakeDealer(b"MATCHSTATE:0:0::AsKd|\r\nMATCHSTATE:9\r\n")
    fake.start()
    res = CliRunner().invoke(main, ["acpc-client", "--port", str(fake.port), "--player", "random",
                                    "--timeout", "5"])
    fake.join(TIMEOUT)
    assert res.exit_code == 1
    assert "error: malformed message" in res.output
    bad = CliRunner().invoke(main, ["acpc-client", "--port", "1", "--player", "nobody"])
    assert bad.exit_code == 2
