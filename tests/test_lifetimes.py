"""Buffer lifetimes from models, checked against ../shared/models/README.md's table."""
from __future__ import annotations

import pytest

import arenaplan as ap
from arenaplan.planning.buffers import BufferProblem
from arenaplan.planning.lifetimes import activation_buffers, tensor_lifetimes
from conftest import model_path

# model: (activation tensors, sum of bytes, lower bound) — tensors only, no alignment, no aliasing.
README_TABLE = {
    "mlperf_tiny_ad_autoencoder_int8": (11, 2312, 768),
    "mlperf_tiny_ic_resnet8_int8": (17, 117908, 49152),
    "mlperf_tiny_kws_dscnn_int8": (14, 72642, 16000),
    "mlperf_tiny_sww_dscnn_int8": (12, 16086, 6656),
    "mlperf_tiny_vww_mobilenetv1_025_int8": (32, 259716, 55296),
    "tflm_audio_preprocessor_int8": (25, 12128, 2060),
    "tflm_hello_world_int8": (4, 34, 32),
    "tflm_keyword_scrambled_int8": (16, 718, 288),
    "tflm_micro_speech_int8": (5, 7928, 5960),
    "tflm_mnist_lstm_int8": (5, 1924, 1344),
    "tflm_person_detect_int8": (32, 241030, 55296),
}


@pytest.mark.parametrize("name", sorted(README_TABLE))
def test_matches_the_measured_table(name):
    count, total, bound = README_TABLE[name]
    m = ap.load_tflite(model_path(name))
    bufs = activation_buffers(m, alignment=1, fold_aliases=False)
    assert len(bufs) == count
    assert int(bufs.sizes.sum()) == total
    problem = BufferProblem.build(bufs.sizes, bufs.first, bufs.last, 1)
    assert max(problem.live_bytes()) == bound
    assert ap.lower_bound(bufs.sizes, bufs.first, bufs.last, alignment=1) == bound


def test_tflm_rules_on_a_hand_built_chain():
    m = ap.zoo.load("ds_cnn")
    life = tensor_lifetimes(m)
    x = m.inputs[0]
    assert life[x] == (0, 0)                          # graph input: op 0 to its last reader
    y = m.outputs[0]
    assert life[y] == (12, 12)                        # graph output: to the last op
    conv0_out = m.operators[0].outputs[0]
    assert life[conv0_out] == (0, 1)


def test_reshape_aliases_fold_into_one_buffer():
    m = ap.zoo.load("ds_cnn")
    folded = activation_buffers(m)
    unfolded = activation_buffers(m, fold_aliases=False)
    assert len(folded) == len(unfolded) - 1
    reshape = next(op for op in m.operators if op.type == "RESHAPE")
    i = folded.buffer_of_tensor()[reshape.outputs[0]]
    assert folded.tensors[i] == (reshape.inputs[0], reshape.outputs[0])
    assert (folded.first[i], folded.last[i]) == (9, 11)


def test_variable_tensors_stay_outside_the_arena():
    m = ap.load_tflite(model_path("tflm_keyword_scrambled_int8"))
    bufs = activation_buffers(m)
    planned = {t for ts in bufs.tensors for t in ts}
    assert not planned & set(bufs.variable_tensors)
    assert bufs.variable_bytes == 10240
