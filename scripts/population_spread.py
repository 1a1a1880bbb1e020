"""How a run's last population does against the training bots on fresh decks, and where its champion ranks.

Separates three things a champion's test result mixes: the test's own noise (500 deals against the Hothead
Maniac are uncertain to about ±4,500 mBB/hand), the choice of champion (the best fitness of one generation's
500-deal matches: a winner's curse), and what the population as a whole has learnt. Every player of the run
file's current population (the last generation's survivors and their children) and the last champion
play ``--deals`` duplicate deals against each training bot on decks of ``--seed`` (neither a training nor
the champions' test seed). Prints, per run and bot, the champion's result, the population's median and
best, and the champion's rank by ANE on these decks (``docs/results/evolution.md`` §1).

    python scripts/population_spread.py runs/ashe1/seed*.h5 --deals 1000 --workers 2
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np
from champion_matches import _play

from pokerduel.evolution.evolve import load_run
from pokerduel.evolution.fitness import ane
from pokerduel.infra.parallel import get_backend
from pokerduel.players.base import TRAINING_BOTS

#: decks no run trains on and no champion is tested on (``evolution_champions.TEST_SEED`` is 909,090,909)
SPREAD_SEED = 909_090_911


def spread(path: str, deals: int, seed: int, backend) -> dict:
    """Results (mBB/hand) of the population and the champion (last row) against each training bot."""
    run = load_run(path)
    genomes = [*run.population, run.records["champion"][-1]]
    tasks = [((run.config.settings, g), b, deals, seed) for g in genomes for b in TRAINING_BOTS]
    out = np.empty(len(tasks))
    for i, value in backend.map_unordered(_play, tasks):
        out[i] = value
    res = out.reshape(len(genomes), len(TRAINING_BOTS))
    pop, champ = res[:-1], res[-1]
    fit = ane(res)
    rank = int((fit[:-1] > fit[-1]).sum()) + 1
    return {"champion": champ.tolist(), "median": np.median(pop, axis=0).tolist(),
            "best": pop.max(axis=0).tolist(), "q10": np.quantile(pop, 0.1, axis=0).tolist(),
            "champion_rank": rank, "players": len(pop)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="evolution run files")
    ap.add_argument("--deals", type=int, default=1000, help="duplicate deals per player and bot")
    ap.add_argument("--seed", type=int, default=SPREAD_SEED, help="the decks' seed")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--json", default=None, help="write the results here")
    args = ap.parse_args(argv)
    if args.deals < 2:
        ap.error("--deals must be at least 2 (an interval needs two samples)")
    results = {}
    print("| run | bot | champion | population median | 10 % quantile | best | champion's ANE rank |")
    print("|---|---|---|---|---|---|---|")
    with get_backend("multiprocess", workers=args.workers) as backend:
        for path in args.runs:
            r = results[path] = spread(path, args.deals, args.seed, backend)
            for j, bot in enumerate(TRAINING_BOTS):
                print(f"| {path} | {bot} | {r['champion'][j]:+,.0f} | {r['median'][j]:+,.0f} | {r['q10'][j]:+,.0f} | "
                      f"{r['best'][j]:+,.0f} | {r['champion_rank']} of {r['players'] + 1} |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"deals": args.deals, "seed": args.seed, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
