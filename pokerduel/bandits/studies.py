"""Studies of the dueling bandits: the Sup-KLUCB paper's Copeland regret experiment (Fig. (a) and (b)) and
SAVAGE's sample complexity against uniform exploration and the naive (UCB, elimination) / wrapped baselines.

Every random number comes from one ``SeedSequence``: game ``g`` (its K and matrix) from spawn key ``g``,
run ``r`` of game ``g`` from the game's spawn key ``r``. A run's seed is split into the feedback streams and
the bandit's own generator (``algorithms.run_on_matrix``), so all algorithms of a run face the same duel
outcomes pair by pair (common random numbers), and results do not depend on the number of workers.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass

import numpy as np

from .algorithms import run_on_matrix
from .problems import (
    borda_scores,
    copeland_scores,
    hard_condorcet_matrix,
    random_copeland_matrix,
    regret_per_round,
    shuffled,
)

COPELAND_FORMAT = "pokerduel-copeland-study"
SAVAGE_FORMAT = "pokerduel-savage-study"
FORMAT_VERSION = 1


# --- Copeland regret study ----------------------------------------------------------------------------

@dataclass
class CopelandConfig:
    """The Sup-KLUCB paper's set-up: ``games`` random matrices with K uniform in ``[k_min, k_max]`` and a
    unique Copeland winner, ``runs`` runs each, horizon ``horizon``; regret recorded at ``checkpoints``
    geometrically spaced rounds (``horizon`` included)."""

    games: int = 25
    runs: int = 25
    horizon: int = 100_000
    k_min: int = 3
    k_max: int = 36
    seed: int = 2019
    algorithms: tuple = ("sup-klucb", "dts", "rucb")
    checkpoints: int = 120
    no_condorcet: bool = False

    def validate(self) -> None:
        for name, lo in (("games", 1), ("runs", 1), ("horizon", 1), ("k_min", 2), ("checkpoints", 2)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
                raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
        if self.k_max < self.k_min:
            raise ValueError(f"k_max ({self.k_max}) must be >= k_min ({self.k_min})")
        if self.no_condorcet and self.k_min < 5:
            raise ValueError("no_condorcet needs k_min >= 5 (smaller matrices with a unique Copeland winner "
                             "always have a Condorcet winner)")
        from .algorithms import BANDITS

        for a in self.algorithms:
            if a not in BANDITS and a != "savage":
                raise ValueError(f"unknown algorithm {a!r}; allowed: {', '.join(list(BANDITS) + ['savage'])}")

    def grid(self) -> np.ndarray:
        g = np.unique(np.geomspace(1, self.horizon, self.checkpoints).round().astype(np.int64))
        return g


def copeland_games(cfg: CopelandConfig) -> list[tuple[int, np.ndarray]]:
    """``[(K, P)]`` of the study, from spawn keys ``0..games-1`` of the seed."""
    out = []
    for ss in np.random.SeedSequence(cfg.seed).spawn(cfg.games):
        rng = np.random.default_rng(ss.spawn(1)[0])
        K = int(rng.integers(cfg.k_min, cfg.k_max + 1))
        out.append((K, random_copeland_matrix(K, rng, no_condorcet=cfg.no_condorcet)))
    return out


def _copeland_task(task: dict) -> dict:
    """All runs of one (game, algorithm): cumulative regret at the checkpoints, winner hits, time."""
    P = np.asarray(task["P"])
    T = task["horizon"]
    grid = np.asarray(task["grid"]) - 1
    runs = np.random.SeedSequence(task["seed"]).spawn(task["game"] + 1)[task["game"]].spawn(task["runs"] + 1)[1:]
    a_star = int(np.argmax(copeland_scores(P)))
    reg = np.empty((len(runs), grid.size))
    hit = np.empty(len(runs), dtype=bool)
    t0 = time.perf_counter()
    for r, ss in enumerate(runs):
        ti, tj, w = run_on_matrix(task["algorithm"], P, T, ss)
        reg[r] = np.cumsum(regret_per_round(ti, tj, P, "copeland"))[grid]
        hit[r] = w == a_star
    return {"regret": reg, "hit": hit, "seconds": time.perf_counter() - t0}


def run_copeland_study(cfg: CopelandConfig, *, backend=None, progress=None) -> dict:
    """Run the study; returns a dict of arrays (see ``write_copeland``)."""
    from ..infra.parallel import get_backend

    cfg.validate()
    games = copeland_games(cfg)
    grid = cfg.grid()
    A, G, R = len(cfg.algorithms), cfg.games, cfg.runs
    regret = np.zeros((A, G, R, grid.size))
    hit = np.zeros((A, G, R), dtype=bool)
    secs = np.zeros((A, G))
    tasks = []
    for g, (K, P) in enumerate(games):
        for a, name in enumerate(cfg.algorithms):
            tasks.append({"P": P, "horizon": cfg.horizon, "grid": grid, "seed": cfg.seed, "game": g, "runs": R,
                          "algorithm": name, "_where": (a, g)})
    # longest first (big K) for balance
    order = sorted(range(len(tasks)), key=lambda t: -games[tasks[t]["game"]][0])
    tasks = [tasks[t] for t in order]
    own = backend is None
    backend = backend or get_backend("serial")
    t0 = time.perf_counter()
    try:
        for n_done, (idx, res) in enumerate(backend.map_unordered(_copeland_task, tasks), 1):
            a, g = tasks[idx]["_where"]
            regret[a, g] = res["regret"]
            hit[a, g] = res["hit"]
            secs[a, g] = res["seconds"]
            if progress:
                progress(n_done, len(tasks))
    finally:
        if own:
            backend.close()
    return {"config": cfg, "K": np.array([K for K, _ in games]), "P": [P for _, P in games], "grid": grid,
            "regret": regret, "hit": hit, "seconds": secs, "wall": time.perf_counter() - t0}


def write_copeland(res: dict, path) -> None:
    """A self-describing h5: ``K`` (G), ``grid`` (C), ``regret`` (A x G x R x C cumulative Copeland
    regret), ``hit`` (A x G x R: winner estimate at T is the Copeland winner), ``seconds`` (A x G),
    ``P/g{i}`` the matrices; attributes format, version and the config as JSON."""
    from ..infra.storage import atomic_h5, stamp

    cfg = res["config"]
    with atomic_h5(path) as f:
        stamp(f, COPELAND_FORMAT, FORMAT_VERSION, **{**asdict(cfg), "algorithms": list(cfg.algorithms)})
        f["K"] = res["K"]
        f["grid"] = res["grid"]
        f["regret"] = res["regret"]
        f["hit"] = res["hit"]
        f["seconds"] = res["seconds"]
        f.attrs["wall_seconds"] = res["wall"]
        for g, P in enumerate(res["P"]):
            f[f"P/g{g}"] = P


def read_copeland(path) -> dict:
    from ..infra.storage import open_checked

    f, config = open_checked(path, COPELAND_FORMAT, FORMAT_VERSION)
    with f:
        cfg = CopelandConfig(**{**config, "algorithms": tuple(config["algorithms"])})
        return {"config": cfg, "K": f["K"][()], "grid": f["grid"][()], "regret": f["regret"][()],
                "hit": f["hit"][()], "seconds": f["seconds"][()], "wall": float(f.attrs["wall_seconds"]),
                "P": [f[f"P/g{g}"][()] for g in range(cfg.games)]}


LABELS = {"sup-klucb": "Sup-KLUCB", "dts": "D-TS", "rucb": "RUCB", "savage": "SAVAGE"}
STYLES = {"sup-klucb": "-", "dts": ":", "rucb": "--", "savage": "-."}


def plot_copeland(res: dict, prefix) -> list[str]:
    """Fig (a): mean cumulative regret over all games and runs with a 50% confidence band of the mean
    (+-0.674 SE) and the interquartile range of the runs; Fig (b): mean regret at T per game (dots)
    against K, the line through the mean over the games of each K."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..selectors.studies import atomic_savefig

    cfg = res["config"]
    grid = res["grid"]
    out = []
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for a, name in enumerate(cfg.algorithms):
        x = res["regret"][a].reshape(-1, grid.size)
        m = x.mean(axis=0)
        se = x.std(axis=0, ddof=1) / math.sqrt(x.shape[0]) if x.shape[0] > 1 else 0 * m
        line, = ax.plot(grid, m, STYLES.get(name, "-"), label=LABELS.get(name, name), lw=1.8)
        ax.fill_between(grid, m - 0.674 * se, m + 0.674 * se, color=line.get_color(), alpha=0.35, lw=0)
        q1, q3 = np.percentile(x, [25, 75], axis=0)
        ax.fill_between(grid, q1, q3, color=line.get_color(), alpha=0.1, lw=0)
    ax.set_xlabel("time step")
    ax.set_ylabel("cumulative Copeland regret")
    ax.set_title(f"{cfg.games} games (K in {cfg.k_min}..{cfg.k_max}) x {cfg.runs} runs")
    ax.legend()
    fig.tight_layout()
    p = f"{prefix}-a.png"
    atomic_savefig(fig, p)
    plt.close(fig)
    out.append(p)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    K = res["K"]
    order = np.argsort(K, kind="stable")
    ks = np.unique(K)
    for a, name in enumerate(cfg.algorithms):
        per_game = res["regret"][a, :, :, -1].mean(axis=1)
        line, = ax.plot(ks, [per_game[K == k].mean() for k in ks], STYLES.get(name, "-"), label=LABELS.get(name, name))
        ax.plot(K[order], per_game[order], "o", ms=3, color=line.get_color(), alpha=0.6)
    ax.set_xlabel("number of arms K")
    ax.set_ylabel(f"mean cumulative regret at T = {cfg.horizon:,}")
    ax.set_yscale("log")
    ax.legend()
    fig.tight_layout()
    p = f"{prefix}-b.png"
    atomic_savefig(fig, p)
    plt.close(fig)
    out.append(p)
    return out


