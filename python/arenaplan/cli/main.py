"""Command line: ``arenaplan plan|tradeoffs|run|export [MODEL ...]``.

    arenaplan tradeoffs [MODEL ...] [--latency host|model:TARGET|FILE] [--budget B]
                        [--plot out.png] [--json]
    arenaplan plan [MODEL] [--mode size|speed|balanced] [--budget B] [--strategy S] [--json]
    arenaplan run [MODEL] [--input X.npy ...] [--runs N] [--plan PLAN.json] [--check] [--profile R]
    (plan, tradeoffs, run, export also take --target T [--io-pool P] [--state-pool P])
    arenaplan tflm MODEL [--kernels reference|cmsis-nn] [--pointer-bytes 4|8] [--json]
                   [--write-offline-plan OUT.tflite]
    arenaplan export [MODEL] -o DIR [--target T [--state-pool P]] [--budget B] [--mode M]
                     [--section POOL=SEC]
    arenaplan sweep MODEL... [--targets T...] [--budgets B...] [--modes M...]
                    [--workers N | --scheduler ADDRESS] [-o results.csv] [--json]

MODEL is a ``.tflite`` file or the name of a built-in zoo model; without it the
built-in ``ds_cnn`` keyword-spotting model is used, so ``arenaplan tradeoffs``
shows the main job at once: what each extra byte of arena buys in latency.
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np
from pathlib import Path
from typing import List, Optional

from ..model import zoo
from ..planning.buffers import STRATEGIES
from ..errors import ArenaplanError
from ..model.importers import load_tflite
from ..model.model import Model
from ..api import frontier, plan
from ..planning.plan import MODES, Plan
from ..units import parse_bytes
from ..errors import InvalidArgument
from ..planning import targets
from .run_model import model_inputs, run_plan
from ..runtime.interpreter import Interpreter
from ..export.c import export_c
from . import sweep_command, tflm_command

__all__ = ["main", "load_model"]


def load_model(spec: Optional[str]) -> Model:
    """A model from a path to a .tflite file or a zoo name (default: the zoo's default)."""
    if spec is None:
        return zoo.load()
    if spec in zoo.names() and not Path(spec).exists():
        return zoo.load(spec)
    if not Path(spec).exists() and not spec.lower().endswith(".tflite"):
        raise InvalidArgument(f"no model {spec!r}: not a file, and not a built-in model "
                              f"({', '.join(zoo.names())})")
    return load_tflite(spec)


def _target_args(args: argparse.Namespace) -> dict:
    """target=, io_pool= and state_pool= from --target, --io-pool and --state-pool."""
    kwargs = {}
    if args.target is not None:
        kwargs["target"] = targets.get(args.target)   # an unknown target fails here, by name
    for flag, key in (("--io-pool", "io_pool"), ("--state-pool", "state_pool")):
        value = getattr(args, key)
        if value is not None:
            if args.target is None:
                raise InvalidArgument(f"{flag} names a pool of a target; give --target too")
            kwargs[key] = value
    return kwargs


def _add_target_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", default=None,
                        help="target preset or file (cortex-m4, cortex-m7, ...): buffers go to its "
                             "pools, within their capacities")
    parser.add_argument("--io-pool", default=None, metavar="POOL",
                        help="with --target, the pool the model's inputs and outputs live in")
    parser.add_argument("--state-pool", default=None, metavar="POOL",
                        help="with --target, the pool that holds the variable tensors (default: the "
                             "fastest workspace pool with room)")


