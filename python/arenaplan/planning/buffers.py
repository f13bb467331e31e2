"""Plan offsets for buffers with lifetimes in one arena: ``plan_buffers``.

This is the planner on its own, without a model: sizes, first and last op of
each buffer in, offsets out, with the live-bytes lower bound beside them.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence, Union

import numpy as np

from .. import _core
from ..errors import InvalidArgument
from ..units import parse_bytes
from ..errors import InvalidPlan
from ..errors import PlanDoesNotFit

__all__ = ["STRATEGIES", "BufferPlan", "plan_buffers", "lower_bound", "verify_offsets",
           "ProgressBar"]

#: Strategy names, in the order of the C enum ``ap_strategy``.
STRATEGIES: tuple = tuple(_core.strategy_names())

ArrayLike = Union[Sequence[int], np.ndarray]
_INT32_MAX = (1 << 31) - 1
_U64_MAX = (1 << 64) - 1

# Overlap kinds of the C enum ap_overlap_kind.
OVERLAP_ALIAS = 0
OVERLAP_LEAD = 1


def _integer_vector(values: ArrayLike, name: str, low: int, high: int) -> np.ndarray:
    """Validate a 1-D vector of integers in [low, high]; returns int64 or uint64."""
    if isinstance(values, (str, bytes)):
        raise InvalidArgument(f"{name} must be a sequence of integers, got {type(values).__name__}")
    try:
        if isinstance(values, np.ndarray):
            arr = values
        else:
            seq = list(values)
            # NumPy turns Python ints beyond int64 into floats: keep them exact.
            huge = any(isinstance(v, int) and not -(1 << 63) <= v < (1 << 63) for v in seq)
            arr = np.array(seq, dtype=object) if huge else np.asarray(seq)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"{name} must be a sequence of integers: {exc}") from None
    if arr.ndim != 1:
        raise InvalidArgument(f"{name} must be one-dimensional, got shape {arr.shape}")
    kind = arr.dtype.kind
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if kind == "b":
        raise InvalidArgument(f"{name} must be integers, got booleans")
    if kind in "iu":
        ints = arr
    elif kind == "f":
        bad = np.flatnonzero(~np.isfinite(arr) | (arr != np.floor(arr)))
        if bad.size:
            i = int(bad[0])
            raise InvalidArgument(f"{name}[{i}] = {arr[i].item()!r} is not an integer")
        if np.any(np.abs(arr) >= 2.0 ** 63):
            i = int(np.flatnonzero(np.abs(arr) >= 2.0 ** 63)[0])
            raise InvalidArgument(f"{name}[{i}] = {arr[i].item()!r} is out of range")
        ints = arr.astype(np.int64)
        kind = "i"
    elif kind == "O":
        for i, v in enumerate(arr.tolist()):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise InvalidArgument(f"{name}[{i}] = {v!r} is not an integer")
            if not low <= int(v) <= high:
                raise InvalidArgument(f"{name}[{i}] = {int(v)} is out of range [{low}, {high}]")
        return np.array([int(v) for v in arr.tolist()], dtype=np.uint64 if low >= 0 else np.int64)
    else:
        raise InvalidArgument(f"{name} must be integers, got dtype {arr.dtype}")
    bad = np.zeros(len(ints), dtype=bool)
    if kind == "i":
        bad |= ints < low
    if high < (1 << 63) or kind == "u" and high < _U64_MAX:
        bad |= ints > (np.uint64(high) if kind == "u" else np.int64(high))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidArgument(f"{name}[{i}] = {int(ints[i])} is out of range [{low}, {high}]")
    return ints


@dataclass(frozen=True)
class BufferProblem:
    """Validated planner input: per-buffer size, alignment, first and last op."""

    sizes: np.ndarray       # uint64
    alignments: np.ndarray  # uint64
    first: np.ndarray       # int32
    last: np.ndarray        # int32

    @classmethod
    def build(cls, sizes: ArrayLike, first: ArrayLike, last: ArrayLike,
              alignment: Union[int, ArrayLike] = 16) -> "BufferProblem":
        s = _integer_vector(sizes, "sizes", 0, _U64_MAX)
        f = _integer_vector(first, "first", 0, _INT32_MAX)
        l_ = _integer_vector(last, "last", 0, _INT32_MAX)
        if not (len(s) == len(f) == len(l_)):
            raise InvalidArgument(f"sizes, first and last must have the same length, "
                                  f"got {len(s)}, {len(f)} and {len(l_)}")
        if np.ndim(alignment) == 0:
            a_value = parse_bytes(alignment, "alignment")
            a = np.full(len(s), a_value, dtype=np.uint64)
        else:
            a = _integer_vector(alignment, "alignment", 0, _U64_MAX)
            if len(a) != len(s):
                raise InvalidArgument(f"alignment has {len(a)} entries for {len(s)} buffers")
        a = a.astype(np.uint64)
        bad = np.flatnonzero((a == 0) | ((a & (a - np.uint64(1))) != 0)) if len(a) else []
        if len(bad):
            i = int(bad[0])
            raise InvalidArgument(f"alignment[{i}] = {int(a[i])} is not a power of two")
        f = f.astype(np.int32)
        l_ = l_.astype(np.int32)
        wrong = np.flatnonzero(f > l_)
        if wrong.size:
            i = int(wrong[0])
            raise InvalidArgument(f"buffer {i}: first op {int(f[i])} > last op {int(l_[i])}")
        return cls(np.ascontiguousarray(s, dtype=np.uint64), np.ascontiguousarray(a),
                   np.ascontiguousarray(f), np.ascontiguousarray(l_))

    def __len__(self) -> int:
        return len(self.sizes)

    def aligned_sizes(self) -> np.ndarray:
        a = self.alignments
        return ((self.sizes + a - np.uint64(1)) // a) * a

    def live_bytes(self, op_count: Optional[int] = None) -> np.ndarray:
        """Aligned bytes live at each op 0..op_count - 1 (default: through the last op any
        buffer lives at), computed by the C core (ap_buffers_live_bytes): exact, as
        ``exact_vector`` returns integers."""
        if op_count is None:
            op_count = int(self.last.max()) + 1 if len(self) else 0
        raw = _core.live_bytes(*self.core_args(), int(op_count))
        return exact_vector(np.frombuffer(raw, dtype=np.uint64))

    def core_args(self) -> tuple:
        return (self.sizes, self.alignments, self.first, self.last)


@dataclass(frozen=True)
class BufferPlan:
    """Offsets of buffers in one arena, with the bound they are measured against."""

    problem: BufferProblem
    offsets: np.ndarray           # one per buffer: int64, or uint64 when one is 2**63 or more
    arena_bytes: int
    lower_bound_bytes: int
    strategy: str                 # the strategy whose placement this is
    optimal: bool                 # arena_bytes proven minimal
    elapsed_s: float = 0.0
    search_steps: int = 0
    requested: str = field(default="auto")
    #: strategies the call skipped or cut short for lack of time or memory; with
    #: "greedy_size" here, TFLite Micro's figure was not computed for this problem
    skipped: tuple = ()

    @property
    def sizes(self) -> np.ndarray:
        """Bytes of each buffer (int64, or uint64 when one is 2**63 or more)."""
        return exact_vector(self.problem.sizes)

    @property
    def first(self) -> np.ndarray:
        return self.problem.first

    @property
    def last(self) -> np.ndarray:
        return self.problem.last

    @property
    def overhead(self) -> float:
        """arena / lower bound - 1 (0.0 when the plan meets the bound)."""
        if self.lower_bound_bytes == 0:
            return 0.0
        return self.arena_bytes / self.lower_bound_bytes - 1.0

    def verify(self, capacity: Optional[int] = None) -> bool:
        """Check the plan independently of the planner; raises InvalidPlan if it is wrong."""
        arena = verify_offsets(self.problem, self.offsets, capacity=capacity)
        if arena != self.arena_bytes:
            raise InvalidPlan(f"plan claims {self.arena_bytes} arena bytes, verifier measures {arena}")
        return True

    def __repr__(self) -> str:
        proven = ", proven optimal" if self.optimal else ""
        return (f"BufferPlan({len(self.problem)} buffers, arena {self.arena_bytes} B, "
                f"lower bound {self.lower_bound_bytes} B, {self.strategy}{proven})")


def exact_vector(values: np.ndarray) -> np.ndarray:
    """uint64 values as int64 when every one fits (so that arithmetic with other
    integer arrays stays integer), else as uint64: never wrapped to negative."""
    values = np.asarray(values, dtype=np.uint64)
    if len(values) and values.max() > np.uint64(2**63 - 1):
        return values.copy()
    return values.astype(np.int64)


def _strategy_value(strategy: str) -> int:
    if strategy not in STRATEGIES:
        raise InvalidArgument(f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
    return STRATEGIES.index(strategy)


def _time_limit(time_limit_s: Optional[float]) -> float:
    if time_limit_s is None:
        return 0.0
    try:
        value = float(time_limit_s)
    except (TypeError, ValueError):
        raise InvalidArgument(f"time_limit_s must be a number of seconds, got {time_limit_s!r}") from None
    if not value > 0 or not np.isfinite(value):
        raise InvalidArgument(f"time_limit_s must be > 0 seconds, got {time_limit_s!r}")
    return value


def _step_limit(step_limit: Optional[int]) -> int:
    if step_limit is None:
        return 0
    if (isinstance(step_limit, bool) or not isinstance(step_limit, (int, np.integer))
            or not 1 <= step_limit <= _U64_MAX):
        raise InvalidArgument(f"step_limit must be an integer in [1, 2**64), got {step_limit!r}")
    return int(step_limit)


class ProgressBar:
    """Progress callable for the C planner's poll hook: shows a tqdm bar on stderr
    once a call has run for ``delay_s`` seconds, then follows the fraction done."""

    def __init__(self, desc: str = "planning", delay_s: float = 1.0) -> None:
        self.desc = desc
        self.delay_s = delay_s
        self.start = time.monotonic()
        self.bar = None

    def __call__(self, fraction: float) -> None:
        if self.bar is None:
            if time.monotonic() - self.start < self.delay_s:
                return
            from tqdm import tqdm  # a dependency; imported only for long plans
            self.bar = tqdm(total=1000, desc=self.desc, file=sys.stderr, leave=False,
                            bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}")
        done = int(round(min(max(fraction, 0.0), 1.0) * 1000))
        if done > self.bar.n:
            self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def progress_hook(progress: Union[None, bool, Callable[[float], None]],
                  desc: str = "planning") -> Optional[Callable[[float], None]]:
    """The callable for the C side: None = a bar when stderr is a terminal, True /
    False to force it on / off, or the caller's own callable(fraction)."""
    if callable(progress) and not isinstance(progress, bool):
        return progress
    if progress is None:
        isatty = getattr(sys.stderr, "isatty", None)
        progress = bool(isatty and isatty())
    if not isinstance(progress, bool):
        raise InvalidArgument(f"progress must be None, True, False or a callable, got {progress!r}")
    return ProgressBar(desc) if progress else None


