"""Targets: a board's memory pools, fastest first, with their capacities and rules.

    t = ap.targets.get("cortex-m7")            # DTCM + SRAM + a bounded stack
    t = t.with_pool("stack", capacity=2048)    # linked libraries and ISRs use the rest
    t = t.with_pool("stack", capacity=0)       # no planned buffers on the stack at all
    t = ap.targets.load("board.toml")          # the layout kept beside the firmware

Pools are listed fastest first: a buffer goes to the earliest pool that allows it and
spills to the next when a pool is full. A stack pool only takes small scratch buffers
(at most ``stack_scratch_limit`` bytes each: short-lived, as stack frames are); a const
pool (flash) takes none. On a multi-core part every pool names the cores that reach it,
and ``target.for_core("cm4")`` keeps only those.
"""
from __future__ import annotations

import json
import dataclasses
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Tuple, Union

from ..errors import InvalidArgument
from ..ops.lowering import HOST_ISA, check_isa, check_reference
from ..units import parse_bytes

__all__ = ["Pool", "Target", "get", "names", "load", "isa_and_reference", "POOL_KINDS"]

POOL_KINDS = ("workspace", "stack", "const")
#: Larger than any memory a microcontroller-class planner should be asked to fill.
MAX_CAPACITY = 1 << 40


def _power_of_two(value: int, what: str) -> int:
    if value < 1 or value & (value - 1):
        raise InvalidArgument(f"{what} must be a power of two, got {value}")
    return value


@dataclass(frozen=True)
class Pool:
    """One memory pool of a target."""

    name: str
    capacity: int
    alignment: int = 16
    kind: str = "workspace"
    cores: Tuple[str, ...] = ()      # cores that can reach it; empty = every core
    section: Optional[str] = None    # linker section for exported arrays (e.g. ".dtcm")

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise InvalidArgument(f"pool name {self.name!r} must be an identifier (letters, digits, _)")
        capacity = parse_bytes(self.capacity, f"pool {self.name!r} capacity")
        if capacity > MAX_CAPACITY:
            raise InvalidArgument(f"pool {self.name!r} capacity {capacity:,} bytes is absurd "
                                  f"(more than {MAX_CAPACITY:,})")
        object.__setattr__(self, "capacity", capacity)
        object.__setattr__(self, "alignment",
                           _power_of_two(parse_bytes(self.alignment, "alignment"), f"pool {self.name!r} alignment"))
        if self.kind not in POOL_KINDS:
            raise InvalidArgument(f"pool {self.name!r} kind {self.kind!r}: choose one of {', '.join(POOL_KINDS)}")
        object.__setattr__(self, "cores", tuple(str(c) for c in self.cores))


