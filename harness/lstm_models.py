"""One-LSTM models written with the tflite schema, for the tests and the TFLite Micro
benchmark: the 16x8 LSTM (int16 activations, int8 weights, int64 biases; TFLite Micro's 24
operands) and the float32 LSTM (tensor k is operand k, the absent operands' tensors kept in
the subgraph, unused, as converters leave them). The int8 LSTM's builder is
harness.reference.litert_lstm.lstm_model."""
from __future__ import annotations

import numpy as np

from .reference.litert_layers import single_op_model

#: tensor indices in lstm16_model: the input, the output state, the cell state
LSTM16_INPUT, LSTM16_OUT_STATE, LSTM16_CELL_STATE = 0, 13, 14
#: tensor indices in lstm_f32_model: the output state, the cell state
LSTM_F32_OUT_STATE, LSTM_F32_CELL_STATE = 18, 19
_F32_ACTS = {"NONE": 0, "RELU": 1, "TANH": 4}
_ACTS16 = {"TANH": 4, "RELU": 1}   # the schema's ActivationFunctionType values


def _S():
    from ai_edge_litert import schema_py_generated as S
    return S


def lstm16_model(seed: int, batches: int, steps: int, depth: int, cells: int, *, time_major=False,
                 input_scale=2e-4, state_scale=1.5e-4, cell_scale=2.0 ** -11, cell_clip=0.0, weight_scale=0.01,
                 bias_range=200_000, act="TANH", bias_dtype="int64", weight_zp=0, per_channel=False,
                 input_zp=0, variable=True, extra=(), absent=()) -> bytes:
    """A one-LSTM model of 24 operands (TensorFlow Lite Micro requires all 24): tensor 0 the
    input, 1-8 the weights, 9-12 the biases, 13 / 14 the output / cell state, 15 the output;
    the operands in ``extra`` (peepholes 9-11, projection 16-17, layer norm 20-23) get tensors
    of their own, those in ``absent`` are left out."""
    rng = np.random.default_rng(seed)
    tensors = []

    def add(shape, dtype, scale=None, zp=0, data=None, var=False, qdim=0):
        tensors.append(dict(shape=shape, dtype=dtype, scale=scale, zero_point=zp, data=data, variable=var,
                            quantized_dimension=qdim))
        return len(tensors) - 1

    in_shape = (steps, batches, depth) if time_major else (batches, steps, depth)
    add(in_shape, "int16", input_scale, input_zp)
    scales = [weight_scale * (1.0 + 0.15 * g) for g in range(8)]
    for g in range(8):
        shape = (cells, depth) if g < 4 else (cells, cells)
        scale = [scales[g] * (1 + 0.01 * k) for k in range(cells)] if per_channel else scales[g]
        zp = [weight_zp] * cells if per_channel else weight_zp
        add(shape, "int8", scale, zp, rng.integers(-127, 128, shape).astype(np.int8))
    for g in range(4):
        data = rng.integers(-bias_range, bias_range + 1, cells)
        add((cells,), bias_dtype, float(np.float32(input_scale) * np.float32(scales[g])), 0, data.astype(bias_dtype))
    add((batches, cells), "int16", state_scale, 0, var=variable)
    add((batches, cells), "int16", cell_scale, 0, var=variable)
    add(in_shape[:2] + (cells,), "int16", state_scale, 0)
    operands = {0: 0, **{k: k for k in range(1, 9)}, **{12 + g: 9 + g for g in range(4)}, 18: LSTM16_OUT_STATE, 19: LSTM16_CELL_STATE}
    for k in extra:
        shape = (cells, cells) if k == 16 else (cells,)
        operands[k] = add(shape, "int16" if k != 16 else "int8", 0.01, 0, np.ones(shape, np.int16 if k != 16 else np.int8))
    for k in absent:
        operands.pop(k, None)
    o = _S().UnidirectionalSequenceLSTMOptionsT()
    o.fusedActivationFunction = _ACTS16[act]
    o.cellClip, o.projClip, o.timeMajor = float(cell_clip), 0.0, bool(time_major)
    return single_op_model("UNIDIRECTIONAL_SEQUENCE_LSTM", tensors, [operands.get(k, -1) for k in range(24)],
                           [15], "UnidirectionalSequenceLSTMOptions", o, version=1)


