"""``pokerduel study``: success-rate studies of top-k selectors and bandits, one subcommand per kind of problem.

``study synthetic`` runs the synthetic problems of ``pokerduel.selectors.studies``; ``study poker`` the
players of a ground-truth file (``pokerduel.studies.poker``).
"""

from __future__ import annotations

import json
import os
import sys

import click
import numpy as np

from ._outputs import check_image, check_output

DEFAULT_METHODS = "uniform,pocbam,ml-pocbam,select-top"
#: the selectors whose pair variances take the variance prior (``var_prior``, docs/selectors.md)
VAR_PRIOR_METHODS = ("pocbam", "ml-pocbam", "hybrid")
_VAR_PRIOR_HELP = ("Variance prior nu0 (pseudo-samples) of POCBAm, ML-POCBAm and the hybrid among --methods: each "
                   "pair variance is shrunk toward the pooled one, (nu0 s2_pool + (n-1) s2) / (nu0 + n - 1), so "
                   "a pair whose few samples are equal is not taken as certain. Same as --option METHOD.var_prior="
                   "NU0 for each. [default: 0, the paper's methods]")


def _with_var_prior(opts: dict, methods, var_prior) -> dict:
    """``opts`` with ``var_prior`` set for the methods among ``methods`` that take it (an explicit
    ``--option METHOD.var_prior`` wins)."""
    if var_prior is None:
        return opts
    for m in methods:
        if m in VAR_PRIOR_METHODS:
            opts.setdefault(m, {}).setdefault("var_prior", var_prior)
    return opts


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
        raise click.BadParameter(f"{text!r} is not a comma-separated list of integers",
                                 param_hint="--budgets") from None


@click.group()
def study():
    """Success rate of top-k selection against budget: synthetic problems, poker populations, bandits."""


@study.command("synthetic")
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
@click.option("--budgets", "budget_list", default=None,
              help="Explicit comma-separated budgets (overrides --budget, --points).")
@click.option("--reps", type=click.IntRange(min=1), default=1000, show_default=True, help="Replications.")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True,
              help="Seed of everything (numpy SeedSequence); the results do not depend on --workers.")
@click.option("--variance-law", type=click.Choice(["variance", "sd"]), default="variance", show_default=True,
              help="Pair variances ~ U[0,1] (the paper's text) or standard deviations ~ U[0,1].")
