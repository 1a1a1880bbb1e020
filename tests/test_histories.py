"""Hand histories: PHH export checked by pokerkit, ACPC log lines written and replayed.

Truth comes from outside ``histories.py``: pokerkit replays the PHH files and the ACPC lines (parsed
here with a separate small parser), the match records carry the payoffs the engine paid, and the
hand-written lines have payoffs worked out by hand in the comments.
"""

import re

import numpy as np
import pytest

from pokerduel.engine.cards import format_cards, parse_cards
from pokerduel.engine.histories import hand_to_acpc, hand_to_phh, replay_acpc, write_phhs
from pokerduel.engine.rules import BIG_BLIND, CALL, FOLD, RAISE, STACK, HandState
from pokerduel.play.matches import play_duplicate

try:
    import pokerkit  # noqa: F401  (test extra; the tests that need it skip without it)

    HAVE_POKERKIT = True
except ImportError:
    HAVE_POKERKIT = False

MATCHES = (  # (player A, player B, deals): thousands of hands with every kind of ending
    ("random", "random", 2000),
    ("candid-statistician", "hothead-maniac", 300),
    ("scared-limper", "random", 300),
    ("candid-statistician", "calling-machine", 300),  # long hands: river betting and check-downs
)


def _records(seed):
    out = []
    for a, b, n in MATCHES:
        res = play_duplicate(a, b, n, seed=seed, records=True)
        assert res.invalid_actions == 0
        assert len(res.records) == 2 * n
        out += res.records
    return out


@pytest.fixture(scope="module")
def phh_records():
    return _records(seed=101)


@pytest.fixture(scope="module")
def acpc_records():
    return _records(seed=202)


def _features(actions):
    """Replay a record with HandState and classify it, with the minimum raise worked out independently.

    A short all-in is a raise to the whole stack whose increment is below the minimum increment (the
    largest increment so far in the round, at least the big blind). HandState must then offer the
    all-in as the only raise; otherwise its minimum must be the independently computed one.
    """
    h = HandState()
    f = dict(all_in=0, short_all_in=0, postflop_raise=0, all_in_before_river=0)
    rnd, largest = -1, 0
    for r, actor, action, amount in actions:
        if r != rnd:
            rnd, largest = r, BIG_BLIND
        if action == RAISE:
            top = max(h.spent)
            legal = h.legal_actions()
            if top + largest > STACK:
                assert (legal.min_raise_to, legal.max_raise_to) == (STACK, STACK)
            else:
                assert (legal.min_raise_to, legal.max_raise_to) == (top + largest, STACK)
            if amount == STACK:
                f["all_in"] += 1
                f["short_all_in"] += STACK - top < largest
            f["postflop_raise"] += r > 0
            largest = max(largest, amount - top)
        {FOLD: h.fold, CALL: h.call}.get(action, lambda: h.raise_to(amount))()
    assert h.finished
    f["showdown"] = int(h.showdown)
    f["fold"] = int(not h.showdown)
    f["all_in_before_river"] = int(h.showdown and max(h.spent) == STACK and actions[-1][0] < 3)
    f["river"] = int(actions[-1][0] == 3)
    return f


def _coverage(records):
    total = {}
    for rec in records:
        for k, v in _features(rec.actions).items():
            total[k] = total.get(k, 0) + v
    return total


def _assert_covers(total):
    assert total["all_in"] >= 200, total
    assert total["short_all_in"] >= 20, total
    assert total["showdown"] >= 300 and total["fold"] >= 300, total
    assert total["all_in_before_river"] >= 100, total
    assert total["postflop_raise"] >= 300 and total["river"] >= 200, total


# --------------------------------------------------------------------------------------------------
# PHH


