"""The ``pokerduel`` command line. Subcommands live in sibling modules and import heavy code lazily."""

from __future__ import annotations

import signal

import click

from .. import __version__
from ._errors import Stopped
from .acpc import acpc_client, dealer
from .bandit_study import copeland as study_copeland
from .bandit_study import savage as study_savage
from .bench import bench
from .evolve import evolve
from .ground_truth import ground_truth
from .play import play
from .plot import plot
from .population import population
from .study import study


class _Commands(click.Group):
    """The command group: every command runs ``parallel.interruptible``, so that Ctrl-C or SIGTERM ends it
    within a second or so with its outputs intact (written atomically, or checkpointed) and no traceback."""

    def invoke(self, ctx):
        from ..infra.parallel import interruptible

        with interruptible():
            try:
                return super().invoke(ctx)
            except KeyboardInterrupt as err:
                raise Stopped("stopped; finished outputs and checkpoints are kept",
                              getattr(err, "signum", signal.SIGINT)) from None


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pokerduel")
def main():
    """Heads-up no-limit hold'em tournaments, evolved players and top-k selection."""


main.add_command(play)
main.add_command(bench)
main.add_command(population)
main.add_command(study)
main.add_command(ground_truth)
main.add_command(plot)
main.add_command(evolve)
main.add_command(acpc_client)
main.add_command(dealer)
study.add_command(study_copeland)
study.add_command(study_savage)
