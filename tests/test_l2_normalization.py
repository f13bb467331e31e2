"""L2_NORMALIZATION, int8 and float32: one-op models written with the tflite schema, on every host
ISA in a verified plan, bit for bit against LiteRT's reference kernels (BUILTIN_REF) and
TensorFlow Lite Micro's interpreter. int8 (reference_integer_ops::L2Normalization,
GetInvSqrtQuantizedMultiplierExp): zero points at both ends, rows all at the zero point (a zero
norm), all -128 or 127, one value a row, the longest row whose sum of squares stays in int32
(33,025 values of 255^2), ranks 1 to 4; float32: normal, huge (squares past FLT_MAX), tiny (a
norm under the 1e-6 epsilon), signed zeros, infinities and NaN; hypothesis over shapes and
quantisation; the poisoned arena; refused: a fused activation, an output quantisation other than
1/128 and 0, rank 5, a row too long for int32, a type mix. The Cortex-M4 under QEMU runs both
rows' probes."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from harness.reference import litert_layers as L
from norm_ops import check_plans, float_edges, int8_edges, needs_litert, refused, run_rows_on_cortex_m4

S = pytest.importorskip("ai_edge_litert.schema_py_generated")


def l2_norm_model(shape, dtype="int8", xs=0.05, xz=0, ys=1 / 128, yz=0, act=0, out_dtype=None) -> bytes:
    out_dtype = out_dtype or dtype
    o = S.L2NormOptionsT()
    o.fusedActivationFunction = act
    tensors = [dict(shape=shape, dtype=dtype, **(dict(scale=xs, zero_point=xz) if dtype == "int8" else {})),
               dict(shape=shape, dtype=out_dtype, **(dict(scale=ys, zero_point=yz) if out_dtype == "int8" else {}))]
    return L.single_op_model("L2_NORMALIZATION", tensors, [0], [1], "L2NormOptions", o,
                             version=2 if dtype == "int8" else 1)


#: (shape, input scale, input zero point)
CASES_S8 = [
    ((1, 10), 0.05, 0),
    ((3, 37), 0.07, 5),
    ((2, 3, 4, 7), 0.02, 127),       # zero point at the top
    ((5, 33), 0.3, -128),            # at the bottom
    ((4, 1), 0.1, 5),                # one value a row: +-1 or 0
    ((1, 1), 0.1, -7),
    ((9,), 0.5, 0),                  # rank 1
    ((2, 1000), 0.01, 3),
    ((1, 1, 1, 64), 1.0, -1),
]


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES_S8)))
def test_int8_matches_litert_and_tflm(case, tmp_path):
    shape, xs, xz = CASES_S8[case]
    content = l2_norm_model(shape, "int8", xs, xz)
    check_plans(content, tmp_path, int8_edges(shape, case, xz), "litert", also_tflm=True)
    check_plans(content, tmp_path, int8_edges(shape, case + 50, xz), "tflm", name="t", poisoned=False)


@needs_litert
def test_int8_longest_row(tmp_path):
    """33,025 differences of 255: the sum of squares 2,147,450,625, just inside int32."""
    shape = (1, 33025)
    content = l2_norm_model(shape, "int8", 0.01, 127)
    xs = [np.full(shape, -128, np.int8), np.random.default_rng(0).integers(-128, 128, size=shape, dtype=np.int8)]
    check_plans(content, tmp_path, xs, "litert", also_tflm=True, poisoned=False)


@needs_litert
@settings(max_examples=30, deadline=None)
@given(rows=st.integers(1, 4), depth=st.integers(1, 300), xs=st.floats(1e-3, 10.0), xz=st.integers(-128, 127),
       seed=st.integers(0, 2 ** 16))
def test_int8_hypothesis(rows, depth, xs, xz, seed, tmp_path_factory):
    rng = np.random.default_rng(seed)
    shape = (rows, depth)
    inputs = [rng.integers(-128, 128, size=shape, dtype=np.int8),
              np.clip(xz + rng.integers(-2, 3, size=shape), -128, 127).astype(np.int8)]
    check_plans(l2_norm_model(shape, "int8", xs, xz), tmp_path_factory.mktemp("l2n"), inputs, "litert",
                poisoned=False)


SHAPES_F32 = [(1, 10), (3, 37), (2, 3, 4, 7), (4, 1), (1, 1), (9,), (2, 1000), (1, 1, 1, 64)]


@needs_litert
@pytest.mark.parametrize("shape", SHAPES_F32)
def test_float32_matches_litert_and_tflm(shape, tmp_path):
    check_plans(l2_norm_model(shape, "float32"), tmp_path, float_edges(shape, len(shape)), "litert",
                also_tflm=True)


@needs_litert
@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 5), depth=st.integers(1, 200), scale=st.floats(1e-30, 1e30), seed=st.integers(0, 2 ** 16))
def test_float32_hypothesis(rows, depth, scale, seed, tmp_path_factory):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((rows, depth)) * scale).astype(np.float32)
    check_plans(l2_norm_model((rows, depth), "float32"), tmp_path_factory.mktemp("l2nf"), [x], "litert",
                poisoned=False)


@pytest.mark.parametrize("ys, yz", [(1 / 256, 0), (1 / 128, 1), (1 / 128, -128)])
def test_int8_output_quantisation_tflite_refuses(ys, yz, tmp_path):
    refused(l2_norm_model((2, 8), "int8", 0.1, 0, ys, yz), tmp_path, "op 0 (L2_NORMALIZATION)",
            "scale 1/128 (0.0078125) and zero point 0")


def test_refusals(tmp_path):
    refused(l2_norm_model((2, 8), "float32", act=1), tmp_path, "op 0 (L2_NORMALIZATION)", "fused activation RELU")
    refused(l2_norm_model((2, 8), "int8", act=3), tmp_path, "op 0 (L2_NORMALIZATION)", "fused activation RELU6")
    refused(l2_norm_model((1, 2, 2, 2, 3), "float32"), tmp_path, "op 0 (L2_NORMALIZATION)", "rank 5")
    refused(l2_norm_model((1, 33026), "int8"), tmp_path, "op 0 (L2_NORMALIZATION)", "33026 values")
    refused(l2_norm_model((2, 8), "float32", out_dtype="int8"), tmp_path, "op 0 (L2_NORMALIZATION)",
            "int8, the input float32")
    refused(l2_norm_model((), "float32"), tmp_path, "op 0 (L2_NORMALIZATION)", "scalar")


def test_rows_on_cortex_m4(tmp_path):
    run_rows_on_cortex_m4([("L2_NORMALIZATION", "s8"), ("L2_NORMALIZATION", "f32")], tmp_path)
