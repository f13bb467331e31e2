"""int8 SUB: one-op .tflite models built with the flatbuffer schema (4-D broadcasting, fused
RELU / RELU6 / RELU_N1_TO_1, zero points at the ends, saturating outputs), the direct variant on
every instruction set this host runs inside a verified plan, bit-exact with LiteRT's reference
kernels (BUILTIN_REF); hypothesis over shapes and quantisation; in place over an input of the
output's shape; bad params refused by the C kernel."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from arenaplan.ops.lowering import TYPES_CODES
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from unary_s8 import host_isas, load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))


def sub_model(a_shape, b_shape, y_shape, scales, zps, act=0) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = S.SubOptionsT()
    o.fusedActivationFunction = act
    tensors = [dict(shape=a_shape, dtype="int8", scale=scales[0], zero_point=zps[0]),
               dict(shape=b_shape, dtype="int8", scale=scales[1], zero_point=zps[1]),
               dict(shape=y_shape, dtype="int8", scale=scales[2], zero_point=zps[2])]
    return L.single_op_model("SUB", tensors, [0, 1], [2], "SubOptions", o, version=2)


def check(content, tmp_path, a_shape, b_shape, seed):
    model = load(content, tmp_path)
    rng = np.random.default_rng(seed)
    feeds = [[rng.integers(-128, 128, size=a_shape, dtype=np.int8),
              rng.integers(-128, 128, size=b_shape, dtype=np.int8)] for _ in range(2)]
    feeds.append([np.full(a_shape, 127, np.int8), np.full(b_shape, -128, np.int8)])   # saturates up
    feeds.append([np.full(a_shape, -128, np.int8), np.full(b_shape, 127, np.int8)])   # and down
    wants = L.run_sequence(content, feeds)[0]
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference="litert")
        (kernel,) = ctx.kernels
        assert kernel.type == "SUB" and kernel.types == TYPES_CODES["s8"]
        assert [v.name for v in kernel.variants] == ["direct"]
        p = ctx.make([kernel.variants[0]], "size")
        assert p.verify() and p.isa == isa
        it = ap.Interpreter(p)
        for xs, want in zip(feeds, wants):
            got = it.run(xs)
            assert got.dtype == np.int8 and got.shape == want[0].shape
            np.testing.assert_array_equal(got, want[0], err_msg=isa)
    return model


#: (a shape, b shape, y shape, scales, zero points, fused activation)
CASES = [
    ((1, 4, 5, 3), (1, 4, 5, 3), (1, 4, 5, 3), (0.01, 0.02, 0.025), (0, 0, 0), 0),
    ((3, 1, 8), (1, 5, 1), (3, 5, 8), (0.02, 0.013, 0.007), (-128, 127, 5), 0),   # broadcast both ways
    ((2, 7), (7,), (2, 7), (0.05, 0.05, 0.05), (10, -10, 0), 1),                   # RELU
    ((17,), (1,), (17,), (0.1, 0.003, 0.04), (127, -128, -128), 3),                # RELU6, a scalar
    ((1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1), (0.5, 0.25, 1.0), (3, -4, 2), 2),    # RELU_N1_TO_1
    ((2, 3, 4, 5), (2, 1, 4, 1), (2, 3, 4, 5), (0.004, 0.09, 0.02), (-1, 2, 127), 0),
]


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
def test_sub_matches_litert(case, tmp_path):
    a, b, y, scales, zps, act = CASES[case]
    check(sub_model(a, b, y, scales, zps, act), tmp_path, a, b, seed=case)


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_sub_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    full = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    a = tuple(d if data.draw(st.booleans()) else 1 for d in full)
    b = tuple(d if data.draw(st.booleans()) else 1 for d in full)
    y = tuple(max(p, q) for p, q in zip(a, b))
    scales = tuple(data.draw(st.floats(1e-3, 0.5)) for _ in range(3))
    zps = tuple(data.draw(st.integers(-128, 127)) for _ in range(3))
    act = data.draw(st.sampled_from([0, 1, 2, 3]))
    check(sub_model(a, b, y, scales, zps, act), tmp_path_factory.mktemp("sub"), a, b, seed=sum(y))


def test_sub_in_place_and_params(tmp_path):
    model = load(sub_model((2, 7), (7,), (2, 7), (0.05, 0.03, 0.05), (1, 2, 3)), tmp_path)
    (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    assert kernel.variants[0].in_place           # the output may be the first input
    model = load(sub_model((1, 7), (2, 7), (2, 7), (0.05, 0.03, 0.05), (1, 2, 3)), tmp_path, "b")
    (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    assert kernel.variants[0].in_place           # or the second, of the output's shape
    spec = kernel.spec
    with pytest.raises(ValueError, match=r"sub: offsets \(200, -2, 3\) out of range"):
        _core.kernel_variants(kernel.code, dict(spec, input1_offset=200))
    with pytest.raises(ValueError, match="sub: multipliers must be >= 0"):
        _core.kernel_variants(kernel.code, dict(spec, input2_multiplier=-5))


def test_bad_sub_is_refused(tmp_path):
    model = load(sub_model((2, 3), (3, 3), (3, 3), (0.1, 0.1, 0.1), (0, 0, 0)), tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(SUB\): shapes \(2, 3\) and \(3, 3\) do not broadcast"):
        ap.plan(model)
