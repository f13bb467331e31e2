"""int8 ABS (abs_s8.c, TFLite's AbsEvalQuantized): one-op .tflite models built with the
flatbuffer schema, the direct and table variants on every instruction set this host runs inside
a verified plan, bit-exact with LiteRT's reference kernels (BUILTIN_REF) and with TensorFlow
Lite Micro's interpreter over every int8 value: equal scales (no multiply, zero points that
differ or not), scales that differ (the multiply), saturation, zero points at both ends;
hypothesis over the quantisation; the table's scratch exactly and one byte short, and in
place, through the C API; the poisoned-arena property; an out-of-range multiplier refused."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from poisoned_arena import poisoned_run
from unary_s8 import check_every_variant, check_scratch_and_in_place, inputs, load, unary_model

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))

#: (input scale, input zero point, output scale, output zero point, shape)
CASES = [
    (0.05, 0, 0.05, 0, (1, 4, 4, 3)),          # one quantisation
    (0.05, 3, 0.05, -7, (2, 33)),              # equal scales, zero points that differ: no multiply
    (0.05, -128, 0.05, -128, (257,)),          # |-128 - -128| .. 255: saturates at 127
    (0.05, 127, 0.1, -128, (3, 1, 9)),         # zero points at the top and the bottom
    (0.1, 10, 0.025, -5, (1, 7, 5, 2)),        # the range magnifies: saturates
    (0.0123, 45, 0.0456, -77, (1,)),
    (1.0 / 255, -128, 1.0 / 127, -128, (64, 3)),
]


def abs_model(xs, xz, ys, yz, shape) -> bytes:
    return unary_model("ABS", shape, xs, xz, ys, yz, version=2)


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
def test_abs_matches_litert(case, tmp_path):
    *q, shape = CASES[case]
    check_every_variant(abs_model(*q, shape), tmp_path, shape, seed=case, op="ABS")


@pytest.mark.parametrize("case", range(len(CASES)))
def test_abs_matches_tflm(case, tmp_path):
    *q, shape = CASES[case]
    check_every_variant(abs_model(*q, shape), tmp_path, shape, seed=case, op="ABS", reference="tflm")


@needs_litert
@settings(max_examples=30, deadline=None)
@given(xs=st.floats(1e-3, 1.0), ys=st.floats(1e-3, 1.0), xz=st.integers(-128, 127), yz=st.integers(-128, 127),
       same=st.booleans(), n=st.integers(1, 300))
def test_abs_hypothesis(xs, ys, xz, yz, same, n, tmp_path_factory):
    check_every_variant(abs_model(xs, xz, xs if same else ys, yz, (n,)), tmp_path_factory.mktemp("abs"), (n,),
                        seed=n, op="ABS")


def test_abs_scratch_and_in_place(ffi, lib, tmp_path):
    for name, q in (("rescale", (0.05, -7, 0.04, 3)), ("same", (0.05, -7, 0.05, 3))):
        model = load(abs_model(*q, (3, 100)), tmp_path, name)
        check_scratch_and_in_place(ffi, lib, model, "ap_abs_params", lib.ap_abs_s8_variants, lib.ap_abs_s8_run)


def test_abs_on_a_poisoned_arena(tmp_path):
    for mode in ("size", "speed"):
        poisoned_run(load(abs_model(0.05, -7, 0.04, 3, (3, 100)), tmp_path), inputs((3, 100), 1)[0], mode)


def test_bad_abs_is_refused(tmp_path):
    model = load(abs_model(1.0, 0, 1e-10, 0, (4,)), tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(ABS\): the scales give no int32 multiplier"):
        ap.plan(model)
    (kernel,) = PlanContext.build(load(abs_model(0.05, 0, 0.04, 0, (4,)), tmp_path, "ok"), isa="portable",
                                  reference="litert").kernels
    assert kernel.spec["rescale"] == 1
    with pytest.raises(ValueError, match=r"abs: multiplier -1 must be >= 0 and shift"):
        _core.kernel_variants(kernel.code, dict(kernel.spec, multiplier=-1))
    with pytest.raises(ValueError, match=r"abs: rescale 2 must be 0 or 1"):
        _core.kernel_variants(kernel.code, dict(kernel.spec, rescale=2))
