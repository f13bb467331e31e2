"""int8 REDUCE_MAX and REDUCE_MIN (reduce_s8.c): one-op .tflite models built with the
flatbuffer schema (every axis set of ranks 1 to 4, negative and repeated axes, keep_dims
on and off, size-1 dimensions, the int8 extremes), the direct variant on every instruction set
this host runs inside a verified plan, bit-exact with LiteRT's reference kernels (BUILTIN_REF)
and TensorFlow Lite Micro's interpreter; hypothesis over shapes and axes; the poisoned-arena
property; out-of-range axes and an output quantised unlike the input refused naming the op,
and bad params by the C kernel."""
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
OPS = ["REDUCE_MAX", "REDUCE_MIN"]


def out_shape(shape, axes, keep):
    r = {a % len(shape) for a in axes}
    return tuple(1 if d in r else s for d, s in enumerate(shape)) if keep else \
        tuple(s for d, s in enumerate(shape) if d not in r)


def reduce_model(op, shape, axes, keep=False, out=None, out_q=(0.05, 3)) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = S.ReducerOptionsT()
    o.keepDims = keep
    tensors = [dict(shape=shape, dtype="int8", scale=0.05, zero_point=3),
               dict(shape=(len(axes),), dtype="int32", data=np.array(axes, np.int32)),
               dict(shape=out if out is not None else out_shape(shape, axes, keep), dtype="int8", scale=out_q[0],
                    zero_point=out_q[1])]
    return L.single_op_model(op, tensors, [0, 1], [2], "ReducerOptions", o, version=2)


def check(content, tmp_path, shape, seed=0, tflm=True):
    check_one_variant(content, tmp_path, inputs(shape, seed), "direct", tflm=tflm)


#: (shape, axes, keep_dims)
CASES = [
    ((1, 4, 4, 8), [1, 2], True),          # global pooling as converted
    ((1, 4, 4, 8), [1, 2], False),
    ((2, 3, 4), [-1], False),              # a negative axis
    ((2, 3, 4), [0, 2, -1], True),         # repeated (2 and -1)
    ((5,), [0], False),                    # rank 1 to a scalar
    ((2, 3, 4, 5), [0, 1, 2, 3], True),    # everything
    ((3, 1, 6), [1], False),               # a size-1 axis
]


@needs_litert
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(op, case, tmp_path):
    shape, axes, keep = CASES[case]
    check(reduce_model(op, shape, axes, keep), tmp_path, shape, seed=case)


@needs_litert
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    shape = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    axes = data.draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank + 1))
    op = data.draw(st.sampled_from(OPS))
    check(reduce_model(op, shape, axes, data.draw(st.booleans())), tmp_path_factory.mktemp("rd"), shape,
          seed=sum(shape), tflm=False)


@pytest.mark.parametrize("op", OPS)
def test_bad_reduce_is_refused(op, tmp_path):
    model = load(reduce_model(op, (2, 3), [2], out=(2, 3)), tmp_path)
    with pytest.raises(UnsupportedModel, match=rf"op 0 \({op}\): axis 2 is out of range for an input of rank 2"):
        ap.plan(model)
    model = load(reduce_model(op, (2, 3), [1], out_q=(0.1, 3)), tmp_path, "q")
    with pytest.raises(UnsupportedModel, match=rf"op 0 \({op}\): output tensor 2 has scale 0.1 and zero point 3, the "
                                               rf"input 0.05 and 3; TFLite's int8 {op} requires them equal"):
        ap.plan(model)
    model = load(reduce_model(op, (2, 3), [1], out=(3,)), tmp_path, "shape")
    with pytest.raises(UnsupportedModel, match=rf"op 0 \({op}\): output tensor 2 has shape \(3,\), the op computes "
                                               r"\(2,\)"):
        ap.plan(model)
    (k,) = PlanContext.build(load(reduce_model(op, (2, 3), [1]), tmp_path, "ok"), isa="portable",
                             reference="litert").kernels
    assert k.spec == {"input_shape": [1, 1, 2, 3], "reduce": [0, 0, 0, 1]}
    with pytest.raises(ValueError, match=rf"{op.lower()}: reduce\[3\] = 2 must be 0 or 1"):
        _core.kernel_variants(k.code, dict(k.spec, reduce=[0, 0, 0, 2]))
