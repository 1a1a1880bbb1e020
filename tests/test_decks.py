"""Deck stream: the branch-free dealer against a plain reading of its definition, in pure Python."""

import numba
import numpy as np

from pokerduel.engine.decks import (
    DEAL_SLOTS,
    N_DEAL_CARDS,
    deal_cards,
    deal_decks,
    mulhi,
    next_below,
    next_u64,
    popcount,
    seed_keys,
)

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def _mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def _stream_key(key, a, b):
    return _mix64((_mix64(key ^ ((a * GOLDEN) & MASK)) + b * GOLDEN + 1) & MASK)


def _reference_deal(key, deal):
    """The first nine distinct cards of the draws: each word gives the cards of its high then low half."""
    state = _stream_key(key, deal, 0)
    cards, draws = [], 0
    while len(cards) < N_DEAL_CARDS:
        state = (state + GOLDEN) & MASK
        word = _mix64(state)
        for half in (word >> 32, word & 0xFFFFFFFF):
            c = (half * 52) >> 32
            draws += 1
            if c not in cards and len(cards) < N_DEAL_CARDS:
                cards.append(c)
    return cards, draws


def test_deals_are_the_first_nine_distinct_draws_of_the_stream():
    seed, n = 31, 4000
    key = int(seed_keys(seed, 1)[0])
    decks = deal_decks(seed, n)
    long_deals = 0
    for d in range(n):
        cards, draws = _reference_deal(key, d)
        assert decks[d].tolist() == cards, d
        long_deals += draws > DEAL_SLOTS  # more than three repeats: the dealer's rare loop
    assert long_deals >= 10  # about 0.9% of deals


def test_deal_cards_writes_nine_cards_and_only_scratch_beyond():
    key = seed_keys(5, 1)[0]
    out = np.full(DEAL_SLOTS + 4, -7, dtype=np.int64)
    deal_cards(key, 123, out)
    assert out[:N_DEAL_CARDS].tolist() == deal_decks(5, 1, first_deal=123)[0].tolist()
    assert (out[DEAL_SLOTS:] == -7).all()


@numba.njit
def _popcounts(xs):
    out = np.empty(xs.shape[0], dtype=np.int64)
    for i in range(xs.shape[0]):
        out[i] = popcount(xs[i])
    return out


def test_popcount():
    xs = [0, 1, 2**63, 2**64 - 1] + [int(v) for v in np.random.default_rng(0).integers(0, 2**63, 200, dtype=np.int64)]
    assert _popcounts(np.array(xs, dtype=np.uint64)).tolist() == [bin(x).count("1") for x in xs]


@numba.njit
def _mulhis(a, b):
    out = np.empty(a.shape[0], dtype=np.uint64)
    for i in range(a.shape[0]):
        out[i] = mulhi(a[i], b[i])
    return out


def test_mulhi_is_the_high_word_of_the_product():
    words = [int(x) for x in np.random.default_rng(1).integers(0, 2**64, 600, dtype=np.uint64)]
    a = [0, 1, 2**64 - 1, 2**63] + words[:300]
    b = [2**64 - 1, 2**64 - 1, 2**64 - 1, 52] + words[300:]
    got = _mulhis(np.array(a, dtype=np.uint64), np.array(b, dtype=np.uint64)).tolist()
    assert got == [(x * y) >> 64 for x, y in zip(a, b)]


def test_random_bot_generator_is_wyrand_and_draws_below_n_by_multiplication():
    """The reference: the state steps by 0xa0761d6478bd642f; the word is the 128-bit product of the state
    and the state xor 0xe7037ed1a0b428db, high half xor low half; a draw below n is (word * n) >> 64."""
    state = 0x0123456789ABCDEF
    rng = np.array([state], dtype=np.uint64)
    check = np.array([state], dtype=np.uint64)
    for n in [2, 3, 7] * 30:
        state = (state + 0xA0761D6478BD642F) & MASK
        p = state * (state ^ 0xE7037ED1A0B428DB)
        word = ((p >> 64) ^ p) & MASK
        assert next_u64(check) == word
        assert next_below(rng, n) == (word * n) >> 64
    assert rng[0] == check[0] == state
