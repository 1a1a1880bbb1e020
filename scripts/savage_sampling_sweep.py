"""SAVAGE Sampling (Urvoy et al. 2013, Algorithm 2): duels to stop and decision errors against the number of
random-walk probes per test (m starts of M points), on the SAVAGE study's problem instances (same seeds as
``scripts/savage_study.py``), next to exact SAVAGE.

    nice -n 10 python scripts/savage_sampling_sweep.py [--runs-borda 100] [--runs-copeland 40] [--workers 2]
"""

from __future__ import annotations

import math

import click
import numpy as np

from pokerduel.bandits import borda_scores, copeland_scores, identify
from pokerduel.bandits.studies import SavageConfig, savage_problem
from pokerduel.infra.parallel import get_backend

SETTINGS = [("SAVAGE (exact predicate)", "savage", {}),
            ("Sampling m = 3, M = 3", "sampling", {"starts": 3, "steps": 3}),
            ("Sampling m = 10, M = 10 (default)", "sampling", {"starts": 10, "steps": 10}),
            ("Sampling m = 100, M = 1", "sampling", {"starts": 100, "steps": 1}),
            ("Sampling m = 1, M = 100", "sampling", {"starts": 1, "steps": 100})]


def task(t):
    prob, P, feed, test, kw, cap = t
    winner = "borda" if prob == "borda" else "copeland"
    truth = int(np.argmax(borda_scores(P) if winner == "borda" else copeland_scores(P)))
    used, dec = identify(P, winner, test, delta=0.05, max_duels=cap, seed=feed, **kw)
    return used, dec == truth


@click.command()
@click.option("--runs-borda", type=click.IntRange(min=2), default=100, show_default=True)
@click.option("--runs-copeland", type=click.IntRange(min=2), default=40, show_default=True)
@click.option("--max-duels", type=click.IntRange(min=1), default=1_000_000, show_default=True)
@click.option("--seed", type=click.IntRange(min=0), default=2013, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True)
def main(runs_borda, runs_copeland, max_duels, seed, workers):
    cfg = SavageConfig(seed=seed)
    tasks, where = [], []
    for prob, runs in (("copeland", runs_copeland), ("borda", runs_borda)):
        pi = cfg.problems.index(prob)  # the study's seeding: instance r of problem pi is the same matrix
        for r, ss in enumerate(np.random.SeedSequence([seed, pi]).spawn(runs)):
            inst, feed = ss.spawn(2)
            P = savage_problem(prob, cfg, np.random.default_rng(inst))
            for s, (_label, test, kw) in enumerate(SETTINGS):
                f = np.random.SeedSequence(feed.entropy, spawn_key=feed.spawn_key, pool_size=feed.pool_size)
                tasks.append((prob, P, f, test, kw, max_duels))
                where.append((prob, s, r))
    res = {(p, s): {} for p in ("copeland", "borda") for s in range(len(SETTINGS))}
    with get_backend("multiprocess", workers=workers) if workers > 1 else get_backend("serial") as backend:
        for idx, (used, ok) in backend.map_unordered(task, tasks):
            p, s, r = where[idx]
            res[(p, s)][r] = (used, ok)
    lines = [f"`nice -n 10 python scripts/savage_sampling_sweep.py --runs-borda {runs_borda} --runs-copeland "
             f"{runs_copeland} --max-duels {max_duels} --seed {seed}` (delta = 0.05, horizon-free radius, "
             "tests after every duel)", ""]
    for prob, runs in (("copeland", runs_copeland), ("borda", runs_borda)):
        lines += [f"### {prob}, K = {cfg.k_random}, {runs} instances", "",
                  "| method | mean duels to stop | median | stopped by the cap | errors (of stopped) |",
                  "|---|---|---|---|---|"]
        for s, (label, _t, _kw) in enumerate(SETTINGS):
            u = np.array([res[(prob, s)][r][0] for r in range(runs)])
            ok = np.array([res[(prob, s)][r][1] for r in range(runs)])
            stopped = u < max_duels
            lines.append(f"| {label} | {u.mean():,.0f} ± {u.std(ddof=1) / math.sqrt(runs):,.0f} | {np.median(u):,.0f} "
                         f"| {(~stopped).sum()} of {runs} | {int((~ok & stopped).sum())} of {stopped.sum()} |")
        lines.append("")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
