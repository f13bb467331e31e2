"""Pool assignment through its C API (csrc/include/arenaplan/pools.h).

Every plan a test makes is checked pool by pool: masks respected, nothing in a
const or zero-capacity pool, offsets multiples of the pool's alignment, and
ap_plan_verify on each pool's buffers (alignment raised to the pool's) within
that pool's capacity, its arena equal to the reported pool bytes.
"""
from __future__ import annotations

import itertools
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_planner import STRATEGIES, lower_bound, make_buffers, plan as plan_buffers

SIZE_MAX = 2**64 - 1
WORKSPACE, STACK, CONST = 0, 1, 2


class PoolPlan:
    def __init__(self, status, pool, offsets, pool_bytes, error, ffi):
        self.status = status
        self.pool = pool
        self.offsets = offsets
        self.pool_bytes = pool_bytes
        self.error = error
        self.message = ffi.string(error.message).decode()


def align_up(x, a):
    return (x + a - 1) // a * a


def check(ffi, lib, sizes, first, last, aligns, masks, pools, result):
    """Verify a successful plan pool by pool; returns bytes of buffers per pool."""
    n = len(sizes)
    held = [0] * len(pools)
    for p, (cap, palign, kind) in enumerate(pools):
        members = [i for i in range(n) if result.pool[i] == p]
        if cap == 0 or kind == CONST:
            assert not members, f"pool {p} (capacity {cap}, kind {kind}) holds {members}"
            assert result.pool_bytes[p] == 0
            continue
        eff = [max(aligns[i], palign) for i in members]
        for i in members:
            assert result.offsets[i] % palign == 0
        buffers = make_buffers(ffi, [sizes[i] for i in members], [first[i] for i in members],
                               [last[i] for i in members], eff)
        offs = ffi.new("size_t[]", [result.offsets[i] for i in members] or [0])
        arena = ffi.new("size_t *")
        error = ffi.new("ap_error *")
        status = lib.ap_plan_verify(buffers, len(members), offs, ffi.NULL, 0, cap, arena, error)
        assert status == lib.AP_OK, f"pool {p}: " + ffi.string(error.message).decode()
        assert arena[0] == result.pool_bytes[p] <= cap
        held[p] = sum(align_up(sizes[i], max(aligns[i], palign)) for i in members)
    for i in range(n):
        assert 0 <= result.pool[i] < len(pools)
        if masks is not None:
            assert masks[i] >> result.pool[i] & 1, f"buffer {i} in pool {result.pool[i]}"
    return held


def plan_pools(ffi, lib, sizes, first, last, pools, masks=None, alignment=1,
               strategy="auto", time_limit=0.2, seed=0, verify=True):
    """pools: list of (capacity, alignment, kind)."""
    n = len(sizes)
    aligns = list(alignment) if isinstance(alignment, (list, tuple)) else [alignment] * n
    buffers = make_buffers(ffi, sizes, first, last, aligns)
    options = ffi.new("ap_plan_options *")
    options.strategy = STRATEGIES[strategy]
    options.time_limit_s = time_limit
    options.seed = seed
    parr = ffi.new("ap_pool[]", max(len(pools), 1))
    for p, (cap, palign, kind) in enumerate(pools):
        parr[p].capacity = cap
        parr[p].alignment = palign
        parr[p].kind = kind
    allowed = ffi.new("uint32_t[]", list(masks) or [0]) if masks is not None else ffi.NULL
    pool_out = ffi.new("uint32_t[]", max(n, 1))
    offsets = ffi.new("size_t[]", max(n, 1))
    pool_bytes = ffi.new("size_t[]", max(len(pools), 1))
    error = ffi.new("ap_error *")
    status = lib.ap_plan_pools(options, buffers, allowed, n, parr, len(pools), pool_out, offsets,
                               pool_bytes, error)
    result = PoolPlan(status, list(pool_out)[:n], list(offsets)[:n],
                      list(pool_bytes)[:len(pools)], error, ffi)
    if status == lib.AP_OK and verify:
        result.held = check(ffi, lib, sizes, first, last, aligns, masks, pools, result)
    return result


def live_at(sizes, first, last, op, members, alignment=1):
    return sum(align_up(sizes[i], alignment) for i in members if first[i] <= op <= last[i])


# --------------------------------------------------------------------------- basics


