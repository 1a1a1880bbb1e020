"""Compute the exact preflop hand-strength table, pokerduel/data/preflop_hs.npy.

    python scripts/build_preflop_table.py        # about two minutes on two cores

For each of the 2,598,960 boards, the 1,081 hole-card pairs that miss the board are evaluated and
sorted once; walking them in value order with per-card counters gives, for every pair, how many
card-disjoint opponent pairs it beats and ties (inclusion-exclusion on the two shared cards). Summed
over boards this is P(win) + P(tie)/2 against a uniformly random opponent hand with every roll-out,
exactly. Every combination of a class must come out identical (suit symmetry); the script checks it.
Entry [hi, lo] is the suited class, [lo, hi] the offsuit one and [r, r] the pair.
"""

from pathlib import Path

import numba
import numpy as np

from pokerduel.engine.evaluator import eval7


@numba.njit(cache=True)
def _board_counts(b0, b1, b2, b3, b4, wins, ties, vals, ca, cb, cnt, gcnt):
    one = np.uint64(1)
    used = (one << np.uint64(b0)) | (one << np.uint64(b1)) | (one << np.uint64(b2)) | (one << np.uint64(b3))
    used |= one << np.uint64(b4)
    n = 0
    for a in range(51):
        if used >> np.uint64(a) & np.uint64(1):
            continue
        for b in range(a + 1, 52):
            if used >> np.uint64(b) & np.uint64(1):
                continue
            vals[n] = eval7(a, b, b0, b1, b2, b3, b4)
            ca[n] = a
            cb[n] = b
            n += 1
    order = np.argsort(vals[:n])
    cnt[:] = 0
    processed = 0
    i = 0
    while i < n:
        j = i
        v = vals[order[i]]
        while j < n and vals[order[j]] == v:
            k = order[j]
            gcnt[ca[k]] += 1
            gcnt[cb[k]] += 1
            j += 1
        size = j - i
        for m in range(i, j):
            k = order[m]
            a, b = ca[k], cb[k]
            wins[a, b] += processed - cnt[a] - cnt[b]
            ties[a, b] += size - gcnt[a] - gcnt[b] + 1
        for m in range(i, j):
            k = order[m]
            cnt[ca[k]] += 1
            cnt[cb[k]] += 1
            gcnt[ca[k]] = 0
            gcnt[cb[k]] = 0
        processed += size
        i = j


@numba.njit(parallel=True, cache=True)
def _all_boards():
    wins = np.zeros((48, 52, 52), dtype=np.int64)
    ties = np.zeros((48, 52, 52), dtype=np.int64)
    for b0 in numba.prange(48):
        vals = np.empty(1081, dtype=np.int32)
        ca = np.empty(1081, dtype=np.int64)
        cb = np.empty(1081, dtype=np.int64)
        cnt = np.zeros(52, dtype=np.int64)
        gcnt = np.zeros(52, dtype=np.int64)
        for b1 in range(b0 + 1, 49):
            for b2 in range(b1 + 1, 50):
                for b3 in range(b2 + 1, 51):
                    for b4 in range(b3 + 1, 52):
                        _board_counts(b0, b1, b2, b3, b4, wins[b0], ties[b0], vals, ca, cb, cnt, gcnt)
    return wins.sum(axis=0), ties.sum(axis=0)


def build_table() -> np.ndarray:
    wins, ties = _all_boards()
    total = 2_118_760 * 990  # boards missing the hand times opponent hands missing both
    table = np.full((13, 13), np.nan)
    for a in range(52):
        for b in range(a + 1, 52):
            ra, rb = a >> 2, b >> 2
            hi, lo = max(ra, rb), min(ra, rb)
            i, j = (hi, lo) if (a & 3) == (b & 3) else (lo, hi)
            hs = (wins[a, b] + 0.5 * ties[a, b]) / total
            if np.isnan(table[i, j]):
                table[i, j] = hs
            elif table[i, j] != hs:
                raise AssertionError(f"suit symmetry broken for cards {a}, {b}")
    return table


if __name__ == "__main__":
    out = Path(__file__).resolve().parents[1] / "pokerduel" / "data" / "preflop_hs.npy"
    table = build_table()
    np.save(out, table)
    print(f"wrote {out}; AA={table[12, 12]:.5f} AKs={table[12, 11]:.5f} AKo={table[11, 12]:.5f} 72o={table[0, 5]:.5f}")
