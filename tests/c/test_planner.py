"""The buffer planner through its C API (csrc/include/arenaplan/planner.h).

Every plan any test makes is checked with ap_plan_verify. Reference points:
TensorFlow Lite Micro's GreedyMemoryPlanner (ported literally below, and the
expected offsets of its own unit tests), and a brute force for the exact search.
"""
from __future__ import annotations

import itertools
import random
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.rectangles import rectangle_cut

SIZE_MAX = 2**64 - 1

STRATEGIES = {
    "auto": 0,
    "greedy_size": 1,
    "greedy_size_best_fit": 2,
    "greedy_conflicts": 3,
    "greedy_conflicts_best_fit": 4,
    "anneal": 5,
    "exact": 6,
    "lns": 7,
    "bands": 8,
    "sweep": 9,
}

# --------------------------------------------------------------------------- helpers


def make_buffers(ffi, sizes, first, last, alignment=1):
    n = len(sizes)
    aligns = alignment if isinstance(alignment, (list, tuple)) else [alignment] * n
    arr = ffi.new("ap_buffer[]", max(n, 1))
    for i in range(n):
        arr[i].size = sizes[i]
        arr[i].alignment = aligns[i]
        arr[i].first = first[i]
        arr[i].last = last[i]
    return arr


class Plan:
    def __init__(self, status, offsets, stats, error, ffi, lib):
        self.status = status
        self.offsets = offsets
        self.arena = stats.arena_bytes
        self.lower_bound = stats.lower_bound_bytes
        self.optimal = stats.optimal
        name = lib.ap_strategy_str(stats.strategy)
        self.strategy = ffi.string(name).decode() if name != ffi.NULL else None
        self.steps = stats.search_steps
        self.elapsed = stats.elapsed_s
        self.error = error
        self.message = ffi.string(error.message).decode()


def plan(ffi, lib, sizes, first, last, alignment=1, strategy="greedy_size", time_limit=0.05,
         capacity=0, seed=0, verify=True, step_limit=0, fixed=None):
    """``fixed``: None, or per buffer its pre-placed offset or None (placed by the planner)."""
    n = len(sizes)
    buffers = make_buffers(ffi, sizes, first, last, alignment)
    options = ffi.new("ap_plan_options *")
    options.strategy = STRATEGIES[strategy]
    options.time_limit_s = time_limit
    options.capacity = capacity
    options.seed = seed
    options.step_limit = step_limit
    if fixed is not None:
        pinned = ffi.new("size_t[]", [SIZE_MAX if v is None else v for v in fixed] or [0])
        options.fixed_offsets = pinned
    offsets = ffi.new("size_t[]", max(n, 1))
    stats = ffi.new("ap_plan_stats *")
    error = ffi.new("ap_error *")
    status = lib.ap_plan_buffers(options, buffers, n, offsets, stats, error)
    result = Plan(status, list(offsets)[:n], stats, error, ffi, lib)
    if status == lib.AP_OK and verify:
        arena = ffi.new("size_t *")
        v_error = ffi.new("ap_error *")
        v = lib.ap_plan_verify(buffers, n, offsets, ffi.NULL, 0, 0, arena, v_error)
        assert v == lib.AP_OK, ffi.string(v_error.message).decode()
        assert arena[0] == result.arena
    return result


def verify(ffi, lib, sizes, first, last, offsets, alignment=1, overlaps=(), capacity=0):
    n = len(sizes)
    buffers = make_buffers(ffi, sizes, first, last, alignment)
    offs = ffi.new("size_t[]", list(offsets) or [0])
    ov = ffi.new("ap_overlap[]", max(len(overlaps), 1))
    for k, (inp, out, kind, lead) in enumerate(overlaps):
        ov[k].input = inp
        ov[k].output = out
        ov[k].kind = kind
        ov[k].min_lead = lead
    arena = ffi.new("size_t *")
    error = ffi.new("ap_error *")
    status = lib.ap_plan_verify(buffers, n, offs, ov if overlaps else ffi.NULL, len(overlaps),
                                capacity, arena, error)
    return status, arena[0], error, ffi.string(error.message).decode()


def lower_bound(ffi, lib, sizes, first, last, alignment=1):
    buffers = make_buffers(ffi, sizes, first, last, alignment)
    out = ffi.new("size_t *")
    error = ffi.new("ap_error *")
    status = lib.ap_buffers_lower_bound(buffers, len(sizes), out, error)
    assert status == lib.AP_OK, ffi.string(error.message).decode()
    return out[0]


def align_up(x, a):
    return (x + a - 1) // a * a


def tflm_greedy(sizes, first, last, offline=None):
    """TFLite Micro's GreedyMemoryPlanner::CalculateOffsetsIfNeeded, ported literally:
    sizes are already aligned, as TFLM's allocator does; ``offline`` (None, or per buffer
    an offset or None) gives the offline-planned buffers' offsets."""
    n = len(sizes)
    if n == 0:
        return []
    offline = offline or [None] * n
    sorted_sizes = [0] * n
    ids = [0] * n
    offsets = [-1] * n
    head, tail = 0, n
    for i in range(n):  # offline-planned from the head, in order; the others from the tail
        if offline[i] is None:
            tail -= 1
            sorted_sizes[tail], ids[tail] = sizes[i], i
        else:
            sorted_sizes[head], ids[head] = sizes[i], i
            offsets[i] = offline[i]
            head += 1
    swapped = True
    while swapped:  # ReverseSortInPlace of the online part: stable bubble sort, descending
        swapped = False
        for i in range(head + 1, n):
            if sorted_sizes[i - 1] < sorted_sizes[i]:
                sorted_sizes[i - 1], sorted_sizes[i] = sorted_sizes[i], sorted_sizes[i - 1]
                ids[i - 1], ids[i] = ids[i], ids[i - 1]
                swapped = True
    if offline[ids[0]] is None:
        offsets[ids[0]] = 0
    placed = [(offsets[ids[0]], ids[0])]  # (offset, id), kept in offset order

    def overlaps(j, f, l):
        return not (first[j] > l or f > last[j])

    for k in range(1, n):
        b = ids[k]
        wanted, f, l = sizes[b], first[b], last[b]
        candidate = 0
        if offline[b] is not None:
            candidate = offline[b]
        else:
            prior = -1
            while True:
                nxt = prior + 1
                while nxt < len(placed) and not overlaps(placed[nxt][1], f, l):
                    nxt += 1
                if prior >= 0:
                    end = placed[prior][0] + sizes[placed[prior][1]]
                    candidate = max(candidate, end)
                if nxt >= len(placed):
                    break
                if placed[nxt][0] - candidate >= wanted:
                    break
                prior = nxt
        offsets[b] = candidate
        pos = 0
        if placed[0][0] > candidate:
            pos = 0
        else:
            pos = 1
            while pos < len(placed) and placed[pos][0] <= candidate:
                pos += 1
        placed.insert(pos, (candidate, b))
    return offsets


