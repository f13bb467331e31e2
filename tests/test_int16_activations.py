"""The int16 SOFTMAX, LOGISTIC and TANH rows (int16 in and out): one-op .tflite models built with
the flatbuffer schema, every variant on every instruction set this host runs inside a verified
plan, under both rounding rules: reference "litert" bit-exact with LiteRT's reference kernels
(BUILTIN_REF), reference "tflm" with TensorFlow Lite Micro's interpreter (the tflite-micro
package). SOFTMAX over rows of random values, the int16 extremes, equal values, one-element
rows and size-1 dims, at input scales and betas whose multipliers shift left and right; rows
where the two rules' tables differ; LOGISTIC and TANH over every int16 value at power-of-two
scales (TFLite's 3 << shift path) and others; hypothesis over scales, beta and shapes; the
poisoned arena; the exp cache's scratch exactly and one byte short through the C API; the
quantisations TFLite refuses, refused when the plan is made; bad params refused by the
kernels."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import UnsupportedModel
from arenaplan.ops.lowering import HOST_ISA
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from poisoned_arena import poisoned_run

sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
from ops_harness import Guarded, guarded_from, message, scratch_for, variants  # noqa: E402

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
try:
    import tflite_micro  # noqa: F401
    _TFLM = None
except ImportError as exc:  # pragma: no cover - the test extra pins it for x86-64
    _TFLM = f"tflite-micro is not importable ({exc})"
needs_tflm = pytest.mark.skipif(_TFLM is not None, reason=str(_TFLM))

I16 = np.iinfo(np.int16)
OUT_SCALE = 1.0 / 32768
REFERENCES = ["litert", "tflm"]

#: Rows (input scale 5e-4, beta 1) whose sums fall where LiteRT's double tables and TensorFlow
#: Lite Micro's float32 ones differ (1 / (1 + x) entries 160 and 294): the rules' outputs differ.
SPLIT_ROWS = np.array([
    [0, -2176, -515, -1287, -5983, -299, -4234, -1762, -5685, -1442, -5011, -505, -1055, -4922, -5492, -5254],
    [0, -1123, -2523, -5840, -538, -6330, -6066, -1723, -2528, -3470, -674, -3458, -7459, -3239, -7120, -1529],
    [0, -1371, -3755, -4998, -2816, -5053, -7311, -4439, -3130, -4801, -7790, -4629, -7509, -1963, -5312, -5512]],
    dtype=np.int16)


def host_isas() -> list:
    return ["portable"] + (["x86-avx2"] if HOST_ISA == "x86-avx2" else [])


def softmax_model(shape, xs: float, beta: float = 1.0, xz: int = 0, ys: float = OUT_SCALE, yz: int = 0) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = S.SoftmaxOptionsT()
    o.beta = beta
    tensors = [dict(shape=shape, dtype="int16", scale=xs, zero_point=xz),
               dict(shape=shape, dtype="int16", scale=ys, zero_point=yz)]
    return L.single_op_model("SOFTMAX", tensors, [0], [1], "SoftmaxOptions", o, version=3)


def sigmoid_model(op: str, shape, xs: float, xz: int = 0, ys: float = OUT_SCALE, yz: int = 0) -> bytes:
    tensors = [dict(shape=shape, dtype="int16", scale=xs, zero_point=xz),
               dict(shape=shape, dtype="int16", scale=ys, zero_point=yz)]
    return L.single_op_model(op, tensors, [0], [1], version=3)


def load(content: bytes, tmp_path, name="m") -> ap.Model:
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(content)
    return ap.load_tflite(path)


def tflm_outputs(content: bytes, xs: list) -> list:
    from tflite_micro.python.tflite_micro import runtime
    micro = runtime.Interpreter.from_bytes(content, arena_size=1 << 21)
    out = []
    for x in xs:
        micro.set_input(x, 0)
        micro.invoke()
        out.append(np.array(micro.get_output(0)))
    return out


def references(content: bytes, xs: list, reference: str) -> list:
    if reference == "tflm":
        return tflm_outputs(content, xs)
    return [o[0] for o in L.run_sequence(content, [[x] for x in xs])[0]]


def softmax_inputs(shape, seed: int) -> list:
    """Random int16 rows, rows near their maximum (every exp counts), then all -32768, all
    32767 (equal values), and rows holding both extremes."""
    rng = np.random.default_rng(seed)
    xs = [rng.integers(I16.min, I16.max + 1, size=shape).astype(np.int16),
          rng.integers(-3000, 3000, size=shape).astype(np.int16)]
    mixed = np.resize(np.array([I16.min, I16.max, 0, -1], np.int16), shape)
    return xs + [np.full(shape, I16.min, np.int16), np.full(shape, I16.max, np.int16), mixed]


def check_every_variant(content: bytes, tmp_path, xs: list, reference: str, names: list,
                        scratch_of=lambda v: ()) -> ap.Model:
    """Each variant (``names``) on each host ISA in a verified plan equals the reference on ``xs``."""
    model = load(content, tmp_path)
    wants = references(content, xs, reference)
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference=reference)
        (kernel,) = ctx.kernels
        assert [v.name for v in kernel.variants] == names
        for v in kernel.variants:
            assert v.scratch == scratch_of(v)
            p = ctx.make([v], "size")
            assert p.verify() and p.isa == isa and p.reference == reference
            it = ap.Interpreter(p)
            for x, want in zip(xs, wants):
                got = it.run(x)
                assert got.dtype == np.int16 and got.shape == want.shape
                np.testing.assert_array_equal(got, want, err_msg=f"{v.name} on {isa} ({reference})")
    return model


def softmax_scratch(depth: int):
    return lambda v: (((2 * depth, 16),) if v.name == "exp_cache" else ())


#: (input scale, beta, shape): shifts of the input multiplier from -1 to 6, one-element rows,
#: size-1 dims, a long row.
SOFTMAX_CASES = [
    (0.001, 1.0, (4, 10)),
    (3e-4, 1.0, (3, 100)),
    (2.0 ** -12, 1.0, (2, 1, 50)),
    (0.0123, 0.7, (8, 7)),
    (3e-5, 2.0, (5, 300)),
    (0.05, 1.0, (1, 1, 1, 6)),
    (0.001, 1.0, (7, 1)),              # one element a row: every output 32767
    (1e-4, 0.25, (2, 2, 2, 1000)),
]


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("case", range(len(SOFTMAX_CASES)))
def test_softmax_matches(reference, case, tmp_path):
    if _LITERT if reference == "litert" else _TFLM:
        pytest.skip(str(_LITERT if reference == "litert" else _TFLM))
    xs, beta, shape = SOFTMAX_CASES[case]
    check_every_variant(softmax_model(shape, xs, beta), tmp_path, softmax_inputs(shape, case), reference,
                        ["direct", "exp_cache"], softmax_scratch(shape[-1]))


@needs_litert
@needs_tflm
def test_softmax_rules_differ_where_the_tables_do(tmp_path):
    """LiteRT forms the reciprocal table in double, TensorFlow Lite Micro in float32: on these
    rows the two differ, and each rule gives its runtime's outputs."""
    content = softmax_model(SPLIT_ROWS.shape, 5e-4)
    model = load(content, tmp_path)
    got = {}
    for reference in REFERENCES:
        want = references(content, [SPLIT_ROWS], reference)[0]
        got[reference] = ap.Interpreter(ap.plan(model, reference=reference)).run(SPLIT_ROWS)
        np.testing.assert_array_equal(got[reference], want, err_msg=reference)
    assert (got["litert"] != got["tflm"]).any()
    assert int(np.abs(got["litert"].astype(int) - got["tflm"]).max()) == 1


