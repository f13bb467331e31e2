"""Shared fixtures: where the real .tflite models are, and plan checking."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The tests' own helpers are importable from every test directory, and so is `harness`
# (the checkout's helpers that the benchmarks share: the NumPy and LiteRT references, the
# cffi build of the C core, the firmware builder and QEMU runner, TFLM trials).
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "c"))
sys.path.insert(0, str(ROOT))
MODELS_DIR = Path(os.environ.get("ARENAPLAN_MODELS", ROOT.parent / "shared" / "models"))

#: The eleven shared models (file stems), see ../shared/models/README.md.
MODEL_NAMES = [
    "mlperf_tiny_ad_autoencoder_int8",
    "mlperf_tiny_ic_resnet8_int8",
    "mlperf_tiny_kws_dscnn_int8",
    "mlperf_tiny_sww_dscnn_int8",
    "mlperf_tiny_vww_mobilenetv1_025_int8",
    "tflm_audio_preprocessor_int8",
    "tflm_hello_world_int8",
    "tflm_keyword_scrambled_int8",
    "tflm_micro_speech_int8",
    "tflm_mnist_lstm_int8",
    "tflm_person_detect_int8",
]
MLPERF_TINY = [n for n in MODEL_NAMES if n.startswith("mlperf_tiny")]


def model_path(name: str) -> Path:
    path = MODELS_DIR / f"{name}.tflite"
    if not path.exists():
        pytest.skip(f"shared model {path} is not present (set ARENAPLAN_MODELS to its folder)")
    return path


@pytest.fixture(scope="session")
def core():
    """(ffi, lib) for the C core built from csrc/ through cffi with the public headers."""
    from harness import cbuild
    return cbuild.build()


@pytest.fixture(scope="session")
def ffi(core):
    return core[0]


@pytest.fixture(scope="session")
def lib(core):
    return core[1]
