"""Recurrent-ops benchmark: the LSTM and SVDF kernels against LiteRT's, side by side in one run.

LSTM: the C kernel (ap_lstm_s8_run) on the shared mnist_lstm model's LSTM op against
LiteRT on the same op, one-op model, reference (BUILTIN_REF) and default (optimised) kernels.

The C kernel runs through the cffi build of the C core (harness/cbuild.py, compiled -O3 here),
on the best dispatch level (AVX2 activations) and, in the same rounds, on the portable one.
LiteRT runs a one-op model with the same weights and quantisation (harness/reference/litert_lstm.py);
only invoke() is timed. Before timing, all of them must give the same output bytes on the timed
input. Rounds interleave the runners (rotated order); each sample is about --target-ms of
back-to-back calls; the table quotes the median per call across rounds and each one's ratio to
the C kernel, computed round by round. The C figures include the cffi calls (about a microsecond).

SVDF: one-SVDF models (harness/svdf_models.one_svdf, random weights) of the keyword model's
four SVDF shapes (tflm_keyword_scrambled_int8: input 96 / 16 -> 64 filters, memory 8; input
16 / 32 -> 32 filters, memory 32; all rank 1) and a larger one. Each variant ("fused", no
scratch; "direct", TFLite's int32 scratch) on the AVX2 and the portable path is timed in C,
in a one-op plan (Interpreter.profile: the op's median over --svdf-repeats runs, net of the
clock's cost), rounds interleaved; the ratios are taken round by round. LiteRT can only be
timed per Python call (invoke()), so the fused AVX2 plan is timed the same way too (the
graph's invoke, no input or output copies) for the "LiteRT / arenaplan" columns. Before
timing, every runner's outputs and state must equal LiteRT's reference kernels' over 3 steps.

Cortex-M: the whole mnist_lstm model's plans for the arm-dsp and the portable ISA, under both
rounding rules, exported and counted under qemu-system-arm -icount shift=0 on the Cortex-M4,
M7 and M33 (benchmarks/cortex_m.py): instructions an inference, and the Cortex-M4 cost model's
prediction beside them.

    PYTHONPATH=python python benchmarks/bench_lstm.py            # about a minute
    PYTHONPATH=python python benchmarks/bench_lstm.py --quick    # a few seconds
    PYTHONPATH=python python benchmarks/bench_lstm.py --ops svdf # one of the three: lstm, svdf, cortex-m
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # harness: the helpers the tests share (references, builds, QEMU)
sys.path.insert(0, str(ROOT / "benchmarks"))
from shared_models import seconds_per_call  # noqa: E402
RESULTS = ROOT / "benchmarks" / "results" / "bench_lstm.json"
MODEL = ROOT.parent / "shared" / "models" / "tflm_mnist_lstm_int8.tflite"


def c_kernel(ops, limit=None):
    """A call running the C kernel (on dispatch levels up to `limit`, default: the best)."""
    os.environ.setdefault("AP_OPT", "-O3")
    from harness import cbuild
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
    # the instruction set is a parameter of the kernel: AVX2 unless limited to portable
    isa = lib.AP_ISA_X86_AVX2 if limit is None or limit >= lib.AP_CPU_AVX2 else lib.AP_ISA_PORTABLE
    assert lib.ap_lstm_s8_prepare(p, isa, w, ffi.from_buffer(blob), size[0], err) == 0
    variant = ffi.new("ap_variant[]", 1)
    count = ffi.new("uint32_t *")
    assert lib.ap_lstm_s8_variants(p, isa, variant, 1, count, err) == 0
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
    from harness.reference.litert_lstm import INPUT, OUTPUT, lstm_model
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


def bench_lstm(rounds: int, target: float) -> dict:
    import arenaplan as ap
    from arenaplan.ops.lstm_params import lstm_operands
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
            times[n].append(seconds_per_call(runners[n], target))
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
    return result


#: (name, batches, input_size, filters, memory, rank): the keyword model's SVDF shapes, one larger.
SVDF_SHAPES = [
    ("kws op 1: 96->64 m8", 1, 96, 64, 8, 1),
    ("kws ops 3,5,7: 16->64 m8", 1, 16, 64, 8, 1),
    ("kws op 9: 16->32 m32", 1, 16, 32, 32, 1),
    ("kws ops 10,11: 32->32 m32", 1, 32, 32, 32, 1),
    ("larger: 2x200->256 m20 r2", 2, 200, 256, 20, 2),
]
SVDF_RUNNERS = [("fused", 1), ("fused", 0), ("direct", 1), ("direct", 0)]


def svdf_case(shape):
    from harness.reference.svdf import random_case
    _, b, n, f, m, r = shape
    return random_case(np.random.default_rng(n * 1000 + f + m), b, n, f, m, r)


def check_svdf(c, its, litert_call) -> None:
    """Every runner's outputs and state equal LiteRT's reference kernels over 3 steps."""
    from harness.reference import litert_layers as L
    from harness.reference.litert_svdf import STATE, svdf_model
    rng = np.random.default_rng(1)
    xs = [rng.integers(-128, 128, (c["batches"], c["input_size"]), dtype=np.int8) for _ in range(3)]
    outs, seen = L.run_sequence(svdf_model(c), [[x] for x in xs], (STATE,))
    for (variant, level), it in its.items():
        it.reset_state()
        for k, x in enumerate(xs):
            if not np.array_equal(it.run(x), outs[k][0]) or \
                    not np.array_equal(it.state_tensor(it.plan.model.variable_tensors()[0]), seen[STATE][k]):
                raise SystemExit(f"SVDF {variant} ({it.plan.isa}) disagrees with LiteRT at step {k}")
        it.reset_state()
    for name, call in litert_call.items():
        if not np.array_equal(call(xs[0]), outs[0][0]):
            raise SystemExit(f"{name} disagrees with LiteRT's reference kernels")


def litert_svdf(c, resolver):
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    from harness.reference.litert_svdf import svdf_model
    kind = OpResolverType.BUILTIN_REF if resolver == "ref" else OpResolverType.BUILTIN
    interp = Interpreter(model_content=svdf_model(c), experimental_op_resolver_type=kind)
    interp.allocate_tensors()
    inp, out = interp.get_input_details()[0]["index"], interp.get_output_details()[0]["index"]

    def check(x):
        interp.reset_all_variables()
        interp.set_tensor(inp, x)
        interp.invoke()
        return np.array(interp.get_tensor(out))
    return interp.invoke, check


def bench_svdf(rounds: int, target: float, repeats: int) -> dict:
    import arenaplan as ap
    from harness import svdf_models
    from arenaplan.ops.lowering import HOST_ISA
    avx2 = HOST_ISA == "x86-avx2"
    runners = [r for r in SVDF_RUNNERS if avx2 or r[1] == 0]
    label = {("fused", 1): "fused AVX2", ("fused", 0): "fused C", ("direct", 1): "direct AVX2",
             ("direct", 0): "direct C"}
    print(f"\nSVDF: kernel time in a one-op plan (median of {repeats} runs, net of the clock), "
          f"medians of {rounds} rounds; per Python call: LiteRT invoke() vs the fused AVX2 plan's invoke")
    head = "".join(f"{label[r]:>13s}" for r in runners)
    print(f"{'shape':<28s}{'MACs':>7s}{head}{'direct/fused':>13s}{'C/AVX2':>8s}"
          f"{'call: ap':>10s}{'LiteRT ref':>11s}{'LiteRT':>9s}{'ref/ap':>8s}{'LiteRT/ap':>10s}")
    rows = []
    for shape in SVDF_SHAPES:
        c = svdf_case(shape)
        m = svdf_models.one_svdf(c)
        # each runner's plan names its instruction set: AVX2 (level 1) or portable C (level 0)
        its = {r: ap.Interpreter(svdf_models.plan_with(m, r[0], "x86-avx2" if r[1] else "portable"))
               for r in runners}
        lite = {"LiteRT BUILTIN_REF": litert_svdf(c, "ref"), "LiteRT BUILTIN": litert_svdf(c, "builtin")}
        check_svdf(c, its, {k: v[1] for k, v in lite.items()})
        x = np.random.default_rng(2).integers(-128, 128, (c["batches"], c["input_size"]), dtype=np.int8)
        for it in its.values():
            it._write_inputs(x)
        best = its[runners[0]]
        calls = {"arenaplan": lambda: best._graph.invoke(best._pools)}
        calls.update({k: v[0] for k, v in lite.items()})
        kernel = {r: [] for r in runners}
        per_call = {k: [] for k in calls}
        names = list(kernel) + list(calls)
        for rnd in range(rounds):
            for n in names[rnd % len(names):] + names[:rnd % len(names)]:
                if n in kernel:
                    kernel[n].append(its[n].profile(repeats=repeats)[0].median_s)
                else:
                    per_call[n].append(seconds_per_call(calls[n], target))
        med = {r: statistics.median(v) for r, v in kernel.items()}
        ratio = lambda a, b: statistics.median(x / y for x, y in zip(a, b))  # noqa: E731
        direct_fused = ratio(kernel[("direct", 1 if avx2 else 0)], kernel[("fused", 1 if avx2 else 0)])
        c_avx2 = ratio(kernel[("fused", 0)], kernel[("fused", 1)]) if avx2 else float("nan")
        call_med = {k: statistics.median(v) for k, v in per_call.items()}
        ref_ap = ratio(per_call["LiteRT BUILTIN_REF"], per_call["arenaplan"])
        lite_ap = ratio(per_call["LiteRT BUILTIN"], per_call["arenaplan"])
        _, b, n, f, mem, r = shape
        macs = b * f * (n + mem)
        print(f"{shape[0]:<28s}{macs:>7d}" + "".join(f"{med[r] * 1e9:>10.0f} ns" for r in runners)
              + f"{direct_fused:>13.2f}{c_avx2:>8.2f}{call_med['arenaplan'] * 1e6:>7.2f} us"
              + f"{call_med['LiteRT BUILTIN_REF'] * 1e6:>8.2f} us{call_med['LiteRT BUILTIN'] * 1e6:>6.2f} us"
              + f"{ref_ap:>8.2f}{lite_ap:>10.2f}")
        rows.append({"shape": shape[0], "batches": b, "input_size": n, "filters": f, "memory": mem, "rank": r,
                     "macs": macs,
                     "kernel_median_ns": {label[k]: v * 1e9 for k, v in med.items()},
                     "scratch_bytes": dict(ap.kernels.variants("svdf", (b, n), (f, mem), rank=r)),
                     "direct_over_fused": direct_fused, "portable_over_avx2_fused": c_avx2,
                     "per_call_median_us": {k: v * 1e6 for k, v in call_med.items()},
                     "litert_ref_over_arenaplan": ref_ap, "litert_builtin_over_arenaplan": lite_ap})
    return {"rounds": rounds, "repeats": repeats, "avx2": avx2, "shapes": rows}


def bench_cortex_m() -> dict:
    """Instructions an inference of the mnist_lstm model on each Cortex-M core, per ISA and rule."""
    import tempfile

    import arenaplan as ap
    from arenaplan.latency.sources import PROFILES
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import cortex_m
    from harness.models import MODELS_DIR
    missing = cortex_m.fw.missing_arm_tools()
    if missing:
        print(f"Cortex-M: needs {', '.join(missing)}")
        return {}
    cpus = ["cortex-m4", "cortex-m7", "cortex-m33"]
    model = ap.load_tflite(str(Path(MODELS_DIR) / "tflm_mnist_lstm_int8.tflite"))
    cases = [(isa, ref) for isa in ("arm-dsp", "portable") for ref in ("tflm", "litert")]
    plans = [ap.plan(model, isa=isa, reference=ref) for isa, ref in cases]
    for p in plans:
        p.verify()
    with tempfile.TemporaryDirectory(prefix="arenaplan-bench-lstm-") as tmp:
        counts = cortex_m.count(plans, cpus, cortex_m.runtimes(cpus, Path(tmp)), Path(tmp))
    rows = [{"isa": isa, "reference": ref, "instructions": n,
             "predicted_cortex_m4": PROFILES["cortex-m4"].plan_instructions(p)}
            for (isa, ref), p, n in zip(cases, plans, counts)]
    print("\nmnist_lstm on Cortex-M, instructions an inference (QEMU -icount shift=0)")
    print("| ISA | reference | " + " | ".join(cpus) + " | M4 predicted |")
    print("|---|---|" + "---:|" * (len(cpus) + 1))
    for r in rows:
        print(f"| {r['isa']} | {r['reference']} | " + " | ".join(f"{r['instructions'][c]:,}" for c in cpus)
              + f" | {r['predicted_cortex_m4']:,.0f} |")
    return {"cortex_m": {"model": "tflm_mnist_lstm_int8", "rows": rows}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--target-ms", type=float, default=200.0)
    parser.add_argument("--svdf-repeats", type=int, default=2000)
    parser.add_argument("--ops", default="lstm,svdf,cortex-m", help="comma-separated: lstm, svdf, cortex-m")
    args = parser.parse_args()
    rounds = 3 if args.quick else args.rounds
    target = (50.0 if args.quick else args.target_ms) / 1000.0
    ops = {o.strip() for o in args.ops.split(",") if o.strip()}
    if not ops <= {"lstm", "svdf", "cortex-m"}:
        raise SystemExit(f"--ops takes lstm, svdf and / or cortex-m, got {args.ops!r}")
    result = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    if "lstm" in ops:
        result.update(bench_lstm(rounds, target))
    if "svdf" in ops:
        result["svdf"] = bench_svdf(rounds, target / 4, 300 if args.quick else args.svdf_repeats)
    if "cortex-m" in ops:
        result.update(bench_cortex_m())
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
