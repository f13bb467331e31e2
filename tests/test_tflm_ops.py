"""ap.tflm's rules for the ops beyond the shared models', against TensorFlow Lite Micro itself.

Every model here is written with the TFLite schema (harness.tflm_support: GraphBuilder and
the builders of FAMILIES): one op (or a few) per case, in each type arenaplan runs it in
(int8; int16 where it has a 16x8 row or runs the op on another op's; float32, and the
float32 of the int8-only ops TFLM also takes), small chains of them, and the streaming
resource-variable models (several subgraphs). For each, ``ap.tflm.arena(m,
pointer_bytes=8)`` must be the smallest arena with which the tflite-micro package's
interpreter allocates and runs the model (it does at the prediction and does not 16 bytes
below it), with its allocation report's head and tail.
"""
from __future__ import annotations

import numpy as np
import pytest

import arenaplan as ap
from harness.tflm_support import (FAMILIES as _FAMILIES, HAVE_TFLM, RESOURCE_CASES, GraphBuilder, batch_space,
                                  chain_int8, depth_space, mean, mirror_pad, prelu, random_new_op_model,
                                  random_op_model, resize, resource_model, split, transpose_conv, trial, unary)

needs_tflm = pytest.mark.skipif(not HAVE_TFLM, reason="tflite-micro is not importable")


def chain_16x8():
    """The 16x8 chain of tests/test_int16.py (PAD, CONV_2D, DEPTHWISE_CONV_2D, ADD, SUB,
    RESHAPE, FULLY_CONNECTED), with a QUANTIZE from float32 before it and a DEQUANTIZE after."""
    from test_int16 import chain_model
    return chain_model(np.random.default_rng(9))



FAMILIES = {**_FAMILIES, "chains": {**_FAMILIES["chains"], "chain_16x8": chain_16x8}}
CASES = {name: build for family in FAMILIES.values() for name, build in family.items()}

def load(content: bytes, tmp_path, name="m") -> ap.Model:
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(content)
    return ap.load_tflite(str(path))


def check_exact(content: bytes, tmp_path) -> ap.tflm.TflmArena:
    """ap.tflm.arena(pointer_bytes=8) is TFLM's smallest arena (16-byte steps), head and tail."""
    r = ap.tflm.arena(load(content, tmp_path), pointer_bytes=8)
    assert not r.predicted
    at = trial(content, r.arena_size)
    assert at["ok"], f"TFLM does not allocate and run the model in the predicted {r.arena_size} B"
    assert (at["head"], at["tail"]) == (r.head_bytes, r.tail_bytes)
    assert not trial(content, r.arena_size - 16)["ok"], f"TFLM also runs in {r.arena_size - 16} B"
    assert sum(a.bytes for a in r.allocations if a.where == "tail") == r.tail_bytes
    return r


@needs_tflm
@pytest.mark.parametrize("family,case", [(f, c) for f, cases in FAMILIES.items() for c in cases],
                         ids=[f"{f}-{c}" for f, cases in FAMILIES.items() for c in cases])
def test_arena_is_tflms(family, case, tmp_path):
    r = check_exact(FAMILIES[family][case](), tmp_path)
    # the 32-bit and CMSIS-NN figures are predictions from the same rules, and say so
    m = load(FAMILIES[family][case](), tmp_path)
    for kernels in ("reference", "cmsis-nn"):
        small = ap.tflm.arena(m, kernels=kernels, pointer_bytes=4)
        assert small.predicted and small.arena_size < r.arena_size


