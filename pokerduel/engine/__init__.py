"""Heads-up no-limit hold'em engine: cards, evaluator, ACPC rules, deck streams and hand histories."""

from .cards import CATEGORY_NAMES, card_index, card_str, format_cards, parse_cards
from .decks import deal_decks
from .evaluator import category, category_name, eval7, evaluate
from .histories import hand_to_acpc, hand_to_phh, replay_acpc, write_phhs
from .rules import BIG_BLIND, SMALL_BLIND, STACK, HandState, LegalActions

__all__ = [
    "BIG_BLIND",
    "CATEGORY_NAMES",
    "HandState",
    "LegalActions",
    "SMALL_BLIND",
    "STACK",
    "card_index",
    "card_str",
    "category",
    "category_name",
    "deal_decks",
    "eval7",
    "evaluate",
    "format_cards",
    "hand_to_acpc",
    "hand_to_phh",
    "parse_cards",
    "replay_acpc",
    "write_phhs",
]
