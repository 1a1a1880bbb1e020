"""Whole replications in nopython mode: uniform, POCBAm, ML-POCBAm and hybrid on a counter-stream oracle.

``bayes_run`` is the loop of ``Selector.step`` with the same kernels (``_kernels``) and the same samples
as a ``GaussianOracle`` with ``streams="counter"``: the selector answers it gives after ``b`` samples are
those of the Python classes run with budget ``b`` (tests check this), at a fraction of the cost, since
a Python step costs about 10 us and a uniform decision 0.4 us. The studies call it once per replication
and method, with the budgets to report as checkpoints.
"""

from __future__ import annotations

import numba
import numpy as np

from . import _kernels as kern
from . import _rng

UNIFORM, POCBAM, ML, HYBRID = 0, 1, 2, 3


def _njit(fn):
    return numba.njit(cache=True, error_model="numpy")(fn)


@_njit
def _mark(scores, k, truth, tops, c):
    """1 if the top-k of ``scores`` (stable, ties to the lower index) is the true set; the top-k goes to
    ``tops[c]`` when ``tops`` has rows."""
    order = np.argsort(-scores, kind="mergesort")
    ok = 1
    for t in range(k):
        if truth[order[t]] == 0:
            ok = 0
        if tops.shape[0] > 0:
            tops[c, t] = order[t]
    return ok


@_njit
def bayes_run(method, K, k, n0, pi, pj, pidx, mu, sd, key, checkpoints, truth, var_floor, fit_tol, max_iter,
              warm_start, threshold, per_sample, unbiased, want_ii, success, ii, tops, var_prior=0.0):
    """One replication of ``method`` up to ``checkpoints[-1]`` samples (checkpoints increasing).

    Pair ``p`` (``pi[p] < pj[p]``) is sampled as ``mu[p] + sd[p] * normal_at(stream_key(key, p), n_p)``.
    ``success[c]`` is 1 when the answer after ``checkpoints[c]`` samples is the true top-k (``truth`` is a
    0/1 mask); ``ii[c]`` the intransitivity index (eq 17) of the fit at that point for ML-POCBAm and the
    hybrid when ``want_ii`` (NaN otherwise and before the warm-up ends); ``tops[c]`` the answer itself when
    ``tops`` has a row per checkpoint (pass an empty ``(0, k)`` array to skip). ``var_prior``: the selectors'
    option of that name, the weight of the pair variances' prior (``_kernels``; 0 = none, the paper's methods)."""
    no_table = np.empty((0, 0))
    ml_share = np.empty(checkpoints.size)
    _bayes(method, K, k, n0, pi, pj, pidx, mu, sd, key, no_table, checkpoints, truth, var_floor, fit_tol, max_iter,
           warm_start, threshold, per_sample, unbiased, want_ii, success, ii, ml_share, tops, var_prior)


@_njit
def bayes_run_table(method, K, k, n0, pi, pj, pidx, table, checkpoints, truth, var_floor, fit_tol, max_iter,
                    warm_start, threshold, per_sample, unbiased, want_ii, success, ii, ml_share, tops, var_prior=0.0):
    """``bayes_run`` on recorded samples: the t-th sample of pair ``p`` is ``table[p, t]`` (``pi[p]``'s view;
    each row must hold at least the samples the run asks of it: ``checkpoints[-1]`` always suffice).
    ``ml_share[c]`` is the hybrid's fraction of decisions made in ML-POCBAm mode up to ``checkpoints[c]``
    (NaN for the other methods and before the first decision)."""
    _bayes(method, K, k, n0, pi, pj, pidx, pi.astype(np.float64), pi.astype(np.float64), np.uint64(0), table,
           checkpoints, truth, var_floor, fit_tol, max_iter, warm_start, threshold, per_sample, unbiased, want_ii,
           success, ii, ml_share, tops, var_prior)


