"""TensorFlow Lite Micro's allocation rules, as data.

Checked against the ``tflite-micro`` Python package ``0.dev20261023182759`` (TFLM's
interpreter with its reference kernels, a 64-bit host build, the recording allocator).
The 64-bit figures are that build's; the 32-bit (Cortex-M) figures and the CMSIS-NN
scratch rules are predictions from the same rules with 4-byte pointers and from
CMSIS-NN's ``*_get_buffer_size`` functions, not measurements.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from ..model.model import Model, Operator

__all__ = ["TFLM_VERSION", "ALIGNMENT", "KERNELS", "POINTER_BYTES", "Sizes", "sizes_for",
           "SUPPORTED_OPS", "kernel_scratch", "kernel_persistent", "lifetimes"]

#: The tflite-micro package version these rules were checked against.
TFLM_VERSION = "0.dev20261023182759"
#: MicroArenaBufferAlignment(): every planned buffer and kernel buffer is rounded to it.
ALIGNMENT = 16
KERNELS = ("reference", "cmsis-nn")
POINTER_BYTES = (4, 8)

# Bytes of TFLM's parsed builtin options for each op (the TfLite*Params structs that
# the flatbuffer parser allocates in the tail; all-int structs, the same on both sizes).
_OPTIONS = {"FULLY_CONNECTED": 32, "CONV_2D": 28, "DEPTHWISE_CONV_2D": 28, "ADD": 8,
            "AVERAGE_POOL_2D": 40, "MAX_POOL_2D": 40, "RESHAPE": 36, "SOFTMAX": 12, "SVDF": 12,
            "QUANTIZE": 0, "DEQUANTIZE": 0, "UNIDIRECTIONAL_SEQUENCE_LSTM": 16, "RELU": 0,
            "LOGISTIC": 0, "MUL": 8}
#: Ops (TFLite builtin names) whose TFLM kernels these rules describe.
SUPPORTED_OPS = tuple(sorted(_OPTIONS))
# Types TFLM's kernels accept for these ops' activations.
SUPPORTED_TYPES = ("int8", "int16", "int32", "float32")


class Sizes:
    """sizeof / per-record bytes of TFLM's structures for one pointer size."""

    def __init__(self, pointer_bytes: int) -> None:
        p = pointer_bytes
        self.pointer_bytes = p
        self.eval_tensor = 3 * p                    # TfLiteEvalTensor: data, dims, type
        self.node_and_registration = 8 * p          # TfLiteNode (7 words) + registration pointer
        self.tflite_tensor = 64 if p == 8 else 40   # persistent TfLiteTensor of an input/output
        self.affine_quantization = 3 * p            # TfLiteAffineQuantization
        self.subgraph_allocations = 2 * p           # SubgraphAllocations: nodes, tensors
        self.allocation_info = 4 * p if p == 8 else 24   # AllocationInfo record while planning
        self.planner_per_buffer = 40                # GreedyMemoryPlanner::PerBufferSize()
        self.scratch_request = 2 * p if p == 8 else 8    # ScratchBufferRequest: bytes, node
        self.scratch_handle = 10 if p == 8 else 6   # handle + its bookkeeping per scratch buffer
        # Allocator, planner and interpreter objects placed in the tail before the model
        self.fixed = 464 if p == 8 else 256
        # the planner's own working records beyond the per-buffer ones
        self.planning_fixed = 176 if p == 8 else 96
        # kernels' OpData structs (Init's AllocatePersistentBuffer), bytes per op type
        self.op_data = {"FULLY_CONNECTED": 72 if p == 8 else 56, "CONV_2D": 80 if p == 8 else 64,
                        "DEPTHWISE_CONV_2D": 80 if p == 8 else 64, "ADD": 60, "AVERAGE_POOL_2D": 32,
                        "MAX_POOL_2D": 32, "SOFTMAX": 80, "SVDF": 36, "QUANTIZE": 32,
                        "UNIDIRECTIONAL_SEQUENCE_LSTM": 688 if p == 8 else 600, "MUL": 60,
                        "LOGISTIC": 32, "DEQUANTIZE": 32}
        # the interpreter's own kernel buffers, before any op's
        self.base_buffers = [8, 8]


