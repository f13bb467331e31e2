"""AVERAGE_POOL_2D and MAX_POOL_2D int8 through the C API against the NumPy reference of
TFLite's reference kernels (valid-tap counts, TFLite's rounding of the average)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ops_harness import Guarded, cpu, cpu_levels, guarded_from, message, scratch_for, variant_name, variants
from harness.reference import ops

OPS = {
    "average": ("ap_average_pool2d_s8_variants", "ap_average_pool2d_s8_run", ops.average_pool2d),
    "max": ("ap_max_pool2d_s8_variants", "ap_max_pool2d_s8_run", ops.max_pool2d),
}


def make_params(ffi, **kw):
    p = ffi.new("ap_pool2d_params *")
    for k, v in kw.items():
        setattr(p, k, v)
    return p


def run_pool(ffi, lib, which, x, *, filter_hw, stride, pad, out_hw, act=(-128, 127)):
    vfn, rfn, ref = OPS[which]
    n, h, w, c = x.shape
    p = make_params(ffi, batches=n, input_h=h, input_w=w, channels=c, output_h=out_hw[0],
                    output_w=out_hw[1], filter_h=filter_hw[0], filter_w=filter_hw[1], stride_h=stride[0],
                    stride_w=stride[1], pad_h=pad[0], pad_w=pad[1], activation_min=act[0],
                    activation_max=act[1])
    expected = ref(x, filter_hw=filter_hw, stride=stride, pad=pad, out_hw=out_hw, act_min=act[0],
                   act_max=act[1])
    vs = variants(ffi, lib, getattr(lib, vfn), p)
    assert [variant_name(ffi, v) for v in vs] == ["direct"]
    assert vs[0].macs == n * out_hw[0] * out_hw[1] * c * filter_hw[0] * filter_hw[1]
    for level in cpu_levels(lib):
        with cpu(lib, level):
            for v in vs:
                inp = guarded_from(ffi, x)
                out = Guarded(ffi, expected.size, fill=0x11)
                scr, bufs = scratch_for(ffi, v)
                err = ffi.new("ap_error *")
                status = getattr(lib, rfn)(p, v, ffi.cast("int8_t *", inp.ptr), ffi.cast("int8_t *", out.ptr),
                                           scr, v.scratch_count, err)
                assert status == lib.AP_OK, message(ffi, err)
                assert inp.intact() and out.intact()
                np.testing.assert_array_equal(out.view(np.int8).reshape(expected.shape), expected)
    return p


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.sampled_from(["average", "max"]), n=st.integers(1, 2), h=st.integers(1, 10),
       w=st.integers(1, 10), c=st.sampled_from([1, 3, 7, 17, 64, 65]), kh=st.integers(1, 4),
       kw=st.integers(1, 4), sh=st.integers(1, 3), sw=st.integers(1, 3), same=st.booleans(),
       act=st.sampled_from([(-128, 127), (0, 127), (-10, 40)]), seed=st.integers(0, 2 ** 31))
def test_random_pools(ffi, lib, which, n, h, w, c, kh, kw, sh, sw, same, act, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, size=(n, h, w, c), dtype=np.int8)
    if same:
        oh, ph = ops.same_padding(h, kh, sh)
        ow, pw = ops.same_padding(w, kw, sw)
    else:
        kh, kw = min(kh, h), min(kw, w)
        oh, ow, ph, pw = (h - kh) // sh + 1, (w - kw) // sw + 1, 0, 0
    run_pool(ffi, lib, which, x, filter_hw=(kh, kw), stride=(sh, sw), pad=(ph, pw), out_hw=(oh, ow), act=act)


@pytest.mark.parametrize("which", ["average", "max"])
@pytest.mark.parametrize("cfg", [
    dict(shape=(1, 6, 6, 256), filter_hw=(6, 6), stride=(6, 6)),   # MobileNet global pool
    dict(shape=(1, 25, 5, 64), filter_hw=(25, 5), stride=(25, 5)),  # KWS DS-CNN pool
    dict(shape=(1, 8, 8, 64), filter_hw=(8, 8), stride=(8, 8)),     # ResNet-8 pool
    dict(shape=(2, 9, 9, 3), filter_hw=(3, 3), stride=(2, 2), pad=(1, 1), out_hw=(5, 5)),
])
def test_named_pools(ffi, lib, which, cfg):
    rng = np.random.default_rng(1)
    x = rng.integers(-128, 128, size=cfg["shape"], dtype=np.int8)
    n, h, w, c = cfg["shape"]
    out_hw = cfg.get("out_hw", ((h - cfg["filter_hw"][0]) // cfg["stride"][0] + 1,
                                (w - cfg["filter_hw"][1]) // cfg["stride"][1] + 1))
    run_pool(ffi, lib, which, x, filter_hw=cfg["filter_hw"], stride=cfg["stride"], pad=cfg.get("pad", (0, 0)),
             out_hw=out_hw)


def test_average_rounding_edges(ffi, lib):
    """Negative and positive halves round away from zero, as TFLite's (sum +- count/2)/count."""
    x = np.array([-3, -2, -1, 0, 1, 2, 3, -128, -128, -127, 127, 127], dtype=np.int8).reshape(1, 1, 12, 1)
    for k in (2, 3, 4):
        run_pool(ffi, lib, "average", x, filter_hw=(1, k), stride=(1, 1), pad=(0, 0), out_hw=(1, 13 - k))


