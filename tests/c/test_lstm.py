"""UNIDIRECTIONAL_SEQUENCE_LSTM int8 through the C API: random shapes, scales and zero points
against the NumPy reference of TFLite's integer LSTM, the gate activations swept over the
whole int16 range, generated one-op models and the shared mnist_lstm model against LiteRT's
reference kernels (with the variable state carried from one invocation to the next), and
bad parameters."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arenaplan.ops.lstm_params import lstm_operands, lstm_quant_params
from ops_harness import Guarded, cpu, cpu_levels, guarded_from, message, variant_name, variants
from harness.reference import lstm as R
from harness.reference import litert_layers as L

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
MNIST_LSTM = L.MODELS_DIR / "tflm_mnist_lstm_int8.tflite"


def reference_params(q) -> dict:
    """The reference's parameter dict from an LstmQuantParams (or a dict of its fields)."""
    d = q if isinstance(q, dict) else q.as_dict()
    return dict(input_zero_point=-d["input_offset"], output_state_zero_point=-d["output_state_offset"],
                hidden_zero_point=d["hidden_zero_point"], input_multiplier=d["input_multiplier"],
                input_shift=d["input_shift"], recurrent_multiplier=d["recurrent_multiplier"],
                recurrent_shift=d["recurrent_shift"], hidden_multiplier=d["hidden_multiplier"],
                hidden_shift=d["hidden_shift"], cell_scale_log2=d["cell_scale_log2"], cell_clip=d["cell_clip"])


