"""Re-score a run's last generations' champions on fresh decks and name the best by the run's own fitness.

A run's champion is the best of its last generation by that generation's fitness, which is a noisy estimate
(a few hundred deals per opponent). This plays each of the last ``--window`` generations' champions
``--matches`` matches of ``--deals`` duplicate deals (fresh memories, deck seeds spawned from ``--seed``, which
no run trains or is tested on) against the run's training opponents (``--opponents``, by default the run's
own fixed opponents), and ranks them by ASHE 1.0's ANE over those opponents (each opponent's earnings
normalised by the best champion's). Only training opponents are used: the held-out panel stays out of
every choice. ``docs/results/evolution.md`` (§2, *Looking ahead*) reports what it changed on 14 runs.

    python scripts/validate_champions.py runs/gen_look/seed*.h5 --window 50 --json val.json
    python scripts/champion_matches.py runs/gen_look/seed3.h5:champion:G    # then test the named champion
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np
from champion_matches import _play, match_seeds, opponent_specs

from pokerduel.evolution.evolve import load_run
from pokerduel.evolution.fitness import normalized_earnings
from pokerduel.infra.parallel import get_backend

#: decks no run trains on and no champion test uses (``champion_matches.MATCHES_SEED`` is 909,090,913)
VALIDATION_SEED = 909_090_917


def validate(path: str, opponents: list[str] | None, window: int, matches: int, deals: int, seed: int,
             backend) -> dict:
    """The mean mBB/hand of each of the last ``window`` champions of ``path`` against each opponent, their ANE
    and the generation of the best."""
    run = load_run(path)
    opponents = list(opponents or run.config.opponents)
    if not opponents:
        raise ValueError(f"{path} has no fixed training opponents: give --opponents")
    last = run.completed
    generations = list(range(max(1, last - window + 1), last + 1))
    seeds = match_seeds(seed, matches)
    tasks = [(f"{path}:champion:{g}", o, deals, s) for g in generations for o in opponents for s in seeds]
    out = np.zeros(len(tasks))
    for i, value in backend.map_unordered(_play, tasks):
        out[i] = value
    mbb = out.reshape(len(generations), len(opponents), matches).mean(axis=2)
    fitness = normalized_earnings(mbb).mean(axis=1)
    best = int(np.argmax(fitness))
    return {"run": path, "opponents": opponents, "generations": generations, "mbb": mbb.tolist(),
            "fitness": fitness.tolist(), "best_generation": generations[best]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="evolution run files")
    ap.add_argument("--opponents", default=None,
                    help="comma-separated training opponents (default: each run's own fixed opponents)")
    ap.add_argument("--window", type=int, default=50, help="how many of the last generations' champions")
    ap.add_argument("--matches", type=int, default=2)
    ap.add_argument("--deals", type=int, default=250, help="duplicate deals per match")
    ap.add_argument("--seed", type=int, default=VALIDATION_SEED)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--json", default=None, help="write every champion's results here")
    args = ap.parse_args(argv)
    if args.window < 1 or args.matches < 1 or args.deals < 1:
        ap.error("--window, --matches and --deals must be at least 1")
    opponents = opponent_specs(ap, args.opponents) if args.opponents else None
    results = []
    print("| run | best of the last generations | its mBB/hand per opponent | the last champion's |")
    print("|---|---|---|---|")
    with get_backend("multiprocess", workers=args.workers) as backend:
        for path in args.runs:
            try:
                r = validate(path, opponents, args.window, args.matches, args.deals, args.seed, backend)
            except ValueError as err:
                ap.error(str(err))
            results.append(r)
            b = r["generations"].index(r["best_generation"])
            cells = [" / ".join(f"{v:+,.0f}" for v in r["mbb"][i]) for i in (b, -1)]
            print(f"| {path} | {r['best_generation']} | {cells[0]} | {cells[1]} |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "matches": args.matches, "deals": args.deals, "results": results}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
