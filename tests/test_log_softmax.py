"""LOG_SOFTMAX, int8 and float32: one-op models written with the tflite schema, every variant
(int8: direct and exp_table) on every host ISA in a verified plan, against LiteRT's reference
kernels (BUILTIN_REF) and TensorFlow Lite Micro's interpreter. int8: input scales from 1e-3 to
20 and zero points at both ends, all-equal rows, rows of one value, a row long enough that the
Q12.19 sum of exps wraps (as both references' int32 sums wrap), -128 and 127 side by side;
float32: 0 ulp from LiteRT on this host (both call glibc's expf / logf) over normal, huge, tiny,
all-equal, infinite and NaN inputs, and within the bound docs/coverage.md states on a
Cortex-M4 with newlib under QEMU; hypothesis over shapes and scales; the exp_table scratch
exactly and one byte short through the C API (offered above 256 values, where it pays); the
poisoned arena; output quantisations TFLite
refuses, refused."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from harness.reference import litert_layers as L
from norm_ops import (assert_same, check_plans, float_edges, int8_edges, needs_litert, refused,
                      run_rows_on_cortex_m4, wants_of)

sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
from ops_harness import Guarded, guarded_from, message, scratch_for, variants  # noqa: E402

S = pytest.importorskip("ai_edge_litert.schema_py_generated")

S8_VARIANTS = ("direct", "exp_table")


def s8_variants(shape) -> tuple:
    """The int8 row's variants: exp_table where the tensor holds more values than its 256 entries."""
    return S8_VARIANTS if int(np.prod(shape)) > 256 else S8_VARIANTS[:1]


def log_softmax_model(shape, dtype="int8", xs=0.1, xz=0, ys=16 / 256, yz=127) -> bytes:
    q = dtype == "int8"
    tensors = [dict(shape=shape, dtype=dtype, **(dict(scale=xs, zero_point=xz) if q else {})),
               dict(shape=shape, dtype=dtype, **(dict(scale=ys, zero_point=yz) if q else {}))]
    return L.single_op_model("LOG_SOFTMAX", tensors, [0], [1], "LogSoftmaxOptions", S.LogSoftmaxOptionsT(),
                             version=2 if q else 1)


# --- int8 ------------------------------------------------------------------------------------------
#: (shape, input scale, input zero point)
CASES_S8 = [
    ((1, 10), 0.1, 0),
    ((3, 50), 0.05, -3),
    ((2, 3, 4, 7), 1.0 / 16, 127),     # zero point at the top
    ((5, 33), 0.25, -128),             # at the bottom
    ((4, 1), 0.1, 5),                  # one value a row: log 1 = 0
    ((1, 1), 0.1, 5),
    ((2, 300), 0.001, 0),              # a fine scale: every difference counts
    ((2, 64), 20.0, 10),               # a coarse one: diff_min cuts all but the maximum
    ((7,), 0.5, 0),                    # rank 1
    ((3, 2, 1, 1, 6), 0.08, 3),        # rank 5
]


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES_S8)))
def test_int8_matches_litert_and_tflm(case, tmp_path):
    shape, xs, xz = CASES_S8[case]
    content = log_softmax_model(shape, "int8", xs, xz)
    xs_in = int8_edges(shape, case, xz)
    check_plans(content, tmp_path, xs_in, "litert", s8_variants(shape), also_tflm=True)
    check_plans(content, tmp_path, xs_in, "tflm", s8_variants(shape), name="t", poisoned=False)


@needs_litert
@pytest.mark.parametrize("depth", [4096, 4097, 5000])
def test_int8_sum_of_exps_wraps_as_tflite(depth, tmp_path):
    """All-equal rows of more than 2^12 values: the Q12.19 sum passes 2^31 and wraps in both
    references' int32 arithmetic; arenaplan wraps the same way."""
    content = log_softmax_model((2, depth), "int8", 0.1, 0)
    xs = [np.full((2, depth), 3, np.int8), np.resize(np.array([3, 3, 3, 2], np.int8), (2, depth))]
    check_plans(content, tmp_path, xs, "litert", S8_VARIANTS, also_tflm=True, poisoned=False)


@needs_litert
@settings(max_examples=30, deadline=None)
@given(rows=st.integers(1, 4), depth=st.integers(1, 300), xs=st.floats(1e-3, 30.0), xz=st.integers(-128, 127),
       seed=st.integers(0, 2 ** 16))
