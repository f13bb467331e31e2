"""IF and WHILE in an imported graph: the subgraphs they run, inlined into one flat op list.

TensorFlow Lite's IF runs its THEN or its ELSE subgraph on a bool condition; WHILE runs its
COND subgraph on the loop-carried values and, while that returns true, its BODY subgraph,
whose outputs are the next iteration's values. ``inline`` rewrites subgraph 0 so that the
executor stays a flat list of nodes, with two kinds of op of arenaplan's own:

- ``JUMP`` (options ``target``: an op index; ``when``: "always", or "if_false" with one
  input, the bool condition): the executor continues at ``target`` instead of the next op;
- ``COPY`` (one input, one output of the same type and bytes): moves a branch's result
  into the IF's output, or a loop's value into its carried tensor (the RESHAPE row's copy).

An IF at op k becomes::

    JUMP if_false cond -> ELSE;  THEN's ops;  COPY results -> outputs;  JUMP -> END
    ELSE: ELSE's ops;  COPY results -> outputs
    END:

and a WHILE (its outputs are the carried tensors)::

    COPY inputs -> outputs
    COND: COND's ops;  JUMP if_false result -> END
    BODY's ops;  COPY results -> outputs (a result that is another carried value goes
          through a temporary first, so a permutation of the values is exact);  JUMP -> COND
    END:

A subgraph's input tensors are the IF's inputs (or the carried tensors) themselves; every
other tensor of an inlined subgraph is a new tensor of the Model (named ``<subgraph>/<name>``),
one set per place the subgraph is inlined. Ops keep ``subgraph`` and ``source_op`` (their
index in the file's subgraph) in their options. Nested IF and WHILE are inlined the same way.

What cannot run is kept as the op itself, marked ``unsupported`` (the lowering raises it
when the plan is made) naming the subgraph, the op index, the op and what is wrong: a
subgraph index out of range, a recursive call (a subgraph that is running already), input or
output counts that differ between the op and its subgraph, a type or shape that differs (the
shapes must be static and stay the same through a loop), a condition that is no bool of one
element, and state (resource variables, variable tensors, CALL_ONCE) inside a subgraph.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Dict, List, Sequence, Tuple

import numpy as np

from ..model import ALIASING_OPS, Operator, Tensor, one_output_ops

__all__ = ["CONTROL_FLOW_OPS", "CONTROL_OPS", "inline", "with_source"]

#: TFLite ops that run other subgraphs, and their subgraph-index options.
CONTROL_FLOW_OPS = {"IF": ("then_subgraph_index", "else_subgraph_index"),
                    "WHILE": ("cond_subgraph_index", "body_subgraph_index")}
#: arenaplan's own ops of an inlined graph.
CONTROL_OPS = frozenset({"JUMP", "COPY"})
_STATE_OPS = frozenset({"VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "CALL_ONCE"})
_MAX_DEPTH = 32

#: subgraph i -> (tensors, ops, inputs, outputs), as the importer reads it.
GraphReader = Callable[[int], Tuple[List[Tensor], List[Operator], Tuple[int, ...], Tuple[int, ...]]]


class _Refused(Exception):
    """What cannot run, said in full (subgraph, op index, op, what is wrong)."""


def _at(subgraph: int, op: Operator) -> str:
    return f"subgraph {subgraph} op {op.options.get('source_op', op.index)} ({op.type})"


def _describe(t: Tensor) -> str:
    return f"{t.dtype} {tuple(t.shape)}"


def with_source(op: Operator) -> Operator:
    """``op`` with its index in the file's subgraph kept as ``source_op`` (an IF or WHILE;
    other ops as they are), before the ops are renumbered."""
    if op.type not in CONTROL_FLOW_OPS or "source_op" in op.options:
        return op
    return replace(op, options={**op.options, "source_op": op.index})


def inline(tensors: List[Tensor], ops: List[Operator], read_graph: GraphReader, n_subgraphs: int,
           source: str) -> Tuple[List[Tensor], List[Operator]]:
    """Subgraph 0's ``tensors`` and ``ops`` with every IF and WHILE replaced by the ops of
    the subgraphs it runs (see the module docstring). ``ops`` are one-output ops already
    (``one_output_ops``); the result's ops are numbered in order, and JUMP targets are
    those numbers."""
    if not any(op.type in CONTROL_FLOW_OPS for op in ops):
        return tensors, ops
    return _Inliner(list(tensors), read_graph, n_subgraphs).run(ops)


class _Inliner:
    def __init__(self, tensors: List[Tensor], read_graph: GraphReader, n_subgraphs: int) -> None:
        self.tensors = tensors
        self.read_graph = read_graph
        self.n_subgraphs = n_subgraphs
        self.out: List[Operator] = []
        self._cache: Dict[int, tuple] = {}

    def run(self, ops: List[Operator]) -> Tuple[List[Tensor], List[Operator]]:
        for op in ops:
            self.emit_op(op, 0, [0], lambda t: t)
        return self.tensors, self.out

    # --- emitting ---------------------------------------------------------------------------
    def append(self, op: Operator) -> Operator:
        op = replace(op, index=len(self.out))
        self.out.append(op)
        return op

    def jump(self, when: str, cond: int = -1, **where) -> Operator:
        return self.append(Operator(0, "JUMP", (cond,) if when == "if_false" else (), (),
                                    {"target": -1, "when": when, **where}))

    def copy(self, src: int, dst: int, **where) -> None:
        self.append(Operator(0, "COPY", (src,), (dst,), {"control_write": True, **where}))

    def new_tensor(self, like: Tensor, name: str) -> int:
        t = replace(like, index=len(self.tensors), name=name, is_variable=False, initial=None)
        self.tensors.append(t)
        return t.index

    def graph(self, index: int) -> tuple:
        if index not in self._cache:
            tensors, ops, inputs, outputs = self.read_graph(index)
            ops = [op if "source_op" in op.options else replace(op, options={**op.options, "source_op": op.index})
                   for op in ops]   # the file's op indices, for messages
            self._cache[index] = (tensors, one_output_ops(ops), tuple(inputs), tuple(outputs))
        return self._cache[index]

    def emit_op(self, op: Operator, subgraph: int, stack: List[int], name: Callable[[int], int]) -> None:
        """Emit ``op`` of ``subgraph`` (its tensors mapped to the Model's by ``name``)."""
        if op.type not in CONTROL_FLOW_OPS:
            mapped = replace(op, inputs=tuple(-1 if t < 0 else name(t) for t in op.inputs),
                             outputs=tuple(name(t) for t in op.outputs),
                             intermediates=tuple(name(t) for t in op.intermediates))
            if subgraph:
                mapped.options = {**op.options, "subgraph": subgraph,
                                  "source_op": op.options.get("source_op", op.index)}
            self.append(mapped)
            return
        start = len(self.out)
        try:
            if op.type == "IF":
                self.emit_if(op, subgraph, stack, name)
            else:
                self.emit_while(op, subgraph, stack, name)
        except _Refused as exc:
            del self.out[start:]
            kept = replace(op, inputs=tuple(-1 if t < 0 else name(t) for t in op.inputs),
                           outputs=tuple(name(t) for t in op.outputs),
                           options={**op.options, "unsupported": str(exc), "subgraph": subgraph,
                                    "source_op": op.options.get("source_op", op.index)})
            self.append(kept)

    def target(self, op: Operator, subgraph: int, field: str, stack: List[int]) -> int:
        at = _at(subgraph, op)
        value = op.options.get(field)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise _Refused(f"{at}: no {field} in its options")
        value = int(value)
        if not 0 <= value < self.n_subgraphs:
            raise _Refused(f"{at}: {field} {value} is out of range; the model has {self.n_subgraphs} subgraphs")
        if value in stack:
            chain = " -> ".join(str(s) for s in stack + [value])
            raise _Refused(f"{at}: {field} {value} names a subgraph that is running already "
                           f"(subgraphs {chain}): a recursive call")
        if len(stack) > _MAX_DEPTH:
            raise _Refused(f"{at}: control flow nested more than {_MAX_DEPTH} deep")
        sub_tensors, sub_ops, _, _ = self.graph(value)
        for j, inner in enumerate(sub_ops):
            if inner.type in _STATE_OPS:
                raise _Refused(f"{at}: its subgraph {value} holds {inner.type} (op "
                               f"{inner.options.get('source_op', j)}); arenaplan keeps state in subgraph 0 only")
        for t in sub_tensors:
            if t.is_variable:
                raise _Refused(f"{at}: its subgraph {value} holds variable tensor {t.index} ({t.name!r}); "
                               "arenaplan keeps state in subgraph 0 only")
        return value

    def match(self, at: str, what: str, outer: Sequence[Tensor], inner: Sequence[Tensor], sub: int,
              role: str) -> None:
        """Equal counts, types and shapes between the op's tensors and its subgraph's."""
        if len(outer) != len(inner):
            raise _Refused(f"{at}: {len(outer)} {what}, but subgraph {sub} has {len(inner)} {role}")
        for i, (a, b) in enumerate(zip(outer, inner)):
            if (a.dtype, tuple(a.shape)) != (b.dtype, tuple(b.shape)):
                raise _Refused(f"{at}: {what} {i} is {_describe(a)}, subgraph {sub}'s {role[:-1]} {i} "
                               f"({b.name!r}) is {_describe(b)}; arenaplan runs static shapes that stay the same")

    def operands(self, at: str, ids: Sequence[int], role: str, name: Callable[[int], int]) -> List[Tensor]:
        if any(t < 0 for t in ids):
            raise _Refused(f"{at}: an omitted {role} (-1); every operand of a control-flow op is a tensor")
        return [self.tensors[name(t)] for t in ids]

    def inline_graph(self, sub: int, bound: Dict[int, int], stack: List[int]) -> Callable[[int], int]:
        """Emit subgraph ``sub``'s ops with its tensors ``bound`` ({its tensor: the Model's});
        returns the mapping of its other tensors (new tensors, made as first named)."""
        sub_tensors, sub_ops, _, _ = self.graph(sub)
        mapping = dict(bound)

        def name(t: int) -> int:
            if t not in mapping:
                mapping[t] = self.new_tensor(sub_tensors[t], f"{sub}/{sub_tensors[t].name}")
            return mapping[t]

        for op in sub_ops:
            self.emit_op(op, sub, stack + [sub], name)
        return name

    def written_once(self, sub: int) -> set:
        """Outputs of subgraph ``sub`` that an op of it (no reshape, whose output the planner
        folds into its input's bytes) writes, that are no input or constant and are output
        once: they may be written straight into the place they are copied to."""
        tensors, ops, inputs, outputs = self.graph(sub)
        writers = {t: op.type for op in ops for t in op.outputs}
        return {t for t in outputs if outputs.count(t) == 1 and t not in inputs and tensors[t].data is None
                and t in writers and writers[t] not in ALIASING_OPS}

    def in_place_results(self, body: int, carried: List[int]) -> Dict[int, int]:
        """{body output: its carried tensor} for the results the body's op may write straight
        into the carried value: written once by an op of the body's own list (not inside a nested
        IF or WHILE) after which no op reads the value the body got in that place, and that
        value moves to no other place."""
        tensors, ops, inputs, outputs = self.graph(body)
        once = self.written_once(body)
        writer = {t: j for j, op in enumerate(ops) for t in op.outputs if op.type not in CONTROL_FLOW_OPS}
        found = {}
        for k, (t, c) in enumerate(zip(outputs, carried)):
            if t not in once or t not in writer or any(outputs[j] == inputs[k] for j in range(len(outputs)) if j != k):
                continue
            views = {inputs[k]}   # the value and reshapes of it (the planner gives them its bytes)
            for op in ops:
                if op.type in ALIASING_OPS and op.inputs and op.inputs[0] in views:
                    views.update(op.outputs)
            if any(views & set(op.inputs) for op in ops[writer[t]:]):
                continue
            found[t] = c
        return found

    def mark_writers(self, start: int, targets: set) -> None:
        """Ops emitted from ``start`` that write one of ``targets`` (an IF's output or a carried
        value written straight, also written elsewhere): allowed to write it again."""
        for op in self.out[start:]:
            if targets & set(op.outputs) and not op.options.get("control_write"):
                op.options = {**op.options, "control_write": True}

    @staticmethod
    def _cond(at: str, t: Tensor, what: str) -> None:
        if t.dtype != "bool" or int(np.prod(t.shape)) != 1:
            raise _Refused(f"{at}: {what} (tensor {t.index}, {t.name!r}) is {_describe(t)}; the condition must be a "
                           "bool of one element")

    def emit_if(self, op: Operator, subgraph: int, stack: List[int], name: Callable[[int], int]) -> None:
        at = _at(subgraph, op)
        if not op.inputs:
            raise _Refused(f"{at}: no condition input")
        branches = [self.target(op, subgraph, f, stack) for f in CONTROL_FLOW_OPS["IF"]]
        cond = self.operands(at, op.inputs[:1], "condition", name)[0]
        self._cond(at, cond, "the condition")
        args = self.operands(at, op.inputs[1:], "input", name)
        outs = self.operands(at, op.outputs, "output", name)
        for b in branches:
            sub_tensors, _, inputs, outputs = self.graph(b)
            self.match(at, "inputs after the condition", args, [sub_tensors[t] for t in inputs], b, "inputs")
            self.match(at, "outputs", outs, [sub_tensors[t] for t in outputs], b, "outputs")
        where = {"subgraph": subgraph, "source_op": op.options.get("source_op", op.index), "control": "IF"}
        skip = self.jump("if_false", cond.index, **where)
        ends = []
        for k, b in enumerate(branches):
            if k == 1:
                skip.options["target"] = len(self.out)
            _, _, inputs, outputs = self.graph(b)
            bound = {i: a.index for i, a in zip(inputs, args)}
            direct = {t: o.index for t, o in zip(outputs, outs) if t in self.written_once(b)}
            start = len(self.out)
            result = self.inline_graph(b, {**bound, **direct}, stack)
            self.mark_writers(start, set(direct.values()))
            for t, o in zip(outputs, outs):
                if t not in direct:
                    self.copy(result(t), o.index, **where)
            if k == 0:
                ends.append(self.jump("always", **where))
        for j in ends:
            j.options["target"] = len(self.out)

    def emit_while(self, op: Operator, subgraph: int, stack: List[int], name: Callable[[int], int]) -> None:
        at = _at(subgraph, op)
        cond_g, body_g = [self.target(op, subgraph, f, stack) for f in CONTROL_FLOW_OPS["WHILE"]]
        ins = self.operands(at, op.inputs, "input", name)
        outs = self.operands(at, op.outputs, "output", name)
        if len(ins) != len(outs) or any((a.dtype, tuple(a.shape)) != (b.dtype, tuple(b.shape))
                                        for a, b in zip(ins, outs)):
            raise _Refused(f"{at}: inputs {[_describe(t) for t in ins]} and outputs "
                           f"{[_describe(t) for t in outs]} differ; a loop keeps its values' types and shapes")
        c_tensors, _, c_in, c_out = self.graph(cond_g)
        b_tensors, _, b_in, b_out = self.graph(body_g)
        self.match(at, "loop values", outs, [c_tensors[t] for t in c_in], cond_g, "inputs")
        self.match(at, "loop values", outs, [b_tensors[t] for t in b_in], body_g, "inputs")
        self.match(at, "loop values", outs, [b_tensors[t] for t in b_out], body_g, "outputs")
        if len(c_out) != 1:
            raise _Refused(f"{at}: its condition subgraph {cond_g} has {len(c_out)} outputs; it must have one")
        self._cond(at, c_tensors[c_out[0]], f"subgraph {cond_g}'s output")
        where = {"subgraph": subgraph, "source_op": op.options.get("source_op", op.index), "control": "WHILE"}
        carried = [o.index for o in outs]
        for i, o in zip(ins, carried):
            self.copy(i.index, o, **where)
        top = len(self.out)
        result = self.inline_graph(cond_g, dict(zip(c_in, carried)), stack)
        leave = self.jump("if_false", result(c_out[0]), **where)
        direct = self.in_place_results(body_g, carried)
        start = len(self.out)
        result = self.inline_graph(body_g, {**dict(zip(b_in, carried)), **direct}, stack)
        self.mark_writers(start, set(direct.values()))
        values = [result(t) for t in b_out]
        aliased = {t for op in self.out[start:] if op.type in ALIASING_OPS for t in op.outputs}
        sources = []
        for k, v in enumerate(values):
            # a carried value moved to another place, or a reshape of one (the planner gives it
            # the carried value's bytes): kept before any carried value changes
            if (v in carried or v in aliased) and v != carried[k]:
                temp = self.new_tensor(self.tensors[carried[k]], f"{self.tensors[carried[k]].name}/next")
                self.copy(v, temp, **where)
                sources.append(temp)
            else:
                sources.append(v)
        for v, o in zip(sources, carried):
            if v != o:
                self.copy(v, o, **where)
        back = self.jump("always", **where)
        back.options["target"] = top
        leave.options["target"] = len(self.out)
