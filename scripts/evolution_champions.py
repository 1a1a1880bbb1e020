"""Evolve several seeds of one configuration and test each seed's champion on fresh decks.

Each seed's run goes to ``RUNS/seed<S>.h5`` (resumed if there, so an interrupted study continues). The
champion of every run (``EvolutionRun.champion``) then plays ``--test-deals`` duplicate deals (fresh decks: a
seed no run trained on) against the four ASHE 1.0 training bots and the held-out bots (``docs/players.md``),
and optionally against other champions (``--versus RUN.h5:champion,...``). Reported in mBB/hand with 95% intervals, with
ASHE 1.0's adaptation statistics: the champion's preflop raise rate against each bot and its fold rate
(share of hands it folds). Results go to ``RUNS/champions.json`` (seeds tested earlier with the same options
stay in it, so seeds can be run one call at a time); ``--report`` writes a markdown table.

    python scripts/evolution_champions.py --preset ashe1 --seeds 1-5 --runs runs/ashe1
    python scripts/evolution_champions.py --preset ashe1 --set generations=60 --set population=30 \\
        --set deals=100 --seeds 1-3 --runs runs/probe
    # 21 seeds on a Dask cluster (the paper's count; every run is independent):
    python scripts/evolution_champions.py --preset ashe1 --seeds 1-21 --runs runs/ashe1 \\
        --backend dask --scheduler tcp://HOST:8786
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import t as t_dist

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from pokerduel.engine.rules import FOLD, RAISE  # noqa: E402
from pokerduel.evolution.evolve import PRESETS, config_from_options, load_run, resolve_opponent, run_evolution  # noqa: E402
from pokerduel.infra.parallel import get_backend  # noqa: E402
from pokerduel.play.matches import play_duplicate  # noqa: E402
from pokerduel.players.base import HELDOUT_BOTS, TRAINING_BOTS  # noqa: E402

#: the seed of the test decks: no run trains on it (runs draw their decks from SeedSequence children)
TEST_SEED = 909_090_909


def parse_seeds(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def parse_sets(items) -> dict:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--set {item!r}: expected KEY=VALUE")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
        if isinstance(out[key], list):
            out[key] = tuple(out[key])
    return out


def style(champion, opponent, deals: int, seed: int) -> dict:
    """The champion's result and play against ``opponent``: mBB/hand ± 95% CI, preflop raise and fold rates."""
    r = play_duplicate(champion, opponent, deals, seed, records=True)
    mean, ci = r.mbb_per_hand()
    hands = raised = folded = 0
    for h in r.records:
        pos = h.half                      # the champion (player A) sits at position ``half``
        mine = [a for a in h.actions if a[1] == pos]
        pre = [a for a in mine if a[0] == 0]
        hands += 1
        raised += bool(pre) and pre[0][2] == RAISE
        folded += any(a[2] == FOLD for a in mine)
    return {"mean": mean, "ci": ci, "preflop_raise": raised / hands, "fold": folded / hands}


