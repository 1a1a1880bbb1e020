"""ASHE 1.0's player (Li & Miikkulainen 2017): two LSTM modules, a decision network and Algorithm 1.

At each of its decisions the player feeds one input vector to a **game module** (10 LSTM blocks of 5
cells, state cleared at the end of every hand) and an **opponent module** (one block of 10 cells, state
kept through a memory bank, i.e. an opponent and a duplicate half). A feed-forward **decision network**
(one tanh hidden layer) maps the 60 module outputs to one real number ``o``, and Algorithm 1 commits up to
``o * stack`` more chips: fold (or check) below the call, call below a minimum raise above it, else raise
to the nearest whole big blind (``bots.algorithm1``, as the rule-based bots decide). There is no PRT and no
estimate of fold or win rates: the network is the policy. ``../shared/notes/ashe-player.md`` §2.1-2.2;
``docs/players.md``, *ASHE 1.0's player*.

**Inputs** (all in [0, 1]): the street one-hot (4), the hand strength (win probability against a random
hand), the chips the opponent and the player have put in this hand over the stack, and the pot odds
``x / (x + pot)``.

**params** (float64): ``[hidden, output, raises, genome]`` with ``hidden`` the decision network's hidden units,
``output`` its output unit: ``OUTPUT_LINEAR`` (``o`` is the weighted sum) or ``OUTPUT_LOGISTIC`` (``o`` is the
logistic function of it, in (0, 1) like the rule-based bots' ``o``; the paper says only "a single real output"),
and ``raises``: ``RAISES_BIG_BLINDS`` (Algorithm 1 as in Table 2) or ``RAISES_POT`` (with the paper's later
adjustments for Slumbot, ``bots.algorithm1_pot``). The genome
is the 10 game blocks, the opponent block, then the decision network. A block of ``h`` cells on ``n``
inputs is ``W[4, h, n]``, ``R[4, h, h]``, peepholes ``p[3, h]``, biases ``b[4, h]`` (gates in the order
block input z, input i, forget f, output o; the recurrent weights read the block's own outputs, Greff et
al. 2015's vanilla LSTM); the decision network is ``W1[hidden, 60]``, ``b1[hidden]``, ``w2[hidden]``, ``b2``.
"""

from __future__ import annotations

import math

import numpy as np

from ..engine.rules import CALL, FOLD, S_ROUND, S_SPENT0, STACK, pot, to_call
from ..infra.jit import kernel
from .ashe import sigmoid
from .bots import algorithm1, algorithm1_pot

N_INPUTS = 8  # street one-hot (4), hand strength, opponent's chips in, own chips in, pot odds
GAME_BLOCKS, GAME_CELLS = 10, 5  # the game module: 10 blocks of cell size 5
OPP_CELLS = 10  # the opponent module: one block of cell size 10
N_FEATURES = GAME_BLOCKS * GAME_CELLS + OPP_CELLS  # the decision network's inputs
P_HIDDEN, P_OUTPUT, P_RAISES = 0, 1, 2
HEADER = 3
OUTPUT_LINEAR, OUTPUT_LOGISTIC = 0, 1
RAISES_BIG_BLINDS, RAISES_POT = 0, 1

# imem per bank: the player's decisions (folds, checks/calls, raises) since the bank was reset.
I_FOLDS, I_CALLS, I_RAISES = 0, 1, 2
N_IMEM = 3
# fmem per bank: the modules' outputs y (game, then opponent: the decision network's inputs in order), their
# cells c (game, then opponent), the input vector, then scratch.
F_GAME_Y = 0
F_OPP_Y = F_GAME_Y + GAME_BLOCKS * GAME_CELLS
F_GAME_C = F_OPP_Y + OPP_CELLS
F_OPP_C = F_GAME_C + GAME_BLOCKS * GAME_CELLS
F_X = F_OPP_C + OPP_CELLS
F_PRE = F_X + N_INPUTS  # one block's gate pre-activations (4 * OPP_CELLS at most)
N_FMEM = F_PRE + 4 * OPP_CELLS


@kernel
def block_size(n_inputs, cells):
    """Weights of one LSTM block: W, R, peepholes and biases."""
    return 4 * cells * n_inputs + 4 * cells * cells + 3 * cells + 4 * cells


def genome_size(hidden: int) -> int:
    """Length of the genome: game blocks, opponent block, decision network."""
    return (GAME_BLOCKS * block_size(N_INPUTS, GAME_CELLS) + block_size(N_INPUTS, OPP_CELLS)
            + hidden * N_FEATURES + 2 * hidden + 1)


