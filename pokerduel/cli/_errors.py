"""Errors of the commands beyond click's own."""

from __future__ import annotations

import signal
import sys

import click


class Stopped(click.ClickException):
    """A command ended by SIGINT or SIGTERM: one line on stderr and the shell's exit code 128 + signal."""

    def __init__(self, message: str, signum: int = signal.SIGINT):
        super().__init__(message)
        self.exit_code = 128 + int(signum)

    def show(self, file=None) -> None:
        start = "\n" if sys.stderr.isatty() else ""  # after a progress line redrawn in place
        click.echo(f"{start}interrupted ({signal.Signals(self.exit_code - 128).name}): {self.message}", err=True)


def stopped_run(out, generations: int, err: BaseException) -> Stopped:
    """The ``Stopped`` of an interrupted evolution: how many generations its run file keeps."""
    try:
        import h5py

        with h5py.File(out, "r") as f:
            kept = f"{out} holds {int(f.attrs['completed'])}/{generations} generations; the same command with --resume " \
                   "continues"
    except (OSError, KeyError, ValueError):
        kept = f"no generation finished, {out} not written"
    return Stopped(kept, getattr(err, "signum", signal.SIGINT))
