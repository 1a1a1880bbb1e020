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
    from ..ground_truth import CorruptFile, load_ground_truth
    from ..plots import plot_matrices

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
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Image file to write (PNG, PDF, SVG)  [default: PATH with the suffix .png].")
@click.option("--overwrite", is_flag=True, help=OVERWRITE_HELP)
def evolution(path, out, overwrite):
    """An evolution run's champion against the benchmark panel, generation by generation."""
    from ..plots_evolution import plot_evolution

    out = out or str(Path(path).with_suffix(".png"))
    check_image(out, "--out", overwrite=overwrite)
    try:
        info = plot_evolution(path, out)
    except ValueError as err:  # evolve.CorruptFile is a ValueError
        raise click.BadParameter(str(err), param_hint="PATH") from None
    click.echo(f"wrote {out}: {info['generations']} generations; panel score first {info['first_score']:+.0f}, "
               f"last {info['last_score']:+.0f}, best {info['best_score']:+.0f} mBB/hand")
