"""REDUCE_ALL on bool (reduce_all.c): one-op .tflite models built with the flatbuffer schema over
one, several, repeated, negative, all and no axes, keep_dims both ways, size-1 dimensions and
ranks 1 to 9 (neighbouring axes merged), the direct variant on every instruction set this host
runs inside a verified plan, bit-exact with LiteRT's reference kernels (BUILTIN_REF) and
TensorFlow Lite Micro's interpreter; hypothesis over shapes and axes; the poisoned arena;
refusals naming the op (an axis out of range, a non-bool input or output, int64 or non-constant
axes, a wrong output shape, an empty dimension, too many alternations) and bad params by the C
kernel."""
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


def out_shape(shape, axes, keep):
    rank = len(shape)
    red = {a % rank for a in axes if -rank <= a < rank}
    return tuple(1 if d in red else s for d, s in enumerate(shape)) if keep else \
        tuple(s for d, s in enumerate(shape) if d not in red)


def all_model(shape, axes, keep, y_shape=None, dtype="bool", y_dtype="bool", axes_dtype="int32",
              const_axes=True) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = S.ReducerOptionsT()
    o.keepDims = bool(keep)
    a = np.asarray(axes, dtype=axes_dtype).reshape(-1)
    tensors = [dict(shape=shape, dtype=dtype), dict(shape=a.shape, dtype=axes_dtype, data=a if const_axes else None),
               dict(shape=out_shape(shape, axes, keep) if y_shape is None else y_shape, dtype=y_dtype)]
    return L.single_op_model("REDUCE_ALL", tensors, [0, 1], [2], "ReducerOptions", o, version=1)


def feeds(shape, seed):
    """Mostly true (so that whole groups are true), all true, all false, one false."""
    rng = np.random.default_rng(seed)
    one = np.ones(shape, bool)
    one.reshape(-1)[rng.integers(0, one.size)] = False
    return [[rng.random(shape) < 0.9], [rng.random(shape) < 0.5], [np.ones(shape, bool)], [np.zeros(shape, bool)],
            [one]]


#: (shape, axes)
CASES = [((2, 3, 4), [1]), ((2, 3, 4), [-1]), ((2, 3, 4), [0, 2]), ((2, 3, 4), [2, 0, 2, -1]),
         ((2, 3, 4), [0, 1, 2]), ((2, 3, 4), []), ((6,), [0]), ((1, 5, 1), [0]), ((1, 5, 1), [1]),
         ((3, 1, 4, 1), [1, 2]), ((2, 1, 2, 2, 3, 2), [1, 5, 3]), ((2, 3, 2, 3, 2, 3, 2, 3, 2), [1, 2, -4, 5])]


@needs_litert
@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(case, keep, tmp_path):
    shape, axes = CASES[case]
    model = check(all_model(shape, axes, keep), tmp_path, "REDUCE_ALL", feeds(shape, case))
    x = feeds(shape, case)[0][0]
    rank = len(shape)
    want = np.all(x, axis=tuple(sorted({a % rank for a in axes})), keepdims=keep)
    np.testing.assert_array_equal(ap.Interpreter(ap.plan(model)).run(x), want)


@needs_litert
@pytest.mark.parametrize("shape,axes,keep", [((2, 0, 3), [1], False), ((2, 0, 3), [1], True), ((0,), [0], False),
                                             ((0, 4), [0, 1], True), ((3, 0, 2, 0), [1, -1], False)])
def test_an_empty_reduced_axis_gives_true(shape, axes, keep, tmp_path):
    """The AND of nothing: every output true where each empty axis is reduced, the input of no
    bytes (LiteRT and the tflite-micro interpreter alike); an empty kept axis, whose output is
    empty, TensorFlow Lite Micro fails to allocate, and the plan refuses (test_refusals...)."""
    x = np.zeros(shape, bool)
    model = check(all_model(shape, axes, keep), tmp_path, "REDUCE_ALL", [[x], [x]])
    got = ap.Interpreter(ap.plan(model)).run(x)
    assert got.shape == out_shape(shape, axes, keep) and got.all()


