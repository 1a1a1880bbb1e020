"""Success-rate studies (Groves & Branke §5-6): the fraction of replications whose top-k is the true one,
against the budget, for chosen problems and methods.

```python
from pokerduel.selectors.studies import StudyConfig, run_study

cfg = StudyConfig(K=10, k=4, methods=("uniform", "pocbam", "ml-pocbam", "select-top"),
                  budgets=tuple(range(135, 1001, 45)), replications=200, seed=1)
res = run_study(cfg, workers=2)
res.rate("thurstone", "ml-pocbam")      # (budgets, success rate, 95% CI low, high)
res.save("fig2a.h5"); res.plot("fig2a.png")
```

**Common random numbers.** Replication ``r`` draws everything from ``SeedSequence(seed, spawn_key=(r,))``:
its first child seeds the problem instance, the second the sample noise, the third the selectors' own
randomness. Every method (and every problem: the perturbed problems share gamma and the variances) gets
the same instance, and the oracle's ``"counter"`` streams make the t-th sample of a pair the same for
every method. Results depend on the seed only, never on the number of workers or the order of work.

**Fast paths.** Uniform, POCBAm, ML-POCBAm and the hybrid run whole replications in nopython mode
(``_replicate.bayes_run``), SELECT/TOP with ``_top.run_counter``; they give the answers of the Python
selectors on the same samples (tests check this). Other methods (PBR, AR) step the Python selectors.
Methods whose decisions do not depend on the budget (``Selector.anytime``) are run once to the largest
budget and read at every budget; the others (SELECT/TOP) are run once per budget.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from . import SELECTORS, make_selector
from . import _top as top
from .problems import (
    VARIANCE_LAWS,
    check_k,
    pair_arrays,
    pair_index_matrix,
    perturbed_thurstone,
    separated_top1,
    thurstone,
)

FORMAT = "pokerduel-study"
FORMAT_VERSION = 1
PROBLEM_KINDS = ("thurstone", "perturbed", "separated")
_FAST = {"uniform": 0, "pocbam": 1, "ml-pocbam": 2, "hybrid": 3}
_II_METHODS = ("ml-pocbam", "hybrid")


# --- problems ---------------------------------------------------------------------------------------

def parse_problem(spec: str) -> tuple[str, float | None]:
    """``"thurstone"``, ``"perturbed:D"`` (noise-perturbed Thurstone, d = D) or ``"separated[:G]"`` (Fig 3's
    top-1 problem, gamma_0 = G, default 1.2) as ``(kind, parameter)``."""
    if not isinstance(spec, str):
        raise ValueError(f"a problem must be a string such as 'thurstone' or 'perturbed:0.2', got {spec!r}")
    kind, _, arg = spec.partition(":")
    if kind not in PROBLEM_KINDS:
        raise ValueError(f"unknown problem {spec!r}; known: 'thurstone', 'perturbed:D' (d >= 0), 'separated' or "
                         "'separated:GAMMA0'")
    if kind == "thurstone":
        if arg:
            raise ValueError(f"problem 'thurstone' takes no parameter, got {spec!r}")
        return kind, None
    if kind == "perturbed" and not arg:
        raise ValueError(f"problem {spec!r} needs the perturbation scale: 'perturbed:D', e.g. 'perturbed:0.2'")
    try:
        value = float(arg) if arg else 1.2
    except ValueError:
        raise ValueError(f"problem {spec!r}: {arg!r} is not a number") from None
    if not math.isfinite(value) or (kind == "perturbed" and value < 0):
        raise ValueError(f"problem {spec!r}: the parameter must be a finite number" +
                         (" >= 0" if kind == "perturbed" else ""))
    return kind, value


def make_problem(spec: str, K: int, instance_rng, noise_rng, *, variance_law: str = "variance",
                 streams: str = "counter"):
    """The oracle of a problem spec (see ``parse_problem``) for one replication."""
    kind, arg = parse_problem(spec)
    if kind == "thurstone":
        return thurstone(K, instance_rng, noise_rng, variance_law=variance_law, streams=streams)
    if kind == "perturbed":
        return perturbed_thurstone(K, arg, instance_rng, noise_rng, variance_law=variance_law, streams=streams)
    return separated_top1(instance_rng, noise_rng, K=K, gamma0=arg, variance_law=variance_law, streams=streams)


# --- configuration ----------------------------------------------------------------------------------

def _as_int(value, what, lo):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"{what} must be an integer >= {lo}, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class StudyConfig:
    """What a study runs. ``budgets`` are the sample counts at which success is measured; each method is
    measured at the budgets it accepts (at least its warm-up, ``Selector.min_budget``), or at its own list
    in ``method_budgets`` (e.g. SELECT/TOP at multiples of its match count, as the paper varies nu).
    ``options`` maps a method name to keyword options of its selector (e.g. ``{"hybrid": {"threshold":
    0.2}}``)."""

    K: int
    k: int
    budgets: tuple[int, ...]
    methods: tuple[str, ...] = ("uniform", "pocbam", "ml-pocbam", "select-top")
    problems: tuple[str, ...] = ("thurstone",)
    replications: int = 1000
    seed: int = 0
    variance_law: str = "variance"
    options: dict = field(default_factory=dict)
    own_budgets: dict = field(default_factory=dict)

    def __post_init__(self):
        for name in ("budgets", "methods", "problems"):
            value = getattr(self, name)
            if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                raise ValueError(f"{name} must be a sequence, got {value!r}")
            object.__setattr__(self, name, tuple(value))
        if isinstance(self.own_budgets, dict):
            object.__setattr__(self, "own_budgets", {m: tuple(v) for m, v in self.own_budgets.items()})

    def validate(self) -> None:
        """Raise ``ValueError`` with a clear message for anything the study cannot run."""
        K = _as_int(self.K, "K (the number of alternatives)", 2)
        check_k(self.k, K)
        _as_int(self.replications, "replications", 1)
        _as_int(self.seed, "seed", 0)
        if self.variance_law not in VARIANCE_LAWS:
            raise ValueError(f"unknown variance_law {self.variance_law!r}; allowed: {', '.join(VARIANCE_LAWS)}")
        if not self.problems:
            raise ValueError("at least one problem is needed")
        for spec in self.problems:
            kind, _ = parse_problem(spec)
        if len(set(self.problems)) != len(self.problems):
            raise ValueError(f"problems must be distinct, got {list(self.problems)}")
        if not self.methods:
            raise ValueError("at least one method is needed")
        for m in self.methods:
            if m not in SELECTORS:
                raise ValueError(f"unknown method {m!r}; known: {', '.join(SELECTORS)}")
        if len(set(self.methods)) != len(self.methods):
            raise ValueError(f"methods must be distinct, got {list(self.methods)}")
        if not isinstance(self.options, dict) or any(m not in self.methods for m in self.options):
            raise ValueError(f"options must map methods of the study to option dicts, got {self.options!r}")
        if not self.budgets:
            raise ValueError("at least one budget is needed")
        b = [_as_int(x, "every budget", 1) for x in self.budgets]
        if any(y <= x for x, y in zip(b, b[1:])):
            raise ValueError(f"budgets must be strictly increasing, got {b}")
        if not isinstance(self.own_budgets, dict) or any(m not in self.methods for m in self.own_budgets):
            raise ValueError(f"own_budgets must map methods of the study to budget lists, got {self.own_budgets!r}")
        for m, own in self.own_budgets.items():
            ob = [_as_int(x, f"every budget of {m!r}", 1) for x in own]
            if not ob or any(y <= x for x, y in zip(ob, ob[1:])) or ob[0] < self.min_budget(m):
                raise ValueError(f"the budgets of {m!r} must be strictly increasing and at least its minimum "
                                 f"{self.min_budget(m)}, got {ob}")
        probe = thurstone(K, np.random.default_rng(0), np.random.default_rng(0))
        for m in self.methods:
            opts = self.options.get(m, {})
            if not isinstance(opts, dict):
                raise ValueError(f"options of {m!r} must be a dict, got {opts!r}")
            if opts.get("candidates") is not None or opts.get("weights") is not None:
                raise ValueError(f"studies rank all K alternatives by their Borda score: the options candidates and "
                                 f"weights of {m!r} are not supported here (run the selectors on a "
                                 f"candidates_vs_opponents problem instead)")
            lo = self.min_budget(m)
            if m not in self.own_budgets and b[-1] < lo:
                raise ValueError(f"budget {b[-1]} is below the warm-up of {m!r}: it needs at least {lo} samples "
                                 f"for K = {K}, k = {self.k}")
            try:
                make_selector(m, probe, self.k, max(int(self.method_budgets(m)[-1]), lo), rng=np.random.default_rng(0),
                              **opts)
            except TypeError as err:
                raise ValueError(f"bad options for {m!r}: {err}") from None

    def min_budget(self, method: str) -> int:
        return SELECTORS[method].min_budget(self.K, self.k, **self.options.get(method, {}))

    def method_budgets(self, method: str) -> np.ndarray:
        """The budgets at which ``method`` is measured (its own list, else the budgets it accepts)."""
        if method in self.own_budgets:
            return np.asarray(self.own_budgets[method], dtype=np.int64)
        b = np.asarray(self.budgets, dtype=np.int64)
        return b[b >= self.min_budget(method)]

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> StudyConfig:
        return cls(**json.loads(text))


def budget_grid(K: int, k: int, methods, max_budget: int, points: int, options=None) -> tuple[int, ...]:
    """The union over the methods of ``points`` budgets evenly spaced from the method's smallest budget
    (its warm-up) to ``max_budget``, so every curve starts where its method can start."""
    options = options or {}
    grids = []
    for m in methods:
        lo = SELECTORS[m].min_budget(K, k, **options.get(m, {}))
        if max_budget < lo:
            raise ValueError(f"budget {max_budget} is below the warm-up of {m!r}: it needs at least {lo} samples "
                             f"for K = {K}, k = {k}")
        grids.append(np.round(np.linspace(lo, max_budget, max(points, 1))).astype(np.int64))
    return tuple(int(x) for x in np.unique(np.concatenate(grids)))


# --- one block of replications (runs in the workers) ------------------------------------------------

def replication_seeds(seed: int, r: int) -> tuple[np.random.SeedSequence, ...]:
    """(instance, noise, selector) seed sequences of replication ``r``."""
    return tuple(np.random.SeedSequence(seed, spawn_key=(r,)).spawn(3))


def compiled_params(s) -> dict:
    """What a compiled replication needs of selector ``s``: SELECT/TOP's bracket and rules, or the
    Bayesian methods' warm-up, fit and hybrid options (defaults where a method has none)."""
    if s.name == "select-top":
        return dict(tree=(s.left, s.right, s.parent), shuffle=s.shuffle, majority=s.decide == "majority",
                    tie_first=s.ties == "first")
    return dict(n0=s.n0, var_floor=getattr(s, "var_floor", 1e-12), fit_tol=getattr(s, "fit_tol", 1e-8),
                max_iter=getattr(s, "max_iter", 1), warm_start=getattr(s, "warm_start", True),
                threshold=getattr(s, "threshold", 1.0), per_sample=getattr(s, "ii_scale", "sample") == "sample",
                unbiased=getattr(s, "ii_variance", "ml") == "unbiased", var_prior=getattr(s, "var_prior", 0.0))


