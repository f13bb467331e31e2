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

#: (aligned bytes, first op, last op, offline offset or None)
Request = Tuple[int, int, int, Optional[int]]


def greedy_offsets(requests: Sequence[Request]) -> Tuple[List[int], int]:
    """Offsets TFLM's greedy planner gives ``requests`` and the arena it needs.

    InvalidArgument if two offline-planned buffers live at the same time share a byte
    (naming both)."""
    if not requests:
        return [], 0
    sizes, first, last, fixed = zip(*requests)
    plan = plan_buffers(sizes, first, last, alignment=1, strategy="greedy_size", fixed=fixed,
                        progress=False)
    return [int(o) for o in plan.offsets], int(plan.arena_bytes)
