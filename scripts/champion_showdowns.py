"""Where a player's chips come from against each opponent, and how it answers the opponent's raises.

Plays duplicate matches with hand records and splits the player's result (mBB/hand) into the hands a fold
ended and the showdowns it won or lost, and counts its answers (fold / call / raise) when the opponent's
latest action in the betting round is a raise, preflop (beyond the blinds) and postflop
(``docs/results/evolution.md`` §2, why champions lose to the tight-aggressive bot).

    python scripts/champion_showdowns.py runs/hbp_hall01b/seed5.h5:champion
    python scripts/champion_showdowns.py A.h5:champion B.h5:champion --opponents tight-aggressive,candid-statistician
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from evolution_champions import TEST_SEED  # noqa: E402

from pokerduel.engine.rules import BIG_BLIND, FOLD, RAISE  # noqa: E402
from pokerduel.play.matches import play_duplicate  # noqa: E402
from pokerduel.players.base import HELDOUT_BOTS, TRAINING_BOTS, make_player, split_specs  # noqa: E402


def showdown_stats(player, opponent, deals: int, seed: int) -> dict:
    """The split of ``player``'s result against ``opponent`` and its answers to raises (see the module doc)."""
    r = play_duplicate(player, opponent, deals, seed, records=True)
    me = r.names[0]
    folded = won = lost = 0          # chips
    n_won = n_lost = 0
    answers = np.zeros((2, 3))       # (preflop, postflop) x (fold, call, raise)
    for rec in r.records:
        seat = rec.names.index(me)
        facing = {}                  # round -> whether the player faces the opponent's raise
        for rnd, actor, action, _ in rec.actions:
            if actor == seat:
                if facing.get(rnd):
                    answers[min(rnd, 1), action] += 1
                facing[rnd] = False
            else:
                facing[rnd] = action == RAISE
        chips = rec.payoffs[seat]
        if rec.actions and rec.actions[-1][2] == FOLD:
            folded += chips
        elif chips > 0:
            won, n_won = won + chips, n_won + 1
        elif chips < 0:
            lost, n_lost = lost + chips, n_lost + 1
    mbb = 1000.0 / BIG_BLIND / len(r.records)        # chips summed over the hands -> mBB/hand
    shares = answers / np.maximum(answers.sum(axis=1, keepdims=True), 1)
    return {"mbb": r.mbb_per_hand(), "folded": folded * mbb, "won": won * mbb, "n_won": n_won,
            "lost": lost * mbb, "n_lost": n_lost, "answers": answers.sum(axis=1).astype(int), "shares": shares}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("players", nargs="+", help="player specs, e.g. RUN.h5:champion")
    ap.add_argument("--opponents", default=",".join(TRAINING_BOTS + HELDOUT_BOTS))
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--seed", type=int, default=TEST_SEED)
    args = ap.parse_args(argv)
    print("| player | opponent | mBB/hand | pots a fold ended | showdowns won (hands) | showdowns lost (hands) "
          "| facing a raise preflop: fold / call / raise (n) | postflop: fold / call / raise (n) |")
    print("|---|---|---|---|---|---|---|---|")
    for spec in args.players:
        player = make_player(spec)
        for opp in split_specs(args.opponents):
            s = showdown_stats(player, make_player(opp), args.deals, args.seed)
            (mean, ci), (pf, po) = s["mbb"], s["shares"]
            won, lost = f"{s['won']:+,.0f} ({s['n_won']})", f"{s['lost']:+,.0f} ({s['n_lost']})"
            answers = [f"{a[0]:.2f} / {a[1]:.2f} / {a[2]:.2f} ({n})" for a, n in zip((pf, po), s["answers"])]
            print(f"| {spec} | {opp} | {mean:+,.0f} ± {ci:,.0f} | {s['folded']:+,.0f} | {won} | {lost} "
                  f"| {answers[0]} | {answers[1]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
