"""``log`` for numba kernels, bit for bit glibc's (2.28 and later, its FMA build), inlined instead of called.

A kernel calling ``math.log`` calls libm's ``log`` through its errno wrapper, one element at a time; the
Thurstone fit's likelihood takes one per pair (4,950 at K = 100). This is the same algorithm (glibc's
``e_log.c``, from ARM's optimized-routines): for ``x = 2^k z``, ``z`` in ``[0x1.6p-1, 0x1.6p0)``,
``log(x) = k ln 2 + log(c) + log1p(z / c - 1)`` with ``1 / c`` and ``log(c)`` from a 128-entry table and a
degree-6 polynomial, and a degree-12 polynomial for ``x`` within about 1/16 of 1. The fused multiply-adds
are those of the x86-64 FMA build of glibc (read off its machine code), so that results do not change.
``log_main`` is the table path alone and ``log_normal`` both paths (one selected), branch-free, for loops
that LLVM vectorises (``log_into``); ``log`` calls ``math.log`` for zero, negative, subnormal, inf and NaN.
``tests/test_log.py`` compares both with ``math.log`` on random and edge inputs.
"""

from __future__ import annotations

import math

import numpy as np

from .exp import as_bits, fma, from_bits
from .jit import kernel

# glibc's __log_data (the same in ARM's optimized-routines, MIT licence): (invc, logc) for 128 subintervals
_TABLE_HEX = """
    0x1.734f0c3e0de9fp+0 -0x1.7cc7f79e69000p-2 0x1.713786a2ce91fp+0 -0x1.76feec20d0000p-2
    0x1.6f26008fab5a0p+0 -0x1.713e31351e000p-2 0x1.6d1a61f138c7dp+0 -0x1.6b85b38287800p-2
    0x1.6b1490bc5b4d1p+0 -0x1.65d5590807800p-2 0x1.69147332f0cbap+0 -0x1.602d076180000p-2
    0x1.6719f18224223p+0 -0x1.5a8ca86909000p-2 0x1.6524f99a51ed9p+0 -0x1.54f4356035000p-2
    0x1.63356aa8f24c4p+0 -0x1.4f637c36b4000p-2 0x1.614b36b9ddc14p+0 -0x1.49da7fda85000p-2
    0x1.5f66452c65c4cp+0 -0x1.445923989a800p-2 0x1.5d867b5912c4fp+0 -0x1.3edf439b0b800p-2
    0x1.5babccb5b90dep+0 -0x1.396ce448f7000p-2 0x1.59d61f2d91a78p+0 -0x1.3401e17bda000p-2
    0x1.5805612465687p+0 -0x1.2e9e2ef468000p-2 0x1.56397cee76bd3p+0 -0x1.2941b3830e000p-2
    0x1.54725e2a77f93p+0 -0x1.23ec58cda8800p-2 0x1.52aff42064583p+0 -0x1.1e9e129279000p-2
    0x1.50f22dbb2bddfp+0 -0x1.1956d2b48f800p-2 0x1.4f38f4734ded7p+0 -0x1.141679ab9f800p-2
    0x1.4d843cfde2840p+0 -0x1.0edd094ef9800p-2 0x1.4bd3ec078a3c8p+0 -0x1.09aa518db1000p-2
    0x1.4a27fc3e0258ap+0 -0x1.047e65263b800p-2 0x1.4880524d48434p+0 -0x1.feb224586f000p-3
    0x1.46dce1b192d0bp+0 -0x1.f474a7517b000p-3 0x1.453d9d3391854p+0 -0x1.ea4443d103000p-3
    0x1.43a2744b4845ap+0 -0x1.e020d44e9b000p-3 0x1.420b54115f8fbp+0 -0x1.d60a22977f000p-3
    0x1.40782da3ef4b1p+0 -0x1.cc00104959000p-3 0x1.3ee8f5d57fe8fp+0 -0x1.c202956891000p-3
    0x1.3d5d9a00b4ce9p+0 -0x1.b81178d811000p-3 0x1.3bd60c010c12bp+0 -0x1.ae2c9ccd3d000p-3
    0x1.3a5242b75dab8p+0 -0x1.a45402e129000p-3 0x1.38d22cd9fd002p+0 -0x1.9a877681df000p-3
    0x1.3755bc5847a1cp+0 -0x1.90c6d69483000p-3 0x1.35dce49ad36e2p+0 -0x1.87120a645c000p-3
    0x1.34679984dd440p+0 -0x1.7d68fb4143000p-3 0x1.32f5cceffcb24p+0 -0x1.73cb83c627000p-3
    0x1.3187775a10d49p+0 -0x1.6a39a9b376000p-3 0x1.301c8373e3990p+0 -0x1.60b3154b7a000p-3
    0x1.2eb4ebb95f841p+0 -0x1.5737d76243000p-3 0x1.2d50a0219a9d1p+0 -0x1.4dc7b8fc23000p-3
    0x1.2bef9a8b7fd2ap+0 -0x1.4462c51d20000p-3 0x1.2a91c7a0c1babp+0 -0x1.3b08abc830000p-3
    0x1.293726014b530p+0 -0x1.31b996b490000p-3 0x1.27dfa5757a1f5p+0 -0x1.2875490a44000p-3
    0x1.268b39b1d3bbfp+0 -0x1.1f3b9f879a000p-3 0x1.2539d838ff5bdp+0 -0x1.160c8252ca000p-3
    0x1.23eb7aac9083bp+0 -0x1.0ce7f57f72000p-3 0x1.22a012ba940b6p+0 -0x1.03cdc49fea000p-3
    0x1.2157996cc4132p+0 -0x1.f57bdbc4b8000p-4 0x1.201201dd2fc9bp+0 -0x1.e370896404000p-4
    0x1.1ecf4494d480bp+0 -0x1.d17983ef94000p-4 0x1.1d8f5528f6569p+0 -0x1.bf9674ed8a000p-4
    0x1.1c52311577e7cp+0 -0x1.adc79202f6000p-4 0x1.1b17c74cb26e9p+0 -0x1.9c0c3e7288000p-4
    0x1.19e010c2c1ab6p+0 -0x1.8a646b372c000p-4 0x1.18ab07bb670bdp+0 -0x1.78d01b3ac0000p-4
    0x1.1778a25efbcb6p+0 -0x1.674f145380000p-4 0x1.1648d354c31dap+0 -0x1.55e0e6d878000p-4
    0x1.151b990275fddp+0 -0x1.4485cdea1e000p-4 0x1.13f0ea432d24cp+0 -0x1.333d94d6aa000p-4
    0x1.12c8b7210f9dap+0 -0x1.22079f8c56000p-4 0x1.11a3028ecb531p+0 -0x1.10e4698622000p-4
    0x1.107fbda8434afp+0 -0x1.ffa6c6ad20000p-5 0x1.0f5ee0f4e6bb3p+0 -0x1.dda8d4a774000p-5
    0x1.0e4065d2a9fcep+0 -0x1.bbcece4850000p-5 0x1.0d244632ca521p+0 -0x1.9a1894012c000p-5
    0x1.0c0a77ce2981ap+0 -0x1.788583302c000p-5 0x1.0af2f83c636d1p+0 -0x1.5715e67d68000p-5
    0x1.09ddb98a01339p+0 -0x1.35c8a49658000p-5 0x1.08cabaf52e7dfp+0 -0x1.149e364154000p-5
    0x1.07b9f2f4e28fbp+0 -0x1.e72c082eb8000p-6 0x1.06ab58c358f19p+0 -0x1.a55f152528000p-6
    0x1.059eea5ecf92cp+0 -0x1.63d62cf818000p-6 0x1.04949cdd12c90p+0 -0x1.228fb8caa0000p-6
    0x1.038c6c6f0ada9p+0 -0x1.c317b20f90000p-7 0x1.02865137932a9p+0 -0x1.419355daa0000p-7
    0x1.0182427ea7348p+0 -0x1.81203c2ec0000p-8 0x1.008040614b195p+0 -0x1.0040979240000p-9
    0x1.fe01ff726fa1ap-1 0x1.feff384900000p-9 0x1.fa11cc261ea74p-1 0x1.7dc41353d0000p-7
    0x1.f6310b081992ep-1 0x1.3cea3c4c28000p-6 0x1.f25f63ceeadcdp-1 0x1.b9fc114890000p-6
    0x1.ee9c8039113e7p-1 0x1.1b0d8ce110000p-5 0x1.eae8078cbb1abp-1 0x1.58a5bd001c000p-5
    0x1.e741aa29d0c9bp-1 0x1.95c8340d88000p-5 0x1.e3a91830a99b5p-1 0x1.d276aef578000p-5
    0x1.e01e009609a56p-1 0x1.07598e598c000p-4 0x1.dca01e577bb98p-1 0x1.253f5e30d2000p-4
    0x1.d92f20b7c9103p-1 0x1.42edd8b380000p-4 0x1.d5cac66fb5ccep-1 0x1.606598757c000p-4
    0x1.d272caa5ede9dp-1 0x1.7da76356a0000p-4 0x1.cf26e3e6b2ccdp-1 0x1.9ab434e1c6000p-4
    0x1.cbe6da2a77902p-1 0x1.b78c7bb0d6000p-4 0x1.c8b266d37086dp-1 0x1.d431332e72000p-4
    0x1.c5894bd5d5804p-1 0x1.f0a3171de6000p-4 0x1.c26b533bb9f8cp-1 0x1.067152b914000p-3
    0x1.bf583eeece73fp-1 0x1.147858292b000p-3 0x1.bc4fd75db96c1p-1 0x1.2266ecdca3000p-3
    0x1.b951e0c864a28p-1 0x1.303d7a6c55000p-3 0x1.b65e2c5ef3e2cp-1 0x1.3dfc33c331000p-3
    0x1.b374867c9888bp-1 0x1.4ba366b7a8000p-3 0x1.b094b211d304ap-1 0x1.5933928d1f000p-3
    0x1.adbe885f2ef7ep-1 0x1.66acd2418f000p-3 0x1.aaf1d31603da2p-1 0x1.740f8ec669000p-3
    0x1.a82e63fd358a7p-1 0x1.815c0f51af000p-3 0x1.a5740ef09738bp-1 0x1.8e92954f68000p-3
    0x1.a2c2a90ab4b27p-1 0x1.9bb3602f84000p-3 0x1.a01a01393f2d1p-1 0x1.a8bed1c2c0000p-3
    0x1.9d79f24db3c1bp-1 0x1.b5b515c01d000p-3 0x1.9ae2505c7b190p-1 0x1.c2967ccbcc000p-3
    0x1.9852ef297ce2fp-1 0x1.cf635d5486000p-3 0x1.95cbaeea44b75p-1 0x1.dc1bd3446c000p-3
    0x1.934c69de74838p-1 0x1.e8c01b8cfe000p-3 0x1.90d4f2f6752e6p-1 0x1.f5509c0179000p-3
    0x1.8e6528effd79dp-1 0x1.00e6c121fb800p-2 0x1.8bfce9fcc007cp-1 0x1.071b80e93d000p-2
    0x1.899c0dabec30ep-1 0x1.0d46b9e867000p-2 0x1.87427aa2317fbp-1 0x1.13687334bd000p-2
    0x1.84f00acb39a08p-1 0x1.1980d67234800p-2 0x1.82a49e8653e55p-1 0x1.1f8ffe0cc8000p-2
    0x1.8060195f40260p-1 0x1.2595fd7636800p-2 0x1.7e22563e0a329p-1 0x1.2b9300914a800p-2
    0x1.7beb377dcb5adp-1 0x1.3187210436000p-2 0x1.79baa679725c2p-1 0x1.377266dec1800p-2
    0x1.77907f2170657p-1 0x1.3d54ffbaf3000p-2 0x1.756cadbd6130cp-1 0x1.432eee32fe000p-2
"""
_TAB = np.array([float.fromhex(h) for h in _TABLE_HEX.split()])
_INVC = _TAB[0::2].copy()
_LOGC = _TAB[1::2].copy()
_LN2HI = float.fromhex("0x1.62e42fefa3800p-1")
_LN2LO = float.fromhex("0x1.ef35793c76730p-45")
_A0 = float.fromhex("-0x1.0000000000001p-1")  # log1p(r) - r ~ A0 r^2 + ... + A4 r^6
_A1 = float.fromhex("0x1.555555551305bp-2")
_A2 = float.fromhex("-0x1.fffffffeb4590p-3")
_A3 = float.fromhex("0x1.999b324f10111p-3")
_A4 = float.fromhex("-0x1.55575e506c89fp-3")
_B0 = -0.5  # near 1: log1p(r) - r ~ B0 r^2 + ... + B10 r^12
_B1 = float.fromhex("0x1.5555555555577p-2")
_B2 = float.fromhex("-0x1.ffffffffffdcbp-3")
_B3 = float.fromhex("0x1.999999995dd0cp-3")
_B4 = float.fromhex("-0x1.55555556745a7p-3")
_B5 = float.fromhex("0x1.24924a344de30p-3")
_B6 = float.fromhex("-0x1.fffffa4423d65p-4")
_B7 = float.fromhex("0x1.c7184282ad6cap-4")
_B8 = float.fromhex("-0x1.999eb43b068ffp-4")
_B9 = float.fromhex("0x1.78182f7afd085p-4")
_B10 = float.fromhex("-0x1.5521375d145cdp-4")
_TWO27 = 2.0**27
_OFF = np.uint64(0x3FE6000000000000)       # the bits of 0x1.6p-1, where the table's range starts
_NEAR1_LO = np.uint64(0x3FEE000000000000)  # 1 - 2^-4
_NEAR1_SPAN = np.uint64(0x3FF1090000000000 - 0x3FEE000000000000)  # to 1 + 0x1.09p-4
_EXP_MASK = np.uint64(0xFFF << 52)
_KD_SHIFT = np.uint64(0x4338000000000000)  # the bits of 0x1.8p52: k + 2048 (12 bits) added to it, then
_KD_SUB = 1.5 * 2.0**52 + 2048.0          # subtracted, gives the float of k exactly (and on vectors)


