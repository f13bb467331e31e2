"""Memory-latency trade-offs: the fastest plan within a budget, and the whole frontier.

Scratch buffers live only at their op, so when the planner packs a plan down to its
live-bytes bound the arena is max over ops of (activations live there + that op's
scratch). The fastest plan within B bytes then picks, op by op, the fastest variant
whose scratch fits the headroom B - live(op): exact for the latency model. The real
planner checks the result; where fragmentation pushes it over B, the headroom is
tightened by the overshoot and the choice repeated.

``frontier`` evaluates that choice at every budget where some op's choice can change
and keeps the strictly Pareto-optimal (bytes, latency) points: the answer to "what
does X more bytes buy".
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple, Union

from ..errors import InvalidArgument, InvalidPlan, PlanDoesNotFit
from ..ops.lowering import Variant
from ..model.model import Model
from .context import PlanContext, fastest, least_scratch
from .plan import Plan
from ..units import count_bytes, parse_bytes

__all__ = ["balanced", "does_not_fit", "Frontier", "FrontierPoint", "Gain", "MultiPlan", "model_frontier",
           "multi_frontier", "weights_of"]

_REPAIR_ROUNDS = 32


def _need_latency(ctx: PlanContext) -> None:
    if ctx.times is None:
        raise InvalidArgument("a latency source is needed (latency='host', 'model:<profile>' or a table)")


def _choose_within(ctx: PlanContext, budget: int) -> Optional[List[Optional[Variant]]]:
    """Per op, the fastest variant whose scratch fits beside the live activations."""
    live = ctx.activation_live()
    chosen: List[Optional[Variant]] = []
    for k, kernel in enumerate(ctx.kernels):
        if kernel is None:
            chosen.append(None)
            continue
        head = budget - live[k]
        fits = [v for v in kernel.variants if ctx.scratch_need(v) <= head]
        if not fits:
            return None
        chosen.append(min(fits, key=lambda v: (ctx.times[k][v.name], v.scratch_bytes)))
    return chosen


def _peak_op(plan: Plan) -> int:
    live = plan.live_bytes()
    return max(range(len(live)), key=lambda k: live[k]) if live else 0


def balanced(ctx: PlanContext, budget: int, strategy: str = "auto",
             time_limit_s: Optional[float] = None, seed: int = 0) -> Plan:
    """The lowest-latency plan whose arena fits ``budget`` bytes."""
    _need_latency(ctx)
    size_plan = ctx.make(least_scratch(ctx.kernels, ctx.times), "balanced", strategy, time_limit_s, seed)
    if size_plan.arena_bytes > budget:
        op = _peak_op(size_plan)
        raise PlanDoesNotFit(
            f"{ctx.model.name} needs at least {size_plan.arena_bytes:,} bytes (its smallest plan, "
            f"peak at op {op} {ctx.model.operators[op].type}); the budget of {count_bytes(budget)} is "
            f"{count_bytes(size_plan.arena_bytes - budget)} short",
            pool="arena", needed=size_plan.arena_bytes, available=budget, op=op)
    target = budget
    for _ in range(_REPAIR_ROUNDS):
        chosen = _choose_within(ctx, target)
        if chosen is None:
            break
        try:
            p = ctx.make(chosen, "balanced", strategy, time_limit_s, seed)
        except PlanDoesNotFit as exc:       # a pool of the target overflows
            target -= max(exc.short_by or 0, ctx.alignment)
            continue
        if p.arena_bytes <= budget:
            return p
        target -= p.arena_bytes - budget   # fragmentation: ask for that much less headroom
    return size_plan


def does_not_fit(ctx: PlanContext, plan: Plan, budget: int) -> PlanDoesNotFit:
    """The error for a plan over budget, naming its true cause: activations live at one
    op that alone exceed the budget (no plan can fit), else the ops whose chosen scratch
    does not fit beside them, else fragmentation (every op fits, the placement does not)."""
    live = ctx.activation_live()
    head = (f"the {plan.mode} plan of {ctx.model.name} needs {plan.arena_bytes:,} bytes, "
            f"{plan.arena_bytes - budget:,} more than the budget of {budget:,}")
    peak = max(range(len(live)), key=lambda k: live[k]) if live else None
    if peak is not None and live[peak] > budget:
        op = ctx.model.operators[peak]
        return PlanDoesNotFit(
            f"{head}: at op {peak} ({op.type}) {live[peak]:,} bytes of activations are live at "
            f"once, {live[peak] - budget:,} more than the budget, so no plan fits in it",
            pool="arena", needed=plan.arena_bytes, available=budget, op=peak)
    parts = []
    first_op = None
    for k, choice in enumerate(plan.choices):
        kernel = ctx.kernels[k]
        if kernel is None or choice is None:
            continue
        need = ctx.scratch_need(kernel.variant(choice))
        if need and live[k] + need > budget:
            free = max(budget - live[k], 0)
            parts.append(f"op {k} ({kernel.type}, {choice}) needs {need:,} bytes of scratch, "
                         f"{free:,} are free beside {live[k]:,} bytes of live activations")
            first_op = k if first_op is None else first_op
    if parts:
        detail = "; ".join(parts)
    else:
        detail = (f"every op fits (at most {plan.lower_bound_bytes:,} bytes live at once) but the "
                  f"buffers do not fit together (fragmentation)")
    return PlanDoesNotFit(f"{head}: {detail}", pool="arena", needed=plan.arena_bytes,
                          available=budget, op=first_op)


# --- the frontier -------------------------------------------------------------------------
@dataclass(frozen=True)
class FrontierPoint:
    """One Pareto-optimal plan: no plan is both smaller and faster."""

    arena_bytes: int
    latency_s: float
    plan: Union[Plan, "MultiPlan"]

    @property
    def choices(self):
        return self.plan.choices

    @property
    def state_bytes(self) -> int:
        """The persistent state pool beside the arena (variable tensors), the same at every point."""
        return self.plan.state_bytes


@dataclass(frozen=True)
class Gain:
    """What ``extra_bytes`` buy from a starting budget."""

    from_point: FrontierPoint
    to_point: FrontierPoint
    extra_bytes: int
    changes: List[Tuple[int, str, str, str]]   # (op, type, from variant, to variant)

    @property
    def latency_saved_s(self) -> float:
        return self.from_point.latency_s - self.to_point.latency_s

    @property
    def speedup(self) -> float:
        return self.from_point.latency_s / self.to_point.latency_s if self.to_point.latency_s else 1.0

    def __str__(self) -> str:
        a, b = self.from_point, self.to_point
        head = (f"{self.extra_bytes:,} more bytes ({a.arena_bytes:,} -> up to "
                f"{a.arena_bytes + self.extra_bytes:,}) buy {self.latency_saved_s * 1e3:.3f} ms "
                f"({a.latency_s * 1e3:.3f} -> {b.latency_s * 1e3:.3f} ms, {self.speedup:.2f}x)")
        if not self.changes:
            return head + ": nothing changes"
        ops = ", ".join(f"op {k} {t} {f}->{to}" for k, t, f, to in self.changes)
        return f"{head} by changing {ops}"


def _changes(a: Plan, b: Plan) -> List[Tuple[int, str, str, str]]:
    out = []
    for k, (x, y) in enumerate(zip(a.choices, b.choices)):
        if x != y:
            out.append((k, a.model.operators[k].type, x, y))
    return out


def _change_labels(a: Union[Plan, "MultiPlan"], b: Union[Plan, "MultiPlan"]) -> List[str]:
    """The variants that differ from plan ``a`` to plan ``b``, as "op K from->to"; for
    models sharing an arena each is prefixed with its model's name."""
    if isinstance(a, Plan) and isinstance(b, Plan):
        return [f"op {k} {f}->{t}" for k, _, f, t in _changes(a, b)]
    out = []
    for x, y in zip(getattr(a, "plans", []), getattr(b, "plans", [])):
        out += [f"{x.model.name}: op {k} {f}->{t}" for k, _, f, t in _changes(x, y)]
    return out


