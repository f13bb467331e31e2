"""``plan()`` and ``frontier()``: a model, a target and a latency source wired into the
planning layer (which takes op latencies as numbers)."""
from __future__ import annotations

from typing import Optional, Sequence, Union

from .errors import InvalidArgument
from .latency.sources import resolve as resolve_latency
from .model.model import Model
from .ops.lowering import lower_model
from .planning.context import PlanContext, fastest, least_scratch
from .planning.plan import MODES, Plan
from .planning.state import state_layout
from .planning.targets import isa_and_reference
from .planning.tradeoffs import (Frontier, MultiPlan, balanced, does_not_fit, model_frontier,
                                 multi_frontier, weights_of)
from .units import parse_bytes

__all__ = ["plan", "frontier", "plan_many", "context"]


def context(model: Model, alignment: int = 16, latency=None, require_kernels: bool = True,
            target=None, io_pool: Optional[str] = None, state_pool: Optional[str] = None,
            shared_state_bytes: int = 0, isa: Optional[str] = None,
            reference: Optional[str] = None) -> PlanContext:
    """The PlanContext of ``model`` with ``isa``'s variants (default: the target's ISA, or
    the host's best), the rounding rule ``reference`` (default: the target's, or "litert")
    and the op times of the latency source ``latency`` ("host", "model:<profile>", a table or
    a LatencySource; None: no times)."""
    if not isinstance(model, Model):
        raise InvalidArgument(f"expected an arenaplan.Model, got {type(model).__name__}")
    isa, reference = isa_and_reference(target, isa, reference)
    kernels, unsupported = lower_model(model, require_kernels, isa, reference)
    source = resolve_latency(latency)
    times = source.op_times(model, kernels) if source is not None else None
    return PlanContext.build(model, alignment, require_kernels, target, io_pool, state_pool,
                             shared_state_bytes, kernels=kernels, unsupported=unsupported,
                             times=times, latency_name=None if source is None else source.name,
                             isa=isa, reference=reference)


def plan(model: Model, mode: str = "size", strategy: str = "auto", alignment: int = 16,
         time_limit_s: Optional[float] = None, seed: int = 0, require_kernels: bool = True,
         budget=None, latency=None, target=None, io_pool: Optional[str] = None,
         state_pool: Optional[str] = None, isa: Optional[str] = None,
         reference: Optional[str] = None) -> Plan:
    """Plan the arena of ``model``: a variant per op and an offset per buffer.

    Args:
        model: an ``ap.Model`` (``ap.load_tflite``, ``ap.zoo.load``, or built by hand).
        mode: "size" (the least scratch everywhere: the smallest arena; among variants
            tied on scratch, the fastest), "speed" (the
            fastest variant everywhere) or "balanced" (the fastest plan within ``budget``).
        budget: bytes (or "96KiB"); required for "balanced"; with "speed" the plan must fit
            it or PlanDoesNotFit names the ops whose scratch does not fit.
        latency: "host", "model:<profile>", a latency table, or a LatencySource. Without
            one, "speed" uses a static ranking of variants and ``latency_s`` is None.
        strategy: the buffer placement strategy (see ``arenaplan.STRATEGIES``).
        alignment: byte alignment of every buffer (a power of two; TFLM uses 16).
        time_limit_s, seed: passed to the search strategies.
        require_kernels: raise UnsupportedModel (naming the op) if an op has no kernel;
            with False such ops are planned for memory only and listed in ``unsupported``.
        target: a Target (or preset name / file): buffers go to its pools, fastest first,
            each pool under its capacity; the pools' capacities are then the budget.
        io_pool: with a target, the pool the model's inputs and outputs must live in.
        state_pool: with a target, the pool whose memory holds the variable tensors
            (default: the fastest workspace pool with room); its capacity counts them.
        isa: the instruction set whose kernels' variants (and scratch) the plan uses:
            "portable", "x86-avx2", "arm-dsp"; default the target's, or this host's best.
        reference: the rounding rule, "tflm" (TensorFlow Lite Micro: fixed point; the
            default for Cortex-M targets) or "litert" (LiteRT's reference kernels; the
            default on the host and without a target).
    """
    if isinstance(model, (list, tuple)):
        return plan_many(model, budget=budget, latency=latency, alignment=alignment)
    if mode not in MODES:
        raise InvalidArgument(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    if mode == "balanced" and budget is None and target is None:
        raise InvalidArgument("mode 'balanced' needs a budget (bytes, or a string like '96KiB') "
                              "or a target")
    limit = None if budget is None else parse_bytes(budget, "budget")
    if mode == "balanced" and latency is None:
        latency = "host"
    ctx = context(model, alignment, latency, require_kernels, target, io_pool, state_pool,
                  isa=isa, reference=reference)
    if limit is None and ctx.target is not None:
        limit = ctx.capacity
    if mode == "balanced":
        return balanced(ctx, limit, strategy=strategy, time_limit_s=time_limit_s, seed=seed)
    chosen = least_scratch(ctx.kernels, ctx.times) if mode == "size" else fastest(ctx.kernels, ctx.times)
    p = ctx.make(chosen, mode, strategy, time_limit_s, seed)
    if limit is not None and p.arena_bytes > limit:
        raise does_not_fit(ctx, p, limit)
    return p


def frontier(model: Union[Model, Sequence[Model]], latency="host", alignment: int = 16,
             strategy: str = "auto", time_limit_s: Optional[float] = 0.05,
             weights: Optional[Sequence[float]] = None, target=None,
             io_pool: Optional[str] = None, state_pool: Optional[str] = None,
             isa: Optional[str] = None, reference: Optional[str] = None) -> Frontier:
    """Every Pareto-optimal (arena bytes, latency) plan, from the size plan to the speed plan.

    ``model`` may be a list: models that run one at a time in one arena; the arena is the
    max over them and the latency the (weighted) sum. With a ``target`` the plans spread
    over its pools (bytes = the sum over pools) and the frontier stops where they no
    longer fit; the model's state (variable tensors) takes its bytes out of ``state_pool``
    first (default: the fastest workspace pool with room).
    """
    if latency is None:
        raise InvalidArgument("a frontier needs a latency source (latency='host', "
                              "'model:<profile>' or a table)")
    if isinstance(model, (list, tuple)):
        if not model:
            raise InvalidArgument("frontier() needs at least one model")
        w = weights_of(model, weights)
        # every model keeps its state while the others run: each plan leaves room for all of it
        states = [state_layout(m, alignment)[1] if isinstance(m, Model) else 0 for m in model]
        fronts = [model_frontier(context(m, alignment, latency, target=target, io_pool=io_pool,
                                         state_pool=state_pool, shared_state_bytes=sum(states) - own,
                                         isa=isa, reference=reference),
                                 strategy, time_limit_s)
                  for m, own in zip(model, states)]
        return multi_frontier(fronts, w)
    ctx = context(model, alignment, latency, target=target, io_pool=io_pool, state_pool=state_pool,
                  isa=isa, reference=reference)
    return model_frontier(ctx, strategy, time_limit_s)


def plan_many(models: Sequence[Model], budget=None, latency="host", alignment: int = 16,
              weights: Optional[Sequence[float]] = None) -> MultiPlan:
    """Plans for models sharing one arena: the lowest (weighted) total latency within
    ``budget`` (or the speed plans when no budget is given)."""
    if budget is None:
        return multi_frontier([frontier(m, latency, alignment) for m in models],
                              weights_of(models, weights)).points[-1].plan
    return frontier(list(models), latency, alignment, weights=weights).at(budget)
