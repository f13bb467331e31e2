"""arenaplan.ops.lstm_params: the integer LSTM parameters from scales and from an imported model.

Bit-exactness of these parameters is proven end to end in tests/c/test_lstm.py (the C kernel
with them against LiteRT on the shared model and on generated ones); here: the parts that
are decided without running anything, and every refusal."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import arenaplan as ap
from arenaplan.ops.lstm_params import CELL_SCALE_RANGE, lstm_operands, lstm_quant_params
from arenaplan.model.quantize import quantize_multiplier
from conftest import model_path

BASE = dict(input_scale=0.0039215689, input_zero_point=-128, input_weight_scales=[0.009, 0.0074, 0.0094, 0.0118],
            recurrent_weight_scales=[0.0093, 0.0058, 0.0049, 0.0082], output_state_scale=0.0078167,
            output_state_zero_point=0, cell_state_scale=2.0 ** -12, hidden_scale=0.0078167,
            hidden_zero_point=0, cell_clip=10.0)


def test_fields_follow_tflite_prepare():
    q = lstm_quant_params(**BASE)
    assert q.input_offset == 128 and q.output_state_offset == 0 and q.hidden_zero_point == 0
    assert q.cell_scale_log2 == -12
    assert q.cell_clip == 32767   # 10 / 2^-12 = 40960, saturated to int16
    for g in range(4):
        # float32 product, then an exact division by 2^-12
        real = float(np.float32(np.float32(BASE["input_weight_scales"][g]) * np.float32(BASE["input_scale"])))
        assert (q.input_multiplier[g], q.input_shift[g]) == quantize_multiplier(real * 4096)
    assert (q.hidden_multiplier, q.hidden_shift) == quantize_multiplier(
        float(np.float32(2.0 ** -30 / float(np.float32(BASE["hidden_scale"])))))


def test_float32_products_differ_from_double_ones():
    """TFLite's Prepare multiplies the float scales in float: the Q31 multipliers differ from a
    double computation in their low bits (LiteRT agrees with the float ones, tests/c)."""
    q = lstm_quant_params(**BASE)
    double = [quantize_multiplier(float(np.float32(w)) * float(np.float32(BASE["input_scale"])) * 4096)[0]
              for w in BASE["input_weight_scales"]]
    assert list(q.input_multiplier) != double


@pytest.mark.parametrize("clip,expected", [(0.0, 0), (3.0, 12288), (1e-5, 0), (2.5e-4, 1)])
def test_cell_clip_in_cell_units(clip, expected):
    assert lstm_quant_params(**dict(BASE, cell_clip=clip)).cell_clip == expected


@pytest.mark.parametrize("k", range(CELL_SCALE_RANGE[0], CELL_SCALE_RANGE[1] + 1))
def test_every_supported_cell_scale(k):
    assert lstm_quant_params(**dict(BASE, cell_state_scale=2.0 ** k)).cell_scale_log2 == k


@pytest.mark.parametrize("change,text", [
    (dict(cell_state_scale=0.0003), "not a power of two"),
    (dict(cell_state_scale=2.0 ** -16), r"outside 2\^-15\.\.2\^-9"),
    (dict(cell_state_scale=2.0 ** -8), r"outside 2\^-15\.\.2\^-9"),
    (dict(input_scale=0.0), "input scale"),
    (dict(output_state_scale=float("nan")), "output state scale"),
    (dict(hidden_scale=-1.0), "hidden"),
    (dict(input_zero_point=128), "input zero point"),
    (dict(hidden_zero_point=-129), "hidden zero point"),
    (dict(cell_clip=-1.0), "cell_clip"),
    (dict(input_weight_scales=[0.01] * 3), "4 input and 4 recurrent"),
    (dict(recurrent_weight_scales=[0.01, 0.01, 0.0, 0.01]), "cell gate recurrent weight scale"),
])
def test_bad_scales_are_refused(change, text):
    with pytest.raises(ap.InvalidArgument, match=text):
        lstm_quant_params(**dict(BASE, **change))


def _mnist():
    return ap.load_tflite(model_path("tflm_mnist_lstm_int8"))


def test_operands_of_the_shared_model():
    m = _mnist()
    ops = lstm_operands(m, m.operators[0])
    assert (ops.batches, ops.time_steps, ops.input_size, ops.cell_size) == (1, 28, 28, 20)
    lstm = m.operators[0]
    for g in range(4):
        np.testing.assert_array_equal(ops.input_weights[g], m.tensors[lstm.inputs[1 + g]].data)
        np.testing.assert_array_equal(ops.recurrent_weights[g], m.tensors[lstm.inputs[5 + g]].data)
        np.testing.assert_array_equal(ops.biases[g], m.tensors[lstm.inputs[12 + g]].data)
    assert (ops.output_state, ops.cell_state) == (lstm.inputs[18], lstm.inputs[19])
    assert m.tensors[ops.output_state].is_variable and m.tensors[ops.cell_state].dtype == "int16"
    assert ops.params.input_offset == 128 and ops.params.cell_scale_log2 == -12


def _with_op(m, **changes):
    ops = list(m.operators)
    ops[0] = dataclasses.replace(ops[0], **changes)
    return ap.Model("changed", m.tensors, ops, m.inputs, m.outputs)


def _with_input(m, k, tensor):
    inputs = list(m.operators[0].inputs)
    inputs[k] = tensor
    return _with_op(m, inputs=tuple(inputs))


def test_unsupported_forms_are_refused():
    m = _mnist()
    weights = m.operators[0].inputs[2]
    cases = [
        (_with_input(m, 1, -1), "CIFG"),
        (_with_input(m, 10, weights), "peephole"),
        (_with_input(m, 16, weights), "projection"),
        (_with_input(m, 21, weights), "layer norm"),
        (_with_input(m, 13, -1), "forget gate bias"),
        (_with_input(m, 18, m.operators[0].inputs[0]), "output state"),
        (_with_input(m, 6, m.operators[0].inputs[2]), "recurrent-to-forget weights have shape"),
        (_with_op(m, intermediates=m.operators[0].intermediates[:4]), "intermediate"),
        (_with_op(m, inputs=m.operators[0].inputs[:19]), "20 or 24 inputs"),
    ]
    for model, text in cases:
        with pytest.raises(ap.UnsupportedModel, match=text):
            lstm_operands(model, 0)
    with pytest.raises(ap.UnsupportedModel, match="is not an UNIDIRECTIONAL_SEQUENCE_LSTM"):
        lstm_operands(m, 1)
