"""``exp`` for numba kernels, bit for bit glibc's (2.28 and later, its FMA build), inlined instead of called.

A kernel calling ``math.exp`` calls libm's ``exp`` through its errno wrapper; the ASHE player's LSTMs
make up to 700 such calls a decision. This is the same algorithm (glibc's ``e_exp.c``, from ARM's
optimized-routines: ``exp(x) = 2^(k/128) exp(r)``, a 128-entry table, a degree-5 polynomial) with the
fused multiply-adds where the x86-64 FMA build of glibc has them, so that results do not change. It calls
``math.exp`` for ``|x| >= 512``, inf and NaN.
``tests/test_exp.py`` compares it with ``math.exp`` on random and edge inputs.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from .jit import kernel


@intrinsic
def fma(typingctx, a, b, c):
    """``a * b + c`` rounded once (``llvm.fma``)."""
    def codegen(context, builder, signature, args):
        d = ir.DoubleType()
        fn = builder.module.declare_intrinsic("llvm.fma", [d], ir.FunctionType(d, [d, d, d]))
        return builder.call(fn, args)
    return types.float64(types.float64, types.float64, types.float64), codegen


@intrinsic
def as_bits(typingctx, x):
    """The bits of a float64 as a uint64."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.uint64(types.float64), codegen


@intrinsic
def from_bits(typingctx, u):
    """The float64 of the bits of a uint64."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.uint64), codegen


def _bits(d: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", d))[0]


def _table(n: int = 128, prec: int = 200) -> np.ndarray:
    """glibc's table: for k < n, the bits of t_k, then those of h_k less k << 45, where h_k is 2^(k/n)
    rounded to a double and t_k = 2^(k/n) / h_k - 1 rounded (2^(k/n) from seven integer square roots)."""
    out = []
    for k in range(n):
        v = (1 << k) << (n * prec)
        for _ in range(7):  # n = 2^7
            v = math.isqrt(v)  # floor(2^(k/n) 2^prec)
        exact = Fraction(1) if k == 0 else Fraction(2 * v + 1, 2 << prec)
        h = float(exact)
        out += [_bits(float(exact / Fraction(h) - 1)), (_bits(h) - (k << 45)) % (1 << 64)]
    return np.array(out, np.uint64)


_TAB = _table()
_INV_LN2_N = float.fromhex("0x1.71547652b82fep7")  # 128 / ln 2
_NEG_LN2_HI_N = float.fromhex("-0x1.62e42fefa0000p-8")  # -ln 2 / 128 in two parts
_NEG_LN2_LO_N = float.fromhex("-0x1.cf79abc9e3b3ap-47")
_SHIFT = float.fromhex("0x1.8p52")
_C2 = float.fromhex("0x1.ffffffffffdbdp-2")
_C3 = float.fromhex("0x1.555555555543cp-3")
_C4 = float.fromhex("0x1.55555cf172b91p-5")
_C5 = float.fromhex("0x1.1111167a4d017p-7")


@kernel
def in_range(x):
    """``|x| < 512`` (and not NaN): where ``exp_inline`` equals glibc's ``exp``."""
    return ((as_bits(x) >> np.uint64(52)) & np.uint64(0x7FF)) < np.uint64(0x408)


@kernel
def exp_inline(x):
    """glibc's ``exp`` for ``in_range(x)`` (``1 + x`` for ``|x| < 2^-54``, else the table), garbage elsewhere."""
    kd = fma(x, _INV_LN2_N, _SHIFT)  # k = round(x 128 / ln 2) in the low bits
    ki = as_bits(kd)
    kd -= _SHIFT
    r = fma(kd, _NEG_LN2_LO_N, fma(kd, _NEG_LN2_HI_N, x))  # x - k ln 2 / 128
    idx = (ki & np.uint64(127)) << np.uint64(1)
    tail = from_bits(_TAB[idx])
    scale = from_bits(_TAB[idx + np.uint64(1)] + (ki << np.uint64(45)))
    r2 = r * r
    tmp = fma(r2 * r2, fma(r, _C5, _C4), fma(fma(r, _C3, _C2), r2, r + tail))
    y = fma(scale, tmp, scale)
    tiny = ((as_bits(x) >> np.uint64(52)) & np.uint64(0x7FF)) < np.uint64(0x3C9)
    return 1.0 + x if tiny else y


@kernel
def exp(x):
    """``math.exp(x)``, bit for bit, inlined."""
    if in_range(x):
        return exp_inline(x)
    return math.exp(x)


@kernel
def exp_into(src, dst):
    """``dst[j] = math.exp(src[j])``, bit for bit: one straight (vectorizable) loop on the inline path, then
    ``math.exp`` for the inputs outside its range, if any."""
    n = src.shape[0]
    outside = False
    for j in range(n):
        x = src[j]
        outside |= not in_range(x)
        dst[j] = exp_inline(x)
    if outside:
        for j in range(n):
            if not in_range(src[j]):
                dst[j] = math.exp(src[j])