@pytest.mark.slow
def test_phh_export_replays_in_pokerkit_with_the_record_payoffs(tmp_path, phh_records):
    pokerkit = pytest.importorskip("pokerkit")
    records = phh_records
    _assert_covers(_coverage(records))
    path = tmp_path / "hands.phhs"
    assert write_phhs(path, records) == len(records)
    with open(path, "rb") as fh:
        histories = list(pokerkit.HandHistory.load_all(fh))
    assert len(histories) == len(records)
    player_ops = (pokerkit.Folding, pokerkit.CheckingOrCalling, pokerkit.CompletionBettingOrRaisingTo)
    codes = {pokerkit.Folding: FOLD, pokerkit.CheckingOrCalling: CALL, pokerkit.CompletionBettingOrRaisingTo: RAISE}
    for n, (rec, hh) in enumerate(zip(records, histories), start=1):
        assert hh.hand == n and hh.players == list(rec.names)
        pending = list(rec.actions)
        state = None
        for state, text in hh.state_actions:
            if text is None or text.split()[1] not in ("f", "cc", "cbr"):
                continue
            _, actor, action, amount = pending.pop(0)
            assert text.startswith(f"p{actor + 1} ")
            if action == RAISE:  # pokerkit's stack says what the raiser has put in over the whole hand
                assert STACK - state.stacks[actor] == amount, (n, text)
        assert not pending and not state.status
        # pokerkit repairs unparsable actions with checks or folds; none may have been needed
        ops = [op for op in state.operations if isinstance(op, player_ops)]
        assert [(op.player_index, codes[type(op)]) for op in ops] == [(a[1], a[2]) for a in rec.actions]
        dealt = "".join(repr(c) for board in state.board_cards for c in board)
        board = format_cards(rec.cards[4:9])
        reached = 3 if rec.actions[-1][2] == CALL else rec.actions[-1][0]  # a hand ends by a fold or a closing call
        assert dealt == board[: 2 * (0, 3, 4, 5)[reached]]
        assert tuple(state.payoffs) == tuple(rec.payoffs), (n, rec)


SPELLED_CARDS = parse_cards("AsKd 7h7c 2c8dJs 4h 9s")  # position 0: AsKd; position 1: 7h7c
SPELLED_ACTIONS = [
    (0, 1, RAISE, 300),
    (0, 0, CALL, 0),
    (1, 0, RAISE, 500),  # whole-hand 500 = flop bet of 200
    (1, 1, RAISE, 1200),  # flop raise to 900
    (1, 0, CALL, 0),
    (2, 0, CALL, 0),
    (2, 1, RAISE, 2000),  # turn bet of 800
    (2, 0, CALL, 0),
    (3, 0, CALL, 0),
    (3, 1, CALL, 0),
]


def test_hand_to_phh_spelled_out():
    text = hand_to_phh(SPELLED_CARDS, SPELLED_ACTIONS, names=["alice", "bob"], hand=7)
    assert text == (
        "variant = 'NT'\n"
        "ante_trimming_status = true\n"
        "antes = [0, 0]\n"
        "blinds_or_straddles = [50, 100]\n"
        "min_bet = 100\n"
        "starting_stacks = [20000, 20000]\n"
        "actions = ['d dh p1 AsKd', 'd dh p2 7h7c', 'p2 cbr 300', 'p1 cc', 'd db 2c8dJs', 'p1 cbr 200', "
        "'p2 cbr 900', 'p1 cc', 'd db 4h', 'p1 cc', 'p2 cbr 800', 'p1 cc', 'd db 9s', 'p1 cc', 'p2 cc', "
        "'p1 sm AsKd', 'p2 sm 7h7c']\n"
        'players = ["alice", "bob"]\n'
        "hand = 7\n"
        "seat_count = 2\n"
        "seats = [1, 2]\n"
        "finishing_stacks = [18000, 22000]\n"  # 7h7c (position 1) wins the 2000 each put in
    )
    # Without names and hand number those fields are left out; the result fields are always there.
    # The button folds its small blind: position 0 ends 50 up. Seats follow the players, not the positions.
    assert hand_to_phh(SPELLED_CARDS, [(0, 1, FOLD, 0)], seats=(2, 1)).endswith(
        "actions = ['d dh p1 AsKd', 'd dh p2 7h7c', 'p2 f']\n"
        "seat_count = 2\nseats = [2, 1]\nfinishing_stacks = [20050, 19950]\n"
    )


