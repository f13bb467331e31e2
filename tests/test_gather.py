"""GATHER on int8, float32, int32 and bool params with int32 indices (index_ops.c): one-op .tflite
models built with the flatbuffer schema over every axis (negative ones too), indices of rank 0 to
2, repeated indices and both ends, params as an activation or a constant (an embedding table) and
indices as an activation or a constant, batch_dims 0 and above (negative ones too), the direct
variant on every instruction set this host runs inside a verified plan, bit-exact with LiteRT's
reference kernels (BUILTIN_REF) and TensorFlow Lite Micro's interpreter; hypothesis over shapes,
axes and batch_dims; the poisoned arena; an index out of range a run error (an activation) or a
refusal (a constant), never a write outside the output; refusals naming the op."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import ArenaplanError, UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from test_comparisons import check
from unary_s8 import load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))


def gather_model(dtype, shape, ishape, axis, params=None, indices=None, y_shape=None, idx_dtype="int32",
                 batch_dims=0) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = S.GatherOptionsT()
    o.axis, o.batchDims = axis, batch_dims
    rank = len(shape)
    if y_shape is None:
        a = axis % rank
        b = batch_dims + len(ishape) if batch_dims < 0 else batch_dims
        y_shape = tuple(shape[:a]) + tuple(ishape[b:]) + tuple(shape[a + 1:])
    q = dict(scale=0.1, zero_point=-3) if dtype == "int8" else {}
    tensors = [dict(shape=shape, dtype=dtype, data=params, **q),
               dict(shape=ishape, dtype=idx_dtype, data=indices),
               dict(shape=y_shape, dtype=dtype, **q)]
    return L.single_op_model("GATHER", tensors, [0, 1], [2], "GatherOptions", o, version=1)


def feeds(dtype, shape, ishape, axis, seed, with_params=True, with_indices=True):
    rng = np.random.default_rng(seed)
    size = shape[axis % len(shape)]
    out = []
    for k in range(3):
        x = []
        if with_params:
            x.append(_values(dtype, shape, rng))
        if with_indices:
            i = rng.integers(0, size, size=ishape).astype(np.int32)
            if k == 2 and i.size:   # both ends
                i.reshape(-1)[:2] = [0, size - 1][:i.size]
            x.append(i)
        out.append(x)
    return out


def _values(dtype, shape, rng):
    if dtype == "int8":
        return rng.integers(-128, 128, size=shape).astype(np.int8)
    if dtype == "int32":
        return rng.integers(-2 ** 31, 2 ** 31, size=shape, dtype=np.int64).astype(np.int32)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    return rng.standard_normal(shape).astype(np.float32)


TYPES = ["int8", "float32", "int32", "bool"]
CASES = [((5, 4), (3,), 0), ((2, 6, 3), (4, 2), -2), ((2, 6, 3), (), 1), ((2, 3, 7), (5,), -1), ((4,), (4,), 0),
         ((2, 3, 2, 5), (2, 2), 3)]


@needs_litert
@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(dtype, case, tmp_path):
    """(TFLite Micro's GATHER takes int8 and float32 only.)"""
    shape, ishape, axis = CASES[case]
    check(gather_model(dtype, shape, ishape, axis), tmp_path, "GATHER", feeds(dtype, shape, ishape, axis, case),
          tflm=dtype in ("int8", "float32"))


@needs_litert
@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_constant_table_or_constant_indices(dtype, tmp_path):
    """An embedding table (constant params, activation indices) and constant indices over
    activation params."""
    rng = np.random.default_rng(4)
    shape, ishape = (10, 6), (2, 3)
    table = rng.integers(-128, 128, size=shape).astype(np.int8) if dtype == "int8" else \
        rng.standard_normal(shape).astype(np.float32)
    check(gather_model(dtype, shape, ishape, 0, params=table), tmp_path / "table" if False else tmp_path, "GATHER",
          feeds(dtype, shape, ishape, 0, 1, with_params=False))
    idx = np.array([[9, 0, 3], [3, 3, 1]], np.int32)
    sub = tmp_path / "c"
    sub.mkdir()
    check(gather_model(dtype, shape, ishape, 0, indices=idx), sub, "GATHER",
          feeds(dtype, shape, ishape, 0, 2, with_indices=False))


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    shape = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    irank = data.draw(st.integers(0, 2))
    ishape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=irank, max_size=irank)))
    axis = data.draw(st.integers(-rank, rank - 1))
    dtype = data.draw(st.sampled_from(TYPES))
    check(gather_model(dtype, shape, ishape, axis), tmp_path_factory.mktemp("g"), "GATHER",
          feeds(dtype, shape, ishape, axis, sum(shape)), tflm=False)


