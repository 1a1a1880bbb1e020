"""The held-out test panel: each bot's rules on crafted spots, legality against every bot, the styles its
docstring claims measured from hand histories, distinct styles, and determinism.

Measured frequencies are compared with the rules' values within four binomial standard errors
(``sqrt(p (1 - p) / n)``); with fixed seeds every assertion is deterministic, and a rule change that
moves a frequency by more than a few percent fails.
"""

from __future__ import annotations

import json
from functools import lru_cache

import numpy as np
import pytest

from pokerduel.engine.decks import SALTS, seed_keys, stream_key
from pokerduel.engine.rules import (
    BIG_BLIND,
    CALL,
    FOLD,
    OK,
    RAISE,
    S_MAX_SPENT,
    S_ROUND_ACTIONS,
    STACK,
    STATE_SIZE,
    apply_action,
    check_action,
    new_hand,
    pot,
    raise_range,
    to_call,
)
from pokerduel.play.matches import play_duplicate
from pokerduel.players import base
from pokerduel.players.base import BOTS, HELDOUT_BOTS, TRAINING_BOTS, make_player
from pokerduel.players.hand_strength import DEFAULT_SAMPLES, PREFLOP_HS
from pokerduel.players.heldout_bots import (
    bluffer_act,
    check_raiser_act,
    loose_passive_act,
    pot_odds_act,
    tight_aggressive_act,
)
from pokerduel.players.policy import cached_strength
from tests.test_bots import STATES, spot

KERNELS = {  # name -> (kernel, takes the player's generator word)
    "tight-aggressive": (tight_aggressive_act, False),
    "loose-passive": (loose_passive_act, False),
    "bluffer": (bluffer_act, True),
    "check-raiser": (check_raiser_act, True),
    "pot-odds": (pot_odds_act, False),
}


def decide(name, betting, hs, rng=None, **params):
    """The action of bot ``name`` (factory defaults overridden by ``params``) after ``betting``."""
    kernel, with_rng = KERNELS[name]
    st, pos, lo, hi = spot(betting)
    args = list(BOTS[name](**params).params)
    if with_rng:
        args.append(rng if isinstance(rng, np.ndarray) else np.array([1 if rng is None else rng], np.uint64))
    return kernel(st, pos, lo, hi, hs, *args)


def z_ok(count, n, p, k=4.0):
    """``count`` successes in ``n`` trials agree with probability ``p`` within ``k`` standard errors."""
    se = np.sqrt(p * (1 - p) / n)
    return abs(count / n - p) <= k * se


# ---------------------------------------------------------------- registry and kind codes

def test_kind_codes_keep_their_values_and_the_panels_are_disjoint():
    assert (base.RANDOM, base.CALLING_MACHINE, base.SCARED_LIMPER, base.HOTHEAD_MANIAC,
            base.CANDID_STATISTICIAN, base.ASHE) == (0, 1, 2, 3, 4, 5)
    kinds = [make_player(n).kind for n in HELDOUT_BOTS]
    assert kinds == list(range(6, 6 + len(HELDOUT_BOTS)))
    assert len(HELDOUT_BOTS) >= 4 and set(HELDOUT_BOTS) <= set(BOTS) and set(TRAINING_BOTS) <= set(BOTS)
    assert TRAINING_BOTS == ("scared-limper", "calling-machine", "hothead-maniac", "candid-statistician")
    assert not set(HELDOUT_BOTS) & set(TRAINING_BOTS) and "random" not in HELDOUT_BOTS
    for name in HELDOUT_BOTS:
        p = make_player(name)
        assert p.name == name and p.uses_hand_strength


def _training_opponent_names():
    """Every bot that a default or preset of the evolution trains against: the configuration's default
    ``opponents``, each preset's ``opponents`` and the ``evolve`` command's ``--opponents`` default.
    (The benchmark panel only measures the champion; it includes the held-out bots.)"""
    import pokerduel.evolution.evolve as ev
    from pokerduel.cli.evolve import evolve as evolve_command

    names = set()

    def collect(value):
        if isinstance(value, str):
            names.update(v.strip() for v in value.split(",") if v.strip())
        elif isinstance(value, (tuple, list)):
            for v in value:
                collect(v)

    collect(ev.EvolveConfig.__dataclass_fields__["opponents"].default)
    for preset in ev.PRESETS.values():
        collect(preset.get("opponents", ()))
    for param in evolve_command.params:
        if param.name == "opponents":
            collect(param.default)
    return names