def test_hand_to_phh_all_in_shows_before_the_runout():
    # Button raises to 12000, the big blind moves in for 20000 (a short all-in), the button calls:
    # the last aggressor (p1 = position 0) shows first, then the whole board is dealt.
    actions = [(0, 1, RAISE, 12000), (0, 0, RAISE, 20000), (0, 1, CALL, 0)]
    text = hand_to_phh(SPELLED_CARDS, actions)
    assert ("actions = ['d dh p1 AsKd', 'd dh p2 7h7c', 'p2 cbr 12000', 'p1 cbr 20000', 'p2 cc', "
            "'p1 sm AsKd', 'p2 sm 7h7c', 'd db 2c8dJs', 'd db 4h', 'd db 9s']\n") in text


def test_hand_to_phh_spelled_out_in_pokerkit():
    pokerkit = pytest.importorskip("pokerkit")
    # 7h7c (position 1) pairs sevens on 2c 8d Js 4h 9s; AsKd has ace high: position 1 wins the 2000 each put in.
    hh = pokerkit.HandHistory.loads(hand_to_phh(SPELLED_CARDS, SPELLED_ACTIONS, names=['a "quoted" name', "b\\c"]))
    *_, state = iter(hh)
    assert tuple(state.payoffs) == (-2000, 2000)
    assert hh.players == ['a "quoted" name', "b\\c"]


def test_hand_to_phh_checks_payoffs_and_seats():
    assert "finishing_stacks = [18000, 22000]" in hand_to_phh(SPELLED_CARDS, SPELLED_ACTIONS, payoffs=(-2000, 2000))
    with pytest.raises(ValueError, match="disagree"):
        hand_to_phh(SPELLED_CARDS, SPELLED_ACTIONS, payoffs=(2000, -2000))
    with pytest.raises(ValueError, match="disagree"):  # the button's fold loses its small blind, not the big
        hand_to_phh(SPELLED_CARDS, [(0, 1, FOLD, 0)], payoffs=(100, -100))
    for seats in ((1, 1), (0, 1), (1, 2, 3), "ab"):
        with pytest.raises(ValueError, match="seat"):
            hand_to_phh(SPELLED_CARDS, [(0, 1, FOLD, 0)], seats=seats)


def _result_matches():
    """(player A, player B, deals): bots, random and ASHE, a few hundred hands in all."""
    from pokerduel.players.genomes import ashe_player, handbuilt_genome

    return (
        ("random", "random", 60),  # same names: the seats tell A from B
        ("candid-statistician", "hothead-maniac", 40),  # all-ins
        ("candid-statistician", "calling-machine", 40),  # showdowns after river betting
        ("scared-limper", "random", 40),
        (ashe_player(handbuilt_genome()), "hothead-maniac", 40),
        ("candid-statistician", ashe_player(handbuilt_genome()), 40),
    )


def test_phh_finishing_stacks_are_where_pokerkit_ends(tmp_path):
    """pokerkit's replay of every exported hand ends at the written stacks: 20000 plus the engine's payoffs."""
    pokerkit = pytest.importorskip("pokerkit")
    records, pairs = [], []
    for a, b, n in _result_matches():
        res = play_duplicate(a, b, n, seed=303, records=True, hs_samples=100)
        assert res.invalid_actions == 0 and len(res.records) == 2 * n
        records += res.records
        pairs += [res.names] * len(res.records)
    total = _coverage(records)
    assert total["showdown"] >= 50 and total["fold"] >= 50 and total["all_in"] >= 20, total
    path = tmp_path / "hands.phhs"
    assert write_phhs(path, records) == len(records)
    with open(path, "rb") as fh:
        histories = list(pokerkit.HandHistory.load_all(fh))
    assert len(histories) == len(records)
    for n, (rec, (name_a, name_b), hh) in enumerate(zip(records, pairs, histories), start=1):
        expected = [STACK + int(rec.payoffs[0]), STACK + int(rec.payoffs[1])]
        assert hh.finishing_stacks == expected, (n, rec)
        assert hh.seat_count == 2
        assert hh.seats[rec.half] == 1 and hh.seats[1 - rec.half] == 2  # A in seat 1 at position ``half``
        assert hh.players[rec.half] == name_a and hh.players[1 - rec.half] == name_b
        *_, state = iter(hh)
        assert not state.status
        assert list(state.stacks) == hh.finishing_stacks, (n, rec)
        # The single-hand loader reads the same fields.
        one = pokerkit.HandHistory.loads(hand_to_phh(rec.cards, rec.actions, seats=hh.seats))
        assert one.finishing_stacks == expected and one.seats == hh.seats


