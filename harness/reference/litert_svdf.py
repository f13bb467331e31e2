"""One-op int8 SVDF models for LiteRT, built in memory from a reference/svdf.py random_case
(the state a variable tensor, TFLite's RELU fused activation of the integer path)."""
from __future__ import annotations

import numpy as np

from . import litert_layers as L

__all__ = ["svdf_model", "STATE"]

#: Tensor index of the state (variable) tensor in the generated model.
STATE = 4


def svdf_model(c: dict) -> bytes:
    """The flatbuffer of one SVDF of case c."""
    from ai_edge_litert import schema_py_generated as S
    x, wf, st_, wt, y = c["scales"]
    b, f, m, r = c["batches"], c["filters"], c["memory"], c["rank"]
    units = f // r
    tensors = [dict(shape=(b, c["input_size"]), dtype="int8", scale=x, zero_point=c["input_zero_point"]),
               dict(shape=(f, c["input_size"]), dtype="int8", scale=wf, zero_point=0, data=c["wf"]),
               dict(shape=(f, m), dtype="int16", scale=wt, zero_point=0, data=c["wt"]),
               dict(shape=(units,), dtype="int32", scale=x * wf, zero_point=0,
                    data=c["bias"] if c["bias"] is not None else np.zeros(units, np.int32)),
               dict(shape=(b, f * m), dtype="int16", scale=st_, zero_point=0, variable=True),
               dict(shape=(b, units), dtype="int8", scale=y, zero_point=c["output_zero_point"])]
    opts = S.SVDFOptionsT()
    opts.rank = r
    opts.fusedActivationFunction = S.ActivationFunctionType.RELU
    inputs = [0, 1, 2, 3 if c["bias"] is not None else -1, STATE]
    return L.single_op_model("SVDF", tensors, inputs, [5], "SVDFOptions", opts, version=3)
