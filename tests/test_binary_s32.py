"""int32 ADD, SUB and MUL (binary_s32.c, TFLite's Add, Sub and Mul of int32_t: the counters
and index arithmetic of control-flow and shape code): one-op .tflite models built with the
flatbuffer schema, 4-D broadcasting both ways, scalars, every fused activation, values over the
whole int32 range (the results wrap as TFLite's kernels do), bit-exact with LiteRT's reference
kernels (BUILTIN_REF) and, where its kernel takes int32, TensorFlow Lite Micro's interpreter;
hypothesis over shapes; the poisoned arena; refusals naming the op."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from poisoned_arena import poisoned_run
from test_comparisons import tflm_run
from unary_s8 import host_isas, load

S = pytest.importorskip("ai_edge_litert.schema_py_generated")
_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
try:
    import tflite_micro  # noqa: F401
    _TFLM = True
except ImportError:  # pragma: no cover - the test extra pins it for x86-64
    _TFLM = False

OPS = ("ADD", "SUB", "MUL")
ACTS = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3}
#: (input1 shape, input2 shape)
CASES = [((2, 3, 4), (2, 3, 4)), ((3, 1, 8), (1, 5, 1)), ((17,), (1,)), ((1,), (3, 4)), ((2, 3, 4, 5), (2, 1, 4, 1)),
         ((1, 1, 1, 1), (1, 1, 1, 1))]


def binary_model(op: str, a_shape, b_shape, act: str = "NONE", y_shape=None, dtypes=("int32",) * 3,
                 b_data=None) -> bytes:
    o = getattr(S, f"{op.title()}OptionsT")()
    o.fusedActivationFunction = ACTS[act]
    y_shape = tuple(np.broadcast_shapes(a_shape, b_shape)) if y_shape is None else y_shape
    tensors = [dict(shape=a_shape, dtype=dtypes[0]), dict(shape=b_shape, dtype=dtypes[1], data=b_data),
               dict(shape=y_shape, dtype=dtypes[2])]
    return L.single_op_model(op, tensors, [0, 1], [2], f"{op.title()}Options", o, version=1)


def feeds(a_shape, b_shape, seed: int) -> list:
    """Random values over the whole int32 range (sums and products that wrap), small ones, and
    the extremes with 0, 1 and -1 among them."""
    rng = np.random.default_rng(seed)
    edges = np.array([2 ** 31 - 1, -2 ** 31, 0, 1, -1, 2 ** 16, -2 ** 16 - 1], np.int64)
    out = []
    for span in (2 ** 31, 1000):
        pair = []
        for shape in (a_shape, b_shape):
            v = rng.integers(-span, span, size=int(np.prod(shape)), dtype=np.int64)
            k = min(v.size, edges.size)
            v[rng.permutation(v.size)[:k]] = edges[rng.permutation(edges.size)[:k]]
            pair.append(v.astype(np.int32).reshape(shape))
        out.append(pair)
    return out


def tflm_runs(op: str) -> bool:
    """Whether the pinned tflite-micro package's kernel takes int32 for op."""
    if not _TFLM:
        return False
    try:
        tflm_run(binary_model(op, (2,), (2,)), [[np.ones(2, np.int32), np.ones(2, np.int32)]])
        return True
    except Exception:
        return False


def check(content: bytes, tmp_path, xs: list, op: str) -> ap.Model:
    """Every ISA's verified plan equals LiteRT under "litert" and TensorFlow Lite Micro under
    "tflm" (where its kernel takes int32; they differ on an int32 ADD with a fused activation,
    which TensorFlow Lite Micro does not apply); the poisoned arena on the first feed."""
    model = load(content, tmp_path)
    wants = {"litert": [w[0] for w in L.run_sequence(content, xs)[0]]}
    if tflm_runs(op):
        wants["tflm"] = tflm_run(content, xs)
    for reference, outs in wants.items():
        for isa in host_isas() + ["arm-dsp"]:
            ctx = PlanContext.build(model, isa=isa, reference=reference)
            (kernel,) = ctx.kernels
            assert [v.name for v in kernel.variants] == ["direct"] and kernel.variants[0].scratch == ()
            p = ctx.make([kernel.variants[0]], "size")
            assert p.verify() and p.isa == isa
            it = ap.Interpreter(p)
            for x, want in zip(xs, outs):
                got = it.run(x)
                assert got.dtype == np.int32 and got.shape == want.shape
                np.testing.assert_array_equal(got, want, err_msg=f"{op} int32 on {isa} ({reference})")
    poisoned_run(model, xs[0])
    return model


@pytest.mark.skipif(not _TFLM, reason="tflite-micro is not importable")
def test_tflm_add_ignores_its_fused_activation(tmp_path):
    """TensorFlow Lite Micro's int32 ADD does not clamp to its fused activation (its SUB and MUL
    do, as LiteRT's three do): each rule's plan gives its runtime's outputs."""
    content = binary_model("ADD", (4,), (4,), "RELU6")
    x = [np.array([-5, 7, 3, 100], np.int32), np.array([1, 1, -9, 5], np.int32)]
    assert tflm_run(content, [x])[0].tolist() == [-4, 8, -6, 105]
    model = load(content, tmp_path)
    assert ap.Interpreter(ap.plan(model, reference="tflm")).run(x).tolist() == [-4, 8, -6, 105]
    assert ap.Interpreter(ap.plan(model, reference="litert")).run(x).tolist() == [0, 6, 0, 6]


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("act", list(ACTS))
@pytest.mark.parametrize("op", OPS)
def test_matches_litert_and_tflm(op, act, case, tmp_path):
    a, b = CASES[case]
    check(binary_model(op, a, b, act), tmp_path, feeds(a, b, case), op)


@needs_litert
@pytest.mark.parametrize("op", OPS)
def test_constant_operand(op, tmp_path):
    data = np.array([3, -2 ** 31, 2 ** 31 - 1, -1], np.int32)
    content = binary_model(op, (2, 3, 4), (4,), b_data=data)
    check(content, tmp_path, [[x[0]] for x in feeds((2, 3, 4), (4,), 9)], op)


@needs_litert
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    op = data.draw(st.sampled_from(OPS))
    rank = data.draw(st.integers(1, 4))
    shape = tuple(data.draw(st.integers(1, 4)) for _ in range(rank))
    other = tuple(d if data.draw(st.booleans()) else 1 for d in shape)
    a, b = (shape, other) if data.draw(st.booleans()) else (other, shape)
    act = data.draw(st.sampled_from(list(ACTS)))
    check(binary_model(op, a, b, act), tmp_path_factory.mktemp("s32"), feeds(a, b, rank), op)


@pytest.mark.parametrize("op", OPS)
def test_refusals_name_the_op(op, tmp_path):
    cases = [
        (binary_model(op, (2, 3), (3, 2), y_shape=(3, 3)), r"op 0 \(%s\): shapes \(2, 3\) and \(3, 2\) do not "
         r"broadcast to \(3, 3\)" % op),
        (binary_model(op, (2, 3), (2, 3), dtypes=("int32", "int32", "int8")),
         r"op 0 \(%s\): output tensor 2 .* is int8, expected int32" % op),
        (binary_model(op, (2, 3), (2, 3), act="NONE", dtypes=("int32", "int8", "int32")),
         r"op 0 \(%s\): second input tensor 1 .* is int8, expected int32" % op),
    ]
    for content, match in cases:
        with pytest.raises(UnsupportedModel, match=match):
            ap.plan(load(content, tmp_path))
