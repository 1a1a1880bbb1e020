"""ACPC dealer: hosts a two-seat ``holdem.nolimit.2p.reverse_blinds`` match for any two ACPC clients.

Behaves like the University of Alberta dealer (``project_acpc_server/dealer.c``) where it matters to
clients: one listening port per seat, a ``VERSION:2.0.0`` line from each client first, seats rotating
every hand (seat 0 is position 0 in hand 0), hand numbers from 0, every state sent to both seats, a reply
read from the acting seat only, comment lines (``#``, ``;``), unparseable and stale lines ignored with a
warning, an unparseable or illegal action turned into a call (raise sizes clamped into range) and
counted, and a log of ``STATE:`` lines and a final ``SCORE:`` line. A client that closes the connection,
or does not answer within ``timeout`` seconds, ends the match; the log then holds the hands completed.

Decks come from the project's seeded deck stream (``decks.deal_cards`` with the first key of
``seed_keys(seed, 2)``, as ``play_duplicate`` uses). Without ``duplicate`` hand ``h`` gets deal ``h``; with
it, hands ``2d`` and ``2d + 1`` both get deal ``d`` and, seats rotating, are the two mirrored hands of
duplicate deal ``d``: the match is ``play_duplicate(seat 0, seat 1, hands // 2, seed)`` played over the
network. Messages to the seat that is not acting are buffered until it must act (or the match ends): one
``send`` per decision. The per-decision work (state lines, reading and applying the reply) is in
numba (``_deal``); Python keeps the sockets, the warnings and the log.
"""

from __future__ import annotations

import contextlib
import math
import os
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np

from ..engine.decks import DEAL_SLOTS, N_DEAL_CARDS, deal_cards, seed_keys
from ..engine.evaluator import eval7_pair
from ..engine.rules import BIG_BLIND, STATE_SIZE, payoff0
from ..infra.jit import kernel
from ..infra.storage import atomic_path
from . import _deal
from .protocol import GAME, ProtocolError, parse_matchstate, set_io_timeout

MAX_LINE = 8192  # a reply longer than this is discarded with a warning (a state line is far shorter)
RECV_SIZE = 1 << 16
OUT_SIZE = 1 << 18  # per seat; flushed before it can fill (a seat acts at least every other hand)


class SeatError(RuntimeError):
    """A seat broke the match: it disconnected, timed out or failed the handshake."""


@numba.njit(cache=True)
def deal_match(deck_key, n_deals):
    """Cards ``(n_deals, 9)`` of deals ``0..n_deals-1`` and both positions' seven-card values ``(n_deals, 2)``."""
    cards = np.empty((n_deals, N_DEAL_CARDS), dtype=np.int64)
    values = np.empty((n_deals, 2), dtype=np.int64)
    buf = np.empty(DEAL_SLOTS, dtype=np.int64)
    for d in range(n_deals):
        deal_cards(deck_key, d, buf)
        for i in range(N_DEAL_CARDS):
            cards[d, i] = buf[i]
        v0, v1 = eval7_pair(buf[0], buf[1], buf[2], buf[3], buf[4], buf[5], buf[6], buf[7], buf[8])
        values[d, 0] = v0
        values[d, 1] = v1
    return cards, values


@kernel
def hand_payoff0(st, v0, v1):
    """Chips won by position 0 in the finished hand."""
    return payoff0(st, v0, v1)


