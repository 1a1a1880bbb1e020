"""ASHE 1.0's Tiered Survival and Elite Reproduction (TSER) on top of any survivor ranking.

Li & Miikkulainen (2017), restated in ``../shared/notes/ashe-player.md`` §2.4: the survivors whose
fitness is above the survivors' mean are the **elites** (at least two, so crossover is possible); only
elites reproduce, by crossover that takes the even-index genes of one parent and the odd-index genes of
the other, and elites are spared mutation. The other (second-tier) survivors are mutated and kept.
Children fill the population and are mutated. Each gene mutates with probability ``rate`` by
``N(0, sigma)``; ``rate`` and ``sigma`` fall linearly from their initial to their final values over the
run (Table 1: 0.25 -> 0.05 and 0.5 -> 0.1). ``decay`` (not ASHE 1.0's; 0 by default) first shrinks every
mutated genome towards the all-zero genome by that share: weight decay, so that genes the fitness does not test
stay near zero instead of drifting with the mutations.

Here the survivors and their order come from a top-k selector, and the fitness that splits the tiers is
the selector's score of each survivor (``Selector.scores()``: a Borda score, the sum of a player's mean
results against the others).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


def _check_prob(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) \
            or not np.isfinite(value) or not 0 <= value <= 1:
        raise ValueError(f"{what} must be a number in [0, 1], got {value!r}")
    return float(value)


def _check_nonneg(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) \
            or not np.isfinite(value) or value < 0:
        raise ValueError(f"{what} must be a finite number >= 0, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class TserParams:
    """The constants of TSER mutation (ASHE 1.0 Table 1 by default)."""

    rate_start: float = 0.25
    rate_end: float = 0.05
    sigma_start: float = 0.5
    sigma_end: float = 0.1
    decay: float = 0.0

    def __post_init__(self):
        _check_prob(self.rate_start, "rate_start (initial per-gene mutation rate)")
        _check_prob(self.rate_end, "rate_end (final per-gene mutation rate)")
        _check_nonneg(self.sigma_start, "sigma_start (initial mutation strength)")
        _check_nonneg(self.sigma_end, "sigma_end (final mutation strength)")
        if isinstance(self.decay, bool) or not isinstance(self.decay, (int, float, np.floating, np.integer)) \
                or not 0 <= self.decay < 1:
            raise ValueError("decay (the share by which a mutated genome shrinks towards zero) must be a number "
                             f"in [0, 1), got {self.decay!r}")

    def to_dict(self) -> dict:
        """The constants as floats; ``decay`` left out at 0, so that files from before it compare equal."""
        return {k: float(v) for k, v in asdict(self).items() if k != "decay" or v}

    def schedule(self, generation: int, generations: int) -> tuple[float, float]:
        """``(rate, sigma)`` at ``generation`` (0-based) of a run of ``generations``: linear in between."""
        return (linear(self.rate_start, self.rate_end, generation, generations),
                linear(self.sigma_start, self.sigma_end, generation, generations))


def linear(start: float, end: float, generation: int, generations: int) -> float:
    """``start`` at generation 0, ``end`` at the last generation ``generations - 1``, linear in between."""
    if not isinstance(generations, (int, np.integer)) or generations < 1:
        raise ValueError(f"generations must be a positive integer, got {generations!r}")
    if not isinstance(generation, (int, np.integer)) or not 0 <= generation < generations:
        raise ValueError(f"generation must be in 0..{generations - 1}, got {generation!r}")
    if generations == 1:
        return float(start)
    return float(start + (end - start) * generation / (generations - 1))


def crossover(even_parent: np.ndarray, odd_parent: np.ndarray) -> np.ndarray:
    """A child with the even-index genes of ``even_parent`` and the odd-index genes of ``odd_parent``."""
    a, b = np.asarray(even_parent), np.asarray(odd_parent)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"parents must be 1-D genomes of one length, got shapes {a.shape} and {b.shape}")
    child = a.copy()
    child[1::2] = b[1::2]
    return child


def mutate(genome: np.ndarray, rate: float, sigma: float, rng: np.random.Generator,
           frozen: np.ndarray | None = None, decay: float = 0.0) -> np.ndarray:
    """A copy where each gene, with probability ``rate``, moves by ``N(0, sigma)`` (float32 kept), after every
    gene is multiplied by ``1 - decay``; genes where the boolean mask ``frozen`` is true never move or shrink.

    Two draws per gene (a uniform then a normal) whatever the rate or the mask, so the stream a genome
    consumes does not depend on how many genes mutate."""
    g = np.asarray(genome)
    hit = rng.random(g.size) < rate
    if frozen is not None:
        hit &= ~frozen
    step = rng.normal(0.0, 1.0, g.size) * sigma
    dtype = g.dtype
    if decay:
        g = g * (1.0 - decay if frozen is None else np.where(frozen, 1.0, 1.0 - decay))
    return (g + np.where(hit, step, 0.0)).astype(dtype)


@dataclass
class Offspring:
    """The next population and where each member came from."""

    genomes: np.ndarray          # (size, n_genes) float32: elites, mutated second tier, children
    elites: np.ndarray           # indices (into the old population) of the elites, best first
    second_tier: np.ndarray      # indices of the mutated second-tier survivors, in the selector's order
    parents: np.ndarray          # (n_children, 2): old indices of each child's even- and odd-gene parents
    origin: np.ndarray           # (size,) per new member: 0 elite, 1 mutated survivor, 2 child


def tser(genomes: np.ndarray, survivors, fitness, size: int, rate: float, sigma: float,
         rng: np.random.Generator, frozen: np.ndarray | None = None, decay: float = 0.0) -> Offspring:
    """One TSER step: ``survivors`` (old indices, best first) with their ``fitness`` -> ``size`` genomes.

    Elites are the survivors whose fitness is strictly above the survivors' mean (the best two when fewer
    than two qualify; all equal fitness: the best two by the given order). Each child's parents are two
    distinct elites drawn uniformly; the first gives the even-index genes. Every mutated genome first shrinks
    by ``decay`` (``mutate``). Genes where ``frozen`` is true are never mutated (crossover still passes each
    parent's on)."""
    genomes = np.asarray(genomes)
    survivors = np.asarray(survivors, dtype=np.int64)
    fitness = np.asarray(fitness, dtype=np.float64)
    if genomes.ndim != 2:
        raise ValueError(f"genomes must be a 2-D array (players x genes), got shape {genomes.shape}")
    if survivors.ndim != 1 or survivors.size < 2 or len(set(survivors.tolist())) != survivors.size \
            or survivors.min() < 0 or survivors.max() >= len(genomes):
        raise ValueError(f"survivors must be at least two distinct indices in 0..{len(genomes) - 1}, "
                         f"got {survivors.tolist()}")
    if fitness.shape != survivors.shape or not np.all(np.isfinite(fitness)):
        raise ValueError("fitness must hold one finite value per survivor")
    if not isinstance(size, (int, np.integer)) or size < survivors.size:
        raise ValueError(f"size must be an integer >= the {survivors.size} survivors, got {size!r}")
    top = fitness > fitness.mean()
    if top.sum() < 2:
        order = np.argsort(-fitness, kind="stable")
        top = np.zeros_like(top)
        top[order[:2]] = True
    elites = survivors[top]
    second = survivors[~top]
    n_children = size - survivors.size
    out = np.empty((size, genomes.shape[1]), dtype=genomes.dtype)
    out[:elites.size] = genomes[elites]
    pos = elites.size
    for idx in second:
        out[pos] = mutate(genomes[idx], rate, sigma, rng, frozen, decay)
        pos += 1
    parents = np.empty((n_children, 2), dtype=np.int64)
    for c in range(n_children):
        a, b = rng.choice(elites.size, size=2, replace=False)
        parents[c] = elites[a], elites[b]
        out[pos] = mutate(crossover(genomes[elites[a]], genomes[elites[b]]), rate, sigma, rng, frozen, decay)
        pos += 1
    origin = np.concatenate([np.zeros(elites.size, np.int8), np.ones(second.size, np.int8),
                             np.full(n_children, 2, np.int8)])
    return Offspring(out, elites, second, parents, origin)
