"""Protocol overhead: hands/s of `pokerduel dealer` with two `pokerduel acpc-client` processes over loopback,
against the same duplicate match played locally (`play_duplicate`), and a check that both give the same result.

    python scripts/bench_acpc.py --hands 20000 --a calling-machine --b hothead-maniac

The network rate counts only the play (from the end of the handshake to the last hand), not process start-up.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLI = [sys.executable, "-c", "from pokerduel.cli import main; main()"]


def network(a: str, b: str, hands: int, seed: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "bench.log"
        dealer = subprocess.Popen(CLI + ["dealer", "--hands", str(hands), "--seed", str(seed), "--duplicate",
                                         "--log", str(log), "--json", "--timeout-ms", "60000"],
                                  stdout=subprocess.PIPE, text=True)
        ports = dealer.stdout.readline().split()
        clients = [subprocess.Popen(CLI + ["acpc-client", "--port", port, "--player", spec, "--seed", str(seed),
                                           "--duplicate", "--report-every", "0", "--json"],
                                    stdout=subprocess.PIPE, text=True)
                   for port, spec in zip(ports, (a, b))]
        out, _ = dealer.communicate(timeout=3600)
        client_cpu = [json.loads(c.communicate(timeout=60)[0])["cpu_seconds"] for c in clients]
        summary = json.loads(out.strip().splitlines()[-1])
        summary["client_cpu_seconds"] = client_cpu
        if dealer.returncode or any(c.returncode for c in clients):
            raise SystemExit(f"a process failed: dealer {dealer.returncode}, clients {[c.returncode for c in clients]}")
        return summary


def local(a: str, b: str, hands: int, seed: int, repeats: int = 3) -> tuple[float, object]:
    from pokerduel.play.matches import play_duplicate

    play_duplicate(a, b, 10, seed)  # compile / load the cache
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = play_duplicate(a, b, hands // 2, seed)
        best = min(best, time.perf_counter() - t0)
    return best, res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", default="calling-machine")
    ap.add_argument("--b", default="hothead-maniac")
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3, help="network runs (best is reported)")
    args = ap.parse_args(argv)
    if args.hands < 2 or args.hands % 2:
        ap.error("--hands must be an even number >= 2")
    runs = [network(args.a, args.b, args.hands, args.seed) for _ in range(args.repeats)]
    best = min(runs, key=lambda r: r["play_seconds"])
    t_local, res = local(args.a, args.b, args.hands, args.seed)
    same = best["seats"][0]["chips"] == int(res.hand_payoffs.sum())
    net_rate = [r["hands"] / r["play_seconds"] for r in runs]
    print(f"{args.a} vs {args.b}, {args.hands} hands (duplicate, seed {args.seed})")
    print(f"  over loopback (dealer + 2 client processes): best {max(net_rate):,.0f} hands/s "
          f"(runs: {', '.join(f'{x:,.0f}' for x in net_rate)})")
    h = args.hands
    print(f"  CPU per hand in the fastest run: dealer {best['play_cpu_seconds'] / h * 1e6:.0f} us, clients "
          f"{best['client_cpu_seconds'][0] / h * 1e6:.0f} and {best['client_cpu_seconds'][1] / h * 1e6:.0f} us")
    print(f"  local play_duplicate:                          {args.hands / t_local:,.0f} hands/s")
    print(f"  overhead: {(args.hands / t_local) / max(net_rate):,.0f}x; same chips for seat 1: {same} "
          f"({best['seats'][0]['chips']:+d})")


if __name__ == "__main__":
    main()
