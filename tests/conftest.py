"""Test-session settings: one BLAS thread (set before numpy loads its BLAS).

On a 2-core machine a multi-threaded OpenBLAS makes the small dense solves of the PBO and CPPL tests many
times slower (a 500 x 500 Cholesky: 0.21 s against 0.008 s), and the other tests gain nothing from it.
"""

import importlib.util
import os
from pathlib import Path

import pytest

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")


@pytest.fixture
def script(monkeypatch):
    """``script(name)``: the module ``scripts/name.py``, importable with its neighbours (the scripts import each
    other)."""
    scripts = Path(__file__).parents[1] / "scripts"
    monkeypatch.syspath_prepend(str(scripts))

    def load(name):
        spec = importlib.util.spec_from_file_location(name, scripts / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load
