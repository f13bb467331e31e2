"""Host timing of a plan: what Interpreter.profile reports, and how repeats are summarised.

Every profiled repeat (``_core.Graph.profile``, timed inside C) runs each op on its own
between two clock reads, then the whole graph between two clock reads, then nothing
between two clock reads (an empty call into the executor, the fastest of a few). All
three see the same load. The empty call is what every op's sample holds besides the op
itself (the clock reads and one call into the executor), so op times are reported net
of it; the whole run holds it once and is reported net of it too, which makes the sum
of the ops' times and the whole run's time the same quantity.

Two statistics per figure:

* ``seconds`` (``total_s``): the fastest runs, the ``LOW_QUANTILE`` (1st percentile) of
  the repeats. The kernels are deterministic: a repeat can be made slower by what else
  runs on the machine (another process on the core, a busy sibling thread, contended
  caches), never faster than the op's own cost. On a shared machine the speed flips
  between states for milliseconds to seconds (1.3-1.9x apart here); the fastest runs of
  repeats spread over such a window are the op's own cost, where medians follow the
  load of the moment. The 1st percentile rather than the single fastest run: with many
  plans interleaved, a fast spell of a millisecond reaches some of them and not others,
  and one lucky repeat would decide a figure.
* ``median_s`` (``total_median_s``): the typical repeat under the load of the moment.

``profile_rounds`` profiles several interpreters together, repeat by repeat, so that
every one of them samples the same moments of the machine's history, and accumulates
their repeats (``Timings``) until the figures settle.
"""
from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence

import numpy as np
from .. import _core

__all__ = ["LOW_QUANTILE", "OpProfile", "Profile", "Summary", "Timings", "summarise",
           "profile_together", "profile_rounds"]

#: The quantile of the repeats reported as an op's (and a run's) time.
LOW_QUANTILE = 0.01

# Repeats are kept as counts in log-spaced bins, 0.5 % wide, from 1 ns to 10 s: quantiles
# of any number of repeats in fixed memory, to a quarter of a percent.
_BIN_FLOOR = 1e-9
_BIN_RATIO = 1.005
_BINS = int(math.ceil(math.log(1e10) / math.log(_BIN_RATIO)))


@dataclass(frozen=True)
class OpProfile:
    """Measured time of one op over a profile's repeats (net of the timer's own cost).

    ``seconds`` is its fastest runs (the 1st percentile of the repeats: the op's own
    cost, what the host latency source predicts); ``median_s`` the typical repeat under
    the load of the moment.
    """

    index: int
    type: str
    variant: str
    seconds: float
    scratch_bytes: int
    median_s: float = 0.0


class Profile(list):
    """``Interpreter.profile``'s answer: a list of OpProfile, one per op, plus the whole run.

    Attributes:
        total_s: the whole run's fastest runs (1st percentile, net of the timer's cost).
        total_median_s: the median whole run.
        timer_s: the cost of one timed empty call (two clock reads and a call into the
            executor), the fastest of the repeats; subtracted from every figure above.
        repeats: how many repeats were timed.
    """

    def __init__(self, ops: Sequence[OpProfile], total_s: float, total_median_s: float,
                 timer_s: float, repeats: int) -> None:
        super().__init__(ops)
        self.total_s = total_s
        self.total_median_s = total_median_s
        self.timer_s = timer_s
        self.repeats = repeats

    @property
    def ops_total_s(self) -> float:
        """Sum of the ops' times: what a latency source built from them predicts."""
        return float(sum(op.seconds for op in self))

    def __repr__(self) -> str:
        return (f"Profile({len(self)} ops, total {self.total_s * 1e6:.2f} us fastest / "
                f"{self.total_median_s * 1e6:.2f} us median over {self.repeats} repeats)")


@dataclass(frozen=True)
class Summary:
    """Statistics of a graph's repeats (seconds, net of the timed empty call)."""

    op_s: np.ndarray
    op_median_s: np.ndarray
    total_s: float
    total_median_s: float
    timer_s: float
    repeats: int


class Timings:
    """The repeats of one graph, accumulated: raw rows of ``_core.Graph.profile`` (per
    repeat: n op times, the whole run, the empty call), kept as log-spaced histograms
    per column plus each column's minimum."""

    def __init__(self, width: int) -> None:
        if width < 2:
            raise ValueError(f"profile rows have the ops' times and two more, got width {width}")
        self.width = width
        self.repeats = 0
        self._counts = np.zeros((width, _BINS), dtype=np.int64)
        self._minimum = np.full(width, math.inf)

    def add(self, rows: np.ndarray) -> "Timings":
        rows = np.asarray(rows, dtype=np.float64)
        if rows.ndim != 2 or rows.shape[0] < 1 or rows.shape[1] != self.width:
            raise ValueError(f"profile rows must be (repeats >= 1, {self.width}), got shape {rows.shape}")
        bins = np.log(np.maximum(rows, _BIN_FLOOR) / _BIN_FLOOR) / math.log(_BIN_RATIO)
        bins = np.clip(bins.astype(np.int64), 0, _BINS - 1)
        flat = (np.arange(self.width)[None, :] * _BINS + bins).ravel()
        self._counts += np.bincount(flat, minlength=self.width * _BINS).reshape(self.width, _BINS)
        self._minimum = np.minimum(self._minimum, rows.min(axis=0))
        self.repeats += rows.shape[0]
        return self

    def quantile(self, q: float) -> np.ndarray:
        """Per column, the ``q`` quantile of the repeats (the centre of its bin, never
        below the column's fastest repeat; the fastest itself when it is the one asked)."""
        if self.repeats == 0:
            raise ValueError("no repeats yet")
        rank = max(1, math.ceil(q * self.repeats))
        if rank == 1:
            return self._minimum.copy()
        index = np.argmax(np.cumsum(self._counts, axis=1) >= rank, axis=1)
        return np.maximum(_BIN_FLOOR * _BIN_RATIO ** (index + 0.5), self._minimum)

    def summary(self) -> Summary:
        n = self.width - 2
        timer = float(self._minimum[n + 1])
        low, median = self.quantile(LOW_QUANTILE), self.quantile(0.5)
        return Summary(op_s=np.maximum(low[:n] - timer, 0.0),
                       op_median_s=np.maximum(median[:n] - timer, 0.0),
                       total_s=max(float(low[n]) - timer, 0.0),
                       total_median_s=max(float(median[n]) - timer, 0.0),
                       timer_s=timer, repeats=self.repeats)


