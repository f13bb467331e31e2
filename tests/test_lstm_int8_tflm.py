"""The int8 UNIDIRECTIONAL_SEQUENCE_LSTM under reference="tflm": TensorFlow Lite Micro's integer
LSTM (lstm_eval: two int16 FullyConnected ops a gate summed with saturation, TFLite's int16
table LOGISTIC / TANH, the inter-gate products as MulElementwise, its Prepare's double
multipliers and the output state's quantisation for the hidden state), against the
tflite-micro interpreter: outputs and both states call after call with the states carried,
again after reset_state, on every ISA (the host's and arm-dsp); many seeded random one-op
models (the "litert" rule, LiteRT's integer LSTM, differs from TensorFlow Lite Micro on them:
counted), saturating gates, clips, a hidden intermediate whose scale is not the output
state's, hypothesis over sizes, the poisoned arena, the shared mnist_lstm model op by op and
whole, and a Cortex-M4 firmware run under QEMU. "litert" is tests/c/test_lstm.py's."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import arenaplan as ap
from arenaplan.ops.lstm_params import lstm_operands, lstm_quant_params
from arenaplan.planning.context import PlanContext
from harness.models import MODELS_DIR
from poisoned_arena import poisoned_run
from unary_s8 import host_isas, load

sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
from test_lstm import random_layer  # noqa: E402

pytest.importorskip("ai_edge_litert.schema_py_generated")
pytest.importorskip("tflite_micro")

from harness.reference.litert_lstm import CELL_STATE, OUTPUT_STATE, lstm_model  # noqa: E402

MNIST_LSTM = Path(MODELS_DIR) / "tflm_mnist_lstm_int8.tflite"


def micro_interpreter(content: bytes):
    from tflite_micro.python.tflite_micro import runtime
    return runtime.Interpreter.from_bytes(content, arena_size=1 << 21,
                                          intrepreter_config=runtime.InterpreterConfig.kPreserveAllTensors)


def tflm_sequence(content: bytes, xs: list, tensors=(OUTPUT_STATE, CELL_STATE)) -> list:
    """(output, *tensors) after each call of one tflite-micro interpreter (variable tensors
    carried from call to call)."""
    micro = micro_interpreter(content)
    out = []
    for x in xs:
        micro.set_input(x, 0)
        micro.invoke()
        out.append((np.array(micro.get_output(0)),) +
                   tuple(micro.GetTensor(t, 0)["tensor_data"].copy() for t in tensors))
    return out


def isas() -> list:
    return host_isas() + ["arm-dsp"]


def random_model(seed: int, *, saturate: bool = False, clip=None, hidden_scale_factor: float = 1.0):
    """A random one-op model (sizes, layout, scales, zero points, clip and cell scale from the
    seed) and its inputs of 3 calls. saturate: weight scales 10-100x larger, so the gates'
    FullyConnected results pass the int16 range."""
    rng = np.random.default_rng(1000 + seed)
    b, t = int(rng.integers(1, 3)), int(rng.integers(1, 7))
    n_in, n_cell = int(rng.integers(1, 33)), int(rng.integers(1, 25))
    tm = bool(seed % 2)
    wx, wh, biases, s = random_layer(rng, n_in, n_cell, clip=clip)
    if saturate:
        s["input_weight_scales"] = [w * 30 for w in s["input_weight_scales"]]
        s["recurrent_weight_scales"] = [w * 30 for w in s["recurrent_weight_scales"]]
    s["hidden_scale"] *= hidden_scale_factor
    content = lstm_model(batches=b, time_steps=t, input_weights=wx, recurrent_weights=wh, biases=biases,
                         input_scale=s["input_scale"], input_zero_point=s["input_zero_point"],
                         weight_scales=s["input_weight_scales"] + s["recurrent_weight_scales"],
                         output_state_scale=s["output_state_scale"],
                         output_state_zero_point=s["output_state_zero_point"],
                         cell_scale_log2=int(np.log2(s["cell_state_scale"])), hidden_scale=s["hidden_scale"],
                         hidden_zero_point=s["hidden_zero_point"], cell_clip=s["cell_clip"], time_major=tm)
    shape = (t, b, n_in) if tm else (b, t, n_in)
    xs = [rng.integers(-128, 128, shape, dtype=np.int8) for _ in range(3)]
    return content, xs + [np.full(shape, 127, np.int8), np.full(shape, -128, np.int8)], s


def check_tflm(content: bytes, tmp_path, xs: list) -> None:
    """Every ISA's plan (verified) equals TensorFlow Lite Micro call after call, the output and
    both states, and again after reset_state."""
    model = load(content, tmp_path)
    wants = tflm_sequence(content, xs)
    for isa in isas():
        ctx = PlanContext.build(model, isa=isa, reference="tflm")
        (kernel,) = ctx.kernels
        assert kernel.states == (OUTPUT_STATE, CELL_STATE)
        for variant in kernel.variants:
            p = ctx.make([variant], "size")
            assert p.verify() and p.isa == isa and p.reference == "tflm"
            it = ap.Interpreter(p)
            for again in range(2):
                for call, (x, (want, h, c)) in enumerate(zip(xs, wants)):
                    where = f"{isa} {variant.name}, call {call}{' after reset_state' if again else ''}"
                    np.testing.assert_array_equal(it.run(x), want, err_msg=where)
                    np.testing.assert_array_equal(it.state_tensor(OUTPUT_STATE).reshape(h.shape), h, err_msg=where)
                    np.testing.assert_array_equal(it.state_tensor(CELL_STATE).reshape(c.shape), c, err_msg=where)
                it.reset_state()


def litert_rule_differences(content: bytes, tmp_path, xs: list) -> tuple:
    """(outputs, cell-state values) where the "litert" plan differs from TensorFlow Lite Micro."""
    wants = tflm_sequence(content, xs)
    it = ap.Interpreter(ap.plan(load(content, tmp_path, "litert"), reference="litert"))
    outs = cells = 0
    for x, (want, _, c) in zip(xs, wants):
        outs += int((it.run(x) != want).sum())
        cells += int((it.state_tensor(CELL_STATE).reshape(c.shape) != c).sum())
    return outs, cells


@pytest.mark.parametrize("block", range(8))
def test_random_models_match_tflite_micro(block, tmp_path):
    """48 seeded random models, 6 a case: "tflm" equals TensorFlow Lite Micro on each; the
    "litert" rule (the kernel before it had "tflm") differs on the block as a whole."""
    litert = [0, 0]
    for seed in range(6 * block, 6 * block + 6):
        content, xs, _ = random_model(seed)
        check_tflm(content, tmp_path, xs)
        o, c = litert_rule_differences(content, tmp_path, xs)
        litert[0] += o
        litert[1] += c
    assert litert[1] > 0, "LiteRT's rule matched TensorFlow Lite Micro's cell states on every model"


@pytest.mark.parametrize("seed", range(4))
def test_saturating_gates_match_tflite_micro(seed, tmp_path):
    """Weight scales 30x larger: the FullyConnected results leave the int16 range, where TFLM
    clamps the recurrent one before the sum (LiteRT after)."""
    content, xs, _ = random_model(100 + seed, saturate=True)
    check_tflm(content, tmp_path, xs)


@pytest.mark.parametrize("clip", [0.0, 1e-6, 0.01, 1.0, 100.0])
def test_cell_clip_matches_tflite_micro(clip, tmp_path):
    """No clip, a clip that quantises to 0 (TensorFlow Lite Micro still clamps: the cell state
    stays 0), small and large clips."""
    content, xs, s = random_model(200 + int(clip * 7), clip=clip)
    check_tflm(content, tmp_path, xs)
    q = lstm_quant_params(**s, reference="tflm")
    want = -1 if clip == 0 else int(min(clip / s["cell_state_scale"], 32767.0))
    assert q.cell_clip == want


def test_hidden_state_is_the_output_states_quantisation(tmp_path):
    """A fifth intermediate of another scale than the output state's: LiteRT requantises the
    hidden state to the intermediate's, TensorFlow Lite Micro to the output state's; "tflm"
    follows TFLM (and LiteRT's rule then differs on most outputs)."""
    content, xs, s = random_model(300, hidden_scale_factor=3.0)
    check_tflm(content, tmp_path, xs)
    q = lstm_quant_params(**s, reference="tflm")
    assert q.hidden_zero_point == s["output_state_zero_point"]
    assert litert_rule_differences(content, tmp_path, xs)[0] > 0


def test_the_rules_derive_multipliers_their_own_way():
    """The gate multipliers: LiteRT's float32 products, TensorFlow Lite Micro's double ones;
    some scale pairs round to different multipliers."""
    differ = 0
    rng = np.random.default_rng(4)
    for _ in range(200):
        s = dict(input_scale=float(rng.uniform(1e-3, 0.1)), input_zero_point=0,
                 input_weight_scales=[float(v) for v in rng.uniform(1e-3, 3e-2, 4)],
                 recurrent_weight_scales=[float(v) for v in rng.uniform(1e-3, 3e-2, 4)],
                 output_state_scale=0.01, output_state_zero_point=0, cell_state_scale=2.0 ** -11,
                 hidden_scale=0.01, hidden_zero_point=0)
        a, b = lstm_quant_params(**s), lstm_quant_params(**s, reference="tflm")
        assert (a.reference, b.reference) == (0, 1)
        differ += a.input_multiplier != b.input_multiplier or a.recurrent_multiplier != b.recurrent_multiplier
    assert differ > 0


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=st.integers(1, 3), steps=st.integers(1, 4), n_in=st.integers(1, 20), n_cell=st.integers(1, 20),
       time_major=st.booleans(), log2=st.integers(-15, -9), clip=st.sampled_from([0.0, 0.5, 3.0]),
       seed=st.integers(0, 2 ** 16))
