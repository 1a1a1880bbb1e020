"""Compiled kernels of the dueling bandits: random streams, KL-UCB, and one round / whole runs of
Sup-KLUCB, RUCB, Double Thompson Sampling and SAVAGE.

State lives in caller-owned arrays so that the Python classes (one ``choose``/``update`` per round) and
the whole-run kernels (used by the studies) execute the same code: a whole run is the round kernel in a
loop with the feedback of a preference matrix drawn from counter-based per-pair streams, the same
values the ``PreferenceOracle`` returns (``selectors._rng``).

Conventions: ``W[i, j]`` counts the wins of ``i`` over ``j`` (a tie adds 1/2 to both), ``N = W + W.T``.
The algorithm's own randomness (tie-breaks, Beta draws) comes from a splitmix64 sequence whose 64-bit
state ``st[0]`` is seeded from the injected ``numpy.random.Generator``.
"""

from __future__ import annotations

import math

import numpy as np

from ..infra.jit import kernel
from ..selectors._rng import mix64, stream_key, uniform_at

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0
_TWO_PI = 2.0 * math.pi
_LN2 = math.log(2.0)


# --- the algorithm's own random stream ---------------------------------------------------------------

@kernel
def rand_u(st):
    """Next uniform in [0, 1) of the splitmix64 sequence with state ``st[0]``."""
    st[0] = st[0] + _GOLDEN
    return float(mix64(st[0]) >> _S11) * _INV53


@kernel
def rand_below(st, n):
    """A uniform integer in ``0..n-1``."""
    r = int(rand_u(st) * n)
    return r if r < n else n - 1


@kernel
def rand_normal(st):
    """A standard normal (Box-Muller from two uniforms)."""
    u1 = 1.0 - rand_u(st)
    u2 = rand_u(st)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(_TWO_PI * u2)


@kernel
def rand_gamma(a, st):
    """Gamma(a, 1) by Marsaglia & Tsang (2000); ``a < 1`` through ``Gamma(a + 1) * U^(1/a)``."""
    boost = 1.0
    if a < 1.0:
        boost = (1.0 - rand_u(st)) ** (1.0 / a)
        a = a + 1.0
    d = a - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = rand_normal(st)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = 1.0 - rand_u(st)
        if u < 1.0 - 0.0331 * x * x * x * x:
            return d * v * boost
        if math.log(u) < 0.5 * x * x + d * (1.0 - v + math.log(v)):
            return d * v * boost


@kernel
def rand_beta(a, b, st):
    """Beta(a, b) as a ratio of two gammas."""
    x = rand_gamma(a, st)
    y = rand_gamma(b, st)
    return x / (x + y)


# --- feedback of a preference matrix from counter-based per-pair streams ----------------------------

@kernel
def duel(P, key, pidx, pos, i, j):
    """1.0 if ``i`` beats ``j`` in the next duel of the pair, else 0.0; the pair's counter ``pos`` advances.

    Pair ``p = pidx[i, j]`` oriented ``lo < hi``: ``lo`` wins when uniform ``pos[p]`` of stream ``p`` is
    below ``P[lo, hi]`` (``BernoulliOracle(P, streams="counter")`` draws exactly these). ``i == j`` is a
    fair draw that is never asked of the oracle and returns 0.5.
    """
    if i == j:
        return 0.5
    lo = i if i < j else j
    hi = j if i < j else i
    p = pidx[lo, hi]
    u = uniform_at(stream_key(key, p), pos[p])
    pos[p] += 1
    lo_wins = u < P[lo, hi]
    return 1.0 if lo_wins == (i == lo) else 0.0


# --- KL-UCB ----------------------------------------------------------------------------------------------

@kernel
def kl_bernoulli(p, q):
    """Bernoulli KL divergence K(p, q) with 0 log 0 = 0 and x log(x/0) = +inf."""
    out = 0.0
    if p > 0.0:
        if q <= 0.0:
            return np.inf
        out += p * math.log(p / q)
    if p < 1.0:
        if q >= 1.0:
            return np.inf
        out += (1.0 - p) * math.log((1.0 - p) / (1.0 - q))
    return out


