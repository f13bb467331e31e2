"""Latency sources: how long each (op, variant) takes.

One interface, three implementations:

* ``HostLatency``  runs every variant of every op on this machine with the op's real
  shapes inside the whole model (one profiled plan per variant rank, random inputs,
  the plans profiled together, repeat by repeat; the fastest runs (1st percentile),
  net of the timer's cost), cached on disk by kernel, variant, shapes and a CPU fingerprint, so the second
  call is instant (``host_latency.json`` in ``$ARENAPLAN_CACHE_DIR``, else
  ``$XDG_CACHE_HOME/arenaplan``, else ``~/.cache/arenaplan``);
* ``CostModel``    an analytic model of a target profile (cycles per MAC for each
  variant family, cycles per byte of scratch traffic, a per-op overhead, the clock),
  so a Cortex-M answer needs no board;
* ``TableLatency`` a table a team measured on its own board (CSV or JSON rows of op
  index or layer signature, variant, seconds or cycles), overriding another source.

``resolve(spec)`` turns what a user passes as ``latency=`` into a source:
``"host"``, ``"model:cortex-m4"``, a path to a CSV/JSON table, a mapping, or a source.
"""
from __future__ import annotations


import csv
import hashlib
import json
import math
import os
import platform
import time
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .. import _core
from . import speed_probe
from ..errors import InvalidArgument
from ..ops.lowering import TYPES_CODES, OpKernel, Variant, runs_as
from ..model.model import Model
from ..runtime.profiling import OpProfile, Profile, Summary, Timings, profile_rounds, summarise
from ..runtime.graph import graph_of
from ..runtime.interpreter import Interpreter
from ..planning.context import PlanContext
from ..planning.plan import Plan
from ..planning.lifetimes import loop_ranges

__all__ = ["LatencySource", "HostLatency", "PlanCheck", "CostModel", "TableLatency", "TargetProfile",
           "PROFILES", "resolve", "layer_signature"]

#: Per op: variant name -> seconds.
OpTimes = Dict[str, float]


class LatencySource:
    """Maps each op's variants to seconds. Subclasses implement ``op_times``."""

    name = "latency"

    def op_times(self, model: Model, kernels: Sequence[Optional[OpKernel]]) -> List[OpTimes]:
        """Seconds of every variant of every op (an empty dict for ops without a kernel)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def layer_signature(kernel: OpKernel) -> str:
    """A stable text naming an op's kernel and shapes, independent of its position."""
    return f"{kernel.type}:{hashlib.sha256(repr((kernel.code, kernel.types, kernel.spec)).encode()).hexdigest()[:16]}"


# --- host measurement ------------------------------------------------------------------
#: The measurement method, part of every cache key: in the whole model, the rank plans
#: profiled together repeat by repeat, the 1st percentile net of the timed empty call.
_METHOD = "in-graph, together repeat by repeat, 1st percentile net of the timer, v3"


