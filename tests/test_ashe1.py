"""ASHE 1.0's player: its modules and decision network against numpy, Algorithm 1, memory lifetimes, play."""

import itertools

import numpy as np
import pytest

from pokerduel.engine.rules import CALL, RAISE, STACK, HandState, raise_range
from pokerduel.evolution.evolve import EvolveConfig
from pokerduel.play.matches import play_duplicate, reset_memory
from pokerduel.players import ashe1
from pokerduel.players.base import ASHE1, make_player
from pokerduel.players.bots import algorithm1, algorithm1_pot
from pokerduel.players.genomes import AsheSettings, action_counts, ashe_player, random_genome
from pokerduel.players.hand_strength import PREFLOP_HS, preflop_cell

SETTINGS = AsheSettings(model="ashe1", hidden=7)


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def split(genome, hidden):
    """The genome as numpy blocks, laid out as ``players/ashe1.py`` says (written here independently)."""
    out, off = [], 0

    def take(*shape):
        nonlocal off
        size = int(np.prod(shape))
        part = genome[off:off + size].reshape(shape)
        off += size
        return part

    for cells in [ashe1.GAME_CELLS] * ashe1.GAME_BLOCKS + [ashe1.OPP_CELLS]:
        out.append({"W": take(4, cells, 8), "R": take(4, cells, cells), "p": take(3, cells), "b": take(4, cells)})
    net = {"W1": take(hidden, 60), "b1": take(hidden), "w2": take(hidden), "b2": take()}
    assert off == genome.size
    return out, net


def lstm(v, x, y, c):
    """Greff et al.'s vanilla LSTM block (ASHE 1.0's equations, note §2.1)."""
    a = np.einsum("ghn,n->gh", v["W"], x) + np.einsum("ghm,m->gh", v["R"], y) + v["b"]
    i = sigmoid(a[1] + v["p"][0] * c)
    f = sigmoid(a[2] + v["p"][1] * c)
    c = i * np.tanh(a[0]) + f * c
    return sigmoid(a[3] + v["p"][2] * c) * np.tanh(c), c


class Reference:
    """ASHE 1.0's player in numpy: game blocks cleared every hand, the opponent block kept."""

    def __init__(self, genome, hidden, logistic=False):
        self.blocks, self.net = split(np.asarray(genome, np.float64), hidden)
        self.logistic = logistic
        self.state = [(np.zeros(len(b["b"][0])), np.zeros(len(b["b"][0]))) for b in self.blocks]

    def new_hand(self):
        for k in range(ashe1.GAME_BLOCKS):
            self.state[k] = tuple(np.zeros_like(s) for s in self.state[k])

    def output(self, x):
        self.state = [lstm(b, x, *s) for b, s in zip(self.blocks, self.state)]
        features = np.concatenate([s[0] for s in self.state])
        o = self.net["b2"] + self.net["w2"] @ np.tanh(self.net["W1"] @ features + self.net["b1"])
        return sigmoid(o) if self.logistic else o


def test_genome_size_counts_every_weight_of_the_paper_architecture():
    # 10 blocks of 5 cells and one of 10 on 8 inputs: W, R, 3 peepholes and 4 biases per cell; 60 -> hidden -> 1.
    game = 10 * (4 * 5 * 8 + 4 * 5 * 5 + 3 * 5 + 4 * 5)
    opponent = 4 * 10 * 8 + 4 * 10 * 10 + 3 * 10 + 4 * 10
    assert SETTINGS.genome_size == game + opponent + 7 * 60 + 7 + 7 + 1
    assert AsheSettings(model="ashe1", hidden=20).genome_size == game + opponent + 20 * 62 + 1


