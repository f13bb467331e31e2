"""The C library's float32 ``expf``, ``expm1f`` and ``tanhf``, for the tables TFLite's int8 LOGISTIC,
TANH and ELU build when they are prepared (``std::exp``, ``std::expm1`` and ``std::tanh`` of a float
call them).

C libraries round these differently in the last bit now and then (glibc 2.36's ``tanhf`` of
0.8906662 is one ulp below the correctly rounded 0.7117226, which moves one table entry of a
TANH by one), so a table equals LiteRT's bit for bit only when it comes from the C library
that LiteRT runs on: this host's, through ctypes. Where no C math library can be loaded, the
functions are evaluated in float64 and rounded to float32 (correctly rounded; glibc's expf
rounds so too).
"""
from __future__ import annotations

import ctypes
import ctypes.util
from typing import Callable, Optional

import numpy as np

__all__ = ["expf", "expm1f", "tanhf", "logf", "C_LIBRARY"]


def _load() -> Optional[ctypes.CDLL]:
    for name in (ctypes.util.find_library("m"), "libm.so.6", None):
        try:
            lib = ctypes.CDLL(name)
            for fn in ("expf", "expm1f", "tanhf", "logf"):
                getattr(lib, fn).restype = ctypes.c_float
                getattr(lib, fn).argtypes = [ctypes.c_float]
            return lib
        except (OSError, AttributeError, TypeError):   # TypeError: no CDLL(None) on Windows
            continue
    return None


_LIB = _load()
#: The C library the functions call, or None (float64 rounded to float32).
C_LIBRARY: Optional[str] = None if _LIB is None else (_LIB._name or "the process's C library")


def _vectorised(name: str, fallback: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    fn = None if _LIB is None else getattr(_LIB, name)

    def apply(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float32)
        if fn is None:
            with np.errstate(over="ignore"):
                return fallback(x.astype(np.float64)).astype(np.float32)
        return np.array([fn(v) for v in x.reshape(-1).tolist()], dtype=np.float32).reshape(x.shape)

    apply.__name__ = name
    apply.__doc__ = f"``{name}`` of each float32 value (the C library's; see the module docstring)."
    return apply


expf = _vectorised("expf", np.exp)
expm1f = _vectorised("expm1f", np.expm1)
tanhf = _vectorised("tanhf", np.tanh)
logf = _vectorised("logf", np.log)
