"""int8 SQUARED_DIFFERENCE (elementwise_s8.c on ADD's broadcast walk): one-op .tflite models
built with the flatbuffer schema (4-D broadcasting both ways, a scalar, size-1 dimensions, zero
points at both ends, unequal input scales, saturating outputs), the direct variant on every
instruction set this host runs inside a verified plan, bit-exact with LiteRT's reference kernels
(BUILTIN_REF) and TensorFlow Lite Micro's interpreter; hypothesis over shapes and quantisations;
the poisoned-arena property; an output scale that makes TFLite's multiplier reach one refused
naming the op, and bad params by the C kernel."""
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
from test_maximum_minimum import feeds, tflm_outputs_two
from unary_s8 import host_isas, load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))


def sqdiff_model(a_shape, b_shape, qs=((0.05, -3), (0.03, 7), (0.02, -128)), y_shape=None) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    y_shape = y_shape or tuple(np.broadcast_shapes(a_shape, b_shape))
    tensors = [dict(shape=s, dtype="int8", scale=q[0], zero_point=q[1])
               for s, q in zip((a_shape, b_shape, y_shape), qs)]
    return L.single_op_model("SQUARED_DIFFERENCE", tensors, [0, 1], [2], "SquaredDifferenceOptions",
                             S.SquaredDifferenceOptionsT(), version=2)


def check(content, tmp_path, a_shape, b_shape, seed=0, tflm=True):
    model = load(content, tmp_path)
    xs = feeds(a_shape, b_shape, seed)
    wants = L.run_sequence(content, xs)[0]
    if tflm:
        for micro, want in zip(tflm_outputs_two(content, xs), wants):
            np.testing.assert_array_equal(micro, want[0], err_msg="TFLite Micro and LiteRT differ")
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference="litert")
        (kernel,) = ctx.kernels
        assert [v.name for v in kernel.variants] == ["direct"] and kernel.variants[0].scratch == ()
        p = ctx.make([kernel.variants[0]], "size")
        assert p.verify() and p.isa == isa
        it = ap.Interpreter(p)
        for x, want in zip(xs, wants):
            got = it.run(x)
            assert got.dtype == np.int8 and got.shape == want[0].shape
            np.testing.assert_array_equal(got, want[0], err_msg=isa)
    poisoned_run(model, xs[0])


#: (a shape, b shape, quantisations)
CASES = [
    ((1, 4, 5, 3), (1, 4, 5, 3), ((0.05, -3), (0.03, 7), (0.02, -128))),
    ((3, 1, 8), (1, 5, 1), ((0.02, -128), (0.02, 127), (0.01, -128))),     # broadcast both ways, zp at the ends
    ((2, 7), (7,), ((0.1, 0), (0.1, 0), (0.5, -128))),
    ((17,), (1,), ((0.004, 20), (0.09, -40), (0.002, -100))),              # saturates
    ((1, 1, 1, 1), (1, 1, 1, 1), ((0.5, 3), (0.25, -4), (1.0, 2))),
    ((2, 3, 4, 5), (2, 1, 4, 1), ((0.03, 5), (0.07, -9), (0.2, 100))),
]


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(case, tmp_path):
    a, b, qs = CASES[case]
    check(sqdiff_model(a, b, qs), tmp_path, a, b, seed=case)


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    full = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    a = tuple(d if data.draw(st.booleans()) else 1 for d in full)
    b = tuple(d if data.draw(st.booleans()) else 1 for d in full)
    s1, s2 = data.draw(st.floats(1e-3, 0.2)), data.draw(st.floats(1e-3, 0.2))
    so = data.draw(st.floats(1.01, 50.0)) * (2 * max(s1, s2)) ** 2 / 2 ** 14
    qs = ((s1, data.draw(st.integers(-128, 127))), (s2, data.draw(st.integers(-128, 127))),
          (so, data.draw(st.integers(-128, 127))))
    check(sqdiff_model(a, b, qs), tmp_path_factory.mktemp("sd"), a, b, seed=rank, tflm=False)


def test_bad_squared_difference_is_refused(tmp_path):
    # (2 * 0.5)^2 / 2^14 = 6.1e-5 > the output scale: the output multiplier would be >= 1
    model = load(sqdiff_model((4,), (4,), ((0.5, 0), (0.5, 0), (1e-5, 0))), tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(SQUARED_DIFFERENCE\): the output multiplier 6.10\d* is not "
                                               r"below one"):
        ap.plan(model)
    model = load(sqdiff_model((3, 4), (2, 4), y_shape=(3, 4)), tmp_path, "shape")
    with pytest.raises(UnsupportedModel, match=r"op 0 \(SQUARED_DIFFERENCE\): shapes \(3, 4\) and \(2, 4\) do not "
                                               r"broadcast"):
        ap.plan(model)
    (k,) = PlanContext.build(load(sqdiff_model((4,), (4,)), tmp_path, "ok"), isa="portable",
                             reference="litert").kernels
    with pytest.raises(ValueError, match=r"squared_difference: multipliers must be >= 0 and shifts in \[-31, 0\]"):
        _core.kernel_variants(k.code, dict(k.spec, output_shift=1))
