"""Top-k selection among poker players (core paper §7, Fig 8), live or replayed, also against wall-clock.

Every selector runs on every population of a ground-truth file through a poker oracle
(``pokerduel.play.oracles``): ``"replay"`` draws the recorded per-deal samples without replacement, ``"live"``
plays new duplicate deals with the engine, each pair's match continuing across samples. Success means
the selector's top-k equals the ground truth's top-k by Borda score (cumulative winnings).

**Common random numbers.** Replication ``r`` of population ``p`` draws everything from
``SeedSequence(seed, spawn_key=(p, r))``: its first child seeds the oracle (the live decks of pair
``(i, j)`` come from ``pair_seed(child, i, j)``; the replay's per-pair orders from a generator), the second
the selectors. All methods of a replication read the same oracle, rewound between methods, so the n-th
sample of a pair is the same number for every method, and a live deal is played once.

**Wall-clock.** Each step of a selector is timed; the engine time spent inside it (live) is taken out,
so ``selector_seconds`` is the selector's own time. ``sampling_seconds`` charges each sample the mean
engine cost per deal of its pair measured in that replication (live oracle only), so methods are
charged the same for the same samples however the shared cache happened to be filled.

The work is split into (population, block of replications) units, run on a ``pokerduel.infra.parallel``
backend and checkpointed as they finish in ``OUT.parts/``; rerunning the same command after a crash
finishes the job without redoing finished units.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..selectors import SELECTORS, make_selector
from ..selectors.problems import n_pairs, pair_index_matrix
from ..selectors.studies import atomic_savefig, rate_cells, wilson

FORMAT = "pokerduel-poker-study"
FORMAT_VERSION = 1
METHODS = ("uniform", "pocbam", "ml-pocbam", "hybrid", "select-top")
ORACLES = ("live", "replay")
#: the hybrid's II threshold in Fig 8
HYBRID_THRESHOLD = 0.17
_ARRAYS = ("success", "selector_seconds", "sampling_seconds")
_HYBRID_ARRAYS = ("ii", "ml_fraction")


def default_budgets(K: int = 10, max_budget: int = 10_000, points: int = 12) -> tuple[int, ...]:
    """``points`` budgets spaced geometrically from POCBAm's warm-up (3 samples per pair) to ``max_budget``
    (10,000 by default: the replay oracle's recorded deals per pair, so no pair can run out)."""
    lo = 3 * n_pairs(K)
    if max_budget < lo:
        raise ValueError(f"max_budget must be at least the warm-up of 3 samples per pair, {lo}, got {max_budget}")
    grid = np.unique(np.round(np.geomspace(lo, max_budget, max(points, 1))).astype(np.int64))
    return tuple(int(b) for b in grid)


def check_selector_options(method: str, options: dict, K: int, k: int) -> None:
    """``ValueError`` naming the problem when ``options`` are not valid options of selector ``method`` for
    ``K`` players and top ``k``: an unknown name, a value of the wrong type, or one the selector refuses
    (checked by building it on a stand-in problem, before any work)."""
    import inspect

    from ..selectors.problems import thurstone

    cls = SELECTORS[method]
    params = {}
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        sig = inspect.signature(init).parameters
        params.update({n: p for n, p in sig.items()
                       if n not in params and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)})
        if not any(p.kind == p.VAR_KEYWORD for p in sig.values()):
            break
    allowed = sorted(set(params) - {"self", "oracle", "k", "budget", "rng"})
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"selector {method} has no option {', '.join(unknown)}; allowed: {', '.join(allowed)}")
    for name, value in options.items():
        default = params[name].default
        number = isinstance(default, (int, float)) and not isinstance(default, bool)
        if number and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise ValueError(f"option {name} of selector {method} takes a number, got {value!r}")
    probe = thurstone(K, np.random.default_rng(0), np.random.default_rng(0))
    try:
        make_selector(method, probe, k, 100 * n_pairs(K), rng=np.random.default_rng(0), **options)
    except (TypeError, ValueError) as err:
        given = ", ".join(f"{n}={v!r}" for n, v in options.items())
        raise ValueError(f"bad option value for selector {method} ({given}): {err}") from None


