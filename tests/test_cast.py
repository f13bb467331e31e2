"""CAST between int8, int16, int32, float32 and bool (cast_fill.c; int8, float32, int32 and bool
inputs here, int16 ones in tests/test_int16_elementwise.py): one-op .tflite models built with the flatbuffer schema, every pair TensorFlow Lite Micro
has, on seeded values with each type's ends (integers wrapping to a narrower type, float32
truncated toward zero and saturating at the ends and for infinities, -0.0, subnormals, integers
that float32 rounds), bit-exact with LiteRT's reference kernels (BUILTIN_REF) and TensorFlow Lite
Micro's interpreter; a float32 NaN to an integer type by the rounding rule (LiteRT: the type's
maximum; TFLite Micro: 0); hypothesis over shapes and pairs; the poisoned arena; refusals naming
the op; the kernel's checks."""
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
INPUTS = ["int8", "float32", "int32", "bool"]
OUTPUTS = ["int8", "int16", "int32", "float32", "bool"]
PAIRS = [(a, b) for a in INPUTS for b in OUTPUTS if a != b]


def cast_model(a, b, shape) -> bytes:
    return L.single_op_model("CAST", [dict(shape=shape, dtype=a), dict(shape=shape, dtype=b)], [0], [1], None, None,
                             version=1)


EDGES = {
    "int8": [-128, 127, 0, -1, 1],
    "int32": [-2 ** 31, 2 ** 31 - 1, -70000, 40000, 16777217, -16777217, 128, -129, 32768, 0, -1],
    "float32": [300.0, -300.0, 1e10, -1e10, np.inf, -np.inf, -0.0, 127.9, -128.9, 2.5, -2.5, 0.99, -0.99, 1e-40,
                40000.5, -32768.7, 2147483520.0, -2147483648.0, 3e9],
}


def values(dtype, shape, rng, nan=False):
    n = int(np.prod(shape))
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype == "float32":
        v = (rng.standard_normal(n) * 200).astype(np.float32)
        edges = np.array(EDGES["float32"] + ([np.nan] if nan else []), np.float32)
    else:
        info = np.iinfo(dtype)
        v = rng.integers(info.min, info.max + 1, size=n, dtype=np.int64).astype(dtype)
        edges = np.array(EDGES[dtype], dtype)
    k = min(n, edges.size)
    v[:k] = edges[rng.permutation(edges.size)[:k]]
    return v.reshape(shape)


def feeds(dtype, shape, seed, nan=False):
    rng = np.random.default_rng(seed)
    return [[values(dtype, shape, rng, nan)] for _ in range(4)]


@needs_litert
@pytest.mark.parametrize("a,b", PAIRS)
@pytest.mark.parametrize("shape", [(4, 5), (1,), (2, 3, 1, 6, 2)])
def test_matches_litert_and_tflm(a, b, shape, tmp_path):
    check(cast_model(a, b, shape), tmp_path, "CAST", feeds(a, shape, sum(shape)))


@needs_litert
@pytest.mark.parametrize("b", ["int8", "int16", "int32"])
def test_float_nan_follows_the_rounding_rule(b, tmp_path):
    """NaN to an integer type: LiteRT's saturating cast gives the maximum (reference litert),
    TensorFlow Lite Micro's 0 (reference tflm); every other value alike under both."""
    content = cast_model("float32", b, (6, 8))
    xs = feeds("float32", (6, 8), 3, nan=True)
    check(content, tmp_path, "CAST", xs, tflm=False, reference="litert")
    sub = tmp_path / "tflm"
    sub.mkdir()
    check(content, sub, "CAST", xs, tflm=True, reference="tflm", litert=False)
    for reference, want in (("litert", np.iinfo(b).max), ("tflm", 0)):
        it = ap.Interpreter(ap.plan(load(content, tmp_path, reference), reference=reference))
        got = it.run(np.full((6, 8), np.nan, np.float32))
        assert (got == want).all()


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 5))
    shape = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    a, b = data.draw(st.sampled_from(PAIRS))
    check(cast_model(a, b, shape), tmp_path_factory.mktemp("cast"), "CAST", feeds(a, shape, sum(shape)),
          tflm=False)


def test_refusals_name_the_op(tmp_path):
    cases = [
        (cast_model("int64", "int8", (3,)), r"op 0 \(CAST\): input 0 \(tensor 0\) is int64; arenaplan's CAST takes "
                                            r"int8, float32, int32, bool, int16"),
        (cast_model("int8", "int64", (3,)), r"op 0 \(CAST\): output tensor 1 is int64; arenaplan's CAST writes "
                                            r"int8, int16, int32, float32, bool"),
        (L.single_op_model("CAST", [dict(shape=(3,), dtype="int8"), dict(shape=(1, 3), dtype="int32")], [0], [1],
                           None, None, version=1),
         r"op 0 \(CAST\): output tensor 1 has shape \(1, 3\), the input \(3,\)"),
    ]
    for k, (content, pattern) in enumerate(cases):
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, f"m{k}"))


def test_kernel_checks_its_params():
    code = {r["name"]: r["code"] for r in _core.ops()}["CAST"]
    spec = {"count": 5, "output_type": 4, "nan_saturates": 1}
    assert _core.kernel_variants(code, spec)
    with pytest.raises(ValueError, match=r"cast: output_type 3 is not int8, int16, int32, float32 or bool"):
        _core.kernel_variants(code, dict(spec, output_type=3))
    with pytest.raises(ValueError, match=r"cast: nan_saturates 2 is not 0 or 1"):
        _core.kernel_variants(code, dict(spec, nan_saturates=2))
    with pytest.raises(ValueError, match=r"cast: count 0 must be >= 1"):
        _core.kernel_variants(code, dict(spec, count=0))
