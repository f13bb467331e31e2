"""BATCH_MATMUL's variants on a Cortex-M4 under QEMU: instructions a multiply-accumulate.

For int8, int16 (16x8) and float32, LHS [1, m, 64] times RHS [64, 32] (and the RHS stored
transposed, adj_y), m = 8 and 16, each variant (direct, packed) on each ISA (portable,
arm-dsp) is exported and counted (benchmarks/cortex_m.py); the instructions a MAC are the
slope between the two sizes, so the per-call cost drops out. Prints a table and writes
benchmarks/results/batch_matmul_cortex_m.json.
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np

import arenaplan as ap
import cortex_m
from cortex_m import fw

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "batch_matmul_cortex_m.json"
CPU = "cortex-m4"
DEPTH, COLS, ROWS = 64, 32, (8, 16)


def model(dtype: str, rows: int, adj_y: bool, work: Path) -> ap.Model:
    from ai_edge_litert import schema_py_generated as S
    from harness.reference import litert_layers as L
    q = (lambda s: {}) if dtype == "float32" else (lambda s: dict(scale=s, zero_point=3 if dtype == "int8" else 0))
    o = S.BatchMatMulOptionsT()
    o.adjX, o.adjY = False, adj_y
    rhs = (COLS, DEPTH) if adj_y else (DEPTH, COLS)
    tensors = [dict(shape=(1, rows, DEPTH), dtype=dtype, **q(0.05)), dict(shape=rhs, dtype=dtype, **q(0.02)),
               dict(shape=(1, rows, COLS), dtype=dtype, **q(0.5))]
    path = work / f"bmm-{dtype}-{rows}-{int(adj_y)}.tflite"
    path.write_bytes(L.single_op_model("BATCH_MATMUL", tensors, [0, 1], [2], "BatchMatMulOptions", o, version=1))
    return ap.load_tflite(path)


def main() -> int:
    missing = fw.missing_arm_tools()
    if missing:
        print(f"needs {', '.join(missing)}")
        return 1
    rows = []
    with tempfile.TemporaryDirectory(prefix="arenaplan-bmm-") as tmp:
        tmp = Path(tmp)
        runtime = cortex_m.runtimes([CPU], tmp)
        for dtype in ("int8", "int16", "float32"):
            for adj_y in (False, True):
                for isa in ("portable", "arm-dsp"):
                    found = {}
                    for m in ROWS:
                        plans = list(cortex_m.variant_plans(model(dtype, m, adj_y, tmp), isa, reference="tflm"))
                        counts = cortex_m.count([p for _, _, p in plans], [CPU], runtime,
                                                tmp / f"{dtype}-{int(adj_y)}-{isa}-{m}")
                        for (_, v, _), c in zip(plans, counts):
                            found.setdefault(v.name, []).append((v.macs, c[CPU], v.scratch_bytes))
                    for name, pts in found.items():
                        (m0, c0, _), (m1, c1, scratch) = pts
                        per_mac = (c1 - c0) / (m1 - m0)
                        rows.append(dict(dtype=dtype, adj_y=adj_y, isa=isa, variant=name, per_mac=per_mac,
                                         instructions=[c0, c1], macs=[m0, m1], scratch_bytes=scratch))
                        print(f"{dtype:<8} adj_y={int(adj_y)} {isa:<9} {name:<7} {per_mac:6.2f} instructions/MAC "
                              f"({c1:,} for {m1:,} MACs, scratch {scratch} B)", flush=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"cpu": CPU, "rows": rows}, indent=2))
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
