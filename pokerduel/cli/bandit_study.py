"""``pokerduel study copeland`` and ``pokerduel study savage``: the dueling-bandit studies of
``pokerduel.bandits.studies`` (Sup-KLUCB paper Fig (a)/(b); SAVAGE sample complexity)."""

from __future__ import annotations

import os
import sys

import click

from ._outputs import check_image, check_output


def _workers(workers):
    return workers or os.cpu_count() or 1


def _check_outputs(prefix: str, kind: str, plots: tuple[str, ...], overwrite: bool) -> None:
    """PREFIX.h5 may replace only a study of its kind; the report and plots no existing file (``--overwrite``)."""
    check_output(f"{prefix}.h5", "--out", overwrite=overwrite, kind=kind)
    check_output(f"{prefix}.md", "--out", overwrite=overwrite)
    for suffix in plots:
        check_image(f"{prefix}{suffix}", "--out", overwrite=overwrite, png_only=True)


def _write_report(path: str, text: str) -> None:
    from ..infra.storage import atomic_path

    with atomic_path(path) as tmp, open(tmp, "w") as f:
        f.write(text)


def _backend(workers):
    from ..infra.parallel import get_backend

    return get_backend("serial") if workers == 1 else get_backend("multiprocess", workers=workers)


@click.command("copeland")
@click.option("--games", type=click.IntRange(min=1), default=25, show_default=True, help="Random matrices.")
@click.option("--runs", type=click.IntRange(min=1), default=25, show_default=True, help="Runs per matrix.")
@click.option("--horizon", type=click.IntRange(min=1), default=100_000, show_default=True, help="Duels per run (T).")
@click.option("--k-min", type=click.IntRange(min=2), default=3, show_default=True, help="Smallest K.")
@click.option("--k-max", type=click.IntRange(min=2), default=36, show_default=True, help="Largest K.")
@click.option("--algorithms", default="sup-klucb,dts,rucb", show_default=True, help="Comma-separated bandits.")
@click.option("--no-condorcet", is_flag=True, help="Also reject matrices with a Condorcet winner (needs --k-min >= 5).")
@click.option("--seed", type=click.IntRange(min=0), default=2019, show_default=True,
              help="Seed of everything; results do not depend on --workers.")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Processes [default: all cores].")
@click.option("--out", default="copeland", show_default=True,
              help="Output prefix: PREFIX.h5, PREFIX.md, PREFIX-a.png, PREFIX-b.png.")
@click.option("--overwrite", is_flag=True, help="Replace existing outputs of any kind.")
def copeland(games, runs, horizon, k_min, k_max, algorithms, no_condorcet, seed, workers, out, overwrite):
    """Cumulative Copeland regret of Sup-KLUCB, D-TS and RUCB on random matrices (Agrawal & Chaporkar Fig (a), (b))."""
    from ..bandits.studies import (
        COPELAND_FORMAT,
        CopelandConfig,
        plot_copeland,
        run_copeland_study,
        summarize_copeland,
        write_copeland,
    )

    cfg = CopelandConfig(games=games, runs=runs, horizon=horizon, k_min=k_min, k_max=k_max, seed=seed,
                         algorithms=tuple(a.strip() for a in algorithms.split(",") if a.strip()),
                         no_condorcet=no_condorcet)
    try:
        cfg.validate()
    except ValueError as err:
        raise click.UsageError(str(err)) from None
    _check_outputs(out, COPELAND_FORMAT, ("-a.png", "-b.png"), overwrite)
    workers = _workers(workers)
    with click.progressbar(length=games * len(cfg.algorithms), label=f"copeland study ({workers} workers)",
                           file=sys.stderr) as bar:
        res = run_copeland_study(cfg, backend=_backend(workers), progress=lambda done, total: bar.update(1))
    write_copeland(res, f"{out}.h5")
    plots = plot_copeland(res, out)
    text = summarize_copeland(res)
    _write_report(f"{out}.md", f"# Copeland regret study\n\nCommand: `pokerduel study copeland --games {games} --runs "
                  f"{runs} --horizon {horizon} --k-min {k_min} --k-max {k_max} --seed {seed}`\n\n{text}\n"
                  + "".join(f"![{os.path.basename(p)}]({os.path.basename(p)})\n" for p in plots))
    click.echo(text)
    click.echo(f"wrote {out}.h5, {out}.md, {', '.join(plots)}")


@click.command("savage")
@click.option("--runs", type=click.IntRange(min=1), default=30, show_default=True, help="Instances per problem.")
@click.option("--delta", type=click.FloatRange(min=0, max=1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="Confidence 1 - delta.")
@click.option("--max-duels", type=click.IntRange(min=1), default=2_000_000, show_default=True, help="Cap per run.")
@click.option("--k-hard", type=click.IntRange(min=2), default=10, show_default=True,
              help="K of the hard Condorcet matrix.")
@click.option("--k-random", type=click.IntRange(min=5), default=8, show_default=True, help="K of the random matrices.")
@click.option("--problems", default="hard-condorcet,copeland,borda", show_default=True)
@click.option("--seed", type=click.IntRange(min=0), default=2013, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Processes [default: all cores].")
@click.option("--out", default="savage", show_default=True, help="Output prefix: PREFIX.h5, PREFIX.md.")
@click.option("--overwrite", is_flag=True, help="Replace existing outputs of any kind.")
def savage(runs, delta, max_duels, k_hard, k_random, problems, seed, workers, out, overwrite):
    """Duels SAVAGE needs to identify the winner with confidence 1 - delta, against SAVAGE Sampling, uniform
    exploration, arm-level elimination, naive UCB and the wrapped Borda baselines."""
    from ..bandits.studies import SAVAGE_FORMAT, SavageConfig, run_savage_study, summarize_savage, write_savage

    cfg = SavageConfig(runs=runs, delta=delta, max_duels=max_duels, seed=seed, k_hard=k_hard, k_random=k_random,
                       problems=tuple(p.strip() for p in problems.split(",") if p.strip()))
    try:
        cfg.validate()
    except ValueError as err:
        raise click.UsageError(str(err)) from None
    _check_outputs(out, SAVAGE_FORMAT, (), overwrite)
    res = run_savage_study(cfg, backend=_backend(_workers(workers)))
    write_savage(res, f"{out}.h5")
    text = summarize_savage(res)
    _write_report(f"{out}.md", f"# SAVAGE identification study\n\nCommand: `pokerduel study savage --runs {runs} "
                  f"--delta {delta} --max-duels {max_duels} --k-hard {k_hard} --k-random {k_random} --seed {seed}`"
                  f"\n\n{text}")
    click.echo(text)
    click.echo(f"wrote {out}.h5, {out}.md")
