"""What a player is to the engine: a kind code, a parameter vector and per-opponent memory sizes.

The numba match loop never calls Python: it dispatches on ``kind`` to a kernel (``policy.act``) that
reads ``params`` (float64, e.g. bot exponents or a genome) and may read and write the player's memory
(``imem`` int64, ``fmem`` float64). A match keeps one memory bank per half of a duplicate match, each
reset by ``policy.reset`` when the match starts, so the two mirrored matches never share memory.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

# Kind codes, dispatched in policy.py. Saved files and tests rely on these values: new kinds go at the end.
RANDOM, CALLING_MACHINE, SCARED_LIMPER, HOTHEAD_MANIAC, CANDID_STATISTICIAN, ASHE = range(6)
TIGHT_AGGRESSIVE, LOOSE_PASSIVE, BLUFFER, CHECK_RAISER, POT_ODDS = range(6, 11)
ASHE1 = 11  # ASHE 1.0's player (players/ashe1.py)
#: the evolved players' models (``AsheSettings.model``) and their kinds: ``ashe2`` the PRT with the OFRE and SWRE
#: estimators and one-step expected utility, ``ashe1`` ASHE 1.0's LSTM modules, decision network and Algorithm 1
MODELS = {"ashe2": ASHE, "ashe1": ASHE1}


@dataclass(frozen=True, eq=False)
class Player:
    """A player the engine can run in nopython mode."""

    name: str
    kind: int
    params: np.ndarray = field(default_factory=lambda: np.zeros(0))
    n_imem: int = 0  # int64 memory words per bank
    n_fmem: int = 0  # float64 memory words per bank
    uses_hand_strength: bool = False

    def __post_init__(self):
        object.__setattr__(self, "params", np.ascontiguousarray(self.params, dtype=np.float64))

    @property
    def memory_widths(self) -> tuple[int, int]:
        """Words per bank of ``new_memory``'s two arrays (at least one each)."""
        return max(self.n_imem, 1), max(self.n_fmem, 1)

    def new_memory(self) -> tuple[np.ndarray, np.ndarray]:
        """Fresh memory for the two halves of a duplicate match: ``(imem[2, n_imem], fmem[2, n_fmem])``."""
        ni, nf = self.memory_widths
        return np.zeros((2, ni), np.int64), np.zeros((2, nf), np.float64)

    def __repr__(self) -> str:
        return f"Player({self.name!r})"


def random_bot() -> Player:
    """Uniform over the distinct legal actions among fold, check/call, 0.5/1/1.5/2 pot raises and all-in."""
    return Player("random", RANDOM)


def calling_machine() -> Player:
    """ASHE 1.0 Calling Machine: always check or call."""
    return Player("calling-machine", CALLING_MACHINE)


def scared_limper(exponent: float = 50.0) -> Player:
    """ASHE 1.0 Scared Limper: limps on the button, then Algorithm 1 with o = HS**50."""
    return Player("scared-limper", SCARED_LIMPER, np.array([_positive("exponent", exponent)]), uses_hand_strength=True)


def hothead_maniac(unraised: float = 1.0, raised: float = 2.0) -> Player:
    """ASHE 1.0 Hothead Maniac: raises the pot unless raised, then re-raises twice the pot (sizes in pots,
    multiples of 0.5)."""
    sizes = [_halves("unraised", unraised), _halves("raised", raised)]
    return Player("hothead-maniac", HOTHEAD_MANIAC, np.array(sizes))


def candid_statistician(exponent: float = 7.0) -> Player:
    """ASHE 1.0 Candid Statistician: bets honestly, Algorithm 1 with o = HS**7."""
    return Player("candid-statistician", CANDID_STATISTICIAN, np.array([_positive("exponent", exponent)]),
                  uses_hand_strength=True)


# ---------------------------------------------------------------- the held-out test panel
# Rules in players/heldout_bots.py and docs/players.md ("Held-out test panel"). Thresholds are hand
# strengths (P(win) + P(tie)/2 against a random hand), sizes are in pots after calling (multiples of 0.5).


def _positive(name: str, value: float) -> float:
    """An exponent of Algorithm 1's odds ``o = HS**exponent``: a finite positive number."""
    value = float(value)
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite positive number, got {value!r}")
    return value