def test_hand_to_phh_rejects_malformed_actions():
    with pytest.raises(ValueError, match="position 1 is to act"):
        hand_to_phh(SPELLED_CARDS, [(0, 0, CALL, 0)])  # the button acts first preflop
    with pytest.raises(ValueError, match="not finished"):
        hand_to_phh(SPELLED_CARDS, SPELLED_ACTIONS[:-1])
    with pytest.raises(ValueError, match="not finished"):
        hand_to_phh(SPELLED_CARDS, [])
    with pytest.raises(ValueError, match="round"):  # the flop bet marked as a preflop action
        hand_to_phh(SPELLED_CARDS, SPELLED_ACTIONS[:2] + [(0, 0, RAISE, 500)] + SPELLED_ACTIONS[3:])
    with pytest.raises(ValueError, match="after the end"):
        hand_to_phh(SPELLED_CARDS, [(0, 1, FOLD, 0), (0, 0, CALL, 0)])
    with pytest.raises(ValueError, match="out of range"):
        hand_to_phh(SPELLED_CARDS, [(0, 1, RAISE, 150), (0, 0, FOLD, 0)])
    with pytest.raises(ValueError, match="unknown action"):
        hand_to_phh(SPELLED_CARDS, [(0, 1, 7, 0)])
    with pytest.raises(ValueError, match="repeated card"):
        hand_to_phh(parse_cards("AsKd 7h7c 2c8dJs 4h 9s")[[0, 1, 2, 3, 4, 5, 6, 7, 0]], [(0, 1, FOLD, 0)])


# --------------------------------------------------------------------------------------------------
# ACPC

_TOKEN = re.compile(r"f|c|r\d+")


def _pokerkit_line_payoffs(line):
    """Replay an ACPC log line in pokerkit with a parser independent of ``replay_acpc``.

    Checks that every action sits in the betting round pokerkit is in and that the line shows exactly
    the board pokerkit dealt; returns pokerkit's payoffs.
    """
    from pokerduel.engine import pokerkit_bridge as oracle

    tag, _, betting, cards_text, _, _ = line.split(":")
    assert tag == "STATE"
    holes, *board = cards_text.split("/")
    cards = parse_cards(holes.replace("|", "") + "".join(board))
    st = oracle.new_state(cards)
    for rnd, segment in enumerate(betting.split("/")):
        assert "".join(_TOKEN.findall(segment)) == segment
        for tok in _TOKEN.findall(segment):
            oracle.deal_pending_board(st, cards)
            assert st.street_index == rnd, (line, tok)
            oracle.apply(st, {"f": 0, "c": 1}.get(tok[0], 2), int(tok[1:] or 0))
    oracle.deal_pending_board(st, cards)
    assert not st.status
    assert sum(len(b) for b in st.board_cards) == len(cards) - 4  # the line shows exactly the dealt board
    return tuple(st.payoffs)


@pytest.mark.slow
def test_acpc_lines_of_played_hands_replay_to_the_record_payoffs(acpc_records):
    pytest.importorskip("pokerkit")
    records = acpc_records
    _assert_covers(_coverage(records))
    for n, rec in enumerate(records):
        line = hand_to_acpc(n, rec.cards, rec.actions, rec.payoffs, rec.names)
        assert line.startswith(f"STATE:{n}:")
        assert line.endswith(f":{rec.payoffs[0]}|{rec.payoffs[1]}:{rec.names[0]}|{rec.names[1]}")
        assert replay_acpc(line) == tuple(rec.payoffs), line
        assert _pokerkit_line_payoffs(line) == tuple(rec.payoffs), line


CAPPED = "".join(f"r{200 + 100 * k}" for k in range(63))  # 63 min-raises, the last by the button to 6400

