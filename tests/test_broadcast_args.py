"""BROADCAST_ARGS on int32 and int64 shape vectors (broadcast_args.c): one-op .tflite models built
with the flatbuffer schema (vectors of one to five elements, either one longer, ones on either
side, one shape a constant), the direct variant on every instruction set this host runs inside a
verified plan, bit-exact with LiteRT's reference kernels (BUILTIN_REF) and TensorFlow Lite
Micro's interpreter; int64 values beyond int32 taken as TFLite's `int` does; hypothesis over
lengths and values; the poisoned arena; shapes that do not broadcast a run error (TFLite's
kernels abort the process there, so the references are not asked); refusals naming the op."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import ArenaplanError, UnsupportedModel
from arenaplan.ops.lowering import TYPES_CODES
from harness.reference import litert_layers as L
from test_comparisons import check
from unary_s8 import load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))


def bca_model(dtype, l1, l2, s1=None, s2=None, y_len=None, dtypes=None) -> bytes:
    d1, d2, dy = dtypes or (dtype, dtype, dtype)
    tensors = [dict(shape=(l1,), dtype=d1, data=s1), dict(shape=(l2,), dtype=d2, data=s2),
               dict(shape=(max(l1, l2) if y_len is None else y_len,), dtype=dy)]
    return L.single_op_model("BROADCAST_ARGS", tensors, [0, 1], [2], None, None, version=1)


def compatible(l1, l2, rng, dtype):
    """Two shapes that broadcast: each trailing pair equal, or one of them 1."""
    n = max(l1, l2)
    out = rng.integers(1, 6, size=n)
    a, b = out.copy(), out.copy()
    for i in range(n):
        r = rng.integers(0, 3)
        if r == 0:
            a[i] = 1
        elif r == 1:
            b[i] = 1
    return a[n - l1:].astype(dtype), b[n - l2:].astype(dtype)


CASES = [(4, 2), (2, 4), (3, 3), (1, 5), (5, 1), (1, 1)]


@needs_litert
@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("l1,l2", CASES)
def test_matches_litert_and_tflm(dtype, l1, l2, tmp_path):
    rng = np.random.default_rng(l1 * 10 + l2)
    xs = [list(compatible(l1, l2, rng, dtype)) for _ in range(4)]
    xs.append([np.ones(l1, dtype), np.ones(l2, dtype)])
    check(bca_model(dtype, l1, l2), tmp_path, "BROADCAST_ARGS", xs)


@needs_litert
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_one_shape_constant(dtype, tmp_path):
    check(bca_model(dtype, 4, 2, s1=np.array([2, 1, 1, 1], dtype)), tmp_path, "BROADCAST_ARGS",
          [[np.array(v, dtype)] for v in ([3, 4], [1, 1], [7, 1])])


@needs_litert
def test_int64_values_beyond_int32(tmp_path):
    """TFLite takes each value as an int: 2^32 + 3 is 3 there, and 2^32 + 1 is 1 (so it
    broadcasts)."""
    big = 2 ** 32
    xs = [[np.array([big + 3, 1], np.int64), np.array([3, big + 1], np.int64)],
          [np.array([big + 1, 5], np.int64), np.array([-big + 7, 5], np.int64)]]
    check(bca_model("int64", 2, 2), tmp_path, "BROADCAST_ARGS", xs)


@needs_litert
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    l1, l2 = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))
    dtype = data.draw(st.sampled_from(["int32", "int64"]))
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    check(bca_model(dtype, l1, l2), tmp_path_factory.mktemp("b"), "BROADCAST_ARGS",
          [list(compatible(l1, l2, rng, dtype)) for _ in range(2)], tflm=False)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_shapes_that_do_not_broadcast_fail_the_run(dtype, tmp_path):
    it = ap.Interpreter(ap.plan(load(bca_model(dtype, 3, 2), tmp_path)))
    with pytest.raises(ArenaplanError, match=r"broadcast_args: the shapes do not broadcast: element 1 from the "
                                             r"end is 2 and 4"):
        it.run([np.array([2, 2, 3], dtype), np.array([4, 3], dtype)])
    np.testing.assert_array_equal(it.run([np.array([2, 1, 3], dtype), np.array([4, 3], dtype)]), [2, 4, 3])


def test_refusals_name_the_op(tmp_path):
    cases = [
        (bca_model("int32", 3, 2, dtypes=("int32", "int64", "int32")),
         r"op 0 \(BROADCAST_ARGS\): shape1, shape2 and output are int32, int64 and int32; TFLite requires one type"),
        (bca_model("int32", 3, 2, y_len=2), r"op 0 \(BROADCAST_ARGS\): output tensor 2 has shape \(2,\), the op "
                                            r"computes \(3,\)"),
        (bca_model("float32", 3, 2), r"op 0 \(BROADCAST_ARGS\): shape1, shape2 and output are float32"),
        (bca_model("int32", 2, 2, s1=np.array([1, 2], np.int32), s2=np.array([3, 1], np.int32)),
         r"op 0 \(BROADCAST_ARGS\): both inputs are constants"),
    ]
    for k, (content, pattern) in enumerate(cases):
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, f"m{k}"))


def test_kernel_checks_its_params():
    code = {r["name"]: r["code"] for r in _core.ops()}["BROADCAST_ARGS"]
    spec, s32 = {"length1": 3, "length2": 2, "dtype": 2}, TYPES_CODES["s32"]
    assert _core.kernel_variants(code, spec, 0, s32)
    with pytest.raises(ValueError, match=r"broadcast_args: lengths 0 and 2 must be in \[1, 1024\]"):
        _core.kernel_variants(code, dict(spec, length1=0), 0, s32)
    with pytest.raises(ValueError, match=r"broadcast_args: dtype 4 is not int32"):
        _core.kernel_variants(code, dict(spec, dtype=4), 0, s32)
