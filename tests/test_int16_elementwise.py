"""The int16 MAXIMUM, MINIMUM, ABS, RESIZE_NEAREST_NEIGHBOR, BROADCAST_TO, SQUARED_DIFFERENCE and
SUM rows (the last two TensorFlow Lite Micro's alone: under "tflm", refused under "litert"), and
SELECT_V2 of int16 values and CAST from int16 to every output type: one-op
.tflite models built with the flatbuffer schema, run in verified plans on every instruction set
this host runs, bit-exact under both rounding rules with LiteRT's reference kernels
(BUILTIN_REF) and TensorFlow Lite Micro's interpreter: random values and the int16 extremes,
broadcasting on either side, size-1 dims, one element; ABS with equal scales (no rescale) and
rescaling up and down into saturation; resizing up, down, to one pixel, with each flag;
hypothesis over shapes and scales; the poisoned arena; in place; ABS's nonzero zero points
refused when the plan is made, as both runtimes refuse them."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import UnsupportedModel
from arenaplan.ops.lowering import HOST_ISA
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from poisoned_arena import poisoned_run

sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
from ops_harness import Guarded, guarded_from, message, variants  # noqa: E402

_LITERT = L.unavailable_reason()
try:
    import tflite_micro  # noqa: F401
    _TFLM = None
except ImportError as exc:  # pragma: no cover - the test extra pins it for x86-64
    _TFLM = f"tflite-micro is not importable ({exc})"
I16 = np.iinfo(np.int16)
REFERENCES = ["litert", "tflm"]


def host_isas() -> list:
    return ["portable"] + (["x86-avx2"] if HOST_ISA == "x86-avx2" else [])


def skip_without(reference: str) -> None:
    why = _LITERT if reference == "litert" else _TFLM
    if why:
        pytest.skip(str(why))


def t16(shape, scale=0.01, zp=0) -> dict:
    return dict(shape=shape, dtype="int16", scale=scale, zero_point=zp)


def binary_model(op: str, sa, sb, so, zps=(0, 0, 0)) -> bytes:
    return L.single_op_model(op, [t16(sa, 0.01, zps[0]), t16(sb, 0.02, zps[1]), t16(so, 0.03, zps[2])], [0, 1],
                             [2], version=4)


def abs_model(shape, xs: float, ys: float, xz: int = 0, yz: int = 0) -> bytes:
    return L.single_op_model("ABS", [t16(shape, xs, xz), t16(shape, ys, yz)], [0], [1], version=3)


def load(content: bytes, tmp_path, name="m") -> ap.Model:
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(content)
    return ap.load_tflite(path)


def values(rng, shape) -> list:
    """Random int16 values, then all -32768, all 32767, and both ends mixed with 0 and -1."""
    return [rng.integers(I16.min, I16.max + 1, size=shape).astype(np.int16), np.full(shape, I16.min, np.int16),
            np.full(shape, I16.max, np.int16), np.resize(np.array([I16.min, I16.max, 0, -1], np.int16), shape)]


def references(content: bytes, feeds: list, reference: str) -> list:
    if reference == "litert":
        return [o[0] for o in L.run_sequence(content, feeds)[0]]
    from tflite_micro.python.tflite_micro import runtime
    micro = runtime.Interpreter.from_bytes(content, arena_size=1 << 20)
    out = []
    for feed in feeds:
        for i, x in enumerate(feed):
            micro.set_input(x, i)
        micro.invoke()
        out.append(np.array(micro.get_output(0)))
    return out


def check(content: bytes, tmp_path, feeds: list, reference: str, in_place: bool) -> None:
    model = load(content, tmp_path)
    wants = references(content, feeds, reference)
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference=reference)
        (kernel,) = ctx.kernels
        assert [(v.name, v.scratch, v.in_place) for v in kernel.variants] == [("direct", (), in_place)]
        p = ctx.make(list(kernel.variants), "size")
        assert p.verify() and p.isa == isa
        it = ap.Interpreter(p)
        for feed, want in zip(feeds, wants):
            got = it.run(feed if len(feed) > 1 else feed[0])
            assert got.dtype == np.int16 and got.shape == want.shape
            np.testing.assert_array_equal(got, want, err_msg=f"{isa} ({reference})")


#: (first input shape, second, output): equal shapes, broadcast on either side, size-1 dims.
SHAPES = [((2, 3, 4, 5), (2, 3, 4, 5), (2, 3, 4, 5)),
          ((1, 4, 4, 8), (1, 1, 1, 8), (1, 4, 4, 8)),
          ((3, 1, 7), (3, 5, 1), (3, 5, 7)),
          ((1,), (1,), (1,)),
          ((6,), (1,), (6,))]


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("op", ["MAXIMUM", "MINIMUM"])
@pytest.mark.parametrize("case", range(len(SHAPES)))
def test_maximum_minimum(reference, op, case, tmp_path):
    skip_without(reference)
    sa, sb, so = SHAPES[case]
    rng = np.random.default_rng(case)
    feeds = [[a, b] for a, b in zip(values(rng, sa), values(rng, sb)[::-1])] + [[values(rng, sa)[0], values(rng, sb)[0]]]
    check(binary_model(op, sa, sb, so), tmp_path, feeds, reference, sa == so or sb == so)


@pytest.mark.parametrize("reference", REFERENCES)
def test_maximum_takes_zero_points_as_stored(reference, tmp_path):
    """TFLite compares the stored values whatever the quantisation (its kernels check the types)."""
    skip_without(reference)
    rng = np.random.default_rng(7)
    shape = (3, 11)
    feeds = [[a, b] for a, b in zip(values(rng, shape), values(rng, shape))]
    check(binary_model("MAXIMUM", shape, shape, shape, zps=(5, -9, 100)), tmp_path, feeds, reference, True)


#: (input scale, output scale): equal (no rescale), rescaled down, up (into saturation), tiny.
ABS_SCALES = [(0.01, 0.01), (0.01, 0.03), (0.02, 0.005), (1e-4, 0.07), (3.0, 0.001)]


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("case", range(len(ABS_SCALES)))
def test_abs(reference, case, tmp_path):
    skip_without(reference)
    xs, ys = ABS_SCALES[case]
    rng = np.random.default_rng(case)
    shape = (2, 1, 33)
    feeds = [[x] for x in values(rng, shape)] + [[np.arange(I16.min, I16.max + 1, dtype=np.int16)[:66].reshape(shape)]]
    check(abs_model(shape, xs, ys), tmp_path, feeds, reference, True)


@pytest.mark.skipif(_LITERT is not None or _TFLM is not None, reason="needs LiteRT and tflite-micro")
@settings(max_examples=25, deadline=None)
@given(op=st.sampled_from(["MAXIMUM", "MINIMUM", "ABS"]), n=st.integers(1, 40), m=st.integers(1, 6),
       broadcast=st.sampled_from([None, 0, 1]), ratio=st.floats(0.05, 20.0), seed=st.integers(0, 2 ** 16))
def test_hypothesis(op, n, m, broadcast, ratio, seed, tmp_path_factory):
    rng = np.random.default_rng(seed)
    if op == "ABS":
        content, feeds = abs_model((m, n), 0.01, 0.01 * ratio), [[x] for x in values(rng, (m, n))[:2]]
        in_place = True
    else:
        sa, sb = (m, n), (m, n)
        if broadcast == 0:
            sa = (1, n)
        elif broadcast == 1:
            sb = (m, 1)
        content = binary_model(op, sa, sb, (m, n))
        feeds = [[values(rng, sa)[0], values(rng, sb)[0]]]
        in_place = sa == (m, n) or sb == (m, n)
    for reference in REFERENCES:
        check(content, tmp_path_factory.mktemp("h"), feeds, reference, in_place)


@pytest.mark.parametrize("reference", REFERENCES)
def test_poisoned_arena(reference, tmp_path):
    rng = np.random.default_rng(3)
    for i, op in enumerate(["MAXIMUM", "MINIMUM"]):
        model = load(binary_model(op, (4, 9), (1, 9), (4, 9)), tmp_path, f"b{i}")
        poisoned_run(model, [values(rng, (4, 9))[0], values(rng, (1, 9))[0]], reference=reference)
    model = load(abs_model((4, 9), 0.01, 0.02), tmp_path, "abs")
    poisoned_run(model, values(rng, (4, 9))[0], reference=reference)


def test_abs_zero_points_refused(tmp_path):
    for i, (xz, yz) in enumerate([(3, 0), (0, -1)]):
        model = load(abs_model((5,), 0.01, 0.01, xz, yz), tmp_path, f"m{i}")
        for reference in REFERENCES:
            with pytest.raises(UnsupportedModel, match=r"op 0 \(ABS\).*zero point"):
                ap.plan(model, reference=reference)


def resize_model(shape, size, align=False, half=False) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = S.ResizeNearestNeighborOptionsT()
    o.alignCorners, o.halfPixelCenters = align, half
    n, _, _, c = shape
    tensors = [t16(shape, 0.01, 0), dict(shape=(2,), dtype="int32", data=np.array(size, np.int32)),
               t16((n, size[0], size[1], c), 0.01, 0)]
    return L.single_op_model("RESIZE_NEAREST_NEIGHBOR", tensors, [0, 1], [2], "ResizeNearestNeighborOptions", o,
                             version=4)


def broadcast_to_model(shape, to) -> bytes:
    tensors = [t16(shape, 0.02, 0), dict(shape=(len(to),), dtype="int32", data=np.array(to, np.int32)),
               t16(to, 0.02, 0)]
    return L.single_op_model("BROADCAST_TO", tensors, [0, 1], [2], version=2)


#: (input shape, size, align_corners, half_pixel_centers)
RESIZES = [((1, 4, 4, 3), (8, 8), False, False), ((1, 4, 4, 3), (8, 8), True, False),
           ((2, 3, 5, 2), (7, 4), False, True), ((1, 8, 6, 1), (3, 2), True, False),
           ((1, 1, 1, 3), (4, 3), False, True), ((1, 6, 7, 2), (1, 1), True, False)]


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("case", range(len(RESIZES)))
def test_resize_nearest(reference, case, tmp_path):
    skip_without(reference)
    shape, size, align, half = RESIZES[case]
    feeds = [[x] for x in values(np.random.default_rng(case), shape)]
    check(resize_model(shape, size, align, half), tmp_path, feeds, reference, False)


#: (input shape, the shape broadcast to)
BROADCASTS = [((1, 1, 8), (2, 4, 4, 8)), ((3, 1), (3, 5)), ((1,), (7,)), ((2, 3), (2, 3)), ((1, 4, 1, 2), (3, 4, 5, 2))]


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("case", range(len(BROADCASTS)))
def test_broadcast_to(reference, case, tmp_path):
    skip_without(reference)
    shape, to = BROADCASTS[case]
    feeds = [[x] for x in values(np.random.default_rng(case), shape)]
    check(broadcast_to_model(shape, to), tmp_path, feeds, reference, tuple(shape) == tuple(to))


@pytest.mark.skipif(_LITERT is not None or _TFLM is not None, reason="needs LiteRT and tflite-micro")
@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 2), h=st.integers(1, 6), w=st.integers(1, 6), c=st.integers(1, 3), oh=st.integers(1, 9),
       ow=st.integers(1, 9), flags=st.sampled_from([(False, False), (True, False), (False, True)]),
       seed=st.integers(0, 2 ** 16))
def test_resize_hypothesis(n, h, w, c, oh, ow, flags, seed, tmp_path_factory):
    feeds = [[values(np.random.default_rng(seed), (n, h, w, c))[0]]]
    content = resize_model((n, h, w, c), (oh, ow), *flags)
    for reference in REFERENCES:
        check(content, tmp_path_factory.mktemp("r"), feeds, reference, False)


@pytest.mark.parametrize("reference", REFERENCES)
def test_copies_on_a_poisoned_arena(reference, tmp_path):
    rng = np.random.default_rng(5)
    model = load(resize_model((1, 3, 4, 2), (6, 5), False, True), tmp_path, "r")
    poisoned_run(model, values(rng, (1, 3, 4, 2))[0], reference=reference)
    model = load(broadcast_to_model((1, 4, 1, 2), (3, 4, 5, 2)), tmp_path, "b")
    poisoned_run(model, values(rng, (1, 4, 1, 2))[0], reference=reference)


def sqdiff_model(sa, sb, so, scales=(0.01, 0.02, 0.03)) -> bytes:
    return L.single_op_model("SQUARED_DIFFERENCE", [t16(sa, scales[0]), t16(sb, scales[1]), t16(so, scales[2])],
                             [0, 1], [2], version=2)


#: (shapes, scales): the output multiplier shifting right, by 0 and left (a small output scale:
#: the rescaled square wraps in int32 as TFLite's does, then saturates), equal input scales.
SQDIFF = [(SHAPES[0], (0.01, 0.02, 0.03)), (SHAPES[1], (0.01, 0.02, 1.6e-3)), (SHAPES[2], (0.01, 0.01, 1e-5)),
          (SHAPES[3], (0.5, 0.001, 2.0)), (SHAPES[4], (3e-4, 2e-4, 5e-7))]


@pytest.mark.parametrize("case", range(len(SQDIFF)))
def test_squared_difference_tflm(case, tmp_path):
    skip_without("tflm")
    (sa, sb, so), scales = SQDIFF[case]
    rng = np.random.default_rng(case)
    feeds = [[a, b] for a, b in zip(values(rng, sa), values(rng, sb)[::-1])] + [[values(rng, sa)[0], values(rng, sb)[0]]]
    check(sqdiff_model(sa, sb, so, scales), tmp_path, feeds, "tflm", sa == so or sb == so)


@pytest.mark.skipif(_TFLM is not None, reason=str(_TFLM))
@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 30), m=st.integers(1, 4), broadcast=st.sampled_from([None, 0, 1]),
       s1=st.floats(1e-4, 0.1), s2=st.floats(1e-4, 0.1), so=st.floats(1e-6, 1.0), seed=st.integers(0, 2 ** 16))
def test_squared_difference_hypothesis(n, m, broadcast, s1, s2, so, seed, tmp_path_factory):
    sa, sb = (m, n), (m, n)
    if broadcast == 0:
        sa = (1, n)
    elif broadcast == 1:
        sb = (m, 1)
    content = sqdiff_model(sa, sb, (m, n), (s1, s2, so))
    rng = np.random.default_rng(seed)
    check(content, tmp_path_factory.mktemp("sq"), [[values(rng, sa)[0], values(rng, sb)[0]]], "tflm",
          sa == (m, n) or sb == (m, n))


def test_squared_difference_rules(tmp_path):
    """LiteRT has no int16 SQUARED_DIFFERENCE: refused under its rule; nonzero zero points are
    refused under TFLite Micro's, as its Prepare refuses them; on a poisoned arena it writes
    its output only."""
    model = load(sqdiff_model((4, 9), (1, 9), (4, 9)), tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(SQUARED_DIFFERENCE\).*reference='tflm'"):
        ap.plan(model, reference="litert")
    rng = np.random.default_rng(2)
    poisoned_run(model, [values(rng, (4, 9))[0], values(rng, (1, 9))[0]], reference="tflm")
    content = L.single_op_model("SQUARED_DIFFERENCE", [t16((3,), 0.01, 4), t16((3,), 0.01), t16((3,), 0.01)],
                                [0, 1], [2], version=2)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(SQUARED_DIFFERENCE\).*zero point 4"):
        ap.plan(load(content, tmp_path, "zp"), reference="tflm")


def sum_model(shape, axes, keep: bool, xq=(1e-3, 0), yq=(0.02, 0)) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = S.ReducerOptionsT()
    o.keepDims = keep
    rank = len(shape)
    ax = {a % rank for a in axes}
    out = [1 if d in ax else shape[d] for d in range(rank)] if keep else [shape[d] for d in range(rank) if d not in ax]
    tensors = [t16(shape, *xq), dict(shape=(len(axes),), dtype="int32", data=np.array(axes, np.int32)),
               t16(tuple(out), *yq)]
    return L.single_op_model("SUM", tensors, [0, 1], [2], "ReducerOptions", o, version=2)


#: (input shape, axes, keep_dims, input (scale, zero point), output (scale, zero point)): one axis,
#: several, negative, all; zero points at the int16 ends; rescaled up into saturation.
SUMS = [((1, 4, 4, 8), [1, 2], True, (1e-3, 0), (0.02, 0)),
        ((2, 3, 5), [-1], False, (0.01, 300), (0.05, -7)),
        ((3, 7), [0, 1], False, (1e-3, -32768), (0.5, 32767)),
        ((6,), [0], True, (0.02, 0), (0.001, 0)),
        ((2, 1, 3, 1), [1, 3], True, (1e-4, 5), (1e-4, 5))]


@pytest.mark.parametrize("case", range(len(SUMS)))
def test_sum_tflm(case, tmp_path):
    skip_without("tflm")
    shape, axes, keep, xq, yq = SUMS[case]
    feeds = [[x] for x in values(np.random.default_rng(case), shape)]
    check(sum_model(shape, axes, keep, xq, yq), tmp_path, feeds, "tflm", False)


def test_sum_rules(tmp_path):
    model = load(sum_model((2, 3, 4), [1], False), tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(SUM\).*reference \"tflm\""):
        ap.plan(model, reference="litert")
    poisoned_run(model, values(np.random.default_rng(1), (2, 3, 4))[0], reference="tflm")


def select_model(sc, sx, sy, so) -> bytes:
    tensors = [dict(shape=sc, dtype="bool"), t16(sx, 0.01, 3), t16(sy, 0.02, -5), t16(so, 0.03, 7)]
    return L.single_op_model("SELECT_V2", tensors, [0, 1, 2], [3], version=2)


#: (condition, x, y, output) shapes: equal, each broadcast, size-1 dims.
SELECTS = [((2, 3, 4), (2, 3, 4), (2, 3, 4), (2, 3, 4)), ((1, 4, 1, 8), (1, 4, 4, 8), (1, 1, 4, 8), (1, 4, 4, 8)),
           ((1,), (5, 1), (1, 6), (5, 6)), ((3, 1), (3, 7), (3, 7), (3, 7))]


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("case", range(len(SELECTS)))
def test_select_v2(reference, case, tmp_path):
    skip_without(reference)
    sc, sx, sy, so = SELECTS[case]
    rng = np.random.default_rng(case)
    conds = [rng.random(sc) < 0.5, np.zeros(sc, bool), np.ones(sc, bool)]
    feeds = [[c, a, b] for c, a, b in zip(conds, values(rng, sx), values(rng, sy)[::-1])]
    check(select_model(sc, sx, sy, so), tmp_path, feeds, reference, sx == so or sy == so)


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("out", ["int8", "int16", "int32", "float32", "bool"])
def test_cast_from_int16(reference, out, tmp_path):
    """int8 wraps, float32 and int32 exact, bool as != 0 (the extremes, 0 and -1 among the inputs)."""
    skip_without(reference)
    shape = (3, 1, 22)
    q = {"scale": 0.01, "zero_point": 0} if out in ("int8", "int16") else {}
    content = L.single_op_model("CAST", [t16(shape), dict(shape=shape, dtype=out, **q)], [0], [1], version=2)
    model = load(content, tmp_path)
    feeds = [[x] for x in values(np.random.default_rng(1), shape)]
    wants = references(content, feeds, reference)
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference=reference)
        plan = ctx.make(list(ctx.kernels[0].variants), "size")
        assert plan.verify()
        it = ap.Interpreter(plan)
        for feed, want in zip(feeds, wants):
            got = it.run(feed[0])
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want, err_msg=f"{out} on {isa} ({reference})")


@pytest.mark.parametrize("reference", REFERENCES)
def test_select_and_cast_on_a_poisoned_arena(reference, tmp_path):
    rng = np.random.default_rng(8)
    model = load(select_model((1, 4, 1, 8), (1, 4, 4, 8), (1, 1, 4, 8), (1, 4, 4, 8)), tmp_path, "s")
    poisoned_run(model, [rng.random((1, 4, 1, 8)) < 0.5, values(rng, (1, 4, 4, 8))[0], values(rng, (1, 1, 4, 8))[0]],
                 reference=reference)
    content = L.single_op_model("CAST", [t16((4, 9)), dict(shape=(4, 9), dtype="float32")], [0], [1], version=2)
    poisoned_run(load(content, tmp_path, "c"), values(rng, (4, 9))[0], reference=reference)


# --- the C API: a variant runs only as the ISA it was listed for ------------------------------------
#: int16 binary rows: (op, builtin model, params struct, C name, rounding setting that takes it).
_BINARY_ROWS = [("ADD", "add_params", "add", "litert"), ("SUB", "add_params", "sub", "litert"),
                ("MUL", "mul_params", "mul", "litert"), ("MAXIMUM", "minmax_params", "maximum", "litert"),
                ("MINIMUM", "minmax_params", "minimum", "litert"),
                ("SQUARED_DIFFERENCE", "squared_difference_params", "squared_difference", "tflm")]


@pytest.mark.parametrize("op, params_type, c_name, reference", _BINARY_ROWS)
def test_binary_rows_refuse_a_variant_of_another_isa(op, params_type, c_name, reference, ffi, lib, tmp_path):
    """Each int16 binary row's run() refuses its portable variant when asked to run it as arm-dsp,
    naming both ISAs and writing nothing; asked as portable, it writes the Interpreter's output."""
    shape = (2, 3, 4)
    content = (sqdiff_model(shape, shape, shape) if op == "SQUARED_DIFFERENCE"
               else binary_model(op, shape, shape, shape))
    model = load(content, tmp_path)
    ctx = PlanContext.build(model, isa="portable", reference=reference)
    (kernel,) = ctx.kernels
    p = ffi.new(f"ap_{params_type} *")
    for key, value in kernel.spec.items():
        setattr(p, key, value)
    rng = np.random.default_rng(3)
    a, b = (rng.integers(-3000, 3000, size=shape).astype(np.int16) for _ in range(2))
    plan = ctx.make(list(kernel.variants), "size")
    assert plan.verify()
    want = ap.Interpreter(plan).run([a, b]).reshape(-1)
    (v,) = variants(ffi, lib, getattr(lib, f"ap_{c_name}_s16_variants"), p, lib.AP_ISA_PORTABLE)
    run = getattr(lib, f"ap_{c_name}_s16_run")
    for isa, ok in ((lib.AP_ISA_ARM_DSP, False), (lib.AP_ISA_PORTABLE, True)):
        ia, ib = guarded_from(ffi, a), guarded_from(ffi, b)
        out = Guarded(ffi, want.nbytes, fill=0x5A)
        before = out.payload.copy()
        call = ffi.new("ap_op_call *")
        ins = ffi.new("void *[]", [ia.ptr, ib.ptr])
        call.params, call.variant, call.inputs, call.input_count, call.output = p, v, ins, 2, out.ptr
        err = ffi.new("ap_error *")
        status = run(call, isa, err)
        assert ia.intact() and ib.intact() and out.intact()
        if ok:
            assert status == lib.AP_OK, message(ffi, err)
            np.testing.assert_array_equal(out.view(np.int16), want)
        else:
            assert status == lib.AP_ERR_INVALID_ARGUMENT
            assert "is a portable variant; asked to run it as arm-dsp" in message(ffi, err)
            np.testing.assert_array_equal(out.payload, before)
