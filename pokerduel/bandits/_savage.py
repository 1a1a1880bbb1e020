"""Compiled kernels of SAVAGE (Urvoy et al. 2013) for dueling problems, of SAVAGE Sampling (its
Algorithm 2: the independence predicate estimated by multi-start random walks in the box) and of the
identification baselines (uniform exploration, arm-level elimination, naive UCB over the pairs, wrapped
UCB / elimination for Borda).

The exploration variables are the pairs ``p = (pi[p], pj[p])``, ``pi < pj``, with mean ``x_p = P[pi, pj]``.
Each keeps a count ``n``, wins ``s`` (of ``pi``) and a confidence interval ``[lo, hi]`` that only
shrinks ("forcing inclusion of the successive confidence sets"). A state vector ``ist`` of int64 holds
the bookkeeping (see ``_I_*``), so the Python class and the whole-run kernel share one code path.
"""

from __future__ import annotations

import math

from ..infra.jit import kernel
from ._kernels import duel, rand_below, rand_u

COPELAND, BORDA, CONDORCET = 0, 1, 2
#: independence tests: none (uniform exploration), SAVAGE's, arm-level elimination only ("naive
#: elimination"), naive UCB (no pair is ever dropped; UCB1 sampling over the pairs, see ``sv_pick_ucb``),
#: and SAVAGE Sampling (the predicate estimated by random walks, see ``sampled_independent``)
TEST_NONE, TEST_SAVAGE, TEST_ARM, TEST_UCB, TEST_SAMPLING = 0, 1, 2, 3, 4

_I_STOP, _I_LIVE = 0, 1      # ist[0]: round at which exploration stopped (0: not yet); ist[1]: live pairs
_I_NEXT = 2                  # ist[2]: SAVAGE Sampling: the round after which the sampled tests run next


@kernel
def radius(log_eta_delta, anytime, n):
    """``c(n) = sqrt(log(eta / delta) / (2 n))``; anytime: ``eta = pi^2 N n^2 / 3`` (adds ``2 log n``)."""
    v = log_eta_delta
    if anytime:
        v += 2.0 * math.log(n)
    return math.sqrt(v / (2.0 * n))


@kernel
def _copeland_counts(K, pi, pj, lo, hi, cmin, cplus):
    """Pessimistic (``cmin``, wins certain) and optimistic (``cplus``, losses not certain) Copeland counts."""
    for k in range(K):
        cmin[k] = 0
        cplus[k] = K - 1
    for p in range(pi.size):
        if lo[p] > 0.5:
            cmin[pi[p]] += 1
            cplus[pj[p]] -= 1
        elif hi[p] < 0.5:
            cmin[pj[p]] += 1
            cplus[pi[p]] -= 1


@kernel
def _borda_bounds(K, pi, pj, lo, hi, lb, ub):
    """Bounds of the normalised Borda scores ``mean_j x_kj`` over the box."""
    for k in range(K):
        lb[k] = 0.0
        ub[k] = 0.0
    for p in range(pi.size):
        lb[pi[p]] += lo[p]
        ub[pi[p]] += hi[p]
        lb[pj[p]] += 1.0 - hi[p]
        ub[pj[p]] += 1.0 - lo[p]
    for k in range(K):
        lb[k] /= K - 1
        ub[k] /= K - 1


@kernel
def _winner_candidates(lower, upper, alive):
    """``alive[k]``: arm k's upper score bound reaches the largest lower bound; returns how many are."""
    best = lower[0]
    for k in range(1, lower.size):
        if lower[k] > best:
            best = lower[k]
    n = 0
    for k in range(lower.size):
        alive[k] = upper[k] >= best
        n += int(alive[k])
    return n