#: batch_dims cases: (params shape, indices shape, axis, batch_dims)
BATCHED = [((2, 5, 4), (2, 3), 1, 1), ((2, 3, 5, 4), (2, 3, 2), 2, 2), ((2, 3, 5, 4), (2, 3, 2), -2, -1),
           ((2, 3, 5, 4), (2, 6), 3, 1), ((3, 4), (3,), 1, 1), ((3, 4), (3,), -1, -1), ((2, 1, 3), (2, 1, 4), 2, 2),
           ((1, 4, 1, 5), (1, 2, 2), 3, 1), ((2, 3, 4), (2, 3, 1, 2), 2, 2)]


def batched_feeds(dtype, shape, ishape, axis, seed):
    rng = np.random.default_rng(seed)
    size = shape[axis % len(shape)]
    out = []
    for k in range(3):
        i = rng.integers(0, size, size=ishape).astype(np.int32)
        if k == 2:   # both ends
            i.reshape(-1)[:2] = [0, size - 1][:i.size]
        out.append([_values(dtype, shape, rng), i])
    return out


@needs_litert
@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("case", range(len(BATCHED)))
def test_batch_dims_match_litert_and_tflm(dtype, case, tmp_path):
    """batch_dims > 0 (and negative, counted from the indices' rank): each batch gathers with its
    own indices; TFLite Micro's GATHER takes int8 and float32."""
    shape, ishape, axis, bd = BATCHED[case]
    check(gather_model(dtype, shape, ishape, axis, batch_dims=bd), tmp_path, "GATHER",
          batched_feeds(dtype, shape, ishape, axis, case), tflm=dtype in ("int8", "float32"))


@needs_litert
def test_batch_dims_constant_params_or_indices(tmp_path):
    rng = np.random.default_rng(9)
    shape, ishape = (3, 6, 2), (3, 4)
    table = rng.standard_normal(shape).astype(np.float32)
    check(gather_model("float32", shape, ishape, 1, params=table, batch_dims=1), tmp_path, "GATHER",
          [[f[1]] for f in batched_feeds("float32", shape, ishape, 1, 1)])
    sub = tmp_path / "c"
    sub.mkdir()
    idx = rng.integers(0, 6, size=ishape).astype(np.int32)
    check(gather_model("int8", shape, ishape, 1, indices=idx, batch_dims=1), sub, "GATHER",
          [[f[0]] for f in batched_feeds("int8", shape, ishape, 1, 2)])


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_batch_dims_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(2, 4))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    axis = data.draw(st.integers(1, rank - 1))
    bd = data.draw(st.integers(1, axis))
    extra = tuple(data.draw(st.lists(st.integers(1, 3), max_size=2)))
    ishape = shape[:bd] + extra
    if data.draw(st.booleans()):
        bd -= len(ishape)
    if data.draw(st.booleans()):
        axis -= rank
    dtype = data.draw(st.sampled_from(TYPES))
    check(gather_model(dtype, shape, ishape, axis, batch_dims=bd), tmp_path_factory.mktemp("b"), "GATHER",
          batched_feeds(dtype, shape, ishape, axis, sum(shape)), tflm=False)