def test_hypothesis(batches, steps, n_in, n_cell, time_major, log2, clip, seed, tmp_path):
    rng = np.random.default_rng(seed)
    wx, wh, biases, s = random_layer(rng, n_in, n_cell, clip=clip, cell_scale=log2)
    content = lstm_model(batches=batches, time_steps=steps, input_weights=wx, recurrent_weights=wh,
                         biases=biases, input_scale=s["input_scale"], input_zero_point=s["input_zero_point"],
                         weight_scales=s["input_weight_scales"] + s["recurrent_weight_scales"],
                         output_state_scale=s["output_state_scale"],
                         output_state_zero_point=s["output_state_zero_point"], cell_scale_log2=log2,
                         hidden_scale=s["hidden_scale"], hidden_zero_point=s["hidden_zero_point"],
                         cell_clip=clip, time_major=time_major)
    shape = (steps, batches, n_in) if time_major else (batches, steps, n_in)
    check_tflm(content, tmp_path, [rng.integers(-128, 128, shape, dtype=np.int8) for _ in range(2)])


def test_poisoned_arena(tmp_path):
    for seed in (0, 1):   # both layouts
        content, xs, _ = random_model(seed, clip=1.0)
        poisoned_run(load(content, tmp_path), xs[0], reference="tflm")


