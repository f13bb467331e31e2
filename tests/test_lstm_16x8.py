"""16x8 UNIDIRECTIONAL_SEQUENCE_LSTM (lstm_s16.c, the 16x8 row of its op code): int16
activations, int8 weights, int64 gate biases and an int16 cell state, as TensorFlow Lite
Micro's integer LSTM runs them. One-LSTM models written with the tflite schema, run over
several calls with the output and cell states carried: outputs and both states equal the
tflite-micro interpreter's bit for bit (random seeded inputs, the int16 extremes, cell scales
from 2^-20 to 2^-7 and one that is not a power of two, the cell clip, both time layouts);
hypothesis over sizes; the poisoned arena; the C entry point between guard bytes with its
biases at an odd address, and bad params; LiteRT refusing the model (it has no int16 LSTM),
and what TensorFlow Lite Micro does not run (peepholes, projection, layer norm, CIFG, other
bias types) refused at plan time naming the op and the operand."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import UnsupportedModel
from arenaplan.ops.lowering import TYPES_CODES
from arenaplan.planning.context import PlanContext
from harness.lstm_models import LSTM16_CELL_STATE, LSTM16_INPUT, LSTM16_OUT_STATE, lstm16_model
from poisoned_arena import poisoned_run
from unary_s8 import host_isas, load

sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
from ops_harness import Guarded, guarded_from, message  # noqa: E402

S = pytest.importorskip("ai_edge_litert.schema_py_generated")
pytest.importorskip("tflite_micro")

S16X8 = TYPES_CODES["s16x8"]
INPUT, OUT_STATE, CELL_STATE = LSTM16_INPUT, LSTM16_OUT_STATE, LSTM16_CELL_STATE


def feeds(shape, seed: int, calls: int = 4) -> list:
    """Random int16 inputs, then all 32767 and all -32768 (the gates far into saturation)."""
    rng = np.random.default_rng(seed)
    xs = [rng.integers(-32768, 32768, shape).astype(np.int16) for _ in range(calls)]
    return xs + [np.full(shape, 32767, np.int16), np.full(shape, -32768, np.int16)]


def tflm_sequence(content: bytes, xs: list) -> list:
    """(output, output state, cell state) after each call, one tflite-micro interpreter (its
    variable tensors carry from call to call)."""
    from tflite_micro.python.tflite_micro import runtime
    micro = runtime.Interpreter.from_bytes(content, arena_size=1 << 21,
                                           intrepreter_config=runtime.InterpreterConfig.kPreserveAllTensors)
    out = []
    for x in xs:
        micro.set_input(x, 0)
        micro.invoke()
        out.append((np.array(micro.get_output(0)), micro.GetTensor(OUT_STATE, 0)["tensor_data"].copy(),
                    micro.GetTensor(CELL_STATE, 0)["tensor_data"].copy()))
    return out


def isas() -> list:
    """The host's instruction sets and arm-dsp (its instructions' C definitions here)."""
    return host_isas() + ["arm-dsp"]


def check_tflm(content: bytes, tmp_path, xs: list) -> list:
    """Every ISA's plan (verified; the host's and arm-dsp) equals TensorFlow Lite Micro call after call, outputs
    and both states, and again after reset_state; returns TensorFlow Lite Micro's outputs."""
    model = load(content, tmp_path)
    wants = tflm_sequence(content, xs)
    for isa in isas():
        ctx = PlanContext.build(model, isa=isa, reference="tflm")
        (kernel,) = ctx.kernels
        assert kernel.types == S16X8 and [v.name for v in kernel.variants] == ["direct"]
        assert kernel.states == (OUT_STATE, CELL_STATE) and not kernel.variants[0].scratch
        assert not kernel.weighted
        p = ctx.make([kernel.variants[0]], "size")
        assert p.verify() and p.isa == isa
        it = ap.Interpreter(p)
        for again in range(2):
            assert not it.state_tensor(OUT_STATE).any() and not it.state_tensor(CELL_STATE).any()
            for call, (x, (want, h, c)) in enumerate(zip(xs, wants)):
                where = f"{isa}, call {call}{' after reset_state' if again else ''}"
                np.testing.assert_array_equal(it.run(x), want, err_msg=where)
                np.testing.assert_array_equal(it.state_tensor(OUT_STATE).reshape(h.shape), h, err_msg=where)
                np.testing.assert_array_equal(it.state_tensor(CELL_STATE).reshape(c.shape), c, err_msg=where)
            it.reset_state()
    return [w for w, _, _ in wants]