@kernel
def klucb_index(mu, n, rhs, tol):
    """``max{q in [mu, 1] : n K(mu, q) <= rhs}`` to within ``tol`` (a feasible q at most ``tol`` below it).

    Closed cases: ``rhs <= 0`` gives ``mu``; ``mu >= 1`` gives 1; ``mu <= 0`` gives ``1 - exp(-rhs/n)``.
    Otherwise a bracketed Newton iteration: ``K(mu, .)`` is convex and increasing on ``[mu, 1)``, so
    Newton steps from the upper bracket approach the root from above (quadratically); a bisection step
    replaces any step that leaves the bracket, and a probe ``tol`` below the converged iterate closes
    the bracket. The upper bracket is the smaller of Pinsker's bound ``mu + sqrt(B/2)`` and
    ``mu + B + sqrt(B^2 + 2 mu B)`` (from ``K(mu, q) >= (q - mu)^2 / (2q)``), ``B = rhs / n``.
    """
    if rhs <= 0.0:
        return mu
    if mu >= 1.0:
        return 1.0
    if mu <= 0.0:
        return -math.expm1(-rhs / n)
    bound = rhs / n
    lo = mu
    hi = mu + math.sqrt(0.5 * bound)
    h2 = mu + bound + math.sqrt(bound * bound + 2.0 * mu * bound)
    if h2 < hi:
        hi = h2
    if hi >= 1.0:
        hi = 1.0
        if kl_bernoulli(mu, hi) <= bound:
            return 1.0
        q = 0.5 * (lo + hi)
        fq = kl_bernoulli(mu, q) - bound
        if fq <= 0.0:
            lo = q
            q = hi
            fq = np.inf
        else:
            hi = q
    else:
        q = hi
        fq = kl_bernoulli(mu, q) - bound
        if fq <= 0.0:
            return hi
    for _ in range(200):
        if hi - lo <= tol:
            break
        if fq == np.inf or q >= 1.0:
            qn = 0.5 * (lo + hi)
            step = hi - lo
        else:
            step = fq * q * (1.0 - q) / (q - mu)
            qn = q - step
            if qn <= lo or qn >= hi:
                qn = 0.5 * (lo + hi)
        fn = kl_bernoulli(mu, qn) - bound
        if fn <= 0.0:
            lo = qn
        else:
            hi = qn
            if step < 0.5 * tol:
                p = qn - 0.5 * tol
                if p > lo and kl_bernoulli(mu, p) <= bound:
                    lo = p
        q = qn
        fq = fn
    return lo


# --- Sup-KLUCB (Agrawal & Chaporkar 2019, Algorithm 1) ---------------------------------------------------

@kernel
def sk_record(W, cw, ai, aj, NA, a, w):
    """Pair-arm ``a = (ai[a], aj[a])`` was played with outcome ``w`` (1: ``ai`` won); update counts and
    the empirical Copeland win counts ``cw`` (strict ``P^_ij > 1/2``; self-pairs change nothing but N)."""
    NA[a] += 1
    i = ai[a]
    j = aj[a]
    if i == j:
        return
    bi = W[i, j] > W[j, i]
    bj = W[j, i] > W[i, j]
    W[i, j] += w
    W[j, i] += 1.0 - w
    ni = W[i, j] > W[j, i]
    nj = W[j, i] > W[i, j]
    cw[i] += int(ni) - int(bi)
    cw[j] += int(nj) - int(bj)


