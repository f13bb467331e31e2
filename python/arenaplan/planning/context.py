"""What every plan of one model shares, and the choice of variants.

A ``PlanContext`` lowers the model once (kernels and their variants), lays out its
activation buffers and its state, and holds the op latencies it is given (numbers: the
latency layer measures or models them; ``ap.plan`` wires a source in). Frontier and
balanced searches then make many plans from it cheaply with ``make``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

from ..errors import InvalidArgument
from ..model.model import DTYPE_SIZES, Model
from ..ops.lowering import OpKernel, Variant, lower_model
from ..ops.ranking import fastest_variant
from ..units import parse_bytes
from .buffers import solve
from .lifetimes import ModelBuffers, activation_buffers
from .plan import Plan
from .pools import place_over_pools
from .records import live_per_op, scratch_footprint, tflm_greedy_bytes, unplaced_records, with_scratch
from .state import StateBuffer, choose_state_pool, reserve_bytes, state_layout
from .targets import isa_and_reference, resolve as resolve_target

__all__ = ["PlanContext", "least_scratch", "fastest"]


def least_scratch(kernels: List[Optional[OpKernel]],
                   times: Optional[List[Dict[str, float]]] = None) -> List[Optional[Variant]]:
    """Per op, the least scratch; among variants tied on it (``direct`` and ``gemm_1x1``
    both need none), the fastest: free speed at no memory cost."""
    chosen: List[Optional[Variant]] = []
    for i, k in enumerate(kernels):
        if k is None:
            chosen.append(None)
            continue
        least = min(v.scratch_bytes for v in k.variants)
        tied = [v for v in k.variants if v.scratch_bytes == least]
        chosen.append(min(tied, key=lambda v: times[i][v.name]) if times is not None
                      else fastest_variant(tied, k.type))
    return chosen


def fastest(kernels: List[Optional[OpKernel]], times: Optional[List[Dict[str, float]]]
             ) -> List[Optional[Variant]]:
    """Per op, the fastest variant by ``times`` (ties: less scratch), or by the static
    ranking (``ops.ranking``) without times."""
    if times is None:
        return [None if k is None else fastest_variant(k.variants, k.type) for k in kernels]
    return [None if k is None else min(k.variants, key=lambda v: (times[i][v.name], v.scratch_bytes))
            for i, k in enumerate(kernels)]


@dataclass
class PlanContext:
    """What every plan of one model shares: kernels, activation buffers, latencies.

    Building it lowers the model and measures (or models) latencies once; frontier
    and balanced searches then make many plans from it cheaply.
    """

    model: Model
    kernels: List[Optional[OpKernel]]
    unsupported: List[str]
    alignment: int
    acts: ModelBuffers
    acts_unfolded: ModelBuffers
    isa: str                                 # the instruction set of the kernels' variants
    reference: str                           # the rounding rule the kernels reproduce
    times: Optional[List[Dict[str, float]]] = None
    latency_name: Optional[str] = None
    target: Optional[object] = None          # a targets.Target: plan over its pools
    io_pool: Optional[str] = None            # the pool graph inputs and outputs must live in
    state: List[StateBuffer] = field(default_factory=list)   # the state pool's layout
    state_bytes: int = 0
    state_pool: Optional[str] = None         # the target pool that holds the state pool
    #: The target as the planner sees it: the pool that holds the state offers its capacity
    #: less the state's bytes, this model's or, with shared_state_bytes, every model's that
    #: shares the target (the target itself without state; None without a target).
    pool_target: Optional[object] = field(default=None, repr=False)
    _activation_live: Optional[List[int]] = field(default=None, repr=False)

    @classmethod
    def build(cls, model: Model, alignment: int = 16, require_kernels: bool = True,
              target=None, io_pool: Optional[str] = None, state_pool: Optional[str] = None,
              shared_state_bytes: int = 0, kernels: Optional[List[Optional[OpKernel]]] = None,
              unsupported: Sequence[str] = (), times: Optional[List[Dict[str, float]]] = None,
              latency_name: Optional[str] = None, isa: Optional[str] = None,
              reference: Optional[str] = None) -> "PlanContext":
        """The context of ``model``'s plans. ``isa`` and ``reference``: the instruction set
        and rounding rule, by ``ap.plan``'s rule when None (``targets.isa_and_reference``:
        the target's, else this host's best ISA and "litert"); ``kernels`` (with
        ``unsupported``): the ops' kernels if already lowered (``ops.lowering.lower_model``,
        of the same ISA and rule), else lowered here; ``times``: seconds per op and variant
        name (a latency source's ``op_times``), named ``latency_name``; None plans without
        latencies (static ranking)."""
        if not isinstance(model, Model):
            raise InvalidArgument(f"expected an arenaplan.Model, got {type(model).__name__}")
        alignment = parse_bytes(alignment, "alignment")
        _check_alignment(model, alignment)
        target = resolve_target(target)
        isa, reference = isa_and_reference(target, isa, reference)
        if io_pool is not None:
            if target is None:
                raise InvalidArgument("io_pool names a pool of a target; give target= too")
            kind = target.pool(io_pool).kind
            if kind != "workspace":
                usable = [q.name for q in target.pools if q.kind == "workspace"]
                raise InvalidArgument(
                    f"io_pool {io_pool!r} is a {kind} pool, which "
                    + ("takes only scratch buffers" if kind == "stack" else "holds only constants")
                    + f"; the model's inputs and outputs need a workspace pool of {target.name!r}: "
                    + ", ".join(usable))
        if kernels is None:
            kernels, unsupported = lower_model(model, require_kernels, isa, reference)
        else:
            other = sorted({k.isa for k in kernels if k is not None and k.isa != isa})
            if other:
                raise InvalidArgument(f"kernels lowered for {', '.join(other)} given to a {isa} "
                                      f"context; lower them for {isa} or pass isa={other[0]!r}")
        state, state_bytes = state_layout(model, alignment)
        if state_pool is not None and target is None:
            raise InvalidArgument("state_pool names a pool of a target; give target= too")
        reserved = state_bytes + int(shared_state_bytes)
        whose = model.name if not shared_state_bytes else f"{model.name} and the models sharing the target"
        held_in = None if target is None else choose_state_pool(target, reserved, state_pool, whose)
        pool_target = target
        if held_in is not None:
            pool = target.pool(held_in)
            pool_target = target.with_pool(held_in, capacity=pool.capacity - reserve_bytes(reserved, pool))
        return cls(model, list(kernels), list(unsupported), alignment, activation_buffers(model, alignment),
                   activation_buffers(model, alignment, fold_aliases=False), isa, reference, times,
                   latency_name, target, io_pool, state, state_bytes, held_in, pool_target)

    @property
    def capacity(self) -> Optional[int]:
        """Bytes the target's pools offer planned buffers, the state taken out (None
        without a target)."""
        return None if self.target is None else self.pool_target.capacity

    def latency_of(self, chosen: List[Optional[Variant]]) -> Optional[float]:
        if self.times is None:
            return None
        return float(sum(self.times[i][v.name] for i, v in enumerate(chosen) if v is not None))

    def activation_live(self) -> List[int]:
        """Aligned activation bytes live at each op (computed once: a frontier asks per budget)."""
        if self._activation_live is None:
            self._activation_live = live_per_op(
                len(self.model.operators),
                ((int(s), self.alignment, int(f), int(l_))
                 for s, f, l_ in zip(self.acts.sizes, self.acts.first, self.acts.last)))
        return list(self._activation_live)

    def scratch_need(self, v: Variant) -> int:
        """Arena bytes a variant's scratch takes at its op (each buffer aligned)."""
        return scratch_footprint(v, self.alignment)

    def make(self, chosen: List[Optional[Variant]], mode: str, strategy: str = "auto",
             time_limit_s: Optional[float] = None, seed: int = 0,
             with_greedy: bool = True) -> Plan:
        """Place activations and the chosen variants' scratch; returns the Plan."""
        problem, scratch = with_scratch(self.acts, chosen, self.alignment)
        if self.target is not None:
            result, pools, pool_sizes = place_over_pools(self, problem, scratch, strategy, time_limit_s, seed)
        else:
            result = solve(problem, strategy, time_limit_s, seed)
            pools, pool_sizes = ["arena"] * len(problem), None
        greedy_bytes = tflm_greedy_bytes(self.acts_unfolded, chosen, self.alignment) if with_greedy else 0
        records = [r.placed(pools[i], int(result.offsets[i]))
                   for i, r in enumerate(unplaced_records(self.acts, scratch, problem))]
        return Plan(model=self.model, buffers=records, arena_bytes=result.arena_bytes,
                    lower_bound_bytes=result.lower_bound_bytes, greedy_size_bytes=greedy_bytes,
                    strategy=result.strategy, optimal=result.optimal, alignment=self.alignment,
                    mode=mode, choices=[None if v is None else v.name for v in chosen],
                    variable_bytes=self.acts.variable_bytes, elapsed_s=result.elapsed_s,
                    unsupported=list(self.unsupported), kernels=self.kernels,
                    latency_s=self.latency_of(chosen), latency_source=self.latency_name,
                    pool_sizes=pool_sizes, target=self.target, state_buffers=list(self.state),
                    state_bytes=self.state_bytes, state_pool=self.state_pool, isa=self.isa,
                    reference=self.reference)


#: The alignment every plan needs at least: kernels keep int32 sums and tables in their scratch.
MIN_ALIGNMENT = 4


def _check_alignment(model: Model, alignment: int) -> None:
    """Refuse an alignment below what the kernels read: 4 bytes (their int32 scratch), and the
    widest element of the model's tensors that live in the arena (an int64 is read as one)."""
    wide = max(((DTYPE_SIZES.get(t.dtype, 1), t) for t in model.tensors if not t.is_constant),
               key=lambda e: e[0], default=(1, None))
    need = max(MIN_ALIGNMENT, wide[0])
    if alignment < need:
        why = (f"tensor {wide[1].index} is {wide[1].dtype}, read {wide[0]} bytes at a time" if wide[0] >= need
               else "kernels keep int32 values in their scratch")
        raise InvalidArgument(f"alignment {alignment} is below {need}, the least this model's kernels take "
                              f"({why})")
