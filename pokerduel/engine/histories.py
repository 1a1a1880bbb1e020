"""Hand histories: export to PHH (pokerkit's Poker Hand History format) and replay ACPC dealer log lines.

PHH players are numbered from 1 in position order: ``p1`` is ACPC position 0 (big blind) and ``p2``
position 1 (button). Heads-up, PHH's ``blinds_or_straddles = [50, 100]`` makes ``p1`` post the big blind,
as in pokerkit. PHH bet amounts are street-local ("raise to" on this street); ACPC's are for the hand.

Every exported hand also carries its result, so a reader can check it without our engine: the
``finishing_stacks`` (each position's starting stack plus its payoff; stacks are reset every hand)
and the table: ``seat_count = 2`` and ``seats``, the seat of each position's player. In a match the
player A sits in seat 1 and B in seat 2 for every hand while the button moves between them, so the
seats tell the two apart even when both have the same name.
"""

from __future__ import annotations

import re

import numpy as np

from .cards import card_index, format_cards
from .evaluator import eval7
from .rules import BIG_BLIND, CALL, FOLD, RAISE, SMALL_BLIND, STACK, HandState

_BOARD = ((4, 7), (7, 8), (8, 9))


def _check_cards(cards) -> list[int]:
    """The deal's nine cards (hole 0, hole 1, board) as ints; ``ValueError`` unless nine distinct cards 0..51."""
    try:
        out = [int(c) for c in cards]
    except (TypeError, ValueError):
        raise ValueError(f"cards must be nine card integers, got {cards!r}") from None
    if len(out) != 9:
        raise ValueError(f"expected nine cards (hole 0, hole 1, five board cards), got {len(out)}")
    for c in out:
        if not 0 <= c < 52:
            raise ValueError(f"bad card integer {c}: cards are 0..51")
    if len(set(out)) != 9:
        raise ValueError(f"repeated card in {format_cards(out)}")
    return out


def _apply_checked(state: HandState, index: int, rnd, actor, action, amount) -> None:
    """Apply action number ``index`` of a recorded hand after checking its round and actor."""
    if state.finished:
        raise ValueError(f"action {index} ({rnd}, {actor}, {action}, {amount}) comes after the end of the hand")
    if rnd != state.round:
        raise ValueError(f"action {index} is marked round {rnd} but the betting is in round {state.round}")
    if actor != state.actor:
        raise ValueError(f"action {index} is by position {actor} but position {state.actor} is to act")
    if action == FOLD:
        state.fold()
    elif action == CALL:
        state.call()
    elif action == RAISE:
        state.raise_to(amount)
    else:
        raise ValueError(f"action {index}: unknown action code {action} (0 fold, 1 call, 2 raise)")


def hand_to_phh(cards, actions, *, names=None, hand: int | None = None, seats=(1, 2), payoffs=None) -> str:
    """PHH text (TOML) of one hand: ``cards`` = hole 0, hole 1, board (9 ints); actions (round, actor, code, raise-to).

    The actions are replayed under the rules; a wrong actor or round, an illegal action or an unfinished
    hand raises ``ValueError``. ``seats``: the seat (1 or 2) of the players at positions 0 and 1.
    ``finishing_stacks`` are the starting stacks plus the payoffs the rules give; ``payoffs``, when
    given (those the match paid), must agree with them, else ``ValueError``.
    """
    cards = _check_cards(cards)
    seats = _check_seats(seats)
    state = HandState()
    lines = [f"d dh p1 {format_cards(cards[0:2])}", f"d dh p2 {format_cards(cards[2:4])}"]
    dealt = 0  # board rounds dealt
    street_base = 0
    last_raiser = None
    for i, (rnd, actor, action, amount) in enumerate(actions):
        while dealt < state.round:
            lo, hi = _BOARD[dealt]
            lines.append(f"d db {format_cards(cards[lo:hi])}")
            dealt += 1
            street_base = max(state.spent)
            last_raiser = None
        _apply_checked(state, i, rnd, actor, action, amount)
        p = f"p{actor + 1}"
        if action == FOLD:
            lines.append(f"{p} f")
        elif action == CALL:
            lines.append(f"{p} cc")
        else:
            lines.append(f"{p} cbr {amount - street_base}")
            last_raiser = actor
    if not state.finished:
        raise ValueError("the hand is not finished")
    if state.showdown:
        first = 0 if last_raiser is None else last_raiser
        for pos in (first, 1 - first):
            lines.append(f"p{pos + 1} sm {format_cards(cards[2 * pos:2 * pos + 2])}")
        while dealt < 3:
            lo, hi = _BOARD[dealt]
            lines.append(f"d db {format_cards(cards[lo:hi])}")
            dealt += 1
    fields = [
        "variant = 'NT'",
        "ante_trimming_status = true",
        "antes = [0, 0]",
        f"blinds_or_straddles = [{SMALL_BLIND}, {BIG_BLIND}]",
        f"min_bet = {BIG_BLIND}",
        f"starting_stacks = [{STACK}, {STACK}]",
        "actions = [" + ", ".join(f"'{x}'" for x in lines) + "]",
    ]
    if names is not None:
        fields.append("players = [" + ", ".join(_toml_str(n) for n in names) + "]")
    if hand is not None:
        fields.append(f"hand = {int(hand)}")
    if state.showdown:
        board = cards[4:9]
        result = state.payoffs(eval7(*cards[0:2], *board), eval7(*cards[2:4], *board))
    else:
        result = state.payoffs()
    if payoffs is not None and tuple(int(v) for v in payoffs) != result:
        raise ValueError(f"payoffs {tuple(payoffs)!r} disagree with the rules' {result!r}")
    fields += [
        f"seat_count = {len(seats)}",
        f"seats = [{seats[0]}, {seats[1]}]",
        f"finishing_stacks = [{STACK + result[0]}, {STACK + result[1]}]",
    ]
    return "\n".join(fields) + "\n"


