"""Uniform allocation, POCBAm, ML-POCBAm and hybrid ML-POCBAm (Groves & Branke, arXiv:2012.15637 §4, §6).

All three Bayesian methods follow Table 1: after ``n0`` warm-up samples per pair, each decision builds
normal posteriors of the Borda scores, the threshold ``c`` of eq 11 between the current k-th and
(k+1)-th best, and samples the pair that maximises AEPCS (eq 14) with the one-more-sample variances of
eq 13 (``c`` held at its current value, as in eq 14).

- **POCBAm** (Groves & Branke 2019, as the paper restates it): pairs independent; score posterior
  ``N(sum_j xbar_ij, sum_j s2_ij / n_ij)`` with the unbiased sample variance ``s2`` of eq 7.
- **ML-POCBAm**: the Thurstone model ``X_ij ~ N(gamma_i - gamma_j, sigma2_ij)`` fitted by maximum
  likelihood (eq 4) from the eqs 6-7 starting point, posteriors by eq 9.
- **Hybrid**: ML-POCBAm while the intransitivity index (eq 17) is at most a threshold (0.17, §6),
  POCBAm's sampling and ranking while it exceeds it.

All four also rank **candidates** against **fixed opponents** by a **weighted score** (eq 1,
``Selector``'s ``candidates`` and ``weights``): the posteriors above become ``N(sum_j w_ij xbar_ij,
sum_j w_ij^2 s2_ij / n_ij)`` and ``N(sum_j w_ij (gamma_i - gamma_j), sum_j w_ij^2 sigma2_ij / n_ij)`` over
the candidates, AEPCS and II run over the candidates, and the Thurstone fit covers every alternative
on the pairs that are played (``docs/selectors.md``, *Fixed opponents and weights*).

The paper's methods need a sample variance per pair, so ``n0 >= 2`` there. ``n0 = 1`` is accepted too (a
budget of fewer than two samples per pair, as in a large evolving population): a pair with one sample
then has the **pooled variance** (``_kernels`` module docstring), held fixed in the fit until the pair
has two samples.

**Variance prior** (``var_prior = nu0``, default 0: the paper's methods, unchanged). A pair whose few
samples happen to be equal has sample variance 0 and looks certain, so the paper's methods never sample
it again (on poker a +-20,000-chip pair does this after three equal warm-up deals, ``docs/results/fig8.md``).
With ``nu0 > 0`` every pair variance is shrunk toward the pooled variance ``s2_pool`` as if the pair had
``nu0`` more samples spread like the population's pairs: POCBAm uses ``(nu0 s2_pool + (n - 1) s2_ij) /
(nu0 + n - 1)`` (the conjugate scaled-inverse-chi-square posterior scale), the Thurstone fit adds the same
pseudo-samples to eq 4 (``sigma2_ij = (nu0 s2_pool + n (s2b_ij + r_ij^2)) / (nu0 + n)`` given gamma), and
the intransitivity index shrinks its observed variances alike (``_kernels`` module docstring).
"""

from __future__ import annotations

import numpy as np

from . import _fused
from . import _kernels as kern
from .base import Selector
from .problems import _check_choice
from .weights import connected

II_SCALES = ("sample", "posterior")
II_VARIANCES = ("ml", "unbiased")


