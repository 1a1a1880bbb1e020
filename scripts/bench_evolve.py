"""Where a generation's time goes: hand simulation (engine) against selector and bookkeeping overhead.

For each selector (and ``repeat`` or ``lag`` value) this runs the selection step of ``pokerduel evolve``
on a random generation-0 population and reports the engine seconds (``LiveOracle.seconds``: deals
played), the selector wall time, and the overhead share ``(selector wall - engine) / engine``. It then
plays the same deals again, in the same order, on a fresh oracle with no selector (``replay``: the
hand simulation alone, one thread) and reports ``selector wall / replay - 1`` too: with ``lag > 0`` the
deals run in a second thread, where the engine time measured inside the oracle can be inflated by the
two threads sharing the machine, so the replay is the fair peer. Last, the panel and reproduction
time of one full generation. Usage::

    python scripts/bench_evolve.py --population 50 --keep 15 --selectors uniform,pocbam,hybrid --repeat 1,10
    python scripts/bench_evolve.py --population 50 --keep 15 --budget 2000 --selectors hybrid --lag 0,2 --refit 1,4
    python scripts/bench_evolve.py --population 50 --keep 15 --budget 2000 --selectors uniform,hybrid --lag 2 \
        --refit 4 --generations 20      # an evolving population: each generation measured once
    python scripts/bench_evolve.py --run-file runs/run1.h5 --wall 160.3   # a finished serial run
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from pokerduel.evolution.evolve import (
    EvolveConfig,
    _seq,
    heldout_players,
    initial_population,
    run_panel,
    select,
)
from pokerduel.evolution.reproduction import tser
from pokerduel.infra.parallel import SerialBackend
from pokerduel.play.oracles import LiveOracle, MemoryPool
from pokerduel.players.genomes import ashe_player

#: match memories reused by every selection and replay here, as ``run_evolution`` reuses them
POOL = MemoryPool()


def replay_seconds(cfg, genomes, generation, res) -> float:
    """Wall seconds to play ``res``'s deals again on a fresh oracle, in order, with no selector."""
    players = [ashe_player(g, cfg.settings) for g in genomes]
    oracle = LiveOracle(players, _seq(cfg.seed, 1, generation), reset=bool(cfg.reset), hs_samples=cfg.hs_samples,
                        memory_pool=POOL)
    pairs = list(zip(res["trace_i"].tolist(), res["trace_j"].tolist()))
    t0 = time.perf_counter()
    for i, j in pairs:
        oracle.sample(i, j)
    wall = time.perf_counter() - t0
    oracle.release()
    return wall


