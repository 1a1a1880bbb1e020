"""ASHE 2.0-style player (Li & Miikkulainen 2018): a Pattern Recognition Tree and two LSTM estimators.

At each decision the player looks up, for every candidate action, the PRT node the action leads to;
the **OFRE** network estimates the opponent's fold rate there and the **SWRE** network the player's
showdown win rate; it then takes the candidate of highest one-step expected utility. The PRT is the
player's memory of the opponent (kept per memory bank, i.e. per opponent and duplicate half); the LSTM
state lives within a hand. The design follows ``../shared/notes/ashe-player.md`` §5 and is described,
with every choice and its setting, in ``docs/players.md``.

Everything here is a numba kernel that never allocates: the per-bank memory arrays hold the PRT, the
LSTM state and all scratch space (layouts below).

**Action alphabet** (PRT edges, both players): ``F``, ``C``, and the raise buckets ``B0..B6`` of the
raise increment as a fraction ``s`` of the pot after calling: B0 < 0.375 <= B1 < 0.75 <= B2 < 1.25 <= B3
< 1.75 <= B4 < 3 <= B5, and B6 for all-in or a raise leaving less than 5% of the stack behind. The
player's own raises of 0.5, 1, 1.5 and 2 pots fall in B1..B4 and its all-in in B6.

**params** (float64): ``[hidden, prt_capacity, lstm_reset, calling_range, explore, read_raises,
read_reraises, lookahead, read_aggression, mark_reraises, call_option, anchored, option_range, raising_range,
option_reraise, OFRE block, SWRE block]``.
An estimator block for ``n`` inputs and ``H`` cells is, in order: ``W[4, H, n]``, ``R[4, H, H]``, peepholes
``p[3, H]`` (input, forget, output gates), biases ``b[4, H]``, output weights ``w[H]``, output bias;
gates are ordered (block input z, input i, forget f, output o). The genome is everything after the
header.
"""

from __future__ import annotations

import numpy as np

from ..engine.decks import GOLDEN, mix64
from ..engine.rules import (
    CALL,
    FOLD,
    RAISE,
    S_ACTIONS,
    S_ACTOR,
    S_MAX_SPENT,
    S_ROUND,
    S_ROUND_ACTIONS,
    S_SPENT0,
    STACK,
    STATE_SIZE,
    apply_legal,
    new_hand,
    pot,
    raise_range,
    to_call,
)
from ..infra.exp import exp, exp_into
from ..infra.jit import kernel

# ---- action alphabet -------------------------------------------------------------------------------
CODE_F, CODE_C = 0, 1
CODE_B0, CODE_B6 = 2, 8
N_CODES = 9
CODE_NAMES = ("F", "C", "B0", "B1", "B2", "B3", "B4", "B5", "B6")
BUCKET_EDGES = (0.375, 0.75, 1.25, 1.75, 3.0)  # of s = raise increment / pot after calling
ALLIN_LEFT = 0.05  # a raise leaving less than this fraction of the stack behind counts as all-in (B6)

# Candidate actions of the player, in increasing commitment: fold, check/call, 0.5/1/1.5/2 pot, all-in.
N_CANDIDATES = 7
CANDIDATE_NAMES = ("fold", "call", "raise 0.5 pot", "raise 1 pot", "raise 1.5 pot", "raise 2 pot", "all-in")
TIE_CHIPS = 1.0  # utilities within a chip are a tie, won by the smaller commitment

# ---- estimator inputs ------------------------------------------------------------------------------
# Inputs fixed for the decision come first (their product with W is shared by the candidates).
N_DEC = 8  # street one-hot (4), pot / (2 stacks), own stack left / stack, to call / stack, pot odds
OFRE_INPUTS = N_DEC + 7  # + added, size class, all-in, node fold rate, node confidence, street fold rate, conf.
SWRE_INPUTS = N_DEC + 1 + 10  # + hand strength | added, size, all-in, node sd HS, sd win, sd conf., sd freq., street x3
OFRE_DEC, SWRE_DEC = N_DEC, N_DEC + 1
CONF_PRIOR = 10.0  # confidence of n observations is n / (n + CONF_PRIOR)
# Standard deviation of the hand strength's change from one street to the next (preflop to flop, flop to turn,
# turn to river), over random deals: the spread of the win rate a call's option is valued at
# (``call_option_utility``; ``tests/test_ashe.py`` measures it).
OPTION_SPREAD = (0.174, 0.137, 0.177)
# Anchored estimators (``anchored``) take their anchors within [ANCHOR_EPS, 1 - ANCHOR_EPS], so that a network
# output of finite size can move any anchor either way.
ANCHOR_EPS = 0.01

# ---- params header ---------------------------------------------------------------------------------
(P_HIDDEN, P_CAPACITY, P_LSTM_RESET, P_CALLING_RANGE, P_EXPLORE, P_READ_RAISES, P_READ_RERAISES, P_LOOKAHEAD,
 P_READ_AGGRESSION, P_MARK_RERAISES, P_CALL_OPTION, P_ANCHORED, P_OPTION_RANGE, P_RAISING_RANGE,
 P_OPTION_RERAISE) = range(15)
HEADER = 15
RESET_HAND, RESET_HALF = 0, 1  # when the LSTM state returns to zero


@kernel
def block_size(n_inputs, hidden):
    """Weights of one estimator: W, R, peepholes, biases, output weights and output bias."""
    return 4 * hidden * n_inputs + 4 * hidden * hidden + 3 * hidden + 4 * hidden + hidden + 1


def genome_size(hidden: int) -> int:
    """Length of the genome (OFRE block then SWRE block)."""
    return block_size(OFRE_INPUTS, hidden) + block_size(SWRE_INPUTS, hidden)