@pytest.mark.parametrize("output, raises", [("linear", "big-blinds"), ("logistic", "big-blinds"), ("linear", "pot")])
def test_decisions_follow_the_numpy_reference_and_algorithm_1(output, raises):
    """Across hands of one bank, each decision's ``o`` equals the reference network's and the action is
    Algorithm 1's for that ``o``; the game module starts every hand from zero, the opponent module does not."""
    rng = np.random.default_rng(3)
    settings = AsheSettings(model="ashe1", hidden=7, decision_output=output, raise_sizes=raises)
    decide = algorithm1_pot if raises == "pot" else algorithm1
    genome = rng.normal(0, 0.15, settings.genome_size)
    player = ashe_player(genome, settings)
    ref = Reference(genome, settings.hidden, logistic=output == "logistic")
    imem, fmem = player.new_memory()
    reset_memory(player.kind, player.params, imem, fmem)
    counts = np.zeros(3, np.int64)
    for _ in range(8):
        hand = HandState()
        while not hand.finished:
            pos = hand.actor
            lo, hi = raise_range(hand.st)
            if pos == 1:  # the opponent: a minimum raise before the turn, else check or call
                hand._apply(*((RAISE, int(lo)) if hand.round < 2 and lo >= 0 else (CALL, 0)))
                continue
            strength = rng.uniform()
            mine, theirs = hand.spent
            call = theirs - mine
            x = np.zeros(8)
            x[hand.round] = 1.0
            x[4:] = strength, theirs / STACK, mine / STACK, call / (call + mine + theirs) if call else 0.0
            o = ref.output(x)
            action, amount = ashe1.ashe1_act(player.params, imem, fmem, 0, 0, hand.st, lo, hi, strength)
            assert ashe1.ashe1_output(player.params, fmem[0]) == pytest.approx(o, rel=1e-9, abs=1e-12)
            assert (action, amount) == decide(hand.st, 0, lo, hi, o)
            counts[min(action, 2)] += 1
            hand._apply(action, amount)
        ashe1.ashe1_observe(fmem, 0)
        ref.new_hand()
        assert not fmem[0, ashe1.F_GAME_Y:ashe1.F_OPP_Y].any() and fmem[0, ashe1.F_OPP_Y:ashe1.F_GAME_C].any()
    assert (counts > 0).sum() >= 2, counts  # more than one kind of action was compared
    assert np.array_equal(action_counts(ASHE1, imem), counts)


def test_a_constant_fold_loses_the_blinds_and_a_constant_all_in_breaks_even_in_duplicate():
    """Only the output bias set: ``o < 0`` folds or checks every hand (the Maniac raises every hand: -75 chips
    a hand, the blinds' mean); ``o = 1`` moves all-in every hand, the Calling Machine calls, and the duplicate
    deals cancel exactly."""
    g = np.zeros(SETTINGS.genome_size)
    g[-1] = -0.5
    r = play_duplicate(ashe_player(g, SETTINGS), make_player("hothead-maniac"), 200, 11)
    assert r.hand_payoffs.sum() == -75 * 400
    g[-1] = 1.0
    r = play_duplicate(ashe_player(g, SETTINGS), make_player("calling-machine"), 200, 11)
    assert r.hand_payoffs.sum() == 0 and set(np.abs(r.hand_payoffs).ravel()) <= {0, STACK}
    assert (np.abs(r.hand_payoffs) == STACK).mean() > 0.9


def test_a_logistic_output_commits_its_share_of_the_stack():
    """With the logistic output a bias of ``logit(q)`` alone commits ``q`` of the stack: against the Calling
    Machine, 0.3 % (60 chips, under a minimum raise) completes the small blind and checks every street, so
    every hand is a showdown for the big blind, and 99.9 % moves all-in at once."""
    settings = AsheSettings(model="ashe1", hidden=3, decision_output="logistic")
    g = np.zeros(settings.genome_size)
    for q, payoffs in ((0.003, {0, 100}), (0.999, {0, STACK})):
        g[-1] = np.log(q / (1 - q))
        r = play_duplicate(ashe_player(g, settings), make_player("calling-machine"), 100, 4)
        assert r.hand_payoffs.sum() == 0 and set(np.abs(r.hand_payoffs).ravel()) <= payoffs
    assert (np.abs(r.hand_payoffs) == STACK).mean() >= 0.85  # all but the split pots