@kernel
def main_range(x):
    """``log_main(x)`` is glibc's ``log(x)``: ``x`` positive and normal (finite), not within 1/16 of 1."""
    ix = as_bits(x)
    normal = (ix >> np.uint64(48)) - np.uint64(0x10) < np.uint64(0x7FE0)
    return normal & (ix - _NEAR1_LO >= _NEAR1_SPAN)


@kernel
def log_main(x):
    """glibc's ``log`` for ``main_range(x)`` (its table path), garbage elsewhere."""
    ix = as_bits(x)
    tmp = ix - _OFF
    i = (tmp >> np.uint64(45)) & np.uint64(127)
    kd = from_bits(_KD_SHIFT + ((tmp >> np.uint64(52)) ^ np.uint64(0x800))) - _KD_SUB  # k = tmp >> 52, signed
    z = from_bits(ix - (tmp & _EXP_MASK))
    invc = _INVC[i]
    logc = _LOGC[i]
    w = fma(kd, _LN2HI, logc)
    r = fma(z, invc, -1.0)                    # z / c - 1
    p = fma(r, _A2, _A1)
    hi = r + w
    r2 = r * r
    lo = fma(kd, _LN2LO, (w - hi) + r)
    r3 = r * r2
    q = fma(fma(r, _A4, _A3), r2, p)
    lo = fma(r2, _A0, lo)
    return fma(r3, q, lo) + hi


