"""Instruction counts of every kernel variant on a Cortex-M4 and a Cortex-M7, under QEMU.

Each case is a one-op model built in code with shapes like the shared models' layers, at
two sizes. Every variant of its op is planned, exported and counted under
``qemu-system-arm -icount shift=0`` by benchmarks/cortex_m.py (the machinery
bench_cortex_m.py shares): the count is of instructions executed by one invoke, exact to
a SysTick tick (40 instructions on these boards), not of cycles (QEMU models no pipeline).

Both instruction sets a Cortex-M plan can name are counted: arm-dsp (the DSP-extension
kernels, and the portable code of ops that have none) and portable. Per (ISA, op type,
variant family) a line through the two sizes gives the instructions per MAC (the slope)
and per op (the intercept: the call, the I/O copies, per-op set-up); fits are keyed
"<op>:<family>" for portable and "arm-dsp/<op>:<family>" for arm-dsp, as the cost model
looks them up (<op> with the row's tensor types for rows other than int8:
"SOFTMAX(s16x8)", sources.op_key).
These are the measured half of the Cortex-M cost model's coefficients (CostModel
PROFILES in python/arenaplan/latency/sources.py); the cycles per instruction of each core are
the estimated half (see there).

    python benchmarks/calibrate_cortex_m.py        # needs arm-none-eabi-gcc, qemu-system-arm
    python benchmarks/calibrate_cortex_m.py --write-profiles   # and write the fits into the cost model
    python benchmarks/calibrate_cortex_m.py --write-profiles --from-results   # the last run's fits
    python benchmarks/calibrate_cortex_m.py --only '^softmax'   # these cases; the others' rows as last run
    python benchmarks/calibrate_cortex_m.py --check SOFTMAX,BATCH_MATMUL   # the model against held-out counts

Writes benchmarks/results/calibrate_cortex_m.json; with --write-profiles also the cost
model's counted instructions (python/arenaplan/latency/cortex_m_instructions.json): every
key fitted here takes its new figures, keys this run does not fit (the element-wise ops
counted when they landed) keep theirs.
"""
from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

import arenaplan as ap
from arenaplan.latency.sources import COUNTED_INSTRUCTIONS, INSTRUCTION_FIELDS, MULTIPLIER, op_key, output_shape
from arenaplan.ops.coverage import _Probe, _weights
from arenaplan.model.zoo import GraphBuilder

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # harness: the helpers the tests share (references, builds, QEMU)
sys.path.insert(0, str(ROOT / "benchmarks"))
from harness.firmware import build as fw  # noqa: E402
import cortex_m  # noqa: E402  (the export, build and count machinery)
from harness import svdf_models  # noqa: E402
from harness.reference.svdf import random_case  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "calibrate_cortex_m.json"
CPUS = ["cortex-m4", "cortex-m7"]
ISAS = ["portable", "arm-dsp"]


def conv(cin, cout, kh, kw, stride=1):
    def build(size):
        return (1, size, size, cin), lambda g, x: g.conv2d(x, cout, (kh, kw), stride=stride, name="op")
    return build


def depthwise(c, kh, kw, stride=1, multiplier=1):
    def build(size):
        return (1, size, size, c), lambda g, x: g.depthwise(x, (kh, kw), stride=stride, multiplier=multiplier,
                                                          name="op")
    return build


def column(build_square):
    """The same op over a column of ``size`` pixels (1 wide), as a streaming model's layers
    are: few pixels, many channels."""
    def build(size):
        shape, op = build_square(size)
        return (1, size, 1, shape[-1]), op
    return build


def narrow(build_square, width):
    """The same op over an image ``size`` pixels tall and ``width`` wide, as the keyword
    models' layers are (25 x 5 pixels): long columns, short rows."""
    def build(size):
        shape, op = build_square(size)
        return (1, size, width, shape[-1]), op
    return build


def fully_connected(cout):
    def build(size):
        return (1, 16 * size), lambda g, x: g.fully_connected(x, cout, name="op")
    return build


def average_pool(size):
    return (1, size, size, 32), lambda g, x: g.avgpool(x, (size, size))