@kernel
def sv_refresh(mode, test, K, pi, pj, lo, hi, live, cmin, cplus, lb, ub, alive):
    """Recompute the live pairs after a change of the box; return 1 when exploration may stop.

    Copeland: pair independent if its sign is settled (a) or neither arm can be a Copeland winner (b,
    strict ``>``, as in the D-TS author's code: ties keep exploring). Borda: independent if neither arm
    can be the Borda winner. Condorcet: arms with some ``hi_ij < 1/2`` are eliminated; pairs live while
    both arms are candidates. ``test``: none (uniform), SAVAGE's, arm-level only (no test (a)), naive
    UCB (every pair stays live, as with none; the stop is SAVAGE's, including the Condorcet one), or
    sampling (``live`` is left as ``sv_sample_tests`` made it; only the stop is computed here).
    Stop: no live pair, or the box decides (Copeland: some ``cmin_i > max_k cplus_k``; Borda: some
    ``lb_i > max_k ub_k``; Condorcet: one candidate left, or, without tests, one arm surely beats all).
    """
    _copeland_counts(K, pi, pj, lo, hi, cmin, cplus)
    stop = 0
    if mode == BORDA:
        _borda_bounds(K, pi, pj, lo, hi, lb, ub)
        stop = int(_winner_candidates(lb, ub, alive) == 1)
    elif mode == COPELAND:
        stop = int(_winner_candidates(cmin, cplus, alive) == 1)
    else:
        nalive = 0
        for k in range(K):
            alive[k] = True
        for p in range(pi.size):
            if hi[p] < 0.5:
                alive[pi[p]] = False
            elif lo[p] > 0.5:
                alive[pj[p]] = False
        for k in range(K):
            nalive += int(alive[k])
        if test == TEST_NONE:
            for k in range(K):
                if cmin[k] == K - 1:
                    stop = 1
        else:
            stop = int(nalive <= 1)
    nlive = 0
    for p in range(pi.size):
        keep = True
        if test != TEST_NONE:
            i = pi[p]
            j = pj[p]
            if mode == CONDORCET:
                keep = alive[i] & alive[j]
            else:
                keep = alive[i] | alive[j]
                if test == TEST_SAVAGE and mode == COPELAND:
                    keep = keep & (lo[p] <= 0.5) & (hi[p] >= 0.5)
        if test == TEST_UCB:
            keep = True
        if test == TEST_SAMPLING:
            keep = live[p]
        live[p] = keep
        nlive += int(keep)
    if nlive == 0:
        stop = 1
    return stop


# --- SAVAGE Sampling (Algorithm 2): the independence predicate estimated by introspective random walks ---

@kernel
def box_decision(mode, K, pi, pj, x, score):
    """The decision f(x) at a point ``x`` of the pair box (``x[p]``: probability that ``pi[p]`` beats
    ``pj[p]``). Copeland: the set of arms with the most wins (``x > 1/2`` a win of ``pi``, ``< 1/2`` of
    ``pj``), as a bit mask (K <= 62); Borda: the arm of largest ``sum_j x_kj`` (lowest index on ties)."""
    for k in range(K):
        score[k] = 0.0
    for p in range(pi.size):
        if mode == BORDA:
            score[pi[p]] += x[p]
            score[pj[p]] += 1.0 - x[p]
        elif x[p] > 0.5:
            score[pi[p]] += 1.0
        elif x[p] < 0.5:
            score[pj[p]] += 1.0
    best = 0
    for k in range(1, K):
        if score[k] > score[best]:
            best = k
    if mode == BORDA:
        return best
    mask = 0
    for k in range(K):
        if score[k] == score[best]:
            mask |= 1 << k
    return mask


@kernel
def reflect(v, lo, hi):
    """``v`` folded into ``[lo, hi]`` by reflection at the ends."""
    w = hi - lo
    if w <= 0.0:
        return lo
    u = (v - lo) % (2.0 * w)
    if u > w:
        u = 2.0 * w - u
    return lo + u


@kernel
def sampled_independent(mode, K, pi, pj, lo, hi, p, starts, steps, step, st, x, score):
    """Algorithm 2 of Urvoy et al.: is the decision independent of variable ``p`` on the box
    ``H = prod [lo, hi]``? ``starts`` walks (multi-start, each from a uniform point of H) of ``steps``
    points each; at every point x the variable alone is redrawn uniformly in ``[lo_p, hi_p]`` (a point
    ``x + lambda e_p`` of H, Definition 2) and f compared. One change is a proof of dependence (False at
    once); no change in ``starts * steps`` probes gives True, an almost-everywhere statement whose risk of
    error is one-sided (a dependent variable declared independent). A walk step moves every coordinate by
    a uniform increment of half-width ``step`` times its interval's width, reflected into the interval
    (the walk's stationary law is uniform on H)."""
    N = pi.size
    for _s in range(starts):
        for q in range(N):
            x[q] = lo[q] + (hi[q] - lo[q]) * rand_u(st)
        for k in range(steps):
            if k > 0:
                for q in range(N):
                    x[q] = reflect(x[q] + (2.0 * rand_u(st) - 1.0) * step * (hi[q] - lo[q]), lo[q], hi[q])
            d = box_decision(mode, K, pi, pj, x, score)
            keep = x[p]
            x[p] = lo[p] + (hi[p] - lo[p]) * rand_u(st)
            d2 = box_decision(mode, K, pi, pj, x, score)
            x[p] = keep
            if d2 != d:
                return False
    return True


@kernel
def sv_sample_tests(mode, K, pi, pj, lo, hi, live, starts, steps, step, st, x, score):
    """SAVAGE's ``W <- W minus {j : IndepTest(f, H, j)}`` with the sampled test; returns the live count."""
    n = 0
    for p in range(pi.size):
        if live[p]:
            if sampled_independent(mode, K, pi, pj, lo, hi, p, starts, steps, step, st, x, score):
                live[p] = False
            else:
                n += 1
    return n


