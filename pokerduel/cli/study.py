"""``pokerduel study``: success rate against budget for top-k selectors (``pokerduel.selectors.studies``)."""

from __future__ import annotations

import json
import os
import sys

import click

DEFAULT_METHODS = "uniform,pocbam,ml-pocbam,select-top"


def _parse_options(values) -> dict:
    """``METHOD.NAME=VALUE`` (VALUE as JSON, else a string) into ``{method: {name: value}}``."""
    out: dict = {}
    for text in values:
        head, eq, raw = text.partition("=")
        method, dot, name = head.partition(".")
        if not (eq and dot and method and name):
            raise click.BadParameter(f"{text!r} is not METHOD.NAME=VALUE (e.g. hybrid.threshold=0.2)",
                                     param_hint="--option")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        out.setdefault(method, {})[name] = value
    return out


def _parse_budgets(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a comma-separated list of integers", param_hint="--budgets") from None


@click.command()
@click.option("--problem", "problems", multiple=True, default=("thurstone",), show_default=True,
              help="Problem, repeatable: thurstone, perturbed:D (means perturbed by N(0, D^2)), separated[:GAMMA0] "
                   "(Fig 3: gamma_0 = GAMMA0, default 1.2).")
@click.option("--K", "K", type=click.IntRange(min=2), default=10, show_default=True, help="Alternatives.")
@click.option("--k", "k", type=click.IntRange(min=1), default=4, show_default=True, help="Size of the top set (k < K).")
@click.option("--methods", default=DEFAULT_METHODS, show_default=True,
              help="Comma-separated selectors: uniform, pocbam, ml-pocbam, hybrid, select-top, pbr, ar.")
@click.option("--budget", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Largest budget (samples per replication).")
@click.option("--points", type=click.IntRange(min=1), default=20, show_default=True,
              help="Budgets per method, evenly spaced from its warm-up to --budget (all methods use the union).")
@click.option("--budgets", "budget_list", default=None, help="Explicit comma-separated budgets (overrides --budget, --points).")
@click.option("--reps", type=click.IntRange(min=1), default=1000, show_default=True, help="Replications.")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True,
              help="Seed of everything (numpy SeedSequence); the results do not depend on --workers.")
@click.option("--variance-law", type=click.Choice(["variance", "sd"]), default="variance", show_default=True,
              help="Pair variances ~ U[0,1] (the paper's text) or standard deviations ~ U[0,1].")
@click.option("--option", "options", multiple=True, help="Selector option METHOD.NAME=VALUE, repeatable.")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Processes [default: all cores].")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), default="study.h5", show_default=True,
              help="HDF5 result file (written atomically).")
@click.option("--plot", type=click.Path(dir_okay=False, writable=True), default=None,
              help="PNG plot [default: --out with .png].")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
def study(problems, K, k, methods, budget, points, budget_list, reps, seed, variance_law, options, workers, out,
          plot, as_json):
    """Success rate (replications whose top-k is the true one) against budget, with common random numbers."""
    import numpy as np

    from ..selectors.studies import StudyConfig, budget_grid, run_study

    method_list = tuple(m.strip() for m in methods.split(",") if m.strip())
    opts = _parse_options(options)
    workers = workers or os.cpu_count() or 1
    try:
        if budget_list is not None:
            budgets = _parse_budgets(budget_list)
        else:
            from ..selectors import SELECTORS

            unknown = [m for m in method_list if m not in SELECTORS]
            if unknown:
                raise ValueError(f"unknown method {unknown[0]!r}; known: {', '.join(SELECTORS)}")
            if not 1 <= k < K:
                raise ValueError(f"k must satisfy 1 <= k < K = {K}, got k = {k}")
            budgets = budget_grid(K, k, method_list, budget, points, opts)
        config = StudyConfig(K=K, k=k, budgets=budgets, methods=method_list, problems=tuple(problems),
                             replications=reps, seed=seed, variance_law=variance_law, options=opts)
        config.validate()
    except ValueError as err:
        raise click.UsageError(str(err)) from None
    plot = plot or os.path.splitext(out)[0] + ".png"
    with click.progressbar(length=reps, label=f"study ({reps} replications, {workers} workers)", file=sys.stderr,
                           show_eta=True, show_pos=True) as bar:
        result = run_study(config, workers=workers, progress=bar.update)
    result.save(out)
    result.plot(plot)
    if as_json:
        click.echo(json.dumps({**result.summary(), "out": out, "plot": plot}))
        return
    click.echo(f"top {k} of {K}, {reps} replications, seed {seed}: {result.seconds:.1f} s on {workers} workers")
    for spec in config.problems:
        click.echo(f"{spec}: success rate [95% CI] at budget")
        for m in config.methods:
            b, rate, lo, hi = result.rate(spec, m)
            picks = sorted({round(x) for x in np.linspace(0, b.size - 1, min(5, b.size))}) if b.size else []
            cells = ", ".join(f"{int(b[i])}: {rate[i]:.3f} [{lo[i]:.3f}, {hi[i]:.3f}]" for i in picks)
            click.echo(f"  {m:<11} {cells}")
    click.echo(f"wrote {out} and {plot}")
