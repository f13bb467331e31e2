"""Real layers of the shared .tflite models, run through LiteRT's reference kernels.

`layers(op_names)` runs each model (except the audio preprocessor and the LSTM model) with `OpResolverType.BUILTIN_REF` and `experimental_preserve_all_tensors=True`
on random int8 inputs, and returns every op of the requested types with its actual input
and output tensors, the per-tensor / per-channel quantisation and the op's builtin options
read from the flatbuffer with the `tflite` package. Results are cached per process.

The helpers below compute kernel fields exactly as TFLite's Prepare functions do
(PopulateConvolutionQuantizationParams, CalculateActivationRangeQuantized, padding).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import ops
from ..models import MODELS_DIR  # noqa: F401  (tests read it from here)
from .quant import quantize_multiplier

SKIP = ("tflm_audio_preprocessor_int8", "tflm_mnist_lstm_int8")
SEEDS = (0, 1)
ACTIVATIONS = {0: None, 1: "relu", 2: "relu_n1_to_1", 3: "relu6"}


def unavailable_reason() -> str | None:
    """Why the LiteRT checks cannot run here, or None when they can."""
    try:
        import ai_edge_litert.interpreter  # noqa: F401
        import tflite  # noqa: F401
    except Exception as exc:  # pragma: no cover - depends on the machine
        return f"LiteRT reference kernels unavailable ({exc.__class__.__name__}: {exc}); " \
               "install ai-edge-litert and tflite"
    if not model_paths():
        return f"no models in {MODELS_DIR}"
    return None


def model_paths() -> list[Path]:
    if not MODELS_DIR.is_dir():
        return []
    return sorted(p for p in MODELS_DIR.glob("*.tflite") if p.stem not in SKIP)


@dataclass
class Layer:
    model: str
    index: int
    op: str
    options: object
    inputs: list            # np.ndarray per input (None for an omitted optional input)
    outputs: list
    input_q: list           # dicts: scales (float32 array), zero_points, quantized_dimension
    output_q: list
    seed: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.model}#{self.index}:{self.op}/seed{self.seed}"


def _patched_model(path: Path) -> bytes:
    """The model bytes as LiteRT's loader takes them (see arenaplan.cli.litert_check)."""
    from arenaplan.cli.litert_check import litert_model_bytes
    return litert_model_bytes(path)


def _options(op, name: str):
    import tflite
    classes = {"DEPTHWISE_CONV_2D": "DepthwiseConv2DOptions", "FULLY_CONNECTED": "FullyConnectedOptions",
               "AVERAGE_POOL_2D": "Pool2DOptions", "MAX_POOL_2D": "Pool2DOptions", "ADD": "AddOptions",
               "MUL": "MulOptions", "SOFTMAX": "SoftmaxOptions", "CONCATENATION": "ConcatenationOptions",
               "MEAN": "ReducerOptions", "SVDF": "SVDFOptions"}
    cls = classes.get(name)
    table = op.BuiltinOptions()
    if cls is None or table is None:
        return None
    opts = getattr(tflite, cls)()
    opts.Init(table.Bytes, table.Pos)
    return opts


@functools.lru_cache(maxsize=None)
def _run_model(path_str: str, seed: int) -> list:
    import tflite
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    path = Path(path_str)
    content = _patched_model(path)
    interp = Interpreter(model_content=content, experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                         experimental_preserve_all_tensors=True)
    interp.allocate_tensors()
    rng = np.random.default_rng(seed)
    for d in interp.get_input_details():
        info = np.iinfo(d["dtype"]) if np.issubdtype(d["dtype"], np.integer) else None
        if info is None:
            interp.set_tensor(d["index"], rng.standard_normal(d["shape"]).astype(d["dtype"]))
        else:
            interp.set_tensor(d["index"], rng.integers(info.min, info.max + 1, size=d["shape"], dtype=d["dtype"]))
    interp.invoke()
    details = interp.get_tensor_details()
    model = tflite.Model.GetRootAsModel(content, 0)
    sg = model.Subgraphs(0)
    result = []
    for op_info in interp._get_ops_details():
        i = op_info["index"]
        op = sg.Operators(i)
        assert list(op.InputsAsNumpy()) == list(op_info["inputs"]), "op order differs from the flatbuffer"

        def tensor(t):
            return None if t < 0 else np.array(interp.get_tensor(t))

        def quant(t):
            if t < 0:
                return None
            q = details[t]["quantization_parameters"]
            return dict(scales=np.asarray(q["scales"], dtype=np.float32),
                        zero_points=np.asarray(q["zero_points"], dtype=np.int64),
                        quantized_dimension=int(q["quantized_dimension"]))

        result.append(Layer(model=path.stem, index=i, op=op_info["op_name"], options=_options(op, op_info["op_name"]),
                            inputs=[tensor(t) for t in op_info["inputs"]],
                            outputs=[tensor(t) for t in op_info["outputs"]],
                            input_q=[quant(t) for t in op_info["inputs"]],
                            output_q=[quant(t) for t in op_info["outputs"]], seed=seed))
    return result


def layers(op_names) -> list:
    """Every op of the given types in the shared models, for each seed in SEEDS."""
    wanted = set(op_names)
    out = []
    for path in model_paths():
        for seed in SEEDS:
            out += [layer for layer in _run_model(str(path), seed) if layer.op in wanted]
    return out


# ---- TFLite Prepare arithmetic -------------------------------------------------------

def scale_of(q: dict) -> float:
    return float(q["scales"][0])


def zero_point_of(q: dict) -> int:
    return int(q["zero_points"][0])