def brute_force_min_arena(sizes, first, last, aligns):
    """Exhaustive minimum arena.

    Some optimal plan has no buffer that could slide down (take one minimising
    the sum of offsets), so each offset is 0 or, rounded up to the buffer's
    alignment, the end of a conflicting buffer below it. Sorted by offset, that
    plan is built by placing buffers one by one, each at an offset >= the last
    one, chosen among 0 and the rounded-up ends of the conflicting buffers
    already placed. This search tries every such order and every such offset.
    """
    n = len(sizes)
    asz = [align_up(s, a) for s, a in zip(sizes, aligns)]
    items = [i for i in range(n) if asz[i] > 0]
    conflict = [[first[i] <= last[j] and first[j] <= last[i] for j in range(n)] for i in range(n)]
    best = [sum(asz)]
    offsets = {}

    def fits(i, o):
        return all(not conflict[i][j] or o + asz[i] <= offsets[j] or offsets[j] + asz[j] <= o
                   for j in offsets)

    def rec(remaining, last_offset, arena):
        if arena >= best[0]:
            return
        if not remaining:
            best[0] = arena
            return
        for i in remaining:
            cands = {0} | {align_up(offsets[j] + asz[j], aligns[i]) for j in offsets if conflict[i][j]}
            for o in sorted(cands):
                if o < last_offset or not fits(i, o):
                    continue
                offsets[i] = o
                rec([r for r in remaining if r != i], o, max(arena, o + asz[i]))
                del offsets[i]

    rec(items, 0, 0)
    return best[0] if items else 0


def grid_min_arena(sizes, first, last, aligns, limit):
    """Every aligned offset below `limit` for every buffer: the slow, obviously
    exhaustive check of brute_force_min_arena on tiny problems."""
    n = len(sizes)
    asz = [align_up(s, a) for s, a in zip(sizes, aligns)]
    best = limit
    ranges = [range(0, max(1, limit - asz[i] + 1), aligns[i]) if asz[i] else [0] for i in range(n)]
    for offs in itertools.product(*ranges):
        arena = max([o + s for o, s in zip(offs, asz)] or [0])
        if arena >= best:
            continue
        ok = True
        for i in range(n):
            for j in range(i + 1, n):
                if (asz[i] and asz[j] and first[i] <= last[j] and first[j] <= last[i]
                        and offs[i] < offs[j] + asz[j] and offs[j] < offs[i] + asz[i]):
                    ok = False
                    break
            if not ok:
                break
        if ok:
            best = arena
    return best


@st.composite
def problems(draw, max_n=24, max_size=4096, max_op=12, mixed_alignment=True):
    n = draw(st.integers(0, max_n))
    sizes, first, last, aligns = [], [], [], []
    uniform = draw(st.sampled_from([1, 4, 16, 64]))
    for _ in range(n):
        f = draw(st.integers(0, max_op))
        sizes.append(draw(st.integers(0, max_size)))
        first.append(f)
        last.append(f + draw(st.integers(0, 4)))
        aligns.append(draw(st.sampled_from([1, 2, 8, 16, 128])) if mixed_alignment else uniform)
    return sizes, first, last, aligns


PROPERTY = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

# --------------------------------------------------------------------------- names


def test_strategy_names_are_stable(ffi, lib):
    for name, value in STRATEGIES.items():
        assert ffi.string(lib.ap_strategy_str(value)).decode() == name
    assert lib.ap_strategy_str(99) == ffi.NULL
    assert lib.AP_STRATEGY_COUNT == len(STRATEGIES)


# --------------------------------------------------------------------------- TFLM


def test_tflm_three_equal_buffers_land_in_reverse(ffi, lib):
    p = plan(ffi, lib, [100, 100, 100], [0, 0, 0], [0, 0, 0])
    assert p.status == lib.AP_OK
    assert p.offsets == [200, 100, 0]
    assert p.arena == 300 and p.optimal == 1


def test_tflm_greedy_basics(ffi, lib):
    # TestGreedyBasics: disjoint lifetimes share offset 0
    p = plan(ffi, lib, [10, 20], [0, 2], [1, 3])
    assert p.offsets == [0, 0] and p.arena == 20


def test_tflm_greedy_medium(ffi, lib):
    # TestGreedyMedium: expected offsets 50, 70, 40, 0, 0 and 90 bytes
    p = plan(ffi, lib, [10, 20, 30, 40, 50], [0, 1, 2, 3, 0], [1, 2, 3, 4, 1])
    assert p.offsets == [50, 70, 40, 0, 0]
    assert p.arena == 90
    assert p.lower_bound == 80 and p.optimal == 0


def test_tflm_overlap_case(ffi, lib):
    # TestOverlapCase: 120 bytes
    p = plan(ffi, lib, [100, 50, 20], [0, 2, 1], [1, 3, 2])
    assert p.arena == 120
    assert p.offsets == [0, 0, 100]


def test_tflm_person_detection(ffi, lib):
    # TestPersonDetectionModel: buffer sizes and lifetimes from the 250 KB MobileNet
    rows = [(9216, 0, 29), (3, 28, 29), (256, 27, 28), (2304, 26, 27), (2304, 25, 26),
            (2304, 24, 25), (1152, 23, 24), (4608, 22, 23), (4608, 21, 22), (4608, 20, 21),
            (4608, 19, 20), (4608, 18, 19), (4608, 17, 18), (4608, 16, 17), (4608, 15, 16),
            (4608, 14, 15), (4608, 13, 14), (4608, 12, 13), (2304, 11, 12), (9216, 10, 11),
            (9216, 9, 10), (9216, 8, 9), (4608, 7, 8), (18432, 6, 7), (18432, 5, 6),
            (18432, 4, 5), (9216, 3, 4), (36864, 2, 3), (18432, 1, 2), (18432, 0, 1)]
    sizes, first, last = map(list, zip(*rows))
    p = plan(ffi, lib, sizes, first, last)
    assert p.arena < 241027
    assert p.offsets == tflm_greedy(sizes, first, last)
    a = plan(ffi, lib, sizes, first, last, strategy="auto", time_limit=0.5)
    assert a.arena == a.lower_bound and a.optimal == 1


