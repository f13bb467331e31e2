"""NumPy references of TensorFlow Lite's reference integer kernels (int8, NHWC).

Each function mirrors one kernel of tensorflow/lite/kernels/internal/reference
(reference_integer_ops::DepthwiseConvPerChannel, FullyConnected(PerChannel),
AveragePool, MaxPool, AddElementwise/BroadcastAdd, MulElementwise, Mean;
reference_ops::Softmax<int8,int8> with gemmlowp's fixed-point exp,
AffineQuantize, Dequantize, Requantize, Concatenation, Pad, QuantizedMeanOrSum), with int64
arithmetic. They are written for clarity, not speed, and are the ground truth
the C kernels are tested against (the C kernels are in turn checked against
LiteRT's reference kernels on real model layers).
"""
from __future__ import annotations

import math

import numpy as np

from .quant import (INT32_MAX, INT32_MIN, multiply_by_quantized_multiplier, quantize_multiplier,
                    requantize)

__all__ = [
    "same_padding", "activation_range", "depthwise_conv2d", "fully_connected", "average_pool2d",
    "max_pool2d", "add_params", "add", "mul_params", "mul", "softmax_params", "softmax",
    "quantize", "dequantize", "requantize_s8", "requantize_int", "concatenation", "pad", "mean_hw",
]


def same_padding(in_size: int, filter_size: int, stride: int, dilation: int = 1) -> tuple[int, int]:
    """TFLite SAME padding: (output size, pad before)."""
    out = (in_size + stride - 1) // stride
    effective = (filter_size - 1) * dilation + 1
    total = max((out - 1) * stride + effective - in_size, 0)
    return out, total // 2


def activation_range(activation: str | None, scale: float, zero_point: int) -> tuple[int, int]:
    """TFLite CalculateActivationRangeQuantized for int8 (float32 arithmetic)."""
    def q(f: float) -> int:
        v = np.float32(f) / np.float32(scale)
        return zero_point + int(_round_half_away(float(v)))
    lo, hi = -128, 127
    if activation in (None, "none"):
        return lo, hi
    if activation == "relu":
        return max(lo, q(0.0)), hi
    if activation == "relu6":
        return max(lo, q(0.0)), min(hi, q(6.0))
    if activation == "relu_n1_to_1":
        return max(lo, q(-1.0)), min(hi, q(1.0))
    raise ValueError(f"unsupported activation {activation!r}")


def _round_half_away(x: float) -> float:
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def _per_channel(values, channels: int) -> np.ndarray:
    a = np.asarray(values, dtype=np.int64).reshape(-1)
    return np.broadcast_to(a, (channels,)) if a.size == 1 else a


def depthwise_conv2d(x, w, bias, *, stride=(1, 1), dilation=(1, 1), pad=(0, 0), out_hw=None,
                     depth_multiplier=1, input_offset=0, multiplier, shift, output_offset=0,
                     act_min=-128, act_max=127) -> np.ndarray:
    """reference_integer_ops::DepthwiseConvPerChannel. x [N,H,W,C], w [1,KH,KW,C*M]."""
    x = np.asarray(x, dtype=np.int64)
    w = np.asarray(w, dtype=np.int64)
    n, h, wd, c = x.shape
    _, kh, kw, oc = w.shape
    assert oc == c * depth_multiplier
    sh, sw = stride
    dh, dw = dilation
    ph, pw = pad
    oh, ow = out_hw
    need_h = (oh - 1) * sh + (kh - 1) * dh + 1
    need_w = (ow - 1) * sw + (kw - 1) * dw + 1
    # Padded taps contribute nothing: place (x + offset) in a zero canvas.
    canvas = np.zeros((n, max(need_h, ph + h), max(need_w, pw + wd), c), dtype=np.int64)
    canvas[:, ph:ph + h, pw:pw + wd, :] = x + input_offset
    canvas = np.repeat(canvas, depth_multiplier, axis=3)
    acc = np.zeros((n, oh, ow, oc), dtype=np.int64)
    for ky in range(kh):
        for kx in range(kw):
            y0, x0 = ky * dh, kx * dw
            acc += canvas[:, y0:y0 + (oh - 1) * sh + 1:sh, x0:x0 + (ow - 1) * sw + 1:sw, :] * w[0, ky, kx, :]
    if bias is not None:
        acc += np.asarray(bias, dtype=np.int64)
    return requantize(acc, _per_channel(multiplier, oc), _per_channel(shift, oc), output_offset,
                      act_min, act_max)


