"""The inlined ``log`` of the kernels against ``math.log`` (glibc's), bit for bit."""

import math

import numpy as np

from pokerduel.infra.exp import as_bits
from pokerduel.infra.jit import kernel
from pokerduel.infra.log import log, log_into
from tests.libm import requires_glibc_fma

pytestmark = requires_glibc_fma("log")


@kernel
def _mismatches(xs, out):
    log_into(xs, out)
    bad = 0
    for j in range(xs.shape[0]):
        ref = math.log(xs[j])
        for y in (log(xs[j]), out[j]):
            bad += (as_bits(y) != as_bits(ref)) & ((y == y) | (ref == ref))  # the bits (of zeros too); any NaN
    return bad


def test_log_matches_math_log_bit_for_bit():
    rng = np.random.default_rng(2026)
    n = 250_000
    tiny = 2.0**-1022
    edges = [0.0, -0.0, 1.0, -1.0, 5e-324, tiny, tiny * (1 - 2.0**-52), np.inf, -np.inf, np.nan, 1.7976931348623157e308,
             1 - 2.0**-4, 1 + float.fromhex("0x1.09p-4"), float.fromhex("0x1.6p-1"), float.fromhex("0x1.6p0")]
    powers = np.ldexp(1.0, np.arange(-1074, 1024))
    bounds = [1.0, 1 - 2.0**-4, 1 + float.fromhex("0x1.09p-4"), float.fromhex("0x1.6p-1"), float.fromhex("0x1.6p0"),
              tiny, 2.0, 0.5]
    near = np.concatenate([b + np.arange(-500, 500) * np.spacing(b) for b in bounds])
    xs = np.concatenate([
        np.array(edges), powers, near, -near,
        rng.uniform(0.9, 1.1, n),
        1.0 + rng.uniform(-1, 1, n) * np.exp2(rng.uniform(-60, -4, n)),
        rng.uniform(0.0, 1e7, n),
        np.exp2(rng.uniform(-1080, 1024, n)),
        rng.integers(0, 2**64, n, dtype=np.uint64).view(np.float64),
    ])
    assert xs.size > 1_000_000
    with np.errstate(all="ignore"):
        assert _mismatches(xs, np.empty_like(xs)) == 0
