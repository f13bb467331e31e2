"""float32 UNIDIRECTIONAL_SEQUENCE_LSTM (lstm_f32.c, the float32 row of its op code): one-LSTM
models written with the tflite schema, run over several calls with the output and cell states
carried: bit for bit with TensorFlow Lite Micro's interpreter under reference "tflm" (the same
sums, reference_ops::Logistic and tanhf), within a measured ulp bound of LiteRT's reference
kernels (BUILTIN_REF: its gates' sigmoid and tanh are Eigen's, so its states drift by some ulp
from step to step); hypothesis over shapes; the poisoned arena; what TensorFlow Lite Micro's
float LSTM does not run (peepholes, projection, layer norm, CIFG) refused at plan time."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import UnsupportedModel
from arenaplan.ops.lowering import TYPES_CODES
from arenaplan.planning.context import PlanContext
from harness.lstm_models import LSTM_F32_CELL_STATE, LSTM_F32_OUT_STATE, lstm_f32_model as lstm_model
from harness.reference import litert_layers as L
from poisoned_arena import poisoned_run
from unary_s8 import host_isas, load

S = pytest.importorskip("ai_edge_litert.schema_py_generated")
from test_float32 import assert_bits, ulp_diff   # noqa: E402

F32 = TYPES_CODES["f32"]
OUT_STATE, CELL_STATE = LSTM_F32_OUT_STATE, LSTM_F32_CELL_STATE
#: The largest absolute difference from LiteRT allowed (6e-7 measured) over test_matches_litert_within_bound's
#: cases (outputs in (-1, 1) and cell states of up to 12 steps with the states carried over 4
#: calls): LiteRT's Eigen sigmoid and tanh differ from reference_ops::Logistic and tanhf by a
#: few ulp, and the states carry it on; counted in ulp the differences are large only near 0.
LITERT_ABS_BOUND = 2e-6


def feeds(rng, shape, calls=4, scale=1.5) -> list:
    return [(rng.standard_normal(shape) * scale).astype(np.float32) for _ in range(calls)]


def tflm_sequence(content: bytes, xs: list) -> list:
    """TensorFlow Lite Micro's outputs per call, one interpreter (its variable tensors carry)."""
    from tflite_micro.python.tflite_micro import runtime
    micro = runtime.Interpreter.from_bytes(content, arena_size=1 << 21)
    out = []
    for x in xs:
        micro.set_input(x, 0)
        micro.invoke()
        out.append(np.array(micro.get_output(0)))
    return out


def plans(content, tmp_path, reference):
    model = load(content, tmp_path)
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference=reference)
        (kernel,) = ctx.kernels
        assert kernel.types == F32 and [v.name for v in kernel.variants] == ["direct"]
        assert kernel.states == (OUT_STATE, CELL_STATE) and not kernel.variants[0].scratch
        p = ctx.make([kernel.variants[0]], "size")
        assert p.verify() and p.isa == isa
        yield isa, ap.Interpreter(p)


def check_tflm(content, tmp_path, xs):
    wants = tflm_sequence(content, xs)
    for isa, it in plans(content, tmp_path, "tflm"):
        for call, (x, want) in enumerate(zip(xs, wants)):
            got = it.run(x)
            assert_bits(got, want, f"{isa}, call {call} (against TensorFlow Lite Micro)")
            # the output state is the last step's output (its own row per batch)
            last = got[-1] if it.plan.model.operators[0].options.get("time_major") else got[:, -1]
            assert_bits(it.state_tensor(OUT_STATE), last, f"{isa}, call {call}, output state")


def check_litert(content, tmp_path, xs, bound=LITERT_ABS_BOUND) -> tuple:
    """Outputs and cell state within ``bound`` of LiteRT's; returns the largest absolute and ulp
    differences seen."""
    outs, seen = L.run_sequence(content, [[x] for x in xs], (OUT_STATE, CELL_STATE))
    worst = worst_ulp = 0.0
    for isa, it in plans(content, tmp_path, "litert"):
        for call, x in enumerate(xs):
            got, cell = it.run(x), it.state_tensor(CELL_STATE)
            for g, w in ((got, outs[call][0]), (cell, seen[CELL_STATE][call])):
                worst = max(worst, float(np.abs(g.astype(np.float64) - w).max()))
                worst_ulp = max(worst_ulp, ulp_diff(g, w))
            assert worst <= bound, f"{isa}, call {call}: {worst} from LiteRT"
    return worst, worst_ulp


@pytest.mark.parametrize("batches,steps,depth,cells,time_major,clip", [
    (1, 1, 1, 1, False, 0.0), (1, 3, 6, 8, False, 0.0), (2, 5, 13, 7, False, 0.0), (3, 4, 9, 5, True, 0.0),
    (2, 6, 4, 16, True, 1.5), (1, 12, 33, 3, False, 0.75)])
def test_matches_tflite_micro(batches, steps, depth, cells, time_major, clip, tmp_path):
    rng = np.random.default_rng(batches * 1000 + steps * 10 + depth)
    content = lstm_model(rng, batches, steps, depth, cells, time_major, clip)
    shape = (steps, batches, depth) if time_major else (batches, steps, depth)
    check_tflm(content, tmp_path, feeds(rng, shape))


@pytest.mark.parametrize("batches,steps,depth,cells,time_major,clip", [
    (1, 3, 6, 8, False, 0.0), (2, 5, 13, 7, False, 0.0), (3, 4, 9, 5, True, 0.0), (2, 6, 4, 16, True, 1.5),
    (1, 12, 33, 3, False, 0.75)])