def _fast_params(cfg: StudyConfig, method: str, oracle) -> dict | None:
    """``compiled_params`` of a selector built once (they do not depend on the replication; SELECT/TOP's
    placement and coin key do and are drawn per replication); ``None`` where an option (a lag, a refit
    interval) has no compiled counterpart and the Python selector must run."""
    s = make_selector(method, oracle, cfg.k, int(cfg.method_budgets(method)[-1]), rng=np.random.default_rng(0),
                      **cfg.options.get(method, {}))
    if s.lag or getattr(s, "refit_every", 1) != 1:
        return None
    return compiled_params(s)


def _run_block(cfg: StudyConfig, r0: int, r1: int) -> dict:
    from . import _replicate
    from .select_top import SelectTop

    K, k = cfg.K, cfg.k
    pi, pj = pair_arrays(K)
    pidx = pair_index_matrix(K)
    no_tops = np.empty((0, k), dtype=np.int64)
    out = {}
    for spec in cfg.problems:
        for m in cfg.methods:
            nb = cfg.method_budgets(m).size
            out[(spec, m, "success")] = np.zeros((r1 - r0, nb), dtype=np.uint8)
            if m in _II_METHODS:
                out[(spec, m, "ii")] = np.full((r1 - r0, nb), np.nan, dtype=np.float32)
    params: dict = {}
    res = np.empty(k, dtype=np.int64)
    for r in range(r0, r1):
        inst, noise, sel = replication_seeds(cfg.seed, r)
        for spec in cfg.problems:
            oracle = make_problem(spec, K, np.random.default_rng(inst), np.random.default_rng(noise),
                                  variance_law=cfg.variance_law)
            mask = np.zeros(K, dtype=np.int8)
            mask[oracle.true_top_k(k)] = 1
            for m in cfg.methods:
                budgets = cfg.method_budgets(m)
                row = out[(spec, m, "success")][r - r0]
                ii = out.get((spec, m, "ii"))
                opts = cfg.options.get(m, {})
                if (m in _FAST or m == "select-top") and m not in params:
                    params[m] = _fast_params(cfg, m, oracle)
                q = params.get(m)
                if m in _FAST and q is not None:
                    iirow = np.empty(budgets.size)
                    _replicate.bayes_run(
                        _FAST[m], K, k, q["n0"], pi, pj, pidx, oracle._mu, oracle._sd, oracle.noise_key, budgets, mask,
                        q["var_floor"], q["fit_tol"], q["max_iter"], q["warm_start"], q["threshold"], q["per_sample"],
                        q["unbiased"], ii is not None, row, iirow, no_tops, q["var_prior"])
                    if ii is not None:
                        ii[r - r0] = iirow
                elif m == "select-top":
                    order, tie_key = SelectTop.draws(np.random.default_rng(sel), K, q["shuffle"])
                    top.run_curve(K, k, budgets, *q["tree"], order, pidx, oracle._mu, oracle._sd, oracle.noise_key,
                                  q["majority"], q["tie_first"], tie_key, mask, row, res)
                else:
                    def fresh(budget):
                        o = make_problem(spec, K, np.random.default_rng(inst), np.random.default_rng(noise),
                                         variance_law=cfg.variance_law)
                        return make_selector(m, o, k, int(budget), rng=np.random.default_rng(sel), **opts)

                    if SELECTORS[m].anytime and not opts.get("lag"):   # a lag leaves samples unseen mid-run
                        s = fresh(budgets[-1])
                        for c, b in enumerate(budgets):
                            while s.used < b:
                                s.step()
                            row[c] = mask[s.top_k()].all()
                    else:
                        for c, b in enumerate(budgets):
                            row[c] = mask[fresh(b).run()].all()
    return out