class Case:
    """One LSTM: weights and quantisation, its params struct and prepared blob."""

    def __init__(self, ffi, lib, *, batches, time_steps, wx, wh, biases, quant, time_major=False):
        self.ffi, self.lib = ffi, lib
        self.wx = [np.ascontiguousarray(w, dtype=np.int8) for w in wx]
        self.wh = [np.ascontiguousarray(w, dtype=np.int8) for w in wh]
        self.biases = [None if b is None else np.ascontiguousarray(b, dtype=np.int32) for b in biases]
        self.quant = quant if isinstance(quant, dict) else quant.as_dict()
        self.time_major = bool(time_major)
        self.batches, self.time_steps = batches, time_steps
        self.n_cell, self.n_input = self.wx[0].shape
        p = ffi.new("ap_lstm_params *")
        p.batches, p.time_steps, p.input_size, p.cell_size = batches, time_steps, self.n_input, self.n_cell
        p.time_major = int(self.time_major)
        q = self.quant
        p.input_offset, p.output_state_offset = q["input_offset"], q["output_state_offset"]
        p.hidden_zero_point = q["hidden_zero_point"]
        for g in range(4):
            p.input_multiplier[g], p.input_shift[g] = q["input_multiplier"][g], q["input_shift"][g]
            p.recurrent_multiplier[g] = q["recurrent_multiplier"][g]
            p.recurrent_shift[g] = q["recurrent_shift"][g]
        p.hidden_multiplier, p.hidden_shift = q["hidden_multiplier"], q["hidden_shift"]
        p.cell_scale_log2, p.cell_clip = q["cell_scale_log2"], q["cell_clip"]
        self.params = p
        self.weights = ffi.new("ap_lstm_weights *")
        self._keep = []
        for g in range(4):
            self.weights.input_to_gate[g] = self._ptr("int8_t[]", self.wx[g])
            self.weights.recurrent_to_gate[g] = self._ptr("int8_t[]", self.wh[g])
            self.weights.gate_bias[g] = ffi.NULL if self.biases[g] is None else self._ptr("int32_t[]", self.biases[g])
        size = ffi.new("size_t *")
        err = ffi.new("ap_error *")
        assert lib.ap_lstm_s8_prepared_size(p, size, err) == lib.AP_OK, message(ffi, err)
        assert size[0] == 32 + 32 * self.n_cell + self.n_cell * 4 * (self.n_input + self.n_cell)
        self.prepared = Guarded(ffi, size[0])
        assert lib.ap_lstm_s8_prepare(p, lib.AP_ISA_PORTABLE, self.weights, self.prepared.ptr, size[0], err) == lib.AP_OK, \
            message(ffi, err)
        assert self.prepared.intact()
        self.variant = variants(ffi, lib, lib.ap_lstm_s8_variants, p)[0]

    def _ptr(self, ctype, array):
        cdata = self.ffi.from_buffer(ctype, array)
        self._keep.append((cdata, array))
        return cdata

    def zero_state(self):
        """TFLite's reset of the variable tensors: int8 to its zero point, int16 to 0."""
        h = np.full((self.batches, self.n_cell), -self.quant["output_state_offset"], dtype=np.int8)
        return h, np.zeros((self.batches, self.n_cell), dtype=np.int16)

    def out_shape(self):
        lead = (self.time_steps, self.batches) if self.time_major else (self.batches, self.time_steps)
        return lead + (self.n_cell,)

    def reference(self, x, h, c):
        return R.lstm(x, self.wx, self.wh, self.biases, reference_params(self.quant), h, c,
                      time_major=self.time_major)

    def run(self, x, h, c, params=None, variant=None, prepared=None, scratch=None, scratch_count=0):
        """Run through guarded buffers; returns (status, output, output_state, cell_state, error)."""
        ffi, lib = self.ffi, self.lib
        inp = guarded_from(ffi, np.ascontiguousarray(x, dtype=np.int8))
        out = Guarded(ffi, int(np.prod(self.out_shape())), fill=0x33)
        hs = guarded_from(ffi, np.ascontiguousarray(h, dtype=np.int8))
        cs = guarded_from(ffi, np.ascontiguousarray(c, dtype=np.int16))
        err = ffi.new("ap_error *")
        status = lib.ap_lstm_s8_run(self.params if params is None else params,
                                    self.variant if variant is None else variant,
                                    self.prepared.ptr if prepared is None else prepared,
                                    ffi.cast("int8_t *", inp.ptr), ffi.cast("int8_t *", out.ptr),
                                    ffi.cast("int8_t *", hs.ptr), ffi.cast("int16_t *", cs.ptr),
                                    ffi.NULL if scratch is None else scratch, scratch_count, err)
        assert inp.intact() and out.intact() and hs.intact() and cs.intact() and self.prepared.intact()
        assert np.array_equal(inp.view(np.int8), np.asarray(x, dtype=np.int8).reshape(-1)), "input written"
        return (status, out.view(np.int8).reshape(self.out_shape()).copy(),
                hs.view(np.int8).reshape(self.batches, self.n_cell).copy(),
                cs.view(np.int16).reshape(self.batches, self.n_cell).copy(), err)

    def run_levels(self, x, h, c):
        """Run on every CPU dispatch level (portable, AVX2 when present); all must agree.
        Returns (output, output_state, cell_state)."""
        results = []
        for level in cpu_levels(self.lib):
            with cpu(self.lib, level):
                status, out, h2, c2, err = self.run(x, h, c)
            assert status == self.lib.AP_OK, message(self.ffi, err)
            results.append((out, h2, c2))
        for other in results[1:]:
            for a, b in zip(results[0], other):
                np.testing.assert_array_equal(a, b, err_msg="portable and AVX2 paths differ")
        return results[0]

    def check(self, x, h, c):
        """Run (every CPU level) and compare everything with the reference; returns the new state."""
        want_out, want_h, want_c = self.reference(x, h, c)
        out, h2, c2 = self.run_levels(x, h, c)
        np.testing.assert_array_equal(out, want_out)
        np.testing.assert_array_equal(h2, want_h)
        np.testing.assert_array_equal(c2, want_c)
        return h2, c2