# ---- memory layouts (per bank) ---------------------------------------------------------------------
# imem: [n_nodes, overflow, decisions, lstm_steps, ...] | scratch state | street aggregates
#       | opponent-raise showdowns per street | the opponent's answers to re-raises per street
#       | the opponent's actions right after the player's check or call, per street
#       | the opponent's actions per street, then its raises
#       | the opponent's actions per street at which a raise was legal, then its raises | nodes
I_NNODES, I_OVERFLOW, I_DECISIONS, I_STEPS = 0, 1, 2, 3
I_STATE = 8
I_CAND_TO = I_STATE + STATE_SIZE  # raise-to of each candidate (0 for fold/call, -1 if absent)
I_AGG = I_CAND_TO + N_CANDIDATES  # [stat, street, code] with stats (visits, opp_acts, opp_fold, sd_n)
AGG_VISITS, AGG_OPP_ACTS, AGG_OPP_FOLD, AGG_SD_N = range(4)
I_RAGG = I_AGG + 4 * 4 * N_CODES  # per street: showdowns of hands in which the opponent raised on that street
I_RERAISE = I_RAGG + 4  # per street: the opponent's answers to the player's re-raises (answers, then folds)
I_AFTER = I_RERAISE + 8  # per street: the opponent's actions right after the player's check or call, then its bets
I_OPP_STREET = I_AFTER + 8  # per street: all of the opponent's actions, then its raises
I_OPP_RAISABLE = I_OPP_STREET + 8  # per street: the opponent's actions where it could raise, then its raises
I_NODES = I_OPP_RAISABLE + 8
# Node record: child[9], visits, opp_acts, opp_fold, opp_call, opp_raise, sd_n (16 words with padding).
N_VISITS, N_OPP_ACTS, N_OPP_FOLD, N_OPP_CALL, N_OPP_RAISE, N_SD_N = range(N_CODES, N_CODES + 6)
NODE_WORDS = 16
# fmem: street aggregates (sd_opp_hs, sd_win) | opponent-raise aggregates (the same per street)
#       | per street: the sizes (fractions of the pot) of the opponent's bets counted in I_AFTER | trace
#       | LSTM state | candidate states | pre-activations | inputs | LSTM scratch
#       | OFRE, SWRE weights transposed (filled by ashe_reset) | nodes
F_AGG = 0
F_RAGG = F_AGG + 2 * 4 * N_CODES
F_AFTER = F_RAGG + 2 * 4
F_TRACE = F_AFTER + 4  # last decision: (f_hat, w_hat, utility) per candidate, NaN if absent
F_LSTM = F_TRACE + 3 * N_CANDIDATES
ROOTS = 2  # node 0: the player sits at position 0 (big blind); node 1: position 1 (button)


def memory_sizes(hidden: int, capacity: int) -> tuple[int, int]:
    """``(n_imem, n_fmem)`` words per bank for a player with ``hidden`` cells and ``capacity`` PRT nodes."""
    return I_NODES + NODE_WORDS * capacity, _f_nodes(hidden) + 2 * capacity


@kernel
def _f_wt(hidden):
    """Start of the transposed weights in fmem (OFRE's, then SWRE's)."""
    return F_LSTM + 4 * hidden + N_CANDIDATES * 4 * hidden + 8 * hidden + 2 * 32 + 10 * hidden


def _f_nodes(hidden):
    return _f_wt(hidden) + 4 * hidden * (OFRE_INPUTS + hidden) + 4 * hidden * (SWRE_INPUTS + hidden)


# ---- action codes ----------------------------------------------------------------------------------
@kernel
def action_code(st, action, amount):
    """PRT edge code of ``action`` (raise to ``amount``) by the player to act in state ``st``."""
    if action == FOLD:
        return CODE_F
    if action != RAISE:
        return CODE_C
    if STACK - amount < ALLIN_LEFT * STACK:
        return CODE_B6
    x = to_call(st, st[S_ACTOR])
    s = (amount - st[S_MAX_SPENT]) / (pot(st) + x)
    code = CODE_B0
    for edge in BUCKET_EDGES:
        code += s >= edge
    return code


@kernel
def candidate_raises(st, pos, lo, hi, out):
    """Raise-to of each candidate into ``out[7]``: 0 for fold and call, -1 where a candidate is absent.

    Fold is absent when checking is free. Pot raises below the minimum are bumped to it; a raise
    reaching the stack is the all-in; raises equal to a smaller candidate are dropped.
    """
    x = to_call(st, pos)
    out[0] = 0 if x > 0 else -1
    out[1] = 0
    unit = pot(st) + x
    prev = -1
    for k in range(4):
        target = st[S_MAX_SPENT] + ((k + 1) * unit + 1) // 2
        target = max(target, lo)
        ok = (lo >= 0) & (target < hi) & (target != prev)
        out[2 + k] = target if ok else -1
        prev = target if ok else prev
    out[6] = hi if lo >= 0 else -1


# ---- LSTM ------------------------------------------------------------------------------------------
@kernel
def sigmoid(v):
    """The logistic function through ``exp`` (``math.exp`` bit for bit)."""
    return 1.0 / (1.0 + exp(-v))


@kernel
def _tanh(v):
    """tanh through one ``exp`` (three times faster than libm's tanh here; absolute error ~1e-16)."""
    return 1.0 - 2.0 / (exp(2.0 * v) + 1.0)


@kernel
def transpose_weights(params, off, n_in, hidden, wt):
    """Copy the estimator's ``R`` and ``W`` column by column into ``wt`` (``4 * hidden * (hidden + n_in)``):
    ``wt[m * 4H + row] = R[row, m]``, then ``wt[(hidden + k) * 4H + row] = W[row, k]`` (``row`` = gate * H + cell).

    With one input's weights for all gates and cells contiguous, the pre-activation sums run over rows
    in the inner loop, which vectorises while each sum keeps its order of additions.
    """
    rows = 4 * hidden
    r = off + rows * n_in
    for row in range(rows):
        for m in range(hidden):
            wt[m * rows + row] = params[r + row * hidden + m]
        for k in range(n_in):
            wt[(hidden + k) * rows + row] = params[off + row * n_in + k]


@kernel
def _add_columns(acc, wt, col, rows, v):
    """``acc[j] += wt[(col + i) * rows + j] * v[i]`` for each ``i`` in order, over all rows ``j``: four
    columns a pass (the loop over rows vectorises; each ``acc[j]`` gets its terms in order)."""
    n = v.shape[0]
    i = 0
    while i + 4 <= n:
        v0, v1, v2, v3 = v[i], v[i + 1], v[i + 2], v[i + 3]
        w0 = wt[(col + i) * rows:(col + i + 1) * rows]
        w1 = wt[(col + i + 1) * rows:(col + i + 2) * rows]
        w2 = wt[(col + i + 2) * rows:(col + i + 3) * rows]
        w3 = wt[(col + i + 3) * rows:(col + i + 4) * rows]
        for j in range(rows):
            t = acc[j]
            t += w0[j] * v0
            t += w1[j] * v1
            t += w2[j] * v2
            t += w3[j] * v3
            acc[j] = t
        i += 4
    while i < n:
        vi = v[i]
        w0 = wt[(col + i) * rows:(col + i + 1) * rows]
        for j in range(rows):
            acc[j] += w0[j] * vi
        i += 1


