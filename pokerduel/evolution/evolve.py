"""Neuroevolution of ASHE players: each generation's survivors chosen by a top-k selector or by ASHE 1.0's ANE.

Each generation (``run_evolution``):

1. **Selection.** With ``fitness="selector"`` the current ``population`` players become a ``LiveOracle``
   (duplicate deals of a continuing match per pair, seeded by the run seed and the generation); the
   chosen selector spends exactly ``budget`` samples and returns its top ``keep``, best first: the
   survivors. With ``fitness="ane"`` (``evaluate``) every player plays every fixed opponent (the training
   ``opponents`` and the ``hall_of_fame``, earlier champions) ``deals`` duplicate deals on the
   generation's common decks, and the ``keep`` of highest pool-weighted ANE survive (``fitness``). The
   first survivor is the generation's **champion**.
2. **Measured progress.** The champion plays a fixed **benchmark panel** on a fixed deck set (one seed
   for every generation and opponent): by default the four ASHE 1.0 rule-based bots, the random bot and
   the held-out bots that no preset trains against, plus ``panel_heldout`` random generation-0-style
   players that never join the population. Results in
   mBB/hand with 95% intervals; these matches run on the backend (serial, multiprocess or Dask).
3. **Reproduction.** ASHE 1.0's TSER (``pokerduel.evolution.reproduction``): elites (survivors above the
   survivors' mean selector score) are kept unchanged and breed by even/odd-gene crossover, the other
   survivors are mutated, children fill the population; mutation rate and strength fall linearly.
   With the serial backend it runs in a helper thread while the panel plays, with the rest of the
   bookkeeping between two selections (handing the matches' memories back, building the next
   generation's players and oracle); the results do not depend on it.
4. **Checkpoint.** The whole run file is rewritten atomically (``storage.atomic_h5``): it is always the
   previous complete generation or the new one, never half of one. The rewrite runs in a writer thread
   while the next generation is selected. With a parallel backend the panel of generation g also
   overlaps the selection of generation g + 1, and g is written when its panel is done.

After the last generation, with ``validate_window`` W > 0, the last W generations' champions are re-scored
on fresh decks against the training opponents and the best becomes **the run's champion** (``validate``;
``EvolutionRun.champion``); with ``validate_finalists`` the first few of them are re-scored again, on more
and longer matches and other fresh decks, and those results alone decide; with ``average_windows`` the mean
genome of the last W generations' champions replaces it where that reaches the floors on fresh decks
(``choose_average``); with ``champion_raising_ranges`` the champion then plays at the widest of those raising
ranges that reaches the floors on other fresh decks (``choose_raising_range``). Without a window, the run's
champion is the last generation's.

**Seeds.** Everything derives from ``seed`` through ``SeedSequence`` spawn keys: ``(0,)`` the initial
population, ``(4,)`` the held-out panel players, ``(5,)`` the panel's decks, and per generation ``g``:
``(1, g)`` the oracle's decks and player randomness, ``(2, g)`` the selector's generator, ``(3, g)`` the
reproduction generator, ``(6, g)`` the decks of the fixed-opponent matches of fitness ane; ``(7,)`` the
champions' validation decks, ``(8,)`` the finalists', ``(9,)`` the averaged champions', ``(10,)`` the raising
ranges'. A generation
depends only on the seed, the config and the population it starts from, so a run resumed from its file
continues exactly as an uninterrupted run, and the panel's and the fitness matches give the same results on
any backend and worker count.

**File** (format ``pokerduel.evolution`` 1): root attributes ``config`` (JSON, the run's identity),
``seed``, ``completed`` (generations done), ``rng_state`` (JSON: the reproduction generator's state after
the last generation, for inspection); datasets ``population`` (the genomes the next generation starts
from), ``population0``, ``heldout``, and per generation (first axis): ``survivors``, ``scores`` (the
selector's score of every player), ``champion`` (genome), ``samples_used``, ``decisions``, ``ml_fraction``
(hybrid: share of decisions made in ML-POCBAm mode), ``final_ii``, ``final_mode``, ``ii_trace`` and
``mode_trace`` (hybrid, aligned with the samples), ``trace_i``/``trace_j``/``trace_x`` (every sample),
``panel_mean``/``panel_ci`` (mBB/hand, one column per panel opponent, names in attribute
``panel_names``), ``origin`` (0 elite, 1 mutated survivor, 2 child), ``parents``, ``rate``/``sigma``, and
``timing`` (seconds: generation wall, selector wall, engine time inside it, panel wall, reproduction with
the bookkeeping of ``_breed``, columns named in attribute ``timing_names``), ``fixed_mbb`` (every
player's mBB/hand against each fixed opponent: training opponents, then hall-of-fame slots; NaN where
absent), ``hall`` (the generation index of each hall-of-fame slot's champion, -1 if empty) and
``champion_train`` (the champion's mean mBB/hand against the training opponents, NaN without),
``actions`` (each player's shares of folds, checks/calls and raises among its decisions in the
generation's matches: the population's behavioural spread). With
fitness ane the sample traces are empty (``fixed_mbb`` holds the whole matrix). A finished run with a
``validate_window`` has a group ``validation``: ``generations`` re-scored, their ``mbb`` against each
training opponent and ``fitness``, and attribute ``champion`` (the chosen generation); with
``validate_finalists`` also the ``finalists`` (generations, in the first stage's order) and their
``final_mbb`` and ``final_fitness``; with ``average_windows`` also ``averages`` (the windows), their
``average_mbb`` and ``average_fitness``, attribute ``average`` (the window of the run's champion, 0: the
validated generation's); with ``champion_raising_ranges`` also ``raising_ranges`` (those tried), their
``raising_mbb`` and ``raising_fitness`` and attribute ``raising_range`` (the champion's); where the champion is
averaged or plays at another raising range than the run's, its ``panel_mean`` and ``panel_ci``.
"""

from __future__ import annotations

import inspect
import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable

import numpy as np

from .. import __version__
from ..engine.rules import BIG_BLIND
from ..infra.storage import atomic_h5, file_format, open_checked, plain_attrs, stamp
from ..play.oracles import LiveOracle, MemoryPool
from ..play.populations import new_population
from ..players.base import HELDOUT_BOTS, MODELS, TRAINING_BOTS, Player, register_spec_resolver
from ..players.genomes import (
    ANCHORS_SPEC,
    HANDBUILT_SPEC,
    HANDMADE,
    READER_STEADY_SPEC,
    AsheSettings,
    action_counts,
    ashe_player,
)
from ..players.hand_strength import DEFAULT_SAMPLES
from ..selectors import SELECTORS, MLPOCBAm, check_batch, check_lag
from ..selectors.problems import n_pairs
from .reproduction import TserParams, tser

FORMAT, FORMAT_VERSION = "pokerduel.evolution", 1
#: the benchmark panel: ASHE 1.0's four training bots, the random bot and the held-out bots (never trained on)
PANEL_BOTS = (*TRAINING_BOTS, "random", *HELDOUT_BOTS)
#: how a generation's fitness is measured: ``selector`` (a top-k selector spends a sample budget on the
#: population and the fixed opponents) or ``ane`` (every candidate plays every fixed opponent, ASHE 1.0)
FITNESS_MODES = ("selector", "ane")
#: the opponent pools, in the order of ``pool_weights``
POOLS = ("population", "hall", "opponents")
HALL_POLICIES = ("last", "best")
#: generation 0: ``random`` (every weight uniform on the init range, core paper §7) or a hand-made genome
#: (``handbuilt``, ``patient``, ``reader``, ``reader-folds``, ``reader-steady``, ``reader-river``) plus the uniform noise
#: (``players.genomes.HANDMADE``)
INITS = ("random", *HANDMADE)
#: options added after run files existed, left out of a config's dict at these defaults
LATER_DEFAULTS = {"calling_range": 0.0, "explore": 0.0, "read_raises": False, "read_reraises": False,
                  "lookahead": False, "read_aggression": False, "mark_reraises": False, "call_option": False,
                  "anchored": False, "option_range": 0.0, "raising_range": 0.0, "option_reraise": False,
                  "model": "ashe2", "decision_output": "linear", "raise_sizes": "big-blinds",
                  "init": "random", "freeze_init": False,
                  "common_decks": False, "opponent_weights": None, "matches": 1, "batch": 1, "targets": None,
                  "opponent_deals": None,
                  "validate_window": 0, "validate_matches": 8, "validate_rule": "ane", "validate_finalists": 0,
                  "validate_final_matches": 20, "average_windows": [], "average_floors": None, "average_matches": 50,
                  "champion_raising_ranges": []}
#: how ``validate`` ranks the re-scored champions: ``ane`` (the run's fitness: ANE with its targets and opponent
#: weights) or ``shortfall`` (the smallest worst shortfall below the targets, each in units of its target; ties,
#: such as every target met, go to the higher ANE)
VALIDATE_RULES = ("ane", "shortfall")
#: ASHE 1.0's champions against its four training bots, mean mBB/hand (Li & Miikkulainen 2017, Table 2)
ASHE1_TABLE2 = dict(zip(TRAINING_BOTS, (998.6, 40368.0, 36158.0, 9800.0)))
#: the half-widths of Table 2's 95 % intervals over ASHE 1.0's 21 champions (each tested on 500 games per bot)
ASHE1_TABLE2_CI = dict(zip(TRAINING_BOTS, (2.6, 1989.0, 1488.0, 1647.0)))
#: named option sets (``--preset``); options given explicitly override them. ``ashe1``: ASHE 1.0 exactly.
#: ``generalist``: ASHE 1.0's fitness at its hands per generation (9 opponents x 222 deals), from the hand-built
#: player, against the four bots, the hand-built player and a hall of fame of the last 4 champions weighted
#: 0.1; five of its six measured champions beat or tie every held-out bot (``docs/results/evolution.md`` §2).
#: ``refine``: the generalist's opponents, hall and hands from the strongest hand-made player (``reader-steady``
#: with its reading settings and ``lookahead``), with generation 0's noise and TSER's mutation as small as in
#: ASHE 1.0's last generations throughout: its first generations' mutation undoes a hand-made start (§2,
#: *Mutation load*)
#: ``table2``: ``refine`` aimed at ASHE 1.0's Table 2, whose means (``ASHE1_TABLE2``) are its targets for the four
#: bots (none for the hand-built player), with the Hothead Maniac weighted 2: ANE alone counts a chip against the
#: Candid Statistician about four times as much as one against the Maniac, and trades the Maniac's narrow
#: band for the Statistician's surplus (§2, *Weighing the Maniac*); the run's champion is the one of all its
#: generations' champions least short of the targets on 2,000 validation deals per training opponent (§2,
#: *Choosing the champion*, *The whole run's champions*): the population drifts, and its best balance is often
#: not in the last generations; and ASHE 1.0's 500 duplicate deals against each of its bots (the hand-built
#: player and the hall keep 222): one generation's 222 ranked its players against the Maniac and the
#: Statistician mostly by the luck of the decks (§2, *ASHE 1.0's hands against each bot*)
_GENERALIST = {"fitness": "ane", "opponents": (*TRAINING_BOTS, HANDBUILT_SPEC), "population": 50, "generations": 250,
               "keep": 15, "deals": 222, "hall_of_fame": 4, "pool_weights": (0.0, 0.1, 1.0)}
PRESETS = {
    "ashe1": {"fitness": "ane", "opponents": TRAINING_BOTS, "population": 50, "generations": 250, "keep": 15,
              "deals": 500, "hall_of_fame": 0},
    "generalist": {**_GENERALIST, "init": "handbuilt", "init_low": -0.1, "init_high": 0.1},
    "refine": {**_GENERALIST, "init": READER_STEADY_SPEC, "read_raises": True, "read_reraises": True,
               "lookahead": True, "init_low": -0.03, "init_high": 0.03, "rate_start": 0.05, "sigma_start": 0.1},
}
#: the hand-made reader's own settings, which ``refine`` and ``table2`` evolve with
_READER_SETTINGS = ("read_raises", "read_reraises", "lookahead")
PRESETS["table2"] = {**PRESETS["refine"], "targets": (*ASHE1_TABLE2.values(), None),
                     "opponent_weights": (1.0, 1.0, 2.0, 1.0, 1.0), "opponent_deals": (500, 500, 500, 500, 222),
                     "validate_window": 250, "validate_rule": "shortfall"}