@click.option("--option", "options", multiple=True, help="Selector option METHOD.NAME=VALUE, repeatable.")
@click.option("--var-prior", type=float, default=None, metavar="NU0", help=_VAR_PRIOR_HELP)
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Processes [default: all cores].")
@click.option("--out", type=click.Path(dir_okay=False), default="study.h5", show_default=True,
              help="HDF5 result file (written atomically; it may replace only another study).")
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="PNG plot [default: --out with .png].")
@click.option("--overwrite", is_flag=True, help="Replace an existing plot, or an --out that is not a study.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
def synthetic(problems, K, k, methods, budget, points, budget_list, reps, seed, variance_law, options, var_prior,
              workers, out, plot, overwrite, as_json):
    """Success rate (replications whose top-k is the true one) against budget, with common random numbers."""
    import numpy as np

    from ..selectors.studies import StudyConfig, budget_grid, run_study

    method_list = tuple(m.strip() for m in methods.split(",") if m.strip())
    opts = _with_var_prior(_parse_options(options), method_list, var_prior)
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
    from ..selectors.studies import FORMAT

    plot = plot or os.path.splitext(out)[0] + ".png"
    check_output(out, "--out", overwrite=overwrite, kind=FORMAT)
    check_image(plot, "--plot", overwrite=overwrite, png_only=True)
    partial = f"{out}.partial"  # the replications done so far: the same command resumes a killed study
    if overwrite and os.path.exists(partial):
        os.remove(partial)
    with click.progressbar(length=reps, label=f"study ({reps} replications, {workers} workers)", file=sys.stderr,
                           show_eta=True, show_pos=True) as bar:
        try:
            result = run_study(config, workers=workers, progress=bar.update, checkpoint=partial)
        except ValueError as err:      # a checkpoint of another study
            raise click.UsageError(f"{err} (or pass --overwrite)") from None
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


@study.command("poker")
@click.option("--ground-truth", "truth_path", type=click.Path(exists=True, dir_okay=False), required=True,
              help="Ground-truth file (pokerduel ground-truth), e.g. data/ground_truth_10x10_seed1.h5.")
@click.option("--k", "k", type=click.IntRange(min=1), default=4, show_default=True, help="Size of the top set.")
@click.option("--methods", default="uniform,pocbam,ml-pocbam,hybrid,select-top", show_default=True,
              help="Comma-separated selectors (any of: uniform, pocbam, ml-pocbam, hybrid, select-top, pbr, ar).")
@click.option("--budget", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Largest budget (duplicate deals per replication); the replay oracle allows up to the recorded "
                   "deals per pair.")
@click.option("--points", type=click.IntRange(min=1), default=12, show_default=True,
              help="Budgets, spaced geometrically from the warm-up (3 per pair) to --budget.")
@click.option("--budgets", "budget_list", default=None, help="Explicit comma-separated budgets (overrides --budget).")
@click.option("--reps", type=click.IntRange(min=1), default=500, show_default=True, help="Replications per population.")
@click.option("--oracle", type=click.Choice(["live", "replay"]), default="replay", show_default=True,
              help="replay: the recorded deals, without replacement; live: new deals played by the engine.")
@click.option("--reset", is_flag=True, help="Live: start every deal with fresh memories (default: matches continue).")
@click.option("--populations", "pop_list", default=None, help="Comma-separated population indices [default: all].")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True, help="Seed of everything.")
@click.option("--option", "options", multiple=True,
              help="Selector option METHOD.NAME=VALUE, repeatable (default hybrid.threshold=0.17).")
@click.option("--var-prior", type=float, default=None, metavar="NU0", help=_VAR_PRIOR_HELP)
@click.option("--backend", type=click.Choice(["serial", "multiprocess", "dask"]), default="multiprocess",
              show_default=True, help="Where the replications run.")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Worker processes [default: all cores].")
