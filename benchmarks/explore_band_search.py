"""Exploration: can a band search reach the bound on the hard rectangles?

The planner's C phase that grew from it is csrc/planner/bands.c; it lists the subsets at
a boundary fewest buffers first (up to 7), then largest first, and reaches the bound on
all four hard rows (bench_planner). The findings below are those of this prototype's
own orders.

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

``--descend`` runs the graceful variant (BandDescent): each sub-problem first gets an exact
try of ``--node-limit`` nodes; failing that it is split in time, its full-span buffers are
peeled, or the first band found is placed, and a part where no band is found within the
limit is planned by `auto`. Findings (2026-11-30, 20,000 nodes, `--seeds 5`, 19 rows,
with `auto` as it was before its band phase listed subsets fewest first):
10 at the bound (hard 200 and 500 s3 among them; 500 s3 leaves an 85-buffer part that auto
solves), 9 not: in each, no band is found in the largest time part (226 buffers of 300 s1,
304 of 400 s1), so auto plans it whole and lands 5.5-11.6 % above. Why the band is not
found, from the generator's own cuts: in 400 s1, ops 0-48 have exactly one full-width cut
(widths 3,117 and 979 granules); the narrow band opens with 1 of the 26 buffers that start
at op 0 and takes 2 of the 41 that start at op 14. In 300 s4 the search does find true
slices first, then takes a constant-profile set of 9 buffers (2,560 B) that is no union of
slices; the rest then fails 143,000 nodes later. Writes
benchmarks/results/explore_band_descent.json.

    python benchmarks/explore_band_search.py --descend --seeds 5 --node-limit 20000
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

from arenaplan.planning.buffers import BufferProblem, verify_offsets  # noqa: E402

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

    def _time_cut(self, idx, t0, t1):
        """The first op after t0 that no buffer of ``idx`` crosses into, or None."""
        crossing = [0] * (t1 - t0 + 2)
        for i in idx:
            if self.first[i] < self.last[i]:
                crossing[self.first[i] - t0 + 1] += 1
                crossing[self.last[i] - t0 + 1] -= 1
        open_ = 0
        for k in range(1, t1 - t0 + 1):
            open_ += crossing[k]
            if open_ == 0:
                return t0 + k
        return None

    def _peel(self, idx, t0, t1):
        """The buffers living over the whole window stacked from 0: ([(buffer, offset)],
        their height, the other buffers)."""
        placed, offset, rest = [], 0, []
        for i in idx:
            if self.first[i] == t0 and self.last[i] == t1:
                placed.append((i, offset))
                offset += self.size[i]
            else:
                rest.append(i)
        return placed, offset, rest

    def _solve(self, idx, t0, t1, width):
        cut = self._time_cut(idx, t0, t1)
        if cut is not None:     # nothing crosses into op `cut`: two independent parts
            left = self.solve([i for i in idx if self.last[i] < cut], t0, cut - 1, width)
            right = None if left is None else self.solve([i for i in idx if self.first[i] >= cut],
                                                         cut, t1, width)
            return None if right is None else left + right
        placed, offset, rest = self._peel(idx, t0, t1)
        if placed:
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


def live_bound(sizes, first, last):
    return int(arenaplan.plan_buffers(sizes, first, last, alignment=ALIGN, strategy="greedy_size")
               .lower_bound_bytes)


def checked_arena(sizes, first, last, placed):
    """The arena of [(buffer, offset)], checked by the planner's C verifier (raises InvalidPlan)."""
    offsets = np.zeros(len(sizes), dtype=np.int64)
    for i, o in placed:
        offsets[i] = o
    return verify_offsets(BufferProblem.build(sizes, first, last, [ALIGN] * len(sizes)), offsets)


