"""Replay a run's selections on their recorded samples: the same decisions, timed without the engine.

For each chosen generation of an evolution run file (a selector-driven mode), the run's selector is built
as the run built it and fed the generation's recorded samples in the order it asks for them (no deals
are played), in one thread. Prints whether it asks for exactly the recorded pairs (so a change to the
selectors can be checked against real runs), its decisions by mode, and the time per decision, in total
and in the decision kernels. The time is the deciding thread's alone, so it is a fair comparison of
selector code on a busy machine (``docs/benchmarks.md``). ``--ties`` instead reports, for each run file,
the generations that ended in the hybrid's ML-POCBAm mode and in how many of them the candidates around
the k-th place had model scores equal to within 10⁻⁶ (``docs/results/evolution.md`` §3).

    python scripts/replay_selection.py runs/hbp_mixed_w63/seed1.h5 --generations 1,58,60
    python scripts/replay_selection.py runs/hbp_mixed_w63/seed1.h5 runs/hbm_mixed_w63/seed*.h5 --ties
"""

from __future__ import annotations

import argparse
import sys
import time

import h5py
import numpy as np

from pokerduel.evolution.evolve import load_run, repeating
from pokerduel.selectors import SELECTORS, _fused
from pokerduel.selectors import _kernels as kern

#: the decision kernels timed (module, name)
KERNELS = ((_fused, "pocbam_decide_fused_w"), (_fused, "hybrid_decide_w"), (kern, "hybrid_decide_w"),
           (kern, "ml_choose_w"), (kern, "ml_decide_w"), (kern, "pocbam_decide"), (kern, "ml_choose"),
           (kern, "ml_decide"), (kern, "hybrid_decide"))


class RecordedOracle:
    """Answers ``sample(i, j)`` with the next recorded sample of the pair."""

    def __init__(self, K: int, ti, tj, tx):
        self.K = K
        self._samples: dict = {}
        for i, j, x in zip(ti.tolist(), tj.tolist(), tx.tolist()):
            self._samples.setdefault((i, j), []).append(x)
        self._next = dict.fromkeys(self._samples, 0)

    def sample(self, i, j):
        key = (i, j)
        t = self._next[key]
        self._next[key] = t + 1
        return self._samples[key][t]


def _timed(seconds: dict):
    """Wrap the decision kernels so that their time adds up in ``seconds`` (undone by the returned call)."""
    saved = []
    for mod, name in KERNELS:
        f = getattr(mod, name, None)
        if f is None:           # an older tree (a baseline on PYTHONPATH) keeps it elsewhere
            continue

        def g(*args, _f=f, _name=name):
            t = time.perf_counter()
            out = _f(*args)
            seconds[_name] = seconds.get(_name, 0.0) + time.perf_counter() - t
            return out

        saved.append((mod, name, f))
        setattr(mod, name, g)

    def undo():
        for mod, name, f in saved:
            setattr(mod, name, f)
    return undo


def replay(path: str, generation: int, group) -> dict:
    cfg = load_run(path).config
    if cfg.fitness != "selector":
        raise SystemExit(f"{path}: fitness {cfg.fitness!r} has no selector to replay")
    ti, tj = group["trace_i"][generation], group["trace_j"][generation]
    tx = group["trace_x"][generation].astype(np.float64)
    present = int(np.sum(group["hall"][generation] >= 0))
    K = cfg.population + len(cfg.opponents) + present
    cls = repeating(SELECTORS[cfg.selector], cfg.repeat)
    sel = cls(RecordedOracle(K, ti, tj, tx), cfg.keep, cfg.budget, n0=cfg.n0, rng=np.random.default_rng(0),
              **cfg.run_options, **cfg.weight_options(present), **cfg.selector_options)
    seconds: dict = {}
    undo = _timed(seconds)
    try:
        t0 = time.perf_counter()
        sel.run(thread=False) if sel.lag else sel.run()
        wall = time.perf_counter() - t0
    finally:
        undo()
    decisions = max(sel.used - sel.warmup, 1)
    modes = np.bincount(sel.mode_trace[sel.warmup:], minlength=3)[1:] if hasattr(sel, "mode_trace") else None
    same = bool(np.array_equal(sel.trace.i, ti) and np.array_equal(sel.trace.j, tj))
    return {"same": same, "modes": modes, "us": 1e6 * wall / decisions,
            "kernels": {k: 1e6 * v / decisions for k, v in seconds.items()}}


def ml_ties(path: str) -> tuple[int, int, float]:
    """(generations that ended in ML-POCBAm mode, those with a tie at the k-th place, ML share of decisions)."""
    with h5py.File(path, "r") as h:
        group = h["generations"]
        final = group["final_mode"][:]
        tied = 0
        for g in np.flatnonzero(final == 1):
            scores = np.sort(group["scores"][g])[::-1]
            kth = scores[len(group["survivors"][g]) - 1]
            tied += int(np.sum(np.abs(scores - kth) <= 1e-6 * max(1.0, abs(kth))) > 1)
        return int(np.sum(final == 1)), tied, float(np.nanmean(group["ml_fraction"][:]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_files", nargs="+")
    ap.add_argument("--generations", default="1", help="comma-separated generation indices")
    ap.add_argument("--ties", action="store_true", help="report the ML-POCBAm generations' ties instead")
    args = ap.parse_args(argv)
    if args.ties:
        print("| run | generations ended in ML-POCBAm mode | of them tied at the k-th place | ML share of decisions |")
        print("|---|---|---|---|")
        for path in args.run_files:
            n, tied, share = ml_ties(path)
            print(f"| {path} | {n} | {tied} | {share:.1%} |")
        return 0
    gens = [int(g) for g in args.generations.split(",")]
    print("| run | generation | same pairs as the run | decisions: ML-POCBAm / POCBAm mode | µs a decision "
          "| of it in kernels |")
    print("|---|---|---|---|---|---|")
    for path in args.run_files:
        with h5py.File(path, "r") as h:
            group = h["generations"]
            for g in gens:
                r = replay(path, g, group)
                modes = "" if r["modes"] is None else f"{r['modes'][0]:,} / {r['modes'][1]:,}"
                kernels = ", ".join(f"`{k}` {v:.1f}" for k, v in r["kernels"].items() if v >= 0.05)
                print(f"| {path} | {g} | {'yes' if r['same'] else '**no**'} | {modes} | {r['us']:.1f} | {kernels} |",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
