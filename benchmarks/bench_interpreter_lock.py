"""What the Interpreter's lock costs: ``Interpreter.run`` against the same call into C
without the lock, side by side in one run, and what sharing one Interpreter between
threads does to throughput against one Interpreter per thread.

Per model (the smallest shared models, where a lock's cost would show most): rounds
interleave the two single-thread runners (rotated order); each sample is about
``--target-ms`` of back-to-back runs; the table quotes the median microseconds per run
over the rounds and the lock's cost (their difference, taken round by round; the unlocked
runner keeps a no-op ``with``, so the difference is the lock's acquire and release). Then
``--threads`` threads do ``--runs`` runs each, on one shared Interpreter and on one
Interpreter per thread, every output checked against a single-thread run.

    PYTHONPATH=python python benchmarks/bench_interpreter_lock.py           # about 20 s
    PYTHONPATH=python python benchmarks/bench_interpreter_lock.py --quick
"""
from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from shared_models import MODELS, sample_input, seconds_per_call  # noqa: E402

import arenaplan as ap  # noqa: E402

RESULTS = ROOT / "results" / "bench_interpreter_lock.json"
DEFAULT_MODELS = ["tflm_hello_world_int8", "mlperf_tiny_ad_autoencoder_int8", "mlperf_tiny_kws_dscnn_int8"]


def runners(interp: ap.Interpreter, x: np.ndarray):
    """(locked, unlocked): the public run, and the same run with the lock swapped for a
    no-op context (what the run cost before the lock, plus a no-op's ``with``)."""
    bare = ap.Interpreter(interp.plan)
    bare._lock = contextlib.nullcontext()

    def locked():
        interp.run(x)

    def unlocked():
        bare.run(x)
    return locked, unlocked


def threaded(make, threads: int, runs: int, x: np.ndarray, want: np.ndarray) -> tuple:
    """Runs per second and mismatches, with ``make(i)`` giving thread i's Interpreter."""
    bad = [0] * threads
    interps = [make(i) for i in range(threads)]
    start = threading.Barrier(threads + 1)

    def work(i):
        start.wait()
        for _ in range(runs):
            if not np.array_equal(interps[i].run(x), want):
                bad[i] += 1
    pool = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for t in pool:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in pool:
        t.join()
    return threads * runs / (time.perf_counter() - t0), sum(bad)


def main(argv=None) -> int:
    ap_ = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap_.add_argument("--models", nargs="*", default=DEFAULT_MODELS)
    ap_.add_argument("--rounds", type=int, default=15)
    ap_.add_argument("--target-ms", type=float, default=40.0)
    ap_.add_argument("--threads", type=int, default=4)
    ap_.add_argument("--runs", type=int, default=1000)
    ap_.add_argument("--quick", action="store_true")
    args = ap_.parse_args(argv)
    if args.quick:
        args.rounds, args.target_ms, args.runs = 3, 10.0, 200
    rows = []
    print(f"{'model':<34} {'run us':>9} {'no lock us':>11} {'lock us':>8} "
          f"{'shared /s':>10} {'own /s':>10} {'wrong':>6}")
    for name in args.models:
        model = ap.load_tflite(MODELS / f"{name}.tflite")
        plan = ap.plan(model, mode="speed", latency="model:cortex-m7")
        plan.verify()
        interp = ap.Interpreter(plan)
        x = sample_input(model)
        want = interp.run(x)
        locked, unlocked = runners(interp, x)
        samples = {"locked": [], "unlocked": []}
        for r in range(args.rounds):
            order = [("locked", locked), ("unlocked", unlocked)]
            for key, fn in order[r % 2:] + order[:r % 2]:
                samples[key].append(seconds_per_call(fn, args.target_ms / 1e3) * 1e6)
        cost = statistics.median(a - b for a, b in zip(samples["locked"], samples["unlocked"]))
        shared_rate, shared_bad = threaded(lambda i: interp, args.threads, args.runs, x, want)
        own_rate, own_bad = threaded(lambda i: ap.Interpreter(plan), args.threads, args.runs, x, want)
        row = {"model": name, "run_us": statistics.median(samples["locked"]),
               "unlocked_us": statistics.median(samples["unlocked"]), "lock_us": cost,
               "threads": args.threads, "runs_per_thread": args.runs,
               "shared_runs_per_s": shared_rate, "own_runs_per_s": own_rate,
               "wrong_outputs": shared_bad + own_bad}
        rows.append(row)
        print(f"{name:<34} {row['run_us']:>9.2f} {row['unlocked_us']:>11.2f} {cost:>8.3f} "
              f"{shared_rate:>10,.0f} {own_rate:>10,.0f} {shared_bad + own_bad:>6}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"rows": rows, "args": vars(args)}, indent=2) + "\n")
    print(f"wrote {RESULTS.relative_to(ROOT.parent)}")
    return 1 if any(r["wrong_outputs"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
