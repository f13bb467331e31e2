"""int8 kernels on NumPy arrays, every variant, with TensorFlow Lite semantics.

Each function takes tensors as TFLite stores them (NHWC activations, OHWI conv
filters, 1HW(C*M) depthwise filters) and quantisation either as float scales
(the way a .tflite file holds them) or in the fixed-point form a firmware or
CMSIS-NN's test data holds (explicit padding, per-channel ``output_multiplier``
and ``output_shift``, ``activation_min``/``activation_max``). ``variant`` picks
a kernel variant by name (see ``variants``); every variant gives the same bits.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple, Union

import numpy as np

from .. import _core
from ..errors import InvalidArgument
from ..model.quantize import activation_range, conv_multipliers, quantize_multiplier, window_geometry
from .lowering import REFERENCES, variants_from_core
from .ranking import fastest_variant

__all__ = ["conv2d", "depthwise_conv2d", "fully_connected", "svdf", "variants", "variant_details"]

#: Op names by executor op code (ap_op), from the C op table.
_OP_TYPES = {row["code"]: row["name"] for row in _core.ops()}
_CODES = {name: code for code, name in _OP_TYPES.items()}
_CONV, _DEPTHWISE, _FC = _CODES["CONV_2D"], _CODES["DEPTHWISE_CONV_2D"], _CODES["FULLY_CONNECTED"]
_SVDF, _LSTM = _CODES["SVDF"], _CODES["UNIDIRECTIONAL_SEQUENCE_LSTM"]

Padding = Union[str, Tuple[int, int]]


def _pair(value: Union[int, Sequence[int]], name: str) -> Tuple[int, int]:
    if isinstance(value, (int, np.integer)):
        value = (int(value), int(value))
    try:
        a, b = (int(v) for v in value)
    except (TypeError, ValueError):
        raise InvalidArgument(f"{name} must be an int or a pair of ints, got {value!r}") from None
    if a < 1 or b < 1:
        raise InvalidArgument(f"{name} must be >= 1, got {(a, b)}")
    return a, b


def _array(x: np.ndarray, name: str, dtype: type, ndim: int) -> np.ndarray:
    if not isinstance(x, np.ndarray):
        raise InvalidArgument(f"{name} must be a numpy array, got {type(x).__name__}")
    if x.dtype != dtype:
        raise InvalidArgument(f"{name} must be {np.dtype(dtype).name}, got {x.dtype}")
    if x.ndim != ndim:
        raise InvalidArgument(f"{name} must have {ndim} dimensions, got shape {x.shape}")
    return np.ascontiguousarray(x)


def _spatial(in_hw: Tuple[int, int], k_hw: Tuple[int, int], stride: Tuple[int, int],
             dilation: Tuple[int, int], padding: Padding) -> Tuple[int, int, int, int]:
    """(out_h, out_w, pad_h, pad_w) for TFLite SAME/VALID or explicit symmetric padding."""
    return window_geometry(in_hw, k_hw, stride, dilation,
                           padding if isinstance(padding, str) else _pair_nonneg(padding))


def _pair_nonneg(value: Sequence[int]) -> Tuple[int, int]:
    try:
        a, b = (int(v) for v in value)
    except (TypeError, ValueError):
        raise InvalidArgument(f"padding must be 'same', 'valid' or (pad_h, pad_w), got {value!r}") from None
    if a < 0 or b < 0:
        raise InvalidArgument(f"padding must be >= 0, got {(a, b)}")
    return a, b


def _requant(channels: int, *, input_scale, filter_scales, output_scale, output_zero_point,
             activation, output_multiplier, output_shift, activation_min, activation_max) -> tuple:
    """(multiplier[], shift[], per_channel, output_offset, act_min, act_max) from either form."""
    fixed = output_multiplier is not None or output_shift is not None
    floats = input_scale is not None or output_scale is not None or filter_scales is not None
    if fixed and floats:
        raise InvalidArgument("give either scales (input_scale, filter_scales, output_scale) or "
                              "the fixed-point form (output_multiplier, output_shift), not both")
    if fixed:
        if output_multiplier is None or output_shift is None:
            raise InvalidArgument("output_multiplier and output_shift go together")
        mult = np.ascontiguousarray(np.broadcast_to(np.asarray(output_multiplier, np.int64), (channels,)))
        shift = np.ascontiguousarray(np.broadcast_to(np.asarray(output_shift, np.int64), (channels,)))
        if mult.min() < 0 or mult.max() > 2 ** 31 - 1:
            raise InvalidArgument("output_multiplier must be in [0, 2**31)")
        if shift.min() < -31 or shift.max() > 30:
            raise InvalidArgument(f"output_shift must be in [-31, 30], got [{shift.min()}, {shift.max()}]")
        lo = -128 if activation_min is None else int(activation_min)
        hi = 127 if activation_max is None else int(activation_max)
        if activation is not None:
            raise InvalidArgument("with output_multiplier/output_shift give activation_min/"
                                  "activation_max instead of activation")
    else:
        if input_scale is None or output_scale is None or filter_scales is None:
            raise InvalidArgument("give input_scale, filter_scales and output_scale "
                                  "(or output_multiplier and output_shift)")
        fs = np.broadcast_to(np.asarray(filter_scales, dtype=np.float64), (channels,))
        m32, s32 = conv_multipliers(input_scale, fs, output_scale)
        mult, shift = m32.astype(np.int64), s32.astype(np.int64)
        lo, hi = activation_range(activation, output_scale, output_zero_point)
        if activation_min is not None or activation_max is not None:
            raise InvalidArgument("activation_min/activation_max belong to the fixed-point form; "
                                  "with scales give activation=")
    if not -128 <= lo <= hi <= 127:
        raise InvalidArgument(f"activation range [{lo}, {hi}] must lie within [-128, 127]")
    zp = int(output_zero_point)
    if not -128 <= zp <= 127:
        raise InvalidArgument(f"output_zero_point = {zp} is outside [-128, 127]")
    return (mult.astype(np.int32), shift.astype(np.int32), 1, zp, lo, hi)


def _kernel_variants(code: int, spec: dict) -> list:
    """The C kernel's variant records for ``spec``; a shape or parameter the kernels cannot
    take (beyond their int32 fields, say) is an InvalidArgument naming the field and range."""
    try:
        return _core.kernel_variants(code, spec, _core.host_isa())
    except (ValueError, OverflowError) as exc:
        raise InvalidArgument(f"{_OP_TYPES.get(code, code)}: {exc}".replace(
            f"op {_OP_TYPES.get(code, code)}: ", "")) from None


def _choose(code: int, spec: dict, variant: Optional[str]) -> Tuple[int, int, int]:
    """(kind, param, isa) of the named variant (or the fastest) of the best ISA this host runs
    now (ap_isa_detect: within _core.cpu_limit, so tests can compare the ISAs' code)."""
    found = variants_from_core(_kernel_variants(code, spec))
    if variant is None:
        return fastest_variant(found, _OP_TYPES.get(code)).core_key
    for v in found:
        if v.name == variant:
            return v.core_key
    raise InvalidArgument(f"no variant {variant!r} for these shapes; "
                          f"available: {', '.join(v.name for v in found)}")


def conv2d(x: np.ndarray, w: np.ndarray, bias: Optional[np.ndarray] = None,
           stride: Union[int, Tuple[int, int]] = (1, 1), padding: Padding = "same",
           dilation: Union[int, Tuple[int, int]] = (1, 1), *,
           input_scale: Optional[float] = None, input_zero_point: int = 0,
           filter_scales: Optional[Sequence[float]] = None, output_scale: Optional[float] = None,
           output_zero_point: int = 0, activation: Optional[str] = None,
           output_multiplier: Optional[Sequence[int]] = None,
           output_shift: Optional[Sequence[int]] = None,
           activation_min: Optional[int] = None, activation_max: Optional[int] = None,
           variant: Optional[str] = None) -> np.ndarray:
    """int8 CONV_2D, bit-exact with TFLite's reference ConvPerChannel.

    x: int8 NHWC; w: int8 OHWI; bias: int32 [O] or None. Returns int8 NHWC.
    """
    x = _array(x, "x", np.int8, 4)
    w = _array(w, "w", np.int8, 4)
    oc, kh, kw, ic = w.shape
    if ic != x.shape[3]:
        raise InvalidArgument(f"w has {ic} input channels but x has {x.shape[3]}")
    geometry, requant = _conv_setup(x, oc, (kh, kw), bias, stride, padding, dilation, input_zero_point,
                                    dict(input_scale=input_scale, filter_scales=filter_scales,
                                         output_scale=output_scale, output_zero_point=output_zero_point,
                                         activation=activation, output_multiplier=output_multiplier,
                                         output_shift=output_shift, activation_min=activation_min,
                                         activation_max=activation_max))
    spec = {**geometry, "input_offset": -int(input_zero_point), **_lists(requant)}
    n, out_h, out_w = x.shape[0], geometry["output_h"], geometry["output_w"]
    return _run(_CONV, spec, w, bias, variant, x, (n, out_h, out_w, oc))


def _conv_setup(x: np.ndarray, oc: int, k_hw: Tuple[int, int], bias: Optional[np.ndarray], stride,
                padding: Padding, dilation, input_zero_point: int, quant: dict) -> Tuple[dict, tuple]:
    """Checks shared by conv and depthwise; returns the params' geometry fields and the requant."""
    n, h, wd, c = x.shape
    if bias is not None:
        bias = _array(bias, "bias", np.int32, 1)
        if bias.shape[0] != oc:
            raise InvalidArgument(f"bias has {bias.shape[0]} entries for {oc} output channels")
    sh, sw = _pair(stride, "stride")
    dh, dw = _pair(dilation, "dilation")
    if not -128 <= int(input_zero_point) <= 127:
        raise InvalidArgument(f"input_zero_point = {input_zero_point} is outside [-128, 127]")
    out_h, out_w, pad_h, pad_w = _spatial((h, wd), k_hw, (sh, sw), (dh, dw), padding)
    requant = _requant(oc, **quant)
    return _geometry(n, h, wd, c, out_h, out_w, oc, k_hw[0], k_hw[1], sh, sw, dh, dw, pad_h, pad_w), requant


def _geometry(n, h, w, c, oh, ow, oc, kh, kw, sh, sw, dh, dw, ph, pw) -> dict:
    """The window geometry fields of conv and depthwise params."""
    return {"batches": n, "input_h": h, "input_w": w, "input_c": c, "output_h": oh, "output_w": ow,
            "output_c": oc, "filter_h": kh, "filter_w": kw, "stride_h": sh, "stride_w": sw,
            "dilation_h": dh, "dilation_w": dw, "pad_h": ph, "pad_w": pw}


def _lists(requant: tuple) -> dict:
    """The requant fields of a params dict."""
    mult, shift, per_channel, zp, lo, hi = requant
    return {"requant.multiplier": [int(v) for v in mult], "requant.shift": [int(v) for v in shift],
            "requant.per_channel": int(per_channel), "requant.output_offset": int(zp),
            "requant.activation_min": int(lo), "requant.activation_max": int(hi)}


#: requant fields for variant listings (variants depend on shapes only)
_NEUTRAL_REQUANT = (np.array([1 << 30]), np.array([0]), 0, 0, -128, 127)


def _run(code: int, spec: dict, w: np.ndarray, bias: Optional[np.ndarray], variant: Optional[str],
         x: np.ndarray, out_shape: Tuple[int, ...]) -> np.ndarray:
    kind_param = _choose(code, spec, variant)
    prepared = _core.kernel_prepare(code, spec, w.reshape(-1), bias, _core.host_isa())
    out = np.empty(out_shape, dtype=np.int8)
    _core.kernel_run(code, spec, prepared, kind_param, [x.reshape(-1)], out)
    return out


def depthwise_conv2d(x: np.ndarray, w: np.ndarray, bias: Optional[np.ndarray] = None,
                     stride: Union[int, Tuple[int, int]] = (1, 1), padding: Padding = "same",
                     dilation: Union[int, Tuple[int, int]] = (1, 1), depth_multiplier: int = 1, *,
                     input_scale: Optional[float] = None, input_zero_point: int = 0,
                     filter_scales: Optional[Sequence[float]] = None,
                     output_scale: Optional[float] = None, output_zero_point: int = 0,
                     activation: Optional[str] = None,
                     output_multiplier: Optional[Sequence[int]] = None,
                     output_shift: Optional[Sequence[int]] = None,
                     activation_min: Optional[int] = None, activation_max: Optional[int] = None,
                     variant: Optional[str] = None) -> np.ndarray:
    """int8 DEPTHWISE_CONV_2D, bit-exact with TFLite's reference DepthwiseConvPerChannel.

    x: int8 NHWC; w: int8 [1, H, W, C * depth_multiplier]; bias: int32 [C * M] or None.
    """
    x = _array(x, "x", np.int8, 4)
    w = _array(w, "w", np.int8, 4)
    n, h, wd, c = x.shape
    one, kh, kw, oc = w.shape
    if one != 1:
        raise InvalidArgument(f"w must have shape [1, H, W, C*M], got {w.shape}")
    if isinstance(depth_multiplier, bool) or int(depth_multiplier) < 1:
        raise InvalidArgument(f"depth_multiplier must be >= 1, got {depth_multiplier!r}")
    if oc != c * int(depth_multiplier):
        raise InvalidArgument(f"w has {oc} channels; input channels {c} x depth_multiplier "
                              f"{depth_multiplier} = {c * int(depth_multiplier)}")
    geometry, requant = _conv_setup(x, oc, (kh, kw), bias, stride, padding, dilation, input_zero_point,
                                    dict(input_scale=input_scale, filter_scales=filter_scales,
                                         output_scale=output_scale, output_zero_point=output_zero_point,
                                         activation=activation, output_multiplier=output_multiplier,
                                         output_shift=output_shift, activation_min=activation_min,
                                         activation_max=activation_max))
    spec = {**geometry, "depth_multiplier": int(depth_multiplier), "input_offset": -int(input_zero_point),
            **_lists(requant)}
    out_h, out_w = geometry["output_h"], geometry["output_w"]
    return _run(_DEPTHWISE, spec, w, bias, variant, x, (n, out_h, out_w, oc))


def fully_connected(x: np.ndarray, w: np.ndarray, bias: Optional[np.ndarray] = None, *,
                    input_scale: Optional[float] = None, input_zero_point: int = 0,
                    filter_scales: Optional[Sequence[float]] = None,
                    output_scale: Optional[float] = None, output_zero_point: int = 0,
                    activation: Optional[str] = None,
                    output_multiplier: Optional[Sequence[int]] = None,
                    output_shift: Optional[Sequence[int]] = None,
                    activation_min: Optional[int] = None, activation_max: Optional[int] = None,
                    variant: Optional[str] = None) -> np.ndarray:
    """int8 FULLY_CONNECTED. x: int8 [batches, depth]; w: int8 [units, depth]; bias int32 [units].

    With scales the result is bit-exact with LiteRT's reference kernel (which rescales
    through a double); with output_multiplier/output_shift (one value: per tensor, or one
    per unit) it is TFLite Micro's / CMSIS-NN's fixed-point requantisation.
    """
    x = _array(x, "x", np.int8, 2)
    w = _array(w, "w", np.int8, 2)
    batches, depth = x.shape
    units, w_depth = w.shape
    if w_depth != depth:
        raise InvalidArgument(f"w has depth {w_depth}, x has {depth}")
    if bias is not None:
        bias = _array(bias, "bias", np.int32, 1)
        if bias.shape[0] != units:
            raise InvalidArgument(f"bias has {bias.shape[0]} entries for {units} units")
    if not -128 <= int(input_zero_point) <= 127:
        raise InvalidArgument(f"input_zero_point = {input_zero_point} is outside [-128, 127]")
    per_channel = 0
    real_scale = None
    if filter_scales is not None:
        scales = [float(v) for v in np.atleast_1d(np.asarray(filter_scales, dtype=np.float64))]
        per_channel = 1 if len(scales) > 1 else 0
        if per_channel and len(scales) != units:
            raise InvalidArgument(f"{len(scales)} filter_scales for {units} units")
        if input_scale is not None and output_scale is not None:
            real_scale = [float(np.float32(input_scale)) * float(np.float32(s)) / float(np.float32(output_scale))
                          for s in scales]
    elif output_multiplier is not None:
        per_channel = 1 if np.size(output_multiplier) > 1 else 0
    channels = units if per_channel else 1
    requant = _requant(channels, input_scale=input_scale,
                       filter_scales=None if filter_scales is None else np.atleast_1d(filter_scales)[:channels],
                       output_scale=output_scale, output_zero_point=output_zero_point,
                       activation=activation, output_multiplier=output_multiplier,
                       output_shift=output_shift, activation_min=activation_min,
                       activation_max=activation_max)
    mult, shift, _, zp, lo, hi = requant
    spec = {"batches": batches, "input_depth": depth, "output_depth": units,
            "input_offset": -int(input_zero_point), "filter_offset": 0,
            **_lists((mult, shift, per_channel, zp, lo, hi)), "real_scale": real_scale,
            "reference": REFERENCES["litert" if real_scale is not None else "tflm"]}
    return _run(_FC, spec, w, bias, variant, x, (batches, units))


def svdf(x: np.ndarray, weights_feature: np.ndarray, weights_time: np.ndarray,
         bias: Optional[np.ndarray] = None, state: Optional[np.ndarray] = None, *, rank: int = 1,
         input_scale: Optional[float] = None, input_zero_point: int = 0,
         weights_feature_scale: Optional[float] = None, state_scale: Optional[float] = None,
         weights_time_scale: Optional[float] = None, output_scale: Optional[float] = None,
         output_zero_point: int = 0, feature_multiplier: Optional[int] = None,
         feature_shift: Optional[int] = None, time_multiplier: Optional[int] = None,
         time_shift: Optional[int] = None, variant: Optional[str] = None) -> np.ndarray:
    """One step of int8 SVDF with an int16 state, bit-exact with TFLite's integer SVDF.

    x: int8 [batches, input_size]; weights_feature: int8 [filters, input_size];
    weights_time: int16 [filters, memory]; bias: int32 [filters / rank] or None;
    state: int16 [batches, filters * memory], C-contiguous, read and updated in place (the
    variable tensor: zeros before the first step; None runs one step from zeros).
    Quantisation: the five scales (input, weights_feature, state, weights_time, output), or
    the fixed-point form TFLite's Prepare derives from them (feature_multiplier /
    feature_shift, time_multiplier / time_shift). Returns int8 [batches, filters / rank].
    """
    x = _array(x, "x", np.int8, 2)
    wf = _array(weights_feature, "weights_feature", np.int8, 2)
    wt = _array(weights_time, "weights_time", np.int16, 2)
    batches, input_size = x.shape
    filters, memory = wt.shape
    if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)) or rank < 1 or filters % rank:
        raise InvalidArgument(f"rank must be a positive divisor of the {filters} filters, got {rank!r}")
    units = filters // int(rank)
    if wf.shape != (filters, input_size):
        raise InvalidArgument(f"weights_feature has shape {wf.shape}; [filters, input_size] = "
                              f"{(filters, input_size)} expected")
    inputs = [x.reshape(-1), wf.reshape(-1), wt.reshape(-1)]
    if bias is not None:
        bias = _array(bias, "bias", np.int32, 1)
        if bias.shape[0] != units:
            raise InvalidArgument(f"bias has {bias.shape[0]} entries for {units} units")
        inputs.append(bias)
    if state is None:
        state = np.zeros((batches, filters * memory), dtype=np.int16)
    if not isinstance(state, np.ndarray) or state.dtype != np.int16 or \
            state.shape != (batches, filters * memory) or not state.flags.c_contiguous or \
            not state.flags.writeable:
        raise InvalidArgument(f"state must be a writable C-contiguous int16 array of shape "
                              f"{(batches, filters * memory)} (it is updated in place), got "
                              f"{getattr(state, 'dtype', type(state).__name__)} {getattr(state, 'shape', '')}")
    for name, zp in (("input_zero_point", input_zero_point), ("output_zero_point", output_zero_point)):
        if not -128 <= int(zp) <= 127:
            raise InvalidArgument(f"{name} = {zp} is outside [-128, 127]")
    fixed = (feature_multiplier, feature_shift, time_multiplier, time_shift)
    scales = (input_scale, weights_feature_scale, state_scale, weights_time_scale, output_scale)
    if any(v is not None for v in fixed) and any(v is not None for v in scales):
        raise InvalidArgument("give either the five scales or feature_/time_multiplier and _shift, not both")
    if any(v is not None for v in fixed):
        if any(v is None for v in fixed):
            raise InvalidArgument("feature_multiplier, feature_shift, time_multiplier and time_shift go together")
        m1, s1, m2, s2 = (int(v) for v in fixed)
    else:
        if any(v is None for v in scales):
            raise InvalidArgument("give input_scale, weights_feature_scale, state_scale, weights_time_scale "
                                  "and output_scale (or the fixed-point form)")
        f = [np.float32(v) for v in scales]
        if not all(v > 0 and np.isfinite(v) for v in f):
            raise InvalidArgument(f"scales must be finite and > 0, got {scales}")
        # TFLite's Prepare: float32 products, widened to double
        m1, s1 = quantize_multiplier(float(f[0] * f[1] / f[2]))
        m2, s2 = quantize_multiplier(float(f[2] * f[3] / f[4]))
    spec = _svdf_fields(batches, input_size, filters, memory, int(rank), int(input_zero_point),
                        int(output_zero_point), m1, s1, m2, s2)
    kind_param = _choose(_SVDF, spec, variant)
    out = np.empty((batches, units), dtype=np.int8)
    _core.kernel_run(_SVDF, spec, None, kind_param, inputs, out, [state.reshape(-1)])
    return out