def random_layer(rng, n_input, n_cell, *, zero_points=True, clip=None, cell_scale=None):
    """Weights, biases and quantisation from random scales, as a converter would give them."""
    wx = [rng.integers(-127, 128, (n_cell, n_input), dtype=np.int8) for _ in range(4)]
    wh = [rng.integers(-127, 128, (n_cell, n_cell), dtype=np.int8) for _ in range(4)]
    biases = [rng.integers(-40000, 40000, n_cell, dtype=np.int32) for _ in range(4)]
    logu = lambda lo, hi: float(np.exp(rng.uniform(np.log(lo), np.log(hi))))  # noqa: E731
    state_scale = logu(2e-3, 2e-2)
    state_zp = int(rng.integers(-128, 128)) if zero_points else 0
    scales = dict(input_scale=logu(1e-3, 0.1), input_zero_point=int(rng.integers(-128, 128)) if zero_points else 0,
                  input_weight_scales=[logu(1e-3, 3e-2) for _ in range(4)],
                  recurrent_weight_scales=[logu(1e-3, 3e-2) for _ in range(4)],
                  output_state_scale=state_scale, output_state_zero_point=state_zp,
                  cell_state_scale=2.0 ** (int(rng.integers(-15, -8)) if cell_scale is None else cell_scale),
                  hidden_scale=state_scale, hidden_zero_point=state_zp,
                  cell_clip=float(rng.choice([0.0, 1.0, 3.0, 10.0])) if clip is None else clip)
    return wx, wh, biases, scales


def raw_quant(rng) -> dict:
    """Integer parameters drawn directly, beyond what real scales give: large multipliers that
    saturate the gates, any zero points, any supported cell scale and clip."""
    return dict(input_offset=int(rng.integers(-127, 129)), output_state_offset=int(rng.integers(-127, 129)),
                hidden_zero_point=int(rng.integers(-128, 128)),
                input_multiplier=[int(v) for v in rng.integers(1 << 30, (1 << 31) - 1, 4)],
                input_shift=[int(v) for v in rng.integers(-8, 4, 4)],
                recurrent_multiplier=[int(v) for v in rng.integers(1 << 30, (1 << 31) - 1, 4)],
                recurrent_shift=[int(v) for v in rng.integers(-8, 4, 4)],
                hidden_multiplier=int(rng.integers(1 << 30, (1 << 31) - 1)),
                hidden_shift=int(rng.integers(-26, -12)),
                cell_scale_log2=int(rng.integers(-15, -8)),
                cell_clip=int(rng.choice([0, int(rng.integers(1, 32768))])))


# ---- descriptors ---------------------------------------------------------------------------

def test_variants_sizes_and_macs(ffi, lib):
    rng = np.random.default_rng(1)
    wx, wh, b, s = random_layer(rng, 28, 20)
    case = Case(ffi, lib, batches=2, time_steps=28, wx=wx, wh=wh, biases=b, quant=lstm_quant_params(**s))
    vs = variants(ffi, lib, lib.ap_lstm_s8_variants, case.params)
    assert [variant_name(ffi, v) for v in vs] == ["direct"]
    assert vs[0].kind == lib.AP_LSTM_DIRECT and vs[0].param == 0 and vs[0].scratch_count == 0
    assert vs[0].macs == 2 * 28 * 4 * 20 * (28 + 20)
    count = ffi.new("uint32_t *")
    err = ffi.new("ap_error *")
    assert lib.ap_lstm_s8_variants(case.params, lib.AP_ISA_PORTABLE, ffi.NULL, 0, count, err) == lib.AP_OK and count[0] == 1


# ---- against the NumPy reference ----------------------------------------------------------

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches=st.integers(1, 2), steps=st.integers(1, 8), n_input=st.integers(1, 40),
       n_cell=st.integers(1, 32), time_major=st.booleans(), raw=st.booleans(),
       random_state=st.booleans(), seed=st.integers(0, 2 ** 31))
def test_random_lstm_matches_reference(ffi, lib, batches, steps, n_input, n_cell, time_major, raw,
                                       random_state, seed):
    rng = np.random.default_rng(seed)
    wx, wh, biases, scales = random_layer(rng, n_input, n_cell)
    quant = raw_quant(rng) if raw else lstm_quant_params(**scales)
    if rng.integers(0, 4) == 0:
        biases[int(rng.integers(0, 4))] = None
    case = Case(ffi, lib, batches=batches, time_steps=steps, wx=wx, wh=wh, biases=biases, quant=quant,
                time_major=time_major)
    x = rng.integers(-128, 128, case.out_shape()[:2] + (n_input,), dtype=np.int8)
    h, c = case.zero_state()
    if random_state:
        h = rng.integers(-128, 128, h.shape, dtype=np.int8)
        c = rng.integers(-32768, 32768, c.shape, dtype=np.int16)
    h, c = case.check(x, h, c)
    x2 = rng.integers(-128, 128, x.shape, dtype=np.int8)
    case.check(x2, h, c)   # the state carried into a second run