#: (input scale): 2^-12 (LOGISTIC's and TANH's power-of-two path), 2^-11 (TANH's too; LOGISTIC
#: multiplies), small scales (the shift runs to 31), a large one (most inputs saturate).
SIGMOID_SCALES = [2.0 ** -12, 2.0 ** -11, 2.0 ** -13, 0.001, 3e-4, 0.37, 3e-7, 5.0]


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("op", ["LOGISTIC", "TANH"])
@pytest.mark.parametrize("xs", SIGMOID_SCALES)
def test_sigmoid_every_value(reference, op, xs, tmp_path):
    if _LITERT if reference == "litert" else _TFLM:
        pytest.skip(str(_LITERT if reference == "litert" else _TFLM))
    x = np.arange(I16.min, I16.max + 1, dtype=np.int16)
    check_every_variant(sigmoid_model(op, x.shape, xs), tmp_path, [x], reference, ["direct"])


@needs_litert
@pytest.mark.parametrize("op", ["LOGISTIC", "TANH"])
def test_sigmoid_shapes(op, tmp_path):
    """Size-1 dims and one element; the rules agree (they share kernel and Prepare)."""
    for i, shape in enumerate([(1,), (1, 1, 3, 1), (2, 3, 5)]):
        rng = np.random.default_rng(i)
        xs = [rng.integers(I16.min, I16.max + 1, size=shape).astype(np.int16), np.full(shape, I16.min, np.int16),
              np.full(shape, I16.max, np.int16)]
        (tmp_path / str(i)).mkdir()
        model = check_every_variant(sigmoid_model(op, shape, 0.0007), tmp_path / str(i), xs, "litert", ["direct"])
        assert all(v.in_place for v in PlanContext.build(model).kernels[0].variants)


