"""CUMSUM, float32 and int8: one-op models written with the tflite schema, on every host ISA in a
verified plan, bit for bit. float32 against LiteRT's kernel (BUILTIN_REF) and TensorFlow Lite
Micro's interpreter: every axis of ranks 1 to 5 (negative ones too), exclusive and reverse,
size-1 axes, huge values (sums to inf), signed zeros (the exclusive first output is +0.0),
infinities and NaN. int8 as TensorFlow Lite Micro runs it (LiteRT has no int8 kernel, so it
plans under reference "tflm" only): against its interpreter over scales that magnify and shrink,
zero points at both ends, saturating outputs, and an axis long enough that its int32
accumulator wraps as TFLite Micro's does. Hypothesis over shapes, axes and options; the
poisoned arena; refused: int8 under "litert", an axis out of range, an axis that is not a
constant int32, scales whose multiplier TFLite Micro rejects, a type mix. The Cortex-M4 under
QEMU runs both rows' probes."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from harness.reference import litert_layers as L
from norm_ops import check_plans, float_edges, int8_edges, needs_litert, refused, run_rows_on_cortex_m4

S = pytest.importorskip("ai_edge_litert.schema_py_generated")


def cumsum_model(shape, axis, exclusive=False, reverse=False, dtype="float32", q=(0.05, 0, 0.2, 0),
                 axis_dtype="int32", axis_constant=True, out_dtype=None) -> bytes:
    out_dtype = out_dtype or dtype
    o = S.CumsumOptionsT()
    o.exclusive, o.reverse = exclusive, reverse
    x = dict(shape=shape, dtype=dtype, **(dict(scale=q[0], zero_point=q[1]) if dtype == "int8" else {}))
    a = dict(shape=(), dtype=axis_dtype, data=np.array(axis, axis_dtype) if axis_constant else None)
    y = dict(shape=shape, dtype=out_dtype, **(dict(scale=q[2], zero_point=q[3]) if out_dtype == "int8" else {}))
    return L.single_op_model("CUMSUM", [x, a, y], [0, 1], [2], "CumsumOptions", o, version=1)


OPTIONS = list(itertools.product((False, True), (False, True)))


# --- float32 ---------------------------------------------------------------------------------------
@needs_litert
@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4), (2, 1, 3, 4), (2, 2, 1, 3, 2), (1, 1), (4, 1, 1)])
def test_float32_every_axis_matches_litert_and_tflm(shape, tmp_path):
    rank = len(shape)
    for axis in range(-rank, rank):
        for exclusive, reverse in OPTIONS:
            content = cumsum_model(shape, axis, exclusive, reverse)
            check_plans(content, tmp_path, float_edges(shape, rank + axis), "litert", also_tflm=True,
                        name=f"a{axis}{int(exclusive)}{int(reverse)}", poisoned=axis == -1)


@needs_litert
@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=5), data=st.data(), exclusive=st.booleans(),
       reverse=st.booleans(), seed=st.integers(0, 99))
def test_float32_hypothesis(shape, data, exclusive, reverse, seed, tmp_path_factory):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = (np.random.default_rng(seed).standard_normal(shape) * 100).astype(np.float32)
    check_plans(cumsum_model(tuple(shape), axis, exclusive, reverse), tmp_path_factory.mktemp("cs"), [x], "litert",
                poisoned=False)


# --- int8 (TensorFlow Lite Micro's) -----------------------------------------------------------------
#: (shape, axis, (input scale, input zero point, output scale, output zero point))
CASES_S8 = [
    ((3, 5), 1, (0.05, 0, 0.2, 0)),
    ((2, 3, 4), -2, (0.05, 3, 0.25, 1)),
    ((2, 3, 4), 0, (0.1, 127, 0.1, -128)),      # zero points at the ends
    ((4, 6), -1, (0.1, -128, 0.5, 127)),
    ((2, 9), 1, (0.3, 0, 0.01, 0)),             # the output range magnifies: saturation
    ((1, 1), 0, (0.05, -7, 0.05, 9)),
    ((2, 1, 3, 5), 3, (0.02, 5, 1.0, -3)),
]


@pytest.mark.parametrize("case", range(len(CASES_S8)))
def test_int8_matches_tflm(case, tmp_path):
    shape, axis, q = CASES_S8[case]
    for exclusive, reverse in OPTIONS:
        content = cumsum_model(shape, axis, exclusive, reverse, "int8", q)
        check_plans(content, tmp_path, int8_edges(shape, case, q[1]), "tflm", name=f"c{int(exclusive)}{int(reverse)}",
                    poisoned=not exclusive and not reverse)


def test_int8_accumulator_wraps_as_tflm(tmp_path):
    """40 values of 255 steps each, scaled by 2^19: the int32 accumulator passes 2^31 after 16
    and wraps, as TensorFlow Lite Micro's does."""
    shape = (2, 40)
    content = cumsum_model(shape, 1, False, False, "int8", (0.05, -128, 0.4, 0))
    xs = [np.full(shape, 127, np.int8), np.full(shape, -128, np.int8)]
    check_plans(content, tmp_path, xs, "tflm", poisoned=False)


@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=4), data=st.data(), exclusive=st.booleans(),
       reverse=st.booleans(), xs=st.floats(1e-3, 1.0), ys=st.floats(1e-3, 1.0), xz=st.integers(-128, 127),
       yz=st.integers(-128, 127), seed=st.integers(0, 99))
def test_int8_hypothesis(shape, data, exclusive, reverse, xs, ys, xz, yz, seed, tmp_path_factory):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = np.random.default_rng(seed).integers(-128, 128, size=shape, dtype=np.int8)
    check_plans(cumsum_model(tuple(shape), axis, exclusive, reverse, "int8", (xs, xz, ys, yz)),
                tmp_path_factory.mktemp("cs8"), [x], "tflm", poisoned=False)


def test_refusals(tmp_path):
    int8 = cumsum_model((2, 3), 1, dtype="int8")
    refused(int8, tmp_path, "op 0 (CUMSUM)", "LiteRT has no int8 CUMSUM kernel", 'reference "tflm"')
    refused(cumsum_model((2, 3), 2), tmp_path, "op 0 (CUMSUM)", "axis 2 is outside [-2, 2)")
    refused(cumsum_model((2, 3), -3), tmp_path, "op 0 (CUMSUM)", "axis -3 is outside [-2, 2)")
    refused(cumsum_model((2, 3), 1, axis_dtype="int64"), tmp_path, "op 0 (CUMSUM)", "int64",
            "takes an int32 axis")
    refused(cumsum_model((2, 3), 1, axis_constant=False), tmp_path, "op 0 (CUMSUM)", "must be a constant")
    refused(cumsum_model((2, 3), 1, dtype="int8", q=(1.0, 0, 1e-7, 0)), tmp_path, "op 0 (CUMSUM)",
            "output multiplier", "not below 1", reference="tflm")
    refused(cumsum_model((2, 3), 1, out_dtype="int8"), tmp_path, "op 0 (CUMSUM)", "int8, the input float32")
    refused(cumsum_model((), 0), tmp_path, "op 0 (CUMSUM)", "scalar")


def test_rows_on_cortex_m4(tmp_path):
    run_rows_on_cortex_m4([("CUMSUM", "s8"), ("CUMSUM", "f32")], tmp_path)