@_njit
def _bayes(method, K, k, n0, pi, pj, pidx, mu, sd, key, table, checkpoints, truth, var_floor, fit_tol, max_iter,
           warm_start, threshold, per_sample, unbiased, want_ii, success, ii, ml_share, tops, nu0):
    """The loop of ``bayes_run``: samples from ``table`` when it has rows, else from the counter streams."""
    P = pi.size
    budget = checkpoints[checkpoints.size - 1]
    n = np.zeros(P, dtype=np.int64)
    xbar = np.zeros(P)
    m2 = np.zeros(P)
    gamma = np.zeros(K)
    sig2 = np.ones(P)
    mus = np.empty(K)
    var = np.empty(K)
    pvar = np.empty(P)
    fc, fg = kern._new_fit_cache(K, P)
    skeys = np.empty(P, dtype=np.uint64)
    for p in range(P):
        skeys[p] = _rng.stream_key(key, p)
    warm = n0 * P
    fitted = False
    use_table = table.shape[0] > 0
    decisions = 0
    ml_decisions = 0
    c = 0
    for t in range(budget + 1):
        cp = c < checkpoints.size and checkpoints[c] == t
        ii_t = np.nan
        now, now_ml = 0, False  # the decision taken at step t (not yet sampled: not counted at checkpoint t)
        p = t % P
        if t < warm or method == UNIFORM:
            if cp:
                kern.borda_means(K, pidx, xbar, mus)
        else:
            init = not (warm_start and fitted)
            if method == POCBAM:
                p, cc = kern.pocbam_decide(K, k, pidx, pi, pj, n, n, xbar, m2, var_floor, mus, var, pvar, nu0)
            elif method == ML:
                if t < budget:
                    p, cc, it = kern.ml_decide(K, k, pidx, pi, pj, n, n, xbar, m2, gamma, sig2, init, var_floor,
                                               fit_tol, max_iter, mus, var, nu0, fc, fg)
                else:
                    kern.fit_thurstone_cached(K, pidx, pi, pj, n, xbar, m2, gamma, sig2, init, var_floor,
                                              fit_tol, max_iter, nu0, fc, fg)
                    kern.model_posterior(K, pidx, n, gamma, sig2, mus, var)
                fitted = True
                if cp and want_ii:
                    ii_t = kern.intransitivity_index(K, pidx, n, xbar, m2, gamma, sig2, per_sample, unbiased,
                                                     var_floor, nu0)
            else:
                if t < budget:
                    p, ii_t, mode, it = kern.hybrid_decide(K, k, pidx, pi, pj, n, n, xbar, m2, gamma, sig2, init,
                                                           var_floor, fit_tol, max_iter, mus, var, pvar,
                                                           per_sample, unbiased, threshold, nu0, fc, fg)
                    decisions += 1
                    ml_decisions += mode == 1
                    now, now_ml = 1, mode == 1
                else:
                    kern.fit_thurstone_cached(K, pidx, pi, pj, n, xbar, m2, gamma, sig2, init, var_floor,
                                              fit_tol, max_iter, nu0, fc, fg)
                    ii_t = kern.intransitivity_index(K, pidx, n, xbar, m2, gamma, sig2, per_sample, unbiased,
                                                     var_floor, nu0)
                    if ii_t > threshold:
                        kern.borda_means(K, pidx, xbar, mus)
                    else:
                        kern.model_posterior(K, pidx, n, gamma, sig2, mus, var)
                fitted = True
        if cp:
            success[c] = _mark(mus, k, truth, tops, c)
            ii[c] = ii_t if want_ii else np.nan
            before = decisions - now
            ml_share[c] = (ml_decisions - now_ml) / before if (method == HYBRID) & (before > 0) else np.nan
            c += 1
        if t == budget:
            break
        if use_table:
            x = table[p, n[p]]
        else:
            x = mu[p] + sd[p] * _rng.normal_at(skeys[p], n[p])
        kern.record(n, xbar, m2, p, x)