def test_no_default_or_preset_trains_against_the_heldout_panel():
    names = _training_opponent_names()
    assert set(TRAINING_BOTS) <= names  # the ASHE 1.0 preset trains against the training bots
    assert not names & set(HELDOUT_BOTS)


@pytest.mark.parametrize("factory, bad", [
    (base.tight_aggressive, {"play_pre": 1.5}),
    (base.tight_aggressive, {"size": 0.3}),
    (base.loose_passive, {"large": -1}),
    (base.loose_passive, {"size": 0}),
    (base.bluffer, {"bluff": -0.1}),
    (base.bluffer, {"bluff_size": 1.25}),
    (base.bluffer, {"value_size": float("inf")}),
    (base.check_raiser, {"bluff": 2}),
    (base.pot_odds, {"margin": float("nan")}),
])
def test_factories_reject_bad_constants(factory, bad):
    with pytest.raises(ValueError):
        factory(**bad)


def test_factories_store_sizes_in_half_pots():
    assert list(base.tight_aggressive(size=1.5).params) == [0.57, 0.65, 0.70, 0.85, 3.0]
    assert list(base.bluffer().params) == [0.45, 0.75, 0.30, 0.25, 4.0, 1.0]
    assert list(base.check_raiser().params) == [0.50, 0.75, 0.15, 4.0]


# ---------------------------------------------------------------- rules on crafted spots
# Spots are ACPC betting strings; the player to act is the button (position 1) preflop first and the big
# blind (position 0) first on later streets. A pot raise from ``m`` put in adds the pot after calling.

@pytest.mark.parametrize("betting, hs, expected", [
    ("", 0.56, (FOLD, 0)),  # below the best 25 %: no limp
    ("", 0.60, (RAISE, 300)),  # open a pot raise: 100 + (150 + 50)
    ("c", 0.50, (CALL, 0)),  # big blind after a limp, weak: check
    ("c", 0.60, (RAISE, 300)),  # raise the limp: 100 + 200
    ("r300", 0.56, (FOLD, 0)),
    ("r300", 0.60, (CALL, 0)),  # playable, facing a raise: call
    ("r300", 0.66, (RAISE, 900)),  # strong: re-raise the pot, 300 + (400 + 200)
    ("r20000", 0.66, (CALL, 0)),  # facing all-in, no raise is legal
    ("r300c/", 0.69, (CALL, 0)),  # flop, below play_post: check
    ("r300c/", 0.75, (RAISE, 900)),  # bet the pot for value
    ("r300c/r900", 0.69, (FOLD, 0)),
    ("r300c/r900", 0.75, (CALL, 0)),
    ("r300c/r900", 0.90, (RAISE, 2700)),  # 900 + (1200 + 600)
])
def test_tight_aggressive_rules(betting, hs, expected):
    assert decide("tight-aggressive", betting, hs) == expected


@pytest.mark.parametrize("betting, hs, expected", [
    ("", 0.10, (CALL, 0)),  # the big blind is no large bet: limp anything
    ("r250", 0.10, (CALL, 0)),  # 150 to call into 200: below one pot
    ("r300", 0.39, (FOLD, 0)),  # 200 to call into 200: a pot-sized bet
    ("r300", 0.41, (CALL, 0)),
    ("r300", 0.90, (CALL, 0)),  # no starting hand reaches 0.95: never raises preflop
    ("r300c/", 0.10, (CALL, 0)),
    ("r300c/", 0.96, (RAISE, 900)),
    ("r300c/r900", 0.30, (FOLD, 0)),
    ("r300c/r900", 0.50, (CALL, 0)),
    ("r300c/r900", 0.96, (RAISE, 2700)),
    ("r20000", 0.99, (CALL, 0)),
])
def test_loose_passive_rules(betting, hs, expected):
    assert decide("loose-passive", betting, hs) == expected


def test_loose_passive_large_bet_parameter():
    assert decide("loose-passive", "r250", 0.1, large=0.75) == (FOLD, 0)  # 150 >= 0.75 * 200
    assert decide("loose-passive", "r300", 0.1, large=1.01) == (CALL, 0)