@needs_tflm
def test_breakdown_names_the_new_ops_buffers(tmp_path):
    tc = ap.tflm.arena(load(transpose_conv(), tmp_path), pointer_bytes=8)
    # one int32 accumulator per output element (1 x 8 x 8 x 2), and the per-channel arrays
    assert [(a.op_type, a.bytes) for a in tc.scratch()] == [("TRANSPOSE_CONV", 512)]
    assert tc.tail_by_kind()["per-channel quantisation"] == 32
    tc16 = ap.tflm.arena(load(transpose_conv("int16"), tmp_path), pointer_bytes=8)
    assert [a.bytes for a in tc16.scratch()] == [1024]            # int64 accumulators
    m = ap.tflm.arena(load(mean(), tmp_path), pointer_bytes=8)
    assert [a.bytes for a in m.scratch()] == [32, 16, 16]         # sums, dimensions, axes
    # a SPLIT of three outputs is one TFLM op: one node, its options once
    sp = ap.tflm.arena(load(split(3, shape=(1, 3, 6, 3)), tmp_path), pointer_bytes=8)
    assert sp.tail_by_kind()["node and registration structs"] == 64
    assert [a.op_type for a in sp.allocations if a.kind == "op options"] == ["SPLIT"]
    assert "kTensorArenaSize" in ap.tflm.arena(load(chain_int8(), tmp_path)).line()


def _model_of(op, dtype="int8", tmp_path=None):
    g = GraphBuilder()
    x = g.tensor((1, 4), dtype, (0.1, 0))
    y = g.tensor((1, 4), dtype, (0.1, 0))
    g.op(op, [x], [y])
    return g.build([x], [y])


@needs_tflm
def test_ops_and_types_tflm_lacks_are_named(tmp_path):
    # an op TFLite Micro has no kernel for: it fails to allocate at any size, and the rules say so
    rfft = _model_of("RFFT2D")
    assert not trial(rfft, 1 << 16)["ok"]
    with pytest.raises(ap.UnsupportedModel, match=r"op 0 \(RFFT2D\): TFLite Micro .* has no kernel for this op"):
        ap.tflm.arena(load(rfft, tmp_path))
    # a type its kernel does not take (HARD_SWISH is int8 and float32 only)
    hs = unary("HARD_SWISH", "int16")
    assert not trial(hs, 1 << 16)["ok"]
    with pytest.raises(ap.UnsupportedModel, match=r"op 0 \(HARD_SWISH\): tensor 0 't0' has type int16, which "
                                                  r"TFLite Micro's HARD_SWISH kernel does not support"):
        ap.tflm.arena(load(hs, tmp_path))
    # a WHILE calling the subgraph it is in: refused naming it (TFLM is not run on it)
    g = GraphBuilder()
    x = g.tensor((2, 4), "float32")
    y = g.tensor((2, 4), "float32")
    g.op("WHILE", [x], [y], "WhileOptions", condSubgraphIndex=0, bodySubgraphIndex=0)
    loop = g.build([x], [y])
    with pytest.raises(ap.UnsupportedModel, match=r"op 0 \(WHILE\) of subgraph 0: calls subgraph 0, which is "
                                                  r"running already"):
        ap.tflm.arena(load(loop, tmp_path))
    # an IF naming a subgraph the model does not have
    g = GraphBuilder()
    c, x, y = g.tensor((1,), "bool"), g.tensor((2, 4), "float32"), g.tensor((2, 4), "float32")
    g.op("IF", [c, x], [y], "IfOptions", thenSubgraphIndex=1, elseSubgraphIndex=5)
    g.subgraph([c, x], [y])
    a, b = g.tensor((2, 4), "float32"), g.tensor((2, 4), "float32")
    g.op("NEG", [a], [b])
    branch = g.build([a], [b])
    with pytest.raises(ap.UnsupportedModel, match=r"op 0 \(IF\) of subgraph 0: calls subgraph 5; the model has 2"):
        ap.tflm.arena(load(branch, tmp_path))
    # every builtin op the pinned package registers a kernel for has rules
    assert set(ap.tflm.rules.TFLM_KERNELS) - set(ap.tflm.rules.SUPPORTED_OPS) == set()