#: ``scratch``: ``table2``'s opponents, hands and aim (its targets, weights, deals and champion choice) from random
#: weights near zero, the ``anchors`` player, with each estimator's output a correction to its anchor; ``refine``'s
#: mutation load; and the reading and valuing settings measured best from random weights: the opponent's raise
#: share, the call's option with a later pot-size re-raise, and half the raising range (§2, *From random weights:
#: anchored estimators with the generalist's opponents*); its champion is the mean of the last 50, 25 or 10
#: generations' champions, the widest that reaches the lower end of Table 2's interval against every bot on
#: fresh decks (§2, *Averaging the champions*), played at the widest raising range of 1, 0.75 and 0.6 that still
#: does (§2, *Widening the raising range*)
PRESETS["scratch"] = {**{k: v for k, v in PRESETS["table2"].items() if k not in _READER_SETTINGS}, "init": "random",
                      "anchored": True, "read_aggression": True, "call_option": True, "raising_range": 0.5,
                      "option_reraise": True, "average_windows": (50, 25, 10),
                      "champion_raising_ranges": (1.0, 0.75, 0.6),
                      "average_floors": (*(ASHE1_TABLE2[b] - ASHE1_TABLE2_CI[b] for b in TRAINING_BOTS), None)}
TIMING_NAMES = ("generation", "selector", "engine", "panel", "reproduction")
#: the selector when none is given: the hybrid (the core paper's method) on the population alone, POCBAm with
#: fixed opponents (``--fitness selector`` with ``--opponents`` or ``--hall-of-fame``), where the Thurstone
#: model of ML-POCBAm and the hybrid does not hold: a candidate's result against one bot says nothing of its
#: result against another, and a pair whose warm-up samples are equal (every raise wins the Scared Limper's
#: blinds) pins the candidate's strength at the variance floor, so in the generations the hybrid ended in
#: ML-POCBAm mode the candidates' model scores were equal to within the fit's tolerance
#: (``docs/results/evolution.md`` §3)
DEFAULT_SELECTOR = "hybrid"
DEFAULT_FIXED_SELECTOR = "pocbam"
#: the methods with score posteriors (POCBAm, ML-POCBAm, hybrid): a variance per pair, costly decisions
POSTERIOR_METHODS = ("pocbam", "ml-pocbam", "hybrid")
#: samples per pair of the warm-up when none is given: the least each selector accepts (uniform one, PBR two,
#: SELECT/TOP and AR none), except that POCBAm, ML-POCBAm and the hybrid take two (a sample variance for
#: every pair) when the budget leaves at least one sample per pair after them (``default_n0``)
DEFAULT_N0 = {name: max(int(cls.min_n0), 2 if name in POSTERIOR_METHODS else 0) for name, cls in SELECTORS.items()}


#: samples pending at a decision when none is given, for POCBAm, ML-POCBAm and the hybrid (``Selector.lag``):
#: the engine plays while the selector decides (``docs/evolve.md``, *Speed and overhead*), at least
#: ``LAG_BATCHES`` batches of them. Uniform allocation's decisions cost nothing, so it keeps lag 0 (its
#: samples do not depend on the lag).
DEFAULT_LAG = 8
LAG_BATCHES = 8
#: ML-POCBAm and hybrid decisions per refit of the Thurstone model when none is given
DEFAULT_REFIT = 8
#: samples per decision (``Selector.batch``: a decision's best pairs) when none is given, for POCBAm, ML-POCBAm
#: and the hybrid with ``--fitness selector``, fixed opponents and ``repeat`` 1; 1 otherwise. Deals against
#: bots are cheap next to a decision, and one decision per sample kept the selector's overhead at 10-13 % of
#: hand simulation (``docs/benchmarks.md``, *Evolution*)
DEFAULT_BATCH = 8


def default_n0(selector: str, pairs: int, budget: int | None) -> int:
    """``DEFAULT_N0[selector]``, lowered to the selector's least when ``budget`` is below the warm-up plus
    one sample per played pair (``(n0 + 1) pairs``; ``K(K-1)/2`` pairs without fixed opponents):
    ``--population 50 --budget 2000`` runs POCBAm, ML-POCBAm and the hybrid from one warm-up sample per pair."""
    n0 = DEFAULT_N0[selector]
    if isinstance(budget, (int, np.integer)) and not isinstance(budget, bool) and budget < (n0 + 1) * pairs:
        n0 = int(SELECTORS[selector].min_n0)
    return n0


class ConfigMismatch(ValueError):
    """The run file holds another configuration (or the caller did not say to resume it)."""


class CorruptFile(ValueError):
    """The run file cannot be read back."""


class _NoOracle:
    """A stand-in oracle with ``K`` players, for validating selector options without sampling."""

    def __init__(self, K):
        self.K = K

    def sample(self, i, j):  # pragma: no cover - never called
        raise RuntimeError("not an oracle")


def _finite(x) -> bool:
    """A finite real number (not a bool)."""
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) and bool(np.isfinite(x))


