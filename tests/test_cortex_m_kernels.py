"""Every arm-dsp kernel variant through exported plans on a Cortex-M4, under QEMU.

The host runs arm-dsp variants through the DSP instructions' C definitions
(csrc/runtime/arm_dsp.h); here the same plans run natively. For each one-op model below,
each variant its op lists for arm-dsp, and both rounding references, a plan that runs that
variant is exported; all of them go into one image (one emulator run),
each on its own seeded input, and every output must equal the host Interpreter's bit for
bit. The host side is checked against the portable kernels and the references by the cffi
suites (tests/c), so agreement here carries that to the boards. This runs on the M4: the
kernels' code for each core (M4, M7, M33) runs on its own core, over the host suites' shape
sets, in tests/test_dsp_*_on_qemu.py; here it is the exported plans' path to them.
"""
from __future__ import annotations

import sys
from typing import Callable, List, Tuple

import numpy as np
import pytest

import arenaplan as ap
from arenaplan.model.model import Quantization
from arenaplan.model.zoo import GraphBuilder
from arenaplan.planning.context import PlanContext
from conftest import ROOT

from harness.firmware import build as fw  # noqa: E402

CPUS = ["cortex-m4"]
REFERENCES = ["tflm", "litert"]


def _maxpool(g: GraphBuilder, x: int, size: Tuple[int, int], stride: int = 1, activation: str = "NONE") -> int:
    """MAX_POOL_2D, VALID (the graph builder has none): the input's quantisation kept."""
    n, h, w, c = g.tensors[x].shape
    q = g.tensors[x].quantization
    shape = (n, (h - size[0]) // stride + 1, (w - size[1]) // stride + 1, c)
    y = g._act("maxpool", shape, q.scale[0], q.zero_point[0])
    return g._op("MAX_POOL_2D", (x,), (y,), padding="VALID", stride_h=stride, stride_w=stride,
                 filter_height=size[0], filter_width=size[1], fused_activation_function=activation)


def _mul(g: GraphBuilder, a: int, b: int, rescale: float, activation: str = "NONE") -> int:
    """MUL (the graph builder has none), its output scale the inputs' product over rescale."""
    y = g._act("mul", g.tensors[a].shape, g._scale(a) * g._scale(b) / rescale, g._out_zero_point(activation))
    return g._op("MUL", (a, b), (y,), fused_activation_function=activation)


def _softmax(g: GraphBuilder, x: int, input_scale: float = 0.0, int16: bool = False) -> int:
    """SOFTMAX (beta 1) of x, whose scale becomes input_scale when given (a scale of 0.5
    makes TFLite's diff_min -31: the differences below it give the output's minimum), into
    int8 or int16 (TFLite's fixed output quantisations)."""
    if input_scale:
        g.tensors[x].quantization = Quantization((float(np.float32(input_scale)),), (-3,))
    if not int16:
        return g.softmax(x)
    y = g._tensor("softmax16", g.tensors[x].shape, "int16", Quantization((1.0 / 65536,), (-32768,)))
    return g._op("SOFTMAX", (x,), (y,), beta=1.0)


def _pruned(g: GraphBuilder, y: int, shift0: bool = False) -> int:
    """The op that wrote y with every third channel's bias at +-2^30 plus a little (a channel
    pruned to a constant output, as in VWW's last layers): its sums pass 2^30, so the layer
    takes the wide requantisation (requant_arm_dsp.h). shift0: every third channel from the
    second also gets a filter scale that makes its multiplier 0.7, a shift of 0 (as some of
    VWW's pruned channels have), the wide form's channels without a rounding divide."""
    op = next(o for o in g.ops if y in o.outputs)
    bias = g.tensors[op.inputs[2]]
    data = np.array(bias.data, np.int64)
    data[::3] = np.where(np.arange(data[::3].size) % 2 == 0, 1 << 30, -(1 << 30)) + data[::3]
    bias.data = np.clip(data, -(1 << 31), (1 << 31) - 1).astype(np.int32)
    if shift0:
        w = g.tensors[op.inputs[1]]
        scales = np.array(w.quantization.scale, np.float64)
        scales[1::3] = 0.7 * g._scale(y) / g._scale(op.inputs[0])
        w.quantization = Quantization(tuple(float(np.float32(v)) for v in scales), w.quantization.zero_point,
                                      w.quantization.axis)
        bias.quantization = Quantization(tuple(float(np.float32(v * g._scale(op.inputs[0]))) for v in scales),
                                         bias.quantization.zero_point, bias.quantization.axis)
    return y


def _model(name: str, shape: Tuple[int, ...], body: Callable, seed: int) -> ap.Model:
    g = GraphBuilder(name, seed)
    return g.build(body(g, g.input(shape, scale=0.04, zero_point=-3)))


#: (name, input shape, body): shapes that reach every edge of the kernels' loops (channel
#: counts off the SIMD widths, padding on every side, strides, odd output channels).
CASES = [
    ("conv3x3_same", (1, 9, 9, 12), lambda g, x: g.conv2d(x, 16, (3, 3))),
    ("conv3x3_s2_rgb", (1, 11, 11, 3), lambda g, x: g.conv2d(x, 8, (3, 3), stride=2, activation="RELU6")),
    ("conv3x3_valid_odd", (1, 6, 7, 7), lambda g, x: g.conv2d(x, 5, (3, 3), padding="VALID", activation="NONE")),
    ("conv1x1", (1, 6, 6, 20), lambda g, x: g.conv2d(x, 19, (1, 1))),
    ("conv1x1_s2", (1, 7, 7, 9), lambda g, x: g.conv2d(x, 6, (1, 1), stride=2, activation="NONE")),
    ("conv10x4_s2", (1, 13, 7, 1), lambda g, x: g.conv2d(x, 8, (10, 4), stride=2)),
    # im2col16_rows_4's last tiles: two pixels of a pointwise layer (the rows kernel on the
    # input's rows), three of a 3x3 (the four-pixel loop, one repeated); one is conv3x3_same's
    ("conv1x1_tail2", (1, 2, 5, 16), lambda g, x: g.conv2d(x, 7, (1, 1), activation="NONE")),
    ("conv3x3_tail3", (1, 3, 5, 8), lambda g, x: g.conv2d(x, 6, (3, 3), activation="NONE")),
    # one group of 4 k values (no pair of groups): 1x1 over 3 channels, gathered and padded
    ("conv1x1_c3", (1, 5, 5, 3), lambda g, x: g.conv2d(x, 9, (1, 1), activation="NONE")),
    # the wide requantisation: channels with a bias near +-2^30, 3x3, pointwise and fully connected
    ("conv3x3_pruned", (1, 5, 6, 8), lambda g, x: _pruned(g, g.conv2d(x, 10, (3, 3), activation="NONE"))),
    ("conv1x1_pruned", (1, 3, 3, 32), lambda g, x: _pruned(g, g.conv2d(x, 12, (1, 1), activation="NONE"))),
    # strip16 (few input channels): two strip copies (3 channels, stride 1) moved down a row at
    # a time, the fast requantisation; 5x5 over one channel with a tail block of two channels;
    # one filter row (no move) over two channels, clamped; stride 3 over 3 channels (two
    # copies, rebuilt each row); the wide form's layer (pruned channels) through the general
    # one; conv3x3_s2_rgb and conv10x4_s2 above are VWW's and KWS's first layers
    ("conv3x3_rgb_strip", (1, 6, 9, 3), lambda g, x: g.conv2d(x, 16, (3, 3), activation="NONE")),
    ("conv5x5_gray_tail", (1, 7, 6, 1), lambda g, x: g.conv2d(x, 6, (5, 5), activation="NONE")),
    ("conv1x3_c2_relu6", (1, 4, 9, 2), lambda g, x: g.conv2d(x, 5, (1, 3), padding="VALID", activation="RELU6")),
    ("conv3x3_rgb_s3", (1, 10, 10, 3), lambda g, x: g.conv2d(x, 4, (3, 3), stride=3, activation="NONE")),
    ("conv3x3_rgb_pruned", (1, 5, 6, 3), lambda g, x: _pruned(g, g.conv2d(x, 10, (3, 3), activation="NONE"))),
    ("dw3x3_same", (1, 9, 9, 13), lambda g, x: g.depthwise(x, (3, 3))),
    ("dw3x3_s2_mult2", (1, 8, 8, 6), lambda g, x: g.depthwise(x, (3, 3), stride=2, multiplier=2)),
    # a depth multiplier above 1 on arm-dsp (the window's tap pairs shared by an input channel's
    # outputs): the micro speech model's 10x8 over one channel x 8, an odd filter's last tap
    # alone, and three outputs an input channel (a group of fewer than four)
    ("dw10x8_s2_mult8", (1, 15, 12, 1), lambda g, x: g.depthwise(x, (10, 8), stride=2, multiplier=8)),
    ("dw3x3_mult3", (1, 6, 7, 5), lambda g, x: g.depthwise(x, (3, 3), multiplier=3, activation="NONE")),
    ("dw5x5_valid", (1, 7, 8, 8), lambda g, x: g.depthwise(x, (5, 5), padding="VALID", activation="NONE")),
    # planar's paths: stride 2 with two outputs left a row, three left, rows of fewer than
    # four, a 1-D filter down a column of pixels, and a clamped (not fast) layer
    ("dw3x3_s2_left2", (1, 11, 9, 12), lambda g, x: g.depthwise(x, (3, 3), stride=2, activation="NONE")),
    ("dw3x3_left3", (1, 4, 11, 8), lambda g, x: g.depthwise(x, (3, 3), activation="NONE")),
    ("dw3x3_short_rows", (1, 3, 3, 5), lambda g, x: g.depthwise(x, (3, 3), activation="NONE")),
    ("dw5x1_column", (1, 12, 1, 16), lambda g, x: g.depthwise(x, (5, 1), padding="VALID", activation="NONE")),
    # 3x3 windows the padding cuts to one column, to one row, and to 2x2 at one pixel
    ("dw3x3_one_column", (1, 5, 1, 12), lambda g, x: g.depthwise(x, (3, 3), activation="NONE")),
    ("dw3x3_one_row", (1, 1, 6, 8), lambda g, x: g.depthwise(x, (3, 3), activation="NONE")),
    ("dw3x3_s2_one_pixel", (1, 2, 2, 20), lambda g, x: g.depthwise(x, (3, 3), stride=2, activation="NONE")),
    ("dw3x3_relu6", (1, 6, 7, 8), lambda g, x: g.depthwise(x, (3, 3), activation="RELU6")),
    # widened's ring of rows: KWS's shape (16 groups, rows of five), stride 2 across and down
    # with 4 groups, and VALID at stride 2 (input columns no window reads)
    ("dw3x3_x64_5wide", (1, 8, 5, 64), lambda g, x: g.depthwise(x, (3, 3), activation="NONE")),
    ("dw3x3_s2_x16", (1, 9, 10, 16), lambda g, x: g.depthwise(x, (3, 3), stride=2, activation="NONE")),
    ("dw3x3_s2_valid", (1, 8, 8, 8), lambda g, x: g.depthwise(x, (3, 3), stride=2, padding="VALID",
                                                               activation="NONE")),
    ("fc", (1, 50), lambda g, x: g.fully_connected(x, 19)),
    ("fc_relu", (1, 64), lambda g, x: g.fully_connected(x, 16, activation="RELU")),
    ("fc_pruned", (1, 40), lambda g, x: _pruned(g, g.fully_connected(x, 13))),
    # the wide form with channels of shift 0 beside them: pointwise (VWW's 6x6 layers), 3x3
    # (the rows kernel's pairs) and fully connected (per-tensor scale: no shift-0 channel there)
    ("conv1x1_pruned_shift0", (1, 6, 6, 32), lambda g, x: _pruned(g, g.conv2d(x, 12, (1, 1), activation="NONE"),
                                                                  shift0=True)),
    ("conv3x3_pruned_shift0", (1, 5, 5, 8), lambda g, x: _pruned(g, g.conv2d(x, 7, (3, 3), activation="NONE"),
                                                                 shift0=True)),
    ("avgpool", (1, 6, 6, 10), lambda g, x: g.avgpool(x, (3, 3), stride=2)),
    ("add", (1, 5, 5, 7), lambda g, x: g.add(x, g.conv2d(x, 7, (1, 1), activation="NONE"))),
    # AVERAGE_POOL_2D's SXTAB16 sums: KWS's 25x5 global window over 8 + 4 channels, and a window
    # of more than 256 taps (int32 sums) over 8 + 1; ADD's one loop (no activation, one input at
    # the multiplier 0.5) over an odd count
    ("avgpool_kws_global", (1, 25, 5, 12), lambda g, x: g.avgpool(x, (25, 5))),
    ("avgpool_257_taps", (1, 17, 16, 9), lambda g, x: g.avgpool(x, (17, 16))),
    # MAX_POOL_2D's SSUB8 + SEL: 8 + 4 + 1 channels, clamped by RELU6 and not
    ("maxpool_relu6", (1, 7, 6, 13), lambda g, x: _maxpool(g, x, (3, 2), stride=2, activation="RELU6")),
    ("maxpool_2x2", (1, 8, 8, 8), lambda g, x: _maxpool(g, x, (2, 2), stride=2)),
    ("add_none_odd", (1, 3, 5, 9), lambda g, x: g.add(x, g.conv2d(x, 9, (1, 1), activation="NONE"),
                                                       activation="NONE")),
    # ADD's one loop with both inputs at the multiplier 0.5 (equal scales), over 4 x 37 values
    ("add_same_scale", (1, 4, 37), lambda g, x: g.add(x, x, activation="NONE")),
    # MUL's SXTAB16 / SMULBB steps of four and its tail, a right shift and a left shift of 7
    ("mul_odd", (1, 3, 5, 7), lambda g, x: _mul(g, x, g.conv2d(x, 7, (1, 1), activation="NONE"), 0.02)),
    ("mul_square_relu", (1, 2, 3, 9), lambda g, x: _mul(g, x, x, 100.0, activation="RELU")),
    # SOFTMAX's SMMULR exp, SSUB8 + SEL row maximum (4 + 1 and 36 + 1 values a row) and SSAT
    # outputs: KWS's 12 classes, rows of 37, differences below diff_min, int16 outputs
    ("softmax_kws", (1, 12), lambda g, x: _softmax(g, x)),
    ("softmax_rows", (3, 4, 37), lambda g, x: _softmax(g, x)),
    ("softmax_diff_min", (2, 40), lambda g, x: _softmax(g, x, input_scale=0.5)),
    ("softmax_int16", (2, 70), lambda g, x: _softmax(g, x, input_scale=0.3, int16=True)),
]


def _variant_plans(model: ap.Model, reference: str) -> List[Tuple[str, ap.Plan]]:
    """(variant name, plan) for every arm-dsp variant of the model's last op (the op under
    test; any op before it runs its first variant)."""
    ctx = PlanContext.build(model, isa="arm-dsp", reference=reference)
    last = ctx.kernels[-1]
    first = [k.variants[0] if k is not None else None for k in ctx.kernels]
    return [(v.name, ctx.make(first[:-1] + [v], "size", with_greedy=False)) for v in last.variants]


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """Every (case, reference, variant) plan, its input and the host's output."""
    missing = fw.missing_arm_tools()
    if missing:
        pytest.skip(f"Cortex-M toolchain not installed ({', '.join(missing)}); "
                    "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm")
    work = tmp_path_factory.mktemp("cortex-m-kernels")
    rng = np.random.default_rng(5)
    rows = []
    for seed, (name, shape, body) in enumerate(CASES):
        model = _model(name, shape, body, seed)
        x = rng.integers(-128, 128, size=shape, dtype=np.int8)
        for reference in REFERENCES:
            for variant, plan in _variant_plans(model, reference):
                assert plan.verify() and plan.isa == "arm-dsp"
                want = np.asarray(ap.Interpreter(plan).run(x))
                export = plan.export_c(work / "src", name=f"k{len(rows)}")
                rows.append((f"{name}/{reference}/{variant}", export, x, want))
    return work, rows


@pytest.mark.parametrize("cpu", CPUS)
def test_every_arm_dsp_variant_is_bit_exact_on_the_core(cpu, batch):
    work, rows = batch
    arch = fw.ARM_CPUS[cpu]
    runtime = fw.cached_runtime(fw.ARM_CC, fw.arm_flags(arch), cpu)
    image = fw.build_arm_batch([e for _, e, _, _ in rows], arch, runtime, work / cpu,
                               inputs=[[x] for _, _, x, _ in rows])
    outputs, instructions = fw.run_batch(image, len(rows))
    wrong = []
    for (label, _, _, want), raw, n in zip(rows, outputs, instructions):
        got = np.frombuffer(raw, dtype=want.dtype).reshape(want.shape)
        if not np.array_equal(got, want):
            wrong.append(f"{label}: {int(np.sum(got != want))} of {want.size} outputs differ")
        assert n > 0
    assert not wrong, f"{cpu}: " + "; ".join(wrong)
    # every op family under test ran at least one variant of its own
    assert len(rows) >= 2 * len(CASES)
