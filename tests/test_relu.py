"""int8 RELU and int16 RELU / RELU6: one-op .tflite models built with the flatbuffer schema,
every variant on the portable and the AVX2 path inside a verified plan, bit-exact with
LiteRT's reference kernels (BUILTIN_REF) under reference "litert" and with the tflite-micro
interpreter under "tflm" (their multipliers differ: float32 and double quotients of the
scales) over random inputs and several scales and zero points; int16 (the 16x8 row, "direct"
only) over every 7th int16 value and both ends, hypothesis over the scales, the zero points
each runtime refuses refused under its reference naming the op, the C API in place."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from arenaplan.ops.lowering import HOST_ISA
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L

_LITERT = L.unavailable_reason()
VARIANTS = ["direct", "table"]
#: (input scale, input zero point, output scale, output zero point, shape)
CASES = [
    (0.05, 0, 0.05, 0, (1, 4, 4, 3)),          # the same quantisation: a plain clamp at 0
    (0.05, -128, 0.05, -128, (2, 33)),
    (0.1, 10, 0.025, -5, (1, 7, 5, 2)),        # the output range magnifies: saturates at 127
    (0.02, -3, 0.07, 120, (257,)),             # the zero point near the top: clamps from 120
    (0.3, 127, 0.01, -128, (3, 1, 9)),
    (1.0 / 255, -128, 1.0 / 127, 0, (64, 3)),
    (0.0123, 45, 0.0456, -77, (5, 5, 5)),
]


def host_isas() -> list:
    """The instruction sets this host runs natively; a plan's ISA picks its kernels."""
    return ["portable"] + (["x86-avx2"] if HOST_ISA == "x86-avx2" else [])


def relu_model(xs: float, xz: int, ys: float, yz: int, shape) -> bytes:
    tensors = [dict(shape=shape, dtype="int8", scale=xs, zero_point=xz),
               dict(shape=shape, dtype="int8", scale=ys, zero_point=yz)]
    return L.single_op_model("RELU", tensors, [0], [1], version=2)


def plans(model: ap.Model) -> dict:
    """{(variant, isa): plan} for every variant on every instruction set this host runs."""
    out = {}
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference="litert")
        (kernel,) = ctx.kernels
        assert [v.name for v in kernel.variants] == VARIANTS
        for name in VARIANTS:
            p = ctx.make([kernel.variant(name)], "size")
            assert p.verify() and p.isa == isa
            out[(name, isa)] = p
    return out


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_every_variant_matches_litert(case, tmp_path):
    xs, xz, ys, yz, shape = case
    content = relu_model(xs, xz, ys, yz, shape)
    path = tmp_path / "relu.tflite"
    path.write_bytes(content)
    model = ap.load_tflite(path)
    assert [op.type for op in model.operators] == ["RELU"]
    rng = np.random.default_rng(abs(hash(case)) % 2 ** 32)
    inputs = [rng.integers(-128, 128, size=shape, dtype=np.int8) for _ in range(3)]
    inputs.append(np.resize(np.arange(-128, 128, dtype=np.int8), shape))   # every int8 value
    wants = L.run_sequence(content, [[x] for x in inputs])[0]
    for (name, isa), p in plans(model).items():
        it = ap.Interpreter(p)
        for x, want in zip(inputs, wants):
            got = it.run(x)
            assert got.dtype == np.int8 and got.shape == want[0].shape
            np.testing.assert_array_equal(got, want[0], err_msg=f"{name}, {isa}, {case}")


def test_relu_params_are_checked(tmp_path):
    content = relu_model(0.05, 0, 0.05, 0, (4,))
    path = tmp_path / "relu.tflite"
    path.write_bytes(content)
    (kernel,) = PlanContext.build(ap.load_tflite(path), isa="portable", reference="litert").kernels
    assert kernel.spec["activation_min"] == 0 and kernel.spec["activation_max"] == 127
    code = kernel.code
    with pytest.raises(ValueError, match="relu: activation range"):
        _core.kernel_variants(code, dict(kernel.spec, activation_min=5, activation_max=4))
    with pytest.raises(ValueError, match="RELU: params field 'output_shift' = 4294967296"):
        _core.kernel_variants(code, dict(kernel.spec, output_shift=2 ** 32))
    with pytest.raises(ValueError, match="RELU: params field 'activation_max' .* is missing"):
        _core.kernel_variants(code, {k: v for k, v in kernel.spec.items() if k != "activation_max"})


