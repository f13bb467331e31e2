"""The Plan: which kernel variant each op runs and where every buffer lives, with the
figures to judge it (arena, live-bytes bound, TensorFlow Lite Micro's greedy figure).

``Plan.verify()`` re-checks the placement tensor by tensor, independently of the planner
that made it. Plans are made by ``planning.context.PlanContext.make`` (``ap.plan`` wires
a model, a target and a latency source into it).
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

from ..errors import InvalidArgument, InvalidPlan
from ..model.model import Model
from ..ops.lowering import OpKernel
from ..units import format_bytes
from . import plan_file
from .buffers import OVERLAP_ALIAS, BufferProblem, verify_offsets
from .lifetimes import loop_ranges, tensor_lifetimes
from .memory_map import memory_map_svg, memory_map_text
from .modes import MODES
from .records import BufferRecord, live_per_op
from .state import StateBuffer, reserve_bytes, verify_state

__all__ = ["MODES", "Plan", "EXPORTERS"]

#: Writers of a plan for a firmware build, by format. The export layer sits above the
#: runtime, which sits above plans, so it registers itself here (``arenaplan.export``)
#: rather than the record importing it; ``Plan.export_c`` looks it up.
EXPORTERS: Dict[str, Callable] = {}


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
    #: The instruction set whose kernels the plan's variants are ("portable", "x86-avx2", ...).
    isa: str = "portable"
    #: The rounding rule the kernels reproduce: "litert" or "tflm".
    reference: str = "litert"

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
                 f"strategy {self.strategy}{' (proven optimal)' if self.optimal else ''}, "
                 f"isa {self.isa}, rounding as {self.reference}",
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
        if any(op.type == "JUMP" for op in self.model.operators):
            loops = len(loop_ranges(self.model))
            lines.append(f"control flow: {loops} loop(s) and {sum(op.type == 'JUMP' for op in self.model.operators) - loops} "
                         "other jump(s); the latency counts every op once: both branches of an IF, one "
                         "iteration of a loop (its trip count is known at run time only)")
        for reason in self.unsupported:
            lines.append(f"no kernel: {reason}")
        return "\n".join(lines)

    def memory_map_svg(self, width: int = 720, panel_height: int = 220) -> str:
        """An SVG drawing of the plan: per pool, every buffer as the box its lifetime (ops,
        across) and its bytes (upward) span, with a tooltip each. See memory_map.py."""
        return memory_map_svg(self, width, panel_height)

    def memory_map_text(self, columns: int = 64) -> str:
        """The plan as text, one line per op and pool (a letter per buffer, '.' free)."""
        return memory_map_text(self, columns)

    def _repr_html_(self) -> str:
        """In a notebook: the summary's figures and the memory map."""
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
        """Plain data (``arenaplan plan --json``): the plan file's record (``to_json``), plus
        the figures derived from it: RAM, scratch and live bytes per op, and the ops."""
        return {**plan_file.plan_record(self), "ram_bytes": self.ram_bytes,
                "scratch_bytes": self.scratch_bytes, "live_bytes": self.live_bytes(),
                "ops": [{"index": op.index, "type": op.type} for op in self.model.operators]}

    def to_json(self) -> str:
        """The plan as versioned JSON (see plan_file): reload with ``Plan.from_json``."""
        return plan_file.plan_to_json(self)

    @classmethod
    def from_json(cls, text: str, model: Optional[Model] = None) -> "Plan":
        """Load and validate a plan; ``model`` defaults to the one the file names (a zoo
        model or a .tflite path). Raises InvalidPlan for a corrupted plan or another model's."""
        plan = cls(**plan_file.plan_fields(text, model))
        plan.verify()
        return plan

    def __repr__(self) -> str:
        return (f"Plan({self.model.name!r}, mode={self.mode!r}, arena={self.arena_bytes}, "
                f"lower_bound={self.lower_bound_bytes}, strategy={self.strategy!r}, "
                f"optimal={self.optimal})")

    def export_c(self, out_dir, name: Optional[str] = None,
                 sections: Optional[Dict[str, str]] = None, isa: Optional[str] = None):
        """Write ``<name>.h`` and ``<name>.c`` for a firmware build (see ``arenaplan.export``);
        returns an ``ExportedC`` with the paths and sizes."""
        if "c" not in EXPORTERS:
            raise InvalidArgument("the C exporter is not loaded: import arenaplan (not only "
                                  "arenaplan.planning) to export plans")
        return EXPORTERS["c"](self, out_dir, name=name, sections=sections, isa=isa)
