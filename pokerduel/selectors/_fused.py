"""POCBAm's weighted decision in one pass over the pairs, with per-pair variances cached between decisions.

``pocbam_decide_w`` (``_kernels``) makes five passes over the active pairs per decision (the pooled
variance, the pair variances, the score means, the score variances, the largest variance reductions)
and divides ``m2 / (n - 1)`` twice per pair. With fixed opponents a decision is otherwise cheap next to
its work, and a lagged selector changes one pair's statistics per decision, so here:

- ``m2 / (n - 1)`` of each pair is kept in a cache keyed by the pair's sample count (recomputed when the
  count moved, so the cache is right whatever recorded the samples);
- the pair variances, the candidates' score means and variances and the largest reductions ``D`` are
  computed in one pass, and each pair's eq 13 reduction is kept for the scan.

Every value is computed by the same expression, and every sum adds the same terms in the same order, as
``pocbam_decide_w`` does, so the decisions are the same bit for bit (tested against it).
"""

from __future__ import annotations

import math

import numpy as np

from ._kernels import _LOG_SQRT_2PI, _njit, _sides, data_scale2, log_ndtr


def new_cache(P: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Work arrays of ``pocbam_decide_fused_w`` for ``P`` pairs: ``(vcache, vn, dv)``."""
    return np.zeros(P), np.full(P, -1, dtype=np.int64), np.zeros(P)


@_njit
def _gain(p, dv, mu, var, pi, pj, wa, wb, sign, base, c):
    """``_kernels._pair_gain_w`` with the pair's reduction ``dv`` given."""
    ga = 0.0
    gb = 0.0
    if wa[p] > 0.0:
        i = pi[p]
        vi = var[i] - wa[p] * wa[p] * dv
        if vi <= 0.0:
            vi = var[i] * 1e-300 + 1e-300
        ga = log_ndtr(sign[i] * (mu[i] - c) / math.sqrt(vi)) - base[i]
    if wb[p] > 0.0:
        j = pj[p]
        vj = var[j] - wb[p] * wb[p] * dv
        if vj <= 0.0:
            vj = var[j] * 1e-300 + 1e-300
        gb = log_ndtr(sign[j] * (mu[j] - c) / math.sqrt(vj)) - base[j]
    return ga + gb


@_njit
def pocbam_decide_fused_w(k, pi, pj, wa, wb, n, nc, xbar, m2, var_floor, mu, var, pvar, nu0, vcache, vn, dvs):
    """``_kernels.pocbam_decide_w``, the same result bit for bit, in one pass; returns (pair, c).

    ``vcache``, ``vn``, ``dvs`` (``new_cache``) belong to one selector: ``vcache[p]`` is ``m2[p] / (n[p] - 1)``
    when ``vn[p] == n[p]``."""
    P = pi.size
    Kc = mu.size
    # the pooled variance (``data_scale2``), the unbiased pair variances from the cache
    s = 0.0
    cnt = 0
    for p in range(P):
        c_p = n[p]
        if c_p >= 2:
            if vn[p] != c_p:
                vcache[p] = m2[p] / (c_p - 1)
                vn[p] = c_p
            s += vcache[p]
            cnt += 1
    if cnt > 0 and s > 0.0:
        pool = s / cnt
    else:
        pool = data_scale2(n, xbar, m2)
    floor = var_floor * pool
    D = np.zeros(Kc)
    for i in range(Kc):
        mu[i] = 0.0
        var[i] = 0.0
    for p in range(P):
        c_p = n[p]
        if c_p < 2:
            v = pool
        elif nu0 > 0.0:
            v = (nu0 * pool + m2[p]) / (nu0 + (c_p - 1))
        else:
            v = vcache[p]
        if not v > floor:
            v = floor
        pvar[p] = v
        x = xbar[p]
        q = nc[p]
        t = v / q
        dv = t - v / (q + 1)
        dvs[p] = dv
        a = wa[p]
        if a > 0.0:
            i = pi[p]
            mu[i] += a * x
            var[i] += a * a * t
            d = a * a * dv
            if d > D[i]:
                D[i] = d
        b = wb[p]
        if b > 0.0:
            j = pj[p]
            mu[j] -= b * x
            var[j] += b * b * t
            d = b * b * dv
            if d > D[j]:
                D[j] = d
    # ``_kernels.choose_pair_w`` from here on, with the reductions of the pass
    c, sign, base = _sides(mu, var, k)
    U = np.empty(Kc)
    for i in range(Kc):
        vi = var[i] - D[i]
        if not vi > 0.0:
            U[i] = np.inf
        else:
            u = log_ndtr(sign[i] * (mu[i] - c) / math.sqrt(vi)) - base[i]
            U[i] = u if u > 0.0 else 0.0
    R = np.empty(Kc)
    for i in range(Kc):
        a = sign[i] * (mu[i] - c)
        if a <= 0.0:
            R[i] = 0.0
        elif D[i] > 0.0 and var[i] - D[i] > 0.0:
            z = a / math.sqrt(var[i])
            slope = math.exp(-0.5 * z * z - _LOG_SQRT_2PI - base[i])
            R[i] = slope * (a / math.sqrt(var[i] - D[i]) - z) / D[i]
        else:
            R[i] = np.inf
    p0 = 0
    b0 = -np.inf
    for p in range(P):
        ua = U[pi[p]] if wa[p] > 0.0 else 0.0
        ub = U[pj[p]] if wb[p] > 0.0 else 0.0
        b = ua + ub
        if b > b0:
            b0 = b
            p0 = p
    best = _gain(p0, dvs[p0], mu, var, pi, pj, wa, wb, sign, base, c)
    bestp = p0
    if not best == best:      # NaN
        best = -np.inf
        bestp = -1
    for p in range(P):
        i = pi[p]
        j = pj[p]
        ua = U[i] if wa[p] > 0.0 else 0.0
        ub = U[j] if wb[p] > 0.0 else 0.0
        b = ua + ub
        if b < best or (b == best and p > bestp):
            continue
        ra = wa[p] * wa[p] * R[i] if wa[p] > 0.0 else 0.0
        rb = wb[p] * wb[p] * R[j] if wb[p] > 0.0 else 0.0
        if dvs[p] * (ra + rb) < best - 1e-9 * (1.0 + abs(best)):
            continue
        g = _gain(p, dvs[p], mu, var, pi, pj, wa, wb, sign, base, c)
        if g > best or (g == best and p < bestp):
            best = g
            bestp = p
    if bestp < 0:
        bestp = np.argmin(nc)
    return bestp, c
