"""ap.plan on real models: verified plans, the TFLM figure, the lower bound."""
from __future__ import annotations

import dataclasses

import pytest

import arenaplan as ap
from conftest import MLPERF_TINY, MODEL_NAMES, model_path


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_every_shared_model_plans_and_verifies(name):
    # Models with ops arenaplan has no kernel for (the audio preprocessor's custom ops) still
    # plan for memory, activations only; variable tensors (SVDF's, the LSTM's) get the state pool.
    p = ap.plan(ap.load_tflite(model_path(name)), require_kernels=False)
    assert p.verify()
    assert p.lower_bound_bytes <= p.arena_bytes <= p.greedy_size_bytes
    assert max(p.live_bytes()) == p.lower_bound_bytes
    offsets = p.tensor_offsets
    assert all(o % 16 == 0 for o in offsets.values())


def test_tflm_greedy_figure_on_visual_wake_words():
    # TFLite Micro's GreedyMemoryPlanner needs 73,728 bytes where 55,296 are live at once.
    p = ap.plan(ap.load_tflite(model_path("mlperf_tiny_vww_mobilenetv1_025_int8")))
    assert p.greedy_size_bytes == 73728
    assert p.arena_bytes == p.lower_bound_bytes == 55296
    assert p.optimal


@pytest.mark.parametrize("name", MLPERF_TINY + ["tflm_person_detect_int8"])
def test_auto_meets_the_lower_bound_on_mlperf_tiny(name):
    p = ap.plan(ap.load_tflite(model_path(name)))
    assert p.verify()
    assert p.arena_bytes == p.lower_bound_bytes
    assert p.optimal


@pytest.mark.parametrize("name", ap.zoo.names())
def test_zoo_models_plan(name):
    p = ap.plan(ap.zoo.load(name))
    assert p.verify()
    assert p.arena_bytes >= p.lower_bound_bytes


def test_every_strategy_plans_a_real_model():
    m = ap.load_tflite(model_path("mlperf_tiny_ic_resnet8_int8"))
    for strategy in ap.STRATEGIES:
        p = ap.plan(m, strategy=strategy, time_limit_s=0.5)
        assert p.verify(), strategy


def test_verify_catches_a_moved_tensor():
    p = ap.plan(ap.zoo.load("ds_cnn"))
    # Put every buffer at offset 0: live tensors now share bytes.
    broken = dataclasses.replace(p, buffers=[dataclasses.replace(b, offset=0) for b in p.buffers])
    with pytest.raises(ap.InvalidPlan):
        broken.verify()


def test_summary_names_the_figures():
    p = ap.plan(ap.zoo.load("ds_cnn"))
    text = p.summary()
    for words in ("arena", "lower bound", "TFLM greedy", "DEPTHWISE_CONV_2D", "peak"):
        assert words in text
    data = p.to_dict()
    assert data["arena_bytes"] == p.arena_bytes and len(data["live_bytes"]) == 13


def test_plan_rejects_what_is_not_a_model():
    with pytest.raises(ap.InvalidArgument, match="Model"):
        ap.plan("model.tflite")
    with pytest.raises(ap.InvalidArgument, match="mode"):
        ap.plan(ap.zoo.load("ds_cnn"), mode="fastest")


@pytest.mark.parametrize("name", MLPERF_TINY)
def test_speed_plans_place_scratch_at_its_op(name):
    m = ap.load_tflite(model_path(name))
    size = ap.plan(m, mode="size")
    speed = ap.plan(m, mode="speed")
    assert size.verify() and speed.verify()
    assert size.scratch_bytes == 0
    assert speed.arena_bytes >= size.arena_bytes
    assert len(speed.choices) == len(m.operators)
    for b in speed.buffers:
        if b.kind == "scratch":
            assert b.first == b.last == b.op
            assert speed.choices[b.op] != "direct"


def test_verify_catches_a_shrunken_scratch_buffer():
    p = ap.plan(ap.load_tflite(model_path("mlperf_tiny_kws_dscnn_int8")), mode="speed")
    i = next(i for i, b in enumerate(p.buffers) if b.kind == "scratch")
    broken = dataclasses.replace(p, buffers=list(p.buffers))
    broken.buffers[i] = dataclasses.replace(p.buffers[i], size=p.buffers[i].size - 1)
    with pytest.raises(ap.InvalidPlan, match="requests"):
        broken.verify()
