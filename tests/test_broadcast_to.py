"""int8 BROADCAST_TO (elementwise_s8.c on ADD's broadcast walk, the input as both operands):
one-op .tflite models built with the flatbuffer schema (new leading axes, size-1 axes repeated,
the identity, a scalar-like input, int32 and int64 shapes), the direct variant on every
instruction set this host runs inside a verified plan, bit-exact with LiteRT's reference kernels
(BUILTIN_REF) and TensorFlow Lite Micro's interpreter; hypothesis over shapes; the poisoned-arena
property; shapes that do not broadcast refused naming the op, and by the C kernel."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from unary_s8 import check_one_variant, inputs, load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))


def broadcast_to_model(shape, to, out=None, dtype="int32") -> bytes:
    tensors = [dict(shape=shape, dtype="int8", scale=0.02, zero_point=-9),
               dict(shape=(len(to),), dtype=dtype, data=np.array(to, dtype)),
               dict(shape=out or to, dtype="int8", scale=0.02, zero_point=-9)]
    return L.single_op_model("BROADCAST_TO", tensors, [0, 1], [2], version=2)


def check(content, tmp_path, shape, seed=0, tflm=True):
    check_one_variant(content, tmp_path, inputs(shape, seed)[:3], "direct", tflm=tflm)


#: (input shape, shape)
CASES = [
    ((1, 1, 8), (2, 4, 4, 8)),     # new leading axes and repeated ones
    ((3, 1), (3, 5)),
    ((1,), (6,)),
    ((2, 3), (2, 3)),              # the identity
    ((4, 1, 1), (2, 4, 3, 5)),
    ((1, 1, 1, 1), (1, 2, 1, 3)),
]


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(case, tmp_path):
    shape, to = CASES[case]
    check(broadcast_to_model(shape, to), tmp_path, shape, seed=case)


@needs_litert
def test_int64_shape(tmp_path):
    check(broadcast_to_model((3, 1), (2, 3, 4), dtype="int64"), tmp_path, (3, 1), tflm=False)


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    to = tuple(data.draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    shape = tuple(d if data.draw(st.booleans()) else 1 for d in to)[data.draw(st.integers(0, rank - 1)):]
    check(broadcast_to_model(shape, to), tmp_path_factory.mktemp("bt"), shape, seed=sum(to), tflm=False)


@pytest.mark.parametrize("shape, to, out, match", [
    ((3, 2), (3, 4), None, r"input shape \(3, 2\) does not broadcast to \[3, 4\]"),
    ((2, 3, 4), (3, 4), (3, 4), r"shape \[3, 4\] has fewer axes than the input's 3"),
    ((3, 1), (3, 4), (4, 3), r"output tensor 2 has shape \(4, 3\), the op computes \(3, 4\)"),
    ((1, 2), (2, 2, 2, 2, 2), None, r"output has rank 5; at most 4 is supported"),
])
def test_bad_broadcast_is_refused(shape, to, out, match, tmp_path):
    model = load(broadcast_to_model(shape, to, out), tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(BROADCAST_TO\): " + match):
        ap.plan(model)


def test_kernel_params_are_checked(tmp_path):
    (k,) = PlanContext.build(load(broadcast_to_model((3, 1), (3, 5)), tmp_path), isa="portable",
                             reference="litert").kernels
    assert k.spec == {"input_shape": [1, 1, 3, 1], "output_shape": [1, 1, 3, 5]}
    with pytest.raises(ValueError, match=r"broadcast_to: dimension 2 does not broadcast \(3 -> 4\)"):
        _core.kernel_variants(k.code, dict(k.spec, output_shape=[1, 1, 4, 5]))