def test_random_players_are_deterministic_and_reset_between_halves():
    player = ashe_player(random_genome(SETTINGS, np.random.default_rng(5), -1.0, 1.0), SETTINGS)
    a = play_duplicate(player, make_player("candid-statistician"), 150, 2)
    b = play_duplicate(player, make_player("candid-statistician"), 150, 2)
    assert np.array_equal(a.hand_payoffs, b.hand_payoffs)
    mirrored = play_duplicate(make_player("candid-statistician"), player, 150, 2)
    assert mirrored.hand_payoffs.sum() == -a.hand_payoffs.sum()


def test_settings_validate_the_model():
    assert AsheSettings.from_dict(SETTINGS.to_dict()) == SETTINGS and SETTINGS.to_dict()["model"] == "ashe1"
    assert "model" not in AsheSettings().to_dict()
    with pytest.raises(ValueError, match="model must be one of ashe2, ashe1"):
        AsheSettings(model="ashe3")
    with pytest.raises(ValueError, match="read_raises, lookahead apply to the ashe2 model only"):
        AsheSettings(model="ashe1", read_raises=True, lookahead=True)
    logistic = AsheSettings(model="ashe1", decision_output="logistic", raise_sizes="pot")
    assert AsheSettings.from_dict(logistic.to_dict()) == logistic
    assert "decision_output" not in SETTINGS.to_dict() and "raise_sizes" not in SETTINGS.to_dict()
    with pytest.raises(ValueError, match="decision_output must be one of linear, logistic"):
        AsheSettings(model="ashe1", decision_output="relu")
    with pytest.raises(ValueError, match="raise_sizes must be one of big-blinds, pot"):
        AsheSettings(model="ashe1", raise_sizes="half-pot")
    for wrong in ({"decision_output": "logistic"}, {"raise_sizes": "pot"}):
        with pytest.raises(ValueError, match="decision_output and raise_sizes apply to the ashe1 model only"):
            AsheSettings(**wrong)
    with pytest.raises(ValueError, match="genome must have shape"):
        ashe_player(np.zeros(AsheSettings().genome_size), SETTINGS)
    with pytest.raises(ValueError, match="is a genome of the ashe2 model"):
        EvolveConfig(model="ashe1", init="patient", opponents=("calling-machine",), fitness="ane", deals=2)


def test_the_preflop_all_in_or_fold_ceiling_against_the_maniac(script):
    """``bot_ceilings.preflop_allin_ceiling`` is the best all-in-or-fold threshold over the 1,326 starting hands
    enumerated card by card here; and a hand-wired ASHE 1.0 network that moves all-in with hand strength above 0.5
    and folds the rest wins from the Maniac what the closed form says, within four standard errors."""
    hs = np.sort([PREFLOP_HS[preflop_cell(c1, c2)] for c1, c2 in itertools.combinations(range(52), 2)])[::-1]
    value = [((2 * hs[:k] - 1).sum() * STACK - (1326 - k) * 75) / 1326 * 10 for k in range(1327)]
    mbb, share, min_hs = script("bot_ceilings").preflop_allin_ceiling()
    k = int(np.argmax(value))
    assert mbb == pytest.approx(value[k], rel=1e-12) and share == pytest.approx(k / 1326) and min_hs == hs[k - 1]

    settings = AsheSettings(model="ashe1", hidden=1)
    genome = np.zeros(settings.genome_size)
    blocks, net = split(genome, 1)
    blocks[0]["W"][0, 0, 4] = 1e6  # block input tanh(1e6 (hs - 0.5)): the sign of hs - 0.5
    blocks[0]["b"][0, 0] = -0.5e6
    blocks[0]["b"][1:, 0] = 20.0, -20.0, 20.0  # input gate open, forget gate shut, output gate open
    net["W1"][0, 0] = 1.0
    net["w2"][0] = 100.0  # o = +-56: all-in or fold
    r = play_duplicate(ashe_player(genome, settings), make_player("hothead-maniac"), 3000, 17)
    assert set(np.abs(r.hand_payoffs).ravel()) <= {0, 50, 100, STACK}
    above = hs > 0.5
    expected = ((2 * hs[above] - 1).sum() * STACK - (~above).sum() * 75) / 1326 * 10
    got, half = r.mbb_per_hand()
    assert abs(got - expected) < 4 * half / 1.96, (got, half, expected)
