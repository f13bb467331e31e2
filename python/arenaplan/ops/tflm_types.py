"""The tensor types TensorFlow Lite Micro's kernels take, op by op, and which of them
arenaplan's op table runs (the audit of issue 27's second build item).

``TFLM_TYPES`` holds, for every builtin op TFLite Micro registers
(arenaplan.tflm.rules.TFLM_KERNELS), the kernel file it comes from and the type labels of
its data input that kernel takes; ops whose operands have roles of their own are labelled by
them: CAST and QUANTIZE by "from->to", DEQUANTIZE by its input, ARG_MAX / ARG_MIN by their
input (their output is int32 in TFLite Micro, ``ROLES``). The facts are those of the pinned
tflite-micro package: a one-op model of each op in each type (int8, int16, int32, int64,
float32, bool, uint8; harness/tflm_type_probe.py) that allocates and runs there, checked
against each kernel's type switch (tensorflow/lite/micro/kernels/*.cc).

``covering_row(op, label)`` names the op table row that runs a pair, or None; each pair
TFLite Micro has and arenaplan does not is in ``LEFT_OUT`` with its reason.
tests/test_tflm_type_audit.py checks that every pair is one or the other, that each row
named is in the C op table, that each pair's probe model plans in arenaplan exactly when it
is covered, and (where tflite-micro is importable) that the facts are the package's.
"""
from __future__ import annotations

from typing import Dict, FrozenSet, List, Optional, Tuple

from .. import _core

__all__ = ["TFLM_TYPES", "ROLES", "STRUCTURAL", "LEFT_OUT", "NOT_COUNTED", "pairs", "covering_row",
           "totals", "render"]

_I = "int8"
_S16 = "int16"
_F = "float32"
_S32 = "int32"
_S64 = "int64"
_B = "bool"
_U8 = "uint8"
_ALL = (_I, _S16, _S32, _S64, _F, _B, _U8)


def _f(kernel: str, *types: str) -> Tuple[str, FrozenSet[str]]:
    return kernel, frozenset(types)


def _casts(*src: str) -> FrozenSet[str]:
    return frozenset(f"{a}->{b}" for a in src for b in (_I, _S16, _S32, _F, _B))


