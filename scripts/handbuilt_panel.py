"""The hand-built reference genome against the training and held-out bots, for several calling ranges.

The same test decks and statistics as ``scripts/evolution_champions.py`` (500 duplicate deals per bot,
mBB/hand with a 95% interval), so the rows compare with the evolved champions' there. The hand-built
genome is a fixed rule (SWRE follows hand strength, OFRE the PRT's fold rate; ``docs/players.md``), so
this isolates the decision rule's ``calling_range``.

    python scripts/handbuilt_panel.py --calling-range 0 0.5 0.75 1
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from evolution_champions import TEST_SEED, style  # noqa: E402

from pokerduel.players.base import HELDOUT_BOTS, TRAINING_BOTS, make_player  # noqa: E402
from pokerduel.players.genomes import AsheSettings, ashe_player, handbuilt_genome  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calling-range", type=float, nargs="+", default=[0.0, 1.0])
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--prt-capacity", type=int, default=1024, help="as in evolution runs (their default)")
    args = ap.parse_args(argv)
    bots = (*TRAINING_BOTS, *HELDOUT_BOTS)
    print("| calling_range | " + " | ".join(bots) + " |")
    print("|---|" + "---|" * len(bots))
    for rho in args.calling_range:
        settings = AsheSettings(prt_capacity=args.prt_capacity, calling_range=rho)
        player = ashe_player(handbuilt_genome(settings), settings, name=f"handbuilt(calling_range={rho:g})")
        cells = []
        for bot in bots:
            r = style(player, make_player(bot), args.deals, TEST_SEED)
            cells.append(f"{r['mean']:+,.0f} ± {r['ci']:,.0f}")
        print(f"| {rho:g} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
