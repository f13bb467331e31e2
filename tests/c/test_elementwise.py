"""ADD and MUL int8 through the C API: 4-D broadcasting, random scales and zero points, both
CPU paths, in-place use, against the NumPy references of TFLite's reference kernels."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ops_harness import Guarded, cpu, cpu_levels, guarded_from, message, scratch_for, variant_name, variants
from harness.reference import ops

OPS = {"add": ("ap_add_params *", "ap_add_s8_variants", "ap_add_s8_run", ops.add_params, ops.add),
       "mul": ("ap_mul_params *", "ap_mul_s8_variants", "ap_mul_s8_run", ops.mul_params, ops.mul)}


def make(ffi, which, s1, s2, so, fields):
    ctype = OPS[which][0]
    p = ffi.new(ctype)
    p.input1_shape, p.input2_shape, p.output_shape = list(s1), list(s2), list(so)
    for k, v in fields.items():
        setattr(p, k, int(v))
    return p


def run(ffi, lib, which, p, x1, x2, variant, out_alias=None):
    """Run with guarded buffers; out_alias 1 or 2 writes the output over that input."""
    g1, g2 = guarded_from(ffi, x1), guarded_from(ffi, x2)
    n = int(np.prod(list(p.output_shape)))
    out = {1: g1, 2: g2}.get(out_alias) or Guarded(ffi, n, fill=0x7E)
    scr, bufs = scratch_for(ffi, variant)
    err = ffi.new("ap_error *")
    status = getattr(lib, OPS[which][2])(p, variant, ffi.cast("int8_t *", g1.ptr), ffi.cast("int8_t *", g2.ptr),
                                         ffi.cast("int8_t *", out.ptr), scr, variant.scratch_count, err)
    assert g1.intact() and g2.intact() and out.intact()
    return status, out.view(np.int8)[:n].reshape(tuple(p.output_shape)).copy(), err


def check(ffi, lib, which, x1, x2, scales, zps, act):
    s1, s2 = x1.shape, x2.shape
    so = tuple(max(a, b) for a, b in zip(s1, s2))
    fields = OPS[which][3](scales[0], zps[0], scales[1], zps[1], scales[2], zps[2], *act)
    p = make(ffi, which, s1, s2, so, fields)
    expected = OPS[which][4](x1, x2, fields)
    vs = variants(ffi, lib, getattr(lib, OPS[which][1]), p)
    assert [variant_name(ffi, v) for v in vs] == ["direct"]
    assert vs[0].in_place == int(s1 == so or s2 == so) and vs[0].macs == int(np.prod(so))
    for level in cpu_levels(lib):
        with cpu(lib, level):
            status, got, err = run(ffi, lib, which, p, x1, x2, vs[0])
            assert status == lib.AP_OK, message(ffi, err)
            np.testing.assert_array_equal(got, expected)
            for alias, shape in ((1, s1), (2, s2)):
                if shape == so:
                    status, got, err = run(ffi, lib, which, p, x1, x2, vs[0], out_alias=alias)
                    assert status == lib.AP_OK
                    np.testing.assert_array_equal(got, expected, err_msg=f"in place over input{alias}")


dims = st.lists(st.integers(1, 6), min_size=4, max_size=4)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.sampled_from(["add", "mul"]), out=dims, mask1=st.lists(st.booleans(), min_size=4, max_size=4),
       mask2=st.lists(st.booleans(), min_size=4, max_size=4),
       scales=st.lists(st.floats(1e-3, 1.0), min_size=3, max_size=3),
       zps=st.lists(st.integers(-128, 127), min_size=3, max_size=3),
       act=st.sampled_from([(-128, 127), (-50, 60)]), seed=st.integers(0, 2 ** 31))
def test_random_broadcasts(ffi, lib, which, out, mask1, mask2, scales, zps, act, seed):
    rng = np.random.default_rng(seed)
    s1 = tuple(1 if m else d for d, m in zip(out, mask1))
    s2 = tuple(1 if m else d for d, m in zip(out, mask2))
    x1 = rng.integers(-128, 128, size=s1, dtype=np.int8)
    x2 = rng.integers(-128, 128, size=s2, dtype=np.int8)
    check(ffi, lib, which, x1, x2, scales, zps, act)


@pytest.mark.parametrize("which", ["add", "mul"])
@pytest.mark.parametrize("s1,s2", [
    ((1, 32, 32, 16), (1, 32, 32, 16)),   # ResNet-8 residual ADD
    ((1, 8, 8, 64), (1, 1, 1, 64)),       # per-channel scale (squeeze-excite style)
    ((1, 1, 1, 1), (2, 3, 5, 7)),         # scalar
    ((1, 5, 1, 33), (1, 1, 4, 1)),        # both sides broadcast
    ((1, 1, 1, 1), (1, 1, 1, 1)),
])
def test_named_shapes(ffi, lib, which, s1, s2):
    rng = np.random.default_rng(7)
    x1 = rng.integers(-128, 128, size=s1, dtype=np.int8)
    x2 = rng.integers(-128, 128, size=s2, dtype=np.int8)
    check(ffi, lib, which, x1, x2, (0.05, 0.11, 0.07), (-3, 17, 0), (-128, 127))


def test_extreme_scales(ffi, lib):
    rng = np.random.default_rng(3)
    x1 = rng.integers(-128, 128, size=(1, 4, 4, 19), dtype=np.int8)
    x2 = rng.integers(-128, 128, size=(1, 4, 4, 19), dtype=np.int8)
    for scales in [(1.0, 1e-4, 1e-4), (1e-4, 1.0, 10.0), (0.5, 0.5, 0.5), (2.0, 3.0, 1e-3)]:
        for which in OPS:
            check(ffi, lib, which, x1, x2, scales, (-128, 127, 5), (-128, 127))


def test_bad_input(ffi, lib):
    base_fields = ops.add_params(0.1, 0, 0.2, 0, 0.3, 0)
    p = make(ffi, "add", (1, 2, 2, 3), (1, 2, 2, 3), (1, 2, 2, 3), base_fields)
    v = variants(ffi, lib, lib.ap_add_s8_variants, p)[0]
    err = ffi.new("ap_error *")
    a = ffi.new("int8_t[]", 12)
    out = ffi.new("int8_t[]", 12)
    assert lib.ap_add_s8_run(p, v, a, a, out, ffi.NULL, 0, err) == lib.AP_OK
    assert lib.ap_add_s8_run(ffi.NULL, v, a, a, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_add_s8_run(p, ffi.NULL, a, a, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_add_s8_run(p, v, a, ffi.NULL, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    bad_shapes = [((1, 2, 2, 3), (1, 2, 3, 3), (1, 2, 3, 3)), ((1, 2, 2, 3), (1, 1, 1, 3), (1, 2, 2, 4)),
                  ((0, 2, 2, 3), (1, 2, 2, 3), (1, 2, 2, 3)), ((1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 2))]
    for s1, s2, so in bad_shapes:
        q = make(ffi, "add", s1, s2, so, base_fields)
        assert lib.ap_add_s8_run(q, v, a, a, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT, (s1, s2, so)
        assert "dimension" in message(ffi, err)
    for field, value, status in [("input1_shift", 1, lib.AP_ERR_UNSUPPORTED), ("output_shift", -32, lib.AP_ERR_INVALID_ARGUMENT),
                                 ("left_shift", 23, lib.AP_ERR_INVALID_ARGUMENT), ("input2_offset", -128, lib.AP_ERR_INVALID_ARGUMENT),
                                 ("output_offset", 128, lib.AP_ERR_INVALID_ARGUMENT), ("activation_min", 127, lib.AP_OK),
                                 ("activation_max", -129, lib.AP_ERR_INVALID_ARGUMENT)]:
        q = make(ffi, "add", (1, 2, 2, 3), (1, 2, 2, 3), (1, 2, 2, 3), dict(base_fields, **{field: value}))
        assert lib.ap_add_s8_run(q, v, a, a, out, ffi.NULL, 0, err) == status, field
    big = 2 ** 31 - 1
    q = make(ffi, "add", (big, big, big, 1), (big, big, big, 1), (big, big, big, 1), base_fields)
    assert lib.ap_add_s8_run(q, v, a, a, out, ffi.NULL, 0, err) == lib.AP_ERR_OVERFLOW
    mul_fields = ops.mul_params(0.1, 0, 0.2, 0, 0.3, 0)
    pm = make(ffi, "mul", (1, 2, 2, 3), (1, 2, 2, 3), (1, 2, 2, 3), mul_fields)
    vm = variants(ffi, lib, lib.ap_mul_s8_variants, pm)[0]
    assert lib.ap_mul_s8_run(pm, vm, a, a, out, ffi.NULL, 0, err) == lib.AP_OK
    q = make(ffi, "mul", (1, 2, 2, 3), (1, 2, 2, 3), (1, 2, 2, 3), dict(mul_fields, output_shift=32))
    assert lib.ap_mul_s8_run(q, vm, a, a, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    wrong = ffi.new("ap_variant *", vm[0])
    wrong.param = 3
    assert lib.ap_mul_s8_run(pm, wrong, a, a, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT


# ---- real layers: LiteRT reference kernels on the shared models ----

from harness.reference import litert_layers as L  # noqa: E402

_LITERT = L.unavailable_reason()


def _four_d(shape):
    return (1,) * (4 - len(shape)) + tuple(shape)


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
def test_litert_layers_bit_exact(ffi, lib):
    layers = L.layers({"ADD", "MUL"})
    assert len(layers) >= 6
    for layer in layers:
        which = layer.op.lower()
        x1, x2, y = layer.inputs[0], layer.inputs[1], layer.outputs[0]
        q1, q2, qo = layer.input_q[0], layer.input_q[1], layer.output_q[0]
        act = L.activation_of(layer.options.FusedActivationFunction(), qo)
        fields = OPS[which][3](L.scale_of(q1), L.zero_point_of(q1), L.scale_of(q2), L.zero_point_of(q2),
                               L.scale_of(qo), L.zero_point_of(qo), *act)
        a, b = x1.reshape(_four_d(x1.shape)), x2.reshape(_four_d(x2.shape))
        expected = y.reshape(_four_d(y.shape))
        np.testing.assert_array_equal(OPS[which][4](a, b, fields), expected, err_msg=f"reference vs LiteRT {layer.name}")
        so = tuple(max(i, j) for i, j in zip(a.shape, b.shape))
        p = make(ffi, which, a.shape, b.shape, so, fields)
        v = variants(ffi, lib, getattr(lib, OPS[which][1]), p)[0]
        for level in cpu_levels(lib):
            with cpu(lib, level):
                status, got, err = run(ffi, lib, which, p, a, b, v)
                assert status == lib.AP_OK, message(ffi, err)
                np.testing.assert_array_equal(got, expected, err_msg=f"{layer.name} cpu={level}")


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
def test_litert_single_op_add_mul_broadcast(ffi, lib):
    from ai_edge_litert import schema_py_generated as S
    rng = np.random.default_rng(99)
    for trial in range(24):
        which = "add" if trial % 2 else "mul"
        out = [int(v) for v in rng.integers(1, 5, size=4)]
        s1 = tuple(1 if rng.random() < 0.3 else d for d in out)
        s2 = tuple(1 if rng.random() < 0.3 else d for d in out)
        so_shape = tuple(max(a, b) for a, b in zip(s1, s2))
        sc = [float(np.float32(v)) for v in rng.uniform(1e-3, 1, size=3)]
        zp = [int(v) for v in rng.integers(-128, 128, size=3)]
        act_code = int(rng.choice([0, 1, 3]))
        opt = S.AddOptionsT() if which == "add" else S.MulOptionsT()
        opt.fusedActivationFunction = act_code
        model = L.single_op_model(which.upper(), [dict(shape=s1, dtype="int8", scale=sc[0], zero_point=zp[0]),
                                                  dict(shape=s2, dtype="int8", scale=sc[1], zero_point=zp[1]),
                                                  dict(shape=so_shape, dtype="int8", scale=sc[2], zero_point=zp[2])],
                                  [0, 1], [2], "AddOptions" if which == "add" else "MulOptions", opt)
        x1 = rng.integers(-128, 128, size=s1, dtype=np.int8)
        x2 = rng.integers(-128, 128, size=s2, dtype=np.int8)
        y = L.run_single_op(model, [x1, x2])[0]
        act = L.activation_of(act_code, dict(scales=np.array([sc[2]], np.float32), zero_points=np.array([zp[2]])))
        fields = OPS[which][3](sc[0], zp[0], sc[1], zp[1], sc[2], zp[2], *act)
        p = make(ffi, which, s1, s2, so_shape, fields)
        v = variants(ffi, lib, getattr(lib, OPS[which][1]), p)[0]
        status, got, err = run(ffi, lib, which, p, x1, x2, v)
        assert status == lib.AP_OK, message(ffi, err)
        np.testing.assert_array_equal(got, y, err_msg=f"{which} {s1} {s2}")


@pytest.mark.parametrize("n", [1, 2, 3, 5, 16, 33])
def test_add_arm_dsp_edges(ffi, lib, n):
    """arm-dsp ADD's one-loop case (left_shift 20, full range, an input at the multiplier 0.5
    exactly, output shift >= -21) and its SMMULR rows (left_shift <= 20, shifts >= -30); other
    parameters (left_shift 21 and 22, a shift of -31) take the portable row. Rows of every
    length parity, a broadcast operand on either side, outputs saturating at both ends and a
    clamped activation range, all against the reference."""
    rng = np.random.default_rng(n)
    x1 = rng.integers(-128, 128, size=(1, 1, 2, n), dtype=np.int8)
    x2 = rng.integers(-128, 128, size=(1, 1, 2, n), dtype=np.int8)
    x1[0, 0, 0, :] = -128
    x2[0, 0, 0, :] = 127
    # input 1, input 2 or both at the exact half (the one-loop case, swapped or not); the output
    # shift 29 and 24 beyond that loop's 21 (the C rows)
    cases = [(0.05, 0.05, 0.001), (0.5, 0.01, 0.002), (1e-3, 0.9, 0.9), (0.2, 0.2, 1e-4), (0.02, 0.05, 0.01),
             (0.05, 0.05, 100.0), (0.05, 0.02, 3.0)]
    for scales in cases:
        fields = ops.add_params(scales[0], -128, scales[1], 127, scales[2], 3)
        for left_shift, tweak in ((20, {}), (19, {}), (21, {}), (22, {}), (20, {"input2_shift": -31}),
                                  (20, {"output_shift": -31}), (20, {"activation_min": -7, "activation_max": 9})):
            f = dict(fields, left_shift=left_shift, **tweak)
            for s1, s2 in ((x1.shape, x2.shape), ((1, 1, 1, 1), x2.shape), (x1.shape, (1, 1, 1, 1)),
                           ((1, 1, 2, 1), x2.shape)):
                a = x1[tuple(slice(0, d) for d in s1)]
                b = x2[tuple(slice(0, d) for d in s2)]
                so = tuple(max(p, q) for p, q in zip(s1, s2))
                p = make(ffi, "add", s1, s2, so, f)
                expected = ops.add(a, b, f)
                v = variants(ffi, lib, lib.ap_add_s8_variants, p)[0]
                for level in cpu_levels(lib):
                    with cpu(lib, level):
                        status, got, err = run(ffi, lib, "add", p, a, b, v)
                        assert status == lib.AP_OK, message(ffi, err)
                        np.testing.assert_array_equal(got, expected, err_msg=f"{scales} {left_shift} {tweak}")


@pytest.mark.parametrize("n", [1, 3, 4, 7, 8, 9])
def test_mul_arm_dsp_edges(ffi, lib, n):
    """arm-dsp MUL: four elements a step with SXTAB16 and SMULBB / SMULTT where both inputs
    advance, the rest one at a time; its SMMULR form for output shifts up to 13 (products
    below 2^29), the portable row beyond (rescales of 9,000 and 30,000: shift 14 and 15).
    Lengths off the step, a broadcast operand, saturation, a clamped range, in place."""
    rng = np.random.default_rng(n)
    x1 = rng.integers(-128, 128, size=(1, 1, 2, n), dtype=np.int8)
    x2 = rng.integers(-128, 128, size=(1, 1, 2, n), dtype=np.int8)
    x1[0, 0, 0, :] = -128
    x2[0, 0, 0, ::2] = 127
    x2[0, 0, 0, 1::2] = -128
    for real in (1e-4, 0.01, 0.5, 1.0, 100.0, 8000.0, 9000.0, 30000.0):
        for act, zps in (((-128, 127), (-128, 127, 3)), ((-5, 20), (0, 1, -7))):
            f = ops.mul_params(1.0, zps[0], 1.0, zps[1], 1.0 / real, zps[2], *act)
            for s1, s2 in ((x1.shape, x2.shape), ((1, 1, 1, 1), x2.shape), (x1.shape, (1, 1, 1, 1))):
                a = x1[tuple(slice(0, d) for d in s1)]
                b = x2[tuple(slice(0, d) for d in s2)]
                so = tuple(max(p, q) for p, q in zip(s1, s2))
                p = make(ffi, "mul", s1, s2, so, f)
                expected = ops.mul(a, b, f)
                v = variants(ffi, lib, lib.ap_mul_s8_variants, p)[0]
                for level in cpu_levels(lib):
                    with cpu(lib, level):
                        for alias in (None, 1, 2):
                            if alias is not None and (s1, s2)[alias - 1] != so:
                                continue
                            status, got, err = run(ffi, lib, "mul", p, a, b, v, out_alias=alias)
                            assert status == lib.AP_OK, message(ffi, err)
                            np.testing.assert_array_equal(got, expected, err_msg=f"{real} {act} {alias}")
