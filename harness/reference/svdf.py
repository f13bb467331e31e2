"""NumPy reference of TensorFlow Lite's integer SVDF (int8 input and output, int16 state).

Mirrors tensorflow/lite/kernels/svdf.cc (Prepare: the two effective scales, float32
products of the scales) and reference_ops::EvalIntegerSVDF: shift the whole
state left by one element, write each filter's newest feature (a requantised int8 dot
product, clamped to int16) at the end of its memory row, dot every row with the time
weights, sum ``rank`` filters per unit, add the bias, requantise to int8. int32 sums
wrap as two's complement (TFLite's C++ overflow). Written for clarity, with int64
arithmetic; the ground truth the C kernel is tested against (and which is itself
checked against LiteRT on random single-op models).
"""
from __future__ import annotations

import numpy as np

from .quant import multiply_by_quantized_multiplier, quantize_multiplier

__all__ = ["PARAM_FIELDS", "svdf_params", "svdf", "wrap32", "random_case", "step"]

#: The int32 fields of ap_svdf_params, in order.
PARAM_FIELDS = ("batches", "input_size", "filters", "memory", "rank", "input_zero_point",
                "output_zero_point", "feature_multiplier", "feature_shift", "time_multiplier",
                "time_shift")


def wrap32(v) -> np.ndarray:
    """int64 values wrapped to int32 (two's complement)."""
    v = np.asarray(v, dtype=np.int64)
    return ((v + (1 << 31)) % (1 << 32)) - (1 << 31)


def svdf_params(input_scale: float, weights_feature_scale: float, state_scale: float,
                weights_time_scale: float, output_scale: float) -> dict:
    """TFLite's SVDF Prepare for the integer path: the two (multiplier, shift) pairs. The
    scales are multiplied and divided in float32 (as LiteRT's svdf.cc does before widening
    to double; a double product gives other multipliers, and other bits)."""
    f = [np.float32(s) for s in (input_scale, weights_feature_scale, state_scale,
                                 weights_time_scale, output_scale)]
    m1, s1 = quantize_multiplier(float(f[0] * f[1] / f[2]))
    m2, s2 = quantize_multiplier(float(f[2] * f[3] / f[4]))
    return dict(feature_multiplier=m1, feature_shift=s1, time_multiplier=m2, time_shift=s2)


def svdf(x, weights_feature, weights_time, bias, state, *, rank: int, input_zero_point: int,
         output_zero_point: int, feature_multiplier: int, feature_shift: int,
         time_multiplier: int, time_shift: int) -> tuple[np.ndarray, np.ndarray]:
    """One SVDF step. x [batches, input_size] int8; weights_feature [filters, input_size]
    int8; weights_time [filters, memory] int16; bias [units] int32 or None; state
    [batches, filters * memory] int16. Returns (output [batches, units] int8, new state)."""
    x = np.asarray(x, dtype=np.int64)
    wf = np.asarray(weights_feature, dtype=np.int64)
    wt = np.asarray(weights_time, dtype=np.int64)
    batches = x.shape[0]
    filters, memory = wt.shape
    units = filters // rank
    flat = np.asarray(state, dtype=np.int64).reshape(-1)
    # std::copy(state + 1, state + n, state): the last element keeps its old value
    shifted = np.concatenate([flat[1:], flat[-1:]]).reshape(batches, filters, memory)
    acc = wrap32((x - input_zero_point) @ wf.T)                          # [batches, filters]
    newest = multiply_by_quantized_multiplier(acc, feature_multiplier, feature_shift)
    shifted[:, :, memory - 1] = np.clip(newest, -32768, 32767)
    time = wrap32(np.einsum("bfm,fm->bf", shifted, wt))                 # [batches, filters]
    total = time.reshape(batches, units, rank).sum(axis=2)
    if bias is not None:
        total = total + np.asarray(bias, dtype=np.int64)[None, :]
    out = multiply_by_quantized_multiplier(wrap32(total), time_multiplier, time_shift)
    out = np.clip(wrap32(out + output_zero_point), -128, 127).astype(np.int8)
    return out, shifted.reshape(batches, filters * memory).astype(np.int16)


def scales_for(rng, input_size: int, memory: int, rank: int, gain: float = 1.0) -> tuple:
    """Tensor scales whose effective scales keep the state and the output in range (gain
    > 1 drives both into saturation): (input, weights_feature, state, weights_time, output)."""
    feature = 1.5 / np.sqrt(input_size) * gain
    time = 3e-7 / np.sqrt(memory * rank) * gain
    x, wf, y = (float(rng.uniform(lo, hi)) for lo, hi in ((0.01, 0.1), (0.002, 0.02), (0.02, 0.3)))
    state = x * wf / feature
    return x, wf, state, time * y / state, y


def random_case(rng, batches: int, input_size: int, filters: int, memory: int, rank: int,
                bias: bool = True, gain: float = 1.0) -> dict:
    """Random tensors and params of one SVDF: the PARAM_FIELDS, "scales", "wf", "wt", "bias"."""
    scales = scales_for(rng, input_size, memory, rank, gain)
    units = filters // rank
    c = dict(batches=batches, input_size=input_size, filters=filters, memory=memory, rank=rank,
             input_zero_point=int(rng.integers(-128, 128)), output_zero_point=int(rng.integers(-128, 128)),
             **svdf_params(*scales))
    c["scales"] = scales
    c["wf"] = rng.integers(-128, 128, size=(filters, input_size), dtype=np.int8)
    c["wt"] = rng.integers(-32768, 32768, size=(filters, memory), dtype=np.int16)
    c["bias"] = rng.integers(-10 ** 8, 10 ** 8, size=units).astype(np.int32) if bias else None
    return c


def step(c: dict, x, state) -> tuple[np.ndarray, np.ndarray]:
    """svdf() with the params and tensors of a random_case."""
    return svdf(x, c["wf"], c["wt"], c["bias"], state, rank=c["rank"], input_zero_point=c["input_zero_point"],
                output_zero_point=c["output_zero_point"], feature_multiplier=c["feature_multiplier"],
                feature_shift=c["feature_shift"], time_multiplier=c["time_multiplier"],
                time_shift=c["time_shift"])
