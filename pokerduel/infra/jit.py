"""Decorators for numba kernels."""

from __future__ import annotations

import numba


def kernel(fn=None, **options):
    """``numba.njit(cache=True, _nrt=False, error_model="numpy")``: a compiled kernel that never allocates.

    Without numba's runtime, arrays passed to the kernel are not reference counted; in the hand loop
    those atomic counts cost more than the poker (random-bot hands ran 4x slower with them). The numpy
    error model drops the zero-divisor checks of Python semantics; kernels never divide by zero.
    """
    deco = numba.njit(cache=True, _nrt=False, error_model="numpy", **options)
    return deco if fn is None else deco(fn)
