"""Hand histories: export to PHH (pokerkit's Poker Hand History format) and replay ACPC dealer log lines.

PHH players are numbered from 1 in position order: ``p1`` is ACPC position 0 (big blind) and ``p2``
position 1 (button). Heads-up, PHH's ``blinds_or_straddles = [50, 100]`` makes ``p1`` post the big blind,
as in pokerkit. PHH bet amounts are street-local ("raise to" on this street); ACPC's are for the hand.
"""

from __future__ import annotations

import re
from pathlib import Path

from .cards import card_index, format_cards
from .evaluator import eval7
from .rules import BIG_BLIND, CALL, FOLD, RAISE, SMALL_BLIND, STACK, HandState

_BOARD = ((4, 7), (7, 8), (8, 9))


def hand_to_phh(cards, actions, *, names=None, hand: int | None = None) -> str:
    """PHH text (TOML) of one hand: ``cards`` = hole 0, hole 1, board (9 ints); actions (round, actor, code, raise-to)."""
    state = HandState()
    lines = [f"d dh p1 {format_cards(cards[0:2])}", f"d dh p2 {format_cards(cards[2:4])}"]
    dealt = 0  # board rounds dealt
    street_base = 0
    last_raiser = None
    for rnd, actor, action, amount in actions:
        while dealt < rnd:
            lo, hi = _BOARD[dealt]
            lines.append(f"d db {format_cards(cards[lo:hi])}")
            dealt += 1
            street_base = max(state.spent)
            last_raiser = None
        if state.actor != actor:
            raise ValueError(f"action by position {actor} but position {state.actor} is to act")
        p = f"p{actor + 1}"
        if action == FOLD:
            state.fold()
            lines.append(f"{p} f")
        elif action == CALL:
            state.call()
            lines.append(f"{p} cc")
        elif action == RAISE:
            state.raise_to(amount)
            lines.append(f"{p} cbr {amount - street_base}")
            last_raiser = actor
        else:
            raise ValueError(f"unknown action code {action}")
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
    return "\n".join(fields) + "\n"


def _toml_str(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_phhs(path, records) -> int:
    """Write hand records (``matches.HandRecord``) to a ``.phhs`` file, one ``[i]`` section each; returns the count."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    n = 0
    with open(tmp, "w", encoding="utf-8") as fh:
        for n, rec in enumerate(records, start=1):
            fh.write(f"[{n}]\n")
            fh.write(hand_to_phh(rec.cards, rec.actions, names=rec.names, hand=n))
            fh.write("\n")
    tmp.replace(path)
    return n


_ACTION = re.compile(r"f|c|r\d+")


def replay_acpc(line: str) -> tuple[int, int]:
    """Payoffs of positions 0 and 1 from one ACPC dealer log line.

    ``STATE:<hand>:<betting>:<hole 0>|<hole 1>/<flop>/<turn>/<river>:<payoffs>:<names>``. The betting is
    replayed under the rules and showdowns are evaluated; the line's own payoffs, when present, must
    agree. Malformed or illegal lines raise ``ValueError``.
    """
    parts = line.strip().split(":")
    if len(parts) < 4 or parts[0] != "STATE":
        raise ValueError(f"not an ACPC STATE line: {line!r}")
    _, hand_no, betting, cards_text, *rest = parts
    if not hand_no.isdigit():
        raise ValueError(f"bad hand number {hand_no!r} in {line!r}")
    state = HandState()
    rounds = betting.split("/")
    if len(rounds) > 4:
        raise ValueError(f"betting {betting!r} has more than four rounds")
    for rnd, text in enumerate(rounds):
        if rnd != state.round and text:
            raise ValueError(f"betting {betting!r}: round {rnd} has actions but the betting is in round {state.round}")
        pos = 0
        for m in _ACTION.finditer(text):
            if m.start() != pos:
                break
            pos = m.end()
            tok = m.group()
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
            raise ValueError(f"bad betting {betting!r} near {text[pos:]!r}")
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
        raise ValueError(f"repeated card in {cards_text!r}")
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
    return p
