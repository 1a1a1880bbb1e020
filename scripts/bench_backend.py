"""Per-task cost of the multiprocess backend: trivial tasks and tasks that carry 800 kB, alternating with
another tree's backend in the same run (``--baseline DIR``, e.g. a ``git archive`` of an older commit).

    python scripts/bench_backend.py --baseline /tmp/old --rounds 3
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

from pokerduel.infra import parallel


def _double(item):
    return item[0] * 2


def _load(tree: Path):
    spec = importlib.util.spec_from_file_location("baseline_parallel", tree / "pokerduel" / "infra" / "parallel.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its functions pickle by reference, as this tree's do
    spec.loader.exec_module(module)  # the module imports only the standard library and multiprocess
    return module


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, help="another tree whose backend is measured alongside")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    trees = [("this", parallel)] + ([("baseline", _load(args.baseline))] if args.baseline else [])
    small = [(i,) for i in range(3000)]
    big = [(i, np.zeros(100_000)) for i in range(300)]
    print("| round | tree | µs per small task | µs per 800 kB task |\n|---|---|---|---|")
    for r in range(args.rounds):
        for name, module in trees:
            with module.get_backend("multiprocess", workers=args.workers) as b:
                list(b.map_unordered(_double, small[:10]))  # start the workers
                t0 = time.perf_counter()
                list(b.map_unordered(_double, small))
                t1 = time.perf_counter()
                list(b.map_unordered(_double, big))
                t2 = time.perf_counter()
            print(f"| {r} | {name} | {(t1 - t0) / len(small) * 1e6:.0f} | {(t2 - t1) / len(big) * 1e6:.0f} |", flush=True)


if __name__ == "__main__":
    main()