def test_mnist_lstm_matches_tflite_micro(tmp_path):
    """The shared model under "tflm", every ISA: the model's output and its LSTM's two states
    after each of 3 calls with the states carried, and the same after reset_state, equal to
    TensorFlow Lite Micro's (whose cell states LiteRT's rule misses)."""
    content = MNIST_LSTM.read_bytes()
    model = ap.load_tflite(MNIST_LSTM)
    ops = lstm_operands(model, 0, reference="tflm")
    lstm_out = model.operators[0].outputs[0]
    rng = np.random.default_rng(11)
    xs = [rng.integers(-128, 128, (1, 28, 28), dtype=np.int8) for _ in range(3)]
    wants = tflm_sequence(content, xs, (lstm_out, ops.output_state, ops.cell_state))
    litert = ap.Interpreter(ap.plan(model, reference="litert"))
    differ = 0
    for x, (_, _, _, c) in zip(xs, wants):
        litert.run(x)
        differ += int((litert.state_tensor(ops.cell_state).reshape(c.shape) != c).sum())
    assert differ > 0   # LiteRT's rule leaves other cell states
    for isa in isas():
        p = ap.plan(model, isa=isa, reference="tflm")
        assert p.verify()
        it = ap.Interpreter(p)
        for again in range(2):
            for call, (x, (want, y, h, c)) in enumerate(zip(xs, wants)):
                where = f"{isa}, call {call}{' after reset_state' if again else ''}"
                np.testing.assert_array_equal(np.asarray(it.run(x)).reshape(want.shape), want, err_msg=where)
                np.testing.assert_array_equal(it.state_tensor(ops.output_state).reshape(h.shape), h, err_msg=where)
                np.testing.assert_array_equal(it.state_tensor(ops.cell_state).reshape(c.shape), c, err_msg=where)
            it.reset_state()


