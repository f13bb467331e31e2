"""Which tensor types the pinned tflite-micro package's kernels take, op by op: one-op models
(harness.tflm_support's builders) in each type, allocated and run by the package's
interpreter. A type "runs" when the model allocates and invokes; the facts of
arenaplan.ops.tflm_types were checked against this (tests/test_tflm_type_audit.py runs it
for every op the module lists).

    python -m harness.tflm_type_probe            # prints op -> types that run, as JSON
"""
from __future__ import annotations

import json
import sys
from typing import Callable, Dict, Tuple

import numpy as np

from harness import tflm_support as T

#: the element types probed (the builders name a tensor type by its schema name, UINT8 too;
#: uint8's code for the options that name a type is set here)
TYPES = ("int8", "int16", "int32", "int64", "float32", "bool", "uint8")
T._TYPE_CODE.setdefault("uint8", 3)


def _q(dtype, other=False):
    """Quantisation for the integer types TFLite quantises (none for the others)."""
    if dtype == "int16":
        return T.Q16B if other else T.Q16
    if dtype in ("int8", "uint8"):
        return (0.08, 121) if dtype == "uint8" and other else (0.05, 128) if dtype == "uint8" else \
            (T.Q8B if other else T.Q8)
    return None


def _unary(op, dtype, out_q=None, options_type=None, version=1, **fields):
    g = T.GraphBuilder()
    x = g.tensor((1, 4, 5, 3), dtype, _q(dtype))
    y = g.tensor((1, 4, 5, 3), dtype, out_q if out_q is not None and _q(dtype) else _q(dtype, other=True))
    g.op(op, [x], [y], options_type, version, **fields)
    return g.build([x], [y])


def _binary(op, dtype, options_type=None, version=1, b=(1, 4, 5, 3), data=None, **fields):
    g = T.GraphBuilder()
    ta = g.tensor((1, 4, 5, 3), dtype, _q(dtype))
    tb = g.tensor(b, dtype, None if _q(dtype) is None else (0.03, 0 if dtype == "int16" else 2), data=data)
    ty = g.tensor((1, 4, 5, 3), dtype, _q(dtype, other=True))
    g.op(op, [ta, tb], [ty], options_type, version, **fields)
    return g.build([ta] if data is not None else [ta, tb], [ty])


def _sigmoid_q(dtype):
    return {"int8": (1 / 256, -128), "int16": (1 / 32768, 0), "uint8": (1 / 256, 0)}.get(dtype)


def _tanh_q(dtype):
    return {"int8": (1 / 128, 0), "int16": (1 / 32768, 0), "uint8": (1 / 128, 128)}.get(dtype)


def _softmax(dtype):
    g = T.GraphBuilder()
    x = g.tensor((1, 10), dtype, _q(dtype))
    y = g.tensor((1, 10), dtype, {"int8": (1 / 256, -128), "int16": (1 / 32768, 0),
                                  "uint8": (1 / 256, 0)}.get(dtype))
    g.op("SOFTMAX", [x], [y], "SoftmaxOptions", beta=1.0)
    return g.build([x], [y])


def _norm(op, dtype):
    g = T.GraphBuilder()
    out = {"L2_NORMALIZATION": {"int8": (1 / 128, 0), "uint8": (1 / 128, 128), "int16": (1 / 32768, 0)},
           "LOG_SOFTMAX": {"int8": (16 / 256, 127), "uint8": (16 / 256, 255), "int16": (1 / 2048, 32767)}}[op]
    x = g.tensor((2, 4, 8), dtype, _q(dtype))
    y = g.tensor((2, 4, 8), dtype, out.get(dtype) if _q(dtype) else None)
    g.op(op, [x], [y], "L2NormOptions" if op == "L2_NORMALIZATION" else "LogSoftmaxOptions")
    return g.build([x], [y])


def _with_q(fn):
    """A builder run with this module's quantisation (none for int32, int64 and bool)."""
    def run(*a, **k):
        saved = T._q
        T._q = _q
        try:
            return fn(*a, **k)
        finally:
            T._q = saved
    return run


def _fill(dtype, dims="int32"):
    return _with_q(T.fill)(dtype, dims_type=dims)


def _cast(src, dst):
    return T.cast(src, dst)


def _shape(out):
    return T.shape_op("float32", out=out)


def _arg(op, dtype, out="int32"):
    return _with_q(T.arg_min_max)(op, dtype, out=out)