def _check_int(value, what, lo, hi=None):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo \
            or (hi is not None and value > hi):
        allowed = f">= {lo}" if hi is None else f"in {lo}..{hi}"
        raise ValueError(f"{what} must be an integer {allowed}, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class EvolveConfig:
    """Everything that determines a run (its identity in the run file). See ``docs/evolve.md``.

    ``selector=None`` means ``DEFAULT_FIXED_SELECTOR`` with ``fitness="selector"`` and fixed opponents, else
    ``DEFAULT_SELECTOR``. ``budget=None`` means the warm-up plus one sample per pair on average
    (``(n0 + 1) * K (K - 1) / 2``). ``n0=None`` means ``default_n0(selector, population, budget)``.
    ``repeat`` is the number of consecutive samples of the pair a selector decision picks (1: the paper's
    methods; more divides the model fits by ``repeat``, see ``docs/evolve.md`` on overhead). ``lag``
    (``Selector.lag``; None: ``DEFAULT_LAG``, or ``LAG_BATCHES`` batches if more, for POCBAm, ML-POCBAm
    and the hybrid when ``repeat`` is 1, else 0), ``refit_every`` (ML-POCBAm and the hybrid; None:
    ``DEFAULT_REFIT`` for them, else 1) and ``batch`` (``Selector.batch``, with fixed opponents; None:
    ``DEFAULT_BATCH`` for POCBAm, ML-POCBAm and the hybrid there with ``fitness="selector"`` and ``repeat``
    1, else 1) trade exactness to the paper's sequential methods for speed; ``lag=0, refit_every=1,
    batch=1`` are the paper's methods. ``prt_capacity`` defaults to 1024
    nodes (a generation's matches are a few deals per pair; the panel's 250-deal matches fit too).
    ``hidden``, ``lstm_reset``, ``calling_range``, ``explore``, ``read_raises``, ``read_reraises``, ``lookahead``,
    ``read_aggression``, ``mark_reraises``, ``call_option``, ``anchored``, ``option_range``, ``raising_range``,
    ``option_reraise``, ``model``, ``decision_output`` and ``raise_sizes`` are the players' ``AsheSettings``.
    ``reset``: every deal with fresh memories instead of a continuing match per pair.
    ``init`` (``INITS``) and ``init_low``, ``init_high``: generation 0; ``freeze_init``: a hand-made init's
    non-zero weights stay as designed (``frozen_genes``), so evolution changes only the others.
    ``common_decks`` (``--fitness selector`` with fixed opponents): every candidate meets each fixed
    opponent on the same decks, as ANE's matches always do (``LiveOracle(common_decks_from=K)``).
    ``opponent_weights``: the training opponents' relative weights within their pool (normalised to sum
    to 1; None: equal). With ``--fitness selector`` the pool's score is in chips, and e.g. the reciprocals
    of the margins each bot allows keep a bot that loses 40 BB a hand from outweighing one that loses 1;
    with ``--fitness ane`` each opponent is already in units of the generation's best result, and weights
    proportional to the margins make a chip count the same against each (``fitness.ane``).
    ``matches`` (``--fitness ane``): each candidate's ``deals`` against a fixed opponent are played as that
    many matches of ``deals / matches`` deals, each from fresh memories (1: ASHE 1.0's single match), so
    that selection sees more of how a player's memory of an opponent can develop
    (``docs/results/evolution.md`` §1: whole matches lost to a bad start).
    ``targets`` (``--fitness ane``): per training opponent, the mBB/hand up to which ANE credits earnings
    against it (None: no target; ``fitness.ane``), so that evolution does not trade an opponent below its
    target for a surplus against another.
    ``opponent_deals`` (``--fitness ane``; None: ``deals`` for every one): per training opponent, the duplicate
    deals each candidate plays against it (the hall of fame's members keep ``deals``), so that the hands of a
    generation go where its fitness is noisiest (``scripts/fitness_noise.py``).
    ``validate_window`` (0: off): at the end of the run the champions of its last ``validate_window``
    generations (all, if fewer) each play ``validate_matches`` matches of ``panel_deals`` deals against
    every training opponent on fresh common decks, and the best of them by the run's ANE over those
    opponents (its targets and opponent weights) becomes the run's champion (``validate``); otherwise it is
    the last generation's. ``validate_rule`` (``VALIDATE_RULES``): ``shortfall`` ranks them instead by their
    worst shortfall below the targets (``rank_validated``). ``validate_finalists`` (0: off): the first that
    many by that ranking play ``validate_final_matches`` more matches of ``FINAL_MATCH_DEALS`` deals against
    every training opponent on other fresh decks, and the best of them on those decks alone, by the same
    rule, is the run's champion: a second look at the few that the first stage cannot separate, free of the
    luck that put them first.
    ``average_windows`` (empty: off; needs ``validate_window``): after validation, the **averaged champions**,
    each the mean genome of the last W generations' champions (all, if fewer) for W in this order (widest
    first), play ``average_matches`` matches of ``FINAL_MATCH_DEALS`` deals against every training opponent on
    fresh decks; the first whose mBB/hand reaches every ``average_floors`` value (per training opponent, None:
    no floor; default: the targets) is the run's champion, else the validated one (``choose_average``). A
    run's champions of consecutive generations lie close together, and their mean is a flatter player than any
    one of them (weight averaging); the floors keep only the averaging that costs nothing the run aims at
    (``docs/results/evolution.md`` §2, *Averaging the champions*).
    ``champion_raising_ranges`` (empty: off; needs ``validate_window``, ``anchored`` and floors): the run's
    champion, chosen as above, then plays at each of these raising ranges in order (widest first, each wider
    than the run's ``raising_range``) ``average_matches`` matches of ``FINAL_MATCH_DEALS`` deals against every
    training opponent on fresh decks, and plays at the first that reaches every floor, else at the run's own
    (``choose_raising_range``). The raising range is a setting, not a gene: a champion evolved at one can play at
    another, and a wider one reads a raise as a stronger hand, which costs little against the training bots and
    helps against an opponent that raises only its strong hands (§2, *Widening the raising range*).
    """

    population: int = 50
    generations: int = 250
    keep: int = 15
    selector: str | None = None
    budget: int | None = None
    n0: int | None = None
    repeat: int = 1
    lag: int | None = None
    refit_every: int | None = None
    batch: int | None = None
    selector_options: dict = field(default_factory=dict)
    seed: int = 1
    hidden: int = 10
    prt_capacity: int = 1024
    lstm_reset: str = "hand"
    calling_range: float = 0.0
    explore: float = 0.0
    read_raises: bool = False
    read_reraises: bool = False
    lookahead: bool = False
    read_aggression: bool = False
    mark_reraises: bool = False
    call_option: bool = False
    anchored: bool = False
    option_range: float = 0.0
    raising_range: float = 0.0
    option_reraise: bool = False
    model: str = "ashe2"
    decision_output: str = "linear"
    raise_sizes: str = "big-blinds"
    init: str = "random"
    init_low: float = -1.0
    init_high: float = 1.0
    freeze_init: bool = False
    reset: bool = False
    hs_samples: int = DEFAULT_SAMPLES
    tser: TserParams = TserParams()
    panel_bots: tuple = PANEL_BOTS
    panel_heldout: int = 0
    panel_deals: int = 250
    fitness: str = "selector"
    opponents: tuple = ()
    hall_of_fame: int = 0
    hall_policy: str = "last"
    pool_weights: tuple = (1.0, 1.0, 1.0)
    deals: int = 500
    common_decks: bool = False
    opponent_weights: tuple | None = None
    matches: int = 1
    targets: tuple | None = None
    opponent_deals: tuple | None = None
    validate_window: int = 0
    validate_matches: int = 8
    validate_rule: str = "ane"
    validate_finalists: int = 0
    validate_final_matches: int = 20
    average_windows: tuple = ()
    average_floors: tuple | None = None
    average_matches: int = 50
    champion_raising_ranges: tuple = ()

    def __post_init__(self):
        K = _check_int(self.population, "population (players per generation)", 3)
        _check_int(self.generations, "generations", 1)
        self._check_pools()
        _check_int(self.keep, "keep (survivors per generation)", 2, K - 1)
        if self.selector not in SELECTORS:
            raise ValueError(f"unknown selector {self.selector!r}; known: {', '.join(SELECTORS)}")
        cls = SELECTORS[self.selector]
        n0 = default_n0(self.selector, self.played_pairs, self.budget) if self.n0 is None else self.n0
        _check_int(n0, f"n0 (warm-up samples per pair) for {self.selector}", max(cls.min_n0, 0))
        object.__setattr__(self, "n0", int(n0))
        _check_int(self.repeat, "repeat (samples per selector decision)", 1)
        if self.batch is None:
            batched = self.fitness == "selector" and cls.supports_batch and self.n_fixed and self.repeat == 1
            object.__setattr__(self, "batch", DEFAULT_BATCH if batched else 1)
        object.__setattr__(self, "batch", check_batch(cls, self.batch, bool(self.n_fixed)))
        if self.batch > 1 and self.repeat > 1:
            raise ValueError(f"give batch or repeat, not both (got batch {self.batch}, repeat {self.repeat})")
        if self.batch > 1 and self.fitness != "selector":
            raise ValueError(f"batch applies to --fitness selector (fitness {self.fitness} runs no selector); "
                             "allowed: batch = 1")
        if self.lag is None:
            lagged = self.selector in POSTERIOR_METHODS and self.repeat == 1
            object.__setattr__(self, "lag", max(DEFAULT_LAG, LAG_BATCHES * self.batch) if lagged else 0)
        object.__setattr__(self, "lag", check_lag(cls, self.lag))
        if self.refit_every is None:
            object.__setattr__(self, "refit_every", DEFAULT_REFIT if issubclass(cls, MLPOCBAm) else 1)
        _check_int(self.refit_every, "refit_every (selector decisions per model refit)", 1)
        object.__setattr__(self, "refit_every", int(self.refit_every))
        if self.refit_every > 1 and not issubclass(cls, MLPOCBAm):
            raise ValueError(f"refit_every applies to ml-pocbam and hybrid, not {self.selector}; allowed: 1")
        if not isinstance(self.selector_options, dict):
            raise ValueError(f"selector_options must be a dict, got {type(self.selector_options).__name__}")
        bad = {"n0", "rng", "oracle", "k", "budget", "lag", "refit_every", "batch"} & set(self.selector_options)
        if bad:
            raise ValueError(f"selector_options may not set {sorted(bad)}; use the run's own options")
        if self.fitness == "ane":
            if self.budget is not None and self.budget != self.ane_budget:
                raise ValueError(f"with fitness ane the budget is population x the deals against each fixed "
                                 f"opponent = {self.ane_budget} duplicate deals; set --deals (and "
                                 f"--opponent-deals) instead of --budget")
            object.__setattr__(self, "budget", None)
        pairs = self.played_pairs
        need = max(n0 * pairs, 1)
        budget = (n0 + 1) * pairs if self.budget is None else self.budget
        _check_int(budget, "budget (samples per generation)", 1)
        if budget < need:
            what = ("n0 * K(K-1)/2" if not self.n_fixed else
                    "n0 * (pairs of candidates and of a candidate and a fixed opponent, hall of fame full)")
            raise ValueError(
                f"budget {budget} is below the {self.selector} warm-up of {what} = {n0} * {pairs} = "
                f"{need} samples (K = {K}, n0 = {n0}); allowed: budget >= {need}"
                + (f" (the {self.selector} selector needs n0 >= {cls.min_n0})" if cls.min_n0 > 1 else ""))
        object.__setattr__(self, "budget", int(budget))
        try:  # the selector validates its own options (and lag against repeat): build one (nothing is sampled)
            repeating(cls, self.repeat)(_NoOracle(K + self.n_fixed), self.keep, self.budget, n0=self.n0,
                                        rng=np.random.default_rng(0), **self.run_options,
                                        **self.weight_options(self.hall_of_fame), **self.selector_options)
        except TypeError as err:
            allowed = []
            for klass in cls.__mro__:  # a selector that passes **options on (the hybrid) takes its parent's too
                params = inspect.signature(klass.__init__).parameters if "__init__" in vars(klass) else {}
                allowed += [p for p, v in params.items() if p not in allowed and v.kind == v.KEYWORD_ONLY
                            and p not in ("n0", "rng", "lag", "refit_every", "batch")]
                if params and not any(v.kind == v.VAR_KEYWORD for v in params.values()):
                    break
            unknown = sorted(set(self.selector_options) - set(allowed))
            if unknown:
                raise ValueError(f"selector {self.selector} has no option {', '.join(unknown)}; allowed: "
                                 f"{', '.join(allowed)}") from None
            given = ", ".join(f"{name}={value!r}" for name, value in self.selector_options.items())
            raise ValueError(f"bad selector option value for {self.selector} ({given}): {err}") from None
        _ = self.settings  # validates the players' settings
        self._check_raising_ranges()
        if self.init not in INITS:
            raise ValueError(f"init must be one of {', '.join(INITS)}, got {self.init!r}")
        if self.init in HANDMADE and self.model != "ashe2":
            raise ValueError(f"init {self.init!r} is a genome of the ashe2 model; with model={self.model} "
                             f"choose init 'random'")
        if self.init in HANDMADE and self.anchored:
            raise ValueError(f"init {self.init!r} is made for free estimates (its outputs are the estimates, where "
                             f"anchored reads them as corrections to the anchors); with anchored choose init 'random'")
        if self.init in HANDMADE:
            try:
                HANDMADE[self.init](self.settings)  # each hand-made genome checks that its cells fit
            except ValueError as err:
                raise ValueError(f"init {self.init!r}: {err}") from None
        if not isinstance(self.freeze_init, (bool, np.bool_)):
            raise ValueError(f"freeze_init must be True or False, got {self.freeze_init!r}")
        if self.freeze_init and self.init == "random":
            raise ValueError(f"freeze_init keeps a hand-made genome's weights: choose an init of "
                             f"{', '.join(INITS[1:])}, got init 'random'")
        if not (np.isfinite(self.init_low) and np.isfinite(self.init_high) and self.init_low < self.init_high):
            raise ValueError(f"need finite init_low < init_high, got [{self.init_low}, {self.init_high}]")
        if not isinstance(self.reset, (bool, np.bool_)):
            raise ValueError(f"reset must be True or False, got {self.reset!r}")
        if not isinstance(self.common_decks, (bool, np.bool_)):
            raise ValueError(f"common_decks must be True or False, got {self.common_decks!r}")
        if self.common_decks and self.fitness != "selector":
            raise ValueError("common_decks applies to --fitness selector; fitness ane always plays every "
                             "candidate on the same decks")
        if self.common_decks and not self.n_fixed:
            raise ValueError("common_decks needs fixed opponents (--opponents or --hall-of-fame) to share decks with")
        _check_int(self.hs_samples, "hs_samples", 1)
        _check_int(self.seed, "seed", 0)
        if not isinstance(self.tser, TserParams):
            raise ValueError("tser must be a TserParams")
        from ..players.base import BOTS, bot_from_spec

        bots = tuple(self.panel_bots)
        unknown = [b for b in bots if not isinstance(b, str) or bot_from_spec(b) is None]
        if unknown:
            raise ValueError(f"unknown panel bot(s) {unknown}; choose from {', '.join(BOTS)}")
        object.__setattr__(self, "panel_bots", bots)
        _check_int(self.panel_heldout, "panel_heldout (held-out generation-0 players)", 0)
        _check_int(self.panel_deals, "panel_deals (duplicate deals per panel match)", 2)
        if not bots and not self.panel_heldout:
            raise ValueError("the benchmark panel is empty: give panel bots or held-out players")
        if self.fitness == "ane":
            object.__setattr__(self, "budget", self.ane_budget)

    def _check_averaging(self) -> None:
        """The averaged champions' windows, floors and matches."""
        w = self.average_windows
        if isinstance(w, (str, bytes)) or not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                                                  and x >= 2 for x in w) or len(set(w)) != len(w):
            raise ValueError(f"average_windows must be distinct whole numbers >= 2 (the last W generations' "
                             f"champions averaged; at least generations: all of them), got {w!r}")
        object.__setattr__(self, "average_windows", tuple(int(x) for x in w))
        _check_int(self.average_matches, "average_matches (matches per averaged champion and opponent)", 1)
        object.__setattr__(self, "average_matches", int(self.average_matches))
        f = self.average_floors
        if f is not None:
            if isinstance(f, str) or len(f) != len(self.opponents) or not all(x is None or _finite(x) for x in f):
                raise ValueError(f"average_floors must be one value per training opponent ({len(self.opponents)}: "
                                 f"{', '.join(self.opponents)}), each a finite number (mBB/hand) or None (no floor), "
                                 f"got {f!r}")
            object.__setattr__(self, "average_floors", tuple(None if x is None else float(x) for x in f))
        if not w:
            if f is not None and not self.champion_raising_ranges:
                raise ValueError("average_floors applies to the averaged champions and the champion's raising "
                                 "ranges: give average_windows (or champion_raising_ranges)")
            return
        if not self.validate_window:
            raise ValueError("average_windows falls back to the validated champion: give validate_window > 0")
        if all(x is None for x in self.floors):
            raise ValueError("average_windows keeps an averaged champion only if it reaches floors: give "
                             "average_floors (or targets) with a number for at least one training opponent")

    def _check_raising_ranges(self) -> None:
        """The raising ranges the run's champion is tried at."""
        r = self.champion_raising_ranges
        own = self.raising_range
        if (isinstance(r, (str, bytes)) or not all(_finite(x) and own < x <= 1 for x in r)
                or len(set(r)) != len(r)):
            raise ValueError(f"champion_raising_ranges must be distinct numbers in ({own:g}, 1] (wider than the "
                             f"run's raising_range {own:g}), got {r!r}")
        object.__setattr__(self, "champion_raising_ranges", tuple(float(x) for x in r))
        if not r:
            return
        if not self.anchored:
            raise ValueError("champion_raising_ranges moves SWRE's anchor facing a raise: give anchored")
        if not self.validate_window:
            raise ValueError("champion_raising_ranges tries the validated champion: give validate_window > 0")
        if all(x is None for x in self.floors):
            raise ValueError("champion_raising_ranges keeps a raising range only if the champion reaches floors: "
                             "give average_floors (or targets) with a number for at least one training opponent")

    @property
    def floors(self) -> tuple:
        """Per training opponent, the mBB/hand an averaged champion, or the champion at a raising range, must
        reach: ``average_floors``, else the targets (None: no floor)."""
        if self.average_floors is not None:
            return self.average_floors
        return self.targets if self.targets is not None else (None,) * len(self.opponents)

    def _check_pools(self) -> None:
        """The fitness mode, the opponent pools and their weights."""
        if self.fitness not in FITNESS_MODES:
            raise ValueError(f"unknown fitness {self.fitness!r}; choose one of {', '.join(FITNESS_MODES)}")
        if isinstance(self.opponents, str) or not all(isinstance(o, str) and o for o in self.opponents):
            raise ValueError(f"opponents must be a sequence of player specs, got {self.opponents!r}")
        object.__setattr__(self, "opponents", tuple(self.opponents))
        for spec in self.opponents:
            resolve_opponent(spec)          # raises ValueError naming what is allowed
        H = _check_int(self.hall_of_fame, "hall_of_fame (frozen champions played)", 0)
        if H >= self.generations:
            raise ValueError(f"a hall of fame of {H} champions needs more than {H} generations (got "
                             f"{self.generations}): generation g plays the champions of generations before g; "
                             f"allowed: hall_of_fame <= {self.generations - 1}")
        if self.hall_policy not in HALL_POLICIES:
            raise ValueError(f"unknown hall_policy {self.hall_policy!r}; choose one of {', '.join(HALL_POLICIES)}")
        if self.hall_policy == "best" and H and not self.opponents:
            raise ValueError("hall_policy 'best' ranks champions by their results against the training "
                             "opponents: give opponents, or use hall_policy 'last'")
        w = self.pool_weights
        if isinstance(w, str) or len(w) != len(POOLS) or not all(_finite(x) and x >= 0 for x in w):
            raise ValueError(f"pool_weights must be {len(POOLS)} finite numbers >= 0 ({', '.join(POOLS)}), "
                             f"got {w!r}")
        object.__setattr__(self, "pool_weights", tuple(float(x) for x in w))
        if self.fitness == "ane" and not self.n_fixed:
            raise ValueError("fitness ane needs fixed opponents: give opponents (e.g. the ASHE 1.0 bots) "
                             "or a hall of fame")
        present = {"population": self.fitness == "selector", "hall": H > 0, "opponents": bool(self.opponents)}
        if sum(x for x, p in zip(self.pool_weights, POOLS) if present[p]) <= 0:
            used = [p for p in POOLS if present[p]]
            raise ValueError(f"the pool weights of the pools this run plays ({', '.join(used) or 'none'}) must sum "
                             f"to a positive number, got pool_weights {self.pool_weights}"
                             + ("; fitness ane plays only the hall of fame and the training opponents"
                                if self.fitness == "ane" else ""))
        if self.opponent_weights is not None:
            ow = self.opponent_weights
            if isinstance(ow, str) or len(ow) != len(self.opponents) or not all(_finite(x) and x > 0 for x in ow):
                raise ValueError(f"opponent_weights must be one finite number > 0 per training opponent "
                                 f"({len(self.opponents)}: {', '.join(self.opponents)}), got {ow!r}")
            object.__setattr__(self, "opponent_weights", tuple(float(x) for x in ow))
        if self.targets is not None:
            t = self.targets
            if isinstance(t, str) or len(t) != len(self.opponents) or not all(x is None or _finite(x) for x in t):
                raise ValueError(f"targets must be one value per training opponent ({len(self.opponents)}: "
                                 f"{', '.join(self.opponents)}), each a finite number (mBB/hand) or None (no "
                                 f"target), got {t!r}")
            if self.fitness != "ane":
                raise ValueError("targets applies to --fitness ane (they cap each opponent's earnings in ANE)")
            object.__setattr__(self, "targets", tuple(None if x is None else float(x) for x in t))
        _check_int(self.matches, "matches (independent matches per candidate and fixed opponent)", 1)
        object.__setattr__(self, "matches", int(self.matches))
        if self.matches > 1 and self.fitness != "ane":
            raise ValueError("matches applies to --fitness ane; a selector's pairs play one continuing match each")
        if self.opponent_deals is not None:
            d = self.opponent_deals
            if isinstance(d, str) or len(d) != len(self.opponents) or not all(
                    isinstance(x, (int, np.integer)) and not isinstance(x, bool) and x >= 1 and x % self.matches == 0
                    for x in d):
                raise ValueError(f"opponent_deals must be one whole number >= 1 per training opponent "
                                 f"({len(self.opponents)}: {', '.join(self.opponents)}), each a multiple of matches "
                                 f"({self.matches}), got {d!r}")
            if self.fitness != "ane":
                raise ValueError("opponent_deals applies to --fitness ane (the deals each candidate plays against "
                                 "each training opponent); a selector chooses its own samples")
            object.__setattr__(self, "opponent_deals", tuple(int(x) for x in d))
        W = _check_int(self.validate_window, "validate_window (last generations whose champions are re-scored)", 0)
        _check_int(self.validate_matches, "validate_matches (validation matches per champion and opponent)", 1)
        object.__setattr__(self, "validate_window", int(W))
        object.__setattr__(self, "validate_matches", int(self.validate_matches))
        if W and not self.opponents:
            raise ValueError("validate_window re-scores champions against the training opponents: give opponents, "
                             "or validate_window 0")
        if self.validate_rule not in VALIDATE_RULES:
            raise ValueError(f"validate_rule must be one of {', '.join(VALIDATE_RULES)}, got {self.validate_rule!r}")
        if self.validate_rule == "shortfall" and not (
                self.targets is not None and any(x is not None for x in self.targets)
                and all(x is None or x > 0 for x in self.targets)):
            raise ValueError("validate_rule shortfall measures each champion's shortfall in units of its targets: "
                             f"give targets > 0 (None: no target) for at least one training opponent, got "
                             f"{self.targets!r}")
        if self.validate_rule != "ane" and not W:
            raise ValueError(f"validate_rule {self.validate_rule} ranks the champions that validate_window re-scores: "
                             "give validate_window > 0, or validate_rule ane without one")
        F = _check_int(self.validate_finalists, "validate_finalists (champions re-scored a second time)", 0)
        _check_int(self.validate_final_matches, "validate_final_matches (matches per finalist and opponent)", 1)
        object.__setattr__(self, "validate_finalists", int(F))
        object.__setattr__(self, "validate_final_matches", int(self.validate_final_matches))
        if F == 1 or (F and not W):
            raise ValueError(f"validate_finalists re-scores the first of the champions that validate_window "
                             f"re-scores: give 0 (off) or at least 2 with validate_window > 0, got {F}")
        self._check_averaging()
        if self.selector is None:
            fixed = self.fitness == "selector" and self.n_fixed
            object.__setattr__(self, "selector", DEFAULT_FIXED_SELECTOR if fixed else DEFAULT_SELECTOR)
        if self.fitness == "ane":
            _check_int(self.deals, "deals (duplicate deals per candidate and fixed opponent)", 1)
            if self.deals % self.matches:
                raise ValueError(f"deals ({self.deals}) must be a multiple of matches ({self.matches}): each match "
                                 f"plays deals / matches duplicate deals")
        elif self.n_fixed and not SELECTORS[self.selector].supports_weights:
            able = [n for n, c in SELECTORS.items() if c.supports_weights]
            raise ValueError(f"selector {self.selector} cannot rank candidates against fixed opponents (opponents, "
                             f"hall_of_fame); use one of {', '.join(able)} or fitness ane")

    @property
    def n_fixed(self) -> int:
        """Fixed opponents a candidate meets: the training opponents and the hall of fame's slots."""
        return len(self.opponents) + int(self.hall_of_fame)

    def weight_options(self, hall_present: int) -> dict:
        """The selector's ``candidates`` and ``weights`` for a generation whose hall of fame holds
        ``hall_present`` champions (none without fixed opponents: every player a candidate, Borda score).
        Candidate ``i``'s score is ``sum_pool w_pool x`` its mean result against the pool (``pool_weights``);
        empty pools drop out."""
        if not self.n_fixed:
            return {}
        from ..selectors.weights import pool_weights

        w_pop, w_hall, w_opp = self.pool_weights
        if self.opponent_weights is None:  # one pool of equal weights
            pools = [(len(self.opponents), w_opp)] if self.opponents else []
        else:  # one pool per opponent, sharing the pool's weight in proportion
            rel = np.array(self.opponent_weights)
            pools = [(1, w_opp * r) for r in rel / rel.sum()]
        pools += [(hall_present, w_hall)] if hall_present else []
        return {"candidates": self.population, "weights": pool_weights(self.population, pools, w_pop)}

    @property
    def played_pairs(self) -> int:
        """Pairs a selector samples with the hall of fame full: those of two candidates (population weight
        > 0) and of a candidate and a fixed opponent whose pool weight is > 0."""
        K = int(self.population)
        w_pop, w_hall, w_opp = self.pool_weights
        fixed = len(self.opponents) * (w_opp > 0) + int(self.hall_of_fame) * (w_hall > 0)
        return n_pairs(K) * (w_pop > 0 or not self.n_fixed) + K * fixed

    @property
    def fixed_deals(self) -> tuple:
        """Duplicate deals per candidate against each fixed opponent with fitness ane: the training opponents
        (``opponent_deals``, else ``deals``), then the hall of fame's slots (``deals``)."""
        training = self.opponent_deals or (int(self.deals),) * len(self.opponents)
        return (*training, *(int(self.deals),) * int(self.hall_of_fame))

    @property
    def ane_budget(self) -> int:
        """Duplicate deals per generation with fitness ane: every candidate against every fixed opponent."""
        return int(self.population) * sum(self.fixed_deals)

    @property
    def trace_length(self) -> int:
        """Samples per generation kept in the run file's trace (the selector's; ane keeps the matrix only)."""
        return 0 if self.fitness == "ane" else int(self.budget)

    @property
    def run_options(self) -> dict:
        """The selector keywords the run sets itself beyond ``n0`` and ``rng`` (only those not at 0 / 1)."""
        return {**({"lag": self.lag} if self.lag else {}),
                **({"refit_every": self.refit_every} if self.refit_every > 1 else {}),
                **({"batch": self.batch} if self.batch > 1 else {})}

    @property
    def settings(self) -> AsheSettings:
        return AsheSettings(**{name: getattr(self, name) for name in AsheSettings.__dataclass_fields__})

    @property
    def panel_names(self) -> list[str]:
        return list(self.panel_bots) + [f"heldout:{h}" for h in range(self.panel_heldout)]

    def to_dict(self) -> dict:
        d = asdict(self)
        d["tser"] = self.tser.to_dict()
        d["panel_bots"] = list(self.panel_bots)
        d["opponents"] = list(self.opponents)
        d["pool_weights"] = list(self.pool_weights)
        d["reset"] = bool(self.reset)
        d["common_decks"] = bool(self.common_decks)
        d["opponent_weights"] = None if self.opponent_weights is None else list(self.opponent_weights)
        d["targets"] = None if self.targets is None else list(self.targets)
        d["opponent_deals"] = None if self.opponent_deals is None else list(self.opponent_deals)
        d["average_windows"] = list(self.average_windows)
        d["average_floors"] = None if self.average_floors is None else list(self.average_floors)
        for key, default in LATER_DEFAULTS.items():  # left out at their defaults: older run files compare equal
            if d[key] == default:
                del d[key]
        return json.loads(json.dumps(d, sort_keys=True))

    @classmethod
    def from_dict(cls, d: dict) -> "EvolveConfig":
        d = dict(d)
        d.setdefault("lag", 0)  # files from before these options: every sample seen, a refit every decision
        d.setdefault("refit_every", 1)
        d.setdefault("batch", 1)
        d["tser"] = TserParams(**d.get("tser", {}))
        d["panel_bots"] = tuple(d.get("panel_bots", PANEL_BOTS))
        d["opponents"] = tuple(d.get("opponents", ()))
        d["pool_weights"] = tuple(d.get("pool_weights", (1.0, 1.0, 1.0)))
        if d.get("opponent_weights") is not None:
            d["opponent_weights"] = tuple(d["opponent_weights"])
        if d.get("targets") is not None:
            d["targets"] = tuple(d["targets"])
        if d.get("opponent_deals") is not None:
            d["opponent_deals"] = tuple(d["opponent_deals"])
        d["average_windows"] = tuple(d.get("average_windows", ()))
        if d.get("average_floors") is not None:
            d["average_floors"] = tuple(d["average_floors"])
        if d.get("fitness") == "ane":
            d["budget"] = None   # derived from the deals
        return cls(**d)


