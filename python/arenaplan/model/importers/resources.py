"""Resource variables and CALL_ONCE in an imported graph: the state they are.

TensorFlow Lite keeps streaming state in resource variables: VAR_HANDLE names one (by
container and shared_name), READ_VARIABLE copies its value out, ASSIGN_VARIABLE copies a
value in, and CALL_ONCE runs an initialisation subgraph on the first invoke that assigns
each variable its starting value. ``resolve`` rewrites subgraph 0 into the Model's terms:

- every variable becomes a variable tensor of the Model (state, in the state pool), named
  by its shared_name, of the shape, type and quantisation of the values assigned to it
  (two shapes or types for one variable: ModelError naming both);
- VAR_HANDLE ops are dropped (a handle only names its variable);
- READ_VARIABLE keeps its output and reads the variable tensor: ``inputs=(variable,)``. Where
  every reader of its output runs before the variable's next assignment (and the output is
  no graph output), the output is the state itself and the read moves nothing
  (``Model.state_reads``); otherwise it is a copy from the state into an activation;
- ASSIGN_VARIABLE writes the variable tensor: ``inputs=(value,), outputs=(variable,)``, a
  copy of the value into the state, or none where the value's op can write it straight
  into the state (nothing reads or changes the variable between that op and the ASSIGN:
  ``Model.state_writes``);
- CALL_ONCE is evaluated here: its subgraph must fold to constants (VAR_HANDLE,
  ASSIGN_VARIABLE, READ_VARIABLE, QUANTIZE, RESHAPE/SQUEEZE/EXPAND_DIMS of constants and
  nested CALL_ONCE), and what it assigns becomes the variables' ``initial`` value, which
  the state pool starts at and returns to on ``reset_state``. The op is then dropped.

What cannot run is kept, marked with an ``unsupported`` option that the lowering raises
as UnsupportedModel when the plan is made, naming the subgraph, the file's op index, the op
and what is wrong: a CALL_ONCE whose subgraph index is out of range, that calls itself
(directly or through another CALL_ONCE), or whose subgraph does not fold; a READ_VARIABLE
of a variable that nothing has assigned yet (no CALL_ONCE initialises it and no earlier
op of subgraph 0 assigns it: subgraph 0 has no control flow, so the graph decides it);
a handle that no VAR_HANDLE made. IF and WHILE are left as they are: the lowering names them.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...errors import ModelError
from ..model import Operator, Quantization, Tensor

__all__ = ["RESOURCE_OPS", "resolve"]

#: Op types this rewrite handles; a subgraph 0 without them is left untouched.
RESOURCE_OPS = frozenset({"VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "CALL_ONCE"})
_RESHAPES = frozenset({"RESHAPE", "SQUEEZE", "EXPAND_DIMS"})
_FOLDABLE = "VAR_HANDLE, ASSIGN_VARIABLE, READ_VARIABLE, QUANTIZE, RESHAPE, SQUEEZE, EXPAND_DIMS, CALL_ONCE"
_MAX_DEPTH = 32   # CALL_ONCE inside CALL_ONCE: deeper is refused (and never seen)
_RANGES = {"int8": (-128, 127), "int16": (-32768, 32767)}

#: (tensors, ops) of subgraph i, as the importer reads them.
GraphReader = Callable[[int], Tuple[List[Tensor], List[Operator]]]


class _Refused(Exception):
    """What cannot run, said in full (subgraph, op index, op, what is wrong)."""


@dataclass
class _Variable:
    key: Tuple[str, str]           # (container, shared_name)
    shape: Optional[Tuple[int, ...]] = None
    dtype: Optional[str] = None
    quantization: Optional[Quantization] = None
    where: str = ""                # the op that gave the shape, for messages
    initial: Optional[np.ndarray] = None

    @property
    def label(self) -> str:
        container, shared = self.key
        return f"{container}/{shared}" if container else shared

    def meet(self, shape: Sequence[int], dtype: str, quantization: Optional[Quantization], where: str,
             source: str) -> None:
        """Record a value of the variable; two shapes or types are a ModelError naming both."""
        shape = tuple(int(d) for d in shape)
        if self.shape is None:
            self.shape, self.dtype, self.where = shape, dtype, where
            return
        if (shape, dtype) != (self.shape, self.dtype):
            raise ModelError(f"{source}: resource variable {self.label!r} has two shapes: {self.dtype} "
                             f"{self.shape} at {self.where} and {dtype} {shape} at {where}")
        if self.quantization is None:
            self.quantization = quantization


def _key(op: Operator) -> Tuple[str, str]:
    return (str(op.options.get("container", "")), str(op.options.get("shared_name", "")))


def _at(subgraph: int, k: int, op: Operator) -> str:
    return f"subgraph {subgraph} op {k} ({op.type})"


def resolve(tensors: List[Tensor], ops: List[Operator], read_graph: GraphReader, n_subgraphs: int,
            source: str) -> Tuple[List[Tensor], List[Operator]]:
    """Subgraph 0's ``tensors`` and ``ops`` (the file's op order and indices) with its
    resource variables as variable tensors and CALL_ONCE folded into their starting values
    (see the module docstring). ``read_graph(i)`` reads subgraph i."""
    if not any(op.type in RESOURCE_OPS for op in ops) or \
            any(not -1 <= t < len(tensors) for op in ops for t in op.inputs + op.outputs):
        return tensors, ops     # nothing to do, or a corrupt graph the Model's checks name
    variables: Dict[Tuple[str, str], _Variable] = {}

    def variable(key: Tuple[str, str]) -> _Variable:
        return variables.setdefault(key, _Variable(key))

    # CALL_ONCE first: its values fix the variables' starting values (and shapes).
    refused: Dict[int, str] = {}
    initialised: Dict[int, List[Tuple[str, str]]] = {}
    for k, op in enumerate(ops):
        if op.type != "CALL_ONCE":
            continue
        values: Dict[Tuple[str, str], Tuple[np.ndarray, Tensor, str]] = {}
        try:
            _call(op, 0, k, [0], read_graph, n_subgraphs, values)
        except _Refused as exc:
            refused[k] = str(exc)
            continue
        initialised[k] = list(values)
        for key, (value, t, where) in values.items():
            v = variable(key)
            v.meet(value.shape, t.dtype, t.quantization, where, source)
            v.initial = np.ascontiguousarray(value, dtype=t.dtype)
            v.quantization = v.quantization or t.quantization

    handles: Dict[int, Tuple[str, str]] = {}
    for k, op in enumerate(ops):
        if op.type == "VAR_HANDLE" and op.outputs:
            handles[op.outputs[0]] = _key(op)
            variable(_key(op))
    for k, op in enumerate(ops):   # the main graph's values: their shapes and quantisation
        if op.type == "ASSIGN_VARIABLE" and len(op.inputs) == 2 and op.inputs[0] in handles \
                and op.inputs[1] >= 0:
            t = tensors[op.inputs[1]]
            v = variable(handles[op.inputs[0]])
            v.meet(t.shape, t.dtype, t.quantization, _at(0, k, op), source)
            v.quantization = t.quantization or v.quantization
    for k, op in enumerate(ops):
        if op.type == "READ_VARIABLE" and len(op.inputs) == 1 and op.inputs[0] in handles and op.outputs:
            t = tensors[op.outputs[0]]
            v = variable(handles[op.inputs[0]])
            v.meet(t.shape, t.dtype, t.quantization, _at(0, k, op), source)
            v.quantization = v.quantization or t.quantization

    out_tensors = list(tensors)
    index: Dict[Tuple[str, str], int] = {}
    for key, v in variables.items():
        if v.shape is None:
            continue        # a handle nothing reads or assigns: no state
        index[key] = len(out_tensors)
        out_tensors.append(Tensor(len(out_tensors), v.label, v.shape, v.dtype, v.quantization, None, True,
                                  v.initial))

    assigned = set()
    out_ops: List[Operator] = []

    def keep(op: Operator, reason: Optional[str] = None, **changes) -> None:
        options = dict(op.options, source_op=op.index)
        if reason is not None:
            options["unsupported"] = reason
        out_ops.append(replace(op, options=options, **changes))

    for k, op in enumerate(ops):
        if op.type == "VAR_HANDLE":
            continue
        if op.type == "CALL_ONCE":
            if k in refused:
                keep(op, refused[k], inputs=(), outputs=())
            else:
                assigned.update(initialised[k])
            continue
        if op.type not in ("READ_VARIABLE", "ASSIGN_VARIABLE"):
            out_ops.append(op)
            continue
        arity = 1 if op.type == "READ_VARIABLE" else 2
        if len(op.inputs) != arity or (op.type == "READ_VARIABLE" and len(op.outputs) != 1) \
                or min(op.inputs) < 0 or min(op.outputs, default=0) < 0:
            keep(op, f"{_at(0, k, op)}: takes {arity} input(s) and "
                     f"{'one output' if arity == 1 else 'no output'}, got {len(op.inputs)} and "
                     f"{len(op.outputs)}", inputs=(), outputs=())
            continue
        h = op.inputs[0]
        if h not in handles:
            keep(op, f"{_at(0, k, op)}: its resource tensor {h} ({tensors[h].name!r}) is no VAR_HANDLE's "
                     "output; arenaplan finds a variable by the VAR_HANDLE that names it", inputs=(),
                 outputs=())
            continue
        key = handles[h]
        var = index[key]
        if op.type == "ASSIGN_VARIABLE":
            assigned.add(key)
            keep(op, inputs=(op.inputs[1],), outputs=(var,))
        elif key not in assigned:
            keep(op, f"{_at(0, k, op)}: reads resource variable {variables[key].label!r} before any "
                     "assignment: no CALL_ONCE initialises it and no earlier ASSIGN_VARIABLE of subgraph 0 "
                     "writes it", inputs=(var,))
        else:
            keep(op, inputs=(var,))
    return out_tensors, out_ops


def _call(op: Operator, subgraph: int, k: int, stack: List[int], read_graph: GraphReader,
          n_subgraphs: int, values: Dict) -> None:
    """Fold the subgraph CALL_ONCE ``op`` (op k of ``subgraph``) runs into ``values``
    ({variable key: (value, tensor, where)}); _Refused names what stops it."""
    at = _at(subgraph, k, op)
    target = op.options.get("init_subgraph_index")
    if isinstance(target, bool) or not isinstance(target, (int, np.integer)):
        raise _Refused(f"{at}: no init_subgraph_index in its options")
    target = int(target)
    if not 0 <= target < n_subgraphs:
        raise _Refused(f"{at}: init_subgraph_index {target} is out of range; the model has "
                       f"{n_subgraphs} subgraphs")
    if len(stack) > _MAX_DEPTH:
        raise _Refused(f"{at}: CALL_ONCE nested more than {_MAX_DEPTH} deep")
    if target in stack:
        chain = " -> ".join(str(s) for s in stack + [target])
        raise _Refused(f"{at}: calls subgraph {target}, which is running already (subgraphs {chain}): "
                       "a recursive call")
    tensors, ops = read_graph(target)
    consts: Dict[int, np.ndarray] = {t.index: t.data for t in tensors if t.data is not None}
    handles: Dict[int, Tuple[str, str]] = {}
    for j, inner in enumerate(ops):
        where = _at(target, j, inner)
        what = f"{where}, in the subgraph CALL_ONCE at {at} initialises with"

        def const(t: int, role: str) -> np.ndarray:
            if t < 0 or t not in consts:
                raise _Refused(f"{what}: its {role} (tensor {t}) is not a constant; the initialisation must "
                               "fold to constants")
            return consts[t]

        if inner.type == "VAR_HANDLE":
            if inner.outputs:
                handles[inner.outputs[0]] = _key(inner)
        elif inner.type in ("ASSIGN_VARIABLE", "READ_VARIABLE"):
            h = inner.inputs[0] if inner.inputs else -1
            if h not in handles:
                raise _Refused(f"{what}: its resource tensor {h} is no VAR_HANDLE's output")
            if inner.type == "ASSIGN_VARIABLE":
                if len(inner.inputs) != 2:
                    raise _Refused(f"{what}: ASSIGN_VARIABLE takes 2 inputs, got {len(inner.inputs)}")
                values[handles[h]] = (np.array(const(inner.inputs[1], "value")), tensors[inner.inputs[1]], where)
            elif handles[h] in values and inner.outputs:
                consts[inner.outputs[0]] = values[handles[h]][0]
            else:
                raise _Refused(f"{what}: reads a variable it has not assigned")
        elif inner.type in _RESHAPES and inner.outputs:
            y = tensors[inner.outputs[0]]
            x = const(inner.inputs[0] if inner.inputs else -1, "input")
            if x.size != int(np.prod(y.shape)):
                raise _Refused(f"{what}: {x.size} values into shape {y.shape}")
            consts[y.index] = x.reshape(y.shape)
        elif inner.type == "QUANTIZE" and inner.outputs:
            consts[inner.outputs[0]] = _quantize(const(inner.inputs[0] if inner.inputs else -1, "input"),
                                                 tensors[inner.outputs[0]], what)
        elif inner.type == "CALL_ONCE":
            _call(inner, target, j, stack + [target], read_graph, n_subgraphs, values)
        else:
            raise _Refused(f"{what}: {inner.type} does not fold to a constant; an initialisation "
                           f"subgraph may hold {_FOLDABLE}")


def _quantize(x: np.ndarray, y: Tensor, what: str) -> np.ndarray:
    """TFLite's float32 QUANTIZE (AffineQuantize): round(x / scale) half away from zero, plus
    the zero point, clamped to the type."""
    q = y.quantization
    if x.dtype != np.float32 or y.dtype not in _RANGES or q is None or len(q.scale) != 1:
        raise _Refused(f"{what}: QUANTIZE folds float32 into per-tensor int8 or int16 only, not "
                       f"{x.dtype} into {y.dtype}{' per channel' if q is not None and len(q.scale) > 1 else ''}")
    ratio = x.astype(np.float64) / float(np.float32(q.scale[0]))   # float / double, as TFLite divides
    rounded = np.sign(ratio) * np.floor(np.abs(ratio) + 0.5)
    lo, hi = _RANGES[y.dtype]
    zp = int(q.zero_point[0]) if q.zero_point else 0
    return np.clip(rounded + zp, lo, hi).astype(y.dtype).reshape(y.shape)