@kernel
def lstm_pre(params, off, wt, n_in, n_dec, hidden, x, h, pre):
    """Gate pre-activations that do not depend on the candidate: ``b + R h + W[:, :n_dec] x[:n_dec]``.

    ``wt`` is the estimator's ``transpose_weights``. Each sum adds, in order, the bias, the ``R`` terms
    and the ``W`` terms; the rows are summed side by side (vectorised).
    """
    rows = 4 * hidden
    b = off + rows * n_in + rows * hidden + 3 * hidden
    for j in range(rows):
        pre[j] = params[b + j]
    _add_columns(pre, wt, 0, rows, h[:hidden])
    _add_columns(pre, wt, hidden, rows, x[:n_dec])


@kernel
def lstm_finish(params, off, wt, n_in, n_dec, hidden, x, c, pre, h_out, c_out, work):
    """Add the candidate inputs ``x[n_dec:]`` and complete one peephole-LSTM step; return sigmoid(w.y + b).

    Each stage runs over all cells before the next (``work``: ``10 * hidden`` scratch), so that the
    sums over rows and the exponentials of a stage are independent: same operations as cell by cell,
    same results.
    """
    rows = 4 * hidden
    p = off + rows * n_in + rows * hidden
    wo = p + 3 * hidden + rows
    a = work[6 * hidden:10 * hidden]
    for j in range(rows):
        a[j] = pre[j]
    _add_columns(a, wt, hidden + n_dec, rows, x[n_dec:n_in])
    arg = work[:3 * hidden]
    e = work[3 * hidden:6 * hidden]
    for u in range(hidden):
        arg[u] = 2.0 * a[u]  # z = tanh(a0)
        arg[hidden + u] = -(a[hidden + u] + params[p + u] * c[u])  # i = sigmoid(...)
        arg[2 * hidden + u] = -(a[2 * hidden + u] + params[p + hidden + u] * c[u])  # f
    exp_into(arg, e)
    for u in range(hidden):
        z = 1.0 - 2.0 / (e[u] + 1.0)
        i = 1.0 / (1.0 + e[hidden + u])
        f = 1.0 / (1.0 + e[2 * hidden + u])
        cell = i * z + f * c[u]
        c_out[u] = cell
        arg[u] = -(a[3 * hidden + u] + params[p + 2 * hidden + u] * cell)  # o = sigmoid(...)
        arg[hidden + u] = 2.0 * cell  # tanh(cell)
    exp_into(arg[:2 * hidden], e[:2 * hidden])
    for u in range(hidden):
        h_out[u] = (1.0 / (1.0 + e[u])) * (1.0 - 2.0 / (e[hidden + u] + 1.0))
    out = params[wo + hidden]
    for u in range(hidden):
        out += params[wo + u] * h_out[u]
    return sigmoid(out)


@kernel
def lstm_step(params, off, wt, n_in, hidden, x, h, c, pre, h_out, c_out, work):
    """One full LSTM step of the estimator at ``params[off:]`` (``wt`` its ``transpose_weights``) on input
    ``x`` (used by tests and tools)."""
    lstm_pre(params, off, wt, n_in, n_in, hidden, x, h, pre)
    return lstm_finish(params, off, wt, n_in, n_in, hidden, x, c, pre, h_out, c_out, work)


# ---- PRT -------------------------------------------------------------------------------------------
@kernel
def _node(n):
    return I_NODES + NODE_WORDS * n


@kernel
def _new_node(im, capacity):
    """Index of a fresh zeroed node, or -1 when the tree is full."""
    n = im[I_NNODES]
    if n >= capacity:
        im[I_OVERFLOW] += 1
        return -1
    base = _node(n)
    for j in range(NODE_WORDS):
        im[base + j] = 0
    for j in range(N_CODES):
        im[base + j] = -1
    im[I_NNODES] = n + 1
    return n


@kernel
def prt_clear(im, fm, capacity):
    """Empty tree with its two roots, zero street aggregates, zero LSTM state (a new opponent or half)."""
    im[I_NNODES] = 0
    im[I_OVERFLOW] = 0
    for j in range(I_NODES):
        im[j] = 0
    for j in range(fm.shape[0]):
        fm[j] = 0.0
    for _ in range(ROOTS):
        _new_node(im, capacity)


@kernel
def prt_current(im, pos, hist, n_actions):
    """Node of the hand's betting so far (``hist[:n_actions]``) seen by the player at ``pos``; -1 if unseen."""
    sc = im[I_STATE:I_STATE + STATE_SIZE]
    new_hand(sc)
    node = pos
    for a in range(n_actions):
        code = action_code(sc, hist[a, 2], hist[a, 3])
        node = im[_node(node) + code]
        if node < 0:
            return -1
        apply_legal(sc, hist[a, 2], hist[a, 3])
    return node


@kernel
def _agg(street, code):
    return street * N_CODES + code