def _sweep_case(ffi, lib, cell_scale, clip, seed=0, n_cell=2048):
    """Zero weights; each gate's pre-activation is its bias (multiplier 2^30, shift 1 is x1),
    the biases sweeping past both int16 ends in a different order per gate."""
    rng = np.random.default_rng(seed)
    sweep = np.linspace(-40000, 40000, n_cell).astype(np.int32)
    biases = [rng.permutation(sweep) for _ in range(4)]
    wx = [np.zeros((n_cell, 1), np.int8)] * 4
    wh = [np.zeros((n_cell, n_cell), np.int8)] * 4
    quant = dict(input_offset=0, output_state_offset=0, hidden_zero_point=3,
                 input_multiplier=[1 << 30] * 4, input_shift=[1] * 4,
                 recurrent_multiplier=[1 << 30] * 4, recurrent_shift=[1] * 4,
                 hidden_multiplier=1 << 30, hidden_shift=-22, cell_scale_log2=cell_scale, cell_clip=clip)
    return Case(ffi, lib, batches=1, time_steps=4, wx=wx, wh=wh, biases=biases, quant=quant)


@pytest.mark.parametrize("cell_scale", [-15, -12, -9])
@pytest.mark.parametrize("clip", [0, 5000])
def test_gate_activations_over_the_int16_range(ffi, lib, cell_scale, clip):
    case = _sweep_case(ffi, lib, cell_scale, clip)
    h, c = case.zero_state()
    x = np.zeros((1, 4, 1), np.int8)
    h, c = case.check(x, h, c)
    # from a cell state spread over the whole int16 range (the output tanh's domain)
    c = np.linspace(-32768, 32767, case.n_cell).astype(np.int16)[None, :]
    case.check(x, h, c)


def test_activations_of_every_int16_input(tmp_path):
    """sigmoid (Q3.12) and tanh (0..6 integer bits) of all 65536 int16 inputs, the portable C and
    (when this CPU has it) the AVX2 version, against the NumPy reference, itself checked against
    LiteRT below. A small C program prints the tables (tests/c/lstm_activations_main.c)."""
    from harness import cbuild
    cc = os.environ.get("CC", "gcc")
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler {cc!r} to build the activation table program")
    here = Path(__file__).resolve().parent
    runtime = cbuild.ROOT / "csrc" / "runtime"
    cflags, ldflags = cbuild.compile_flags()
    exe = tmp_path / "lstm_activations"
    subprocess.run([cc, *cflags, "-I", str(cbuild.INCLUDE), "-I", str(runtime),
                    str(here / "lstm_activations_main.c"), str(runtime / "lstm_s8_avx2.c"), str(runtime / "cpu.c"), str(runtime / "status.c"),
                    "-o", str(exe), *ldflags], check=True)
    raw = subprocess.run([str(exe)], capture_output=True, check=True).stdout
    has_avx2 = int(np.frombuffer(raw[:4], np.int32)[0])
    tables = np.frombuffer(raw[4:], np.int16).reshape(1 + has_avx2, 8, 65536)
    x = np.arange(-32768, 32768)
    want = [R.sigmoid_q3(x)] + [R.tanh_q(x, ib) for ib in range(7)]
    names = ["sigmoid"] + [f"tanh Q{ib}" for ib in range(7)]
    for level, got in zip(("portable", "avx2"), tables):
        for name, g, w in zip(names, got, want):
            bad = np.flatnonzero(g != w)
            assert bad.size == 0, f"{level} {name}: {bad.size} inputs differ, first {x[bad[:5]]}"


