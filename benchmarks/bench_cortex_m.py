"""Instructions on Cortex-M4, M7 and M33 cores, per layer and per inference, beside CMSIS-NN.

For every CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED layer of the MLPerf Tiny models
and every variant of its kernel (the cores' ISA, arm-dsp): the layer alone as a one-op
model (its own weights and quantisation), exported and counted under
``qemu-system-arm -icount shift=0`` (benchmarks/cortex_m.py, shared with
calibrate_cortex_m.py): instructions per MAC and the variant's scratch bytes. Then each
whole model's size and speed plans, instructions per inference on each core; and the
fastest plans of the other shared models (TFLite Micro's examples), counted and predicted. Counts are
instructions executed, not cycles (QEMU models no pipeline).

CMSIS-NN is on neither PyPI nor Debian; its figures are stored below with their source
(CMSIS_NN) and compared with the Cortex-M4's counts, which were measured the same way
(arm-none-eabi-gcc 12.2 -O2, mps2-an386).

    python benchmarks/bench_cortex_m.py            # every MLPerf Tiny model (~5 minutes)
    python benchmarks/bench_cortex_m.py --quick    # the keyword model only

Prints tables, writes benchmarks/results/bench_cortex_m.json (--quick: ..._quick.json).
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

import arenaplan as ap
from arenaplan.latency.sources import PROFILES

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import cortex_m  # noqa: E402
from shared_models import MODELS  # noqa: E402

RESULTS = HERE / "results" / "bench_cortex_m.json"
CPUS = ["cortex-m4", "cortex-m7", "cortex-m33"]
ISA = "arm-dsp"
#: the cost model that predicts each core (no M33 profile: its instructions are the M4's)
PROFILE_OF = {"cortex-m4": "cortex-m4", "cortex-m7": "cortex-m7", "cortex-m33": "cortex-m4"}
OP_TYPES = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")
SHORT = {"mlperf_tiny_ic_resnet8_int8": "ResNet-8", "mlperf_tiny_kws_dscnn_int8": "KWS DS-CNN",
         "mlperf_tiny_vww_mobilenetv1_025_int8": "VWW", "mlperf_tiny_sww_dscnn_int8": "SWW",
         "mlperf_tiny_ad_autoencoder_int8": "AE"}
QUICK = ["mlperf_tiny_kws_dscnn_int8"]

#: CMSIS-NN on a Cortex-M4: measured with arm-none-eabi-gcc 12.2 -O2 on mps2-an386 under
#: QEMU -icount shift=0 (the project's figures, given with this benchmark's brief; CMSIS-NN
#: itself cannot be installed here). Per inference: (instructions, scratch bytes).
CMSIS_NN = {
    "source": "CMSIS-NN, arm-none-eabi-gcc 12.2 -O2, mps2-an386 (Cortex-M4), QEMU -icount shift=0; "
              "figures stored with the project's brief, not re-measured here",
    "per_inference": {"mlperf_tiny_ic_resnet8_int8": (29_860_360, 2_304),
                      "mlperf_tiny_kws_dscnn_int8": (7_693_400, 256),
                      "mlperf_tiny_vww_mobilenetv1_025_int8": (24_107_920, 1_024),
                      "mlperf_tiny_sww_dscnn_int8": (2_224_840, 3_840),
                      "mlperf_tiny_ad_autoencoder_int8": (581_000, 0)},
    "instructions_per_mac": {"conv 3x3": (1.76, 2.33), "conv 1x1": (1.83, 2.09),
                             "depthwise 3x3": (6.9, 8.9), "fully connected": (2.9, 2.9)},
    "add_instructions_per_element": 81,
}
#: The project's target: the fastest plan at most 0.8x CMSIS-NN's instructions on the M4.
TARGET_RATIO = 0.8


def kind(model: ap.Model, op: ap.Operator) -> str:
    """conv KxK, depthwise KxK, fully connected (the row CMSIS-NN's ranges are given for)."""
    if op.type == "FULLY_CONNECTED":
        return "fully connected"
    shape = model.tensors[op.inputs[1]].shape
    kh, kw = shape[1], shape[2]
    return f"{'conv' if op.type == 'CONV_2D' else 'depthwise'} {kh}x{kw}"


def layer_rows(name: str, model: ap.Model, work: Path, runtimes) -> list:
    found = []
    for op in model.operators:
        if op.type not in OP_TYPES:
            continue
        one = cortex_m.one_op_model(model, op, f"{name}_op{op.index}")
        for k, v, plan in cortex_m.variant_plans(one, ISA, OP_TYPES, reference="tflm"):
            found.append((op, v, plan))
    counts = cortex_m.count([p for _, _, p in found], CPUS, runtimes, work)
    rows = []
    for (op, v, _), n in zip(found, counts):
        rows.append({"model": name, "op": op.index, "type": op.type, "kind": kind(model, op),
                     "variant": v.name, "macs": v.macs, "scratch_bytes": v.scratch_bytes, "instructions": n,
                     "instructions_per_mac": {c: n[c] / v.macs for c in CPUS}})
    return rows


def model_rows(name: str, model: ap.Model, work: Path, runtimes) -> list:
    """The size plan, the fastest plan within CMSIS-NN's scratch (budget: the size plan's
    arena + the scratch CMSIS-NN asks) and the fastest plan, each by the Cortex-M4 cost
    model; counted on every core and predicted by each core's cost model (M33: the M4's)."""
    size = ap.plan(model, mode="size", isa=ISA, reference="tflm")
    budget = size.arena_bytes + CMSIS_NN["per_inference"][name][1]
    plans = {"size": size,
             "cmsis_scratch": ap.plan(model, mode="balanced", budget=budget, isa=ISA, reference="tflm",
                                      latency="model:cortex-m4"),
             "speed": ap.plan(model, mode="speed", isa=ISA, reference="tflm", latency="model:cortex-m4")}
    counts = cortex_m.count(list(plans.values()), CPUS, runtimes, work)
    rows = []
    for (mode, p), n in zip(plans.items(), counts):
        p.verify()
        scratch = sum(b.size for b in p.buffers if b.kind == "scratch")
        predicted = {c: PROFILES[PROFILE_OF[c]].plan_instructions(p) for c in CPUS}
        rows.append({"model": name, "mode": mode, "arena_bytes": p.arena_bytes, "largest_scratch_bytes":
                     max((b.size for b in p.buffers if b.kind == "scratch"), default=0),
                     "scratch_bytes_total": scratch, "instructions": n, "predicted_instructions": predicted,
                     "prediction_error": {c: predicted[c] / n[c] - 1 for c in CPUS}})
    return rows


#: the shared TFLite Micro example models arenaplan runs: no CMSIS-NN yardstick, the cost
#: model's prediction checked on models it was not calibrated for
OTHER_MODELS = ["tflm_hello_world_int8", "tflm_micro_speech_int8", "tflm_keyword_scrambled_int8",
                "tflm_person_detect_int8", "tflm_mnist_lstm_int8"]


def other_rows(work: Path, runtimes) -> list:
    """Each other model's fastest plan by the Cortex-M4 cost model: counted on every core
    and predicted by each core's cost model."""
    models = [(n, ap.load_tflite(MODELS / f"{n}.tflite")) for n in OTHER_MODELS]
    plans = [ap.plan(m, mode="speed", isa=ISA, reference="tflm", latency="model:cortex-m4") for _, m in models]
    counts = cortex_m.count(plans, CPUS, runtimes, work)
    rows = []
    for (name, _), p, n in zip(models, plans, counts):
        p.verify()
        predicted = {c: PROFILES[PROFILE_OF[c]].plan_instructions(p) for c in CPUS}
        rows.append({"model": name, "arena_bytes": p.arena_bytes, "instructions": n,
                     "predicted_instructions": predicted,
                     "prediction_error": {c: predicted[c] / n[c] - 1 for c in CPUS}})
    return rows


def print_others(rows: list) -> None:
    print(f"\n{'other model, fastest plan':<30}{'arena B':>9}" + "".join(f"{c:>14}" for c in CPUS)
          + "".join(f"{c[7:] + ' pred err':>13}" for c in CPUS))
    for r in rows:
        print(f"{r['model']:<30}{r['arena_bytes']:>9,}" + "".join(f"{r['instructions'][c]:>14,}" for c in CPUS)
              + "".join(f"{100 * r['prediction_error'][c]:>12.1f}%" for c in CPUS))


def frontier_row(name: str, model: ap.Model, work: Path, runtimes) -> dict:
    """The Cortex-M4 frontier by its cost model: points, bytes and predicted speed-up end to
    end, and its two end plans counted on the M4 (the speed-up it promises, measured)."""
    f = ap.frontier(model, target="cortex-m4", latency="model:cortex-m4")
    pts = sorted(f.points, key=lambda p: p.arena_bytes)
    ends = cortex_m.count([pts[0].plan, pts[-1].plan], ["cortex-m4"], runtimes, work)
    counted = [e["cortex-m4"] for e in ends]
    return {"model": name, "points": len(pts), "bytes": [p.arena_bytes for p in pts],
            "latency_s": [p.latency_s for p in pts],
            "speedup": pts[0].latency_s / pts[-1].latency_s if pts and pts[-1].latency_s else 1.0,
            "ends_counted_m4": counted, "speedup_counted_m4": counted[0] / counted[1]}


def print_layers(rows: list) -> None:
    print(f"{'model':<12}{'op':>4} {'kind':<16}{'variant':<16}{'MACs':>11}{'scratch':>9}"
          + "".join(f"{c + ' i/MAC':>16}" for c in CPUS))
    for r in rows:
        print(f"{SHORT[r['model']]:<12}{r['op']:>4} {r['kind']:<16}{r['variant']:<16}{r['macs']:>11,}"
              f"{r['scratch_bytes']:>9,}" + "".join(f"{r['instructions_per_mac'][c]:>16.2f}" for c in CPUS))


def ranges(rows: list) -> dict:
    """Per kind and core: instructions per MAC over layers, of each layer's best variant and
    of every variant."""
    out = {}
    for k in sorted({r["kind"] for r in rows}):
        entry = {}
        for c in CPUS:
            mine = [r for r in rows if r["kind"] == k]
            best = {}
            for r in mine:
                key = (r["model"], r["op"])
                best[key] = min(best.get(key, float("inf")), r["instructions_per_mac"][c])
            every = [r["instructions_per_mac"][c] for r in mine]
            entry[c] = {"best_variant": (min(best.values()), max(best.values())),
                        "every_variant": (min(every), max(every)), "layers": len(best)}
        out[k] = entry
    return out


def print_ranges(rng: dict) -> None:
    print(f"\n{'kind':<18}{'layers':>7}" + "".join(f"{c + ' best':>20}" for c in CPUS)
          + f"{'cortex-m4 any variant':>24}{'CMSIS-NN M4':>14}")
    for k, e in rng.items():
        cm = CMSIS_NN["instructions_per_mac"].get(k)
        print(f"{k:<18}{e[CPUS[0]]['layers']:>7}"
              + "".join(f"{e[c]['best_variant'][0]:>12.2f}-{e[c]['best_variant'][1]:<7.2f}" for c in CPUS)
              + f"{e['cortex-m4']['every_variant'][0]:>14.2f}-{e['cortex-m4']['every_variant'][1]:<9.2f}"
              + (f"{cm[0]:>9.2f}-{cm[1]:.2f}" if cm else f"{'':>14}"))


def print_models(rows: list) -> None:
    print(f"\n{'model':<12}{'plan':<14}{'arena B':>9}{'scratch B':>10}"
          + "".join(f"{c:>14}" for c in CPUS) + f"{'CMSIS-NN M4':>13}{'CMSIS scr':>10}{'M4 ratio':>9}{'target':>12}"
          + "".join(f"{c[7:] + ' pred err':>13}" for c in CPUS))
    for r in rows:
        cm, scr = CMSIS_NN["per_inference"][r["model"]]
        ratio = r["instructions"]["cortex-m4"] / cm
        print(f"{SHORT[r['model']]:<12}{r['mode']:<14}{r['arena_bytes']:>9,}{r['largest_scratch_bytes']:>10,}"
              + "".join(f"{r['instructions'][c]:>14,}" for c in CPUS)
              + f"{cm:>13,}{scr:>10,}{ratio:>8.2f}x{int(TARGET_RATIO * cm):>12,}"
              + "".join(f"{100 * r['prediction_error'][c]:>12.1f}%" for c in CPUS))


def print_frontiers(rows: list) -> None:
    print(f"\n{'model':<12}{'M4 frontier points':>20}{'size end B':>12}{'speed end B':>13}{'speed-up':>10}"
          f"{'size end M4':>14}{'speed end M4':>14}{'counted':>9}")
    for r in rows:
        size_end, speed_end = r["ends_counted_m4"]
        print(f"{SHORT[r['model']]:<12}{r['points']:>20}{r['bytes'][0]:>12,}{r['bytes'][-1]:>13,}{r['speedup']:>9.2f}x"
              f"{size_end:>14,}{speed_end:>14,}{r['speedup_counted_m4']:>8.2f}x")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the keyword model only")
    args = parser.parse_args(argv)
    missing = cortex_m.fw.missing_arm_tools()
    if missing:
        print(f"needs {', '.join(missing)}")
        return 1
    names = QUICK if args.quick else list(CMSIS_NN["per_inference"])
    t0 = time.perf_counter()
    layers, models, frontiers = [], [], []
    with tempfile.TemporaryDirectory(prefix="arenaplan-bench-cortex-m-") as tmp:
        tmp = Path(tmp)
        runtimes = cortex_m.runtimes(CPUS, tmp)
        for name in names:
            m = ap.load_tflite(MODELS / f"{name}.tflite")
            layers += layer_rows(name, m, tmp / f"{name}-layers", runtimes)
            models += model_rows(name, m, tmp / f"{name}-model", runtimes)
            frontiers.append(frontier_row(name, m, tmp / f"{name}-frontier", runtimes))
            print(f"{name}: counted ({time.perf_counter() - t0:.0f} s)", flush=True)
        others = [] if args.quick else other_rows(tmp / "others", runtimes)
    print()
    print_layers(layers)
    rng = ranges(layers)
    print_ranges(rng)
    print_models(models)
    print_frontiers(frontiers)
    if others:
        print_others(others)
    out = RESULTS.with_name("bench_cortex_m_quick.json") if args.quick else RESULTS
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"machine": {"platform": platform.platform(), "python": sys.version.split()[0]},
                               "isa": ISA, "cpus": {c: {"machine": cortex_m.fw.ARM_CPUS[c].machine,
                                                        "flags": list(cortex_m.fw.ARM_CPUS[c].flags)}
                                                    for c in CPUS},
                               "cmsis_nn": CMSIS_NN, "target_ratio": TARGET_RATIO, "layers": layers,
                               "ranges": rng, "models": models, "frontiers": frontiers, "other_models": others, "seconds": time.perf_counter() - t0}, indent=2))
    print(f"wrote {out} ({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
