"""Import TensorFlow Lite flatbuffers with the official schema (the ``tflite`` package).

Subgraph 0 becomes the Model: ops in execution order, every tensor with shape,
dtype, quantisation, constant data and the variable flag. The other subgraphs are read
where subgraph 0 calls them: resource variables become variable tensors and CALL_ONCE's
initialisation subgraph their starting values (``resources``); IF and WHILE become the ops
of the subgraphs they run, inlined with jumps and copies (``control_flow``). Unknown builtin and
custom ops are kept and named (``CUSTOM:<code>`` / ``BUILTIN_<n>``), never dropped.
A SPLIT, SPLIT_V or UNPACK of N outputs becomes N ops of one output each (``one_output_ops``), so
the Model's op indices count them.
Malformed files raise ModelError naming the file and what is wrong.
"""
from __future__ import annotations

import hashlib
import inspect
import re
import struct
from pathlib import Path
from typing import Any, Dict, Optional, Union

import numpy as np
import tflite
from tflite.utils import BUILTIN_OPCODE2NAME

from ...errors import ModelError
from ..model import Model, Operator, Quantization, Tensor, one_output_ops
from . import control_flow, resources

__all__ = ["load_tflite", "parse_tflite"]

_FILE_IDENTIFIER = b"TFL3"

_TENSOR_TYPES: Dict[int, str] = {
    0: "float32", 1: "float16", 2: "int32", 3: "uint8", 4: "int64", 5: "string", 6: "bool",
    7: "int16", 8: "complex64", 9: "int8", 10: "float64", 11: "complex128", 12: "uint64",
    13: "resource", 14: "variant", 15: "uint32", 16: "uint16", 17: "int4", 18: "bfloat16",
}
_NUMPY_TYPES = {"float32", "float16", "int32", "uint8", "int64", "bool", "int16", "complex64",
                "int8", "float64", "complex128", "uint64", "uint32", "uint16"}

_OPTION_CLASSES: Dict[int, str] = {
    value: name for name, value in vars(tflite.BuiltinOptions).items()
    if not name.startswith("_") and isinstance(value, int)
}
_ACTIVATIONS = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH", 5: "SIGN_BIT"}
_PADDINGS = {0: "SAME", 1: "VALID"}


