"""Output paths of the commands, checked before any work starts.

A path that cannot be written fails at once (not after an hour of play), a missing folder is created, and
no command replaces a file that is not its own kind of result without ``--overwrite``: result files
(HDF5) may replace only a file of their own format, plots, logs and reports no existing file at all.
The files themselves are written atomically once the work is done (``storage.atomic_path``).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

OVERWRITE_HELP = "Replace existing output files of any kind."


def check_output(path, option: str, *, overwrite: bool, kind: str | None = None) -> str:
    """Check that the command may write ``path`` (given as ``option``); return it.

    ``kind`` is the result format the command writes (``storage.stamp``): an existing file of that format
    may be replaced (the command itself decides whether it reuses, continues or refuses it); without
    ``kind`` (plots, logs, reports) or for a file of any other kind, ``overwrite`` is needed. The folder is
    created if missing and must take a new file. A bad path is a usage error (``click.BadParameter``).
    """
    p = Path(path)
    if p.is_dir():
        raise click.BadParameter(f"{path} is a folder; give a file name", param_hint=option)
    if p.exists() and not overwrite:
        if kind is None:
            raise click.BadParameter(f"{path} exists; pass --overwrite to replace it, or choose another name",
                                     param_hint=option)
        from ..infra.storage import file_format

        found = file_format(p)
        if found != kind and not _damaged_hdf5(p):
            what = f"is a {found} file, not a {kind} one" if found else f"is not a {kind} file"
            raise click.BadParameter(f"{path} exists and {what}; pass --overwrite to replace it, or choose another "
                                     "name", param_hint=option)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".pokerduel-probe.", dir=p.parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise click.BadParameter(f"cannot write {path}: {err.strerror or err}", param_hint=option) from None
    return str(path)


def _damaged_hdf5(path) -> bool:
    """An HDF5 file that cannot be opened (a truncated result): the command's own checks report it, since it
    may be a damaged file of the command's kind."""
    import h5py

    try:
        with open(path, "rb") as fh:
            if fh.read(8) != b"\x89HDF\r\n\x1a\n":
                return False
        with h5py.File(path, "r"):
            return False
    except OSError:
        return True


def check_image(path, option: str, *, overwrite: bool, png_only: bool = False) -> str:
    """``check_output`` for a figure, whose suffix must also be an image format it can be drawn in (PNG
    alone for ``png_only``)."""
    from ..infra.figures import image_format

    try:
        fmt = image_format(path)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint=option) from None
    if png_only and fmt != "png":
        raise click.BadParameter(f"this figure is drawn as PNG; give a .png name, not {path}", param_hint=option)
    return check_output(path, option, overwrite=overwrite)
