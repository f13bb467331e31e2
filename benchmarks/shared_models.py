"""The shared models the benchmarks run: where they are and which of them arenaplan runs.

``ARENAPLAN_MODELS`` overrides the folder (default: ``../shared/models`` beside the checkout).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))   # the checkout's harness, which the tests share
from harness.models import MLPERF_TINY, MODELS_DIR as MODELS, RUNNABLE  # noqa: E402,F401


def sample_input(model, seed: int = 0) -> np.ndarray:
    """A random input of the model's first input tensor, over its integer type's range."""
    t = model.tensors[model.inputs[0]]
    info = np.iinfo(np.dtype(t.dtype))
    return np.random.default_rng(seed).integers(info.min, info.max, size=t.shape, dtype=np.dtype(t.dtype),
                                                endpoint=True)


def seconds_per_call(fn, target_s: float) -> float:
    """Seconds per call of ``fn`` over about ``target_s`` of back-to-back calls."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= target_s:
            return dt / n
        n = max(n * 2, int(n * target_s / max(dt, 1e-9)) + 1)