@dataclass(frozen=True)
class Target:
    """A target: named pools (fastest first) and the rules for using them."""

    name: str
    pools: Tuple[Pool, ...]
    cores: Tuple[str, ...] = ("core0",)
    latency_profile: Optional[str] = None   # a CostModel profile name for this core
    stack_scratch_limit: int = 2048         # largest single scratch buffer the stack takes
    description: str = ""
    #: The instruction set of the kernels the target runs ("portable", "x86-avx2", "arm-dsp").
    isa: str = "portable"
    #: The rounding rule plans for it reproduce: "tflm" (TensorFlow Lite Micro) or "litert".
    reference: str = "tflm"

    def __post_init__(self) -> None:
        check_isa(self.isa, f"target {self.name!r}: isa")
        check_reference(self.reference)
        pools = tuple(self.pools)
        if not pools:
            raise InvalidArgument(f"target {self.name!r} has no pools")
        seen = set()
        for p in pools:
            if not isinstance(p, Pool):
                raise InvalidArgument(f"target {self.name!r}: pools must be Pool objects, got {p!r}")
            if p.name in seen:
                raise InvalidArgument(f"target {self.name!r} has two pools named {p.name!r}")
            seen.add(p.name)
            unknown = set(p.cores) - set(self.cores)
            if unknown:
                raise InvalidArgument(f"pool {p.name!r} names unknown core(s) {sorted(unknown)}; "
                                      f"the target's cores are {list(self.cores)}")
        if len(pools) > 32:
            raise InvalidArgument(f"target {self.name!r} has {len(pools)} pools; at most 32 are supported")
        object.__setattr__(self, "pools", pools)
        object.__setattr__(self, "stack_scratch_limit", parse_bytes(self.stack_scratch_limit,
                                                                    "stack_scratch_limit"))

    # --- queries ----------------------------------------------------------------
    def pool(self, name: str) -> Pool:
        for p in self.pools:
            if p.name == name:
                return p
        raise InvalidArgument(f"target {self.name!r} has no pool {name!r}; "
                              f"its pools are {', '.join(p.name for p in self.pools)}")

    @property
    def capacity(self) -> int:
        """Bytes of every pool that can hold planned buffers."""
        return sum(p.capacity for p in self.pools if p.kind != "const")

    # --- derived targets ----------------------------------------------------------
    def with_pool(self, name: str, **changes) -> "Target":
        """A copy with pool ``name`` changed (capacity="2KiB", alignment=..., section=...),
        or added at the end (slowest) when the target has no such pool."""
        fields = {f.name for f in dataclasses.fields(Pool)} - {"name"}
        unknown = sorted(set(changes) - fields)
        if unknown:
            raise InvalidArgument(f"with_pool({name!r}): unknown pool field(s) {', '.join(unknown)}; "
                                  f"a pool has {', '.join(sorted(fields))}")
        if any(p.name == name for p in self.pools):
            pools = tuple(replace(p, **changes) if p.name == name else p for p in self.pools)
        else:
            if "capacity" not in changes:
                raise InvalidArgument(f"a new pool {name!r} needs a capacity")
            pools = self.pools + (Pool(name, **changes),)
        return replace(self, pools=pools)

    def for_core(self, core: str) -> "Target":
        """The pools one core can reach."""
        if core not in self.cores:
            raise InvalidArgument(f"target {self.name!r} has no core {core!r}; its cores are {list(self.cores)}")
        pools = tuple(replace(p, cores=()) for p in self.pools if not p.cores or core in p.cores)
        return replace(self, name=f"{self.name}/{core}", pools=pools, cores=(core,))

    def to_dict(self) -> dict:
        d = asdict(self)
        d["pools"] = [asdict(p) for p in self.pools]
        return d

    @classmethod
    def from_dict(cls, data: Mapping) -> "Target":
        if not isinstance(data, Mapping):
            raise InvalidArgument(f"a target must be a mapping, got {type(data).__name__}")
        known = {"name", "pools", "cores", "latency_profile", "stack_scratch_limit", "description", "isa",
                 "reference"}
        unknown = set(data) - known
        if unknown:
            raise InvalidArgument(f"unknown target field(s) {sorted(unknown)}")
        pools = []
        raw_pools = data.get("pools") or []
        if not isinstance(raw_pools, (list, tuple)):
            raise InvalidArgument(f"a target's pools must be a list of pools, got {raw_pools!r}")
        for name in ("cores",):
            if name in data and not (isinstance(data[name], (list, tuple))
                                     and all(isinstance(c, str) for c in data[name])):
                raise InvalidArgument(f"a target's {name} must be a list of names, got {data[name]!r}")
        for i, p in enumerate(raw_pools):
            if not isinstance(p, Mapping):
                raise InvalidArgument(f"pool {i} must be a mapping, got {p!r}")
            fields = {"name", "capacity", "alignment", "kind", "cores", "section"}
            if set(p) - fields or not {"name", "capacity"} <= set(p):
                raise InvalidArgument(f"pool {i}: needs name and capacity; allowed fields {sorted(fields)}")
            cores = p.get("cores") or ()
            if not (isinstance(cores, (list, tuple)) and all(isinstance(c, str) for c in cores)):
                raise InvalidArgument(f"pool {i}: cores must be a list of names, got {cores!r}")
            pools.append(Pool(**dict(p, cores=tuple(cores))))
        kwargs = {k: data[k] for k in ("latency_profile", "stack_scratch_limit", "description", "isa", "reference")
                  if k in data}
        cores = tuple(data.get("cores") or sorted({c for p in pools for c in p.cores}) or ("core0",))
        return cls(name=str(data.get("name", "custom")), pools=tuple(pools), cores=cores, **kwargs)

    def summary(self) -> str:
        lines = [f"target {self.name}" + (f": {self.description}" if self.description else ""),
                 f"  isa {self.isa}, rounding as {self.reference}"]
        for p in self.pools:
            where = f" (cores {', '.join(p.cores)})" if p.cores else ""
            lines.append(f"  {p.name:<12} {p.kind:<9} {p.capacity:>12,} B  align {p.alignment}{where}")
        return "\n".join(lines)


