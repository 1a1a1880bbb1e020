"""Microseconds per decision of the top-k selectors on Thurstone problems (K = 10, k = 4; K = 100, k = 40).

A *decision* is the choice of the next pair after the warm-up (for ML-POCBAm: the warm-started fit of
eq 4 on the data including the previous sample, the eq 9 posteriors and the AEPCS scan); a *step* adds
the oracle sample and the bookkeeping. Numba compilation is excluded (one warm-up run first).

    python scripts/bench_selectors.py [--decisions 400] [--seed 1] [--selectors uniform,pocbam,ml-pocbam,hybrid]
    python scripts/bench_selectors.py --baseline /tmp/before [--rounds 3]

``--baseline DIR`` times a second source tree too (e.g. ``git worktree add /tmp/before HEAD~1`` or ``git
archive HEAD | tar -x -C /tmp/before``) in the same run: each round runs this benchmark in one child
process per tree (``PYTHONPATH=DIR`` for the baseline, this tree for the other), the trees alternating, and
the table gives each tree's median over the rounds and their ratio. Both trees see the same problems,
seeds and samples, so their decisions can be compared as well as timed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

from pokerduel.selectors import make_selector, thurstone

CASES = ((10, 4), (100, 40))
DEFAULT_SELECTORS = "uniform,pocbam,ml-pocbam,hybrid"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bench(name: str, K: int, k: int, decisions: int, seed: int) -> tuple[float, float]:
    oracle = thurstone(K, np.random.default_rng(seed), np.random.default_rng(seed + 1))
    warmup = 3 * K * (K - 1) // 2
    sel = make_selector(name, oracle, k, warmup + 2 * decisions, rng=np.random.default_rng(seed + 2))
    sel._warmup_batch()
    for _ in range(decisions // 4):          # let the posterior settle a little
        sel.step()
    decide = sel._decide
    spent = [0.0]

    def timed_decide():
        t = time.perf_counter()
        p = decide()
        spent[0] += time.perf_counter() - t
        return p

    sel._decide = timed_decide                # instance attribute: step() calls it once per sample
    t0 = time.perf_counter()
    for _ in range(decisions):
        sel.step()
    t_all = time.perf_counter() - t0
    return spent[0] / decisions * 1e6, t_all / decisions * 1e6


def run_all(names: list[str], decisions: int, seed: int) -> dict[str, tuple[float, float]]:
    for name in names:                        # compile (or load the cache) outside the timings
        bench(name, 10, 4, 5, 0)
    out = {}
    for K, k in CASES:
        n = decisions if K == 10 else max(decisions // 4, 20)
        for name in names:
            out[f"{name} {K} {k}"] = bench(name, K, k, n, seed)
    return out


def child(tree: str, names: list[str], decisions: int, seed: int) -> dict[str, tuple[float, float]]:
    """``run_all`` in a fresh process whose ``pokerduel`` is the one in ``tree``."""
    env = dict(os.environ, PYTHONPATH=tree + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, os.path.abspath(__file__), "--json", "--decisions", str(decisions), "--seed", str(seed),
           "--selectors", ",".join(names)]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True, cwd=tree)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--decisions", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--selectors", default=DEFAULT_SELECTORS)
    ap.add_argument("--baseline", help="a second source tree to time in the same run (alternating rounds)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per tree with --baseline")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    names = args.selectors.split(",")
    if args.json:
        print(json.dumps(run_all(names, args.decisions, args.seed)))
        return
    if not args.baseline:
        res = run_all(names, args.decisions, args.seed)
        print(f"{'selector':<10} {'K':>4} {'k':>3} {'us/decision':>12} {'us/step':>10}")
        for key, (d, s) in res.items():
            name, K, k = key.split()
            print(f"{name:<10} {K:>4} {k:>3} {d:>12.1f} {s:>10.1f}")
        return
    base, runs = os.path.abspath(args.baseline), {"baseline": [], "this": []}
    for r in range(args.rounds):
        for label, tree in (("baseline", base), ("this", HERE)):
            runs[label].append(child(tree, names, args.decisions, args.seed))
            print(f"round {r + 1}/{args.rounds}: {label} done", file=sys.stderr)
    print(f"baseline: {base}; this: {HERE}; median of {args.rounds} alternating rounds")
    print(f"{'selector':<10} {'K':>4} {'k':>3} {'before us/dec':>14} {'after us/dec':>13} {'ratio':>6} "
          f"{'before us/step':>15} {'after us/step':>14}")
    for key in runs["this"][0]:
        name, K, k = key.split()
        bd, ad = (statistics.median(x[key][0] for x in runs[t]) for t in ("baseline", "this"))
        bs, as_ = (statistics.median(x[key][1] for x in runs[t]) for t in ("baseline", "this"))
        print(f"{name:<10} {K:>4} {k:>3} {bd:>14.1f} {ad:>13.1f} {bd / ad:>6.2f} {bs:>15.1f} {as_:>14.1f}")


if __name__ == "__main__":
    main()
