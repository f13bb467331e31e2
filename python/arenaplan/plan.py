"""Plans for a model: which kernel variant each op runs and where every buffer lives.

``plan(model, mode=...)`` lowers the model's ops to kernels, chooses one variant
per op (``size``: the least scratch everywhere; ``speed``: the fastest
everywhere), turns activations and the chosen variants' scratch requests into
buffers with lifetimes, places them with the C planner, and returns a ``Plan``
with the offsets, the arena size, the live-bytes lower bound and, for
comparison, what TensorFlow Lite Micro's greedy planner would need for the same
buffers. ``Plan.verify()`` re-checks the placement tensor by tensor,
independently of the planner that made it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from .buffers import OVERLAP_ALIAS, BufferProblem, solve, verify_offsets
from .errors import InvalidArgument, InvalidPlan, UnsupportedModel
from .lifetimes import ModelBuffers, activation_buffers, tensor_lifetimes
from .lowering import OpKernel, Variant, lower_op
from .model import Model
from .state import StateBuffer, choose_state_pool, reserve_bytes, state_layout, verify_state
from .units import format_bytes, parse_bytes

__all__ = ["MODES", "BufferRecord", "Plan", "plan", "fastest_variant"]

MODES = ("size", "speed", "balanced")


@dataclass(frozen=True)
class BufferRecord:
    """One placed buffer of a model plan."""

    name: str
    kind: str                 # "activation" or "scratch"
    op: Optional[int]         # the op that owns a scratch buffer; None for activations
    pool: str
    offset: int
    size: int
    first: int
    last: int
    tensors: Tuple[int, ...]  # tensors stored here (several when aliases were folded)
    alignment: int = 16


#: Scratch up to which a variant's buffer stays cache-resident on the hosts measured so far.
FAST_SCRATCH_BYTES = 16 * 1024


def live_per_op(op_count: int, buffers) -> List[int]:
    """Aligned bytes live at each op, from (size, alignment, first, last) rows."""
    live = [0] * op_count
    for size, alignment, first, last in buffers:
        aligned = -(-size // alignment) * alignment
        for k in range(first, last + 1):
            live[k] += aligned
    return live


#: Ops whose scratch buys no time: SVDF's ``direct`` runs within 5 % of ``fused`` on every
#: shape of benchmarks/bench_lstm.py, AVX2 and portable, and executes the same instructions
#: on a Cortex-M within 0.2 % (calibrate_cortex_m.py).
SCRATCH_BUYS_NOTHING = frozenset({"SVDF"})


def fastest_variant(variants: List[Variant], op_type: Optional[str] = None) -> Variant:
    """The variant expected to be fastest without a latency measurement.

    The least scratch for ops in ``SCRATCH_BUYS_NOTHING``. Otherwise a GEMM on the input
    itself (``gemm_1x1``) where it applies; else, among the variants that use scratch,
    the one with the most scratch that still fits ``FAST_SCRATCH_BYTES`` (measured on x86
    AVX2: a whole-image im2col is never faster than a 48-row block, and a depthwise row
    buffer that leaves L1 slows down), else the smallest of them; ``direct`` when no
    other variant applies.
    """
    if op_type in SCRATCH_BUYS_NOTHING:
        return min(variants, key=lambda v: v.scratch_bytes)
    names = [v.name for v in variants]
    if "gemm_1x1" in names:
        return variants[names.index("gemm_1x1")]
    buffered = [v for v in variants if v.scratch]
    if not buffered:
        return variants[0]
    fitting = [v for v in buffered if v.scratch_bytes <= FAST_SCRATCH_BYTES]
    return fitting[-1] if fitting else buffered[0]


@dataclass
class Plan:
    """A placement of a model's buffers in an arena, with the figures to judge it."""

    model: Model
    buffers: List[BufferRecord]
    arena_bytes: int
    lower_bound_bytes: int
    greedy_size_bytes: int     # TFLite Micro's GreedyMemoryPlanner on the same buffers
    strategy: str
    optimal: bool
    alignment: int
    mode: str = "size"
    choices: List[Optional[str]] = field(default_factory=list)   # variant per op
    variable_bytes: int = 0
    elapsed_s: float = 0.0
    unsupported: List[str] = field(default_factory=list)         # ops without a kernel
    kernels: Optional[List[Optional[OpKernel]]] = field(default=None, repr=False)
    latency_s: Optional[float] = None          # predicted by the latency source, if any
    latency_source: Optional[str] = None
    pool_sizes: Optional[Dict[str, int]] = None   # bytes per pool when planned over a target
    target: Optional[object] = field(default=None, repr=False)   # the Target, if any
    #: Variable tensors in the state pool: persistent, outside the planned pools (see state.py).
    state_buffers: List[StateBuffer] = field(default_factory=list)
    state_bytes: int = 0
    #: On a target, the pool whose memory holds the state pool (its capacity counts it).
    state_pool: Optional[str] = None

    # --- views ----------------------------------------------------------------
    @property
    def pool_bytes(self) -> Dict[str, int]:
        """Bytes used in each pool, in the target's order (one "arena" without a target)."""
        return dict(self.pool_sizes) if self.pool_sizes is not None else {"arena": self.arena_bytes}

    @property
    def ram_bytes(self) -> int:
        """RAM the model needs: every planned pool plus the state pool."""
        return int(self.arena_bytes) + int(self.state_bytes)

    @property
    def tensor_places(self) -> Dict[int, Tuple[str, int]]:
        """(pool, offset) of every activation tensor, by tensor index."""
        return {t: (b.pool, b.offset) for b in self.buffers for t in b.tensors}

    @property
    def scratch_bytes(self) -> int:
        return sum(b.size for b in self.buffers if b.kind == "scratch")

    @property
    def tensor_offsets(self) -> Dict[int, int]:
        """Arena offset of every activation tensor, by tensor index."""
        return {t: b.offset for b in self.buffers for t in b.tensors}

    @property
    def runnable(self) -> bool:
        return not self.unsupported

    def live_bytes(self) -> List[int]:
        """Aligned bytes live at each op (the lower bound is the max of these)."""
        return live_per_op(len(self.model.operators),
                           ((b.size, b.alignment, b.first, b.last) for b in self.buffers))

    # --- checks ---------------------------------------------------------------
    def verify(self) -> bool:
        """Independent check, tensor by tensor: alignment, no two live tensors or
        scratch buffers sharing a byte unless declared aliases, scratch at least as
        large as each chosen variant requests, the arena extent. Raises InvalidPlan."""
        lifetimes = tensor_lifetimes(self.model)
        offsets = self.tensor_offsets
        missing = [t for t in lifetimes if t not in offsets]
        if missing:
            t = missing[0]
            raise InvalidPlan(f"tensor {t} ({self.model.tensors[t].name!r}) has no place in the plan")
        order = sorted(lifetimes)
        index = {t: i for i, t in enumerate(order)}
        align_of = {t: b.alignment for b in self.buffers for t in b.tensors}
        sizes = [self.model.tensors[t].nbytes for t in order]
        first = [lifetimes[t][0] for t in order]
        last = [lifetimes[t][1] for t in order]
        aligns = [align_of[t] for t in order]
        offs = [offsets[t] for t in order]
        scratch = [b for b in self.buffers if b.kind == "scratch"]
        for b in scratch:
            if b.first != b.op or b.last != b.op:
                raise InvalidPlan(f"scratch buffer {b.name!r} lives [{b.first}, {b.last}], "
                                  f"not only at its op {b.op}")
            sizes.append(b.size)
            first.append(b.first)
            last.append(b.last)
            aligns.append(b.alignment)
            offs.append(b.offset)
        self._verify_scratch_requests(scratch)
        pool_of = {t: b.pool for b in self.buffers for t in b.tensors}
        pools = [pool_of[t] for t in order] + [b.pool for b in scratch]
        unknown = sorted(set(pools) - set(self.pool_bytes))
        if unknown:
            raise InvalidPlan(f"buffers name pool(s) {unknown} that the plan does not have "
                              f"(its pools: {', '.join(self.pool_bytes)})")
        alias = {(index[x], index[y]) for b in self.buffers for x in b.tensors for y in b.tensors if x < y}
        for pool, capacity in self.pool_bytes.items():
            members = [i for i, p in enumerate(pools) if p == pool]
            local = {i: j for j, i in enumerate(members)}
            problem = BufferProblem.build([sizes[i] for i in members], [first[i] for i in members],
                                          [last[i] for i in members], [aligns[i] for i in members]
                                          ) if members else None
            if problem is None:
                continue
            overlaps = [(local[x], local[y], OVERLAP_ALIAS, 0) for x, y in alias
                        if x in local and y in local]
            extent = verify_offsets(problem, [offs[i] for i in members], overlaps=overlaps)
            if extent > capacity:
                raise InvalidPlan(f"pool {pool!r}: buffers extend to {extent:,} bytes, the plan "
                                  f"gives the pool {capacity:,}")
        if any(pool_of[x] != pool_of[y] for b in self.buffers for x in b.tensors for y in b.tensors):
            raise InvalidPlan("aliased tensors are placed in different pools")
        if self.pool_sizes is None:
            extent = max((offs[i] + -(-sizes[i] // aligns[i]) * aligns[i] for i in range(len(sizes))),
                         default=0)
            if extent != self.arena_bytes:
                raise InvalidPlan(f"plan claims an arena of {self.arena_bytes} bytes; "
                                  f"its buffers extend to {extent}")
        elif self.arena_bytes != sum(self.pool_sizes.values()):
            raise InvalidPlan(f"plan claims {self.arena_bytes} bytes in all, its pools hold "
                              f"{sum(self.pool_sizes.values())}")
        verify_state(self.model, self.state_buffers, self.state_bytes)
        self._verify_capacities()
        return True

    def _state_bytes_in(self, pool) -> int:
        """Bytes the state pool takes out of target pool ``pool`` (0 unless it holds it)."""
        return reserve_bytes(self.state_bytes, pool) if pool.name == self.state_pool else 0

    def _verify_capacities(self) -> None:
        """On a target: every pool, with the state pool in the pool that holds it, within
        its capacity."""
        if self.target is None or self.pool_sizes is None:
            if self.state_pool is not None:
                raise InvalidPlan(f"the plan puts its state in pool {self.state_pool!r} but has no target")
            return
        pools = {p.name: p for p in self.target.pools}
        if self.state_pool is not None and self.state_pool not in pools:
            raise InvalidPlan(f"state pool {self.state_pool!r} is not a pool of target {self.target.name!r}")
        for name, used in self.pool_sizes.items():
            pool = pools.get(name)
            if pool is None:
                raise InvalidPlan(f"pool {name!r} is not a pool of target {self.target.name!r}")
            state = self._state_bytes_in(pool)
            if used + state > pool.capacity:
                held = f" and the state's {state:,}" if state else ""
                raise InvalidPlan(f"pool {name!r} holds {used:,} planned bytes{held}: "
                                  f"{used + state - pool.capacity:,} more than its capacity of "
                                  f"{pool.capacity:,}")

    def _verify_scratch_requests(self, scratch: List[BufferRecord]) -> None:
        if self.kernels is None:
            return
        for k, (kernel, choice) in enumerate(zip(self.kernels, self.choices)):
            if kernel is None or choice is None:
                continue
            want = kernel.variant(choice).scratch
            have = sorted((b for b in scratch if b.op == k), key=lambda b: b.name)
            if len(have) != len(want):
                raise InvalidPlan(f"op {k} ({kernel.type}) variant {choice} requests {len(want)} "
                                  f"scratch buffers; the plan has {len(have)}")
            for (bytes_, align), b in zip(want, have):
                if b.size < bytes_ or b.offset % align:
                    raise InvalidPlan(f"op {k} ({kernel.type}) scratch {b.name!r}: {b.size} bytes at "
                                      f"offset {b.offset}, the variant requests {bytes_} aligned to {align}")

    # --- display --------------------------------------------------------------
    def summary(self) -> str:
        """A readable table: ops with variants and live bytes, then the arena against the bounds."""
        m = self.model
        live = self.live_bytes()
        peak = max(live) if live else 0
        lines = [f"{m.name}: {len(m.operators)} ops, {len(self.buffers)} buffers, mode {self.mode}, "
                 f"strategy {self.strategy}{' (proven optimal)' if self.optimal else ''}",
                 f"{'op':>4}  {'type':<22}{'output shape':<18}{'variant':<18}{'scratch':>9}{'live bytes':>12}"]
        for op in m.operators:
            shape = "x".join(str(d) for d in m.tensors[op.outputs[0]].shape) if op.outputs else ""
            scratch = sum(b.size for b in self.buffers if b.kind == "scratch" and b.op == op.index)
            choice = (self.choices[op.index] if self.choices else None) or "-"
            mark = "  <- peak" if live[op.index] == peak else ""
            lines.append(f"{op.index:>4}  {op.type[:21]:<22}{shape:<18}{choice:<18}{scratch:>9,}"
                         f"{live[op.index]:>12,}{mark}")
        lines += [
            "",
            f"arena              {self.arena_bytes:>10,} B  ({format_bytes(self.arena_bytes)})",
            f"lower bound        {self.lower_bound_bytes:>10,} B  (bytes live at the busiest op)",
            f"TFLM greedy        {self.greedy_size_bytes:>10,} B  ({self._saving_vs_greedy()})",
        ]
        if self.scratch_bytes:
            lines.append(f"scratch            {self.scratch_bytes:>10,} B  (sum of the chosen variants' requests)")
        if self.state_buffers:
            held = f"in pool {self.state_pool!r}" if self.state_pool else "outside the arena"
            lines.append(f"state              {self.state_bytes:>10,} B  ({len(self.state_buffers)} variable "
                         f"tensors, {self.variable_bytes:,} B: persistent, {held})")
        lines += self._pool_lines()
        for reason in self.unsupported:
            lines.append(f"no kernel: {reason}")
        return "\n".join(lines)

    def memory_map_svg(self, width: int = 720, panel_height: int = 220) -> str:
        """An SVG drawing of the plan: per pool, every buffer as the box its lifetime (ops,
        across) and its bytes (upward) span, with a tooltip each. See memory_map.py."""
        from .memory_map import memory_map_svg
        return memory_map_svg(self, width, panel_height)

    def memory_map_text(self, columns: int = 64) -> str:
        """The plan as text, one line per op and pool (a letter per buffer, '.' free)."""
        from .memory_map import memory_map_text
        return memory_map_text(self, columns)

    def _repr_html_(self) -> str:
        """In a notebook: the summary's figures and the memory map."""
        import html
        head = (f"<b>{html.escape(self.model.name)}</b>: arena {self.arena_bytes:,} B, lower bound "
                f"{self.lower_bound_bytes:,} B, TFLM greedy {self.greedy_size_bytes:,} B"
                + (f", state {self.state_bytes:,} B" if self.state_bytes else "")
                + f" (mode {html.escape(self.mode)}, strategy {html.escape(self.strategy)})")
        return f"<div>{head}<br/>{self.memory_map_svg()}</div>"

    def _pool_lines(self) -> List[str]:
        """One line per target pool: planned bytes, the state if it holds it, capacity."""
        if self.target is None or self.pool_sizes is None:
            return []
        lines = [f"target {self.target.name}:"]
        for pool in self.target.pools:
            used = self.pool_sizes.get(pool.name, 0)
            state = self._state_bytes_in(pool)
            extra = f" + state {state:,} B" if state else ""
            lines.append(f"  {pool.name:<16} {used:>10,} B{extra} of {pool.capacity:,} B ({pool.kind})")
        return lines

    def _saving_vs_greedy(self) -> str:
        if self.greedy_size_bytes == 0:
            return "same"
        saved = self.greedy_size_bytes - self.arena_bytes
        return f"arenaplan saves {saved:,} B, {100.0 * saved / self.greedy_size_bytes:.1f} %"

    def to_dict(self) -> dict:
        """Plain data (for --json output)."""
        return {
            "model": self.model.name, "model_sha256": self.model.digest, "mode": self.mode,
            "strategy": self.strategy, "optimal": self.optimal, "alignment": self.alignment,
            "arena_bytes": self.arena_bytes, "lower_bound_bytes": self.lower_bound_bytes,
            "greedy_size_bytes": self.greedy_size_bytes, "variable_bytes": self.variable_bytes,
            "state_bytes": self.state_bytes, "state_pool": self.state_pool, "ram_bytes": self.ram_bytes,
            "state_buffers": [dict(b.__dict__) for b in self.state_buffers],
            "target": None if self.target is None else self.target.name,
            "scratch_bytes": self.scratch_bytes, "live_bytes": self.live_bytes(),
            "choices": list(self.choices), "unsupported": list(self.unsupported),
            "pool_bytes": self.pool_bytes, "latency_s": self.latency_s,
            "latency_source": self.latency_source,
            "ops": [{"index": op.index, "type": op.type} for op in self.model.operators],
            "buffers": [dict(b.__dict__, tensors=list(b.tensors)) for b in self.buffers],
        }

    def to_json(self) -> str:
        """The plan as versioned JSON (see plan_io): reload with ``Plan.from_json``."""
        from .plan_io import plan_to_json
        return plan_to_json(self)

    @classmethod
    def from_json(cls, text: str, model: Optional[Model] = None) -> "Plan":
        """Load and validate a plan; ``model`` defaults to the one the file names (a zoo
        model or a .tflite path). Raises InvalidPlan for a corrupted plan or another model's."""
        from .plan_io import plan_from_json
        return plan_from_json(text, model)

    def __repr__(self) -> str:
        return (f"Plan({self.model.name!r}, mode={self.mode!r}, arena={self.arena_bytes}, "
                f"lower_bound={self.lower_bound_bytes}, strategy={self.strategy!r}, "
                f"optimal={self.optimal})")

    def export_c(self, out_dir, name: Optional[str] = None,
                 sections: Optional[Dict[str, str]] = None):
        """Write ``<name>.h`` and ``<name>.c`` for a firmware build (see ``arenaplan.export``);
        returns an ``ExportedC`` with the paths and sizes."""
        from .export import export_c
        return export_c(self, out_dir, name=name, sections=sections)


def _kernels(model: Model, require_kernels: bool) -> Tuple[List[Optional[OpKernel]], List[str]]:
    kernels: List[Optional[OpKernel]] = []
    unsupported: List[str] = []
    for op in model.operators:
        try:
            kernels.append(lower_op(model, op))
        except UnsupportedModel as exc:
            if require_kernels:
                raise
            kernels.append(None)
            unsupported.append(str(exc))
    return kernels, unsupported


def _least_scratch(kernels: List[Optional[OpKernel]],
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


def _fastest(kernels: List[Optional[OpKernel]], times: Optional[List[Dict[str, float]]]
             ) -> List[Optional[Variant]]:
    if times is None:
        return [None if k is None else fastest_variant(k.variants, k.type) for k in kernels]
    return [None if k is None else min(k.variants, key=lambda v: (times[i][v.name], v.scratch_bytes))
            for i, k in enumerate(kernels)]


def _with_scratch(acts: ModelBuffers, chosen: List[Optional[Variant]],
                  alignment: int) -> Tuple[BufferProblem, List[Tuple[str, int, int]]]:
    """Activations plus one buffer per scratch request of the chosen variants."""
    scratch: List[Tuple[str, int, int]] = []   # (name, op, alignment)
    sizes, first, last = list(acts.sizes), list(acts.first), list(acts.last)
    aligns = [alignment] * len(acts)
    for k, v in enumerate(chosen):
        if v is None:
            continue
        for i, (bytes_, align) in enumerate(v.scratch):
            a = max(alignment, align)
            scratch.append((f"op{k}/{v.name}/scratch{i}", k, a))
            sizes.append(bytes_)
            first.append(k)
            last.append(k)
            aligns.append(a)
    return BufferProblem.build(sizes, first, last, aligns), scratch


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
    def build(cls, model: Model, alignment: int = 16, latency=None,
              require_kernels: bool = True, target=None, io_pool: Optional[str] = None,
              state_pool: Optional[str] = None, shared_state_bytes: int = 0) -> "PlanContext":
        if not isinstance(model, Model):
            raise InvalidArgument(f"expected an arenaplan.Model, got {type(model).__name__}")
        from .latency import resolve
        from .targets import resolve as resolve_target
        alignment = parse_bytes(alignment, "alignment")
        target = resolve_target(target)
        if io_pool is not None:
            if target is None:
                raise InvalidArgument("io_pool names a pool of a target; give target= too")
            target.pool(io_pool)
        kernels, unsupported = _kernels(model, require_kernels)
        source = resolve(latency)
        times = source.op_times(model, kernels) if source is not None else None
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
        return cls(model, kernels, unsupported, alignment, activation_buffers(model, alignment),
                   activation_buffers(model, alignment, fold_aliases=False), times,
                   None if source is None else source.name, target, io_pool, state, state_bytes,
                   held_in, pool_target)

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
        total = 0
        for bytes_, align in v.scratch:
            a = max(self.alignment, align)
            total += -(-bytes_ // a) * a
        return total

    def make(self, chosen: List[Optional[Variant]], mode: str, strategy: str = "auto",
             time_limit_s: Optional[float] = None, seed: int = 0,
             with_greedy: bool = True) -> Plan:
        """Place activations and the chosen variants' scratch; returns the Plan."""
        acts = self.acts
        problem, scratch = _with_scratch(acts, chosen, self.alignment)
        if self.target is not None:
            from .pool_planning import place_over_pools
            result, pools, pool_sizes = place_over_pools(self, problem, scratch, strategy, time_limit_s, seed)
        else:
            result = solve(problem, strategy, time_limit_s, seed)
            pools, pool_sizes = ["arena"] * len(problem), None
        greedy_bytes = 0
        if with_greedy:
            unfolded, _ = _with_scratch(self.acts_unfolded, chosen, self.alignment)
            greedy_bytes = solve(unfolded, "greedy_size").arena_bytes
        records = [
            BufferRecord(name=acts.names[i], kind="activation", op=None, pool=pools[i],
                         offset=int(result.offsets[i]), size=int(acts.sizes[i]),
                         first=int(acts.first[i]), last=int(acts.last[i]),
                         tensors=acts.tensors[i], alignment=self.alignment)
            for i in range(len(acts))
        ]
        for j, (name, k, a) in enumerate(scratch):
            i = len(acts) + j
            records.append(BufferRecord(name=name, kind="scratch", op=k, pool=pools[i],
                                        offset=int(result.offsets[i]), size=int(problem.sizes[i]),
                                        first=k, last=k, tensors=(), alignment=a))
        return Plan(model=self.model, buffers=records, arena_bytes=result.arena_bytes,
                    lower_bound_bytes=result.lower_bound_bytes, greedy_size_bytes=greedy_bytes,
                    strategy=result.strategy, optimal=result.optimal, alignment=self.alignment,
                    mode=mode, choices=[None if v is None else v.name for v in chosen],
                    variable_bytes=acts.variable_bytes, elapsed_s=result.elapsed_s,
                    unsupported=list(self.unsupported), kernels=self.kernels,
                    latency_s=self.latency_of(chosen), latency_source=self.latency_name,
                    pool_sizes=pool_sizes, target=self.target, state_buffers=list(self.state),
                    state_bytes=self.state_bytes, state_pool=self.state_pool)


def plan(model: Model, mode: str = "size", strategy: str = "auto", alignment: int = 16,
         time_limit_s: Optional[float] = None, seed: int = 0, require_kernels: bool = True,
         budget=None, latency=None, target=None, io_pool: Optional[str] = None,
         state_pool: Optional[str] = None) -> Plan:
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
    """
    if isinstance(model, (list, tuple)):
        from .tradeoffs import plan_many
        return plan_many(model, budget=budget, latency=latency, alignment=alignment)
    if mode not in MODES:
        raise InvalidArgument(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    if mode == "balanced" and budget is None and target is None:
        raise InvalidArgument("mode 'balanced' needs a budget (bytes, or a string like '96KiB') "
                              "or a target")
    limit = None if budget is None else parse_bytes(budget, "budget")
    if mode == "balanced" and latency is None:
        latency = "host"
    ctx = PlanContext.build(model, alignment, latency, require_kernels, target, io_pool, state_pool)
    if limit is None and ctx.target is not None:
        limit = ctx.capacity
    if mode == "balanced":
        from .tradeoffs import balanced
        return balanced(ctx, limit, strategy=strategy, time_limit_s=time_limit_s, seed=seed)
    chosen = _least_scratch(ctx.kernels, ctx.times) if mode == "size" else _fastest(ctx.kernels, ctx.times)
    p = ctx.make(chosen, mode, strategy, time_limit_s, seed)
    if limit is not None and p.arena_bytes > limit:
        from .tradeoffs import does_not_fit
        raise does_not_fit(ctx, p, limit)
    return p
