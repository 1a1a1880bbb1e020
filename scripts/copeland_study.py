"""The Sup-KLUCB paper's Copeland experiment (Agrawal & Chaporkar 2019, Fig (a) and (b)) and the speed of
the bandit kernels.

    python scripts/copeland_study.py                       # paper size: 25 games x 25 runs x T = 100,000
    python scripts/copeland_study.py --games 6 --runs 5 --horizon 20000 --out docs/results/copeland-small
    python scripts/copeland_study.py --bench               # rounds/s of RUCB, D-TS, Sup-KLUCB, SAVAGE

The study itself is ``pokerduel study copeland`` (same options); this script adds ``--bench``.
"""

from __future__ import annotations

import sys

import click

from pokerduel.cli.bandit_study import copeland


@click.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.option("--bench", is_flag=True, help="Measure rounds/s instead of running the study.")
@click.option("--horizon", type=int, default=1_000_000, help="Rounds per timed run (bench).")
@click.pass_context
def main(ctx, bench, horizon):
    if not bench:
        sys.exit(copeland.main(args=sys.argv[1:], standalone_mode=True))
    from pokerduel.bandits.studies import bench_rounds

    print("| bandit | K | rounds/s (best of 3, one whole run each) |")
    print("|---|---|---|")
    for name, Ks, T in (("rucb", (10, 36), horizon), ("dts", (10, 36), horizon), ("sup-klucb", (10, 36), horizon // 10),
                        ("savage", (10,), horizon)):
        for K in Ks:
            print(f"| {name} | {K} | {bench_rounds(name, K, T):,.0f} |", flush=True)


if __name__ == "__main__":
    main()
