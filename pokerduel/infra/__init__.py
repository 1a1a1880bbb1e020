"""Infrastructure every layer may use: the numba kernel decorator (``jit``), atomic and self-describing h5
files (``storage``), figure files (``figures``), the serial / multiprocess / dask backends (``parallel``).

Imports nothing of pokerduel above it (``storage`` reads the package version); empty, so that a kernel
module importing ``infra.jit`` imports nothing else.
"""