@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_every_variant_matches_tflm(case, tmp_path):
    """reference "tflm": TFLite Micro's multiplier (the double quotient), equal to its interpreter."""
    from unary_s8 import check_every_variant
    xs, xz, ys, yz, shape = case
    check_every_variant(relu_model(xs, xz, ys, yz, shape), tmp_path, shape, op="RELU", reference="tflm")


# --- int16 (the 16x8 row): RELU and RELU6 -------------------------------------------------------
I16 = np.iinfo(np.int16)


def relu16_model(op: str, xs: float, xz: int, ys: float, yz: int, shape) -> bytes:
    tensors = [dict(shape=shape, dtype="int16", scale=xs, zero_point=xz),
               dict(shape=shape, dtype="int16", scale=ys, zero_point=yz)]
    return L.single_op_model(op, tensors, [0], [1], version=3)


def _write(tmp_path, content: bytes, name: str = "m"):
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(content)
    return path


def check16(content, tmp_path, shape, seed, references=("litert", "tflm")):
    """"direct" on each host ISA, in place, in a verified plan, equal to LiteRT under "litert" and
    to the tflite-micro interpreter under "tflm"."""
    from arenaplan.ops.lowering import TYPES_CODES
    from test_leaky_relu import int16_inputs
    from unary_s8 import tflm_outputs
    model = ap.load_tflite(_write(tmp_path, content))
    xs = int16_inputs(shape, seed)
    wants = {}
    for reference in references:
        wants[reference] = tflm_outputs(content, xs) if reference == "tflm" else \
            L.run_sequence(content, [[x] for x in xs])[0]
        for isa in host_isas():
            ctx = PlanContext.build(model, isa=isa, reference=reference)
            (k,) = ctx.kernels
            assert k.types == TYPES_CODES["s16x8"] and k.type == model.operators[0].type
            assert [(v.name, v.scratch, v.in_place) for v in k.variants] == [("direct", (), True)]
            p = ctx.make(k.variants, "size")
            assert p.verify()
            it = ap.Interpreter(p)
            for x, want in zip(xs, wants[reference]):
                got = it.run(x)
                assert got.dtype == np.int16
                np.testing.assert_array_equal(got, want[0].reshape(got.shape), err_msg=f"{isa} ({reference})")
    return wants


#: (op, input scale, output scale, shape): zero points 0
CASES_16 = [
    ("RELU", 1e-3, 1e-3, (1, 4, 4, 3)),
    ("RELU", 2e-3, 5e-4, (9363,)),          # the output range magnifies: saturates at 32767
    ("RELU", 1e-4, 3e-3, (2, 33)),
    ("RELU6", 1e-3, 1e-3, (3, 1, 9)),       # 6 / 1e-3: clamps at 6000
    ("RELU6", 0.05, 1e-4, (64, 3)),         # 6 / 1e-4 beyond int16: clamps at 32767
    ("RELU6", 3e-4, 2.5e-4, (1,)),
]


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
@pytest.mark.parametrize("case", range(len(CASES_16)))
def test_relu_16x8_matches_litert_and_tflm(case, tmp_path):
    op, xs, ys, shape = CASES_16[case]
    wants = check16(relu16_model(op, xs, 0, ys, 0, shape), tmp_path, shape, case)
    values = set(np.concatenate([w[0].ravel() for w in wants["litert"]]).tolist())
    if case in (1, 4):
        assert I16.max in values
    if case == 3:
        assert max(values) == 6000


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
@settings(max_examples=25, deadline=None)
@given(xs=st.floats(1e-5, 0.1), ys=st.floats(1e-5, 0.1), relu6=st.booleans(), n=st.integers(1, 300))
def test_relu_16x8_hypothesis(xs, ys, relu6, n, tmp_path_factory):
    check16(relu16_model("RELU6" if relu6 else "RELU", xs, 0, ys, 0, (n,)), tmp_path_factory.mktemp("r16"),
            (n,), n)


