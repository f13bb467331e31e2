"""int8 RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR (resize_s8.c): one-op .tflite models built
with the flatbuffer schema (up- and downsampling, identity, sizes of 1, batches, align_corners,
half_pixel_centers, neither), the direct variant on every instruction set this host runs inside
a verified plan, bit-exact with LiteRT's reference kernels (BUILTIN_REF) and TensorFlow Lite
Micro's interpreter over random inputs and the int8 extremes; hypothesis over shapes, sizes and
flags; the poisoned-arena property; bad sizes and flags refused naming the op, and params the
kernel cannot run refused by the C kernel."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from unary_s8 import check_one_variant, load

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


def check(content, tmp_path, shape, seed=0, tflm=True):
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
]


@needs_litert
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(op, case, tmp_path):
    shape, size, align, half = CASES[case]
    check(resize_model(op, shape, size, align, half), tmp_path, shape, seed=case)


@needs_litert
@pytest.mark.parametrize("op", OPS)
def test_another_output_quantisation_is_written_as_stored(op, tmp_path):
    check(resize_model(op, (1, 3, 3, 2), (5, 4), half=True, out_q=(0.5, -100)), tmp_path, (1, 3, 3, 2))


@needs_litert
@settings(max_examples=40, deadline=None)
@given(op=st.sampled_from(OPS), n=st.integers(1, 2), h=st.integers(1, 6), w=st.integers(1, 6), c=st.integers(1, 3),
       oh=st.integers(1, 13), ow=st.integers(1, 13), flags=st.sampled_from([(False, False), (True, False),
                                                                              (False, True)]))
def test_hypothesis(op, n, h, w, c, oh, ow, flags, tmp_path_factory):
    shape = (n, h, w, c)
    check(resize_model(op, shape, (oh, ow), *flags), tmp_path_factory.mktemp("rs"), shape, seed=h * w + oh,
          tflm=False)


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