def test_one_big_pool_is_plan_buffers(ffi, lib):
    rng = random.Random(5)
    for _ in range(20):
        n = rng.randint(1, 30)
        sizes = [rng.choice([0, 16, 48, 100, 256, 1000]) for _ in range(n)]
        first = [rng.randrange(12) for _ in range(n)]
        last = [f + rng.randrange(5) for f in first]
        cap = 1 << 20
        for strategy in ("greedy_size", "greedy_conflicts_best_fit", "auto"):
            r = plan_pools(ffi, lib, sizes, first, last, [(cap, 1, WORKSPACE)], alignment=16,
                           strategy=strategy)
            assert r.status == lib.AP_OK, r.message
            ref = plan_buffers(ffi, lib, sizes, first, last, alignment=16, strategy=strategy,
                               capacity=cap, time_limit=0.2)
            assert r.pool == [0] * n
            assert r.pool_bytes[0] == ref.arena
            if strategy != "auto":
                assert r.offsets == ref.offsets


def test_empty_and_zero_size(ffi, lib):
    r = plan_pools(ffi, lib, [], [], [], [(64, 1, WORKSPACE)])
    assert r.status == lib.AP_OK and r.pool_bytes == [0]
    # zero-size buffers occupy nothing, even in a full pool, and never move
    r = plan_pools(ffi, lib, [0, 64, 0], [0, 0, 0], [3, 3, 3],
                   [(64, 1, WORKSPACE), (1000, 1, WORKSPACE)])
    assert r.status == lib.AP_OK, r.message
    assert r.pool == [0, 0, 0] and r.pool_bytes == [64, 0]


def test_spill_fills_fast_pool_to_capacity(ffi, lib):
    # four buffers of 100 live together; the fast pool holds two
    sizes, first, last = [100] * 4, [0] * 4, [3] * 4
    r = plan_pools(ffi, lib, sizes, first, last, [(250, 1, WORKSPACE), (1000, 1, WORKSPACE)])
    assert r.status == lib.AP_OK, r.message
    assert r.pool.count(0) == 2 and r.pool.count(1) == 2
    assert r.pool_bytes == [200, 200]


def test_spill_keeps_most_bytes_in_fast_pool(ffi, lib):
    # Capacity 100. At op 1 A (60), B (50), C (50) are live: each removes as much
    # overload per byte of its own, so the largest (A) spills. At op 3 D (40) and E (70)
    # exceed it by 10: D removes 10 of its 40 bytes, E 10 of 70, so D spills. The fast
    # pool keeps B, C, E = 170 bytes, the best any subset achieves (brute force below);
    # filling largest first would keep E and A, 130.
    sizes = [60, 50, 50, 40, 70]
    first = [0, 1, 1, 2, 3]
    last = [1, 1, 2, 3, 3]
    pools = [(100, 1, WORKSPACE), (1000, 1, WORKSPACE)]
    r = plan_pools(ffi, lib, sizes, first, last, pools)
    assert r.status == lib.AP_OK, r.message
    best = 0
    for keep in itertools.product([0, 1], repeat=len(sizes)):
        members = [i for i in range(len(sizes)) if keep[i]]
        if all(live_at(sizes, first, last, t, members) <= 100 for t in range(4)):
            best = max(best, sum(sizes[i] for i in members))
    assert r.held[0] == best