def test_relu_16x8_zero_points(tmp_path):
    """TensorFlow Lite Micro's int16 RELU6 takes zero points (equal to its interpreter under "tflm");
    LiteRT refuses them on both ops and TFLite Micro on RELU: refused there naming op 0."""
    content = relu16_model("RELU6", 1e-3, 300, 1e-3, -200, (3, 50))
    check16(content, tmp_path, (3, 50), 3, references=("tflm",))
    with pytest.raises(UnsupportedModel, match=r"op 0 \(RELU6\): input tensor 0 .* is int16 with zero point 300; "
                                               r"TFLite's 16x8 kernels require 0"):
        PlanContext.build(ap.load_tflite(_write(tmp_path, content, "a")), isa="portable", reference="litert")
    content = relu16_model("RELU", 1e-3, 0, 1e-3, 4, (3, 50))
    for reference in ("litert", "tflm"):
        with pytest.raises(UnsupportedModel, match=r"op 0 \(RELU\): output tensor 1 .* is int16 with zero point 4"):
            PlanContext.build(ap.load_tflite(_write(tmp_path, content, "b")), isa="portable", reference=reference)
    # int8 RELU6 runs on the int8 row (tests/test_relu6.py holds it to LiteRT and TFLite Micro)
    int8_relu6 = L.single_op_model("RELU6", [dict(shape=(4,), dtype="int8", scale=0.1, zero_point=0),
                                             dict(shape=(4,), dtype="int8", scale=0.1, zero_point=0)], [0], [1])
    assert ap.plan(ap.load_tflite(_write(tmp_path, int8_relu6, "c"))).verify()


def test_relu_16x8_c_api_in_place(ffi, lib, tmp_path):
    """Through the C API: "direct" asks for no scratch and writes the Interpreter's outputs over
    every int16 value, in place and not, between guard bytes; a range beyond int16 is refused."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
    from ops_harness import Guarded, guarded_from, message, variants
    model = ap.load_tflite(_write(tmp_path, relu16_model("RELU6", 1e-3, 0, 2e-4, 0, (65536,))))
    (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    p = ffi.new("ap_relu_params *")
    for key, value in kernel.spec.items():
        setattr(p, key, value)
    x = np.arange(I16.min, I16.max + 1).astype(np.int16)
    want = ap.Interpreter(ap.plan(model, mode="size")).run(x)
    (v,) = variants(ffi, lib, lib.ap_relu_s16_variants, p)
    assert ffi.string(v.name).decode() == "direct" and v.scratch_count == 0 and v.in_place
    for in_place in (False, True):
        inp = guarded_from(ffi, x.view(np.int8))
        out = inp if in_place else Guarded(ffi, 2 * x.size, fill=0x5A)
        call = ffi.new("ap_op_call *")
        ins = ffi.new("void *[]", [inp.ptr])
        call.params, call.variant, call.inputs, call.input_count, call.output = p, v, ins, 1, out.ptr
        err = ffi.new("ap_error *")
        assert lib.ap_relu_s16_run(call, lib.AP_ISA_PORTABLE, err) == lib.AP_OK, message(ffi, err)
        assert inp.intact() and out.intact()
        np.testing.assert_array_equal(out.view(np.int8).view(np.int16), want)
    p.activation_max = 32768
    assert lib.ap_relu_s16_run(call, lib.AP_ISA_PORTABLE, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert "activation range [0, 32768] must lie within [-32768, 32767]" in message(ffi, err)


def test_tflm_relu6_16x8_clamps_in_the_input_quantisation(tmp_path):
    """TensorFlow Lite Micro's int16 RELU6 clamps the input to [0, 6 / input_scale] and rescales
    nothing (LiteRT rescales to the output's scale first): under "tflm" arenaplan gives its
    outputs, 120 for every input >= 120 at input scale 0.05, whatever the output scale."""
    content = relu16_model("RELU6", 0.05, 0, 1e-4, 0, (8,))
    (k,) = PlanContext.build(ap.load_tflite(_write(tmp_path, content)), isa="portable", reference="tflm").kernels
    assert (k.spec["activation_min"], k.spec["activation_max"], k.spec["output_multiplier"]) == (0, 120, 1 << 30)
    check16(content, tmp_path, (8,), 1, references=("tflm",))
