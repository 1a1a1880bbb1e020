"""Is a generation's fitness noise the luck of all-in run-outs? Real chips against all-in expected values.

Plays a run's last population against each given opponent on ``--deck-sets`` independent deck sets and scores
every player twice: in real chips, and with each hand that both players took all-in before the river scored
at its expected value over the board cards still to come (exact enumeration: ``STACK`` times position 0's
wins minus losses over every run-out). Both scores have the same expectation; the second has none of the
run-outs' luck. Per opponent it prints the players' own spread, the noise that ranks them on one deck set
and its reliability (``fitness_noise.fitness_noise``), and how many deals had an all-in in no half, one, or
both. Under duplicate deals the run-out luck of a deal played to an all-in in both halves already cancels
(both halves see one board), so the expected values help only where the halves differ.

    python scripts/allin_noise.py runs/table2/seed64.h5 --opponents hothead-maniac,calling-machine
"""

from __future__ import annotations

import argparse
import sys

import numba
import numpy as np

from fitness_noise import NOISE_SEED, fitness_noise
from pokerduel.engine.decks import deal_cards, seed_keys
from pokerduel.engine.evaluator import eval7
from pokerduel.engine.rules import FOLD, N_ROUNDS, STACK
from pokerduel.evolution.evolve import load_run
from pokerduel.evolution.fitness import mbb_per_hand
from pokerduel.play.matches import deal_strengths, play_duplicate
from pokerduel.players.genomes import ashe_player

#: board cards seen when the betting closes in each round before the river
KNOWN = (0, 3, 4)


@numba.njit(cache=True)
def net_share(cards, known):
    """Position 0's (wins - losses) / run-outs with hole cards ``cards[0:2]`` against ``cards[2:4]`` and the
    first ``known`` board cards ``cards[4:]`` seen, over every run-out of the rest of the deck."""
    used = np.zeros(52, np.bool_)
    for i in range(4 + known):
        used[cards[i]] = True
    rest = np.empty(48 - known, np.int64)
    n = 0
    for c in range(52):
        if not used[c]:
            rest[n] = c
            n += 1
    board = np.empty(5, np.int64)
    board[:known] = cards[4:4 + known]
    need = 5 - known
    idx = np.arange(need)
    net = 0
    total = 0
    while True:
        for i in range(need):
            board[known + i] = rest[idx[i]]
        v0 = eval7(cards[0], cards[1], board[0], board[1], board[2], board[3], board[4])
        v1 = eval7(cards[2], cards[3], board[0], board[1], board[2], board[3], board[4])
        net += (v0 > v1) - (v0 < v1)
        total += 1
        i = need - 1  # the next combination in lexicographic order
        while i >= 0 and idx[i] == n - need + i:
            i -= 1
        if i < 0:
            return net / total
        idx[i] += 1
        for j in range(i + 1, need):
            idx[j] = idx[j - 1] + 1


@numba.njit(cache=True, parallel=True)
def _net_shares(cards, out):
    for d in numba.prange(cards.shape[0]):
        for r in range(3):
            out[d, r] = net_share(cards[d], KNOWN[r])


def deck_net_shares(seed: int, n_deals: int) -> np.ndarray:
    """``out[d, r]``: ``net_share`` of deal ``d`` of ``seed``'s decks with the board of round ``r`` (0-2) seen."""
    key = seed_keys(seed, 2)[0]
    cards = np.zeros((n_deals, 12), np.int64)
    for d in range(n_deals):
        deal_cards(key, d, cards[d])
    out = np.empty((n_deals, 3))
    _net_shares(np.ascontiguousarray(cards[:, :9]), out)
    return out


def allin_round(actions) -> int:
    """The round in which a hand's all-in was called (0 preflop .. 2 turn), or -1: no fold, a raise to the
    whole stack (stacks are equal, so a call of it is both players all-in), the betting closed before the
    river."""
    if any(a[2] == FOLD for a in actions) or not any(a[3] == STACK for a in actions):
        return -1
    last = actions[-1][0]
    return last if last < N_ROUNDS - 1 else -1


def scores(result, shares) -> tuple[float, float, list]:
    """A's real and all-in-expected mBB/hand in a ``play_duplicate(..., records=True)`` result, and per deal
    how many of its two hands were all-in before the river."""
    ev = 0.0
    halves = []
    for k in range(0, len(result.records), 2):
        n = 0
        for rec in result.records[k:k + 2]:
            r = allin_round(rec.actions)
            if r >= 0:
                n += 1
                ev += STACK * shares[rec.deal, r] * (1 if rec.half == 0 else -1)
            else:
                ev += rec.payoffs[rec.half]
        halves.append(n)
    deals = len(result.hand_payoffs)
    return float(mbb_per_hand(result.hand_payoffs.sum(), deals)), float(mbb_per_hand(ev, deals)), halves


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="an evolution run file (its last population plays)")
    ap.add_argument("--opponents", default="hothead-maniac,candid-statistician,calling-machine")
    ap.add_argument("--deck-sets", type=int, default=4)
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--seed", type=int, default=NOISE_SEED)
    args = ap.parse_args(argv)
    if args.deck_sets < 2 or args.deals < 2:
        ap.error("--deck-sets and --deals must be at least 2")
    run = load_run(args.run)
    cfg = run.config
    players = [ashe_player(g, cfg.settings, name=f"last:{i}") for i, g in enumerate(run.population)]
    seeds = [int(s) for s in np.random.SeedSequence(args.seed).generate_state(args.deck_sets, np.uint64) >> 1]
    shares = [deck_net_shares(s, args.deals) for s in seeds]
    strengths = [deal_strengths(s, args.deals, hs_samples=cfg.hs_samples) for s in seeds]
    print(f"{args.run}: {len(players)} players, {args.deck_sets} deck sets of {args.deals} deals")
    print("| opponent | score | mean | players' spread | noise of one deck set | reliability | deals all-in in 0 / 1 / 2 halves |")
    print("|---|---|---|---|---|---|---|")
    for opp in args.opponents.split(","):
        mbb = np.zeros((args.deck_sets, len(players), 2))
        counts = np.zeros(3, np.int64)
        for s, seed in enumerate(seeds):
            for i, p in enumerate(players):
                res = play_duplicate(p, opp, args.deals, seed, records=True, strengths=strengths[s],
                                     hs_samples=cfg.hs_samples)
                real, ev, halves = scores(res, shares[s])
                mbb[s, i] = real, ev
                counts += np.bincount(halves, minlength=3)
        for j, label in enumerate(("real chips", "all-in expected")):
            out = fitness_noise(mbb[:, :, j:j + 1], np.ones(1))
            print(f"| {opp} | {label} | {mbb[:, :, j].mean():+,.0f} | {out['spread'][0]:,.0f} | "
                  f"{out['noise'][0]:,.0f} | {out['reliability'][0]:.2f} | {' / '.join(f'{c:,}' for c in counts)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
