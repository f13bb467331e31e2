"""SVDF with int8 time weights and an int8 state (TensorFlow Lite Micro's EvalInt8SvdfReference),
under the rounding rule "tflm": one-op .tflite models built with the flatbuffer schema, both
variants on every instruction set this host runs inside verified plans, outputs and the state
equal to the tflite-micro package's interpreter step after step (the state carried from run to
run, and again after reset_state), over state zero points at both ends and 0, saturating
scales, several batches, rank 1 and memory 1; hypothesis over the shapes; the poisoned arena;
the scratch exactly and one byte short through the C API; refused under "litert" (LiteRT's
integer SVDF reads its time weights as int16) and where TFLite Micro's Prepare refuses (no
bias, a bias scale that is not the product of the state's and the time weights')."""
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

try:
    import tflite_micro  # noqa: F401
    _TFLM = None
except ImportError as exc:  # pragma: no cover - the test extra pins it for x86-64
    _TFLM = f"tflite-micro is not importable ({exc})"
needs_tflm = pytest.mark.skipif(_TFLM is not None, reason=str(_TFLM))

VARIANTS = ["fused", "direct"]
STATE = 4


def host_isas() -> list:
    return ["portable"] + (["x86-avx2"] if HOST_ISA == "x86-avx2" else [])


def svdf_model(seed: int, batches: int, n: int, filters: int, memory: int, rank: int, state_zp: int,
               gain: float = 1.0, bias: bool = True, bias_scale=None) -> bytes:
    """int8 [batches, n] -> SVDF (int8 time weights, int8 state of zero point state_zp) -> int8;
    gain > 1 drives the state and the output into saturation."""
    from ai_edge_litert import schema_py_generated as S
    rng = np.random.default_rng(seed)
    units = filters // rank
    xs, wfs, ys = 0.05, 0.01, 0.1
    feature, time = 1.5 / np.sqrt(n) * gain, 0.002 / np.sqrt(memory * rank) * gain
    ss = xs * wfs / feature
    wts = time * ys / ss
    f32 = np.float32
    tensors = [dict(shape=(batches, n), dtype="int8", scale=xs, zero_point=int(rng.integers(-20, 20))),
               dict(shape=(filters, n), dtype="int8", scale=wfs, zero_point=0,
                    data=rng.integers(-128, 128, (filters, n), dtype=np.int8)),
               dict(shape=(filters, memory), dtype="int8", scale=wts, zero_point=0,
                    data=rng.integers(-128, 128, (filters, memory), dtype=np.int8)),
               dict(shape=(units,), dtype="int32", zero_point=0,
                    scale=float(f32(ss) * f32(wts)) if bias_scale is None else bias_scale,
                    data=rng.integers(-3000, 3000, units).astype(np.int32)),
               dict(shape=(batches, filters * memory), dtype="int8", scale=ss, zero_point=state_zp, variable=True),
               dict(shape=(batches, units), dtype="int8", scale=ys, zero_point=int(rng.integers(-10, 10)))]
    o = S.SVDFOptionsT()
    o.rank = rank
    o.fusedActivationFunction = S.ActivationFunctionType.RELU
    return L.single_op_model("SVDF", tensors, [0, 1, 2, 3 if bias else -1, STATE], [5], "SVDFOptions", o,
                             version=4)


def load(content: bytes, tmp_path, name="m") -> ap.Model:
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(content)
    return ap.load_tflite(path)


def tflm_steps(content: bytes, xs: list) -> list:
    """(output, state) after each input, one tflite-micro interpreter carrying its state."""
    from tflite_micro.python.tflite_micro import runtime
    micro = runtime.Interpreter.from_bytes(content, arena_size=1 << 20)
    out = []
    for x in xs:
        micro.set_input(x, 0)
        micro.invoke()
        out.append((np.array(micro.get_output(0)), None))
    return out


def inputs(batches: int, n: int, seed: int, count: int = 6) -> list:
    rng = np.random.default_rng(seed)
    xs = [rng.integers(-128, 128, (batches, n), dtype=np.int8) for _ in range(count - 2)]
    return xs + [np.full((batches, n), -128, np.int8), np.full((batches, n), 127, np.int8)]


def check_model(content: bytes, tmp_path, xs: list) -> ap.Model:
    """Both variants on every host ISA equal TFLite Micro run after run, and again after
    reset_state; the state starts at its zero point."""
    model = load(content, tmp_path)
    wants = [o for o, _ in tflm_steps(content, xs)]
    state_t = model.variable_tensors()[0]
    zp = model.tensors[state_t].quantization.zero_point[0]
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference="tflm")
        (kernel,) = ctx.kernels
        assert [v.name for v in kernel.variants] == VARIANTS
        for v in kernel.variants:
            p = ctx.make([v], "size")
            assert p.verify() and p.isa == isa
            it = ap.Interpreter(p)
            for again in range(2):
                np.testing.assert_array_equal(it.state_tensor(state_t), np.full(model.tensors[state_t].shape, zp))
                for k, (x, want) in enumerate(zip(xs, wants)):
                    np.testing.assert_array_equal(it.run(x), want, err_msg=f"{v.name} on {isa}, run {k}")
                it.reset_state()
    return model


#: (batches, input size, filters, memory, rank, state zero point, gain)
CASES = [
    (1, 24, 16, 4, 2, 0, 1.0),
    (2, 10, 6, 5, 3, -9, 1.0),
    (1, 7, 4, 3, 1, 100, 3.0),      # saturating: the zero point's wrap after the clamp counts
    (3, 30, 8, 10, 2, -128, 0.5),
    (1, 6, 3, 1, 1, 127, 0.05),     # memory 1: the state is the newest feature alone
    (2, 1, 1, 2, 1, -1, 8.0),       # one input, one filter, far into saturation
]


