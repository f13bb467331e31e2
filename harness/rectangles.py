"""Address x time rectangles cut into buffers, for the planner's tests and benchmarks.

One generator (a piece is cut with a probability proportional to its area) that
tests/c/test_planner_bands.py and benchmarks/bench_planner.py (with the benchmarks
built on it) both import, so a (pieces, seed) pair names the same problem in the tests
and in the benchmark's tables.
"""
from __future__ import annotations

import random


def rectangle_pieces(n, seed, width=65536, steps=64, grain=16):
    """Cut a width x steps rectangle into n pieces by random guillotine cuts: the
    pieces (x0, x1, t0, t1) in granules and ops, t1 exclusive, in shuffled order."""
    rng = random.Random(seed)
    pieces = [(0, width // grain, 0, steps)]
    while len(pieces) < n:
        weights = [(p[1] - p[0]) * (p[3] - p[2]) for p in pieces]
        k = rng.choices(range(len(pieces)), weights=weights)[0]
        x0, x1, t0, t1 = pieces[k]
        can_x, can_t = x1 - x0 >= 2, t1 - t0 >= 2
        if not (can_x or can_t):
            continue
        if can_x and (not can_t or rng.random() < 0.5):
            c = rng.randrange(x0 + 1, x1)
            pieces[k] = (x0, c, t0, t1)
            pieces.append((c, x1, t0, t1))
        else:
            c = rng.randrange(t0 + 1, t1)
            pieces[k] = (x0, x1, t0, c)
            pieces.append((x0, x1, c, t1))
    rng.shuffle(pieces)
    return pieces


def rectangle_cut(n, seed, width=65536, steps=64, grain=16):
    """(sizes, first, last) of the pieces as buffers (size = its width, lifetime = its
    time span). The live bytes are `width` at every op, so the bound is the optimum."""
    pieces = rectangle_pieces(n, seed, width, steps, grain)
    return ([(p[1] - p[0]) * grain for p in pieces], [p[2] for p in pieces],
            [p[3] - 1 for p in pieces])
