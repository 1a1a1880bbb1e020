"""The ASHE player settings that ``pokerduel population new`` and ``pokerduel evolve`` both take."""

from __future__ import annotations

import click

from ..players.base import MODELS

_OPTIONS = (
    click.option("--calling-range", type=click.FloatRange(0, 1), default=0.0, show_default=True,
                 help="How far a raise's win rate is taken against the hands that call it (0: the one-step rule)."),
    click.option("--explore", type=click.FloatRange(0, 1), default=0.0, show_default=True,
                 help="Share of the players' folds turned into calls, so that what a fold hides keeps being "
                      "learned."),
    click.option("--read-raises/--own-calls", default=False, show_default=True,
                 help="Facing a raise, the call's street showdown inputs are those of hands in which the opponent "
                      "raised on the street (instead of those after the player's own calls)."),
    click.option("--read-reraises/--own-raises", default=False, show_default=True,
                 help="Facing a raise, a re-raise's street fold inputs are the opponent's answers to the player's "
                      "re-raises on the street (instead of to all its raises of that size there)."),
    click.option("--lookahead/--one-step", default=False, show_default=True,
                 help="Credit a check that opens a street, or a call that closes one before the river, with the "
                      "folds it sets up: the opponent bets next and folds to a raise, or folds to a bet next street."),
    click.option("--read-aggression/--allin-flag", default=False, show_default=True,
                 help="SWRE's all-in flag input (implied by the others) becomes the opponent's raise share on the "
                      "street."),
    click.option("--mark-reraises/--no-mark-reraises", default=False, show_default=True,
                 help="SWRE's all-in flag input becomes the candidate's size class when it raises the opponent's "
                      "raise (0 otherwise), so that a re-raise's win estimate can be lowered by one weight."),
    click.option("--call-option/--showdown-call", default=False, show_default=True,
                 help="Value a check or call with the choices it keeps (fold to a bet, call it, or move all-in once "
                      "the next card has moved the win rate), instead of as a showdown at today's pot."),
    click.option("--anchored/--free-estimates", default=False, show_default=True,
                 help="Read each estimator's output as a correction to an anchor (SWRE: the hand strength; OFRE: the "
                      "PRT's fold rate for the candidate) instead of as the estimate itself."),
    click.option("--option-range", type=click.FloatRange(0, 1), default=0.0, show_default=True,
                 help="With --call-option, how far the option reads the opponent's next bet as coming from its "
                      "strongest hands and its check from its weakest (0: the win rate as it is)."),
    click.option("--raising-range", type=click.FloatRange(0, 1), default=0.0, show_default=True,
                 help="With --anchored, how far SWRE's anchor facing a raise is the win rate against the opponent's "
                      "strongest hands, as many as its raise share on the street (0: against a random hand)."),
    click.option("--option-reraise/--no-option-reraise", default=False, show_default=True,
                 help="With --call-option, the option may also answer the opponent's next bet with a pot-size "
                      "re-raise, folded to as often as the opponent has folded to the player's re-raises there."),
    click.option("--model", type=click.Choice(tuple(MODELS)), default="ashe2", show_default=True,
                 help="ashe2: the PRT with the OFRE and SWRE estimators; ashe1: ASHE 1.0's player, LSTM modules and a "
                      "decision network whose output commits chips by Algorithm 1 (--hidden: its hidden units)."),
    click.option("--decision-output", type=click.Choice(["linear", "logistic"]), default="linear", show_default=True,
                 help="With --model ashe1, the decision network's output unit: linear, or logistic (Algorithm 1's o "
                      "in (0, 1), as the rule-based bots' o)."),
    click.option("--raise-sizes", type=click.Choice(["big-blinds", "pot"]), default="big-blinds", show_default=True,
                 help="With --model ashe1: raises to the nearest big blind (Algorithm 1, as for Table 2), or the "
                      "paper's adjustments for Slumbot (below a quarter pot a call, else 0.5, 1, 1.5, 2 pots or "
                      "all-in)."),
)


def player_settings(command):
    """Add ``--calling-range``, ``--explore``, ``--read-raises``, ``--read-reraises``, ``--lookahead``,
    ``--read-aggression``, ``--mark-reraises``, ``--call-option``, ``--anchored``, ``--option-range``,
    ``--raising-range``, ``--option-reraise``, ``--model``, ``--decision-output`` and ``--raise-sizes``
    (``AsheSettings``) to a click command."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command
