"""Populations of ASHE players: random generation from one seed, and HDF5 files that say what they hold.

A population file (format ``pokerduel.population``) holds ``genomes`` (``(size, genome_size)``
float32) and, in its ``config`` attribute, the ASHE settings, the seed and how weights were drawn.
Genome ``i`` comes from ``SeedSequence(seed).spawn(size)[i]``, so it does not depend on the size.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..infra.storage import atomic_h5, file_format, open_checked, stamp
from ..players.base import Player, register_spec_resolver
from ..players.genomes import AsheSettings, ashe_player, random_genome

FORMAT, FORMAT_VERSION = "pokerduel.population", 1


@dataclass
class Population:
    """ASHE genomes sharing one set of settings."""

    genomes: np.ndarray  # (size, genome_size) float32
    settings: AsheSettings
    seed: int | None = None
    init: tuple[float, float] | None = None  # uniform range the weights were drawn from
    name: str = "pop"
    origin: str | None = None  # where evolved genomes came from (e.g. which run files and generations)

    def __post_init__(self):
        g = np.asarray(self.genomes)
        if g.ndim != 2 or g.shape[1] != self.settings.genome_size:
            raise ValueError(f"genomes must have shape (size, {self.settings.genome_size}) for {self.settings}, "
                             f"got {g.shape}")
        if not np.all(np.isfinite(g)):
            raise ValueError("genomes hold non-finite weights")
        self.genomes = g.astype(np.float32, copy=False)

    def __len__(self) -> int:
        return len(self.genomes)

    def player(self, index: int) -> Player:
        if not 0 <= index < len(self):
            raise ValueError(f"player index {index} out of range for a population of {len(self)}")
        return ashe_player(self.genomes[index], self.settings, name=f"{self.name}:{index}")

    def players(self) -> list[Player]:
        return [self.player(i) for i in range(len(self))]


def new_population(size: int, seed: int, settings: AsheSettings = AsheSettings(), low: float = -1.0,
                   high: float = 1.0, name: str = "pop") -> Population:
    """``size`` random players, every weight uniform on ``[low, high]`` (core paper §7: [-1, 1])."""
    if not isinstance(size, (int, np.integer)) or size < 1:
        raise ValueError(f"size must be a positive integer, got {size!r}")
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ValueError(f"need finite low < high, got [{low}, {high}]")
    children = np.random.SeedSequence(seed).spawn(size)
    genomes = np.stack([random_genome(settings, np.random.default_rng(c), low, high) for c in children])
    return Population(genomes, settings, seed, (float(low), float(high)), name)


def save_population(pop: Population, path) -> None:
    """Write ``pop`` to ``path`` atomically."""
    with atomic_h5(path) as f:
        stamp(f, FORMAT, FORMAT_VERSION, settings=pop.settings.to_dict(), seed=pop.seed,
              init=None if pop.init is None else list(pop.init), size=len(pop),
              **({} if pop.origin is None else {"origin": pop.origin}))
        f.create_dataset("genomes", data=pop.genomes)


def load_population(path) -> Population:
    """Read a population file, checking its format, settings and genome shapes; ``ValueError`` if wrong."""
    f, config = open_checked(path, FORMAT, FORMAT_VERSION)
    with f:
        try:
            settings = AsheSettings.from_dict(config["settings"])
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"{path}: bad ASHE settings in config ({err})") from None
        if "genomes" not in f:
            raise ValueError(f"{path}: no 'genomes' dataset")
        ds = f["genomes"]
        if ds.dtype != np.float32 or ds.ndim != 2:
            raise ValueError(f"{path}: 'genomes' must be a 2-D float32 array, got {ds.dtype} {ds.shape}")
        genomes = ds[()]
    if config.get("size") != len(genomes):
        raise ValueError(f"{path}: config says {config.get('size')} players, 'genomes' holds {len(genomes)}")
    try:
        return Population(genomes, settings, config.get("seed"), config.get("init"), name=Path(path).name,
                          origin=config.get("origin"))
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from None


def player_from_spec(spec: str) -> Player:
    """The player ``FILE.h5:INDEX`` of a population file."""
    path, _, index = spec.rpartition(":")
    if not index.isdigit():
        raise ValueError(f"player spec {spec!r}: expected FILE.h5:INDEX with a non-negative integer index")
    pop = load_population(path)
    pop.name = path
    return pop.player(int(index))


def _resolve_spec(spec: str) -> Player | None:
    """``make_player``'s resolver: specs with a ``:`` are ``FILE.h5:INDEX``, others are not ours, and
    neither are those of another pokerduel result file (an evolution run's, resolved by ``evolve``)."""
    if ":" not in spec:
        return None
    head, sep, _ = spec.partition(".h5:")  # RUN.h5:champion:G names its file before the first ":"
    fmt = file_format(head + ".h5" if sep else spec.rpartition(":")[0])
    return None if fmt not in (None, FORMAT) else player_from_spec(spec)


register_spec_resolver(_resolve_spec)
