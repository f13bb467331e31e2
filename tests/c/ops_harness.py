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


#: Every variant record variants() has handed out: inside ``cpu(lib, isa)`` they all run as
#: that ISA's variants (the record's isa field), so a test's loop over cpu_levels runs every
#: variant on every ISA this build and CPU have.
_LISTED: list = None


def variants(ffi, lib, fn, params, isa=None) -> list:
    """Call an ap_<op>_variants function for ``isa`` (default portable) and return the records
    as a list of cdata copies."""
    global _LISTED
    out = ffi.new("ap_variant[]", lib.AP_MAX_VARIANTS)
    count = ffi.new("uint32_t *")
    err = ffi.new("ap_error *")
    status = fn(params, lib.AP_ISA_PORTABLE if isa is None else isa, out, lib.AP_MAX_VARIANTS, count, err)
    assert status == lib.AP_OK, ffi.string(err.message).decode()
    result = []
    for i in range(count[0]):
        v = ffi.new("ap_variant *")
        v[0] = out[i]
        result.append(v)
    if _LISTED is None:
        _LISTED = []
    _LISTED.extend(result)
    del _LISTED[:-4096]
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
def cpu(lib, isa):
    """Inside the block every variant record listed by variants() is ``isa``'s (each ISA lists
    the same variants today), so run() executes that ISA's code; portable afterwards."""
    for v in _LISTED or []:
        v.isa = isa
    try:
        yield
    finally:
        for v in _LISTED or []:
            v.isa = lib.AP_ISA_PORTABLE


def cpu_levels(lib) -> list:
    """The ISAs to compare: every one this build compiles and this CPU runs (portable, and
    x86-avx2 on an AVX2 host; arm-dsp on a DSP Cortex-M)."""
    return [isa for isa in (lib.AP_ISA_PORTABLE, lib.AP_ISA_X86_AVX2, lib.AP_ISA_ARM_DSP)
            if lib.ap_isa_available(isa)]


def requant_arrays(ffi, multipliers, shifts):
    """Keep-alive int32 arrays for an ap_requant."""
    m = ffi.new("int32_t[]", [int(v) for v in np.atleast_1d(multipliers)])
    s = ffi.new("int32_t[]", [int(v) for v in np.atleast_1d(shifts)])
    return m, s


def random_multipliers(rng, n: int, lo: float = 1e-4, hi: float = 0.5):
    """Per-channel (multiplier, shift) from random real scales, as TFLite's Prepare would."""
    from harness.reference.quant import quantize_multiplier
    reals = np.exp(rng.uniform(np.log(lo), np.log(hi), size=n))
    pairs = [quantize_multiplier(float(r)) for r in reals]
    return np.array([p[0] for p in pairs], dtype=np.int64), np.array([p[1] for p in pairs], dtype=np.int64)
