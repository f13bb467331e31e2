"""The coverage table: every op table row (op x tensor types) and the kernel variants it offers
on each instruction set, read from the C op table and the rows' own variants() functions.

A row's variants depend on its params (a 1x1 CONV_2D offers gemm_1x1, a 3x3 one does not), so
each row is asked with the params of small probe models built here, one op each, lowered as an
imported model is (under both rounding rules where the lowering takes one); the table lists
the union of the variant families. A row without a probe is an error, so the table cannot
silently fall behind the op table.

``python -m arenaplan.ops.coverage`` prints docs/coverage.md (tests/test_coverage.py checks the
committed file equals it).
"""
from __future__ import annotations

import sys
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import _core
from ..errors import UnsupportedModel
from ..model.model import ALIASING_OPS, PER_OUTPUT_OPS, Model, Operator, Quantization, Tensor
from . import lowering, tflm_types
from .lowering import ISA_CODES, REFERENCES, lower_op

__all__ = ["rows", "render", "main", "probe_models"]

_TYPES_TEXT = {
    "s8": "int8",
    "s16x8": "16x8 (int16 activations, int8 weights)",
    "f32": "float32",
    "bool": "bool",
    "s32": "int32",
    "s64": "int64",
    "u8": "uint8",
}
#: What the rows of the ops with operands of fixed types take besides their row's type
#: (arenaplan/ops.h: a row's types name its data input's element type).
_OPERANDS_TEXT = {
    **{op: "bool out" for op in ("EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL")},
    "ARG_MAX": "int32 or int64 out", "ARG_MIN": "int32 or int64 out", "GATHER": "int32 indices",
    "SELECT_V2": "bool condition", "CAST": "to int8, int16, int32, float32 or bool",
    "SVDF": "int16 time weights and state; int8 ones: tflm only",
    ("SVDF", "f32"): "float32 weights, bias and state",
    "FILL": "int32 or int64 dims", "SHAPE": "any input, int32 or int64 out",
    "GATHER_ND": "int32 indices", "BROADCAST_ARGS": "int32 or int64 shapes", "REVERSE_V2": "int32 axes",
    "REDUCE_ALL": "int32 axes", ("ZEROS_LIKE", "s8"): "the value 0, not the zero point",
    ("ADD_N", "s8"): "TensorFlow Lite Micro's: each sum from the scaled input offset",
    ("BATCH_MATMUL", "s16x8"): "here int16 x int16 with int64 sums",
    ("DEQUANTIZE", "u8"): "to float32", ("REQUANTIZE", "u8"): "to int8",
    "JUMP": "arenaplan's control node of inlined IF and WHILE: no input or a one-element bool condition, "
            "no output",
}


class _Probe:
    """A one-op Model built tensor by tensor (TFLite's option names, as the importer gives)."""

    def __init__(self) -> None:
        self.tensors: List[Tensor] = []
        self.inputs: List[int] = []

    def t(self, shape: Sequence[int], dtype: str = "int8", scale=0.05, zero_point=0, data=None,
          axis: int = 0, variable: bool = False, graph_input: bool = False) -> int:
        q = None
        if scale is not None:
            scales = tuple(float(np.float32(s)) for s in np.atleast_1d(scale))
            zps = tuple(int(z) for z in np.atleast_1d(zero_point)) * (len(scales) if np.ndim(zero_point) == 0 else 1)
            q = Quantization(scales, zps, axis)
        arr = None if data is None else np.asarray(data).reshape(shape)
        self.tensors.append(Tensor(len(self.tensors), f"t{len(self.tensors)}", tuple(int(d) for d in shape),
                                   dtype, q, arr, variable))
        if graph_input:
            self.inputs.append(len(self.tensors) - 1)
        return len(self.tensors) - 1

    def x(self, shape: Sequence[int], dtype: str = "int8", scale=0.05, zero_point=0) -> int:
        return self.t(shape, dtype, scale, zero_point, graph_input=True)

    def const(self, values, dtype: str, scale=None, zero_point=0, axis: int = 0) -> int:
        arr = np.asarray(values, dtype=dtype)
        return self.t(arr.shape, dtype, scale, zero_point, arr, axis)

    def model(self, op_type: str, inputs: Sequence[int], outputs: Sequence[int], intermediates=(),
              **options) -> Model:
        op = Operator(0, op_type, tuple(inputs), tuple(outputs), dict(options), intermediates=tuple(intermediates))
        return Model(f"probe:{op_type}", self.tensors, [op], tuple(self.inputs), tuple(outputs),
                     source=f"probe:{op_type}")


def _weights(shape: Sequence[int]) -> np.ndarray:
    return (np.arange(int(np.prod(shape))) % 7 - 3).astype(np.int8).reshape(shape)


def _conv(kernel: int, channels: int = 8, act: str = "int8", depthwise: bool = False,
          multiplier: int = 1) -> Model:
    p = _Probe()
    s16 = act == "int16"
    x = p.x((1, 8, 8, channels), act, 0.05 if not s16 else 1e-3, 0)
    oc = channels * multiplier if depthwise else channels
    w_shape = (1, kernel, kernel, oc) if depthwise else (oc, kernel, kernel, channels)
    w = p.const(_weights(w_shape), "int8", [0.01] * oc, [0] * oc, axis=3 if depthwise else 0)
    b = p.const(np.zeros(oc), "int64" if s16 else "int32", [0.0005] * oc, [0] * oc)
    y = p.t((1, 8, 8, oc), act, 0.1 if not s16 else 2e-3, 0)
    options = dict(padding="SAME", stride_h=1, stride_w=1, dilation_h_factor=1, dilation_w_factor=1,
                   fused_activation_function="NONE")
    if depthwise:
        return p.model("DEPTHWISE_CONV_2D", (x, w, b), (y,), depth_multiplier=multiplier, **options)
    return p.model("CONV_2D", (x, w, b), (y,), **options)


def _transpose_conv(act: str = "int8") -> Model:
    p = _Probe()
    s16 = act == "int16"
    shape = p.const([1, 8, 8, 4], "int32")
    w = p.const(_weights((4, 3, 3, 8)), "int8", [0.01] * 4, [0] * 4)
    x = p.x((1, 4, 4, 8), act, 0.05 if not s16 else 1e-3, 0)
    b = p.const(np.zeros(4), "int64" if s16 else "int32", [0.0005] * 4, [0] * 4)
    y = p.t((1, 8, 8, 4), act, 0.1 if not s16 else 2e-3, 0)
    return p.model("TRANSPOSE_CONV", (shape, w, x, b), (y,), padding="SAME", stride_h=2, stride_w=2,
                   fused_activation_function="NONE")


def _fully_connected(depth: int, act: str = "int8") -> Model:
    p = _Probe()
    s16 = act == "int16"
    x = p.x((2, depth), act, 0.05 if not s16 else 1e-3, 0)
    w = p.const(_weights((16, depth)), "int8", 0.01, 0)
    b = p.const(np.zeros(16), "int64" if s16 else "int32", 0.0005, 0)
    y = p.t((2, 16), act, 0.1 if not s16 else 2e-3, 0)
    return p.model("FULLY_CONNECTED", (x, w, b), (y,), fused_activation_function="NONE", weights_format=0)


def _pool(op_type: str, act: str = "int8") -> Model:
    p = _Probe()
    x = p.x((1, 8, 8, 4), act)
    y = p.t((1, 4, 4, 4), act)
    return p.model(op_type, (x,), (y,), padding="VALID", stride_h=2, stride_w=2, filter_height=2, filter_width=2,
                   fused_activation_function="NONE")


def _binary(op_type: str, act: str = "int8", broadcast: bool = False) -> Model:
    p = _Probe()
    s16 = act == "int16"
    a = p.x((1, 4, 4, 8), act, 0.05 if not s16 else 1e-3, 0)
    b = p.x((1, 1, 1, 8) if broadcast else (1, 4, 4, 8), act, 0.03 if not s16 else 2e-3, 0)
    y = p.t((1, 4, 4, 8), act, 0.1 if not s16 else 3e-3, 0)
    return p.model(op_type, (a, b), (y,), fused_activation_function="NONE", pot_scale_int16=False)


def _unary(op_type: str, out_scale: float = 0.05, out_zp: int = 0, act: str = "int8", **options) -> Model:
    p = _Probe()
    x = p.x((2, 64), act, 0.05, 3 if act == "int8" else 0)
    y = p.t((2, 64), act, out_scale, out_zp)
    return p.model(op_type, (x,), (y,), **options)


def _softmax(depth: int) -> Model:
    p = _Probe()
    x = p.x((2, depth))
    y = p.t((2, depth), "int8", 1.0 / 256, -128)
    return p.model("SOFTMAX", (x,), (y,), beta=1.0)


def _softmax_s16(depth: int) -> Model:
    p = _Probe()
    x = p.x((2, depth), "int16", 3e-4, 0)
    y = p.t((2, depth), "int16", 1.0 / 32768, 0)
    return p.model("SOFTMAX", (x,), (y,), beta=1.0)


def _sigmoid_s16(op_type: str, scale: float) -> Model:
    p = _Probe()
    x = p.x((2, 64), "int16", scale, 0)
    y = p.t((2, 64), "int16", 1.0 / 32768, 0)
    return p.model(op_type, (x,), (y,))


def _reshape(act: str = "int8") -> Model:
    p = _Probe()
    x = p.x((1, 4, 8), act)
    s = p.const([32], "int32")
    y = p.t((32,), act)
    return p.model("RESHAPE", (x, s), (y,), new_shape=(32,))


def _quantize(src: str, dst: str) -> Model:
    p = _Probe()
    x = p.x((1, 32), src, None if src == "float32" else 0.05, 128 if src == "uint8" else 0)
    y = p.t((1, 32), dst, None if dst == "float32" else (0.03 if dst in ("int8", "uint8") else 1e-3),
            131 if dst == "uint8" else 0)
    return p.model("QUANTIZE" if dst != "float32" else "DEQUANTIZE", (x,), (y,))


