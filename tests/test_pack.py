"""int8 PACK (on the CONCATENATION row: each input copied along the new axis) and UNPACK (held
as one STRIDED_SLICE copy per output, as SPLIT is): one-op .tflite models built with the
flatbuffer schema (every axis, negative axes, one input or output, size-1 dimensions, ranks 1
to 5 for UNPACK), on every instruction set this host runs inside a verified plan, bit-exact
with LiteRT's reference kernels (BUILTIN_REF); hypothesis over shapes and axes; the
poisoned-arena property; what LiteRT rejects (other quantisations, a wrong count or axis)
refused naming the op, when the plan is made."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import UnsupportedModel
from arenaplan.ops.lowering import OP_CODES
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from poisoned_arena import poisoned_run
from unary_s8 import host_isas, load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
Q = (0.03, -9)


def pack_model(shape, n, axis, out_shape=None, qs=None, values_count=None) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = S.PackOptionsT()
    o.valuesCount, o.axis = n if values_count is None else values_count, axis
    if out_shape is None:
        a = axis + len(shape) + 1 if axis < 0 else axis
        out_shape = tuple(shape[:a]) + (n,) + tuple(shape[a:])
    qs = qs or [Q] * n
    tensors = [dict(shape=shape, dtype="int8", scale=q[0], zero_point=q[1]) for q in qs]
    tensors.append(dict(shape=out_shape, dtype="int8", scale=Q[0], zero_point=Q[1]))
    return L.single_op_model("PACK", tensors, list(range(n)), [n], "PackOptions", o, version=2)


def unpack_model(shape, axis, num=None, outputs=None, out_shape=None, out_q=Q) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    a = axis % len(shape)
    o = S.UnpackOptionsT()
    o.num, o.axis = shape[a] if num is None else num, axis
    outputs = shape[a] if outputs is None else outputs
    if out_shape is None:
        out_shape = tuple(shape[:a]) + tuple(shape[a + 1:])
    tensors = [dict(shape=shape, dtype="int8", scale=Q[0], zero_point=Q[1])]
    tensors += [dict(shape=out_shape, dtype="int8", scale=out_q[0], zero_point=out_q[1]) for _ in range(outputs)]
    return L.single_op_model("UNPACK", tensors, [0], list(range(1, outputs + 1)), "UnpackOptions", o, version=2)


def feeds(shapes, seed):
    rng = np.random.default_rng(seed)
    out = [[rng.integers(-128, 128, size=s, dtype=np.int8) for s in shapes] for _ in range(2)]
    out.append([np.resize(np.arange(-128, 128, dtype=np.int8), s) for s in shapes])
    out.append([np.full(s, v, np.int8) for s, v in zip(shapes, [-128, 127] * len(shapes))])
    return out


def check(content, tmp_path, shapes, op, seed=0):
    model = load(content, tmp_path)
    xs = feeds(shapes, seed)
    wants = L.run_sequence(content, xs)[0]
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference="litert")
        row = "CONCATENATION" if op == "PACK" else "STRIDED_SLICE"
        assert all(k.code == OP_CODES[row] for k in ctx.kernels)
        p = ctx.make([k.variants[0] for k in ctx.kernels], "size")
        assert p.verify() and p.isa == isa
        it = ap.Interpreter(p)
        for x, want in zip(xs, wants):
            got = it.run(x if len(x) > 1 else x[0])
            got = got if isinstance(got, list) else [got]
            assert len(got) == len(want)
            for g, w in zip(got, want):
                assert g.dtype == np.int8 and g.shape == w.shape
                np.testing.assert_array_equal(g, w, err_msg=f"{op} on {isa}")
    poisoned_run(model, xs[0] if len(xs[0]) > 1 else xs[0][0])
    return model


#: (input shape, count, axis)
PACK_CASES = [
    ((4, 6), 3, 0),
    ((4, 6), 3, 1),
    ((4, 6), 2, 2),           # the new axis last
    ((4, 6), 2, -1),          # ... and by a negative axis
    ((4, 6), 5, -3),          # the most negative axis: first
    ((1, 3, 2), 2, 1),        # rank 3 to 4, size-1 dims
    ((7,), 1, 0),             # one input: a copy with a new axis of 1
    ((), 4, 0),               # scalars to a vector
]


@needs_litert
@pytest.mark.parametrize("case", range(len(PACK_CASES)))
def test_pack_matches_litert(case, tmp_path):
    shape, n, axis = PACK_CASES[case]
    check(pack_model(shape, n, axis), tmp_path, [shape] * n, "PACK", seed=case)


#: (input shape, axis)
UNPACK_CASES = [
    ((3, 4), 0),
    ((3, 4), 1),
    ((3, 4), -1),
    ((2, 3, 4, 5, 6), 2),     # rank 5
    ((2, 3, 4, 5, 6), -5),
    ((1, 5), 0),              # one output
    ((6,), 0),                # rank 1: scalars
    ((2, 1, 3), 1),
]


@needs_litert
@pytest.mark.parametrize("case", range(len(UNPACK_CASES)))
def test_unpack_matches_litert(case, tmp_path):
    shape, axis = UNPACK_CASES[case]
    model = check(unpack_model(shape, axis), tmp_path, [shape], "UNPACK", seed=case)
    n = shape[axis % len(shape)]
    assert [o.options["output_part"] for o in model.operators] == list(range(n))


@needs_litert
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_pack_unpack_hypothesis(data, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pk")
    if data.draw(st.booleans()):
        rank = data.draw(st.integers(0, 3))
        shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
        n = data.draw(st.integers(1, 4))
        axis = data.draw(st.integers(-(rank + 1), rank))
        check(pack_model(shape, n, axis), tmp, [shape] * n, "PACK", seed=n)
    else:
        rank = data.draw(st.integers(1, 5))
        shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
        check(unpack_model(shape, data.draw(st.integers(-rank, rank - 1))), tmp, [shape], "UNPACK", seed=rank)


@pytest.mark.parametrize("content, match", [
    (lambda: pack_model((4, 6), 2, 0, qs=[Q, (0.03, -8)]),
     r"op 0 \(PACK\): input 1 tensor 1 has scale 0.03 and zero point -8, the output 0.03 and -9; TFLite's "
     r"int8 PACK requires them equal"),
    (lambda: pack_model((4, 6), 2, 3, out_shape=(4, 6, 2)), r"op 0 \(PACK\): axis 3 is out of range for inputs "
     r"of rank 2 \(it must lie in \[-3, 2\]\)"),
    (lambda: pack_model((4, 6), 2, 0, values_count=3), r"values_count 3 differs from the op's 2 inputs"),
    (lambda: pack_model((4, 6), 2, 0, out_shape=(4, 2, 6)), r"output tensor 2 has shape \(4, 2, 6\), the op "
     r"computes \(2, 4, 6\)"),
    (lambda: pack_model((2, 3, 4, 5), 2, 0), r"output has rank 5; at most 4 is supported"),
    (lambda: unpack_model((3, 4), 0, out_q=(0.05, -9)),
     r"op 0 \(UNPACK, output 0 of 3 of the file's op 0\): output tensor 1 has scale 0.05 and zero point -9, "
     r"the input 0.03 and -9; TFLite's int8 UNPACK requires them equal"),
    (lambda: unpack_model((3, 4), 0, num=2, outputs=2), r"axis 0 has size 3, not num 2"),
    (lambda: unpack_model((3, 4), 0, num=2), r"num 2 differs from the op's 3 outputs"),
    (lambda: unpack_model((3, 4), 2, outputs=4, out_shape=(3,)), r"axis 2 is out of range for an input of "
     r"rank 2"),
])
def test_bad_pack_unpack_is_refused(content, match, tmp_path):
    model = load(content(), tmp_path)
    with pytest.raises(UnsupportedModel, match=match):
        ap.plan(model)