def _svdf_fields(batches, input_size, filters, memory, rank, xz, yz, m1, s1, m2, s2) -> dict:
    return {"batches": batches, "input_size": input_size, "filters": filters, "memory": memory, "rank": rank,
            "input_zero_point": xz, "output_zero_point": yz, "feature_multiplier": m1, "feature_shift": s1,
            "time_multiplier": m2, "time_shift": s2, "time_weights_int8": 0, "state_zero_point": 0}


def _dims(shape: Sequence[int], ndim: int, what: str) -> Tuple[int, ...]:
    try:
        dims = tuple(int(v) for v in shape)
    except (TypeError, ValueError):
        raise InvalidArgument(f"{what} must be a sequence of {ndim} ints, got {shape!r}") from None
    if len(dims) != ndim or min(dims) < 1:
        raise InvalidArgument(f"{what} must be {ndim} positive ints, got {dims}")
    return dims


def _recurrent_spec(op: str, input_shape: Sequence[int], filter_shape: Sequence[int], rank,
                    time_major: bool) -> Tuple[int, dict]:
    """SVDF: x [batches, input_size] and weights_time [filters, memory]; LSTM: the input
    [batches, time_steps, input_size] ([time_steps, batches, input_size] when time_major) and
    one input-to-gate matrix [cell_size, input_size]. Variants depend on shapes only, so the
    quantisation fields hold neutral values."""
    if op == "svdf":
        batches, input_size = _dims(input_shape, 2, "svdf input_shape [batches, input_size]")
        filters, memory = _dims(filter_shape, 2, "svdf filter_shape (weights_time) [filters, memory]")
        if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)) or rank < 1 or filters % rank:
            raise InvalidArgument(f"rank must be a positive divisor of the {filters} filters, got {rank!r}")
        return _SVDF, _svdf_fields(batches, input_size, filters, memory, int(rank), 0, 0, 1 << 30, 0, 1 << 30, 0)
    if time_major:
        time_steps, batches, input_size = _dims(input_shape, 3,
                                                "lstm input_shape [time_steps, batches, input_size]")
    else:
        batches, time_steps, input_size = _dims(input_shape, 3,
                                                "lstm input_shape [batches, time_steps, input_size]")
    cell_size, weight_inputs = _dims(filter_shape, 2, "lstm filter_shape (input-to-gate weights) "
                                                      "[cell_size, input_size]")
    if weight_inputs != input_size:
        raise InvalidArgument(f"lstm filter_shape {tuple(filter_shape)} has {weight_inputs} inputs but "
                              f"input_shape {tuple(input_shape)} has {input_size}")
    one, shift = [1 << 30] * 4, [0] * 4
    return _LSTM, {"batches": batches, "time_steps": time_steps, "input_size": input_size,
                   "cell_size": cell_size, "time_major": int(bool(time_major)), "input_offset": 0,
                   "output_state_offset": 0, "hidden_zero_point": 0, "input_multiplier": one,
                   "input_shift": shift, "recurrent_multiplier": one, "recurrent_shift": shift,
                   "hidden_multiplier": 1 << 30, "hidden_shift": 0, "cell_scale_log2": -12, "cell_clip": 0,
                   "reference": 0}


