"""Figure files: the image format of a path by its suffix, atomic saving (matplotlib with the Agg backend)."""

from __future__ import annotations

import os


def image_format(path) -> str:
    """The image format of ``path`` by its suffix (``png`` without one); ``ValueError`` naming the allowed ones."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.backend_bases import FigureCanvasBase

    suffix = os.path.splitext(os.fspath(path))[1].lower().lstrip(".") or "png"
    allowed = FigureCanvasBase.get_supported_filetypes()
    if suffix not in allowed:
        raise ValueError(f"cannot draw a .{suffix} image; allowed suffixes: {', '.join(sorted(allowed))}")
    return suffix


def save_figure(fig, path, dpi: int = 150) -> None:
    """Save ``fig`` to ``path`` in the format of its suffix, atomically (``storage.atomic_path``)."""
    from .storage import atomic_path

    fmt = image_format(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=dpi, format=fmt)