def lstm_f32_model(rng, batches, steps, depth, cells, time_major=False, cell_clip=0.0, act="TANH", scale=0.5,
                   extra=(), absent=(), wdtype="float32", variable=True) -> bytes:
    """A one-LSTM model: tensor k is operand k of the op (24 operands: 9-11, 16, 17 and 20-23
    absent unless in ``extra``; those in ``absent`` left out too), the output is tensor 24."""
    import flatbuffers
    S = _S()
    shapes = {0: (steps, batches, depth) if time_major else (batches, steps, depth)}
    for k in range(1, 5):
        shapes[k] = (cells, depth)
    for k in range(5, 9):
        shapes[k] = (cells, cells)
    for k in (9, 10, 11, 12, 13, 14, 15, 17, 20, 21, 22, 23):
        shapes[k] = (cells,)
    shapes[16] = (cells, cells)
    shapes[18] = shapes[19] = (batches, cells)
    present = set(range(0, 9)) | {12, 13, 14, 15, 18, 19} | set(extra)
    present -= set(absent)
    model = S.ModelT()
    model.version = 3
    code = S.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = S.BuiltinOperator.UNIDIRECTIONAL_SEQUENCE_LSTM
    code.version = 1
    model.operatorCodes = [code]
    model.buffers = [S.BufferT()]
    sg = S.SubGraphT()
    sg.tensors = []
    for k in range(25):
        t = S.TensorT()
        t.shape = list(shapes[k]) if k < 24 else (
            [steps, batches, cells] if time_major else [batches, steps, cells])
        t.type, t.name = S.TensorType.FLOAT32, f"t{k}"
        buf = S.BufferT()
        if k in present and k not in (0, 18, 19, 24):
            data = (rng.standard_normal(shapes[k]) * scale).astype(np.float32)
            if 12 <= k <= 15:
                data = (rng.standard_normal(shapes[k]) * 0.3 + (1.0 if k == 13 else 0.0)).astype(np.float32)
            if wdtype == "int8" and 1 <= k <= 8:
                t.type = S.TensorType.INT8
                q = S.QuantizationParametersT()
                q.scale, q.zeroPoint = [scale / 40], [0]
                t.quantization = q
                data = np.clip(np.round(data / (scale / 40)), -127, 127).astype(np.int8)
            buf.data = np.ascontiguousarray(data).view(np.uint8).reshape(-1).tolist()
        t.isVariable = k in (18, 19) and variable
        model.buffers.append(buf)
        t.buffer = len(model.buffers) - 1
        sg.tensors.append(t)
    op = S.OperatorT()
    op.opcodeIndex = 0
    op.inputs = [k if k in present else -1 for k in range(24)]
    op.outputs = [24]
    op.builtinOptionsType = S.BuiltinOptions.UnidirectionalSequenceLSTMOptions
    o = S.UnidirectionalSequenceLSTMOptionsT()
    o.fusedActivationFunction, o.cellClip, o.projClip, o.timeMajor = _F32_ACTS[act], cell_clip, 0.0, time_major
    op.builtinOptions = o
    sg.operators = [op]
    sg.inputs, sg.outputs = [0], [24]
    model.subgraphs = [sg]
    fb = flatbuffers.Builder(1024)
    fb.Finish(model.Pack(fb), file_identifier=b"TFL3")
    return bytes(fb.Output())


def lstm_s8_model(seed: int, batches: int, steps: int, depth: int, cells: int, *, time_major=False) -> bytes:
    """An int8 LSTM (int16 cell state of scale 2^-11) of random weights and biases from ``seed``."""
    from .reference.litert_lstm import lstm_model
    rng = np.random.default_rng(seed)
    wx = [rng.integers(-127, 128, (cells, depth)).astype(np.int8) for _ in range(4)]
    wh = [rng.integers(-127, 128, (cells, cells)).astype(np.int8) for _ in range(4)]
    biases = [rng.integers(-2000, 2001, cells).astype(np.int32) for _ in range(4)]
    return lstm_model(batches=batches, time_steps=steps, input_weights=wx, recurrent_weights=wh, biases=biases,
                      input_scale=0.02, input_zero_point=3, weight_scales=[0.004 + 0.0005 * g for g in range(8)],
                      output_state_scale=1 / 128, output_state_zero_point=-2, cell_scale_log2=-11,
                      hidden_scale=2.0 ** -7, hidden_zero_point=0, time_major=time_major)
