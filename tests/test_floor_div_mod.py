"""FLOOR_DIV and FLOOR_MOD on float32 and int32 (arith.c): one-op .tflite models built with the
flatbuffer schema (4-D broadcasting both ways, scalars, every sign combination, quotients that
round to an integer in float32 but not in double, int32 extremes but an INT32_MIN dividend, whose
remainder by -1 traps in LiteRT, float32 inf, NaN, -0.0, and float32 FLOOR_MOD by 0.0: NaN), bit-exact with LiteRT's reference kernels (BUILTIN_REF) and TensorFlow Lite
Micro's interpreter (float32: TFLite Micro has no int32 kernel); hypothesis over shapes; the
poisoned arena; an int32 division by zero a run error (an activation divisor) or a refusal (a
constant); refusals naming the op."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import ArenaplanError, UnsupportedModel
from harness.reference import litert_layers as L
from test_comparisons import check
from unary_s8 import load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
OPS = ["FLOOR_DIV", "FLOOR_MOD"]


def floor_model(op, dtype, a_shape, b_shape, y_shape=None, b_data=None, b_dtype=None) -> bytes:
    if y_shape is None:
        y_shape = tuple(np.broadcast_shapes(a_shape, b_shape))
    tensors = [dict(shape=a_shape, dtype=dtype), dict(shape=b_shape, dtype=b_dtype or dtype, data=b_data),
               dict(shape=y_shape, dtype=dtype)]
    return L.single_op_model(op, tensors, [0, 1], [2], None, None, version=1)


def values(dtype, shape, rng, divisor, zero=True):
    n = int(np.prod(shape))
    if dtype == "int32":
        v = rng.integers(-20, 21, size=n).astype(np.int64)
        # (no INT32_MIN dividend: INT32_MIN % -1 traps in LiteRT's kernel, a SIGFPE on x86)
        edges = [-2 ** 31, 2 ** 31 - 1, 7, -7, 1, -1] if divisor else [-2 ** 31 + 1, 2 ** 31 - 1, 7, -7, 0, 1]
        if divisor:
            v[v == 0] = 3
        k = min(n, len(edges))
        v[:k] = edges[:k]
        return v.astype(np.int32)[rng.permutation(n)].reshape(shape)
    v = (rng.standard_normal(n) * 10).astype(np.float32)
    edges = np.array([np.inf, -np.inf, np.nan] + ([-0.0, 0.0] if zero else [0.5, -4.0]) + [0.1, -0.1, 3.0, 1e-30, 7.0,
                                                                                        1e30], np.float32)
    if not zero:
        v[v == 0] = 1.0
    k = min(n, edges.size)
    v[:k] = edges[rng.permutation(edges.size)[:k]]
    return v.reshape(shape)


def feeds(dtype, a_shape, b_shape, seed, op="FLOOR_MOD"):
    """Dividends with zeros, divisors without (but float32 FLOOR_MOD's, which gives NaN)."""
    rng = np.random.default_rng(seed)
    out = [[values(dtype, a_shape, rng, False), values(dtype, b_shape, rng, True, op == "FLOOR_MOD")]
           for _ in range(3)]
    if dtype == "float32":   # quotients just below an integer: double floor and float floor differ
        out.append([np.full(a_shape, 0.3, np.float32), np.full(b_shape, 0.1, np.float32)])
        out.append([np.full(a_shape, 1.0, np.float32), np.full(b_shape, 0.1, np.float32)])
    return out


CASES = [((2, 3, 4), (2, 3, 4)), ((3, 1, 8), (1, 5, 1)), ((17,), (1,)), ((1,), (3, 4)), ((2, 3, 4, 5), (2, 1, 4, 1))]


@needs_litert
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(op, dtype, case, tmp_path):
    a, b = CASES[case]
    check(floor_model(op, dtype, a, b), tmp_path, op, feeds(dtype, a, b, case, op), tflm=dtype == "float32")


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    full = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    a = tuple(d if data.draw(st.booleans()) else 1 for d in full)
    b = tuple(d if data.draw(st.booleans()) else 1 for d in full)
    b = b[data.draw(st.integers(0, rank - 1)):]
    op, dtype = data.draw(st.sampled_from(OPS)), data.draw(st.sampled_from(["float32", "int32"]))
    check(floor_model(op, dtype, a, b), tmp_path_factory.mktemp("fl"), op, feeds(dtype, a, b, sum(full), op),
          tflm=False)


@pytest.mark.parametrize("op,dtype", [("FLOOR_DIV", "int32"), ("FLOOR_MOD", "int32"), ("FLOOR_DIV", "float32")])
def test_division_by_zero(op, dtype, tmp_path):
    """A zero divisor (-0.0 too) fails the run as TFLite's kernel fails; a constant one is refused."""
    it = ap.Interpreter(ap.plan(load(floor_model(op, dtype, (2, 3), (3,)), tmp_path)))
    x = np.arange(6).astype(dtype).reshape(2, 3)
    for zero in (0, -0.0) if dtype == "float32" else (0,):
        with pytest.raises(ArenaplanError, match=rf"{op.lower()}: division by zero \(element 1 of the divisor\)"):
            it.run([x, np.array([1, zero, 2]).astype(dtype)])
    with pytest.raises(UnsupportedModel, match=rf"op 0 \({op}\): the constant divisor \(tensor 1\) holds 0"):
        ap.plan(load(floor_model(op, dtype, (2, 3), (3,), b_data=np.array([1, 0, 2]).astype(dtype)), tmp_path, "c"))


def test_refusals_name_the_op(tmp_path):
    cases = [
        (floor_model("FLOOR_DIV", "int8", (3,), (3,)), r"op 0 \(FLOOR_DIV\): input 0 \(tensor 0\) is int8; "
                                                       r"arenaplan's FLOOR_DIV takes float32, int32"),
        (floor_model("FLOOR_MOD", "float32", (3,), (3,), b_dtype="int32"),
         r"op 0 \(FLOOR_MOD\): input2 tensor 1 is int32, input1 float32; TFLite requires one type"),
        (floor_model("FLOOR_DIV", "float32", (3, 4), (2, 4), y_shape=(3, 4)),
         r"op 0 \(FLOOR_DIV\): shapes \(3, 4\) and \(2, 4\) do not broadcast"),
    ]
    for k, (content, pattern) in enumerate(cases):
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, f"m{k}"))