def test_tflm_sort_order_through_placement(ffi, lib):
    # TestReverseSortInPlace's third case, seen through placement: 100 buffers with
    # sizes 1..10 repeated, all live together, stack up in TFLM's sorted order.
    sizes = [i % 10 + 1 for i in range(100)]
    # ReverseSortInPlace is stable (its test keeps ids 9, 19, ..., 99 in input order
    # among the 10s); the planner feeds it from the tail, so among equal sizes the
    # later-added buffer comes first.
    expected_ids = []
    for value in range(10, 0, -1):
        expected_ids += sorted([i for i in range(100) if sizes[i] == value], reverse=True)
    p = plan(ffi, lib, sizes, [0] * 100, [0] * 100)
    offset = 0
    for i in expected_ids:
        assert p.offsets[i] == offset
        offset += sizes[i]
    assert p.arena == sum(sizes)


def test_tflm_sizes_rounded_up_to_alignment(ffi, lib):
    p = plan(ffi, lib, [10, 20], [0, 0], [0, 0], alignment=16)
    assert p.offsets == [32, 0]
    assert p.arena == 48 and p.lower_bound == 48


@PROPERTY
@given(problems(max_n=30, mixed_alignment=False))
def test_greedy_size_equals_tflm_port(ffi, lib, problem):
    sizes, first, last, aligns = problem
    a = aligns[0] if aligns else 1
    p = plan(ffi, lib, sizes, first, last, alignment=a)
    assert p.status == lib.AP_OK
    aligned = [align_up(s, a) for s in sizes]
    expected = tflm_greedy(aligned, first, last)
    # TFLM would leave zero-size buffers wherever the walk stops; both put them at 0
    assert [o for o, s in zip(p.offsets, aligned) if s] == \
        [o for o, s in zip(expected, aligned) if s]
    assert all(o == 0 for o, s in zip(p.offsets, aligned) if not s)


# --------------------------------------------------------------------------- pre-placed


def test_tflm_offline_buffers_keep_their_offsets_and_come_first(ffi, lib):
    # buffer 1 is offline-planned at 40: buffer 0 (live with it) fits below it, 2 above
    sizes, first, last = [40, 30, 50], [0, 0, 0], [1, 1, 1]
    p = plan(ffi, lib, sizes, first, last, fixed=[None, 40, None])
    assert p.status == lib.AP_OK, p.message
    assert p.offsets == tflm_greedy(sizes, first, last, [None, 40, None]) == [0, 40, 70]
    assert p.arena == 120 and p.strategy == "greedy_size"
    # every buffer pre-placed: the plan is the offsets given, gaps and all
    p = plan(ffi, lib, sizes, first, last, fixed=[200, 0, 100])
    assert p.offsets == [200, 0, 100] and p.arena == 240


@st.composite
def pre_placed(draw, max_n=28):
    """A problem, one aligned plan of it (greedy_conflicts, so that it is not the answer)
    and a subset of its non-empty buffers pre-placed where that plan put them."""
    sizes, first, last, aligns = draw(problems(max_n=max_n, mixed_alignment=False))
    keep = [draw(st.booleans()) and s > 0 for s in sizes]
    return sizes, first, last, (aligns[0] if aligns else 1), keep


@PROPERTY
@given(pre_placed())
def test_greedy_size_with_pre_placed_buffers_equals_tflm_port(ffi, lib, problem):
    sizes, first, last, a, keep = problem
    start = plan(ffi, lib, sizes, first, last, alignment=a, strategy="greedy_conflicts")
    fixed = [o if k else None for o, k in zip(start.offsets, keep)]
    p = plan(ffi, lib, sizes, first, last, alignment=a, fixed=fixed)
    assert p.status == lib.AP_OK, p.message
    aligned = [align_up(s, a) for s in sizes]
    expected = tflm_greedy(aligned, first, last, fixed)
    assert [o for o, s in zip(p.offsets, aligned) if s] == [o for o, s in zip(expected, aligned) if s]
    assert all(p.offsets[i] == fixed[i] for i in range(len(sizes)) if keep[i])
    for strategy in ("greedy_size_best_fit", "greedy_conflicts", "greedy_conflicts_best_fit"):
        q = plan(ffi, lib, sizes, first, last, alignment=a, strategy=strategy, fixed=fixed)
        assert q.status == lib.AP_OK, q.message
        assert all(q.offsets[i] == fixed[i] for i in range(len(sizes)) if keep[i])


def test_pre_placed_buffers_live_together_must_not_share_a_byte(ffi, lib):
    sizes, first, last = [16, 32, 16, 8], [0, 2, 3, 0], [1, 4, 5, 5]
    p = plan(ffi, lib, sizes, first, last, fixed=[0, 64, 80, None])
    assert p.status == lib.AP_ERR_INVALID_ARGUMENT
    assert (p.error.index, p.error.other, p.error.op) == (1, 2, 3)
    assert p.message == "fixed buffers 1 (offset 64) and 2 (offset 80) share bytes [80, 96) while both live at op 3"
    # not live together (0 and 2), or one of them empty: they may share bytes
    p = plan(ffi, lib, sizes, first, last, fixed=[64, None, 64, None])
    assert p.status == lib.AP_OK and p.offsets[0] == p.offsets[2] == 64
    p = plan(ffi, lib, [0, 32], [0, 0], [1, 1], fixed=[8, 0])
    assert p.status == lib.AP_OK and p.offsets == [8, 0]


def test_pre_placed_offsets_are_checked(ffi, lib):
    p = plan(ffi, lib, [10, 20], [0, 0], [0, 0], alignment=16, fixed=[24, None])
    assert p.status == lib.AP_ERR_INVALID_ARGUMENT and p.error.index == 0
    assert "fixed offset 24 is not a multiple of its alignment 16 (8 bytes off)" in p.message
    p = plan(ffi, lib, [10, 20], [0, 0], [0, 0], fixed=[SIZE_MAX - 4, None])
    assert p.status == lib.AP_ERR_OVERFLOW and p.error.index == 0 and "overflows size_t" in p.message
    p = plan(ffi, lib, [10, 20], [0, 0], [0, 0], fixed=[SIZE_MAX - 25, None])
    assert p.status == lib.AP_ERR_OVERFLOW and "the other buffers may take above them" in p.message
    for strategy in ("auto", "exact", "anneal", "lns", "bands", "sweep"):
        p = plan(ffi, lib, [10, 20], [0, 0], [0, 0], strategy=strategy, fixed=[0, None])
        assert p.status == lib.AP_ERR_INVALID_ARGUMENT
        assert p.message.startswith(f"fixed_offsets: strategy {strategy} places every buffer itself")
    options = ffi.new("ap_plan_options *")
    options.strategy = STRATEGIES["greedy_size"]
    pinned = ffi.new("size_t[]", [0])
    options.fixed_offsets = pinned
    pool = ffi.new("ap_pool[]", 1)
    pool[0].capacity, pool[0].alignment = 1024, 1
    error = ffi.new("ap_error *")
    status = lib.ap_plan_pools(options, make_buffers(ffi, [10], [0], [0]), ffi.NULL, 1, pool, 1,
                               ffi.new("uint32_t[]", 1), ffi.new("size_t[]", 1), ffi.new("size_t[]", 1),
                               error)
    assert status == lib.AP_ERR_INVALID_ARGUMENT
    assert "ap_plan_pools places every buffer itself" in ffi.string(error.message).decode()