def _gather_idx(idx_type):
    g = T.GraphBuilder()
    x = g.tensor((10, 8), "float32", data=np.arange(80).reshape(10, 8) % 7 - 3)
    i = g.tensor((4,), idx_type)
    y = g.tensor((4, 8), "float32")
    g.op("GATHER", [x, i], [y], "GatherOptions", axis=0, batchDims=0)
    return g.build([i], [y])


def _cumsum(dtype):
    g = T.GraphBuilder()
    x = g.tensor((2, 5, 8), dtype, _q(dtype))
    a = g.tensor((), "int32", data=np.array(1))
    y = g.tensor((2, 5, 8), dtype, _q(dtype, other=True))
    g.op("CUMSUM", [x, a], [y], "CumsumOptions", exclusive=False, reverse=False)
    return g.build([x], [y])


def _gather_nd(dtype):
    g = T.GraphBuilder()
    x = g.tensor((4, 5, 8), dtype, _q(dtype))
    idx = np.asarray(((3, 4), (0, 0), (2, 1)), np.int32)
    ti = g.tensor(idx.shape, "int32", data=idx)
    y = g.tensor((3, 8), dtype, _q(dtype))
    g.op("GATHER_ND", [x, ti], [y])
    return g.build([x], [y])


def _embedding(dtype):
    return _with_q(T.embedding_lookup)(dtype)


def _requant(src, dst):
    g = T.GraphBuilder()
    x = g.tensor((1, 8), src, _q(src) or (0.001, 0))
    y = g.tensor((1, 8), dst, None if dst == "float32" else (_q(dst, other=True) or (0.02, 0)))
    if src == "float32" or dst != "float32":
        g.op("QUANTIZE", [x], [y])
    else:
        g.op("DEQUANTIZE", [x], [y], version=2)
    return g.build([x], [y])


def _float_quantize(dst):
    g = T.GraphBuilder()
    x = g.tensor((1, 8), "float32")
    y = g.tensor((1, 8), dst, _q(dst, other=True) or (0.02, 0))
    g.op("QUANTIZE", [x], [y])
    return g.build([x], [y])


def _dequantize(src):
    g = T.GraphBuilder()
    x = g.tensor((1, 8), src, _q(src) or (0.02, 0))
    y = g.tensor((1, 8), "float32")
    g.op("DEQUANTIZE", [x], [y], version=2)
    return g.build([x], [y])


