"""TFLite Micro's arena per shared model: ap.tflm's prediction against the tflite-micro package.

    python benchmarks/bench_tflm.py

For each shared model: predicted arena_size / head / tail (host, 8-byte pointers) against
the package's (bisection at 16 bytes; head and tail from its allocation report), the
32-bit prediction, and the arena with arenaplan's offline plan (predicted, and measured).
Then the same for the small models the op rules are checked on (harness.tflm_support:
one-op models of every op family in int8, int16 where arenaplan runs it (a 16x8 row, or
the op on another op's) and float32 (arenaplan's float32 rows, and the float32 of the
int8-only ops TFLM takes: BENCH_FAMILIES, measured here only), chains, tiny models whose
arena is set by a kernel's Prepare, and the streaming resource-variable models of several
subgraphs). Writes
benchmarks/results/bench_tflm.json.
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT))  # harness: the helpers the tests share (TFLM trials)
sys.path.insert(0, str(ROOT / "benchmarks"))

import arenaplan as ap  # noqa: E402
from harness.tflm_support import (BENCH_FAMILIES, FAMILIES, HAVE_TFLM, RESOURCE_CASES, RUNNABLE,  # noqa: E402
                                  resource_model, smallest_arena, trial)
from shared_models import MODELS as MODELS_DIR  # noqa: E402


def op_rows(tmp: Path) -> list:
    """Predicted against bisected for every model the op rules are checked on."""
    cases = [(family, name, build) for families in (FAMILIES, BENCH_FAMILIES) for family, builds in families.items()
             for name, build in builds.items()]
    cases += [("resource variables", name, lambda name=name: resource_model(name)) for name in RESOURCE_CASES]
    rows = []
    for family, name, build in cases:
        path = tmp / f"{name}.tflite"
        path.write_bytes(build())
        m = ap.load_tflite(str(path))
        host = ap.tflm.arena(m, pointer_bytes=8)
        measured = smallest_arena(str(path), hi=1 << 18)
        if measured is not None and host.arena_size < measured and trial(str(path), host.arena_size)["ok"]:
            # runs below what bisection found: TFLM's arena is not monotonic for this model
            # (a late Prepare write or an Init buffer never read, rules.py): the smallest by
            # trying every multiple of 16 up to the bisection's
            measured = next(n for n in range(16, measured + 16, 16) if trial(str(path), n)["ok"])
        rep = trial(str(path), measured)
        rows.append({"family": family, "model": name, "predicted": host.arena_size, "measured": measured,
                     "head": host.head_bytes, "measured_head": rep["head"], "tail": host.tail_bytes,
                     "measured_tail": rep["tail"], "predicted_32bit": ap.tflm.arena(m, pointer_bytes=4).arena_size})
    return rows


def main() -> int:
    if not HAVE_TFLM:
        print("tflite-micro is not importable: pip install '.[test]'")
        return 1
    rows = []
    tmp = Path(tempfile.mkdtemp())
    for name in RUNNABLE:
        path = Path(MODELS_DIR) / f"{name}.tflite"
        m = ap.load_tflite(str(path))
        host = ap.tflm.arena(m, pointer_bytes=8)
        m32 = ap.tflm.arena(m, pointer_bytes=4)
        cm = ap.tflm.arena(m, kernels="cmsis-nn", pointer_bytes=4)
        measured = smallest_arena(str(path))
        rep = trial(str(path), measured)
        out = tmp / f"{name}_planned.tflite"
        off = ap.tflm.with_offline_plan(str(path), str(out))
        off_measured = smallest_arena(str(out))
        rows.append({"model": name, "predicted": host.arena_size, "measured": measured,
                     "head": host.head_bytes, "measured_head": rep["head"],
                     "tail": host.tail_bytes, "measured_tail": rep["tail"],
                     "predicted_32bit": m32.arena_size, "predicted_cmsis_nn_32bit": cm.arena_size,
                     "offline_predicted": off.arena_size, "offline_measured": off_measured,
                     "offline_saves": host.arena_size - off.arena_size})
    head = ("| model | predicted | measured | head (pred / TFLM) | tail (pred / TFLM) | 32-bit pred | "
            "CMSIS-NN 32-bit pred | offline plan (pred / measured) | saves |")
    print(head)
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['model']} | {r['predicted']:,} | {r['measured']:,} | {r['head']:,} / {r['measured_head']:,} | "
              f"{r['tail']:,} / {r['measured_tail']:,} | {r['predicted_32bit']:,} | "
              f"{r['predicted_cmsis_nn_32bit']:,} | {r['offline_predicted']:,} / {r['offline_measured']:,} | "
              f"{r['offline_saves']:,} |")
    ops = op_rows(tmp)
    exact = sum(1 for r in ops if (r["predicted"], r["head"], r["tail"]) ==
                (r["measured"], r["measured_head"], r["measured_tail"]))
    print(f"\nop models: {exact} of {len(ops)} exact (arena, head and tail)")
    print("| family | model | predicted | measured | head (pred / TFLM) | tail (pred / TFLM) | 32-bit pred |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in ops:
        print(f"| {r['family']} | {r['model']} | {r['predicted']:,} | {r['measured']:,} | "
              f"{r['head']:,} / {r['measured_head']:,} | {r['tail']:,} / {r['measured_tail']:,} | "
              f"{r['predicted_32bit']:,} |")
    res = ROOT / "benchmarks" / "results" / "bench_tflm.json"
    res.parent.mkdir(exist_ok=True)
    res.write_text(json.dumps({"tflite_micro": ap.tflm.TFLM_VERSION, "rows": rows, "op_models": ops}, indent=2))
    print(f"wrote {res}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
