"""RESIZE_BILINEAR's variants (direct, column_table, int8's row_cache): host time and
Cortex-M4 instructions.

Host: the op alone, one invoke through the graph (no Python I/O), best of 7 batches of 50, for
each variant on each host ISA, on images like a detector's or a segmenter's head (up- and
downsampling, 3 and 32 channels). Cortex-M4: the same variants' arm-dsp plans on smaller
images, exported, built (arm-none-eabi-gcc -O2) and counted under QEMU (benchmarks/cortex_m.py:
instructions of one invoke, exact to a SysTick tick of 40). Prints both tables and writes
benchmarks/results/bench_resize.json.

    python benchmarks/bench_resize.py            # both
    python benchmarks/bench_resize.py --host     # host timing only
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import arenaplan as ap
from arenaplan.ops.lowering import HOST_ISA
from arenaplan.planning.context import PlanContext

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from harness import tflm_support as T  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "bench_resize.json"
#: (type, input shape, output size, options): host images, then the Cortex-M4's
HOST = [("int8", (1, 48, 48, 3), (96, 96), {"halfPixelCenters": True}),
        ("int8", (1, 16, 16, 32), (32, 32), {}),
        ("int8", (1, 96, 96, 3), (48, 48), {"alignCorners": True}),
        ("float32", (1, 48, 48, 3), (96, 96), {"halfPixelCenters": True}),
        ("float32", (1, 16, 16, 32), (32, 32), {})]
M4 = [("int8", (1, 12, 12, 3), (24, 24), {"halfPixelCenters": True}),
      ("int8", (1, 8, 8, 16), (16, 16), {}),
      ("int8", (1, 24, 24, 1), (12, 12), {"alignCorners": True}),
      ("float32", (1, 12, 12, 3), (24, 24), {"halfPixelCenters": True}),
      ("float32", (1, 8, 8, 16), (16, 16), {})]


def model(case, work: Path, i: int) -> ap.Model:
    dtype, shape, size, options = case
    path = work / f"resize{i}.tflite"
    path.write_bytes(T.resize("RESIZE_BILINEAR", dtype, shape=shape, size=size, **options))
    return ap.load_tflite(path)


def label(case) -> str:
    dtype, shape, size, options = case
    flags = "".join(f" {k}" for k in options)
    return f"{dtype} {'x'.join(map(str, shape[1:]))} -> {size[0]}x{size[1]}{flags}"


def host(work: Path) -> list:
    rows = []
    for i, case in enumerate(HOST):
        m = model(case, work, i)
        for isa in ["portable"] + (["x86-avx2"] if HOST_ISA == "x86-avx2" else []):
            ctx = PlanContext.build(m, isa=isa, reference="litert")
            its = [(v, ap.Interpreter(ctx.make([v], "size"))) for v in ctx.kernels[0].variants]
            best = {v.name: float("inf") for v, _ in its}
            for it in (it for _, it in its):
                it.run(np.zeros(case[1], case[0]))
            for _ in range(7):   # the variants interleaved, so the machine's load falls on each alike
                for v, it in its:
                    t = time.perf_counter()
                    for _ in range(50):
                        it._graph.invoke(it._pools, 0, 1)
                    best[v.name] = min(best[v.name], (time.perf_counter() - t) / 50)
            rows.append({"case": label(case), "isa": isa, "us": {k: round(s * 1e6, 2) for k, s in best.items()},
                         "scratch_bytes": {v.name: v.scratch_bytes for v, _ in its}})
            print(f"{label(case):<40}{isa:<10}" + "  ".join(f"{k} {s * 1e6:8.1f} us" for k, s in best.items()),
                  flush=True)
    return rows


def cortex_m4(work: Path) -> list:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import cortex_m
    from cortex_m import fw
    missing = fw.missing_arm_tools()
    if missing:
        print(f"Cortex-M4: needs {', '.join(missing)}")
        return []
    runtime = cortex_m.runtimes(["cortex-m4"], work)
    found = []
    for i, case in enumerate(M4):
        for _, v, plan in cortex_m.variant_plans(model(case, work, 100 + i), "arm-dsp", reference="tflm"):
            found.append((case, v, plan))
    counts = cortex_m.count([p for *_, p in found], ["cortex-m4"], runtime, work / "m4")
    rows = []
    for (case, v, _), c in zip(found, counts):
        outputs = case[1][0] * case[2][0] * case[2][1] * case[1][3]
        rows.append({"case": label(case), "variant": v.name, "scratch_bytes": v.scratch_bytes,
                     "instructions": c["cortex-m4"], "per_output": round(c["cortex-m4"] / outputs, 2)})
        print(f"{label(case):<40}{v.name:<14}{v.scratch_bytes:>7} B{c['cortex-m4']:>11,}"
              f"{c['cortex-m4'] / outputs:>9.2f} an output", flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", action="store_true", help="host timing only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arenaplan-resize-") as tmp:
        tmp = Path(tmp)
        result = {"host": host(tmp)}
        if not args.host:
            result["cortex-m4"] = cortex_m4(tmp)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
