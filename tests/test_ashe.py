"""ASHE players: LSTM against numpy, PRT counts after scripted hands, utilities computed by hand, play."""

import functools
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from pokerduel.engine.rules import BIG_BLIND, CALL, FOLD, MAX_ACTIONS_PER_HAND, RAISE, STACK, HandState
from pokerduel.play.matches import play_duplicate, reset_memory
from pokerduel.players import ashe
from pokerduel.players.base import make_player
from pokerduel.players.genomes import (
    AsheSettings,
    anchors_settings,
    ashe_player,
    handbuilt_genome,
    handmade_settings,
    patient_genome,
    random_genome,
    reader_folds_genome,
    reader_genome,
    river_reader_genome,
    steady_reader_genome,
    unpack,
)

H = 10


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def lstm_reference(v, x, h, c):
    """Peephole LSTM (Greff et al. 2015, as in ASHE 1.0) followed by a sigmoid output unit, in numpy."""
    a = np.einsum("ghn,n->gh", v["W"], x) + np.einsum("ghm,m->gh", v["R"], h) + v["b"]
    z = np.tanh(a[0])
    i = sigmoid(a[1] + v["p"][0] * c)
    f = sigmoid(a[2] + v["p"][1] * c)
    c_new = i * z + f * c
    o = sigmoid(a[3] + v["p"][2] * c_new)
    y = o * np.tanh(c_new)
    return y, c_new, sigmoid(v["w_out"] @ y + v["b_out"])


