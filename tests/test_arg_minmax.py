"""ARG_MAX and ARG_MIN on int8, float32 and int32 (index_ops.c): one-op .tflite models built with the
flatbuffer schema over every axis (negative ones too), int32 and int64 outputs, ties (the first
index wins), float32 infinities and -0.0, the direct variant on every instruction set this
host runs inside a verified plan, bit-exact with LiteRT's reference kernels (BUILTIN_REF) and
TensorFlow Lite Micro's interpreter (int8 and float32 in, int32 out: TFLite Micro reads no int32
and writes no int64); a float32 NaN
as TensorFlow Lite Micro's reference loop treats it (LiteRT's kernel, an optimised loop over the
last axis even under BUILTIN_REF, lets a NaN change its answer: [nan, 1, 3, 2, 0] gives 4 there and
0 in TFLite Micro); hypothesis over shapes and axes; the poisoned arena; refusals naming the op;
the kernel's checks."""
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

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
OPS = ["ARG_MAX", "ARG_MIN"]


def arg_model(op, dtype, shape, axis, out="int32", axis_dtype="int32", y_shape=None, option=None) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = (S.ArgMaxOptionsT if op == "ARG_MAX" else S.ArgMinOptionsT)()
    o.outputType = getattr(S.TensorType, (option or out).upper())
    rank = len(shape)
    if y_shape is None:
        a = axis % rank
        y_shape = tuple(shape[:a]) + tuple(shape[a + 1:])
    q = dict(scale=0.1, zero_point=-3) if dtype == "int8" else {}
    tensors = [dict(shape=shape, dtype=dtype, **q),
               dict(shape=(1,), dtype=axis_dtype, data=np.array([axis], axis_dtype)),
               dict(shape=y_shape, dtype=out)]
    return L.single_op_model(op, tensors, [0, 1], [2], "ArgMaxOptions" if op == "ARG_MAX" else "ArgMinOptions", o,
                             version=1)


def feeds(dtype, shape, seed, nan=False):
    """Few distinct values (ties along every axis), then the type's edges (NaN among them with
    ``nan``)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    out = []
    for k in range(3):
        if dtype in ("int8", "int32"):
            lo, hi = (-128, 127) if dtype == "int8" else (-2 ** 31, 2 ** 31 - 1)
            v = rng.integers(-3, 3, size=n) if k < 2 else rng.integers(lo, hi + 1, size=n, dtype=np.int64)
            v[:min(n, 2)] = [lo, hi][:min(n, 2)]
            out.append([v.astype(dtype).reshape(shape)])
        else:
            v = (rng.integers(-3, 3, size=n) / 2).astype(np.float32)
            edges = np.array([np.nan if nan else 0.5, np.inf, -np.inf, -0.0, 0.0], np.float32)
            v[:min(n, 5)] = edges[:min(n, 5)]
            out.append([v[rng.permutation(n)].reshape(shape)])
    out.append([np.zeros(shape, dtype)])   # all equal: index 0
    return out


CASES = [((2, 5, 3), -2), ((2, 5, 3), 0), ((2, 5, 3), 2), ((7,), 0), ((1, 1, 1, 1), -1), ((3, 4, 2, 6, 2), 3)]


@needs_litert
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ["int8", "float32", "int32"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(op, dtype, case, tmp_path):
    shape, axis = CASES[case]   # (the tflite-micro interpreter refuses int32 inputs)
    check(arg_model(op, dtype, shape, axis), tmp_path, op, feeds(dtype, shape, case), tflm=dtype != "int32")


@needs_litert
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_int64_output_and_axis(op, dtype, tmp_path):
    """int64 indices (LiteRT; TFLite Micro writes int32 only) and an int64 axis tensor."""
    shape = (3, 6, 4)
    check(arg_model(op, dtype, shape, 1, out="int64", axis_dtype="int64"), tmp_path, op, feeds(dtype, shape, 5),
          tflm=False)


@needs_litert
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_nan_as_tflite_micro(op, case, tmp_path):
    """float32 with NaN: a NaN never replaces the running value nor is replaced (strict
    comparisons), as TensorFlow Lite Micro's reference ArgMinMax."""
    shape, axis = CASES[case]
    xs = feeds("float32", shape, case, nan=True)
    xs.append([np.resize(np.array([np.nan, 1, 3, 2, 0], np.float32), shape)])
    model = check(arg_model(op, "float32", shape, axis), tmp_path, op, xs, litert=False)
    if shape == (7,):
        got = ap.Interpreter(ap.plan(model)).run(np.array([np.nan, 1, 3, 2, 0, 9, -9], np.float32))
        assert int(got) == 0


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 5))
    shape = tuple(data.draw(st.lists(st.integers(1, 6), min_size=rank, max_size=rank)))
    axis = data.draw(st.integers(-rank, rank - 1))
    op, dtype = data.draw(st.sampled_from(OPS)), data.draw(st.sampled_from(["int8", "float32", "int32"]))
    out = data.draw(st.sampled_from(["int32", "int64"]))
    check(arg_model(op, dtype, shape, axis, out=out), tmp_path_factory.mktemp("arg"), op,
          feeds(dtype, shape, sum(shape)), tflm=False)


def test_refusals_name_the_op(tmp_path):
    from unary_s8 import load
    cases = [
        (arg_model("ARG_MAX", "int8", (2, 3), 2), r"op 0 \(ARG_MAX\): axis 2 is outside \[-2, 2\)"),
        (arg_model("ARG_MIN", "float32", (2, 3), 1, y_shape=(3,)),
         r"op 0 \(ARG_MIN\): output tensor 2 has shape \(3,\), the op computes \(2,\)"),
        (arg_model("ARG_MAX", "int8", (2, 3), 1, out="int32", option="int64"),
         r"op 0 \(ARG_MAX\): output tensor 2 is int32 \(output_type int64\)"),
        (arg_model("ARG_MAX", "int16", (2, 3), 1), r"op 0 \(ARG_MAX\): input 0 \(tensor 0\) is int16; "
                                                   r"arenaplan's ARG_MAX takes int8, float32, int32"),
        (arg_model("ARG_MIN", "int8", (2, 3), 1, out="int8"), r"op 0 \(ARG_MIN\): output tensor 2 is int8"),
    ]
    for k, (content, pattern) in enumerate(cases):
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, f"m{k}"))


def test_kernel_checks_its_params():
    code = {r["name"]: r["code"] for r in _core.ops()}["ARG_MAX"]
    spec = {"outer": 2, "axis_size": 3, "inner": 4, "output_type": 2}
    assert _core.kernel_variants(code, spec)
    with pytest.raises(ValueError, match=r"arg_min_max: outer 2, axis_size 0 and inner 4 must be >= 1"):
        _core.kernel_variants(code, dict(spec, axis_size=0))
    with pytest.raises(ValueError, match=r"arg_min_max: output_type 1 is not int32 \(2\) or int64 \(3\)"):
        _core.kernel_variants(code, dict(spec, output_type=1))
    with pytest.raises(ValueError):
        _core.kernel_variants(code, dict(spec, outer=2 ** 30, inner=2 ** 30))