@pytest.mark.parametrize("n_input,n_cell", [(1, 1), (65536, 1), (1, 300)])
def test_extreme_sizes(ffi, lib, n_input, n_cell):
    rng = np.random.default_rng(n_input + n_cell)
    wx, wh, b, s = random_layer(rng, n_input, n_cell)
    wx = [np.full_like(w, -127) for w in wx]   # largest dot products: 65536 * 128 * 127
    case = Case(ffi, lib, batches=1, time_steps=2, wx=wx, wh=wh, biases=b, quant=raw_quant(rng))
    h, c = case.zero_state()
    case.check(np.full((1, 2, n_input), -128, np.int8), h, c)


# ---- against LiteRT ------------------------------------------------------------------------

@needs_litert
@pytest.mark.parametrize("seed", range(8))
def test_generated_models_bit_exact_with_litert(ffi, lib, seed):
    """One-op int8 LSTMs with random sizes, batch 1-2, both layouts, zero points and clips."""
    from harness.reference.litert_lstm import lstm_model, run_lstm
    rng = np.random.default_rng(100 + seed)
    batches, steps = int(rng.integers(1, 3)), int(rng.integers(1, 7))
    n_input, n_cell = int(rng.integers(1, 33)), int(rng.integers(1, 25))
    time_major = bool(seed % 2)
    wx, wh, biases, s = random_layer(rng, n_input, n_cell)
    content = lstm_model(batches=batches, time_steps=steps, input_weights=wx, recurrent_weights=wh,
                         biases=biases, input_scale=s["input_scale"], input_zero_point=s["input_zero_point"],
                         weight_scales=s["input_weight_scales"] + s["recurrent_weight_scales"],
                         output_state_scale=s["output_state_scale"],
                         output_state_zero_point=s["output_state_zero_point"],
                         cell_scale_log2=int(np.log2(s["cell_state_scale"])), hidden_scale=s["hidden_scale"],
                         hidden_zero_point=s["hidden_zero_point"], cell_clip=s["cell_clip"],
                         time_major=time_major)
    case = Case(ffi, lib, batches=batches, time_steps=steps, wx=wx, wh=wh, biases=biases,
                quant=lstm_quant_params(**s), time_major=time_major)
    xs = [rng.integers(-128, 128, case.out_shape()[:2] + (n_input,), dtype=np.int8) for _ in range(3)]
    h, c = case.zero_state()
    for k, (x, (want, want_h, want_c)) in enumerate(zip(xs, run_lstm(content, xs))):
        out, h, c = case.run_levels(x, h, c)
        np.testing.assert_array_equal(out, want, err_msg=f"invocation {k}")
        np.testing.assert_array_equal(h, want_h.reshape(h.shape), err_msg=f"output state, invocation {k}")
        np.testing.assert_array_equal(c, want_c.reshape(c.shape), err_msg=f"cell state, invocation {k}")


