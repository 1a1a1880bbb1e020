"""``pokerduel population``: make and inspect population files of ASHE players."""

from __future__ import annotations

import json

import click

from ._outputs import check_output
from ._settings import player_settings


@click.group()
def population():
    """Populations of ASHE players (HDF5 files)."""


@population.command("new")
@click.option("--size", type=click.IntRange(min=1), default=10, show_default=True, help="Number of players.")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True, help="Seed of the weights.")
@click.option("--out", type=click.Path(dir_okay=False), required=True,
              help="HDF5 file to write (it may replace only another population file).")
@click.option("--hidden", type=click.IntRange(1, 256), default=10, show_default=True,
              help="LSTM cells per estimator.")
@click.option("--prt-capacity", type=click.IntRange(2, 1 << 22), default=8192, show_default=True,
              help="Pattern Recognition Tree nodes per opponent and duplicate half.")
@click.option("--lstm-reset", type=click.Choice(["hand", "half"]), default="hand", show_default=True,
              help="Zero the LSTM state after every hand, or keep it through a duplicate half.")
@player_settings
@click.option("--overwrite", is_flag=True, help="Replace --out even if it is not a population file.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
def new(size, seed, out, hidden, prt_capacity, lstm_reset, calling_range, explore, read_raises, read_reraises,
        lookahead, read_aggression, mark_reraises, call_option, anchored, option_range, raising_range, option_reraise,
        model, decision_output, raise_sizes, overwrite, as_json):
    """Write a population of random ASHE players (every weight uniform on [-1, 1])."""
    from ..play.populations import FORMAT, new_population, save_population
    from ..players.genomes import AsheSettings

    check_output(out, "--out", overwrite=overwrite, kind=FORMAT)
    try:
        settings = AsheSettings(hidden=hidden, prt_capacity=prt_capacity, lstm_reset=lstm_reset,
                                calling_range=calling_range, explore=explore, read_raises=read_raises,
                                read_reraises=read_reraises, lookahead=lookahead, read_aggression=read_aggression,
                                mark_reraises=mark_reraises, call_option=call_option, anchored=anchored,
                                option_range=option_range, raising_range=raising_range,
                                option_reraise=option_reraise, model=model,
                                decision_output=decision_output, raise_sizes=raise_sizes)
    except ValueError as err:  # settings that exclude each other
        raise click.UsageError(str(err)) from None
    pop = new_population(size, seed, settings)
    save_population(pop, out)
    summary = {"out": out, "size": size, "seed": seed, "genome_size": settings.genome_size,
               "settings": settings.to_dict()}
    if as_json:
        click.echo(json.dumps(summary))
    else:
        click.echo(f"wrote {size} ASHE players ({settings.genome_size} weights each, seed {seed}) to {out}; "
                   f"use them as {out}:0 .. {out}:{size - 1}")


@population.command("show")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
def show(path, as_json):
    """Describe a population file."""
    from ..play.populations import load_population

    try:
        pop = load_population(path)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="PATH") from None
    summary = {"path": path, "size": len(pop), "seed": pop.seed, "init": pop.init, "origin": pop.origin,
               "genome_size": pop.settings.genome_size, "settings": pop.settings.to_dict()}
    if as_json:
        click.echo(json.dumps(summary))
        return
    click.echo(f"{path}: {len(pop)} ASHE players, " + (f"evolved: {pop.origin}" if pop.origin else
                                                        f"seed {pop.seed}, weights drawn from {pop.init}"))
    click.echo(f"settings: {pop.settings.to_dict()}; {pop.settings.genome_size} weights per genome")


def _generations(text: str) -> list[int]:
    """``1-10,50,241-250`` -> the generations, in that order."""
    gens = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        lo, dash, hi = part.partition("-")
        if not (lo.isdigit() and (not dash or hi.isdigit())) or (dash and int(hi) < int(lo)):
            raise click.BadParameter(f"expected generations like 1-10,50 (1-based), got {part!r}",
                                     param_hint="--champions")
        gens += list(range(int(lo), int(hi) + 1)) if dash else [int(lo)]
    return gens


@population.command("from-run")
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--champions", default=None, metavar="GENERATIONS",
              help="Generations whose champions join, from each run in turn (1-based, e.g. 241-250 or 10,100,250).")
@click.option("--current", is_flag=True,
              help="Add each run's current population (the genomes its next generation starts from).")
@click.option("--out", type=click.Path(dir_okay=False), required=True,
              help="HDF5 file to write (it may replace only another population file).")
@click.option("--overwrite", is_flag=True, help="Replace --out even if it is not a population file.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
def from_run(runs, champions, current, out, overwrite, as_json):
    """Write a population of evolved players taken from evolution run files RUNS.

    For example the champions of generations 241-250 of one run, or of generation 250 of ten seeds; the
    file says where each player came from, and `pokerduel ground-truth --population` ranks it."""
    from ..evolution.evolve import population_from_runs
    from ..play.populations import FORMAT, save_population

    gens = None if champions is None else _generations(champions)
    if not gens and not current:
        raise click.UsageError("choose --champions GENERATIONS, --current, or both")
    check_output(out, "--out", overwrite=overwrite, kind=FORMAT)
    try:
        pop = population_from_runs(runs, gens, current)
    except ValueError as err:           # CorruptFile included
        raise click.BadParameter(str(err), param_hint="RUNS") from None
    save_population(pop, out)
    summary = {"out": out, "size": len(pop), "origin": pop.origin, "settings": pop.settings.to_dict()}
    if as_json:
        click.echo(json.dumps(summary))
    else:
        click.echo(f"wrote {len(pop)} evolved ASHE players to {out} ({pop.origin}); "
                   f"use them as {out}:0 .. {out}:{len(pop) - 1}")