def test_matches_litert_within_bound(batches, steps, depth, cells, time_major, clip, tmp_path):
    rng = np.random.default_rng(batches * 1000 + steps * 10 + depth)
    content = lstm_model(rng, batches, steps, depth, cells, time_major, clip)
    shape = (steps, batches, depth) if time_major else (batches, steps, depth)
    worst, ulp = check_litert(content, tmp_path, feeds(rng, shape))
    print(f"\nLSTM float32 {batches}x{steps}x{depth} -> {cells}: at most {worst:.3g} ({ulp} ulp) from LiteRT")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(batches=st.integers(1, 3), steps=st.integers(1, 6), depth=st.integers(1, 20), cells=st.integers(1, 12),
       time_major=st.booleans(), clip=st.sampled_from([0.0, 0.5, 3.0]), seed=st.integers(0, 2 ** 31))
def test_hypothesis(batches, steps, depth, cells, time_major, clip, seed, tmp_path):
    """Shapes off the four lanes, both layouts, clipped or not: TensorFlow Lite Micro's bits."""
    rng = np.random.default_rng(seed)
    content = lstm_model(rng, batches, steps, depth, cells, time_major, clip)
    shape = (steps, batches, depth) if time_major else (batches, steps, depth)
    check_tflm(content, tmp_path, feeds(rng, shape, calls=3))


def test_big_inputs_match_tflite_micro(tmp_path):
    """Inputs far past the sigmoid's cut-offs and products beyond FLT_MAX (TensorFlow Lite
    Micro's FullyConnected and Mul clamp to the finite floats)."""
    rng = np.random.default_rng(21)
    content = lstm_model(rng, 2, 3, 5, 4, scale=3.0)
    xs = [rng.choice(np.array([3e38, -3e38, 1e20, -1e20, 30.0, -30.0, 0.0, -0.0], np.float32), size=(2, 3, 5))
          for _ in range(3)]
    check_tflm(content, tmp_path, xs)


def test_poisoned_arena(tmp_path):
    rng = np.random.default_rng(3)
    for reference in ("litert", "tflm"):
        model = load(lstm_model(rng, 2, 3, 5, 4, cell_clip=1.0), tmp_path)
        poisoned_run(model, rng.standard_normal((2, 3, 5)).astype(np.float32), reference=reference)


def test_states_carry_and_reset(tmp_path):
    rng = np.random.default_rng(4)
    content = lstm_model(rng, 1, 2, 3, 4)
    xs = feeds(rng, (1, 2, 3), calls=3)
    it = ap.Interpreter(ap.plan(load(content, tmp_path), reference="tflm"))
    first = [it.run(x) for x in xs]
    assert it.state_tensor(CELL_STATE).any()
    it.reset_state()
    assert not it.state_tensor(CELL_STATE).any() and not it.state_tensor(OUT_STATE).any()
    for x, want in zip(xs, first):
        assert_bits(it.run(x), want, "after reset_state")


def _refused(content, tmp_path, *needles):
    with pytest.raises(UnsupportedModel) as e:
        ap.plan(load(content, tmp_path))
    for needle in ("op 0 (UNIDIRECTIONAL_SEQUENCE_LSTM)",) + needles:
        assert needle in str(e.value), str(e.value)


def test_what_tflite_micro_does_not_run_is_refused_at_plan_time(tmp_path):
    rng = np.random.default_rng(5)
    _refused(lstm_model(rng, 1, 2, 3, 4, extra=(9, 10, 11)), tmp_path, "peephole")
    _refused(lstm_model(rng, 1, 2, 3, 4, extra=(16,)), tmp_path, "projection weights")
    _refused(lstm_model(rng, 1, 2, 3, 4, extra=(20, 21, 22, 23)), tmp_path, "layer-norm")
    _refused(lstm_model(rng, 1, 2, 3, 4, absent=(1, 5, 12)), tmp_path, "CIFG")
    _refused(lstm_model(rng, 1, 2, 3, 4, act="RELU"), tmp_path, "fused activation RELU")
    _refused(lstm_model(rng, 1, 2, 3, 4, wdtype="int8"), tmp_path, "hybrid")
    _refused(lstm_model(rng, 1, 2, 3, 4, variable=False), tmp_path, "not a variable tensor")
    _refused(lstm_model(rng, 1, 2, 3, 4, cell_clip=-1.0), tmp_path, "cell_clip")


def test_cortex_m4_with_states_carried(tmp_path):
    """The export built for the Cortex-M4 (hard float, newlib) under QEMU, over 4 calls with the
    states carried: within 1e-6 of the host (newlib's expf / tanhf round on their own)."""
    from test_float32 import _run_m4
    rng = np.random.default_rng(13)
    content = lstm_model(rng, 2, 4, 7, 6, cell_clip=2.0)
    xs = feeds(rng, (2, 4, 7))
    host = ap.Interpreter(ap.plan(load(content, tmp_path), mode="size"))
    worst = worst_ulp = 0.0
    for got, x in zip(_run_m4(content, [[x] for x in xs], tmp_path), xs):
        want = host.run(x)
        worst = max(worst, float(np.abs(got.astype(np.float64) - want).max()))
        worst_ulp = max(worst_ulp, ulp_diff(got, want))
    print(f"\nLSTM float32 on the Cortex-M4 (newlib): at most {worst:.3g} ({worst_ulp} ulp) from the host")
    assert worst <= 1e-6
