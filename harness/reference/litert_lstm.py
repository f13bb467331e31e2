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

from . import litert_layers as L

__all__ = ["lstm_model", "run_lstm", "OUTPUT_STATE", "CELL_STATE", "OUTPUT"]

# Tensor indices of the generated model.
INPUT, OUTPUT_STATE, CELL_STATE, OUTPUT = 0, 13, 14, 20


def lstm_model(*, batches: int, time_steps: int, input_weights, recurrent_weights, biases,
               input_scale: float, input_zero_point: int, weight_scales, output_state_scale: float,
               output_state_zero_point: int, cell_scale_log2: int, hidden_scale: float,
               hidden_zero_point: int, cell_clip: float = 0.0, time_major: bool = False) -> bytes:
    """The flatbuffer of one int8 LSTM. weight_scales: 8 floats (4 input-to-gate, then 4
    recurrent-to-gate, gate order input, forget, cell, output)."""
    from ai_edge_litert import schema_py_generated as S

    n_cell, n_input = np.asarray(input_weights[0]).shape
    tensors = []

    def add(shape, dtype, scale=None, zero_point=0, data=None, variable=False):
        tensors.append(dict(shape=shape, dtype=dtype, scale=scale, zero_point=zero_point, data=data,
                            variable=variable))
        return len(tensors) - 1

    in_shape = (time_steps, batches, n_input) if time_major else (batches, time_steps, n_input)
    out_shape = in_shape[:2] + (n_cell,)
    assert add(in_shape, "int8", input_scale, input_zero_point) == INPUT
    wx = [add((n_cell, n_input), "int8", weight_scales[g], 0, np.asarray(input_weights[g], np.int8))
          for g in range(4)]
    wh = [add((n_cell, n_cell), "int8", weight_scales[4 + g], 0, np.asarray(recurrent_weights[g], np.int8))
          for g in range(4)]
    b = [add((n_cell,), "int32", float(np.float32(input_scale) * np.float32(weight_scales[g])), 0,
             np.asarray(biases[g], np.int32)) for g in range(4)]
    assert add((batches, n_cell), "int8", output_state_scale, output_state_zero_point,
               variable=True) == OUTPUT_STATE
    assert add((batches, n_cell), "int16", 2.0 ** cell_scale_log2, 0, variable=True) == CELL_STATE
    intermediates = [add((0,), "float32") for _ in range(4)]
    intermediates.append(add((0,), "int8", hidden_scale, hidden_zero_point))
    assert add(out_shape, "int8", output_state_scale, output_state_zero_point) == OUTPUT

    opts = S.UnidirectionalSequenceLSTMOptionsT()
    opts.fusedActivationFunction = S.ActivationFunctionType.TANH
    opts.cellClip = float(cell_clip)
    opts.projClip = 0.0
    opts.timeMajor = bool(time_major)
    inputs = [INPUT] + wx + wh + [-1, -1, -1] + b + [-1, -1, OUTPUT_STATE, CELL_STATE, -1, -1, -1, -1]
    return L.single_op_model("UNIDIRECTIONAL_SEQUENCE_LSTM", tensors, inputs, [OUTPUT],
                             "UnidirectionalSequenceLSTMOptions", opts, version=1,
                             intermediates=intermediates)


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
