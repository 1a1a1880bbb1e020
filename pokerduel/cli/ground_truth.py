"""``pokerduel ground-truth``: round robins of whole populations, resumable, on any backend."""

from __future__ import annotations

import json
import sys
import time

import click

from ._outputs import check_output


class _Progress:
    """Pairs done, hands/s and ETA on stderr: redrawn in place on a terminal, a line every 10 s otherwise."""

    def __init__(self, label: str, hands_per_pair: int, stream=None):
        self.label, self.hands_per_pair = label, hands_per_pair
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.last = 0.0
        self.start_done = None

    def __call__(self, done, total, hands, seconds):
        if self.start_done is None:
            self.start_done = done
        rate = hands / seconds if seconds > 0 else 0.0
        played = done - self.start_done
        eta = (total - done) * seconds / played if played else float("nan")
        eta_text = "--" if eta != eta else time.strftime("%H:%M:%S", time.gmtime(eta))
        line = (f"{self.label}: {done}/{total} pairs ({100 * done / total:.0f}%)  "
                f"{rate:,.0f} hands/s  ETA {eta_text}")
        now = time.monotonic()
        if self.tty:
            self.stream.write("\r" + line.ljust(78))
            if done == total:
                self.stream.write("\n")
            self.stream.flush()
        elif done == total or now - self.last >= 10 or played == 0:
            self.stream.write(line + "\n")
            self.stream.flush()
            self.last = now


@click.command("ground-truth")
@click.option("--populations", "n_populations", type=click.IntRange(min=1), default=None,
              help="Random populations to generate  [default: 10].")
@click.option("--size", type=click.IntRange(min=2), default=None, help="Players per random population  [default: 10].")
@click.option("--population", "population_files", type=click.Path(dir_okay=False), multiple=True,
              help="Use this population file instead of random ones (repeatable, in order).")
@click.option("--hands", type=click.IntRange(min=2), default=20_000, show_default=True,
              help="Hands per pair (even: two per duplicate deal).")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True,
              help="Seed of the genomes and of every pair's decks.")
@click.option("--out", type=click.Path(dir_okay=False), required=True, help="HDF5 file to write.")
@click.option("--backend", type=click.Choice(["serial", "multiprocess", "dask"]), default="multiprocess",
              show_default=True, help="Where the pairs are played.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Worker processes (multiprocess, local dask)  [default: all cores].")
@click.option("--scheduler", default=None, help="Dask scheduler address tcp://HOST:PORT (default: a local cluster).")
@click.option("--overwrite", is_flag=True, help="Replace an existing output or checkpoint of another job.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
def ground_truth(n_populations, size, population_files, hands, seed, out, backend, workers, scheduler, overwrite,
                 as_json):
    """Play every pair of each population (duplicate deals) and store the pairwise matrices and samples.

    Finished pairs are checkpointed in OUT.parts/ as they complete: rerunning the same command after an
    interruption finishes the job without replaying them. The result does not depend on the backend or
    the number of workers.
    """
    from ..infra.parallel import DASK_HINT, get_backend
    from ..play import ground_truth as gt

    if hands % 2:
        raise click.BadParameter(f"{hands} is odd; hands come in pairs (one duplicate deal is two hands)",
                                 param_hint="--hands")
    if population_files and (n_populations is not None or size is not None):
        raise click.UsageError("--population files and --populations/--size are exclusive")
    if scheduler is not None and backend != "dask":
        raise click.BadParameter("only the dask backend takes a scheduler address", param_hint="--scheduler")
    if backend == "serial" and workers not in (None, 1):
        raise click.BadParameter("the serial backend has one worker", param_hint="--workers")
    check_output(out, "--out", overwrite=overwrite, kind=gt.FORMAT)
    try:
        if population_files:
            job = gt.file_job(population_files, hands, seed)
        else:
            job = gt.random_job(n_populations or 10, size or 10, hands, seed)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--population" if population_files else "--size") from None

    try:
        runner = get_backend(backend, workers=workers, scheduler=scheduler)
    except ImportError as err:
        raise click.UsageError(str(err) if "pokerduel[dask]" in str(err) else f"{DASK_HINT} ({err})") from None
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--scheduler") from None
    except ConnectionError as err:
        raise click.ClickException(str(err)) from None

    n_pairs = len(job.pairs())
    bar = _Progress(f"ground truth, {len(job.populations)} populations", 2 * job.deals)
    try:
        with runner:
            report = gt.run_ground_truth(job, out, runner, overwrite=overwrite, progress=bar)
    except gt.ConfigMismatch as err:
        raise click.UsageError(str(err)) from None
    except gt.CorruptFile as err:
        raise click.ClickException(str(err)) from None

    summary = report.truth.summary()
    info = {"out": str(out), "n_populations": len(job.populations), "pairs": n_pairs,
            "hands_per_pair": hands, "hands_total": hands * n_pairs, "seed": seed,
            "backend": runner.describe(), "pairs_played": report.pairs_played,
            "pairs_resumed": report.pairs_resumed, "reused_output": report.reused_output,
            "seconds": report.seconds, "hands_per_second": report.hands_per_second, **summary}
    if as_json:
        click.echo(json.dumps(info))
        return
    if report.reused_output:
        click.echo(f"{out} already holds this ground truth; nothing played (--overwrite replays it)")
    else:
        resumed = f", {report.pairs_resumed} resumed from the checkpoint" if report.pairs_resumed else ""
        click.echo(f"wrote {out}: {n_pairs} pairs x {hands} hands, {report.pairs_played} played{resumed}, "
                   f"in {report.seconds:.1f} s ({report.hands_per_second:,.0f} hands/s, {runner.describe()})")
    for d in summary["populations"]:
        click.echo(f"population {d['population']}: Borda ranking {' '.join(map(str, d['ranking']))}; "
                   f"negative means above the diagonal {d['negative_upper']}/{d['upper_pairs']}; "
                   f"intransitive triplets {d['intransitive_triplets']}")
    click.echo(f"mean over populations: {summary['mean_negative_upper']:.1f} negative means above the diagonal "
               f"(core paper: 11.1 of 45), {summary['mean_intransitive_triplets']:.1f} intransitive triplets")
