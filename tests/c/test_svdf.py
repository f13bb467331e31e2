"""SVDF int8 / int16 state through the C API against the NumPy reference of TFLite's
integer SVDF (reference/svdf.py), which is itself checked against LiteRT's kernel on
random single-op models and on the keyword-spotting model's layers."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ops_harness import Guarded, cpu, cpu_levels, guarded_from, message, scratch_for, variant_name, variants
from harness.reference import litert_layers as L
from harness.reference.litert_svdf import STATE, svdf_model
from harness.reference.svdf import PARAM_FIELDS, random_case, svdf_params
from harness.reference.svdf import step as reference_step

_LITERT = L.unavailable_reason()

def make(ffi, **fields):
    p = ffi.new("ap_svdf_params *")
    for k in PARAM_FIELDS:
        setattr(p, k, int(fields[k]))
    return p


case = random_case


VARIANTS = ["fused", "direct"]


class Runner:
    """One SVDF through ap_svdf_s8_run with one variant on one dispatch level (None: the best):
    guarded constants, a guarded state kept between steps."""

    def __init__(self, ffi, lib, c, variant="fused", level=None):
        self.ffi, self.lib, self.c, self.level = ffi, lib, c, level
        self.p = make(ffi, **c)
        self.v = {variant_name(ffi, v): v for v in variants(ffi, lib, lib.ap_svdf_s8_variants, self.p)}[variant]
        self.wf = guarded_from(ffi, c["wf"])
        self.wt = guarded_from(ffi, c["wt"])
        self.bias = None if c["bias"] is None else guarded_from(ffi, c["bias"])
        self.state = Guarded(ffi, 2 * c["batches"] * c["filters"] * c["memory"], fill=0)
        units = c["filters"] // c["rank"]
        self.out_shape = (c["batches"], units)

    def step(self, x, short=None):
        ffi, lib = self.ffi, self.lib
        inp = guarded_from(ffi, x)
        out = Guarded(ffi, int(np.prod(self.out_shape)), fill=0x42)
        scr, bufs = scratch_for(ffi, self.v, short)
        err = ffi.new("ap_error *")
        with cpu(lib, lib.ap_isa_detect() if self.level is None else self.level):
            status = lib.ap_svdf_s8_run(self.p, self.v, ffi.cast("int8_t *", inp.ptr),
                                        ffi.cast("int8_t *", self.wf.ptr), ffi.cast("int16_t *", self.wt.ptr),
                                        ffi.NULL if self.bias is None else ffi.cast("int32_t *", self.bias.ptr),
                                        ffi.cast("int16_t *", self.state.ptr), ffi.cast("int8_t *", out.ptr),
                                        scr if self.v.scratch_count else ffi.NULL, self.v.scratch_count, err)
        guards = [inp, out, self.wf, self.wt, self.state] + bufs + ([self.bias] if self.bias else [])
        assert all(g.intact() for g in guards), "a kernel wrote outside its buffers"
        assert np.array_equal(inp.view(np.int8), np.ascontiguousarray(x).reshape(-1)), "input changed"
        return status, out.view(np.int8).reshape(self.out_shape).copy(), err

    def state_now(self):
        return self.state.view(np.int16).reshape(self.c["batches"], -1).copy()


def run_sequence(ffi, lib, c, xs):
    """Run steps through the C kernel, every variant on every dispatch level (portable, and
    AVX2 where this CPU has it), each with a state of its own, and the reference side by side;
    outputs and states must all agree. Returns the fused variant's best-level runner and outputs."""
    runners = [Runner(ffi, lib, c, v, level) for level in reversed(cpu_levels(lib)) for v in VARIANTS]
    state = np.zeros((c["batches"], c["filters"] * c["memory"]), dtype=np.int16)
    outs = []
    for step, x in enumerate(xs):
        want, state = reference_step(c, x, state)
        for r in runners:
            status, got, err = r.step(x)
            where = f"step {step}, variant {variant_name(ffi, r.v)}, cpu level {r.level}"
            assert status == lib.AP_OK, message(ffi, err)
            np.testing.assert_array_equal(got, want, err_msg=where)
            np.testing.assert_array_equal(r.state_now(), state, err_msg=where)
            if r is runners[0]:
                outs.append(got)
    return runners[0], outs