#: op -> (TFLite Micro's kernel file, the type labels its kernel takes)
TFLM_TYPES: Dict[str, Tuple[str, FrozenSet[str]]] = {
    "ABS": _f("elementwise.cc", _I, _S16, _F),
    "ADD": _f("add.cc", _I, _S16, _S32, _F),
    "ADD_N": _f("add_n.cc", _I, _F),
    "ARG_MAX": _f("arg_min_max.cc", _I, _F),
    "ARG_MIN": _f("arg_min_max.cc", _I, _F),
    "AVERAGE_POOL_2D": _f("pooling.cc", _I, _S16, _F),
    "BATCH_MATMUL": _f("batch_matmul.cc", _I, _S16, _F),
    "BATCH_TO_SPACE_ND": _f("batch_to_space_nd.cc", _I, _F),
    "BROADCAST_ARGS": _f("broadcast_args.cc", _S32, _S64),
    "BROADCAST_TO": _f("broadcast_to.cc", *_ALL),
    "CAST": ("cast.cc", _casts(_I, _S16, _S32, _F, _B)),
    "CEIL": _f("ceil.cc", _F),
    "CONCATENATION": _f("concatenation.cc", _I, _S16, _S32, _S64, _F, _B),
    "CONV_2D": _f("conv.cc", _I, _S16, _F),
    "COS": _f("elementwise.cc", _F),
    "CUMSUM": _f("cumsum.cc", _I, _F),
    "DEPTHWISE_CONV_2D": _f("depthwise_conv.cc", _I, _S16, _F),
    "DEPTH_TO_SPACE": _f("depth_to_space.cc", _I, _F),
    "DEQUANTIZE": _f("dequantize.cc", _I, _S16, _U8),
    "DIV": _f("div.cc", _I, _S32, _F),
    "ELU": _f("elu.cc", _I, _F),
    "EMBEDDING_LOOKUP": _f("embedding_lookup.cc", _I, _F),
    "EQUAL": _f("comparisons.cc", _I, _S32, _S64, _F, _B),
    "EXP": _f("exp.cc", _F),
    "EXPAND_DIMS": _f("expand_dims.cc", _I, _S16, _F),
    "FILL": _f("fill.cc", _I, _S32, _F),
    "FLOOR": _f("floor.cc", _F),
    "FLOOR_DIV": _f("floor_div.cc", _F),
    "FLOOR_MOD": _f("floor_mod.cc", _F),
    "FULLY_CONNECTED": _f("fully_connected.cc", _I, _S16, _F),
    "GATHER": _f("gather.cc", _I, _F),
    "GATHER_ND": _f("gather_nd.cc", _I, _F),
    "GREATER": _f("comparisons.cc", _I, _S16, _S32, _S64, _F),
    "GREATER_EQUAL": _f("comparisons.cc", _I, _S32, _S64, _F),
    "HARD_SWISH": _f("hard_swish.cc", _I, _F),
    "L2_NORMALIZATION": _f("l2norm.cc", _I, _F),
    "L2_POOL_2D": _f("l2_pool_2d.cc", _F),
    "LEAKY_RELU": _f("leaky_relu.cc", _I, _S16, _F),
    "LESS": _f("comparisons.cc", _I, _S32, _S64, _F),
    "LESS_EQUAL": _f("comparisons.cc", _I, _S32, _S64, _F),
    "LOG": _f("elementwise.cc", _F),
    "LOGICAL_AND": _f("logical.cc", _B),
    "LOGICAL_NOT": _f("elementwise.cc", _B),
    "LOGICAL_OR": _f("logical.cc", _B),
    "LOGISTIC": _f("logistic.cc", _I, _S16, _F),
    "LOG_SOFTMAX": _f("log_softmax.cc", _I, _F),
    "MAXIMUM": _f("maximum_minimum.cc", _I, _S16, _S32, _S64, _F),
    "MAX_POOL_2D": _f("pooling.cc", _I, _S16, _F),
    "MEAN": _f("reduce.cc", _I, _S16, _F),
    "MINIMUM": _f("maximum_minimum.cc", _I, _S16, _S32, _S64, _F),
    "MIRROR_PAD": _f("mirror_pad.cc", _I, _F),
    "MUL": _f("mul.cc", _I, _S16, _S32, _F),
    "NEG": _f("neg.cc", _F),
    "NOT_EQUAL": _f("comparisons.cc", _I, _S32, _S64, _F, _B),
    "PACK": _f("pack.cc", _I, _S16, _S32, _S64, _F),
    "PAD": _f("pad.cc", _I, _S16, _S32, _F),
    "PADV2": _f("pad.cc", _I, _S16, _S32, _F),
    "PRELU": _f("prelu.cc", _I, _F),
    "QUANTIZE": ("quantize.cc", frozenset(("float32->int8", "float32->int16", "int8->int8", "int8->int16",
                                           "int8->int32", "int8->uint8", "int16->int8", "int16->int16",
                                           "int16->int32", "int32->int8", "int32->int16", "uint8->int8"))),
    "REDUCE_ALL": _f("reduce.cc", _B),
    "REDUCE_MAX": _f("reduce.cc", _I, _F),
    "REDUCE_MIN": _f("reduce.cc", _I, _F),
    "RELU": _f("activations.cc", _I, _S16, _F),
    "RELU6": _f("activations.cc", _I, _S16, _F),
    "RESHAPE": _f("reshape.cc", *_ALL),
    "RESIZE_BILINEAR": _f("resize_bilinear.cc", _I, _F),
    "RESIZE_NEAREST_NEIGHBOR": _f("resize_nearest_neighbor.cc", _I, _S16, _F),
    "REVERSE_V2": _f("reverse.cc", *_ALL),
    "ROUND": _f("round.cc", _F),
    "RSQRT": _f("elementwise.cc", _I, _F),
    "SELECT_V2": _f("select.cc", _I, _S16, _F),
    "SHAPE": _f("shape.cc", *_ALL),
    "SIN": _f("elementwise.cc", _F),
    "SLICE": _f("slice.cc", _I, _S16, _S32, _F, _B),
    "SOFTMAX": _f("softmax.cc", _I, _S16, _F),
    "SPACE_TO_BATCH_ND": _f("space_to_batch_nd.cc", _I, _F),
    "SPACE_TO_DEPTH": _f("space_to_depth.cc", _I, _F),
    "SPLIT": _f("split.cc", _I, _S16, _S32, _F),
    "SPLIT_V": _f("split_v.cc", _I, _S16, _S32, _F),
    "SQRT": _f("elementwise.cc", _F),
    "SQUARE": _f("elementwise.cc", _F),
    "SQUARED_DIFFERENCE": _f("squared_difference.cc", _I, _S16, _S32, _F),
    "SQUEEZE": _f("squeeze.cc", *_ALL),
    "STRIDED_SLICE": _f("strided_slice.cc", _I, _S16, _S32, _F, _B),
    "SUB": _f("sub.cc", _I, _S16, _S32, _F),
    "SUM": _f("reduce.cc", _I, _S16, _F),
    "SVDF": _f("svdf.cc", _I, _F),
    "TANH": _f("tanh.cc", _I, _S16, _F),
    "TRANSPOSE": _f("transpose.cc", _I, _S16, _F),
    "TRANSPOSE_CONV": _f("transpose_conv.cc", _I, _S16, _F),
    "UNIDIRECTIONAL_SEQUENCE_LSTM": _f("unidirectional_sequence_lstm.cc", _I, _S16, _F),
    "UNPACK": _f("unpack.cc", _I, _S16, _S32, _F),
    "ZEROS_LIKE": _f("zeros_like.cc", _I, _S32, _S64, _F),
}