@click.option("--scheduler", default=None, help="Dask scheduler address tcp://HOST:PORT (default: a local cluster).")
@click.option("--out", type=click.Path(dir_okay=False), default="poker_study.h5", show_default=True,
              help="HDF5 result file (checkpointed in OUT.parts/, written atomically).")
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="Fig 8 PNG [default: --out with .png]; the wall-clock view goes to the same name with -wallclock.")
@click.option("--overwrite", is_flag=True,
              help="Replace existing plots, or an output or checkpoint of another study.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
def poker(truth_path, k, methods, budget, points, budget_list, reps, oracle, reset, pop_list, seed, options, var_prior,
          backend, workers, scheduler, out, plot, overwrite, as_json):
    """Top-k selection among the players of a ground truth (core paper Fig 8), live or replayed.

    Success means the selector's top-k is the ground truth's (Borda) top-k. Samples are chips per
    duplicate deal. Finished blocks of replications are checkpointed: rerunning the same command after an
    interruption finishes the job. The result does not depend on the backend or the number of workers.
    """
    from ..infra.parallel import get_backend
    from ..play.ground_truth import load_ground_truth
    from ..studies.poker import PokerStudyConfig, default_budgets, markdown_table, run_poker_study

    method_list = tuple(m.strip() for m in methods.split(",") if m.strip())
    opts = {"hybrid": {"threshold": 0.17}}
    for m, o in _parse_options(options).items():
        opts.setdefault(m, {}).update(o)
    _with_var_prior(opts, method_list, var_prior)
    try:
        truth = load_ground_truth(truth_path)
        K = len(truth[0])
        budgets = _parse_budgets(budget_list) if budget_list is not None else default_budgets(K, budget, points)
        pops = None
        if pop_list is not None:
            try:
                pops = tuple(int(x) for x in pop_list.split(",") if x.strip())
            except ValueError:
                raise click.BadParameter(f"{pop_list!r} is not a comma-separated list of integers",
                                         param_hint="--populations") from None
        config = PokerStudyConfig(ground_truth=truth_path, k=k, budgets=budgets, methods=method_list, populations=pops,
                                  replications=reps, seed=seed, oracle=oracle, reset=reset,
                                  options={m: o for m, o in opts.items() if m in method_list})
        config.validate(K, len(truth))
        if oracle == "replay" and max(budgets) > truth.config["deals"]:
            raise ValueError(f"the replay oracle has {truth.config['deals']} recorded deals per pair; budgets above "
                             f"that could exhaust a pair: use --budget <= {truth.config['deals']}")
    except ValueError as err:  # CorruptFile is a ValueError
        raise click.UsageError(str(err)) from None
    from ..studies.poker import FORMAT

    plot = plot or os.path.splitext(out)[0] + ".png"
    wall = os.path.splitext(plot)[0] + "-wallclock.png"
    check_output(out, "--out", overwrite=overwrite, kind=FORMAT)
    check_image(plot, "--plot", overwrite=overwrite, png_only=True)
    check_image(wall, "--plot", overwrite=overwrite, png_only=True)
    try:
        be = get_backend(backend, workers=workers, scheduler=scheduler)
    except (ValueError, ImportError) as err:  # ImportError: Dask is missing
        raise click.BadParameter(str(err), param_hint="--backend/--scheduler") from None
    except ConnectionError as err:
        raise click.ClickException(str(err)) from None
    units = [0]
    with be, click.progressbar(length=1, label=f"poker study ({oracle}, {reps} replications, {be.describe()})",
                               file=sys.stderr, show_eta=True, show_pos=True) as bar:
        def progress(done, total):
            bar.length = total
            bar.update(done - units[0])
            units[0] = done

        try:
            result = run_poker_study(config, out, be, overwrite=overwrite, progress=progress)
        except ValueError as err:
            raise click.UsageError(str(err)) from None
    result.plot(plot)
    result.plot_wallclock(wall)
    if as_json:
        click.echo(json.dumps({**result.summary(), "out": out, "plot": plot, "wallclock_plot": wall}))
        return
    click.echo(f"top {k} of {K}, {oracle} oracle, {reps} replications per population, seed {seed}: "
               f"{result.seconds:.1f} s ({result.backend})")
    shown = [b for b in budgets if b in (budgets[0], budgets[len(budgets) // 2], budgets[-1])]
    click.echo(markdown_table(result, shown))
    for p, row in result.comparison().items():
        worse = row.get("hybrid_significantly_worse_at", [])
        click.echo(f"population {p}: hybrid - POCBAm {row.get('hybrid_minus_pocbam_mean', float('nan')):+.3f} on "
                   f"average{' (significantly worse at ' + ', '.join(map(str, worse)) + ')' if worse else ''}; "
                   f"SELECT/TOP worst: {row.get('select_top_worst')}")
    if "hybrid" in method_list:
        ml = [float(np.nanmean(result.arrays[(p, 'hybrid', 'ml_fraction')])) for p in result.populations()]
        click.echo("hybrid: share of decisions in ML-POCBAm mode per population: " + ", ".join(f"{x:.2f}" for x in ml))
    first = result.populations()[0]
    overhead = ", ".join(f"{m} {result.selector_seconds(m)[-1] / result.budgets[(first, m)][-1] * 1e6:,.1f} µs"
                         for m in method_list)
    click.echo(f"cost per sample (deal): {result.deal_cost * 1e6:,.0f} µs; selector overhead per sample at the "
               f"largest budget: {overhead}")
    click.echo(f"wrote {out}, {plot} and {wall}")
