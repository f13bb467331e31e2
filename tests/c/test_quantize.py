"""QUANTIZE (float32 -> int8, int8 -> int8) and DEQUANTIZE through the C API against the
NumPy references of TFLite's reference kernels."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ops_harness import Guarded, guarded_from, message, variant_name, variants
from harness.reference import ops
from harness.reference.quant import quantize_multiplier


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
    # NaN, +-inf and |x / scale| >= 2^31: INT32_MIN + zp, as LiteRT gives (-128 for zp >= 0)
    assert list(q[:5]) == [-128] * 5 and list(q[7:]) == [4, 2, 5, 1, 6]
    q = call(ffi, lib, "quantize_s8", affine(ffi, x.size, 1.0, -3), x, np.int8)
    np.testing.assert_array_equal(q, ops.quantize(x, 1.0, -3))
    assert list(q[:5]) == [127] * 5      # INT32_MIN - 3 wraps to INT32_MAX - 2


#: Floats whose quantised value TFLite's reference kernel leaves to the C++ cast.
EDGES = np.array([np.inf, -np.inf, np.nan, 1e30, -1e30, 3.4e38, -3.4e38, 3e9, -3e9, 2.2e9, -2.2e9,
                  2.1e9, -2.1e9, 2147483520.0, -2147483648.0, 1000.0, -1000.0, 127.4, -128.6, 1e-30],
                 dtype=np.float32)


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

from harness.reference import litert_layers as L  # noqa: E402

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


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
@pytest.mark.parametrize("zp", [0, 5, -5, 127, -128])
@pytest.mark.parametrize("scale", [1.0, 1e-3, 3e4])
def test_litert_quantize_of_non_finite_and_out_of_range_floats(ffi, lib, zp, scale):
    model = L.single_op_model("QUANTIZE", [dict(shape=(EDGES.size,), dtype="float32"),
                                           dict(shape=(EDGES.size,), dtype="int8", scale=scale, zero_point=zp)],
                              [0], [1])
    want = np.asarray(L.run_single_op(model, [EDGES])).reshape(-1)
    got = call(ffi, lib, "quantize_s8", affine(ffi, EDGES.size, scale, zp), EDGES, np.int8)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ops.quantize(EDGES, scale, zp), want)


# ---- requantisation between integer types (QUANTIZE int16 -> int8 | int16 | int32, ...) ----

PAIRS = [(np.int8, np.int8), (np.int16, np.int8), (np.int16, np.int16), (np.int16, np.int32),
         (np.int32, np.int8), (np.int32, np.int16), (np.int8, np.int16), (np.int8, np.int32)]
_DTYPE = {np.int8: "AP_DTYPE_INT8", np.int16: "AP_DTYPE_INT16", np.int32: "AP_DTYPE_INT32"}


def typed(ffi, lib, count, zin, zout, m, s, tin, tout):
    p = requant(ffi, count, zin, zout, m, s)
    p.input_type, p.output_type = getattr(lib, _DTYPE[tin]), getattr(lib, _DTYPE[tout])
    return p


def call_typed(ffi, lib, p, x, out_dtype, out_alias=False):
    inp = guarded_from(ffi, x)
    out = inp if out_alias else Guarded(ffi, x.size * np.dtype(out_dtype).itemsize, fill=0x3C)
    vs = variants(ffi, lib, lib.ap_requantize_s8_variants, p)
    assert [variant_name(ffi, v) for v in vs] == ["direct"] and vs[0].scratch_count == 0
    assert vs[0].in_place == (np.dtype(out_dtype).itemsize <= x.dtype.itemsize) and vs[0].macs == x.size
    err = ffi.new("ap_error *")
    status = lib.ap_requantize_run(p, vs[0], inp.ptr, out.ptr, ffi.NULL, 0, err)
    assert status == lib.AP_OK, message(ffi, err)
    assert inp.intact() and out.intact()
    return out.view(out_dtype)[:x.size].copy()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=st.sampled_from(PAIRS), n=st.integers(1, 200), ratio=st.floats(1e-6, 1e3),
       seed=st.integers(0, 2 ** 31), data=st.data())
def test_requantize_between_types(ffi, lib, pair, n, ratio, seed, data):
    tin, tout = pair
    i_in, i_out = np.iinfo(tin), np.iinfo(tout)
    zin = data.draw(st.integers(int(i_in.min), int(i_in.max)))
    zout = data.draw(st.integers(int(i_out.min), int(i_out.max)))
    rng = np.random.default_rng(seed)
    x = rng.integers(i_in.min, i_in.max, n, dtype=tin, endpoint=True)
    x[: min(n, 4)] = np.array([i_in.min, i_in.max, 0, zin], dtype=np.int64)[: min(n, 4)].astype(tin)
    m, s = quantize_multiplier(ratio)
    expected = ops.requantize_int(x, zin, zout, m, s, tout)
    p = typed(ffi, lib, n, zin, zout, m, s, tin, tout)
    np.testing.assert_array_equal(call_typed(ffi, lib, p, x, tout), expected)
    if np.dtype(tout).itemsize <= np.dtype(tin).itemsize:
        np.testing.assert_array_equal(call_typed(ffi, lib, p, x, tout, out_alias=True), expected)


def test_requantize_types_bad_input(ffi, lib):
    err = ffi.new("ap_error *")
    p = typed(ffi, lib, 4, 0, 0, 1 << 30, 0, np.int16, np.int8)
    v = variants(ffi, lib, lib.ap_requantize_s8_variants, p)[0]
    buf = ffi.new("int32_t[]", 8)
    assert lib.ap_requantize_run(p, v, buf, buf, ffi.NULL, 0, err) == lib.AP_OK
    # int8 -> int8 only through the typed entry point
    assert lib.ap_requantize_s8_run(p, v, ffi.cast("int8_t *", buf), ffi.cast("int8_t *", buf), ffi.NULL, 0,
                                    err) == lib.AP_ERR_INVALID_ARGUMENT
    assert "ap_requantize_run" in message(ffi, err)
    odd = ffi.cast("char *", buf) + 1
    assert lib.ap_requantize_run(p, v, odd, buf, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert "aligned" in message(ffi, err)
    for bad, words in [(typed(ffi, lib, 4, 0, 0, 1, 0, np.int32, np.int32), "int32 (type 2) -> int32"),
                       (typed(ffi, lib, 4, 40000, 0, 1, 0, np.int16, np.int8), "zero points"),
                       (typed(ffi, lib, 4, 0, 200, 1, 0, np.int16, np.int8), "zero points")]:
        assert lib.ap_requantize_run(bad, v, buf, buf, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
        assert words in message(ffi, err), message(ffi, err)
    bad = typed(ffi, lib, 4, 0, 0, 1, 0, np.int16, np.int8)
    bad.input_type = 7
    n = ffi.new("uint32_t *")
    assert lib.ap_requantize_s8_variants(bad, lib.AP_ISA_PORTABLE, ffi.NULL, 0, n, err) == lib.AP_ERR_INVALID_ARGUMENT


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
def test_litert_requantize_between_types(ffi, lib):
    rng = np.random.default_rng(23)
    names = {np.int8: "int8", np.int16: "int16", np.int32: "int32"}
    for tin, tout in [p for p in PAIRS[1:] if p != (np.int8, np.int32)] * 3:   # LiteRT: no int8 -> int32
        n = int(rng.integers(1, 120))
        si, so = (float(np.float32(np.exp(rng.uniform(-9, 1)))) for _ in range(2))
        i_in, i_out = np.iinfo(tin), np.iinfo(tout)
        zi = 0 if tin == tout == np.int16 else int(rng.integers(max(i_in.min, -40000), min(i_in.max, 40000)))
        zo = 0 if tin == tout == np.int16 else int(rng.integers(max(i_out.min, -40000), min(i_out.max, 40000)))
        x = rng.integers(i_in.min, i_in.max, n, dtype=tin, endpoint=True)
        model = L.single_op_model("QUANTIZE", [dict(shape=(n,), dtype=names[tin], scale=si, zero_point=zi),
                                               dict(shape=(n,), dtype=names[tout], scale=so, zero_point=zo)],
                                  [0], [1])
        want = L.run_single_op(model, [x])[0]
        m, s = quantize_multiplier(float(np.float64(si) / np.float64(so)))
        np.testing.assert_array_equal(ops.requantize_int(x, zi, zo, m, s, tout), want,
                                      err_msg=f"{tin} -> {tout}")
        got = call_typed(ffi, lib, typed(ffi, lib, n, zi, zo, m, s, tin, tout), x, tout)
        np.testing.assert_array_equal(got, want, err_msg=f"{tin} -> {tout}")