def _is_number(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _check_positive(value, what):
    if not _is_number(value) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{what} must be a finite number > 0, got {value!r}")
    return float(value)


def check_var_prior(value) -> float:
    """``var_prior`` as a float: a finite number >= 0 (0: no prior, the paper's methods)."""
    if not _is_number(value) or not np.isfinite(value) or value < 0:
        raise ValueError(f"var_prior (the prior weight nu0, in pseudo-samples, of the pooled variance in each pair "
                         f"variance) must be a finite number >= 0 (0: none, the paper's method), got {value!r}")
    return float(value)


def _pocbam_choice(sel, counts) -> tuple[int, float]:
    """POCBAm's decision for selector ``sel`` (with its ``var_floor`` and work arrays) with posterior counts
    ``counts``; also fills ``sel._mu``, ``sel._var`` (the score posteriors) and ``sel._pvar``."""
    sw = sel.score_weights
    if sw is None:
        return kern.pocbam_decide(sel.K, sel.k, sel.pidx, sel.pi, sel.pj, sel.n, counts, sel.xbar, sel.m2,
                                  sel.var_floor, sel._mu, sel._var, sel._pvar, sel.var_prior)
    return _fused.pocbam_decide_fused_w(sel.k, sel.pi, sel.pj, sw.wa, sw.wb, sel.n, counts, sel.xbar, sel.m2,
                                        sel.var_floor, sel._mu, sel._var, sel._pvar, sel.var_prior, *sel._fcache,
                                        sel._top)


class Uniform(Selector):
    """Uniform allocation: round-robin over the pairs (row-major ``i < j``) for the whole budget.

    The warm-up is simply the first ``n0`` rounds. Ranks by the Borda score of the sample means (with
    ``candidates`` or ``weights``: round-robin over the active pairs, ranked by the weighted score).
    """

    name = "uniform"
    supports_lag = True
    supports_weights = True

    def _decide(self) -> int:
        return self.used % self.pi.size


class POCBAm(Selector):
    """POCBAm: AEPCS-maximising pair choice with independent pairs.

    Parameters (beyond ``Selector``'s; with ``n0 = 1`` one-sample pairs have the pooled variance)
    ----------
    var_floor : pair variances are floored at ``var_floor`` times the mean pair sample variance (a pair
        whose samples were all equal would otherwise have zero variance and an infinite z-score).
        Default ``1e-12``: only exactly degenerate pairs are affected.
    var_prior : prior weight ``nu0 >= 0`` (pseudo-samples) of the pooled variance in each pair variance:
        ``s2_ij = (nu0 s2_pool + (n_ij - 1) s2_sample) / (nu0 + n_ij - 1)`` (module docstring). Default 0:
        the paper's eq 7 sample variance.
    """

    name = "pocbam"
    supports_lag = True
    supports_weights = True
    supports_batch = True

    def __init__(self, oracle, k, budget, *, n0=3, rng=None, lag=0, candidates=None, weights=None, batch=1,
                 var_floor: float = 1e-12, var_prior: float = 0.0):
        super().__init__(oracle, k, budget, n0=n0, rng=rng, lag=lag, candidates=candidates, weights=weights,
                         batch=batch)
        self.var_floor = _check_positive(var_floor, "var_floor")
        self.var_prior = check_var_prior(var_prior)
        self._mu = np.empty(self.candidates)
        self._var = np.empty(self.candidates)
        self._pvar = np.empty(self.pi.size)
        self._fcache = _fused.new_cache(self.pi.size)   # the one-pass weighted decision's per-pair cache
        self.last_c = np.nan

    def _decide(self) -> int:
        p, self.last_c = _pocbam_choice(self, self._counts)
        return int(p)

    def posterior(self) -> tuple[np.ndarray, np.ndarray]:
        """Current score posteriors of the candidates (means, variances): ``sum_j w_ij xbar_ij`` and
        ``sum_j w_ij^2 s2_ij / n_ij`` (``w = 1``: ``sum_j xbar_ij`` and ``sum_j s2_ij / n_ij``)."""
        if self.used < self.warmup:
            raise ValueError("the posterior needs the complete warm-up")
        _pocbam_choice(self, self.n)
        return self._mu.copy(), self._var.copy()


class MLPOCBAm(Selector):
    """ML-POCBAm (Table 1): Thurstone ML fit, eq 9 posteriors, eq 11 threshold, eq 14 AEPCS.

    Parameters (beyond ``Selector``'s; with ``n0 = 1`` one-sample pairs have the pooled variance)
    ----------
    warm_start : start each decision's fit from the previous fit (default ``True``) instead of from
        eqs 6-7 as Table 1 literally does (``False``). Both end at a maximum of eq 4; the warm start is
        faster, and the two can differ only where the likelihood has several local maxima.
    fit_tol : the fit stops when a Newton step moves no ``gamma_i`` by more than ``fit_tol`` times the
        data scale (root mean pair sample variance), or predicts a likelihood gain below rounding.
        Default ``1e-8``.
    max_iter : cap on Newton iterations per fit (default 200); fits that hit it are counted in
        ``unconverged_fits`` (the likelihood still rose).
    var_floor : ML variances are floored at ``var_floor`` times the squared data scale (default
        ``1e-12``); without a floor noiseless data have an unbounded likelihood.
    refit_every : refit the model at every ``refit_every``-th decision (default 1: every decision, as
        Table 1 does; with ``batch`` a decision serves ``batch`` samples). The decisions between reuse the
        last fit (and the hybrid its II and mode) with the current sample counts, pending ones included;
        the hybrid's POCBAm mode also uses the current sample statistics. A refit costs most of a decision
        (a Newton solve in K - 1 unknowns); this divides that cost by ``refit_every`` where a large
        population makes it dominate.
    var_prior : prior weight ``nu0 >= 0`` (pseudo-samples) of the pooled variance in each pair variance
        (module docstring): the fit maximises eq 4 plus ``nu0`` pseudo-samples per pair, so ``sigma2_ij =
        (nu0 s2_pool + n_ij (s2b_ij + r_ij^2)) / (nu0 + n_ij)`` given gamma, and the hybrid's POCBAm mode
        and II use the shrunk variances too. Default 0: the paper's eq 4.

    The maximiser of eq 4 (``_kernels.fit_thurstone``): given gamma, each ``sigma2_ij`` has the
    closed-form maximiser ``s2b_ij + (xbar_ij - gamma_i + gamma_j)^2`` (eq 5 = 0), so the fit maximises
    the resulting profile likelihood in gamma by Newton's method (the paper says quasi-Newton) with
    safeguards: the majorise-minimise (weighted least-squares) direction where the Hessian is not
    negative definite, and a backtracking line search, so the likelihood never falls. ``gamma_0 = 0``
    fixes the gauge as eq 6 does. The likelihood can have several local maxima; the fit reaches the one
    uphill from its start.
    """

    name = "ml-pocbam"
    supports_lag = True
    supports_weights = True
    supports_batch = True

    def __init__(self, oracle, k, budget, *, n0=3, rng=None, lag=0, candidates=None, weights=None, batch=1,
                 warm_start: bool = True, fit_tol: float = 1e-8, max_iter: int = 200, var_floor: float = 1e-12,
                 refit_every: int = 1, var_prior: float = 0.0):
        super().__init__(oracle, k, budget, n0=n0, rng=rng, lag=lag, candidates=candidates, weights=weights,
                         batch=batch)
        sw = self.score_weights
        if sw is not None and not connected(self.K, self.pi, self.pj):
            raise ValueError(f"{self.name} fits one Thurstone quality per alternative, so the weighted pairs must link "
                             "every alternative to every other (a fixed opponent no candidate weights, or groups "
                             "that never meet, leave qualities undetermined); use pocbam or uniform, or change "
                             "the weights")
        # weights of the column form w_ij = v_j give the model means in O(K) (``_kernels.wmodel_means``)
        self._colw = np.zeros(0) if sw is None or sw.column is None else sw.column
        self._use_col = sw is not None and sw.column is not None
        if not isinstance(warm_start, (bool, np.bool_)):
            raise ValueError(f"warm_start must be True or False, got {warm_start!r}")
        self.warm_start = bool(warm_start)
        self.fit_tol = _check_positive(fit_tol, "fit_tol")
        if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
            raise ValueError(f"max_iter must be an integer >= 1, got {max_iter!r}")
        self.max_iter = int(max_iter)
        self.var_floor = _check_positive(var_floor, "var_floor")
        self.var_prior = check_var_prior(var_prior)
        if isinstance(refit_every, bool) or not isinstance(refit_every, (int, np.integer)) or refit_every < 1:
            raise ValueError(f"refit_every must be an integer >= 1, got {refit_every!r}")
        self.refit_every = int(refit_every)
        self._decisions = 0          # decisions made (refits happen at multiples of refit_every)
        self.gamma = np.zeros(self.K)            # the latest fit (of a decision or of an answer)
        self.sig2 = np.ones(self.pi.size)
        self._dgamma = np.zeros(self.K)          # the decisions' own fit: their warm start, reused between
        self._dsig2 = np.ones(self.pi.size)      # refits; answers read in between never move it
        self._mu = np.empty(self.candidates)
        self._var = np.empty(self.candidates)
        self._fit_cache = kern.new_fit_cache(self.K, self.pi.size)  # the decisions' fit terms (their next fit)
        self._fit_at = -1            # number of samples the latest fit used (``seen``)
        self.unconverged_fits = 0
        self.last_c = np.nan

    def _init_flag(self) -> bool:
        return not (self.warm_start and self._fit_at >= 0)

    def _note_fit(self, iters) -> None:
        self._fit_at = self.seen
        if iters < 0:
            self.unconverged_fits += 1

    def _refit_now(self) -> bool:
        """Whether this decision refits the model (``refit_every``); counts the decision."""
        d = self._decisions
        self._decisions = d + 1
        return d % self.refit_every == 0

    def _adopt_decision_fit(self, iters) -> None:
        self._note_fit(iters)
        self.gamma[:] = self._dgamma
        self.sig2[:] = self._dsig2

    def _choose_from_fit(self) -> int:
        """A decision between refits: the decisions' last fit with the current counts."""
        sw = self.score_weights
        if sw is None:
            p, self.last_c = kern.ml_choose(self.K, self.k, self.pidx, self.pi, self.pj, self._counts, self._dgamma,
                                            self._dsig2, self._mu, self._var)
        else:
            p, self.last_c = kern.ml_choose_w(self.k, self.pi, self.pj, sw.wa, sw.wb, self._colw, self._use_col,
                                              self._counts, self._dgamma, self._dsig2, self._mu, self._var,
                                              self._top)
        return int(p)

    def _decide(self) -> int:
        if not self._refit_now():
            return self._choose_from_fit()
        sw = self.score_weights
        init = not (self.warm_start and self._decisions > 1)
        if sw is None:
            p, self.last_c, iters = kern.ml_decide(
                self.K, self.k, self.pidx, self.pi, self.pj, self.n, self._counts, self.xbar, self.m2, self._dgamma,
                self._dsig2, init, self.var_floor, self.fit_tol, self.max_iter, self._mu, self._var, self.var_prior,
                *self._fit_cache)
        else:
            p, self.last_c, iters = kern.ml_decide_w(
                self.K, self.k, self.pidx, self.pi, self.pj, sw.degree, sw.wa, sw.wb, self._colw, self._use_col,
                self.n, self._counts, self.xbar, self.m2, self._dgamma, self._dsig2, init, self.var_floor,
                self.fit_tol, self.max_iter, self._mu, self._var, self.var_prior, *self._fit_cache, self._top)
        self._adopt_decision_fit(iters)
        return int(p)

    def fit(self) -> tuple[np.ndarray, np.ndarray]:
        """Fit the model to all samples so far (if not already); return copies of ``(gamma, sigma2)``.

        The fit starts from the decisions' latest fit (``warm_start``), so reading answers between steps
        never changes the decisions."""
        if self.used < self.warmup:
            raise ValueError("the Thurstone fit needs the complete warm-up (every pair sampled n0 times)")
        if self._fit_at != self.seen:
            if self._decisions:
                self.gamma[:] = self._dgamma
                self.sig2[:] = self._dsig2
            sw = self.score_weights
            if sw is None:
                iters = kern.fit_thurstone(self.K, self.pidx, self.pi, self.pj, self.n, self.xbar, self.m2,
                                           self.gamma, self.sig2, self._init_flag(), self.var_floor, self.fit_tol,
                                           self.max_iter, self.var_prior)
            else:
                iters = kern.fit_graph(self.K, self.pidx, self.pi, self.pj, sw.degree, self.n, self.xbar, self.m2,
                                       self.gamma, self.sig2, self._init_flag(), self.var_floor, self.fit_tol,
                                       self.max_iter, self.var_prior)
            self._note_fit(iters)
        return self.gamma.copy(), self.sig2.copy()

    def posterior(self) -> tuple[np.ndarray, np.ndarray]:
        """Eq 9 score posteriors of the current fit, one per candidate: means ``sum_j w_ij (gamma_i -
        gamma_j)`` (``w = 1``: ``K gamma_i - sum gamma``), variances ``sum_j w_ij^2 sigma2_ij / n_ij``."""
        self.fit()
        sw = self.score_weights
        if sw is None:
            kern.model_posterior(self.K, self.pidx, self.n, self.gamma, self.sig2, self._mu, self._var)
        else:
            kern.model_posterior_w(self.pi, self.pj, sw.wa, sw.wb, self._colw, self._use_col, self.n, self.gamma,
                                   self.sig2, self._mu, self._var)
        return self._mu.copy(), self._var.copy()

    def log_likelihood(self) -> float:
        """Eq 4 at the current fit (over the pairs that are played; without the ``var_prior`` pseudo-samples)."""
        self.fit()
        if self.score_weights is not None:
            return float(kern.log_likelihood_pairs(self.pi, self.pj, self.n, self.xbar, self.m2, self.gamma,
                                                   self.sig2))
        return float(kern.log_likelihood(self.K, self.pidx, self.n, self.xbar, self.m2, self.gamma, self.sig2))

    def scores(self) -> np.ndarray:
        if self.used < self.warmup:
            return self.sample_scores()
        return self.posterior()[0]


class HybridMLPOCBAm(MLPOCBAm):
    """Hybrid ML-POCBAm (§6): ML-POCBAm while II <= ``threshold``, POCBAm sampling and ranking above it.

    Every decision (and every ``top_k()`` on new data) refits the model and evaluates the
    intransitivity index II of eq 17. The II and the mode of each decision are recorded aligned with
    the trace: ``ii_trace[t]`` (NaN for warm-up samples) and ``mode_trace[t]`` (0 warm-up, 1 ML-POCBAm,
    2 POCBAm); ``final_ii`` / ``final_mode`` belong to the latest ``top_k()``.

    Parameters (beyond ``MLPOCBAm``'s)
    ----------
    threshold : II above which POCBAm is used (default 0.17, where the two performed equally in Fig 6).
    ii_scale : which distributions eq 17 compares, a choice the paper leaves open.
        ``"sample"`` (default): one-sample score distributions, observed ``N(sum_j xbar_ij, sum_j v_ij)``
        against the model's ``N(sum_j (gamma_i - gamma_j), sum_j sigma2_ij)``. ``"posterior"``: the score
        posteriors, every variance divided by ``n_ij`` (eq 9). The project notes record that the per-sample
        reading gives II of a few hundredths on exact Thurstone data, growing with d as in Fig 6, while
        the posterior reading is already 0.25-0.45 at d = 0, so a 0.17 threshold would almost never use ML.
    ii_variance : the observed pair variance ``v_ij``: ``"ml"`` (default) the biased, maximum-likelihood
        ``m2 / n``, so that II = 0 exactly when the data fit the model exactly (the property the paper
        states); ``"unbiased"`` the eq 7 sample variance.
    """

    name = "hybrid"

    def __init__(self, oracle, k, budget, *, n0=3, rng=None, threshold: float = 0.17, ii_scale: str = "sample",
                 ii_variance: str = "ml", **ml_options):
        super().__init__(oracle, k, budget, n0=n0, rng=rng, **ml_options)
        if not _is_number(threshold) or not np.isfinite(threshold) or not 0 <= threshold <= 1:
            raise ValueError(f"threshold must be a number in [0, 1] (II lies in [0, 1]), got {threshold!r}")
        self.threshold = float(threshold)
        self.ii_scale = _check_choice(ii_scale, II_SCALES, "ii_scale")
        self.ii_variance = _check_choice(ii_variance, II_VARIANCES, "ii_variance")
        self._pvar = np.empty(self.pi.size)
        self._fcache = _fused.new_cache(self.pi.size)   # the one-pass weighted decision's per-pair cache
        self.ii_trace = np.full(self.budget, np.nan)
        self.mode_trace = np.zeros(self.budget, dtype=np.int8)
        self.final_ii = np.nan
        self.final_mode = 0

    def _decide(self) -> int:
        if not self._refit_now():   # the last refit's II and mode
            self.ii_trace[self.used], self.mode_trace[self.used] = self._dii, self._dmode
            if self._dmode == 1:
                return self._choose_from_fit()
            p, self.last_c = _pocbam_choice(self, self._counts)
            return int(p)
        sw = self.score_weights
        init = not (self.warm_start and self._decisions > 1)
        per_sample, unbiased = self.ii_scale == "sample", self.ii_variance == "unbiased"
        if sw is None:
            p, ii, mode, iters = kern.hybrid_decide(
                self.K, self.k, self.pidx, self.pi, self.pj, self.n, self._counts, self.xbar, self.m2, self._dgamma,
                self._dsig2, init, self.var_floor, self.fit_tol, self.max_iter, self._mu, self._var, self._pvar,
                per_sample, unbiased, self.threshold, self.var_prior, *self._fit_cache)
        else:
            p, ii, mode, iters = _fused.hybrid_decide_w(
                self.K, self.k, self.pidx, self.pi, self.pj, sw.degree, sw.wa, sw.wb, self._colw, self._use_col,
                self.n, self._counts, self.xbar, self.m2, self._dgamma, self._dsig2, init, self.var_floor,
                self.fit_tol, self.max_iter, self._mu, self._var, self._pvar, per_sample, unbiased, self.threshold,
                self.var_prior, *self._fit_cache, *self._fcache, self._top)
        self._adopt_decision_fit(iters)
        self._dii, self._dmode = ii, mode
        self.ii_trace[self.used] = ii
        self.mode_trace[self.used] = mode
        return int(p)

    def _batch_step(self) -> None:
        self.ii_trace[self.used], self.mode_trace[self.used] = self._dii, self._dmode

    def intransitivity_index(self) -> float:
        """Eq 17 for all samples so far (fits the model first); over the candidates' weighted scores."""
        self.fit()
        sw = self.score_weights
        if sw is not None:
            return float(kern.intransitivity_index_w(self.pi, self.pj, sw.wa, sw.wb, self._colw, self._use_col,
                                                     self.n, self.xbar, self.m2, self.gamma, self.sig2,
                                                     self.ii_scale == "sample", self.ii_variance == "unbiased",
                                                     self.var_floor, np.empty(self.candidates), self.var_prior))
        return float(kern.intransitivity_index(self.K, self.pidx, self.n, self.xbar, self.m2, self.gamma,
                                               self.sig2, self.ii_scale == "sample",
                                               self.ii_variance == "unbiased", self.var_floor, self.var_prior))

    def scores(self) -> np.ndarray:
        if self.used < self.warmup:
            self.final_ii, self.final_mode = np.nan, 0
            return self.sample_scores()
        self.final_ii = self.intransitivity_index()
        if self.final_ii > self.threshold:
            self.final_mode = 2
            return self.sample_scores()
        self.final_mode = 1
        return self.posterior()[0]