# --- results ----------------------------------------------------------------------------------------

def wilson(successes: np.ndarray, n: int, z: float = 1.959963984540054) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval (95% by default) of a binomial proportion."""
    p = np.asarray(successes, dtype=np.float64) / n
    den = 1.0 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return np.clip(mid - half, 0.0, 1.0), np.clip(mid + half, 0.0, 1.0)


@dataclass
class StudyResult:
    """Per (problem, method): the budgets and a replications x budgets 0/1 success matrix (and the
    intransitivity index of the fit for ML-POCBAm and the hybrid)."""

    config: StudyConfig
    budgets: dict
    success: dict
    ii: dict
    seconds: float = float("nan")
    workers: int = 1

    def rate(self, problem: str, method: str):
        """``(budgets, success rate, 95% CI low, 95% CI high)`` (Wilson intervals)."""
        s = self.success[(problem, method)]
        n = s.shape[0]
        hits = s.sum(axis=0)
        lo, hi = wilson(hits, n)
        return self.budgets[(problem, method)], hits / n, lo, hi

    def summary(self) -> dict:
        """A JSON-ready summary: the config, timing and every success curve with its 95% interval."""
        curves = []
        for (problem, method) in self.success:
            b, rate, lo, hi = self.rate(problem, method)
            entry = {"problem": problem, "method": method, "budgets": [int(x) for x in b],
                     "success_rate": [float(x) for x in rate], "ci95_low": [float(x) for x in lo],
                     "ci95_high": [float(x) for x in hi]}
            if (problem, method) in self.ii:
                entry["mean_ii"] = [float(x) for x in np.nanmean(self.ii[(problem, method)], axis=0)] \
                    if np.isfinite(self.ii[(problem, method)]).any() else None
            curves.append(entry)
        from .. import __version__
        return {"config": asdict(self.config), "seconds": self.seconds, "workers": self.workers,
                "version": __version__, "curves": curves}

    def save(self, path, *, done=None) -> None:
        """Write an HDF5 file atomically (a temporary name, then a rename), with attributes ``config``
        (JSON), ``seed``, ``replications``, ``pokerduel_version``, ``format``, ``seconds`` and ``workers``;
        ``done`` (a checkpoint's mask of finished replications) is saved as dataset ``done``."""
        from ..infra.storage import atomic_h5, stamp

        with atomic_h5(path) as f:
            if done is not None:
                f["done"] = np.asarray(done, bool)
            stamp(f, FORMAT, FORMAT_VERSION, **json.loads(self.config.to_json()))
            f.attrs["seed"] = self.config.seed
            f.attrs["replications"] = self.config.replications
            f.attrs["seconds"] = self.seconds
            f.attrs["workers"] = self.workers
            for (problem, method), s in self.success.items():
                g = f.require_group(f"results/{problem}/{method}")
                g["budgets"] = self.budgets[(problem, method)]
                g.create_dataset("success", data=s, compression="gzip", shuffle=True)
                if (problem, method) in self.ii:
                    g.create_dataset("ii", data=self.ii[(problem, method)], compression="gzip")

    @classmethod
    def load(cls, path) -> StudyResult:
        from ..infra.storage import open_checked

        f, raw = open_checked(path, FORMAT, FORMAT_VERSION)
        with f:
            config = StudyConfig(**raw)
            budgets, success, ii = {}, {}, {}
            for problem in config.problems:
                for method in config.methods:
                    g = f[f"results/{problem}/{method}"]
                    budgets[(problem, method)] = g["budgets"][()]
                    success[(problem, method)] = g["success"][()]
                    if "ii" in g:
                        ii[(problem, method)] = g["ii"][()]
            return cls(config, budgets, success, ii, float(f.attrs.get("seconds", np.nan)),
                       int(f.attrs.get("workers", 1)))

    def plot(self, path, *, title: str | None = None) -> None:
        """A PNG: success rate against budget, one panel per problem, 95% Wilson intervals shaded."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        cfg = self.config
        n = len(cfg.problems)
        fig, axes = plt.subplots(1, n, figsize=(5.2 * n, 4.0), squeeze=False)
        for ax, problem in zip(axes[0], cfg.problems):
            for method in cfg.methods:
                b, rate, lo, hi = self.rate(problem, method)
                if b.size == 0:
                    continue
                line, = ax.plot(b, rate, marker="." if b.size < 30 else None, label=method)
                ax.fill_between(b, lo, hi, color=line.get_color(), alpha=0.2, linewidth=0)
            ax.set_xlabel("samples (budget)")
            ax.set_ylabel("success rate (top-k correct)")
            ax.set_title(f"{problem}: top {cfg.k} of {cfg.K}")
            ax.set_ylim(0, 1)
            ax.grid(alpha=0.3)
            ax.legend(loc="lower right", fontsize=8)
        fig.suptitle(title or f"{cfg.replications} replications, seed {cfg.seed}, 95% Wilson intervals",
                     fontsize=9)
        fig.tight_layout()
        atomic_savefig(fig, path)
        plt.close(fig)


def paired_difference(result: StudyResult, problem: str, a: str, b: str):
    """Success of ``a`` minus ``b`` at the budgets both were measured at, with its 95% half-width from the
    per-replication differences (the methods share instances and noise, so the pairing removes most of
    the variance): ``(budgets, difference, half-width)``."""
    ba, bb = result.budgets[(problem, a)], result.budgets[(problem, b)]
    common, ia, ib = np.intersect1d(ba, bb, return_indices=True)
    d = result.success[(problem, a)][:, ia].astype(np.float64) - result.success[(problem, b)][:, ib]
    n = d.shape[0]
    half = 1.959963984540054 * d.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.full(common.size, np.inf)
    return common, d.mean(axis=0), half


def crossings(budgets, diff) -> list[float]:
    """Budgets where a difference curve changes sign (linear interpolation between the measured budgets
    around the change; zeros are skipped, so a curve that touches zero and returns does not cross)."""
    out = []
    last = None
    for t in range(len(diff)):
        if diff[t] == 0.0:
            continue
        if last is not None and diff[last] * diff[t] < 0:
            f = diff[last] / (diff[last] - diff[t])
            out.append(float(budgets[last] + f * (budgets[t] - budgets[last])))
        last = t
    return out


def sign_runs(budgets, diff, half, *, min_run: int = 1) -> list[tuple[str, int, int]]:
    """Runs of budgets where a paired difference is significantly positive (``"+"``), negative (``"-"``)
    or not significant (``"0"``) at 95%: ``[(sign, first budget, last budget), ...]``. Runs shorter than
    ``min_run`` budgets (flickers at the edge of significance) are merged into the run before them."""
    out: list[list] = []
    for b, d, h in zip(budgets, diff, half):
        s = "+" if d - h > 0 else "-" if d + h < 0 else "0"
        if out and out[-1][0] == s:
            out[-1][2] = int(b)
            out[-1][3] += 1
        else:
            out.append([s, int(b), int(b), 1])
    merged: list[list] = []
    for run in out:
        if merged and (run[3] < min_run or merged[-1][0] == run[0]):
            merged[-1][2] = run[2]
            merged[-1][3] += run[3]
        else:
            merged.append(run)
    return [(s, lo, hi) for s, lo, hi, _ in merged]


def rate_cells(curve, budgets, digits: int = 3) -> list[str]:
    """Markdown cells "rate [low, high]" of a ``(budgets, rate, low, high)`` curve at the given budgets; a
    budget it was not measured at shows the nearest one below it, marked, or a dash."""
    b, rate, lo, hi = curve
    cells = []
    for x in budgets:
        idx = np.flatnonzero(b <= x)
        if idx.size == 0:
            cells.append("–")
            continue
        i = idx[-1]
        mark = "" if b[i] == x else f" (at {int(b[i])})"
        cells.append(f"{rate[i]:.{digits}f} [{lo[i]:.{digits}f}, {hi[i]:.{digits}f}]{mark}")
    return cells


def markdown_table(result: StudyResult, budgets, *, problem: str | None = None) -> str:
    """Success rates (95% Wilson interval) of every method at the given budgets, as a markdown table
    (see ``rate_cells``)."""
    cfg = result.config
    problem = problem or cfg.problems[0]
    head = "| method | " + " | ".join(str(b) for b in budgets) + " |"
    lines = [head, "|---" * (len(budgets) + 1) + "|"]
    for m in cfg.methods:
        lines.append(f"| {m} | " + " | ".join(rate_cells(result.rate(problem, m), budgets)) + " |")
    return "\n".join(lines)


def atomic_savefig(fig, path) -> None:
    """Save a matplotlib figure as PNG under a temporary name, then rename it into place."""
    path = os.fspath(path)
    folder = os.path.dirname(path) or "."
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        fig.savefig(tmp, dpi=120, format="png")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


# --- running ----------------------------------------------------------------------------------------

def _blocks(R: int, workers: int, done=None) -> list[tuple[int, int]]:
    """Runs of replications to play as tasks, about 8 per worker and at most 25 replications each (a
    checkpoint's unit), over the replications not ``done`` (a boolean mask; all by default)."""
    size = max(1, min(25, math.ceil(R / (8 * max(workers, 1)))))
    todo = np.flatnonzero(~np.asarray(done, bool)) if done is not None else np.arange(R)
    out = []
    for run in np.split(todo, np.flatnonzero(np.diff(todo) != 1) + 1) if todo.size else []:
        a, b = int(run[0]), int(run[-1]) + 1
        out += [(r, min(r + size, b)) for r in range(a, b, size)]
    return out


def _block_task(args):
    cfg_json, r0, r1 = args
    return r0, r1, _run_block(StudyConfig.from_json(cfg_json), r0, r1)


def _empty_results(config: StudyConfig) -> tuple[dict, dict, dict]:
    """Budgets, and success and II matrices (replications x budgets) to fill, per (problem, method)."""
    budgets, success, ii = {}, {}, {}
    R = config.replications
    for spec in config.problems:
        for m in config.methods:
            b = config.method_budgets(m)
            budgets[(spec, m)] = b
            success[(spec, m)] = np.zeros((R, b.size), dtype=np.uint8)
            if m in _II_METHODS:
                ii[(spec, m)] = np.full((R, b.size), np.nan, dtype=np.float32)
    return budgets, success, ii


def _load_checkpoint(path, config: StudyConfig, success: dict, ii: dict) -> tuple[np.ndarray, float]:
    """Fill ``success`` and ``ii`` from a study checkpoint of the same config; the replications it holds
    and the seconds spent on them. ``ValueError`` if it belongs to another study."""
    from ..infra.storage import open_checked

    f, raw = open_checked(path, FORMAT, FORMAT_VERSION)
    with f:
        if raw != json.loads(config.to_json()) or "done" not in f:
            raise ValueError(f"{path}: a checkpoint of another study (config {raw}); delete it to start over")
        done = f["done"][()].astype(bool)
        for (problem, method), s in success.items():
            g = f[f"results/{problem}/{method}"]
            s[done] = g["success"][()][done]
            if (problem, method) in ii:
                ii[(problem, method)][done] = g["ii"][()][done]
        return done, float(f.attrs.get("seconds", 0.0))


def run_study(config: StudyConfig, *, workers: int = 1, progress=None, checkpoint=None,
              checkpoint_every: float = 10.0, backend=None) -> StudyResult:
    """Run a study over ``workers`` processes (``multiprocess``), or on ``backend`` (``infra.parallel``, e.g.
    a Dask cluster; its workers replace ``workers``); ``progress(n)`` is called with the number of
    replications just finished. The result depends on ``config`` only, not on the workers or the backend.

    ``checkpoint``: an HDF5 file rewritten atomically with the replications done so far, after a finished
    task once ``checkpoint_every`` seconds have passed since the last write. A run that finds it (same
    config) plays only the others, so a study killed at any point resumes with the same result, having
    lost only the work since the last write; the file is removed once the study is done."""
    config.validate()
    workers = _as_int(workers, "workers", 1) if backend is None else backend.workers
    R = config.replications
    t0 = time.perf_counter()
    budgets, success, ii = _empty_results(config)
    done, earlier = np.zeros(R, bool), 0.0
    last_write = [time.perf_counter()]
    if checkpoint is not None and os.path.exists(checkpoint):
        done, earlier = _load_checkpoint(checkpoint, config, success, ii)
        if progress and done.any():
            progress(int(done.sum()))

    def record(r0: int, r1: int, part: dict) -> None:
        for (spec, m, what), arr in part.items():
            (success if what == "success" else ii)[(spec, m)][r0:r1] = arr
        done[r0:r1] = True
        if checkpoint is not None and not done.all() and time.perf_counter() - last_write[0] >= checkpoint_every:
            last_write[0] = time.perf_counter()
            partial = StudyResult(config, budgets, success, ii, earlier + time.perf_counter() - t0, workers)
            partial.save(checkpoint, done=done)
        if progress:
            progress(r1 - r0)

    blocks = _blocks(R, workers, done)
    if blocks:
        _warm(config)                                 # compile or load the kernels before forking
    if backend is None and (workers == 1 or len(blocks) <= 1):
        for r0, r1 in blocks:
            record(r0, r1, _run_block(config, r0, r1))
    else:
        from contextlib import nullcontext

        from ..infra.parallel import MultiprocessBackend

        cfg_json = config.to_json()
        with MultiprocessBackend(min(workers, len(blocks))) if backend is None else nullcontext(backend) as runner:
            for _, (r0, r1, part) in runner.map_unordered(_block_task, [(cfg_json, a, b) for a, b in blocks]):
                record(r0, r1, part)
    if checkpoint is not None and os.path.exists(checkpoint):
        os.remove(checkpoint)
    return StudyResult(config, budgets, success, ii, earlier + time.perf_counter() - t0, workers)


def run_or_load(config: StudyConfig, path, *, workers: int = 1, replot: bool = False,
                label: str = "study", backend=None) -> StudyResult:
    """The study saved at ``path`` (``replot``), or run it with a replication counter on stderr and save it.

    The figure scripts' shared step: a run is saved before it is drawn, so a drawing can be redone. The
    replications done so far are checkpointed in ``PATH.partial``: a killed run, started again with the
    same command, continues from there (``run_study``).
    """
    import sys

    if replot:
        return StudyResult.load(path)
    done = [0]

    def progress(n):
        done[0] += n
        print(f"\r  {label}: {done[0]}/{config.replications} replications", end="", file=sys.stderr, flush=True)

    res = run_study(config, workers=workers, progress=progress, checkpoint=f"{path}.partial", backend=backend)
    print(file=sys.stderr)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    res.save(path)
    return res


def _warm(config: StudyConfig) -> None:
    """Run one tiny replication of every fast path so that forked workers find the kernels compiled."""
    small = StudyConfig(K=config.K, k=config.k, budgets=(max(config.min_budget(m) for m in config.methods),),
                        methods=config.methods, problems=config.problems[:1], replications=1, seed=config.seed,
                        variance_law=config.variance_law, options=config.options)
    _run_block(small, 0, 1)
