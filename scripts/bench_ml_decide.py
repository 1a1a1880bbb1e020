"""ML-POCBAm's decision kernel against another tree's, on the same states in one process, interleaved.

A loaded machine swings ``bench_selectors.py``'s per-process timings by tens of per cent; here every decision
of one ML-POCBAm run (Thurstone problem, K alternatives, k = 40 at K = 100) is timed under both kernels
(``_kernels.ml_decide``, fit cache and all), each from the same state, alternating, best of ``--repeats``,
and the two must agree (pair, c, iterations, gamma, sigma^2 bit for bit).

    python scripts/bench_ml_decide.py --baseline /tmp/before [--K 100] [--decisions 250]

The baseline's ``pokerduel/selectors/_kernels.py`` is loaded from a temporary copy (its numba cache goes
there) as a sibling of this tree's module, so its relative imports resolve in this tree.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys
import tempfile
import time

import numpy as np

import pokerduel.selectors as selectors
from pokerduel.selectors import _kernels as new
from pokerduel.selectors import make_selector, thurstone


def load_baseline(tree: str, tmp: str):
    src = os.path.join(tree, "pokerduel", "selectors", "_kernels.py")
    dst = os.path.join(tmp, "_kernels_baseline.py")
    shutil.copy(src, dst)
    name = "pokerduel.selectors._kernels_baseline"
    spec = importlib.util.spec_from_file_location(name, dst)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = selectors.__name__
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="a source tree (e.g. from git archive)")
    ap.add_argument("--K", type=int, default=100)
    ap.add_argument("--k", type=int, default=40)
    ap.add_argument("--decisions", type=int, default=250)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run(load_baseline(args.baseline, tmp), args)


def run(old, args) -> None:
    K, k, seed = args.K, args.k, args.seed
    oracle = thurstone(K, np.random.default_rng(seed), np.random.default_rng(seed + 1))
    sel = make_selector("ml-pocbam", oracle, k, 3 * K * (K - 1) // 2 + args.decisions + 10,
                        rng=np.random.default_rng(seed + 2))
    sel._warmup_batch()
    cached = hasattr(old, "new_fit_cache")      # before the fit cache, ml_decide took no cache
    oC, oG = old.new_fit_cache(K, sel.pi.size) if cached else (None, None)
    og, os2 = sel._dgamma.copy(), sel._dsig2.copy()
    t_new, t_old, same = [], [], True

    def decide():
        nonlocal same
        s = sel
        init = not (s.warm_start and s._decisions > 1)
        s._decisions += 1
        C, G = s._fit_cache
        mine = (s._dgamma, s._dsig2, C, G)
        theirs = (og, os2) + ((oC, oG) if cached else ())
        snap_new = [a.copy() for a in mine]
        snap_old = [a.copy() for a in theirs]
        head = (s.K, s.k, s.pidx, s.pi, s.pj, s.n, s._counts, s.xbar, s.m2)
        tail = (init, s.var_floor, s.fit_tol, s.max_iter, s._mu, s._var, s.var_prior)
        bn = bo = np.inf
        for _ in range(args.repeats):
            for a, b in zip(mine, snap_new):
                a[...] = b
            t = time.perf_counter()
            rn = new.ml_decide(*head, s._dgamma, s._dsig2, *tail, C, G)
            bn = min(bn, time.perf_counter() - t)
            for a, b in zip(theirs, snap_old):
                a[...] = b
            t = time.perf_counter()
            ro = old.ml_decide(*head, og, os2, *tail, *theirs[2:])
            bo = min(bo, time.perf_counter() - t)
        same &= rn == ro and bool((og == s._dgamma).all() and (os2 == s._dsig2).all())
        t_new.append(bn)
        t_old.append(bo)
        s._adopt_decision_fit(rn[2])
        return int(rn[0])

    sel._decide = decide
    for _ in range(args.decisions):
        sel.step()
    skip = min(10, args.decisions // 5)          # the first decisions refit from further away
    tn, to = np.array(t_new[skip:]) * 1e6, np.array(t_old[skip:]) * 1e6
    print(f"K={K} k={k}: {tn.size} decisions, us/decision (mean of best of {args.repeats}): "
          f"baseline {to.mean():.1f}, this tree {tn.mean():.1f}, ratio {to.mean() / tn.mean():.2f} "
          f"(medians {np.median(to):.1f} / {np.median(tn):.1f}); decisions identical: {same}")


if __name__ == "__main__":
    main()