#: The ops the audit takes from the kernel source alone (their operands need more than a
#: generic one-op model: state, weights of several types); the others are probed.
FROM_SOURCE = frozenset(("SVDF", "UNIDIRECTIONAL_SEQUENCE_LSTM"))

#: Registered ops with no element type of their own (state, subgraphs): arenaplan's importer
#: turns them into op table rows of the types their tensors have.
STRUCTURAL: Dict[str, str] = {
    "ASSIGN_VARIABLE": "a resource variable's value: the RESHAPE row's copy, or none",
    "READ_VARIABLE": "a resource variable's value: the RESHAPE row's copy, or none",
    "VAR_HANDLE": "a resource handle: the importer makes the variable a state tensor",
    "CALL_ONCE": "runs a subgraph once: folded to the variables' starting values",
    "IF": "runs a subgraph: inlined with JUMP and COPY",
    "WHILE": "runs subgraphs: inlined with JUMP and COPY",
}

#: Operands whose types are fixed apart from the data input (TFLite Micro's, from the probes):
#: (op, operand) -> types its kernel takes.
ROLES: Dict[Tuple[str, str], FrozenSet[str]] = {
    ("ARG_MAX", "output"): frozenset((_S32,)), ("ARG_MIN", "output"): frozenset((_S32,)),
    ("SHAPE", "output"): frozenset((_S32,)), ("GATHER", "indices"): frozenset((_S32,)),
    ("FILL", "dims"): frozenset((_S32, _S64)),
}

#: What the probes show that the audit does not count, and why.
NOT_COUNTED: Dict[str, str] = {
    "LOGICAL_AND": "logical.cc reads any input as bool without checking its type (int8 ... uint8 models run); "
                   "TFLite's op is bool only",
    "LOGICAL_OR": "as LOGICAL_AND",
    "SVDF": "int8 with int8 or int16 time weights and state (both arenaplan rows); hybrid float32 input with "
            "int8 weights is not in TFLite Micro",
}

#: The pairs TFLite Micro has that arenaplan leaves out, with the reason (none today).
LEFT_OUT: Dict[Tuple[str, str], str] = {}

_ROW_TYPES = {_I: "s8", _S16: "s16x8", _F: "f32", _S32: "s32", _B: "bool", _S64: "s64", _U8: "u8"}
#: builtins that run on another op's row (lowering._code)
_RUNS_ON = {"SLICE": "STRIDED_SLICE", "UNPACK": "STRIDED_SLICE", "SPLIT": "STRIDED_SLICE",
            "SPLIT_V": "STRIDED_SLICE", "PACK": "CONCATENATION", "DEPTH_TO_SPACE": "TRANSPOSE",
            "SPACE_TO_DEPTH": "TRANSPOSE", "EMBEDDING_LOOKUP": "GATHER", "PADV2": "PAD", "RELU6": "RELU"}