def load_tflite(path: Union[str, Path], name: Optional[str] = None) -> Model:
    """Read a ``.tflite`` file into a Model (subgraph 0).

    Raises ModelError if the file cannot be read, is not a TFLite flatbuffer, is
    truncated or inconsistent, or has no ops.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ModelError(f"cannot read model file {str(p)!r}: {exc.strerror or exc}") from None
    return parse_tflite(data, name=name or p.stem, source=str(p))


def parse_tflite(data: bytes, name: str = "model", source: str = "<bytes>") -> Model:
    """Parse TFLite flatbuffer bytes into a Model (see load_tflite)."""
    data = bytes(data)
    if len(data) < 8:
        raise ModelError(f"{source}: {len(data)} bytes is too short to be a TFLite flatbuffer")
    if data[4:8] != _FILE_IDENTIFIER:
        raise ModelError(f"{source}: not a TFLite flatbuffer (file identifier {data[4:8]!r}, "
                         f"expected {_FILE_IDENTIFIER!r})")
    try:
        return _Reader(data, name, source).model()
    except ModelError:
        raise
    except (struct.error, IndexError, ValueError, TypeError, UnicodeDecodeError,
            OverflowError, AttributeError) as exc:
        raise ModelError(f"{source}: truncated or corrupt flatbuffer ({type(exc).__name__}: {exc})") from None


class _Reader:
    def __init__(self, data: bytes, name: str, source: str) -> None:
        self.data = data
        self.name = name
        self.source = source
        self.fb = tflite.Model.GetRootAs(data, 0)

    def _count(self, n: int, what: str) -> int:
        # A vector element takes at least one byte; a larger count means corruption
        # (and iterating it would take forever).
        if n < 0 or n > len(self.data):
            raise ModelError(f"{self.source}: corrupt flatbuffer: {what} claims {n} entries "
                             f"in a {len(self.data)}-byte file")
        return n

    def model(self) -> Model:
        fb = self.fb
        if self._count(fb.SubgraphsLength(), "subgraphs") == 0:
            raise ModelError(f"{self.source}: the model has no subgraphs")
        n_subgraphs = self._count(fb.SubgraphsLength(), "subgraphs")
        self.opcodes = [self._opcode(fb.OperatorCodes(i))
                        for i in range(self._count(fb.OperatorCodesLength(), "operator codes"))]
        self.n_buffers = self._count(fb.BuffersLength(), "buffers")
        tensors, ops = self._subgraph(0)
        tensors, ops = resources.resolve(tensors, ops, self._subgraph, n_subgraphs, self.source)
        inputs, outputs = self._io(0)
        ops = [control_flow.with_source(op) for op in ops]   # the file's op index, for messages
        tensors, ops = control_flow.inline(tensors, one_output_ops(ops), self._subgraph_with_io, n_subgraphs,
                                           self.source)
        return Model(self.name, tensors, ops, inputs, outputs, source=self.source,
                     digest=hashlib.sha256(self.data).hexdigest(), metadata=self._metadata(self.n_buffers))

    def _io(self, index: int) -> tuple:
        """(inputs, outputs) of subgraph ``index``: tensor indices."""
        graph = self.fb.Subgraphs(index)
        inputs = tuple(int(v) for v in self._ints(graph.InputsAsNumpy(), graph.InputsLength(), "inputs"))
        outputs = tuple(int(v) for v in self._ints(graph.OutputsAsNumpy(), graph.OutputsLength(), "outputs"))
        n = graph.TensorsLength()
        if index and any(not 0 <= t < n for t in inputs + outputs):
            raise ModelError(f"{self.source}: subgraph {index}'s inputs or outputs name a tensor outside "
                             f"its {n} tensors")
        return inputs, outputs

    def _subgraph_with_io(self, index: int) -> tuple:
        """(tensors, ops, inputs, outputs) of subgraph ``index``."""
        return (*self._subgraph(index), *self._io(index))

    def _subgraph(self, index: int) -> tuple:
        """(tensors, ops) of subgraph ``index``, ops in the file's order and indices."""
        graph = self.fb.Subgraphs(index)
        opcodes, n_buffers = self.opcodes, self.n_buffers
        where = f"subgraph {index} " if index else ""
        tensors = [self._tensor(i, graph.Tensors(i), n_buffers)
                   for i in range(self._count(graph.TensorsLength(), f"{where}tensors"))]
        ops = []
        for k in range(self._count(graph.OperatorsLength(), "operators")):
            op = graph.Operators(k)
            idx = op.OpcodeIndex()
            if not 0 <= idx < len(opcodes):
                raise ModelError(f"{self.source}: {where}op {k} uses operator code {idx}, "
                                 f"but the model defines {len(opcodes)}")
            op_type, custom = opcodes[idx]
            ops.append(Operator(
                index=k, type=op_type,
                inputs=tuple(int(v) for v in self._ints(op.InputsAsNumpy(), op.InputsLength(), "op inputs")),
                outputs=tuple(int(v) for v in self._ints(op.OutputsAsNumpy(), op.OutputsLength(), "op outputs")),
                options=self._options(op), custom_code=custom,
                intermediates=tuple(int(v) for v in self._ints(
                    op.IntermediatesAsNumpy(), op.IntermediatesLength(), "op intermediates"))))
        for op in ops:   # operands name this subgraph's tensors (the Model checks subgraph 0's)
            for t in op.inputs + op.outputs:
                if index and not -1 <= t < len(tensors):
                    raise ModelError(f"{self.source}: subgraph {index} op {op.index} ({op.type}) names "
                                     f"tensor {t}, but the subgraph has {len(tensors)} tensors")
        return tensors, ops

    def _metadata(self, n_buffers: int) -> Dict[str, bytes]:
        """Name -> buffer bytes of the model's metadata entries (later entries of one name win,
        as TFLite's readers take the last)."""
        out: Dict[str, bytes] = {}
        for k in range(self._count(self.fb.MetadataLength(), "metadata entries")):
            md = self.fb.Metadata(k)
            name = (md.Name() or b"").decode("utf-8", "replace")
            b = int(md.Buffer())
            if not 0 <= b < n_buffers:
                raise ModelError(f"{self.source}: metadata entry {k} ({name!r}) names buffer {b}, "
                                 f"but the model has {n_buffers}")
            buf = self.fb.Buffers(b)
            out[name] = buf.DataAsNumpy().tobytes() if buf.DataLength() > 0 else b""
        return out

    def _ints(self, arr: Any, length: int, what: str) -> np.ndarray:
        self._count(length, what)
        if isinstance(arr, int):  # the generated code returns 0 for an absent vector
            return np.zeros(0, dtype=np.int64)
        return np.asarray(arr, dtype=np.int64)

    def _opcode(self, oc: Any) -> tuple:
        code = max(int(oc.BuiltinCode()), int(oc.DeprecatedBuiltinCode()))
        if code == 32:  # CUSTOM
            custom = oc.CustomCode()
            text = custom.decode("utf-8", "replace") if custom else "?"
            return f"CUSTOM:{text}", text
        return BUILTIN_OPCODE2NAME.get(code, f"BUILTIN_{code}"), None

    def _tensor(self, i: int, t: Any, n_buffers: int) -> Tensor:
        type_name = _TENSOR_TYPES.get(int(t.Type()), f"type{int(t.Type())}")
        shape = tuple(int(v) for v in self._ints(t.ShapeAsNumpy(), t.ShapeLength(), "tensor shape"))
        raw_name = t.Name()
        name = raw_name.decode("utf-8", "replace") if raw_name else f"tensor{i}"
        quant = None
        q = t.Quantization()
        if q is not None and q.ScaleLength() > 0:
            self._count(q.ScaleLength(), "scales")
            scales = tuple(float(v) for v in np.atleast_1d(q.ScaleAsNumpy()))
            zps = tuple(int(v) for v in np.atleast_1d(self._ints(q.ZeroPointAsNumpy(), q.ZeroPointLength(),
                                                                  "zero points")))
            if not zps:
                zps = (0,) * len(scales)
            quant = Quantization(scales, zps, int(q.QuantizedDimension()))
        data = None
        b = int(t.Buffer())
        if b < 0 or b >= max(n_buffers, 1):
            raise ModelError(f"{self.source}: tensor {i} ({name!r}) uses buffer {b}, "
                             f"but the model has {n_buffers}")
        if b > 0:
            data = self._buffer_data(i, name, b, shape, type_name)
        return Tensor(i, name, shape, type_name, quant, data, bool(t.IsVariable()))

    def _buffer_data(self, i: int, name: str, b: int, shape: tuple, type_name: str) -> Optional[np.ndarray]:
        buf = self.fb.Buffers(b)
        raw: Optional[bytes] = None
        if buf.DataLength() > 0:
            self._count(buf.DataLength(), "buffer data")
            raw = buf.DataAsNumpy().tobytes()
        elif hasattr(buf, "Offset") and buf.Offset() > 1:
            start, size = int(buf.Offset()), int(buf.Size())
            if start + size > len(self.data):
                raise ModelError(f"{self.source}: tensor {i} ({name!r}) data [{start}, {start + size}) "
                                 f"lies beyond the end of the {len(self.data)}-byte file")
            raw = self.data[start:start + size]
        if raw is None:
            return None
        if type_name not in _NUMPY_TYPES:
            return np.frombuffer(raw, dtype=np.uint8).copy()
        dtype = np.dtype(type_name).newbyteorder("<")
        count = int(np.prod(shape)) if shape else 1
        if len(raw) != count * dtype.itemsize:
            raise ModelError(f"{self.source}: tensor {i} ({name!r}) has {len(raw)} bytes of data, "
                             f"shape {shape} of {type_name} needs {count * dtype.itemsize}")
        return np.frombuffer(raw, dtype=dtype).reshape(shape).astype(dtype.newbyteorder("="))

    def _options(self, op: Any) -> Dict[str, Any]:
        kind = int(op.BuiltinOptionsType())
        table = op.BuiltinOptions()
        cls_name = _OPTION_CLASSES.get(kind)
        if not kind or table is None or cls_name is None or not hasattr(tflite, cls_name):
            return {}
        options = getattr(tflite, cls_name)()
        options.Init(table.Bytes, table.Pos)
        return _decode_table(options)