@pytest.mark.parametrize("betting, hs, expected", [
    ("", 0.80, (RAISE, 200)),  # value: half a pot, 100 + 100 (the minimum raise)
    ("r300c/", 0.80, (RAISE, 600)),  # 300 + 300
    ("r300c/r900", 0.80, (RAISE, 1800)),  # 900 + 900
    ("", 0.60, (CALL, 0)),
    ("r300c/r900", 0.60, (CALL, 0)),
    ("r20000", 0.80, (CALL, 0)),
    ("r20000", 0.20, (FOLD, 0)),  # weak and no raise legal: gives up without a draw
])
def test_bluffer_deterministic_rules(betting, hs, expected):
    assert decide("bluffer", betting, hs) == expected


@pytest.mark.parametrize("betting, give_up, big", [("", (FOLD, 0), 500), ("r300c/", (CALL, 0), 1500),
                                                   ("r300c/r900", (FOLD, 0), 4500)])
def test_bluffer_weak_hands_bluff_big_at_their_frequency(betting, give_up, big):
    """Weak hands: all-in with probability bluff * shove, two pots with bluff * (1 - shove), else give up."""
    rng = np.array([99], np.uint64)
    n = 20_000
    counts = {}
    for _ in range(n):
        a = decide("bluffer", betting, 0.2, rng)
        counts[a] = counts.get(a, 0) + 1
    assert set(counts) == {give_up, (RAISE, big), (RAISE, STACK)}
    assert z_ok(counts[(RAISE, STACK)], n, 0.30 * 0.25)
    assert z_ok(counts[(RAISE, big)], n, 0.30 * 0.75)
    assert decide("bluffer", betting, 0.2, bluff=0.0) == give_up
    assert decide("bluffer", betting, 0.2, bluff=1.0, shove=0.0) == (RAISE, big)
    assert decide("bluffer", betting, 0.2, bluff=1.0, shove=1.0) == (RAISE, STACK)


def test_bluffer_draws_only_where_it_may_bluff():
    rng = np.array([5], np.uint64)
    for betting, hs in [("r20000", 0.2), ("", 0.6), ("r300c/", 0.9)]:  # no raise legal, medium, strong
        decide("bluffer", betting, hs, rng)
        assert rng[0] == 5
    decide("bluffer", "", 0.2, rng)
    assert rng[0] != 5


@pytest.mark.parametrize("betting, hs, expected", [
    ("", 0.45, (FOLD, 0)),  # the button folds weak hands to the big blind
    ("", 0.60, (CALL, 0)),  # and limps the rest
    ("", 0.95, (CALL, 0)),  # never opens with a raise
    ("c", 0.95, (CALL, 0)),  # never raises a limp
    ("r300", 0.45, (FOLD, 0)),
    ("r300", 0.60, (CALL, 0)),
    ("r300", 0.80, (RAISE, 1500)),  # two pots: 300 + 2 * 600
    ("r300c/", 0.99, (CALL, 0)),  # first to act postflop: always checks
    ("r300c/c", 0.99, (CALL, 0)),  # on the button after a check: checks behind
    ("r300c/cr900", 0.80, (RAISE, 4500)),  # the check-raise: 900 + 2 * 1800
    ("r300c/cr900", 0.60, (CALL, 0)),
    ("r300c/r900", 0.30, (FOLD, 0)),  # not a check-raise spot: no bluff
    ("r300c/r900", 0.80, (RAISE, 4500)),
    ("r300c/cr900r4500r20000", 0.30, (FOLD, 0)),  # re-raised after its check-raise
    ("r300c/cr900r4500r20000", 0.80, (CALL, 0)),  # all-in: no raise left
])
def test_check_raiser_rules(betting, hs, expected):
    assert decide("check-raiser", betting, hs, bluff=1.0 if betting == "r300c/r900" else 0.15) == expected