def conv_multipliers(input_q: dict, filter_q: dict, output_q: dict, channels: int):
    """PopulateConvolutionQuantizationParams: per channel
    QuantizeMultiplier((double)input_scale * (double)filter_scale / (double)output_scale)."""
    fs = filter_q["scales"]
    if fs.size == 1:
        fs = np.repeat(fs, channels)
    si, so = np.float64(input_q["scales"][0]), np.float64(output_q["scales"][0])
    pairs = [quantize_multiplier(float(si * np.float64(f) / so)) for f in fs]
    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])


def fc_real_scales(input_q: dict, filter_q: dict, output_q: dict) -> np.ndarray:
    """LiteRT's reference FULLY_CONNECTED int8 requantises in double:
    (double)input_scale * (double)filter_scale[c] / (double)output_scale, one per filter scale."""
    si, so = np.float64(input_q["scales"][0]), np.float64(output_q["scales"][0])
    return np.array([si * np.float64(f) / so for f in filter_q["scales"]], dtype=np.float64)


def activation_of(code: int, output_q: dict) -> tuple[int, int]:
    """CalculateActivationRangeQuantized for a fused activation code."""
    if code not in ACTIVATIONS:
        raise ValueError(f"fused activation {code} is not supported by int8 kernels")
    return ops.activation_range(ACTIVATIONS[code], scale_of(output_q), zero_point_of(output_q))


def padding_of(padding: int, in_size: int, filter_size: int, stride: int, dilation: int, out_size: int) -> int:
    """TFLite ComputePaddingHeightWidth: SAME (0) pads (total // 2) before, VALID (1) none."""
    if padding == 1:
        return 0
    effective = (filter_size - 1) * dilation + 1
    return max((out_size - 1) * stride + effective - in_size, 0) // 2


# ---- single-op models (ops the shared models do not contain) ---------------------------

_NP_TO_TFL = {"int8": "INT8", "int16": "INT16", "int32": "INT32", "int64": "INT64", "float32": "FLOAT32", "bool": "BOOL"}


def single_op_model(op: str, tensors: list, inputs: list, outputs: list, options_type: str | None = None,
                    options=None, version: int = 2, intermediates: list = ()) -> bytes:
    """A one-op .tflite flatbuffer. tensors: dicts with shape, dtype ('int8' | 'int16' |
    'int32' | 'float32'), optional scale / zero_point (scalars or per-axis lists), optional
    constant `data` (np.ndarray) and `variable` (a state tensor, e.g. SVDF's). inputs /
    outputs / intermediates: tensor indices of the op (-1: an omitted optional input); graph
    inputs are the op inputs that are neither constant nor variable."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as S
    model = S.ModelT()
    model.version = 3
    code = S.OperatorCodeT()
    code.builtinCode = getattr(S.BuiltinOperator, op)
    code.deprecatedBuiltinCode = min(code.builtinCode, 127)
    code.version = version
    model.operatorCodes = [code]
    model.buffers = [S.BufferT()]
    sg = S.SubGraphT()
    sg.tensors = []
    for i, t in enumerate(tensors):
        tt = S.TensorT()
        tt.shape = list(t["shape"])
        tt.type = getattr(S.TensorType, _NP_TO_TFL[t["dtype"]])
        tt.name = f"t{i}"
        tt.isVariable = bool(t.get("variable", False))
        if t.get("scale") is not None:
            q = S.QuantizationParametersT()
            q.scale = [float(v) for v in np.atleast_1d(t["scale"])]
            q.zeroPoint = [int(v) for v in np.atleast_1d(t.get("zero_point", 0))]
            q.quantizedDimension = int(t.get("quantized_dimension", 0))
            tt.quantization = q
        buf = S.BufferT()
        if t.get("data") is not None:
            buf.data = np.ascontiguousarray(t["data"]).view(np.uint8).reshape(-1).tolist()
        model.buffers.append(buf)
        tt.buffer = len(model.buffers) - 1
        sg.tensors.append(tt)
    sg.inputs = [i for i in inputs if i >= 0 and tensors[i].get("data") is None
                 and not tensors[i].get("variable", False)]
    sg.outputs = list(outputs)
    o = S.OperatorT()
    o.opcodeIndex = 0
    o.inputs, o.outputs = list(inputs), list(outputs)
    if intermediates:
        o.intermediates = list(intermediates)
    if options_type is not None:
        o.builtinOptionsType = getattr(S.BuiltinOptions, options_type)
        o.builtinOptions = options
    sg.operators = [o]
    model.subgraphs = [sg]
    b = flatbuffers.Builder(1024)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def run_single_op(content: bytes, feeds: list) -> list:
    """Invoke a model from single_op_model with BUILTIN_REF; feeds in graph-input order."""
    return run_sequence(content, [feeds])[0][0]


def run_sequence(content: bytes, sequence: list, tensors: tuple = ()) -> tuple:
    """Invoke a model once per entry of ``sequence`` (feeds in graph-input order) with one
    BUILTIN_REF interpreter, so variable tensors carry over. Returns (outputs per step,
    {tensor index: value per step} for ``tensors``, e.g. variable tensors)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    interp = Interpreter(model_content=content, experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                         experimental_preserve_all_tensors=True)
    interp.allocate_tensors()
    outputs, seen = [], {t: [] for t in tensors}
    for feeds in sequence:
        for d, x in zip(interp.get_input_details(), feeds):
            interp.set_tensor(d["index"], np.asarray(x, dtype=d["dtype"]).reshape(d["shape"]))
        interp.invoke()
        outputs.append([np.array(interp.get_tensor(d["index"])) for d in interp.get_output_details()])
        for t in tensors:
            seen[t].append(np.array(interp.get_tensor(t)))
    return outputs, seen
