"""GATHER_ND on int8, float32 and int32 params with int32 indices (gather_nd.c): one-op .tflite
models built with the flatbuffer schema (index depths 1 to 5, whole elements and slices, indices
of rank 1 to 3, repeated tuples and both ends of every dimension, size-1 dimensions, params as
an activation or a constant and indices as an activation or a constant), the direct variant on
every instruction set this host runs inside a verified plan, bit-exact with LiteRT's reference
kernels (BUILTIN_REF) and TensorFlow Lite Micro's interpreter (int8 and float32: it has no other
params type); hypothesis over shapes; the poisoned arena; an index out of range a run error by
either rule (LiteRT's per component, TensorFlow Lite Micro's flat) or, constant, a refusal, never
a read outside the params; refusals naming the op."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import ArenaplanError, UnsupportedModel
from harness.reference import litert_layers as L
from test_comparisons import check, tflm_run
from unary_s8 import load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
TYPES = ["int8", "float32", "int32"]


def gather_nd_model(dtype, shape, ishape, params=None, indices=None, y_shape=None, idx_dtype="int32") -> bytes:
    if y_shape is None:
        y_shape = tuple(ishape[:-1]) + tuple(shape[ishape[-1]:])
    q = dict(scale=0.1, zero_point=-3) if dtype in ("int8", "int16") else {}
    tensors = [dict(shape=shape, dtype=dtype, data=params, **q), dict(shape=ishape, dtype=idx_dtype, data=indices),
               dict(shape=y_shape, dtype=dtype, **q)]
    return L.single_op_model("GATHER_ND", tensors, [0, 1], [2], None, None, version=1)


def _values(dtype, shape, rng):
    if dtype == "int8":
        return rng.integers(-128, 128, size=shape).astype(np.int8)
    if dtype == "int32":
        return rng.integers(-2 ** 31, 2 ** 31, size=shape, dtype=np.int64).astype(np.int32)
    return rng.standard_normal(shape).astype(np.float32)


def _indices(shape, ishape, rng, k):
    depth = ishape[-1]
    idx = np.stack([rng.integers(0, shape[d], size=ishape[:-1]) for d in range(depth)], axis=-1).astype(np.int32)
    if k == 2:   # both ends of every dimension
        flat = idx.reshape(-1, depth)
        flat[0] = 0
        flat[-1] = [shape[d] - 1 for d in range(depth)]
    return idx


def feeds(dtype, shape, ishape, seed, with_params=True, with_indices=True):
    rng = np.random.default_rng(seed)
    out = []
    for k in range(3):
        x = []
        if with_params:
            x.append(_values(dtype, shape, rng))
        if with_indices:
            x.append(_indices(shape, ishape, rng, k))
        out.append(x)
    return out


#: (params shape, indices shape)
CASES = [((5, 4), (3, 2)), ((5, 4), (3, 1)), ((2, 6, 3), (4, 2)), ((2, 3, 4, 5), (2, 2, 3)),
         ((2, 3, 2, 3, 2, 4), (3, 5)), ((7,), (4, 1)), ((1, 1, 1), (1, 3)), ((3, 4), (2,)), ((3, 4, 2), (1,))]


@needs_litert
@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(dtype, case, tmp_path):
    """(TensorFlow Lite Micro's GATHER_ND takes int8 and float32 params only.)"""
    shape, ishape = CASES[case]
    check(gather_nd_model(dtype, shape, ishape), tmp_path, "GATHER_ND", feeds(dtype, shape, ishape, case),
          tflm=dtype in ("int8", "float32"))


@needs_litert
@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_constant_params_or_constant_indices(dtype, tmp_path):
    rng = np.random.default_rng(4)
    shape, ishape = (6, 5, 3), (2, 2, 2)
    table = _values(dtype, shape, rng)
    check(gather_nd_model(dtype, shape, ishape, params=table), tmp_path, "GATHER_ND",
          feeds(dtype, shape, ishape, 1, with_params=False))
    idx = np.array([[[5, 4], [0, 0]], [[3, 2], [3, 2]]], np.int32)
    sub = tmp_path / "c"
    sub.mkdir()
    check(gather_nd_model(dtype, shape, ishape, indices=idx), sub, "GATHER_ND",
          feeds(dtype, shape, ishape, 2, with_indices=False))


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 5))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    depth = data.draw(st.integers(1, min(rank, 5)))
    outer = tuple(data.draw(st.lists(st.integers(1, 3), min_size=0, max_size=2)))
    ishape = outer + (depth,)
    dtype = data.draw(st.sampled_from(TYPES))
    check(gather_nd_model(dtype, shape, ishape), tmp_path_factory.mktemp("g"), "GATHER_ND",
          feeds(dtype, shape, ishape, sum(shape)), tflm=False)


