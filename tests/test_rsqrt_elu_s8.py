"""int8 RSQRT (rsqrt_s8.c: TFLite's RsqrtEvalQuantized, its Newton-Raphson 1/sqrt in fixed point)
and int8 ELU (elu_s8.c: the 256-entry table TFLite builds, computed when the plan is made):
one-op models written with the tflite schema, every variant on every host ISA in a verified plan
against LiteRT (rule "litert"; its BUILTIN_REF resolver has no ELU, so its builtin kernel) and
TensorFlow Lite Micro's interpreter (rule "tflm") over every input value, zero points at the ends
and scales over three decades; the rules' differences (RSQRT's multiplier in float32 or double,
ELU's expm1f or expf - 1); hypothesis over shapes and quantisations; the poisoned arena; the
table variant's scratch and in place through the C API; an RSQRT input below its zero point a run
error, as in LiteRT; refusals naming the op."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import ArenaplanError, UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from poisoned_arena import poisoned_run
from test_math_f32 import litert_outputs
from unary_s8 import LOOKUP, VARIANTS, check_scratch_and_in_place, host_isas, load, tflm_outputs, unary_model

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
RULES = ["litert", "tflm"]
#: (input scale, input zero point, output scale, output zero point), the zero points at the ends too
QUANTS = [(0.05, 3, 0.1, -20), (0.02, -128, 0.5, 127), (0.3, 127, 0.004, -128), (0.001, -60, 0.2, 0),
          (0.0371, -5, 0.0219, 60)]


def feeds(op: str, shape, xz: int, seed: int) -> list:
    """Random inputs, every input value, all at the ends; RSQRT's at or above the input zero
    point only (TFLite fails the op below it)."""
    rng = np.random.default_rng(seed)
    lo = xz if op == "RSQRT" else -128
    every = np.arange(lo, 128, dtype=np.int8)
    return [rng.integers(lo, 128, size=shape).astype(np.int8) for _ in range(2)] + \
        [np.resize(every, shape), np.full(shape, lo, np.int8), np.full(shape, 127, np.int8)]


def check(op: str, content: bytes, tmp_path, xs: list, reference: str) -> ap.Model:
    """Every variant on every host ISA in a verified plan under ``reference`` equals that rule's
    interpreter (LiteRT or TensorFlow Lite Micro) on ``xs``; the poisoned arena."""
    model = load(content, tmp_path)
    wants = [w[0] for w in tflm_outputs(content, xs)] if reference == "tflm" else litert_outputs(op, content, xs)
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference=reference)
        (kernel,) = ctx.kernels
        assert [v.name for v in kernel.variants] == (VARIANTS if op == "RSQRT" else LOOKUP)
        assert all(v.in_place for v in kernel.variants)
        for v in kernel.variants:
            p = ctx.make([v], "size")
            assert p.verify() and p.isa == isa and p.reference == reference
            it = ap.Interpreter(p)
            for x, want in zip(xs, wants):
                got = it.run(x)
                assert got.dtype == np.int8 and got.shape == want.shape
                np.testing.assert_array_equal(got, want, err_msg=f"{op} {v.name} on {isa} ({reference})")
    poisoned_run(model, xs[0], reference=reference)
    return model


@needs_litert
@pytest.mark.parametrize("op", ["RSQRT", "ELU"])
@pytest.mark.parametrize("quant", range(len(QUANTS)))
@pytest.mark.parametrize("reference", RULES)
def test_matches_each_rules_interpreter(op, quant, reference, tmp_path):
    xs, xz, ys, yz = QUANTS[quant]
    shape = (2, 3, 50) if quant % 2 else (300,)
    check(op, unary_model(op, shape, xs, xz, ys, yz, version=1), tmp_path, feeds(op, shape, xz, quant), reference)


@needs_litert
def test_rsqrt_multiplier_follows_the_rule(tmp_path):
    """LiteRT forms 1 / (sqrt(input_scale) * output_scale) from float32 sqrt and product,
    TensorFlow Lite Micro in double: for these scales the multipliers differ (1139796231 and
    1139796285); each rule's plan equals its interpreter on every input."""
    content = unary_model("RSQRT", (256,), 0.08144886791706085, -128, 0.006447036750614643, -128, version=1)
    model = load(content, tmp_path)
    specs = {r: PlanContext.build(model, isa="portable", reference=r).kernels[0].spec for r in RULES}
    assert (specs["litert"]["multiplier"], specs["tflm"]["multiplier"]) == (1139796231, 1139796285)
    for reference in RULES:
        check("RSQRT", content, tmp_path, feeds("RSQRT", (256,), -128, 0), reference)


