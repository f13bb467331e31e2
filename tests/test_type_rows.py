"""The type audit's rows (arenaplan.ops.tflm_types): the ops that move values as they are, in
the types TensorFlow Lite Micro's kernels take them in. STRIDED_SLICE (and SLICE, SPLIT,
SPLIT_V, UNPACK on it) of int32 and bool, CONCATENATION (and PACK) of int32 and bool,
BROADCAST_TO of float32, int32 and bool: new rows on the int8 / int16 rows' byte-moving
kernels; SLICE, UNPACK and PACK of int16 and float32 and DEPTH_TO_SPACE / SPACE_TO_DEPTH of
float32 on the existing 16x8 and float32 rows; ZEROS_LIKE of int8 (TensorFlow Lite Micro's:
the value 0; LiteRT has no int8 kernel, so under "tflm" only).

One-op .tflite models (harness.tflm_support's builders), every variant on every instruction
set this host runs inside a verified plan, bit-exact with LiteRT's reference kernels
(BUILTIN_REF) and the tflite-micro interpreter on seeded inputs with the types' edge values
(int32's ends, inf, -inf, -0.0 and NaN, both bools); hypothesis over shapes; the poisoned
arena; refusals naming the op."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness import tflm_support as T
from harness import tflm_type_probe as P
from harness.reference import litert_layers as L
from poisoned_arena import poisoned_run
from unary_s8 import host_isas, load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
needs_tflm = pytest.mark.skipif(not T.HAVE_TFLM, reason="tflite-micro is not importable")

W = P._with_q   # the builders with no quantisation on int32 and bool


def values(dtype, shape, rng):
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype == "float32":
        v = (rng.standard_normal(shape) * 100).astype(np.float32)
        edges = np.array([np.inf, -np.inf, -0.0, np.nan, 3.4e38, -1e-45], np.float32)[:v.size]
        v.reshape(-1)[:edges.size] = edges
        return v
    info = np.iinfo(dtype)
    v = rng.integers(info.min, int(info.max) + 1, size=shape, dtype=np.int64).astype(dtype)
    v.reshape(-1)[:2] = [info.min, info.max][:v.size]
    return v


def _inputs(content):
    from ai_edge_litert import schema_py_generated as S
    m = S.ModelT.InitFromObj(S.Model.GetRootAsModel(content, 0))
    g = m.subgraphs[0]
    names = {v: k.lower() for k, v in vars(S.TensorType).items() if not k.startswith("_")}
    return [(tuple(g.tensors[i].shape), names[g.tensors[i].type]) for i in g.inputs]


def feeds(content, seed, n=2):
    rng = np.random.default_rng(seed)
    return [[values(dt, shape, rng) for shape, dt in _inputs(content)] for _ in range(n)]


def tflm_outputs(content, xs):
    from tflite_micro.python.tflite_micro import runtime
    micro = runtime.Interpreter.from_bytes(content, arena_size=1 << 20)
    n = len(runtime.convert_bytearray_to_object(content).subgraphs[0].outputs)
    out = []
    for x in xs:
        for i, v in enumerate(x):
            micro.set_input(v, i)
        micro.invoke()
        out.append([np.array(micro.get_output(k)) for k in range(n)])
    return out


def check(content, tmp_path, xs, litert=True, tflm=True, reference="litert"):
    """Every host ISA's every variant in a verified plan equals LiteRT (and TFLite Micro) on xs;
    the poisoned arena on the first feed."""
    model = load(content, tmp_path)
    if litert:
        wants = L.run_sequence(content, xs)[0]
        if tflm:
            for got, want in zip(tflm_outputs(content, xs), wants):
                for g, w in zip(got, want):
                    np.testing.assert_array_equal(g, w, err_msg="TFLite Micro differs from LiteRT")
    else:
        wants = tflm_outputs(content, xs)
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference=reference)
        for k in range(len(ctx.kernels[0].variants)):
            p = ctx.make([kern.variants[min(k, len(kern.variants) - 1)] for kern in ctx.kernels], "size")
            assert p.verify() and p.isa == isa
            it = ap.Interpreter(p)
            for x, want in zip(xs, wants):
                got = it.run(x if len(x) > 1 else x[0])
                got = got if isinstance(got, list) else [got]
                assert len(got) == len(want)
                for g, w in zip(got, want):
                    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
                    if g.dtype == np.float32:   # bit for bit: signed zeros, NaN payloads
                        g, w = g.view(np.uint32), w.view(np.uint32)
                    np.testing.assert_array_equal(g, w, err_msg=f"{model.operators[0].type} on {isa}")
    poisoned_run(model, xs[0] if len(xs[0]) > 1 else xs[0][0], reference=reference)
    return model


#: (name, builder) of every new (op, type) and a few shapes each
CASES = [
    *[(f"strided_slice_{t}_{k}", (lambda t=t, kw=kw: W(T.strided_slice)(t, **kw)))
      for t in ("int32", "bool")
      for k, kw in enumerate([{}, dict(shape=(7,), begin=(6,), end=(0,), strides=(-2,), out=(3,)),
                              dict(shape=(2, 1, 3, 4), begin=(1, 0, 0, 3), end=(2, 1, 3, 0),
                                   strides=(1, 1, 1, -1), out=(1, 1, 3, 3))])],
    *[(f"slice_{t}_{k}", (lambda t=t, kw=kw: W(T.slice_)(t, **kw)))
      for t in ("int16", "float32", "int32", "bool")
      for k, kw in enumerate([{}, dict(shape=(5,), begin=(4,), size=(1,)), dict(shape=(2, 3, 4), begin=(0, 0, 0),
                                                                                 size=(-1, -1, -1))])],
    *[(f"split_{t}_{k}", (lambda t=t, kw=kw: W(T.split)(dtype=t, **kw)))
      for t in ("int32",) for k, kw in enumerate([{}, dict(n=3, shape=(6, 2), axis=0), dict(n=1, shape=(3,), axis=0)])],
    *[(f"split_v_{t}", (lambda t=t: W(T.split_v)(dtype=t))) for t in ("int32",)],
    *[(f"unpack_{t}_{k}", (lambda t=t, kw=kw: W(T.unpack)(t, **kw)))
      for t in ("int16", "float32", "int32")
      for k, kw in enumerate([{}, dict(shape=(4, 2), axis=0), dict(shape=(2, 3), axis=1)])],
    *[(f"pack_{t}_{k}", (lambda t=t, kw=kw: W(T.pack)(t, **kw)))
      for t in ("int16", "float32", "int32")
      for k, kw in enumerate([{}, dict(n=2, shape=(3,), axis=0), dict(n=4, shape=(2, 1, 3), axis=3)])],
    *[(f"concatenation_{t}_{k}", (lambda t=t, kw=kw: W(T.concatenation)(dtype=t, **kw)))
      for t in ("int32", "bool")
      for k, kw in enumerate([{}, dict(n=3, shape=(2, 3, 1, 2), axis=3), dict(n=2, shape=(5,), axis=0),
                              dict(n=4, shape=(1, 2), axis=-2)])],
    *[(f"broadcast_to_{t}_{k}", (lambda t=t, kw=kw: W(T.broadcast_to)(t, **kw)))
      for t in ("float32", "int32", "bool")
      for k, kw in enumerate([{}, dict(shape=(3,), new=(2, 2, 3)), dict(shape=(2, 1, 1), new=(2, 3, 4)),
                              dict(shape=(1, 4), new=(1, 4))])],
    *[(f"{op.lower()}_float32_{k}", (lambda op=op, kw=kw: T.depth_space(op, "float32", **kw)))
      for op in ("DEPTH_TO_SPACE", "SPACE_TO_DEPTH")
      for k, kw in enumerate([dict(shape=(1, 2, 3, 8) if op == "DEPTH_TO_SPACE" else (1, 4, 6, 2)),
                              dict(shape=(2, 1, 1, 9) if op == "DEPTH_TO_SPACE" else (2, 3, 3, 1), block=3)])],
]


#: the float32 rows on ADD's broadcasting kernel, EXP's one-element kernel and MEAN's walk
CASES_F32 = [
    *[(f"{op.lower()}_{k}", (lambda op=op, kw=kw: T.binary(op, "float32", **kw)))
      for op in ("MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE")
      for k, kw in enumerate([{}, dict(a=(1, 4, 5, 3), b=(1, 1, 1, 3)), dict(a=(3, 1, 8), b=(1, 5, 1)),
                              dict(a=(1, 1), b=(2, 7)), dict(a=(2, 3, 4, 5), b=(2, 1, 4, 1))])],
    *[(f"prelu_{k}", (lambda kw=kw: T.prelu("float32", **kw)))
      for k, kw in enumerate([{}, dict(shape=(2, 3, 4), alpha_shape=(4,)), dict(shape=(1, 2, 2, 5), alpha_shape=(1, 1, 1, 5)),
                              dict(shape=(6,), alpha_shape=(6,))])],
    *[(f"abs_{k}", (lambda kw=kw: T.math_unary("ABS", **kw))) for k, kw in enumerate([{}, dict(shape=(7,))])],
    *[(f"{op.lower()}_{k}", (lambda op=op, kw=kw: T.mean(dtype="float32", op=op, **kw)))
      for op in ("SUM", "REDUCE_MAX", "REDUCE_MIN")
      for k, kw in enumerate([{}, dict(keep=False), dict(shape=(2, 3, 7), axes=(2,)), dict(shape=(3, 4), axes=(0, 1)),
                              dict(shape=(2, 5, 1, 3), axes=(0, 3), keep=False), dict(shape=(6,), axes=(0,))])],
]


#: the int32 rows: the int32 ADD's binary kernel, the int16 PAD's walk
CASES_S32 = [
    *[(f"{op.lower()}_s32_{k}", (lambda op=op, kw=kw: T.binary(op, "int32", **kw)))
      for op in ("MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE")
      for k, kw in enumerate([{}, dict(a=(1, 4, 5, 3), b=(1, 1, 1, 3)), dict(a=(3, 1, 8), b=(1, 5, 1))])],
    *[(f"pad_s32_{k}", (lambda kw=kw: W(T.pad)("int32", **kw)))
      for k, kw in enumerate([{}, dict(v2=True), dict(shape=(5,), pads=((2, 3),)), dict(shape=(2, 3), pads=((0, 1), (2, 0)), v2=True)])],
]


@needs_litert
@needs_tflm
@pytest.mark.parametrize("name", [n for n, _ in CASES_S32])
def test_int32_rows_match_litert_and_tflm(name, tmp_path):
    content = dict(CASES_S32)[name]()
    check(content, tmp_path, feeds(content, sum(map(ord, name))))


#: the float32 rows of the int8 rows' copying kernels
CASES_F32_COPY = [
    *[(f"batch_to_space_{k}", (lambda kw=kw: T.batch_space("BATCH_TO_SPACE_ND", "float32", **kw)))
      for k, kw in enumerate([{}, dict(shape=(1, 3, 5, 2), block=(3, 1)),
                              dict(shape=(1, 3, 5, 2), pads=((1, 0), (0, 1))),
                              dict(shape=(2, 4, 3, 1), block=(2, 4), pads=((0, 2), (1, 0)))])],
    *[(f"space_to_batch_{k}", (lambda kw=kw: T.batch_space("SPACE_TO_BATCH_ND", "float32", **kw)))
      for k, kw in enumerate([{}, dict(shape=(1, 3, 5, 2), block=(3, 1)), dict(shape=(2, 2, 4, 3), block=(2, 2))])],
    *[(f"mirror_pad_{k}", (lambda kw=kw: T.mirror_pad("float32", **kw)))
      for k, kw in enumerate([{}, dict(mode=1), dict(shape=(5,), pads=((2, 4),)),
                              dict(shape=(2, 3, 4), pads=((1, 1), (2, 0), (0, 3)), mode=1)])],
    *[(f"resize_nearest_{k}", (lambda kw=kw: T.resize("RESIZE_NEAREST_NEIGHBOR", "float32", **kw)))
      for k, kw in enumerate([{}, dict(alignCorners=True), dict(halfPixelCenters=True), dict(size=(2, 3)),
                              dict(shape=(2, 5, 1, 3), size=(3, 4), halfPixelCenters=True)])],
    *[(f"resize_bilinear_{k}", (lambda kw=kw: T.resize("RESIZE_BILINEAR", "float32", **kw)))
      for k, kw in enumerate([{}, dict(alignCorners=True), dict(halfPixelCenters=True), dict(size=(2, 3)),
                              dict(size=(2, 3), halfPixelCenters=True), dict(shape=(2, 5, 1, 3), size=(7, 1)),
                              dict(shape=(1, 4, 6, 2), size=(9, 5), alignCorners=True),
                              dict(shape=(1, 1, 1, 4), size=(3, 3), halfPixelCenters=True)])],
]


@needs_litert
@needs_tflm
@pytest.mark.parametrize("name", [n for n, _ in CASES_F32_COPY])
def test_float32_copies_match_litert_and_tflm(name, tmp_path):
    content = dict(CASES_F32_COPY)[name]()
    xs = feeds(content, sum(map(ord, name)))
    if name.startswith("resize_bilinear"):
        # NaNs and infinities apart: where an input NaN and the NaN of inf * 0 meet in one sum, which
        # comes out is the compiler's choice of operand order (a NaN either way; docs/coverage.md)
        rng = np.random.default_rng(len(name))
        xs = [[np.where(np.isinf(x), np.float32(7.5), x) for x in xs[0]],
              [np.where(np.isnan(x), np.float32(-2.25), x) for x in xs[1]],
              [(rng.standard_normal(x.shape) * 1e3).astype(np.float32) for x in xs[0]]]
    check(content, tmp_path, xs)


@needs_litert
def test_space_to_batch_float32_pads_with_zero(tmp_path):
    """LiteRT pads a float32 SPACE_TO_BATCH_ND with 0.0 (TensorFlow Lite Micro's kernel never sets
    its pad value, as for int8: its padding is whatever its params' memory held, 0.0 in a fresh
    arena)."""
    content = T.batch_space("SPACE_TO_BATCH_ND", "float32", shape=(1, 3, 5, 2), pads=((1, 0), (0, 1)))
    check(content, tmp_path, feeds(content, 3), tflm=False)


@needs_litert
@needs_tflm
@pytest.mark.parametrize("name", [n for n, _ in CASES_F32])
def test_float32_rows_match_litert_and_tflm(name, tmp_path):
    content = dict(CASES_F32)[name]()
    check(content, tmp_path, feeds(content, sum(map(ord, name))))


@needs_litert
def test_float32_edges(tmp_path):
    """NaN on either side, signed zeros and infinities, element by element: MAXIMUM(NaN, 1) is 1
    and MAXIMUM(1, NaN) NaN (TFLite's a > b ? a : b); REDUCE_MAX of all -inf is -FLT_MAX (its
    start) and a NaN is passed over; SUM of -0.0s is +0.0."""
    a = np.array([np.nan, 1, np.nan, -0.0, 0.0, np.inf, -np.inf, 3], np.float32)
    b = np.array([1, np.nan, np.nan, 0.0, -0.0, -np.inf, -np.inf, -3], np.float32)
    for op in ("MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE"):
        (tmp_path / op).mkdir()
        check(T.binary(op, "float32", a=(8,), b=(8,)), tmp_path / op, [[a, b]])
    x = np.array([[1, 2, 0, np.nan], [np.nan] * 4, [-np.inf] * 4, [-0.0] * 4, [0.0, -0.0, -0.0, 0.0],
                  [np.inf, np.nan, -np.inf, 1]], np.float32).reshape(6, 4)
    for op in ("SUM", "REDUCE_MAX", "REDUCE_MIN"):
        (tmp_path / op).mkdir()
        check(T.mean(shape=(6, 4), axes=(1,), keep=False, dtype="float32", op=op), tmp_path / op, [[x], [-x]])


@needs_litert
@needs_tflm
@pytest.mark.parametrize("name", [n for n, _ in CASES])
def test_matches_litert_and_tflm(name, tmp_path):
    content = dict(CASES)[name]()
    check(content, tmp_path, feeds(content, sum(map(ord, name))))


@needs_tflm
@pytest.mark.parametrize("shape", [(2, 4, 8), (1,), (3, 1, 2, 5)])
def test_zeros_like_int8_is_tflms(shape, tmp_path):
    """TensorFlow Lite Micro's int8 ZEROS_LIKE writes 0 whatever the zero point; LiteRT has no
    int8 kernel (it fails to prepare), so the plan takes it under "tflm" only."""
    g = T.GraphBuilder()
    x = g.tensor(shape, "int8", (0.05, 7))
    y = g.tensor(shape, "int8", (0.05, 7))
    g.op("ZEROS_LIKE", [x], [y])
    content = g.build([x], [y])
    xs = feeds(content, 5)
    model = check(content, tmp_path, xs, litert=False, reference="tflm")
    assert not ap.Interpreter(ap.plan(model, reference="tflm")).run(xs[0][0]).any()
    with pytest.raises(Exception):
        L.run_single_op(content, xs[0])
    with pytest.raises(UnsupportedModel, match=r"op 0 \(ZEROS_LIKE\): input 0 is int8; LiteRT's ZEROS_LIKE takes "
                                               r"int32, int64 and float32 .*reference=\"tflm\""):
        ap.plan(model)


@needs_litert
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    dtype = data.draw(st.sampled_from(["int32", "bool", "float32"]))
    rank = data.draw(st.integers(1, 4))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    op = data.draw(st.sampled_from(["STRIDED_SLICE", "CONCATENATION", "BROADCAST_TO"]))
    if op == "STRIDED_SLICE":
        begin = tuple(data.draw(st.integers(0, d - 1)) for d in shape)
        strides = tuple(data.draw(st.sampled_from([1, 2, -1])) for _ in shape)
        end = tuple(d if s > 0 else -d - 1 for d, s in zip(shape, strides))
        out = tuple(len(range(b, e if e >= 0 else -1, s)) for b, e, s in zip(begin, [
            d if s > 0 else -1 for d, s in zip(shape, strides)], strides))
        content = W(T.strided_slice)(dtype, shape=shape, begin=begin, end=end, strides=strides, out=out) \
            if dtype != "float32" else T.strided_slice(dtype, shape=shape, begin=begin, end=end, strides=strides,
                                                       out=out)
    elif op == "CONCATENATION":
        if dtype == "float32":
            return
        content = W(T.concatenation)(n=data.draw(st.integers(1, 4)), shape=shape,
                                     axis=data.draw(st.integers(-rank, rank - 1)), dtype=dtype)
    else:
        new = tuple(data.draw(st.integers(1, 3)) if d == 1 else d for d in shape)
        new = tuple(data.draw(st.lists(st.integers(1, 2), max_size=4 - rank))) + new
        content = W(T.broadcast_to)(dtype, shape=shape, new=new)
    check(content, tmp_path_factory.mktemp("t"), feeds(content, rank), tflm=False)


def _refused(content, tmp_path, pattern, reference="litert"):
    with pytest.raises(UnsupportedModel, match=pattern):
        ap.plan(load(content, tmp_path), reference=reference)


def test_refusals_name_the_op(tmp_path):
    g = T.GraphBuilder()
    a, b = g.tensor((2, 3), "int32"), g.tensor((2, 3), "bool")
    y = g.tensor((4, 3), "int32")
    g.op("CONCATENATION", [a, b], [y], "ConcatenationOptions", axis=0)
    mixed = g.build([a, b], [y])
    g = T.GraphBuilder()
    x = g.tensor((2, 3), "float32")
    ys = [g.tensor((3,), "float32") for _ in range(3)]
    g.op("UNPACK", [x], ys, "UnpackOptions", num=3, axis=0)
    unpack_num = g.build([x], ys)
    cases = [
        (W(T.strided_slice)("int64"), r"op 0 \(STRIDED_SLICE\): input 0 \(tensor 0\) is int64; arenaplan's "
                                      r"STRIDED_SLICE takes int8, int16, float32, int32, bool"),
        (W(T.split)(dtype="bool"), r"op 0 \(SPLIT, output 0 of 2 of the file's op 0\): input 1 \(tensor 1\) is bool; arenaplan's SPLIT takes int8, "
                                   r"int16, float32, int32"),
        (mixed, r"op 0 \(CONCATENATION\): input 1 tensor 1 \('t1'\) is bool, expected int32"),
        (W(T.broadcast_to)("int32", shape=(2, 3), new=(2, 4)),
         r"op 0 \(BROADCAST_TO\): input shape \(2, 3\) does not broadcast to \[2, 4\]"),
        (W(T.pack)("int32", n=2, shape=(2, 5), axis=3), r"op 0 \(PACK\): axis 3 is out of range for inputs of rank 2"),
        (unpack_num, r"op 0 \(UNPACK, output 0 of 3 of the file's op 0\): axis 0 has size 2, not num 3"),
        (W(T.slice_)("bool", shape=(4, 4), begin=(1, 5), size=(1, 1)),
         r"op 0 \(SLICE\): begin 5 on axis 1 lies outside \[0, 4\]"),
        (T.depth_space("SPACE_TO_DEPTH", "float32", shape=(1, 3, 4, 2)),
         r"op 0 \(SPACE_TO_DEPTH\): block_size 2 does not divide the height 3 and width 4"),
        (T.binary("MAXIMUM", "float32", a=(2, 3), b=(3, 3)),
         r"op 0 \(MAXIMUM\): shapes \(2, 3\) and \(3, 3\) do not broadcast to \(3, 3\)"),
        (T.mean(shape=(1, 4, 5, 8), axes=(4,), dtype="float32", op="SUM", keep=False),
         r"op 0 \(SUM\): axes \[4\] do not fit an input of rank 4"),
        (T.depth_space("DEPTH_TO_SPACE", "int16", shape=(1, 2, 3, 8)),
         r"op 0 \(DEPTH_TO_SPACE\): input 0 \(tensor 0\) is int16; arenaplan's DEPTH_TO_SPACE takes int8, float32"),
    ]
    for k, (content, pattern) in enumerate(cases):
        (tmp_path / str(k)).mkdir()
        _refused(content, tmp_path / str(k), pattern)


def test_bad_params_are_refused_by_the_kernels():
    from arenaplan import _core
    from arenaplan.ops.lowering import TYPES_CODES
    code = {(r["name"], r["types"]): r["code"] for r in _core.ops()}
    f32 = TYPES_CODES["f32"]
    for spec, pattern in (({"input_shape": [1, 1, 2, 3], "reduce": 2, "fn": 3}, "is not an ap_reduce_f32_fn"),
                          ({"input_shape": [1, 1, 2, 3], "reduce": 0, "fn": 0}, "must mark some of axes"),
                          ({"input_shape": [1, 1, 0, 3], "reduce": 2, "fn": 1}, "input dimension 2 is 0")):
        with pytest.raises(ValueError, match=pattern):
            _core.kernel_variants(code[("SUM", "f32")], spec, 0, f32)
    with pytest.raises(ValueError, match="does not broadcast"):
        _core.kernel_variants(code[("BROADCAST_TO", "s32")], {"input_shape": [1, 1, 2, 3],
                                                              "output_shape": [1, 1, 3, 3]}, 0, TYPES_CODES["s32"])
    with pytest.raises(ValueError, match="reads indices"):
        _core.kernel_variants(code[("STRIDED_SLICE", "bool")],
                              {"input_shape": [1, 1, 1, 1, 4], "begin": [0, 0, 0, 0, 2], "stride": [1, 1, 1, 1, 1],
                               "output_shape": [1, 1, 1, 1, 3]}, 0, TYPES_CODES["bool"])


def _add_n_s8(n, shape, q=(0.05, 3), qy=(0.1, -5)):
    g = T.GraphBuilder()
    xs = [g.tensor(shape, "int8", q) for _ in range(n)]
    y = g.tensor(shape, "int8", qy)
    g.op("ADD_N", xs, [y])
    return g.build(xs, [y])


@needs_tflm
@pytest.mark.parametrize("n,shape,q,qy", [(2, (2, 4, 8), (0.05, 3), (0.1, -5)), (3, (7,), (0.02, -128), (0.05, 127)),
                                          (5, (1, 3, 3), (0.3, 127), (0.01, 0)), (16, (4, 5), (0.01, -7), (0.2, 9)),
                                          (4, (2, 2), (1.0, 0), (4.0, 0))])
def test_add_n_int8_is_tflms(n, shape, q, qy, tmp_path):
    """TensorFlow Lite Micro's int8 ADD_N (LiteRT has none: it fails to prepare, and the plan
    takes it under "tflm" only): each sum from the scaled input offset, 2 to 16 inputs, the
    int8 ends (saturation both ways), zero points at the ends; the tflite-micro interpreter's
    outputs bit for bit."""
    content = _add_n_s8(n, shape, q, qy)
    xs = feeds(content, n)
    xs.append([np.full(shape, 127, np.int8) for _ in range(n)])
    xs.append([np.full(shape, -128, np.int8) for _ in range(n)])
    model = check(content, tmp_path, xs, litert=False, reference="tflm")
    with pytest.raises(Exception):
        L.run_single_op(content, xs[0])
    with pytest.raises(UnsupportedModel, match=r"op 0 \(ADD_N\): input0 is int8; LiteRT's ADD_N takes float32 and "
                                               r"int32 .*reference=\"tflm\""):
        ap.plan(model)


def test_add_n_int8_refusals(tmp_path):
    g = T.GraphBuilder()
    a, b = g.tensor((2, 3), "int8", (0.05, 3)), g.tensor((2, 3), "int8", (0.05, 4))
    y = g.tensor((2, 3), "int8", (0.1, 0))
    g.op("ADD_N", [a, b], [y])
    _refused(g.build([a, b], [y]), tmp_path, r"op 0 \(ADD_N\): input1 \(tensor 1\) is quantised .*TensorFlow Lite "
                                             r"Micro's int8 ADD_N requires them equal", reference="tflm")
