"""From model ops to kernel calls: what each op runs, with which parameters.

``lower(model, isa, reference)`` maps every op to an ``OpKernel``: the executor's op code, the
params the C core builds its struct from (a ``{field: value}`` dict with the fields
of the op table's params descriptor, ``_core.ops()``; derived exactly as TensorFlow
Lite's Prepare functions derive them), the constants, and the variants the
kernel offers for these shapes. Ops or parameters arenaplan cannot run raise
UnsupportedModel naming the op index, its type and what is wrong, so a model
that plans also runs.
"""
from __future__ import annotations

import inspect

import math
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import _core
from ..errors import ArenaplanError, InvalidArgument, UnsupportedModel
from . import float32_math
from .lstm_params import lstm_operands
from ..model.model import ALIASING_OPS, PER_OUTPUT_OPS, Model, Operator, Tensor
from ..model.quantize import activation_range, conv_multipliers, quantize_multiplier, window_geometry

__all__ = ["OP_CODES", "TYPES_CODES", "DTYPE_CODES", "ISA_CODES", "ISA_NAMES", "HOST_ISA", "REFERENCES", "Variant",
           "OpKernel", "lower", "lower_op", "check_isa", "check_reference", "runs_as", "variants_from_core"]

#: Executor op codes (the C enum ap_op) by op name, from the C op table.
OP_CODES = {row["name"]: row["code"] for row in _core.ops()}
#: (op code, types code) of the rows whose kernels take a prepared constant blob (the table's
#: has_blob: an op's rows may differ in it, as the int8 and float32 LSTM do).
_WEIGHTED = frozenset((row["code"], row["types_code"]) for row in _core.ops() if row["has_blob"])
#: Tensor-type codes of op table rows (the C enum ap_types) by name: "s8", "s16x8".
TYPES_CODES = {row["types"]: row["types_code"] for row in _core.ops()}

#: Integer element types of kernels that take several (the C enum ap_dtype).
DTYPE_CODES = {"int8": 0, "int16": 1, "int32": 2, "int64": 3, "uint8": 6}

#: Instruction sets by name (the C enum ap_isa, from the C side: _core.isas()).
_ISAS = _core.isas()
ISA_CODES = {name: code for code, name, _, _, _ in _ISAS}
ISA_NAMES = {code: name for name, code in ISA_CODES.items()}
#: The ISA whose code runs each ISA's variants on this host (absent: this host cannot).
_RUNS_AS = {name: ISA_NAMES[runs] for _, name, _, _, runs in _ISAS if runs >= 0}
#: The best ISA this build and CPU run ("x86-avx2" on an AVX2 host, else "portable").
HOST_ISA = ISA_NAMES[_core.host_isa()]

#: Rounding rules (the C enum ap_reference): where LiteRT 2.3's reference kernels and
#: TensorFlow Lite Micro differ (FULLY_CONNECTED: LiteRT's double scales, TFLM's fixed point).
REFERENCES = {"litert": 0, "tflm": 1}


def check_isa(isa: str, what: str = "isa") -> str:
    """``isa`` if it is an instruction set the C side knows, else InvalidArgument naming it
    and the known ones."""
    if not isinstance(isa, str) or isa not in ISA_CODES:
        raise InvalidArgument(f"{what} {isa!r} is not an instruction set arenaplan knows; "
                              f"it knows {', '.join(ISA_CODES)}")
    return isa


def check_reference(reference: str) -> str:
    """``reference`` if it is "tflm" or "litert", else InvalidArgument naming it."""
    if not isinstance(reference, str) or reference not in REFERENCES:
        raise InvalidArgument(f"reference {reference!r}: choose \"tflm\" (TensorFlow Lite Micro's "
                              f"fixed-point rounding) or \"litert\" (LiteRT's reference kernels)")
    return reference


def runs_as(isa: str) -> str:
    """The ISA whose code runs ``isa``'s variants on this host, bit for bit (itself where the
    host has it; "arm-dsp" everywhere, natively on a DSP core, else as its instructions' C
    definitions).
    UnsupportedModel naming both ISAs when this host cannot run it."""
    check_isa(isa)
    if isa not in _RUNS_AS:
        raise UnsupportedModel(f"this host cannot run {isa} code (the build or the CPU lacks it); "
                               f"it runs {HOST_ISA}")
    return _RUNS_AS[isa]


@dataclass(frozen=True)
class Variant:
    """One way to run an op: its name, scratch requests and cost figures."""

    name: str
    kind: int
    param: int
    scratch: Tuple[Tuple[int, int], ...]   # (bytes, alignment) per scratch buffer
    macs: int
    in_place: bool
    isa: str = "portable"     # the instruction set whose code this variant runs
    family: str = ""          # the kind's name without its param ("im2col_rows"), from C

    @property
    def scratch_bytes(self) -> int:
        return sum(b for b, _ in self.scratch)

    @property
    def core_key(self) -> Tuple[int, int, int]:
        """(kind, param, isa code): how the C side names this variant."""
        return (self.kind, self.param, ISA_CODES[self.isa])


def variants_from_core(found) -> List[Variant]:
    """Variant records from ``_core.kernel_variants``' tuples (the one place they are read)."""
    return [Variant(name, int(kind), int(param), tuple((int(b), int(a)) for b, a in scratch), int(macs),
                    bool(in_place), ISA_NAMES[isa], family)
            for name, kind, param, scratch, macs, in_place, isa, family in found]


@dataclass
class OpKernel:
    """An op lowered to a kernel call."""

    index: int
    type: str
    code: int
    spec: dict                            # {field: value} of the op's params struct
    data_inputs: Tuple[int, ...]          # tensors the kernel reads (activations or constants)
    output: int
    variants: List[Variant]
    weights: Optional[np.ndarray] = None  # filter of weighted ops (int8; float32 on a float32 row)
    bias: Optional[np.ndarray] = None
    states: Tuple[int, ...] = ()          # variable tensors the kernel reads and updates in place
    isa: str = "portable"                 # the instruction set of the variants and the blob
    types: int = 0                        # the op table row's tensor types (TYPES_CODES)
    _prepared: Optional[bytearray] = field(default=None, repr=False)

    @property
    def weighted(self) -> bool:
        return (self.code, self.types) in _WEIGHTED

    def variant(self, name: str) -> Variant:
        for v in self.variants:
            if v.name == name:
                return v
        raise UnsupportedModel(f"op {self.index} ({self.type}): no {self.isa} variant {name!r}; "
                               f"available: {', '.join(v.name for v in self.variants)}")

    def prepared(self) -> Optional[bytearray]:
        """Prepared constants (repacked weights, folded bias), computed once."""
        if not self.weighted:
            return None
        if self._prepared is None:
            self._prepared = _core.kernel_prepare(self.code, self.spec, self.weights.reshape(-1),
                                                  self.bias, ISA_CODES[self.isa], self.types)
        return self._prepared


class _Unsupported(Exception):
    """Raised inside a lowering function; lower_op adds the op's index and type."""


# --- helpers -------------------------------------------------------------------------
def _operand(indices: Sequence[int], position: int) -> int:
    """The tensor index at ``position`` of an op's operand list, or -1 (missing) past its end."""
    return indices[position] if position < len(indices) else -1


def _tensor(model: Model, index: int, what: str, dtype: Optional[str] = "int8",
            constant: Optional[bool] = None, variable: bool = False) -> Tensor:
    """Operand ``index`` checked: present, of ``dtype``, constant or not; a variable (state)
    tensor only where the op keeps state (``variable=True``)."""
    if index < 0:
        raise _Unsupported(f"the {what} operand is missing")
    t = model.tensors[index]
    if t.is_variable and not variable:
        raise _Unsupported(f"{what} tensor {index} ({t.name!r}) is a variable (state) tensor; "
                           "this op keeps no state")
    if dtype is not None and t.dtype != dtype:
        raise _Unsupported(f"{what} tensor {index} ({t.name!r}) is {t.dtype}, expected {dtype}")
    if constant is True and not t.is_constant:
        raise _Unsupported(f"{what} tensor {index} ({t.name!r}) must be a constant")
    if constant is False and t.is_constant:
        raise _Unsupported(f"{what} tensor {index} ({t.name!r}) is a constant; "
                           "only activations are supported here")
    return t


_INT_RANGES = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767), "int32": (-2 ** 31, 2 ** 31 - 1)}


def _per_tensor(t: Tensor, what: str) -> Tuple[float, int]:
    q = t.quantization
    if q is None or not q.scale:
        raise _Unsupported(f"{what} tensor {t.index} ({t.name!r}) has no quantisation")
    if len(set(q.scale)) != 1 or len(set(q.zero_point or (0,))) != 1:
        raise _Unsupported(f"{what} tensor {t.index} ({t.name!r}) must be per-tensor quantised")
    scale = float(np.float32(q.scale[0]))
    zp = int(q.zero_point[0]) if q.zero_point else 0
    if not scale > 0 or not math.isfinite(scale):
        raise _Unsupported(f"{what} tensor {t.index} ({t.name!r}) has scale {scale}; it must be > 0")
    lo, hi = _INT_RANGES.get(t.dtype, _INT_RANGES["int8"])
    if not lo <= zp <= hi:
        raise _Unsupported(f"{what} tensor {t.index} ({t.name!r}) has zero point {zp} outside "
                           f"[{lo}, {hi}]")
    return scale, zp


def _symmetric(t: Tensor, what: str) -> float:
    """The scale of a per-tensor quantised tensor whose zero point must be 0."""
    scale, zp = _per_tensor(t, what)
    if zp != 0:
        raise _Unsupported(f"{what} tensor {t.index} ({t.name!r}) has zero point {zp}; TFLite's integer "
                           "kernel ignores it, so only 0 is supported")
    return scale


def _shape4(shape: Sequence[int], what: str) -> List[int]:
    if len(shape) > 4:
        raise _Unsupported(f"{what} has rank {len(shape)}; at most 4 is supported")
    if any(int(d) < 1 for d in shape):
        raise _Unsupported(f"{what} has shape {tuple(shape)}: every dimension must be at least 1")
    return [1] * (4 - len(shape)) + [int(d) for d in shape]


def _activation(op: Operator, scale: float, zp: int) -> Tuple[int, int]:
    act = op.options.get("fused_activation_function", "NONE")
    try:
        return activation_range(act, scale, zp)
    except ArenaplanError:
        raise _Unsupported(f"fused activation {act} is not supported "
                           "(NONE, RELU, RELU6, RELU_N1_TO_1 are)") from None


def _expect_shape(model: Model, t: int, want: Sequence[int], what: str) -> None:
    have = tuple(model.tensors[t].shape)
    if int(np.prod(have)) != int(np.prod(want)) or (len(have) == len(want) and tuple(want) != have):
        raise _Unsupported(f"{what} tensor {t} has shape {have}, the op computes {tuple(want)}")


def _spatial(op: Operator, h: int, w: int, kh: int, kw: int) -> Tuple[int, int, int, int, int, int, int, int]:
    sh, sw = int(op.options.get("stride_h", 1)), int(op.options.get("stride_w", 1))
    dh = int(op.options.get("dilation_h_factor", 1))
    dw = int(op.options.get("dilation_w_factor", 1))
    if min(sh, sw, dh, dw) < 1:
        raise _Unsupported(f"strides ({sh}, {sw}) and dilations ({dh}, {dw}) must be >= 1")
    padding = op.options.get("padding", "VALID")
    if padding not in ("SAME", "VALID"):
        raise _Unsupported(f"padding {padding!r} is not supported")
    oh, ow, ph, pw = window_geometry((h, w), (kh, kw), (sh, sw), (dh, dw), padding)
    return oh, ow, sh, sw, dh, dw, ph, pw


def _filter_scales(w: Tensor, channels: int) -> Sequence[float]:
    q = w.quantization
    if q is None or not q.scale:
        raise _Unsupported(f"filter tensor {w.index} ({w.name!r}) has no quantisation")
    if any(z != 0 for z in q.zero_point):
        raise _Unsupported(f"filter tensor {w.index} ({w.name!r}) has a non-zero zero point; "
                           "TFLite requires 0 for int8 conv filters")
    if len(q.scale) not in (1, channels):
        raise _Unsupported(f"filter tensor {w.index} has {len(q.scale)} scales for {channels} channels")
    return list(q.scale) * (channels if len(q.scale) == 1 else 1)


def _bias(model: Model, op: Operator, channels: int) -> Optional[np.ndarray]:
    if len(op.inputs) < 3 or op.inputs[2] < 0:
        return None
    b = _tensor(model, _operand(op.inputs, 2), "bias", "int32", constant=True)
    if b.data.size != channels:
        raise _Unsupported(f"bias tensor {b.index} has {b.data.size} values for {channels} channels")
    return np.ascontiguousarray(b.data.reshape(-1), dtype=np.int32)


def _requant(mult: np.ndarray, shift: np.ndarray, per_channel: int, zp: int, lo: int, hi: int) -> dict:
    return {"requant.multiplier": [int(v) for v in mult], "requant.shift": [int(v) for v in shift],
            "requant.per_channel": per_channel, "requant.output_offset": zp,
            "requant.activation_min": lo, "requant.activation_max": hi}


def _windowed(model: Model, op: Operator, x, w, y, nhwc: List[int], kh: int, kw: int, oc: int,
              extra: dict) -> tuple:
    """What lowering CONV_2D and DEPTHWISE_CONV_2D share: output geometry, per-channel
    requantisation, and the kernel's fields (and ``extra``)."""
    n, h, wd, c = nhwc
    oh, ow, sh, sw, dh, dw, ph, pw = _spatial(op, h, wd, kh, kw)
    _expect_shape(model, y.index, (n, oh, ow, oc), "output")
    xs, xz = _per_tensor(x, "input")
    ys, yz = _per_tensor(y, "output")
    mult, shift = conv_multipliers(xs, _filter_scales(w, oc), ys)
    lo, hi = _activation(op, ys, yz)
    spec = {"batches": n, "input_h": h, "input_w": wd, "input_c": c, "output_h": oh, "output_w": ow,
            "output_c": oc, "filter_h": kh, "filter_w": kw, "stride_h": sh, "stride_w": sw,
            "dilation_h": dh, "dilation_w": dw, "pad_h": ph, "pad_w": pw, **extra, "input_offset": -xz,
            **_requant(mult, shift, 1, yz, lo, hi)}
    return spec, (x.index,), w.data, _bias(model, op, oc)


# --- one function per op type -----------------------------------------------------------
def _conv2d(model: Model, op: Operator) -> tuple:
    x = _tensor(model, _operand(op.inputs, 0), "input", constant=False)
    w = _tensor(model, _operand(op.inputs, 1), "filter", "int8", constant=True)
    y = _tensor(model, _operand(op.outputs, 0), "output")
    nhwc = _shape4(x.shape, "input")
    c = nhwc[3]
    if len(w.shape) != 4:
        raise _Unsupported(f"filter has shape {w.shape}; OHWI expected")
    oc, kh, kw, ic = w.shape
    if ic != c:
        raise _Unsupported(f"filter has {ic} input channels, the input has {c} (grouped convolution "
                           "is not supported)")
    return _windowed(model, op, x, w, y, nhwc, kh, kw, oc, {})


def _depthwise_conv2d(model: Model, op: Operator) -> tuple:
    x = _tensor(model, _operand(op.inputs, 0), "input", constant=False)
    w = _tensor(model, _operand(op.inputs, 1), "filter", "int8", constant=True)
    y = _tensor(model, _operand(op.outputs, 0), "output")
    nhwc = _shape4(x.shape, "input")
    c = nhwc[3]
    if len(w.shape) != 4 or w.shape[0] != 1:
        raise _Unsupported(f"filter has shape {w.shape}; 1HW(C*M) expected")
    _, kh, kw, oc = w.shape
    if oc % c:
        raise _Unsupported(f"filter has {oc} channels, not a multiple of the input's {c}")
    multiplier = oc // c
    return _windowed(model, op, x, w, y, nhwc, kh, kw, oc, {"depth_multiplier": multiplier})


def _fully_connected(model: Model, op: Operator, reference: str) -> tuple:
    x = _tensor(model, _operand(op.inputs, 0), "input", constant=False)
    w = _tensor(model, _operand(op.inputs, 1), "weights", "int8", constant=True)
    y = _tensor(model, _operand(op.outputs, 0), "output")
    if len(w.shape) != 2:
        raise _Unsupported(f"weights have shape {w.shape}; [units, depth] expected")
    if op.options.get("weights_format", 0) != 0:
        raise _Unsupported("shuffled weights formats are not supported")
    units, depth = w.shape
    total = int(np.prod(x.shape))
    if depth < 1 or total % depth:
        raise _Unsupported(f"input of {total} values is not a whole number of {depth}-deep rows")
    batches = total // depth
    if int(np.prod(y.shape)) != batches * units:
        raise _Unsupported(f"output shape {y.shape} does not hold {batches} x {units} values")
    xs, xz = _per_tensor(x, "input")
    ys, yz = _per_tensor(y, "output")
    q = w.quantization
    if q is None or not q.scale:
        raise _Unsupported(f"weights tensor {w.index} has no quantisation")
    per_channel = len(q.scale) > 1
    if per_channel and len(q.scale) != units:
        raise _Unsupported(f"weights have {len(q.scale)} scales for {units} units")
    w_zp = int(q.zero_point[0]) if q.zero_point else 0
    if per_channel and any(q.zero_point):
        raise _Unsupported("per-channel weights with non-zero zero points are not supported")
    if not -127 <= -w_zp <= 128:
        raise _Unsupported(f"weights zero point {w_zp} is out of range")
    scales = list(q.scale)
    mult, shift = conv_multipliers(xs, scales, ys)
    # LiteRT's reference kernel requantises through double scales; TFLM (as CMSIS-NN) in fixed
    # point with the multipliers above.
    real_scale = None if reference == "tflm" else \
        [float(np.float32(xs)) * float(np.float32(s)) / float(np.float32(ys)) for s in scales]
    lo, hi = _activation(op, ys, yz)
    spec = {"batches": batches, "input_depth": depth, "output_depth": units, "input_offset": -xz,
            "filter_offset": 0 if per_channel else -w_zp,
            **_requant(mult, shift, 1 if per_channel else 0, yz, lo, hi), "real_scale": real_scale,
            "reference": REFERENCES[reference]}
    return spec, (x.index,), w.data, _bias(model, op, units)


def _pool(model: Model, op: Operator, dtype: str = "int8") -> tuple:
    """AVERAGE_POOL_2D and MAX_POOL_2D of ``dtype`` values (int8, int16): input and output
    share one quantisation (TensorFlow Lite Micro's Prepare requires it; LiteRT's kernels do
    not rescale), any zero point (neither runtime's int16 kernels read it)."""
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    n, h, wd, c = _shape4(x.shape, "input")
    kh, kw = int(op.options.get("filter_height", 1)), int(op.options.get("filter_width", 1))
    options = dict(op.options, dilation_h_factor=1, dilation_w_factor=1)
    oh, ow, sh, sw, _, _, ph, pw = _spatial(Operator(op.index, op.type, op.inputs, op.outputs, options),
                                            h, wd, kh, kw)
    _expect_shape(model, y.index, (n, oh, ow, c), "output")
    xs, xz = _per_tensor(x, "input")
    ys, yz = _per_tensor(y, "output")
    if (xs, xz) != (ys, yz):
        raise _Unsupported(f"input ({xs}, {xz}) and output ({ys}, {yz}) quantisation differ; "
                           "TFLite requires them equal")
    if dtype == "int8":
        lo, hi = _activation(op, ys, yz)
    else:
        act = op.options.get("fused_activation_function", "NONE")
        try:
            lo, hi = activation_range(act, ys, yz, dtype)
        except ArenaplanError:
            raise _Unsupported(f"fused activation {act} is not supported "
                               "(NONE, RELU, RELU6, RELU_N1_TO_1 are)") from None
    return ({"batches": n, "input_h": h, "input_w": wd, "channels": c, "output_h": oh, "output_w": ow,
             "filter_h": kh, "filter_w": kw, "stride_h": sh, "stride_w": sw, "pad_h": ph, "pad_w": pw,
             "activation_min": lo, "activation_max": hi}, (x.index,), None, None)


def _broadcast_shapes(model: Model, op: Operator, dtype: str = "int8"
                      ) -> Tuple[Tensor, Tensor, Tensor, List[int], List[int], List[int]]:
    a = _tensor(model, _operand(op.inputs, 0), "first input", dtype)
    b = _tensor(model, _operand(op.inputs, 1), "second input", dtype)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    sa, sb, sy = _shape4(a.shape, "first input"), _shape4(b.shape, "second input"), _shape4(y.shape, "output")
    for d in range(4):
        if sy[d] != max(sa[d], sb[d]) or sa[d] not in (1, sy[d]) or sb[d] not in (1, sy[d]):
            raise _Unsupported(f"shapes {a.shape} and {b.shape} do not broadcast to {y.shape}")
    return a, b, y, sa, sb, sy


def _add(model: Model, op: Operator) -> tuple:
    """int8 ADD and SUB: TFLite's general path (left shift 20, each input rescaled below one by
    twice the larger input scale, then the output rescale); SUB subtracts the second."""
    a, b, y, sa, sb, sy = _broadcast_shapes(model, op)
    (s1, z1), (s2, z2), (so, zo) = _per_tensor(a, "first input"), _per_tensor(b, "second input"), _per_tensor(y, "output")
    left_shift = 20
    twice_max = 2.0 * float(max(np.float32(s1), np.float32(s2)))
    m1, e1 = quantize_multiplier(s1 / twice_max)
    m2, e2 = quantize_multiplier(s2 / twice_max)
    mo, eo = quantize_multiplier(twice_max / float(np.float32((1 << left_shift) * np.float32(so))))
    lo, hi = _activation(op, so, zo)
    spec = {"input1_shape": sa, "input2_shape": sb, "output_shape": sy, "input1_offset": -z1,
            "input2_offset": -z2, "output_offset": zo, "left_shift": left_shift, "input1_multiplier": m1,
            "input1_shift": e1, "input2_multiplier": m2, "input2_shift": e2, "output_multiplier": mo,
            "output_shift": eo, "activation_min": lo, "activation_max": hi}
    return spec, (a.index, b.index), None, None


def _product_multiplier(s1: float, s2: float, so: float, reference: str) -> Tuple[int, int]:
    """MUL's multiplier of input1_scale * input2_scale / output_scale: LiteRT's Prepare forms it
    from the float32 scales in float32 (a float product and quotient), TensorFlow Lite Micro's
    CalculateOpDataMul in double; they differ in the last bit for some scales (found by
    hypothesis on int16: 0.01777 * 0.00943 / 0.484, an output one apart)."""
    f1, f2, fo = np.float32(s1), np.float32(s2), np.float32(so)
    q = float(f1) * float(f2) / float(fo) if reference == "tflm" else float(f1 * f2 / fo)
    try:
        return quantize_multiplier(q)
    except ArenaplanError as exc:
        raise _Unsupported(f"the scales give no int32 multiplier ({exc})") from None


def _mul(model: Model, op: Operator, reference: str) -> tuple:
    """int8 MUL (reference_integer_ops::Mul), its multiplier by the rounding rule."""
    a, b, y, sa, sb, sy = _broadcast_shapes(model, op)
    (s1, z1), (s2, z2), (so, zo) = _per_tensor(a, "first input"), _per_tensor(b, "second input"), _per_tensor(y, "output")
    mo, eo = _product_multiplier(s1, s2, so, reference)
    lo, hi = _activation(op, so, zo)
    spec = {"input1_shape": sa, "input2_shape": sb, "output_shape": sy, "input1_offset": -z1,
            "input2_offset": -z2, "output_offset": zo, "output_multiplier": mo, "output_shift": eo,
            "activation_min": lo, "activation_max": hi}
    return spec, (a.index, b.index), None, None