def test_int8_hypothesis(rows, depth, xs, xz, seed, tmp_path_factory):
    rng = np.random.default_rng(seed)
    shape = (rows, depth)
    inputs = [rng.integers(-128, 128, size=shape, dtype=np.int8),
              np.clip(xz + rng.integers(-6, 7, size=shape), -128, 127).astype(np.int8)]
    check_plans(log_softmax_model(shape, "int8", xs, xz), tmp_path_factory.mktemp("ls"), inputs, "litert",
                s8_variants(shape), poisoned=False)


def test_exp_table_scratch_exactly_and_one_byte_short(ffi, lib, tmp_path):
    """Through the C API: exp_table writes LiteRT's output with exactly its 1 KiB of scratch
    between guard bytes (and in place over its input); with one byte less it is
    AP_ERR_SCRATCH_TOO_SMALL naming 1024 and 1023 and writes nothing."""
    from arenaplan.planning.context import PlanContext
    from unary_s8 import load
    shape = (3, 100)
    content = log_softmax_model(shape, "int8", 0.07, -5)
    (kernel,) = PlanContext.build(load(content, tmp_path), isa="portable", reference="litert").kernels
    p = ffi.new("ap_log_softmax_params *")
    for key, value in kernel.spec.items():
        setattr(p, key, value)
    x = np.random.default_rng(1).integers(-128, 128, size=shape, dtype=np.int8)
    want = wants_of(content, [x], "litert")[0][0].reshape(-1)
    listed = variants(ffi, lib, lib.ap_log_softmax_s8_variants, p)
    assert [ffi.string(v.name).decode() for v in listed] == list(S8_VARIANTS)
    v = listed[1]
    assert v.scratch_count == 1 and v.scratch[0].bytes == 1024
    for short in (None, 0):
        for in_place in (False, True):
            inp = guarded_from(ffi, x.reshape(-1))
            out = inp if in_place else Guarded(ffi, x.size, fill=0x5A)
            before = out.payload.copy()
            scr, bufs = scratch_for(ffi, v, short)
            call = ffi.new("ap_op_call *")
            ins = ffi.new("void *[]", [inp.ptr])
            call.params, call.variant, call.inputs, call.input_count = p, v, ins, 1
            call.output, call.scratch, call.scratch_count = out.ptr, scr, v.scratch_count
            err = ffi.new("ap_error *")
            status = lib.ap_log_softmax_s8_run(call, lib.AP_ISA_PORTABLE, err)
            assert inp.intact() and out.intact() and all(b.intact() for b in bufs)
            if short is None:
                assert status == lib.AP_OK, message(ffi, err)
                np.testing.assert_array_equal(out.view(np.int8), want)
            else:
                assert status == lib.AP_ERR_SCRATCH_TOO_SMALL
                assert err.needed == 1024 and err.available == 1023, message(ffi, err)
                np.testing.assert_array_equal(out.payload, before)
    # 256 values or fewer: exp_table is not offered, and a run asked for it is refused
    p.outer_size = 2
    p.depth = 128
    assert [ffi.string(v.name).decode() for v in variants(ffi, lib, lib.ap_log_softmax_s8_variants, p)] == ["direct"]
    inp, out = guarded_from(ffi, x.reshape(-1)[:256]), Guarded(ffi, 256, fill=0x5A)
    scr, bufs = scratch_for(ffi, v, None)
    call = ffi.new("ap_op_call *")
    ins = ffi.new("void *[]", [inp.ptr])
    call.params, call.variant, call.inputs, call.input_count = p, v, ins, 1
    call.output, call.scratch, call.scratch_count = out.ptr, scr, v.scratch_count
    err = ffi.new("ap_error *")
    assert lib.ap_log_softmax_s8_run(call, lib.AP_ISA_PORTABLE, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert "exp_table applies to more than 256 values, not 256" in message(ffi, err)
    assert out.intact() and (out.payload == 0x5A).all()


@pytest.mark.parametrize("ys, yz, what", [(1 / 256, 127, "scale"), (16 / 256, 0, "zero point"),
                                          (16 / 256, -128, "zero point")])
def test_int8_output_quantisation_tflite_refuses(ys, yz, what, tmp_path):
    refused(log_softmax_model((2, 8), "int8", 0.1, 0, ys, yz), tmp_path, "op 0 (LOG_SOFTMAX)",
            "scale 16/256 (0.0625) and zero point 127")


def test_int8_refusals(tmp_path):
    refused(log_softmax_model((2, 8), "int8", 1e-9, 0), tmp_path, "op 0 (LOG_SOFTMAX)", "below 2^-26")
    tensors = [dict(shape=(2, 8), dtype="int8", scale=0.1, zero_point=0), dict(shape=(2, 8), dtype="float32")]
    content = L.single_op_model("LOG_SOFTMAX", tensors, [0], [1], "LogSoftmaxOptions", S.LogSoftmaxOptionsT())
    refused(content, tmp_path, "op 0 (LOG_SOFTMAX)", "float32, the input int8")
    tensors = [dict(shape=(2, 8), dtype="int16", scale=0.1, zero_point=0),
               dict(shape=(2, 8), dtype="int16", scale=0.1, zero_point=0)]
    content = L.single_op_model("LOG_SOFTMAX", tensors, [0], [1], "LogSoftmaxOptions", S.LogSoftmaxOptionsT())
    refused(content, tmp_path, "op 0 (LOG_SOFTMAX)", "int16", "takes int8, float32")


# --- float32 ---------------------------------------------------------------------------------------
SHAPES_F32 = [(1, 10), (3, 50), (2, 3, 4, 7), (4, 1), (1, 1), (7,), (2, 1000), (3, 2, 1, 1, 6)]


@needs_litert
@pytest.mark.parametrize("shape", SHAPES_F32)
def test_float32_matches_litert_and_tflm(shape, tmp_path):
    """0 ulp: LiteRT and this build both call glibc's expf and logf."""
    check_plans(log_softmax_model(shape, "float32"), tmp_path, float_edges(shape, len(shape)), "litert",
                also_tflm=True)


@needs_litert
def test_float32_many_rows_zero_ulp(tmp_path):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((64, 16, 64)) * rng.uniform(0.01, 30, size=(64, 16, 1))).astype(np.float32)
    content = log_softmax_model((16, 64), "float32")
    check_plans(content, tmp_path, [x[i] for i in range(64)], "litert", poisoned=False)
    print(f"\nLOG_SOFTMAX float32: {x.size} outputs, 0 ulp from LiteRT")


