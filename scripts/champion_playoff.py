"""Does a better choice of champion close the gap? A playoff among the last generation's elites.

A run's champion is the best fitness of one generation's matches (one 500-deal match per bot in the
preset), a winner's curse among survivors whose fitness differs by a few per cent. Here every elite of
the run's last generation (the survivors TSER kept unchanged, ``origin`` 0 in the run file; the champion
is the first) plays ``--playoff-matches`` more independent matches of ``--deals`` duplicate deals against
each training opponent of the run, on decks of ``--seed`` (no run trains or tests on them), and the elite of
highest ANE over them is the playoff's champion. The run's champion and the playoff's then play
``--matches`` independent matches against each of ``--opponents`` on ``champion_matches``' decks, so that the
two are compared on the same hands (``docs/results/evolution.md`` §1).

    python scripts/champion_playoff.py runs/ashe1/seed*.h5 --workers 2
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np
from champion_matches import MATCHES_SEED, match_seeds, opponent_specs, over_matches, summarise

from pokerduel.evolution.evolve import load_run, resolve_opponent
from pokerduel.evolution.fitness import ane, earnings_matrix, mbb_per_hand
from pokerduel.infra.parallel import get_backend
from pokerduel.players.base import TRAINING_BOTS
from pokerduel.players.genomes import ashe_player

#: the playoff's decks: no run trains on them and no champion test uses them
PLAYOFF_SEED = 909_090_917


def playoff(path: str, matches: int, deals: int, seed: int, backend) -> dict:
    """The last generation's elites' mBB/hand against the run's training opponents and their ANE."""
    run = load_run(path)
    elites = run.population[run.records["origin"][-1] == 0]
    if not np.array_equal(elites[0], run.records["champion"][-1]):
        raise ValueError(f"{path}: the first elite is not the last champion (not a finished TSER run?)")
    opponents = [resolve_opponent(o) for o in (run.config.opponents or TRAINING_BOTS)]
    players = [ashe_player(g, run.config.settings) for g in elites]
    e, _, _ = earnings_matrix(players, opponents, matches * deals, seed, backend, matches=matches)
    fit = ane(e)
    return {"elites": elites, "settings": run.config.settings, "mbb": mbb_per_hand(e, matches * deals),
            "ane": fit, "chosen": int(np.argmax(fit))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="finished evolution run files")
    ap.add_argument("--playoff-matches", type=int, default=5, help="playoff matches per elite and training opponent")
    ap.add_argument("--deals", type=int, default=500, help="duplicate deals per match")
    ap.add_argument("--seed", type=int, default=PLAYOFF_SEED, help="the playoff's decks")
    ap.add_argument("--opponents", default="hothead-maniac,candid-statistician,tight-aggressive",
                    help="comma-separated opponents of the comparison")
    ap.add_argument("--matches", type=int, default=20, help="comparison matches per opponent")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--json", default=None, help="write the results here")
    args = ap.parse_args(argv)
    if args.playoff_matches < 1 or args.deals < 1 or args.matches < 2:
        ap.error("--playoff-matches and --deals must be at least 1, --matches at least 2")
    opponents = opponent_specs(ap, args.opponents)
    seeds = match_seeds(MATCHES_SEED, args.matches)
    results = {}
    print(f"| run | elites | playoff's choice | opponent | champion, {args.matches} matches | playoff's champion | "
          "difference |")
    print("|---|---|---|---|---|---|---|")
    with get_backend("multiprocess", workers=args.workers) as backend:
        for path in args.runs:
            p = playoff(path, args.playoff_matches, args.deals, args.seed, backend)
            c = p["chosen"]
            r = results[path] = {"elites": len(p["elites"]), "chosen": c, "ane": p["ane"].tolist(),
                                 "playoff_mbb": p["mbb"].tolist(), "versus": {}}
            for opp in opponents:
                champ = over_matches((p["settings"], p["elites"][0]), opp, seeds, args.deals, backend)
                new = champ if c == 0 else over_matches((p["settings"], p["elites"][c]), opp, seeds, args.deals,
                                                        backend)
                r["versus"][opp] = {"champion": champ, "playoff": new}
                diff = np.asarray(new["matches"]) - np.asarray(champ["matches"])
                d = summarise(diff) if c else {"mean": 0.0, "ci": 0.0}
                print(f"| {path} | {len(p['elites'])} | {'the champion' if c == 0 else f'elite {c}'} | {opp} | "
                      f"{champ['mean']:+,.0f} ± {champ['ci']:,.0f} | {new['mean']:+,.0f} ± {new['ci']:,.0f} | "
                      f"{d['mean']:+,.0f} ± {d['ci']:,.0f} |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"playoff_seed": args.seed, "playoff_matches": args.playoff_matches, "deals": args.deals,
                       "matches_seed": MATCHES_SEED, "matches": args.matches, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