def run_summary(path: str) -> dict:
    """Progress and collapse of one run: the generation of its champion (``EvolutionRun.champion``; with
    ``champion_average`` W > 0 the last of the W generations whose champions it averages) and the raising range
    it plays at, panel
    scores (training bots, held-out) at the first and last generation; the share of generations whose
    samples were all exactly 0 (selector) or whose fixed-opponent results were all 0 (ane); the population's
    behavioural spread: the standard deviation over players of the fold, call and raise shares, averaged
    over the three and over the last half of the run."""
    run = load_run(path)
    rec = run.records
    if run.config.fitness == "ane":
        zero = np.all(np.nan_to_num(rec["fixed_mbb"]) == 0, axis=(1, 2))
    else:
        zero = np.all(rec["trace_x"] == 0, axis=1)
    half = rec["actions"][run.completed // 2:]
    spread = float(np.nanmean(np.nanstd(half, axis=1))) if half.size else float("nan")
    train, held = run.panel_score("training"), run.panel_score("heldout")
    return {"generations": run.completed, "champion_generation": run.champion_generation,
            "champion_average": run.champion_average,
            "champion_raising_range": run.champion_settings.raising_range,
            "zero_share": float(zero.mean()), "action_spread": spread,
            "training_first": float(train[0]), "training_last": float(train[-1]),
            "heldout_first": float(held[0]), "heldout_last": float(held[-1])}


def test_champion(path: str, versus: list[str], deals: int) -> dict:
    run = load_run(path)
    champ = run.champion_player(name=f"{Path(path).stem}:champion")
    out = {}
    for opp in (*TRAINING_BOTS, *HELDOUT_BOTS, *versus):
        if opp.startswith(str(path)):
            continue
        out[opp] = style(champ, resolve_opponent(opp), deals, TEST_SEED)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", choices=sorted(PRESETS), default=None)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="an EvolveConfig field (JSON value), e.g. generations=60 or opponents=[\"calling-machine\"]")
    ap.add_argument("--seeds", default="1-5")
    ap.add_argument("--runs", required=True, help="folder of the run files")
    ap.add_argument("--test-deals", type=int, default=500)
    ap.add_argument("--versus", default="", help="comma-separated extra test opponents (e.g. other runs' champions)")
    ap.add_argument("--backend", default="multiprocess")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--scheduler", default=None)
    ap.add_argument("--report", default=None, help="write a markdown table here")
    args = ap.parse_args(argv)
    options = {**PRESETS.get(args.preset, {}), **parse_sets(args.set)}
    runs = Path(args.runs)
    runs.mkdir(parents=True, exist_ok=True)
    versus = [v for v in args.versus.split(",") if v]
    results, summaries = {}, {}
    with get_backend(args.backend, workers=args.workers, scheduler=args.scheduler) as backend:
        for seed in parse_seeds(args.seeds):
            cfg = config_from_options(**{**options, "seed": seed})
            path = runs / f"seed{seed}.h5"
            t0 = time.perf_counter()
            rep = run_evolution(cfg, path, backend, resume=True)
            print(f"seed {seed}: {rep.run.completed} generations ({rep.generations_run} here, "
                  f"{time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
            results[seed] = test_champion(str(path), versus, args.test_deals)
            summaries[seed] = run_summary(str(path))
    record = {"options": {k: list(v) if isinstance(v, tuple) else v for k, v in options.items()},
              "test_seed": TEST_SEED, "test_deals": args.test_deals, "versus": versus}
    store = runs / "champions.json"
    if store.exists():  # seeds tested by earlier calls with the same options join the table
        earlier = json.loads(store.read_text())
        if {k: earlier.get(k) for k in record} == json.loads(json.dumps(record)):
            results = {**{int(s): r for s, r in earlier["results"].items()}, **results}
            summaries = {**{int(s): r for s, r in earlier["runs"].items()}, **summaries}
    results, summaries = dict(sorted(results.items())), dict(sorted(summaries.items()))
    store.write_text(json.dumps({**record, "results": results, "runs": summaries}, indent=1))
    opps = list(next(iter(results.values())))
    lines = ["| seed | " + " | ".join(opps) + " |", "|---|" + "---|" * len(opps)]
    for seed, res in results.items():
        lines.append(f"| {seed} | " + " | ".join(f"{res[o]['mean']:+,.0f} ± {res[o]['ci']:,.0f}" for o in opps) + " |")
    means = np.array([[res[o]["mean"] for o in opps] for res in results.values()])
    if len(means) > 1:
        half = t_dist.ppf(0.975, len(means) - 1) * means.std(axis=0, ddof=1) / np.sqrt(len(means))
        lines.append("| mean ± 95% (t, over seeds) | " + " | ".join(
            f"{m:+,.0f} ± {h:,.0f}" for m, h in zip(means.mean(axis=0), half)) + " |")
    lines += ["", "| seed | preflop raise rate vs scared-limper | fold rate vs candid-statistician | fold rate vs "
                  "hothead-maniac | preflop raise rate vs calling-machine |", "|---|---|---|---|---|"]
    for seed, res in results.items():
        lines.append(f"| {seed} | {100 * res['scared-limper']['preflop_raise']:.1f} % | "
                     f"{100 * res['candid-statistician']['fold']:.1f} % | "
                     f"{100 * res['hothead-maniac']['fold']:.1f} % | "
                     f"{100 * res['calling-machine']['preflop_raise']:.1f} % |")
    lines += ["", "| seed | panel: training bots, generation 1 → last | held-out, generation 1 → last | "
                  "generations all 0 | behavioural spread |", "|---|---|---|---|---|"]
    for seed, r in summaries.items():
        lines.append(f"| {seed} | {r['training_first']:+,.0f} → {r['training_last']:+,.0f} | {r['heldout_first']:+,.0f}"
                     f" → {r['heldout_last']:+,.0f} | {100 * r['zero_share']:.0f} % | {r['action_spread']:.3f} |")
    table = "\n".join(lines)
    print(table)
    if args.report:
        Path(args.report).write_text(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
