"""Build the seven-card evaluator's lookup tables (run by ``scripts/build_evaluator_tables.py``).

The evaluator adds one 64-bit key per card: ``5**rank << 16`` plus a suit nibble ``1 << 4*suit``.
The upper part is the base-5 number of rank counts (unique for each rank multiset); the lower part
counts suits, started at 3 so that a nibble reaches 8 exactly when a suit holds five or more cards.

* Non-flush hands: the 49,205 rank multisets of seven cards are placed in a 2**16-slot table by a
  hash-and-displace perfect hash (bucket from one multiply-shift, slot from another XOR a per-bucket
  displacement), so a lookup is two small-table reads.
* Flush hands: the 13-bit rank mask of the flush suit indexes an 8192-entry table.

Values are ``category << 12 | r`` with ``r`` the dense rank of the hand within its category among
seven-card hands, so higher is better, equal hands are equal, and ``value >> 12`` is the category.
"""

from __future__ import annotations

import itertools

import numpy as np

HASH_MUL_BUCKET = 0x9E3779B97F4A7C15
HASH_MUL_SLOT = 0xC2B2AE3D27D4EB4F
BUCKET_BITS = 14
SLOT_BITS = 16
SUIT_KEY_INIT = 0x3333
FLUSH_BITS = 0x8888
_MASK64 = (1 << 64) - 1

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)


def _straight_top(mask: int) -> int:
    """Top rank of the best straight in a 13-bit rank mask, or -1; the wheel A-2-3-4-5 has top 3 (the 5)."""
    for top in range(12, 3, -1):
        need = 0x1F << (top - 4)
        if mask & need == need:
            return top
    if mask & 0x100F == 0x100F:  # A,2,3,4,5
        return 3
    return -1


def _encode(category: int, ranks: list[int]) -> int:
    """Order-preserving integer of (category, ranks...) for sorting within and across categories."""
    value = category
    for r in (ranks + [0, 0, 0, 0, 0])[:5]:
        value = value * 13 + r
    return value


def rank_multiset_value(counts) -> int:
    """Raw value of the best five-card hand from rank counts when no flush is possible."""
    present = [r for r in range(12, -1, -1) if counts[r] > 0]
    quads = [r for r in range(12, -1, -1) if counts[r] >= 4]
    trips = [r for r in range(12, -1, -1) if counts[r] == 3]
    pairs = [r for r in range(12, -1, -1) if counts[r] == 2]
    if quads:
        q = quads[0]
        return _encode(QUADS, [q, next(r for r in present if r != q)])
    if trips and (len(trips) >= 2 or pairs):
        t = trips[0]
        p = max([r for r in trips[1:]] + pairs)
        return _encode(FULL_HOUSE, [t, p])
    mask = sum(1 << r for r in present)
    top = _straight_top(mask)
    if top >= 0:
        return _encode(STRAIGHT, [top])
    if trips:
        t = trips[0]
        return _encode(TRIPS, [t] + [r for r in present if r != t][:2])
    if len(pairs) >= 2:
        p1, p2 = pairs[:2]
        return _encode(TWO_PAIR, [p1, p2, next(r for r in present if r not in (p1, p2))])
    if pairs:
        p = pairs[0]
        return _encode(PAIR, [p] + [r for r in present if r != p][:3])
    return _encode(HIGH_CARD, present[:5])


def flush_mask_value(mask: int) -> int:
    """Raw value of the best hand among the flush suit's ranks (5 to 7 bits set)."""
    top = _straight_top(mask)
    if top >= 0:
        return _encode(STRAIGHT_FLUSH, [top])
    return _encode(FLUSH, [r for r in range(12, -1, -1) if mask >> r & 1][:5])


def seven_card_rank_multisets() -> np.ndarray:
    """All (49,205) rank-count vectors with seven cards and at most four of a rank, shape (n, 13)."""
    out = []
    for combo in itertools.combinations_with_replacement(range(13), 7):
        counts = [0] * 13
        for r in combo:
            counts[r] += 1
        if max(counts) <= 4:
            out.append(counts)
    return np.array(out, dtype=np.int64)


def _hash_bucket(key: int) -> int:
    return ((key * HASH_MUL_BUCKET) & _MASK64) >> (64 - BUCKET_BITS)


def _hash_slot(key: int) -> int:
    return ((key * HASH_MUL_SLOT) & _MASK64) >> (64 - SLOT_BITS)


def build_tables() -> dict[str, np.ndarray]:
    """Compute every table from first principles; deterministic, about a second."""
    multisets = seven_card_rank_multisets()
    raw_rank = np.array([rank_multiset_value(c) for c in multisets], dtype=np.int64)
    masks = [m for m in range(1 << 13) if 5 <= bin(m).count("1") <= 7]
    raw_flush = np.array([flush_mask_value(m) for m in masks], dtype=np.int64)

    # Dense rank within each category among the values seven-card hands can take.
    raw_all = np.unique(np.concatenate([raw_rank, raw_flush]))
    span = 13**5
    category = raw_all // span
    dense = np.empty(len(raw_all), dtype=np.int64)
    for c in range(9):
        idx = np.nonzero(category == c)[0]
        dense[idx] = np.arange(len(idx))
    value_of = dict(zip(raw_all.tolist(), (category << 12 | dense).tolist()))

    flush = np.zeros(1 << 13, dtype=np.uint16)
    for m, raw in zip(masks, raw_flush.tolist()):
        flush[m] = value_of[raw]

    keys = (multisets * (5 ** np.arange(13, dtype=np.int64))).sum(axis=1).tolist()
    values = [value_of[r] for r in raw_rank.tolist()]
    disp, slots = _perfect_hash(keys, values)
    return {"flush": flush, "displacement": disp, "rank_values": slots}


def _perfect_hash(keys: list[int], values: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Hash-and-displace: biggest buckets first, each gets the first XOR displacement with free slots."""
    n_slots = 1 << SLOT_BITS
    buckets: dict[int, list[int]] = {}
    for i, k in enumerate(keys):
        buckets.setdefault(_hash_bucket(k), []).append(i)
    used = np.zeros(n_slots, dtype=bool)
    table = np.zeros(n_slots, dtype=np.uint16)
    disp = np.zeros(1 << BUCKET_BITS, dtype=np.uint16)
    for b, members in sorted(buckets.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        g = [_hash_slot(keys[i]) for i in members]
        if len(set(g)) != len(g):
            raise RuntimeError("slot hash collides inside a bucket; choose other multipliers")
        for d in range(n_slots):
            pos = [x ^ d for x in g]
            if not used[pos].any():
                break
        else:  # pragma: no cover - the table is three-quarters empty
            raise RuntimeError("perfect hash failed")
        used[pos] = True
        table[pos] = [values[i] for i in members]
        disp[b] = d
    return disp, table


def save_tables(path) -> None:
    np.savez(path, **build_tables())
