"""Profile one generation's selection in the selector-driven mixed mode (candidates, hall of fame, bots).

The decisions and the deals run in one thread (``lag_thread=False``: the same samples as the threaded
default), so cProfile sees both; the hall of fame is four copies of generation 0's first players. Prints
the wall time and the functions with the most time of their own::

    python scripts/profile_mixed_selection.py --budget 30000
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import numpy as np

from pokerduel.evolution.evolve import (
    config_from_options,
    fixed_players,
    initial_population,
    select,
    training_opponents,
)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=30_000, help="duplicate deals of the profiled selection")
    ap.add_argument("--population", type=int, default=50)
    ap.add_argument("--top", type=int, default=20, help="functions to list")
    args = ap.parse_args(argv)
    cfg = config_from_options(
        init="handbuilt", init_low=-0.1, init_high=0.1,
        population=args.population, keep=max(2, 3 * args.population // 10),
        opponents=["scared-limper", "calling-machine", "hothead-maniac", "candid-statistician"], hall_of_fame=4,
        budget=args.budget, pool_weights=[0.1, 0.25, 6.3], selector="hybrid", common_decks=True,
        opponent_weights=[1, 0.02474, 0.02762, 0.1019], generations=10, seed=1)
    pop = initial_population(cfg)
    hall = np.arange(4)
    fixed = fixed_players(cfg, training_opponents(cfg), hall, list(pop[:4]))
    select(cfg, pop, 0, fixed=fixed, hall=hall, lag_thread=False)      # compiles the kernels
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    select(cfg, pop, 1, fixed=fixed, hall=hall, lag_thread=False)
    prof.disable()
    print(f"selection of {args.budget} samples: {time.perf_counter() - t0:.2f} s wall (profiled)")
    pstats.Stats(prof).sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
