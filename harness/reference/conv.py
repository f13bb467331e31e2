"""NumPy reference of TensorFlow Lite's reference_integer_ops::ConvPerChannel (int8).

Mirrors tensorflow/lite/kernels/internal/reference/integer_ops/conv.h: for every output
pixel and channel, sum (input + input_offset) * filter over the taps inside the image (taps in
the padding are skipped), add the bias, requantise with MultiplyByQuantizedMultiplier, add the
output offset and clamp. Arithmetic is int64, so the result equals TFLite's whenever TFLite's
int32 accumulator does not overflow (the function asserts that it does not).

Also: TFLite's padding rules (ComputePaddingHeightWidth) and activation ranges
(CalculateActivationRangeQuantized), used to turn model options into kernel parameters.
"""
from __future__ import annotations

import math

import numpy as np

from .quant import INT32_MAX, INT32_MIN, requantize


def out_size(in_size: int, filter_size: int, stride: int, dilation: int, padding: str) -> int:
    """TFLite ComputeOutSize for padding "same" or "valid"."""
    effective = (filter_size - 1) * dilation + 1
    if padding.lower() == "same":
        return (in_size + stride - 1) // stride
    if padding.lower() == "valid":
        return (in_size + stride - effective) // stride
    raise ValueError(f"unknown padding {padding!r}")


def pad_before(in_size: int, filter_size: int, stride: int, dilation: int, out: int) -> int:
    """TFLite ComputePaddingWithOffset: padding before (top/left) for a given output size."""
    effective = (filter_size - 1) * dilation + 1
    total = max((out - 1) * stride + effective - in_size, 0)
    return total // 2


def conv_geometry(input_hw, filter_hw, stride, dilation, padding: str):
    """(output_h, output_w, pad_h, pad_w) for TFLite SAME/VALID padding."""
    oh = out_size(input_hw[0], filter_hw[0], stride[0], dilation[0], padding)
    ow = out_size(input_hw[1], filter_hw[1], stride[1], dilation[1], padding)
    ph = pad_before(input_hw[0], filter_hw[0], stride[0], dilation[0], oh)
    pw = pad_before(input_hw[1], filter_hw[1], stride[1], dilation[1], ow)
    return oh, ow, ph, pw


def accumulators(x, w, bias, stride, dilation, pad, out_hw, input_offset: int) -> np.ndarray:
    """int64 accumulators [N, OH, OW, O] of ConvPerChannel before requantisation.

    x: [N, H, W, C] int8; w: [O, FH, FW, C] int8; bias: [O] int32 or None;
    stride, dilation, pad (top, left), out_hw: pairs.
    """
    x = np.asarray(x)
    w = np.asarray(w)
    n, h, wd, c = x.shape
    o, fh, fw, c2 = w.shape
    assert c == c2, "grouped convolution is not part of this reference"
    oh, ow = out_hw
    sh, sw = stride
    dh, dw = dilation
    ph, pw = pad
    # Pad with the value whose (x + input_offset) is 0, so padding taps add nothing, which
    # is the same as TFLite skipping them.
    xs = x.astype(np.int64) + input_offset
    rows_needed = max((oh - 1) * sh + (fh - 1) * dh + 1, h + ph)
    cols_needed = max((ow - 1) * sw + (fw - 1) * dw + 1, wd + pw)
    xp = np.zeros((n, rows_needed, cols_needed, c), dtype=np.int64)
    xp[:, ph:ph + h, pw:pw + wd, :] = xs
    acc = np.zeros((n, oh, ow, o), dtype=np.int64)
    wl = w.astype(np.int64)
    for fy in range(fh):
        for fx in range(fw):
            y0, x0 = fy * dh, fx * dw
            patch = xp[:, y0:y0 + (oh - 1) * sh + 1:sh, x0:x0 + (ow - 1) * sw + 1:sw, :]
            acc += np.einsum("nhwc,oc->nhwo", patch, wl[:, fy, fx, :], optimize=True)
    if bias is not None:
        acc += np.asarray(bias, dtype=np.int64)
    return acc


def conv_per_channel(x, w, bias, *, stride=(1, 1), dilation=(1, 1), pad=(0, 0), out_hw=None,
                     input_offset: int, multiplier, shift, output_offset: int,
                     act_min: int = -128, act_max: int = 127) -> np.ndarray:
    """TFLite ConvPerChannel: int8 [N, OH, OW, O] output.

    multiplier/shift: per output channel (arrays of O) or scalars (per-tensor).
    input_offset = -input zero point; output_offset = output zero point.
    """
    if out_hw is None:
        raise ValueError("out_hw is required (use conv_geometry for SAME/VALID)")
    acc = accumulators(x, w, bias, stride, dilation, pad, out_hw, input_offset)
    if acc.size:
        assert acc.min() >= INT32_MIN and acc.max() <= INT32_MAX, "int32 accumulator overflow"
    o = np.asarray(w).shape[0]
    mult = np.broadcast_to(np.asarray(multiplier, dtype=np.int64), (o,))
    sh = np.broadcast_to(np.asarray(shift, dtype=np.int64), (o,))
    return requantize(acc, mult, sh, output_offset, act_min, act_max)


def activation_range(activation: str | None, scale: float, zero_point: int,
                     qmin: int = -128, qmax: int = 127) -> tuple[int, int]:
    """TFLite CalculateActivationRangeQuantized for NONE, RELU, RELU6, RELU_N1_TO_1.

    Quantises the bounds as TFLite does: zero_point + round(f / scale) in float32, halves
    away from zero.
    """
    def quantize(f: float) -> int:
        q = float(np.float32(f) / np.float32(scale))  # float32 division, exact in a double
        r = math.floor(abs(q) + 0.5)  # std::round: halves away from zero (exact here)
        return zero_point + int(math.copysign(r, q))

    act = (activation or "none").lower()
    if act == "none":
        return qmin, qmax
    if act == "relu":
        return max(qmin, quantize(0.0)), qmax
    if act == "relu6":
        return max(qmin, quantize(0.0)), min(qmax, quantize(6.0))
    if act in ("relu_n1_to_1", "relu1"):
        return max(qmin, quantize(-1.0)), min(qmax, quantize(1.0))
    raise ValueError(f"activation {activation!r} has no quantised range")