# --------------------------------------------------------------------------- properties


@PROPERTY
@given(problems())
def test_every_strategy_verifies_and_respects_the_bound(ffi, lib, problem):
    sizes, first, last, aligns = problem
    lb = lower_bound(ffi, lib, sizes, first, last, aligns)
    arenas = {}
    for name in STRATEGIES:
        p = plan(ffi, lib, sizes, first, last, aligns, strategy=name, time_limit=0.02)
        assert p.status == lib.AP_OK, p.message
        assert p.lower_bound == lb
        assert p.arena >= lb
        if p.optimal:
            assert p.arena == lb or name in ("auto", "exact")
        arenas[name] = p
    assert arenas["auto"].arena <= arenas["greedy_size"].arena
    assert arenas["exact"].arena <= arenas["greedy_size"].arena
    assert arenas["anneal"].arena <= arenas["greedy_size"].arena
    # lns starts from the best of the four greedy plans
    assert arenas["lns"].arena <= min(arenas[g].arena for g in STRATEGIES if g.startswith("greedy"))
    for p in arenas.values():
        if p.optimal:  # proven minimal: nothing else beats it
            assert p.arena == min(q.arena for q in arenas.values())


def test_stacked_exact_phase_reports_the_arena_of_the_plan_it_returns(ffi, lib):
    # Found by the property above under a slow clock: the exact phase on the stacked
    # problem (equal lifetimes stacked as one block, padded to the alignment of its
    # first member) judged its plan by the blocks' arena, 154, and reported that for
    # offsets whose own arena is 153. With this step budget it ends with that plan;
    # plan() checks the reported arena against ap_plan_verify's.
    sizes = [1, 0, 1, 0, 1, 0, 1, 0, 0, 129, 1, 0, 0, 0, 1, 0, 1, 1]
    first = [4, 0, 4, 0, 4, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 4, 7]
    last = [8, 0, 6, 0, 8, 0, 5, 0, 0, 4, 4, 0, 0, 0, 5, 0, 4, 7]
    aligns = [1, 1, 16, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 128]
    p = plan(ffi, lib, sizes, first, last, aligns, strategy="exact", time_limit=30.0,
             step_limit=250)
    assert p.status == lib.AP_OK and p.arena == 153


@settings(max_examples=60, deadline=None)
@given(problems(max_n=4, max_size=3, max_op=3))
def test_brute_force_is_exhaustive(problem):
    sizes, first, last, aligns = problem
    aligns = [min(a, 2) for a in aligns]
    limit = sum(align_up(s, a) + a for s, a in zip(sizes, aligns)) + 1
    assert brute_force_min_arena(sizes, first, last, aligns) == \
        grid_min_arena(sizes, first, last, aligns, limit)


@settings(max_examples=120, deadline=None)
@given(problems(max_n=7, max_size=200, max_op=5))
def test_exact_matches_brute_force(ffi, lib, problem):
    sizes, first, last, aligns = problem
    p = plan(ffi, lib, sizes, first, last, aligns, strategy="exact", time_limit=2.0)
    assert p.status == lib.AP_OK
    assert p.optimal == 1
    assert p.arena == brute_force_min_arena(sizes, first, last, aligns)
    a = plan(ffi, lib, sizes, first, last, aligns, strategy="auto", time_limit=2.0)
    assert a.arena == p.arena and a.optimal == 1


@settings(max_examples=40, deadline=None)
@given(problems(max_n=7, max_size=200, max_op=5))
def test_exact_on_offsets_too_wide_to_pack_matches_brute_force(ffi, lib, problem):
    # Scaled by 2**38 (sizes and alignments, so offsets are multiples of it) the
    # optimum scales too, and offsets pass what the search packs into one word
    # with a rank: the unpacked candidate scan must find the same optimum.
    sizes, first, last, aligns = problem
    scale = 1 << 38
    aligns = [aligns] * len(sizes) if isinstance(aligns, int) else aligns
    p = plan(ffi, lib, [x * scale for x in sizes], first, last, [a * scale for a in aligns],
             strategy="exact", time_limit=2.0)
    assert p.status == lib.AP_OK and p.optimal == 1
    assert p.arena == brute_force_min_arena(sizes, first, last, aligns) * scale


def test_exact_beats_greedy_and_proves_it(ffi, lib):
    # TestGreedyMedium again: greedy needs 90, the optimum is the bound, 80
    p = plan(ffi, lib, [10, 20, 30, 40, 50], [0, 1, 2, 3, 0], [1, 2, 3, 4, 1], strategy="exact")
    assert p.arena == 80 and p.optimal == 1 and p.strategy == "exact"


# Alignment leaves holes: 6 bytes are live at most, but no plan fits in fewer than 8.
GAP = ([1, 4, 2, 2], [0, 2, 0, 1], [1, 2, 0, 2], [2, 4, 4, 1])


def test_exact_proves_an_optimum_above_the_bound(ffi, lib):
    sizes, first, last, aligns = GAP
    assert brute_force_min_arena(*GAP) == 8
    for name in ("exact", "auto"):
        p = plan(ffi, lib, sizes, first, last, aligns, strategy=name, time_limit=1.0)
        assert p.lower_bound == 6
        assert p.arena == 8 and p.optimal == 1


def test_zero_size_buffers_occupy_nothing(ffi, lib):
    for name in STRATEGIES:
        p = plan(ffi, lib, [0, 64, 0, 32], [0, 0, 0, 1], [5, 3, 0, 2], alignment=16, strategy=name)
        assert p.status == lib.AP_OK
        assert p.offsets[0] == 0 and p.offsets[2] == 0
        assert p.arena == 96


def test_empty_problem(ffi, lib):
    for name in STRATEGIES:
        p = plan(ffi, lib, [], [], [], strategy=name)
        assert p.status == lib.AP_OK and p.arena == 0 and p.optimal == 1
    options = ffi.new("ap_plan_options *")
    assert lib.ap_plan_buffers(options, ffi.NULL, 0, ffi.NULL, ffi.NULL, ffi.NULL) == lib.AP_OK


