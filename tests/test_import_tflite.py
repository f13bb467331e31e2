"""ap.load_tflite on the shared real models, and on files that are not models."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arenaplan as ap
from conftest import MODEL_NAMES, model_path

# From ../shared/models/README.md: ops per type, activation tensors, input and output shapes.
EXPECTED = {
    "mlperf_tiny_ad_autoencoder_int8": ({"FULLY_CONNECTED": 10}, 11, (1, 640), (1, 640)),
    "mlperf_tiny_ic_resnet8_int8": ({"CONV_2D": 9, "ADD": 3, "AVERAGE_POOL_2D": 1, "RESHAPE": 1,
                                     "FULLY_CONNECTED": 1, "SOFTMAX": 1}, 17, (1, 32, 32, 3), (1, 10)),
    "mlperf_tiny_kws_dscnn_int8": ({"CONV_2D": 5, "DEPTHWISE_CONV_2D": 4, "AVERAGE_POOL_2D": 1,
                                    "RESHAPE": 1, "FULLY_CONNECTED": 1, "SOFTMAX": 1}, 14,
                                   (1, 49, 10, 1), (1, 12)),
    "mlperf_tiny_vww_mobilenetv1_025_int8": ({"CONV_2D": 14, "DEPTHWISE_CONV_2D": 13,
                                              "AVERAGE_POOL_2D": 1, "RESHAPE": 1,
                                              "FULLY_CONNECTED": 1, "SOFTMAX": 1}, 32,
                                             (1, 96, 96, 3), (1, 2)),
    "tflm_person_detect_int8": ({"DEPTHWISE_CONV_2D": 14, "CONV_2D": 14, "AVERAGE_POOL_2D": 1,
                                 "RESHAPE": 1, "SOFTMAX": 1}, 32, (1, 96, 96, 1), (1, 2)),
    "tflm_hello_world_int8": ({"FULLY_CONNECTED": 3}, 4, (1, 1), (1, 1)),
    "tflm_micro_speech_int8": ({"RESHAPE": 1, "DEPTHWISE_CONV_2D": 1, "FULLY_CONNECTED": 1,
                                "SOFTMAX": 1}, 5, (1, 1960), (1, 4)),
}


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_every_shared_model_imports(name):
    m = ap.load_tflite(model_path(name))
    assert m.operators and m.inputs and m.outputs
    assert len(m.digest) == 64
    for op in m.operators:
        assert op.type
        for t in op.outputs:
            assert not m.tensors[t].is_constant
    if name in EXPECTED:
        counts, n_act, in_shape, out_shape = EXPECTED[name]
        assert m.op_types() == counts
        assert len(m.activation_tensors()) == n_act
        assert m.tensors[m.inputs[0]].shape == in_shape
        assert m.tensors[m.outputs[0]].shape == out_shape


def test_quantisation_and_constants_are_kept():
    m = ap.load_tflite(model_path("mlperf_tiny_kws_dscnn_int8"))
    conv = m.operators[0]
    assert conv.type == "CONV_2D"
    assert conv.options["stride_h"] == 2 and conv.options["padding"] == "SAME"
    assert conv.options["fused_activation_function"] == "RELU"
    weights = m.tensors[conv.inputs[1]]
    assert weights.dtype == "int8" and weights.data.shape == weights.shape == (64, 10, 4, 1)
    assert weights.quantization.per_channel and len(weights.quantization.scale) == 64
    bias = m.tensors[conv.inputs[2]]
    assert bias.dtype == "int32" and bias.data.dtype == np.int32
    x = m.tensors[m.inputs[0]]
    assert x.quantization.scale[0] > 0 and not x.is_constant


def test_depth_multiplier_and_reshape_options():
    m = ap.load_tflite(model_path("tflm_person_detect_int8"))
    dw = next(op for op in m.operators if op.type == "DEPTHWISE_CONV_2D")
    assert dw.options["depth_multiplier"] == 8
    speech = ap.load_tflite(model_path("tflm_micro_speech_int8"))
    assert speech.operators[0].options["new_shape"] == (-1, 49, 40, 1)


def test_custom_ops_are_kept_and_named():
    m = ap.load_tflite(model_path("tflm_audio_preprocessor_int8"))
    customs = [op for op in m.operators if op.is_custom]
    assert len(customs) == 9
    assert all(op.type.startswith("CUSTOM:Signal") for op in customs)
    assert sum(1 for op in m.operators if len(op.outputs) == 2) == 2


def test_variable_tensors_are_reported():
    m = ap.load_tflite(model_path("tflm_keyword_scrambled_int8"))
    assert len(m.variable_tensors()) == 7
    assert sum(m.tensors[t].nbytes for t in m.variable_tensors()) == 10240
    assert len(m.tensors) == 54 and len(m.operators) == 15
    lstm = ap.load_tflite(model_path("tflm_mnist_lstm_int8"))
    assert sum(lstm.tensors[t].nbytes for t in lstm.variable_tensors()) == 60


def test_op_intermediates_are_kept():
    """The integer LSTM's five intermediates (its Prepare reads the fifth one's scale)."""
    m = ap.load_tflite(model_path("tflm_mnist_lstm_int8"))
    lstm = m.operators[0]
    assert len(lstm.intermediates) == 5
    names = [m.tensors[t].name for t in lstm.intermediates]
    assert names[0].startswith("input_to_input") and names[4].startswith("effective_hidden_scale")
    hidden = m.tensors[lstm.intermediates[4]]
    assert hidden.shape == (0,) and hidden.nbytes == 0 and hidden.quantization.scale[0] > 0
    assert all(op.intermediates == () for op in m.operators[1:])
    assert not set(lstm.intermediates) & set(m.activation_tensors())


def test_intermediate_out_of_range_is_rejected():
    m = ap.load_tflite(model_path("tflm_mnist_lstm_int8"))
    ops = list(m.operators)
    ops[0] = ap.Operator(0, ops[0].type, ops[0].inputs, ops[0].outputs, ops[0].options,
                         intermediates=(len(m.tensors),))
    with pytest.raises(ap.ModelError, match="intermediate names tensor"):
        ap.Model("bad", m.tensors, ops, m.inputs, m.outputs)


def test_missing_file(tmp_path):
    with pytest.raises(ap.ModelError) as info:
        ap.load_tflite(tmp_path / "nope.tflite")
    assert "nope.tflite" in str(info.value)


def test_empty_and_non_flatbuffer_files(tmp_path):
    empty = tmp_path / "empty.tflite"
    empty.write_bytes(b"")
    with pytest.raises(ap.ModelError, match="too short"):
        ap.load_tflite(empty)
    text = tmp_path / "text.tflite"
    text.write_bytes(b"this is not a flatbuffer at all, just text")
    with pytest.raises(ap.ModelError, match="not a TFLite flatbuffer"):
        ap.load_tflite(text)


@pytest.mark.parametrize("fraction", [0.02, 0.1, 0.3, 0.5, 0.9, 0.999])
def test_truncated_model(tmp_path, fraction):
    data = model_path("mlperf_tiny_kws_dscnn_int8").read_bytes()
    cut = tmp_path / "cut.tflite"
    cut.write_bytes(data[: int(len(data) * fraction)])
    with pytest.raises(ap.ModelError):
        ap.load_tflite(cut)


def test_model_with_zero_ops():
    import flatbuffers
    import tflite

    b = flatbuffers.Builder(256)
    tflite.SubGraphStartTensorsVector(b, 0)
    tensors = b.EndVector()
    tflite.SubGraphStartOperatorsVector(b, 0)
    ops = b.EndVector()
    tflite.SubGraphStart(b)
    tflite.SubGraphAddTensors(b, tensors)
    tflite.SubGraphAddOperators(b, ops)
    graph = tflite.SubGraphEnd(b)
    tflite.ModelStartSubgraphsVector(b, 1)
    b.PrependUOffsetTRelative(graph)
    graphs = b.EndVector()
    tflite.ModelStart(b)
    tflite.ModelAddVersion(b, 3)
    tflite.ModelAddSubgraphs(b, graphs)
    b.Finish(tflite.ModelEnd(b), file_identifier=b"TFL3")
    with pytest.raises(ap.ModelError, match="no ops"):
        ap.parse_tflite(bytes(b.Output()), name="empty")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_corrupted_bytes_never_crash(data):
    raw = bytearray(model_path("tflm_micro_speech_int8").read_bytes())
    for _ in range(data.draw(st.integers(1, 8))):
        pos = data.draw(st.integers(8, len(raw) - 1))
        raw[pos] = data.draw(st.integers(0, 255))
    try:
        m = ap.parse_tflite(bytes(raw), name="fuzzed")
    except ap.ModelError:
        return
    assert isinstance(m, ap.Model)
