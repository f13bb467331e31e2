"""QUANTIZE (float32 -> int8, int8 -> int8) and DEQUANTIZE through the C API against the
NumPy references of TFLite's reference kernels."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ops_harness import Guarded, guarded_from, message, variant_name, variants
from reference import ops
from reference.quant import quantize_multiplier


def affine(ffi, count, scale, zp):
    p = ffi.new("ap_affine_quant_params *")
    p.count, p.scale, p.zero_point = count, scale, zp
    return p


def requant(ffi, count, zin, zout, m, s):
    p = ffi.new("ap_requantize_params *")
    p.count, p.input_zero_point, p.output_zero_point, p.multiplier, p.shift = count, zin, zout, m, s
    return p


def call(ffi, lib, op, p, x, out_dtype, out_alias=False):
    inp = guarded_from(ffi, x)
    out = inp if out_alias else Guarded(ffi, x.size * np.dtype(out_dtype).itemsize, fill=0x3C)
    vs = variants(ffi, lib, getattr(lib, f"ap_{op}_variants"), p)
    assert [variant_name(ffi, v) for v in vs] == ["direct"] and vs[0].scratch_count == 0
    assert vs[0].in_place == (1 if op == "requantize_s8" else 0) and vs[0].macs == x.size
    err = ffi.new("ap_error *")
    in_t = "float *" if x.dtype == np.float32 else "int8_t *"
    out_t = "float *" if out_dtype == np.float32 else "int8_t *"
    status = getattr(lib, f"ap_{op}_run")(p, vs[0], ffi.cast(in_t, inp.ptr), ffi.cast(out_t, out.ptr),
                                          ffi.NULL, 0, err)
    assert status == lib.AP_OK, message(ffi, err)
    assert inp.intact() and out.intact()
    return out.view(out_dtype)[:x.size].copy()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 300), scale=st.floats(1e-4, 10.0), zp=st.integers(-128, 127), seed=st.integers(0, 2 ** 31))
def test_quantize_dequantize_random(ffi, lib, n, scale, zp, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * scale * 100).astype(np.float32)
    # exact halves (the rounding cases)
    x[: n // 4] = ((rng.integers(-300, 300, n // 4) + 0.5) * np.float32(scale)).astype(np.float32)
    q = call(ffi, lib, "quantize_s8", affine(ffi, n, scale, zp), x, np.int8)
    np.testing.assert_array_equal(q, ops.quantize(x, scale, zp))
    y = call(ffi, lib, "dequantize_s8", affine(ffi, n, scale, zp), q, np.float32)
    np.testing.assert_array_equal(y, ops.dequantize(q, scale, zp))


def test_quantize_special_values(ffi, lib):
    x = np.array([np.nan, np.inf, -np.inf, 3e38, -3e38, 0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5], dtype=np.float32)
    q = call(ffi, lib, "quantize_s8", affine(ffi, x.size, 1.0, 3), x, np.int8)
    np.testing.assert_array_equal(q, ops.quantize(x, 1.0, 3))
    assert list(q[:5]) == [3, 127, -128, 127, -128] and list(q[7:]) == [4, 2, 5, 1, 6]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 300), s_in=st.floats(1e-3, 1.0), s_out=st.floats(1e-3, 1.0),
       zin=st.integers(-128, 127), zout=st.integers(-128, 127), seed=st.integers(0, 2 ** 31))
def test_requantize_random(ffi, lib, n, s_in, s_out, zin, zout, seed):
    x = np.random.default_rng(seed).integers(-128, 128, n, dtype=np.int8)
    m, s = quantize_multiplier(float(np.float32(s_in)) / float(np.float32(s_out)))
    expected = ops.requantize_s8(x, zin, zout, m, s)
    np.testing.assert_array_equal(call(ffi, lib, "requantize_s8", requant(ffi, n, zin, zout, m, s), x, np.int8), expected)
    np.testing.assert_array_equal(call(ffi, lib, "requantize_s8", requant(ffi, n, zin, zout, m, s), x, np.int8,
                                       out_alias=True), expected)


def test_bad_input(ffi, lib):
    err = ffi.new("ap_error *")
    p = affine(ffi, 4, 0.5, 0)
    v = variants(ffi, lib, lib.ap_quantize_s8_variants, p)[0]
    f = ffi.new("float[]", 4)
    b = ffi.new("int8_t[]", 4)
    assert lib.ap_quantize_s8_run(p, v, f, b, ffi.NULL, 0, err) == lib.AP_OK
    for bad in [affine(ffi, 0, 0.5, 0), affine(ffi, 4, 0.0, 0), affine(ffi, 4, float("nan"), 0),
                affine(ffi, 4, float("inf"), 0), affine(ffi, 4, -1.0, 0), affine(ffi, 4, 0.5, 128), ffi.NULL]:
        assert lib.ap_quantize_s8_run(bad, v, f, b, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
        assert lib.ap_dequantize_s8_run(bad, v, b, f, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_quantize_s8_run(p, ffi.NULL, f, b, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_quantize_s8_run(p, v, ffi.NULL, b, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_dequantize_s8_run(p, v, b, ffi.NULL, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_quantize_s8_run(affine(ffi, 2 ** 63, 0.5, 0), v, f, b, ffi.NULL, 0, err) == lib.AP_ERR_OVERFLOW
    for bad in [requant(ffi, 4, 0, 0, -1, 0), requant(ffi, 4, 0, 0, 1 << 30, 32), requant(ffi, 4, -129, 0, 1, 0),
                requant(ffi, 0, 0, 0, 1, 0)]:
        assert lib.ap_requantize_s8_run(bad, v, b, b, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    wrong = ffi.new("ap_variant *", v[0])
    wrong.kind = 1
    assert lib.ap_quantize_s8_run(p, wrong, f, b, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT


# ---- LiteRT reference kernels on single-op models ----

import pytest  # noqa: E402

from reference import litert_layers as L  # noqa: E402

_LITERT = L.unavailable_reason()


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
def test_litert_quantize_dequantize_requantize(ffi, lib):
    rng = np.random.default_rng(17)
    for trial in range(10):
        n = int(rng.integers(1, 200))
        sc, zp = float(np.float32(rng.uniform(1e-3, 2))), int(rng.integers(-128, 128))
        x = (rng.standard_normal(n) * sc * 80).astype(np.float32)
        x[: n // 3] = ((rng.integers(-200, 200, n // 3) + 0.5) * np.float32(sc)).astype(np.float32)
        model = L.single_op_model("QUANTIZE", [dict(shape=(n,), dtype="float32"),
                                               dict(shape=(n,), dtype="int8", scale=sc, zero_point=zp)], [0], [1])
        q = L.run_single_op(model, [x])[0]
        np.testing.assert_array_equal(call(ffi, lib, "quantize_s8", affine(ffi, n, sc, zp), x, np.int8), q)
        model = L.single_op_model("DEQUANTIZE", [dict(shape=(n,), dtype="int8", scale=sc, zero_point=zp),
                                                 dict(shape=(n,), dtype="float32")], [0], [1])
        f = L.run_single_op(model, [q])[0]
        np.testing.assert_array_equal(call(ffi, lib, "dequantize_s8", affine(ffi, n, sc, zp), q, np.float32), f)
        so, zo = float(np.float32(rng.uniform(1e-3, 2))), int(rng.integers(-128, 128))
        model = L.single_op_model("QUANTIZE", [dict(shape=(n,), dtype="int8", scale=sc, zero_point=zp),
                                               dict(shape=(n,), dtype="int8", scale=so, zero_point=zo)], [0], [1])
        r = L.run_single_op(model, [q])[0]
        m, s = quantize_multiplier(float(np.float64(sc) / np.float64(so)))
        np.testing.assert_array_equal(call(ffi, lib, "requantize_s8", requant(ffi, n, zp, zo, m, s), q, np.int8), r)
