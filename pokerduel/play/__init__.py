"""Playing players against each other: duplicate matches, populations, round robins, ground truths, oracles.

Above ``engine`` and ``players``; ``evolution`` and ``studies`` build on it. The names below are
re-exported lazily (the module holding one is imported on first use), so that importing one module of
this package, e.g. ``populations`` when ``players.base`` resolves a ``FILE.h5:INDEX`` spec, imports no
other::

    from pokerduel.play import play_duplicate, new_population, load_ground_truth, LiveOracle
"""

from __future__ import annotations

from importlib import import_module

_EXPORTS = {
    "DuplicateResult": "matches",
    "deal_strengths": "matches",
    "play_duplicate": "matches",
    "Population": "populations",
    "load_population": "populations",
    "new_population": "populations",
    "save_population": "populations",
    "RoundRobin": "tournament",
    "round_robin": "tournament",
    "GroundTruth": "ground_truth",
    "load_ground_truth": "ground_truth",
    "LiveOracle": "oracles",
    "MemoryPool": "oracles",
    "ReplayOracle": "oracles",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
