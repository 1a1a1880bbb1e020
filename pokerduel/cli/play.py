"""``pokerduel play``: a duplicate match between two players."""

from __future__ import annotations

import json
import sys
import time

import click


class PlayerSpec(click.ParamType):
    """A player name such as ``calling-machine``; bad names are usage errors (exit code 2)."""

    name = "player"

    def convert(self, value, param, ctx):
        from ..players.base import make_player

        try:
            return make_player(value)
        except ValueError as err:
            self.fail(str(err), param, ctx)


@click.command()
@click.option("--a", "a", type=PlayerSpec(), default="calling-machine", show_default=True, help="Player A.")
@click.option("--b", "b", type=PlayerSpec(), default="hothead-maniac", show_default=True, help="Player B.")
@click.option("--deals", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Duplicate deals; each is two hands with the seats swapped.")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True, help="Seed of the deck stream.")
@click.option("--hs-samples", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Monte Carlo roll-outs for flop and turn hand strength.")
@click.option("--phh", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write every hand to this PHH file (.phhs, pokerkit's format).")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
def play(a, b, deals, seed, hs_samples, phh, as_json):
    """Play a duplicate match and print A's result in mBB/hand with a 95% confidence interval."""
    from .. import __version__
    from ..matches import play_duplicate

    t0 = time.perf_counter()
    with click.progressbar(length=deals, label=f"{a.name} vs {b.name}", file=sys.stderr,
                           show_eta=True, show_pos=True) as bar:
        result = play_duplicate(a, b, deals, seed, hs_samples=hs_samples, records=phh is not None,
                                progress=bar.update, chunk=2048)
    seconds = time.perf_counter() - t0
    mean, ci = result.mbb_per_hand()
    if phh is not None:
        from ..engine.histories import write_phhs

        write_phhs(phh, result.records)
    if as_json:
        click.echo(json.dumps({
            "a": a.name, "b": b.name, "deals": deals, "hands": result.n_hands, "seed": seed,
            "mbb_per_hand": mean, "ci95": ci, "chips_per_deal": float(result.samples.mean()),
            "invalid_actions": result.invalid_actions, "seconds": seconds, "version": __version__,
        }))
        return
    click.echo(f"{a.name} vs {b.name}: {mean:+.1f} ± {ci:.1f} mBB/hand (95% CI) for {a.name} "
               f"over {result.n_hands} hands ({deals} duplicate deals, seed {seed}) in {seconds:.2f} s")
    if phh is not None:
        click.echo(f"wrote {result.n_hands} hands to {phh}")
