"""Running a model in TFLite Micro (the tflite-micro package) for the tests and benchmarks.

TFLM's interpreter crashes on some arena sizes that are too small (instead of failing to
allocate), and a crash must read as "does not fit": every trial runs in a process of its
own. One worker process imports the package once and forks a child per trial (a few ms
each instead of a new interpreter process's second), so the tests can afford a trial at
the predicted arena and one 16 bytes below it for many small models.
"""
from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import tempfile
from typing import Dict, Optional

import numpy as np

from .models import RUNNABLE  # noqa: F401  (every shared model TFLite Micro runs: those arenaplan runs)
from .subgraph_models import (Q8, Q8B, Q16, Q16B, GraphBuilder, default_q as _q, if_float_two,  # noqa: F401
                              if_scratch, if_unary_chains, while_float, while_if, while_scratch, while_swap)

try:
    import tflite_micro  # noqa: F401
    HAVE_TFLM = True
except ImportError:  # pragma: no cover
    HAVE_TFLM = False

_WORKER = r"""
import json, os, re, sys, tempfile
import numpy as np
from tflite_micro.python.tflite_micro import runtime

RECORD = re.compile(r"'([^']+)' used (\d+) bytes with alignment overhead \(requested (\d+) bytes for (\d+)")

def child(path, size, seed):
    out = {"ok": False}
    with open(path, "rb") as f:
        content = f.read()
    try:
        it = runtime.Interpreter.from_bytes(content, arena_size=size)
    except Exception:
        return out
    rng = np.random.default_rng(seed)
    ins = runtime.convert_bytearray_to_object(content).subgraphs[0].inputs
    for k in range(0 if ins is None else len(ins)):
        d = it.get_input_details(k)
        info = np.iinfo(d["dtype"]) if np.issubdtype(d["dtype"], np.integer) else None
        if d["dtype"] == np.bool_:
            x = rng.integers(0, 2, size=d["shape"]).astype(np.bool_)
        elif info is None:
            x = rng.standard_normal(size=d["shape"]).astype(d["dtype"])
        elif info.bits >= 32:
            # int32 / int64 inputs are positions (GATHER, EMBEDDING_LOOKUP) or the values of
            # integer ops: 0 or 1, a position within any axis
            x = rng.integers(0, 2, size=d["shape"]).astype(d["dtype"])
        else:
            x = rng.integers(info.min, info.max + 1, size=d["shape"]).astype(d["dtype"])
        it.set_input(x, k)
    it.invoke()
    outs = runtime.convert_bytearray_to_object(content).subgraphs[0].outputs
    out["outputs"] = [it.get_output(k).astype(np.float64).ravel().tolist()
                      for k in range(0 if outs is None else len(outs))]
    sys.stderr.flush()
    with tempfile.TemporaryFile() as f:
        os.dup2(f.fileno(), 2)
        it.print_allocations()
        f.seek(0)
        text = f.read().decode()
    for k in ("head", "tail", "total"):
        m = re.search(r"allocation %s (\d+)" % k, text)
        out[k] = int(m.group(1)) if m else None
    out["records"] = {m.group(1): [int(m.group(2)), int(m.group(3)), int(m.group(4))]
                      for m in RECORD.finditer(text)}
    out["ok"] = True
    return out

for line in sys.stdin:
    req = json.loads(line)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            res = child(req["path"], req["size"], req.get("seed", 7))
        except Exception as e:
            res = {"ok": False, "error": repr(e)}
        os.write(w, json.dumps(res).encode())
        os._exit(0)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 1 << 16)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    try:
        res = json.loads(b"".join(chunks).decode())
    except ValueError:
        res = {"ok": False, "crashed": True, "status": status}
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()
"""

_worker: Optional[subprocess.Popen] = None


def _stop() -> None:
    global _worker
    if _worker is not None:
        _worker.stdin.close()
        _worker.wait(timeout=30)
        _worker = None


def _get_worker() -> subprocess.Popen:
    global _worker
    if _worker is None or _worker.poll() is not None:
        _worker = subprocess.Popen([sys.executable, "-c", _WORKER], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True, bufsize=1)
        atexit.register(_stop)
    return _worker


def trial(path, arena_size: int, seed: int = 7) -> dict:
    """Allocate and run ``path`` (a file, or flatbuffer bytes) with ``arena_size``:
    {"ok", "head", "tail", "total", "records", "outputs"}; "records" is the recording
    allocator's report by kind: [bytes used, bytes requested, count]."""
    cleanup = None
    if isinstance(path, (bytes, bytearray)):
        fd, cleanup = tempfile.mkstemp(suffix=".tflite")
        with os.fdopen(fd, "wb") as f:
            f.write(path)
        path = cleanup
    try:
        w = _get_worker()
        w.stdin.write(json.dumps({"path": str(path), "size": int(arena_size), "seed": seed}) + "\n")
        w.stdin.flush()
        line = w.stdout.readline()
        if not line:
            return {"ok": False, "crashed": True}
        return json.loads(line)
    finally:
        if cleanup:
            os.unlink(cleanup)


def smallest_arena(path, hi: int = 1 << 21, step: int = 16, lo: int = 0) -> Optional[int]:
    """The smallest multiple of ``step`` in (lo, hi] with which ``path`` allocates and runs
    (bisection), None when it does not at ``hi``."""
    if isinstance(path, (bytes, bytearray)):
        fd, name = tempfile.mkstemp(suffix=".tflite")
        with os.fdopen(fd, "wb") as f:
            f.write(path)
        try:
            return smallest_arena(name, hi, step, lo)
        finally:
            os.unlink(name)
    if not trial(path, hi)["ok"]:
        return None
    while hi - lo > step:
        mid = (lo + hi) // 2 // step * step
        if trial(path, mid)["ok"]:
            hi = mid
        else:
            lo = mid
    return hi


def check_exact(path, predicted: Dict[str, int], step: int = 16) -> Dict[str, object]:
    """TFLM at the predicted arena and ``step`` below it: {"fits", "below", "head", "tail"}."""
    at = trial(path, predicted["arena_size"])
    below = trial(path, predicted["arena_size"] - step)
    return {"fits": at["ok"], "below": below["ok"], "head": at.get("head"), "tail": at.get("tail"),
            "records": at.get("records"), "outputs": at.get("outputs")}


# --- small models written with the TFLite schema (harness.subgraph_models: GraphBuilder) -------


# --- the models ap.tflm's rules are checked on (tests/test_tflm_ops.py, bench_tflm.py) ----------
# Q8, Q8B, Q16, Q16B and _q (harness.subgraph_models.default_q): the quantisations of the models.


def unary(op, dtype="int8", shape=(1, 4, 5, 3), options_type=None, same_q=False, version=1, **fields):
    g = GraphBuilder()
    x = g.tensor(shape, dtype, _q(dtype))
    y = g.tensor(shape, dtype, _q(dtype, other=not same_q))
    g.op(op, [x], [y], options_type, version, **fields)
    return g.build([x], [y])


def binary(op, dtype="int8", a=(1, 4, 5, 3), b=(1, 4, 5, 3), y=None, options_type=None, version=1, **fields):
    g = GraphBuilder()
    ta = g.tensor(a, dtype, _q(dtype))
    tb = g.tensor(b, dtype, None if dtype in ("float32", "int64") else (0.03, 0 if dtype == "int16" else -2))
    ty = g.tensor(y or tuple(max(p, q) for p, q in zip(a, b)), dtype, _q(dtype, other=True))
    g.op(op, [ta, tb], [ty], options_type, version, **fields)
    return g.build([ta, tb], [ty])


def strided_slice(dtype="int8", shape=(1, 6, 5, 4), begin=(0, 1, 0, 1), end=(1, 5, 5, 4), strides=(1, 2, 1, 1),
                  out=(1, 2, 5, 3)):
    g = GraphBuilder()
    x = g.tensor(shape, dtype, None if dtype == "float32" else Q8)
    tb = g.tensor((len(begin),), "int32", data=begin)
    te = g.tensor((len(end),), "int32", data=end)
    ts = g.tensor((len(strides),), "int32", data=strides)
    y = g.tensor(out, dtype, None if dtype == "float32" else Q8)
    g.op("STRIDED_SLICE", [x, tb, te, ts], [y], "StridedSliceOptions")
    return g.build([x], [y])


def split(n=2, shape=(1, 4, 6, 3), axis=2, dtype="int8"):
    g = GraphBuilder()
    a = g.tensor((), "int32", data=axis)
    x = g.tensor(shape, dtype, _q(dtype))
    part = list(shape)
    part[axis] //= n
    ys = [g.tensor(part, dtype, _q(dtype)) for _ in range(n)]
    g.op("SPLIT", [a, x], ys, "SplitOptions", numSplits=n)
    return g.build([x], ys)


def split_v(sizes=(1, 3, 2), shape=(1, 4, 6, 3), axis=2, dtype="int8"):
    g = GraphBuilder()
    x = g.tensor(shape, dtype, _q(dtype))
    s = g.tensor((len(sizes),), "int32", data=sizes)
    a = g.tensor((), "int32", data=axis)
    ys = []
    for k in sizes:
        part = list(shape)
        part[axis] = k
        ys.append(g.tensor(part, dtype, _q(dtype)))
    g.op("SPLIT_V", [x, s, a], ys, "SplitVOptions", numSplits=len(sizes))
    return g.build([x], ys)


def concatenation(n=2, shape=(1, 4, 3), axis=1, dtype="int8"):
    g = GraphBuilder()
    xs = [g.tensor(shape, dtype, _q(dtype)) for _ in range(n)]
    out = list(shape)
    out[axis] *= n
    y = g.tensor(out, dtype, _q(dtype))
    g.op("CONCATENATION", xs, [y], "ConcatenationOptions", axis=axis)
    return g.build(xs, [y])


def pad(dtype="int8", v2=False, shape=(1, 4, 5, 3), pads=((0, 0), (1, 2), (0, 1), (0, 0))):
    g = GraphBuilder()
    q = (0.01, 0) if dtype == "int16" else None if dtype == "float32" else Q8
    x = g.tensor(shape, dtype, q)
    p = g.tensor((len(shape), 2), "int32", data=np.asarray(pads, np.int32))
    ins = [x, p]
    if v2:
        ins.append(g.tensor((1,), dtype, q, data=np.array([5])))
    y = g.tensor([d + a + b for d, (a, b) in zip(shape, pads)], dtype, q)
    if v2:
        g.op("PADV2", ins, [y], "PadV2Options")
    else:
        g.op("PAD", ins, [y], "PadOptions", version=4 if dtype == "int16" else 1)
    return g.build([x], [y])


def mean(shape=(1, 4, 5, 8), axes=(1, 2), keep=True, dtype="int8", op="MEAN"):
    g = GraphBuilder()
    x = g.tensor(shape, dtype, _q(dtype))
    a = g.tensor((len(axes),), "int32", data=axes)
    out = [1 if i in axes else d for i, d in enumerate(shape)] if keep else \
        [d for i, d in enumerate(shape) if i not in axes]
    y = g.tensor(out, dtype, _q(dtype) if op in ("REDUCE_MAX", "REDUCE_MIN") else _q(dtype, other=True))
    g.op(op, [x, a], [y], "ReducerOptions", version=2, keepDims=keep)
    return g.build([x], [y])


def transpose(shape=(1, 4, 5, 3), perm=(0, 2, 1, 3), dtype="int8"):
    g = GraphBuilder()
    x = g.tensor(shape, dtype, _q(dtype))
    p = g.tensor((len(perm),), "int32", data=perm)
    y = g.tensor([shape[i] for i in perm], dtype, _q(dtype))
    g.op("TRANSPOSE", [x, p], [y], "TransposeOptions", version=2)
    return g.build([x], [y])


def squeeze(shape=(1, 4, 1, 3), dims=(2,)):
    g = GraphBuilder()
    x = g.tensor(shape, "int8", Q8)
    y = g.tensor([d for i, d in enumerate(shape) if i not in dims], "int8", Q8)
    g.op("SQUEEZE", [x], [y], "SqueezeOptions", squeezeDims=list(dims))
    return g.build([x], [y])


def expand_dims(shape=(1, 4, 3), axis=2):
    g = GraphBuilder()
    x = g.tensor(shape, "int8", Q8)
    a = g.tensor((), "int32", data=axis)
    out = list(shape)
    out.insert(axis, 1)
    y = g.tensor(out, "int8", Q8)
    g.op("EXPAND_DIMS", [x, a], [y], "ExpandDimsOptions")
    return g.build([x], [y])