@needs_tflm
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_tflite_micro(case, tmp_path):
    b, n, f, m, r, zp, gain = CASES[case]
    content = svdf_model(case, b, n, f, m, r, zp, gain)
    check_model(content, tmp_path, inputs(b, n, case))
    outs = {tuple(o.reshape(-1)) for o, _ in tflm_steps(content, inputs(b, n, case))}
    assert len(outs) > 1   # the outputs vary from run to run: the comparison proves something


@needs_tflm
@settings(max_examples=20, deadline=None)
@given(b=st.integers(1, 3), n=st.integers(1, 40), f_units=st.integers(1, 6), m=st.integers(1, 12),
       r=st.integers(1, 3), zp=st.integers(-128, 127), gain=st.sampled_from([0.3, 1.0, 4.0]),
       seed=st.integers(0, 2 ** 16))
def test_hypothesis(b, n, f_units, m, r, zp, gain, seed, tmp_path_factory):
    check_model(svdf_model(seed, b, n, f_units * r, m, r, zp, gain), tmp_path_factory.mktemp("sv"),
                inputs(b, n, seed, 4))


def test_poisoned_arena(tmp_path):
    model = load(svdf_model(3, 2, 12, 6, 4, 2, -7), tmp_path)
    x = inputs(2, 12, 3)[0]
    for mode in ("size", "speed"):
        poisoned_run(model, x, mode=mode, reference="tflm")


def test_scratch_and_state_through_the_c_api(ffi, lib, tmp_path):
    """Both variants with exactly their scratch between guard bytes give the Interpreter's
    output and state (one byte per state element); direct one byte short is
    AP_ERR_SCRATCH_TOO_SMALL, writing nothing; the int16 entry point refuses these params."""
    b, n, f, m, r = 2, 9, 6, 3, 2
    model = load(svdf_model(5, b, n, f, m, r, 11), tmp_path)
    (kernel,) = PlanContext.build(model, isa="portable", reference="tflm").kernels
    p = ffi.new("ap_svdf_params *", {k: int(v) for k, v in kernel.spec.items()})
    size = ffi.new("size_t *")
    err = ffi.new("ap_error *")
    assert lib.ap_svdf_s8_state_bytes(p, size, err) == lib.AP_OK and size[0] == b * f * m
    x = inputs(b, n, 5)[0]
    it = ap.Interpreter(ap.plan(model, reference="tflm"))
    want = it.run(x).reshape(-1)
    want_state = it.state_tensor(model.variable_tensors()[0]).reshape(-1)
    wf, wt, bias = (np.ascontiguousarray(model.tensors[t].data) for t in model.operators[0].inputs[1:4])
    listed = variants(ffi, lib, lib.ap_svdf_s8_variants, p)
    assert [ffi.string(v.name).decode() for v in listed] == VARIANTS
    for v in listed:
        for short in ([None, 0] if v.scratch_count else [None]):
            state = guarded_from(ffi, np.full(b * f * m, 11, np.int8))
            out = Guarded(ffi, b * (f // r), fill=0x5A)
            before, state_before = out.payload.copy(), state.payload.copy()
            scr, bufs = scratch_for(ffi, v, short)
            ptrs = [guarded_from(ffi, a.reshape(-1)) for a in (x, wf, wt, bias)]
            status = lib.ap_svdf_s8_time8_run(p, v, *(ffi.cast(t, g.ptr) for t, g in zip(
                ("int8_t *", "int8_t *", "int8_t *", "int32_t *"), ptrs)), ffi.cast("int8_t *", state.ptr),
                ffi.cast("int8_t *", out.ptr), scr, v.scratch_count, err)
            assert out.intact() and state.intact() and all(g.intact() for g in ptrs + bufs)
            if short is None:
                assert status == lib.AP_OK, message(ffi, err)
                np.testing.assert_array_equal(out.view(np.int8), want)
                np.testing.assert_array_equal(state.view(np.int8), want_state)
            else:
                assert status == lib.AP_ERR_SCRATCH_TOO_SMALL
                assert err.needed == 4 * b * f and err.available == 4 * b * f - 1, message(ffi, err)
                np.testing.assert_array_equal(out.payload, before)
                np.testing.assert_array_equal(state.payload, state_before)
        status = lib.ap_svdf_s8_run(p, v, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, 0,
                                    err)
        assert status == lib.AP_ERR_INVALID_ARGUMENT and "ap_svdf_s8_time8_run" in message(ffi, err)
    p.state_zero_point = 128
    assert lib.ap_svdf_s8_variants(p, lib.AP_ISA_PORTABLE, ffi.new("ap_variant[4]"), 4, ffi.new("uint32_t *"),
                                   err) == lib.AP_ERR_INVALID_ARGUMENT
    assert "state_zero_point" in message(ffi, err)


def test_refusals_name_the_op(tmp_path):
    model = load(svdf_model(1, 1, 8, 4, 3, 2, 5), tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(SVDF\).*int8 time weights.*reference='tflm'"):
        ap.plan(model, reference="litert")
    model = load(svdf_model(1, 1, 8, 4, 3, 2, 5, bias=False), tmp_path, "nobias")
    with pytest.raises(UnsupportedModel, match=r"op 0 \(SVDF\).*no bias"):
        ap.plan(model, reference="tflm")
    model = load(svdf_model(1, 1, 8, 4, 3, 2, 5, bias_scale=0.5), tmp_path, "bs")
    with pytest.raises(UnsupportedModel, match=r"op 0 \(SVDF\).*bias scale 0.5"):
        ap.plan(model, reference="tflm")
