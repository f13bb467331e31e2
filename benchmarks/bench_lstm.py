"""LSTM benchmark: the C kernel (ap_lstm_s8_run) on the shared mnist_lstm model's LSTM op against
LiteRT on the same op, one-op model, reference (BUILTIN_REF) and default (optimised) kernels.

The C kernel runs through the cffi build of the C core (tests/c/cbuild.py, compiled -O3 here),
on the best dispatch level (AVX2 activations) and, in the same rounds, on the portable one.
LiteRT runs a one-op model with the same weights and quantisation (tests/reference/litert_lstm.py);
only invoke() is timed. Before timing, all of them must give the same output bytes on the timed
input. Rounds interleave the runners (rotated order); each sample is about --target-ms of
back-to-back calls; the table quotes the median per call across rounds and each one's ratio to
the C kernel, computed round by round. The C figures include the cffi calls (about a microsecond).

    PYTHONPATH=python python benchmarks/bench_lstm.py            # about half a minute
    PYTHONPATH=python python benchmarks/bench_lstm.py --quick    # a few seconds
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "c"))
RESULTS = ROOT / "benchmarks" / "results" / "bench_lstm.json"
MODEL = ROOT.parent / "shared" / "models" / "tflm_mnist_lstm_int8.tflite"


def c_kernel(ops, limit=None):
    """A call running the C kernel (on dispatch levels up to `limit`, default: the best)."""
    os.environ.setdefault("AP_OPT", "-O3")
    import cbuild
    ffi, lib = cbuild.build()
    p = ffi.new("ap_lstm_params *")
    p.batches, p.time_steps, p.input_size, p.cell_size = ops.batches, ops.time_steps, ops.input_size, ops.cell_size
    p.time_major = int(ops.time_major)
    q = ops.params
    p.input_offset, p.output_state_offset = q.input_offset, q.output_state_offset
    p.hidden_zero_point = q.hidden_zero_point
    for g in range(4):
        p.input_multiplier[g], p.input_shift[g] = q.input_multiplier[g], q.input_shift[g]
        p.recurrent_multiplier[g], p.recurrent_shift[g] = q.recurrent_multiplier[g], q.recurrent_shift[g]
    p.hidden_multiplier, p.hidden_shift = q.hidden_multiplier, q.hidden_shift
    p.cell_scale_log2, p.cell_clip = q.cell_scale_log2, q.cell_clip
    w = ffi.new("ap_lstm_weights *")
    keep = []
    for g in range(4):
        for field, arr, ctype in (("input_to_gate", ops.input_weights[g], "int8_t[]"),
                                  ("recurrent_to_gate", ops.recurrent_weights[g], "int8_t[]"),
                                  ("gate_bias", ops.biases[g], "int32_t[]")):
            c = ffi.from_buffer(ctype, arr)
            keep.append(c)
            getattr(w, field)[g] = c
    size = ffi.new("size_t *")
    err = ffi.new("ap_error *")
    assert lib.ap_lstm_s8_prepared_size(p, size, err) == 0
    blob = np.zeros(size[0] // 4 + 1, np.int32)
    assert lib.ap_lstm_s8_prepare(p, w, ffi.from_buffer(blob), size[0], err) == 0
    variant = ffi.new("ap_variant[]", 1)
    count = ffi.new("uint32_t *")
    assert lib.ap_lstm_s8_variants(p, variant, 1, count, err) == 0
    out = np.zeros((ops.batches, ops.time_steps, ops.cell_size), np.int8)
    h = np.full((ops.batches, ops.cell_size), -q.output_state_offset, np.int8)
    c = np.zeros((ops.batches, ops.cell_size), np.int16)
    x_buf = np.zeros((ops.batches, ops.time_steps, ops.input_size), np.int8)
    args = (p, variant, ffi.from_buffer(blob), ffi.cast("int8_t *", ffi.from_buffer(x_buf)),
            ffi.cast("int8_t *", ffi.from_buffer(out)), ffi.cast("int8_t *", ffi.from_buffer(h)),
            ffi.cast("int16_t *", ffi.from_buffer(c)), ffi.NULL, 0, err)
    run = lib.ap_lstm_s8_run

    best = lib.AP_CPU_AVX2
    level = best if limit is None else limit

    def call(x=None, check=False):
        lib.ap_cpu_limit(level)
        if x is not None:
            x_buf[...] = x
            h[...] = -q.output_state_offset
            c[...] = 0
        run(*args)
        lib.ap_cpu_limit(best)
        return out.copy()
    return call, int(lib.ap_cpu_detect())


def litert(ops, x, resolver):
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    from reference.litert_lstm import INPUT, OUTPUT, lstm_model
    import arenaplan as ap
    m = ap.load_tflite(MODEL)
    lstm = m.operators[0]
    t = m.tensors
    q = lambda i: t[i].quantization  # noqa: E731
    content = lstm_model(
        batches=ops.batches, time_steps=ops.time_steps, input_weights=ops.input_weights,
        recurrent_weights=ops.recurrent_weights, biases=ops.biases, input_scale=q(lstm.inputs[0]).scale[0],
        input_zero_point=q(lstm.inputs[0]).zero_point[0],
        weight_scales=[q(lstm.inputs[k]).scale[0] for k in (1, 2, 3, 4, 5, 6, 7, 8)],
        output_state_scale=q(ops.output_state).scale[0], output_state_zero_point=q(ops.output_state).zero_point[0],
        cell_scale_log2=ops.params.cell_scale_log2, hidden_scale=q(lstm.intermediates[4]).scale[0],
        hidden_zero_point=q(lstm.intermediates[4]).zero_point[0], cell_clip=lstm.options["cell_clip"])
    kind = OpResolverType.BUILTIN_REF if resolver == "ref" else OpResolverType.BUILTIN
    interp = Interpreter(model_content=content, experimental_op_resolver_type=kind)
    interp.allocate_tensors()
    interp.set_tensor(INPUT, x)
    invoke = interp.invoke

    def call(check=False):
        if check:
            interp.reset_all_variables()
            invoke()
            return np.array(interp.get_tensor(OUTPUT))
        invoke()
    return call


def sample(fn, target_s: float) -> float:
    """Seconds per call over about target_s of back-to-back calls."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= target_s:
            return dt / n
        n = max(n * 2, int(n * target_s / max(dt, 1e-9)) + 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--target-ms", type=float, default=200.0)
    args = parser.parse_args()
    rounds = 3 if args.quick else args.rounds
    target = (50.0 if args.quick else args.target_ms) / 1000.0

    import arenaplan as ap
    from arenaplan.lstm_params import lstm_operands
    model = ap.load_tflite(MODEL)
    ops = lstm_operands(model, 0)
    x = np.random.default_rng(0).integers(-128, 128, (1, 28, 28), dtype=np.int8)
    c_call, cpu = c_kernel(ops)
    portable = c_kernel(ops, limit=0)[0]
    runners = {"arenaplan C (direct)": c_call, "arenaplan C portable": portable,
               "LiteRT BUILTIN_REF": litert(ops, x, "ref"), "LiteRT BUILTIN": litert(ops, x, "builtin")}
    want = c_call(x)
    for name, fn in runners.items():
        got = portable(x) if fn is portable else want if fn is c_call else fn(check=True)
        if not np.array_equal(got, want):
            raise SystemExit(f"{name} disagrees with the C kernel on the timed input")
    names = list(runners)
    times = {n: [] for n in names}
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for n in order:
            times[n].append(sample(runners[n], target))
    base = times[names[0]]
    macs = ops.batches * ops.time_steps * 4 * ops.cell_size * (ops.input_size + ops.cell_size)
    print(f"mnist_lstm op 0: {ops.time_steps} steps, input {ops.input_size}, cells {ops.cell_size}, "
          f"{macs} MACs; {rounds} rounds, median per call (best cpu level {cpu})")
    print(f"{'runner':<24s} {'us/call':>9s} {'best':>9s} {'x C':>7s}")
    result = {"macs": macs, "rounds": rounds, "runners": {}}
    for n in names:
        med = statistics.median(times[n])
        ratio = statistics.median(t / b for t, b in zip(times[n], base))
        print(f"{n:<24s} {med * 1e6:9.2f} {min(times[n]) * 1e6:9.2f} {ratio:7.2f}")
        result["runners"][n] = {"median_us": med * 1e6, "best_us": min(times[n]) * 1e6, "ratio_to_c": ratio}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