def test_check_raiser_bluffs_only_in_the_check_raise_spot():
    rng = np.array([3], np.uint64)
    n = 20_000
    raises = sum(decide("check-raiser", "r300c/cr900", 0.3, rng) == (RAISE, 4500) for _ in range(n))
    assert z_ok(raises, n, 0.15)
    assert decide("check-raiser", "r300c/cr900", 0.3, bluff=0.0) == (FOLD, 0)
    assert decide("check-raiser", "r300c/cc/cr900", 0.3, bluff=1.0) == (RAISE, 4500)  # turn: 900 + 2 * 1800
    for betting in ("r300", "r300c/r900", "r300c/cr900r4500r20000"):
        before = rng[0]
        decide("check-raiser", betting, 0.3, rng, bluff=1.0)
        assert rng[0] == before


@pytest.mark.parametrize("betting, hs, expected", [
    ("", 0.24, (FOLD, 0)),  # q = 50 / 200 = 0.25
    ("", 0.50, (CALL, 0)),
    ("", 0.69, (CALL, 0)),  # raise from 0.25 + 0.6 * 0.75 = 0.70
    ("", 0.71, (RAISE, 300)),
    ("r300c/", 0.00, (CALL, 0)),  # q = 0: never folds when checking is free
    ("r300c/", 0.59, (CALL, 0)),
    ("r300c/", 0.61, (RAISE, 900)),
    ("r300c/r900", 0.33, (FOLD, 0)),  # q = 600 / 1800
    ("r300c/r900", 0.34, (CALL, 0)),
    ("r300c/r900", 0.73, (CALL, 0)),  # raise from 1/3 + 0.6 * 2/3 = 0.7333
    ("r300c/r900", 0.74, (RAISE, 2700)),
    ("r20000", 0.99, (CALL, 0)),
])
def test_pot_odds_rules(betting, hs, expected):
    assert decide("pot-odds", betting, hs) == expected


def test_every_heldout_action_is_legal_on_random_states():
    rng = np.random.default_rng(11)
    word = np.array([17], np.uint64)
    bad = []
    for h, _ in STATES:
        st, pos = h.st, h.actor
        lo, hi = raise_range(st)
        for hs in rng.random(3):
            for name, (kernel, with_rng) in KERNELS.items():
                for variant in ({}, {"size": 0.5}) if name != "bluffer" else ({}, {"bluff": 1.0}):
                    args = list(BOTS[name](**variant).params) + ([word] if with_rng else [])
                    action, amount = kernel(st, pos, lo, hi, hs, *args)
                    if check_action(st, action, amount) != OK or (action != RAISE and amount != 0):
                        bad.append((name, variant, st.copy(), hs, action, amount))
    assert not bad, bad[:5]


# ---------------------------------------------------------------- whole matches

@pytest.mark.parametrize("name", HELDOUT_BOTS)
def test_heldout_bot_plays_every_bot_without_invalid_actions(name):
    hands = 0
    for opponent in BOTS:
        res = play_duplicate(name, opponent, 1000, seed=31)
        assert res.invalid_actions == 0, opponent
        assert np.abs(res.hand_payoffs).max() <= STACK
        hands += res.n_hands
    assert hands == 2000 * len(BOTS)


# ---------------------------------------------------------------- styles from hand histories

PANEL = ("random", "calling-machine", "hothead-maniac", "candid-statistician")
STYLE_DEALS = 1000
STYLE_SEED = 2025
COLUMNS = ("opp", "rnd", "pos", "ra", "x", "pot", "max", "lo", "hs", "action", "amount")


class Decisions:
    """A bot's decisions in its matches against ``PANEL``, one array per column of ``COLUMNS``: opponent
    index, round, position, actions so far in the round, chips to call, pot, most put in, minimum
    raise-to (-1: no raise), hand strength, action and raise-to."""

    def __init__(self, rows):
        table = np.array(rows, dtype=np.float64).reshape(-1, len(COLUMNS))
        for i, c in enumerate(COLUMNS):
            setattr(self, c, table[:, i] if c == "hs" else table[:, i].astype(np.int64))
        self.n = len(table)

    @property
    def facing(self):
        """Facing a bet or raise (preflop the blinds alone are none)."""
        return (self.x > 0) & ((self.rnd > 0) | (self.max > BIG_BLIND))

    @property
    def pot_size(self):
        """A raise's size in pots after calling (0 for other actions)."""
        return np.where(self.action == RAISE, (self.amount - self.max) / (self.pot + self.x), 0.0)


@lru_cache(maxsize=None)
def _strengths(deal):
    return np.full((2, 4), -1.0)