W = _with_q
#: op -> a builder of a one-op model of the op with its data input of the given type
BUILDERS: Dict[str, Callable[[str], bytes]] = {
    **{op: (lambda d, op=op: _unary(op, d)) for op in ("ABS", "CEIL", "COS", "EXP", "FLOOR", "LOG", "NEG", "ROUND",
                                                         "SIN", "SQRT", "SQUARE", "RELU", "RELU6",
                                                         "HARD_SWISH", "ELU", "LOGICAL_NOT", "ZEROS_LIKE")},
    # int8 RSQRT with its input zero point at -128 (the kernel fails on values below it)
    "RSQRT": lambda d: T.rsqrt_s8() if d == "int8" else _unary("RSQRT", d),
    "LEAKY_RELU": lambda d: _unary("LEAKY_RELU", d, options_type="LeakyReluOptions", alpha=0.2),
    "LOGISTIC": lambda d: _unary("LOGISTIC", d, _sigmoid_q(d)),
    "TANH": lambda d: _unary("TANH", d, _tanh_q(d)),
    "SOFTMAX": _softmax,
    "L2_NORMALIZATION": lambda d: _norm("L2_NORMALIZATION", d),
    "LOG_SOFTMAX": lambda d: _norm("LOG_SOFTMAX", d),
    **{op: (lambda d, op=op, o=o: _binary(op, d, o)) for op, o in (
        ("ADD", "AddOptions"), ("SUB", "SubOptions"), ("MUL", "MulOptions"), ("MAXIMUM", None), ("MINIMUM", None),
        ("SQUARED_DIFFERENCE", None), ("LOGICAL_AND", None), ("LOGICAL_OR", None), ("PRELU", None))},
    "DIV": lambda d: _binary("DIV", d, "DivOptions", data=np.full((1, 4, 5, 3), 3)),
    "FLOOR_DIV": lambda d: _binary("FLOOR_DIV", d, data=np.full((1, 4, 5, 3), 3)),
    "FLOOR_MOD": lambda d: _binary("FLOOR_MOD", d, data=np.full((1, 4, 5, 3), 3)),
    **{op: (lambda d, op=op: W(T.compare)(op, d)) for op in T._CMP_OPS},
    "ADD_N": lambda d: W(T.add_n)(d),
    "ARG_MAX": lambda d: _arg("ARG_MAX", d), "ARG_MIN": lambda d: _arg("ARG_MIN", d),
    "AVERAGE_POOL_2D": lambda d: W(T.pool)("AVERAGE_POOL_2D", dtype=d),
    "MAX_POOL_2D": lambda d: W(T.pool)("MAX_POOL_2D", dtype=d),
    "L2_POOL_2D": lambda d: W(T.l2_pool)(dtype=d),
    "BATCH_TO_SPACE_ND": lambda d: W(T.batch_space)("BATCH_TO_SPACE_ND", d),
    "SPACE_TO_BATCH_ND": lambda d: W(T.batch_space)("SPACE_TO_BATCH_ND", d),
    "DEPTH_TO_SPACE": lambda d: W(T.depth_space)("DEPTH_TO_SPACE", d),
    "SPACE_TO_DEPTH": lambda d: W(T.depth_space)("SPACE_TO_DEPTH", d, shape=(1, 4, 6, 2)),
    "BROADCAST_TO": lambda d: W(T.broadcast_to)(d),
    "BROADCAST_ARGS": lambda d: T.broadcast_args(d),
    "CONCATENATION": lambda d: W(T.concatenation)(dtype=d),
    "PACK": lambda d: W(T.pack)(d), "UNPACK": lambda d: W(T.unpack)(d),
    "PAD": lambda d: W(T.pad)(d), "PADV2": lambda d: W(T.pad)(d, v2=True),
    "MIRROR_PAD": lambda d: W(T.mirror_pad)(d),
    "RESHAPE": lambda d: W(T.reshape)(dtype=d),
    "SQUEEZE": lambda d: _squeeze(d), "EXPAND_DIMS": lambda d: _expand_dims(d),
    "TRANSPOSE": lambda d: W(T.transpose)(dtype=d),
    "STRIDED_SLICE": lambda d: W(T.strided_slice)(d), "SLICE": lambda d: W(T.slice_)(d),
    "SPLIT": lambda d: W(T.split)(dtype=d), "SPLIT_V": lambda d: W(T.split_v)(dtype=d),
    "GATHER": lambda d: W(T.gather)(d), "GATHER_ND": _gather_nd, "EMBEDDING_LOOKUP": _embedding,
    "SELECT_V2": lambda d: W(T.select_v2)(d), "FILL": _fill,
    "MEAN": lambda d: W(T.mean)(dtype=d), "SUM": lambda d: W(T.mean)(dtype=d, op="SUM"),
    "REDUCE_MAX": lambda d: W(T.mean)(dtype=d, op="REDUCE_MAX"),
    "REDUCE_MIN": lambda d: W(T.mean)(dtype=d, op="REDUCE_MIN"),
    "REDUCE_ALL": lambda d: _reduce_all(d),
    "RESIZE_BILINEAR": lambda d: W(T.resize)("RESIZE_BILINEAR", d),
    "RESIZE_NEAREST_NEIGHBOR": lambda d: W(T.resize)("RESIZE_NEAREST_NEIGHBOR", d),
    "REVERSE_V2": lambda d: W(T.reverse_v2)(d), "CUMSUM": _cumsum,
    "BATCH_MATMUL": lambda d: W(T.batch_matmul)(d),
    "SHAPE": lambda d: W(T.shape_op)(d),
    "CONV_2D": lambda d: W(T.conv)(d), "DEPTHWISE_CONV_2D": lambda d: W(T.conv)(d, depthwise=True, oc=8),
    "FULLY_CONNECTED": lambda d: W(T.fully_connected)(d), "TRANSPOSE_CONV": lambda d: W(T.transpose_conv)(d),
}


def _squeeze(dtype):
    g = T.GraphBuilder()
    x = g.tensor((1, 4, 1, 3), dtype, _q(dtype))
    y = g.tensor((1, 4, 3), dtype, _q(dtype))
    g.op("SQUEEZE", [x], [y], "SqueezeOptions", squeezeDims=[2])
    return g.build([x], [y])