def run_file_overhead(path, wall):
    """Everything a serial run spent beyond hand simulation (selection deals and panel matches), over all
    generations and over generations 1 on (generation 0 also loads, or on a cold cache compiles, the numba
    kernels)."""
    from pokerduel.evolution.evolve import TIMING_NAMES, load_run

    run = load_run(path)
    t = dict(zip(TIMING_NAMES, run.records["timing"].T))
    print(f"{path}: {run.completed} generations, {run.config.selector} (lag {run.config.lag}, refit every "
          f"{run.config.refit_every}, batch {run.config.batch})")
    for first, what in ((0, "all generations"), (1, "generations 1 on")):
        g = slice(first, None)
        eng, sel = t["engine"][g].sum(), t["selector"][g].sum()
        sim = eng + t["panel"][g].sum()
        print(f"  {what}: hand simulation {sim:.1f} s (selection deals {eng:.1f} s, panel {t['panel'][g].sum():.1f} s); "
              f"selector beyond its deals {sel - eng:.1f} s ({100 * (sel / eng - 1):.1f}% of their time, "
              f"{100 * (sel - eng) / sim:.1f}% of hand simulation)")
        if wall:
            w = wall - t["generation"][:first].sum()
            print(f"    run wall {w:.1f} s: {100 * (w / sim - 1):.1f}% beyond hand simulation (selector, TSER, "
                  f"checkpoints and the Python in between)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--population", type=int, default=50)
    ap.add_argument("--keep", type=int, default=15)
    ap.add_argument("--budget", type=int, default=None)
    ap.add_argument("--selectors", default="uniform,pocbam,ml-pocbam,hybrid")
    ap.add_argument("--repeat", default="1")
    ap.add_argument("--lag", default="0", help="comma-separated lags (each combined with repeat 1 only)")
    ap.add_argument("--refit", default="1", help="comma-separated refit intervals of ML-POCBAm and the hybrid "
                                                 "(each combined with every lag)")
    ap.add_argument("--generation", type=int, default=0, help="the seed's generation index (its decks)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions of each variant (medians are shown)")
    ap.add_argument("--generations", type=int, default=1,
                    help="measure this many generations of an evolving population instead of repeating one")
    ap.add_argument("--json", default=None, help="also write the rows to this JSON file")
    ap.add_argument("--run-file", default=None,
                    help="instead: the overhead of a finished run of the serial backend, from its file and --wall")
    ap.add_argument("--wall", type=float, default=None, help="the run's wall seconds (pokerduel evolve --json)")
    args = ap.parse_args(argv)
    if args.run_file:
        return run_file_overhead(args.run_file, args.wall)
    rows = []
    # compile everything once on a tiny problem so the timings below are warm
    warm = EvolveConfig(population=6, keep=3, selector="hybrid", generations=1, panel_deals=4, panel_heldout=1)
    select(warm, initial_population(warm), 0)
    fill = EvolveConfig(population=args.population, keep=args.keep, selector="uniform", budget=args.budget,
                        generations=1, seed=args.seed + 1)
    select(fill, initial_population(fill), 0, POOL)   # every measurement below reuses memories, as a run does
    lags = [int(v) for v in args.lag.split(",")]
    for name in args.selectors.split(","):
        refits = [int(v) for v in args.refit.split(",")] if name in ("ml-pocbam", "hybrid") else [1]
        variants = [(int(r), 0, 1) for r in args.repeat.split(",")] + [(1, lag, 1) for lag in lags if lag]
        variants += [(1, lag, r) for lag in lags for r in refits if r > 1]
        for rep, lag, refit in variants:
            cfg = EvolveConfig(population=args.population, keep=args.keep, selector=name, budget=args.budget,
                               repeat=rep, lag=lag, refit_every=refit, seed=args.seed, generations=1)
            pop = initial_population(cfg)
            walls, engines, replays = [], [], []
            res = None
            for r in range(max(args.reps, args.generations)):
                # selection and replay side by side, in alternating order where the deals repeat (the machine's
                # speed drifts); with --generations the population evolves between measurements as in a run
                g = args.generation + (r if args.generations > 1 else 0)
                if r % 2 and args.generations == 1:
                    replays.append(replay_seconds(cfg, pop, g, res))
                    res = select(cfg, pop, g, POOL)
                else:
                    res = select(cfg, pop, g, POOL)
                    replays.append(replay_seconds(cfg, pop, g, res))
                walls.append(res["selector_seconds"])
                engines.append(res["engine_seconds"])
                if args.generations > 1:
                    rate, sigma = cfg.tser.schedule(g, args.generations)
                    pop = tser(pop, res["survivors"], res["scores"][res["survivors"]], cfg.population, rate, sigma,
                               np.random.default_rng(_seq(cfg.seed, 3, g))).genomes
            walls, engines, replays = np.array(walls), np.array(engines), np.array(replays)
            share = np.median((walls - engines) / engines)
            vs_replay = np.median(walls / replays - 1)
            total = walls.sum() / replays.sum() - 1
            row = {"selector": name, "repeat": rep, "lag": lag, "refit_every": refit, "K": cfg.population,
                   "k": cfg.keep, "budget": cfg.budget, "n0": cfg.n0, "decisions": res["decisions"],
                   "reps": len(walls), "engine_s": engines.tolist(), "selector_wall_s": walls.tolist(),
                   "replay_s": replays.tolist(), "overhead_share": share, "overhead_vs_replay": vs_replay,
                   "total_vs_replay": total,
                   "us_per_deal": 1e6 * float(np.median(engines)) / res["deals_played"]}
            rows.append(row)
            print(f"{name:10s} repeat {rep:3d} lag {lag} refit {refit}: budget {cfg.budget}, {res['decisions']} "
                  f"decisions; medians of {len(walls)}: selector wall {np.median(walls):.3f} s, engine inside it "
                  f"{np.median(engines):.3f} s ({row['us_per_deal']:.0f} us/deal), replay alone "
                  f"{np.median(replays):.3f} s; overhead (wall - engine) / engine {100 * share:.1f}%, "
                  f"wall / replay - 1 {100 * vs_replay:.1f}% (all together {100 * total:.1f}%)", flush=True)
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
