"""ASHE speed (issue 3): hands/s of ASHE vs ASHE on one core and on all cores, and where the time goes.

    python scripts/bench_ashe.py --deals 20000

The workload is a round robin of one random population (core paper §7): every pair plays ``--deals``
duplicate deals. The breakdown multiplies counts taken from the played hands (decisions, LSTM steps,
hand-strength evaluations by street, PRT walks and updates) by the cost of each component timed alone.
"""

from __future__ import annotations

import argparse
import os
import time

import multiprocess as mp
import numba
import numpy as np

from pokerduel.engine.decks import deal_decks
from pokerduel.engine.rules import MAX_ACTIONS_PER_HAND, HandState
from pokerduel.play.matches import play_duplicate, reset_memory
from pokerduel.play.populations import new_population
from pokerduel.players import ashe
from pokerduel.players.genomes import ashe_player, handbuilt_genome
from pokerduel.players.hand_strength import DEFAULT_SAMPLES, hand_strength_kernel


def _pair_hands(args):
    pop_seed, i, j, deals = args
    pop = new_population(10, pop_seed)
    r = play_duplicate(pop.player(i), pop.player(j), deals, seed=pop_seed)
    return r.n_hands


def round_robin_rate(pop_seed, deals, workers):
    """Hands per second of a 10-player round robin (45 pairs) on ``workers`` processes."""
    jobs = [(pop_seed, i, j, deals) for i in range(10) for j in range(i + 1, 10)]
    _pair_hands((pop_seed, 0, 1, 10))  # compile / load the cache
    t0 = time.perf_counter()
    if workers == 1:
        hands = sum(map(_pair_hands, jobs))
    else:
        with mp.Pool(workers) as pool:
            pool.map(_pair_hands, jobs[:workers])  # warm every worker
            t0 = time.perf_counter()
            hands = sum(pool.map(_pair_hands, jobs, chunksize=1))
    return hands / (time.perf_counter() - t0)


@numba.njit
def _hs_loop(cards, n_board, samples, n):
    s = 0.0
    for d in range(n):
        c = cards[d % len(cards)]
        s += hand_strength_kernel(c[0], c[1], c[4:9], n_board, samples, np.uint64(d))
    return s


@numba.njit
def _lstm_loop(params, off, wt, n_in, n_dec, hidden, mode, scratch, n):
    """``mode`` 0: the shared part of a step (once per decision), 1: the per-candidate part."""
    s = 0.0
    x = scratch[:n_in]
    h = scratch[32:32 + hidden]
    c = scratch[64:64 + hidden]
    pre = scratch[96:96 + 4 * hidden]
    ho = scratch[160:160 + hidden]
    co = scratch[192:192 + hidden]
    work = scratch[224:224 + 10 * hidden]
    for d in range(n):
        x[0] = (d % 7) / 7.0
        if mode == 0:
            ashe.lstm_pre(params, off, wt, n_in, n_dec, hidden, x, h, pre)
            s += pre[0]
        else:
            s += ashe.lstm_finish(params, off, wt, n_in, n_dec, hidden, x, c, pre, ho, co, work)
    return s


def per_call_ns(fn, *args, n):
    fn(*args, 10)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        fn(*args, n)
        best = min(best, time.perf_counter() - t0)
    return best / n * 1e9