# Each payoff below is worked out by hand in the comment.
GOOD_LINES = [
    # The button (position 1) folds preflop and loses its small blind.
    ("STATE:0:f:AsKd|7h7c:50|-50:alice|bob", (50, -50)),
    # The button limps, the big blind raises to 300, the button folds: it loses 100.
    ("STATE:1:cr300f:AsKd|7h7c:100|-100:alice|bob", (100, -100)),
    # 300 each; on 2c 8d Js 4h 9s position 1's sevens beat ace high.
    ("STATE:2:r300c/cc/cc/cc:AsKd|7h7c/2c8dJs/4h/9s:-300|300:bob|alice", (-300, 300)),
    # Position 0 folds to a turn bet after 800 went in each: board shown up to the turn only.
    ("STATE:3:r250c/r350r800c/cr1800f:AsKd|7h7c/2c8dJs/4h:-800|800:alice|bob", (-800, 800)),
    # The board T J Q K A straight plays for both (no flush possible): split pot.
    ("STATE:4:cc/r200c/cc/cc:2c3d|4h5s/TsJdQc/Kh/Ad:0|0:alice|bob", (0, 0)),
    # All-in and call preflop, the whole board is dealt: aces beat kings on 2h 7c 9s 3d 4c.
    ("STATE:5:r20000c///:AsAd|KcKd/2h7c9s/3d/4c:20000|-20000:bob|alice", (20000, -20000)),
    # Short all-in (increment 8000 < 11900) called: queens beat 7-2 on 3c 8d Kh 4s 9c.
    ("STATE:6:r12000r20000c///:7s2d|QhQs/3c8dKh/4s/9c:-20000|20000:alice|bob", (-20000, 20000)),
    # All-in on the flop after a limp: 20000 each, position 0's aces beat 7-2.
    ("STATE:7:cc/r20000c//:AhAc|2s7d/Kd9h4c/Js/3s:20000|-20000:alice|bob", (20000, -20000)),
    # 63 raises cap the preflop round at 6400 each; the big blind calls; aces win.
    (f"STATE:8:{CAPPED}c/cc/cc/cc:AhAc|2s7d/Kd9h4c/Js/3s:6400|-6400:alice|bob", (6400, -6400)),
]


@pytest.mark.parametrize("line, payoffs", GOOD_LINES)
def test_replay_acpc_hand_written(line, payoffs):
    assert replay_acpc(line) == payoffs
    assert replay_acpc(line.rsplit(":", 2)[0]) == payoffs  # payoffs and names are optional
    if HAVE_POKERKIT:
        assert _pokerkit_line_payoffs(line) == payoffs


def test_hand_to_acpc_spelled_out():
    line = hand_to_acpc(7, SPELLED_CARDS, SPELLED_ACTIONS, (-2000, 2000), ("alice", "bob"))
    assert line == "STATE:7:r300c/r500r1200c/cr2000c/cc:AsKd|7h7c/2c8dJs/4h/9s:-2000|2000:alice|bob"
    allin = [(0, 1, RAISE, 20000), (0, 0, CALL, 0)]  # AsKd vs 7h7c: sevens hold
    assert hand_to_acpc(0, SPELLED_CARDS, allin, (-20000, 20000), ("a", "b")) == (
        "STATE:0:r20000c///:AsKd|7h7c/2c8dJs/4h/9s:-20000|20000:a|b"
    )
    fold = [(0, 1, CALL, 0), (0, 0, CALL, 0), (1, 0, RAISE, 300), (1, 1, FOLD, 0)]
    assert hand_to_acpc(3, SPELLED_CARDS, fold, (np.int64(100), np.int64(-100)), ("a", "b")) == (
        "STATE:3:cc/r300f:AsKd|7h7c/2c8dJs:100|-100:a|b"
    )


def test_hand_to_acpc_rejects_bad_input():
    names = ("a", "b")
    with pytest.raises(ValueError, match="not finished"):
        hand_to_acpc(0, SPELLED_CARDS, SPELLED_ACTIONS[:3], (0, 0), names)
    with pytest.raises(ValueError, match="position 1 is to act"):
        hand_to_acpc(0, SPELLED_CARDS, [(0, 0, FOLD, 0)], (0, 0), names)
    with pytest.raises(ValueError, match="name"):
        hand_to_acpc(0, SPELLED_CARDS, [(0, 1, FOLD, 0)], (50, -50), ("a:b", "c"))
    with pytest.raises(ValueError, match="two payoffs"):
        hand_to_acpc(0, SPELLED_CARDS, [(0, 1, FOLD, 0)], (50,), names)
    with pytest.raises(ValueError, match="hand number"):
        hand_to_acpc(-1, SPELLED_CARDS, [(0, 1, FOLD, 0)], (50, -50), names)


