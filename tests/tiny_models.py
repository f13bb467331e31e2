"""A model small enough to enumerate every plan, and made-up latency tables for it."""
from __future__ import annotations

import numpy as np

import arenaplan as ap
from arenaplan.model.zoo import GraphBuilder
from arenaplan.planning.context import PlanContext


def tiny_model() -> ap.Model:
    """conv 3x3 -> depthwise -> pointwise -> pool -> reshape -> fc -> softmax: few enough
    variant combinations to enumerate every plan."""
    g = GraphBuilder("tiny", seed=3)
    x = g.input((1, 12, 12, 4), scale=0.05)
    x = g.conv2d(x, 8, (3, 3), name="conv")
    x = g.depthwise(x, (3, 3), name="dw")
    x = g.conv2d(x, 8, (1, 1), name="pw")
    x = g.avgpool(x, (12, 12))
    x = g.reshape(x, (1, 8))
    x = g.fully_connected(x, 4)
    return g.build(g.softmax(x))


def made_up_table(model: ap.Model, seed: int) -> list:
    """Random latencies, faster for more scratch most of the time (but not always), for
    every variant of the portable list and of this host's ISA (x86-avx2 adds lanes)."""
    rng = np.random.default_rng(seed)
    rows = []
    seen = set()
    for isa in ("portable", None):
        for k in PlanContext.build(model, isa=isa, reference="litert").kernels:
            for i, v in enumerate(k.variants):
                if (k.index, v.name) not in seen:
                    seen.add((k.index, v.name))
                    rows.append({"op": k.index, "variant": v.name,
                                 "seconds": float(rng.uniform(1, 10) / (1 + 0.5 * i))})
    return rows
