"""ASHE genomes: the settings of a player, the layout of its flat weight vector, and how to make players.

A genome is one flat float32 vector: the OFRE block then the SWRE block, each laid out as described
in ``pokerduel.players.ashe`` (``W[4, H, n]``, ``R[4, H, H]``, ``p[3, H]``, ``b[4, H]``, ``w[H]``,
``b_out``). ``unpack`` gives named numpy views of the blocks.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from . import ashe, ashe1
from .base import ASHE, ASHE1, MODELS, Player, register_spec_resolver

LSTM_RESETS = {"hand": ashe.RESET_HAND, "half": ashe.RESET_HALF}
#: the output unit of ASHE 1.0's decision network (``AsheSettings.decision_output``)
DECISION_OUTPUTS = {"linear": ashe1.OUTPUT_LINEAR, "logistic": ashe1.OUTPUT_LOGISTIC}
#: how ASHE 1.0's player sizes its raises (``AsheSettings.raise_sizes``)
RAISE_SIZES = {"big-blinds": ashe1.RAISES_BIG_BLINDS, "pot": ashe1.RAISES_POT}


@dataclass(frozen=True)
class AsheSettings:
    """Named choices of the ASHE player (see ``docs/players.md``).

    ``hidden``: LSTM cells per estimator (note §5.3: 10). ``prt_capacity``: PRT nodes per opponent and
    half; once full, new betting sequences are not recorded (counted in the memory's overflow word).
    ``lstm_reset``: ``"hand"`` zeroes the LSTM state at the end of every hand (note §5.3), ``"half"``
    carries it through a duplicate half, like ASHE 1.0's opponent module.
    ``calling_range``: in [0, 1], how far a raise's win rate is taken against the hands that call it
    rather than the opponent's whole range (0: the one-step rule of note §5.4; see ``docs/players.md``).
    ``explore``: in [0, 1], the share of the player's folds turned into calls, so that the PRT statistics
    behind a fold keep being updated (0: the greedy rule; see ``docs/players.md``, *Exploration*).
    ``read_raises``: facing a raise, the call's street showdown inputs are those of the hands in which the
    opponent raised on this street, rather than those after the player's own calls (``docs/players.md``,
    *Reading raises*).
    ``read_reraises``: facing a raise, a re-raise's street fold inputs are the opponent's answers to the
    player's re-raises on this street, rather than to all of its raises of that size there (same section).
    ``lookahead``: a check that opens a street and a call that closes one before the river are credited with
    the folds they set up, from the opponent's bets right after the player's checks and calls and its folds to
    the player's raises and bets (``docs/players.md``, *Looking ahead*).
    ``read_aggression``: SWRE's all-in flag input, implied by the others, becomes the opponent's raise share on
    the street, so a raise by an opponent that raises anything and one that raises rarely can be told apart
    without showdowns (``docs/players.md``, *Reading aggression*).
    ``mark_reraises``: that flag becomes the candidate's size class when it raises the opponent's raise (0 for
    every other candidate), so an SWRE can lower its re-raises' win estimates, and call a bet it would have
    re-raised, with one weight (``docs/players.md``, *Marking re-raises*).
    ``call_option``: a check or call is valued with the choices it keeps (fold to the opponent's next bet, call
    it, or move all-in, once the next card has moved the win rate), instead of as a showdown at today's pot
    (``docs/players.md``, *The call's option*); it excludes ``lookahead``.
    ``option_range``: with ``call_option``, how far (in [0, 1]) the option reads the opponent's next bet as
    coming from the strong part of its range and its check from the weak part (0: the win rate stays as it
    is whatever the opponent does; 1: the opponent bets exactly its strongest hands, as often as it has bet
    after the player's checks and calls).
    ``anchored``: each estimator's output corrects an anchor instead of standing alone: SWRE's the hand strength
    (the win rate against a random hand), OFRE's the PRT's fold rate for the candidate (the node's, shrunk towards
    the street's, shrunk towards 1/2); an output of 1/2 leaves the anchor as it is (``docs/players.md``,
    *Anchored estimators*).
    ``raising_range``: with ``anchored``, how far (in [0, 1]) SWRE's anchor facing a raise is the win rate against
    the hands the opponent raises with, if it raises its strongest hands as often as it has raised on that street
    (0: against a random hand, as without a raise; ``docs/players.md``, *The raising range*).
    ``option_reraise``: with ``call_option``, the option may also answer the opponent's next bet with a pot-size
    re-raise, which it folds to as often as it has folded to the player's re-raises on that street, so a call can
    be worth more than a re-raise now against an opponent that bets again and then folds (``docs/players.md``,
    *Re-raising later*).
    ``model``: ``ashe2`` (the estimators above) or ``ashe1``, ASHE 1.0's own player, whose network is the
    policy (``docs/players.md``, *ASHE 1.0's player*); with ``ashe1``, ``hidden`` is the decision network's
    hidden units, ``prt_capacity`` is unused (it keeps no PRT) and the settings above must keep their defaults.
    ``decision_output``: with ``ashe1``, the decision network's output unit: ``linear`` (the weighted sum is
    Algorithm 1's ``o``) or ``logistic`` (its logistic function, so ``o`` lies in (0, 1) as the rule-based bots'
    ``o = p^k`` does and each of Algorithm 1's bands is an interval of the sum on a log scale of chips).
    ``raise_sizes``: with ``ashe1``, ``big-blinds`` (Algorithm 1: raises to the nearest whole big blind, as for
    Table 2) or ``pot`` (the paper's later adjustments for Slumbot: a raise below a quarter of the pot is a call,
    others the nearest of 0.5, 1, 1.5 and 2 pots or all-in).
    """

    hidden: int = 10
    prt_capacity: int = 8192
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

    def __post_init__(self):
        if not isinstance(self.hidden, (int, np.integer)) or not 1 <= self.hidden <= 256:
            raise ValueError(f"hidden must be an integer in 1..256, got {self.hidden!r}")
        if not isinstance(self.prt_capacity, (int, np.integer)) or not 2 <= self.prt_capacity <= 1 << 22:
            raise ValueError(f"prt_capacity must be an integer in 2..4194304, got {self.prt_capacity!r}")
        if self.lstm_reset not in LSTM_RESETS:
            raise ValueError(f"lstm_reset must be one of {', '.join(LSTM_RESETS)}, got {self.lstm_reset!r}")
        for name in ("calling_range", "explore", "option_range", "raising_range"):
            value = getattr(self, name)
            if not isinstance(value, (int, float, np.integer, np.floating)) or not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
            object.__setattr__(self, name, float(value))
        for name in ("read_raises", "read_reraises", "lookahead", "read_aggression", "mark_reraises", "call_option",
                     "anchored", "option_reraise"):
            value = getattr(self, name)
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{name} must be true or false, got {value!r}")
            object.__setattr__(self, name, bool(value))
        if self.read_aggression and self.mark_reraises:
            raise ValueError("read_aggression and mark_reraises both replace SWRE's all-in flag input; set at most one")
        if self.lookahead and self.call_option:
            raise ValueError("lookahead and call_option both value the call that closes a street; set at most one")
        if self.option_range > 0.0 and not self.call_option:
            raise ValueError("option_range reads the opponent's bets within the call's option; it needs call_option")
        if self.option_reraise and not self.call_option:
            raise ValueError("option_reraise adds an answer within the call's option; it needs call_option")
        if self.raising_range > 0.0 and not self.anchored:
            raise ValueError("raising_range moves SWRE's anchor when facing a raise; it needs anchored")
        if self.model not in MODELS:
            raise ValueError(f"model must be one of {', '.join(MODELS)}, got {self.model!r}")
        if self.decision_output not in DECISION_OUTPUTS:
            raise ValueError(f"decision_output must be one of {', '.join(DECISION_OUTPUTS)}, "
                             f"got {self.decision_output!r}")
        if self.raise_sizes not in RAISE_SIZES:
            raise ValueError(f"raise_sizes must be one of {', '.join(RAISE_SIZES)}, got {self.raise_sizes!r}")
        if self.model != "ashe1" and (self.decision_output, self.raise_sizes) != ("linear", "big-blinds"):
            raise ValueError("decision_output and raise_sizes apply to the ashe1 model only (the ashe2 model has no "
                             "decision network); leave them at linear and big-blinds with model=ashe2")
        if self.model == "ashe1":
            default = AsheSettings()
            changed = [name for name in _ESTIMATOR_SETTINGS if getattr(self, name) != getattr(default, name)]
            if changed:
                raise ValueError(f"{', '.join(changed)} apply to the ashe2 model only (ASHE 1.0's player has no PRT "
                                 f"or estimators); leave them at their defaults with model=ashe1")

    @property
    def genome_size(self) -> int:
        return ashe1.genome_size(self.hidden) if self.model == "ashe1" else ashe.genome_size(self.hidden)

    def to_dict(self) -> dict:
        """The settings as JSON-ready values; the later settings (``_LATER_SETTINGS``) only when not the default,
        so older files compare equal."""
        d = {k: (int(v) if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else v)
             for k, v in asdict(self).items()}
        default = AsheSettings()
        for later in _LATER_SETTINGS:
            if d[later] == getattr(default, later):
                del d[later]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "AsheSettings":
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown ASHE settings {sorted(unknown)}; known: {sorted(cls.__dataclass_fields__)}")
        return cls(**d)


#: the settings added after population files existed, written only when not the default
_LATER_SETTINGS = ("calling_range", "explore", "read_raises", "read_reraises", "lookahead", "read_aggression",
                   "mark_reraises", "call_option", "anchored", "option_range", "raising_range", "option_reraise",
                   "model", "decision_output", "raise_sizes")
#: the settings of the estimators (``ashe2``) that ASHE 1.0's player does not have
_ESTIMATOR_SETTINGS = ("lstm_reset", "calling_range", "explore", "read_raises", "read_reraises", "lookahead",
                       "read_aggression", "mark_reraises", "call_option", "anchored", "option_range", "raising_range",
                       "option_reraise")


def _blocks(hidden: int):
    """``(name, offset, n_inputs)`` of the two estimator blocks within a genome."""
    n_o = ashe.block_size(ashe.OFRE_INPUTS, hidden)
    return (("ofre", 0, ashe.OFRE_INPUTS), ("swre", n_o, ashe.SWRE_INPUTS))


def unpack(genome: np.ndarray, hidden: int) -> dict:
    """Named views ``{"ofre": {...}, "swre": {...}}`` of a genome's weights (writing to them edits it)."""
    genome = np.asarray(genome)
    if genome.shape != (ashe.genome_size(hidden),):
        raise ValueError(f"a genome with hidden={hidden} has {ashe.genome_size(hidden)} weights, got shape {genome.shape}")
    out = {}
    for name, off, n in _blocks(hidden):
        h = hidden
        parts = {}
        for key, shape in (("W", (4, h, n)), ("R", (4, h, h)), ("p", (3, h)), ("b", (4, h)), ("w_out", (h,)),
                           ("b_out", ())):
            size = int(np.prod(shape))
            parts[key] = genome[off:off + size].reshape(shape)
            off += size
        out[name] = parts
    return out


def random_genome(settings: AsheSettings, rng: np.random.Generator, low: float = -1.0, high: float = 1.0):
    """Every weight uniform on ``[low, high]`` (core paper §7: [-1, 1])."""
    return rng.uniform(low, high, settings.genome_size).astype(np.float32)


def _memoryless_cell(block: dict, key: int, scale: float, out_weight: float) -> None:
    """Make cell 0 of an estimator block a memoryless unit (input and output gates open, forget gate shut)
    fed ``scale (2 v - 1)`` for its input ``v = x[key]``, with output weight ``out_weight``."""
    block["W"][0, 0, key] = 2.0 * scale
    block["b"][0, 0] = -scale
    block["b"][1:, 0] = (10.0, -10.0, 10.0)
    block["w_out"][0] = out_weight


def handbuilt_genome(settings: AsheSettings = AsheSettings(), sharpness: float = 3.0) -> np.ndarray:
    """A hand-made (not evolved) genome: SWRE tracks hand strength, OFRE tracks the PRT's fold rate.

    Each estimator uses one cell as a memoryless squashing unit fed ``2 v - 1`` for its key input ``v``;
    the output unit undoes most of the squashing, so the estimate rises monotonically from 0.13 at
    ``v = 0`` to 0.87 at ``v = 1``. A reference player for tests and a sanity check of the decision rule.
    """
    g = np.zeros(settings.genome_size, np.float32)
    views = unpack(g, settings.hidden)
    _memoryless_cell(views["ofre"], ashe.N_DEC + 3, 1.0, sharpness)  # the node's fold rate
    _memoryless_cell(views["swre"], ashe.N_DEC, 1.0, sharpness)  # hand strength
    return g


#: cells the patient genome uses in SWRE (its second one carries the raise penalty)
PATIENT_MIN_HIDDEN = 2
RIVER = 3  # the river's place in the street one-hot that begins both estimators' inputs


def patient_genome(settings: AsheSettings = AsheSettings(), scale: float = 1.5, raise_penalty: float = 0.8,
                   facing: float = 0.15, river_penalty: bool = True) -> np.ndarray:
    """A hand-made genome that raises with a margin when it faces a bet (``docs/players.md``).

    Cell 0 of each estimator is the hand-built genome's memoryless unit on its key input ``v`` (hand
    strength for SWRE, the PRT node's fold rate for OFRE), fed ``scale (2 v - 1)``, with output weight
    ``2 / scale`` for SWRE and ``10 / scale`` for OFRE. A small ``scale`` keeps both in their linear range
    (SWRE ``≈ sigmoid(2 (2 hs - 1))``, within 0.07 of ``hs`` on [0.1, 0.9]; OFRE near 0 or 1); a larger one
    flattens them but keeps the genome's play under small weight noise, as evolution from it needs
    (``--init patient``). SWRE's cell 1 subtracts ``raise_penalty`` times the candidate's size class (0.25
    for half a pot up to 1 for all-in) whenever the pot odds exceed ``facing``: facing a bet, a medium hand
    calls to see the next card rather than raise, where the one-step rule alone would raise any hand it
    expects to win more often than not. ``river_penalty=False`` shuts that cell on the river, where no card is
    left to see and a hand that wins more often than not should raise.
    """
    if raise_penalty and settings.hidden < PATIENT_MIN_HIDDEN:
        raise ValueError(f"the patient genome's raise penalty needs hidden >= {PATIENT_MIN_HIDDEN} cells, "
                         f"got hidden={settings.hidden}")
    g = np.zeros(settings.genome_size, np.float32)
    views = unpack(g, settings.hidden)
    _memoryless_cell(views["swre"], ashe.N_DEC, scale, 2.0 / scale)
    _memoryless_cell(views["ofre"], ashe.N_DEC + 3, scale, 10.0 / scale)
    if raise_penalty:
        v = views["swre"]
        v["W"][0, 1, ashe.SWRE_DEC + 1] = -raise_penalty * scale  # the candidate's size class
        gain = 40.0  # input gate sigmoid(gain (pot odds - facing)): shut below `facing`, open above it
        v["W"][1, 1, ashe.N_DEC - 1] = gain
        if not river_penalty:
            v["W"][1, 1, RIVER] = -gain  # the river's one-hot input shuts the gate
        v["b"][1:, 1] = (-gain * facing, -10.0, 10.0)
        v["w_out"][1] = 2.0 / scale
    return g


#: cells the reader genome uses in SWRE (its third one reads the opponent's showdown strength)
READER_MIN_HIDDEN = 3


def reader_genome(settings: AsheSettings = AsheSettings(read_raises=True), reader: float = 1.0,
                  confident: float = 0.3, scale: float = 1.5, fold_reader: float = 0.0, sparse: float = 0.3,
                  **patient) -> np.ndarray:
    """The patient genome plus an SWRE cell that weighs the hand against what the opponent showed
    (``docs/players.md``, *Reading raises*).

    Cell 2 is fed ``scale (2 h - 1)`` for the street's mean river hand strength ``h`` that the opponent showed
    at showdowns after the candidate's line (with ``read_raises``, for a call facing a raise: after the
    opponent raised on this street) and adds ``-reader (2 / scale)`` times its output to SWRE's logit,
    so the estimate compares the hand with that range. Its input gate opens once the statistic's
    confidence ``n / (n + 10)`` passes ``confident``; with no showdowns seen, the player is the patient one.

    ``fold_reader`` > 0 also makes OFRE's cell 1 read the street's fold rate (with ``read_reraises``, facing a
    raise: the opponent's answers to re-raises) while the node's confidence is below ``sparse``, adding
    ``fold_reader (10 / scale)`` times its output to OFRE's logit, as cell 0 does for the node's rate: where the
    exact betting sequence is new, the estimate follows the street's statistic instead of the neutral 0.5.
    """
    if settings.hidden < READER_MIN_HIDDEN:
        raise ValueError(f"the reader genome needs hidden >= {READER_MIN_HIDDEN} cells, got hidden={settings.hidden}")
    g = patient_genome(settings, scale=scale, **patient)
    v = unpack(g, settings.hidden)["swre"]
    j = ashe.SWRE_DEC + 7  # the street's showdown hand strength of the opponent; + 2: its confidence
    v["W"][0, 2, j] = 2.0 * scale
    v["b"][0, 2] = -scale
    gain = 20.0
    v["W"][1, 2, j + 2] = gain
    v["b"][1:, 2] = (-gain * confident, -10.0, 10.0)
    v["w_out"][2] = -reader * 2.0 / scale
    if fold_reader:
        o = unpack(g, settings.hidden)["ofre"]
        o["W"][0, 1, ashe.N_DEC + 5] = 2.0 * scale  # the street's fold rate
        o["b"][0, 1] = -scale
        o["W"][1, 1, ashe.N_DEC + 4] = -gain  # input gate open while the node's confidence is below `sparse`
        o["b"][1:, 1] = (gain * sparse, -10.0, 10.0)
        o["w_out"][1] = fold_reader * 10.0 / scale
    return g


def reader_folds_genome(settings: AsheSettings = AsheSettings(read_raises=True, read_reraises=True),
                        fold_reader: float = 0.5, **reader) -> np.ndarray:
    """The reader genome whose OFRE also reads the street's fold rate where the node is sparse
    (``reader_genome(fold_reader=0.5)``; ``docs/players.md``, *Reading re-raises*)."""
    return reader_genome(settings, fold_reader=fold_reader, **reader)


def steady_reader_genome(settings: AsheSettings = AsheSettings(read_raises=True, read_reraises=True),
                         confident: float = 0.75, **reader_folds) -> np.ndarray:
    """The reader-folds genome whose showdown reader opens only after about 30 showdowns (confidence 0.75)
    rather than about four: early, a few strong hands shown make the player call less, and the showdowns that
    would correct the reading stop coming (``docs/players.md``, *Reading raises*)."""
    return reader_folds_genome(settings, confident=confident, **reader_folds)


def river_reader_genome(settings: AsheSettings = AsheSettings(read_raises=True, read_reraises=True),
                        **steady) -> np.ndarray:
    """The steady reader genome whose raise penalty stops at the river: there a call sees no more cards, so the
    reason to call a medium hand rather than raise is gone (``docs/players.md``, *Raising on the river*)."""
    return steady_reader_genome(settings, river_penalty=False, **steady)


def ashe_player(genome, settings: AsheSettings = AsheSettings(), name: str = "ashe") -> Player:
    """An ASHE player the engine runs in nopython mode: kind ``ASHE`` (``ASHE1`` with ``model="ashe1"``),
    params = header + genome."""
    genome = np.asarray(genome)
    if genome.shape != (settings.genome_size,):
        raise ValueError(f"genome must have shape ({settings.genome_size},) for {settings}, got {genome.shape}")
    if not np.all(np.isfinite(genome)):
        raise ValueError("genome holds non-finite weights")
    if settings.model == "ashe1":
        header = np.zeros(ashe1.HEADER)
        header[ashe1.P_HIDDEN] = settings.hidden
        header[ashe1.P_OUTPUT] = DECISION_OUTPUTS[settings.decision_output]
        header[ashe1.P_RAISES] = RAISE_SIZES[settings.raise_sizes]
        return Player(name, ASHE1, np.concatenate([header, genome.astype(np.float64)]), ashe1.N_IMEM, ashe1.N_FMEM,
                      uses_hand_strength=True)
    header = np.zeros(ashe.HEADER)
    header[ashe.P_HIDDEN] = settings.hidden
    header[ashe.P_CAPACITY] = settings.prt_capacity
    header[ashe.P_LSTM_RESET] = LSTM_RESETS[settings.lstm_reset]
    header[ashe.P_CALLING_RANGE] = settings.calling_range
    header[ashe.P_EXPLORE] = settings.explore
    header[ashe.P_READ_RAISES] = float(settings.read_raises)
    header[ashe.P_READ_RERAISES] = float(settings.read_reraises)
    header[ashe.P_LOOKAHEAD] = float(settings.lookahead)
    header[ashe.P_READ_AGGRESSION] = float(settings.read_aggression)
    header[ashe.P_MARK_RERAISES] = float(settings.mark_reraises)
    header[ashe.P_CALL_OPTION] = float(settings.call_option)
    header[ashe.P_ANCHORED] = float(settings.anchored)
    header[ashe.P_OPTION_RANGE] = settings.option_range
    header[ashe.P_RAISING_RANGE] = settings.raising_range
    header[ashe.P_OPTION_RERAISE] = float(settings.option_reraise)
    n_imem, n_fmem = ashe.memory_sizes(settings.hidden, settings.prt_capacity)
    return Player(name, ASHE, np.concatenate([header, genome.astype(np.float64)]), n_imem, n_fmem,
                  uses_hand_strength=True)


def action_counts(kind: int, imem: np.ndarray) -> np.ndarray:
    """Folds, checks/calls and raises of an ASHE player of ``kind`` (``ASHE`` or ``ASHE1``) recorded in its
    memory banks ``imem``."""
    return ashe1.action_counts(imem) if kind == ASHE1 else ashe.action_counts(imem)


#: the player specs of the hand-made players (``make_player("handbuilt")``, ``make_player("patient")``)
HANDBUILT_SPEC = "handbuilt"
PATIENT_SPEC = "patient"
READER_SPEC = "reader"
READER_FOLDS_SPEC = "reader-folds"
READER_STEADY_SPEC = "reader-steady"
READER_RIVER_SPEC = "reader-river"
#: the hand-made genomes by spec (each a function of ``AsheSettings``)
HANDMADE = {HANDBUILT_SPEC: handbuilt_genome, PATIENT_SPEC: patient_genome, READER_SPEC: reader_genome,
            READER_FOLDS_SPEC: reader_folds_genome, READER_STEADY_SPEC: steady_reader_genome,
            READER_RIVER_SPEC: river_reader_genome}
#: the hand-made specs that read the opponent's raises, and those that also read its answers to re-raises
READS_RAISES = (READER_SPEC, READER_FOLDS_SPEC, READER_STEADY_SPEC, READER_RIVER_SPEC)
READS_RERAISES = (READER_FOLDS_SPEC, READER_STEADY_SPEC, READER_RIVER_SPEC)


#: the anchors as a player (``make_player("anchors")``): the all-zero genome with anchored estimators, so each
#: estimate is its anchor (the hand strength, against the opponent's raising range when it raises; the PRT's fold
#: rate), decided by the one-step rule with the call's option; a rule player with a memory and no evolved weights
ANCHORS_SPEC = "anchors"


def anchors_settings() -> AsheSettings:
    """The settings the ``anchors`` player plays with: anchored estimators reading the opponent's raising range
    and raise share, the call's option, and the PRT size evolution runs use (1,024 nodes)."""
    return AsheSettings(prt_capacity=1024, anchored=True, read_aggression=True, call_option=True,
                        raising_range=1.0)


def _resolve_spec(spec: str) -> Player | None:
    """``make_player``'s resolver for the hand-made genomes and the anchors, with the PRT size evolution runs use
    (1,024 nodes). ``handbuilt`` bets and raises with strong hands and calls with what its hand strength says,
    where the ASHE 1.0 bots play by fixed rules; ``patient`` also raises only with a margin when it faces a bet,
    so its raises there say its hand is strong and it stands up to a re-raise."""
    if spec == ANCHORS_SPEC:
        settings = anchors_settings()
        return ashe_player(np.zeros(settings.genome_size, np.float32), settings, name=spec)
    if spec not in HANDMADE:
        return None
    settings = handmade_settings(spec)
    return ashe_player(HANDMADE[spec](settings), settings, name=spec)


def handmade_settings(spec: str) -> AsheSettings:
    """The settings a hand-made spec plays with: a PRT of 1,024 nodes, and the readers' statistics."""
    return AsheSettings(prt_capacity=1024, read_raises=spec in READS_RAISES, read_reraises=spec in READS_RERAISES)


register_spec_resolver(_resolve_spec)