def _concatenation(act: str = "int8") -> Model:
    p = _Probe()
    a, b = p.x((1, 4, 4, 3), act), p.x((1, 4, 4, 5), act, 0.03, 1 if act == "int8" else 0)
    y = p.t((1, 4, 4, 8), act)
    return p.model("CONCATENATION", (a, b), (y,), axis=-1, fused_activation_function="NONE")


def _pad(act: str = "int8") -> Model:
    p = _Probe()
    x = p.x((1, 4, 4, 3), act, 0.05 if act == "int8" else 1e-3, 0)
    pads = p.const([[0, 0], [1, 1], [2, 0], [0, 0]], "int32")
    y = p.t((1, 6, 6, 3), act, 0.05 if act == "int8" else 1e-3, 0)
    return p.model("PAD", (x, pads), (y,))


def _mean(act: str = "int8") -> Model:
    p = _Probe()
    x = p.x((1, 4, 4, 8), act)
    axes = p.const([1, 2], "int32")
    y = p.t((1, 1, 1, 8), act, 0.04, 2 if act == "int8" else 0)
    return p.model("MEAN", (x, axes), (y,), keep_dims=True)


def _svdf() -> Model:
    p = _Probe()
    x = p.x((1, 24), "int8", 0.05, 0)
    wf = p.const(_weights((16, 24)), "int8", 0.01, 0)
    wt = p.const(np.arange(64).reshape(16, 4) % 9 - 4, "int16", 1e-3, 0)
    b = p.const(np.arange(8) * 40 - 120, "int32", 1e-4, 0)
    state = p.t((1, 64), "int16", 2e-3, 0, variable=True)
    y = p.t((1, 8), "int8", 2e-3, 0)   # fine enough that the outputs vary with the input
    return p.model("SVDF", (x, wf, wt, b, state), (y,), rank=2, fused_activation_function="RELU")


def _svdf_time8() -> Model:
    """int8 time weights and an int8 state with a zero point (TensorFlow Lite Micro's only)."""
    p = _Probe()
    x = p.x((1, 24), "int8", 0.05, 0)
    wf = p.const(_weights((16, 24)), "int8", 0.01, 0)
    wt = p.const(np.arange(64).reshape(16, 4) % 9 - 4, "int8", 0.05, 0)
    b = p.const(np.arange(8) * 40 - 120, "int32", float(np.float32(0.02) * np.float32(0.05)), 0)
    state = p.t((1, 64), "int8", 0.02, -3, variable=True)
    y = p.t((1, 8), "int8", 2e-3, 0)
    return p.model("SVDF", (x, wf, wt, b, state), (y,), rank=2, fused_activation_function="RELU")


def _lstm() -> Model:
    p = _Probe()
    cells, depth = 8, 6
    x = p.x((1, 3, depth), "int8", 0.05, 0)
    wx = [p.const(_weights((cells, depth)), "int8", 0.01, 0) for _ in range(4)]
    wh = [p.const(_weights((cells, cells)), "int8", 0.01, 0) for _ in range(4)]
    b = [p.const(np.zeros(cells), "int32", float(np.float32(0.05) * np.float32(0.01)), 0) for _ in range(4)]
    out_state = p.t((1, cells), "int8", 0.02, 0, variable=True)
    cell_state = p.t((1, cells), "int16", 2.0 ** -11, 0, variable=True)
    inter = [p.t((0,), "float32", None) for _ in range(4)] + [p.t((0,), "int8", 0.007, 0)]
    y = p.t((1, 3, cells), "int8", 0.02, 0)
    inputs = [x, *wx, *wh, -1, -1, -1, *b, -1, -1, out_state, cell_state, -1, -1, -1, -1]
    return p.model("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, (y,), intermediates=inter,
                   fused_activation_function="TANH", cell_clip=0.0, proj_clip=0.0, time_major=False)


def _lstm_16x8(time_major: bool = False) -> Model:
    """int16 input and states, int8 weights, int64 biases (TensorFlow Lite Micro's 16x8 LSTM)."""
    p = _Probe()
    cells, depth, steps, xs, hs = 8, 6, 3, 2e-4, 1.5e-4
    x = p.x((steps, 2, depth) if time_major else (2, steps, depth), "int16", xs, 0)
    wx = [p.const(_weights((cells, depth)), "int8", 0.02 + 0.002 * g, 0) for g in range(4)]
    wh = [p.const(_weights((cells, cells)), "int8", 0.03 + 0.002 * g, 0) for g in range(4)]
    b = [p.const(np.arange(cells) * 600 - 2000 + (4000 if g == 1 else 0), "int64",
                 float(np.float32(xs) * np.float32(0.02 + 0.002 * g)), 0) for g in range(4)]
    out_state = p.t((2, cells), "int16", hs, 0, variable=True)
    cell_state = p.t((2, cells), "int16", 2.0 ** -11, 0, variable=True)
    y = p.t((steps, 2, cells) if time_major else (2, steps, cells), "int16", hs, 0)
    inputs = [x, *wx, *wh, -1, -1, -1, *b, -1, -1, out_state, cell_state, -1, -1, -1, -1]
    return p.model("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, (y,), fused_activation_function="TANH",
                   cell_clip=0.0 if time_major else 1.5, proj_clip=0.0, time_major=time_major)


def _strided_slice(act: str = "int8") -> Model:
    p = _Probe()
    x = p.x((2, 6, 5), act)
    begin, end, strides = p.const([0, 1, 4], "int32"), p.const([2, 6, 0], "int32"), p.const([1, 2, -2], "int32")
    y = p.t((2, 3, 2), act)
    return p.model("STRIDED_SLICE", (x, begin, end, strides), (y,), begin_mask=0, end_mask=0, ellipsis_mask=0,
                   new_axis_mask=0, shrink_axis_mask=0, offset=False)


def _transpose(act: str = "int8") -> Model:
    p = _Probe()
    x = p.x((2, 3, 4), act)
    perm = p.const([2, 0, 1], "int32")
    y = p.t((4, 2, 3), act)
    return p.model("TRANSPOSE", (x, perm), (y,))


def _resize(op_type: str, act: str = "int8") -> Model:
    p = _Probe()
    x = p.x((1, 4, 4, 3), act)
    size = p.const([8, 6], "int32")
    y = p.t((1, 8, 6, 3), act)
    return p.model(op_type, (x, size), (y,), align_corners=False, half_pixel_centers=True)


def _batch_space(op_type: str, act: str = "int8") -> Model:
    p = _Probe()
    q = None if act == "float32" else 0.05
    to_space = op_type == "BATCH_TO_SPACE_ND"
    x = p.x((4, 2, 3, 3) if to_space else (1, 3, 5, 3), act, q)
    block = p.const([2, 2], "int32")
    pads = p.const([[0, 1], [1, 0]] if to_space else [[1, 0], [0, 1]], "int32")
    y = p.t((1, 3, 5, 3) if to_space else (4, 2, 3, 3), act, q)
    return p.model(op_type, (x, block, pads), (y,))


def _mirror_pad(act: str = "int8") -> Model:
    p = _Probe()
    q = None if act == "float32" else 0.05
    x = p.x((1, 4, 4, 3), act, q)
    pads = p.const([[0, 0], [1, 2], [3, 0], [0, 0]], "int32")
    y = p.t((1, 7, 7, 3), act, q)
    return p.model("MIRROR_PAD", (x, pads), (y,), mode=0)


def _prelu() -> Model:
    p = _Probe()
    x = p.x((1, 4, 4, 8))
    alpha = p.const(_weights((1, 1, 8)), "int8", 0.01, 0)
    y = p.t((1, 4, 4, 8), "int8", 0.04, 0)
    return p.model("PRELU", (x, alpha), (y,))


def _reduce(op_type: str, act: str = "int8") -> Model:
    p = _Probe()
    x = p.x((1, 4, 4, 8), act, 0.05 if act == "int8" else 1e-3)
    axes = p.const([1, 2], "int32")
    y = p.t((1, 1, 1, 8), act, 0.05 if act == "int8" else 0.02)
    return p.model(op_type, (x, axes), (y,), keep_dims=True)


def _broadcast_to(act: str = "int8") -> Model:
    p = _Probe()
    x = p.x((1, 1, 8), act)
    shape = p.const([2, 4, 4, 8], "int32")
    y = p.t((2, 4, 4, 8), act)
    return p.model("BROADCAST_TO", (x, shape), (y,))



# --- float32 probes ------------------------------------------------------------------------------
def _f32_weighted(op_type: str, kernel: int = 3) -> Model:
    p = _Probe()
    if op_type == "FULLY_CONNECTED":
        x = p.x((2, 32), "float32", None)
        w = p.const(_weights((16, 32)), "float32")
        b = p.const(np.zeros(16), "float32")
        y = p.t((2, 16), "float32", None)
        return p.model(op_type, (x, w, b), (y,), fused_activation_function="NONE", weights_format=0)
    x = p.x((1, 8, 8, 8), "float32", None)
    depthwise = op_type == "DEPTHWISE_CONV_2D"
    w = p.const(_weights((1, kernel, kernel, 8) if depthwise else (8, kernel, kernel, 8)), "float32")
    b = p.const(np.zeros(8), "float32")
    y = p.t((1, 8, 8, 8), "float32", None)
    options = dict(padding="SAME", stride_h=1, stride_w=1, dilation_h_factor=1, dilation_w_factor=1,
                   fused_activation_function="NONE")
    if depthwise:
        options["depth_multiplier"] = 1
    return p.model(op_type, (x, w, b), (y,), **options)


def _f32_binary(op_type: str, broadcast: bool = False) -> Model:
    p = _Probe()
    a = p.x((1, 4, 4, 8), "float32", None)
    b = p.x((1, 1, 1, 8) if broadcast else (1, 4, 4, 8), "float32", None)
    y = p.t((1, 4, 4, 8), "float32", None)
    return p.model(op_type, (a, b), (y,), fused_activation_function="NONE")


def _f32_unary(op_type: str, **options) -> Model:
    p = _Probe()
    x = p.x((2, 64), "float32", None)
    y = p.t((2, 64), "float32", None)
    return p.model(op_type, (x,), (y,), **options)