def test_anneal_is_deterministic_for_a_seed(ffi, lib):
    rng = random.Random(7)
    n = 40
    sizes = [rng.randrange(1, 40) * 16 for _ in range(n)]
    first = [rng.randrange(0, 20) for _ in range(n)]
    last = [f + rng.randrange(0, 5) for f in first]
    a = plan(ffi, lib, sizes, first, last, 16, strategy="anneal", time_limit=2.0, seed=3)
    b = plan(ffi, lib, sizes, first, last, 16, strategy="anneal", time_limit=2.0, seed=3)
    if a.arena == a.lower_bound:  # it stopped by itself, not by the clock
        assert a.offsets == b.offsets and a.steps == b.steps
    assert a.arena <= plan(ffi, lib, sizes, first, last, 16).arena


def test_search_respects_its_time_limit(ffi, lib):
    sizes, first, last = rectangle_cut(300, 1, width=8192, steps=40)
    t = time.perf_counter()
    p = plan(ffi, lib, sizes, first, last, 16, strategy="auto", time_limit=0.3)
    elapsed = time.perf_counter() - t
    assert p.status == lib.AP_OK
    assert elapsed < 3.0  # generous: sanitizer builds are slow
    assert p.arena <= plan(ffi, lib, sizes, first, last, 16).arena


def test_auto_finds_perfect_packings_of_small_cut_rectangles(ffi, lib):
    for seed in range(5):
        sizes, first, last = rectangle_cut(40, seed, width=8192, steps=40)
        p = plan(ffi, lib, sizes, first, last, 16, strategy="auto", time_limit=2.0)
        assert p.lower_bound == 8192
        assert p.arena == 8192 and p.optimal == 1


def test_auto_neighbourhood_search_on_larger_cut_rectangles(ffi, lib):
    # Large enough that the exact phases leave auto's last quarter to the large
    # neighbourhood search (lns.c); mixed alignments exercise its band moves'
    # aligned bases. Every plan is verified by plan().
    for seed in range(3):
        sizes, first, last = rectangle_cut(200, seed, width=65536, steps=64)
        aligns = [random.Random(seed * 1000 + i).choice([16, 32, 64]) for i in range(len(sizes))]
        for alignment in (16, aligns):
            g = plan(ffi, lib, sizes, first, last, alignment, strategy="greedy_size")
            a = plan(ffi, lib, sizes, first, last, alignment, strategy="auto", time_limit=0.6)
            assert a.status == lib.AP_OK
            assert a.lower_bound <= a.arena <= g.arena


def hard_cut(n, seed):
    """A cut rectangle of 65,536 x 64 on which first fit lands 25-50 % above the bound."""
    return rectangle_cut(n, seed, width=65536, steps=64)


# Seeds of 200-buffer cut rectangles (harness.rectangles) that the band and exact phases
# leave above the bound, so the neighbourhood search makes the difference: with this
# budget auto reaches the bound on 288 of the 319 seeds below 400 where first fit lands
# at least 25 % above it, and ends with a neighbourhood-search plan within 5 % on 11.
HARD_200 = [41, 377]


@pytest.mark.parametrize("seed", HARD_200)
def test_auto_within_five_percent_on_hard_cut_rectangles_with_a_step_budget(ffi, lib, seed):
    sizes, first, last = hard_cut(200, seed)
    g = plan(ffi, lib, sizes, first, last, 16, strategy="greedy_size")
    assert g.arena >= 1.25 * g.lower_bound  # hard: first fit is far off
    budget = 400_000
    # a generous clock: the step budget, not the time, ends the search (about 0.3 s here)
    a = plan(ffi, lib, sizes, first, last, 16, strategy="auto", time_limit=30.0,
             step_limit=budget)
    assert a.status == lib.AP_OK
    assert a.arena <= 1.05 * a.lower_bound
    assert a.strategy == "lns"  # the neighbourhood search improved the exact phases' plan
    assert a.steps <= budget
    # the same steps give the same plan whatever the time limit
    b = plan(ffi, lib, sizes, first, last, 16, strategy="auto", time_limit=20.0,
             step_limit=budget)
    assert (b.offsets, b.arena, b.steps, b.strategy) == (a.offsets, a.arena, a.steps, a.strategy)


# An anneal step decodes a whole placement order, the others' steps are nodes and moves:
# budgets that take well under a second here, so the clock limits never end a search,
# even under the sanitizers on a loaded machine.
@pytest.mark.parametrize("strategy,budget", [("anneal", 5_000), ("exact", 50_000), ("lns", 50_000),
                                             ("auto", 50_000)])
def test_step_limit_ends_every_search_at_the_same_point(ffi, lib, strategy, budget):
    sizes, first, last = hard_cut(300, 2)
    runs = [plan(ffi, lib, sizes, first, last, 16, strategy=strategy, time_limit=limit,
                 step_limit=budget, seed=5) for limit in (300.0, 400.0)]
    for p in runs:
        assert p.status == lib.AP_OK
        assert p.steps <= budget
    assert runs[0].offsets == runs[1].offsets and runs[0].steps == runs[1].steps
    assert runs[0].arena <= plan(ffi, lib, sizes, first, last, 16).arena
    # a different seed takes another path (and the budget still holds)
    other = plan(ffi, lib, sizes, first, last, 16, strategy=strategy, time_limit=300.0,
                 step_limit=budget, seed=6)
    assert other.steps <= budget


def test_lns_strategy_improves_on_the_greedy_plans(ffi, lib):
    sizes, first, last = hard_cut(200, 21)
    greedy = min(plan(ffi, lib, sizes, first, last, 16, strategy=g).arena
                 for g in STRATEGIES if g.startswith("greedy"))
    p = plan(ffi, lib, sizes, first, last, 16, strategy="lns", time_limit=30.0,
             step_limit=200_000)
    assert p.status == lib.AP_OK
    assert p.strategy == "lns" and p.arena < greedy
    # with a capacity it stops at the first plan within it
    cap = (greedy + p.arena) // 2
    q = plan(ffi, lib, sizes, first, last, 16, strategy="lns", time_limit=30.0, capacity=cap,
             step_limit=200_000)
    assert q.status == lib.AP_OK and q.arena <= cap
    assert q.steps <= p.steps


