"""The inlined ``exp`` of the kernels against ``math.exp`` (glibc's), bit for bit."""

import math
import platform

import numpy as np
import pytest

from pokerduel.infra.exp import exp, exp_into
from pokerduel.infra.jit import kernel


def _glibc_fma():
    """glibc 2.28 or later on an x86-64 CPU with FMA: the ``exp`` that ``infra.exp`` reproduces."""
    lib, version = platform.libc_ver()
    if lib != "glibc" or tuple(int(v) for v in version.split(".")[:2]) < (2, 28) or platform.machine() != "x86_64":
        return False
    try:
        with open("/proc/cpuinfo") as f:
            return " fma " in f.read()
    except OSError:
        return False


pytestmark = pytest.mark.skipif(not _glibc_fma(), reason="math.exp here is not glibc's FMA build")


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