def test_variants(ffi, lib):
    rng = np.random.default_rng(0)
    c = case(rng, 2, 10, 12, 5, 3)
    vs = variants(ffi, lib, lib.ap_svdf_s8_variants, make(ffi, **c))
    assert [variant_name(ffi, v) for v in vs] == VARIANTS      # least scratch first
    fused, direct = vs
    assert fused.kind == lib.AP_SVDF_FUSED and fused.param == 0 and fused.in_place == 0
    assert fused.scratch_count == 0
    assert direct.kind == lib.AP_SVDF_DIRECT and direct.param == 0 and direct.in_place == 0
    assert direct.scratch_count == 1
    assert direct.scratch[0].bytes == 4 * 2 * 12 and direct.scratch[0].alignment == 16
    assert fused.macs == direct.macs == 2 * 12 * (10 + 5)
    n = ffi.new("size_t *")
    assert lib.ap_svdf_s8_state_bytes(make(ffi, **c), n, ffi.NULL) == lib.AP_OK and n[0] == 2 * 2 * 12 * 5


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches=st.integers(1, 3), input_size=st.integers(1, 70), units=st.integers(1, 10),
       rank=st.integers(1, 4), memory=st.integers(1, 40), bias=st.booleans(),
       gain=st.sampled_from([0.3, 1.0, 4.0, 50.0]), seed=st.integers(0, 2 ** 31))
def test_random_svdf_sequences(ffi, lib, batches, input_size, units, rank, memory, bias, gain, seed):
    """Input sizes and memories on both sides of the AVX2 widths (16 and 8 elements, and the
    scalar tails), filter counts across several 8-filter chunks, units that straddle chunks."""
    rng = np.random.default_rng(seed)
    c = case(rng, batches, input_size, units * rank, memory, rank, bias, gain)
    xs = [rng.integers(-128, 128, size=(batches, input_size), dtype=np.int8) for _ in range(4)]
    run_sequence(ffi, lib, c, xs)


def test_state_carries_and_memory_forgets(ffi, lib):
    """The output depends on the last `memory` inputs only: a fresh state fed the same last
    `memory` inputs gives the same output; a different earlier history inside the window does not."""
    rng = np.random.default_rng(3)
    c = case(rng, 1, 16, 8, 3, 2)
    xs = [rng.integers(-128, 128, size=(1, 16), dtype=np.int8) for _ in range(7)]
    _, outs = run_sequence(ffi, lib, c, xs)
    _, tail = run_sequence(ffi, lib, c, xs[-3:])
    np.testing.assert_array_equal(outs[-1], tail[-1])
    _, fresh = run_sequence(ffi, lib, c, xs[1:2])
    assert not np.array_equal(outs[1], fresh[0]), "the state left by the first step must count"


def test_saturation_and_extremes(ffi, lib):
    """Largest magnitudes: int8 extremes, int16 time weights at both ends, huge gains."""
    rng = np.random.default_rng(5)
    for gain in (1e3, 1e5):
        c = case(rng, 2, 64, 12, 4, 3, True, gain)
        c["wt"][:] = np.where(rng.random(c["wt"].shape) < 0.5, -32768, 32767).astype(np.int16)
        xs = [np.full((2, 64), v, dtype=np.int8) for v in (-128, 127, -128, 127, 0)]
        run_sequence(ffi, lib, c, xs)


@pytest.mark.parametrize("input_size", [255, 256, 257, 700])
def test_long_inputs_cross_the_kernels_blocks(ffi, lib, input_size):
    """The feature sums run in blocks of 256 inputs; extreme values at every block boundary."""
    rng = np.random.default_rng(input_size)
    c = case(rng, 2, input_size, 6, 3, 3)
    c["input_zero_point"] = 127
    c["wf"][:] = -128
    xs = [np.full((2, input_size), -128, dtype=np.int8),
          rng.integers(-128, 128, size=(2, input_size), dtype=np.int8),
          np.full((2, input_size), 127, dtype=np.int8)]
    run_sequence(ffi, lib, c, xs)


@pytest.mark.parametrize("filters,rank,memory", [(8, 1, 8), (64, 1, 8), (32, 1, 32), (24, 3, 17),
                                                  (9, 9, 16), (40, 5, 7), (1, 1, 1)])
