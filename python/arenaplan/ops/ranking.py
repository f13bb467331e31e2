"""The variant expected to be fastest when no latency source is given: a static ranking."""
from __future__ import annotations

from typing import List, Optional

from .lowering import Variant

__all__ = ["FAST_SCRATCH_BYTES", "SCRATCH_BUYS_NOTHING", "fastest_variant"]

#: Scratch up to which a variant's buffer stays cache-resident on the hosts measured so far.
FAST_SCRATCH_BYTES = 16 * 1024


#: Ops whose scratch buys no time: SVDF's ``direct`` runs within 5 % of ``fused`` on every
#: shape of benchmarks/bench_lstm.py, AVX2 and portable, and executes the same instructions
#: on a Cortex-M within 0.2 % (calibrate_cortex_m.py).
SCRATCH_BUYS_NOTHING = frozenset({"SVDF"})


def fastest_variant(variants: List[Variant], op_type: Optional[str] = None) -> Variant:
    """The variant expected to be fastest without a latency measurement.

    The least scratch for ops in ``SCRATCH_BUYS_NOTHING``. Otherwise x86-avx2's ``lanes``
    where it is offered (its bounds are the layers whose weights are small enough that
    widening them once a run pays: 1.8-2.5x the row tiles on ResNet-8's 3x3 and VWW's first
    convs, measured on AVX2); else a GEMM on the input
    itself (``gemm_1x1``) where it applies; else, among the variants that use scratch,
    the one with the most scratch that still fits ``FAST_SCRATCH_BYTES`` (measured on x86
    AVX2: a whole-image im2col is never faster than a 48-row block, and a depthwise row
    buffer that leaves L1 slows down), else the smallest of them; ``direct`` when no
    other variant applies.
    """
    if op_type in SCRATCH_BUYS_NOTHING:
        return min(variants, key=lambda v: v.scratch_bytes)
    names = [v.name for v in variants]
    if "lanes" in names:
        return variants[names.index("lanes")]
    if "gemm_1x1" in names:
        return variants[names.index("gemm_1x1")]
    buffered = [v for v in variants if v.scratch]
    if not buffered:
        return variants[0]
    fitting = [v for v in buffered if v.scratch_bytes <= FAST_SCRATCH_BYTES]
    return fitting[-1] if fitting else buffered[0]