def _expand_dims(dtype):
    g = T.GraphBuilder()
    x = g.tensor((1, 4, 3), dtype, _q(dtype))
    a = g.tensor((), "int32", data=2)
    y = g.tensor((1, 4, 1, 3), dtype, _q(dtype))
    g.op("EXPAND_DIMS", [x, a], [y], "ExpandDimsOptions")
    return g.build([x], [y])


def _reduce_all(dtype):
    g = T.GraphBuilder()
    x = g.tensor((2, 3, 4), dtype, _q(dtype))
    a = g.tensor((1,), "int32", data=np.array([1], np.int32))
    y = g.tensor((2, 4), dtype, _q(dtype))
    g.op("REDUCE_ALL", [x, a], [y], "ReducerOptions", keepDims=False)
    return g.build([x], [y])


#: operand roles probed apart: (op, role) -> {value: builder}
ROLE_BUILDERS: Dict[Tuple[str, str], Dict[str, Callable[[], bytes]]] = {
    **{(op, f"{src} to"): {dst: (lambda s=src, d=dst: _cast(s, d)) for dst in TYPES}
       for op in ("CAST",) for src in TYPES},
    **{(op, "out"): {o: (lambda op=op, o=o: _arg(op, "float32", o)) for o in ("int32", "int64")}
       for op in ("ARG_MAX", "ARG_MIN")},
    ("SHAPE", "out"): {o: (lambda o=o: _shape(o)) for o in ("int32", "int64")},
    ("GATHER", "indices"): {o: (lambda o=o: _gather_idx(o)) for o in ("int32", "int64", "int16")},
    ("FILL", "dims"): {o: (lambda o=o: _fill("float32", o)) for o in ("int32", "int64")},
    ("QUANTIZE", "from float32 to"): {d: (lambda d=d: _float_quantize(d)) for d in TYPES if d != "float32"},
    **{("QUANTIZE", f"from {s} to"): {d: (lambda s=s, d=d: _requant(s, d)) for d in TYPES if d not in ("float32",)}
       for s in ("int8", "int16", "int32", "uint8")},
    ("DEQUANTIZE", "from"): {s: (lambda s=s: _dequantize(s)) for s in TYPES if s != "float32"},
}


def runs(content: bytes) -> bool:
    return bool(T.trial(content, 1 << 17).get("ok"))


def probe(ops=None) -> dict:
    out: dict = {}
    for op, build in BUILDERS.items():
        if ops and op not in ops:
            continue
        got = []
        for d in TYPES:
            try:
                content = build(d)
            except Exception:   # a builder that cannot write the type (the schema has it)
                continue
            if runs(content):
                got.append(d)
        out[op] = got
    for (op, role), by in ROLE_BUILDERS.items():
        if ops and op not in ops:
            continue
        out[f"{op} {role}"] = [k for k, b in by.items() if runs(b())]
    return out


if __name__ == "__main__":
    json.dump(probe(sys.argv[1:] or None), sys.stdout, indent=0)
    sys.stdout.write("\n")


def model_for(op: str, label: str) -> bytes:
    """The one-op model of an audit pair (arenaplan.ops.tflm_types: CAST and QUANTIZE are
    labelled "from->to", DEQUANTIZE by its input, the others by their data input)."""
    if op == "CAST":
        src, dst = label.split("->")
        return ROLE_BUILDERS[("CAST", f"{src} to")][dst]()
    if op == "QUANTIZE":
        src, dst = label.split("->")
        return ROLE_BUILDERS[("QUANTIZE", f"from {src} to")][dst]()
    if op == "DEQUANTIZE":
        return ROLE_BUILDERS[("DEQUANTIZE", "from")][label]()
    return BUILDERS[op](label)


def tflm_labels(op: str) -> list:
    """The labels of ``op`` the package runs, as arenaplan.ops.tflm_types labels them."""
    if op == "CAST":
        return [f"{s}->{d}" for s in TYPES for d in TYPES if runs(ROLE_BUILDERS[("CAST", f"{s} to")][d]())]
    if op == "QUANTIZE":
        return [f"{s.split()[1]}->{d}" for (o, s), by in ROLE_BUILDERS.items() if o == "QUANTIZE"
                for d, b in by.items() if runs(b())]
    if op == "DEQUANTIZE":
        return [s for s, b in ROLE_BUILDERS[("DEQUANTIZE", "from")].items() if runs(b())]
    got = []
    for d in TYPES:
        try:
            content = BUILDERS[op](d)
        except Exception:
            continue
        if runs(content):
            got.append(d)
    return got
