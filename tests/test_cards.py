import numpy as np
import pytest

from pokerduel.engine.cards import card_index, card_str, format_cards, parse_cards


def test_card_integers_follow_acpc_convention():
    assert card_index("2c") == 0 and card_index("2d") == 1 and card_index("2s") == 3
    assert card_index("As") == 51 and card_index("Td") == 8 * 4 + 1
    assert [card_str(c) for c in range(52)] == [r + s for r in "23456789TJQKA" for s in "cdhs"]


def test_parse_cards_round_trip():
    cards = parse_cards("As Kd 7h")
    assert cards.dtype == np.uint8 and cards.tolist() == [51, 45, 22]
    assert parse_cards("AsKd7h").tolist() == cards.tolist()
    assert format_cards(cards) == "AsKd7h"
    assert parse_cards("").size == 0


@pytest.mark.parametrize("text, token", [("As Kx", "Kx"), ("1c", "1c"), ("As As", "As"), ("10c", None)])
def test_parse_cards_names_the_offending_token(text, token):
    with pytest.raises(ValueError) as err:
        parse_cards(text)
    if token:
        assert repr(token) in str(err.value)
