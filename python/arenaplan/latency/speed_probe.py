"""A reference workload that tells a window of host measurements taken at this machine's
normal speed from one taken in a slow spell.

On a shared machine the speed drops for seconds at a time (1.3-1.9x here) while other
tenants run; the fastest run in a window that lies wholly in such a spell is the
spell's, not the op's own cost. The probe, a small fixed model (a conv, a depthwise, a
pointwise conv, a pool: the kernel families the models use), is profiled together with
the plans being measured, repeat by repeat. Its speed in a window is the lower quartile
of its runs (``QUANTILE``): at this machine's normal speed only if a quarter of the
window was, which leaves every plan's 1st percentile well inside the normal spell (a
spell of 1-2 % of the window puts that figure on a knife's edge). The best speed ever
seen on this machine is remembered; a window counts as representative once the probe
has run within ``TOLERANCE`` of that record in it. The probe only decides how long to
measure: no figure is scaled by it.
"""
from __future__ import annotations

from typing import Tuple

import numpy as np
from ..runtime.interpreter import Interpreter
from ..planning.context import PlanContext, least_scratch
from ..model.zoo import GraphBuilder

__all__ = ["TOLERANCE", "QUANTILE", "probe", "speed_of", "at_normal_speed"]

#: How far above its record the probe's speed may be in a representative window.
#: Windows at this machine's normal speed agree within a few percent; slow spells are
#: 30 % and more slower.
TOLERANCE = 0.10

#: The quantile of the probe's whole runs taken as its speed in a window.
QUANTILE = 0.25


def probe() -> Tuple[object, np.ndarray]:
    """The probe's Interpreter (its size plan) and its input; the same on every call."""

    g = GraphBuilder("speed-probe", seed=11)
    x = g.input((1, 16, 16, 8), scale=0.05)
    x = g.conv2d(x, 16, (3, 3), name="conv")
    x = g.depthwise(x, (3, 3), name="dw")
    x = g.conv2d(x, 16, (1, 1), name="pw")
    x = g.avgpool(x, (16, 16))
    model = g.build(x)
    inputs = np.random.default_rng(11).integers(-128, 128, size=(1, 16, 16, 8), dtype=np.int8)
    # the same kernels on every host: the probe measures the machine, not an ISA
    ctx = PlanContext.build(model, isa="portable", reference="litert")
    return Interpreter(ctx.make(least_scratch(ctx.kernels), "size")), inputs


def speed_of(timings) -> float:
    """The probe's speed in a window: the ``QUANTILE`` of its whole runs (seconds, net of
    the timer), from its accumulated Timings."""
    whole = timings.width - 2
    return max(float(timings.quantile(QUANTILE)[whole]) - timings.summary().timer_s, 0.0)


def at_normal_speed(speed_s: float, record_s: float, tolerance: float = TOLERANCE) -> bool:
    """Whether a window in which the probe took ``speed_s`` (``speed_of``) ran at this
    machine's normal speed, given the best ever recorded (``inf`` when there is none yet)."""
    return speed_s <= (1.0 + tolerance) * record_s