def test_index_out_of_range(tmp_path):
    """Under LiteRT's rule every component must lie in its dimension; under TensorFlow Lite
    Micro's only the slice, counted flat, within the params ([0, 5] of a 3x4 reads element 5, as
    the tflite-micro interpreter does). Either way a bad one fails the run and leaves the output
    unwritten; constant ones are refused when the plan is made."""
    content = gather_nd_model("float32", (3, 4), (2, 2))
    model = load(content, tmp_path)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    litert = ap.Interpreter(ap.plan(model, reference="litert"))
    tflm = ap.Interpreter(ap.plan(model, reference="tflm"))
    for bad in ([0, 5], [1, -1], [3, 0]):
        with pytest.raises(ArenaplanError, match=r"gather_nd: index 1 component \d is -?\d+, outside \[0, [34]\)"):
            litert.run([x, np.array([[0, 0], bad], np.int32)])
    for bad in ([2, 4], [-1, 3], [3, 0], [0, 2 ** 31 - 1]):
        with pytest.raises(ArenaplanError, match=r"gather_nd: index 1 reads at element -?\d+, outside the params' 12"):
            tflm.run([x, np.array([[0, 0], bad], np.int32)])
    fine = np.array([[0, 5], [1, -1]], np.int32)   # within the params counted flat: elements 5 and 3
    want = tflm_run(content, [[x, fine]])[0]
    np.testing.assert_array_equal(tflm.run([x, fine]), want)
    np.testing.assert_array_equal(want, [5.0, 3.0])
    with pytest.raises(UnsupportedModel, match=r"op 0 \(GATHER_ND\): index \[0, 5\] \(tuple 1 of the constant "
                                               r"indices\) has component 1 outside \[0, 4\)"):
        ap.plan(load(gather_nd_model("float32", (3, 4), (2, 2), indices=np.array([[1, 1], [0, 5]], np.int32)),
                     tmp_path, "c"), reference="litert")
    assert ap.plan(load(gather_nd_model("float32", (3, 4), (2, 2), indices=np.array([[1, 1], [0, 5]], np.int32)),
                        tmp_path, "c2"), reference="tflm").verify()
    with pytest.raises(UnsupportedModel, match=r"op 0 \(GATHER_ND\): index \[2, 4\] \(tuple 0 of the constant "
                                               r"indices\) reads outside params \(3, 4\)"):
        ap.plan(load(gather_nd_model("float32", (3, 4), (1, 2), indices=np.array([[2, 4]], np.int32)),
                     tmp_path, "c3"), reference="tflm")


@needs_litert
def test_litert_fails_where_the_litert_rule_does(tmp_path):
    content = gather_nd_model("float32", (3, 4), (1, 2))
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for bad in ([0, 5], [1, -1]):
        with pytest.raises(Exception):
            L.run_sequence(content, [[x, np.array([bad], np.int32)]])


def test_refusals_name_the_op(tmp_path):
    cases = [
        (gather_nd_model("int8", (5, 4), (3, 2), idx_dtype="int64"),
         r"op 0 \(GATHER_ND\): indices tensor 1 is int64; TensorFlow Lite Micro's GATHER_ND takes int32 indices"),
        (gather_nd_model("float32", (5, 4), (3, 3), y_shape=(3,)),
         r"op 0 \(GATHER_ND\): the indices' last dimension is 3; it must be at most params' rank 2"),
        (gather_nd_model("float32", (2,) * 6, (1, 6), y_shape=(1,)),
         r"op 0 \(GATHER_ND\): the indices' last dimension is 6; it must be at most params' rank 6 and at most 5"),
        (gather_nd_model("float32", (5, 4), (3, 1), y_shape=(3, 5)),
         r"op 0 \(GATHER_ND\): output tensor 2 has shape \(3, 5\), the op computes \(3, 4\)"),
        (gather_nd_model("int16", (5, 4), (3, 1)), r"op 0 \(GATHER_ND\): input 0 \(tensor 0\) is int16"),
        (gather_nd_model("float32", (5, 4), (3, 1), params=np.ones((5, 4), np.float32),
                         indices=np.zeros((3, 1), np.int32)),
         r"op 0 \(GATHER_ND\): params and indices are constants"),
    ]
    for k, (content, pattern) in enumerate(cases):
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, f"m{k}"))


def test_kernel_checks_its_params():
    code = {r["name"]: r["code"] for r in _core.ops()}["GATHER_ND"]
    spec = {"index_depth": 2, "dims": [3, 4, 1, 1, 1], "slice_size": 2, "slices": 5, "bounds": 0}
    assert _core.kernel_variants(code, spec)
    with pytest.raises(ValueError, match=r"gather_nd: index_depth 6 is outside \[1, 5\]"):
        _core.kernel_variants(code, dict(spec, index_depth=6))
    with pytest.raises(ValueError, match=r"gather_nd: dims\[1\] is 0"):
        _core.kernel_variants(code, dict(spec, dims=[3, 0, 1, 1, 1]))
    with pytest.raises(ValueError):
        _core.kernel_variants(code, dict(spec, slice_size=2 ** 30))
