"""Counting instructions of exported plans on Cortex-M cores under QEMU: the machinery
calibrate_cortex_m.py and bench_cortex_m.py share.

Plans are exported (``plan.export_c``), built with the firmware builder of harness/firmware
(the runtime compiled for each core, -O2, the core's board memory map) and run under
``qemu-system-arm -icount shift=0``, where SysTick counts the board's instructions per
tick (build.BOARDS: 40 on mps2-an386/an500, 50 on mps2-an505): the counts are of
instructions executed, exact to a tick, not of cycles (QEMU models no pipeline). Several
plans share one image (build.build_arm_batch), so one emulator run counts many.
"""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import arenaplan as ap
from arenaplan.planning.context import PlanContext

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # harness: the helpers the tests share (references, builds, QEMU)
from harness.firmware import build as fw  # noqa: E402

#: bytes of pools and of constants one batch image may hold (the boards have 4 MiB each)
BATCH_RAM_BYTES = 1536 * 1024
BATCH_CONST_BYTES = 2 * 1024 * 1024


def runtimes(cpus: Sequence[str], work: Path) -> Dict[str, List[Path]]:
    """The runtime compiled for each core (objects under work/runtime-<core>)."""
    return {name: fw.compile_all(fw.ARM_CC, fw.arm_flags(fw.ARM_CPUS[name]), fw.runtime_sources(),
                                 work / f"runtime-{name}", [fw.INCLUDE]) for name in cpus}


def one_op_model(model: ap.Model, op: ap.Operator, name: str) -> ap.Model:
    """The model of ``op`` alone: its tensors (weights and quantisation as they are), its
    first input the model's input, its outputs the model's outputs."""
    used = [t for t in (*op.inputs, *op.outputs) if t >= 0]
    index = {t: i for i, t in enumerate(dict.fromkeys(used))}
    tensors = [dataclasses.replace(model.tensors[t], index=i, is_variable=False) for t, i in index.items()]
    new_op = dataclasses.replace(op, index=0, inputs=tuple(index[t] if t >= 0 else -1 for t in op.inputs),
                                 outputs=tuple(index[t] for t in op.outputs), intermediates=())
    inputs = tuple(index[t] for t in op.inputs if t >= 0 and model.tensors[t].data is None)
    return ap.Model(name, tensors, [new_op], inputs, tuple(index[t] for t in op.outputs), source=f"{model.name}:op{op.index}")


def variant_plans(model: ap.Model, isa: str, op_types: Optional[Sequence[str]] = None, *,
                  reference: str):
    """(op index, variant, plan) for every variant of every op of ``model`` (of op_types,
    when given) with ``isa``'s kernels under the rounding rule ``reference`` ("tflm" is a
    Cortex-M target's): the plan runs that variant at that op and the first variant
    elsewhere."""
    ctx = PlanContext.build(model, isa=isa, reference=reference)
    for k, kern in enumerate(ctx.kernels):
        if kern is None or (op_types is not None and kern.type not in op_types):
            continue
        for v in kern.variants:
            chosen = [v if i == k else (other.variants[0] if other is not None else None)
                      for i, other in enumerate(ctx.kernels)]
            yield k, v, ctx.make(chosen, "size", with_greedy=False)


def _ram_bytes(plan) -> int:
    return sum(plan.pool_bytes.values()) + getattr(plan, "state_bytes", 0)


def count(plans: Sequence, cpus: Sequence[str], runtime: Dict[str, List[Path]], work: Path) -> List[Dict[str, int]]:
    """Instructions of one invoke of each plan on each core: ``[{core: instructions}]`` in
    the order of ``plans``. The plans are exported once (the export is the core's ISA, the
    same C for every core) and run in batches of images no larger than BATCH_*_BYTES."""
    work.mkdir(parents=True, exist_ok=True)
    exports = [p.export_c(work / "src", name=f"net{i}") for i, p in enumerate(plans)]
    batches, batch, ram, const = [], [], 0, 0
    for i, (p, e) in enumerate(zip(plans, exports)):
        r, c = _ram_bytes(p), e.const_bytes
        if batch and (ram + r > BATCH_RAM_BYTES or const + c > BATCH_CONST_BYTES):
            batches.append(batch)
            batch, ram, const = [], 0, 0
        batch.append(i)
        ram, const = ram + r, const + c
    if batch:
        batches.append(batch)
    result: List[Dict[str, int]] = [{} for _ in plans]
    for b, members in enumerate(batches):
        for name in cpus:
            image = fw.build_arm_batch([exports[i] for i in members], fw.ARM_CPUS[name], runtime[name],
                                       work / f"batch{b}-{name}")
            for i, n in zip(members, fw.count_batch(image, len(members))):
                result[i][name] = n
    return result
