"""TensorFlow Lite's int8 parameter derivations (what its kernels' Prepare computes).

Kept in one place so the kernels API, the executor and the C export derive the
same integers from the same float scales: multipliers in double precision from
float32 scales, activation clamps with float32 rounding, SAME/VALID padding.
"""
from __future__ import annotations

import math
from typing import Optional, Sequence, Tuple

import numpy as np

from .. import _core
from ..errors import InvalidArgument

__all__ = ["quantize_multiplier", "conv_multipliers", "activation_range", "conv_output_size",
           "same_padding", "ACTIVATIONS"]

ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def quantize_multiplier(real: float) -> Tuple[int, int]:
    """TFLite QuantizeMultiplier: (Q31 multiplier, shift) with real = m * 2^(shift - 31)."""
    return _core.quantize_multiplier(float(real))


def _f32(x: float) -> float:
    return float(np.float32(x))


def conv_multipliers(input_scale: float, filter_scales: Sequence[float],
                     output_scale: float) -> Tuple[np.ndarray, np.ndarray]:
    """Per-channel (multiplier, shift) as PopulateConvolutionQuantizationParams computes them:
    double(input_scale) * double(filter_scale) / double(output_scale), scales read as float32."""
    if not _f32(output_scale) > 0 or not _f32(input_scale) > 0:
        raise InvalidArgument(f"scales must be > 0 (input {input_scale}, output {output_scale})")
    mult, shift = [], []
    for i, fs in enumerate(filter_scales):
        if not _f32(fs) >= 0:
            raise InvalidArgument(f"filter_scales[{i}] = {fs} must be >= 0")
        m, s = quantize_multiplier(_f32(input_scale) * _f32(fs) / _f32(output_scale))
        mult.append(m)
        shift.append(s)
    return np.array(mult, dtype=np.int32), np.array(shift, dtype=np.int32)


def activation_range(activation: Optional[str], scale: float, zero_point: int,
                     dtype: str = "int8") -> Tuple[int, int]:
    """CalculateActivationRangeQuantized for int8 (or, with ``dtype="int16"``, int16) outputs."""
    act = "NONE" if activation is None else str(activation).upper()
    qmin, qmax = (-32768, 32767) if dtype == "int16" else (-128, 127)
    s = np.float32(scale)

    def q(f: float) -> int:
        v = float(np.float32(f) / s)  # the float32 quotient TFLite computes, held exactly
        return int(zero_point) + int(math.copysign(math.floor(abs(v) + 0.5), v))

    if act == "NONE":
        return qmin, qmax
    if act == "RELU":
        return max(qmin, q(0.0)), qmax
    if act == "RELU6":
        return max(qmin, q(0.0)), min(qmax, q(6.0))
    if act == "RELU_N1_TO_1":
        return max(qmin, q(-1.0)), min(qmax, q(1.0))
    raise InvalidArgument(f"unsupported fused activation {activation!r}; "
                          f"supported: {', '.join(ACTIVATIONS)}")


def conv_output_size(size: int, kernel: int, stride: int, dilation: int, padding: str) -> int:
    """Output extent along one axis for TFLite SAME/VALID padding."""
    dk = (kernel - 1) * dilation + 1
    if padding == "SAME":
        return (size + stride - 1) // stride
    if padding == "VALID":
        return (size - dk + stride) // stride
    raise InvalidArgument(f"padding must be 'SAME' or 'VALID', got {padding!r}")


def same_padding(size: int, kernel: int, stride: int, dilation: int, out: int) -> int:
    """Top/left padding of ComputePaddingHeightWidth (the odd pixel goes bottom/right)."""
    dk = (kernel - 1) * dilation + 1
    total = max((out - 1) * stride + dk - size, 0)
    return total // 2


def window_geometry(in_hw, k_hw, stride, dilation, padding) -> tuple:
    """(out_h, out_w, pad_h, pad_w) of a windowed op (conv, depthwise, pooling) over an
    input of ``in_hw`` with a ``k_hw`` window: TFLite's "SAME"/"VALID" padding, or explicit
    symmetric padding (pad_h, pad_w). Raises InvalidArgument when the window does not fit."""
    if isinstance(padding, str):
        mode = padding.upper()
        out = [conv_output_size(in_hw[i], k_hw[i], stride[i], dilation[i], mode) for i in range(2)]
        pads = ([same_padding(in_hw[i], k_hw[i], stride[i], dilation[i], out[i]) for i in range(2)]
                if mode == "SAME" else [0, 0])
    else:
        pads = [int(padding[0]), int(padding[1])]
        out = [(in_hw[i] + 2 * pads[i] - ((k_hw[i] - 1) * dilation[i] + 1)) // stride[i] + 1
               for i in range(2)]
    if min(out) < 1:
        raise InvalidArgument(f"the {k_hw[0]}x{k_hw[1]} window (dilation {tuple(dilation)}) does not fit "
                              f"the {in_hw[0]}x{in_hw[1]} input with padding {padding!r}: the output "
                              f"would be {tuple(out)}")
    return out[0], out[1], pads[0], pads[1]
