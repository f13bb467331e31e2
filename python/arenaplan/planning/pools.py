"""Placing a model's buffers over a target's pools (the C core's ap_plan_pools).

Which pools each buffer may use: every workspace pool with room; a stack pool only for
scratch buffers up to the target's ``stack_scratch_limit`` (stack frames are small and
short-lived); never a const pool; and only the ``io_pool`` for buffers that hold the
model's inputs or outputs when one is named. Pools are tried fastest first.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

import numpy as np

from .. import _core
from .buffers import STRATEGIES, BufferPlan, BufferProblem, _time_limit, exact_vector
from ..errors import InvalidArgument, PlanDoesNotFit
from ..units import count_bytes
from .targets import POOL_KINDS

__all__ = ["allowed_pools", "place_over_pools"]


def allowed_pools(ctx, problem: BufferProblem, scratch: List[Tuple[str, int, int]]) -> np.ndarray:
    """A bit mask per buffer: bit p set = the buffer may live in pool p. The rules read
    the target as given: a pool the state fills stays allowed, so that running out of it
    is a PlanDoesNotFit with figures."""
    target = ctx.target
    n_acts = len(ctx.acts)
    io = set(ctx.model.inputs) | set(ctx.model.outputs)
    masks = np.zeros(len(problem), dtype=np.uint32)
    for i in range(len(problem)):
        is_scratch = i >= n_acts
        holds_io = not is_scratch and any(t in io for t in ctx.acts.tensors[i])
        size = int(problem.sizes[i])
        for p, pool in enumerate(target.pools):
            if pool.kind == "const" or pool.capacity == 0:
                continue
            if pool.kind == "stack" and not (is_scratch and size <= target.stack_scratch_limit):
                continue
            if holds_io and ctx.io_pool is not None and pool.name != ctx.io_pool:
                continue
            masks[i] |= np.uint32(1 << p)
        if not masks[i]:
            what = scratch[i - n_acts][0] if is_scratch else ctx.acts.names[i]
            why = "; ".join(_why_not(pool, is_scratch, holds_io, size, target, ctx.io_pool)
                            for pool in target.pools)
            raise InvalidArgument(f"buffer {what!r} ({count_bytes(size)}) may live in no pool of target "
                                  f"{target.name!r}: {why}")
    return masks


def _why_not(pool, is_scratch: bool, holds_io: bool, size: int, target, io_pool) -> str:
    """Why one pool cannot hold a buffer, in the user's terms."""
    if pool.kind == "const":
        return f"{pool.name!r} is a const pool (flash: constants only)"
    if pool.capacity == 0:
        return f"{pool.name!r} has a capacity of 0"
    if pool.kind == "stack" and not is_scratch:
        return (f"{pool.name!r} is a stack pool, which takes only scratch buffers (of at most "
                f"{count_bytes(target.stack_scratch_limit)}), not tensors")
    if pool.kind == "stack":
        return (f"{pool.name!r} is a stack pool that takes scratch buffers of at most "
                f"{count_bytes(target.stack_scratch_limit)} (stack_scratch_limit)")
    if holds_io and io_pool is not None and pool.name != io_pool:
        return f"{pool.name!r} is not io_pool {io_pool!r}, where the model's inputs and outputs must live"
    return f"{pool.name!r} is not allowed"


def place_over_pools(ctx, problem: BufferProblem, scratch, strategy: str, time_limit_s, seed: int
                     ) -> Tuple[BufferPlan, List[str], Dict[str, int]]:
    """Pools and offsets for ``problem``; raises PlanDoesNotFit naming the pool, the bytes
    short and the op where that pool peaks."""
    if strategy not in STRATEGIES:
        raise InvalidArgument(f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
    target = ctx.pool_target   # the state, if any, already taken out of its pool
    masks = allowed_pools(ctx, problem, scratch)
    pools = target.pools
    # bytes the state takes out of the pool that holds it (every sharing model's, rounded)
    state_taken = (0 if ctx.state_pool is None else
                   ctx.target.pool(ctx.state_pool).capacity - target.pool(ctx.state_pool).capacity)
    if ctx.state_pool is not None and target.pool(ctx.state_pool).capacity == 0:
        full = np.uint32(1 << [p.name for p in pools].index(ctx.state_pool))
        stranded = np.flatnonzero(masks == full)
        masks &= ~full
        if len(stranded):
            i = int(stranded[0])
            what = scratch[i - len(ctx.acts)][0] if i >= len(ctx.acts) else ctx.acts.names[i]
            size = int(problem.sizes[i])
            raise PlanDoesNotFit(
                f"{ctx.model.name} does not fit target {target.name!r}: buffer {what!r} ({size:,} bytes) "
                f"may live only in pool {ctx.state_pool!r}, which has no room once the state's "
                f"{state_taken:,} bytes are in it ({size:,} bytes short)",
                pool=ctx.state_pool, needed=size, available=0)
    try:
        raw_pool, raw_offsets, used = _core.plan_pools(
            *problem.core_args(), masks,
            np.array([p.capacity for p in pools], dtype=np.uint64),
            np.array([p.alignment for p in pools], dtype=np.uint64),
            np.array([POOL_KINDS.index(p.kind) for p in pools], dtype=np.int32),
            STRATEGIES.index(strategy), _time_limit(time_limit_s), int(seed))
    except PlanDoesNotFit as exc:
        index = int(exc.pool) if exc.pool is not None and str(exc.pool).isdigit() else None
        name = pools[index].name if index is not None and index < len(pools) else exc.pool
        op = exc.op
        where = (f" at op {op} ({ctx.model.operators[op].type})"
                 if op is not None and 0 <= op < len(ctx.model.operators) else "")
        short = exc.short_by
        held = f" once the state's {state_taken:,} bytes are in it" if name == ctx.state_pool else ""
        raise PlanDoesNotFit(
            f"{ctx.model.name} does not fit target {target.name!r}: pool {name!r} would need "
            f"{exc.needed:,} bytes{where}, it has {exc.available:,}{held}"
            + (f" ({short:,} bytes short)" if short is not None else ""),
            pool=name, needed=exc.needed, available=exc.available, op=op) from None
    pool_index = np.frombuffer(raw_pool, dtype=np.uint32)
    offsets = exact_vector(np.frombuffer(raw_offsets, dtype=np.uint64))
    names = [pools[int(i)].name for i in pool_index]
    pool_sizes = {p.name: int(b) for p, b in zip(pools, used)}
    # The live-bytes bound of all buffers together: what one pool as large as needed would take.
    bound = int(_core.lower_bound(*problem.core_args()))
    result = BufferPlan(problem, offsets, int(sum(pool_sizes.values())), bound, strategy,
                        pools_at_bound(problem, pool_index, pools, used), 0.0, 0, strategy)
    return result, names, pool_sizes


def pools_at_bound(problem: BufferProblem, pool_index: np.ndarray, pools, used) -> bool:
    """True when every pool's bytes equal the live-bytes bound of the buffers placed in
    it (rounded up to the pool's alignment, as its bytes are): no placement of those
    buffers in that pool can be smaller, so the plan is optimal for its pool choice."""
    for p, pool in enumerate(pools):
        members = np.flatnonzero(pool_index == p)
        if len(members) == 0:
            continue
        sub = [np.ascontiguousarray(v[members]) for v in problem.core_args()]
        bound = int(_core.lower_bound(*sub))
        align = max(int(pool.alignment), 1)
        if int(used[p]) > -(-bound // align) * align:
            return False
    return True