SHOWDOWN = "AsKd|7h7c/2c8dJs/4h/9s"

BAD_LINES = [
    ("MATCHSTATE:0:0:f:AsKd|", "not an ACPC STATE line"),
    ("STATE:0:f", "not an ACPC STATE line"),
    ("", "not an ACPC STATE line"),
    ("STATE:x:f:AsKd|7h7c", "bad hand number"),
    ("STATE:0:r300x:AsKd|7h7c", "bad betting"),
    ("STATE:0:k:AsKd|7h7c", "bad betting"),
    ("STATE:0:r:AsKd|7h7c", "bad betting"),
    ("STATE:0:r-300c/cc/cc/cc:" + SHOWDOWN, "bad betting"),
    ("STATE:0:r150c/cc/cc/cc:" + SHOWDOWN, "out of range"),  # below the minimum raise to 200
    ("STATE:0:r300r400c/cc/cc/cc:" + SHOWDOWN, "out of range"),  # re-raise must reach 500
    ("STATE:0:r300c/r350c/cc/cc:" + SHOWDOWN, "out of range"),  # a flop bet is at least one big blind
    ("STATE:0:r20001c///:" + SHOWDOWN, "out of range"),
    ("STATE:0:cf:AsKd|7h7c", "folding is illegal when checking is free"),
    ("STATE:0:r20000r20000c///:" + SHOWDOWN, "no raise is legal"),
    (f"STATE:0:{CAPPED}r6500c/cc/cc/cc:" + SHOWDOWN, "no raise is legal"),  # the 64th action cannot raise
    ("STATE:0:r300c/cc/cc/cc:AsKd|7h7c/2c8dJs/4h", "board groups"),
    ("STATE:0:r20000c///:AsKd|7h7c/2c8dJs", "board groups"),
    ("STATE:0:f:AsKd|7h7c/2c8dJs", "board groups"),
    ("STATE:0:r300c/cc/cc/cc:AsKd|7h7c/2c8dJ/4h/9s", "should hold 3 cards"),
    ("STATE:0:r300c/cc/cc/cc:AsKd|7h7c/2c8dXs/4h/9s", "bad card"),
    ("STATE:0:r300c/cc/cc/cc:AsKd|7h7c|2c/2c8dJs/4h/9s", "two hole-card fields"),
    ("STATE:0:r300c/cc/cc/cc:AsKd|AsQc/2c8dJs/4h/9s", "appears twice"),
    ("STATE:0:r300c/cc/cc/cc:AsKd|7h7c/2c8dJs/4h/Kd", "appears twice"),
    ("STATE:0:f:AsKd|7h7c:-50|50:a|b", "rules give 50|-50"),
    ("STATE:0:r300c/cc/cc/cc:" + SHOWDOWN + ":300|-300:a|b", "rules give -300|300"),
    ("STATE:0:f:AsKd|7h7c:50:a|b", "payoffs"),
    ("STATE:0:f:AsKd|7h7c:fifty|-50:a|b", "bad payoffs"),
    ("STATE:0:r300c/cc:" + SHOWDOWN, "does not finish"),
    ("STATE:0:r300c/:" + SHOWDOWN, "does not finish"),
    ("STATE:0::AsKd|7h7c", "does not finish"),
    ("STATE:0:r300cc/c/cc/cc:" + SHOWDOWN, "round"),  # a missing '/': the flop check written preflop
    ("STATE:0:r300c/cc/cc/cc/:" + SHOWDOWN, "more than four rounds"),
    ("STATE:0:fc:AsKd|7h7c", "after the end of the hand"),
    ("STATE:0:r300f/:AsKd|7h7c", "rounds but the hand ended"),
    ("STATE:0:r20000c:" + SHOWDOWN, "rounds but the hand ended"),
    ("STATE:0:r300c/cc/cc/cc:" + SHOWDOWN + ":-300|300:a|b:extra", "too many"),
]


@pytest.mark.parametrize("line, message", BAD_LINES)
def test_replay_acpc_rejects_malformed_or_illegal_lines(line, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        replay_acpc(line)
