"""Exploration: which of a hard rectangle's own bands keep `auto` above the bound?

A hard row of bench_planner is an address x time rectangle cut into a few hundred
buffers by random guillotine cuts (``rectangle_pieces``, which keeps where each piece
was cut from). Its first address cuts split it into full-width bands, each cut up
further. This script lists those top-level bands, then runs `auto` on the union of
every combination of the big ones (at least --min-members pieces), shifted down to
address 0. A union is again a cut rectangle whose optimum is the live-bytes bound,
so each row says whether the planner can pack that part of the problem on its own.

    python benchmarks/explore_true_bands.py                    # 500 s16, 10 s per run
    python benchmarks/explore_true_bands.py 300 39 --time-limit 5

Findings (2026-11-30, 500 s16, time_limit_s=10, this machine, two runs, before the
descent looked on for coarser bands): `auto` ends 8.8-8.9 % above the bound on the whole
rectangle. It has 17 top-level bands; five have 30 pieces or more (88, 36, 40, 110 and
184 pieces, 687, 299, 361, 912 and 1,476 granules wide). Every union of one, two or
three of them reaches the bound, proven, in at most 4.3 s, but one: 36 + 110 + 184 (330
pieces) ends at 1.078 (1.076 with 20 s or 30 s). Every union that holds those three
stays above (with 88: 1.095-1.096, with 40: 1.084, all five: 1.083); of the others, 88 +
40 + 110 + 184 reached the bound in one run (5.3 s) and ended at 1.106 in the other. On
those 330 pieces the descent's first band (traced in C) is a coincidence of 12 pieces,
63 granules wide, from all three bands: a 63-granule piece of band 36 over ops 33-63 and
eleven pieces over ops 0-32 whose widths add up to 63 at every op. No band is found in
the 318 pieces left. Since the capped descent looks on for coarser bands (fewest buffers
per granule), the whole rectangle and every union reach the bound, proven, within 4.0 s.
Writes benchmarks/results/explore_true_bands.json (for another rectangle, a file named
after it beside that, or --out).
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np

from bench_planner import ALIGN, ROOT, machine_info, rectangle_pieces

try:
    import arenaplan
except ImportError as exc:  # pragma: no cover - depends on the environment
    sys.exit(f"explore_true_bands: cannot import arenaplan ({exc}); run `pip install -e .` first")

RESULTS = ROOT / "benchmarks" / "results" / "explore_true_bands.json"


def top_bands(pieces):
    """The rectangle's full-width bands: the address ranges between the cuts that no
    piece straddles, each with the indices of its pieces, lowest first."""
    width = max(p[1] for p in pieces)  # granules: the pieces tile the rectangle
    inside = np.zeros(width + 1, dtype=np.int64)
    for x0, x1, _, _ in pieces:
        inside[x0 + 1] += 1  # boundaries strictly inside the piece: x0 + 1 .. x1 - 1
        inside[x1] -= 1
    straddled = np.cumsum(inside)
    cuts = [x for x in range(1, width) if straddled[x] == 0]
    edges = [0] + cuts + [width]
    bands = []
    for a, b in zip(edges, edges[1:]):
        members = [i for i, p in enumerate(pieces) if a <= p[0] and p[1] <= b]
        bands.append({"from": a, "to": b, "width": b - a, "members": members})
    return bands


def band_name(band):
    return f"{len(band['members'])}/{band['width']}"


def plan_part(pieces, members, time_limit):
    """`auto` and greedy_size on the given pieces alone."""
    sizes = np.array([(pieces[i][1] - pieces[i][0]) * ALIGN for i in members])
    first = np.array([pieces[i][2] for i in members])
    last = np.array([pieces[i][3] - 1 for i in members])
    greedy = arenaplan.plan_buffers(sizes, first, last, alignment=ALIGN, strategy="greedy_size")
    t = time.perf_counter()
    auto = arenaplan.plan_buffers(sizes, first, last, alignment=ALIGN, strategy="auto",
                                  time_limit_s=time_limit)
    elapsed = time.perf_counter() - t
    auto.verify()
    bound = auto.lower_bound_bytes
    return {"pieces": len(members), "lower_bound_bytes": int(bound),
            "greedy_ratio": greedy.arena_bytes / bound, "auto_ratio": auto.arena_bytes / bound,
            "optimal": bool(auto.optimal), "time_s": elapsed}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("buffers", type=int, nargs="?", default=500)
    ap.add_argument("seed", type=int, nargs="?", default=16)
    ap.add_argument("--time-limit", type=float, default=10.0, help="auto's seconds per run")
    ap.add_argument("--min-members", type=int, default=30, help="pieces of a big band")
    ap.add_argument("--max-big", type=int, default=5, help="combine at most this many big bands")
    ap.add_argument("--out", type=Path, default=None,
                    help=f"JSON output path (default {RESULTS.relative_to(ROOT)} for 500 s16, "
                         "explore_true_bands_<buffers>_s<seed>.json beside it otherwise)")
    args = ap.parse_args(argv)

    pieces = rectangle_pieces(args.buffers, args.seed)
    bands = top_bands(pieces)
    big = [b for b in bands if len(b["members"]) >= args.min_members][:args.max_big]
    print(f"{args.buffers} s{args.seed}: {len(bands)} top-level bands (pieces/granules): "
          + ", ".join(band_name(b) for b in bands))

    rows = [dict(part="whole rectangle", **plan_part(pieces, range(len(pieces)), args.time_limit))]
    for k in range(1, len(big) + 1):
        for combo in itertools.combinations(big, k):
            members = sorted(i for b in combo for i in b["members"])
            rows.append(dict(part=" + ".join(band_name(b) for b in combo),
                             **plan_part(pieces, members, args.time_limit)))
            r = rows[-1]
            print(f"  {r['part']:<48} {r['auto_ratio']:.4f}", flush=True)

    print(f"\nauto, time_limit_s={args.time_limit}, on parts of {args.buffers} s{args.seed}")
    print(f"{'part':<48}{'pieces':>7}{'greedy/bound':>14}{'auto/bound':>12}{'proven':>8}{'time (s)':>10}")
    for r in rows:
        print(f"{r['part']:<48}{r['pieces']:>7}{r['greedy_ratio']:>14.3f}{r['auto_ratio']:>12.4f}"
              f"{'yes' if r['optimal'] else 'no':>8}{r['time_s']:>10.2f}")
    result = {"benchmark": "explore_true_bands", "machine": machine_info(),
              "buffers": args.buffers, "seed": args.seed, "time_limit_s": args.time_limit,
              "bands": [{"from": b["from"], "to": b["to"], "width": b["width"],
                         "pieces": len(b["members"])} for b in bands],
              "rows": rows}
    out = args.out
    if out is None:
        out = RESULTS if (args.buffers, args.seed) == (500, 16) else RESULTS.with_name(
            f"explore_true_bands_{args.buffers}_s{args.seed}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