# ----------------------------------------------------------------------------------------- seeds


def _seq(seed: int, *key: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(seed, spawn_key=key)


def _word(seed: int, *key: int) -> int:
    return int(_seq(seed, *key).generate_state(1, np.uint64)[0] >> np.uint64(1))


def frozen_genes(cfg: EvolveConfig) -> np.ndarray | None:
    """With ``freeze_init``, the genes the hand-made init genome sets (its non-zero weights), which evolution
    leaves as designed; otherwise None."""
    return HANDMADE[cfg.init](cfg.settings) != 0 if cfg.freeze_init else None


def _generation0(cfg: EvolveConfig, size: int, seed: int) -> np.ndarray:
    """``size`` genomes: uniform on ``[init_low, init_high]``, added to a hand-made genome if ``init`` names one
    (with ``freeze_init``, its non-zero weights exactly, without the noise)."""
    genomes = new_population(size, seed, cfg.settings, cfg.init_low, cfg.init_high).genomes
    if cfg.init in HANDMADE:
        made = HANDMADE[cfg.init](cfg.settings)
        genomes = genomes + made
        if cfg.freeze_init:
            set_by_hand = made != 0
            genomes[:, set_by_hand] = made[set_by_hand]
    return genomes


def initial_population(cfg: EvolveConfig) -> np.ndarray:
    """Generation 0's genomes."""
    return _generation0(cfg, cfg.population, _word(cfg.seed, 0))


def heldout_players(cfg: EvolveConfig) -> np.ndarray:
    """The panel's held-out generation-0-style genomes (same distribution, never in the population)."""
    if cfg.panel_heldout == 0:
        return np.zeros((0, cfg.settings.genome_size), np.float32)
    return _generation0(cfg, cfg.panel_heldout, _word(cfg.seed, 4))


def resolve_opponent(spec: str):
    """The player a fixed-opponent spec names: a bot (``BOTS``), ``handbuilt`` (the hand-built reference
    player) or another hand-made genome, ``anchors`` (the anchored estimators' all-zero genome),
    ``FILE.h5:INDEX`` (player INDEX of a population file, or of an evolution run file's current population) or
    ``RUN.h5:champion[:G]`` (generation G's champion of a run file, 1-based; without G the run's champion,
    ``EvolutionRun.champion``). ``ValueError`` if unknown."""
    from ..players.base import BOTS, bot_from_spec, make_player

    if not isinstance(spec, str):
        raise ValueError(f"an opponent spec must be a string, got {spec!r}")
    bot = bot_from_spec(spec)
    if bot is not None:
        return bot
    path, sep, rest = spec.partition(".h5:")
    if not sep:                         # not a file: another registered spec (a hand-made genome) or unknown
        try:
            return make_player(spec)
        except ValueError:
            raise ValueError(f"unknown opponent {spec!r}; choose a bot ({', '.join(BOTS)}, or NAME(key=value, "
                             f"...) with its rule constants), {', '.join(HANDMADE)}, {ANCHORS_SPEC}, FILE.h5:INDEX "
                             "of a population or run file, or RUN.h5:champion[:GENERATION]") from None
    path += ".h5"
    if file_format(path) != FORMAT:     # not an evolution run file: a population file, or an error from it
        if rest.startswith("champion"):
            raise ValueError(f"opponent {spec!r}: {path} is not an evolution run file (champion needs one)")
        return make_player(spec)
    run = load_run(path)
    settings = run.config.settings
    if rest.startswith("champion"):
        gen = rest[len("champion"):]
        if gen and not (gen.startswith(":") and gen[1:].isdigit()):
            raise ValueError(f"opponent {spec!r}: expected RUN.h5:champion or RUN.h5:champion:GENERATION")
        if not gen:
            return run.champion_player(name=spec)
        g = int(gen[1:])
        if not 1 <= g <= run.completed:
            raise ValueError(f"opponent {spec!r}: {path} has champions of generations 1..{run.completed}")
        return ashe_player(run.records["champion"][g - 1], settings, name=spec)
    if not rest.isdigit() or int(rest) >= len(run.population):
        raise ValueError(f"opponent {spec!r}: expected an index in 0..{len(run.population) - 1} of {path}")
    return ashe_player(run.population[int(rest)], settings, name=spec)


def _resolve_run_spec(spec: str):
    """``make_player``'s resolver for players of evolution run files (``resolve_opponent``); others: None."""
    path, sep, _ = spec.partition(".h5:")
    if not sep or file_format(path + ".h5") != FORMAT:
        return None
    return resolve_opponent(spec)


register_spec_resolver(_resolve_run_spec)


def training_opponents(cfg: EvolveConfig) -> list:
    """The players of ``cfg.opponents``, in order."""
    return [resolve_opponent(spec) for spec in cfg.opponents]


def hall_members(cfg: EvolveConfig, champions: list, scores: list) -> np.ndarray:
    """Generation indices (0-based) of the hall of fame that the next generation plays, one per slot (-1 for
    an empty slot): the last ``hall_of_fame`` champions, or (``hall_policy`` "best") the champions with the
    best results against the training opponents (``scores``, mBB/hand; ties to the later generation)."""
    H = cfg.hall_of_fame
    out = np.full(H, -1, np.int64)
    n = len(champions)
    if H == 0 or n == 0:
        return out
    if cfg.hall_policy == "last":
        picked = np.arange(max(0, n - H), n)
    else:
        order = sorted(range(n), key=lambda g: (-scores[g], -g))
        picked = np.sort(np.array(order[:H], np.int64))
    out[:picked.size] = picked
    return out


def ane_seed(cfg: EvolveConfig, generation: int) -> int:
    """The ``play_duplicate`` seed of generation ``generation``'s fixed-opponent matches (one deck set for
    every candidate and opponent of the generation, a new one each generation)."""
    return _word(cfg.seed, 6, generation)


def panel_seed(cfg: EvolveConfig) -> int:
    """The ``play_duplicate`` seed of every panel match (the fixed deck set)."""
    return _word(cfg.seed, 5)


def validation_seed(cfg: EvolveConfig) -> int:
    """The ``play_duplicate`` seed of the champions' validation matches (decks no generation trains on)."""
    return _word(cfg.seed, 7)


def final_validation_seed(cfg: EvolveConfig) -> int:
    """The ``play_duplicate`` seed of the finalists' validation matches (``validate_finalists``)."""
    return _word(cfg.seed, 8)


def average_seed(cfg: EvolveConfig) -> int:
    """The ``play_duplicate`` seed of the averaged champions' matches (``average_windows``)."""
    return _word(cfg.seed, 9)


def raising_seed(cfg: EvolveConfig) -> int:
    """The ``play_duplicate`` seed of the champion's matches at other raising ranges (``champion_raising_ranges``)."""
    return _word(cfg.seed, 10)


# ----------------------------------------------------------------------------------------- selection


def repeating(cls, repeat: int):
    """``cls`` whose every decision is followed by ``repeat - 1`` more samples of the same pair.

    ``run`` takes each decision's samples in one oracle call (a live oracle plays them as one stretch of
    the pair's match); ``step`` gives the same samples one at a time."""
    if repeat == 1:
        return cls

    class Repeating(cls):
        _rep_left = 0
        _rep_p = -1

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            if self.lag:
                raise ValueError(f"give lag or repeat, not both (got lag {self.lag}, repeat {repeat})")

        def _decide(self):
            if self._rep_left > 0:
                self._rep_left -= 1
                if hasattr(self, "ii_trace"):  # hybrid: the repeated samples share the decision's II/mode
                    self.ii_trace[self.used] = self.ii_trace[self.used - 1]
                    self.mode_trace[self.used] = self.mode_trace[self.used - 1]
                return self._rep_p
            self._rep_p = super()._decide()
            self._rep_left = repeat - 1
            return self._rep_p

        def run(self):
            self._warmup_batch()
            while self._rep_left > 0 and self.used < self.budget:   # finish a decision begun by step()
                self.step()
            while self.used < self.budget:
                t = self.used
                p = super()._decide()
                m = min(repeat, self.budget - t)
                self._take(p, m)
                if hasattr(self, "ii_trace"):
                    self.ii_trace[t + 1:t + m] = self.ii_trace[t]
                    self.mode_trace[t + 1:t + m] = self.mode_trace[t]
            return self.top_k()

    Repeating.__name__ = f"{cls.__name__}x{repeat}"
    return Repeating


def fixed_players(cfg: EvolveConfig, opponents: list, hall: np.ndarray, champions: list) -> list:
    """The fixed opponents of a generation: the training ``opponents`` (players), then the hall of fame's
    present members (``hall``: generation indices into ``champions``, -1 for an empty slot)."""
    return list(opponents) + [ashe_player(champions[h], cfg.settings, name=f"hall:{h + 1}") for h in hall if h >= 0]


def generation_oracle(cfg: EvolveConfig, genomes: np.ndarray, generation: int, memory_pool=None,
                      fixed=()) -> LiveOracle:
    """The live oracle of generation ``generation``'s population ``genomes`` followed by the ``fixed``
    opponents (its decks and player randomness seeded by the run seed and the generation); ``memory_pool``
    (``oracles.MemoryPool``): where its matches' memories come from and go back to with ``release()`` (the
    results do not depend on it)."""
    players = [ashe_player(g, cfg.settings, name=f"g{generation}:{i}") for i, g in enumerate(genomes)]
    return LiveOracle(players + list(fixed), _seq(cfg.seed, 1, generation), reset=bool(cfg.reset),
                      hs_samples=cfg.hs_samples, memory_pool=memory_pool,
                      common_decks_from=len(genomes) if cfg.common_decks and len(fixed) else None)


def select(cfg: EvolveConfig, genomes: np.ndarray, generation: int, memory_pool=None, oracle=None,
           fixed=(), hall=None, lag_thread: bool = True) -> dict:
    """Run the selector on ``genomes`` (and the ``fixed`` opponents, the training opponents then the hall of
    fame's members ``hall``) for ``generation``; the survivors, champion, trace and timings.

    ``oracle``: the ``generation_oracle`` of ``genomes`` and ``fixed``, if already made; the caller then
    releases it. Otherwise ``select`` makes one from ``memory_pool`` and releases it. ``lag_thread``: with a
    lag, play the deals in a second thread (``Selector.run``'s ``thread``; the results do not depend on it)."""
    hall = np.full(cfg.hall_of_fame, -1, np.int64) if hall is None else np.asarray(hall, np.int64)
    own = oracle is None
    if own:
        oracle = generation_oracle(cfg, genomes, generation, memory_pool, fixed)
    K = len(genomes)
    cls = repeating(SELECTORS[cfg.selector], cfg.repeat)
    rng = np.random.default_rng(_seq(cfg.seed, 2, generation))
    t0 = time.perf_counter()
    sel = cls(oracle, cfg.keep, cfg.budget, n0=cfg.n0, rng=rng, **cfg.run_options,
              **cfg.weight_options(int(np.sum(hall >= 0))), **cfg.selector_options)
    top = np.asarray(sel.run(thread=lag_thread) if sel.lag else sel.run(), dtype=np.int64)
    scores = np.asarray(sel.scores(), dtype=np.float64)
    wall = time.perf_counter() - t0
    counts = np.zeros((K, 3), np.int64)      # each candidate's decisions in its matches of the generation
    kind = MODELS[cfg.model]
    for i, j, mem in oracle.match_memories():
        counts[i] += action_counts(kind, mem[0])
        if j < K:
            counts[j] += action_counts(kind, mem[2])
    if own:
        oracle.release()
    tr = sel.trace
    B = cfg.budget
    ii = np.full(B, np.nan, np.float32)
    mode = np.zeros(B, np.int8)
    final_ii, final_mode = np.nan, 0
    if hasattr(sel, "ii_trace"):
        ii[:] = sel.ii_trace[:B]
        mode[:] = sel.mode_trace[:B]
        final_ii, final_mode = float(sel.final_ii), int(sel.final_mode)
    decided = mode[sel.warmup:]
    return {"survivors": top, "scores": scores, "samples_used": int(sel.used),
            "fixed_mbb": _fixed_means(K, cfg.n_fixed, tr), "hall": hall, "actions": action_shares(counts),
            "decisions": sel.decisions if cfg.batch > 1 else int(np.ceil(max(sel.used - sel.warmup, 0) / cfg.repeat)),
            "ml_fraction": float(np.mean(decided == 1)) if decided.size else np.nan,
            "final_ii": final_ii, "final_mode": final_mode, "ii_trace": ii, "mode_trace": mode,
            "trace_i": tr.i.astype(np.int16), "trace_j": tr.j.astype(np.int16), "trace_x": tr.x.astype(np.float32),
            "selector_seconds": wall, "engine_seconds": float(np.sum(oracle.seconds)),
            "deals_played": int(oracle.deals_played.sum())}


def action_shares(counts: np.ndarray) -> np.ndarray:
    """Rows of (folds, checks/calls, raises) counts as shares of each row's decisions (NaN without any)."""
    counts = np.asarray(counts, np.float64)
    total = counts.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, counts / total, np.nan)