@needs_litert
@needs_tflm
@settings(max_examples=25, deadline=None)
@given(xs=st.floats(1e-6, 0.05), beta=st.sampled_from([0.5, 1.0, 1.7]), outer=st.integers(1, 4),
       depth=st.integers(1, 80), seed=st.integers(0, 2 ** 16))
def test_softmax_hypothesis(xs, beta, outer, depth, seed, tmp_path_factory):
    shape = (outer, depth)
    content = softmax_model(shape, xs, beta)
    xs_in = softmax_inputs(shape, seed)[:2]
    for reference in REFERENCES:
        check_every_variant(content, tmp_path_factory.mktemp("sm"), xs_in, reference, ["direct", "exp_cache"],
                            softmax_scratch(depth))


@needs_litert
@needs_tflm
@settings(max_examples=25, deadline=None)
@given(op=st.sampled_from(["LOGISTIC", "TANH"]), log2=st.floats(-24.0, 2.0), n=st.integers(1, 300),
       seed=st.integers(0, 2 ** 16))
def test_sigmoid_hypothesis(op, log2, n, seed, tmp_path_factory):
    xs = float(np.float32(2.0 ** log2))
    content = sigmoid_model(op, (n,), xs)
    rng = np.random.default_rng(seed)
    x = [rng.integers(I16.min, I16.max + 1, size=(n,)).astype(np.int16)]
    for reference in REFERENCES:
        check_every_variant(content, tmp_path_factory.mktemp("sg"), x, reference, ["direct"])


@pytest.mark.parametrize("reference", REFERENCES)
def test_poisoned_arena(reference, tmp_path):
    rng = np.random.default_rng(4)
    for i, (content, shape) in enumerate([(softmax_model((3, 40), 0.001), (3, 40)),
                                          (sigmoid_model("LOGISTIC", (3, 40), 0.001), (3, 40)),
                                          (sigmoid_model("TANH", (3, 40), 2.0 ** -11), (3, 40))]):
        model = load(content, tmp_path, f"m{i}")
        x = rng.integers(I16.min, I16.max + 1, size=shape).astype(np.int16)
        for mode in ("size", "speed"):
            poisoned_run(model, x, mode=mode, reference=reference)


def _c_params(ffi, kernel, params_type: str):
    p = ffi.new(f"{params_type} *")
    keep = []
    for key, value in kernel.spec.items():
        if isinstance(value, list):
            keep.append(ffi.new("int16_t[]", value))
            value = keep[-1]
        setattr(p, key, value)
    return p, keep


