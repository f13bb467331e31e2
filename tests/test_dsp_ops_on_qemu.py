"""The arm-dsp code of AVERAGE_POOL_2D, MAX_POOL_2D, ADD, SUB, MUL and SOFTMAX on the Cortex-M
cores themselves, under QEMU, on the host suites' hypothesis shape sets.

On the host the arm-dsp rows run as their instructions' C definitions (tests/c); here they
run on the cores. The cases are draws of the host tests' strategies (tests/c/test_pooling.py's
test_random_pools, test_elementwise.py's test_random_broadcasts, test_softmax.py's random
rows of both output types and its any-params draws), collected first (derandomised, a fixed
count), plus those tests' named cases (the SIMD widths' edges, the int16 lanes' limits, the
arm-dsp ADD and MUL forms and their fallbacks) and the ops' layers of the shared models. Each
is made into a node of the op table's row as those tests make it, and checked on the host
against the NumPy reference through the portable kernel (harness/firmware/dsp_cases.py);
then one emulator run per op and core runs every arm-dsp variant with exactly its scratch
between poisoned guard bytes and with each scratch buffer one byte short, in place over an
input where the variant may be, and compares its variant list with the host's.
"""
from __future__ import annotations

import itertools
import time
from collections import Counter
from typing import Dict, List

import numpy as np
import pytest
from hypothesis import strategies as st

from harness.firmware import build as fw
from harness.firmware import dsp_cases as dc

import test_elementwise as ew_t  # noqa: E402  (tests/c, on the path through conftest)
import test_pooling as pool_t  # noqa: E402
import test_softmax as sm_t  # noqa: E402
from harness.reference import litert_layers as L  # noqa: E402
from harness.reference import ops  # noqa: E402
from harness.reference.quant import multiply_by_quantized_multiplier  # noqa: E402

CORES = ["cortex-m4", "cortex-m7", "cortex-m33"]
#: the case sets, each one op table row, and the host strategies' draws each takes (the host
#: tests' max_examples are 60, 80 and 60 + 40 + 120)
COUNTS = {"average_pool2d": 300, "max_pool2d": 300, "add": 300, "sub": 100, "mul": 300, "softmax": 200}
ROWS = {"average_pool2d": "AVERAGE_POOL_2D", "max_pool2d": "MAX_POOL_2D", "add": "ADD", "sub": "SUB", "mul": "MUL",
        "softmax": "SOFTMAX"}
OPS = list(COUNTS)

_MISSING = fw.missing_arm_tools()
pytestmark = pytest.mark.skipif(bool(_MISSING), reason=f"Cortex-M toolchain not installed ({', '.join(_MISSING)}); "
                                "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm")


# ---- pooling ----

def pool_node(op: str, x: np.ndarray, *, filter_hw, stride, pad, out_hw, act, case_id: int, label: str) -> dc.DspCase:
    n, h, w, c = x.shape
    spec = dict(batches=n, input_h=h, input_w=w, channels=c, output_h=out_hw[0], output_w=out_hw[1],
                filter_h=filter_hw[0], filter_w=filter_hw[1], stride_h=stride[0], stride_w=stride[1], pad_h=pad[0],
                pad_w=pad[1], activation_min=act[0], activation_max=act[1])
    reference = (ops.average_pool2d if op == "average_pool2d" else ops.max_pool2d)(
        x, filter_hw=filter_hw, stride=stride, pad=pad, out_hw=out_hw, act_min=act[0], act_max=act[1])
    return dc.encode_node(ROWS[op], "s8", spec, [x], reference, case_id, label)