def _fixed_means(K: int, n_fixed: int, trace) -> np.ndarray:
    """Every candidate's mBB/hand against each fixed opponent (players ``K`` on) from a selector's trace
    (NaN where a pair was not sampled): a sample is candidate ``i``'s chips over a duplicate deal."""
    out = np.full((K, n_fixed), np.nan)
    if not n_fixed:
        return out
    i, j, x = np.asarray(trace.i), np.asarray(trace.j), np.asarray(trace.x, np.float64)
    vs = j >= K
    cell = i[vs] * n_fixed + (j[vs] - K)
    n = np.bincount(cell, minlength=K * n_fixed)
    total = np.bincount(cell, weights=x[vs], minlength=K * n_fixed)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, total / n, np.nan)
    return (mean / 2 / BIG_BLIND * 1000).reshape(K, n_fixed)


def evaluate(cfg: EvolveConfig, genomes: np.ndarray, generation: int, opponents: list, hall: np.ndarray,
             champions: list, backend) -> dict:
    """Fitness ``ane``: every candidate plays every training opponent and hall-of-fame member its deals
    (``cfg.fixed_deals``) on the generation's common decks; the survivors are the ``keep`` of highest fitness
    (pool-weighted ANE, ``fitness.ane``), best first. Same keys as ``select``."""
    from .fitness import ane, chips_of, earnings_matrix, mbb_per_hand

    t0 = time.perf_counter()
    candidates = [ashe_player(g, cfg.settings, name=f"g{generation}:{i}") for i, g in enumerate(genomes)]
    fixed = fixed_players(cfg, opponents, hall, champions)
    per = np.array(cfg.fixed_deals)
    e, engine, actions = earnings_matrix(candidates, fixed, per[:len(fixed)], ane_seed(cfg, generation), backend,
                                         cfg.hs_samples, matches=cfg.matches)
    E = np.full((len(genomes), cfg.n_fixed), np.nan)
    E[:, :e.shape[1]] = e
    pools = np.array([POOLS.index("opponents")] * len(opponents) + [POOLS.index("hall")] * cfg.hall_of_fame)
    caps = None if cfg.targets is None else [*cfg.targets, *[None] * cfg.hall_of_fame]
    columns = None if cfg.opponent_weights is None else [*cfg.opponent_weights, *[1.0] * cfg.hall_of_fame]
    fitness = ane(E, pools, cfg.pool_weights, caps=chips_of(caps, per), column_weights=columns)
    top = np.argsort(-fitness, kind="stable")[:cfg.keep]
    empty = np.zeros(0)
    deals = int(len(genomes) * per[:len(fixed)].sum())   # every candidate against every present fixed opponent
    return {"survivors": top.astype(np.int64), "scores": fitness, "samples_used": deals,
            "decisions": 0, "ml_fraction": np.nan, "final_ii": np.nan, "final_mode": 0,
            "ii_trace": empty.astype(np.float32), "mode_trace": empty.astype(np.int8),
            "trace_i": empty.astype(np.int16), "trace_j": empty.astype(np.int16), "trace_x": empty.astype(np.float32),
            "fixed_mbb": mbb_per_hand(E, per), "hall": hall.copy(), "actions": action_shares(actions),
            "selector_seconds": time.perf_counter() - t0,
            "engine_seconds": engine, "deals_played": deals}


