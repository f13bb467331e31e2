"""Deadlines and interrupts of the planner: does a plan stop when asked?

For time_limit_s in (0.1, 1, 5) and four problems -- 300,000 buffers with about
3,800 live at every op (first op uniform in 0..2,000, lifetimes 0..50 ops, sizes
16..4,096); 1,000,000 buffers all live at op 0; a real model's activations (the
largest shared model found); a cut rectangle (bench_planner's generator) -- it
runs auto and reports the requested limit, the elapsed and CPU time of the whole
Python call, the overshoot (target: at most 10 % + 50 ms), arena / bound, the
strategy and what auto skipped. Where the plan is the sweep's on the two large
problems, its offsets must be those the sweep has always given there (their sha256
below): a faster sweep is the same placements. Then the Ctrl-C latency: a long plan in a subprocess gets
SIGINT after 1 s, and the time until it has exited with KeyboardInterrupt is
measured (target 0.5 s), for a search phase (auto, 60 s limit) and for a greedy
pass (greedy_size on 40,000 buffers, some 1,500 live: a few seconds' pass).

Every plan is verified by ap_plan_verify (in address order: O(n log n) even for
the million buffers all live at once), and the time it took is reported.

    python benchmarks/bench_deadlines.py [--limits 0.1 1 5] [--no-model] [--problems NAME ...]

Writes benchmarks/results/bench_deadlines.json.
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import platform
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import arenaplan  # noqa: E402
from arenaplan import lifetimes  # noqa: E402
from bench_planner import rectangle_cut  # noqa: E402
from shared_models import MODELS, ROOT  # noqa: E402

ALIGN = 16
# sha256 of the sweep's offsets (as uint64) on the two large problems, recorded at
# 5ea53c4 (free ranges in a treap): every later sweep must place the buffers there.
SWEEP_OFFSETS_SHA256 = {
    "live_3800_300k": "f6504d20bedbeb5d5f28870fbd0120ba142ac6a744412f87160ce1852b640736",
    "all_live_1M": "05dfab75e7fb9a81c1864a6e352a0c4f8e486116b6c1ee31d18156e02fa38585",
}


def live_3800(seed=0):
    rng = np.random.default_rng(seed)
    n = 300_000
    first = rng.integers(0, 2001, n)
    return rng.integers(16, 4097, n), first, first + rng.integers(0, 51, n)


def all_live(seed=0):
    rng = np.random.default_rng(seed)
    n = 1_000_000
    zeros = np.zeros(n, dtype=np.int64)
    return rng.integers(16, 4097, n), zeros, zeros


def model_problem():
    best = None
    for path in sorted(glob.glob(str(MODELS / "*.tflite"))):
        model = arenaplan.load_tflite(path)
        b = lifetimes.activation_buffers(model, alignment=ALIGN)
        if best is None or len(b.sizes) > len(best[1]):
            best = (Path(path).stem, np.asarray(b.sizes), np.asarray(b.first), np.asarray(b.last))
    return best


def check(plan) -> float:
    """Verify ``plan``; the seconds the check took."""
    t = time.monotonic()
    plan.verify()
    return time.monotonic() - t


def run_limits(problems, limits):
    rows = []
    for name, sizes, first, last in problems:
        problem = arenaplan.planning.buffers.BufferProblem.build(sizes, first, last, ALIGN)
        for limit in limits:
            t, cpu = time.monotonic(), time.thread_time()
            plan = arenaplan.planning.buffers.solve(problem, "auto", limit)
            elapsed, cpu = time.monotonic() - t, time.thread_time() - cpu
            if plan.strategy == "sweep" and name in SWEEP_OFFSETS_SHA256:
                digest = hashlib.sha256(np.asarray(plan.offsets, dtype=np.uint64).tobytes()).hexdigest()
                assert digest == SWEEP_OFFSETS_SHA256[name], f"{name}: the sweep placed buffers elsewhere"
            verify_s = check(plan)
            allowed = 1.1 * limit + 0.05
            rows.append({
                "problem": name, "buffers": len(sizes), "time_limit_s": limit,
                "elapsed_s": round(elapsed, 4), "cpu_s": round(cpu, 4),
                "c_elapsed_s": round(plan.elapsed_s, 4),
                "overshoot_s": round(max(0.0, elapsed - limit), 4),
                "within_target": elapsed <= allowed,
                "arena_over_bound": round(plan.arena_bytes / max(1, plan.lower_bound_bytes), 4),
                "strategy": plan.strategy, "skipped": list(plan.skipped), "verify_s": round(verify_s, 4),
            })
            print_row(rows[-1])
    return rows


CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    import arenaplan as ap
    kind = sys.argv[1]
    rng = np.random.default_rng(5)
    if kind == "search":
        n = 1500
        first = rng.integers(0, 300, n)
        args = dict(strategy="auto", time_limit_s=60)
        last = first + rng.integers(0, 30, n)
    else:
        n = 40000
        first = rng.integers(0, 1000, n)
        last = first + rng.integers(0, 75, n)
        args = dict(strategy="greedy_size")
    sizes = rng.integers(16, 4096, n)
    problem = ap.planning.buffers.BufferProblem.build(sizes, first, last)
    print("ready", flush=True)
    try:
        ap.planning.buffers.solve(problem, **args)
    except KeyboardInterrupt:
        print("interrupted", time.monotonic(), flush=True)
        sys.exit(42)
    print("finished", flush=True)
""")


