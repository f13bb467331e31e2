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

from .models import RUNNABLE  # noqa: F401  (every shared model TFLite Micro runs: those arenaplan runs)

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
        if info is None:
            x = rng.standard_normal(size=d["shape"]).astype(d["dtype"])
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


# --- small models written with the TFLite schema -------------------------------------------------
_TYPES = {"int8": "INT8", "int16": "INT16", "int32": "INT32", "int64": "INT64", "float32": "FLOAT32",
          "bool": "BOOL", "resource": "RESOURCE"}


class GraphBuilder:
    """A one-subgraph .tflite flatbuffer of any ops, built with the schema's object API.

        g = GraphBuilder()
        x = g.tensor((1, 4), "int8", (0.05, 3))
        y = g.tensor((1, 4), "int8", (0.05, 3))
        g.op("RELU", [x], [y])
        content = g.build([x], [y])

    ``tensor(shape, dtype, q=None, data=None, qdim=0)``: q is (scale, zero point), each a
    scalar or a per-channel list; ``op(name, ins, outs, options_type=None, **fields)`` sets
    the options object's fields (schema names: ``axis=1``, ``numSplits=2``).
    """

    def __init__(self) -> None:
        from ai_edge_litert import schema_py_generated as S
        self.S = S
        self.tensors: list = []
        self.ops: list = []
        self.codes: list = []
        self.buffers = [S.BufferT()]

    def tensor(self, shape, dtype, q=None, data=None, qdim=0, variable=False) -> int:
        import numpy as np
        S = self.S
        t = S.TensorT()
        t.shape = [int(d) for d in shape]
        t.type = getattr(S.TensorType, _TYPES[dtype])
        t.name = f"t{len(self.tensors)}"
        t.isVariable = variable
        if q is not None:
            qp = S.QuantizationParametersT()
            qp.scale = [float(v) for v in np.atleast_1d(q[0])]
            qp.zeroPoint = [int(v) for v in np.atleast_1d(q[1])]
            qp.quantizedDimension = qdim
            t.quantization = qp
        buf = S.BufferT()
        if data is not None:
            buf.data = np.ascontiguousarray(np.asarray(data, dtype=dtype)).view(np.uint8).reshape(-1).tolist()
        self.buffers.append(buf)
        t.buffer = len(self.buffers) - 1
        self.tensors.append(t)
        return len(self.tensors) - 1

    def op(self, name: str, ins, outs, options_type=None, version: int = 1, **fields) -> None:
        S = self.S
        key = (name, version)
        if key not in self.codes:
            self.codes.append(key)
        o = S.OperatorT()
        o.opcodeIndex = self.codes.index(key)
        o.inputs, o.outputs = [int(i) for i in ins], [int(i) for i in outs]
        if options_type:
            opt = getattr(S, options_type + "T")()
            for k, v in fields.items():
                setattr(opt, k, v)
            o.builtinOptionsType = getattr(S.BuiltinOptions, options_type)
            o.builtinOptions = opt
        self.ops.append(o)

    def build(self, inputs, outputs) -> bytes:
        import flatbuffers
        S = self.S
        model = S.ModelT()
        model.version = 3
        model.operatorCodes = []
        for name, version in self.codes:
            c = S.OperatorCodeT()
            c.builtinCode = getattr(S.BuiltinOperator, name)
            c.deprecatedBuiltinCode = min(c.builtinCode, 127)
            c.version = version
            model.operatorCodes.append(c)
        model.buffers = self.buffers
        sg = S.SubGraphT()
        sg.tensors, sg.operators = self.tensors, self.ops
        sg.inputs, sg.outputs = list(inputs), list(outputs)
        model.subgraphs = [sg]
        b = flatbuffers.Builder(1024)
        b.Finish(model.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())