def _memory_limit(memory_limit: Optional[Union[int, str]]) -> int:
    if memory_limit is None:
        return 0
    value = parse_bytes(memory_limit, "memory_limit")
    if value <= 0:
        raise InvalidArgument(f"memory_limit must be at least 1 byte, got {memory_limit!r}")
    return value


def skipped_names(mask: int) -> tuple:
    """Strategy names of a skipped-phases mask (ap_plan_stats.skipped)."""
    return tuple(name for i, name in enumerate(STRATEGIES) if mask >> i & 1)


def _fixed_vector(fixed: Optional[Sequence[Optional[int]]], count: int) -> Optional[np.ndarray]:
    """Pre-placed offsets for the C side: uint64, 2**64 - 1 where the planner places the buffer."""
    if fixed is None:
        return None
    if isinstance(fixed, (str, bytes)):
        raise InvalidArgument(f"fixed must be a sequence of offsets or None, got {type(fixed).__name__}")
    values = list(fixed)
    if len(values) != count:
        raise InvalidArgument(f"fixed has {len(values)} entries for {count} buffers")
    free = [v is None for v in values]
    pinned = _integer_vector([0 if f else v for f, v in zip(free, values)], "fixed", 0, _U64_MAX - 1)
    pinned = np.asarray(pinned, dtype=np.uint64) if count else np.zeros(0, dtype=np.uint64)
    pinned[np.asarray(free, dtype=bool)] = np.uint64(_U64_MAX)
    return np.ascontiguousarray(pinned)


