"""Sweeps: every combination of models, targets, budgets and modes planned, on one core or
on many.

``sweep(models, targets=..., budgets=..., modes=..., latency=...)`` returns one record per
combination. It runs in this process by default and on any ``concurrent.futures.Executor``
otherwise: a ``ProcessPoolExecutor`` uses this machine's cores, a Dask cluster's
``Client(...).get_executor()`` many machines. A combination that does not fit is a record
with its error, not an aborted sweep. With a deterministic latency source (``model:...``
or a table) the records are the same whatever runs them wherever every placement ends at
its live-bytes bound (as the shared models' do) — a placement left to the search's clock
could differ from run to run.
"""
from __future__ import annotations

import concurrent.futures
import itertools
from dataclasses import asdict, dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Union

from .api import frontier, plan
from .errors import ArenaplanError, InvalidArgument
from .model.importers import load_tflite
from .model.model import Model
from .model import zoo
from .planning.modes import MODES
from .planning.targets import get as get_target
from .units import parse_bytes

__all__ = ["SWEEP_MODES", "SweepRecord", "SweepResult", "sweep"]

#: What a combination may ask for: a plan in one of the planning modes, or the frontier.
SWEEP_MODES = MODES + ("frontier",)

@dataclass(frozen=True)
class SweepRecord:
    """The outcome of one combination (``error`` set, figures None, when it does not fit)."""

    model: str
    target: Optional[str]
    budget: Optional[int]
    mode: str
    arena_bytes: Optional[int] = None
    pool_bytes: Optional[Dict[str, int]] = None
    state_bytes: Optional[int] = None
    latency_s: Optional[float] = None
    choices: Optional[List[Optional[str]]] = None
    #: (arena bytes, latency) of every frontier point (mode "frontier"), smallest first
    frontier: Optional[List[tuple]] = field(default=None)
    error: Optional[str] = None

    def to_dict(self) -> dict:
        return asdict(self)


class SweepResult(list):
    """The records of a sweep (a list), in the order of its combinations."""

    def to_frame(self):
        """The records as a pandas DataFrame (needs pandas)."""
        try:
            import pandas
        except ImportError:
            raise InvalidArgument("to_frame needs pandas: pip install pandas") from None
        return pandas.DataFrame([r.to_dict() for r in self])

    def to_csv(self, path) -> None:
        """The records as CSV, one row a combination (pool bytes and choices as JSON text)."""
        import csv
        import json
        names = list(SweepRecord.__dataclass_fields__)
        with open(path, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=names)
            w.writeheader()
            for r in self:
                d = r.to_dict()
                w.writerow({k: json.dumps(v) if isinstance(v, (dict, list, tuple)) else v
                            for k, v in d.items()})


@dataclass(frozen=True)
class _Job:
    """One combination, as a worker process receives it (a model by value or by path)."""

    model: Union[Model, str]
    target: Optional[str]
    budget: Optional[int]
    mode: str
    latency: object


def _model_of(spec: Union[Model, str]) -> Model:
    if isinstance(spec, Model):
        return spec
    if spec in zoo.names():
        return zoo.load(spec)
    return load_tflite(spec)


def _run_job(job: _Job) -> SweepRecord:
    """Plan one combination; errors of the library become the record's ``error``."""
    model = _model_of(job.model)
    head = dict(model=model.name, target=job.target, budget=job.budget, mode=job.mode)
    target = None if job.target is None else get_target(job.target)
    try:
        if job.mode == "frontier":
            f = frontier(model, latency=job.latency, target=target, time_limit_s=None)
            p = f.at(job.budget) if job.budget is not None else f.points[-1].plan
            points = [(pt.arena_bytes, pt.latency_s) for pt in f.points]
        else:
            p = plan(model, mode=job.mode, budget=job.budget, target=target,
                     latency=job.latency)
            points = None
        p.verify()
    except ArenaplanError as exc:
        return SweepRecord(**head, error=f"{type(exc).__name__}: {exc}")
    return SweepRecord(**head, arena_bytes=p.arena_bytes, pool_bytes=dict(p.pool_bytes),
                       state_bytes=p.state_bytes, latency_s=p.latency_s, choices=list(p.choices),
                       frontier=points)


def _budgets(budgets: Iterable) -> List[Optional[int]]:
    return [None if b is None else parse_bytes(b, "budget") for b in budgets]


def sweep(models: Sequence[Union[Model, str]], targets: Sequence[Optional[str]] = (None,),
          budgets: Sequence = (None,), modes: Sequence[str] = ("size",), latency="model:cortex-m7",
          executor: Optional[concurrent.futures.Executor] = None,
          progress: Optional[Callable[[int, int], None]] = None) -> SweepResult:
    """Plan every (model, target, budget, mode) combination.

    Args:
        models: ``ap.Model`` objects, zoo names or ``.tflite`` paths (paths travel to
            worker processes as text, and are loaded there).
        targets: target preset names, or None for one arena without a target.
        budgets: bytes (or "96KiB") or None; "size" ignores its budget unless a target's
            pools are the limit, "balanced" and "frontier" take the fastest plan within it.
        modes: "size", "speed", "balanced" and "frontier" (the record lists every point).
        latency: a latency source for the modes that need one (deterministic ones —
            ``model:...`` or a table — give the same records on any executor).
        executor: a ``concurrent.futures.Executor`` to run the combinations on (None: here).
        progress: ``progress(done, total)`` after each combination.

    Returns:
        SweepResult: one SweepRecord per combination, in the order of the product.
    """
    if not models:
        raise InvalidArgument("sweep needs at least one model")
    modes = list(modes)
    for m in modes:
        if m not in SWEEP_MODES:
            raise InvalidArgument(f"unknown sweep mode {m!r}; choose from {', '.join(SWEEP_MODES)}")
    for t in targets:
        if t is not None:
            get_target(t)          # an unknown target fails here, before any work
    jobs = [_Job(m, t, b, mode, latency)
            for m, t, b, mode in itertools.product(models, targets, _budgets(budgets), modes)]
    records: List[SweepRecord] = []
    if executor is None:
        for job in jobs:
            records.append(_run_job(job))
            if progress is not None:
                progress(len(records), len(jobs))
        return SweepResult(records)
    futures = [executor.submit(_run_job, job) for job in jobs]
    done = 0
    for fut in concurrent.futures.as_completed(futures):
        done += 1
        if progress is not None:
            progress(done, len(jobs))
    return SweepResult(f.result() for f in futures)
