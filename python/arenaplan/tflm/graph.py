"""TFLite Micro's view of a model: every subgraph's tensors and ops as the file holds them.

arenaplan's importer reshapes the graph for its own runtime (a SPLIT becomes one op per
output; a CALL_ONCE's subgraph is folded into the variables' starting values and
VAR_HANDLE dropped), but TFLM keeps the file's ops and every subgraph: their tensors get
eval tensors, their ops nodes, options and kernel data, and their tensors are planned in
the scopes AllocationInfoBuilder::MarkAllocationLifetimes gives them (each op one scope; a
called subgraph's ops nested in the caller's). ``file_graph(model)`` reads that view from
the model's file (None for a model built in code, whose Model the rules read instead).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

from ..errors import InvalidArgument, UnsupportedModel
from ..model.model import Quantization

__all__ = ["FileGraph", "file_graph"]

_SIZES = {"int8": 1, "uint8": 1, "bool": 1, "int16": 2, "float16": 2, "int32": 4, "float32": 4, "int64": 8,
          "float64": 8}


@dataclass
class FileTensor:
    index: int               # index over all subgraphs (TFLM's AllocationInfo order)
    name: str
    shape: Tuple[int, ...]
    dtype: str
    quantization: Optional[Quantization]
    is_constant: bool
    is_variable: bool
    # a constant int32 tensor's values (up to 64 of them: the axes and shapes the rules
    # read), else None
    data: Optional[np.ndarray] = None

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * _SIZES.get(self.dtype, 4) if self.shape else \
            _SIZES.get(self.dtype, 4)


@dataclass(frozen=True)
class FileOp:
    index: int               # position in TFLM's order (subgraph by subgraph)
    type: str
    inputs: Tuple[int, ...]
    outputs: Tuple[int, ...]
    options: dict
    subgraph: int = 0
    is_custom: bool = False
    custom_code: Optional[str] = None


@dataclass
class FileGraph:
    """Every subgraph's tensors and ops, with tensor indices over all subgraphs."""

    name: str
    tensors: List[FileTensor]
    ops: List[FileOp]
    inputs: Tuple[int, ...]
    outputs: Tuple[int, ...]
    subgraph_tensors: List[int]
    subgraph_ops: List[int]
    resource_variables: int
    metadata: Dict[str, bytes] = field(default_factory=dict)
    first: Dict[int, int] = field(default_factory=dict)
    last: Dict[int, int] = field(default_factory=dict)
    scratch_scopes: List[Tuple[int, int]] = field(default_factory=list)

    @property
    def operators(self) -> List[FileOp]:
        return self.ops


def _schema():
    try:
        from ai_edge_litert import schema_py_generated as S
    except ImportError:  # pragma: no cover - depends on what is installed
        from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as S
    return S