def test_bad_input(ffi, lib):
    good = dict(batches=1, input_h=4, input_w=4, channels=2, output_h=2, output_w=2, filter_h=2, filter_w=2,
                stride_h=2, stride_w=2, pad_h=0, pad_w=0, activation_min=-128, activation_max=127)
    for which in OPS:
        vfn, rfn, _ = OPS[which]
        p = make_params(ffi, **good)
        v = variants(ffi, lib, getattr(lib, vfn), p)[0]
        err = ffi.new("ap_error *")
        x = ffi.new("int8_t[]", 32)
        out = ffi.new("int8_t[]", 8)
        run = getattr(lib, rfn)
        assert run(p, v, x, out, ffi.NULL, 0, err) == lib.AP_OK
        assert run(ffi.NULL, v, x, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
        assert run(p, ffi.NULL, x, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
        assert run(p, v, ffi.NULL, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
        for field, value in [("channels", 0), ("stride_w", 0), ("pad_h", -1), ("activation_min", -129),
                             ("activation_max", -129)]:
            q = make_params(ffi, **dict(good, **{field: value}))
            assert run(q, v, x, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT, field
        # an output window that lies entirely in the padding
        q = make_params(ffi, **dict(good, pad_h=2, output_h=3))
        assert run(q, v, x, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
        assert "no input tap" in message(ffi, err)
        q = make_params(ffi, **dict(good, output_w=3))
        assert run(q, v, x, out, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
        q = make_params(ffi, **dict(good, batches=2 ** 31 - 1, input_h=2 ** 31 - 1, input_w=2 ** 31 - 1,
                                    channels=2 ** 31 - 1))
        assert run(q, v, x, out, ffi.NULL, 0, err) == lib.AP_ERR_OVERFLOW
        q = make_params(ffi, **dict(good, filter_h=4000, filter_w=4000, input_h=4000, input_w=4000))
        assert run(q, v, x, out, ffi.NULL, 0, err) == lib.AP_ERR_UNSUPPORTED


# ---- real layers: LiteRT reference kernels on the shared models ----

from harness.reference import litert_layers as L  # noqa: E402

_LITERT = L.unavailable_reason()


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
def test_litert_layers_bit_exact(ffi, lib):
    layers = L.layers({"AVERAGE_POOL_2D", "MAX_POOL_2D"})
    assert len(layers) >= 4
    for layer in layers:
        x, y, o = layer.inputs[0], layer.outputs[0], layer.options
        _, h, w, _ = x.shape
        _, oh, ow, _ = y.shape
        kh, kw = o.FilterHeight(), o.FilterWidth()
        ph = L.padding_of(o.Padding(), h, kh, o.StrideH(), 1, oh)
        pw = L.padding_of(o.Padding(), w, kw, o.StrideW(), 1, ow)
        act = L.activation_of(o.FusedActivationFunction(), layer.output_q[0])
        which = "average" if layer.op == "AVERAGE_POOL_2D" else "max"
        ref = OPS[which][2](x, filter_hw=(kh, kw), stride=(o.StrideH(), o.StrideW()), pad=(ph, pw), out_hw=(oh, ow),
                            act_min=act[0], act_max=act[1])
        np.testing.assert_array_equal(ref, y, err_msg=f"reference vs LiteRT {layer.name}")
        run_pool(ffi, lib, which, x, filter_hw=(kh, kw), stride=(o.StrideH(), o.StrideW()), pad=(ph, pw),
                 out_hw=(oh, ow), act=act)


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
def test_litert_single_op_pools(ffi, lib):
    from ai_edge_litert import schema_py_generated as S
    rng = np.random.default_rng(5)
    for trial in range(16):
        which = "max" if trial % 2 else "average"
        n, h, w, c = 1, int(rng.integers(2, 10)), int(rng.integers(2, 10)), int(rng.integers(1, 20))
        kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        sh, sw = int(rng.integers(1, 3)), int(rng.integers(1, 3))
        same = bool(rng.integers(0, 2))
        if same:
            oh, ph = ops.same_padding(h, kh, sh)
            ow, pw = ops.same_padding(w, kw, sw)
        else:
            kh, kw = min(kh, h), min(kw, w)
            oh, ow, ph, pw = (h - kh) // sh + 1, (w - kw) // sw + 1, 0, 0
        sc, zp = float(np.float32(rng.uniform(1e-3, 1))), int(rng.integers(-128, 128))
        act_code = int(rng.choice([0, 1, 3]))
        opt = S.Pool2DOptionsT()
        opt.padding, opt.strideW, opt.strideH, opt.filterWidth, opt.filterHeight = (0 if same else 1), sw, sh, kw, kh
        opt.fusedActivationFunction = act_code
        op = "MAX_POOL_2D" if which == "max" else "AVERAGE_POOL_2D"
        model = L.single_op_model(op, [dict(shape=(n, h, w, c), dtype="int8", scale=sc, zero_point=zp),
                                       dict(shape=(n, oh, ow, c), dtype="int8", scale=sc, zero_point=zp)],
                                  [0], [1], "Pool2DOptions", opt)
        x = rng.integers(-128, 128, size=(n, h, w, c), dtype=np.int8)
        y = L.run_single_op(model, [x])[0]
        act = L.activation_of(act_code, dict(scales=np.array([sc], np.float32), zero_points=np.array([zp])))
        ref = OPS[which][2](x, filter_hw=(kh, kw), stride=(sh, sw), pad=(ph, pw), out_hw=(oh, ow),
                            act_min=act[0], act_max=act[1])
        np.testing.assert_array_equal(ref, y, err_msg=f"reference vs LiteRT {which}")
        run_pool(ffi, lib, which, x, filter_hw=(kh, kw), stride=(sh, sw), pad=(ph, pw), out_hw=(oh, ow), act=act)


@pytest.mark.parametrize("c", [4, 8, 12, 13, 15])
@pytest.mark.parametrize("taps", [(16, 16), (16, 17), (25, 5)])
def test_average_int16_lane_edges(ffi, lib, c, taps):
    """arm-dsp sums a window of at most 256 taps in int16 lanes (SXTAB16), eight and four
    channels a step and the rest one at a time; a larger window sums in int32. Windows of
    256 taps at the lanes' extremes (all -128: -32768; all 127), one tap more, and KWS's
    25x5, over channel counts on and off the SIMD widths."""
    rng = np.random.default_rng(c)
    for fill in (-128, 127, None):
        shape = (1, taps[0], taps[1], c)
        x = (np.full(shape, fill, dtype=np.int8) if fill is not None
             else rng.integers(-128, 128, size=shape, dtype=np.int8))
        run_pool(ffi, lib, "average", x, filter_hw=taps, stride=(1, 1), pad=(0, 0), out_hw=(1, 1))
        run_pool(ffi, lib, "average", x, filter_hw=taps, stride=(1, 1), pad=(0, 0), out_hw=(1, 1), act=(-20, 30))


@pytest.mark.parametrize("c", [4, 8, 12, 13, 15])
def test_max_lanes(ffi, lib, c):
    """arm-dsp's SSUB8 + SEL maximum, eight and four channels a step and the rest one at a
    time, clamped to every kind of activation range, with -128 and 127 at the lanes' ends."""
    rng = np.random.default_rng(c)
    x = rng.integers(-128, 128, size=(1, 5, 6, c), dtype=np.int8)
    x[0, 0, 0, ::2] = 127
    x[0, :, :, 1::3] = -128
    for act in ((-128, 127), (0, 127), (-128, 0), (-10, 40), (5, 5)):
        run_pool(ffi, lib, "max", x, filter_hw=(2, 3), stride=(1, 2), pad=(0, 0), out_hw=(4, 2), act=act)