def summarize_copeland(res: dict) -> str:
    """Markdown: the set-up, regret at T per algorithm (overall and by K band), winner hits, how often
    Sup-KLUCB is ahead of D-TS per game, and timing."""
    cfg = res["config"]
    algs = list(cfg.algorithms)
    K = res["K"]
    final = res["regret"][..., -1]                 # A x G x R
    lines = [f"Games: {cfg.games} random preference matrices (K uniform in {cfg.k_min}..{cfg.k_max}, "
             f"P_ij ~ U(0,1), unique Copeland winner{', no Condorcet winner' if cfg.no_condorcet else ''}), "
             f"{cfg.runs} runs each, T = {cfg.horizon:,}, seed {cfg.seed}. Ks: {sorted(K.tolist())}.", ""]
    bands = [(cfg.k_min, 8), (9, 16), (17, 26), (27, cfg.k_max)]
    bands = [(lo, hi) for lo, hi in bands if lo <= hi and np.any((K >= lo) & (K <= hi))]
    head = "| algorithm | mean regret at T (± SE over games) | " + " | ".join(f"K {lo}-{hi}" for lo, hi in bands) \
        + " | winner found at T |"
    lines += [head, "|" + "---|" * (3 + len(bands))]
    for a, name in enumerate(algs):
        per_game = final[a].mean(axis=1)
        se = per_game.std(ddof=1) / math.sqrt(per_game.size) if per_game.size > 1 else 0.0
        cells = []
        for lo, hi in bands:
            m = (K >= lo) & (K <= hi)
            cells.append(f"{per_game[m].mean():,.0f} ({m.sum()})")
        lines.append(f"| {LABELS.get(name, name)} | {per_game.mean():,.0f} ± {se:,.0f} | " + " | ".join(cells)
                     + f" | {res['hit'][a].mean():.1%} |")
    lines.append("")
    lines.append("(In the K columns: mean regret at T over the games in the band, number of games in brackets.)")
    if "sup-klucb" in algs and "dts" in algs:
        s, d = algs.index("sup-klucb"), algs.index("dts")
        gs = final[s].mean(axis=1)
        gd = final[d].mean(axis=1)
        ahead = gs < gd
        lines += ["", f"Sup-KLUCB has lower mean regret at T than D-TS in {ahead.sum()} of {ahead.size} games "
                  f"(K of those games: {sorted(K[ahead].tolist())}).", ""]
        if K.size > 2 and np.ptp(K) > 0:
            ratio = np.log(np.maximum(gs, 1e-9) / np.maximum(gd, 1e-9))
            slope = np.polyfit(K, ratio, 1)[0]
            lines.append(f"Least-squares slope of log(regret Sup-KLUCB / regret D-TS) against K: {slope:+.3f} per arm "
                         f"(negative would mean Sup-KLUCB's advantage grows with K, the paper's claim).")
    lines += ["", "Seconds inside the tasks per algorithm (wall time of each game's runs, summed over games): "
              + ", ".join(f"{LABELS.get(n, n)} {res['seconds'][a].sum():.0f}" for a, n in enumerate(algs))
        + f"; wall time {res['wall']:.0f} s."]
    return "\n".join(lines) + "\n"