def fully_connected(x, w, bias, *, input_offset=0, filter_offset=0, multiplier=None, shift=None,
                    real_scale=None, output_offset=0, act_min=-128, act_max=127) -> np.ndarray:
    """reference_integer_ops::FullyConnected / FullyConnectedPerChannel. x [B,D], w [O,D].

    With `multiplier`/`shift`: the fixed-point overload (MultiplyByQuantizedMultiplier).
    With `real_scale` (double per channel or one): the float-scale overload that LiteRT's
    FullyConnectedInt8<kReference> calls: (int32)round((double)acc * scale)."""
    x = np.asarray(x, dtype=np.int64)
    w = np.asarray(w, dtype=np.int64)
    acc = (x + input_offset) @ (w + filter_offset).T
    if bias is not None:
        acc = acc + np.asarray(bias, dtype=np.int64)
    o = w.shape[0]
    if real_scale is not None:
        scale = np.broadcast_to(np.asarray(real_scale, dtype=np.float64).reshape(-1), (o,))
        r = _round_half_away_array(acc.astype(np.float64) * scale)
        r = np.clip(r, -(2.0 ** 30), 2.0 ** 30).astype(np.int64)
        return np.clip(r + output_offset, act_min, act_max).astype(np.int8)
    return requantize(acc, _per_channel(multiplier, o), _per_channel(shift, o), output_offset,
                      act_min, act_max)


def _pool_windows(h, w, oh, ow, kh, kw, sh, sw, ph, pw):
    for oy in range(oh):
        y0 = oy * sh - ph
        ys = slice(max(y0, 0), min(y0 + kh, h))
        for ox in range(ow):
            x0 = ox * sw - pw
            xs = slice(max(x0, 0), min(x0 + kw, w))
            yield oy, ox, ys, xs