@kernel
def log_near1(x):
    """glibc's ``log`` for ``x`` within about 1/16 of 1 (``r = x - 1`` exact, ``r^2 / 2`` in two parts); at
    ``x = 1`` it gives +0 as glibc does (glibc's own test for 1 is for the other rounding modes)."""
    r = x - 1.0
    r2 = r * r
    r3 = r * r2
    p1 = fma(r2, _B3, fma(r, _B2, _B1))
    p2 = fma(r2, _B6, fma(r, _B5, _B4))
    p3 = fma(r3, _B10, fma(r2, _B9, fma(r, _B8, _B7)))
    q = fma(fma(p3, r3, p2), r3, p1)
    rhi = fma(-_TWO27, r, fma(r, _TWO27, r))  # r rounded to its top 26 bits
    rhi2 = rhi * rhi
    hi = fma(rhi2, _B0, r)
    lo = fma(rhi2, _B0, r - hi)
    lo = fma(_B0 * (r - rhi), r + rhi, lo)
    return hi + fma(q, r3, lo)


@kernel
def normal_range(x):
    """``log_normal(x)`` is glibc's ``log(x)``: ``x`` positive, normal and finite."""
    return (as_bits(x) >> np.uint64(48)) - np.uint64(0x10) < np.uint64(0x7FE0)


@kernel
def log_normal(x):
    """glibc's ``log`` for ``normal_range(x)``, branch-free (both paths computed, one selected) for loops that
    LLVM vectorises where inputs near 1 are common; garbage elsewhere."""
    y = log_near1(x)
    z = log_main(x)
    return y if as_bits(x) - _NEAR1_LO < _NEAR1_SPAN else z


@kernel
def log(x):
    """``math.log(x)``, bit for bit, inlined."""
    ix = as_bits(x)
    if ix - _NEAR1_LO < _NEAR1_SPAN:
        return log_near1(x)
    if (ix >> np.uint64(48)) - np.uint64(0x10) < np.uint64(0x7FE0):
        return log_main(x)
    return math.log(x)


@kernel
def log_into(src, dst):
    """``dst[j] = math.log(src[j])``, bit for bit: one straight (vectorizable) loop for positive normal inputs,
    then ``log`` for the others, if any."""
    n = src.shape[0]
    outside = False
    for j in range(n):
        x = src[j]
        outside |= not normal_range(x)
        dst[j] = log_normal(x)
    if outside:
        for j in range(n):
            if not normal_range(src[j]):
                dst[j] = log(src[j])