@needs_litert
@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 5), depth=st.integers(1, 200), scale=st.floats(1e-3, 100.0), seed=st.integers(0, 2 ** 16))
def test_float32_hypothesis(rows, depth, scale, seed, tmp_path_factory):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((rows, depth)) * scale).astype(np.float32)
    check_plans(log_softmax_model((rows, depth), "float32"), tmp_path_factory.mktemp("lsf"), [x], "litert",
                poisoned=False)


def test_float32_type_mix_refused(tmp_path):
    tensors = [dict(shape=(2, 8), dtype="float32"), dict(shape=(2, 8), dtype="int8", scale=16 / 256, zero_point=127)]
    content = L.single_op_model("LOG_SOFTMAX", tensors, [0], [1], "LogSoftmaxOptions", S.LogSoftmaxOptionsT())
    refused(content, tmp_path, "op 0 (LOG_SOFTMAX)", "int8, the input float32")


# --- the Cortex-M4 -----------------------------------------------------------------------------
#: newlib's expf / logf on a Cortex-M4 against LiteRT (glibc) on this host, as measured over
#: 65,536 outputs by test_float32_newlib_within_ulp_bound (docs/coverage.md states it).
NEWLIB_ULP_BOUND = 6


def test_float32_newlib_within_ulp_bound(tmp_path):
    """The Cortex-M4 build (hard float, newlib) of a float32 LOG_SOFTMAX stays within
    NEWLIB_ULP_BOUND of LiteRT over 65,536 outputs: rows at scales from 0.01 to 30."""
    from test_float32 import _run_m4, ulp_diff
    k = 64   # the firmware harness holds 4 KiB of output a sample: 16 rows of 64
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((k, 16, 64)) * rng.uniform(0.01, 30, size=(k, 16, 1))).astype(np.float32)
    content = log_softmax_model((16, 64), "float32")
    samples = [[x[i]] for i in range(k)]
    wants = L.run_sequence(content, samples)[0]
    worst = differ = 0
    for got, want in zip(_run_m4(content, samples, tmp_path), wants):
        worst = max(worst, ulp_diff(got, want[0]))
        differ += int((got.view(np.uint32) != want[0].view(np.uint32)).sum())
    print(f"\nLOG_SOFTMAX float32 on the Cortex-M4 (newlib): {differ} of {x.size} outputs differ from LiteRT, "
          f"at most {worst} ulp")
    assert worst <= NEWLIB_ULP_BOUND


def test_rows_on_cortex_m4(tmp_path):
    """Both rows' probes, every arm-dsp variant, under QEMU: the int8 row bit for bit, the float32
    row within the bound docs/coverage.md states."""
    worst = run_rows_on_cortex_m4([("LOG_SOFTMAX", "s8"), ("LOG_SOFTMAX", "f32")], tmp_path)
    print(f"\nLOG_SOFTMAX on the Cortex-M4: {worst}")