@needs_litert
def test_litert_initial_state_is_the_output_state_zero_point(ffi, lib):
    """What a caller must start from: LiteRT resets an int8 variable tensor to its zero point
    (the int16 cell state to 0); the kernel matches LiteRT from that state, not from zeros."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    from harness.reference.litert_lstm import CELL_STATE, OUTPUT, OUTPUT_STATE, lstm_model
    rng = np.random.default_rng(5)
    wx, wh, biases, s = random_layer(rng, 3, 4, clip=0.0)
    s["output_state_zero_point"] = s["hidden_zero_point"] = 57
    content = lstm_model(batches=2, time_steps=1, input_weights=wx, recurrent_weights=wh, biases=biases,
                         input_scale=s["input_scale"], input_zero_point=s["input_zero_point"],
                         weight_scales=s["input_weight_scales"] + s["recurrent_weight_scales"],
                         output_state_scale=s["output_state_scale"], output_state_zero_point=57,
                         cell_scale_log2=int(np.log2(s["cell_state_scale"])),
                         hidden_scale=s["hidden_scale"], hidden_zero_point=57)
    interp = Interpreter(model_content=content, experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                         experimental_preserve_all_tensors=True)
    interp.allocate_tensors()
    interp.reset_all_variables()
    assert np.all(interp.get_tensor(OUTPUT_STATE) == 57) and np.all(interp.get_tensor(CELL_STATE) == 0)
    x = rng.integers(-128, 128, (2, 1, 3), dtype=np.int8)
    interp.set_tensor(0, x)
    interp.invoke()
    want = interp.get_tensor(OUTPUT)
    case = Case(ffi, lib, batches=2, time_steps=1, wx=wx, wh=wh, biases=biases, quant=lstm_quant_params(**s))
    h, c = case.zero_state()
    assert np.all(h == 57) and np.all(c == 0)
    np.testing.assert_array_equal(case.run(x, h, c)[1], want)
    assert not np.array_equal(case.run(x, np.zeros_like(h), c)[1], want)


@needs_litert
@pytest.mark.parametrize("cell_scale", [-15, -12, -9])
def test_activation_sweep_bit_exact_with_litert(ffi, lib, cell_scale):
    """The sweep above as a model: input and weight scales 2^-6 make the effective gate scale
    exactly 1, so each gate's pre-activation is its bias, over the whole int16 range."""
    from harness.reference.litert_lstm import lstm_model, run_lstm
    case = _sweep_case(ffi, lib, cell_scale, 0, n_cell=1024)
    hidden_scale = 2.0 ** -8   # 2^-30 / 2^-8 = 2^-22: hidden_multiplier 2^30, shift -21
    s = dict(input_scale=2.0 ** -6, input_zero_point=0, input_weight_scales=[2.0 ** -6] * 4,
             recurrent_weight_scales=[2.0 ** -6] * 4, output_state_scale=hidden_scale,
             output_state_zero_point=3, cell_state_scale=2.0 ** cell_scale, hidden_scale=hidden_scale,
             hidden_zero_point=3)
    q = lstm_quant_params(**s)
    assert q.input_multiplier == (1 << 30,) * 4 and q.input_shift == (1,) * 4
    case = Case(ffi, lib, batches=1, time_steps=4, wx=case.wx, wh=case.wh, biases=case.biases, quant=q)
    content = lstm_model(batches=1, time_steps=4, input_weights=case.wx, recurrent_weights=case.wh,
                         biases=case.biases, input_scale=s["input_scale"], input_zero_point=0,
                         weight_scales=[2.0 ** -6] * 8, output_state_scale=hidden_scale,
                         output_state_zero_point=3, cell_scale_log2=cell_scale, hidden_scale=hidden_scale,
                         hidden_zero_point=3)
    x = np.zeros((1, 4, 1), np.int8)
    (want, want_h, want_c), = run_lstm(content, [x])
    h, c = case.zero_state()
    out, h, c = case.run_levels(x, h, c)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(c, want_c.reshape(c.shape))
    assert len(np.unique(c)) > 500 and len(np.unique(out)) > 100   # the sweep really spreads


@needs_litert
def test_mnist_lstm_bit_exact_with_litert(ffi, lib):
    """The shared model's op 0 through the project's importer and the C kernel, against LiteRT's
    output tensor of op 0: several inputs from the zero state, then each followed by a second
    invocation that starts from the state the first left (LiteRT keeps variable tensors)."""
    import arenaplan as ap
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    model = ap.load_tflite(MNIST_LSTM)
    ops = lstm_operands(model, 0)
    assert (ops.batches, ops.time_steps, ops.input_size, ops.cell_size, ops.time_major) == (1, 28, 28, 20, False)
    assert ops.params.cell_scale_log2 == -12 and ops.params.cell_clip == 32767
    case = Case(ffi, lib, batches=1, time_steps=28, wx=ops.input_weights, wh=ops.recurrent_weights,
                biases=ops.biases, quant=ops.params)
    out_index = model.operators[0].outputs[0]
    interp = Interpreter(model_path=str(MNIST_LSTM), experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                         experimental_preserve_all_tensors=True)
    interp.allocate_tensors()
    rng = np.random.default_rng(7)
    in_index = model.operators[0].inputs[0]
    for k in range(4):
        interp.reset_all_variables()
        h, c = case.zero_state()
        for invocation in range(2):
            x = rng.integers(-128, 128, (1, 28, 28), dtype=np.int8)
            interp.set_tensor(in_index, x)
            interp.invoke()
            out, h, c = case.run_levels(x, h, c)
            where = f"input {k}, invocation {invocation}"
            np.testing.assert_array_equal(out, interp.get_tensor(out_index), err_msg=where)
            np.testing.assert_array_equal(h, interp.get_tensor(ops.output_state).reshape(h.shape), err_msg=where)
            np.testing.assert_array_equal(c, interp.get_tensor(ops.cell_state).reshape(c.shape), err_msg=where)
        assert np.abs(c).max() == 32767   # the clip (10.0 / 2^-12, saturated to 32767) was reached