def _run(ffi, lib, fn, p, v, x, out, scr, scratch_count):
    call = ffi.new("ap_op_call *")
    ins = ffi.new("void *[]", [x.ptr])
    call.params, call.variant, call.inputs, call.input_count = p, v, ins, 1
    call.output, call.scratch, call.scratch_count = out.ptr, scr, scratch_count
    err = ffi.new("ap_error *")
    return fn(call, lib.AP_ISA_PORTABLE, err), err


@pytest.mark.parametrize("reference", REFERENCES)
def test_softmax_scratch_through_the_c_api(reference, ffi, lib, tmp_path):
    """Each variant with exactly its scratch between guard bytes writes the Interpreter's
    output; the exp cache one byte short is AP_ERR_SCRATCH_TOO_SMALL naming its 2 * depth bytes,
    writing nothing."""
    shape = (3, 37)
    model = load(softmax_model(shape, 0.0009), tmp_path)
    (kernel,) = PlanContext.build(model, isa="portable", reference=reference).kernels
    p, keep = _c_params(ffi, kernel, "ap_softmax_s16_params")
    x = softmax_inputs(shape, 1)[0]
    want = ap.Interpreter(ap.plan(model, reference=reference)).run(x).reshape(-1)
    listed = variants(ffi, lib, lib.ap_softmax_s16_variants, p)
    assert [ffi.string(v.name).decode() for v in listed] == ["direct", "exp_cache"]
    for v in listed:
        for short in ([None, 0] if v.scratch_count else [None]):
            inp = guarded_from(ffi, x.reshape(-1))
            out = Guarded(ffi, x.nbytes, fill=0x5A)
            before = out.payload.copy()
            scr, bufs = scratch_for(ffi, v, short)
            status, err = _run(ffi, lib, lib.ap_softmax_s16_run, p, v, inp, out, scr, v.scratch_count)
            assert inp.intact() and out.intact() and all(b.intact() for b in bufs)
            if short is None:
                assert status == lib.AP_OK, message(ffi, err)
                np.testing.assert_array_equal(out.view(np.int16), want)
            else:
                assert status == lib.AP_ERR_SCRATCH_TOO_SMALL
                assert err.needed == 2 * 37 and err.available == 2 * 37 - 1, message(ffi, err)
                np.testing.assert_array_equal(out.payload, before)


@pytest.mark.parametrize("op", ["LOGISTIC", "TANH"])
def test_sigmoid_in_place_through_the_c_api(op, ffi, lib, tmp_path):
    x = np.arange(I16.min, I16.max + 1, 7, dtype=np.int16)
    model = load(sigmoid_model(op, x.shape, 0.0011), tmp_path)
    (kernel,) = PlanContext.build(model, isa="portable").kernels
    p, keep = _c_params(ffi, kernel, "ap_logistic_s16_params")
    want = ap.Interpreter(ap.plan(model)).run(x)
    (v,) = variants(ffi, lib, lib.ap_logistic_s16_variants, p)
    assert v.in_place and v.scratch_count == 0
    inp = guarded_from(ffi, x)
    run = lib.ap_logistic_s16_run if op == "LOGISTIC" else lib.ap_tanh_s16_run
    status, err = _run(ffi, lib, run, p, v, inp, inp, ffi.NULL, 0)
    assert status == lib.AP_OK, message(ffi, err)
    assert inp.intact()
    np.testing.assert_array_equal(inp.view(np.int16), want)


