"""DEPTHWISE_CONV_2D int8 through the C API: every variant, both CPU paths, guarded
scratch and output, against the NumPy reference of TFLite's reference kernel."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ops_harness import (Guarded, cpu, cpu_levels, guarded_from, message, random_multipliers,
                         requant_arrays, scratch_for, variant_name, variants)
from harness.reference import ops


class Case:
    """One depthwise layer: data, params cdata and prepared constants."""

    def __init__(self, ffi, lib, *, n=1, h=5, w=5, c=3, mult=1, kh=3, kw=3, stride=(1, 1),
                 dilation=(1, 1), pad=None, out_hw=None, seed=0, input_zp=None, output_zp=None,
                 act=None, per_channel=1, with_bias=True, scales=(1e-4, 2e-2)):
        rng = np.random.default_rng(seed)
        self.ffi, self.lib = ffi, lib
        oc = c * mult
        if pad is None:  # SAME
            oh, ph = ops.same_padding(h, kh, stride[0], dilation[0])
            ow, pw = ops.same_padding(w, kw, stride[1], dilation[1])
            pad = (ph, pw)
            out_hw = out_hw or (oh, ow)
        if out_hw is None:
            oh = (h + 2 * pad[0] - ((kh - 1) * dilation[0] + 1)) // stride[0] + 1
            ow = (w + 2 * pad[1] - ((kw - 1) * dilation[1] + 1)) // stride[1] + 1
            out_hw = (max(oh, 1), max(ow, 1))
        self.x = rng.integers(-128, 128, size=(n, h, w, c), dtype=np.int8)
        self.wt = rng.integers(-128, 128, size=(1, kh, kw, oc), dtype=np.int8)
        self.bias = rng.integers(-5000, 5000, size=oc, dtype=np.int32) if with_bias else None
        self.in_zp = int(rng.integers(-128, 128)) if input_zp is None else input_zp
        self.out_zp = int(rng.integers(-128, 128)) if output_zp is None else output_zp
        nm = oc if per_channel else 1
        self.mult_arr, self.shift_arr = random_multipliers(rng, nm, *scales)
        lo, hi = (-128, 127) if act is None else act
        self.act = (lo, hi)
        self.out_shape = (n, out_hw[0], out_hw[1], oc)
        self.ref_kwargs = dict(stride=stride, dilation=dilation, pad=pad, out_hw=out_hw,
                               depth_multiplier=mult, input_offset=-self.in_zp,
                               multiplier=self.mult_arr, shift=self.shift_arr,
                               output_offset=self.out_zp, act_min=lo, act_max=hi)
        self.m_c, self.s_c = requant_arrays(ffi, self.mult_arr, self.shift_arr)
        p = ffi.new("ap_depthwise_conv2d_params *")
        (p.batches, p.input_h, p.input_w, p.input_c, p.output_h, p.output_w, p.output_c) = (
            n, h, w, c, out_hw[0], out_hw[1], oc)
        p.filter_h, p.filter_w = kh, kw
        p.stride_h, p.stride_w = stride
        p.dilation_h, p.dilation_w = dilation
        p.pad_h, p.pad_w = pad
        p.depth_multiplier = mult
        p.input_offset = -self.in_zp
        p.requant.multiplier = self.m_c
        p.requant.shift = self.s_c
        p.requant.per_channel = per_channel
        p.requant.output_offset = self.out_zp
        p.requant.activation_min, p.requant.activation_max = lo, hi
        self.params = p
        self.prepared = self.prepare()

    def prepare(self, isa=None):
        """The prepared constants packed for ``isa`` (portable by default: every ISA's code
        reads them; a blob packed for arm-dsp holds its weight lanes)."""
        ffi, lib = self.ffi, self.lib
        isa = lib.AP_ISA_PORTABLE if isa is None else isa
        size = ffi.new("size_t *")
        err = ffi.new("ap_error *")
        assert lib.ap_depthwise_conv2d_s8_prepared_size(self.params, size, err) == lib.AP_OK, message(ffi, err)
        buf = Guarded(ffi, size[0])
        bias = ffi.NULL if self.bias is None else ffi.from_buffer("int32_t[]", self.bias)
        st_ = lib.ap_depthwise_conv2d_s8_prepare(self.params, isa, ffi.from_buffer("int8_t[]", self.wt), bias,
                                                 buf.ptr, size[0], err)
        assert st_ == lib.AP_OK, message(ffi, err)
        assert buf.intact()
        return buf

    def reference(self):
        return ops.depthwise_conv2d(self.x, self.wt, self.bias, **self.ref_kwargs)

    def variants(self, isa=None):
        return variants(self.ffi, self.lib, self.lib.ap_depthwise_conv2d_s8_variants, self.params, isa)

    def run(self, variant, short=None):
        ffi, lib = self.ffi, self.lib
        inp = guarded_from(ffi, self.x)
        out = Guarded(ffi, int(np.prod(self.out_shape)), fill=0x5A)
        scr, bufs = scratch_for(ffi, variant, short)
        err = ffi.new("ap_error *")
        status = lib.ap_depthwise_conv2d_s8_run(self.params, variant, self.prepared.ptr,
                                                ffi.cast("int8_t *", inp.ptr), ffi.cast("int8_t *", out.ptr),
                                                scr, variant.scratch_count, err)
        assert inp.intact() and out.intact() and all(b.intact() for b in bufs)
        assert np.array_equal(inp.view(np.int8), self.x.reshape(-1)), "input was modified"
        return status, out.view(np.int8).reshape(self.out_shape).copy(), err


def check_all(case: Case):
    """Every variant of every ISA this build and CPU run, each ISA's own list (arm-dsp adds
    "widened") with constants packed for that ISA, against the reference; each scratch one
    byte short refused."""
    ffi, lib = case.ffi, case.lib
    expected = case.reference()
    for level in cpu_levels(lib):
        case.prepared = case.prepare(level)
        vs = case.variants(level)
        assert variant_name(ffi, vs[0]) == "direct" and vs[0].scratch_count == 0
        assert all(v.isa == level for v in vs)
        for v in vs:
            status, got, err = case.run(v)
            assert status == lib.AP_OK, message(ffi, err)
            np.testing.assert_array_equal(got, expected, err_msg=f"{variant_name(ffi, v)} cpu={level}")
            for i in range(v.scratch_count):
                status, _, err = case.run(v, short=i)
                assert status == lib.AP_ERR_SCRATCH_TOO_SMALL
                assert err.index == i and err.needed == v.scratch[i].bytes and err.available == v.scratch[i].bytes - 1
                assert variant_name(ffi, v) in message(ffi, err)


shapes = st.fixed_dictionaries(dict(
    n=st.integers(1, 2), h=st.integers(1, 9), w=st.integers(1, 9),
    c=st.sampled_from([1, 2, 3, 7, 8, 16, 17, 33]), mult=st.integers(1, 8),
    kh=st.integers(1, 5), kw=st.integers(1, 5), sh=st.integers(1, 3), sw=st.integers(1, 3),
    dh=st.integers(1, 3), dw=st.integers(1, 3), same=st.booleans(),
    extra_pad=st.tuples(st.integers(0, 2), st.integers(0, 2)), per_channel=st.sampled_from([0, 1]),
    relu=st.booleans(), bias=st.booleans(), seed=st.integers(0, 2 ** 31)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes)
def test_random_layers_every_variant_and_cpu_path(ffi, lib, s):
    if s["c"] * s["mult"] > 64:
        s["mult"] = max(1, 64 // s["c"])
    pad = None if s["same"] else s["extra_pad"]
    case = Case(ffi, lib, n=s["n"], h=s["h"], w=s["w"], c=s["c"], mult=s["mult"], kh=s["kh"],
                kw=s["kw"], stride=(s["sh"], s["sw"]), dilation=(s["dh"], s["dw"]), pad=pad,
                seed=s["seed"], per_channel=s["per_channel"], with_bias=s["bias"],
                act=(-20, 100) if s["relu"] else None)
    check_all(case)


@pytest.mark.parametrize("cfg", [
    dict(h=96, w=96, c=1, mult=8, stride=(2, 2)),            # person_detect's first depthwise
    dict(h=25, w=5, c=64, mult=1),                            # KWS DS-CNN block
    dict(h=12, w=12, c=32, mult=1, stride=(2, 2)),            # VWW MobileNet block
    dict(h=6, w=6, c=256, mult=1, stride=(1, 1)),
    dict(h=7, w=9, c=17, mult=3, kh=1, kw=5),                 # 1xN filter, odd channels
    dict(h=5, w=5, c=7, mult=1, kh=1, kw=1),                  # 1x1
    dict(h=11, w=13, c=24, mult=2, kh=5, kw=3, dilation=(2, 3), stride=(1, 2)),
    dict(h=4, w=4, c=3, mult=1, kh=3, kw=3, pad=(3, 3), out_hw=(5, 5)),  # windows fully in padding
    dict(h=3, w=40, c=16, mult=1, kh=13, kw=13),              # 169 taps: beyond the stack table
    # AVX2 paths: blocks of 16 (lane-permuted weights), then 8, then single channels
    dict(h=7, w=6, c=29, mult=1),
    dict(h=5, w=9, c=48, mult=1, stride=(2, 2)),
    dict(h=6, w=7, c=8, mult=1),                              # 8 channels: pixel pairs, odd width
    dict(h=6, w=7, c=4, mult=2, kh=3, kw=2),                  # 8 output channels from a multiplier
    dict(h=9, w=1, c=40, mult=1, kh=3, kw=1, pad=(0, 0)),     # 1-wide output: rows as one column
    dict(h=12, w=1, c=24, mult=1, kh=5, kw=1, pad=(0, 0), stride=(2, 1)),
    dict(h=5, w=5, c=24, mult=1, scales=(0.3, 6.0)),          # left shifts (scales above 0.5)
    dict(h=5, w=8, c=8, mult=1, scales=(0.3, 6.0)),
    dict(h=5, w=8, c=16, mult=1, per_channel=0, scales=(1.5, 3.0)),
])
def test_named_layers(ffi, lib, cfg):
    check_all(Case(ffi, lib, **cfg))


def test_variant_list_and_scratch_formula(ffi, lib):
    case = Case(ffi, lib, h=20, w=15, c=8, mult=2, kh=3, kw=5, stride=(2, 1), dilation=(1, 2))
    p = case.params
    vs = case.variants()
    names = [variant_name(ffi, v) for v in vs]
    assert names == ["direct", "padded_rows_1", "padded_rows_4", f"padded_rows_{p.output_h}"]
    padded_w = (p.output_w - 1) * p.stride_w + (p.filter_w - 1) * p.dilation_w + 1
    for v in vs[1:]:
        r = v.param
        rows = (r - 1) * p.stride_h + (p.filter_h - 1) * p.dilation_h + 1
        # int16 elements: the buffer holds the input sign-extended once
        assert v.scratch_count == 1 and v.scratch[0].bytes == 2 * rows * padded_w * p.output_c
        assert v.scratch[0].alignment == 16
    sizes = [v.scratch[0].bytes if v.scratch_count else 0 for v in vs]
    assert sizes == sorted(sizes)
    macs = p.batches * p.output_h * p.output_w * p.output_c * p.filter_h * p.filter_w
    assert all(v.macs == macs and v.in_place == 0 for v in vs)
    count = ffi.new("uint32_t *")
    assert lib.ap_depthwise_conv2d_s8_variants(p, lib.AP_ISA_PORTABLE, ffi.NULL, 0, count, ffi.NULL) == lib.AP_OK
    assert count[0] == 4
    small = ffi.new("ap_variant[]", 2)
    err = ffi.new("ap_error *")
    assert lib.ap_depthwise_conv2d_s8_variants(p, lib.AP_ISA_PORTABLE, small, 2, count, err) == lib.AP_ERR_INVALID_ARGUMENT
    one_row = Case(ffi, lib, h=1, w=4, c=2, kh=1, kw=3)
    assert [variant_name(ffi, v) for v in one_row.variants()] == ["direct", "padded_rows_1"]


def test_bad_input(ffi, lib):
    case = Case(ffi, lib, h=6, w=6, c=4, mult=2)
    p, v = case.params, case.variants()[1]
    err = ffi.new("ap_error *")
    out = ffi.new("int8_t[]", int(np.prod(case.out_shape)))
    x = ffi.from_buffer("int8_t[]", case.x)
    scr, bufs = scratch_for(ffi, v)

    def run(params=p, variant=v, prepared=case.prepared.ptr, inp=x, o=out, s=scr, n=1):
        return lib.ap_depthwise_conv2d_s8_run(params, variant, prepared, inp, o, s, n, err)

    assert run() == lib.AP_OK
    assert run(params=ffi.NULL) == lib.AP_ERR_INVALID_ARGUMENT
    assert run(variant=ffi.NULL) == lib.AP_ERR_INVALID_ARGUMENT
    assert run(prepared=ffi.NULL) == lib.AP_ERR_INVALID_ARGUMENT
    assert run(inp=ffi.NULL) == lib.AP_ERR_INVALID_ARGUMENT
    assert run(s=ffi.NULL, n=0) == lib.AP_ERR_INVALID_ARGUMENT
    assert "needs 1 scratch" in message(ffi, err)
    # the padded buffer holds int16: an odd address is refused, not read misaligned
    odd_buf = Guarded(ffi, int(v.scratch[0].bytes) + 1)
    odd = ffi.new("ap_scratch[1]")
    odd[0].data = ffi.cast("char *", odd_buf.ptr) + 1
    odd[0].bytes = v.scratch[0].bytes
    assert run(s=odd) == lib.AP_ERR_INVALID_ARGUMENT and "2-byte aligned" in message(ffi, err)
    assert odd_buf.intact()
    bad_variant = ffi.new("ap_variant *", v[0])
    bad_variant.param = p.output_h + 1
    assert run(variant=bad_variant) == lib.AP_ERR_INVALID_ARGUMENT
    bad_variant.kind = 77
    assert run(variant=bad_variant) == lib.AP_ERR_INVALID_ARGUMENT

    def with_field(name, value, fn=lambda q: run(params=q)):
        q = ffi.new("ap_depthwise_conv2d_params *", p[0])
        setattr(q, name, value)
        return fn(q)

    for name, value in [("output_c", 7), ("stride_h", 0), ("dilation_w", -1), ("pad_h", -1),
                        ("input_offset", 129), ("input_offset", -128), ("batches", 0)]:
        assert with_field(name, value) == lib.AP_ERR_INVALID_ARGUMENT, name
    assert with_field("output_h", 2 ** 31 - 1) == lib.AP_ERR_OVERFLOW
    q = ffi.new("ap_depthwise_conv2d_params *", p[0])
    q.filter_h, q.filter_w = 300, 300
    assert run(params=q) == lib.AP_ERR_UNSUPPORTED
    # requant problems
    q = ffi.new("ap_depthwise_conv2d_params *", p[0])
    q.requant.activation_min, q.requant.activation_max = 10, 5
    assert run(params=q) == lib.AP_ERR_INVALID_ARGUMENT
    q = ffi.new("ap_depthwise_conv2d_params *", p[0])
    q.requant.multiplier = ffi.NULL
    assert run(params=q) == lib.AP_ERR_INVALID_ARGUMENT
    negative = ffi.new("int32_t[]", [-(1 << 30)] * p.output_c)
    q = ffi.new("ap_depthwise_conv2d_params *", p[0])
    q.requant.multiplier = negative
    assert run(params=q) == lib.AP_ERR_INVALID_ARGUMENT and "negative" in message(ffi, err)
    shifts = ffi.new("int32_t[]", [40] * p.output_c)
    q = ffi.new("ap_depthwise_conv2d_params *", p[0])
    q.requant.shift = shifts
    assert run(params=q) == lib.AP_ERR_INVALID_ARGUMENT and "shift" in message(ffi, err)
    # prepared blob made for other params
    other = Case(ffi, lib, h=6, w=6, c=4, mult=2, kh=5, kw=5)
    assert run(prepared=other.prepared.ptr) == lib.AP_ERR_INVALID_ARGUMENT
    q = ffi.new("ap_depthwise_conv2d_params *", p[0])
    q.input_offset = p.input_offset + 1 if p.input_offset < 128 else p.input_offset - 1
    assert run(params=q) == lib.AP_ERR_INVALID_ARGUMENT and "prepared" in message(ffi, err)
    # prepare: too small / misaligned / NULL
    size = ffi.new("size_t *")
    assert lib.ap_depthwise_conv2d_s8_prepared_size(p, size, err) == lib.AP_OK
    blob = Guarded(ffi, size[0])
    wt = ffi.from_buffer("int8_t[]", case.wt)
    assert lib.ap_depthwise_conv2d_s8_prepare(p, lib.AP_ISA_PORTABLE, wt, ffi.NULL, blob.ptr, size[0] - 1, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert err.needed == size[0]
    assert lib.ap_depthwise_conv2d_s8_prepare(p, lib.AP_ISA_PORTABLE, wt, ffi.NULL, ffi.cast("char *", blob.ptr) + 1, size[0], err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_depthwise_conv2d_s8_prepare(p, lib.AP_ISA_PORTABLE, ffi.NULL, ffi.NULL, blob.ptr, size[0], err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_depthwise_conv2d_s8_prepared_size(p, ffi.NULL, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert blob.intact()
    # huge shapes overflow instead of wrapping
    q = ffi.new("ap_depthwise_conv2d_params *", p[0])
    q.batches, q.input_h, q.input_w, q.input_c, q.depth_multiplier, q.output_c = 2 ** 30, 2 ** 30, 2 ** 30, 2 ** 30, 1, 2 ** 30
    assert lib.ap_depthwise_conv2d_s8_prepared_size(q, size, err) == lib.AP_ERR_OVERFLOW


# ---- real layers: LiteRT reference kernels on the shared models ----

from harness.reference import litert_layers as L  # noqa: E402

_LITERT = L.unavailable_reason()


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
def test_litert_layers_bit_exact(ffi, lib):
    layers = L.layers({"DEPTHWISE_CONV_2D"})
    assert len(layers) >= 30
    for layer in layers:
        x, wt, bias = layer.inputs[0], layer.inputs[1], layer.inputs[2] if len(layer.inputs) > 2 else None
        y = layer.outputs[0]
        o = layer.options
        n, h, w, c = x.shape
        _, kh, kw, oc = wt.shape
        _, oh, ow, _ = y.shape
        mult = oc // c
        ph = L.padding_of(o.Padding(), h, kh, o.StrideH(), o.DilationHFactor(), oh)
        pw = L.padding_of(o.Padding(), w, kw, o.StrideW(), o.DilationWFactor(), ow)
        m, s = L.conv_multipliers(layer.input_q[0], layer.input_q[1], layer.output_q[0], oc)
        lo, hi = L.activation_of(o.FusedActivationFunction(), layer.output_q[0])
        case = Case.__new__(Case)
        case.ffi, case.lib = ffi, lib
        case.x, case.wt, case.bias = x, wt, bias
        case.out_shape = y.shape
        zin, zout = L.zero_point_of(layer.input_q[0]), L.zero_point_of(layer.output_q[0])
        case.ref_kwargs = dict(stride=(o.StrideH(), o.StrideW()), dilation=(o.DilationHFactor(), o.DilationWFactor()),
                               pad=(ph, pw), out_hw=(oh, ow), depth_multiplier=mult, input_offset=-zin,
                               multiplier=m, shift=s, output_offset=zout, act_min=lo, act_max=hi)
        # the NumPy reference agrees with LiteRT, then every variant and CPU path with both
        np.testing.assert_array_equal(case.reference(), y, err_msg=f"reference vs LiteRT {layer.name}")
        case.m_c, case.s_c = requant_arrays(ffi, m, s)
        p = ffi.new("ap_depthwise_conv2d_params *")
        (p.batches, p.input_h, p.input_w, p.input_c, p.output_h, p.output_w, p.output_c) = (n, h, w, c, oh, ow, oc)
        p.filter_h, p.filter_w, p.stride_h, p.stride_w = kh, kw, o.StrideH(), o.StrideW()
        p.dilation_h, p.dilation_w, p.pad_h, p.pad_w = o.DilationHFactor(), o.DilationWFactor(), ph, pw
        p.depth_multiplier, p.input_offset = mult, -zin
        p.requant.multiplier, p.requant.shift, p.requant.per_channel = case.m_c, case.s_c, 1
        p.requant.output_offset, p.requant.activation_min, p.requant.activation_max = zout, lo, hi
        case.params = p
        for level in cpu_levels(lib):
            case.prepared = case.prepare(level)
            with cpu(lib, level):
                for v in case.variants():
                    status, got, err = case.run(v)
                    assert status == lib.AP_OK, message(ffi, err)
                    np.testing.assert_array_equal(got, y, err_msg=f"{layer.name} {variant_name(ffi, v)} cpu={level}")


@pytest.mark.parametrize("kw", [
    dict(h=5, w=5, c=8),                                        # SAME, every pixel an edge pixel
    dict(n=2, h=9, w=6, c=16, stride=(2, 2)),                   # strided, two images
    dict(h=7, w=4, c=12, stride=(1, 2), pad=(0, 0)),            # VALID, stride only across
    dict(h=6, w=6, c=4, pad=(2, 1), out_hw=(6, 5)),             # explicit extra padding
    dict(h=3, w=3, c=64, act=(-20, 90), per_channel=0),         # narrow range, one multiplier
    dict(h=4, w=9, c=8, input_zp=-128, output_zp=127),          # zero points at the ends
    dict(h=6, w=5, c=16, scales=(1e-8, 1e-2), output_zp=0),     # shifts to 26: the rounding 1 << e
    dict(h=6, w=5, c=16, scales=(1e-8, 1e-2), output_zp=-100),  # (2 * -100 + 1) << e past 2^30: direct's code
    dict(h=9, w=8, c=8, stride=(2, 2), pad=(0, 0)),             # VALID at stride 2: a column no window reads
])
def test_widened_3x3_on_arm_dsp(ffi, lib, kw):
    """arm-dsp's "widened" and "widened_pairs" (3x3 windows of int16 in scratch, padding
    included): listed for 3x3 layers of depth multiplier 1 with channels % 4 == 0, sized as
    the header says, equal to the reference with exactly their scratch and refused one byte
    short; other ISAs do not list them and their code refuses them."""
    case = Case(ffi, lib, seed=11, **kw)
    p = case.params
    vs = case.variants(lib.AP_ISA_ARM_DSP)
    padded_w = (p.output_w - 1) * p.stride_w + 3
    for name, kind, per_channel in (("widened", lib.AP_DEPTHWISE_CONV2D_WIDENED, 17),
                                    ("widened_pairs", lib.AP_DEPTHWISE_CONV2D_WIDENED_PAIRS, 34)):
        (wide,) = [v for v in vs if variant_name(ffi, v) == name]
        assert wide.kind == kind and wide.scratch_count == 1
        assert wide.scratch[0].bytes == 2 * p.output_c * (3 * padded_w + per_channel)
        assert name not in [variant_name(ffi, v) for v in case.variants(lib.AP_ISA_PORTABLE)]
    check_all(case)
    for wide in [v for v in vs if variant_name(ffi, v).startswith("widened")]:
        wide.isa = lib.AP_ISA_PORTABLE
        status, _, err = case.run(wide)
        assert status == lib.AP_ERR_INVALID_ARGUMENT and "does not apply" in message(ffi, err)


@pytest.mark.parametrize("kw", [
    dict(h=1, w=1, c=8),                                     # a window of one tap
    dict(h=1, w=6, c=12),                                    # one row: windows of 1x2 and 1x3
    dict(h=5, w=1, c=12),                                    # one column: 2x1 and 3x1
    dict(h=2, w=2, c=20, stride=(2, 2)),                     # one pixel, its window 2x2
    dict(h=6, w=6, c=13, stride=(2, 2)),                     # VWW's 6x6 -> 3x3: 3x2, 2x3, 2x2; a tail channel
    dict(n=2, h=12, w=12, c=16, stride=(2, 2)),              # VWW's 12x12 -> 6x6, two images
    dict(h=5, w=7, c=8, pad=(0, 0)),                         # VALID: every window whole
    dict(h=6, w=5, c=8, pad=(2, 2), out_hw=(7, 6)),          # extra padding: windows wholly in it
    dict(h=7, w=6, c=24, stride=(1, 2), input_zp=-128, output_zp=127),   # offset 128, zero points at the ends
    dict(h=5, w=6, c=12, input_zp=127, output_zp=-128),      # offset -127
    dict(h=5, w=5, c=8, per_channel=0),                      # one multiplier: the C loops
    dict(h=5, w=5, c=8, act=(-20, 90)),                      # clamped: the general requantisation
])
def test_direct_lanes_on_arm_dsp(ffi, lib, kw):
    """arm-dsp's "direct" with constants packed for arm-dsp runs a 3x3 layer's windows (every
    shape the padding leaves) from the weight lanes in the prepared blob: equal to the
    reference, as every other ISA's code is on the same blob and arm-dsp's on a portable one."""
    case = Case(ffi, lib, seed=13, **kw)
    expected = case.reference()
    for packed in (lib.AP_ISA_ARM_DSP, lib.AP_ISA_PORTABLE):
        case.prepared = case.prepare(packed)
        for level in cpu_levels(lib):
            for v in case.variants(level):
                status, got, err = case.run(v)
                assert status == lib.AP_OK, message(ffi, err)
                np.testing.assert_array_equal(got, expected, err_msg=f"{variant_name(ffi, v)} cpu={level} packed={packed}")


def test_widened_needs_a_3x3_filter_four_channel_groups_and_one_multiplier(ffi, lib):
    for kw in (dict(c=6), dict(kh=3, kw=5, c=8), dict(c=4, mult=2), dict(c=8, dilation=(2, 1))):
        case = Case(ffi, lib, h=6, w=6, **kw)
        names = [variant_name(ffi, v) for v in case.variants(lib.AP_ISA_ARM_DSP)]
        assert "widened" not in names and "widened_pairs" not in names


def planar_bytes(p, rows):
    """planar's scratch as depthwise_conv2d.h says: a plane of rows along axis a (h, or w for a
    filter one column wide or a square filter with more output rows than columns), then 9 + a
    channel's weight pairs in words."""
    transposed = (p.filter_w == 1 and p.filter_h > 1) or (
        p.filter_h == p.filter_w and p.stride_h == p.stride_w and p.output_h > p.output_w)
    k_a, k_b = (p.filter_w, p.filter_h) if transposed else (p.filter_h, p.filter_w)
    s_a, s_b = (p.stride_w, p.stride_h) if transposed else (p.stride_h, p.stride_w)
    out_a, out_b = (p.output_w, p.output_h) if transposed else (p.output_h, p.output_w)
    rows = out_a if rows == 0 else rows
    row_len = ((out_b - 1) * s_b + k_b + 4 + 1) // 2 * 2
    return 2 * ((rows - 1) * s_a + k_a) * row_len + 4 * (9 + k_a * ((k_b + 1) // 2)), out_a


@pytest.mark.parametrize("kw", [
    dict(h=5, w=25, c=16),                                   # KWS-like: rows along w, 6 groups + 1
    dict(h=25, w=5, c=16),                                   # the same transposed (more rows)
    dict(h=4, w=11, c=8),                                    # three left a row: a group ends it
    dict(h=6, w=6, c=8),                                     # two left a row
    dict(h=3, w=3, c=5),                                     # rows of fewer than four outputs
    dict(h=11, w=9, c=12, stride=(2, 2)),                    # stride 2
    dict(h=9, w=9, c=7, stride=(1, 2)),                      # unequal strides: not transposed
    dict(h=12, w=1, c=16, kh=5, kw=1, pad=(0, 0)),           # 1-D down a column: transposed
    dict(h=7, w=8, c=8, kh=5, kw=5, pad=(0, 0)),             # any filter: SMLAD pairs
    dict(h=6, w=7, c=8, act=(-20, 90)),                      # clamped: the general requantisation
    dict(h=6, w=7, c=8, per_channel=0, input_zp=-128, output_zp=127),   # one multiplier, zero points at the ends
    dict(n=2, h=9, w=6, c=3),                                # two images
])
def test_planar_on_arm_dsp(ffi, lib, kw):
    """arm-dsp's "planar" (one channel at a time from an int16 plane of its padded input) and
    "planar_rows_4" (bands of four output rows): listed for depth multiplier 1 and dilation 1
    whatever the channels, filter and stride, least scratch first, sized as the header says,
    equal to the reference with exactly their scratch and refused one byte short; other ISAs
    do not list them and their code refuses them."""
    case = Case(ffi, lib, seed=12, **kw)
    p = case.params
    vs = case.variants(lib.AP_ISA_ARM_DSP)
    totals = [sum(v.scratch[i].bytes for i in range(v.scratch_count)) for v in vs]
    assert totals == sorted(totals)
    planar = {variant_name(ffi, v): v for v in vs if v.kind == lib.AP_DEPTHWISE_CONV2D_PLANAR}
    whole, out_a = planar_bytes(p, 0)
    assert planar["planar"].param == 0 and planar["planar"].scratch[0].bytes == whole
    if out_a > 4:
        assert planar["planar_rows_4"].scratch[0].bytes == planar_bytes(p, 4)[0]
    else:
        assert "planar_rows_4" not in planar
    assert not any(variant_name(ffi, v).startswith("planar") for v in case.variants(lib.AP_ISA_PORTABLE))
    check_all(case)
    for v in planar.values():
        v.isa = lib.AP_ISA_PORTABLE
        status, _, err = case.run(v)
        assert status == lib.AP_ERR_INVALID_ARGUMENT and "does not apply" in message(ffi, err)


def test_planar_needs_one_multiplier_and_no_dilation(ffi, lib):
    for kw in (dict(c=4, mult=2), dict(c=8, dilation=(2, 1)), dict(c=8, dilation=(1, 2))):
        case = Case(ffi, lib, h=6, w=6, **kw)
        assert not any(variant_name(ffi, v).startswith("planar") for v in case.variants(lib.AP_ISA_ARM_DSP))