def breakdown(a, b, deals, seed):
    """Counts from a match of ``a`` against ``b`` and each component's cost alone."""
    imem_a, fmem_a = a.new_memory()
    imem_b, fmem_b = b.new_memory()
    reset_memory(a.kind, a.params, imem_a, fmem_a)
    reset_memory(b.kind, b.params, imem_b, fmem_b)
    t0 = time.perf_counter()
    r = play_duplicate(a, b, deals, seed, memory=(imem_a, fmem_a, imem_b, fmem_b))
    total = time.perf_counter() - t0
    decisions = imem_a[:, ashe.I_DECISIONS].sum() + imem_b[:, ashe.I_DECISIONS].sum()
    steps = imem_a[:, ashe.I_STEPS].sum() + imem_b[:, ashe.I_STEPS].sum()
    # Hand-strength evaluations per deal: one per (position, street) at which either player decided, and
    # the river of each position whose cards the other saw at a showdown (cached across the two halves).
    rec = play_duplicate(a, b, min(deals, 2000), seed, records=True).records
    streets = np.zeros(4)
    for d in range(0, len(rec), 2):
        need = set()
        for hand in rec[d:d + 2]:
            need |= {(actor, rnd) for rnd, actor, _, _ in hand.actions}
            if not any(act == 0 for _, _, act, _ in hand.actions):
                need |= {(0, 3), (1, 3)}
        for _, rnd in need:
            streets[rnd] += 1
    streets *= deals / (len(rec) / 2)
    cards = deal_decks(1, 1000).astype(np.int64)
    hs_ns = [per_call_ns(_hs_loop, cards, nb, DEFAULT_SAMPLES, n=n) for nb, n in ((0, 10**6), (3, 2000), (4, 2000),
                                                                                   (5, 2000))]
    scratch = np.zeros(384)
    hidden = int(a.params[ashe.P_HIDDEN])
    o_s = ashe.HEADER + ashe.block_size(ashe.OFRE_INPUTS, hidden)
    wt = np.zeros(4 * hidden * (ashe.SWRE_INPUTS + hidden))
    ashe.transpose_weights(a.params, o_s, ashe.SWRE_INPUTS, hidden, wt)
    args = (a.params, o_s, wt, ashe.SWRE_INPUTS, ashe.SWRE_DEC, hidden)
    pre_ns = per_call_ns(_lstm_loop, *args, 0, scratch, n=10**6)
    finish_ns = per_call_ns(_lstm_loop, *args, 1, scratch, n=10**6)
    # PRT: a walk to the current node per decision and one update per hand and player.
    player = a
    im, fm = player.new_memory()
    ashe.ashe_reset(player.params, im[0], fm[0])
    h = HandState()
    for amt in (300, "c", "c", 900, "c", "c", "c"):
        h.call() if amt == "c" else h.raise_to(amt)
    hist = np.zeros((MAX_ACTIONS_PER_HAND, 4), np.int64)
    for i, row in enumerate(h.actions):
        hist[i] = row
    cap = int(player.params[ashe.P_CAPACITY])
    walk_ns = per_call_ns(lambda n: _walk_loop(im[0], hist, len(h.actions), n), n=10**5)
    update_ns = per_call_ns(lambda n: _update_loop(im[0], fm[0], cap, hist, len(h.actions), n), n=10**5)
    hands = r.n_hands
    parts = {
        "hand strength, preflop table": streets[0] * hs_ns[0],
        "hand strength, flop roll-outs": streets[1] * hs_ns[1],
        "hand strength, turn roll-outs": streets[2] * hs_ns[2],
        "hand strength, river exact": streets[3] * hs_ns[3],
        "LSTM steps": steps * finish_ns + 2 * decisions * pre_ns,
        "PRT walks (one per decision)": decisions * walk_ns,
        "PRT updates (one per hand and player)": 2 * hands * update_ns,
    }
    return total, hands, decisions, steps, streets, parts, hs_ns, (pre_ns, finish_ns), walk_ns, update_ns


@numba.njit
def _walk_loop(im, hist, n_actions, n):
    s = 0
    for d in range(n):
        s += ashe.prt_current(im, d & 1, hist, n_actions)
    return s


@numba.njit
def _update_loop(im, fm, cap, hist, n_actions, n):
    for d in range(n):
        ashe.prt_update(im, fm, cap, d & 1, hist, n_actions, True, 0.5, 1.0)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=20_000, help="duplicate deals per pair (2 hands each)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    args = ap.parse_args()
    one = round_robin_rate(args.seed, args.deals // 10, 1)
    print(f"random population {args.seed}, 45 pairs x {args.deals // 10} deals, one core: {one:,.0f} hands/s")
    many = round_robin_rate(args.seed, args.deals // 10, args.workers)
    print(f"same, {args.workers} worker processes: {many:,.0f} hands/s")
    hb = ashe_player(handbuilt_genome(), name="handbuilt")
    t0 = time.perf_counter()
    r = play_duplicate(hb, ashe_player(handbuilt_genome(), name="twin"), args.deals, seed=args.seed)
    print(f"hand-built ASHE vs hand-built ASHE (long hands, showdowns), one core: "
          f"{r.n_hands / (time.perf_counter() - t0):,.0f} hands/s")
    pop = new_population(10, args.seed)
    for label, (a, b) in (("hand-built vs hand-built", (hb, ashe_player(handbuilt_genome(), name="twin"))),
                          ("random pair 0 vs 1", (pop.player(0), pop.player(1)))):
        total, hands, decisions, steps, streets, parts, hs_ns, full_ns, walk_ns, update_ns = breakdown(
            a, b, args.deals, args.seed)
        print(f"\n{label}: {hands} hands in {total:.2f} s ({hands / total:,.0f} hands/s), per hand: "
              f"{decisions / hands:.2f} decisions, {steps / hands:.1f} LSTM steps, hand strength evaluations "
              + ", ".join(f"{s / hands:.2f}" for s in streets) + " (preflop, flop, turn, river)")
        print(f"  component costs alone: hand strength {', '.join(f'{x:,.0f}' for x in hs_ns)} ns; "
              f"LSTM shared part {full_ns[0]:,.0f} ns, per-candidate part {full_ns[1]:,.0f} ns; PRT walk {walk_ns:,.0f} ns, update {update_ns:,.0f} ns")
        accounted = 0.0
        for name, ns in parts.items():
            print(f"  {name:40s} {ns / 1e9 / total * 100:5.1f} %   ({ns / hands / 1e3:7.2f} us/hand)")
            accounted += ns
        print(f"  {'rest: betting, dispatch, inputs, utilities':40s} {100 - accounted / 1e9 / total * 100:5.1f} %")


if __name__ == "__main__":
    main()