def _softmax(model: Model, op: Operator) -> tuple:
    x = _tensor(model, _operand(op.inputs, 0), "input", constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    xs, _ = _per_tensor(x, "input")
    if y.dtype not in ("int8", "int16"):
        raise _Unsupported(f"output tensor {y.index} is {y.dtype}; an int8 softmax writes int8 or int16")
    ys, yz = _per_tensor(y, "output")
    levels, out_zp = (256, -128) if y.dtype == "int8" else (65536, -32768)
    if abs(ys - 1.0 / levels) > 0.001 / levels or yz != out_zp:  # TFLite's own tolerance
        raise _Unsupported(f"an int8 softmax's {y.dtype} output must have scale 1/{levels} and zero "
                           f"point {out_zp}, got {ys} and {yz}")
    if int(np.prod(y.shape)) != int(np.prod(x.shape)):
        raise _Unsupported(f"output shape {y.shape} differs from the input's {x.shape}")
    beta = float(op.options.get("beta", 1.0))
    depth = int(x.shape[-1]) if x.shape else 1
    outer = int(np.prod(x.shape[:-1])) if len(x.shape) > 1 else 1
    real = min(beta * xs * float(1 << 26), float((1 << 31) - 1))
    mult, left_shift = quantize_multiplier(real)
    diff_min = -int(math.floor(31.0 * (1 << 26) / (1 << left_shift)))
    return ({"outer_size": outer, "depth": depth, "input_beta_multiplier": mult,
             "input_beta_left_shift": left_shift, "diff_min": diff_min, "output_type": DTYPE_CODES[y.dtype]},
            (x.index,), None, None)


def _reshape(model: Model, op: Operator) -> tuple:
    x = _tensor(model, _operand(op.inputs, 0), "input", None, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    if x.nbytes != y.nbytes:
        raise _Unsupported(f"input has {x.nbytes} bytes, output {y.nbytes}")
    return {"bytes": x.nbytes}, (x.index,), None, None


def _read_variable(model: Model, op: Operator) -> tuple:
    """READ_VARIABLE (its handle resolved by the importer to the variable tensor): a copy of
    the state into an activation, with the RESHAPE row's copy; none where the output is the
    state itself (``Model.state_reads``: the executor sees the same place and moves nothing)."""
    v = _tensor(model, _operand(op.inputs, 0), "variable", None, constant=False, variable=True)
    y = _tensor(model, _operand(op.outputs, 0), "output", None, constant=False)
    if not v.is_variable:
        raise _Unsupported(f"tensor {v.index} ({v.name!r}) is not a variable tensor")
    if (y.dtype, tuple(y.shape)) != (v.dtype, tuple(v.shape)):
        raise _Unsupported(f"output tensor {y.index} is {y.dtype} {tuple(y.shape)}, the variable "
                           f"{v.name!r} {v.dtype} {tuple(v.shape)}")
    if v.nbytes < 1:
        raise _Unsupported(f"variable {v.name!r} has no bytes (shape {tuple(v.shape)})")
    return {"bytes": v.nbytes}, (v.index,), None, None


def _assign_variable(model: Model, op: Operator) -> tuple:
    """ASSIGN_VARIABLE (the importer made its output the variable tensor): a copy of the value
    into the state, with the RESHAPE row's copy; none where the value's op writes the state
    itself (``Model.state_writes``)."""
    x = _tensor(model, _operand(op.inputs, 0), "value", None)
    v = _tensor(model, _operand(op.outputs, 0), "variable", None, constant=False, variable=True)
    if not v.is_variable:
        raise _Unsupported(f"tensor {v.index} ({v.name!r}) is not a variable tensor")
    if (x.dtype, x.nbytes) != (v.dtype, v.nbytes) or v.nbytes < 1:
        raise _Unsupported(f"value tensor {x.index} is {x.dtype} {tuple(x.shape)}, the variable "
                           f"{v.name!r} {v.dtype} {tuple(v.shape)}")
    return {"bytes": v.nbytes}, (x.index,), None, None


#: Ops that run another subgraph: the importer inlines them (model.importers.control_flow);
#: one left in a Model was built by hand.
_CONTROL_FLOW = {"IF": ("then_subgraph_index", "else_subgraph_index"),
                 "WHILE": ("cond_subgraph_index", "body_subgraph_index")}
_JUMP_WHEN = {"always": 0, "if_false": 1}


def _copy(model: Model, op: Operator) -> tuple:
    """COPY of inlined control flow (a branch's result into the IF's output, a loop's value
    into its carried tensor): the RESHAPE row's copy, between tensors of one type and size."""
    x = _tensor(model, _operand(op.inputs, 0), "input", None)
    y = _tensor(model, _operand(op.outputs, 0), "output", None, constant=False)
    if (x.dtype, x.nbytes) != (y.dtype, y.nbytes) or y.nbytes < 1:
        raise _Unsupported(f"input tensor {x.index} is {x.dtype} {tuple(x.shape)}, output tensor {y.index} "
                           f"{y.dtype} {tuple(y.shape)}; a copy moves one type and size")
    return {"bytes": y.nbytes}, (x.index,), None, None


def _jump(model: Model, op: Operator, isa: str) -> OpKernel:
    """JUMP of inlined control flow: the executor continues at op ``target`` (always, or when
    its one input, a bool of one element, is false)."""
    when = op.options.get("when")
    target = op.options.get("target")
    n = len(model.operators)
    if when not in _JUMP_WHEN or isinstance(target, bool) or not isinstance(target, int) or not 0 <= target <= n:
        raise UnsupportedModel(f"op {op.index} (JUMP): when {when!r} and target {target!r}: a jump goes "
                               f"\"always\" or \"if_false\" to an op in [0, {n}]")
    arity = _JUMP_WHEN[when]
    if len(op.inputs) != arity or op.outputs:
        raise UnsupportedModel(f"op {op.index} (JUMP {when}): takes {arity} input(s) and no output, got "
                               f"{len(op.inputs)} and {len(op.outputs)}")
    if arity:
        c = _tensor(model, op.inputs[0], "condition", None)
        if c.dtype != "bool" or c.nbytes != 1:
            raise UnsupportedModel(f"op {op.index} (JUMP if_false): the condition tensor {c.index} is "
                                   f"{c.dtype} {tuple(c.shape)}; it must be a bool of one element")
    spec = {"target": target, "when": _JUMP_WHEN[when]}
    code = OP_CODES["JUMP"]
    try:
        found = _core.kernel_variants(code, spec, ISA_CODES[isa], TYPES_CODES["s8"])
    except ArenaplanError as exc:
        raise UnsupportedModel(f"op {op.index} (JUMP): {exc}") from None
    return OpKernel(op.index, op.type, code, spec, tuple(op.inputs), -1, variants_from_core(found),
                    isa=isa, types=TYPES_CODES["s8"])


#: QUANTIZE between integer types: the pairs each runtime's Prepare accepts: TensorFlow Lite
#: Micro requantises int8 to int32 too, LiteRT does not; both requantise int8 <-> uint8 (TFLite's
#: Requantize: the uint8 REQUANTIZE row, or the int8 row writing uint8).
_REQUANTIZE_PAIRS = {
    "litert": (("int8", "int8"), ("int8", "int16"), ("int16", "int8"), ("int16", "int16"), ("int16", "int32"),
               ("int32", "int8"), ("int32", "int16"), ("int8", "uint8"), ("uint8", "int8")),
    "tflm": (("int8", "int8"), ("int8", "int16"), ("int8", "int32"), ("int16", "int8"), ("int16", "int16"),
             ("int16", "int32"), ("int32", "int8"), ("int32", "int16"), ("int8", "uint8"), ("uint8", "int8")),
}


def _quantize(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """QUANTIZE float32 -> int8, or between integer types (REQUANTIZE: the pairs of
    _REQUANTIZE_PAIRS under ``reference``; int16 -> int16 needs zero points 0 under "litert",
    as LiteRT's Prepare requires, and takes any under "tflm", as TensorFlow Lite Micro does)."""
    x = _tensor(model, _operand(op.inputs, 0), "input", None, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    count = int(np.prod(y.shape))
    if int(np.prod(x.shape)) != count:
        raise _Unsupported(f"input shape {x.shape} and output shape {y.shape} differ in size")
    if x.dtype == "float32":
        if y.dtype != "int8":
            raise _Unsupported(f"QUANTIZE float32 -> {y.dtype} is not supported (float32 -> int8 and "
                               "float32 -> int16 are)")
        ys, yz = _per_tensor(y, "output")
        return {"count": count, "scale": ys, "zero_point": yz}, (x.index,), None, None
    pairs = _REQUANTIZE_PAIRS[reference]
    if (x.dtype, y.dtype) not in pairs:
        raise _Unsupported(f"QUANTIZE {x.dtype} -> {y.dtype} is not supported under reference {reference!r} "
                           "(float32 -> int8, float32 -> int16 and "
                           + ", ".join(f"{a} -> {b}" for a, b in pairs) + " are)")
    xs, xz = _per_tensor(x, "input")
    ys, yz = _per_tensor(y, "output")
    if x.dtype == y.dtype == "int16" and (xz or yz) and reference == "litert":
        raise _Unsupported(f"int16 -> int16 requantisation needs zero points 0 (LiteRT's check), "
                           f"got {xz} and {yz}")
    m, e = quantize_multiplier(xs / ys)
    return ({"count": count, "input_zero_point": xz, "output_zero_point": yz, "multiplier": m, "shift": e,
             "input_type": DTYPE_CODES[x.dtype], "output_type": DTYPE_CODES[y.dtype]}, (x.index,), None, None)


def _dequantize(model: Model, op: Operator, dtype: str = "int8") -> tuple:
    """DEQUANTIZE int8 (or ``dtype``: uint8, zero points in [0, 255]) to float32, TFLite's
    Dequantize (LiteRT's and TensorFlow Lite Micro's alike)."""
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", "float32")
    xs, xz = _per_tensor(x, "input")
    return {"count": int(np.prod(y.shape)), "scale": xs, "zero_point": xz}, (x.index,), None, None


def _concatenation(model: Model, op: Operator) -> tuple:
    y = _tensor(model, _operand(op.outputs, 0), "output")
    rank = len(y.shape)
    axis = int(op.options.get("axis", 0))
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        raise _Unsupported(f"axis {op.options.get('axis')} is out of range for rank {rank}")
    ys, yz = _per_tensor(y, "output")
    ins = [_tensor(model, t, f"input {i}") for i, t in enumerate(op.inputs)]
    if op.options.get("fused_activation_function", "NONE") != "NONE":
        raise _Unsupported("a fused activation on CONCATENATION is not supported")
    sizes, mults, shifts, zps = [], [], [], []
    for t in ins:
        if len(t.shape) != rank:
            raise _Unsupported(f"input tensor {t.index} has rank {len(t.shape)}, the output {rank}")
        sizes.append(int(t.shape[axis]))
        s, z = _per_tensor(t, "input")
        m, e = quantize_multiplier(s / ys)
        mults.append(m)
        shifts.append(e)
        zps.append(z)
    return ({"output_shape": _shape4(y.shape, "output"), "axis": axis + 4 - rank, "input_count": len(sizes),
             "input_axis_sizes": sizes, "input_multipliers": mults, "input_shifts": shifts,
             "input_zero_points": zps, "output_zero_point": yz},
            tuple(t.index for t in ins), None, None)


def _pad(model: Model, op: Operator) -> tuple:
    x = _tensor(model, _operand(op.inputs, 0), "input", constant=False)
    p = _tensor(model, _operand(op.inputs, 1), "paddings", None, constant=True)
    y = _tensor(model, _operand(op.outputs, 0), "output")
    pads = np.asarray(p.data, dtype=np.int64).reshape(-1, 2)
    if pads.shape[0] != len(x.shape) or (pads < 0).any():
        raise _Unsupported(f"paddings {pads.tolist()} do not fit an input of rank {len(x.shape)}")
    before = [0] * (4 - len(x.shape)) + [int(v) for v in pads[:, 0]]
    after = [0] * (4 - len(x.shape)) + [int(v) for v in pads[:, 1]]
    _, yz = _per_tensor(y, "output")
    value = yz
    if op.type == "PADV2" and len(op.inputs) > 2 and op.inputs[2] >= 0:
        value = int(_tensor(model, _operand(op.inputs, 2), "constant value", "int8", constant=True).data.reshape(-1)[0])
    return ({"input_shape": _shape4(x.shape, "input"), "pad_before": before, "pad_after": after,
             "pad_value": value}, (x.index,), None, None)


def _mean(model: Model, op: Operator, reference: str = "litert", dtype: str = "int8") -> tuple:
    """MEAN over H and W of ``dtype`` values (LiteRT's QuantizedMeanOrSum). On int16 LiteRT
    requires zero points 0; TensorFlow Lite Micro takes any (reference "tflm")."""
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype, constant=False)
    axes_t = _tensor(model, _operand(op.inputs, 1), "axes", "int32", constant=True)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    axes = sorted(int(a) % 4 for a in axes_t.data.reshape(-1))
    if len(x.shape) != 4 or axes != [1, 2]:
        raise _Unsupported(f"MEAN over axes {axes} of a rank-{len(x.shape)} tensor; only H, W of "
                           "4-D inputs is supported")
    if dtype == "int16" and reference == "litert":
        (xs, xz), (ys, yz) = (_int16_scale(x, "input"), 0), (_int16_scale(y, "output"), 0)
    else:
        (xs, xz), (ys, yz) = _per_tensor(x, "input"), _per_tensor(y, "output")
    m, e = quantize_multiplier(xs / ys)
    n, h, w, c = x.shape
    return ({"batches": n, "input_h": h, "input_w": w, "channels": c, "input_zero_point": xz,
             "output_zero_point": yz, "multiplier": m, "shift": e}, (x.index,), None, None)


def _svdf_shapes(model: Model, op: Operator, x: Tensor, wf: Tensor, wt: Tensor, state: Tensor,
                 y: Tensor) -> Tuple[int, int, int, int, int, int]:
    """SVDF's shape checks, TFLite's Prepare's, whatever the types: (batches, input_size,
    filters, memory, rank, units) of a 2-D input, feature and time weights, a variable state of
    [batches, filters * memory] and an output of [batches, filters / rank]."""
    if not state.is_variable:
        raise _Unsupported(f"state tensor {state.index} ({state.name!r}) is not a variable tensor; "
                           "TFLite keeps SVDF's state in one")
    for t, what in ((x, "input"), (wf, "weights_feature"), (wt, "weights_time"), (state, "state")):
        if len(t.shape) != 2:
            raise _Unsupported(f"{what} tensor {t.index} has shape {tuple(t.shape)}; 2-D expected")
    rank = op.options.get("rank", 0)
    if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)) or rank < 1:
        raise _Unsupported(f"rank {rank!r} must be a positive integer")
    batches, input_size = (int(d) for d in x.shape)
    filters, wf_depth = (int(d) for d in wf.shape)
    wt_filters, memory = (int(d) for d in wt.shape)
    if min(batches, input_size, filters, memory) < 1:
        raise _Unsupported(f"empty tensors: input {tuple(x.shape)}, weights_feature {tuple(wf.shape)}, "
                           f"weights_time {tuple(wt.shape)}")
    if filters % rank:
        raise _Unsupported(f"rank {rank} does not divide the {filters} filters")
    units = filters // int(rank)
    if wf_depth != input_size:
        raise _Unsupported(f"weights_feature has depth {wf_depth}, the input {input_size}")
    if wt_filters != filters:
        raise _Unsupported(f"weights_time has {wt_filters} filters, weights_feature {filters}")
    if tuple(int(d) for d in state.shape) != (batches, filters * memory):
        raise _Unsupported(f"state tensor {state.index} has shape {tuple(state.shape)}; TFLite requires "
                           f"[batches, memory * filters] = {(batches, filters * memory)}")
    _expect_shape(model, y.index, (batches, units), "output")
    return batches, input_size, filters, memory, int(rank), units


def _svdf(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """SVDF with TFLite's Prepare and Eval checks for the integer path (int8 input and
    output, int16 time weights and state). int8 time weights and state run under the rule
    "tflm" only (TensorFlow Lite Micro's EvalInt8SvdfReference; LiteRT's integer SVDF reads
    its time weights as int16): the state may have a zero point, and TFLite Micro's Prepare
    reads the bias's scale, so a bias is required and its scale must be the product of the
    state's and the time weights' (within 1e-5), as that Prepare checks."""
    if len(op.inputs) != 5:
        raise _Unsupported(f"SVDF takes 5 inputs (input, weights_feature, weights_time, bias, state), "
                           f"got {len(op.inputs)}")
    x = _tensor(model, _operand(op.inputs, 0), "input", "int8", constant=False)
    wf = _tensor(model, _operand(op.inputs, 1), "weights_feature", "int8", constant=True)
    wt_index = _operand(op.inputs, 2)
    int8_time = 0 <= wt_index < len(model.tensors) and model.tensors[wt_index].dtype == "int8"
    if int8_time and reference != "tflm":
        raise _Unsupported("int8 time weights: LiteRT's integer SVDF takes int16 time weights only; "
                           "TensorFlow Lite Micro's runs int8 ones (plan with reference='tflm')")
    wt = _tensor(model, wt_index, "weights_time", "int8" if int8_time else "int16", constant=True)
    state = _tensor(model, _operand(op.inputs, 4), "state", "int8" if int8_time else "int16", constant=False,
                    variable=True)
    y = _tensor(model, _operand(op.outputs, 0), "output", "int8")
    batches, input_size, filters, memory, rank, units = _svdf_shapes(model, op, x, wf, wt, state, y)
    inputs = [x.index, wf.index, wt.index]
    if op.inputs[3] >= 0:
        b = _tensor(model, _operand(op.inputs, 3), "bias", "int32", constant=True)
        if b.data.size != units:
            raise _Unsupported(f"bias tensor {b.index} has {b.data.size} values for {units} units")
        inputs.append(b.index)
    act = op.options.get("fused_activation_function", "NONE")
    if act != "RELU":
        raise _Unsupported(f"fused activation {act}: TFLite's integer SVDF runs only with RELU "
                           "(and applies no clamp for it)")
    xs, xz = _per_tensor(x, "input")
    ys, yz = _per_tensor(y, "output")
    wfs = _symmetric(wf, "weights_feature")
    wts = _symmetric(wt, "weights_time")
    if int8_time:
        ss, sz = _per_tensor(state, "state")
        if op.inputs[3] < 0:
            raise _Unsupported("no bias: TensorFlow Lite Micro's SVDF Prepare reads the bias's scale "
                               "and requires one")
        bs, _ = _per_tensor(model.tensors[op.inputs[3]], "bias")
        if abs(float(bs) - float(np.float32(ss) * np.float32(wts))) >= 1e-5:
            raise _Unsupported(f"bias scale {bs} is not the state scale times the time weights' "
                               f"({float(np.float32(ss) * np.float32(wts))}), as TensorFlow Lite Micro requires")
    else:
        ss, sz = _symmetric(state, "state"), 0
    # TFLite's Prepare multiplies and divides the float32 scales in float32, then widens to
    # double (a double product gives other multipliers: checked against LiteRT).
    f32 = np.float32
    m1, e1 = quantize_multiplier(float(f32(xs) * f32(wfs) / f32(ss)))
    m2, e2 = quantize_multiplier(float(f32(ss) * f32(wts) / f32(ys)))
    spec = {"batches": batches, "input_size": input_size, "filters": filters, "memory": memory,
            "rank": int(rank), "input_zero_point": xz, "output_zero_point": yz, "feature_multiplier": m1,
            "feature_shift": e1, "time_multiplier": m2, "time_shift": e2, "time_weights_int8": int(int8_time),
            "state_zero_point": sz}
    return spec, tuple(inputs), None, None, (state.index,)


def _lstm(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """The int8 "8x8_16" UNIDIRECTIONAL_SEQUENCE_LSTM (lstm_params.lstm_operands checks the
    form and derives the integers as the Prepare of ``reference`` does: LiteRT's, or TensorFlow
    Lite Micro's, whose kernel the params' reference field then selects). Its constants travel as one
    filter (the four input-to-gate matrices, then the four recurrent ones) and one bias array
    (the four gate biases), which the kernel's prepare regroups per cell."""
    act = op.options.get("fused_activation_function", "TANH")
    if act != "TANH":
        raise _Unsupported(f"fused activation {act}: the integer LSTM kernel runs TANH only")
    if op.options.get("diagonal_recurrent_tensors", False):
        raise _Unsupported("diagonal recurrent weights are not supported")
    try:
        ops = lstm_operands(model, op, reference)
    except ArenaplanError as exc:
        # lstm_operands names the op itself; lower_op names it too.
        message, prefix = str(exc), f"op {op.index} ({op.type})"
        if message.startswith(prefix):
            message = message[len(prefix):].lstrip(": ")
        raise _Unsupported(message) from None
    y = _tensor(model, _operand(op.outputs, 0), "output", "int8", constant=False)
    if len(model.tensors[op.inputs[0]].shape) == 2:     # one step, no time axis
        want = (ops.batches, ops.cell_size)
    elif ops.time_major:
        want = (ops.time_steps, ops.batches, ops.cell_size)
    else:
        want = (ops.batches, ops.time_steps, ops.cell_size)
    _expect_shape(model, y.index, want, "output")
    q = ops.params
    spec = {"batches": ops.batches, "time_steps": ops.time_steps, "input_size": ops.input_size,
            "cell_size": ops.cell_size, "time_major": int(ops.time_major), "input_offset": q.input_offset,
            "output_state_offset": q.output_state_offset, "hidden_zero_point": q.hidden_zero_point,
            "input_multiplier": list(q.input_multiplier), "input_shift": list(q.input_shift),
            "recurrent_multiplier": list(q.recurrent_multiplier), "recurrent_shift": list(q.recurrent_shift),
            "hidden_multiplier": q.hidden_multiplier, "hidden_shift": q.hidden_shift,
            "cell_scale_log2": q.cell_scale_log2, "cell_clip": q.cell_clip, "reference": q.reference}
    weights = np.concatenate([w.reshape(-1) for w in ops.input_weights + ops.recurrent_weights])
    bias = np.concatenate(ops.biases).astype(np.int32)
    return spec, (op.inputs[0],), weights, bias, (ops.output_state, ops.cell_state)


def _elementwise_operands(model: Model, op: Operator) -> tuple:
    """An element-wise op's activation input, element count and per-tensor (scale, zero point)
    of input and output; the input and output must hold as many elements."""
    x = _tensor(model, _operand(op.inputs, 0), "input", constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output")
    count = int(np.prod(y.shape))
    if int(np.prod(x.shape)) != count:
        raise _Unsupported(f"input shape {x.shape} and output shape {y.shape} differ in size")
    return x, count, _per_tensor(x, "input"), _per_tensor(y, "output")


def _relu_multiplier(xs: float, ys: float, reference: str) -> Tuple[int, int]:
    """RELU's multiplier of input_scale / output_scale: LiteRT's ReluPrepare divides the float32
    scales in float32, TensorFlow Lite Micro's CalculateReluOpData in double."""
    q = float(np.float32(xs)) / float(np.float32(ys)) if reference == "tflm" else \
        float(np.float32(xs) / np.float32(ys))
    try:
        return quantize_multiplier(q)
    except ArenaplanError as exc:
        raise _Unsupported(f"the scales give no int32 multiplier ({exc})") from None


def _relu(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """int8 RELU with TFLite's ReluPrepare (the multiplier of the quotient of the scales, see
    _relu_multiplier) and QuantizedReluX (the clamp to [max(-128, output zero point), 127])."""
    x, count, (xs, xz), (ys, yz) = _elementwise_operands(model, op)
    m, e = _relu_multiplier(xs, ys, reference)
    return ({"count": count, "input_zero_point": xz, "output_zero_point": yz, "output_multiplier": m,
             "output_shift": e, "activation_min": max(-128, yz), "activation_max": 127}, (x.index,), None, None)


def _leaky_relu(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """int8 LEAKY_RELU with TFLite's LeakyReluPrepare: the identity and alpha multipliers of
    the quotients input_scale / output_scale and input_scale * alpha / output_scale (see
    _leaky_relu_spec for how each reference computes them)."""
    x, count, (xs, xz), (ys, yz) = _elementwise_operands(model, op)
    return _leaky_relu_spec(op, x, count, xs, xz, ys, yz, reference)


def _leaky_relu_spec(op: Operator, x: Tensor, count: int, xs: float, xz: int, ys: float, yz: int,
                     reference: str) -> tuple:
    """LEAKY_RELU's params (int8 and int16 alike) from the checked operands. The multipliers'
    quotients differ by runtime: LiteRT's Prepare divides the float32 scales in float32,
    TensorFlow Lite Micro's (leaky_relu_common) in double, which moves some multipliers by a
    few units and outputs by one."""
    alpha = np.float32(op.options.get("alpha", 0.2))
    if not np.isfinite(alpha) or alpha < 0:
        raise _Unsupported(f"alpha {float(alpha)} is not supported (it must be finite and >= 0)")
    f32 = np.float32
    if reference == "tflm":
        identity = float(f32(xs)) / float(f32(ys))
        slope = float(f32(xs)) * float(alpha) / float(f32(ys))
    else:
        identity = float(f32(xs) / f32(ys))
        slope = float(f32(f32(xs) * alpha) / f32(ys))
    try:
        mi, ei = quantize_multiplier(identity)
        ma, ea = quantize_multiplier(slope)
    except ArenaplanError as exc:
        raise _Unsupported(f"the scales give no int32 multiplier ({exc})") from None
    return ({"count": count, "input_zero_point": xz, "output_zero_point": yz, "identity_multiplier": mi,
             "identity_shift": ei, "alpha_multiplier": ma, "alpha_shift": ea}, (x.index,), None, None)


#: The output quantisation TFLite's int8 LOGISTIC and TANH write: LiteRT requires LOGISTIC's
#: scale (its table takes any zero point, and TANH's any quantisation); TensorFlow Lite Micro's
#: fixed-point kernels write exactly these (it checks only LOGISTIC's zero point).
_SIGMOID_OUTPUT = {"LOGISTIC": (1.0 / 256, -128), "TANH": (1.0 / 128, 0)}


def _float32_table(op_type: str, xs: float, xz: int, ys: float, yz: int) -> List[int]:
    """LiteRT's PopulateLookupTable for int8 LOGISTIC (1 / (1 + exp(-x))) and TANH: every step
    in float32 as its Prepare computes it, the exp and tanh by this host's C library (the
    functions LiteRT calls; float32_math)."""
    f32 = np.float32
    v = np.arange(-128, 128)
    with np.errstate(over="ignore"):
        x = (f32(xs) * (v - xz).astype(f32)).astype(f32)
        if op_type == "LOGISTIC":
            y = (f32(1) / (f32(1) + float32_math.expf(-x))).astype(f32)
        else:
            y = float32_math.tanhf(x)
        scaled = (y * (f32(1) / f32(ys))).astype(f32).astype(np.float64)
    rounded = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)   # std::round: half away from zero
    return [int(q) for q in np.clip(rounded + yz, -128, 127)]


def _logistic(model: Model, op: Operator, reference: str) -> tuple:
    """int8 LOGISTIC and TANH by the rounding rule: LiteRT's float32 table, computed here and
    carried in the params ("litert"), or TensorFlow Lite Micro's fixed-point kernel's input
    multiplier, shift and radius ("tflm"; ap_logistic_params)."""
    x, count, (xs, xz), (ys, yz) = _elementwise_operands(model, op)
    want_scale, want_zp = _SIGMOID_OUTPUT[op.type]
    spec = {"count": count, "reference": REFERENCES[reference], "input_zero_point": xz, "input_range_radius": 0,
            "input_multiplier": 0, "input_left_shift": 0, "table_size": 0, "table": None}
    if reference == "litert":
        if op.type == "LOGISTIC" and ys != want_scale:
            raise _Unsupported(f"output scale {ys} is not 1/256, which LiteRT's int8 LOGISTIC requires")
        if float(np.float32(1) / np.float32(ys)) >= 2.0 ** 31 - 256:
            raise _Unsupported(f"output scale {ys} is too small: LiteRT's table of the outputs overflows int32")
        return dict(spec, table_size=256, table=_float32_table(op.type, xs, xz, ys, yz)), (x.index,), None, None
    if (ys, yz) != (want_scale, want_zp):
        raise _Unsupported(f"output quantisation ({ys}, {yz}): TensorFlow Lite Micro's int8 {op.type} writes "
                           f"scale 1/{round(1 / want_scale)} and zero point {want_zp} and no other")
    # TFLM's Prepare: frexp(input_scale * 2^27), the mantissa times 2^31 (exact: a float32 scale
    # has 24 bits) and floor(15 * 2^27 / 2^shift); beyond a shift of 31 the radius is 0 and every
    # input saturates without the multiplier.
    mantissa, shift = math.frexp(xs * 2.0 ** 27)
    if shift < 0:
        raise _Unsupported(f"input scale {xs} is below 2^-28: TensorFlow Lite Micro's input radius overflows int32")
    return (dict(spec, input_multiplier=int(mantissa * 2.0 ** 31), input_left_shift=min(shift, 31),
                 input_range_radius=(15 << 27) >> shift), (x.index,), None, None)


def _int16_multiplier(m: int) -> int:
    """TFLite's DownScaleInt32ToInt16Multiplier: a Q31 multiplier (>= 0) rounded to Q15."""
    return 32767 if m >= 2 ** 31 - 1 - (1 << 15) else (m + (1 << 15)) >> 16


def _hard_swish(model: Model, op: Operator) -> tuple:
    """int8 HARD_SWISH with HardSwishPrepare (LiteRT's and TFLite Micro's alike): the output
    and "reluish" multipliers of the float32 quotients hires / output_scale and hires /
    (3 / 32768), hires = input_scale / 128, rounded to 16 bits; the output exponent must be
    <= 0, as both runtimes require."""
    x, count, (xs, xz), (ys, yz) = _elementwise_operands(model, op)
    f32 = np.float32
    hires = f32(f32(1.0 / 128.0) * f32(xs))
    try:
        mo, eo = quantize_multiplier(float(f32(hires / f32(ys))))
        mr, er = quantize_multiplier(float(f32(hires / (f32(3.0) / f32(32768.0)))))
    except ArenaplanError as exc:
        raise _Unsupported(f"the scales give no int32 multiplier ({exc})") from None
    if eo > 0:
        raise _Unsupported(f"input scale {xs} / 128 is not below the output scale {ys} (its multiplier's "
                           f"exponent {eo} > 0), which TFLite's HARD_SWISH requires")
    return ({"count": count, "input_zero_point": xz, "output_zero_point": yz,
             "output_multiplier": _int16_multiplier(mo), "output_shift": eo,
             "reluish_multiplier": _int16_multiplier(mr), "reluish_shift": er}, (x.index,), None, None)


#: STRIDED_SLICE's axes (TFLite's reference kernel pads every slice to five).
_SLICE_AXES = 5


def _slice_vector(model: Model, op: Operator, position: int, what: str, rank: int) -> List[int]:
    t = _tensor(model, _operand(op.inputs, position), what, "int32", constant=True)
    values = [int(v) for v in np.asarray(t.data).reshape(-1)]
    if len(values) != rank:
        raise _Unsupported(f"{what} tensor {t.index} has {len(values)} values for an input of rank {rank}")
    return values


def _slice_dims(x: Tensor) -> List[int]:
    """The dimensions of a slicing op's input (STRIDED_SLICE, TRANSPOSE, SPLIT): rank 1 to
    _SLICE_AXES, none empty."""
    rank = len(x.shape)
    if not 1 <= rank <= _SLICE_AXES:
        raise _Unsupported(f"input has rank {rank}; 1 to {_SLICE_AXES} are supported")
    if any(int(d) < 1 for d in x.shape):
        raise _Unsupported(f"input has shape {tuple(x.shape)}: every dimension must be at least 1")
    return [int(d) for d in x.shape]


def _slice_params(x: Tensor, begin: Sequence[int], stride: Sequence[int], counts: Sequence[int]) -> dict:
    """The slice kernel's params, padded in front to _SLICE_AXES axes."""
    pad = _SLICE_AXES - len(x.shape)
    return {"input_shape": [1] * pad + [int(d) for d in x.shape], "begin": [0] * pad + list(begin),
            "stride": [1] * pad + list(stride), "output_shape": [1] * pad + list(counts)}


def _strided_slice(model: Model, op: Operator, dtype: str = "int8") -> tuple:
    """STRIDED_SLICE of ``dtype`` values with TFLite's StartForAxis / StopForAxis
    (strided_slice_logic.h): the begin and end masks, negative indices, clamping and
    shrink_axis_mask resolved into a first index and a count per axis. The ellipsis and
    new-axis masks, which TFLite Micro's kernel does not read, and offset are refused."""
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    rank = len(_slice_dims(x))
    opts = op.options
    for name in ("ellipsis_mask", "new_axis_mask"):
        if int(opts.get(name, 0) or 0):
            raise _Unsupported(f"{name} {opts[name]} is not supported (TFLite Micro's kernel runs the "
                               "begin, end and shrink-axis masks only)")
    if opts.get("offset", False):
        raise _Unsupported("offset (end taken relative to begin) is not supported")
    begin = _slice_vector(model, op, 1, "begin", rank)
    end = _slice_vector(model, op, 2, "end", rank)
    strides = _slice_vector(model, op, 3, "strides", rank) if len(op.inputs) > 3 and op.inputs[3] >= 0 \
        else [1] * rank
    begin_mask, end_mask = int(opts.get("begin_mask", 0) or 0), int(opts.get("end_mask", 0) or 0)
    shrink_mask = int(opts.get("shrink_axis_mask", 0) or 0)
    big = 2 ** 31 - 1
    firsts, counts, kept = [], [], []
    for a in range(rank):
        size, stride = int(x.shape[a]), strides[a]
        if stride == 0:
            raise _Unsupported(f"stride 0 on axis {a}")
        start = begin[a]
        if begin_mask & (1 << a):
            start = -big - 1 if stride > 0 else big
        if start < 0:
            start += size
        start = min(max(start, 0), size) if stride > 0 else min(max(start, -1), size - 1)
        if shrink_mask & (1 << a):
            if stride < 0:
                raise _Unsupported(f"shrink_axis_mask on axis {a} with stride {stride}: TFLite's reference "
                                   "kernel walks from begin to begin + 1 and reads nothing (its output is "
                                   "undefined); a shrunk axis needs a positive stride")
            stop = start + 1
        else:
            stop = end[a]
            if end_mask & (1 << a):
                stop = big if stride > 0 else -big - 1
            if stop < 0:
                stop += size
            stop = min(max(stop, 0), size) if stride > 0 else min(max(stop, -1), size - 1)
        count = max(0, -(-(stop - start) // stride))
        if count < 1:
            raise _Unsupported(f"axis {a} selects no elements (begin {begin[a]}, end {end[a]}, stride "
                               f"{stride}); empty outputs are not supported")
        firsts.append(start)
        counts.append(count)
        if not shrink_mask & (1 << a):
            kept.append(count)
    _expect_shape(model, y.index, kept, "output")
    return _slice_params(x, firsts, strides, counts), (x.index,), None, None


def _transpose(model: Model, op: Operator, dtype: str = "int8") -> tuple:
    """TRANSPOSE of ``dtype`` values with TFLite's Prepare checks: perm a constant permutation
    of the input's axes (each in [0, rank)), the output's shape the input's permuted; padded
    to five axes."""
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    rank = len(_slice_dims(x))
    perm = _slice_vector(model, op, 1, "perm", rank)
    if sorted(perm) != list(range(rank)):
        raise _Unsupported(f"perm {perm} is not a permutation of the {rank} axes (each in [0, {rank}))")
    _expect_shape(model, y.index, [int(x.shape[a]) for a in perm], "output")
    pad = _SLICE_AXES - rank
    return ({"input_shape": [1] * pad + [int(d) for d in x.shape],
             "perm": list(range(pad)) + [a + pad for a in perm]}, (x.index,), None, None)


def _split(model: Model, op: Operator, dtype: str = "int8") -> tuple:
    """One output of SPLIT or SPLIT_V of ``dtype`` values (the importer holds a split of N outputs as N ops,
    ``model.one_output_ops``) as the STRIDED_SLICE copy of its piece: TFLite's Prepare checks
    (a constant axis in [-rank, rank); num_splits the number of outputs; SPLIT's num_splits
    dividing the axis; SPLIT_V's size_splits one per output, at most one -1, inferred from the
    rest, summing to the axis), the piece's first index the sizes before it. Outputs copy the
    input's bytes (TFLite's kernels do not requantise)."""
    parts, part = int(op.options.get("output_parts", 1)), int(op.options.get("output_part", 0))
    data_at, axis_at = (1, 0) if op.type == "SPLIT" else (0, 2)
    x = _tensor(model, _operand(op.inputs, data_at), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    rank = len(_slice_dims(x))
    a = _tensor(model, _operand(op.inputs, axis_at), "axis", "int32", constant=True)
    if a.data.size != 1:
        raise _Unsupported(f"axis tensor {a.index} holds {a.data.size} values; one is expected")
    axis = int(a.data.reshape(-1)[0])
    if not -rank <= axis < rank:
        raise _Unsupported(f"axis {axis} is out of range for an input of rank {rank} (it must lie in "
                           f"[{-rank}, {rank}))")
    axis += rank if axis < 0 else 0
    dim = int(x.shape[axis])
    num_splits = int(op.options.get("num_splits", 0) or 0)
    if num_splits != parts:
        raise _Unsupported(f"num_splits {num_splits} differs from the op's {parts} outputs")
    if op.type == "SPLIT":
        if dim % parts:
            raise _Unsupported(f"num_splits {parts} does not divide axis {axis} of size {dim}")
        sizes = [dim // parts] * parts
    else:
        st = _tensor(model, _operand(op.inputs, 1), "size_splits", None, constant=True)
        if st.dtype not in ("int32", "int64"):
            raise _Unsupported(f"size_splits tensor {st.index} is {st.dtype}; int32 or int64 is expected")
        sizes = [int(v) for v in np.asarray(st.data).reshape(-1)]
        if len(sizes) != parts:
            raise _Unsupported(f"size_splits {sizes} has {len(sizes)} values for {parts} outputs")
        if sizes.count(-1) > 1:
            raise _Unsupported(f"size_splits {sizes} has more than one -1")
        if any(v < -1 for v in sizes):
            raise _Unsupported(f"size_splits {sizes} has a negative size other than -1")
        rest = sum(v for v in sizes if v != -1)
        if -1 in sizes:
            if rest > dim:
                raise _Unsupported(f"size_splits {sizes} take {rest} of axis {axis}'s {dim}, leaving less than "
                                   "nothing for the -1")
            sizes[sizes.index(-1)] = dim - rest
        elif rest != dim:
            raise _Unsupported(f"size_splits {sizes} sum to {rest}, not to axis {axis}'s size {dim}")
    if sizes[part] < 1:
        raise _Unsupported(f"output {part} takes {sizes[part]} of axis {axis}; empty outputs are not supported")
    want = [int(d) for d in x.shape]
    want[axis] = sizes[part]
    _expect_shape(model, y.index, want, "output")
    begin = [0] * rank
    begin[axis] = sum(sizes[:part])
    return _slice_params(x, begin, [1] * rank, want), (x.index,), None, None


def _truncating_div(a: int, b: int) -> int:
    """C's integer division (toward zero) of a by b > 0."""
    q = abs(a) // b
    return q if a >= 0 else -q


def _transpose_conv_axis(stride: int, size: int, k: int, padding: str) -> Tuple[int, int]:
    """TFLite's ComputePaddingHeightWidth for TRANSPOSE_CONV on one axis: the windowed output
    size of the op's *output* size (dilation 1; LiteRT's Prepare requires it to be the input's
    size) and the padding: half the total that implies (at least 0)."""
    out = (size + stride - 1) // stride if padding == "SAME" else _truncating_div(size + stride - k, stride)
    return out, max((out - 1) * stride + k - size, 0) // 2


def _transpose_conv_operands(model: Model, op: Operator, dtype: str, weights_dtype: str = "int8") -> tuple:
    """What the int8 and 16x8 TRANSPOSE_CONV share, with TFLite's Prepare and Eval checks:
    inputs output_shape (a constant int32 vector of 4, equal to the output tensor's shape),
    weights (OHWI int8 constant), the data input (rank 4, ``dtype``), the optional bias; the
    strides, padding and output geometry."""
    if len(op.inputs) not in (3, 4):
        raise _Unsupported(f"{len(op.inputs)} inputs; TFLite takes output_shape, weights, input and an "
                           "optional bias")
    shape_t = _operand(op.inputs, 0)
    if shape_t < 0:
        raise _Unsupported("the output_shape operand is missing")
    s = model.tensors[shape_t]
    if not s.is_constant:
        raise _Unsupported(f"output_shape tensor {shape_t} ({s.name!r}) is not a constant; arenaplan plans "
                           "static shapes only")
    if s.dtype != "int32":
        raise _Unsupported(f"output_shape tensor {shape_t} ({s.name!r}) is {s.dtype}; TFLite requires int32")
    out_shape = [int(v) for v in np.asarray(s.data).reshape(-1)]
    if len(s.shape) != 1 or len(out_shape) != 4:
        raise _Unsupported(f"output_shape tensor {shape_t} holds {out_shape} (shape {tuple(s.shape)}); "
                           "a vector of 4 (NHWC) is required")
    w = _tensor(model, _operand(op.inputs, 1), "weights", weights_dtype, constant=True)
    x = _tensor(model, _operand(op.inputs, 2), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    if len(x.shape) != 4 or any(int(d) < 1 for d in x.shape):
        raise _Unsupported(f"input has shape {tuple(x.shape)}; TFLite requires rank 4 with every dimension >= 1")
    if len(w.shape) != 4 or any(int(d) < 1 for d in w.shape):
        raise _Unsupported(f"weights have shape {tuple(w.shape)}; OHWI (rank 4) expected")
    n, h, wd, c = (int(d) for d in x.shape)
    oc, kh, kw, ic = (int(d) for d in w.shape)
    if ic != c:
        raise _Unsupported(f"weights have {ic} input channels, the input has {c}")
    sh, sw = int(op.options.get("stride_h", 1)), int(op.options.get("stride_w", 1))
    if min(sh, sw) < 1:
        raise _Unsupported(f"strides ({sh}, {sw}) must be >= 1")
    padding = op.options.get("padding", "SAME")
    if padding not in ("SAME", "VALID"):
        raise _Unsupported(f"padding {padding!r} is not supported (SAME, VALID are)")
    if tuple(out_shape) != tuple(int(d) for d in y.shape):
        raise _Unsupported(f"output_shape {out_shape} differs from the output tensor's shape {tuple(y.shape)}")
    if min(out_shape) < 1:
        raise _Unsupported(f"output_shape {out_shape}: every dimension must be at least 1")
    if out_shape[0] != n:
        raise _Unsupported(f"output_shape {out_shape} has batch {out_shape[0]}, the input has {n}")
    if out_shape[3] != oc:
        raise _Unsupported(f"output_shape {out_shape} has {out_shape[3]} channels, the weights have {oc}")
    oh, ow = out_shape[1], out_shape[2]
    pads = []
    for axis, size, k, stride, have in (("height", oh, kh, sh, h), ("width", ow, kw, sw, wd)):
        computed, pad = _transpose_conv_axis(stride, size, k, padding)
        if computed != have:
            raise _Unsupported(f"output {axis} {size} does not fit input {axis} {have}: a {padding} window of "
                               f"{k} at stride {stride} over {size} gives {computed} (TFLite requires {have})")
        pads.append(pad)
    geometry = {"batches": n, "input_h": h, "input_w": wd, "input_c": c, "output_h": oh, "output_w": ow,
                "output_c": oc, "filter_h": kh, "filter_w": kw, "stride_h": sh, "stride_w": sw,
                "pad_h": pads[0], "pad_w": pads[1]}
    return x, w, y, geometry


def _transpose_conv(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """int8 TRANSPOSE_CONV (TFLite's reference_integer_ops::TransposeConv): per-channel int8
    weights, an optional int32 bias, the conv's requantisation and fused activation (LiteRT and
    TensorFlow Lite Micro alike)."""
    x, w, y, geometry = _transpose_conv_operands(model, op, "int8")
    oc = geometry["output_c"]
    xs, xz = _per_tensor(x, "input")
    ys, yz = _per_tensor(y, "output")
    mult, shift = conv_multipliers(xs, _filter_scales(w, oc), ys)
    lo, hi = _activation(op, ys, yz)
    bias = None
    if len(op.inputs) > 3 and op.inputs[3] >= 0:
        b = _tensor(model, op.inputs[3], "bias", "int32", constant=True)
        if b.data.size != oc:
            raise _Unsupported(f"bias tensor {b.index} has {b.data.size} values for {oc} channels")
        if b.quantization is not None and any(b.quantization.zero_point or ()):
            raise _Unsupported(f"bias tensor {b.index} has a non-zero zero point; TFLite requires 0")
        bias = np.ascontiguousarray(b.data.reshape(-1), dtype=np.int32)
    spec = {**geometry, "input_offset": -xz, **_requant(mult, shift, 1, yz, lo, hi), "accumulator_bits": 32}
    return spec, (x.index,), w.data, bias


# --- int8 ops that run on another op's row (issue 27) -----------------------------------------
#: The real bounds of TFLite's QuantizedReluX for the RELU row's other ops.
_RELU_BOUNDS = {"RELU6": (0.0, 6.0), "RELU_N1_TO_1": (-1.0, 1.0)}


def _quantised_bound(bound: float, scale: float, zp: int) -> int:
    """zp + roundf(bound / scale) in float32 (half away from zero), clamped to int8, as
    QuantizedReluX (LiteRT) and FloatToQuantizedType (TensorFlow Lite Micro) compute it."""
    q = float(np.float32(bound) / np.float32(scale))
    if abs(q) >= 2.0 ** 31 - 256:
        raise _Unsupported(f"scale {scale} is too small: {bound} / scale overflows int32 in TFLite's bound")
    rounded = int(math.copysign(math.floor(abs(q) + 0.5), q))
    return min(max(zp + rounded, -128), 127)


def _relu_x(model: Model, op: Operator, reference: str) -> tuple:
    """int8 RELU6 and RELU_N1_TO_1 on the RELU row. LiteRT (ReluPrepare and QuantizedReluX):
    the requantisation of RELU, clamped to the output's quantised bounds. TensorFlow Lite
    Micro's RELU6 (Relu6Quantized) clamps the input's values to [input zero point, the input's
    quantised 6] and writes them unchanged, whatever the output's quantisation: under "tflm"
    the requantisation is the identity and the bounds are the input's; TFLite Micro has no
    RELU_N1_TO_1."""
    x, count, (xs, xz), (ys, yz) = _elementwise_operands(model, op)
    low, high = _RELU_BOUNDS[op.type]
    if reference == "tflm":
        if op.type != "RELU6":
            raise _Unsupported("TensorFlow Lite Micro has no RELU_N1_TO_1 kernel (choose reference \"litert\")")
        ys, yz, (m, e) = xs, xz, (1 << 30, 1)
    else:
        try:
            m, e = quantize_multiplier(float(np.float32(xs) / np.float32(ys)))
        except ArenaplanError as exc:
            raise _Unsupported(f"the scales give no int32 multiplier ({exc})") from None
    return ({"count": count, "input_zero_point": xz, "output_zero_point": yz, "output_multiplier": m,
             "output_shift": e, "activation_min": _quantised_bound(low, ys, yz),
             "activation_max": _quantised_bound(high, ys, yz)}, (x.index,), None, None)


def _index_vector(model: Model, op: Operator, position: int, what: str, rank: int) -> List[int]:
    """A constant int32 or int64 vector of ``rank`` values (SLICE's begin and size)."""
    t = _tensor(model, _operand(op.inputs, position), what, None, constant=True)
    if t.dtype not in ("int32", "int64"):
        raise _Unsupported(f"{what} tensor {t.index} is {t.dtype}; int32 or int64 is expected")
    values = [int(v) for v in np.asarray(t.data).reshape(-1)]
    if len(t.shape) != 1 or len(values) != rank:
        raise _Unsupported(f"{what} tensor {t.index} holds {values}; a vector of {rank} values (the input's "
                           "rank) is expected")
    return values


def _slice(model: Model, op: Operator, dtype: str = "int8") -> tuple:
    """SLICE of ``dtype`` values (TFLite's reference Slice) as the STRIDED_SLICE copy, with its
    Prepare checks: begin and size constant int32 or int64 vectors of the input's rank, begin in
    [0, size of the axis], size -1 (the rest of the axis) or begin + size within the axis. The
    bytes are copied (TFLite's kernel does not requantise)."""
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    shape = _slice_dims(x)
    rank = len(shape)
    begin = _index_vector(model, op, 1, "begin", rank)
    size = _index_vector(model, op, 2, "size", rank)
    counts = []
    for a, (dim, b, s) in enumerate(zip(shape, begin, size)):
        if not 0 <= b <= dim:
            raise _Unsupported(f"begin {b} on axis {a} lies outside [0, {dim}]")
        if s == -1:
            s = dim - b
        elif s < 0:
            raise _Unsupported(f"size {s} on axis {a}: the only negative size is -1 (the rest of the axis)")
        elif b + s > dim:
            raise _Unsupported(f"begin {b} and size {s} on axis {a} run past its {dim} elements")
        if s < 1:
            raise _Unsupported(f"axis {a} selects no elements; empty outputs are not supported")
        counts.append(s)
    _expect_shape(model, y.index, counts, "output")
    return _slice_params(x, begin, [1] * rank, counts), (x.index,), None, None


def _same_quantisation(t: Tensor, what: str, like: Tensor, like_what: str, op_type: str) -> None:
    """UnsupportedModel unless ``t`` is quantised as ``like`` (TFLite compares the float32 scales)."""
    (s, z), (ls, lz) = _per_tensor(t, what), _per_tensor(like, like_what)
    if (s, z) != (ls, lz):
        raise _Unsupported(f"{what} tensor {t.index} has scale {np.float32(s)!s} and zero point {z}, the {like_what} "
                           f"{np.float32(ls)!s} and {lz}; TFLite's int8 {op_type} requires them equal (it copies, "
                           "never requantises)")


def _pack(model: Model, op: Operator, dtype: str = "int8") -> tuple:
    """PACK of ``dtype`` values as the CONCATENATION (a copy) of its inputs along the new axis,
    each one element thick there, with TFLite's Prepare checks: values_count inputs of one
    shape, axis in [-(rank + 1), rank], and (int8, int16) every input quantised as the output."""
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    n = int(op.options.get("values_count", 0) or 0)
    if n != len(op.inputs) or n < 1:
        raise _Unsupported(f"values_count {n} differs from the op's {len(op.inputs)} inputs")
    ins = [_tensor(model, t, f"input {i}", dtype) for i, t in enumerate(op.inputs)]
    shape = tuple(int(d) for d in ins[0].shape)
    for t in ins[1:]:
        if tuple(t.shape) != shape:
            raise _Unsupported(f"input tensor {t.index} has shape {tuple(t.shape)}, input tensor {ins[0].index} "
                               f"{shape}; TFLite packs inputs of one shape")
    rank = len(shape)
    axis = int(op.options.get("axis", 0) or 0)
    if not -(rank + 1) <= axis <= rank:
        raise _Unsupported(f"axis {axis} is out of range for inputs of rank {rank} (it must lie in "
                           f"[{-(rank + 1)}, {rank}])")
    axis += rank + 1 if axis < 0 else 0
    want = list(shape[:axis]) + [n] + list(shape[axis:])
    _expect_shape(model, y.index, want, "output")
    params = {"output_shape": _shape4(want, "output"), "axis": axis + 4 - len(want), "input_count": n,
              "input_axis_sizes": [1] * n}
    if dtype in ("float32", "int64"):   # the float32 CONCATENATION row's params (int64's copy takes them)
        return params, tuple(t.index for t in ins), None, None
    yz = 0
    if dtype in ("int8", "int16"):
        for i, t in enumerate(ins):
            _same_quantisation(t, f"input {i}", y, "output", "PACK")
        _, yz = _per_tensor(y, "output")
        if dtype == "int16" and yz != 0:
            raise _Unsupported(f"output tensor {y.index} has zero point {yz}; TFLite's int16 kernels take 0")
    return ({**params, "input_multipliers": None, "input_shifts": None, "input_zero_points": None,
             "output_zero_point": yz}, tuple(t.index for t in ins), None, None)


def _unpack(model: Model, op: Operator, dtype: str = "int8") -> tuple:
    """One output of UNPACK of ``dtype`` values (the importer holds an UNPACK of N outputs as N
    ops, ``model.one_output_ops``) as the STRIDED_SLICE copy of its slice, the axis dropped, with
    TFLite's Prepare checks: axis in [-rank, rank), num the number of outputs and the axis'
    size, (int8, int16) every output quantised as the input."""
    parts, part = int(op.options.get("output_parts", 1)), int(op.options.get("output_part", 0))
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    shape = _slice_dims(x)
    rank = len(shape)
    axis = int(op.options.get("axis", 0) or 0)
    if not -rank <= axis < rank:
        raise _Unsupported(f"axis {axis} is out of range for an input of rank {rank} (it must lie in "
                           f"[{-rank}, {rank}))")
    axis += rank if axis < 0 else 0
    num = int(op.options.get("num", 0) or 0)
    if num != parts:
        raise _Unsupported(f"num {num} differs from the op's {parts} outputs")
    if shape[axis] != num:
        raise _Unsupported(f"axis {axis} has size {shape[axis]}, not num {num}")
    if dtype in ("int8", "int16"):
        _same_quantisation(y, "output", x, "input", "UNPACK")
    _expect_shape(model, y.index, shape[:axis] + shape[axis + 1:], "output")
    begin, counts = [0] * rank, list(shape)
    begin[axis], counts[axis] = part, 1
    return _slice_params(x, begin, [1] * rank, counts), (x.index,), None, None


def _depth_space(model: Model, op: Operator, dtype: str = "int8") -> tuple:
    """DEPTH_TO_SPACE and SPACE_TO_DEPTH of int8 or float32 (TFLite's reference kernels, LiteRT's and TFLite
    Micro's alike) as one TRANSPOSE, with their Prepare checks (a rank-4 NHWC input, block_size
    >= 1 dividing the depth by its square, or the height and width). With b the block, DEPTH_TO_
    SPACE's output element (n, h*b + i, w*b + j, c) is the input's (n, h, w, (i*b + j)*C' + c):
    the input read as [N*H, W, b, b, C'] with its second and third axes swapped. SPACE_TO_DEPTH
    is the same swap of the input read as [N*H', b, W', b, C]. The bytes are copied (the kernels
    do not requantise)."""
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    if len(x.shape) != 4 or any(int(d) < 1 for d in x.shape):
        raise _Unsupported(f"input has shape {tuple(x.shape)}; TFLite requires rank 4 (NHWC) with every "
                           "dimension >= 1")
    n, h, w, c = (int(d) for d in x.shape)
    b = int(op.options.get("block_size", 0) or 0)
    if b < 1:
        raise _Unsupported(f"block_size {b} must be >= 1")
    if op.type == "DEPTH_TO_SPACE":
        if c % (b * b):
            raise _Unsupported(f"block_size {b}: the depth {c} is not a multiple of {b * b}")
        want, view = (n, h * b, w * b, c // (b * b)), [n * h, w, b, b, c // (b * b)]
    else:
        if h % b or w % b:
            raise _Unsupported(f"block_size {b} does not divide the height {h} and width {w}")
        want, view = (n, h // b, w // b, c * b * b), [n * (h // b), b, w // b, b, c]
    _expect_shape(model, y.index, want, "output")
    if len(y.shape) != 4:
        raise _Unsupported(f"output has shape {tuple(y.shape)}; TFLite requires rank 4 (NHWC)")
    if max(view) > 2 ** 31 - 1:
        raise _Unsupported(f"input shape {tuple(x.shape)} is too large")
    return {"input_shape": view, "perm": [0, 2, 1, 3, 4]}, (x.index,), None, None


# --- int8 ops with kernels of their own (issue 27) -------------------------------------------
def _maximum_minimum(model: Model, op: Operator) -> tuple:
    """int8 MAXIMUM and MINIMUM (TFLite's MaximumMinimumBroadcastSlow, LiteRT's and TFLite
    Micro's alike): the stored int8 values compared, broadcast as ADD broadcasts. TFLite checks
    the types only: inputs and output quantised differently are compared and written as stored."""
    a, b, y, sa, sb, sy = _broadcast_shapes(model, op)
    return {"input1_shape": sa, "input2_shape": sb, "output_shape": sy}, (a.index, b.index), None, None


def _prelu(model: Model, op: Operator, reference: str) -> tuple:
    """int8 PRELU with PreluPrepare's checks (alpha broadcasts into the input: the output has
    the input's shape) and multipliers: QuantizeMultiplier of input_scale / output_scale and
    input_scale * alpha_scale / output_scale, in float32 as LiteRT computes them ("litert") or
    in double as TensorFlow Lite Micro does ("tflm")."""
    x = _tensor(model, _operand(op.inputs, 0), "input")
    alpha = _tensor(model, _operand(op.inputs, 1), "alpha")
    y = _tensor(model, _operand(op.outputs, 0), "output")
    sx, sa, sy = _shape4(x.shape, "input"), _shape4(alpha.shape, "alpha"), _shape4(y.shape, "output")
    if any(a not in (1, d) for a, d in zip(sa, sx)) or sy != sx:
        raise _Unsupported(f"alpha of shape {tuple(alpha.shape)} does not broadcast into the input {tuple(x.shape)} "
                           f"giving the output {tuple(y.shape)} (TFLite requires the input's shape)")
    (xs, xz), (as_, az), (ys, yz) = _per_tensor(x, "input"), _per_tensor(alpha, "alpha"), _per_tensor(y, "output")
    f32 = np.float32
    if reference == "tflm":
        r1, r2 = xs / ys, xs * as_ / ys
    else:
        r1, r2 = float(f32(xs) / f32(ys)), float(f32(f32(xs) * f32(as_)) / f32(ys))
    try:
        (m1, e1), (m2, e2) = quantize_multiplier(r1), quantize_multiplier(r2)
    except ArenaplanError as exc:
        raise _Unsupported(f"the scales give no int32 multiplier ({exc})") from None
    return ({"input_shape": sx, "alpha_shape": sa, "output_shape": sy, "input_offset": -xz, "alpha_offset": -az,
             "output_offset": yz, "multiplier_1": m1, "shift_1": e1, "multiplier_2": m2, "shift_2": e2},
            (x.index, alpha.index), None, None)


def _squared_difference(model: Model, op: Operator) -> tuple:
    """int8 SQUARED_DIFFERENCE with its Prepare (LiteRT's and TFLite Micro's alike): left shift 7,
    twice the larger input scale (float32) and the three multipliers in double, each below one
    (QuantizeMultiplierSmallerThanOneExp: a larger one is refused, as TFLite's check aborts)."""
    a, b, y, sa, sb, sy = _broadcast_shapes(model, op)
    (s1, z1), (s2, z2) = _per_tensor(a, "first input"), _per_tensor(b, "second input")
    so, zo = _per_tensor(y, "output")
    f32 = np.float32
    twice_max = float(f32(2) * max(f32(s1), f32(s2)))
    reals = (s1 / twice_max, s2 / twice_max, twice_max * twice_max / float(f32(1 << 14) * f32(so)))
    out = []
    for what, real in zip(("first input", "second input", "output"), reals):
        m, e = quantize_multiplier(real)
        if e > 0:
            raise _Unsupported(f"the {what} multiplier {real:.6g} is not below one, which TFLite's "
                               "SQUARED_DIFFERENCE requires (the output scale is too small for the inputs')")
        out += [m, e]
    return ({"input1_shape": sa, "input2_shape": sb, "output_shape": sy, "input1_offset": -z1, "input2_offset": -z2,
             "output_offset": zo, "input1_multiplier": out[0], "input1_shift": out[1], "input2_multiplier": out[2],
             "input2_shift": out[3], "output_multiplier": out[4], "output_shift": out[5]},
            (a.index, b.index), None, None)


def _broadcast_to(model: Model, op: Operator, dtype: str = "int8") -> tuple:
    """int8 BROADCAST_TO (TFLite's reference BroadcastTo, LiteRT's and TFLite Micro's alike) with
    its Prepare checks: shape a constant int32 or int64 vector no shorter than the input's rank,
    each input axis 1 or the shape's; the output that shape; rank <= 4. The bytes are copied."""
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    shape_t = _tensor(model, _operand(op.inputs, 1), "shape", None, constant=True)
    if shape_t.dtype not in ("int32", "int64"):
        raise _Unsupported(f"shape tensor {shape_t.index} is {shape_t.dtype}; int32 or int64 is expected")
    shape = [int(v) for v in np.asarray(shape_t.data).reshape(-1)]
    rank = len(x.shape)
    if len(shape) < rank:
        raise _Unsupported(f"shape {shape} has fewer axes than the input's {rank}")
    sx = [1] * (len(shape) - rank) + [int(d) for d in x.shape]
    if any(a not in (1, b) for a, b in zip(sx, shape)):
        raise _Unsupported(f"input shape {tuple(x.shape)} does not broadcast to {shape}")
    if tuple(int(d) for d in y.shape) != tuple(shape):
        raise _Unsupported(f"output tensor {y.index} has shape {tuple(y.shape)}, the op computes {tuple(shape)}")
    out4 = _shape4(shape, "output")
    return {"input_shape": _shape4(sx, "input"), "output_shape": out4}, (x.index,), None, None


def _abs(model: Model, op: Operator) -> tuple:
    """int8 ABS with AbsPrepare (LiteRT's and TFLite Micro's alike): the multiplier of the
    float32 quotient input_scale / output_scale, used only where the scales differ."""
    x, count, (xs, xz), (ys, yz) = _elementwise_operands(model, op)
    m, e = 0, 0
    if xs != ys:
        try:
            m, e = quantize_multiplier(float(np.float32(xs) / np.float32(ys)))
        except ArenaplanError as exc:
            raise _Unsupported(f"the scales give no int32 multiplier ({exc})") from None
    return ({"count": count, "input_zero_point": xz, "output_zero_point": yz, "rescale": int(xs != ys),
             "multiplier": m, "shift": e}, (x.index,), None, None)


def _rsqrt_s8(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """int8 RSQRT (TFLite's RsqrtEvalQuantized): the multiplier of 1 / (sqrt(input_scale) *
    output_scale) by the rounding rule (LiteRT's Prepare takes the square root and the product of
    the float32 scales in float32, TensorFlow Lite Micro's in double); an input below the zero
    point fails the run as TFLite's kernel fails."""
    x, count, (xs, xz), (ys, yz) = _elementwise_operands(model, op)
    f32 = np.float32
    if reference == "tflm":
        real = 1.0 / (math.sqrt(float(f32(xs))) * float(f32(ys)))
    else:
        real = 1.0 / float(np.sqrt(f32(xs)) * f32(ys))
    try:
        m, e = quantize_multiplier(real)
    except ArenaplanError as exc:
        raise _Unsupported(f"the scales give no int32 multiplier ({exc})") from None
    if not -11 <= e <= 30:
        raise _Unsupported(f"1 / (sqrt(input scale {xs}) * output scale {ys}) = {real:g} needs a shift of {e}; "
                           "TFLite's kernel shifts by it less 20, which must lie in [-31, 10]")
    return ({"count": count, "input_zero_point": xz, "output_zero_point": yz, "multiplier": m, "shift": e},
            (x.index,), None, None)


def _elu_table(xs: float, xz: int, ys: float, yz: int, reference: str) -> List[int]:
    """TFLite's int8 ELU table (LUTPopulate / PopulateLookupTable) in float32 step by step: the
    input dequantised, expm1f (LiteRT) or expf - 1 (TensorFlow Lite Micro) below 0, times 1 /
    output_scale, rounded half away from zero, plus the output zero point, clamped; the C
    library's functions (float32_math, as the interpreters on this host call them)."""
    f32 = np.float32
    x = (f32(xs) * np.arange(-128 - xz, 128 - xz).astype(f32)).astype(f32)
    neg = x < 0
    with np.errstate(over="ignore", invalid="ignore"):
        e = float32_math.expm1f(x) if reference == "litert" else (float32_math.expf(x) - f32(1)).astype(f32)
        t = np.where(neg, e, x).astype(f32)
        scaled = (t * (f32(1) / f32(ys))).astype(f32)
    wide = scaled.astype(np.float64)   # std::round, exact in float64 (float32 rounding can carry)
    rounded = (np.sign(wide) * np.floor(np.abs(wide) + 0.5)).astype(f32)
    total = (rounded + f32(yz)).astype(f32)
    if not np.all(np.abs(total.astype(np.float64)) < 2.0 ** 31):
        raise _Unsupported(f"input scale {xs} over output scale {ys}: TFLite's table of the outputs overflows int32")
    return [int(v) for v in np.clip(total.astype(np.int64), -128, 127)]


def _elu_s8(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """int8 ELU: TFLite's table of the 256 outputs (_elu_table, by the rounding rule), computed
    here and carried in the params."""
    x, count, (xs, xz), (ys, yz) = _elementwise_operands(model, op)
    return ({"count": count, "table_size": 256, "table": _elu_table(xs, xz, ys, yz, reference)}, (x.index,),
            None, None)


def _div_s8(model: Model, op: Operator) -> tuple:
    """int8 DIV (TFLite's reference DivElementwise, LiteRT's and TensorFlow Lite Micro's alike):
    the multiplier of input1_scale / (input2_scale * output_scale) in float32, the activation
    range; a constant divisor holding its zero point is refused (LiteRT fails the run there, as
    arenaplan does for an activation divisor)."""
    a, b, y, sa, sb, sy = _broadcast_shapes(model, op)
    (s1, z1), (s2, z2), (so, zo) = _per_tensor(a, "first input"), _per_tensor(b, "second input"), _per_tensor(y, "output")
    if a.is_constant and b.is_constant:
        raise _Unsupported("both inputs are constants (a converter folds such an op)")
    if b.is_constant and (np.asarray(b.data).astype(np.int32) == z2).any():
        raise _Unsupported(f"the constant divisor (tensor {b.index}) holds its zero point {z2}: a division by zero")
    f32 = np.float32
    real = float(f32(s1) / (f32(s2) * f32(so)))
    try:
        m, e = quantize_multiplier(real)
    except ArenaplanError as exc:
        raise _Unsupported(f"the scales give no int32 multiplier ({exc})") from None
    if e > 23:
        raise _Unsupported(f"input1_scale / (input2_scale * output_scale) = {real:g} is too large (shift {e}; "
                           "TFLite's kernel shifts right by at least 23 less it)")
    lo, hi = _activation(op, so, zo)
    return ({"input1_shape": sa, "input2_shape": sb, "output_shape": sy, "input1_zero_point": z1,
             "input2_zero_point": z2, "output_zero_point": zo, "output_multiplier": m, "output_shift": e,
             "activation_min": lo, "activation_max": hi}, (a.index, b.index), None, None)


def _resize_operands(model: Model, op: Operator, dtype: str = "int8") -> Tuple[Tensor, dict, bool, bool]:
    """What RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR share, with TFLite's Prepare checks: a
    rank-4 input (``dtype``), size a constant int32 vector of two values >= 1 (arenaplan plans
    static shapes), the output [batches, size[0], size[1], channels]; the geometry and the two
    flags."""
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    if len(x.shape) != 4 or any(int(d) < 1 for d in x.shape):
        raise _Unsupported(f"input has shape {tuple(x.shape)}; TFLite requires rank 4 (NHWC) with every "
                           "dimension >= 1")
    size_t = _tensor(model, _operand(op.inputs, 1), "size", None, constant=True)
    if size_t.dtype != "int32":
        raise _Unsupported(f"size tensor {size_t.index} is {size_t.dtype}; TFLite requires int32")
    size = [int(v) for v in np.asarray(size_t.data).reshape(-1)]
    if len(size_t.shape) != 1 or len(size) != 2:
        raise _Unsupported(f"size tensor {size_t.index} holds {size}; a vector of two values (height, width) "
                           "is required")
    if min(size) < 1:
        raise _Unsupported(f"size {size}: the output height and width must be >= 1")
    n, h, w, c = (int(d) for d in x.shape)
    _expect_shape(model, y.index, (n, size[0], size[1], c), "output")
    if len(y.shape) != 4:
        raise _Unsupported(f"output has shape {tuple(y.shape)}; TFLite requires rank 4 (NHWC)")
    align, half = bool(op.options.get("align_corners", False)), bool(op.options.get("half_pixel_centers", False))
    if align and half:
        raise _Unsupported("align_corners and half_pixel_centers are both set; TFLite allows at most one")
    geometry = {"batches": n, "input_h": h, "input_w": w, "channels": c, "output_h": size[0], "output_w": size[1]}
    return x, geometry, align, half


def _nearest_indices(input_size: int, output_size: int, align: bool, half: bool) -> List[int]:
    """TFLite's GetNearestNeighbor for every output index, in float32 as it computes them: the
    scale (input - 1) / (output - 1) with align_corners (and output > 1), else input / output;
    (index + 0.5 with half_pixel_centers) * scale, rounded half away from zero with align_corners,
    else floored; at most input - 1, and with half_pixel_centers at least 0."""
    f32 = np.float32
    scale = f32(input_size - 1) / f32(output_size - 1) if align and output_size > 1 else \
        f32(input_size) / f32(output_size)
    v = (np.arange(output_size).astype(f32) + f32(0.5 if half else 0.0)) * scale
    v = v.astype(np.float64)
    idx = np.sign(v) * np.floor(np.abs(v) + 0.5) if align else np.floor(v)
    idx = np.minimum(idx.astype(np.int64), input_size - 1)
    if half:
        idx = np.maximum(idx, 0)
    return [int(i) for i in idx]


def _resize_nearest(model: Model, op: Operator, dtype: str = "int8") -> tuple:
    """int8 RESIZE_NEAREST_NEIGHBOR (TFLite's reference ResizeNearestNeighbor, LiteRT's and
    TFLite Micro's alike): the input row and column of every output row and column, computed
    here as GetNearestNeighbor computes them, carried in the params; the bytes are copied."""
    x, geometry, align, half = _resize_operands(model, op, dtype)
    spec = dict(geometry, y_index=_nearest_indices(geometry["input_h"], geometry["output_h"], align, half),
                x_index=_nearest_indices(geometry["input_w"], geometry["output_w"], align, half))
    return spec, (x.index,), None, None


def _bilinear_scale_10(input_size: int, output_size: int, align: bool) -> int:
    """ResizeBilinearInteger's Q10 scale of one axis."""
    if align and output_size > 1:
        return ((1 << 10) * (input_size - 1) + (output_size - 1) // 2) // (output_size - 1)
    return ((1 << 10) * input_size + output_size // 2) // output_size


def _resize_bilinear(model: Model, op: Operator) -> tuple:
    """int8 RESIZE_BILINEAR (TFLite's reference ResizeBilinearInteger, LiteRT's BUILTIN_REF and
    TFLite Micro's int8 kernel): the Q10 scales of both axes; the kernel refuses a size whose
    positions overflow int32 or read beyond the input."""
    x, geometry, align, half = _resize_operands(model, op)
    spec = dict(geometry, height_scale_10=_bilinear_scale_10(geometry["input_h"], geometry["output_h"], align),
                width_scale_10=_bilinear_scale_10(geometry["input_w"], geometry["output_w"], align),
                half_pixel_centers=int(half))
    return spec, (x.index,), None, None


def _resize_bilinear_f32(model: Model, op: Operator) -> tuple:
    """float32 RESIZE_BILINEAR (TFLite's reference ResizeBilinear, LiteRT's and TensorFlow Lite
    Micro's alike): the float32 scales as TFLite forms them (in / out, or with align_corners and
    out > 1 (in - 1) / (out - 1)); the kernel interpolates in float32 in the reference's order."""
    x, geometry, align, half = _resize_operands(model, op, "float32")

    def scale(i: int, o: int) -> float:
        return float(np.float32(i - 1) / np.float32(o - 1)) if align and o > 1 else float(np.float32(i) / np.float32(o))
    spec = dict(geometry, height_scale=scale(geometry["input_h"], geometry["output_h"]),
                width_scale=scale(geometry["input_w"], geometry["output_w"]), half_pixel_centers=int(half))
    return spec, (x.index,), None, None


def _batch_space(model: Model, op: Operator, dtype: str = "int8") -> tuple:
    """BATCH_TO_SPACE_ND and SPACE_TO_BATCH_ND of int8 or float32 (the float32 row pads with 0.0)
    with TFLite's Prepare checks: an NHWC input
    (rank 4; rank 3 is [N, H, C], read as [N, H, 1, C] with a block of 1 across, as TFLite
    extends it), block_shape a constant int32 vector of the spatial rank (each >= 1), crops or
    paddings a constant int32 [spatial rank, 2] (each >= 0); BATCH_TO_SPACE_ND's batch a
    multiple of the block's area and its crops leaving at least one pixel, SPACE_TO_BATCH_ND's
    padded size a multiple of the block; input and output quantised alike (TFLite's check).
    SPACE_TO_BATCH_ND pads with the output's zero point, as LiteRT does (TensorFlow Lite
    Micro's kernel never sets its pad value: its padding holds whatever its params' memory
    held, so no rule reproduces it)."""
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    rank = len(x.shape)
    if rank not in (3, 4) or any(int(d) < 1 for d in x.shape):
        raise _Unsupported(f"input has shape {tuple(x.shape)}; TFLite takes rank 3 or 4 with every dimension >= 1")
    spatial = rank - 2
    block = _slice_vector(model, op, 1, "block_shape", spatial)
    what = "crops" if op.type == "BATCH_TO_SPACE_ND" else "paddings"
    pads_t = _tensor(model, _operand(op.inputs, 2), what, "int32", constant=True)
    pads = np.asarray(pads_t.data, dtype=np.int64).reshape(-1)
    if pads.size != 2 * spatial:
        raise _Unsupported(f"{what} tensor {pads_t.index} holds {pads.tolist()}; [{spatial}, 2] values are required")
    pads = pads.reshape(spatial, 2)
    if min(block) < 1:
        raise _Unsupported(f"block_shape {block}: every block must be >= 1")
    if (pads < 0).any():
        raise _Unsupported(f"{what} {pads.tolist()}: every value must be >= 0")
    if rank == 3:
        block = block + [1]
        pads = np.concatenate([pads, np.zeros((1, 2), np.int64)])
    n, h, w, c = [int(d) for d in x.shape[:2]] + ([1] if rank == 3 else [int(x.shape[2])]) + [int(x.shape[-1])]
    area = block[0] * block[1]
    if op.type == "BATCH_TO_SPACE_ND":
        if n % area:
            raise _Unsupported(f"batch {n} is not a multiple of the block's {block[0]} x {block[1]}")
        out = [n // area, h * block[0] - int(pads[0].sum()), w * block[1] - int(pads[1].sum()), c]
        if min(out[1:3]) < 1:
            raise _Unsupported(f"crops {pads[:spatial].tolist()} leave no pixels of the {h * block[0]} x "
                               f"{w * block[1]} image")
    else:
        ph, pw = h + int(pads[0].sum()), w + int(pads[1].sum())
        if ph % block[0] or pw % block[1]:
            raise _Unsupported(f"the padded size {ph} x {pw} is not a multiple of block_shape {block[:spatial]}")
        out = [n * area, ph // block[0], pw // block[1], c]
    want = out if rank == 4 else [out[0], out[1], out[3]]
    _expect_shape(model, y.index, want, "output")
    if len(y.shape) != rank:
        raise _Unsupported(f"output has shape {tuple(y.shape)}; TFLite requires rank {rank}, the input's")
    yz = 0
    if dtype == "int8":
        _same_quantisation(y, "output", x, "input", op.type)
        _, yz = _per_tensor(y, "output")
    return ({"input_shape": [n, h, w, c], "output_shape": out, "block_h": block[0], "block_w": block[1],
             "pad_top": int(pads[0][0]), "pad_left": int(pads[1][0]),
             "pad_value": yz if op.type == "SPACE_TO_BATCH_ND" else 0}, (x.index,), None, None)


#: MirrorPadOptions.mode: the offset of TFLite's GetInputDimension.
_MIRROR_MODES = {0: ("REFLECT", 1), 1: ("SYMMETRIC", 0)}


def _mirror_pad(model: Model, op: Operator, dtype: str = "int8") -> tuple:
    """MIRROR_PAD of int8 or float32 (TFLite's reference kernel, LiteRT's and TFLite Micro's alike) with its
    Prepare checks (paddings a constant int32 or int64 [rank, 2]) and the bound TensorFlow
    places on them and TFLite's kernel assumes (REFLECT: at most the axis' size - 1, SYMMETRIC:
    at most its size; beyond that TFLite reads outside the input); rank <= 4; input and output
    quantised alike (LiteRT's check: the bytes are copied)."""
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    shape = _shape4(x.shape, "input")
    rank = len(x.shape)
    p = _tensor(model, _operand(op.inputs, 1), "paddings", None, constant=True)
    if p.dtype not in ("int32", "int64"):
        raise _Unsupported(f"paddings tensor {p.index} is {p.dtype}; int32 or int64 is expected")
    pads = np.asarray(p.data, dtype=np.int64).reshape(-1)
    if len(p.shape) != 2 or pads.size != 2 * rank:
        raise _Unsupported(f"paddings tensor {p.index} has shape {tuple(p.shape)}; [{rank}, 2] (the input's rank) "
                           "is required")
    pads = pads.reshape(rank, 2)
    mode = int(op.options.get("mode", 0) or 0)
    if mode not in _MIRROR_MODES:
        raise _Unsupported(f"mode {mode} is not REFLECT (0) or SYMMETRIC (1)")
    name, offset = _MIRROR_MODES[mode]
    for a in range(rank):
        n = int(x.shape[a])
        if pads[a].min() < 0 or pads[a].max() > n - offset:
            raise _Unsupported(f"paddings {pads[a].tolist()} on axis {a} of size {n}: {name} pads by 0 to {n - offset}")
    _expect_shape(model, y.index, [int(d) + int(a) + int(b) for d, (a, b) in zip(x.shape, pads)], "output")
    if dtype == "int8":
        _same_quantisation(y, "output", x, "input", "MIRROR_PAD")
    lead = [0] * (4 - rank)
    return ({"input_shape": shape, "pad_before": lead + [int(v) for v in pads[:, 0]],
             "pad_after": lead + [int(v) for v in pads[:, 1]], "offset": offset}, (x.index,), None, None)


def _reduce_operands(model: Model, op: Operator, dtype: str = "int8") -> Tuple[Tensor, Tensor, List[int]]:
    """What the int8 reductions share, with TFLite's Prepare checks: axes a constant int32
    tensor, each in [-rank, rank) (negative counted from the end, repeats once), the output's
    shape with the reduced axes kept as 1 (keep_dims) or dropped; rank <= 4. The input, the
    output and the kernel's input shape and reduce flags (padded in front to four axes)."""
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    shape = _shape4(x.shape, "input")
    rank = len(x.shape)
    a = _tensor(model, _operand(op.inputs, 1), "axes", "int32", constant=True)
    axes = set()
    for v in (int(v) for v in np.asarray(a.data).reshape(-1)):
        if not -rank <= v < rank:
            raise _Unsupported(f"axis {v} is out of range for an input of rank {rank} (it must lie in "
                               f"[{-rank}, {rank}))")
        axes.add(v % rank)
    keep = bool(op.options.get("keep_dims", False))
    want = [1 if d in axes else int(x.shape[d]) for d in range(rank)] if keep else \
        [int(x.shape[d]) for d in range(rank) if d not in axes]
    _expect_shape(model, y.index, want, "output")
    return x, y, {"input_shape": shape, "reduce": [0] * (4 - rank) + [int(d in axes) for d in range(rank)]}


def _reduce_max_min(model: Model, op: Operator) -> tuple:
    """int8 REDUCE_MAX and REDUCE_MIN (TFLite's ReduceGeneric, LiteRT's and TFLite Micro's alike):
    _reduce_operands' checks and the input and output quantised alike (both check it)."""
    x, y, spec = _reduce_operands(model, op)
    _same_quantisation(y, "output", x, "input", op.type)
    return spec, (x.index,), None, None


def _sum_16x8(model: Model, op: Operator, reference: str) -> tuple:
    """int16 SUM, TensorFlow Lite Micro's (the int8 row's QuantizedMeanOrSum with the int16 clamp;
    its Prepare takes any int16 zero points). Under "litert" it is refused, as the int8 row is:
    LiteRT's reference int16 SUM computes otherwise."""
    if reference != "tflm":
        raise _Unsupported("arenaplan runs TensorFlow Lite Micro's int16 SUM (LiteRT's reference kernel "
                           "rescales otherwise): plan with reference \"tflm\"")
    x, y, spec = _reduce_operands(model, op, "int16")
    (xs, xz), (ys, yz) = _per_tensor(x, "input"), _per_tensor(y, "output")
    try:
        m, e = quantize_multiplier(xs / ys)
    except ArenaplanError as exc:
        raise _Unsupported(f"the scales give no int32 multiplier ({exc})") from None
    return dict(spec, input_zero_point=xz, output_zero_point=yz, multiplier=m, shift=e), (x.index,), None, None


def _sum(model: Model, op: Operator, reference: str) -> tuple:
    """int8 SUM as TensorFlow Lite Micro computes it (QuantizedMeanOrSum with compute_sum: the
    sum less n * input zero point, requantised by QuantizeMultiplier(input_scale / output_scale)
    in double, plus the output zero point, clamped). Under "litert" it is refused: LiteRT's
    reference SUM (BUILTIN_REF) reads the int8 input as uint8, which no rule reproduces
    usefully."""
    if reference != "tflm":
        raise _Unsupported("LiteRT's reference int8 SUM (BUILTIN_REF) reads its int8 input as uint8; arenaplan "
                           "runs TensorFlow Lite Micro's int8 SUM: plan with reference \"tflm\"")
    x, y, spec = _reduce_operands(model, op)
    (xs, xz), (ys, yz) = _per_tensor(x, "input"), _per_tensor(y, "output")
    try:
        m, e = quantize_multiplier(xs / ys)
    except ArenaplanError as exc:
        raise _Unsupported(f"the scales give no int32 multiplier ({exc})") from None
    return dict(spec, input_zero_point=xz, output_zero_point=yz, multiplier=m, shift=e), (x.index,), None, None


# --- the 16x8 mode: int16 activations (zero point 0), int8 weights, int64 or int32 biases ---
def _int16_scale(t: Tensor, what: str) -> float:
    """The scale of an int16 activation; TFLite's 16x8 kernels require zero point 0."""
    scale, zp = _per_tensor(t, what)
    if zp != 0:
        raise _Unsupported(f"{what} tensor {t.index} ({t.name!r}) is int16 with zero point {zp}; "
                           "TFLite's 16x8 kernels require 0")
    return scale


def _bias_16x8(model: Model, op: Operator, position: int, channels: int) -> Tuple[Optional[np.ndarray], int]:
    """The bias of a 16x8 weighted op (int64) and the accumulator width: 64 with a bias, 32
    without one (TFLite Micro then sums in int32). An int32 bias is refused: TFLite Micro
    sums it in int32, but LiteRT's reference kernels read every 16x8 bias as int64."""
    if len(op.inputs) <= position or op.inputs[position] < 0:
        return None, 32
    b = _tensor(model, _operand(op.inputs, position), "bias", None, constant=True)
    if b.dtype != "int64":
        raise _Unsupported(f"bias tensor {b.index} ({b.name!r}) is {b.dtype}; a 16x8 {op.type} (int16 "
                           "input) needs an int64 bias (LiteRT's kernels read it as int64)")
    if b.data.size != channels:
        raise _Unsupported(f"bias tensor {b.index} has {b.data.size} values for {channels} channels")
    return np.ascontiguousarray(b.data.reshape(-1), dtype=np.int64), 64


def _windowed_16x8(model: Model, op: Operator, x, w, y, nhwc: List[int], kh: int, kw: int, oc: int,
                   extra: dict) -> tuple:
    """What lowering the 16x8 CONV_2D and DEPTHWISE_CONV_2D share (as _windowed for int8)."""
    n, h, wd, c = nhwc
    oh, ow, sh, sw, dh, dw, ph, pw = _spatial(op, h, wd, kh, kw)
    _expect_shape(model, y.index, (n, oh, ow, oc), "output")
    xs, ys = _int16_scale(x, "input"), _int16_scale(y, "output")
    mult, shift = conv_multipliers(xs, _filter_scales(w, oc), ys)
    lo, hi = _activation_16x8(op, ys)
    bias, bits = _bias_16x8(model, op, 2, oc)
    spec = {"batches": n, "input_h": h, "input_w": wd, "input_c": c, "output_h": oh, "output_w": ow,
            "output_c": oc, "filter_h": kh, "filter_w": kw, "stride_h": sh, "stride_w": sw,
            "dilation_h": dh, "dilation_w": dw, "pad_h": ph, "pad_w": pw, **extra,
            **_requant(mult, shift, 1, 0, lo, hi), "accumulator_bits": bits}
    return spec, (x.index,), w.data, bias


def _activation_16x8(op: Operator, scale: float) -> Tuple[int, int]:
    act = op.options.get("fused_activation_function", "NONE")
    try:
        return activation_range(act, scale, 0, "int16")
    except ArenaplanError:
        raise _Unsupported(f"fused activation {act} is not supported "
                           "(NONE, RELU, RELU6, RELU_N1_TO_1 are)") from None


def _conv2d_16x8(model: Model, op: Operator) -> tuple:
    x = _tensor(model, _operand(op.inputs, 0), "input", "int16", constant=False)
    w = _tensor(model, _operand(op.inputs, 1), "filter", "int8", constant=True)
    y = _tensor(model, _operand(op.outputs, 0), "output", "int16")
    nhwc = _shape4(x.shape, "input")
    if len(w.shape) != 4:
        raise _Unsupported(f"filter has shape {w.shape}; OHWI expected")
    oc, kh, kw, ic = w.shape
    if ic != nhwc[3]:
        raise _Unsupported(f"filter has {ic} input channels, the input has {nhwc[3]} (grouped convolution "
                           "is not supported)")
    return _windowed_16x8(model, op, x, w, y, nhwc, kh, kw, oc, {})


def _depthwise_conv2d_16x8(model: Model, op: Operator) -> tuple:
    x = _tensor(model, _operand(op.inputs, 0), "input", "int16", constant=False)
    w = _tensor(model, _operand(op.inputs, 1), "filter", "int8", constant=True)
    y = _tensor(model, _operand(op.outputs, 0), "output", "int16")
    nhwc = _shape4(x.shape, "input")
    if len(w.shape) != 4 or w.shape[0] != 1:
        raise _Unsupported(f"filter has shape {w.shape}; 1HW(C*M) expected")
    _, kh, kw, oc = w.shape
    if oc % nhwc[3]:
        raise _Unsupported(f"filter has {oc} channels, not a multiple of the input's {nhwc[3]}")
    return _windowed_16x8(model, op, x, w, y, nhwc, kh, kw, oc, {"depth_multiplier": oc // nhwc[3]})


def _fully_connected_16x8(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """16x8 FULLY_CONNECTED: an int64 sum, requantised as the int8 kernel is (LiteRT's
    reference through double scales, TFLite Micro in fixed point)."""
    x = _tensor(model, _operand(op.inputs, 0), "input", "int16", constant=False)
    w = _tensor(model, _operand(op.inputs, 1), "weights", "int8", constant=True)
    y = _tensor(model, _operand(op.outputs, 0), "output", "int16")
    if len(w.shape) != 2:
        raise _Unsupported(f"weights have shape {w.shape}; [units, depth] expected")
    if op.options.get("weights_format", 0) != 0:
        raise _Unsupported("shuffled weights formats are not supported")
    units, depth = (int(d) for d in w.shape)
    total = int(np.prod(x.shape))
    if depth < 1 or total % depth:
        raise _Unsupported(f"input of {total} values is not a whole number of {depth}-deep rows")
    batches = total // depth
    if int(np.prod(y.shape)) != batches * units:
        raise _Unsupported(f"output shape {y.shape} does not hold {batches} x {units} values")
    xs, ys = _int16_scale(x, "input"), _int16_scale(y, "output")
    q = w.quantization
    if q is None or not q.scale:
        raise _Unsupported(f"weights tensor {w.index} has no quantisation")
    if any(q.zero_point or ()):
        raise _Unsupported(f"weights tensor {w.index} has a non-zero zero point; TFLite's 16x8 "
                           "FULLY_CONNECTED requires 0")
    per_channel = len(q.scale) > 1
    if per_channel and len(q.scale) != units:
        raise _Unsupported(f"weights have {len(q.scale)} scales for {units} units")
    mult, shift = conv_multipliers(xs, list(q.scale), ys)
    lo, hi = _activation_16x8(op, ys)
    bias, bits = _bias_16x8(model, op, 2, units)
    real_scale = None if reference == "tflm" else \
        [float(np.float32(xs)) * float(np.float32(s)) / float(np.float32(ys)) for s in q.scale]
    spec = {"batches": batches, "input_depth": depth, "output_depth": units,
            **_requant(mult, shift, 1 if per_channel else 0, 0, lo, hi), "accumulator_bits": bits,
            "real_scale": real_scale, "reference": REFERENCES[reference]}
    return spec, (x.index,), w.data, bias


def _is_power_of_two(scale: float) -> bool:
    m, _ = math.frexp(float(np.float32(scale)))
    return m == 0.5


def _add_sub_16x8(model: Model, op: Operator) -> tuple:
    """ADD and SUB on int16: TFLite's general path (zero points 0, left shift 15). The
    power-of-two path LiteRT takes when pot_scale_int16 holds and every scale is a power of
    two is not supported."""
    a, b, y, sa, sb, sy = _broadcast_shapes(model, op, "int16")
    s1, s2, so = _int16_scale(a, "first input"), _int16_scale(b, "second input"), _int16_scale(y, "output")
    if op.options.get("pot_scale_int16", True) and all(_is_power_of_two(s) for s in (s1, s2, so)):
        raise _Unsupported(f"int16 {op.type} with pot_scale_int16 and power-of-two scales takes TFLite's "
                           "power-of-two path, which arenaplan does not run (the general path, "
                           "pot_scale_int16 false, is supported)")
    left_shift = 15
    twice_max = 2.0 * float(max(np.float32(s1), np.float32(s2)))
    m1, e1 = quantize_multiplier(s1 / twice_max)
    m2, e2 = quantize_multiplier(s2 / twice_max)
    mo, eo = quantize_multiplier(twice_max / float(np.float32((1 << left_shift) * np.float32(so))))
    lo, hi = _activation_16x8(op, so)
    spec = {"input1_shape": sa, "input2_shape": sb, "output_shape": sy, "input1_offset": 0,
            "input2_offset": 0, "output_offset": 0, "left_shift": left_shift, "input1_multiplier": m1,
            "input1_shift": e1, "input2_multiplier": m2, "input2_shift": e2, "output_multiplier": mo,
            "output_shift": eo, "activation_min": lo, "activation_max": hi}
    return spec, (a.index, b.index), None, None


def _mul_16x8(model: Model, op: Operator, reference: str) -> tuple:
    """MUL on int16 (reference_integer_ops::Mul): zero points 0, as LiteRT's and TensorFlow Lite
    Micro's int16 kernels require; the product's multiplier as the int8 MUL's."""
    a, b, y, sa, sb, sy = _broadcast_shapes(model, op, "int16")
    s1, s2, so = _int16_scale(a, "first input"), _int16_scale(b, "second input"), _int16_scale(y, "output")
    mo, eo = _product_multiplier(s1, s2, so, reference)
    if eo > 30:
        raise _Unsupported(f"scale {s1} * {s2} / {so} is too large (its multiplier's exponent {eo} > 30)")
    lo, hi = _activation_16x8(op, so)
    spec = {"input1_shape": sa, "input2_shape": sb, "output_shape": sy, "input1_offset": 0, "input2_offset": 0,
            "output_offset": 0, "output_multiplier": mo, "output_shift": eo, "activation_min": lo,
            "activation_max": hi}
    return spec, (a.index, b.index), None, None


def _pad_16x8(model: Model, op: Operator) -> tuple:
    x = _tensor(model, _operand(op.inputs, 0), "input", "int16", constant=False)
    p = _tensor(model, _operand(op.inputs, 1), "paddings", None, constant=True)
    y = _tensor(model, _operand(op.outputs, 0), "output", "int16")
    pads = np.asarray(p.data, dtype=np.int64).reshape(-1, 2)
    if pads.shape[0] != len(x.shape) or (pads < 0).any():
        raise _Unsupported(f"paddings {pads.tolist()} do not fit an input of rank {len(x.shape)}")
    before = [0] * (4 - len(x.shape)) + [int(v) for v in pads[:, 0]]
    after = [0] * (4 - len(x.shape)) + [int(v) for v in pads[:, 1]]
    _, value = _per_tensor(y, "output")
    if op.type == "PADV2" and len(op.inputs) > 2 and op.inputs[2] >= 0:
        value = int(_tensor(model, _operand(op.inputs, 2), "constant value", "int16",
                            constant=True).data.reshape(-1)[0])
    return ({"input_shape": _shape4(x.shape, "input"), "pad_before": before, "pad_after": after,
             "pad_value": value}, (x.index,), None, None)


def _quantize_16x8(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """QUANTIZE float32 -> int16 (int16 -> int8 and the other integer pairs are REQUANTIZE)."""
    x = _tensor(model, _operand(op.inputs, 0), "input", "float32", constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", "int16")
    count = int(np.prod(y.shape))
    if int(np.prod(x.shape)) != count:
        raise _Unsupported(f"input shape {x.shape} and output shape {y.shape} differ in size")
    return {"count": count, "scale": _int16_scale(y, "output"), "zero_point": 0}, (x.index,), None, None


def _dequantize_16x8(model: Model, op: Operator) -> tuple:
    x = _tensor(model, _operand(op.inputs, 0), "input", "int16", constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", "float32")
    return {"count": int(np.prod(y.shape)), "scale": _int16_scale(x, "input"), "zero_point": 0}, (x.index,), \
        None, None


def _leaky_relu_16x8(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """int16 LEAKY_RELU: the int8 multipliers, clamped to int16. LiteRT's Prepare requires zero
    points 0 on int16; TensorFlow Lite Micro's takes any and subtracts and adds them as for int8,
    so under reference "tflm" any int16 zero point runs."""
    x = _tensor(model, _operand(op.inputs, 0), "input", "int16", constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", "int16")
    count = int(np.prod(y.shape))
    if int(np.prod(x.shape)) != count:
        raise _Unsupported(f"input shape {x.shape} and output shape {y.shape} differ in size")
    if reference == "litert":
        (xs, xz), (ys, yz) = (_int16_scale(x, "input"), 0), (_int16_scale(y, "output"), 0)
    else:
        (xs, xz), (ys, yz) = _per_tensor(x, "input"), _per_tensor(y, "output")
    return _leaky_relu_spec(op, x, count, xs, xz, ys, yz, reference)


def _relu_16x8(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """int16 RELU and RELU6 on the RELU row: QuantizedReluX's rescale and clamp to [max(-32768,
    output zero point), 32767] (RELU6: to the output zero point plus 6 / output_scale rounded,
    within int16). Zero points must be 0 where the runtime requires it: LiteRT for both ops,
    TensorFlow Lite Micro for RELU. TensorFlow Lite Micro's int16 RELU6 is another op: it
    rescales nothing and clamps the input to [its zero point, 6 in its own quantisation]
    (FloatToQuantizedType), whatever the output's quantisation; under "tflm" the row runs that
    (the identity multiplier, both zero points the input's)."""
    x = _tensor(model, _operand(op.inputs, 0), "input", "int16", constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", "int16")
    count = int(np.prod(y.shape))
    if int(np.prod(x.shape)) != count:
        raise _Unsupported(f"input shape {x.shape} and output shape {y.shape} differ in size")
    if op.type == "RELU6" and reference == "tflm":
        xs, xz = _per_tensor(x, "input")
        _per_tensor(y, "output")
        six = float(np.float32(6.0) / np.float32(xs))
        six = int(math.copysign(math.floor(abs(six) + 0.5), six)) + xz
        return ({"count": count, "input_zero_point": xz, "output_zero_point": xz, "output_multiplier": 1 << 30,
                 "output_shift": 1, "activation_min": xz, "activation_max": min(max(six, -32768), 32767)},
                (x.index,), None, None)
    xs, ys = _int16_scale(x, "input"), _int16_scale(y, "output")
    xz = yz = 0
    m, e = _relu_multiplier(xs, ys, reference)
    lo, hi = activation_range("RELU6" if op.type == "RELU6" else "RELU", ys, yz, "int16")
    return ({"count": count, "input_zero_point": xz, "output_zero_point": yz, "output_multiplier": m,
             "output_shift": e, "activation_min": lo, "activation_max": hi}, (x.index,), None, None)


def _maximum_minimum_16x8(model: Model, op: Operator) -> tuple:
    """int16 MAXIMUM and MINIMUM: the int8 rows' comparison of the stored values (LiteRT's and
    TensorFlow Lite Micro's int16 kernels check the types only)."""
    a, b, y, sa, sb, sy = _broadcast_shapes(model, op, "int16")
    return {"input1_shape": sa, "input2_shape": sb, "output_shape": sy}, (a.index, b.index), None, None


def _abs_16x8(model: Model, op: Operator) -> tuple:
    """int16 ABS: zero points 0, as both runtimes' AbsPrepare requires for int16; the multiplier of
    the float32 quotient of the scales where they differ, as the int8 row's."""
    x = _tensor(model, _operand(op.inputs, 0), "input", "int16", constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", "int16")
    count = int(np.prod(y.shape))
    if int(np.prod(x.shape)) != count:
        raise _Unsupported(f"input shape {x.shape} and output shape {y.shape} differ in size")
    xs, ys = _int16_scale(x, "input"), _int16_scale(y, "output")
    m, e = 0, 0
    if xs != ys:
        try:
            m, e = quantize_multiplier(float(np.float32(xs) / np.float32(ys)))
        except ArenaplanError as exc:
            raise _Unsupported(f"the scales give no int32 multiplier ({exc})") from None
    return ({"count": count, "input_zero_point": 0, "output_zero_point": 0, "rescale": int(xs != ys),
             "multiplier": m, "shift": e}, (x.index,), None, None)


def _squared_difference_16x8(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """int16 SQUARED_DIFFERENCE, TensorFlow Lite Micro's (LiteRT's kernel takes float32 and int32
    only): zero points 0, left shift 0, twice the larger float32 input scale and the multipliers
    in double, the inputs' below one, the output's (2 * max)^2 / output_scale any int32 one."""
    if reference != "tflm":
        raise _Unsupported("int16 inputs: LiteRT's SQUARED_DIFFERENCE takes float32 and int32 only; "
                           "TensorFlow Lite Micro's runs int16 (plan with reference='tflm')")
    a, b, y, sa, sb, sy = _broadcast_shapes(model, op, "int16")
    s1, s2, so = _int16_scale(a, "first input"), _int16_scale(b, "second input"), _int16_scale(y, "output")
    twice_max = 2.0 * float(max(np.float32(s1), np.float32(s2)))
    try:
        m1, e1 = quantize_multiplier(float(np.float32(s1)) / twice_max)
        m2, e2 = quantize_multiplier(float(np.float32(s2)) / twice_max)
        mo, eo = quantize_multiplier(twice_max * twice_max / float(np.float32(so)))
    except ArenaplanError as exc:
        raise _Unsupported(f"the scales give no int32 multiplier ({exc})") from None
    if eo > 30:
        raise _Unsupported(f"output scale {so} is too small for the inputs' (its multiplier's exponent {eo} > 30)")
    return ({"input1_shape": sa, "input2_shape": sb, "output_shape": sy, "input1_offset": 0, "input2_offset": 0,
             "output_offset": 0, "input1_multiplier": m1, "input1_shift": e1, "input2_multiplier": m2,
             "input2_shift": e2, "output_multiplier": mo, "output_shift": eo}, (a.index, b.index), None, None)


def _round_half_away(x: float) -> float:
    """std::round: half away from zero."""
    return math.copysign(math.floor(abs(x) + 0.5), x)


def _int16_lut(single: bool, input_scale: float, input_zero_point: int, output_scale: float,
               output_zero_point: int, fn: Callable) -> List[int]:
    """TFLite's LUTPopulate<int16_t>: the 513 entries of an int16 -> int16 table of ``fn``, 512
    segments of the input range, each entry biased by half the error of the linear interpolation
    at its segment's midpoint, then the value at the top. Every step in float32 (``single``,
    TensorFlow Lite Micro's) or in double (LiteRT's), as those runtimes compute it."""
    T = np.float32 if single else np.float64

    def rnd(v):
        return T(_round_half_away(float(v)))

    in_min = T(T(input_scale) * T(-32768 - input_zero_point))
    in_max = T(T(input_scale) * T(32767 - input_zero_point))
    out_min = T(T(output_scale) * T(-32768 - output_zero_point))
    out_max = T(T(output_scale) * T(32767 - output_zero_point))
    step = T(T(in_max - in_min) / T(512))
    half_step = T(step / T(2))
    inv = T(T(65536) / T(out_max - out_min))
    lut = []
    for i in range(512):
        at = T(in_min + T(T(i) * step))
        val, mid, nxt = fn(at), fn(T(at + half_step)), fn(T(in_min + T(T(i + 1) * step)))
        sample = rnd(T(val * inv))
        interpolated = rnd(T(T(T(nxt * inv) + rnd(T(val * inv))) / T(2)))
        bias = rnd(T(T(interpolated - rnd(T(mid * inv))) / T(2)))
        lut.append(int(min(max(float(T(sample - bias)), -32768.0), 32767.0)))
    lut.append(int(min(max(float(rnd(T(fn(in_max) * inv))), -32768.0), 32767.0)))
    return lut


def _softmax_int16_luts(single: bool) -> Tuple[List[int], List[int]]:
    """The int16 SOFTMAX's tables (its Prepare's LUTPopulate calls): exp on [-10, 0] and
    1 / (1 + x) on [0, 1], both into [-1, 1]; float32 with the C library's expf (TensorFlow Lite
    Micro) or double with its exp (LiteRT)."""
    span = 65535
    if single:
        f32 = np.float32
        exp = lambda v: float32_math.expf(np.array([v], np.float32))[0]   # noqa: E731
        recip = lambda v: f32(f32(1) / f32(f32(1) + f32(v)))              # noqa: E731
        scale = lambda a: f32(f32(a) / f32(span))                          # noqa: E731
    else:
        exp = lambda v: np.float64(math.exp(float(v)))                     # noqa: E731
        recip = lambda v: np.float64(1.0 / (1.0 + float(v)))               # noqa: E731
        scale = lambda a: a / span                                         # noqa: E731
    return (_int16_lut(single, scale(10.0), 32767, scale(2.0), 0, exp),
            _int16_lut(single, scale(1.0), -32768, scale(2.0), 0, recip))


_SOFTMAX_LUTS: Dict[bool, Tuple[List[int], List[int]]] = {}


def _softmax_16x8(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """int16 SOFTMAX (SoftmaxInt16): the input multiplier of input_scale * beta / (10 / 65535)
    and the exp and reciprocal tables by the rounding rule: LiteRT forms the product of the
    float32 scale and beta in float32 and its tables in double; TensorFlow Lite Micro the
    product in double and its tables in float32. Both require an input zero point 0 and an
    output of zero point 0 and scale 1/32768 (within TFLite's tolerance)."""
    x = _tensor(model, _operand(op.inputs, 0), "input", "int16", constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", "int16")
    xs = _int16_scale(x, "input")
    ys, yz = _per_tensor(y, "output")
    if yz != 0 or abs(float(np.float32(ys)) - 1.0 / 32768) > 0.001 / 32768:
        raise _Unsupported(f"an int16 softmax's output must have scale 1/32768 and zero point 0, got {ys} and {yz}")
    if int(np.prod(y.shape)) != int(np.prod(x.shape)) or not x.shape:
        raise _Unsupported(f"output shape {y.shape} differs from the input's {x.shape}")
    beta = np.float32(op.options.get("beta", 1.0))
    if reference == "litert":
        real = float(np.float32(np.float32(xs) * beta)) / (10.0 / 65535.0)
    else:
        real = float(np.float32(xs)) * float(beta) / (10.0 / 65535.0)
    try:
        mult, shift = quantize_multiplier(real)
    except ArenaplanError as exc:
        raise _Unsupported(f"input scale {xs} and beta {beta} give no int32 multiplier ({exc})") from None
    if shift > 15:
        raise _Unsupported(f"input scale {xs} times beta {beta} is too large: the rescaled differences "
                           f"(a left shift of {shift}) overflow int32 in TFLite's kernel")
    depth = int(x.shape[-1])
    if depth > 65536:
        raise _Unsupported(f"the last axis has {depth} values; the int32 sum of their exps can overflow "
                           "beyond 65,536")
    single = reference == "tflm"
    if single not in _SOFTMAX_LUTS:
        _SOFTMAX_LUTS[single] = _softmax_int16_luts(single)
    exp_lut, recip_lut = _SOFTMAX_LUTS[single]
    return ({"outer_size": int(np.prod(x.shape[:-1])), "depth": depth, "input_multiplier": mult,
             "input_left_shift": shift, "lut_size": len(exp_lut), "exp_lut": list(exp_lut),
             "one_over_one_plus_x_lut": list(recip_lut)}, (x.index,), None, None)


def _checked_log2(scale: float) -> Tuple[bool, int]:
    """TFLite's CheckedLog2 of a float32 scale: log2 in float32 (logf times 1 / logf(2)) rounded
    half away from zero; a power of two when the fraction is below 1e-3."""
    f32 = np.float32
    v = f32(float32_math.logf(np.array([scale], f32))[0] * f32(f32(1) / float32_math.logf(np.array([2.0], f32))[0]))
    rounded = f32(_round_half_away(float(v)))
    return abs(float(f32(v - rounded))) < float(f32(1e-3)), int(rounded)


def _logistic_16x8(model: Model, op: Operator) -> tuple:
    """int16 LOGISTIC and TANH (reference_integer_ops::Logistic / Tanh), their Prepare's input
    multiplier and shift, LiteRT's and TensorFlow Lite Micro's alike: an input scale of 2^-12
    (TANH: or 2^-11) takes 3 << shift with no shift; any other the multiplier input_scale * 4096
    * 3 doubled (the shift counting) until it passes 32767 / 2 or the shift 31. Zero points 0
    and an output scale of 2^-15 (CheckedLog2), as both require (LiteRT's LOGISTIC: exactly)."""
    x = _tensor(model, _operand(op.inputs, 0), "input", "int16", constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", "int16")
    count = int(np.prod(y.shape))
    if int(np.prod(x.shape)) != count:
        raise _Unsupported(f"input shape {x.shape} and output shape {y.shape} differ in size")
    xs, ys = _int16_scale(x, "input"), _int16_scale(y, "output")
    pot, out_log2 = _checked_log2(ys)
    if not pot or out_log2 != -15 or (op.type == "LOGISTIC" and float(np.float32(ys)) != 1.0 / 32768):
        raise _Unsupported(f"output scale {ys}: TFLite's int16 {op.type} writes scale 1/32768 only")
    pot, in_log2 = _checked_log2(xs)
    shift = 12 + in_log2
    if pot and (shift == 0 or (op.type == "TANH" and shift == 1)):
        mult, shift = 3 << shift, 0
    else:
        m, shift = float(np.float32(xs)) * 4096.0 * 3.0, 0
        while m <= 32767.0 / 2.0 and shift <= 30:
            shift, m = shift + 1, m * 2.0
        mult = int(m)
        if mult < 1:
            raise _Unsupported(f"input scale {xs} is too small: TFLite's input multiplier is 0")
        if mult > 65535:
            raise _Unsupported(f"input scale {xs} is too large: TFLite's input multiplier {mult} overflows "
                               "int32 on the int16 extremes")
    return {"count": count, "input_multiplier": mult, "input_left_shift": shift}, (x.index,), None, None


def _reshape_16x8(model: Model, op: Operator) -> tuple:
    """RESHAPE, SQUEEZE and EXPAND_DIMS of int16 values: the int8 row's copy (an alias in a
    plan); input and output both int16, as TFLite's Prepare requires of the types."""
    _tensor(model, _operand(op.inputs, 0), "input", "int16", constant=False)
    _tensor(model, _operand(op.outputs, 0), "output", "int16")
    return _reshape(model, op)


def _mean_16x8(model: Model, op: Operator, reference: str = "litert") -> tuple:
    return _mean(model, op, reference, "int16")


def _pool_16x8(model: Model, op: Operator) -> tuple:
    return _pool(model, op, "int16")


def _strided_slice_16x8(model: Model, op: Operator) -> tuple:
    """int16 STRIDED_SLICE: the int8 lowering's slice, int16 values copied as they are."""
    return _strided_slice(model, op, "int16")


def _split_16x8(model: Model, op: Operator) -> tuple:
    """One output of an int16 SPLIT or SPLIT_V: the int16 STRIDED_SLICE copy of its piece."""
    return _split(model, op, "int16")


def _transpose_16x8(model: Model, op: Operator) -> tuple:
    return _transpose(model, op, "int16")


def _concat_axis(op: Operator, y: Tensor) -> Tuple[int, int]:
    """The output's rank and the copy rows' CONCATENATION axis, non-negative, with TFLite's
    checks: the axis within the rank, no fused activation."""
    rank = len(y.shape)
    axis = int(op.options.get("axis", 0))
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        raise _Unsupported(f"axis {op.options.get('axis')} is out of range for rank {rank}")
    if op.options.get("fused_activation_function", "NONE") != "NONE":
        raise _Unsupported("a fused activation on CONCATENATION is not supported (TFLite refuses it)")
    return rank, axis


def _concat_copy_params(y: Tensor, ins: Sequence[Tensor], axis: int, rank: int) -> dict:
    """The copy rows' CONCATENATION params (the output's shape, the axis in 4-D, each input's
    size along it), with TFLite's Prepare checks: every input of the output's rank and shape
    but along the axis, their sizes summing to the output's."""
    want = _shape4(y.shape, "output")
    sizes = []
    for i, t in enumerate(ins):
        shape = _shape4(t.shape, f"input {i}") if len(t.shape) == rank else None
        if shape is None or any(shape[d] != want[d] for d in range(4) if d != axis + 4 - rank):
            raise _Unsupported(f"input tensor {t.index} has shape {tuple(t.shape)}, which does not fit the "
                               f"output's {tuple(y.shape)} outside axis {axis}")
        sizes.append(int(t.shape[axis]))
    if sum(sizes) != int(y.shape[axis]):
        raise _Unsupported(f"the inputs' sizes along axis {axis} sum to {sum(sizes)}, the output has "
                           f"{int(y.shape[axis])}")
    return {"output_shape": want, "axis": axis + 4 - rank, "input_count": len(sizes), "input_axis_sizes": sizes}


def _concatenation_16x8(model: Model, op: Operator) -> tuple:
    """int16 CONCATENATION: a copy, as TFLite's int16 kernels (LiteRT's and TFLite Micro's)
    are. Their Prepare requires every zero point 0 and reads no scale: inputs whose scale
    differs from the output's are copied unscaled, as both runtimes copy them."""
    y = _tensor(model, _operand(op.outputs, 0), "output", "int16")
    rank, axis = _concat_axis(op, y)
    _int16_scale(y, "output")
    ins = [_tensor(model, t, f"input {i}", "int16") for i, t in enumerate(op.inputs)]
    for i, t in enumerate(ins):
        _int16_scale(t, f"input {i}")
    return ({**_concat_copy_params(y, ins, axis, rank), "input_multipliers": None, "input_shifts": None,
             "input_zero_points": None, "output_zero_point": 0}, tuple(t.index for t in ins), None, None)


#: TensorType codes of TransposeConvOptions.quantized_bias_type (FLOAT32, the default, is unset).
_BIAS_TYPE_OPTION = {0: None, 2: "int32", 4: "int64"}


def _transpose_conv_16x8(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """16x8 TRANSPOSE_CONV (int16 input and output with zero point 0, int8 weights). The sum's
    width follows the bias as each runtime reads it: LiteRT sums in int32 where the options'
    quantized_bias_type is INT32 (the bias, if any, then int32), else in int64 (an int64 bias);
    TensorFlow Lite Micro always sums in int64 and reads the bias as int64."""
    x, w, y, geometry = _transpose_conv_operands(model, op, "int16")
    oc = geometry["output_c"]
    xs, ys = _int16_scale(x, "input"), _int16_scale(y, "output")
    mult, shift = conv_multipliers(xs, _filter_scales(w, oc), ys)
    lo, hi = _activation_16x8(op, ys)
    code = int(op.options.get("quantized_bias_type", 0))
    if code not in _BIAS_TYPE_OPTION:
        raise _Unsupported(f"quantized_bias_type {code} is not INT32 or INT64, as TFLite requires for int16 input")
    want = "int64" if reference == "tflm" else (_BIAS_TYPE_OPTION[code] or "int64")
    bias = None
    if len(op.inputs) > 3 and op.inputs[3] >= 0:
        b = _tensor(model, op.inputs[3], "bias", None, constant=True)
        if b.dtype != want:
            why = ("TensorFlow Lite Micro reads a 16x8 TRANSPOSE_CONV bias as int64" if reference == "tflm" else
                   f"quantized_bias_type {'INT32' if want == 'int32' else 'unset or INT64'} makes LiteRT read "
                   f"it as {want}")
            raise _Unsupported(f"bias tensor {b.index} ({b.name!r}) is {b.dtype}; {why}")
        if b.data.size != oc:
            raise _Unsupported(f"bias tensor {b.index} has {b.data.size} values for {oc} channels")
        if b.quantization is not None and any(b.quantization.zero_point or ()):
            raise _Unsupported(f"bias tensor {b.index} has a non-zero zero point; TFLite requires 0")
        bias = np.ascontiguousarray(b.data.reshape(-1), dtype=np.int64)
    spec = {**geometry, "input_offset": 0, **_requant(mult, shift, 1, 0, lo, hi),
            "accumulator_bits": 32 if want == "int32" else 64}
    return spec, (x.index,), w.data, bias


# --- float32: TFLite's float kernels (float32 activations, weights and biases) ------------------
#: TFLite's CalculateActivationRange for float: (activation_min, activation_max) by fused
#: activation; with none, [lowest, max] of float32 (an infinite result becomes +-FLT_MAX).
_FLT_MAX = float(np.finfo(np.float32).max)
_F32_ACTIVATIONS = {"NONE": (-_FLT_MAX, _FLT_MAX), "RELU": (0.0, _FLT_MAX), "RELU_N1_TO_1": (-1.0, 1.0),
                    "RELU6": (0.0, 6.0)}


def _activation_f32(op: Operator) -> dict:
    act = op.options.get("fused_activation_function", "NONE")
    if act not in _F32_ACTIVATIONS:
        raise _Unsupported(f"fused activation {act} is not supported (NONE, RELU, RELU_N1_TO_1, RELU6 are)")
    lo, hi = _F32_ACTIVATIONS[act]
    return {"activation_min": lo, "activation_max": hi}


def _f32_operands(model: Model, op: Operator, names: Sequence[str], constants: Sequence[str] = (),
                  optional: Sequence[str] = ()) -> List[Optional[Tensor]]:
    """The op's inputs named ``names`` (then its output), each float32: a type mix (a quantised
    partner, int8 weights of a float32 input) is refused naming every operand's type, as TFLite
    has no float kernel for it. ``constants`` must be constant, the others (but the output)
    activations; ``optional`` may be omitted (None)."""
    indices = [_operand(op.inputs, i) for i in range(len(names))] + [_operand(op.outputs, 0)]
    labels = list(names) + ["output"]
    found = [None if i < 0 else model.tensors[i] for i in indices]
    for label, t in zip(labels, found):
        if t is None and label not in optional:
            raise _Unsupported(f"the {label} operand is missing")
    if any(t is not None and t.dtype != "float32" for t in found):
        types = ", ".join(f"{label} {t.dtype if t is not None else 'omitted'}" for label, t in zip(labels, found))
        raise _Unsupported(f"the float32 {op.type} takes float32 operands only; got {types} (TFLite has no "
                           f"kernel for this mix of types)")
    for label, t in zip(labels[:-1], found[:-1]):
        if t is None:
            continue
        if t.is_variable:
            raise _Unsupported(f"{label} tensor {t.index} ({t.name!r}) is a variable (state) tensor; this op "
                               "keeps no state")
        if label in constants and not t.is_constant:
            raise _Unsupported(f"{label} tensor {t.index} ({t.name!r}) must be a constant")
        if label not in constants and t.is_constant and label == "input":
            raise _Unsupported(f"{label} tensor {t.index} ({t.name!r}) is a constant; only activations are "
                               "supported here")
    return found


def _bias_f32(b: Optional[Tensor], channels: int) -> Optional[np.ndarray]:
    if b is None:
        return None
    if b.data.size != channels:
        raise _Unsupported(f"bias tensor {b.index} has {b.data.size} values for {channels} channels")
    return np.ascontiguousarray(b.data.reshape(-1), dtype=np.float32)


def _fully_connected_f32(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """float32 FULLY_CONNECTED (reference_ops::FullyConnected): float32 weights [units, depth]
    and bias."""
    x, w, b, y = _f32_operands(model, op, ("input", "weights", "bias"), constants=("weights", "bias"),
                               optional=("bias",))
    if len(w.shape) != 2:
        raise _Unsupported(f"weights have shape {w.shape}; [units, depth] expected")
    if op.options.get("weights_format", 0) != 0:
        raise _Unsupported("shuffled weights formats are not supported")
    units, depth = w.shape
    total = int(np.prod(x.shape))
    if depth < 1 or total % depth:
        raise _Unsupported(f"input of {total} values is not a whole number of {depth}-deep rows")
    batches = total // depth
    if int(np.prod(y.shape)) != batches * units:
        raise _Unsupported(f"output shape {y.shape} does not hold {batches} x {units} values")
    spec = {"batches": batches, "input_depth": depth, "output_depth": units, **_activation_f32(op)}
    return spec, (x.index,), w.data, _bias_f32(b, units)


def _windowed_f32(model: Model, op: Operator, depthwise: bool) -> tuple:
    """float32 CONV_2D (filter OHWI) and DEPTHWISE_CONV_2D (filter 1HW(C*M))."""
    x, w, b, y = _f32_operands(model, op, ("input", "filter", "bias"), constants=("filter", "bias"),
                               optional=("bias",))
    n, h, wd, c = _shape4(x.shape, "input")
    if len(w.shape) != 4 or (depthwise and w.shape[0] != 1):
        raise _Unsupported(f"filter has shape {w.shape}; {'1HW(C*M)' if depthwise else 'OHWI'} expected")
    if depthwise:
        _, kh, kw, oc = w.shape
        if oc % c:
            raise _Unsupported(f"filter has {oc} channels, not a multiple of the input's {c}")
        extra = {"depth_multiplier": oc // c}
    else:
        oc, kh, kw, ic = w.shape
        if ic != c:
            raise _Unsupported(f"filter has {ic} input channels, the input has {c} (grouped convolution "
                               "is not supported)")
        extra = {}
    oh, ow, sh, sw, dh, dw, ph, pw = _spatial(op, h, wd, kh, kw)
    _expect_shape(model, y.index, (n, oh, ow, oc), "output")
    spec = {"batches": n, "input_h": h, "input_w": wd, "input_c": c, "output_h": oh, "output_w": ow,
            "output_c": oc, "filter_h": kh, "filter_w": kw, "stride_h": sh, "stride_w": sw,
            "dilation_h": dh, "dilation_w": dw, "pad_h": ph, "pad_w": pw, **extra, **_activation_f32(op)}
    return spec, (x.index,), w.data, _bias_f32(b, oc)


def _conv2d_f32(model: Model, op: Operator) -> tuple:
    return _windowed_f32(model, op, False)


def _depthwise_conv2d_f32(model: Model, op: Operator) -> tuple:
    return _windowed_f32(model, op, True)


def _binary_f32(model: Model, op: Operator) -> tuple:
    """float32 ADD, SUB and MUL with 4-D broadcasting; either input may be a constant."""
    _f32_operands(model, op, ("first input", "second input"))
    a, b, y, sa, sb, sy = _broadcast_shapes(model, op, "float32")
    return ({"input1_shape": sa, "input2_shape": sb, "output_shape": sy, **_activation_f32(op)},
            (a.index, b.index), None, None)


#: The float32 functions of one element by op type (the C enum ap_unary_f32_fn).
_UNARY_F32 = {"LOGISTIC": 0, "TANH": 1, "RELU": 2, "RELU6": 3, "RELU_N1_TO_1": 4, "LEAKY_RELU": 5,
              "HARD_SWISH": 6}


def _unary_f32(model: Model, op: Operator, reference: str = "litert") -> tuple:
    x, y = _f32_operands(model, op, ("input",))
    if int(np.prod(x.shape)) != int(np.prod(y.shape)):
        raise _Unsupported(f"output shape {y.shape} differs from the input's {x.shape}")
    alpha = float(np.float32(op.options.get("alpha", 0.2))) if op.type == "LEAKY_RELU" else 0.0
    if not math.isfinite(alpha):
        raise _Unsupported(f"alpha {alpha} is not finite")
    return {"count": int(np.prod(x.shape)), "fn": _UNARY_F32[op.type], "alpha": alpha}, (x.index,), None, None


#: The float32 functions of one element of EXP ... ELU by op type (the C enum ap_math_f32_fn).
_MATH_F32 = {"EXP": 0, "LOG": 1, "SIN": 2, "COS": 3, "SQRT": 4, "RSQRT": 5, "SQUARE": 6, "NEG": 7, "ROUND": 8,
             "FLOOR": 9, "CEIL": 10, "ELU": 11, "ABS": 12}


def _math_f32(model: Model, op: Operator) -> tuple:
    """float32 EXP, LOG, SIN, COS, SQRT, RSQRT, SQUARE, NEG, ROUND, FLOOR, CEIL, ELU and ABS: one
    function of each element (ap_math_f32_fn)."""
    x, y = _f32_operands(model, op, ("input",))
    if int(np.prod(x.shape)) != int(np.prod(y.shape)):
        raise _Unsupported(f"output shape {y.shape} differs from the input's {x.shape}")
    return {"count": int(np.prod(x.shape)), "fn": _MATH_F32[op.type]}, (x.index,), None, None


def _softmax_f32(model: Model, op: Operator) -> tuple:
    """float32 SOFTMAX over the last axis, beta as TFLite holds it (float32)."""
    x, y = _f32_operands(model, op, ("input",))
    if int(np.prod(y.shape)) != int(np.prod(x.shape)) or not x.shape:
        raise _Unsupported(f"output shape {y.shape} differs from the input's {x.shape}, or the input is a scalar")
    beta = float(np.float32(op.options.get("beta", 1.0)))
    if not math.isfinite(beta):
        raise _Unsupported(f"beta {beta} is not finite")
    depth = int(x.shape[-1])
    outer = int(np.prod(x.shape[:-1])) if len(x.shape) > 1 else 1
    if depth < 1 or outer < 1:
        raise _Unsupported(f"input shape {x.shape} is empty")
    return {"outer_size": outer, "depth": depth, "beta": beta}, (x.index,), None, None


def _pool_f32(model: Model, op: Operator) -> tuple:
    """float32 AVERAGE_POOL_2D and MAX_POOL_2D."""
    x, y = _f32_operands(model, op, ("input",))
    n, h, wd, c = _shape4(x.shape, "input")
    kh, kw = int(op.options.get("filter_height", 1)), int(op.options.get("filter_width", 1))
    if kh < 1 or kw < 1:
        raise _Unsupported(f"filter ({kh}, {kw}) must be at least 1 x 1")
    options = dict(op.options, dilation_h_factor=1, dilation_w_factor=1)
    oh, ow, sh, sw, _, _, ph, pw = _spatial(Operator(op.index, op.type, op.inputs, op.outputs, options),
                                            h, wd, kh, kw)
    _expect_shape(model, y.index, (n, oh, ow, c), "output")
    return ({"batches": n, "input_h": h, "input_w": wd, "channels": c, "output_h": oh, "output_w": ow,
             "filter_h": kh, "filter_w": kw, "stride_h": sh, "stride_w": sw, "pad_h": ph, "pad_w": pw,
             **_activation_f32(op)}, (x.index,), None, None)


def _reshape_f32(model: Model, op: Operator) -> tuple:
    _f32_operands(model, op, ("input",))
    return _reshape(model, op)


def _pad_f32(model: Model, op: Operator) -> tuple:
    """float32 PAD (pad value 0.0) and PADV2 (its float32 constant value)."""
    x = _tensor(model, _operand(op.inputs, 0), "input", None, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    v = None
    if op.type == "PADV2" and _operand(op.inputs, 2) >= 0:
        v = _tensor(model, _operand(op.inputs, 2), "constant value", None, constant=True)
    if y.dtype != "float32" or (v is not None and v.dtype != "float32"):
        got = f"input {x.dtype}, output {y.dtype}" + (f", constant value {v.dtype}" if v is not None else "")
        raise _Unsupported(f"the float32 {op.type} takes float32 operands only; got {got} (TFLite has no "
                           f"kernel for this mix of types)")
    p = _tensor(model, _operand(op.inputs, 1), "paddings", None, constant=True)
    pads = np.asarray(p.data, dtype=np.int64).reshape(-1, 2)
    if pads.shape[0] != len(x.shape) or (pads < 0).any():
        raise _Unsupported(f"paddings {pads.tolist()} do not fit an input of rank {len(x.shape)}")
    shape = _shape4(x.shape, "input")
    before = [0] * (4 - len(x.shape)) + [int(v) for v in pads[:, 0]]
    after = [0] * (4 - len(x.shape)) + [int(v) for v in pads[:, 1]]
    _expect_shape(model, y.index, [d + b + a for d, b, a in zip(shape, before, after)][4 - len(x.shape):], "output")
    value = 0.0 if v is None else float(np.float32(v.data.reshape(-1)[0]))
    return ({"input_shape": shape, "pad_before": before, "pad_after": after, "pad_value": value},
            (x.index,), None, None)


def _concatenation_f32(model: Model, op: Operator) -> tuple:
    """float32 CONCATENATION (no fused activation, as the int8 row)."""
    names = tuple(f"input {i}" for i in range(len(op.inputs)))
    found = _f32_operands(model, op, names)
    ins, y = found[:-1], found[-1]
    rank = len(y.shape)
    axis = int(op.options.get("axis", 0))
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank or rank > 4:
        raise _Unsupported(f"axis {op.options.get('axis')} of a rank-{rank} output is not supported (rank <= 4)")
    if op.options.get("fused_activation_function", "NONE") != "NONE":
        raise _Unsupported("a fused activation on CONCATENATION is not supported")
    sizes = []
    for t in ins:
        if len(t.shape) != rank or any(int(t.shape[d]) != int(y.shape[d]) for d in range(rank) if d != axis):
            raise _Unsupported(f"input tensor {t.index} has shape {t.shape}; the output {y.shape} along axis {axis}")
        sizes.append(int(t.shape[axis]))
    return ({"output_shape": _shape4(y.shape, "output"), "axis": axis + 4 - rank, "input_count": len(sizes),
             "input_axis_sizes": sizes}, tuple(t.index for t in ins), None, None)


def _mean_f32(model: Model, op: Operator) -> tuple:
    """float32 MEAN over any axes of an input of rank <= 4 (keep_dims either way)."""
    x = _tensor(model, _operand(op.inputs, 0), "input", None, constant=False)
    axes_t = _tensor(model, _operand(op.inputs, 1), "axes", "int32", constant=True)
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    if y.dtype != "float32":
        raise _Unsupported(f"the float32 {op.type} takes float32 operands only; got input {x.dtype}, output "
                           f"{y.dtype} (TFLite has no kernel for this mix of types)")
    rank = len(x.shape)
    shape = _shape4(x.shape, "input")
    axes = sorted({int(a) + rank if int(a) < 0 else int(a) for a in axes_t.data.reshape(-1)})
    if not axes or any(not 0 <= a < rank for a in axes):
        raise _Unsupported(f"axes {axes_t.data.reshape(-1).tolist()} do not fit an input of rank {rank}")
    kept = [int(x.shape[d]) for d in range(rank) if d not in axes]
    if int(np.prod(y.shape)) != int(np.prod(kept)):
        raise _Unsupported(f"output shape {y.shape} does not hold the mean over axes {axes} of {x.shape}")
    return ({"input_shape": shape, "reduce": sum(1 << (a + 4 - rank) for a in axes)}, (x.index,), None, None)


def _binary_f32_plain(model: Model, op: Operator) -> tuple:
    """float32 MAXIMUM, MINIMUM, SQUARED_DIFFERENCE and PRELU (the second input its alpha): ADD's
    4-D broadcasting, no activation (these ops have none; the row ignores the range); either
    input may be a constant."""
    _f32_operands(model, op, ("first input", "second input"))
    a, b, y, sa, sb, sy = _broadcast_shapes(model, op, "float32")
    return ({"input1_shape": sa, "input2_shape": sb, "output_shape": sy, "activation_min": -_FLT_MAX,
             "activation_max": _FLT_MAX}, (a.index, b.index), None, None)


_FLT_MAX = float(np.finfo(np.float32).max)
#: ap_reduce_f32_fn by op
_REDUCE_F32 = {"SUM": 0, "REDUCE_MAX": 1, "REDUCE_MIN": 2}


def _reduce_f32(model: Model, op: Operator) -> tuple:
    """float32 SUM, REDUCE_MAX and REDUCE_MIN over any axes of an input of rank <= 4 (keep_dims
    either way; repeated and negative axes as TFLite resolves them)."""
    spec, inputs, _, _ = _mean_f32(model, op)
    return {**spec, "fn": _REDUCE_F32[op.type]}, inputs, None, None


def _strided_slice_f32(model: Model, op: Operator) -> tuple:
    """float32 STRIDED_SLICE: the int8 row's plan-time resolution of the masks."""
    x = _tensor(model, _operand(op.inputs, 0), "input", None, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    if y.dtype != "float32":
        raise _Unsupported(f"the float32 STRIDED_SLICE takes float32 operands only; got input {x.dtype}, "
                           f"output {y.dtype} (TFLite has no kernel for this mix of types)")
    return _strided_slice(model, op, "float32")


def _f32_output(model: Model, op: Operator) -> None:
    x = model.tensors[op.inputs[1] if op.type == "SPLIT" else op.inputs[0]]
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    if y.dtype != "float32":
        raise _Unsupported(f"the float32 {op.type} takes float32 operands only; got input {x.dtype}, output "
                           f"{y.dtype} (TFLite has no kernel for this mix of types)")


def _transpose_f32(model: Model, op: Operator) -> tuple:
    _f32_output(model, op)
    return _transpose(model, op, "float32")


def _split_f32(model: Model, op: Operator) -> tuple:
    """One output of a float32 SPLIT or SPLIT_V: the float32 STRIDED_SLICE copy of its piece."""
    _f32_output(model, op)
    return _split(model, op, "float32")


def _transpose_conv_f32(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """float32 TRANSPOSE_CONV: the int8 row's Prepare checks and geometry, float32 weights and
    the optional float32 bias."""
    names = ("output_shape", "weights", "input", "bias")[:max(3, len(op.inputs))]
    types = [model.tensors[t].dtype if t >= 0 else "omitted" for t in op.inputs[1:]] + \
        [model.tensors[op.outputs[0]].dtype]
    if any(t not in ("float32", "omitted") for t in types):
        got = ", ".join(f"{n} {t}" for n, t in zip(names[1:] + ("output",), types))
        raise _Unsupported(f"the float32 TRANSPOSE_CONV takes float32 operands only; got {got} (TFLite has no "
                           "kernel for this mix of types)")
    x, w, y, geometry = _transpose_conv_operands(model, op, "float32", "float32")
    oc = geometry["output_c"]
    b = _tensor(model, op.inputs[3], "bias", "float32", constant=True) if len(op.inputs) > 3 and op.inputs[3] >= 0 \
        else None
    spec = {**geometry, "has_bias": int(b is not None), **_activation_f32(op)}
    return spec, (x.index,), w.data, _bias_f32(b, oc)


#: The float32 rows' lowering, chosen by _types_of where the op's activations are float32.
#: The fused activations of the float32 SVDF by name (the C enum ap_rnn_f32_act).
_RNN_F32_ACTIVATIONS = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3, "TANH": 4}


def _svdf_f32(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """float32 SVDF (LiteRT's EvalFloatSVDF, TensorFlow Lite Micro's EvalFloatSvdfReference):
    input [batches, input_size], weights_feature [filters, input_size], weights_time [filters,
    memory], the optional bias [units], the state a float32 variable tensor [batches, filters *
    memory]; the rule sets the summation order of the bias and the activations' forms.
    RELU_N1_TO_1 runs under "tflm" only (LiteRT's ActivationFunctor has none); SIGN_BIT nowhere."""
    if len(op.inputs) != 5:
        raise _Unsupported(f"SVDF takes 5 inputs (input, weights_feature, weights_time, bias, state), "
                           f"got {len(op.inputs)}")
    x, wf, wt, b, state = [None if i < 0 else model.tensors[i] for i in op.inputs]
    y = model.tensors[_operand(op.outputs, 0)]
    named = (("input", x), ("weights_feature", wf), ("weights_time", wt), ("bias", b), ("state", state),
             ("output", y))
    for label, t in named:
        if t is None and label != "bias":
            raise _Unsupported(f"the {label} operand is missing")
    if any(t is not None and t.dtype != "float32" for _, t in named):
        types = ", ".join(f"{label} {t.dtype if t is not None else 'omitted'}" for label, t in named)
        raise _Unsupported(f"the float32 SVDF takes float32 operands only; got {types} (TFLite's hybrid "
                           "SVDF with int8 weights is not supported)")
    if x.is_constant or x.is_variable:
        raise _Unsupported(f"input tensor {x.index} ({x.name!r}) must be an activation")
    for label, t in (("weights_feature", wf), ("weights_time", wt), ("bias", b)):
        if t is not None and not t.is_constant:
            raise _Unsupported(f"{label} tensor {t.index} ({t.name!r}) must be a constant")
    batches, input_size, filters, memory, rank, units = _svdf_shapes(model, op, x, wf, wt, state, y)
    inputs = [x.index, wf.index, wt.index]
    if b is not None:
        if b.data.size != units:
            raise _Unsupported(f"bias tensor {b.index} has {b.data.size} values for {units} units")
        inputs.append(b.index)
    act = op.options.get("fused_activation_function", "NONE")
    if act not in _RNN_F32_ACTIVATIONS or (act == "RELU_N1_TO_1" and reference != "tflm"):
        runs = "NONE, RELU, RELU6, TANH" + (", RELU_N1_TO_1" if reference == "tflm" else
                                             "; RELU_N1_TO_1 under reference='tflm'")
        raise _Unsupported(f"fused activation {act}: the float32 SVDF runs {runs}")
    spec = {"batches": batches, "input_size": input_size, "filters": filters, "memory": memory,
            "rank": int(rank), "activation": _RNN_F32_ACTIVATIONS[act], "reference": REFERENCES[reference]}
    return spec, tuple(inputs), None, None, (state.index,)


#: UNIDIRECTIONAL_SEQUENCE_LSTM's operands TensorFlow Lite Micro's float LSTM leaves out.
_LSTM_F32_ABSENT = {9: "cell-to-input peephole weights", 10: "cell-to-forget peephole weights",
                    11: "cell-to-output peephole weights", 16: "projection weights", 17: "projection bias",
                    20: "input layer-norm coefficients", 21: "forget layer-norm coefficients",
                    22: "cell layer-norm coefficients", 23: "output layer-norm coefficients"}


def _lstm_f32(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """float32 UNIDIRECTIONAL_SEQUENCE_LSTM as TensorFlow Lite Micro runs it: input [batches,
    time, input_size] (or time-major), the four input and four recurrent weight matrices, the four
    gate biases, the output and cell states as float32 variable tensors; TANH activation, an
    optional cell clip. Peepholes, projection, layer norm and CIFG (no input gate), which
    TensorFlow Lite Micro's LSTM does not run, are refused."""
    ins = _lstm_inputs(op, "float")
    named = [("input", 0)] + [(f"{a}-to-{g} weights", k) for a, base in (("input", 1), ("recurrent", 5))
                              for g, k in zip(("input", "forget", "cell", "output"), range(base, base + 4))]
    named += [(f"{g} gate bias", 12 + i) for i, g in enumerate(("input", "forget", "cell", "output"))]
    named += [("output state", 18), ("cell state", 19)]
    found = []
    for what, k in named:
        if ins[k] < 0:
            hint = " (CIFG, no input gate, is not supported)" if k in (1, 5, 12) else ""
            raise _Unsupported(f"the {what} operand (input {k}) is missing{hint}")
        found.append(model.tensors[ins[k]])
    y = model.tensors[_operand(op.outputs, 0)]
    if any(t.dtype != "float32" for t in found + [y]):
        types = ", ".join(f"{what} {t.dtype}" for (what, _), t in zip(named + [("output", -1)], found + [y]))
        raise _Unsupported(f"the float32 LSTM takes float32 operands only; got {types} (TFLite's hybrid "
                           "LSTM with int8 weights is not supported)")
    x, weights, biases, h, c = found[0], found[1:9], found[9:13], found[13], found[14]
    if x.is_constant or x.is_variable:
        raise _Unsupported(f"input tensor {x.index} ({x.name!r}) must be an activation")
    for (what, _), t in zip(named[1:13], weights + biases):
        if not t.is_constant:
            raise _Unsupported(f"{what} tensor {t.index} ({t.name!r}) must be a constant")
    time_major, steps, batches, depth, cells = _lstm_layout(op, x, weights[0], h, c, "float")
    for (what, _), t in zip(named[1:13], weights + biases):
        want = (cells, depth) if "input-to" in what else (cells, cells) if "recurrent" in what else (cells,)
        if tuple(int(d) for d in t.shape) != want:
            raise _Unsupported(f"{what} tensor {t.index} has shape {tuple(t.shape)}; {want} expected")
    for what, t in (("output state", h), ("cell state", c)):
        if int(np.prod(t.shape)) != batches * cells:
            raise _Unsupported(f"{what} tensor {t.index} has shape {tuple(t.shape)}; [{batches}, {cells}] expected")
    _expect_shape(model, y.index, (steps, batches, cells) if time_major else (batches, steps, cells), "output")
    clip = float(np.float32(op.options.get("cell_clip", 0.0) or 0.0))
    if not math.isfinite(clip) or clip < 0:
        raise _Unsupported(f"cell_clip {clip} must be finite and >= 0")
    spec = {"batches": batches, "time_steps": steps, "input_size": depth, "cell_size": cells,
            "time_major": int(time_major), "cell_clip": clip, "reference": REFERENCES[reference]}
    inputs = (x.index,) + tuple(t.index for t in weights + biases)
    return spec, inputs, None, None, (h.index, c.index)


def _lstm_inputs(op: Operator, kind: str) -> List[int]:
    """The LSTM's operand list: 20 or 24 of them, none of the peephole, projection and layer-norm
    operands present (TensorFlow Lite Micro's ``kind`` LSTM, "float" or "integer", runs without)."""
    ins = list(op.inputs)
    if len(ins) not in (20, 24):
        raise _Unsupported(f"UNIDIRECTIONAL_SEQUENCE_LSTM takes 20 or 24 inputs, got {len(ins)}")
    for k, what in _LSTM_F32_ABSENT.items():
        if k < len(ins) and ins[k] >= 0:
            raise _Unsupported(f"{what} (input {k}): TensorFlow Lite Micro's {kind} LSTM runs without "
                               "peepholes, projection and layer norm; so does arenaplan's")
    return ins


def _lstm_layout(op: Operator, x: Tensor, w0: Tensor, h: Tensor, c: Tensor, kind: str) -> tuple:
    """The checks the float32 and 16x8 LSTM lowerings share: the states are variable tensors,
    TANH, no diagonal recurrent weights, a 3-D input; returns (time_major, steps, batches,
    depth, cells), cells from the first input-to-gate weights ``w0``. ``kind`` names TensorFlow
    Lite Micro's kernel in the refusal ("float", "integer")."""
    for what, t in (("output state", h), ("cell state", c)):
        if not t.is_variable:
            raise _Unsupported(f"{what} tensor {t.index} ({t.name!r}) is not a variable tensor; TFLite keeps "
                               "the LSTM's states in them")
    act = op.options.get("fused_activation_function", "TANH")
    if act != "TANH":
        raise _Unsupported(f"fused activation {act}: TensorFlow Lite Micro's {kind} LSTM runs TANH only")
    if op.options.get("diagonal_recurrent_tensors", False):
        raise _Unsupported("diagonal recurrent weights are not supported")
    if len(x.shape) != 3:
        raise _Unsupported(f"input tensor {x.index} has shape {tuple(x.shape)}; 3-D expected")
    time_major = bool(op.options.get("time_major", False))
    if time_major:
        steps, batches, depth = (int(d) for d in x.shape)
    else:
        batches, steps, depth = (int(d) for d in x.shape)
    cells = int(w0.shape[0]) if len(w0.shape) == 2 else -1
    if min(steps, batches, depth, cells) < 1:
        raise _Unsupported(f"empty tensors: input {tuple(x.shape)}, weights {tuple(w0.shape)}")
    return time_major, steps, batches, depth, cells


#: Cell-state scales 2^p the 16x8 LSTM takes: TensorFlow Lite Micro's tanh of the cell state
#: multiplies it by 3 << (12 + p) (in int32 for p <= 2) or shifts it right by -(12 + p) (<= 31).
_LSTM_16X8_CELL_POWERS = (-43, 2)


def _lstm_16x8(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """16x8 UNIDIRECTIONAL_SEQUENCE_LSTM as TensorFlow Lite Micro runs it (its integer LSTM with
    int16 activations, int8 weights, int64 biases and an int16 cell state; LiteRT's LSTM takes
    int8 or float32 inputs only, so this row runs under the rule "tflm" alone). Operands as the
    float32 LSTM's (peepholes, projection, layer norm and CIFG refused naming the operand);
    input, output state and output int16 with zero point 0, weights int8 with one scale and zero
    point 0, biases int64, the cell state int16. The integers as TensorFlow Lite Micro's Prepare
    derives them: each gate's two FullyConnected multipliers QuantizeMultiplier(double(input or
    output state scale) * double(weight scale) / 2^-12), the inter-gate Mul multipliers of
    2^-15 * cell / cell, 2^-15 * 2^-15 / cell and 2^-15 * 2^-15 / output state (double), the
    cell tanh's input scaling from the rounded log2 of the cell scale (CheckedLog2, not
    required to be exact) and the clip trunc(double(cell_clip) / double(cell scale)), applied
    whenever cell_clip > 0."""
    if reference != "tflm":
        raise _Unsupported("int16 activations: LiteRT's UNIDIRECTIONAL_SEQUENCE_LSTM runs int8 and float32 "
                           "inputs only; TensorFlow Lite Micro's runs the 16x8 one (plan with reference='tflm')")
    ins = _lstm_inputs(op, "integer")
    gates = ("input", "forget", "cell", "output")
    for k in (1, 5, 12):
        if ins[k] < 0:
            raise _Unsupported(f"the {gates[0]} gate's {'bias' if k == 12 else 'weights'} operand (input {k}) "
                               "is missing: CIFG (no input gate) is not supported")
    x = _tensor(model, ins[0], "input", "int16", constant=False)
    xs = _int16_scale(x, "input")
    wx = [_tensor(model, ins[1 + g], f"input-to-{gates[g]} weights", "int8", constant=True) for g in range(4)]
    wh = [_tensor(model, ins[5 + g], f"recurrent-to-{gates[g]} weights", "int8", constant=True) for g in range(4)]
    bias = [_tensor(model, ins[12 + g], f"{gates[g]} gate bias", "int64", constant=True) for g in range(4)]
    h = _tensor(model, ins[18], "output state", "int16", constant=False, variable=True)
    c = _tensor(model, ins[19], "cell state", "int16", constant=False, variable=True)
    y = _tensor(model, _operand(op.outputs, 0), "output", "int16", constant=False)
    time_major, steps, batches, depth, cells = _lstm_layout(op, x, wx[0], h, c, "integer")
    for t, want in [(t, (cells, depth)) for t in wx] + [(t, (cells, cells)) for t in wh] + [(t, (cells,)) for t in bias]:
        if tuple(int(d) for d in t.shape) != want:
            raise _Unsupported(f"tensor {t.index} ({t.name!r}) has shape {tuple(t.shape)}; {want} expected")
    for what, t in (("output state", h), ("cell state", c)):
        if int(np.prod(t.shape)) != batches * cells:
            raise _Unsupported(f"{what} tensor {t.index} has shape {tuple(t.shape)}; [{batches}, {cells}] expected")
    _expect_shape(model, y.index, (steps, batches, cells) if time_major else (batches, steps, cells), "output")
    hs = _int16_scale(h, "output state")
    cs, cz = _per_tensor(c, "cell state")
    if cz != 0:
        raise _Unsupported(f"cell state tensor {c.index} ({c.name!r}) has zero point {cz}; TensorFlow Lite "
                           "Micro's integer LSTM reads the cell state as symmetric")
    f32, q12, q15 = np.float32, 2.0 ** -12, 2.0 ** -15

    def multiplier(real: float, what: str, max_shift: int) -> Tuple[int, int]:
        m, e = quantize_multiplier(real)
        if e > max_shift:
            raise _Unsupported(f"the {what} multiplier {real:g} is too large (shift {e} > {max_shift}): the "
                               "scales are out of TFLite's range")
        return m, e

    spec: Dict[str, object] = {"batches": batches, "time_steps": steps, "input_size": depth, "cell_size": cells,
                               "time_major": int(time_major)}
    for key, ts, scale_in in (("input", wx, xs), ("recurrent", wh, hs)):
        pairs = [multiplier(float(f32(scale_in)) * float(f32(_symmetric(t, f"{key}-to-{gates[g]} weights"))) / q12,
                            f"{gates[g]} gate's {key}", 7) for g, t in enumerate(ts)]
        spec[f"{key}_multiplier"] = [m for m, _ in pairs]
        spec[f"{key}_shift"] = [e for _, e in pairs]
    cs64, hs64 = float(f32(cs)), float(f32(hs))
    for key, real in (("forget", q15 * cs64 / cs64), ("input_gate", q15 * q15 / cs64), ("hidden", q15 * q15 / hs64)):
        spec[f"{key}_multiplier"], spec[f"{key}_shift"] = multiplier(real, key.replace("_", " "), 30)
    with np.errstate(all="ignore"):   # CheckedLog2 in float; TensorFlow Lite Micro uses the rounding
        power = int(np.round(f32(np.log(f32(cs))) * (f32(1.0) / f32(np.log(f32(2.0))))))
    lo, hi = _LSTM_16X8_CELL_POWERS
    if not lo <= power <= hi:
        raise _Unsupported(f"cell state scale {cs:g} (about 2^{power}) is outside 2^{lo}..2^{hi}, where TFLite's "
                           "int16 tanh of the cell state is defined")
    shift = 12 + power
    spec["cell_tanh_multiplier"], spec["cell_tanh_shift"] = (3, -shift) if shift < 0 else (3 << shift, 0)
    clip = float(f32(op.options.get("cell_clip", 0.0) or 0.0))
    if not math.isfinite(clip) or clip < 0:
        raise _Unsupported(f"cell_clip {clip} must be finite and >= 0")
    spec["cell_clip"] = int(min(max(clip / cs64, -32768.0), 32767.0)) if clip > 0 else -1
    inputs = (x.index,) + tuple(t.index for t in wx + wh + bias)
    return spec, inputs, None, None, (h.index, c.index)


_LOWER_F32: Dict[str, Callable[..., tuple]] = {
    "FULLY_CONNECTED": _fully_connected_f32, "CONV_2D": _conv2d_f32, "DEPTHWISE_CONV_2D": _depthwise_conv2d_f32,
    "ADD": _binary_f32, "SUB": _binary_f32, "MUL": _binary_f32,
    "RESHAPE": _reshape_f32, "SQUEEZE": _reshape_f32, "EXPAND_DIMS": _reshape_f32,
    "LOGISTIC": _unary_f32, "TANH": _unary_f32, "RELU": _unary_f32, "RELU6": _unary_f32,
    "RELU_N1_TO_1": _unary_f32, "SOFTMAX": _softmax_f32, "AVERAGE_POOL_2D": _pool_f32, "MAX_POOL_2D": _pool_f32,
    "PAD": _pad_f32, "PADV2": _pad_f32, "CONCATENATION": _concatenation_f32, "MEAN": _mean_f32,
    "STRIDED_SLICE": _strided_slice_f32, "LEAKY_RELU": _unary_f32, "HARD_SWISH": _unary_f32,
    "TRANSPOSE": _transpose_f32, "SPLIT": _split_f32, "SPLIT_V": _split_f32, "TRANSPOSE_CONV": _transpose_conv_f32,
    **{name: _math_f32 for name in _MATH_F32}, "SVDF": _svdf_f32,
    **{name: _binary_f32_plain for name in ("MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "PRELU")},
    **{name: _reduce_f32 for name in _REDUCE_F32},
    **{name: (lambda model, op: _batch_space(model, op, "float32")) for name in ("BATCH_TO_SPACE_ND",
                                                                                 "SPACE_TO_BATCH_ND")},
    "MIRROR_PAD": lambda model, op: _mirror_pad(model, op, "float32"),
    "RESIZE_NEAREST_NEIGHBOR": lambda model, op: _resize_nearest(model, op, "float32"),
    "RESIZE_BILINEAR": _resize_bilinear_f32,
    "UNIDIRECTIONAL_SEQUENCE_LSTM": _lstm_f32,
}


#: The 16x8 rows' lowering, chosen by _types_of.
_LOWER_S16X8: Dict[str, Callable[[Model, Operator], tuple]] = {
    "CONV_2D": _conv2d_16x8, "DEPTHWISE_CONV_2D": _depthwise_conv2d_16x8,
    "FULLY_CONNECTED": _fully_connected_16x8, "ADD": _add_sub_16x8, "SUB": _add_sub_16x8,
    "PAD": _pad_16x8, "PADV2": _pad_16x8, "QUANTIZE": _quantize_16x8, "DEQUANTIZE": _dequantize_16x8,
    "TRANSPOSE_CONV": _transpose_conv_16x8, "RESHAPE": _reshape_16x8, "SQUEEZE": _reshape_16x8,
    "EXPAND_DIMS": _reshape_16x8, "STRIDED_SLICE": _strided_slice_16x8, "SPLIT": _split_16x8,
    "SPLIT_V": _split_16x8, "TRANSPOSE": _transpose_16x8, "CONCATENATION": _concatenation_16x8,
    "LEAKY_RELU": _leaky_relu_16x8, "AVERAGE_POOL_2D": _pool_16x8, "MAX_POOL_2D": _pool_16x8,
    "MUL": _mul_16x8, "RELU": _relu_16x8, "RELU6": _relu_16x8, "MEAN": _mean_16x8,
    "SOFTMAX": _softmax_16x8, "LOGISTIC": _logistic_16x8, "TANH": _logistic_16x8,
    "UNIDIRECTIONAL_SEQUENCE_LSTM": _lstm_16x8,
    "MAXIMUM": _maximum_minimum_16x8, "MINIMUM": _maximum_minimum_16x8, "ABS": _abs_16x8,
    "RESIZE_NEAREST_NEIGHBOR": lambda model, op: _resize_nearest(model, op, "int16"),
    "BROADCAST_TO": lambda model, op: _broadcast_to(model, op, "int16"),
    "SQUARED_DIFFERENCE": _squared_difference_16x8, "SUM": _sum_16x8,
}


# --- bool and int32 tensors: comparisons, logical ops, ARG_MAX / ARG_MIN, GATHER, SELECT_V2 ---
#: Row types by the element type of an op's data input (AP_TYPES_S8, _F32, _S32, _BOOL).
_DATA_TYPES = {"int8": "s8", "float32": "f32", "int32": "s32", "bool": "bool", "int16": "s16x8", "int64": "s64",
               "uint8": "u8"}
_COMPARISONS = ("EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL")
#: The ops whose row is chosen by their data input's element type: (that input's position, the
#: element types their rows take). TensorFlow Lite's kernels have these and more (int16, int64,
#: uint8, string); the rest are refused naming the type.
_TYPED: Dict[str, Tuple[int, Tuple[str, ...]]] = {
    **{op: (0, ("int8", "float32", "int32", "int64", "int16") + (("bool",) if op in ("EQUAL", "NOT_EQUAL") else ()))
       for op in _COMPARISONS},
    "LOGICAL_AND": (0, ("bool",)), "LOGICAL_OR": (0, ("bool",)), "LOGICAL_NOT": (0, ("bool",)),
    "ARG_MAX": (0, ("int8", "float32", "int32")), "ARG_MIN": (0, ("int8", "float32", "int32")),
    "GATHER": (0, ("int8", "float32", "int32", "bool")),
    "SELECT_V2": (1, ("int8", "float32", "int32", "bool", "int16")),
    "CAST": (0, ("int8", "float32", "int32", "bool", "int16")), "ZEROS_LIKE": (0, ("float32", "int32", "int64", "int8")),
    "FILL": (1, ("int8", "float32", "int32", "bool")),
    "FLOOR_DIV": (0, ("float32", "int32")), "FLOOR_MOD": (0, ("float32", "int32")), "ADD_N": (0, ("float32", "int32", "int8")),
    "EMBEDDING_LOOKUP": (1, ("int8", "float32")),
    "L2_NORMALIZATION": (0, ("int8", "float32")), "L2_POOL_2D": (0, ("float32",)),
    "LOG_SOFTMAX": (0, ("int8", "float32")), "CUMSUM": (0, ("int8", "float32")),
    "BATCH_MATMUL": (0, ("int8", "int16", "float32")), "GATHER_ND": (0, ("int8", "float32", "int32")),
    "DIV": (0, ("int8", "float32", "int32")),
    "REVERSE_V2": (0, ("int8", "float32", "int32", "bool", "int16", "int64", "uint8")), "REDUCE_ALL": (0, ("bool",)),
    # the ops that move values as they are, a row per type TensorFlow Lite Micro's kernels take
    # (arenaplan.ops.tflm_types): the slices, splits, concatenations and broadcasts
    **{op: (0, ("int8", "int16", "float32", "int32", "bool"))
       for op in ("STRIDED_SLICE", "SLICE", "CONCATENATION")},
    "BROADCAST_TO": (0, ("int8", "int16", "float32", "int32", "bool", "uint8")),
    "SPLIT": (1, ("int8", "int16", "float32", "int32")), "SPLIT_V": (0, ("int8", "int16", "float32", "int32")),
    "UNPACK": (0, ("int8", "int16", "float32", "int32")), "PACK": (0, ("int8", "int16", "float32", "int32")),
    "DEPTH_TO_SPACE": (0, ("int8", "float32")), "SPACE_TO_DEPTH": (0, ("int8", "float32")),
}


def _data_type(model: Model, op: Operator) -> str:
    """The element type of ``op``'s data input, refused where the op has no row for it."""
    at, allowed = _TYPED[op.type]
    t = _operand(op.inputs, at)
    if t < 0:
        raise _Unsupported(f"input {at} is missing")
    dtype = model.tensors[t].dtype
    if dtype not in allowed:
        why = _NO_ROW_WHY.get((op.type, dtype), "")
        raise _Unsupported(f"input {at} (tensor {t}) is {dtype}; arenaplan's {op.type} takes "
                           f"{', '.join(allowed)}{why}")
    return dtype


#: Why a type TFLite takes has no row, where the reason is the runtimes' own.
_NO_ROW_WHY: Dict[Tuple[str, str], str] = {}

#: Why an int16 comparison does not run under "tflm" (it runs under "litert", LiteRT's kernels).
_S16_COMPARE_TFLM_WHY = ("TensorFlow Lite Micro's int16 GREATER rescales with params its Prepare sets for int8 "
                         "only, so its outputs depend on the arena's earlier bytes; its other comparisons take no "
                         "int16. arenaplan runs LiteRT's int16 comparisons: plan with reference \"litert\"")


def _broadcast4(model: Model, shapes: Sequence[Sequence[int]], y: Tensor) -> List[List[int]]:
    """Operand shapes broadcast as TFLite's 4-D kernels do (right-aligned, rank <= 4), the output
    that shape; each right-aligned to four axes, then the output's."""
    try:
        out = tuple(int(d) for d in np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        raise _Unsupported(f"shapes {' and '.join(str(tuple(s)) for s in shapes)} do not broadcast") from None
    if len(out) > 4:
        raise _Unsupported(f"the broadcast shape {out} has rank {len(out)}; at most 4 is supported")
    if tuple(int(d) for d in y.shape) != out:
        raise _Unsupported(f"output tensor {y.index} has shape {tuple(y.shape)}, the op computes {out}")
    return [_shape4([1] * (len(out) - len(s)) + [int(d) for d in s], f"operand {i}") for i, s in enumerate(shapes)] + \
        [_shape4(out, "output")]


def _compare(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """The comparisons with their Prepare (LiteRT's and TFLite Micro's alike): two inputs of one
    type, a bool output; int8 inputs rescaled by QuantizeMultiplierSmallerThanOneExp of each
    scale (which TFLite requires below 1) with a left shift of 8; int16, int32, int64, float32
    and bool compared as stored. int16 runs LiteRT's kernels, under "litert" only: its EQUAL and
    NOT_EQUAL rescale as int8's do (LiteRT 2.3 sends int16 through the int8 rescaling), its
    GREATER, GREATER_EQUAL, LESS and LESS_EQUAL compare the stored values (zero points and scales
    unread). LOGICAL_AND / LOGICAL_OR / LOGICAL_NOT: bool in and out."""
    dtype = _data_type(model, op)
    if dtype == "int16" and reference == "tflm":
        raise _Unsupported(f"input 0 is int16; {_S16_COMPARE_TFLM_WHY}")
    unary = op.type == "LOGICAL_NOT"
    a = _tensor(model, _operand(op.inputs, 0), "input1", dtype)
    b = a if unary else _tensor(model, _operand(op.inputs, 1), "input2", None)
    if b.dtype != dtype:
        raise _Unsupported(f"input2 tensor {b.index} is {b.dtype}, input1 {dtype}; TFLite requires one type")
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    if y.dtype != "bool":
        raise _Unsupported(f"output tensor {y.index} is {y.dtype}; {op.type} writes bool")
    if a.is_constant and b.is_constant:
        raise _Unsupported("both inputs are constants (a converter folds such an op)")
    s1, s2, so = _broadcast4(model, [a.shape, b.shape], y)
    spec = {"input1_shape": s1, "input2_shape": s2, "output_shape": so, "left_shift": 0, "input1_offset": 0,
            "input1_multiplier": 0, "input1_shift": 0, "input2_offset": 0, "input2_multiplier": 0,
            "input2_shift": 0}
    if dtype == "int8" or (dtype == "int16" and op.type in ("EQUAL", "NOT_EQUAL")):
        spec["left_shift"] = 8
        for k, (t, what) in enumerate(((a, "input1"), (b, "input2")), 1):
            scale, zp = _per_tensor(t, what)
            if not scale < 1.0:
                raise _Unsupported(f"{what} tensor {t.index} has scale {scale}; TFLite's {dtype} {op.type} "
                                   "requires a scale below 1 (QuantizeMultiplierSmallerThanOneExp)")
            m, sh = quantize_multiplier(scale)
            spec[f"input{k}_offset"], spec[f"input{k}_multiplier"], spec[f"input{k}_shift"] = -zp, m, sh
    ins = (a.index,) if unary else (a.index, b.index)
    return spec, ins, None, None


def _constant_axis(model: Model, op: Operator, position: int, rank: int) -> int:
    t = _tensor(model, _operand(op.inputs, position), "axis", None, constant=True)
    if t.dtype not in ("int32", "int64") or np.asarray(t.data).size != 1:
        raise _Unsupported(f"axis tensor {t.index} must be one int32 or int64 value; it is {t.dtype} "
                           f"{tuple(t.shape)}")
    axis = int(np.asarray(t.data).reshape(-1)[0])
    if not -rank <= axis < rank:
        raise _Unsupported(f"axis {axis} is outside [{-rank}, {rank}) for an input of rank {rank}")
    return axis % rank


def _arg_minmax(model: Model, op: Operator) -> tuple:
    """ARG_MAX / ARG_MIN (TFLite's reference ArgMinMax): the axis a constant, negative counted
    from the end; the output the input's shape without that axis, int32 or int64 as the
    options' output_type says."""
    dtype = _data_type(model, op)
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    rank = len(x.shape)
    if rank < 1:
        raise _Unsupported("the input is a scalar; TFLite's ArgMinMax needs an axis to reduce")
    axis = _constant_axis(model, op, 1, rank)
    want = {2: "int32", 4: "int64"}.get(op.options.get("output_type"), y.dtype)
    if y.dtype not in ("int32", "int64") or y.dtype != want:
        raise _Unsupported(f"output tensor {y.index} is {y.dtype} (output_type {want}); TFLite writes int32 or int64 "
                           "as output_type says")
    shape = [int(d) for d in x.shape]
    out = shape[:axis] + shape[axis + 1:]
    _expect_shape(model, y.index, out, "output")
    if min(shape) < 1:
        raise _Unsupported(f"input shape {tuple(shape)} has an empty dimension")
    return ({"outer": int(np.prod(shape[:axis], dtype=np.int64)), "axis_size": shape[axis],
             "inner": int(np.prod(shape[axis + 1:], dtype=np.int64)), "output_type": DTYPE_CODES[y.dtype]},
            (x.index,), None, None)


def _gather(model: Model, op: Operator) -> tuple:
    """GATHER (TFLite's reference Gather): params int8, float32, int32 or bool (activation or
    constant), int32 indices, the axis option negative counted from the end; batch_dims
    (negative counted from the indices' rank) leading dimensions that params and indices share,
    with TFLite's Prepare checks (0 <= batch_dims <= axis, batch_dims below params' rank and at
    most the indices'); the output params.shape[:axis] + indices.shape[batch_dims:] +
    params.shape[axis + 1:], of params' type. Constant indices are checked here; others by the
    kernel, which fails the run on one out of range."""
    dtype = _data_type(model, op)
    x = _tensor(model, _operand(op.inputs, 0), "params", dtype)
    idx = _tensor(model, _operand(op.inputs, 1), "indices", None)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    if idx.dtype != "int32":
        raise _Unsupported(f"indices tensor {idx.index} is {idx.dtype}; arenaplan's GATHER takes int32 indices")
    if x.is_constant and idx.is_constant:
        raise _Unsupported("params and indices are constants (a converter folds such an op)")
    shape = [int(d) for d in x.shape]
    ishape = [int(d) for d in idx.shape]
    rank = len(shape)
    axis = int(op.options.get("axis", 0))
    if not -rank <= axis < rank:
        raise _Unsupported(f"axis {axis} is outside [{-rank}, {rank}) for params of rank {rank}")
    axis %= rank
    given = int(op.options.get("batch_dims", 0))
    batch_dims = given + len(ishape) if given < 0 else given
    if not 0 <= batch_dims <= axis or batch_dims >= rank or batch_dims > len(ishape):
        raise _Unsupported(f"batch_dims {given} (resolved {batch_dims}) must lie in [0, axis {axis}], below params' "
                           f"rank {rank} and at most the indices' rank {len(ishape)} (TFLite's Gather Prepare)")
    if shape[:batch_dims] != ishape[:batch_dims]:
        raise _Unsupported(f"params {tuple(shape)} and indices {tuple(ishape)} differ in their first "
                           f"{batch_dims} (batch) dimensions")
    out = shape[:axis] + ishape[batch_dims:] + shape[axis + 1:]
    if tuple(int(d) for d in y.shape) != tuple(out):
        raise _Unsupported(f"output tensor {y.index} has shape {tuple(y.shape)}, the op computes {tuple(out)}")
    if min(shape + ishape, default=1) < 1:
        raise _Unsupported(f"params {tuple(shape)} or indices {tuple(ishape)} have an empty dimension")
    if idx.is_constant:
        v = np.asarray(idx.data).reshape(-1)
        bad = np.flatnonzero((v < 0) | (v >= shape[axis]))
        if bad.size:
            raise _Unsupported(f"index {int(v[bad[0]])} (element {int(bad[0])} of the constant indices) is outside "
                               f"[0, {shape[axis]})")
    return ({"outer": int(np.prod(shape[batch_dims:axis], dtype=np.int64)), "axis_size": shape[axis],
             "inner": int(np.prod(shape[axis + 1:], dtype=np.int64)),
             "coords": int(np.prod(ishape[batch_dims:], dtype=np.int64)),
             "batches": int(np.prod(shape[:batch_dims], dtype=np.int64))}, (x.index, idx.index), None, None)


#: Highest input rank of REVERSE_V2 by the rounding rule: LiteRT's kernel takes 8, TensorFlow
#: Lite Micro's RuntimeShape::kMaxSmallSize (6); each refuses a higher one at Prepare.
_REVERSE_MAX_RANK = {"litert": 8, "tflm": 6}


def _constant_axes(model: Model, op: Operator, position: int) -> Tuple[Tensor, List[int]]:
    """An op's constant int32 axes tensor (rank 0 or 1) and its values as stored."""
    t = _operand(op.inputs, position)
    empty = t >= 0 and 0 in tuple(int(d) for d in model.tensors[t].shape)
    a = _tensor(model, t, "axes", None, constant=None if empty else True)   # (an empty file buffer: no data)
    if a.dtype != "int32":
        raise _Unsupported(f"axes tensor {a.index} is {a.dtype}; TFLite's {op.type} takes int32 axes")
    return a, [] if empty else [int(v) for v in np.asarray(a.data).reshape(-1)]


def _reverse_v2(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """REVERSE_V2 (TFLite's reference Reverse, LiteRT's and TensorFlow Lite Micro's alike) on
    int8, int16, float32, int32, int64 or bool, values copied as stored: the axes a constant int32
    vector of 1 to rank elements (Prepare refuses more), each in [-rank, rank), distinct and
    contiguous once sorted (both kernels fail the run otherwise, a repeat counting as a gap); an
    empty axes vector is refused (both kernels read before its start); rank at most 8 under
    "litert", 6 under "tflm"; the output the input's type and shape."""
    dtype = _data_type(model, op)
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    if y.dtype != dtype:
        raise _Unsupported(f"output tensor {y.index} is {y.dtype}, the input {dtype}; TFLite requires one type")
    shape = [int(d) for d in x.shape]
    rank = len(shape)
    limit = _REVERSE_MAX_RANK[reference]
    if rank > limit:
        raise _Unsupported(f"the input has rank {rank}; {'LiteRT' if reference == 'litert' else 'TensorFlow Lite Micro'}"
                           f"'s REVERSE_V2 takes at most {limit}")
    a, values = _constant_axes(model, op, 1)
    if len(a.shape) != 1:
        raise _Unsupported(f"axes tensor {a.index} has shape {tuple(a.shape)}; TFLite's REVERSE_V2 takes a vector")
    if not values:
        raise _Unsupported(f"axes tensor {a.index} is empty; TFLite's REVERSE_V2 kernels need at least one axis "
                           "(they read before the start of an empty one)")
    if len(values) > rank:
        raise _Unsupported(f"{len(values)} axes for an input of rank {rank}; TFLite's REVERSE_V2 takes at most "
                           "the rank")
    for v in values:
        if not -rank <= v < rank:
            raise _Unsupported(f"axis {v} is out of range for an input of rank {rank} (it must lie in "
                               f"[{-rank}, {rank}))")
    axes = sorted(v % rank for v in values)
    if any(b != a0 + 1 for a0, b in zip(axes, axes[1:])):
        raise _Unsupported(f"axes {values} resolve to {axes}, which are not distinct and contiguous; TFLite's "
                           "REVERSE_V2 kernels refuse them")
    if tuple(int(d) for d in y.shape) != tuple(shape):
        raise _Unsupported(f"output tensor {y.index} has shape {tuple(y.shape)}, the op computes {tuple(shape)}")
    if min(shape, default=1) < 1:
        raise _Unsupported(f"input shape {tuple(shape)} has an empty dimension, so the output is empty; "
                           "TensorFlow Lite Micro's REVERSE_V2 fails to allocate it (LiteRT's gives it, but its "
                           "kernel crashes reversing the first axis of a (2, 0, 3) input)")
    first, last = axes[0], axes[-1]
    return ({"outer": int(np.prod(shape[:first], dtype=np.int64)),
             "middle": int(np.prod(shape[first:last + 1], dtype=np.int64)),
             "inner": int(np.prod(shape[last + 1:], dtype=np.int64))}, (x.index,), None, None)


#: Dimensions REDUCE_ALL's params hold (AP_REDUCE_ALL_MAX_DIMS).
_REDUCE_ALL_DIMS = 8


def _reduce_all(model: Model, op: Operator) -> tuple:
    """REDUCE_ALL on bool (TFLite's ReduceGeneric with logical AND, LiteRT's and TensorFlow Lite
    Micro's alike): the axes a constant int32 tensor of any length (none: a copy), each in
    [-rank, rank), repeats counted once; the output's shape with the reduced axes kept as 1
    (keep_dims) or dropped. Axes of size 1 are dropped and neighbours alike merged, so any rank
    runs whose merged form has at most eight axes."""
    _data_type(model, op)
    x = _tensor(model, _operand(op.inputs, 0), "input", "bool", constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    if y.dtype != "bool":
        raise _Unsupported(f"output tensor {y.index} is {y.dtype}; REDUCE_ALL writes bool")
    shape = [int(d) for d in x.shape]
    rank = len(shape)
    _, values = _constant_axes(model, op, 1)
    axes = set()
    for v in values:
        if not -rank <= v < rank:
            raise _Unsupported(f"axis {v} is out of range for an input of rank {rank} (it must lie in "
                               f"[{-rank}, {rank}))")
        axes.add(v % rank)
    keep = bool(op.options.get("keep_dims", False))
    want = [1 if d in axes else shape[d] for d in range(rank)] if keep else         [shape[d] for d in range(rank) if d not in axes]
    if tuple(int(d) for d in y.shape) != tuple(want):
        raise _Unsupported(f"output tensor {y.index} has shape {tuple(y.shape)}, the op computes {tuple(want)}")
    if any(shape[d] < 1 for d in range(rank) if d not in axes):
        raise _Unsupported(f"input shape {tuple(shape)} has an empty dimension that is not reduced, so the output "
                           f"{tuple(want)} is empty; TensorFlow Lite Micro's REDUCE_ALL fails to allocate it")
    # an empty reduced axis: each output is the AND of nothing, true (LiteRT's and TensorFlow Lite
    # Micro's kernels alike); the input has no bytes
    dims: List[int] = []
    reduce: List[int] = []
    for d in range(rank):
        if shape[d] == 1:
            continue
        flag = int(d in axes)
        if reduce and reduce[-1] == flag:
            dims[-1] *= shape[d]
        else:
            dims.append(shape[d])
            reduce.append(flag)
    if not dims:
        dims, reduce = [1], [0]
    if len(dims) > _REDUCE_ALL_DIMS:
        raise _Unsupported(f"the input {tuple(shape)} over axes {sorted(axes)} alternates kept and reduced axes "
                           f"{len(dims)} times; arenaplan's REDUCE_ALL takes at most {_REDUCE_ALL_DIMS}")
    pad = [0] * (_REDUCE_ALL_DIMS - len(dims))
    return {"rank": len(dims), "dims": dims + [1] * len(pad), "reduce": reduce + pad}, (x.index,), None, None


def _select_v2(model: Model, op: Operator) -> tuple:
    """SELECT_V2 (TFLite's reference Select with broadcasting): a bool condition, x and y of one
    type: int8, int16, float32, int32 or bool (int8 and int16 values copied as stored, whatever
    the quantisations), the output their
    broadcast shape, rank <= 4."""
    dtype = _data_type(model, op)
    c = _tensor(model, _operand(op.inputs, 0), "condition", None)
    if c.dtype != "bool":
        raise _Unsupported(f"condition tensor {c.index} is {c.dtype}; SELECT_V2 takes bool")
    x = _tensor(model, _operand(op.inputs, 1), "x", dtype)
    ytens = _tensor(model, _operand(op.inputs, 2), "y", None)
    if ytens.dtype != dtype:
        raise _Unsupported(f"y tensor {ytens.index} is {ytens.dtype}, x {dtype}; TFLite requires one type")
    out = _tensor(model, _operand(op.outputs, 0), "output", None)
    if out.dtype != dtype:
        raise _Unsupported(f"output tensor {out.index} is {out.dtype}, x {dtype}; TFLite requires one type")
    sc, sx, sy, so = _broadcast4(model, [c.shape, x.shape, ytens.shape], out)
    return ({"condition_shape": sc, "x_shape": sx, "y_shape": sy, "output_shape": so},
            (c.index, x.index, ytens.index), None, None)


#: CAST's output types (ap_dtype values).
_CAST_OUT = {"int8": 0, "int16": 1, "int32": 2, "float32": 4, "bool": 5}


def _elements(shape: Sequence[int], what: str) -> int:
    if any(int(d) < 1 for d in shape):
        raise _Unsupported(f"{what} has shape {tuple(shape)}: every dimension must be at least 1")
    return int(np.prod([int(d) for d in shape], dtype=np.int64))


def _cast(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """CAST (TFLite's Cast) from int8, int16, float32, int32 or bool to int8, int16, int32,
    float32 or bool (the pairs TFLite Micro has); the output the input's shape;
    quantisation is not read. A float32 NaN cast to an integer type is the rule's: LiteRT's
    saturating cast gives the type's maximum, TensorFlow Lite Micro's 0."""
    dtype = _data_type(model, op)
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    if y.dtype not in _CAST_OUT:
        raise _Unsupported(f"output tensor {y.index} is {y.dtype}; arenaplan's CAST writes "
                           f"{', '.join(_CAST_OUT)}")
    if tuple(y.shape) != tuple(x.shape):
        raise _Unsupported(f"output tensor {y.index} has shape {tuple(y.shape)}, the input {tuple(x.shape)}")
    return ({"count": _elements(x.shape, "input"), "output_type": _CAST_OUT[y.dtype],
             "nan_saturates": int(reference == "litert")}, (x.index,), None, None)


def _zeros_like(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """ZEROS_LIKE: zeros of the input's type and shape (the input is not read). int8 under
    "tflm" only: TensorFlow Lite Micro's kernel writes the value 0 (not the zero point), LiteRT's
    takes int32, int64 and float32."""
    dtype = _data_type(model, op)
    if dtype == "int8" and reference != "tflm":
        raise _Unsupported("input 0 is int8; LiteRT's ZEROS_LIKE takes int32, int64 and float32 (TensorFlow Lite "
                           "Micro's takes int8 too: plan with reference=\"tflm\")")
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype)
    _tensor(model, _operand(op.outputs, 0), "output", dtype)
    _expect_shape(model, op.outputs[0], x.shape, "output")
    return {"count": _elements(x.shape, "input")}, (x.index,), None, None


def _fill(model: Model, op: Operator) -> tuple:
    """FILL with its Prepare: dims a constant int32 or int64 vector, value one element (a scalar)
    of the output's type (int8: quantised as the output, as TFLite requires); the output dims."""
    dtype = _data_type(model, op)
    dims_t = _tensor(model, _operand(op.inputs, 0), "dims", None, constant=True)
    if dims_t.dtype not in ("int32", "int64") or len(dims_t.shape) != 1:
        raise _Unsupported(f"dims tensor {dims_t.index} must be an int32 or int64 vector; it is {dims_t.dtype} "
                           f"{tuple(dims_t.shape)}")
    v = _tensor(model, _operand(op.inputs, 1), "value", dtype)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    if len(v.shape) != 0:
        raise _Unsupported(f"value tensor {v.index} has shape {tuple(v.shape)}; TFLite requires a scalar")
    dims = [int(d) for d in np.asarray(dims_t.data).reshape(-1)]
    if tuple(int(d) for d in y.shape) != tuple(dims):
        raise _Unsupported(f"output tensor {y.index} has shape {tuple(y.shape)}, the op computes {tuple(dims)}")
    if dtype == "int8" and _per_tensor(v, "value") != _per_tensor(y, "output"):
        raise _Unsupported(f"value and output are quantised {_per_tensor(v, 'value')} and {_per_tensor(y, 'output')}"
                           "; TFLite's int8 FILL requires them equal")
    return {"count": _elements(dims, "output")}, (v.index,), None, None


def _shape(model: Model, op: Operator) -> tuple:
    """SHAPE: the input's dimensions as int32 or int64 (out_type), written from the params; the
    input (of any type) is not read."""
    x = _tensor(model, _operand(op.inputs, 0), "input", None)
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    want = {2: "int32", 4: "int64"}.get(op.options.get("out_type"), y.dtype)
    if y.dtype not in ("int32", "int64") or y.dtype != want:
        raise _Unsupported(f"output tensor {y.index} is {y.dtype} (out_type {want}); TFLite writes int32 or int64 "
                           "as out_type says")
    rank = len(x.shape)
    if not 1 <= rank <= 8:
        raise _Unsupported(f"the input has rank {rank}; arenaplan's SHAPE takes ranks 1 to 8")
    if tuple(int(d) for d in y.shape) != (rank,):
        raise _Unsupported(f"output tensor {y.index} has shape {tuple(y.shape)}, the op computes ({rank},)")
    dims = [int(d) for d in x.shape]
    return ({"rank": rank, "output_type": DTYPE_CODES[y.dtype], "dims": dims + [0] * (8 - rank)}, (x.index,),
            None, None)


def _floor_div_mod(model: Model, op: Operator) -> tuple:
    """FLOOR_DIV / FLOOR_MOD (TFLite's reference FloorDiv / FloorMod): two inputs of one type
    (float32 or int32), the output that type and their broadcast shape, rank <= 4; a constant
    divisor holding 0 refused where TFLite fails (all but float32 FLOOR_MOD), an activation one
    fails the run."""
    dtype = _data_type(model, op)
    a = _tensor(model, _operand(op.inputs, 0), "input1", dtype)
    b = _tensor(model, _operand(op.inputs, 1), "input2", None)
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    for t, what in ((b, "input2"), (y, "output")):
        if t.dtype != dtype:
            raise _Unsupported(f"{what} tensor {t.index} is {t.dtype}, input1 {dtype}; TFLite requires one type")
    if a.is_constant and b.is_constant:
        raise _Unsupported("both inputs are constants (a converter folds such an op)")
    if (dtype == "int32" or op.type == "FLOOR_DIV") and b.is_constant and (np.asarray(b.data) == 0).any():
        raise _Unsupported(f"the constant divisor (tensor {b.index}) holds 0; TFLite fails a division by zero")
    s1, s2, so = _broadcast4(model, [a.shape, b.shape], y)
    return {"input1_shape": s1, "input2_shape": s2, "output_shape": so}, (a.index, b.index), None, None


def _add_n(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """ADD_N: 2 to 16 inputs of one type (float32 or int32) and one shape, summed in order; float32
    by the rounding rule: TFLite Micro's loop (from 0.0, unclamped) or LiteRT's kernel (from the
    first input, each sum clamped to the finite range: inf becomes FLT_MAX, -0.0 terms sum to
    -0.0)."""
    dtype = _data_type(model, op)
    if not 2 <= len(op.inputs) <= 16:
        raise _Unsupported(f"{len(op.inputs)} inputs; ADD_N takes 2 to 16 here (TFLite: at least 2)")
    ts = [_tensor(model, t, f"input{k}", None) for k, t in enumerate(op.inputs)]
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    for t in ts + [y]:
        if t.dtype != dtype:
            raise _Unsupported(f"tensor {t.index} is {t.dtype}, input0 {dtype}; TFLite requires one type")
        if tuple(t.shape) != tuple(ts[0].shape):
            raise _Unsupported(f"tensor {t.index} has shape {tuple(t.shape)}, input0 {tuple(ts[0].shape)}; ADD_N "
                               "does not broadcast")
    if dtype == "int8":
        return _add_n_s8(ts, y, reference)
    return ({"count": _elements(ts[0].shape, "input0"), "tflm_loop": int(reference == "tflm")},
            tuple(t.index for t in ts), None, None)


def _add_n_s8(ts: List[Tensor], y: Tensor, reference: str) -> tuple:
    """int8 ADD_N, TensorFlow Lite Micro's (LiteRT has none, so under "tflm" only): every input
    quantised as the first (its Prepare's check); left shift 20, the input multiplier of
    s / (2 s) and the output's of 2 s / (2^20 s_out), each QuantizeMultiplierSmallerThanOneExp of
    the double quotient of the float32 scales."""
    if reference != "tflm":
        raise _Unsupported("input0 is int8; LiteRT's ADD_N takes float32 and int32 (TensorFlow Lite Micro's takes "
                           "int8 too: plan with reference=\"tflm\")")
    (s, z), (so, zo) = _per_tensor(ts[0], "input0"), _per_tensor(y, "output")
    for k, t in enumerate(ts[1:], 1):
        if _per_tensor(t, f"input{k}") != (s, z):
            raise _Unsupported(f"input{k} (tensor {t.index}) is quantised {_per_tensor(t, f'input{k}')}, input0 "
                               f"{(s, z)}; TensorFlow Lite Micro's int8 ADD_N requires them equal")
    twice = 2.0 * float(np.float32(s))
    mi, ei = quantize_multiplier(float(np.float32(s)) / twice)
    mo, eo = quantize_multiplier(twice / ((1 << 20) * float(np.float32(so))))
    if ei > 0 or eo > 0:
        raise _Unsupported(f"the output scale {so} is too small for the inputs' {s} (its multiplier exceeds one)")
    return ({"count": _elements(ts[0].shape, "input0"), "input_offset": -z, "output_offset": zo,
             "input_multiplier": mi, "input_shift": ei, "output_multiplier": mo, "output_shift": eo},
            tuple(t.index for t in ts), None, None)


#: CalculateActivationRange<int32_t> by fused activation.
_S32_ACTIVATIONS = {"NONE": (-2 ** 31, 2 ** 31 - 1), "RELU": (0, 2 ** 31 - 1), "RELU_N1_TO_1": (-1, 1), "RELU6": (0, 6)}


def _div(model: Model, op: Operator) -> tuple:
    """DIV by its inputs' type: float32 (the float32 binary row), int8 (_div_s8) or int32 (C's
    truncating division, the activation's int32 range; a constant divisor holding 0 is refused,
    as LiteRT's CheckNonZero fails the run where an activation divisor holds it)."""
    dtype = _data_type(model, op)
    if dtype == "float32":
        return _binary_f32(model, op)
    if dtype == "int8":
        return _div_s8(model, op)
    b = _tensor(model, _operand(op.inputs, 1), "second input", "int32")
    if b.is_constant and (np.asarray(b.data) == 0).any():
        raise _Unsupported(f"the constant divisor (tensor {b.index}) holds 0; TFLite fails a division by zero")
    return _binary_s32(model, op)


def _binary_s32(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """int32 ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM and SQUARED_DIFFERENCE (the last three have no
    activation: the whole range): broadcasting shapes, the activation's int32 range
    (CalculateActivationRange<int32_t>); no quantisation is read (TFLite's int32 kernels take
    the values as they are). TensorFlow Lite Micro's int32 ADD does not apply its fused
    activation (its SUB and MUL do): under "tflm" an int32 ADD's range is the whole int32 one."""
    a, b, y, sa, sb, sy = _broadcast_shapes(model, op, "int32")
    if a.is_constant and b.is_constant:
        raise _Unsupported("both inputs are constants (a converter folds such an op)")
    act = op.options.get("fused_activation_function", "NONE")
    if act not in _S32_ACTIVATIONS:
        raise _Unsupported(f"fused activation {act} is not supported (NONE, RELU, RELU_N1_TO_1, RELU6 are)")
    lo, hi = _S32_ACTIVATIONS["NONE" if op.type == "ADD" and reference == "tflm" else act]
    return ({"input1_shape": sa, "input2_shape": sb, "output_shape": sy, "activation_min": lo,
             "activation_max": hi}, (a.index, b.index), None, None)


def _pad_s32(model: Model, op: Operator) -> tuple:
    """int32 PAD and PADV2: the value 0, or PADV2's constant int32 value (TFLite's int32 kernels
    read no quantisation)."""
    x = _tensor(model, _operand(op.inputs, 0), "input", "int32", constant=False)
    p = _tensor(model, _operand(op.inputs, 1), "paddings", None, constant=True)
    y = _tensor(model, _operand(op.outputs, 0), "output", "int32")
    if p.dtype not in ("int32", "int64"):
        raise _Unsupported(f"paddings tensor {p.index} is {p.dtype}; int32 or int64 is expected")
    pads = np.asarray(p.data, dtype=np.int64).reshape(-1, 2)
    if pads.shape[0] != len(x.shape) or (pads < 0).any():
        raise _Unsupported(f"paddings {pads.tolist()} do not fit an input of rank {len(x.shape)}")
    before = [0] * (4 - len(x.shape)) + [int(v) for v in pads[:, 0]]
    after = [0] * (4 - len(x.shape)) + [int(v) for v in pads[:, 1]]
    _expect_shape(model, y.index, [int(d) + int(a) + int(b) for d, (a, b) in zip(x.shape, pads)], "output")
    value = 0
    if op.type == "PADV2" and len(op.inputs) > 2 and op.inputs[2] >= 0:
        v = _tensor(model, _operand(op.inputs, 2), "constant value", "int32", constant=True)
        if v.data.size != 1:
            raise _Unsupported(f"constant value tensor {v.index} holds {v.data.size} values; one is expected")
        value = int(v.data.reshape(-1)[0])
    return ({"input_shape": _shape4(x.shape, "input"), "pad_before": before, "pad_after": after,
             "pad_value": value}, (x.index,), None, None)


#: Ops with an int32 row besides their int8 (and int16, float32) ones, chosen by the first input.
_LOWER_S32: Dict[str, Callable[..., tuple]] = {
    "ADD": _binary_s32, "SUB": _binary_s32, "MUL": _binary_s32,
    "MAXIMUM": _binary_s32, "MINIMUM": _binary_s32, "SQUARED_DIFFERENCE": _binary_s32,
    "PAD": _pad_s32, "PADV2": _pad_s32,
}


def _embedding_lookup(model: Model, op: Operator) -> tuple:
    """EMBEDDING_LOOKUP on the GATHER row (a GATHER of axis 0): int32 ids (a vector), the value
    table int8 or float32 of rank >= 2, the output of the table's type (the hybrid int8 table with
    a float32 output, which dequantises, is not supported); an id out of range fails the run (a
    constant one is refused), as TFLite's kernel fails."""
    dtype = _data_type(model, op)
    ids = _tensor(model, _operand(op.inputs, 0), "ids", None)
    v = _tensor(model, _operand(op.inputs, 1), "value", dtype)
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    if ids.dtype != "int32" or len(ids.shape) != 1:
        raise _Unsupported(f"ids tensor {ids.index} must be an int32 vector; it is {ids.dtype} {tuple(ids.shape)}")
    if y.dtype != dtype:
        raise _Unsupported(f"output tensor {y.index} is {y.dtype}, the value table {dtype}; arenaplan runs "
                           "EMBEDDING_LOOKUP of one type (not the hybrid int8 table with a float32 output)")
    if len(v.shape) < 2:
        raise _Unsupported(f"value tensor {v.index} has rank {len(v.shape)}; TFLite requires at least 2")
    if ids.is_constant and v.is_constant:
        raise _Unsupported("ids and value are constants (a converter folds such an op)")
    shape = [int(d) for d in v.shape]
    out = [int(ids.shape[0])] + shape[1:]
    if tuple(int(d) for d in y.shape) != tuple(out):
        raise _Unsupported(f"output tensor {y.index} has shape {tuple(y.shape)}, the op computes {tuple(out)}")
    _elements(shape + out, "value and output")
    if ids.is_constant:
        bad = [int(i) for i in np.asarray(ids.data).reshape(-1) if not 0 <= int(i) < shape[0]]
        if bad:
            raise _Unsupported(f"id {bad[0]} of the constant ids is outside [0, {shape[0]})")
    return ({"outer": 1, "axis_size": shape[0], "inner": int(np.prod(shape[1:], dtype=np.int64)),
             "coords": int(ids.shape[0]), "batches": 1}, (v.index, ids.index), None, None)


def _same_type_and_shape(model: Model, op: Operator, dtype: str) -> Tuple[Tensor, Tensor]:
    """The op's data input (an activation of ``dtype``) and its output, of that type and shape,
    rank at least 1 and no empty dimension."""
    x = _tensor(model, _operand(op.inputs, 0), "input", dtype, constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    if y.dtype != dtype:
        raise _Unsupported(f"output tensor {y.index} is {y.dtype}, the input {dtype}; TFLite requires one type")
    if tuple(y.shape) != tuple(x.shape):
        raise _Unsupported(f"output tensor {y.index} has shape {tuple(y.shape)}, the input {tuple(x.shape)}; "
                           "TFLite requires them equal")
    if len(x.shape) < 1:
        raise _Unsupported("the input is a scalar; the op works along an axis")
    if min(int(d) for d in x.shape) < 1:
        raise _Unsupported(f"input shape {tuple(x.shape)} has an empty dimension")
    return x, y


def _rows_of(x: Tensor) -> Tuple[int, int]:
    """(outer size, depth) of a tensor read as rows of its last axis."""
    return int(np.prod(x.shape[:-1], dtype=np.int64)), int(x.shape[-1])


#: The int8 L2_NORMALIZATION's output quantisation (LiteRT's Prepare requires it; the kernel
#: writes 1/128 steps about 0 whatever the tensor says).
_L2_NORM_OUTPUT = (1.0 / 128, 0)
#: The int8 LOG_SOFTMAX's output quantisation (both runtimes' Prepare require it).
_LOG_SOFTMAX_OUTPUT = (16.0 / 256, 127)


def _l2_normalization(model: Model, op: Operator) -> tuple:
    """L2_NORMALIZATION over the last axis (rank 1 to 4, TFLite's limit), float32 or int8; no fused
    activation (TFLite's kernels have none). int8: reference_integer_ops::L2Normalization, the
    output scale 1/128 and zero point 0 exactly (LiteRT's Prepare check), at most 33025 values a
    row (the int32 sum of squares)."""
    dtype = _data_type(model, op)
    x, y = _same_type_and_shape(model, op, dtype)
    if len(x.shape) > 4:
        raise _Unsupported(f"the input has rank {len(x.shape)}; TFLite's L2_NORMALIZATION takes at most 4")
    act = op.options.get("fused_activation_function", "NONE")
    if act != "NONE":
        raise _Unsupported(f"fused activation {act}; TFLite's L2_NORMALIZATION kernels take none")
    outer, depth = _rows_of(x)
    zp = 0
    if dtype == "int8":
        _, zp = _per_tensor(x, "input")
        ys, yz = _per_tensor(y, "output")
        if (ys, yz) != _L2_NORM_OUTPUT:
            raise _Unsupported(f"the int8 output (tensor {y.index}) has scale {ys} and zero point {yz}; TFLite "
                               "requires scale 1/128 (0.0078125) and zero point 0")
        if depth > 33025:
            raise _Unsupported(f"the last axis holds {depth} values; the int32 sum of squares of more than 33025 "
                               "int8 differences may overflow (TFLite's kernel would wrap)")
    return {"outer_size": outer, "depth": depth, "input_zero_point": zp}, (x.index,), None, None


def _l2_pool(model: Model, op: Operator) -> tuple:
    """float32 L2_POOL_2D (TFLite has no quantised kernel): 4-D NHWC input and output, the pools'
    padding and fused activation."""
    _data_type(model, op)   # float32 only: TFLite has no quantised L2_POOL_2D kernel
    x = _tensor(model, _operand(op.inputs, 0), "input", "float32", constant=False)
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    if y.dtype != "float32":
        raise _Unsupported(f"output tensor {y.index} is {y.dtype}; TFLite's L2_POOL_2D is float32 in and out")
    if len(x.shape) != 4 or len(y.shape) != 4:
        raise _Unsupported(f"input {tuple(x.shape)} and output {tuple(y.shape)} must be 4-D (NHWC), as TFLite "
                           "requires")
    return _pool_f32(model, op)


def _quantize_multiplier_to_2_31(real: float) -> Tuple[int, int]:
    """TFLite's QuantizeMultiplier (double rounding) for 1 < real < 2^31, shifts up to 31 (the
    shared helper takes reals below 2^30): real's frexp fraction times 2^31, rounded half away
    from zero, halved with the shift raised where it rounds to 2^31."""
    if real < float(1 << 30):
        return quantize_multiplier(real)
    q, shift = math.frexp(real)
    fixed = int(math.floor(abs(q) * float(1 << 31) + 0.5))
    if fixed == 1 << 31:
        fixed, shift = fixed // 2, shift + 1
    return fixed, shift


def _log_softmax(model: Model, op: Operator) -> tuple:
    """LOG_SOFTMAX over the last axis, float32 or int8. int8: the output scale 16/256 and zero
    point 127 exactly (both runtimes' Prepare); the input's multipliers as
    PreprocessLogSoftmaxScalingExp derives them for beta 1 and 5 integer bits (the input scale
    read as float32, in double), diff_min as CalculateInputRadius."""
    dtype = _data_type(model, op)
    x, y = _same_type_and_shape(model, op, dtype)
    outer, depth = _rows_of(x)
    spec = {"outer_size": outer, "depth": depth, "input_multiplier": 0, "input_left_shift": 0,
            "reverse_scaling_divisor": 0, "reverse_scaling_shift": 0, "diff_min": 0}
    if dtype == "int8":
        xs, _ = _per_tensor(x, "input")
        ys, yz = _per_tensor(y, "output")
        if (ys, yz) != _LOG_SOFTMAX_OUTPUT:
            raise _Unsupported(f"the int8 output (tensor {y.index}) has scale {ys} and zero point {yz}; TFLite "
                               "requires scale 16/256 (0.0625) and zero point 127")
        real = min(1.0 * xs * float(1 << 26), float((1 << 31) - 1))
        if not real > 1.0:
            raise _Unsupported(f"input scale {xs} is below 2^-26; TFLite's Prepare needs beta * scale * 2^26 > 1")
        mult, left_shift = _quantize_multiplier_to_2_31(real)
        reverse = float(1 << (31 - left_shift)) / float(mult)
        if not 0.0 < reverse < 1.0:
            raise _Unsupported(f"input scale {xs} gives a reverse scaling of {reverse}, not below 1 as TFLite's "
                               "Prepare requires")
        rdiv, rshift = quantize_multiplier(reverse)
        if rshift > 0:
            raise _Unsupported(f"input scale {xs} gives a reverse scaling that rounds to 1")
        spec.update(input_multiplier=mult, input_left_shift=left_shift, reverse_scaling_divisor=rdiv,
                    reverse_scaling_shift=rshift,
                    diff_min=-int(math.floor(31.0 * float(1 << 26) / float(1 << left_shift))))
    return spec, (x.index,), None, None


def _cumsum(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """CUMSUM along a constant int32 axis (negative counted from the end), exclusive and reverse
    from the options; float32 (TFLite's reference CumSum) or int8 as TensorFlow Lite Micro runs it
    (ADD's rescaling of one input: a left shift of 20, the input multiplier 0.5, the output's
    2 * input scale / (2^20 * output scale), each in double, each below 1 as its Prepare checks).
    LiteRT has no int8 kernel: under "litert" the int8 row is refused."""
    dtype = _data_type(model, op)
    if dtype == "int8" and reference != "tflm":
        raise _Unsupported("LiteRT has no int8 CUMSUM kernel; arenaplan runs TensorFlow Lite Micro's: plan with "
                           "reference \"tflm\"")
    x, y = _same_type_and_shape(model, op, dtype)
    a = _tensor(model, _operand(op.inputs, 1), "axis", None, constant=True)
    if a.dtype != "int32":
        raise _Unsupported(f"axis tensor {a.index} is {a.dtype}; TFLite's CUMSUM takes an int32 axis")
    rank = len(x.shape)
    axis = _constant_axis(model, op, 1, rank)
    shape = [int(d) for d in x.shape]
    spec = {"outer": int(np.prod(shape[:axis], dtype=np.int64)), "axis_size": shape[axis],
            "inner": int(np.prod(shape[axis + 1:], dtype=np.int64)),
            "exclusive": int(bool(op.options.get("exclusive", False))),
            "reverse": int(bool(op.options.get("reverse", False))),
            "input_offset": 0, "output_offset": 0, "left_shift": 0, "input_multiplier": 0, "input_shift": 0,
            "output_multiplier": 0, "output_shift": 0}
    if dtype == "int8":
        (xs, xz), (ys, yz) = _per_tensor(x, "input"), _per_tensor(y, "output")
        left_shift = 20
        twice = 2.0 * xs
        mults = []
        for what, real in (("input", xs / twice), ("output", twice / (float(1 << left_shift) * ys))):
            m, e = quantize_multiplier(real) if 0.0 < real < 1.0 else (0, 1)
            if e > 0:
                raise _Unsupported(f"the {what} multiplier {real} (2 * input scale / (2^20 * output scale) for the "
                                   "output) is not below 1, as TensorFlow Lite Micro's Prepare requires")
            mults.append((m, e))
        (mi, ei), (mo, eo) = mults
        spec.update(input_offset=-xz, output_offset=yz, left_shift=left_shift, input_multiplier=mi, input_shift=ei,
                    output_multiplier=mo, output_shift=eo)
    return spec, (x.index,), None, None


#: Most dimensions a BATCH_MATMUL operand has (TensorFlow Lite Micro's and LiteRT's kernels: 2 to 5).
_BMM_MAX_RANK = 5


def _batch_matmul(model: Model, op: Operator) -> tuple:
    """BATCH_MATMUL (TFLite's reference BatchMatMul, as LiteRT's and TensorFlow Lite Micro's
    Prepare check it): LHS, RHS and output of one type, int8, int16 (zero points 0, int64 sums)
    or float32 (the hybrid float32 x int8 form TFLite Micro lacks is refused); ranks 2 to 5, the
    batch dimensions broadcast (right-aligned), the summed dimensions equal after adj_x / adj_y;
    either operand an activation or a constant; the multiplier QuantizeMultiplier of
    double(float(lhs_scale * rhs_scale)) / output_scale (GetQuantizedConvolutionMultipler); no
    fused activation (the output type's range)."""
    dtype = _data_type(model, op)
    a = _tensor(model, _operand(op.inputs, 0), "LHS", dtype)
    b = _tensor(model, _operand(op.inputs, 1), "RHS", None)
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    if b.dtype != dtype:
        hybrid = " (the hybrid float32 x int8 form, which TensorFlow Lite Micro has no kernel for)" \
            if (dtype, b.dtype) == ("float32", "int8") else ""
        raise _Unsupported(f"RHS tensor {b.index} is {b.dtype}, LHS {dtype}{hybrid}; TFLite requires one type")
    if y.dtype != dtype:
        raise _Unsupported(f"output tensor {y.index} is {y.dtype}, LHS {dtype}; TFLite requires one type "
                           "(no int32 output)")
    if a.is_constant and b.is_constant:
        raise _Unsupported("both inputs are constants (a converter folds such an op)")
    ls, rs = [int(d) for d in a.shape], [int(d) for d in b.shape]
    for shape, what in ((ls, "LHS"), (rs, "RHS")):
        if not 2 <= len(shape) <= _BMM_MAX_RANK:
            raise _Unsupported(f"{what} has rank {len(shape)}; TFLite's BATCH_MATMUL takes ranks 2 to {_BMM_MAX_RANK}")
        if min(shape) < 1:
            raise _Unsupported(f"{what} has shape {tuple(shape)}: every dimension must be at least 1")
    adj_x, adj_y = bool(op.options.get("adj_x", False)), bool(op.options.get("adj_y", False))
    rank = max(len(ls), len(rs))
    le, re_ = [1] * (rank - len(ls)) + ls, [1] * (rank - len(rs)) + rs
    batch = []
    for d in range(rank - 2):
        if le[d] != re_[d] and 1 not in (le[d], re_[d]):
            raise _Unsupported(f"batch dimension {d} does not broadcast: LHS {tuple(ls)}, RHS {tuple(rs)}")
        batch.append(max(le[d], re_[d]))
    m, k = (le[-1], le[-2]) if adj_x else (le[-2], le[-1])
    k2, n = (re_[-1], re_[-2]) if adj_y else (re_[-2], re_[-1])
    if k != k2:
        raise _Unsupported(f"the summed dimensions differ: LHS {tuple(ls)} (adj_x {adj_x}) gives {k}, RHS "
                           f"{tuple(rs)} (adj_y {adj_y}) gives {k2}")
    out = batch + [m, n]
    if tuple(int(d) for d in y.shape) != tuple(out):
        raise _Unsupported(f"output tensor {y.index} has shape {tuple(y.shape)}, the op computes {tuple(out)}")
    spec = {"lhs_batch": ([1] * 3 + le[:-2])[-3:], "rhs_batch": ([1] * 3 + re_[:-2])[-3:], "rows": m, "depth": k,
            "cols": n, "adj_x": int(adj_x), "adj_y": int(adj_y), "lhs_offset": 0, "rhs_offset": 0,
            "output_offset": 0, "output_multiplier": 0, "output_shift": 0, "activation_min": 0, "activation_max": 0}
    if dtype != "float32":
        scale = _int16_scale if dtype == "int16" else _per_tensor
        (xs, xz), (ws, wz), (os_, oz) = [scale(t, w) if dtype == "int8" else (scale(t, w), 0)
                                         for t, w in ((a, "LHS"), (b, "RHS"), (y, "output"))]
        try:
            mult, shift = quantize_multiplier(float(np.float32(xs) * np.float32(ws)) / float(np.float32(os_)))
        except ArenaplanError as exc:
            raise _Unsupported(f"the scales give no int32 multiplier ({exc})") from None
        if shift > (7 if dtype == "int16" else 30):
            raise _Unsupported(f"the scales give a shift of {shift}, beyond what TFLite's requantisation takes")
        lo, hi = _INT_RANGES[dtype]
        spec.update(lhs_offset=-xz, rhs_offset=-wz, output_offset=oz, output_multiplier=mult, output_shift=shift,
                    activation_min=lo, activation_max=hi)
    return spec, (a.index, b.index), None, None


def _gather_nd(model: Model, op: Operator, reference: str = "litert") -> tuple:
    """GATHER_ND (TFLite's reference GatherNd): params int8, float32 or int32 (activation or
    constant; int8 values copied as stored), int32 indices whose last dimension (1 to 5, at most
    params' rank) indexes params' first dimensions; the output indices.shape[:-1] +
    params.shape[depth:]. An index out of range fails the run, by the rounding rule's bounds:
    LiteRT's (each component within its dimension) or TensorFlow Lite Micro's (the slice within
    params, counted flat); constant indices are checked here by the same rule."""
    dtype = _data_type(model, op)
    x = _tensor(model, _operand(op.inputs, 0), "params", dtype)
    idx = _tensor(model, _operand(op.inputs, 1), "indices", None)
    y = _tensor(model, _operand(op.outputs, 0), "output", dtype)
    if idx.dtype != "int32":
        raise _Unsupported(f"indices tensor {idx.index} is {idx.dtype}; TensorFlow Lite Micro's GATHER_ND takes "
                           "int32 indices")
    if x.is_constant and idx.is_constant:
        raise _Unsupported("params and indices are constants (a converter folds such an op)")
    shape, ishape = [int(d) for d in x.shape], [int(d) for d in idx.shape]
    if not shape or not ishape:
        raise _Unsupported(f"params {tuple(shape)} and indices {tuple(ishape)} must each be at least a vector")
    if min(shape + ishape) < 1:
        raise _Unsupported(f"params {tuple(shape)} or indices {tuple(ishape)} have an empty dimension")
    depth = ishape[-1]
    if depth > len(shape) or depth > 5:
        raise _Unsupported(f"the indices' last dimension is {depth}; it must be at most params' rank "
                           f"{len(shape)} and at most 5")
    out = ishape[:-1] + shape[depth:]
    if tuple(int(d) for d in y.shape) != tuple(out):
        raise _Unsupported(f"output tensor {y.index} has shape {tuple(y.shape)}, the op computes {tuple(out)}")
    dims = shape[:depth]
    slice_size = int(np.prod(shape[depth:], dtype=np.int64))
    if idx.is_constant:
        v = np.asarray(idx.data, dtype=np.int64).reshape(-1, depth)
        if reference == "tflm":
            strides = [int(np.prod(dims[d + 1:], dtype=np.int64)) * slice_size for d in range(depth)]
            flat = v @ np.array(strides, np.int64)
            bad = np.flatnonzero((flat < 0) | (flat + slice_size > int(np.prod(shape, dtype=np.int64))))
            if bad.size:
                raise _Unsupported(f"index {v[bad[0]].tolist()} (tuple {int(bad[0])} of the constant indices) reads "
                                   f"outside params {tuple(shape)}")
        else:
            bad = np.argwhere((v < 0) | (v >= np.array(dims, np.int64)))
            if bad.size:
                s, d = (int(t) for t in bad[0])
                raise _Unsupported(f"index {v[s].tolist()} (tuple {s} of the constant indices) has component {d} "
                                   f"outside [0, {dims[d]})")
    return ({"index_depth": depth, "dims": dims + [1] * (5 - depth), "slice_size": slice_size,
             "slices": int(np.prod(ishape[:-1], dtype=np.int64)), "bounds": int(reference == "tflm")},
            (x.index, idx.index), None, None)


def _broadcast_args(model: Model, op: Operator) -> tuple:
    """BROADCAST_ARGS (TFLite's reference BroadcastArgs): two shape vectors and the output of one
    type, int32 or int64, the output as long as the longer; shapes that do not broadcast fail
    the run (TFLite's kernels abort there)."""
    s1 = _tensor(model, _operand(op.inputs, 0), "shape1", None)
    s2 = _tensor(model, _operand(op.inputs, 1), "shape2", None)
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    if s1.dtype not in ("int32", "int64") or s2.dtype != s1.dtype or y.dtype != s1.dtype:
        raise _Unsupported(f"shape1, shape2 and output are {s1.dtype}, {s2.dtype} and {y.dtype}; TFLite requires "
                           "one type, int32 or int64")
    if s1.is_constant and s2.is_constant:
        raise _Unsupported("both inputs are constants (a converter folds such an op)")
    for t, what in ((s1, "shape1"), (s2, "shape2"), (y, "output")):
        if len(t.shape) != 1 or int(t.shape[0]) < 1:
            raise _Unsupported(f"{what} tensor {t.index} has shape {tuple(t.shape)}; a non-empty vector is required")
    l1, l2 = int(s1.shape[0]), int(s2.shape[0])
    if int(y.shape[0]) != max(l1, l2):
        raise _Unsupported(f"output tensor {y.index} has shape {tuple(y.shape)}, the op computes ({max(l1, l2)},)")
    return {"length1": l1, "length2": l2, "dtype": DTYPE_CODES[s1.dtype]}, (s1.index, s2.index), None, None


#: Lowering of the ops whose row their data input's element type chooses (_TYPED).
def _moves_by_type(model: Model, op: Operator) -> tuple:
    """The ops that move values as they are (STRIDED_SLICE, SLICE, SPLIT, SPLIT_V, UNPACK,
    PACK, CONCATENATION, BROADCAST_TO, DEPTH_TO_SPACE, SPACE_TO_DEPTH) on the row of their data
    input's type: each type's lowering (int8 and int16 keep their quantisation checks)."""
    dtype = _data_type(model, op)
    if op.type == "STRIDED_SLICE":
        return _strided_slice_f32(model, op) if dtype == "float32" else _strided_slice(model, op, dtype)
    if op.type in ("SPLIT", "SPLIT_V"):
        return _split_f32(model, op) if dtype == "float32" else _split(model, op, dtype)
    if op.type == "CONCATENATION":
        return {"int8": _concatenation, "int16": _concatenation_16x8,
                "float32": _concatenation_f32}.get(dtype, _concatenation_copy)(model, op)
    return {"SLICE": _slice, "UNPACK": _unpack, "PACK": _pack, "BROADCAST_TO": _broadcast_to,
            "DEPTH_TO_SPACE": _depth_space, "SPACE_TO_DEPTH": _depth_space}[op.type](model, op, dtype)


def _concatenation_copy(model: Model, op: Operator) -> tuple:
    """int32 and bool CONCATENATION: a copy (TFLite's kernels copy them; no quantisation), the
    int16 row's params."""
    y = _tensor(model, _operand(op.outputs, 0), "output", None)
    ins = [_tensor(model, t, f"input {i}", y.dtype) for i, t in enumerate(op.inputs)]
    rank, axis = _concat_axis(op, y)
    return ({**_concat_copy_params(y, ins, axis, rank), "input_multipliers": None, "input_shifts": None,
             "input_zero_points": None, "output_zero_point": 0}, tuple(t.index for t in ins), None, None)


_LOWER_TYPED: Dict[str, Callable[[Model, Operator], tuple]] = {
    **{op: _compare for op in _COMPARISONS + ("LOGICAL_AND", "LOGICAL_OR", "LOGICAL_NOT")},
    "ARG_MAX": _arg_minmax, "ARG_MIN": _arg_minmax, "GATHER": _gather, "SELECT_V2": _select_v2,
    "CAST": _cast, "ZEROS_LIKE": _zeros_like, "FILL": _fill, "SHAPE": _shape,
    "FLOOR_DIV": _floor_div_mod, "FLOOR_MOD": _floor_div_mod, "ADD_N": _add_n, "EMBEDDING_LOOKUP": _embedding_lookup,
    "L2_NORMALIZATION": _l2_normalization, "L2_POOL_2D": _l2_pool, "LOG_SOFTMAX": _log_softmax, "CUMSUM": _cumsum,
    "BATCH_MATMUL": _batch_matmul, "GATHER_ND": _gather_nd, "BROADCAST_ARGS": _broadcast_args,
    "DIV": _div, "REVERSE_V2": _reverse_v2, "REDUCE_ALL": _reduce_all,
    **{op: _moves_by_type for op in ("STRIDED_SLICE", "SLICE", "SPLIT", "SPLIT_V", "UNPACK", "PACK",
                                     "CONCATENATION", "BROADCAST_TO", "DEPTH_TO_SPACE", "SPACE_TO_DEPTH")},
}


# --- int64 tensors: the ops TensorFlow Lite Micro's kernels take int64 in -------------------
def _maximum_minimum_s64(model: Model, op: Operator) -> tuple:
    """int64 MAXIMUM and MINIMUM (MaximumMinimumBroadcastSlow, LiteRT's and TensorFlow Lite
    Micro's alike): the stored values compared, broadcast as ADD broadcasts (rank <= 4)."""
    a, b, y, sa, sb, sy = _broadcast_shapes(model, op, "int64")
    return {"input1_shape": sa, "input2_shape": sb, "output_shape": sy}, (a.index, b.index), None, None


def _concatenation_s64(model: Model, op: Operator) -> tuple:
    """int64 CONCATENATION: a copy (the float32 row's, of eight-byte values), no fused activation,
    rank <= 4; every input int64 and of the output's shape but along the axis."""
    y = _tensor(model, _operand(op.outputs, 0), "output", "int64")
    ins = [_tensor(model, t, f"input {i}", "int64") for i, t in enumerate(op.inputs)]
    rank = len(y.shape)
    axis = int(op.options.get("axis", 0))
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank or rank > 4:
        raise _Unsupported(f"axis {op.options.get('axis')} of a rank-{rank} output is not supported (rank <= 4)")
    if op.options.get("fused_activation_function", "NONE") != "NONE":
        raise _Unsupported("a fused activation on CONCATENATION is not supported")
    return _concat_copy_params(y, ins, axis, rank), tuple(t.index for t in ins), None, None


def _pack_s64(model: Model, op: Operator) -> tuple:
    """int64 PACK as the int64 CONCATENATION of its inputs along the new axis (_pack's checks;
    the output rank <= 4)."""
    return _pack(model, op, "int64")


#: The uint8 rows' lowering, chosen by _types_of (BROADCAST_TO and REVERSE_V2 are chosen by their
#: data input's type, _TYPED): DEQUANTIZE uint8 -> float32, QUANTIZE uint8 -> int8 (REQUANTIZE).
_LOWER_U8: Dict[str, Callable[..., tuple]] = {
    "DEQUANTIZE": lambda model, op: _dequantize(model, op, "uint8"), "QUANTIZE": _quantize,
}


#: The int64 rows' lowering, chosen by _types_of (the comparisons, ZEROS_LIKE and REVERSE_V2 are
#: chosen by their data input's type, _TYPED).
_LOWER_S64: Dict[str, Callable[[Model, Operator], tuple]] = {
    "MAXIMUM": _maximum_minimum_s64, "MINIMUM": _maximum_minimum_s64,
    "BROADCAST_TO": lambda model, op: _broadcast_to(model, op, "int64"),
    "CONCATENATION": _concatenation_s64, "PACK": _pack_s64,
}


def _types_of(model: Model, op: Operator) -> str:
    """The op table row's tensor types for ``op``: "f32" where a float32 row exists for its type
    and its first input is float32; "s16x8" where a 16x8 row exists for its type and its first
    input is int16 (QUANTIZE: a float32 input and an int16 output); else "s8"."""
    def dtype(indices: Sequence[int]) -> Optional[str]:
        t = indices[0] if indices else -1
        return model.tensors[t].dtype if 0 <= t < len(model.tensors) else None

    if op.type in ("SHAPE", "BROADCAST_ARGS"):  # one row each: int32 (or int64) shapes
        return "s32"
    if op.type in _LOWER_S32 and dtype(op.inputs) == "int32":
        return "s32"
    if op.type in _LOWER_S64 and dtype(op.inputs) == "int64":
        return "s64"
    if op.type in _LOWER_U8 and dtype(op.inputs) == "uint8":
        return "u8"
    if op.type in _TYPED:   # its data input's type, or its first row's (the lowering refuses the others)
        at, allowed = _TYPED[op.type]
        return _DATA_TYPES[dtype(op.inputs[at:]) if dtype(op.inputs[at:]) in allowed else allowed[0]]
    data = op.inputs[1:] if op.type == "SPLIT" else op.inputs[2:] if op.type == "TRANSPOSE_CONV" else op.inputs
    if op.type in _LOWER_F32 and dtype(data) == "float32":
        return "f32"   # (SPLIT's data input is its second, TRANSPOSE_CONV's its third)
    if op.type not in _LOWER_S16X8:
        return "s8"
    if op.type == "QUANTIZE":
        return "s16x8" if (dtype(op.inputs), dtype(op.outputs)) == ("float32", "int16") else "s8"
    if op.type == "TRANSPOSE_CONV":   # its data input is the third (output_shape, weights, input)
        return "s16x8" if dtype(op.inputs[2:]) == "int16" else "s8"
    if op.type == "SPLIT":            # its data input is the second (axis, input)
        return "s16x8" if dtype(op.inputs[1:]) == "int16" else "s8"
    return "s16x8" if dtype(op.inputs) == "int16" else "s8"


_LOWER: Dict[str, Callable[[Model, Operator], tuple]] = {
    "CONV_2D": _conv2d, "DEPTHWISE_CONV_2D": _depthwise_conv2d, "FULLY_CONNECTED": _fully_connected,
    "AVERAGE_POOL_2D": _pool, "MAX_POOL_2D": _pool, "ADD": _add, "MUL": _mul, "SOFTMAX": _softmax,
    "RESHAPE": _reshape, "SQUEEZE": _reshape, "EXPAND_DIMS": _reshape, "QUANTIZE": _quantize,
    "DEQUANTIZE": _dequantize, "CONCATENATION": _concatenation, "PAD": _pad, "PADV2": _pad,
    "MEAN": _mean, "SVDF": _svdf, "UNIDIRECTIONAL_SEQUENCE_LSTM": _lstm, "RELU": _relu,
    "STRIDED_SLICE": _strided_slice, "LEAKY_RELU": _leaky_relu, "SUB": _add,
    "TRANSPOSE": _transpose, "SPLIT": _split, "SPLIT_V": _split, "LOGISTIC": _logistic, "TANH": _logistic,
    "HARD_SWISH": _hard_swish, "READ_VARIABLE": _read_variable, "ASSIGN_VARIABLE": _assign_variable,
    "TRANSPOSE_CONV": _transpose_conv,
    "RELU6": _relu_x, "RELU_N1_TO_1": _relu_x, "SLICE": _slice, "PACK": _pack, "UNPACK": _unpack,
    "MAXIMUM": _maximum_minimum, "MINIMUM": _maximum_minimum, "ABS": _abs,
    "DEPTH_TO_SPACE": _depth_space, "SPACE_TO_DEPTH": _depth_space,
    "RESIZE_NEAREST_NEIGHBOR": _resize_nearest, "RESIZE_BILINEAR": _resize_bilinear,
    "BATCH_TO_SPACE_ND": _batch_space, "SPACE_TO_BATCH_ND": _batch_space, "MIRROR_PAD": _mirror_pad,
    "PRELU": _prelu, "SQUARED_DIFFERENCE": _squared_difference, "REDUCE_MAX": _reduce_max_min,
    "REDUCE_MIN": _reduce_max_min, "SUM": _sum, "BROADCAST_TO": _broadcast_to,
    "RSQRT": _rsqrt_s8, "ELU": _elu_s8, "COPY": _copy,
}


#: The lowering functions that take the rounding rule (a ``reference`` parameter): the rule
#: changes their params (FULLY_CONNECTED's requantisation, LOGISTIC's table, RELU's
#: multiplier, ...). Read from the signatures, so an op's rows may differ in it.
_TAKES_REFERENCE = frozenset(fn for table in (_LOWER, _LOWER_S16X8, _LOWER_F32, _LOWER_TYPED, _LOWER_S32,
                                              _LOWER_S64, _LOWER_U8)
                             for fn in table.values()
                             if "reference" in inspect.signature(fn).parameters)


#: int8 builtins that run on another op's row (besides the aliases, splits, variables and RELU6 /
#: RELU_N1_TO_1, which _code sends to the RELU row).
_RUNS_ON = {"SLICE": "STRIDED_SLICE", "UNPACK": "STRIDED_SLICE", "PACK": "CONCATENATION",
            "DEPTH_TO_SPACE": "TRANSPOSE", "SPACE_TO_DEPTH": "TRANSPOSE", "EMBEDDING_LOOKUP": "GATHER"}


def _code(op: Operator, spec: dict) -> int:
    if op.type in ALIASING_OPS or op.type in ("READ_VARIABLE", "ASSIGN_VARIABLE", "COPY"):
        return OP_CODES["RESHAPE"]
    if op.type == "QUANTIZE" and "input_type" in spec:
        return OP_CODES["REQUANTIZE"]
    if op.type == "PADV2":
        return OP_CODES["PAD"]
    if op.type in ("RELU6", "RELU_N1_TO_1"):   # float32: the RELU row, its fn naming which
        return OP_CODES["RELU"]
    if op.type in ("SPLIT", "SPLIT_V"):
        return OP_CODES["STRIDED_SLICE"]
    if op.type in _RUNS_ON:
        return OP_CODES[_RUNS_ON[op.type]]
    return OP_CODES[op.type]


def _op_name(op: Operator) -> str:
    """The op's type; for one output of a split held as one op per output, which one; for an op
    of a subgraph an IF or WHILE runs (inlined), the subgraph and its index there."""
    where = (f", subgraph {op.options['subgraph']} op {op.options.get('source_op', op.index)}"
             if op.options.get("subgraph") else "")
    if "output_parts" not in op.options:
        return op.type + where
    return (f"{op.type}, output {op.options['output_part']} of {op.options['output_parts']} "
            f"of the file's op {op.options.get('source_op', op.index)}{where}")


def lower_op(model: Model, op: Operator, isa: str, reference: str) -> OpKernel:
    """Lower one op for the variants of ``isa`` under the rounding rule ``reference``;
    raises UnsupportedModel naming the op if it cannot run."""
    if "unsupported" in op.options:   # the importer's finding, naming the subgraph and op
        raise UnsupportedModel(str(op.options["unsupported"]))
    if op.type in _CONTROL_FLOW:
        called = ", ".join(f"{f} {op.options[f]}" for f in _CONTROL_FLOW[op.type] if f in op.options)
        raise UnsupportedModel(f"op {op.index} ({op.type}{': ' + called if called else ''}): a Model holds "
                               "control flow inlined (JUMP and COPY ops, as load_tflite makes them); an "
                               f"{op.type} op itself does not run")
    if op.type == "JUMP":
        return _jump(model, op, isa)
    types = _types_of(model, op)
    # an int64 row's own lowering first (CONCATENATION, PACK and BROADCAST_TO also move other
    # types through _LOWER_TYPED's, whose _TYPED lists hold no int64)
    fn = (_LOWER_S64.get(op.type) if types == "s64" else None) or _LOWER_TYPED.get(op.type) or {
        "s16x8": _LOWER_S16X8, "f32": _LOWER_F32, "s32": _LOWER_S32, "s64": _LOWER_S64,
        "u8": _LOWER_U8}.get(types, _LOWER).get(op.type)
    if fn is None and op.type in _LOWER_S16X8:
        raise UnsupportedModel(f"op {op.index} ({op.type}): arenaplan runs {op.type} with int16 "
                               f"activations (16x8) only; the first input is "
                               f"{model.tensors[op.inputs[0]].dtype if op.inputs else 'missing'}")
    if fn is None and op.type in _LOWER_F32:
        raise UnsupportedModel(f"op {op.index} ({op.type}): arenaplan runs {op.type} on float32 tensors only; "
                               f"the first input is {model.tensors[op.inputs[0]].dtype if op.inputs else 'missing'}")
    if fn is None:
        raise UnsupportedModel(f"op {op.index} ({_op_name(op)}): no kernel for this op type; "
                               f"arenaplan runs {', '.join(sorted((set(_LOWER) | set(_LOWER_S16X8) | set(_LOWER_F32) | set(_LOWER_TYPED)) - {'COPY'}))}"
                               ", and IF, WHILE, CALL_ONCE and VAR_HANDLE, which load_tflite turns into those")
    if len(op.outputs) != 1:
        hint = (f" (a Model holds a {op.type} as one op per output: arenaplan.model.model.one_output_ops)"
                if op.type in PER_OUTPUT_OPS else "")
        raise UnsupportedModel(f"op {op.index} ({op.type}): {len(op.outputs)} outputs; arenaplan's "
                               f"kernels write exactly one{hint}")
    try:
        lowered = fn(model, op, reference) if fn in _TAKES_REFERENCE else fn(model, op)
        spec, inputs, weights, bias = lowered[:4]
        states = tuple(lowered[4]) if len(lowered) > 4 else ()
        code = _code(op, spec)
        found = _core.kernel_variants(code, spec, ISA_CODES[isa], TYPES_CODES[types])
    except (_Unsupported, ArenaplanError) as exc:
        raise UnsupportedModel(f"op {op.index} ({_op_name(op)}): {exc}") from None
    return OpKernel(op.index, op.type, code, spec, tuple(inputs), op.outputs[0], variants_from_core(found),
                    None if weights is None else np.ascontiguousarray(
                        weights, dtype=np.float32 if types == "f32" else np.int8), bias,
                    states, isa, TYPES_CODES[types])


def lower(model: Model, isa: str, reference: str) -> List[OpKernel]:
    """Lower every op of ``model`` (raises UnsupportedModel at the first that cannot run)."""
    check_isa(isa)
    check_reference(reference)
    return [lower_op(model, op, isa, reference) for op in model.operators]


def lower_model(model: Model, require_kernels: bool, isa: str,
                reference: str) -> Tuple[List[Optional[OpKernel]], List[str]]:
    """A kernel per op of ``model`` with ``isa``'s variants under the rounding rule
    ``reference`` (None for an op without one, when ``require_kernels`` is False; its reason is
    then listed in the second result)."""
    check_isa(isa)
    check_reference(reference)
    kernels: List[Optional[OpKernel]] = []
    unsupported: List[str] = []
    for op in model.operators:
        try:
            kernels.append(lower_op(model, op, isa, reference))
        except UnsupportedModel as exc:
            if require_kernels:
                raise
            kernels.append(None)
            unsupported.append(str(exc))
    return kernels, unsupported
