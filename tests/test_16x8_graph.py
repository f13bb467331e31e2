"""A 16x8 graph of the int16 data-movement and activation ops, as TFLite Micro's SEANet-style
integration models use them: LEAKY_RELU, MAX_POOL_2D, AVERAGE_POOL_2D, MUL, STRIDED_SLICE,
SPLIT (one copy per output), CONCATENATION, TRANSPOSE, RELU6, RELU, RESHAPE and REQUANTIZE
int16 -> int8 -> int16, built with the flatbuffer schema. Its size and speed plans equal
LiteRT's reference kernels (BUILTIN_REF) under reference "litert" and the tflite-micro
interpreter under "tflm"; every op, run alone in a poisoned arena, writes only its output and
scratch and reads only its inputs; the host C export and the Cortex-M4 export under QEMU
(mps2-an386) give the Interpreter's outputs."""
from __future__ import annotations

import numpy as np
import pytest

import arenaplan as ap
from arenaplan.ops.lowering import TYPES_CODES
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
I16 = np.iinfo(np.int16)
OUTPUTS = [("int16", (1, 64)), ("int16", (1, 4, 4, 2))]


def graph_model() -> bytes:
    """x int16 (1, 8, 8, 4) -> LEAKY_RELU -> MAX_POOL 2x2/2 = b -> AVERAGE_POOL 3x3/1 SAME = c
    -> MUL(b, c) = d -> STRIDED_SLICE channels 0..1 = e; SPLIT(b, axis 3) = f1, f2 (f2 an
    output) -> CONCATENATION(e, f1) = g -> TRANSPOSE (0, 2, 1, 3) = h -> RELU6 = i -> RELU = r
    -> RESHAPE (1, 64) = j -> QUANTIZE int8 = k -> QUANTIZE int16 = y (an output)."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as S
    model = S.ModelT()
    model.version = 3
    codes = ["LEAKY_RELU", "MAX_POOL_2D", "AVERAGE_POOL_2D", "MUL", "STRIDED_SLICE", "SPLIT", "CONCATENATION",
             "TRANSPOSE", "RELU6", "RELU", "RESHAPE", "QUANTIZE"]
    versions = [2, 3, 3, 5, 4, 3, 3, 5, 2, 3, 1, 2]
    model.operatorCodes = []
    for name, version in zip(codes, versions):
        c = S.OperatorCodeT()
        c.builtinCode = getattr(S.BuiltinOperator, name)
        c.deprecatedBuiltinCode = min(c.builtinCode, 127)
        c.version = version
        model.operatorCodes.append(c)
    model.buffers = [S.BufferT()]
    sg = S.SubGraphT()
    sg.tensors = []

    def tensor(shape, dtype="int16", scale=1e-3, zp=0, data=None):
        t = S.TensorT()
        t.shape = list(shape)
        t.type = getattr(S.TensorType, dtype.upper())
        t.name = f"t{len(sg.tensors)}"
        if scale is not None:
            q = S.QuantizationParametersT()
            q.scale, q.zeroPoint = [float(scale)], [int(zp)]
            t.quantization = q
        buf = S.BufferT()
        if data is not None:
            buf.data = np.ascontiguousarray(data).view(np.uint8).reshape(-1).tolist()
        model.buffers.append(buf)
        t.buffer = len(model.buffers) - 1
        sg.tensors.append(t)
        return len(sg.tensors) - 1

    def const(values):
        arr = np.asarray(values, np.int32)
        return tensor(arr.shape, "int32", None, data=arr)

    x = tensor((1, 8, 8, 4), scale=5e-5)
    a, b, c, d = (tensor(shape, scale=1e-4) for shape in [(1, 8, 8, 4)] + [(1, 4, 4, 4)] * 3)
    e, f1, f2 = (tensor((1, 4, 4, 2), scale=1e-4) for _ in range(3))
    g, h = tensor((1, 4, 4, 4), scale=1e-4), tensor((1, 4, 4, 4), scale=1e-4)
    i, r = tensor((1, 4, 4, 4), scale=2e-4), tensor((1, 4, 4, 4), scale=2e-4)   # RELU6 rescales (LiteRT)
    j = tensor((1, 64), scale=2e-4)
    k = tensor((1, 64), "int8", 0.025, 3)
    y = tensor((1, 64), scale=1e-4)

    def op(code, ins, outs, opt_type=None, opt=None):
        o = S.OperatorT()
        o.opcodeIndex = codes.index(code)
        o.inputs, o.outputs = ins, outs
        if opt_type:
            o.builtinOptionsType = getattr(S.BuiltinOptions, opt_type)
            o.builtinOptions = opt
        return o

    leaky = S.LeakyReluOptionsT()
    leaky.alpha = 0.2

    def pool(k_, s_, padding):
        o = S.Pool2DOptionsT()
        o.filterHeight = o.filterWidth = k_
        o.strideH = o.strideW = s_
        o.padding = getattr(S.Padding, padding)
        return o

    split = S.SplitOptionsT()
    split.numSplits = 2
    cat = S.ConcatenationOptionsT()
    cat.axis = 3
    reshape = S.ReshapeOptionsT()
    reshape.newShape = [1, 64]
    sg.operators = [
        op("LEAKY_RELU", [x], [a], "LeakyReluOptions", leaky),
        op("MAX_POOL_2D", [a], [b], "Pool2DOptions", pool(2, 2, "VALID")),
        op("AVERAGE_POOL_2D", [b], [c], "Pool2DOptions", pool(3, 1, "SAME")),
        op("MUL", [b, c], [d], "MulOptions", S.MulOptionsT()),
        op("STRIDED_SLICE", [d, const([0, 0, 0, 0]), const([1, 4, 4, 2]), const([1, 1, 1, 1])], [e],
           "StridedSliceOptions", S.StridedSliceOptionsT()),
        op("SPLIT", [const(3), b], [f1, f2], "SplitOptions", split),
        op("CONCATENATION", [e, f1], [g], "ConcatenationOptions", cat),
        op("TRANSPOSE", [g, const([0, 2, 1, 3])], [h], "TransposeOptions", S.TransposeOptionsT()),
        op("RELU6", [h], [i]),
        op("RELU", [i], [r]),
        op("RESHAPE", [r, const([1, 64])], [j], "ReshapeOptions", reshape),
        op("QUANTIZE", [j], [k]),
        op("QUANTIZE", [k], [y]),
    ]
    sg.inputs, sg.outputs = [x], [y, f2]
    model.subgraphs = [sg]
    builder = flatbuffers.Builder(4096)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def inputs(count=3, seed=0):
    rng = np.random.default_rng(seed)
    xs = [rng.integers(I16.min, I16.max + 1, size=(1, 8, 8, 4)).astype(np.int16) for _ in range(count)]
    return xs + [np.full((1, 8, 8, 4), I16.min, np.int16), np.full((1, 8, 8, 4), I16.max, np.int16)]


def tflm_run(content, xs):
    from tflite_micro.python.tflite_micro import runtime
    micro = runtime.Interpreter.from_bytes(content, arena_size=1 << 20)
    outs = []
    for x in xs:
        micro.set_input(x, 0)
        micro.invoke()
        outs.append([np.array(micro.get_output(n)) for n in range(2)])
    return outs


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("graph") / "graph16.tflite"
    path.write_bytes(graph_model())
    return ap.load_tflite(path)


@needs_litert
@pytest.mark.parametrize("reference", ["litert", "tflm"])
def test_16x8_graph_matches_litert_and_tflm(model, reference):
    content = graph_model()
    xs = inputs()
    wants = tflm_run(content, xs) if reference == "tflm" else L.run_sequence(content, [[x] for x in xs])[0]
    assert [o.type for o in model.operators].count("SPLIT") == 2
    for mode in ("size", "speed"):
        p = ap.plan(model, mode=mode, reference=reference)
        assert p.verify()
        assert all(k.types == TYPES_CODES["s16x8"] for k in p.kernels if k.type != "QUANTIZE")
        it = ap.Interpreter(p)
        for x, want in zip(xs, wants):
            got = it.run(x)
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w.reshape(g.shape), err_msg=f"{mode} ({reference})")


def test_no_16x8_op_writes_outside_its_output_and_scratch(model):
    """Every op in turn runs in a poisoned arena (only its inputs hold real values): it writes its
    output and scratch, nothing else, leaves its inputs as they were unless it runs in place, and
    reads no byte it does not own (its output equals the one of an unpoisoned run)."""
    p = ap.plan(model, mode="speed")
    assert p.verify()
    it = ap.Interpreter(p)
    it.run(inputs(1, seed=5)[0])
    it.run(inputs(1, seed=6)[0])
    arena = it.arena.copy()
    graph = it._graph
    for op in model.operators:
        allowed = np.zeros(p.arena_bytes, dtype=bool)
        keep = np.zeros(p.arena_bytes, dtype=bool)
        for b in p.buffers:
            span = slice(b.offset, b.offset + b.size)
            if (b.kind == "scratch" and b.op == op.index) or op.outputs[0] in b.tensors:
                allowed[span] = True
            elif any(t in op.inputs for t in b.tensors):
                keep[span] = True
        poisoned = np.where(keep, arena, np.uint8(0xA5))
        it.arena[:] = poisoned
        graph.invoke(it._pools, op.index, op.index + 1)
        changed = np.flatnonzero((it.arena != poisoned) & ~allowed)
        assert changed.size == 0, f"op {op.index} ({op.type}) wrote at offsets {changed[:8]}"
        out = next(b for b in p.buffers if op.outputs[0] in b.tensors)
        span = slice(out.offset, out.offset + out.size)
        in_place = any(t in op.inputs for t in out.tensors)
        if not in_place:
            assert np.array_equal(it.arena[keep], arena[keep]), f"op {op.index} ({op.type}) changed its input"
        poisoned_run = it.arena.copy()
        it.arena[:] = arena
        graph.invoke(it._pools, op.index, op.index + 1)
        if not (op.type == "RESHAPE" and in_place):   # an aliased reshape runs nothing
            assert np.array_equal(it.arena[span], poisoned_run[span]), f"op {op.index} ({op.type}) read poisoned bytes"
        arena = np.where(allowed, it.arena, arena)


def test_16x8_graph_host_c_export(model, tmp_path):
    from harness.firmware import build as fw
    runtime = fw.cached_runtime(fw.HOST_CC, fw.HOST_FLAGS, "host")
    xs = inputs(2, seed=3)
    for mode in ("size", "speed"):
        p = ap.plan(model, mode=mode)
        it = ap.Interpreter(p)
        wants = [it.run(x) for x in xs]
        out = p.export_c(tmp_path / mode, name="net")
        exe = fw.build_host(out, runtime, tmp_path / mode)
        got = fw.run_host(exe, [[x] for x in xs], OUTPUTS, tmp_path / mode)
        for g, w in zip(got, wants):
            for a, b in zip(g, w):
                np.testing.assert_array_equal(a, b, err_msg=f"C export, {mode}")


def test_16x8_graph_on_cortex_m4_under_qemu(model, tmp_path):
    from harness.firmware import build as fw
    p = ap.plan(model, target=ap.targets.get("cortex-m4"))
    assert p.isa == "arm-dsp" and p.verify()
    xs = inputs(2, seed=4)
    it = ap.Interpreter(p)
    wants = [it.run(x) for x in xs]
    run = fw.run_plan_on_core(p, "cortex-m4", [[x] for x in xs], tmp_path, timeout=300)
    for got, want in zip(run.outputs, wants):
        assert [(g.dtype, g.shape) for g in got] == OUTPUTS
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w, err_msg="Cortex-M4")
