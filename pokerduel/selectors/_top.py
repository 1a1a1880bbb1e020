"""SELECT/TOP (Mohajer, Suh & Elmahdy 2017) as a numba state machine fed one comparison at a time.

The same kernels drive the ``SelectTop`` selector (one oracle sample per ``step``) and the compiled
replication loop of the studies, so both give the same answer on the same samples.

**The tournament tree.** Leaf *slots* ``0..K-1`` (slot ``s`` holds item ``order[s]``) are split into ``k``
groups by striding (group ``g`` = slots ``g, g+k, g+2k, ...``; sizes differ by at most one when k does not
divide K). Each group is a single-elimination bracket: the survivors of a layer are paired consecutively
and an odd one out gets a **bye** (it advances without a comparison). The ``k`` group roots are joined by
a bracket built the same way. The tree has ``K - 1`` internal nodes, created layer by layer (children
before parents): node ``K + m`` is the m-th match of the initial phase. Its root winner is the first
output; SELECT (k = 1) is this phase alone, ``K - 1`` matches.

**Replacement (TOP).** To find output ``r + 1``, output ``r`` is removed from its leaf and the matches on
its path to the root are replayed: a node whose two sides still hold items is a new match (the removed
item had won all of them, so the side it came from has a new winner); a node with an empty side passes
the other side's winner up without a comparison (a walkover). This is the group re-SELECT restricted to
the matches the removed item took part in, followed by its group's re-insertion into the bracket of group
winners, which plays the role of the paper's heap.

**Budget.** The number of matches depends on the outcomes (walkovers), so comparisons are dealt out match
by match: a match gets ``floor(R / W)`` comparisons, ``R`` being the budget left and ``W`` the matches
left if every later replacement costs its current worst case (exact for the path being replayed), plus
one reserved for a confirmation match. The last replacement path spends all of ``R``. If the k-th output
came by walkovers only, the rest of the budget plays one more replacement (to find the runner-up) and a
**confirmation match** between the k-th output and the runner-up, whose winner becomes the k-th output.
With ``budget = nu * max_matches(K, k)`` every match gets at least ``nu`` comparisons; for SELECT every
match gets exactly ``nu`` (``(K - 1) nu`` in all). A match is won by the sign of the sum of its scores
(``majority``: the sign of the number of won comparisons); ties go to a fair coin (the selector's key) or
to the first item.
"""

from __future__ import annotations

import numba
import numpy as np

from . import _rng

# int state
PHASE, Q, PLEN, PPOS, PC, PDONE, PATHS, R, NODE, A, B, ALLOC, DONE, NOUT, NMATCH, PCUR, K_, KK, WINNER = range(19)
N_STATE = 19
# phases
INIT, PATH, CONF_PATH, CONF, FINISHED = range(5)


def _njit(fn):
    return numba.njit(cache=True, error_model="numpy")(fn)


