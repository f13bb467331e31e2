"""Check a run against TensorFlow Lite: the same model and inputs through LiteRT's
reference kernels (``OpResolverType.BUILTIN_REF``), the standard arenaplan's kernels are
bit-exact with. Needs ``ai-edge-litert`` (pip install "arenaplan[test]").
"""
from __future__ import annotations

import struct
from pathlib import Path
from typing import List, Sequence, Union

import numpy as np

from ..errors import InvalidArgument

__all__ = ["litert_model_bytes", "litert_reference_runs"]


def litert_model_bytes(path: Union[str, Path]) -> bytes:
    """The model file's bytes, with per-axis ``quantized_dimension`` fields that exceed their
    tensor's rank reset to 0: person_detect's 1-D biases declare axis 3, which LiteRT's
    loader rejects (TFLite Micro accepts it, and no kernel reads the field of a bias)."""
    import tflite
    buf = bytearray(Path(path).read_bytes())
    model = tflite.Model.GetRootAsModel(buf, 0)
    sg = model.Subgraphs(0)
    for i in range(sg.TensorsLength()):
        t = sg.Tensors(i)
        q = t.Quantization()
        if q is None:
            continue
        off = q._tab.Offset(16)  # QuantizationParameters.quantized_dimension
        if off and q.QuantizedDimension() >= max(t.ShapeLength(), 1):
            struct.pack_into("<i", buf, q._tab.Pos + off, 0)
    return bytes(buf)


def litert_reference_runs(path: Union[str, Path], runs: Sequence[Sequence[np.ndarray]]
                          ) -> List[List[np.ndarray]]:
    """Outputs of LiteRT's reference kernels for each run's inputs (in the model's input
    order), run in order by one interpreter, so a stateful model's variable tensors carry
    over from run to run as in ``ap.Interpreter``."""
    try:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType
    except ImportError:
        raise InvalidArgument("checking against LiteRT needs ai-edge-litert: "
                              "pip install 'arenaplan[test]'") from None
    it = Interpreter(model_content=litert_model_bytes(path),
                     experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    inputs, outputs = it.get_input_details(), it.get_output_details()
    results = []
    for xs in runs:
        if len(xs) != len(inputs):
            raise InvalidArgument(f"LiteRT's model takes {len(inputs)} input(s), got {len(xs)}")
        for d, x in zip(inputs, xs):
            it.set_tensor(d["index"], x)
        it.invoke()
        results.append([it.get_tensor(d["index"]).copy() for d in outputs])
    return results