def training_score(cfg: EvolveConfig, res: dict, index: int) -> float:
    """Candidate ``index``'s mean mBB/hand against the training opponents in its generation (NaN without)."""
    m = len(cfg.opponents)
    return float(res["fixed_mbb"][index, :m].mean()) if m else float("nan")


def rank_validated(mbb: np.ndarray, fitness: np.ndarray, targets, rule: str = "ane") -> np.ndarray:
    """Row indices of re-scored champions, best first (rows of ``mbb``: mBB/hand against each training
    opponent; ``fitness``: their ANE). ``ane``: by fitness. ``shortfall``: by the worst shortfall below
    ``targets`` (opponents without one ignored), ``max_j max(0, (t_j - mbb_ij) / t_j)``, smallest first, so
    that a champion short of one target is not preferred for a surplus elsewhere, which ANE's uncapped
    opponents still allow; then (every target met, say) by fitness. Ties go to the earlier row."""
    fitness = np.asarray(fitness, np.float64)
    rows = np.arange(len(fitness))
    if rule == "ane":
        return np.lexsort((rows, -fitness))
    if rule != "shortfall":
        raise ValueError(f"rule must be one of {', '.join(VALIDATE_RULES)}, got {rule!r}")
    cols = [j for j, t in enumerate(targets) if t is not None]
    t = np.array([targets[j] for j in cols], np.float64)
    worst = np.maximum(0.0, (t - np.asarray(mbb, np.float64)[:, cols]) / t).max(axis=1)
    return np.lexsort((rows, -fitness, worst))


def choose_validated(mbb: np.ndarray, fitness: np.ndarray, targets, rule: str = "ane") -> int:
    """The index of the best re-scored champion by ``rank_validated``."""
    return int(rank_validated(mbb, fitness, targets, rule)[0])


#: deals of a finalist's validation match: ASHE 1.0's match of 1,000 hands, the length Table 2 is measured on
FINAL_MATCH_DEALS = 500


def _rescore(cfg: EvolveConfig, players: list, matches: int, match_deals: int, seed: int, backend):
    """``players``' mBB/hand against every training opponent and their ANE (the run's targets and opponent
    weights), over ``matches`` matches of ``match_deals`` deals on the decks of ``seed``."""
    from .fitness import ane, chips_of, earnings_matrix, mbb_per_hand

    deals = matches * match_deals
    e, _, _ = earnings_matrix(players, training_opponents(cfg), deals, seed, backend, cfg.hs_samples,
                              matches=matches)
    return mbb_per_hand(e, deals), ane(e, caps=chips_of(cfg.targets, deals), column_weights=cfg.opponent_weights)


def validate(cfg: EvolveConfig, champions: list, backend, seed: int | None = None,
             final_seed: int | None = None, first_stage: dict | None = None,
             averages_seed: int | None = None, ranges_seed: int | None = None) -> dict:
    """The run's champion among the last ``cfg.validate_window`` generations' ``champions``: each plays
    ``validate_matches`` matches of ``panel_deals`` deals against every training opponent, all on the same
    fresh decks (``seed``; by default ``validation_seed``), and they are ranked by ``cfg.validate_rule``
    (``rank_validated``: ANE over those opponents with the run's targets and opponent weights, or the worst
    shortfall below the targets). A generation's champion is the best of one noisy estimate (a few hundred
    deals per opponent); this picks among several on many more deals. Without ``validate_finalists`` the
    first is the run's champion; with, the first ``validate_finalists`` play ``validate_final_matches``
    matches of ``FINAL_MATCH_DEALS`` deals on other fresh decks (``final_seed``; by default
    ``final_validation_seed``) and the first of them by the same rule on those decks alone is.

    Returns the ``generations`` (1-based) re-scored, their ``mbb`` (mBB/hand, generations x training
    opponents), ``fitness`` (ANE) and the ``champion``'s generation; with finalists also ``finalists``
    (generations, in the first stage's order), ``final_mbb`` and ``final_fitness``.

    With ``average_windows``, the averaged champions are then re-scored on the decks of ``averages_seed``
    (by default ``average_seed``) and the result has ``choose_average``'s entries too; with
    ``champion_raising_ranges``, the champion so chosen then plays at those on the decks of ``ranges_seed`` (by
    default ``raising_seed``) and the result has ``choose_raising_range``'s entries too.

    ``first_stage``: a stored validation of these champions (its ``generations``, ``mbb`` and ``fitness``, as
    a finished run keeps them) taken as the first stage instead of playing it again."""
    G = len(champions)
    gens = np.arange(max(1, G - cfg.validate_window + 1), G + 1, dtype=np.int64)
    players = [ashe_player(champions[g - 1], cfg.settings, name=f"champion:{g}") for g in gens]
    if first_stage is not None:
        if not np.array_equal(first_stage["generations"], gens):
            raise ValueError(f"the stored first stage re-scored generations {first_stage['generations'][0]}.."
                             f"{first_stage['generations'][-1]}, not the window's {gens[0]}..{gens[-1]}")
        mbb, fitness = np.asarray(first_stage["mbb"]), np.asarray(first_stage["fitness"])
    else:
        seed = validation_seed(cfg) if seed is None else seed
        mbb, fitness = _rescore(cfg, players, cfg.validate_matches, cfg.panel_deals, seed, backend)
    order = rank_validated(mbb, fitness, cfg.targets, cfg.validate_rule)
    out = {"generations": gens, "mbb": mbb, "fitness": fitness, "champion": int(gens[order[0]])}
    if cfg.validate_finalists:
        first = order[:cfg.validate_finalists]
        final_seed = final_validation_seed(cfg) if final_seed is None else final_seed
        f_mbb, f_fit = _rescore(cfg, [players[i] for i in first], cfg.validate_final_matches, FINAL_MATCH_DEALS,
                                final_seed, backend)
        best = choose_validated(f_mbb, f_fit, cfg.targets, cfg.validate_rule)
        out.update(finalists=gens[first], final_mbb=f_mbb, final_fitness=f_fit, champion=int(gens[first[best]]))
    if cfg.average_windows:
        out.update(choose_average(cfg, champions, backend, averages_seed if averages_seed is not None
                                  else average_seed(cfg)))
    if cfg.champion_raising_ranges:
        out.update(choose_raising_range(cfg, chosen_genome(champions, out), backend,
                                        ranges_seed if ranges_seed is not None else raising_seed(cfg)))
    return out


def chosen_genome(champions, validation: dict) -> np.ndarray:
    """The genome ``validate``'s result (``validation``) chose among ``champions``: the mean of the last W
    (``average`` W > 0) or the validated generation's."""
    w = int(validation.get("average", 0))
    return average_genome(champions, w) if w else champions[int(validation["champion"]) - 1]


def average_genome(champions, window: int) -> np.ndarray:
    """The mean genome (float32, summed in float64) of the last ``window`` of ``champions`` (genomes, one a
    generation): a player between them, in the flat region their lineage has explored."""
    rows = np.asarray(champions[-window:], np.float64)
    return rows.mean(axis=0).astype(np.float32)


def choose_average(cfg: EvolveConfig, champions: list, backend, seed: int) -> dict:
    """``cfg.average_windows``' averaged champions (``average_genome``) re-scored: each plays
    ``average_matches`` matches of ``FINAL_MATCH_DEALS`` deals against every training opponent on the decks
    of ``seed``; the first, in the windows' order, at or above every floor (``cfg.floors``) is chosen.

    A form of the one-standard-error rule: the most averaged (widest) player that still reaches what the run
    aims at. A window wider than the run averages all its champions (once). Returns ``averages`` (the windows
    so bounded), ``average_mbb``, ``average_fitness`` and ``average`` (the chosen window, 0 if none reaches the
    floors)."""
    windows = np.array(list(dict.fromkeys(min(w, len(champions)) for w in cfg.average_windows)), np.int64)
    players = [ashe_player(average_genome(champions, w), cfg.settings, name=f"average:{w}") for w in windows]
    mbb, fitness = _rescore(cfg, players, cfg.average_matches, FINAL_MATCH_DEALS, seed, backend)
    first = _first_at_floors(cfg, mbb)
    chosen = int(windows[first]) if first >= 0 else 0
    return {"averages": windows, "average_mbb": mbb, "average_fitness": fitness, "average": chosen}


def _first_at_floors(cfg: EvolveConfig, mbb: np.ndarray) -> int:
    """The first row of ``mbb`` (players x training opponents) at or above every floor (``cfg.floors``), else -1."""
    cols = [j for j, f in enumerate(cfg.floors) if f is not None]
    reach = np.all(mbb[:, cols] >= np.array([cfg.floors[j] for j in cols], np.float64), axis=1)
    return int(np.argmax(reach)) if reach.any() else -1


def choose_raising_range(cfg: EvolveConfig, genome: np.ndarray, backend, seed: int) -> dict:
    """The run's champion (``genome``) at each of ``cfg.champion_raising_ranges``, re-scored as
    ``choose_average`` re-scores the averaged champions (on the decks of ``seed``); the first at or above every
    floor is the champion's raising range. Like the averaging, the most the champion can be moved towards
    reading a raise as a strong hand while it still reaches what the run aims at. Returns ``raising_ranges``,
    ``raising_mbb``, ``raising_fitness`` and ``raising_range`` (the chosen one, else the run's own)."""
    ranges = np.array(cfg.champion_raising_ranges, np.float64)
    players = [ashe_player(genome, replace(cfg.settings, raising_range=float(r)), name=f"raising_range:{r:g}")
               for r in ranges]
    mbb, fitness = _rescore(cfg, players, cfg.average_matches, FINAL_MATCH_DEALS, seed, backend)
    first = _first_at_floors(cfg, mbb)
    chosen = float(ranges[first]) if first >= 0 else cfg.raising_range
    return {"raising_ranges": ranges, "raising_mbb": mbb, "raising_fitness": fitness, "raising_range": chosen}


# ----------------------------------------------------------------------------------------- the panel


def panel_match(task: dict) -> dict:
    """Worker function: the champion against one panel opponent (plain data in and out, any backend)."""
    from ..play.matches import play_duplicate

    settings = AsheSettings.from_dict(task["settings"])
    champ = ashe_player(np.asarray(task["champion"], np.float32), AsheSettings.from_dict(task["champion_settings"]),
                        name="champion")
    opp = task["opponent"]
    if not isinstance(opp, str):
        opp = ashe_player(np.asarray(opp, np.float32), settings, name="heldout")
    t0 = time.perf_counter()
    r = play_duplicate(champ, opp, task["deals"], task["seed"], hs_samples=task["hs_samples"])
    mean, ci = r.mbb_per_hand()
    return {"index": task["index"], "mean": mean, "ci": ci, "seconds": time.perf_counter() - t0}


