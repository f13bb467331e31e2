"""SOFTMAX int8 through the C API against the NumPy/Python reference of TFLite's
reference_ops::Softmax<int8, int8> (gemmlowp fixed point), both variants."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ops_harness import Guarded, cpu, cpu_levels, guarded_from, message, scratch_for, variant_name, variants
from harness.reference import ops


def make(ffi, outer, depth, fields):
    p = ffi.new("ap_softmax_params *")
    p.outer_size, p.depth = outer, depth
    for k, v in fields.items():
        setattr(p, k, int(v))
    return p


def run(ffi, lib, p, x, v, short=None):
    inp = guarded_from(ffi, x)
    out = Guarded(ffi, x.size, fill=0x42)
    scr, bufs = scratch_for(ffi, v, short)
    err = ffi.new("ap_error *")
    status = lib.ap_softmax_s8_run(p, v, ffi.cast("int8_t *", inp.ptr), ffi.cast("int8_t *", out.ptr), scr,
                                   v.scratch_count, err)
    assert inp.intact() and out.intact() and all(b.intact() for b in bufs)
    return status, out.view(np.int8).reshape(x.shape).copy(), err


def check(ffi, lib, x, beta, scale):
    fields = ops.softmax_params(beta, scale)
    p = make(ffi, int(np.prod(x.shape[:-1])), x.shape[-1], fields)
    expected = ops.softmax(x, fields)
    vs = variants(ffi, lib, lib.ap_softmax_s8_variants, p)
    assert [variant_name(ffi, v) for v in vs] == ["direct", "exp_cache"]
    assert vs[1].scratch_count == 1 and vs[1].scratch[0].bytes == 4 * x.shape[-1]
    for level in cpu_levels(lib):
        with cpu(lib, level):
            for v in vs:
                status, got, err = run(ffi, lib, p, x, v)
                assert status == lib.AP_OK, message(ffi, err)
                np.testing.assert_array_equal(got, expected)
    status, _, err = run(ffi, lib, p, x, vs[1], short=0)
    assert status == lib.AP_ERR_SCRATCH_TOO_SMALL and err.needed == 4 * x.shape[-1]
    return expected


def test_reference_exp_is_exp():
    """Sanity of the reference itself: gemmlowp exp within 1e-6 of math.exp."""
    for k in range(0, 32 * (1 << 26), 12345677):
        a = -k
        got = ops.exp_on_negative_values(a) / 2 ** 31
        assert abs(got - math.exp(a / 2 ** 26)) < 2e-6


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(outer=st.integers(1, 4), depth=st.integers(1, 40), beta=st.sampled_from([1.0, 0.5, 2.0, 0.1]),
       scale=st.floats(1e-3, 1.0), seed=st.integers(0, 2 ** 31), spread=st.integers(1, 255))
def test_random_rows(ffi, lib, outer, depth, beta, scale, seed, spread):
    rng = np.random.default_rng(seed)
    lo = int(rng.integers(-128, 128 - min(spread, 255) + 1)) if spread < 255 else -128
    x = rng.integers(lo, min(lo + spread, 127) + 1, size=(outer, depth)).astype(np.int8)
    check(ffi, lib, x, beta, scale)


@pytest.mark.parametrize("shape,scale", [((1, 12), 0.0390625), ((1, 2), 0.1), ((1, 10), 0.25), ((3, 1), 0.5),
                                         ((1, 1000), 0.07), ((2, 511), 0.001)])
def test_named_rows(ffi, lib, shape, scale):
    rng = np.random.default_rng(11)
    x = rng.integers(-128, 128, size=shape, dtype=np.int8)
    out = check(ffi, lib, x, 1.0, scale)
    probs = (out.astype(np.float64) + 128) / 256
    xi = x.astype(np.int64)
    exact = np.exp(scale * (xi - xi.max(axis=-1, keepdims=True)))
    exact /= exact.sum(axis=-1, keepdims=True)
    assert np.abs(probs - exact).max() <= 1.5 / 256


def test_constant_row_and_extremes(ffi, lib):
    for row in ([0] * 7, [-128] * 3, [127, -128], [127] * 300):
        check(ffi, lib, np.array([row], dtype=np.int8), 1.0, 0.2)


def test_bad_input(ffi, lib):
    fields = ops.softmax_params(1.0, 0.1)
    p = make(ffi, 1, 4, fields)
    v = variants(ffi, lib, lib.ap_softmax_s8_variants, p)[0]
    err = ffi.new("ap_error *")
    x = ffi.new("int8_t[]", 4)
    out = ffi.new("int8_t[]", 4)
    assert lib.ap_softmax_s8_run(p, v, x, out, ffi.NULL, 0, err) == lib.AP_OK
    assert lib.ap_softmax_s8_run(ffi.NULL, v, x, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_softmax_s8_run(p, ffi.NULL, x, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_softmax_s8_run(p, v, ffi.NULL, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    for field, value in [("depth", 0), ("outer_size", -1), ("input_beta_left_shift", 32), ("diff_min", 1),
                         ("input_beta_multiplier", -5)]:
        q = make(ffi, 1, 4, dict(fields, **{field: value}) if field in fields else fields)
        if field in ("depth", "outer_size"):
            setattr(q, field, value)
        assert lib.ap_softmax_s8_run(q, v, x, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT, field
    q = make(ffi, 2 ** 31 - 1, 2 ** 31 - 1, fields)
    if ffi.sizeof("size_t") == 4:
        assert lib.ap_softmax_s8_run(q, v, x, out, ffi.NULL, 0, err) == lib.AP_ERR_OVERFLOW
    cache = variants(ffi, lib, lib.ap_softmax_s8_variants, p)[1]
    assert lib.ap_softmax_s8_run(p, cache, x, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    wrong = ffi.new("ap_variant *", v[0])
    wrong.kind = 9
    assert lib.ap_softmax_s8_run(p, wrong, x, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT


# ---- real layers: LiteRT reference kernels on the shared models ----

from harness.reference import litert_layers as L  # noqa: E402

_LITERT = L.unavailable_reason()


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
def test_litert_layers_bit_exact(ffi, lib):
    layers = L.layers({"SOFTMAX"})
    assert len(layers) >= 6
    assert any(layer.outputs[0].dtype == np.int16 for layer in layers)   # the keyword model's
    for layer in layers:
        x, y = layer.inputs[0], layer.outputs[0]
        assert L.zero_point_of(layer.output_q[0]) == (-128 if y.dtype == np.int8 else -32768)
        fields = ops.softmax_params(layer.options.Beta(), L.scale_of(layer.input_q[0]))
        x2 = x.reshape(-1, x.shape[-1])
        np.testing.assert_array_equal(ops.softmax(x2, fields, y.dtype), y.reshape(x2.shape),
                                      err_msg=f"reference vs LiteRT {layer.name}")
        check_out = check16 if y.dtype == np.int16 else check
        got = check_out(ffi, lib, x2, layer.options.Beta(), L.scale_of(layer.input_q[0]))
        np.testing.assert_array_equal(got, y.reshape(x2.shape), err_msg=layer.name)


# ---- int8 -> int16 output ----

def run16(ffi, lib, p, x, v, short=None):
    inp = guarded_from(ffi, x)
    out = Guarded(ffi, 2 * x.size, fill=0x42)
    scr, bufs = scratch_for(ffi, v, short)
    err = ffi.new("ap_error *")
    status = lib.ap_softmax_s8_s16_run(p, v, ffi.cast("int8_t *", inp.ptr), ffi.cast("int16_t *", out.ptr), scr,
                                       v.scratch_count, err)
    assert inp.intact() and out.intact() and all(b.intact() for b in bufs)
    return status, out.view(np.int16).reshape(x.shape).copy(), err


def check16(ffi, lib, x, beta, scale):
    fields = dict(ops.softmax_params(beta, scale), output_type=lib.AP_DTYPE_INT16)
    p = make(ffi, int(np.prod(x.shape[:-1])), x.shape[-1], fields)
    expected = ops.softmax(x, fields, np.int16)
    vs = variants(ffi, lib, lib.ap_softmax_s8_variants, p)
    assert [variant_name(ffi, v) for v in vs] == ["direct", "exp_cache"]
    for level in cpu_levels(lib):
        with cpu(lib, level):
            for v in vs:
                status, got, err = run16(ffi, lib, p, x, v)
                assert status == lib.AP_OK, message(ffi, err)
                np.testing.assert_array_equal(got, expected)
    status, _, err = run16(ffi, lib, p, x, vs[1], short=0)
    assert status == lib.AP_ERR_SCRATCH_TOO_SMALL
    return expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(outer=st.integers(1, 4), depth=st.integers(1, 40), beta=st.sampled_from([1.0, 0.5, 2.0]),
       scale=st.floats(1e-3, 1.0), seed=st.integers(0, 2 ** 31))
def test_int16_output_random_rows(ffi, lib, outer, depth, beta, scale, seed):
    x = np.random.default_rng(seed).integers(-128, 128, size=(outer, depth)).astype(np.int8)
    out = check16(ffi, lib, x, beta, scale)
    probs = (out.astype(np.float64) + 32768) / 65536
    xi = x.astype(np.int64)
    exact = np.exp(np.float32(scale) * beta * (xi - xi.max(axis=-1, keepdims=True)))
    exact /= exact.sum(axis=-1, keepdims=True)
    assert np.abs(probs - exact).max() <= 2e-3


def test_int16_output_entry_points_check_the_type(ffi, lib):
    fields = ops.softmax_params(1.0, 0.1)
    p8 = make(ffi, 1, 4, fields)
    p16 = make(ffi, 1, 4, dict(fields, output_type=lib.AP_DTYPE_INT16))
    v = variants(ffi, lib, lib.ap_softmax_s8_variants, p8)[0]
    err = ffi.new("ap_error *")
    x = ffi.new("int8_t[]", 4)
    out8 = ffi.new("int8_t[]", 4)
    out16 = ffi.new("int16_t[]", 4)
    assert lib.ap_softmax_s8_s16_run(p16, v, x, out16, ffi.NULL, 0, err) == lib.AP_OK
    assert lib.ap_softmax_s8_run(p16, v, x, out8, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert "output_type" in message(ffi, err)
    assert lib.ap_softmax_s8_s16_run(p8, v, x, out16, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    odd = ffi.cast("int16_t *", ffi.cast("char *", out16) + 1)
    assert lib.ap_softmax_s8_s16_run(p16, v, x, odd, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_softmax_s8_s16_run(p16, v, x, ffi.NULL, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    bad = make(ffi, 1, 4, dict(fields, output_type=2))
    n = ffi.new("uint32_t *")
    assert lib.ap_softmax_s8_variants(bad, lib.AP_ISA_PORTABLE, ffi.NULL, 0, n, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert "output_type 2" in message(ffi, err)


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
def test_litert_int16_output_single_op(ffi, lib):
    from ai_edge_litert import schema_py_generated as S
    rng = np.random.default_rng(29)
    for trial in range(8):
        shape = (int(rng.integers(1, 4)), int(rng.integers(1, 300)))
        scale, beta = float(np.float32(rng.uniform(0.005, 0.5))), float(rng.choice([1.0, 0.5, 2.0]))
        opts = S.SoftmaxOptionsT()
        opts.beta = beta
        model = L.single_op_model("SOFTMAX", [dict(shape=shape, dtype="int8", scale=scale,
                                                   zero_point=int(rng.integers(-128, 128))),
                                              dict(shape=shape, dtype="int16", scale=1 / 65536, zero_point=-32768)],
                                  [0], [1], "SoftmaxOptions", opts)
        x = rng.integers(-128, 128, size=shape, dtype=np.int8)
        want = L.run_single_op(model, [x])[0]
        np.testing.assert_array_equal(check16(ffi, lib, x, beta, scale), want)


# ---- arm-dsp against portable on any params the op accepts ----

def _every_isa(ffi, lib, p, x, out16):
    """{(isa, variant name): output} of every variant on the portable and arm-dsp code."""
    got = {}
    for isa in (lib.AP_ISA_PORTABLE, lib.AP_ISA_ARM_DSP):
        for v in variants(ffi, lib, lib.ap_softmax_s8_variants, p):
            v.isa = isa
            status, out, err = (run16 if out16 else run)(ffi, lib, p, x, v)
            assert status == lib.AP_OK, message(ffi, err)
            got[(isa, variant_name(ffi, v))] = out
    return got


def _assert_all_equal(got, what):
    (first, want), *rest = got.items()
    for key, out in rest:
        np.testing.assert_array_equal(out, want, err_msg=f"{key} vs {first}: {what}")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(outer=st.integers(1, 3), depth=st.integers(1, 70), multiplier=st.integers(0, 2 ** 31 - 1),
       left=st.integers(0, 31), diff_min=st.one_of(st.integers(-300, 0), st.integers(-2 ** 31, 0)),
       out16=st.booleans(), seed=st.integers(0, 2 ** 31))
def test_arm_dsp_equals_portable_on_any_params(ffi, lib, outer, depth, multiplier, left, diff_min, out16, seed):
    """The arm-dsp rows (SMMULR where an operand is small, SSUB8 + SEL, CLZ, SSAT) against
    the portable ones on params TFLite would never make too: shifts that wrap the difference,
    any multiplier, any diff_min, both output types."""
    fields = dict(input_beta_multiplier=multiplier, input_beta_left_shift=left, diff_min=diff_min,
                  output_type=lib.AP_DTYPE_INT16 if out16 else lib.AP_DTYPE_INT8)
    x = np.random.default_rng(seed).integers(-128, 128, size=(outer, depth)).astype(np.int8)
    _assert_all_equal(_every_isa(ffi, lib, make(ffi, outer, depth, fields), x, out16), fields)


@pytest.mark.parametrize("beta,scale", [(1.0, 0.0390625), (1.0, 0.25), (0.5, 0.001), (2.0, 0.9), (1.0, 1 / 256)])
def test_arm_dsp_every_difference(ffi, lib, beta, scale):
    """Rows holding all 256 int8 values (every difference 0 .. -255 to the maximum 127) and
    rows without 127, on both ISAs, both variants and both output types."""
    rng = np.random.default_rng(3)
    x = np.stack([rng.permutation(np.arange(-128, 128)) for _ in range(3)]).astype(np.int8)
    x = np.concatenate([x, np.where(x == 127, -128, x).astype(np.int8)])
    for out16 in (False, True):
        fields = dict(ops.softmax_params(beta, scale), output_type=lib.AP_DTYPE_INT16 if out16 else lib.AP_DTYPE_INT8)
        p = make(ffi, x.shape[0], x.shape[1], fields)
        got = _every_isa(ffi, lib, p, x, out16)
        _assert_all_equal(got, fields)
        np.testing.assert_array_equal(next(iter(got.values())), ops.softmax(x, fields, np.int16 if out16 else np.int8))
