"""Weighted decisions that keep work between decisions: POCBAm's in one pass over the pairs with per-pair
variances cached, and the hybrid's refits with the decisions' fit cache.

``pocbam_decide_w`` (``_kernels``) makes five passes over the active pairs per decision (the pooled
variance, the pair variances, the score means, the score variances, the largest variance reductions)
and divides ``m2 / (n - 1)`` twice per pair. With fixed opponents a decision is otherwise cheap next to
its work, and a lagged selector changes one pair's statistics per decision, so here:

- ``m2 / (n - 1)`` of each pair is kept in a cache keyed by the pair's sample count (recomputed when the
  count moved, so the cache is right whatever recorded the samples);
- the pair variances, the candidates' score means and variances and the largest reductions ``D`` are
  computed in one pass, and each pair's eq 13 reduction is kept for the scan.

Every value is computed by the same expression, and every sum adds the same terms in the same order, as
``pocbam_decide_w`` does, so the decisions are the same bit for bit (tested against it). The hybrid's
refit decision (``hybrid_decide_w``) fits with the fit cache (``_kernels.fit_graph_cached``) and, in POCBAm
mode, decides in this one pass: the same decisions as fitting afresh and deciding in five passes.
"""

from __future__ import annotations

import numpy as np

from ._kernels import _njit, data_scale2, fit_graph_cached, intransitivity_index_w, ml_choose_w, pruned_scan_w


def new_cache(P: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Work arrays of ``pocbam_decide_fused_w`` for ``P`` pairs: ``(vcache, vn, dv)``."""
    return np.zeros(P), np.full(P, -1, dtype=np.int64), np.zeros(P)


@_njit
def pocbam_decide_fused_w(k, pi, pj, wa, wb, n, nc, xbar, m2, var_floor, mu, var, pvar, nu0, vcache, vn, dvs, top):
    """``_kernels.pocbam_decide_w``, the same result bit for bit, in one pass; returns (pair, c) and fills
    ``top`` as ``pruned_scan_w`` does.

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
    return pruned_scan_w(mu, var, D, dvs, nc, pi, pj, wa, wb, k, top)  # ``choose_pair_w`` from here on


@_njit
def hybrid_decide_w(K, k, pidx, pi, pj, degree, wa, wb, colw, use_col, n, nc, xbar, m2, gamma, sig2, init,
                    var_floor, fit_tol, max_iter, mu, var, pvar, per_sample, unbiased, threshold_ii, nu0, C, G,
                    vcache, vn, dvs, top):
    """``_kernels.hybrid_decide`` for weighted scores, with the decisions' fit cache ``(C, G)`` and the
    one-pass decision's cache ``(vcache, vn, dvs)``. Returns (pair, II, mode, iters); fills ``top`` as
    ``_kernels.pruned_scan_w`` does."""
    iters = fit_graph_cached(K, pidx, pi, pj, degree, n, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter,
                             nu0, C, G)
    ii = intransitivity_index_w(pi, pj, wa, wb, colw, use_col, n, xbar, m2, gamma, sig2, per_sample, unbiased,
                                var_floor, mu, nu0)
    if ii > threshold_ii:
        p, c = pocbam_decide_fused_w(k, pi, pj, wa, wb, n, nc, xbar, m2, var_floor, mu, var, pvar, nu0, vcache, vn,
                                     dvs, top)
        return p, ii, 2, iters
    p, c = ml_choose_w(k, pi, pj, wa, wb, colw, use_col, nc, gamma, sig2, mu, var, top)
    return p, ii, 1, iters