def test_ten_thousand_buffers(ffi, lib):
    rng = random.Random(1)
    n = 10_000
    first = [rng.randrange(0, 5000) for _ in range(n)]
    last = [f + min(int(rng.expovariate(0.7)), 6) for f in first]
    sizes = [rng.randrange(1, 4096) for _ in range(n)]
    g = plan(ffi, lib, sizes, first, last, 16, strategy="greedy_size")
    a = plan(ffi, lib, sizes, first, last, 16, strategy="auto", time_limit=0.5)
    assert g.status == a.status == lib.AP_OK
    assert g.lower_bound <= a.arena <= g.arena


# --------------------------------------------------------------------------- capacity


def test_capacity_that_fits(ffi, lib):
    args = ([10, 20, 30, 40, 50], [0, 1, 2, 3, 0], [1, 2, 3, 4, 1])
    for name in STRATEGIES:
        p = plan(ffi, lib, *args, strategy=name, capacity=100)
        assert p.status == lib.AP_OK and p.arena <= 100
    p = plan(ffi, lib, *args, strategy="auto", capacity=80)
    assert p.status == lib.AP_OK and p.arena == 80


def test_capacity_below_the_bound_does_not_fit(ffi, lib):
    args = ([10, 20, 30, 40, 50], [0, 1, 2, 3, 0], [1, 2, 3, 4, 1])
    for name in STRATEGIES:
        p = plan(ffi, lib, *args, strategy=name, capacity=79)
        assert p.status == lib.AP_ERR_DOES_NOT_FIT
        assert p.error.status == lib.AP_ERR_DOES_NOT_FIT
        assert p.error.available == 79 and p.error.needed >= 80
        assert "79" in p.message


def test_capacity_between_bound_and_optimum_is_proven_impossible(ffi, lib):
    sizes, first, last, aligns = GAP
    for name in ("exact", "auto"):
        p = plan(ffi, lib, sizes, first, last, aligns, strategy=name, capacity=7, time_limit=1.0)
        assert p.status == lib.AP_ERR_DOES_NOT_FIT
        assert p.error.needed == 8 and p.error.available == 7
        assert "proven" in p.message
        p = plan(ffi, lib, sizes, first, last, aligns, strategy=name, capacity=8)
        assert p.status == lib.AP_OK and p.arena == 8


def test_greedy_capacity_reports_greedy_arena(ffi, lib):
    p = plan(ffi, lib, [10, 20, 30, 40, 50], [0, 1, 2, 3, 0], [1, 2, 3, 4, 1],
             strategy="greedy_size", capacity=85)
    assert p.status == lib.AP_ERR_DOES_NOT_FIT
    assert (p.error.needed, p.error.available) == (90, 85)


# --------------------------------------------------------------------------- verify


def test_verify_accepts_a_good_plan(ffi, lib):
    status, arena, _, _ = verify(ffi, lib, [16, 16], [0, 1], [1, 2], [0, 16], alignment=16)
    assert status == lib.AP_OK and arena == 32


def test_verify_rejects_overlap_and_names_both_buffers(ffi, lib):
    status, _, err, msg = verify(ffi, lib, [10, 20, 30], [0, 4, 2], [3, 5, 6], [0, 100, 5])
    assert status == lib.AP_ERR_INVALID_PLAN
    assert (err.index, err.other) == (0, 2)
    assert err.op == 2
    assert "buffers 0 and 2" in msg and "op 2" in msg


def test_verify_ignores_buffers_not_live_together(ffi, lib):
    status, arena, _, _ = verify(ffi, lib, [10, 10], [0, 2], [1, 3], [0, 0])
    assert status == lib.AP_OK and arena == 10


def test_verify_lifetimes_are_inclusive(ffi, lib):
    status, _, err, _ = verify(ffi, lib, [10, 10], [0, 1], [1, 3], [0, 5])
    assert status == lib.AP_ERR_INVALID_PLAN and err.op == 1


def test_verify_rejects_misalignment(ffi, lib):
    status, _, err, msg = verify(ffi, lib, [16, 16], [0, 0], [0, 0], [0, 24], alignment=16)
    assert status == lib.AP_ERR_INVALID_PLAN and err.index == 1
    assert "alignment" in msg


def test_verify_rejects_over_capacity(ffi, lib):
    status, _, err, msg = verify(ffi, lib, [10, 20], [0, 0], [0, 0], [0, 10], capacity=25)
    assert status == lib.AP_ERR_INVALID_PLAN
    assert err.index == 1 and err.needed == 30 and err.available == 25
    status, arena, _, _ = verify(ffi, lib, [10, 20], [0, 0], [0, 0], [0, 10], capacity=30)
    assert status == lib.AP_OK and arena == 30


def test_verify_uses_aligned_sizes(ffi, lib):
    # 10 bytes at alignment 16 occupy 16: a buffer at 10 overlaps it
    status, _, _, _ = verify(ffi, lib, [10, 16], [0, 0], [0, 0], [0, 16], alignment=16)
    assert status == lib.AP_OK
    status, _, _, _ = verify(ffi, lib, [10, 10], [0, 0], [0, 0], [0, 10], alignment=[16, 2])
    assert status == lib.AP_ERR_INVALID_PLAN


def test_verify_accepts_declared_alias(ffi, lib):
    args = ([64, 64], [0, 1], [1, 2], [0, 0])
    status, _, _, _ = verify(ffi, lib, *args)
    assert status == lib.AP_ERR_INVALID_PLAN
    status, arena, _, _ = verify(ffi, lib, *args, overlaps=[(0, 1, lib.AP_OVERLAP_ALIAS, 0)])
    assert status == lib.AP_OK and arena == 64
    # the record is about the pair, whichever way round
    status, _, _, _ = verify(ffi, lib, *args, overlaps=[(1, 0, lib.AP_OVERLAP_ALIAS, 0)])
    assert status == lib.AP_OK


def test_verify_lead_overlap(ffi, lib):
    # output (1) may trail input (0) by at least 8 bytes
    sizes, first, last = [64, 64], [0, 0], [0, 1]
    lead = [(0, 1, lib.AP_OVERLAP_LEAD, 8)]
    assert verify(ffi, lib, sizes, first, last, [8, 0], overlaps=lead)[0] == lib.AP_OK
    assert verify(ffi, lib, sizes, first, last, [40, 0], overlaps=lead)[0] == lib.AP_OK
    assert verify(ffi, lib, sizes, first, last, [4, 0], overlaps=lead)[0] == lib.AP_ERR_INVALID_PLAN
    # the output ahead of its input is not allowed
    assert verify(ffi, lib, sizes, first, last, [0, 8], overlaps=lead)[0] == lib.AP_ERR_INVALID_PLAN
    # a lead that overflows never allows sharing
    big = [(0, 1, lib.AP_OVERLAP_LEAD, SIZE_MAX)]
    assert verify(ffi, lib, sizes, first, last, [8, 0], overlaps=big)[0] == lib.AP_ERR_INVALID_PLAN