@kernel
def decide_at_estimate(mode, K, pi, pj, n, s, lo, hi, x, score):
    """SAVAGE Sampling's decision: f at the point of the box nearest the empirical means (Algorithm 1
    returns an element of f(H); a pair dropped by the sampled test may still straddle 1/2, where a
    midpoint count would split its win). Copeland ties: the lowest index among the arms of most wins."""
    for q in range(pi.size):
        m = 0.5 if n[q] == 0 else s[q] / n[q]
        x[q] = min(max(m, lo[q]), hi[q])
    d = box_decision(mode, K, pi, pj, x, score)
    if mode == BORDA:
        return d
    for k in range(K):
        if (d >> k) & 1:
            return k
    return 0


@kernel
def sv_sampling_due(ist, t, retest):
    """Whether the sampled tests run after round ``t``; if so, schedule the next run (after round
    ``t + max(1, floor(retest * t))``: every round with ``retest = 0``)."""
    if t < ist[_I_NEXT]:
        return False
    gap = int(retest * t)
    ist[_I_NEXT] = t + (gap if gap > 1 else 1)
    return True


@kernel
def sv_pick(live, n):
    """The least-sampled live pair (lowest index among ties): SAVAGE's round robin."""
    best = -1
    for p in range(live.size):
        if live[p] and (best < 0 or n[p] < n[best]):
            best = p
    return best


@kernel
def sv_pick_ucb(mode, pi, pj, n, s, ub, log_eta_delta, anytime):
    """Naive UCB (UCB1 over the N pairs, no variable ever dropped): first every pair once (lowest index
    first), then the pair with the largest upper confidence bound on its uncertainty about the predicate.

    Copeland / Condorcet (the predicate reads the sign of ``x_p - 1/2``): index ``c(n_p) - |xhat_p - 1/2|``,
    the UCB of ``-|x_p - 1/2|``, largest for the pair whose sign is least settled. Borda (the predicate
    reads sums of pairs, not signs; every pair's width counts the same, so the max-uncertainty pair would
    be round robin): UCB1 on the Borda scores over the pair box, i.e. the arm with the largest upper
    bound ``ub`` duels its least-sampled opponent. Ties go to the lower index.
    """
    N = pi.size
    for p in range(N):
        if n[p] == 0:
            return p
    best = -1
    if mode == BORDA:
        K = ub.size
        arm = 0
        for k in range(1, K):
            if ub[k] > ub[arm]:
                arm = k
        for p in range(N):
            if (pi[p] == arm or pj[p] == arm) and (best < 0 or n[p] < n[best]):
                best = p
        return best
    bv = -1e300
    for p in range(N):
        v = radius(log_eta_delta, anytime, n[p]) - abs(s[p] / n[p] - 0.5)
        if v > bv:
            bv = v
            best = p
    return best


@kernel
def sv_update(p, w, n, s, lo, hi, log_eta_delta, anytime):
    """Record outcome ``w`` of pair ``p``; shrink its interval; return 1 if its sign status changed."""
    before = (lo[p] > 0.5) | (hi[p] < 0.5)
    n[p] += 1
    s[p] += w
    m = s[p] / n[p]
    c = radius(log_eta_delta, anytime, n[p])
    a = m - c
    b = m + c
    if a > lo[p]:
        lo[p] = a
    if b < hi[p]:
        hi[p] = b
    if lo[p] > hi[p]:          # an empty intersection: keep the last estimate's point
        lo[p] = m
        hi[p] = m
    after = (lo[p] > 0.5) | (hi[p] < 0.5)
    return int(before != after)


@kernel
def sv_decide(mode, K, pi, pj, lo, hi, cmin, cplus, lb, ub, alive):
    """The decision on the current box: midpoint Copeland count, midpoint Borda score, or the only
    Condorcet candidate (else the Copeland rule). Ties go to the lower index."""
    if mode == CONDORCET:
        only = -1
        cnt = 0
        for k in range(K):
            if alive[k]:
                only = k
                cnt += 1
        if cnt == 1:
            return only
    best = 0
    bv = -1e300
    for k in range(K):
        v = float(cmin[k] + cplus[k]) if mode != BORDA else lb[k] + ub[k]
        if v > bv:
            bv = v
            best = k
    return best