def pool_cases(op: str, d: dict, ids) -> List[dc.DspCase]:
    """A draw of test_random_pools made as that test makes it (for this op whatever it drew)."""
    rng = np.random.default_rng(d["seed"])
    x = rng.integers(-128, 128, size=(d["n"], d["h"], d["w"], d["c"]), dtype=np.int8)
    kh, kw, sh, sw, h, w = d["kh"], d["kw"], d["sh"], d["sw"], d["h"], d["w"]
    if d["same"]:
        oh, ph = ops.same_padding(h, kh, sh)
        ow, pw = ops.same_padding(w, kw, sw)
    else:
        kh, kw = min(kh, h), min(kw, w)
        oh, ow, ph, pw = (h - kh) // sh + 1, (w - kw) // sw + 1, 0, 0
    return [pool_node(op, x, filter_hw=(kh, kw), stride=(sh, sw), pad=(ph, pw), out_hw=(oh, ow), act=d["act"],
                      case_id=next(ids), label=f"{op} {d}")]


def pool_named(op: str, ids) -> List[dc.DspCase]:
    """test_named_pools' layers, and the arm-dsp edges: test_average_int16_lane_edges (windows
    of 256 taps at the int16 lanes' limits, one tap more) and test_max_lanes (every kind of
    clamp), at channel counts on and off the SIMD widths."""
    made = []
    for cfg in pool_t.test_named_pools.pytestmark[0].args[1]:
        x = np.random.default_rng(1).integers(-128, 128, size=cfg["shape"], dtype=np.int8)
        n, h, w, c = cfg["shape"]
        out_hw = cfg.get("out_hw", ((h - cfg["filter_hw"][0]) // cfg["stride"][0] + 1,
                                    (w - cfg["filter_hw"][1]) // cfg["stride"][1] + 1))
        made.append(pool_node(op, x, filter_hw=cfg["filter_hw"], stride=cfg["stride"], pad=cfg.get("pad", (0, 0)),
                              out_hw=out_hw, act=(-128, 127), case_id=next(ids), label=f"{op} named {cfg}"))
    for c in (4, 8, 12, 13, 15):
        rng = np.random.default_rng(c)
        for taps in ((16, 16), (16, 17), (25, 5)):
            for fill in (-128, 127, None):
                shape = (1, taps[0], taps[1], c)
                x = (np.full(shape, fill, dtype=np.int8) if fill is not None
                     else rng.integers(-128, 128, size=shape, dtype=np.int8))
                for act in ((-128, 127), (-20, 30)):
                    made.append(pool_node(op, x, filter_hw=taps, stride=(1, 1), pad=(0, 0), out_hw=(1, 1), act=act,
                                          case_id=next(ids), label=f"{op} lanes c {c} taps {taps} fill {fill} {act}"))
        x = rng.integers(-128, 128, size=(1, 5, 6, c), dtype=np.int8)
        x[0, 0, 0, ::2] = 127
        x[0, :, :, 1::3] = -128
        for act in ((-128, 127), (0, 127), (-128, 0), (-10, 40), (5, 5)):
            made.append(pool_node(op, x, filter_hw=(2, 3), stride=(1, 2), pad=(0, 0), out_hw=(4, 2), act=act,
                                  case_id=next(ids), label=f"{op} clamps c {c} {act}"))
    return made


def pool_layers(op: str, ids) -> List[dc.DspCase]:
    """The op's layers of the shared models on LiteRT's input and output, as
    test_pooling.test_litert_layers_bit_exact makes them."""
    made = []
    for layer in [la for la in L.layers({ROWS[op]}) if la.seed == 0]:
        x, y, o = layer.inputs[0], layer.outputs[0], layer.options
        _, h, w, _ = x.shape
        _, oh, ow, _ = y.shape
        kh, kw = o.FilterHeight(), o.FilterWidth()
        pad = (L.padding_of(o.Padding(), h, kh, o.StrideH(), 1, oh), L.padding_of(o.Padding(), w, kw, o.StrideW(), 1, ow))
        act = L.activation_of(o.FusedActivationFunction(), layer.output_q[0])
        case = pool_node(op, x, filter_hw=(kh, kw), stride=(o.StrideH(), o.StrideW()), pad=pad, out_hw=(oh, ow),
                         act=act, case_id=next(ids), label=f"{op} {layer.model} op {layer.index}")
        np.testing.assert_array_equal(ops.average_pool2d(x, filter_hw=(kh, kw), stride=(o.StrideH(), o.StrideW()),
                                                         pad=pad, out_hw=(oh, ow), act_min=act[0], act_max=act[1])
                                      if op == "average_pool2d" else
                                      ops.max_pool2d(x, filter_hw=(kh, kw), stride=(o.StrideH(), o.StrideW()),
                                                     pad=pad, out_hw=(oh, ow), act_min=act[0], act_max=act[1]),
                                      y, err_msg=case.label)
        made.append(case)
    return made


# ---- ADD, SUB, MUL ----

def sub_reference(x1, x2, p: dict) -> np.ndarray:
    """TFLite's int8 SUB (reference_ops::BroadcastSubSlow's quantised path): ADD's arithmetic
    with the second scaled input subtracted."""
    a = (np.asarray(x1, dtype=np.int64) + p["input1_offset"]) << p["left_shift"]
    b = (np.asarray(x2, dtype=np.int64) + p["input2_offset"]) << p["left_shift"]
    sa = multiply_by_quantized_multiplier(a, p["input1_multiplier"], p["input1_shift"])
    sb = multiply_by_quantized_multiplier(b, p["input2_multiplier"], p["input2_shift"])
    raw = multiply_by_quantized_multiplier(sa - sb, p["output_multiplier"], p["output_shift"])
    return np.clip(raw + p["output_offset"], p["activation_min"], p["activation_max"]).astype(np.int8)


REFERENCES = {"add": ops.add, "sub": sub_reference, "mul": ops.mul}


def binary_node(op: str, x1: np.ndarray, x2: np.ndarray, fields: dict, case_id: int, label: str) -> dc.DspCase:
    so = tuple(max(a, b) for a, b in zip(x1.shape, x2.shape))
    spec = dict(fields, input1_shape=list(x1.shape), input2_shape=list(x2.shape), output_shape=list(so))
    return dc.encode_node(ROWS[op], "s8", spec, [x1, x2], REFERENCES[op](x1, x2, fields), case_id, label)


def binary_fields(op: str, scales, zps, act) -> dict:
    params = ops.mul_params if op == "mul" else ops.add_params
    return params(scales[0], zps[0], scales[1], zps[1], scales[2], zps[2], *act)


def binary_cases(op: str, d: dict, ids) -> List[dc.DspCase]:
    """A draw of test_random_broadcasts made as that test makes it (for this op)."""
    rng = np.random.default_rng(d["seed"])
    s1 = tuple(1 if m else n for n, m in zip(d["out"], d["mask1"]))
    s2 = tuple(1 if m else n for n, m in zip(d["out"], d["mask2"]))
    x1 = rng.integers(-128, 128, size=s1, dtype=np.int8)
    x2 = rng.integers(-128, 128, size=s2, dtype=np.int8)
    return [binary_node(op, x1, x2, binary_fields(op, d["scales"], d["zps"], d["act"]), next(ids), f"{op} {d}")]


def binary_named(op: str, ids) -> List[dc.DspCase]:
    """test_named_shapes and test_extreme_scales; for ADD test_add_arm_dsp_edges (the one-loop
    case, the SMMULR rows, and the parameters that take the portable row), for MUL
    test_mul_arm_dsp_edges (the SMMULR form and the rescales beyond it)."""
    made = []
    for s1, s2 in ew_t.test_named_shapes.pytestmark[0].args[1]:
        rng = np.random.default_rng(7)
        x1, x2 = rng.integers(-128, 128, size=s1, dtype=np.int8), rng.integers(-128, 128, size=s2, dtype=np.int8)
        made.append(binary_node(op, x1, x2, binary_fields(op, (0.05, 0.11, 0.07), (-3, 17, 0), (-128, 127)),
                                next(ids), f"{op} named {s1} {s2}"))
    rng = np.random.default_rng(3)
    x1 = rng.integers(-128, 128, size=(1, 4, 4, 19), dtype=np.int8)
    x2 = rng.integers(-128, 128, size=(1, 4, 4, 19), dtype=np.int8)
    for scales in [(1.0, 1e-4, 1e-4), (1e-4, 1.0, 10.0), (0.5, 0.5, 0.5), (2.0, 3.0, 1e-3)]:
        made.append(binary_node(op, x1, x2, binary_fields(op, scales, (-128, 127, 5), (-128, 127)), next(ids),
                                f"{op} scales {scales}"))
    for n in (1, 2, 3, 4, 5, 7, 8, 9, 16, 33):
        rng = np.random.default_rng(n)
        a = rng.integers(-128, 128, size=(1, 1, 2, n), dtype=np.int8)
        b = rng.integers(-128, 128, size=(1, 1, 2, n), dtype=np.int8)
        a[0, 0, 0, :] = -128
        b[0, 0, 0, ::2] = 127
        b[0, 0, 0, 1::2] = 127 if op != "mul" else -128
        shapes = ((a.shape, b.shape), ((1, 1, 1, 1), b.shape), (a.shape, (1, 1, 1, 1)), ((1, 1, 2, 1), b.shape))
        if op == "mul":
            forms = [(ops.mul_params(1.0, zps[0], 1.0, zps[1], 1.0 / real, zps[2], *act), f"rescale {real} {act}")
                     for real in (1e-4, 0.01, 0.5, 1.0, 100.0, 8000.0, 9000.0, 30000.0)
                     for act, zps in (((-128, 127), (-128, 127, 3)), ((-5, 20), (0, 1, -7)))]
        else:
            forms = []
            for scales in [(0.05, 0.05, 0.001), (0.5, 0.01, 0.002), (1e-3, 0.9, 0.9), (0.2, 0.2, 1e-4),
                           (0.02, 0.05, 0.01), (0.05, 0.05, 100.0), (0.05, 0.02, 3.0)]:
                fields = ops.add_params(scales[0], -128, scales[1], 127, scales[2], 3)
                for left_shift, tweak in ((20, {}), (19, {}), (21, {}), (22, {}), (20, {"input2_shift": -31}),
                                          (20, {"output_shift": -31}), (20, {"activation_min": -7, "activation_max": 9})):
                    forms.append((dict(fields, left_shift=left_shift, **tweak), f"{scales} {left_shift} {tweak}"))
        for fields, what in forms:
            for s1, s2 in shapes:
                made.append(binary_node(op, a[tuple(slice(0, k) for k in s1)], b[tuple(slice(0, k) for k in s2)],
                                        fields, next(ids), f"{op} edges n {n} {what} {s1} {s2}"))
    return made


def _four_d(shape):
    return (1,) * (4 - len(shape)) + tuple(shape)


def binary_layers(op: str, ids) -> List[dc.DspCase]:
    """The op's layers of the shared models on LiteRT's inputs and output, as
    test_elementwise.test_litert_layers_bit_exact makes them."""
    made = []
    for layer in [la for la in L.layers({ROWS[op]}) if la.seed == 0]:
        q1, q2, qo = layer.input_q[0], layer.input_q[1], layer.output_q[0]
        act = L.activation_of(layer.options.FusedActivationFunction(), qo)
        fields = binary_fields(op, (L.scale_of(q1), L.scale_of(q2), L.scale_of(qo)),
                               (L.zero_point_of(q1), L.zero_point_of(q2), L.zero_point_of(qo)), act)
        x1, x2, y = layer.inputs[0], layer.inputs[1], layer.outputs[0]
        case = binary_node(op, x1.reshape(_four_d(x1.shape)), x2.reshape(_four_d(x2.shape)), fields, next(ids),
                           f"{op} {layer.model} op {layer.index}")
        np.testing.assert_array_equal(REFERENCES[op](x1.reshape(_four_d(x1.shape)), x2.reshape(_four_d(x2.shape)),
                                                     fields), y.reshape(_four_d(y.shape)), err_msg=case.label)
        made.append(case)
    return made


# ---- SOFTMAX ----

def softmax_node(lib, x: np.ndarray, fields: dict, out_dtype, case_id: int, label: str, reference=True) -> dc.DspCase:
    """x: [outer, depth]. Without ``reference`` (params TFLite would not make, beyond the
    NumPy reference's domain) the portable kernel's output is what the core must give."""
    spec = dict(fields, outer_size=x.shape[0], depth=x.shape[1],
                output_type=lib.AP_DTYPE_INT16 if out_dtype == np.int16 else lib.AP_DTYPE_INT8)
    expected = ops.softmax(x, fields, out_dtype) if reference else (x.shape, out_dtype)
    return dc.encode_node("SOFTMAX", "s8", spec, [x], expected, case_id, label)


def softmax_cases(lib, d: dict, ids) -> List[dc.DspCase]:
    """A draw of test_random_rows made as that test makes it, with both output types; a draw
    of test_arm_dsp_equals_portable_on_any_params (any multiplier, shift and diff_min)."""
    rng = np.random.default_rng(d["seed"])
    spread = d["spread"]
    lo = int(rng.integers(-128, 128 - min(spread, 255) + 1)) if spread < 255 else -128
    x = rng.integers(lo, min(lo + spread, 127) + 1, size=(d["outer"], d["depth"])).astype(np.int8)
    made = [softmax_node(lib, x, ops.softmax_params(d["beta"], d["scale"]), t, next(ids), f"softmax {d} {t.__name__}")
            for t in (np.int8, np.int16)]
    a = d["any"]
    y = np.random.default_rng(a["seed"]).integers(-128, 128, size=(a["outer"], a["depth"])).astype(np.int8)
    fields = dict(input_beta_multiplier=a["multiplier"], input_beta_left_shift=a["left"], diff_min=a["diff_min"])
    made.append(softmax_node(lib, y, fields, np.int16 if a["out16"] else np.int8, next(ids), f"softmax any {a}",
                             reference=False))
    return made


def softmax_named(lib, ids) -> List[dc.DspCase]:
    """test_named_rows, and test_arm_dsp_every_difference's rows holding all 256 int8 values
    (every difference to the maximum) and rows without 127, both output types."""
    made = []
    for shape, scale in sm_t.test_named_rows.pytestmark[0].args[1]:
        x = np.random.default_rng(11).integers(-128, 128, size=shape, dtype=np.int8)
        for t in (np.int8, np.int16):
            made.append(softmax_node(lib, x, ops.softmax_params(1.0, scale), t, next(ids), f"softmax named {shape} {t}"))
    every = np.arange(-128, 128, dtype=np.int8)
    rows = np.stack([every, np.roll(every, 77), np.where(every == 127, 126, every).astype(np.int8)])
    for beta, scale in sm_t.test_arm_dsp_every_difference.pytestmark[0].args[1]:
        for t in (np.int8, np.int16):
            made.append(softmax_node(lib, rows, ops.softmax_params(beta, scale), t, next(ids),
                                     f"softmax every difference {beta} {scale} {t}"))
    return made


def softmax_layers(lib, ids) -> List[dc.DspCase]:
    """SOFTMAX's layers of the shared models on LiteRT's input and output (both output types)."""
    made = []
    for layer in [la for la in L.layers({"SOFTMAX"}) if la.seed == 0]:
        x, y = layer.inputs[0], layer.outputs[0]
        x2 = x.reshape(-1, x.shape[-1])
        fields = ops.softmax_params(layer.options.Beta(), L.scale_of(layer.input_q[0]))
        case = softmax_node(lib, x2, fields, y.dtype.type, next(ids), f"softmax {layer.model} op {layer.index}")
        np.testing.assert_array_equal(ops.softmax(x2, fields, y.dtype), y.reshape(x2.shape), err_msg=case.label)
        made.append(case)
    return made


def _given(test) -> dict:
    return dict(test.hypothesis._given_kwargs)


def make_cases(lib, op: str) -> List[dc.DspCase]:
    """Every case of ``op`` (ids from 0)."""
    ids = itertools.count()
    litert = L.unavailable_reason() is None
    if op in ("average_pool2d", "max_pool2d"):
        made = [c for d in dc.draws(st.fixed_dictionaries(_given(pool_t.test_random_pools)), COUNTS[op])
                for c in pool_cases(op, d, ids)]
        return made + pool_named(op, ids) + (pool_layers(op, ids) if litert else [])
    if op in ("add", "sub", "mul"):
        made = [c for d in dc.draws(st.fixed_dictionaries(_given(ew_t.test_random_broadcasts)), COUNTS[op])
                for c in binary_cases(op, d, ids)]
        return made + binary_named(op, ids) + (binary_layers(op, ids) if litert else [])
    strategy = st.fixed_dictionaries(dict(_given(sm_t.test_random_rows),
                                          any=st.fixed_dictionaries(_given(sm_t.test_arm_dsp_equals_portable_on_any_params))))
    made = [c for d in dc.draws(strategy, COUNTS[op]) for c in softmax_cases(lib, d, ids)]
    return made + softmax_named(lib, ids) + (softmax_layers(lib, ids) if litert else [])


@pytest.fixture(scope="module")
def cases(lib) -> Dict[str, List[dc.DspCase]]:
    t0 = time.perf_counter()
    out = {op: make_cases(lib, op) for op in OPS}
    print(f"cases made in {time.perf_counter() - t0:.1f} s: " + ", ".join(f"{op} {len(c)}" for op, c in out.items()))
    return out



def test_the_cases_reach_the_arm_dsp_forms(cases):
    """The sets hold what the arm-dsp code branches on: pooling windows of at most and more
    than 256 taps and channel counts off the SIMD widths; ADD's and MUL's broadcasts, in-place
    shapes and parameters past their fast forms; SOFTMAX's both output types, both variants
    and rows longer than 255."""
    for op in OPS:
        assert len(cases[op]) >= COUNTS[op], op
        assert all(c.variants for c in cases[op])
    assert {"direct", "exp_cache"} <= {v for c in cases["softmax"] for v in c.variants}
    labels = " ".join(c.label for c in cases["add"])
    assert "'left_shift': 21" in labels or "21 {}" in labels
    assert "rescale 30000.0" in " ".join(c.label for c in cases["mul"])
    assert "taps (16, 17)" in " ".join(c.label for c in cases["average_pool2d"])


@pytest.mark.parametrize("board_core", CORES)
@pytest.mark.parametrize("op", OPS)
def test_every_arm_dsp_variant_on_the_core(dsp_driver, cases, dsp_work, op, board_core):
    """Every arm-dsp variant of every case on the core: the expected output with exactly its
    scratch between guard bytes (and in place over an input of the output's shape where it
    may be), AP_ERR_SCRATCH_TOO_SMALL and the output untouched with one byte too few, nothing
    written outside its buffers, the core's variant list the host's, the stack it touched
    within the row's run entry's static bound."""
    ours = cases[op]
    print(dc.check_on_core(dsp_driver(board_core), board_core, dc.write_cases(dsp_work / f"{op}.bin", ours), ours, op))


@pytest.mark.parametrize("op", OPS)
def test_inputs_and_outputs_at_any_address(dsp_driver, cases, dsp_work, op):
    """Every variant on the M4 gives the same bytes with its inputs and output 1 or 2 bytes
    past a 16-byte boundary (an int16 output 2: the C API asks its alignment), and with its
    scratch there gives them or refuses the buffer, writing nothing (SOFTMAX's exp_cache asks
    4 bytes for its int32 values); none faults."""
    ours = cases[op]
    path = dc.write_cases(dsp_work / f"{op}.bin", ours)
    refused = Counter()
    for offset in (1, 2):
        results = dc.run_cases(dsp_driver("cortex-m4"), "cortex-m4", path, ours, offset=offset,
                               misaligned=("input", "output", "scratch"))
        bad = [f"case {c.id}: {c.label}: {results[c.id].failures}" for c in ours if results[c.id].failures]
        assert not bad, f"{len(bad)} cases fail with buffers {offset} bytes off:\n" + "\n".join(bad[:20])
        refused.update(f"{name} +{offset}" for r in results.values() for name in r.refused)
    print(f"{op}: refusals {dict(refused)}")
    assert set(refused) <= {"exp_cache +1", "exp_cache +2"}
