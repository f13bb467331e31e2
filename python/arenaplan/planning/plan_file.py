"""Plan files: a plan as versioned JSON, and a loader that trusts nothing in it.

The file records the model's identity (name, sha256, where it came from), the target,
the mode, the variant of every op, every buffer's pool, offset, size and lifetime, the
bytes per pool, the state pool (each variable tensor's offset, size and reset byte) and
the predicted latency. Loading re-derives from the model everything
that is not a decision (which buffers exist, their sizes and lifetimes, the scratch each
chosen variant requests), checks the file against it field by field, then verifies the
placement independently. The figures a file states are re-derived from its buffers —
each pool's bytes, the arena, the live-bytes bound, TensorFlow Lite Micro's greedy figure
(one greedy run over the same buffers), the state pool's bytes, "optimal" where every pool
is at its bound — and a file whose figures disagree is refused. A plan for another model,
a corrupted or truncated file, a wrong schema version, a field of the wrong type, offsets
outside a pool or overlapping live buffers raise InvalidPlan naming what is wrong.

Schema versions: 2 adds the state pool (``state_bytes``, ``state_buffers``); 3 the target
pool that holds it (``state_pool``). A version 1 file, written before variable tensors had
a place, still loads: its state pool is the one the model implies (``state.state_layout``);
a version 1 or 2 file holds its state in no target pool.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, List, Mapping, Optional

import numpy as np

from ..errors import ArenaplanError, InvalidPlan
from ..model import zoo
from ..model.importers import load_tflite
from ..model.model import Model
from ..ops.lowering import HOST_ISA, ISA_CODES, REFERENCES, lower_model
from ..units import parse_bytes
from .buffers import STRATEGIES, lower_bound
from .lifetimes import activation_buffers
from .modes import MODES
from .pools import pools_at_bound
from .records import BufferRecord, tflm_greedy_bytes, unplaced_records, with_scratch
from .state import StateBuffer, state_extent, state_layout
from .targets import Target

__all__ = ["SCHEMA_VERSION", "plan_record", "plan_to_json", "plan_fields"]

FORMAT = "arenaplan-plan"
SCHEMA_VERSION = 4
#: Versions the loader reads (1: no state pool in the file; 2: no state_pool; 3: no isa and
#: reference, read as the host's ISA and "litert", the rounding of those files' kernels).
READABLE_VERSIONS = (1, 2, 3, 4)
_BUFFER_FIELDS = ("name", "kind", "op", "pool", "offset", "size", "first", "last", "tensors", "alignment")
_STATE_FIELDS = ("name", "tensor", "offset", "size", "alignment", "fill")


def plan_to_json(plan) -> str:
    """The plan file of ``plan`` (a planning.plan.Plan)."""
    return json.dumps(plan_record(plan), indent=1)


def plan_record(plan) -> dict:
    """What a plan file holds, as plain data: the one record of a plan's decisions and
    figures (``Plan.to_dict`` adds what is derived from it)."""
    target = plan.target.to_dict() if plan.target is not None else None
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "model": {"name": plan.model.name, "sha256": plan.model.digest, "source": plan.model.source},
        "target": target,
        "isa": plan.isa,
        "reference": plan.reference,
        "mode": plan.mode,
        "strategy": plan.strategy,
        "optimal": plan.optimal,
        "alignment": plan.alignment,
        "arena_bytes": plan.arena_bytes,
        "pool_bytes": plan.pool_bytes,
        "multi_pool": plan.pool_sizes is not None,
        "lower_bound_bytes": plan.lower_bound_bytes,
        "greedy_size_bytes": plan.greedy_size_bytes,
        "latency_s": plan.latency_s,
        "latency_source": plan.latency_source,
        "choices": list(plan.choices),
        "buffers": [{f: (list(b.tensors) if f == "tensors" else getattr(b, f)) for f in _BUFFER_FIELDS}
                    for b in plan.buffers],
        "state_bytes": plan.state_bytes,
        "state_buffers": [{f: getattr(b, f) for f in _STATE_FIELDS} for b in plan.state_buffers],
        "state_pool": plan.state_pool,
    }


def _field(data: Mapping, key: str, types, where: str = "plan") -> Any:
    if key not in data:
        raise InvalidPlan(f"{where}: field {key!r} is missing")
    value = data[key]
    if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        raise InvalidPlan(f"{where}: field {key!r} must be {_names(types)}, got {value!r}")
    if not isinstance(value, types):
        raise InvalidPlan(f"{where}: field {key!r} must be {_names(types)}, got {type(value).__name__}")
    return value


def _names(types) -> str:
    types = types if isinstance(types, tuple) else (types,)
    return " or ".join(t.__name__ for t in types)


def _model_for(meta: Mapping, model: Optional[Model]) -> Model:
    digest = _field(meta, "sha256", str, "model")
    name = _field(meta, "name", str, "model")
    source = meta.get("source")
    if source is not None and not isinstance(source, str):
        raise InvalidPlan(f"model: field 'source' must be str, got {type(source).__name__}")
    source = source or ""
    if model is None:
        try:
            if source.startswith("zoo:"):
                model = zoo.load(source[4:])
            elif source and Path(source).exists():
                model = load_tflite(source)
        except ArenaplanError as exc:
            raise InvalidPlan(f"cannot load the plan's model {source!r}: {exc}") from None
        if model is None:
            raise InvalidPlan(f"the plan is for model {name!r} from {source!r}, which cannot be "
                              "found: pass the model, Plan.from_json(text, model)")
    if model.digest != digest:
        raise InvalidPlan(f"the plan is for model {name!r} (sha256 {digest[:12]}…), not for "
                          f"{model.name!r} (sha256 {model.digest[:12]}…)")
    return model


def plan_fields(text: str, model: Optional[Model] = None) -> dict:
    """The fields of the Plan a plan file holds (``Plan(**fields)``), each checked
    against what the model implies; raises InvalidPlan naming the first that is wrong.
    The caller verifies the placement (``Plan.from_json`` does)."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise InvalidPlan(f"not a plan file: invalid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise InvalidPlan(f"not a plan file: expected a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise InvalidPlan(f"not a plan file: format is {data.get('format')!r}, expected {FORMAT!r}")
    version = data.get("schema_version")
    if isinstance(version, bool) or version not in READABLE_VERSIONS:
        raise InvalidPlan(f"plan schema version {version!r}; this arenaplan reads versions "
                          f"{', '.join(map(str, READABLE_VERSIONS))}")
    model = _model_for(_field(data, "model", dict), model)
    mode = _field(data, "mode", str)
    alignment = _field(data, "alignment", int)
    choices = _field(data, "choices", list)
    records = _field(data, "buffers", list)
    pool_bytes = _field(data, "pool_bytes", dict)
    multi = _field(data, "multi_pool", bool)
    target = None
    if data.get("target") is not None:
        try:
            target = Target.from_dict(_field(data, "target", dict))
        except (ArenaplanError, TypeError, ValueError) as exc:
            raise InvalidPlan(f"plan: field 'target': {exc}") from None
    if alignment < 1 or alignment & (alignment - 1):
        raise InvalidPlan(f"plan alignment {alignment} is not a power of two")
    for name, size in pool_bytes.items():
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise InvalidPlan(f"pool {name!r} size {size!r} must be a non-negative integer")
        if target is not None and name not in {p.name for p in target.pools}:
            raise InvalidPlan(f"pool {name!r} is not a pool of target {target.name!r}")

    isa, reference = HOST_ISA, "litert"
    if version >= 4:
        isa = _field(data, "isa", str)
        reference = _field(data, "reference", str)
        if isa not in ISA_CODES:
            raise InvalidPlan(f"the plan is for instruction set {isa!r}, which this build lacks; it has "
                              f"{', '.join(ISA_CODES)}")
        if reference not in REFERENCES:
            raise InvalidPlan(f"plan: field 'reference' is {reference!r}, not one of {', '.join(REFERENCES)}")
    try:
        alignment = parse_bytes(alignment, "alignment")
        kernels, unsupported = lower_model(model, False, isa, reference)
        acts = activation_buffers(model, alignment)
    except ArenaplanError as exc:
        raise InvalidPlan(f"plan alignment or model: {exc}") from None
    if len(choices) != len(model.operators):
        raise InvalidPlan(f"the plan has {len(choices)} choices for a model of {len(model.operators)} ops")
    chosen = []
    for k, (kernel, choice) in enumerate(zip(kernels, choices)):
        if kernel is None:
            if choice is not None:
                raise InvalidPlan(f"op {k} ({model.operators[k].type}) has no kernel, the plan chose {choice!r}")
            chosen.append(None)
            continue
        if not isinstance(choice, str):
            raise InvalidPlan(f"op {k} ({kernel.type}): choice {choice!r} is not a variant name")
        try:
            chosen.append(kernel.variant(choice))
        except ArenaplanError as exc:
            raise InvalidPlan(f"{exc} (the plan's instruction set is {isa}; this build's are "
                              f"{', '.join(ISA_CODES)})") from None
    # What the model and the choices imply; only pools and offsets come from the file.
    problem, scratch = with_scratch(acts, chosen, alignment)
    expected = unplaced_records(acts, scratch, problem)
    if len(records) != len(expected):
        raise InvalidPlan(f"the plan lists {len(records)} buffers; the model and its choices have "
                          f"{len(expected)}")
    buffers: List[BufferRecord] = []
    for i, (rec, want) in enumerate(zip(records, expected)):
        if not isinstance(rec, dict):
            raise InvalidPlan(f"buffer {i} is not an object")
        where = f"buffer {i} ({want.name!r})"
        for f in ("name", "kind", "op", "size", "first", "last", "alignment"):
            got = rec.get(f, "<missing>")
            if got != getattr(want, f) or isinstance(got, bool):
                raise InvalidPlan(f"{where}: {f} is {got!r}, the model gives {getattr(want, f)!r}")
        tensors = rec.get("tensors")
        if (not isinstance(tensors, list) or any(isinstance(t, bool) for t in tensors)
                or tuple(tensors) != want.tensors):
            raise InvalidPlan(f"{where}: tensors {tensors!r} differ from the model's {list(want.tensors)}")
        pool = _field(rec, "pool", str, where)
        offset = _field(rec, "offset", int, where)
        if pool not in pool_bytes:
            raise InvalidPlan(f"{where}: pool {pool!r} is not among the plan's pools {list(pool_bytes)}")
        if offset < 0 or offset + want.size > pool_bytes[pool]:
            raise InvalidPlan(f"{where}: [{offset}, {offset + want.size}) lies outside pool {pool!r} "
                              f"of {pool_bytes[pool]:,} bytes")
        buffers.append(want.placed(pool, offset))
    state, state_bytes = state_layout(model, alignment)
    if version >= 2:
        state, state_bytes = _state_from(data, state)
    # the state pool ends where its last buffer does, rounded up to its alignment (as every
    # pool does; the offsets are the file's decision); a buffer beyond state_bytes is the
    # verifier's "outside the state pool"
    outside = any(b.offset + b.size > state_bytes for b in state)
    state_bytes_expected = state_bytes if outside else state_extent(state)
    state_pool = None
    if version >= 3 and data.get("state_pool") is not None:
        state_pool = _field(data, "state_pool", str)
    arena = _field(data, "arena_bytes", int)
    latency = data.get("latency_s")
    if latency is not None and (not isinstance(latency, (int, float)) or isinstance(latency, bool)
                                or latency < 0):
        raise InvalidPlan(f"latency_s {latency!r} must be a non-negative number")
    if not multi and list(pool_bytes) != ["arena"]:
        raise InvalidPlan(f"a single-arena plan has pools {list(pool_bytes)}")
    if multi and (target is None or list(pool_bytes) != [p.name for p in target.pools]):
        raise InvalidPlan(f"a plan over a target's pools lists every pool of its target in order; "
                          f"it has {list(pool_bytes)}")
    latency_source = data.get("latency_source")
    if latency_source is not None and not isinstance(latency_source, str):
        raise InvalidPlan(f"plan: field 'latency_source' must be str or null, got {latency_source!r}")
    if latency is not None and not math.isfinite(latency):
        raise InvalidPlan(f"latency_s {latency!r} must be finite")
    if mode not in MODES:
        raise InvalidPlan(f"plan: field 'mode' is {mode!r}, not one of {', '.join(MODES)}")
    strategy = _field(data, "strategy", str)
    if strategy not in STRATEGIES:
        raise InvalidPlan(f"plan: field 'strategy' is {strategy!r}, not one of {', '.join(STRATEGIES)}")
    figures = _derived_figures(model, alignment, chosen, problem, buffers, pool_bytes, target, multi,
                               state_bytes_expected)
    if version < 2:
        del figures["state_bytes"]      # version 1 files hold no state figures: the model's apply
    stored = {key: _field(data, key, int) for key in figures if key != "optimal"}
    stored["arena_bytes"] = arena
    stored["optimal"] = _field(data, "optimal", bool)
    for key, value in figures.items():
        if key == "optimal":
            # a search may prove a plan above the bound optimal: only "at the bound" is derived
            if value and not stored[key]:
                raise InvalidPlan("plan: field 'optimal' is false, but every pool is at the live-bytes "
                                  "bound of its buffers")
            if multi and stored[key] != value:
                raise InvalidPlan(f"plan: field 'optimal' is {stored[key]}, its pools' bytes against "
                                  f"their buffers' bounds give {value}")
            continue
        if stored[key] != value:
            raise InvalidPlan(f"plan: field {key!r} is {stored[key]:,}, its buffers give {value:,}")
    return dict(model=model, buffers=buffers, arena_bytes=arena,
                lower_bound_bytes=figures["lower_bound_bytes"],
                greedy_size_bytes=figures["greedy_size_bytes"],
                strategy=strategy, optimal=stored["optimal"],
                alignment=alignment, mode=mode, choices=[None if v is None else v.name for v in chosen],
                variable_bytes=acts.variable_bytes, unsupported=list(unsupported),
                kernels=kernels, latency_s=latency, latency_source=latency_source,
                pool_sizes=dict(pool_bytes) if multi else None, target=target, isa=isa, reference=reference,
                state_buffers=state, state_bytes=state_bytes, state_pool=state_pool)


def _derived_figures(model: Model, alignment: int, chosen, problem, buffers: List[BufferRecord],
                     pool_bytes: Mapping, target, multi: bool, state_bytes: int) -> dict:
    """What a plan's figures must be, given its buffers: each pool's bytes (the end of its
    last buffer), the arena (their sum), the live-bytes bound, TensorFlow Lite Micro's
    greedy figure for the same buffers (one greedy run), the state pool's bytes, and
    whether every pool is at the bound of its buffers."""
    extent = {name: 0 for name in pool_bytes}
    for b in buffers:
        a = b.alignment
        extent[b.pool] = max(extent[b.pool], b.offset + -(-b.size // a) * a)
    for name, size in pool_bytes.items():
        if size != extent[name]:
            raise InvalidPlan(f"plan: field 'pool_bytes' gives pool {name!r} {size:,} bytes, its "
                              f"buffers end at {extent[name]:,}")
    bound = int(lower_bound(problem.sizes, problem.first, problem.last, problem.alignments))
    greedy = tflm_greedy_bytes(activation_buffers(model, alignment, fold_aliases=False), chosen, alignment)
    if multi:
        names = [p.name for p in target.pools]
        index = np.array([names.index(b.pool) for b in buffers], dtype=np.uint32)
        at_bound = pools_at_bound(problem, index, target.pools, [pool_bytes[n] for n in names])
    else:
        at_bound = extent["arena"] <= bound
    return {"arena_bytes": sum(extent.values()), "lower_bound_bytes": bound,
            "greedy_size_bytes": greedy, "state_bytes": state_bytes, "optimal": at_bound}


def _state_from(data: Mapping, expected: List[StateBuffer]) -> tuple:
    """The file's state pool: which tensors, their sizes, alignments and reset bytes must be
    what the model implies; offsets and the pool's size come from the file (plan.verify
    then checks them)."""
    state_bytes = _field(data, "state_bytes", int)
    records = _field(data, "state_buffers", list)
    if state_bytes < 0:
        raise InvalidPlan(f"state_bytes {state_bytes} must be >= 0")
    if len(records) != len(expected):
        raise InvalidPlan(f"the plan lists {len(records)} state buffers; the model has {len(expected)} "
                          "variable tensors")
    state: List[StateBuffer] = []
    for i, (rec, want) in enumerate(zip(records, expected)):
        if not isinstance(rec, dict):
            raise InvalidPlan(f"state buffer {i} is not an object")
        where = f"state buffer {i} ({want.name!r})"
        for f in ("name", "tensor", "size", "alignment", "fill"):
            got = rec.get(f, "<missing>")
            if got != getattr(want, f) or isinstance(got, bool):
                raise InvalidPlan(f"{where}: {f} is {got!r}, the model gives {getattr(want, f)!r}")
        offset = _field(rec, "offset", int, where)
        state.append(StateBuffer(want.name, want.tensor, offset, want.size, want.alignment, want.fill,
                                 want.initial))
    return state, state_bytes
