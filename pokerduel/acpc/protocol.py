"""ACPC protocol 2.0.0 lines for ``holdem.nolimit.2p.reverse_blinds``: parse and format.

A state line is ``MATCHSTATE:<position>:<hand>:<betting>:<cards>``; a reply is that state followed by
``:`` and ``f``, ``c`` or ``r<total>`` (raise *to* a total for the hand). ``<cards>`` holds the hole
cards per position separated by ``|`` (the opponent's are empty unless shown at a showdown), then one
``/``-separated group per board round reached. Anything that does not fit this two-player, four-round,
no-limit game raises ``ProtocolError`` with a message saying what was wrong.
"""

from __future__ import annotations

import re
import socket
import struct
from dataclasses import dataclass

from ..engine.cards import card_index
from ..engine.rules import CALL, FOLD, RAISE

VERSION = "VERSION:2.0.0"
GAME = "holdem.nolimit.2p.reverse_blinds"
BOARD_SIZES = (3, 1, 1)  # cards dealt on the flop, turn and river

_TOKEN = re.compile(r"f|c|r[0-9]{1,9}")
_DIGITS = re.compile(r"[0-9]{1,9}")


class ProtocolError(ValueError):
    """A line that breaks the ACPC protocol or does not belong to ``holdem.nolimit.2p.reverse_blinds``."""


@dataclass(frozen=True)
class MatchState:
    """One parsed ``MATCHSTATE`` line. ``holes[p]`` is a tuple of two card ints or ``None`` if hidden."""

    position: int
    hand: int
    betting: str
    holes: tuple
    board: tuple  # card ints of the board rounds shown so far, in deal order
    n_board_groups: int
    text: str  # the line without its end-of-line characters


def parse_cards_field(text: str, line: str = "") -> tuple[tuple, tuple, int]:
    """``(holes, board, n_groups)`` of a cards field such as ``AsKd|/2c8dJs/Th``."""
    holes_text, *groups = text.split("/")
    holes = holes_text.split("|")
    if len(holes) != 2:
        raise ProtocolError(f"unexpected game: {len(holes)} hole-card fields in {line or text!r}; "
                            f"{GAME} has two players")
    parsed = []
    for h in holes:
        if h == "":
            parsed.append(None)
        elif len(h) == 4:
            parsed.append((_card(h[0:2], line or text), _card(h[2:4], line or text)))
        else:
            raise ProtocolError(f"unexpected game: hole cards {h!r} in {line or text!r}; {GAME} deals two")
    if len(groups) > len(BOARD_SIZES):
        raise ProtocolError(f"unexpected game: {len(groups)} board rounds in {line or text!r}; {GAME} has three")
    board = []
    for g, size in zip(groups, BOARD_SIZES):
        if len(g) != 2 * size:
            raise ProtocolError(f"unexpected game: board group {g!r} in {line or text!r}; "
                                f"{GAME} deals {BOARD_SIZES} board cards per round")
        board += [_card(g[i:i + 2], line or text) for i in range(0, len(g), 2)]
    cards = [c for h in parsed if h is not None for c in h] + board
    if len(set(cards)) != len(cards):
        raise ProtocolError(f"repeated card in {line or text!r}")
    return tuple(parsed), tuple(board), len(groups)


_CARDS = {r + u: card_index(r + u) for r in "23456789TJQKAtjqka" for u in "cdhsCDHS"}


def _card(token: str, line: str) -> int:
    c = _CARDS.get(token)
    if c is not None:
        return c
    try:
        return card_index(token)
    except ValueError as err:
        raise ProtocolError(f"{err} in {line!r}") from None


def parse_matchstate(line: str) -> MatchState:
    """Parse one ``MATCHSTATE`` line (end-of-line characters allowed); ``ProtocolError`` if malformed."""
    text = line.rstrip("\r\n")
    parts = text.split(":")
    if len(parts) != 5 or parts[0] != "MATCHSTATE":
        raise ProtocolError(f"malformed message {text[:200]!r}: expected MATCHSTATE:<position>:<hand>:<betting>:<cards>")
    _, pos, hand, betting, cards = parts
    if not _DIGITS.fullmatch(pos) or not _DIGITS.fullmatch(hand):
        raise ProtocolError(f"malformed message {text[:200]!r}: position and hand must be non-negative integers")
    if int(pos) > 1:
        raise ProtocolError(f"unexpected game: position {pos} in {text[:200]!r}; {GAME} has positions 0 and 1")
    check_betting_syntax(betting, text)
    holes, board, n_groups = parse_cards_field(cards, text)
    if holes[int(pos)] is None:
        raise ProtocolError(f"malformed message {text[:200]!r}: own hole cards missing")
    return MatchState(int(pos), int(hand), betting, holes, board, n_groups, text)