#: (batches, steps, input size, cells, time_major, input scale, state scale, cell scale, clip)
CASES = [
    (1, 1, 1, 1, False, 2e-4, 1.5e-4, 2.0 ** -11, 0.0),
    (2, 3, 5, 4, False, 2e-4, 1.5e-4, 2.0 ** -11, 0.0),
    (1, 4, 7, 6, False, 3e-4, 1e-4, 2.0 ** -12, 0.5),      # clipped
    (3, 2, 9, 5, True, 1e-4, 3e-4, 2.0 ** -14, 0.0),
    (2, 5, 3, 17, False, 5e-4, 2e-5, 2.0 ** -9, 1.0),      # 17 cells, a small state scale: saturation
    (1, 3, 4, 3, True, 2e-4, 1e-4, 2.0 ** -15, 0.3),
    (1, 3, 4, 3, False, 2e-4, 1e-4, 2.0 ** -7, 0.0),       # the cell tanh's multiplier 3 << 5
    (2, 3, 6, 4, False, 2e-4, 1e-4, 2.0 ** -20, 0.0),      # its input shifted right by 8
    (1, 6, 33, 12, True, 4e-5, 3e-4, 3e-4, 0.01),          # not a power of two; clip 33 in its units
    (1, 2, 4, 3, False, 2e-4, 1e-4, 2.0 ** -11, 1e-5),     # a clip that quantises to 0: the cell stays 0
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_tflite_micro(case, tmp_path):
    b, t, n, cells, tm, xs, hs, cs, clip = CASES[case]
    content = lstm16_model(case, b, t, n, cells, time_major=tm, input_scale=xs, state_scale=hs, cell_scale=cs,
                           cell_clip=clip)
    outs = check_tflm(content, tmp_path, feeds((t, b, n) if tm else (b, t, n), case))
    if clip and clip / cs < 1:   # TensorFlow Lite Micro clips to [0, 0]: the cell state, so the output, is 0
        assert not any(o.any() for o in outs)
    elif cells > 1:   # the outputs vary from call to call: the comparison proves something
        assert len({o.tobytes() for o in outs}) > 2


def test_small_weights_and_wide_biases_match_tflite_micro(tmp_path):
    """Biases far beyond the products (the int64 sum and its 16-bit multiplier) and weights so
    small that the gates sit near their middle."""
    for k, (ws, br) in enumerate(((1e-4, 2 ** 40), (0.05, 2 ** 20), (1e-6, 10))):
        content = lstm16_model(40 + k, 2, 3, 6, 5, weight_scale=ws, bias_range=br)
        check_tflm(content, tmp_path, feeds((2, 3, 6), 40 + k, calls=2))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(batches=st.integers(1, 3), steps=st.integers(1, 5), depth=st.integers(1, 24), cells=st.integers(1, 20),
       time_major=st.booleans(), log2=st.integers(-16, -8), clip=st.sampled_from([0.0, 0.25, 2.0]),
       input_scale=st.sampled_from([3e-5, 2e-4, 1e-3]), seed=st.integers(0, 2 ** 31))
def test_hypothesis(batches, steps, depth, cells, time_major, log2, clip, input_scale, seed, tmp_path):
    content = lstm16_model(seed, batches, steps, depth, cells, time_major=time_major, input_scale=input_scale,
                           cell_scale=2.0 ** log2, cell_clip=clip)
    check_tflm(content, tmp_path, feeds((steps, batches, depth) if time_major else (batches, steps, depth), seed, 2))


def test_poisoned_arena(tmp_path):
    for tm in (False, True):
        model = load(lstm16_model(3, 2, 3, 5, 4, time_major=tm, cell_clip=0.5), tmp_path)
        poisoned_run(model, feeds((3, 2, 5) if tm else (2, 3, 5), 3)[0], reference="tflm")


def test_litert_has_no_int16_lstm(tmp_path):
    """LiteRT's UNIDIRECTIONAL_SEQUENCE_LSTM refuses an int16 input (its integer path takes int8
    only), with its reference kernels as with its default ones; arenaplan refuses the row under
    "litert" and says to plan with "tflm"."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    content = lstm16_model(1, 1, 2, 3, 4)
    for resolver in (OpResolverType.BUILTIN_REF, OpResolverType.AUTO):
        it = Interpreter(model_content=content, experimental_op_resolver_type=resolver)
        with pytest.raises(RuntimeError, match="UNIDIRECTIONAL_SEQUENCE_LSTM"):
            it.allocate_tensors()
    with pytest.raises(UnsupportedModel, match=r"op 0 \(UNIDIRECTIONAL_SEQUENCE_LSTM\).*reference='tflm'"):
        ap.plan(load(content, tmp_path), reference="litert")


def _refused(tmp_path, *needles, **kw):
    with pytest.raises(UnsupportedModel) as e:
        ap.plan(load(lstm16_model(5, 1, 2, 3, 4, **kw), tmp_path), reference="tflm")
    for needle in ("op 0 (UNIDIRECTIONAL_SEQUENCE_LSTM)",) + needles:
        assert needle in str(e.value), str(e.value)


def test_what_tflite_micro_does_not_run_is_refused_at_plan_time(tmp_path):
    _refused(tmp_path, "cell-to-input peephole weights (input 9)", extra=(9, 10, 11))
    _refused(tmp_path, "projection weights (input 16)", extra=(16,))
    _refused(tmp_path, "input layer-norm coefficients (input 20)", extra=(20, 21, 22, 23))
    _refused(tmp_path, "CIFG", absent=(1, 5, 12))
    _refused(tmp_path, "fused activation RELU", act="RELU")
    _refused(tmp_path, "input gate bias tensor 9", "is int32, expected int64", bias_dtype="int32")
    _refused(tmp_path, "input-to-input weights tensor 1", "zero point 3", weight_zp=3)
    _refused(tmp_path, "input-to-input weights tensor 1", "per-tensor", per_channel=True)
    _refused(tmp_path, "input tensor 0", "zero point 5", input_zp=5)
    _refused(tmp_path, "output state tensor 13", "not a variable tensor", variable=False)
    _refused(tmp_path, "cell_clip", cell_clip=-1.0)
    _refused(tmp_path, "cell state scale", "outside 2^-43..2^2", cell_scale=64.0)


def _c_call(ffi, lib, kernel, model, x, h, c, odd_bias: bool):
    """An ap_op_call of the kernel with every buffer between guard bytes (the biases one byte
    past an aligned address when odd_bias)."""
    p = ffi.new("ap_lstm_s16_params *", {k: v for k, v in kernel.spec.items()})
    consts = [np.ascontiguousarray(model.tensors[t].data) for t in kernel.data_inputs[1:]]
    bufs = [guarded_from(ffi, x.reshape(-1))]
    for k, a in enumerate(consts):
        if odd_bias and k >= 8:
            g = Guarded(ffi, a.nbytes + 1)
            g.payload[1:] = a.view(np.uint8).reshape(-1)
            g.ptr = ffi.cast("char *", g.ptr) + 1
            bufs.append(g)
        else:
            bufs.append(guarded_from(ffi, a.reshape(-1)))
    states = [guarded_from(ffi, h.reshape(-1)), guarded_from(ffi, c.reshape(-1))]
    out = Guarded(ffi, 2 * kernel_out_count(kernel.spec), fill=0x5A)
    keep = [ffi.new("void *[]", [g.ptr for g in bufs]), ffi.new("void *[]", [s.ptr for s in states])]
    v = ffi.new("ap_variant *")
    count = ffi.new("uint32_t *")
    err = ffi.new("ap_error *")
    assert lib.ap_lstm_s16_variants(p, lib.AP_ISA_PORTABLE, v, 1, count, err) == lib.AP_OK and count[0] == 1
    call = ffi.new("ap_op_call *")
    call.params, call.variant, call.inputs, call.input_count = p, v, keep[0], 13
    call.output, call.state, call.state_count = out.ptr, keep[1], 2
    return call, p, out, states, bufs, (keep, v, count)


def kernel_out_count(spec) -> int:
    return spec["batches"] * spec["time_steps"] * spec["cell_size"]


def test_the_c_entry_point(ffi, lib, tmp_path):
    """Through the C API, every buffer between guard bytes and the int64 biases at an odd
    address: the Interpreter's output and states, nothing written outside; bad params (a
    clip below -1, a gate shift past 7, a tanh multiplier of 0, no cell state) are
    AP_ERR_INVALID_ARGUMENT naming the field, writing nothing."""
    model = load(lstm16_model(7, 2, 3, 5, 6, cell_clip=0.5), tmp_path)
    (kernel,) = PlanContext.build(model, isa="portable", reference="tflm").kernels
    xs = feeds((2, 3, 5), 7, calls=2)
    it = ap.Interpreter(ap.plan(model, reference="tflm"))
    h = np.zeros((2, 6), np.int16)
    c = np.zeros((2, 6), np.int16)
    for x in xs:
        want = it.run(x)
        call, p, out, states, bufs, _ = _c_call(ffi, lib, kernel, model, x, h, c, odd_bias=True)
        err = ffi.new("ap_error *")
        assert lib.ap_lstm_s16_run(call, lib.AP_ISA_PORTABLE, err) == lib.AP_OK, message(ffi, err)
        assert out.intact() and all(s.intact() for s in states) and all(g.intact() for g in bufs)
        np.testing.assert_array_equal(out.view(np.int16).reshape(want.shape), want)
        h, c = states[0].view(np.int16).reshape(2, 6).copy(), states[1].view(np.int16).reshape(2, 6).copy()
        np.testing.assert_array_equal(h, it.state_tensor(OUT_STATE).reshape(2, 6))
        np.testing.assert_array_equal(c, it.state_tensor(CELL_STATE).reshape(2, 6))
    for field, value, needle in (("cell_clip", -2, "cell_clip -2"), ("input_shift", 8, "forget gate input multiplier"),
                                 ("cell_tanh_multiplier", 0, "cell_tanh_multiplier 0"),
                                 ("hidden_shift", 31, "hidden multiplier")):
        call, p, out, states, bufs, _ = _c_call(ffi, lib, kernel, model, xs[0], h, c, odd_bias=False)
        before = [s.payload.copy() for s in states]
        if field == "input_shift":
            p.input_shift[1] = value
        else:
            setattr(p, field, value)
        err = ffi.new("ap_error *")
        assert lib.ap_lstm_s16_run(call, lib.AP_ISA_PORTABLE, err) == lib.AP_ERR_INVALID_ARGUMENT
        assert needle in message(ffi, err), message(ffi, err)
        assert (out.payload == 0x5A).all() and all((s.payload == b).all() for s, b in zip(states, before))
    call, p, out, states, bufs, _ = _c_call(ffi, lib, kernel, model, xs[0], h, c, odd_bias=False)
    call.state_count = 1
    err = ffi.new("ap_error *")
    assert lib.ap_lstm_s16_run(call, lib.AP_ISA_PORTABLE, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert "cell state" in message(ffi, err)


@pytest.mark.parametrize("shape", [(1, 1, 1, 1, False), (2, 3, 5, 4, False), (3, 2, 9, 5, True),
                                   (4, 3, 7, 20, True), (2, 5, 3, 33, False)])
def test_tflm_arena_is_tflms(shape, tmp_path):
    """ap.tflm.arena of the 16x8 LSTM is TensorFlow Lite Micro's smallest arena (16-byte
    steps), head and tail: the int8 LSTM's rules hold (four gate buffers of batches x cells
    int16), the batch read from the second axis of a time-major input (4 batches of 3 steps
    and 20 cells: 160-byte buffers; before the file's time_major was read, 128 and 128 bytes
    short of TensorFlow Lite Micro's 3,520)."""
    from test_tflm_ops import check_exact
    b, t, n, cells, tm = shape
    r = check_exact(lstm16_model(11, b, t, n, cells, time_major=tm), tmp_path)
    assert [a.bytes for a in r.scratch()] == [-(-b * cells * 2 // 16) * 16] * 4


def test_tflm_arena_of_a_time_major_int8_lstm(tmp_path):
    """The same fix for the int8 LSTM: time-major, 3 batches of 5 steps and 12 cells."""
    from harness.reference.litert_lstm import lstm_model
    from test_tflm_ops import check_exact
    rng = np.random.default_rng(2)
    content = lstm_model(batches=3, time_steps=5, input_weights=[rng.integers(-127, 128, (12, 4)) for _ in range(4)],
                         recurrent_weights=[rng.integers(-127, 128, (12, 12)) for _ in range(4)],
                         biases=[np.zeros(12, np.int32)] * 4, input_scale=0.05, input_zero_point=0,
                         weight_scales=[0.01] * 8, output_state_scale=0.02, output_state_zero_point=0,
                         cell_scale_log2=-11, hidden_scale=0.007, hidden_zero_point=0, time_major=True)
    r = check_exact(content, tmp_path)
    assert [a.bytes for a in r.scratch()] == [80] * 4   # 3 x 12 int16, rounded to 16


@pytest.mark.parametrize("core", ["cortex-m4", "cortex-m7", "cortex-m33"])
def test_cortex_m_with_states_carried(core, tmp_path):
    """The arm-dsp export built for each DSP core under QEMU (the SMLALD dot products run
    natively), over 5 calls with the states carried (one firmware run): TensorFlow Lite Micro's
    outputs bit for bit."""
    from harness.firmware import build as fw
    missing = fw.missing_arm_tools()
    if missing:
        pytest.skip(f"Cortex-M toolchain not installed ({', '.join(missing)})")
    cpu = fw.ARM_CPUS[core]
    runtime = fw.cached_runtime(fw.ARM_CC, fw.arm_flags(cpu), cpu.name)
    content = lstm16_model(13, 2, 4, 7, 6, cell_clip=0.75)
    xs = feeds((2, 4, 7), 13, calls=3)
    wants = [w for w, _, _ in tflm_sequence(content, xs)]
    model = load(content, tmp_path)
    p = ap.plan(model, mode="size", isa="arm-dsp", reference="tflm")
    assert p.verify()
    out = p.export_c(tmp_path / "out", name="net")
    firmware = fw.build_arm(out, cpu, runtime, tmp_path, [[x] for x in xs])
    run = fw.run_qemu(firmware, timeout=600)
    assert len(run.outputs) == len(xs)
    for call, (raw, want) in enumerate(zip(run.outputs, wants)):
        got = fw.split_outputs(raw, [("int16", want.shape)])[0]
        np.testing.assert_array_equal(got, want, err_msg=f"{core}, call {call}")


def test_biases_near_the_int64_limits_run(tmp_path):
    """Biases up to +-2^62 (far past TFLite's 2^47 range, where its result is undefined): the sum
    cannot overflow (the bias is clamped to 2^48 first, the requantisation saturates alike), the
    gates saturate, every ISA gives the same outputs."""
    model = load(lstm16_model(9, 2, 3, 5, 6, bias_range=2 ** 62), tmp_path)
    xs = feeds((2, 3, 5), 9, calls=2)
    outs = []
    for isa in isas():
        it = ap.Interpreter(ap.plan(model, isa=isa, reference="tflm"))
        outs.append([it.run(x) for x in xs])
    for other in outs[1:]:
        for a, b in zip(outs[0], other):
            np.testing.assert_array_equal(a, b)