# ---- bad input -----------------------------------------------------------------------------

def test_bad_parameters_fail_cleanly(ffi, lib):
    rng = np.random.default_rng(3)
    wx, wh, b, s = random_layer(rng, 6, 5)
    case = Case(ffi, lib, batches=1, time_steps=3, wx=wx, wh=wh, biases=b, quant=lstm_quant_params(**s))
    x = rng.integers(-128, 128, (1, 3, 6), dtype=np.int8)
    h0, c0 = case.zero_state()
    err = ffi.new("ap_error *")

    def params_with(**fields):
        q = ffi.new("ap_lstm_params *", case.params[0])
        for name, value in fields.items():
            if "[" in name:
                field, idx = name.rstrip("]").split("[")
                getattr(q, field)[int(idx)] = value
            else:
                setattr(q, name, value)
        return q

    def fails(status, text, **kw):
        got, out, h, c, e = case.run(x, h0, c0, **kw)
        assert got == status, message(ffi, e)
        assert text in message(ffi, e), message(ffi, e)
        assert np.all(out.view(np.uint8) == 0x33), "output written on failure"
        assert np.array_equal(h, h0) and np.array_equal(c, c0), "state written on failure"

    assert case.run(x, h0, c0)[0] == lib.AP_OK
    invalid, unsupported = lib.AP_ERR_INVALID_ARGUMENT, lib.AP_ERR_UNSUPPORTED
    fails(invalid, "must be >= 1", params=params_with(time_steps=0))
    fails(invalid, "time_major", params=params_with(time_major=2))
    fails(invalid, "input_offset", params=params_with(input_offset=129))
    fails(invalid, "output_state_offset", params=params_with(output_state_offset=-128))
    fails(invalid, "hidden_zero_point", params=params_with(hidden_zero_point=128))
    fails(invalid, "forget gate input multiplier", params=params_with(**{"input_multiplier[1]": -1}))
    fails(invalid, "output gate recurrent multiplier", params=params_with(**{"recurrent_shift[3]": 31}))
    fails(invalid, "hidden multiplier", params=params_with(hidden_shift=-32))
    fails(unsupported, "cell state scale 2^-16", params=params_with(cell_scale_log2=-16))
    fails(unsupported, "cell state scale 2^-8", params=params_with(cell_scale_log2=-8))
    fails(invalid, "cell_clip", params=params_with(cell_clip=32768))
    fails(invalid, "cell_clip", params=params_with(cell_clip=-1))
    fails(invalid, "reference 2 is neither", params=params_with(reference=2))
    fails(invalid, "reference -1 is neither", params=params_with(reference=-1))
    fails(invalid, "[-1, 32767] (-1: no clip; reference tflm)", params=params_with(reference=1, cell_clip=-2))
    fails(invalid, "reference tflm", params=params_with(reference=1, cell_clip=32768))
    assert case.run(x, h0, c0, params=params_with(reference=1, cell_clip=-1))[0] == lib.AP_OK
    fails(unsupported, "exceeds 65536", params=params_with(input_size=65537))
    fails(invalid, "built for", params=params_with(input_size=7))
    fails(invalid, "built for", params=params_with(output_state_offset=case.params.output_state_offset + 1))
    bad_variant = ffi.new("ap_variant *", case.variant[0])
    bad_variant.kind = 1
    fails(unsupported, "unknown variant", variant=bad_variant)
    fails(invalid, "variant must not be NULL", variant=ffi.NULL)
    garbage = Guarded(ffi, case.prepared.nbytes, fill=0)
    fails(invalid, "magic", prepared=garbage.ptr)
    fails(invalid, "aligned", prepared=ffi.cast("char *", case.prepared.ptr) + 1)
    fails(invalid, "params must not be NULL", params=ffi.NULL)
    # scratch is optional for "direct": extra buffers are accepted and left alone
    extra = Guarded(ffi, 64, fill=0x11)
    scratch = ffi.new("ap_scratch[]", 1)
    scratch[0].data, scratch[0].bytes = extra.ptr, 64
    assert case.run(x, h0, c0, scratch=scratch, scratch_count=1)[0] == lib.AP_OK
    assert np.all(extra.payload == 0x11) and extra.intact()
    # NULL tensors
    null = ffi.NULL
    for i in range(5):
        args = [case.prepared.ptr, ffi.new("int8_t[]", 18), ffi.new("int8_t[]", 15), ffi.new("int8_t[]", 5),
                ffi.new("int16_t[]", 5)]
        args[i] = null
        assert lib.ap_lstm_s8_run(case.params, case.variant, *args, null, 0, err) == invalid
        assert "must not be NULL" in message(ffi, err)
    # sizes whose byte counts overflow size_t
    big = params_with(batches=2 ** 31 - 1, time_steps=2 ** 31 - 1, input_size=65536)
    assert lib.ap_lstm_s8_variants(big, lib.AP_ISA_PORTABLE, ffi.NULL, 0, ffi.new("uint32_t *"), err) == lib.AP_ERR_OVERFLOW
    assert "overflows" in message(ffi, err)


