"""Result files: atomic HDF5 writes and self-describing attributes (format, version, config as JSON).

Files are written to a temporary name in the target folder and renamed into place, so a crash never
leaves a half-written file under the final name. Nothing is ever unpickled: configs are JSON strings.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

import h5py

from .. import __version__


@contextlib.contextmanager
def atomic_path(path):
    """A temporary path in ``path``'s folder (created if missing) that is renamed to ``path`` only once the
    block succeeds; on any error or interrupt it is removed and ``path`` is left as it was. A block that
    removes the temporary file itself writes nothing."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        yield tmp
        if not os.path.exists(tmp):
            return
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the file the permissions of a normal one
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_h5(path):
    """Open a new HDF5 file for writing that appears at ``path`` only once the block succeeds (its folder is
    created if missing)."""
    with atomic_path(path) as tmp, h5py.File(tmp, "w") as f:
        yield f


def stamp(f: h5py.File, fmt: str, format_version: int, **config) -> None:
    """Write the file's identity: format name and version, pokerduel version, and ``config`` as JSON."""
    f.attrs["format"] = fmt
    f.attrs["format_version"] = format_version
    f.attrs["pokerduel_version"] = __version__
    f.attrs["config"] = json.dumps(config, sort_keys=True)


def plain_attrs(obj) -> dict:
    """An HDF5 object's attributes as plain Python values (numpy scalars unwrapped)."""
    return {k: (v.item() if hasattr(v, "item") else v) for k, v in obj.attrs.items()}


def file_format(path) -> str | None:
    """The ``format`` attribute of the pokerduel result file at ``path``; ``None`` for any other file."""
    try:
        with h5py.File(path, "r") as f:
            fmt = f.attrs.get("format")
    except OSError:
        return None
    return fmt if isinstance(fmt, str) else None


def open_checked(path, fmt: str, format_version: int) -> tuple[h5py.File, dict]:
    """Open a file written with ``stamp(fmt, ...)``; return it and its config, or raise ``ValueError``."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    try:
        f = h5py.File(path, "r")
    except OSError as err:
        raise ValueError(f"{path}: not a readable HDF5 file ({err})") from None
    try:
        found = f.attrs.get("format")
        if found != fmt:
            raise ValueError(f"{path}: not a {fmt} file (format attribute {found!r})")
        version = f.attrs.get("format_version")
        if version != format_version:
            raise ValueError(f"{path}: {fmt} format version {version!r}, this pokerduel reads {format_version}")
        try:
            config = json.loads(f.attrs["config"])
        except (KeyError, TypeError, json.JSONDecodeError) as err:
            raise ValueError(f"{path}: missing or corrupt config attribute ({err})") from None
        if not isinstance(config, dict):
            raise ValueError(f"{path}: config attribute is not a JSON object")
    except BaseException:
        f.close()
        raise
    return f, config
