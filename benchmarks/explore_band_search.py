"""Exploration, not a strategy: can a band search reach the bound on the hard rectangles?

The hard rows of bench_planner are address x time rectangles cut into a few hundred
buffers (``rectangle_cut``); their optimum is the live-bytes bound, and `auto` stops
5-8 % above it. Every such problem is a stack of full-width bands, each split in time.
This script runs, in Python, the search that looks for that structure, so that the next
step on the planner starts from measured ground:

1. split where no buffer crosses a time boundary (independent parts, same width);
2. put the buffers that span the whole window at the bottom (always safe: they meet every
   other buffer);
3. otherwise find a band: a set of buffers whose live bytes are the same w <= W/2 at every
   op. Built left to right: the buffers of the band that start at an op must add up to
   those of the band that ended just before it. Each band is placed below the rest and
   both parts are solved recursively; failed sets are remembered; the search backtracks.

The subsets that add up at an op are listed in one of two orders: ``size`` (largest
buffers first) or ``few`` (fewest buffers first); both skip dead branches with a
subset-sum bitset. Every plan found is checked by the planner's independent verifier.

    python benchmarks/explore_band_search.py                  # the four hard rows, both orders
    python benchmarks/explore_band_search.py --seeds 6        # plus seeds 0..5 of each size

Findings (2026-11-30, 200,000 nodes, 2,000 subsets per op, `--seeds 3`): 9 of the 13
rows (the 4 hard rows, then seeds 0-2 of each size, two of which repeat hard rows) reach
the bound with one order or the other: 200 (322 nodes), 300 s1 (few,
77,529 nodes; size runs out), 500 s3 (both, 113,000 nodes) and every seed 0 and 2. Not
400 s1, where 41 buffers start at op 14 and more than 100,000 subsets add up to the
bytes that ended there, nor 500 s1 or 500 s2. Writes
benchmarks/results/explore_band_search.json.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from itertools import combinations
from pathlib import Path

import numpy as np

try:
    import arenaplan
except ImportError as exc:  # pragma: no cover
    sys.exit(f"explore_band_search: cannot import arenaplan ({exc}); run `pip install -e .` first")

from arenaplan.buffers import BufferProblem, verify_offsets  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_planner import ALIGN, hard_problems, rectangle_cut  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "explore_band_search.json"


class OutOfNodes(Exception):
    pass


class BandSearch:
    """The recursive band search of one problem (sizes in multiples of ``grain``)."""

    def __init__(self, sizes, first, last, order: str, cap: int, node_limit: int, grain: int = ALIGN):
        self.size = [int(s) for s in sizes]
        self.first = [int(f) for f in first]
        self.last = [int(t) for t in last]
        self.order, self.cap, self.node_limit, self.grain = order, cap, node_limit, grain
        self.nodes = 0
        self.failed = set()

    # -- subsets of the buffers starting at one op that add up to a byte count ---------
    def _subsets(self, items, target):
        units = [self.size[i] // self.grain for i in items]
        goal = target // self.grain
        if self.order == "size":
            return self._subsets_by_size(items, units, goal)
        return self._subsets_by_count(items, units, goal)

    def _subsets_by_size(self, items, units, goal):
        n = len(items)
        reach = [0] * (n + 1)     # reach[i]: bitset of the sums items[i:] can make
        reach[n] = 1
        for i in range(n - 1, -1, -1):
            reach[i] = reach[i + 1] | (reach[i + 1] << units[i])
        out, cur = [], []

        def walk(i, rest):
            if len(out) >= self.cap or not (reach[i] >> rest) & 1:
                return
            if rest == 0:
                out.append(list(cur))
                return
            if units[i] <= rest:
                cur.append(items[i])
                walk(i + 1, rest - units[i])
                cur.pop()
            walk(i + 1, rest)

        walk(0, goal)
        return out

    def _subsets_by_count(self, items, units, goal):
        out = []
        for k in range(1, len(items) + 1):
            for combo in combinations(range(len(items)), k):
                if sum(units[j] for j in combo) == goal:
                    out.append([items[j] for j in combo])
                    if len(out) >= self.cap:
                        return out
            if len(out) >= self.cap or k > 6:   # wide subsets: fall back to the size order
                break
        seen = {frozenset(s) for s in out}
        return out + [s for s in self._subsets_by_size(items, units, goal) if frozenset(s) not in seen]

    # -- bands -------------------------------------------------------------------------
    def _bands(self, idx, t0, t1, width):
        starts = defaultdict(list)
        for i in idx:
            starts[self.first[i]].append(i)
        for t in starts:
            starts[t].sort(key=lambda i: -self.size[i])
        seen = set()

        def extend(band, t, ending):
            self.nodes += 1
            if self.nodes > self.node_limit:
                raise OutOfNodes
            while t <= t1 and not ending.get(t - 1):
                t += 1
            if t > t1:
                yield list(band)
                return
            for sub in self._subsets(starts.get(t, []), ending[t - 1]):
                for i in sub:
                    ending[self.last[i]] = ending.get(self.last[i], 0) + self.size[i]
                    band.append(i)
                yield from extend(band, t + 1, ending)
                for i in sub:
                    ending[self.last[i]] -= self.size[i]
                    band.pop()

        opening = starts[t0]
        for k in range(1, len(opening)):
            for combo in combinations(opening, k):
                w = sum(self.size[i] for i in combo)
                if 2 * w > width:
                    continue
                ending = defaultdict(int)
                for i in combo:
                    ending[self.last[i]] += self.size[i]
                for band in extend(list(combo), t0 + 1, ending):
                    key = frozenset(band)
                    if key not in seen:
                        seen.add(key)
                        yield band, w

    # -- the recursion -------------------------------------------------------------------
    def solve(self, idx, t0, t1, width):
        """[(buffer, offset)] placing ``idx`` in ``width`` bytes over [t0, t1], or None."""
        key = frozenset(idx)
        if key in self.failed:
            return None
        placed = self._solve(idx, t0, t1, width)
        if placed is None:
            self.failed.add(key)
        return placed

    def _solve(self, idx, t0, t1, width):
        crossing = [0] * (t1 - t0 + 2)
        for i in idx:
            if self.first[i] < self.last[i]:
                crossing[self.first[i] - t0 + 1] += 1
                crossing[self.last[i] - t0 + 1] -= 1
        open_ = 0
        for k in range(1, t1 - t0 + 1):
            open_ += crossing[k]
            if open_ == 0:      # nothing crosses into op t0 + k: two independent parts
                cut = t0 + k
                left = self.solve([i for i in idx if self.last[i] < cut], t0, cut - 1, width)
                right = None if left is None else self.solve([i for i in idx if self.first[i] >= cut],
                                                             cut, t1, width)
                return None if right is None else left + right
        full = [i for i in idx if self.first[i] == t0 and self.last[i] == t1]
        if full:
            placed, offset = [], 0
            for i in full:
                placed.append((i, offset))
                offset += self.size[i]
            rest = [i for i in idx if i not in set(full)]
            if not rest:
                return placed
            above = self.solve(rest, t0, t1, width - offset)
            return None if above is None else placed + [(i, o + offset) for i, o in above]
        if len(idx) < 2:
            return None
        for band, w in self._bands(idx, t0, t1, width):
            inside = set(band)
            below = self.solve(band, t0, t1, w)
            if below is None:
                continue
            above = self.solve([i for i in idx if i not in inside], t0, t1, width - w)
            if above is not None:
                return below + [(i, o + w) for i, o in above]
        return None


def attempt(sizes, first, last, order, cap, node_limit):
    search = BandSearch(sizes, first, last, order, cap, node_limit)
    start = time.perf_counter()
    t0, t1 = int(min(first)), int(max(last))
    width = int(arenaplan.plan_buffers(sizes, first, last, alignment=ALIGN, strategy="greedy_size")
                .lower_bound_bytes)
    try:
        placed = search.solve(list(range(len(sizes))), t0, t1, width)
    except OutOfNodes:
        placed = None
    elapsed = time.perf_counter() - start
    arena = None
    if placed is not None and len(placed) == len(sizes):
        offsets = np.zeros(len(sizes), dtype=np.int64)
        for i, o in placed:
            offsets[i] = o
        problem = BufferProblem.build(sizes, first, last, [ALIGN] * len(sizes))
        arena = verify_offsets(problem, offsets)   # the C checker: raises InvalidPlan on overlap
    return {"order": order, "arena_bytes": arena, "bound": width, "nodes": search.nodes,
            "seconds": round(elapsed, 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=0, help="also seeds 0..N-1 of each size")
    parser.add_argument("--node-limit", type=int, default=200_000)
    parser.add_argument("--cap", type=int, default=2_000, help="subsets kept per op")
    args = parser.parse_args()
    problems = [(name, s, f, l) for name, s, f, l in hard_problems([200, 300, 400, 500])]
    for n in (300, 400, 500):
        for seed in range(args.seeds):
            s, f, l = rectangle_cut(n, seed)
            problems.append((f"cut_{n}_s{seed}", s, f, l))
    rows = []
    print(f"{'problem':<16}{'order':<7}{'arena':>9}{'bound':>9}{'nodes':>10}{'s':>8}")
    for name, s, f, l in problems:
        for order in ("size", "few"):
            r = dict(attempt(s, f, l, order, args.cap, args.node_limit), problem=name)
            rows.append(r)
            arena = f"{r['arena_bytes']:,}" if r["arena_bytes"] is not None else "-"
            print(f"{name:<16}{order:<7}{arena:>9}{r['bound']:>9,}{r['nodes']:>10,}{r['seconds']:>8.2f}",
                  flush=True)
    solved = {name for name, *_ in problems if any(r["problem"] == name and r["arena_bytes"] == r["bound"]
                                                    for r in rows)}
    print(f"\nat the bound with either order: {len(solved)} of {len(problems)}")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps({"node_limit": args.node_limit, "cap": args.cap, "rows": rows}, indent=1))
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
