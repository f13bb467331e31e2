"""int8 LOGISTIC and TANH: one-op .tflite models built with the flatbuffer schema, every
variant on every instruction set this host runs inside a verified plan, under both rounding
rules: reference "litert" (the float32 table LiteRT's Prepare builds, carried in the params:
`lookup`) bit-exact with LiteRT's reference kernels (BUILTIN_REF), reference "tflm" (the
fixed-point kernel: `direct` and `table`) bit-exact with TensorFlow Lite Micro's interpreter,
over every int8 value and all-min / all-max inputs at several scales and zero points
(saturating scales, zero points at the ends, scales whose TFLM radius is 0, size-1 dims, one
element); hypothesis over the quantisation; the scratch exactly and one byte short and in
place through the C API; the output quantisations each reference rejects, and bad params
refused by the C kernel."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from unary_s8 import LOOKUP, VARIANTS, check_every_variant, check_scratch_and_in_place, load, unary_model

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
try:
    import tflite_micro  # noqa: F401
    _TFLM = None
except ImportError as exc:  # pragma: no cover - the test extra pins it for x86-64
    _TFLM = f"tflite-micro is not importable ({exc})"
needs_tflm = pytest.mark.skipif(_TFLM is not None, reason=str(_TFLM))

#: The output quantisation both TFLite runtimes write (TFLite Micro's only one).
OUTPUT = {"LOGISTIC": (1.0 / 256, -128), "TANH": (1.0 / 128, 0)}

#: (input scale, input zero point, shape)
CASES = [
    (0.05, 0, (1, 4, 4, 3)),
    (0.1, -128, (2, 33)),               # zero point at the bottom
    (0.02, 127, (1, 7, 5, 2)),          # at the top
    (1.0 / 16, -3, (257,)),
    (0.0004, 10, (3, 1, 9)),            # every output near the middle
    (0.9, 45, (64, 3)),                 # most inputs saturate
    (20.0, -7, (1,)),                   # one element; TFLM's radius 0 (its shift would be 32)
    (3e-8, 0, (2, 1, 1, 5)),            # TFLM's radius above every input
]

#: LiteRT's table takes any output zero point (LOGISTIC) and quantisation (TANH).
LITERT_OUTPUTS = {"LOGISTIC": [(1.0 / 256, 0), (1.0 / 256, 77)], "TANH": [(1.0 / 64, 3), (0.013, -100)]}


def model_of(op: str, xs: float, xz: int, shape, out=None) -> bytes:
    ys, yz = out or OUTPUT[op]
    return unary_model(op, shape, xs, xz, ys, yz)


def names(reference: str) -> list:
    return LOOKUP if reference == "litert" else VARIANTS


@needs_litert
@pytest.mark.parametrize("op", ["LOGISTIC", "TANH"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert(op, case, tmp_path):
    xs, xz, shape = CASES[case]
    check_every_variant(model_of(op, xs, xz, shape), tmp_path, shape, seed=case, op=op, names=LOOKUP)


@needs_litert
@pytest.mark.parametrize("op", ["LOGISTIC", "TANH"])
def test_litert_output_quantisations(op, tmp_path):
    for i, out in enumerate(LITERT_OUTPUTS[op]):
        (tmp_path / str(i)).mkdir()
        check_every_variant(model_of(op, 0.04, -20, (300,), out), tmp_path / str(i), (300,), seed=i, op=op,
                            names=LOOKUP)


@needs_tflm
@pytest.mark.parametrize("op", ["LOGISTIC", "TANH"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_tflite_micro(op, case, tmp_path):
    xs, xz, shape = CASES[case]
    check_every_variant(model_of(op, xs, xz, shape), tmp_path, shape, seed=case, op=op, reference="tflm",
                        names=VARIANTS)


@needs_litert
@needs_tflm
@settings(max_examples=40, deadline=None)
@given(op=st.sampled_from(["LOGISTIC", "TANH"]), xs=st.floats(1e-3, 2.0), xz=st.integers(-128, 127),
       n=st.integers(1, 300))
def test_hypothesis(op, xs, xz, n, tmp_path_factory):
    content = model_of(op, xs, xz, (n,))
    for reference in ("litert", "tflm"):
        check_every_variant(content, tmp_path_factory.mktemp("lt"), (n,), seed=n, op=op, reference=reference,
                            names=names(reference))


@pytest.mark.parametrize("op", ["LOGISTIC", "TANH"])
@pytest.mark.parametrize("reference", ["litert", "tflm"])
def test_scratch_and_in_place(op, reference, ffi, lib, tmp_path):
    model = load(model_of(op, 0.03, -9, (3, 100)), tmp_path)
    fns = {"LOGISTIC": (lib.ap_logistic_s8_variants, lib.ap_logistic_s8_run),
           "TANH": (lib.ap_tanh_s8_variants, lib.ap_tanh_s8_run)}[op]
    check_scratch_and_in_place(ffi, lib, model, "ap_logistic_params", *fns, reference=reference,
                               names=names(reference))


@pytest.mark.parametrize("op", ["LOGISTIC", "TANH"])
def test_the_rules_agree_but_for_rare_roundings(op, tmp_path):
    """The float32 table and the fixed-point kernel agree within one step on every int8 value
    (and almost always exactly); they are not the same function: at input scale 0.0014966...
    and zero point -9 LiteRT's LOGISTIC of 38 is 5 and TensorFlow Lite Micro's 4 (found by a
    sweep over 600 scales, the only such value)."""
    x = np.arange(-128, 128, dtype=np.int8)
    for i, xs in enumerate(np.geomspace(0.002, 1.0, 24)):
        model = load(model_of(op, float(xs), 5, (256,)), tmp_path, f"m{i}")
        a, b = (ap.Interpreter(ap.plan(model, reference=r)).run(x).astype(int) for r in ("litert", "tflm"))
        assert int(np.abs(a - b).max()) <= 1
    if op == "LOGISTIC":
        model = load(model_of(op, 0.0014966270063119416, -9, (256,)), tmp_path, "differs")
        a, b = (ap.Interpreter(ap.plan(model, reference=r)).run(x).astype(int) for r in ("litert", "tflm"))
        assert list(np.nonzero(a != b)[0]) == [38 + 128] and (a[166], b[166]) == (5, 4)


def test_bad_quantisation_is_refused(tmp_path):
    model = load(model_of("LOGISTIC", 0.05, 0, (4,), (1.0 / 128, -128)), tmp_path, "a")
    with pytest.raises(UnsupportedModel, match=r"op 0 \(LOGISTIC\): output scale 0.0078125 is not 1/256"):
        ap.plan(model, reference="litert")
    model = load(model_of("LOGISTIC", 0.05, 0, (4,), (1.0 / 256, 0)), tmp_path, "b")
    ap.plan(model, reference="litert").verify()     # LiteRT's table takes the zero point
    with pytest.raises(UnsupportedModel, match=r"op 0 \(LOGISTIC\): output quantisation \(0.00390625, 0\): "
                                               r"TensorFlow Lite Micro's int8 LOGISTIC writes scale 1/256 and "
                                               r"zero point -128"):
        ap.plan(model, reference="tflm")
    model = load(model_of("TANH", 0.05, 0, (4,), (1.0 / 64, 0)), tmp_path, "c")
    ap.plan(model, reference="litert").verify()
    with pytest.raises(UnsupportedModel, match=r"op 0 \(TANH\): .*writes scale 1/128 and zero point 0"):
        ap.plan(model, reference="tflm")
    model = load(model_of("TANH", 0.05, 0, (4,), (2.0 ** -40, 0)), tmp_path, "d")
    with pytest.raises(UnsupportedModel, match=r"op 0 \(TANH\): output scale 9.09\d*e-13 is too small"):
        ap.plan(model, reference="litert")
    model = load(model_of("TANH", 2.0 ** -30, 0, (4,)), tmp_path, "e")
    ap.plan(model, reference="litert").verify()
    with pytest.raises(UnsupportedModel, match=r"op 0 \(TANH\): input scale 9.31\d*e-10 is below 2\^-28"):
        ap.plan(model, reference="tflm")


def test_bad_params_are_refused_by_the_kernel(tmp_path):
    model = load(model_of("TANH", 0.05, 0, (4,)), tmp_path)
    (litert,) = PlanContext.build(model, reference="litert").kernels
    (tflm,) = PlanContext.build(model, reference="tflm").kernels
    assert litert.spec["table_size"] == 256 and tflm.spec["table"] is None
    bad = [
        (litert, dict(table=None, table_size=0), "tanh: reference litert looks its outputs up in the params' "
                                                 "table: table must not be NULL and table_size 0 must be 256"),
        (tflm, dict(table=[0] * 256, table_size=256), "tanh: reference tflm computes its outputs in fixed point: "
                                                      "table must be NULL and table_size 256 must be 0"),
        (tflm, dict(input_multiplier=(1 << 30) - 1), r"input_multiplier 1073741823 must lie in \[2\^30"),
        (tflm, dict(input_left_shift=32), r"input_left_shift 32 must lie in \[0, 31\]"),
        (tflm, dict(input_range_radius=-1), "input_range_radius -1 must be >= 0"),
        (tflm, dict(reference=2), r"reference 2 is neither litert \(0\) nor tflm \(1\)"),
        (tflm, dict(input_zero_point=-129), r"input_zero_point -129 must lie in \[-128, 127\]"),
    ]
    for kernel, change, message in bad:
        with pytest.raises(ValueError, match=message):
            _core.kernel_variants(kernel.code, dict(kernel.spec, **change))
    with pytest.raises(ValueError, match=r"params field 'table'\[3\] = 128 is outside int8 \[-128, 127\]"):
        _core.kernel_variants(litert.code, dict(litert.spec, table=[0, 0, 0, 128] + [0] * 252))
    with pytest.raises(ValueError, match="params field 'table' has 255 values; table_size = 256 needs 256"):
        _core.kernel_variants(litert.code, dict(litert.spec, table=[0] * 255))
