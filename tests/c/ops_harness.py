"""Helpers for the int8 op tests (not a test module): guarded buffers, scratch sets,
CPU-path switching, variant lists and error records through cffi."""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

GUARD = 64
CANARY = 0xA5


class Guarded:
    """`nbytes` of payload at an aligned address with canary bytes on both sides."""

    def __init__(self, ffi, nbytes: int, align: int = 16, fill: int | None = None):
        self.nbytes = int(nbytes)
        self._raw = np.full(self.nbytes + 2 * GUARD + 2 * align, CANARY, dtype=np.uint8)
        base = self._raw.ctypes.data
        start = GUARD + (-(base + GUARD)) % align
        self._start = start
        self.payload = self._raw[start:start + self.nbytes]
        if fill is not None:
            self.payload[:] = fill & 0xFF
        self.ptr = ffi.cast("void *", base + start)
        self._keep = self._raw

    def view(self, dtype) -> np.ndarray:
        return self.payload.view(dtype)

    def intact(self) -> bool:
        before = self._raw[:self._start]
        after = self._raw[self._start + self.nbytes:]
        return bool((before == CANARY).all() and (after == CANARY).all())


def guarded_from(ffi, array: np.ndarray, align: int = 16) -> Guarded:
    """A guarded copy of `array` (for inputs that must not be written)."""
    raw = np.ascontiguousarray(array)
    g = Guarded(ffi, raw.nbytes, align)
    g.payload[:] = raw.view(np.uint8).reshape(-1)
    return g


def variants(ffi, lib, fn, params) -> list:
    """Call an ap_<op>_variants function and return the records as a list of cdata copies."""
    out = ffi.new("ap_variant[]", lib.AP_MAX_VARIANTS)
    count = ffi.new("uint32_t *")
    err = ffi.new("ap_error *")
    status = fn(params, out, lib.AP_MAX_VARIANTS, count, err)
    assert status == lib.AP_OK, ffi.string(err.message).decode()
    result = []
    for i in range(count[0]):
        v = ffi.new("ap_variant *")
        v[0] = out[i]
        result.append(v)
    return result


def variant_name(ffi, v) -> str:
    return ffi.string(v.name).decode()


def scratch_for(ffi, variant, short: int | None = None, align_extra: int = 0):
    """(ap_scratch[] cdata, [Guarded]) with exactly the requested bytes; buffer `short` one
    byte smaller."""
    n = variant.scratch_count
    arr = ffi.new("ap_scratch[]", max(n, 1))
    bufs = []
    for i in range(n):
        req = variant.scratch[i]
        size = int(req.bytes) - (1 if short == i else 0)
        g = Guarded(ffi, size, max(int(req.alignment), 16))
        bufs.append(g)
        arr[i].data = g.ptr
        arr[i].bytes = size
    return arr, bufs


def message(ffi, err) -> str:
    return ffi.string(err.message).decode()


@contextlib.contextmanager
def cpu(lib, level):
    """Limit SIMD dispatch inside the block (restores AVX2 ceiling afterwards)."""
    lib.ap_cpu_limit(level)
    try:
        yield
    finally:
        lib.ap_cpu_limit(lib.AP_CPU_AVX2)


def cpu_levels(lib) -> list:
    """The dispatch levels to compare: portable, and AVX2 when this CPU has it."""
    levels = [lib.AP_CPU_PORTABLE]
    if lib.ap_cpu_detect() == lib.AP_CPU_AVX2:
        levels.append(lib.AP_CPU_AVX2)
    return levels


def requant_arrays(ffi, multipliers, shifts):
    """Keep-alive int32 arrays for an ap_requant."""
    m = ffi.new("int32_t[]", [int(v) for v in np.atleast_1d(multipliers)])
    s = ffi.new("int32_t[]", [int(v) for v in np.atleast_1d(shifts)])
    return m, s


def random_multipliers(rng, n: int, lo: float = 1e-4, hi: float = 0.5):
    """Per-channel (multiplier, shift) from random real scales, as TFLite's Prepare would."""
    from reference.quant import quantize_multiplier
    reals = np.exp(rng.uniform(np.log(lo), np.log(hi), size=n))
    pairs = [quantize_multiplier(float(r)) for r in reals]
    return np.array([p[0] for p in pairs], dtype=np.int64), np.array([p[1] for p in pairs], dtype=np.int64)
