"""int8 HARD_SWISH: one-op .tflite models built with the flatbuffer schema, the direct and
table variants on every instruction set this host runs inside a verified plan, bit-exact with
LiteRT's reference kernels (BUILTIN_REF) and with TensorFlow Lite Micro's interpreter (the two
run the same integer kernel: either rounding rule gives the same plan) over every int8 value
at several quantisations: MobileNetV3's, zero points at the ends, an output multiplier of
exponent 0, shifts of 16 and more (where TFLite's int16 rounding shift keeps only the sign),
saturating left shifts, size-1 dims and one element; hypothesis over the quantisation; the
table's scratch exactly and one byte short and in place through the C API; an output scale
below input_scale / 128 refused as both runtimes refuse it, bad params refused by the C
kernel."""
from __future__ import annotations

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
try:
    import tflite_micro  # noqa: F401
    _TFLM = None
except ImportError as exc:  # pragma: no cover - the test extra pins it for x86-64
    _TFLM = f"tflite-micro is not importable ({exc})"
needs_tflm = pytest.mark.skipif(_TFLM is not None, reason=str(_TFLM))

#: (input scale, input zero point, output scale, output zero point, shape)
CASES = [
    (0.05, 3, 0.03, -100, (1, 4, 4, 3)),          # MobileNetV3-like
    (0.1, -128, 0.07, -128, (2, 33)),             # zero points at the bottom
    (0.02, 127, 0.02, 127, (1, 7, 5, 2)),         # and at the top
    (0.064, -5, 0.00051, 0, (257,)),              # output exponent 0: the output saturates
    (0.01, -7, 1e4, -128, (3, 1, 9)),             # output shift above 16
    (1e-7, 3, 1e-6, -5, (64, 3)),                 # reluish shift -16
    (1000.0, 5, 50.0, 1, (1,)),                   # reluish left shift 17, saturating; one element
    (0.3, 0, 0.25, 0, (2, 1, 1, 5)),
]


def hard_swish_model(xs, xz, ys, yz, shape) -> bytes:
    return unary_model("HARD_SWISH", shape, xs, xz, ys, yz, version=1)


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert(case, tmp_path):
    *q, shape = CASES[case]
    check_every_variant(hard_swish_model(*q, shape), tmp_path, shape, seed=case, op="HARD_SWISH")


@needs_tflm
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_tflite_micro(case, tmp_path):
    *q, shape = CASES[case]
    check_every_variant(hard_swish_model(*q, shape), tmp_path, shape, seed=case, op="HARD_SWISH",
                        reference="tflm")


@needs_litert
@needs_tflm
@settings(max_examples=40, deadline=None)
@given(xs=st.floats(1e-4, 4.0), xz=st.integers(-128, 127), ratio=st.floats(1.0 / 120, 50.0),
       yz=st.integers(-128, 127), n=st.integers(1, 300))
def test_hypothesis(xs, xz, ratio, yz, n, tmp_path_factory):
    content = hard_swish_model(xs, xz, xs * ratio, yz, (n,))
    for reference in ("litert", "tflm"):
        check_every_variant(content, tmp_path_factory.mktemp("hs"), (n,), seed=n, op="HARD_SWISH",
                            reference=reference)


def test_scratch_and_in_place(ffi, lib, tmp_path):
    model = load(hard_swish_model(0.05, 3, 0.03, -100, (3, 100)), tmp_path)
    check_scratch_and_in_place(ffi, lib, model, "ap_hard_swish_params", lib.ap_hard_swish_s8_variants,
                               lib.ap_hard_swish_s8_run)


def test_bad_hard_swish_is_refused(tmp_path):
    model = load(hard_swish_model(0.05, 0, 0.05 / 200, 0, (4,)), tmp_path)
    for reference in ("litert", "tflm"):
        with pytest.raises(UnsupportedModel, match=r"op 0 \(HARD_SWISH\): input scale 0.05\d* / 128 is not below "
                                                   r"the output scale 0.00025\d* \(its multiplier's exponent 1 > 0\)"):
            ap.plan(model, reference=reference)
    model = load(hard_swish_model(1e8, 0, 1e8, 0, (4,)), tmp_path, "big")
    with pytest.raises(UnsupportedModel, match=r"op 0 \(HARD_SWISH\): the scales give no int32 multiplier"):
        ap.plan(model)
    (kernel,) = PlanContext.build(load(hard_swish_model(0.05, 0, 0.05, 0, (4,)), tmp_path, "ok")).kernels
    bad = [
        (dict(output_multiplier=32768), r"output_multiplier 32768 must lie in \[0, 32767\] and output_shift"),
        (dict(output_shift=1), r"output_multiplier \d+ must lie in \[0, 32767\] and output_shift 1 in \[-31, 0\]"),
        (dict(reluish_multiplier=-1), r"reluish_multiplier -1 must lie in \[0, 32767\]"),
        (dict(reluish_shift=31), r"reluish_multiplier \d+ must lie in \[0, 32767\] and reluish_shift 31 in \[-31, 30\]"),
        (dict(output_zero_point=128), r"zero points 0 and 128 must lie in \[-128, 127\]"),
    ]
    for change, message in bad:
        with pytest.raises(ValueError, match="hard_swish: " + message):
            _core.kernel_variants(kernel.code, dict(kernel.spec, **change))
