"""The integer fields of an int8 UNIDIRECTIONAL_SEQUENCE_LSTM, as TFLite's Prepare derives them.

TensorFlow Lite's "8x8_16" LSTM (LiteRT unidirectional_sequence_lstm.cc,
PopulateQuantizedLstmParams8x8_16 and PopulatePrecomputedZPTimesWeightsWithBias) turns the
tensors' float scales into:

* per gate (input, forget, cell, output) two requantisations to the Q3.12 gate format,
  QuantizeMultiplier(weight_scale * input_scale / 2^-12) for the input matmul and
  QuantizeMultiplier(weight_scale * output_state_scale / 2^-12) for the recurrent one, the
  products and quotients taken in float32 as TFLite's Prepare does;
* the hidden requantisation QuantizeMultiplier(float32(2^-15 / hidden_scale * 2^-15)), with
  hidden_scale and its zero point read from the op's fifth intermediate tensor;
* the cell state's scale as a power of two (2^cell_scale_log2) and the cell clip in its units,
  trunc(float32(cell_clip / cell_state_scale)) within int16.

Under the rounding rule "tflm" (TensorFlow Lite Micro's lstm_eval_common.cc,
PrepareGateParametersInteger) the same fields come out differently:

* each gate multiplier is QuantizeMultiplier(double(weight_scale) * double(input_scale) /
  2^-12), the product taken in double (CalculateOpDataFullyConnected);
* the hidden requantisation is QuantizeMultiplier(2^-15 * 2^-15 / double(output_state_scale))
  and hidden_zero_point the output state's zero point: TensorFlow Lite Micro writes the hidden
  state in the output state tensor's quantisation and never reads the fifth intermediate;
* the clip is int16(double(cell_clip) / double(cell_state_scale)), -1 where cell_clip is 0
  (it clamps whenever the float clip is > 0, even to 0).

``lstm_quant_params`` computes these from scales; ``lstm_operands`` reads them, the weights
and the shapes from an imported model's op, refusing the LSTM forms the kernel does not run
(CIFG, peephole, projection, layer norm, non-int8 weights).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import InvalidArgument, UnsupportedModel
from ..model.quantize import quantize_multiplier

__all__ = ["LstmQuantParams", "LstmOperands", "lstm_quant_params", "lstm_operands",
           "GATES", "CELL_SCALE_RANGE"]

#: Gate order of TFLite's operands and of every per-gate field here.
GATES = ("input", "forget", "cell", "output")
#: Cell-state scales 2^k the kernel supports: TFLite's tanh of the cell state reads it as
#: Q(15 + k), defined for 0 <= 15 + k <= 6.
CELL_SCALE_RANGE = (-15, -9)

# Operand positions of TFLite's UNIDIRECTIONAL_SEQUENCE_LSTM (lstm_shared.h, "full" kernel).
_INPUT = 0
_INPUT_WEIGHTS = (1, 2, 3, 4)
_RECURRENT_WEIGHTS = (5, 6, 7, 8)
_PEEPHOLE = (9, 10, 11)
_BIASES = (12, 13, 14, 15)
_PROJECTION = (16, 17)
_OUTPUT_STATE, _CELL_STATE = 18, 19
_LAYER_NORM = (20, 21, 22, 23)
_GATE_SCALE = np.float32(2.0 ** -12)   # Q3.12: the gates' intermediate scale without layer norm


@dataclass(frozen=True)
class LstmQuantParams:
    """Integer parameters of the kernel (names as in ap_lstm_params)."""

    input_offset: int                       # -input zero point
    output_state_offset: int                # -output state zero point
    hidden_zero_point: int                  # zero point written into the output state
    input_multiplier: Tuple[int, int, int, int]
    input_shift: Tuple[int, int, int, int]
    recurrent_multiplier: Tuple[int, int, int, int]
    recurrent_shift: Tuple[int, int, int, int]
    hidden_multiplier: int
    hidden_shift: int
    cell_scale_log2: int
    cell_clip: int                          # 0 ("litert") or -1 ("tflm"): no clip
    reference: int = 0                      # 0 "litert", 1 "tflm" (the C enum ap_reference)

    def as_dict(self) -> Dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class LstmOperands:
    """What the kernel needs from one LSTM op of a model.

    The state tensors start (and TFLite resets them) as: output state filled with its zero
    point (-params.output_state_offset), cell state 0.
    """

    batches: int
    time_steps: int
    input_size: int
    cell_size: int
    time_major: bool
    input_weights: List[np.ndarray]        # 4 int8 [cell_size, input_size], GATES order
    recurrent_weights: List[np.ndarray]    # 4 int8 [cell_size, cell_size]
    biases: List[np.ndarray]               # 4 int32 [cell_size]
    output_state: int                      # tensor index (variable, int8 [batches, cell_size])
    cell_state: int                        # tensor index (variable, int16 [batches, cell_size])
    params: LstmQuantParams


def _f32(x: float, what: str) -> np.float32:
    v = np.float32(x)
    if not (np.isfinite(v) and v > 0):
        raise InvalidArgument(f"LSTM {what} must be a finite scale > 0, got {x!r}")
    return v


def _zero_point(v: int, lo: int, hi: int, what: str) -> int:
    if not lo <= int(v) <= hi:
        raise InvalidArgument(f"LSTM {what} {v} is outside [{lo}, {hi}]")
    return int(v)


def _checked_log2(scale: np.float32) -> Optional[int]:
    """TFLite CheckedLog2: the rounded log2 of a float32, if within 1e-3 of an integer."""
    with np.errstate(all="ignore"):
        x_log2 = np.float32(np.log(scale)) * (np.float32(1.0) / np.float32(np.log(np.float32(2.0))))
    rounded = np.float32(np.round(x_log2))
    if not abs(float(x_log2 - rounded)) < 1e-3:
        return None
    return int(rounded)


def lstm_quant_params(*, input_scale: float, input_zero_point: int,
                      input_weight_scales: Sequence[float], recurrent_weight_scales: Sequence[float],
                      output_state_scale: float, output_state_zero_point: int,
                      cell_state_scale: float, hidden_scale: float, hidden_zero_point: int,
                      cell_clip: float = 0.0, reference: str = "litert") -> LstmQuantParams:
    """The kernel's integer parameters from the tensors' scales, as TFLite's Prepare computes them.

    input_weight_scales / recurrent_weight_scales: the per-tensor scales of the four
    input-to-gate and recurrent-to-gate weight matrices, in GATES order. hidden_scale /
    hidden_zero_point: the op's fifth intermediate tensor. cell_clip: the op option (0 = none).
    reference: "litert" (LiteRT's Prepare) or "tflm" (TensorFlow Lite Micro's; hidden_scale and
    hidden_zero_point are then unused, the output state's taken instead).
    Raises InvalidArgument for a scale that is not > 0, a zero point out of range, a cell
    state scale that is not a power of two in 2^-15..2^-9, a negative clip or an unknown
    reference.
    """
    if reference not in ("litert", "tflm"):
        raise InvalidArgument(f"reference {reference!r}: choose \"tflm\" or \"litert\"")
    tflm = reference == "tflm"
    if len(input_weight_scales) != 4 or len(recurrent_weight_scales) != 4:
        raise InvalidArgument(f"LSTM needs 4 input and 4 recurrent weight scales (input, forget, "
                              f"cell, output); got {len(input_weight_scales)} and "
                              f"{len(recurrent_weight_scales)}")
    s_in = _f32(input_scale, "input scale")
    s_state = _f32(output_state_scale, "output state scale")
    s_cell = _f32(cell_state_scale, "cell state scale")
    s_hidden = _f32(hidden_scale, "hidden (intermediate 4) scale")
    in_m, in_s, rec_m, rec_s = [], [], [], []
    for g, (wx, wh) in enumerate(zip(input_weight_scales, recurrent_weight_scales)):
        wx32 = _f32(wx, f"{GATES[g]} gate input weight scale")
        wh32 = _f32(wh, f"{GATES[g]} gate recurrent weight scale")
        if tflm:   # double products of the float32 scales
            m, s = quantize_multiplier(float(wx32) * float(s_in) / float(_GATE_SCALE))
        else:
            m, s = quantize_multiplier(float(np.float32(wx32 * s_in) / _GATE_SCALE))
        in_m.append(m)
        in_s.append(s)
        if tflm:
            m, s = quantize_multiplier(float(wh32) * float(s_state) / float(_GATE_SCALE))
        else:
            m, s = quantize_multiplier(float(np.float32(wh32 * s_state) / _GATE_SCALE))
        rec_m.append(m)
        rec_s.append(s)
    # double arithmetic (std::pow(2, -15) is a double), stored in a float
    if tflm:   # CreateInterGateMulParams: the output state's scale, in double
        hidden_real = 2.0 ** -15 * 2.0 ** -15 / float(s_state)
    else:
        hidden_real = float(np.float32(2.0 ** -15 / float(s_hidden) * 2.0 ** -15))
    hidden_m, hidden_s = quantize_multiplier(hidden_real)
    cell_log2 = _checked_log2(s_cell)
    if cell_log2 is None:
        raise InvalidArgument(f"LSTM cell state scale {float(s_cell)!r} is not a power of two "
                              f"(TFLite's integer LSTM needs one)")
    lo, hi = CELL_SCALE_RANGE
    if not lo <= cell_log2 <= hi:
        raise InvalidArgument(f"LSTM cell state scale 2^{cell_log2} is outside 2^{lo}..2^{hi} "
                              f"(the cell tanh reads Q(15 + k) with 0 <= 15 + k <= 6)")
    clip = float(cell_clip)
    if not (math.isfinite(clip) and clip >= 0):
        raise InvalidArgument(f"LSTM cell_clip must be finite and >= 0, got {cell_clip!r}")
    quantized_clip = -1 if tflm else 0
    if tflm and np.float32(clip) > 0:   # CreateLstmCellStateInfo: double quotient, truncated
        quantized_clip = int(min(max(float(np.float32(clip)) / float(s_cell), -32768.0), 32767.0))
    elif np.float32(clip) > 0:
        q = np.float32(clip) / s_cell
        quantized_clip = int(min(max(float(q), -32768.0), 32767.0))  # static_cast truncates
    return LstmQuantParams(
        input_offset=-_zero_point(input_zero_point, -128, 127, "input zero point"),
        output_state_offset=-_zero_point(output_state_zero_point, -128, 127, "output state zero point"),
        hidden_zero_point=(_zero_point(output_state_zero_point, -128, 127, "output state zero point") if tflm
                           else _zero_point(hidden_zero_point, -128, 127, "hidden zero point")),
        input_multiplier=tuple(in_m), input_shift=tuple(in_s),
        recurrent_multiplier=tuple(rec_m), recurrent_shift=tuple(rec_s),
        hidden_multiplier=hidden_m, hidden_shift=hidden_s,
        cell_scale_log2=cell_log2, cell_clip=quantized_clip, reference=1 if tflm else 0)


def _scale_zp(model, index: int, what: str, per_tensor: bool = True) -> Tuple[float, int]:
    t = model.tensors[index]
    q = t.quantization
    if q is None or not q.scale:
        raise UnsupportedModel(f"LSTM {what} (tensor {index}, {t.name!r}) has no quantisation")
    if per_tensor and len(q.scale) != 1:
        raise UnsupportedModel(f"LSTM {what} (tensor {index}, {t.name!r}) is quantised per channel "
                               f"({len(q.scale)} scales); TFLite's integer LSTM reads one scale")
    return float(q.scale[0]), int(q.zero_point[0])


def _operand(op, k: int) -> int:
    return op.inputs[k] if k < len(op.inputs) else -1


def _present(model, op, k: int, what: str):
    """The tensor of operand k, which must be given."""
    if _operand(op, k) < 0:
        raise UnsupportedModel(f"op {op.index} ({op.type}): the {what} (operand {k}) is missing")
    return model.tensors[op.inputs[k]]


def lstm_operands(model, op, reference: str = "litert") -> LstmOperands:
    """Weights, shapes and integer parameters of one int8 UNIDIRECTIONAL_SEQUENCE_LSTM op.

    op: an Operator of `model` (or its index). Raises UnsupportedModel for the forms the
    kernel does not run: not int8 input / weights, CIFG (no input gate), peephole, projection,
    layer norm, state tensors that are not variables of the right type and size, a missing
    fifth intermediate (under "litert": "tflm" does not read it); InvalidArgument for
    parameters lstm_quant_params rejects. reference: the rounding rule the integers follow.
    """
    if isinstance(op, int):
        op = model.operators[op]
    where = f"op {op.index} ({op.type})"
    if op.type != "UNIDIRECTIONAL_SEQUENCE_LSTM":
        raise UnsupportedModel(f"{where} is not an UNIDIRECTIONAL_SEQUENCE_LSTM")
    if len(op.inputs) not in (20, 24) or len(op.outputs) != 1:
        raise UnsupportedModel(f"{where} has {len(op.inputs)} inputs and {len(op.outputs)} outputs; "
                               f"TFLite's kernel takes 20 or 24 inputs and 1 output")
    absent = {"CIFG (no input gate)": (1, 5), "peephole": _PEEPHOLE, "projection": _PROJECTION,
              "layer norm": _LAYER_NORM}
    for form, ks in absent.items():
        present = [k for k in ks if _operand(op, k) >= 0]
        expected = form.startswith("CIFG")
        if expected and len(present) != len(ks):
            raise UnsupportedModel(f"{where} uses {form}, which the kernel does not run")
        if not expected and present:
            raise UnsupportedModel(f"{where} uses {form} (operands {present}), which the kernel "
                                   f"does not run")
    x = _present(model, op, _INPUT, "input")
    if x.dtype != "int8" or len(x.shape) not in (2, 3):
        raise UnsupportedModel(f"{where}: input must be int8 of rank 2 or 3, got {x.dtype} {x.shape}")
    time_major = bool(op.options.get("time_major", False))
    if len(x.shape) == 2:
        batches, steps, n_input = x.shape[0], 1, x.shape[1]
    elif time_major:
        steps, batches, n_input = x.shape
    else:
        batches, steps, n_input = x.shape
    wx, wh, biases, wx_scales, wh_scales = [], [], [], [], []
    n_cell = None
    for g in range(4):
        for kind, k, store, scales in (("input", _INPUT_WEIGHTS[g], wx, wx_scales),
                                       ("recurrent", _RECURRENT_WEIGHTS[g], wh, wh_scales)):
            t = _present(model, op, k, f"{kind}-to-{GATES[g]} weights")
            if t.dtype != "int8" or t.data is None or len(t.shape) != 2:
                raise UnsupportedModel(f"{where}: {kind}-to-{GATES[g]} weights must be constant int8 "
                                       f"matrices, got {t.dtype} {t.shape}")
            n_cell = t.shape[0] if n_cell is None else n_cell
            cols = n_input if kind == "input" else n_cell
            if t.shape != (n_cell, cols):
                raise UnsupportedModel(f"{where}: {kind}-to-{GATES[g]} weights have shape {t.shape}, "
                                       f"expected {(n_cell, cols)}")
            scale, zp = _scale_zp(model, op.inputs[k], f"{kind}-to-{GATES[g]} weights")
            if zp != 0:
                raise UnsupportedModel(f"{where}: {kind}-to-{GATES[g]} weights have zero point {zp}; "
                                       f"TFLite's integer LSTM assumes symmetric weights")
            store.append(np.ascontiguousarray(t.data, dtype=np.int8))
            scales.append(scale)
        b = _present(model, op, _BIASES[g], f"{GATES[g]} gate bias")
        if b.dtype != "int32" or b.data is None or b.shape != (n_cell,):
            raise UnsupportedModel(f"{where}: {GATES[g]} gate bias must be constant int32 "
                                   f"[{n_cell}], got {b.dtype} {b.shape}")
        biases.append(np.ascontiguousarray(b.data, dtype=np.int32))
    states = {}
    for what, k, dtype in (("output state", _OUTPUT_STATE, "int8"), ("cell state", _CELL_STATE, "int16")):
        t = _present(model, op, k, what)
        count = int(np.prod(t.shape)) if t.shape else 1
        if not t.is_variable or t.dtype != dtype or count != batches * n_cell:
            raise UnsupportedModel(f"{where}: {what} (tensor {op.inputs[k]}) must be a variable "
                                   f"{dtype} tensor of {batches * n_cell} values, got "
                                   f"{'variable' if t.is_variable else 'non-variable'} {t.dtype} {t.shape}")
        states[what] = op.inputs[k]
    if reference != "tflm" and len(op.intermediates) != 5:
        raise UnsupportedModel(f"{where} has {len(op.intermediates)} intermediate tensors; TFLite's "
                               f"integer LSTM reads the hidden scale from the fifth of 5")
    in_scale, in_zp = _scale_zp(model, op.inputs[_INPUT], "input")
    state_scale, state_zp = _scale_zp(model, op.inputs[_OUTPUT_STATE], "output state")
    cell_scale, _ = _scale_zp(model, op.inputs[_CELL_STATE], "cell state")
    if reference == "tflm":
        hidden_scale, hidden_zp = state_scale, state_zp   # unused: TFLM reads the output state's
    else:
        hidden_scale, hidden_zp = _scale_zp(model, op.intermediates[4], "hidden intermediate")
    params = lstm_quant_params(
        input_scale=in_scale, input_zero_point=in_zp, input_weight_scales=wx_scales,
        recurrent_weight_scales=wh_scales, output_state_scale=state_scale,
        output_state_zero_point=state_zp, cell_state_scale=cell_scale, hidden_scale=hidden_scale,
        hidden_zero_point=hidden_zp, cell_clip=float(op.options.get("cell_clip", 0.0)), reference=reference)
    return LstmOperands(batches=int(batches), time_steps=int(steps), input_size=int(n_input),
                        cell_size=int(n_cell), time_major=time_major, input_weights=wx,
                        recurrent_weights=wh, biases=biases, output_state=states["output state"],
                        cell_state=states["cell state"], params=params)