def average_pool2d(x, *, filter_hw, stride=(1, 1), pad=(0, 0), out_hw, act_min=-128, act_max=127):
    """reference_integer_ops::AveragePool: (sum +- count/2) / count, truncating; count = valid taps."""
    x = np.asarray(x, dtype=np.int64)
    n, h, w, c = x.shape
    out = np.zeros((n, out_hw[0], out_hw[1], c), dtype=np.int64)
    for oy, ox, ys, xs in _pool_windows(h, w, *out_hw, *filter_hw, *stride, *pad):
        win = x[:, ys, xs, :]
        count = win.shape[1] * win.shape[2]
        assert count > 0
        acc = win.sum(axis=(1, 2))
        half = count // 2
        out[:, oy, ox, :] = np.where(acc > 0, (acc + half) // count, -((-acc + half) // count))
    return np.clip(out, act_min, act_max).astype(np.int8)


def max_pool2d(x, *, filter_hw, stride=(1, 1), pad=(0, 0), out_hw, act_min=-128, act_max=127):
    """reference_integer_ops::MaxPool."""
    x = np.asarray(x, dtype=np.int64)
    n, h, w, c = x.shape
    out = np.zeros((n, out_hw[0], out_hw[1], c), dtype=np.int64)
    for oy, ox, ys, xs in _pool_windows(h, w, *out_hw, *filter_hw, *stride, *pad):
        out[:, oy, ox, :] = x[:, ys, xs, :].max(axis=(1, 2))
    return np.clip(out, act_min, act_max).astype(np.int8)


def add_params(s1: float, z1: int, s2: float, z2: int, so: float, zo: int,
               act_min=-128, act_max=127) -> dict:
    """TFLite add.cc Prepare for int8 (left_shift 20), as fields of ap_add_params."""
    left_shift = 20
    twice_max = 2 * max(float(np.float32(s1)), float(np.float32(s2)))
    m1, sh1 = quantize_multiplier(float(np.float32(s1)) / twice_max)
    m2, sh2 = quantize_multiplier(float(np.float32(s2)) / twice_max)
    mo, sho = quantize_multiplier(twice_max / ((1 << left_shift) * float(np.float32(so))))
    return dict(input1_offset=-z1, input2_offset=-z2, output_offset=zo, left_shift=left_shift,
                input1_multiplier=m1, input1_shift=sh1, input2_multiplier=m2, input2_shift=sh2,
                output_multiplier=mo, output_shift=sho, activation_min=act_min, activation_max=act_max)


def add(x1, x2, p: dict) -> np.ndarray:
    """reference_integer_ops::AddElementwise / BroadcastAdd (numpy broadcasting)."""
    a = (np.asarray(x1, dtype=np.int64) + p["input1_offset"]) << p["left_shift"]
    b = (np.asarray(x2, dtype=np.int64) + p["input2_offset"]) << p["left_shift"]
    sa = multiply_by_quantized_multiplier(a, p["input1_multiplier"], p["input1_shift"])
    sb = multiply_by_quantized_multiplier(b, p["input2_multiplier"], p["input2_shift"])
    raw = multiply_by_quantized_multiplier(sa + sb, p["output_multiplier"], p["output_shift"])
    return np.clip(raw + p["output_offset"], p["activation_min"], p["activation_max"]).astype(np.int8)


def mul_params(s1: float, z1: int, s2: float, z2: int, so: float, zo: int,
               act_min=-128, act_max=127) -> dict:
    """TFLite mul.cc Prepare for int8, as fields of ap_mul_params."""
    real = float(np.float32(s1)) * float(np.float32(s2)) / float(np.float32(so))
    m, s = quantize_multiplier(real)
    return dict(input1_offset=-z1, input2_offset=-z2, output_offset=zo, output_multiplier=m,
                output_shift=s, activation_min=act_min, activation_max=act_max)


def mul(x1, x2, p: dict) -> np.ndarray:
    """reference_integer_ops::MulElementwise / BroadcastMul (numpy broadcasting)."""
    prod = ((np.asarray(x1, dtype=np.int64) + p["input1_offset"]) *
            (np.asarray(x2, dtype=np.int64) + p["input2_offset"]))
    raw = multiply_by_quantized_multiplier(prod, p["output_multiplier"], p["output_shift"])
    return np.clip(raw + p["output_offset"], p["activation_min"], p["activation_max"]).astype(np.int8)


# --- softmax: gemmlowp fixed point, scalar Python ints with explicit int32 wrap ---

def _wrap32(v: int) -> int:
    return ((v + (1 << 31)) % (1 << 32)) - (1 << 31)


def _srdhm(a: int, b: int) -> int:
    if a == INT32_MIN and b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else (1 - (1 << 30))
    num = ab + nudge
    return num // (1 << 31) if num >= 0 else -((-num) // (1 << 31))


def _rdbpot(x: int, e: int) -> int:
    mask = (1 << e) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> e) + (1 if remainder > threshold else 0)


def _sat_shl(x: int, e: int) -> int:
    threshold = (1 << (31 - e)) - 1
    if x > threshold:
        return INT32_MAX
    if x < -threshold:
        return INT32_MIN
    return x << e


def _exp_quarter(a: int) -> int:
    const_term, one_third = 1895147668, 715827883
    x = _wrap32(a + (1 << 28))
    x2 = _srdhm(x, x)
    x3 = _srdhm(x2, x)
    x4 = _srdhm(x2, x2)
    x4_over_4 = _rdbpot(x4, 2)
    poly = _rdbpot(_wrap32(_srdhm(_wrap32(x4_over_4 + x3), one_third) + x2), 1)
    return _wrap32(const_term + _srdhm(const_term, _wrap32(x + poly)))


_EXP_MULT = {-2: 1672461947, -1: 1302514674, 0: 790015084, 1: 290630308, 2: 39332535,
             3: 720401, 4: 242}