def _f32_pool(op_type: str) -> Model:
    p = _Probe()
    x = p.x((1, 8, 8, 4), "float32", None)
    y = p.t((1, 4, 4, 4), "float32", None)
    return p.model(op_type, (x,), (y,), padding="VALID", stride_h=2, stride_w=2, filter_height=2, filter_width=2,
                   fused_activation_function="NONE")


def _f32_reshape() -> Model:
    p = _Probe()
    x = p.x((1, 4, 8), "float32", None)
    s = p.const([32], "int32")
    y = p.t((32,), "float32", None)
    return p.model("RESHAPE", (x, s), (y,), new_shape=(32,))


def _f32_pad() -> Model:
    p = _Probe()
    x = p.x((1, 4, 4, 3), "float32", None)
    pads = p.const([[0, 0], [1, 1], [2, 0], [0, 0]], "int32")
    y = p.t((1, 6, 6, 3), "float32", None)
    return p.model("PAD", (x, pads), (y,))


def _f32_concatenation() -> Model:
    p = _Probe()
    a, b = p.x((1, 4, 4, 3), "float32", None), p.x((1, 4, 4, 5), "float32", None)
    y = p.t((1, 4, 4, 8), "float32", None)
    return p.model("CONCATENATION", (a, b), (y,), axis=-1, fused_activation_function="NONE")


def _f32_mean(op_type: str = "MEAN") -> Model:
    p = _Probe()
    x = p.x((1, 4, 4, 8), "float32", None)
    axes = p.const([1, 2], "int32")
    y = p.t((1, 1, 1, 8), "float32", None)
    return p.model(op_type, (x, axes), (y,), keep_dims=True)


def _f32_strided_slice() -> Model:
    p = _Probe()
    x = p.x((2, 6, 5), "float32", None)
    begin, end, strides = p.const([0, 1, 4], "int32"), p.const([2, 6, 0], "int32"), p.const([1, 2, -2], "int32")
    y = p.t((2, 3, 2), "float32", None)
    return p.model("STRIDED_SLICE", (x, begin, end, strides), (y,), begin_mask=0, end_mask=0, ellipsis_mask=0,
                   new_axis_mask=0, shrink_axis_mask=0, offset=False)


def _f32_transpose() -> Model:
    p = _Probe()
    x = p.x((2, 3, 4), "float32", None)
    perm = p.const([2, 0, 1], "int32")
    y = p.t((4, 2, 3), "float32", None)
    return p.model("TRANSPOSE", (x, perm), (y,))


def _f32_transpose_conv() -> Model:
    p = _Probe()
    shape = p.const([1, 8, 8, 4], "int32")
    w = p.const(_weights((4, 3, 3, 8)), "float32")
    x = p.x((1, 4, 4, 8), "float32", None)
    b = p.const(np.zeros(4), "float32")
    y = p.t((1, 8, 8, 4), "float32", None)
    return p.model("TRANSPOSE_CONV", (shape, w, x, b), (y,), padding="SAME", stride_h=2, stride_w=2,
                   fused_activation_function="NONE")


def _f32_svdf(activation: str = "RELU") -> Model:
    p = _Probe()
    x = p.x((2, 24), "float32", None)
    wf = p.const(_weights((16, 24)) / 64.0, "float32")
    wt = p.const((np.arange(64).reshape(16, 4) % 9 - 4) / 4.0, "float32")
    b = p.const(np.arange(4) * 0.25 + 0.25, "float32")
    state = p.t((2, 64), "float32", None, variable=True)
    y = p.t((2, 4), "float32", None)
    return p.model("SVDF", (x, wf, wt, b, state), (y,), rank=4, fused_activation_function=activation)


def _f32_lstm(time_major: bool = False) -> Model:
    p = _Probe()
    cells, depth, steps = 8, 6, 3
    x = p.x((steps, 2, depth) if time_major else (2, steps, depth), "float32", None)
    wx = [p.const(_weights((cells, depth)) / (8.0 + g), "float32") for g in range(4)]
    wh = [p.const(_weights((cells, cells)) / (12.0 + g), "float32") for g in range(4)]
    b = [p.const(np.arange(cells) * 0.125 - 0.5 + (1.0 if g == 1 else 0.0), "float32") for g in range(4)]
    out_state = p.t((2, cells), "float32", None, variable=True)
    cell_state = p.t((2, cells), "float32", None, variable=True)
    y = p.t((steps, 2, cells) if time_major else (2, steps, cells), "float32", None)
    inputs = [x, *wx, *wh, -1, -1, -1, *b, -1, -1, out_state, cell_state, -1, -1, -1, -1]
    return p.model("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, (y,), fused_activation_function="TANH",
                   cell_clip=0.0 if time_major else 2.0, proj_clip=0.0, time_major=time_major)


def _jump() -> Model:
    """JUMP alone, as every probe is one op (model.importers.control_flow inlines IF and WHILE
    into JUMPs and COPYs; tests/test_control_flow.py runs those): on a false condition to the
    end, else on to the end; the condition is the graph's output."""
    p = _Probe()
    cond = p.x((1,), "bool", None)
    op = Operator(0, "JUMP", (cond,), (), {"target": 1, "when": "if_false"})
    return Model("probe:JUMP", p.tensors, [op], tuple(p.inputs), (cond,), source="probe:JUMP")


def _compare(op_type: str, dtype: str, broadcast: bool = False) -> Model:
    p = _Probe()
    scale = {"int8": 0.05, "int16": 0.001}.get(dtype)
    a = p.x((1, 4, 4, 8), dtype, scale, 3 if dtype == "int8" else 0)
    b = p.x((1, 1, 1, 8) if broadcast else (1, 4, 4, 8), dtype, 0.002 if dtype == "int16" else scale,
            -2 if dtype == "int8" else 0)
    y = p.t((1, 4, 4, 8), "bool", None)
    return p.model(op_type, (a,) if op_type == "LOGICAL_NOT" else (a, b), (y,))


def _arg(op_type: str, dtype: str) -> Model:
    p = _Probe()
    x = p.x((2, 5, 8), dtype, 0.05 if dtype == "int8" else None, 0)
    axis = p.const([-1], "int32")
    y = p.t((2, 5), "int32", None)
    return p.model(op_type, (x, axis), (y,), output_type=2)


def _gather(dtype: str) -> Model:
    p = _Probe()
    scale = 0.05 if dtype == "int8" else None
    x = p.t((10, 8), dtype, scale, 0, data=(np.arange(80).reshape(10, 8) % 7 - 3).astype(dtype))
    idx = p.x((4,), "int32", None)
    y = p.t((4, 8), dtype, scale, 0)
    return p.model("GATHER", (x, idx), (y,), axis=0, batch_dims=0)


def _gather_batched(dtype: str) -> Model:
    """batch_dims 1: each of two batches gathers along axis 2 with its own three indices."""
    p = _Probe()
    scale = 0.05 if dtype == "int8" else None
    x = p.x((2, 3, 5, 4), dtype, scale, 0)
    idx = p.x((2, 3), "int32", None)
    y = p.t((2, 3, 3, 4), dtype, scale, 0)
    return p.model("GATHER", (x, idx), (y,), axis=2, batch_dims=1)


def _reverse(dtype: str, axes: Sequence[int] = (1, 2)) -> Model:
    p = _Probe()
    scale = 0.05 if dtype in ("int8", "uint8") else 1e-3 if dtype == "int16" else None
    x = p.x((2, 3, 4, 8), dtype, scale, 0)
    a = p.const(list(axes), "int32")
    y = p.t((2, 3, 4, 8), dtype, scale, 0)
    return p.model("REVERSE_V2", (x, a), (y,))


def _reduce_all_probe(keep: bool = False) -> Model:
    """Over axes 1 and 3, or (keep_dims) the last only, whose runs of eight an input of a true
    block shows as true."""
    p = _Probe()
    x = p.x((2, 3, 4, 8), "bool", None)
    a = p.const([-1] if keep else [1, -1], "int32")
    y = p.t((2, 3, 4, 1) if keep else (2, 4), "bool", None)
    return p.model("REDUCE_ALL", (x, a), (y,), keep_dims=keep)


def _select(dtype: str) -> Model:
    p = _Probe()
    scale = 0.05 if dtype == "int8" else 1e-3 if dtype == "int16" else None
    c = p.x((1, 4, 1, 8), "bool", None)
    x, y_ = p.x((1, 4, 4, 8), dtype, scale, 0), p.x((1, 1, 4, 8), dtype, scale, 0)
    y = p.t((1, 4, 4, 8), dtype, scale, 0)
    return p.model("SELECT_V2", (c, x, y_), (y,))


def _cast(dtype: str) -> Model:
    p = _Probe()
    x = p.x((2, 4, 8), dtype, None)
    y = p.t((2, 4, 8), "int32" if dtype != "int32" else "float32", None)
    return p.model("CAST", (x,), (y,))


def _fill(dtype: str) -> Model:
    p = _Probe()
    dims = p.const([2, 4, 8], "int32")
    scale = 0.05 if dtype == "int8" else None
    v = p.x((), dtype, scale, 0)
    y = p.t((2, 4, 8), dtype, scale, 0)
    return p.model("FILL", (dims, v), (y,))


def _strided_slice_typed(dtype: str) -> Model:
    p = _Probe()
    x = p.x((2, 6, 5), dtype, None)
    begin, end, strides = p.const([0, 1, 4], "int32"), p.const([2, 6, 0], "int32"), p.const([1, 2, -2], "int32")
    y = p.t((2, 3, 2), dtype, None)
    return p.model("STRIDED_SLICE", (x, begin, end, strides), (y,), begin_mask=0, end_mask=0, ellipsis_mask=0,
                   new_axis_mask=0, shrink_axis_mask=0, offset=False)


def _concatenation_typed(dtype: str) -> Model:
    p = _Probe()
    a, b = p.x((1, 4, 4, 3), dtype, None), p.x((1, 4, 4, 5), dtype, None)
    y = p.t((1, 4, 4, 8), dtype, None)
    return p.model("CONCATENATION", (a, b), (y,), axis=-1, fused_activation_function="NONE")


def _broadcast_to_typed(dtype: str) -> Model:
    p = _Probe()
    x = p.x((1, 1, 8), dtype, None)
    shape = p.const([2, 4, 4, 8], "int32")
    y = p.t((2, 4, 4, 8), dtype, None)
    return p.model("BROADCAST_TO", (x, shape), (y,))


