"""``with_offline_plan()``: write a model whose metadata holds arenaplan's tensor offsets.

TFLM reads an "OfflineMemoryAllocation" metadata buffer (int32 little-endian: version 1,
subgraph 0, the tensor count, then one offset per tensor, -1 for tensors it plans
itself). Its greedy planner takes those tensors at their offsets and places the kernels'
scratch around them, so arenaplan plans the tensors and that scratch together and keeps
the tensor offsets whose scratch TFLM then puts back where the plan wants it.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Dict, Optional, Tuple, Union

import numpy as np
from flatbuffers import Builder as _Builder

from ..errors import ArenaplanError, InvalidArgument, UnsupportedModel
from ..model.importers import load_tflite
from ..model.model import Model
from ..planning.buffers import plan_buffers
from .graph import file_graph
from .planner import greedy_offsets
from .report import OFFLINE_METADATA, TflmArena, arena, requests_of

try:  # the TFLite schema's object API: LiteRT's, or the copy tflite-micro ships
    from ai_edge_litert import schema_py_generated as _schema
except ImportError:  # pragma: no cover - depends on what is installed
    try:
        from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as _schema
    except ImportError:
        _schema = None

__all__ = ["OFFLINE_METADATA", "offline_offsets", "plan_offline", "with_offline_plan", "read_offline_plan"]

_STRATEGIES = ("auto", "greedy_size", "greedy_conflicts", "greedy_size_best_fit")


def plan_offline(model: Model, kernels: str = "reference", pointer_bytes: int = 8,
                 seed: int = 0) -> Tuple[Dict[int, int], TflmArena]:
    """Offsets for TFLM's tensors and the TflmArena TFLM then needs with them.

    Every plan made is verified; the one with the smallest head once TFLM has placed
    its scratch around the tensors wins (ties: the first strategy tried). An offline plan
    the model already carries is not used (this one replaces it). A model of several
    subgraphs gets no offsets (TFLM cannot take a plan for them) and its own arena.
    """
    if _several_subgraphs(model):
        return {}, arena(model, kernels, pointer_bytes)      # no plan: TFLM's own arena
    if OFFLINE_METADATA in model.metadata:
        model = dataclasses.replace(model, metadata={k: v for k, v in model.metadata.items()
                                                     if k != OFFLINE_METADATA})
    reqs, what = requests_of(model, kernels, pointer_bytes=pointer_bytes)
    base = arena(model, kernels, pointer_bytes)
    best: Optional[Tuple[int, Dict[int, int]]] = None
    sizes = [r[0] for r in reqs]
    first = [r[1] for r in reqs]
    last = [r[2] for r in reqs]
    if not reqs:
        return {}, base
    for strategy in _STRATEGIES:
        bp = plan_buffers(sizes, first, last, alignment=16, strategy=strategy, seed=seed,
                          time_limit_s=2.0, step_limit=200_000)
        bp.verify()
        offsets = {w[1]: int(o) for w, o in zip(what, bp.offsets) if w[0] == "tensor"}
        placed = [(r[0], r[1], r[2], offsets.get(w[1]) if w[0] == "tensor" else None)
                  for r, w in zip(reqs, what)]
        _, head = greedy_offsets(placed)
        if best is None or head < best[0]:
            best = (head, offsets)
    assert best is not None
    result = arena(model, kernels, pointer_bytes, offsets=best[1])
    if result.arena_size > base.arena_size:   # never worse than TFLM's own plan
        return {}, base
    return best[1], result


def _several_subgraphs(model: Model) -> bool:
    graph = file_graph(model)
    return graph is not None and len(graph.subgraph_tensors) > 1


def offline_offsets(model: Model, offsets: Dict[int, int]) -> np.ndarray:
    """The metadata buffer's int32 values for ``offsets`` (every other tensor -1)."""
    values = [1, 0, len(model.tensors)] + [int(offsets.get(i, -1)) for i in range(len(model.tensors))]
    return np.asarray(values, dtype="<i4")


def _load_object_model(data: bytes):
    if _schema is None:
        raise ArenaplanError("writing an offline plan needs the TFLite schema's object API: "
                             "install ai-edge-litert or tflite-micro")
    return _schema.ModelT.InitFromObj(_schema.Model.GetRootAsModel(data, 0))


def read_offline_plan(path: Union[str, Path]) -> Optional[np.ndarray]:
    """The OfflineMemoryAllocation values of a model file, or None when it has none."""
    m = _load_object_model(Path(path).read_bytes())
    for md in m.metadata or []:
        name = md.name.decode() if isinstance(md.name, bytes) else md.name
        if name == OFFLINE_METADATA:
            return np.frombuffer(bytes(bytearray(m.buffers[md.buffer].data)), dtype="<i4").copy()
    return None


def with_offline_plan(model_path: Union[str, Path], out_path: Union[str, Path], replace: bool = False,
                      kernels: str = "reference", pointer_bytes: int = 8) -> TflmArena:
    """Write ``model_path`` to ``out_path`` with arenaplan's offsets as TFLM's offline plan.

    Weights, tensors and the graph are unchanged; only a metadata entry (and its buffer)
    is added. Returns the predicted TflmArena with the offline plan (``arena_size`` is
    the kTensorArenaSize to set).

    Raises:
        InvalidArgument: the model already carries an offline plan and ``replace`` is
            False.
    """
    data = Path(model_path).read_bytes()
    model = load_tflite(str(model_path))
    obj = _load_object_model(data)
    kept = []
    for md in obj.metadata or []:
        name = md.name.decode() if isinstance(md.name, bytes) else md.name
        if name == OFFLINE_METADATA:
            if not replace:
                raise InvalidArgument(f"{model_path} already carries an offline memory plan "
                                      f"({OFFLINE_METADATA} metadata); pass replace=True to replace it")
            continue
        kept.append(md)
    if _several_subgraphs(model):
        # TFLM reads an offline plan as one offset per tensor of every subgraph but looks
        # each subgraph's tensors up from the start of the list (micro_allocation_info.cc
        # InitializeAllocationInfo), so a plan cannot place a called subgraph's tensors
        raise UnsupportedModel(f"{model.name}: an offline memory plan for a model of several subgraphs "
                               f"(CALL_ONCE, resource variables) is not written: TFLite Micro would give "
                               f"every subgraph subgraph 0's offsets; ap.tflm.arena gives its arena")
    offsets, result = plan_offline(model, kernels, pointer_bytes)
    buf = _schema.BufferT()
    buf.data = np.frombuffer(offline_offsets(model, offsets).tobytes(), dtype=np.uint8)
    obj.buffers.append(buf)
    md = _schema.MetadataT()
    md.name = OFFLINE_METADATA
    md.buffer = len(obj.buffers) - 1
    obj.metadata = kept + [md]
    builder = _flatbuffers_builder()
    builder.Finish(obj.Pack(builder), file_identifier=b"TFL3")
    Path(out_path).write_bytes(bytes(builder.Output()))
    return result


def _flatbuffers_builder() -> _Builder:
    return _Builder(1 << 20)

