"""Selector vs evolution: do better top-k selectors evolve better players at an equal number of hands?

Compares folders of ``scripts/evolution_champions.py`` runs that differ only in the selector (same seeds,
same budget of duplicate deals per generation), seed by seed:

- each last champion against the training and the held-out bots on the test decks (``champions.json``):
  mean over seeds with a 95% interval, and the paired difference between two selectors (same seed, so
  same generation 0 and same generation-1 decks);
- head to head: the two selectors' champions of the same seed, ``--deals`` duplicate deals on decks no
  run trained on, mean over seeds with a 95% interval and the seeds won outside the match's interval;
- progress: the champion's panel score (training and held-out bots, the panel's fixed decks) per
  generation, mean over seeds with a 95% band, and the first generation at which that mean reaches
  each of ``--levels-training`` / ``--levels-heldout``.

    python scripts/selector_evolution.py uniform=runs/sel_uniform pocbam=runs/sel_pocbam \\
        hybrid=runs/sel_hybrid --report docs/results/selector-evolution.md
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from pathlib import Path

import numpy as np

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from pokerduel.evolution.evolve import load_run  # noqa: E402
from pokerduel.infra.parallel import get_backend  # noqa: E402
from pokerduel.play.matches import play_duplicate  # noqa: E402
from pokerduel.players.base import HELDOUT_BOTS, TRAINING_BOTS  # noqa: E402
from pokerduel.players.genomes import ashe_player  # noqa: E402

#: the head-to-head decks (as ``champions_round_robin.py``: no run trains on them)
SEED = 909_090_910


def _ci(x) -> tuple[float, float]:
    x = np.asarray(x, dtype=np.float64)
    half = 1.96 * x.std(ddof=1) / np.sqrt(x.size) if x.size > 1 else float("nan")
    return float(x.mean()), float(half)


def _fmt(m: float, h: float) -> str:
    return f"{m:+,.0f} ± {h:,.0f}"


def _match(task):
    a, b, deals = task
    return play_duplicate(a, b, deals, SEED).mbb_per_hand()


def load_group(folder: Path) -> dict:
    """Per seed: the champion's test results (``champions.json``), its run's panel curves and champion."""
    store = json.loads((folder / "champions.json").read_text())
    out = {}
    for seed, res in store["results"].items():
        run = load_run(folder / f"seed{seed}.h5")
        out[int(seed)] = {
            "training": float(np.mean([res[b]["mean"] for b in TRAINING_BOTS])),
            "heldout": float(np.mean([res[b]["mean"] for b in HELDOUT_BOTS])),
            "bots": {b: res[b]["mean"] for b in (*TRAINING_BOTS, *HELDOUT_BOTS)},
            "curve_training": run.panel_score("training"), "curve_heldout": run.panel_score("heldout"),
            "hands": int(np.sum(run.records["samples_used"])) * 2,
            "champion": ashe_player(run.records["champion"][-1], run.config.settings,
                                    name=f"{folder.name}/seed{seed}"),
        }
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("groups", nargs="+", metavar="NAME=FOLDER")
    ap.add_argument("--deals", type=int, default=500, help="duplicate deals per head-to-head match")
    ap.add_argument("--levels-training", default="10000,15000",
                    help="training-panel scores (mBB/hand) for 'generations to reach'")
    ap.add_argument("--levels-heldout", default="-2000,0", help="held-out-panel scores for 'generations to reach'")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--report", default=None)
    args = ap.parse_args(argv)
    groups = {}
    for spec in args.groups:
        name, sep, folder = spec.partition("=")
        if not sep:
            raise SystemExit(f"expected NAME=FOLDER, got {spec!r}")
        groups[name] = load_group(Path(folder))
    names = list(groups)
    seeds = sorted(set.intersection(*(set(g) for g in groups.values())))
    if not seeds:
        raise SystemExit("the folders share no seed")
    levels = {g: [float(v) for v in text.split(",") if v]
              for g, text in (("training", args.levels_training), ("heldout", args.levels_heldout))}
    lines = [f"Seeds {seeds[0]}–{seeds[-1]} ({len(seeds)}, common to every selector); hands per run: "
             + ", ".join(f"{n} {groups[n][seeds[0]]['hands']:,}" for n in names) + ".", "",
             "**Last champions on the test decks** (mBB/hand, mean over seeds ± 95%):", "",
             "| selector | " + " | ".join((*TRAINING_BOTS, *HELDOUT_BOTS)) + " | training mean | held-out mean |",
             "|---|" + "---|" * (len(TRAINING_BOTS) + len(HELDOUT_BOTS) + 2)]
    for n in names:
        g = groups[n]
        cells = [_fmt(*_ci([g[s]["bots"][b] for s in seeds])) for b in (*TRAINING_BOTS, *HELDOUT_BOTS)]
        cells += [_fmt(*_ci([g[s][k] for s in seeds])) for k in ("training", "heldout")]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    pairs = list(itertools.combinations(names, 2))
    tasks = [(groups[a][s]["champion"], groups[b][s]["champion"], args.deals) for a, b in pairs for s in seeds]
    h2h = np.empty(len(tasks))
    half = np.empty(len(tasks))
    with get_backend("multiprocess", workers=args.workers) as backend:
        for idx, (m, c) in backend.map_unordered(_match, tasks):
            h2h[idx], half[idx] = m, c
    lines += ["", "**Paired by seed** (row minus column selector; head to head: the row's champion against the "
              "column's of the same seed, mean over seeds ± 95%, and seeds won / lost outside the match's "
              "interval):", "",
              "| pair | training mean | held-out mean | head to head | won / lost |", "|---|---|---|---|---|"]
    for p, (a, b) in enumerate(pairs):
        x = h2h[p * len(seeds):(p + 1) * len(seeds)]
        c = half[p * len(seeds):(p + 1) * len(seeds)]
        diff = [_fmt(*_ci([groups[a][s][k] - groups[b][s][k] for s in seeds])) for k in ("training", "heldout")]
        lines.append(f"| {a} − {b} | {diff[0]} | {diff[1]} | {_fmt(*_ci(x))} | "
                     f"{int(np.sum(x - c > 0))} / {int(np.sum(x + c < 0))} |")
    lines += ["", "**Progress**: the champion's panel score (fixed panel decks), mean over seeds ± 95%, and the "
              "first generation at which that mean reaches each level:", ""]
    for group in ("training", "heldout"):
        curves = {n: np.array([groups[n][s][f"curve_{group}"] for s in seeds]) for n in names}
        G = min(c.shape[1] for c in curves.values())
        marks = sorted({1, *range(10, G + 1, 10), G})
        lines += [f"| {group} panel | " + " | ".join(f"gen {m}" for m in marks) + " | "
                  + " | ".join(f"first ≥ {v:+,.0f}" for v in levels[group]) + " |",
                  "|---|" + "---|" * (len(marks) + len(levels[group]))]
        for n in names:
            c = curves[n][:, :G]
            mean = c.mean(axis=0)
            cells = [_fmt(*_ci(c[:, m - 1])) for m in marks]
            for v in levels[group]:
                hit = np.flatnonzero(mean >= v)
                cells.append(str(hit[0] + 1) if hit.size else "never")
            lines.append(f"| {n} | " + " | ".join(cells) + " |")
        lines.append("")
    table = "\n".join(lines)
    print(table)
    if args.report:
        Path(args.report).write_text(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