def _check_unit(name: str, value: float) -> float:
    """A probability or hand-strength threshold: a number in [0, 1]."""
    value = float(value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return value


def _halves(name: str, pots: float) -> float:
    """A raise size in pots (a positive multiple of 0.5, at most 1,000: any size from 100 pots up is
    the all-in) as the kernels' count of half pots."""
    halves = 2 * float(pots)
    if not (1 <= halves <= 2000 and halves == int(halves)):
        raise ValueError(f"{name} must be a multiple of 0.5 pots from 0.5 to 1000, got {pots!r}")
    return halves


def tight_aggressive(play_pre: float = 0.57, strong_pre: float = 0.65, play_post: float = 0.70,
                     strong_post: float = 0.85, size: float = 1.0) -> Player:
    """Tight-aggressive: folds hands below ``play`` to any bet; bets or raises ``size`` pots with playable
    hands when not facing a raise, calls a raise, re-raises it only at or above ``strong`` (preflop
    thresholds about the best 25 % and 5 % of starting hands, postflop their own)."""
    params = [_check_unit("play_pre", play_pre), _check_unit("strong_pre", strong_pre),
              _check_unit("play_post", play_post), _check_unit("strong_post", strong_post), _halves("size", size)]
    return Player("tight-aggressive", TIGHT_AGGRESSIVE, np.array(params), uses_hand_strength=True)


def loose_passive(fold_below: float = 0.40, large: float = 1.0, nuts: float = 0.95, size: float = 1.0) -> Player:
    """Loose-passive: checks or calls; folds only a hand below ``fold_below`` facing a bet of at least
    ``large`` times the pot it was made into; raises ``size`` pots only with ``hs >= nuts``."""
    if not float(large) >= 0:
        raise ValueError(f"large must be a non-negative multiple of the pot, got {large!r}")
    params = [_check_unit("fold_below", fold_below), float(large), _check_unit("nuts", nuts), _halves("size", size)]
    return Player("loose-passive", LOOSE_PASSIVE, np.array(params), uses_hand_strength=True)


def bluffer(weak: float = 0.45, strong: float = 0.75, bluff: float = 0.30, shove: float = 0.25,
            bluff_size: float = 2.0, value_size: float = 0.5) -> Player:
    """Bluffer: with ``hs < weak`` bets big with probability ``bluff`` (all-in with probability ``shove``,
    otherwise ``bluff_size`` pots) and gives up otherwise; checks or calls medium hands; bets ``value_size``
    pots with ``hs >= strong``."""
    params = [_check_unit("weak", weak), _check_unit("strong", strong), _check_unit("bluff", bluff),
              _check_unit("shove", shove), _halves("bluff_size", bluff_size), _halves("value_size", value_size)]
    return Player("bluffer", BLUFFER, np.array(params), uses_hand_strength=True)


def check_raiser(medium: float = 0.50, strong: float = 0.75, bluff: float = 0.15, size: float = 2.0) -> Player:
    """Check-raiser: never bets first; bet into, raises ``size`` pots with ``hs >= strong``, calls with
    ``hs >= medium``, folds the rest except for check-raise bluffs (probability ``bluff``) out of position."""
    params = [_check_unit("medium", medium), _check_unit("strong", strong), _check_unit("bluff", bluff),
              _halves("size", size)]
    return Player("check-raiser", CHECK_RAISER, np.array(params), uses_hand_strength=True)


def pot_odds(margin: float = 0.60, size: float = 1.0) -> Player:
    """Pot-odds player: folds when the hand strength is below the pot odds ``q``, raises ``size`` pots when
    it is at least ``q + margin * (1 - q)``, checks or calls otherwise."""
    return Player("pot-odds", POT_ODDS, np.array([_check_unit("margin", margin), _halves("size", size)]),
                  uses_hand_strength=True)


BOTS = {
    "random": random_bot,
    "calling-machine": calling_machine,
    "scared-limper": scared_limper,
    "hothead-maniac": hothead_maniac,
    "candid-statistician": candid_statistician,
    "tight-aggressive": tight_aggressive,
    "loose-passive": loose_passive,
    "bluffer": bluffer,
    "check-raiser": check_raiser,
    "pot-odds": pot_odds,
}

# The ASHE 1.0 bots: the rule-based opponents players are trained against.
TRAINING_BOTS = ("scared-limper", "calling-machine", "hothead-maniac", "candid-statistician")

# Opponents kept out of every training preset and default, so that results against them measure how
# players generalise to styles they never met.
HELDOUT_BOTS = ("tight-aggressive", "loose-passive", "bluffer", "check-raiser", "pot-odds")


# Player specs other than bot names are resolved by higher layers, so that this layer imports nothing
# above it: a resolver takes the spec and returns a ``Player``, or ``None`` when the spec is not of its
# kind. A module registers its resolver when it is imported (``register_spec_resolver``); ``SPEC_PLUGINS``
# names the modules that do, imported on the first spec no registered resolver takes, so that
# ``make_player`` resolves every spec whatever was imported before.
SPEC_RESOLVERS: list[Callable[[str], Player | None]] = []
SPEC_PLUGINS: list[str] = [
    "pokerduel.players.genomes",    # handbuilt, the hand-built reference ASHE player
    "pokerduel.play.populations",   # FILE.h5:INDEX, an ASHE player of a population file
    "pokerduel.evolution.evolve",   # RUN.h5:champion[:G] and RUN.h5:INDEX of an evolution run file
]


def register_spec_resolver(resolver: Callable[[str], Player | None]) -> None:
    """Let ``make_player`` resolve specs with ``resolver(spec) -> Player | None`` (idempotent)."""
    if resolver not in SPEC_RESOLVERS:
        SPEC_RESOLVERS.append(resolver)


def _resolve_spec(spec: str) -> Player | None:
    for resolver in SPEC_RESOLVERS:
        player = resolver(spec)
        if player is not None:
            return player
    return None


_BOT_SPEC = re.compile(r"^([a-z-]+)\((.*)\)$")


def bot_from_spec(spec: str) -> Player | None:
    """The bot a spec names: a name in ``BOTS``, or ``NAME(key=value, ...)`` with the bot's rule constants
    (e.g. ``candid-statistician(exponent=15)``, named by its constants); ``None`` if the spec names no bot.
    ``ValueError`` for an unknown constant or a value the bot does not accept."""
    if spec in BOTS:
        return BOTS[spec]()
    m = _BOT_SPEC.match(spec.replace(" ", ""))
    if m is None or m.group(1) not in BOTS:
        return None
    name, body = m.groups()
    make = BOTS[name]
    known = list(inspect.signature(make).parameters)
    kwargs = {}
    for item in filter(None, body.split(",")):
        key, eq, value = item.partition("=")
        if not eq or key not in known or key in kwargs:
            raise ValueError(f"bot spec {spec!r}: expected {name}(key=value, ...) with each key once, one of "
                             f"{', '.join(known) or '(none)'}")
        try:
            kwargs[key] = float(value)
        except ValueError:
            raise ValueError(f"bot spec {spec!r}: {key} must be a number, got {value!r}") from None
    player = make(**kwargs)
    label = f"{name}({', '.join(f'{k}={v:g}' for k, v in kwargs.items())})" if kwargs else name
    object.__setattr__(player, "name", label)
    return player


def split_specs(text: str) -> tuple[str, ...]:
    """Player specs from a comma-separated list, keeping the commas inside ``NAME(key=value, ...)``."""
    specs, depth, start = [], 0, 0
    for i, ch in enumerate(text + ","):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            specs.append(text[start:i].strip())
            start = i + 1
    return tuple(s for s in specs if s)


def make_player(spec: "str | Player") -> Player:
    """A player from a spec: a bot (a name in ``BOTS``, or ``NAME(key=value, ...)``, ``bot_from_spec``),
    ``FILE.h5:INDEX`` for an ASHE player of a population file or of an evolution run's current population,
    ``RUN.h5:champion[:G]`` for a run's champion, ``handbuilt`` for the hand-built reference ASHE player, or a
    ``Player`` (returned as is)."""
    if isinstance(spec, Player):
        return spec
    bot = bot_from_spec(spec) if isinstance(spec, str) else None
    if bot is not None:
        return bot
    if isinstance(spec, str):
        player = _resolve_spec(spec)
        if player is None:
            for module in SPEC_PLUGINS:
                importlib.import_module(module)
            player = _resolve_spec(spec)
        if player is not None:
            return player
    raise ValueError(f"unknown player {spec!r}; choose one of {', '.join(BOTS)} (or NAME(key=value, ...) "
                     "with its rule constants), FILE.h5:INDEX for a "
                     "player of a population or run file, RUN.h5:champion[:GENERATION], or handbuilt")