@kernel
def sk_choose(n, K, cw, ai, aj, NA, c1, c2, tol, kq, ks, keys, st):
    """The pair-arm Sup-KLUCB plays at round ``n`` (1-based): the initial round robin for ``n <= Kbar``,
    then the largest KL-UCB index of ``mu_a = Sup_i Sup_j`` (ties uniformly at random).

    Exact, but cheap: ``mu_a`` depends on ``a`` only through the integer key ``cw_i cw_j`` and the index
    decreases in ``N_a``, so only the least-played arms of each key can win; a key whose Pinsker bound
    ``mu + sqrt(rhs / (2 N))`` is below the best index so far is skipped without a bisection.
    Scratch: ``kq`` (float, (K-1)^2 + 1), ``ks`` (int64, 3 x ((K-1)^2 + 1): stamp, min N, count),
    ``keys`` (int64, Kbar).
    """
    A = ai.size
    if n <= A:
        return n - 1
    x = math.log(n - A)
    rhs = c1 * x + c2 * math.log(x + 1.0)
    inv2 = 1.0 / ((K - 1) * (K - 1))
    nk = 0
    for a in range(A):
        key = cw[ai[a]] * cw[aj[a]]
        m = NA[a]
        if ks[0, key] != n:
            ks[0, key] = n
            ks[1, key] = m
            ks[2, key] = 1
            keys[nk] = key
            nk += 1
        elif m < ks[1, key]:
            ks[1, key] = m
            ks[2, key] = 1
        elif m == ks[1, key]:
            ks[2, key] += 1
    # the key with the largest Pinsker bound first, then the others that can still beat it
    top = -1.0
    first = 0
    for r in range(nk):
        key = keys[r]
        mu = key * inv2
        bnd = rhs / ks[1, key]
        u = mu + math.sqrt(0.5 * bnd)                      # Pinsker
        u2 = mu + bnd + math.sqrt(bnd * bnd + 2.0 * mu * bnd)  # K(mu, q) >= (q - mu)^2 / (2q), q >= mu
        if u2 < u:
            u = u2
        if u > 1.0:
            u = 1.0
        kq[key] = -u          # negative: not evaluated yet, minus the bound
        if u > top:
            top = u
            first = key
    best = klucb_index(first * inv2, ks[1, first], rhs, tol)
    kq[first] = best
    for r in range(nk):
        key = keys[r]
        if key == first or -kq[key] < best:
            continue
        mu = key * inv2
        if mu < best and ks[1, key] * kl_bernoulli(mu, best) > rhs:
            kq[key] = -1.0     # its index is below best (K(mu, .) increases on [mu, 1])
            continue
        q = klucb_index(mu, ks[1, key], rhs, tol)
        kq[key] = q
        if q > best:
            best = q
    nt = 0
    for r in range(nk):
        key = keys[r]
        if kq[key] == best:
            nt += ks[2, key]
    m = rand_below(st, nt) if nt > 1 else 0
    for a in range(A):
        key = cw[ai[a]] * cw[aj[a]]
        if kq[key] == best and NA[a] == ks[1, key]:
            if m == 0:
                return a
            m -= 1
    return -1


@kernel
def sk_run(P, key, pidx, pos, W, cw, ai, aj, NA, c1, c2, tol, kq, ks, keys, st, n0, n1, out_i, out_j):
    """Rounds ``n0+1 .. n1`` of Sup-KLUCB on preference matrix ``P``; pairs into ``out_i/out_j[n0:n1]``."""
    K = W.shape[0]
    for n in range(n0 + 1, n1 + 1):
        a = sk_choose(n, K, cw, ai, aj, NA, c1, c2, tol, kq, ks, keys, st)
        i = ai[a]
        j = aj[a]
        w = duel(P, key, pidx, pos, i, j)
        sk_record(W, cw, ai, aj, NA, a, w)
        out_i[n - 1] = i
        out_j[n - 1] = j


# --- shared confidence-bound bookkeeping of RUCB and D-TS -------------------------------------------