def test_verify_zero_size_never_conflicts(ffi, lib):
    status, arena, _, _ = verify(ffi, lib, [0, 32], [0, 0], [3, 3], [8, 0])
    assert status == lib.AP_OK and arena == 32


def _pairs_sharing_wrongly(sizes, first, last, offsets, overlaps, alias, lead):
    """Every pair the brute force finds live together, overlapping and not let share."""
    bad = []
    for a, b in itertools.combinations(range(len(sizes)), 2):
        if not sizes[a] or not sizes[b] or max(first[a], first[b]) > min(last[a], last[b]):
            continue
        if offsets[a] >= offsets[b] + sizes[b] or offsets[b] >= offsets[a] + sizes[a]:
            continue
        allowed = False
        for i, o, kind, min_lead in overlaps:
            if {i, o} == {a, b}:
                allowed |= kind == alias or (kind == lead and offsets[i] >= offsets[o] + min_lead)
        if not allowed:
            bad.append((a, b))
    return bad


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_verify_agrees_with_every_pair_checked(ffi, lib, data):
    """The sweep finds a conflict exactly when some pair conflicts, and names one of them,
    with aliases and leads mixed in (the cases where live buffers may overlap)."""
    n = data.draw(st.integers(1, 12))
    sizes = data.draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))
    first = data.draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    last = [f + data.draw(st.integers(0, 4)) for f in first]
    offsets = data.draw(st.lists(st.integers(0, 120), min_size=n, max_size=n))
    overlaps = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                            st.sampled_from([lib.AP_OVERLAP_ALIAS, lib.AP_OVERLAP_LEAD]),
                                            st.integers(0, 30)), max_size=4))
    overlaps = [o for o in overlaps if o[0] != o[1]]
    status, arena, err, msg = verify(ffi, lib, sizes, first, last, offsets, overlaps=overlaps)
    bad = _pairs_sharing_wrongly(sizes, first, last, offsets, overlaps, lib.AP_OVERLAP_ALIAS,
                                 lib.AP_OVERLAP_LEAD)
    if bad:
        assert status == lib.AP_ERR_INVALID_PLAN, (bad, msg)
        assert (err.index, err.other) in bad
    else:
        assert status == lib.AP_OK, msg
        assert arena == max(o + s for o, s in zip(offsets, sizes))