def cpu_model_name() -> str:
    """The CPU's model name from /proc/cpuinfo, else what the platform module reports."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _cpu_fingerprint() -> str:
    """CPU model, SIMD level and a hash of the compiled core: a rebuilt kernel is re-measured."""
    model = cpu_model_name()
    level = _core.cpu_limit(1)  # also re-establishes the default dispatch ceiling
    try:
        build = hashlib.sha256(Path(_core.__file__).read_bytes()).hexdigest()[:16]
    except (OSError, AttributeError):
        build = "unknown"
    # how the figures were taken: another method's figures are not reused
    return f"{model}|{platform.machine()}|simd{level}|core {build}|{_METHOD}"


def _cache_dir() -> Path:
    root = os.environ.get("ARENAPLAN_CACHE_DIR")
    if root:
        return Path(root)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "arenaplan"


@dataclass(frozen=True)
class PlanCheck:
    """One plan's predicted and measured host latency, taken in the same window.

    ``measured_s`` is the sum of the plan's own op times in its Interpreter.profile (the
    ops timed where they run in the plan, the same statistic the source predicts them
    with); ``measured_whole_s`` the plan's whole runs timed in one piece, which also
    checks that the op times add up (it needs a whole run in a quiet moment, so on a
    busy machine it is the noisier of the two)."""

    predicted_s: float
    measured_s: float
    measured_whole_s: float
    profile: Profile

    @property
    def error(self) -> float:
        """(predicted - measured) / measured."""
        return (self.predicted_s - self.measured_s) / self.measured_s if self.measured_s else 0.0

    @property
    def whole_error(self) -> float:
        """(predicted - measured whole run) / measured whole run."""
        return ((self.predicted_s - self.measured_whole_s) / self.measured_whole_s
                if self.measured_whole_s else 0.0)


class HostLatency(LatencySource):
    """Runs each (op, variant) on this machine, inside the whole model; cached on disk.

    Every op's time is its fastest runs (the 1st percentile of its repeats) net of the
    timer's own cost (see arenaplan.runtime.profiling): on a shared machine whose speed flips
    with the load of other tenants, that is the op's own cost, and it is what
    ``Interpreter.profile`` reports as ``seconds`` and ``total_s``. The plans that carry
    the variants are profiled together, repeat by repeat, for ``window_s`` or longer
    (until the figures settle and the speed probe has run at this machine's normal
    speed, at most four times the window), so all of them sample the same moments.

    Args:
        repeats: at least this many rounds.
        min_sample_s: each round lasts about this long per plan.
        window_s: the least time spent measuring (per model).
        max_window_s: the most time spent measuring (per model) while the figures are
            still improving or the machine runs slower than its normal speed.
        cache: read and write the on-disk cache, one JSON file ``host_latency.json``
            in ``$ARENAPLAN_CACHE_DIR`` when that is set, else in
            ``$XDG_CACHE_HOME/arenaplan``, else in ``~/.cache/arenaplan``. Its keys hold
            the kernel, the variant, the shapes, the CPU and the measuring method, so
            figures from another machine or method are never reused; delete the file
            to measure afresh. ``cache=False`` neither reads nor writes it.
        progress: show a progress bar while measuring (tqdm), None = when a terminal.
    """

    name = "host"

    def __init__(self, repeats: int = 5, min_sample_s: float = 0.002, cache: bool = True,
                 progress: Optional[bool] = None, window_s: float = 1.0,
                 max_window_s: float = 6.0) -> None:
        if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
            raise InvalidArgument(f"repeats must be a positive integer, got {repeats!r}")
        for what, value in (("min_sample_s", min_sample_s), ("window_s", window_s),
                            ("max_window_s", max_window_s)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value) or value < 0:
                raise InvalidArgument(f"{what} must be a non-negative number of seconds, got {value!r}")
        self.repeats = repeats
        self.min_sample_s = float(min_sample_s)
        self.window_s = float(window_s)
        self.max_window_s = float(max_window_s)
        #: The last measuring window: seconds spent, the speed probe against its record.
        self.last_window: Optional[Dict[str, float]] = None
        self.cache = cache
        self.progress = progress
        self._memory: Optional[Dict[str, float]] = None   # the cache, once read
        self._fingerprint = _cpu_fingerprint()

    def _key(self, kernel: OpKernel, variant: Variant) -> str:
        # the code measured is the one that runs the kernel's ISA here
        text = repr((self._fingerprint, kernel.code, kernel.types, kernel.spec, runs_as(kernel.isa), variant.name))
        return hashlib.sha256(text.encode()).hexdigest()

    def _cache_file(self) -> Path:
        return _cache_dir() / "host_latency.json"

    def _load(self) -> Dict[str, float]:
        if not self.cache:
            return {}
        try:
            data = json.loads(self._cache_file().read_text())
            # zero is a real figure: an aliased RESHAPE costs less than the clock's jitter
            return {k: float(v) for k, v in data.items()
                    if isinstance(v, (int, float)) and math.isfinite(v) and v >= 0}
        except (OSError, ValueError, AttributeError):
            return {}

    def _save(self, table: Dict[str, float]) -> None:
        if not self.cache:
            return
        path = self._cache_file()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(table))
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only home only costs re-measuring

    def _table(self) -> Dict[str, float]:
        if self._memory is None:
            self._memory = self._load()
        return self._memory

    def _rounds(self, timed: Sequence, model: Model, x: Optional[list],
                window_s: Optional[float] = None) -> List[Profile]:
        """The Profile of each of ``timed``, profiled together over rounds, with a bar.

        The speed probe runs in every round too; the rounds go on (up to
        ``max_window_s``) until it has run at its recorded speed, so the window holds a
        stretch of this machine's normal speed (see arenaplan.latency.speed_probe). When it has
        not, the figures are kept but a warning says how much slower the machine ran.
        ``last_window`` records the seconds spent and the probe's speed against its
        record (1.0: normal).
        """
        show = self.progress if self.progress is not None else os.isatty(2)
        bar = None
        if show:
            try:
                from tqdm import tqdm
                bar = tqdm(desc=f"measuring {model.name}", unit="round", leave=False)
            except ImportError:  # pragma: no cover - tqdm is a dependency
                bar = None

        def tick(done: int, total: int) -> None:
            if bar is not None:
                bar.total = total
                bar.update(done - bar.n)

        table = self._table()
        probe_key = f"speed probe|{self._fingerprint}"
        record = table.get(probe_key, math.inf)
        probe, probe_x = speed_probe.probe()

        def ready(timings: List[Timings]) -> bool:
            return speed_probe.at_normal_speed(speed_probe.speed_of(timings[-1]), record)

        window = self.window_s if window_s is None else window_s
        start = time.perf_counter()
        try:
            timings = profile_rounds(list(timed) + [probe], window, self.repeats, self.min_sample_s,
                                     x=list(x or [None] * len(timed)) + [probe_x], progress=tick,
                                     ready=ready, max_window_s=max(self.max_window_s, window))
        finally:
            if bar is not None:
                bar.close()
        probe_s = speed_probe.speed_of(timings[-1])
        slow = probe_s / record if math.isfinite(record) and record > 0 else 1.0
        self.last_window = {"seconds": time.perf_counter() - start, "probe_vs_record": slow}
        if not speed_probe.at_normal_speed(probe_s, record):
            warnings.warn(f"host latency of {model.name} measured while this machine ran {slow:.2f}x "
                          f"slower than its normal speed (speed probe) for {self.last_window['seconds']:.1f} s; "
                          f"its figures may be up to that much too high", RuntimeWarning, stacklevel=3)
        table[probe_key] = min(record, probe_s)
        return [t._profile_result(s.summary()) for t, s in zip(timed, timings)]

    def measure_isolated(self, model: Model, todo: Sequence[tuple]) -> Dict[str, float]:
        """Seconds of each (kernel, variant) in ``todo``, each on its own one-node graph
        (random inputs of the op's shapes), profiled together. For models with
        ops that have no kernel, where the whole model cannot run."""
        timed = [_NodeTimer(model, k, v) for k, v in todo]
        return {self._key(k, v): best[0].seconds
                for (k, v), best in zip(todo, self._rounds(timed, model, None))}

    def _rank_plans(self, model: Model, kernels: Sequence[OpKernel]) -> tuple:
        """The variant of every op in each rank plan (every op runs its j-th variant, or
        its last when it has fewer), their Interpreters, and random inputs."""

        # Time the very kernels (and prepared weights) the plans will run: where weights
        # sit in memory moves some layers' times by tens of percent.
        isa = next((k.isa for k in kernels if k is not None), "portable")
        ctx = PlanContext.build(model, kernels=list(kernels), isa=isa)
        rng = np.random.default_rng(0)
        x = []
        for t in model.inputs:
            tensor = model.tensors[t]
            if tensor.dtype == "float32":
                x.append(rng.standard_normal(tensor.shape).astype(np.float32))
            elif tensor.dtype == "bool":
                x.append(rng.integers(0, 2, size=tensor.shape).astype(bool))
            else:
                info = np.iinfo(np.dtype(tensor.dtype))
                x.append(rng.integers(info.min, info.max, size=tensor.shape, dtype=np.dtype(tensor.dtype)))
        ranks = max(len(k.variants) for k in ctx.kernels)
        chosen = [[k.variants[min(j, len(k.variants) - 1)] for k in ctx.kernels] for j in range(ranks)]
        # placed as the plans themselves are (the default strategy): the size plan is the
        # first rank plan, byte for byte, and no placement effect hides in the prediction
        interpreters = [Interpreter(ctx.make(c, "size", with_greedy=False)) for c in chosen]
        return chosen, interpreters, x

    def _times_of(self, kernels: Sequence[OpKernel], chosen: Sequence[Sequence[Variant]],
                  profiles: Sequence[Profile]) -> Dict[str, float]:
        """Cache entries from the rank plans' profiles. A variant is read from its own
        rank only (the j-th variant from plan j), though an op with fewer variants runs
        its last one in the later plans as well: the fastest of more samples would be
        lower than a plan's own figure, which has the samples of one plan."""
        found: Dict[str, float] = {}
        for j, (variants, best) in enumerate(zip(chosen, profiles)):
            for record, kernel, variant in zip(best, kernels, variants):
                if j < len(kernel.variants):
                    found[self._key(kernel, kernel.variant(variant.name))] = record.seconds
        return found

    def measure_in_graph(self, model: Model, kernels: Sequence[Optional[OpKernel]]) -> Dict[str, float]:
        """Seconds of every (op, variant), timed where it runs: inside the whole model.

        One plan per variant rank (every op runs its j-th variant, or its last when it has
        fewer) is profiled by the Interpreter, the plans together, repeat by repeat, so
        each op sees the cache its neighbours leave behind, as it will in any plan, and
        every plan sees the same stretch of the machine's load. Needs every op to have a
        kernel.
        """
        chosen, interpreters, x = self._rank_plans(model, kernels)
        return self._times_of(kernels, chosen, self._rounds(interpreters, model, [x] * len(chosen)))

    def check(self, plans: Sequence, window_s: Optional[float] = None) -> List["PlanCheck"]:
        """Predicted against measured latency of ``plans`` (of one model), side by side.

        This source's rank plans and the given plans are profiled together, repeat by
        repeat, so the prediction (the plan's variants' op times from this window) and
        the measurement (the plan's Interpreter.profile: the sum of its op times, and its
        whole runs) see the same load. Nothing is written to the cache.
        """

        plans = list(plans)
        if not plans or not all(isinstance(p, Plan) for p in plans):
            raise InvalidArgument("check needs a non-empty list of arenaplan.Plan")
        model = plans[0].model
        if any(p.model.digest != model.digest for p in plans):
            raise InvalidArgument("check compares plans of one model; these plans are of several")
        kernels = plans[0].kernels
        if kernels is None or any(k is None for k in kernels):
            raise InvalidArgument(f"{model.name} has ops without kernels: its plans cannot run here")
        if loop_ranges(model):
            raise InvalidArgument(f"{model.name} has a loop (an inlined WHILE): a run's time depends on its "
                                  "trip count, which random inputs do not bound")
        chosen, ranks, x = self._rank_plans(model, kernels)
        runs = [Interpreter(p) for p in plans]
        profiles = self._rounds(ranks + runs, model, [x] * (len(ranks) + len(runs)), window_s)
        times = self._times_of(kernels, chosen, profiles[:len(ranks)])
        result = []
        for plan, profile in zip(plans, profiles[len(ranks):]):
            predicted = sum(times[self._key(k, k.variant(c))] for k, c in zip(plan.kernels, plan.choices))
            result.append(PlanCheck(float(predicted), profile.ops_total_s, profile.total_s, profile))
        return result

    def op_times(self, model: Model, kernels: Sequence[Optional[OpKernel]]) -> List[OpTimes]:
        table = self._table()
        todo = [(k, v) for k in kernels if k is not None for v in k.variants
                if self._key(k, v) not in table]
        if todo:
            # a model with a loop runs each op on its own: a whole run on random inputs may
            # loop for ever (its trip count is the inputs')
            if all(k is not None for k in kernels) and not loop_ranges(model):
                table.update(self.measure_in_graph(model, kernels))
            else:
                table.update(self.measure_isolated(model, todo))
            self._save(table)
        return [{} if k is None else {v.name: table[self._key(k, v)] for v in k.variants}
                for k in kernels]


#: The one pool of a one-node timing graph.
_ARENA = "arena"


class _NodeTimer:
    """One (op, variant) on a one-node graph over random bytes, profiled like a plan."""

    def __init__(self, model: Model, kernel: OpKernel, variant: Variant) -> None:
        places, inputs, offset = [], [], 0
        if kernel.type == "JUMP":   # alone in its graph: to its end
            kernel = replace(kernel, spec={**kernel.spec, "target": 1})

        def slot(nbytes: int, align: int = 64) -> int:
            nonlocal offset
            offset = -(-offset // align) * align
            start = offset
            offset += nbytes
            return start

        for t in kernel.data_inputs:
            tensor = model.tensors[t]
            if tensor.is_constant:
                data = np.ascontiguousarray(tensor.data)
                places.append((None, 0, data.nbytes, data, t))
            else:
                places.append((_ARENA, slot(tensor.nbytes), tensor.nbytes, None, t))
            inputs.append(len(places) - 1)
        out_bytes = model.tensors[kernel.output].nbytes if kernel.output >= 0 else 1   # a JUMP has none
        places.append((_ARENA, slot(out_bytes), out_bytes, None, kernel.output))
        output = len(places) - 1
        scratch = []
        for bytes_, align in variant.scratch:
            places.append((_ARENA, slot(bytes_, max(align, 64)), bytes_, None, None))
            scratch.append(len(places) - 1)
        states = []
        for t in kernel.states:
            nbytes = model.tensors[t].nbytes
            places.append((_ARENA, slot(nbytes), nbytes, None, t))
            states.append(len(places) - 1)
        self._arena = np.random.default_rng(0).integers(0, 256, size=offset + 64, dtype=np.uint8)
        self._graph = graph_of(places, [(kernel, variant, inputs, output, scratch, states)],
                               {_ARENA: offset + 64}, kernel.isa)
        self._label = (kernel.index, kernel.type, variant.name, variant.scratch_bytes)

    def profile(self, repeats: int) -> Profile:
        return self._profile_result(summarise(np.array(self._graph.profile([self._arena], int(repeats)))))

    def _profile_handle(self) -> tuple:
        return self._graph, [self._arena]

    def _profile_result(self, s: Summary) -> Profile:
        op = OpProfile(*self._label[:3], float(s.op_s[0]), self._label[3], float(s.op_median_s[0]))
        return Profile([op], s.total_s, s.total_median_s, s.timer_s, s.repeats)


# --- analytic cost model ---------------------------------------------------------------------
def _widened_runs_fast(kernel: OpKernel) -> bool:
    """Does arm-dsp's widened depthwise code take this layer? On a layer of one multiplier, a
    clamped activation range or a positive shift, "widened" and "widened_pairs" run direct's
    code under their name (depthwise_conv2d_s8_arm_dsp.c, ap_dw_widened_arm_dsp; variants()
    lists them on shapes alone). Sums that may pass 2^29 send them there too; that depends
    on the biases, which a plan's cost does not see, and no shared model has such a layer."""
    s = kernel.spec
    return (bool(s.get("requant.per_channel")) and s.get("requant.activation_min") == -128
            and s.get("requant.activation_max") == 127 and max(s.get("requant.shift") or [1]) <= 0)


def _features(kernel: OpKernel) -> Tuple[int, int, int, int, int, int]:
    """output_shape's first six features (see there) of a conv, depthwise
    or fully connected op from its params (a fully connected row is one pixel of one tap);
    zeros for other ops. The cost model's features beside the MACs (calibrate_cortex_m.py
    fits them): requantisation per output, weight set-up per channel, a tap's loop per
    output, the window's set-up per pixel and tap, the window's input values gathered (an
    im2col column's bytes) per pixel, and a copy of the input (a kernel that widens or
    reorders it once: a strided layer reads each input value once, not once a window).
    A TRANSPOSE_CONV's taps are the (input pixel, filter tap) pairs that land on an output
    (its gather and its scatter loop over those, where a conv's output pixel loops over its
    window; its MACs count every pair, inside the output or not), its window inputs those
    pairs' products (each pair a dot of input_c for each output channel). BATCH_MATMUL is taken as a fully connected op
    over every batch's LHS rows, its input copy the RHS (which the packed variant reorders
    once a call); UNIDIRECTIONAL_SEQUENCE_LSTM as rows of ``cell_size`` outputs, a row a step of a
    batch row (its window inputs the input and hidden values a row's gates read); SOFTMAX and
    LOG_SOFTMAX as rows of ``depth`` outputs, one pixel of one tap each (their work per row:
    the maximum's and the sum's set-up, a reciprocal or a log). RESIZE_BILINEAR: its output
    values; as channels the rows it sets up (output rows, and the input rows the int8 row_cache
    interpolates across, _resize_rows_across); as taps the pixels of those rows (output_w a
    row); output pixels as the pixel taps (a pixel's two columns and weights); its window
    inputs the values row_cache interpolates across (output_w * channels a row); its inputs
    the input's values."""
    spec = kernel.spec
    if kernel.type == "RESIZE_BILINEAR":
        b, c, oh, ow = int(spec["batches"]), int(spec["channels"]), int(spec["output_h"]), int(spec["output_w"])
        across = b * _resize_rows_across(spec) if "height_scale_10" in spec else 0
        return (b * oh * ow * c, b * oh + across, across * ow, b * oh * ow, across * ow * c,
                b * int(spec["input_h"]) * int(spec["input_w"]) * c)
    if kernel.type == "BATCH_MATMUL":
        c, depth = int(spec["cols"]), int(spec["depth"])
        rows = int(spec["rows"]) * int(np.prod(np.maximum(spec["lhs_batch"], spec["rhs_batch"])))
        return rows * c, c, rows * c, rows, rows * depth, int(np.prod(spec["rhs_batch"])) * depth * c
    if kernel.type == "TRANSPOSE_CONV":
        c, inputs = int(spec["output_c"]), int(spec["input_c"])
        batches = int(spec.get("batches", 1))
        pairs = batches * _landing_taps(spec, "h") * _landing_taps(spec, "w")
        in_values = batches * int(spec["input_h"]) * int(spec["input_w"]) * inputs
        outputs = batches * int(spec["output_h"]) * int(spec["output_w"]) * c
        return outputs, c, pairs * c, pairs, pairs * inputs * c, in_values
    if kernel.type == "UNIDIRECTIONAL_SEQUENCE_LSTM":
        # a row is one step of one batch row: each cell's gates requantised and activated, its
        # states updated; the inputs are the rows' input values (the input weights' dot products)
        c, rows, depth = int(spec["cell_size"]), int(spec["batches"]) * int(spec["time_steps"]), int(spec["input_size"])
        return rows * c, c, rows * c, rows, rows * (depth + c), rows * depth
    if kernel.type in _ROW_OPS:
        c, rows = int(spec["depth"]), int(spec["outer_size"])
        return rows * c, c, rows * c, rows, rows * c, rows * c
    if "output_h" in spec and "output_c" in spec:
        c = int(spec["output_c"])
        batches = int(spec.get("batches", 1))
        pixels = batches * int(spec["output_h"]) * int(spec["output_w"])
        taps = int(spec.get("filter_h", 1)) * int(spec.get("filter_w", 1))
        inputs = int(spec.get("input_c", c))
        in_values = batches * int(spec.get("input_h", 0)) * int(spec.get("input_w", 0)) * inputs
        return pixels * c, c, pixels * c * taps, pixels * taps, pixels * taps * inputs, in_values
    if "output_depth" in spec:
        c, rows = int(spec["output_depth"]), int(spec.get("batches", 1))
        depth = int(spec.get("input_depth", 1))
        return rows * c, c, rows * c, rows, rows * depth, rows * depth
    return 0, 0, 0, 0, 0, 0



def _weights(kernel: OpKernel) -> int:
    """The filter values of a conv, depthwise, transpose conv or fully connected op (what a
    variant that widens or reorders its weights once a run goes over); 0 for other ops."""
    spec = kernel.spec
    if kernel.type in ("CONV_2D", "TRANSPOSE_CONV") or (kernel.type == "DEPTHWISE_CONV_2D"):
        taps = int(spec.get("filter_h", 1)) * int(spec.get("filter_w", 1))
        c = int(spec.get("output_c", 0))
        return c * taps * (1 if kernel.type == "DEPTHWISE_CONV_2D" else int(spec.get("input_c", 0)))
    if kernel.type == "FULLY_CONNECTED":
        return int(spec.get("output_depth", 0)) * int(spec.get("input_depth", 0))
    return 0


def output_shape(kernel: OpKernel) -> Tuple[int, int, int, int, int, int, int]:
    """(output elements, output channels, output elements x filter taps, output pixels x filter
    taps, output pixels x filter taps x input channels, input elements, filter values) of a
    conv, depthwise or fully connected op (see _features for the other ops; their filter
    values are 0): the cost model's features beside the MACs, in FEATURE_FIELDS' order. The
    filter values are a variant's work of widening its weights once a run
    (im2col16w_rows_4's table), which no other feature grows with."""
    return (*_features(kernel), _weights(kernel))

def _landing_taps(spec: dict, axis: str) -> int:
    """(input, filter) index pairs along one axis of a TRANSPOSE_CONV whose output index,
    input * stride - pad + filter, lies inside the output."""
    size, filt, stride = int(spec[f"input_{axis}"]), int(spec[f"filter_{axis}"]), int(spec[f"stride_{axis}"])
    pad, out = int(spec[f"pad_{axis}"]), int(spec[f"output_{axis}"])
    return sum(max(0, min(filt, out + pad - i * stride) - max(0, pad - i * stride)) for i in range(size))


def _resize_rows_across(spec: dict) -> int:
    """Input rows the int8 RESIZE_BILINEAR row_cache variant interpolates across in one image
    (resize_s8.c: an output row's y0 and y1 reuse the two rows held when they are among them)."""
    scale, half, size = int(spec["height_scale_10"]), int(spec["half_pixel_centers"]), int(spec["input_h"])

    def trunc(v: int) -> int:
        return -((-v) // 1024) if v < 0 else v // 1024

    held, count = [-1, -1], 0
    for y in range(int(spec["output_h"])):
        v = y * scale + scale // 2 - 512 if half else y * scale
        y0, y1 = max(trunc(v), 0), min(trunc(v + 1023), size - 1)
        if held[0] != y0:
            if held[1] == y0:
                held = [y0, held[0]]
            else:
                held[0], count = y0, count + 1
        if y1 != y0 and held[1] != y1:
            held[1], count = y1, count + 1
    return count


#: ops output_shape takes as rows of outputs (outer_size rows of depth)
_ROW_OPS = frozenset(("SOFTMAX", "LOG_SOFTMAX"))

#: the op table's tensor types by code (TYPES_CODES inverted): a key's types qualifier
_TYPES_NAMES = {code: name for name, code in TYPES_CODES.items()}


def op_key(kernel: OpKernel) -> str:
    """The op part of a cost-model key: the op type for its int8 row ("SOFTMAX"), the type
    with the row's tensor types for the others ("SOFTMAX(s16x8)", "BATCH_MATMUL(f32)"),
    whose code differs."""
    types = _TYPES_NAMES.get(kernel.types, "s8")
    return kernel.type if types == "s8" else f"{kernel.type}({types})"


#: the key qualifier of a depthwise op of depth multiplier above 1 (the portable code on every ISA)
MULTIPLIER = "[multiplier]"

#: TargetProfile's per-key figures for output_shape's features, in its order
FEATURE_FIELDS = ("cycles_per_output", "cycles_per_channel", "cycles_per_tap", "cycles_per_pixel_tap",
                  "cycles_per_window_input", "cycles_per_input", "cycles_per_weight")


@dataclass(frozen=True)
class TargetProfile:
    """Coefficients of the analytic cost model of one target.

    cycles(op, variant) = overhead_by_key.get(key, overhead_cycles) + macs * cycles_per_mac[key]
                          + outputs * cycles_per_output.get(key, 0)
                          + channels * cycles_per_channel.get(key, 0)
                          + taps * cycles_per_tap.get(key, 0)
                          + pixel_taps * cycles_per_pixel_tap.get(key, 0)
                          + window_inputs * cycles_per_window_input.get(key, 0)
                          + inputs * cycles_per_input.get(key, 0)
                          + weights * cycles_per_weight.get(key, 0)
                          + scratch_bytes * cycles_per_scratch_byte
    (at least half of the per-MAC term: a measured intercept may be negative), where the op's
    outputs, channels, taps, pixel taps, window inputs, inputs and weights are as output_shape says
    (conv, depthwise and fully connected; 0 for other ops): the requantisation is per output,
    the weights' set-up per channel, a tap's loop per output, a window's set-up per pixel and
    tap and its gathering per input value, a copy of the input per input element, so a
    layer's cost is not its MACs alone.
    where key is "<isa>/<op type>:<variant family>" ("arm-dsp/CONV_2D:im2col_rows": the
    figure of that ISA's code), else "<op type>:<variant family>" ("CONV_2D:im2col": the
    portable code's, which an ISA without code of its own for the op runs), else the family
    alone ("direct", "im2col", "gemm_1x1", ...), else "default"; a depthwise op first tries
    those keys with its filter size ("arm-dsp/DEPTHWISE_CONV_2D:direct@3x3": the 3x3 code),
    and an op row other than int8 those keys with its tensor types (op_key:
    "arm-dsp/SOFTMAX(s16x8):direct", the int16 SOFTMAX's lookup tables) before the op's.
    A variant's family is its name without the block-size suffix; its MACs are the
    multiply-accumulates (elements for element-wise ops and SOFTMAX).
    """

    name: str
    clock_hz: float
    cycles_per_mac: Mapping[str, float]
    cycles_per_scratch_byte: float
    overhead_cycles: float
    source: str = ""
    #: the estimated cycles per instruction the instruction counts were scaled by (1: the
    #: figures are cycles)
    cycles_per_instruction: float = 1.0
    #: per-op cycles by the same keys as cycles_per_mac (the calibration's intercepts);
    #: overhead_cycles where a key has none
    overhead_by_key: Mapping[str, float] = field(default_factory=dict)
    #: per output element and per output channel, by the same keys (see the formula)
    cycles_per_output: Mapping[str, float] = field(default_factory=dict)
    cycles_per_channel: Mapping[str, float] = field(default_factory=dict)
    cycles_per_tap: Mapping[str, float] = field(default_factory=dict)
    cycles_per_pixel_tap: Mapping[str, float] = field(default_factory=dict)
    cycles_per_window_input: Mapping[str, float] = field(default_factory=dict)
    cycles_per_input: Mapping[str, float] = field(default_factory=dict)
    cycles_per_weight: Mapping[str, float] = field(default_factory=dict)

    def family(self, variant: Variant) -> str:
        """The variant's kind name without its param ("im2col_rows_12" -> "im2col_rows"), as
        the C side names it."""
        return variant.family or variant.name

    def _key(self, kernel: OpKernel, variant: Variant) -> str:
        family = self.family(variant)
        if variant.isa == "arm-dsp" and family in ("widened", "widened_pairs") and not _widened_runs_fast(kernel):
            family = "direct"   # run() takes direct's code there: its figures, and no gain for the scratch
        keys = [f"{variant.isa}/{kernel.type}:{family}", f"{kernel.type}:{family}", family, "default"]
        op = op_key(kernel)
        if op != kernel.type:
            keys[:0] = [f"{variant.isa}/{op}:{family}", f"{op}:{family}"]
        if kernel.type == "DEPTHWISE_CONV_2D" and int(kernel.spec.get("depth_multiplier", 1)) != 1:
            # a depth multiplier above 1 has figures of its own (any filter size): arm-dsp's
            # direct its own code's, every other variant and ISA the portable code's
            keys = ([f"{variant.isa}/{kernel.type}{MULTIPLIER}:{family}", f"{kernel.type}{MULTIPLIER}:{family}"]
                    + [k for k in keys if "/" not in k])
        elif kernel.type == "DEPTHWISE_CONV_2D":
            # a filter size with code of its own (3x3 unrolled) has figures of its own
            shape = f"@{kernel.spec.get('filter_h')}x{kernel.spec.get('filter_w')}"
            keys[:0] = [keys[0] + shape, keys[1] + shape]
        for key in keys:
            if key in self.cycles_per_mac:
                return key
        raise InvalidArgument(f"cost model {self.name!r} has no 'default' cycles per MAC")

    def per_mac(self, kernel: OpKernel, variant: Variant) -> float:
        """Cycles per MAC of ``variant`` of ``kernel``'s op (see the class docstring)."""
        return self.cycles_per_mac[self._key(kernel, variant)]

    def cycles(self, kernel: OpKernel, variant: Variant) -> float:
        key = self._key(kernel, variant)
        work = variant.macs * self.cycles_per_mac[key] + sum(
            n * getattr(self, name).get(key, 0.0) for n, name in zip(output_shape(kernel), FEATURE_FIELDS))
        return (max(self.overhead_by_key.get(key, self.overhead_cycles) + work, 0.5 * work)
                + variant.scratch_bytes * self.cycles_per_scratch_byte)

    def instructions(self, kernel: OpKernel, variant: Variant) -> float:
        """The instructions the model predicts for one run of ``variant`` (what QEMU counts)."""
        return self.cycles(kernel, variant) / self.cycles_per_instruction

    def plan_instructions(self, plan) -> float:
        """Predicted instructions of one inference of ``plan`` (its chosen variants)."""
        return sum(self.instructions(k, k.variant(name)) for k, name in zip(plan.kernels, plan.choices)
                   if k is not None and name is not None)


# Coefficients: what each core executes, measured; how fast it executes it, estimated.
#
# Measured: the instructions of this project's kernels (csrc/runtime, arm-none-eabi-gcc -O2)
# per op type and variant family, counted by benchmarks/calibrate_cortex_m.py
# (results/calibrate_cortex_m.json, run of 2026-12-03, after the pixel-pair, int16-column,
# widened-depthwise and SMMULR requantisation kernels): one-op models of 18 conv, depthwise
# and fully connected shapes (3 to 128 channels, 1x1 to 10x4 filters, strides 1 and 2, square
# images and columns of pixels) and of the other ops, each at two sizes, exported, built with
# the firmware harness and run under qemu-system-arm -icount. Per key a least-squares fit over
# the MACs and the subset of outputs, channels, output taps, pixel taps and window inputs
# (output_shape) that fits best with every slope >= 0, and the intercept per call:
# cortex_m_instructions.json (COUNTED_INSTRUCTIONS, below). The fits' worst errors on their
# own points are 0-6 % for most keys, 14-22 % for the im2col families (their gather and their
# last pixels differ between pointwise and windowed layers), 12 % for depthwise padded_rows.
# "<op>:<family>" is the portable code,
# which a plan for the portable ISA runs and an arm-dsp plan runs where the op has no
# arm-dsp code (SVDF; CONV_2D's direct, depthwise's padded_rows and depth multipliers above
# 1); "arm-dsp/<op>:<family>" is the DSP-extension code (SMLAD: CONV_2D's rows kernel behind
# gemm_1x1 and im2col and its int16-column kernel behind im2col16_rows, FULLY_CONNECTED's
# smlad kernels; SMLABB/SMLATT: DEPTHWISE_CONV_2D's direct and widened; SXTAB16, SSUB8 + SEL
# and SMMULR: ADD, MUL and the pools' direct; SMMULR: SOFTMAX's exp); a depthwise key with "@3x3" is its 3x3 code, the key without the size its
# other filter sizes. The im2col rows variants cost the same instructions whatever their
# block size (within 0.1 %): the scratch buffer costs nothing by itself (its filling is in
# the fit), so cycles_per_scratch_byte is 0 and ties go to the smaller scratch. SVDF's two
# variants execute the same instructions within 0.2 %.
#   TRANSPOSE_CONV, BATCH_MATMUL, LOG_SOFTMAX and SOFTMAX (2026-12-05): their int8 rows on
#   the plain keys, their 16x8 and float32 rows on keys of their own (op_key:
#   "SOFTMAX(s16x8)", "BATCH_MATMUL(f32)"), each over two to seven shapes at two sizes; a
#   SOFTMAX or LOG_SOFTMAX row is a pixel (its reciprocal or log), a TRANSPOSE_CONV's taps the
#   pairs that land in the output. calibrate_cortex_m.py --check counts held-out one-op models
#   (the ops' coverage probes and shapes unlike the calibration's): 184 of 188 (model,
#   variant, ISA, core) within 5 %, the rest float32 BATCH_MATMUL's packed variant on its
#   tiny probe with a constant adj_y RHS (+5.4 / +5.7 %).
#   UNIDIRECTIONAL_SEQUENCE_LSTM (2026-12-05): int8, 16x8 and float32 rows under "tflm", the
#   Cortex-M default, three shapes at two cell counts each (a row a step of a batch row); the
#   held-out mnist shape within 2.2 %, the tiny int8 probe +5.1 %. A "litert" LSTM runs other
#   code (gemmlowp's activations), counted 2.3x these figures on the mnist model
#   (bench_lstm.py --ops cortex-m): its plans are predicted low.
#   LOGISTIC, TANH and HARD_SWISH (per element): counted on the M4 with one-op models when
#   they landed (2026-12-03), the M7 taking the M4's figures; a table variant's intercept is
#   its 256 entries computed once a call.
#   Not measured (no one-op model builder for them yet): MEAN,
#   QUANTIZE, DEQUANTIZE, CONCATENATION, PAD ("default", set between the pooling and the
#   element-wise figures).
# Estimated: cycles per instruction. Cortex-M4: single issue, loads 2 cycles unless
# pipelined back to back, taken branches 1 + 2 refill; these loops are about a third
# loads, so ~1.3. Cortex-M7: dual issue, ~1.45x the M4's work per clock on CoreMark
# (about 5.0 against 3.4 per MHz) for the same instructions, so ~0.9. Cortex-M55 (the
# scalar pipeline; the kernels do not use Helium): ~1.1, between the two, with the
# M4's instruction counts (no QEMU Cortex-M55 build in the harness). A board's own
# figures (TableLatency) replace all of this.
#: The counted instructions: per key and core, a table per feature ("instructions_per_mac",
#: "instructions_per_op" -- the fit's intercept: one call beyond its MACs --, and the seven
#: FEATURE_FIELDS' "instructions_per_output", "_channel", "_tap", "_pixel_tap", "_window_input",
#: "_input", "_weight"), which
#: calibrate_cortex_m.py --write-profiles writes. "im2col" takes im2col_rows's figures: the
#: same code with one block of every pixel, whose fits differ by noise (0.01 instructions a
#: MAC), which must not buy memory.
COUNTED_INSTRUCTIONS = Path(__file__).with_name("cortex_m_instructions.json")
_COUNTED = json.loads(COUNTED_INSTRUCTIONS.read_text())
INSTRUCTION_FIELDS = ("instructions_per_output", "instructions_per_channel", "instructions_per_tap",
                      "instructions_per_pixel_tap", "instructions_per_window_input", "instructions_per_input",
                      "instructions_per_weight")
_INSTRUCTIONS_PER_OP = 1500.0
_CYCLES_PER_INSTRUCTION = {"cortex-m4": 1.3, "cortex-m7": 0.9, "cortex-m55": 1.1}


def _calibrated(name: str, clock_hz: float, counted_on: str) -> TargetProfile:
    cpi = _CYCLES_PER_INSTRUCTION[name]

    def cycles(field: str, digits: int = 3) -> Dict[str, float]:
        return {k: round(v * cpi, digits) for k, v in _COUNTED.get(field, {}).get(counted_on, {}).items()}

    return TargetProfile(
        name, clock_hz, cycles("instructions_per_mac"),
        cycles_per_scratch_byte=0.0, overhead_cycles=_INSTRUCTIONS_PER_OP * cpi,
        source=f"instructions counted under QEMU ({counted_on} build) x {cpi} cycles per "
               f"instruction (estimated)", cycles_per_instruction=cpi,
        overhead_by_key=cycles("instructions_per_op", 1),
        **{name: cycles(field) for name, field in zip(FEATURE_FIELDS, INSTRUCTION_FIELDS)})


PROFILES: Dict[str, TargetProfile] = {
    "cortex-m4": _calibrated("cortex-m4", 168e6, "cortex-m4"),
    "cortex-m7": _calibrated("cortex-m7", 480e6, "cortex-m7"),
    "cortex-m55": _calibrated("cortex-m55", 160e6, "cortex-m4"),
}


class CostModel(LatencySource):
    """Analytic latency of a target profile (see TargetProfile); no board needed."""

    def __init__(self, profile: Union[str, TargetProfile], **overrides: object) -> None:
        if isinstance(profile, str):
            if profile not in PROFILES:
                raise InvalidArgument(f"unknown target profile {profile!r}; "
                                      f"choose one of {', '.join(PROFILES)}")
            profile = PROFILES[profile]
        if overrides:
            unknown = set(overrides) - {"clock_hz", "cycles_per_mac", "cycles_per_scratch_byte",
                                        "overhead_cycles"}
            if unknown:
                raise InvalidArgument(f"unknown cost model coefficient(s) {sorted(unknown)}")
            if "cycles_per_mac" in overrides:
                given = dict(overrides["cycles_per_mac"])
                # a bare family ("direct") given replaces that family for every op type
                families = {k for k in given if ":" not in k}
                base = {k: v for k, v in profile.cycles_per_mac.items()
                        if k.split(":", 1)[-1].split("@")[0] not in families or ":" not in k}
                overrides["cycles_per_mac"] = {**base, **given}
                # a figure given per MAC stands for the whole of its keys' work
                replaced = [k for k in profile.cycles_per_mac if k not in base or k in given]
                for name in FEATURE_FIELDS:
                    overrides[name] = {k: v for k, v in getattr(profile, name).items() if k not in replaced}
            if "overhead_cycles" in overrides:
                overrides["overhead_by_key"] = {}   # one figure for every op, as given
            profile = replace(profile, **overrides)
        if not profile.clock_hz > 0:
            raise InvalidArgument(f"clock_hz must be > 0, got {profile.clock_hz}")
        self.profile = profile
        self.name = f"model:{profile.name}"

    def op_times(self, model: Model, kernels: Sequence[Optional[OpKernel]]) -> List[OpTimes]:
        p = self.profile
        return [{} if k is None else {v.name: p.cycles(k, v) / p.clock_hz for v in k.variants}
                for k in kernels]


# --- user tables -------------------------------------------------------------------------
class TableLatency(LatencySource):
    """Latencies a team measured (CSV or JSON), overriding a base source.

    Rows: ``op`` (op index) or ``layer`` (a ``layer_signature``), ``variant``, and
    ``seconds`` or ``cycles`` (then ``clock_hz`` is required, per row or for the table).
    A JSON file holds ``{"model_sha256": optional, "clock_hz": optional, "rows": [...]}``
    or just the list of rows. Without a base source every op and variant must be covered.
    """

    def __init__(self, table: Union[str, Path, Mapping, Sequence[Mapping]],
                 base: Optional[LatencySource] = None, clock_hz: Optional[float] = None) -> None:
        self.base = base
        self.model_sha256: Optional[str] = None
        rows, meta_clock, source = self._read(table)
        self.source = source
        self.name = f"table:{source}"
        clock = clock_hz if clock_hz is not None else meta_clock
        self.rows = [self._row(i, r, clock) for i, r in enumerate(rows)]

    def _read(self, table) -> tuple:
        if isinstance(table, (str, Path)):
            path = Path(table)
            try:
                text = path.read_text()
            except OSError as exc:
                raise InvalidArgument(f"cannot read latency table {str(path)!r}: {exc.strerror or exc}") from None
            if path.suffix.lower() == ".csv":
                return list(csv.DictReader(text.splitlines())), None, path.name
            try:
                data = json.loads(text)
            except ValueError as exc:
                raise InvalidArgument(f"latency table {path.name}: not valid JSON ({exc})") from None
            table, source = data, path.name
        else:
            source = "table"
        if isinstance(table, Mapping):
            self.model_sha256 = table.get("model_sha256")
            rows = table.get("rows")
            if not isinstance(rows, list):
                raise InvalidArgument("a latency table mapping needs a 'rows' list")
            return rows, table.get("clock_hz"), source
        return list(table), None, source

    @staticmethod
    def _row(i: int, r: Mapping, clock: Optional[float]) -> dict:
        if not isinstance(r, Mapping):
            raise InvalidArgument(f"latency table row {i} is not a mapping: {r!r}")
        where = {k: r[k] for k in ("op", "layer") if r.get(k) not in (None, "")}
        if len(where) != 1:
            raise InvalidArgument(f"latency table row {i}: give exactly one of 'op' or 'layer'")
        variant = r.get("variant")
        if not variant:
            raise InvalidArgument(f"latency table row {i}: 'variant' is missing")
        if r.get("seconds") not in (None, ""):
            seconds = _number(r["seconds"], f"row {i} seconds")
        elif r.get("cycles") not in (None, ""):
            hz = r.get("clock_hz") or clock
            if not hz:
                raise InvalidArgument(f"latency table row {i}: cycles need a clock_hz")
            seconds = _number(r["cycles"], f"row {i} cycles") / _number(hz, f"row {i} clock_hz")
        else:
            raise InvalidArgument(f"latency table row {i}: give 'seconds' or 'cycles'")
        if seconds < 0:
            raise InvalidArgument(f"latency table row {i}: negative time {seconds}")
        op = where.get("op")
        if op is not None:
            try:
                op = int(op)
            except (TypeError, ValueError):
                raise InvalidArgument(f"latency table row {i}: op {op!r} is not an integer") from None
        return {"op": op, "layer": where.get("layer"), "variant": str(variant), "seconds": seconds}

    def op_times(self, model: Model, kernels: Sequence[Optional[OpKernel]]) -> List[OpTimes]:
        if self.model_sha256 and self.model_sha256 != model.digest:
            raise InvalidArgument(f"latency table {self.source} was measured on model "
                                  f"{self.model_sha256[:12]}…, not on {model.name} ({model.digest[:12]}…)")
        base = self.base.op_times(model, kernels) if self.base is not None else [dict() for _ in kernels]
        times = [dict(b) for b in base]
        signatures = {layer_signature(k): i for i, k in enumerate(kernels) if k is not None}
        for row in self.rows:
            i = row["op"] if row["op"] is not None else signatures.get(row["layer"])
            if i is None or not 0 <= i < len(kernels) or kernels[i] is None:
                raise InvalidArgument(f"latency table {self.source}: no op "
                                      f"{row['op'] if row['op'] is not None else row['layer']!r} "
                                      f"with a kernel in {model.name}")
            names = [v.name for v in kernels[i].variants]
            if row["variant"] not in names:
                raise InvalidArgument(f"latency table {self.source}: op {i} ({kernels[i].type}) has no "
                                      f"variant {row['variant']!r}; it has {', '.join(names)}")
            times[i][row["variant"]] = row["seconds"]
        for i, k in enumerate(kernels):
            if k is None:
                continue
            missing = [v.name for v in k.variants if v.name not in times[i]]
            if missing:
                raise InvalidArgument(f"latency table {self.source} has no time for op {i} ({k.type}) "
                                      f"variant(s) {', '.join(missing)}, and no base source fills them")
        return times


def _number(value: object, what: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidArgument(f"latency table {what}: {value!r} is not a number") from None
    if not math.isfinite(v):
        raise InvalidArgument(f"latency table {what}: {value!r} is not finite")
    return v


LatencySpec = Union[None, str, Path, LatencySource, Mapping, Sequence]


def resolve(spec: LatencySpec) -> Optional[LatencySource]:
    """A latency source from ``"host"``, ``"model:<profile>"``, a table path, a mapping or rows."""
    if spec is None or isinstance(spec, LatencySource):
        return spec
    if isinstance(spec, str):
        if spec == "host":
            return HostLatency()
        if spec.startswith("model:"):
            return CostModel(spec.split(":", 1)[1])
        if spec in PROFILES:
            return CostModel(spec)
        path = Path(spec)
        if path.suffix.lower() in (".csv", ".json"):
            return TableLatency(path)
        raise InvalidArgument(f"unknown latency source {spec!r}: use 'host', 'model:<profile>' "
                              f"({', '.join(PROFILES)}) or a .csv/.json table")
    if isinstance(spec, Path):
        return TableLatency(spec)
    if isinstance(spec, (Mapping, list, tuple)):
        return TableLatency(spec)
    raise InvalidArgument(f"latency must be 'host', 'model:<profile>', a table or a source, got "
                          f"{type(spec).__name__}")
