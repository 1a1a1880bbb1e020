"""How much of a generation's fitness is luck of its decks, opponent by opponent.

ANE ranks a generation's players on one set of common decks. This plays a run's last population against
each of its fixed opponents (the training opponents and the hall of fame it ended with) on ``--deck-sets``
independent deck sets of the run's ``deals`` each, and reports per opponent: the players' own spread, the
noise that ranks them on one deck set (what the decks do to one player and not another), the share of one
deck set's spread that is the players' own (its reliability), and the opponent's share of the fitness's
noise, from its weight in the fitness (pool and opponent weights) and its normaliser (the best player's
result, as in ``fitness.ane``; targets are left out). The last column spreads the run's deals per player over the
opponents in proportion to that noise (Neyman allocation: the least noisy fitness for the same hands).

    python scripts/fitness_noise.py runs/table2/seed45.h5 --deck-sets 4
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from pokerduel.engine.rules import BIG_BLIND
from pokerduel.evolution.evolve import POOLS, fixed_players, load_run, training_opponents
from pokerduel.evolution.fitness import ane, earnings_matrix, mbb_per_hand
from pokerduel.infra.parallel import get_backend
from pokerduel.players.genomes import ashe_player

#: decks no run trains on (the deck sets are spawned from it)
NOISE_SEED = 909_090_917


def fitness_noise(mbb: np.ndarray, column_weights: np.ndarray, floor: float = 0.0) -> dict:
    """Per opponent, from ``mbb[s, i, j]`` (deck set, player, opponent) and each opponent's weight in the
    fitness: the players' own spread, the noise that ranks them on one deck set, the reliability of one deck
    set, the normaliser (at least ``floor``, the big blind in mBB/hand) and the share of the fitness's noise
    SD (``column_weights * noise / normaliser``, summing to 1).

    Players meet the same decks, so what a deck set gives or takes from all of them alike ranks no one: the
    noise is the players-by-deck-sets interaction of a two-way analysis of variance, and the players' own
    spread is what their means vary beyond it."""
    S, n = mbb.shape[:2]
    resid = mbb - mbb.mean(axis=0) - mbb.mean(axis=1, keepdims=True) + mbb.mean(axis=(0, 1))
    noise2 = (resid ** 2).sum(axis=(0, 1)) / ((S - 1) * (n - 1))
    own2 = np.maximum(mbb.mean(axis=0).var(axis=0, ddof=1) - noise2 / S, 0.0)
    top = np.maximum(mbb.max(axis=1), floor).mean(axis=0)       # n_j = max(BB, best), in mBB/hand
    part = column_weights * np.sqrt(noise2) / top
    return {"spread": np.sqrt(own2), "noise": np.sqrt(noise2), "reliability": own2 / np.maximum(own2 + noise2, 1e-300),
            "normaliser": top, "share": part / part.sum()}


def column_weights(cfg, n_hall: int) -> np.ndarray:
    """Each fixed opponent's weight in the run's fitness (the training opponents, then ``n_hall`` hall members):
    ``fitness.ane`` of a unit result against that opponent alone."""
    m = len(cfg.opponents) + n_hall
    pools = [POOLS.index("opponents")] * len(cfg.opponents) + [POOLS.index("hall")] * n_hall
    columns = None if cfg.opponent_weights is None else [*cfg.opponent_weights, *[1.0] * n_hall]
    return ane(np.eye(m) * BIG_BLIND, np.array(pools), cfg.pool_weights, column_weights=columns)


def neyman_deals(share: np.ndarray, total: int, multiple: int = 1) -> np.ndarray:
    """``total`` deals spread in proportion to ``share`` in units of ``multiple`` deals (largest remainders),
    every opponent at least one unit, taken from the largest."""
    units = total // multiple
    if units < len(share):
        raise ValueError(f"{total} deals cannot give {len(share)} opponents {multiple} each")
    want = np.asarray(share, np.float64) / np.sum(share) * units
    out = np.floor(want).astype(np.int64)
    out[np.argsort(-(want - out), kind="stable")[:units - out.sum()]] += 1
    for j in np.flatnonzero(out == 0):
        out[np.argmax(out)] -= 1
        out[j] = 1
    return out * multiple


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="an evolution run file with fitness ane")
    ap.add_argument("--deck-sets", type=int, default=4)
    ap.add_argument("--deals", type=int, default=None, help="deals per deck set (default: the run's)")
    ap.add_argument("--seed", type=int, default=NOISE_SEED)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--json", default=None, help="write every player's results and the table here")
    args = ap.parse_args(argv)
    run = load_run(args.run)
    cfg = run.config
    if cfg.fitness != "ane":
        ap.error(f"{args.run} ran fitness {cfg.fitness}; this measures fitness ane")
    if args.deck_sets < 2:
        ap.error("--deck-sets must be at least 2 (a player's spread across them)")
    deals = cfg.deals if args.deals is None else args.deals
    champions = list(run.records["champion"])
    fixed = fixed_players(cfg, training_opponents(cfg), run.records["hall"][-1], champions)
    players = [ashe_player(g, cfg.settings, name=f"last:{i}") for i, g in enumerate(run.population)]
    seeds = [int(s) for s in np.random.SeedSequence(args.seed).generate_state(args.deck_sets, np.uint64) >> 1]
    with get_backend("multiprocess", workers=args.workers) as backend:
        mbb = np.array([mbb_per_hand(earnings_matrix(players, fixed, deals, s, backend, cfg.hs_samples,
                                                     matches=cfg.matches)[0], deals) for s in seeds])
    n_opp = len(cfg.opponents)
    n_hall = len(fixed) - n_opp
    weights = column_weights(cfg, n_hall)
    out = fitness_noise(mbb, weights, float(mbb_per_hand(BIG_BLIND, deals)))
    suggested = neyman_deals(out["share"], deals * len(fixed), cfg.matches)
    names = [*cfg.opponents, *[f.name for f in fixed[n_opp:]]]
    print(f"{args.run}: {len(players)} players, {args.deck_sets} deck sets of {deals} deals "
          f"(pools {', '.join(POOLS[1:])} weighted {cfg.pool_weights[1]:g}, {cfg.pool_weights[2]:g})")
    print("| opponent | mean | players' spread | noise of one deck set | reliability | fitness weight | "
          "share of the fitness noise | deals in proportion |")
    print("|---|---|---|---|---|---|---|---|")
    for j, name in enumerate(names):
        print(f"| {name} | {mbb[:, :, j].mean():+,.0f} | {out['spread'][j]:,.0f} | {out['noise'][j]:,.0f} | "
              f"{out['reliability'][j]:.2f} | {weights[j]:.3f} | {100 * out['share'][j]:.0f} % | {suggested[j]} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"run": args.run, "deals": deals, "seed": args.seed, "opponents": names, "mbb": mbb.tolist(),
                       "weights": weights.tolist(), "suggested_deals": suggested.tolist(),
                       **{k: v.tolist() for k, v in out.items()}}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
