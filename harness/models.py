"""Where the shared models are and which of them arenaplan runs: one rule for the tests,
the benchmarks and the fuzz targets.

``ARENAPLAN_MODELS`` names the folder; by default it is ``../shared/models`` beside the
checkout. The models are read from there, never copied into the project.
"""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
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
#: Every shared model but the audio preprocessor (its ops are TFLite Micro's custom signal ops).
RUNNABLE = [n for n in MODEL_NAMES if n != "tflm_audio_preprocessor_int8"]


def shared_model(name: str) -> Path:
    """The path of shared model `name` (a file stem), whether or not it is present."""
    return MODELS_DIR / f"{name}.tflite"