def test_verify_a_million_buffers_live_at_once(ffi, lib):
    """Half a trillion pairs live together: the check is in address order, not by pair."""
    n = 1_000_000
    sizes = [16] * n
    offsets = list(range(0, 16 * n, 16))
    t = time.monotonic()
    status, arena, _, msg = verify(ffi, lib, sizes, [0] * n, [0] * n, offsets)
    assert status == lib.AP_OK and arena == 16 * n, msg
    offsets[n // 2] += 8   # one buffer half over its neighbour
    status, _, err, msg = verify(ffi, lib, sizes, [0] * n, [0] * n, offsets)
    assert status == lib.AP_ERR_INVALID_PLAN and {err.index, err.other} == {n // 2, n // 2 + 1}, msg
    assert time.monotonic() - t < 30


def test_verify_bad_arguments(ffi, lib):
    buffers = make_buffers(ffi, [8, 8], [0, 0], [0, 0])
    offs = ffi.new("size_t[]", [0, 8])
    err = ffi.new("ap_error *")
    assert lib.ap_plan_verify(buffers, 2, ffi.NULL, ffi.NULL, 0, 0, ffi.NULL, err) == \
        lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_plan_verify(buffers, 2, offs, ffi.NULL, 1, 0, ffi.NULL, err) == \
        lib.AP_ERR_INVALID_ARGUMENT
    status, _, err2, msg = verify(ffi, lib, [8, 8], [0, 0], [0, 0], [0, 8],
                                  overlaps=[(0, 5, lib.AP_OVERLAP_ALIAS, 0)])
    assert status == lib.AP_ERR_INVALID_ARGUMENT and "5" in msg
    status, _, _, _ = verify(ffi, lib, [8, 8], [0, 0], [0, 0], [0, 8], overlaps=[(0, 1, 7, 0)])
    assert status == lib.AP_ERR_INVALID_ARGUMENT
    status, _, err3, _ = verify(ffi, lib, [16], [0], [0], [SIZE_MAX - 7])
    assert status == lib.AP_ERR_OVERFLOW and err3.index == 0
    assert lib.ap_plan_verify(ffi.NULL, 0, ffi.NULL, ffi.NULL, 0, 0, ffi.NULL, ffi.NULL) == lib.AP_OK


@PROPERTY
@given(problems(max_n=16), st.randoms(use_true_random=False))
def test_verify_agrees_with_a_pairwise_check(ffi, lib, problem, rng):
    sizes, first, last, aligns = problem
    offsets = [rng.randrange(0, 64) * a for a in aligns]
    asz = [align_up(s, a) for s, a in zip(sizes, aligns)]
    n = len(sizes)
    clash = any(asz[i] and asz[j] and first[i] <= last[j] and first[j] <= last[i]
                and offsets[i] < offsets[j] + asz[j] and offsets[j] < offsets[i] + asz[i]
                for i in range(n) for j in range(i + 1, n))
    status, arena, _, _ = verify(ffi, lib, sizes, first, last, offsets, aligns)
    assert (status == lib.AP_ERR_INVALID_PLAN) == clash
    if not clash:
        assert arena == max([o + s for o, s in zip(offsets, asz)] or [0])


# --------------------------------------------------------------------------- bad input


def expect_invalid(ffi, lib, sizes, first, last, alignment, status, index, text):
    """Every entry point rejects the same buffers the same way."""
    n = len(sizes)
    buffers = make_buffers(ffi, sizes, first, last, alignment)
    err = ffi.new("ap_error *")
    assert lib.ap_buffers_check(buffers, n, err) == status
    assert err.index == index and err.status == status
    assert text in ffi.string(err.message).decode()
    out = ffi.new("size_t *")
    assert lib.ap_buffers_lower_bound(buffers, n, out, err) == status
    assert err.index == index
    p = plan(ffi, lib, sizes, first, last, alignment, strategy="auto")
    assert p.status == status and p.error.index == index and text in p.message
    offs = ffi.new("size_t[]", n)
    assert lib.ap_plan_verify(buffers, n, offs, ffi.NULL, 0, 0, ffi.NULL, err) == status
    assert err.index == index


def test_first_after_last(ffi, lib):
    expect_invalid(ffi, lib, [1, 1, 1, 1], [0, 0, 0, 5], [0, 0, 0, 2], 1,
                   lib.AP_ERR_INVALID_ARGUMENT, 3, "buffer 3: first op 5 > last op 2")


def test_negative_first(ffi, lib):
    expect_invalid(ffi, lib, [1, 1], [0, -1], [0, 2], 1, lib.AP_ERR_INVALID_ARGUMENT, 1,
                   "buffer 1: first op -1 < 0")


@pytest.mark.parametrize("alignment", [0, 3, 12, 2**63 + 1])
def test_bad_alignment(ffi, lib, alignment):
    expect_invalid(ffi, lib, [1, 1], [0, 0], [0, 0], [1, alignment],
                   lib.AP_ERR_INVALID_ARGUMENT, 1, "not a power of two")


def test_aligned_size_overflow(ffi, lib):
    expect_invalid(ffi, lib, [1, 1, SIZE_MAX - 3], [0, 0, 0], [0, 0, 0], 16,
                   lib.AP_ERR_OVERFLOW, 2, "buffer 2")


def test_sum_of_sizes_overflow(ffi, lib):
    half = 2**63
    expect_invalid(ffi, lib, [16, half, half], [0, 0, 5], [0, 0, 5], 1,
                   lib.AP_ERR_OVERFLOW, 2, "overflows")


def test_padding_overflow_in_planner(ffi, lib):
    # The planner also needs sizes plus worst-case alignment padding to fit in size_t
    # (so that no placement can overflow); ap_buffers_check only needs the sum.
    p = plan(ffi, lib, [2**62, 2**62], [0, 1], [0, 1], [2**62, 2**62], strategy="greedy_size")
    assert p.status == lib.AP_OK and p.offsets == [0, 0]
    sizes, aligns = [2**63, 2**62], [2**63, 2**62]
    buffers = make_buffers(ffi, sizes, [0, 1], [0, 1], aligns)
    assert lib.ap_buffers_check(buffers, 2, ffi.NULL) == lib.AP_OK
    p = plan(ffi, lib, sizes, [0, 1], [0, 1], aligns, strategy="auto")
    assert p.status == lib.AP_ERR_OVERFLOW
    assert p.error.index == 1 and "padding" in p.message


def test_null_pointers(ffi, lib):
    err = ffi.new("ap_error *")
    assert lib.ap_buffers_check(ffi.NULL, 3, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert "NULL" in ffi.string(err.message).decode()
    assert lib.ap_buffers_check(ffi.NULL, 0, err) == lib.AP_OK
    out = ffi.new("size_t *")
    assert lib.ap_buffers_lower_bound(ffi.NULL, 2, out, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_buffers_lower_bound(ffi.NULL, 0, ffi.NULL, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_buffers_lower_bound(ffi.NULL, 0, out, err) == lib.AP_OK and out[0] == 0
    buffers = make_buffers(ffi, [8], [0], [0])
    options = ffi.new("ap_plan_options *")
    assert lib.ap_plan_buffers(ffi.NULL, buffers, 1, out, ffi.NULL, err) == \
        lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_plan_buffers(options, buffers, 1, ffi.NULL, ffi.NULL, err) == \
        lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_plan_buffers(options, ffi.NULL, 1, out, ffi.NULL, err) == \
        lib.AP_ERR_INVALID_ARGUMENT
    # errors are optional
    assert lib.ap_plan_buffers(options, ffi.NULL, 1, out, ffi.NULL, ffi.NULL) == \
        lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_plan_buffers(options, buffers, 1, out, ffi.NULL, ffi.NULL) == lib.AP_OK


def test_unknown_strategy(ffi, lib):
    buffers = make_buffers(ffi, [8], [0], [0])
    options = ffi.new("ap_plan_options *")
    options.strategy = 42
    out = ffi.new("size_t[]", 1)
    err = ffi.new("ap_error *")
    assert lib.ap_plan_buffers(options, buffers, 1, out, ffi.NULL, err) == \
        lib.AP_ERR_INVALID_ARGUMENT
    assert "strategy" in ffi.string(err.message).decode()


def test_nan_and_negative_time_limits_mean_the_default(ffi, lib):
    for limit in (float("nan"), -1.0, 0.0):
        p = plan(ffi, lib, [10, 20, 30, 40, 50], [0, 1, 2, 3, 0], [1, 2, 3, 4, 1],
                 strategy="anneal", time_limit=limit)
        assert p.status == lib.AP_OK


def test_lower_bound_counts_inclusive_lifetimes(ffi, lib):
    assert lower_bound(ffi, lib, [10, 20], [0, 1], [1, 2]) == 30
    assert lower_bound(ffi, lib, [10, 20], [0, 2], [1, 3]) == 20
    assert lower_bound(ffi, lib, [10, 20], [0, 0], [0, 0], 16) == 48
    assert lower_bound(ffi, lib, [5], [2**31 - 1], [2**31 - 1]) == 5


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_live_bytes_per_op_sum_the_aligned_buffers_and_peak_at_the_lower_bound(ffi, lib, problem):
    sizes, first, last, aligns = problem
    n, ops = len(sizes), (max(last) + 1 if sizes else 0)
    buffers = make_buffers(ffi, sizes, first, last, aligns)
    out = ffi.new("size_t[]", max(ops, 1) + 1)
    out[ops] = 0xDEAD                       # one past the end: never written
    error = ffi.new("ap_error *")
    assert lib.ap_buffers_live_bytes(buffers, n, ops, out, error) == lib.AP_OK
    want = [sum(align_up(s, a) for s, a, f, l_ in zip(sizes, aligns, first, last) if f <= k <= l_)
            for k in range(ops)]
    assert list(out[0:ops]) == want and out[ops] == 0xDEAD
    if n:
        assert max(want) == lower_bound(ffi, lib, sizes, first, last, aligns)


def test_live_bytes_bad_input(ffi, lib):
    buffers = make_buffers(ffi, [16, 16], [0, 1], [0, 3])
    error = ffi.new("ap_error *")
    out = ffi.new("size_t[]", 4)
    assert lib.ap_buffers_live_bytes(buffers, 2, 3, out, error) == lib.AP_ERR_INVALID_ARGUMENT
    assert "buffer 1 lives to op 3, past the 3 ops asked for" in ffi.string(error.message).decode()
    assert lib.ap_buffers_live_bytes(buffers, 2, 4, ffi.NULL, error) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_buffers_live_bytes(ffi.NULL, 0, 0, ffi.NULL, error) == lib.AP_OK