def _as_int(value, what: str, lo: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"{what} must be an integer >= {lo}, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class PokerStudyConfig:
    """What a poker selection study runs.

    ``populations`` (indices into the file, default all) and ``methods`` (any registered selector) choose
    the cells; every method is measured at the ``budgets`` it accepts (at least its warm-up), except
    the non-anytime SELECT/TOP, which is rerun for each budget and so measured at ``select_top_points``
    of them (evenly spread) to bound its cost. ``options`` maps a method to its selector options (the
    hybrid's threshold defaults to 0.17 as in Fig 8). ``reset`` starts every live deal with fresh
    memories instead of continuing the pair's match.
    """

    ground_truth: str
    k: int = 4
    budgets: tuple[int, ...] = field(default_factory=default_budgets)
    methods: tuple[str, ...] = METHODS
    populations: tuple[int, ...] | None = None
    replications: int = 500
    seed: int = 1
    oracle: str = "replay"
    reset: bool = False
    hs_samples: int = 1000
    options: dict = field(default_factory=lambda: {"hybrid": {"threshold": HYBRID_THRESHOLD}})
    select_top_points: int = 10
    block: int = 25

    def __post_init__(self):
        for name in ("budgets", "methods"):
            value = getattr(self, name)
            if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                raise ValueError(f"{name} must be a sequence, got {value!r}")
            object.__setattr__(self, name, tuple(value))
        if self.populations is not None:
            if isinstance(self.populations, (str, bytes)) or not hasattr(self.populations, "__iter__"):
                raise ValueError(f"populations must be a sequence of indices, got {self.populations!r}")
            object.__setattr__(self, "populations", tuple(int(p) for p in self.populations))
        object.__setattr__(self, "ground_truth", os.fspath(self.ground_truth))

    def validate(self, K: int, n_populations: int) -> None:
        """``ValueError`` with a clear message for anything this study cannot run on ``n_populations``
        populations of ``K`` players."""
        from ..selectors.problems import check_k

        check_k(self.k, K)
        for name, lo in (("replications", 1), ("seed", 0), ("hs_samples", 1), ("select_top_points", 1),
                         ("block", 1)):
            _as_int(getattr(self, name), name, lo)
        if self.oracle not in ORACLES:
            raise ValueError(f"unknown oracle {self.oracle!r}; allowed: {', '.join(ORACLES)}")
        if not self.methods or len(set(self.methods)) != len(self.methods):
            raise ValueError(f"methods must be distinct and at least one, got {list(self.methods)}")
        for m in self.methods:
            if m not in SELECTORS:
                raise ValueError(f"unknown method {m!r}; known: {', '.join(SELECTORS)}")
        if not isinstance(self.options, dict) or any(m not in SELECTORS or not isinstance(o, dict)
                                                     for m, o in self.options.items()):
            raise ValueError(f"options must map selector names to option dicts, got {self.options!r}")
        for m in self.methods:
            check_selector_options(m, self.method_options(m), K, self.k)
        b = [_as_int(x, "every budget", 1) for x in self.budgets]
        if not b or any(y <= x for x, y in zip(b, b[1:])):
            raise ValueError(f"budgets must be a strictly increasing, non-empty list, got {b}")
        for m in self.methods:
            if self.method_budgets(m, K).size == 0:
                raise ValueError(f"no budget reaches the warm-up of {m!r}: it needs at least "
                                 f"{self.min_budget(m, K)} samples for K = {K}, k = {self.k}")
        pops = self.population_list(n_populations)
        if not pops or len(set(pops)) != len(pops) or min(pops) < 0 or max(pops) >= n_populations:
            raise ValueError(f"populations must be distinct indices in 0..{n_populations - 1}, got {list(pops)}")

    def population_list(self, n_populations: int) -> tuple[int, ...]:
        return tuple(range(n_populations)) if self.populations is None else self.populations

    def method_options(self, m: str) -> dict:
        return dict(self.options.get(m, {}))

    def min_budget(self, m: str, K: int) -> int:
        if m == "select-top":
            from ..selectors import _top as top

            left, right, parent = top.build_tree(K, self.k)
            return int(top.max_matches(K, self.k, left, right, parent))
        return SELECTORS[m].min_budget(K, self.k, **self.method_options(m))

    def method_budgets(self, m: str, K: int) -> np.ndarray:
        b = np.asarray(self.budgets, dtype=np.int64)
        b = b[b >= self.min_budget(m, K)]
        if SELECTORS[m].anytime or b.size <= self.select_top_points:
            return b
        idx = np.unique(np.round(np.linspace(0, b.size - 1, self.select_top_points)).astype(np.int64))
        return b[idx]

    def key(self) -> dict:
        """The config as stored (JSON-ready)."""
        return asdict(self)


def replication_seeds(seed: int, p: int, r: int) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    """(oracle, selectors) seed sequences of replication ``r`` of population ``p``."""
    a, b = np.random.SeedSequence(seed, spawn_key=(p, r)).spawn(2)
    return a, b


# ----------------------------------------------------------------------------------------- one unit


def _make_oracle(cfg: PokerStudyConfig, truth, ss):
    from ..play.oracles import LiveOracle, ReplayOracle

    if cfg.oracle == "replay":
        return ReplayOracle(truth, np.random.default_rng(ss))
    pop = truth.population()
    return LiveOracle([pop.player(i) for i in range(len(truth))], ss, reset=cfg.reset, hs_samples=cfg.hs_samples,
                      means=truth.mean)


def run_unit(cfg: PokerStudyConfig, truth, p: int, r0: int, r1: int, *, compiled: bool = True) -> dict:
    """Replications ``r0..r1-1`` of population ``p`` (``truth`` = that population's ground truth).

    On the replay oracle, uniform, POCBAm, ML-POCBAm, the hybrid and SELECT/TOP run as compiled whole
    replications on the pairs' recorded sample orders (``compiled``; the same answers as the Python
    selectors, which ``time_selectors`` checks while timing them); everything else steps the Python
    selectors on the oracle and times them.
    """
    K, k = len(truth), cfg.k
    best = np.zeros(K, dtype=bool)
    best[truth.ranking[:k]] = True
    R = r1 - r0
    out: dict = {}
    for m in cfg.methods:
        nb = cfg.method_budgets(m, K).size
        for name in _ARRAYS:
            out[(m, name)] = np.full((R, nb), 0 if name == "success" else np.nan,
                                     dtype=np.uint8 if name == "success" else np.float32)
        if m == "hybrid":
            for name in _HYBRID_ARRAYS:
                out[(m, name)] = np.full((R, nb), np.nan, dtype=np.float32)
    fast = [m for m in cfg.methods if compiled and cfg.oracle == "replay" and m in _COMPILED]
    for r in range(r0, r1):
        o_ss, s_ss = replication_seeds(cfg.seed, p, r)
        oracle = _make_oracle(cfg, truth, o_ss)
        row = r - r0
        if fast:
            _compiled_replication(cfg, oracle, fast, best, s_ss, {key: a[row] for key, a in out.items()})
        traces = {}
        for m in cfg.methods:
            if m in fast:
                continue
            budgets = cfg.method_budgets(m, K)
            opts = cfg.method_options(m)
            if SELECTORS[m].anytime:
                oracle.rewind()
                s = make_selector(m, oracle, k, int(budgets[-1]), rng=np.random.default_rng(s_ss), **opts)
                spent = 0.0
                for c, b in enumerate(budgets):
                    e0, t0 = oracle.seconds, time.perf_counter()
                    while s.used < b:
                        s.step()
                    top = s.top_k()
                    spent += time.perf_counter() - t0 - (oracle.seconds - e0)
                    out[(m, "success")][row, c] = best[top].all()
                    out[(m, "selector_seconds")][row, c] = spent
                    if m == "hybrid":
                        out[(m, "ii")][row, c] = s.final_ii
                        modes = s.mode_trace[s.warmup:b]
                        out[(m, "ml_fraction")][row, c] = np.mean(modes == 1) if modes.size else np.nan
                traces[m] = [(s.trace, budgets)]
            else:
                traces[m] = []
                for c, b in enumerate(budgets):
                    oracle.rewind()
                    e0, t0 = oracle.seconds, time.perf_counter()
                    s = make_selector(m, oracle, k, int(b), rng=np.random.default_rng(s_ss), **opts)
                    top = s.run()
                    out[(m, "selector_seconds")][row, c] = time.perf_counter() - t0 - (oracle.seconds - e0)
                    out[(m, "success")][row, c] = best[top].all()
                    traces[m].append((s.trace, budgets[c:c + 1]))
        if cfg.oracle == "live":
            cost = oracle.deal_cost()
            cost = np.where(np.isfinite(cost), cost, 0.0)
            for m, runs in traces.items():
                col = 0
                for trace, budgets in runs:
                    cum = np.cumsum(cost[pair_index_matrix(K)[trace.i, trace.j]])
                    for b in budgets:
                        out[(m, "sampling_seconds")][row, col] = cum[b - 1]
                        col += 1
    return out


_COMPILED = ("uniform", "pocbam", "ml-pocbam", "hybrid", "select-top")  # studies._FAST and SELECT/TOP


def _compiled_replication(cfg: PokerStudyConfig, oracle, methods, best: np.ndarray, s_ss, rows: dict) -> None:
    """The compiled methods on the replay oracle's per-pair sample orders (``rows`` are this replication's
    output rows, filled in place)."""
    from ..selectors import _replicate, _top
    from ..selectors.problems import pair_arrays
    from ..selectors.select_top import SelectTop
    from ..selectors.studies import _FAST, compiled_params

    K, k = oracle.K, cfg.k
    pi, pj = pair_arrays(K)
    pidx = pair_index_matrix(K)
    top_b = max(int(cfg.method_budgets(m, K)[-1]) for m in methods)
    table = np.stack([oracle.pair_samples(int(i), int(j), top_b) for i, j in zip(pi, pj)])
    mask = best.astype(np.int8)
    no_tops = np.empty((0, k), dtype=np.int64)
    for m in methods:
        budgets = cfg.method_budgets(m, K)
        q = compiled_params(make_selector(m, oracle, k, int(budgets[-1]), rng=np.random.default_rng(s_ss),
                                          **cfg.method_options(m)))
        success = np.zeros(budgets.size, dtype=np.uint8)
        if m == "select-top":
            order, tie_key = SelectTop.draws(np.random.default_rng(s_ss), K, q["shuffle"])
            _top.run_curve_table(K, k, budgets, *q["tree"], order, pidx, table, q["majority"], q["tie_first"],
                                 tie_key, mask, success, np.empty(k, dtype=np.int64))
        else:
            ii = np.full(budgets.size, np.nan)
            share = np.full(budgets.size, np.nan)
            _replicate.bayes_run_table(
                _FAST[m], K, k, q["n0"], pi, pj, pidx, table, budgets, mask, q["var_floor"], q["fit_tol"],
                q["max_iter"], q["warm_start"], q["threshold"], q["per_sample"], q["unbiased"], m == "hybrid",
                success, ii, share, no_tops, q["var_prior"])
            if m == "hybrid":
                rows[(m, "ii")][:] = ii
                rows[(m, "ml_fraction")][:] = share
        rows[(m, "success")][:] = success


def time_selectors(cfg: PokerStudyConfig, truth, p: int, reps: int = 2) -> dict:
    """Selector seconds per budget of the Python selectors on the replay oracle (replications ``0..reps-1``
    of population ``p``), and a check that they give the compiled path's answers: ``{method: seconds}``.
    Raises ``AssertionError`` if the two paths disagree."""
    run_unit(cfg, truth, p, 0, 1, compiled=False)  # compile or load every kernel first
    slow = run_unit(cfg, truth, p, 0, reps, compiled=False)
    fast = run_unit(cfg, truth, p, 0, reps, compiled=True)
    for m in cfg.methods:
        if not np.array_equal(slow[(m, "success")], fast[(m, "success")]):
            raise AssertionError(f"{m}: the compiled replication disagrees with the Python selector")
    return {m: np.nanmean(slow[(m, "selector_seconds")], axis=0) for m in cfg.methods}


def _unit_task(args):
    cfg_json, path, p, r0, r1 = args
    from ..play.ground_truth import load_ground_truth

    cfg = PokerStudyConfig(**json.loads(cfg_json))
    truth = load_ground_truth(path)[p]
    t0 = time.perf_counter()
    res = run_unit(cfg, truth, p, r0, r1)
    return {"p": p, "r0": r0, "r1": r1, "arrays": res, "seconds": time.perf_counter() - t0}


# ----------------------------------------------------------------------------------------- results


@dataclass
class PokerStudyResult:
    """Per (population, method): budgets and replications x budgets arrays (success, selector and sampling
    seconds; for the hybrid also the intransitivity index of the answer and the fraction of decisions
    made in ML-POCBAm mode)."""

    config: PokerStudyConfig
    K: int
    budgets: dict
    arrays: dict
    deal_cost: float = float("nan")
    seconds: float = float("nan")
    backend: str = ""
    timing: dict = field(default_factory=dict)  # method -> Python selector seconds per budget (replay)

    def selector_seconds(self, m: str, populations=None) -> np.ndarray:
        """Mean selector seconds per replication at each of ``m``'s budgets: measured in every replication
        where the selector was stepped in Python, else the ``timing`` calibration."""
        pops = populations or self.populations()
        per = np.array([self.arrays[(p, m, "selector_seconds")] for p in pops], dtype=np.float64)
        if np.isfinite(per).all():
            return per.mean(axis=(0, 1))
        return np.asarray(self.timing.get(m, np.full(per.shape[-1], np.nan)), dtype=np.float64)

    def populations(self) -> tuple[int, ...]:
        return tuple(sorted({p for p, _ in self.budgets}))

    def rate(self, p: int, m: str):
        """``(budgets, success rate, 95% CI low, high)`` (Wilson) for population ``p`` and method ``m``."""
        s = self.arrays[(p, m, "success")]
        n = s.shape[0]
        hits = s.sum(axis=0)
        lo, hi = wilson(hits, n)
        return self.budgets[(p, m)], hits / n, lo, hi

    def mean_rate(self, m: str, populations=None):
        """Success rate averaged over the populations (all, or those given), at the method's budgets."""
        pops = populations or self.populations()
        rates = np.array([self.rate(p, m)[1] for p in pops])
        return self.budgets[(pops[0], m)], rates.mean(axis=0)

    def paired(self, p: int, a: str, b: str):
        """Success of ``a`` minus ``b`` at their common budgets with its 95% half-width from the
        per-replication differences: ``(budgets, difference, half-width)``."""
        ba, bb = self.budgets[(p, a)], self.budgets[(p, b)]
        common, ia, ib = np.intersect1d(ba, bb, return_indices=True)
        d = self.arrays[(p, a, "success")][:, ia].astype(np.float64) - self.arrays[(p, b, "success")][:, ib]
        n = d.shape[0]
        half = 1.959963984540054 * d.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.full(common.size, np.inf)
        return common, d.mean(axis=0), half

    def save(self, path) -> None:
        from ..infra.storage import atomic_h5, stamp

        with atomic_h5(path) as f:
            stamp(f, FORMAT, FORMAT_VERSION, **self.config.key())
            f.attrs["seed"] = self.config.seed
            f.attrs["K"] = self.K
            f.attrs["deal_cost"] = self.deal_cost
            f.attrs["seconds"] = self.seconds
            f.attrs["backend"] = self.backend
            for m, t in self.timing.items():
                f[f"timing/{m}"] = np.asarray(t, dtype=np.float64)
            for (p, m), b in self.budgets.items():
                g = f.require_group(f"pop{p:02d}/{m}")
                g["budgets"] = b
                for name in _ARRAYS + _HYBRID_ARRAYS:
                    if (p, m, name) in self.arrays:
                        g.create_dataset(name, data=self.arrays[(p, m, name)], compression="gzip", shuffle=True)

    @classmethod
    def load(cls, path) -> PokerStudyResult:
        from ..infra.storage import open_checked

        f, raw = open_checked(path, FORMAT, FORMAT_VERSION)
        with f:
            cfg = PokerStudyConfig(**raw)
            budgets, arrays = {}, {}
            timing = {m: f["timing"][m][()] for m in f["timing"]} if "timing" in f else {}
            for name in f:
                if not name.startswith("pop"):
                    continue
                p = int(name[3:])
                for m in f[name]:
                    g = f[name][m]
                    budgets[(p, m)] = g["budgets"][()]
                    for a in _ARRAYS + _HYBRID_ARRAYS:
                        if a in g:
                            arrays[(p, m, a)] = g[a][()]
            return cls(cfg, int(f.attrs["K"]), budgets, arrays, float(f.attrs["deal_cost"]),
                       float(f.attrs["seconds"]), str(f.attrs.get("backend", "")), timing)

    # --- reading the results -----------------------------------------------------------------------

    def comparison(self) -> dict:
        """The paper's two claims, checked per population: the hybrid at least as good as POCBAm (no
        budget where it is significantly worse, paired 95%) and SELECT/TOP the worst (lowest success
        averaged over the budgets it was measured at)."""
        out = {}
        for p in self.populations():
            row = {}
            if ("hybrid" in self.config.methods) and ("pocbam" in self.config.methods):
                b, d, h = self.paired(p, "hybrid", "pocbam")
                row["hybrid_minus_pocbam_mean"] = float(d.mean())
                row["hybrid_significantly_worse_at"] = [int(x) for x in b[d + h < 0]]
                row["hybrid_significantly_better_at"] = [int(x) for x in b[d - h > 0]]
            if "select-top" in self.config.methods:
                bs = self.budgets[(p, "select-top")]
                means = {}
                for m in self.config.methods:
                    bm, rate, _, _ = self.rate(p, m)
                    common = np.isin(bm, bs)
                    means[m] = float(rate[common].mean()) if common.any() else float("nan")
                row["mean_success_at_select_top_budgets"] = means
                row["select_top_worst"] = bool(min(means, key=lambda m: means[m]) == "select-top")
            out[p] = row
        return out

    def break_even(self, m: str, levels=None, populations=None) -> list[dict]:
        """At what cost per sample ``m`` beats uniform at equal wall-clock time, at given success levels
        (default: 1/2, 3/4 and all of uniform's population-averaged success at its largest budget).

        Per level ``s``: the smallest budgets ``b_m``, ``b_u`` whose population-averaged success reaches
        ``s``, the selector seconds spent there (averaged over replications and populations), and the
        break-even sample cost ``c* = (sel_m - sel_u) / (b_u - b_m)``: when a sample costs more than
        ``c*``, ``m`` reaches ``s`` sooner than uniform sampling does (``c* <= 0``: always; ``None``:
        one of them never reaches ``s`` or ``m`` needs more samples)."""
        out = []
        if levels is None:
            top = float(self.mean_rate("uniform", populations)[1][-1])
            levels = tuple(round(f * top, 3) for f in (0.5, 0.75, 1.0)) if top > 0 else (0.5,)
        for s in levels:
            row = {"level": s}
            reach = {}
            for name in (m, "uniform"):
                b, rate = self.mean_rate(name, populations)
                sel = self.selector_seconds(name, populations)
                idx = np.flatnonzero(rate >= s)
                reach[name] = (int(b[idx[0]]), float(sel[idx[0]])) if idx.size else None
            row["budget"] = reach[m][0] if reach[m] else None
            row["uniform_budget"] = reach["uniform"][0] if reach["uniform"] else None
            row["break_even_cost"] = None
            if reach[m] and reach["uniform"] and reach["uniform"][0] > reach[m][0]:
                row["selector_seconds"], row["uniform_selector_seconds"] = reach[m][1], reach["uniform"][1]
                row["break_even_cost"] = (reach[m][1] - reach["uniform"][1]) / (reach["uniform"][0] - reach[m][0])
                row["reading"] = ("pays off at any sample cost (fewer samples and less selector time)"
                                  if row["break_even_cost"] <= 0 else "pays off above the break-even cost per sample")
            elif reach[m] and not reach["uniform"]:
                row["reading"] = "uniform never reaches this level within the budgets: pays off at any sample cost"
            elif reach["uniform"] and not reach[m]:
                row["reading"] = f"{m} never reaches this level within the budgets"
            elif reach[m]:
                row["reading"] = f"{m} needs as many samples as uniform or more: never pays off"
            else:
                row["reading"] = "neither reaches this level within the budgets"
            out.append(row)
        return out

    def summary(self) -> dict:
        """JSON-ready: config, timing, per-population curves and the comparison with the paper."""
        from .. import __version__

        curves = []
        for (p, m) in sorted(self.budgets):
            b, rate, lo, hi = self.rate(p, m)
            entry = {"population": p, "method": m, "budgets": b.tolist(), "success_rate": rate.tolist(),
                     "ci95_low": lo.tolist(), "ci95_high": hi.tolist(),
                     "selector_seconds": self.selector_seconds(m).tolist()}
            if (p, m, "ii") in self.arrays:
                entry["mean_ii"] = np.nanmean(self.arrays[(p, m, "ii")], axis=0).tolist()
                entry["ml_fraction"] = np.nanmean(self.arrays[(p, m, "ml_fraction")], axis=0).tolist()
            curves.append(entry)
        return {"config": self.config.key(), "version": __version__, "seconds": self.seconds,
                "backend": self.backend, "deal_cost": self.deal_cost, "curves": curves,
                "comparison": {str(p): v for p, v in self.comparison().items()}}

    # --- pictures -----------------------------------------------------------------------------------

    def plot(self, path, *, title: str | None = None) -> None:
        """Fig 8: one panel per population, success rate against budget with 95% Wilson bands."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        pops = self.populations()
        cols = min(5, len(pops))
        rows = math.ceil(len(pops) / cols)
        fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.9 * rows), squeeze=False, sharey=True)
        for ax in axes.flat[len(pops):]:
            ax.set_visible(False)
        for ax, p in zip(axes.flat, pops):
            for m in self.config.methods:
                b, rate, lo, hi = self.rate(p, m)
                line, = ax.plot(b, rate, marker="." if b.size < 15 else None, lw=1.2, label=m)
                ax.fill_between(b, lo, hi, color=line.get_color(), alpha=0.18, linewidth=0)
            ax.set_title(f"population {p}", fontsize=9)
            ax.set_ylim(0, 1)
            ax.grid(alpha=0.3)
            ax.tick_params(labelsize=7)
        for ax in axes[-1]:
            ax.set_xlabel("samples (duplicate deals)", fontsize=8)
        for ax in axes[:, 0]:
            ax.set_ylabel("success rate", fontsize=8)
        axes.flat[0].legend(fontsize=7, loc="lower right")
        cfg = self.config
        fig.suptitle(title or f"top {cfg.k} of {self.K} poker players, {cfg.oracle} oracle, {cfg.replications} "
                     f"replications, seed {cfg.seed}, 95% Wilson intervals", fontsize=9)
        fig.tight_layout()
        atomic_savefig(fig, path)
        plt.close(fig)

    def plot_wallclock(self, path, *, costs=None) -> None:
        """Success (averaged over populations) against seconds per replication, for sample costs
        ``costs`` (default: the measured live deal cost, and 1/10 and 10 times it)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        base = self.deal_cost if np.isfinite(self.deal_cost) and self.deal_cost > 0 else 1e-4
        costs = costs or (base / 10, base, base * 10)
        fig, axes = plt.subplots(1, len(costs), figsize=(4.4 * len(costs), 3.6), squeeze=False)
        for ax, c in zip(axes[0], costs):
            for m in self.config.methods:
                b, rate = self.mean_rate(m)
                ax.plot(self.selector_seconds(m) + c * b, rate, marker=".", lw=1.2, label=m)
            ax.set_xscale("log")
            ax.set_xlabel("seconds per replication (selector + samples)", fontsize=8)
            ax.set_ylabel("success rate, mean over populations", fontsize=8)
            ax.set_title(f"{c * 1e6:,.0f} µs per sample", fontsize=9)
            ax.set_ylim(0, 1)
            ax.grid(alpha=0.3, which="both")
        axes[0, 0].legend(fontsize=7, loc="upper left")
        fig.suptitle(f"wall-clock view (measured live deal cost: {base * 1e6:,.0f} µs)", fontsize=9)
        fig.tight_layout()
        atomic_savefig(fig, path)
        plt.close(fig)


# ----------------------------------------------------------------------------------------- running


def _parts_dir(out) -> Path:
    return Path(os.fspath(out) + ".parts")


def _units(cfg: PokerStudyConfig, pops) -> list[tuple[int, int, int]]:
    R = cfg.replications
    return [(p, a, min(a + cfg.block, R)) for p in pops for a in range(0, R, cfg.block)]


def _write_unit(parts: Path, digest: str, res: dict) -> None:
    from ..infra.storage import atomic_h5

    with atomic_h5(parts / f"p{res['p']:02d}_r{res['r0']:06d}.h5") as f:
        f.attrs["digest"] = digest
        f.attrs["seconds"] = res["seconds"]
        for (m, name), arr in res["arrays"].items():
            f[f"{m}/{name}"] = arr


def _read_unit(path: Path, digest: str):
    import h5py

    try:
        with h5py.File(path, "r") as f:
            if f.attrs.get("digest") != digest:
                return None
            arrays = {(m, name): f[m][name][()] for m in f for name in f[m]}
            return arrays, float(f.attrs["seconds"])
    except (OSError, KeyError):
        return None  # a damaged part is redone


class ConfigMismatch(ValueError):
    """An existing output or checkpoint folder belongs to another study."""


def run_poker_study(cfg: PokerStudyConfig, out=None, backend=None, *, overwrite: bool = False,
                    progress=None) -> PokerStudyResult:
    """Run (or finish) the study; with ``out``, checkpoint units in ``out.parts/`` and write ``out``.

    ``progress(done, total)`` is called after every unit. The result depends on ``cfg`` only, never on
    the backend or its number of workers. An ``out`` or checkpoint folder of another configuration is
    refused (``ConfigMismatch``) unless ``overwrite``; an existing ``out`` of the same one is returned.
    """
    import hashlib

    from ..infra.parallel import SerialBackend
    from ..play.ground_truth import load_ground_truth

    t_start = time.perf_counter()
    gt = load_ground_truth(cfg.ground_truth)
    K = len(gt[0])
    cfg.validate(K, len(gt))
    pops = cfg.population_list(len(gt))
    if cfg.oracle == "replay":
        recorded = gt[pops[0]].all_samples.shape[1]
        if max(cfg.budgets) > recorded:
            raise ValueError(f"the replay oracle draws without replacement from {recorded} recorded deals per pair; "
                             f"a budget of {max(cfg.budgets)} could need more: use budgets <= {recorded}")
    digest = hashlib.sha256(json.dumps({"config": cfg.key(), "truth": gt.config}, sort_keys=True,
                                       default=str).encode()).hexdigest()
    units = _units(cfg, pops)
    done: dict = {}
    parts = _parts_dir(out) if out is not None else None
    if parts is not None:
        manifest = parts / "manifest.json"
        if overwrite:
            for path in list(parts.glob("*.h5")) + ([manifest] if manifest.exists() else []):
                path.unlink()
        elif manifest.exists() and json.loads(manifest.read_text()).get("digest") != digest:
            raise ConfigMismatch(f"checkpoint folder {parts} belongs to another study; pass --overwrite to start over")
        elif Path(out).exists():
            try:
                old = PokerStudyResult.load(out)
            except ValueError as err:
                raise ConfigMismatch(f"{out} exists and is not a readable poker study ({err}); pass --overwrite "
                                     "to replace it") from None
            if old.config == cfg:
                return old
            raise ConfigMismatch(f"{out} holds another study; pass --overwrite to replace it")
        parts.mkdir(parents=True, exist_ok=True)
        if not manifest.exists():
            manifest.write_text(json.dumps({"digest": digest, "config": cfg.key()}, sort_keys=True))
        for p, r0, r1 in units:
            path = parts / f"p{p:02d}_r{r0:06d}.h5"
            if path.exists():
                got = _read_unit(path, digest)
                if got is not None:
                    done[(p, r0, r1)] = got
    todo = [u for u in units if u not in done]
    backend = backend or SerialBackend()
    cfg_json = json.dumps(cfg.key())
    if progress:
        progress(len(done), len(units))
    for _, res in backend.map_unordered(_unit_task, [(cfg_json, cfg.ground_truth, p, a, b) for p, a, b in todo]):
        if parts is not None:
            _write_unit(parts, digest, res)
        done[(res["p"], res["r0"], res["r1"])] = (res["arrays"], res["seconds"])
        if progress:
            progress(len(done), len(units))
    budgets, arrays = {}, {}
    R = cfg.replications
    for p in pops:
        for m in cfg.methods:
            budgets[(p, m)] = cfg.method_budgets(m, K)
    for (p, r0, r1), (arr, _) in done.items():
        for (m, name), a in arr.items():
            full = arrays.get((p, m, name))
            if full is None:
                full = arrays[(p, m, name)] = np.zeros((R, a.shape[1]), dtype=a.dtype)
            full[r0:r1] = a
    timing = {}
    if cfg.oracle == "live":  # mean engine seconds per sample over every sample any method took
        cost = float(np.nanmean([np.nanmean(arrays[(p, m, "sampling_seconds")][:, -1] / budgets[(p, m)][-1])
                                 for p in pops for m in cfg.methods]))
    else:  # no engine ran: the ground truth's own cost per deal, and the Python selectors timed once
        cost = float(gt.attrs.get("pair_seconds_total", np.nan)) / (len(gt) * n_pairs(K) * gt.config["deals"])
        if any(m in _COMPILED for m in cfg.methods):
            timing = time_selectors(cfg, gt[pops[0]], pops[0], reps=min(2, cfg.replications))
    res = PokerStudyResult(cfg, K, budgets, arrays, cost, time.perf_counter() - t_start,
                           getattr(backend, "describe", lambda: "")(), timing)
    if out is not None:
        res.save(out)
        for path in list(parts.glob("*.h5")) + [parts / "manifest.json"]:
            path.unlink()
        parts.rmdir()
    return res


def markdown_table(result: PokerStudyResult, budgets) -> str:
    """Success rate with its 95% interval at the given budgets, one row per (population, method)."""
    head = "| population | method | " + " | ".join(str(b) for b in budgets) + " |"
    lines = [head, "|---|---|" + "---|" * len(budgets)]
    for p in result.populations():
        for m in result.config.methods:
            lines.append(f"| {p} | {m} | " + " | ".join(rate_cells(result.rate(p, m), budgets, 2)) + " |")
    return "\n".join(lines)