def test_spill_matches_brute_force_on_small_problems(ffi, lib):
    """The fast pool keeps the most bytes possible by live bytes (on these small cases,
    where the greedy answer is the optimum; in general it is a heuristic)."""
    rng = random.Random(11)
    optimal = total = 0
    for _ in range(60):
        n = rng.randint(2, 9)
        sizes = [rng.choice([16, 32, 64, 128, 256]) for _ in range(n)]
        first = [rng.randrange(6) for _ in range(n)]
        last = [min(5, f + rng.randrange(4)) for f in first]
        peak = max(live_at(sizes, first, last, t, range(n)) for t in range(6))
        cap = max(16, peak * rng.randint(3, 9) // 10)
        r = plan_pools(ffi, lib, sizes, first, last, [(cap, 1, WORKSPACE), (1 << 16, 1, WORKSPACE)])
        assert r.status == lib.AP_OK, r.message
        best = 0
        for keep in itertools.product([0, 1], repeat=n):
            members = [i for i in range(n) if keep[i]]
            if all(live_at(sizes, first, last, t, members) <= cap for t in range(6)):
                best = max(best, sum(sizes[i] for i in members))
        assert r.held[0] <= best
        optimal += r.held[0] == best
        total += 1
    assert optimal >= 0.9 * total


def test_masks_are_honoured(ffi, lib):
    sizes, first, last = [100, 100, 100], [0, 0, 0], [2, 2, 2]
    pools = [(1000, 1, WORKSPACE), (1000, 1, WORKSPACE), (1000, 1, WORKSPACE)]
    masks = [0b010, 0b110, 0b100]
    r = plan_pools(ffi, lib, sizes, first, last, pools, masks=masks)
    assert r.status == lib.AP_OK, r.message
    assert r.pool == [1, 1, 2]


def test_stack_pool_of_zero_capacity_gets_nothing(ffi, lib):
    sizes, first, last = [8, 8, 8], [0, 1, 2], [0, 1, 2]
    pools = [(0, 1, STACK), (1000, 1, WORKSPACE)]
    r = plan_pools(ffi, lib, sizes, first, last, pools)
    assert r.status == lib.AP_OK, r.message
    assert r.pool == [1, 1, 1] and r.pool_bytes == [0, 8]
    # the same with masks naming both: the stack bit is ignored
    r = plan_pools(ffi, lib, sizes, first, last, pools, masks=[0b11] * 3)
    assert r.status == lib.AP_OK and r.pool == [1, 1, 1]
    # a small stack pool takes what fits, the rest spills
    pools = [(16, 8, STACK), (1000, 1, WORKSPACE)]
    r = plan_pools(ffi, lib, [8, 8, 8], [0, 0, 0], [1, 1, 1], pools)
    assert r.status == lib.AP_OK, r.message
    assert r.pool.count(0) == 2 and r.pool_bytes[0] == 16


def test_const_pool_holds_nothing(ffi, lib):
    pools = [(1 << 20, 1, CONST), (1000, 1, WORKSPACE)]
    r = plan_pools(ffi, lib, [10, 20], [0, 1], [1, 2], pools)
    assert r.status == lib.AP_OK, r.message
    assert r.pool == [1, 1] and r.pool_bytes[0] == 0


def test_pool_alignment(ffi, lib):
    # every offset in a 64-aligned pool is a multiple of 64, sizes round up to it
    pools = [(1000, 64, WORKSPACE)]
    r = plan_pools(ffi, lib, [1, 1, 1], [0, 0, 0], [0, 0, 0], pools, alignment=4)
    assert r.status == lib.AP_OK, r.message
    assert sorted(r.offsets) == [0, 64, 128] and r.pool_bytes == [192]
    # the buffer's own larger alignment wins over a smaller pool alignment
    r = plan_pools(ffi, lib, [1, 1], [0, 0], [0, 0], [(1000, 2, WORKSPACE)], alignment=[32, 1])
    assert r.status == lib.AP_OK and r.offsets[0] % 32 == 0


def test_large_op_numbers(ffi, lib):
    big = 2**31 - 2
    r = plan_pools(ffi, lib, [50, 50, 50], [0, big - 1, big], [big, big, big + 1],
                   [(100, 1, WORKSPACE), (100, 1, WORKSPACE)])
    assert r.status == lib.AP_OK, r.message
    assert r.pool.count(0) == 2


def test_deterministic(ffi, lib):
    rng = random.Random(3)
    n = 40
    sizes = [rng.randint(1, 500) for _ in range(n)]
    first = [rng.randrange(20) for _ in range(n)]
    last = [f + rng.randrange(6) for f in first]
    pools = [(300, 4, STACK), (1500, 16, WORKSPACE), (1 << 20, 16, WORKSPACE)]
    masks = [rng.choice([0b111, 0b110, 0b011, 0b101]) for _ in range(n)]
    a = plan_pools(ffi, lib, sizes, first, last, pools, masks=masks, strategy="greedy_size")
    b = plan_pools(ffi, lib, sizes, first, last, pools, masks=masks, strategy="greedy_size")
    assert a.status == lib.AP_OK, a.message
    assert (a.pool, a.offsets, a.pool_bytes) == (b.pool, b.offsets, b.pool_bytes)


def test_repair_keeps_a_buffer_up_when_the_next_pool_cannot_take_it(ffi, lib):
    # A may live in pools 0/1, C in 0/1/2, D only in 1; all 100 bytes, live together.
    # Pool 0 holds one of A, C. If A spills, pool 1 (A + D) overflows with nothing
    # movable: A must stay in pool 0 and C go down to pool 2.
    pools = [(100, 1, WORKSPACE), (100, 1, WORKSPACE), (1000, 1, WORKSPACE)]
    r = plan_pools(ffi, lib, [100, 100, 100], [0, 0, 0], [1, 1, 1], pools,
                   masks=[0b011, 0b111, 0b010])
    assert r.status == lib.AP_OK, r.message
    assert r.pool == [0, 2, 1]


# --------------------------------------------------------------------------- does not fit


def test_does_not_fit_names_pool_bytes_and_op(ffi, lib):
    # buffers 1 and 2 may only live in pool 0 and are live together at op 3
    sizes, first, last = [10, 100, 100], [0, 1, 3], [0, 3, 5]
    r = plan_pools(ffi, lib, sizes, first, last, [(150, 1, WORKSPACE), (1000, 1, WORKSPACE)],
                   masks=[0b11, 0b01, 0b01])
    assert r.status == lib.AP_ERR_DOES_NOT_FIT
    e = r.error
    assert e.subject == lib.AP_SUBJECT_POOL and e.index == 0
    assert (e.needed, e.available, e.op) == (200, 150, 3)
    assert "pool 0" in r.message and "200" in r.message and "150" in r.message
    assert "op 3" in r.message and "50 short" in r.message


def test_does_not_fit_in_the_pool_spilled_to(ffi, lib):
    pools = [(100, 1, WORKSPACE), (150, 1, STACK)]
    r = plan_pools(ffi, lib, [100, 100, 100], [2, 2, 4], [4, 6, 6], pools)
    assert r.status == lib.AP_ERR_DOES_NOT_FIT
    # the first attempt's failure is reported: A and B spilled, live together from op 2
    assert r.error.index == 1 and r.error.needed == 200 and r.error.available == 150
    assert r.error.op == 2
    assert "pool 1 (stack)" in r.message


def test_does_not_fit_by_fragmentation(ffi, lib):
    # live bytes 14 at op 2, but greedy first fit needs 16 (alignments 4 and 2)
    sizes, first, last, aligns = [4, 3, 6], [1, 2, 0], [2, 2, 2], [4, 2, 2]
    assert lower_bound(ffi, lib, sizes, first, last, aligns) == 14
    r = plan_pools(ffi, lib, sizes, first, last, [(14, 1, WORKSPACE)], alignment=aligns,
                   strategy="greedy_size")
    assert r.status == lib.AP_ERR_DOES_NOT_FIT
    assert (r.error.index, r.error.needed, r.error.available, r.error.op) == (0, 16, 14, 2)
    assert "pool 0" in r.message and "16" in r.message
    # with a second pool, one buffer spills and the rest fits the first
    r = plan_pools(ffi, lib, sizes, first, last, [(14, 1, WORKSPACE), (64, 1, WORKSPACE)],
                   alignment=aligns, strategy="greedy_size")
    assert r.status == lib.AP_OK, r.message
    assert r.pool.count(1) == 1 and r.pool_bytes[0] <= 14


# --------------------------------------------------------------------------- bad input


def _call(ffi, lib, *, options=True, buffers=True, allowed=None, count=1, pools=True,
          pool_count=1, pool_out=True, offsets=True, pool_bytes=True, pool_list=None,
          buffer_list=None):
    buffer_list = buffer_list or [(8, 1, 0, 0)]
    b = ffi.new("ap_buffer[]", len(buffer_list))
    for i, (s, a, f, l) in enumerate(buffer_list):
        b[i].size, b[i].alignment, b[i].first, b[i].last = s, a, f, l
    pool_list = pool_list or [(64, 1, WORKSPACE)] * max(pool_count, 1)
    parr = ffi.new("ap_pool[]", max(len(pool_list), 1))
    for p, (cap, al, kind) in enumerate(pool_list):
        parr[p].capacity, parr[p].alignment, parr[p].kind = cap, al, kind
    opts = ffi.new("ap_plan_options *")
    opts.strategy = 1
    error = ffi.new("ap_error *")
    status = lib.ap_plan_pools(
        opts if options else ffi.NULL, b if buffers else ffi.NULL,
        ffi.new("uint32_t[]", allowed) if allowed is not None else ffi.NULL, count,
        parr if pools else ffi.NULL, pool_count,
        ffi.new("uint32_t[]", 64) if pool_out else ffi.NULL,
        ffi.new("size_t[]", 64) if offsets else ffi.NULL,
        ffi.new("size_t[]", 64) if pool_bytes else ffi.NULL, error)
    return status, error, ffi.string(error.message).decode()


def test_bad_pool_count(ffi, lib):
    for n in (0, 33):
        status, error, message = _call(ffi, lib, pool_count=n, pool_list=[(64, 1, 0)] * 33)
        assert status == lib.AP_ERR_INVALID_ARGUMENT
        assert "pool_count" in message
    status, _, _ = _call(ffi, lib, pool_count=32, pool_list=[(64, 1, 0)] * 32)
    assert status == lib.AP_OK


def test_bad_pool_alignment_and_kind(ffi, lib):
    for align in (0, 3, 24):
        status, error, message = _call(ffi, lib, pool_count=2,
                                       pool_list=[(64, 1, 0), (64, align, 0)])
        assert status == lib.AP_ERR_INVALID_ARGUMENT
        assert error.subject == lib.AP_SUBJECT_POOL and error.index == 1
        assert "power of two" in message
    status, error, message = _call(ffi, lib, pool_list=[(64, 1, 7)])
    assert status == lib.AP_ERR_INVALID_ARGUMENT and "kind" in message


def test_masks_with_no_usable_pool(ffi, lib):
    pools = [(64, 1, WORKSPACE), (0, 1, STACK), (1 << 20, 1, CONST)]
    bufs = [(8, 1, 0, 0)] * 3
    for mask in (0, 0b010, 0b100, 0b110):
        status, error, message = _call(ffi, lib, pool_count=3, pool_list=pools, count=3,
                                       buffer_list=bufs, allowed=[1, 1, mask])
        assert status == lib.AP_ERR_INVALID_ARGUMENT, mask
        assert error.subject == lib.AP_SUBJECT_BUFFER and error.index == 2
        assert "buffer 2" in message and "no usable pool" in message
    # a bit naming a pool that does not exist
    status, error, message = _call(ffi, lib, pool_count=3, pool_list=pools, count=3,
                                   buffer_list=bufs, allowed=[1, 0b1001, 1])
    assert status == lib.AP_ERR_INVALID_ARGUMENT and error.index == 1
    assert "beyond" in message
    # NULL masks with only const / empty pools usable: no usable pool for buffer 0
    status, error, _ = _call(ffi, lib, pool_count=2, pool_list=[(0, 1, WORKSPACE),
                                                                (64, 1, CONST)])
    assert status == lib.AP_ERR_INVALID_ARGUMENT and error.index == 0


def test_null_pointers(ffi, lib):
    for kw in ("options", "buffers", "pools", "pool_out", "offsets", "pool_bytes"):
        status, _, message = _call(ffi, lib, **{kw: False})
        assert status == lib.AP_ERR_INVALID_ARGUMENT, kw
        assert "NULL" in message, kw
    # with no buffers only options, pools and pool_bytes_out are needed
    status, _, _ = _call(ffi, lib, count=0, buffers=False, pool_out=False, offsets=False)
    assert status == lib.AP_OK


def test_bad_buffers_and_strategy(ffi, lib):
    status, error, _ = _call(ffi, lib, buffer_list=[(8, 3, 0, 0)])
    assert status == lib.AP_ERR_INVALID_ARGUMENT and error.index == 0
    status, error, _ = _call(ffi, lib, buffer_list=[(8, 1, 2, 1)])
    assert status == lib.AP_ERR_INVALID_ARGUMENT
    b = make_buffers(ffi, [8], [0], [0])
    opts = ffi.new("ap_plan_options *")
    opts.strategy = 99
    p = ffi.new("ap_pool[]", 1)
    p[0].capacity, p[0].alignment = 64, 1
    error = ffi.new("ap_error *")
    status = lib.ap_plan_pools(opts, b, ffi.NULL, 1, p, 1, ffi.new("uint32_t[]", 1),
                               ffi.new("size_t[]", 1), ffi.new("size_t[]", 1), error)
    assert status == lib.AP_ERR_INVALID_ARGUMENT
    assert "strategy" in ffi.string(error.message).decode()


def test_overflow(ffi, lib):
    # fits size_t with its own alignment, not rounded up to the pool's
    status, error, message = _call(ffi, lib, buffer_list=[(SIZE_MAX - 3, 1, 0, 0)],
                                   pool_list=[(SIZE_MAX, 16, WORKSPACE)])
    assert status == lib.AP_ERR_OVERFLOW and error.index == 0 and "pool 0" in message
    # sum of sizes in one pool
    status, error, _ = _call(ffi, lib, count=2, buffer_list=[(SIZE_MAX // 2 + 8, 1, 0, 0)] * 2,
                             pool_list=[(SIZE_MAX, 1, WORKSPACE)])
    assert status == lib.AP_ERR_OVERFLOW and error.index == 1
    # huge but representable: plans or does not fit, never crashes
    status, _, _ = _call(ffi, lib, count=2, buffer_list=[(SIZE_MAX // 4, 1, 0, 0)] * 2,
                         pool_list=[(SIZE_MAX // 4, 1, WORKSPACE), (SIZE_MAX, 1, WORKSPACE)],
                         pool_count=2)
    assert status == lib.AP_OK


# --------------------------------------------------------------------------- properties


@st.composite
def problems(draw):
    n = draw(st.integers(0, 14))
    n_pools = draw(st.integers(1, 4))
    pools = []
    for _ in range(n_pools):
        kind = draw(st.sampled_from([WORKSPACE, WORKSPACE, STACK, CONST]))
        cap = draw(st.sampled_from([0, 16, 64, 128, 256, 512, 4096]))
        pools.append((cap, draw(st.sampled_from([1, 4, 16])), kind))
    sizes = [draw(st.sampled_from([0, 1, 7, 16, 40, 64, 100, 200])) for _ in range(n)]
    first = [draw(st.integers(0, 8)) for _ in range(n)]
    last = [f + draw(st.integers(0, 4)) for f in first]
    aligns = [draw(st.sampled_from([1, 2, 8])) for _ in range(n)]
    use_masks = draw(st.booleans())
    masks = [draw(st.integers(1, (1 << n_pools) - 1)) for _ in range(n)] if use_masks else None
    strategy = draw(st.sampled_from(["auto", "greedy_size", "greedy_conflicts_best_fit"]))
    return sizes, first, last, aligns, masks, pools, strategy


def usable(pool):
    return pool[0] > 0 and pool[2] != CONST


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_property_every_answer_verifies(ffi, lib, problem):
    sizes, first, last, aligns, masks, pools, strategy = problem
    n = len(sizes)
    every = [sum(1 << p for p, pool in enumerate(pools) if pool[2] != CONST)] * n
    eff_masks = masks if masks is not None else every
    r = plan_pools(ffi, lib, sizes, first, last, pools, masks=masks, alignment=aligns,
                   strategy=strategy, time_limit=0.05)
    no_usable = [i for i in range(n)
                 if not any(eff_masks[i] >> p & 1 and usable(pools[p]) for p in range(len(pools)))]
    if no_usable:
        assert r.status == lib.AP_ERR_INVALID_ARGUMENT
        assert r.error.index == no_usable[0]
        return
    if r.status == lib.AP_ERR_DOES_NOT_FIT:
        e = r.error
        assert e.subject == lib.AP_SUBJECT_POOL and 0 <= e.index < len(pools)
        assert usable(pools[e.index])
        assert e.available == pools[e.index][0] and e.needed > e.available
        assert 0 <= e.op <= max(last)
        assert f"pool {e.index}" in r.message
        # a trivially feasible case is never refused: everything may go to one pool
        # that holds all of it side by side
        for p, pool in enumerate(pools):
            if usable(pool) and all(m >> p & 1 for m in eff_masks) and \
                    p == max(q for q in range(len(pools)) if usable(pools[q])):
                total = sum(align_up(sizes[i], max(aligns[i], pool[1])) for i in range(n))
                assert total > pool[0], "refused though the last pool holds everything"
        return
    assert r.status == lib.AP_OK, r.message
    # where everything fits in pool 0 with room to spare, everything is in pool 0
    if usable(pools[0]) and all(m & 1 for m in eff_masks):
        total = sum(align_up(sizes[i], max(aligns[i], pools[0][1])) for i in range(n))
        if total <= pools[0][0]:
            assert r.pool == [0] * n


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_property_deterministic_with_greedy(ffi, lib, problem):
    sizes, first, last, aligns, masks, pools, _ = problem
    a = plan_pools(ffi, lib, sizes, first, last, pools, masks=masks, alignment=aligns,
                   strategy="greedy_size", verify=False)
    b = plan_pools(ffi, lib, sizes, first, last, pools, masks=masks, alignment=aligns,
                   strategy="greedy_size", verify=False)
    assert a.status == b.status
    if a.status == lib.AP_OK:
        assert (a.pool, a.offsets, a.pool_bytes) == (b.pool, b.offsets, b.pool_bytes)
    else:
        assert (a.error.index, a.error.needed, a.error.op, a.message) == \
               (b.error.index, b.error.needed, b.error.op, b.message)
