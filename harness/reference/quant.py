"""NumPy reference of TensorFlow Lite's integer requantisation, vectorised.

These mirror tensorflow/lite/kernels/internal/common.h (QuantizeMultiplier,
MultiplyByQuantizedMultiplier with gemmlowp's double rounding) and are the
ground truth the C kernels are tested against.
"""
from __future__ import annotations

import math

import numpy as np

INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1


def quantize_multiplier(real: float) -> tuple[int, int]:
    """TFLite QuantizeMultiplier: (multiplier Q31, shift) with real = m * 2^(shift-31)."""
    if real == 0.0:
        return 0, 0
    q, shift = math.frexp(real)
    q_fixed = int(_round_half_away(q * (1 << 31)))
    if q_fixed == (1 << 31):
        q_fixed //= 2
        shift += 1
    if shift < -31:
        shift, q_fixed = 0, 0
    return q_fixed, shift


def _round_half_away(x: float) -> float:
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def saturating_rounding_doubling_high_mul(a, b) -> np.ndarray:
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    ab = a * b
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    num = ab + nudge
    # C's division truncates toward zero.
    q = np.where(num >= 0, num // (1 << 31), -((-num) // (1 << 31)))
    overflow = (a == INT32_MIN) & (b == INT32_MIN)
    return np.where(overflow, INT32_MAX, q).astype(np.int64)


def rounding_divide_by_pot(x, exponent) -> np.ndarray:
    x = np.asarray(x, dtype=np.int64)
    exponent = np.asarray(exponent, dtype=np.int64)
    mask = (np.int64(1) << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    return (x >> exponent) + (remainder > threshold)


def multiply_by_quantized_multiplier(x, multiplier, shift) -> np.ndarray:
    """TFLite MultiplyByQuantizedMultiplier on int32 values (broadcasting)."""
    x = np.asarray(x, dtype=np.int64)
    shift = np.asarray(shift, dtype=np.int64)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    shifted = (x << left).astype(np.int64)
    shifted = ((shifted + (1 << 31)) % (1 << 32)) - (1 << 31)  # int32 wrap-around
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted, multiplier), right)


def requantize(acc, multiplier, shift, output_zero_point: int, act_min: int = -128,
               act_max: int = 127) -> np.ndarray:
    """int32 accumulators -> int8 outputs, per-channel along the last axis."""
    out = multiply_by_quantized_multiplier(acc, multiplier, shift) + output_zero_point
    return np.clip(out, act_min, act_max).astype(np.int8)
