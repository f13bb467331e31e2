"""arenaplan: plan and run int8 neural-network inference in a microcontroller's memory.

    import arenaplan as ap
    m = ap.load_tflite("model.tflite")      # or ap.zoo.load("ds_cnn")
    p = ap.plan(m)                          # offsets of every tensor, arena bytes, bounds
    print(p.summary())
    bp = ap.plan_buffers(sizes, first, last, alignment=16, strategy="auto")
"""
from . import errors, kernels, lifetimes, targets, zoo
from .buffers import STRATEGIES, BufferPlan, lower_bound, plan_buffers
from .errors import (ArenaplanError, InvalidArgument, InvalidPlan, ModelError, PlanDoesNotFit,
                     SizeOverflow, UnsupportedModel)
from .importers import load_tflite, parse_tflite
from .model import Model, Operator, Quantization, Tensor
from .interpreter import Interpreter, OpProfile, Profile
from .plan import MODES, BufferRecord, Plan, plan
from .latency import CostModel, HostLatency, LatencySource, TableLatency
from .tradeoffs import Frontier, FrontierPoint, Gain, MultiPlan, frontier
from .targets import Pool, Target
from .units import format_bytes, parse_bytes

__version__ = "0.1.0"

__all__ = [
    "ArenaplanError", "BufferPlan", "CostModel", "Frontier", "FrontierPoint", "Gain", "HostLatency",
    "LatencySource", "MultiPlan", "Pool", "TableLatency", "Target", "frontier", "BufferRecord", "Interpreter", "InvalidArgument", "MODES",
    "OpProfile", "Profile", "kernels", "InvalidPlan", "Model",
    "ModelError", "Operator", "Plan", "PlanDoesNotFit", "Quantization", "STRATEGIES", "SizeOverflow",
    "Tensor", "UnsupportedModel", "errors", "targets", "format_bytes", "lifetimes", "load_tflite",
    "lower_bound", "parse_bytes", "parse_tflite", "plan", "plan_buffers", "zoo",
]