def test_batch_dims_index_out_of_range(tmp_path):
    """Every batch's indices are checked before anything is written; the message counts the
    index over all batches."""
    model = load(gather_model("int8", (2, 5, 3), (2, 2), 1, batch_dims=1), tmp_path)
    it = ap.Interpreter(ap.plan(model))
    x = np.arange(30, dtype=np.int8).reshape(2, 5, 3)
    with pytest.raises(ArenaplanError, match=r"gather: index 3 is 5, outside \[0, 5\)"):
        it.run([x, np.array([[0, 4], [1, 5]], np.int32)])
    got = it.run([x, np.array([[0, 4], [1, 3]], np.int32)])
    np.testing.assert_array_equal(got, np.stack([x[0][[0, 4]], x[1][[1, 3]]]))


def test_index_out_of_range(tmp_path):
    """An activation index out of range fails the run with the kernel's message and leaves the
    output unwritten; a constant one is refused when the plan is made."""
    model = load(gather_model("int8", (5, 4), (3,), 0), tmp_path)
    p = ap.plan(model)
    assert p.verify()
    it = ap.Interpreter(p)
    x = np.arange(20, dtype=np.int8).reshape(5, 4)
    for bad in (5, -1, 2 ** 31 - 1):
        with pytest.raises(ArenaplanError, match=rf"gather: index 1 is {bad}, outside \[0, 5\)"):
            it.run([x, np.array([0, bad, 1], np.int32)])
    np.testing.assert_array_equal(it.run([x, np.array([4, 0, 4], np.int32)]), x[[4, 0, 4]])
    with pytest.raises(UnsupportedModel, match=r"op 0 \(GATHER\): index 7 \(element 1 of the constant indices\) "
                                               r"is outside \[0, 5\)"):
        ap.plan(load(gather_model("int8", (5, 4), (2,), 0, indices=np.array([1, 7], np.int32)), tmp_path, "c"))


def test_refusals_name_the_op(tmp_path):
    cases = [
        (gather_model("int8", (5, 4), (3,), 2), r"op 0 \(GATHER\): axis 2 is outside \[-2, 2\)"),
        (gather_model("int8", (5, 4), (3,), 0, idx_dtype="int64"),
         r"op 0 \(GATHER\): indices tensor 1 is int64; arenaplan's GATHER takes int32 indices"),
        (gather_model("float32", (5, 4), (3,), 0, y_shape=(3, 5)),
         r"op 0 \(GATHER\): output tensor 2 has shape \(3, 5\), the op computes \(3, 4\)"),
        (gather_model("int16", (5, 4), (3,), 0), r"op 0 \(GATHER\): input 0 \(tensor 0\) is int16"),
        (gather_model("int8", (2, 4), (2, 3), 0, batch_dims=1, y_shape=(2, 3, 4)),
         r"op 0 \(GATHER\): batch_dims 1 \(resolved 1\) must lie in \[0, axis 0\], below params' rank 2 and "
         r"at most the indices' rank 2"),
        (gather_model("int8", (2, 4), (2,), 1, batch_dims=2, y_shape=(2,)),
         r"op 0 \(GATHER\): batch_dims 2 \(resolved 2\) must lie in \[0, axis 1\]"),
        (gather_model("int8", (2, 3, 4), (2,), 2, batch_dims=2, y_shape=(2, 3)),
         r"op 0 \(GATHER\): batch_dims 2 \(resolved 2\) must lie .* at most the indices' rank 1"),
        (gather_model("int8", (2, 4), (2, 3), 1, batch_dims=-3, y_shape=(2, 3)),
         r"op 0 \(GATHER\): batch_dims -3 \(resolved -1\) must lie in \[0, axis 1\]"),
        (gather_model("float32", (2, 4), (3, 3), 1, batch_dims=1, y_shape=(2, 3)),
         r"op 0 \(GATHER\): params \(2, 4\) and indices \(3, 3\) differ in their first 1 \(batch\) dimensions"),
        (gather_model("int8", (2, 4), (2, 3), 1, batch_dims=1, y_shape=(2, 2, 3)),
         r"op 0 \(GATHER\): output tensor 2 has shape \(2, 2, 3\), the op computes \(2, 3\)"),
    ]
    for k, (content, pattern) in enumerate(cases):
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, f"m{k}"))


