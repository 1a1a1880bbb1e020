"""Choose a finished run's champion on fresh decks, as ``pokerduel evolve --validate-window`` does at the end.

A generation's champion is the best of that generation by its fitness, a noisy estimate (a few hundred
deals per opponent). ``evolve.validate`` plays each of the last ``--window`` generations' champions
``--matches`` matches of the run's ``panel_deals`` deals against the run's training opponents, all on the
same fresh decks (the run's validation seed, or ``--seed``), and ranks them by the run's ANE over those
opponents (its targets and opponent weights), or with ``--rule shortfall`` by the worst shortfall below the
run's targets; with ``--finalists`` the first few are re-scored on ``--final-matches`` matches of 500
deals on other fresh decks, and those results alone decide (``--reuse-first-stage``: the first stage as the run
stored it, only the finalists played); with ``--average-windows`` the mean genomes of the last W generations'
champions are re-scored on ``--average-matches`` matches of 500 deals, and the first at every floor
(``--average-floors``, by default the run's or its targets) replaces the chosen generation (``evolve.choose_average``);
with ``--champion-raising-ranges`` the champion so chosen then plays at each of those raising ranges on
``--average-matches`` matches of 500 deals, and keeps the first at every floor (``evolve.choose_raising_range``).
Only training opponents are used: the held-out panel stays out of every choice. This script does that for runs
finished without these options, or again with other ones, and prints the choice; the run file is not changed.

    python scripts/validate_champions.py runs/table2/seed*.h5 --window 50 --json val.json
    python scripts/validate_champions.py runs/table2/seed*.h5 --window 250 --finalists 20 --reuse-first-stage
    python scripts/validate_champions.py runs/ashe1/seed*.h5 --window 250 --rule shortfall --targets 998.6,40368,36158,9800
    python scripts/validate_champions.py runs/scratch/seed*.h5 --window 250 --reuse-first-stage \
        --average-windows 50,25,10 --average-floors 996,38379,34670,8153,none
    python scripts/validate_champions.py runs/scratch/seed*.h5 --window 250 --reuse-first-stage \
        --average-windows 50,25,10 --average-floors 996,38379,34670,8153,none --champion-raising-ranges 1,0.75,0.6
    python scripts/champion_matches.py runs/table2/seed3.h5:champion:G    # then test the chosen champion
    python scripts/champion_matches.py runs/scratch/seed3.h5:average:50   # or an averaged one
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace

from pokerduel.evolution.evolve import VALIDATE_RULES, VALIDATION_RECORDS, load_run, validate
from pokerduel.infra.parallel import get_backend


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="evolution run files")
    ap.add_argument("--window", type=int, default=50, help="how many of the last generations' champions")
    ap.add_argument("--matches", type=int, default=8, help="matches of panel_deals deals per champion and opponent")
    ap.add_argument("--rule", choices=VALIDATE_RULES, default=None,
                    help="how the champions are ranked (default: the run's own validate_rule)")
    ap.add_argument("--finalists", type=int, default=None,
                    help="re-score the first this many again (0: none; default: the run's validate_finalists)")
    ap.add_argument("--final-matches", type=int, default=None,
                    help="matches of 500 deals per finalist and opponent (default: the run's)")
    ap.add_argument("--targets", default=None,
                    help="comma-separated mBB/hand per training opponent, 'none' for none, for ranking (default: the "
                         "run's); e.g. ASHE 1.0's Table 2 means for an ashe1 run and --rule shortfall")
    ap.add_argument("--seed", type=int, default=None, help="deck seed (default: the run's validation seed)")
    ap.add_argument("--reuse-first-stage", action="store_true",
                    help="take the first stage from the run file (a run validated with this --window and "
                         "--matches on its own validation seed) and play only the finalists")
    ap.add_argument("--average-windows", default=None,
                    help="comma-separated windows W: re-score the mean genome of the last W generations' champions")
    ap.add_argument("--average-floors", default=None,
                    help="comma-separated mBB/hand per training opponent, 'none' for none, an averaged champion must "
                         "reach (default: the run's, else its targets)")
    ap.add_argument("--average-matches", type=int, default=None,
                    help="matches of 500 deals per averaged champion and opponent (default: the run's)")
    ap.add_argument("--average-seed", type=int, default=None,
                    help="deck seed of the averaged champions' matches (default: the run's)")
    ap.add_argument("--champion-raising-ranges", default=None,
                    help="comma-separated raising ranges (widest first) to try the chosen champion at ('none': off; "
                         "default: the run's)")
    ap.add_argument("--raising-seed", type=int, default=None,
                    help="deck seed of the champion's matches at those raising ranges (default: the run's)")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--json", default=None, help="write every champion's results here")
    args = ap.parse_args(argv)
    if args.window < 1 or args.matches < 1:
        ap.error("--window and --matches must be at least 1")

    def numbers(text, name):
        if text is None:
            return None
        try:
            return tuple(None if t.strip().lower() == "none" else float(t) for t in text.split(","))
        except ValueError:
            ap.error(f"{name} takes comma-separated numbers or 'none', got {text!r}")

    targets = numbers(args.targets, "--targets")
    floors = numbers(args.average_floors, "--average-floors")
    windows = None
    if args.average_windows is not None:
        try:
            windows = tuple(int(w) for w in args.average_windows.split(","))
        except ValueError:
            ap.error(f"--average-windows takes comma-separated whole numbers, got {args.average_windows!r}")
    ranges = () if args.champion_raising_ranges == "none" else numbers(args.champion_raising_ranges,
                                                                      "--champion-raising-ranges")
    results = []
    print("| run | chosen generation | its mBB/hand per training opponent | the last champion's |")
    print("|---|---|---|---|")
    with get_backend("multiprocess", workers=args.workers) as backend:
        for path in args.runs:
            run = load_run(path)
            try:
                given = {"validate_rule": args.rule, "validate_finalists": args.finalists,
                         "validate_final_matches": args.final_matches, "targets": targets,
                         "average_windows": windows, "average_floors": floors,
                         "average_matches": args.average_matches, "champion_raising_ranges": ranges}
                cfg = replace(run.config, validate_window=args.window, validate_matches=args.matches,
                              **{k: v for k, v in given.items() if v is not None})
            except ValueError as err:
                ap.error(f"{path}: {err}")
            first = None
            if args.reuse_first_stage:
                if run.validation is None or args.seed is not None or run.config.validate_matches != args.matches:
                    ap.error(f"{path}: --reuse-first-stage needs a run validated on its own decks with --matches "
                             f"{args.matches} (and no --seed)")
                first = run.validation
            try:
                v = validate(cfg, list(run.records["champion"]), backend, args.seed, first_stage=first,
                             averages_seed=args.average_seed, ranges_seed=args.raising_seed)
            except ValueError as err:
                ap.error(f"{path}: {err}")
            b = list(v["generations"]).index(v["champion"])
            cells = [" / ".join(f"{x:+,.0f}" for x in v["mbb"][i]) for i in (b, -1)]
            if "finalists" in v:      # the finalists' own decks decided: show those
                row = v["final_mbb"][list(v["finalists"]).index(v["champion"])]
                cells[0] = " / ".join(f"{x:+,.0f}" for x in row) + " (finalists' decks)"
            choice = v["champion"]
            if v.get("average"):      # an averaged champion replaces the chosen generation
                choice = f"average:{v['average']} (else {v['champion']})"
                row = v["average_mbb"][list(v["averages"]).index(v["average"])]
                cells[0] = " / ".join(f"{x:+,.0f}" for x in row) + " (averages' decks)"
            if "raising_ranges" in v and v["raising_range"] != cfg.raising_range:
                choice = f"{choice} at raising range {v['raising_range']:g}"
                row = v["raising_mbb"][list(v["raising_ranges"]).index(v["raising_range"])]
                cells[0] = " / ".join(f"{x:+,.0f}" for x in row) + " (raising ranges' decks)"
            print(f"| {path} | {choice} | {cells[0]} | {cells[1]} |", flush=True)
            results.append({"run": path, "opponents": list(cfg.opponents), "rule": cfg.validate_rule,
                            "targets": None if cfg.targets is None else list(cfg.targets),
                            "champion": v["champion"], "average": v.get("average", 0),
                            "raising_range": v.get("raising_range", cfg.raising_range),
                            **{k: v[k].tolist() for k in VALIDATION_RECORDS if k in v}})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "window": args.window, "matches": args.matches, "rule": args.rule,
                       "finalists": args.finalists, "final_matches": args.final_matches,
                       "average_windows": windows, "average_floors": floors, "average_matches": args.average_matches,
                       "average_seed": args.average_seed, "champion_raising_ranges": ranges,
                       "raising_seed": args.raising_seed, "results": results},
                      f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
