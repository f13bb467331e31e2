"""A plan's executor tables, built in one place for the Interpreter and the C export.

Places list where every tensor the kernels touch lives (a pool and an offset, or
constant data), nodes list each op's kernel, chosen variant and operand places. The
Interpreter hands them to the C executor through ``_core.Graph``; the C export writes
the same tables as const data, so the host and the firmware run the same graph.

Variable tensors live in the state pool (``state.STATE_POOL``), which comes after the
plan's pools in the executor's pool list: ``graph_pool_bytes(plan)``.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import numpy as np

from .. import _core
from ..errors import InvalidArgument
from ..ops.lowering import ISA_CODES, runs_as
from ..planning.state import STATE_POOL

__all__ = ["graph_tables", "core_graph", "graph_pool_bytes"]

#: (places, nodes, where). A place is (pool name | None for constants, offset, bytes,
#: constant data | None, label: tensor index or scratch name); a node is
#: (OpKernel, Variant, input places, output place, scratch places, state places); where
#: maps an activation tensor to (pool name, offset).
Tables = Tuple[List[tuple], List[tuple], Dict[int, Tuple[str, int]]]


def graph_tables(plan) -> Tables:
    """The executor tables of ``plan`` (whose every op has a kernel)."""
    model = plan.model
    where = {t: (b.pool, b.offset) for b in plan.buffers for t in b.tensors}
    state_of = {b.tensor: b for b in plan.state_buffers}
    in_state = model.state_places()   # reads and writes of a variable at its place
    places: List[tuple] = []
    place_of: Dict[object, int] = {}

    def place(key: object, entry: tuple) -> int:
        if key not in place_of:
            place_of[key] = len(places)
            places.append(entry)
        return place_of[key]

    def activation(t: int) -> int:
        if t in state_of or t in in_state:   # a variable (READ/ASSIGN_VARIABLE), or a read of one in place
            b = state_of[in_state.get(t, t)]
            return place(("state", t), (STATE_POOL, b.offset, b.size, None, t))
        if t not in where:
            raise InvalidArgument(f"tensor {t} ({model.tensors[t].name!r}) has no place in the plan")
        return place(t, (*where[t], model.tensors[t].nbytes, None, t))

    nodes = []
    for kernel, choice in zip(plan.kernels, plan.choices):
        ins = []
        for t in kernel.data_inputs:
            if model.tensors[t].is_constant:
                data = np.ascontiguousarray(model.tensors[t].data)
                ins.append(place(("const", t), (None, 0, data.nbytes, data, t)))
            else:
                ins.append(activation(t))
        out = 0 if kernel.output < 0 else activation(kernel.output)   # a JUMP has no output
        scratch = [place(("scratch", b.name), (b.pool, b.offset, b.size, None, b.name))
                   for b in sorted((b for b in plan.buffers if b.kind == "scratch" and b.op == kernel.index),
                                   key=lambda b: b.name)]
        states = []
        for t in kernel.states:
            if t not in state_of:
                raise InvalidArgument(f"variable tensor {t} ({model.tensors[t].name!r}) has no place "
                                      "in the plan's state pool")
            b = state_of[t]
            states.append(place(("state", t), (STATE_POOL, b.offset, b.size, None, t)))
        nodes.append((kernel, kernel.variant(choice), ins, out, scratch, states))
    return places, nodes, where


def graph_pool_bytes(plan) -> Dict[str, int]:
    """Bytes of every pool the executor graph addresses: the plan's pools, then the state
    pool when the model has variable tensors."""
    pools = dict(plan.pool_bytes)
    if plan.state_buffers:
        pools[STATE_POOL] = plan.state_bytes
    return pools


def core_graph(plan, tables: Optional[Tables] = None) -> "_core.Graph":
    """A checked C executor graph (``ap_graph_check`` runs when it is built)."""
    places, nodes, _ = tables if tables is not None else graph_tables(plan)
    return graph_of(places, nodes, graph_pool_bytes(plan), plan.isa)


def graph_of(places: List[tuple], nodes: List[tuple], pools: Dict[str, int], isa: str) -> "_core.Graph":
    """The C executor graph of tables in ``graph_tables``' form over ``pools`` (name ->
    bytes, in the order their base pointers are passed), running ``isa``'s kernels where
    this host has them (an arm-dsp plan everywhere: off a DSP core its kernels run
    their instructions' C definitions, bit-identical); an ISA the host lacks is refused
    naming both."""
    pool_index = {name: i for i, name in enumerate(pools)}
    core_places = [(-1, 0, nbytes, data) if pool is None else (pool_index[pool], offset, nbytes, None)
                   for pool, offset, nbytes, data, _ in places]
    code = ISA_CODES[runs_as(isa)]
    core_nodes = [(k.code, k.spec, k.prepared(), (v.kind, v.param, code), ins, out, scratch, states, k.types)
                  for k, v, ins, out, scratch, states in nodes]
    return _core.Graph(core_places, core_nodes, list(pools.values()))
