"""The memory-latency frontier of every runnable shared model, with the host latency source.

Per model: the number of Pareto points, the size and speed ends (arena bytes and
predicted latency), the speed-up between them, the time to compute the frontier with
a warm cache, and the check of the prediction on three frontier plans (size end, a
middle point, speed end):

* measured: Interpreter.profile of each plan: the sum of its ops' times, each op timed
  where it runs in the plan (in C, net of the timer's cost; their fastest runs, the 1st
  percentile of the repeats: the statistic the host source predicts them with, see
  arenaplan.runtime.profiling); and its whole runs timed in one piece, which checks that the op
  times add up;
* predicted, same window (the checked figure): HostLatency.check profiles the source's
  rank plans and the three plans together, repeat by repeat, so the prediction and the
  measurement see the same load of this shared machine;
* predicted, cached: the frontier's own latency, from the cache filled seconds earlier
  in this run, under whatever load there was then (each window's speed-probe reading
  is printed: 1.00x is this machine's normal speed);
* ordering: the measured ordering must match the frontier's predicted one.

Beside them: the median whole run (the typical run under the load of the moment, not
what the source predicts) and what one Interpreter.run from Python adds to the graph.
The host source's cache starts empty in each run (a temporary directory).

Targets (issue 4): frontier of any shared model in under 1 s with a warm cache;
predicted vs measured host latency within 15 % for each plan.

    python benchmarks/bench_tradeoffs.py            # full run
    python benchmarks/bench_tradeoffs.py --quick    # shorter windows
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

import numpy as np

import arenaplan as ap
from shared_models import MODELS, ROOT, RUNNABLE

RESULTS = ROOT / "benchmarks" / "results" / "bench_tradeoffs.json"


def call_overhead(plan, x, rounds: int = 20, calls: int = 20) -> float:
    """What one Interpreter.run from Python adds to the graph's own time: the fastest
    run() timed from Python minus the fastest whole run timed in C, taken in alternation."""
    it = ap.Interpreter(plan)
    it.run(x)
    in_python, in_c = float("inf"), float("inf")
    for _ in range(rounds):
        for _ in range(calls):
            t0 = time.perf_counter()
            it.run(x)
            in_python = min(in_python, time.perf_counter() - t0)
        in_c = min(in_c, it.profile(repeats=calls).total_s)
    return in_python - in_c


def pairs_in_order(predicted, measured) -> bool:
    """Whether measured orders every pair as predicted, for pairs the prediction tells
    apart by more than the noise of this shared machine (5 %); closer pairs are ties."""
    n = len(predicted)
    return all((predicted[i] < predicted[j]) == (measured[i] < measured[j])
               for i in range(n) for j in range(i + 1, n)
               if abs(predicted[i] - predicted[j]) > 0.05 * max(predicted[i], predicted[j]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    # Predictions measured in this run: on a shared machine whose speed drifts, figures
    # cached hours ago would measure the drift.
    import tempfile
    os.environ["ARENAPLAN_CACHE_DIR"] = tempfile.mkdtemp(prefix="arenaplan-bench-")
    window_s = 0.3 if args.quick else 1.0
    rows = []
    print(f"{'model':<38}{'points':>7}{'size B':>9}{'size ms':>9}{'speed B':>9}{'speed ms':>9}"
          f"{'speedup':>8}{'warm s':>8}")
    for name in RUNNABLE:
        path = MODELS / f"{name}.tflite"
        if not path.exists():
            continue
        m = ap.load_tflite(path)
        source = ap.HostLatency()
        ap.frontier(m, latency=source)                      # fills the cache
        cached_window = dict(source.last_window)
        t0 = time.perf_counter()
        f = ap.frontier(m, latency="host")                  # a new source: the disk cache
        warm = time.perf_counter() - t0
        picks = [f.points[0]] + ([f.points[len(f.points) // 2]] if len(f.points) > 2 else []) + \
            ([f.points[-1]] if len(f.points) > 1 else [])
        checks = source.check([p.plan for p in picks], window_s=window_s)
        measured = [c.measured_s for c in checks]
        whole = [c.measured_whole_s for c in checks]
        predicted = [c.predicted_s for c in checks]
        cached = [p.latency_s for p in picks]
        errors = [c.error for c in checks]
        whole_errors = [c.whole_error for c in checks]
        cached_errors = [(pr - me) / me for pr, me in zip(cached, measured)]
        typical = [c.profile.total_median_s for c in checks]
        order_ok = pairs_in_order(cached, measured)
        size, speed = f.points[0], f.points[-1]
        row = {"model": name, "points": len(f.points), "size_bytes": size.arena_bytes,
               "size_latency_s": size.latency_s, "speed_bytes": speed.arena_bytes,
               "speed_latency_s": speed.latency_s, "speedup": size.latency_s / speed.latency_s,
               "warm_frontier_s": warm, "checked_bytes": [p.arena_bytes for p in picks],
               "predicted_s": predicted, "measured_s": measured, "relative_errors": errors,
               "measured_whole_s": whole, "whole_relative_errors": whole_errors,
               "cached_predicted_s": cached, "cached_relative_errors": cached_errors,
               "measured_median_s": typical, "timer_s": checks[0].profile.timer_s,
               "run_call_overhead_s": call_overhead(picks[0].plan, np.zeros(
                   m.tensors[m.inputs[0]].shape, dtype=m.tensors[m.inputs[0]].dtype)),
               "cache_window": cached_window, "check_window": dict(source.last_window),
               "order_matches": order_ok}
        rows.append(row)
        print(f"{name:<38}{len(f.points):>7}{size.arena_bytes:>9,}{size.latency_s * 1e3:>9.3f}"
              f"{speed.arena_bytes:>9,}{speed.latency_s * 1e3:>9.3f}{row['speedup']:>7.2f}x"
              f"{warm:>8.3f}{'' if order_ok else '  ORDER DIFFERS'}")
        for what, values, against, errs in (("same window", predicted, measured, errors),
                                             ("same window, whole runs", predicted, whole, whole_errors),
                                             ("cached", cached, measured, cached_errors)):
            print(f"    predicted ({what}) / measured: " + "  ".join(
                f"{pr * 1e3:.4f}/{me * 1e3:.4f} ms ({e:+.0%})" for pr, me, e in zip(values, against, errs)))
        print(f"    median run {' '.join(f'{t * 1e3:.4f}' for t in typical)} ms; "
              f"one run() from Python adds {row['run_call_overhead_s'] * 1e6:.2f} us; windows: cache "
              f"{cached_window['seconds']:.1f} s (probe {cached_window['probe_vs_record']:.2f}x), check "
              f"{row['check_window']['seconds']:.1f} s (probe {row['check_window']['probe_vs_record']:.2f}x)")
    checks = {
        "frontier < 1 s with a warm cache on every model": all(r["warm_frontier_s"] < 1.0 for r in rows),
        "predicted (same window) within 15 % of measured for every checked plan":
            all(abs(e) <= 0.15 for r in rows for e in r["relative_errors"]),
        "measured ordering matches the predicted one (pairs > 5 % apart)":
            all(r["order_matches"] for r in rows),
        "predicted (same window) within 15 % of the measured whole runs":
            all(abs(e) <= 0.15 for r in rows for e in r["whole_relative_errors"]),
        "cached prediction within 15 % of measured (drift between windows included)":
            all(abs(e) <= 0.15 for r in rows for e in r["cached_relative_errors"]),
    }
    for what, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {what}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({
        "machine": {"platform": platform.platform(), "python": sys.version.split()[0],
                    "cpus": os.cpu_count()},
        "window_s": window_s, "rows": rows, "checks": {k: bool(v) for k, v in checks.items()}}, indent=2))
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