def test_bad_params_refused(ffi, lib):
    """The kernels refuse params no lowering makes, naming the field, and write nothing."""
    sm = ffi.new("ap_softmax_s16_params *")
    luts = ffi.new("int16_t[]", 513)
    sm.outer_size, sm.depth, sm.input_multiplier, sm.input_left_shift = 1, 4, 1 << 30, 0
    sm.lut_size, sm.exp_lut, sm.one_over_one_plus_x_lut = 513, luts, luts
    out = ffi.new("ap_variant[4]")
    count = ffi.new("uint32_t *")
    err = ffi.new("ap_error *")
    assert lib.ap_softmax_s16_variants(sm, lib.AP_ISA_PORTABLE, out, 4, count, err) == lib.AP_OK
    for field, value, words in [("depth", 65537, "depth"), ("input_left_shift", 16, "input_left_shift"),
                                ("lut_size", 512, "lut_size"), ("exp_lut", ffi.NULL, "tables")]:
        keep = getattr(sm, field)
        setattr(sm, field, value)
        assert lib.ap_softmax_s16_variants(sm, lib.AP_ISA_PORTABLE, out, 4, count, err) == \
            lib.AP_ERR_INVALID_ARGUMENT
        assert words in message(ffi, err)
        setattr(sm, field, keep)
    lg = ffi.new("ap_logistic_s16_params *")
    lg.count = 4
    for mult, shift, ok in [(3, 0, True), (65535, 0, True), (65536, 0, False), (32768, 1, False),
                            (0, 0, False), (100, 32, False), (100, -1, False)]:
        lg.input_multiplier, lg.input_left_shift = mult, shift
        status = lib.ap_logistic_s16_variants(lg, lib.AP_ISA_PORTABLE, out, 4, count, err)
        assert (status == lib.AP_OK) == ok, (mult, shift)


@needs_litert
def test_refusals_name_the_op(tmp_path):
    """The quantisations TFLite's int16 kernels refuse, refused when the plan is made."""
    cases = [
        (softmax_model((2, 5), 0.001, ys=1.0 / 256), r"SOFTMAX.*scale 1/32768 and zero point 0"),
        (softmax_model((2, 5), 0.001, yz=3), r"SOFTMAX.*scale 1/32768 and zero point 0"),
        (softmax_model((2, 5), 20.0), r"SOFTMAX.*overflow"),
        (softmax_model((2, 5), 0.001, xz=-77), r"SOFTMAX.*zero point -77"),
        (sigmoid_model("LOGISTIC", (4,), 0.001, xz=5), r"LOGISTIC.*zero point 5"),
        (sigmoid_model("TANH", (4,), 0.001, yz=-1), r"TANH.*zero point -1"),
        (sigmoid_model("LOGISTIC", (4,), 0.001, ys=1.0 / 256), r"LOGISTIC.*1/32768"),
        (sigmoid_model("TANH", (4,), 0.001, ys=1.0 / 20000), r"TANH.*1/32768"),
        (sigmoid_model("TANH", (4,), 6.0), r"TANH.*too large"),
    ]
    for i, (content, pattern) in enumerate(cases):
        model = load(content, tmp_path, f"m{i}")
        for reference in REFERENCES:
            with pytest.raises(UnsupportedModel, match=r"op 0 \(" + pattern):
                ap.plan(model, reference=reference)


@pytest.mark.parametrize("reference", REFERENCES)
def test_int8_in_int16_out_softmax(reference, tmp_path):
    """The int8 row's int16 output (scale 1/65536, zero point -32768) equals both runtimes: TFLite
    Micro has this form too, and the int8 kernel's fixed point is both runtimes'."""
    if _LITERT if reference == "litert" else _TFLM:
        pytest.skip(str(_LITERT if reference == "litert" else _TFLM))
    from ai_edge_litert import schema_py_generated as S
    for i, (xs, beta, shape) in enumerate([(0.05, 1.0, (4, 10)), (0.1, 0.5, (3, 100)), (0.3, 2.0, (2, 1))]):
        o = S.SoftmaxOptionsT()
        o.beta = beta
        tensors = [dict(shape=shape, dtype="int8", scale=xs, zero_point=3),
                   dict(shape=shape, dtype="int16", scale=1.0 / 65536, zero_point=-32768)]
        content = L.single_op_model("SOFTMAX", tensors, [0], [1], "SoftmaxOptions", o, version=3)
        rng = np.random.default_rng(i)
        xs_in = [rng.integers(-128, 128, size=shape, dtype=np.int8), np.full(shape, -128, np.int8),
                 np.resize(np.array([-128, 127], np.int8), shape)]
        wants = references(content, xs_in, reference)
        model = load(content, tmp_path, f"m{i}")
        it = ap.Interpreter(ap.plan(model, reference=reference))
        for x, want in zip(xs_in, wants):
            np.testing.assert_array_equal(it.run(x), want, err_msg=f"case {i} ({reference})")