#: rows that take any type TFLite Micro does, named by one: the reshapes (a copy or an
#: alias), SHAPE (its input is not read) and BROADCAST_ARGS (int32 or int64 shapes)
_ANY_TYPE = {"RESHAPE": ("RESHAPE", "s8"), "SQUEEZE": ("RESHAPE", "s8"), "EXPAND_DIMS": ("RESHAPE", "s8"),
             "SHAPE": ("SHAPE", "s32"), "BROADCAST_ARGS": ("BROADCAST_ARGS", "s32")}
#: REQUANTIZE's params name its integer types (docs/coverage.md); the int8 row's input is int8,
#: int16 or int32, the uint8 row's uint8
_REQUANTIZE = frozenset(("int8->int8", "int8->int16", "int8->int32", "int8->uint8", "int16->int8", "int16->int16",
                         "int16->int32", "int32->int8", "int32->int16", "uint8->int8"))


def pairs() -> List[Tuple[str, str]]:
    """Every (op, type label) TFLite Micro's kernels take, sorted."""
    return sorted((op, t) for op, (_, types) in TFLM_TYPES.items() for t in types)


def covering_row(op: str, label: str, rows=None) -> Optional[Tuple[str, str]]:
    """The op table row (name, types) that runs ``op`` on ``label``, or None. ``rows``: the
    (name, types) of the C op table (read from arenaplan._core.ops() when not given)."""
    if rows is None:
        rows = {(r["name"], r["types"]) for r in _core.ops()}
    if op in _ANY_TYPE:
        return _ANY_TYPE[op] if _ANY_TYPE[op] in rows else None
    if op == "CAST":
        src, dst = label.split("->")
        row = ("CAST", _ROW_TYPES.get(src, ""))
        return row if row in rows and dst in (_I, _S16, _S32, _F, _B) else None
    if op == "QUANTIZE":
        src, dst = label.split("->")
        if src == _F:
            row = ("QUANTIZE", _ROW_TYPES.get(dst, ""))
        else:
            row = ("REQUANTIZE", "u8" if src == _U8 else "s8") if label in _REQUANTIZE else None
        return row if row in rows else None
    row = (_RUNS_ON.get(op, op), _ROW_TYPES.get(label, ""))
    return row if row in rows else None


def totals(rows=None) -> Dict[str, int]:
    """The audit's counts: pairs TFLite Micro has, those an op table row runs, those left out."""
    all_pairs = pairs()
    covered = [p for p in all_pairs if covering_row(*p, rows=rows)]
    return {"tflm": len(all_pairs), "covered": len(covered), "left_out": len(all_pairs) - len(covered)}


def render(rows=None) -> List[str]:
    """The audit's section of docs/coverage.md."""
    t = totals(rows)
    lines = ["## TensorFlow Lite Micro's types", "",
             f"TensorFlow Lite Micro's kernels take {t['tflm']} (op, type) pairs (the pinned tflite-micro "
             "package: a one-op model", "of each op in each type, int8, int16, int32, int64, float32, bool and "
             "uint8, allocated and run", "there; `arenaplan.ops.tflm_types`, tests/test_tflm_type_audit.py). "
             f"arenaplan's rows run {t['covered']} of them"
             + (f"; the {t['left_out']} left out, and why:" if t["left_out"] else " (none is left out)."), ""]
    if t["left_out"]:
        lines += ["| op | type | why left out |", "|---|---|---|"]
    by_reason: Dict[str, List[Tuple[str, str]]] = {}
    for p in pairs():
        if not covering_row(*p, rows=rows):
            by_reason.setdefault(LEFT_OUT.get(p, "(no reason given)"), []).append(p)
    for reason, ps in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        ops: Dict[str, List[str]] = {}
        for op, label in ps:
            ops.setdefault(label, []).append(op)
        for label, names in sorted(ops.items()):
            lines.append(f"| {', '.join(names)} | {label} | {reason} |")
    lines += ["" if t["left_out"] else None,
              "Operands of a fixed type (TensorFlow Lite Micro's): ARG_MAX / ARG_MIN and SHAPE write int32, "
              "GATHER reads", "int32 indices, FILL int32 or int64 dims; CAST goes between int8, int16, int32, "
              "float32 and bool", "(each way). Not counted: LOGICAL_AND / LOGICAL_OR run on any input type in "
              "the package (logical.cc", "reads the bytes as bool without a type check); TFLite's op is bool only.",
              ""]
    return [line for line in lines if line is not None]
