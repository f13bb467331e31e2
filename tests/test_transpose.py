"""int8 and int16 TRANSPOSE: one-op .tflite models built with the flatbuffer schema (ranks 1 to 5,
size-1 dimensions, the identity and full reversals), the copy variant on every instruction
set this host runs inside a verified plan, bit-exact with LiteRT's reference kernels
(BUILTIN_REF) and, for int16 (the 16x8 row), the tflite-micro interpreter; hypothesis over shapes and permutations; bad perms refused naming the op and
by the C kernel."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from arenaplan.ops.lowering import TYPES_CODES
from test_strided_slice import tflm_outputs
from unary_s8 import host_isas, load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))


def transpose_model(shape, perm, out_shape=None, dtype="int8") -> bytes:
    from ai_edge_litert import schema_py_generated as S
    if out_shape is None:
        out_shape = tuple(shape[a] for a in perm)
    zp = -5 if dtype == "int8" else 0
    tensors = [dict(shape=shape, dtype=dtype, scale=0.02, zero_point=zp),
               dict(shape=(len(perm),), dtype="int32", data=np.array(perm, np.int32)),
               dict(shape=out_shape, dtype=dtype, scale=0.02, zero_point=zp)]
    return L.single_op_model("TRANSPOSE", tensors, [0, 1], [2], "TransposeOptions", S.TransposeOptionsT(),
                             version=2)


def check(content, tmp_path, shape, seed=0, dtype="int8"):
    model = load(content, tmp_path)
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    xs = [rng.integers(info.min, info.max + 1, size=shape).astype(dtype) for _ in range(2)]
    xs.append(np.resize(np.linspace(info.min, info.max, 257).round().astype(dtype), shape))
    wants = L.run_sequence(content, [[x] for x in xs])[0]
    if dtype == "int16" and len(shape) <= 5:
        for w, m in zip(wants, tflm_outputs(content, xs)):
            np.testing.assert_array_equal(m[0].reshape(w[0].shape), w[0], err_msg="LiteRT and TFLite Micro")
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference="litert")
        (kernel,) = ctx.kernels
        assert kernel.types == TYPES_CODES["s16x8" if dtype == "int16" else "s8"]
        assert [v.name for v in kernel.variants] == ["copy"] and not kernel.variants[0].in_place
        p = ctx.make([kernel.variants[0]], "size")
        assert p.verify() and p.isa == isa
        it = ap.Interpreter(p)
        for x, want in zip(xs, wants):
            got = it.run(x)
            assert got.dtype == np.dtype(dtype) and got.shape == want[0].shape
            np.testing.assert_array_equal(got, want[0], err_msg=isa)


CASES = [
    ((1, 8, 6, 3), (0, 3, 1, 2)),      # NHWC -> NCHW
    ((1, 3, 8, 6), (0, 2, 3, 1)),      # NCHW -> NHWC
    ((5, 7), (1, 0)),
    ((9,), (0,)),
    ((2, 3, 4), (0, 1, 2)),            # the identity
    ((2, 3, 4, 5, 6), (4, 3, 2, 1, 0)),
    ((1, 1, 7, 1), (3, 2, 1, 0)),      # size-1 dims
]


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
def test_transpose_matches_litert(case, tmp_path):
    shape, perm = CASES[case]
    check(transpose_model(shape, perm), tmp_path, shape, seed=case)


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
def test_transpose_16x8_matches_litert_and_tflm(case, tmp_path):
    shape, perm = CASES[case]
    check(transpose_model(shape, perm, dtype="int16"), tmp_path, shape, seed=case, dtype="int16")


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_transpose_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 5))
    shape = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    perm = tuple(data.draw(st.permutations(range(rank))))
    dtype = data.draw(st.sampled_from(["int8", "int16"]))
    check(transpose_model(shape, perm, dtype=dtype), tmp_path_factory.mktemp("tr"), shape, seed=sum(shape),
          dtype=dtype)


@pytest.mark.parametrize("perm, out, match", [
    ((0, 0), (4, 4), r"perm \[0, 0\] is not a permutation of the 2 axes"),
    ((-1, 0), (6, 4), r"perm \[-1, 0\] is not a permutation"),
    ((1, 0), (4, 6), r"output tensor 2 has shape \(4, 6\), the op computes \(6, 4\)"),
])
def test_bad_transpose_is_refused(perm, out, match, tmp_path):
    model = load(transpose_model((4, 6), perm, out), tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(TRANSPOSE\): " + match):
        ap.plan(model)


def test_transpose_params_are_checked(tmp_path):
    (kernel,) = PlanContext.build(load(transpose_model((4, 6), (1, 0)), tmp_path), isa="portable",
                                  reference="litert").kernels
    assert kernel.spec == {"input_shape": [1, 1, 1, 4, 6], "perm": [0, 1, 2, 4, 3]}
    with pytest.raises(ValueError, match=r"transpose: perm\[4\] = 4; perm must be a permutation"):
        _core.kernel_variants(kernel.code, dict(kernel.spec, perm=[0, 1, 2, 4, 4]))
    with pytest.raises(ValueError, match=r"transpose: perm\[0\] = 5"):
        _core.kernel_variants(kernel.code, dict(kernel.spec, perm=[5, 1, 2, 4, 3]))
    with pytest.raises(ValueError, match="transpose: axis 3 has size 0"):
        _core.kernel_variants(kernel.code, dict(kernel.spec, input_shape=[1, 1, 1, 0, 6]))
