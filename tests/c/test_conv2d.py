"""CONV_2D int8 through the C API: every variant, portable and AVX2, against TFLite.

Ground truth: harness/reference/conv.py (TFLite reference_integer_ops::ConvPerChannel in NumPy)
and, for the real layers of the shared models, LiteRT's own reference kernels.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness.reference.conv import activation_range, conv_geometry, conv_per_channel  # noqa: E402
from harness.reference.quant import quantize_multiplier  # noqa: E402

from conftest import MODELS_DIR as MODELS  # noqa: E402  (honours ARENAPLAN_MODELS)
GUARD = 64
POISON = 0xA5


# --------------------------------------------------------------------------------------------
# Helpers


class Guarded:
    """A byte buffer between poisoned guard zones (and poisoned itself unless filled)."""

    def __init__(self, ffi, size: int, fill: np.ndarray | None = None):
        self.size = size
        self.raw = np.full(GUARD + size + GUARD, POISON, dtype=np.uint8)
        if fill is not None:
            self.raw[GUARD:GUARD + size] = np.frombuffer(np.ascontiguousarray(fill).tobytes(),
                                                         dtype=np.uint8)
        self._ffi = ffi

    def pointer(self, ctype="int8_t *"):
        return self._ffi.cast(ctype, self._ffi.from_buffer("int8_t[]", self.raw) + GUARD)

    def guards_intact(self) -> bool:
        return bool(np.all(self.raw[:GUARD] == POISON) and np.all(self.raw[GUARD + self.size:] == POISON))

    def body(self) -> np.ndarray:
        return self.raw[GUARD:GUARD + self.size]


class Conv:
    """One conv's params, prepared blob and runner through cffi."""

    def __init__(self, ffi, lib, *, input_shape, w, bias, stride=(1, 1), dilation=(1, 1),
                 pad=(0, 0), out_hw, input_offset, multiplier, shift, output_offset=0,
                 act_min=-128, act_max=127, per_channel=True):
        self.ffi, self.lib = ffi, lib
        n, h, wd, c = input_shape
        o, fh, fw, _ = w.shape
        self.input_shape = tuple(input_shape)
        self.output_shape = (n, out_hw[0], out_hw[1], o)
        self.keep = []
        p = ffi.new("ap_conv2d_params *")
        (p.batches, p.input_h, p.input_w, p.input_c) = (n, h, wd, c)
        (p.output_h, p.output_w, p.output_c, p.filter_h, p.filter_w) = (out_hw[0], out_hw[1], o, fh, fw)
        (p.stride_h, p.stride_w, p.dilation_h, p.dilation_w) = (*stride, *dilation)
        (p.pad_h, p.pad_w) = pad
        p.input_offset = input_offset
        mult = np.ascontiguousarray(np.atleast_1d(multiplier), dtype=np.int32)
        shf = np.ascontiguousarray(np.atleast_1d(shift), dtype=np.int32)
        self.mult = ffi.new("int32_t[]", [int(v) for v in mult])
        self.shift = ffi.new("int32_t[]", [int(v) for v in shf])
        p.requant.multiplier = self.mult
        p.requant.shift = self.shift
        p.requant.per_channel = 1 if per_channel else 0
        p.requant.output_offset = output_offset
        p.requant.activation_min = act_min
        p.requant.activation_max = act_max
        self.params = p
        self.w = np.ascontiguousarray(w, dtype=np.int8)
        self.bias = None if bias is None else np.ascontiguousarray(bias, dtype=np.int32)
        err = ffi.new("ap_error *")
        size = ffi.new("size_t *")
        st_ = lib.ap_conv2d_s8_prepared_size(p, size, err)
        assert st_ == lib.AP_OK, ffi.string(err.message)
        self.prepared_size = size[0]
        self.prepared = np.zeros(self.prepared_size // 16 + 1, dtype=np.dtype((np.void, 16)))
        bias_ptr = ffi.NULL if self.bias is None else ffi.cast("int32_t *", ffi.from_buffer(self.bias))
        st_ = lib.ap_conv2d_s8_prepare(p, lib.AP_ISA_PORTABLE, ffi.cast("int8_t *", ffi.from_buffer(self.w)), bias_ptr,
                                       ffi.from_buffer(self.prepared), self.prepared_size, err)
        assert st_ == lib.AP_OK, ffi.string(err.message)

    def prepared_ptr(self):
        return self.ffi.cast("void *", self.ffi.from_buffer(self.prepared))

    def variants(self, isa=None):
        ffi, lib = self.ffi, self.lib
        out = ffi.new("ap_variant[]", lib.AP_MAX_VARIANTS)
        count = ffi.new("uint32_t *")
        err = ffi.new("ap_error *")
        isa = lib.AP_ISA_PORTABLE if isa is None else isa
        st_ = lib.ap_conv2d_s8_variants(self.params, isa, out, lib.AP_MAX_VARIANTS, count, err)
        assert st_ == lib.AP_OK, ffi.string(err.message)
        self.keep.append(out)  # the pointers below do not keep the array alive
        return [out + i for i in range(count[0])]

    def run(self, variant, x, *, scratch_shortfall=0):
        """Run with each requested scratch exactly sized (minus scratch_shortfall bytes) between
        guards. Returns (status, error, output ndarray or None, guards_ok, output_untouched)."""
        ffi, lib = self.ffi, self.lib
        x = np.ascontiguousarray(x, dtype=np.int8)
        inp = Guarded(ffi, x.size, x)
        out_size = int(np.prod(self.output_shape))
        out = Guarded(ffi, out_size)
        n = variant.scratch_count
        scratch = ffi.new("ap_scratch[]", max(n, 1))
        bufs = []
        for i in range(n):
            size = variant.scratch[i].bytes - scratch_shortfall
            g = Guarded(ffi, size)
            bufs.append(g)
            scratch[i].data = g.pointer("void *")
            scratch[i].bytes = size
        err = ffi.new("ap_error *")
        st_ = lib.ap_conv2d_s8_run(self.params, variant, self.prepared_ptr(), inp.pointer(),
                                   out.pointer(), scratch, n, err)
        guards_ok = inp.guards_intact() and out.guards_intact() and all(b.guards_intact() for b in bufs)
        untouched = bool(np.all(out.body() == POISON))
        result = out.body().view(np.int8).reshape(self.output_shape).copy() if st_ == lib.AP_OK else None
        input_unchanged = np.array_equal(inp.body().view(np.int8), x.reshape(-1))
        return st_, err, result, guards_ok and input_unchanged, untouched


def check_all_variants(ffi, lib, conv: Conv, x: np.ndarray, expected: np.ndarray, *, shortfall=True):
    """Every variant of every ISA this build and CPU run (each ISA's own list, run with its
    code): equal to `expected`, nothing written outside its buffers; with one scratch byte too
    few: AP_ERR_SCRATCH_TOO_SMALL and the output untouched. Returns the portable list."""
    levels = [isa for isa in (lib.AP_ISA_PORTABLE, lib.AP_ISA_X86_AVX2, lib.AP_ISA_ARM_DSP)
              if lib.ap_isa_available(isa)]
    for level in levels:
        variants = conv.variants(level)
        assert variants[0].scratch_count == 0 and ffi.string(variants[0].name) == b"direct"
        assert all(v.isa == level for v in variants)
        totals = [sum(v.scratch[i].bytes for i in range(v.scratch_count)) for v in variants]
        assert totals == sorted(totals)
        for v in variants:
            name = ffi.string(v.name).decode()
            st_, err, got, guards_ok, _ = conv.run(v, x)
            assert st_ == lib.AP_OK, (name, ffi.string(err.message))
            assert guards_ok, f"{name} wrote outside its buffers (level {level})"
            if not np.array_equal(got, expected):
                bad = np.argwhere(got != expected)
                raise AssertionError(f"{name} (level {level}) differs at {len(bad)} places, "
                                     f"first {bad[0].tolist()}: {got[tuple(bad[0])]} != {expected[tuple(bad[0])]}")
            if shortfall and v.scratch_count:
                st_, err, _, guards_ok, untouched = conv.run(v, x, scratch_shortfall=1)
                assert st_ == lib.AP_ERR_SCRATCH_TOO_SMALL, name
                assert err.index == 0 and err.needed == v.scratch[0].bytes
                assert err.available == v.scratch[0].bytes - 1
                assert f"scratch buffer 0 needs {v.scratch[0].bytes} bytes, got {v.scratch[0].bytes - 1}".encode() in ffi.string(err.message)
                assert guards_ok and untouched
    return conv.variants()


def quantized_case(rng, *, input_shape, filter_shape, stride=(1, 1), dilation=(1, 1),
                   padding="same", pad=None, out_hw=None, input_zp=None, output_zp=None,
                   per_channel=True, bias=True, act=None, scale_exp=(-16.0, 1.0)):
    """Random tensors and quantisation for one conv; returns (kwargs for Conv, x, expected)."""
    n, h, wd, c = input_shape
    o, fh, fw = filter_shape
    if pad is None:
        oh, ow, ph, pw = conv_geometry((h, wd), (fh, fw), stride, dilation, padding)
    else:
        (ph, pw), (oh, ow) = pad, out_hw
    x = rng.integers(-128, 128, size=input_shape, dtype=np.int8)
    w = rng.integers(-127, 128, size=(o, fh, fw, c), dtype=np.int8)
    b = rng.integers(-(1 << 16), 1 << 16, size=o, dtype=np.int32) if bias else None
    izp = int(rng.integers(-128, 128)) if input_zp is None else input_zp
    ozp = int(rng.integers(-128, 128)) if output_zp is None else output_zp
    scales = 2.0 ** rng.uniform(*scale_exp, size=o if per_channel else 1)
    qm = [quantize_multiplier(float(s)) for s in scales]
    mult = np.array([m for m, _ in qm], dtype=np.int64)
    shift = np.array([s for _, s in qm], dtype=np.int64)
    if act is None:
        lo = int(rng.integers(-128, 128))
        act = (lo, int(rng.integers(lo, 128)))
    expected = conv_per_channel(x, w, b, stride=stride, dilation=dilation, pad=(ph, pw),
                                out_hw=(oh, ow), input_offset=-izp, multiplier=mult, shift=shift,
                                output_offset=ozp, act_min=act[0], act_max=act[1])
    kwargs = dict(input_shape=input_shape, w=w, bias=b, stride=stride, dilation=dilation,
                  pad=(ph, pw), out_hw=(oh, ow), input_offset=-izp, multiplier=mult, shift=shift,
                  output_offset=ozp, act_min=act[0], act_max=act[1], per_channel=per_channel)
    return kwargs, x, expected


# --------------------------------------------------------------------------------------------
# Variants


def names(ffi, variants):
    return [ffi.string(v.name).decode() for v in variants]


def test_variants_of_a_3x3_layer(ffi, lib):
    rng = np.random.default_rng(1)
    kwargs, _, _ = quantized_case(rng, input_shape=(1, 56, 56, 64), filter_shape=(64, 3, 3),
                                  scale_exp=(-16, -12))
    conv = Conv(ffi, lib, **kwargs)
    vs = conv.variants()
    k_pad = 3 * 3 * 64
    assert names(ffi, vs) == ["direct", "im2col_rows_3", "im2col_rows_12", "im2col_rows_48",
                              "im2col_rows_192", "im2col_rows_768", "im2col_rows_3072", "im2col"]
    expected_bytes = [0] + [r * k_pad for r in (3, 12, 48, 192, 768, 3072)] + [56 * 56 * k_pad]
    assert [v.scratch[0].bytes if v.scratch_count else 0 for v in vs] == expected_bytes
    assert [v.kind for v in vs] == [lib.AP_CONV2D_DIRECT] + [lib.AP_CONV2D_IM2COL_ROWS] * 6 + [lib.AP_CONV2D_IM2COL]
    assert [v.param for v in vs][1:7] == [3, 12, 48, 192, 768, 3072]
    for v in vs:
        assert v.macs == 56 * 56 * 64 * 9 * 64
        assert v.in_place == 0
        assert all(v.scratch[i].alignment == 16 for i in range(v.scratch_count))
    assert conv.prepared_size == 64 + 64 * 4 + 64 * k_pad


def test_variants_of_pointwise_and_odd_layers(ffi, lib):
    rng = np.random.default_rng(2)
    conv = Conv(ffi, lib, **quantized_case(rng, input_shape=(2, 5, 7, 17), filter_shape=(7, 1, 1))[0])
    assert names(ffi, conv.variants()) == ["direct", "gemm_1x1"]
    assert all(v.scratch_count == 0 for v in conv.variants())
    # strided 1x1 (a ResNet shortcut): no gemm_1x1, im2col rows of k_pad = 20 bytes
    conv = Conv(ffi, lib, **quantized_case(rng, input_shape=(1, 8, 8, 17), filter_shape=(3, 1, 1),
                                           stride=(2, 2), padding="valid")[0])
    vs = conv.variants()
    assert names(ffi, vs) == ["direct", "im2col_rows_3", "im2col_rows_12", "im2col"]
    assert [v.scratch[0].bytes for v in vs[1:]] == [3 * 20, 12 * 20, 16 * 20]
    # one output pixel: only direct and the whole-image im2col
    conv = Conv(ffi, lib, **quantized_case(rng, input_shape=(1, 3, 3, 2), filter_shape=(4, 3, 3),
                                           padding="valid")[0])
    assert names(ffi, conv.variants()) == ["direct", "im2col"]


def test_arm_dsp_variants_have_their_own_tile_and_int16_columns(ffi, lib):
    """arm-dsp lists row blocks of 2 * 4^j pixels (its kernel's pixel pairs),
    im2col16_rows_2 and _4 (2 or 4 pixels' rows widened to int16, 2 * C * k_pad, plus an int8
    row to gather into, k_pad) and im2col16w_rows_4 (the same with, per output channel, its
    weights widened and its constants: 2 * k_pad + 12), least scratch first; the portable code
    refuses the arm-dsp-only variants."""
    rng = np.random.default_rng(5)
    kwargs, x, expected = quantized_case(rng, input_shape=(1, 9, 9, 16), filter_shape=(8, 3, 3))
    conv = Conv(ffi, lib, **kwargs)
    k_pad = 9 * 16
    vs = conv.variants(lib.AP_ISA_ARM_DSP)
    assert names(ffi, vs) == ["direct", "im2col_rows_2", "im2col16_rows_2", "im2col_rows_8", "im2col16_rows_4",
                              "im2col16w_rows_4", "im2col_rows_32", "im2col"]
    assert [v.scratch[0].bytes if v.scratch_count else 0 for v in vs] == \
        [0, 2 * k_pad, 5 * k_pad, 8 * k_pad, 9 * k_pad, 9 * k_pad + 8 * (2 * k_pad + 12), 32 * k_pad, 81 * k_pad]
    assert (vs[2].kind, vs[2].param) == (lib.AP_CONV2D_IM2COL16_ROWS, 2)
    assert (vs[4].kind, vs[4].param) == (lib.AP_CONV2D_IM2COL16_ROWS, 4)
    assert (vs[5].kind, vs[5].param) == (lib.AP_CONV2D_IM2COL16W_ROWS, 4)
    # pointwise: gemm_1x1 and the int16 columns, which apply to every shape
    pw = Conv(ffi, lib, **quantized_case(rng, input_shape=(1, 5, 7, 17), filter_shape=(7, 1, 1))[0])
    assert names(ffi, pw.variants(lib.AP_ISA_ARM_DSP)) == ["direct", "gemm_1x1", "im2col16_rows_2",
                                                          "im2col16_rows_4", "im2col16w_rows_4"]
    for v in (vs[2], vs[4], vs[5]):
        v.isa = lib.AP_ISA_PORTABLE
        st_, err, _, _, _ = conv.run(v, x)
        assert st_ == lib.AP_ERR_INVALID_ARGUMENT
        assert b"does not apply" in ffi.string(err.message)


@pytest.mark.parametrize("name", ["im2col16_rows_2", "im2col16_rows_4", "im2col16w_rows_4", "strip16"])
def test_arm_dsp_int16_scratch_must_be_word_aligned(ffi, lib, name):
    """The arm-dsp variants that read their scratch a word or two at a time (LDM, LDRD: a
    HardFault on a Cortex-M at an address that is not a multiple of 4) refuse scratch that is
    not 4-byte aligned, naming it, and leave the output alone; at 4 bytes off they run."""
    rng = np.random.default_rng(11)
    kwargs, x, expected = quantized_case(rng, input_shape=(1, 6, 9, 3), filter_shape=(8, 3, 3))
    conv = Conv(ffi, lib, **kwargs)
    v = next(v for v in conv.variants(lib.AP_ISA_ARM_DSP) if ffi.string(v.name).decode() == name)
    need = v.scratch[0].bytes
    raw = ffi.new("uint8_t[]", need + 32)
    lead = -int(ffi.cast("uintptr_t", raw)) % 16
    x8 = np.ascontiguousarray(x, dtype=np.int8)
    for offset, ok in ((0, True), (4, True), (1, False), (2, False), (3, False)):
        out = np.full(expected.size, 0x5A, dtype=np.uint8)
        scratch = ffi.new("ap_scratch[]", 1)
        scratch[0].data = raw + lead + offset
        scratch[0].bytes = need
        err = ffi.new("ap_error *")
        st_ = lib.ap_conv2d_s8_run(conv.params, v, conv.prepared_ptr(), ffi.cast("const int8_t *", ffi.from_buffer(x8)),
                                   ffi.cast("int8_t *", ffi.from_buffer(out)), scratch, 1, err)
        if ok:
            assert st_ == lib.AP_OK, ffi.string(err.message)
            assert np.array_equal(out.view(np.int8).reshape(expected.shape), expected)
        else:
            assert st_ == lib.AP_ERR_INVALID_ARGUMENT
            assert f"scratch 0 of {name} must be 4-byte aligned".encode() in ffi.string(err.message)
            assert np.all(out == 0x5A)


def strip16_scratch(oc, fh, fw, c, ow, stride_w):
    """arm-dsp strip16's scratch (conv2d.h): per block of 4 channels 12 + 4 * k2 words (biases,
    int16 weight pairs, multipliers and exponents), then copies strips of filter_h rows of
    v / 2 + 1 words, v the padded row's values (copies 2 where stride_w * c is odd)."""
    k2 = fh * ((fw * c + 1) // 2)
    oc_pad = (oc + 3) // 4 * 4
    v = ((ow - 1) * stride_w + fw) * c
    copies = 2 if (stride_w * c) % 2 == 1 and ow > 1 else 1
    return oc_pad * (12 + 4 * k2) + 4 * copies * fh * (v // 2 + 1)


@pytest.mark.parametrize("input_shape, filter_shape, stride, padding, act, dilation", [
    ((1, 10, 12, 3), (16, 3, 3), (1, 1), "same", (-128, 127), 1),   # ResNet-8's first layer, smaller
    ((2, 9, 7, 3), (6, 3, 3), (2, 2), "same", None, 1),      # VWW's: stride 2 (the strip moves 2 rows)
    ((1, 13, 7, 1), (8, 10, 4), (2, 2), "valid", (-128, 127), 1),   # KWS's: 10x4 over one channel
    ((1, 7, 6, 1), (5, 5, 5), (1, 1), "same", (-128, 127), 1),      # k2 15 from 5x5, a tail block
    ((1, 4, 9, 2), (7, 1, 3), (1, 3), "valid", None, 1),            # one filter row, stride 3
    ((1, 8, 8, 4), (4, 2, 2), (3, 1), "same", (-128, 127), 1),      # stride 3 over 2 rows: rebuilt
    ((1, 11, 8, 3), (5, 3, 3), (2, 1), "same", (-128, 127), 2),     # dilation_h 2, stride_h 2: moves 1
    ((1, 9, 8, 3), (5, 3, 3), (1, 1), "valid", None, 2),            # dilation_h 2, stride_h 1: rebuilt
])
def test_strip16_is_an_arm_dsp_variant_for_few_input_channels(ffi, lib, input_shape, filter_shape, stride,
                                                              padding, act, dilation):
    """strip16 (a row of pixels' input rows widened to int16, the weights with them) is listed
    for arm-dsp with its scratch, runs bit-exact with exactly that scratch (both requantisation
    paths: the full int8 range takes the fast one) and refuses one byte less; other ISAs do not
    list it and refuse it."""
    rng = np.random.default_rng(sum(input_shape) + sum(filter_shape))
    kwargs, x, expected = quantized_case(rng, input_shape=input_shape, filter_shape=filter_shape, stride=stride,
                                         dilation=(dilation, 1), padding=padding, act=act, scale_exp=(-14, -8))
    conv = Conv(ffi, lib, **kwargs)
    vs = conv.variants(lib.AP_ISA_ARM_DSP)
    strip = [v for v in vs if ffi.string(v.name) == b"strip16"]
    assert len(strip) == 1
    v = strip[0]
    ow = kwargs["out_hw"][1]
    assert v.kind == lib.AP_CONV2D_STRIP16 and v.param == 0 and v.scratch_count == 1
    assert v.scratch[0].bytes == strip16_scratch(filter_shape[0], filter_shape[1], filter_shape[2],
                                                 input_shape[3], ow, stride[1])
    check_all_variants(ffi, lib, conv, x, expected)
    for isa in (lib.AP_ISA_PORTABLE, lib.AP_ISA_X86_AVX2):
        assert "strip16" not in names(ffi, conv.variants(isa))
    v.isa = lib.AP_ISA_PORTABLE
    st_, err, _, _, _ = conv.run(v, x)
    assert st_ == lib.AP_ERR_INVALID_ARGUMENT and b"does not apply" in ffi.string(err.message)


def test_strip16_bounds(ffi, lib):
    """strip16 applies to at most 4 input channels, dilation_w 1, k2 <= 32, and not where
    gemm_1x1 does."""
    rng = np.random.default_rng(9)

    def listed(**spec):
        conv = Conv(ffi, lib, **quantized_case(rng, **spec)[0])
        return "strip16" in names(ffi, conv.variants(lib.AP_ISA_ARM_DSP))
    assert listed(input_shape=(1, 6, 6, 4), filter_shape=(4, 3, 3))
    assert not listed(input_shape=(1, 6, 6, 5), filter_shape=(4, 3, 3))
    assert not listed(input_shape=(1, 6, 6, 3), filter_shape=(4, 3, 3), dilation=(1, 2))
    assert listed(input_shape=(1, 6, 6, 3), filter_shape=(4, 3, 3), dilation=(2, 1))
    assert listed(input_shape=(1, 9, 9, 4), filter_shape=(4, 4, 4))      # k2 = 4 * 8 = 32
    assert not listed(input_shape=(1, 9, 9, 4), filter_shape=(4, 3, 6))   # k2 = 3 * 12 = 36
    assert not listed(input_shape=(1, 6, 6, 3), filter_shape=(4, 1, 1))   # pointwise: gemm_1x1
    assert listed(input_shape=(1, 6, 6, 3), filter_shape=(4, 1, 1), stride=(2, 2), padding="valid")


def lanes_scratch(k, oc):
    """The x86-avx2 lanes variant's scratch (conv2d.h): int16 weights [ceil(k/2)][oc8][2],
    7 int32 constants per channel of oc8, 12 int16 im2col rows of (k + 16) rounded up to 16."""
    oc8 = (oc + 7) // 8 * 8
    return 4 * ((k + 1) // 2) * oc8 + 28 * oc8 + 2 * 12 * ((k + 16 + 15) // 16 * 16)


@pytest.mark.parametrize("input_shape, filter_shape, stride", [
    ((1, 9, 9, 16), (16, 3, 3), (1, 1)),     # ResNet-8-like 3x3
    ((1, 12, 10, 3), (8, 3, 3), (2, 2)),     # first conv, k = 27
    ((1, 6, 7, 24), (20, 1, 1), (1, 1)),     # pointwise, oc not a multiple of 8
    ((2, 5, 5, 8), (5, 2, 3), (1, 1)),       # two images, odd k
])
def test_lanes_is_an_x86_avx2_variant_of_its_own(ffi, lib, input_shape, filter_shape, stride):
    """lanes is listed for x86-avx2 only, where its weights fit its bounds, with its widened
    weights, constants and panel as one scratch request; it runs bit-exact with exactly that
    scratch, refuses one byte less, and another ISA's code refuses it."""
    rng = np.random.default_rng(sum(input_shape) + sum(filter_shape))
    kwargs, x, expected = quantized_case(rng, input_shape=input_shape, filter_shape=filter_shape,
                                         stride=stride)
    conv = Conv(ffi, lib, **kwargs)
    k = filter_shape[1] * filter_shape[2] * input_shape[3]
    avx2 = conv.variants(lib.AP_ISA_X86_AVX2)
    lanes = [v for v in avx2 if ffi.string(v.name) == b"lanes"]
    assert len(lanes) == 1
    v = lanes[0]
    assert v.kind == lib.AP_CONV2D_LANES and v.param == 0 and v.isa == lib.AP_ISA_X86_AVX2
    assert v.scratch_count == 1 and v.scratch[0].bytes == lanes_scratch(k, filter_shape[0])
    # the other variants are the portable list's, in the same order
    assert [n for n in names(ffi, avx2) if n != "lanes"] == names(ffi, conv.variants(lib.AP_ISA_PORTABLE))
    for isa in (lib.AP_ISA_PORTABLE, lib.AP_ISA_ARM_DSP):
        assert "lanes" not in names(ffi, conv.variants(isa))
    if lib.ap_isa_available(lib.AP_ISA_X86_AVX2):
        check_all_variants(ffi, lib, conv, x, expected)
    v.isa = lib.AP_ISA_PORTABLE
    st_, err, _, _, untouched = conv.run(v, x)
    assert st_ == lib.AP_ERR_INVALID_ARGUMENT and untouched
    assert b"does not apply" in ffi.string(err.message)


def test_lanes_bounds(ffi, lib):
    """Past its bounds (k > 576, more than 256 channels, or more than 8192 int16 weight pairs)
    lanes is not offered; past half of the pairs it needs 32 output pixels."""
    rng = np.random.default_rng(11)

    def has_lanes(input_shape, filter_shape):
        conv = Conv(ffi, lib, **quantized_case(rng, input_shape=input_shape, filter_shape=filter_shape,
                                               padding="valid")[0])
        return "lanes" in names(ffi, conv.variants(lib.AP_ISA_X86_AVX2))

    assert has_lanes((1, 10, 10, 64), (16, 3, 3))        # k = 576, 64 pixels
    assert not has_lanes((1, 10, 10, 65), (8, 3, 3))     # k = 585
    assert has_lanes((1, 4, 4, 4), (256, 1, 1))
    assert not has_lanes((1, 4, 4, 4), (257, 1, 1))
    assert not has_lanes((1, 8, 8, 130), (128, 1, 1))    # 65 * 128 pairs > 8192
    assert has_lanes((1, 6, 6, 128), (128, 1, 1))        # 64 * 128 pairs, 36 pixels
    assert not has_lanes((1, 5, 5, 128), (128, 1, 1))    # 25 pixels


def test_variants_count_query_and_capacity(ffi, lib):
    rng = np.random.default_rng(3)
    conv = Conv(ffi, lib, **quantized_case(rng, input_shape=(1, 8, 8, 4), filter_shape=(4, 3, 3))[0])
    count = ffi.new("uint32_t *")
    err = ffi.new("ap_error *")
    assert lib.ap_conv2d_s8_variants(conv.params, lib.AP_ISA_PORTABLE, ffi.NULL, 0, count, err) == lib.AP_OK
    assert count[0] == 5  # direct, rows_3, rows_12, rows_48, im2col
    small = ffi.new("ap_variant[]", 2)
    assert lib.ap_conv2d_s8_variants(conv.params, lib.AP_ISA_PORTABLE, small, 2, count, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert count[0] == 5 and b"5 variants" in ffi.string(err.message)
    assert lib.ap_conv2d_s8_variants(conv.params, lib.AP_ISA_PORTABLE, small, 2, ffi.NULL, err) == lib.AP_ERR_INVALID_ARGUMENT


def test_prepared_blob_does_not_depend_on_cpu(ffi, lib):
    rng = np.random.default_rng(4)
    kwargs, _, _ = quantized_case(rng, input_shape=(1, 6, 6, 7), filter_shape=(13, 3, 2))
    try:
        lib.ap_cpu_limit(lib.AP_CPU_PORTABLE)
        a = Conv(ffi, lib, **kwargs).prepared.tobytes()
    finally:
        lib.ap_cpu_limit(lib.AP_CPU_AVX2)
    b = Conv(ffi, lib, **kwargs).prepared.tobytes()
    assert a == b


# --------------------------------------------------------------------------------------------
# Named cases and random cases against the NumPy reference


NAMED = {
    # name: (input_shape, (out_c, fh, fw), stride, dilation, padding)
    "3x3_same": ((1, 9, 9, 8), (16, 3, 3), (1, 1), (1, 1), "same"),
    "3x3_stride2_rgb": ((1, 13, 11, 3), (8, 3, 3), (2, 2), (1, 1), "same"),
    "1x1_odd_channels": ((2, 5, 6, 17), (7, 1, 1), (1, 1), (1, 1), "valid"),
    "1x1_one_channel": ((1, 7, 3, 1), (3, 1, 1), (1, 1), (1, 1), "valid"),
    "1x1_stride2": ((1, 8, 8, 16), (32, 1, 1), (2, 2), (1, 1), "valid"),
    "1xN": ((1, 6, 40, 3), (13, 1, 5), (1, 2), (1, 1), "same"),
    "Nx1_dilated": ((1, 20, 4, 7), (5, 4, 1), (1, 1), (2, 1), "same"),
    "kws_10x4_c1": ((1, 49, 10, 1), (12, 10, 4), (2, 2), (1, 1), "same"),
    "dilated_valid": ((2, 11, 12, 5), (25, 3, 3), (3, 1), (2, 2), "valid"),
    "channels_1_out_1": ((1, 5, 5, 1), (1, 3, 3), (1, 1), (1, 1), "same"),
    "filter_bigger_than_input_same": ((1, 3, 2, 4), (6, 5, 5), (1, 1), (1, 1), "same"),
    "long_k_chunked": ((1, 4, 5, 300), (14, 3, 3), (1, 1), (1, 1), "same"),       # k 2700 > 2048
    "longer_k_than_direct_stack": ((1, 3, 3, 520), (5, 3, 3), (1, 1), (1, 1), "same"),  # k 4680
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_case_every_variant(ffi, lib, name):
    shape, filt, stride, dilation, padding = NAMED[name]
    rng = np.random.default_rng(abs(hash(name)) % (1 << 32))
    kwargs, x, expected = quantized_case(rng, input_shape=shape, filter_shape=filt, stride=stride,
                                         dilation=dilation, padding=padding)
    check_all_variants(ffi, lib, Conv(ffi, lib, **kwargs), x, expected)


@pytest.mark.parametrize("per_channel,bias", [(False, True), (True, False)])
def test_per_tensor_and_no_bias(ffi, lib, per_channel, bias):
    rng = np.random.default_rng(5)
    kwargs, x, expected = quantized_case(rng, input_shape=(1, 7, 7, 6), filter_shape=(14, 3, 3),
                                         per_channel=per_channel, bias=bias)
    check_all_variants(ffi, lib, Conv(ffi, lib, **kwargs), x, expected)


def test_explicit_asymmetric_padding(ffi, lib):
    """Explicit top/left padding with a larger far side (e.g. PyTorch-style (1, 2) pads)."""
    rng = np.random.default_rng(6)
    kwargs, x, expected = quantized_case(rng, input_shape=(1, 5, 6, 3), filter_shape=(5, 3, 3),
                                         pad=(1, 0), out_hw=(6, 5))  # far padding 2 rows, 1 col
    check_all_variants(ffi, lib, Conv(ffi, lib, **kwargs), x, expected)


def test_extreme_quantisation(ffi, lib):
    """Zero points at the int8 ends, the largest left shift, tiny multipliers, saturation."""
    rng = np.random.default_rng(7)
    for izp, ozp, exp in [(-128, 127, (-31, -30)), (127, -128, (0.5, 1.0)), (0, 0, (-2, 1))]:
        kwargs, x, expected = quantized_case(rng, input_shape=(1, 6, 5, 9), filter_shape=(11, 3, 3),
                                             input_zp=izp, output_zp=ozp, scale_exp=exp,
                                             act=(-128, 127))
        check_all_variants(ffi, lib, Conv(ffi, lib, **kwargs), x, expected, shortfall=False)
    kwargs, x, _ = quantized_case(rng, input_shape=(1, 4, 4, 3), filter_shape=(4, 1, 1))
    mult = np.full(4, (1 << 31) - 1)
    shift = np.array([30, -31, 0, 1])
    kwargs.update(multiplier=mult, shift=shift)
    conv = Conv(ffi, lib, **kwargs)
    expected = conv_per_channel(x, kwargs["w"], kwargs["bias"], out_hw=(4, 4),
                                input_offset=kwargs["input_offset"], multiplier=mult, shift=shift,
                                output_offset=kwargs["output_offset"], act_min=kwargs["act_min"],
                                act_max=kwargs["act_max"])
    check_all_variants(ffi, lib, conv, x, expected)


CHANNELS = st.sampled_from([1, 2, 3, 4, 5, 7, 8, 12, 13, 16, 17, 24])


@st.composite
def conv_cases(draw):
    n = draw(st.integers(1, 2))
    c = draw(CHANNELS)
    o = draw(CHANNELS)
    fh = draw(st.integers(1, 4))
    fw = draw(st.sampled_from([1, 1, 2, 3, 5]))
    sh, sw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dh, dw = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    padding = draw(st.sampled_from(["same", "valid"]))
    h = draw(st.integers(1, 12))
    w = draw(st.integers(1, 12))
    if padding == "valid":
        h = max(h, (fh - 1) * dh + 1)
        w = max(w, (fw - 1) * dw + 1)
    seed = draw(st.integers(0, 2**32 - 1))
    per_channel = draw(st.booleans())
    return dict(input_shape=(n, h, w, c), filter_shape=(o, fh, fw), stride=(sh, sw),
                dilation=(dh, dw), padding=padding, per_channel=per_channel), seed


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conv_cases())
def test_random_convs_every_variant_both_paths(ffi, lib, case):
    spec, seed = case
    rng = np.random.default_rng(seed)
    kwargs, x, expected = quantized_case(rng, **spec)
    check_all_variants(ffi, lib, Conv(ffi, lib, **kwargs), x, expected)


# --------------------------------------------------------------------------------------------
# Real layers: the CONV_2D ops of the shared models against LiteRT's reference kernels


def _conv_model_paths():
    """The shared models that have a CONV_2D (all of them if `tflite` cannot tell)."""
    paths = sorted(MODELS.glob("*.tflite")) if MODELS.is_dir() else []
    try:
        import tflite
    except ImportError:
        return paths

    def has_conv(path):
        model = tflite.Model.GetRootAsModel(path.read_bytes(), 0)
        graph = model.Subgraphs(0)
        codes = [model.OperatorCodes(graph.Operators(i).OpcodeIndex())
                 for i in range(graph.OperatorsLength())]
        return any(max(c.BuiltinCode(), c.DeprecatedBuiltinCode()) == tflite.BuiltinOperator.CONV_2D
                   for c in codes)

    return [p for p in paths if has_conv(p)]


def conv_layers(path: Path):
    """Each CONV_2D of subgraph 0 as a dict of tensor indices, options and constants."""
    tflite = pytest.importorskip("tflite", reason="the `tflite` flatbuffer package is needed")
    model = tflite.Model.GetRootAsModel(path.read_bytes(), 0)
    graph = model.Subgraphs(0)

    def tensor(i):
        t = graph.Tensors(i)
        q = t.Quantization()
        data = model.Buffers(t.Buffer()).DataAsNumpy()
        return dict(shape=tuple(t.ShapeAsNumpy()), scale=q.ScaleAsNumpy(),
                    zero_point=q.ZeroPointAsNumpy(),
                    data=None if isinstance(data, int) else np.asarray(data, dtype=np.uint8))

    acts = {0: None, 1: "relu", 2: "relu_n1_to_1", 3: "relu6"}
    layers = []
    for i in range(graph.OperatorsLength()):
        op = graph.Operators(i)
        code = model.OperatorCodes(op.OpcodeIndex())
        if max(code.BuiltinCode(), code.DeprecatedBuiltinCode()) != tflite.BuiltinOperator.CONV_2D:
            continue
        options = tflite.Conv2DOptions()
        table = op.BuiltinOptions()
        options.Init(table.Bytes, table.Pos)
        ins = [op.Inputs(j) for j in range(op.InputsLength())]
        layers.append(dict(
            op=i, input=ins[0], output=op.Outputs(0),
            x=tensor(ins[0]), w=tensor(ins[1]), b=tensor(ins[2]) if len(ins) > 2 and ins[2] >= 0 else None,
            y=tensor(op.Outputs(0)),
            stride=(options.StrideH(), options.StrideW()),
            dilation=(options.DilationHFactor(), options.DilationWFactor()),
            padding="same" if options.Padding() == tflite.Padding.SAME else "valid",
            activation=acts[options.FusedActivationFunction()]))
    return layers


def layer_conv(ffi, lib, layer):
    """Kernel parameters exactly as TFLite's PopulateConvolutionQuantizationParams makes them."""
    x, w, b, y = layer["x"], layer["w"], layer["b"], layer["y"]
    n, h, wd, c = x["shape"]
    o, fh, fw, _ = w["shape"]
    oh, ow, ph, pw = conv_geometry((h, wd), (fh, fw), layer["stride"], layer["dilation"], layer["padding"])
    assert (oh, ow) == tuple(y["shape"][1:3])
    in_scale, out_scale = float(np.float32(x["scale"][0])), float(np.float32(y["scale"][0]))
    filter_scales = np.broadcast_to(w["scale"].astype(np.float32), (o,))
    qm = [quantize_multiplier(in_scale * float(fs) / out_scale) for fs in filter_scales]
    act_min, act_max = activation_range(layer["activation"], np.float32(y["scale"][0]),
                                        int(y["zero_point"][0]))
    weights = w["data"].view(np.int8).reshape(w["shape"])
    bias = None if b is None else b["data"].view(np.int32).copy()
    kwargs = dict(input_shape=(n, h, wd, c), w=weights, bias=bias, stride=layer["stride"],
                  dilation=layer["dilation"], pad=(ph, pw), out_hw=(oh, ow),
                  input_offset=-int(x["zero_point"][0]), multiplier=[m for m, _ in qm],
                  shift=[s for _, s in qm], output_offset=int(y["zero_point"][0]),
                  act_min=act_min, act_max=act_max, per_channel=len(w["scale"]) > 1)
    return Conv(ffi, lib, **kwargs), kwargs


def litert_interpreter(path: Path):
    litert = pytest.importorskip("ai_edge_litert.interpreter",
                                 reason="LiteRT (pip install ai-edge-litert) is not installed")
    try:
        it = litert.Interpreter(model_path=str(path),
                                experimental_op_resolver_type=litert.OpResolverType.BUILTIN_REF,
                                experimental_preserve_all_tensors=True)
    except ValueError as e:  # LiteRT rejects the model's quantisation metadata
        return None, str(e).split(".")[0]
    it.allocate_tensors()
    return it, None


@pytest.mark.parametrize("path", _conv_model_paths(), ids=lambda p: p.stem)
def test_real_layers_bit_exact_with_litert(ffi, lib, path):
    layers = conv_layers(path)
    if not layers:
        pytest.skip(f"{path.name} has no CONV_2D")
    it, why = litert_interpreter(path)
    rng = np.random.default_rng(11)
    if it is not None:
        inp = it.get_input_details()[0]
        it.set_tensor(inp["index"], rng.integers(-128, 128, size=inp["shape"], dtype=np.int8))
        it.invoke()
        ops = it._get_ops_details()
    for layer in layers:
        conv, kwargs = layer_conv(ffi, lib, layer)
        if it is not None:
            assert ops[layer["op"]]["op_name"] == "CONV_2D"
            x = it.get_tensor(layer["input"])
            expected = it.get_tensor(layer["output"])
        else:
            # LiteRT cannot load this model (`why`): the layer's real weights and quantisation
            # are checked against the NumPy reference, itself bit-exact with LiteRT above.
            x = rng.integers(-128, 128, size=kwargs["input_shape"], dtype=np.int8)
            expected = None
        reference = conv_per_channel(
            x, kwargs["w"], kwargs["bias"], stride=kwargs["stride"], dilation=kwargs["dilation"],
            pad=kwargs["pad"], out_hw=kwargs["out_hw"], input_offset=kwargs["input_offset"],
            multiplier=kwargs["multiplier"], shift=kwargs["shift"],
            output_offset=kwargs["output_offset"], act_min=kwargs["act_min"], act_max=kwargs["act_max"])
        if expected is not None:
            assert np.array_equal(reference, expected), f"NumPy reference != LiteRT at op {layer['op']}"
        else:
            expected = reference
        check_all_variants(ffi, lib, conv, x, expected, shortfall=False)


# --------------------------------------------------------------------------------------------
# Bad input


def small_conv(ffi, lib):
    rng = np.random.default_rng(8)
    kwargs, x, expected = quantized_case(rng, input_shape=(1, 6, 6, 4), filter_shape=(8, 3, 3))
    return Conv(ffi, lib, **kwargs), x, expected


def status_of_variants(ffi, lib, params):
    out = ffi.new("ap_variant[]", lib.AP_MAX_VARIANTS)
    count = ffi.new("uint32_t *")
    err = ffi.new("ap_error *")
    st_ = lib.ap_conv2d_s8_variants(params, lib.AP_ISA_PORTABLE, out, lib.AP_MAX_VARIANTS, count, err)
    return st_, ffi.string(err.message).decode()


@pytest.mark.parametrize("field,value,fragment", [
    ("batches", 0, "batches must be >= 1"),
    ("input_h", -1, "input_h must be >= 1"),
    ("input_c", 0, "input_c must be >= 1"),
    ("output_c", 0, "output_c must be >= 1"),
    ("filter_w", 0, "filter_w must be >= 1"),
    ("stride_h", 0, "stride_h must be >= 1"),
    ("dilation_w", 0, "dilation_w must be >= 1"),
    ("pad_h", -1, "pad_h and pad_w must be >= 0"),
    ("pad_w", 3, "pad_w 3 must be below the dilated filter_w 3"),
    ("output_h", 8, "output_h 8 does not match"),
    ("output_w", 4, "output_w 4 does not match"),
    ("output_h", 2, "output_h 2 does not match"),
])
def test_bad_shapes_are_rejected_everywhere(ffi, lib, field, value, fragment):
    conv, x, _ = small_conv(ffi, lib)
    setattr(conv.params, field, value)
    st_, msg = status_of_variants(ffi, lib, conv.params)
    assert st_ == lib.AP_ERR_INVALID_ARGUMENT and fragment in msg, msg
    err = ffi.new("ap_error *")
    size = ffi.new("size_t *")
    assert lib.ap_conv2d_s8_prepared_size(conv.params, size, err) == lib.AP_ERR_INVALID_ARGUMENT
    v = ffi.new("ap_variant *")
    v.kind = lib.AP_CONV2D_DIRECT
    st_, err, _, guards_ok, untouched = conv.run(v, x)
    assert st_ == lib.AP_ERR_INVALID_ARGUMENT and guards_ok and untouched


def test_overflowing_sizes(ffi, lib):
    conv, _, _ = small_conv(ffi, lib)
    p = conv.params
    p.input_h = p.input_w = p.output_h = p.output_w = (1 << 30)
    p.filter_h = p.filter_w = 1
    p.pad_h = p.pad_w = 0
    p.input_c = p.output_c = (1 << 31) - 1
    p.batches = (1 << 31) - 1
    st_, msg = status_of_variants(ffi, lib, p)
    assert st_ == lib.AP_ERR_OVERFLOW and "overflow" in msg
    # dilated filter beyond int32 coordinates
    conv, _, _ = small_conv(ffi, lib)
    conv.params.dilation_h = (1 << 31) - 1
    st_, msg = status_of_variants(ffi, lib, conv.params)
    assert st_ == lib.AP_ERR_OVERFLOW and "int32" in msg


def test_null_pointers(ffi, lib):
    conv, x, _ = small_conv(ffi, lib)
    err = ffi.new("ap_error *")
    count = ffi.new("uint32_t *")
    size = ffi.new("size_t *")
    assert lib.ap_conv2d_s8_variants(ffi.NULL, lib.AP_ISA_PORTABLE, ffi.NULL, 0, count, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert b"params is NULL" in ffi.string(err.message)
    assert lib.ap_conv2d_s8_prepared_size(conv.params, ffi.NULL, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_conv2d_s8_prepared_size(ffi.NULL, size, ffi.NULL) == lib.AP_ERR_INVALID_ARGUMENT
    blob = np.zeros(conv.prepared_size, dtype=np.int32)
    assert lib.ap_conv2d_s8_prepare(conv.params, lib.AP_ISA_PORTABLE, ffi.NULL, ffi.NULL, ffi.from_buffer(blob),
                                    conv.prepared_size, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert b"filter is NULL" in ffi.string(err.message)
    wptr = ffi.cast("int8_t *", ffi.from_buffer(conv.w))
    assert lib.ap_conv2d_s8_prepare(conv.params, lib.AP_ISA_PORTABLE, wptr, ffi.NULL, ffi.NULL, conv.prepared_size,
                                    err) == lib.AP_ERR_INVALID_ARGUMENT
    v = conv.variants()[1]
    out = np.zeros(int(np.prod(conv.output_shape)), dtype=np.int8)
    xp = ffi.cast("int8_t *", ffi.from_buffer(x))
    op = ffi.cast("int8_t *", ffi.from_buffer(out))
    scratch = ffi.new("ap_scratch[1]")
    buf = np.zeros(v.scratch[0].bytes, dtype=np.int8)
    scratch[0].data = ffi.from_buffer(buf)
    scratch[0].bytes = buf.size
    pp = conv.prepared_ptr()
    for args, what in [((ffi.NULL, pp, xp, op), "variant"), ((v, ffi.NULL, xp, op), "prepared"),
                       ((v, pp, ffi.NULL, op), "input"), ((v, pp, xp, ffi.NULL), "output")]:
        st_ = lib.ap_conv2d_s8_run(conv.params, *args, scratch, 1, err)
        assert st_ == lib.AP_ERR_INVALID_ARGUMENT and f"{what} is NULL" in ffi.string(err.message).decode()
    assert lib.ap_conv2d_s8_run(ffi.NULL, v, pp, xp, op, scratch, 1, err) == lib.AP_ERR_INVALID_ARGUMENT
    # scratch: none passed, NULL data
    # as every op: a missing buffer is an invalid argument naming how many the variant needs
    assert lib.ap_conv2d_s8_run(conv.params, v, pp, xp, op, ffi.NULL, 0, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert (err.needed, err.available) == (1, 0)
    assert "needs 1 scratch buffer(s), got 0" in ffi.string(err.message).decode()
    scratch[0].data = ffi.NULL
    assert lib.ap_conv2d_s8_run(conv.params, v, pp, xp, op, scratch, 1, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert not out.any()
    # the error record is optional everywhere
    assert lib.ap_conv2d_s8_run(conv.params, v, pp, xp, op, scratch, 1, ffi.NULL) == lib.AP_ERR_INVALID_ARGUMENT


def test_prepared_buffer_checks(ffi, lib):
    conv, x, _ = small_conv(ffi, lib)
    err = ffi.new("ap_error *")
    wptr = ffi.cast("int8_t *", ffi.from_buffer(conv.w))
    blob = np.zeros(conv.prepared_size // 4 + 2, dtype=np.int32)
    base = ffi.cast("char *", ffi.from_buffer(blob))
    st_ = lib.ap_conv2d_s8_prepare(conv.params, lib.AP_ISA_PORTABLE, wptr, ffi.NULL, base, conv.prepared_size - 1, err)
    assert st_ == lib.AP_ERR_INVALID_ARGUMENT
    assert (err.needed, err.available) == (conv.prepared_size, conv.prepared_size - 1)
    st_ = lib.ap_conv2d_s8_prepare(conv.params, lib.AP_ISA_PORTABLE, wptr, ffi.NULL, base + 1, conv.prepared_size, err)
    assert st_ == lib.AP_ERR_INVALID_ARGUMENT and b"aligned" in ffi.string(err.message)
    assert not blob.any()
    # a blob prepared for another input offset, or garbage, is refused by run
    v = conv.variants()[0]
    conv.params.input_offset += 1
    st_, err, _, guards_ok, untouched = conv.run(v, x)
    assert st_ == lib.AP_ERR_INVALID_ARGUMENT and b"prepared" in ffi.string(err.message)
    assert guards_ok and untouched
    conv.params.input_offset -= 1
    conv.prepared[:] = np.zeros(1, dtype=conv.prepared.dtype)
    st_, err, _, _, untouched = conv.run(v, x)
    assert st_ == lib.AP_ERR_INVALID_ARGUMENT and untouched
    # input offset out of range
    conv2, _, _ = small_conv(ffi, lib)
    conv2.params.input_offset = 129
    st_ = lib.ap_conv2d_s8_prepare(conv2.params, lib.AP_ISA_PORTABLE, wptr, ffi.NULL, base, conv.prepared_size, err)
    assert st_ == lib.AP_ERR_INVALID_ARGUMENT and b"input_offset" in ffi.string(err.message)


@pytest.mark.parametrize("field,index,value,fragment", [
    ("multiplier", 3, -5, "multiplier[3] = -5 is negative"),
    ("shift", 0, 31, "shift[0] = 31 is outside [-31, 30]"),
    ("shift", 7, -32, "shift[7] = -32 is outside [-31, 30]"),
    ("per_channel", None, 2, "per_channel must be 0 or 1"),
    ("output_offset", None, 128, "output_offset 128"),
    ("activation_min", None, 100, "activation range [100, "),
    ("activation_max", None, 200, "activation range"),
    ("multiplier", None, None, "must not be NULL"),
])
def test_bad_requantisation(ffi, lib, field, index, value, fragment):
    conv, x, _ = small_conv(ffi, lib)
    q = conv.params.requant
    if field in ("multiplier", "shift") and value is None:
        setattr(q, field, ffi.NULL)
    elif index is not None:
        getattr(q, field)[index] = value
    else:
        setattr(q, field, value)
    if field == "activation_min":
        q.activation_max = 50
    for v in conv.variants():
        st_, err, _, guards_ok, untouched = conv.run(v, x)
        assert st_ == lib.AP_ERR_INVALID_ARGUMENT, ffi.string(v.name)
        assert fragment in ffi.string(err.message).decode()
        assert guards_ok and untouched


def test_variant_that_does_not_apply_or_is_unknown(ffi, lib):
    conv, x, _ = small_conv(ffi, lib)
    v = ffi.new("ap_variant *")
    v.kind = lib.AP_CONV2D_GEMM_1X1  # a 3x3 conv
    st_, err, _, _, untouched = conv.run(v, x)
    assert st_ == lib.AP_ERR_INVALID_ARGUMENT and b"does not apply" in ffi.string(err.message) and untouched
    v.kind, v.param = lib.AP_CONV2D_IM2COL_ROWS, 36  # = all 36 pixels: that is im2col, not rows
    st_, err, _, _, untouched = conv.run(v, x)
    assert st_ == lib.AP_ERR_INVALID_ARGUMENT and untouched
    v.kind, v.param = lib.AP_CONV2D_IM2COL_ROWS, 0
    assert conv.run(v, x)[0] == lib.AP_ERR_INVALID_ARGUMENT
    v.kind = 99
    st_, err, _, _, untouched = conv.run(v, x)
    assert st_ == lib.AP_ERR_UNSUPPORTED and b"unknown variant kind 99" in ffi.string(err.message)


def test_any_row_count_runs(ffi, lib):
    """run accepts row blocks the list does not offer (1 <= R < pixels), with the same bits."""
    conv, x, expected = small_conv(ffi, lib)
    for rows in (1, 2, 5, 35):
        v = ffi.new("ap_variant *")
        v.kind, v.param = lib.AP_CONV2D_IM2COL_ROWS, rows
        v.scratch_count = 1
        v.scratch[0].bytes = rows * 36
        st_, err, got, guards_ok, _ = conv.run(v, x)
        assert st_ == lib.AP_OK and guards_ok and np.array_equal(got, expected)


def test_scratch_size_is_recomputed_not_trusted(ffi, lib):
    conv, x, _ = small_conv(ffi, lib)
    v = conv.variants()[1]
    v.scratch[0].bytes = 1  # a lie: run checks against its own formula
    st_, err, _, _, untouched = conv.run(v, x)
    assert st_ == lib.AP_ERR_SCRATCH_TOO_SMALL and err.needed == 3 * 36 and untouched


def test_output_overlapping_input_is_refused(ffi, lib):
    conv, x, _ = small_conv(ffi, lib)
    err = ffi.new("ap_error *")
    buf = np.zeros(4096, dtype=np.int8)
    buf[:x.size] = x.reshape(-1)
    p = ffi.cast("int8_t *", ffi.from_buffer(buf))
    v = conv.variants()[0]
    st_ = lib.ap_conv2d_s8_run(conv.params, v, conv.prepared_ptr(), p, p + 10, ffi.NULL, 0, err)
    assert st_ == lib.AP_ERR_INVALID_ARGUMENT and b"overlaps" in ffi.string(err.message)
