"""The shared models the benchmarks run: where they are and which of them arenaplan runs.

``ARENAPLAN_MODELS`` overrides the folder (default: ``../shared/models`` beside the checkout).
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
MODELS = Path(os.environ.get("ARENAPLAN_MODELS", ROOT.parent / "shared" / "models"))

#: Every shared model but the audio preprocessor (TFLM's custom signal ops).
RUNNABLE = [
    "mlperf_tiny_ad_autoencoder_int8", "mlperf_tiny_ic_resnet8_int8", "mlperf_tiny_kws_dscnn_int8",
    "mlperf_tiny_sww_dscnn_int8", "mlperf_tiny_vww_mobilenetv1_025_int8", "tflm_person_detect_int8",
    "tflm_micro_speech_int8", "tflm_hello_world_int8", "tflm_keyword_scrambled_int8",
    "tflm_mnist_lstm_int8",
]


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