def _resize_f32(op_type: str) -> Model:
    p = _Probe()
    x = p.x((1, 4, 4, 3), "float32", None)
    size = p.const([8, 6], "int32")
    y = p.t((1, 8, 6, 3), "float32", None)
    return p.model(op_type, (x, size), (y,), align_corners=False, half_pixel_centers=True)


def _pad_s32_probe() -> Model:
    p = _Probe()
    x = p.x((1, 4, 4, 3), "int32", None)
    pads = p.const([[0, 0], [1, 1], [2, 0], [0, 0]], "int32")
    y = p.t((1, 6, 6, 3), "int32", None)
    return p.model("PAD", (x, pads), (y,))


def _add_n_s8_probe() -> Model:
    p = _Probe()
    xs = [p.x((2, 4, 8), "int8", 0.05, 3) for _ in range(3)]
    y = p.t((2, 4, 8), "int8", 0.1, -5)
    return p.model("ADD_N", tuple(xs), (y,))


def _zeros_like(dtype: str) -> Model:
    p = _Probe()
    x = p.x((2, 4, 8), dtype, None)
    y = p.t((2, 4, 8), dtype, None)
    return p.model("ZEROS_LIKE", (x,), (y,))


def _floor(op_type: str, dtype: str) -> Model:
    p = _Probe()
    a, b = p.x((1, 4, 4, 8), dtype, None), p.x((1, 1, 1, 8), dtype, None)
    y = p.t((1, 4, 4, 8), dtype, None)
    return p.model(op_type, (a, b), (y,))


def _add_n_probe(dtype: str) -> Model:
    p = _Probe()
    xs = [p.x((2, 4, 8), dtype, None) for _ in range(3)]
    y = p.t((2, 4, 8), dtype, None)
    return p.model("ADD_N", tuple(xs), (y,))


def _norm_probe(op_type: str, dtype: str, shape: Tuple[int, ...] = (2, 4, 8)) -> Model:
    """L2_NORMALIZATION or LOG_SOFTMAX over the last axis (int8: the output quantisation TFLite
    requires)."""
    p = _Probe()
    out = {"L2_NORMALIZATION": (1.0 / 128, 0), "LOG_SOFTMAX": (16.0 / 256, 127)}[op_type]
    x = p.x(shape, dtype, 0.05 if dtype == "int8" else None, 3)
    y = p.t(shape, dtype, out[0] if dtype == "int8" else None, out[1])
    options = {"fused_activation_function": "NONE"} if op_type == "L2_NORMALIZATION" else {}
    return p.model(op_type, (x,), (y,), **options)


def _cumsum_probe(dtype: str, axis: int = -2, exclusive: bool = False, reverse: bool = False) -> Model:
    p = _Probe()
    x = p.x((2, 5, 8), dtype, 0.05 if dtype == "int8" else None, -2)
    a = p.const(np.array(axis, np.int32), "int32")
    y = p.t((2, 5, 8), dtype, 0.25 if dtype == "int8" else None, 1)
    return p.model("CUMSUM", (x, a), (y,), exclusive=exclusive, reverse=reverse)


def _binary_s32(op: str, broadcast: bool) -> Model:
    p = _Probe()
    a = p.x((1, 4, 4, 8), "int32", None)
    b = p.x((1, 1, 1, 8) if broadcast else (1, 4, 4, 8), "int32", None)
    y = p.t((1, 4, 4, 8), "int32", None)
    return p.model(op, (a, b), (y,), fused_activation_function="NONE")


def _shape_probe() -> Model:
    p = _Probe()
    x = p.x((2, 4, 8), "float32", None)
    y = p.t((3,), "int32", None)
    return p.model("SHAPE", (x,), (y,), out_type=2)


def _batch_matmul(dtype: str, adj_y: bool = False, constant_rhs: bool = False) -> Model:
    """LHS [2, 4, 12] times RHS [12, 8] (adj_y: [8, 12]), the RHS broadcast over the batch."""
    p = _Probe()
    scale = None if dtype == "float32" else 0.05
    zp = -3 if dtype == "int8" else 0
    x = p.x((2, 4, 12), dtype, scale, zp)
    shape = (8, 12) if adj_y else (12, 8)
    if constant_rhs:
        w = p.t(shape, dtype, scale and 0.02, 0, data=(np.arange(96).reshape(shape) % 11 - 5).astype(dtype))
    else:
        w = p.x(shape, dtype, scale and 0.02, 0)
    y = p.t((2, 4, 8), dtype, scale and 0.1, 5 if dtype == "int8" else 0)
    return p.model("BATCH_MATMUL", (x, w), (y,), adj_x=False, adj_y=adj_y)


def _gather_nd(dtype: str) -> Model:
    p = _Probe()
    scale = 0.05 if dtype == "int8" else None
    x = p.x((4, 5, 8), dtype, scale, 0)
    idx = p.t((3, 2), "int32", None, data=np.array([[3, 4], [0, 0], [2, 1]], np.int32))
    y = p.t((3, 8), dtype, scale, 0)
    return p.model("GATHER_ND", (x, idx), (y,))


def _broadcast_args(dtype: str) -> Model:
    """A constant [1, 1, 1, 1] and a shape of two: every pair of values broadcasts."""
    p = _Probe()
    a, b = p.const([1, 1, 1, 1], dtype), p.x((2,), dtype, None)
    y = p.t((4,), dtype, None)
    return p.model("BROADCAST_ARGS", (a, b), (y,))


def _s64_binary(op_type: str, broadcast: bool = False) -> Model:
    p = _Probe()
    a = p.x((1, 4, 4, 8), "int64", None)
    b = p.x((1, 1, 1, 8) if broadcast else (1, 4, 4, 8), "int64", None)
    y = p.t((1, 4, 4, 8), "int64", None)
    return p.model(op_type, (a, b), (y,))


def _s64_broadcast_to() -> Model:
    p = _Probe()
    x = p.x((1, 1, 8), "int64", None)
    shape = p.const([2, 4, 4, 8], "int32")
    y = p.t((2, 4, 4, 8), "int64", None)
    return p.model("BROADCAST_TO", (x, shape), (y,))


def _s64_concatenation(pack: bool = False) -> Model:
    p = _Probe()
    if pack:   # PACK runs on the CONCATENATION row
        xs = [p.x((4, 8), "int64", None) for _ in range(3)]
        y = p.t((4, 3, 8), "int64", None)
        return p.model("PACK", tuple(xs), (y,), axis=1, values_count=3)
    a, b = p.x((1, 4, 4, 3), "int64", None), p.x((1, 4, 4, 5), "int64", None)
    y = p.t((1, 4, 4, 8), "int64", None)
    return p.model("CONCATENATION", (a, b), (y,), axis=-1, fused_activation_function="NONE")


#: The int64 rows' probes.
_PROBES_S64: Dict[Tuple[str, str], Callable[[], List[Model]]] = {
    **{(op, "s64"): (lambda op=op: [_s64_binary(op), _s64_binary(op, True)]) for op in ("MAXIMUM", "MINIMUM")},
    ("ZEROS_LIKE", "s64"): lambda: [_zeros_like("int64")],
    ("BROADCAST_TO", "s64"): lambda: [_s64_broadcast_to()],
    ("CONCATENATION", "s64"): lambda: [_s64_concatenation(), _s64_concatenation(pack=True)],
    ("REVERSE_V2", "s64"): lambda: [_reverse("int64"), _reverse("int64", (-1,))],
}


def _u8_broadcast_to() -> Model:
    p = _Probe()
    x = p.x((1, 1, 8), "uint8", 0.05, 128)
    shape = p.const([2, 4, 4, 8], "int32")
    y = p.t((2, 4, 4, 8), "uint8", 0.05, 128)
    return p.model("BROADCAST_TO", (x, shape), (y,))


#: The uint8 rows' probes (QUANTIZE int8 -> uint8 is the int8 REQUANTIZE row's).
_PROBES_U8: Dict[Tuple[str, str], Callable[[], List[Model]]] = {
    ("DEQUANTIZE", "u8"): lambda: [_quantize("uint8", "float32")],
    ("REQUANTIZE", "u8"): lambda: [_quantize("uint8", "int8")],
    ("BROADCAST_TO", "u8"): lambda: [_u8_broadcast_to()],
    ("REVERSE_V2", "u8"): lambda: [_reverse("uint8"), _reverse("uint8", (-1,))],
}


