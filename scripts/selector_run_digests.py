"""Digests of whole selector runs on Fig 2's problems, to check that two source trees decide alike.

For each replication (the seeds of ``studies.replication_seeds``, as ``scripts/fig2.py`` uses them) and
method, it runs the Python selector to the full budget and prints the SHA-256 of its sequence of sampled
pairs and of its final top-k; with ``--compiled`` also the whole-replication kernel
(``_replicate.bayes_run``, the path the studies take) with the answer after every sample, and its
seconds. Run it under both trees and compare the digests (``diff``), e.g.

    PYTHONPATH=/tmp/before python scripts/selector_run_digests.py --reps 3 --compiled > before.txt
    python scripts/selector_run_digests.py --reps 3 --compiled > after.txt
    diff <(cut -f1-5 before.txt) <(cut -f1-5 after.txt)
"""

from __future__ import annotations

import argparse
import hashlib
import time

import numpy as np

from pokerduel.selectors import _replicate, make_selector
from pokerduel.selectors.problems import pair_arrays, pair_index_matrix
from pokerduel.selectors.studies import compiled_params, make_problem, replication_seeds

_CODES = {"uniform": 0, "pocbam": 1, "ml-pocbam": 2, "hybrid": 3}


def digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--K", type=int, default=100)
    ap.add_argument("--k", type=int, default=40)
    ap.add_argument("--budget", type=int, default=30000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--methods", default="ml-pocbam")
    ap.add_argument("--compiled", action="store_true", help="also the compiled replication, answers after every sample")
    args = ap.parse_args()
    K, k, budget = args.K, args.k, args.budget
    pi, pj = pair_arrays(K)
    pidx = pair_index_matrix(K)
    print("method\trep\tpath\tpairs\tanswers\tseconds")
    for r in range(args.reps):
        inst, noise, sel_seed = replication_seeds(args.seed, r)
        for m in args.methods.split(","):
            oracle = make_problem("thurstone", K, np.random.default_rng(inst), np.random.default_rng(noise))
            sel = make_selector(m, oracle, k, budget, rng=np.random.default_rng(sel_seed))
            t = time.perf_counter()
            top = sel.run()
            dt = time.perf_counter() - t
            tr = sel.trace
            print(f"{m}\t{r}\tpython\t{digest(tr.i, tr.j)}\t{digest(np.asarray(top))}\t{dt:.1f}", flush=True)
            if not args.compiled:
                continue
            q = compiled_params(sel)
            mask = np.zeros(K, dtype=np.int8)
            mask[oracle.true_top_k(k)] = 1
            checkpoints = np.arange(sel.warmup, budget + 1, dtype=np.int64)
            success = np.zeros(checkpoints.size, dtype=np.uint8)
            ii = np.empty(checkpoints.size)
            tops = np.empty((checkpoints.size, k), dtype=np.int64)
            t = time.perf_counter()
            _replicate.bayes_run(_CODES[m], K, k, q["n0"], pi, pj, pidx, oracle._mu, oracle._sd, oracle.noise_key,
                                 checkpoints, mask, q["var_floor"], q["fit_tol"], q["max_iter"], q["warm_start"],
                                 q["threshold"], q["per_sample"], q["unbiased"], False, success, ii, tops,
                                 q["var_prior"])
            dt = time.perf_counter() - t
            print(f"{m}\t{r}\tcompiled\t-\t{digest(tops, success)}\t{dt:.1f}", flush=True)


if __name__ == "__main__":
    main()