@dataclass
class DealerResult:
    """Chips per seat for each completed hand, invalid actions per seat, and why the match ended early (if it did)."""

    names: tuple[str, str]
    seed: int
    duplicate: bool
    n_hands_planned: int
    payoffs: np.ndarray  # (hands completed, 2) chips by seat
    invalid: list = field(default_factory=lambda: [0, 0])
    aborted: str | None = None
    log_path: str | None = None
    seconds: float = 0.0  # whole run, including waiting for the seats to connect
    play_seconds: float = 0.0  # from the end of the handshake to the end of the last hand
    play_cpu_seconds: float = 0.0  # the dealer's CPU time over the same span

    @property
    def n_hands(self) -> int:
        return len(self.payoffs)

    def mbb_per_hand(self, seat: int) -> tuple[float, float]:
        """Seat's mean in milli-big-blinds per hand and the half-width of its 95% CI.

        Duplicate matches use one sample per complete mirrored pair of hands (the pairs are independent,
        their two hands are not); otherwise one sample per hand.
        """
        x = self.payoffs[:, seat].astype(np.float64) * (1000 / BIG_BLIND)
        if self.duplicate:
            m = len(x) // 2
            x = x[: 2 * m].reshape(m, 2).mean(axis=1)
        n = len(x)
        if n == 0:
            return float("nan"), float("nan")
        return float(x.mean()), (float(1.96 * x.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan"))


class _Seat:
    """One connected client: socket, input buffer ``inbuf[start:end]``, output buffer ``out[index]``."""

    def __init__(self, index, name, sock, out, olen):
        self.index, self.name, self.sock = index, name, sock
        self.inbuf = np.zeros(RECV_SIZE + MAX_LINE, dtype=np.uint8)
        self.view = memoryview(self.inbuf)
        self.start = self.end = 0
        self.out, self.olen = out, olen
        self.out_view = memoryview(out[index])
        self.timeout = math.inf  # the socket's current timeout

    def label(self):
        return f"seat {self.index + 1} ({self.name})"

    def flush(self):
        n = int(self.olen[self.index])
        if n:
            self.olen[self.index] = 0
            try:
                self.sock.sendall(self.out_view[:n])
            except (TimeoutError, BlockingIOError):
                raise SeatError(f"{self.label()} took no data for {self.timeout:g} s") from None
            except OSError as err:
                raise SeatError(f"{self.label()}: could not send: {err}") from None

    def fill(self, deadline, what):
        """Receive more bytes (after compacting the buffer); ``SeatError`` on a close, a break or the deadline."""
        if self.start == self.end:
            self.start = self.end = 0
        elif self.start:
            n = self.end - self.start
            self.inbuf[:n] = self.inbuf[self.start:self.end]
            self.start, self.end = 0, n
        left = deadline - time.monotonic()
        if left <= 0:
            raise SeatError(f"{self.label()} timed out waiting for {what}")
        if abs(left - self.timeout) > 1e-3:  # a syscall saved on the common path: nothing read yet
            self.timeout = left
            set_io_timeout(self.sock, left)
        try:
            n = self.sock.recv_into(self.view[self.end:self.end + RECV_SIZE])
        except (TimeoutError, BlockingIOError):
            raise SeatError(f"{self.label()} timed out waiting for {what}") from None
        except OSError as err:
            raise SeatError(f"{self.label()}: connection broke waiting for {what}: {err}") from None
        if n == 0:
            raise SeatError(f"{self.label()} closed the connection waiting for {what}")
        self.end += n

    def readline(self, deadline, what):
        """Next line as text (for the handshake)."""
        while True:
            data = self.inbuf[self.start:self.end].tobytes()
            i = data.find(b"\n")
            if i >= 0:
                self.start += i + 1
                return data[:i].decode("ascii", errors="replace").rstrip("\r")
            if self.end - self.start > MAX_LINE:
                self.start = self.end
                return "\x00overlong"
            self.fill(deadline, what)


class Dealer:
    """A two-seat ACPC match server; ``ports`` are bound at construction (0 picks free ones), ``run`` plays.

    ``timeout`` is the most seconds a seat may take to answer (ACPC ``--t_response``);
    ``start_timeout`` the most seconds to wait for both seats to connect (``None``: wait forever).
    ``warn(text)`` receives the warnings (invalid actions, ignored lines); ``on_hand(n, result)`` is
    called after each hand.
    """

    def __init__(self, n_hands: int, seed: int = 0, *, duplicate: bool = False, host: str = "127.0.0.1",
                 ports=(0, 0), names=("seat1", "seat2"), timeout: float = 10.0,
                 start_timeout: float | None = 600.0, log_path=None, match_name: str = "pokerduel",
                 warn: Callable[[str], None] | None = None,
                 on_hand: Callable[[int, DealerResult], None] | None = None):
        if not isinstance(n_hands, (int, np.integer)) or isinstance(n_hands, bool) or n_hands < 1:
            raise ValueError(f"n_hands must be a positive integer, got {n_hands!r}")
        if duplicate and n_hands % 2:
            raise ValueError(f"a duplicate match plays each deal twice: n_hands must be even, got {n_hands}")
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        if not timeout > 0 or (start_timeout is not None and not start_timeout > 0):
            raise ValueError(f"timeouts must be positive seconds, got {timeout!r} and {start_timeout!r}")
        if len(names) != 2 or any(not isinstance(n, str) or not n or any(ch in n for ch in ":|\r\n# ")
                                  for n in names):
            raise ValueError(f"names must be two non-empty strings without ':', '|', '#', spaces or newlines, "
                             f"got {names!r}")
        if len(ports) != 2 or any(not isinstance(p, int) or not 0 <= p < 65536 for p in ports):
            raise ValueError(f"ports must be two integers 0..65535 (0: any free port), got {ports!r}")
        self.n_hands, self.seed, self.duplicate = int(n_hands), int(seed), bool(duplicate)
        self.names = tuple(names)
        self.timeout, self.start_timeout = float(timeout), start_timeout
        self.log_path = None if log_path is None else str(log_path)
        self.match_name = match_name
        self.warn = warn if warn is not None else (lambda text: print(text, file=sys.stderr))
        self.on_hand = on_hand
        self.listeners = []
        self.seats: list[_Seat] = []
        self._log = None
        self._connected = False  # both seats connected: the match began
        try:
            for p in ports:
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                self.listeners.append(s)
                s.bind((host, p))
                s.listen(1)
        except OSError as err:
            self.close()
            raise ValueError(f"cannot listen on {host} ports {ports}: {err}") from None
        self.ports = tuple(s.getsockname()[1] for s in self.listeners)

    def close(self):
        for s in self.listeners:
            s.close()
        for seat in self.seats:
            try:
                seat.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            seat.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _connect(self):
        for i, lst in enumerate(self.listeners):
            lst.settimeout(self.start_timeout)
            try:
                sock, _ = lst.accept()
            except TimeoutError:
                raise SeatError(f"seat {i + 1} ({self.names[i]}) did not connect within {self.start_timeout:g} s") from None
            lst.close()
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            set_io_timeout(sock, self.timeout)
            self.seats.append(_Seat(i, self.names[i], sock, self._out, self._olen))
            self.seats[-1].timeout = self.timeout
        self._connected = True
        for seat in self.seats:
            line = seat.readline(time.monotonic() + self.timeout, "its VERSION line")
            parts = line.split(":")
            nums = parts[1].split(".") if len(parts) == 2 else []
            if parts[0] != "VERSION" or len(nums) != 3 or not all(x.isdigit() for x in nums):
                raise SeatError(f"{seat.label()} sent {line[:100]!r} instead of VERSION:2.0.0")
            if int(nums[0]) != 2:
                raise SeatError(f"{seat.label()} speaks protocol {parts[1]}; this dealer speaks 2.0.0")

    def run(self) -> DealerResult:
        """Accept both seats and play the match; the result says whether (and why) it ended early.

        The log is written under a temporary name and appears at ``log_path`` when the match ends, early
        too (it then holds the hands completed, and an interrupt is re-raised once it is written); a match
        that never began (a seat did not connect) leaves no log and any existing file as it was."""
        t0 = time.perf_counter()
        n_deals = self.n_hands // 2 if self.duplicate else self.n_hands
        cards, values = deal_match(seed_keys(self.seed, 2)[0], n_deals)
        payoffs = np.zeros((self.n_hands, 2), dtype=np.int64)
        result = DealerResult(self.names, self.seed, self.duplicate, self.n_hands, payoffs[:0],
                              log_path=self.log_path)
        interrupted = None
        target = atomic_path(self.log_path) if self.log_path is not None else contextlib.nullcontext()
        with target as tmp:
            log = open(tmp, "w", encoding="ascii") if tmp is not None else None  # noqa: SIM115 (closed in finally)
            self._log = log
            try:
                if log is not None:
                    log.write(f"# name/game/hands/seed {self.match_name} {GAME} {self.n_hands} {self.seed}\n"
                              f"# pokerduel dealer: duplicate={int(self.duplicate)} t_response_ms="
                              f"{round(self.timeout * 1000)}\n")
                self._warm_up(cards[0])  # compile or load the kernels before the seats wait
                try:
                    self._connect()
                    t1, c1 = time.perf_counter(), time.process_time()
                    for h in range(self.n_hands):
                        d = h // 2 if self.duplicate else h
                        payoffs[h] = self._play_hand(h, cards[d], values[d], result, log)
                        result.payoffs = payoffs[: h + 1]
                        if self.on_hand is not None:
                            self.on_hand(h + 1, result)
                    for seat in self.seats:
                        seat.flush()
                    result.play_seconds = time.perf_counter() - t1
                    result.play_cpu_seconds = time.process_time() - c1
                except SeatError as err:
                    result.aborted = f"match ended after {result.n_hands} of {self.n_hands} hands: {err}"
                    for seat in self.seats:  # the other seat then sees the unfinished hand, not a quiet end
                        try:
                            seat.flush()
                        except SeatError:
                            pass
                    self.warn(f"ERROR: {result.aborted}")
                    if log is not None:
                        log.write(f"# {result.aborted}\n")
                except KeyboardInterrupt as err:
                    if not self._connected:
                        raise
                    interrupted = err
                    result.aborted = f"match interrupted after {result.n_hands} of {self.n_hands} hands"
                    if log is not None:
                        log.write(f"# {result.aborted}\n")
                totals = result.payoffs.sum(axis=0) if result.n_hands else np.zeros(2, dtype=np.int64)
                if log is not None:
                    log.write(f"SCORE:{int(totals[0])}|{int(totals[1])}:{self.names[0]}|{self.names[1]}\n")
            finally:
                if log is not None:
                    log.close()
                    if not self._connected:
                        os.unlink(tmp)  # nothing was played: no log (atomic_path then writes nothing)
                self._log = None
                self.close()
        if not self._connected:
            result.log_path = None
        result.seconds = time.perf_counter() - t0
        if interrupted is not None:
            raise interrupted
        return result

    def _buffers(self):
        self._out = np.zeros((2, OUT_SIZE), dtype=np.uint8)
        self._olen = np.zeros(2, dtype=np.int64)
        self._hctx = np.zeros(_deal.HCTX_SIZE, dtype=np.int64)
        self._st = np.zeros(STATE_SIZE, dtype=np.int64)
        self._bet = np.zeros(_deal.BET_SIZE, dtype=np.uint8)
        self._ctext = np.zeros(21, dtype=np.uint8)
        self._expect = np.zeros(MAX_LINE, dtype=np.uint8)

    def _warm_up(self, c):
        """Run every kernel once on scratch data (numba compiles or loads them on first use)."""
        self._buffers()
        _deal.begin_hand(self._hctx, self._st, 0, c, self._ctext)
        _deal.emit(self._hctx, self._out, self._olen, self._bet, self._ctext, self._expect)
        line = np.zeros(64, dtype=np.uint8)
        _deal.take(line, 0, 1, self._hctx, self._expect, self._st, self._bet)
        hand_payoff0(self._st, 0, 0)
        self._buffers()

    def _play_hand(self, h, c, v, result, log):
        """Play hand ``h`` on the deal's cards ``c`` (values ``v``); returns chips by seat."""
        hc, st, bet, ctext, expect, out, olen = (self._hctx, self._st, self._bet, self._ctext, self._expect,
                                                 self._out, self._olen)
        seat_of = (self.seats[h % 2], self.seats[1 - h % 2])  # position -> seat: seat s at position (s + h) % 2
        _deal.begin_hand(hc, st, h, c, ctext)
        while True:
            _deal.emit(hc, out, olen, bet, ctext, expect)
            actor = int(hc[_deal.H_ACTOR])
            seat = seat_of[actor]
            seat.flush()
            if olen[1 - seat.index] > OUT_SIZE // 2:
                seat_of[1 - actor].flush()
            self._await_action(seat, h)
            if hc[_deal.H_REPAIRED]:
                result.invalid[seat.index] += 1
                asked = int(hc[_deal.H_ASKED])
                if asked >= 0:  # an unparseable action was reported when read
                    self._invalid(f"WARNING: hand {h}: invalid action {_fmt(asked, hc[_deal.H_AMOUNT])} from "
                              f"{seat.label()}, changed to {_fmt(hc[_deal.H_ACTION], hc[_deal.H_SIZE])}")
            if hc[_deal.H_FINISHED]:
                break
        _deal.emit(hc, out, olen, bet, ctext, expect)  # the final state, hole cards shown after a showdown
        p0 = int(hand_payoff0(st, v[0], v[1]))
        if log is not None:
            text = ctext.tobytes().decode()
            board = text[8:8 + (0, 7, 10, 13)[int(hc[_deal.H_ROUND])]]
            betting = bet[:hc[_deal.H_BLEN]].tobytes().decode()
            log.write(f"STATE:{h}:{betting}:{text[0:4]}|{text[4:8]}{board}:{p0}|{-p0}:"
                      f"{seat_of[0].name}|{seat_of[1].name}\n")
            log.flush()
        return (p0, -p0) if h % 2 == 0 else (-p0, p0)

    def _await_action(self, seat, h):
        """Read the acting seat's lines until one answers the state it was sent (then applied by ``take``)."""
        hc = self._hctx
        deadline = time.monotonic() + self.timeout
        while True:
            code = _deal.take(seat.inbuf, seat.start, seat.end, hc, self._expect, self._st, self._bet)
            seat.start = int(hc[_deal.H_NEXT])
            if code == _deal.DONE:
                if hc[_deal.H_ASKED] < 0:
                    line = seat.inbuf[hc[_deal.H_LINE_START]:hc[_deal.H_LINE_END]].tobytes()
                    self._invalid(f"WARNING: hand {h}: bad action format in {line[:100]!r} from {seat.label()}, "
                              "changed to call")
                return
            if code == _deal.OTHER:
                line = seat.inbuf[hc[_deal.H_LINE_START]:hc[_deal.H_LINE_END]].tobytes().decode("ascii", "replace")
                self._ignored(line, seat, h)
                continue
            if seat.end - seat.start > MAX_LINE:
                seat.start = seat.end
                self._ignored("\x00overlong", seat, h)
            seat.fill(deadline, f"its action in hand {h}")

    def _invalid(self, text):
        """An invalid action: a warning, and a ``#`` comment line in the log (before the hand's STATE line)."""
        self.warn(text)
        if self._log is not None:
            self._log.write("# " + text.replace("\r", " ").replace("\n", " ").encode("ascii", "replace").decode() + "\n")

    def _ignored(self, line, seat, h):
        """Warn about a line that does not answer the state (comments pass silently), as the ACPC dealer."""
        if line[:1] in ("#", ";"):
            return
        try:
            parse_matchstate(line.rpartition(":")[0])
        except ProtocolError:
            self.warn(f"WARNING: hand {h}: bad state format in response from {seat.label()}: {line[:100]!r}")
            return
        self.warn(f"WARNING: hand {h}: ignoring un-requested response from {seat.label()}: {line[:100]!r}")


def _fmt(action, amount):
    return {0: "f", 1: "c", 2: f"r{amount}"}.get(int(action), "?")


def read_log_states(path) -> list[str]:
    """The ``STATE:`` lines of an ACPC log (comments and the ``SCORE:`` line left out)."""
    return [ln.rstrip("\n") for ln in Path(path).read_text(encoding="ascii").splitlines() if ln.startswith("STATE:")]