@needs_litert
def test_elu_table_follows_the_rule(tmp_path):
    """LiteRT's table takes expm1f, TensorFlow Lite Micro's expf - 1: for these scales the two
    tables differ in one entry, and each rule's plan equals its interpreter."""
    content = unary_model("ELU", (256,), 0.0001536663039587438, -39, 0.00025011386605910957, -75, version=1)
    model = load(content, tmp_path)
    tables = {r: PlanContext.build(model, isa="portable", reference=r).kernels[0].spec["table"] for r in RULES}
    assert sum(a != b for a, b in zip(tables["litert"], tables["tflm"])) == 1
    x = np.arange(-128, 128, dtype=np.int8)
    assert (litert_outputs("ELU", content, [x])[0] != tflm_outputs(content, [x])[0][0]).sum() == 1
    for reference in RULES:
        check("ELU", content, tmp_path, [x], reference)


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    op = data.draw(st.sampled_from(["RSQRT", "ELU"]))
    shape = tuple(data.draw(st.lists(st.integers(1, 6), min_size=1, max_size=4)))
    xs = float(np.float32(10 ** data.draw(st.floats(-3, 0))))
    ys = float(np.float32(10 ** data.draw(st.floats(-2.5, 0))))
    xz, yz = data.draw(st.integers(-128, 127)), data.draw(st.integers(-128, 127))
    reference = data.draw(st.sampled_from(RULES))
    content = unary_model(op, shape, xs, xz, ys, yz, version=1)
    try:
        load(content, tmp_path_factory.mktemp("p"))
        ap.plan(load(content, tmp_path_factory.mktemp("q")), reference=reference)
    except UnsupportedModel as exc:   # scales whose multiplier TFLite's kernel cannot shift
        assert "RSQRT" in str(exc) and "shift" in str(exc)
        return
    check(op, content, tmp_path_factory.mktemp("h"), feeds(op, shape, xz, len(shape)), reference)


@needs_litert
def test_rsqrt_below_the_zero_point_fails_the_run(tmp_path):
    """TFLite's RSQRT fails on an input below the input zero point ("only defined for positive
    values"); arenaplan's run fails naming the element, before writing anything."""
    content = unary_model("RSQRT", (4,), 0.05, 3, 0.1, 0, version=1)
    x = np.array([3, 10, 2, 127], np.int8)
    with pytest.raises(Exception):
        L.run_single_op(content, [x])
    it = ap.Interpreter(ap.plan(load(content, tmp_path)))
    with pytest.raises(ArenaplanError, match=r"rsqrt: input element 2 \(2\) is below the input zero point 3"):
        it.run(x)


def test_scratch_and_in_place_through_the_c_api(ffi, lib, tmp_path):
    for reference in RULES:
        model = load(unary_model("RSQRT", (5, 60), 0.04, -128, 0.03, 10, version=1), tmp_path, f"r{reference}")
        check_scratch_and_in_place(ffi, lib, model, "ap_rsqrt_s8_params", lib.ap_rsqrt_s8_variants,
                                   lib.ap_rsqrt_s8_run, reference)
        model = load(unary_model("ELU", (5, 60), 0.04, 7, 0.03, 10, version=1), tmp_path, f"e{reference}")
        check_scratch_and_in_place(ffi, lib, model, "ap_elu_s8_params", lib.ap_elu_s8_variants, lib.ap_elu_s8_run,
                                   reference, names=LOOKUP)


def test_refusals_name_the_op(tmp_path):
    cases = [
        (unary_model("RSQRT", (4,), 1e4, 0, 1e3, 0, version=1),
         r"op 0 \(RSQRT\): 1 / \(sqrt\(input scale 10000.0\) \* output scale 1000.0\) = 1e-05 needs a shift of -16"),
        (unary_model("ELU", (4,), 1.0, 0, 1e-8, 0, version=1),
         r"op 0 \(ELU\): input scale 1.0 over output scale .*: TFLite's table of the outputs overflows int32"),
    ]
    for k, (content, pattern) in enumerate(cases):
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, f"m{k}"))


def test_bad_params_are_refused_by_the_kernel():
    from arenaplan import _core
    from arenaplan.ops.lowering import TYPES_CODES
    codes = {r["name"]: r["code"] for r in _core.ops() if r["types"] == "s8"}
    s8 = TYPES_CODES["s8"]
    with pytest.raises(ValueError, match="shift 31 in \\[-11, 30\\]"):
        _core.kernel_variants(codes["RSQRT"], {"count": 4, "input_zero_point": 0, "output_zero_point": 0,
                                               "multiplier": 1 << 30, "shift": 31}, 0, s8)
    with pytest.raises(ValueError, match="table_size 255 must be 256"):
        _core.kernel_variants(codes["ELU"], {"count": 4, "table_size": 255, "table": [0] * 255}, 0, s8)
