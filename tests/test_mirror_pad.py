"""int8 MIRROR_PAD (mirror_pad_s8.c): one-op .tflite models built with the flatbuffer schema
(REFLECT and SYMMETRIC, the largest paddings each allows, none, ranks 1 to 4, size-1 axes, int32
and int64 paddings), the
copy variant on every instruction set this host runs inside a verified plan, bit-exact with
LiteRT's reference kernels (BUILTIN_REF) and TensorFlow Lite Micro's interpreter; hypothesis
over shapes, paddings and modes; the poisoned-arena property; paddings TFLite would read
outside the input for, and an output quantised unlike the input, refused naming the op; the
C kernel's own checks."""
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
REFLECT, SYMMETRIC = 0, 1


def mirror_pad_model(shape, pads, mode, out=None, dtype="int32", out_q=(0.03, 9)) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = S.MirrorPadOptionsT()
    o.mode = mode
    tensors = [dict(shape=shape, dtype="int8", scale=0.03, zero_point=9),
               dict(shape=(len(pads), 2), dtype=dtype, data=np.array(pads, dtype).reshape(-1, 2)),
               dict(shape=out or tuple(d + a + b for d, (a, b) in zip(shape, pads)), dtype="int8",
                    scale=out_q[0], zero_point=out_q[1])]
    return L.single_op_model("MIRROR_PAD", tensors, [0, 1], [2], "MirrorPadOptions", o, version=2)


def check(content, tmp_path, shape, seed=0, tflm=True):
    check_one_variant(content, tmp_path, inputs(shape, seed)[:3], "copy", tflm=tflm)


#: (shape, paddings, mode)
CASES = [
    ((1, 4, 4, 3), [[0, 0], [1, 2], [3, 0], [0, 0]], REFLECT),
    ((1, 4, 4, 3), [[0, 0], [1, 2], [4, 0], [0, 3]], SYMMETRIC),        # SYMMETRIC's largest: the size
    ((1, 4, 4, 3), [[0, 0], [3, 3], [3, 3], [2, 2]], REFLECT),          # REFLECT's largest: the size - 1
    ((2, 3, 5), [[1, 1], [2, 0], [0, 4]], REFLECT),
    ((7,), [[6, 6]], REFLECT),                                          # rank 1
    ((7,), [[7, 7]], SYMMETRIC),
    ((3, 1, 2, 2), [[0, 0], [1, 1], [0, 0], [1, 0]], SYMMETRIC),        # a size-1 axis (SYMMETRIC only)
    ((2, 2), [[0, 0], [0, 0]], REFLECT),                                # no padding: a copy
]


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(case, tmp_path):
    shape, pads, mode = CASES[case]
    check(mirror_pad_model(shape, pads, mode), tmp_path, shape, seed=case)


@needs_litert
def test_int64_paddings(tmp_path):
    check(mirror_pad_model((3, 4), [[2, 1], [0, 3]], REFLECT, dtype="int64"), tmp_path, (3, 4), tflm=False)


@needs_litert
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    mode = data.draw(st.sampled_from([REFLECT, SYMMETRIC]))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    offset = 1 if mode == REFLECT else 0
    pads = [[data.draw(st.integers(0, d - offset)) for _ in range(2)] for d in shape]
    check(mirror_pad_model(shape, pads, mode), tmp_path_factory.mktemp("mp"), shape, seed=sum(shape), tflm=False)


@pytest.mark.parametrize("shape, pads, mode, match", [
    ((1, 4, 4, 3), [[0, 0], [4, 0], [0, 0], [0, 0]], REFLECT,
     r"paddings \[4, 0\] on axis 1 of size 4: REFLECT pads by 0 to 3"),
    ((1, 4, 4, 3), [[0, 0], [0, 0], [0, 5], [0, 0]], SYMMETRIC,
     r"paddings \[0, 5\] on axis 2 of size 4: SYMMETRIC pads by 0 to 4"),
    ((3, 1), [[0, 0], [1, 0]], REFLECT, r"paddings \[1, 0\] on axis 1 of size 1: REFLECT pads by 0 to 0"),
    ((3, 4), [[0, -1], [0, 0]], REFLECT, r"paddings \[0, -1\] on axis 0"),
    ((2, 2, 2, 2, 2), [[0, 0]] * 5, REFLECT, r"input has rank 5; at most 4 is supported"),
])
def test_bad_paddings_are_refused(shape, pads, mode, match, tmp_path):
    out = tuple(max(1, d + a + b) for d, (a, b) in zip(shape, pads))
    model = load(mirror_pad_model(shape, pads, mode, out=out), tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(MIRROR_PAD\): " + match):
        ap.plan(model)


def test_another_output_quantisation_is_refused(tmp_path):
    model = load(mirror_pad_model((3, 4), [[2, 1], [0, 3]], REFLECT, out_q=(0.5, -100)), tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(MIRROR_PAD\): output tensor 2 has scale 0.5 and zero point "
                                               r"-100, the input 0.03 and 9; TFLite's int8 MIRROR_PAD requires them"):
        ap.plan(model)


def test_kernel_params_are_checked(tmp_path):
    model = load(mirror_pad_model((1, 4, 4, 3), [[0, 0], [1, 2], [3, 0], [0, 0]], REFLECT), tmp_path)
    (k,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    assert k.spec == {"input_shape": [1, 4, 4, 3], "pad_before": [0, 1, 3, 0], "pad_after": [0, 2, 0, 0],
                      "offset": 1}
    with pytest.raises(ValueError, match=r"mirror_pad: paddings \(4, 0\) on axis 2 of size 4 must lie in \[0, 3\]"):
        _core.kernel_variants(k.code, dict(k.spec, pad_before=[0, 1, 4, 0]))
    with pytest.raises(ValueError, match=r"mirror_pad: offset 2 must be 0 \(SYMMETRIC\) or 1 \(REFLECT\)"):
        _core.kernel_variants(k.code, dict(k.spec, offset=2))
