"""arenaplan._core.plan_pools: pool assignment through the CPython binding.

Every plan is checked pool by pool with _core.verify (alignment raised to the
pool's, within the pool's capacity) and its masks.
"""
from __future__ import annotations

import numpy as np
import pytest

from arenaplan import _core
from arenaplan.errors import InvalidArgument, PlanDoesNotFit, SizeOverflow
from conftest import MLPERF_TINY, model_path

STRATEGY = {name: i for i, name in enumerate(_core.strategy_names())}
WORKSPACE, STACK, CONST = 0, 1, 2


def call(sizes, first, last, pools, alignments=1, allowed=None, strategy="auto",
         time_limit_s=0.2, seed=0):
    n = len(sizes)
    aligns = np.broadcast_to(np.asarray(alignments, dtype=np.uint64), (n,)).copy()
    caps, pool_aligns, kinds = zip(*pools) if pools else ((), (), ())
    return _core.plan_pools(
        np.asarray(sizes, dtype=np.uint64), aligns, np.asarray(first, dtype=np.int32),
        np.asarray(last, dtype=np.int32),
        None if allowed is None else np.asarray(allowed, dtype=np.uint32),
        np.asarray(caps, dtype=np.uint64), np.asarray(pool_aligns, dtype=np.uint64),
        np.asarray(kinds, dtype=np.int32), STRATEGY[strategy], time_limit_s, seed)


def checked(sizes, first, last, pools, alignments=1, allowed=None, **kw):
    pool_index, offsets, pool_bytes = call(sizes, first, last, pools, alignments, allowed, **kw)
    n = len(sizes)
    pool_index = np.frombuffer(pool_index, dtype=np.uint32)
    offsets = np.frombuffer(offsets, dtype=np.uint64)
    assert len(pool_index) == len(offsets) == n and len(pool_bytes) == len(pools)
    aligns = np.broadcast_to(np.asarray(alignments, dtype=np.uint64), (n,))
    for p, (cap, palign, kind) in enumerate(pools):
        idx = np.nonzero(pool_index == p)[0]
        if cap == 0 or kind == CONST:
            assert len(idx) == 0 and pool_bytes[p] == 0
            continue
        eff = np.maximum(aligns[idx], np.uint64(palign)).astype(np.uint64)
        assert all(int(o) % palign == 0 for o in offsets[idx])
        arena = _core.verify(np.asarray(sizes, dtype=np.uint64)[idx], eff,
                             np.asarray(first, dtype=np.int32)[idx],
                             np.asarray(last, dtype=np.int32)[idx], offsets[idx].copy(), (), cap)
        assert arena == pool_bytes[p] <= cap
    if allowed is not None:
        for i in range(n):
            assert allowed[i] >> int(pool_index[i]) & 1
    return pool_index, offsets, pool_bytes


def test_spill_and_masks():
    pools = [(250, 1, WORKSPACE), (1000, 16, WORKSPACE)]
    pool_index, _, pool_bytes = checked([100] * 4, [0] * 4, [3] * 4, pools)
    assert sorted(pool_index.tolist()) == [0, 0, 1, 1]
    assert pool_bytes == (200, 224)
    # buffer 0 may live only in pool 1: it never takes the fast pool's room
    pool_index, _, _ = checked([100] * 4, [0] * 4, [3] * 4, pools, allowed=[2, 3, 3, 3])
    assert pool_index[0] == 1 and (pool_index == 0).sum() == 2


def test_empty():
    pool_index, offsets, pool_bytes = checked([], [], [], [(64, 1, WORKSPACE)])
    assert len(pool_index) == 0 and pool_bytes == (0,)


def test_does_not_fit_raises_with_pool_bytes_and_op():
    with pytest.raises(PlanDoesNotFit) as info:
        call([10, 100, 100], [0, 1, 3], [0, 3, 5], [(150, 1, WORKSPACE), (1000, 1, WORKSPACE)],
             allowed=[3, 1, 1])
    e = info.value
    assert (e.pool, e.needed, e.available, e.op, e.short_by) == ("0", 200, 150, 3, 50)
    assert "pool 0" in str(e)


def test_bad_arguments():
    with pytest.raises(InvalidArgument, match="pool_count"):
        call([8], [0], [0], [])
    with pytest.raises(InvalidArgument, match="pool_count"):
        call([8], [0], [0], [(64, 1, WORKSPACE)] * 33)
    with pytest.raises(InvalidArgument, match="power of two"):
        call([8], [0], [0], [(64, 3, WORKSPACE)])
    with pytest.raises(InvalidArgument, match="no usable pool"):
        call([8], [0], [0], [(64, 1, WORKSPACE), (0, 1, STACK)], allowed=[2])
    with pytest.raises(SizeOverflow):
        call([2**64 - 4], [0], [0], [(2**64 - 1, 16, WORKSPACE)])
    # dtypes and lengths are exact
    with pytest.raises(ValueError, match="allowed"):
        _core.plan_pools(np.ones(2, np.uint64), np.ones(2, np.uint64), np.zeros(2, np.int32),
                         np.zeros(2, np.int32), np.ones(2, np.int64), np.ones(1, np.uint64),
                         np.ones(1, np.uint64), np.zeros(1, np.int32), 0, 0.1, 0)
    with pytest.raises(ValueError, match="pool_kinds"):
        _core.plan_pools(np.ones(2, np.uint64), np.ones(2, np.uint64), np.zeros(2, np.int32),
                         np.zeros(2, np.int32), None, np.ones(2, np.uint64),
                         np.ones(2, np.uint64), np.zeros(1, np.int32), 0, 0.1, 0)
    with pytest.raises(ValueError, match="allowed"):
        _core.plan_pools(np.ones(2, np.uint64), np.ones(2, np.uint64), np.zeros(2, np.int32),
                         np.zeros(2, np.int32), np.ones(3, np.uint32), np.ones(1, np.uint64),
                         np.ones(1, np.uint64), np.zeros(1, np.int32), 0, 0.1, 0)


@pytest.mark.parametrize("name", MLPERF_TINY)
def test_mlperf_tiny_over_fast_and_slow_pools(name):
    import arenaplan as ap
    b = ap.lifetimes.activation_buffers(ap.load_tflite(model_path(name)), alignment=16)
    sizes, first, last = b.sizes.tolist(), b.first.tolist(), b.last.tolist()
    pools = [(16 * 1024, 16, WORKSPACE), (256 * 1024, 16, WORKSPACE)]
    pool_index, _, pool_bytes = checked(sizes, first, last, pools, alignments=16)
    lb = _core.lower_bound(b.sizes.astype(np.uint64), np.full(len(sizes), 16, np.uint64),
                           b.first.astype(np.int32), b.last.astype(np.int32))
    if lb <= 16 * 1024:
        assert pool_bytes[1] == 0  # everything fits the fast pool: nothing spills
    else:
        # the fast pool is used, not left empty
        assert pool_bytes[0] > 8 * 1024