@needs_tflm
def test_breakdown_of_the_second_ops(tmp_path):
    def scratch(content):
        return [(a.op_type, a.bytes) for a in ap.tflm.arena(load(content, tmp_path), pointer_bytes=8).scratch()]
    # MIRROR_PAD: the output's and the input's strides, one int per dimension each
    assert scratch(mirror_pad()) == [("MIRROR_PAD", 16), ("MIRROR_PAD", 16)]
    # REDUCE_MAX: the input's dimensions and the resolved axes (no sums); SUM as MEAN
    assert scratch(mean(op="REDUCE_MAX")) == [("REDUCE_MAX", 16), ("REDUCE_MAX", 16)]
    assert scratch(mean(op="SUM")) == [("SUM", 32), ("SUM", 16), ("SUM", 16)]
    # float32 MEAN sums in float (no int32 sums), float32 TRANSPOSE_CONV has no accumulators
    assert scratch(mean(dtype="float32")) == [("MEAN", 16), ("MEAN", 16)]
    assert scratch(transpose_conv("float32")) == []
    # DEPTH_TO_SPACE keeps a copy of its output's dims in the tail (a TfLiteIntArray of 4: 20 B)
    d2s = ap.tflm.arena(load(depth_space("DEPTH_TO_SPACE"), tmp_path), pointer_bytes=8)
    assert d2s.tail_by_kind()["output dims"] == 20


def _refused(content, tmp_path, match):
    assert not trial(content, 1 << 17)["ok"]            # TFLM refuses it at any arena size
    with pytest.raises(ap.UnsupportedModel, match=match):
        ap.tflm.arena(load(content, tmp_path))


_INT16_REFUSED = {
    "DEPTH_TO_SPACE": lambda: depth_space("DEPTH_TO_SPACE", "int16"),
    "SPACE_TO_DEPTH": lambda: depth_space("SPACE_TO_DEPTH", "int16", shape=(1, 4, 6, 3)),
    "RESIZE_BILINEAR": lambda: resize("RESIZE_BILINEAR", "int16"),
    "MIRROR_PAD": lambda: mirror_pad("int16"), "PRELU": lambda: prelu("int16"),
    "REDUCE_MAX": lambda: mean(op="REDUCE_MAX", dtype="int16"),
    "REDUCE_MIN": lambda: mean(op="REDUCE_MIN", dtype="int16"),
    "BATCH_TO_SPACE_ND": lambda: batch_space("BATCH_TO_SPACE_ND", "int16"),
    "SPACE_TO_BATCH_ND": lambda: batch_space("SPACE_TO_BATCH_ND", "int16"),
}


@needs_tflm
@pytest.mark.parametrize("op", list(_INT16_REFUSED))
def test_int16_the_kernel_lacks_is_named(op, tmp_path):
    """TFLM's kernels of these ops take int8 and float32 only: an int16 model is refused
    (by TFLM at any size, by the rules naming the op, the tensor and its type)."""
    _refused(_INT16_REFUSED[op](), tmp_path,
             rf"op 0 \({op}\): tensor 0 't0' has type int16, which TFLite Micro's {op} kernel does not support")


@needs_tflm
@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_relu_n1_to_1_has_no_tflm_kernel(dtype, tmp_path):
    _refused(unary("RELU_N1_TO_1", dtype), tmp_path,
             r"op 0 \(RELU_N1_TO_1\): TFLite Micro .* has no kernel for this op")


@needs_tflm
@pytest.mark.parametrize("case", list(RESOURCE_CASES))
def test_resource_variable_models_are_tflms(case, tmp_path):
    """The streaming models of tests/test_resource_variables.py (two or three subgraphs: the
    CALL_ONCE initialisation's tensors and ops are TFLM's too; the variables' buffers are
    allocated in the tail at their first ASSIGN_VARIABLE's Prepare)."""
    content = resource_model(case)
    r = check_exact(content, tmp_path)
    kinds = r.tail_by_kind()
    assert kinds["resource variables"] > 0
    assert kinds["node and registration structs"] == 64 * sum(
        1 for _ in ap.tflm.graph.file_graph(load(content, tmp_path)).ops)


def test_a_folded_resource_model_without_its_file_is_refused(tmp_path):
    m = load(resource_model("streaming"), tmp_path)
    m.source = ""
    with pytest.raises(ap.UnsupportedModel, match="reads them from the model's file"):
        ap.tflm.arena(m)


