"""int8 RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR (resize_s8.c): one-op .tflite models built
with the flatbuffer schema (up- and downsampling, identity, sizes of 1, batches, align_corners,
half_pixel_centers, neither), every variant (RESIZE_NEAREST_NEIGHBOR: direct; RESIZE_BILINEAR:
direct, column_table and for int8 row_cache) on every instruction set this host runs and arm-dsp inside a verified plan,
bit-exact with LiteRT's reference kernels (BUILTIN_REF) and TensorFlow Lite Micro's interpreter
over random inputs and the int8 extremes; hypothesis over shapes, sizes and flags; the
poisoned-arena property (the variants' scratch poisoned too); column_table and row_cache
through the C API with exactly their scratch between guard bytes and each buffer one byte too
few, int8 and float32; downsampling, upsampling and row sharing patterns for row_cache; bad
sizes and flags refused naming the op, and params the kernel cannot run refused by the C
kernel."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from harness import tflm_support as T
from poisoned_arena import poisoned_run
from unary_s8 import check_one_variant, host_isas, load

sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
from ops_harness import Guarded, guarded_from, message, scratch_for, variants  # noqa: E402

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
OPS = ["RESIZE_NEAREST_NEIGHBOR", "RESIZE_BILINEAR"]
OPTIONS = {"RESIZE_NEAREST_NEIGHBOR": "ResizeNearestNeighborOptions", "RESIZE_BILINEAR": "ResizeBilinearOptions"}
#: The op versions that read int8 and half_pixel_centers in LiteRT 2.x.
VERSIONS = {"RESIZE_NEAREST_NEIGHBOR": 3, "RESIZE_BILINEAR": 3}


def resize_model(op, shape, size, align=False, half=False, out=None, out_q=(0.04, 5)) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = getattr(S, OPTIONS[op] + "T")()
    o.alignCorners, o.halfPixelCenters = align, half
    n, _, _, c = shape
    tensors = [dict(shape=shape, dtype="int8", scale=0.04, zero_point=5),
               dict(shape=(2,), dtype="int32", data=np.array(size, np.int32)),
               dict(shape=out or (n, size[0], size[1], c), dtype="int8", scale=out_q[0], zero_point=out_q[1])]
    return L.single_op_model(op, tensors, [0, 1], [2], OPTIONS[op], o, version=VERSIONS[op])


def feeds(shape, seed):
    rng = np.random.default_rng(seed)
    xs = [rng.integers(-128, 128, size=shape, dtype=np.int8) for _ in range(2)]
    return xs + [np.where(rng.random(shape) < 0.5, -128, 127).astype(np.int8), np.full(shape, -128, np.int8),
                 np.resize(np.arange(-128, 128, dtype=np.int8), shape)]


#: RESIZE_BILINEAR's variants by row, least scratch first.
BILINEAR_VARIANTS = {"int8": ["direct", "column_table", "row_cache"], "float32": ["direct", "column_table"]}


def scratch_of(name, output_w, channels):
    """The (bytes, alignment) requests of a RESIZE_BILINEAR variant."""
    return {"direct": (), "column_table": ((16 * output_w, 4),),
            "row_cache": ((16 * output_w, 4), (8 * output_w * channels, 4))}[name]


def check_every_variant(content, tmp_path, xs, tflm=True):
    """Every RESIZE_BILINEAR variant on every host ISA and arm-dsp, in a verified plan, equals
    LiteRT (and TensorFlow Lite Micro) on ``xs``, bit for bit, with the whole arena poisoned
    before each run (scratch read before it is written would show); column_table asks for 16
    bytes an output column, row_cache for that and two rows of int32; the poisoned arena for
    the op alone."""
    from unary_s8 import tflm_outputs
    model = load(content, tmp_path)
    wants = [w[0] for w in L.run_sequence(content, [[x] for x in xs])[0]]
    if tflm:
        for micro, want in zip(tflm_outputs(content, xs), wants):
            np.testing.assert_array_equal(micro[0], want, err_msg="TFLite Micro and LiteRT differ")
    for isa in host_isas() + ["arm-dsp"]:
        ctx = PlanContext.build(model, isa=isa, reference="litert")
        (kernel,) = ctx.kernels
        out = model.tensors[model.operators[0].outputs[0]]
        assert [v.name for v in kernel.variants] == BILINEAR_VARIANTS[str(xs[0].dtype)]
        assert all(v.scratch == scratch_of(v.name, out.shape[2], out.shape[3]) for v in kernel.variants)
        for v in kernel.variants:
            p = ctx.make([v], "size")
            assert p.verify() and p.isa == isa
            it = ap.Interpreter(p)
            for x, want in zip(xs, wants):
                it.arena[:] = 0xA5
                got = it.run(x)
                assert got.dtype == want.dtype and got.shape == want.shape
                np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8), err_msg=f"{v.name} on {isa}")
    poisoned_run(model, xs[0])
    return model


def check(content, tmp_path, shape, seed=0, tflm=True, op="RESIZE_NEAREST_NEIGHBOR"):
    if op == "RESIZE_BILINEAR":
        check_every_variant(content, tmp_path, feeds(shape, seed), tflm=tflm)
    else:
        check_one_variant(content, tmp_path, feeds(shape, seed), "direct", tflm=tflm)


#: (input shape, size, align_corners, half_pixel_centers)
CASES = [
    ((1, 4, 4, 3), (8, 8), False, False),
    ((1, 4, 4, 3), (8, 8), True, False),
    ((1, 4, 4, 3), (8, 8), False, True),
    ((2, 3, 5, 2), (7, 4), False, True),       # batches; up one way, down the other
    ((1, 8, 6, 1), (3, 2), True, False),       # downsampling
    ((1, 5, 5, 4), (5, 5), False, False),      # the identity
    ((1, 1, 1, 3), (4, 3), False, True),       # a single pixel
    ((1, 6, 7, 2), (1, 1), True, False),       # to one pixel (align_corners with an output of 1)
    ((1, 6, 7, 2), (1, 1), False, True),
    ((1, 3, 3, 5), (10, 10), True, False),
    ((2, 5, 4, 3), (13, 9), False, True),      # row_cache: rows shared 2-3 times, batches reset it
    ((1, 9, 4, 2), (4, 7), False, False),      # row_cache: every output row two new input rows
    ((1, 2, 6, 3), (11, 3), False, True),      # two input rows: the clamped y1 == y0 at the ends
]


@needs_litert
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(op, case, tmp_path):
    shape, size, align, half = CASES[case]
    check(resize_model(op, shape, size, align, half), tmp_path, shape, seed=case, op=op)


@needs_litert
@pytest.mark.parametrize("op", OPS)
def test_another_output_quantisation_is_written_as_stored(op, tmp_path):
    check(resize_model(op, (1, 3, 3, 2), (5, 4), half=True, out_q=(0.5, -100)), tmp_path, (1, 3, 3, 2), op=op)


@needs_litert
@settings(max_examples=40, deadline=None)
@given(op=st.sampled_from(OPS), n=st.integers(1, 2), h=st.integers(1, 6), w=st.integers(1, 6), c=st.integers(1, 3),
       oh=st.integers(1, 13), ow=st.integers(1, 13), flags=st.sampled_from([(False, False), (True, False),
                                                                              (False, True)]))
def test_hypothesis(op, n, h, w, c, oh, ow, flags, tmp_path_factory):
    shape = (n, h, w, c)
    check(resize_model(op, shape, (oh, ow), *flags), tmp_path_factory.mktemp("rs"), shape, seed=h * w + oh,
          tflm=False, op=op)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("size, options, out, match", [
    ((8, 8), dict(align=True, half=True), None, r"align_corners and half_pixel_centers are both set"),
    ((0, 8), {}, (1, 1, 8, 3), r"size \[0, 8\]: the output height and width must be >= 1"),
    ((8, 8), {}, (1, 8, 4, 3), r"output tensor 2 has shape \(1, 8, 4, 3\), the op computes \(1, 8, 8, 3\)"),
])
def test_bad_resize_is_refused(op, size, options, out, match, tmp_path):
    model = load(resize_model(op, (1, 4, 4, 3), size, out=out, **options), tmp_path)
    with pytest.raises(UnsupportedModel, match=rf"op 0 \({op}\): " + match):
        ap.plan(model)


def test_kernel_params_are_checked(tmp_path):
    model = load(resize_model("RESIZE_NEAREST_NEIGHBOR", (1, 4, 4, 3), (8, 6), half=True), tmp_path)
    (k,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    assert k.spec["y_index"] == [0, 0, 1, 1, 2, 2, 3, 3] and k.spec["x_index"] == [0, 1, 1, 2, 3, 3]
    with pytest.raises(ValueError, match=r"resize_nearest_neighbor: y_index\[7\] = 4 lies outside \[0, 4\)"):
        _core.kernel_variants(k.code, dict(k.spec, y_index=[0, 0, 1, 1, 2, 2, 3, 4]))
    model = load(resize_model("RESIZE_BILINEAR", (1, 4, 4, 3), (8, 6)), tmp_path, "bl")
    (k,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    assert (k.spec["height_scale_10"], k.spec["width_scale_10"]) == (512, 683)
    with pytest.raises(ValueError, match=r"resize_bilinear: height_scale_10 1024 reads input index 7 of 4"):
        _core.kernel_variants(k.code, dict(k.spec, height_scale_10=1024))
    with pytest.raises(ValueError, match=r"resize_bilinear: width_scale_10 2147483647 over 6 outputs overflows int32"):
        _core.kernel_variants(k.code, dict(k.spec, width_scale_10=2 ** 31 - 1))
    with pytest.raises(ValueError, match=r"resize_bilinear: half_pixel_centers 2 must be 0 or 1"):
        _core.kernel_variants(k.code, dict(k.spec, half_pixel_centers=2))
    model = load(T.resize("RESIZE_BILINEAR", "float32", shape=(1, 4, 4, 3), size=(8, 6)), tmp_path, "f32")
    (k,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    with pytest.raises(ValueError, match=r"resize_bilinear float32: half_pixel_centers -1 must be 0 or 1"):
        _core.kernel_variants(k.code, dict(k.spec, half_pixel_centers=-1), 0, k.types)


# --- float32: every variant (tests/test_type_rows.py holds the NaN and infinity cases) -----------
#: (input shape, size, align_corners, half_pixel_centers)
CASES_F32 = [
    ((1, 3, 4, 2), (6, 7), False, False),
    ((1, 4, 6, 2), (9, 5), True, False),
    ((2, 5, 3, 3), (7, 8), False, True),
    ((1, 8, 8, 1), (3, 5), False, True),    # downsampling
    ((1, 1, 1, 4), (3, 3), False, True),
]


def f32_feeds(shape, seed):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(shape) * 10.0 ** rng.uniform(-3, 3, size=shape)).astype(np.float32),
            np.resize(np.array([0.0, -0.0, 1.0, -1.0, 3.4e38, -3.4e38, 1e-45], np.float32), shape)]


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES_F32)))
def test_float32_every_variant(case, tmp_path):
    shape, size, align, half = CASES_F32[case]
    content = T.resize("RESIZE_BILINEAR", "float32", shape=shape, size=size, alignCorners=align,
                       halfPixelCenters=half)
    check_every_variant(content, tmp_path, f32_feeds(shape, case))


@needs_litert
@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 2), h=st.integers(1, 6), w=st.integers(1, 6), c=st.integers(1, 3), oh=st.integers(1, 13),
       ow=st.integers(1, 13), flags=st.sampled_from([(False, False), (True, False), (False, True)]))
def test_float32_hypothesis(n, h, w, c, oh, ow, flags, tmp_path_factory):
    shape = (n, h, w, c)
    content = T.resize("RESIZE_BILINEAR", "float32", shape=shape, size=(oh, ow), alignCorners=flags[0],
                       halfPixelCenters=flags[1])
    check_every_variant(content, tmp_path_factory.mktemp("rf"), f32_feeds(shape, h * w + oh), tflm=False)


# --- the C API: the column table's scratch exactly, and one byte short ------------------------------
@pytest.mark.parametrize("dtype", ["int8", "float32"])
@pytest.mark.parametrize("size, half", [((9, 7), True), ((2, 3), False)])
def test_column_table_scratch(dtype, size, half, ffi, lib, tmp_path):
    """Each variant, given exactly its scratch between guard bytes, writes the Interpreter's
    output and reads its input only; column_table with its table one byte short is
    AP_ERR_SCRATCH_TOO_SMALL naming both sizes and writes nothing."""
    shape = (2, 4, 5, 3)
    content = (resize_model("RESIZE_BILINEAR", shape, size, half=half) if dtype == "int8" else
               T.resize("RESIZE_BILINEAR", "float32", shape=shape, size=size, halfPixelCenters=half))
    model = load(content, tmp_path)
    (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    ptype, vfn, rfn = (("ap_resize_bilinear_params", lib.ap_resize_bilinear_s8_variants,
                        lib.ap_resize_bilinear_s8_run) if dtype == "int8" else
                       ("ap_resize_bilinear_f32_params", lib.ap_resize_bilinear_f32_variants,
                        lib.ap_resize_bilinear_f32_run))
    p = ffi.new(f"{ptype} *")
    for key, value in kernel.spec.items():
        setattr(p, key, value)
    x = feeds(shape, 3)[0] if dtype == "int8" else f32_feeds(shape, 3)[0]
    want = ap.Interpreter(ap.plan(model, mode="size")).run(x).reshape(-1)
    for isa in (lib.AP_ISA_PORTABLE, lib.AP_ISA_ARM_DSP):
        listed = variants(ffi, lib, vfn, p, isa)
        assert [ffi.string(v.name).decode() for v in listed] == BILINEAR_VARIANTS[dtype]
        for v in listed:
            name = ffi.string(v.name).decode()
            assert [(v.scratch[i].bytes, v.scratch[i].alignment) for i in range(v.scratch_count)] == \
                list(scratch_of(name, size[1], shape[3]))
            for short in [None, *range(v.scratch_count)]:
                inp = guarded_from(ffi, x)
                out = Guarded(ffi, want.nbytes, fill=0x5A)
                before = out.payload.copy()
                scr, bufs = scratch_for(ffi, v, short)
                for g in bufs:
                    g.payload[:] = 0xA5
                call = ffi.new("ap_op_call *")
                ins = ffi.new("void *[]", [inp.ptr])
                call.params, call.variant, call.inputs, call.input_count = p, v, ins, 1
                call.output, call.scratch, call.scratch_count = out.ptr, scr, v.scratch_count
                err = ffi.new("ap_error *")
                status = rfn(call, isa, err)
                assert inp.intact() and out.intact() and all(g.intact() for g in bufs)
                np.testing.assert_array_equal(inp.view(x.dtype), x.reshape(-1))
                if short is None:
                    assert status == lib.AP_OK, message(ffi, err)
                    np.testing.assert_array_equal(out.view(want.dtype).view(np.uint8), want.view(np.uint8))
                else:
                    need = v.scratch[short].bytes
                    assert status == lib.AP_ERR_SCRATCH_TOO_SMALL
                    assert err.needed == need and err.available == need - 1, message(ffi, err)
                    np.testing.assert_array_equal(out.payload, before)
                if v.scratch_count:   # no scratch at all: refused, nothing written
                    call.scratch, call.scratch_count = ffi.NULL, 0
                    assert rfn(call, isa, err) == lib.AP_ERR_INVALID_ARGUMENT
                    assert f"needs {v.scratch_count} scratch buffer(s), got 0" in message(ffi, err)