#: The rows of the ops whose row their data input's element type chooses.
_TYPED_PROBES: Dict[Tuple[str, str], Callable[[], List[Model]]] = {
    **{(op, t): (lambda op=op, dt=dt: [_compare(op, dt), _compare(op, dt, True)])
       for op in ("EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL")
       for t, dt in (("s8", "int8"), ("f32", "float32"), ("s32", "int32"), ("bool", "bool"), ("s64", "int64"),
                     ("s16x8", "int16"))
       if t != "bool" or op in ("EQUAL", "NOT_EQUAL")},
    **{(op, "bool"): (lambda op=op: [_compare(op, "bool")] + ([_compare(op, "bool", True)]
                                                                if op != "LOGICAL_NOT" else []))
       for op in ("LOGICAL_AND", "LOGICAL_OR", "LOGICAL_NOT")},
    **{(op, t): (lambda op=op, dt=dt: [_arg(op, dt)]) for op in ("ARG_MAX", "ARG_MIN")
       for t, dt in (("s8", "int8"), ("f32", "float32"), ("s32", "int32"))},
    **{(op, t): (lambda fn=fn, dt=dt: [fn(dt)]) for op, fn in (("GATHER", _gather), ("SELECT_V2", _select))
       for t, dt in (("s8", "int8"), ("f32", "float32"), ("s32", "int32"), ("bool", "bool"))},
    **{("GATHER", t): (lambda dt=dt: [_gather(dt), _gather_batched(dt)])
       for t, dt in (("s8", "int8"), ("f32", "float32"), ("s32", "int32"), ("bool", "bool"))},
    **{("REVERSE_V2", t): (lambda dt=dt: [_reverse(dt), _reverse(dt, (-1,))])
       for t, dt in (("s8", "int8"), ("s16x8", "int16"), ("f32", "float32"), ("s32", "int32"), ("bool", "bool"))},
    ("REDUCE_ALL", "bool"): lambda: [_reduce_all_probe(), _reduce_all_probe(True)],
    ("SELECT_V2", "s16x8"): lambda: [_select("int16")],
    **{("CAST", t): (lambda dt=dt: [_cast(dt)])
       for t, dt in (("s8", "int8"), ("f32", "float32"), ("s32", "int32"), ("bool", "bool"), ("s16x8", "int16"))},
    **{("FILL", t): (lambda dt=dt: [_fill(dt)])
       for t, dt in (("s8", "int8"), ("f32", "float32"), ("s32", "int32"), ("bool", "bool"))},
    ("ZEROS_LIKE", "f32"): lambda: [_zeros_like("float32")], ("ZEROS_LIKE", "s32"): lambda: [_zeros_like("int32")],
    ("SHAPE", "s32"): lambda: [_shape_probe()],
    **{(op, t): (lambda op=op, dt=dt: [_floor(op, dt)]) for op in ("FLOOR_DIV", "FLOOR_MOD")
       for t, dt in (("f32", "float32"), ("s32", "int32"))},
    ("ADD_N", "f32"): lambda: [_add_n_probe("float32")], ("ADD_N", "s32"): lambda: [_add_n_probe("int32")],
    **{(op, t): (lambda op=op, dt=dt: [_norm_probe(op, dt)]) for op in ("L2_NORMALIZATION", "LOG_SOFTMAX")
       for t, dt in (("s8", "int8"), ("f32", "float32"))},
    ("LOG_SOFTMAX", "s8"): lambda: [_norm_probe("LOG_SOFTMAX", "int8"), _norm_probe("LOG_SOFTMAX", "int8", (3, 100))],
    ("L2_POOL_2D", "f32"): lambda: [_f32_pool("L2_POOL_2D")],
    **{("CUMSUM", t): (lambda dt=dt: [_cumsum_probe(dt), _cumsum_probe(dt, 0, True, True)])
       for t, dt in (("s8", "int8"), ("f32", "float32"))},
    **{("BATCH_MATMUL", t): (lambda dt=dt: [_batch_matmul(dt), _batch_matmul(dt, True, True)])
       for t, dt in (("s8", "int8"), ("s16x8", "int16"), ("f32", "float32"))},
    **{("GATHER_ND", t): (lambda dt=dt: [_gather_nd(dt)])
       for t, dt in (("s8", "int8"), ("f32", "float32"), ("s32", "int32"))},
    ("BROADCAST_ARGS", "s32"): lambda: [_broadcast_args("int32"), _broadcast_args("int64")],
    # the type audit's rows (arenaplan.ops.tflm_types): values moved as they are
    **{("STRIDED_SLICE", t): (lambda dt=dt: [_strided_slice_typed(dt)]) for t, dt in (("s32", "int32"), ("bool", "bool"))},
    **{("CONCATENATION", t): (lambda dt=dt: [_concatenation_typed(dt)]) for t, dt in (("s32", "int32"),
                                                                                     ("bool", "bool"))},
    **{("BROADCAST_TO", t): (lambda dt=dt: [_broadcast_to_typed(dt)])
       for t, dt in (("f32", "float32"), ("s32", "int32"), ("bool", "bool"))},
    ("ZEROS_LIKE", "s8"): lambda: [_zeros_like("int8")],
    **{(op, "f32"): (lambda op=op: [_f32_binary(op), _f32_binary(op, True)])
       for op in ("MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "PRELU")},
    **{(op, "f32"): (lambda op=op: [_f32_mean(op)]) for op in ("SUM", "REDUCE_MAX", "REDUCE_MIN")},
    **{(op, "f32"): (lambda op=op: [_batch_space(op, "float32")]) for op in ("BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND")},
    ("MIRROR_PAD", "f32"): lambda: [_mirror_pad("float32")],
    ("RESIZE_NEAREST_NEIGHBOR", "f32"): lambda: [_resize_f32("RESIZE_NEAREST_NEIGHBOR")],
    ("RESIZE_BILINEAR", "f32"): lambda: [_resize_f32("RESIZE_BILINEAR")],
    ("ADD_N", "s8"): lambda: [_add_n_s8_probe()],
    **{(op, "s32"): (lambda op=op: [_binary_s32(op, False), _binary_s32(op, True)])
       for op in ("MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE")},
    ("PAD", "s32"): lambda: [_pad_s32_probe()],
}


#: The float32 rows' probes.
_PROBES_F32: Dict[Tuple[str, str], Callable[[], List[Model]]] = {
    ("FULLY_CONNECTED", "f32"): lambda: [_f32_weighted("FULLY_CONNECTED")],
    ("CONV_2D", "f32"): lambda: [_f32_weighted("CONV_2D"), _f32_weighted("CONV_2D", 1)],
    ("DEPTHWISE_CONV_2D", "f32"): lambda: [_f32_weighted("DEPTHWISE_CONV_2D")],
    ("ADD", "f32"): lambda: [_f32_binary("ADD"), _f32_binary("ADD", True)],
    ("SUB", "f32"): lambda: [_f32_binary("SUB"), _f32_binary("SUB", True)],
    ("MUL", "f32"): lambda: [_f32_binary("MUL"), _f32_binary("MUL", True)],
    ("RESHAPE", "f32"): lambda: [_f32_reshape()],
    ("LOGISTIC", "f32"): lambda: [_f32_unary("LOGISTIC")],
    ("TANH", "f32"): lambda: [_f32_unary("TANH")],
    ("RELU", "f32"): lambda: [_f32_unary("RELU"), _f32_unary("RELU6"), _f32_unary("RELU_N1_TO_1")],
    ("SOFTMAX", "f32"): lambda: [_f32_unary("SOFTMAX", beta=1.0)],
    ("AVERAGE_POOL_2D", "f32"): lambda: [_f32_pool("AVERAGE_POOL_2D")],
    ("MAX_POOL_2D", "f32"): lambda: [_f32_pool("MAX_POOL_2D")],
    ("PAD", "f32"): lambda: [_f32_pad()],
    ("CONCATENATION", "f32"): lambda: [_f32_concatenation()],
    ("MEAN", "f32"): lambda: [_f32_mean()],
    ("STRIDED_SLICE", "f32"): lambda: [_f32_strided_slice()],
    ("LEAKY_RELU", "f32"): lambda: [_f32_unary("LEAKY_RELU", alpha=0.2)],
    ("HARD_SWISH", "f32"): lambda: [_f32_unary("HARD_SWISH")],
    ("TRANSPOSE", "f32"): lambda: [_f32_transpose()],
    ("TRANSPOSE_CONV", "f32"): lambda: [_f32_transpose_conv()],
    ("SVDF", "f32"): lambda: [_f32_svdf(), _f32_svdf("TANH")],
    ("UNIDIRECTIONAL_SEQUENCE_LSTM", "f32"): lambda: [_f32_lstm(), _f32_lstm(time_major=True)],
    **{(op, "f32"): (lambda op=op: [_f32_unary(op)]) for op in lowering._MATH_F32},
    ("DIV", "f32"): lambda: [_f32_binary("DIV"), _f32_binary("DIV", True)],
    **{(op, "s32"): (lambda op=op: [_binary_s32(op, False), _binary_s32(op, True)])
       for op in ("DIV", "ADD", "SUB", "MUL")},
}

#: Probe models of every op table row, by (row name, tensor types).
_PROBES: Dict[Tuple[str, str], Callable[[], List[Model]]] = {
    ("CONV_2D", "s8"): lambda: [_conv(3), _conv(1), _conv(3, channels=3)],
    ("DEPTHWISE_CONV_2D", "s8"): lambda: [_conv(3, depthwise=True), _conv(3, depthwise=True, multiplier=2)],
    ("FULLY_CONNECTED", "s8"): lambda: [_fully_connected(32), _fully_connected(7)],
    ("AVERAGE_POOL_2D", "s8"): lambda: [_pool("AVERAGE_POOL_2D")],
    ("MAX_POOL_2D", "s8"): lambda: [_pool("MAX_POOL_2D")],
    ("ADD", "s8"): lambda: [_binary("ADD"), _binary("ADD", broadcast=True)],
    ("SUB", "s8"): lambda: [_binary("SUB"), _binary("SUB", broadcast=True)],
    ("MUL", "s8"): lambda: [_binary("MUL"), _binary("MUL", broadcast=True)],
    ("SOFTMAX", "s8"): lambda: [_softmax(10), _softmax(200)],
    ("RESHAPE", "s8"): lambda: [_reshape()],
    ("JUMP", "s8"): lambda: [_jump()],
    ("QUANTIZE", "s8"): lambda: [_quantize("float32", "int8")],
    ("DEQUANTIZE", "s8"): lambda: [_quantize("int8", "float32")],
    ("REQUANTIZE", "s8"): lambda: [_quantize("int8", "int8"), _quantize("int16", "int8"), _quantize("int8", "int16"),
                                   _quantize("int8", "uint8")],
    ("CONCATENATION", "s8"): lambda: [_concatenation()],
    ("PAD", "s8"): lambda: [_pad()],
    ("MEAN", "s8"): lambda: [_mean()],
    ("SVDF", "s8"): lambda: [_svdf(), _svdf_time8()],
    ("UNIDIRECTIONAL_SEQUENCE_LSTM", "s8"): lambda: [_lstm()],
    ("RELU", "s8"): lambda: [_unary("RELU", 0.05, -128)],
    ("LEAKY_RELU", "s8"): lambda: [_unary("LEAKY_RELU", 0.04, 2, alpha=0.2)],
    ("LOGISTIC", "s8"): lambda: [_unary("LOGISTIC", 1.0 / 256, -128)],
    ("TANH", "s8"): lambda: [_unary("TANH", 1.0 / 128, 0)],
    ("HARD_SWISH", "s8"): lambda: [_unary("HARD_SWISH", 0.04, -100)],
    ("TRANSPOSE_CONV", "s8"): lambda: [_transpose_conv()],
    ("STRIDED_SLICE", "s8"): lambda: [_strided_slice()],
    ("TRANSPOSE", "s8"): lambda: [_transpose()],
    ("MAXIMUM", "s8"): lambda: [_binary("MAXIMUM"), _binary("MAXIMUM", broadcast=True)],
    ("MINIMUM", "s8"): lambda: [_binary("MINIMUM"), _binary("MINIMUM", broadcast=True)],
    ("ABS", "s8"): lambda: [_unary("ABS", 0.1, -128)],
    ("RESIZE_NEAREST_NEIGHBOR", "s8"): lambda: [_resize("RESIZE_NEAREST_NEIGHBOR")],
    ("RESIZE_BILINEAR", "s8"): lambda: [_resize("RESIZE_BILINEAR")],
    ("BATCH_TO_SPACE_ND", "s8"): lambda: [_batch_space("BATCH_TO_SPACE_ND")],
    ("SPACE_TO_BATCH_ND", "s8"): lambda: [_batch_space("SPACE_TO_BATCH_ND")],
    ("MIRROR_PAD", "s8"): lambda: [_mirror_pad()],
    ("PRELU", "s8"): lambda: [_prelu()],
    ("REDUCE_MAX", "s8"): lambda: [_reduce("REDUCE_MAX")],
    ("REDUCE_MIN", "s8"): lambda: [_reduce("REDUCE_MIN")],
    ("SUM", "s8"): lambda: [_reduce("SUM")],
    ("BROADCAST_TO", "s8"): lambda: [_broadcast_to()],
    ("SQUARED_DIFFERENCE", "s8"): lambda: [_binary("SQUARED_DIFFERENCE"),
                                           _binary("SQUARED_DIFFERENCE", broadcast=True)],
    ("CONV_2D", "s16x8"): lambda: [_conv(3, act="int16"), _conv(1, act="int16")],
    ("DEPTHWISE_CONV_2D", "s16x8"): lambda: [_conv(3, act="int16", depthwise=True)],
    ("FULLY_CONNECTED", "s16x8"): lambda: [_fully_connected(32, "int16")],
    ("ADD", "s16x8"): lambda: [_binary("ADD", "int16"), _binary("ADD", "int16", broadcast=True)],
    ("SUB", "s16x8"): lambda: [_binary("SUB", "int16"), _binary("SUB", "int16", broadcast=True)],
    ("PAD", "s16x8"): lambda: [_pad("int16")],
    ("QUANTIZE", "s16x8"): lambda: [_quantize("float32", "int16")],
    ("DEQUANTIZE", "s16x8"): lambda: [_quantize("int16", "float32")],
    ("TRANSPOSE_CONV", "s16x8"): lambda: [_transpose_conv("int16")],
    ("RESHAPE", "s16x8"): lambda: [_reshape("int16")],
    ("STRIDED_SLICE", "s16x8"): lambda: [_strided_slice("int16")],
    ("TRANSPOSE", "s16x8"): lambda: [_transpose("int16")],
    ("CONCATENATION", "s16x8"): lambda: [_concatenation("int16")],
    ("LEAKY_RELU", "s16x8"): lambda: [_unary("LEAKY_RELU", 0.04, 0, "int16", alpha=0.2)],
    ("AVERAGE_POOL_2D", "s16x8"): lambda: [_pool("AVERAGE_POOL_2D", "int16")],
    ("MAX_POOL_2D", "s16x8"): lambda: [_pool("MAX_POOL_2D", "int16")],
    ("MUL", "s16x8"): lambda: [_binary("MUL", "int16"), _binary("MUL", "int16", broadcast=True)],
    ("RELU", "s16x8"): lambda: [_unary("RELU", 0.04, 0, "int16"), _unary("RELU6", 0.04, 0, "int16")],
    ("MEAN", "s16x8"): lambda: [_mean("int16")],
    ("RSQRT", "s8"): lambda: [_unary("RSQRT", 0.1, -20)],
    ("ELU", "s8"): lambda: [_unary("ELU", 0.04, 30)],
    ("DIV", "s8"): lambda: [_binary("DIV"), _binary("DIV", broadcast=True)],
    ("SOFTMAX", "s16x8"): lambda: [_softmax_s16(10), _softmax_s16(200)],
    ("LOGISTIC", "s16x8"): lambda: [_sigmoid_s16("LOGISTIC", 2.0 ** -12), _sigmoid_s16("LOGISTIC", 3e-4)],
    ("TANH", "s16x8"): lambda: [_sigmoid_s16("TANH", 2.0 ** -11), _sigmoid_s16("TANH", 3e-4)],
    ("MAXIMUM", "s16x8"): lambda: [_binary("MAXIMUM", "int16"), _binary("MAXIMUM", "int16", broadcast=True)],
    ("MINIMUM", "s16x8"): lambda: [_binary("MINIMUM", "int16"), _binary("MINIMUM", "int16", broadcast=True)],
    ("ABS", "s16x8"): lambda: [_unary("ABS", 0.05, 0, "int16"), _unary("ABS", 0.03, 0, "int16")],
    ("RESIZE_NEAREST_NEIGHBOR", "s16x8"): lambda: [_resize("RESIZE_NEAREST_NEIGHBOR", "int16")],
    ("BROADCAST_TO", "s16x8"): lambda: [_broadcast_to("int16")],
    ("SQUARED_DIFFERENCE", "s16x8"): lambda: [_binary("SQUARED_DIFFERENCE", "int16"),
                                              _binary("SQUARED_DIFFERENCE", "int16", broadcast=True)],
    ("SUM", "s16x8"): lambda: [_reduce("SUM", "int16")],
    ("UNIDIRECTIONAL_SEQUENCE_LSTM", "s16x8"): lambda: [_lstm_16x8(), _lstm_16x8(time_major=True)],
}


def _isas() -> List[str]:
    return list(ISA_CODES)


def _families(models: List[Model], isa: str, reference: str) -> Tuple[List[str], List[str]]:
    """(variant families in the order the row lists them, those that may run in place)."""
    names: Dict[str, bool] = {}
    refused: List[UnsupportedModel] = []
    for m in models:
        try:
            kernel = lower_op(m, m.operators[0], isa, reference)
        except UnsupportedModel as exc:   # a form one rule refuses (SVDF's int8 time weights: litert)
            refused.append(exc)
            continue
        for v in kernel.variants:
            family = v.family or v.name
            names[family] = names.get(family, False) or v.in_place
    if len(refused) == len(models):
        raise refused[0]
    return list(names), [n for n, ip in names.items() if ip]


def probe_models(key: Tuple[str, str]) -> Optional[Callable[[], List[Model]]]:
    """The probe models of an op table row (its name and types, as _core.ops() gives them),
    or None for a row that has none: the one place the probe tables are read."""
    return (_PROBES.get(key) or _PROBES_F32.get(key) or _TYPED_PROBES.get(key) or _PROBES_S64.get(key)
            or _PROBES_U8.get(key))


def rows() -> List[dict]:
    """One record per op table row: name, types, and per ISA the variant families (a dict by
    rounding rule where the rule changes them), and the families that may run in place."""
    out = []
    for row in _core.ops():
        key = (row["name"], row["types"])
        probe = probe_models(key)
        if probe is None:
            raise KeyError(f"op table row {key} has no probe model in arenaplan.ops.coverage; add one")
        models = probe()
        per_isa, in_place = {}, set()
        for isa in _isas():
            by_ref = {}
            references = list(REFERENCES)
            for reference in references:   # one list where the rule changes nothing
                try:
                    names, ip = _families(models, isa, reference)
                except UnsupportedModel:   # a row one rule refuses (SUM: LiteRT's reference reads uint8)
                    continue
                by_ref[reference] = names
                in_place.update(ip)
            if not by_ref:
                raise KeyError(f"op table row {key}: every rounding rule refuses its probe models")
            one = len({tuple(v) for v in by_ref.values()}) == 1 and len(by_ref) == len(references)
            per_isa[isa] = next(iter(by_ref.values())) if one else by_ref
        out.append({"name": row["name"], "types": row["types"], "has_blob": bool(row["has_blob"]),
                    "variants": per_isa, "in_place": sorted(in_place)})
    return out


def _cell(variants) -> str:
    if isinstance(variants, dict):
        return "; ".join(f"{ref}: {', '.join(names)}" for ref, names in variants.items())
    return ", ".join(variants)


#: How the builtins of lowering._RUNS_ON (and RELU6) use their row.
_RUNS_ON_TEXT = {
    "DEPTH_TO_SPACE": "the input read as [N*H, W, b, b, C/b^2], its second and third axes swapped",
    "PACK": "a copy of each input along the new axis; int8 inputs quantised as the output",
    "RELU6": "int8 and int16: QuantizedReluX's clamp to [0, 6], under tflm TFLite Micro's clamp of the "
             "input's values; float32: the float32 RELU row with its clamp",
    "RELU_N1_TO_1": "int8: QuantizedReluX's clamp to [-1, 1], litert only (TFLite Micro has no kernel); "
                    "float32: the float32 RELU row with its clamp",
    "SLICE": "stride 1",
    "COPY": "arenaplan's own op of inlined IF and WHILE, not a TFLite builtin: a copy of the bytes, any type",
    "EMBEDDING_LOOKUP": "int8 and float32: a GATHER of axis 0 over the value table, int32 ids",
    "SPACE_TO_DEPTH": "the input read as [N*H/b, b, W/b, b, C], its second and third axes swapped",
}


def _aliases() -> List[Tuple[str, str]]:
    """TFLite builtins the lowering runs on another op's row: (builtin, how)."""
    names = {row["name"] for row in _core.ops()}
    codes = {row["code"]: row["name"] for row in _core.ops()}
    found = []
    for builtin in sorted(set(lowering._LOWER) | set(lowering._LOWER_S16X8) | set(lowering._LOWER_F32)
                          | set(lowering._LOWER_TYPED)):
        if builtin not in names:
            how = codes[lowering._code(Operator(0, builtin, (), ()), {})]
            if builtin in ALIASING_OPS:
                how += " (the output aliases the input: no copy)"
            elif builtin in PER_OUTPUT_OPS:
                how += ", one op per output (a copy of its piece)"
            elif builtin == "READ_VARIABLE":
                how += (" (the readers read the resource variable's state in place where they run before "
                        "its next assignment; else a copy of it into an activation)")
            elif builtin == "ASSIGN_VARIABLE":
                how += (" (the value's op writes the resource variable's state directly where nothing "
                        "reads or changes it in between; else a copy of the value into it)")
            elif builtin in _RUNS_ON_TEXT:
                how += f" ({_RUNS_ON_TEXT[builtin]})"
            found.append((builtin, how))
    return found


#: The measured difference of the transcendental float32 rows from LiteRT (tests/test_float32.py).
_F32_BOUNDS = ("on x86-64 with glibc, 0 ulp from LiteRT over about 220,000 inputs each for LOGISTIC\n"
               "and TANH, 20,000 outputs of SOFTMAX and 65,536 of LOG_SOFTMAX. Another C library rounds\n"
               "`expf` / `tanhf` / `logf` on its own: a Cortex-M4 build with newlib (arm-none-eabi, under\n"
               "QEMU) is at most 2 ulp from LiteRT for LOGISTIC (131 of 49,152 outputs differ; 2 ulp over\n"
               "295,000 more of magnitude 1e-6 to 12), 3 ulp for TANH (2 of the 49,152 differ, by 2 ulp;\n"
               "3 ulp is reached at |x| from 0.1 to 0.54, where 154-185 of 49,152 inputs from 0.05 to 0.25\n"
               "differ), 5 ulp for SOFTMAX (4,942 of 49,152: the sum carries each exp's\n"
               "rounding) and 6 ulp for LOG_SOFTMAX (358 of 65,536, rows at scales from 0.01 to 30: an\n"
               "output near 0, the row maximum's -log(sum) where the sum is near 1, carries the sum's\n"
               "last-bit difference relative to its own small size, so the bound holds for inputs like\n"
               "these, not every input). tests/test_float32.py and tests/test_log_softmax.py assert\n"
               "these bounds.")
_F32_MATH_BOUNDS = ("as TFLite's `std::` functions do: on x86-64 with glibc, 0 ulp from LiteRT over about 250,000\n"
                    "inputs each (tests/test_math_f32.py). A Cortex-M4 build with newlib (under QEMU, 24,000\n"
                    "inputs each) is at most 1 ulp from LiteRT for EXP (125 outputs differ), LOG (92) and ELU\n"
                    "(4); SIN and COS are at most 1 ulp below |x| = 1e4 (18,803 of the inputs), while beyond\n"
                    "it newlib's argument reduction gives up to 823 ulp (SIN) and 31 ulp (COS) near their\n"
                    "zeros, under 1e-7 in absolute terms (725 and 758 outputs differ in all).\n"
                    "tests/test_math_f32.py asserts these bounds.")


def render() -> str:
    """docs/coverage.md."""
    isas = _isas()
    lines = [
        "# Coverage: ops, tensor types and kernel variants",
        "",
        "Generated from the C op table by `python -m arenaplan.ops.coverage > docs/coverage.md`;",
        "`tests/test_coverage.py` checks that this file equals its output. Each row is one op table",
        "row (an op in one set of tensor types); each instruction set's column lists the kernel",
        "variants the row's `variants()` offers for small probe models of the op (the union over",
        "them: some variants apply to some shapes only), least scratch first. Where the rounding",
        "rule changes the variants, each rule's are given (`litert`: LiteRT's reference kernels,",
        "`tflm`: TensorFlow Lite Micro's), and a row that runs under one rule only names it. Every",
        "variant of a row gives the same bits on every instruction set.",
        "",
        "| op | tensor types | " + " | ".join(isas) + " | may run in place | prepared constants |",
        "|---|---|" + "---|" * len(isas) + "---|---|",
    ]
    for r in rows():
        operands = _OPERANDS_TEXT.get((r["name"], r["types"])) or _OPERANDS_TEXT.get(r["name"])
        cells = [r["name"], _TYPES_TEXT.get(r["types"], r["types"]) + (f" ({operands})" if operands else "")]
        cells += [_cell(r["variants"][isa]) for isa in isas]
        cells += [", ".join(r["in_place"]) or "-", "yes" if r["has_blob"] else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "TFLite builtins that run on another op's row:", "",
              "| builtin | runs as |", "|---|---|"]
    lines += [f"| {b} | {row} |" for b, row in _aliases()]
    lines += ["", "REQUANTIZE is TFLite's QUANTIZE between integer types, a row whose params name them:",
              "int8 to int8, uint8, int16 or int32 (int32: TensorFlow Lite Micro only), int16 to int8,",
              "int16 or int32, int32 to int8 or int16; the uint8 row is uint8 to int8 (TFLite's",
              "Requantize, LiteRT's and TensorFlow Lite Micro's alike: where the scales are equal and",
              "the zero points 128 apart its fast path flips the top bit, which the general loop gives",
              "too). QUANTIZE's int8 row is float32 to int8 and DEQUANTIZE's int8 to float32 (the 16x8",
              "rows: int16; the uint8 row: uint8, zero points in [0, 255]). BROADCAST_TO and REVERSE_V2",
              "of uint8 run the int8 rows' byte kernels.", "",
              "A row's tensor types name the element type of the data its kernel reads (bool, int32 and",
              "int64 are one byte, four and eight an element); operands whose type the op fixes are the",
              "row's contract, given in brackets: the comparisons write bool, GATHER reads int32 indices,",
              "ARG_MAX / ARG_MIN write the int32 or int64 indices their params name (TensorFlow Lite",
              "Micro: int32 only), SELECT_V2's condition is bool, CAST writes the type its params name,",
              "SHAPE reads no data (one row, its int32 output's). The int8 comparisons rescale both",
              "inputs as TFLite does (a left shift of 8, each scale's multiplier); the int16 ones are",
              "LiteRT's, under \"litert\" only: its EQUAL and NOT_EQUAL rescale int16 as int8 (LiteRT 2.3",
              "sends int16 through that path), its GREATER, GREATER_EQUAL, LESS and LESS_EQUAL compare",
              "the stored values (TensorFlow Lite Micro's int16 GREATER reads params its Prepare sets for",
              "int8 only, its other comparisons take no int16: refused under \"tflm\", naming why); the",
              "others compare the values as stored (int64 as a signed 64-bit compare, two words on a",
              "32-bit core). With a float32 NaN, LiteRT's ARG_MAX / ARG_MIN (an optimised",
              "last-axis loop) answer otherwise than the reference loop; arenaplan follows TensorFlow",
              "Lite Micro's. CAST of a float32 NaN to an integer type follows the rounding rule:",
              "LiteRT's saturating cast gives the type's maximum, TensorFlow Lite Micro's 0. A float32",
              "ADD_N follows the rule too: LiteRT clamps each sum to the finite range (an infinite sum",
              "is FLT_MAX there), TensorFlow Lite Micro's loop does not.", "",
              "BATCH_MATMUL's 16x8 row is TFLite's int16 x int16 kernel (zero points 0, int64 sums,",
              "the int64 requantisation); its float32 row sums in the reference loop's order, so every",
              "variant equals LiteRT bit for bit. GATHER_ND's index bounds follow the rounding rule:",
              "LiteRT fails a tuple with any component outside its dimension (or negative), TensorFlow",
              "Lite Micro only one whose slice lies outside the params counted flat (so [0, 5] of a 3x4",
              "params reads element 5 there); a run error either way, refused when the plan is made",
              "where the indices are constant. BROADCAST_ARGS takes int32 and int64 shapes (its row",
              "named by int32, as SHAPE's); shapes that do not broadcast fail the run, where TFLite's",
              "kernels abort.", "",
              "GATHER takes batch_dims (negative counted from the indices' rank) with TFLite's",
              "Prepare checks: params and indices share their first batch_dims dimensions and each",
              "batch gathers with its own indices. REVERSE_V2 moves values as stored (one kernel for",
              "every element width): its axes must be distinct and contiguous once sorted, between",
              "1 and the input's rank of them (both TFLite kernels refuse others, and read before an",
              "empty axes vector), the input of rank at most 8 under \"litert\" and 6 under \"tflm\"",
              "(each runtime's limit); it could run in place (swapping blocks) but does not declare",
              "it. An input with an empty dimension is refused (its output is empty: TensorFlow Lite",
              "Micro's REVERSE_V2 fails to allocate it, and LiteRT's crashes reversing the first axis",
              "of a (2, 0, 3) input). REDUCE_ALL runs on bool over any axes (repeats counted once, none",
              "a copy), keep_dims either way; an empty reduced axis gives true (the AND of nothing, an",
              "input of no bytes, as both runtimes give), an empty kept axis is refused (the output is",
              "empty: TensorFlow Lite Micro fails to allocate it).", "",
              "The int16 SOFTMAX (int16 in and out) looks its exps and the reciprocal of their sum up in",
              "two interpolated 513-entry tables made when the plan is made by the rounding rule: LiteRT",
              "computes them in double and its input multiplier from the float32 product of the scale and",
              "beta, TensorFlow Lite Micro both in float32 (the product in double); the tables differ in a",
              "few entries, so some rows' outputs differ by one. The int16 LOGISTIC and TANH read TFLite's",
              "256-entry sigmoid table, interpolated; both runtimes' kernels and multipliers agree.", "",
              "The 16x8 UNIDIRECTIONAL_SEQUENCE_LSTM (int16 input, output and output state, int8",
              "weights, int64 biases, an int16 cell state) is TensorFlow Lite Micro's integer LSTM: each",
              "gate two FullyConnected with int64 sums and the int64 requantisation, a saturating add,",
              "the int16 LOGISTIC / TANH table, the inter-gate products through MulElementwise, the cell",
              "tanh's scale from the rounded log2 of the cell scale, the clip whenever cell_clip > 0;",
              "no peepholes, projection, layer norm or CIFG (refused when the plan is made, naming the",
              "operand), both time layouts, the states int16 variable tensors of the state pool. LiteRT",
              "has no int16 LSTM (its kernel fails to prepare an int16 input), so the row runs under",
              "\"tflm\" only; there its outputs and both states equal the tflite-micro interpreter's bit",
              "for bit over calls with the states carried. tests/test_lstm_16x8.py asserts these.", "",
              "The int8 UNIDIRECTIONAL_SEQUENCE_LSTM follows each runtime's integer LSTM by the rounding",
              "rule. \"litert\": LiteRT's EvalInteger8x8_16 (gemmlowp's fixed-point sigmoid and tanh, the",
              "recurrent term added before the int16 clamp, f * c and i * g by one rounding shift, float32",
              "multipliers, the hidden scale from the fifth intermediate). \"tflm\": TensorFlow Lite",
              "Micro's lstm_eval as its 16x8 LSTM runs it (two FullyConnected into int16 clamped each, the",
              "int16 LOGISTIC / TANH table, the inter-gate products through MulElementwise, double",
              "multipliers, the hidden state in the output state's quantisation, the clip whenever",
              "cell_clip > 0); its outputs and both states equal the tflite-micro interpreter's bit for",
              "bit on 48 random models and the shared mnist_lstm (on the 48, LiteRT's rule differs in 672",
              "of 15,245 outputs and 2,366 of 4,700 cell-state values, 33 models of 48).",
              "tests/test_lstm_int8_tflm.py asserts these.", "",
              "Resource variables are state: the importer makes each one a variable tensor of the",
              "state pool and drops VAR_HANDLE; CALL_ONCE's subgraph, folded to constants when the",
              "model is read, gives their starting values (restored by reset_state).", "",
              "IF and WHILE: the importer inlines the subgraphs they run into subgraph 0's op list",
              "(`arenaplan.model.importers.control_flow`), so the executor stays one flat list of",
              "nodes: JUMP (its own row: the executor continues at `target`, always or when its bool",
              "condition of one element is false) and COPY (a branch's result into the IF's output, a",
              "loop's next values into its carried tensors; the RESHAPE row's copy, any type; a",
              "permutation of carried values goes through temporaries). Shapes are static: a branch or",
              "a loop body whose types or shapes differ from the op's is refused when the plan is made,",
              "as are subgraph indices out of range, recursive calls and state (resource variables,",
              "CALL_ONCE) inside a called subgraph. The two branches of an IF share memory (they never",
              "both run); a tensor live across a loop's edge is live over the whole loop. A plan's",
              "latency counts every op once: both branches of an IF (their sum) and one iteration of a",
              "loop, whose trip count is known only at run time.", "",
              "float32 rows run TFLite's float reference kernels in portable C (one code on every",
              "instruction set, so each lists \"direct\" only), summed in the reference kernels' order",
              "with floating-point contraction off (no fused multiply-add on x86 FMA or the",
              "Cortex-M4's VFMA): FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, ADD, SUB, MUL,",
              "DIV, RELU / RELU6 / RELU_N1_TO_1, LEAKY_RELU, HARD_SWISH, the pools, MEAN, PAD / PADV2,",
              "CONCATENATION, STRIDED_SLICE (and SPLIT / SPLIT_V on it), TRANSPOSE, the reshapes, SQRT,",
              "MAXIMUM and MINIMUM (TFLite's a > b ? a : b and a < b ? a : b: a NaN first input gives the",
              "second, a NaN second input itself), SQUARED_DIFFERENCE, PRELU, ABS, SUM, REDUCE_MAX and",
              "REDUCE_MIN (from -FLT_MAX and FLT_MAX, a NaN passed over, as both runtimes fold them),",
              "RESIZE_BILINEAR (the reference's four products and its rounding offset, + 0.0f: where an",
              "input NaN and the NaN of inf * 0 meet in one sum, which comes out is each compiler's",
              "choice of operand order),",
              "RSQRT (1.0f / sqrtf), SQUARE, NEG, ROUND (TFLite's RoundToNearest: half to even, -0.3 to",
              "+0), FLOOR, CEIL, CUMSUM, L2_NORMALIZATION and L2_POOL_2D (`sqrtf` is correctly rounded",
              "in every C library) equal LiteRT bit for bit (but for the NaN an invalid operation such as",
              "inf - inf or sqrtf(-1) makes: each machine's default NaN, 0xFFC00000 on x86, 0x7FC00000",
              "on a Cortex-M). A float32 DIV by zero is +-inf, then the activation's clamp: with none,",
              "TFLite's range is the finite floats, so +-FLT_MAX (0 / 0 stays NaN).",
              "LOGISTIC, TANH, SOFTMAX and LOG_SOFTMAX call the C library's `expf` / `tanhf` / `logf` as",
              "TFLite's `std::exp` / `std::tanh` / `std::log` do, so they equal LiteRT where both use the",
              "same C library:",
              f"{_F32_BOUNDS}", "",
              "EXP, LOG, SIN, COS and ELU call `expf`, `logf`, `sinf`, `cosf` and `expm1f` (ELU below 0),",
              f"{_F32_MATH_BOUNDS}", "",
              "The float32 SVDF keeps its state as a float32 variable tensor of the state pool and sums",
              "in each runtime's order, by the rounding rule: LiteRT's tensor_utils (its x86 builds)",
              "sum every dot product and a unit's rank terms in four lanes, ((l0 + l1) + l2) + l3, then",
              "the remainder in order, and add the bias last; TensorFlow Lite Micro sums in order and",
              "starts a unit's sum at its bias. Outputs and state equal each runtime's bit for bit but",
              "for the TANH activation: LiteRT's is Eigen's rational tanh, arenaplan's `tanhf` (as",
              "TensorFlow Lite Micro's), at most 5 ulp from LiteRT over 49,152 values on x86-64 and on a",
              "Cortex-M4 with newlib (1 ulp from glibc's `tanhf` there); the state, the activation's",
              "input, is exact. RELU and RELU6 take a NaN to 0 under LiteRT's rule (`std::max`), RELU6",
              "to 6 and RELU_N1_TO_1 to 1 under TensorFlow Lite Micro's (`fmaxf` / `fminf`);",
              "RELU_N1_TO_1 runs under \"tflm\" only (LiteRT's SVDF has none), SIGN_BIT under neither,",
              "and int8 feature weights with a float32 input (TFLite's hybrid SVDF) are refused.",
              "tests/test_svdf_f32.py asserts these.", "",
              "The float32 UNIDIRECTIONAL_SEQUENCE_LSTM is TensorFlow Lite Micro's float LSTM: no",
              "peepholes, projection, layer norm or CIFG (refused when the plan is made), TANH, an",
              "optional cell clip, both time layouts; the output and cell states are float32 variable",
              "tensors of the state pool. Its gates are LOGISTIC (reference_ops::Logistic, `expf`) and",
              "`tanhf`, as TensorFlow Lite Micro's, and under \"tflm\" its sums are that runtime's",
              "(each FullyConnected and Mul clamped to the finite floats): its outputs and states equal",
              "the tflite-micro interpreter's bit for bit over calls with the states carried. Under",
              "\"litert\" the sums are LiteRT's (from the bias, four-lane dot products), but LiteRT's",
              "gates are Eigen's sigmoid and tanh, so its outputs and cell states drift from arenaplan's",
              "by a few ulp a step: at most 6e-7 apart over 12 steps and 4 calls (the test allows",
              "2e-6; near 0 that is hundreds of ulp). On the Cortex-M4 newlib is at most 16 ulp from the",
              "host on the float32 LSTM's probe models (11 measured over 3 steps, values near 0).",
              "tests/test_lstm_f32.py asserts these.", "",
              "The int8 rows of these ops follow TFLite's integer kernels: RSQRT's Newton-Raphson",
              "1/sqrt in fixed point (its multiplier by the rounding rule: LiteRT forms",
              "1 / (sqrt(input_scale) * output_scale) in float32, TensorFlow Lite Micro in double); ELU's",
              "table of 256 outputs made when the plan is made, by the rule (LiteRT: `expm1f`;",
              "TensorFlow Lite Micro: `expf` - 1; they differ for some scales); DIV's reciprocal in fixed",
              "point, where a final shift of 32 or more (undefined in C++) is taken as LiteRT's and TFLite",
              "Micro's x86 builds take it (a numerator at its zero point divides to output_zero_point + 1",
              "there; the tflite-micro package's interpreter differs from LiteRT where the DIV's real",
              "multiplier is exact in float32, such as 0.5 or 100.0, and arenaplan follows LiteRT under",
              "both rules). An int8 RSQRT input below its zero point and an int8 DIV divisor at its zero point",
              "fail the run, as TFLite fails them (a constant divisor so is refused at plan time). DIV's",
              "int32 row is C's truncating division with the activation's int32 range; a zero divisor",
              "fails the run, and INT32_MIN / -1, which traps in TFLite's kernel, wraps to INT32_MIN.",
              "ADD, SUB and MUL have int32 rows (a WHILE loop's counter, index arithmetic): the result",
              "wraps in two's complement, as TFLite's kernels do, then the activation's int32 range;",
              "TensorFlow Lite Micro's int32 ADD does not apply its fused activation (its SUB and MUL",
              "do), so under \"tflm\" an int32 ADD is not clamped.", "",
              "The int64 rows are the ops TensorFlow Lite Micro's kernels take int64 in (each confirmed",
              "on a one-op model with the pinned tflite-micro package): the six comparisons, MAXIMUM,",
              "MINIMUM, ZEROS_LIKE, BROADCAST_TO, CONCATENATION (PACK on it) and REVERSE_V2, each equal to",
              "LiteRT's and TensorFlow Lite Micro's on values across int64's two 32-bit words; RESHAPE,",
              "SQUEEZE and EXPAND_DIMS alias their input and SHAPE reads none, whatever the type. Its",
              "other kernels refuse int64 (ADD, SUB, MUL, CAST, FILL's value, GATHER, GATHER_ND,",
              "SELECT_V2, SUM, MEAN, REDUCE_MAX, ARG_MAX's input, TRANSPOSE, SLICE, STRIDED_SLICE, PAD,",
              "SPLIT, UNPACK, CUMSUM), though LiteRT runs several of them: arenaplan has no int64 row for",
              "those.", ""]
    lines += tflm_types.render()
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
