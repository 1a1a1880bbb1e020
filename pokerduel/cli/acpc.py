"""``pokerduel acpc-client`` and ``pokerduel dealer``: play over the ACPC network protocol (docs/acpc.md)."""

from __future__ import annotations

import json
import sys

import click

from ._outputs import check_output
from .play import PlayerSpec


def _echo_err(text: str) -> None:
    click.echo(text, err=True)


@click.command("acpc-client")
@click.option("--host", default="127.0.0.1", show_default=True, help="Dealer host.")
@click.option("--port", type=click.IntRange(1, 65535), required=True, help="Dealer port of this seat.")
@click.option("--player", type=PlayerSpec(), required=True,
              help="A bot name (e.g. candid-statistician) or FILE.h5:INDEX for an ASHE player of a population file.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of the player's randomness; the dealer's seed makes the match equal a local "
                   "`pokerduel play --seed` match.")
@click.option("--duplicate", is_flag=True,
              help="Hands come in mirrored pairs (`pokerduel dealer --duplicate`): one memory bank per half, "
                   "as in a local duplicate match.")
@click.option("--hs-samples", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Monte Carlo roll-outs for flop and turn hand strength.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=600.0, show_default=True,
              help="Seconds without a message from the dealer before giving up.")
@click.option("--hands", type=click.IntRange(min=1), default=None,
              help="Hands the match should have: fail if the dealer stops before (the protocol has no end message).")
@click.option("--report-every", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Print the running result every this many hands (0: only at the end).")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary at the end.")
def acpc_client(host, port, player, seed, duplicate, hs_samples, timeout, hands, report_every, as_json):
    """Join an ACPC dealer (protocol 2.0.0, holdem.nolimit.2p.reverse_blinds) and play the whole match."""
    from ..acpc.agent import Agent
    from ..acpc.client import ConnectionLost, run_client
    from ..acpc.protocol import ProtocolError

    def report(n, result):
        if report_every and n % report_every == 0:
            mean, ci = result.mbb_per_hand()
            _echo_err(f"{player.name}: {n} hands, {result.chips:+d} chips, {mean:+.1f} ± {ci:.1f} mBB/hand")

    agent = Agent(player, seed, pairs=duplicate, hs_samples=hs_samples)
    try:
        result = run_client(host, port, agent, timeout=timeout, expected_hands=hands, on_hand=report)
    except (ProtocolError, ConnectionLost) as err:
        _echo_err(f"error: {err}")
        sys.exit(1)
    mean, ci = result.mbb_per_hand()
    if as_json:
        click.echo(json.dumps({"player": player.name, "hands": result.n_hands, "chips": result.chips,
                               "mbb_per_hand": mean, "ci95": ci, "repaired_actions": result.repaired,
                               "cpu_seconds": result.cpu_seconds}))
        return
    click.echo(f"{player.name}: {result.chips:+d} chips over {result.n_hands} hands, "
               f"{mean:+.1f} ± {ci:.1f} mBB/hand (95% CI over hands)")


@click.command("dealer")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port of seat 1 (0: any free port; the ports are printed on the first line).")
@click.option("--port2", type=click.IntRange(0, 65535), default=None,
              help="Port of seat 2 [default: PORT+1, or any free port when PORT is 0].")
@click.option("--hands", type=click.IntRange(min=1), required=True, help="Hands to play.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of the deck stream.")
@click.option("--duplicate", is_flag=True,
              help="Deal each deck twice in a row with the seats swapped (HANDS must be even).")
@click.option("--names", default="seat1,seat2", show_default=True, help="Seat names for the log, comma-separated.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False), default="dealer.log",
              show_default=True, help="ACPC log file (STATE: lines and the final SCORE: line), written when the "
                                      "match ends.")
@click.option("--no-log", is_flag=True, help="Write no log file.")
@click.option("--overwrite", is_flag=True, help="Replace an existing log file.")
@click.option("--timeout-ms", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Most milliseconds a seat may take to answer (ACPC --t_response).")
@click.option("--start-timeout-ms", type=click.IntRange(min=1), default=600_000, show_default=True,
              help="Most milliseconds to wait for both seats to connect.")
@click.option("--quiet", is_flag=True, help="Do not print warnings about invalid or ignored replies.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary at the end.")
def dealer(host, port, port2, hands, seed, duplicate, names, log_path, no_log, overwrite, timeout_ms,
           start_timeout_ms, quiet, as_json):
    """Host a two-seat ACPC match (protocol 2.0.0) and print each seat's result in mBB/hand."""
    from ..acpc.dealer import Dealer

    if duplicate and hands % 2:
        raise click.BadParameter(f"a duplicate match plays each deck twice, so HANDS must be even (got {hands})",
                                 param_hint="--hands")
    name_list = names.split(",")
    if port2 is None:
        port2 = port + 1 if port else 0
    if port2 > 65535:
        raise click.BadParameter(f"seat 2's port {port2} is above 65535; give --port2", param_hint="--port2")
    if not no_log:
        check_output(log_path, "--log", overwrite=overwrite)
    warnings = []

    def warn(text):
        warnings.append(text)
        if not quiet or text.startswith("ERROR"):
            _echo_err(text)

    try:
        d = Dealer(hands, seed, duplicate=duplicate, host=host, ports=(port, port2), names=tuple(name_list),
                   timeout=timeout_ms / 1000, start_timeout=start_timeout_ms / 1000,
                   log_path=None if no_log else log_path, warn=warn)
    except ValueError as err:
        raise click.UsageError(str(err)) from None
    click.echo(f"{d.ports[0]} {d.ports[1]}")  # first line, as the ACPC dealer prints it
    sys.stdout.flush()
    result = d.run()
    rows = []
    for s in range(2):
        mean, ci = result.mbb_per_hand(s)
        rows.append({"seat": s + 1, "name": result.names[s], "chips": int(result.payoffs[:, s].sum()),
                     "mbb_per_hand": mean, "ci95": ci, "invalid_actions": result.invalid[s]})
    if as_json:
        click.echo(json.dumps({"hands": result.n_hands, "planned": hands, "seed": seed, "duplicate": duplicate,
                               "seats": rows, "aborted": result.aborted, "seconds": result.seconds,
                               "play_seconds": result.play_seconds, "play_cpu_seconds": result.play_cpu_seconds,
                               "log": result.log_path}))
    else:
        kind = "pairs of mirrored hands" if duplicate else "hands"
        for r in rows:
            click.echo(f"seat {r['seat']} {r['name']}: {r['chips']:+d} chips, {r['mbb_per_hand']:+.1f} ± "
                       f"{r['ci95']:.1f} mBB/hand (95% CI over {kind}), {r['invalid_actions']} invalid actions")
        rate = result.n_hands / result.play_seconds if result.play_seconds else float("nan")
        click.echo(f"{result.n_hands} hands in {result.play_seconds:.2f} s of play ({rate:,.0f} hands/s)"
                   + ("" if result.log_path is None else f"; log {log_path}"))
    if result.aborted:
        sys.exit(1)
