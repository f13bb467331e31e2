"""REVERSE_V2 on int8, int16, float32, int32 and bool (reverse.c, one kernel for every element
width): one-op .tflite models built with the flatbuffer schema over one, several and all axes
(negative, unsorted), size-1 dimensions, ranks 1 to 8, the direct variant on every instruction
set this host runs inside a verified plan, bit-exact with LiteRT's reference kernels
(BUILTIN_REF) and TensorFlow Lite Micro's interpreter; hypothesis over shapes and axes; the
poisoned arena; refusals naming the op (an axis out of range, more axes than the rank, repeated
or non-contiguous axes, an empty axes vector, a rank beyond each runtime's, an empty dimension,
types without a row) and bad params by the C kernel."""
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

TYPES = ["int8", "int16", "float32", "int32", "bool"]


def reverse_model(dtype, shape, axes, y_shape=None, y_dtype=None, axes_dtype="int32", const_axes=True) -> bytes:
    q = dict(scale=0.1, zero_point=-3) if dtype == "int8" else dict(scale=1e-3, zero_point=0) \
        if dtype == "int16" else {}
    a = np.asarray(axes, dtype=axes_dtype).reshape(-1)
    tensors = [dict(shape=shape, dtype=dtype, **q),
               dict(shape=a.shape, dtype=axes_dtype, data=a if const_axes else None),
               dict(shape=shape if y_shape is None else y_shape, dtype=y_dtype or dtype, **q)]
    return L.single_op_model("REVERSE_V2", tensors, [0, 1], [2], None, None, version=1)


def values(dtype, shape, rng):
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype == "float32":
        v = rng.standard_normal(shape).astype(np.float32)
        edges = np.array([np.inf, -np.inf, -0.0, np.nan], np.float32)[:v.size]
        v.reshape(-1)[:edges.size] = edges
        return v
    info = np.iinfo(dtype)
    v = rng.integers(info.min, int(info.max) + 1, size=shape, dtype=np.int64).astype(dtype)
    v.reshape(-1)[:2] = [info.min, info.max][:v.size]
    return v


def feeds(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    return [[values(dtype, shape, rng)] for _ in range(2)]


#: (shape, axes)
CASES = [((2, 3, 4), [1]), ((2, 3, 4), [-1]), ((2, 3, 4), [0]), ((2, 3, 4), [0, 1]), ((2, 3, 4), [2, -2]),
         ((2, 3, 4), [0, 1, 2]), ((7,), [0]), ((1, 1, 5), [0, 1]), ((3, 1, 4, 1), [1, 2]),
         ((1, 2, 1, 3, 2), [-2]), ((2, 1, 2, 2, 3, 2), [3, 4, 2])]


@needs_litert
@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(dtype, case, tmp_path):
    shape, axes = CASES[case]
    got = check(reverse_model(dtype, shape, axes), tmp_path, "REVERSE_V2", feeds(dtype, shape, case))
    # and numpy's flip, which is what both runtimes compute
    x = feeds(dtype, shape, case)[0][0]
    np.testing.assert_array_equal(ap.Interpreter(ap.plan(got)).run(x), np.flip(x, axis=tuple(axes)))


@needs_litert
def test_rank_seven_and_eight_under_litert(tmp_path):
    """LiteRT takes rank 8, TensorFlow Lite Micro 6 (its Prepare refuses 7); the plan follows the
    rounding rule."""
    for rank in (7, 8):
        (tmp_path / f"r{rank}").mkdir()
        shape = (2, 1, 2, 3, 1, 2, 2, 1)[:rank]
        check(reverse_model("int8", shape, [2, 3]), tmp_path / f"r{rank}", "REVERSE_V2",
              feeds("int8", shape, rank), tflm=False)
        with pytest.raises(UnsupportedModel, match=rf"op 0 \(REVERSE_V2\): the input has rank {rank}; "
                                                   r"TensorFlow Lite Micro's REVERSE_V2 takes at most 6"):
            ap.plan(load(reverse_model("int8", shape, [2, 3]), tmp_path, f"t{rank}"), reference="tflm")


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 5))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    first = data.draw(st.integers(0, rank - 1))
    last = data.draw(st.integers(first, rank - 1))
    axes = [a - rank if data.draw(st.booleans()) else a for a in range(first, last + 1)]
    axes = data.draw(st.permutations(axes))
    dtype = data.draw(st.sampled_from(TYPES))
    check(reverse_model(dtype, shape, axes), tmp_path_factory.mktemp("r"), "REVERSE_V2",
          feeds(dtype, shape, sum(shape)), tflm=False)