def sizes_for(pointer_bytes: int) -> Sizes:
    return Sizes(pointer_bytes)


def options_bytes(op: Operator) -> int:
    return _OPTIONS.get(op.type, 0)


def _channels(model: Model, op: Operator) -> int:
    return int(model.tensors[op.outputs[0]].shape[-1])


def kernel_persistent(model: Model, op: Operator, sizes: Sizes) -> List[Tuple[str, int]]:
    """(what, bytes) of each persistent buffer the op's kernel allocates (Init, Prepare)."""
    out: List[Tuple[str, int]] = []
    if op.type in sizes.op_data:
        out.append(("op data", sizes.op_data[op.type]))
    if op.type in ("CONV_2D", "DEPTHWISE_CONV_2D"):
        c = _channels(model, op)
        out.append(("per-channel multipliers", 4 * c))
        out.append(("per-channel shifts", 4 * c))
    return out


def _conv_geometry(model: Model, op: Operator):
    x = model.tensors[op.inputs[0]]
    w = model.tensors[op.inputs[1]]
    return x.shape, w.shape


def kernel_scratch(model: Model, op: Operator, kernels: str) -> List[Tuple[str, int]]:
    """(what, bytes) of each RequestScratchBufferInArena of the op's Prepare."""
    t = model.tensors
    if op.type == "SVDF":
        x, w = t[op.inputs[0]], t[op.inputs[1]]
        rank = int(op.options.get("rank", 1)) or 1
        batch, filters = int(x.shape[0]), int(w.shape[0])
        return [("int32 filter activations", batch * filters * 4),
                ("int32 output accumulators", batch * (filters // rank) * 4)]
    if op.type == "UNIDIRECTIONAL_SEQUENCE_LSTM":
        x, y = t[op.inputs[0]], t[op.outputs[0]]
        batch = int(x.shape[1] if op.options.get("time_major", False) else x.shape[0])
        cells = int(y.shape[-1])
        return [(f"int16 gate buffer {k}", batch * cells * 2) for k in range(4)]
    if kernels != "cmsis-nn":
        return []
    # CMSIS-NN (DSP extension, Cortex-M4/M7/M33): arm_*_get_buffer_size
    if op.type == "CONV_2D":
        xs, ws = _conv_geometry(model, op)
        kh, kw, cin = int(ws[1]), int(ws[2]), int(ws[3])
        pad_same = op.options.get("padding", "VALID") == "SAME"
        strides = (op.options.get("stride_h", 1), op.options.get("stride_w", 1))
        if kh == 1 and kw == 1 and not (pad_same and False) and strides == (1, 1) and cin % 4 == 0:
            return []                                   # arm_convolve_1x1_s8_fast
        return [("im2col (int16)", 2 * cin * kh * kw * 2)]   # arm_convolve_s8_get_buffer_size
    if op.type == "DEPTHWISE_CONV_2D":
        xs, ws = _conv_geometry(model, op)
        kh, kw = int(ws[1]), int(ws[2])
        cin, cout = int(xs[-1]), int(ws[3])
        if cin != cout:
            return []                                   # arm_depthwise_conv_s8 (generic)
        if kh == 3 and kw == 3:
            return []                                   # arm_depthwise_conv_3x3_s8
        return [("im2col (int16)", cin * kh * kw * 2)]  # arm_depthwise_conv_s8_opt_get_buffer_size
    if op.type == "AVERAGE_POOL_2D":
        return [("int32 row sums", int(t[op.inputs[0]].shape[-1]) * 4)]   # arm_avgpool_s8_get_buffer_size
    return []


def lifetimes(model: Model) -> Tuple[Dict[int, int], Dict[int, int]]:
    """TFLM's first-created / last-used op of every tensor (micro_allocation_info.cc)."""
    n = len(model.operators)
    first: Dict[int, int] = {i: 0 for i in model.inputs}
    last: Dict[int, int] = {}
    for k, op in enumerate(model.operators):
        for i in op.inputs:
            if i >= 0:
                last[i] = k
        for i in op.outputs:
            first.setdefault(i, k)
    for i in model.outputs:
        last[i] = n - 1
    return first, last