def exp_on_negative_values(a: int, integer_bits: int = 5) -> int:
    """gemmlowp exp_on_negative_values: Q(ib).(31-ib) raw -> Q0.31 raw."""
    frac = 31 - integer_bits
    quarter = 1 << (frac - 2)
    amq = _wrap32((a & (quarter - 1)) - quarter)
    result = _exp_quarter(_sat_shl(amq, integer_bits))
    remainder = _wrap32(amq - a)
    for e in range(-2, 5):
        if integer_bits > e and remainder & (1 << (frac + e)):
            result = _srdhm(result, _EXP_MULT[e])
    if integer_bits > 5 and a < -(1 << (36 - integer_bits)):
        result = 0
    if a == 0:
        result = INT32_MAX
    return result


def _one_over_one_plus_x(a: int) -> int:
    s = a + INT32_MAX
    s = s + (1 if s >= 0 else -1)
    half_den = s // 2 if s >= 0 else -((-s) // 2)
    x = _wrap32(1515870810 + _srdhm(half_den, -1010580540))
    for _ in range(3):
        one_minus = _wrap32((1 << 29) - _srdhm(half_den, x))
        x = _wrap32(x + _sat_shl(_srdhm(x, one_minus), 2))
    return _sat_shl(x, 1)


def _get_reciprocal(x: int, integer_digits: int) -> tuple[int, int]:
    headroom_plus_one = 32 - x.bit_length()
    num_bits_over_unit = integer_digits - headroom_plus_one
    shifted_minus_one = _wrap32(((x << headroom_plus_one) & 0xFFFFFFFF) - (1 << 31))
    return _one_over_one_plus_x(shifted_minus_one), num_bits_over_unit


def softmax_params(beta: float, input_scale: float) -> dict:
    """TFLite SoftmaxPrepare for int8: PreprocessSoftmaxScaling + CalculateInputRadius."""
    integer_bits = 5
    real = min(float(beta) * float(np.float32(input_scale)) * (1 << (31 - integer_bits)),
               float((1 << 31) - 1))
    m, left = quantize_multiplier(real)
    radius = math.floor(((1 << integer_bits) - 1) * (1 << (31 - integer_bits)) / (1 << left))
    return dict(input_beta_multiplier=m, input_beta_left_shift=left, diff_min=-radius)


def softmax(x, p: dict, out_dtype=np.int8) -> np.ndarray:
    """reference_ops::Softmax<int8_t, int8_t | int16_t> over the last axis (int8 output: scale
    1/256, zp -128; int16: scale 1/65536, zp -32768)."""
    x = np.asarray(x, dtype=np.int64)
    rows = x.reshape(-1, x.shape[-1])
    info = np.iinfo(out_dtype)
    bits = 8 * np.dtype(out_dtype).itemsize
    out = np.empty(rows.shape, dtype=out_dtype)
    m, left, diff_min = p["input_beta_multiplier"], p["input_beta_left_shift"], p["diff_min"]
    for i, row in enumerate(rows.tolist()):
        mx = max(row)
        exps = []
        total = 0
        for v in row:
            d = v - mx
            if d >= diff_min:
                e = exp_on_negative_values(_srdhm(_wrap32(d << left), m))
                exps.append(e)
                total = _wrap32(total + _rdbpot(e, 12))
            else:
                exps.append(None)
        scale, over = _get_reciprocal(total, 12)
        exponent = over + 31 - bits
        for j, e in enumerate(exps):
            if e is None:
                out[i, j] = info.min
            else:
                r = _rdbpot(_srdhm(scale, e), exponent) + info.min
                out[i, j] = min(max(r, info.min), info.max)
    return out.reshape(x.shape)


