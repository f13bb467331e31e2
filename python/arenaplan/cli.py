"""Command line: ``arenaplan plan [MODEL] [--strategy S] [--json]``.

MODEL is a ``.tflite`` file or the name of a built-in zoo model; without it the
built-in ``ds_cnn`` keyword-spotting model is used, so the tool shows its main
job at once.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import List, Optional

from . import zoo
from .buffers import STRATEGIES
from .errors import ArenaplanError
from .importers import load_tflite
from .model import Model
from .plan import MODES, plan

__all__ = ["main", "load_model"]


def load_model(spec: Optional[str]) -> Model:
    """A model from a path to a .tflite file or a zoo name (default: the zoo's default)."""
    if spec is None:
        return zoo.load()
    if spec in zoo.names() and not Path(spec).exists():
        return zoo.load(spec)
    return load_tflite(spec)


def _cmd_plan(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    p = plan(model, mode=args.mode, strategy=args.strategy, alignment=args.alignment,
             time_limit_s=args.time_limit, require_kernels=False)
    p.verify()
    if args.json:
        print(json.dumps(p.to_dict(), indent=2))
    else:
        print(p.summary())
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arenaplan", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("plan", help="plan a model's arena and compare it with the bounds")
    p.add_argument("model", nargs="?", help=f"a .tflite file or a zoo model ({', '.join(zoo.names())})")
    p.add_argument("--mode", default="size", choices=MODES,
                   help="size: least scratch everywhere; speed: fastest variant everywhere")
    p.add_argument("--strategy", default="auto", choices=STRATEGIES)
    p.add_argument("--alignment", type=int, default=16, help="buffer alignment in bytes (default 16)")
    p.add_argument("--time-limit", type=float, default=None, help="seconds for the search strategies")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_cmd_plan)
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
