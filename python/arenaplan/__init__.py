"""arenaplan: plan and run int8 neural-network inference in a microcontroller's memory.

    import arenaplan as ap
    m = ap.load_tflite("model.tflite")      # or ap.zoo.load("ds_cnn")
    p = ap.plan(m)                          # offsets of every tensor, arena bytes, bounds
    print(p.summary())
    bp = ap.plan_buffers(sizes, first, last, alignment=16, strategy="auto")

The package is in layers, each importing only from those before it:
``model`` (models, importers, the zoo, quantisation helpers) -> ``ops`` (lowering to
kernels, NumPy-facing kernels) -> ``planning`` (buffers, pools, targets, the plan context,
variant choice, the Plan record and its files) -> ``runtime`` (graph tables, the
Interpreter) -> ``latency`` (latency sources) -> ``export`` (C export) -> ``tflm`` (TFLite
Micro's arena) -> ``api`` (``plan``, ``frontier``) -> ``sweep`` -> ``cli``; ``errors`` and ``units`` sit below them all.
"""
from . import errors
from ._version import __version__
from .errors import (ArenaplanError, InvalidArgument, InvalidPlan, ModelError, PlanDoesNotFit,
                     SizeOverflow, UnsupportedModel)
from .units import format_bytes, parse_bytes
from .model import zoo
from .model.importers import load_tflite, parse_tflite
from .model.model import Model, Operator, Quantization, Tensor
from .ops import kernels
from .planning import buffers, lifetimes, targets
from .planning.buffers import STRATEGIES, BufferPlan, lower_bound, plan_buffers
from .planning.plan import MODES, Plan
from .planning.records import BufferRecord
from .planning.targets import Pool, Target
from .planning.tradeoffs import Frontier, FrontierPoint, Gain, MultiPlan
from .runtime.interpreter import Interpreter, OpProfile, Profile
from .latency.sources import CostModel, HostLatency, LatencySource, TableLatency
from . import export
from . import tflm
from .api import frontier, plan
from .sweep import SweepRecord, SweepResult, sweep

__all__ = [
    "ArenaplanError", "BufferPlan", "BufferRecord", "CostModel", "Frontier", "FrontierPoint", "Gain",
    "HostLatency", "Interpreter", "InvalidArgument", "InvalidPlan", "LatencySource", "MODES", "Model",
    "ModelError", "MultiPlan", "OpProfile", "Operator", "Plan", "PlanDoesNotFit", "Pool", "Profile",
    "Quantization", "STRATEGIES", "SizeOverflow", "TableLatency", "Target", "Tensor",
    "SweepRecord", "SweepResult", "UnsupportedModel", "buffers", "errors", "export", "format_bytes",
    "frontier", "kernels", "lifetimes", "load_tflite", "lower_bound", "parse_bytes", "parse_tflite",
    "plan", "plan_buffers", "sweep", "targets", "tflm", "zoo",
]