@lru_cache(maxsize=None)
def decisions(name) -> Decisions:
    """Replay ``name`` (as player A) against the panel: every recorded decision of A with the hand
    strength the engine used (the deal's cache key, as ``matches`` derives it). Held-out bots' decisions
    are recomputed by their kernels with A's generator word, so the histories are the rules' output."""
    player = make_player(name)
    kernel, with_rng = KERNELS.get(name, (None, False))
    _, rng_key = seed_keys(STYLE_SEED, 2)
    rows = []
    st = np.zeros(STATE_SIZE, np.int64)
    for k, opponent in enumerate(PANEL):
        res = play_duplicate(player, opponent, STYLE_DEALS, STYLE_SEED, records=True)
        assert res.invalid_actions == 0
        for rec in res.records:
            deal_key = stream_key(rng_key, rec.deal, 0)
            hs_key = deal_key ^ SALTS[4]
            word = np.array([deal_key ^ SALTS[2 * rec.half]], np.uint64)  # A's word in this half
            strengths = _strengths(rec.deal)
            new_hand(st)
            for rnd, actor, action, amount in rec.actions:
                if actor == rec.half:
                    lo, hi = raise_range(st)
                    hs = cached_strength(strengths, hs_key, DEFAULT_SAMPLES, rec.cards, actor, rnd)
                    if kernel is not None:
                        args = list(player.params) + ([word] if with_rng else [])
                        assert kernel(st, actor, lo, hi, hs, *args) == (action, amount)
                    rows.append((k, rnd, actor, st[S_ROUND_ACTIONS], to_call(st, actor), pot(st), st[S_MAX_SPENT],
                                 lo, hs, action, amount))
                assert apply_action(st, action, amount) == OK
    return Decisions(rows)


def preflop_share(threshold):
    """Share of starting hands (of 1326) with hand strength below ``threshold``."""
    weights = np.where(np.eye(13, dtype=bool), 6, np.where(np.tri(13, k=-1, dtype=bool), 4, 12))
    return float(weights[PREFLOP_HS < threshold].sum() / weights.sum())


def button_first(d):
    return (d.rnd == 0) & (d.pos == 1) & (d.ra == 0)


def test_tight_aggressive_style():
    """Plays about the best 25 % of hands, raising them; folds the rest to any raise; strong hands always raise."""
    d = decisions("tight-aggressive")
    first = button_first(d)
    p_fold = preflop_share(0.57)
    assert 0.70 < p_fold < 0.80
    assert z_ok((d.action[first] == FOLD).sum(), first.sum(), p_fold)
    assert (d.action[first] == CALL).sum() == 0  # never limps
    # The big blind's first decision facing a raise: its hand is uniform (random and the maniac raise blind).
    blind = (d.rnd == 0) & (d.pos == 0) & (d.ra == 1) & d.facing & (d.opp <= 2)
    assert blind.sum() > 1000
    assert z_ok((d.action[blind] == FOLD).sum(), blind.sum(), p_fold)
    strong = np.where(d.rnd == 0, d.hs >= 0.65, d.hs >= 0.85) & (d.lo >= 0)
    assert strong.sum() > 300 and np.all(d.action[strong] == RAISE)
    weak_facing = np.where(d.rnd == 0, d.hs < 0.57, d.hs < 0.70) & (d.x > 0)
    assert np.all(d.action[weak_facing] == FOLD)
    # Aggressive: a playable hand not facing a raise always bets or raises.
    playable = np.where(d.rnd == 0, d.hs >= 0.57, d.hs >= 0.70) & ~d.facing & (d.lo >= 0)
    assert playable.sum() > 1000 and np.all(d.action[playable] == RAISE)


def test_loose_passive_style():
    """Calls nearly everything, rarely raises (never preflop), folds only weak hands to large bets."""
    d = decisions("loose-passive")
    raises = d.action == RAISE
    assert raises[d.rnd == 0].sum() == 0
    # Raises exactly with hs >= 0.95, which is rare: at most 5 % of decisions, within the standard error.
    assert np.all(raises == ((d.hs >= 0.95) & (d.lo >= 0)))
    p = raises.mean()
    assert p + 4 * np.sqrt(p * (1 - p) / d.n) < 0.05
    folds = d.action == FOLD
    large = d.x >= (d.pot - d.x)
    assert np.all(folds == ((d.x > 0) & (d.hs < 0.40) & large))
    facing = d.facing
    p = folds[facing].mean()
    assert p + 4 * np.sqrt(p * (1 - p) / facing.sum()) < 0.25  # folds to fewer than one bet in four