@kernel
def prt_update(im, fm, capacity, pos, hist, n_actions, showdown, opp_hs, result):
    """Record a finished hand: visits and the opponent's responses along the path, showdown statistics on
    every node of the path (``opp_hs`` the opponent's river hand strength, ``result`` 1/0.5/0), the
    street aggregates of the player's actions, the opponent's answers to the player's re-raises (a raise
    facing its raise) per street, its actions right after the player's check or call (on the same street
    or, after a call that closed one, the next), and at a showdown the opponent-raise aggregate of each street
    on which the opponent raised, and per street all of the opponent's actions and its raises, and those at
    which it could have raised."""
    sc = im[I_STATE:I_STATE + STATE_SIZE]
    new_hand(sc)
    f_nodes = fm.shape[0] - 2 * capacity
    node = pos
    im[_node(node) + N_VISITS] += 1
    if showdown:
        im[_node(node) + N_SD_N] += 1
        fm[f_nodes + 2 * node] += opp_hs
        fm[f_nodes + 2 * node + 1] += result
    pending = -1  # aggregate cell of the player's last action, awaiting the opponent's response
    pending_re = -1  # street of the player's last action if it re-raised the opponent's raise
    opp_raised = False  # the previous action was the opponent's raise
    raised = 0  # bit s: the opponent raised on street s
    passed = False  # the previous action was the player's check or call
    for a in range(n_actions):
        actor = hist[a, 1]
        action = hist[a, 2]
        code = action_code(sc, action, hist[a, 3])
        street = sc[S_ROUND]
        if passed & (actor != pos):
            im[I_AFTER + street] += 1
            if action == RAISE:
                im[I_AFTER + 4 + street] += 1
                fm[F_AFTER + street] += (hist[a, 3] - sc[S_MAX_SPENT]) / (pot(sc) + to_call(sc, actor))
        passed = (actor == pos) & (action == CALL)
        if actor != pos:
            im[I_OPP_STREET + street] += 1
            im[I_OPP_STREET + 4 + street] += action == RAISE
            if raise_range(sc)[0] >= 0:
                im[I_OPP_RAISABLE + street] += 1
                im[I_OPP_RAISABLE + 4 + street] += action == RAISE
            if action == RAISE:
                raised |= 1 << street
            if node >= 0:
                base = _node(node)
                im[base + N_OPP_ACTS] += 1
                im[base + N_OPP_FOLD] += action == FOLD
                im[base + N_OPP_CALL] += action == CALL
                im[base + N_OPP_RAISE] += action == RAISE
            if pending >= 0:
                im[I_AGG + AGG_OPP_ACTS * 36 + pending] += 1
                im[I_AGG + AGG_OPP_FOLD * 36 + pending] += action == FOLD
                pending = -1
            if pending_re >= 0:
                im[I_RERAISE + pending_re] += 1
                im[I_RERAISE + 4 + pending_re] += action == FOLD
                pending_re = -1
            opp_raised = action == RAISE
        else:
            cell = _agg(street, code)
            pending = cell if action == RAISE else -1
            pending_re = street if (action == RAISE) & opp_raised else -1
            opp_raised = False
            im[I_AGG + AGG_VISITS * 36 + cell] += 1
            if showdown:
                im[I_AGG + AGG_SD_N * 36 + cell] += 1
                fm[F_AGG + cell] += opp_hs
                fm[F_AGG + 36 + cell] += result
        if node >= 0:
            child = im[_node(node) + code]
            if child < 0:
                child = _new_node(im, capacity)
                if child >= 0:
                    im[_node(node) + code] = child
            node = child
        if node >= 0:
            im[_node(node) + N_VISITS] += 1
            if showdown:
                im[_node(node) + N_SD_N] += 1
                fm[f_nodes + 2 * node] += opp_hs
                fm[f_nodes + 2 * node + 1] += result
        apply_legal(sc, action, hist[a, 3])
    if showdown:
        for s in range(4):
            if (raised >> s) & 1:
                im[I_RAGG + s] += 1
                fm[F_RAGG + 2 * s] += opp_hs
                fm[F_RAGG + 2 * s + 1] += result


# ---- decision --------------------------------------------------------------------------------------
@kernel
def candidate_utility(st, pos, raise_to, f_hat, w_hat):
    """One-step expected utility of a candidate, in chips relative to folding now (note §5.4).

    Call: ``w P - (1 - w) x``. Raise by increment ``r``: ``f P + (1 - f) (w (P + r) - (1 - w) (x + r))``.
    Stacks are equal, so the all-in increment never exceeds what the opponent can call.
    """
    p = np.float64(pot(st))
    x = np.float64(to_call(st, pos))
    if raise_to == 0:
        return w_hat * p - (1.0 - w_hat) * x
    r = np.float64(raise_to - st[S_MAX_SPENT])
    return f_hat * p + (1.0 - f_hat) * (w_hat * (p + r) - (1.0 - w_hat) * (x + r))


@kernel
def calling_range_win(f_hat, w_hat, rho):
    """The SWRE estimate ``ŵ`` adjusted for the range that calls a raise (``docs/players.md``).

    If the opponent folds its weakest ``f̂`` of hands and the player beats exactly the weakest ``ŵ``,
    it wins ``max(ŵ - f̂, 0) / (1 - f̂)`` of the hands that call. ``rho`` mixes this with ``ŵ``:
    0 is the one-step rule unchanged, 1 the ordered-range model.
    """
    if rho == 0.0:
        return w_hat
    w_call = (w_hat - f_hat) / (1.0 - f_hat) if f_hat < 1.0 else 0.0
    w_call = min(max(w_call, 0.0), 1.0)
    return (1.0 - rho) * w_hat + rho * w_call


@kernel
def anchor(p, a):
    """The estimate ``p`` (a network's logistic output) read as a correction to the anchor ``a``: the logistic
    function of ``logit(p) + logit(a)``, ``a`` kept within ``ANCHOR_EPS`` of 0 and 1 (``p`` when ``a`` is 1/2)."""
    a = min(max(a, ANCHOR_EPS), 1.0 - ANCHOR_EPS)
    return p * a / (p * a + (1.0 - p) * (1.0 - a))


@kernel
def _shrunk(num, den, prior):
    """``num / den`` shrunk towards ``prior`` with ``CONF_PRIOR`` pseudo-observations."""
    return (num + CONF_PRIOR * prior) / (den + CONF_PRIOR)


@kernel
def _bet_after_pass(im, fm, ns):
    """``(p_bet, size)``: how often the opponent bets on street ``ns`` right after the player's check or call,
    and by what share of the pot after the call (``I_AFTER``), shrunk with ``CONF_PRIOR`` pseudo-observations
    towards a pot-size bet half the time."""
    bets = im[I_AFTER + 4 + ns]
    return _shrunk(bets, im[I_AFTER + ns], 0.5), _shrunk(fm[F_AFTER + ns], bets, 1.0)


@kernel
def _reraise_folds(im, s):
    """How often the opponent folds to the player's re-raises on street ``s`` (``I_RERAISE``), shrunk with
    ``CONF_PRIOR`` pseudo-observations towards its rate on all streets, itself shrunk towards no folds."""
    answers = 0
    folds = 0
    for t in range(4):
        answers += im[I_RERAISE + t]
        folds += im[I_RERAISE + 4 + t]
    return _shrunk(im[I_RERAISE + 4 + s], im[I_RERAISE + s], _shrunk(folds, answers, 0.0))


