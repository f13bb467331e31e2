"""ADD_N on float32 and int32 (arith.c): one-op .tflite models built with the flatbuffer schema, 2
to 6 inputs of ranks 1 to 5, sums in input order (float32 values whose order changes the rounding,
inf, NaN, -0.0; int32 wrapping), bit-exact with LiteRT's reference kernels (BUILTIN_REF) under
reference "litert" and TensorFlow Lite Micro's interpreter under "tflm" (float32; TFLite Micro has
no int32 kernel): they differ where LiteRT clamps each sum to the finite range (an infinite sum is
FLT_MAX there) and for a sum of -0.0 terms (LiteRT -0.0, TFLite Micro +0.0);
hypothesis over shapes and counts; the poisoned arena; in place; refusals naming the op."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from test_comparisons import check
from unary_s8 import load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))


def add_n_model(dtype, shape, n, y_shape=None, other=None) -> bytes:
    tensors = [dict(shape=shape, dtype=dtype) for _ in range(n)]
    if other is not None:
        tensors[-1] = dict(shape=other[0], dtype=other[1])
    tensors.append(dict(shape=shape if y_shape is None else y_shape, dtype=dtype))
    return L.single_op_model("ADD_N", tensors, list(range(n)), [n], None, None, version=1)


def feeds(dtype, shape, n, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(3):
        if dtype == "int32":
            xs = [rng.integers(-2 ** 31, 2 ** 31, size=shape, dtype=np.int64).astype(np.int32) for _ in range(n)]
        else:
            xs = []
            for _ in range(n):
                v = (rng.standard_normal(int(np.prod(shape))) * 10.0 ** rng.integers(-8, 9)).astype(np.float32)
                v[:min(v.size, 2)] = np.array([1e30, -1e30], np.float32)[:min(v.size, 2)]
                xs.append(v.reshape(shape))
            xs[0].reshape(-1)[-1] = np.inf if shape[0] > 0 else 0
        out.append(xs)
    return out


@needs_litert
@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("shape,n", [((2, 3, 4), 2), ((7,), 3), ((2, 1, 3, 2, 2), 6), ((1,), 4)])
def test_matches_litert_and_tflm(dtype, shape, n, tmp_path):
    xs = feeds(dtype, shape, n, n)
    check(add_n_model(dtype, shape, n), tmp_path, "ADD_N", xs, tflm=False)
    if dtype == "float32":
        sub = tmp_path / "tflm"
        sub.mkdir()
        check(add_n_model(dtype, shape, n), sub, "ADD_N", xs, reference="tflm", litert=False)


@needs_litert
def test_infinities_and_negative_zero_follow_the_rounding_rule(tmp_path):
    content = add_n_model("float32", (4,), 3)
    z = [np.array([-0.0, -0.0, 1.0, np.nan], np.float32)] * 3
    for reference, sign in (("litert", True), ("tflm", False)):
        got = ap.Interpreter(ap.plan(load(content, tmp_path, reference), reference=reference)).run(z)
        assert bool(np.signbit(got[0])) is sign and np.isnan(got[3])
        inf = ap.Interpreter(ap.plan(load(content, tmp_path, reference), reference=reference)).run(
            [np.array([np.inf, -np.inf, 3e38, 1], np.float32)] * 3)
        want = [np.inf, -np.inf, np.inf, 3] if reference == "tflm" else [3.4028235e38, -3.4028235e38, 3.4028235e38, 3]
        np.testing.assert_array_equal(inf, np.array(want, np.float32))
    check(content, tmp_path / "l" if False else tmp_path, "ADD_N", [z], tflm=False)


@needs_litert
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    shape = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    n, dtype = data.draw(st.integers(2, 6)), data.draw(st.sampled_from(["float32", "int32"]))
    check(add_n_model(dtype, shape, n), tmp_path_factory.mktemp("an"), "ADD_N", feeds(dtype, shape, n, sum(shape)),
          tflm=False)


def test_in_place(tmp_path):
    (kernel,) = PlanContext.build(load(add_n_model("float32", (3, 4), 3), tmp_path), isa="portable",
                                  reference="litert").kernels
    assert kernel.variants[0].in_place


def test_refusals_name_the_op(tmp_path):
    cases = [
        (add_n_model("float32", (3, 4), 2, other=((1, 4), "float32")),
         r"op 0 \(ADD_N\): tensor 1 has shape \(1, 4\), input0 \(3, 4\); ADD_N does not broadcast"),
        (add_n_model("float32", (3, 4), 3, other=((3, 4), "int32")),
         r"op 0 \(ADD_N\): tensor 2 is int32, input0 float32; TFLite requires one type"),
        (add_n_model("int8", (3, 4), 2), r"op 0 \(ADD_N\): input0 is int8; LiteRT's ADD_N takes float32 and int32"),
        (add_n_model("int16", (3, 4), 2), r"op 0 \(ADD_N\): input 0 \(tensor 0\) is int16"),
        (add_n_model("float32", (3,), 17), r"op 0 \(ADD_N\): 17 inputs; ADD_N takes 2 to 16 here"),
    ]
    for k, (content, pattern) in enumerate(cases):
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, f"m{k}"))
