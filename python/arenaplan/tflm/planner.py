"""TFLM's GreedyMemoryPlanner on TFLM's requests, by the C core's greedy_size.

The C strategy ``greedy_size`` is TFLM's planner (largest first, ties: the later buffer
first; first fit among the buffers live at the same time). Offline-planned buffers are
its pre-placed ones (``plan_buffers(..., fixed=...)``): they keep their offsets and come
first, in index order, as in TFLM. Requests' sizes are already TFLM's aligned bytes, and
offline offsets may be any byte, so the planner places them at alignment 1.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from ..planning.buffers import plan_buffers

__all__ = ["Request", "greedy_offsets"]

#: (aligned bytes, first op, last op, offline offset or None); TFLM's lifetimes as they are:
#: -1 for both (no op creates or uses the tensor), or a last before the first (created, never
#: used)
Request = Tuple[int, int, int, Optional[int]]


def greedy_offsets(requests: Sequence[Request]) -> Tuple[List[int], int]:
    """Offsets TFLM's greedy planner gives ``requests`` and the arena it needs.

    InvalidArgument if two offline-planned buffers live at the same time share a byte
    (naming both)."""
    if not requests:
        return [], 0
    sizes, first, last, fixed = zip(*requests)
    first, last = _planner_times(first, last)
    plan = plan_buffers(sizes, first, last, alignment=1, strategy="greedy_size", fixed=fixed,
                        progress=False)
    return [int(o) for o in plan.offsets], int(plan.arena_bytes)


def _planner_times(first: Sequence[int], last: Sequence[int]) -> Tuple[List[int], List[int]]:
    """TFLM's lifetimes as the C planner's (first <= last, from 0), overlapping as TFLM's
    DoesEntryOverlapInTime has them: a buffer no op touches (-1, -1) overlaps only its kind, so
    all of them share time 0 before the ops' (shifted by one); a buffer created and never used
    (last < first) overlaps nothing, so each gets a time of its own after them all."""
    end = max([t + 1 for t in last] + [1])
    f2, l2 = [], []
    for f, t in zip(first, last):
        if t < f:
            end += 1
            f, t = end, end
        else:
            f, t = f + 1, t + 1
        f2.append(f)
        l2.append(t)
    return f2, l2