@kernel
def sv_run(P, key, pidx, pos, mode, test, pi, pj, n, s, lo, hi, live, cmin, cplus, lb, ub, alive,
           log_eta_delta, anytime, ist, t0, t1, winner, out_i, out_j, starts, steps, step, retest, st, x, score):
    """Rounds ``t0+1 .. t1`` of SAVAGE then, once it stops, exploitation of its decision ``winner[0]``
    (explore-then-exploit); returns the round reached. ``starts .. score``: SAVAGE Sampling's parameters,
    random stream and scratch (read only with ``test == TEST_SAMPLING``)."""
    K = alive.size
    for t in range(t0 + 1, t1 + 1):
        if ist[_I_STOP] == 0:
            if test == TEST_UCB:
                p = sv_pick_ucb(mode, pi, pj, n, s, ub, log_eta_delta, anytime)
            else:
                p = sv_pick(live, n)
            i = pi[p]
            j = pj[p]
            w = duel(P, key, pidx, pos, i, j)
            changed = sv_update(p, w, n, s, lo, hi, log_eta_delta, anytime) == 1
            if test == TEST_SAMPLING and sv_sampling_due(ist, t, retest):
                sv_sample_tests(mode, K, pi, pj, lo, hi, live, starts, steps, step, st, x, score)
                changed = True
            if changed or mode == BORDA:
                if sv_refresh(mode, test, K, pi, pj, lo, hi, live, cmin, cplus, lb, ub, alive) == 1:
                    ist[_I_STOP] = t
                    if test == TEST_SAMPLING:
                        winner[0] = decide_at_estimate(mode, K, pi, pj, n, s, lo, hi, x, score)
                    else:
                        winner[0] = sv_decide(mode, K, pi, pj, lo, hi, cmin, cplus, lb, ub, alive)
            out_i[t - 1] = i
            out_j[t - 1] = j
        else:
            out_i[t - 1] = winner[0]
            out_j[t - 1] = winner[0]
    return t1


# --- wrapped K-armed baselines for Borda (sample i against a uniformly random opponent) -------------

@kernel
def wrapped_run(P, key, pidx, pos, ucb, cnt, wins, log_eta_delta, anytime, st, tmax, out):
    """Wrapped UCB (``ucb``) or wrapped successive elimination on the K Borda variables.

    Arm ``i``'s sample is a duel against a uniformly random ``j != i`` (mean: the normalised Borda score
    of ``i``). Elimination samples the live arms round robin and drops ``i`` once ``ub_i < max lb``;
    UCB samples the largest upper bound and stops once the empirical leader's lower bound exceeds
    every other upper bound (both with radius ``c(n)`` of ``N = K`` variables). Returns the number of
    duels used (``tmax`` if undecided); ``out[0]`` gets the decision.
    """
    K = cnt.size
    for t in range(1, tmax + 1):
        # bounds
        if ucb:
            arm = -1
            bu = -1.0
            for k in range(K):
                u = 2.0 if cnt[k] == 0 else wins[k] / cnt[k] + radius(log_eta_delta, anytime, cnt[k])
                if u > bu:
                    bu = u
                    arm = k
        else:
            arm = -1
            for k in range(K):
                if cnt[k] >= 0 and (arm < 0 or cnt[k] < cnt[arm]):
                    arm = k
        j = rand_below(st, K - 1)
        if j >= arm:
            j += 1
        wins[arm] += duel(P, key, pidx, pos, arm, j)
        cnt[arm] += 1
        # stopping / elimination
        lead = -1
        lm = -1.0
        for k in range(K):
            if cnt[k] > 0 and wins[k] / cnt[k] > lm:
                lm = wins[k] / cnt[k]
                lead = k
        if ucb:
            if cnt[lead] > 0:
                llb = lm - radius(log_eta_delta, anytime, cnt[lead])
                ok = True
                for k in range(K):
                    if k != lead:
                        u = 2.0 if cnt[k] == 0 else wins[k] / cnt[k] + radius(log_eta_delta, anytime, cnt[k])
                        if u >= llb:
                            ok = False
                            break
                if ok:
                    out[0] = lead
                    return t
        else:
            mlb = -1.0
            for k in range(K):
                if cnt[k] > 0:
                    v = wins[k] / cnt[k] - radius(log_eta_delta, anytime, cnt[k])
                    if v > mlb:
                        mlb = v
            nl = 0
            last = 0
            for k in range(K):
                if cnt[k] >= 0:
                    if cnt[k] > 0 and wins[k] / cnt[k] + radius(log_eta_delta, anytime, cnt[k]) < mlb:
                        cnt[k] = -cnt[k] - 1      # eliminated (count kept as -n-1)
                    else:
                        nl += 1
                        last = k
            if nl == 1:
                out[0] = last
                return t
    lead = 0
    lm = -1.0
    for k in range(K):
        c = cnt[k] if cnt[k] >= 0 else -cnt[k] - 1
        if c > 0 and wins[k] / c > lm:
            lm = wins[k] / c
            lead = k
    out[0] = lead
    return tmax