@needs_litert
def test_runtimes_refuse_what_the_plan_refuses():
    """Both TFLite runtimes fail these models (Prepare or Invoke), so refusing them at plan time
    loses nothing: an axis out of range, more axes than the rank, repeated or non-contiguous
    axes."""
    from test_comparisons import tflm_run
    x = np.arange(24, dtype=np.int8).reshape(2, 3, 4)
    for axes in ([3], [-4], [0, 1, 2, 0], [1, 1], [0, 2]):
        m = reverse_model("int8", (2, 3, 4), axes)
        with pytest.raises(Exception):
            L.run_single_op(m, [x])
        with pytest.raises(Exception):
            tflm_run(m, [[x]])


def test_refusals_name_the_op(tmp_path):
    cases = [
        (reverse_model("int8", (2, 3, 4), [3]),
         r"op 0 \(REVERSE_V2\): axis 3 is out of range for an input of rank 3 \(it must lie in \[-3, 3\)\)"),
        (reverse_model("int8", (2, 3, 4), [-4]), r"op 0 \(REVERSE_V2\): axis -4 is out of range"),
        (reverse_model("int8", (2, 3, 4), [0, 1, 2, 0]),
         r"op 0 \(REVERSE_V2\): 4 axes for an input of rank 3; TFLite's REVERSE_V2 takes at most the rank"),
        (reverse_model("float32", (2, 3, 4), [1, -2]),
         r"op 0 \(REVERSE_V2\): axes \[1, -2\] resolve to \[1, 1\], which are not distinct and contiguous"),
        (reverse_model("int32", (2, 3, 4), [0, 2]), r"op 0 \(REVERSE_V2\): axes \[0, 2\] resolve to \[0, 2\]"),
        (reverse_model("int8", (2, 3, 4), []), r"op 0 \(REVERSE_V2\): axes tensor 1 is empty"),
        (reverse_model("int8", (2, 3, 4), [1], axes_dtype="int64"),
         r"op 0 \(REVERSE_V2\): axes tensor 1 is int64; TFLite's REVERSE_V2 takes int32 axes"),
        (reverse_model("int8", (2, 3, 4), [1], const_axes=False), r"op 0 \(REVERSE_V2\): axes tensor 1 .* must be "
                                                                 r"a constant"),
        (reverse_model("int8", (2, 3, 4), [1], y_dtype="int16"),
         r"op 0 \(REVERSE_V2\): output tensor 2 is int16, the input int8; TFLite requires one type"),
        (reverse_model("int8", (2, 3, 4), [1], y_shape=(2, 4, 3)),
         r"op 0 \(REVERSE_V2\): output tensor 2 has shape \(2, 4, 3\), the op computes \(2, 3, 4\)"),
        (reverse_model("int8", (2, 0, 4), [1]), r"op 0 \(REVERSE_V2\): input shape \(2, 0, 4\) has an empty "
                                                r"dimension, so the output is empty; TensorFlow Lite Micro's "
                                                r"REVERSE_V2 fails to allocate it"),
        (reverse_model("int8", (1, 2, 1, 2, 1, 2, 1, 2, 1), [1]),
         r"op 0 \(REVERSE_V2\): the input has rank 9; LiteRT's REVERSE_V2 takes at most 8"),
    ]
    for k, (content, pattern) in enumerate(cases):
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, f"m{k}"))


def test_kernel_checks_its_params():
    rows = [r for r in _core.ops() if r["name"] == "REVERSE_V2"]
    assert sorted(r["types"] for r in rows) == sorted(["s8", "s16x8", "f32", "s32", "bool", "s64", "u8"])
    spec = {"outer": 2, "middle": 3, "inner": 4}
    for r in rows:
        code, types = r["code"], r["types_code"]
        (v,) = _core.kernel_variants(code, spec, 0, types)
        assert v[0] == "direct" and v[3] == () and not v[5]   # no scratch, not in place
        with pytest.raises(ValueError, match=r"reverse_v2: outer 2, middle 0 and inner 4 must be >= 1"):
            _core.kernel_variants(code, dict(spec, middle=0), 0, types)
        with pytest.raises(ValueError, match=r"reverse_v2: the tensor's size overflows"):
            _core.kernel_variants(code, dict(spec, outer=2 ** 30, middle=2 ** 30), 0, types)