def check_betting_syntax(betting: str, line: str = "") -> None:
    """``ProtocolError`` unless ``betting`` is up to four ``/``-separated rounds of ``f``, ``c``, ``r<n>``."""
    rounds = betting.split("/")
    if len(rounds) > 4:
        raise ProtocolError(f"unexpected game: betting {betting!r} has {len(rounds)} rounds; {GAME} has four")
    for r in rounds:
        pos = 0
        for m in _TOKEN.finditer(r):
            if m.start() != pos:
                break
            pos = m.end()
        if pos != len(r):
            if r[pos:pos + 1] == "r":
                raise ProtocolError(f"unexpected game: raise without a size in betting {betting!r} of {line!r} "
                                    f"(a limit game?); {GAME} is no-limit")
            raise ProtocolError(f"malformed betting {betting!r} in {line!r} near {r[pos:]!r}; "
                                "actions are f, c and r<chips>")


def betting_tokens(betting: str):
    """``(round, action code, raise-to or 0)`` for each action of a betting string (syntax assumed checked)."""
    out = []
    for rnd, text in enumerate(betting.split("/")):
        for m in _TOKEN.finditer(text):
            tok = m.group()
            if tok == "f":
                out.append((rnd, FOLD, 0))
            elif tok == "c":
                out.append((rnd, CALL, 0))
            else:
                out.append((rnd, RAISE, int(tok[1:])))
    return out


_STEP = re.compile(r"/|f|c|r[0-9]{1,9}")


def suffix_tokens(suffix: str, start_round: int, line: str = ""):
    """``betting_tokens`` of the part of a betting string after an already-parsed prefix that ended in round
    ``start_round`` (so one new action costs one short scan, not a parse of the whole string)."""
    out = []
    pos = 0
    rnd = start_round
    for m in _STEP.finditer(suffix):
        if m.start() != pos:
            break
        pos = m.end()
        tok = m.group()
        if tok == "/":
            rnd += 1
        elif tok == "f":
            out.append((rnd, FOLD, 0))
        elif tok == "c":
            out.append((rnd, CALL, 0))
        else:
            out.append((rnd, RAISE, int(tok[1:])))
    if pos != len(suffix) or rnd > 3:
        check_betting_syntax(suffix, line)  # raises with the precise complaint
        raise ProtocolError(f"unexpected game: betting in {line!r} has more than four rounds")
    return out, rnd


def format_action(action: int, amount: int = 0) -> str:
    """``f``, ``c`` or ``r<amount>`` for an action code."""
    if action == FOLD:
        return "f"
    if action == CALL:
        return "c"
    if action == RAISE:
        return f"r{int(amount)}"
    raise ValueError(f"unknown action code {action!r} (0 fold, 1 call, 2 raise)")


def parse_action(text: str):
    """``(code, amount)`` of ``f``, ``c`` or ``r<n>``; ``None`` if unparseable (the dealer then calls)."""
    text = text.rstrip("\r\n")
    if text == "f":
        return FOLD, 0
    if text == "c":
        return CALL, 0
    if len(text) > 1 and text[0] == "r" and _DIGITS.fullmatch(text[1:]):
        return RAISE, int(text[1:])
    return None


def format_matchstate(position: int, hand: int, betting: str, cards: str) -> str:
    """A ``MATCHSTATE`` line without end-of-line characters."""
    return f"MATCHSTATE:{position}:{hand}:{betting}:{cards}"


def set_io_timeout(sock: socket.socket, seconds: float) -> None:
    """Blocking socket whose ``recv``/``send`` give up after ``seconds`` (``BlockingIOError``).

    ``SO_RCVTIMEO``/``SO_SNDTIMEO`` rather than ``settimeout``: with a Python timeout every ``recv`` and
    ``send`` first waits in ``poll``, one more system call per message.
    """
    sock.settimeout(None)
    sec = int(seconds)
    usec = max(1, round((seconds - sec) * 1e6)) if sec == 0 else int((seconds - sec) * 1e6)
    tv = struct.pack("ll", sec, usec)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)
