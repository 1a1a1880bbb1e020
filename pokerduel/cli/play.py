"""``pokerduel play``: a duplicate match between two players."""

from __future__ import annotations

import json
import math
import sys
import time

import click
import numpy as np

from ._outputs import check_output


class PlayerSpec(click.ParamType):
    """A player name such as ``calling-machine``; bad names are usage errors (exit code 2)."""

    name = "player"

    def convert(self, value, param, ctx):
        from ..players.base import make_player

        try:
            return make_player(value)
        except ValueError as err:
            self.fail(str(err), param, ctx)


#: most duplicate deals of one command (beyond this the deal counter nears the engine's 64-bit range; a
#: trillion deals take years)
MAX_DEALS = 10**12
#: deals per engine call: the match is played in blocks of one continuing match, so memory stays small
#: (16 MiB of payoffs, or the hand records of 4096 deals with --phh) whatever ``--deals`` is
BLOCK, RECORD_BLOCK = 1 << 20, 4096


class _Tally:
    """Exact running sums of the per-deal samples (integer chips): the result without keeping every deal."""

    def __init__(self):
        self.n = self.s1 = self.s2 = self.invalid = 0

    def add(self, result) -> None:
        x = result.samples.astype(np.int64)
        self.n += len(x)
        self.s1 += int(x.sum())
        self.s2 += int(np.dot(x, x))
        self.invalid += result.invalid_actions

    def mbb_per_hand(self) -> tuple[float, float]:
        """Mean in mBB/hand and the 95% half-width, as ``DuplicateResult.mbb_per_hand`` computes them."""
        from ..engine.rules import BIG_BLIND

        scale = 1000 / 2 / BIG_BLIND
        if self.n < 2:
            return self.s1 / self.n * scale, float("nan")
        var = (self.n * self.s2 - self.s1 ** 2) / (self.n * (self.n - 1))
        return self.s1 / self.n * scale, 1.96 * math.sqrt(var) / math.sqrt(self.n) * scale


def play_blocks(a, b, deals, seed, hs_samples=None, records=False, progress=None):
    """The results of ``play_duplicate(a, b, deals, seed)`` in blocks of consecutive deals of one continuing
    match (the same hands as one call), so that no block holds more than ``BLOCK`` deals."""
    from ..play.matches import play_duplicate, reset_memory

    memory = (*a.new_memory(), *b.new_memory())
    reset_memory(a.kind, a.params, memory[0], memory[1])
    reset_memory(b.kind, b.params, memory[2], memory[3])
    block = RECORD_BLOCK if records else BLOCK
    extra = {} if hs_samples is None else {"hs_samples": hs_samples}
    for first in range(0, deals, block):
        yield play_duplicate(a, b, min(block, deals - first), seed, first_deal=first, records=records,
                             memory=memory, progress=progress, chunk=2048, **extra)


@click.command()
@click.option("--a", "a", type=PlayerSpec(), default="calling-machine", show_default=True, help="Player A.")
@click.option("--b", "b", type=PlayerSpec(), default="hothead-maniac", show_default=True, help="Player B.")
@click.option("--deals", type=click.IntRange(1, MAX_DEALS), default=10_000, show_default=True,
              help="Duplicate deals; each is two hands with the seats swapped (at most 10^12).")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True, help="Seed of the deck stream.")
@click.option("--hs-samples", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Monte Carlo roll-outs for flop and turn hand strength.")
@click.option("--phh", type=click.Path(dir_okay=False), default=None,
              help="Write every hand to this PHH file (.phhs, pokerkit's format).")
@click.option("--overwrite", is_flag=True, help="Replace an existing --phh file.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
def play(a, b, deals, seed, hs_samples, phh, overwrite, as_json):
    """Play a duplicate match and print A's result in mBB/hand with a 95% confidence interval."""
    from .. import __version__

    if phh is not None:
        check_output(phh, "--phh", overwrite=overwrite)
    tally = _Tally()
    t0 = time.perf_counter()
    with click.progressbar(length=deals, label=f"{a.name} vs {b.name}", file=sys.stderr,
                           show_eta=True, show_pos=True) as bar:
        blocks = play_blocks(a, b, deals, seed, hs_samples, records=phh is not None, progress=bar.update)
        if phh is None:
            for result in blocks:
                tally.add(result)
        else:
            from ..engine.histories import write_phhs

            def hands():
                for result in blocks:
                    tally.add(result)
                    yield from result.records

            write_phhs(phh, hands())
    seconds = time.perf_counter() - t0
    mean, ci = tally.mbb_per_hand()
    n_hands = 2 * tally.n
    if as_json:
        click.echo(json.dumps({
            "a": a.name, "b": b.name, "deals": deals, "hands": n_hands, "seed": seed,
            "mbb_per_hand": mean, "ci95": ci, "chips_per_deal": tally.s1 / tally.n,
            "invalid_actions": tally.invalid, "seconds": seconds, "version": __version__,
        }))
        return
    click.echo(f"{a.name} vs {b.name}: {mean:+.1f} ± {ci:.1f} mBB/hand (95% CI) for {a.name} "
               f"over {n_hands} hands ({deals} duplicate deals, seed {seed}) in {seconds:.2f} s")
    if phh is not None:
        click.echo(f"wrote {n_hands} hands to {phh}")