def solve(problem: BufferProblem, strategy: str = "auto", time_limit_s: Optional[float] = None,
          seed: int = 0, capacity: Optional[int] = None,
          step_limit: Optional[int] = None, memory_limit: Optional[Union[int, str]] = None,
          progress: Union[None, bool, Callable[[float], None]] = False,
          fixed: Optional[Sequence[Optional[int]]] = None) -> BufferPlan:
    """Plan a validated problem (see plan_buffers)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed <= _U64_MAX:
        raise InvalidArgument(f"seed must be an integer in [0, 2**64), got {seed!r}")
    steps = _step_limit(step_limit)
    cap = 0 if capacity is None else parse_bytes(capacity, "capacity")
    if capacity is not None and cap == 0 and len(problem):
        cap = 0  # a capacity of 0 only fits zero-size buffers; the C side treats 0 as "no limit"
        if np.any(problem.sizes > 0):
            raise PlanDoesNotFit("capacity 0 bytes cannot hold any non-empty buffer",
                                 needed=int(problem.aligned_sizes().max()), available=0)
    mem = _memory_limit(memory_limit)
    value = _strategy_value(strategy)
    pinned = _fixed_vector(fixed, len(problem))
    hook = progress_hook(progress)
    try:
        raw, stats = _core.plan_buffers(*problem.core_args(), value, _time_limit(time_limit_s),
                                        int(seed), cap, steps, mem, hook, pinned)
    finally:
        if isinstance(hook, ProgressBar):
            hook.close()
    arena, bound, optimal, used, elapsed, steps, skipped = stats
    offsets = exact_vector(np.frombuffer(raw, dtype=np.uint64))
    return BufferPlan(problem, offsets, int(arena), int(bound), used, bool(optimal),
                      float(elapsed), int(steps), strategy, skipped_names(skipped))


def plan_buffers(sizes: ArrayLike, first: ArrayLike, last: ArrayLike, alignment: Union[int, ArrayLike] = 16,
                 strategy: str = "auto", time_limit_s: Optional[float] = None, seed: int = 0,
                 capacity: Optional[Union[int, str]] = None,
                 step_limit: Optional[int] = None,
                 memory_limit: Optional[Union[int, str]] = None,
                 progress: Union[None, bool, Callable[[float], None]] = None,
                 fixed: Optional[Sequence[Optional[int]]] = None) -> BufferPlan:
    """Place buffers with lifetimes in one arena.

    Args:
        sizes: bytes of each buffer (non-negative integers).
        first, last: first and last op index (inclusive) each buffer is live.
        alignment: a power of two for all buffers, or one per buffer; sizes are
            rounded up to it, as TensorFlow Lite Micro does.
        strategy: one of ``STRATEGIES`` ("auto", "greedy_size", "greedy_size_best_fit",
            "greedy_conflicts", "greedy_conflicts_best_fit", "anneal", "exact", "lns",
            "bands"). ``strategy`` of the result names the one whose placement was
            returned: "exact", "bands" or "lns" for the phase of auto that found it.
            ``auto`` runs the greedy heuristics, then the exact search; on a problem
            whose live bytes are the bound at every op (e.g. a cut-up address x time
            rectangle) that it leaves above the bound, the band decomposition, which
            finds perfect packings of such problems or, failing that, places exactly
            what bands it finds and plans the rest apart; then the large-neighbourhood
            search improves the best plan. ``bands`` runs the greedy heuristics and
            then the band decomposition alone, with the whole time limit.
        time_limit_s: bound on the search strategies (default: about a second).
        seed: makes randomised search deterministic.
        capacity: stop at the first plan within this many bytes (``"96KiB"`` accepted);
            raises PlanDoesNotFit if none is found.
        step_limit: also stop the search strategies after about this many search steps
            (``search_steps`` of the result). A search that ends on its steps rather
            than on the clock returns the same plan for the same input and seed on any
            machine; leave the time limit generous for that.
        memory_limit: bytes of working memory a phase may take (``"8GiB"`` accepted;
            default 4 GiB), estimated before it allocates. auto and the searches skip
            a phase over it (the plan says so in ``skipped``); a greedy strategy whose
            conflict graph is over it raises PlanDoesNotFit with ``pool="host"`` and
            ``needed`` = the bytes it would take.
        progress: None (default) shows a progress bar on stderr for plans that take
            more than a second when stderr is a terminal; True / False force it on /
            off; a callable gets the fraction done (0..1) about every 20 ms (raising
            in it cancels the plan). Ctrl-C stops a plan within about 20 ms of
            planning time with KeyboardInterrupt, whatever this is.
        fixed: None, or per buffer the offset it is pre-placed at (a multiple of its
            alignment) or None for a buffer the planner places; greedy strategies only
            (InvalidArgument for any other). The pre-placed buffers keep their offsets and
            come first, in index order; the others are placed around them in the
            strategy's order, as TensorFlow Lite Micro places offline-planned buffers.
            Two pre-placed buffers live at a common op that share a byte raise
            InvalidArgument naming both and the op.

    Large problems: when the conflict graph would take more than the memory limit,
    or building it and one greedy pass over it more than a quarter of the time
    limit, the search strategies (auto included) start from the "sweep" plan (a
    pass over ops in order, each buffer first fit among the free ranges; no graph)
    and run what else fits; ``strategy`` is then "sweep" unless a later phase did
    better, and ``skipped`` lists what did not run (with "greedy_size" there, the
    arena is not TFLite Micro's figure). The search strategies return within about
    10 % + 50 ms of ``time_limit_s``; the greedy strategies ignore the limit.

    Returns:
        BufferPlan with ``offsets``, ``arena_bytes``, ``lower_bound_bytes``,
        ``strategy``, ``optimal`` and ``verify()``. Sizes and offsets are exact up to
        2**64 - 1: ``offsets`` is an int64 array, or uint64 when an offset is 2**63
        or more (never wrapped to a negative number). A problem whose aligned sizes plus
        each buffer's alignment - 1 of padding sum past 2**64 - 1 raises SizeOverflow.
    """
    problem = BufferProblem.build(sizes, first, last, alignment)
    return solve(problem, strategy, time_limit_s, seed, capacity, step_limit, memory_limit,
                 progress, fixed)


def lower_bound(sizes: ArrayLike, first: ArrayLike, last: ArrayLike,
                alignment: Union[int, ArrayLike] = 16) -> int:
    """Max over ops of the aligned bytes live at that op: no plan can be smaller."""
    return int(_core.lower_bound(*BufferProblem.build(sizes, first, last, alignment).core_args()))


def verify_offsets(problem: BufferProblem, offsets: ArrayLike, overlaps: Sequence[tuple] = (),
                   capacity: Optional[int] = None) -> int:
    """Check offsets for ``problem``; returns the arena bytes or raises InvalidPlan.

    overlaps: (input, output, kind, min_lead) tuples declaring pairs that may share
    bytes (kind OVERLAP_ALIAS: any sharing; OVERLAP_LEAD: output starting at least
    min_lead bytes before input).
    """
    off = _integer_vector(offsets, "offsets", 0, _U64_MAX)
    if len(off) != len(problem):
        raise InvalidArgument(f"{len(off)} offsets for {len(problem)} buffers")
    cap = 0 if capacity is None else parse_bytes(capacity, "capacity")
    return int(_core.verify(*problem.core_args(), np.ascontiguousarray(off, dtype=np.uint64),
                            list(overlaps), cap))
