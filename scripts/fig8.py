"""Core paper Fig 8: top-4-of-10 selection among the shipped poker populations, replayed and live.

Runs (or, with ``--replot``, reloads) two studies with ``pokerduel.studies.poker`` and writes
``docs/results/fig8-replay.png``, ``fig8-live.png``, their wall-clock views and ``fig8.md`` (tables, the
comparison with the paper, the hybrid's II and modes, live against replay, where adaptive selection pays
off in seconds). The full results go to ``runs/fig8-*.h5`` (checkpointed: an interrupted run resumes).

    python scripts/fig8.py                          # replay: 500 replications, budgets to 10,000
    python scripts/fig8.py --live-reps 100          # live: 100 replications, budgets to 2,000
    python scripts/fig8.py --replot
    python scripts/fig8.py --var-prior 2 --live-reps 0   # POCBAm, ML-POCBAm, hybrid with var_prior = 2:
                                                         # runs/fig8-replay-vp2.h5, docs/results/fig8-vp2-*
    python scripts/fig8.py --ground-truth data/ground_truth_evolved.h5 --name evolved --live-reps 0
                                                         # the evolved populations: docs/results/fig8-evolved-*
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from pokerduel.infra.parallel import get_backend
from pokerduel.studies.poker import (
    HYBRID_THRESHOLD,
    PokerStudyConfig,
    PokerStudyResult,
    default_budgets,
    markdown_table,
    run_poker_study,
)

TRUTH = "data/ground_truth_10x10_seed1.h5"
#: the methods that take the variance prior (``var_prior``, docs/selectors.md)
VAR_PRIOR_METHODS = ("pocbam", "ml-pocbam", "hybrid")


def study_options(var_prior: float, threshold: float = HYBRID_THRESHOLD) -> dict:
    """Fig 8's selector options: the hybrid's threshold, and ``var_prior`` for the methods that take it."""
    opts = {"hybrid": {"threshold": threshold}}
    if var_prior:
        for m in VAR_PRIOR_METHODS:
            opts.setdefault(m, {})["var_prior"] = var_prior
    return opts


def run(cfg: PokerStudyConfig, path: str, workers: int, replot: bool, label: str) -> PokerStudyResult:
    if replot:
        return PokerStudyResult.load(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)

    def progress(done, total):
        print(f"\r  {label}: {done}/{total} blocks", end="", file=sys.stderr, flush=True)

    with get_backend("multiprocess", workers=workers) as be:
        res = run_poker_study(cfg, path, be, progress=progress)
    print(file=sys.stderr)
    return res


def plot_title(res: PokerStudyResult, var_prior: float) -> str | None:
    """The Fig 8 plot's title with the variance prior named (``None``: the default title)."""
    if not var_prior:
        return None
    cfg = res.config
    return (f"top {cfg.k} of {res.K} poker players, {cfg.oracle} oracle, {cfg.replications} replications, seed "
            f"{cfg.seed}, var_prior {var_prior:g} (POCBAm, ML-POCBAm, hybrid), 95% Wilson intervals")


