"""Champions over many independent matches: the spread of whole-match results, not only one match's mean.

An ASHE player adapts through its memory of the opponent (PRT and street aggregates), so one match's
result depends on the deck sequence that shaped the memory early on, not only on the cards. A champion
can do well in most matches and fall into a losing pattern for a whole match in others
(``docs/results/evolution.md`` §1). This plays each champion ``--matches`` independent duplicate matches of
``--deals`` deals (memories fresh for every match, deck seeds spawned from ``--seed``) against each
opponent and reports the mean over matches with a 95% t interval, the worst match, and the share of
matches the champion lost. ``--explore`` plays the champions with that exploration share instead of their
run's (``docs/players.md``, *Exploration*), ``--raising-range`` at that raising range (*The raising range*).
Twenty matches leave a champion's interval against the Hothead Maniac at about ±780 to ±2,630 mBB/hand, 400 at
±250 to ±550: to tell whether it reaches Table 2, use a few hundred (``docs/results/evolution.md`` §2,
*Measured precisely*).

    python scripts/champion_matches.py runs/ashe1/seed*.h5 --opponents hothead-maniac --matches 20 [--explore 0.05]
    python scripts/champion_matches.py reader reader-folds --matches 20   # hand-made players, measured alike
    python scripts/champion_matches.py reader-steady reader-river --lookahead   # as table2 starts from them
    python scripts/champion_matches.py runs/ashe1/seed1.h5:champion:200   # generation 200's champion
    python scripts/champion_matches.py runs/anchor_m/seed1.h5:zeros   # the all-zero genome (with anchored: the anchors)
    python scripts/champion_matches.py runs/scratch/seed1.h5:average:50   # the mean of the last 50 champions
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace

import numpy as np
from scipy.stats import t as t_dist

from pokerduel.evolution.evolve import average_genome, load_run, resolve_opponent
from pokerduel.infra.parallel import get_backend
from pokerduel.play.matches import play_duplicate
from pokerduel.players.base import TRAINING_BOTS
from pokerduel.players.genomes import HANDMADE, ashe_player, handmade_settings

#: decks no run trains on and no champion test uses (``evolution_champions.TEST_SEED`` is 909,090,909)
MATCHES_SEED = 909_090_913


def match_seeds(seed: int, matches: int) -> list[int]:
    """One deck seed per match, from ``SeedSequence(seed)``."""
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(matches, np.uint64) >> np.uint64(1)]


def _play(task):
    (settings, genome), opponent, deals, seed = task
    return play_duplicate(ashe_player(genome, settings), resolve_opponent(opponent), deals, seed).mbb_per_hand()[0]


def over_matches(player, opponent: str, seeds: list[int], deals: int, backend) -> dict:
    """The results of ``player``, ``(settings, genome)``, against ``opponent`` in one match
    of ``deals`` deals per deck seed, summarised."""
    tasks = [(player, opponent, deals, s) for s in seeds]
    out = [0.0] * len(tasks)
    for i, value in backend.map_unordered(_play, tasks):
        out[i] = value
    return summarise(out)


def opponent_specs(ap: argparse.ArgumentParser, text: str) -> list[str]:
    """The comma-separated opponent specs of ``text``; a usage error (exit 2) names an unknown one."""
    specs = [o for o in text.split(",") if o]
    for o in specs:
        try:
            resolve_opponent(o)
        except ValueError as err:
            ap.error(str(err))
    return specs


def summarise(results) -> dict:
    x = np.asarray(results, dtype=np.float64)
    half = float(t_dist.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)))
    return {"mean": float(x.mean()), "ci": half, "worst": float(x.min()), "lost": float((x < 0).mean()),
            "matches": x.tolist()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="evolution run files (their champions), RUN.h5:champion:G (generation "
                    "G's), RUN.h5:average:W (the mean genome of the last W generations' champions), RUN.h5:zeros "
                    "(the all-zero genome with the run's settings) or hand-made player specs")
    ap.add_argument("--opponents", default=",".join(TRAINING_BOTS), help="comma-separated opponent specs")
    ap.add_argument("--matches", type=int, default=20)
    ap.add_argument("--deals", type=int, default=500, help="duplicate deals per match")
    ap.add_argument("--seed", type=int, default=MATCHES_SEED)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--explore", type=float, default=None,
                    help="play the champions with this exploration share (default: their run's)")
    ap.add_argument("--raising-range", type=float, default=None,
                    help="play the champions with this raising range (default: their run's)")
    ap.add_argument("--lookahead", action="store_true",
                    help="play the hand-made players with the lookahead setting, as the refine and table2 presets "
                         "evolve from them")
    ap.add_argument("--json", default=None, help="write every match's result here")
    args = ap.parse_args(argv)
    if args.matches < 2 or args.deals < 1:
        ap.error("--matches must be at least 2 (an interval over matches) and --deals at least 1")
    opponents = opponent_specs(ap, args.opponents)
    seeds = match_seeds(args.seed, args.matches)
    out = {}
    print(f"| champion | opponent | mean of {args.matches} matches ± 95% (t) | worst match | matches lost |")
    print("|---|---|---|---|---|")
    with get_backend("multiprocess", workers=args.workers) as backend:
        for path in args.runs:
            if path in HANDMADE:
                if args.explore is not None or args.raising_range is not None:
                    ap.error("--explore and --raising-range apply to run files' champions, not to hand-made players")
                settings = replace(handmade_settings(path), lookahead=args.lookahead)
                player = (settings, HANDMADE[path](settings))
            else:
                if args.lookahead:
                    ap.error("--lookahead applies to hand-made players; a run's champions play with its settings")
                zeros = path.endswith(":zeros")  # RUN.h5:zeros, the all-zero genome with the run's settings
                file, _, generation = path.removesuffix(":zeros").partition(":champion:")  # RUN.h5:champion:G
                file, _, window = file.partition(":average:")  # RUN.h5:average:W
                run = load_run(file)
                # the run's champion plays as the run chose (its raising range); the others with the run's settings
                settings = run.config.settings if zeros or window or generation else run.champion_settings
                overrides = {"explore": args.explore, "raising_range": args.raising_range}
                try:
                    settings = replace(settings, **{k: v for k, v in overrides.items() if v is not None})
                except ValueError as err:
                    ap.error(str(err))
                if zeros:
                    player = (settings, np.zeros(settings.genome_size, np.float32))
                elif window:
                    if not window.isdigit() or int(window) < 1:  # wider than the run: all its champions
                        ap.error(f"{path}: expected RUN.h5:average:W with a whole number W >= 1")
                    player = (settings, average_genome(run.records["champion"], int(window)))
                elif generation:
                    g = int(generation)
                    if not 1 <= g <= run.completed:
                        ap.error(f"{file} has champions of generations 1..{run.completed}, not {g}")
                    player = (settings, run.records["champion"][g - 1])
                else:
                    player = (settings, run.champion)
            for opp in opponents:
                r = out.setdefault(path, {})[opp] = over_matches(player, opp, seeds, args.deals, backend)
                print(f"| {path} | {opp} | {r['mean']:+,.0f} ± {r['ci']:,.0f} | {r['worst']:+,.0f} | "
                      f"{100 * r['lost']:.0f} % |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"deals": args.deals, "seed": args.seed, "explore": args.explore,
                       "raising_range": args.raising_range, "lookahead": args.lookahead,
                       "results": out}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