@kernel
def lookahead_utility(st, pos, im, fm, closes, u_pass):
    """A check or call credited with the folds it sets up (``docs/players.md``, *Looking ahead*).

    The opponent speaks next (after a check that opens a street, on this street; after a call that closes
    one, on the next) and bets (``_bet_after_pass``); the player then raises and wins the pot and that bet
    when it folds, as often as it folded to the player's re-raises there. After a call that closes a
    street the player may also bet the next one and win the pot when the opponent folds, as often as it
    folded to the player's pot-size bets there; speaking first, it bets or checks, whichever is worth
    more. Where no fold comes, the hand is worth the one-step value ``u_pass`` (showdown at today's pot):
    only fold equity is added, never a bigger pot. The fold rates are shrunk with ``CONF_PRIOR``
    pseudo-observations towards priors: folds to re-raises as on all streets; no folds to bets. The result
    is never below ``u_pass``: the later choices are options.
    """
    p = np.float64(pot(st))
    room = np.float64(STACK - st[S_MAX_SPENT])  # what each player has left behind after the call
    if room <= 0.0:  # all-in: nothing follows
        return u_pass
    ns = st[S_ROUND] + 1 if closes else st[S_ROUND]  # the street on which the opponent speaks next
    p_bet, size = _bet_after_pass(im, fm, ns)
    b_o = min(size * (p + to_call(st, pos)), room)
    f_re = _reraise_folds(im, ns)
    won_bet = f_re * (p + b_o) + (1.0 - f_re) * u_pass if b_o < room else u_pass
    u = p_bet * won_bet + (1.0 - p_bet) * u_pass
    if closes:
        ag = _agg(ns, CODE_B0 + 2)  # a pot-size bet on the next street
        f_bet = _shrunk(im[I_AGG + AGG_OPP_FOLD * 36 + ag], im[I_AGG + AGG_OPP_ACTS * 36 + ag], 0.0)
        bet = f_bet * p + (1.0 - f_bet) * u_pass
        if pos == 0:  # first to speak after the flop (reverse blinds): bet, or check into the above
            u = max(u, bet)
        else:
            u = p_bet * won_bet + (1.0 - p_bet) * max(u_pass, bet)
    return max(u_pass, u)


@kernel
def _allin_value(f_all, w, p, x, room):
    """An all-in into pot ``p`` (any bet the player faces included) of ``x`` to call and the ``room`` left behind
    after it, from now: the pot when the opponent folds (``f_all``), else a showdown for the stacks against the
    hands that call, its strongest (``calling_range_win`` with 1)."""
    w_call = calling_range_win(f_all, w, 1.0)
    return f_all * p + (1.0 - f_all) * (w_call * (p + room) - (1.0 - w_call) * (x + room))


@kernel
def _reraise_value(f_re, w, p, x, room):
    """A pot-size re-raise into pot ``p`` (the opponent's bet included) of ``x`` to call, ``room`` left behind after
    the call, from now: the pot when the opponent folds (``f_re``), else a showdown of the raised pot at win rate
    ``w``; minus infinity where the raise would be an all-in (valued as one, ``_allin_value``)."""
    r = p + x  # the pot once the player has called
    if (f_re < 0.0) | (r >= room):
        return -np.inf
    return f_re * p + (1.0 - f_re) * (w * (p + r) - (1.0 - w) * (x + r))


@kernel
def split_range(w, p_bet, rho):
    """``(w_bet, w_check)``: the win rate ``w`` against the hands with which the opponent bets (probability
    ``p_bet``) and those with which it checks, if it bets its strongest ``p_bet`` of hands and the player beats
    exactly the weakest ``w`` (``docs/players.md``, *The option's ranges*); ``rho`` mixes this with ``w`` for
    both, as the calling range does. Either way ``p_bet w_bet + (1 - p_bet) w_check = w``."""
    if (rho == 0.0) | (p_bet <= 0.0) | (p_bet >= 1.0):
        return w, w
    w_bet = max(w - (1.0 - p_bet), 0.0) / p_bet
    w_check = min(w, 1.0 - p_bet) / (1.0 - p_bet)
    return (1.0 - rho) * w + rho * w_bet, (1.0 - rho) * w + rho * w_check


@kernel
def _closing_call_value(pos, street, w_hat, f_all, p, x, room, p_bet, size, rho, f_re):
    """What a call of ``x`` into pot ``p`` that closes ``street`` is worth from now, ``room`` chips left
    behind after it: a showdown on the river; before it, the choice the call keeps for the next street, on
    which the opponent bets with probability ``p_bet``, ``size`` pots (``call_option_utility``); ``rho`` is the
    share of the ordered-range reading of that bet or check (``split_range``); ``f_re`` (negative: none) the
    opponent's folds to a pot-size re-raise of that bet, a further answer to it (``option_reraise``)."""
    if (street >= 3) | (room <= 0.0):
        return w_hat * p - (1.0 - w_hat) * x
    b_o = min(size * (p + x), room)
    d = min(OPTION_SPREAD[street], w_hat, 1.0 - w_hat)
    v = 0.0
    for side in (-1.0, 1.0):
        w = w_hat + side * d
        w_bet, w_check = split_range(w, p_bet, rho)
        show = w_check * p - (1.0 - w_check) * x
        faced = max(-x, w_bet * (p + b_o) - (1.0 - w_bet) * (x + b_o))
        if b_o < room:
            faced = max(faced, _allin_value(f_all, w_bet, p + b_o, x + b_o, room - b_o),
                        _reraise_value(f_re, w_bet, p + b_o, x + b_o, room - b_o))
        if pos == 0:  # first to speak after the flop (reverse blinds): all-in, or check into the opponent's turn
            v += 0.5 * max(_allin_value(f_all, w, p, x, room), p_bet * faced + (1.0 - p_bet) * show)
        else:
            v += 0.5 * (p_bet * faced + (1.0 - p_bet) * max(show, _allin_value(f_all, w_check, p, x, room)))
    return v


@kernel
def call_option_utility(st, pos, im, fm, closes, w_hat, f_all, rho, reraise):
    """A check or call valued with the choices it keeps (``docs/players.md``, *The call's option*).

    ``f_all`` is how often the opponent folds to an all-in (the all-in candidate's OFRE estimate). A call that
    closes a street before the river: the next card moves the win rate to ``w_hat ± d`` (each half the time;
    ``d`` is the street's ``OPTION_SPREAD``, at most ``w_hat`` and ``1 - w_hat``); then the opponent bets (as
    often and as much as ``_bet_after_pass`` says) and the player folds, calls to a showdown or moves all-in,
    or it checks and the player checks to a showdown or moves all-in; speaking first after the flop (position 0),
    the player may move all-in before the opponent speaks. A check or call after which the opponent speaks on
    the same street: it bets, and the player folds, moves all-in or calls (the closing call above), or it checks
    and the street closes as after the player's own closing check. Chips are counted from now, as in the
    one-step rule. ``rho`` (setting ``option_range``) reads each bet or check of the opponent as coming from
    the stronger or the weaker part of its range (``split_range``); 0 keeps the win rate as it is. With
    ``reraise`` (setting ``option_reraise``) the player may also answer each of those bets with a pot-size
    re-raise, which the opponent folds to as often as it has folded to the player's re-raises on that street
    (``_reraise_folds``).
    """
    p = np.float64(pot(st))
    x = np.float64(to_call(st, pos))
    room = np.float64(STACK - st[S_MAX_SPENT])  # what each player has left behind after the call
    street = st[S_ROUND]
    next_bet, next_size = _bet_after_pass(im, fm, street + 1) if street < 3 else (0.0, 0.0)
    next_re = _reraise_folds(im, street + 1) if reraise & (street < 3) else -1.0
    if closes | (room <= 0.0):
        return _closing_call_value(pos, street, w_hat, f_all, p, x, room, next_bet, next_size, rho, next_re)
    p_bet, size = _bet_after_pass(im, fm, street)
    p2 = p + x  # the pot after the check or call
    b_o = min(size * p2, room)
    w_bet, w_check = split_range(w_hat, p_bet, rho)
    faced = max(0.0, _closing_call_value(pos, street, w_bet, f_all, p2 + b_o, b_o, room - b_o, next_bet,
                                         next_size, rho, next_re))
    if b_o < room:
        f_re = _reraise_folds(im, street) if reraise else -1.0
        faced = max(faced, _allin_value(f_all, w_bet, p2 + b_o, b_o, room - b_o),
                    _reraise_value(f_re, w_bet, p2 + b_o, b_o, room - b_o))
    passed = _closing_call_value(pos, street, w_check, f_all, p2, 0.0, room, next_bet, next_size, rho, next_re)
    return p_bet * faced + (1.0 - p_bet) * passed - x


