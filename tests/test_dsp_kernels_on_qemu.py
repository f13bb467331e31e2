"""The arm-dsp CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED kernels through the C API on the
Cortex-M cores themselves, under QEMU, on the host suites' hypothesis shape sets.

On the host the arm-dsp variants run as their instructions' C definitions (tests/c); here the
naked asm routines run on the cores. The cases are draws of the host tests' strategies
(tests/c/test_conv2d.py's conv_cases, test_depthwise_conv2d.py's shapes and
test_fully_connected.py's random layers), collected first (derandomised, a fixed count), each
made into a layer as those tests make it; the host packs each blob for arm-dsp and checks the
portable kernel on it against the NumPy reference (harness/firmware/dsp_cases.py). Then one
emulator run per op and core (harness/firmware/dsp_cases_main.c) runs every arm-dsp variant
of every case with exactly its scratch between poisoned guard bytes, and with each scratch
buffer one byte short, and compares its variant list and blob with the host's.
"""
from __future__ import annotations

import itertools
import time
import zlib
from collections import Counter
from typing import Dict, List, Optional

import numpy as np
import pytest
from hypothesis import strategies as st

from harness.firmware import build as fw
from harness.firmware import dsp_cases as dc

import test_conv2d as conv_t  # noqa: E402  (tests/c, on the path through conftest)
import test_depthwise_conv2d as dw_t  # noqa: E402
import test_fully_connected as fc_t  # noqa: E402
from harness.reference import litert_layers as L  # noqa: E402
from harness.reference import ops  # noqa: E402
from harness.reference.quant import quantize_multiplier  # noqa: E402
from ops_harness import requant_arrays  # noqa: E402

CORES = ["cortex-m4", "cortex-m7", "cortex-m33"]
#: draws per op (the host tests' max_examples are 250, 60 and 80)
COUNTS = {"conv2d": 1000, "depthwise_conv2d": 500, "fully_connected": 400}
#: the case sets, each one op (run in one emulator run per core)
OPS = list(COUNTS)

_MISSING = fw.missing_arm_tools()
pytestmark = pytest.mark.skipif(bool(_MISSING), reason=f"Cortex-M toolchain not installed ({', '.join(_MISSING)}); "
                                "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm")


def pruned(bias: Optional[np.ndarray], channels: int, multiplier: np.ndarray, shift: np.ndarray):
    """A layer's bias, multipliers and shifts with every third channel pruned to a constant
    output, as in VWW's last layers: its bias at +-2^30 plus its own, so that its sums pass
    2^30 and the arm-dsp kernels take the wide requantisation (requant_arm_dsp.h); per channel,
    every third channel from the second also gets the multiplier of 0.7, a shift of 0 (the wide
    form's channels without a rounding divide)."""
    b = np.zeros(channels, np.int64) if bias is None else np.array(bias, np.int64)
    b[::3] += np.where(np.arange(b[::3].size) % 2 == 0, 1 << 30, -(1 << 30))
    m, s = np.array(multiplier, np.int64), np.array(shift, np.int64)
    if m.size > 1:
        m[1::3], s[1::3] = quantize_multiplier(0.7)
    return b.astype(np.int32), m, s


def conv_case(ffi, lib, draw, ids) -> List[dc.DspCase]:
    """A draw as the host test makes it (an activation clamp inside int8: the general
    requantisation), then its shapes with the full int8 range and no left shift (the fast
    requantisation), and that with pruned channels (the wide one)."""
    spec, seed = draw
    made = []
    for form in ("as drawn", "fast", "pruned"):
        extra = {} if form == "as drawn" else dict(act=(-128, 127), scale_exp=(-16.0, -0.01))
        kw, x, expected = conv_t.quantized_case(np.random.default_rng(seed), **spec, **extra)
        if form == "pruned":
            kw["bias"], kw["multiplier"], kw["shift"] = pruned(kw["bias"], spec["filter_shape"][0], kw["multiplier"],
                                                               kw["shift"])
            expected = conv_t.conv_per_channel(x, kw["w"], kw["bias"], **{k: kw[k] for k in (
                "stride", "dilation", "pad", "out_hw", "input_offset", "multiplier", "shift", "output_offset",
                "act_min", "act_max")})
        conv = conv_t.Conv(ffi, lib, **kw)
        made.append(dc.encode(ffi, lib, "conv2d", conv.params, kw["w"], kw["bias"], x, expected, next(ids),
                              f"conv2d {spec} seed {seed} ({form})"))
    return made