def _cmd_plan(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    latency = args.latency if args.latency or args.mode != "balanced" else "host"
    p = plan(model, mode=args.mode, strategy=args.strategy, alignment=args.alignment,
             time_limit_s=args.time_limit, require_kernels=args.mode != "size",
             budget=args.budget, latency=latency, **_target_args(args))
    p.verify()
    if args.json:
        print(json.dumps(p.to_dict(), indent=2))
    else:
        print(p.summary())
        if args.map:
            print("\n" + p.memory_map_text())
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    if args.runs < 1 or args.runs > 10000:
        raise InvalidArgument(f"--runs must be in 1..10000, got {args.runs}")
    if args.plan is not None:
        try:
            text = Path(args.plan).read_text()
        except OSError as exc:
            raise InvalidArgument(f"--plan {args.plan!r}: {exc.strerror}") from None
        p = Plan.from_json(text, model)
    else:
        latency = args.latency if args.latency or args.mode != "balanced" else "host"
        p = plan(model, mode=args.mode, budget=args.budget, alignment=args.alignment, latency=latency,
                 **_target_args(args))
    p.verify()
    runs = model_inputs(model, args.input, args.runs, args.seed)
    report = run_plan(p, runs, check=args.check)
    if args.output:
        last = report.outputs[-1]
        np.save(args.output, last[0]) if len(last) == 1 else np.savez(args.output, *last)
    if args.json:
        print(json.dumps(report.to_dict()))
    else:
        print("\n".join(report.lines()))
        if args.profile:
            prof = Interpreter(p).profile(repeats=args.profile, x=runs[0])
            print(f"\n{'op':>4}  {'type':<30}{'variant':<18}{'us (fastest)':>13}{'us (median)':>12}")
            for op in prof:
                print(f"{op.index:>4}  {op.type:<30}{op.variant or '-':<18}{op.seconds * 1e6:>13.2f}"
                      f"{op.median_s * 1e6:>12.2f}")
            print(f"{'':>4}  {'whole run':<48}{prof.total_s * 1e6:>13.2f}{prof.total_median_s * 1e6:>12.2f}")
    return 0 if report.bit_exact is not False else 1


def _cmd_tradeoffs(args: argparse.Namespace) -> int:
    models = [load_model(m) for m in args.models] if args.models else [load_model(None)]
    f = frontier(models if len(models) > 1 else models[0], latency=args.latency or "host",
                 alignment=args.alignment, **_target_args(args))
    chosen = f.at(args.budget) if args.budget is not None else None
    if args.plot:
        f.plot(args.plot)
    if args.json:
        data = f.to_dict()
        if chosen is not None:
            data["budget"] = {"bytes": parse_bytes(args.budget, "budget"),
                              "arena_bytes": chosen.arena_bytes, "latency_s": chosen.latency_s,
                              "choices": chosen.choices}
        print(json.dumps(data, indent=2))
        return 0
    print(f.table())
    size, speed = f.points[0], f.points[-1]
    print(f"\nsize end:  {size.arena_bytes:,} B, {size.latency_s * 1e3:.3f} ms; speed end: "
          f"{speed.arena_bytes:,} B, {speed.latency_s * 1e3:.3f} ms "
          f"({size.latency_s / speed.latency_s:.2f}x faster for {speed.arena_bytes - size.arena_bytes:,} more bytes)")
    if chosen is not None:
        b = parse_bytes(args.budget, "budget")
        print(f"within {b:,} B: {chosen.arena_bytes:,} B, {chosen.latency_s * 1e3:.3f} ms")
        if len(models) == 1 and b < speed.arena_bytes:
            print(f.gain(speed.arena_bytes - b, from_budget=b))
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    mode = args.mode or ("balanced" if args.budget is not None else "size")
    kwargs = _target_args(args)
    sections = {}
    for item in args.section:
        pool, sep, section = item.partition("=")
        if not sep or not pool or not section:
            raise InvalidArgument(f"--section wants POOL=SECTION (e.g. arena=.dtcm), got {item!r}")
        sections[pool] = section
    p = plan(model, mode=mode, budget=args.budget, alignment=args.alignment,
             latency=args.latency, **kwargs)
    out = export_c(p, args.output, name=args.name, sections=sections)
    pools = ", ".join(f"{name} {size:,} B" for name, size in out.pool_bytes.items())
    held = f" in pool {p.state_pool!r}" if p.state_pool else ""
    state = f"; state {out.state_bytes:,} B (persistent{held})" if out.state_bytes else ""
    print(f"wrote {out.header} and {out.source}: pools {pools}{state}; constants {out.const_bytes:,} B; "
          f"entry point {out.name}_invoke")
    return 0


def _cmd_tflm(args: argparse.Namespace) -> int:
    return tflm_command.run(args, load_model(args.model))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arenaplan", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("plan", help="plan a model's arena and compare it with the bounds")
    p.add_argument("model", nargs="?", help=f"a .tflite file or a zoo model ({', '.join(zoo.names())})")
    p.add_argument("--mode", default="size", choices=MODES,
                   help="size: least scratch everywhere; speed: fastest variant everywhere; "
                        "balanced: fastest within --budget")
    p.add_argument("--budget", default=None, help="arena budget, e.g. 98304 or 96KiB")
    p.add_argument("--latency", default=None,
                   help="latency source: host, model:cortex-m4|cortex-m7|cortex-m55, or a CSV/JSON table")
    p.add_argument("--strategy", default="auto", choices=STRATEGIES)
    p.add_argument("--alignment", type=int, default=16, help="buffer alignment in bytes (default 16)")
    p.add_argument("--time-limit", type=float, default=None, help="seconds for the search strategies")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--map", action="store_true", help="also print the memory map: a line per op, "
                   "a letter per buffer")
    _add_target_args(p)
    p.set_defaults(func=_cmd_plan)
    t = sub.add_parser("tradeoffs", help="the Pareto frontier of arena bytes against latency")
    t.add_argument("models", nargs="*", help="one or more .tflite files or zoo models "
                   "(several share one arena)")
    t.add_argument("--latency", default=None,
                   help="host (default), model:cortex-m4|cortex-m7|cortex-m55, or a CSV/JSON table")
    t.add_argument("--budget", default=None, help="also show the best plan within this budget")
    t.add_argument("--alignment", type=int, default=16, help="buffer alignment in bytes (default 16)")
    t.add_argument("--plot", default=None, help="write a PNG of the frontier (needs matplotlib)")
    t.add_argument("--json", action="store_true", help="machine-readable output")
    _add_target_args(t)
    t.set_defaults(func=_cmd_tradeoffs)
    r = sub.add_parser("run", help="run a model's plan on the host (optionally checked against LiteRT)")
    r.add_argument("model", nargs="?", help=f"a .tflite file or a zoo model ({', '.join(zoo.names())})")
    r.add_argument("--input", action="append", default=[], metavar="FILE.npy",
                   help="an input array, one per model input in order (default: seeded random)")
    r.add_argument("--seed", type=int, default=0, help="seed of the generated inputs (default 0)")
    r.add_argument("--runs", type=int, default=1, help="runs in sequence (state carries over)")
    r.add_argument("--plan", default=None, metavar="PLAN.json", help="run this plan file")
    r.add_argument("--mode", default="size", choices=MODES)
    r.add_argument("--budget", default=None, help="arena budget, e.g. 96KiB (mode balanced)")
    r.add_argument("--latency", default=None, help="latency source for balanced/speed")
    r.add_argument("--alignment", type=int, default=16, help="buffer alignment in bytes (default 16)")
    r.add_argument("--check", action="store_true",
                   help="compare every run with LiteRT's reference kernels (exit 1 if any differs)")
    r.add_argument("--profile", type=int, default=0, metavar="REPEATS",
                   help="also time every op over REPEATS runs")
    r.add_argument("--output", default=None, help="save the last run's outputs (.npy, or .npz for several)")
    r.add_argument("--json", action="store_true", help="machine-readable output")
    _add_target_args(r)
    r.set_defaults(func=_cmd_run)
    e = sub.add_parser("export", help="write a plan as C (header + source) for a firmware build")
    e.add_argument("model", nargs="?", help=f"a .tflite file or a zoo model ({', '.join(zoo.names())})")
    e.add_argument("-o", "--output", required=True, help="directory for <name>.h and <name>.c")
    _add_target_args(e)
    e.add_argument("--budget", default=None, help="arena budget, e.g. 98304 or 96KiB "
                   "(without --mode: the fastest plan within it)")
    e.add_argument("--mode", default=None, choices=MODES,
                   help="size (default without --budget), speed or balanced")
    e.add_argument("--latency", default=None,
                   help="latency source for balanced/speed: host, model:TARGET, or a table")
    e.add_argument("--name", default=None, help="C prefix of the symbols (default: the model's name)")
    e.add_argument("--section", action="append", default=[], metavar="POOL=SECTION",
                   help="linker section of a pool's array, e.g. arena=.dtcm; state=SECTION places the "
                        "state pool of a model with variable tensors (repeatable)")
    e.add_argument("--alignment", type=int, default=16, help="buffer alignment in bytes (default 16)")
    e.set_defaults(func=_cmd_export)
    tflm_command.add_parser(sub)
    sub.choices["tflm"].set_defaults(func=_cmd_tflm)
    sweep_command.add_parser(sub)
    sub.choices["sweep"].set_defaults(func=sweep_command.run)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.func(args)
    except ArenaplanError as exc:
        print(f"arenaplan: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
