"""Counter-based random numbers: the t-th value of stream ``p`` under a 64-bit ``key``, computed directly.

A value depends only on ``(key, p, t)``, never on what was drawn before, so a pair's t-th sample is the
same whichever order a selector asks for pairs in, in Python and inside a compiled replication loop
alike (``streams="counter"`` of the problems, and the studies' common random numbers). The mixing
function is the splitmix64 finaliser (Steele, Lea & Flood 2014); normals come from the Box-Muller
transform of two independent 53-bit uniforms, so they are exact standard normals up to rounding.
"""

from __future__ import annotations

import math

import numpy as np

from ..infra.jit import kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_ONE = np.uint64(1)
_TWO = np.uint64(2)
_INV53 = 1.0 / 9007199254740992.0       # 2**-53
_TWO_PI = 2.0 * math.pi


@kernel
def mix64(z):
    """The splitmix64 finaliser: a bijection of uint64 with full avalanche."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@kernel
def stream_key(key, p):
    """The key of stream ``p`` under ``key``."""
    return mix64(np.uint64(key) + (np.uint64(p) + _ONE) * _GOLDEN)


@kernel
def uniform_at(skey, t):
    """The t-th uniform in [0, 1) of the stream with key ``skey``."""
    return float(mix64(skey + (np.uint64(t) + _ONE) * _GOLDEN) >> _S11) * _INV53


@kernel
def normal_at(skey, t):
    """The t-th standard normal of the stream with key ``skey`` (Box-Muller, one value per counter)."""
    a = mix64(skey + (_TWO * np.uint64(t) + _ONE) * _GOLDEN)
    b = mix64(skey + (_TWO * np.uint64(t) + _TWO) * _GOLDEN)
    u1 = (float(a >> _S11) + 1.0) * _INV53          # (0, 1]: the log is finite
    u2 = float(b >> _S11) * _INV53
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(_TWO_PI * u2)


@kernel
def fill_normals(key, p, t0, out):
    """``out[s]`` = normal ``t0 + s`` of stream ``p``."""
    sk = stream_key(key, p)
    for s in range(out.size):
        out[s] = normal_at(sk, t0 + s)


@kernel
def fill_uniforms(key, p, t0, out):
    """``out[s]`` = uniform ``t0 + s`` of stream ``p``."""
    sk = stream_key(key, p)
    for s in range(out.size):
        out[s] = uniform_at(sk, t0 + s)


def key_from(rng: np.random.Generator) -> int:
    """A 64-bit stream key drawn from ``rng`` (as a Python int in [0, 2**64))."""
    return int(rng.integers(0, 2**64, dtype=np.uint64))