def test_cortex_m4_firmware_matches_tflite_micro(tmp_path):
    """The arm-dsp export of a "tflm" plan on the Cortex-M4 under QEMU, 5 calls with the states
    carried in one firmware run: TensorFlow Lite Micro's outputs bit for bit."""
    from harness.firmware import build as fw
    content, xs, _ = random_model(7, clip=1.0)
    wants = [w for w, *_ in tflm_sequence(content, xs)]
    p = ap.plan(load(content, tmp_path), mode="size", isa="arm-dsp", reference="tflm")
    assert p.verify()
    run = fw.run_plan_on_core(p, "cortex-m4", [[x] for x in xs], tmp_path)
    for call, ((got,), want) in enumerate(zip(run.outputs, wants)):
        assert got.dtype == np.int8
        np.testing.assert_array_equal(got, want, err_msg=f"call {call}")


def test_every_op_probe_on_the_cortex_m4_is_tflite_micros(tmp_path):
    """The every-op Cortex-M4 cases of this row (tests/test_every_op_on_cortex_m.py: the
    coverage probe, both rules, both input kinds, exported and run under QEMU) equal the host;
    the "tflm" ones equal the tflite-micro interpreter on the same model written as a file."""
    from harness.firmware import build as fw
    missing = fw.missing_arm_tools()
    if missing:
        pytest.skip(f"Cortex-M toolchain not installed ({', '.join(missing)})")
    from arenaplan.ops.coverage import _weights
    from test_every_op_on_cortex_m import CPU, cases, pack
    key = ("UNIDIRECTIONAL_SEQUENCE_LSTM", "s8")
    found = cases(tmp_path, only={key})
    assert {r for c in found for r in c.rules} == {"litert", "tflm"}
    cells, depth = 8, 6   # the probe (coverage._lstm) as a file
    content = lstm_model(batches=1, time_steps=3, input_weights=[_weights((cells, depth))] * 4,
                         recurrent_weights=[_weights((cells, cells))] * 4, biases=[np.zeros(cells, np.int32)] * 4,
                         input_scale=0.05, input_zero_point=0, weight_scales=[0.01] * 8, output_state_scale=0.02,
                         output_state_zero_point=0, cell_scale_log2=-11, hidden_scale=0.007, hidden_zero_point=0)
    cpu = fw.ARM_CPUS[CPU]
    runtime = fw.cached_runtime(fw.ARM_CC, fw.arm_flags(cpu), cpu.name)
    checked = 0
    for i, members in enumerate(pack([c.export for c in found], cpu.board)):
        image = fw.build_arm_batch([found[k].export for k in members], cpu, runtime, tmp_path / f"image{i}",
                                   inputs=[found[k].inputs for k in members])
        raws, _ = fw.run_batch(image, len(members))
        for k, raw in zip(members, raws):
            case = found[k]
            (got,) = fw.split_outputs(raw, [(w.dtype, w.shape) for w in case.want])
            np.testing.assert_array_equal(got, case.want[0], err_msg=case.label)
            if "tflm" in case.rules:
                (want,) = [w for w, *_ in tflm_sequence(content, case.inputs)]
                np.testing.assert_array_equal(got, want.reshape(got.shape), err_msg=case.label)
                checked += 1
    assert checked == 2   # the random and the edge input
