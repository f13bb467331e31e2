"""TFLM's GreedyMemoryPlanner, re-stated: the order it places buffers in and its first fit.

Offline-planned buffers are taken first at their offsets; the online ones, which it lists
from the last to the first, are bubble-sorted by size (largest first, a stable sort, so
among equal sizes the later buffer comes first) and each goes at the lowest offset where
it fits between the buffers already placed that are live at the same time.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

__all__ = ["Request", "greedy_offsets"]

#: (aligned bytes, first op, last op, offline offset or None)
Request = Tuple[int, int, int, Optional[int]]


def greedy_offsets(requests: Sequence[Request]) -> Tuple[List[int], int]:
    """Offsets TFLM's greedy planner gives ``requests`` and the arena it needs."""
    n = len(requests)
    offline = [i for i in range(n) if requests[i][3] is not None]
    online = [i for i in reversed(range(n)) if requests[i][3] is None]
    online.sort(key=lambda i: -requests[i][0])
    placed: List[Tuple[int, int]] = []        # (offset, buffer), by offset
    offsets = [0] * n
    for rank, b in enumerate(offline + online):
        size, first, last, fixed = requests[b]
        if fixed is not None:
            at = fixed
        else:
            at = 0
            if rank > 0:
                for offset, other in placed:
                    osize, ofirst, olast, _ = requests[other]
                    if ofirst > last or olast < first:
                        continue
                    if offset - at >= size:
                        break
                    at = max(at, offset + osize)
        offsets[b] = at
        pos = next((k for k, (o, _) in enumerate(placed) if o > at), len(placed))
        placed.insert(pos, (at, b))
    end = max((offsets[i] + requests[i][0] for i in range(n)), default=0)
    return offsets, end