def test_kernel_checks_its_params():
    code = {r["name"]: r["code"] for r in _core.ops()}["GATHER"]
    spec = {"outer": 2, "axis_size": 3, "inner": 4, "coords": 5, "batches": 2}
    assert _core.kernel_variants(code, spec)
    with pytest.raises(ValueError, match=r"gather: outer 2, axis_size 3, inner 4, coords 0 and batches 2 must be "
                                         r">= 1"):
        _core.kernel_variants(code, dict(spec, coords=0))
    with pytest.raises(ValueError, match=r"batches 0 must be >= 1"):
        _core.kernel_variants(code, dict(spec, batches=0))
    with pytest.raises(ValueError):
        _core.kernel_variants(code, dict(spec, outer=2 ** 30, inner=2 ** 30))
    with pytest.raises(ValueError, match=r"gather: a tensor size overflows"):
        _core.kernel_variants(code, dict(spec, batches=2 ** 30, outer=2 ** 30))


# --- EMBEDDING_LOOKUP: a GATHER of axis 0 on the GATHER row ------------------------------------
def embedding_model(dtype, rows, row_shape, n_ids, table=None, ids=None, y_dtype=None) -> bytes:
    q = dict(scale=0.1, zero_point=-3) if dtype == "int8" else {}
    tensors = [dict(shape=(n_ids,), dtype="int32", data=ids),
               dict(shape=(rows,) + tuple(row_shape), dtype=dtype, data=table, **q),
               dict(shape=(n_ids,) + tuple(row_shape), dtype=y_dtype or dtype, **q)]
    return L.single_op_model("EMBEDDING_LOOKUP", tensors, [0, 1], [2], None, None, version=1)


@needs_litert
@pytest.mark.parametrize("dtype", ["int8", "float32"])
@pytest.mark.parametrize("rows,row_shape,n_ids", [(10, (6,), 4), (3, (2, 5), 7), (1, (1,), 1)])
def test_embedding_lookup_matches_litert_and_tflm(dtype, rows, row_shape, n_ids, tmp_path):
    rng = np.random.default_rng(rows)
    table = (rng.integers(-128, 128, size=(rows,) + row_shape).astype(np.int8) if dtype == "int8" else
             rng.standard_normal((rows,) + row_shape).astype(np.float32))
    xs = []
    for k in range(3):
        ids = rng.integers(0, rows, size=n_ids).astype(np.int32)
        if k == 2:
            ids[:min(n_ids, 2)] = [0, rows - 1][:min(n_ids, 2)]
        xs.append([ids])
    model = check(embedding_model(dtype, rows, row_shape, n_ids, table=table), tmp_path, "EMBEDDING_LOOKUP", xs)
    (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    assert kernel.code == {r["name"]: r["code"] for r in _core.ops()}["GATHER"]
    sub = tmp_path / "act"
    sub.mkdir()
    check(embedding_model(dtype, rows, row_shape, n_ids), sub, "EMBEDDING_LOOKUP", [x + [table] for x in xs])


def test_embedding_lookup_bad_ids_and_refusals(tmp_path):
    table = np.arange(20, dtype=np.float32).reshape(5, 4)
    it = ap.Interpreter(ap.plan(load(embedding_model("float32", 5, (4,), 3, table=table), tmp_path)))
    with pytest.raises(ArenaplanError, match=r"gather: index 2 is 5, outside \[0, 5\)"):
        it.run(np.array([0, 1, 5], np.int32))
    cases = [
        (embedding_model("float32", 5, (4,), 2, ids=np.array([1, 9], np.int32)),
         r"op 0 \(EMBEDDING_LOOKUP\): id 9 of the constant ids is outside \[0, 5\)"),
        (embedding_model("int8", 5, (4,), 2, y_dtype="float32"),
         r"op 0 \(EMBEDDING_LOOKUP\): output tensor 2 is float32, the value table int8; arenaplan runs "
         r"EMBEDDING_LOOKUP of one type"),
        (embedding_model("int16", 5, (4,), 2), r"op 0 \(EMBEDDING_LOOKUP\): input 1 \(tensor 1\) is int16"),
    ]
    for k, (content, pattern) in enumerate(cases):
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, f"e{k}"))
