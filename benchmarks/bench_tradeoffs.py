"""The memory-latency frontier of every runnable shared model, with the host latency source.

Per model: the number of Pareto points, the size and speed ends (arena bytes and
predicted latency), the speed-up between them, the time to compute the frontier with
a warm cache, and the check of the prediction: each frontier plan (size end, a middle
point, speed end) is run by the Interpreter and timed (median over interleaved rounds);
measured with Interpreter.profile (per-op medians timed in C, summed; the plans
interleaved round by round): the measured ordering must match the predicted one and the
error of the host source is reported.

The host source's cache starts empty in each run (a temporary directory), so the
predictions are measured in the same run as the plans they are compared with.

Targets (issue 4): frontier of any shared model in under 1 s with a warm cache;
predicted vs measured host latency within 15 % for each plan.

    python benchmarks/bench_tradeoffs.py            # full run
    python benchmarks/bench_tradeoffs.py --quick    # fewer rounds
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import arenaplan as ap

ROOT = Path(__file__).resolve().parents[1]
MODELS = Path(os.environ.get("ARENAPLAN_MODELS", ROOT.parent / "shared" / "models"))
RESULTS = ROOT / "benchmarks" / "results" / "bench_tradeoffs.json"
RUNNABLE = [
    "mlperf_tiny_ad_autoencoder_int8", "mlperf_tiny_ic_resnet8_int8", "mlperf_tiny_kws_dscnn_int8",
    "mlperf_tiny_sww_dscnn_int8", "mlperf_tiny_vww_mobilenetv1_025_int8", "tflm_person_detect_int8",
    "tflm_micro_speech_int8", "tflm_hello_world_int8", "tflm_keyword_scrambled_int8",
    "tflm_mnist_lstm_int8",
]


def sample_input(model, seed: int = 0) -> np.ndarray:
    """A random input of the model's first input tensor, over its integer type's range."""
    t = model.tensors[model.inputs[0]]
    info = np.iinfo(np.dtype(t.dtype))
    return np.random.default_rng(seed).integers(info.min, info.max, size=t.shape, dtype=np.dtype(t.dtype),
                                                endpoint=True)


def measured_latency(plans, x, rounds: int, repeats: int) -> list:
    """Per plan, the sum over ops of Interpreter.profile's per-op medians (timed in C,
    as the host source times each variant), the plans interleaved round by round; the
    median over rounds."""
    interpreters = [ap.Interpreter(p) for p in plans]
    samples = [[] for _ in plans]
    for _ in range(rounds):
        for i, it in enumerate(interpreters):
            samples[i].append(sum(r.seconds for r in it.profile(repeats=repeats, x=x)))
    return [statistics.median(s) for s in samples]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    # Predictions measured in this run, minutes before the plans are timed: on a shared
    # machine whose speed drifts, figures cached hours ago would measure the drift.
    import tempfile
    os.environ["ARENAPLAN_CACHE_DIR"] = tempfile.mkdtemp(prefix="arenaplan-bench-")
    rounds, repeats = (3, 10) if args.quick else (9, 30)
    rows = []
    print(f"{'model':<38}{'points':>7}{'size B':>9}{'size ms':>9}{'speed B':>9}{'speed ms':>9}"
          f"{'speedup':>8}{'warm s':>8}  predicted/measured per plan")
    for name in RUNNABLE:
        path = MODELS / f"{name}.tflite"
        if not path.exists():
            continue
        m = ap.load_tflite(path)
        ap.frontier(m, latency="host")                      # fills the cache
        t0 = time.perf_counter()
        f = ap.frontier(m, latency="host")
        warm = time.perf_counter() - t0
        picks = [f.points[0]] + ([f.points[len(f.points) // 2]] if len(f.points) > 2 else []) + \
            ([f.points[-1]] if len(f.points) > 1 else [])
        x = sample_input(m)
        measured = measured_latency([p.plan for p in picks], x, rounds, repeats)
        predicted = [p.latency_s for p in picks]
        errors = [(pr - me) / me for pr, me in zip(predicted, measured)]
        # Ordering is judged on pairs the source tells apart by more than the noise of
        # this shared machine (5 %); closer pairs are ties.
        order_ok = all((predicted[i] < predicted[j]) == (measured[i] < measured[j])
                       for i in range(len(picks)) for j in range(i + 1, len(picks))
                       if abs(predicted[i] - predicted[j]) > 0.05 * max(predicted[i], predicted[j]))
        size, speed = f.points[0], f.points[-1]
        row = {"model": name, "points": len(f.points), "size_bytes": size.arena_bytes,
               "size_latency_s": size.latency_s, "speed_bytes": speed.arena_bytes,
               "speed_latency_s": speed.latency_s, "speedup": size.latency_s / speed.latency_s,
               "warm_frontier_s": warm, "checked_bytes": [p.arena_bytes for p in picks],
               "predicted_s": predicted, "measured_s": measured, "relative_errors": errors,
               "order_matches": order_ok}
        rows.append(row)
        detail = " ".join(f"{pr * 1e3:.3f}/{me * 1e3:.3f}ms({e:+.0%})"
                          for pr, me, e in zip(predicted, measured, errors))
        print(f"{name:<38}{len(f.points):>7}{size.arena_bytes:>9,}{size.latency_s * 1e3:>9.3f}"
              f"{speed.arena_bytes:>9,}{speed.latency_s * 1e3:>9.3f}{row['speedup']:>7.2f}x"
              f"{warm:>8.3f}  {detail}{'' if order_ok else '  ORDER DIFFERS'}")
    checks = {
        "frontier < 1 s with a warm cache on every model": all(r["warm_frontier_s"] < 1.0 for r in rows),
        "predicted within 15 % of measured for every checked plan":
            all(abs(e) <= 0.15 for r in rows for e in r["relative_errors"]),
        "measured ordering matches the predicted one (pairs > 5 % apart)":
            all(r["order_matches"] for r in rows),
    }
    for what, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {what}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({
        "machine": {"platform": platform.platform(), "python": sys.version.split()[0],
                    "cpus": os.cpu_count()},
        "rounds": rounds, "rows": rows, "checks": {k: bool(v) for k, v in checks.items()}}, indent=2))
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
