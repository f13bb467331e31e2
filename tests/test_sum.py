"""int8 SUM (reduce_s8.c) as TensorFlow Lite Micro computes it: one-op .tflite models built with
the flatbuffer schema (every axis set of ranks 1 to 4, negative and repeated axes, keep_dims,
quantisations that magnify and shrink, zero points at both ends, saturation), the direct variant
on every instruction set this host runs inside a verified plan under reference "tflm", bit-exact
with the tflite-micro interpreter; hypothesis over shapes, axes and quantisations; the
poisoned-arena property; refused under "litert" (LiteRT's reference int8 SUM reads its input as
uint8: shown here) and for bad axes, naming the op; the kernel's own checks."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from poisoned_arena import poisoned_run
from test_reduce_max_min import out_shape
from unary_s8 import host_isas, inputs, load, tflm_outputs

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))


def sum_model(shape, axes, keep=False, q=((0.05, 3), (0.2, -5)), out=None) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = S.ReducerOptionsT()
    o.keepDims = keep
    tensors = [dict(shape=shape, dtype="int8", scale=q[0][0], zero_point=q[0][1]),
               dict(shape=(len(axes),), dtype="int32", data=np.array(axes, np.int32)),
               dict(shape=out if out is not None else out_shape(shape, axes, keep), dtype="int8", scale=q[1][0],
                    zero_point=q[1][1])]
    return L.single_op_model("SUM", tensors, [0, 1], [2], "ReducerOptions", o, version=2)


def check(content, tmp_path, shape, seed=0):
    model = load(content, tmp_path)
    xs = inputs(shape, seed)
    wants = tflm_outputs(content, xs)
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference="tflm")
        (kernel,) = ctx.kernels
        assert [v.name for v in kernel.variants] == ["direct"] and not kernel.variants[0].in_place
        p = ctx.make([kernel.variants[0]], "size")
        assert p.verify() and p.isa == isa and p.reference == "tflm"
        it = ap.Interpreter(p)
        for x, want in zip(xs, wants):
            got = it.run(x)
            assert got.dtype == np.int8 and got.shape == want[0].shape
            np.testing.assert_array_equal(got, want[0], err_msg=isa)
    poisoned_run(model, xs[0], reference="tflm")


#: (shape, axes, keep_dims, quantisation)
CASES = [
    ((1, 4, 4, 8), [1, 2], True, ((0.05, 3), (0.5, -5))),
    ((2, 3, 4), [-1], False, ((0.05, 3), (0.2, -5))),
    ((2, 3, 4), [0, 2, -1], True, ((0.02, -128), (0.1, 127))),     # repeated axes, zero points at the ends
    ((5,), [0], False, ((0.01, 0), (0.01, 0))),                      # one quantisation: saturates
    ((2, 3, 4, 5), [0, 1, 2, 3], True, ((0.003, 127), (0.4, -128))),
    ((3, 1, 6), [1], False, ((0.2, 10), (0.05, 0))),                # a size-1 axis; the range magnifies
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_sum_matches_tflm(case, tmp_path):
    shape, axes, keep, q = CASES[case]
    check(sum_model(shape, axes, keep, q), tmp_path, shape, seed=case)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_sum_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    shape = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    axes = data.draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank + 1))
    q = tuple((data.draw(st.floats(1e-3, 0.5)), data.draw(st.integers(-128, 127))) for _ in range(2))
    check(sum_model(shape, axes, data.draw(st.booleans()), q), tmp_path_factory.mktemp("sum"), shape,
          seed=sum(shape))


@needs_litert
def test_sum_is_refused_under_litert(tmp_path):
    """LiteRT's BUILTIN_REF int8 SUM is not the sum TFLite Micro (or arithmetic) gives: its
    reference path reads the int8 input as uint8."""
    content = sum_model((2, 3, 4), [1], q=((0.05, 3), (0.05, 3)))
    x = inputs((2, 3, 4), 0)[0]
    (litert,) = L.run_sequence(content, [[x]])[0][0:1]
    (micro,) = tflm_outputs(content, [x])
    assert (litert[0] != micro[0]).any()
    model = load(content, tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(SUM\): LiteRT's reference int8 SUM \(BUILTIN_REF\) reads its "
                                               r"int8 input as uint8; .* plan with reference \"tflm\""):
        ap.plan(model, reference="litert")
    assert ap.plan(model, reference="tflm").verify()


def test_bad_sum_is_refused(tmp_path):
    model = load(sum_model((2, 3), [2], out=(2, 3)), tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(SUM\): axis 2 is out of range for an input of rank 2"):
        ap.plan(model, reference="tflm")
    (k,) = PlanContext.build(load(sum_model((2, 3), [1]), tmp_path, "ok"), isa="portable", reference="tflm").kernels
    assert k.spec["reduce"] == [0, 0, 0, 1] and k.spec["input_zero_point"] == 3
    with pytest.raises(ValueError, match=r"sum: zero points 200 and -5 must lie in \[-128, 127\]"):
        _core.kernel_variants(k.code, dict(k.spec, input_zero_point=200))
    with pytest.raises(ValueError, match=r"sum: 8421505 elements an output overflow the int32 sum"):
        _core.kernel_variants(k.code, dict(k.spec, input_shape=[1, 1, 1, 8421505]))