@needs_litert
def test_scalar_axis_and_nonzero_bytes(tmp_path):
    """A rank-0 axes tensor (LiteRT and TFLite Micro take one) and bool bytes other than 0 and 1
    through the C API's view: any nonzero byte is true, the output 0 or 1."""
    from ai_edge_litert import schema_py_generated as S
    o = S.ReducerOptionsT()
    o.keepDims = False
    tensors = [dict(shape=(3, 4), dtype="bool"), dict(shape=(), dtype="int32", data=np.array(-1, np.int32)),
               dict(shape=(3,), dtype="bool")]
    content = L.single_op_model("REDUCE_ALL", tensors, [0, 1], [2], "ReducerOptions", o, version=1)
    check(content, tmp_path, "REDUCE_ALL", feeds((3, 4), 7))
    (kernel,) = PlanContext.build(load(content, tmp_path, "k"), isa="portable", reference="litert").kernels
    assert kernel.spec["rank"] == 2 and kernel.spec["reduce"][:2] == [0, 1]
    raw = np.array([[1, 2, 255, 1], [0, 1, 1, 1], [7, 7, 7, 7]], np.uint8)
    got = ap.Interpreter(ap.plan(load(content, tmp_path, "b"))).run(raw.view(bool))
    assert got.view(np.uint8).tolist() == [1, 0, 1]


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 6))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    axes = data.draw(st.lists(st.integers(-rank, rank - 1), max_size=rank + 1))
    keep = data.draw(st.booleans())
    check(all_model(shape, axes, keep), tmp_path_factory.mktemp("a"), "REDUCE_ALL", feeds(shape, sum(shape)),
          tflm=False)


def test_refusals_name_the_op(tmp_path):
    cases = [
        (all_model((2, 3, 4), [3], False, y_shape=(2, 3, 4)),
         r"op 0 \(REDUCE_ALL\): axis 3 is out of range for an input of rank 3 \(it must lie in \[-3, 3\)\)"),
        (all_model((2, 3, 4), [1, -4], False, y_shape=(2, 4)), r"op 0 \(REDUCE_ALL\): axis -4 is out of range"),
        (all_model((2, 3, 4), [1], False, dtype="int8", y_dtype="int8"),
         r"op 0 \(REDUCE_ALL\): input 0 \(tensor 0\) is int8; arenaplan's REDUCE_ALL takes bool"),
        (all_model((2, 3, 4), [1], False, y_dtype="int8"),
         r"op 0 \(REDUCE_ALL\): output tensor 2 is int8; REDUCE_ALL writes bool"),
        (all_model((2, 3, 4), [1], False, axes_dtype="int64"),
         r"op 0 \(REDUCE_ALL\): axes tensor 1 is int64; TFLite's REDUCE_ALL takes int32 axes"),
        (all_model((2, 3, 4), [1], False, const_axes=False), r"op 0 \(REDUCE_ALL\): axes tensor 1 .* must be a "
                                                             r"constant"),
        (all_model((2, 3, 4), [1], False, y_shape=(2, 1, 4)),
         r"op 0 \(REDUCE_ALL\): output tensor 2 has shape \(2, 1, 4\), the op computes \(2, 4\)"),
        (all_model((2, 0, 4), [2], True), r"op 0 \(REDUCE_ALL\): input shape \(2, 0, 4\) has an empty dimension "
                                          r"that is not reduced, so the output \(2, 0, 1\) is empty; TensorFlow Lite "
                                          r"Micro's REDUCE_ALL fails to allocate it"),
        (all_model((2,) * 9, [1, 3, 5, 7], True),
         r"op 0 \(REDUCE_ALL\): the input \(2, 2, 2, 2, 2, 2, 2, 2, 2\) over axes \[1, 3, 5, 7\] alternates kept and "
         r"reduced axes 9 times; arenaplan's REDUCE_ALL takes at most 8"),
    ]
    for k, (content, pattern) in enumerate(cases):
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, f"m{k}"))


def test_kernel_checks_its_params():
    (row,) = [r for r in _core.ops() if r["name"] == "REDUCE_ALL"]
    code, isa, types = row["code"], 0, row["types_code"]
    spec = {"rank": 2, "dims": [3, 4, 1, 1, 1, 1, 1, 1], "reduce": [0, 1, 0, 0, 0, 0, 0, 0]}
    assert _core.kernel_variants(code, spec, isa, types)
    assert _core.kernel_variants(code, dict(spec, dims=[3, 0] + [1] * 6), isa, types)   # an empty reduced axis
    for bad, pattern in ((dict(spec, rank=0), r"reduce_all: rank 0 is outside \[1, 8\]"),
                         (dict(spec, rank=9), r"reduce_all: rank 9 is outside \[1, 8\]"),
                         (dict(spec, dims=[0, 4] + [1] * 6), r"reduce_all: dims\[0\] is 0 and reduce\[0\] 0"),
                         (dict(spec, dims=[3, -1] + [1] * 6), r"reduce_all: dims\[1\] is -1 and reduce\[1\] 1"),
                         (dict(spec, reduce=[0, 2] + [0] * 6), r"reduce_all: dims\[1\] is 4 and reduce\[1\] 2"),
                         (dict(spec, rank=8, dims=[2 ** 30] * 8), r"reduce_all: the input's size overflows")):
        with pytest.raises(ValueError, match=pattern):
            _core.kernel_variants(code, bad, isa, types)
