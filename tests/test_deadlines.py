"""plan_buffers on long plans: Ctrl-C, progress, the memory limit and the sweep plan.

Mechanism with generous bounds; the precise figures are benchmarks/bench_deadlines.py's.
Every plan made here is verified.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import arenaplan as ap
from arenaplan.planning.buffers import ProgressBar, progress_hook


# a plan that searches for its whole time limit (60 s) unless interrupted
LONG_PLAN = textwrap.dedent("""
    import sys, time
    import numpy as np
    import arenaplan as ap
    rng = np.random.default_rng(5)
    n = 1500
    first = rng.integers(0, 300, n)
    last = first + rng.integers(0, 30, n)
    sizes = rng.integers(16, 4096, n)
    print("ready", flush=True)
    try:
        ap.plan_buffers(sizes, first, last, strategy=sys.argv[1], time_limit_s=60,
                        progress=False)
    except KeyboardInterrupt:
        print("KeyboardInterrupt", flush=True)
        sys.exit(42)
    print("finished", flush=True)
""")


@pytest.mark.parametrize("strategy", ["auto", "lns"])
def test_ctrl_c_stops_a_long_plan_with_keyboard_interrupt(strategy):
    # the child imports the very arenaplan this test imported (an installed copy, or the
    # source tree with an in-place build): python/ alone has no extension in a fresh checkout
    env = dict(os.environ, PYTHONPATH=str(Path(ap.__file__).resolve().parents[1]) + os.pathsep +
               os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-c", LONG_PLAN, strategy], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(1.0)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        latency = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 42, (out, err)
    assert "KeyboardInterrupt" in out
    assert latency < 2.0, latency  # the target is 0.5 s; see bench_deadlines


def problem(n=4000, ops=100, life=20, seed=0):
    rng = np.random.default_rng(seed)
    first = rng.integers(0, ops, n)
    return rng.integers(16, 4096, n), first, first + rng.integers(0, life + 1, n)


def test_progress_callable_sees_fractions_and_can_cancel():
    sizes, first, last = problem(n=800)
    seen = []
    plan = ap.plan_buffers(sizes, first, last, strategy="lns", step_limit=10**9,
                           time_limit_s=0.3, progress=seen.append)
    plan.verify()
    assert seen and all(0.0 <= f <= 1.0 for f in seen)
    assert seen == sorted(seen)

    class Stop(Exception):
        pass

    def stop(fraction):
        raise Stop

    with pytest.raises(Stop):
        ap.plan_buffers(sizes, first, last, strategy="lns", time_limit_s=30, progress=stop)


def test_progress_bar_appears_only_after_its_delay(capsys):
    bar = ProgressBar(delay_s=3600)
    bar(0.5)
    assert bar.bar is None
    bar = ProgressBar(delay_s=0)
    bar(0.25)
    bar(0.75)
    assert bar.bar is not None and bar.bar.n == 750
    bar.close()
    assert progress_hook(False) is None
    assert isinstance(progress_hook(True), ProgressBar)
    with pytest.raises(ap.InvalidArgument):
        progress_hook("yes")


def test_greedy_over_the_memory_limit_raises_with_needed_bytes():
    n = 2000
    zeros = np.zeros(n, dtype=np.int64)
    with pytest.raises(ap.PlanDoesNotFit) as info:
        ap.plan_buffers(np.full(n, 64), zeros, zeros, strategy="greedy_size",
                        memory_limit="64KiB")
    assert info.value.needed >= 8 * n * (n - 1) // 2
    assert info.value.available == 64 * 1024 and info.value.pool == "host"
    assert isinstance(info.value, ap.ArenaplanError)


def test_auto_on_a_problem_too_large_for_the_graph_returns_the_sweep_plan():
    sizes, first, last = problem()
    plan = ap.plan_buffers(sizes, first, last, time_limit_s=2, memory_limit="256KiB")
    plan.verify()
    assert plan.strategy == "sweep"
    assert "greedy_size" in plan.skipped
    assert plan.arena_bytes >= plan.lower_bound_bytes
    full = ap.plan_buffers(sizes, first, last, strategy="greedy_size")
    full.verify()
    assert full.skipped == ()


def test_sweep_strategy_by_name():
    sizes, first, last = problem(n=500)
    plan = ap.plan_buffers(sizes, first, last, strategy="sweep")
    plan.verify()
    assert plan.strategy == "sweep" and plan.skipped == ()
