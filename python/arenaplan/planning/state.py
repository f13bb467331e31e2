"""Persistent state: where a model's variable tensors live between runs.

Variable tensors (SVDF's activation state, an LSTM's output and cell state) are read and
updated in place by their ops and keep their values from one run to the next, so they
cannot share bytes with anything the planner places. They get a pool of their own, the
state pool, laid out here: every variable tensor at an aligned offset, one after the
other (all of them live for the whole program, so nothing can overlap). The
Interpreter owns that pool as a NumPy buffer, a C export as a static array.

On a target the state pool's bytes come out of one of its pools (``choose_state_pool``):
the one the caller names, else the fastest workspace pool that can hold them. That pool
offers the planner its capacity less the state (``reserve_bytes``), so a plan that fits
the target fits it with its state; the export puts the state array in that pool's
linker section.

TensorFlow Lite's semantics: every variable tensor starts at zero (an int8 one at its
zero point, ``ResetVariableTensor``) and persists across invocations until reset. A
resource variable starts at the value its CALL_ONCE initialisation assigns (the tensor's
``initial``, which the importer folds): the state pool holds it from the start, as TFLite
has it after the first invoke's CALL_ONCE, and ``reset_state`` brings it back.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..errors import InvalidArgument, InvalidPlan, PlanDoesNotFit
from ..model.model import DTYPE_SIZES, Model

__all__ = ["STATE_POOL", "StateBuffer", "state_layout", "state_extent", "verify_state", "fill_state",
           "choose_state_pool", "reserve_bytes"]

#: The state pool's name in executor tables. Not an identifier, so no target pool has it.
STATE_POOL = "<state>"


@dataclass(frozen=True)
class StateBuffer:
    """One variable tensor's place in the state pool."""

    name: str
    tensor: int
    offset: int
    size: int        # bytes of the tensor
    alignment: int
    fill: int        # the byte value every byte starts at (and returns to on reset)
    #: the bytes it starts at instead, when the model gives a starting value (a resource
    #: variable's CALL_ONCE initialisation); None: every byte is ``fill``
    initial: Optional[bytes] = None

    def start(self) -> bytes:
        """The bytes the buffer starts at and returns to on reset."""
        return self.initial if self.initial is not None else bytes([self.fill]) * self.size


def reset_byte(model: Model, t: int) -> int:
    """The byte a variable tensor is reset to: its zero point for int8, else 0 (TFLite)."""
    tensor = model.tensors[t]
    q = tensor.quantization
    if tensor.dtype == "int8" and q is not None and q.zero_point:
        return int(q.zero_point[0]) & 0xFF
    return 0


def initial_bytes(model: Model, t: int) -> Optional[bytes]:
    """The bytes of variable tensor ``t``'s starting value, or None (it starts at its fill)."""
    initial = model.tensors[t].initial
    return None if initial is None else np.ascontiguousarray(initial).tobytes()


