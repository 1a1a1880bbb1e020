"""Hands per second of fitness ane: a population of ASHE players against fixed opponents on common decks.

One generation of the ASHE 1.0 preset is 50 players x 4 bots x 500 duplicate deals = 200,000 hands. This
plays it (or a smaller one) for a population of a run file's generation, or of random generation-0
players, and reports hands/s for each way of playing it, measured in the same run (the machine is noisy):

- ``per-match strengths``: every match computes its own hand strengths (``play_duplicate`` as before);
- ``shared strengths``: each deck's hand strengths computed once for the generation (``fitness.earnings_matrix``),
  serial and on the multiprocess backend.

It also splits the time: hand strengths of the decks, and the matches by opponent.

    python scripts/bench_fitness.py                          # generation 0 of the ashe1 preset
    python scripts/bench_fitness.py --run runs/ashe1/seed1.h5     # the evolved population of a run
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from pokerduel.evolution.evolve import EvolveConfig, initial_population, load_run  # noqa: E402
from pokerduel.evolution.fitness import earnings_matrix  # noqa: E402
from pokerduel.infra.parallel import SerialBackend, get_backend  # noqa: E402
from pokerduel.play.matches import deal_strengths, play_duplicate  # noqa: E402
from pokerduel.players.base import TRAINING_BOTS  # noqa: E402
from pokerduel.players.genomes import ashe_player  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--population", type=int, default=50)
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--run", default=None, help="take the players from this run file")
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args(argv)
    if args.run:
        run = load_run(args.run)
        cfg, genomes = run.config, run.population
        label = f"{args.run}: the population after generation {run.completed}"
    else:
        cfg = EvolveConfig(population=args.population, fitness="ane", opponents=TRAINING_BOTS, deals=args.deals)
        genomes = initial_population(cfg)
        label = "generation 0 (random players)"
    players = [ashe_player(x, cfg.settings, name=f"p{i}") for i, x in enumerate(genomes[:args.population])]
    bots = list(TRAINING_BOTS)
    deals, seed = args.deals, 4242
    hands = 2 * deals * len(players) * len(bots)
    play_duplicate(players[0], bots[0], 2, seed)        # load (or compile) the kernels
    print(f"{label}: {len(players)} players x {len(bots)} bots x {deals} deals = {hands:,} hands")

    t0 = time.perf_counter()
    table = deal_strengths(seed, deals)
    t_table = time.perf_counter() - t0
    print(f"  hand strengths of the decks: {t_table:.3f} s")
    by_bot = {}
    t0 = time.perf_counter()
    for b in bots:
        t1 = time.perf_counter()
        for p in players:
            play_duplicate(p, b, deals, seed, strengths=table)
        by_bot[b] = time.perf_counter() - t1
    shared = time.perf_counter() - t0 + t_table
    for b, s in by_bot.items():
        print(f"  vs {b}: {s:.2f} s ({2 * deals * len(players) / s:,.0f} hands/s)")

    t0 = time.perf_counter()
    for b in bots:
        for p in players:
            play_duplicate(p, b, deals, seed)
    own = time.perf_counter() - t0
    t0 = time.perf_counter()
    e1, _, _ = earnings_matrix(players, bots, deals, seed, SerialBackend())
    serial = time.perf_counter() - t0
    with get_backend("multiprocess", workers=args.workers) as backend:
        earnings_matrix(players[:2], bots, 4, seed, backend)    # start the workers
        t0 = time.perf_counter()
        e2, _, _ = earnings_matrix(players, bots, deals, seed, backend)
        multi = time.perf_counter() - t0
        workers = backend.workers
    assert np.array_equal(e1, e2)
    print(f"  per-match strengths, one core:  {hands / own:>10,.0f} hands/s  ({own:.1f} s)")
    print(f"  shared strengths, one core:     {hands / shared:>10,.0f} hands/s  ({shared:.1f} s, x{own / shared:.2f})")
    print(f"  earnings_matrix, serial:        {hands / serial:>10,.0f} hands/s  ({serial:.1f} s)")
    print(f"  earnings_matrix, {workers} workers:     {hands / multi:>10,.0f} hands/s  ({multi:.1f} s, "
          f"x{own / multi:.2f} over per-match strengths)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
