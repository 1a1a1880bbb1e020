"""The reader genome against the training opponents, for several reader weights, with and without ``read_raises``,
and for several fold-reader weights (``reader_genome(fold_reader=...)``), with and without ``read_reraises``.

Each row plays one duplicate match of ``--deals`` deals against each opponent on the decks of ``--seed`` and
prints mBB/hand with a 95% interval. The opponents default to the four ASHE 1.0 bots and the two hand-made
players whose raises facing a bet mean a strong hand; the held-out panel is left out on purpose, since
this table is where the reader and fold-reader weights were chosen (``docs/players.md``, *Reading raises*,
*Reading re-raises*).

    python scripts/reader_table.py --reader 0.5 1 2 --fold-reader 0.5 1
"""

from __future__ import annotations

import argparse

from pokerduel.play.matches import play_duplicate
from pokerduel.players.base import TRAINING_BOTS, make_player, split_specs
from pokerduel.players.genomes import AsheSettings, ashe_player, patient_genome, reader_genome


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reader", type=float, nargs="+", default=[0.5, 1.0, 2.0], help="reader weights to compare")
    ap.add_argument("--fold-reader", type=float, nargs="*", default=[0.5, 1.0],
                    help="fold-reader weights to compare (with reader weight 1 and read_raises)")
    ap.add_argument("--opponents", default=",".join((*TRAINING_BOTS, "handbuilt", "patient")))
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=12345)
    args = ap.parse_args(argv)
    opponents = [make_player(spec) for spec in split_specs(args.opponents)]
    own, read = AsheSettings(prt_capacity=1024), AsheSettings(prt_capacity=1024, read_raises=True)
    rows = {"patient": ashe_player(patient_genome(own), own)}
    for r in args.reader:
        rows[f"reader {r:g}, own calls"] = ashe_player(reader_genome(own, reader=r), own)
        rows[f"reader {r:g}, read_raises"] = ashe_player(reader_genome(read, reader=r), read)
    both = AsheSettings(prt_capacity=1024, read_raises=True, read_reraises=True)
    for f in args.fold_reader:
        rows[f"reader 1, fold reader {f:g}, read_raises"] = ashe_player(reader_genome(read, fold_reader=f), read)
        rows[f"reader 1, fold reader {f:g}, read_raises, read_reraises"] = ashe_player(
            reader_genome(both, fold_reader=f), both)
    print("| player | " + " | ".join(o.name for o in opponents) + " |")
    print("|---|" + "---|" * len(opponents))
    for name, player in rows.items():
        cells = []
        for o in opponents:
            m, h = play_duplicate(player, o, args.deals, seed=args.seed).mbb_per_hand()
            cells.append(f"{m:+,.0f} ± {h:,.0f}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