def report(replay: PokerStudyResult, live: PokerStudyResult | None, out_dir: str, tag: str = "") -> str:
    truth = replay.config.ground_truth
    n_pops = len(replay.populations())
    lines = [f"# Fig 8: top 4 of 10 poker players (core paper §7), `{truth}`", ""]
    th = replay.config.options.get("hybrid", {}).get("threshold", HYBRID_THRESHOLD)
    if th != HYBRID_THRESHOLD:
        lines += [f"The hybrid switches at the intransitivity threshold {th:g} (the paper's: "
                  f"{HYBRID_THRESHOLD:g}).", ""]
    vp = replay.config.options.get("pocbam", {}).get("var_prior", 0)
    if vp:
        lines += [f"POCBAm, ML-POCBAm and the hybrid with the variance prior `var_prior = {vp:g}`.", ""]
    for res, name in ((replay, "replay"), (live, "live")):
        if res is None:
            continue
        cfg = res.config
        vp_opt = (f" --var-prior {vp:g}" if vp else "") + (f" --option hybrid.threshold={th:g}"
                                                            if th != HYBRID_THRESHOLD else "")
        lines += [f"## {name} oracle: {cfg.replications} replications per population, seed {cfg.seed}", "",
                  f"`pokerduel study poker --ground-truth {truth} --oracle {name} --reps {cfg.replications} "
                  f"--seed {cfg.seed} --budgets {','.join(map(str, cfg.budgets))}{vp_opt}` ({res.seconds:.0f} s, "
                  f"{res.backend}).", "", f"![Fig 8, {name}](fig8{tag}-{name}.png)", "",
                  f"Success rate averaged over the {n_pops} populations:", "",
                  "| method | " + " | ".join(str(b) for b in res.budgets[(res.populations()[0], 'uniform')]) + " |",
                  "|---|" + "---|" * len(res.budgets[(res.populations()[0], 'uniform')])]
        for m in cfg.methods:
            b, rate = res.mean_rate(m)
            full = res.budgets[(res.populations()[0], "uniform")]
            cells = [f"{rate[np.flatnonzero(b == x)[0]]:.3f}" if x in b else "–" for x in full]
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
        shown = [b for b in cfg.budgets if b in (cfg.budgets[0], cfg.budgets[len(cfg.budgets) // 2], cfg.budgets[-1])]
        lines += ["", "<details><summary>Per population (95% Wilson intervals)</summary>", "",
                  markdown_table(res, shown), "", "</details>", ""]
        comp = res.comparison()
        worse = [p for p, r in comp.items() if r.get("hybrid_significantly_worse_at")]
        better = [p for p, r in comp.items() if r.get("hybrid_significantly_better_at")]
        st_worst = [p for p, r in comp.items() if r.get("select_top_worst")]
        lines += [f"- Hybrid against POCBAm (paired per replication, 95%): significantly worse at some budget in "
                  f"populations {worse or 'none'}, significantly better in {better or 'none'}.",
                  f"- SELECT/TOP has the lowest mean success (at its budgets) in populations {st_worst or 'none'} "
                  f"of {list(comp)}."]
        ii = np.nanmean([np.nanmean(res.arrays[(p, 'hybrid', 'ii')]) for p in res.populations()])
        ml = [float(np.nanmean(res.arrays[(p, 'hybrid', 'ml_fraction')])) for p in res.populations()]
        lines += [f"- Hybrid: mean intransitivity index of its answers {ii:.3f}; share of its decisions made in "
                  f"ML-POCBAm mode per population: {', '.join(f'{x:.2f}' for x in ml)}.", ""]
        lines += ["Wall-clock (selector time measured, sample cost "
                  f"{res.deal_cost * 1e6:,.0f} µs per deal): break-even cost per sample against uniform", "",
                  "| method | level | budget | uniform's budget | break-even µs/sample | reading |",
                  "|---|---|---|---|---|---|"]
        for m in cfg.methods:
            if m == "uniform":
                continue
            for row in res.break_even(m):
                c = row["break_even_cost"]
                lines.append(f"| {m} | {row['level']} | {row['budget']} | {row['uniform_budget']} | "
                             f"{'–' if c is None else f'{c * 1e6:,.1f}'} | {row['reading']} |")
        lines += ["", f"![wall-clock, {name}](fig8{tag}-{name}-wallclock.png)", ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=500, help="replay replications per population")
    ap.add_argument("--live-reps", type=int, default=100, help="live replications per population (0: skip)")
    ap.add_argument("--live-budget", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out-dir", default="docs/results")
    ap.add_argument("--runs-dir", default="runs")
    ap.add_argument("--replot", action="store_true")
    ap.add_argument("--ground-truth", default=TRUTH, help="the populations' ground-truth file")
    ap.add_argument("--name", default="", help="a name for these populations in the file names (e.g. evolved)")
    ap.add_argument("--hybrid-threshold", type=float, default=HYBRID_THRESHOLD,
                    help="the hybrid's intransitivity threshold (files get the suffix -thT when not the paper's)")
    ap.add_argument("--var-prior", type=float, default=0.0, metavar="NU0",
                    help="var_prior of POCBAm, ML-POCBAm and the hybrid (the pooled variance's weight in each pair "
                         "variance, in pseudo-samples; 0: the paper's methods). Files get the suffix -vpNU0.")
    args = ap.parse_args()
    if not args.var_prior >= 0:
        ap.error(f"--var-prior must be >= 0, got {args.var_prior}")
    t0 = time.time()
    os.makedirs(args.out_dir, exist_ok=True)
    tag = (f"-{args.name}" if args.name else "") + (f"-vp{args.var_prior:g}" if args.var_prior else "") + \
        (f"-th{args.hybrid_threshold:g}" if args.hybrid_threshold != HYBRID_THRESHOLD else "")
    opts = study_options(args.var_prior, args.hybrid_threshold)
    cfg = PokerStudyConfig(args.ground_truth, replications=args.reps, seed=args.seed, oracle="replay", options=opts)
    replay = run(cfg, os.path.join(args.runs_dir, f"fig8-replay{tag}.h5"), args.workers, args.replot, "replay")
    replay.plot(os.path.join(args.out_dir, f"fig8{tag}-replay.png"), title=plot_title(replay, args.var_prior))
    replay.plot_wallclock(os.path.join(args.out_dir, f"fig8{tag}-replay-wallclock.png"))
    live = None
    live_path = os.path.join(args.runs_dir, f"fig8-live{tag}.h5")
    if args.live_reps and (not args.replot or os.path.exists(live_path)):
        lcfg = PokerStudyConfig(args.ground_truth, replications=args.live_reps, seed=args.seed, oracle="live",
                                budgets=default_budgets(10, args.live_budget, 8), block=5, options=opts)
        live = run(lcfg, live_path, args.workers, args.replot, "live")
        live.plot(os.path.join(args.out_dir, f"fig8{tag}-live.png"), title=plot_title(live, args.var_prior))
        live.plot_wallclock(os.path.join(args.out_dir, f"fig8{tag}-live-wallclock.png"))
    text = report(replay, live, args.out_dir, tag)
    with open(os.path.join(args.out_dir, f"fig8{tag}-generated.md"), "w") as fh:
        fh.write(text + "\n")
    print(text)
    print(f"done in {time.time() - t0:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
