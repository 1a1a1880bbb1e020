"""Numba kernels of the POCBAm family: per-pair statistics, the Thurstone ML fit, c, AEPCS, II.

Data layout: unordered pairs ``p`` with ``pi[p] < pj[p]`` (row-major), ``pidx[i, j]`` the pair index of
``{i, j}``. Per pair: ``n`` (samples), ``xbar`` (sample mean from ``pi``'s point of view) and ``m2``
(Welford's sum of squared deviations). A mean from ``j``'s point of view is ``-xbar``.

A pair with fewer than two samples has no variance of its own. Its variance is then the **pooled
variance** ``data_scale2`` (the mean unbiased variance of the pairs that have two samples, else the mean
squared sample), held fixed in the Thurstone fit: an empirical-Bayes plug-in that lets the methods start
from one warm-up sample per pair (``n0 = 1``). With ``n0 >= 2`` it never applies.

**Variance prior** (``nu0``, the selectors' ``var_prior``; default 0: off, the paper's methods). With
``nu0 > 0`` each pair's variance is shrunk toward the pooled variance ``s2_pool`` (``data_scale2``) as if
the pair had ``nu0`` extra samples whose squared deviations average ``s2_pool``:

- POCBAm (``pair_variance``): ``s2 = (nu0 s2_pool + m2) / (nu0 + n - 1)``, ``m2 = (n - 1) s2_pair``: the
  scale of the posterior of ``sigma2_ij`` under a scaled-inverse-chi-square prior with ``nu0`` degrees of
  freedom and scale ``s2_pool`` (the conjugate normal update with a flat prior on the pair mean);
- the Thurstone fit (``profile_ll``, ``_newton_system``): eq 4 plus, per pair with two or more samples,
  ``-(nu0 / 2) (log sigma2_ij + s2_pool / sigma2_ij)`` (the same pseudo-samples), whose maximiser given
  gamma is ``sigma2_ij = (nu0 s2_pool + m2 + n r^2) / (nu0 + n)``, ``r = xbar_ij - gamma_i + gamma_j`` (the
  model gives the mean, so the pair keeps all ``n`` degrees of freedom);
- the intransitivity index: the observed variances shrunk the same way (``(nu0 s2_pool + m2) / (nu0 + n)``
  for the ML form), so II is still 0 when the data fit the model exactly.

A pair whose few samples happen to be equal (on poker, three equal +-20,000-chip deals) then keeps a
variance of order ``s2_pool nu0 / (nu0 + n - 1)`` instead of 0 and is sampled again when it matters; the
prior's weight fades as the pair's own samples accumulate. Below two samples nothing changes (the
pooled variance, which the POCBAm formula also gives at ``n = 1``).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ..infra.log import log, log_normal, normal_range

_SQRT1_2 = 1.0 / math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def _njit(fn):
    # nogil: a selector may decide in one thread while an oracle plays deals in another (``Selector.lag``)
    return numba.njit(cache=True, nogil=True, error_model="numpy")(fn)


def _inline(fn):
    """``_njit`` for a loop body called once per row: inlined into its caller (numba IR), because LLVM
    leaves some of these calls, whose arrays are passed as many scalars, as calls."""
    return numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")(fn)


@_njit
def log_ndtr(z):
    """``log(Phi(z))`` accurate in both tails (matches ``scipy.special.log_ndtr``)."""
    if z > 0.0:
        return math.log1p(-0.5 * math.erfc(z * _SQRT1_2))
    if z > -20.0:
        return math.log(0.5 * math.erfc(-z * _SQRT1_2))
    z2 = z * z
    r = 1.0 / z2
    s = 1.0 + r * (-1.0 + r * (3.0 + r * (-15.0 + r * (105.0 + r * (-945.0 + r * 10395.0)))))
    return -0.5 * z2 - math.log(-z) - _LOG_SQRT_2PI + math.log(s)


@_njit
def record(n, xbar, m2, p, x):
    """Add sample ``x`` (pair ``p``, ``pi``'s point of view) to the Welford statistics."""
    c = n[p] + 1
    n[p] = c
    d = x - xbar[p]
    xbar[p] += d / c
    m2[p] += d * (x - xbar[p])


@_njit
def record_many(n, xbar, m2, ps, xs):
    for t in range(ps.size):
        record(n, xbar, m2, ps[t], xs[t])


@_njit
def data_scale2(n, xbar, m2):
    """A squared data scale: the mean unbiased pair variance, else the mean squared pair mean, else 1.
    The divisions run on vectors first; the sum then adds them in pair order (a pair below two samples adds
    0.0, which changes no sum that starts at +0.0)."""
    P = n.size
    u = np.empty(P)
    c = 0
    for p in range(P):
        two = n[p] >= 2
        u[p] = m2[p] / (n[p] - 1) if two else 0.0
        c += two
    s = 0.0
    for p in range(P):
        s += u[p]
    if c > 0 and s > 0.0:
        return s / c
    s = 0.0
    c = 0
    for p in range(n.size):
        if n[p] >= 1:
            s += xbar[p] * xbar[p]
            c += 1
    if c > 0 and s > 0.0:
        return s / c
    return 1.0


@_njit
def borda_means(K, pidx, xbar, out):
    """``out[i] = sum_j xbar_ij`` (unsampled pairs have ``xbar = 0``)."""
    for i in range(K):
        s = 0.0
        for j in range(K):
            if j != i:
                p = pidx[i, j]
                s += xbar[p] if i < j else -xbar[p]
        out[i] = s


@_njit
def score_posterior(K, n, pvar, var_out):
    """Variances of eq 9: ``var_i = sum_j pvar_ij / n_ij``.

    One pass over the pairs (row-major ``i < j``) adds each term to both items: item i still receives
    its terms in the order j = 0, 1, ..., so the sums equal the item-by-item loop bit for bit."""
    w = np.empty(n.size)
    for p in range(n.size):           # the divisions first, on vectors
        w[p] = pvar[p] / n[p]
    for i in range(K):
        var_out[i] = 0.0
    p = 0
    for i in range(K):
        acc = var_out[i]              # item i's terms from (a, i), a < i, then its own row, in registers
        for j in range(i + 1, K):
            acc += w[p]
            var_out[j] += w[p]
            p += 1
        var_out[i] = acc


@_njit
def threshold(mu, var, k):
    """Current top-k order (best first, ties to the lower index) and c of eq 11."""
    order = np.argsort(-mu, kind="mergesort")
    a = order[k - 1]
    b = order[k]
    sa = math.sqrt(var[a])
    sb = math.sqrt(var[b])
    if sa + sb > 0.0:
        c = (sb * mu[a] + sa * mu[b]) / (sa + sb)
    else:
        c = 0.5 * (mu[a] + mu[b])
    return order, c


@_njit
def _reduction(v, c):
    """Eq 13: how much one more sample shrinks a score variance, ``v / c - v / (c + 1)`` (computed as
    written, so that decisions are the same bit for bit as before the pruning bound existed)."""
    return v / c - v / (c + 1)


@_njit
def _pair_gain(p, mu, var, pvar, n, pi, pj, sign, base, c):
    """Gain in log AEPCS of one more sample of pair ``p`` (eq 13 variances, ``c`` fixed)."""
    return _pair_gain_dv(p, _reduction(pvar[p], n[p]), mu, var, pi, pj, sign, base, c)


@_njit
def _reductions(pvar, n):
    """``_reduction`` of every pair, its divisions on vectors."""
    dv = np.empty(n.size)
    for p in range(n.size):
        dv[p] = _reduction(pvar[p], n[p])
    return dv


@_njit
def _pair_gain_dv(p, dv, mu, var, pi, pj, sign, base, c):
    """``_pair_gain`` given the pair's variance reduction ``dv``."""
    i = pi[p]
    j = pj[p]
    vi = var[i] - dv
    vj = var[j] - dv
    if vi <= 0.0:
        vi = var[i] * 1e-300 + 1e-300
    if vj <= 0.0:
        vj = var[j] * 1e-300 + 1e-300
    return (log_ndtr(sign[i] * (mu[i] - c) / math.sqrt(vi)) - base[i]) \
        + (log_ndtr(sign[j] * (mu[j] - c) / math.sqrt(vj)) - base[j])


@_njit
def _sides(mu, var, k):
    """``c`` of eq 11, each item's side of it (+1 in the top-k) and its current log term ``l_i``."""
    K = mu.size
    order, c = threshold(mu, var, k)
    sign = np.full(K, -1.0)
    for t in range(k):
        sign[order[t]] = 1.0
    base = np.empty(K)
    for i in range(K):
        base[i] = log_ndtr(sign[i] * (mu[i] - c) / math.sqrt(var[i]))
    return c, sign, base


@_njit
def _row_major(K, pi, pj):
    """Whether the pairs are all ``K (K - 1) / 2`` pairs ``i < j`` in row-major order (their usual layout)."""
    if pi.size != K * (K - 1) // 2:
        return False
    bad = 0
    p = 0
    for i in range(K):
        bad += _row_check(p, K - 1 - i, i, pi, pj)
        p += K - 1 - i
    return bad == 0


@_inline
def _row_check(p0, L, i, pi, pj):
    """How many of the pairs ``p0 .. p0 + L - 1`` are not ``(i, i + 1), (i, i + 2), ...`` (vectorised)."""
    up0 = np.uint64(p0)
    bad = 0
    for t in range(np.uint64(L)):
        bad += (pi[up0 + t] != i) | (pj[up0 + t] != i + 1 + np.int64(t))
    return bad


@_inline
def _row_max(p0, L, j0, DV, D):
    """``D[j] = max(D[j], DV[p])`` along a row (pairs ``p0 ..``, ``j = j0 ..``), vectorised (unsigned indices)."""
    up0 = np.uint64(p0)
    uj0 = np.uint64(j0)
    for t in range(np.uint64(L)):
        dv = DV[up0 + t]
        d = D[uj0 + t]
        D[uj0 + t] = dv if dv > d else d


@_inline
def _row_candidates(p0, L, j0, ui, ri, U, R, DV, best, near, marks):
    """Along a row (pairs ``p0 ..``, ``j = j0 ..``): mark the pairs that pass the pruned scan's bounds against
    ``best`` (``U_i + U_j``) and ``near`` (``DV_p (R_i + R_j)``), vectorised (unsigned indices)."""
    up0 = np.uint64(p0)
    uj0 = np.uint64(j0)
    for t in range(np.uint64(L)):
        out = (ui + U[uj0 + t] < best) | (DV[up0 + t] * (ri + R[uj0 + t]) < near)
        marks[up0 + t] = not out


@_inline
def _scan_pairs(U, R, DV, mu, var, pi, pj, sign, base, c):
    """``choose_pair``'s pruned scan over every pair, from the pair of the largest bound; -1 if every gain is
    NaN."""
    P = pi.size
    Ub = np.empty(P)          # the pairs' bounds U_i + U_j
    for p in range(P):
        Ub[p] = U[pi[p]] + U[pj[p]]
    p0 = 0
    b0 = -np.inf
    for p in range(P):
        if Ub[p] > b0:
            b0 = Ub[p]
            p0 = p
    best, bestp, near = _first_gain(p0, DV, mu, var, pi, pj, sign, base, c)
    marks = np.zeros((P + 7) // 8 * 8, dtype=np.uint8)
    for p in range(P):
        marks[p] = not ((Ub[p] < best) | (DV[p] * (R[pi[p]] + R[pj[p]]) < near))
    return _scan_marked(marks, best, bestp, near, U, R, DV, mu, var, pi, pj, sign, base, c)


@_inline
def _scan_rows(K, U, R, DV, mu, var, pi, pj, sign, base, c):
    """``_scan_pairs`` where the pairs are every pair in row-major order: the pair of the two largest ``U_i``
    has the largest bound (pair ``(i, j)`` has index ``i (2K - i - 1) / 2 + j - i - 1``), and the marks are set
    row by row on vectors (``_row_candidates``)."""
    P = pi.size
    a = 0
    for i in range(K):
        if U[i] > U[a]:
            a = i
    b = 1 if a == 0 else 0
    for i in range(K):
        if i != a and U[i] > U[b]:
            b = i
    i0 = min(a, b)
    p0 = i0 * (2 * K - i0 - 1) // 2 + max(a, b) - i0 - 1
    best, bestp, near = _first_gain(p0, DV, mu, var, pi, pj, sign, base, c)
    marks = np.zeros((P + 7) // 8 * 8, dtype=np.uint8)
    p = 0
    for i in range(K):
        _row_candidates(p, K - 1 - i, i + 1, U[i], R[i], U, R, DV, best, near, marks)
        p += K - 1 - i
    return _scan_marked(marks, best, bestp, near, U, R, DV, mu, var, pi, pj, sign, base, c)


@_inline
def _first_gain(p0, DV, mu, var, pi, pj, sign, base, c):
    """The scan's start: pair ``p0``'s gain, ``p0`` and the linear bound's threshold (a NaN gain: none)."""
    best = _pair_gain_dv(p0, DV[p0], mu, var, pi, pj, sign, base, c)
    bestp = p0
    if not best == best:      # NaN
        best = -np.inf
        bestp = -1
    return best, bestp, best - 1e-9 * (1.0 + abs(best))


@_inline
def _scan_marked(marks, best, bestp, near, U, R, DV, mu, var, pi, pj, sign, base, c):
    """``choose_pair``'s pruned scan (its two bounds and tie rule) over the marked pairs, eight marks at a
    time. The marks are the pairs that pass the bounds against the first gain; the best gain only grows,
    so no other pair could pass them later, and the answer (the largest gain, ties to the lowest index)
    does not depend on the order of the visits."""
    P = pi.size
    words = marks.view(np.uint64)
    for w in range(words.size):
        if words[w] == 0:
            continue
        for p in range(8 * w, min(8 * w + 8, P)):
            if marks[p] == 0:
                continue
            i = pi[p]
            j = pj[p]
            bnd = U[i] + U[j]
            if (bnd < best) | ((bnd == best) & (p > bestp)) | (DV[p] * (R[i] + R[j]) < near):
                continue
            g = _pair_gain_dv(p, DV[p], mu, var, pi, pj, sign, base, c)
            if g > best or (g == best and p < bestp):
                best = g
                bestp = p
                near = best - 1e-9 * (1.0 + abs(best))
    return bestp


@_njit
def choose_pair(mu, var, pvar, n, pi, pj, k):
    """The pair maximising AEPCS (eq 14) with eq 13's one-more-sample variances; also returns c.

    Only the terms of ``i`` and ``j`` change when ``(i, j)`` is sampled, so the pair's gain in log AEPCS
    is ``l'_i - l_i + l'_j - l_j``: its argmax is the argmax of AEPCS, computed without the cancellation
    of a full product. Exact ties go to the lowest pair index.

    Pruned scan (the same answer as evaluating every pair, ``choose_pair_scan``): item i's term grows as its
    variance shrinks (every item is on its correct side of c), so its gain over all of i's pairs is at most
    ``U_i``, its gain at the largest variance reduction among them (or 0). A pair whose bound ``U_i + U_j`` is
    below the best gain found cannot win and is skipped: at K = 100 most pairs lie far from c. So is one
    whose bound equals it after the best pair's index (ties go to the lower index): when every player is
    alike (a converged population whose samples are all 0) every bound ties and one pair is evaluated, not
    all. A pair that
    passes is bounded again, linearly in its variance reduction ``dv``: ``log Phi`` is concave, so
    ``l'_i - l_i <= (z'_i - z_i) phi(z_i) / Phi(z_i)`` (its tangent at the current z), and
    ``z'_i - z_i = a_i (1 / sqrt(var_i - dv) - 1 / sqrt(var_i))`` is convex in ``dv`` on ``[0, D_i]``, so
    below its chord when ``a_i >= 0`` (and <= 0 otherwise). The bound is ``dv (R_i + R_j)``; a pair below
    the best gain by more than rounding is skipped without the ``erfc`` and ``log`` of its exact gain.
    """
    K = mu.size
    DV = _reductions(pvar, n)
    rows = _row_major(K, pi, pj)
    D = np.zeros(K)
    if rows:                  # the same maxima, row by row (a maximum does not depend on the order)
        p = 0
        for i in range(K):
            L = K - 1 - i
            d = D[i]
            for q in range(p, p + L):
                dv = DV[q]
                if dv > d:
                    d = dv
            D[i] = d
            _row_max(p, L, i + 1, DV, D)
            p += L
    else:
        for p in range(pi.size):
            dv = DV[p]
            if dv > D[pi[p]]:
                D[pi[p]] = dv
            if dv > D[pj[p]]:
                D[pj[p]] = dv
    return _choose_given(mu, var, DV, D, n, pi, pj, k, rows)


@_inline
def _choose_given(mu, var, DV, D, n, pi, pj, k, rows):
    """``choose_pair`` given each pair's variance reduction ``DV`` and each item's largest one ``D``;
    ``rows``: the pairs are every pair in row-major order."""
    K = mu.size
    P = pi.size
    c, sign, base = _sides(mu, var, k)
    U = np.empty(K)
    for i in range(K):
        vi = var[i] - D[i]
        if not vi > 0.0:
            U[i] = np.inf                 # the floored variance of _pair_gain: no bound
        else:
            u = log_ndtr(sign[i] * (mu[i] - c) / math.sqrt(vi)) - base[i]
            U[i] = u if u > 0.0 else 0.0  # >= 0 also covers an item a rounding error puts on the wrong side
    R = np.empty(K)           # gain_i(dv) <= R_i dv for 0 <= dv <= D_i
    for i in range(K):
        a = sign[i] * (mu[i] - c)
        if a <= 0.0:
            R[i] = 0.0
        elif D[i] > 0.0 and var[i] - D[i] > 0.0:
            z = a / math.sqrt(var[i])
            slope = math.exp(-0.5 * z * z - _LOG_SQRT_2PI - base[i])       # phi(z) / Phi(z)
            R[i] = slope * (a / math.sqrt(var[i] - D[i]) - z) / D[i]
        else:
            R[i] = np.inf
    if rows and K >= _FAST_FIT_K:       # (below, setting up the rows' vector loops costs more than it saves)
        bestp = _scan_rows(K, U, R, DV, mu, var, pi, pj, sign, base, c)
    else:
        bestp = _scan_pairs(U, R, DV, mu, var, pi, pj, sign, base, c)
    if bestp < 0:            # every gain NaN: sample the least-sampled pair
        bestp = np.argmin(n)
    return bestp, c


@_njit
def choose_pair_scan(mu, var, pvar, n, pi, pj, k):
    """``choose_pair`` by evaluating every pair (the reference the pruned scan is tested against)."""
    c, sign, base = _sides(mu, var, k)
    best = -np.inf
    bestp = -1
    for p in range(pi.size):
        g = _pair_gain(p, mu, var, pvar, n, pi, pj, sign, base, c)
        if g > best:
            best = g
            bestp = p
    if bestp < 0:            # every gain NaN: sample the least-sampled pair
        bestp = np.argmin(n)
    return bestp, c


@_njit
def log_apcs(mu, var, k, c):
    """log APCS of eq 12 for the current top-k of ``mu`` and a given threshold ``c``."""
    order = np.argsort(-mu, kind="mergesort")
    s = 0.0
    for t in range(mu.size):
        i = order[t]
        z = (mu[i] - c) / math.sqrt(var[i])
        s += log_ndtr(z if t < k else -z)
    return s


@_njit
def pair_variance(n, m2, p, pool, nu0=0.0):
    """Unbiased sample variance of pair ``p`` (eq 7), or the pooled variance below two samples; with a
    variance prior ``nu0 > 0`` the sample variance shrunk toward ``pool``, ``(nu0 pool + m2) / (nu0 + n - 1)``."""
    if n[p] < 2:
        return pool
    if nu0 > 0.0:
        return (nu0 * pool + m2[p]) / (nu0 + (n[p] - 1))
    return m2[p] / (n[p] - 1)


@_njit
def sample_variances(n, m2, floor, pool, out, nu0=0.0):
    """POCBAm's pair variances: unbiased sample variance (eq 7) or ``pool`` (shrunk with ``nu0``), floored."""
    for p in range(n.size):
        v = pair_variance(n, m2, p, pool, nu0)
        out[p] = v if v > floor else floor


@_njit
def pocbam_decide(K, k, pidx, pi, pj, n, nc, xbar, m2, var_floor, mu, var, pvar, nu0=0.0):
    """One POCBAm decision: Borda of sample means, eq-7 variances, AEPCS argmax. Returns (pair, c).

    ``nc``: the sample counts of the posterior and of eq 13, ``n`` plus the samples still pending under a
    lag (``Selector.lag``; the same array as ``n`` without one). ``nu0``: the variance prior (module
    docstring; 0 = none)."""
    pool = data_scale2(n, xbar, m2)
    sample_variances(n, m2, var_floor * pool, pool, pvar, nu0)
    borda_means(K, pidx, xbar, mu)
    score_posterior(K, nc, pvar, var)
    return choose_pair(mu, var, pvar, nc, pi, pj, k)


@_njit
def log_likelihood(K, pidx, n, xbar, m2, gamma, sig2):
    """Eq 4 from per-pair sufficient statistics: sum_t (r - d)^2 = n (s2b + (xbar - d)^2)."""
    ll = 0.0
    for i in range(K):
        for j in range(i + 1, K):
            p = pidx[i, j]
            c = n[p]
            if c == 0:
                continue
            r = xbar[p] - (gamma[i] - gamma[j])
            ss = m2[p] + c * r * r
            ll += -0.5 * c * math.log(2.0 * math.pi) - 0.5 * c * math.log(sig2[p]) - 0.5 * ss / sig2[p]
    return ll


@_njit
def init_eq67(K, pidx, n, xbar, m2, floor, pool, gamma, sig2, nu0=0.0):
    """Eqs 6-7: gamma_i = (S_i - S_0) / K from sample-mean Borda scores; sig2 = unbiased sample variance."""
    borda_means(K, pidx, xbar, gamma)
    s0 = gamma[0]
    for i in range(K):
        gamma[i] = (gamma[i] - s0) / K
    sample_variances(n, m2, floor, pool, sig2, nu0)


@_njit
def profile_ll(pi, pj, n, xbar, m2, floor, pool, gamma, sig2, nu0=0.0):
    """Eq 4 at ``gamma`` with each variance at its maximiser given gamma (eq 5 = 0), floored; fills sig2.
    Pairs with fewer than two samples keep the pooled variance ``pool``. With a variance prior ``nu0 > 0``
    each pair's ``nu0`` pseudo-samples (module docstring) are added to the likelihood and to the maximiser:
    ``(nu0 pool + m2 + n r^2) / (nu0 + n)``."""
    ll = 0.0
    for p in range(n.size):
        c = n[p]
        if c == 0:
            sig2[p] = pool
            continue
        r = xbar[p] - (gamma[pi[p]] - gamma[pj[p]])
        s = m2[p] / c
        if c < 2:
            v = pool
        elif nu0 > 0.0:
            v = (nu0 * pool + m2[p] + c * r * r) / (nu0 + c)
        else:
            v = s + r * r
        if v < floor:
            v = floor
        sig2[p] = v
        ll += -0.5 * c * (math.log(2.0 * math.pi) + math.log(v)) - 0.5 * c * (s + r * r) / v
        if nu0 > 0.0 and c >= 2:
            ll -= 0.5 * nu0 * (math.log(v) + pool / v)
    return ll


@_njit
def chol_solve(A, b, m):
    """Solve ``A x = b`` (first ``m`` rows/cols) by Cholesky in place; False if A is not positive definite.

    Each entry ``L[i, j] = (A[i, j] - sum_q L[i, q] L[j, q]) / L[j, j]`` subtracts its terms in the order
    q = 0, 1, ..., j - 1 (a plain dot product per entry). Below the diagonal the entries of a column are
    computed eight (then four, then one) rows at a time, each with its own accumulator: the same operations
    in the same order for every entry, so the factor is the same bit for bit as one entry at a time, but
    the independent subtractions overlap instead of waiting on each other (about 2-3 times faster at
    ``m = 99``)."""
    for j in range(m):
        rj = A[j]
        s = rj[j]
        d0 = s
        for q in range(j):
            s -= rj[q] * rj[q]
        if not s > 1e-13 * abs(d0):
            return False
        L = math.sqrt(s)
        rj[j] = L
        i = j + 1
        while i + 7 < m:
            r0 = A[i]
            r1 = A[i + 1]
            r2 = A[i + 2]
            r3 = A[i + 3]
            r4 = A[i + 4]
            r5 = A[i + 5]
            r6 = A[i + 6]
            r7 = A[i + 7]
            t0 = r0[j]
            t1 = r1[j]
            t2 = r2[j]
            t3 = r3[j]
            t4 = r4[j]
            t5 = r5[j]
            t6 = r6[j]
            t7 = r7[j]
            for q in range(j):
                w = rj[q]
                t0 -= r0[q] * w
                t1 -= r1[q] * w
                t2 -= r2[q] * w
                t3 -= r3[q] * w
                t4 -= r4[q] * w
                t5 -= r5[q] * w
                t6 -= r6[q] * w
                t7 -= r7[q] * w
            r0[j] = t0 / L
            r1[j] = t1 / L
            r2[j] = t2 / L
            r3[j] = t3 / L
            r4[j] = t4 / L
            r5[j] = t5 / L
            r6[j] = t6 / L
            r7[j] = t7 / L
            i += 8
        while i + 3 < m:
            r0 = A[i]
            r1 = A[i + 1]
            r2 = A[i + 2]
            r3 = A[i + 3]
            t0 = r0[j]
            t1 = r1[j]
            t2 = r2[j]
            t3 = r3[j]
            for q in range(j):
                w = rj[q]
                t0 -= r0[q] * w
                t1 -= r1[q] * w
                t2 -= r2[q] * w
                t3 -= r3[q] * w
            r0[j] = t0 / L
            r1[j] = t1 / L
            r2[j] = t2 / L
            r3[j] = t3 / L
            i += 4
        while i < m:
            r0 = A[i]
            t0 = r0[j]
            for q in range(j):
                t0 -= r0[q] * rj[q]
            r0[j] = t0 / L
            i += 1
    for i in range(m):
        t = b[i]
        for q in range(i):
            t -= A[i, q] * b[q]
        b[i] = t / A[i, i]
    for i in range(m - 1, -1, -1):
        t = b[i]
        for q in range(i + 1, m):
            t -= A[q, i] * b[q]
        b[i] = t / A[i, i]
    return True


@_njit
def _newton_system(K, pi, pj, n, xbar, m2, floor, pool, gamma, A, g, mm, nu0=0.0):
    """Gradient ``g`` of the profile likelihood in gamma_1..K-1 and ``A`` = minus its Hessian, or with
    ``mm`` the majorising (IRLS) matrix: the Laplacian with weights ``n / sigma2`` (always positive
    definite on a connected comparison graph). Pairs below two samples have the fixed variance ``pool``.
    With a variance prior ``nu0 > 0`` a pair's profile term is ``-(n + nu0) / 2 log sigma2(r)`` with
    ``sigma2(r) = (nu0 pool + m2 + n r^2) / (nu0 + n)``: gradient ``n r / sigma2`` as without it, minus second
    derivative ``n (sigma2 - 2 n r^2 / (nu0 + n)) / sigma2^2``."""
    m = K - 1
    for a in range(m):
        g[a] = 0.0
        for b in range(m):
            A[a, b] = 0.0
    for p in range(n.size):
        i = pi[p]
        j = pj[p]
        c = n[p]
        if c == 0:
            continue
        r = xbar[p] - (gamma[i] - gamma[j])
        s = m2[p] / c
        v = s + r * r
        if c < 2:                  # fixed variance: a Gaussian term with known sigma^2
            v = pool if pool > floor else floor
            gr = c * r / v
            h = c / v
        elif nu0 > 0.0:
            v = (nu0 * pool + m2[p] + c * r * r) / (nu0 + c)
            if v > floor:
                gr = c * r / v
                h = c / v if mm else c * (v - 2.0 * c * r * r / (nu0 + c)) / (v * v)
            else:
                gr = c * r / floor
                h = c / floor
        elif v > floor:
            gr = c * r / v
            h = c / v if mm else c * (s - r * r) / (v * v)
        else:
            gr = c * r / floor
            h = c / floor
        if i > 0:
            g[i - 1] += gr
            A[i - 1, i - 1] += h
        if j > 0:
            g[j - 1] -= gr
            A[j - 1, j - 1] += h
        if i > 0 and j > 0:
            A[i - 1, j - 1] -= h
            A[j - 1, i - 1] -= h


@_njit
def fit_thurstone_ref(K, pidx, pi, pj, n, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter, nu0=0.0):
    """``fit_thurstone`` computed plainly: ``profile_ll``, ``_newton_system`` and ``chol_solve`` in turn, no
    cache (the reference the fast path is tested against)."""
    scale2 = data_scale2(n, xbar, m2)
    floor = var_floor * scale2
    tol = fit_tol * math.sqrt(scale2)
    if init:
        init_eq67(K, pidx, n, xbar, m2, floor, scale2, gamma, sig2, nu0)
    g0 = gamma[0]
    for i in range(K):
        gamma[i] -= g0
    m = K - 1
    A = np.empty((m, m))
    g = np.empty(m)
    trial = np.empty(K)
    ll = profile_ll(pi, pj, n, xbar, m2, floor, scale2, gamma, sig2, nu0)
    for it in range(max_iter):
        _newton_system(K, pi, pj, n, xbar, m2, floor, scale2, gamma, A, g, False, nu0)
        for a in range(m):
            trial[a] = g[a]          # keep the gradient: the solve overwrites g
        newton = chol_solve(A, g, m)
        if not newton:
            _newton_system(K, pi, pj, n, xbar, m2, floor, scale2, gamma, A, g, True, nu0)
            chol_solve(A, g, m)
        slope = 0.0
        big = 0.0
        for a in range(m):
            slope += trial[a] * g[a]
            if abs(g[a]) > big:
                big = abs(g[a])
        # rounding of ll: gains below this cannot be seen
        eps_ll = 1e-13 * (1.0 + abs(ll))
        # converged: a Newton step shorter than tol, or a Newton decrement (predicted gain slope / 2)
        # below the rounding of ll; a majorising step is shorter than the Newton step, so it must be
        # far smaller before it proves the same
        done = (big <= tol or 0.5 * slope <= eps_ll) if newton else big <= 1e-3 * tol
        t = 1.0
        accepted = False
        trial[0] = 0.0
        for ls in range(40):
            for a in range(m):
                trial[a + 1] = gamma[a + 1] + t * g[a]
            new = profile_ll(pi, pj, n, xbar, m2, floor, scale2, trial, sig2, nu0)
            if new >= ll + 1e-4 * t * slope - eps_ll:
                accepted = True
                break
            t *= 0.5
        if done:
            if accepted and t == 1.0:     # the last Newton step is free and only improves
                for a in range(m):
                    gamma[a + 1] = trial[a + 1]
                return it + 1             # sig2 already belongs to the accepted trial
            profile_ll(pi, pj, n, xbar, m2, floor, scale2, gamma, sig2, nu0)
            return it + 1
        if not accepted:            # no ascent at machine precision: at the maximum
            profile_ll(pi, pj, n, xbar, m2, floor, scale2, gamma, sig2, nu0)
            return it + 1
        for a in range(m):
            gamma[a + 1] = trial[a + 1]
        ll = new
    profile_ll(pi, pj, n, xbar, m2, floor, scale2, gamma, sig2, nu0)
    return -max_iter


# --- the fit's fast path: the same arithmetic as ``profile_ll``, ``_newton_system`` and ``chol_solve`` --------
#
# ``fit_thurstone`` computes every pair's profile-likelihood term and its Newton terms in one pass (the
# expressions of ``profile_ll`` and ``_newton_system``, so the values are the same bit for bit), keeps them
# in a **fit cache**, and solves on the upper triangle with a vectorisable Cholesky (``chol_solve_upper``).
# A decision's fit starts where the previous one ended, after one more sample: its starting pass reuses
# the cached terms of every pair whose data and gamma are unchanged and whose variance no floor touches,
# so it computes one pair instead of all. The likelihood is still summed over all pairs in pair order.
# ``fit_thurstone_ref`` is the plain method the tests compare against.

_C_XB, _C_M2, _C_N, _C_S, _C_T, _C_GR, _C_H, _C_VR, _C_SIG, _C_R = range(10)
_C_ROWS = 10
_KEPT8 = np.uint64(0x0101010101010101)    # eight kept pairs' marks
_FAST_FIT_K = 16             # measured: the fast path is slower at K = 10, faster from K = 20 on


def new_fit_cache(K, P):
    """An empty fit cache for ``K`` alternatives and ``P`` pairs: ``(C, G)``, per-pair rows and the gamma
    they belong to (``G[K] = 0``: nothing cached; ``G[K + 3]``: the variance floor the terms were computed
    at). A cache serves one set of pairs (``pi``, ``pj``)."""
    return _new_fit_cache(K, P)


@_njit
def _new_fit_cache(K, P):
    C = np.full((_C_ROWS, P), np.nan)
    G = np.zeros(K + 4)
    return C, G


@_njit
def _fit_pass(pi, pj, n, xbar, m2, floor, pool, gamma, sig2, nu0, C, G, start, B, gn, build):
    """``profile_ll`` at ``gamma`` (fills ``sig2``; returns the log-likelihood and whether it built the Newton
    system, below) and each pair's Newton terms
    (``_newton_system``'s gradient and Hessian contributions) into the cache ``C``, which then belongs to
    ``gamma``. ``start``: refresh the per-pair data (``m2 / n``) and reuse the cached terms of every pair
    whose data and gamma are those of the cache and whose variance is above both floors (without a
    variance prior: with one, the terms depend on the pooled variance). ``build``: where every pair has two
    samples, in row-major order, and there is no variance prior, also the Newton system at ``gamma`` into
    ``B`` and ``gn`` (``_row_sums``, its sums in the likelihood's loop); elsewhere the caller builds it from
    the cache."""
    K = gamma.size
    P = n.size
    same_gamma = False
    if start:
        same_gamma = G[K] == 1.0 and nu0 == 0.0
        for i in range(K):
            if not G[i] == gamma[i]:
                same_gamma = False
                break
        G[K + 1] = 1.0                        # every pair has two samples: the vectorised pass applies
        if G[K + 2] == 0.0:                   # every pair, row-major (1) or not (-1): the row-wise system
            G[K + 2] = 1.0 if P == K * (K - 1) // 2 else -1.0
            q = 0
            for i in range(K):
                for j in range(i + 1, K):
                    if q < P and not (pi[q] == i and pj[q] == j):
                        G[K + 2] = -1.0
                    q += 1
    elif nu0 == 0.0 and G[K + 1] == 1.0:
        return _fit_pass_fast(pi, pj, floor, gamma, sig2, C, G, B, gn, build)
    nw = (P + 7) // 8
    ok = np.ones(8 * nw if same_gamma else 8, dtype=np.uint8)
    okw = ok.view(np.uint64)      # eight marks a word: a word of kept pairs is skipped whole
    if same_gamma:                # which pairs keep their cached terms: a branch-free (vectorised) pass
        N = C[_C_N]
        XB = C[_C_XB]
        M2 = C[_C_M2]
        VR = C[_C_VR]
        SIG = C[_C_SIG]
        cf = G[K + 3]
        for p in range(P):
            c = n[p]
            vr = VR[p]
            ok[p] = (N[p] == c) & (XB[p] == xbar[p]) & (M2[p] == m2[p]) & (c >= 2) & (vr > cf) & (vr > floor)
            sig2[p] = SIG[p]      # (the others' are computed below)
    ll = 0.0                      # with a variance prior summed here; without one after the loop, in pair order
    log2pi = math.log(2.0 * math.pi)
    for wd in range(nw):
        if same_gamma and okw[wd] == _KEPT8:
            continue
        for p in range(8 * wd, min(8 * wd + 8, P)):
            if same_gamma and ok[p]:
                continue
            c = n[p]
            if start:
                if c < 2:
                    G[K + 1] = 0.0
                if not (C[_C_N, p] == c and C[_C_XB, p] == xbar[p] and C[_C_M2, p] == m2[p]):
                    C[_C_N, p] = c
                    C[_C_XB, p] = xbar[p]
                    C[_C_M2, p] = m2[p]
                    C[_C_S, p] = m2[p] / c if c > 0 else 0.0
            if c == 0:
                sig2[p] = pool
                continue
            r = xbar[p] - (gamma[pi[p]] - gamma[pj[p]])
            s = C[_C_S, p]
            # profile_ll
            if c < 2:
                v = pool
            elif nu0 > 0.0:
                v = (nu0 * pool + m2[p] + c * r * r) / (nu0 + c)
            else:
                v = s + r * r
            if v < floor:
                v = floor
            sig2[p] = v
            C[_C_SIG, p] = v
            lv = log(v)
            t = -0.5 * c * (log2pi + lv) - 0.5 * c * (s + r * r) / v
            C[_C_T, p] = t
            if nu0 > 0.0:
                ll += t
                if c >= 2:
                    ll -= 0.5 * nu0 * (lv + pool / v)
            # _newton_system (mm = False)
            w = s + r * r
            C[_C_VR, p] = w
            if c < 2:
                w = pool if pool > floor else floor
                gr = c * r / w
                h = c / w
            elif nu0 > 0.0:
                w = (nu0 * pool + m2[p] + c * r * r) / (nu0 + c)
                if w > floor:
                    gr = c * r / w
                    h = c * (w - 2.0 * c * r * r / (nu0 + c)) / (w * w)
                else:
                    gr = c * r / floor
                    h = c / floor
            elif w > floor:
                gr = c * r / w
                h = c * (s - r * r) / (w * w)
            else:
                gr = c * r / floor
                h = c / floor
            C[_C_GR, p] = gr
            C[_C_H, p] = h
    for i in range(K):
        G[i] = gamma[i]
    G[K] = 1.0
    G[K + 3] = floor        # the reused terms had their variances above it too: all are those at floor
    if nu0 > 0.0:
        return ll, False
    T = C[_C_T]
    if build and G[K + 1] == 1.0 and G[K + 2] == 1.0:
        return _row_sums(T, C[_C_GR], C[_C_H], B, gn, K - 1, True), True
    for p in range(P):
        if n[p] != 0:
            ll += T[p]
    return ll, False


@_inline
def _pass_row(p0, L, j0, gi, gamma, XB, R):
    """The residuals of row ``i`` (pairs ``p0 .. p0 + L - 1``, ``j = j0 ..``) for ``_fit_pass_fast``; unsigned
    indices spare numba's negative-index checks, so the loop is vectorised."""
    up0 = np.uint64(p0)
    uj0 = np.uint64(j0)
    for t in range(np.uint64(L)):
        R[up0 + t] = XB[up0 + t] - (gi - gamma[uj0 + t])


@_njit
def _pass_terms(P, floor, log2pi, N, S, R, VR, SIG, sig2, GR, H, T):
    """Each pair's variance (``VR`` before the floor, ``SIG`` and ``sig2`` after), likelihood term (``T``) and
    Newton terms (``GR``, ``H``) for ``_fit_pass_fast``, in one loop on vectors (unsigned indices), glibc's
    ``log`` inlined (``log_normal``: variances near 1 are common); True if a variance is zero or subnormal,
    whose terms the caller computes again with ``log``. The Newton term of a pair on the variance floor,
    ``c / floor``, is set in a second loop where there is one, so the vectors divide three times, not four."""
    outside = False
    floored = False
    for p in range(np.uint64(P)):
        c = N[p]
        r = R[p]
        s = S[p]
        w = s + r * r
        VR[p] = w
        v = w if not w < floor else floor
        SIG[p] = v
        sig2[p] = v
        y = 0.5 * c * (s + r * r) / v         # the second term of profile_ll's sum
        up = w > floor
        GR[p] = c * r / (w if up else floor)
        H[p] = c * (s - r * r) / (w * w)
        floored |= not up
        outside |= not normal_range(v)
        T[p] = -0.5 * c * (log2pi + log_normal(v)) - y
    if floored:
        for p in range(P):
            if not VR[p] > floor:
                H[p] = N[p] / floor
    return outside


@_njit
def _fit_pass_fast(pi, pj, floor, gamma, sig2, C, G, B, gn, build):
    """``_fit_pass`` (not a start) where every pair has two samples and there is no variance prior: the
    same expressions, split into loops whose divisions and logarithms (``infra.log``, glibc's bit for bit) run
    on vectors; the likelihood summed in pair order, with the Newton system's sums when ``build``."""
    K = gamma.size
    T = C[_C_T]
    _pass_values(pi, pj, floor, gamma, sig2, C, G)
    if build and G[K + 2] == 1.0:
        return _row_sums(T, C[_C_GR], C[_C_H], B, gn, K - 1, True), True
    ll = 0.0
    for p in range(pi.size):      # summed in pair order
        ll += T[p]
    return ll, False


@_njit
def _pass_values(pi, pj, floor, gamma, sig2, C, G):
    """``_fit_pass_fast`` up to its sums: every pair's terms into the cache ``C``, which then belongs to
    ``gamma``, and the variances into ``sig2``."""
    K = gamma.size
    P = pi.size
    N = C[_C_N]
    S = C[_C_S]
    XB = C[_C_XB]
    R = C[_C_R]
    T = C[_C_T]
    rows = G[K + 2] == 1.0
    if rows:                      # every pair in row-major order: rows of contiguous gamma_j, on vectors
        p0 = 0
        for i in range(K):
            _pass_row(p0, K - 1 - i, i + 1, gamma[i], gamma, XB, R)
            p0 += K - 1 - i
    else:
        for p in range(P):
            R[p] = XB[p] - (gamma[pi[p]] - gamma[pj[p]])
    log2pi = math.log(2.0 * math.pi)
    if _pass_terms(P, floor, log2pi, N, S, R, C[_C_VR], C[_C_SIG], sig2, C[_C_GR], C[_C_H], T):
        SIG = C[_C_SIG]
        for p in range(P):
            v = SIG[p]
            if not normal_range(v):
                c = N[p]
                r = R[p]
                T[p] = -0.5 * c * (log2pi + log(v)) - 0.5 * c * (S[p] + r * r) / v
    for i in range(K):
        G[i] = gamma[i]
    G[K] = 1.0
    G[K + 3] = floor


@_inline
def _system_row(p0, L, i, GR, H, g, dg):
    """Row ``i``'s pairs ``(i, j)``, ``j = i + 1 ..``, for the other ends ``j``: ``g_j -= gr`` and ``dg_j += h``
    (vectorised; unsigned indices)."""
    up0 = np.uint64(p0)
    ui = np.uint64(i)
    for t in range(np.uint64(L)):
        p = up0 + t
        j1 = ui + t                   # j - 1
        g[j1] -= GR[p]
        dg[j1] += H[p]


@_njit
def _row_sums(T, GR, H, B, g, m, likelihood):
    """The Newton system (``_newton_system``, ``mm = False``) from the pairs' terms, every pair in row-major
    order, on the upper triangle of ``B``; with ``likelihood`` also the sum of ``T`` in pair order, returned
    (else 0). Each node's sums take its pairs in pair order: first (a, i) for a < i (added while row a is
    scanned), then its own row (i, j), j > i, added in registers, in the same loop as the likelihood's terms
    (independent chains of additions, so they overlap); every off-diagonal entry belongs to one pair and is
    written once (0 - h) instead of zeroed and updated, in that loop too (a vector loop of its own per row
    cost more in setting up than in storing)."""
    dg = np.zeros(m)
    for a in range(m):
        g[a] = 0.0
    ll = 0.0
    p = 0
    for i in range(m + 1):
        ag = 0.0
        ad = 0.0
        if i > 0:
            ag = g[i - 1]
            ad = dg[i - 1]
        _system_row(p, m - i, i, GR, H, g, dg)
        row = B[i - 1] if i > 0 else B[0]
        ui = np.uint64(i)
        up0 = np.uint64(p)
        if likelihood:
            for t in range(np.uint64(m - i)):
                q = up0 + t
                h = H[q]
                ll += T[q]
                ag += GR[q]
                ad += h
                if i > 0:
                    row[ui + t] = 0.0 - h
        else:
            for t in range(np.uint64(m - i)):
                q = up0 + t
                h = H[q]
                ag += GR[q]
                ad += h
                if i > 0:
                    row[ui + t] = 0.0 - h
        p += m - i
        if i > 0:
            g[i - 1] = ag
            dg[i - 1] = ad
    for a in range(m):
        B[a, a] = dg[a]
    return ll


@_njit
def _system_from_cache(pi, pj, n, C, B, g, m, rows):
    """``_newton_system`` (``mm = False``) from the cached per-pair terms, on the upper triangle of ``B``
    (the sums in the same order, so the same values). ``rows``: the pairs are every pair in row-major
    order and all have samples (``_fit_pass`` checks)."""
    if rows:
        _row_sums(C[_C_T], C[_C_GR], C[_C_H], B, g, m, False)
        return
    P = n.size
    for a in range(m):
        g[a] = 0.0
        B[a, a] = 0.0
    for a in range(m):
        row = B[a]
        for b in range(a + 1, m):
            row[b] = 0.0
    for p in range(P):
        if n[p] == 0:
            continue
        i = pi[p]
        j = pj[p]
        gr = C[_C_GR, p]
        h = C[_C_H, p]
        if i > 0:
            g[i - 1] += gr
            B[i - 1, i - 1] += h
        if j > 0:
            g[j - 1] -= gr
            B[j - 1, j - 1] += h
        if i > 0 and j > 0:
            a = i - 1
            b = j - 1
            if a > b:
                a, b = b, a
            B[a, b] -= h


_LANES = np.uint64(8)              # doubles in a 64-byte vector (and cache line)
_ALIGN_DOWN = ~np.uint64(7)


def chol_matrix(m):
    """A work matrix for ``chol_solve_upper``: ``m`` rows padded to a multiple of eight doubles, the first
    row starting on a 64-byte boundary, so that every row's updates run in whole aligned vectors."""
    return _chol_matrix(m)


@_njit
def _chol_matrix(m):
    W = (m + 7) // 8 * 8
    buf = np.empty(m * W + 8)
    off = ((-buf.ctypes.data) % 64) // 8
    return buf[off:off + m * W].reshape((m, W))


@_njit
def _chol_pad(B, m):
    """Zero the entries the aligned windows touch outside the upper triangle: up to two vectors left of
    each diagonal and the columns right of ``m`` (so no stale NaN or subnormal slows the vector loops)."""
    W = np.uint64(B.shape[1])
    for a in range(m):
        lo = a & _ALIGN_DOWN
        lo = lo - _LANES if lo >= _LANES else np.uint64(0)
        for i in range(lo, a):
            B[a, i] = 0.0
        for i in range(m, W):
            B[a, i] = 0.0


@_inline
def _chol_pivot(B, b, j, m, d0):
    """Finish row ``j`` of the upper-triangular factor (the square root of its diagonal, the division of the
    rest of the row) and step ``j`` of the forward substitution; False if the diagonal fails ``chol_solve``'s
    test. The division runs over the row's aligned window; what it divides left of the diagonal is unused."""
    s = B[j, j]
    if not s > 1e-13 * abs(d0[j]):
        return False
    L = math.sqrt(s)
    for i in range((j + np.uint64(1)) & _ALIGN_DOWN, np.uint64(B.shape[1])):
        B[j, i] = B[j, i] / L
    B[j, j] = L
    bj = b[j] / L
    b[j] = bj
    for i in range(j + np.uint64(1), m):
        b[i] -= B[j, i] * bj
    return True


@_inline
def _chol_update(B, j, q):
    """Subtract row ``j``'s term from row ``q`` (over row ``q``'s aligned window, entries ``q .. m - 1`` and
    the unused ones around them)."""
    w = B[j, q]
    for i in range(q & _ALIGN_DOWN, np.uint64(B.shape[1])):
        B[q, i] -= B[j, i] * w


@_njit
def chol_solve_upper(B, b, m, d0):
    """``chol_solve`` on the upper triangle (``B[q, i] = L[i, q]``; rows of ``B`` may be longer than ``m``,
    see ``chol_matrix``), right-looking: every entry receives the same subtractions in the same order
    q = 0, 1, ... and the same division, so the factor and the solution are those of ``chol_solve`` bit for
    bit. The updates run along rows, four pivot rows into two target rows at a time, over windows that
    start on a multiple of eight columns and run to the end of the row (whole vectors: the entries left of
    the diagonal and right of ``m`` that they also compute are never read into the factor, and
    ``_chol_pad`` zeroes them first); the forward substitution runs with the factorisation, each entry's
    subtractions still in the order q = 0, 1, .... ``d0``: a work array of ``m``. False if ``B`` is not
    positive definite (at the same column as ``chol_solve``; ``b`` then holds a partial forward substitution);
    the lower triangle is overwritten."""
    um = np.uint64(m)
    one = np.uint64(1)
    W = np.uint64(B.shape[1])
    _chol_pad(B, um)
    for j in range(um):
        d0[j] = B[j, j]
    j = np.uint64(0)
    while j + np.uint64(3) < um:
        j1 = j + one
        j2 = j + np.uint64(2)
        j3 = j + np.uint64(3)
        if not _chol_pivot(B, b, j, um, d0):
            return False
        _chol_update(B, j, j1)
        _chol_update(B, j, j2)
        _chol_update(B, j, j3)
        if not _chol_pivot(B, b, j1, um, d0):
            return False
        _chol_update(B, j1, j2)
        _chol_update(B, j1, j3)
        if not _chol_pivot(B, b, j2, um, d0):
            return False
        _chol_update(B, j2, j3)
        if not _chol_pivot(B, b, j3, um, d0):
            return False
        r0 = B[j]
        r1 = B[j1]
        r2 = B[j2]
        r3 = B[j3]
        q = j + np.uint64(4)
        while q + one < um:       # rows q and q + 1 share the pivot rows' loads
            q1 = q + one
            w0, w1, w2, w3 = r0[q], r1[q], r2[q], r3[q]
            v0, v1, v2, v3 = r0[q1], r1[q1], r2[q1], r3[q1]
            ra = B[q]
            rb = B[q1]
            for i in range(q & _ALIGN_DOWN, W):
                a0 = r0[i]
                a1 = r1[i]
                a2 = r2[i]
                a3 = r3[i]
                ra[i] = (((ra[i] - a0 * w0) - a1 * w1) - a2 * w2) - a3 * w3
                rb[i] = (((rb[i] - a0 * v0) - a1 * v1) - a2 * v2) - a3 * v3
            q += np.uint64(2)
        if q < um:
            w0, w1, w2, w3 = r0[q], r1[q], r2[q], r3[q]
            ra = B[q]
            for i in range(q & _ALIGN_DOWN, W):
                ra[i] = (((ra[i] - r0[i] * w0) - r1[i] * w1) - r2[i] * w2) - r3[i] * w3
        j += np.uint64(4)
    while j < um:
        if not _chol_pivot(B, b, j, um, d0):
            return False
        for q in range(j + one, um):
            _chol_update(B, j, q)
        j += one
    for k in range(um):           # back substitution: one serial chain, in chol_solve's order
        i = um - one - k
        t = b[i]
        for q in range(i + one, um):
            t -= B[i, q] * b[q]
        b[i] = t / B[i, i]
    return True

@_njit
def fit_thurstone_cached(K, pidx, pi, pj, n, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter, nu0, C, G):
    """``fit_thurstone`` with the fit cache ``(C, G)`` (``new_fit_cache``) kept by the caller between fits:
    the same iterations, gamma and sig2 bit for bit as ``fit_thurstone_ref``. Below ``_FAST_FIT_K``
    alternatives the plain method is the faster one (the cache's bookkeeping outweighs what it saves)."""
    if K < _FAST_FIT_K:
        return _plain_fit(K, pidx, pi, pj, n, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter, nu0, G)
    none = np.empty(0)
    return _fit_cached(K, pidx, pi, pj, n, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter, nu0, C, G,
                       none, none, none, none)[0]


@_inline
def _plain_fit(K, pidx, pi, pj, n, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter, nu0, G):
    """Below ``_FAST_FIT_K``: the plain fit, and the cache marked empty (inlined into its callers: at K = 10
    one more call level costs a twentieth of a decision)."""
    G[K] = 0.0
    return fit_thurstone_ref(K, pidx, pi, pj, n, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter, nu0)


@_njit
def _fit_cached(K, pidx, pi, pj, n, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter, nu0, C, G,
                nc, var, DV, D):
    """``fit_thurstone_cached``, returning (iterations, posted). With counts ``nc`` (not empty), where the
    vectorised pass applies with every pair in row-major order, the last iteration's pass also computes
    ``_posterior_reductions`` at its trial (``var``, ``DV``, ``D``), whose sums then overlap the likelihood's;
    ``posted``: the fit ended at that trial, so they belong to the returned fit. For ``K >= _FAST_FIT_K``
    (``fit_thurstone_cached`` and ``ml_decide`` send smaller problems to the plain fit)."""
    scale2 = data_scale2(n, xbar, m2)
    floor = var_floor * scale2
    tol = fit_tol * math.sqrt(scale2)
    if init:
        init_eq67(K, pidx, n, xbar, m2, floor, scale2, gamma, sig2, nu0)
    g0 = gamma[0]
    for i in range(K):
        gamma[i] -= g0
    m = K - 1
    B = _chol_matrix(m)
    g = np.empty(m)
    gn = np.empty(m)
    d0 = np.empty(m)
    trial = np.empty(K)
    ll, built = _fit_pass(pi, pj, n, xbar, m2, floor, scale2, gamma, sig2, nu0, C, G, True, B, gn, True)
    rows = G[K + 1] == 1.0 and G[K + 2] == 1.0
    fuse = rows and nu0 == 0.0     # the line search's passes can build the next Newton system
    post = fuse and nc.size > 0    # and the last one the posteriors
    for it in range(max_iter):
        if built:
            for a in range(m):
                g[a] = gn[a]
        else:
            _system_from_cache(pi, pj, n, C, B, g, m, rows)
        for a in range(m):
            trial[a] = g[a]          # keep the gradient: the solve overwrites g
        newton = chol_solve_upper(B, g, m, d0)
        if not newton:
            _newton_system(K, pi, pj, n, xbar, m2, floor, scale2, gamma, B, g, True, nu0)
            chol_solve(B, g, m)
        slope = 0.0
        big = 0.0
        for a in range(m):
            slope += trial[a] * g[a]
            if abs(g[a]) > big:
                big = abs(g[a])
        eps_ll = 1e-13 * (1.0 + abs(ll))
        done = (big <= tol or 0.5 * slope <= eps_ll) if newton else big <= 1e-3 * tol
        t = 1.0
        accepted = False
        trial[0] = 0.0
        build = fuse and not done     # the next iteration's system, should this trial be accepted
        for ls in range(40):
            for a in range(m):
                trial[a + 1] = gamma[a + 1] + t * g[a]
            if post and done and ls == 0:
                _pass_values(pi, pj, floor, trial, sig2, C, G)
                new = _posterior_reductions(K, nc, sig2, var, DV, D, C[_C_T], True)
                built = False
            else:
                new, built = _fit_pass(pi, pj, n, xbar, m2, floor, scale2, trial, sig2, nu0, C, G, False, B, gn,
                                       build)
            if new >= ll + 1e-4 * t * slope - eps_ll:
                accepted = True
                break
            t *= 0.5
        if done:
            if accepted and t == 1.0:
                for a in range(m):
                    gamma[a + 1] = trial[a + 1]
                return it + 1, post
            _fit_pass(pi, pj, n, xbar, m2, floor, scale2, gamma, sig2, nu0, C, G, False, B, gn, False)
            return it + 1, False
        if not accepted:
            _fit_pass(pi, pj, n, xbar, m2, floor, scale2, gamma, sig2, nu0, C, G, False, B, gn, False)
            return it + 1, False
        for a in range(m):
            gamma[a + 1] = trial[a + 1]
        ll = new
    _fit_pass(pi, pj, n, xbar, m2, floor, scale2, gamma, sig2, nu0, C, G, False, B, gn, False)
    return -max_iter, False


@_njit
def fit_thurstone(K, pidx, pi, pj, n, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter, nu0=0.0):
    """Maximise the log-likelihood of eq 4 over (gamma, sigma^2); returns the iterations (< 0: cap hit).

    Given gamma, each sigma^2_ij has the closed-form maximiser ``s2b_ij + (xbar_ij - gamma_i +
    gamma_j)^2`` (eq 5 = 0, ``s2b`` the biased sample variance), so the maximum of eq 4 is the maximum
    of the profile likelihood in gamma, found by Newton's method with safeguards: the Newton direction
    when minus the Hessian is positive definite (a Cholesky factorisation succeeds), otherwise the
    majorise-minimise direction (the weighted least-squares update with weights ``n / sigma2``, always an
    ascent direction), each with a backtracking (Armijo) line search, so the likelihood never falls.
    ``gamma_0 = 0`` fixes the gauge, as eq 6 does. Start: eqs 6-7 when ``init`` (Table 1), else the given
    gamma (warm start). Stops when a Newton step moves no gamma by more than ``fit_tol`` times the data
    scale (root mean pair sample variance; a majorising step must be 1000 times smaller) or predicts a
    gain below the rounding of the likelihood, or the line search cannot raise it, or after
    ``max_iter`` iterations. Variances are floored at ``var_floor`` times the squared data scale so
    noiseless pairs keep a finite likelihood. ``sig2`` is returned at its maximiser for the final gamma.
    With a variance prior ``nu0 > 0`` the objective is eq 4 plus the prior's pseudo-samples (module
    docstring), a penalised likelihood whose variances cannot collapse on pairs whose samples are equal.
    """
    C, G = _new_fit_cache(K, n.size)
    return fit_thurstone_cached(K, pidx, pi, pj, n, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter,
                                nu0, C, G)


@_njit
def model_posterior(K, pidx, n, gamma, sig2, mu, var):
    """Eq 9: mu_i = sum_j (gamma_i - gamma_j) = K gamma_i - sum gamma; var_i = sum_j sig2_ij / n_ij."""
    _model_means(K, gamma, mu)
    score_posterior(K, n, sig2, var)


@_njit
def _model_means(K, gamma, mu):
    """Eq 9's means: mu_i = K gamma_i - sum gamma."""
    tot = 0.0
    for i in range(K):
        tot += gamma[i]
    for i in range(K):
        mu[i] = K * gamma[i] - tot


@_njit
def _observed_variance(n, m2, p, pool, unbiased, nu0):
    """Eq 17's observed pair variance: unbiased (eq 7) or ML (``m2 / n``), shrunk with ``nu0 > 0``; the
    pooled variance below two samples."""
    if unbiased or n[p] < 2:
        return pair_variance(n, m2, p, pool, nu0)
    if nu0 > 0.0:
        return (nu0 * pool + m2[p]) / (nu0 + n[p])
    return m2[p] / n[p]


@_njit
def intransitivity_index(K, pidx, n, xbar, m2, gamma, sig2, per_sample, unbiased, var_floor, nu0=0.0):
    """Eq 17 with eq 19's Gaussian KL, observed vs fitted-model score distributions.

    Observed ``S^_i``: mean ``sum_j xbar_ij``, variance ``sum_j v_ij`` with ``v`` the biased (ML, /n)
    sample variance, or the unbiased one when ``unbiased``. Model ``S*_i``: mean ``sum_j (gamma_i -
    gamma_j)``, variance ``sum_j sig2_ij``. With ``per_sample`` the variances are those of one sample per
    pair; otherwise each term is divided by ``n_ij`` (the score posteriors of eq 9). With a variance prior
    ``nu0 > 0`` the observed variances are shrunk as the fit's are (module docstring).
    """
    pool = data_scale2(n, xbar, m2)
    floor = var_floor * pool
    tot = 0.0
    for i in range(K):
        tot += gamma[i]
    # one pass over the pairs (row-major i < j) adds each term to both items in the order j = 0, 1, ...
    mo = np.zeros(K)
    vo = np.zeros(K)
    vm = np.zeros(K)
    p = 0
    for i in range(K):
        for j in range(i + 1, K):
            v = _observed_variance(n, m2, p, pool, unbiased, nu0)
            if v < floor:
                v = floor
            w = sig2[p]
            if not per_sample:
                v = v / n[p]
                w = w / n[p]
            mo[i] += xbar[p]
            mo[j] -= xbar[p]
            vo[i] += v
            vo[j] += v
            vm[i] += w
            vm[j] += w
            p += 1
    acc = 0.0
    for i in range(K):
        mm = K * gamma[i] - tot
        d2 = (mo[i] - mm) * (mo[i] - mm)
        # D(P||Q) + D(Q||P) for Gaussians: the log terms of eq 19 cancel
        acc += (vo[i] + d2) / (2.0 * vm[i]) + (vm[i] + d2) / (2.0 * vo[i]) - 1.0
    return 1.0 - math.exp(-acc / (2.0 * K))


@_njit
def ml_decide(K, k, pidx, pi, pj, n, nc, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter, mu, var,
              nu0, C, G):
    """One ML-POCBAm decision (Table 1): fit, eq 9 posteriors, c, AEPCS argmax. Returns (pair, c, iters).

    The fit uses the samples seen (``n``); the posteriors and eq 13 count pending ones too (``nc``). ``(C, G)``:
    the decisions' fit cache (``new_fit_cache``), which makes the next decision's fit cheaper."""
    if K < _FAST_FIT_K:          # the plain fit, posterior and scan
        iters = _plain_fit(K, pidx, pi, pj, n, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter, nu0, G)
        p, c = _ml_choose(K, k, pidx, pi, pj, nc, gamma, sig2, mu, var, False)
        return p, c, iters
    DV = np.empty(pi.size)
    D = np.empty(K)
    iters, posted = _fit_cached(K, pidx, pi, pj, n, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter,
                                nu0, C, G, nc, var, DV, D)
    if posted:                # eq 9's variances and eq 13's reductions came with the fit's last pass
        _model_means(K, gamma, mu)
        p, c = _choose_given(mu, var, DV, D, nc, pi, pj, k, True)
    else:
        p, c = _ml_choose(K, k, pidx, pi, pj, nc, gamma, sig2, mu, var, G[K + 2] == 1.0)
    return p, c, iters


@_njit
def ml_choose(K, k, pidx, pi, pj, nc, gamma, sig2, mu, var):
    """ML-POCBAm's choice from a given fit: eq 9 posteriors with counts ``nc``, c, AEPCS argmax. With the
    pairs in row-major order the posterior variances and the pairs' eq 13 reductions share their divisions
    and loop (``_posterior_reductions``)."""
    return _ml_choose(K, k, pidx, pi, pj, nc, gamma, sig2, mu, var, K >= _FAST_FIT_K and _row_major(K, pi, pj))


@_inline
def _ml_choose(K, k, pidx, pi, pj, nc, gamma, sig2, mu, var, rows):
    """``ml_choose`` where the caller knows whether the pairs are every pair in row-major order (below
    ``_FAST_FIT_K`` it need not say: the plain kernels serve there)."""
    if not rows or K < _FAST_FIT_K:
        model_posterior(K, pidx, nc, gamma, sig2, mu, var)
        return choose_pair(mu, var, sig2, nc, pi, pj, k)
    _model_means(K, gamma, mu)
    DV = np.empty(pi.size)
    D = np.empty(K)
    _posterior_reductions(K, nc, sig2, var, DV, D, DV, False)       # (no likelihood: T unread)
    return _choose_given(mu, var, DV, D, nc, pi, pj, k, True)


@_njit
def _posterior_reductions(K, n, pvar, var, DV, D, T, likelihood):
    """``score_posterior``'s variances, ``_reductions``' ``DV`` and each item's largest reduction ``D``, every
    pair in row-major order: ``pvar / n`` divided once for both (eq 13's first term is eq 9's), and each
    row's sum and maximum taken in one loop (independent chains). The same values as the separate kernels:
    each item's variance adds its terms in the order j = 0, 1, ..., and a maximum has no order. With
    ``likelihood`` the same loop also sums ``T`` in pair order (a fit's likelihood), returned (else 0)."""
    P = n.size
    w = np.empty(P)
    for p in range(P):            # the divisions, on vectors
        x = pvar[p] / n[p]
        w[p] = x
        DV[p] = x - pvar[p] / (n[p] + 1)
    for i in range(K):
        var[i] = 0.0
        D[i] = 0.0
    ll = 0.0
    p = 0
    for i in range(K):
        L = K - 1 - i
        _row_add_max(p, L, i + 1, w, DV, var, D)
        acc = var[i]
        d = D[i]
        if likelihood:
            for q in range(p, p + L):
                ll += T[q]
                acc += w[q]
                dv = DV[q]
                if dv > d:
                    d = dv
        else:
            for q in range(p, p + L):
                acc += w[q]
                dv = DV[q]
                if dv > d:
                    d = dv
        var[i] = acc
        D[i] = d
        p += L
    return ll


@_inline
def _row_add_max(p0, L, j0, w, DV, var, D):
    """Along a row (pairs ``p0 ..``, ``j = j0 ..``): ``var_j += w_p`` and ``D_j = max(D_j, DV_p)``, vectorised
    (unsigned indices)."""
    up0 = np.uint64(p0)
    uj0 = np.uint64(j0)
    for t in range(np.uint64(L)):
        var[uj0 + t] += w[up0 + t]
        dv = DV[up0 + t]
        d = D[uj0 + t]
        D[uj0 + t] = dv if dv > d else d


@_njit
def hybrid_decide(K, k, pidx, pi, pj, n, nc, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter,
                  mu, var, pvar, per_sample, unbiased, threshold_ii, nu0, C, G):
    """Hybrid decision: fit, II; POCBAm's choice while II > threshold, else ML-POCBAm's.

    Returns (pair, II, mode, iters) with mode 1 = ML-POCBAm, 2 = POCBAm. ``n`` and ``nc`` as in
    ``ml_decide`` (the II describes the samples seen), and so is the fit cache ``(C, G)``."""
    iters = fit_thurstone_cached(K, pidx, pi, pj, n, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter, nu0,
                                 C, G)
    ii = intransitivity_index(K, pidx, n, xbar, m2, gamma, sig2, per_sample, unbiased, var_floor, nu0)
    if ii > threshold_ii:
        p, c = pocbam_decide(K, k, pidx, pi, pj, n, nc, xbar, m2, var_floor, mu, var, pvar, nu0)
        return p, ii, 2, iters
    p, c = ml_choose(K, k, pidx, pi, pj, nc, gamma, sig2, mu, var)
    return p, ii, 1, iters


# --- candidates, fixed opponents and weights (eq 1) ----------------------------------------------------
#
# The weighted score of candidate i is S_i = sum_j w_ij mu_ij over the active pairs (``weights`` module):
# pairs ``p`` with ``pi[p] < pj[p]`` where ``pi[p]`` is always a candidate, ``wa[p] = w[pi, pj]`` and
# ``wb[p] = w[pj, pi]`` (0 when ``pj`` is a fixed opponent). A pair enters the score of an end only when
# that end's weight is positive. Score arrays (``mu``, ``var``) hold the K_c candidates only. With every
# alternative a candidate and every weight 1 these kernels do the plain kernels' arithmetic operation for
# operation (a weight of 1 multiplies exactly, and the pair loops add each item's terms in the order
# j = 0, 1, ... as ``borda_means`` does), so their results are the same bit for bit (tested).


@_njit
def wscore_means(pi, pj, wa, wb, xbar, out):
    """Eq 1 with sample means: ``out[i] = sum_j w_ij xbar_ij`` for the candidates (``xbar`` is ``pi``'s view)."""
    for i in range(out.size):
        out[i] = 0.0
    for p in range(pi.size):
        x = xbar[p]
        if wa[p] > 0.0:
            out[pi[p]] += wa[p] * x
        if wb[p] > 0.0:
            out[pj[p]] -= wb[p] * x


@_njit
def wscore_variances(pi, pj, wa, wb, n, pvar, out):
    """Variances of the weighted scores with independent pairs: ``out[i] = sum_j w_ij^2 pvar_ij / n_ij``."""
    for i in range(out.size):
        out[i] = 0.0
    for p in range(pi.size):
        t = pvar[p] / n[p]
        if wa[p] > 0.0:
            out[pi[p]] += wa[p] * wa[p] * t
        if wb[p] > 0.0:
            out[pj[p]] += wb[p] * wb[p] * t


@_njit
def wmodel_means(pi, pj, wa, wb, colw, use_col, gamma, out):
    """Eq 9's means for the weighted score: ``out[i] = sum_j w_ij (gamma_i - gamma_j)`` for the candidates.

    With weights of the column form ``w_ij = v_j`` (``use_col``): ``V gamma_i - T`` with ``V = sum_j v_j``
    and ``T = sum_j v_j gamma_j`` (the ``j = i`` term is 0 either way), the weighted ``K gamma_i - sum
    gamma`` of ``model_posterior``; otherwise one pass over the active pairs."""
    if use_col:
        V = 0.0
        T = 0.0
        for j in range(colw.size):
            V += colw[j]
            T += colw[j] * gamma[j]
        for i in range(out.size):
            out[i] = V * gamma[i] - T
        return
    for i in range(out.size):
        out[i] = 0.0
    for p in range(pi.size):
        a = pi[p]
        b = pj[p]
        d = gamma[a] - gamma[b]
        if wa[p] > 0.0:
            out[a] += wa[p] * d
        if wb[p] > 0.0:
            out[b] -= wb[p] * d


@_njit
def _pair_gain_w(p, mu, var, pvar, n, pi, pj, wa, wb, sign, base, c):
    """``_pair_gain`` for weighted scores: one more sample of pair ``p`` shrinks candidate ``i``'s variance
    by ``w_ij^2`` times eq 13's reduction; only the candidate ends with a positive weight gain."""
    return _pair_gain_w_dv(p, _reduction(pvar[p], n[p]), mu, var, pi, pj, wa, wb, sign, base, c)


@_njit
def _pair_gain_w_dv(p, dv, mu, var, pi, pj, wa, wb, sign, base, c):
    """``_pair_gain_w`` with the pair's eq 13 reduction ``dv`` given."""
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
def choose_pair_w(mu, var, pvar, n, pi, pj, wa, wb, k, top):
    """``choose_pair`` for the weighted scores of the K_c candidates (``mu``, ``var`` of length K_c).

    AEPCS (eq 14) runs over the candidates only, with ``c`` of eq 11 between the k-th and (k+1)-th
    candidate. The pruned scan is ``choose_pair``'s, with each end's variance reduction ``w^2 dv``: ``D_i``
    is the largest such reduction among i's pairs, and the linear bound of a pair is ``dv (w_ij^2 R_i +
    w_ji^2 R_j)`` (``R`` as in ``choose_pair``, valid for any reduction up to ``D_i``); an end without a
    positive weight (a fixed opponent) contributes nothing. The answer equals ``choose_pair_scan_w``'s; ``top``
    receives the ``top.size`` best pairs (``pruned_scan_w``)."""
    Kc = mu.size
    dvs = _reductions(pvar, n)
    D = np.zeros(Kc)
    for p in range(pi.size):
        if wa[p] > 0.0:
            d = wa[p] * wa[p] * dvs[p]
            if d > D[pi[p]]:
                D[pi[p]] = d
        if wb[p] > 0.0:
            d = wb[p] * wb[p] * dvs[p]
            if d > D[pj[p]]:
                D[pj[p]] = d
    return pruned_scan_w(mu, var, D, dvs, n, pi, pj, wa, wb, k, top)


@_njit
def pruned_scan_w(mu, var, D, dvs, n, pi, pj, wa, wb, k, top):
    """``choose_pair_w``'s scan given each pair's reduction ``dvs`` and each candidate's largest ``D``.

    Fills ``top`` with the ``top.size`` pairs of largest AEPCS gain, best first (ties to the lower pair
    index; ``-1`` in the slots left when fewer pairs have a gain that is not NaN) and returns ``(top[0], c)``.
    Once ``top`` is full a pair is evaluated only when its bound can displace the last pair kept; with
    ``top.size == 1`` that is the single-best scan, the sequential method's choice."""
    Kc = mu.size
    P = pi.size
    nb = top.size
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
    gains = np.empty(nb)      # the gains of ``top[:kept]``, in decreasing order
    kept = _keep_top(top, gains, 0, p0, _pair_gain_w_dv(p0, dvs[p0], mu, var, pi, pj, wa, wb, sign, base, c))
    for p in range(P):
        if p == p0:
            continue
        i = pi[p]
        j = pj[p]
        if kept == nb:        # only a pair that can displace the last one kept is evaluated
            worst = gains[nb - 1]
            ua = U[i] if wa[p] > 0.0 else 0.0
            ub = U[j] if wb[p] > 0.0 else 0.0
            b = ua + ub
            if b < worst or (b == worst and p > top[nb - 1]):
                continue
            ra = wa[p] * wa[p] * R[i] if wa[p] > 0.0 else 0.0
            rb = wb[p] * wb[p] * R[j] if wb[p] > 0.0 else 0.0
            if dvs[p] * (ra + rb) < worst - 1e-9 * (1.0 + abs(worst)):
                continue
        kept = _keep_top(top, gains, kept, p, _pair_gain_w_dv(p, dvs[p], mu, var, pi, pj, wa, wb, sign, base, c))
    for r in range(kept, nb):
        top[r] = -1
    if kept == 0:
        top[0] = np.argmin(n)
    return top[0], c


@_njit
def _keep_top(top, gains, kept, p, g):
    """Insert pair ``p`` of gain ``g`` into the ``kept`` best pairs ``top`` (gains decreasing, ties to the lower
    pair index), dropping the last one when full; a NaN gain is never kept. Returns the new count kept."""
    if not g == g:
        return kept
    nb = top.size
    r = kept
    while r > 0 and (g > gains[r - 1] or (g == gains[r - 1] and p < top[r - 1])):
        r -= 1
    if r >= nb:
        return kept
    last = kept if kept < nb else nb - 1
    for s in range(last, r, -1):
        top[s] = top[s - 1]
        gains[s] = gains[s - 1]
    top[r] = p
    gains[r] = g
    return kept + 1 if kept < nb else nb


@_njit
def choose_pair_scan_w(mu, var, pvar, n, pi, pj, wa, wb, k):
    """``choose_pair_w`` by evaluating every active pair (the reference the pruned scan is tested against)."""
    c, sign, base = _sides(mu, var, k)
    best = -np.inf
    bestp = -1
    for p in range(pi.size):
        g = _pair_gain_w(p, mu, var, pvar, n, pi, pj, wa, wb, sign, base, c)
        if g > best:
            best = g
            bestp = p
    if bestp < 0:
        bestp = np.argmin(n)
    return bestp, c


@_njit
def pocbam_decide_w(k, pi, pj, wa, wb, n, nc, xbar, m2, var_floor, mu, var, pvar, nu0, top):
    """``pocbam_decide`` for weighted scores: posterior ``N(sum_j w_ij xbar_ij, sum_j w_ij^2 s2_ij / n_ij)``
    of each candidate, AEPCS over the candidates. Returns (pair, c); ``top`` as in ``pruned_scan_w``."""
    pool = data_scale2(n, xbar, m2)
    sample_variances(n, m2, var_floor * pool, pool, pvar, nu0)
    wscore_means(pi, pj, wa, wb, xbar, mu)
    wscore_variances(pi, pj, wa, wb, nc, pvar, var)
    return choose_pair_w(mu, var, pvar, nc, pi, pj, wa, wb, k, top)


@_njit
def init_graph(pi, pj, degree, n, xbar, m2, floor, pool, gamma, sig2, nu0=0.0):
    """Eqs 6-7 on the comparison graph of the active pairs: ``gamma_i = B_i / (d_i + 1) - B_0 / (d_0 + 1)``
    with ``B_i`` the sum of i's sample means and ``d_i`` its number of pairs (on the complete graph, where
    ``d_i + 1 = K``, this is eq 6 computed as ``init_eq67`` does); ``sig2`` the eq 7 sample variances."""
    K = gamma.size
    for i in range(K):
        gamma[i] = 0.0
    for p in range(pi.size):
        gamma[pi[p]] += xbar[p]
        gamma[pj[p]] -= xbar[p]
    b0 = gamma[0]
    d0 = degree[0] + 1.0
    for i in range(K):
        di = degree[i] + 1.0
        gamma[i] = (gamma[i] - di / d0 * b0) / di
    sample_variances(n, m2, floor, pool, sig2, nu0)


@_njit
def fit_graph(K, pidx, pi, pj, degree, n, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter, nu0=0.0):
    """``fit_thurstone`` on the active pairs (pairs never sampled are not in ``pi``, ``pj`` and so not in
    the likelihood), started from ``init_graph`` when ``init``. The fit needs a connected graph."""
    C, G = _new_fit_cache(K, n.size)
    return fit_graph_cached(K, pidx, pi, pj, degree, n, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter,
                            nu0, C, G)


@_njit
def fit_graph_cached(K, pidx, pi, pj, degree, n, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter, nu0,
                     C, G):
    """``fit_graph`` with the fit cache ``(C, G)`` kept by the caller between fits (``fit_thurstone_cached``:
    the same iterations, gamma and sig2 bit for bit)."""
    if init:
        pool = data_scale2(n, xbar, m2)
        init_graph(pi, pj, degree, n, xbar, m2, var_floor * pool, pool, gamma, sig2, nu0)
    return fit_thurstone_cached(K, pidx, pi, pj, n, xbar, m2, gamma, sig2, False, var_floor, fit_tol, max_iter,
                                nu0, C, G)


@_njit
def log_likelihood_pairs(pi, pj, n, xbar, m2, gamma, sig2):
    """``log_likelihood`` (eq 4) summed over the given pairs."""
    ll = 0.0
    for p in range(pi.size):
        c = n[p]
        if c == 0:
            continue
        r = xbar[p] - (gamma[pi[p]] - gamma[pj[p]])
        ss = m2[p] + c * r * r
        ll += -0.5 * c * math.log(2.0 * math.pi) - 0.5 * c * math.log(sig2[p]) - 0.5 * ss / sig2[p]
    return ll


@_njit
def model_posterior_w(pi, pj, wa, wb, colw, use_col, n, gamma, sig2, mu, var):
    """Eq 9 for weighted scores: ``mu_i = sum_j w_ij (gamma_i - gamma_j)``, ``var_i = sum_j w_ij^2 sig2_ij / n_ij``."""
    wmodel_means(pi, pj, wa, wb, colw, use_col, gamma, mu)
    wscore_variances(pi, pj, wa, wb, n, sig2, var)


@_njit
def ml_choose_w(k, pi, pj, wa, wb, colw, use_col, nc, gamma, sig2, mu, var, top):
    """``ml_choose`` for weighted scores; ``top`` as in ``pruned_scan_w``."""
    model_posterior_w(pi, pj, wa, wb, colw, use_col, nc, gamma, sig2, mu, var)
    return choose_pair_w(mu, var, sig2, nc, pi, pj, wa, wb, k, top)


@_njit
def ml_decide_w(K, k, pidx, pi, pj, degree, wa, wb, colw, use_col, n, nc, xbar, m2, gamma, sig2, init, var_floor,
                fit_tol, max_iter, mu, var, nu0, C, G, top):
    """``ml_decide`` for weighted scores: the fit over all K alternatives on the active pairs (with the
    decisions' fit cache ``(C, G)``), then the candidates' eq 9 posteriors and AEPCS. Returns (pair, c, iters)."""
    iters = fit_graph_cached(K, pidx, pi, pj, degree, n, xbar, m2, gamma, sig2, init, var_floor, fit_tol, max_iter,
                             nu0, C, G)
    p, c = ml_choose_w(k, pi, pj, wa, wb, colw, use_col, nc, gamma, sig2, mu, var, top)
    return p, c, iters


@_njit
def intransitivity_index_w(pi, pj, wa, wb, colw, use_col, n, xbar, m2, gamma, sig2, per_sample, unbiased,
                           var_floor, mu, nu0=0.0):
    """Eq 17 over the K_c candidates (``mu.size``; a work array) for weighted scores.

    Observed ``S^_i``: mean ``sum_j w_ij xbar_ij``, variance ``sum_j w_ij^2 v_ij``; model ``S*_i``: mean
    ``sum_j w_ij (gamma_i - gamma_j)``, variance ``sum_j w_ij^2 sig2_ij`` (``v`` and ``per_sample`` as in
    ``intransitivity_index``); ``II = 1 - exp(-sum_i (KL + KL) / (2 K_c))``."""
    Kc = mu.size
    pool = data_scale2(n, xbar, m2)
    floor = var_floor * pool
    mo = np.zeros(Kc)
    vo = np.zeros(Kc)
    vm = np.zeros(Kc)
    for p in range(pi.size):
        v = _observed_variance(n, m2, p, pool, unbiased, nu0)
        if v < floor:
            v = floor
        w = sig2[p]
        if not per_sample:
            v = v / n[p]
            w = w / n[p]
        if wa[p] > 0.0:
            i = pi[p]
            q = wa[p] * wa[p]
            mo[i] += wa[p] * xbar[p]
            vo[i] += q * v
            vm[i] += q * w
        if wb[p] > 0.0:
            j = pj[p]
            q = wb[p] * wb[p]
            mo[j] -= wb[p] * xbar[p]
            vo[j] += q * v
            vm[j] += q * w
    wmodel_means(pi, pj, wa, wb, colw, use_col, gamma, mu)
    acc = 0.0
    for i in range(Kc):
        d2 = (mo[i] - mu[i]) * (mo[i] - mu[i])
        acc += (vo[i] + d2) / (2.0 * vm[i]) + (vm[i] + d2) / (2.0 * vo[i]) - 1.0
    return 1.0 - math.exp(-acc / (2.0 * Kc))
