"""``arenaplan tflm MODEL``: the kTensorArenaSize for TensorFlow Lite Micro, and an offline plan."""
from __future__ import annotations

import argparse
import json

from ..errors import InvalidArgument
from ..model.model import Model
from ..tflm import arena, plan_offline, with_offline_plan

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    t = sub.add_parser("tflm", help="the arena TensorFlow Lite Micro needs, and what an offline plan saves")
    t.add_argument("model", help="a .tflite file (or a zoo model)")
    t.add_argument("--kernels", default="reference", choices=("reference", "cmsis-nn"))
    t.add_argument("--pointer-bytes", type=int, default=4, choices=(4, 8),
                   help="4 for a 32-bit target (default), 8 for a 64-bit host build")
    t.add_argument("--json", action="store_true", help="print JSON")
    t.add_argument("--write-offline-plan", metavar="OUT.tflite",
                   help="write the model with arenaplan's offsets as TFLM's offline plan")
    t.add_argument("--replace", action="store_true", help="replace an offline plan the model already has")


def run(args: argparse.Namespace, model: Model) -> int:
    r = arena(model, kernels=args.kernels, pointer_bytes=args.pointer_bytes)
    if args.write_offline_plan:
        if not str(args.model).endswith(".tflite"):
            raise InvalidArgument("--write-offline-plan needs a .tflite file")
        off = with_offline_plan(args.model, args.write_offline_plan, replace=args.replace,
                                kernels=args.kernels, pointer_bytes=args.pointer_bytes)
    else:
        off = plan_offline(model, args.kernels, args.pointer_bytes)[1]
    saved = r.arena_size - off.arena_size
    if args.json:
        out = r.to_dict()
        out["offline_plan"] = {"arena_size": off.arena_size, "head_bytes": off.head_bytes,
                               "saves_bytes": saved, "written": args.write_offline_plan}
        print(json.dumps(out, indent=2))
        return 0
    print(r.line())
    print(r.summary())
    line = f"with arenaplan's offline plan: {off.arena_size:,} B (saves {saved:,} B)"
    if args.write_offline_plan:
        line += f"; written to {args.write_offline_plan} — set kTensorArenaSize = {off.arena_size}"
    print(line)
    return 0