def build_tree(K: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(left, right, parent)`` of the tournament tree over leaf slots ``0..K-1`` (see the module doc)."""
    size = 2 * K - 1
    left = np.full(size, -1, dtype=np.int64)
    right = np.full(size, -1, dtype=np.int64)
    parent = np.full(size, -1, dtype=np.int64)
    nxt = K

    def bracket(layer):
        nonlocal nxt
        while len(layer) > 1:
            new = []
            for a in range(0, len(layer) - 1, 2):
                left[nxt], right[nxt] = layer[a], layer[a + 1]
                parent[layer[a]] = parent[layer[a + 1]] = nxt
                new.append(nxt)
                nxt += 1
            if len(layer) % 2:
                new.append(layer[-1])            # bye
            layer = new
        return layer[0]

    roots = [bracket(list(range(g, K, k))) for g in range(k)]
    root = bracket(roots)
    assert nxt == size and root == size - 1
    return left, right, parent


@_njit
def path_cost(leaf, left, right, parent, live):
    """Matches a replay would need if ``leaf`` were removed now (walkovers are free)."""
    c = 0
    child = leaf
    v = parent[leaf]
    while v >= 0:
        other = right[v] if left[v] == child else left[v]
        if live[child] > 1 and live[other] > 0:
            c += 1
        child = v
        v = parent[v]
    return c


@_njit
def max_cost(K, left, right, parent, live):
    """The worst case of ``path_cost`` over the live leaves: a bound for every later replacement."""
    m = 0
    for s in range(K):
        if live[s] > 0:
            c = path_cost(s, left, right, parent, live)
            if c > m:
                m = c
    return m


@_njit
def max_matches(K, k, left, right, parent):
    """The most matches TOP can play: ``K - 1`` + ``(k - 1)`` worst replacements + a confirmation."""
    live = np.ones(2 * K - 1, dtype=np.int64)
    for v in range(K, 2 * K - 1):
        live[v] = live[left[v]] + live[right[v]]
    if k == 1:
        return K - 1
    return K - 1 + (k - 1) * max_cost(K, left, right, parent, live) + 1


@_njit
def _remove(s, st, parent, live, win, path, left, right):
    """Remove leaf ``s``; its ancestors become the path to replay."""
    live[s] = 0
    win[s] = -1
    n = 0
    v = parent[s]
    while v >= 0:
        live[v] -= 1
        path[n] = v
        n += 1
        v = parent[v]
    c = 0
    for t in range(n):
        v = path[t]
        if live[left[v]] > 0 and live[right[v]] > 0:
            c += 1
    st[PLEN] = n
    st[PPOS] = 0
    st[PC] = c
    st[PDONE] = 0


@_njit
def _set_match(st, fs, node, a, b, W):
    st[NODE] = node
    st[A] = a
    st[B] = b
    st[ALLOC] = st[R] // W
    st[DONE] = 0
    fs[0] = 0.0


@_njit
def advance(st, fs, left, right, parent, win, live, out, path):
    """Move to the next match that needs comparisons; False once the k outputs are final."""
    K = st[K_]
    k = st[KK]
    root = 2 * K - 2
    while True:
        ph = st[PHASE]
        if ph == INIT:
            q = st[Q]
            if q <= root:
                W = (root - q + 1) + st[PATHS] * st[PCUR] + (1 if k >= 2 else 0)
                _set_match(st, fs, q, win[left[q]], win[right[q]], W)
                return True
            out[0] = win[root]
            st[NOUT] = 1
            if k == 1:
                st[PHASE] = FINISHED
                return False
            _remove(out[0], st, parent, live, win, path, left, right)
            st[PATHS] -= 1
            st[PCUR] = max_cost(K, left, right, parent, live) if st[PATHS] > 0 else 0
            st[PHASE] = PATH
            continue
        if ph == PATH or ph == CONF_PATH:
            while st[PPOS] < st[PLEN]:
                v = path[st[PPOS]]
                lc = left[v]
                rc = right[v]
                if live[lc] > 0 and live[rc] > 0:
                    rem = st[PC] - st[PDONE]
                    if ph == CONF_PATH:
                        W = rem + 1
                    elif st[PATHS] == 0:
                        W = rem
                    else:
                        W = rem + st[PATHS] * st[PCUR] + 1
                    _set_match(st, fs, v, win[lc], win[rc], W)
                    return True
                win[v] = win[lc] if live[lc] > 0 else (win[rc] if live[rc] > 0 else -1)
                st[PPOS] += 1
            if ph == CONF_PATH:
                st[PHASE] = CONF
                _set_match(st, fs, root, out[k - 1], win[root], 1)
                return True
            out[st[NOUT]] = win[root]
            st[NOUT] += 1
            if st[NOUT] == k:
                if st[R] > 0:            # the k-th output came by walkovers: confirm it
                    _remove(out[k - 1], st, parent, live, win, path, left, right)
                    st[PHASE] = CONF_PATH
                    continue
                st[PHASE] = FINISHED
                return False
            _remove(out[st[NOUT] - 1], st, parent, live, win, path, left, right)
            st[PATHS] -= 1
            st[PCUR] = max_cost(K, left, right, parent, live) if st[PATHS] > 0 else 0
            continue
        return False


@_njit
def init(K, k, budget, left, right, parent, st, fs, win, live, wins, out, path):
    """Fresh state for a run with ``budget`` comparisons; sets the first match. False if none is needed."""
    for s in range(K):
        win[s] = s
        live[s] = 1
        wins[s] = 0
    for v in range(K, 2 * K - 1):
        win[v] = -1
        live[v] = live[left[v]] + live[right[v]]
    for t in range(out.size):
        out[t] = -1
    for t in range(st.size):
        st[t] = 0
    st[K_] = K
    st[KK] = k
    st[PHASE] = INIT
    st[Q] = K
    st[R] = budget
    st[PATHS] = k - 1
    st[PCUR] = max_cost(K, left, right, parent, live)
    st[WINNER] = -1
    return advance(st, fs, left, right, parent, win, live, out, path)


@_njit
def feed(dsum, count, st, fs, left, right, parent, win, live, wins, out, path, tie_first, tie_key):
    """Add ``count`` comparisons of the current match whose scores (or, for the majority rule, signs)
    from ``A``'s point of view sum to ``dsum``. Returns True while further comparisons are needed."""
    st[DONE] += count
    st[R] -= count
    fs[0] += dsum
    if st[DONE] < st[ALLOC]:
        return True
    a = st[A]
    b = st[B]
    if fs[0] > 0.0:
        w = a
    elif fs[0] < 0.0:
        w = b
    elif tie_first:
        w = a
    else:
        w = a if _rng.uniform_at(tie_key, st[NMATCH]) < 0.5 else b
    st[WINNER] = w
    st[NMATCH] += 1
    wins[w] += 1
    ph = st[PHASE]
    if ph == INIT:
        win[st[NODE]] = w
        st[Q] += 1
    elif ph == CONF:
        out[st[KK] - 1] = w
        st[PHASE] = FINISHED
        return False
    else:
        win[st[NODE]] = w
        st[PPOS] += 1
        st[PDONE] += 1
    return advance(st, fs, left, right, parent, win, live, out, path)


@_njit
def _run(K, k, budget, left, right, parent, order, pidx, mu, sd, skeys, table, cnt, majority, tie_first, tie_key,
         st, fs, win, live, wins, out, path):
    """One run with ``budget``; samples from ``table`` (pair ``p``'s t-th sample ``table[p, t]``) when it has
    rows, else from the counter streams ``mu[p] + sd[p] * normal``."""
    use_table = table.shape[0] > 0
    for p in range(cnt.size):
        cnt[p] = 0
    used = 0
    more = init(K, k, budget, left, right, parent, st, fs, win, live, wins, out, path)
    while more:
        i = order[st[A]]
        j = order[st[B]]
        p = pidx[i, j]
        sgn = 1.0 if i < j else -1.0
        need = st[ALLOC] - st[DONE]
        acc = 0.0
        for _ in range(need):
            if use_table:
                x = sgn * table[p, cnt[p]]
            else:
                x = sgn * (mu[p] + sd[p] * _rng.normal_at(skeys[p], cnt[p]))
            cnt[p] += 1
            acc += (1.0 if x > 0.0 else (-1.0 if x < 0.0 else 0.0)) if majority else x
        used += need
        more = feed(acc, need, st, fs, left, right, parent, win, live, wins, out, path, tie_first, tie_key)
    return used


@_njit
def run_counter(K, k, budget, left, right, parent, order, pidx, mu, sd, key, majority, tie_first, tie_key,
                out_items):
    """A whole SELECT/TOP run on a Gaussian oracle with counter streams (``problems``' ``"counter"``):
    pair ``p`` (``i < j``) gives ``mu[p] + sd[p] * normal_at(stream_key(key, p), n_p)``. Fills
    ``out_items`` with the k outputs (items, best first); returns the comparisons made."""
    budgets = np.full(1, budget, dtype=np.int64)
    truth = np.zeros(K, dtype=np.int8)
    success = np.zeros(1, dtype=np.uint8)
    return run_curve(K, k, budgets, left, right, parent, order, pidx, mu, sd, key, majority, tie_first, tie_key,
                     truth, success, out_items)


@_njit
def run_curve(K, k, budgets, left, right, parent, order, pidx, mu, sd, key, majority, tie_first, tie_key, truth,
              success, out_items):
    """One SELECT/TOP run per budget (the runs share the oracle's streams from their start): ``success[c]`` is 1
    when the run with ``budgets[c]`` finds the true set (``truth`` a 0/1 mask over items); ``out_items`` holds
    the last run's outputs. Returns the comparisons of the last run."""
    return _curve(K, k, budgets, left, right, parent, order, pidx, mu, sd, key, np.empty((0, 0)), majority,
                  tie_first, tie_key, truth, success, out_items)


@_njit
def run_curve_table(K, k, budgets, left, right, parent, order, pidx, table, majority, tie_first, tie_key, truth,
                    success, out_items):
    """``run_curve`` on recorded samples: pair ``p``'s t-th sample is ``table[p, t]`` (each row must hold
    ``budgets[-1]`` samples or as many as a run can ask of one pair)."""
    P = table.shape[0]
    return _curve(K, k, budgets, left, right, parent, order, pidx, np.zeros(P), np.zeros(P), np.uint64(0), table,
                  majority, tie_first, tie_key, truth, success, out_items)


@_njit
def _curve(K, k, budgets, left, right, parent, order, pidx, mu, sd, key, table, majority, tie_first, tie_key, truth,
           success, out_items):
    size = 2 * K - 1
    st = np.zeros(N_STATE, dtype=np.int64)
    fs = np.zeros(1)
    win = np.empty(size, dtype=np.int64)
    live = np.empty(size, dtype=np.int64)
    wins = np.empty(K, dtype=np.int64)
    out = np.empty(k, dtype=np.int64)
    path = np.empty(size, dtype=np.int64)
    P = mu.size
    cnt = np.zeros(P, dtype=np.int64)
    skeys = np.empty(P, dtype=np.uint64)
    for p in range(P):
        skeys[p] = _rng.stream_key(key, p)
    used = 0
    for c in range(budgets.size):
        used = _run(K, k, budgets[c], left, right, parent, order, pidx, mu, sd, skeys, table, cnt, majority, tie_first,
                    tie_key, st, fs, win, live, wins, out, path)
        ok = 1
        for t in range(k):
            if truth[order[out[t]]] == 0:
                ok = 0
        success[c] = ok
    for t in range(k):
        out_items[t] = order[out[t]]
    return used
