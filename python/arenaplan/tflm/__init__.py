"""TensorFlow Lite Micro: the arena a TFLM build needs, and an offline plan for it.

    r = ap.tflm.arena(model, kernels="reference", pointer_bytes=4)
    print(r.line())          # constexpr int kTensorArenaSize = N;
    ap.tflm.with_offline_plan("model.tflite", "model_planned.tflite")

The rules (``rules.py``) were checked against the ``tflite-micro`` package
``0.dev20261023182759`` (64-bit host, reference kernels) exactly; 32-bit targets and
CMSIS-NN's scratch are predictions from the same rules.
"""
from .offline import plan_offline, read_offline_plan, with_offline_plan
from .planner import greedy_offsets
from .report import OFFLINE_METADATA, Allocation, TflmArena, arena, offline_plan_of
from .rules import TFLM_VERSION

__all__ = ["Allocation", "OFFLINE_METADATA", "TFLM_VERSION", "TflmArena", "arena", "greedy_offsets",
           "offline_plan_of", "plan_offline", "read_offline_plan", "with_offline_plan"]
