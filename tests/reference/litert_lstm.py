"""One-op int8 UNIDIRECTIONAL_SEQUENCE_LSTM models for LiteRT, built in memory.

`lstm_model` writes a .tflite flatbuffer with the layout TFLite's converter gives a full-integer
LSTM (the shared mnist_lstm model's): int8 input, eight int8 weight matrices, four int32 gate
biases, variable int8 output state and int16 cell state, four unquantised gate intermediates
and a fifth int8 one that holds the hidden scale. `run_lstm` invokes it with LiteRT's
reference kernels (BUILTIN_REF) several times in a row, the variable tensors carried over as
LiteRT keeps them, and returns each invocation's output and states.
"""
from __future__ import annotations

import numpy as np

__all__ = ["lstm_model", "run_lstm", "OUTPUT_STATE", "CELL_STATE", "OUTPUT"]

# Tensor indices of the generated model.
INPUT, OUTPUT_STATE, CELL_STATE, OUTPUT = 0, 13, 14, 20


def lstm_model(*, batches: int, time_steps: int, input_weights, recurrent_weights, biases,
               input_scale: float, input_zero_point: int, weight_scales, output_state_scale: float,
               output_state_zero_point: int, cell_scale_log2: int, hidden_scale: float,
               hidden_zero_point: int, cell_clip: float = 0.0, time_major: bool = False) -> bytes:
    """The flatbuffer of one int8 LSTM. weight_scales: 8 floats (4 input-to-gate, then 4
    recurrent-to-gate, gate order input, forget, cell, output)."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as S

    n_cell, n_input = np.asarray(input_weights[0]).shape
    model = S.ModelT()
    model.version = 3
    code = S.OperatorCodeT()
    code.builtinCode = S.BuiltinOperator.UNIDIRECTIONAL_SEQUENCE_LSTM
    code.deprecatedBuiltinCode = code.builtinCode
    code.version = 1
    model.operatorCodes = [code]
    model.buffers = [S.BufferT()]
    tensors = []

    def add(shape, ttype, scale=None, zero_point=0, data=None, variable=False):
        t = S.TensorT()
        t.shape = list(shape)
        t.type = ttype
        t.name = f"t{len(tensors)}"
        t.isVariable = variable
        if scale is not None:
            q = S.QuantizationParametersT()
            q.scale = [float(scale)]
            q.zeroPoint = [int(zero_point)]
            t.quantization = q
        buf = S.BufferT()
        if data is not None:
            buf.data = np.ascontiguousarray(data).view(np.uint8).reshape(-1)  # packed in one copy
        model.buffers.append(buf)
        t.buffer = len(model.buffers) - 1
        tensors.append(t)
        return len(tensors) - 1

    tt = S.TensorType
    in_shape = (time_steps, batches, n_input) if time_major else (batches, time_steps, n_input)
    out_shape = in_shape[:2] + (n_cell,)
    assert add(in_shape, tt.INT8, input_scale, input_zero_point) == INPUT
    wx = [add((n_cell, n_input), tt.INT8, weight_scales[g], 0, np.asarray(input_weights[g], np.int8))
          for g in range(4)]
    wh = [add((n_cell, n_cell), tt.INT8, weight_scales[4 + g], 0, np.asarray(recurrent_weights[g], np.int8))
          for g in range(4)]
    b = [add((n_cell,), tt.INT32, float(np.float32(input_scale) * np.float32(weight_scales[g])), 0,
             np.asarray(biases[g], np.int32)) for g in range(4)]
    assert add((batches, n_cell), tt.INT8, output_state_scale, output_state_zero_point,
               variable=True) == OUTPUT_STATE
    assert add((batches, n_cell), tt.INT16, 2.0 ** cell_scale_log2, 0, variable=True) == CELL_STATE
    intermediates = [add((0,), tt.FLOAT32) for _ in range(4)]
    intermediates.append(add((0,), tt.INT8, hidden_scale, hidden_zero_point))
    assert add(out_shape, tt.INT8, output_state_scale, output_state_zero_point) == OUTPUT

    sg = S.SubGraphT()
    sg.tensors = tensors
    sg.inputs = [INPUT]
    sg.outputs = [OUTPUT]
    op = S.OperatorT()
    op.opcodeIndex = 0
    op.inputs = [INPUT] + wx + wh + [-1, -1, -1] + b + [-1, -1, OUTPUT_STATE, CELL_STATE, -1, -1, -1, -1]
    op.outputs = [OUTPUT]
    op.intermediates = intermediates
    opts = S.UnidirectionalSequenceLSTMOptionsT()
    opts.fusedActivationFunction = S.ActivationFunctionType.TANH
    opts.cellClip = float(cell_clip)
    opts.projClip = 0.0
    opts.timeMajor = bool(time_major)
    op.builtinOptionsType = S.BuiltinOptions.UnidirectionalSequenceLSTMOptions
    op.builtinOptions = opts
    sg.operators = [op]
    model.subgraphs = [sg]
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def run_lstm(content: bytes, inputs, output_index: int = OUTPUT, input_index: int = INPUT,
             output_state: int = OUTPUT_STATE, cell_state: int = CELL_STATE) -> list:
    """Invoke the model once per input (states carried over, starting from zero) with LiteRT's
    BUILTIN_REF kernels; returns [(output, output_state, cell_state)] per invocation."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    interp = Interpreter(model_content=content, experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                         experimental_preserve_all_tensors=True)
    interp.allocate_tensors()
    results = []
    for x in inputs:
        interp.set_tensor(input_index, np.asarray(x, dtype=np.int8))
        interp.invoke()
        results.append((np.array(interp.get_tensor(output_index)),
                        np.array(interp.get_tensor(output_state)),
                        np.array(interp.get_tensor(cell_state))))
    return results