@pytest.mark.parametrize("hidden", [1, 3, 10])
@pytest.mark.parametrize("block", ["ofre", "swre"])
def test_lstm_step_matches_numpy_reference(hidden, block):
    rng = np.random.default_rng(hidden)
    settings = AsheSettings(hidden=hidden)
    genome = rng.normal(0, 1, settings.genome_size)
    player = ashe_player(genome, settings)
    views = unpack(genome, hidden)[block]
    n_in = ashe.OFRE_INPUTS if block == "ofre" else ashe.SWRE_INPUTS
    off = ashe.HEADER + (0 if block == "ofre" else ashe.block_size(ashe.OFRE_INPUTS, hidden))
    for _ in range(5):
        x, h, c = rng.uniform(0, 1, n_in), rng.normal(0, 1, hidden), rng.normal(0, 1, hidden)
        y_ref, c_ref, out_ref = lstm_reference(views, x, h, c)
        pre, h_out, c_out, work = np.zeros(4 * hidden), np.zeros(hidden), np.zeros(hidden), np.zeros(10 * hidden)
        wt = np.zeros(4 * hidden * (n_in + hidden))
        ashe.transpose_weights(player.params, off, n_in, hidden, wt)
        out = ashe.lstm_step(player.params, off, wt, n_in, hidden, x, h, c, pre, h_out, c_out, work)
        assert out == pytest.approx(out_ref, rel=1e-12)
        np.testing.assert_allclose(h_out, y_ref, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(c_out, c_ref, rtol=1e-12, atol=1e-15)
        # The decision path splits the inputs into a shared part and a per-candidate part.
        n_dec = int(rng.integers(0, n_in + 1))
        ashe.lstm_pre(player.params, off, wt, n_in, n_dec, hidden, x, h, pre)
        out2 = ashe.lstm_finish(player.params, off, wt, n_in, n_dec, hidden, x, c, pre, h_out, c_out, work)
        assert out2 == pytest.approx(out_ref, rel=1e-12)


@pytest.mark.parametrize("hidden", [1, 3, 10])
def test_lstm_sums_add_in_order(hidden):
    """The vectorised gate sums equal bias, R terms, W terms (then the candidate's) added one by one, bit for bit."""
    rng = np.random.default_rng(100 + hidden)
    settings = AsheSettings(hidden=hidden)
    player = ashe_player(rng.normal(0, 1, settings.genome_size), settings)
    n_in, rows = ashe.SWRE_INPUTS, 4 * hidden
    off = ashe.HEADER + ashe.block_size(ashe.OFRE_INPUTS, hidden)
    W = player.params[off:off + rows * n_in].reshape(rows, n_in)
    R = player.params[off + rows * n_in:off + rows * (n_in + hidden)].reshape(rows, hidden)
    b = player.params[off + rows * (n_in + hidden) + 3 * hidden:][:rows]
    wt = np.zeros(rows * (n_in + hidden))
    ashe.transpose_weights(player.params, off, n_in, hidden, wt)
    x, h, pre = rng.normal(0, 1, n_in), rng.normal(0, 1, hidden), np.zeros(rows)
    for n_dec in (0, 5, ashe.SWRE_DEC, n_in):
        ashe.lstm_pre(player.params, off, wt, n_in, n_dec, hidden, x, h, pre)
        for row in range(rows):
            acc = float(b[row])
            for m in range(hidden):
                acc += float(R[row, m]) * float(h[m])
            for k in range(n_dec):
                acc += float(W[row, k]) * float(x[k])
            assert pre[row] == acc
        # lstm_finish adds the candidate inputs to these sums (kept in its scratch at 6H:10H).
        work, c = np.zeros(10 * hidden), rng.normal(0, 1, hidden)
        ashe.lstm_finish(player.params, off, wt, n_in, n_dec, hidden, x, c, pre, np.zeros(hidden), np.zeros(hidden),
                         work)
        for row in range(rows):
            acc = float(pre[row])
            for k in range(n_dec, n_in):
                acc += float(W[row, k]) * float(x[k])
            assert work[6 * hidden + row] == acc


# ---- PRT -------------------------------------------------------------------------------------------
def scripted(actions):
    """A HandState after ``actions`` given as ("f"|"c"|raise-to int, ...)."""
    h = HandState()
    for a in actions:
        if a == "f":
            h.fold()
        elif a == "c":
            h.call()
        else:
            h.raise_to(a)
    return h


def history(h):
    hist = np.zeros((MAX_ACTIONS_PER_HAND, 4), np.int64)
    for i, row in enumerate(h.actions):
        hist[i] = row
    return hist


@pytest.fixture
def bank():
    player = ashe_player(np.zeros(AsheSettings(prt_capacity=64).genome_size), AsheSettings(prt_capacity=64))
    imem, fmem = player.new_memory()
    ashe.ashe_reset(player.params, imem[0], fmem[0])
    return player, imem[0], fmem[0]


def record(bank, pos, actions, opp_hs=-1.0, result=0.0):
    player, im, fm = bank
    h = scripted(actions)
    ashe.prt_update(im, fm, int(player.params[ashe.P_CAPACITY]), pos, history(h), len(h.actions),
                    opp_hs >= 0, opp_hs, result)


def test_action_codes_bucket_the_raise_by_pot_fraction():
    h = HandState()  # button to act: pot 150, to call 50, so the pot after calling is 200
    codes = {to: ashe.action_code(h.st, RAISE, to) for to in (200, 240, 250, 300, 349, 350, 450, 700, 19000, 19001, 20000)}
    # raise increment to - 100 over 200: 0.5 -> B1, 0.7 -> B1, 0.75 -> B2, 1 -> B2, 1.245 -> B2, 1.25 -> B3, ...
    assert codes == {200: 3, 240: 3, 250: 4, 300: 4, 349: 4, 350: 5, 450: 6, 700: 7, 19000: 7, 19001: 8, 20000: 8}
    assert ashe.action_code(h.st, FOLD, 0) == ashe.CODE_F and ashe.action_code(h.st, CALL, 0) == ashe.CODE_C
    h.raise_to(200)  # increment 100 from a pot of 300 after calling (0.333 < 0.375): a min-raise is B0
    assert ashe.action_code(h.st, RAISE, 300) == ashe.CODE_B0


def test_prt_counts_after_scripted_hands(bank):
    player, im, fm = bank
    # The player sits in the big blind (position 0); the button acts first preflop.
    record(bank, 0, ["f"])  # button folds
    record(bank, 0, [300, "c", "c", 900, "f"])  # button pots, player calls, checks, button pots (600), player folds
    record(bank, 0, [300, "c", "c", "c", "c", "c", "c", "c"], opp_hs=0.25, result=1.0)  # checked down, won
    record(bank, 0, [300, 900, "f"])  # player re-raises the pot, button folds
    t = ashe.prt_nodes(player, im, fm)
    root = t[(0,)]
    assert root["visits"] == 4 and root["opp_acts"] == 4
    assert (root["opp_fold"], root["opp_call"], root["opp_raise"]) == (1, 0, 3)
    assert root["sd_n"] == 1 and root["sd_opp_hs"] == 0.25 and root["sd_win"] == 1.0
    b2 = t[(0, "B2")]  # after the button's pot raise: the player's node (no opponent action here)
    assert b2["visits"] == 3 and b2["opp_acts"] == 0 and b2["sd_n"] == 1
    rr = t[(0, "B2", "B2")]  # the player's pot re-raise: the button folded once out of once
    assert (rr["visits"], rr["opp_acts"], rr["opp_fold"]) == (1, 1, 1)
    assert t[(0, "B2", "B2", "F")]["visits"] == 1
    flop = t[(0, "B2", "C", "C")]  # flop, the player checked; the button bet once and checked once
    assert (flop["visits"], flop["opp_acts"], flop["opp_raise"], flop["opp_call"]) == (2, 2, 1, 1)
    assert t[(0, "B2", "C", "C", "B2", "F")]["sd_n"] == 0
    assert t[(1,)]["visits"] == 0  # the button root is untouched
    # Showdown statistics are credited to every node of the path.
    path = [(0,), (0, "B2"), (0, "B2", "C"), (0, "B2", "C", "C"), (0, "B2", "C", "C", "C")]
    assert all(t[k]["sd_n"] == 1 for k in path)
    assert len(t) == 2 + 1 + 5 + 5 + 2  # roots; F; B2 C C B2 F; B2 C C C C C C C (5 new); B2 B2 F (2 new)
    # Street aggregates: the player's pot re-raise preflop (code B2) saw one response, a fold.
    cell = 0 * ashe.N_CODES + 4
    assert im[ashe.I_AGG + ashe.AGG_OPP_ACTS * 36 + cell] == 1 and im[ashe.I_AGG + ashe.AGG_OPP_FOLD * 36 + cell] == 1


def test_prt_full_tree_stops_growing_and_counts_overflow():
    settings = AsheSettings(prt_capacity=4)
    player = ashe_player(np.zeros(settings.genome_size), settings)
    imem, fmem = player.new_memory()
    ashe.ashe_reset(player.params, imem[0], fmem[0])
    bank = (player, imem[0], fmem[0])
    record(bank, 1, [300, 900, 2700, "f"])  # needs 4 new nodes, room for 2
    t = ashe.prt_nodes(player, imem[0], fmem[0])
    assert set(t) == {(0,), (1,), (1, "B2"), (1, "B2", "B2")}
    assert imem[0, ashe.I_OVERFLOW] == 1 and imem[0, ashe.I_NNODES] == 4
    ashe.ashe_reset(player.params, imem[0], fmem[0])
    assert set(ashe.prt_nodes(player, imem[0], fmem[0])) == {(0,), (1,)}


def test_memory_is_per_half_and_cleared_for_a_new_opponent():
    player = ashe_player(handbuilt_genome())
    imem, fmem = player.new_memory()
    reset_memory(player.kind, player.params, imem, fmem)
    other = ashe_player(handbuilt_genome(), name="other")
    o_imem, o_fmem = other.new_memory()
    reset_memory(other.kind, other.params, o_imem, o_fmem)
    memory = (imem, fmem, o_imem, o_fmem)
    first = play_duplicate(player, "calling-machine", 300, seed=3, memory=memory)
    roots = [[ashe.prt_nodes(player, imem[b], fmem[b])[(r,)]["visits"] for r in range(2)] for b in range(2)]
    assert roots == [[300, 0], [0, 300]]  # half 0 sits the player in the big blind, half 1 on the button
    # Continuing the match keeps the memory; a new match (a new opponent) starts from an empty tree.
    play_duplicate(player, "calling-machine", 200, seed=4, first_deal=300, memory=memory)
    assert ashe.prt_nodes(player, imem[0], fmem[0])[(0,)]["visits"] == 500
    fresh = play_duplicate(player, "calling-machine", 300, seed=3)
    np.testing.assert_array_equal(fresh.samples, first.samples)
    reset_memory(player.kind, player.params, imem, fmem)
    assert ashe.prt_nodes(player, imem[0], fmem[0])[(0,)]["visits"] == 0


# ---- decisions -------------------------------------------------------------------------------------
def constant_genome(settings, f_hat, w_hat):
    """A genome whose OFRE always says ``f_hat`` (0: an output bias of -40) and SWRE ``w_hat`` (only the output
    biases are set)."""
    g = np.zeros(settings.genome_size)
    v = unpack(g, settings.hidden)
    v["ofre"]["b_out"][...] = np.log(f_hat / (1 - f_hat)) if f_hat > 0 else -40.0
    v["swre"]["b_out"][...] = np.log(w_hat / (1 - w_hat))
    return g


def constant_player(f_hat, w_hat, calling_range=0.0):
    """A player whose OFRE always says ``f_hat`` and SWRE ``w_hat`` (``constant_genome``)."""
    settings = AsheSettings(calling_range=calling_range)
    return ashe_player(constant_genome(settings, f_hat, w_hat), settings)


def by_hand(p, x, max_spent, raise_to, f, w):
    """Expected utility relative to folding now, written out: call or raise to ``raise_to``."""
    if raise_to == 0:
        return w * p - (1 - w) * x
    r = raise_to - max_spent  # the opponent must add r to call
    return f * p + (1 - f) * (w * (p + r) - (1 - w) * (x + r))


@pytest.mark.parametrize("f,w", [(0.2, 0.6), (0.05, 0.3), (0.6, 0.2), (0.01, 0.9)])
def test_utilities_preflop_match_hand_computation(f, w):
    d = ashe.explain_decision(constant_player(f, w), HandState(), strength=0.5)
    sizes = [c["raise_to"] for c in d["candidates"]]
    # Button first to act: pot 150, to call 50; pot after calling 200, so 0.5..2 pots raise to 200..500.
    assert sizes == [0, 0, 200, 300, 400, 500, STACK]
    want = [0.0] + [by_hand(150, 50, 100, to, f, w) for to in sizes[1:]]
    got = [c["utility"] for c in d["candidates"]]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    best = int(np.argmax(want))
    expected = [(FOLD, 0), (CALL, 0)][best] if best < 2 else (RAISE, sizes[best])
    assert (d["action"], d["raise_to"]) == expected


@pytest.mark.parametrize("rho", [0.5, 1.0])
@pytest.mark.parametrize("f,w", [(0.2, 0.6), (0.7, 0.8), (0.6, 0.5)])
def test_calling_range_takes_the_win_rate_against_the_hands_that_call(f, w, rho):
    """Raises use ``(1 - rho) w + rho max(w - f, 0) / (1 - f)``; the call (nobody folds) keeps ``w``."""
    d = ashe.explain_decision(constant_player(f, w, calling_range=rho), HandState(), strength=0.5)
    w_call = (1 - rho) * w + rho * max(w - f, 0.0) / (1 - f)
    sizes = [c["raise_to"] for c in d["candidates"]]
    want = [0.0, by_hand(150, 50, 100, 0, f, w)] + [by_hand(150, 50, 100, to, f, w_call) for to in sizes[2:]]
    np.testing.assert_allclose([c["utility"] for c in d["candidates"]], want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose([c["w_hat"] for c in d["candidates"][2:]], w_call, rtol=1e-6)


def test_calling_range_stops_the_all_in_against_a_folder():
    """Against an opponent who folds 90 % of hands, an all-in with ŵ = 0.6 is the best candidate under
    the one-step rule and a losing one against the calling range (which it beats in no hand)."""
    h = scripted([300, "c"])  # flop, pot 600: the big blind acts first
    one_step = ashe.explain_decision(constant_player(0.9, 0.6), h, strength=0.5)
    ranged = ashe.explain_decision(constant_player(0.9, 0.6, calling_range=1.0), h, strength=0.5)
    assert one_step["raise_to"] == STACK
    assert ranged["candidates"][-1]["utility"] == pytest.approx(by_hand(600, 0, 300, STACK, 0.9, 0.0), rel=1e-6)
    assert ranged["raise_to"] != STACK


@pytest.mark.parametrize("name", ["calling_range", "explore"])
def test_shares_in_the_settings_must_be_in_0_1(name):
    for bad in (-0.1, 1.5, "1"):
        with pytest.raises(ValueError, match=f"{name} must be a number in"):
            AsheSettings(**{name: bad})
    assert name not in AsheSettings().to_dict()  # older files keep comparing equal
    assert getattr(AsheSettings.from_dict(AsheSettings(**{name: 0.5}).to_dict()), name) == 0.5


def test_explore_turns_that_share_of_folds_into_calls():
    """A player whose estimates say fold whenever it faces a bet, against the Hothead Maniac (who bets every time):
    the first decision of each hand calls in ``explore`` of the hands, within four standard errors, and never
    at 0; the draws are a function of the player's memory and cards, so a match replays exactly."""
    folder = constant_player(0.01, 0.01)
    deals, share = 1000, 0.1
    for explore in (0.0, share):
        player = ashe_player(folder.params[ashe.HEADER:], AsheSettings(explore=explore))
        result = play_duplicate(player, "hothead-maniac", deals, seed=8, records=True)
        first = [next(a[2] for a in h.actions if a[1] == h.half) for h in result.records]
        assert set(first) <= {FOLD, CALL}
        calls = first.count(CALL)
        if explore == 0.0:
            assert calls == 0
        else:
            n = 2 * deals
            assert abs(calls - share * n) < 4 * np.sqrt(n * share * (1 - share)), calls
            again = play_duplicate(player, "hothead-maniac", deals, seed=8)
            np.testing.assert_array_equal(again.samples, result.samples)


def test_short_stack_collapses_pot_raises_into_all_in():
    h = scripted([300, 8000, "c", 16000])  # flop: the player (button) faces a bet of 8000 into 16000
    d = ashe.explain_decision(constant_player(0.3, 0.55), h, strength=0.5)
    # to call 8000; the pot after calling is 32000: every pot raise is beyond the stack, only all-in remains
    names = [c["name"] for c in d["candidates"]]
    assert names == ["fold", "call", "all-in"]
    allin = d["candidates"][-1]
    assert allin["utility"] == pytest.approx(by_hand(24000, 8000, 16000, STACK, 0.3, 0.55))
    h = scripted([300, 3000, "c", 6000])  # 3000 into 6000: the pot after calling is 12000
    d = ashe.explain_decision(constant_player(0.3, 0.55), h, strength=0.5)
    assert [c["raise_to"] for c in d["candidates"]] == [0, 0, 12000, 18000, STACK]  # 0.5 and 1 pot fit


def test_pot_raises_never_go_below_the_minimum_raise():
    """Heads-up the 0.5-pot raise is never below the minimum raise; random play checks every candidate."""
    rng = np.random.default_rng(0)
    out = np.zeros(ashe.N_CANDIDATES, np.int64)
    for _ in range(2000):
        h = HandState()
        while not h.finished and rng.random() < 0.8:
            legal = h.legal_actions()
            lo, hi = (legal.min_raise_to, legal.max_raise_to) if legal.can_raise else (-1, -1)
            ashe.candidate_raises(h.st, h.actor, lo, hi, out)
            raises = [t for t in out[2:] if t > 0]
            assert all(legal.min_raise_to <= t <= legal.max_raise_to for t in raises)
            assert raises == sorted(set(raises))
            if legal.can_raise:
                assert out[6] == STACK
            choice = rng.integers(3)
            if choice == 0 and legal.can_fold:
                break
            if choice == 2 and raises:
                h.raise_to(int(rng.choice(raises)))
            else:
                h.call()


def test_ties_go_to_the_smaller_commitment():
    # f = 0 and w = 1/2: every non-fold candidate is worth w P - (1 - w) x; the call must win the tie.
    d = ashe.explain_decision(constant_player(1e-12, 0.5), HandState(), strength=0.5)
    assert len({round(c["utility"], 6) for c in d["candidates"][1:]}) == 1
    assert d["action"] == CALL
    # Folding (utility 0) beats calling only by more than a chip: 0.25 * 150 - 0.75 * 50 = 0 exactly.
    d = ashe.explain_decision(constant_player(1e-12, 0.25), HandState(), strength=0.5)
    assert d["candidates"][1]["utility"] == pytest.approx(0.0, abs=1e-6) and d["action"] == FOLD


# ---- play ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("opponent", ["calling-machine", "hothead-maniac"])
def test_handbuilt_ashe_beats_simple_bots(opponent):
    result = play_duplicate(ashe_player(handbuilt_genome()), opponent, 20_000, seed=11)
    mean, ci = result.mbb_per_hand()
    assert result.invalid_actions == 0
    assert mean > 5 * ci and mean > 5000  # thousands of mBB/hand, far outside the 95% interval


def test_patient_genome_in_its_linear_range_estimates_the_hand_strength():
    """One memoryless cell with open gates: SWRE = sigmoid((2 / s) o tanh(i tanh(s (2 hs - 1)))), o = i =
    sigmoid(10); with s = 0.1 about sigmoid(2 (2 hs - 1)), within 0.07 of hs on [0.1, 0.9]."""
    s, gate = 0.1, sigmoid(10.0)
    player = ashe_player(patient_genome(scale=s, raise_penalty=0.0))
    for hs in np.linspace(0.0, 1.0, 11):
        expected = sigmoid(2.0 / np.float32(s) * gate * np.tanh(gate * np.tanh(np.float32(2 * s) * hs - np.float32(s))))
        d = ashe.explain_decision(player, HandState(), strength=hs)
        for c in d["candidates"][1:]:
            assert c["w_hat"] == pytest.approx(expected, abs=1e-6)
            assert abs(c["w_hat"] - hs) <= (0.07 if 0.1 <= hs <= 0.9 else 0.125)


def test_patient_genome_lowers_its_raises_only_when_facing_a_bet():
    player = ashe_player(patient_genome())
    facing = HandState()
    facing.raise_to(300)  # a pot-size raise: the big blind must put in 200 more to a pot of 400 (odds 1/3)
    checked = HandState()
    checked.call(), checked.call()  # the flop, nothing to call (odds 0)
    for hs in (0.3, 0.6, 0.9):
        w = [c["w_hat"] for c in ashe.explain_decision(player, facing, strength=hs)["candidates"][1:]]
        # each larger raise estimated lower (the 2-pot raise and the all-in share the largest size class)
        assert all(b <= a for a, b in zip(w, w[1:])) and w[-1] < w[2] - 0.01 < w[0] - 0.02, w
        w = [c["w_hat"] for c in ashe.explain_decision(player, checked, strength=hs)["candidates"][1:]]
        assert max(w) - min(w) < 0.01, w


def test_patient_genome_needs_a_second_cell_for_its_penalty():
    with pytest.raises(ValueError, match="hidden >= 2"):
        patient_genome(AsheSettings(hidden=1))
    assert patient_genome(AsheSettings(hidden=1), raise_penalty=0.0).shape == (AsheSettings(hidden=1).genome_size,)


def test_patient_genome_beats_the_maniac_by_more_than_the_handbuilt_one():
    """Calling medium hands where the hand-built player raises them is worth thousands of mBB/hand against the
    Hothead Maniac, which re-raises every raise (paired on the same decks; 4 standard errors)."""
    n = 10_000
    a = play_duplicate(ashe_player(patient_genome()), "hothead-maniac", n, seed=21)
    b = play_duplicate(ashe_player(handbuilt_genome()), "hothead-maniac", n, seed=21)
    d = (a.samples - b.samples).astype(np.float64) / 2 / BIG_BLIND * 1000  # mBB/hand per deal
    assert d.mean() > 4 * d.std(ddof=1) / np.sqrt(n) and d.mean() > 5000
    mean, ci = a.mbb_per_hand()
    assert mean - ci > 30_000


def ragg(bank):
    """The opponent-raise aggregates of a bank: per street (showdowns, summed opponent strength, summed result)."""
    _, im, fm = bank
    return [(int(im[ashe.I_RAGG + s]), float(fm[ashe.F_RAGG + 2 * s]), float(fm[ashe.F_RAGG + 2 * s + 1]))
            for s in range(4)]


def test_opponent_raise_aggregates_count_showdowns_after_the_opponents_raises(bank):
    flop_bet = ["c", "c", 300, "c", "c", "c", "c", "c"]  # limp, check; the big blind bets the flop, called; checks
    record(bank, 1, flop_bet, opp_hs=0.75, result=0.0)  # the button saw the big blind's flop bet at showdown
    assert ragg(bank) == [(0, 0, 0), (1, 0.75, 0.0), (0, 0, 0), (0, 0, 0)]
    record(bank, 0, flop_bet, opp_hs=0.25, result=1.0)  # the big blind's own bet is no opponent raise
    record(bank, 1, ["c", "c", 300, "f"])  # no showdown
    assert ragg(bank) == [(0, 0, 0), (1, 0.75, 0.0), (0, 0, 0), (0, 0, 0)]
    record(bank, 1, [300, 900, "c", 1200, 2400, "c", "c", "c", "c", "c"], opp_hs=0.5, result=0.5)
    assert ragg(bank) == [(1, 0.5, 0.5), (2, 1.25, 0.5), (0, 0, 0), (0, 0, 0)]  # once per street, however many raises


def _reading_memory(player):
    """``player``'s memory after twenty showdowns after the big blind's flop bet (it showed 0.9 and won) and forty
    after checked flops (it showed 0.2 and lost): the button's calls on the flop saw 0.43 on average, the bets
    0.9. (The memory holds the player's transposed weights, so it is made for this genome.)"""
    imem, fmem = player.new_memory()
    ashe.ashe_reset(player.params, imem[0], fmem[0])
    bank = (player, imem[0], fmem[0])
    for _ in range(20):
        record(bank, 1, ["c", "c", 300, "c", "c", "c", "c", "c"], opp_hs=0.9, result=0.0)
    for _ in range(40):
        record(bank, 1, ["c", "c", "c", "c", "c", "c", "c", "c"], opp_hs=0.2, result=1.0)
    return imem, fmem


def test_read_raises_changes_only_the_calls_estimate_facing_a_raise():
    settings = AsheSettings(prt_capacity=64)
    own, read = (ashe_player(reader_genome(settings), replace(settings, read_raises=r)) for r in (False, True))
    memory = _reading_memory(own)
    facing = scripted(["c", "c", 300])
    a, b = (ashe.explain_decision(p, facing, strength=0.6, memory=memory)["candidates"] for p in (own, read))
    assert b[1]["name"] == "call" and b[1]["w_hat"] < a[1]["w_hat"] - 0.1, (a, b)  # the range that bets is strong
    assert [c["w_hat"] for c in a[2:]] == [c["w_hat"] for c in b[2:]]  # the raises read what they always read
    checked = scripted(["c", "c", "c"])
    assert (ashe.explain_decision(own, checked, strength=0.6, memory=memory)
            == ashe.explain_decision(read, checked, strength=0.6, memory=memory))


def reraise_answers(bank):
    """The opponent's answers to the player's re-raises per street: (answers, folds)."""
    _, im, _ = bank
    return [(int(im[ashe.I_RERAISE + s]), int(im[ashe.I_RERAISE + 4 + s])) for s in range(4)]


def test_reraise_aggregates_count_the_opponents_answers_to_re_raises(bank):
    record(bank, 0, [300, 900, "f"])  # the big blind re-raises the button's raise; the button folds
    record(bank, 0, [300, 900, "c", "c", "c", "c", "c", "c", "c"], opp_hs=0.4, result=1.0)  # ... calls
    assert reraise_answers(bank) == [(2, 1), (0, 0), (0, 0), (0, 0)]
    record(bank, 1, [300, 900, "f"])  # the button opened and was re-raised: it made no re-raise
    record(bank, 0, ["c", "c", 300, "f"])  # a bet into a checked flop is no re-raise
    # the flop: the button bets, the player re-raises, the button raises again (an answer), the player re-raises,
    # the button folds (an answer, a fold)
    record(bank, 0, ["c", "c", "c", 300, 900, 2700, 8100, "f"])
    assert reraise_answers(bank) == [(2, 1), (2, 1), (0, 0), (0, 0)]


def test_read_reraises_changes_only_the_raises_fold_estimate_facing_a_raise():
    """A player whose OFRE reads the street's fold rate. Its pot-size flop bets were folded to forty times and its
    pot-size flop re-raises called ten times (one street cell, 80 % folds): facing a bet, only with
    ``read_reraises`` do its raises see an opponent who has never folded to a re-raise there."""
    settings = AsheSettings(prt_capacity=64, hidden=2)
    g = np.zeros(settings.genome_size)
    v = unpack(g, settings.hidden)["ofre"]
    v["W"][0, 0, ashe.N_DEC + 5] = 4.0  # the street fold rate, nearly linear through tanh
    v["b"][1:, 0] = (10.0, -10.0, 10.0)  # input and output gates open, no memory
    v["w_out"][0] = 4.0
    own, read = (ashe_player(g, replace(settings, read_reraises=r)) for r in (False, True))
    imem, fmem = own.new_memory()
    ashe.ashe_reset(own.params, imem[0], fmem[0])
    bank = (own, imem[0], fmem[0])
    for _ in range(40):
        record(bank, 1, ["c", "c", "c", 300, "f"])  # the button's flop bet folds the big blind
    for _ in range(10):
        record(bank, 1, ["c", "c", 300, 900, "c", "c", "c", "c", "c"], opp_hs=0.8, result=0.0)  # re-raise called
    memory = (imem, fmem)
    facing = scripted(["c", "c", 300])
    a, b = (ashe.explain_decision(p, facing, strength=0.6, memory=memory)["candidates"] for p in (own, read))
    assert all(y["f_hat"] < x["f_hat"] - 0.2 for x, y in zip(a[2:], b[2:])), (a, b)
    assert len({y["f_hat"] for y in b[2:]}) == 1  # every raise reads the same 0 of 10
    assert [c["w_hat"] for c in a[1:]] == [c["w_hat"] for c in b[1:]]  # the win-rate estimates are unchanged
    checked = scripted(["c", "c", "c"])  # no raise to answer: the same decision
    assert (ashe.explain_decision(own, checked, strength=0.6, memory=memory)
            == ashe.explain_decision(read, checked, strength=0.6, memory=memory))


def opponent_streets(bank):
    """The opponent's actions and raises per street: (actions, raises)."""
    _, im, _ = bank
    return [(int(im[ashe.I_OPP_STREET + s]), int(im[ashe.I_OPP_STREET + 4 + s])) for s in range(4)]


def test_street_counts_hold_every_opponent_action_and_its_raises(bank):
    record(bank, 0, [300, 900, "f"])  # the button raises, the player re-raises, the button folds
    assert opponent_streets(bank) == [(2, 1), (0, 0), (0, 0), (0, 0)]
    # the button limps; the player bets the flop and the button calls; both check the turn and the river
    record(bank, 0, ["c", "c", 300, "c", "c", "c", "c", "c"], opp_hs=0.4, result=1.0)
    assert opponent_streets(bank) == [(3, 1), (1, 0), (1, 0), (1, 0)]
    record(bank, 1, ["c", "c", 300, 900, 2700, "f"])  # the player is the button: the big blind bets and re-raises
    assert opponent_streets(bank) == [(4, 1), (3, 2), (1, 0), (1, 0)]


def raisable_streets(bank):
    """The opponent's actions at which a raise was legal, and its raises, per street: (actions, raises)."""
    _, im, _ = bank
    return [(int(im[ashe.I_OPP_RAISABLE + s]), int(im[ashe.I_OPP_RAISABLE + 4 + s])) for s in range(4)]


def test_raisable_counts_leave_out_the_answers_to_an_all_in(bank):
    record(bank, 0, [300, 900, "f"])  # the button could raise both times
    record(bank, 0, [300, 20000, "c"], opp_hs=0.4, result=1.0)  # its call of the player's all-in could not raise
    assert opponent_streets(bank) == [(4, 2), (0, 0), (0, 0), (0, 0)]
    assert raisable_streets(bank) == [(3, 2), (0, 0), (0, 0), (0, 0)]
    record(bank, 1, ["c", "c", 300, 20000, "c"], opp_hs=0.4, result=0.0)  # the player is the button this time
    assert raisable_streets(bank) == [(4, 2), (1, 1), (0, 0), (0, 0)]


def third_input_genome(settings):
    """A genome whose SWRE reads only its third candidate input ``x`` (the all-in flag by default), through one
    memoryless cell with its gates open: ``w_hat = third_input_win(x)``."""
    g = np.zeros(settings.genome_size)
    v = unpack(g, settings.hidden)["swre"]
    v["W"][0, 0, ashe.SWRE_DEC + 2] = 1.0
    v["b"][1:, 0] = (10.0, -10.0, 10.0)  # input and output gates open, no memory
    v["w_out"][0] = 2.0
    return g


def third_input_win(x):
    """The closed form of ``third_input_genome``'s win estimate: its cell's block input is ``tanh(x)``."""
    sigmoid = lambda z: 1.0 / (1.0 + np.exp(-z))  # noqa: E731
    gate = sigmoid(10.0)  # input and output gates
    return sigmoid(2.0 * gate * np.tanh(gate * np.tanh(x)))


def test_read_aggression_replaces_only_the_all_in_flag_of_swre():
    """A player whose SWRE reads only its third candidate input: the all-in flag, or with ``read_aggression`` the
    opponent's raise share on the street. The big blind bet the flop in all twenty hands seen, so the share is
    (20 + 5) / (20 + 10) and every candidate's win estimate moves up by the same amount; the fold estimates and
    the decision inputs are untouched."""
    settings = AsheSettings(prt_capacity=64, hidden=2)
    g = third_input_genome(settings)
    unpack(g, settings.hidden)["ofre"]["b_out"][...] = 0.3  # a constant fold estimate for the raises
    own, read = (ashe_player(g, replace(settings, read_aggression=r)) for r in (False, True))
    facing = scripted(["c", "c", 300])
    fresh = [c["w_hat"] for c in ashe.explain_decision(read, facing, strength=0.6)["candidates"][1:]]
    a = ashe.explain_decision(own, facing, strength=0.6)["candidates"]
    assert len(set(fresh)) == 1 and len({c["w_hat"] for c in a[1:6]}) == 1 and a[6]["w_hat"] > a[1]["w_hat"]
    imem, fmem = own.new_memory()
    ashe.ashe_reset(own.params, imem[0], fmem[0])
    for _ in range(20):
        record((own, imem[0], fmem[0]), 1, ["c", "c", 300, "c", "c", "c", "c", "c"], opp_hs=0.7, result=0.0)
    a, b = (ashe.explain_decision(p, facing, strength=0.6, memory=(imem, fmem))["candidates"] for p in (own, read))
    assert len({c["w_hat"] for c in b[1:]}) == 1 and b[1]["w_hat"] > fresh[0] + 0.03, (b, fresh)
    assert b[1]["w_hat"] == pytest.approx(third_input_win(25.0 / 30.0), rel=1e-6)
    assert [c["f_hat"] for c in a[2:]] == [c["f_hat"] for c in b[2:]]
    assert [c["w_hat"] for c in a[1:]] == [c["w_hat"] for c in
                                           ashe.explain_decision(own, facing, strength=0.6)["candidates"][1:]]


def test_mark_reraises_feeds_swre_the_size_class_of_a_reraise_only():
    """A player whose SWRE reads only its third candidate input. With ``mark_reraises`` it is the size class of a
    raise made facing the opponent's raise (0.25 for half a pot up to 1 for all-in) and 0 for the call and for
    every candidate when nothing is faced; without it, the all-in flag. Checked against the closed form of one
    memoryless cell."""
    settings = AsheSettings(prt_capacity=64, hidden=2)
    g = third_input_genome(settings)
    own, mark = (ashe_player(g, replace(settings, mark_reraises=m)) for m in (False, True))
    facing, opening = scripted(["c", "c", 300]), scripted(["c", "c"])
    b = ashe.explain_decision(mark, facing, strength=0.6)["candidates"]
    sizes = (0, 0.25, 0.5, 0.75, 1.0, 1.0)  # the call, 0.5 to 2 pots, all-in
    assert [c["w_hat"] for c in b[1:]] == pytest.approx([third_input_win(x) for x in sizes], rel=1e-9)
    b = ashe.explain_decision(mark, opening, strength=0.6)["candidates"]  # no fold candidate: nothing to call
    assert [c["w_hat"] for c in b] == pytest.approx([third_input_win(0.0)] * 6, rel=1e-9)
    a = ashe.explain_decision(own, facing, strength=0.6)["candidates"]
    assert [c["w_hat"] for c in a[1:]] == pytest.approx([third_input_win(x) for x in (0, 0, 0, 0, 0, 1.0)],
                                                        rel=1e-9)
    with pytest.raises(ValueError, match="at most one"):
        AsheSettings(read_aggression=True, mark_reraises=True)
    with pytest.raises(ValueError, match="ashe2 model only"):
        AsheSettings(model="ashe1", mark_reraises=True)


def test_reader_genome_is_the_patient_one_until_the_opponent_shows_hands():
    settings = AsheSettings(read_raises=True)
    reader, patient = ashe_player(reader_genome(settings), settings), ashe_player(patient_genome(settings), settings)
    facing = scripted(["c", "c", 300])
    for hs in (0.2, 0.5, 0.8):
        a, b = (ashe.explain_decision(p, facing, strength=hs)["candidates"] for p in (reader, patient))
        # no showdowns: the gate is nearly shut (sigmoid(-6)) and the neutral strength 0.5 feeds tanh(0)
        assert [c["w_hat"] for c in a[1:]] == pytest.approx([c["w_hat"] for c in b[1:]], abs=1e-6)
    with pytest.raises(ValueError, match="hidden >= 3"):
        reader_genome(AsheSettings(hidden=2))


@functools.lru_cache(maxsize=None)
def match_means(a, b, matches=30, deals=500):
    """``a``'s mBB/hand against ``b`` in independent matches (fresh memories, deck seeds 100, 101, ...). The deals
    of one match share the players' memory, so its per-deal results are not independent: a claim about an
    adaptive player takes whole matches as its samples. Cached: two tests compare with the reader player."""
    return np.array([play_duplicate(a, b, deals, seed=100 + m).mbb_per_hand()[0] for m in range(matches)])


def standard_errors(d):
    return d.mean() / (d.std(ddof=1) / np.sqrt(len(d)))


def test_reader_genome_beats_the_patient_one():
    """Against the patient player, whose raises facing a bet mean strong hands, weighing the hand against what it
    showed wins (30 matches of 500 deals; measured +1,506 ± 500 mBB/hand, 3.0 standard errors)."""
    assert standard_errors(match_means("reader", "patient")) > 2.5


def test_reader_folds_genome_follows_the_street_fold_rate_only_where_the_node_is_new():
    settings = AsheSettings(prt_capacity=64, read_raises=True, read_reraises=True)
    reader, folds = (ashe_player(g(settings), settings) for g in (reader_genome, reader_folds_genome))
    facing = scripted(["c", "c", 300])
    fresh = [[c["f_hat"] for c in ashe.explain_decision(p, facing, strength=0.6)["candidates"][2:]]
             for p in (reader, folds)]
    assert fresh[1] == pytest.approx(fresh[0], abs=1e-6)  # no statistics yet: the neutral 0.5 adds nothing
    # ten re-raises of a flop bet, all called: the opponent never folds to a re-raise on the flop
    imem, fmem = folds.new_memory()
    ashe.ashe_reset(folds.params, imem[0], fmem[0])
    for _ in range(10):
        record((folds, imem[0], fmem[0]), 1, ["c", "c", 300, 900, "c", "c", "c", "c", "c"], opp_hs=0.8, result=0.0)
    a, b = (ashe.explain_decision(p, facing, strength=0.6, memory=(imem, fmem))["candidates"] for p in (reader, folds))
    new = [(x["f_hat"], y["f_hat"]) for x, y in zip(a[2:], b[2:]) if x["raise_to"] != 900]  # unseen nodes
    assert new and all(y < x - 0.2 for x, y in new), (a, b)
    seen = [(x["f_hat"], y["f_hat"]) for x, y in zip(a[2:], b[2:]) if x["raise_to"] == 900]  # ten visits: gate shut
    assert seen and all(y == pytest.approx(x, abs=0.02) for x, y in seen), (a, b)


def test_reader_folds_genome_beats_the_patient_player_by_more_than_the_reader():
    """Reading the opponent's folds too gains on the reader player against the patient player (30 matches of 500
    deals on the same decks; measured +2,454 ± 493 mBB/hand, 5.0 standard errors)."""
    assert standard_errors(match_means("reader-folds", "patient") - match_means("reader", "patient")) > 3


def test_steady_reader_gives_nothing_away_to_the_maniac():
    """Waiting for about 30 showdowns before reading wins back what reading cost against the Maniac, whose raises
    mean nothing (30 matches of 500 deals on the same decks: measured +3,951 ± 698 mBB/hand on the reader-folds
    player, 5.7 standard errors, and −17 ± 334 against the patient player, which does not read)."""
    steady = match_means("reader-steady", "hothead-maniac")
    assert standard_errors(steady - match_means("reader-folds", "hothead-maniac")) > 3
    assert abs(standard_errors(steady - match_means("patient", "hothead-maniac"))) < 3


def after_pass(bank):
    """The opponent's actions right after the player's check or call, per street: (actions, bets, summed sizes)."""
    _, im, fm = bank
    return [(int(im[ashe.I_AFTER + s]), int(im[ashe.I_AFTER + 4 + s]), float(fm[ashe.F_AFTER + s])) for s in range(4)]


def test_after_pass_statistics_count_the_opponents_action_after_a_check_or_call(bank):
    record(bank, 0, [300, "c", "c", 900, "f"])  # the call closes preflop; the flop check meets a pot-size bet
    assert after_pass(bank) == [(0, 0, 0), (1, 1, 1.0), (0, 0, 0), (0, 0, 0)]
    record(bank, 0, [300, "c", "c", "c", "c", "c", "c", "c"])  # three checks, each checked behind
    assert after_pass(bank) == [(0, 0, 0), (2, 1, 1.0), (1, 0, 0), (1, 0, 0)]
    record(bank, 0, [300, 900, "c", 1200, "f"])  # a re-raise, then the button's bet into the player: nothing passed
    assert after_pass(bank) == [(0, 0, 0), (2, 1, 1.0), (1, 0, 0), (1, 0, 0)]
    # the button limps (the big blind raises 200 into 200); its call closes preflop and the big blind, first on
    # the flop, bets 300 into 600
    record(bank, 1, ["c", 300, "c", 600, "f"])
    assert after_pass(bank) == [(1, 1, 1.0), (3, 2, 1.5), (1, 0, 0), (1, 0, 0)]


def _lookahead_pair(w=0.8):
    """Two players whose estimates are constants (fold rate about 0, win rate ``w``), without and with lookahead,
    and a memory for them in which the opponent folded to 3 of the player's 4 re-raises, all on the flop."""
    settings = AsheSettings(prt_capacity=64, hidden=1)
    g = np.zeros(settings.genome_size)
    blocks = unpack(g, settings.hidden)
    blocks["ofre"]["b_out"][...] = -30.0
    blocks["swre"]["b_out"][...] = np.log(w / (1 - w))
    one, two = (ashe_player(g, replace(settings, lookahead=look)) for look in (False, True))
    imem, fmem = one.new_memory()
    ashe.ashe_reset(one.params, imem[0], fmem[0])
    for answer in ("f", "f", "f", "c"):  # the flop: the button bets 200, the player re-raises to 900
        record((one, imem[0], fmem[0]), 0, ["c", "c", "c", 300, 900, answer] + (["c"] * 4 if answer == "c" else []),
               opp_hs=0.5, result=0.5)
    return one, two, (imem, fmem)


def test_lookahead_credits_a_closing_call_and_an_opening_check_with_the_folds_they_set_up():
    """The closed forms of ``docs/players.md`` (*Looking ahead*), from the memory of ``_lookahead_pair``: each of the
    four flop checks met a pot-size bet, and one turn check was checked behind; the opponent folded to 3 of 4
    re-raises, all on the flop. Each statistic is shrunk with 10 pseudo-observations towards its prior."""
    one, two, memory = _lookahead_pair(0.8)
    w = 0.8
    f_all = (3 + 10 * 0.0) / (4 + 10)  # folds to re-raises on all streets, towards none
    # The big blind faces a raise to 300 (pot 400, 200 to call): the opponent speaks next on the flop.
    p, x = 400, 200
    u_pass = w * p - (1 - w) * x
    p_bet = (4 + 10 * 0.5) / (4 + 10)  # it bet after all 4 flop checks
    f_re = (3 + 10 * f_all) / (4 + 10)
    won_bet = f_re * (p + 1.0 * (p + x)) + (1 - f_re) * u_pass  # it bets the pot (600); the raise wins it or not
    expected_call = max(u_pass, p_bet * won_bet + (1 - p_bet) * u_pass)  # a flop bet first: never folded to
    # A check that opens the turn after a checked flop (pot 200): one turn check was checked behind.
    p_bet = (0 + 10 * 0.5) / (1 + 10)
    won_bet = f_all * (200 + 200) + (1 - f_all) * w * 200
    expected_check = p_bet * won_bet + (1 - p_bet) * w * 200
    for actions, k, u1, expected in (([300], 1, u_pass, expected_call), (["c", "c", "c", "c"], 0, w * 200,
                                                                         expected_check)):
        a, b = (ashe.explain_decision(pl, scripted(actions), strength=0.5, memory=memory)["candidates"]
                for pl in (one, two))
        assert a[k]["utility"] == pytest.approx(u1)
        assert b[k]["utility"] == pytest.approx(expected) and expected > u1 + 20
        assert [c["utility"] for c in a[k + 1:]] == [c["utility"] for c in b[k + 1:]]  # the raises are unchanged
    # Facing a bet on the river, or after the opponent checked to the player, the one-step value stands.
    for actions in (["c", "c", "c", "c", "c", "c", 300], ["c", "c", "c"]):
        a, b = (ashe.explain_decision(pl, scripted(actions), strength=0.5, memory=memory)["candidates"]
                for pl in (one, two))
        assert [c["utility"] for c in a] == [c["utility"] for c in b]


def test_lookahead_adds_nothing_against_an_opponent_that_never_folds():
    """With no folds seen and none assumed, there is no fold equity to credit: the Hothead Maniac, which never
    folds, meets the same player with and without lookahead, hand for hand."""
    settings = AsheSettings(prt_capacity=1024, read_raises=True, read_reraises=True)
    one, two = (ashe_player(reader_folds_genome(s), s) for s in (settings, replace(settings, lookahead=True)))
    a, b = (play_duplicate(p, "hothead-maniac", 300, seed=8) for p in (one, two))
    assert np.array_equal(a.hand_payoffs, b.hand_payoffs)


def test_lookahead_wins_more_from_the_candid_statistician():
    """The Candid Statistician bets its hand's worth and folds to any raise of that bet: checking or calling to let
    it bet, then raising, wins more than the one-step rule's immediate raise (the reader-folds player, 20 matches
    of 500 deals on the same decks; measured +1,764 ± 344 mBB/hand, 5.1 standard errors)."""
    settings = AsheSettings(prt_capacity=1024, read_raises=True, read_reraises=True)
    one, two = (ashe_player(reader_folds_genome(s), s) for s in (settings, replace(settings, lookahead=True)))
    d = match_means(two, "candid-statistician", matches=20) - match_means(one, "candid-statistician", matches=20)
    assert standard_errors(d) > 3


def _allin_from_now(f, w, p, x, room):
    """An all-in into pot ``p`` with ``x`` to call and ``room`` behind after it: the pot on a fold, else a showdown
    against the calling hands. Winning takes the pot and the opponent's ``room``; losing costs ``x + room``."""
    wc = min(max((w - f) / (1 - f), 0.0), 1.0)
    return f * p + (1 - f) * (wc * (p + room) - (1 - wc) * (x + room))


def _range_win(w, p_bet, rho, bets):
    """The win rate against the opponent's betting (``bets``) or checking hands if it bets the strongest ``p_bet``
    of a uniform range and the player beats the weakest ``w``: the overlap of ``[0, w]`` with ``[1 - p_bet, 1]``
    (or ``[0, 1 - p_bet]``) over that interval's length, mixed with ``w`` by ``rho``."""
    lo, hi = (1 - p_bet, 1.0) if bets else (0.0, 1 - p_bet)
    return (1 - rho) * w + rho * max(0.0, min(w, hi) - lo) / (hi - lo)


def _reraise_from_now(f_re, w, p, x, room):
    """A pot-size re-raise into pot ``p`` with ``x`` to call and ``room`` behind after the call: the pot on a fold
    (``f_re``), else a showdown of a pot raised by ``p + x``; none (minus infinity) without ``option_reraise``
    (``f_re`` None) or where the raise is an all-in."""
    r = p + x
    if f_re is None or r >= room:
        return -np.inf
    return f_re * p + (1 - f_re) * (w * (p + r) - (1 - w) * (x + r))


def _closing_call_from_now(f, w, pos, street, p, x, room, p_bet=0.5, size=1.0, rho=0.0, f_re=None):
    """``docs/players.md`` (*The call's option*) for a call that closes ``street``, written out with fresh
    statistics (the opponent bets half the time, the pot); ``rho`` is ``option_range``, ``f_re`` the fold rate to a
    re-raise of the next street's bet with ``option_reraise``."""
    b = min(size * (p + x), room)
    d = min(ashe.OPTION_SPREAD[street], w, 1 - w)
    v = 0.0
    for w2 in (w - d, w + d):
        wb, wc = _range_win(w2, p_bet, rho, True), _range_win(w2, p_bet, rho, False)
        show = wc * p - (1 - wc) * x
        faced = max(-x, wb * (p + b) - (1 - wb) * (x + b), _allin_from_now(f, wb, p + b, x + b, room - b),
                    _reraise_from_now(f_re, wb, p + b, x + b, room - b))
        v += 0.5 * (max(_allin_from_now(f, w2, p, x, room), p_bet * faced + (1 - p_bet) * show) if pos == 0 else
                    p_bet * faced + (1 - p_bet) * max(show, _allin_from_now(f, wc, p, x, room)))
    return v


@pytest.mark.parametrize("reraise", [False, True])
@pytest.mark.parametrize("rho", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("f, w", [(0.0, 0.6), (0.3, 0.55), (0.6, 0.9), (0.1, 0.3)])
def test_call_option_values_a_check_or_call_by_its_closed_form(f, w, rho, reraise):
    """Constant estimates (fold rate ``f``, win rate ``w``) and fresh memory: the call's utility is the closed form
    of ``docs/players.md``, with the opponent's bets and checks read by ``option_range = rho`` and, with
    ``option_reraise``, a pot-size re-raise among the answers to its bets (no folds to it assumed with no
    statistics); the raises' utilities are the one-step rule's; on the river a call is a showdown."""
    settings = AsheSettings(prt_capacity=64, hidden=1)
    g = constant_genome(settings, f, w)
    one, two = (ashe_player(g, replace(settings, call_option=c, option_range=rho if c else 0.0,
                                       option_reraise=reraise and c)) for c in (False, True))
    f_re = 0.0 if reraise else None
    # The big blind facing a raise to 300 closes preflop; the button's limp leaves the big blind to speak.
    room = STACK - 300.0
    bb = _closing_call_from_now(f, w, 0, 0, 400.0, 200.0, room, rho=rho, f_re=f_re)
    wb, wc = _range_win(w, 0.5, rho, True), _range_win(w, 0.5, rho, False)
    faced = max(0.0, _closing_call_from_now(f, wb, 1, 0, 400.0, 200.0, room, rho=rho, f_re=f_re),
                _allin_from_now(f, wb, 400.0, 200.0, room), _reraise_from_now(f_re, wb, 400.0, 200.0, room))
    limp = 0.5 * faced + 0.5 * _closing_call_from_now(f, wc, 1, 0, 200.0, 0.0, STACK - 100.0, rho=rho,
                                                      f_re=f_re) - 50.0
    for actions, expected in (([300], bb), ([], limp)):
        a, b = (ashe.explain_decision(pl, scripted(actions), strength=0.5)["candidates"] for pl in (one, two))
        assert b[1]["utility"] == pytest.approx(expected, rel=1e-9)
        assert a[1]["utility"] == pytest.approx(w * (400 if actions else 150) - (1 - w) * (200 if actions else 50))
        assert [c["utility"] for c in a[2:]] == [c["utility"] for c in b[2:]]
    river = ["c", "c", "c", "c", "c", "c", 300]  # the button bets 300 into 200 on the river
    a, b = (ashe.explain_decision(pl, scripted(river), strength=0.5)["candidates"] for pl in (one, two))
    assert [c["utility"] for c in a] == [c["utility"] for c in b]
    with pytest.raises(ValueError, match="at most one"):
        AsheSettings(lookahead=True, call_option=True)
    with pytest.raises(ValueError, match="ashe2 model only"):
        AsheSettings(model="ashe1", call_option=True)


@pytest.mark.parametrize("w, p_bet", [(0.3, 0.5), (0.8, 0.5), (0.6, 0.1), (0.6, 0.9), (0.05, 0.97), (1.0, 0.3)])
def test_split_range_divides_the_win_rate_between_bets_and_checks(w, p_bet):
    """``split_range``: the ordered-range win rates against the betting and the checking hands (interval overlaps),
    mixed with ``w`` by ``rho``; bets and checks together keep ``w``. ``rho = 0``, or an opponent that always or
    never bets, leaves ``w`` as it is."""
    for rho in (0.0, 0.25, 1.0):
        wb, wc = ashe.split_range(w, p_bet, rho)
        assert (wb, wc) == pytest.approx((_range_win(w, p_bet, rho, True), _range_win(w, p_bet, rho, False)),
                                         abs=1e-12)
        assert p_bet * wb + (1 - p_bet) * wc == pytest.approx(w, abs=1e-12)
        assert wb <= w + 1e-12 <= wc + 2e-12
    for p in (0.0, 1.0):
        assert ashe.split_range(w, p, 1.0) == (w, w)
    assert ashe.split_range(w, p_bet, 0.0) == (w, w)


@pytest.mark.parametrize("name, needs", [("option_range", "call_option"), ("raising_range", "anchored")])
def test_range_settings_are_shares_that_need_their_feature(name, needs):
    """``option_range`` and ``raising_range`` lie in [0, 1], need ``call_option`` and ``anchored``, and are written
    to a settings dict only when set."""
    for bad in (-0.1, 1.5, "half"):
        with pytest.raises(ValueError, match=f"{name} must be a number in"):
            AsheSettings(**{needs: True, name: bad})
    with pytest.raises(ValueError, match=f"needs {needs}"):
        AsheSettings(**{name: 0.5})
    assert name not in AsheSettings(**{needs: True}).to_dict()
    s = AsheSettings(**{needs: True, name: 1})
    assert getattr(s, name) == 1.0 and AsheSettings.from_dict(s.to_dict()) == s


def test_option_reraise_reads_the_folds_to_the_players_reraises():
    """With a memory of the Candid Statistician (which folds to any raise beyond what it has decided to commit),
    the big blind's call of a raise is valued with the re-raise of the next street's bet at the Statistician's
    counted folds to the player's re-raises there (shrunk towards all streets', shrunk towards none) and its
    counted bets after the player's calls; the re-raise only adds an answer, so the call is worth at least as much
    as without it, and here more."""
    f, w = 0.3, 0.55
    settings = AsheSettings(prt_capacity=1024, hidden=1, call_option=True)
    g = constant_genome(settings, f, w)
    one, two = (ashe_player(g, replace(settings, option_reraise=r)) for r in (False, True))
    memory = two.new_memory()
    reset_memory(two.kind, two.params, *memory)
    opp = make_player("candid-statistician")
    play_duplicate(two, opp, 300, seed=3, memory=(*memory, *opp.new_memory()))
    im, fm = memory[0][0], memory[1][0]
    answers, folds = im[ashe.I_RERAISE:ashe.I_RERAISE + 4], im[ashe.I_RERAISE + 4:ashe.I_RERAISE + 8]
    assert folds[1] > 0  # the memory holds re-raises of its flop bets it folded to
    f_all = (folds.sum() + 10 * 0.0) / (answers.sum() + 10)
    f_re = (folds[1] + 10 * f_all) / (answers[1] + 10)
    bets, passes = im[ashe.I_AFTER + 4 + 1], im[ashe.I_AFTER + 1]
    p_bet = (bets + 10 * 0.5) / (passes + 10)
    size = (fm[ashe.F_AFTER + 1] + 10 * 1.0) / (bets + 10)
    expected = _closing_call_from_now(f, w, 0, 0, 400.0, 200.0, STACK - 300.0, p_bet=p_bet, size=size, f_re=f_re)
    a, b = (ashe.explain_decision(pl, scripted([300]), strength=0.5, memory=memory)["candidates"]
            for pl in (one, two))
    assert b[1]["utility"] == pytest.approx(expected, rel=1e-9)
    assert b[1]["utility"] > a[1]["utility"] + 10
    assert [c["utility"] for c in a[2:]] == [c["utility"] for c in b[2:]]
    with pytest.raises(ValueError, match="needs call_option"):
        AsheSettings(option_reraise=True)


def test_option_spread_is_the_hand_strengths_step_to_the_next_street():
    """``OPTION_SPREAD`` is the standard deviation of the hand strength's change from one street to the next over
    random deals (600 deals here; its standard error is about sd / sqrt(2 n) = 0.005, and the flop and turn
    roll-outs add at most 0.002)."""
    from pokerduel.players.hand_strength import hand_strength

    rng = np.random.default_rng(11)
    hs = np.array([[hand_strength(c[:2], c[2:2 + n], samples=2000, seed=i) for n in (0, 3, 4, 5)]
                   for i, c in enumerate(rng.choice(52, 7, replace=False) for _ in range(600))])
    sd = np.diff(hs, axis=1).std(axis=0)
    assert sd == pytest.approx(ashe.OPTION_SPREAD, abs=0.02)


def test_call_option_wins_more_from_the_hothead_maniac():
    """The one-step rule with near-exact estimates moves all-in with any hand it expects to win more often than
    not; against the Maniac, which bets and re-raises every hand, calling and deciding after the next card wins
    more (2,000 deals, paired by deal; measured +9,631 mBB/hand, 8.4 standard errors)."""
    settings = AsheSettings(prt_capacity=1024)
    one, two = (ashe_player(patient_genome(s, 0.1, 0.0), s) for s in (settings, replace(settings, call_option=True)))
    a, b = (play_duplicate(pl, "hothead-maniac", 2000, seed=21).samples for pl in (one, two))
    assert standard_errors((b - a).astype(float)) > 3


@pytest.mark.parametrize("p, a", [(0.5, 0.3), (0.8, 0.5), (0.2, 0.9), (0.97, 0.04), (0.6, 0.0), (0.6, 1.0)])
def test_anchor_adds_the_logits_of_the_output_and_the_anchor(p, a):
    """``anchor(p, a)`` is the logistic function of ``logit(p) + logit(a)``, the anchor kept within ``ANCHOR_EPS``
    of 0 and 1: an output of 1/2 returns the anchor, an anchor of 1/2 the output."""
    a_kept = min(max(a, ashe.ANCHOR_EPS), 1 - ashe.ANCHOR_EPS)
    logit = lambda q: np.log(q / (1 - q))  # noqa: E731
    assert ashe.anchor(p, a) == pytest.approx(sigmoid(logit(p) + logit(a_kept)), rel=1e-12)
    assert ashe.anchor(0.5, a) == pytest.approx(a_kept, rel=1e-12) and ashe.anchor(p, 0.5) == pytest.approx(p)


def test_anchored_estimates_are_the_hand_strength_and_the_shrunk_fold_rates():
    """All-zero weights (every output 1/2): anchored, SWRE says the hand strength for every candidate and OFRE
    the PRT's fold rate for the candidate, the node's shrunk towards its street cell's, shrunk towards 1/2.
    The button's pot-size raise preflop (to 300) was folded to three times and re-raised once; no other raise
    was ever made."""
    settings = AsheSettings(prt_capacity=64, anchored=True)
    player = ashe_player(np.zeros(settings.genome_size), settings)
    free = ashe_player(np.zeros(settings.genome_size), replace(settings, anchored=False))
    imem, fmem = player.new_memory()
    ashe.ashe_reset(player.params, imem[0], fmem[0])
    for actions in ([300, "f"], [300, "f"], [300, "f"], [300, 900, "f"]):
        record((player, imem[0], fmem[0]), 1, actions)
    out = ashe.explain_decision(player, scripted([]), strength=0.62, memory=(imem, fmem))["candidates"]
    assert [c["w_hat"] for c in out[1:]] == pytest.approx([0.62] * 6, rel=1e-12)
    assert out[3]["raise_to"] == 300
    street = (3 + 10 * 0.5) / (4 + 10)  # CONF_PRIOR = 10 pseudo-observations
    assert out[3]["f_hat"] == pytest.approx((3 + 10 * street) / (4 + 10), rel=1e-12)
    assert [c["f_hat"] for c in out[2:] if c["raise_to"] != 300] == pytest.approx([0.5] * 4, rel=1e-12)
    unanchored = ashe.explain_decision(free, scripted([]), strength=0.62, memory=(imem, fmem))["candidates"]
    assert [c["w_hat"] for c in unanchored[1:]] == pytest.approx([0.5] * 6)


@pytest.mark.parametrize("rho", [0.0, 0.5, 1.0])
def test_raising_range_anchors_swre_at_the_win_rate_against_the_raising_hands(rho):
    """All-zero weights, anchored, ``raising_range = rho``: facing the big blind's flop bet, which it made in 20
    of the 40 flops it could bet (raise share (20 + 5) / (40 + 10) = 1/2), every candidate's win estimate is the
    ordered-range split of the hand strength 0.8: against the top half of hands (0.8 - 1/2) / (1/2) = 0.6, mixed
    with 0.8 by ``rho``; where no raise is faced, the hand strength."""
    settings = AsheSettings(prt_capacity=64, anchored=True, raising_range=rho)
    player = ashe_player(np.zeros(settings.genome_size), settings)
    imem, fmem = player.new_memory()
    ashe.ashe_reset(player.params, imem[0], fmem[0])
    bank = (player, imem[0], fmem[0])
    for _ in range(20):
        record(bank, 1, ["c", "c", 300, "f"])
        record(bank, 1, ["c", "c", "c", "c", "c", "c", "c", "c"], opp_hs=0.3, result=1.0)
    facing = ashe.explain_decision(player, scripted(["c", "c", 300]), strength=0.8, memory=(imem, fmem))
    expected = (1 - rho) * 0.8 + rho * 0.6
    assert [c["w_hat"] for c in facing["candidates"][1:]] == pytest.approx([expected] * 6, rel=1e-12)
    checked = ashe.explain_decision(player, scripted(["c", "c", "c"]), strength=0.8, memory=(imem, fmem))
    assert [c["w_hat"] for c in checked["candidates"]] == pytest.approx([0.8] * 6, rel=1e-12)  # no fold


def test_ashe_against_itself_is_zero():
    player = ashe_player(handbuilt_genome())
    result = play_duplicate(player, ashe_player(handbuilt_genome(), name="twin"), 5000, seed=2)
    mean, ci = result.mbb_per_hand()
    assert abs(mean) <= ci
    # The mirrored hands are identical with the seats swapped, so each deal cancels exactly.
    assert np.all(result.samples == 0)


def test_random_players_are_legal_deterministic_and_chunk_independent():
    settings = AsheSettings()
    rng = np.random.default_rng(5)
    a, b = (ashe_player(random_genome(settings, rng), name=n) for n in "ab")
    r1 = play_duplicate(a, b, 600, seed=9, chunk=4096)
    r2 = play_duplicate(a, b, 600, seed=9, chunk=37)
    assert r1.invalid_actions == 0
    np.testing.assert_array_equal(r1.hand_payoffs, r2.hand_payoffs)
    for bot in ("random", "candid-statistician", "scared-limper"):
        assert play_duplicate(a, bot, 300, seed=1).invalid_actions == 0


def test_lstm_reset_setting_changes_play_of_a_recurrent_genome():
    rng = np.random.default_rng(8)
    genome = random_genome(AsheSettings(), rng)
    per_hand = play_duplicate(ashe_player(genome, AsheSettings(lstm_reset="hand")), "random", 500, seed=1)
    per_half = play_duplicate(ashe_player(genome, AsheSettings(lstm_reset="half")), "random", 500, seed=1)
    assert not np.array_equal(per_hand.hand_payoffs, per_half.hand_payoffs)


def test_settings_and_genomes_are_validated():
    with pytest.raises(ValueError, match="lstm_reset"):
        AsheSettings(lstm_reset="never")
    with pytest.raises(ValueError, match="hidden"):
        AsheSettings(hidden=0)
    with pytest.raises(ValueError, match="shape"):
        ashe_player(np.zeros(10))
    bad = np.zeros(AsheSettings().genome_size)
    bad[3] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        ashe_player(bad)


def test_random_populations_have_dominant_actions_and_wide_variance_spread():
    """Core paper §7: untrained players often lean on one action, so pair variances span orders of magnitude
    (two players who fold at once against two who move all-in: single hands of +-50..100 against +-20,000)."""
    from pokerduel.play.populations import new_population
    from pokerduel.play.tournament import round_robin

    rr = round_robin(new_population(10, seed=1).players(), 200, seed=1, count_actions=True)
    share = rr.actions / rr.actions.sum(axis=1, keepdims=True)
    assert share.max(axis=1).mean() > 0.5  # a player spreading its actions evenly would be near 0.25
    hand_var = rr.hand_var[np.triu_indices(10, 1)]
    assert hand_var.max() > 1e8 and hand_var.min() < 1e4  # all-in pairs against blind-folding pairs
    assert np.all(rr.mean == -rr.mean.T) and np.all(rr.count[np.triu_indices(10, 1)] == 200)


def test_the_handbuilt_spec_is_the_reference_player_with_a_run_sized_prt():
    code = ("import sys, numpy as np; from pokerduel.players.base import make_player; "
            "assert 'pokerduel.players.genomes' not in sys.modules; "
            "p = make_player('handbuilt'); "
            "from pokerduel.players.genomes import AsheSettings, ashe_player, handbuilt_genome; "
            "s = AsheSettings(prt_capacity=1024); q = ashe_player(handbuilt_genome(s), s); "
            "assert p.name == 'handbuilt' and p.kind == q.kind and np.array_equal(p.params, q.params)")
    subprocess.run([sys.executable, "-c", code], check=True)
    r = play_duplicate("handbuilt", "calling-machine", 200, seed=5)
    assert r.mbb_per_hand()[0] - r.mbb_per_hand()[1] > 0     # a value bettor beats the Calling Machine


def test_the_anchors_spec_estimates_by_its_anchors_alone():
    """The all-zero genome with anchored estimators: every network output is 1/2, so each estimate is its anchor
    (SWRE the hand strength, OFRE the fresh PRT's fold rate of 1/2), and it plays as the zero genome does."""
    player = make_player("anchors")
    settings = anchors_settings()
    assert player.name == "anchors" and settings.anchored and settings.call_option
    zero = ashe_player(np.zeros(settings.genome_size, np.float32), settings)
    assert np.array_equal(player.params, zero.params)
    for hs in (0.2, 0.55, 0.9):
        cands = ashe.explain_decision(player, HandState(), strength=hs)["candidates"]
        assert [c["w_hat"] for c in cands[1:]] == pytest.approx([hs] * (len(cands) - 1), abs=1e-12)
        assert [c["f_hat"] for c in cands[2:]] == pytest.approx([0.5] * (len(cands) - 2), abs=1e-12)
    r = play_duplicate("anchors", "calling-machine", 200, seed=5)
    assert r.mbb_per_hand()[0] > 0     # it bets its strong hands into a player that never folds


def test_river_reader_drops_the_raise_penalty_on_the_river_only():
    """Facing a bet on the turn the river reader is the steady one; on the river, where no card is left to see,
    its raises are estimated as the steady reader without a penalty estimates them."""
    settings = handmade_settings("reader-river")
    river, steady, free = (ashe_player(g, settings) for g in (
        river_reader_genome(settings), steady_reader_genome(settings), steady_reader_genome(settings, raise_penalty=0)))
    turn_bet, river_bet = scripted([300, "c", "c", "c", 900]), scripted([300, "c", "c", "c", "c", "c", 900])

    def w_hats(player, state, hs):
        return [c["w_hat"] for c in ashe.explain_decision(player, state, strength=hs)["candidates"][1:]]

    for hs in (0.3, 0.6, 0.9):
        assert w_hats(river, turn_bet, hs) == w_hats(steady, turn_bet, hs)
        assert w_hats(river, river_bet, hs) == pytest.approx(w_hats(free, river_bet, hs), abs=1e-6)
        penalised = w_hats(steady, river_bet, hs)
        assert penalised[-1] < w_hats(river, river_bet, hs)[-1] - 0.01, penalised


def test_river_reader_wins_more_from_the_maniac():
    """Raising the river's better hands into the Hothead Maniac, which re-raises to the all-in with any two cards,
    wins more than calling them (30 matches of 500 deals on the same decks; measured +1,242 ± 240 mBB/hand, 5.2
    standard errors)."""
    steady, river = (match_means(spec, "hothead-maniac") for spec in ("reader-steady", "reader-river"))
    assert standard_errors(river - steady) > 3
