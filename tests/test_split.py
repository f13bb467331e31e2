"""int8 and int16 SPLIT and SPLIT_V: one-op .tflite models built with the flatbuffer schema (negative
axes, size-1 dimensions, ranks 1 to 5, one piece, size_splits with a -1, outputs quantised
unlike the input), every output on every instruction set this host runs inside a verified
plan, bit-exact with LiteRT's reference kernels (BUILTIN_REF) and, for int16 (the 16x8
STRIDED_SLICE row), with the tflite-micro interpreter too; hypothesis over shapes, axes
and splits. The importer holds a split of N outputs as N ops of one output each (the
STRIDED_SLICE copy of its piece), the input live until the last; bad splits refused naming
the op."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import UnsupportedModel
from arenaplan.model.model import Model, Operator, Quantization, Tensor, one_output_ops
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from arenaplan.ops.lowering import TYPES_CODES
from test_strided_slice import tflm_outputs
from unary_s8 import host_isas, load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))


def _out_shapes(shape, axis, sizes):
    a = axis % len(shape)
    return [tuple(s if k != a else n for k, s in enumerate(shape)) for n in sizes]


def split_model(shape, axis, num_splits, out_shapes=None, out_q=None, scale=0.05, zp=-3, dtype="int8") -> bytes:
    """SPLIT: inputs (axis, input), num_splits outputs."""
    from ai_edge_litert import schema_py_generated as S
    o = S.SplitOptionsT()
    o.numSplits = num_splits
    if out_shapes is None:
        dim = shape[axis % len(shape)]
        out_shapes = _out_shapes(shape, axis, [dim // num_splits] * num_splits)
    out_q = out_q or [(scale, zp)] * len(out_shapes)
    tensors = [dict(shape=(), dtype="int32", data=np.array(axis, np.int32)),
               dict(shape=shape, dtype=dtype, scale=scale, zero_point=zp)]
    tensors += [dict(shape=s, dtype=dtype, scale=q[0], zero_point=q[1]) for s, q in zip(out_shapes, out_q)]
    return L.single_op_model("SPLIT", tensors, [0, 1], list(range(2, len(tensors))), "SplitOptions", o,
                             version=2)


def split_v_model(shape, axis, sizes, num_splits=None, out_shapes=None, size_dtype="int32", dtype="int8") -> bytes:
    """SPLIT_V: inputs (input, size_splits, axis), len(sizes) outputs."""
    from ai_edge_litert import schema_py_generated as S
    o = S.SplitVOptionsT()
    o.numSplits = len(sizes) if num_splits is None else num_splits
    if out_shapes is None:
        dim = shape[axis % len(shape)]
        real = list(sizes)
        if -1 in real:
            real[real.index(-1)] = dim - sum(v for v in real if v != -1)
        out_shapes = _out_shapes(shape, axis, real)
    zp = 11 if dtype == "int8" else 0
    tensors = [dict(shape=shape, dtype=dtype, scale=0.02, zero_point=zp),
               dict(shape=(len(sizes),), dtype=size_dtype, data=np.array(sizes, size_dtype)),
               dict(shape=(1,), dtype="int32", data=np.array([axis], np.int32))]
    tensors += [dict(shape=s, dtype=dtype, scale=0.02, zero_point=zp) for s in out_shapes]
    return L.single_op_model("SPLIT_V", tensors, [0, 1, 2], list(range(3, len(tensors))), "SplitVOptions", o,
                             version=2)


def check(content: bytes, tmp_path, shape, parts: int, seed: int = 0, op: str = "SPLIT",
          dtype: str = "int8") -> ap.Model:
    """Every output on every host ISA equals LiteRT's (and, for int16, TFLite Micro's); the model
    holds one copy op per output, each reading the split's input, which stays live until the
    last."""
    model = load(content, tmp_path)
    assert [o.type for o in model.operators] == [op] * parts
    assert [o.options["output_part"] for o in model.operators] == list(range(parts))
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    xs = [rng.integers(info.min, info.max + 1, size=shape).astype(dtype) for _ in range(2)]
    xs += [np.resize(np.linspace(info.min, info.max, 257).round().astype(dtype), shape),
           np.full(shape, info.min, dtype)]
    wants = L.run_sequence(content, [[x] for x in xs])[0]
    if dtype == "int16" and len(shape) <= 4:   # TFLite Micro's SPLIT and SPLIT_V
        for w, m in zip(wants, tflm_outputs(content, xs, parts)):
            for a, b in zip(w, m):
                np.testing.assert_array_equal(b.reshape(a.shape), a, err_msg="LiteRT and TFLite Micro")
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference="litert")
        assert len(ctx.kernels) == parts
        for k in ctx.kernels:
            assert k.types == TYPES_CODES["s16x8" if dtype == "int16" else "s8"]
            assert [v.name for v in k.variants] == ["copy"]
            assert not k.variants[0].in_place and k.variants[0].scratch == ()
        p = ctx.make([k.variants[0] for k in ctx.kernels], "size")
        assert p.verify() and p.isa == isa
        (src,) = [b for b in p.buffers if model.inputs[0] in b.tensors]
        assert (src.first, src.last) == (0, parts - 1)
        it = ap.Interpreter(p)
        for x, want in zip(xs, wants):
            got = it.run(x)
            got = got if isinstance(got, list) else [got]
            assert len(got) == len(want) == parts
            for g, w in zip(got, want):
                assert g.dtype == np.dtype(dtype) and g.shape == w.shape
                np.testing.assert_array_equal(g, w, err_msg=f"{op} on {isa}")
    return model


#: (shape, axis, num_splits)
SPLIT_CASES = [
    ((1, 4, 4, 6), 3, 2),
    ((1, 4, 4, 6), -1, 3),          # a negative axis
    ((2, 6), 0, 2),
    ((2, 6), -2, 1),                # one piece: a copy
    ((12,), 0, 4),                  # rank 1
    ((3, 1, 5), 1, 1),              # a size-1 axis
    ((2, 3, 4, 5, 6), 2, 4),        # rank 5
    ((2, 3, 4, 5, 6), -5, 2),
    ((1, 1, 1, 8), 3, 8),           # pieces of one element
]


@needs_litert
@pytest.mark.parametrize("case", range(len(SPLIT_CASES)))
def test_split_matches_litert(case, tmp_path):
    shape, axis, n = SPLIT_CASES[case]
    check(split_model(shape, axis, n), tmp_path, shape, n, seed=case)


@needs_litert
@pytest.mark.parametrize("case", [0, 1, 2, 4, 6, 8])
def test_split_16x8_matches_litert_and_tflm(case, tmp_path):
    shape, axis, n = SPLIT_CASES[case]
    check(split_model(shape, axis, n, scale=1e-3, zp=0, dtype="int16"), tmp_path, shape, n, seed=case,
          dtype="int16")


@needs_litert
@pytest.mark.parametrize("case", [0, 1, 3, 5])
def test_split_v_16x8_matches_litert_and_tflm(case, tmp_path):
    shape, axis, sizes = SPLIT_V_CASES[case]
    check(split_v_model(shape, axis, sizes, dtype="int16"), tmp_path, shape, len(sizes), seed=case,
          op="SPLIT_V", dtype="int16")


@needs_litert
def test_split_copies_bytes_whatever_the_output_quantisation(tmp_path):
    # TFLite's SPLIT copies; it does not requantise an output quantised unlike the input
    shape = (2, 8)
    check(split_model(shape, 1, 2, out_q=[(0.5, 100), (0.001, -128)]), tmp_path, shape, 2)


#: (shape, axis, size_splits)
SPLIT_V_CASES = [
    ((1, 10, 3), 1, [3, 7]),
    ((1, 10, 3), -2, [2, -1, 5]),   # a -1, a negative axis
    ((4, 6), 1, [-1]),              # one piece of the whole axis
    ((4, 6), 0, [1, 1, 2]),
    ((9,), 0, [1, 2, 3, 3]),
    ((2, 3, 4, 5, 6), 4, [5, -1]),
    ((2, 3, 4, 5, 6), -4, [1, 1, 1]),
]


@needs_litert
@pytest.mark.parametrize("case", range(len(SPLIT_V_CASES)))
def test_split_v_matches_litert(case, tmp_path):
    shape, axis, sizes = SPLIT_V_CASES[case]
    check(split_v_model(shape, axis, sizes), tmp_path, shape, len(sizes), seed=case, op="SPLIT_V")


@needs_litert
def test_split_v_int64_size_splits(tmp_path):
    check(split_v_model((3, 7), 1, [4, -1], size_dtype="int64"), tmp_path, (3, 7), 2, op="SPLIT_V")


@st.composite
def _splits(draw):
    rank = draw(st.integers(1, 5))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    axis = draw(st.integers(-rank, rank - 1))
    dim = shape[axis % rank]
    cuts = sorted(draw(st.sets(st.integers(1, dim - 1), max_size=3))) if dim > 1 else []
    sizes = [b - a for a, b in zip([0] + cuts, cuts + [dim])]
    if draw(st.booleans()):
        sizes[draw(st.integers(0, len(sizes) - 1))] = -1
    return shape, axis, sizes


@needs_litert
@settings(max_examples=25, deadline=None)
@given(case=_splits(), even=st.booleans(), dtype=st.sampled_from(["int8", "int16"]))
def test_split_hypothesis(case, even, dtype, tmp_path_factory):
    shape, axis, sizes = case
    tmp = tmp_path_factory.mktemp("split")
    if even:
        dim = shape[axis % len(shape)]
        n = max(d for d in range(1, 4) if dim % d == 0)
        check(split_model(shape, axis, n, zp=-3 if dtype == "int8" else 0, dtype=dtype), tmp, shape, n,
              seed=len(shape), dtype=dtype)
    else:
        check(split_v_model(shape, axis, sizes, dtype=dtype), tmp, shape, len(sizes), seed=len(shape),
              op="SPLIT_V", dtype=dtype)


def test_split_inside_a_graph_renumbers_the_ops():
    """A hand-built model: a SPLIT of three outputs then a RELU of the second; the Model holds
    four ops, the RELU's index counts the copies, and the outputs are NumPy's split."""
    q = Quantization((0.1,), (0,))
    tensors = [Tensor(0, "axis", (), "int32", data=np.array(1, np.int32)),
               Tensor(1, "x", (2, 6), "int8", q)] + \
        [Tensor(2 + k, f"y{k}", (2, 2), "int8", q) for k in range(3)] + [Tensor(5, "r", (2, 2), "int8", q)]
    ops = one_output_ops([Operator(0, "SPLIT", (0, 1), (2, 3, 4), {"num_splits": 3}),
                          Operator(1, "RELU", (3,), (5,))])
    assert [(o.index, o.type, o.outputs) for o in ops] == [(0, "SPLIT", (2,)), (1, "SPLIT", (3,)),
                                                           (2, "SPLIT", (4,)), (3, "RELU", (5,))]
    assert [o.options.get("source_op") for o in ops] == [0, 0, 0, None]
    model = Model("split_relu", tensors, ops, (1,), (2, 4, 5))
    p = ap.plan(model, mode="size")
    assert p.verify()
    x = np.arange(-60, 60, 10, dtype=np.int8).reshape(2, 6)
    a, c, r = ap.Interpreter(p).run(x)
    np.testing.assert_array_equal(a, x[:, 0:2])
    np.testing.assert_array_equal(c, x[:, 4:6])
    np.testing.assert_array_equal(r, np.maximum(x[:, 2:4], 0))


@pytest.mark.parametrize("content, message", [
    (lambda: split_model((2, 6), 1, 4, out_shapes=[(2, 1)] * 4),
     r"op 0 \(SPLIT, output 0 of 4 of the file's op 0\): num_splits 4 does not divide axis 1 of size 6"),
    (lambda: split_model((2, 6), 2, 2, out_shapes=[(2, 3)] * 2),
     r"op 0 \(SPLIT, output 0 of 2 of the file's op 0\): axis 2 is out of range for an input of rank 2 "
     r"\(it must lie in \[-2, 2\)\)"),
    (lambda: split_model((2, 6), -3, 2, out_shapes=[(2, 3)] * 2), r"axis -3 is out of range"),
    (lambda: split_model((2, 6), 1, 3, out_shapes=[(2, 3)] * 2), r"num_splits 3 differs from the op's 2 outputs"),
    (lambda: split_v_model((2, 6), 1, [-1, -1, 2], out_shapes=[(2, 2)] * 3), r"has more than one -1"),
    (lambda: split_v_model((2, 6), 1, [2, 3], out_shapes=[(2, 2), (2, 3)]),
     r"op 0 \(SPLIT_V, output 0 of 2 of the file's op 0\): size_splits \[2, 3\] sum to 5, not to axis 1's "
     r"size 6"),
    (lambda: split_v_model((2, 6), 1, [4, 3, -1], out_shapes=[(2, 4), (2, 3), (2, 1)]),
     r"size_splits \[4, 3, -1\] take 7 of axis 1's 6"),
    (lambda: split_v_model((2, 6), 1, [6, -1], out_shapes=[(2, 6), (2, 1)]),
     r"output 1 takes 0 of axis 1; empty outputs are not supported"),
    (lambda: split_v_model((2, 6), 1, [2, -2, 6], out_shapes=[(2, 2)] * 3),
     r"a negative size other than -1"),
    (lambda: split_v_model((2, 6), 1, [3, 3], num_splits=3), r"num_splits 3 differs from the op's 2 outputs"),
    (lambda: split_model((2, 6), 1, 2, out_shapes=[(2, 3), (3, 2)]),
     r"output 1 of 2.*output tensor 3 has shape \(3, 2\), the op computes \(2, 3\)"),
])
def test_bad_split_is_refused(content, message, tmp_path):
    model = load(content(), tmp_path)
    with pytest.raises(UnsupportedModel, match=message):
        ap.plan(model)


def test_split_held_as_one_op_is_refused():
    q = Quantization((0.1,), (0,))
    tensors = [Tensor(0, "axis", (), "int32", data=np.array(0, np.int32)), Tensor(1, "x", (4,), "int8", q),
               Tensor(2, "a", (2,), "int8", q), Tensor(3, "b", (2,), "int8", q)]
    model = Model("raw", tensors, [Operator(0, "SPLIT", (0, 1), (2, 3), {"num_splits": 2})], (1,), (2, 3))
    with pytest.raises(UnsupportedModel, match=r"op 0 \(SPLIT\): 2 outputs"):
        ap.plan(model)
