"""Buffers with lifetimes from a model: what the planner places.

One buffer per non-constant, non-variable tensor, live from the first op that
writes or reads it to the last op that reads it (graph inputs from op 0, graph
outputs to the last op, a tensor never read until its writer) — TensorFlow Lite
Micro's rules. Ops that only reinterpret memory (RESHAPE, SQUEEZE, EXPAND_DIMS)
let their output alias their input: the pair becomes one buffer whose lifetime
is the union of both. Variable (stateful) tensors persist across runs and are
reported separately, outside the planned arena; so is an activation that lives at a
variable's place: a READ_VARIABLE output read in place, a value written straight into
the state (``Model.state_places``).

Inlined control flow (``importers.control_flow``) keeps the order flat: the two branches of
an IF follow each other, so their tensors share memory where their spans do not meet (one
branch runs, never both); a WHILE's ops are a loop from its condition to its back JUMP, and
a tensor live across the loop's edge is live over the whole loop (``loop_ranges``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Tuple

import numpy as np

from ..model.model import ALIASING_OPS, Model

__all__ = ["ModelBuffers", "activation_buffers", "loop_ranges", "tensor_lifetimes"]


@dataclass(frozen=True)
class ModelBuffers:
    """Planner input derived from a model. Index i describes buffer i."""

    model: Model
    names: Tuple[str, ...]
    tensors: Tuple[Tuple[int, ...], ...]   # tensors sharing buffer i (aliases folded)
    sizes: np.ndarray                      # int64 bytes (unaligned)
    first: np.ndarray                      # int64 op index
    last: np.ndarray                       # int64 op index
    alignment: int
    variable_tensors: Tuple[int, ...]
    variable_bytes: int

    def __len__(self) -> int:
        return len(self.sizes)

    def buffer_of_tensor(self) -> Dict[int, int]:
        return {t: i for i, ts in enumerate(self.tensors) for t in ts}


def tensor_lifetimes(model: Model) -> Dict[int, Tuple[int, int]]:
    """[first, last] op of every activation tensor, by TFLite Micro's rules."""
    last_op = len(model.operators) - 1
    first: Dict[int, int] = {}
    last: Dict[int, int] = {}
    activations = set(model.activation_tensors())
    for t in model.inputs:
        if t in activations:
            first[t] = 0
            last[t] = 0
    for op in model.operators:
        for t in op.outputs:
            if t in activations:
                first.setdefault(t, op.index)
                last[t] = max(last.get(t, op.index), op.index)
        for t in op.inputs:
            if t in activations:
                first.setdefault(t, op.index)
                last[t] = op.index
    for t in model.outputs:
        if t in activations:
            first.setdefault(t, 0)
            last[t] = last_op
    spans = {t: (first[t], last[t]) for t in sorted(first)}
    return _over_loops(spans, loop_ranges(model))


def loop_ranges(model: Model) -> List[Tuple[int, int]]:
    """[first, last] op of every loop of an inlined WHILE: a JUMP back to ``target`` from op
    ``last`` runs ops target..last again."""
    return [(int(op.options["target"]), op.index) for op in model.operators
            if op.type == "JUMP" and 0 <= int(op.options.get("target", -1)) <= op.index]


def _over_loops(spans: Dict[int, Tuple[int, int]], loops: List[Tuple[int, int]]) -> Dict[int, Tuple[int, int]]:
    """Lifetimes in a flat op order with loops: a tensor live at some op of a loop and
    outside it (made before the loop and read in it, or carried through it) is live over
    the whole loop, as every iteration reads it; one that lives within one iteration keeps
    its span. Repeated until nothing changes, for nested loops."""
    changed = bool(loops)
    while changed:
        changed = False
        for t, (f, l) in spans.items():
            for a, b in loops:
                if f <= b and l >= a and not (a <= f and l <= b) and (f > a or l < b):
                    f, l = min(f, a), max(l, b)
                    spans[t] = (f, l)
                    changed = True
    return spans


def activation_buffers(model: Model, alignment: int = 16, fold_aliases: bool = True) -> ModelBuffers:
    """The planner's buffers for ``model``'s activations (see module docstring)."""
    lifetimes = tensor_lifetimes(model)
    group: Dict[int, int] = {t: t for t in lifetimes}  # union-find parent

    def root(t: int) -> int:
        while group[t] != t:
            group[t] = group[group[t]]
            t = group[t]
        return t

    if fold_aliases:
        for op in model.operators:
            if op.type not in ALIASING_OPS or not op.inputs or len(op.outputs) != 1:
                continue
            src, dst = op.inputs[0], op.outputs[0]
            if src in lifetimes and dst in lifetimes and \
                    model.tensors[src].nbytes == model.tensors[dst].nbytes:
                group[root(dst)] = root(src)

    members: Dict[int, List[int]] = {}
    for t in lifetimes:
        members.setdefault(root(t), []).append(t)
    roots = sorted(members)
    names, tensors, sizes, first, last = [], [], [], [], []
    for r in roots:
        ts = tuple(sorted(members[r]))
        tensors.append(ts)
        names.append(model.tensors[r].name if len(ts) == 1
                      else "+".join(model.tensors[t].name for t in ts))
        sizes.append(max(model.tensors[t].nbytes for t in ts))
        first.append(min(lifetimes[t][0] for t in ts))
        last.append(max(lifetimes[t][1] for t in ts))
    variables = tuple(model.variable_tensors())
    return ModelBuffers(
        model=model, names=tuple(names), tensors=tuple(tensors),
        sizes=np.array(sizes, dtype=np.int64), first=np.array(first, dtype=np.int64),
        last=np.array(last, dtype=np.int64), alignment=int(alignment),
        variable_tensors=variables,
        variable_bytes=sum(model.tensors[t].nbytes for t in variables))
