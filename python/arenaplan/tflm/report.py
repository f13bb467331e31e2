"""``arena()``: the kTensorArenaSize a TFLite Micro build needs for a model, and why.

Head (non-persistent): TFLM's greedy plan of its tensors together with the scratch its
kernels request op by op. Tail (persistent), in the order TFLM allocates it, each piece
aligned down as its allocator does: the allocator's own objects, resource variables, eval
tensors and node structs of each subgraph, parsed op options, kernels' OpData,
per-channel arrays and output dims, variables' buffers, scratch handles, variable tensors and the
interpreter's input/output TfLiteTensors. The arena must also hold TFLM's two peaks while
it allocates: while each op prepares (the tail so far, the scratch requests and the
temporary TfLiteTensors its Prepare holds) and while the plan is committed (the tail, the
requests, one AllocationInfo per tensor and scratch buffer, the planner's records).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import numpy as np

from ..errors import InvalidArgument, UnsupportedModel
from ..model.model import Model
from . import rules
from .graph import file_graph, mark_lifetimes
from .planner import Request, greedy_offsets

__all__ = ["TflmArena", "Allocation", "arena", "requests_of"]


def _align(x: int, a: int = rules.ALIGNMENT) -> int:
    return (x + a - 1) // a * a


@dataclass(frozen=True)
class Allocation:
    """One line of the breakdown: where (head|tail), kind, op (or -1) and bytes."""

    where: str
    kind: str
    op: int
    op_type: str
    bytes: int


@dataclass
class TflmArena:
    """TFLM's arena for one model: ``arena_size``, ``head_bytes``, ``tail_bytes``, breakdown.

    ``pointer_bytes=8`` with ``kernels="reference"`` is the 64-bit host build of the
    pinned ``tflite-micro`` package (``rules.TFLM_VERSION``), which the tests check
    exactly; ``pointer_bytes=4`` (Cortex-M) and ``kernels="cmsis-nn"`` are predictions
    from the same documented rules.
    """

    model_name: str
    kernels: str
    pointer_bytes: int
    arena_size: int
    head_bytes: int
    tail_bytes: int
    planning_bytes: int
    allocations: List[Allocation] = field(default_factory=list)
    offline: bool = False
    #: TFLM's two peaks while it allocates: "prepare" (the largest while an op prepares) and
    #: "commit" (while the plan is committed); planning_bytes is the larger
    peaks: Dict[str, int] = field(default_factory=dict)

    @property
    def predicted(self) -> bool:
        """True where the figures are predictions rather than checked against TFLM."""
        return self.pointer_bytes != 8 or self.kernels != "reference"

    def line(self) -> str:
        """The line to paste into the firmware."""
        return f"constexpr int kTensorArenaSize = {self.arena_size};"

    def tail_by_kind(self) -> Dict[str, int]:
        out: Dict[str, int] = {}
        for a in self.allocations:
            if a.where == "tail":
                out[a.kind] = out.get(a.kind, 0) + a.bytes
        return out

    def scratch(self) -> List[Allocation]:
        return [a for a in self.allocations if a.where == "head" and a.kind == "kernel scratch"]

    def summary(self) -> str:
        note = "prediction" if self.predicted else f"checked against tflite-micro {rules.TFLM_VERSION}"
        lines = [f"{self.model_name}: TFLM arena ({self.kernels} kernels, {self.pointer_bytes}-byte "
                 f"pointers; {note})",
                 f"  arena_size {self.arena_size:>10,} B",
                 f"  head       {self.head_bytes:>10,} B  (tensors and kernel scratch"
                 f"{', offline plan' if self.offline else ''})",
                 f"  tail       {self.tail_bytes:>10,} B"]
        for kind, b in self.tail_by_kind().items():
            lines.append(f"    {kind:<32} {b:>8,} B")
        for a in self.scratch():
            lines.append(f"  scratch of op {a.op} {a.op_type}: {a.bytes:,} B")
        if self.planning_bytes > self.head_bytes + self.tail_bytes:
            lines.append(f"  (planning needs {self.planning_bytes:,} B, more than head + tail)")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"model": self.model_name, "kernels": self.kernels, "pointer_bytes": self.pointer_bytes,
                "arena_size": self.arena_size, "head_bytes": self.head_bytes,
                "tail_bytes": self.tail_bytes, "planning_bytes": self.planning_bytes,
                "predicted": self.predicted, "tflite_micro_version": rules.TFLM_VERSION,
                "offline_plan": self.offline, "tail_by_kind": self.tail_by_kind(),
                "scratch": [{"op": a.op, "op_type": a.op_type, "bytes": a.bytes} for a in self.scratch()]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


def _check(model: Model, kernels: str, pointer_bytes: int) -> None:
    if kernels not in rules.KERNELS:
        raise InvalidArgument(f"kernels must be one of {', '.join(rules.KERNELS)}, not {kernels!r}")
    if pointer_bytes not in rules.POINTER_BYTES:
        raise InvalidArgument(f"pointer_bytes must be 4 or 8, not {pointer_bytes!r}")
    for op in rules.tflm_ops(model):
        if op.is_custom:
            raise UnsupportedModel(f"op {op.index} ({op.custom_code}): a custom op; TFLite Micro has no "
                                   f"kernel these rules describe for it")
        if op.type not in rules.TFLM_KERNELS:
            raise UnsupportedModel(f"op {op.index} ({op.type}): TFLite Micro {rules.TFLM_VERSION} has no "
                                   f"kernel for this op")
        if op.type not in rules.SUPPORTED_OPS:
            raise UnsupportedModel(f"op {op.index} ({op.type}): TFLite Micro has no kernel these rules "
                                   f"describe for it")
        data = rules.DATA_INPUT.get(op.type, 0)
        main = op.inputs[data] if len(op.inputs) > data else None
        for i in tuple(op.inputs) + tuple(op.outputs):
            allowed = rules.output_types(op.type) if i in op.outputs else \
                rules.op_types(op.type) if i == main else rules.SUPPORTED_TYPES
            if i >= 0 and model.tensors[i].dtype not in allowed:
                t = model.tensors[i]
                raise UnsupportedModel(f"op {op.index} ({op.type}): tensor {i} {t.name!r} has type "
                                       f"{t.dtype}, which TFLite Micro's {op.type} kernel does not support")
        why = rules.kernel_refusal(model, op)
        if why is not None:
            raise UnsupportedModel(f"op {op.index} ({op.type}): {why}")


class _Tail:
    """TFLM's persistent (tail) allocations in the order it makes them: each takes its bytes
    below the last and aligns down to its alignment (SingleArenaBufferAllocator), so a
    record's bytes include the gap its alignment leaves."""

    def __init__(self, allocs: List[Allocation], ops) -> None:
        self.allocs = allocs
        self.ops = ops
        self.used = 0

    def add(self, kind: str, b: int, align: int, op: int = -1) -> None:
        new = -(-(self.used + b) // align) * align
        self.allocs.append(Allocation("tail", kind, op, self.ops[op].type if op >= 0 else "", new - self.used))
        self.used = new


def _temp_tensor(model: Model, i: int, s: rules.Sizes, at: int) -> int:
    """Head bytes after a temporary TfLiteTensor of tensor i allocated at ``at``
    (AllocateTempTfLiteTensor: the struct and, when quantised, TfLiteAffineQuantization and
    its zero-point TfLiteIntArray)."""
    def up(x, a):
        return -(-x // a) * a
    at = up(at, s.pointer_bytes) + s.tflite_tensor
    q = model.tensors[i].quantization
    if q is not None:
        at = up(at, s.pointer_bytes) + s.affine_quantization
        at = up(at, 4) + 4 + 4 * len(q.scale)
    return at


def _prepare_temps(model: Model, op, s: rules.Sizes) -> int:
    """Head bytes of the temporary TfLiteTensors live at once in the op's Prepare."""
    at = 0
    for i in rules.prepare_temp_tensors(op, model):
        if i >= 0:
            at = _temp_tensor(model, i, s, at)
    return at


def _late_peak(model: Model, op, s: rules.Sizes, area: int, tail_used: int, size: Optional[int] = None) -> int:
    """The arena (a multiple of 16) with which the op's Prepare succeeds when it allocates
    persistent buffers while its temporaries are live (rules.late_prepare_writes): the
    temporaries must fit below the tail, and no write to those buffers may land on a field
    of a temporary still to be read. The arena's start and end are 16-aligned."""
    p = s.pointer_bytes
    fields = rules.tensor_fields(p)
    at, where = 0, []
    for i in rules.prepare_temp_tensors(op, model):
        if i < 0:
            continue
        start = -(-at // p) * p
        at = start + s.tflite_tensor
        q = model.tensors[i].quantization
        q_start = None
        if q is not None:
            q_start = -(-at // p) * p
            at = -(-(q_start + s.affine_quantization) // 4) * 4 + 4 + 4 * len(q.scale)
        where.append((area + start, None if q_start is None else area + q_start))
    # DeallocateTempTfLiteTensor reads every temporary's quantization and, where quantised,
    # its TfLiteAffineQuantization's zero-point pointer
    always = [(t + fields["quantization"][0], t + fields["quantization"][1]) for t, _ in where]
    always += [(q + p, q + 2 * p) for _, q in where if q is not None]
    late = rules.late_prepare_writes(model, op, s)
    temps = [i for i in rules.prepare_temp_tensors(op, model) if i >= 0]
    size = _align(area + at + tail_used) if size is None else max(size, _align(area + at + tail_used))
    while True:
        top, ok = size - tail_used, True
        types = {k: rules.TYPE_CODES.get(model.tensors[i].dtype) for k, i in enumerate(temps)}
        for nbytes, writes, reads in late:
            top = (top - nbytes) // rules.ALIGNMENT * rules.ALIGNMENT
            if top < area:
                ok = False                        # below the head: AllocatePersistentBuffer fails
                break
            for w in writes:
                w0, w1 = top + w[0], top + w[1]
                extra = w[2] if len(w) > 2 else None
                w_reads = w[3] if len(w) > 3 else reads     # the fields read after this write
                if extra == "float32 output" and types.get(len(temps) - 1) != rules.TYPE_CODES["float32"]:
                    continue                      # written only while the output reads as float32
                if any(w0 < g1 and g0 < w1 for g0, g1 in always):
                    ok = False
                for read in w_reads:
                    k, f = read[0], read[1]
                    if k >= len(where):
                        continue
                    g0, g1 = where[k][0] + fields[f][0], where[k][0] + fields[f][1]
                    if not (w0 < g1 and g0 < w1):
                        continue
                    # a word of known value over a type read for its size only: harmless when
                    # that type code's size is no larger (the type then reads as that code)
                    if len(read) > 2 and isinstance(extra, tuple) and (g0 - w0) % 4 == 0 \
                            and w0 <= g0 and g1 <= w1 and (g0 - w0) // 4 < len(extra):
                        v = extra[(g0 - w0) // 4]
                        if v in rules.TYPE_CODE_SIZES and rules.TYPE_CODE_SIZES[v] <= read[2]:
                            types[k] = v
                            continue
                    ok = False
            if not ok:
                break
        if ok:
            return size
        size += rules.ALIGNMENT


#: AllocationInfo's first_created / last_used of a tensor no op creates or uses
UNUSED = -1


def _planned_tensors(model: Model) -> List[int]:
    """The tensors TFLM's planner places: every one without data that is not a variable and
    has bytes (micro_allocation_info.cc needs_allocating), used by an op or not."""
    return [t.index for t in model.tensors if not t.is_constant and not t.is_variable and t.nbytes > 0]


def requests_of(model: Model, kernels: str = "reference", offsets: Optional[Dict[int, int]] = None,
                pointer_bytes: int = 8) -> Tuple[List[Request], List[Tuple[str, int, int]]]:
    """TFLM's planner input: tensors in index order, then the kernels' scratch in request order.

    Returns the requests and, per request, (kind, op or tensor index, unaligned bytes).
    """
    first, last = rules.lifetimes(model)
    reqs: List[Request] = []
    what: List[Tuple[str, int, int]] = []
    for i in _planned_tensors(model):
        t = model.tensors[i]
        off = None if offsets is None else offsets.get(i)
        # a tensor no op uses is still planned, at lifetime -1: only such tensors overlap it
        reqs.append((_align(t.nbytes), first.get(i, UNUSED), last.get(i, UNUSED), off))
        what.append(("tensor", i, t.nbytes))
    scopes = getattr(model, "scratch_scopes", None)
    for k, op in enumerate(rules.tflm_ops(model)):
        for _, b in rules.kernel_scratch(model, op, kernels, pointer_bytes):
            lo, hi = (k, k) if scopes is None else scopes[sum(1 for w in what if w[0] == "kernel scratch")]
            reqs.append((_align(b), lo, hi, None))
            what.append(("kernel scratch", k, b))
    return reqs, what


#: The metadata entry TFLM reads an offline memory plan from.
OFFLINE_METADATA = "OfflineMemoryAllocation"


def offline_plan_of(model: Model) -> Optional[Dict[int, int]]:
    """The offsets by tensor index of the offline memory plan ``model`` carries (its
    "OfflineMemoryAllocation" metadata: int32 version 1, subgraph 0, the tensor count, then
    one offset per tensor, -1 where TFLM plans the tensor itself), or None when it carries
    none. InvalidArgument when the entry is not a plan TFLM would accept for this model (a
    plan for another model: a different tensor count), naming what is wrong."""
    raw = model.metadata.get(OFFLINE_METADATA)
    if raw is None:
        return None
    where = f"{model.name}: its {OFFLINE_METADATA} metadata"
    if len(raw) % 4 or len(raw) < 12:
        raise InvalidArgument(f"{where} holds {len(raw)} bytes, not a version, a subgraph, a tensor count "
                              f"and one int32 offset per tensor")
    values = np.frombuffer(raw, dtype="<i4")
    version, subgraph, count = (int(v) for v in values[:3])
    if version != 1 or subgraph != 0:
        raise InvalidArgument(f"{where} is version {version} for subgraph {subgraph}; TFLM reads version 1 "
                              f"for subgraph 0")
    if count != len(model.tensors) or len(values) != 3 + count:
        raise InvalidArgument(f"{where} is a plan for a model of {count} tensors ({len(values) - 3} offsets); "
                              f"this model has {len(model.tensors)} tensors: the plan belongs to another model "
                              f"(rewrite it with ap.tflm.with_offline_plan(..., replace=True))")
    bad = [i for i, v in enumerate(values[3:]) if v < -1]
    if bad:
        raise InvalidArgument(f"{where} gives tensor {bad[0]} the offset {int(values[3 + bad[0]])} "
                              f"(offsets are >= 0, or -1 for a tensor TFLM plans itself)")
    return {i: int(v) for i, v in enumerate(values[3:]) if v >= 0}


def arena(model: Model, kernels: str = "reference", pointer_bytes: int = 4,
          offsets: Optional[Dict[int, int]] = None) -> TflmArena:
    """The arena TFLite Micro needs for ``model``: its kTensorArenaSize and the breakdown.

    Args:
        model: an ``ap.Model`` (``ap.load_tflite``).
        kernels: ``"reference"`` (TFLM's reference kernels) or ``"cmsis-nn"`` (CMSIS-NN's
            scratch rules, from its ``*_get_buffer_size`` functions: a prediction).
        pointer_bytes: 4 for a 32-bit target (Cortex-M; a prediction), 8 for a 64-bit
            host build (checked exactly against the pinned ``tflite-micro`` package).
        offsets: offline offsets by tensor index (an OfflineMemoryAllocation plan); default
            the plan the model file carries, if any (TFLM uses it: ``offline_plan_of``).

    Raises:
        UnsupportedModel: an op or type TFLM's kernels do not handle.
        InvalidArgument: ``kernels`` or ``pointer_bytes`` not one of the above; an offline
            plan the model carries that TFLM would refuse (another model's).
    """
    graph = file_graph(model)
    if graph is not None:
        mark_lifetimes(graph, lambda op: len(rules.kernel_scratch(graph, op, kernels)))
        model = graph
    elif any(op.type in ("READ_VARIABLE", "ASSIGN_VARIABLE") for op in model.operators):
        raise UnsupportedModel(f"{model.name}: its resource variables come from subgraphs TFLite Micro keeps "
                               f"and arenaplan folds; ap.tflm.arena reads them from the model's file, which "
                               f"{model.source or 'this model'} is not (load it with ap.load_tflite(path))")
    _check(model, kernels, pointer_bytes)
    if offsets is None:
        offsets = offline_plan_of(model)
    optional = [op.index for op in rules.tflm_ops(model) if rules.init_data_unused(model, op)]
    full = _arena(model, kernels, pointer_bytes, offsets)
    if not optional:
        return full
    # An Init buffer the op's Prepare and Eval never read (a float32 ELU's int8 table): when it
    # does not fit at Init, AllocatePersistentBuffer returns null and TFLM goes on without it,
    # so an arena too small for the table may allocate and run while a larger one fails (the
    # table fits at Init, a later peak does not). The smallest that runs: the first multiple of
    # 16 from the arena without any such table at which the tables that do fit at Init still
    # leave room for the rest.
    size = _arena(model, kernels, pointer_bytes, offsets, init_arena=0).arena_size
    while size < full.arena_size:
        r = _arena(model, kernels, pointer_bytes, offsets, init_arena=size)
        if r.arena_size <= size:
            r.arena_size = size
            return r
        size += rules.ALIGNMENT
    return full


def _arena(model: Model, kernels: str, pointer_bytes: int, offsets: Optional[Dict[int, int]],
           init_arena: Optional[int] = None) -> TflmArena:
    """arena() for an arena of ``init_arena`` bytes where the Init buffers that its kernels
    never read and that do not fit at Init are left out (None: every Init buffer is there)."""
    s = rules.sizes_for(pointer_bytes)
    ops = rules.tflm_ops(model)
    allocs: List[Allocation] = []
    reqs, what = requests_of(model, kernels, offsets, pointer_bytes)
    _, head = greedy_offsets(reqs)
    head = _align(head)
    allocs.append(Allocation("head", "tensors (greedy plan)", -1, "", head))
    for r, w in zip(reqs, what):
        if w[0] == "kernel scratch":
            allocs.append(Allocation("head", "kernel scratch", w[1], ops[w[1]].type, r[0]))
    n_scratch = sum(1 for w in what if w[0] == "kernel scratch")
    tail = _Tail(allocs, ops)
    # MicroAllocator::Create: the allocators and the planner
    tail.add("allocator and interpreter objects", s.fixed, s.pointer_bytes)
    n_variables = getattr(model, "resource_variables", 0)
    if n_variables:
        tail.add("resource variables", s.resource_variables, rules.ALIGNMENT)
        tail.add("resource variables", s.resource_variable * n_variables, rules.ALIGNMENT)
    # StartModelAllocation
    sub_tensors = getattr(model, "subgraph_tensors", [len(model.tensors)])
    sub_ops = getattr(model, "subgraph_ops", [len(ops)])
    tail.add("allocator and interpreter objects", s.builtin_data_allocator, s.pointer_bytes)
    tail.add("subgraph records", s.subgraph_allocations * len(sub_tensors), s.pointer_bytes)
    for n in sub_tensors:
        tail.add("eval tensors", s.eval_tensor * n, s.pointer_bytes)
    for n in sub_ops:
        tail.add("node and registration structs", s.node_and_registration * n, s.pointer_bytes)
    # PrepareNodeAndRegistrationDataFromFlatbuffer: each op's parsed options
    for op in ops:
        b, a = rules.options_of(op, s.pointer_bytes)
        if b:
            tail.add("op options", b, a, op.index)
    # InitSubgraphs: each kernel's OpData; PrepareSubgraphs: what Prepare keeps
    persistent = [rules.kernel_persistent(model, op, s, kernels) for op in ops]
    # (at Init the head holds the scratch requests' room, kMaxScratchBuffersPerOp of them)
    init_head = s.scratch_request * rules.MAX_SCRATCH_PER_OP
    for op, bufs in zip(ops, persistent):
        for kind, b in bufs[:1]:
            if kind == "op data":
                if init_arena is not None and rules.init_data_unused(model, op) \
                        and _align(tail.used + b) + init_head > init_arena:
                    continue                    # null user_data, never read
                tail.add("kernel op data", b, rules.ALIGNMENT, op.index)
    prepare_peak = 0
    requests_before = 0
    late = []
    scratch_per_op = [len(rules.kernel_scratch(model, op, kernels)) for op in ops]
    handles = {o.outputs[0]: o.options.get("shared_name") for o in ops if o.type == "VAR_HANDLE"}
    buffered = set()
    for op, bufs in zip(ops, persistent):
        for kind, b in bufs:
            if kind.startswith("per-channel"):
                tail.add("per-channel quantisation", b, rules.ALIGNMENT, op.index)
            elif kind == "kernel sums":
                tail.add(kind, b, rules.ALIGNMENT, op.index)
        if op.type == "ASSIGN_VARIABLE" and handles.get(op.inputs[0]) not in buffered:
            # MicroResourceVariables::Allocate: the variable's buffer, at its first assignment
            buffered.add(handles.get(op.inputs[0]))
            tail.add("resource variables", model.tensors[op.inputs[1]].nbytes, rules.ALIGNMENT, op.index)
        temps = _prepare_temps(model, op, s)
        area = s.scratch_request * (requests_before + rules.MAX_SCRATCH_PER_OP)
        if rules.late_prepare_writes(model, op, s):
            prepare_peak = max(prepare_peak, _late_peak(model, op, s, area, tail.used))
            late.append((op, area, tail.used))
        else:
            prepare_peak = max(prepare_peak, area + temps + tail.used)
        # the output's dims DEPTH_TO_SPACE / SPACE_TO_DEPTH copy (CreateWritableTensorDimsWithCopy)
        # do not add to that peak: allocated while the temporaries are live, they are checked
        # against the head only (as GATHER's, _late_peak), and their writes land on no field
        # read afterwards (measured: the arena is 16 B short of it otherwise)
        for kind, b in bufs:
            if kind == "output dims":
                tail.add("output dims", b, rules.ALIGNMENT, op.index)
            elif kind == "prepare op data":
                tail.add("kernel op data", b, rules.ALIGNMENT, op.index)
            elif kind in ("transposed operands", "lookup tables"):
                tail.add(kind, b, rules.ALIGNMENT, op.index)
        requests_before += scratch_per_op[op.index]
    # FinishModelAllocation: scratch handles, variable tensors; then the plan is committed
    if n_scratch:
        tail.add("scratch buffer handles", s.scratch_handle * n_scratch, s.pointer_bytes)
    for t in model.tensors:
        if t.is_variable:
            tail.add("variable tensors", t.nbytes, rules.ALIGNMENT)
    tail_commit = tail.used
    # AllocateTensors: the interpreter's input and output TfLiteTensors
    for group in (model.inputs, model.outputs):
        tail.add("input/output TfLiteTensors", s.tensor_pointer * len(group), rules.ALIGNMENT)
        for i in group:
            tail.add("input/output TfLiteTensors", s.tflite_tensor, s.pointer_bytes)
            q = model.tensors[i].quantization
            if q is not None:
                tail.add("input/output TfLiteTensors", s.affine_quantization, s.pointer_bytes)
                tail.add("input/output TfLiteTensors", 4 + 4 * len(q.scale), 4)
    tail_bytes = tail.used
    # CommitStaticMemoryPlan: below the tail (its end aligned down to 16), the head holds
    # the scratch requests (with room for kMaxScratchBuffersPerOp more), the
    # AllocationInfoBuilder's per-subgraph offsets and one AllocationInfo per tensor and
    # scratch buffer, then (aligned up to 16) the greedy planner's per-buffer records
    commit_head = _align(s.scratch_request * (n_scratch + rules.MAX_SCRATCH_PER_OP)
                         + s.subgraph_offset * len(sub_tensors)
                         + s.allocation_info * (len(model.tensors) + n_scratch))
    planning = _align(tail_commit) + commit_head + s.planner_per_buffer * len(reqs)
    commit_peak = planning
    planning = max(planning, prepare_peak)
    size = _align(max(head + tail_bytes, planning))
    # whether a late Prepare write lands on a live field depends on where the tail ends, so
    # the arena the other peaks need may not be one at which those ops prepare (the write
    # pattern is not monotonic in the arena): the smallest from there at which all of them do
    while late:
        fits = [_late_peak(model, op, s, area, used, size) for op, area, used in late]
        if max(fits) == size:
            break
        size = max(fits)
    return TflmArena(model.name, kernels, pointer_bytes, size, head, tail_bytes, planning, allocs,
                     offline=offsets is not None, peaks={"prepare": prepare_peak, "commit": commit_peak})
