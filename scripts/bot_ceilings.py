"""How much simple rules win against the ASHE 1.0 bots: a floor under the best response, for Table 2.

References per training bot, in mBB/hand with 95% intervals:

* **pot-odds rule**: the held-out panel's pot-odds player (fold when the hand strength is below the pot
  odds ``q``, raise ``size`` pots when it is at least ``q + margin (1 - q)``, otherwise check or call),
  its ``margin`` and ``size`` chosen on ``--deals`` tuning deals and then measured on as many fresh
  ones (a different deck seed), so the reported figure is not flattered by the choice;
* **one-step rule with calibrated estimates**: the ASHE player's decision rule (``players/ashe.py``,
  one-step expected utility) with SWRE close to the hand strength and OFRE to the PRT node's fold rate
  (``genomes.patient_genome`` in its linear range, ``scale=0.1``, without its raise penalty);
* the hand-made genomes ``patient_genome()`` (the same, but raising with a margin when facing a bet) and
  ``handbuilt_genome()``;
* the calibrated one-step rule and the hand-built genome with ``call_option`` (a check or call valued with the
  choices it keeps, ``docs/players.md``, *The call's option*);
* ``anchored`` estimators whose every output is 1/2 (all-zero weights), so that the estimates are the anchors:
  SWRE the hand strength, OFRE the PRT's shrunk fold rate (``docs/players.md``, *Anchored estimators*); alone,
  with ``call_option``, with ``call_option`` and ``option_range = 1`` (*The option's ranges*), and with
  ``raising_range = 1`` (SWRE's anchor facing a raise: the win rate against the raising hands, *The raising
  range*), alone and with ``call_option``.

And, exactly (no simulation), the best rule that plays the Hothead Maniac before the flop only: move all-in
with the hands of highest preflop hand strength, fold the rest. The Maniac calls any all-in and raises every
other action, so a hand all-in preflop is worth ``(2 HS - 1) * stack`` and a fold the blind it leaves (75
chips on average); this is the most a player can win from the Maniac without seeing a flop.

What a champion needs beyond the one-step rule with true estimates is what its evolved estimators must
absorb (``docs/results/evolution.md`` §1). The pot-odds player is a held-out bot: this script only
measures it as a rule against the *training* bots; no training run uses it.

    python scripts/bot_ceilings.py --deals 20000
"""

from __future__ import annotations

import argparse
import itertools
import json
from dataclasses import replace

import numpy as np

from pokerduel.engine.rules import BIG_BLIND, SMALL_BLIND, STACK
from pokerduel.play.matches import deal_strengths, play_duplicate
from pokerduel.players.base import TRAINING_BOTS, pot_odds
from pokerduel.players.genomes import AsheSettings, ashe_player, handbuilt_genome, patient_genome
from pokerduel.players.hand_strength import PREFLOP_HS

TUNE_SEED, TEST_SEED = 4_040_404, 5_050_505  # deck seeds of the tuning and the measuring deals
MARGINS = (0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8)
SIZES = (0.5, 1.0, 2.0, 1000.0)  # pots; 1,000 pots is the all-in


def measure(player, bot, n_deals, seed, strengths):
    m, h = play_duplicate(player, bot, n_deals, seed, strengths=strengths).mbb_per_hand()
    return float(m), float(h)


def preflop_allin_ceiling():
    """``(mBB/hand, share of hands, lowest hand strength)`` of the best all-in-or-fold rule against the Hothead
    Maniac, exact over the 1,326 starting hands (``PREFLOP_HS``: pairs 6 combinations, suited 4, offsuit 12)."""
    ranks = np.arange(13)
    hs = PREFLOP_HS.ravel()
    combos = np.where(ranks[:, None] == ranks[None, :], 6, np.where(ranks[:, None] > ranks[None, :], 4, 12)).ravel()
    order = np.argsort(-hs, kind="stable")
    share = np.cumsum(combos[order]) / combos.sum()
    folded = (SMALL_BLIND + BIG_BLIND) / 2  # the blind a fold leaves, on average over the two seats
    chips = np.cumsum(combos[order] * (2 * hs[order] - 1)) / combos.sum() * STACK - (1 - share) * folded
    k = int(chips.argmax())
    return float(chips[k] * 10), float(share[k]), float(hs[order][k])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=20000, help="duplicate deals to tune on, and as many to measure on")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    if args.deals < 2:
        ap.error("--deals must be at least 2")
    tune_s = deal_strengths(TUNE_SEED, args.deals)
    test_s = deal_strengths(TEST_SEED, args.deals)
    settings = AsheSettings(prt_capacity=1024)
    option = replace(settings, call_option=True)
    anchored, anchored_option = replace(settings, anchored=True), replace(option, anchored=True)
    # all-zero weights: every estimate is its anchor
    anchor_settings = {"anchors": anchored, "anchors, call_option": anchored_option,
                       "anchors, call_option, option_range 1": replace(anchored_option, option_range=1.0),
                       "anchors, raising_range 1": replace(anchored, raising_range=1.0),
                       "anchors, call_option, raising_range 1": replace(anchored_option, raising_range=1.0)}
    players = {"one-step rule, calibrated": ashe_player(patient_genome(settings, 0.1, 0.0), settings),
               "patient genome": ashe_player(patient_genome(settings), settings),
               "hand-built genome": ashe_player(handbuilt_genome(settings), settings),
               "calibrated, call_option": ashe_player(patient_genome(option, 0.1, 0.0), option),
               "hand-built genome, call_option": ashe_player(handbuilt_genome(option), option),
               **{name: ashe_player(np.zeros(s.genome_size), s) for name, s in anchor_settings.items()}}
    out = {}
    print(f"{args.deals:,} tuning and {args.deals:,} fresh duplicate deals per figure; mBB/hand, 95% intervals")
    for bot in TRAINING_BOTS:
        tuned = max(itertools.product(MARGINS, SIZES),
                    key=lambda ms: measure(pot_odds(*ms), bot, args.deals, TUNE_SEED, tune_s)[0])
        row = {"pot-odds rule": (*measure(pot_odds(*tuned), bot, args.deals, TEST_SEED, test_s), *tuned)}
        for name, player in players.items():
            row[name] = measure(player, bot, args.deals, TEST_SEED, test_s)
        out[bot] = row
        m, h, margin, size = row["pot-odds rule"]
        text = ", ".join(f"{name} {v[0]:+,.0f} ± {v[1]:,.0f}" for name, v in row.items() if name != "pot-odds rule")
        print(f"{bot:20s} pot-odds rule (margin {margin}, size {size:g} pots) {m:+,.0f} ± {h:,.0f}; {text}",
              flush=True)
    ceiling = preflop_allin_ceiling()
    print(f"hothead-maniac       all-in or fold before the flop, the best threshold (exact): {ceiling[0]:+,.0f} "
          f"(all-in with {ceiling[1]:.1%} of hands, hand strength >= {ceiling[2]:.3f})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"deals": args.deals, "tune_seed": TUNE_SEED, "test_seed": TEST_SEED, "results": out,
                       "maniac_preflop_allin_ceiling": dict(zip(("mbb", "share", "min_hs"), ceiling))}, f, indent=1)


if __name__ == "__main__":
    main()
