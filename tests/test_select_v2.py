"""SELECT_V2 on int8 and float32 with a bool condition (index_ops.c): one-op .tflite models built
with the flatbuffer schema (4-D broadcasting of the three inputs every way, scalars, size-1
dimensions, int8 x and y quantised unlike each other and the output, which TFLite copies as
stored, float32 NaN and -0.0 copied bit for bit), the direct variant on every instruction set
this host runs inside a verified plan, bit-exact with LiteRT's reference kernels (BUILTIN_REF) and
TensorFlow Lite Micro's interpreter (int8 and float32: the tflite-micro interpreter refuses the
int32 and bool models); int32 and bool rows; hypothesis over shapes; the poisoned arena; in place over x
or y; refusals naming the op."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from test_comparisons import check
from unary_s8 import load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))


def select_model(dtype, c_shape, x_shape, y_shape, out_shape=None, qs=((0.1, -3), (0.2, 5), (0.1, -3)),
                 c_dtype="bool", y_dtype=None) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    if out_shape is None:
        out_shape = tuple(np.broadcast_shapes(c_shape, x_shape, y_shape))
    q = [dict(scale=s, zero_point=z) if dtype == "int8" else {} for s, z in qs]
    tensors = [dict(shape=c_shape, dtype=c_dtype), dict(shape=x_shape, dtype=dtype, **q[0]),
               dict(shape=y_shape, dtype=y_dtype or dtype, **q[1]), dict(shape=out_shape, dtype=dtype, **q[2])]
    return L.single_op_model("SELECT_V2", tensors, [0, 1, 2], [3], "SelectV2Options", S.SelectV2OptionsT(),
                             version=1)


def feeds(dtype, c_shape, x_shape, y_shape, seed):
    rng = np.random.default_rng(seed)

    def vals(shape):
        if dtype == "int8":
            return rng.integers(-128, 128, size=shape).astype(np.int8)
        if dtype == "int32":
            return rng.integers(-2 ** 31, 2 ** 31, size=shape, dtype=np.int64).astype(np.int32)
        if dtype == "bool":
            return rng.integers(0, 2, size=shape).astype(bool)
        v = rng.standard_normal(int(np.prod(shape))).astype(np.float32)
        v[:min(v.size, 3)] = np.array([np.nan, -0.0, np.inf], np.float32)[:min(v.size, 3)]
        return v.reshape(shape)
    out = [[rng.integers(0, 2, size=c_shape).astype(bool), vals(x_shape), vals(y_shape)] for _ in range(3)]
    out.append([np.ones(c_shape, bool), vals(x_shape), vals(y_shape)])
    out.append([np.zeros(c_shape, bool), vals(x_shape), vals(y_shape)])
    return out


CASES = [
    ((2, 3, 4), (2, 3, 4), (2, 3, 4)),
    ((3, 1, 4), (1, 5, 4), (3, 5, 1)),   # every input broadcast
    ((1,), (2, 7), (7,)),                # a scalar condition
    ((2, 7), (1,), (1,)),                # scalar values
    ((1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1)),
    ((2, 1, 4, 1), (2, 3, 4, 5), (1, 3, 1, 5)),
]


def _bits(a):
    return a.view(np.uint32) if a.dtype == np.float32 else a


TYPES = ["int8", "float32", "int32", "bool"]


@needs_litert
@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(dtype, case, tmp_path):
    c, x, y = CASES[case]
    xs = feeds(dtype, c, x, y, case)   # (TFLite Micro's SELECT_V2 here takes int8 and float32)
    model = check(select_model(dtype, c, x, y), tmp_path, "SELECT_V2", xs, tflm=dtype in ("int8", "float32"))
    if dtype == "float32":   # NaN and -0.0 copied bit for bit
        wants = [w[0] for w in L.run_sequence(select_model(dtype, c, x, y), xs)[0]]
        it = ap.Interpreter(ap.plan(model))
        for f, w in zip(xs, wants):
            np.testing.assert_array_equal(_bits(it.run(f)), _bits(w))


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    full = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    shapes = []
    for _ in range(3):
        s = tuple(d if data.draw(st.booleans()) else 1 for d in full)
        shapes.append(s[data.draw(st.integers(0, rank - 1)):])
    dtype = data.draw(st.sampled_from(TYPES))
    c, x, y = shapes
    check(select_model(dtype, c, x, y), tmp_path_factory.mktemp("sel"), "SELECT_V2",
          feeds(dtype, c, x, y, sum(full)), tflm=False)


def test_in_place_over_a_full_input(tmp_path):
    for x_shape, y_shape, in_place in (((3, 8), (8,), True), ((8,), (3, 8), True), ((1, 8), (3, 1), False)):
        model = load(select_model("int8", (3, 8), x_shape, y_shape), tmp_path, f"m{len(x_shape)}{in_place}")
        (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
        assert kernel.variants[0].in_place is in_place


def test_refusals_name_the_op(tmp_path):
    cases = [
        (select_model("int8", (3, 4), (3, 4), (3, 4), c_dtype="int8"),
         r"op 0 \(SELECT_V2\): condition tensor 0 is int8; SELECT_V2 takes bool"),
        (select_model("int8", (3, 4), (3, 4), (3, 4), y_dtype="float32"),
         r"op 0 \(SELECT_V2\): y tensor 2 is float32, x int8; TFLite requires one type"),
        (select_model("float32", (3, 4), (2, 4), (3, 4), out_shape=(3, 4)),
         r"op 0 \(SELECT_V2\): shapes \(3, 4\) and \(2, 4\) and \(3, 4\) do not broadcast"),
        (select_model("int64", (3, 4), (3, 4), (3, 4)), r"op 0 \(SELECT_V2\): input 1 \(tensor 1\) is int64; "
                                                        r"arenaplan's SELECT_V2 takes int8, float32, int32, bool, "
                                                        r"int16"),
        (select_model("float32", (2, 1, 2, 1, 2), (1, 2, 1, 2, 1), (1,)),
         r"op 0 \(SELECT_V2\): the broadcast shape \(2, 2, 2, 2, 2\) has rank 5; at most 4 is supported"),
    ]
    for k, (content, pattern) in enumerate(cases):
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, f"m{k}"))


def test_kernel_checks_its_params():
    code = {r["name"]: r["code"] for r in _core.ops()}["SELECT_V2"]
    spec = {"condition_shape": [1, 1, 3, 1], "x_shape": [1, 1, 3, 4], "y_shape": [1, 1, 1, 4],
            "output_shape": [1, 1, 3, 4]}
    assert _core.kernel_variants(code, spec)
    with pytest.raises(ValueError, match=r"select_v2: dimension 3 does not broadcast \(1, 4 and 4 -> 5\)"):
        _core.kernel_variants(code, dict(spec, output_shape=[1, 1, 3, 5]))
