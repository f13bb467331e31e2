"""The in-memory model: ops in execution order, tensors, constants.

A Model is plain data that a test can build by hand; importers (TFLite) and the
built-in zoo produce it, and everything downstream (lifetimes, planning,
execution, export) reads only this.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import ModelError

__all__ = ["Quantization", "Tensor", "Operator", "Model", "DTYPE_SIZES", "PER_OUTPUT_OPS", "one_output_ops"]

#: Bytes per element of the dtypes a model may hold (names as NumPy spells them).
DTYPE_SIZES: Dict[str, int] = {
    "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4,
    "int64": 8, "uint64": 8, "float16": 2, "float32": 4, "float64": 8, "bool": 1,
    "complex64": 8, "string": 1, "int4": 1, "resource": 0, "variant": 0,
}


@dataclass(frozen=True)
class Quantization:
    """Affine quantisation: real = scale * (q - zero_point), per tensor or per channel."""

    scale: Tuple[float, ...]
    zero_point: Tuple[int, ...]
    axis: int = 0  # the quantised dimension when per channel

    @property
    def per_channel(self) -> bool:
        return len(self.scale) > 1


@dataclass
class Tensor:
    """A tensor of the graph. ``data`` is set for constants (weights, biases, shapes)."""

    index: int
    name: str
    shape: Tuple[int, ...]
    dtype: str
    quantization: Optional[Quantization] = None
    data: Optional[np.ndarray] = None
    is_variable: bool = False
    #: A variable tensor's starting value (a resource variable's, from its CALL_ONCE
    #: initialisation); None: TFLite's reset value (zero, an int8 tensor its zero point).
    initial: Optional[np.ndarray] = None

    @property
    def is_constant(self) -> bool:
        return self.data is not None

    @property
    def nbytes(self) -> int:
        """Bytes of the tensor (sub-byte types rounded up to whole bytes per element)."""
        count = 1
        for d in self.shape:
            count *= max(int(d), 0)
        return count * DTYPE_SIZES.get(self.dtype, 1)


@dataclass
class Operator:
    """One op: its type name (TFLite builtin name, or the custom code), operands, options."""

    index: int
    type: str
    inputs: Tuple[int, ...]      # tensor indices; -1 marks an omitted optional operand
    outputs: Tuple[int, ...]
    options: Dict[str, Any] = field(default_factory=dict)
    custom_code: Optional[str] = None
    # Tensors an op only reads quantisation from (TFLite's integer LSTM keeps the scales of
    # its gate and hidden intermediates there); they hold no data and take no memory.
    intermediates: Tuple[int, ...] = ()

    @property
    def is_custom(self) -> bool:
        return self.custom_code is not None


#: Ops whose output only reinterprets the input's bytes (same size, no copy needed).
ALIASING_OPS = frozenset({"RESHAPE", "SQUEEZE", "EXPAND_DIMS"})

#: Ops of several outputs that a Model holds as one op per output (``one_output_ops``).
PER_OUTPUT_OPS = frozenset({"SPLIT", "SPLIT_V", "UNPACK"})


def one_output_ops(operators: Sequence[Operator]) -> List[Operator]:
    """``operators`` with every PER_OUTPUT_OPS op of N outputs as N consecutive ops, each
    reading the same inputs and writing one output, renumbered in execution order. Each
    keeps the op's options and adds ``output_part`` (which output, from 0), ``output_parts``
    (N) and ``source_op`` (the op's index before the split). Every kernel writes one output,
    so a SPLIT becomes N copies (its input stays live until the last of them, as TensorFlow
    Lite Micro keeps it live until the SPLIT has run) and the planner, the executor and the
    export see ops of one output only."""
    out: List[Operator] = []
    for op in operators:
        if op.type not in PER_OUTPUT_OPS or not op.outputs:
            out.append(op if op.index == len(out) else replace(op, index=len(out)))
            continue
        for j, t in enumerate(op.outputs):
            out.append(Operator(len(out), op.type, op.inputs, (t,),
                                {**op.options, "output_part": j, "output_parts": len(op.outputs),
                                 "source_op": op.index}, op.custom_code, op.intermediates))
    return out


@dataclass
class Model:
    """A graph in execution order. Build by hand, from ``load_tflite`` or ``zoo.load``."""

    name: str
    tensors: List[Tensor]
    operators: List[Operator]
    inputs: Tuple[int, ...]
    outputs: Tuple[int, ...]
    source: str = ""        # file path or "zoo:<name>"
    digest: str = ""        # sha256 of the source bytes, or of the graph when built in code
    #: the file's metadata entries, name -> bytes of their buffer (a TFLite model's
    #: "min_runtime_version", a TFLite Micro "OfflineMemoryAllocation" plan, ...)
    metadata: Dict[str, bytes] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.validate()
        if not self.digest:
            self.digest = self.content_hash()

    # --- checks ---------------------------------------------------------------
    def validate(self) -> None:
        """Raise ModelError if the graph is inconsistent (indices, zero ops, writers)."""
        n = len(self.tensors)
        if not self.operators:
            raise ModelError(f"model {self.name!r} has no ops")
        for i, t in enumerate(self.tensors):
            if t.index != i:
                raise ModelError(f"tensor {i} ({t.name!r}) records index {t.index}")
            if any(int(d) < 0 for d in t.shape):
                raise ModelError(f"tensor {i} ({t.name!r}) has a negative dimension in shape {t.shape}")
            if t.initial is not None and (not t.is_variable or t.initial.dtype != np.dtype(t.dtype)
                                          or t.initial.size * t.initial.itemsize != t.nbytes):
                raise ModelError(f"tensor {i} ({t.name!r}): a starting value of {t.initial.dtype} "
                                 f"{tuple(t.initial.shape)} for a{' variable' if t.is_variable else ' non-variable'} "
                                 f"{t.dtype} tensor of shape {t.shape}; only variable tensors have one, of "
                                 "their type and size")
        for where, ids in (("inputs", self.inputs), ("outputs", self.outputs)):
            for t in ids:
                if not 0 <= t < n:
                    raise ModelError(f"model {where} name tensor {t}, but the model has {n} tensors")
        written: Dict[int, int] = {}
        for k, op in enumerate(self.operators):
            if op.index != k:
                raise ModelError(f"op {k} ({op.type}) records index {op.index}")
            for role, ids in (("input", op.inputs), ("output", op.outputs)):
                for t in ids:
                    if t == -1 and role == "input":
                        continue
                    if not 0 <= t < n:
                        raise ModelError(f"op {k} ({op.type}) {role} names tensor {t}, "
                                         f"but the model has {n} tensors")
            for t in op.intermediates:
                if not 0 <= t < n:
                    raise ModelError(f"op {k} ({op.type}) intermediate names tensor {t}, "
                                     f"but the model has {n} tensors")
            for t in op.outputs:
                # state: each write updates it; a COPY of inlined control flow writes an IF's output
                # in each branch, a loop's carried value before the loop and in each iteration
                if t in written and not self.tensors[t].is_variable and not op.options.get("control_write"):
                    raise ModelError(f"tensor {t} ({self.tensors[t].name!r}) is written by op "
                                     f"{written[t]} and again by op {k} ({op.type})")
                if self.tensors[t].is_constant:
                    raise ModelError(f"op {k} ({op.type}) writes constant tensor {t} "
                                     f"({self.tensors[t].name!r})")
                written[t] = k

    # --- queries --------------------------------------------------------------
    def activation_tensors(self) -> List[int]:
        """Non-constant, non-variable tensors that the graph touches, in index order (a
        READ_VARIABLE output that reads the state in place, ``state_reads``, is none)."""
        used = set(self.inputs) | set(self.outputs)
        for op in self.operators:
            used.update(t for t in op.inputs if t >= 0)
            used.update(op.outputs)
        in_state = self.state_places()
        return [t for t in sorted(used)
                if not self.tensors[t].is_constant and not self.tensors[t].is_variable and t not in in_state]

    def state_places(self) -> Dict[int, int]:
        """{tensor: variable tensor} for every activation that lives at a variable's place in
        the state pool: the reads that need no copy (``state_reads``) and the values written
        straight into the state (``state_writes``)."""
        if not any(op.type in ("READ_VARIABLE", "ASSIGN_VARIABLE") for op in self.operators):
            return {}
        reads = self.state_reads()
        return {**reads, **self.state_writes(reads)}

    def _state_copies(self, op_type: str):
        """(op, plain tensor, variable tensor) for every well-formed ``op_type`` op (one input,
        one output, not marked unsupported) that copies between a variable tensor and a plain
        activation of the same type and bytes that is no graph input or output: the copies
        state_reads (READ_VARIABLE: variable -> plain) and state_writes (ASSIGN_VARIABLE:
        plain -> variable) may take in place."""
        n, ends = len(self.tensors), set(self.inputs) | set(self.outputs)
        for op in self.operators:
            if op.type != op_type or len(op.inputs) != 1 or len(op.outputs) != 1 or "unsupported" in op.options:
                continue
            src, dst = op.inputs[0], op.outputs[0]
            if not (0 <= src < n and 0 <= dst < n):
                continue
            v, plain = (src, dst) if op_type == "READ_VARIABLE" else (dst, src)
            tv, tp = self.tensors[v], self.tensors[plain]
            if plain in ends or not tv.is_variable or tp.is_variable or tp.is_constant \
                    or (tp.dtype, tp.nbytes) != (tv.dtype, tv.nbytes):
                continue
            yield op, plain, v

    def state_reads(self) -> Dict[int, int]:
        """{READ_VARIABLE output: its variable tensor} for the reads that need no copy: the
        output is no graph input or output, and every op that reads it runs before the next
        op that may change the variable (one that writes it, or takes it as an input other
        than a read; the ASSIGN_VARIABLE of the read value itself may be that op). Such an
        output lives at the variable's place in the state pool, and its readers read the state."""
        n = len(self.tensors)
        readers: Dict[int, List[int]] = {}
        changes: Dict[int, List[int]] = {}
        for op in self.operators:
            for t in op.inputs:
                if t >= 0:
                    readers.setdefault(t, []).append(op.index)
                    if op.type != "READ_VARIABLE" and 0 <= t < n and self.tensors[t].is_variable:
                        changes.setdefault(t, []).append(op.index)
            for t in op.outputs:
                if 0 <= t < n and self.tensors[t].is_variable:
                    changes.setdefault(t, []).append(op.index)
        found: Dict[int, int] = {}
        for op, y, v in self._state_copies("READ_VARIABLE"):
            after = min((k for k in changes.get(v, ()) if k > op.index), default=None)
            if after is None or all(k < after or (k == after and self.operators[k].type == "ASSIGN_VARIABLE")
                                    for k in readers.get(y, ())):
                found[y] = v
        return found

    def state_writes(self, reads: Optional[Dict[int, int]] = None) -> Dict[int, int]:
        """{ASSIGN_VARIABLE value: its variable tensor} for the values whose op can write them
        straight into the state: the value is no graph input or output, its op (a kernel that
        is no READ_VARIABLE) runs at p and the ASSIGN at a, nothing reads or changes the
        variable from p up to a (so the op neither reads the state it writes nor shows a
        reader the new value early; readers of a read in place, and of a value written in
        place before, count as readers), and every reader of the value runs at or before a, or
        before the variable's next change. The ASSIGN then sees one place and moves nothing.
        ``reads``: state_reads(), when the caller has it."""
        n = len(self.tensors)
        reads = self.state_reads() if reads is None else reads
        writer: Dict[int, int] = {}
        readers: Dict[int, List[int]] = {}
        touches: Dict[int, List[int]] = {}   # ops that read or change each variable
        for op in self.operators:
            for t in op.outputs:
                writer[t] = op.index
            for t in op.inputs:
                if t >= 0:
                    readers.setdefault(t, []).append(op.index)
                    v = reads.get(t, t)
                    if 0 <= v < n and self.tensors[v].is_variable:
                        touches.setdefault(v, []).append(op.index)
            for t in op.outputs:
                if 0 <= t < n and self.tensors[t].is_variable:
                    touches.setdefault(t, []).append(op.index)
        found: Dict[int, int] = {}
        for op, s, v in self._state_copies("ASSIGN_VARIABLE"):
            a = op.index
            if s in reads or s in found or s not in writer:
                continue
            p = writer[s]
            if self.operators[p].type in ("READ_VARIABLE", "ASSIGN_VARIABLE") or \
                    "unsupported" in self.operators[p].options:
                continue
            if any(p <= k < a for k in touches.get(v, ())):
                continue
            after = min((k for k in touches.get(v, ()) if k > a), default=None)
            if all(k <= a or (after is not None and k < after) or after is None for k in readers.get(s, ())):
                found[s] = v
                # the variable now changes at p, and the value's readers read the state: a later
                # value written straight in must not overlap them
                touches[v] = sorted(touches.get(v, []) + [p] + readers.get(s, []))
        return found

    def variable_tensors(self) -> List[int]:
        return [t.index for t in self.tensors if t.is_variable]

    def op_types(self) -> Dict[str, int]:
        counts: Dict[str, int] = {}
        for op in self.operators:
            counts[op.type] = counts.get(op.type, 0) + 1
        return counts

    def content_hash(self) -> str:
        """sha256 over the graph structure, shapes, quantisation and constant bytes."""
        h = hashlib.sha256()
        for t in self.tensors:
            h.update(repr((t.name, t.shape, t.dtype, t.is_variable, t.quantization)).encode())
            if t.data is not None:
                h.update(np.ascontiguousarray(t.data).tobytes())
            if t.initial is not None:
                h.update(b"initial" + np.ascontiguousarray(t.initial).tobytes())
        for op in self.operators:
            h.update(repr((op.type, op.inputs, op.outputs, sorted(op.options.items()),
                           op.custom_code)).encode())
        h.update(repr((self.inputs, self.outputs)).encode())
        return h.hexdigest()

    def summary(self) -> str:
        lines = [f"model {self.name}: {len(self.operators)} ops, {len(self.tensors)} tensors"]
        for op in self.operators:
            outs = ", ".join(f"{self.tensors[t].shape}" for t in op.outputs)
            lines.append(f"  {op.index:3d} {op.type:<24s} -> {outs}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"Model({self.name!r}, {len(self.operators)} ops, {len(self.tensors)} tensors, "
                f"inputs={list(self.inputs)}, outputs={list(self.outputs)})")


def shape_tuple(values: Sequence[int]) -> Tuple[int, ...]:
    return tuple(int(v) for v in values)
