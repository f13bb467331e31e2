"""FULLY_CONNECTED int8 through the C API: per-tensor and per-channel, filter offsets, both
CPU paths, guarded output, against the NumPy reference of TFLite's reference kernel."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ops_harness import (Guarded, cpu, cpu_levels, guarded_from, message, random_multipliers,
                         requant_arrays, scratch_for, variant_name, variants)
from harness.reference import ops


class Case:
    def __init__(self, ffi, lib, *, batches=1, depth=16, out=8, per_channel=1, seed=0, filter_zp=0,
                 act=None, with_bias=True, double=False, wmin=-128, wfill=None, bias_values=None,
                 real_scales=None, output_zp=None):
        rng = np.random.default_rng(seed)
        self.ffi, self.lib = ffi, lib
        self.x = rng.integers(-128, 128, size=(batches, depth), dtype=np.int8)
        # wmin=-127: TFLite's weight range, which takes the AVX2 vpmaddubsw path
        self.wt = rng.integers(wmin, 128, size=(out, depth), dtype=np.int8)
        if wmin == -128:
            self.wt.reshape(-1)[0] = -128
        if wfill is not None:
            self.wt[:] = wfill
        self.bias = rng.integers(-20000, 20000, size=out, dtype=np.int32) if with_bias else None
        if bias_values is not None:
            self.bias = np.asarray(bias_values, dtype=np.int32)
        in_zp, out_zp = int(rng.integers(-128, 128)), int(rng.integers(-128, 128))
        if output_zp is not None:
            out_zp = output_zp
        m, s = random_multipliers(rng, out if per_channel else 1, 1e-5, 5e-3)
        lo, hi = act or (-128, 127)
        self.kw = dict(input_offset=-in_zp, filter_offset=-filter_zp, multiplier=m, shift=s,
                       output_offset=out_zp, act_min=lo, act_max=hi)
        self.keep = requant_arrays(ffi, m, s)
        self.real = None
        if double:
            scales = np.exp(rng.uniform(np.log(1e-5), np.log(5e-3), size=out if per_channel else 1))
            if real_scales is not None:
                scales = np.asarray(real_scales, dtype=np.float64)
            self.kw = dict(self.kw, multiplier=None, shift=None, real_scale=scales)
            self.real = ffi.new("double[]", [float(v) for v in scales])
        p = ffi.new("ap_fully_connected_params *")
        p.batches, p.input_depth, p.output_depth = batches, depth, out
        p.input_offset, p.filter_offset = -in_zp, -filter_zp
        p.requant.multiplier, p.requant.shift = self.keep
        p.requant.per_channel = per_channel
        p.requant.output_offset = out_zp
        p.requant.activation_min, p.requant.activation_max = lo, hi
        if double:
            p.real_scale = self.real
            p.requant.multiplier = p.requant.shift = ffi.NULL
        self.params = p
        self.out_shape = (batches, out)
        size = ffi.new("size_t *")
        err = ffi.new("ap_error *")
        assert lib.ap_fully_connected_s8_prepared_size(p, size, err) == lib.AP_OK
        assert size[0] == 32 + 4 * (-(-out // 8) * 8) + (-(-out // 8) * 8) * (-(-depth // 4) * 4)
        self.prepared = Guarded(ffi, size[0])
        bias = ffi.NULL if self.bias is None else ffi.from_buffer("int32_t[]", self.bias)
        assert lib.ap_fully_connected_s8_prepare(p, lib.AP_ISA_PORTABLE, ffi.from_buffer("int8_t[]", self.wt), bias,
                                                 self.prepared.ptr, size[0], err) == lib.AP_OK, message(ffi, err)
        assert self.prepared.intact()

    def reference(self):
        return ops.fully_connected(self.x, self.wt, self.bias, **self.kw)

    def run(self, variant, short=None):
        ffi, lib = self.ffi, self.lib
        inp = guarded_from(ffi, self.x)
        out = Guarded(ffi, int(np.prod(self.out_shape)), fill=0x33)
        scr, bufs = scratch_for(ffi, variant, short=short)
        err = ffi.new("ap_error *")
        status = lib.ap_fully_connected_s8_run(self.params, variant, self.prepared.ptr,
                                               ffi.cast("int8_t *", inp.ptr), ffi.cast("int8_t *", out.ptr),
                                               scr, variant.scratch_count, err)
        assert inp.intact() and out.intact() and all(b.intact() for b in bufs)
        return status, out.view(np.int8).reshape(self.out_shape).copy(), err


#: Each ISA's variant list (arm-dsp: its SMLAD kernels; the int16 input copy where the
#: input has a whole group of four depths).
NAMES = {"portable": ["direct"], "x86-avx2": ["direct"], "arm-dsp": ["smlad", "smlad_x16"]}


def isa_variants(ffi, lib, params, isa):
    return variants(ffi, lib, lib.ap_fully_connected_s8_variants, params, isa=isa)


def check_all(case):
    """Every variant of every ISA this host runs, each with exactly its scratch between guard
    bytes (case.run), and with one byte too few."""
    ffi, lib = case.ffi, case.lib
    expected = case.reference()
    p = case.params
    for level in cpu_levels(lib):
        name = ffi.string(lib.ap_isa_name(level)).decode()
        vs = isa_variants(ffi, lib, p, level)
        want = [n for n in NAMES[name] if n != "smlad_x16" or p.input_depth >= 4]
        assert [variant_name(ffi, v) for v in vs] == want
        for v in vs:
            assert v.macs == p.batches * p.input_depth * p.output_depth and v.isa == level
            assert v.scratch_count == (variant_name(ffi, v) == "smlad_x16")
            status, got, err = case.run(v)
            assert status == lib.AP_OK, message(ffi, err)
            np.testing.assert_array_equal(got, expected, err_msg=f"{name} {variant_name(ffi, v)}")
            if v.scratch_count:
                assert v.scratch[0].bytes == 2 * (p.input_depth // 4) * 4
                status, _, err = case.run(v, short=0)
                assert status == lib.AP_ERR_SCRATCH_TOO_SMALL and "needs" in message(ffi, err)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches=st.integers(1, 4), depth=st.integers(1, 70), out=st.integers(1, 40),
       per_channel=st.sampled_from([0, 1]), filter_zp=st.sampled_from([0, 0, 3, -128, 127]),
       relu=st.booleans(), bias=st.booleans(), double=st.booleans(), seed=st.integers(0, 2 ** 31),
       wmin=st.sampled_from([-128, -127]))
def test_random_layers_both_cpu_paths(ffi, lib, batches, depth, out, per_channel, filter_zp, relu,
                                      bias, double, seed, wmin):
    check_all(Case(ffi, lib, batches=batches, depth=depth, out=out, per_channel=per_channel,
                   seed=seed, filter_zp=filter_zp, act=(0, 127) if relu else None, with_bias=bias,
                   double=double, wmin=wmin))


def test_double_requant_rounds_half_away_and_saturates(ffi, lib):
    """Exact halves (acc * scale = k + 0.5) round away from zero; huge products saturate."""
    for scale, bias in [(0.5, 0), (0.25, 2), (1e6, 0), (0.0, 5)]:
        case = Case(ffi, lib, depth=3, out=16, per_channel=0, double=True, seed=5)
        case.real[0] = scale
        case.kw["real_scale"] = np.array([scale])
        check_all(case)


@pytest.mark.parametrize("cfg", [
    dict(depth=640, out=128),       # autoencoder
    dict(depth=128, out=8),         # autoencoder bottleneck
    dict(depth=8, out=128),
    dict(depth=256, out=2),         # VWW head
    dict(depth=1960, out=4, batches=1),
    dict(depth=1, out=1),
    dict(depth=17, out=3, batches=7, per_channel=0),
    dict(depth=65536, out=9, batches=1),  # largest supported depth
    dict(depth=37, out=1037, batches=2),  # outputs over several stack chunks of sums (256)
    dict(depth=9, out=260, batches=1, per_channel=1),  # one chunk and a ragged 4
])
@pytest.mark.parametrize("double", [False, True])
@pytest.mark.parametrize("wmin", [-128, -127])
def test_named_layers(ffi, lib, cfg, double, wmin):
    check_all(Case(ffi, lib, double=double, wmin=wmin, **cfg))


def test_double_requant_next_to_halves(ffi, lib):
    """acc * scale a few ulps either side of k + 0.5 (and of -(k + 0.5)) for many k: the
    vectorised rounding must agree with round-half-away on every one of them."""
    rng = np.random.default_rng(12)
    out = 96
    acc = rng.integers(1, 4000, size=out) * rng.choice([-1, 1], size=out)
    k = rng.integers(0, 300, size=out)
    k[:16] = 0                  # +-0.5: where x + 0.5 itself rounds up
    steps = rng.integers(-3, 4, size=out)
    steps[:16] = np.arange(-8, 8)
    scales = []
    for a, kk, st_ in zip(acc, k, steps):
        s = (kk + 0.5) / abs(int(a))
        for _ in range(abs(int(st_))):
            s = np.nextafter(s, np.inf if st_ > 0 else -np.inf)
        scales.append(s)
    for i, a in enumerate([1, -1, 2, -2, 4, -4, 8, -8]):
        acc[i] = a                  # a * scale = +-nextafter(0.5, 0) exactly: x + 0.5 rounds to 1
        scales[i] = np.nextafter(0.5 / abs(a), 0.0)
    # zero weights: each output's accumulator is its bias
    check_all(Case(ffi, lib, depth=1, out=out, per_channel=1, double=True, wmin=-127, wfill=0, seed=4,
                   bias_values=acc, real_scales=scales, output_zp=0))


def test_signed_byte_products_at_their_bound(ffi, lib):
    """Weights in [-127, 127] take vpmaddubsw(|x|, sign(x) * w): x = -128 and w = +-127
    everywhere make every pair 2 * 128 * 127 = 32512, the largest it can be."""
    for w in (-127, 127):
        case = Case(ffi, lib, depth=259, out=21, wmin=-127, wfill=w, seed=9, double=w > 0)
        case.x[:] = -128
        check_all(case)


def test_extreme_values_are_exact(ffi, lib):
    """All -128 inputs and weights with zero points at the edges: the folded sums stay exact."""
    case = Case(ffi, lib, depth=4099, out=17, filter_zp=127, seed=3)
    case.x[:] = -128
    check_all(case)
    case.x[:] = 127
    check_all(case)


def test_bad_input(ffi, lib):
    case = Case(ffi, lib, depth=10, out=5)
    p = case.params
    v = variants(ffi, lib, lib.ap_fully_connected_s8_variants, p)[0]
    err = ffi.new("ap_error *")
    x = ffi.from_buffer("int8_t[]", case.x)
    out = ffi.new("int8_t[]", 5)

    def run(params=p, variant=v, prepared=case.prepared.ptr, inp=x, o=out):
        return lib.ap_fully_connected_s8_run(params, variant, prepared, inp, o, ffi.NULL, 0, err)

    assert run() == lib.AP_OK
    assert run(params=ffi.NULL) == lib.AP_ERR_INVALID_ARGUMENT
    assert run(variant=ffi.NULL) == lib.AP_ERR_INVALID_ARGUMENT
    assert run(prepared=ffi.NULL) == lib.AP_ERR_INVALID_ARGUMENT
    assert run(o=ffi.NULL) == lib.AP_ERR_INVALID_ARGUMENT
    for field, value, status in [("input_depth", 0, lib.AP_ERR_INVALID_ARGUMENT),
                                 ("input_depth", 65537, lib.AP_ERR_UNSUPPORTED),
                                 ("filter_offset", 200, lib.AP_ERR_INVALID_ARGUMENT),
                                 ("output_depth", 6, lib.AP_ERR_INVALID_ARGUMENT)]:
        q = ffi.new("ap_fully_connected_params *", p[0])
        setattr(q, field, value)
        assert run(params=q) == status, field
    q = ffi.new("ap_fully_connected_params *", p[0])
    q.batches, q.input_depth = 2 ** 31 - 1, 65536
    size = ffi.new("size_t *")
    if ffi.sizeof("size_t") == 4:
        assert lib.ap_fully_connected_s8_prepared_size(q, size, err) == lib.AP_ERR_OVERFLOW
    q = ffi.new("ap_fully_connected_params *", p[0])
    q.requant.per_channel = 2
    assert run(params=q) == lib.AP_ERR_INVALID_ARGUMENT
    bad_scale = ffi.new("double[]", [float("nan")])
    q = ffi.new("ap_fully_connected_params *", p[0])
    q.real_scale, q.requant.per_channel = bad_scale, 0
    assert run(params=q) == lib.AP_ERR_INVALID_ARGUMENT and "real_scale" in message(ffi, err)
    bad = ffi.new("ap_variant *", v[0])
    bad.kind = 1
    assert run(variant=bad) == lib.AP_ERR_INVALID_ARGUMENT
    garbage = Guarded(ffi, case.prepared.nbytes, fill=0)
    assert run(prepared=garbage.ptr) == lib.AP_ERR_INVALID_ARGUMENT
    # a variant of another ISA's list is refused, naming the ISA whose list it is not in
    other = ffi.new("ap_variant *", v[0])
    other.isa = lib.AP_ISA_ARM_DSP
    assert run(variant=other) == lib.AP_ERR_INVALID_ARGUMENT and "arm-dsp variants" in message(ffi, err)
    # the int16 copy's scratch must be word-aligned
    x16 = isa_variants(ffi, lib, p, lib.AP_ISA_ARM_DSP)[1]
    assert variant_name(ffi, x16) == "smlad_x16"
    buf = Guarded(ffi, int(x16.scratch[0].bytes) + 1)
    scr = ffi.new("ap_scratch[]", 1)
    scr[0].data, scr[0].bytes = ffi.cast("char *", buf.ptr) + 1, x16.scratch[0].bytes
    assert lib.ap_fully_connected_s8_run(p, x16, case.prepared.ptr, x, out, scr, 1, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert "aligned" in message(ffi, err)


# ---- real layers: LiteRT reference kernels on the shared models ----

from harness.reference import litert_layers as L  # noqa: E402

_LITERT = L.unavailable_reason()


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
def test_litert_layers_bit_exact(ffi, lib):
    layers = L.layers({"FULLY_CONNECTED"})
    assert len(layers) >= 15
    for layer in layers:
        x, wt = layer.inputs[0], layer.inputs[1]
        bias = layer.inputs[2] if len(layer.inputs) > 2 else None
        y = layer.outputs[0]
        out_depth, depth = wt.shape
        batches = x.size // depth
        per_channel = int(layer.input_q[1]["scales"].size > 1)
        real = L.fc_real_scales(layer.input_q[0], layer.input_q[1], layer.output_q[0])
        lo, hi = L.activation_of(layer.options.FusedActivationFunction(), layer.output_q[0])
        zin, zout = L.zero_point_of(layer.input_q[0]), L.zero_point_of(layer.output_q[0])
        zf = 0 if per_channel else L.zero_point_of(layer.input_q[1])  # LiteRT per-channel ignores it
        kw = dict(input_offset=-zin, filter_offset=-zf, real_scale=real, output_offset=zout, act_min=lo, act_max=hi)
        expected = y.reshape(batches, out_depth)
        np.testing.assert_array_equal(ops.fully_connected(x.reshape(batches, depth), wt, bias, **kw), expected,
                                      err_msg=f"reference vs LiteRT {layer.name}")
        case = Case.__new__(Case)
        case.ffi, case.lib = ffi, lib
        case.x, case.wt, case.bias, case.kw = x.reshape(batches, depth), wt, bias, kw
        case.keep = ffi.new("double[]", [float(v) for v in real])
        p = ffi.new("ap_fully_connected_params *")
        p.batches, p.input_depth, p.output_depth, p.input_offset, p.filter_offset = batches, depth, out_depth, -zin, -zf
        p.real_scale = case.keep
        p.requant.per_channel, p.requant.output_offset = per_channel, zout
        p.requant.activation_min, p.requant.activation_max = lo, hi
        case.params, case.out_shape = p, (batches, out_depth)
        size = ffi.new("size_t *")
        err = ffi.new("ap_error *")
        assert lib.ap_fully_connected_s8_prepared_size(p, size, err) == lib.AP_OK
        case.prepared = Guarded(ffi, size[0])
        b = ffi.NULL if bias is None else ffi.from_buffer("int32_t[]", bias)
        assert lib.ap_fully_connected_s8_prepare(p, lib.AP_ISA_PORTABLE, ffi.from_buffer("int8_t[]", wt), b, case.prepared.ptr, size[0],
                                                 err) == lib.AP_OK
        for level in cpu_levels(lib):
            for v in isa_variants(ffi, lib, p, level):
                status, got, err = case.run(v)
                assert status == lib.AP_OK, message(ffi, err)
                np.testing.assert_array_equal(got, expected, err_msg=f"{layer.name} isa={level} {variant_name(ffi, v)}")