@kernel
def ucb_record(W, G, H, Q, alpha, i, j, w):
    """Add the duel (``i`` vs ``j``, ``w`` = 1 if ``i`` won, 1/2 a tie) to ``W`` and refresh the caches
    of the pair: ``G[i, j] = n d^2 / alpha`` if ``d <= 0`` else -1, ``H[i, j] = n d^2 / alpha`` if
    ``d > 0`` else -1 (``d = W_ij/n - 1/2``), and ``Q[i, j] = P(Beta(W_ij+1, W_ji+1) > 1/2)``.

    With ``r = sqrt(alpha ln t / n)``: ``u_ij > 1/2`` iff ``G[i, j] < ln t``, ``u_ij >= 1/2`` iff
    ``G[i, j] <= ln t``, and ``l_ij <= 1/2`` iff ``H[i, j] <= ln t``; no square root per round.
    ``Q`` is updated by the exact recurrences of the regularised incomplete beta function when a count
    grows by one, else recomputed by its continued fraction.
    """
    if i == j:
        return
    a0 = W[i, j] + 1.0
    b0 = W[j, i] + 1.0
    W[i, j] += w
    W[j, i] += 1.0 - w
    a1 = W[i, j] + 1.0
    b1 = W[j, i] + 1.0
    # Q[i, j] = P(theta > 1/2) = 1 - I_{1/2}(a, b)
    if w == 1.0:
        # I(a+1, b) = I(a, b) - x^a (1-x)^b / (a B(a, b)),  x = 1/2
        t = math.exp(math.lgamma(a0 + b0) - math.lgamma(a0 + 1.0) - math.lgamma(b0) - (a0 + b0) * _LN2)
        q = Q[i, j] + t
    elif w == 0.0:
        # I(a, b+1) = I(a, b) + x^a (1-x)^b / (b B(a, b))
        t = math.exp(math.lgamma(a0 + b0) - math.lgamma(a0) - math.lgamma(b0 + 1.0) - (a0 + b0) * _LN2)
        q = Q[i, j] - t
    else:
        q = 1.0 - betai_half(a1, b1)
    if q < 0.0:
        q = 0.0
    elif q > 1.0:
        q = 1.0
    Q[i, j] = q
    Q[j, i] = 1.0 - q
    n = W[i, j] + W[j, i]
    d = W[i, j] / n - 0.5
    g = n * d * d / alpha
    if d > 0.0:
        G[i, j] = -1.0
        H[i, j] = g
        G[j, i] = g
        H[j, i] = -1.0
    elif d < 0.0:
        G[i, j] = g
        H[i, j] = -1.0
        G[j, i] = -1.0
        H[j, i] = g
    else:
        G[i, j] = 0.0
        H[i, j] = -1.0
        G[j, i] = 0.0
        H[j, i] = -1.0


@kernel
def betai_half(a, b):
    """Regularised incomplete beta ``I_{1/2}(a, b)`` (continued fraction, Numerical Recipes ``betacf``)."""
    x = 0.5
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + (a + b) * math.log(0.5)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


