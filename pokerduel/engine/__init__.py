"""Heads-up no-limit hold'em engine: cards, evaluator, ACPC rules, deck streams and hand histories."""

from .cards import CATEGORY_NAMES, card_index, card_str, format_cards, parse_cards
from .evaluator import category, category_name, eval7, evaluate

__all__ = [
    "CATEGORY_NAMES",
    "card_index",
    "card_str",
    "category",
    "category_name",
    "eval7",
    "evaluate",
    "format_cards",
    "parse_cards",
]