def state_layout(model: Model, alignment: int = 16) -> Tuple[List[StateBuffer], int]:
    """The state pool of ``model``: its variable tensors in index order, each aligned to
    ``alignment`` (at least its element size), and the pool's bytes (a multiple of the
    alignment; 0 without variable tensors)."""
    buffers: List[StateBuffer] = []
    offset = 0
    for t in model.variable_tensors():
        tensor = model.tensors[t]
        align = max(int(alignment), DTYPE_SIZES.get(tensor.dtype, 1))
        offset = -(-offset // align) * align
        buffers.append(StateBuffer(tensor.name, t, offset, tensor.nbytes, align, reset_byte(model, t),
                                   initial_bytes(model, t)))
        offset += tensor.nbytes
    return buffers, state_extent(buffers)


def state_extent(buffers: Sequence[StateBuffer]) -> int:
    """Bytes of a state pool holding ``buffers`` (each rounded up to its alignment)."""
    return max((b.offset + -(-b.size // b.alignment) * b.alignment for b in buffers), default=0)


def verify_state(model: Model, buffers: Sequence[StateBuffer], state_bytes: int) -> None:
    """Check a state pool independently: every variable tensor exactly once, with its size,
    reset byte and an aligned offset, no two sharing a byte, all within ``state_bytes``.
    Raises InvalidPlan."""
    want = model.variable_tensors()
    have = [b.tensor for b in buffers]
    if sorted(have) != sorted(want) or len(set(have)) != len(have):
        raise InvalidPlan(f"the state pool holds tensors {sorted(have)}; the model's variable tensors "
                          f"are {sorted(want)}")
    spans = []
    for b in buffers:
        tensor = model.tensors[b.tensor]
        if b.size != tensor.nbytes:
            raise InvalidPlan(f"state buffer {b.name!r}: {b.size} bytes, tensor {b.tensor} has {tensor.nbytes}")
        if b.fill != reset_byte(model, b.tensor):
            raise InvalidPlan(f"state buffer {b.name!r} starts at byte {b.fill}; tensor {b.tensor} "
                              f"resets to {reset_byte(model, b.tensor)}")
        if b.initial != initial_bytes(model, b.tensor):
            raise InvalidPlan(f"state buffer {b.name!r} does not start at tensor {b.tensor}'s initial value")
        if b.alignment < 1 or b.alignment & (b.alignment - 1) or b.offset < 0 or b.offset % b.alignment:
            raise InvalidPlan(f"state buffer {b.name!r} at offset {b.offset} is not aligned to {b.alignment}")
        if b.offset + b.size > state_bytes:
            raise InvalidPlan(f"state buffer {b.name!r} [{b.offset}, {b.offset + b.size}) lies outside the "
                              f"state pool of {state_bytes:,} bytes")
        spans.append((b.offset, b.offset + b.size, b.name))
    spans.sort()
    for (_, end, first), (start, _, second) in zip(spans, spans[1:]):
        if start < end:
            raise InvalidPlan(f"state buffers {first!r} and {second!r} share bytes")


def fill_state(pool, buffers: Sequence[StateBuffer]) -> None:
    """Reset a state pool (a NumPy uint8 array) to its buffers' starting bytes."""
    pool[:] = 0
    for b in buffers:
        if b.initial is None:
            pool[b.offset:b.offset + b.size] = b.fill
        else:
            pool[b.offset:b.offset + b.size] = np.frombuffer(b.initial, dtype=np.uint8)


def reserve_bytes(state_bytes: int, pool) -> int:
    """Bytes a state pool of ``state_bytes`` takes from target pool ``pool``: rounded up to
    the pool's alignment, so what the planner places after it stays aligned."""
    align = int(pool.alignment)
    return -(-int(state_bytes) // align) * align


def choose_state_pool(target, state_bytes: int, requested: Optional[str] = None,
                      model_name: str = "the model") -> Optional[str]:
    """The target pool that holds the state: ``requested`` if given (a workspace pool with
    room), else the fastest workspace pool that can hold it. None without state.
    Stack and const pools never hold state: a stack frame ends with the invoke, flash is
    read-only. Raises InvalidArgument for a pool that cannot hold state at all and
    PlanDoesNotFit, naming the bytes short, when the state is larger than the pool."""
    if state_bytes <= 0:
        if requested is not None:
            target.pool(requested)   # still a pool of the target, or a clear error
        return None
    if requested is not None:
        pool = target.pool(requested)
        if pool.kind != "workspace":
            raise InvalidArgument(f"state_pool {requested!r} is a {pool.kind} pool; the state of "
                                  f"{model_name} persists between invokes, so it needs a workspace pool")
        need = reserve_bytes(state_bytes, pool)
        if need > pool.capacity:
            raise PlanDoesNotFit(f"the state of {model_name} ({state_bytes:,} bytes) does not fit pool "
                                 f"{pool.name!r} of {pool.capacity:,} bytes ({need - pool.capacity:,} bytes "
                                 f"short)", pool=pool.name, needed=need, available=pool.capacity)
        return pool.name
    workspace = [p for p in target.pools if p.kind == "workspace"]
    for pool in workspace:
        if reserve_bytes(state_bytes, pool) <= pool.capacity:
            return pool.name
    largest = max(workspace, key=lambda p: p.capacity, default=None)
    if largest is None:
        raise PlanDoesNotFit(f"target {target.name!r} has no workspace pool for the state of "
                             f"{model_name} ({state_bytes:,} bytes)", pool=None, needed=state_bytes,
                             available=0)
    raise PlanDoesNotFit(f"the state of {model_name} ({state_bytes:,} bytes) fits no pool of target "
                         f"{target.name!r}: the largest workspace pool, {largest.name!r}, has "
                         f"{largest.capacity:,} bytes ({reserve_bytes(state_bytes, largest) - largest.capacity:,} "
                         f"bytes short)", pool=largest.name, needed=reserve_bytes(state_bytes, largest),
                         available=largest.capacity)
