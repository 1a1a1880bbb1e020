"""What generation 0's noise and TSER's mutation do to a hand-made player or a run's champion: each perturbed
copy (``--mutants`` of them) plays ``--matches`` independent duplicate matches against each opponent, and the
table gives the mean, worst and best copy in mBB/hand next to the unperturbed player on the same decks.

The opponents default to the two training bots whose results move most; the held-out panel is left out on
purpose, since this is where the mutation schedule for hand-made starts was chosen (``docs/results/evolution.md``
§2, *Mutation load*).

    python scripts/mutation_damage.py --init reader-steady --lookahead
    python scripts/mutation_damage.py --run runs/ashe1/seed1.h5 --noise --mutation 0.05,0.1 \
        --opponents scared-limper,calling-machine,hothead-maniac,candid-statistician
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import numpy as np

from pokerduel.evolution.evolve import load_run
from pokerduel.evolution.reproduction import mutate
from pokerduel.play.matches import play_duplicate
from pokerduel.players.base import make_player, split_specs
from pokerduel.players.genomes import HANDMADE, ashe_player, handmade_settings, random_genome


def pairs(text: str) -> tuple[float, float]:
    rate, _, sigma = text.partition(",")
    return float(rate), float(sigma)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--init", default="reader-steady", choices=sorted(HANDMADE))
    ap.add_argument("--run", metavar="RUN.h5", help="perturb this run's champion, with its settings, "
                    "instead of a hand-made genome")
    ap.add_argument("--lookahead", action="store_true", help="play with the lookahead setting")
    ap.add_argument("--noise", type=float, nargs="*", default=[0.1, 0.03],
                    help="generation 0's uniform noise half-widths (--init-range -A A)")
    ap.add_argument("--mutation", type=pairs, nargs="*", default=[(0.25, 0.5), (0.1, 0.2), (0.05, 0.1)],
                    metavar="RATE,SIGMA", help="one TSER mutation of every gene with probability RATE by N(0, SIGMA)")
    ap.add_argument("--opponents", default="hothead-maniac,candid-statistician")
    ap.add_argument("--mutants", type=int, default=8)
    ap.add_argument("--matches", type=int, default=4)
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--seed", type=int, default=300, help="deck seed of the first match (then +1, +2, ...)")
    args = ap.parse_args(argv)
    if args.run:
        run = load_run(args.run)
        settings, label = run.config.settings, f"{args.run}:champion"
        genome = run.champion.astype(np.float32)
    else:
        settings, label = handmade_settings(args.init), args.init
        genome = HANDMADE[args.init](settings).astype(np.float32)
    settings = replace(settings, lookahead=settings.lookahead or args.lookahead)
    opponents = [make_player(spec) for spec in split_specs(args.opponents)]
    rng = np.random.default_rng(np.random.SeedSequence(args.seed))
    rows = [("unperturbed", lambda: genome, 1)]  # (name, a perturbed copy, how many copies)
    rows += [(f"noise ±{a:g}", lambda a=a: genome + random_genome(settings, rng, -a, a), args.mutants)
             for a in args.noise]
    rows += [(f"mutation rate {r:g}, sigma {s:g}", lambda r=r, s=s: mutate(genome, r, s, rng), args.mutants)
             for r, s in args.mutation]

    def score(player, opponent) -> float:
        return float(np.mean([play_duplicate(player, opponent, args.deals, seed=args.seed + m).mbb_per_hand()[0]
                              for m in range(args.matches)]))

    print("| copies of " + label + " | " + " | ".join(f"{o.name}: mean (worst, best)" for o in opponents) + " |")
    print("|---|" + "---|" * len(opponents))
    for name, draw, n in rows:
        copies = [ashe_player(draw(), settings) for _ in range(n)]
        cells = []
        for o in opponents:
            x = np.array([score(p, o) for p in copies])
            cells.append(f"{x.mean():+,.0f}" + ("" if len(x) == 1 else f" ({x.min():+,.0f}, {x.max():+,.0f})"))
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