def _check_seats(seats) -> tuple[int, int]:
    """``seats`` as two ints, ``ValueError`` unless they are seats 1 and 2 in some order."""
    try:
        out = tuple(int(s) for s in seats)
    except (TypeError, ValueError):
        raise ValueError(f"seats must be two seat numbers, got {seats!r}") from None
    if sorted(out) != [1, 2]:
        raise ValueError(f"seats must be 1 and 2 in position order, got {seats!r}")
    return out


def match_seats(half: int) -> tuple[int, int]:
    """Seats of positions 0 and 1 when player A (seat 1) sits at position ``half`` and B (seat 2) at the other."""
    return (1, 2) if half == 0 else (2, 1)


def _toml_str(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_phhs(path, records) -> int:
    """Write hand records (``matches.HandRecord``) to a ``.phhs`` file, one ``[i]`` section each; returns the count.

    ``records`` may be a generator (the hands are written as they come); the file appears at ``path`` only
    once all are written (``storage.atomic_path``). Each hand names its players, puts A in seat 1 and B
    in seat 2, and has the finishing stacks of the payoffs the record holds (checked against the rules)."""
    from ..infra.storage import atomic_path

    n = 0
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        for n, rec in enumerate(records, start=1):
            fh.write(f"[{n}]\n")
            fh.write(hand_to_phh(rec.cards, rec.actions, names=rec.names, hand=n,
                                 seats=match_seats(rec.half), payoffs=rec.payoffs))
            fh.write("\n")
    return n


def hand_to_acpc(hand_no: int, cards, actions, payoffs, names) -> str:
    """ACPC dealer log line of one hand, the inverse of ``replay_acpc``.

    ``STATE:<hand>:<betting>:<hole 0>|<hole 1>/<flop>/<turn>/<river>:<payoff 0>|<payoff 1>:<name 0>|<name 1>``,
    everything in position order. Board groups are written for the rounds the hand reached (an all-in
    reaches the river: ``r20000c///`` with the whole board). The actions are replayed under the rules
    (``ValueError`` if illegal or unfinished); the payoffs are written as given, not recomputed.
    """
    if not isinstance(hand_no, (int, np.integer)) or isinstance(hand_no, bool) or hand_no < 0:
        raise ValueError(f"hand number must be a non-negative integer, got {hand_no!r}")
    cards = _check_cards(cards)
    state = HandState()
    for i, (rnd, actor, action, amount) in enumerate(actions):
        _apply_checked(state, i, rnd, actor, action, amount)
    if not state.finished:
        raise ValueError("the hand is not finished")
    if len(payoffs) != 2:
        raise ValueError(f"expected two payoffs (positions 0 and 1), got {payoffs!r}")
    values = []
    for v in payoffs:
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise ValueError(f"payoffs must be whole numbers of chips, got {payoffs!r}")
        values.append(int(v))
    if len(names) != 2:
        raise ValueError(f"expected two names (positions 0 and 1), got {names!r}")
    for name in names:
        if not isinstance(name, str) or not name or any(ch in name for ch in ":|\r\n"):
            raise ValueError(f"player name {name!r} cannot go in an ACPC line (empty, or holds ':', '|' or a newline)")
    groups = [format_cards(cards[0:2]) + "|" + format_cards(cards[2:4])]
    groups += [format_cards(cards[lo:hi]) for lo, hi in _BOARD[: state.round]]
    return (f"STATE:{int(hand_no)}:{state.acpc_betting()}:{'/'.join(groups)}:"
            f"{values[0]}|{values[1]}:{names[0]}|{names[1]}")


_ACTION = re.compile(r"f|c|r[0-9]+")
_NUMBER = re.compile(r"[0-9]+")


def replay_acpc(line: str) -> tuple[int, int]:
    """Payoffs of positions 0 and 1 from one ACPC dealer log line.

    ``STATE:<hand>:<betting>:<hole 0>|<hole 1>/<flop>/<turn>/<river>:<payoffs>:<names>``. The betting is
    replayed under the rules and showdowns are evaluated; the line's own payoffs, when present, must
    agree. Malformed or illegal lines raise ``ValueError``.
    """
    parts = line.strip().split(":")
    if len(parts) < 4 or parts[0] != "STATE":
        raise ValueError(f"not an ACPC STATE line: {line!r}")
    if len(parts) > 6:
        raise ValueError(f"too many ':' fields in {line!r} (STATE:hand:betting:cards[:payoffs[:names]])")
    _, hand_no, betting, cards_text, *rest = parts
    if not _NUMBER.fullmatch(hand_no):
        raise ValueError(f"bad hand number {hand_no!r} in {line!r}")
    state = HandState()
    rounds = betting.split("/")
    if len(rounds) > 4:
        raise ValueError(f"betting {betting!r} has more than four rounds")
    for rnd, text in enumerate(rounds):
        pos = 0
        for m in _ACTION.finditer(text):
            if m.start() != pos:
                break
            pos = m.end()
            tok = m.group()
            if state.finished:
                raise ValueError(f"betting {betting!r}: action {tok!r} in round {rnd} comes after the end of the hand")
            if rnd != state.round:
                raise ValueError(
                    f"betting {betting!r}: action {tok!r} is written in round {rnd} but the betting is in "
                    f"round {state.round} (a missing or extra '/'?)"
                )
            try:
                if tok == "f":
                    state.fold()
                elif tok == "c":
                    state.call()
                else:
                    state.raise_to(int(tok[1:]))
            except ValueError as err:
                raise ValueError(f"illegal action {tok!r} in betting {betting!r}: {err}") from None
        if pos != len(text):
            raise ValueError(f"bad betting {betting!r} near {text[pos:]!r} (actions are f, c and r<chips>)")
    if not state.finished:
        raise ValueError(f"betting {betting!r} does not finish the hand")
    if len(rounds) != state.round + 1:
        raise ValueError(f"betting {betting!r} has {len(rounds)} rounds but the hand ended in round {state.round}")
    holes_text, *board_groups = cards_text.split("/")
    holes = holes_text.split("|")
    if len(holes) != 2:
        raise ValueError(f"expected two hole-card fields separated by '|', got {holes_text!r}")
    if len(board_groups) != state.round:
        raise ValueError(f"{len(board_groups)} board groups for a hand that reached round {state.round}")
    cards = []
    for text, size in zip(holes + board_groups, (2, 2, 3, 1, 1)):
        if len(text) != 2 * size and not (size == 2 and text == "" and not state.showdown):
            raise ValueError(f"card field {text!r} should hold {size} cards")
        cards.append([card_index(text[i:i + 2]) for i in range(0, len(text), 2)])
    flat = [c for group in cards for c in group]
    if len(set(flat)) != len(flat):
        dup = next(c for c in flat if flat.count(c) > 1)
        raise ValueError(f"card {format_cards([dup])} appears twice in {cards_text!r}")
    if state.showdown:
        board = [c for group in cards[2:] for c in group]
        p = state.payoffs(eval7(*cards[0], *board), eval7(*cards[1], *board))
    else:
        p = state.payoffs()
    if rest and rest[0]:
        logged = rest[0].split("|")
        try:
            values = [float(v) for v in logged]
        except ValueError:
            raise ValueError(f"bad payoffs {rest[0]!r}") from None
        if len(values) != 2 or values != [float(p[0]), float(p[1])]:
            raise ValueError(f"line says payoffs {rest[0]!r} but the rules give {p[0]}|{p[1]}")
    if len(rest) > 1 and len(rest[1].split("|")) != 2:
        raise ValueError(f"expected two names separated by '|', got {rest[1]!r}")
    return p
