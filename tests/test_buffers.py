"""ap.plan_buffers: the planner through the Python API, its properties and its errors."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arenaplan as ap
from arenaplan.planning.buffers import BufferProblem

ALL = list(ap.STRATEGIES)


@st.composite
def problems(draw, max_buffers=24, max_ops=12):
    n = draw(st.integers(0, max_buffers))
    sizes, first, last = [], [], []
    for _ in range(n):
        f = draw(st.integers(0, max_ops - 1))
        sizes.append(draw(st.integers(0, 4096)))
        first.append(f)
        last.append(draw(st.integers(f, max_ops - 1)))
    alignment = draw(st.sampled_from([1, 4, 16, 64]))
    return sizes, first, last, alignment


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_every_strategy_verifies_and_respects_the_bound(problem):
    sizes, first, last, alignment = problem
    greedy = ap.plan_buffers(sizes, first, last, alignment, strategy="greedy_size")
    for strategy in ALL:
        bp = ap.plan_buffers(sizes, first, last, alignment, strategy=strategy, time_limit_s=0.2)
        assert bp.verify()
        assert bp.arena_bytes >= bp.lower_bound_bytes
        assert all(int(o) % alignment == 0 for o in bp.offsets)
        if strategy == "auto":
            assert bp.arena_bytes <= greedy.arena_bytes
        if bp.optimal:
            assert bp.arena_bytes <= greedy.arena_bytes


def test_greedy_size_reproduces_tflm_placement_of_equal_buffers():
    bp = ap.plan_buffers([100, 100, 100], [0, 0, 0], [1, 1, 1], alignment=1, strategy="greedy_size")
    assert bp.offsets.tolist() == [200, 100, 0]
    assert bp.arena_bytes == 300 and bp.lower_bound_bytes == 300
    assert bp.verify()


def test_pre_placed_buffers_keep_their_offsets_and_are_checked():
    # TFLM's offline-planned buffers: the rest is placed around them (the C API's tests
    # hold the greedy to a port of TFLM's planner)
    p = ap.plan_buffers([40, 30, 50], [0, 0, 0], [1, 1, 1], alignment=1, strategy="greedy_size",
                        fixed=[None, 40, None])
    assert p.verify() and list(p.offsets) == [0, 40, 70] and p.arena_bytes == 120
    assert list(ap.plan_buffers([8, 8], [0, 1], [0, 1], strategy="greedy_size", fixed=[None, None]).offsets) \
        == [0, 0]
    with pytest.raises(ap.InvalidArgument, match=r"fixed buffers 0 \(offset 0\) and 1 \(offset 16\) "
                                                 r"share bytes \[16, 32\) while both live at op 1"):
        ap.plan_buffers([32, 16], [0, 1], [1, 2], strategy="greedy_size", fixed=[0, 16])
    with pytest.raises(ap.InvalidArgument, match="fixed has 1 entries for 2 buffers"):
        ap.plan_buffers([32, 16], [0, 1], [1, 2], strategy="greedy_size", fixed=[0])
    with pytest.raises(ap.InvalidArgument, match=r"fixed\[1\] = -16 is out of range"):
        ap.plan_buffers([32, 16], [0, 1], [1, 2], strategy="greedy_size", fixed=[None, -16])
    with pytest.raises(ap.InvalidArgument, match="strategy auto places every buffer itself"):
        ap.plan_buffers([32, 16], [0, 1], [1, 2], fixed=[0, None])


def test_auto_finds_the_bound_where_greedy_fragments():
    # Two long-lived buffers around short ones: largest-first leaves a hole.
    sizes = [32, 64, 32, 96, 64]
    first = [0, 0, 1, 2, 3]
    last = [1, 2, 4, 4, 4]
    auto = ap.plan_buffers(sizes, first, last, alignment=1, strategy="auto")
    assert auto.verify()
    assert auto.arena_bytes == auto.lower_bound_bytes
    assert auto.optimal


def test_lower_bound_is_aligned_live_bytes():
    assert ap.lower_bound([10, 20, 30], [0, 1, 2], [1, 2, 2], alignment=16) == 32 + 32
    assert ap.lower_bound([], [], []) == 0


def test_empty_problem():
    bp = ap.plan_buffers([], [], [])
    assert bp.arena_bytes == 0 and bp.offsets.size == 0 and bp.verify()


def test_tampered_plan_fails_verification():
    bp = ap.plan_buffers([64, 64], [0, 0], [1, 1], alignment=16)
    bad = dataclasses.replace(bp, offsets=np.array([0, 0], dtype=np.int64))
    with pytest.raises(ap.InvalidPlan) as info:
        bad.verify()
    assert "buffer" in str(info.value)
    misaligned = dataclasses.replace(bp, offsets=np.array([0, 72], dtype=np.int64))
    with pytest.raises(ap.InvalidPlan):
        misaligned.verify()


def test_capacity_that_cannot_be_met_says_by_how_much():
    with pytest.raises(ap.PlanDoesNotFit) as info:
        ap.plan_buffers([100, 100], [0, 0], [0, 0], alignment=1, capacity=150)
    assert info.value.available == 150
    assert info.value.needed >= 200
    ok = ap.plan_buffers([100, 100], [0, 0], [0, 0], alignment=1, capacity="1KiB")
    assert ok.arena_bytes == 200 and ok.verify()


@pytest.mark.parametrize("args, kwargs, words", [
    (([1, 2], [0], [0]), {}, "same length"),
    (([1, -2], [0, 0], [0, 0]), {}, "sizes[1] = -2"),
    (([1, 2.5], [0, 0], [0, 0]), {}, "sizes[1] = 2.5"),
    ((["a"], [0], [0]), {}, "sizes"),
    (([1, 2], [0, 3], [0, 1]), {}, "first op 3 > last op 1"),
    (([1], [-1], [0]), {}, "first[0] = -1"),
    (([1], [0], [0]), {"alignment": 3}, "not a power of two"),
    (([1], [0], [0]), {"alignment": 0}, "not a power of two"),
    (([1], [0], [0]), {"strategy": "fastest"}, "unknown strategy 'fastest'"),
    (([1], [0], [0]), {"time_limit_s": -1}, "time_limit_s"),
    (([1], [0], [0]), {"seed": -3}, "seed"),
    (([1], [0], [0]), {"step_limit": 0}, "step_limit"),
    (([1], [0], [0]), {"step_limit": -5}, "step_limit"),
    (([1], [0], [0]), {"step_limit": True}, "step_limit"),
    (([1], [0], [0]), {"step_limit": 2.5}, "step_limit"),
    (([2 ** 64], [0], [0]), {}, "sizes[0]"),
    (([[1, 2]], [0], [0]), {}, "one-dimensional"),
])
def test_bad_input_is_named(args, kwargs, words):
    with pytest.raises(ValueError) as info:
        ap.plan_buffers(*args, **kwargs)
    assert isinstance(info.value, ap.ArenaplanError)
    assert words in str(info.value)


def test_sizes_whose_sum_overflows_64_bits():
    big = 2 ** 63
    with pytest.raises(ap.SizeOverflow) as info:
        ap.plan_buffers([big, big, 16], [0, 0, 0], [0, 0, 0], alignment=16)
    assert isinstance(info.value, ValueError)
    with pytest.raises(ap.SizeOverflow):
        ap.plan_buffers([2 ** 64 - 1], [0], [0], alignment=16)  # rounding up overflows


U64_MAX = 2 ** 64 - 1


@pytest.mark.parametrize("strategy", ALL)
@pytest.mark.parametrize("sizes", [[U64_MAX], [2 ** 63, 2 ** 63 - 1], [2 ** 62] * 3])
def test_sizes_at_the_top_of_the_range_give_exact_written_offsets(strategy, sizes):
    n = len(sizes)
    runs = [ap.plan_buffers(sizes, [0] * n, [0] * n, alignment=1, strategy=strategy, time_limit_s=0.2)
            for _ in range(3)]
    for bp in runs:
        assert bp.verify()
        offsets = [int(o) for o in bp.offsets]
        # every offset written (the same every run), none wrapped negative
        assert offsets == [int(o) for o in runs[0].offsets]
        assert all(0 <= o for o in offsets)
        assert bp.arena_bytes == max(o + s for o, s in zip(offsets, sizes)) == sum(sizes)
        assert bp.optimal and bp.arena_bytes == bp.lower_bound_bytes
        # int64 where every offset fits it, uint64 (exact) where one does not
        assert bp.offsets.dtype == (np.uint64 if max(offsets) >= 2 ** 63 else np.int64)
        assert bp.sizes.dtype == (np.uint64 if max(sizes) >= 2 ** 63 else np.int64)
        assert [int(v) for v in bp.sizes] == sizes


@st.composite
def huge_problems(draw):
    n = draw(st.integers(1, 6))
    size = st.one_of(st.integers(0, U64_MAX), st.integers(2 ** 62, 2 ** 63 + 16),
                     st.integers(U64_MAX - 64, U64_MAX), st.integers(0, 64))
    sizes, first, last = [], [], []
    for _ in range(n):
        f = draw(st.integers(0, 3))
        sizes.append(draw(size))
        first.append(f)
        last.append(draw(st.integers(f, 3)))
    return sizes, first, last, draw(st.sampled_from([1, 16]))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(huge_problems())
def test_every_strategy_is_exact_to_the_top_of_the_range(problem):
    sizes, first, last, alignment = problem
    aligned = [-(-s // alignment) * alignment for s in sizes]
    # the planner keeps every sum below the aligned sizes plus each buffer's worst padding:
    # a problem whose total with that padding passes 2**64 - 1 is refused, never wrapped
    padded = sum(aligned) + len(sizes) * (alignment - 1)
    for strategy in ALL:
        if padded > U64_MAX:
            with pytest.raises(ap.SizeOverflow):
                ap.plan_buffers(sizes, first, last, alignment, strategy=strategy, time_limit_s=0.1)
            continue
        bp = ap.plan_buffers(sizes, first, last, alignment, strategy=strategy, time_limit_s=0.1,
                             step_limit=2000)
        assert bp.verify()
        offsets = [int(o) for o in bp.offsets]
        assert all(o >= 0 and o % alignment == 0 for o in offsets)
        assert bp.arena_bytes == max(o + s for o, s in zip(offsets, aligned))
        assert bp.lower_bound_bytes <= bp.arena_bytes <= sum(aligned)
        assert bp.offsets.dtype == (np.uint64 if max(offsets) >= 2 ** 63 else np.int64)


def test_numpy_inputs_of_any_integer_dtype():
    sizes = np.array([10, 20, 30], dtype=np.uint16)
    first = np.array([0, 1, 2], dtype=np.int8)
    last = np.array([1, 2, 2], dtype=np.int64)
    bp = ap.plan_buffers(sizes, first, last, alignment=1, strategy="greedy_size")
    assert bp.verify() and bp.offsets.dtype == np.int64


def test_seeded_search_is_deterministic():
    rng = np.random.default_rng(7)
    n = 60
    first = rng.integers(0, 30, n)
    last = first + rng.integers(0, 10, n)
    sizes = rng.integers(1, 2000, n)
    a = ap.plan_buffers(sizes, first, last, strategy="anneal", time_limit_s=5, seed=3)
    b = ap.plan_buffers(sizes, first, last, strategy="anneal", time_limit_s=5, seed=3)
    assert a.offsets.tolist() == b.offsets.tolist()
    assert a.verify()


def cut_rectangle(n, seed, width=65536, steps=64, grain=16):
    """A width x steps rectangle cut at random into n buffers: the bound is the optimum."""
    rng = np.random.default_rng(seed)
    pieces = [(0, width // grain, 0, steps)]
    while len(pieces) < n:
        k = int(rng.integers(len(pieces)))
        x0, x1, t0, t1 = pieces[k]
        if x1 - x0 >= 2 and (t1 - t0 < 2 or rng.random() < 0.5):
            c = int(rng.integers(x0 + 1, x1))
            pieces[k:k + 1] = [(x0, c, t0, t1), (c, x1, t0, t1)]
        elif t1 - t0 >= 2:
            c = int(rng.integers(t0 + 1, t1))
            pieces[k:k + 1] = [(x0, x1, t0, c), (x0, x1, c, t1)]
    return ([(p[1] - p[0]) * grain for p in pieces], [p[2] for p in pieces],
            [p[3] - 1 for p in pieces])


def test_lns_is_a_strategy_of_its_own():
    assert "lns" in ap.STRATEGIES
    assert ap.STRATEGIES.index("lns") == 7  # the C enum's value; the older names keep theirs
    assert ap.STRATEGIES[:7] == ("auto", "greedy_size", "greedy_size_best_fit",
                                 "greedy_conflicts", "greedy_conflicts_best_fit", "anneal",
                                 "exact")
    sizes, first, last = cut_rectangle(150, 3)
    greedy = min(ap.plan_buffers(sizes, first, last, strategy=g).arena_bytes
                 for g in ap.STRATEGIES if g.startswith("greedy"))
    bp = ap.plan_buffers(sizes, first, last, strategy="lns", time_limit_s=30, step_limit=100_000)
    assert bp.verify()
    assert bp.arena_bytes <= greedy
    assert bp.strategy in ("lns",) + tuple(g for g in ap.STRATEGIES if g.startswith("greedy"))
    assert bp.search_steps <= 100_000


def test_bands_is_a_strategy_of_its_own():
    assert ap.STRATEGIES.index("bands") == 8  # appended: the older names keep their values
    assert len(ap.STRATEGIES) == 10
    assert ap.STRATEGIES.index("sweep") == 9  # appended too
    sizes, first, last = cut_rectangle(150, 3)
    greedy = ap.plan_buffers(sizes, first, last, strategy="greedy_size")
    bp = ap.plan_buffers(sizes, first, last, strategy="bands", time_limit_s=30,
                         step_limit=2_000_000)
    assert bp.verify()
    assert greedy.arena_bytes > bp.arena_bytes == bp.lower_bound_bytes == 65536
    assert bp.optimal and bp.strategy == bp.requested == "bands"


def test_step_limit_gives_the_same_plan_whatever_the_time_limit():
    sizes, first, last = cut_rectangle(250, 1)
    runs = [ap.plan_buffers(sizes, first, last, strategy="auto", time_limit_s=limit, seed=4,
                            step_limit=60_000) for limit in (30, 45)]
    assert runs[0].offsets.tolist() == runs[1].offsets.tolist()
    assert runs[0].search_steps == runs[1].search_steps <= 60_000
    assert runs[0].strategy == runs[1].strategy
    assert all(r.verify() for r in runs)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_live_bytes_per_op_are_the_sum_of_the_aligned_buffers_live_there(problem):
    sizes, first, last, alignment = problem
    bp = BufferProblem.build(sizes, first, last, alignment)
    ops = (max(last) + 1) if sizes else 0
    want = [sum(-(-s // alignment) * alignment for s, f, l_ in zip(sizes, first, last) if f <= k <= l_)
            for k in range(ops)]
    assert [int(v) for v in bp.live_bytes()] == want
    assert [int(v) for v in bp.live_bytes(ops + 3)] == want + [0, 0, 0]
    if sizes:
        assert max(want) == ap.lower_bound(sizes, first, last, alignment)


def test_live_bytes_are_exact_at_the_top_of_the_range_and_refuse_a_short_op_count():
    bp = BufferProblem.build([2 ** 63, 2 ** 63 - 6, 5], [0, 0, 1], [0, 1, 1], 1)   # 2**64 - 1 in all
    assert bp.live_bytes().dtype == np.uint64
    assert [int(v) for v in bp.live_bytes()] == [2 ** 64 - 6, 2 ** 63 - 1]
    with pytest.raises(ap.InvalidArgument, match="buffer 1 lives to op 1, past the 1 ops asked for"):
        bp.live_bytes(1)
