"""The Thurstone fit's Cholesky solve: the blocked factorisation equals the textbook one bit for bit."""

import math

import numpy as np
import pytest

from pokerduel.selectors._kernels import chol_solve


def reference_solve(A, b):
    """Textbook Cholesky, one entry at a time, each sum in the order q = 0 .. j-1 (plain Python floats)."""
    m = len(b)
    L = [[float(x) for x in row] for row in A]
    for j in range(m):
        s = L[j][j]
        for q in range(j):
            s -= L[j][q] * L[j][q]
        L[j][j] = math.sqrt(s)
        for i in range(j + 1, m):
            t = L[i][j]
            for q in range(j):
                t -= L[i][q] * L[j][q]
            L[i][j] = t / L[j][j]
    x = [float(v) for v in b]
    for i in range(m):
        t = x[i]
        for q in range(i):
            t -= L[i][q] * x[q]
        x[i] = t / L[i][i]
    for i in range(m - 1, -1, -1):
        t = x[i]
        for q in range(i + 1, m):
            t -= L[q][i] * x[q]
        x[i] = t / L[i][i]
    return np.array(x)


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 17, 31, 99])
def test_blocked_cholesky_equals_textbook_bit_for_bit(m):
    rng = np.random.default_rng(m)
    B = rng.normal(size=(m, m))
    A = B @ B.T + m * np.eye(m)
    b = rng.normal(size=m)
    work, x = A.copy(), b.copy()
    assert chol_solve(work, x, m)
    assert np.array_equal(x, reference_solve(A, b))   # same operations in the same order
    np.testing.assert_allclose(A @ x, b, rtol=1e-9, atol=1e-9)


def test_cholesky_refuses_a_matrix_that_is_not_positive_definite():
    A = np.array([[1.0, 2.0], [2.0, 1.0]])
    assert not chol_solve(A.copy(), np.ones(2), 2)