_SKIP = re.compile(r"^(Init|GetRootAs.*|.*BufferHasIdentifier)$")


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _decode_table(obj: Any) -> Dict[str, Any]:
    """All scalar and vector fields of a generated options table, snake_cased."""
    cls = type(obj)
    methods = {n for n, v in vars(cls).items() if callable(v) and not _SKIP.match(n)}
    out: Dict[str, Any] = {}
    for n in sorted(methods):
        if n.endswith(("AsNumpy", "Length", "IsNone")):
            continue
        if n + "AsNumpy" in methods:
            value = getattr(obj, n + "AsNumpy")()
            out[_snake(n)] = () if isinstance(value, int) else tuple(int(v) for v in value)
            continue
        if len(inspect.signature(getattr(cls, n)).parameters) != 1:
            continue
        value = getattr(obj, n)()
        if isinstance(value, (int, float, bool)):
            out[_snake(n)] = value
        elif isinstance(value, bytes):   # VAR_HANDLE's container and shared_name
            out[_snake(n)] = value.decode("utf-8", "replace")
    if "fused_activation_function" in out:
        out["fused_activation_function"] = _ACTIVATIONS.get(out["fused_activation_function"],
                                                            str(out["fused_activation_function"]))
    if "padding" in out:
        out["padding"] = _PADDINGS.get(out["padding"], str(out["padding"]))
    return out