def file_graph(model) -> Optional[FileGraph]:
    """TFLM's view of ``model`` read from its file; None when it has no file (built in code,
    or from the zoo). InvalidArgument when the file changed since the model was loaded."""
    path = Path(model.source) if getattr(model, "source", "") else None
    if path is None or not path.is_file():
        return None
    S = _schema()
    data = path.read_bytes()
    fb = S.Model.GetRootAsModel(data, 0)
    if getattr(model, "digest", "") and hashlib.sha256(data).hexdigest() != model.digest:
        raise InvalidArgument(f"{path} changed since {model.name} was loaded from it; TFLite Micro's view of "
                              f"its subgraphs is read from the file: load the model again")
    m = S.ModelT.InitFromObj(fb)
    names = {v: k for k, v in vars(S.BuiltinOperator).items() if not k.startswith("_")}
    types = {v: k.lower() for k, v in vars(S.TensorType).items() if not k.startswith("_")}
    tensors: List[FileTensor] = []
    ops: List[FileOp] = []
    sub_tensors, sub_ops, offsets = [], [], []
    shared = set()
    for sg in m.subgraphs:
        base = len(tensors)
        offsets.append(base)
        sub_tensors.append(len(sg.tensors or []))
        sub_ops.append(len(sg.operators or []))
        for t in sg.tensors or []:
            buf = m.buffers[t.buffer] if t.buffer < len(m.buffers) else None
            const = buf is not None and buf.data is not None and len(buf.data) > 0
            q = t.quantization
            quant = None
            if q is not None and q.scale is not None and len(q.scale) and q.zeroPoint is not None \
                    and len(q.zeroPoint):
                quant = Quantization(tuple(float(v) for v in q.scale), tuple(int(v) for v in q.zeroPoint))
            dtype = types.get(t.type, "unknown")
            name = t.name.decode() if isinstance(t.name, bytes) else str(t.name)
            data = None
            if const and dtype == "int32" and len(buf.data) <= 256 and len(buf.data) % 4 == 0:
                data = np.frombuffer(bytes(bytearray(buf.data)), dtype="<i4").astype(np.int32)
            tensors.append(FileTensor(len(tensors), name, tuple(int(d) for d in (t.shape if t.shape is not None
                                                                                 else ())),
                                      dtype, quant, const or dtype == "resource", bool(t.isVariable), data))
    for k, sg in enumerate(m.subgraphs):
        base = offsets[k]
        for o in sg.operators or []:
            code = m.operatorCodes[o.opcodeIndex]
            builtin = max(code.builtinCode, code.deprecatedBuiltinCode)
            name = names.get(builtin, str(builtin))
            custom = None
            if name == "CUSTOM":
                custom = code.customCode.decode() if isinstance(code.customCode, bytes) else code.customCode
            opts = {}
            if name == "CALL_ONCE":
                opts["init_subgraph_index"] = int(o.builtinOptions.initSubgraphIndex)
            elif name == "BATCH_MATMUL" and o.builtinOptions is not None:
                opts["adj_x"] = bool(o.builtinOptions.adjX)
                opts["adj_y"] = bool(o.builtinOptions.adjY)
            elif name == "SVDF" and o.builtinOptions is not None:
                opts["rank"] = int(o.builtinOptions.rank)
            elif name == "IF":
                opts["called"] = (int(o.builtinOptions.thenSubgraphIndex), int(o.builtinOptions.elseSubgraphIndex))
            elif name == "WHILE":
                opts["called"] = (int(o.builtinOptions.condSubgraphIndex), int(o.builtinOptions.bodySubgraphIndex))
            elif name == "UNIDIRECTIONAL_SEQUENCE_LSTM" and o.builtinOptions is not None:
                # the gate buffers hold a step of every batch: time_major says which axis that is
                opts["time_major"] = bool(o.builtinOptions.timeMajor)
            elif name == "VAR_HANDLE":
                shared.add(o.builtinOptions.sharedName)
                opts["shared_name"] = o.builtinOptions.sharedName
            ins = tuple(base + i if i >= 0 else -1 for i in (o.inputs if o.inputs is not None else ()))
            outs = tuple(base + i for i in (o.outputs if o.outputs is not None else ()))
            ops.append(FileOp(len(ops), name, ins, outs, opts, k, custom is not None, custom))
    g = FileGraph(model.name, tensors, ops, tuple(int(i) for i in m.subgraphs[0].inputs),
                  tuple(int(i) for i in m.subgraphs[0].outputs), sub_tensors, sub_ops, len(shared),
                  dict(getattr(model, "metadata", {}) or {}))
    g.subgraph_offsets = offsets
    g.sub_inputs = [[offsets[k] + int(i) for i in (sg.inputs if sg.inputs is not None else ())]
                    for k, sg in enumerate(m.subgraphs)]
    g.sub_outputs = [[offsets[k] + int(i) for i in (sg.outputs if sg.outputs is not None else ())]
                     for k, sg in enumerate(m.subgraphs)]
    return g


def _called(op: FileOp) -> Tuple[int, ...]:
    """The subgraphs op calls, in the order TFLM marks them."""
    if op.type == "CALL_ONCE":
        return (op.options["init_subgraph_index"],)
    return tuple(op.options.get("called", ()))


def mark_lifetimes(g: FileGraph, scratch_of) -> None:
    """AllocationInfoBuilder::MarkAllocationLifetimes from subgraph 0: g.first / g.last by
    tensor, and g.scratch_scopes, the (first, last) scope of each scratch request in the
    order the ops' Prepare made them (``scratch_of(op)``: that op's request count)."""
    by_sub: Dict[int, List[FileOp]] = {}
    for op in g.ops:
        by_sub.setdefault(op.subgraph, []).append(op)
    order = [op for k in range(len(g.subgraph_ops)) for op in by_sub.get(k, [])]
    first_request, n = {}, 0
    for op in order:
        first_request[op.index] = n
        n += scratch_of(op)
    scopes: List[Tuple[int, int]] = [(-1, -1)] * n
    first, last = g.first, g.last
    count = [0]

    def created(i):
        first[i] = count[0]
        last[i] = count[0]

    def used(i):
        last[i] = count[0]

    def mark(k, running=()):
        for i in g.sub_inputs[k]:
            created(i)
        for i in g.sub_outputs[k]:
            created(i)
        for op in by_sub.get(k, []):
            count[0] += 1
            for i in op.outputs:
                created(i)
            start = count[0]
            # MarkSubgraphLifetimesIfNecessary: a called subgraph's ops are scopes nested in
            # the caller's, each called subgraph entering a scope of its own (IF: then, else;
            # WHILE: cond, body), so the scratch of the calling op spans them all
            for called in _called(op):
                if not 0 <= called < len(g.subgraph_ops):
                    raise UnsupportedModel(f"op {op.index} ({op.type}) of subgraph {k}: calls subgraph {called}; "
                                           f"the model has {len(g.subgraph_ops)}")
                if called in running + (k,):
                    raise UnsupportedModel(f"op {op.index} ({op.type}) of subgraph {k}: calls subgraph {called}, "
                                           f"which is running already (a recursive call TFLite Micro would not end)")
                count[0] += 1
                mark(called, running + (k,))
            for i in op.inputs:
                if i >= 0:
                    used(i)
            for i in op.outputs:
                used(i)
            for r in range(first_request[op.index], first_request[op.index] + scratch_of(op)):
                scopes[r] = (start, count[0])
        for i in g.sub_outputs[k]:
            used(i)
    mark(0)
    g.scratch_scopes = scopes