def conv(dtype="int8", depthwise=False, x_shape=(1, 5, 5, 4), oc=6, k=(3, 3), stride=1, per_channel=True):
    rng = np.random.default_rng(3)
    g = GraphBuilder()
    n, h, w, c = x_shape
    if depthwise:
        oc = c * (oc // c if oc % c == 0 else 1)
    f_shape = (1, k[0], k[1], oc) if depthwise else (oc, k[0], k[1], c)
    nq = oc if per_channel else 1
    scales = list(rng.uniform(0.002, 0.02, nq))
    x = g.tensor(x_shape, dtype, _q(dtype))
    if dtype == "float32":
        f = g.tensor(f_shape, dtype, data=rng.standard_normal(f_shape))
        b = g.tensor((oc,), dtype, data=rng.standard_normal(oc))
    else:
        f = g.tensor(f_shape, "int8", (scales, [0] * nq), data=rng.integers(-127, 128, f_shape),
                     qdim=3 if depthwise else 0)
        bdt = "int64" if dtype == "int16" else "int32"
        b = g.tensor((oc,), bdt, ([_q(dtype)[0] * s for s in scales], [0] * nq), data=rng.integers(-999, 999, oc))
    oh, ow = -(-h // stride), -(-w // stride)
    y = g.tensor((n, oh, ow, oc), dtype, _q(dtype, other=True))
    if depthwise:
        g.op("DEPTHWISE_CONV_2D", [x, f, b], [y], "DepthwiseConv2DOptions", version=5 if dtype == "int16" else 3,
             padding=0, strideH=stride, strideW=stride, depthMultiplier=oc // c, dilationHFactor=1,
             dilationWFactor=1)
    else:
        g.op("CONV_2D", [x, f, b], [y], "Conv2DOptions", version=4 if dtype == "int16" else 3, padding=0,
             strideH=stride, strideW=stride, dilationHFactor=1, dilationWFactor=1)
    return g.build([x], [y])


def fully_connected(dtype="int8", batches=2, depth=12, units=5):
    rng = np.random.default_rng(4)
    g = GraphBuilder()
    x = g.tensor((batches, depth), dtype, _q(dtype))
    if dtype == "float32":
        f = g.tensor((units, depth), dtype, data=rng.standard_normal((units, depth)))
        b = g.tensor((units,), dtype, data=rng.standard_normal(units))
    else:
        f = g.tensor((units, depth), "int8", (0.01, 0), data=rng.integers(-127, 128, (units, depth)))
        bdt = "int64" if dtype == "int16" else "int32"
        b = g.tensor((units,), bdt, (_q(dtype)[0] * 0.01, 0), data=rng.integers(-999, 999, units))
    y = g.tensor((batches, units), dtype, _q(dtype, other=True))
    g.op("FULLY_CONNECTED", [x, f, b], [y], "FullyConnectedOptions", version=7 if dtype == "int16" else 4)
    return g.build([x], [y])


def transpose_conv(dtype="int8", x_shape=(1, 4, 4, 3), oc=2, k=3, stride=2):
    rng = np.random.default_rng(5)
    g = GraphBuilder()
    n, h, w, c = x_shape
    y_shape = (n, h * stride, w * stride, oc)
    scales = list(rng.uniform(0.002, 0.02, oc))
    s = g.tensor((4,), "int32", data=y_shape)
    if dtype == "float32":
        f = g.tensor((oc, k, k, c), dtype, data=rng.standard_normal((oc, k, k, c)))
        x = g.tensor(x_shape, dtype)
        b = g.tensor((oc,), dtype, data=rng.standard_normal(oc))
    else:
        f = g.tensor((oc, k, k, c), "int8", (scales, [0] * oc), data=rng.integers(-127, 128, (oc, k, k, c)))
        x = g.tensor(x_shape, dtype, _q(dtype))
        bdt = "int64" if dtype == "int16" else "int32"
        b = g.tensor((oc,), bdt, ([_q(dtype)[0] * v for v in scales], [0] * oc), data=rng.integers(-999, 999, oc))
    y = g.tensor(y_shape, dtype, _q(dtype, other=True))
    g.op("TRANSPOSE_CONV", [s, f, x, b], [y], "TransposeConvOptions", version=3 if dtype == "int8" else 3,
         padding=0, strideH=stride, strideW=stride)
    return g.build([x], [y])


def quantize(dtype="int16", src="float32"):
    g = GraphBuilder()
    x = g.tensor((1, 8), src, None if src == "float32" else _q(src))
    y = g.tensor((1, 8), dtype, _q(dtype, other=True))
    g.op("QUANTIZE", [x], [y])
    return g.build([x], [y])


def dequantize(dtype="int16"):
    g = GraphBuilder()
    x = g.tensor((1, 8), dtype, _q(dtype))
    y = g.tensor((1, 8), "float32")
    g.op("DEQUANTIZE", [x], [y], version=4 if dtype == "int16" else 2)
    return g.build([x], [y])


def softmax(shape=(1, 10), dtype="int8"):
    g = GraphBuilder()
    x = g.tensor(shape, dtype, _q(dtype))
    y = g.tensor(shape, dtype, None if dtype == "float32" else (1 / 256, -128))
    g.op("SOFTMAX", [x], [y], "SoftmaxOptions", beta=1.0)
    return g.build([x], [y])



def mean_chain(shape=(1, 4, 5, 8)):
    """MEAN over the width, then MEAN of that over the height: two ops of three scratch
    requests each."""
    g = GraphBuilder()
    x = g.tensor(shape, "int8", Q8)
    a1 = g.tensor((1,), "int32", data=(2,))
    y1 = g.tensor((shape[0], shape[1], 1, shape[3]), "int8", Q8B)
    a2 = g.tensor((1,), "int32", data=(1,))
    y2 = g.tensor((shape[0], 1, 1, shape[3]), "int8", Q8)
    g.op("MEAN", [x, a1], [y1], "ReducerOptions", version=2, keepDims=True)
    g.op("MEAN", [y1, a2], [y2], "ReducerOptions", version=2, keepDims=True)
    return g.build([x], [y2])



def chain_int8():
    """PAD -> CONV_2D -> LEAKY_RELU -> STRIDED_SLICE -> TRANSPOSE -> MEAN -> SQUEEZE."""
    rng = np.random.default_rng(6)
    g = GraphBuilder()
    x = g.tensor((1, 5, 5, 3), "int8", Q8)
    pads = g.tensor((4, 2), "int32", data=np.array([[0, 0], [1, 1], [1, 1], [0, 0]], np.int32))
    padded = g.tensor((1, 7, 7, 3), "int8", Q8)
    g.op("PAD", [x, pads], [padded], "PadOptions")
    scales = list(rng.uniform(0.002, 0.02, 8))
    f = g.tensor((8, 3, 3, 3), "int8", (scales, [0] * 8), data=rng.integers(-127, 128, (8, 3, 3, 3)))
    b = g.tensor((8,), "int32", ([Q8[0] * v for v in scales], [0] * 8), data=rng.integers(-999, 999, 8))
    conv_out = g.tensor((1, 5, 5, 8), "int8", Q8B)
    g.op("CONV_2D", [padded, f, b], [conv_out], "Conv2DOptions", version=3, padding=1, strideH=1, strideW=1,
         dilationHFactor=1, dilationWFactor=1)
    leaky = g.tensor((1, 5, 5, 8), "int8", Q8)
    g.op("LEAKY_RELU", [conv_out], [leaky], "LeakyReluOptions", alpha=0.1)
    begin = g.tensor((4,), "int32", data=(0, 1, 0, 0))
    end = g.tensor((4,), "int32", data=(1, 5, 5, 6))
    strides = g.tensor((4,), "int32", data=(1, 1, 2, 1))
    sliced = g.tensor((1, 4, 3, 6), "int8", Q8)
    g.op("STRIDED_SLICE", [leaky, begin, end, strides], [sliced], "StridedSliceOptions")
    perm = g.tensor((4,), "int32", data=(0, 2, 1, 3))
    moved = g.tensor((1, 3, 4, 6), "int8", Q8)
    g.op("TRANSPOSE", [sliced, perm], [moved], "TransposeOptions", version=2)
    axes = g.tensor((1,), "int32", data=(2,))
    mean_out = g.tensor((1, 3, 1, 6), "int8", Q8B)
    g.op("MEAN", [moved, axes], [mean_out], "ReducerOptions", version=2, keepDims=True)
    y = g.tensor((1, 3, 6), "int8", Q8B)
    g.op("SQUEEZE", [mean_out], [y], "SqueezeOptions", squeezeDims=[2])
    return g.build([x], [y])


def chain_split():
    """SPLIT -> SUB -> TANH, and CONCATENATION of the split parts -> EXPAND_DIMS -> HARD_SWISH,
    and SPLIT_V -> RELU beside it: a SPLIT's outputs live past the op after it."""
    g = GraphBuilder()
    x = g.tensor((1, 4, 6), "int8", Q8)
    axis = g.tensor((), "int32", data=2)
    a = g.tensor((1, 4, 3), "int8", Q8)
    b = g.tensor((1, 4, 3), "int8", Q8)
    g.op("SPLIT", [axis, x], [a, b], "SplitOptions", numSplits=2)
    d = g.tensor((1, 4, 3), "int8", Q8B)
    g.op("SUB", [a, b], [d], "SubOptions", version=2)
    t = g.tensor((1, 4, 3), "int8", (1 / 128, 0))
    g.op("TANH", [d], [t], version=2)
    c = g.tensor((1, 4, 6), "int8", Q8)
    g.op("CONCATENATION", [b, a], [c], "ConcatenationOptions", axis=2)
    e = g.tensor((1, 1, 4, 6), "int8", Q8)
    ax = g.tensor((), "int32", data=1)
    g.op("EXPAND_DIMS", [c, ax], [e], "ExpandDimsOptions")
    h = g.tensor((1, 1, 4, 6), "int8", Q8)
    g.op("HARD_SWISH", [e], [h])
    sizes = g.tensor((2,), "int32", data=(1, 3))
    ax1 = g.tensor((), "int32", data=1)
    p1 = g.tensor((1, 1, 6), "int8", Q8)
    p2 = g.tensor((1, 3, 6), "int8", Q8)
    g.op("SPLIT_V", [x, sizes, ax1], [p1, p2], "SplitVOptions", numSplits=2)
    r = g.tensor((1, 3, 6), "int8", Q8)
    g.op("RELU", [p2], [r])
    return g.build([x], [h, r, p1, t])


def chain_tconv(dtype="int8"):
    """TRANSPOSE_CONV -> PADV2 (int8) or PAD (int16) -> QUANTIZE (requantise) -> MEAN."""
    rng = np.random.default_rng(8)
    g = GraphBuilder()
    q = _q(dtype)
    x = g.tensor((1, 3, 3, 4), dtype, q)
    scales = list(rng.uniform(0.002, 0.02, 3))
    shape = g.tensor((4,), "int32", data=(1, 6, 6, 3))
    f = g.tensor((3, 3, 3, 4), "int8", (scales, [0] * 3), data=rng.integers(-127, 128, (3, 3, 3, 4)))
    bdt = "int64" if dtype == "int16" else "int32"
    b = g.tensor((3,), bdt, ([q[0] * v for v in scales], [0] * 3), data=rng.integers(-999, 999, 3))
    y = g.tensor((1, 6, 6, 3), dtype, _q(dtype, other=True))
    g.op("TRANSPOSE_CONV", [shape, f, x, b], [y], "TransposeConvOptions", version=3, padding=0, strideH=2,
         strideW=2)
    pads = g.tensor((4, 2), "int32", data=np.array([[0, 0], [1, 0], [0, 1], [0, 0]], np.int32))
    padded = g.tensor((1, 7, 7, 3), dtype, _q(dtype, other=True))
    if dtype == "int8":
        cv = g.tensor((1,), dtype, _q(dtype, other=True), data=np.array([3]))
        g.op("PADV2", [y, pads, cv], [padded], "PadV2Options")
    else:
        g.op("PAD", [y, pads], [padded], "PadOptions", version=4)
    rq = g.tensor((1, 7, 7, 3), dtype, q)
    g.op("QUANTIZE", [padded], [rq])
    outs = [rq]
    if dtype == "int8":
        axes = g.tensor((2,), "int32", data=(1, 2))
        m = g.tensor((1, 1, 1, 3), dtype, q)
        g.op("MEAN", [rq, axes], [m], "ReducerOptions", version=2, keepDims=True)
        outs = [m]
    return g.build([x], outs)



def logistic(shape=(1, 16), dtype="int8"):
    g = GraphBuilder()
    x = g.tensor(shape, dtype, _q(dtype))
    y = g.tensor(shape, dtype, None if dtype == "float32" else (1 / 256, -128))
    g.op("LOGISTIC", [x], [y])
    return g.build([x], [y])


def pool(op, x_shape=(1, 6, 6, 4), k=2, stride=2, dtype="int8"):
    g = GraphBuilder()
    x = g.tensor(x_shape, dtype, _q(dtype))
    n, h, w, c = x_shape
    y = g.tensor((n, h // stride, w // stride, c), dtype, _q(dtype))
    g.op(op, [x], [y], "Pool2DOptions", padding=1, strideH=stride, strideW=stride, filterHeight=k, filterWidth=k)
    return g.build([x], [y])


def reshape(shape=(1, 4, 6), new=(1, 24), dtype="int8"):
    g = GraphBuilder()
    x = g.tensor(shape, dtype, _q(dtype))
    s = g.tensor((len(new),), "int32", data=new)
    y = g.tensor(new, dtype, _q(dtype))
    g.op("RESHAPE", [x, s], [y], "ReshapeOptions", newShape=list(new))
    return g.build([x], [y])



FAMILIES = {
    "slicing": {"strided_slice": lambda: strided_slice(),
                "strided_slice_int16": lambda: strided_slice("int16"),
                "split2": lambda: split(2), "split3": lambda: split(3, shape=(1, 3, 6, 3), axis=2),
                "split_v": lambda: split_v(), "concat2": lambda: concatenation(2),
                "concat3": lambda: concatenation(3, axis=2)},
    "pad": {"pad": lambda: pad(), "padv2": lambda: pad(v2=True), "pad_s16": lambda: pad("int16")},
    "mean": {"mean": lambda: mean(), "mean_nokeep": lambda: mean(keep=False),
             "mean_1axis": lambda: mean(shape=(1, 6, 5, 8), axes=(2,)),
             "mean_big": lambda: mean(shape=(1, 4, 5, 40), axes=(1, 2)), "mean_chain": lambda: mean_chain()},
    "sub": {"sub": lambda: binary("SUB", options_type="SubOptions", version=2),
            "sub_bcast": lambda: binary("SUB", b=(1, 1, 1, 3), options_type="SubOptions", version=2),
            "sub_s16": lambda: binary("SUB", "int16", options_type="SubOptions", version=3),
            "add_s16": lambda: binary("ADD", "int16", options_type="AddOptions", version=3)},
    "activations": {"relu": lambda: unary("RELU"), "relu_s16": lambda: unary("RELU", "int16"),
                    "leaky_relu": lambda: unary("LEAKY_RELU", options_type="LeakyReluOptions", alpha=0.2),
                    "tanh": lambda: unary("TANH", version=2), "hard_swish": lambda: unary("HARD_SWISH"),
                    "softmax": lambda: softmax()},
    "shape": {"transpose": lambda: transpose(), "squeeze": lambda: squeeze(), "expand_dims": lambda: expand_dims()},
    "transpose_conv": {"transpose_conv": lambda: transpose_conv(),
                       "transpose_conv_s16": lambda: transpose_conv("int16"),
                       "transpose_conv_s2": lambda: transpose_conv(x_shape=(1, 3, 5, 8), oc=5, k=2, stride=1)},
    "conv_16x8": {"conv_s16": lambda: conv("int16"), "dw_s16": lambda: conv("int16", depthwise=True, oc=8),
                  "conv_s16_stride2": lambda: conv("int16", x_shape=(1, 7, 6, 3), oc=4, stride=2),
                  "fc_s16": lambda: fully_connected("int16")},
    "quantize_16": {"quantize_s16": lambda: quantize("int16"), "dequantize_s16": lambda: dequantize("int16"),
                    "requantize_s8_s16": lambda: quantize("int16", src="int8")},
    "chains": {"chain_int8": chain_int8, "chain_split": chain_split, "chain_tconv": chain_tconv,
               "chain_tconv_s16": lambda: chain_tconv("int16")},
}
FAMILIES["shared_model_ops"] = {
    "add": lambda: binary("ADD", options_type="AddOptions"),
    "mul": lambda: binary("MUL", options_type="MulOptions"),
    "logistic": lambda: logistic(),
    "average_pool": lambda: pool("AVERAGE_POOL_2D"), "max_pool": lambda: pool("MAX_POOL_2D"),
    "reshape": lambda: reshape(),
    "fc": lambda: fully_connected(), "conv": lambda: conv(), "conv_per_tensor": lambda: conv(per_channel=False),
    "depthwise": lambda: conv(depthwise=True, oc=8),
}


#: Tiny tensors, so that the peak while each op prepares (its temporary TfLiteTensors)
#: sets the arena: the rule for each op's temporaries is what these check.
FAMILIES["prepare_peak"] = {
    "add_tiny": lambda: binary("ADD", a=(1, 2), b=(1, 2), options_type="AddOptions"),
    "add_s16_tiny": lambda: binary("ADD", "int16", a=(1, 2), b=(1, 2), options_type="AddOptions", version=3),
    "mul_tiny": lambda: binary("MUL", a=(1, 2), b=(1, 2), options_type="MulOptions"),
    "average_pool_tiny": lambda: pool("AVERAGE_POOL_2D", x_shape=(1, 2, 2, 1)),
    "max_pool_tiny": lambda: pool("MAX_POOL_2D", x_shape=(1, 2, 2, 1)),
    "fc_tiny": lambda: fully_connected(batches=1, depth=2, units=1),
    "softmax_tiny": lambda: softmax(shape=(1, 2)),
    "quantize_s8": lambda: quantize("int8"), "dequantize_s8": lambda: dequantize("int8"),
    "split_tiny": lambda: split(2, shape=(1, 1, 2, 1), axis=2),
    "reshape_tiny": lambda: reshape(shape=(1, 2), new=(2,)),
}


# --- the ops arenaplan added after the first rules (int8, 16x8 and float32 rows) ---------------
def resize(op, dtype="int8", shape=(1, 3, 4, 2), size=(6, 7), **fields):
    g = GraphBuilder()
    x = g.tensor(shape, dtype, _q(dtype))
    sz = g.tensor((2,), "int32", data=size)
    y = g.tensor((shape[0], size[0], size[1], shape[3]), dtype, _q(dtype))
    name = "ResizeBilinearOptions" if op == "RESIZE_BILINEAR" else "ResizeNearestNeighborOptions"
    g.op(op, [x, sz], [y], name, version=3 if dtype == "int8" else 1, **fields)
    return g.build([x], [y])


def depth_space(op, dtype="int8", shape=(1, 2, 3, 8), block=2):
    g = GraphBuilder()
    n, h, w, c = shape
    out = (n, h * block, w * block, c // block ** 2) if op == "DEPTH_TO_SPACE" else \
        (n, h // block, w // block, c * block ** 2)
    x = g.tensor(shape, dtype, _q(dtype))
    y = g.tensor(out, dtype, _q(dtype))
    g.op(op, [x], [y], "DepthToSpaceOptions" if op == "DEPTH_TO_SPACE" else "SpaceToDepthOptions",
         version=2 if dtype == "int8" else 1, blockSize=block)
    return g.build([x], [y])


def batch_space(op, dtype="int8", shape=(1, 4, 6, 3), block=(2, 2), pads=((0, 0), (0, 0))):
    """SPACE_TO_BATCH_ND of ``shape`` (padded by ``pads``), or BATCH_TO_SPACE_ND back to it
    (``pads`` as crops)."""
    g = GraphBuilder()
    n, h, w, c = shape
    bh, bw = block
    batched = (n * bh * bw, (h + sum(pads[0])) // bh, (w + sum(pads[1])) // bw, c)
    ins, outs = (shape, batched) if op == "SPACE_TO_BATCH_ND" else (batched, shape)
    x = g.tensor(ins, dtype, _q(dtype))
    b = g.tensor((2,), "int32", data=block)
    p = g.tensor((2, 2), "int32", data=np.asarray(pads, np.int32))
    y = g.tensor(outs, dtype, _q(dtype))
    g.op(op, [x, b, p], [y], "SpaceToBatchNDOptions" if op == "SPACE_TO_BATCH_ND" else "BatchToSpaceNDOptions",
         version=2 if dtype == "int8" else 1)
    return g.build([x], [y])


def mirror_pad(dtype="int8", shape=(1, 4, 5, 3), pads=((0, 0), (1, 2), (0, 1), (0, 0)), mode=0):
    g = GraphBuilder()
    x = g.tensor(shape, dtype, _q(dtype))
    p = g.tensor((len(shape), 2), "int32", data=np.asarray(pads, np.int32))
    y = g.tensor([d + a + b for d, (a, b) in zip(shape, pads)], dtype, _q(dtype))
    g.op("MIRROR_PAD", [x, p], [y], "MirrorPadOptions", version=2 if dtype == "int8" else 1, mode=mode)
    return g.build([x], [y])


def prelu(dtype="int8", shape=(1, 4, 5, 3), alpha_shape=(1, 1, 3)):
    rng = np.random.default_rng(11)
    g = GraphBuilder()
    x = g.tensor(shape, dtype, _q(dtype))
    if dtype == "float32":
        a = g.tensor(alpha_shape, dtype, data=rng.uniform(-0.5, 0.5, alpha_shape))
    else:
        a = g.tensor(alpha_shape, dtype, (0.01, 0), data=rng.integers(-50, 50, alpha_shape))
    y = g.tensor(shape, dtype, _q(dtype, other=True))
    g.op("PRELU", [x, a], [y])
    return g.build([x], [y])


def broadcast_to(dtype="int8", shape=(1, 1, 5, 1), new=(1, 3, 5, 4)):
    g = GraphBuilder()
    x = g.tensor(shape, dtype, _q(dtype))
    s = g.tensor((len(new),), "int32", data=new)
    y = g.tensor(new, dtype, _q(dtype))
    g.op("BROADCAST_TO", [x, s], [y], version=2)
    return g.build([x], [y])


def slice_(dtype="int8", shape=(1, 6, 5, 4), begin=(0, 1, 2, 0), size=(1, 4, -1, 3)):
    g = GraphBuilder()
    x = g.tensor(shape, dtype, _q(dtype))
    b = g.tensor((len(begin),), "int32", data=begin)
    z = g.tensor((len(size),), "int32", data=size)
    out = [d - b0 if k < 0 else k for d, b0, k in zip(shape, begin, size)]
    y = g.tensor(out, dtype, _q(dtype))
    g.op("SLICE", [x, b, z], [y], "SliceOptions", version=2)
    return g.build([x], [y])


def pack(dtype="int8", n=3, shape=(2, 5), axis=1):
    g = GraphBuilder()
    xs = [g.tensor(shape, dtype, _q(dtype)) for _ in range(n)]
    out = list(shape)
    out.insert(axis, n)
    y = g.tensor(out, dtype, _q(dtype))
    g.op("PACK", xs, [y], "PackOptions", version=2, valuesCount=n, axis=axis)
    return g.build(xs, [y])


def unpack(dtype="int8", shape=(2, 3, 5), axis=1):
    g = GraphBuilder()
    x = g.tensor(shape, dtype, _q(dtype))
    part = [d for k, d in enumerate(shape) if k != axis]
    ys = [g.tensor(part, dtype, _q(dtype)) for _ in range(shape[axis])]
    g.op("UNPACK", [x], ys, "UnpackOptions", version=2, num=shape[axis], axis=axis)
    return g.build([x], ys)


def requantize(src="int16", dst="int8", shape=(1, 8)):
    g = GraphBuilder()
    x = g.tensor(shape, src, _q(src))
    y = g.tensor(shape, dst, _q(dst, other=True))
    g.op("QUANTIZE", [x], [y], version=2)
    return g.build([x], [y])


def chain_more_int8():
    """RESIZE_BILINEAR -> MIRROR_PAD -> SPACE_TO_DEPTH -> PRELU -> REDUCE_MAX, and SLICE ->
    PACK of its output with itself -> UNPACK: scratch of MIRROR_PAD and REDUCE_MAX in one arena."""
    g = GraphBuilder()
    x = g.tensor((1, 3, 3, 2), "int8", Q8)
    sz = g.tensor((2,), "int32", data=(6, 6))
    r = g.tensor((1, 6, 6, 2), "int8", Q8)
    g.op("RESIZE_BILINEAR", [x, sz], [r], "ResizeBilinearOptions", version=3)
    pads = g.tensor((4, 2), "int32", data=np.array([[0, 0], [1, 1], [1, 1], [0, 0]], np.int32))
    p = g.tensor((1, 8, 8, 2), "int8", Q8)
    g.op("MIRROR_PAD", [r, pads], [p], "MirrorPadOptions", version=2, mode=1)
    d = g.tensor((1, 4, 4, 8), "int8", Q8)
    g.op("SPACE_TO_DEPTH", [p], [d], "SpaceToDepthOptions", version=2, blockSize=2)
    a = g.tensor((1, 1, 8), "int8", (0.01, 0), data=np.arange(-4, 4))
    pr = g.tensor((1, 4, 4, 8), "int8", Q8B)
    g.op("PRELU", [d, a], [pr])
    ax = g.tensor((2,), "int32", data=(1, 2))
    mx = g.tensor((1, 1, 1, 8), "int8", Q8B)
    g.op("REDUCE_MAX", [pr, ax], [mx], "ReducerOptions", version=2, keepDims=True)
    b = g.tensor((4,), "int32", data=(0, 0, 0, 0))
    z = g.tensor((4,), "int32", data=(1, 2, 4, 8))
    sl = g.tensor((1, 2, 4, 8), "int8", Q8B)
    g.op("SLICE", [pr, b, z], [sl], "SliceOptions", version=2)
    pk = g.tensor((2, 1, 2, 4, 8), "int8", Q8B)
    g.op("PACK", [sl, sl], [pk], "PackOptions", version=2, valuesCount=2, axis=0)
    u1 = g.tensor((1, 2, 4, 8), "int8", Q8B)
    u2 = g.tensor((1, 2, 4, 8), "int8", Q8B)
    g.op("UNPACK", [pk], [u1, u2], "UnpackOptions", version=2, num=2, axis=0)
    return g.build([x], [mx, u2, u1])


def chain_float32():
    """CONV_2D -> RELU6 -> DEPTHWISE_CONV_2D -> ADD (residual) -> MEAN -> FULLY_CONNECTED ->
    SOFTMAX, in float32."""
    rng = np.random.default_rng(12)
    g = GraphBuilder()
    x = g.tensor((1, 6, 6, 3), "float32")
    f = g.tensor((4, 3, 3, 3), "float32", data=rng.standard_normal((4, 3, 3, 3)))
    b = g.tensor((4,), "float32", data=rng.standard_normal(4))
    c = g.tensor((1, 6, 6, 4), "float32")
    g.op("CONV_2D", [x, f, b], [c], "Conv2DOptions", padding=0, strideH=1, strideW=1, dilationHFactor=1,
         dilationWFactor=1)
    r = g.tensor((1, 6, 6, 4), "float32")
    g.op("RELU6", [c], [r])
    fd = g.tensor((1, 3, 3, 4), "float32", data=rng.standard_normal((1, 3, 3, 4)))
    bd = g.tensor((4,), "float32", data=rng.standard_normal(4))
    d = g.tensor((1, 6, 6, 4), "float32")
    g.op("DEPTHWISE_CONV_2D", [r, fd, bd], [d], "DepthwiseConv2DOptions", padding=0, strideH=1, strideW=1,
         depthMultiplier=1, dilationHFactor=1, dilationWFactor=1)
    s = g.tensor((1, 6, 6, 4), "float32")
    g.op("ADD", [d, c], [s], "AddOptions")
    ax = g.tensor((2,), "int32", data=(1, 2))
    m = g.tensor((1, 4), "float32")
    g.op("MEAN", [s, ax], [m], "ReducerOptions", keepDims=False)
    w = g.tensor((3, 4), "float32", data=rng.standard_normal((3, 4)))
    bw = g.tensor((3,), "float32", data=rng.standard_normal(3))
    fc = g.tensor((1, 3), "float32")
    g.op("FULLY_CONNECTED", [m, w, bw], [fc], "FullyConnectedOptions")
    y = g.tensor((1, 3), "float32")
    g.op("SOFTMAX", [fc], [y], "SoftmaxOptions", beta=1.0)
    return g.build([x], [y])


FAMILIES["new_int8"] = {
    "maximum": lambda: binary("MAXIMUM", y=(1, 4, 5, 3), options_type="MaximumMinimumOptions", version=2),
    "minimum_bcast": lambda: binary("MINIMUM", b=(1, 1, 1, 3), options_type="MaximumMinimumOptions", version=2),
    "abs": lambda: unary("ABS", version=2), "abs_same_q": lambda: unary("ABS", same_q=True, version=2),
    "resize_nearest": lambda: resize("RESIZE_NEAREST_NEIGHBOR"),
    "resize_bilinear": lambda: resize("RESIZE_BILINEAR", halfPixelCenters=True),
    "depth_to_space": lambda: depth_space("DEPTH_TO_SPACE"),
    "space_to_depth": lambda: depth_space("SPACE_TO_DEPTH", shape=(1, 4, 6, 3)),
    "batch_to_space_nd": lambda: batch_space("BATCH_TO_SPACE_ND"),
    "space_to_batch_nd": lambda: batch_space("SPACE_TO_BATCH_ND", shape=(1, 3, 5, 2), pads=((1, 0), (0, 1))),
    "mirror_pad": lambda: mirror_pad(), "mirror_pad_3d": lambda: mirror_pad(shape=(2, 5, 3),
                                                                          pads=((0, 0), (2, 2), (1, 0)), mode=1),
    "prelu": lambda: prelu(), "prelu_full_alpha": lambda: prelu(alpha_shape=(1, 4, 5, 3)),
    "squared_difference": lambda: binary("SQUARED_DIFFERENCE", version=2),
    "reduce_max": lambda: mean(axes=(1, 2), op="REDUCE_MAX"),
    "reduce_min": lambda: mean(axes=(2,), keep=False, op="REDUCE_MIN"),
    "sum": lambda: mean(axes=(1, 2), op="SUM"), "sum_1axis": lambda: mean(shape=(1, 6, 5, 8), axes=(2,), op="SUM"),
    "broadcast_to": lambda: broadcast_to(), "slice": lambda: slice_(),
    "pack": lambda: pack(), "unpack": lambda: unpack(),
    "relu6": lambda: unary("RELU6", version=2), "chain_more_int8": chain_more_int8,
}
FAMILIES["new_int16"] = {
    "reshape_s16": lambda: reshape(dtype="int16"),
    "strided_slice_s16": lambda: strided_slice("int16", shape=(1, 5, 4, 6), begin=(0, 0, 1, 0),
                                               end=(1, 5, 4, 6), strides=(1, 2, 1, 3), out=(1, 3, 3, 2)),
    "transpose_s16": lambda: transpose(dtype="int16"),
    "concat_s16": lambda: concatenation(3, dtype="int16", axis=2),
    "leaky_relu_s16": lambda: unary("LEAKY_RELU", "int16", options_type="LeakyReluOptions", version=2, alpha=0.2),
    "average_pool_s16": lambda: pool("AVERAGE_POOL_2D", dtype="int16"),
    "max_pool_s16": lambda: pool("MAX_POOL_2D", dtype="int16"),
    "mul_s16": lambda: binary("MUL", "int16", options_type="MulOptions", version=4),
    "relu6_s16": lambda: unary("RELU6", "int16", version=3),
    "mean_s16": lambda: mean(dtype="int16"),
    "requantize_s16_s8": lambda: requantize("int16", "int8"),
    "requantize_s8_s16": lambda: requantize("int8", "int16"),
    # int16 ops arenaplan runs on another op's 16x8 row, and ops TFLM also takes in int16
    "pack_s16": lambda: pack("int16"), "unpack_s16": lambda: unpack("int16"), "slice_s16": lambda: slice_("int16"),
    "split_s16": lambda: split(2, dtype="int16"), "split_v_s16": lambda: split_v(dtype="int16"),
    "padv2_s16": lambda: pad("int16", v2=True), "broadcast_to_s16": lambda: broadcast_to("int16"),
    "maximum_s16": lambda: binary("MAXIMUM", "int16", version=2), "abs_s16": lambda: unary("ABS", "int16", version=3),
    "resize_nearest_s16": lambda: resize("RESIZE_NEAREST_NEIGHBOR", "int16"),
    "squared_difference_s16": lambda: binary("SQUARED_DIFFERENCE", "int16"),
    "sum_s16": lambda: mean(op="SUM", dtype="int16"),
}
FAMILIES["float32"] = {
    "fc_f32": lambda: fully_connected("float32"), "conv_f32": lambda: conv("float32"),
    "dw_f32": lambda: conv("float32", depthwise=True, oc=8),
    "transpose_conv_f32": lambda: transpose_conv("float32"),
    "add_f32": lambda: binary("ADD", "float32", options_type="AddOptions"),
    "sub_f32": lambda: binary("SUB", "float32", b=(1, 1, 1, 3), options_type="SubOptions"),
    "mul_f32": lambda: binary("MUL", "float32", options_type="MulOptions"),
    "reshape_f32": lambda: reshape(dtype="float32"),
    "logistic_f32": lambda: logistic(dtype="float32"), "tanh_f32": lambda: unary("TANH", "float32"),
    "relu_f32": lambda: unary("RELU", "float32"), "relu6_f32": lambda: unary("RELU6", "float32"),
    "leaky_relu_f32": lambda: unary("LEAKY_RELU", "float32", options_type="LeakyReluOptions", alpha=0.2),
    "hard_swish_f32": lambda: unary("HARD_SWISH", "float32"),
    "softmax_f32": lambda: softmax(dtype="float32"),
    "average_pool_f32": lambda: pool("AVERAGE_POOL_2D", dtype="float32"),
    "max_pool_f32": lambda: pool("MAX_POOL_2D", dtype="float32"),
    "mean_f32": lambda: mean(dtype="float32"),
    "pad_f32": lambda: pad("float32"), "padv2_f32": lambda: pad("float32", v2=True),
    "concat_f32": lambda: concatenation(2, dtype="float32"),
    "strided_slice_f32": lambda: strided_slice("float32"),
    "split_f32": lambda: split(2, dtype="float32"), "split_v_f32": lambda: split_v(dtype="float32"),
    "transpose_f32": lambda: transpose(dtype="float32"),
    "chain_float32": chain_float32,
}
#: Tiny tensors again, for the new ops' temporaries (the Prepare or commit peak sets the arena).
FAMILIES["new_prepare_peak"] = {
    "relu6_tiny": lambda: unary("RELU6", shape=(1, 2)), "relu6_s16_tiny": lambda: unary("RELU6", "int16", shape=(1, 2)),
    "reduce_max_tiny": lambda: mean(shape=(1, 1, 2, 1), axes=(2,), op="REDUCE_MAX"),
    "sum_tiny": lambda: mean(shape=(1, 1, 2, 1), axes=(2,), op="SUM"),
    "mean_s16_tiny": lambda: mean(shape=(1, 1, 2, 1), axes=(2,), dtype="int16"),
    "prelu_tiny": lambda: prelu(shape=(1, 1, 1, 2), alpha_shape=(1, 1, 2)),
    "mirror_pad_tiny": lambda: mirror_pad(shape=(1, 2), pads=((0, 0), (1, 1))),
    "space_to_batch_nd_tiny": lambda: batch_space("SPACE_TO_BATCH_ND", shape=(1, 2, 2, 1)),
    "batch_to_space_nd_tiny": lambda: batch_space("BATCH_TO_SPACE_ND", shape=(1, 2, 2, 1)),
    "depth_to_space_tiny": lambda: depth_space("DEPTH_TO_SPACE", shape=(1, 1, 1, 4)),
    "slice_tiny": lambda: slice_(shape=(1, 2), begin=(0, 1), size=(1, 1)),
    "pack_tiny": lambda: pack(n=2, shape=(1,), axis=0),
    "maximum_tiny": lambda: binary("MAXIMUM", a=(1, 2), b=(1, 2)),
}


# --- the third ops: comparisons, logical ops, index ops, CAST, FILL, SHAPE, ... ---------------
#: TFLite's tensor type numbers (schema TensorType) of the types these builders name
_TYPE_CODE = {"float32": 0, "int32": 2, "uint8": 3, "bool": 6, "int16": 7, "int64": 4, "int8": 9}


def compare(op, dtype="int8", a=(1, 4, 5, 3), b=(1, 4, 5, 3)):
    """A comparison of two inputs of ``dtype`` (int8 quantised, each its own scale) into bool."""
    g = GraphBuilder()
    ta = g.tensor(a, dtype, _q(dtype) if dtype in ("int8", "int16") else None)
    tb = g.tensor(b, dtype, (0.03, -2 if dtype == "int8" else 0) if dtype in ("int8", "int16") else None)
    ty = g.tensor(tuple(max(p, q) for p, q in zip(a, b)), "bool")
    g.op(op, [ta, tb], [ty], version=2 if dtype == "int8" else 1)
    return g.build([ta, tb], [ty])


def logical(op, shape=(1, 4, 5, 3), b=None):
    g = GraphBuilder()
    ins = [g.tensor(shape, "bool")]
    if op != "LOGICAL_NOT":
        ins.append(g.tensor(b or shape, "bool"))
    y = g.tensor(tuple(max(p, q) for p, q in zip(shape, b)) if b else shape, "bool")
    g.op(op, ins, [y])
    return g.build(ins, [y])


def arg_min_max(op, dtype="int8", shape=(2, 5, 8), axis=-1, out="int32", axis_shape=(1,)):
    g = GraphBuilder()
    x = g.tensor(shape, dtype, _q(dtype) if dtype in ("int8", "int16") else None)
    a = g.tensor(axis_shape, "int32", data=np.full(axis_shape, axis))
    k = axis % len(shape)
    y = g.tensor([d for i, d in enumerate(shape) if i != k], out)
    opts = "ArgMaxOptions" if op == "ARG_MAX" else "ArgMinOptions"
    g.op(op, [x, a], [y], opts, version=2 if dtype == "int8" else 1, outputType=_TYPE_CODE[out])
    return g.build([x], [y])


def gather(dtype="int8", shape=(10, 8), n=4, axis=0, const_table=True, idx_shape=None, batch_dims=0):
    """GATHER of ``n`` int32 positions (a graph input) along ``axis`` of a table (a constant,
    or a second graph input); with ``batch_dims`` (negative: counted from the positions' rank)
    the leading dimensions ``idx_shape`` shares with the table."""
    g = GraphBuilder()
    q = _q(dtype) if dtype in ("int8", "int16") else None
    data = (np.arange(int(np.prod(shape))).reshape(shape) % 7 - 3) if const_table else None
    x = g.tensor(shape, dtype, q, data=data)
    idx_shape = idx_shape or (n,)
    idx = g.tensor(idx_shape, "int32")
    a = axis % len(shape)
    b = batch_dims + len(idx_shape) if batch_dims < 0 else batch_dims
    out = list(shape[:a]) + list(idx_shape[b:]) + list(shape[a + 1:])
    y = g.tensor(out, dtype, q)
    g.op("GATHER", [x, idx], [y], "GatherOptions", version=2 if dtype == "int8" else 1, axis=axis,
         batchDims=batch_dims)
    return g.build([idx] if const_table else [x, idx], [y])


def embedding_lookup(dtype="int8", rows=10, cols=(8,), n=4, out=None):
    """EMBEDDING_LOOKUP of ``n`` int32 ids (a graph input) in a constant table of ``rows``
    rows; the output is the table's type (or ``out``: float32 dequantises an int8 table)."""
    g = GraphBuilder()
    ids = g.tensor((n,), "int32")
    shape = (rows,) + tuple(cols)
    q = (0.05, 0) if dtype == "int8" else None
    v = g.tensor(shape, dtype, q, data=np.arange(int(np.prod(shape))).reshape(shape) % 7 - 3)
    out = out or dtype
    y = g.tensor((n,) + tuple(cols), out, q if out == "int8" else None)
    g.op("EMBEDDING_LOOKUP", [ids, v], [y])
    return g.build([ids], [y])


def select_v2(dtype="int8", c=(1, 4, 5, 3), x=(1, 4, 5, 3), y=(1, 4, 5, 3)):
    g = GraphBuilder()
    q = _q(dtype) if dtype in ("int8", "int16") else None
    tc = g.tensor(c, "bool")
    tx, ty = g.tensor(x, dtype, q), g.tensor(y, dtype, q)
    out = tuple(max(p) for p in zip(*[(1,) * (4 - len(s)) + tuple(s) for s in (c, x, y)]))
    to = g.tensor(out[4 - max(len(c), len(x), len(y)):], dtype, q)
    g.op("SELECT_V2", [tc, tx, ty], [to], "SelectV2Options")
    return g.build([tc, tx, ty], [to])


def cast(src="int8", dst="int32", shape=(2, 4, 8)):
    g = GraphBuilder()
    x = g.tensor(shape, src)
    y = g.tensor(shape, dst)
    g.op("CAST", [x], [y], "CastOptions", inDataType=_TYPE_CODE[src], outDataType=_TYPE_CODE[dst])
    return g.build([x], [y])


def fill(dtype="int8", shape=(2, 4, 8), dims_type="int32", const_dims=True):
    """FILL of a scalar value (a graph input) into ``shape`` (a constant dims tensor, or a
    graph input)."""
    g = GraphBuilder()
    d = g.tensor((len(shape),), dims_type, data=np.asarray(shape) if const_dims else None)
    q = _q(dtype) if dtype in ("int8", "int16") else None
    v = g.tensor((), dtype, q)
    y = g.tensor(shape, dtype, q)
    g.op("FILL", [d, v], [y])
    return g.build([v] if const_dims else [d, v], [y])


def zeros_like(dtype="float32", shape=(2, 4, 8)):
    g = GraphBuilder()
    x = g.tensor(shape, dtype)
    y = g.tensor(shape, dtype)
    g.op("ZEROS_LIKE", [x], [y])
    return g.build([x], [y])


def shape_op(dtype="float32", shape=(2, 4, 8), out="int32"):
    g = GraphBuilder()
    x = g.tensor(shape, dtype, _q(dtype) if dtype in ("int8", "int16") else None)
    y = g.tensor((len(shape),), out)
    g.op("SHAPE", [x], [y], "ShapeOptions", outType=_TYPE_CODE[out])
    return g.build([x], [y])


def floor_op(op, dtype="float32", a=(1, 4, 5, 3), b=(1, 1, 1, 3)):
    """FLOOR_DIV / FLOOR_MOD of a graph input by a constant divisor of no zeros."""
    g = GraphBuilder()
    ta = g.tensor(a, dtype)
    tb = g.tensor(b, dtype, data=np.arange(1, int(np.prod(b)) + 1).reshape(b) * (1 if dtype == "int32" else 0.75))
    ty = g.tensor(tuple(max(p, q) for p, q in zip(a, b)), dtype)
    g.op(op, [ta, tb], [ty])
    return g.build([ta], [ty])


def add_n(dtype="float32", n=3, shape=(2, 4, 8)):
    g = GraphBuilder()
    q = _q(dtype) if dtype in ("int8", "int16") else None
    xs = [g.tensor(shape, dtype, q) for _ in range(n)]
    y = g.tensor(shape, dtype, _q(dtype, other=True) if q else None)
    g.op("ADD_N", xs, [y])
    return g.build(xs, [y])



#: The third ops, one model per op and type arenaplan runs them in that TFLM takes too.
_CMP_OPS = ("EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL")
FAMILIES["third_ops"] = {
    **{f"{op.lower()}_{t}": (lambda op=op, t=t: compare(op, t)) for op in _CMP_OPS for t in ("int8", "float32", "int32")},
    "equal_bool": lambda: compare("EQUAL", "bool"), "not_equal_bool": lambda: compare("NOT_EQUAL", "bool"),
    "greater_bcast": lambda: compare("GREATER", "int8", b=(1, 1, 1, 3)),
    "logical_and": lambda: logical("LOGICAL_AND"), "logical_or": lambda: logical("LOGICAL_OR", b=(1, 1, 5, 1)),
    "logical_not": lambda: logical("LOGICAL_NOT"),
    "arg_max_s8": lambda: arg_min_max("ARG_MAX"), "arg_min_f32": lambda: arg_min_max("ARG_MIN", "float32", axis=1),
    "gather_s8": lambda: gather("int8"), "gather_f32_axis1": lambda: gather("float32", shape=(3, 10, 2), axis=1),
    "gather_input_table": lambda: gather("int8", const_table=False, idx_shape=(2, 3)),
    "embedding_lookup_s8": lambda: embedding_lookup("int8"),
    "embedding_lookup_f32": lambda: embedding_lookup("float32", cols=(4, 2)),
    "embedding_lookup_hybrid": lambda: embedding_lookup("int8", out="float32"),
    "select_v2_s8": lambda: select_v2("int8", c=(1, 4, 1, 3), y=(1, 1, 5, 3)),
    "select_v2_f32": lambda: select_v2("float32"),
    **{f"cast_{a}_{b}": (lambda a=a, b=b: cast(a, b)) for a, b in (("int8", "int32"), ("float32", "int8"),
                                                                     ("int32", "float32"), ("bool", "int16"),
                                                                     ("float32", "bool"))},
    "fill_s8": lambda: fill("int8"), "fill_f32_int64_dims": lambda: fill("float32", dims_type="int64"),
    "fill_s32": lambda: fill("int32"),
    "zeros_like_f32": lambda: zeros_like("float32"), "zeros_like_s32": lambda: zeros_like("int32"),
    "shape": lambda: shape_op("float32"), "shape_s8": lambda: shape_op("int8", shape=(1, 3, 4, 5)),
    "floor_div_f32": lambda: floor_op("FLOOR_DIV"), "floor_mod_f32": lambda: floor_op("FLOOR_MOD", b=(1, 4, 5, 3)),
    "add_n_f32": lambda: add_n("float32"), "add_n_f32_5": lambda: add_n("float32", 5, shape=(3, 7)),
}
#: Tiny tensors: the Prepare peak sets the arena (GATHER's and EMBEDDING_LOOKUP's persistent
#: buffers overlapping their temporaries, ADD_N's temporaries of every input).
FAMILIES["third_prepare_peak"] = {
    "equal_tiny": lambda: compare("EQUAL", a=(1, 2), b=(1, 2)),
    "greater_s16_tiny": lambda: compare("GREATER", "int16", a=(1, 2), b=(1, 2)),
    "gather_tiny": lambda: gather("int8", shape=(2, 1), n=1),
    "gather_r4_tiny": lambda: gather("int8", shape=(2, 1, 1, 1), n=1),
    "embedding_lookup_tiny": lambda: embedding_lookup("int8", rows=2, cols=(1,), n=1),
    "embedding_lookup_r4_tiny": lambda: embedding_lookup("int8", rows=2, cols=(1, 1, 1), n=1),
    "embedding_lookup_hybrid_tiny": lambda: embedding_lookup("int8", rows=2, cols=(1,), n=1, out="float32"),
    "embedding_lookup_hybrid_r4_tiny": lambda: embedding_lookup("int8", rows=2, cols=(1, 1, 1), n=1,
                                                                out="float32"),
    "select_v2_tiny": lambda: select_v2("int8", c=(1, 2), x=(1, 2), y=(1, 2)),
    "fill_tiny": lambda: fill("int8", shape=(1, 2)), "zeros_like_tiny": lambda: zeros_like("int8", shape=(1, 2)),
    "add_n_tiny": lambda: add_n("float32", 4, shape=(1, 1)),
}


#: The int64 rows (the ops TFLM's kernels take int64 in): the comparisons, MAXIMUM, MINIMUM,
#: ZEROS_LIKE, BROADCAST_TO, CONCATENATION, PACK (REVERSE_V2's int64 model is misc_ops'), and
#: tiny ones whose Prepare peak or tail sets the arena.
FAMILIES["int64_ops"] = {
    **{f"{op.lower()}_s64": (lambda op=op: compare(op, "int64")) for op in _CMP_OPS},
    "less_s64_bcast": lambda: compare("LESS", "int64", a=(1, 4, 1, 3), b=(1, 1, 5, 1)),
    "equal_s64_tiny": lambda: compare("EQUAL", "int64", a=(1, 2), b=(1, 2)),
    "maximum_s64": lambda: binary("MAXIMUM", "int64"),
    "minimum_s64_bcast": lambda: binary("MINIMUM", "int64", b=(1, 1, 1, 3)),
    "maximum_s64_tiny": lambda: binary("MAXIMUM", "int64", a=(1, 2), b=(1, 2)),
    "zeros_like_s64": lambda: zeros_like("int64"), "zeros_like_s64_tiny": lambda: zeros_like("int64", shape=(1, 2)),
    "broadcast_to_s64": lambda: broadcast_to("int64"),
    "broadcast_to_s64_tiny": lambda: broadcast_to("int64", shape=(1, 1), new=(2, 1)),
    "concat_s64": lambda: concatenation(3, dtype="int64"),
    "concat_s64_tiny": lambda: concatenation(2, shape=(1, 1, 1), dtype="int64"),
    "pack_s64": lambda: pack("int64"), "pack_s64_axis0": lambda: pack("int64", n=2, shape=(3, 4), axis=0),
}


def requantize(src="int8", dst="uint8", shape=(1, 4, 5, 3), xq=(0.05, 3), yq=(0.07, 131)):
    """QUANTIZE between integer types (int8 <-> uint8: TFLite's Requantize), or DEQUANTIZE to
    float32 (``dst`` "float32", ``yq`` unused)."""
    g = GraphBuilder()
    x = g.tensor(shape, src, xq)
    y = g.tensor(shape, dst, None if dst == "float32" else yq)
    g.op("DEQUANTIZE" if dst == "float32" else "QUANTIZE", [x], [y], version=2 if dst == "float32" else 1)
    return g.build([x], [y])


def _u8(builder, *a, **k):
    """A builder's model with uint8 in place of int8 (zero point 128 where int8 had 0)."""
    global _q
    saved = _q
    _q = lambda dtype: (0.05, 128) if dtype == "uint8" else saved(dtype)   # noqa: E731
    try:
        return builder("uint8", *a, **k)
    finally:
        _q = saved


def chain_uint8(shape=(1, 4, 5, 3)):
    """int8 -> QUANTIZE uint8 -> REVERSE_V2 -> BROADCAST_TO (batch 2) -> QUANTIZE int8, and the
    reversed uint8 DEQUANTIZEd to float32: two outputs."""
    g = GraphBuilder()
    x = g.tensor(shape, "int8", (0.05, 3))
    u = g.tensor(shape, "uint8", (0.06, 140))
    r = g.tensor(shape, "uint8", (0.06, 140))
    axes = g.tensor((1,), "int32", data=np.array([2], np.int32))
    big = (2,) + tuple(shape[1:])
    new = g.tensor((4,), "int32", data=np.array(big, np.int32))
    b = g.tensor(big, "uint8", (0.06, 140))
    y = g.tensor(big, "int8", (0.04, -7))
    f = g.tensor(shape, "float32")
    g.op("QUANTIZE", [x], [u])
    g.op("REVERSE_V2", [u, axes], [r])
    g.op("BROADCAST_TO", [r, new], [b], version=2)
    g.op("QUANTIZE", [b], [y])
    g.op("DEQUANTIZE", [r], [f], version=2)
    return g.build([x], [y, f])


#: The uint8 rows (TensorFlow Lite Micro's uint8 pairs): QUANTIZE int8 -> uint8 and uint8 ->
#: int8, DEQUANTIZE uint8, BROADCAST_TO and REVERSE_V2 of uint8, a chain through them, and tiny
#: ones whose Prepare peak or tail sets the arena.
FAMILIES["uint8_ops"] = {
    "quantize_s8_to_u8": lambda: requantize("int8", "uint8"),
    "quantize_s8_to_u8_shift": lambda: requantize("int8", "uint8", xq=(0.05, 0), yq=(0.05, 128)),
    "quantize_u8_to_s8": lambda: requantize("uint8", "int8", xq=(0.07, 131), yq=(0.05, 3)),
    "dequantize_u8": lambda: requantize("uint8", "float32", xq=(0.07, 131)),
    "broadcast_to_u8": lambda: _u8(broadcast_to),
    "reverse_v2_u8": lambda: _u8(reverse_v2, shape=(2, 3, 4), axes=(1, 2)),
    "quantize_s8_to_u8_tiny": lambda: requantize("int8", "uint8", shape=(1, 2)),
    "dequantize_u8_tiny": lambda: requantize("uint8", "float32", shape=(1, 1)),
    "broadcast_to_u8_tiny": lambda: _u8(broadcast_to, shape=(1, 1), new=(2, 1)),
    "reverse_v2_u8_tiny": lambda: _u8(reverse_v2, shape=(2,), axes=(0,)),
    "chain_uint8": chain_uint8,
}


def random_third_op_model(rng: np.random.Generator):
    """(kind, flatbuffer) of a random one-op model of the third ops, in a type TFLM's kernel
    takes: comparisons (broadcasting, int8 / int16 / int32 / int64 / float32 / bool),
    logical ops, ARG_MAX / ARG_MIN over any axis, GATHER over any axis of a table of rank
    1-4 with 1-2-D positions, EMBEDDING_LOOKUP (int8, float32 and int8 -> float32 tables
    of rank 2-4), SELECT_V2 with broadcasting, CAST between any two of int8, int16, int32,
    float32 and bool, FILL, ZEROS_LIKE, SHAPE, FLOOR_DIV / FLOOR_MOD, ADD_N of 2-5 inputs,
    over small shapes (some tiny, where the Prepare peak sets the arena)."""
    def r(lo, hi):
        return int(rng.integers(lo, hi + 1))
    kinds = ["compare", "logical", "arg", "gather", "embedding", "select", "cast", "fill", "zeros_like", "shape",
             "floor", "add_n"]
    kind = kinds[r(0, len(kinds) - 1)]
    shp = tuple(r(1, 4) for _ in range(r(1, 4)))
    if kind == "compare":
        op = _CMP_OPS[r(0, 5)]
        types = {"EQUAL": ("int8", "int32", "int64", "float32", "bool"), "GREATER": ("int8", "int16", "int32",
                                                                                   "int64", "float32")}
        ts = types.get(op, types["EQUAL"] if op == "NOT_EQUAL" else ("int8", "int32", "int64", "float32"))
        b = shp if rng.random() < 0.5 else tuple(1 if rng.random() < 0.5 else d for d in shp)
        return kind, compare(op, ts[r(0, len(ts) - 1)], a=shp, b=b)
    if kind == "logical":
        op = ["LOGICAL_AND", "LOGICAL_OR", "LOGICAL_NOT"][r(0, 2)]
        return kind, logical(op, shp, None if op == "LOGICAL_NOT" or rng.random() < 0.5 else
                             tuple(1 if rng.random() < 0.5 else d for d in shp))
    if kind == "arg":
        return kind, arg_min_max(["ARG_MAX", "ARG_MIN"][r(0, 1)], ["int8", "float32"][r(0, 1)],
                                 shape=shp, axis=r(-len(shp), len(shp) - 1), axis_shape=[(1,), ()][r(0, 1)])
    if kind == "gather":
        axis = r(0, len(shp) - 1)
        table = tuple(max(d, 2) if i == axis else d for i, d in enumerate(shp))
        return kind, gather(["int8", "float32"][r(0, 1)], shape=table, n=r(1, 3), axis=axis,
                            const_table=rng.random() < 0.5, idx_shape=None if rng.random() < 0.6 else (r(1, 2), r(1, 2)))
    if kind == "embedding":
        mode = ["int8", "float32", "hybrid"][r(0, 2)]
        return kind, embedding_lookup("float32" if mode == "float32" else "int8", rows=r(2, 4),
                                      cols=tuple(r(1, 3) for _ in range(r(1, 3))), n=r(1, 3),
                                      out="float32" if mode == "hybrid" else None)
    if kind == "select":
        full = (1,) * (4 - len(shp)) + shp
        def part():
            return tuple(1 if rng.random() < 0.4 else d for d in full)
        return kind, select_v2(["int8", "int16", "float32"][r(0, 2)], c=part(), x=part(), y=full)
    if kind == "cast":
        ts = ("int8", "int16", "int32", "float32", "bool")
        return kind, cast(ts[r(0, 4)], ts[r(0, 4)], shape=shp)
    if kind == "fill":
        return kind, fill(["int8", "int32", "float32"][r(0, 2)], shape=shp, dims_type=["int32", "int64"][r(0, 1)])
    if kind == "zeros_like":
        return kind, zeros_like(["int8", "int32", "int64", "float32"][r(0, 3)], shape=shp)
    if kind == "shape":
        return kind, shape_op(["int8", "int16", "float32", "bool"][r(0, 3)], shape=shp)
    if kind == "floor":
        b = tuple(1 if rng.random() < 0.5 else d for d in shp)
        return kind, floor_op(["FLOOR_DIV", "FLOOR_MOD"][r(0, 1)], a=shp, b=b)
    return kind, add_n("float32", r(2, 5), shape=shp)


#: Checked by benchmarks/bench_tflm.py only (exact there), to keep tests/test_tflm_ops.py fast:
#: the float32 of the ops arenaplan runs in int8 only (TFLM's kernels take float32 too; the
#: rules are the int8 ones' without quantisation), and more tiny cases.
BENCH_FAMILIES = {
    "float32_tflm_only": {
        "maximum_f32": lambda: binary("MAXIMUM", "float32", version=2),
        "minimum_f32": lambda: binary("MINIMUM", "float32", b=(1, 1, 1, 3)),
        "abs_f32": lambda: unary("ABS", "float32"),
        "resize_nearest_f32": lambda: resize("RESIZE_NEAREST_NEIGHBOR", "float32"),
        "resize_bilinear_f32": lambda: resize("RESIZE_BILINEAR", "float32"),
        "batch_to_space_nd_f32": lambda: batch_space("BATCH_TO_SPACE_ND", "float32"),
        "space_to_batch_nd_f32": lambda: batch_space("SPACE_TO_BATCH_ND", "float32", shape=(1, 3, 5, 2),
                                                     pads=((1, 0), (0, 1))),
        "mirror_pad_f32": lambda: mirror_pad("float32"), "prelu_f32": lambda: prelu("float32"),
        "squared_difference_f32": lambda: binary("SQUARED_DIFFERENCE", "float32"),
        "reduce_max_f32": lambda: mean(op="REDUCE_MAX", dtype="float32"),
        "reduce_min_f32": lambda: mean(op="REDUCE_MIN", dtype="float32", axes=(2,), keep=False),
        "sum_f32": lambda: mean(op="SUM", dtype="float32"), "broadcast_to_f32": lambda: broadcast_to("float32"),
        "pack_f32": lambda: pack("float32"), "unpack_f32": lambda: unpack("float32"),
        "slice_f32": lambda: slice_("float32"),
        "depth_to_space_f32": lambda: depth_space("DEPTH_TO_SPACE", "float32"),
        "space_to_depth_f32": lambda: depth_space("SPACE_TO_DEPTH", "float32", shape=(1, 4, 6, 3)),
    },
    "new_prepare_peak_more": {
        "abs_tiny": lambda: unary("ABS", shape=(1, 2)),
        "squared_difference_tiny": lambda: binary("SQUARED_DIFFERENCE", a=(1, 2), b=(1, 2)),
        "resize_bilinear_tiny": lambda: resize("RESIZE_BILINEAR", shape=(1, 1, 1, 1), size=(2, 1)),
        "space_to_depth_tiny": lambda: depth_space("SPACE_TO_DEPTH", shape=(1, 2, 2, 1)),
        "broadcast_to_tiny": lambda: broadcast_to(shape=(1, 1), new=(2, 1)),
        "unpack_tiny": lambda: unpack(shape=(2, 1), axis=0),
        "mul_s16_tiny": lambda: binary("MUL", "int16", a=(1, 2), b=(1, 2), options_type="MulOptions"),
        "concat_s16_tiny": lambda: concatenation(2, shape=(1, 1, 1), dtype="int16"),
        "requantize_s16_s8_tiny": lambda: requantize("int16", "int8", shape=(1, 1)),
    },
    # the third ops in the types TFLM takes beyond arenaplan's rows, and more tiny cases
    "third_ops_tflm_only": {
        "greater_s16": lambda: compare("GREATER", "int16"),
        "select_v2_s16": lambda: select_v2("int16", c=(1, 1, 5, 3)),
        **{f"cast_{a}_{b}": (lambda a=a, b=b: cast(a, b)) for a in ("int8", "int16", "int32", "float32", "bool")
           for b in ("int8", "int16", "int32", "float32", "bool")},
        "zeros_like_s8": lambda: zeros_like("int8"),
        "shape_bool": lambda: shape_op("bool"), "shape_s16": lambda: shape_op("int16", shape=(1, 2, 3, 4, 5)),
        "add_n_s8": lambda: add_n("int8"), "add_n_s8_tiny": lambda: add_n("int8", 2, shape=(1, 1)),
        "arg_max_f32_tiny": lambda: arg_min_max("ARG_MAX", "float32", shape=(1, 2)),
        "logical_not_tiny": lambda: logical("LOGICAL_NOT", shape=(1, 2)),
        "cast_tiny": lambda: cast("int8", "float32", shape=(1, 2)),
        "shape_tiny": lambda: shape_op("int8", shape=(1, 2)),
        "floor_div_tiny": lambda: floor_op("FLOOR_DIV", a=(1, 2), b=(1, 2)),
    },
}


def with_extra_variables(content: bytes, n: int, size: int = 5) -> bytes:
    """The streaming model with ``n`` more resource variables its initialisation assigns
    (int8 constants of ``size`` values) and nothing reads."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as S
    m = S.ModelT.InitFromObj(S.Model.GetRootAsModel(content, 0))
    sg = m.subgraphs[1]
    codes = {c.builtinCode: i for i, c in enumerate(m.operatorCodes)}

    def tensor(shape, ttype, data=None, q=None):
        t = S.TensorT()
        t.shape, t.type, t.name = list(shape), ttype, f"extra{len(sg.tensors)}"
        if q is not None:
            t.quantization = S.QuantizationParametersT()
            t.quantization.scale, t.quantization.zeroPoint = [q[0]], [q[1]]
        b = S.BufferT()
        if data is not None:
            b.data = list(data)
        m.buffers.append(b)
        t.buffer = len(m.buffers) - 1
        sg.tensors.append(t)
        return len(sg.tensors) - 1

    for k in range(n):
        h = tensor((), S.TensorType.RESOURCE)
        v = tensor((size,), S.TensorType.INT8, range(size), (0.1, 0))
        vh = S.OperatorT()
        vh.opcodeIndex, vh.inputs, vh.outputs = codes[S.BuiltinOperator.VAR_HANDLE], [], [h]
        vh.builtinOptionsType = S.BuiltinOptions.VarHandleOptions
        vh.builtinOptions = S.VarHandleOptionsT()
        vh.builtinOptions.container, vh.builtinOptions.sharedName = "streaming", f"extra{k}"
        assign = S.OperatorT()
        assign.opcodeIndex, assign.inputs, assign.outputs = codes[S.BuiltinOperator.ASSIGN_VARIABLE], [h, v], []
        sg.operators += [vh, assign]
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


RESOURCE_CASES = {"streaming": {}, "quantize_init": dict(init="quantize"), "nested_call_once": dict(init="nested"),
                  "late_reader": dict(late_reader=True), "acc_read_first": dict(read_acc_first=True),
                  "assign_first": dict(assign_first=True, init="none"), "sum_not_output": dict(sum_output=False),
                  "three_variables": dict(extra=1), "five_variables": dict(extra=3)}


def resource_model(case: str) -> bytes:
    """The streaming resource-variable model of RESOURCE_CASES[case] (harness.resource_models)."""
    from .resource_models import streaming_model
    kw = dict(RESOURCE_CASES[case])
    extra = kw.pop("extra", 0)
    content, _ = streaming_model(np.random.default_rng(1), **kw)
    return with_extra_variables(content, extra) if extra else content


def random_op_model(rng: np.random.Generator):
    """(kind, flatbuffer) of a random one-op model of the families above: CONV_2D and
    DEPTHWISE_CONV_2D (int8 or 16x8, strides 1-2, per-channel or per-tensor), TRANSPOSE_CONV,
    FULLY_CONNECTED, MEAN, PAD / PADV2, CONCATENATION of 2-4 inputs, SPLIT of 2-4 outputs,
    ADD / SUB with or without broadcasting, over small random shapes. Some are models TFLM
    refuses (e.g. a shape its kernel does not take): callers skip those."""
    def r(lo, hi):
        return int(rng.integers(lo, hi + 1))
    kind = ["conv", "depthwise", "transpose_conv", "fc", "mean", "pad", "concat", "split", "add_sub"][r(0, 8)]
    dt = ["int8", "int16"][r(0, 1)]
    if kind == "conv":
        h, w = r(1, 7), r(1, 7)
        k = r(1, min(3, h, w))
        return kind, conv(dt, x_shape=(1, h, w, r(1, 5)), oc=r(1, 9), k=(k, k), stride=r(1, 2),
                          per_channel=rng.random() < 0.7)
    if kind == "depthwise":
        h, w, c = r(1, 7), r(1, 7), r(1, 5)
        k = r(1, min(3, h, w))
        return kind, conv(dt, depthwise=True, x_shape=(1, h, w, c), oc=c * r(1, 3), k=(k, k))
    if kind == "transpose_conv":
        return kind, transpose_conv(dt, x_shape=(1, r(1, 5), r(1, 5), r(1, 5)), oc=r(1, 7), k=r(1, 3),
                                    stride=r(1, 2))
    if kind == "fc":
        return kind, fully_connected(dt, batches=r(1, 3), depth=r(1, 20), units=r(1, 9))
    if kind == "mean":
        return kind, mean(shape=(1, r(1, 6), r(1, 6), r(1, 9)), axes=[(1, 2), (1,), (2,)][r(0, 2)],
                          keep=rng.random() < 0.5)
    if kind == "pad":
        pads = ((0, 0), (r(0, 2), r(0, 2)), (r(0, 2), r(0, 2)), (0, r(0, 1)))
        return kind, pad(dt, v2=dt == "int8" and rng.random() < 0.5, shape=(1, r(1, 5), r(1, 5), r(1, 5)),
                         pads=pads)
    if kind == "concat":
        return kind, concatenation(r(2, 4), shape=(1, r(1, 5), r(1, 5)), axis=r(1, 2))
    if kind == "split":
        n = r(2, 4)
        return kind, split(n, shape=(1, r(1, 4), 2 * n, r(1, 4)), axis=2)
    a = (1, r(1, 5), r(1, 5), r(1, 5))
    b = a if rng.random() < 0.5 else (1, 1, 1, a[3])
    op = ["ADD", "SUB"][r(0, 1)]
    return kind, binary(op, dt, a=a, b=b, options_type="AddOptions" if op == "ADD" else "SubOptions",
                        version=3 if dt == "int16" else 2)


def random_new_op_model(rng: np.random.Generator):
    """(kind, flatbuffer) of a random one-op model of the ops added after the first rules
    (MAXIMUM/MINIMUM, ABS, RESIZE_*, DEPTH_TO_SPACE/SPACE_TO_DEPTH, the batch/space ops,
    MIRROR_PAD of 2-4 dimensions, PRELU, SQUARED_DIFFERENCE, REDUCE_MAX/MIN, SUM, BROADCAST_TO,
    SLICE, PACK, UNPACK, RELU6) in int8, int16 (where TFLM's kernel takes it) or float32, over
    small random shapes, axes, blocks and paddings."""
    def r(lo, hi):
        return int(rng.integers(lo, hi + 1))
    kinds = ["maxmin", "abs", "resize", "depth_space", "batch_space", "mirror_pad", "prelu", "sqdiff", "reduce",
             "sum", "broadcast_to", "slice", "pack", "unpack", "relu6"]
    kind = kinds[r(0, len(kinds) - 1)]
    dt = ["int8", "int16", "float32"][r(0, 2)]
    no16 = "int8" if dt == "int16" else dt          # the ops whose TFLM kernel refuses int16
    shp = (1, r(1, 5), r(1, 5), r(1, 5))
    if kind == "maxmin":
        b = shp if rng.random() < 0.5 else (1, 1, 1, shp[3])
        return kind, binary(["MAXIMUM", "MINIMUM"][r(0, 1)], dt, a=shp, b=b, version=2)
    if kind == "abs":
        return kind, unary("ABS", dt, shape=shp)
    if kind == "resize":
        return kind, resize(["RESIZE_NEAREST_NEIGHBOR", "RESIZE_BILINEAR"][r(0, 1)], no16, shape=shp,
                            size=(r(1, 8), r(1, 8)))
    if kind == "depth_space":
        b = r(1, 3)
        if rng.random() < 0.5:
            return kind, depth_space("DEPTH_TO_SPACE", no16, shape=(1, r(1, 4), r(1, 4), b * b * r(1, 3)), block=b)
        return kind, depth_space("SPACE_TO_DEPTH", no16, shape=(1, b * r(1, 3), b * r(1, 3), r(1, 4)), block=b)
    if kind == "batch_space":
        bh, bw = r(1, 3), r(1, 3)
        op = ["SPACE_TO_BATCH_ND", "BATCH_TO_SPACE_ND"][r(0, 1)]
        pads = ((r(0, 1), r(0, 1)), (r(0, 1), r(0, 1)))
        h, w = bh * r(1, 3) - sum(pads[0]), bw * r(1, 3) - sum(pads[1])
        if h < 1 or w < 1:
            pads = ((0, 0), (0, 0))
            h, w = bh * r(1, 3), bw * r(1, 3)
        return kind, batch_space(op, no16, shape=(1, h, w, r(1, 3)), block=(bh, bw), pads=pads)
    if kind == "mirror_pad":
        n = r(2, 4)
        shape = tuple(r(2, 5) for _ in range(n))
        mode = r(0, 1)
        pads = tuple((r(0, d - 1 if mode == 0 else d), r(0, d - 1 if mode == 0 else d)) for d in shape)
        return kind, mirror_pad(no16, shape=shape, pads=pads, mode=mode)
    if kind == "prelu":
        return kind, prelu(no16, shape=shp, alpha_shape=[(1, 1, shp[3]), shp[1:]][r(0, 1)])
    if kind == "sqdiff":
        b = shp if rng.random() < 0.5 else (1, 1, 1, shp[3])
        return kind, binary("SQUARED_DIFFERENCE", dt, a=shp, b=b)
    if kind in ("reduce", "sum"):
        op = "SUM" if kind == "sum" else ["REDUCE_MAX", "REDUCE_MIN"][r(0, 1)]
        return kind, mean(shape=shp, axes=[(1, 2), (1,), (2,), (3,), (1, 2, 3)][r(0, 4)], keep=rng.random() < 0.5,
                          dtype=dt if op == "SUM" else no16, op=op)
    if kind == "broadcast_to":
        return kind, broadcast_to(dt, shape=(1, 1, shp[2], 1), new=(r(1, 2), r(1, 3), shp[2], r(1, 4)))
    if kind == "slice":
        b = tuple(r(0, d - 1) for d in shp)
        return kind, slice_(dt, shape=shp, begin=b, size=tuple(r(1, d - k) for d, k in zip(shp, b)))
    if kind == "pack":
        s = (r(1, 4), r(1, 5))
        return kind, pack(dt, n=r(1, 4), shape=s, axis=r(0, 2))
    if kind == "unpack":
        s = (r(1, 3), r(1, 4), r(1, 5))
        return kind, unpack(dt, shape=s, axis=r(0, 2))
    return kind, unary("RELU6", dt, shape=shp)


# --- the fourth ops: float32 math, DIV, ELU, the normalisation and scan ops, BATCH_MATMUL, ... ----
#: The element-wise float32 ops whose TFLM kernel has no options (elementwise.cc, exp.cc,
#: neg.cc, round.cc, floor.cc, ceil.cc)
MATH_OPS = ("EXP", "LOG", "SIN", "COS", "SQRT", "RSQRT", "SQUARE", "NEG", "ROUND", "FLOOR", "CEIL")


def math_unary(op, dtype="float32", shape=(1, 4, 5, 3)):
    """A unary op; int8 (RSQRT, ELU) with an input scale and zero point and the output's own."""
    g = GraphBuilder()
    x = g.tensor(shape, dtype, (0.05, -100) if dtype == "int8" else _q(dtype))
    y = g.tensor(shape, dtype, (0.04, 30) if dtype == "int8" else _q(dtype, other=True))
    g.op(op, [x], [y], version=2 if dtype != "float32" else 1)
    return g.build([x], [y])


def div(dtype="float32", a=(1, 4, 5, 3), b=(1, 4, 5, 3)):
    g = GraphBuilder()
    q = (lambda k: (0.05, -3) if k == 0 else (0.1, 4) if k == 1 else (0.5, 2)) if dtype == "int8" else (lambda k: None)
    ta = g.tensor(a, dtype, q(0))
    # a constant divisor of no zeros (int8: values above the zero point)
    data = np.arange(1, int(np.prod(b)) + 1).reshape(b) % 5 + 1
    tb = g.tensor(b, dtype, q(1), data=data + (4 if dtype == "int8" else 0))
    ty = g.tensor(tuple(max(p, r) for p, r in zip(a, b)), dtype, q(2))
    g.op("DIV", [ta, tb], [ty], "DivOptions", version=2 if dtype == "int8" else 1)
    return g.build([ta], [ty])


def norm(op, dtype="float32", shape=(2, 4, 8)):
    """L2_NORMALIZATION or LOG_SOFTMAX over the last axis (int8: the output quantisation
    TFLite requires)."""
    g = GraphBuilder()
    out = {"L2_NORMALIZATION": (1.0 / 128, 0), "LOG_SOFTMAX": (16.0 / 256, 127)}[op]
    x = g.tensor(shape, dtype, (0.05, 3) if dtype == "int8" else None)
    y = g.tensor(shape, dtype, out if dtype == "int8" else None)
    if op == "L2_NORMALIZATION":
        g.op(op, [x], [y], "L2NormOptions", version=2 if dtype == "int8" else 1)
    else:
        g.op(op, [x], [y], "LogSoftmaxOptions", version=2 if dtype == "int8" else 1)
    return g.build([x], [y])


def l2_pool(x_shape=(1, 6, 6, 4), k=2, stride=2, dtype="float32"):
    g = GraphBuilder()
    x = g.tensor(x_shape, dtype)
    n, h, w, c = x_shape
    y = g.tensor((n, (h - k) // stride + 1, (w - k) // stride + 1, c), dtype)      # VALID padding
    g.op("L2_POOL_2D", [x], [y], "Pool2DOptions", padding=1, strideH=stride, strideW=stride, filterHeight=k,
         filterWidth=k)
    return g.build([x], [y])


def cumsum(dtype="float32", shape=(2, 5, 8), axis=1, exclusive=False, reverse=False):
    g = GraphBuilder()
    x = g.tensor(shape, dtype, (0.05, -2) if dtype == "int8" else None)
    a = g.tensor((), "int32", data=np.array(axis))
    y = g.tensor(shape, dtype, (0.25, 1) if dtype == "int8" else None)
    g.op("CUMSUM", [x, a], [y], "CumsumOptions", exclusive=exclusive, reverse=reverse)
    return g.build([x], [y])


def batch_matmul(dtype="int8", a=(2, 4, 12), b=(12, 8), adj_x=False, adj_y=False, const_rhs=False):
    """LHS ``a`` times RHS ``b`` (shapes as stored, before adj_x / adj_y); int16 is 16x16
    with zero points 0."""
    g = GraphBuilder()
    q = {"int8": ((0.05, -3), (0.02, 0), (0.1, 5)), "int16": ((0.05, 0), (0.02, 0), (0.1, 0))}.get(dtype)
    ta = g.tensor(a, dtype, q and q[0])
    tb = g.tensor(b, dtype, q and q[1], data=(np.arange(int(np.prod(b))).reshape(b) % 11 - 5) if const_rhs else None)
    m = a[-1] if adj_x else a[-2]
    n = b[-2] if adj_y else b[-1]
    batch = np.broadcast_shapes(tuple(a[:-2]), tuple(b[:-2]))
    ty = g.tensor(tuple(batch) + (m, n), dtype, q and q[2])
    g.op("BATCH_MATMUL", [ta, tb], [ty], "BatchMatMulOptions", adjX=adj_x, adjY=adj_y)
    return g.build([ta] if const_rhs else [ta, tb], [ty])


def gather_nd(dtype="int8", shape=(4, 5, 8), idx=((3, 4), (0, 0), (2, 1))):
    g = GraphBuilder()
    x = g.tensor(shape, dtype, (0.05, 0) if dtype == "int8" else None)
    idx = np.asarray(idx, np.int32)
    ti = g.tensor(idx.shape, "int32", data=idx)
    y = g.tensor(tuple(idx.shape[:-1]) + tuple(shape[idx.shape[-1]:]), dtype, (0.05, 0) if dtype == "int8" else None)
    g.op("GATHER_ND", [x, ti], [y])
    return g.build([x], [y])


def broadcast_args(dtype="int32", a=(1, 1, 1, 1), n=2):
    g = GraphBuilder()
    ta = g.tensor((len(a),), dtype, data=np.asarray(a))
    tb = g.tensor((n,), dtype)
    ty = g.tensor((max(len(a), n),), dtype)
    g.op("BROADCAST_ARGS", [ta, tb], [ty])
    return g.build([tb], [ty])


def rsqrt_s8(shape=(1, 4, 5, 3)):
    """An int8 RSQRT whose input zero point is -128 (every input value is defined: TFLM's
    kernel fails on values below the zero point)."""
    g = GraphBuilder()
    x = g.tensor(shape, "int8", (0.05, -128))
    y = g.tensor(shape, "int8", (0.04, 30))
    g.op("RSQRT", [x], [y], version=2)
    return g.build([x], [y])


FAMILIES["fourth_ops"] = {
    **{f"{op.lower()}_f32": (lambda op=op: math_unary(op)) for op in MATH_OPS},
    "rsqrt_s8": lambda: rsqrt_s8(),
    "elu_f32": lambda: math_unary("ELU"), "elu_s8": lambda: math_unary("ELU", "int8"),
    **{f"div_{t}": (lambda t=t: div(t)) for t in ("float32", "int8", "int32")},
    "div_f32_bcast": lambda: div("float32", b=(1, 1, 1, 3)),
    **{f"{op.lower()}_{t}": (lambda op=op, t=t: norm(op, t)) for op in ("L2_NORMALIZATION", "LOG_SOFTMAX")
       for t in ("float32", "int8")},
    "log_softmax_s8_wide": lambda: norm("LOG_SOFTMAX", "int8", shape=(3, 100)),
    "l2_pool_2d": lambda: l2_pool(), "l2_pool_2d_k3": lambda: l2_pool((1, 7, 5, 2), k=3, stride=1),
    "cumsum_f32": lambda: cumsum(), "cumsum_s8": lambda: cumsum("int8"),
    "cumsum_s8_rev": lambda: cumsum("int8", axis=-1, exclusive=True, reverse=True),
    **{f"batch_matmul_{t}{k}": (lambda t=t, kw=kw: batch_matmul(t, **kw)) for t in ("float32", "int8", "int16")
       for k, kw in (("", {}), ("_const", dict(const_rhs=True)), ("_adj_y", dict(adj_y=True, b=(8, 12))),
                     ("_adj_x", dict(adj_x=True, a=(2, 12, 4))), ("_bcast", dict(a=(3, 1, 2, 2), b=(1, 4, 2, 1))))},
    "gather_nd_s8": lambda: gather_nd("int8"), "gather_nd_f32": lambda: gather_nd("float32"),
    "gather_nd_elements": lambda: gather_nd("int8", idx=((3, 4, 7), (0, 0, 0))),
    "broadcast_args_s32": lambda: broadcast_args("int32"), "broadcast_args_s64": lambda: broadcast_args("int64"),
}
#: Tiny tensors: the Prepare or commit peak sets the arena (the int8 OpData LOG_SOFTMAX and
#: CUMSUM allocate in Prepare, GATHER_ND's output dims and BATCH_MATMUL's buffers over the
#: live temporaries, a float32 ELU without its table).
FAMILIES["fourth_prepare_peak"] = {
    **{f"{op.lower()}_tiny": (lambda op=op: math_unary(op, shape=(1, 2))) for op in ("EXP", "NEG", "FLOOR")},
    "rsqrt_s8_tiny": lambda: rsqrt_s8((1, 2)),
    "elu_f32_tiny": lambda: math_unary("ELU", shape=(1, 2)),
    "elu_s8_tiny": lambda: math_unary("ELU", "int8", shape=(1, 2)),
    "div_s8_tiny": lambda: div("int8", a=(1, 2), b=(1, 1)),
    "l2_normalization_s8_tiny": lambda: norm("L2_NORMALIZATION", "int8", shape=(1, 2)),
    "log_softmax_s8_tiny": lambda: norm("LOG_SOFTMAX", "int8", shape=(1, 2)),
    "l2_pool_2d_tiny": lambda: l2_pool((1, 2, 2, 1)),
    "cumsum_s8_tiny": lambda: cumsum("int8", shape=(1, 2)),
    "gather_nd_tiny": lambda: gather_nd("int8", shape=(2, 1), idx=((1,),)),
    "broadcast_args_tiny": lambda: broadcast_args("int32", a=(1,), n=1),
    **{f"batch_matmul_{t}_tiny": (lambda t=t: batch_matmul(t, a=(1, 2), b=(2, 1)))
       for t in ("float32", "int8", "int16")},
    **{f"batch_matmul_{t}_tiny_adj_x": (lambda t=t: batch_matmul(t, a=(1, 1), b=(1, 1), adj_x=True))
       for t in ("float32", "int8", "int16")},
}


def random_fourth_op_model(rng: np.random.Generator):
    """(kind, flatbuffer) of a random one-op model of the fourth ops in a type TFLM's kernel
    takes, over small shapes (some tiny): the float32 math ops, RSQRT and ELU (int8 too),
    DIV (float32, int8, int32, broadcasting), L2_NORMALIZATION and LOG_SOFTMAX, L2_POOL_2D,
    CUMSUM over any axis either way, BATCH_MATMUL of ranks 2-4 with batch broadcasting and
    any adj_x / adj_y (a constant RHS or not), GATHER_ND, BROADCAST_ARGS."""
    def r(lo, hi):
        return int(rng.integers(lo, hi + 1))
    kinds = ["math", "rsqrt_elu", "div", "norm", "l2_pool", "cumsum", "batch_matmul", "gather_nd", "broadcast_args"]
    kind = kinds[r(0, len(kinds) - 1)]
    shp = tuple(r(1, 4) for _ in range(r(1, 4)))
    if kind == "math":
        return kind, math_unary(MATH_OPS[r(0, len(MATH_OPS) - 1)], shape=shp)
    if kind == "rsqrt_elu":
        dt = ["int8", "float32"][r(0, 1)]
        if rng.random() < 0.5:
            return kind, rsqrt_s8(shp) if dt == "int8" else math_unary("RSQRT", shape=shp)
        return kind, math_unary("ELU", dt, shape=shp)
    if kind == "div":
        b = shp if rng.random() < 0.5 else tuple(1 if rng.random() < 0.5 else d for d in shp)
        return kind, div(["float32", "int8", "int32"][r(0, 2)], a=shp, b=b)
    if kind == "norm":
        return kind, norm(["L2_NORMALIZATION", "LOG_SOFTMAX"][r(0, 1)], ["float32", "int8"][r(0, 1)], shape=shp)
    if kind == "l2_pool":
        k = r(1, 3)
        return kind, l2_pool((1, r(k, 6), r(k, 6), r(1, 4)), k=k, stride=r(1, 2))
    if kind == "cumsum":
        return kind, cumsum(["float32", "int8"][r(0, 1)], shape=shp, axis=r(-len(shp), len(shp) - 1),
                            exclusive=rng.random() < 0.5, reverse=rng.random() < 0.5)
    if kind == "batch_matmul":
        m, k, n = r(1, 4), r(1, 4), r(1, 4)
        batch = tuple(r(1, 3) for _ in range(r(0, 2)))
        bb = tuple(1 if rng.random() < 0.4 else d for d in batch)[r(0, len(batch)):] if batch else ()
        adj_x, adj_y = rng.random() < 0.5, rng.random() < 0.5
        a = batch + ((k, m) if adj_x else (m, k))
        b = bb + ((n, k) if adj_y else (k, n))
        if len(a) < 2 or len(b) < 2:
            a, b = (m, k) if not adj_x else (k, m), (k, n) if not adj_y else (n, k)
        return kind, batch_matmul(["float32", "int8", "int16"][r(0, 2)], a=a, b=b, adj_x=adj_x, adj_y=adj_y,
                                  const_rhs=rng.random() < 0.5)
    if kind == "gather_nd":
        depth = r(1, len(shp))
        idx = [[r(0, shp[j] - 1) for j in range(depth)] for _ in range(r(1, 3))]
        return kind, gather_nd(["int8", "float32"][r(0, 1)], shape=shp, idx=idx)
    n = r(1, 4)
    return kind, broadcast_args(["int32", "int64"][r(0, 1)], a=tuple(1 for _ in range(r(1, 4))), n=n)


def act_s16(op, shape=(1, 10)):
    """An int16 SOFTMAX, LOGISTIC or TANH: zero points 0, the output at 1 / 32768."""
    g = GraphBuilder()
    x = g.tensor(shape, "int16", (0.001, 0))
    y = g.tensor(shape, "int16", (1 / 32768, 0))
    if op == "SOFTMAX":
        g.op(op, [x], [y], "SoftmaxOptions", beta=1.0)
    else:
        g.op(op, [x], [y])
    return g.build([x], [y])


def svdf(time="int8", rank=2, batch=1, units=8, depth=24, memory=4):
    """An int8 SVDF with int8 time weights and an int8 state with a zero point, or int16 ones
    (the bias at the state's scale times the time weights', as TFLM's kernel checks)."""
    g = GraphBuilder()
    f = units * rank
    x = g.tensor((batch, depth), "int8", (0.05, 0))
    wf = g.tensor((f, depth), "int8", (0.01, 0), data=np.arange(f * depth).reshape(f, depth) % 7 - 3)
    qt, qs = ((0.05, 0), (0.02, -3)) if time == "int8" else ((1e-3, 0), (2e-3, 0))
    wt = g.tensor((f, memory), time, qt, data=np.arange(f * memory).reshape(f, memory) % 9 - 4)
    b = g.tensor((units,), "int32", (qt[0] * qs[0], 0), data=np.arange(units) * 40 - 120)
    state = g.tensor((batch, f * memory), time, qs, variable=True)
    y = g.tensor((batch, units), "int8", (2e-3, 0))
    g.op("SVDF", [x, wf, wt, b, state], [y], "SVDFOptions", rank=rank, fusedActivationFunction=1)
    return g.build([x], [y])


#: The int16 rows and SVDF's int8 time weights (tiny ones where the Prepare peak sets the
#: arena): the int16 SOFTMAX keeps two 513-entry tables, filled in Prepare over its live
#: temporaries; SVDF's scratch follows its rank.
FAMILIES["fourth_int16"] = {
    "softmax_s16": lambda: act_s16("SOFTMAX"), "softmax_s16_tiny": lambda: act_s16("SOFTMAX", (1, 2)),
    "softmax_s16_wide": lambda: act_s16("SOFTMAX", (4, 50)),
    "logistic_s16": lambda: act_s16("LOGISTIC"), "logistic_s16_tiny": lambda: act_s16("LOGISTIC", (1, 2)),
    "tanh_s16": lambda: act_s16("TANH"), "tanh_s16_tiny": lambda: act_s16("TANH", (1, 2)),
    "minimum_s16": lambda: binary("MINIMUM", "int16", b=(1, 1, 1, 3), version=2),
    "maximum_s16_tiny": lambda: binary("MAXIMUM", "int16", a=(1, 2), b=(1, 2), version=2),
    "abs_s16_tiny": lambda: unary("ABS", "int16", shape=(1, 2), version=3),
    "resize_nearest_s16_tiny": lambda: resize("RESIZE_NEAREST_NEIGHBOR", "int16", shape=(1, 1, 1, 1), size=(2, 1)),
    "broadcast_to_s16_tiny": lambda: broadcast_to("int16", shape=(1, 1), new=(2, 1)),
    "select_v2_s16_tiny": lambda: select_v2("int16", c=(1, 2), x=(1, 2), y=(1, 2)),
    "cast_s16_s8_tiny": lambda: cast("int16", "int8", shape=(1, 2)), "cast_s16_f32": lambda: cast("int16", "float32"),
    "squared_difference_s16_tiny": lambda: binary("SQUARED_DIFFERENCE", "int16", a=(1, 2), b=(1, 2)),
    "sum_s16_tiny": lambda: mean(shape=(1, 1, 2, 1), axes=(2,), op="SUM", dtype="int16"),
    "svdf_time_s8": lambda: svdf(), "svdf_time_s8_rank1": lambda: svdf(rank=1),
    "svdf_time_s8_batch2": lambda: svdf(batch=2, units=3, memory=5),
    "svdf_time_s8_tiny": lambda: svdf(rank=1, units=1, depth=1, memory=1),
    "svdf_time_s16_rank2": lambda: svdf("int16"), "svdf_time_s16_batch2": lambda: svdf("int16", batch=2),
}


def chain_fourth_f32():
    """BATCH_MATMUL -> ELU -> DIV (constant) -> EXP -> CUMSUM -> LOG_SOFTMAX -> L2_NORMALIZATION."""
    g = GraphBuilder()
    x = g.tensor((2, 4, 6), "float32")
    w = g.tensor((6, 5), "float32", data=np.arange(30).reshape(6, 5) % 5 - 2)
    t1 = g.tensor((2, 4, 5), "float32")
    g.op("BATCH_MATMUL", [x, w], [t1], "BatchMatMulOptions", adjX=False, adjY=False)
    t2 = g.tensor((2, 4, 5), "float32")
    g.op("ELU", [t1], [t2])
    d = g.tensor((1, 1, 5), "float32", data=np.arange(1, 6).reshape(1, 1, 5))
    t3 = g.tensor((2, 4, 5), "float32")
    g.op("DIV", [t2, d], [t3], "DivOptions")
    t4 = g.tensor((2, 4, 5), "float32")
    g.op("EXP", [t3], [t4])
    a = g.tensor((), "int32", data=np.array(1))
    t5 = g.tensor((2, 4, 5), "float32")
    g.op("CUMSUM", [t4, a], [t5], "CumsumOptions", exclusive=False, reverse=True)
    t6 = g.tensor((2, 4, 5), "float32")
    g.op("LOG_SOFTMAX", [t5], [t6], "LogSoftmaxOptions")
    t7 = g.tensor((2, 4, 5), "float32")
    g.op("L2_NORMALIZATION", [t6], [t7], "L2NormOptions")
    return g.build([x], [t7])


def chain_fourth_int8():
    """GATHER_ND -> ELU -> BATCH_MATMUL (constant RHS) -> CUMSUM -> LOG_SOFTMAX, int8."""
    g = GraphBuilder()
    x = g.tensor((4, 3, 8), "int8", (0.05, 0))
    idx = g.tensor((2, 1), "int32", data=np.array([[3], [1]]))
    t1 = g.tensor((2, 3, 8), "int8", (0.05, 0))
    g.op("GATHER_ND", [x, idx], [t1])
    t2 = g.tensor((2, 3, 8), "int8", (0.04, 30))
    g.op("ELU", [t1], [t2], version=2)
    w = g.tensor((8, 4), "int8", (0.02, 0), data=np.arange(32).reshape(8, 4) % 11 - 5)
    t3 = g.tensor((2, 3, 4), "int8", (0.1, 5))
    g.op("BATCH_MATMUL", [t2, w], [t3], "BatchMatMulOptions", adjX=False, adjY=False)
    a = g.tensor((), "int32", data=np.array(2))
    t4 = g.tensor((2, 3, 4), "int8", (0.25, 1))
    g.op("CUMSUM", [t3, a], [t4], "CumsumOptions", exclusive=False, reverse=False)
    t5 = g.tensor((2, 3, 4), "int8", (16 / 256, 127))
    g.op("LOG_SOFTMAX", [t4], [t5], "LogSoftmaxOptions", version=2)
    return g.build([x], [t5])


def chain_elu(n=4, shape=(1, 2)):
    """n float32 ELUs in a row: each table dropped or kept by where the tail is at Init."""
    g = GraphBuilder()
    x = g.tensor(shape, "float32")
    cur = x
    for _ in range(n):
        y = g.tensor(shape, "float32")
        g.op("ELU", [cur], [y])
        cur = y
    return g.build([x], [cur])


#: Chains of the fourth ops (multi-op models: the late writes and the float32 ELUs' tables
#: with other ops' tails before them)
FAMILIES["fourth_chains"] = {
    "chain_fourth_f32": chain_fourth_f32, "chain_fourth_int8": chain_fourth_int8,
    "elu_chain4_tiny": lambda: chain_elu(4), "elu_chain6_tiny": lambda: chain_elu(6),
    "elu_chain2": lambda: chain_elu(2, (4, 30)),
}


# --- REVERSE_V2, REDUCE_ALL and GATHER with batch_dims ---------------------------------------------
def reverse_v2(dtype="int8", shape=(2, 3, 4), axes=(1,)):
    """REVERSE_V2 over constant int32 ``axes``; int8 / int16 quantised alike in and out."""
    g = GraphBuilder()
    q = _q(dtype) if dtype in ("int8", "int16") else None
    x = g.tensor(shape, dtype, q)
    a = g.tensor((len(axes),), "int32", data=np.asarray(axes, np.int32))
    y = g.tensor(shape, dtype, q)
    g.op("REVERSE_V2", [x, a], [y])
    return g.build([x], [y])


def reduce_all(shape=(2, 3, 4), axes=(1,), keep=False):
    """REDUCE_ALL of a bool input over constant int32 ``axes`` (repeats and negatives allowed)."""
    g = GraphBuilder()
    x = g.tensor(shape, "bool")
    a = g.tensor((len(axes),), "int32", data=np.asarray(axes, np.int32))
    rank = len(shape)
    red = {v % rank for v in axes}
    out = [1 if d in red else n for d, n in enumerate(shape)] if keep else \
        [n for d, n in enumerate(shape) if d not in red]
    y = g.tensor(out, "bool")
    g.op("REDUCE_ALL", [x, a], [y], "ReducerOptions", keepDims=keep)
    return g.build([x], [y])


def chain_misc():
    """float32 GATHER (batch_dims 1) -> REVERSE_V2 -> GREATER (a constant 0) -> REDUCE_ALL ->
    REVERSE_V2 on bool."""
    g = GraphBuilder()
    x = g.tensor((2, 5, 4), "float32")
    idx = g.tensor((2, 3), "int32")
    t1 = g.tensor((2, 3, 4), "float32")
    g.op("GATHER", [x, idx], [t1], "GatherOptions", axis=1, batchDims=1)
    a1 = g.tensor((2,), "int32", data=np.array([1, 2], np.int32))
    t2 = g.tensor((2, 3, 4), "float32")
    g.op("REVERSE_V2", [t1, a1], [t2])
    zero = g.tensor((1,), "float32", data=np.zeros(1, np.float32))
    t3 = g.tensor((2, 3, 4), "bool")
    g.op("GREATER", [t2, zero], [t3])
    a2 = g.tensor((1,), "int32", data=np.array([-1], np.int32))
    t4 = g.tensor((2, 3), "bool")
    g.op("REDUCE_ALL", [t3, a2], [t4], "ReducerOptions", keepDims=False)
    a3 = g.tensor((1,), "int32", data=np.array([0], np.int32))
    t5 = g.tensor((2, 3), "bool")
    g.op("REVERSE_V2", [t4, a3], [t5])
    return g.build([x, idx], [t5])


FAMILIES["misc_ops"] = {
    **{f"reverse_v2_{t}": (lambda t=t: reverse_v2(t)) for t in ("int8", "int16", "int32", "int64", "float32", "bool")},
    "reverse_v2_last": lambda: reverse_v2("float32", (3, 7), (-1,)),
    "reverse_v2_two_axes": lambda: reverse_v2("int8", (2, 3, 4, 5), (2, 1)),
    "reverse_v2_all_axes": lambda: reverse_v2("int16", (2, 3, 4), (0, 1, 2)),
    "reverse_v2_rank6": lambda: reverse_v2("int8", (2, 1, 2, 3, 1, 2), (3, 4)),
    "reduce_all": lambda: reduce_all(), "reduce_all_keep": lambda: reduce_all(keep=True),
    "reduce_all_two_axes": lambda: reduce_all((2, 3, 4, 5), (0, 2), keep=True),
    "reduce_all_repeats": lambda: reduce_all((2, 3, 4), (2, -1, 0)),
    "reduce_all_every_axis": lambda: reduce_all((2, 3, 4), (0, 1, 2)),
    "reduce_all_no_axis": lambda: reduce_all((2, 3, 4), ()),
    "reduce_all_rank5": lambda: reduce_all((2, 1, 3, 2, 4), (1, 3)),
    **{f"gather_batch_{t}": (lambda t=t: gather(t, (2, 5, 4), axis=1, idx_shape=(2, 3), batch_dims=1))
       for t in ("int8", "float32")},
    "gather_batch2_f32": lambda: gather("float32", (2, 3, 5, 4), axis=2, const_table=False, idx_shape=(2, 3, 2),
                                        batch_dims=2),
    "gather_batch_negative": lambda: gather("int8", (2, 3, 5, 4), axis=-1, const_table=False, idx_shape=(2, 6),
                                            batch_dims=-1),
}
#: Tiny tensors: the Prepare peak (REDUCE_ALL's six temporaries, GATHER's output dims over
#: its live temporaries) sets the arena.
FAMILIES["misc_prepare_peak"] = {
    **{f"reverse_v2_{t}_tiny": (lambda t=t: reverse_v2(t, (1, 2), (1,))) for t in ("int8", "float32", "bool")},
    "reduce_all_tiny": lambda: reduce_all((1, 2), (1,)), "reduce_all_tiny_keep": lambda: reduce_all((2,), (0,), True),
    "gather_batch_tiny": lambda: gather("int8", (2, 2), axis=1, const_table=False, idx_shape=(2, 1), batch_dims=1),
    "gather_batch_tiny_f32": lambda: gather("float32", (1, 2, 1), axis=1, idx_shape=(1, 1), batch_dims=1),
}
FAMILIES["misc_chains"] = {"chain_misc": chain_misc}


def random_misc_op_model(rng: np.random.Generator):
    """(kind, flatbuffer) of a random REVERSE_V2 (contiguous axes, any order and sign, each type
    TFLM's kernel takes), REDUCE_ALL (any axes, repeats, keep_dims) or GATHER with batch_dims
    (int8 / float32, a constant table or not) over small shapes, some tiny."""
    def r(lo, hi):
        return int(rng.integers(lo, hi + 1))
    kind = ["reverse_v2", "reduce_all", "gather_batch"][r(0, 2)]
    rank = r(1, 5)
    shp = tuple(r(1, 4) for _ in range(rank))
    if kind == "reverse_v2":
        first = r(0, rank - 1)
        axes = [a - rank if rng.random() < 0.5 else a for a in range(first, r(first, rank - 1) + 1)]
        rng.shuffle(axes)
        return kind, reverse_v2(["int8", "int16", "int32", "int64", "float32", "bool"][r(0, 5)], shp, tuple(axes))
    if kind == "reduce_all":
        axes = tuple(r(-rank, rank - 1) for _ in range(r(0, rank + 1)))
        return kind, reduce_all(shp, axes, rng.random() < 0.5)
    rank = max(rank, 2)
    shp = tuple(r(1, 4) for _ in range(rank - 1)) + (r(2, 4),)
    axis = r(1, rank - 1)
    shp = shp[:axis] + (max(shp[axis], 2),) + shp[axis + 1:]
    bd = r(1, axis)
    idx_shape = shp[:bd] + tuple(r(1, 3) for _ in range(r(0, 2)))
    return kind, gather(["int8", "float32"][r(0, 1)], shp, axis=axis - (rank if rng.random() < 0.5 else 0),
                        const_table=rng.random() < 0.5, idx_shape=idx_shape,
                        batch_dims=bd - (len(idx_shape) if rng.random() < 0.5 else 0))


# --- IF and WHILE: several subgraphs, called ones nested in the caller's scopes ---------------------
FAMILIES["control_flow"] = {
    "if_int8": lambda: if_unary_chains(), "if_same_branch": lambda: if_unary_chains(same_branch=True),
    "if_float_two": if_float_two, "if_scratch": if_scratch,
    "if_int16": lambda: if_unary_chains(("RELU", "ABS"), "int16"),
    "while_float": while_float, "while_scratch": while_scratch, "while_if": while_if,
}


FAMILIES["control_flow"]["while_swap"] = while_swap


def _lstm_cases() -> dict:
    """UNIDIRECTIONAL_SEQUENCE_LSTM in its three types, batch- and time-major (four int16 or
    float32 gate buffers in the arena); the float32 models keep their absent operands' tensors
    in the subgraph, unused, which TFLM's planner still places (at lifetime -1)."""
    from .lstm_models import lstm16_model, lstm_f32_model, lstm_s8_model
    return {"lstm_s8": lambda: lstm_s8_model(1, 2, 3, 5, 4),
            "lstm_s8_time_major": lambda: lstm_s8_model(2, 3, 2, 6, 7, time_major=True),
            "lstm_16x8": lambda: lstm16_model(1, 2, 3, 5, 4),
            "lstm_16x8_time_major": lambda: lstm16_model(2, 3, 2, 6, 7, time_major=True),
            "lstm_f32": lambda: lstm_f32_model(np.random.default_rng(0), 2, 3, 5, 4),
            "lstm_f32_unused_larger": lambda: lstm_f32_model(np.random.default_rng(0), 1, 3, 5, 8),
            "lstm_f32_time_major": lambda: lstm_f32_model(np.random.default_rng(1), 3, 2, 6, 7, time_major=True)}


FAMILIES["lstm"] = _lstm_cases()
