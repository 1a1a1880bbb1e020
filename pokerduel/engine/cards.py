"""Card integers and their text form.

A card is ``rank * 4 + suit`` with ranks ``23456789TJQKA`` (0..12) and suits ``cdhs`` (0..3), so
2c = 0, 2d = 1, ..., As = 51. This is the ACPC dealer's ``makeCard`` and phevaluator's convention.
"""

from __future__ import annotations

import numpy as np

RANKS = "23456789TJQKA"
SUITS = "cdhs"
N_CARDS = 52

CATEGORY_NAMES = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)


def card_index(token: str) -> int:
    """Integer of one card such as ``"As"`` or ``"td"`` (rank letter case-insensitive, ``T`` for ten)."""
    if not isinstance(token, str) or len(token) != 2:
        raise ValueError(
            f"bad card {token!r}: a card is a rank from {RANKS!r} followed by a suit from {SUITS!r}, e.g. 'As'"
        )
    rank = RANKS.find(token[0].upper())
    suit = SUITS.find(token[1].lower())
    if rank < 0 or suit < 0:
        raise ValueError(
            f"bad card {token!r}: a card is a rank from {RANKS!r} followed by a suit from {SUITS!r}, e.g. 'As'"
        )
    return rank * 4 + suit


def card_str(card: int) -> str:
    """Text of one card integer, e.g. ``51 -> "As"``."""
    card = int(card)
    if not 0 <= card < N_CARDS:
        raise ValueError(f"bad card integer {card}: cards are 0..51")
    return RANKS[card >> 2] + SUITS[card & 3]


def parse_cards(text: str) -> np.ndarray:
    """Parse ``"As Kd 7h"`` or ``"AsKd7h"`` into a uint8 array; raise ``ValueError`` on bad or repeated cards."""
    if not isinstance(text, str):
        raise ValueError(f"parse_cards takes a string such as 'As Kd 7h', got {type(text).__name__}")
    compact = "".join(text.split())
    if len(compact) % 2:
        raise ValueError(f"bad card string {text!r}: every card is two characters (rank then suit)")
    out = np.empty(len(compact) // 2, dtype=np.uint8)
    seen: dict[int, str] = {}
    for i in range(0, len(compact), 2):
        token = compact[i : i + 2]
        card = card_index(token)
        if card in seen:
            raise ValueError(f"duplicate card {token!r} in {text!r}")
        seen[card] = token
        out[i // 2] = card
    return out


def format_cards(cards) -> str:
    """Concatenated text of a sequence of card integers, e.g. ``[51, 46] -> "AsKd"``."""
    return "".join(card_str(c) for c in cards)
