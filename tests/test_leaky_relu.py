"""int8 and int16 LEAKY_RELU: one-op .tflite models built with the flatbuffer schema, the direct
and table variants on every instruction set this host runs inside a verified plan, bit-exact
with LiteRT's reference kernels (BUILTIN_REF) over every int8 value and several scales, zero
points and alphas (saturating outputs, zero points at the ends, alpha 0 and alpha > 1);
hypothesis over the quantisation; the table's scratch exactly and one byte short, and in
place, through the C API; a negative alpha and an out-of-range multiplier refused.
int16 (the 16x8 row, "direct" only): every 7th int16 value and both ends against LiteRT and
the tflite-micro interpreter with zero points 0; under reference "tflm" the zero points
TensorFlow Lite Micro takes (LiteRT refuses them, and so does arenaplan under "litert")."""
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


@pytest.mark.parametrize("case", range(len(CASES)))
def test_leaky_relu_matches_tflm(case, tmp_path):
    """reference "tflm": TFLite Micro's multipliers (double quotients), equal to its interpreter."""
    *q, shape = CASES[case]
    check_every_variant(leaky_model(*q, shape), tmp_path, shape, seed=case, op="LEAKY_RELU", reference="tflm")


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


# --- int16 (the 16x8 row) ------------------------------------------------------------------------
I16 = np.iinfo(np.int16)


def leaky16_model(xs, xz, ys, yz, alpha, shape) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = S.LeakyReluOptionsT()
    o.alpha = alpha
    tensors = [dict(shape=shape, dtype="int16", scale=xs, zero_point=xz),
               dict(shape=shape, dtype="int16", scale=ys, zero_point=yz)]
    return L.single_op_model("LEAKY_RELU", tensors, [0], [1], "LeakyReluOptions", o, version=2)


def int16_inputs(shape, seed):
    """Random int16 tensors, a ramp through every 7th int16 value (both ends), all -32768, all 32767."""
    rng = np.random.default_rng(seed)
    xs = [rng.integers(I16.min, I16.max + 1, size=shape).astype(np.int16) for _ in range(2)]
    ramp = np.append(np.arange(I16.min, I16.max, 7), I16.max).astype(np.int16)
    return xs + [np.resize(ramp, shape), np.full(shape, I16.min, np.int16), np.full(shape, I16.max, np.int16)]


def check16(content, tmp_path, shape, seed, references=("litert", "tflm")):
    """The direct variant on each host ISA, in place, in a verified plan, equal to LiteRT under
    reference "litert" and to the tflite-micro interpreter under "tflm" (the two differ by one
    where their multipliers do: LiteRT divides the scales in float32, TFLite Micro in double)."""
    from arenaplan.ops.lowering import TYPES_CODES
    from unary_s8 import host_isas, tflm_outputs
    model = load(content, tmp_path)
    xs = int16_inputs(shape, seed)
    for reference in references:
        wants = tflm_outputs(content, xs) if reference == "tflm" else L.run_sequence(content, [[x] for x in xs])[0]
        check16_plans(model, xs, wants, reference)
    return wants


def check16_plans(model, xs, wants, reference):
    from arenaplan.ops.lowering import TYPES_CODES
    from unary_s8 import host_isas
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference=reference)
        (kernel,) = ctx.kernels
        assert kernel.types == TYPES_CODES["s16x8"]
        assert [(v.name, v.scratch, v.in_place) for v in kernel.variants] == [("direct", (), True)]
        p = ctx.make(kernel.variants, "size")
        assert p.verify()
        it = ap.Interpreter(p)
        for x, want in zip(xs, wants):
            got = it.run(x)
            assert got.dtype == np.int16
            np.testing.assert_array_equal(got, want[0].reshape(got.shape), err_msg=f"{isa} ({reference})")


#: (input scale, output scale, alpha, shape): zero points 0, as LiteRT's int16 kernel requires
CASES_16 = [
    (1e-3, 1e-3, 0.2, (1, 4, 4, 3)),
    (2e-3, 5e-4, 0.3, (9363,)),         # the output range magnifies: both ends of int16 saturate
    (1e-4, 3e-3, 0.01, (2, 33)),
    (5e-3, 1e-3, 0.0, (3, 1, 9)),       # alpha 0: a RELU
    (1.0 / 32768, 1.0 / 16384, 1.5, (64, 3)),   # alpha > 1
    (0.0123, 0.0456, 0.5, (1,)),
]


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES_16)))
def test_leaky_relu_16x8_matches_litert_and_tflm(case, tmp_path):
    xs, ys, alpha, shape = CASES_16[case]
    wants = check16(leaky16_model(xs, 0, ys, 0, alpha, shape), tmp_path, shape, case)
    if case == 1:   # (TFLite Micro's outputs)
        values = set(np.concatenate([w[0].ravel() for w in wants]).tolist())
        assert {I16.min, I16.max} <= values