_PRESETS: Dict[str, Target] = {
    "host": Target("host", (Pool("arena", 1 << 30, 64),), description="this machine: one large arena",
                   isa=HOST_ISA, reference="litert"),
    "cortex-m4": Target(
        "cortex-m4",
        (Pool("sram", "128KiB", 16), Pool("stack", "8KiB", 8, "stack")),
        latency_profile="cortex-m4",
        description="Cortex-M4 with 128 KiB SRAM (e.g. STM32F4 class) and an 8 KiB stack",
        isa="arm-dsp"),
    "cortex-m7": Target(
        "cortex-m7",
        (Pool("dtcm", "128KiB", 16, section=".dtcm"), Pool("sram", "384KiB", 32),
         Pool("stack", "8KiB", 8, "stack")),
        latency_profile="cortex-m7",
        description="Cortex-M7 with 128 KiB DTCM (single-cycle) and 384 KiB AXI SRAM (STM32F7/H7 class)",
        isa="arm-dsp"),
    "cortex-m33": Target(
        "cortex-m33",
        (Pool("sram", "256KiB", 16), Pool("stack", "8KiB", 8, "stack")),
        latency_profile="cortex-m4",
        description="Cortex-M33 with the DSP extension and 256 KiB SRAM (e.g. the MPS2 AN505 / "
                    "STM32U5 class); costed as a Cortex-M4 until it has a profile of its own",
        isa="arm-dsp"),
    # arm-mve (Helium) kernels do not exist yet: until they do, an M55 runs the portable ones.
    "cortex-m55": Target(
        "cortex-m55",
        (Pool("dtcm", "256KiB", 16, section=".dtcm"), Pool("sram", "1MiB", 32),
         Pool("stack", "8KiB", 8, "stack")),
        latency_profile="cortex-m55",
        description="Cortex-M55 with 256 KiB DTCM and 1 MiB SRAM (Corstone-300 class); portable "
                    "kernels until arm-mve exists",
        isa="portable"),
    "dual-m7-m4": Target(
        "dual-m7-m4",
        (Pool("m7_dtcm", "128KiB", 16, cores=("cm7",), section=".dtcm"),
         Pool("m4_sram", "128KiB", 16, cores=("cm4",), section=".sram2"),
         Pool("shared_sram", "256KiB", 32, cores=("cm7", "cm4"), section=".sram1"),
         Pool("stack", "8KiB", 8, "stack")),
        cores=("cm7", "cm4"), latency_profile="cortex-m7", isa="arm-dsp",
        description="two cores (M7 + M4, STM32H747 class): a pool each core reaches alone, "
                    "plus SRAM both reach; plan for one core with target.for_core('cm4')"),
}


def names() -> List[str]:
    """Names of the preset targets."""
    return list(_PRESETS)


def get(name: str) -> Target:
    """A preset target by name (see names())."""
    if isinstance(name, Target):
        return name
    if name not in _PRESETS:
        raise InvalidArgument(f"unknown target {name!r}; presets: {', '.join(_PRESETS)} "
                              "(or load one with ap.targets.load('board.toml'))")
    return _PRESETS[name]


def load(path: Union[str, Path]) -> Target:
    """A target from a TOML or JSON file: name, optional cores, and [[pools]] with
    name, capacity ("64KiB" or bytes), alignment, kind, cores, section."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise InvalidArgument(f"cannot read target file {str(p)!r}: {exc.strerror or exc}") from None
    if p.suffix.lower() == ".toml":
        try:
            import tomllib
        except ImportError:  # Python < 3.11
            import tomli as tomllib  # type: ignore[no-redef]
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InvalidArgument(f"{p.name}: not valid TOML ({exc})") from None
    else:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise InvalidArgument(f"{p.name}: not valid JSON ({exc})") from None
    return Target.from_dict(data)


def resolve(target: Union[None, str, Target, Mapping]) -> Optional[Target]:
    """A Target from a preset name, a file path, a mapping, or a Target."""
    if target is None or isinstance(target, Target):
        return target
    if isinstance(target, Mapping):
        return Target.from_dict(target)
    if isinstance(target, (str, Path)):
        s = str(target)
        if s in _PRESETS:
            return _PRESETS[s]
        if s.endswith((".toml", ".json")):
            return load(s)
        return get(s)
    raise InvalidArgument(f"target must be a name, a file, a mapping or a Target, got {type(target).__name__}")


def isa_and_reference(target, isa: Optional[str] = None, reference: Optional[str] = None) -> Tuple[str, str]:
    """The instruction set and rounding rule of a plan (the one defaulting rule, which
    ``ap.plan`` and ``PlanContext.build`` share): each as given (checked), else the target's,
    else (no target) this host's best ISA and "litert"."""
    t = resolve(target)
    isa = check_isa(isa) if isa is not None else (t.isa if t is not None else HOST_ISA)
    reference = check_reference(reference) if reference is not None else \
        (t.reference if t is not None else "litert")
    return isa, reference
