"""Run a planned model on the host: ``Interpreter(plan).run(x)``.

The interpreter owns one NumPy arena of the plan's size and hands the C
executor a graph whose every tensor and scratch buffer sits at the plan's
offset in it: what runs here is what the plan says a target would run, byte
for byte. One call crosses into C per run, with the GIL released.

A model with variable tensors (SVDF's state) also gets a state pool of its own:
zeroed when the interpreter is made (an int8 tensor at its zero point, as TensorFlow
Lite resets them; a resource variable at its CALL_ONCE value), carried from one ``run``
to the next, and reset by ``reset_state``.

Threads: an Interpreter may be shared between threads. Its runs take a lock of its own
(see ``Interpreter``), so they happen one at a time on its one arena; separate
Interpreters share nothing and run in parallel, the GIL released.
"""
from __future__ import annotations

import threading
from typing import Dict, List, Mapping, Sequence, Union

import numpy as np

from .graph import core_graph
from ..errors import InvalidArgument, UnsupportedModel
from ..planning.plan import Plan
from .profiling import OpProfile, Profile, Summary, summarise
from ..planning.state import fill_state

__all__ = ["Interpreter", "OpProfile", "Profile"]

_ARENA_ALIGNMENT = 64


class Interpreter:
    """Executes a Plan on this machine, bit-exactly with TensorFlow Lite's reference kernels.

    Safe to share between threads: ``run``, ``profile``, ``reset_state`` and
    ``state_tensor`` hold a lock of this Interpreter while they touch its arena, so
    calls from several threads take turns and each gets the output a single thread
    would. A lock rather than an arena per calling thread, because the arena is the
    plan's memory (a thread-local copy would multiply it, unplanned) and a model with
    state carries it from one run to the next, which only an order of runs can give
    meaning to. Uncontended, the lock costs less than 0.1 us a run, within the noise of
    the smallest model's 1.5 us run (``benchmarks/bench_interpreter_lock.py``); for
    throughput on several cores make one Interpreter per thread — they run in
    parallel, the GIL released.
    """

    def __init__(self, plan: Plan) -> None:
        if not isinstance(plan, Plan):
            raise InvalidArgument(f"Interpreter needs an arenaplan.Plan, got {type(plan).__name__}")
        if plan.unsupported:
            raise UnsupportedModel("the plan has ops without kernels: " + "; ".join(plan.unsupported))
        plan.verify()
        self._lock = threading.Lock()
        self.plan = plan
        model = plan.model
        pool_names = list(plan.pool_bytes)
        self._storage = []
        self.pools: Dict[str, np.ndarray] = {}
        for name, size in plan.pool_bytes.items():
            self.pools[name] = self._aligned(size)
        #: The first pool (the whole arena of a plan made without a target).
        self.arena = self.pools[pool_names[0]]
        #: The state pool (variable tensors; empty for a model without them).
        self.state = self._aligned(plan.state_bytes)
        fill_state(self.state, plan.state_buffers)
        self._graph = core_graph(plan)
        self._pools = list(self.pools.values()) + ([self.state] if plan.state_buffers else [])
        self._inputs = [model.tensors[t] for t in model.inputs]
        self._outputs = [model.tensors[t] for t in model.outputs]
        # Typed views of the arena where inputs and outputs live: a run copies into and
        # out of them, nothing else happens in Python.
        self._input_views = [self._view(t, plan.tensor_places[t.index]) for t in self._inputs]
        self._output_views = [self._view(t, plan.tensor_places[t.index]) for t in self._outputs]
        index = {name: i for i, name in enumerate(self.pools)}

        def io(t) -> tuple:
            pool, offset = plan.tensor_places[t.index]
            return (index[pool], offset, t.nbytes)
        self._graph.set_io([io(t) for t in self._inputs], [io(t) for t in self._outputs])

    def _aligned(self, size: int) -> np.ndarray:
        storage = np.zeros(size + _ARENA_ALIGNMENT, dtype=np.uint8)
        start = (-storage.ctypes.data) % _ARENA_ALIGNMENT
        self._storage.append(storage)
        return storage[start:start + size]

    # --- state --------------------------------------------------------------------
    def reset_state(self) -> None:
        """Return every variable tensor to its starting value (TFLite: zero, an int8 tensor
        its zero point; a resource variable the value its CALL_ONCE assigns), as a fresh
        interpreter has it."""
        fill_state(self.state, self.plan.state_buffers)

    def state_tensor(self, tensor: int) -> np.ndarray:
        """A copy of variable tensor ``tensor`` (its index in the model) as it is now."""
        for b in self.plan.state_buffers:
            if b.tensor == tensor:
                t = self.plan.model.tensors[tensor]
                with self._lock:
                    return self.state[b.offset:b.offset + b.size].view(np.dtype(t.dtype)).reshape(t.shape).copy()
        raise InvalidArgument(f"tensor {tensor!r} is not a variable tensor of the model; its variable "
                              f"tensors are {[b.tensor for b in self.plan.state_buffers]}")

    def _view(self, t, where: tuple) -> np.ndarray:
        pool, offset = where
        return self.pools[pool][offset:offset + t.nbytes].view(np.dtype(t.dtype)).reshape(t.shape)

    # --- I/O --------------------------------------------------------------------
    def _write_inputs(self, x: Union[np.ndarray, Sequence[np.ndarray], Mapping[str, np.ndarray]]) -> None:
        names = [t.name for t in self._inputs]
        if isinstance(x, Mapping):
            unknown = sorted(set(x) - set(names))
            if unknown:
                raise InvalidArgument(f"unknown input name(s) {unknown}; the model's inputs are {names}")
            missing = [n for n in names if n not in x]
            if missing:
                raise InvalidArgument(f"missing input(s) {missing}")
            values = [x[n] for n in names]
        elif isinstance(x, np.ndarray):
            values = [x]
        elif isinstance(x, (list, tuple)):
            values = list(x)
        else:
            shapes = ", ".join(f"{t.name!r} {t.dtype} {tuple(t.shape)}" for t in self._inputs)
            raise InvalidArgument(f"run takes a numpy array (one input), a list of arrays in input "
                                  f"order or a {{name: array}} dict, got {type(x).__name__}; the "
                                  f"model's inputs: {shapes}")
        if len(values) != len(self._inputs):
            raise InvalidArgument(f"the model takes {len(self._inputs)} input(s), got {len(values)}")
        for t, view, v in zip(self._inputs, self._input_views, values):
            if not isinstance(v, np.ndarray):
                raise InvalidArgument(f"input {t.name!r} must be a numpy array, got {type(v).__name__}")
            if v.dtype != view.dtype:
                raise InvalidArgument(f"input {t.name!r} must be {t.dtype}, got {v.dtype}")
            if v.shape != view.shape:
                raise InvalidArgument(f"input {t.name!r} must have shape {view.shape}, got {v.shape}")
            np.copyto(view, v)

    def _read_outputs(self) -> List[np.ndarray]:
        return [view.copy() for view in self._output_views]

    # --- running ------------------------------------------------------------------
    def run(self, x: Union[np.ndarray, Sequence[np.ndarray], Mapping[str, np.ndarray]]
            ) -> Union[np.ndarray, List[np.ndarray]]:
        """Run once. ``x``: an array (one input), a list in input order, or {name: array}.
        Returns the output array (a list when the model has several). Variable tensors
        keep what this run left in them for the next (``reset_state`` to start over)."""
        views = self._input_views
        if type(x) is np.ndarray and len(views) == 1 and x.dtype == views[0].dtype \
                and x.shape == views[0].shape and x.flags.c_contiguous:
            # The common case: copy in, run and copy out in one call into C.
            outs = [np.empty(v.shape, v.dtype) for v in self._output_views]
            with self._lock:
                self._graph.run(self._pools, [x], outs)
        else:
            with self._lock:
                self._write_inputs(x)
                self._graph.invoke(self._pools)
                outs = self._read_outputs()
        return outs[0] if len(outs) == 1 else outs

    def profile(self, repeats: int = 20, x: Union[np.ndarray, None] = None) -> Profile:
        """Time every op, and the whole graph, over ``repeats`` runs (timed inside C).

        Returns a Profile: one OpProfile per op (``seconds``: its fastest runs, the 1st
        percentile of the repeats, which is the fastest one below 200 repeats;
        ``median_s``: its median), and the whole run's ``total_s`` (fastest runs) and
        ``total_median_s``; every figure is net of the timer's own cost (see
        arenaplan.runtime.profiling).
        """
        if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)) or repeats < 1:
            raise InvalidArgument(f"repeats must be a positive integer, got {repeats!r}")
        if repeats > 100000:
            raise InvalidArgument(f"repeats must be at most 100000, got {repeats}")
        with self._lock:
            if x is not None:
                self._write_inputs(x)
            rows = np.array(self._graph.profile(self._pools, int(repeats)))
        return self._profile_result(summarise(rows))

    # --- profiling several interpreters together (arenaplan.runtime.profiling) ------------------
    def _profile_handle(self) -> tuple:
        """(graph, pools): what ``_core.Graph.profile_together`` takes for this plan (the
        caller holds ``_lock``)."""
        return self._graph, self._pools

    def _profile_result(self, s: Summary) -> Profile:
        """The Profile of this plan's timing statistics."""
        ops = []
        for kernel, choice, fastest, median in zip(self.plan.kernels, self.plan.choices,
                                                    s.op_s, s.op_median_s):
            scratch = sum(b.size for b in self.plan.buffers if b.kind == "scratch" and b.op == kernel.index)
            ops.append(OpProfile(kernel.index, kernel.type, choice, float(fastest), scratch, float(median)))
        return Profile(ops, s.total_s, s.total_median_s, s.timer_s, s.repeats)

    def __repr__(self) -> str:
        return f"Interpreter({self.plan!r})"
