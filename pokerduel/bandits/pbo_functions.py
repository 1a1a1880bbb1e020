"""Latent objectives of González et al. 2017 (PBO) Fig 5 and their grids; duels simulated from them.

All objectives are minimised. Domains follow GPyOpt (written by the paper's first author) where it has
the function, else the SFU library (https://www.sfu.ca/ssurjano/optimisation.html): Forrester [0, 1],
six-hump camel [-2, 2] x [-1, 1], Goldstein-Price [-2, 2]^2, Levy [-10, 10]^2.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special


def forrester(x: np.ndarray) -> np.ndarray:
    """Forrester et al. (2008): (6x - 2)^2 sin(12x - 4) on [0, 1]; minimum -6.0207 at x = 0.7572."""
    x = np.asarray(x, dtype=np.float64)[..., 0]
    return (6 * x - 2) ** 2 * np.sin(12 * x - 4)


def six_hump_camel(x: np.ndarray) -> np.ndarray:
    """Six-hump camel; minimum -1.0316 at (0.0898, -0.7126) and (-0.0898, 0.7126)."""
    x = np.asarray(x, dtype=np.float64)
    a, b = x[..., 0], x[..., 1]
    return (4 - 2.1 * a**2 + a**4 / 3) * a**2 + a * b + (-4 + 4 * b**2) * b**2


def goldstein_price(x: np.ndarray) -> np.ndarray:
    """Goldstein-Price; minimum 3 at (0, -1); values up to about 1e6 on [-2, 2]^2."""
    x = np.asarray(x, dtype=np.float64)
    a, b = x[..., 0], x[..., 1]
    t1 = 1 + (a + b + 1) ** 2 * (19 - 14 * a + 3 * a**2 - 14 * b + 6 * a * b + 3 * b**2)
    t2 = 30 + (2 * a - 3 * b) ** 2 * (18 - 32 * a + 12 * a**2 + 48 * b - 36 * a * b + 27 * b**2)
    return t1 * t2


def levy(x: np.ndarray) -> np.ndarray:
    """Levy function in any dimension; minimum 0 at (1, ..., 1)."""
    x = np.asarray(x, dtype=np.float64)
    w = 1 + (x - 1) / 4
    head = np.sin(np.pi * w[..., 0]) ** 2
    mid = np.sum((w[..., :-1] - 1) ** 2 * (1 + 10 * np.sin(np.pi * w[..., :-1] + 1) ** 2), axis=-1)
    tail = (w[..., -1] - 1) ** 2 * (1 + np.sin(2 * np.pi * w[..., -1]) ** 2)
    return head + mid + tail


@dataclass(frozen=True)
class Objective:
    """A latent objective g to minimise over a box ``bounds`` (q rows of (low, high))."""

    name: str
    fn: Callable[[np.ndarray], np.ndarray]
    bounds: tuple[tuple[float, float], ...]
    f_min: float  # the known continuous minimum (the grid's minimum is usually a little higher)

    @property
    def dim(self) -> int:
        return len(self.bounds)

    def to_domain(self, u: np.ndarray) -> np.ndarray:
        """Map unit-cube coordinates ``u`` (..., q) into the objective's box."""
        lo, hi = np.array(self.bounds, dtype=np.float64).T
        return lo + np.asarray(u, dtype=np.float64) * (hi - lo)

    def __call__(self, u: np.ndarray) -> np.ndarray:
        """g at unit-cube coordinates ``u``."""
        return self.fn(self.to_domain(u))


OBJECTIVES = {
    "forrester": Objective("forrester", forrester, ((0.0, 1.0),), -6.020740),
    "six-hump-camel": Objective("six-hump-camel", six_hump_camel, ((-2.0, 2.0), (-1.0, 1.0)), -1.031628),
    "goldstein-price": Objective("goldstein-price", goldstein_price, ((-2.0, 2.0), (-2.0, 2.0)), 3.0),
    "levy": Objective("levy", levy, ((-10.0, 10.0), (-10.0, 10.0)), 0.0),
}


def get_objective(name: str) -> Objective:
    """The objective called ``name`` (one of ``OBJECTIVES``)."""
    if name not in OBJECTIVES:
        raise ValueError(f"unknown objective {name!r}; choose one of {', '.join(OBJECTIVES)}")
    return OBJECTIVES[name]


def unit_grid(dim: int, per_dim: int = 33) -> np.ndarray:
    """The regular grid of ``per_dim`` points per dimension on the unit cube, as ``(per_dim**dim, dim)``;
    the last coordinate varies fastest."""
    if not isinstance(dim, (int, np.integer)) or dim < 1:
        raise ValueError(f"dim must be a positive integer, got {dim!r}")
    if not isinstance(per_dim, (int, np.integer)) or per_dim < 2:
        raise ValueError(f"per_dim must be an integer >= 2, got {per_dim!r}")
    axes = [np.linspace(0.0, 1.0, per_dim)] * dim
    return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, dim)


class DuelSimulator:
    """Duels between grid points of a latent objective, as in the paper's §4: ``[x, x']`` returns
    y = 1 (x wins) with probability sigma(g(x') - g(x)), sigma logistic, on the raw scale of g."""

    def __init__(self, values: np.ndarray, rng: np.random.Generator, scale: float = 1.0):
        self.values = np.asarray(values, dtype=np.float64)
        if self.values.ndim != 1 or len(self.values) < 2 or not np.all(np.isfinite(self.values)):
            raise ValueError("values must be a 1-D array of at least two finite objective values")
        if not isinstance(rng, np.random.Generator):
            raise ValueError("rng must be a numpy.random.Generator")
        if not scale > 0:
            raise ValueError(f"scale must be positive, got {scale!r}")
        self.rng = rng
        self.scale = float(scale)

    def prob_first_wins(self, i, j) -> np.ndarray:
        """P(y = 1) for duels between grid indices ``i`` and ``j``."""
        return special.expit((self.values[j] - self.values[i]) / self.scale)

    def duel(self, i: int, j: int) -> int:
        """Run one duel; 1 when grid point ``i`` wins."""
        return int(self.rng.random() < self.prob_first_wins(i, j))
