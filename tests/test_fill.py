"""FILL (int8, float32, int32, bool values), ZEROS_LIKE (float32, int32) and SHAPE (int32 or int64
out, any input) in cast_fill.c: one-op .tflite models built with the flatbuffer schema (int32 and
int64 dims, ranks 1 to 5, size-1 dimensions, the values' ends, float32 NaN and -0.0 bit for bit),
bit-exact with LiteRT's reference kernels (BUILTIN_REF) and TensorFlow Lite Micro's interpreter
where it has the kernel (not FILL bool nor SHAPE int64); hypothesis over shapes; the poisoned
arena; refusals naming the op; the kernels' checks."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from harness.reference import litert_layers as L
from test_comparisons import check
from unary_s8 import load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))


def fill_model(dtype, dims, dims_dtype="int32", value_shape=(), y_shape=None, qs=((0.1, 2), (0.1, 2))) -> bytes:
    q = [dict(scale=s, zero_point=z) if dtype == "int8" else {} for s, z in qs]
    tensors = [dict(shape=(len(dims),), dtype=dims_dtype, data=np.array(dims, dims_dtype)),
               dict(shape=value_shape, dtype=dtype, **q[0]),
               dict(shape=tuple(dims) if y_shape is None else y_shape, dtype=dtype, **q[1])]
    return L.single_op_model("FILL", tensors, [0, 1], [2], None, None, version=1)


def zeros_like_model(dtype, shape) -> bytes:
    return L.single_op_model("ZEROS_LIKE", [dict(shape=shape, dtype=dtype), dict(shape=shape, dtype=dtype)], [0],
                             [1], None, None, version=1)


def shape_model(in_dtype, shape, out="int32", y_shape=None) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = S.ShapeOptionsT()
    o.outType = getattr(S.TensorType, out.upper())
    return L.single_op_model("SHAPE", [dict(shape=shape, dtype=in_dtype),
                                       dict(shape=(len(shape),) if y_shape is None else y_shape, dtype=out)],
                             [0], [1], "ShapeOptions", o, version=1)


FILL_VALUES = {"int8": [-128, 127, 0, 5], "int32": [-2 ** 31, 2 ** 31 - 1, 0, -7], "bool": [True, False],
               "float32": [np.nan, -0.0, np.inf, 1.5e-42, -3.25]}


def _bits(a):
    return a.view(np.uint32) if a.dtype == np.float32 else a


@needs_litert
@pytest.mark.parametrize("dtype", ["int8", "float32", "int32", "bool"])
@pytest.mark.parametrize("dims,dims_dtype", [((2, 3), "int32"), ((7,), "int64"), ((1, 1, 1, 1), "int32"),
                                             ((2, 1, 3, 2, 2), "int64")])
def test_fill_matches_litert_and_tflm(dtype, dims, dims_dtype, tmp_path):
    content = fill_model(dtype, dims, dims_dtype)
    xs = [[np.array(v, dtype)] for v in FILL_VALUES[dtype]]
    model = check(content, tmp_path, "FILL", xs, tflm=dtype != "bool")
    it = ap.Interpreter(ap.plan(model))
    for x, want in zip(xs, L.run_sequence(content, xs)[0]):
        np.testing.assert_array_equal(_bits(it.run(x[0])), _bits(want[0]))


@needs_litert
@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("shape", [(2, 3), (1,), (2, 1, 3, 2, 2)])
def test_zeros_like_matches_litert_and_tflm(dtype, shape, tmp_path):
    rng = np.random.default_rng(1)
    xs = [[(rng.standard_normal(shape) * 100).astype(dtype)] for _ in range(2)]
    model = check(zeros_like_model(dtype, shape), tmp_path, "ZEROS_LIKE", xs)
    got = ap.Interpreter(ap.plan(model)).run(xs[0][0])
    assert not np.signbit(got).any()   # +0.0, never -0.0


@needs_litert
@pytest.mark.parametrize("in_dtype", ["int8", "float32", "int32", "bool"])
@pytest.mark.parametrize("out", ["int32", "int64"])
@pytest.mark.parametrize("shape", [(2, 3, 5), (1,), (4, 1, 2, 1, 3, 1)])
def test_shape_matches_litert_and_tflm(in_dtype, out, shape, tmp_path):
    rng = np.random.default_rng(2)
    x = rng.integers(0, 2, size=shape).astype(in_dtype)
    q = shape_model(in_dtype, shape, out)
    check(q, tmp_path, "SHAPE", [[x]], tflm=out == "int32")


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 5))
    dims = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    dtype = data.draw(st.sampled_from(["int8", "float32", "int32", "bool"]))
    op = data.draw(st.sampled_from(["FILL", "ZEROS_LIKE", "SHAPE"]))
    where = tmp_path_factory.mktemp("fill")
    if op == "FILL":
        check(fill_model(dtype, dims), where, op, [[np.array(v, dtype)] for v in FILL_VALUES[dtype]], tflm=False)
    elif op == "ZEROS_LIKE":
        dtype = "float32" if dtype in ("int8", "bool") else dtype
        check(zeros_like_model(dtype, dims), where, op, [[np.ones(dims, dtype)]], tflm=False)
    else:
        check(shape_model(dtype, dims), where, op, [[np.ones(dims, dtype)]], tflm=False)


def test_refusals_name_the_op(tmp_path):
    cases = [
        (fill_model("int8", (2, 3), qs=((0.1, 2), (0.2, 2))),
         r"op 0 \(FILL\): value and output are quantised \(0.1.*, 2\) and \(0.2.*, 2\); TFLite's int8 FILL requires "
         r"them equal"),
        (fill_model("float32", (2, 3), value_shape=(1,)),
         r"op 0 \(FILL\): value tensor 1 has shape \(1,\); TFLite requires a scalar"),
        (fill_model("float32", (2, 3), y_shape=(3, 2)),
         r"op 0 \(FILL\): output tensor 2 has shape \(3, 2\), the op computes \(2, 3\)"),
        (fill_model("int16", (2, 3)), r"op 0 \(FILL\): input 1 \(tensor 1\) is int16"),
        (zeros_like_model("int8", (2, 3)),   # under "litert" (int8: tflm only, tests/test_type_rows.py)
         r"op 0 \(ZEROS_LIKE\): input 0 is int8; LiteRT's ZEROS_LIKE takes int32, int64 and float32"),
        (zeros_like_model("int16", (2, 3)),
         r"op 0 \(ZEROS_LIKE\): input 0 \(tensor 0\) is int16; arenaplan's ZEROS_LIKE takes float32, int32, int64, int8"),
        (shape_model("float32", (2, 3), y_shape=(3,)),
         r"op 0 \(SHAPE\): output tensor 1 has shape \(3,\), the op computes \(2,\)"),
        (shape_model("float32", (2, 3), out="int8"), r"op 0 \(SHAPE\): output tensor 1 is int8"),
    ]
    for k, (content, pattern) in enumerate(cases):
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, f"m{k}"))


def test_kernel_checks_its_params():
    codes = {r["name"]: r["code"] for r in _core.ops()}
    with pytest.raises(ValueError, match=r"fill: count 0 must be >= 1"):
        _core.kernel_variants(codes["FILL"], {"count": 0})
    spec = {"rank": 2, "output_type": 2, "dims": [2, 3, 0, 0, 0, 0, 0, 0]}
    assert _core.kernel_variants(codes["SHAPE"], spec, 0, 4)
    with pytest.raises(ValueError, match=r"shape: rank 9 is outside \[0, 8\]"):
        _core.kernel_variants(codes["SHAPE"], dict(spec, rank=9), 0, 4)
    with pytest.raises(ValueError, match=r"shape: output_type 0 is not int32 \(2\) or int64 \(3\)"):
        _core.kernel_variants(codes["SHAPE"], dict(spec, output_type=0), 0, 4)
