"""Where a generation's time goes: hand simulation (engine) against selector and bookkeeping overhead.

For each selector (and ``repeat`` value) this runs the selection step of ``pokerduel evolve`` on a
random generation-0 population and reports the engine seconds (``LiveOracle.seconds``: deals played),
the selector wall time, and the overhead share ``(selector wall - engine) / engine``; then the panel
and reproduction time of one full generation. Usage::

    python scripts/bench_evolve.py --population 50 --keep 15 --selectors uniform,pocbam,hybrid --repeat 1,10
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from pokerduel.evolve import (
    EvolveConfig,
    heldout_players,
    initial_population,
    run_panel,
    select,
)
from pokerduel.parallel import SerialBackend
from pokerduel.reproduction import tser


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--population", type=int, default=50)
    ap.add_argument("--keep", type=int, default=15)
    ap.add_argument("--budget", type=int, default=None)
    ap.add_argument("--selectors", default="uniform,pocbam,ml-pocbam,hybrid")
    ap.add_argument("--repeat", default="1")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default=None, help="also write the rows to this JSON file")
    args = ap.parse_args(argv)
    rows = []
    # compile everything once on a tiny problem so the timings below are warm
    warm = EvolveConfig(population=6, keep=3, selector="hybrid", generations=1, panel_deals=4, panel_heldout=1)
    select(warm, initial_population(warm), 0)
    for name in args.selectors.split(","):
        for rep in (int(r) for r in args.repeat.split(",")):
            cfg = EvolveConfig(population=args.population, keep=args.keep, selector=name, budget=args.budget,
                               repeat=rep, seed=args.seed, generations=1)
            pop = initial_population(cfg)
            res = select(cfg, pop, 0)
            over = res["selector_seconds"] - res["engine_seconds"]
            row = {"selector": name, "repeat": rep, "K": cfg.population, "k": cfg.keep, "budget": cfg.budget,
                   "n0": cfg.n0, "decisions": res["decisions"], "engine_s": res["engine_seconds"],
                   "selector_wall_s": res["selector_seconds"], "overhead_s": over,
                   "overhead_share": over / res["engine_seconds"],
                   "us_per_decision": 1e6 * over / max(res["decisions"], 1),
                   "us_per_deal": 1e6 * res["engine_seconds"] / res["deals_played"]}
            rows.append(row)
            print(f"{name:10s} repeat {rep:3d}: budget {cfg.budget}, {res['decisions']} decisions, engine "
                  f"{row['engine_s']:.2f} s ({row['us_per_deal']:.0f} us/deal), selector wall "
                  f"{row['selector_wall_s']:.2f} s, overhead {100 * row['overhead_share']:.1f}% "
                  f"({row['us_per_decision']:.0f} us/decision)", flush=True)
    cfg = EvolveConfig(population=args.population, keep=args.keep, selector="uniform", generations=1, seed=args.seed)
    pop = initial_population(cfg)
    t0 = time.perf_counter()
    run_panel(cfg, pop[0], heldout_players(cfg), SerialBackend())
    t1 = time.perf_counter()
    tser(pop, np.arange(cfg.keep), np.linspace(1, 0, cfg.keep), cfg.population, 0.25, 0.5,
         np.random.default_rng(0))
    t2 = time.perf_counter()
    print(f"panel ({len(cfg.panel_names)} matches x {cfg.panel_deals} deals, one core): {t1 - t0:.2f} s; "
          f"TSER reproduction: {1e3 * (t2 - t1):.1f} ms")
    rows.append({"panel_s": t1 - t0, "reproduction_s": t2 - t1})
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
