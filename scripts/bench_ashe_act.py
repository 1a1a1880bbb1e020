"""ns per ``ashe_act`` call on eight fixed decision points (preflop to facing an all-in), best of 5.

    python scripts/bench_ashe_act.py                         # this tree
    PYTHONPATH=/tmp/before python scripts/bench_ashe_act.py  # an older tree, e.g. from git archive

Decisions repeat on one memory bank, so the committed LSTM state evolves as in a hand.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from pokerduel.engine.rules import MAX_ACTIONS_PER_HAND, S_ACTOR, HandState, raise_range
from pokerduel.play.populations import new_population
from pokerduel.players import ashe
from pokerduel.players.genomes import ashe_player, handbuilt_genome


@numba.njit
def _loop(params, imem, fmem, sts, hists, los, his, strengths, n):
    s = 0
    for d in range(n):
        j = d % sts.shape[0]
        a, amt = ashe.ashe_act(params, imem, fmem, 0, sts[j, S_ACTOR], sts[j], los[j], his[j], hists[j], strengths[j])
        s += a + amt
    return s


def decision_points(repeat=5):
    seqs = [(), ("c",), (300,), (300, 900), ("c", "c"), (300, "c", "c"), (19900,), ("c", 600, 20000)]
    sts, hists, los, his = [], [], [], []
    for seq in seqs:
        h = HandState()
        for x in seq:
            h.call() if x == "c" else h.raise_to(x)
        hist = np.zeros((MAX_ACTIONS_PER_HAND, 4), np.int64)
        for i, row in enumerate(h.actions):
            hist[i] = row
        lo, hi = raise_range(h.st)
        sts.append(h.st.copy())
        hists.append(hist)
        los.append(lo)
        his.append(hi)
    return (np.repeat(np.array(sts), repeat, axis=0), np.repeat(np.array(hists), repeat, axis=0),
            np.repeat(np.array(los, np.int64), repeat), np.repeat(np.array(his, np.int64), repeat),
            np.linspace(0.1, 0.9, len(seqs) * repeat))


def main():
    points = decision_points()
    out = []
    for name, p in (("hand-built", ashe_player(handbuilt_genome())), ("random 1:0", new_population(3, 1).player(0)),
                    ("random 1:1", new_population(3, 1).player(1))):
        imem, fmem = p.new_memory()
        ashe.ashe_reset(p.params, imem[0], fmem[0])
        _loop(p.params, imem, fmem, *points, 10)
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            _loop(p.params, imem, fmem, *points, 200_000)
            best = min(best, time.perf_counter() - t0)
        out.append(f"{name}: {best / 200_000 * 1e9:,.0f} ns")
    print("ashe_act per decision: " + ", ".join(out))


if __name__ == "__main__":
    main()
