"""L2_POOL_2D float32 (TFLite has no quantised kernel): one-op models written with the tflite
schema, on every host ISA in a verified plan, bit for bit against LiteRT's reference L2Pool
(BUILTIN_REF) and TensorFlow Lite Micro's interpreter: SAME and VALID padding, strides 1 to 3,
windows from 1x1 to larger than the input, partial windows at the edges, 1x1 images and one
channel, every fused activation; normal, huge (squares past FLT_MAX), tiny, signed zero,
infinite and NaN inputs; hypothesis over shapes and windows; the poisoned arena; refused: int8
and int16 inputs, a rank other than 4, an unknown activation. The Cortex-M4 under QEMU runs its
probe."""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from arenaplan.model.quantize import conv_output_size
from harness.reference import litert_layers as L
from norm_ops import check_plans, float_edges, needs_litert, refused, run_rows_on_cortex_m4

S = pytest.importorskip("ai_edge_litert.schema_py_generated")
ACTS = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3, "TANH": 4}


def l2_pool_model(shape, k, stride, padding="SAME", act="NONE", dtype="float32", out_shape=None) -> bytes:
    o = S.Pool2DOptionsT()
    o.padding = getattr(S.Padding, padding)
    o.strideH, o.strideW = stride
    o.filterHeight, o.filterWidth = k
    o.fusedActivationFunction = ACTS[act]
    if out_shape is None:
        n, h, w, c = shape
        out_shape = (n, conv_output_size(h, k[0], stride[0], 1, padding),
                     conv_output_size(w, k[1], stride[1], 1, padding), c)
    q = dict(scale=0.1, zero_point=0) if dtype != "float32" else {}
    tensors = [dict(shape=shape, dtype=dtype, **q), dict(shape=out_shape, dtype=dtype, **q)]
    return L.single_op_model("L2_POOL_2D", tensors, [0], [1], "Pool2DOptions", o, version=1)


#: (input shape, filter, stride, padding, activation)
CASES = [
    ((1, 8, 8, 4), (2, 2), (2, 2), "VALID", "NONE"),
    ((1, 7, 7, 3), (3, 3), (2, 2), "SAME", "NONE"),      # partial windows at the edges
    ((2, 5, 6, 1), (3, 2), (1, 1), "SAME", "RELU"),
    ((1, 9, 4, 5), (4, 3), (3, 2), "VALID", "RELU6"),
    ((1, 3, 3, 2), (5, 5), (1, 1), "SAME", "RELU_N1_TO_1"),   # windows larger than the image
    ((1, 1, 1, 3), (1, 1), (1, 1), "VALID", "NONE"),     # a 1x1 image
    ((3, 4, 4, 7), (1, 1), (2, 2), "SAME", "NONE"),      # 1x1 windows: |x|
]


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(case, tmp_path):
    shape, k, stride, padding, act = CASES[case]
    check_plans(l2_pool_model(shape, k, stride, padding, act), tmp_path, float_edges(shape, case), "litert",
                also_tflm=True)


@needs_litert
@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 2), h=st.integers(1, 9), w=st.integers(1, 9), c=st.integers(1, 5), kh=st.integers(1, 4),
       kw=st.integers(1, 4), sh=st.integers(1, 3), sw=st.integers(1, 3), same=st.booleans(), seed=st.integers(0, 99))
def test_hypothesis(n, h, w, c, kh, kw, sh, sw, same, seed, tmp_path_factory):
    padding = "SAME" if same or kh > h or kw > w else "VALID"
    x = (np.random.default_rng(seed).standard_normal((n, h, w, c)) * 4).astype(np.float32)
    check_plans(l2_pool_model((n, h, w, c), (kh, kw), (sh, sw), padding), tmp_path_factory.mktemp("l2p"), [x],
                "litert", poisoned=False)


def test_refusals(tmp_path):
    refused(l2_pool_model((1, 4, 4, 2), (2, 2), (2, 2), dtype="int8"), tmp_path, "op 0 (L2_POOL_2D)", "int8",
            "takes float32")
    refused(l2_pool_model((1, 4, 4, 2), (2, 2), (2, 2), dtype="int16"), tmp_path, "op 0 (L2_POOL_2D)", "int16")
    refused(l2_pool_model((4, 4, 2), (2, 2), (2, 2), out_shape=(2, 2, 2)), tmp_path, "op 0 (L2_POOL_2D)",
            "must be 4-D")
    refused(l2_pool_model((1, 4, 4, 2), (2, 2), (2, 2), act="TANH"), tmp_path, "op 0 (L2_POOL_2D)",
            "fused activation TANH")
    refused(l2_pool_model((1, 4, 4, 2), (2, 2), (2, 2), out_shape=(1, 3, 3, 2)), tmp_path, "op 0 (L2_POOL_2D)")


def test_rows_on_cortex_m4(tmp_path):
    run_rows_on_cortex_m4([("L2_POOL_2D", "f32")], tmp_path)


@pytest.mark.parametrize("target", ["x86-64", "cortex-m4"])
@pytest.mark.parametrize("name", ["l2_pool.c", "l2_norm.c"])
def test_sums_of_squares_compile_without_fused_multiply_add(target, name):
    """L2_POOL_2D's and L2_NORMALIZATION's sums of squares round each product as TFLite's do:
    their files turn contraction off (float32_common.h), so GCC's GNU mode fuses nothing on an
    FMA x86-64 or the Cortex-M4 (test_float32's check of the other float32 files)."""
    import shutil
    import subprocess
    from test_float32 import FUSED, ROOT
    if target == "x86-64":
        cc, flags = "gcc", ["-O3", "-march=haswell"]
    else:
        cc, flags = "arm-none-eabi-gcc", ["-O2", "-mthumb", "-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16",
                                          "-mfloat-abi=hard", "-DAP_RUNTIME_ONLY"]
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    inc = ["-I", str(ROOT / "csrc" / "include"), "-I", str(ROOT / "csrc" / "runtime")]
    asm = subprocess.run([cc, "-std=gnu99", *flags, *inc, "-S", "-o", "-", str(ROOT / "csrc" / "runtime" / name)],
                         check=True, capture_output=True, text=True).stdout
    assert not FUSED[target].search(asm), f"{name} ({target}) has a fused multiply-add"
    assert re.search(r"\bv?mul[sp]?s?\b|vmul\.f32", asm), f"{name}: no float multiply found at all"