class BandDescent(BandSearch):
    """Graceful variant: exact where a band search of ``node_limit`` nodes succeeds, else
    split in time, peel full-span buffers or take the first band found, and plan what is
    left with `auto` (``leftover_s`` seconds per buffer). Returns a plan for every input."""

    def descend(self, idx, t0, t1, width, leftover_s):
        """([(buffer, offset)], height) for ``idx`` over [t0, t1]; height >= width."""
        if not idx:
            return [], 0
        self.nodes = 0
        try:
            placed = self.solve(idx, t0, t1, width)
        except OutOfNodes:
            placed = None
        if placed is not None:
            return placed, width
        cut = self._time_cut(idx, t0, t1)
        if cut is not None:
            left, hl = self.descend([i for i in idx if self.last[i] < cut], t0, cut - 1, width, leftover_s)
            right, hr = self.descend([i for i in idx if self.first[i] >= cut], cut, t1, width, leftover_s)
            return left + right, max(hl, hr)
        placed, offset, rest = self._peel(idx, t0, t1)
        if placed:
            above, h = self.descend(rest, t0, t1, width - offset, leftover_s)
            return placed + [(i, o + offset) for i, o in above], offset + h
        self.nodes = 0
        band = None
        try:
            band = next(iter(self._bands(idx, t0, t1, width)), None)
        except OutOfNodes:
            pass
        if band is not None:
            inside = set(band[0])
            below, hb = self.descend(band[0], t0, t1, band[1], leftover_s)
            above, ha = self.descend([i for i in idx if i not in inside], t0, t1, width - band[1], leftover_s)
            return below + [(i, o + hb) for i, o in above], hb + ha
        plan = arenaplan.plan_buffers([self.size[i] for i in idx], [self.first[i] for i in idx],
                                      [self.last[i] for i in idx], alignment=self.grain, strategy="auto",
                                      time_limit_s=max(0.05, leftover_s * len(idx)))
        self.leftovers.append({"buffers": len(idx), "width": width, "auto": plan.arena_bytes})
        return list(zip(idx, (int(o) for o in plan.offsets))), plan.arena_bytes


def descend(sizes, first, last, cap, node_limit, leftover_s):
    search = BandDescent(sizes, first, last, "size", cap, node_limit)
    search.leftovers = []
    start = time.perf_counter()
    width = live_bound(sizes, first, last)
    placed, _ = search.descend(list(range(len(sizes))), int(min(first)), int(max(last)), width, leftover_s)
    arena = checked_arena(sizes, first, last, placed)
    return {"order": "descend", "arena_bytes": arena, "bound": width, "ratio": round(arena / width, 4),
            "leftovers": search.leftovers, "seconds": round(time.perf_counter() - start, 3)}


def attempt(sizes, first, last, order, cap, node_limit):
    search = BandSearch(sizes, first, last, order, cap, node_limit)
    start = time.perf_counter()
    t0, t1 = int(min(first)), int(max(last))
    width = live_bound(sizes, first, last)
    try:
        placed = search.solve(list(range(len(sizes))), t0, t1, width)
    except OutOfNodes:
        placed = None
    elapsed = time.perf_counter() - start
    arena = None
    if placed is not None and len(placed) == len(sizes):
        arena = checked_arena(sizes, first, last, placed)
    return {"order": order, "arena_bytes": arena, "bound": width, "nodes": search.nodes,
            "seconds": round(elapsed, 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=0, help="also seeds 0..N-1 of each size")
    parser.add_argument("--node-limit", type=int, default=200_000)
    parser.add_argument("--cap", type=int, default=2_000, help="subsets kept per op")
    parser.add_argument("--descend", action="store_true",
                        help="the graceful variant: node limit per try, `auto` on what is left")
    parser.add_argument("--leftover-s", type=float, default=0.01, help="auto's seconds per leftover buffer")
    args = parser.parse_args()
    problems = [(name, s, f, l) for name, s, f, l in hard_problems([200, 300, 400, 500])]
    for n in (300, 400, 500):
        for seed in range(args.seeds):
            s, f, l = rectangle_cut(n, seed)
            problems.append((f"cut_{n}_s{seed}", s, f, l))
    rows = []
    if args.descend:
        print(f"{'problem':<16}{'arena':>9}{'bound':>9}{'ratio':>8}{'s':>7}  leftovers (buffers, width, auto)")
        for name, s, f, l in problems:
            r = dict(descend(s, f, l, args.cap, args.node_limit, args.leftover_s), problem=name)
            rows.append(r)
            left = ", ".join(f"({x['buffers']}, {x['width']:,}, {x['auto']:,})" for x in r["leftovers"])
            print(f"{name:<16}{r['arena_bytes']:>9,}{r['bound']:>9,}{r['ratio']:>8.4f}{r['seconds']:>7.1f}  {left}",
                  flush=True)
        at_bound = sum(r["ratio"] == 1.0 for r in rows)
        print(f"\nat the bound: {at_bound} of {len(rows)}; within 5 %: {sum(r['ratio'] <= 1.05 for r in rows)}")
        out = RESULTS.with_name("explore_band_descent.json")
        out.write_text(json.dumps({"node_limit": args.node_limit, "cap": args.cap,
                                   "leftover_s": args.leftover_s, "rows": rows}, indent=1))
        print(f"wrote {out}")
        return 0
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
