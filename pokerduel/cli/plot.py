"""``pokerduel plot``: figures from result files."""

from __future__ import annotations

from pathlib import Path

import click

from ._outputs import OVERWRITE_HELP, check_image


@click.group()
def plot():
    """Draw figures from result files."""


@plot.command("matrices")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), required=True, help="Image file to write (PNG, PDF, SVG).")
@click.option("--population", "populations", type=click.IntRange(min=0), multiple=True,
              help="Draw only this population (repeatable; default: all).")
@click.option("--columns", type=click.IntRange(min=1), default=5, show_default=True, help="Panels per row.")
@click.option("--overwrite", is_flag=True, help=OVERWRITE_HELP)
def matrices(path, out, populations, columns, overwrite):
    """Fig 7: each population's pairwise-mean matrix of a ground-truth file, players in true rank order."""
    from ..play.ground_truth import CorruptFile, load_ground_truth
    from ..studies.plots import plot_matrices

    check_image(out, "--out", overwrite=overwrite)
    try:
        truth = load_ground_truth(path)
    except CorruptFile as err:
        raise click.BadParameter(str(err), param_hint="PATH") from None
    try:
        plot_matrices(truth, out, populations or None, columns)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--population") from None
    click.echo(f"wrote {out}: {len(populations) or len(truth)} pairwise-mean matrices in true rank order")


@plot.command("evolution")
@click.argument("paths", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Image file to write (PNG, PDF, SVG)  [default: the first PATH with the suffix .png].")
@click.option("--overwrite", is_flag=True, help=OVERWRITE_HELP)
def evolution(paths, out, overwrite):
    """An evolution run's champion against the benchmark panel, generation by generation; with several run
    files, the mean over runs (per mode) against the training bots and the held-out opponents."""
    from ..evolution.plots import plot_evolution, plot_evolution_runs

    out = out or str(Path(paths[0]).with_suffix(".png"))
    check_image(out, "--out", overwrite=overwrite)
    try:
        if len(paths) > 1:
            info = plot_evolution_runs(paths, out)
        else:
            info = plot_evolution(paths[0], out)
    except ValueError as err:  # evolve.CorruptFile is a ValueError
        raise click.BadParameter(str(err), param_hint="PATH") from None
    if len(paths) > 1:
        click.echo(f"wrote {out}: {len(paths)} runs; last generation's mean (training bots / held-out) " + "; ".join(
            f"{k}: {v['training']:+.0f} / {v['heldout']:+.0f} over {v['runs']} runs" for k, v in info.items()))
        return
    click.echo(f"wrote {out}: {info['generations']} generations; panel score first {info['first_score']:+.0f}, "
               f"last {info['last_score']:+.0f}, best {info['best_score']:+.0f} mBB/hand")
