"""Fuzz the buffer planner: bytes become buffers (sizes up to 2**64 - 1, lifetimes,
alignments), a strategy and a capacity; every plan returned must verify and never be
smaller than its live-bytes bound, and every refusal must be an ArenaplanError.

    python tests/fuzz/fuzz_planner.py -runs=5000              # what CI runs
    python tests/fuzz/fuzz_planner.py -max_total_time=600     # a longer run
"""
from __future__ import annotations

import atheris

with atheris.instrument_imports():
    from common import EXPECTED, main
    import arenaplan as ap

STRATEGIES = list(ap.STRATEGIES)


def test_one(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    n = fdp.ConsumeIntInRange(0, 40)
    big = fdp.ConsumeBool()
    sizes = [fdp.ConsumeIntInRange(0, 2 ** 64 - 1 if big else 1 << 16) for _ in range(n)]
    first = [fdp.ConsumeIntInRange(0, 20) for _ in range(n)]
    last = [f + fdp.ConsumeIntInRange(0, 8) for f in first]
    alignment = 1 << fdp.ConsumeIntInRange(0, 7)
    strategy = STRATEGIES[fdp.ConsumeIntInRange(0, len(STRATEGIES) - 1)]
    capacity = fdp.ConsumeIntInRange(0, 1 << 20) if fdp.ConsumeBool() else None
    try:
        bp = ap.plan_buffers(sizes, first, last, alignment, strategy=strategy, time_limit_s=0.05,
                             step_limit=2000, capacity=capacity)
    except EXPECTED:
        return
    assert bp.verify()
    assert bp.lower_bound_bytes <= bp.arena_bytes
    if capacity is not None and capacity > 0:
        assert bp.arena_bytes <= capacity


if __name__ == "__main__":
    main(test_one, [bytes(range(64)), b"\xff" * 64, b"\x00" * 8])
