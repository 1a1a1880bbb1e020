"""How often a player moves all-in, how often each opponent calls it, and what that costs.

Plays duplicate matches with hand records and counts, per opponent, the hands in which the player raised
to its whole stack, the share of those the opponent called, the player's chips in the called ones, and
how many of the hands it lost by 5,000 chips or more had its all-in (``docs/results/evolution.md`` §2).

    python scripts/champion_allins.py runs/ashe1/seed1.h5:champion
    python scripts/champion_allins.py runs/ashe1/seed1.h5:champion --opponents pot-odds,hothead-maniac --deals 200
"""

from __future__ import annotations

import argparse
import sys

from pokerduel.engine.rules import FOLD, RAISE, STACK
from pokerduel.play.matches import play_duplicate
from pokerduel.players.base import HELDOUT_BOTS, TRAINING_BOTS, make_player, split_specs

TEST_SEED = 909_090_909  # the test decks of scripts/evolution_champions.py


def allin_stats(player, opponent, deals: int, seed: int) -> dict:
    r = play_duplicate(player, opponent, deals, seed, records=True)
    me = r.names[0]
    n = shoves = called = called_chips = lost = lost_with = total = 0
    for rec in r.records:
        seat = rec.names.index(me)
        chips = rec.payoffs[seat]
        total += chips
        n += 1
        acts = rec.actions
        first = next((i for i, a in enumerate(acts) if a[1] == seat and a[2] == RAISE and a[3] == STACK), None)
        if first is not None:
            shoves += 1
            if any(a[1] != seat and a[2] != FOLD for a in acts[first + 1:]):
                called += 1
                called_chips += chips
        if chips <= -5000:
            lost += 1
            lost_with += first is not None
    return {"mbb": 10.0 * total / n, "allin": shoves / n, "called": called / max(shoves, 1),
            "called_chips": called_chips / max(called, 1), "lost_with_allin": lost_with / max(lost, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("player", help="a player spec, e.g. RUN.h5:champion")
    ap.add_argument("--opponents", default=",".join(TRAINING_BOTS + HELDOUT_BOTS))
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--seed", type=int, default=TEST_SEED)
    args = ap.parse_args(argv)
    player = make_player(args.player)
    print("| opponent | mBB/hand | player all-in in | opponent calls the all-in | player's chips when called "
          "| hands lost by >= 5,000 chips that had its all-in |")
    print("|---|---|---|---|---|---|")
    for spec in split_specs(args.opponents):
        s = allin_stats(player, make_player(spec), args.deals, args.seed)
        print(f"| {spec} | {s['mbb']:+,.0f} | {s['allin']:.1%} of hands | {s['called']:.1%} | "
              f"{s['called_chips']:+,.0f} | {s['lost_with_allin']:.0%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
