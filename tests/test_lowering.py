"""Lowering of SVDF, integer QUANTIZE and int16-output SOFTMAX: TFLite's Prepare checks,
each failure named with the op's index and type when the plan is made."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import arenaplan as ap
from arenaplan.ops.lowering import OP_CODES, lower
from arenaplan.model.quantize import quantize_multiplier
from conftest import model_path
from harness import svdf_models

KEYWORD = "tflm_keyword_scrambled_int8"


def test_keyword_model_lowers_with_tflite_params():
    m = ap.load_tflite(model_path(KEYWORD))
    kernels = lower(m, "portable", "litert")
    assert [k.code for k in kernels] == [OP_CODES[n] for n in
                                         ["REQUANTIZE", "SVDF", "FULLY_CONNECTED", "SVDF", "FULLY_CONNECTED",
                                          "SVDF", "FULLY_CONNECTED", "SVDF", "FULLY_CONNECTED", "SVDF", "SVDF",
                                          "SVDF", "FULLY_CONNECTED", "SOFTMAX", "REQUANTIZE"]]
    svdf = kernels[1]
    batches, input_size, filters, memory, rank, xz, yz, m1, s1, m2, s2 = (svdf.spec[f] for f in (
        "batches", "input_size", "filters", "memory", "rank", "input_zero_point", "output_zero_point",
        "feature_multiplier", "feature_shift", "time_multiplier", "time_shift"))
    assert (batches, input_size, filters, memory, rank, xz, yz) == (1, 96, 64, 8, 1, -128, -128)
    assert svdf.data_inputs == (0, 1, 2, 3) and svdf.states == (4,)
    assert [v.name for v in svdf.variants] == ["fused", "direct"]
    assert svdf.variants[0].scratch == () and svdf.variants[1].scratch == ((256, 16),)
    # TFLite's Prepare: float32 products of the scales (a double product differs here)
    f = [np.float32(m.tensors[t].quantization.scale[0]) for t in (0, 1, 4, 2, 5)]
    assert (m1, s1) == quantize_multiplier(float(f[0] * f[1] / f[2]))
    assert (m2, s2) == quantize_multiplier(float(f[2] * f[3] / f[4]))
    assert (m1, s1) != quantize_multiplier(float(f[0]) * float(f[1]) / float(f[2]))
    # QUANTIZE int16 -> int8 and int16 -> int32 carry the types; SOFTMAX writes int16
    types = ("input_type", "output_type")
    assert [kernels[0].spec[f] for f in types] == [1, 0] and [kernels[14].spec[f] for f in types] == [1, 2]
    assert kernels[14].spec["input_zero_point"] == -32768
    assert kernels[13].spec["output_type"] == 1


def _op(model, k):
    return model.operators[k]


def _retensor(model, t, **changes):
    model.tensors[t] = dataclasses.replace(model.tensors[t], **changes)


def _refused(model, mutate, op_prefix, match):
    """ap.plan refuses ``model`` once ``mutate`` has changed it, naming the op first."""
    mutate(model)
    with pytest.raises(ap.UnsupportedModel, match=op_prefix + match):
        ap.plan(model)


def _svdf_error(mutate, match):
    _refused(svdf_models.svdf_chain(), mutate, r"op 1 \(SVDF\): .*", match)


def test_svdf_activation_must_be_relu():
    _svdf_error(lambda m: _op(m, 1).options.update(fused_activation_function="NONE"),
                "fused activation NONE: TFLite's integer SVDF runs only with RELU")
    _svdf_error(lambda m: _op(m, 1).options.update(fused_activation_function="TANH"), "TANH")


def test_svdf_shapes_and_rank():
    _svdf_error(lambda m: _op(m, 1).options.update(rank=3), "rank 3 does not divide the 8 filters")
    _svdf_error(lambda m: _op(m, 1).options.update(rank=0), "rank 0 must be a positive integer")

    def bad_state_shape(m):
        _retensor(m, _op(m, 1).inputs[4], shape=(1, 47))
    _svdf_error(bad_state_shape, r"state tensor .* has shape \(1, 47\); TFLite requires "
                                 r"\[batches, memory \* filters\] = \(1, 48\)")

    def not_variable(m):
        _retensor(m, _op(m, 1).inputs[4], is_variable=False)
    _svdf_error(not_variable, "is not a variable tensor")

    def wrong_time_weights(m):
        t = _op(m, 1).inputs[2]
        _retensor(m, t, shape=(7, 6), data=m.tensors[t].data[:7])
    _svdf_error(wrong_time_weights, "weights_time has 7 filters, weights_feature 8")

    def int8_time_weights(m):
        t = _op(m, 1).inputs[2]
        _retensor(m, t, dtype="int8", data=m.tensors[t].data.astype(np.int8))
    # int8 time weights are TensorFlow Lite Micro's form: refused under LiteRT's rule (the default)
    _svdf_error(int8_time_weights, "int8 time weights: LiteRT's integer SVDF takes int16 time weights only")

    def missing_state(m):
        op = _op(m, 1)
        m.operators[1] = dataclasses.replace(op, inputs=op.inputs[:4])
    _svdf_error(missing_state, "SVDF takes 5 inputs")


def test_svdf_bias_and_quantisation():
    def bias_of_wrong_size(m):
        t = len(m.tensors)
        m.tensors.append(ap.Tensor(t, "short_bias", (5,), "int32", ap.Quantization((1e-4,), (0,)),
                                   np.zeros(5, np.int32)))
        op = _op(m, 1)
        m.operators[1] = dataclasses.replace(op, inputs=op.inputs[:3] + (t,) + op.inputs[4:])
    _svdf_error(bias_of_wrong_size, "bias tensor .* has 5 values for 8 units")
    m = svdf_models.svdf_chain()
    op0 = _op(m, 0)
    m.operators[0] = dataclasses.replace(op0, inputs=op0.inputs[:3] + (_op(m, 1).inputs[0],) + op0.inputs[4:])
    with pytest.raises(ap.UnsupportedModel, match=r"op 0 \(SVDF\): bias tensor .* is int8, expected int32"):
        ap.plan(m)

    def asymmetric_state(m):
        t = _op(m, 1).inputs[4]
        q = m.tensors[t].quantization
        _retensor(m, t, quantization=ap.Quantization(q.scale, (5,)))
    _svdf_error(asymmetric_state, "state tensor .* has zero point 5; TFLite's integer kernel ignores it")

    def asymmetric_weights(m):
        t = _op(m, 1).inputs[1]
        q = m.tensors[t].quantization
        _retensor(m, t, quantization=ap.Quantization(q.scale, (1,)))
    _svdf_error(asymmetric_weights, "weights_feature tensor .* has zero point 1")

    def huge_scale(m):
        t = _op(m, 1).inputs[4]
        _retensor(m, t, quantization=ap.Quantization((1e-14,), (0,)))
    _svdf_error(huge_scale, "multiplier")


def test_variable_tensor_as_plain_input_is_refused():
    """A variable tensor is state: an op that reads it as an activation has no place for it."""
    m = ap.load_tflite(model_path(KEYWORD))
    op = m.operators[0]
    m.operators[0] = dataclasses.replace(op, inputs=(4,))
    with pytest.raises(ap.UnsupportedModel, match=r"op 0 \(QUANTIZE\): input tensor 4 \('tensor4'\) is a "
                                                  r"variable \(state\) tensor; this op keeps no state"):
        ap.plan(m)


@pytest.mark.parametrize("pair,match", [
    (("int8", "int32"), "QUANTIZE int8 -> int32 is not supported under reference 'litert'"),
    (("int16", "uint8"), "QUANTIZE int16 -> uint8 is not supported"),
    (("float32", "uint8"), "QUANTIZE float32 -> uint8 is not supported"),
])
def test_quantize_type_pairs(pair, match):
    m = ap.load_tflite(model_path(KEYWORD))
    op = m.operators[0]
    x, y = op.inputs[0], op.outputs[0]
    _retensor(m, x, dtype=pair[0])
    _retensor(m, y, dtype=pair[1])
    with pytest.raises(ap.UnsupportedModel, match=r"op 0 \(QUANTIZE\): " + match):
        ap.plan(m)


def test_int16_requantisation_needs_zero_points_zero():
    m = ap.load_tflite(model_path(KEYWORD))
    y = m.operators[14].outputs[0]
    _retensor(m, y, dtype="int16", quantization=ap.Quantization((3.0518509447574615e-05,), (7,)))
    with pytest.raises(ap.UnsupportedModel, match=r"op 14 \(QUANTIZE\): int16 -> int16 requantisation "
                                                  r"needs zero points 0 .* got -32768 and 7"):
        ap.plan(m)


def test_int16_softmax_output_quantisation():
    m = ap.load_tflite(model_path(KEYWORD))
    y = m.operators[13].outputs[0]
    _retensor(m, y, quantization=ap.Quantization((1 / 256,), (-32768,)))
    with pytest.raises(ap.UnsupportedModel, match=r"op 13 \(SOFTMAX\): an int8 softmax's int16 output must "
                                                  r"have scale 1/65536 and zero point -32768"):
        ap.plan(m)
    _retensor(m, y, dtype="int32", quantization=ap.Quantization((1 / 65536,), (0,)))
    with pytest.raises(ap.UnsupportedModel, match=r"op 13 \(SOFTMAX\): output tensor 51 is int32"):
        ap.plan(m)


# --- UNIDIRECTIONAL_SEQUENCE_LSTM ------------------------------------------------------------
LSTM = "tflm_mnist_lstm_int8"


def test_lstm_model_lowers_to_one_weighted_kernel_with_two_states():
    m = ap.load_tflite(model_path(LSTM))
    kernel = lower(m, "portable", "litert")[0]
    op = m.operators[0]
    assert kernel.code == OP_CODES["UNIDIRECTIONAL_SEQUENCE_LSTM"] and kernel.weighted
    assert kernel.data_inputs == (op.inputs[0],) and kernel.states == (op.inputs[18], op.inputs[19])
    batches, steps, n_input, n_cell, time_major = (kernel.spec[f] for f in (
        "batches", "time_steps", "input_size", "cell_size", "time_major"))
    assert (batches, steps, n_input, n_cell, time_major) == (1, 28, 28, 20, 0)
    # the eight matrices in operand order (input-to-gate 1..4, recurrent-to-gate 5..8)
    want = np.concatenate([m.tensors[op.inputs[k]].data.reshape(-1) for k in range(1, 9)])
    np.testing.assert_array_equal(kernel.weights, want)
    np.testing.assert_array_equal(kernel.bias, np.concatenate([m.tensors[op.inputs[k]].data
                                                               for k in range(12, 16)]))
    assert [v.name for v in kernel.variants] == ["direct"] and kernel.variants[0].macs == 28 * 4 * 20 * 48
    assert len(kernel.prepared()) > kernel.weights.size


def _lstm_error(mutate, match):
    _refused(ap.load_tflite(model_path(LSTM)), mutate, r"op 0 \(UNIDIRECTIONAL_SEQUENCE_LSTM\): ", match)


def test_lstm_bad_forms_are_named_when_the_plan_is_made():
    _lstm_error(lambda m: _op(m, 0).options.update(fused_activation_function="RELU"),
                "fused activation RELU: the integer LSTM kernel runs TANH only")
    _lstm_error(lambda m: _op(m, 0).options.update(diagonal_recurrent_tensors=True),
                "diagonal recurrent weights")
    # a peephole weight present
    def peephole(m):
        op = _op(m, 0)
        op.inputs = (*op.inputs[:9], op.inputs[12], *op.inputs[10:])
    _lstm_error(peephole, r"uses peephole \(operands \[9\]\)")
    # the output state no longer a variable tensor
    _lstm_error(lambda m: _retensor(m, _op(m, 0).inputs[18], is_variable=False),
                "output state .* must be a variable int8 tensor")
    # an output tensor of the wrong size
    _lstm_error(lambda m: _retensor(m, _op(m, 0).outputs[0], shape=(1, 28, 21)),
                r"output tensor \d+ has shape \(1, 28, 21\), the op computes \(1, 28, 20\)")


def test_lstm_prepare_refuses_constants_of_the_wrong_size():
    m = ap.load_tflite(model_path(LSTM))
    kernel = lower(m, "portable", "litert")[0]
    from arenaplan import _core
    with pytest.raises(ValueError, match="filter: expected a 1-D array .* of the right length"):
        _core.kernel_prepare(kernel.code, kernel.spec, kernel.weights[:-1], kernel.bias)
    with pytest.raises(ValueError, match="bias: expected a 1-D array .* of the right length"):
        _core.kernel_prepare(kernel.code, kernel.spec, kernel.weights, kernel.bias[:-4])