def panel_tasks(cfg: EvolveConfig, champion: np.ndarray, heldout: np.ndarray,
                settings: AsheSettings | None = None) -> list[dict]:
    """One ``panel_match`` task per panel opponent; the champion plays with ``settings`` (default the run's),
    the held-out generation-0 players with the run's."""
    opponents = list(cfg.panel_bots) + [h for h in heldout]
    base = {"settings": cfg.settings.to_dict(), "champion": np.asarray(champion, np.float32),
            "champion_settings": (settings or cfg.settings).to_dict(),
            "deals": cfg.panel_deals, "seed": panel_seed(cfg), "hs_samples": cfg.hs_samples}
    return [{**base, "index": n, "opponent": o} for n, o in enumerate(opponents)]


def _timed_panel(cfg, champion, heldout, backend):
    t0 = time.perf_counter()
    mean, ci = run_panel(cfg, champion, heldout, backend)
    return mean, ci, time.perf_counter() - t0


def run_panel(cfg: EvolveConfig, champion: np.ndarray, heldout: np.ndarray, backend,
              settings: AsheSettings | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The champion's mBB/hand and 95% half-widths against every panel opponent (``panel_names`` order); the
    champion plays with ``settings`` (default the run's)."""
    tasks = panel_tasks(cfg, champion, heldout, settings)
    mean, ci = np.empty(len(tasks)), np.empty(len(tasks))
    for _, res in backend.map_unordered(panel_match, tasks):
        mean[res["index"]], ci[res["index"]] = res["mean"], res["ci"]
    return mean, ci


# ----------------------------------------------------------------------------------------- the run file

_PER_GEN = ("survivors", "scores", "champion", "samples_used", "decisions", "ml_fraction", "final_ii",
            "final_mode", "ii_trace", "mode_trace", "trace_i", "trace_j", "trace_x", "panel_mean", "panel_ci",
            "origin", "parents", "rate", "sigma", "timing", "fixed_mbb", "hall", "champion_train", "actions")
#: a finished run's ``validate`` result (``finalists`` to ``final_fitness`` only with ``validate_finalists``,
#: ``averages`` to ``average_fitness`` only with ``average_windows``, ``raising_ranges`` to ``raising_fitness``
#: only with ``champion_raising_ranges``, the panel's only if the champion is no generation's as it played)
VALIDATION_RECORDS = ("generations", "mbb", "fitness", "finalists", "final_mbb", "final_fitness", "averages",
                      "average_mbb", "average_fitness", "raising_ranges", "raising_mbb", "raising_fitness",
                      "panel_mean", "panel_ci")
#: records that files written before fixed opponents existed lack (read as their empty defaults)
_ADDED = ("fixed_mbb", "hall", "champion_train", "actions")


@dataclass
class EvolutionRun:
    """A run file's contents: the config, the state to continue from and the per-generation records."""

    path: str
    config: EvolveConfig
    attrs: dict
    population: np.ndarray
    population0: np.ndarray
    heldout: np.ndarray
    records: dict  # name -> array with one row per completed generation
    validation: dict | None = None  # ``validate``'s result, once a run with a validate_window has finished

    @property
    def completed(self) -> int:
        return len(self.records["samples_used"])

    @property
    def champion_average(self) -> int:
        """W if the run's champion is the mean of the last W generations' champions (``average_windows``),
        else 0."""
        return int(self.validation.get("average", 0)) if self.validation is not None else 0

    @property
    def champion_generation(self) -> int:
        """The generation (1-based) of the run's champion: the validated one, else the last; for an averaged
        champion the last of its window."""
        if self.champion_average:
            return self.completed
        return int(self.validation["champion"]) if self.validation is not None else self.completed

    @property
    def champion(self) -> np.ndarray:
        """The run's champion's genome: the validated or averaged one (``chosen_genome``), else the last
        generation's."""
        if self.validation is None:
            return self.records["champion"][self.completed - 1]
        return chosen_genome(self.records["champion"], self.validation)

    @property
    def champion_settings(self) -> AsheSettings:
        """The settings the run's champion plays with: the run's, at the raising range
        ``champion_raising_ranges`` chose for it."""
        chosen = self.validation.get("raising_range") if self.validation is not None else None
        settings = self.config.settings
        return settings if chosen is None else replace(settings, raising_range=float(chosen))

    def champion_player(self, name: str = "champion") -> Player:
        """The run's champion as a player (``champion`` with ``champion_settings``)."""
        return ashe_player(self.champion, self.champion_settings, name=name)

    @property
    def champion_label(self) -> str:
        """The run's champion in words: ``generation G`` or ``the mean of generations A-B's champions``, and its
        raising range where it is not the run's."""
        w, g = self.champion_average, self.champion_generation
        label = f"the mean of generations {g - w + 1}-{g}'s champions" if w else f"generation {g}"
        rho = self.champion_settings.raising_range
        return label + (f" at raising range {rho:g}" if rho != self.config.raising_range else "")

    def champion_panel(self) -> tuple[np.ndarray, np.ndarray]:
        """The run's champion's mBB/hand and 95 % half-widths against each panel opponent."""
        if self.validation is not None and "panel_mean" in self.validation:
            return self.validation["panel_mean"], self.validation["panel_ci"]
        g = self.champion_generation
        return self.records["panel_mean"][g - 1], self.records["panel_ci"][g - 1]

    @property
    def panel_names(self) -> list[str]:
        return self.config.panel_names

    def panel_columns(self, group: str = "all") -> np.ndarray:
        """Indices of the panel opponents of ``group``: ``all``; ``training``, the run's training opponents
        (ASHE 1.0's bots when it has none); ``heldout``, the held-out bots and generation-0 players."""
        names = self.panel_names
        train = set(self.config.opponents or TRAINING_BOTS)
        pick = {"all": lambda n: True, "training": lambda n: n in train,
                "heldout": lambda n: n in HELDOUT_BOTS or n.startswith("heldout:")}
        if group not in pick:
            raise ValueError(f"unknown panel group {group!r}; choose one of {', '.join(pick)}")
        return np.array([c for c, n in enumerate(names) if pick[group](n)], np.int64)

    def panel_score(self, group: str = "all") -> np.ndarray:
        """Per generation: the champion's mean mBB/hand over the panel opponents of ``group`` (equal
        weights; see ``panel_columns``); NaN where the group is empty."""
        cols = self.panel_columns(group)
        if not self.completed:
            return np.zeros(0)
        if not cols.size:
            return np.full(self.completed, np.nan)
        return self.records["panel_mean"][:, cols].mean(axis=1)


def _empty_records(cfg: EvolveConfig) -> dict:
    K, B, n = cfg.population, cfg.trace_length, cfg.settings.genome_size
    m = len(cfg.panel_names)
    shapes = {"survivors": ((cfg.keep,), np.int64), "scores": ((K,), np.float64), "champion": ((n,), np.float32),
              "samples_used": ((), np.int64), "decisions": ((), np.int64), "ml_fraction": ((), np.float64),
              "final_ii": ((), np.float64), "final_mode": ((), np.int8), "ii_trace": ((B,), np.float32),
              "mode_trace": ((B,), np.int8), "trace_i": ((B,), np.int16), "trace_j": ((B,), np.int16),
              "trace_x": ((B,), np.float32), "panel_mean": ((m,), np.float64), "panel_ci": ((m,), np.float64),
              "origin": ((K,), np.int8), "parents": ((K - cfg.keep, 2), np.int64), "rate": ((), np.float64),
              "sigma": ((), np.float64), "timing": ((len(TIMING_NAMES),), np.float64),
              "fixed_mbb": ((K, cfg.n_fixed), np.float64), "hall": ((cfg.hall_of_fame,), np.int64),
              "champion_train": ((), np.float64), "actions": ((K, 3), np.float64)}
    return {k: np.zeros((0, *s), dtype=t) for k, (s, t) in shapes.items()}


def _write(path, run: EvolutionRun, rng_state: str) -> None:
    cfg = run.config
    with atomic_h5(path) as f:
        stamp(f, FORMAT, FORMAT_VERSION, **cfg.to_dict())
        f.attrs["seed"] = int(cfg.seed)
        f.attrs["completed"] = run.completed
        f.attrs["rng_state"] = rng_state
        f.attrs["panel_names"] = json.dumps(cfg.panel_names)
        f.attrs["timing_names"] = json.dumps(list(TIMING_NAMES))
        for k, v in run.attrs.items():
            if k not in ("format", "format_version", "pokerduel_version", "config", "seed", "completed",
                         "rng_state", "panel_names", "timing_names"):
                f.attrs[k] = v
        for name in ("population", "population0", "heldout"):
            f.create_dataset(name, data=getattr(run, name), fletcher32=True)
        if run.validation is not None:
            v = f.create_group("validation")
            v.attrs["champion"] = run.validation["champion"]
            for name in ("average", "raising_range"):
                if name in run.validation:
                    v.attrs[name] = run.validation[name]
            for name in VALIDATION_RECORDS:
                if name in run.validation:
                    v.create_dataset(name, data=run.validation[name], fletcher32=True)
        g = f.create_group("generations")
        for name in _PER_GEN:
            data = run.records[name]
            g.create_dataset(name, data=data, fletcher32=data.size > 0)


def load_run(path) -> EvolutionRun:
    """Read a run file (``CorruptFile`` if unreadable or inconsistent)."""
    try:
        f, config = open_checked(path, FORMAT, FORMAT_VERSION)
    except ValueError as err:
        raise CorruptFile(str(err)) from None
    try:
        cfg = EvolveConfig.from_dict(config)
    except ValueError as err:
        f.close()
        files = [s for s in config.get("opponents", ()) if ".h5:" in s]
        hint = (f" (its opponents {files} are files, found relative to the directory the run was started in)"
                if files else "")
        raise ValueError(f"{path}: the run's configuration cannot be rebuilt here: {err}{hint}") from None
    try:
        with f:
            attrs = plain_attrs(f)
            gens = f["generations"]
            n_done = int(f.attrs.get("completed", 0))
            empty = _empty_records(cfg)
            records = {name: gens[name][()] if name in gens or name not in _ADDED else
                       np.full((n_done, *empty[name].shape[1:]), np.nan if name != "hall" else -1,
                               empty[name].dtype) for name in _PER_GEN}
            validation = None
            if "validation" in f:
                v = f["validation"]
                validation = {"champion": int(v.attrs["champion"]),
                              **({"average": int(v.attrs["average"])} if "average" in v.attrs else {}),
                              **({"raising_range": float(v.attrs["raising_range"])}
                                 if "raising_range" in v.attrs else {}),
                              **{name: v[name][()] for name in VALIDATION_RECORDS if name in v}}
            run = EvolutionRun(str(path), cfg, attrs, f["population"][()], f["population0"][()], f["heldout"][()],
                               records, validation)
    except (KeyError, OSError, TypeError, ValueError) as err:
        raise CorruptFile(f"{path}: damaged or incomplete evolution file ({type(err).__name__}: {err})") from None
    n = run.completed
    if any(len(v) != n for v in records.values()) or int(attrs.get("completed", -1)) != n:
        raise CorruptFile(f"{path}: per-generation records of unequal length")
    if run.population.shape != (cfg.population, cfg.settings.genome_size):
        raise CorruptFile(f"{path}: population has shape {run.population.shape}, config says "
                          f"({cfg.population}, {cfg.settings.genome_size})")
    return run


def population_from_runs(paths, champions=None, current: bool = False):
    """A ``Population`` of evolved players from run files, to rank or benchmark (ground truth, Fig 8):
    from each run in turn, the champions of the generations ``champions`` (1-based, e.g. ``range(241, 251)``)
    and, with ``current``, the population the next generation would start from (its survivors first).
    The runs must share their ASHE settings; the file records where every player came from."""
    from ..play.populations import Population

    paths = [str(p) for p in paths]
    gens = [] if champions is None else [int(g) for g in champions]
    if not paths:
        raise ValueError("give at least one run file")
    if not gens and not current:
        raise ValueError("choose champions of some generations, the current population, or both")
    genomes, parts, settings = [], [], None
    for path in paths:
        run = load_run(path)
        if settings is None:
            settings = run.config.settings
        elif run.config.settings != settings:
            raise ValueError(f"{path}: ASHE settings {run.config.settings.to_dict()} differ from the first run's "
                             f"{settings.to_dict()}")
        bad = [g for g in gens if not 1 <= g <= run.completed]
        if bad:
            raise ValueError(f"{path} has champions of generations 1..{run.completed}, not {bad}")
        genomes += [run.records["champion"][g - 1] for g in gens]
        if gens:
            parts.append(f"{path}: champions of generations {_ranges(gens)}")
        if current:
            genomes += list(run.population)
            parts.append(f"{path}: population after generation {run.completed}")
    return Population(np.stack(genomes), settings, name="evolved", origin="; ".join(parts))


def _ranges(values) -> str:
    """``1-10,20`` for ``[1, ..., 10, 20]``."""
    out, start = [], None
    for i, v in enumerate(values):
        if start is None:
            start = v
        if i + 1 == len(values) or values[i + 1] != v + 1:
            out.append(str(start) if start == v else f"{start}-{v}")
            start = None
    return ",".join(out)


def _describe_difference(old: dict, new: dict) -> str:
    keys = sorted(set(old) | set(new))
    return "; ".join(f"{k}: {old.get(k)!r} there, {new.get(k)!r} now" for k in keys if old.get(k) != new.get(k))


# ----------------------------------------------------------------------------------------- the run


@dataclass
class RunReport:
    run: EvolutionRun
    generations_run: int
    resumed_from: int
    seconds: float


def _breed(cfg: EvolveConfig, genomes: np.ndarray, res: dict, g: int, oracle: LiveOracle, memory_pool,
           next_fixed) -> dict:
    """The bookkeeping between two selections, none of it hands: release generation ``g``'s ``oracle`` (its
    memories back to the pool), TSER on its selection and, unless ``next_fixed`` is None, generation
    ``g + 1``'s oracle with those fixed opponents."""
    t0 = time.perf_counter()
    if oracle is not None:
        oracle.release()
    rate, sigma = cfg.tser.schedule(g, cfg.generations)
    rng = np.random.default_rng(_seq(cfg.seed, 3, g))
    off = tser(genomes, res["survivors"], res["scores"][res["survivors"]], cfg.population, rate, sigma, rng,
               frozen_genes(cfg), cfg.tser.decay)
    return {"off": off, "rate": rate, "sigma": sigma, "rng_state": json.dumps(rng.bit_generator.state, default=int),
            "oracle": None if next_fixed is None else generation_oracle(cfg, off.genomes, g + 1, memory_pool,
                                                                         next_fixed),
            "repro": time.perf_counter() - t0}


def _append_row(records: dict, row: dict, buffers: dict) -> None:
    """Append one generation to ``records`` (each a view of its buffer in ``buffers``, grown by doubling, so
    that appending stays O(1); the rows of earlier views are never written again)."""
    for k, v in row.items():
        n = len(records[k])
        buf = buffers.get(k)
        if buf is None or len(buf) == n:
            grown = np.empty((max(2 * n, 16), *records[k].shape[1:]), records[k].dtype)
            grown[:n] = records[k]
            buffers[k] = buf = grown
        buf[n] = v
        records[k] = buf[:n + 1]


def run_evolution(cfg: EvolveConfig, out, backend=None, *, resume: bool = False, overwrite: bool = False,
                  progress: Callable[[dict], None] | None = None, stop_after: int | None = None,
                  lag_thread: bool = True) -> RunReport:
    """Evolve ``cfg`` into the run file ``out`` (checkpointed after every generation).

    An existing ``out`` is continued when ``resume`` and its config equals ``cfg``; it is replaced only
    with ``overwrite``; otherwise ``ConfigMismatch``. ``backend`` (``parallel.get_backend``; serial by
    default) plays the panel matches; with a parallel backend the panel of generation g runs while
    generation g + 1 is selected, and g is checkpointed when its panel is done. Checkpoints are written in
    a writer thread, in order, while the next generation is selected (a kill loses at most the
    generations not yet written, two or three; the results never depend on it). ``progress(info)`` is
    called after each generation, and with ``{"validating": W, "deals": D}`` before the champions'
    validation (``validate``, once the last generation is written; a resumed finished run without it does
    only that).
    ``stop_after`` stops after that many generations of this call (tests, time-boxed sessions).
    ``lag_thread``: with a lag, deals play in a second thread while the selector decides (default) or
    between its decisions in this thread (``select``); the run file is the same either way."""
    from ..infra.parallel import SerialBackend

    if not isinstance(cfg, EvolveConfig):
        raise ValueError("cfg must be an EvolveConfig")
    backend = backend or SerialBackend()
    out = Path(out)
    run = None
    if out.exists() and not overwrite:
        try:
            run = load_run(out)
        except CorruptFile as err:
            raise CorruptFile(f"{err}; pass --overwrite to start over") from None
        if run.config.to_dict() != cfg.to_dict():
            raise ConfigMismatch(f"{out} holds an evolution run with another config "
                                 f"({_describe_difference(run.config.to_dict(), cfg.to_dict())}); "
                                 "pass --overwrite to replace it")
        if not resume:
            raise ConfigMismatch(f"{out} already holds {run.completed}/{cfg.generations} generations of this run; "
                                 "pass --resume to continue it or --overwrite to start over")
    if run is None:
        pop0 = initial_population(cfg)
        run = EvolutionRun(str(out), cfg, {"pokerduel_version": __version__}, pop0.copy(), pop0,
                           heldout_players(cfg), _empty_records(cfg))
    start = run.completed
    t_start = time.perf_counter()
    state = {"done_here": 0, "rng_state": str(run.attrs.get("rng_state", "")), "write": None}
    # The run file is rewritten in a writer thread while the next generation is selected (a rewrite grows
    # to ~50 ms at 250 generations); one write at a time, in order, and the next waits for the last.
    writer = ThreadPoolExecutor(1, thread_name_prefix="pokerduel-checkpoint")

    def checkpoint(snapshot: EvolutionRun, rng_state: str) -> None:
        if state["write"] is not None:
            state["write"].result()          # in order; a failed write stops the run here
        state["write"] = writer.submit(_write, out, snapshot, rng_state)

    def finish(p: dict) -> None:
        """Record and checkpoint generation ``p["g"]`` once its panel is done."""
        t_wait = time.perf_counter()
        mean, ci, panel_s = p["panel"].result() if hasattr(p["panel"], "result") else p["panel"]
        wait = time.perf_counter() - t_wait
        res, off = p["res"], p["off"]
        row = {**{k: res[k] for k in ("survivors", "scores", "samples_used", "decisions", "ml_fraction", "final_ii",
                                     "final_mode", "ii_trace", "mode_trace", "trace_i", "trace_j", "trace_x",
                                     "fixed_mbb", "hall", "actions")},
               "champion": p["champion"], "champion_train": p["champion_train"], "panel_mean": mean, "panel_ci": ci,
               "origin": off.origin,
               "parents": off.parents, "rate": p["rate"], "sigma": p["sigma"],
               "timing": np.array([p["busy"] + wait, res["selector_seconds"], res["engine_seconds"], panel_s,
                                   p["repro"]])}
        _append_row(run.records, row, buffers)
        run.population = off.genomes
        checkpoint(replace(run, records=dict(run.records)), p["rng_state"])
        run.attrs["rng_state"] = state["rng_state"] = p["rng_state"]
        state["done_here"] += 1
        if progress is not None:
            progress({"generation": p["g"] + 1, "generations": cfg.generations, "panel_score": float(mean.mean()),
                      "best_panel_score": float(run.panel_score().max()), "samples": res["samples_used"],
                      "seconds": p["busy"] + wait, "selector_seconds": res["selector_seconds"],
                      "engine_seconds": res["engine_seconds"], "elapsed": time.perf_counter() - t_start,
                      "done_here": state["done_here"], "start": start})

    # The panel of generation g runs on the backend while this process selects generation g + 1 (the
    # selection needs only the reproduction, not the panel); generation g is checkpointed when its panel
    # is done. With the serial backend the panel plays in this thread while a helper thread does the
    # bookkeeping between two selections (``_breed``, no hands).
    overlap = backend.name != "serial"
    pool = ThreadPoolExecutor(1, thread_name_prefix="pokerduel-evolve")
    memories = MemoryPool()  # the generations' match memories, reused (fresh ones cost ~0.3 s a generation)
    buffers: dict = {}       # the records' storage, grown by doubling (``_append_row``)
    current, oracle, pending, selected = run.population, None, None, 0
    ane_mode = cfg.fitness == "ane"
    opponents = training_opponents(cfg)
    # every champion so far and its result against the training opponents: the hall of fame's candidates
    champions = list(run.records["champion"])
    champion_train = [float(x) for x in run.records["champion_train"]]
    try:
        for g in range(start, cfg.generations):
            if stop_after is not None and selected >= stop_after:
                break
            t0 = time.perf_counter()
            if ane_mode:
                res = evaluate(cfg, current, g, opponents, hall_members(cfg, champions, champion_train), champions,
                               backend)
            else:
                if oracle is None:
                    hall = hall_members(cfg, champions, champion_train)
                    fixed = fixed_players(cfg, opponents, hall, champions)
                    oracle = generation_oracle(cfg, current, g, memories, fixed)
                res = select(cfg, current, g, oracle=oracle, hall=hall, lag_thread=lag_thread)
            champion = current[res["survivors"][0]].copy()
            champions.append(champion)
            champion_train.append(training_score(cfg, res, int(res["survivors"][0])))
            last = g + 1 == cfg.generations or (stop_after is not None and selected + 1 >= stop_after)
            hall = hall_members(cfg, champions, champion_train)     # the next generation's
            args = (cfg, current, res, g, oracle, memories,
                    None if last or ane_mode else fixed_players(cfg, opponents, hall, champions))
            if not overlap:
                breeding = pool.submit(_breed, *args)
                panel = _timed_panel(cfg, champion, run.heldout, backend)
                bred = breeding.result()
            elif selected:
                panel = pool.submit(_timed_panel, cfg, champion, run.heldout, backend)
                bred = _breed(*args)
            else:
                # the first panel of this call runs in this thread alone, so that a process pool forks its
                # workers from the main thread (forking while another thread holds a lock can deadlock the child)
                panel = _timed_panel(cfg, champion, run.heldout, backend)
                bred = _breed(*args)
            t3 = time.perf_counter()
            if pending is not None:
                finish(pending)
            pending = {"g": g, "res": res, "champion": champion, "champion_train": champion_train[-1],
                       "panel": panel, **bred, "busy": t3 - t0}
            current, oracle = bred["off"].genomes, bred["oracle"]
            selected += 1
        if pending is not None:
            finish(pending)
        if state["write"] is not None:
            state["write"].result()
    finally:
        pool.shutdown(wait=True)
        writer.shutdown(wait=True)           # an interrupted run still completes its last checkpoint
    done_here = state["done_here"]
    rng_state = state["rng_state"]
    if cfg.validate_window and run.completed == cfg.generations and run.validation is None:
        if progress is not None:
            progress({"validating": cfg.validate_window, "deals": cfg.validate_matches * cfg.panel_deals,
                      "finalists": cfg.validate_finalists,
                      "final_deals": cfg.validate_final_matches * FINAL_MATCH_DEALS,
                      "averages": list(cfg.average_windows), "average_deals": cfg.average_matches * FINAL_MATCH_DEALS,
                      "raising_ranges": list(cfg.champion_raising_ranges)})
        run.validation = validate(cfg, champions, backend)
        if run.validation.get("average") or run.champion_settings != cfg.settings:
            # no generation's panel results are the champion's as it plays: play them
            mean, ci = run_panel(cfg, run.champion, run.heldout, backend, run.champion_settings)
            run.validation.update(panel_mean=mean, panel_ci=ci)
        _write(out, run, rng_state)
    elif done_here == 0 and run.completed == 0:
        _write(out, run, rng_state)
    return RunReport(load_run(out), done_here, start, time.perf_counter() - t_start)


def config_from_options(**options) -> EvolveConfig:
    """An ``EvolveConfig`` from keyword options, with TSER constants given flat (``rate_start`` ...)."""
    tser_keys = set(TserParams.__dataclass_fields__)
    tser_opts = {k: options.pop(k) for k in list(options) if k in tser_keys}
    return replace(EvolveConfig(**options), tser=TserParams(**tser_opts)) if tser_opts else EvolveConfig(**options)
