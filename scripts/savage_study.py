"""SAVAGE (Urvoy et al. 2013): sample complexity against the baselines, and explore-then-exploit regret
on the D-TS author's 5-arm MSLR matrix next to his published numbers.

    python scripts/savage_study.py                      # docs/results/savage.{h5,md,png}
    python scripts/savage_study.py --runs 10 --max-duels 500000 --out /tmp/savage-small
"""

from __future__ import annotations

import math

import click
import numpy as np

from pokerduel.bandits import regret_per_round, run_on_matrix
from pokerduel.bandits.problems import MSLR5
from pokerduel.bandits.studies import METHODS, SavageConfig, run_savage_study, summarize_savage, write_savage
from pokerduel.infra.parallel import get_backend

#: HuasenWu/DuelingBandits results/MSLR_Informational_5_Condorcet_results_EteOnly.mat (10 simulations),
#: oracle minus SAVAGE reward, as recorded in ../shared/notes/other-seed-algorithms.md section 2.5
HUASEN = {10: 5, 30: 15, 100: 50, 300: 150, 1000: 486, 3000: 1055, 10000: 1847, 30000: 2340}


def mslr_table(runs: int) -> str:
    lines = ["| T | SAVAGE here: mean Copeland regret ± SE | runs | D-TS author's code (10 runs) |",
             "|---|---|---|---|"]
    for T, ref in HUASEN.items():
        regs = []
        for s in range(runs):
            ti, tj, _ = run_on_matrix("savage", MSLR5, T, np.random.SeedSequence([7, T, s]), winner="condorcet")
            regs.append(regret_per_round(ti, tj, MSLR5).sum())
        regs = np.array(regs)
        lines.append(f"| {T:,} | {regs.mean():,.1f} ± {regs.std(ddof=1) / math.sqrt(runs):,.1f} | {runs} | {ref:,} |")
    return "\n".join(lines) + "\n"


def plot(res, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pokerduel.selectors.studies import atomic_savefig

    cfg = res["config"]
    fig, axes = plt.subplots(1, len(cfg.problems), figsize=(4.2 * len(cfg.problems), 4.0))
    for ax, p in zip(np.atleast_1d(axes), cfg.problems):
        d = res["results"][p]
        labels = [m[0] for m in METHODS[p]]
        ax.boxplot([d["used"][m] for m in range(len(labels))], showmeans=True)
        ax.set_xticks(range(1, len(labels) + 1), [lab.replace(" (", "\n(") for lab in labels], fontsize=7, rotation=20)
        ax.set_yscale("log")
        ax.axhline(cfg.max_duels, color="grey", lw=0.8, ls=":")
        ax.set_title(p, fontsize=9)
        ax.set_ylabel("duels to stop (cap dotted)")
    fig.tight_layout()
    atomic_savefig(fig, path)
    plt.close(fig)


@click.command()
@click.option("--runs", type=click.IntRange(min=2), default=30, show_default=True)
@click.option("--delta", type=float, default=0.05, show_default=True)
@click.option("--max-duels", type=click.IntRange(min=1), default=2_000_000, show_default=True)
@click.option("--k-hard", type=click.IntRange(min=2), default=10, show_default=True)
@click.option("--k-random", type=click.IntRange(min=5), default=8, show_default=True)
@click.option("--mslr-runs", type=click.IntRange(min=2), default=30, show_default=True)
@click.option("--seed", type=click.IntRange(min=0), default=2013, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True)
@click.option("--out", default="docs/results/savage", show_default=True)
def main(runs, delta, max_duels, k_hard, k_random, mslr_runs, seed, workers, out):
    cfg = SavageConfig(runs=runs, delta=delta, max_duels=max_duels, seed=seed, k_hard=k_hard, k_random=k_random)
    try:
        cfg.validate()
    except ValueError as err:
        raise click.UsageError(str(err)) from None
    with get_backend("multiprocess", workers=workers) if workers > 1 else get_backend("serial") as backend:
        res = run_savage_study(cfg, backend=backend)
    write_savage(res, f"{out}.h5")
    plot(res, f"{out}.png")
    text = ("# SAVAGE: identification and explore-then-exploit\n\n"
            f"Command: `python scripts/savage_study.py --runs {runs} --delta {delta} --max-duels {max_duels} "
            f"--k-hard {k_hard} --k-random {k_random} --mslr-runs {mslr_runs} --seed {seed}`\n\n"
            "## Sample complexity to identify the winner\n\n" + summarize_savage(res)
            + f"\n![duels to stop]({out.rsplit('/', 1)[-1]}.png)\n\n"
            "## Explore-then-exploit (delta = 1/T, eta = 2NT) on the 5-arm MSLR Condorcet matrix\n\n"
            + mslr_table(mslr_runs))
    with open(f"{out}.md", "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