# --- SAVAGE identification study ---------------------------------------------------------------------------

@dataclass
class SavageConfig:
    """Sample complexity to identify the winner with confidence ``1 - delta`` (horizon-free radius)."""

    runs: int = 30
    delta: float = 0.05
    max_duels: int = 2_000_000
    seed: int = 2013
    k_hard: int = 10
    k_random: int = 8
    problems: tuple = ("hard-condorcet", "copeland", "borda")

    def validate(self) -> None:
        for name, lo in (("runs", 1), ("max_duels", 1), ("k_hard", 2), ("k_random", 5)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
                raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
        if not 0 < self.delta < 1:
            raise ValueError(f"delta must lie in (0, 1), got {self.delta}")
        for p in self.problems:
            if p not in METHODS:
                raise ValueError(f"unknown problem {p!r}; allowed: {', '.join(METHODS)}")


#: per problem: (method label, kind, winner, test). "arm elimination" is the naive (arm-level) elimination;
#: on Borda and Condorcet problems it coincides with SAVAGE (only the Copeland sign test (a) differs), so it
#: is listed for Copeland only. The wrapped reduction exists only for Borda: an arm against a uniformly
#: random opponent is a Bernoulli variable whose mean is the arm's normalised Borda score, whereas the
#: Copeland score counts the opponents beaten (a sum of signs, not a mean over opponents), so no K-armed
#: variable has it as its mean. SAVAGE Sampling (Algorithm 2, the predicate estimated by random walks with the
#: defaults of ``Savage``: 10 walks of 10 points, tests after every duel) runs on Copeland and Borda winners.
METHODS = {
    "hard-condorcet": [("SAVAGE (Condorcet)", "savage", "condorcet", "savage"),
                       ("SAVAGE (Copeland)", "savage", "copeland", "savage"),
                       ("SAVAGE Sampling (Copeland)", "savage", "copeland", "sampling"),
                       ("arm elimination (Copeland)", "savage", "copeland", "arm"),
                       ("naive UCB (Copeland)", "savage", "copeland", "ucb"),
                       ("uniform", "savage", "copeland", "none")],
    "copeland": [("SAVAGE (Copeland)", "savage", "copeland", "savage"),
                 ("SAVAGE Sampling (Copeland)", "savage", "copeland", "sampling"),
                 ("arm elimination (Copeland)", "savage", "copeland", "arm"),
                 ("naive UCB (Copeland)", "savage", "copeland", "ucb"),
                 ("uniform", "savage", "copeland", "none")],
    "borda": [("SAVAGE (Borda)", "savage", "borda", "savage"),
              ("SAVAGE Sampling (Borda)", "savage", "borda", "sampling"),
              ("naive UCB (Borda)", "savage", "borda", "ucb"),
              ("uniform", "savage", "borda", "none"),
              ("wrapped elimination", "wrapped", "borda", "elimination"),
              ("wrapped UCB", "wrapped", "borda", "ucb")],
}


def savage_problem(name: str, cfg: SavageConfig, rng: np.random.Generator) -> np.ndarray:
    if name == "hard-condorcet":
        return shuffled(hard_condorcet_matrix(cfg.k_hard), rng)
    if name == "copeland":
        return random_copeland_matrix(cfg.k_random, rng, no_condorcet=True)
    while True:
        P = random_copeland_matrix(cfg.k_random, rng)
        b = borda_scores(P)
        if np.sum(b == b.max()) == 1:
            return P


def _savage_task(task: dict) -> dict:
    from .savage import identify, wrapped_identify

    P = np.asarray(task["P"])
    truth = int(np.argmax(borda_scores(P) if task["winner"] == "borda" else copeland_scores(P)))
    # a fresh copy of the run's SeedSequence: spawn() advances the object's child counter, so spawning from
    # the shared object would give each method of a run different feedback streams under the serial backend
    f = task["feed"]
    feed = np.random.SeedSequence(f.entropy, spawn_key=f.spawn_key, pool_size=f.pool_size)
    t0 = time.perf_counter()
    if task["kind"] == "wrapped":
        used, dec = wrapped_identify(P, task["test"], delta=task["delta"], max_duels=task["max_duels"], seed=feed)
    else:
        used, dec = identify(P, task["winner"], task["test"], delta=task["delta"], max_duels=task["max_duels"],
                             seed=feed)
    return {"used": used, "correct": dec == truth, "seconds": time.perf_counter() - t0}


def run_savage_study(cfg: SavageConfig, *, backend=None) -> dict:
    """Every method of ``METHODS`` on ``runs`` problem instances of each kind (one instance per run, the
    same instance and feedback streams for all methods of a run)."""
    from ..infra.parallel import get_backend

    cfg.validate()
    tasks = []
    for pi, prob in enumerate(cfg.problems):
        for r, ss in enumerate(np.random.SeedSequence([cfg.seed, pi]).spawn(cfg.runs)):
            inst, feed = ss.spawn(2)
            P = savage_problem(prob, cfg, np.random.default_rng(inst))
            for m, (label, kind, winner, test) in enumerate(METHODS[prob]):
                tasks.append({"P": P, "kind": kind, "winner": winner, "test": test, "delta": cfg.delta,
                              "max_duels": cfg.max_duels, "feed": feed, "_where": (prob, m, r)})
    res = {p: {"used": np.zeros((len(METHODS[p]), cfg.runs), dtype=np.int64),
               "correct": np.zeros((len(METHODS[p]), cfg.runs), dtype=bool),
               "seconds": np.zeros((len(METHODS[p]), cfg.runs))} for p in cfg.problems}
    own = backend is None
    backend = backend or get_backend("serial")
    t0 = time.perf_counter()
    try:
        for idx, out in backend.map_unordered(_savage_task, tasks):
            prob, m, r = tasks[idx]["_where"]
            for key in ("used", "correct", "seconds"):
                res[prob][key][m, r] = out[key]
    finally:
        if own:
            backend.close()
    return {"config": cfg, "results": res, "wall": time.perf_counter() - t0}


def write_savage(res: dict, path) -> None:
    from ..infra.storage import atomic_h5, stamp

    cfg = res["config"]
    with atomic_h5(path) as f:
        stamp(f, SAVAGE_FORMAT, FORMAT_VERSION, **{**asdict(cfg), "problems": list(cfg.problems)},
              methods=json.dumps({p: [m[0] for m in METHODS[p]] for p in cfg.problems}))
        f.attrs["wall_seconds"] = res["wall"]
        for p, d in res["results"].items():
            for key, arr in d.items():
                f[f"{p}/{key}"] = arr


def summarize_savage(res: dict) -> str:
    cfg = res["config"]
    names = {"hard-condorcet": f"hard Condorcet matrix (Urvoy et al. 5.2.1), K = {cfg.k_hard}, arms shuffled",
             "copeland": f"random Copeland matrices without Condorcet winner, K = {cfg.k_random}",
             "borda": f"random matrices with a unique Borda winner, K = {cfg.k_random}"}
    lines = [f"delta = {cfg.delta}, horizon-free radius c(n) = sqrt(log(pi^2 N n^2 / (3 delta)) / (2n)), "
             f"{cfg.runs} instances per problem (one run each, common feedback streams across methods), "
             f"cap {cfg.max_duels:,} duels, seed {cfg.seed}.", ""]
    for p in cfg.problems:
        d = res["results"][p]
        lines += [f"### {names[p]}", "", "| method | mean duels to stop | median | stopped by the cap | "
                  "errors (of stopped) |", "|---|---|---|---|---|"]
        for m, (label, *_rest) in enumerate(METHODS[p]):
            u = d["used"][m]
            stopped = u < cfg.max_duels
            err = int((~d["correct"][m] & stopped).sum())
            se = u.std(ddof=1) / math.sqrt(u.size) if u.size > 1 else 0
            lines.append(f"| {label} | {u.mean():,.0f} ± {se:,.0f} | {np.median(u):,.0f} | {(~stopped).sum()} of "
                         f"{u.size} | {err} of {stopped.sum()} |")
        lines.append("")
    lines.append(f"Wall time {res['wall']:.0f} s.")
    return "\n".join(lines) + "\n"


# --- speed ----------------------------------------------------------------------------------------------------

def bench_rounds(name: str, K: int, horizon: int, *, seed: int = 1, repeat: int = 3) -> float:
    """Rounds per second of one whole compiled run of bandit ``name`` on a random ``K``-arm Copeland matrix
    (best of ``repeat``; compilation excluded by a warm-up run)."""
    P = random_copeland_matrix(K, np.random.default_rng(seed))
    run_on_matrix(name, P, min(horizon, 1000), seed)
    best = np.inf
    for r in range(repeat):
        t0 = time.perf_counter()
        run_on_matrix(name, P, horizon, seed + r)
        best = min(best, time.perf_counter() - t0)
    return horizon / best
