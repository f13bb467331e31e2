"""The poisoned-arena property of one-op models (not a test module): each op, run alone on an
arena poisoned everywhere but its inputs, writes only its output and scratch and gives the
output of an unpoisoned run (tests/test_interpreter.py holds the shared models to it)."""
from __future__ import annotations

import numpy as np

import arenaplan as ap


def poisoned_run(model: ap.Model, x, mode: str = "size", reference: str = "litert") -> None:
    """Every op of ``model`` (inputs ``x``) in turn on an arena poisoned everywhere but its
    inputs: it writes its output (and scratch) only and gives the output of an unpoisoned run."""
    p = ap.plan(model, mode=mode, reference=reference)
    assert p.verify()
    it = ap.Interpreter(p)
    it.run(x)
    arena = it.arena.copy()
    for op in model.operators:
        allowed = np.zeros(p.arena_bytes, dtype=bool)
        keep = np.zeros(p.arena_bytes, dtype=bool)
        for b in p.buffers:
            span = slice(b.offset, b.offset + b.size)
            if (b.kind == "scratch" and b.op == op.index) or op.outputs[0] in b.tensors:
                allowed[span] = True
            if any(t in op.inputs for t in b.tensors):   # an in-place op's input is its output too
                keep[span] = True
        poisoned = np.where(keep, arena, np.uint8(0xA5))
        it.arena[:] = poisoned
        state = it.state.copy()   # a stateful op (SVDF) runs twice from the same state
        it._graph.invoke(it._pools, op.index, op.index + 1)
        changed = np.flatnonzero((it.arena != poisoned) & ~allowed)
        assert changed.size == 0, f"op {op.index} ({op.type}) wrote at offsets {changed[:8]}"
        out = next(b for b in p.buffers if op.outputs[0] in b.tensors)
        span = slice(out.offset, out.offset + out.size)
        got = it.arena[span].copy()
        it.arena[:] = arena
        it.state[:] = state
        it._graph.invoke(it._pools, op.index, op.index + 1)
        np.testing.assert_array_equal(it.arena[span], got, err_msg=f"op {op.index} ({op.type}) read poisoned bytes")
        arena = np.where(allowed, it.arena, arena)
