"""Instruction counts of every kernel variant on a Cortex-M4 and a Cortex-M7, under QEMU.

Each case is a one-op model built in code with shapes like the shared models' layers, at
two sizes. Every variant of its op is planned, exported and counted under
``qemu-system-arm -icount shift=0`` by benchmarks/cortex_m.py (the machinery
bench_cortex_m.py shares): the count is of instructions executed by one invoke, exact to
a SysTick tick (40 instructions on these boards), not of cycles (QEMU models no pipeline).

Both instruction sets a Cortex-M plan can name are counted: arm-dsp (the DSP-extension
kernels, and the portable code of ops that have none) and portable. Per (ISA, op type,
variant family) a line through the two sizes gives the instructions per MAC (the slope)
and per op (the intercept: the call, the I/O copies, per-op set-up); fits are keyed
"<op>:<family>" for portable and "arm-dsp/<op>:<family>" for arm-dsp, as the cost model
looks them up.
These are the measured half of the Cortex-M cost model's coefficients (CostModel
PROFILES in python/arenaplan/latency/sources.py); the cycles per instruction of each core are
the estimated half (see there).

    python benchmarks/calibrate_cortex_m.py        # needs arm-none-eabi-gcc, qemu-system-arm

Writes benchmarks/results/calibrate_cortex_m.json.
"""
from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

import arenaplan as ap
from arenaplan.model.zoo import GraphBuilder

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # harness: the helpers the tests share (references, builds, QEMU)
sys.path.insert(0, str(ROOT / "benchmarks"))
from harness.firmware import build as fw  # noqa: E402
import cortex_m  # noqa: E402  (the export, build and count machinery)
from harness import svdf_models  # noqa: E402
from harness.reference.svdf import random_case  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "calibrate_cortex_m.json"
CPUS = ["cortex-m4", "cortex-m7"]
ISAS = ["portable", "arm-dsp"]


def conv3x3(size):
    return (1, size, size, 16), lambda g, x: g.conv2d(x, 16, (3, 3), name="op")


def conv1x1(size):
    """KWS DS-CNN's pointwise layers: 64 -> 64 channels."""
    return (1, size, size, 64), lambda g, x: g.conv2d(x, 64, (1, 1), name="op")


def depthwise3x3(size):
    """KWS DS-CNN's depthwise layers: 3 x 3 over 64 channels."""
    return (1, size, size, 64), lambda g, x: g.depthwise(x, (3, 3), name="op")


def fully_connected(size):
    return (1, 16 * size), lambda g, x: g.fully_connected(x, 32, name="op")


def average_pool(size):
    return (1, size, size, 32), lambda g, x: g.avgpool(x, (size, size))


def add(size):
    return (1, size, size, 16), lambda g, x: g.add(x, x)


def softmax(size):
    return (1, 4 * size), lambda g, x: g.softmax(x)


def svdf(size):
    """SVDF as in the keyword model (64 filters, memory 8, rank 1) over ``size`` features;
    built as a whole model (the graph builder has no variable tensors)."""
    case = random_case(np.random.default_rng(7), 1, size, 64, 8, 1)
    return svdf_models.one_svdf(case)


#: case -> the two sizes it is built at
#: (outputs stay within the harness's 4 KiB output buffer)
CASES = {"conv 3x3 16->16": (conv3x3, (6, 12)), "conv 1x1 64->64": (conv1x1, (5, 10)),
         "depthwise 3x3 x64": (depthwise3x3, (5, 10)), "fully connected ->32": (fully_connected, (8, 32)),
         "average pool x32": (average_pool, (6, 12)), "add x16": (add, (6, 12)),
         "softmax": (softmax, (4, 16)), "svdf 64 filters m8": (svdf, (16, 96))}


def one_op_model(case: str, size: int) -> ap.Model:
    built = CASES[case][0](size)
    if isinstance(built, ap.Model):
        return built
    shape, op = built
    g = GraphBuilder(f"{case} {size}", seed=7)
    return g.build(op(g, g.input(shape, scale=0.05)))


def family(variant: str) -> str:
    return re.sub(r"_\d+$", "", variant)


def main() -> int:
    missing = fw.missing_arm_tools()
    if missing:
        print(f"needs {', '.join(missing)}")
        return 1
    rows = []
    with tempfile.TemporaryDirectory(prefix="arenaplan-calibrate-") as tmp:
        tmp = Path(tmp)
        runtimes = cortex_m.runtimes(CPUS, tmp)
        for isa in ISAS:
            for case, (_, sizes) in CASES.items():
                for size in sizes:
                    m = one_op_model(case, size)
                    found = [(k, v, plan) for k, v, plan in cortex_m.variant_plans(m, isa, reference="tflm")
                             if plan.kernels[k].type != "RESHAPE"]
                    k0 = found[0][0]
                    found = [f for f in found if f[0] == k0]
                    counted = cortex_m.count([plan for _, _, plan in found], CPUS, runtimes,
                                             tmp / f"{isa}-{case}-{size}".replace(" ", "_"))
                    for (k, v, plan), counts in zip(found, counted):
                        rows.append({"isa": isa, "case": case, "size": size, "op": plan.kernels[k].type,
                                     "variant": v.name, "family": family(v.name), "macs": v.macs,
                                     "scratch_bytes": v.scratch_bytes, "instructions": counts})
                        print(f"{isa:<9}{case:<22}{size:>4} {v.name:<20}{v.macs:>9,} MACs  "
                              + "  ".join(f"{n} {c:>10,}" for n, c in counts.items()), flush=True)
    fits = {}
    for key in sorted({(r["isa"], r["op"], r["family"]) for r in rows}):
        pts = [r for r in rows if (r["isa"], r["op"], r["family"]) == key]
        fit = {}
        for name in CPUS:
            macs = np.array([r["macs"] for r in pts], dtype=float)
            inst = np.array([r["instructions"][name] for r in pts], dtype=float)
            if len(set(macs)) < 2:
                continue
            slope, intercept = np.polyfit(macs, inst, 1)
            fit[name] = {"instructions_per_mac": float(slope), "instructions_per_op": float(intercept)}
        fits[("" if key[0] == "portable" else f"{key[0]}/") + f"{key[1]}:{key[2]}"] = fit
    print(f"\n{'[isa/]op:family':<40}" + "".join(f"{n + ' instr/MAC':>20}{'instr/op':>10}" for n in CPUS))
    for key, fit in fits.items():
        print(f"{key:<40}" + "".join(f"{fit[n]['instructions_per_mac']:>20.2f}{fit[n]['instructions_per_op']:>10,.0f}"
                                      if n in fit else f"{'':>30}" for n in CPUS))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"rows": rows, "fits": fits}, indent=2))
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