def test_bad_prepare_and_variants_arguments(ffi, lib):
    rng = np.random.default_rng(4)
    wx, wh, b, s = random_layer(rng, 4, 3)
    case = Case(ffi, lib, batches=1, time_steps=1, wx=wx, wh=wh, biases=b, quant=lstm_quant_params(**s))
    err = ffi.new("ap_error *")
    size = case.prepared.nbytes
    blob = Guarded(ffi, size)
    p, w = case.params, case.weights
    assert lib.ap_lstm_s8_prepare(p, lib.AP_ISA_PORTABLE, w, blob.ptr, size - 1, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert err.needed == size and err.available == size - 1
    assert lib.ap_lstm_s8_prepare(p, lib.AP_ISA_PORTABLE, w, ffi.cast("char *", blob.ptr) + 2, size, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_lstm_s8_prepare(p, lib.AP_ISA_PORTABLE, ffi.NULL, blob.ptr, size, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_lstm_s8_prepare(p, lib.AP_ISA_PORTABLE, w, ffi.NULL, size, err) == lib.AP_ERR_INVALID_ARGUMENT
    missing = ffi.new("ap_lstm_weights *", w[0])
    missing.recurrent_to_gate[2] = ffi.NULL
    assert lib.ap_lstm_s8_prepare(p, lib.AP_ISA_PORTABLE, missing, blob.ptr, size, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert "cell gate" in message(ffi, err) and err.index == 2
    assert blob.intact()
    assert lib.ap_lstm_s8_prepared_size(p, ffi.NULL, err) == lib.AP_ERR_INVALID_ARGUMENT
    out = ffi.new("ap_variant[]", 1)
    count = ffi.new("uint32_t *")
    assert lib.ap_lstm_s8_variants(p, lib.AP_ISA_PORTABLE, out, 0, count, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert count[0] == 1 and err.needed == 1 and err.available == 0
    assert lib.ap_lstm_s8_variants(p, lib.AP_ISA_PORTABLE, ffi.NULL, 1, count, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_lstm_s8_variants(p, lib.AP_ISA_PORTABLE, out, 1, ffi.NULL, err) == lib.AP_ERR_INVALID_ARGUMENT