def summarise(rows: np.ndarray) -> Summary:
    """Statistics of raw rows of ``_core.Graph.profile`` (see Timings), net of the
    fastest empty call: the cost of the clock reads when nothing slows them. A net
    figure below zero (an op cheaper than the clock's jitter, such as an aliased
    RESHAPE) is reported as zero."""
    rows = np.asarray(rows, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[0] < 1 or rows.shape[1] < 2:
        raise ValueError(f"profile rows must be (repeats >= 1, ops + 2), got shape {rows.shape}")
    return Timings(rows.shape[1]).add(rows).summary()


def profile_together(timed: Sequence, repeats: int) -> List[np.ndarray]:
    """Raw profile rows of every item of ``timed`` (Interpreters, or anything with
    ``_profile_handle()`` giving (graph, pools)), all profiled in one call into C that
    runs one repeat of each in turn, ``repeats`` times: they sample the same moments of
    the machine, a repeat apart. Each repeat of a graph follows an untimed run of it, so
    its caches are as its own previous run left them, as between back-to-back runs."""
    # each Interpreter's own lock, taken once and in one order (no two callers deadlock)
    locks = {id(t._lock): t._lock for t in timed if getattr(t, "_lock", None) is not None}
    with contextlib.ExitStack() as held:
        for key in sorted(locks):
            held.enter_context(locks[key])
        rows = _core.Graph.profile_together([t._profile_handle() for t in timed], int(repeats))
    return [np.array(r) for r in rows]


#: Changes below this many seconds are the clock's resolution (about 10 ns here), not news.
_CLOCK_S = 5e-8


def _settled(history: List[tuple], settle: float) -> bool:
    """Whether the running figures in ``history`` ((elapsed, figures) per round) improved
    by at most ``settle`` (relative, or the clock's resolution) over the second half of
    the elapsed time."""
    now, latest = history[-1]
    then = next(f for t, f in reversed(history) if t <= now / 2) if history[0][0] <= now / 2 \
        else history[0][1]
    return all(b - a <= settle * b + _CLOCK_S for a, b in zip(latest, then))


def profile_rounds(interpreters: Sequence, window_s: float, min_rounds: int = 3,
                   call_s: float = 0.002, x: Optional[Sequence] = None,
                   progress: Optional[Callable[[int, int], None]] = None,
                   max_window_s: Optional[float] = None, settle: float = 0.01,
                   ready: Optional[Callable[[List[Timings]], bool]] = None) -> List[Timings]:
    """Profile every interpreter together, repeat by repeat, in rounds, for ``window_s``
    or longer; returns each one's accumulated Timings.

    Each round is one ``profile_together`` call whose repeats last about ``call_s`` per
    interpreter. Rounds go on for at least ``window_s`` and ``min_rounds``, then until
    the figures have settled: the sum of each interpreter's op times and its whole run
    (``Timings.summary``) improved by at most ``settle`` (relative) over the second half
    of the time spent, and ``ready(timings)`` (if given) agrees, or until
    ``max_window_s`` (default 4 x ``window_s``) has passed. On a machine that runs slow
    for a while, this waits for a spell of its normal speed. ``x`` (per interpreter, its
    input or None) is written once, by a warm-up run, before the first round.
    ``progress(done, expected)`` is called after every round.
    """
    if not interpreters:
        return []
    limit = 4 * window_s if max_window_s is None else max(max_window_s, window_s)
    once = 0.0
    timings = []
    for i, it in enumerate(interpreters):
        if x is not None and x[i] is not None:
            it.run(x[i])                  # also the warm-up: caches, page faults
        p = it.profile(repeats=3)
        # a repeat runs the graph untimed, every op timed, the whole graph, the empty calls
        once += max(p.ops_total_s + 2 * p.total_s + (len(p) + 9) * p.timer_s, 1e-7)
        timings.append(Timings(len(p) + 2))
    repeats = max(1, min(10000, int(call_s * len(interpreters) / once)))
    history: List[tuple] = []
    start = time.perf_counter()
    done = 0
    while True:
        for t, rows in zip(timings, profile_together(interpreters, repeats)):
            t.add(rows)
        done += 1
        elapsed = time.perf_counter() - start
        summaries = [t.summary() for t in timings]
        history.append((elapsed, [float(s.op_s.sum()) for s in summaries] + [s.total_s for s in summaries]))
        finished = done >= min_rounds and elapsed >= window_s and \
            (elapsed >= limit or (_settled(history, settle) and (ready is None or ready(timings))))
        if progress is not None:
            expected = done if finished else max(min_rounds, done + 1,
                                                 math.ceil(window_s * done / max(elapsed, 1e-9)))
            progress(done, expected)
        if finished:
            return timings
