"""Plans over the preset targets' pools, and what a Cortex-M4 build of them weighs.

For each MLPerf Tiny model and each preset target: the frontier over the target's pools
(latency from the target's cost model), its number of points, and the bytes in each pool
at the size and speed ends. Then, where arm-none-eabi-gcc and qemu-system-arm are installed, each model's size
and balanced plans (the fastest that fits) for the cortex-m4 target are exported to C, built for a Cortex-M4 and run
under QEMU: .text / .data / .bss of the export and runtime, the worst stack of the invoke
call chain (static bound and painted-stack measurement), the instruction count of one
inference, and whether the outputs equal the Interpreter's. Prints tables, writes
benchmarks/results/bench_targets.json.

    python benchmarks/bench_targets.py
"""
from __future__ import annotations

import json
import platform
import sys
import tempfile
import time
from pathlib import Path

import arenaplan as ap

sys.path.insert(0, str(Path(__file__).resolve().parent))
from shared_models import MLPERF_TINY as MLPERF, MODELS, ROOT  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "bench_targets.json"
TARGETS = ["cortex-m4", "cortex-m7", "cortex-m55", "dual-m7-m4/cm4", "dual-m7-m4/cm7"]


def target_of(name: str) -> ap.Target:
    if "/" in name:
        base, core = name.split("/")
        return ap.targets.get(base).for_core(core)
    return ap.targets.get(name)


def pools_text(pool_bytes: dict) -> str:
    return " ".join(f"{k}={v:,}" for k, v in pool_bytes.items() if v)


def frontier_rows() -> list:
    rows = []
    print(f"{'model':<38}{'target':<16}{'points':>7}  {'size end (bytes per pool)':<34}{'speed end (bytes per pool)':<34}{'speed-up':>9}{'s':>7}")
    for name in MLPERF:
        path = MODELS / f"{name}.tflite"
        if not path.exists():
            continue
        m = ap.load_tflite(path)
        for tname in TARGETS:
            t = target_of(tname)
            t0 = time.perf_counter()
            try:
                f = ap.frontier(m, target=t, latency=f"model:{t.latency_profile}")
            except ap.PlanDoesNotFit as exc:
                print(f"{name:<38}{tname:<16}  does not fit: {exc}")
                rows.append({"model": name, "target": tname, "fits": False, "error": str(exc)})
                continue
            elapsed = time.perf_counter() - t0
            size, speed = f.points[0], f.points[-1]
            row = {"model": name, "target": tname, "fits": True, "points": len(f.points),
                   "size_pool_bytes": size.plan.pool_bytes, "size_latency_s": size.latency_s,
                   "speed_pool_bytes": speed.plan.pool_bytes, "speed_latency_s": speed.latency_s,
                   "speedup": size.latency_s / speed.latency_s, "frontier_s": elapsed}
            rows.append(row)
            print(f"{name:<38}{tname:<16}{len(f.points):>7}  {pools_text(size.plan.pool_bytes):<34}"
                  f"{pools_text(speed.plan.pool_bytes):<34}{row['speedup']:>8.2f}x{elapsed:>7.2f}")
    return rows


def image_rows() -> list:
    """Export each MLPerf Tiny model's size and speed plans (cortex-m4 target), build them
    for a Cortex-M4, run them under QEMU: image footprint, stack bound and measured stack,
    instruction count per inference (SysTick with -icount shift=0: 40 instructions a tick),
    and a check that the outputs equal the Interpreter's."""
    from harness.firmware import build as fw  # noqa: E402  (the firmware builder the tests share)
    from arenaplan.export import stack_usage
    missing = fw.missing_arm_tools()
    if missing:
        print(f"\nCortex-M4 images: n/a ({', '.join(missing)} not installed)")
        return []
    import numpy as np
    cpu = fw.ARM_CPUS["cortex-m4"]
    rows = []
    print(f"\n{'model (cortex-m4 target)':<38}{'mode':<9}{'.text':>9}{'.data':>7}{'.bss':>8}"
          f"{'stack bound':>12}{'measured':>9}{'instructions':>14}  bit-exact")
    with tempfile.TemporaryDirectory() as tmp:
        runtime = fw.compile_all(fw.ARM_CC, fw.arm_flags(cpu), fw.runtime_sources(), Path(tmp) / "rt",
                                 [fw.INCLUDE])
        for name in MLPERF:
            path = MODELS / f"{name}.tflite"
            if not path.exists():
                continue
            m = ap.load_tflite(path)
            shape = m.tensors[m.inputs[0]].shape
            x = np.random.default_rng(0).integers(-128, 128, size=shape, dtype=np.int8)
            # the speed end within the target: the fastest plan that fits its pools
            for mode in ("size", "balanced"):
                p = ap.plan(m, target="cortex-m4", mode=mode, latency="model:cortex-m4")
                work = Path(tmp) / f"{name}-{mode}"
                work.mkdir()
                out = p.export_c(work, name="net")
                firmware = fw.build_arm(out, cpu, runtime, work, [[x]])
                run = fw.run_qemu(firmware, timeout=600)
                got = fw.split_outputs(run.outputs[0], [(m.tensors[t].dtype, m.tensors[t].shape)
                                                         for t in m.outputs])[0]
                exact = bool(np.array_equal(got, ap.Interpreter(p).run(x)))
                stack = stack_usage(firmware.ci_files, "net_invoke", firmware.elf, objects=firmware.objects)
                row = {"model": name, "mode": mode, **{k: v for k, v in firmware.footprint.items()},
                       "image": firmware.sizes, "stack_bound": stack.bytes, "stack_measured": run.stack_bytes,
                       "instructions": min(run.instructions), "bit_exact": exact}
                rows.append(row)
                print(f"{name:<38}{mode:<9}{row['text']:>9,}{row['data']:>7,}{row['bss']:>8,}"
                      f"{stack.bytes:>12,}{run.stack_bytes:>9,}{row['instructions']:>14,}  "
                      f"{'yes' if exact else 'NO'}")
    return rows


def main() -> int:
    rows = frontier_rows()
    images = image_rows()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"machine": {"platform": platform.platform(), "python": sys.version.split()[0]},
                                   "frontiers": rows, "cortex_m4_images": images}, indent=2))
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