def _placement_note(a: Union[Plan, "MultiPlan"], b: Union[Plan, "MultiPlan"]) -> str:
    """What differs between two plans that choose the same variants: where buffers sit."""
    pools_a = getattr(a, "pool_bytes", None) or {}
    pools_b = getattr(b, "pool_bytes", None) or {}
    moved = [f"{name} {pools_a.get(name, 0):,}->{pools_b.get(name, 0):,} B"
             for name in dict.fromkeys([*pools_a, *pools_b])
             if pools_a.get(name, 0) != pools_b.get(name, 0)]
    return "placement only (same variants" + (f"; {', '.join(moved)})" if moved else ")")


class Frontier:
    """Pareto-optimal (arena bytes, latency) plans of a model, smallest first."""

    def __init__(self, points: List[FrontierPoint], name: str, latency_source: Optional[str]) -> None:
        if not points:
            raise InvalidArgument("a frontier needs at least one point")
        self.points = points
        self.name = name
        self.latency_source = latency_source

    @property
    def size_point(self) -> FrontierPoint:
        return self.points[0]

    @property
    def speed_point(self) -> FrontierPoint:
        return self.points[-1]

    def at(self, budget) -> Union[Plan, "MultiPlan"]:
        """The fastest plan whose arena fits ``budget`` bytes (or "96KiB")."""
        b = parse_bytes(budget, "budget")
        fitting = [p for p in self.points if p.arena_bytes <= b]
        if not fitting:
            smallest = self.points[0].arena_bytes
            raise PlanDoesNotFit(f"{self.name} needs at least {count_bytes(smallest)}; the budget of "
                                 f"{count_bytes(b)} is {count_bytes(smallest - b)} short", pool="arena", needed=smallest,
                                 available=b)
        return fitting[-1].plan

    def _point_at(self, b: int) -> FrontierPoint:
        self.at(b)
        return [p for p in self.points if p.arena_bytes <= b][-1]

    def gain(self, extra_bytes, from_budget=None) -> Gain:
        """Latency saved by ``extra_bytes`` more than ``from_budget`` (default: the smallest plan)."""
        extra = parse_bytes(extra_bytes, "extra_bytes")
        start = self.points[0].arena_bytes if from_budget is None else parse_bytes(from_budget, "from_budget")
        a = self._point_at(start)
        b = self._point_at(start + extra)
        changes = _changes(a.plan, b.plan) if isinstance(a.plan, Plan) else []
        return Gain(a, b, extra, changes)

    def rows(self) -> List[dict]:
        """One dict per point: arena and state bytes, latency, speed-up over the size
        plan, ``changes`` (the variants that differ from the previous point, "op K
        from->to", prefixed with the model's name when models share the arena) and
        ``what``, the table's text for them: "(size plan)" on the first point,
        "placement only (...)" where no variant changed."""
        base = self.points[0].latency_s
        rows = []
        prev = None
        for p in self.points:
            changed = [] if prev is None else _change_labels(prev.plan, p.plan)
            if prev is None:
                what = "(size plan)"
            elif changed:
                what = ", ".join(changed)
            else:
                what = _placement_note(prev.plan, p.plan)
            rows.append({"arena_bytes": p.arena_bytes, "state_bytes": p.state_bytes, "latency_s": p.latency_s,
                         "speedup": base / p.latency_s if p.latency_s else 1.0,
                         "changes": changed, "what": what})
            prev = p
        return rows

    def table(self) -> str:
        """Plain-text table: bytes, latency, speed-up over the size plan, and what changes
        from the previous point (never blank: "(size plan)" first, then the variants that
        change, or "placement only" where none does)."""
        state = self.points[0].state_bytes
        held = getattr(self.points[0].plan, "state_pool", None)
        where = f"in pool {held!r}, counted against it" if held else "outside the arena"
        lines = [f"{self.name}: {len(self.points)} Pareto points (latency: {self.latency_source})"
                 + (f"; plus {state:,} bytes of persistent state {where} at every point"
                    if state else ""),
                 f"{'arena bytes':>12}  {'latency ms':>10}  {'speed-up':>8}  ops that change"]
        for r in self.rows():
            lines.append(f"{r['arena_bytes']:>12,}  {r['latency_s'] * 1e3:>10.3f}  {r['speedup']:>7.2f}x  "
                         f"{r['what']}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        cells = "".join(
            f"<tr><td>{r['arena_bytes']:,}</td><td>{r['latency_s'] * 1e3:.3f}</td>"
            f"<td>{r['speedup']:.2f}x</td><td>{html.escape(', '.join(r['changes']))}</td></tr>"
            for r in self.rows())
        return (f"<b>{html.escape(self.name)}</b>: {len(self.points)} Pareto points<br/>{self.svg()}<table>"
                "<tr><th>arena bytes</th><th>latency ms</th><th>speed-up</th><th>ops that change</th></tr>"
                f"{cells}</table>")

    def _x_range(self) -> Tuple[float, float]:
        """The x axis's span in bytes: from the size end to 5 % past the speed end (for a
        single point, 5 % either side), so the last step is visible."""
        lo, hi = self.points[0].arena_bytes, self.points[-1].arena_bytes
        if hi > lo:
            return float(lo), hi + 0.05 * hi
        pad = max(0.05 * lo, 16.0)
        return max(lo - pad, 0.0), lo + pad

    def svg(self, width: int = 480, height: int = 240) -> str:
        """The frontier as an SVG step curve (latency against arena bytes), no matplotlib
        needed: what ``_repr_html_`` shows in a notebook. The x axis has ticks in KiB
        across its range, the y axis in ms."""
        if width < 160 or height < 100:
            raise InvalidArgument(f"a frontier plot needs width >= 160 and height >= 100, got {width} "
                                  f"and {height}")
        left, right, top, bottom = 64, 16, 12, 40
        xs = [p.arena_bytes for p in self.points]
        ys = [p.latency_s * 1e3 for p in self.points]
        x_lo, x_hi = self._x_range()
        y_lo, y_hi = 0.0, max(ys) * 1.1 or 1.0

        def px(x: float) -> float:
            return left + (x - x_lo) / (x_hi - x_lo) * (width - left - right)

        def py(y: float) -> float:
            return top + (1 - (y - y_lo) / (y_hi - y_lo)) * (height - top - bottom)

        def at(x: float, y: float) -> str:
            return f"{px(x):.1f},{py(y):.1f}"

        steps = [at(xs[0], ys[0])]
        for i in range(1, len(xs)):
            steps += [at(xs[i], ys[i - 1]), at(xs[i], ys[i])]
        steps.append(at(x_hi, ys[-1]))
        dots = "".join(
            f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="#4e79a7">'
            f"<title>{x:,} B: {y:.4f} ms</title></circle>" for x, y in zip(xs, ys))
        base = height - bottom
        n_ticks = max(2, min(6, (width - left - right) // 70))
        ticks = "".join(
            f'<line class="xtick" x1="{px(v * 1024):.1f}" y1="{base}" x2="{px(v * 1024):.1f}" '
            f'y2="{base + 4}" stroke="#999"/>'
            f'<text class="xtick" x="{px(v * 1024):.1f}" y="{base + 15}" text-anchor="middle">{label}</text>'
            for v, label in _kib_ticks(x_lo / 1024, x_hi / 1024, n_ticks))
        y_ticks = "".join(
            f'<line class="ytick" x1="{left - 4}" y1="{py(v):.1f}" x2="{left}" y2="{py(v):.1f}" stroke="#999"/>'
            f'<text class="ytick" x="{left - 6}" y="{py(v) + 4:.1f}" text-anchor="end">{label}</text>'
            for v, label in _nice_ticks(y_lo, y_hi, 4))
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                f'font-family="sans-serif" font-size="11">'
                f'<line x1="{left}" y1="{base}" x2="{width - right}" y2="{base}" stroke="#999"/>'
                f'<line x1="{left}" y1="{top}" x2="{left}" y2="{base}" stroke="#999"/>'
                f"{ticks}{y_ticks}"
                f'<polyline points="{" ".join(steps)}" fill="none" stroke="#4e79a7" stroke-width="1.5"/>'
                f"{dots}"
                f'<text x="{width - right}" y="{height - 4}" text-anchor="end">arena (KiB)</text>'
                f'<text x="{left + 4}" y="{top + 8}">latency, ms ({html.escape(str(self.latency_source))})</text>'
                "</svg>")

    def __repr__(self) -> str:
        return (f"Frontier({self.name!r}, {len(self.points)} points, "
                f"{self.points[0].arena_bytes:,}..{self.points[-1].arena_bytes:,} bytes)")

    def to_dict(self) -> dict:
        return {"model": self.name, "latency_source": self.latency_source, "points": self.rows()}

    def plot(self, path: Optional[str] = None, size_px: Tuple[int, int] = (768, 480), dpi: int = 120):
        """A step curve of latency against arena bytes (needs matplotlib: pip install
        "arenaplan[plot]"), with x ticks in KiB across the whole range. Saves a PNG of
        ``size_px`` (width, height) pixels to ``path`` when given; returns the Figure."""
        try:
            import matplotlib
            if path is not None:
                matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            from matplotlib.ticker import FixedLocator, FixedFormatter
        except ImportError:
            raise InvalidArgument("plotting needs matplotlib: pip install 'arenaplan[plot]'") from None
        w, h = size_px
        if w < 160 or h < 100 or dpi < 10:
            raise InvalidArgument(f"a frontier plot needs at least 160 x 100 pixels and dpi >= 10, got "
                                  f"{w} x {h} at {dpi}")
        x_lo, x_hi = (v / 1024 for v in self._x_range())
        xs = [p.arena_bytes / 1024 for p in self.points]
        ys = [p.latency_s * 1e3 for p in self.points]
        fig, ax = plt.subplots(figsize=(w / dpi, h / dpi), dpi=dpi)
        ax.step(xs + [x_hi], ys + [ys[-1]], where="post", color="tab:blue")
        ax.plot(xs, ys, "o", color="tab:blue")
        ax.annotate("size", (xs[0], ys[0]), textcoords="offset points", xytext=(6, 6))
        ax.annotate("speed", (xs[-1], ys[-1]), textcoords="offset points", xytext=(6, 6))
        ticks = _kib_ticks(x_lo, x_hi, max(3, min(8, w // 110)))
        ax.set_xlim(x_lo, x_hi)
        ax.xaxis.set_major_locator(FixedLocator([v for v, _ in ticks]))
        ax.xaxis.set_major_formatter(FixedFormatter([label for _, label in ticks]))
        ax.set_ylim(0, max(ys) * 1.1 or 1.0)
        ax.set_xlabel("arena (KiB)")
        ax.set_ylabel(f"latency (ms, {self.latency_source})")
        ax.set_title(f"{self.name}: what more memory buys")
        ax.grid(True, alpha=0.3)
        fig.tight_layout()
        if path is not None:
            fig.savefig(path, dpi=dpi)
        return fig


def _nice_ticks(lo: float, hi: float, n: int) -> List[Tuple[float, str]]:
    """About ``n`` ticks at round values (1, 2 or 5 times a power of ten) within
    [lo, hi], each with its label (as many decimals as the step needs)."""
    if not hi > lo:
        return [(lo, f"{lo:,.6g}")]
    raw = (hi - lo) / max(n, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    first = math.ceil(lo / step - 1e-9)
    out = []
    k = first
    while k * step <= hi + step * 1e-9:
        v = k * step
        out.append((v, f"{v:,.{decimals}f}"))
        k += 1
    return out


def _kib_ticks(lo_kib: float, hi_kib: float, n: int) -> List[Tuple[float, str]]:
    """Ticks of a KiB axis: round values across [lo, hi], at least four where ``n``
    asks for four or more (a coarse step can leave three)."""
    ticks = _nice_ticks(lo_kib, hi_kib, n)
    if len(ticks) < min(n, 4):
        ticks = _nice_ticks(lo_kib, hi_kib, 2 * n)
    return ticks


def _pareto(points: List[FrontierPoint]) -> List[FrontierPoint]:
    best: List[FrontierPoint] = []
    for p in sorted(points, key=lambda p: (p.arena_bytes, p.latency_s)):
        if not best or p.latency_s < best[-1].latency_s:
            best.append(p)
    return best


def model_frontier(ctx: PlanContext, strategy: str, time_limit_s: Optional[float]) -> Frontier:
    _need_latency(ctx)
    live = ctx.activation_live()
    candidates = {live[k] + ctx.scratch_need(v)
                  for k, kernel in enumerate(ctx.kernels) if kernel is not None for v in kernel.variants}
    plans = [ctx.make(least_scratch(ctx.kernels, ctx.times), "size", strategy, time_limit_s,
                      with_greedy=False)]
    try:
        plans.append(ctx.make(fastest(ctx.kernels, ctx.times), "speed", strategy, time_limit_s,
                              with_greedy=False))
    except PlanDoesNotFit:
        pass    # the speed plan does not fit the target: the frontier ends before it
    floor = plans[0].arena_bytes
    seen = {tuple(p.choices) for p in plans}
    for b in sorted(c for c in candidates | {floor} if c >= floor):
        chosen = _choose_within(ctx, b)
        if chosen is None:
            continue
        key = tuple(None if v is None else v.name for v in chosen)
        if key in seen:
            continue
        seen.add(key)
        try:
            plans.append(ctx.make(chosen, "balanced", strategy, time_limit_s, with_greedy=False))
        except PlanDoesNotFit:
            break   # over a target: every larger budget overflows its pools too
    points = _pareto([FrontierPoint(p.arena_bytes, p.latency_s, p) for p in plans])
    return Frontier(points, ctx.model.name, ctx.latency_name)


# --- several models sharing one arena -----------------------------------------------------
@dataclass
class MultiPlan:
    """Plans of models that run one at a time in one shared arena (the max of theirs)."""

    plans: List[Plan]
    weights: List[float] = field(default_factory=list)

    @property
    def arena_bytes(self) -> int:
        return max(p.arena_bytes for p in self.plans)

    @property
    def latency_s(self) -> Optional[float]:
        if any(p.latency_s is None for p in self.plans):
            return None
        return float(sum(w * p.latency_s for w, p in zip(self.weights, self.plans)))

    @property
    def choices(self) -> List[List[Optional[str]]]:
        return [p.choices for p in self.plans]

    @property
    def state_bytes(self) -> int:
        """Each model keeps its own state between runs: the sum, outside the shared arena."""
        return sum(p.state_bytes for p in self.plans)

    def verify(self) -> bool:
        """Each plan on its own, then what they share: on a target, every pool holds the
        largest of the plans' bytes in it plus every model's state kept there (each model
        keeps its state while the others run). Raises InvalidPlan."""
        for p in self.plans:
            p.verify()
        self._verify_shared_target()
        return True

    def _verify_shared_target(self) -> None:
        target = self.plans[0].target
        if any(p.target != target for p in self.plans):
            names = sorted({str(None if p.target is None else p.target.name) for p in self.plans})
            which = ", ".join(names) if len(names) > 1 else f"two configurations of {names[0]}"
            raise InvalidPlan(f"the plans are for different targets ({which}); "
                              f"models sharing an arena share one target")
        if target is None:
            return
        for pool in target.pools:
            used = [(p.pool_sizes or {}).get(pool.name, 0) for p in self.plans]
            states = [p._state_bytes_in(pool) for p in self.plans]
            total = max(used) + sum(states)
            if total > pool.capacity:
                widest = self.plans[used.index(max(used))].model.name
                raise InvalidPlan(f"pool {pool.name!r}: {widest}'s plan uses {max(used):,} bytes of it "
                                  f"and the models' states {sum(states):,}: {total - pool.capacity:,} "
                                  f"more than its capacity of {pool.capacity:,}")

    def __repr__(self) -> str:
        return f"MultiPlan({[p.model.name for p in self.plans]}, arena={self.arena_bytes})"


def weights_of(models: Sequence[Model], weights: Optional[Sequence[float]]) -> List[float]:
    if weights is None:
        return [1.0] * len(models)
    w = [float(x) for x in weights]
    if len(w) != len(models) or any(not x >= 0 for x in w):
        raise InvalidArgument(f"weights must be {len(models)} non-negative numbers, got {weights!r}")
    return w


def multi_frontier(frontiers: List[Frontier], weights: List[float]) -> Frontier:
    budgets = sorted({p.arena_bytes for f in frontiers for p in f.points})
    floor = max(f.points[0].arena_bytes for f in frontiers)
    points = []
    for b in budgets:
        if b < floor:
            continue
        chosen = [[p for p in f.points if p.arena_bytes <= b][-1] for f in frontiers]
        mp = MultiPlan([p.plan for p in chosen], weights)
        points.append(FrontierPoint(mp.arena_bytes, mp.latency_s, mp))
    name = " + ".join(f.name for f in frontiers)
    return Frontier(_pareto(points), name, frontiers[0].latency_source)
