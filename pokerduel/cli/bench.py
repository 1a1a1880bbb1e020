"""``pokerduel bench``: throughput of the engine next to peers measured in the same run."""

from __future__ import annotations

import json

import click


@click.group()
def bench():
    """Measure throughput (see docs/benchmarks.md)."""


@bench.command("engine")
@click.option("--evals", type=click.IntRange(min=1000), default=5_000_000, show_default=True,
              help="Random seven-card hands for the evaluator.")
@click.option("--deals", type=click.IntRange(min=100), default=1_000_000, show_default=True,
              help="Random-bot duplicate deals for the engine.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
def engine(evals, deals, as_json):
    """Evaluator evals/s and engine hands/s, with eval7 and pokerkit measured in the same run."""
    from ..play.bench import bench_engine, bench_evaluator

    res = {**bench_evaluator(evals), **bench_engine(deals)}
    if as_json:
        click.echo(json.dumps(res))
        return

    def fmt(x, unit):
        return "not installed" if x is None else f"{x / 1e6:8.2f} M {unit}/s" if x >= 1e5 else f"{x:10.0f} {unit}/s"

    ours, peer = res["pokerduel_evals_per_s"], res["eval7_evals_per_s"]
    click.echo("seven-card evaluation, random order, one core")
    click.echo(f"  pokerduel evaluate  {fmt(ours, 'evals')}")
    click.echo(f"  eval7               {fmt(peer, 'evals')}" + (f"   (pokerduel x{ours / peer:.0f})" if peer else ""))
    click.echo("whole hands (deal, betting, showdown, payoff), one core")
    click.echo(f"  pokerduel random bots        {fmt(res['random_hands_per_s'], 'hands')}")
    click.echo(f"    per-decision loop          {fmt(res['random_generic_hands_per_s'], 'hands')}"
               "   (the loop of every other pair)")
    click.echo(f"  pokerduel calling machines   {fmt(res['calling_hands_per_s'], 'hands')}")
    click.echo(f"  pokerduel candid vs maniac   {fmt(res['rule_bot_hands_per_s'], 'hands')}")
    pk = res["pokerkit_hands_per_s"]
    click.echo(f"  pokerkit replaying hands     {fmt(pk, 'hands')}"
               + (f"   (pokerduel random x{res['random_hands_per_s'] / pk:.0f})" if pk else ""))