def _round_half_away_array(q: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        t = np.trunc(q)
        frac = q - t
        return t + np.where(np.abs(frac) >= 0.5, np.sign(q), 0.0)


def quantize(x, scale: float, zero_point: int) -> np.ndarray:
    """reference_ops::AffineQuantize float32 -> int8: static_cast<int32>(TfLiteRound(x /
    (float)scale)) + zp, clamped; the quotient is a float32 division. Where the rounded
    quotient is NaN or outside int32 the cast is undefined in C++; LiteRT's x86 build gives
    INT32_MIN there, and the int32 sum with the zero point wraps."""
    with np.errstate(invalid="ignore", over="ignore"):
        q = np.asarray(x, dtype=np.float32) / np.float32(scale)
    r = _round_half_away_array(q.astype(np.float64))
    inside = (r >= -(2.0 ** 31)) & (r < 2.0 ** 31)
    as_int = np.where(inside, np.nan_to_num(r, nan=0.0, posinf=0.0, neginf=0.0), -(2.0 ** 31)).astype(np.int64)
    wrapped = (as_int + zero_point + 2 ** 31) % 2 ** 32 - 2 ** 31
    return np.clip(wrapped, -128, 127).astype(np.int8)


def dequantize(x, scale: float, zero_point: int) -> np.ndarray:
    """reference_ops::Dequantize int8 -> float32: (float)((double)scale * (x - zp))."""
    d = float(np.float32(scale)) * (np.asarray(x, dtype=np.int64) - zero_point).astype(np.float64)
    return d.astype(np.float32)


def requantize_s8(x, input_zero_point: int, output_zero_point: int, multiplier: int,
                  shift: int) -> np.ndarray:
    """reference_ops::Requantize int8 -> int8 (QUANTIZE with int8 input)."""
    v = np.asarray(x, dtype=np.int64) - input_zero_point
    out = multiply_by_quantized_multiplier(v, multiplier, shift) + output_zero_point
    return np.clip(out, -128, 127).astype(np.int8)


def requantize_int(x, input_zero_point: int, output_zero_point: int, multiplier: int, shift: int,
                   out_dtype) -> np.ndarray:
    """reference_ops::Requantize between integer types (QUANTIZE with an integer input): the
    clamp is the output type's range; int32 sums wrap as TFLite's C++ does on x86."""
    def wrap(v):
        return ((v + (1 << 31)) % (1 << 32)) - (1 << 31)
    v = wrap(np.asarray(x, dtype=np.int64) - input_zero_point)
    out = wrap(multiply_by_quantized_multiplier(v, multiplier, shift) + output_zero_point)
    info = np.iinfo(out_dtype)
    return np.clip(out, info.min, info.max).astype(out_dtype)


def concatenation(inputs, axis: int, requant=None, output_zero_point: int = 0) -> np.ndarray:
    """reference_ops::Concatenation (int8 copy); with `requant` = [(zp, multiplier, shift)] per
    input, each input is first requantised like QUANTIZE int8 -> int8."""
    parts = []
    for i, x in enumerate(inputs):
        if requant is not None:
            zp, m, s = requant[i]
            x = requantize_s8(x, zp, output_zero_point, m, s)
        parts.append(np.asarray(x, dtype=np.int8))
    return np.concatenate(parts, axis=axis)


def pad(x, before, after, value: int) -> np.ndarray:
    """reference_ops::Pad with a constant int8 value (the output zero point for PAD)."""
    return np.pad(np.asarray(x, dtype=np.int8), list(zip(before, after)), constant_values=value)


def mean_hw(x, input_zero_point: int, output_zero_point: int, multiplier: int, shift: int):
    """LiteRT reference_ops::QuantizedMeanOrSum (integer, mean) over axes 1, 2 of [N,H,W,C]
    -> [N,1,1,C]: 1/n folded into the multiplier, then MultiplyByQuantizedMultiplier."""
    x = np.asarray(x, dtype=np.int64)
    n, h, w, c = x.shape
    count = h * w
    k = min(count.bit_length() - 1, 32, 31 + shift)
    m2 = (multiplier << k) // count
    acc = (x - input_zero_point).sum(axis=(1, 2))
    acc = multiply_by_quantized_multiplier(acc, m2, shift - k)
    return np.clip(acc + output_zero_point, -128, 127).astype(np.int8).reshape(n, 1, 1, c)