@kernel
def _betacf(a, b, x):
    fpmin = 1e-300
    qab = a + b
    qap = a + 1.0
    qam = a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < fpmin:
        d = fpmin
    d = 1.0 / d
    h = d
    for m in range(1, 100000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        if abs(d) < fpmin:
            d = fpmin
        c = 1.0 + aa / c
        if abs(c) < fpmin:
            c = fpmin
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        if abs(d) < fpmin:
            d = fpmin
        c = 1.0 + aa / c
        if abs(c) < fpmin:
            c = fpmin
        d = 1.0 / d
        de = d * c
        h *= de
        if abs(de - 1.0) < 1e-15:
            break
    return h


@kernel
def ucb_reset(G, H, Q):
    """Caches of an empty history: every bound is 'unknown' (u = 1, l = 0) and P(theta > 1/2) = 1/2."""
    K = G.shape[0]
    for i in range(K):
        for j in range(K):
            G[i, j] = -1.0
            H[i, j] = -1.0
            Q[i, j] = 0.5


# --- RUCB (Zoghi et al. 2014) --------------------------------------------------------------------------------

@kernel
def rucb_choose(t, W, G, alpha, Bst, inC, st):
    """One RUCB round ``t`` (1-based): returns ``c * K + d``. ``Bst[0]`` is the hypothesised best arm
    (-1: B empty) and is updated; ``inC`` is scratch (K)."""
    K = W.shape[0]
    lt = math.log(t)
    nc = 0
    last = -1
    for c in range(K):
        ok = True
        for j in range(K):
            if j != c and G[c, j] > lt:
                ok = False
                break
        inC[c] = ok
        if ok:
            nc += 1
            last = c
    b = Bst[0]
    if b >= 0 and not inC[b]:
        b = -1
    if nc == 0:
        c = rand_below(st, K)
    elif nc == 1:
        b = last
        c = last
    else:
        if b >= 0 and rand_u(st) < 0.5:
            c = b
        else:
            m = rand_below(st, nc - 1 if b >= 0 else nc)
            c = -1
            for x in range(K):
                if inC[x] and x != b:
                    if m == 0:
                        c = x
                        break
                    m -= 1
    Bst[0] = b
    # d = argmax_j u_jc (u_cc = 1/2); ties at random, and d != c when c is among the tied
    best = -1.0
    d = c
    ties = 0
    for j in range(K):
        if j == c:
            continue
        n = W[j, c] + W[c, j]
        u = 1.0 if n == 0.0 else W[j, c] / n + math.sqrt(alpha * lt / n)
        if u > best:
            best = u
            d = j
            ties = 1
        elif u == best:
            ties += 1
            if rand_below(st, ties) == 0:
                d = j
    if best < 0.5:
        d = c
    return c * K + d


@kernel
def rucb_run(P, key, pidx, pos, W, G, H, Q, alpha, Bst, inC, st, t0, t1, out_i, out_j):
    """Rounds ``t0+1 .. t1`` of RUCB on preference matrix ``P``."""
    K = W.shape[0]
    for t in range(t0 + 1, t1 + 1):
        cd = rucb_choose(t, W, G, alpha, Bst, inC, st)
        c = cd // K
        d = cd - c * K
        w = duel(P, key, pidx, pos, c, d)
        ucb_record(W, G, H, Q, alpha, c, d, w)
        out_i[t - 1] = c
        out_j[t - 1] = d


# --- Double Thompson Sampling (Wu & Liu 2016) -----------------------------------------------------------

@kernel
def dts_choose(t, W, G, H, Q, Z, S, inC, st):
    """One D-TS round ``t`` (1-based): returns ``a1 * K + a2``. ``Z`` (K int), ``S`` (K x K), ``inC``
    (K) are scratch.

    Phase 1 needs only the events ``theta_ij > 1/2`` of the Beta draws, which are drawn exactly as
    Bernoulli(``Q[i, j]``), one per unordered pair (``theta_ji = 1 - theta_ij``), for candidate rows
    only. Phase 2: ``theta_{a1 a1} = 1/2``, so the winner is ``a1`` unless some eligible ``i`` has
    ``theta_{i a1} > 1/2``; when one does it wins, when several do their values are drawn from the Beta
    conditioned on ``> 1/2`` (rejection). Same distribution as drawing every Beta, far fewer draws.
    """
    K = W.shape[0]
    lt = math.log(t)
    zmax = -1
    for i in range(K):
        z = 0
        for j in range(K):
            if j != i and G[i, j] < lt:
                z += 1
        Z[i] = z
        if z > zmax:
            zmax = z
    for i in range(K):
        inC[i] = Z[i] == zmax
    a1 = -1
    best = -1
    ties = 0
    for i in range(K):
        if not inC[i]:
            continue
        s = 0
        for j in range(K):
            if j == i:
                continue
            if inC[j] and j < i:
                v = 1.0 - S[j, i]
            else:
                v = 1.0 if rand_u(st) < Q[i, j] else 0.0
            S[i, j] = v
            s += int(v)
        if s > best:
            best = s
            a1 = i
            ties = 1
        elif s == best:
            ties += 1
            if rand_below(st, ties) == 0:
                a1 = i
    # phase 2
    a2 = a1
    nabove = 0
    for i in range(K):
        if i == a1 or H[i, a1] > lt:
            inC[i] = False
            continue
        above = rand_u(st) < Q[i, a1]
        inC[i] = above
        if above:
            nabove += 1
            a2 = i
    if nabove > 1:
        top = -1.0
        for i in range(K):
            if not inC[i]:
                continue
            a = W[i, a1] + 1.0
            b = W[a1, i] + 1.0
            v = rand_beta(a, b, st)
            while v <= 0.5:
                v = rand_beta(a, b, st)
            if v > top:
                top = v
                a2 = i
    return a1 * K + a2


@kernel
def dts_run(P, key, pidx, pos, W, G, H, Q, alpha, Z, S, inC, st, t0, t1, out_i, out_j):
    """Rounds ``t0+1 .. t1`` of D-TS on preference matrix ``P``."""
    K = W.shape[0]
    for t in range(t0 + 1, t1 + 1):
        aa = dts_choose(t, W, G, H, Q, Z, S, inC, st)
        a1 = aa // K
        a2 = aa - a1 * K
        w = duel(P, key, pidx, pos, a1, a2)
        ucb_record(W, G, H, Q, alpha, a1, a2, w)
        out_i[t - 1] = a1
        out_j[t - 1] = a2


# --- regret bookkeeping ------------------------------------------------------------------------------------

@kernel
def pair_regret(ti, tj, score, best, out):
    """``out[t] = (2 best - score[ti[t]] - score[tj[t]]) / 2`` (per-round Copeland / Borda regret)."""
    for t in range(ti.size):
        out[t] = best - 0.5 * (score[ti[t]] + score[tj[t]])