@pytest.mark.parametrize("xz, yz", [(100, -7), (-32768, 32767), (32767, 0)])
def test_leaky_relu_16x8_tflm_takes_zero_points(xz, yz, tmp_path):
    """reference "tflm": TensorFlow Lite Micro's int16 LEAKY_RELU subtracts and adds zero points
    (its Prepare does not refuse them); equal to its interpreter. LiteRT refuses such a model
    and so does arenaplan under "litert", naming the op and the tensor."""
    content = leaky16_model(2e-3, xz, 1e-3, yz, 0.25, (3, 50))
    check16(content, tmp_path, (3, 50), 7, references=("tflm",))
    with pytest.raises(UnsupportedModel, match=r"op 0 \(LEAKY_RELU\): (input|output) tensor \d .* is int16 with "
                                               r"zero point -?\d+; TFLite's 16x8 kernels require 0"):
        PlanContext.build(load(content, tmp_path, "l"), isa="portable", reference="litert")


@needs_litert
@settings(max_examples=25, deadline=None)
@given(xs=st.floats(1e-5, 0.1), ys=st.floats(1e-5, 0.1), alpha=st.floats(0.0, 3.0), n=st.integers(1, 300))
def test_leaky_relu_16x8_hypothesis(xs, ys, alpha, n, tmp_path_factory):
    check16(leaky16_model(xs, 0, ys, 0, alpha, (n,)), tmp_path_factory.mktemp("lr16"), (n,), n)


def test_leaky_relu_16x8_c_api_in_place(ffi, lib, tmp_path):
    """Through the C API: "direct" asks for no scratch and writes the Interpreter's outputs over
    every int16 value, in place and not, between guard bytes; an int16 zero point beyond int16
    and a non-direct kind are refused."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
    from ops_harness import Guarded, guarded_from, message, variants
    model = load(leaky16_model(1e-3, 0, 4e-4, 0, 0.2, (65536,)), tmp_path)
    (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    p = ffi.new("ap_leaky_relu_params *")
    for key, value in kernel.spec.items():
        setattr(p, key, value)
    x = np.arange(I16.min, I16.max + 1).astype(np.int16)
    want = ap.Interpreter(ap.plan(model, mode="size")).run(x)
    (v,) = variants(ffi, lib, lib.ap_leaky_relu_s16_variants, p)
    assert ffi.string(v.name).decode() == "direct" and v.scratch_count == 0 and v.in_place
    for in_place in (False, True):
        inp = guarded_from(ffi, x.view(np.int8))
        out = inp if in_place else Guarded(ffi, 2 * x.size, fill=0x5A)
        call = ffi.new("ap_op_call *")
        ins = ffi.new("void *[]", [inp.ptr])
        call.params, call.variant, call.inputs, call.input_count, call.output = p, v, ins, 1, out.ptr
        err = ffi.new("ap_error *")
        assert lib.ap_leaky_relu_s16_run(call, lib.AP_ISA_PORTABLE, err) == lib.AP_OK, message(ffi, err)
        assert inp.intact() and out.intact()
        np.testing.assert_array_equal(out.view(np.int8).view(np.int16), want)
    p.input_zero_point = 32768
    err = ffi.new("ap_error *")
    assert lib.ap_leaky_relu_s16_run(call, lib.AP_ISA_PORTABLE, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert "zero points 32768 and 0 must lie in [-32768, 32767]" in message(ffi, err)


def test_leaky_relu_multipliers_follow_the_reference(tmp_path):
    """Scales whose float32 and double quotients give different multipliers: under "litert" the
    outputs are LiteRT's, under "tflm" the tflite-micro interpreter's, which differ by one at
    some inputs (int8 and int16 alike)."""
    from unary_s8 import tflm_outputs
    xs, ys = 0.06646956181464474, 0.05669249164835382
    content = leaky16_model(xs, 0, ys, 0, 0.2, (176,))
    x = int16_inputs((176,), 176)
    micro = tflm_outputs(content, x)
    if _LITERT is None:
        lite = L.run_sequence(content, [[v] for v in x])[0]
        assert any((a[0] != b[0]).any() for a, b in zip(lite, micro))   # the runtimes differ here
    check16(content, tmp_path, (176,), 176, references=("tflm",) if _LITERT else ("litert", "tflm"))
    (lit,) = PlanContext.build(load(content, tmp_path, "a"), isa="portable", reference="litert").kernels
    (tfl,) = PlanContext.build(load(content, tmp_path, "b"), isa="portable", reference="tflm").kernels
    assert (lit.spec["identity_multiplier"], tfl.spec["identity_multiplier"]) == (1258917120, 1258917172)
    # int8 under "tflm": the same double quotients, equal to TFLite Micro's interpreter
    check_every_variant(leaky_model(xs, 3, ys, -5, 0.2, (2, 128)), tmp_path, (2, 128), op="LEAKY_RELU",
                        reference="tflm")
