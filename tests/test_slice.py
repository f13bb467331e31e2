"""int8 SLICE on the STRIDED_SLICE row (the copy of a block, stride 1): one-op .tflite models
built with the flatbuffer schema (ranks 1 to 5, size-1 dimensions, size -1, the whole input,
int32 and int64 begin and size, an output quantised unlike the input), the copy variant on
every instruction set this host runs inside a verified plan, bit-exact with LiteRT's reference
kernels (BUILTIN_REF); hypothesis over shapes and blocks; the poisoned-arena property; the
begins and sizes LiteRT rejects refused naming the op, when the plan is made."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import UnsupportedModel
from arenaplan.ops.lowering import OP_CODES
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from poisoned_arena import poisoned_run
from unary_s8 import host_isas, load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))


def slice_model(shape, begin, size, out_shape=None, dtype="int32", out_q=(0.02, -5)) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    if out_shape is None:
        out_shape = tuple(d - b if s == -1 else s for d, b, s in zip(shape, begin, size))
    tensors = [dict(shape=shape, dtype="int8", scale=0.02, zero_point=-5),
               dict(shape=(len(begin),), dtype=dtype, data=np.array(begin, dtype)),
               dict(shape=(len(size),), dtype=dtype, data=np.array(size, dtype)),
               dict(shape=out_shape, dtype="int8", scale=out_q[0], zero_point=out_q[1])]
    return L.single_op_model("SLICE", tensors, [0, 1, 2], [3], "SliceOptions", S.SliceOptionsT(), version=2)


def inputs(shape, seed):
    rng = np.random.default_rng(seed)
    xs = [rng.integers(-128, 128, size=shape, dtype=np.int8) for _ in range(2)]
    return xs + [np.resize(np.arange(-128, 128, dtype=np.int8), shape), np.full(shape, 127, np.int8)]


def check(content, tmp_path, shape, seed=0):
    model = load(content, tmp_path)
    xs = inputs(shape, seed)
    wants = L.run_sequence(content, [[x] for x in xs])[0]
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference="litert")
        (kernel,) = ctx.kernels
        assert kernel.code == OP_CODES["STRIDED_SLICE"]
        assert [v.name for v in kernel.variants] == ["copy"] and not kernel.variants[0].in_place
        p = ctx.make([kernel.variants[0]], "size")
        assert p.verify() and p.isa == isa
        it = ap.Interpreter(p)
        for x, want in zip(xs, wants):
            got = it.run(x)
            assert got.dtype == np.int8 and got.shape == want[0].shape
            np.testing.assert_array_equal(got, want[0], err_msg=isa)
    return model


#: (shape, begin, size)
CASES = [
    ((1, 8, 6, 3), [0, 2, 1, 0], [1, 4, 5, 3]),
    ((1, 8, 6, 3), [0, 0, 0, 1], [-1, -1, -1, -1]),   # size -1: the rest of every axis
    ((5, 7), [0, 0], [5, 7]),                          # the whole input
    ((9,), [8], [1]),                                  # rank 1, the last element
    ((2, 3, 4, 5, 6), [1, 2, 0, 4, 1], [1, 1, 4, -1, 3]),
    ((1, 1, 7, 1), [0, 0, 3, 0], [1, 1, 2, 1]),        # size-1 dims
]


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
def test_slice_matches_litert(case, tmp_path):
    shape, begin, size = CASES[case]
    check(slice_model(shape, begin, size), tmp_path, shape, seed=case)


@needs_litert
def test_slice_int64_and_another_output_quantisation(tmp_path):
    # TFLite's SLICE copies the bytes whatever the output's quantisation
    check(slice_model((4, 6), [1, 2], [2, -1], dtype="int64", out_q=(0.5, 100)), tmp_path, (4, 6))


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_slice_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 5))
    shape = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    begin = [data.draw(st.integers(0, d - 1)) for d in shape]
    size = [data.draw(st.sampled_from([-1, data.draw(st.integers(1, d - b))])) for d, b in zip(shape, begin)]
    check(slice_model(shape, begin, size), tmp_path_factory.mktemp("sl"), shape, seed=sum(shape))


def test_slice_on_a_poisoned_arena(tmp_path):
    """The slice run alone on an arena poisoned everywhere but its input writes only its output
    and gives the output of an unpoisoned run."""
    model = load(slice_model((2, 3, 4, 5, 6), [1, 2, 0, 4, 1], [1, 1, 4, -1, 3]), tmp_path)
    poisoned_run(model, inputs((2, 3, 4, 5, 6), 7)[0])


@pytest.mark.parametrize("begin, size, out, match", [
    ([-1, 0], [1, 6], (1, 6), r"begin -1 on axis 0 lies outside \[0, 4\]"),
    ([1, 0], [-2, 6], (1, 6), r"size -2 on axis 0: the only negative size is -1"),
    ([3, 0], [2, 6], (2, 6), r"begin 3 and size 2 on axis 0 run past its 4 elements"),
    ([4, 0], [0, 6], (1, 6), r"axis 0 selects no elements"),
    ([1, 0], [2, 6], (2, 5), r"output tensor 3 has shape \(2, 5\), the op computes \(2, 6\)"),
    ([1, 0, 0], [2, 6, 1], (2, 6), r"begin tensor 1 holds \[1, 0, 0\]; a vector of 2 values"),
])
def test_bad_slice_is_refused(begin, size, out, match, tmp_path):
    model = load(slice_model((4, 6), begin, size, out), tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(SLICE\): " + match):
        ap.plan(model)
