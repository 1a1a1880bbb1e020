"""pokerkit as an independent oracle for our rules: replay hands and query legality (tests and benchmarks).

pokerkit is a test-only dependency (``pip install pokerduel[test]``); importing this module without it
raises ImportError with that hint. Recipe: ``../shared/notes/acpc-engine.md`` section 3.2.
"""

try:
    import pokerkit
except ImportError as err:  # pragma: no cover - exercised only without the test extra
    raise ImportError("pokerkit is needed here: pip install 'pokerduel[test]'") from err

from .cards import format_cards

AUTOMATIONS = (
    pokerkit.Automation.ANTE_POSTING,
    pokerkit.Automation.BET_COLLECTION,
    pokerkit.Automation.BLIND_OR_STRADDLE_POSTING,
    pokerkit.Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    pokerkit.Automation.HAND_KILLING,
    pokerkit.Automation.CHIPS_PUSHING,
    pokerkit.Automation.CHIPS_PULLING,
)
BOARD_SLICES = ((4, 7), (7, 8), (8, 9))


def new_state(cards):
    """A pokerkit state with the deal's hole cards dealt; pokerkit's player i is ACPC position i."""
    st = pokerkit.NoLimitTexasHoldem.create_state(
        AUTOMATIONS, True, 0, (50, 100), 100, (20000, 20000), 2, mode=pokerkit.Mode.TOURNAMENT
    )
    st.deal_hole(format_cards(cards[0:2]))
    st.deal_hole(format_cards(cards[2:4]))
    return st


def deal_pending_board(st, cards):
    """Burn and deal board cards until a player must act or the hand is over."""
    while st.status and st.actor_index is None:
        if st.can_burn_card():
            st.burn_card("??")
        if st.can_deal_board():
            n_dealt = sum(len(b) for b in st.board_cards)
            lo, hi = next(s for s in BOARD_SLICES if s[0] == 4 + n_dealt)
            st.deal_board(format_cards(cards[lo:hi]))
        else:
            break


def acpc_raise_range(st):
    """pokerkit's legal raise range as ACPC whole-hand raise-to totals, or None."""
    if not st.can_complete_bet_or_raise_to():
        return None
    p = st.actor_index
    earlier = 20000 - st.stacks[p] - st.bets[p]
    return (st.min_completion_betting_or_raising_to_amount + earlier,
            st.max_completion_betting_or_raising_to_amount + earlier)


def apply(st, action, amount):
    """Apply an ACPC action (0 fold, 1 call, 2 raise to ``amount``)."""
    if action == 0:
        st.fold()
    elif action == 1:
        st.check_or_call()
    else:
        p = st.actor_index
        st.complete_bet_or_raise_to(amount - (20000 - st.stacks[p] - st.bets[p]))


def replay_payoffs(cards, actions):
    """pokerkit's payoffs for a hand given as (round, actor, action, amount) tuples."""
    st = new_state(cards)
    for _, actor, action, amount in actions:
        deal_pending_board(st, cards)
        assert st.actor_index == actor
        apply(st, action, amount)
    deal_pending_board(st, cards)
    assert not st.status
    return tuple(st.payoffs)