def test_chunk_and_width_edges(ffi, lib, filters, rank, memory):
    """Exactly one and several 8-filter chunks, the keyword model's shapes, a unit as wide as
    a chunk plus one, memories at and off the SIMD widths; extreme state and weights."""
    rng = np.random.default_rng(filters * 100 + memory)
    c = case(rng, 2, 33, filters, memory, rank, True, 50.0)
    c["wt"][:] = np.where(rng.random(c["wt"].shape) < 0.5, -32768, 32767).astype(np.int16)
    xs = [rng.integers(-128, 128, size=(2, 33), dtype=np.int8) for _ in range(memory + 2)]
    run_sequence(ffi, lib, c, xs)


def test_fused_needs_no_scratch(ffi, lib):
    rng = np.random.default_rng(7)
    c = case(rng, 1, 12, 10, 5, 2)
    r = Runner(ffi, lib, c, "fused")
    x = rng.integers(-128, 128, size=(1, 12), dtype=np.int8)
    status, got, err = r.step(x)                  # scratch NULL, count 0
    assert status == lib.AP_OK, message(ffi, err)
    np.testing.assert_array_equal(got, reference_step(c, x, np.zeros((1, 50), np.int16))[0])


def test_scratch_exact_and_one_byte_short(ffi, lib):
    rng = np.random.default_rng(1)
    c = case(rng, 2, 9, 6, 4, 2)
    r = Runner(ffi, lib, c, "direct")
    x = rng.integers(-128, 128, size=(2, 9), dtype=np.int8)
    status, _, err = r.step(x, short=0)
    assert status == lib.AP_ERR_SCRATCH_TOO_SMALL
    assert err.needed == 4 * 2 * 6 and err.available == 4 * 2 * 6 - 1
    assert not r.state.view(np.int16).any(), "a refused run must not touch the state"


def test_bad_input(ffi, lib):
    rng = np.random.default_rng(2)
    c = case(rng, 1, 4, 4, 2, 2)
    r = Runner(ffi, lib, c, "direct")
    p, v = r.p, r.v
    err = ffi.new("ap_error *")
    x = ffi.new("int8_t[]", 4)
    out = ffi.new("int8_t[]", 2)
    wf = ffi.new("int8_t[]", 16)
    wt = ffi.new("int16_t[]", 8)
    state = ffi.new("int16_t[]", 9)
    scr, _bufs = scratch_for(ffi, v)

    def run(params=p, variant=v, inp=x, w1=wf, w2=wt, bias=ffi.NULL, st_=state, o=out, s=scr, n=1):
        return lib.ap_svdf_s8_run(params, variant, inp, w1, w2, bias, st_, o, s, n, err)

    assert run() == lib.AP_OK
    for kwargs in (dict(params=ffi.NULL), dict(variant=ffi.NULL), dict(inp=ffi.NULL), dict(w1=ffi.NULL),
                   dict(w2=ffi.NULL), dict(st_=ffi.NULL), dict(o=ffi.NULL)):
        assert run(**kwargs) == lib.AP_ERR_INVALID_ARGUMENT, kwargs
    assert run(s=ffi.NULL, n=0) == lib.AP_ERR_INVALID_ARGUMENT
    spare = Guarded(ffi, v.scratch[0].bytes + 4)       # direct's int32 scratch, 2 bytes off
    odd = ffi.new("ap_scratch *", {"data": ffi.cast("char *", spare.ptr) + 2, "bytes": v.scratch[0].bytes})
    assert run(s=odd) == lib.AP_ERR_INVALID_ARGUMENT and "4-byte aligned" in message(ffi, err)
    misaligned = ffi.cast("int16_t *", ffi.cast("char *", state) + 1)
    fused = Runner(ffi, lib, c, "fused").v
    assert run(variant=fused, s=ffi.NULL, n=0) == lib.AP_OK
    assert run(variant=fused, st_=misaligned) == lib.AP_ERR_INVALID_ARGUMENT and "aligned" in message(ffi, err)
    assert run(st_=misaligned) == lib.AP_ERR_INVALID_ARGUMENT and "aligned" in message(ffi, err)
    assert run(w2=ffi.cast("int16_t *", ffi.cast("char *", wt) + 1)) == lib.AP_ERR_INVALID_ARGUMENT
    bias = ffi.new("int32_t[]", 3)
    assert run(bias=ffi.cast("int32_t *", ffi.cast("char *", bias) + 2)) == lib.AP_ERR_INVALID_ARGUMENT
    wrong = ffi.new("ap_variant *", v[0])
    wrong.kind = 3
    assert run(variant=wrong) == lib.AP_ERR_INVALID_ARGUMENT
    good = {k: getattr(p, k) for k in PARAM_FIELDS}
    for field, value, words in [("rank", 3, "does not divide"), ("rank", 0, ">= 1"), ("memory", 0, ">= 1"),
                                ("batches", -1, ">= 1"), ("input_zero_point", 128, "zero points"),
                                ("output_zero_point", -129, "zero points"), ("feature_shift", 32, "shifts"),
                                ("time_multiplier", -1, "multipliers")]:
        q = make(ffi, **dict(good, **{field: value}))
        assert run(params=q) == lib.AP_ERR_INVALID_ARGUMENT, field
        assert words in message(ffi, err), (field, message(ffi, err))
        n = ffi.new("uint32_t *")
        assert lib.ap_svdf_s8_variants(q, lib.AP_ISA_PORTABLE, ffi.NULL, 0, n, err) == lib.AP_ERR_INVALID_ARGUMENT
    big = make(ffi, **dict(good, batches=2 ** 31 - 1, filters=2 ** 31 - 1, memory=2 ** 31 - 1, rank=1))
    n = ffi.new("size_t *")
    assert lib.ap_svdf_s8_state_bytes(big, n, err) == lib.AP_ERR_OVERFLOW
    assert lib.ap_svdf_s8_state_bytes(p, ffi.NULL, err) == lib.AP_ERR_INVALID_ARGUMENT


