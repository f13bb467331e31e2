"""int8 LEAKY_RELU: one-op .tflite models built with the flatbuffer schema, the direct and
table variants on every instruction set this host runs inside a verified plan, bit-exact with
LiteRT's reference kernels (BUILTIN_REF) over every int8 value and several scales, zero points
and alphas (saturating outputs, zero points at the ends, alpha 0 and alpha > 1); hypothesis
over the quantisation; the table's scratch exactly and one byte short, and in place, through
the C API; a negative alpha and an out-of-range multiplier refused."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from unary_s8 import check_every_variant, check_scratch_and_in_place, load, unary_model

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))

#: (input scale, input zero point, output scale, output zero point, alpha, shape)
CASES = [
    (0.05, 0, 0.05, 0, 0.2, (1, 4, 4, 3)),
    (0.05, -128, 0.05, -128, 0.1, (2, 33)),        # zero points at the bottom
    (0.1, 127, 0.025, 127, 0.3, (1, 7, 5, 2)),      # at the top; the output range magnifies
    (0.02, -3, 0.07, 120, 0.01, (257,)),
    (0.3, 10, 0.01, -128, 0.0, (3, 1, 9)),          # alpha 0: a RELU
    (1.0 / 255, -128, 1.0 / 127, 0, 1.5, (64, 3)),  # alpha > 1
    (0.0123, 45, 0.0456, -77, 0.5, (1,)),           # one element
]


def leaky_model(xs, xz, ys, yz, alpha, shape) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = S.LeakyReluOptionsT()
    o.alpha = alpha
    return unary_model("LEAKY_RELU", shape, xs, xz, ys, yz, "LeakyReluOptions", o)


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
def test_leaky_relu_matches_litert(case, tmp_path):
    *q, shape = CASES[case]
    check_every_variant(leaky_model(*q, shape), tmp_path, shape, seed=case, op="LEAKY_RELU")


@needs_litert
@settings(max_examples=30, deadline=None)
@given(xs=st.floats(1e-3, 1.0), ys=st.floats(1e-3, 1.0), xz=st.integers(-128, 127), yz=st.integers(-128, 127),
       alpha=st.floats(0.0, 3.0), n=st.integers(1, 300))
def test_leaky_relu_hypothesis(xs, ys, xz, yz, alpha, n, tmp_path_factory):
    check_every_variant(leaky_model(xs, xz, ys, yz, alpha, (n,)), tmp_path_factory.mktemp("lr"), (n,),
                        seed=n, op="LEAKY_RELU")


def test_leaky_relu_scratch_and_in_place(ffi, lib, tmp_path):
    model = load(leaky_model(0.05, -7, 0.04, 3, 0.25, (3, 100)), tmp_path)
    check_scratch_and_in_place(ffi, lib, model, "ap_leaky_relu_params", lib.ap_leaky_relu_s8_variants,
                               lib.ap_leaky_relu_s8_run)


def test_bad_leaky_relu_is_refused(tmp_path):
    model = load(leaky_model(0.05, 0, 0.05, 0, -0.5, (4,)), tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(LEAKY_RELU\): alpha -0.5 is not supported"):
        ap.plan(model)
    model = load(leaky_model(1.0, 0, 1e-10, 0, 0.5, (4,)), tmp_path, "big")
    with pytest.raises(UnsupportedModel, match=r"op 0 \(LEAKY_RELU\): the scales give no int32 multiplier"):
        ap.plan(model)
    (kernel,) = PlanContext.build(load(leaky_model(0.05, 0, 0.05, 0, 0.2, (4,)), tmp_path, "ok"),
                                  isa="portable", reference="litert").kernels
    with pytest.raises(ValueError, match="leaky_relu: alpha_multiplier -1 must be >= 0"):
        _core.kernel_variants(kernel.code, dict(kernel.spec, alpha_multiplier=-1))
    with pytest.raises(ValueError, match=r"leaky_relu: zero points 128 and 0 must lie in \[-128, 127\]"):
        _core.kernel_variants(kernel.code, dict(kernel.spec, input_zero_point=128))
