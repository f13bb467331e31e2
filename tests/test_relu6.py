"""int8 RELU6 and RELU_N1_TO_1 on the RELU row (TFLite's QuantizedReluX with other bounds):
one-op .tflite models built with the flatbuffer schema, the direct and table variants on every
instruction set this host runs inside a verified plan, bit-exact with LiteRT's reference
kernels (BUILTIN_REF) and, for RELU6, with TensorFlow Lite Micro's interpreter under reference
"tflm" (its RELU6 clamps the input's values and ignores the output's quantisation: the rules
differ where the quantisations do); every int8 value, zero points at both ends, bounds beyond
int8; hypothesis over the quantisation; the table's scratch exactly and one byte short, and in
place, through the C API; RELU_N1_TO_1 under "tflm" and overflowing bounds refused naming the op."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import UnsupportedModel
from arenaplan.ops.lowering import OP_CODES
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from unary_s8 import check_every_variant, check_scratch_and_in_place, load, unary_model

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))

OPS = ["RELU6", "RELU_N1_TO_1"]
#: (input scale, input zero point, output scale, output zero point, shape)
CASES = [
    (0.05, 0, 0.05, 0, (1, 4, 4, 3)),           # one quantisation: a clamp of the input's values
    (6.0 / 255, -128, 6.0 / 255, -128, (2, 33)),  # the converter's RELU6 output: [0, 6] over int8
    (0.1, 127, 0.025, 127, (1, 7, 5, 2)),       # zero points at the top; the range magnifies
    (0.02, -3, 0.07, 120, (257,)),
    (0.3, 10, 0.01, -128, (3, 1, 9)),           # 6 / 0.01 lies far beyond int8: the top bound is 127
    (1.0 / 255, -128, 1.0 / 127, 0, (64, 3)),
    (0.0123, 45, 0.0456, -77, (1,)),            # one element
]


def relu_x_model(op, xs, xz, ys, yz, shape) -> bytes:
    return unary_model(op, shape, xs, xz, ys, yz, version=1)


@needs_litert
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert(op, case, tmp_path):
    *q, shape = CASES[case]
    check_every_variant(relu_x_model(op, *q, shape), tmp_path, shape, seed=case, op=op)


#: RELU6 under TensorFlow Lite Micro, including quantisations that differ (it ignores the output's).
@pytest.mark.parametrize("case", range(len(CASES)))
def test_relu6_matches_tflm(case, tmp_path):
    *q, shape = CASES[case]
    check_every_variant(relu_x_model("RELU6", *q, shape), tmp_path, shape, seed=case, op="RELU6",
                        reference="tflm")


@needs_litert
def test_rules_differ_only_where_the_quantisations_do(tmp_path):
    x = np.arange(-128, 128, dtype=np.int8)
    same = load(relu_x_model("RELU6", 0.05, -7, 0.05, -7, (256,)), tmp_path, "same")
    a, b = (ap.Interpreter(ap.plan(same, reference=r)).run(x) for r in ("litert", "tflm"))
    np.testing.assert_array_equal(a, b)
    other = load(relu_x_model("RELU6", 0.05, -7, 0.03, 20, (256,)), tmp_path, "other")
    a, b = (ap.Interpreter(ap.plan(other, reference=r)).run(x) for r in ("litert", "tflm"))
    assert (a != b).any()
    np.testing.assert_array_equal(b, np.clip(x, -7, -7 + 120))   # TFLM: the input clamped to [zp, zp + 6/s]


@needs_litert
@settings(max_examples=30, deadline=None)
@given(op=st.sampled_from(OPS), xs=st.floats(1e-3, 1.0), ys=st.floats(1e-3, 1.0), xz=st.integers(-128, 127),
       yz=st.integers(-128, 127), n=st.integers(1, 300))
def test_hypothesis(op, xs, ys, xz, yz, n, tmp_path_factory):
    check_every_variant(relu_x_model(op, xs, xz, ys, yz, (n,)), tmp_path_factory.mktemp("r6"), (n,), seed=n, op=op)


@pytest.mark.parametrize("op, reference", [("RELU6", "litert"), ("RELU6", "tflm"), ("RELU_N1_TO_1", "litert")])
def test_scratch_and_in_place(op, reference, ffi, lib, tmp_path):
    model = load(relu_x_model(op, 0.05, -7, 0.04, 3, (3, 100)), tmp_path)
    check_scratch_and_in_place(ffi, lib, model, "ap_relu_params", lib.ap_relu_s8_variants, lib.ap_relu_s8_run,
                               reference=reference)


def test_params(tmp_path):
    model = load(relu_x_model("RELU6", 0.05, -7, 0.04, 3, (4,)), tmp_path)
    (k,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    assert (k.code, k.spec["activation_min"], k.spec["activation_max"]) == (OP_CODES["RELU"], 3, 127)
    (k,) = PlanContext.build(model, isa="portable", reference="tflm").kernels
    assert (k.spec["output_multiplier"], k.spec["output_shift"], k.spec["output_zero_point"]) == (1 << 30, 1, -7)
    assert (k.spec["activation_min"], k.spec["activation_max"]) == (-7, 113)
    model = load(relu_x_model("RELU_N1_TO_1", 0.05, -7, 0.02, 3, (4,)), tmp_path, "n1")
    (k,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    assert (k.spec["activation_min"], k.spec["activation_max"]) == (-47, 53)


def test_bad_relu_x_is_refused(tmp_path):
    model = load(relu_x_model("RELU_N1_TO_1", 0.05, 0, 0.05, 0, (4,)), tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(RELU_N1_TO_1\): TensorFlow Lite Micro has no "
                                               r"RELU_N1_TO_1 kernel"):
        ap.plan(model, reference="tflm")
    model = load(relu_x_model("RELU6", 1.0, 0, 1e-12, 0, (4,)), tmp_path, "tiny")
    with pytest.raises(UnsupportedModel, match=r"op 0 \(RELU6\): (scale 1e-12 is too small|the scales give no)"):
        ap.plan(model)