# ---- LiteRT's SVDF kernel: random single-op models and the keyword model's layers ----

@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches=st.integers(1, 2), input_size=st.integers(1, 40), units=st.integers(1, 8),
       rank=st.integers(1, 3), memory=st.integers(1, 9), bias=st.booleans(),
       gain=st.sampled_from([0.5, 1.0, 8.0]), seed=st.integers(0, 2 ** 31))
def test_reference_and_kernel_match_litert(ffi, lib, batches, input_size, units, rank, memory, bias, gain, seed):
    rng = np.random.default_rng(seed)
    c = case(rng, batches, input_size, units * rank, memory, rank, bias, gain)
    xs = [rng.integers(-128, 128, size=(batches, input_size), dtype=np.int8) for _ in range(5)]
    outs, seen = L.run_sequence(svdf_model(c), [[x] for x in xs], (STATE,))
    _, got = run_sequence(ffi, lib, c, xs)      # C kernel == reference, state included
    state = np.zeros((batches, c["filters"] * memory), dtype=np.int16)
    for step, x in enumerate(xs):
        want, state = reference_step(c, x, state)
        np.testing.assert_array_equal(want, outs[step][0], err_msg=f"reference vs LiteRT, step {step}")
        np.testing.assert_array_equal(state, seen[STATE][step], err_msg=f"state vs LiteRT, step {step}")
        np.testing.assert_array_equal(got[step], outs[step][0])


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
def test_litert_layers_bit_exact(ffi, lib):
    """The keyword model's seven SVDF layers, first invocation (zero state) in LiteRT."""
    layers = L.layers({"SVDF"})
    assert len(layers) >= 7
    for layer in layers:
        x, wf, wt, b, _ = layer.inputs
        s = [L.scale_of(layer.input_q[i]) for i in range(5)]
        c = dict(batches=x.shape[0], input_size=x.shape[1], filters=wf.shape[0], memory=wt.shape[1],
                 rank=layer.options.Rank(), input_zero_point=L.zero_point_of(layer.input_q[0]),
                 output_zero_point=L.zero_point_of(layer.output_q[0]), wf=wf, wt=wt, bias=b,
                 **svdf_params(s[0], s[1], s[4], s[2], L.scale_of(layer.output_q[0])))
        r, outs = run_sequence(ffi, lib, c, [x])
        np.testing.assert_array_equal(outs[0], layer.outputs[0], err_msg=layer.name)
        np.testing.assert_array_equal(r.state_now(), layer.inputs[4], err_msg=layer.name)  # after the run
