"""``arenaplan sweep MODEL...``: every model x target x budget x mode planned, serially, on
this machine's cores (--workers N) or on a Dask cluster (--scheduler ADDRESS)."""
from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import json
import sys

from tqdm import tqdm

from ..errors import InvalidArgument
from ..sweep import SWEEP_MODES, sweep

__all__ = ["add_parser", "run"]

#: Seconds to reach a Dask scheduler before the sweep is refused.
CONNECT_TIMEOUT_S = 10


def add_parser(sub) -> None:
    s = sub.add_parser("sweep", help="plan every model x target x budget x mode, on one core or many")
    s.add_argument("models", nargs="+", help=".tflite files or zoo models")
    s.add_argument("--targets", nargs="*", default=["none"],
                   help="target presets; 'none' for one arena without a target (default)")
    s.add_argument("--budgets", nargs="*", default=["none"], help="budgets (e.g. 64KiB), or 'none'")
    s.add_argument("--modes", nargs="*", default=["size"], choices=SWEEP_MODES)
    s.add_argument("--latency", default="model:cortex-m7",
                   help="latency source (default model:cortex-m7; a cost model or a table keeps the "
                        "records the same on any machine)")
    where = s.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, default=None, help="processes on this machine")
    where.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="a Dask scheduler (tcp://host:8786); needs dask.distributed")
    s.add_argument("-o", "--output", default=None, metavar="RESULTS.csv", help="write the records as CSV")
    s.add_argument("--json", action="store_true", help="print the records as JSON")


def _none(values):
    return [None if v.lower() == "none" else v for v in values]


@contextlib.contextmanager
def _executor(args):
    if args.workers is not None:
        if args.workers < 1:
            raise InvalidArgument(f"--workers must be at least 1, got {args.workers}")
        with concurrent.futures.ProcessPoolExecutor(args.workers) as pool:
            yield pool
    elif args.scheduler is not None:
        try:
            import distributed
        except ImportError:
            raise InvalidArgument("--scheduler needs dask.distributed: pip install 'dask[distributed]'") from None
        try:
            client = distributed.Client(args.scheduler, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError) as exc:
            raise InvalidArgument(f"cannot reach the Dask scheduler {args.scheduler!r} within "
                                  f"{CONNECT_TIMEOUT_S} s: {exc}") from None
        with client:
            yield client.get_executor()
    else:
        yield None


def run(args: argparse.Namespace) -> int:
    with _executor(args) as executor:
        bar = tqdm(total=0, unit="plan", disable=not sys.stderr.isatty(), file=sys.stderr)

        def tick(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)
        try:
            records = sweep(args.models, targets=_none(args.targets), budgets=_none(args.budgets),
                            modes=args.modes, latency=args.latency, executor=executor, progress=tick)
        finally:
            bar.close()
    if args.output:
        records.to_csv(args.output)
    if args.json:
        print(json.dumps([r.to_dict() for r in records]))
        return 0
    print(f"{'model':<38}{'target':<12}{'budget':>9}  {'mode':<9}{'arena B':>9}{'latency ms':>12}  error")
    for r in records:
        budget = "-" if r.budget is None else f"{r.budget:,}"
        arena = "-" if r.arena_bytes is None else f"{r.arena_bytes:,}"
        lat = "-" if r.latency_s is None else f"{r.latency_s * 1e3:.3f}"
        print(f"{r.model:<38}{r.target or '-':<12}{budget:>9}  {r.mode:<9}{arena:>9}{lat:>12}  "
              f"{(r.error or '')[:70]}")
    fitted = sum(r.error is None for r in records)
    print(f"{len(records)} combinations, {fitted} fit" + (f"; records in {args.output}" if args.output else ""))
    return 0
