"""Whether this machine's ``math.exp`` and ``math.log`` are the libm that ``pokerduel.infra`` reproduces."""

import platform

import pytest


def glibc_fma() -> bool:
    """glibc 2.28 or later on an x86-64 CPU with FMA: the build whose ``exp`` and ``log`` are inlined bit for bit."""
    lib, version = platform.libc_ver()
    if lib != "glibc" or tuple(int(v) for v in version.split(".")[:2]) < (2, 28) or platform.machine() != "x86_64":
        return False
    try:
        with open("/proc/cpuinfo") as f:
            return " fma " in f.read()
    except OSError:
        return False


def requires_glibc_fma(name: str):
    """Skip a test module where ``math.<name>`` is another libm's (its last bits may differ)."""
    return pytest.mark.skipif(not glibc_fma(), reason=f"math.{name} here is not glibc's FMA build")