@kernel
def _decision_inputs(st, pos, x):
    """The inputs shared by both estimators and all candidates (all in [0, 1])."""
    rnd = st[S_ROUND]
    for j in range(4):
        x[j] = 1.0 if j == rnd else 0.0
    p = pot(st)
    call = to_call(st, pos)
    x[4] = p / (2.0 * STACK)
    x[5] = (STACK - st[S_SPENT0 + pos]) / STACK
    x[6] = call / STACK
    x[7] = call / (call + p)


@kernel
def _rate(num, den, default):
    return num / den if den > 0 else default


@kernel
def explore_draw(decisions, bank, strength):
    """A uniform number in [0, 1) for the exploration choice, a function of the bank's decision count, the bank
    and the hand strength (so a player stays a deterministic function of the cards, the betting and its memory)."""
    z = mix64(np.uint64(decisions) * GOLDEN ^ np.uint64(bank) ^ np.uint64(np.int64(strength * 4503599627370496.0)))
    return np.float64(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def ashe_act(params, imem, fmem, bank, pos, st, lo, hi, hist, strength):
    """Choose ``(action, raise_to)`` by one-step expected utility from the OFRE and SWRE estimates."""
    hidden = np.int64(params[P_HIDDEN])
    im = imem[bank]
    fm = fmem[bank]
    capacity = np.int64(params[P_CAPACITY])
    rho = params[P_CALLING_RANGE]
    f_nodes = fm.shape[0] - 2 * capacity
    off_o = HEADER
    off_s = HEADER + block_size(OFRE_INPUTS, hidden)
    st_h = F_LSTM  # committed (h, c) of OFRE then SWRE
    cand = F_LSTM + 4 * hidden  # per candidate: OFRE h, c, SWRE h, c
    pre_o = cand + N_CANDIDATES * 4 * hidden
    pre_s = pre_o + 4 * hidden
    xo = pre_s + 4 * hidden
    xs = xo + 32
    work = fm[xs + 32:xs + 32 + 10 * hidden]  # lstm_finish's scratch
    wt_o = _f_wt(hidden)
    wt_s = wt_o + 4 * hidden * (OFRE_INPUTS + hidden)
    wto = fm[wt_o:wt_s]  # the estimators' weights transposed (ashe_reset)
    wts = fm[wt_s:wt_s + 4 * hidden * (SWRE_INPUTS + hidden)]
    pre_ov = fm[pre_o:pre_o + 4 * hidden]
    pre_sv = fm[pre_s:pre_s + 4 * hidden]
    h_o = fm[st_h:st_h + hidden]
    c_o = fm[st_h + hidden:st_h + 2 * hidden]
    h_s = fm[st_h + 2 * hidden:st_h + 3 * hidden]
    c_s = fm[st_h + 3 * hidden:st_h + 4 * hidden]
    x_o = fm[xo:xo + OFRE_INPUTS]
    x_call = fm[xo + 16:xo + 16 + OFRE_INPUTS]  # the call's OFRE inputs (only x_call[N_DEC:] is used)
    x_s = fm[xs:xs + SWRE_INPUTS]
    _decision_inputs(st, pos, x_o)
    _decision_inputs(st, pos, x_s)
    x_s[N_DEC] = strength
    if lo >= 0:  # with no raise candidate, OFRE is needed only if the call is chosen (done at the commit)
        lstm_pre(params, off_o, wto, OFRE_INPUTS, OFRE_DEC, hidden, x_o, h_o, pre_ov)
    lstm_pre(params, off_s, wts, SWRE_INPUTS, SWRE_DEC, hidden, x_s, h_s, pre_sv)

    node = prt_current(im, pos, hist, st[S_ACTIONS])
    street = st[S_ROUND]
    to = im[I_CAND_TO:I_CAND_TO + N_CANDIDATES]
    candidate_raises(st, pos, lo, hi, to)
    im[I_DECISIONS] += 1
    spent = st[S_SPENT0 + pos]
    n_hist = st[S_ACTIONS]
    # Facing a raise, the call reads the street's opponent-raise showdowns (read_raises) and a raise the
    # opponent's answers to re-raises (read_reraises) instead of the street aggregates of the player's own line.
    facing = n_hist > 0
    if facing:
        last = n_hist - 1
        facing = (hist[last, 1] != pos) & (hist[last, 2] == RAISE)
    read = facing & (params[P_READ_RAISES] > 0.0)
    read_re = facing & (params[P_READ_RERAISES] > 0.0)
    # read_aggression: SWRE's all-in flag (implied by the size class and the chips added) becomes the
    # opponent's raise share on this street, over all hands of the bank.
    aggression = params[P_READ_AGGRESSION] > 0.0
    # mark_reraises: that flag becomes the candidate's size class if it raises the opponent's raise, else 0.
    marking = params[P_MARK_RERAISES] > 0.0
    raise_share = _shrunk(im[I_OPP_STREET + 4 + street], im[I_OPP_STREET + street], 0.5)
    # Looking ahead: a call that closes a street before the river, or a check that opens one.
    look_close = facing & (street < 3)
    look = (params[P_LOOKAHEAD] > 0.0) & (look_close | ((street > 0) & (st[S_ROUND_ACTIONS] == 0)))
    option = params[P_CALL_OPTION] > 0.0
    anchored = params[P_ANCHORED] > 0.0
    # SWRE's anchor: the win rate against a random hand or, facing a raise with raising_range, against the hands
    # the opponent raises with, if it raises with its strongest hands as often as it has raised on this street
    # where it could.
    w_anchor = strength
    if anchored & facing & (params[P_RAISING_RANGE] > 0.0):
        raises = _shrunk(im[I_OPP_RAISABLE + 4 + street], im[I_OPP_RAISABLE + street], 0.5)
        w_anchor = split_range(strength, raises, params[P_RAISING_RANGE])[0]
    closes = facing | (st[S_ROUND_ACTIONS] > 0)  # the check or call ends the street's betting
    for k in range(N_CANDIDATES):
        fm[F_TRACE + 3 * k] = np.nan
        fm[F_TRACE + 3 * k + 1] = np.nan
        fm[F_TRACE + 3 * k + 2] = np.nan
        if to[k] < 0:
            continue
        if k == 0:  # fold: utility 0 by definition, no estimate needed
            fm[F_TRACE + 2] = 0.0
            continue
        action = CALL if k == 1 else RAISE
        code = action_code(st, action, to[k])
        child = im[_node(node) + code] if node >= 0 else -1
        ag = _agg(street, code)
        added = (st[S_MAX_SPENT] if k == 1 else to[k]) - spent
        allin = 1.0 if to[k] >= STACK else 0.0
        size = allin if (k == 1) | (k == 6) else (k - 1) / 4.0
        # OFRE: the opponent's folds at the node the candidate leads to, and on this street overall.
        n_acts = im[_node(child) + N_OPP_ACTS] if child >= 0 else 0
        n_fold = im[_node(child) + N_OPP_FOLD] if child >= 0 else 0
        a_acts = im[I_AGG + AGG_OPP_ACTS * 36 + ag]
        a_fold = im[I_AGG + AGG_OPP_FOLD * 36 + ag]
        if read_re & (k >= 2):
            a_acts = im[I_RERAISE + street]
            a_fold = im[I_RERAISE + 4 + street]
        xk = x_call if k == 1 else x_o
        xk[N_DEC] = added / STACK
        xk[N_DEC + 1] = size
        xk[N_DEC + 2] = allin
        xk[N_DEC + 3] = _rate(n_fold, n_acts, 0.5)
        xk[N_DEC + 4] = n_acts / (n_acts + CONF_PRIOR)
        xk[N_DEC + 5] = _rate(a_fold, a_acts, 0.5)
        xk[N_DEC + 6] = a_acts / (a_acts + CONF_PRIOR)
        # SWRE: showdowns through that node and on this street overall.
        visits = im[_node(child) + N_VISITS] if child >= 0 else 0
        sd_n = im[_node(child) + N_SD_N] if child >= 0 else 0
        sd_hs = fm[f_nodes + 2 * child] if child >= 0 else 0.0
        sd_win = fm[f_nodes + 2 * child + 1] if child >= 0 else 0.0
        a_sd = im[I_AGG + AGG_SD_N * 36 + ag]
        a_hs = fm[F_AGG + ag]
        a_win = fm[F_AGG + 36 + ag]
        if read & (k == 1):
            a_sd = im[I_RAGG + street]
            a_hs = fm[F_RAGG + 2 * street]
            a_win = fm[F_RAGG + 2 * street + 1]
        j = SWRE_DEC
        x_s[j] = added / STACK
        x_s[j + 1] = size
        if aggression:
            x_s[j + 2] = raise_share
        elif marking:
            x_s[j + 2] = size if facing & (k >= 2) else 0.0
        else:
            x_s[j + 2] = allin
        x_s[j + 3] = _rate(sd_hs, sd_n, 0.5)
        x_s[j + 4] = _rate(sd_win, sd_n, 0.5)
        x_s[j + 5] = sd_n / (sd_n + CONF_PRIOR)
        x_s[j + 6] = _rate(sd_n, visits, 0.0)
        x_s[j + 7] = _rate(a_hs, a_sd, 0.5)
        x_s[j + 8] = _rate(a_win, a_sd, 0.5)
        x_s[j + 9] = a_sd / (a_sd + CONF_PRIOR)
        slot = cand + k * 4 * hidden
        f_hat = 0.0  # a check or call cannot make the opponent fold
        if k >= 2:  # the call's OFRE output is unused: its state step is deferred until the call is chosen
            f_hat = lstm_finish(params, off_o, wto, OFRE_INPUTS, OFRE_DEC, hidden, x_o, c_o, pre_ov,
                                fm[slot:slot + hidden], fm[slot + hidden:slot + 2 * hidden], work)
            if anchored:  # the node's fold rate, shrunk towards the street's, shrunk towards 1/2
                f_hat = anchor(f_hat, _shrunk(n_fold, n_acts, _shrunk(a_fold, a_acts, 0.5)))
        w_hat = lstm_finish(params, off_s, wts, SWRE_INPUTS, SWRE_DEC, hidden, x_s, c_s, pre_sv,
                            fm[slot + 2 * hidden:slot + 3 * hidden], fm[slot + 3 * hidden:slot + 4 * hidden], work)
        if anchored:
            w_hat = anchor(w_hat, w_anchor)
        im[I_STEPS] += 2  # two estimator steps per candidate, counting the call's deferred OFRE step
        w_hat = calling_range_win(f_hat, w_hat, rho)
        u = candidate_utility(st, pos, to[k], f_hat, w_hat)
        if look & (k == 1):
            u = lookahead_utility(st, pos, im, fm, look_close, u)
        fm[F_TRACE + 3 * k] = f_hat
        fm[F_TRACE + 3 * k + 1] = w_hat
        fm[F_TRACE + 3 * k + 2] = u
    if option:  # the call's option uses the all-in's fold estimate, known only now
        f_all = fm[F_TRACE + 3 * (N_CANDIDATES - 1)] if to[N_CANDIDATES - 1] >= 0 else 0.0
        fm[F_TRACE + 5] = call_option_utility(st, pos, im, fm, closes, fm[F_TRACE + 4], f_all,
                                              params[P_OPTION_RANGE], params[P_OPTION_RERAISE] > 0.0)
    best = -1  # the highest utility; a candidate must beat every smaller one by TIE_CHIPS
    best_u = 0.0
    for k in range(N_CANDIDATES):
        u = fm[F_TRACE + 3 * k + 2]
        if (to[k] >= 0) & ((best < 0) | (u > best_u + TIE_CHIPS)):
            best = k
            best_u = u
    if (best == 0) & (params[P_EXPLORE] > 0.0):
        # Exploration: call where the estimates say fold, now and then, so that the statistics of the nodes the
        # player has stopped visiting keep coming (a fold would freeze them: docs/players.md, *Exploration*).
        if explore_draw(im[I_DECISIONS], bank, strength) < params[P_EXPLORE]:
            best = 1
    if best == 1:  # the call's deferred OFRE step (same inputs, state and pre-activations as in the loop)
        if lo < 0:
            lstm_pre(params, off_o, wto, OFRE_INPUTS, OFRE_DEC, hidden, x_o, h_o, pre_ov)
        slot = cand + 4 * hidden
        lstm_finish(params, off_o, wto, OFRE_INPUTS, OFRE_DEC, hidden, x_call, c_o, pre_ov,
                    fm[slot:slot + hidden], fm[slot + hidden:slot + 2 * hidden], work)
    if best >= 1:  # commit the chosen candidate's LSTM state (after a fold the hand is over)
        slot = cand + best * 4 * hidden
        for j in range(4 * hidden):
            fm[st_h + j] = fm[slot + j]
    if best == 0:
        return FOLD, 0
    if best == 1:
        return CALL, 0
    return RAISE, to[best]


@kernel
def ashe_reset(params, im, fm):
    """A new opponent or duplicate half: empty PRT, zero aggregates and LSTM state; the weights transposed."""
    prt_clear(im, fm, np.int64(params[P_CAPACITY]))
    hidden = np.int64(params[P_HIDDEN])
    wt_o = _f_wt(hidden)
    wt_s = wt_o + 4 * hidden * (OFRE_INPUTS + hidden)
    transpose_weights(params, HEADER, OFRE_INPUTS, hidden, fm[wt_o:wt_s])
    transpose_weights(params, HEADER + block_size(OFRE_INPUTS, hidden), SWRE_INPUTS, hidden,
                      fm[wt_s:wt_s + 4 * hidden * (SWRE_INPUTS + hidden)])


@kernel
def ashe_observe(params, imem, fmem, bank, pos, st, hist, payoff, opp_strength):
    """End of a hand: update the PRT and, unless the LSTM state is kept for the half, zero it."""
    im = imem[bank]
    fm = fmem[bank]
    hidden = np.int64(params[P_HIDDEN])
    capacity = np.int64(params[P_CAPACITY])
    showdown = opp_strength >= 0.0
    result = 1.0 if payoff > 0 else (0.5 if payoff == 0 else 0.0)
    prt_update(im, fm, capacity, pos, hist, st[S_ACTIONS], showdown, opp_strength, result)
    if np.int64(params[P_LSTM_RESET]) == RESET_HAND:
        for j in range(F_LSTM, F_LSTM + 4 * hidden):
            fm[j] = 0.0


# ---- Python views ----------------------------------------------------------------------------------
def action_counts(imem: np.ndarray) -> np.ndarray:
    """The player's own decisions recorded in ASHE memory banks ``imem`` (``(banks, words)``, e.g. a match's
    ``Player.new_memory()[0]`` after play): counts of folds, checks/calls and raises (any size), from the
    street aggregates that the PRT update keeps (hands that ended are counted)."""
    lo = I_AGG + AGG_VISITS * 4 * N_CODES
    cells = np.asarray(imem)[..., lo:lo + 4 * N_CODES].reshape(-1, 4, N_CODES).sum(axis=(0, 1))
    return np.array([cells[CODE_F], cells[CODE_C], cells[CODE_B0:].sum()], np.int64)



def explain_decision(player, state, strength: float, memory=None, bank: int = 0) -> dict:
    """What ``player`` (an ASHE ``Player``) does in ``state`` (a ``HandState``) holding ``strength``.

    Returns the chosen ``(action, raise_to)`` and, per candidate, its raise-to, the OFRE and SWRE
    estimates and the expected utility. ``memory = (imem, fmem)`` (as from ``Player.new_memory``) lets
    the player use what it has learned; it is copied, not changed. By default the memory is fresh.
    """
    from ..engine.rules import MAX_ACTIONS_PER_HAND

    if memory is None:
        imem, fmem = player.new_memory()
        for b in range(2):
            ashe_reset(player.params, imem[b], fmem[b])
    else:
        imem, fmem = (m.copy() for m in memory)
    st = state.st.copy()
    hist = np.zeros((MAX_ACTIONS_PER_HAND, 4), np.int64)
    for i, row in enumerate(state.actions):
        hist[i] = row
    pos = int(st[S_ACTOR])
    lo, hi = raise_range(st)
    action, amount = ashe_act(player.params, imem, fmem, bank, pos, st, lo, hi, hist, float(strength))
    trace = fmem[bank, F_TRACE:F_TRACE + 3 * N_CANDIDATES].reshape(N_CANDIDATES, 3)
    to = imem[bank, I_CAND_TO:I_CAND_TO + N_CANDIDATES]
    candidates = [
        {"name": CANDIDATE_NAMES[k], "raise_to": int(to[k]), "f_hat": float(trace[k, 0]),
         "w_hat": float(trace[k, 1]), "utility": float(trace[k, 2])}
        for k in range(N_CANDIDATES) if to[k] >= 0
    ]
    return {"action": int(action), "raise_to": int(amount), "candidates": candidates}


def prt_nodes(player, imem_bank: np.ndarray, fmem_bank: np.ndarray) -> dict:
    """The PRT of one memory bank as ``{(root, codes...): stats}``, codes as names such as ``"B2"``."""
    capacity = int(player.params[P_CAPACITY])
    f_nodes = fmem_bank.shape[0] - 2 * capacity
    out = {}
    stack = [(r, (r,)) for r in range(ROOTS)]
    while stack:
        n, key = stack.pop()
        base = I_NODES + NODE_WORDS * n
        rec = imem_bank[base:base + NODE_WORDS]
        out[key] = {
            "visits": int(rec[N_VISITS]), "opp_acts": int(rec[N_OPP_ACTS]), "opp_fold": int(rec[N_OPP_FOLD]),
            "opp_call": int(rec[N_OPP_CALL]), "opp_raise": int(rec[N_OPP_RAISE]), "sd_n": int(rec[N_SD_N]),
            "sd_opp_hs": float(fmem_bank[f_nodes + 2 * n]), "sd_win": float(fmem_bank[f_nodes + 2 * n + 1]),
        }
        for code in range(N_CODES):
            if rec[code] >= 0:
                stack.append((int(rec[code]), key + (CODE_NAMES[code],)))
    return out
