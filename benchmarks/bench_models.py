"""End-to-end latency of the shared models: arenaplan's size and speed plans beside LiteRT.

For every runnable model in ../shared/models/ (and the built-in zoo with --zoo),
single thread, the same random int8 input for every engine:
  * arenaplan, mode "size"  (least scratch everywhere) and mode "speed" (fastest variants);
  * LiteRT with its default kernels (XNNPACK delegate, num_threads=1);
  * LiteRT with its reference kernels (OpResolverType.BUILTIN_REF).
Each engine runs interleaved with the others, round after round, and the table quotes
medians, so machine noise hits all engines alike. Every arenaplan output is checked
bit-exact against LiteRT's reference kernels before timing. Without ai-edge-litert the
LiteRT columns say "n/a" and the rest still runs.

Targets (issue 3): speed plan <= 1.5x LiteRT-XNNPACK latency on each MLPerf Tiny model,
and >= 5x faster than LiteRT's reference kernels.

    python benchmarks/bench_models.py            # full run
    python benchmarks/bench_models.py --quick    # fewer rounds
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import arenaplan as ap

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # harness: the helpers the tests share (references, builds, QEMU)
from harness.reference.litert_layers import _patched_model  # noqa: E402
from shared_models import MODELS, RUNNABLE, sample_input  # noqa: E402
RESULTS = ROOT / "benchmarks" / "results" / "bench_models.json"

try:
    from ai_edge_litert.interpreter import Interpreter as LiteRT
    from ai_edge_litert.interpreter import OpResolverType
except ImportError:  # pragma: no cover - optional peer
    LiteRT = None


def litert_runner(path: Path, reference: bool):
    """A callable running one inference in LiteRT, or None where LiteRT cannot load the model."""
    if LiteRT is None:
        return None
    kwargs = {"num_threads": 1}
    if reference:
        kwargs["experimental_op_resolver_type"] = OpResolverType.BUILTIN_REF
    try:
        # person_detect's biases declare an axis LiteRT's loader rejects; the tests' loader
        # resets it (no kernel reads it).
        it = LiteRT(model_content=_patched_model(path), **kwargs)
        it.allocate_tensors()
    except (ValueError, RuntimeError):
        return None
    i = it.get_input_details()[0]["index"]
    o = it.get_output_details()[0]["index"]

    def run(x):
        it.set_tensor(i, x)
        it.invoke()
        return it.get_tensor(o)
    return run


def timed(fn, x, repeats: int) -> float:
    """Seconds per call, averaged over `repeats` back-to-back calls."""
    t0 = time.perf_counter()
    for _ in range(repeats):
        fn(x)
    return (time.perf_counter() - t0) / repeats


def bench(name: str, model, path, rounds: int, target_s: float) -> dict:
    x = sample_input(model)
    engines = {}
    row = {"model": name}
    for mode in ("size", "speed"):
        p = ap.plan(model, mode=mode)
        p.verify()
        engines[f"arenaplan_{mode}"] = ap.Interpreter(p).run
        row[f"{mode}_arena_bytes"] = p.arena_bytes
    if path is not None:
        engines["litert_xnnpack"] = litert_runner(path, reference=False)
        engines["litert_reference"] = litert_runner(path, reference=True)
        ref = engines["litert_reference"]
        if ref is not None:
            want = ref(x)
            for mode in ("size", "speed"):
                got = engines[f"arenaplan_{mode}"](x)
                row[f"{mode}_bit_exact"] = bool(np.array_equal(got, want))
    engines = {k: v for k, v in engines.items() if v is not None}
    # Calls per sample so that one sample lasts about target_s.
    reps = {k: max(1, int(target_s / max(timed(fn, x, 1), 1e-7))) for k, fn in engines.items()}
    samples = {k: [] for k in engines}
    for _ in range(rounds):
        for k, fn in engines.items():
            samples[k].append(timed(fn, x, reps[k]))
    for k, s in samples.items():
        row[f"{k}_s"] = statistics.median(s)
    return row


def fmt_us(v):
    return "n/a" if v is None else f"{v * 1e6:9.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--zoo", action="store_true", help="also the built-in zoo models")
    args = parser.parse_args()
    rounds, target = (5, 0.02) if args.quick else (15, 0.05)
    rows = []
    cases = [(n, ap.load_tflite(MODELS / f"{n}.tflite"), MODELS / f"{n}.tflite")
             for n in RUNNABLE if (MODELS / f"{n}.tflite").exists()]
    if args.zoo:
        cases += [(f"zoo:{n}", ap.zoo.load(n), None) for n in ap.zoo.names()]
    if not cases:
        print(f"no models found in {MODELS}")
        return 1
    print(f"{'model':<38}{'size us':>10}{'speed us':>10}{'xnnpack us':>11}{'ref us':>10}"
          f"{'speed/xnn':>10}{'ref/speed':>10}  bit-exact")
    for name, model, path in cases:
        row = bench(name, model, path, rounds, target)
        rows.append(row)
        speed, xnn, ref = row.get("arenaplan_speed_s"), row.get("litert_xnnpack_s"), row.get("litert_reference_s")
        row["speed_over_xnnpack"] = speed / xnn if xnn else None
        row["reference_over_speed"] = ref / speed if ref else None
        exact = "yes" if row.get("size_bit_exact") and row.get("speed_bit_exact") else (
            "n/a" if "size_bit_exact" not in row else "NO")
        print(f"{name:<38}{fmt_us(row.get('arenaplan_size_s'))}{fmt_us(speed)} {fmt_us(xnn)}{fmt_us(ref)}"
              f"{row['speed_over_xnnpack'] or float('nan'):>10.2f}{row['reference_over_speed'] or float('nan'):>10.1f}"
              f"  {exact}")
    mlperf = [r for r in rows if r["model"].startswith("mlperf_tiny")]
    checks = {
        "speed <= 1.5x LiteRT-XNNPACK on every MLPerf Tiny model":
            all(r["speed_over_xnnpack"] is not None and r["speed_over_xnnpack"] <= 1.5 for r in mlperf),
        ">= 5x faster than LiteRT reference on every MLPerf Tiny model":
            all(r["reference_over_speed"] is not None and r["reference_over_speed"] >= 5 for r in mlperf),
        "bit-exact with LiteRT reference wherever LiteRT loads the model":
            all(r.get("size_bit_exact", True) and r.get("speed_bit_exact", True) for r in rows),
    }
    for what, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {what}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({
        "machine": {"platform": platform.platform(), "processor": platform.processor(),
                    "python": sys.version.split()[0], "cpus": os.cpu_count()},
        "litert": LiteRT is not None, "rounds": rounds, "rows": rows,
        "checks": {k: bool(v) for k, v in checks.items()},
    }, indent=2))
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
