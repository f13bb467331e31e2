"""A model plan's buffers: the records of where each one lives, and the buffers that a
model and a choice of variants imply (activations, then each chosen variant's scratch)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import List, Optional, Tuple

from ..ops.lowering import Variant
from .buffers import BufferProblem, solve
from .lifetimes import ModelBuffers

__all__ = ["BufferRecord", "live_per_op", "scratch_buffers", "scratch_footprint", "tflm_greedy_bytes", "with_scratch",
           "unplaced_records"]


@dataclass(frozen=True)
class BufferRecord:
    """One placed buffer of a model plan."""

    name: str
    kind: str                 # "activation" or "scratch"
    op: Optional[int]         # the op that owns a scratch buffer; None for activations
    pool: Optional[str]       # None until placed
    offset: Optional[int]     # None until placed
    size: int
    first: int
    last: int
    tensors: Tuple[int, ...]  # tensors stored here (several when aliases were folded)
    alignment: int = 16

    def placed(self, pool: str, offset: int) -> "BufferRecord":
        """This buffer at ``offset`` in ``pool``."""
        return dataclasses.replace(self, pool=pool, offset=offset)


def live_per_op(op_count: int, buffers) -> List[int]:
    """Aligned bytes live at each op, from (size, alignment, first, last) rows (the C
    core's count, through BufferProblem.live_bytes)."""
    rows = list(buffers)
    if not rows:
        return [0] * op_count
    sizes, alignments, first, last = zip(*rows)
    problem = BufferProblem.build(list(sizes), list(first), list(last), list(alignments))
    return [int(v) for v in problem.live_bytes(op_count)]


def scratch_buffers(v: Variant, alignment: int) -> List[Tuple[int, int]]:
    """(bytes, alignment) of each buffer a variant's scratch requests become in a plan: the
    request's bytes, aligned to the larger of the request's alignment and the plan's."""
    return [(int(bytes_), max(alignment, int(align))) for bytes_, align in v.scratch]


def scratch_footprint(v: Variant, alignment: int) -> int:
    """Arena bytes a variant's scratch takes at its op (each buffer rounded to its alignment)."""
    return sum(-(-b // a) * a for b, a in scratch_buffers(v, alignment))


def with_scratch(acts: ModelBuffers, chosen: List[Optional[Variant]],
                  alignment: int) -> Tuple[BufferProblem, List[Tuple[str, int, int]]]:
    """Activations plus one buffer per scratch request of the chosen variants."""
    scratch: List[Tuple[str, int, int]] = []   # (name, op, alignment)
    sizes, first, last = list(acts.sizes), list(acts.first), list(acts.last)
    aligns = [alignment] * len(acts)
    for k, v in enumerate(chosen):
        if v is None:
            continue
        for i, (bytes_, a) in enumerate(scratch_buffers(v, alignment)):
            scratch.append((f"op{k}/{v.name}/scratch{i}", k, a))
            sizes.append(bytes_)
            first.append(k)
            last.append(k)
            aligns.append(a)
    return BufferProblem.build(sizes, first, last, aligns), scratch


def tflm_greedy_bytes(acts_unfolded: ModelBuffers, chosen: List[Optional[Variant]], alignment: int) -> int:
    """The arena TensorFlow Lite Micro's greedy planner needs for the same buffers: its
    placement (greedy_size) of the activations with no alias folded, plus the scratch."""
    unfolded, _ = with_scratch(acts_unfolded, chosen, alignment)
    return solve(unfolded, "greedy_size").arena_bytes


def unplaced_records(acts: ModelBuffers, scratch: List[Tuple[str, int, int]],
                     problem: BufferProblem) -> List[BufferRecord]:
    """The records of ``with_scratch``'s buffers, in its order, not yet placed."""
    records = [BufferRecord(name=acts.names[i], kind="activation", op=None, pool=None, offset=None,
                            size=int(acts.sizes[i]), first=int(acts.first[i]), last=int(acts.last[i]),
                            tensors=acts.tensors[i], alignment=int(problem.alignments[i]))
               for i in range(len(acts))]
    for j, (name, k, a) in enumerate(scratch):
        i = len(acts) + j
        records.append(BufferRecord(name=name, kind="scratch", op=k, pool=None, offset=None,
                                    size=int(problem.sizes[i]), first=k, last=k, tensors=(), alignment=a))
    return records
