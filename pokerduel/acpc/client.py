"""ACPC client: plays a whole match at an ACPC dealer (protocol 2.0.0) with a pokerduel player.

``Session`` turns the dealer's ``MATCHSTATE`` lines into the player's replies (in numba, ``_feed``; no
sockets: the tests drive it directly, and compare it with the plain-Python ``ReferenceSession``); ``run_client`` connects, sends the ``VERSION:2.0.0`` handshake and feeds the session.
Every received action is replayed under the engine's rules, so a message that does not fit
``holdem.nolimit.2p.reverse_blinds`` (another game, an illegal action, a hand that changes under our
feet) stops the client with ``ProtocolError``; a lost or silent connection raises ``ConnectionLost``.
"""

from __future__ import annotations

import math
import socket
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..engine.rules import BIG_BLIND
from . import _feed
from .agent import Agent
from .protocol import (
    GAME,
    VERSION,
    ProtocolError,
    format_action,
    parse_cards_field,
    set_io_timeout,
    suffix_tokens,
)

MAX_LINE = 8192  # longest line accepted: a legal state line is far shorter
RECV_SIZE = 1 << 16


class ConnectionLost(ConnectionError):
    """The dealer closed the connection in the middle of a hand, went silent, or the socket broke."""


@dataclass
class ClientResult:
    """What the client saw: chips won per hand (own seat), in the dealer's hand order."""

    payoffs: array = field(default_factory=lambda: array("q"))
    repaired: int = 0  # the player's illegal decisions repaired before sending (always sent legal)
    cpu_seconds: float = 0.0  # the client's CPU time from the handshake to the end of the match

    @property
    def n_hands(self) -> int:
        return len(self.payoffs)

    @property
    def chips(self) -> int:
        return int(sum(self.payoffs))

    def mbb_per_hand(self) -> tuple[float, float]:
        """Mean result in milli-big-blinds per hand and the half-width of a 95% CI over hands."""
        n = len(self.payoffs)
        if n == 0:
            return float("nan"), float("nan")
        s = np.frombuffer(self.payoffs, dtype=np.int64).astype(np.float64) * (1000 / BIG_BLIND)
        return float(s.mean()), (float(1.96 * s.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan"))


class ReferenceSession:
    """Consumes the dealer's lines for one seat and returns the replies: the plain-Python reference of
    ``Session`` (which does the same in numba), kept for the tests' differential check.

    Checks that each line extends the previous state of the same hand (or starts the next hand once the
    last one is over), that its actions are legal, that the cards shown match the rounds reached, and
    that a showdown shows the opponent's cards. ``on_hand(n_hands, result)`` is called after each hand.
    """

    def __init__(self, agent: Agent, on_hand: Callable[[int, ClientResult], None] | None = None):
        self.agent = agent
        self.result = ClientResult()
        self.on_hand = on_hand
        self.hand = -1
        self.in_hand = False  # a hand has started and is not finished
        self.pos = -1
        self.betting = ""
        self.n_round = 0  # rounds ('/') in the betting parsed so far
        self.cards = ""
        self.own = None
        self.n_groups = 0
        self.replied = ""
        self.opp_shown = False

    def handle(self, line: str) -> str | None:
        """The reply to one line from the dealer (without end-of-line), or ``None`` when it is not our turn."""
        if not line.startswith("MATCHSTATE:"):
            raise ProtocolError(f"malformed message {line[:200]!r}: expected MATCHSTATE:<position>:<hand>:<betting>:<cards>")
        parts = line.split(":")
        if len(parts) != 5:
            raise ProtocolError(f"malformed message {line[:200]!r}: expected five ':'-separated fields")
        _, pos_text, hand_text, betting, cards = parts
        if not (pos_text.isdigit() and hand_text.isdigit() and pos_text.isascii() and hand_text.isascii()):
            raise ProtocolError(f"malformed message {line[:200]!r}: position and hand must be non-negative integers")
        pos, hand = int(pos_text), int(hand_text)
        if pos > 1:
            raise ProtocolError(f"unexpected game: position {pos} in {line[:200]!r}; {GAME} has positions 0 and 1")
        agent = self.agent
        if hand != self.hand:
            self._new_hand(hand, pos, cards, line)
        elif self.in_hand is False:
            raise ProtocolError(f"message {line[:200]!r} about hand {hand}, which is already over")
        elif pos != self.pos:
            raise ProtocolError(f"message {line[:200]!r}: position changed from {self.pos} to {pos} within hand {hand}")
        if not betting.startswith(self.betting):
            raise ProtocolError(f"message {line[:200]!r}: betting {betting!r} does not extend the previous "
                                f"state's {self.betting!r} of hand {hand}")
        if len(betting) != len(self.betting):
            tokens, self.n_round = suffix_tokens(betting[len(self.betting):], self.n_round, line)
            for rnd, action, amount in tokens:
                if agent.finished:
                    raise ProtocolError(f"message {line[:200]!r}: action after the end of the hand")
                if rnd != agent.round:
                    raise ProtocolError(f"message {line[:200]!r}: an action in round {rnd} while the betting is in "
                                        f"round {agent.round} (unexpected game or malformed betting)")
                status = agent.apply(action, amount)
                if status != 0:
                    raise ProtocolError(f"message {line[:200]!r}: action {format_action(action, amount)} is "
                                        f"illegal in {GAME} (unexpected game or malformed betting)")
            self.betting = betting
        if self.n_round != agent.round:
            raise ProtocolError(f"message {line[:200]!r}: betting {betting!r} shows {self.n_round + 1} "
                                f"rounds but the hand is in round {agent.round + 1}")
        if cards != self.cards:
            self._update_cards(cards, line)
        if self.n_groups != agent.round:
            raise ProtocolError(f"message {line[:200]!r}: {self.n_groups} board rounds shown but the betting "
                                f"reached round {agent.round}")
        if agent.finished:
            if agent.showdown and not self.opp_shown:
                raise ProtocolError(f"message {line[:200]!r}: a showdown without the opponent's cards")
            self.result.payoffs.append(agent.finish())
            self.result.repaired = agent.repaired
            self.in_hand = False
            if self.on_hand is not None:
                self.on_hand(len(self.result.payoffs), self.result)
            return None
        if agent.actor != pos or line == self.replied:
            return None
        action, amount = agent.decide()
        self.replied = line
        return f"{line}:{format_action(action, amount)}"

    def _new_hand(self, hand, pos, cards, line):
        if self.in_hand:
            raise ProtocolError(f"message {line[:200]!r} starts hand {hand} but hand {self.hand} is not over")
        if hand < self.hand:
            raise ProtocolError(f"message {line[:200]!r}: hand {hand} comes after hand {self.hand}")
        holes, _, _ = parse_cards_field(cards, line)
        if holes[pos] is None:
            raise ProtocolError(f"malformed message {line[:200]!r}: own hole cards missing")
        self.hand, self.pos, self.in_hand = hand, pos, True
        self.betting, self.n_round, self.cards, self.n_groups = "", 0, "", 0
        self.own = holes[pos]
        self.opp_shown = False
        self.agent.begin(hand, pos, holes[pos])

    def _update_cards(self, cards, line):
        holes, board, n_groups = parse_cards_field(cards, line)
        if holes[self.pos] != self.own:
            raise ProtocolError(f"message {line[:200]!r}: own hole cards changed within hand {self.hand}")
        if n_groups < self.n_groups:
            raise ProtocolError(f"message {line[:200]!r}: board cards disappeared within hand {self.hand}")
        opp = holes[1 - self.pos]
        if opp is not None:
            self.agent.show_opponent(opp)
            self.opp_shown = True
        self.agent.show_board(board)
        self.cards, self.n_groups = cards, n_groups


ERRORS = {
    _feed.E_MALFORMED: "malformed message {line!r}: expected MATCHSTATE:<position>:<hand>:<betting>:<cards>",
    _feed.E_ASCII: "malformed message: non-ASCII bytes in {line!r}",
    _feed.E_POSITION: "unexpected game: a position above 1 in {line!r}; " + GAME + " has positions 0 and 1",
    _feed.E_HOLES: "unexpected game: hole cards of {line!r}; " + GAME + " deals two cards to each of two players",
    _feed.E_BOARD: "unexpected game: board of {line!r}; " + GAME + " deals 3, 1 and 1 board cards",
    _feed.E_CARD: "malformed message {line!r}: bad card",
    _feed.E_REPEATED: "malformed message {line!r}: repeated card",
    _feed.E_OWN_MISSING: "malformed message {line!r}: own hole cards missing",
    _feed.E_OVER: "message {line!r} about a hand that is already over",
    _feed.E_BACKWARDS: "message {line!r}: the hand number went backwards",
    _feed.E_NOT_OVER: "message {line!r} starts a new hand but the last one is not over",
    _feed.E_POS_CHANGED: "message {line!r}: our position changed within the hand",
    _feed.E_EXTEND: "message {line!r}: the betting does not extend the previous state's",
    _feed.E_LIMIT: "unexpected game: raise without a size in {line!r} (a limit game?); " + GAME + " is no-limit",
    _feed.E_BETTING: "malformed betting in {line!r}; actions are f, c and r<chips>",
    _feed.E_AFTER_END: "message {line!r}: action after the end of the hand",
    _feed.E_ROUND: "message {line!r}: an action in the wrong round (unexpected game or malformed betting)",
    _feed.E_ILLEGAL: "message {line!r}: an action illegal in " + GAME + " (unexpected game or malformed betting)",
    _feed.E_ROUNDS_SHOWN: "message {line!r}: the betting's rounds do not match the actions",
    _feed.E_BOARD_ROUNDS: "message {line!r}: the board rounds shown do not match the round the betting reached",
    _feed.E_SHOWDOWN: "message {line!r}: a showdown without the opponent's cards",
    _feed.E_OWN_CHANGED: "message {line!r}: own hole cards changed within the hand",
    _feed.E_BOARD_GONE: "message {line!r}: board cards disappeared within the hand",
    _feed.E_LONG: "malformed message {line!r}: too long",
    _feed.E_N_ROUNDS: "unexpected game: more than four betting rounds in {line!r}",
}


class Session:
    """Consumes the dealer's lines for one seat and produces the replies (numba: ``_feed``).

    Checks that each line extends the previous state of the same hand (or starts the next hand once the
    last one is over), that its actions are legal, that the cards shown match the rounds reached, and
    that a showdown shows the opponent's cards. ``on_hand(n_hands, result)`` is called after each hand.
    ``feed`` takes raw bytes as they arrive; ``handle`` one line (for tests).
    """

    def __init__(self, agent: Agent, on_hand: Callable[[int, ClientResult], None] | None = None,
                 out_size: int = 1 << 18):
        self.agent = agent
        self.result = ClientResult()
        self.on_hand = on_hand
        self.ctx = np.zeros(_feed.CTX_SIZE, dtype=np.int64)
        self.ctx[_feed.C_HAND] = -1
        self.ctx[_feed.C_PAIRS] = int(agent.pairs)
        self.ctx[_feed.C_HS_SAMPLES] = agent.hs_samples
        self.prev = np.zeros(2 * _feed.MAX_FIELD, dtype=np.uint8)
        self.tmp = np.zeros(9, dtype=np.int64)
        self.out = np.zeros(out_size, dtype=np.uint8)

    hand = property(lambda self: int(self.ctx[_feed.C_HAND]))
    in_hand = property(lambda self: bool(self.ctx[_feed.C_IN_HAND]))
    repaired = property(lambda self: int(self.ctx[_feed.C_REPAIRED]), doc="Decisions repaired before sending.")

    def feed(self, data: np.ndarray, start: int, end: int) -> int:
        """Handle the complete lines in ``data[start:end]`` (uint8); returns where the unhandled rest starts.
        Replies collect in ``self.out[:self.ctx[C_OUT_LEN]]``."""
        a = self.agent
        p = a.player
        ctx = self.ctx
        while True:
            code, start = _feed.feed(data, start, end, ctx, self.prev, self.tmp, p.kind, p.params, a.imem, a.fmem,
                                     a.st, a.cards, a.hist, a.hs, a.keys, a.rng_key, a.rng, self.out)
            if code == 0:
                return start
            if code < 0:
                line = bytes(data[ctx[_feed.C_LINE_START]:ctx[_feed.C_LINE_END]]).decode("ascii", "replace")
                raise ProtocolError(ERRORS[int(code)].format(line=line[:200]))
            self.result.payoffs.append(int(ctx[_feed.C_PAYOFF]))
            self.result.repaired = int(ctx[_feed.C_REPAIRED])
            if self.on_hand is not None:
                self.on_hand(len(self.result.payoffs), self.result)

    def warm_up(self) -> None:
        """Compile (or load from numba's cache) the kernels now, not while the dealer waits for an answer."""
        self.feed(np.zeros(1, dtype=np.uint8), 0, 0)

    def take_replies(self) -> bytes:
        n = int(self.ctx[_feed.C_OUT_LEN])
        self.ctx[_feed.C_OUT_LEN] = 0
        return self.out[:n].tobytes()

    def handle(self, line: str) -> str | None:
        """The reply to one line from the dealer (without end-of-line), or ``None`` when it is not our turn."""
        data = np.frombuffer((line + "\n").encode("utf-8"), dtype=np.uint8).copy()  # writable: one signature
        self.feed(data, 0, len(data))
        reply = self.take_replies()
        return reply.decode().rstrip("\r\n") if reply else None


def run_client(host: str, port: int, agent: Agent, *, timeout: float = 600.0, connect_timeout: float = 30.0,
               expected_hands: int | None = None,
               on_hand: Callable[[int, ClientResult], None] | None = None) -> ClientResult:
    """Play a whole match at the dealer on ``host:port``; returns the result when the dealer closes the
    connection after a finished hand. ``ProtocolError`` on a malformed line or an unexpected game,
    ``ConnectionLost`` on a broken connection, a close in the middle of a hand, a close before
    ``expected_hands`` hands (the protocol has no end-of-match message, so only a known length tells an
    early end between hands from the real end), or ``timeout`` seconds without a message."""
    if not isinstance(port, int) or not 0 < port < 65536:
        raise ValueError(f"port must be 1..65535, got {port!r}")
    if expected_hands is not None and (not isinstance(expected_hands, int) or expected_hands < 1):
        raise ValueError(f"expected_hands must be a positive integer or None, got {expected_hands!r}")
    if not timeout > 0 or not connect_timeout > 0:
        raise ValueError(f"timeouts must be positive, got {timeout!r} and {connect_timeout!r}")
    session = Session(agent, on_hand)
    session.warm_up()
    cpu0 = time.process_time()
    try:
        sock = socket.create_connection((host, port), timeout=connect_timeout)
    except OSError as err:
        raise ConnectionLost(f"could not connect to the dealer at {host}:{port}: {err}") from None
    buf = np.zeros(RECV_SIZE + MAX_LINE, dtype=np.uint8)
    view = memoryview(buf)
    filled = 0
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        set_io_timeout(sock, timeout)
        sock.sendall(VERSION.encode() + b"\r\n")
        while True:
            try:
                n = sock.recv_into(view[filled:filled + RECV_SIZE])
            except (TimeoutError, BlockingIOError):
                raise ConnectionLost(f"no message from the dealer for {timeout:g} s "
                                     f"(after {session.result.n_hands} hands)") from None
            if n == 0:
                break
            end = filled + n
            rest = session.feed(buf, 0, end)
            filled = end - rest
            if filled > MAX_LINE:
                raise ProtocolError(f"malformed message: {filled} bytes without an end of line")
            if rest:
                buf[:filled] = buf[rest:end]
            if session.ctx[_feed.C_OUT_LEN]:
                try:
                    sock.sendall(session.take_replies())
                except (TimeoutError, BlockingIOError):
                    raise ConnectionLost(f"the dealer took no data for {timeout:g} s") from None
    except (ConnectionResetError, BrokenPipeError, ConnectionAbortedError) as err:
        raise ConnectionLost(f"connection to the dealer broke after {session.result.n_hands} hands: {err}") from None
    finally:
        sock.close()
    session.result.cpu_seconds = time.process_time() - cpu0
    session.result.repaired = session.repaired
    if bytes(buf[:filled]).strip():
        raise ProtocolError(f"malformed message: the dealer closed the connection in the middle of a line "
                            f"{bytes(buf[:min(filled, 200)])!r}")
    if session.in_hand:
        raise ConnectionLost(f"the dealer closed the connection in the middle of hand {session.hand}")
    if session.result.n_hands == 0:
        raise ConnectionLost("the dealer closed the connection before any hand was played")
    if expected_hands is not None and session.result.n_hands != expected_hands:
        raise ConnectionLost(f"the dealer closed the connection after {session.result.n_hands} hands; "
                             f"{expected_hands} were expected")
    return session.result