def test_no_offline_plan_for_several_subgraphs(tmp_path):
    path = tmp_path / "streaming.tflite"
    path.write_bytes(resource_model("streaming"))
    with pytest.raises(ap.UnsupportedModel, match="several subgraphs"):
        ap.tflm.with_offline_plan(str(path), str(tmp_path / "out.tflite"))
    assert not (tmp_path / "out.tflite").exists()
    assert ap.tflm.arena(ap.load_tflite(str(path)), pointer_bytes=8).arena_size == 3584
    # plan_offline (what the CLI reports as the saving) offers none, and TFLM's own arena
    offsets, r = ap.tflm.plan_offline(ap.load_tflite(str(path)))
    assert offsets == {} and r.arena_size == 3584


@needs_tflm
@pytest.mark.parametrize("name", ["chain_int8", "chain_split", "chain_tconv_s16", "mean_chain", "chain_more_int8",
                                  "chain_float32"])
def test_offline_plan_of_op_models(name, tmp_path):
    """with_offline_plan on models of the new ops (SPLIT's one op, scratch of TRANSPOSE_CONV
    and MEAN placed around the offline tensors): TFLM allocates in the predicted arena, not
    16 bytes below, with the predicted head and tail, and gives the outputs of the model
    without the plan."""
    src, out = tmp_path / "in.tflite", tmp_path / "out.tflite"
    src.write_bytes(CASES[name]())
    pred = ap.tflm.with_offline_plan(str(src), str(out))
    base = ap.tflm.arena(ap.load_tflite(str(src)), pointer_bytes=8)
    assert pred.arena_size <= base.arena_size
    at = trial(str(out), pred.arena_size)
    assert at["ok"] and (at["head"], at["tail"]) == (pred.head_bytes, pred.tail_bytes)
    assert not trial(str(out), pred.arena_size - 16)["ok"]
    assert at["outputs"] == trial(str(src), base.arena_size)["outputs"]


def test_a_changed_file_is_not_read_for_another_model(tmp_path):
    m = load(resource_model("streaming"), tmp_path)
    (tmp_path / "m.tflite").write_bytes(resource_model("nested_call_once"))
    with pytest.raises(ap.InvalidArgument, match="changed since"):
        ap.tflm.arena(m)


@pytest.mark.parametrize("name", ["chain_int8", "chain_split", "chain_tconv_s16", "mean_chain", "split_v",
                                  "chain_more_int8", "chain_float32", "unpack"])
def test_a_model_without_its_file_gets_the_same_figures(name, tmp_path):
    """ap.tflm reads TFLM's view from the model's file; a model with no file (built in code)
    is read from arenaplan's Model (SPLIT's per-output ops merged back), with the same result."""
    m = load(CASES[name](), tmp_path)
    from_file = ap.tflm.arena(m, pointer_bytes=8)
    m.source = ""
    from_model = ap.tflm.arena(m, pointer_bytes=8)
    assert (from_model.arena_size, from_model.head_bytes, from_model.tail_bytes) == \
        (from_file.arena_size, from_file.head_bytes, from_file.tail_bytes)


@needs_tflm
@pytest.mark.parametrize("seed", [0, 1])
def test_random_op_models_are_tflms(seed, tmp_path):
    """40 random one-op models a seed (harness.tflm_support.random_op_model: conv, depthwise,
    transpose conv, FC in int8 and 16x8, MEAN, PAD, CONCATENATION, SPLIT, ADD/SUB), each
    exact where TFLM takes the model."""
    rng = np.random.default_rng(seed)
    checked = {}
    for _ in range(40):
        kind, content = random_op_model(rng)
        if not trial(content, 1 << 17)["ok"]:
            continue
        check_exact(content, tmp_path)
        checked[kind] = checked.get(kind, 0) + 1
    assert sum(checked.values()) >= 30 and len(checked) >= 8, checked


@needs_tflm
def test_random_models_of_the_second_ops_are_tflms(tmp_path):
    """40 random one-op models of the ops added after the first rules
    (harness.tflm_support.random_new_op_model: int8, int16 and float32; MIRROR_PAD of 2-4
    dimensions, reductions over any axes, blocks of 1-3, broadcasting), each exact
    (300 of 300 over two seeds of 150 when the rules were written)."""
    rng = np.random.default_rng(2)
    checked = {}
    for _ in range(40):
        kind, content = random_new_op_model(rng)
        check_exact(content, tmp_path)
        checked[kind] = checked.get(kind, 0) + 1
    assert len(checked) >= 12, checked
