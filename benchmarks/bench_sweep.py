"""Sweep throughput: combinations planned per second serially and on worker processes,
side by side in one run, every run's records checked equal to the serial ones.

The sweep: every MLPerf Tiny model x (no target, cortex-m4, cortex-m7) x four budgets x
(size, balanced) with the cortex-m4 cost model, as tests/test_sweep.py makes it.

    PYTHONPATH=python python benchmarks/bench_sweep.py              # about a minute
    PYTHONPATH=python python benchmarks/bench_sweep.py --rounds 1
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from shared_models import MODELS  # noqa: E402

import arenaplan as ap  # noqa: E402

RESULTS = ROOT / "results" / "bench_sweep.json"
MLPERF = ["mlperf_tiny_ad_autoencoder_int8", "mlperf_tiny_ic_resnet8_int8", "mlperf_tiny_kws_dscnn_int8",
          "mlperf_tiny_sww_dscnn_int8", "mlperf_tiny_vww_mobilenetv1_025_int8"]
TARGETS = [None, "cortex-m4", "cortex-m7"]
BUDGETS = [None, "16KiB", "64KiB", "128KiB"]


def run(executor=None):
    t0 = time.perf_counter()
    records = ap.sweep([str(MODELS / f"{m}.tflite") for m in MLPERF], targets=TARGETS, budgets=BUDGETS,
                       modes=["size", "balanced"], latency="model:cortex-m4", executor=executor)
    return records, time.perf_counter() - t0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, nargs="*", default=[2])
    args = parser.parse_args(argv)
    reference, _ = run()
    times = {"serial": []}
    times.update({f"{w} workers": [] for w in args.workers})
    pools = {f"{w} workers": concurrent.futures.ProcessPoolExecutor(w) for w in args.workers}
    try:
        for pool in pools.values():          # start the workers before timing them
            run(pool)
        for _ in range(args.rounds):
            for name in times:
                records, seconds = run(pools.get(name))
                assert records == reference, f"{name}: records differ from the serial sweep"
                times[name].append(seconds)
    finally:
        for pool in pools.values():
            pool.shutdown()
    n = len(reference)
    rows = []
    print(f"{'runner':<12}{'combinations':>14}{'median s':>10}{'per second':>12}{'vs serial':>11}")
    base = statistics.median(times["serial"])
    for name, ts in times.items():
        med = statistics.median(ts)
        rows.append({"runner": name, "combinations": n, "median_s": med, "per_second": n / med,
                     "speedup": base / med})
        print(f"{name:<12}{n:>14}{med:>10.2f}{n / med:>12.1f}{base / med:>10.2f}x")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"rows": rows, "rounds": args.rounds,
                                   "fitted": sum(r.error is None for r in reference)}, indent=2) + "\n")
    print(f"wrote {RESULTS.relative_to(ROOT.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