def ctrl_c_latency(kind, delay=1.0):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-c", CHILD, kind], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(delay)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    exited = time.monotonic() - sent
    raised = None
    for line in out.splitlines():
        if line.startswith("interrupted"):
            raised = float(line.split()[1]) - sent
    return {"phase": kind, "signal_after_s": delay, "returncode": proc.returncode,
            "keyboard_interrupt": proc.returncode == 42,
            "raised_after_s": None if raised is None else round(raised, 4),
            "exited_after_s": round(exited, 4), "within_target": raised is not None and raised <= 0.5}


def print_row(r):
    print(f"{r['problem']:<22} {r['buffers']:>9} {r['time_limit_s']:>6} {r['elapsed_s']:>9.3f} {r['cpu_s']:>6.3f} "
          f"{r['overshoot_s']:>9.3f} {'yes' if r['within_target'] else 'NO':>6} "
          f"{r['arena_over_bound']:>8.4f}  {r['strategy']:<10} {','.join(r['skipped']) or '-'}",
          flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limits", type=float, nargs="+", default=[0.1, 1.0, 5.0])
    ap.add_argument("--no-model", action="store_true")
    ap.add_argument("--problems", nargs="+", help="only these problems (and no Ctrl-C runs)")
    args = ap.parse_args()

    problems = [("live_3800_300k",) + live_3800(), ("all_live_1M",) + all_live()]
    if not args.no_model:
        m = model_problem()
        if m is not None:
            problems.append(m)
    problems.append(("rect_cut_400_s1",) + rectangle_cut(400, 1))
    if args.problems:
        problems = [p for p in problems if p[0] in args.problems]

    print(f"{'problem':<22} {'buffers':>9} {'limit':>6} {'elapsed':>9} {'cpu':>6} {'overshoot':>9} "
          f"{'target':>6} {'arena/lb':>8}  {'strategy':<10} skipped")
    rows = run_limits(problems, args.limits)
    if args.problems:
        return
    print()
    print(f"{'Ctrl-C during':<14} {'KeyboardInterrupt':>17} {'raised after':>12} {'exited after':>12}")
    latency = [ctrl_c_latency("search"), ctrl_c_latency("greedy")]
    for r in latency:
        print(f"{r['phase']:<14} {str(r['keyboard_interrupt']):>17} {r['raised_after_s']!s:>12} "
              f"{r['exited_after_s']:>12}")
    out = {"machine": {"python": platform.python_version(), "platform": platform.platform(),
                       "cpus": os.cpu_count()},
           "target": "elapsed <= 1.1 * limit + 0.05 s; Ctrl-C raised within 0.5 s",
           "limits": rows, "ctrl_c": latency}
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "bench_deadlines.json").write_text(json.dumps(out, indent=2) + "\n")
    print(f"\nwrote {HERE / 'results' / 'bench_deadlines.json'}")


if __name__ == "__main__":
    main()
