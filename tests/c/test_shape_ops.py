"""CONCATENATION, PAD, MEAN and the RESHAPE copy through the C API against the NumPy
references of TFLite's reference kernels."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ops_harness import Guarded, guarded_from, message, scratch_for, variant_name, variants
from harness.reference import ops
from harness.reference.quant import quantize_multiplier


def concat_params(ffi, shapes, axis, requant=None, out_zp=0):
    out_shape = list(shapes[0])
    out_shape[axis] = sum(s[axis] for s in shapes)
    p = ffi.new("ap_concatenation_params *")
    p.output_shape = out_shape
    p.axis = axis
    p.input_count = len(shapes)
    keep = [ffi.new("int32_t[]", [s[axis] for s in shapes])]
    p.input_axis_sizes = keep[0]
    if requant is not None:
        keep += [ffi.new("int32_t[]", [r[1] for r in requant]), ffi.new("int32_t[]", [r[2] for r in requant]),
                 ffi.new("int32_t[]", [r[0] for r in requant])]
        p.input_multipliers, p.input_shifts, p.input_zero_points = keep[1:]
    p.output_zero_point = out_zp
    return p, keep, tuple(out_shape)


def run_concat(ffi, lib, xs, axis, requant=None, out_zp=0):
    p, keep, out_shape = concat_params(ffi, [x.shape for x in xs], axis, requant, out_zp)
    vs = variants(ffi, lib, lib.ap_concatenation_s8_variants, p)
    assert [variant_name(ffi, v) for v in vs] == ["direct"] and vs[0].in_place == 0
    gs = [guarded_from(ffi, x) for x in xs]
    ptrs = ffi.new("int8_t *[]", [ffi.cast("int8_t *", g.ptr) for g in gs])
    out = Guarded(ffi, int(np.prod(out_shape)), fill=0x66)
    err = ffi.new("ap_error *")
    status = lib.ap_concatenation_s8_run(p, vs[0], ptrs, ffi.cast("int8_t *", out.ptr), ffi.NULL, 0, err)
    assert status == lib.AP_OK, message(ffi, err)
    assert out.intact() and all(g.intact() for g in gs)
    return out.view(np.int8).reshape(out_shape).copy()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.lists(st.integers(1, 5), min_size=4, max_size=4), axis=st.integers(0, 3),
       sizes=st.lists(st.integers(0, 4), min_size=1, max_size=5), rq=st.booleans(), seed=st.integers(0, 2 ** 31))
def test_concatenation_random(ffi, lib, base, axis, sizes, rq, seed):
    rng = np.random.default_rng(seed)
    xs = []
    for s in sizes:
        shape = list(base)
        shape[axis] = s
        xs.append(rng.integers(-128, 128, size=shape, dtype=np.int8))
    requant = None
    out_zp = int(rng.integers(-128, 128))
    if rq:
        requant = []
        for i in range(len(xs)):
            if i % 2 == 0:   # identity: copied bytes
                requant.append((out_zp, 1 << 30, 1))
            else:
                m, sh = quantize_multiplier(float(rng.uniform(0.1, 3.0)))
                requant.append((int(rng.integers(-128, 128)), m, sh))
    got = run_concat(ffi, lib, xs, axis, requant, out_zp)
    np.testing.assert_array_equal(got, ops.concatenation(xs, axis, requant, out_zp))


def pad_params(ffi, shape, before, after, value):
    p = ffi.new("ap_pad_params *")
    p.input_shape, p.pad_before, p.pad_after, p.pad_value = list(shape), list(before), list(after), value
    return p


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.lists(st.integers(0, 5), min_size=4, max_size=4),
       before=st.lists(st.integers(0, 3), min_size=4, max_size=4),
       after=st.lists(st.integers(0, 3), min_size=4, max_size=4), value=st.integers(-128, 127),
       seed=st.integers(0, 2 ** 31))
def test_pad_random(ffi, lib, shape, before, after, value, seed):
    x = np.random.default_rng(seed).integers(-128, 128, size=shape, dtype=np.int8)
    expected = ops.pad(x, before, after, value)
    p = pad_params(ffi, shape, before, after, value)
    v = variants(ffi, lib, lib.ap_pad_s8_variants, p)[0]
    inp = guarded_from(ffi, x)
    out = Guarded(ffi, expected.size, fill=0x21)
    err = ffi.new("ap_error *")
    assert lib.ap_pad_s8_run(p, v, ffi.cast("int8_t *", inp.ptr), ffi.cast("int8_t *", out.ptr), ffi.NULL, 0,
                             err) == lib.AP_OK, message(ffi, err)
    assert out.intact() and inp.intact()
    np.testing.assert_array_equal(out.view(np.int8).reshape(expected.shape), expected)


def mean_params(ffi, shape, zin, zout, m, s):
    p = ffi.new("ap_mean_params *")
    p.batches, p.input_h, p.input_w, p.channels = shape
    p.input_zero_point, p.output_zero_point, p.multiplier, p.shift = zin, zout, m, s
    return p


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.tuples(st.integers(1, 2), st.integers(1, 9), st.integers(1, 9), st.sampled_from([1, 3, 17, 64, 65, 130])),
       ratio=st.floats(0.05, 20.0), zin=st.integers(-128, 127), zout=st.integers(-128, 127), seed=st.integers(0, 2 ** 31))
def test_mean_random_both_variants(ffi, lib, shape, ratio, zin, zout, seed):
    x = np.random.default_rng(seed).integers(-128, 128, size=shape, dtype=np.int8)
    m, s = quantize_multiplier(ratio)
    expected = ops.mean_hw(x, zin, zout, m, s)
    p = mean_params(ffi, shape, zin, zout, m, s)
    vs = variants(ffi, lib, lib.ap_mean_s8_variants, p)
    assert [variant_name(ffi, v) for v in vs] == ["direct", "row_sums"]
    assert vs[1].scratch[0].bytes == 4 * shape[3]
    for v in vs:
        for short in ([None, 0] if v.scratch_count else [None]):
            inp = guarded_from(ffi, x)
            out = Guarded(ffi, expected.size, fill=0x44)
            scr, bufs = scratch_for(ffi, v, short)
            err = ffi.new("ap_error *")
            status = lib.ap_mean_s8_run(p, v, ffi.cast("int8_t *", inp.ptr), ffi.cast("int8_t *", out.ptr), scr,
                                        v.scratch_count, err)
            assert out.intact() and inp.intact() and all(b.intact() for b in bufs)
            if short is None:
                assert status == lib.AP_OK, message(ffi, err)
                np.testing.assert_array_equal(out.view(np.int8).reshape(expected.shape), expected)
            else:
                assert status == lib.AP_ERR_SCRATCH_TOO_SMALL and err.available == 4 * shape[3] - 1


def test_reshape_copy(ffi, lib):
    p = ffi.new("ap_reshape_params *")
    p.bytes = 37
    v = variants(ffi, lib, lib.ap_reshape_variants, p)[0]
    assert variant_name(ffi, v) == "direct" and v.in_place == 1
    x = np.arange(37, dtype=np.uint8)
    inp = guarded_from(ffi, x)
    out = Guarded(ffi, 37)
    err = ffi.new("ap_error *")
    assert lib.ap_reshape_run(p, v, inp.ptr, out.ptr, ffi.NULL, 0, err) == lib.AP_OK
    assert out.intact() and (out.view(np.uint8) == x).all()
    assert lib.ap_reshape_run(p, v, inp.ptr, inp.ptr, ffi.NULL, 0, err) == lib.AP_OK
    p.bytes = 0
    assert lib.ap_reshape_run(p, v, inp.ptr, out.ptr, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT


def test_bad_input(ffi, lib):
    err = ffi.new("ap_error *")
    a = ffi.new("int8_t[]", 64)
    b = ffi.new("int8_t[]", 64)
    ptrs = ffi.new("int8_t *[]", [b, b])
    p, keep, _ = concat_params(ffi, [(1, 2, 2, 3), (1, 2, 2, 5)], 3)
    v = variants(ffi, lib, lib.ap_concatenation_s8_variants, p)[0]
    assert lib.ap_concatenation_s8_run(p, v, ptrs, a, ffi.NULL, 0, err) == lib.AP_OK
    for field, value in [("axis", 4), ("axis", -1), ("input_count", 0), ("input_count", 65)]:
        q = ffi.new("ap_concatenation_params *", p[0])
        setattr(q, field, value)
        assert lib.ap_concatenation_s8_run(q, v, ptrs, a, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT, field
    q = ffi.new("ap_concatenation_params *", p[0])
    q.output_shape = [1, 2, 2, 9]
    assert lib.ap_concatenation_s8_run(q, v, ptrs, a, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert "sum to 8" in message(ffi, err)
    q = ffi.new("ap_concatenation_params *", p[0])
    q.input_shifts = keep[0]
    assert lib.ap_concatenation_s8_run(q, v, ptrs, a, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    nulls = ffi.new("int8_t *[]", [b, ffi.NULL])
    assert lib.ap_concatenation_s8_run(p, v, nulls, a, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert err.index == 1
    assert lib.ap_concatenation_s8_run(p, v, ffi.NULL, a, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    big = 2 ** 31 - 1
    q, keep2, _ = concat_params(ffi, [(big, big, big, 1)], 3)
    assert lib.ap_concatenation_s8_run(q, v, ptrs, a, ffi.NULL, 0, err) == lib.AP_ERR_OVERFLOW

    pp = pad_params(ffi, (1, 2, 2, 2), (0, 1, 1, 0), (0, 1, 1, 0), 0)
    pv = variants(ffi, lib, lib.ap_pad_s8_variants, pp)[0]
    for bad in [pad_params(ffi, (1, 2, 2, 2), (0, -1, 0, 0), (0, 0, 0, 0), 0),
                pad_params(ffi, (1, 2, 2, 2), (0, 0, 0, 0), (0, 0, 0, 0), 200)]:
        assert lib.ap_pad_s8_run(bad, pv, b, a, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_pad_s8_run(pad_params(ffi, (1, 2, 2, big), (0, 0, 0, 0), (0, 0, 0, 1), 0), pv, b, a, ffi.NULL, 0,
                             err) == lib.AP_ERR_OVERFLOW

    mp = mean_params(ffi, (1, 2, 2, 3), 0, 0, 1 << 30, 1)
    mv = variants(ffi, lib, lib.ap_mean_s8_variants, mp)
    assert lib.ap_mean_s8_run(mp, mv[0], b, a, ffi.NULL, 0, err) == lib.AP_OK
    assert lib.ap_mean_s8_run(mp, mv[1], b, a, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    for bad in [mean_params(ffi, (0, 2, 2, 3), 0, 0, 1, 0), mean_params(ffi, (1, 2, 2, 3), 0, 0, -1, 0),
                mean_params(ffi, (1, 2, 2, 3), 0, 200, 1, 0), mean_params(ffi, (1, 2, 2, 3), 0, 0, 1, 40)]:
        assert lib.ap_mean_s8_run(bad, mv[0], a, a, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_mean_s8_run(mean_params(ffi, (1, 4096, 4096, 1), 0, 0, 1, 0), mv[0], a, a, ffi.NULL, 0,
                              err) == lib.AP_ERR_UNSUPPORTED


# ---- LiteRT reference kernels on single-op models ----

from harness.reference import litert_layers as L  # noqa: E402

_LITERT = L.unavailable_reason()


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
def test_litert_mean_pad_concat_bit_exact(ffi, lib):
    from ai_edge_litert import schema_py_generated as S
    rng = np.random.default_rng(2024)
    for trial in range(12):
        # MEAN over H, W (keep_dims both ways)
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 12)), int(rng.integers(1, 12)), int(rng.integers(1, 40)))
        si, so = float(np.float32(rng.uniform(1e-3, 1))), float(np.float32(rng.uniform(1e-3, 1)))
        zi, zo = int(rng.integers(-128, 128)), int(rng.integers(-128, 128))
        opt = S.ReducerOptionsT()
        opt.keepDims = bool(trial % 2)
        out_shape = (shape[0], 1, 1, shape[3]) if opt.keepDims else (shape[0], shape[3])
        model = L.single_op_model("MEAN", [dict(shape=shape, dtype="int8", scale=si, zero_point=zi),
                                           dict(shape=(2,), dtype="int32", data=np.array([1, 2], np.int32)),
                                           dict(shape=out_shape, dtype="int8", scale=so, zero_point=zo)],
                                  [0, 1], [2], "ReducerOptions", opt)
        x = rng.integers(-128, 128, size=shape, dtype=np.int8)
        y = L.run_single_op(model, [x])[0].reshape(shape[0], 1, 1, shape[3])
        m, s = quantize_multiplier(float(np.float64(si) / np.float64(so)))
        p = mean_params(ffi, shape, zi, zo, m, s)
        for v in variants(ffi, lib, lib.ap_mean_s8_variants, p):
            out = ffi.new("int8_t[]", y.size)
            scr, bufs = scratch_for(ffi, v)
            assert lib.ap_mean_s8_run(p, v, ffi.from_buffer("int8_t[]", x), out, scr, v.scratch_count, ffi.NULL) == lib.AP_OK
            np.testing.assert_array_equal(np.frombuffer(ffi.buffer(out), np.int8).reshape(y.shape), y)
        # PAD with the zero point
        shape = tuple(int(v) for v in rng.integers(1, 5, size=4))
        before, after = rng.integers(0, 3, size=4), rng.integers(0, 3, size=4)
        before[0] = after[0] = 0
        sc, zp = float(np.float32(rng.uniform(1e-3, 1))), int(rng.integers(-128, 128))
        out_shape = tuple(int(a + b + c) for a, b, c in zip(shape, before, after))
        model = L.single_op_model("PAD", [dict(shape=shape, dtype="int8", scale=sc, zero_point=zp),
                                          dict(shape=(4, 2), dtype="int32",
                                               data=np.stack([before, after], 1).astype(np.int32)),
                                          dict(shape=out_shape, dtype="int8", scale=sc, zero_point=zp)], [0, 1], [2])
        x = rng.integers(-128, 128, size=shape, dtype=np.int8)
        y = L.run_single_op(model, [x])[0]
        p = pad_params(ffi, shape, before, after, zp)
        v = variants(ffi, lib, lib.ap_pad_s8_variants, p)[0]
        out = ffi.new("int8_t[]", y.size)
        assert lib.ap_pad_s8_run(p, v, ffi.from_buffer("int8_t[]", x), out, ffi.NULL, 0, ffi.NULL) == lib.AP_OK
        np.testing.assert_array_equal(np.frombuffer(ffi.buffer(out), np.int8).reshape(y.shape), y)
        # CONCATENATION (TFLite int8: every input shares the output's quantisation)
        axis = int(rng.integers(0, 4))
        base = [int(v) for v in rng.integers(1, 4, size=4)]
        shapes = []
        for _ in range(int(rng.integers(1, 4))):
            s_ = list(base)
            s_[axis] = int(rng.integers(1, 4))
            shapes.append(tuple(s_))
        out_shape = list(base)
        out_shape[axis] = sum(s_[axis] for s_ in shapes)
        opt = S.ConcatenationOptionsT()
        opt.axis = axis
        tensors = [dict(shape=s_, dtype="int8", scale=sc, zero_point=zp) for s_ in shapes]
        tensors.append(dict(shape=tuple(out_shape), dtype="int8", scale=sc, zero_point=zp))
        model = L.single_op_model("CONCATENATION", tensors, list(range(len(shapes))), [len(shapes)],
                                  "ConcatenationOptions", opt)
        xs = [rng.integers(-128, 128, size=s_, dtype=np.int8) for s_ in shapes]
        y = L.run_single_op(model, xs)[0]
        np.testing.assert_array_equal(run_concat(ffi, lib, xs, axis), y)
