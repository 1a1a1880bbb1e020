"""Dask's local-cluster overhead on a ground truth, against the multiprocess backend on the same job.

Runs ``run_ground_truth`` (what ``pokerduel ground-truth`` runs) with each backend in ABBA order, so that
a slow drift of the machine's speed cancels, and prints each wall time, the summed in-task pair
seconds and Dask's overhead. Usage (the issue's full job, ~13 minutes on 2 cores)::

    python scripts/bench_dask_overhead.py --populations 10 --size 10 --hands 20000 --workers 2
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from pokerduel.infra.parallel import get_backend
from pokerduel.play.ground_truth import load_ground_truth, parts_dir, random_job, run_ground_truth


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--populations", type=int, default=10)
    ap.add_argument("--size", type=int, default=10)
    ap.add_argument("--hands", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--order", default="multiprocess,dask,dask,multiprocess")
    args = ap.parse_args(argv)
    job = random_job(args.populations, args.size, args.hands, args.seed)
    walls: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n, name in enumerate(args.order.split(",")):
            out = Path(tmp) / f"gt{n}_{name}.h5"
            shutil.rmtree(parts_dir(out), ignore_errors=True)
            with get_backend(name, workers=args.workers) as backend:
                t0 = time.perf_counter()
                run_ground_truth(job, out, backend, overwrite=True)
                wall = time.perf_counter() - t0
            pair_s = float(load_ground_truth(out).attrs["pair_seconds_total"])
            walls.setdefault(name, []).append(wall)
            print(f"{name:12s} wall {wall:7.1f} s   summed pair seconds {pair_s:7.1f} s", flush=True)
    if "dask" in walls and "multiprocess" in walls:
        mp = sum(walls["multiprocess"]) / len(walls["multiprocess"])
        dk = sum(walls["dask"]) / len(walls["dask"])
        print(f"Dask overhead over multiprocess: {100 * (dk / mp - 1):+.1f} % (mean walls {dk:.1f} s, {mp:.1f} s)")


if __name__ == "__main__":
    main()
