"""Pictures of a plan: where every buffer sits, op by op.

Two views of the same thing, one panel per pool (and one for the state pool): ops run
left to right, addresses grow upward (SVG) or rightward (text), and a buffer is the box
its lifetime and its bytes span.

- ``memory_map_svg(plan)``: an SVG drawing with a tooltip per buffer (name, bytes, offset,
  lifetime); ``Plan._repr_html_`` shows it in a notebook.
- ``memory_map_text(plan)``: one line per op, as TFLite Micro's planner prints its plan:
  each character a slice of the pool, a letter for the buffer there, '.' for free bytes.
"""
from __future__ import annotations

import html
import string
from ..errors import InvalidArgument
from typing import List, NamedTuple, Sequence

__all__ = ["memory_map_svg", "memory_map_text"]

#: Activations cycle through these; scratch is orange, the state grey.
_ACTIVATION_COLOURS = ("#4e79a7", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f", "#86bcb6",
                       "#8cd17d", "#a0cbe8", "#d4a6c8")
_SCRATCH_COLOUR = "#f28e2b"
_STATE_COLOUR = "#bab0ac"
_LETTERS = string.ascii_uppercase + string.ascii_lowercase + string.digits


class _Box(NamedTuple):
    name: str
    kind: str        # "activation", "scratch" or "state"
    offset: int
    size: int
    first: int
    last: int


def _panels(plan) -> List[tuple]:
    """(pool name, pool bytes, boxes) for every pool with bytes, then the state pool."""
    ops = max(len(plan.model.operators), 1)
    panels = []
    for pool, size in plan.pool_bytes.items():
        boxes = [_Box(b.name, b.kind, b.offset, b.size, b.first, b.last)
                 for b in plan.buffers if b.pool == pool]
        if size > 0:
            panels.append((pool, int(size), boxes))
    if plan.state_buffers:
        where = f"state (in {plan.state_pool})" if plan.state_pool else "state"
        panels.append((where, int(plan.state_bytes),
                       [_Box(b.name, "state", b.offset, b.size, 0, ops - 1) for b in plan.state_buffers]))
    return panels


def _colour(box: _Box, index: int) -> str:
    if box.kind == "scratch":
        return _SCRATCH_COLOUR
    if box.kind == "state":
        return _STATE_COLOUR
    return _ACTIVATION_COLOURS[index % len(_ACTIVATION_COLOURS)]


def memory_map_svg(plan, width: int = 720, panel_height: int = 220) -> str:
    """The plan as an SVG drawing: one panel per pool, ops across, addresses up."""
    if width < 200 or panel_height < 60:
        raise InvalidArgument(f"a memory map needs width >= 200 and panel_height >= 60, got {width} "
                              f"and {panel_height}")
    ops = max(len(plan.model.operators), 1)
    left, right, top, gap = 70, 10, 24, 36
    panels = _panels(plan)
    height = top + len(panels) * (panel_height + gap)
    step = (width - left - right) / ops
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="11">',
             f'<text x="{left}" y="14">{html.escape(plan.model.name)}: {plan.arena_bytes:,} B planned'
             f'{f", {plan.state_bytes:,} B state" if plan.state_bytes else ""}, lower bound '
             f'{plan.lower_bound_bytes:,} B; ops left to right, addresses upward</text>']
    for p, (pool, size, boxes) in enumerate(panels):
        y0 = top + p * (panel_height + gap) + 12
        scale = panel_height / max(size, 1)
        parts.append(f'<text x="{left}" y="{y0 - 3}" font-weight="bold">{html.escape(pool)}: '
                     f'{size:,} B</text>')
        parts.append(f'<rect x="{left}" y="{y0}" width="{ops * step:.1f}" height="{panel_height}" '
                     f'fill="#f4f4f4" stroke="#999"/>')
        parts.append(f'<text x="{left - 4}" y="{y0 + panel_height}" text-anchor="end">0</text>')
        parts.append(f'<text x="{left - 4}" y="{y0 + 10}" text-anchor="end">{size:,}</text>')
        for i, b in enumerate(sorted(boxes, key=lambda b: (b.first, b.offset))):
            x = left + b.first * step
            w = max((b.last - b.first + 1) * step - 1, 1)
            h = max(b.size * scale, 0.5)
            y = y0 + panel_height - (b.offset * scale) - h
            tip = (f"{b.name}: {b.size:,} B at {b.offset:,}, ops {b.first}..{b.last}"
                   + (" (scratch)" if b.kind == "scratch" else ""))
            parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" '
                         f'fill="{_colour(b, i)}" stroke="#333" stroke-width="0.3">'
                         f'<title>{html.escape(tip)}</title></rect>')
        if pool in plan.pool_bytes and plan.pool_sizes is None and plan.lower_bound_bytes < size:
            y = y0 + panel_height - plan.lower_bound_bytes * scale
            parts.append(f'<line x1="{left}" x2="{left + ops * step:.1f}" y1="{y:.1f}" y2="{y:.1f}" '
                         f'stroke="#c00" stroke-dasharray="4 3"><title>lower bound '
                         f'{plan.lower_bound_bytes:,} B</title></line>')
        parts.append(f'<text x="{left}" y="{y0 + panel_height + 13}">op 0</text>')
        parts.append(f'<text x="{left + ops * step:.1f}" y="{y0 + panel_height + 13}" '
                     f'text-anchor="end">op {ops - 1}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def memory_map_text(plan, columns: int = 64) -> str:
    """One line per op and pool: a character per 1/columns of the pool, the letter of the
    buffer there ('.' free, '*' more than one buffer in the slice), then a legend."""
    if not isinstance(columns, int) or columns < 8:
        raise InvalidArgument(f"columns must be an integer >= 8, got {columns!r}")
    ops = len(plan.model.operators)
    lines: List[str] = []
    legend: List[str] = []
    for pool, size, boxes in _panels(plan):
        per = -(-size // columns)
        lines.append(f"{pool}: {size:,} B, {per:,} B per character")
        letter = {}
        for i, b in enumerate(sorted(boxes, key=lambda b: (b.first, b.offset))):
            letter[b.name] = _LETTERS[i] if i < len(_LETTERS) else "#"
            legend.append(f"  {pool}/{letter[b.name]}: {b.name} ({b.size:,} B at {b.offset:,}, "
                          f"ops {b.first}..{b.last})")
        for op in range(ops):
            lines.append(f"{op:>4} {_row(boxes, letter, op, per, columns)}")
        lines.append("")
    return "\n".join(lines + ["legend:"] + legend)


def _row(boxes: Sequence[_Box], letter: dict, op: int, per: int, columns: int) -> str:
    cells = ["."] * columns
    for b in boxes:
        if b.first <= op <= b.last and b.size > 0:
            for c in range(b.offset // per, min(-(-(b.offset + b.size) // per), columns)):
                cells[c] = letter[b.name] if cells[c] == "." else "*"
    return "".join(cells)
