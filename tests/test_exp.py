"""The inlined ``exp`` of the kernels against ``math.exp`` (glibc's), bit for bit."""

import math

import numpy as np

from pokerduel.infra.exp import exp, exp_into
from pokerduel.infra.jit import kernel
from tests.libm import requires_glibc_fma

pytestmark = requires_glibc_fma("exp")


@kernel
def _mismatches(xs, out):
    exp_into(xs, out)
    bad = 0
    for j in range(xs.shape[0]):
        ref = math.exp(xs[j])
        for y in (exp(xs[j]), out[j]):
            bad += (y != ref) & ((y == y) | (ref == ref))  # NaN equals NaN
    return bad


def test_exp_matches_math_exp_bit_for_bit():
    rng = np.random.default_rng(2026)
    n = 250_000
    edges = [0.0, -0.0, 2.0**-54, -(2.0**-54), 512.0, -512.0, 709.78, 709.79, -708.39, -708.4, -745.13, -745.14,
             1e-300, 5e-324, 1024.0, -1024.0, 1e300, -1e300, np.inf, -np.inf, np.nan]
    near = np.concatenate([b + np.arange(-500, 500) * np.spacing(b) for b in (2.0**-54, 512.0, 0.5, 1.0, 2.0)])
    xs = np.concatenate([
        np.array(edges), near, -near,
        rng.uniform(-60, 60, n),
        rng.uniform(-745.2, 709.8, n),
        np.exp2(rng.uniform(-60, 10, n)) * rng.choice([-1.0, 1.0], n),
        rng.integers(0, 2**64, n, dtype=np.uint64).view(np.float64),
    ])
    assert _mismatches(xs, np.empty_like(xs)) == 0
