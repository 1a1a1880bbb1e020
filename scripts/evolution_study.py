"""Does better top-k selection evolve better players at the same simulation cost?

Evolves ASHE players with several selectors (default uniform, POCBAm and hybrid ML-POCBAm) over several
seeds, every run with the same samples per generation (an equal total hand budget), then compares the
final champions (each run's last selector top choice):

- on a common benchmark panel (the five bots and ``--heldout`` random generation-0 players drawn from the
  study seed, ``--final-deals`` duplicate deals each, one deck set for all);
- head-to-head: a duplicate match of ``--h2h-deals`` deals between every two champions of different
  selectors.

The selectors are the papers' methods exactly (``--lag 0 --refit-every 1``, where ``pokerduel evolve``
defaults to a lag and a refit interval for speed). Runs (one per selector and seed) and the final
matches are tasks on the backend (multiprocess locally,
Dask on a cluster); each run is checkpointed in ``OUT_DIR`` and resumed when the script is rerun.
Writes ``OUT_DIR/study.h5`` (self-describing), and ``--md``/``--png`` (docs/results).

This machine (2 cores, under an hour)::

    nice -n 10 python scripts/evolution_study.py

The paper-scale run on a Dask cluster (21 seeds as in ASHE 1.0, population 50, 250 generations)::

    python scripts/evolution_study.py --population 50 --keep 15 --generations 250 --seeds 1-21 \\
        --panel-deals 250 --final-deals 5000 --h2h-deals 2000 --backend dask --scheduler tcp://HOST:8786 \\
        --out-dir runs/evolution_study_full --md docs/results/evolution_study_full.md \\
        --png docs/results/evolution_study_full.png
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np

from pokerduel import __version__
from pokerduel.evolution.evolve import EvolveConfig, run_evolution
from pokerduel.infra.parallel import get_backend
from pokerduel.infra.storage import atomic_h5, stamp
from pokerduel.play.populations import new_population
from pokerduel.selectors import SELECTORS, MLPOCBAm

LABEL = {"uniform": "uniform", "pocbam": "POCBAm", "ml-pocbam": "ML-POCBAm", "hybrid": "hybrid ML-POCBAm",
         "select-top": "SELECT/TOP", "pbr": "PBR", "ar": "AR"}


def _seeds(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b) + 1) if b else [int(a)])
    return out


def run_task(task: dict) -> dict:
    """One evolution run (resumed if its file exists with the same config); returns its summary."""
    from pokerduel.infra.parallel import SerialBackend

    cfg = EvolveConfig.from_dict(task["config"])
    path = Path(task["path"])
    t0 = time.perf_counter()
    rep = run_evolution(cfg, path, SerialBackend(), resume=True)
    run = rep.run
    t = run.records["timing"]
    return {"selector": cfg.selector, "seed": cfg.seed, "path": str(path), "champion": run.records["champion"][-1],
            "panel_score": run.panel_score(), "ml_fraction": run.records["ml_fraction"],
            "engine_s": float(t[:, 2].sum()), "selector_s": float(t[:, 1].sum()), "wall_s": float(t[:, 0].sum()),
            "ran_s": time.perf_counter() - t0, "generations_run": rep.generations_run}


def match_task(task: dict) -> dict:
    """A duplicate match between a champion and an opponent (bot name or genome)."""
    from pokerduel.play.matches import play_duplicate
    from pokerduel.players.genomes import AsheSettings, ashe_player

    s = AsheSettings.from_dict(task["settings"])
    a = ashe_player(np.asarray(task["a"], np.float32), s)
    b = task["b"] if isinstance(task["b"], str) else ashe_player(np.asarray(task["b"], np.float32), s)
    r = play_duplicate(a, b, task["deals"], task["seed"])
    mean, ci = r.mbb_per_hand()
    return {"key": task["key"], "mean": mean, "ci": ci}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--population", type=int, default=30)
    ap.add_argument("--keep", type=int, default=9)
    ap.add_argument("--generations", type=int, default=100)
    ap.add_argument("--budget", type=int, default=None, help="samples per generation (default: 3 per pair)")
    ap.add_argument("--selectors", default="uniform,pocbam,hybrid")
    ap.add_argument("--lag", type=int, default=0, help="selector lag (default 0: the papers' methods exactly, "
                                                       "unlike pokerduel evolve's default)")
    ap.add_argument("--refit-every", type=int, default=1, help="ML-POCBAm/hybrid decisions per refit (default 1)")
    ap.add_argument("--seeds", default="1-5")
    ap.add_argument("--panel-deals", type=int, default=100, help="per-generation panel deals per opponent")
    ap.add_argument("--final-deals", type=int, default=2000, help="final common-panel deals per opponent")
    ap.add_argument("--h2h-deals", type=int, default=1000, help="deals per head-to-head champion match")
    ap.add_argument("--heldout", type=int, default=10, help="held-out random players in the final panel")
    ap.add_argument("--study-seed", type=int, default=2024)
    ap.add_argument("--backend", default="multiprocess")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--scheduler", default=None)
    ap.add_argument("--out-dir", default="runs/evolution_study")
    ap.add_argument("--md", default="docs/results/evolution_study.md")
    ap.add_argument("--png", default="docs/results/evolution_study.png")
    args = ap.parse_args(argv)

    selectors = args.selectors.split(",")
    seeds = _seeds(args.seeds)
    K = args.population
    budget = args.budget if args.budget is not None else 3 * K * (K - 1) // 2
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    configs = {(s, seed): EvolveConfig(population=K, keep=args.keep, generations=args.generations, selector=s,
                                       budget=budget, seed=seed, panel_deals=args.panel_deals,
                                       lag=args.lag if SELECTORS[s].supports_lag else 0,
                                       refit_every=args.refit_every if issubclass(SELECTORS[s], MLPOCBAm) else 1)
               for s in selectors for seed in seeds}
    tasks = [{"config": c.to_dict(), "path": str(out_dir / f"{s}-seed{seed}.h5")} for (s, seed), c in configs.items()]
    t_start = time.perf_counter()
    runs = {}
    with get_backend(args.backend, workers=args.workers, scheduler=args.scheduler) as backend:
        print(f"{len(tasks)} runs: K={K}, k={args.keep}, {args.generations} generations, budget {budget} samples "
              f"per generation, on {backend.describe()}", flush=True)
        for n, (_, res) in enumerate(backend.map_unordered(run_task, tasks), 1):
            runs[(res["selector"], res["seed"])] = res
            print(f"[{time.perf_counter() - t_start:7.0f} s] {n}/{len(tasks)} {res['selector']} seed {res['seed']}: "
                  f"final panel score {res['panel_score'][-1]:+.0f} mBB/hand ({res['generations_run']} generations "
                  f"run now, {res['ran_s']:.0f} s)", flush=True)
        t_evolve = time.perf_counter() - t_start

        settings = configs[(selectors[0], seeds[0])].settings
        bots = list(configs[(selectors[0], seeds[0])].panel_bots)
        held = new_population(args.heldout, int(np.random.SeedSequence(args.study_seed, spawn_key=(7,))
                                                 .generate_state(1, np.uint64)[0] >> 1), settings).genomes
        opponents = bots + [h for h in held]
        opp_names = bots + [f"heldout:{h}" for h in range(args.heldout)]
        deck_seed = int(np.random.SeedSequence(args.study_seed, spawn_key=(8,)).generate_state(1, np.uint64)[0] >> 1)
        keys = sorted(runs)
        mtasks = []
        for r, key in enumerate(keys):
            for o, opp in enumerate(opponents):
                mtasks.append({"key": ("panel", r, o), "a": runs[key]["champion"], "b": opp, "deals": args.final_deals,
                               "seed": deck_seed, "settings": settings.to_dict()})
        for r1, r2 in itertools.combinations(range(len(keys)), 2):
            if keys[r1][0] != keys[r2][0]:
                mtasks.append({"key": ("h2h", r1, r2), "a": runs[keys[r1]]["champion"], "b": runs[keys[r2]]["champion"],
                               "deals": args.h2h_deals, "seed": deck_seed, "settings": settings.to_dict()})
        print(f"final evaluation: {len(mtasks)} duplicate matches", flush=True)
        panel = np.full((len(keys), len(opponents), 2), np.nan)
        h2h = np.full((len(keys), len(keys)), np.nan)
        h2h_ci = np.full((len(keys), len(keys)), np.nan)
        for _, res in backend.map_unordered(match_task, mtasks):
            kind, a, b = res["key"]
            if kind == "panel":
                panel[a, b] = res["mean"], res["ci"]
            else:
                h2h[a, b], h2h[b, a] = res["mean"], -res["mean"]
                h2h_ci[a, b] = h2h_ci[b, a] = res["ci"]
    t_total = time.perf_counter() - t_start

    # --- summaries ---------------------------------------------------------------------------------
    sel_of = np.array([selectors.index(k[0]) for k in keys])
    final_panel = panel[:, :, 0].mean(axis=1)
    bots_panel = panel[:, :len(bots), 0].mean(axis=1)
    held_panel = panel[:, len(bots):, 0].mean(axis=1)
    S = len(selectors)
    vs = np.full((S, S), np.nan)  # mean head-to-head of selector a's champions against selector b's
    for a in range(S):
        for b in range(S):
            if a != b:
                vs[a, b] = np.nanmean(h2h[np.ix_(sel_of == a, sel_of == b)])
    paired = {}  # same-seed champion pairs: a's champion vs b's champion of the same seed
    for a, b in itertools.combinations(range(S), 2):
        vals = [h2h[keys.index((selectors[a], s)), keys.index((selectors[b], s))] for s in seeds]
        paired[(a, b)] = np.array(vals)

    def mci(x):
        x = np.asarray(x, float)
        return float(x.mean()), (float(1.96 * x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else float("nan"))

    config = {"population": K, "keep": args.keep, "generations": args.generations, "budget": budget,
              "selectors": selectors, "seeds": seeds, "panel_deals": args.panel_deals,
              "final_deals": args.final_deals, "h2h_deals": args.h2h_deals, "heldout": args.heldout,
              "study_seed": args.study_seed}
    study_h5 = out_dir / "study.h5"
    with atomic_h5(study_h5) as f:
        stamp(f, "pokerduel.evolution_study", 1, **config)
        f.attrs["runs"] = json.dumps([list(k) for k in keys])
        f.attrs["opponents"] = json.dumps(opp_names)
        f.attrs["seconds_evolution"] = t_evolve
        f.attrs["seconds_total"] = t_total
        f.create_dataset("panel_mean", data=panel[:, :, 0])
        f.create_dataset("panel_ci", data=panel[:, :, 1])
        f.create_dataset("h2h", data=h2h)
        f.create_dataset("h2h_ci", data=h2h_ci)
        f.create_dataset("curves", data=np.stack([runs[k]["panel_score"] for k in keys]))
        f.create_dataset("champions", data=np.stack([runs[k]["champion"] for k in keys]))

    _plot(args.png, keys, selectors, seeds, runs, final_panel, vs, config)

    lines = ["# Evolution study: does better top-k selection evolve better players?", "",
             f"`python {' '.join(['scripts/evolution_study.py'] + (argv if argv is not None else sys.argv[1:]))}` "
             f"(pokerduel {__version__}); {len(keys)} runs, wall {t_evolve / 60:.1f} min for the evolution and "
             f"{(t_total - t_evolve) / 60:.1f} min for the final matches on the shared 2-core machine "
             f"({backend.describe()}).", "",
             f"Setup: population K = {K}, k = {args.keep} survivors, {args.generations} generations, "
             f"{budget} duplicate-deal samples per generation for every selector "
             f"({2 * budget * args.generations:,} hands per run), TSER reproduction (ASHE 1.0 constants), seeds "
             f"{args.seeds}. Same seed = same generation-0 population and same per-generation decks for every "
             f"selector. Final champions: each run's last-generation selector top choice.", "",
             "## Final champions on a common panel (mBB/hand; mean over seeds ± 95% CI across seeds)", "",
             "| selector | panel score (all opponents) | rule-based + random bots | held-out generation-0 players |",
             "|---|---|---|---|"]
    for a, s in enumerate(selectors):
        m = sel_of == a
        lines.append(f"| {LABEL.get(s, s)} | " + " | ".join(
            "{:+.0f} ± {:.0f}".format(*mci(x[m])) for x in (final_panel, bots_panel, held_panel)) + " |")
    lines += ["", "Per opponent (mean over seeds):", "", "| selector | " + " | ".join(opp_names[:len(bots)])
              + " | held-out (mean) |", "|---|" + "---|" * (len(bots) + 1)]
    for a, s in enumerate(selectors):
        m = sel_of == a
        cells = [f"{panel[m, o, 0].mean():+.0f}" for o in range(len(bots))] + [f"{held_panel[m].mean():+.0f}"]
        lines.append(f"| {LABEL.get(s, s)} | " + " | ".join(cells) + " |")
    lines += ["", f"## Head-to-head ({args.h2h_deals} duplicate deals per match)", "",
              "Mean mBB/hand of the row selector's champions against the column selector's (all seed combinations):",
              "", "| | " + " | ".join(LABEL.get(s, s) for s in selectors) + " |", "|---|" + "---|" * S]
    for a, s in enumerate(selectors):
        cells = ["—" if a == b else f"{vs[a, b]:+.0f}" for b in range(S)]
        lines.append(f"| {LABEL.get(s, s)} | " + " | ".join(cells) + " |")
    lines += ["", "Same-seed pairs (the two runs started from the same population and saw the same decks):", "",
              "| pair | mean ± 95% CI across seeds | row wins |", "|---|---|---|"]
    for (a, b), v in paired.items():
        mm, cc = mci(v)
        lines.append(f"| {LABEL.get(selectors[a])} vs {LABEL.get(selectors[b])} | {mm:+.0f} ± {cc:.0f} | "
                     f"{int((v > 0).sum())}/{len(v)} |")
    lines += ["", "## Per-generation panel score (mean over seeds)", "", "| selector | generation 1 | "
              f"generation {args.generations // 2} | generation {args.generations} | best generation mean |",
              "|---|---|---|---|---|"]
    for s in selectors:
        curves = np.stack([runs[k]["panel_score"] for k in keys if k[0] == s])
        mc = curves.mean(axis=0)
        lines.append(f"| {LABEL.get(s, s)} | {mc[0]:+.0f} | {mc[args.generations // 2 - 1]:+.0f} | {mc[-1]:+.0f} | "
                     f"{mc.max():+.0f} |")
    if "hybrid" in selectors:
        mlf = np.concatenate([runs[k]["ml_fraction"] for k in keys if k[0] == "hybrid"])
        lines += ["", f"Hybrid: {100 * np.nanmean(mlf):.0f}% of its decisions were made in ML-POCBAm mode (II <= "
                  f"0.17), averaged over generations and seeds; the rest in POCBAm mode."]
    eng = {s: sum(runs[k]["engine_s"] for k in keys if k[0] == s) for s in selectors}
    sel = {s: sum(runs[k]["selector_s"] for k in keys if k[0] == s) for s in selectors}
    lines += ["", "Selector overhead (selector wall time beyond the engine's, share of engine time): " + ", ".join(
        f"{LABEL.get(s, s)} {100 * (sel[s] - eng[s]) / eng[s]:.0f}%" for s in selectors) + ".", "",
        f"![evolution study]({Path(args.png).name})", ""]
    Path(args.md).write_text("\n".join(lines))
    print("\n".join(lines))


def _plot(png, keys, selectors, seeds, runs, final_panel, vs, config):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pokerduel.selectors.studies import atomic_savefig

    fig, axes = plt.subplots(1, 3, figsize=(16, 4.6))
    ax = axes[0]
    for s in selectors:
        curves = np.stack([runs[k]["panel_score"] for k in keys if k[0] == s])
        g = np.arange(1, curves.shape[1] + 1)
        m = curves.mean(axis=0)
        se = curves.std(axis=0, ddof=1) / np.sqrt(len(curves)) if len(curves) > 1 else np.zeros_like(m)
        line, = ax.plot(g, m, label=LABEL.get(s, s))
        ax.fill_between(g, m - se, m + se, color=line.get_color(), alpha=0.15)
    ax.set_yscale("symlog", linthresh=100)
    ax.set_xlabel("generation")
    ax.set_ylabel("champion's panel score, mBB/hand")
    ax.set_title("per-generation panel (mean over seeds ± SE)")
    ax.legend(fontsize=8)
    ax = axes[1]
    for a, s in enumerate(selectors):
        vals = [final_panel[r] for r, k in enumerate(keys) if k[0] == s]
        ax.scatter(np.full(len(vals), a) + np.linspace(-0.1, 0.1, len(vals)), vals, s=18)
        ax.plot([a - 0.25, a + 0.25], [np.mean(vals)] * 2, color="k")
    ax.set_xticks(range(len(selectors)), [LABEL.get(s, s) for s in selectors], fontsize=8)
    ax.set_yscale("symlog", linthresh=100)
    ax.set_ylabel("final champion, common panel, mBB/hand")
    ax.set_title("final champions (dots: seeds, bar: mean)")
    ax = axes[2]
    lim = np.nanmax(np.abs(vs)) if np.isfinite(vs).any() else 1.0
    im = ax.imshow(vs, cmap="RdBu", vmin=-lim, vmax=lim)
    for a in range(len(selectors)):
        for b in range(len(selectors)):
            if a != b:
                ax.text(b, a, f"{vs[a, b]:+.0f}", ha="center", va="center", fontsize=9)
    ax.set_xticks(range(len(selectors)), [LABEL.get(s, s) for s in selectors], fontsize=8)
    ax.set_yticks(range(len(selectors)), [LABEL.get(s, s) for s in selectors], fontsize=8)
    ax.set_title("head-to-head: row's champions vs column's, mBB/hand")
    fig.colorbar(im, ax=ax, shrink=0.8)
    fig.suptitle(f"K={config['population']}, k={config['keep']}, {config['generations']} generations, "
                 f"budget {config['budget']}/generation, {len(seeds)} seeds")
    fig.tight_layout()
    atomic_savefig(fig, png)
    plt.close(fig)


if __name__ == "__main__":
    main()