def max_pool(size):
    """MAX_POOL_2D 2x2 stride 2 (the graph builder has none; VALID, the input's quantisation)."""
    def build(g, x):
        n, h, w, c = g.tensors[x].shape
        q = g.tensors[x].quantization
        y = g._act("maxpool", (n, h // 2, w // 2, c), q.scale[0], q.zero_point[0])
        return g._op("MAX_POOL_2D", (x,), (y,), padding="VALID", stride_h=2, stride_w=2, filter_height=2,
                     filter_width=2, fused_activation_function="NONE")
    return (1, 2 * size, 2 * size, 32), build


def add(size):
    return (1, size, size, 16), lambda g, x: g.add(x, x)


def mul(size):
    """MUL of a tensor by itself (the graph builder has none), output scale the square's / 64."""
    def build(g, x):
        y = g._act("mul", g.tensors[x].shape, g._scale(x) ** 2 * 64, 0)
        return g._op("MUL", (x, x), (y,), fused_activation_function="NONE")
    return (1, size, size, 16), build


def softmax(size):
    return (1, 4 * size), lambda g, x: g.softmax(x)


def softmax_rows(size):
    """SOFTMAX over ``size`` rows of 10 (the fit's rows feature: a reciprocal a row)."""
    return (size, 10), lambda g, x: g.softmax(x)


def transpose_conv(cin, cout, k, stride, dtype="int8"):
    """TRANSPOSE_CONV, SAME, a ``size`` x ``size`` input upsampled by ``stride``: int8, 16x8
    (dtype "int16": int16 activations, int8 weights, an int64 bias) or float32."""
    def build(size):
        p = _Probe()
        out = size * stride
        shape = p.const([1, out, out, cout], "int32")
        if dtype == "float32":
            w = p.const(_weights((cout, k, k, cin)) / 8.0, "float32")
            x = p.x((1, size, size, cin), "float32", None)
            b = p.const(np.arange(cout) * 0.25 - 1.0, "float32")
            y = p.t((1, out, out, cout), "float32", None)
        else:
            s16 = dtype == "int16"
            w = p.const(_weights((cout, k, k, cin)), "int8", [0.01] * cout, [0] * cout)
            x = p.x((1, size, size, cin), dtype, 1e-3 if s16 else 0.05, 0 if s16 else -3)
            b = p.const(np.arange(cout) * 7 - 20, "int64" if s16 else "int32", [0.0005] * cout, [0] * cout)
            y = p.t((1, out, out, cout), dtype, 2e-3 if s16 else 0.1, 0 if s16 else 2)
        return p.model("TRANSPOSE_CONV", (shape, w, x, b), (y,), padding="SAME", stride_h=stride, stride_w=stride,
                       fused_activation_function="NONE")
    return build


def batch_matmul(batches, depth, cols, dtype="int8", adj_y=False):
    """BATCH_MATMUL: LHS [batches, size, depth] times an RHS input [batches, depth, cols]
    (adj_y: [batches, cols, depth]; batches 1: one RHS of two dims, broadcast)."""
    def build(size):
        p = _Probe()
        scale = None if dtype == "float32" else 0.05
        x = p.x((batches, size, depth), dtype, scale, -3 if dtype == "int8" else 0)
        rhs = (cols, depth) if adj_y else (depth, cols)
        w = p.x(rhs if batches == 1 else (batches, *rhs), dtype, scale and 0.02, 0)
        y = p.t((batches, size, cols), dtype, scale and 0.5, 5 if dtype == "int8" else 0)
        return p.model("BATCH_MATMUL", (x, w), (y,), adj_x=False, adj_y=adj_y)
    return build


def log_softmax(rows_of, depth_of, dtype="int8"):
    """LOG_SOFTMAX over rows_of(size) rows of depth_of(size): int8 (TFLite's output scale
    16/256, zero point 127) or float32."""
    def build(size):
        p = _Probe()
        shape = (rows_of(size), depth_of(size))
        f32 = dtype == "float32"
        x = p.x(shape, dtype, None if f32 else 0.05, 3)
        y = p.t(shape, dtype, None if f32 else 16.0 / 256, 127)
        return p.model("LOG_SOFTMAX", (x,), (y,))
    return build


def softmax_f32(rows_of, depth_of):
    """SOFTMAX float32 over rows_of(size) rows of depth_of(size)."""
    def build(size):
        p = _Probe()
        shape = (rows_of(size), depth_of(size))
        x = p.x(shape, "float32", None)
        y = p.t(shape, "float32", None)
        return p.model("SOFTMAX", (x,), (y,), beta=1.0)
    return build


def softmax_s16(rows_of, depth_of):
    """SOFTMAX int16 in and out (its exp and reciprocal lookup tables) over rows_of(size) rows
    of depth_of(size)."""
    def build(size):
        p = _Probe()
        shape = (rows_of(size), depth_of(size))
        x = p.x(shape, "int16", 3e-4, 0)
        y = p.t(shape, "int16", 1.0 / 32768, 0)
        return p.model("SOFTMAX", (x,), (y,), beta=1.0)
    return build


def lstm(dtype, depth, steps, batches=1, time_major=False):
    """UNIDIRECTIONAL_SEQUENCE_LSTM of ``size`` cells over ``steps`` steps of ``depth`` inputs
    (harness.lstm_models: int8, 16x8 or float32; a whole model, its states variable)."""
    def build(cells):
        from harness import lstm_models as L
        if dtype == "int8":
            content = L.lstm_s8_model(7, batches, steps, depth, cells, time_major=time_major)
        elif dtype == "int16":
            content = L.lstm16_model(7, batches, steps, depth, cells, time_major=time_major)
        else:
            content = L.lstm_f32_model(np.random.default_rng(7), batches, steps, depth, cells, time_major=time_major)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "lstm.tflite"
            path.write_bytes(content)
            return ap.load_tflite(path)
    return build


def resize_bilinear(channels, out_of, dtype="int8", width=1, **options):
    """RESIZE_BILINEAR of a ``size`` x ``width * size`` image of ``channels`` to
    out_of(size) x out_of(width * size) (int8 or float32; align_corners / half_pixel_centers
    in ``options``)."""
    def build(size):
        p = _Probe()
        scale = None if dtype == "float32" else 0.05
        h, w = size, width * size
        oh, ow = out_of(h), out_of(w)
        x = p.x((1, h, w, channels), dtype, scale, -3 if scale else 0)
        y = p.t((1, oh, ow, channels), dtype, scale, -3 if scale else 0)
        return p.model("RESIZE_BILINEAR", (x, p.const([oh, ow], "int32")), (y,),
                       align_corners=options.get("align_corners", False),
                       half_pixel_centers=options.get("half_pixel_centers", False))
    return build


def svdf(size):
    """SVDF as in the keyword model (64 filters, memory 8, rank 1) over ``size`` features;
    built as a whole model (the graph builder has no variable tensors)."""
    case = random_case(np.random.default_rng(7), 1, size, 64, 8, 1)
    return svdf_models.one_svdf(case)


#: case -> the sizes it is built at. The conv, depthwise and fully connected cases differ in
#: channels, filter sizes and image shapes as the MLPerf Tiny layers do (3 to 128 input
#: channels, 1x1 to 10x4 filters, strides 1 and 2, 8 to 128 outputs, square images, columns
#: of pixels and the keyword models' 5-wide images), so the fit can tell a layer's work per MAC
#: from its work per output, per channel, per window tap and per input value a window gathers
#: (TargetProfile).
CASES = {"conv 3x3 16->16": (conv(16, 16, 3, 3), (6, 12)),
         "conv 3x3 3->8": (conv(3, 8, 3, 3), (8, 16)),
         "conv 3x3 3->8 s2": (conv(3, 8, 3, 3, 2), (16, 32)),
         "conv 3x3 32->32 s2": (conv(32, 32, 3, 3, 2), (8, 16)),
         "conv 10x4 1->16 s2": (conv(1, 16, 10, 4, 2), (12, 20)),
         "conv 10x4 1->64 s2": (conv(1, 64, 10, 4, 2), (12, 20)),
         "conv 1x1 64->64": (conv(64, 64, 1, 1), (5, 10)),
         "conv 1x1 8->16": (conv(8, 16, 1, 1), (8, 16)),
         "conv 1x1 128->128": (conv(128, 128, 1, 1), (3, 5)),
         "conv 1x1 16->32 s2": (conv(16, 32, 1, 1, 2), (8, 16)),
         "conv 1x1 40->128 column": (column(conv(40, 128, 1, 1)), (12, 28)),
         # VWW's last pointwise layers: deep, few pixels (a 3x3 image ends in a tile of one)
         "conv 1x1 256->256": (conv(256, 256, 1, 1), (3, 6)),
         "depthwise 3x3 x64": (depthwise(64, 3, 3), (5, 10)),
         "depthwise 3x3 x8": (depthwise(8, 3, 3), (10, 20)),
         "depthwise 3x3 x128": (depthwise(128, 3, 3), (3, 5)),
         "depthwise 3x3 x16 s2": (depthwise(16, 3, 3, 2), (12, 24)),
         "depthwise 3x3 x64 5 wide": (narrow(depthwise(64, 3, 3), 5), (15, 25)),
         "depthwise 5x1 x32": (depthwise(32, 5, 1), (6, 10)),
         "depthwise 10x1 x128 column": (column(depthwise(128, 10, 1)), (16, 24)),
         # depth multipliers above 1 (the micro speech model's 10x8 layer: one channel to
         # eight): every ISA runs the portable code, keyed "DEPTHWISE_CONV_2D[multiplier]"
         "depthwise 10x8 x1 m8 s2": (narrow(depthwise(1, 10, 8, 2, 8), 40), (25, 49)),
         "depthwise 3x3 x4 m2": (depthwise(4, 3, 3, 1, 2), (8, 16)),
         "depthwise 3x3 x2 m4 s2": (depthwise(2, 3, 3, 2, 4), (12, 24)),
         "depthwise 3x3 x1 m8 s2": (depthwise(1, 3, 3, 2, 8), (24, 48)),   # the person detection model's first
         "fully connected ->32": (fully_connected(32), (8, 32)),
         "fully connected ->128": (fully_connected(128), (4, 40)),
         "fully connected ->8": (fully_connected(8), (8, 32)),
         "average pool x32": (average_pool, (6, 12)),
         "max pool 2x2 x32": (max_pool, (4, 8)), "add x16": (add, (6, 12)), "mul x16": (mul, (6, 12)),
         "softmax": (softmax, (4, 16)), "softmax rows": (softmax_rows, (2, 8)),
         "svdf 64 filters m8": (svdf, (16, 96)),
         # the rows the cost model had no figures for: TRANSPOSE_CONV, BATCH_MATMUL and
         # LOG_SOFTMAX int8 and the int16 SOFTMAX (keyed "SOFTMAX(s16x8)", op_key)
         "transpose conv 3x3 8->4 s2": (transpose_conv(8, 4, 3, 2), (4, 8)),
         "transpose conv 2x2 16->16 s2": (transpose_conv(16, 16, 2, 2), (3, 6)),
         "transpose conv 3x3 4->16 s1": (transpose_conv(4, 16, 3, 1), (4, 8)),
         "transpose conv 3x3 16->8 s2": (transpose_conv(16, 8, 3, 2), (3, 6)),
         "transpose conv 4x4 8->8 s2": (transpose_conv(8, 8, 4, 2), (3, 6)),
         "batch matmul 64x32": (batch_matmul(1, 64, 32), (4, 16)),
         "batch matmul b4 16x8": (batch_matmul(4, 16, 8), (2, 8)),
         "batch matmul 128x4 adj_y": (batch_matmul(1, 128, 4, adj_y=True), (2, 8)),
         "batch matmul b2 12x8": (batch_matmul(2, 12, 8), (4, 12)),
         "batch matmul 48x24": (batch_matmul(1, 48, 24), (3, 9)),
         "batch matmul b3 8x16 adj_y": (batch_matmul(3, 8, 16, adj_y=True), (2, 6)),
         "log softmax row": (log_softmax(lambda s: 1, lambda s: 16 * s), (1, 4)),
         "log softmax rows of 10": (log_softmax(lambda s: s, lambda s: 10), (2, 8)),
         "log softmax rows of 300": (log_softmax(lambda s: s, lambda s: 300), (1, 3)),
         "softmax int16 row": (softmax_s16(lambda s: 1, lambda s: 16 * s), (1, 4)),
         "softmax int16 rows of 10": (softmax_s16(lambda s: s, lambda s: 10), (2, 8)),
         # the same ops' 16x8 and float32 rows (keyed "TRANSPOSE_CONV(s16x8)", "BATCH_MATMUL(f32)", ...)
         **{f"transpose conv {name} {k}x{k} {cin}->{cout} s2": (transpose_conv(cin, cout, k, 2, dtype), sizes)
            for name, dtype in (("16x8", "int16"), ("f32", "float32"))
            for cin, cout, k, sizes in ((8, 4, 3, (4, 8)), (16, 16, 2, (3, 6)), (16, 8, 3, (3, 6)))},
         **{f"batch matmul {name} {label}": (batch_matmul(b, depth, cols, dtype, adj_y), sizes)
            for name, dtype in (("16x8", "int16"), ("f32", "float32"))
            for label, b, depth, cols, adj_y, sizes in (("64x32", 1, 64, 32, False, (4, 16)),
                                                        ("b2 12x8", 2, 12, 8, False, (4, 12)),
                                                        ("48x24", 1, 48, 24, False, (3, 9)),
                                                        ("b3 8x16 adj_y", 3, 8, 16, True, (2, 6)))},
         "log softmax f32 row": (log_softmax(lambda s: 1, lambda s: 16 * s, "float32"), (1, 4)),
         "log softmax f32 rows of 10": (log_softmax(lambda s: s, lambda s: 10, "float32"), (2, 8)),
         "softmax f32 row": (softmax_f32(lambda s: 1, lambda s: 16 * s), (1, 4)),
         "softmax f32 rows of 10": (softmax_f32(lambda s: s, lambda s: 10), (2, 8)),
         # RESIZE_BILINEAR's variants (direct, column_table, int8's row_cache): up- and
         # downsampling, 1 to 16 channels, keyed "RESIZE_BILINEAR" and "RESIZE_BILINEAR(f32)"
         **{f"resize bilinear {name}{label}": (resize_bilinear(c, out_of, dtype, width, **opts), sizes)
            for name, dtype in (("", "int8"), ("f32 ", "float32"))
            for label, c, out_of, width, opts, sizes in (
                ("x2 c3 half", 3, lambda s: 2 * s, 1, {"half_pixel_centers": True}, (6, 12)),
                ("x2 c16", 16, lambda s: 2 * s, 1, {}, (4, 8)),
                ("/2 c3 align", 3, lambda s: s // 2, 1, {"align_corners": True}, (12, 24)),
                ("/2 c1 align", 1, lambda s: s // 2, 1, {"align_corners": True}, (12, 24)),
                ("/3 c8", 8, lambda s: s // 3, 1, {}, (12, 24)),
                ("x4 c2 half", 2, lambda s: 4 * s, 1, {"half_pixel_centers": True}, (3, 6)),
                ("x5/3 c8 half", 8, lambda s: s * 5 // 3, 1, {"half_pixel_centers": True}, (6, 12)),
                ("x3 c1 wide", 1, lambda s: 3 * s, 2, {}, (4, 8)))},
         # the LSTM's rows (keyed "UNIDIRECTIONAL_SEQUENCE_LSTM", "...(s16x8)", "...(f32)"), under
         # "tflm", the Cortex-M default, by cells at two sizes
         **{f"lstm {name} {label}": (lstm(dtype, depth, steps, batches), sizes)
            for name, dtype in (("int8", "int8"), ("16x8", "int16"), ("f32", "float32"))
            for label, depth, steps, batches, sizes in (("28 in x8 steps", 28, 8, 1, (8, 20)),
                                                        ("8 in x4 steps b2", 8, 4, 2, (4, 16)),
                                                        ("40 in x3 steps", 40, 3, 1, (12, 24)))}}


#: held-out one-op models for --check: the coverage probes of the ops' rows (tiny shapes,
#: two rows, a constant RHS) and shapes unlike the calibration's
CHECK_ROWS = ("s8", "s16x8", "f32")
CHECKS = {"transpose conv 3x3 12->6 s2 (7x7)": lambda: transpose_conv(12, 6, 3, 2)(7),
          "transpose conv 5x5 4->8 s2 (4x4)": lambda: transpose_conv(4, 8, 5, 2)(4),
          "transpose conv 2x2 32->8 s2 (4x4)": lambda: transpose_conv(32, 8, 2, 2)(4),
          "batch matmul 32x16 (12 rows)": lambda: batch_matmul(1, 32, 16)(12),
          "batch matmul b2 24x12 adj_y (5 rows)": lambda: batch_matmul(2, 24, 12, adj_y=True)(5),
          "log softmax 4 rows of 50": lambda: log_softmax(lambda s: 4, lambda s: 50)(0),
          "log softmax 2 rows of 600": lambda: log_softmax(lambda s: 2, lambda s: 600)(0),
          "softmax 5 rows of 12": lambda: one_op_model("softmax rows", 5),
          "softmax int16 3 rows of 33": lambda: softmax_s16(lambda s: 3, lambda s: 33)(0),
          **{f"unidirectional sequence lstm {name} mnist's shape": (lambda dtype=dtype: lstm(dtype, 28, 28)(20))
             for name, dtype in (("int8", "int8"), ("16x8", "int16"), ("f32", "float32"))},
          "unidirectional sequence lstm int8 time-major b3 16x5 c10": lambda: lstm("int8", 16, 5, 3, True)(10),
          "resize bilinear 7x7 c5 to 16x16 half": lambda: resize_bilinear(5, lambda s: s * 16 // 7, width=1,
                                                                        half_pixel_centers=True)(7),
          "resize bilinear 10x20 c2 to 4x8": lambda: resize_bilinear(2, lambda s: s * 2 // 5, width=2)(10),
          "resize bilinear f32 7x7 c5 to 16x16 half": lambda: resize_bilinear(5, lambda s: s * 16 // 7, "float32",
                                                                            half_pixel_centers=True)(7)}


def check(ops: list) -> int:
    """Count held-out one-op models of ``ops`` (their coverage probes and CHECKS) with every
    variant on both ISAs, and print the cost model's prediction against the count on each core.
    Returns the number of (model, variant, core) beyond 5 %."""
    from arenaplan.latency.sources import PROFILES
    from arenaplan.ops import coverage
    models = [(f"probe {op} {row} #{i}", m) for op in ops for row in CHECK_ROWS
              for i, m in enumerate((coverage.probe_models((op, row)) or (lambda: []))())]
    models += [(name, build()) for name, build in CHECKS.items() if any(o.replace("_", " ").lower() in name
                                                                       for o in ops)]
    results, beyond = [], 0
    with tempfile.TemporaryDirectory(prefix="arenaplan-calibrate-check-") as tmp:
        tmp = Path(tmp)
        runtimes = cortex_m.runtimes(CPUS, tmp)
        for isa in ISAS:
            for n, (name, m) in enumerate(models):
                found = list(cortex_m.variant_plans(m, isa, reference="tflm"))
                counted = cortex_m.count([plan for _, _, plan in found], CPUS, runtimes, tmp / f"{isa}-{n}")
                for (k, v, plan), counts in zip(found, counted):
                    kernel = plan.kernels[k]
                    for cpu, c in counts.items():
                        predicted = PROFILES[cpu].instructions(kernel, v)
                        err = predicted / c - 1
                        key = PROFILES[cpu]._key(kernel, v)
                        # a row whose figures are another row's (16x8 on the int8 keys) is shown, not judged
                        own = key.split("/")[-1].split(":")[0] == op_key(kernel)
                        beyond += own and abs(err) > 0.05
                        results.append({"model": name, "isa": isa, "variant": v.name, "key": key, "cpu": cpu,
                                        "counted": c, "predicted": round(predicted), "error": err, "own_key": own})
                        print(f"{name:<40}{isa:<9}{v.name:<11}{cpu:<10}{c:>10,}{predicted:>12,.0f}{err * 100:>+8.1f} %"
                              + ("" if own else f"  (on {key})"), flush=True)
    data = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    ran = {n for n, _ in models}
    data["checks"] = [r for r in data.get("checks", []) if r["model"] not in ran
                      and (r["model"] in CHECKS or r["model"].startswith("probe "))] + results
    RESULTS.write_text(json.dumps(data, indent=2))
    print(f"{beyond} of {sum(r['own_key'] for r in results)} on their own keys beyond 5 %; wrote {RESULTS}")
    return beyond


def one_op_model(case: str, size: int) -> ap.Model:
    built = CASES[case][0](size)
    if isinstance(built, ap.Model):
        return built
    shape, op = built
    g = GraphBuilder(f"{case} {size}", seed=7)
    return g.build(op(g, g.input(shape, scale=0.05)))


def family(variant: str) -> str:
    return re.sub(r"_\d+$", "", variant)


#: the features of a fit, in TargetProfile's order, beside the constant
FEATURES = ("macs", "outputs", "channels", "taps", "pixel_taps", "window_inputs", "inputs", "weights")


def fit_instructions(pts: list, cpu: str):
    """Least squares of the counts over the MACs and the subset of the other features that
    fits the points best (worst relative error), among the subsets the points separate
    (rank, more points than unknowns) whose slopes are all >= 0: each feature is work done,
    and a negative slope (one feature standing in for another, as a depthwise layer's MACs
    are its outputs x taps) would extrapolate to shapes unlike the calibration's as negative
    work. None with fewer than two sizes. Returns the slopes, the intercept and the worst
    relative error."""
    y = np.array([r["instructions"][cpu] for r in pts], dtype=float)
    if len({r["macs"] for r in pts}) < 2:
        return None
    best = None
    for k in range(len(FEATURES)):
        for extra in itertools.combinations(FEATURES[1:], k):
            used = ("macs",) + extra
            x = np.array([[r[g] for g in used] + [1.0] for r in pts], dtype=float)
            if len(pts) <= len(used) + 1 - (k == 0) or np.linalg.matrix_rank(x) < len(used) + 1:
                continue
            coef = np.linalg.lstsq(x, y, rcond=None)[0]
            if np.any(coef[:-1] < 0):
                continue
            worst = float(np.max(np.abs(x @ coef - y) / y))
            if best is None or worst < best[0] - 1e-4:
                best = (worst, used, coef)
    worst, used, coef = best
    slopes = dict(zip(used, coef[:-1]))
    return {"instructions_per_mac": float(slopes["macs"]),
            "instructions_per_output": float(slopes.get("outputs", 0.0)),
            "instructions_per_channel": float(slopes.get("channels", 0.0)),
            "instructions_per_tap": float(slopes.get("taps", 0.0)),
            "instructions_per_pixel_tap": float(slopes.get("pixel_taps", 0.0)),
            "instructions_per_window_input": float(slopes.get("window_inputs", 0.0)),
            "instructions_per_input": float(slopes.get("inputs", 0.0)),
            "instructions_per_weight": float(slopes.get("weights", 0.0)),
            "instructions_per_op": float(coef[-1]), "worst_error": worst}


def write_profiles(fits: dict) -> None:
    """Write the fits into the cost model's counted instructions, key by key. "im2col" takes
    "im2col_rows"'s figures (the same code with one block of every pixel: their fits differ by
    noise, which must not buy memory); a feature slope of 0 is left out."""
    counted = json.loads(COUNTED_INSTRUCTIONS.read_text())
    keys = set(fits) | {k.replace(":im2col_rows", ":im2col") for k in fits if k.endswith("CONV_2D:im2col_rows")}
    for key in sorted(keys):
        source = key.replace(":im2col", ":im2col_rows") if key.endswith("CONV_2D:im2col") else key
        for cpu, fit in fits.get(source, {}).items():
            counted["instructions_per_mac"].setdefault(cpu, {})[key] = round(fit["instructions_per_mac"], 3)
            counted["instructions_per_op"].setdefault(cpu, {})[key] = int(round(fit["instructions_per_op"]))
            for field in INSTRUCTION_FIELDS:
                table = counted.setdefault(field, {}).setdefault(cpu, {})
                if abs(fit[field]) < 1e-9:
                    table.pop(key, None)
                else:
                    table[key] = round(fit[field], 3)
    for field, tables in counted.items():
        if isinstance(tables, dict):
            counted[field] = {cpu: dict(sorted(t.items())) for cpu, t in tables.items()}
    COUNTED_INSTRUCTIONS.write_text(json.dumps(counted, indent=1) + "\n")
    print(f"wrote {COUNTED_INSTRUCTIONS}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write-profiles", action="store_true",
                        help="write the fits into python/arenaplan/latency/cortex_m_instructions.json")
    parser.add_argument("--from-results", action="store_true",
                        help="count nothing: take the fits of the last run's results file")
    parser.add_argument("--only", metavar="REGEX",
                        help="count only the cases whose name matches (re.search); the other cases' rows "
                             "are the last results file's, so the fits and the file stay whole")
    parser.add_argument("--check", metavar="OPS",
                        help="count nothing to fit: compare the cost model with counts of held-out one-op "
                             "models of these op types (comma-separated: their coverage probes and CHECKS)")
    args = parser.parse_args()
    if args.check:
        return 1 if check(args.check.split(",")) else 0
    if args.from_results:
        if not args.write_profiles:
            parser.error("--from-results goes with --write-profiles")
        write_profiles(json.loads(RESULTS.read_text())["fits"])
        return 0
    missing = fw.missing_arm_tools()
    if missing:
        print(f"needs {', '.join(missing)}")
        return 1
    todo = [c for c in CASES if args.only is None or re.search(args.only, c)]
    if not todo:
        parser.error(f"--only {args.only!r} matches no case")
    rows = []
    if args.only is not None and RESULTS.exists():
        rows = [r for r in json.loads(RESULTS.read_text())["rows"] if r["case"] in CASES and r["case"] not in todo]
    with tempfile.TemporaryDirectory(prefix="arenaplan-calibrate-") as tmp:
        tmp = Path(tmp)
        runtimes = cortex_m.runtimes(CPUS, tmp)
        for isa in ISAS:
            for case in todo:
                sizes = CASES[case][1]
                for size in sizes:
                    m = one_op_model(case, size)
                    found = [(k, v, plan) for k, v, plan in cortex_m.variant_plans(m, isa, reference="tflm")
                             if plan.kernels[k].type != "RESHAPE"]
                    k0 = found[0][0]
                    found = [f for f in found if f[0] == k0]
                    counted = cortex_m.count([plan for _, _, plan in found], CPUS, runtimes,
                                             tmp / f"{isa}-{case}-{size}".replace(" ", "_"))
                    for (k, v, plan), counts in zip(found, counted):
                        outputs, channels, taps, pixel_taps, window_inputs, inputs, weights = output_shape(plan.kernels[k])
                        spec = plan.kernels[k].spec
                        rows.append({"isa": isa, "case": case, "size": size, "op": op_key(plan.kernels[k]),
                                     "filter": f"{spec.get('filter_h', 1)}x{spec.get('filter_w', 1)}",
                                     "multiplier": int(spec.get("depth_multiplier", 1)),
                                     "variant": v.name, "family": v.family or family(v.name), "macs": v.macs,
                                     "outputs": outputs, "channels": channels, "taps": taps,
                                     "pixel_taps": pixel_taps, "window_inputs": window_inputs, "inputs": inputs,
                                     "weights": weights,
                                     "scratch_bytes": v.scratch_bytes, "instructions": counts})
                        print(f"{isa:<9}{case:<22}{size:>4} {v.name:<20}{v.macs:>9,} MACs  "
                              + "  ".join(f"{n} {c:>10,}" for n, c in counts.items()), flush=True)
    # one fit per (ISA, op, family), and for depthwise one per filter size too (the cost
    # model's "...@3x3" keys: its 3x3 windows run code of their own), whose key without the
    # size then stands for the other sizes (fitted on them where the family has them)
    groups = {}
    for r in rows:
        if r.get("multiplier", 1) != 1:
            # one fit over all filter sizes; arm-dsp's direct has code of its own (its window's
            # tap pairs shared by an input channel's outputs), the rest is the portable code
            own = r["isa"] == "arm-dsp" and r["family"] == "direct"
            groups.setdefault(("arm-dsp/" if own else "") + f"{r['op']}{MULTIPLIER}:{r['family']}", []).append(r)
            continue
        key = ("" if r["isa"] == "portable" else f"{r['isa']}/") + f"{r['op']}:{r['family']}"
        groups.setdefault(key, []).append(r)
        if r["op"] == "DEPTHWISE_CONV_2D":
            groups.setdefault(f"{key}@{r['filter']}", []).append(r)
    for key, pts in groups.items():
        others = [r for r in pts if r["op"] == "DEPTHWISE_CONV_2D" and r["filter"] != "3x3"]
        if "@" not in key and MULTIPLIER not in key and others:
            groups[key] = others
    fits = {}
    for key in sorted(groups):
        fit = {}
        for name in CPUS:
            fitted = fit_instructions(groups[key], name)
            if fitted is not None:
                fit[name] = fitted
        if fit:
            fits[key] = fit
    print(f"\n{'[isa/]op:family':<40}{'core':>11}{'/MAC':>8}{'/output':>9}{'/channel':>10}{'/tap':>8}"
          f"{'/px tap':>9}{'/win in':>9}{'/input':>8}{'/weight':>8}{'/op':>9}{'worst':>8}")
    for key, fit in fits.items():
        for n, f in fit.items():
            print(f"{key:<40}{n:>11}{f['instructions_per_mac']:>8.2f}{f['instructions_per_output']:>9.2f}"
                  f"{f['instructions_per_channel']:>10.1f}{f['instructions_per_tap']:>8.2f}"
                  f"{f['instructions_per_pixel_tap']:>9.2f}{f['instructions_per_window_input']:>9.2f}"
                  f"{f.get('instructions_per_input', 0.0):>8.2f}{f.get('instructions_per_weight', 0.0):>8.2f}"
                  f"{f['instructions_per_op']:>9,.0f}{f['worst_error'] * 100:>7.1f}%")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    checks = json.loads(RESULTS.read_text()).get("checks", []) if RESULTS.exists() else []
    RESULTS.write_text(json.dumps({"rows": rows, "fits": fits, "checks": checks}, indent=2))
    print(f"wrote {RESULTS}")
    if args.write_profiles:
        write_profiles(fits)
    return 0


if __name__ == "__main__":
    sys.exit(main())