def depthwise_case(ffi, lib, s, ids) -> List[dc.DspCase]:
    """A draw as the host test makes it, then with pruned channels; then narrowed to the
    shapes arm-dsp's planar variants take (depth multiplier 1, dilation 1), and to those its
    widened variant takes (a 3x3 filter, channels a multiple of 4) with pruned channels (the
    draws seldom fall there)."""
    s = dict(s)
    if s["c"] * s["mult"] > 64:   # as test_random_layers_every_variant_and_cpu_path
        s["mult"] = max(1, 64 // s["c"])
    made = []
    planar = dict(s, mult=1, dh=1, dw=1)
    widened = dict(planar, kh=3, kw=3, c=-(-s["c"] // 4) * 4)
    for d, form in ((s, "as drawn"), (s, "pruned"), (planar, "planar shapes"), (widened, "widened shapes, pruned")):
        pad = None if d["same"] else d["extra_pad"]
        case = dw_t.Case(ffi, lib, n=d["n"], h=d["h"], w=d["w"], c=d["c"], mult=d["mult"], kh=d["kh"],
                         kw=d["kw"], stride=(d["sh"], d["sw"]), dilation=(d["dh"], d["dw"]), pad=pad,
                         seed=d["seed"], per_channel=d["per_channel"], with_bias=d["bias"],
                         act=(-20, 100) if d["relu"] else None)
        if "pruned" in form:
            case.bias, case.mult_arr, case.shift_arr = pruned(case.bias, d["c"] * d["mult"], case.mult_arr,
                                                              case.shift_arr)
            case.ref_kwargs.update(multiplier=case.mult_arr, shift=case.shift_arr)
            case.m_c, case.s_c = requant_arrays(ffi, case.mult_arr, case.shift_arr)
            case.params.requant.multiplier, case.params.requant.shift = case.m_c, case.s_c
        made.append(dc.encode(ffi, lib, "depthwise_conv2d", case.params, case.wt, case.bias, case.x,
                              case.reference(), next(ids), f"depthwise_conv2d {d} ({form})"))
    return made


def fc_case(ffi, lib, k, ids) -> List[dc.DspCase]:
    """A draw as the host test makes it, then with pruned channels."""
    made = []
    for form in ("as drawn", "pruned"):
        case = fc_t.Case(ffi, lib, batches=k["batches"], depth=k["depth"], out=k["out"], per_channel=k["per_channel"],
                         seed=k["seed"], filter_zp=k["filter_zp"], act=(0, 127) if k["relu"] else None,
                         with_bias=k["bias"], double=k["double"], wmin=k["wmin"])
        if form == "pruned":
            m, s = (case.kw["multiplier"], case.kw["shift"]) if not k["double"] else (np.zeros(1), np.zeros(1))
            case.bias, m, s = pruned(case.bias, k["out"], m, s)
            if not k["double"]:
                case.kw.update(multiplier=m, shift=s)
                case.keep = requant_arrays(ffi, m, s)
                case.params.requant.multiplier, case.params.requant.shift = case.keep
        made.append(dc.encode(ffi, lib, "fully_connected", case.params, case.wt, case.bias, case.x, case.reference(),
                              next(ids), f"fully_connected {k} ({form})"))
    return made


def strategies() -> Dict[str, object]:
    # FULLY_CONNECTED's test draws its arguments one by one: the same strategies, as a dict
    fc_kwargs = fc_t.test_random_layers_both_cpu_paths.hypothesis._given_kwargs
    return {"conv2d": conv_t.conv_cases(), "depthwise_conv2d": dw_t.shapes,
            "fully_connected": st.fixed_dictionaries(fc_kwargs)}


MAKERS = {"conv2d": conv_case, "depthwise_conv2d": depthwise_case, "fully_connected": fc_case}


def _params_of(test, argname: str) -> list:
    """The values of one of a host test's parametrize lists."""
    (values,) = [m.args[1] for m in test.pytestmark if m.name == "parametrize" and m.args[0] == argname]
    return list(values)


def named_cases(ffi, lib, op: str, first_id: int) -> List[dc.DspCase]:
    """The host tests' named layers of ``op`` (the arm-dsp variants' own tests, NAMED, the
    extreme quantisations, FULLY_CONNECTED's accumulator bounds), made as those tests make
    them. Layers too large for the driver are left out (FULLY_CONNECTED's depth of 65,536:
    a 1.1 MB record)."""
    made = []

    def add(label, make):
        try:
            made.append(make(first_id + len(made), label))
        except ValueError as exc:
            if "too large for the driver" not in str(exc):
                raise

    if op == "conv2d":
        def conv(label, seed, **spec):
            def make(i, label):
                kwargs, x, expected = conv_t.quantized_case(np.random.default_rng(seed), **spec)
                conv = conv_t.Conv(ffi, lib, **kwargs)
                return dc.encode(ffi, lib, op, conv.params, kwargs["w"], kwargs["bias"], x, expected, i, label)
            add(label, make)
        for name, (shape, filt, stride, dilation, padding) in sorted(conv_t.NAMED.items()):
            conv(f"conv2d NAMED {name}", zlib.crc32(name.encode()), input_shape=shape, filter_shape=filt,
                 stride=stride, dilation=dilation, padding=padding)
        for shape, filt, stride, padding, act, dilation in _params_of(
                conv_t.test_strip16_is_an_arm_dsp_variant_for_few_input_channels,
                "input_shape, filter_shape, stride, padding, act, dilation"):
            conv(f"conv2d strip16 {shape} {filt} {stride} {padding} {act} {dilation}", sum(shape) + sum(filt),
                 input_shape=shape, filter_shape=filt, stride=stride, dilation=(dilation, 1), padding=padding,
                 act=act, scale_exp=(-14, -8))
        for izp, ozp, exp in [(-128, 127, (-31, -30)), (127, -128, (0.5, 1.0)), (0, 0, (-2, 1))]:
            for filt in ((11, 3, 3), (12, 1, 1), (8, 3, 3)):
                conv(f"conv2d zero points {izp} {ozp}, scales 2^{exp}, filter {filt}", 7, input_shape=(1, 6, 5, 9),
                     filter_shape=filt, input_zp=izp, output_zp=ozp, scale_exp=exp, act=(-128, 127))
        for per_channel, bias in [(False, True), (True, False)]:
            conv(f"conv2d per_channel {per_channel} bias {bias}", 5, input_shape=(1, 7, 7, 6), filter_shape=(14, 3, 3),
                 per_channel=per_channel, bias=bias)

        def shifts(i, label):   # the largest multiplier with the extreme shifts
            kwargs, x, _ = conv_t.quantized_case(np.random.default_rng(7), input_shape=(1, 4, 4, 3), filter_shape=(4, 1, 1))
            kwargs.update(multiplier=np.full(4, (1 << 31) - 1), shift=np.array([30, -31, 0, 1]))
            conv = conv_t.Conv(ffi, lib, **kwargs)
            ref = conv_t.conv_per_channel(x, kwargs["w"], kwargs["bias"], out_hw=(4, 4), input_offset=kwargs["input_offset"],
                                          multiplier=kwargs["multiplier"], shift=kwargs["shift"],
                                          output_offset=kwargs["output_offset"], act_min=kwargs["act_min"],
                                          act_max=kwargs["act_max"])
            return dc.encode(ffi, lib, op, conv.params, kwargs["w"], kwargs["bias"], x, ref, i, label)
        add("conv2d multiplier 2^31-1, shifts 30, -31, 0, 1", shifts)
    elif op == "depthwise_conv2d":
        groups = [(dw_t.test_named_layers, "cfg", None), (dw_t.test_widened_3x3_on_arm_dsp, "kw", 11),
                  (dw_t.test_direct_lanes_on_arm_dsp, "kw", 13), (dw_t.test_planar_on_arm_dsp, "kw", 12)]
        for test, argname, seed in groups:
            for kw in _params_of(test, argname):
                kw = dict(kw) if seed is None else dict(kw, seed=seed)

                def make(i, label, kw=kw):
                    case = dw_t.Case(ffi, lib, **kw)
                    return dc.encode(ffi, lib, op, case.params, case.wt, case.bias, case.x, case.reference(), i, label)
                add(f"depthwise_conv2d {test.__name__} {kw}", make)
    else:
        cfgs = _params_of(fc_t.test_named_layers, "cfg")
        specs = [dict(cfg, double=double, wmin=wmin) for cfg in cfgs for double in (False, True) for wmin in (-128, -127)]
        specs += [dict(depth=259, out=21, wmin=-127, wfill=w, seed=9, double=w > 0, x=-128) for w in (-127, 127)]
        specs += [dict(depth=4099, out=17, filter_zp=127, seed=3, x=v) for v in (-128, 127)]
        for spec in specs:
            def make(i, label, spec=dict(spec)):
                fill = spec.pop("x", None)
                case = fc_t.Case(ffi, lib, **spec)
                if fill is not None:
                    case.x[:] = fill
                return dc.encode(ffi, lib, op, case.params, case.wt, case.bias, case.x, case.reference(), i, label)
            add(f"fully_connected {spec}", make)
    return made


def real_layers(ffi, lib, op: str, first_id: int) -> List[dc.DspCase]:
    """``op``'s layers of the shared models (harness/reference/litert_layers.py, seed 0) on
    LiteRT's own input and output (the NumPy reference checked against it first), their params
    as the host tests' test_litert_layers_bit_exact make them; none where LiteRT or the models
    are missing."""
    if L.unavailable_reason() is not None:
        return []
    name = {"conv2d": "CONV_2D", "depthwise_conv2d": "DEPTHWISE_CONV_2D", "fully_connected": "FULLY_CONNECTED"}[op]
    made = []
    # CONV_2D's options and params as tests/c/test_conv2d.py reads them from the flatbuffer
    convs = {(path.stem, c["op"]): c for path in conv_t._conv_model_paths() for c in conv_t.conv_layers(path)} \
        if op == "conv2d" else {}
    for layer in [la for la in L.layers({name}) if la.seed == 0]:
        x, wt = layer.inputs[0], layer.inputs[1]
        bias = layer.inputs[2] if len(layer.inputs) > 2 else None
        y, o = layer.outputs[0], layer.options
        label = f"{op} {layer.model} op {layer.index}"
        if op == "conv2d":
            conv, kw = conv_t.layer_conv(ffi, lib, convs[(layer.model, layer.index)])
            ref = conv_t.conv_per_channel(
                x, kw["w"], kw["bias"], stride=kw["stride"], dilation=kw["dilation"], pad=kw["pad"], out_hw=kw["out_hw"],
                input_offset=kw["input_offset"], multiplier=kw["multiplier"], shift=kw["shift"],
                output_offset=kw["output_offset"], act_min=kw["act_min"], act_max=kw["act_max"])
            np.testing.assert_array_equal(ref, y, err_msg=f"NumPy reference vs LiteRT: {label}")
            made.append(dc.encode(ffi, lib, op, conv.params, kw["w"], kw["bias"], x, y, first_id + len(made), label))
            continue
        zin, zout = L.zero_point_of(layer.input_q[0]), L.zero_point_of(layer.output_q[0])
        lo, hi = L.activation_of(o.FusedActivationFunction(), layer.output_q[0])
        if op == "fully_connected":
            out_depth, depth = wt.shape
            batches = x.size // depth
            per_channel = int(layer.input_q[1]["scales"].size > 1)
            real = L.fc_real_scales(layer.input_q[0], layer.input_q[1], layer.output_q[0])
            zf = 0 if per_channel else L.zero_point_of(layer.input_q[1])  # LiteRT per-channel ignores it
            x = x.reshape(batches, depth)
            ref = ops.fully_connected(x, wt, bias, input_offset=-zin, filter_offset=-zf, real_scale=real,
                                      output_offset=zout, act_min=lo, act_max=hi)
            keep = ffi.new("double[]", [float(v) for v in real])
            p = ffi.new("ap_fully_connected_params *")
            p.batches, p.input_depth, p.output_depth, p.input_offset, p.filter_offset = batches, depth, out_depth, -zin, -zf
            p.real_scale = keep
            p.requant.per_channel, p.requant.output_offset = per_channel, zout
            p.requant.activation_min, p.requant.activation_max = lo, hi
        else:
            n, h, w, c = x.shape
            _, oh, ow, oc = y.shape
            kh, kw = wt.shape[1:3]
            stride, dilation = (o.StrideH(), o.StrideW()), (o.DilationHFactor(), o.DilationWFactor())
            ph = L.padding_of(o.Padding(), h, kh, stride[0], dilation[0], oh)
            pw = L.padding_of(o.Padding(), w, kw, stride[1], dilation[1], ow)
            m, s = L.conv_multipliers(layer.input_q[0], layer.input_q[1], layer.output_q[0], oc)
            keep = requant_arrays(ffi, m, s)
            ref = ops.depthwise_conv2d(x, wt, bias, stride=stride, dilation=dilation, pad=(ph, pw), out_hw=(oh, ow),
                                       depth_multiplier=oc // c, input_offset=-zin, multiplier=m, shift=s,
                                       output_offset=zout, act_min=lo, act_max=hi)
            p = ffi.new("ap_depthwise_conv2d_params *")
            p.depth_multiplier = oc // c
            (p.batches, p.input_h, p.input_w, p.input_c, p.output_h, p.output_w, p.output_c) = (n, h, w, c, oh, ow, oc)
            p.filter_h, p.filter_w, p.stride_h, p.stride_w = kh, kw, stride[0], stride[1]
            p.dilation_h, p.dilation_w, p.pad_h, p.pad_w, p.input_offset = dilation[0], dilation[1], ph, pw, -zin
            p.requant.multiplier, p.requant.shift = keep
            p.requant.per_channel, p.requant.output_offset = 1, zout
            p.requant.activation_min, p.requant.activation_max = lo, hi
        np.testing.assert_array_equal(ref.reshape(y.shape), y, err_msg=f"NumPy reference vs LiteRT: {label}")
        made.append(dc.encode(ffi, lib, op, p, wt, bias, x, y, first_id + len(made), label))
    return made


@pytest.fixture(scope="module")
def cases(ffi, lib) -> Dict[str, List[dc.DspCase]]:
    """Every op's cases (ids from 0 within an op)."""
    t0 = time.perf_counter()
    out = {}
    for op, strategy in strategies().items():
        ids = itertools.count()
        out[op] = [c for d in dc.draws(strategy, COUNTS[op]) for c in MAKERS[op](ffi, lib, d, ids)]
        out[op] += named_cases(ffi, lib, op, len(out[op]))
        out[op] += real_layers(ffi, lib, op, len(out[op]))
    print(f"cases made in {time.perf_counter() - t0:.1f} s: "
          + ", ".join(f"{op} {len(c)}" for op, c in out.items()))
    return out



def test_the_draws_reach_every_arm_dsp_family(cases):
    """The shape sets list each arm-dsp variant family in several cases (else the runs below
    would not test its code)."""
    families = Counter(f for op in cases.values() for c in op for f in c.families)
    print(dict(families))
    for family in ("direct", "gemm_1x1", "im2col_rows", "im2col", "im2col16_rows_2", "im2col16_rows_4",
                   "im2col16w_rows", "strip16", "padded_rows", "widened", "widened_pairs", "planar", "planar_rows",
                   "smlad", "smlad_x16"):
        assert families[family] >= 20, (family, families)


def test_the_driver_reports_a_wrong_output_and_a_wrong_variant_list(dsp_driver, ffi, lib, dsp_work):
    """The driver's checks fail when they should: a case whose expected output has one byte
    changed, and one whose host list asks one scratch byte more than the core's."""
    spec = dict(input_shape=(1, 6, 5, 9), filter_shape=(8, 3, 3), stride=(1, 1), dilation=(1, 1), padding="same",
                per_channel=True)
    kwargs, x, expected = conv_t.quantized_case(np.random.default_rng(3), **spec)
    conv = conv_t.Conv(ffi, lib, **kwargs)
    wrong = expected.copy()
    wrong.reshape(-1)[17] ^= 1
    bad_output = dc.encode(ffi, lib, "conv2d", conv.params, kwargs["w"], kwargs["bias"], x, expected, 0, "wrong output",
                           expected=wrong)
    bad_list = dc.encode(ffi, lib, "conv2d", conv.params, kwargs["w"], kwargs["bias"], x, expected, 1, "wrong list")
    # the last variant record ends the case: kind, param, count, then its first scratch's bytes
    record = bytearray(bad_list.record)
    at = len(record) - (12 + 32 + 32) + 12
    record[at:at + 4] = (int.from_bytes(record[at:at + 4], "little") + 1).to_bytes(4, "little")
    bad_list.record = bytes(record)
    good = dc.encode(ffi, lib, "conv2d", conv.params, kwargs["w"], kwargs["bias"], x, expected, 2, "right")
    ours = [bad_output, bad_list, good]
    results = dc.run_cases(dsp_driver("cortex-m4"), "cortex-m4", dc.write_cases(dsp_work / "tampered.bin", ours), ours)
    assert results[0].failures == [f"{bad_output.variants[k]} output_differs_at 17 {wrong.reshape(-1)[17] ^ 1} "
                                   f"{wrong.reshape(-1)[17]}" for k in range(len(bad_output.variants))]
    assert results[0].passed == 0
    assert results[1].failures == [f"{bad_list.variants[-1]} variant_differs_from_host {len(bad_list.variants) - 1} "
                                   f"{conv.variants(lib.AP_ISA_ARM_DSP)[-1].kind}"]
    assert results[2].failures == [] and results[2].passed == results[2].variants == len(good.variants)


@pytest.mark.parametrize("board_core", CORES)
@pytest.mark.parametrize("op", OPS)
def test_every_arm_dsp_variant_on_the_core(dsp_driver, cases, dsp_work, op, board_core):
    """Every arm-dsp variant of every case on ``core``: the expected output with exactly its
    scratch between guard bytes, AP_ERR_SCRATCH_TOO_SMALL and the output untouched with one
    byte too few, nothing written outside its buffers, the core's variant list and blob the
    host's, the stack it touched within run()'s static bound."""
    ours = cases[op]
    print(dc.check_on_core(dsp_driver(board_core), board_core, dc.write_cases(dsp_work / f"{op}.bin", ours), ours, op))


@pytest.mark.parametrize("op", OPS)
def test_inputs_and_outputs_at_any_address(dsp_driver, cases, dsp_work, op):
    """Every variant on the M4 gives the same bytes with its input and output 1 or 2 bytes past
    a 16-byte boundary (the C API asks no alignment of them)."""
    ours = cases[op]
    path = dc.write_cases(dsp_work / f"{op}.bin", ours)
    for offset in (1, 2):
        results = dc.run_cases(dsp_driver("cortex-m4"), "cortex-m4", path, ours, offset=offset,
                               misaligned=("input", "output"))
        bad = [f"case {c.id}: {c.label}: {results[c.id].failures}" for c in ours if results[c.id].failures]
        assert not bad, f"{len(bad)} cases fail with input and output {offset} bytes off:\n" + "\n".join(bad[:20])


@pytest.mark.parametrize("op", OPS)
def test_scratch_at_any_address_is_used_or_refused(dsp_driver, cases, dsp_work, op):
    """Every variant on the M4 with each scratch buffer 1 or 2 bytes past its alignment either
    gives the same bytes (and refuses one byte less) or refuses the buffer with
    AP_ERR_INVALID_ARGUMENT, writing nothing (padded_rows and planar ask 2 and 4 bytes,
    smlad_x16, widened, widened_pairs, im2col16_rows, im2col16w_rows and strip16 4); none
    faults."""
    ours = cases[op]
    path = dc.write_cases(dsp_work / f"{op}.bin", ours)
    refused = Counter()
    for offset in (1, 2):
        results = dc.run_cases(dsp_driver("cortex-m4"), "cortex-m4", path, ours, offset=offset,
                               misaligned=("scratch",))
        bad = [f"case {c.id}: {c.label}: {results[c.id].failures}" for c in ours if results[c.id].failures]
        assert not bad, f"{len(bad)} cases fail with scratch {offset} bytes off:\n" + "\n".join(bad[:20])
        refused.update(f"{name} +{offset}" for r in results.values() for name in r.refused)
    print(f"{op}: refusals {dict(refused)}")