def _variant_spec(op: str, input_shape: Sequence[int], filter_shape: Sequence[int], stride, padding,
                  dilation, depth_multiplier: int, rank=1, time_major: bool = False) -> Tuple[int, dict]:
    if op not in ("conv2d", "depthwise_conv2d", "fully_connected", "svdf", "lstm"):
        raise InvalidArgument(f"unknown op {op!r}; choose 'conv2d', 'depthwise_conv2d', 'fully_connected', "
                              f"'svdf' or 'lstm'")
    if op in ("svdf", "lstm"):
        return _recurrent_spec(op, input_shape, filter_shape, rank, time_major)
    if op == "fully_connected":
        batches, depth = (int(v) for v in input_shape)
        units = int(filter_shape[0])
        return _FC, {"batches": batches, "input_depth": depth, "output_depth": units, "input_offset": 0,
                     "filter_offset": 0, **_lists(_NEUTRAL_REQUANT), "real_scale": None,
                     "reference": REFERENCES["tflm"]}
    n, h, w, c = (int(v) for v in input_shape)
    sh, sw = _pair(stride, "stride")
    dh, dw = _pair(dilation, "dilation")
    if op == "conv2d":
        oc, kh, kw, _ = (int(v) for v in filter_shape)
        oh, ow, ph, pw = _spatial((h, w), (kh, kw), (sh, sw), (dh, dw), padding)
        return _CONV, {**_geometry(n, h, w, c, oh, ow, oc, kh, kw, sh, sw, dh, dw, ph, pw), "input_offset": 0,
                       **_lists(_NEUTRAL_REQUANT)}
    _, kh, kw, oc = (int(v) for v in filter_shape)
    oh, ow, ph, pw = _spatial((h, w), (kh, kw), (sh, sw), (dh, dw), padding)
    return _DEPTHWISE, {**_geometry(n, h, w, c, oh, ow, oc, kh, kw, sh, sw, dh, dw, ph, pw),
                        "depth_multiplier": int(depth_multiplier), "input_offset": 0, **_lists(_NEUTRAL_REQUANT)}


