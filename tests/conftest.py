"""Test-session settings: one BLAS thread (set before numpy loads its BLAS).

On a 2-core machine a multi-threaded OpenBLAS makes the small dense solves of the PBO and CPPL tests many
times slower (a 500 x 500 Cholesky: 0.21 s against 0.008 s), and the other tests gain nothing from it.
"""

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
