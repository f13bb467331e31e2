"""Every SVDF variant, on the portable and the AVX2 path, inside planned models: the shared
keyword model and generated one-SVDF models run bit-exactly with LiteRT's reference kernels
and the NumPy reference, outputs and states, step after step."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arenaplan as ap
from arenaplan.ops.lowering import HOST_ISA
from harness import svdf_models
from conftest import model_path
from harness.reference import litert_layers as L
from harness.reference.svdf import random_case, step
from test_interpreter import KEYWORD, keyword_inputs, litert_interpreter, litert_step

VARIANTS = ["fused", "direct"]
_LITERT = L.unavailable_reason()


def host_isas() -> list:
    """The instruction sets whose kernels this host runs natively: portable C and, where
    this CPU has it, AVX2 (a plan's ISA decides which kernels run, not a CPU setting)."""
    return ["portable"] + (["x86-avx2"] if HOST_ISA == "x86-avx2" else [])


def test_plan_with_picks_the_variant():
    m = ap.load_tflite(model_path(KEYWORD))
    for name in VARIANTS:
        p = svdf_models.plan_with(m, name)
        assert p.verify()
        assert [c for op, c in zip(m.operators, p.choices) if op.type == "SVDF"] == [name] * 7
    # the size plan runs "fused": it needs no scratch
    assert [c for op, c in zip(m.operators, ap.plan(m).choices) if op.type == "SVDF"] == ["fused"] * 7


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
@pytest.mark.parametrize("variant", VARIANTS)
def test_keyword_model_every_variant_and_isa(variant):
    """Seven SVDFs (memories 8 and 32, inputs 96, 16 and 32): outputs and every state tensor
    equal LiteRT's after each of 5 runs, on each instruction set this host runs."""
    path = model_path(KEYWORD)
    m = ap.load_tflite(path)
    variables = m.variable_tensors()
    xs = keyword_inputs(m, 5, seed=8)
    for isa in host_isas():
        p = svdf_models.plan_with(m, variant, isa)
        assert p.verify() and p.isa == isa
        it = ap.Interpreter(p)
        ref = litert_interpreter(path, preserve=True)
        for run, x in enumerate(xs):
            np.testing.assert_array_equal(it.run(x), litert_step(ref, x))
            for t in variables:
                np.testing.assert_array_equal(it.state_tensor(t), ref.get_tensor(t),
                                              err_msg=f"{variant}, {isa}, state {t}, run {run}")
        assert all(it.state_tensor(t).any() for t in variables)


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches=st.integers(1, 2), input_size=st.integers(1, 300), units=st.integers(1, 12),
       rank=st.integers(1, 3), memory=st.integers(1, 40), bias=st.booleans(), seed=st.integers(0, 2 ** 31))
def test_one_svdf_models_every_variant_and_isa(batches, input_size, units, rank, memory, bias, seed):
    """Generated one-SVDF models (inputs past the 256-element feature block, memories and
    inputs off the SIMD widths): each variant on each instruction set equals LiteRT and the NumPy
    reference, output and state, over 4 runs."""
    from harness.reference.litert_svdf import STATE, svdf_model
    rng = np.random.default_rng(seed)
    c = random_case(rng, batches, input_size, units * rank, memory, rank, bias)
    xs = [rng.integers(-128, 128, size=(batches, input_size), dtype=np.int8) for _ in range(4)]
    outs, seen = L.run_sequence(svdf_model(c), [[x] for x in xs], (STATE,))
    m = svdf_models.one_svdf(c)
    state_t = m.variable_tensors()[0]
    for variant in VARIANTS:
        for isa in host_isas():
            p = svdf_models.plan_with(m, variant, isa)
            assert p.verify()
            it = ap.Interpreter(p)
            state = np.zeros((batches, units * rank * memory), np.int16)
            for run, x in enumerate(xs):
                got = it.run(x)
                want, state = step(c, x, state)
                where = f"{variant}, {isa}, run {run}"
                np.testing.assert_array_equal(got, want, err_msg=where)
                np.testing.assert_array_equal(got, outs[run][0], err_msg=where)
                np.testing.assert_array_equal(it.state_tensor(state_t), seen[STATE][run], err_msg=where)


def test_svdf_chain_every_variant_and_isa():
    """The two-SVDF chain of svdf_models against the NumPy reference, each variant, each instruction set."""
    m = svdf_models.svdf_chain()
    xs = svdf_models.inputs(m, 6)
    want = svdf_models.reference_outputs(m, xs)
    for variant in VARIANTS:
        for isa in host_isas():
            p = svdf_models.plan_with(m, variant, isa)
            assert p.verify()
            it = ap.Interpreter(p)
            for run, x in enumerate(xs):
                np.testing.assert_array_equal(it.run(x), want[run], err_msg=f"{variant}, {isa}")


def test_speed_plans_take_the_variant_without_scratch():
    """SVDF's scratch buys no time (bench_lstm, calibrate_cortex_m): without a latency
    source the speed plan, like the size plan, runs `fused`."""
    m = svdf_models.svdf_chain()
    for mode in ("size", "speed"):
        p = ap.plan(m, mode=mode)
        assert p.verify()
        assert [c for c, op in zip(p.choices, m.operators) if op.type == "SVDF"] == ["fused", "fused"]
        assert not any(b.kind == "scratch" for b in p.buffers)