@kernel
def block_step(params, off, n, h, x, y, c, pre):
    """One step of the LSTM block at ``params[off:]`` (``h`` cells, ``n`` inputs ``x``): updates its outputs
    ``y`` and cells ``c`` in place (``pre``: ``4 h`` scratch)."""
    w = off
    r = w + 4 * h * n
    p = r + 4 * h * h
    b = p + 3 * h
    for j in range(4 * h):
        a = params[b + j]
        for k in range(n):
            a += params[w + j * n + k] * x[k]
        for k in range(h):
            a += params[r + j * h + k] * y[k]
        pre[j] = a
    for u in range(h):
        z = math.tanh(pre[u])
        i = sigmoid(pre[h + u] + params[p + u] * c[u])
        f = sigmoid(pre[2 * h + u] + params[p + h + u] * c[u])
        cell = i * z + f * c[u]
        o = sigmoid(pre[3 * h + u] + params[p + 2 * h + u] * cell)
        c[u] = cell
        y[u] = o * math.tanh(cell)


@kernel
def ashe1_output(params, fm):
    """The decision network's output ``o`` on the modules' current outputs."""
    hidden = np.int64(params[P_HIDDEN])
    off = HEADER + GAME_BLOCKS * block_size(N_INPUTS, GAME_CELLS) + block_size(N_INPUTS, OPP_CELLS)
    b1 = off + hidden * N_FEATURES
    w2 = b1 + hidden
    o = params[w2 + hidden]
    for j in range(hidden):
        a = params[b1 + j]
        row = off + j * N_FEATURES
        for k in range(N_FEATURES):
            a += params[row + k] * fm[F_GAME_Y + k]
        o += params[w2 + j] * math.tanh(a)
    if params[P_OUTPUT] == OUTPUT_LOGISTIC:
        return sigmoid(o)
    return o


@kernel
def ashe1_inputs(st, pos, strength, x):
    """ASHE 1.0's input vector for the player at ``pos`` in state ``st`` holding ``strength``."""
    for k in range(4):
        x[k] = 0.0
    x[st[S_ROUND]] = 1.0
    x[4] = strength
    x[5] = st[S_SPENT0 + 1 - pos] / STACK
    x[6] = st[S_SPENT0 + pos] / STACK
    call = to_call(st, pos)
    x[7] = call / (call + pot(st)) if call > 0 else 0.0


@kernel
def ashe1_act(params, imem, fmem, bank, pos, st, lo, hi, strength):
    """Step both modules on this decision's inputs, then Algorithm 1 with the decision network's ``o``."""
    im = imem[bank]
    fm = fmem[bank]
    x = fm[F_X:F_X + N_INPUTS]
    ashe1_inputs(st, pos, strength, x)
    pre = fm[F_PRE:N_FMEM]
    size = block_size(N_INPUTS, GAME_CELLS)
    for blk in range(GAME_BLOCKS):
        lo_c = blk * GAME_CELLS
        block_step(params, HEADER + blk * size, N_INPUTS, GAME_CELLS, x,
                   fm[F_GAME_Y + lo_c:F_GAME_Y + lo_c + GAME_CELLS], fm[F_GAME_C + lo_c:F_GAME_C + lo_c + GAME_CELLS],
                   pre)
    block_step(params, HEADER + GAME_BLOCKS * size, N_INPUTS, OPP_CELLS, x, fm[F_OPP_Y:F_GAME_C],
               fm[F_OPP_C:F_X], pre)
    o = ashe1_output(params, fm)
    if params[P_RAISES] == RAISES_POT:
        action, amount = algorithm1_pot(st, pos, lo, hi, o)
    else:
        action, amount = algorithm1(st, pos, lo, hi, o)
    if action == FOLD:
        im[I_FOLDS] += 1
    elif action == CALL:
        im[I_CALLS] += 1
    else:
        im[I_RAISES] += 1
    return action, amount


@kernel
def ashe1_observe(fmem, bank):
    """End of a hand: the game module starts the next hand from zero state."""
    fm = fmem[bank]
    for j in range(F_GAME_Y, F_OPP_Y):
        fm[j] = 0.0
    for j in range(F_GAME_C, F_OPP_C):
        fm[j] = 0.0


def action_counts(imem: np.ndarray) -> np.ndarray:
    """The player's decisions recorded in memory banks ``imem`` (``(banks, words)``): folds, checks/calls and
    raises (any size), as ``ashe.action_counts`` counts them."""
    return np.asarray(imem)[..., :N_IMEM].reshape(-1, N_IMEM).sum(axis=0).astype(np.int64)