def pot_raise(d, halves):
    """Raise-to of ``halves / 2`` pots after calling at every decision, clamped to the legal range."""
    return np.clip(d.max + (halves * (d.pot + d.x) + 1) // 2, d.lo, STACK)


def test_bluffer_style():
    """Weak hands bet big at the documented frequency; medium hands never bet; value bets are small."""
    d = decisions("bluffer")
    weak = (d.hs < 0.45) & (d.lo >= 0)
    bluffs = weak & (d.action == RAISE)
    assert weak.sum() > 2000
    assert z_ok(bluffs.sum(), weak.sum(), 0.30)
    two_pots = pot_raise(d, 4)
    room = bluffs & (two_pots < STACK)  # where two pots and the all-in differ
    assert z_ok((d.amount[room] == STACK).sum(), room.sum(), 0.25)
    assert np.all((d.amount[bluffs] == STACK) | (d.amount[bluffs] == two_pots[bluffs]))
    medium = (d.hs >= 0.45) & (d.hs < 0.75)
    assert np.all(d.action[medium] == CALL)
    value = (d.hs >= 0.75) & (d.lo >= 0)
    assert value.sum() > 300 and np.all(d.action[value] == RAISE)
    assert np.all(d.amount[value] == pot_raise(d, 1)[value])
    # Polarised sizing: the typical bluff is four times the typical value bet, in pots.
    assert np.median(d.pot_size[bluffs]) >= 4 * np.median(d.pot_size[value])


def test_check_raiser_style():
    """Never bets first; in the check-raise spot it raises strong hands and bluffs weak ones at its frequency."""
    d = decisions("check-raiser")
    free = d.x == 0
    assert free.sum() > 1000 and np.all(d.action[free] == CALL)
    assert np.all(d.action[button_first(d)] != RAISE)
    spot_ = (d.rnd > 0) & (d.pos == 0) & (d.ra == 2) & (d.x > 0) & (d.lo >= 0)
    strong, weak = spot_ & (d.hs >= 0.75), spot_ & (d.hs < 0.50)
    assert strong.sum() > 100 and np.all(d.action[strong] == RAISE)
    assert weak.sum() > 500 and z_ok((d.action[weak] == RAISE).sum(), weak.sum(), 0.15)
    check_raises = spot_ & (d.action == RAISE)
    assert np.all(d.pot_size[check_raises & (d.amount < STACK)] >= 2.0 - 1e-9)
    # Weak hands outside the check-raise spot fold to every bet.
    other = d.facing & ~spot_ & (d.hs < 0.50)
    assert np.all(d.action[other] == FOLD)


def test_pot_odds_style():
    """Calls exactly when the hand strength beats the pot odds; raises when well above them."""
    d = decisions("pot-odds")
    q = d.x / (d.pot + d.x)
    assert np.all((d.action == FOLD) == (d.hs < q))
    assert np.all((d.action == RAISE) == ((d.hs >= q + 0.6 * (1 - q)) & (d.lo >= 0)))
    assert (d.action == FOLD).sum() > 500 and (d.action == RAISE).sum() > 500


# ---------------------------------------------------------------- distinct styles

def profile(d):
    """Action frequencies in four situations: ``(count, n)`` per feature."""
    first = button_first(d)
    free = (d.rnd > 0) & (d.x == 0) & (d.lo >= 0)
    facing = d.facing
    return {
        "button folds": ((d.action[first] == FOLD).sum(), first.sum()),
        "button raises": ((d.action[first] == RAISE).sum(), first.sum()),
        "postflop bets": ((d.action[free] == RAISE).sum(), free.sum()),
        "folds to a bet": ((d.action[facing] == FOLD).sum(), facing.sum()),
        "raises a bet": ((d.action[facing] == RAISE).sum(), facing.sum()),
    }


def differences(pa, pb):
    """Per feature of two profiles: ``(difference of frequencies, difference in standard errors)``."""
    out = {}
    for key in pa:
        (ca, na), (cb, nb) = pa[key], pb[key]
        a, b = ca / na, cb / nb
        se = np.sqrt(a * (1 - a) / na + b * (1 - b) / nb)
        out[key] = (abs(a - b), 0.0 if a == b else np.inf if se == 0 else abs(a - b) / se)
    return out


def test_styles_differ_from_each_other_and_from_the_training_bots():
    """Every pair differs in some action frequency by at least 0.1 and by more than 10 standard errors
    (the smallest such separation measured is about 35)."""
    profiles = {name: profile(decisions(name)) for name in HELDOUT_BOTS + TRAINING_BOTS}
    for name in profiles:
        assert min(n for _, n in profiles[name].values()) > 1000
    for i, a in enumerate(HELDOUT_BOTS):
        for b in HELDOUT_BOTS[i + 1:] + TRAINING_BOTS:
            diffs = differences(profiles[a], profiles[b])
            assert any(diff >= 0.1 and z > 10 for diff, z in diffs.values()), (a, b, diffs)


# ---------------------------------------------------------------- determinism and the command line

@pytest.mark.parametrize("a, b", [("bluffer", "check-raiser"), ("check-raiser", "random"), ("bluffer", "bluffer")])
def test_same_seed_same_samples(a, b):
    one = play_duplicate(a, b, 400, seed=8, records=True)
    two = play_duplicate(a, b, 400, seed=8, records=True, chunk=37)
    np.testing.assert_array_equal(one.hand_payoffs, two.hand_payoffs)
    assert [r.actions for r in one.records] == [r.actions for r in two.records]
    tail = play_duplicate(a, b, 150, seed=8, first_deal=250)
    np.testing.assert_array_equal(tail.hand_payoffs, one.hand_payoffs[250:])
    other = play_duplicate(a, b, 400, seed=9)
    assert not np.array_equal(other.hand_payoffs, one.hand_payoffs)


def test_bluffer_against_itself_does_not_cancel_but_the_deterministic_bots_do():
    """The bluffer's draws differ between the two seats, so duplicate deals do not cancel; the
    deterministic held-out bots against themselves score 0 every deal."""
    assert np.any(play_duplicate("bluffer", "bluffer", 300, seed=4).samples != 0)
    for name in ("tight-aggressive", "loose-passive", "pot-odds"):
        assert np.all(play_duplicate(name, name, 300, seed=4).samples == 0)


def test_acpc_client_makes_the_local_decisions():
    """Fed a local match's lines, an ACPC client session answers with the local actions: the randomised
    bots draw from the same generator words over the network as in ``play_duplicate``."""
    from pokerduel.acpc.agent import Agent
    from pokerduel.acpc.client import Session
    from tests.test_acpc import outcomes, seat_lines

    a, b = "bluffer", "check-raiser"
    local = play_duplicate(a, b, 100, 13, records=True)
    for seat, player in ((0, a), (1, b)):
        session = Session(Agent(player, 13, pairs=True))
        for hand, rec in enumerate(local.records):
            pos = (hand + seat) % 2
            lines = seat_lines(rec, hand, pos)
            mine = [f"{line}:{'f' if act == FOLD else 'c' if act == CALL else f'r{amt}'}"
                    for line, (_, actor, act, amt) in zip(lines, rec.actions) if actor == pos]
            assert [r for r in outcomes(session, lines) if r is not None] == mine
        assert list(session.result.payoffs) == list(local.hand_payoffs.reshape(-1) * (1 if seat == 0 else -1))


@pytest.mark.parametrize("name", HELDOUT_BOTS)
def test_command_line_plays_the_heldout_bots(name):
    from click.testing import CliRunner

    from pokerduel.cli import main

    res = CliRunner().invoke(main, ["play", "--a", name, "--b", "random", "--deals", "200", "--seed", "3", "--json"],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    out = json.loads(res.output.strip().splitlines()[-1])
    assert out["a"] == name and out["invalid_actions"] == 0 and out["hands"] == 400
    mean, ci = play_duplicate(name, "random", 200, seed=3).mbb_per_hand()
    assert out["mbb_per_hand"] == pytest.approx(mean) and out["ci95"] == pytest.approx(ci)