def variant_details(op: str, input_shape: Sequence[int], filter_shape: Sequence[int],
                    stride=(1, 1), padding: Padding = "same", dilation=(1, 1),
                    depth_multiplier: int = 1, *, rank: int = 1, time_major: bool = False) -> list:
    """Full records (name, kind, param, scratch requests, MACs, in_place), least scratch first.

    Shapes as the kernel functions take them:

    * ``conv2d``: x NHWC, w OHWI; ``depthwise_conv2d``: x NHWC, w 1HW(C*M) (with
      ``depth_multiplier``); both with ``stride``, ``padding``, ``dilation``.
    * ``fully_connected``: x [batches, depth], w [units, depth].
    * ``svdf``: x [batches, input_size], weights_time [filters, memory], and ``rank``
      (variants ``fused``, no scratch, and ``direct``, batches * filters int32 of scratch).
    * ``lstm`` (UNIDIRECTIONAL_SEQUENCE_LSTM): input [batches, time_steps, input_size]
      (``time_major=True``: [time_steps, batches, input_size]) and an input-to-gate weight
      matrix [cell_size, input_size] (one variant, ``direct``, no scratch).
    """
    code, spec = _variant_spec(op, input_shape, filter_shape, stride, padding, dilation,
                               depth_multiplier, rank, time_major)
    return [v[:6] for v in _kernel_variants(code, spec)]


def variants(op: str, input_shape: Sequence[int], filter_shape: Sequence[int],
             stride=(1, 1), padding: Padding = "same", dilation=(1, 1),
             depth_multiplier: int = 1, *, rank: int = 1, time_major: bool = False) -> List[Tuple[str, int]]:
    """[(variant name, total scratch bytes), ...] from least to most scratch, for op
    ``conv2d``, ``depthwise_conv2d``, ``fully_connected``, ``svdf`` or ``lstm`` (shapes as
    in ``variant_details``), e.g. ``variants("svdf", (1, 96), (64, 8))`` ->
    ``[("fused", 0), ("direct", 256)]``."""
    return [(v[0], sum(b for b, _ in v[3]))
            for v in variant_details(op, input_shape, filter_shape, stride, padding, dilation,
                                     depth_multiplier, rank=rank, time_major=time_major)]
