"""The uint8 rows (AP_TYPES_U8): TensorFlow Lite Micro's five uint8 (op, type) pairs. QUANTIZE
int8 -> uint8 (the int8 REQUANTIZE row writing uint8) and uint8 -> int8 (the uint8 REQUANTIZE
row): TFLite's Requantize, whose fast path for equal scales and zero points 128 apart flips the
top bit; DEQUANTIZE uint8 -> float32; BROADCAST_TO and REVERSE_V2 of uint8 on the int8 rows'
byte kernels.

One-op .tflite models (harness.tflm_support's builders), every variant on every instruction set
this host runs inside a verified plan, under both rounding rules, bit-exact with LiteRT's
reference kernels (BUILTIN_REF) and the tflite-micro interpreter on all 256 values of the input
type with zero points at the ends; broadcasting; hypothesis over scales and zero points; the
poisoned arena; refusals naming the op index, the op and what is wrong; the audit's totals;
ap.tflm's arena on the uint8 models; the rows on a Cortex-M4 under QEMU."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from harness import tflm_support as T
from harness.reference import litert_layers as L
from test_type_rows import check, feeds
from unary_s8 import load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
needs_tflm = pytest.mark.skipif(not T.HAVE_TFLM, reason="tflite-micro is not importable")
REFERENCES = ("litert", "tflm")
U8_ROWS = ["DEQUANTIZE", "REQUANTIZE", "BROADCAST_TO", "REVERSE_V2"]


def every_value(dtype, shape=(1, 256)):
    """The type's 256 values, in order (int8: -128 .. 127; uint8: 0 .. 255)."""
    info = np.iinfo(dtype)
    return np.arange(info.min, int(info.max) + 1, dtype=np.int64).astype(dtype).reshape(shape)


def run_both(content, tmp_path, xs):
    """check() under each rounding rule (LiteRT and TFLite Micro agree: each rule runs the row)."""
    for reference in REFERENCES:
        (tmp_path / reference).mkdir()
        check(content, tmp_path / reference, xs, reference=reference)


# --- QUANTIZE int8 <-> uint8 -----------------------------------------------------------------
#: (input scale, zero point), (output scale, zero point): the fast path's equal scales 128 apart
#: both ways, zero points at the types' ends, scale ratios above and below 1
REQUANT = [
    ("int8", "uint8", (0.05, 0), (0.05, 128)),        # Requantize's fast path: the top bit flipped
    ("uint8", "int8", (0.05, 128), (0.05, 0)),
    ("int8", "uint8", (0.05, -128), (0.05, 0)),       # fast path at the ends
    ("uint8", "int8", (0.05, 255), (0.05, 127)),
    ("int8", "uint8", (0.05, 3), (0.05, 3)),          # equal scales, not 128 apart: the general loop
    ("int8", "uint8", (0.05, 3), (0.07, 200)),
    ("int8", "uint8", (0.3, 127), (0.011, 0)),        # ratio above 1: saturates both ways
    ("int8", "uint8", (0.002, -128), (0.9, 255)),     # ratio far below 1
    ("uint8", "int8", (0.01, 255), (0.3, -128)),
    ("uint8", "int8", (0.4, 0), (0.013, 127)),
    ("uint8", "int8", (1 / 3, 77), (0.25, -5)),
]


@needs_litert
@needs_tflm
@pytest.mark.parametrize("src,dst,xq,yq", REQUANT, ids=[f"{s}-{d}-{x}-{y}" for s, d, x, y in REQUANT])
def test_requantize_every_value(src, dst, xq, yq, tmp_path):
    content = T.requantize(src, dst, shape=(1, 256), xq=xq, yq=yq)
    run_both(content, tmp_path, [[every_value(src)], [every_value(src)[:, ::-1].copy()]])


@needs_litert
@needs_tflm
def test_requantize_fast_path_flips_the_top_bit(tmp_path):
    """Equal scales, zero points 128 apart: each byte with its top bit flipped."""
    for src, dst, xq, yq in REQUANT[:4]:
        content = T.requantize(src, dst, shape=(1, 256), xq=xq, yq=yq)
        x = every_value(src)
        got = ap.Interpreter(ap.plan(load(content, tmp_path, f"{src}{xq[1]}"), reference="tflm")).run(x)
        np.testing.assert_array_equal(got.view(np.uint8), x.view(np.uint8) ^ 0x80)


@needs_litert
@needs_tflm
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_requantize_hypothesis(data, tmp_path_factory):
    src = data.draw(st.sampled_from(["int8", "uint8"]))
    dst = "uint8" if src == "int8" else "int8"
    zp = {"int8": st.integers(-128, 127), "uint8": st.integers(0, 255)}
    scale = st.floats(1e-4, 2.0, allow_nan=False)
    xq, yq = (data.draw(scale), data.draw(zp[src])), (data.draw(scale), data.draw(zp[dst]))
    shape = tuple(data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=4)))
    content = T.requantize(src, dst, shape=shape, xq=xq, yq=yq)
    check(content, tmp_path_factory.mktemp("rq"), feeds(content, sum(shape)), reference=data.draw(
        st.sampled_from(REFERENCES)))


# --- DEQUANTIZE uint8 ------------------------------------------------------------------------
@needs_litert
@needs_tflm
@pytest.mark.parametrize("xq", [(0.05, 128), (0.37, 0), (0.0123, 255), (1e-5, 1), (3.5, 200)])
def test_dequantize_every_value(xq, tmp_path):
    content = T.requantize("uint8", "float32", shape=(1, 256), xq=xq)
    run_both(content, tmp_path, [[every_value("uint8")]])


@needs_litert
@needs_tflm
def test_dequantize_shapes(tmp_path):
    for k, shape in enumerate([(1, 4, 5, 3), (7,), (1, 1)]):
        content = T.requantize("uint8", "float32", shape=shape, xq=(0.07, 131))
        (tmp_path / str(k)).mkdir()
        run_both(content, tmp_path / str(k), feeds(content, k))


# --- BROADCAST_TO and REVERSE_V2 of uint8 ----------------------------------------------------
@needs_litert
@needs_tflm
@pytest.mark.parametrize("shape,new", [((1, 3), (2, 3)), ((3, 1, 1), (3, 4, 5)), ((1, 1, 1, 1), (2, 2, 2, 2)),
                                       ((5,), (2, 3, 5)), ((2, 1, 3), (2, 1, 3)), ((1, 1, 5, 1), (1, 3, 5, 4))])
def test_broadcast_to(shape, new, tmp_path):
    content = T._u8(T.broadcast_to, shape=shape, new=new)
    run_both(content, tmp_path, feeds(content, len(new)))


@needs_litert
@needs_tflm
def test_broadcast_to_every_value(tmp_path):
    content = T._u8(T.broadcast_to, shape=(1, 256), new=(3, 256))
    run_both(content, tmp_path, [[every_value("uint8")]])


@needs_litert
@needs_tflm
@pytest.mark.parametrize("shape,axes", [((2, 3, 4), (1,)), ((2, 3, 4), (-1,)), ((2, 3, 4, 5), (1, 2)),
                                        ((256,), (0,)), ((1, 5, 1), (0, 1, 2)), ((2, 2, 2, 2, 2, 2), (2, 3))])
def test_reverse_v2(shape, axes, tmp_path):
    content = T._u8(T.reverse_v2, shape=shape, axes=axes)
    xs = [[every_value("uint8", shape)]] if shape == (256,) else feeds(content, len(shape))
    run_both(content, tmp_path, xs)


@needs_litert
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_moves_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    if data.draw(st.booleans()):
        k = data.draw(st.integers(0, rank - 1))
        content = T._u8(T.reverse_v2, shape=shape, axes=tuple(range(k, data.draw(st.integers(k, rank - 1)) + 1)))
    else:
        new = tuple(data.draw(st.integers(1, 3)) if d == 1 else d for d in shape)
        new = tuple(data.draw(st.lists(st.integers(1, 2), max_size=4 - rank))) + new
        content = T._u8(T.broadcast_to, shape=shape, new=new)
    check(content, tmp_path_factory.mktemp("u8"), feeds(content, rank), tflm=False)


@needs_litert
@needs_tflm
def test_a_chain_through_the_uint8_rows(tmp_path):
    """int8 -> uint8 -> REVERSE_V2 -> BROADCAST_TO -> int8 and a DEQUANTIZE of the reversed
    uint8: the whole graph planned, verified, equal to both runtimes, the poisoned arena op by
    op; ap.tflm's arena exact (the uint8_ops family's chain_uint8)."""
    content = T.chain_uint8()
    run_both(content, tmp_path, feeds(content, 11, n=3))
    r = ap.tflm.arena(load(content, tmp_path, "chain"), pointer_bytes=8)
    assert T.trial(content, r.arena_size)["ok"] and not T.trial(content, r.arena_size - 16)["ok"]


# --- the rows --------------------------------------------------------------------------------
def test_rows():
    """The uint8 rows, AP_TYPES_U8 (6), appended together at the end of the op table; the
    requantisations (one byte in, one out) may run in place, DEQUANTIZE (four bytes out) not."""
    rows = _core.ops()
    at = [i for i, r in enumerate(rows) if r["types"] == "u8"]
    assert [rows[i]["name"] for i in at] == U8_ROWS and all(rows[i]["types_code"] == 6 for i in at)
    assert at == list(range(len(rows) - len(U8_ROWS), len(rows)))
    from arenaplan.ops.coverage import _quantize
    from arenaplan.planning.context import PlanContext
    for src, dst, in_place in (("uint8", "int8", True), ("int8", "uint8", True), ("uint8", "float32", False)):
        (kernel,) = PlanContext.build(_quantize(src, dst), isa="portable", reference="tflm").kernels
        assert kernel.variants[0].in_place is in_place and kernel.types == 6 * (src == "uint8")


def test_the_audit_runs_every_pair():
    """The type audit: every one of TensorFlow Lite Micro's 305 pairs runs, none left out."""
    from arenaplan.ops import tflm_types as A
    assert A.totals() == {"tflm": 305, "covered": 305, "left_out": 0} and not A.LEFT_OUT
    assert A.covering_row("QUANTIZE", "uint8->int8") == ("REQUANTIZE", "u8")
    assert A.covering_row("QUANTIZE", "int8->uint8") == ("REQUANTIZE", "s8")
    assert A.covering_row("DEQUANTIZE", "uint8") == ("DEQUANTIZE", "u8")


def _refused(content, tmp_path, pattern, references=REFERENCES):
    for reference in references:
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, reference), reference=reference)


def test_refusals_name_the_op(tmp_path):
    g = T.GraphBuilder()
    x, y = g.tensor((2, 3), "uint8", (0.05, 128)), g.tensor((3, 2), "uint8", (0.05, 128))
    a = g.tensor((1,), "int32", data=np.array([0], np.int32))
    g.op("REVERSE_V2", [x, a], [y])
    reverse_shape = g.build([x], [y])
    g = T.GraphBuilder()
    x, y = g.tensor((2, 3), "uint8", (0.05, 128)), g.tensor((2, 3), "int8", (0.05, 0))
    a = g.tensor((1,), "int32", data=np.array([0], np.int32))
    g.op("REVERSE_V2", [x, a], [y])
    reverse_type = g.build([x], [y])
    cases = [
        (T.requantize("float32", "uint8", xq=None),
         r"op 0 \(QUANTIZE\): QUANTIZE float32 -> uint8 is not supported \(float32 -> int8 and float32 -> int16"),
        (T.requantize("uint8", "int16", yq=(0.001, 0)),
         r"op 0 \(QUANTIZE\): QUANTIZE uint8 -> int16 is not supported under reference '(litert|tflm)'"),
        (T.requantize("uint8", "uint8", yq=(0.05, 7)),
         r"op 0 \(QUANTIZE\): QUANTIZE uint8 -> uint8 is not supported under reference"),
        (T.requantize("int16", "uint8", xq=(0.001, 0)),
         r"op 0 \(QUANTIZE\): QUANTIZE int16 -> uint8 is not supported under reference"),
        (T.requantize("uint8", "int8", xq=(0.05, 300)),
         r"op 0 \(QUANTIZE\): input tensor 0 \('t0'\) has zero point 300 outside \[0, 255\]"),
        (T.requantize("int8", "uint8", yq=(0.05, -1)),
         r"op 0 \(QUANTIZE\): output tensor 1 \('t1'\) has zero point -1 outside \[0, 255\]"),
        (T.requantize("uint8", "float32", xq=(0.05, 256)),
         r"op 0 \(DEQUANTIZE\): input tensor 0 \('t0'\) has zero point 256 outside \[0, 255\]"),
        (T._u8(T.broadcast_to, shape=(2, 3), new=(2, 4)),
         r"op 0 \(BROADCAST_TO\): input shape \(2, 3\) does not broadcast to \[2, 4\]"),
        (reverse_shape, r"op 0 \(REVERSE_V2\): output tensor 1 has shape \(3, 2\), the op computes \(2, 3\)"),
        (reverse_type, r"op 0 \(REVERSE_V2\): output tensor 1 is int8, the input uint8; TFLite requires one type"),
    ]
    for k, (content, pattern) in enumerate(cases):
        (tmp_path / str(k)).mkdir()
        _refused(content, tmp_path / str(k), pattern)


@needs_tflm
def test_tflm_rules_name_the_uint8_pairs_its_quantize_lacks(tmp_path):
    """ap.tflm: QUANTIZE with a uint8 side runs int8 <-> uint8 only (the package refuses the
    others in Prepare), named with the op; the uint8 pairs it has are exact (tests/test_tflm_ops.py's
    uint8_ops family)."""
    models = (T.requantize("uint8", "int16", yq=(0.001, 0)), T.requantize("float32", "uint8", xq=None))
    for k, content in enumerate(models):
        assert not T.trial(content, 1 << 16)["ok"]
        with pytest.raises(UnsupportedModel, match=r"op 0 \(QUANTIZE\): .*QUANTIZE takes uint8 only from or to int8|"
                                                   r"op 0 \(QUANTIZE\): .*does not support"):
            ap.tflm.arena(load(content, tmp_path, f"q{k}"), pointer_bytes=8)


def test_bad_params_are_refused_by_the_kernels():
    from arenaplan.ops.lowering import DTYPE_CODES, TYPES_CODES
    code = {(r["name"], r["types"]): r["code"] for r in _core.ops()}
    u8, s8 = TYPES_CODES["u8"], TYPES_CODES["s8"]
    deq = {"count": 4, "scale": 0.5, "zero_point": 256}
    with pytest.raises(ValueError, match=r"zero_point 256 outside \[0, 255\]"):
        _core.kernel_variants(code[("DEQUANTIZE", "u8")], deq, 0, u8)
    with pytest.raises(ValueError, match=r"zero_point -1 outside \[0, 255\]"):
        _core.kernel_variants(code[("DEQUANTIZE", "u8")], {**deq, "zero_point": -1}, 0, u8)
    rq = {"count": 4, "input_zero_point": 0, "output_zero_point": 0, "multiplier": 1 << 30, "shift": 1,
          "input_type": DTYPE_CODES["uint8"], "output_type": DTYPE_CODES["int8"]}
    assert _core.kernel_variants(code[("REQUANTIZE", "u8")], rq, 0, u8)
    with pytest.raises(ValueError, match="input_type 6 on the int8 row"):
        _core.kernel_variants(code[("REQUANTIZE", "s8")], rq, 0, s8)
    with pytest.raises(ValueError, match="input_type 0 on the uint8 row"):
        _core.kernel_variants(code[("REQUANTIZE", "u8")], {**rq, "input_type": 0}, 0, u8)
    for bad, pattern in (({"output_type": DTYPE_CODES["int16"]}, r"uint8 \(type 6\) -> int16 \(type 1\) is not "
                                                                  "supported"),
                         ({"output_type": DTYPE_CODES["uint8"]}, r"uint8 \(type 6\) -> uint8 \(type 6\) is not"),
                         ({"input_zero_point": 256}, r"zero points \(256, 0\) outside the uint8 and int8 ranges"),
                         ({"output_type": 7}, r"'output_type' = 7 is outside ap_dtype \[0, 6\]")):
        with pytest.raises(ValueError, match=pattern):
            _core.kernel_variants(code[("REQUANTIZE", "u8")], {**rq, **bad}, 0, u8)
    with pytest.raises(ValueError, match=r"int8 \(type 0\) -> uint8 \(type 6\) is|zero points \(0, -1\) outside "
                                         r"the int8 and uint8 ranges"):
        _core.kernel_variants(code[("REQUANTIZE", "s8")], {**rq, "input_type": 0, "output_type": 6,
                                                             "output_zero_point": -1}, 0, s8)


# --- the C export on a Cortex-M4 -------------------------------------------------------------
def test_rows_on_the_cortex_m4(tmp_path):
    """The every-op Cortex-M4 cases of the uint8 rows and of the int8 REQUANTIZE row (whose
    probes now include int8 -> uint8) (tests/test_every_op_on_cortex_m.py: each probe, each rule,
    both input kinds, exported and run under QEMU) equal the host bit for bit."""
    from harness.firmware import build as fw
    missing = fw.missing_arm_tools()
    if missing:
        pytest.skip(f"Cortex-M toolchain not installed ({', '.join(missing)})")
    from test_every_op_on_cortex_m import CPU, cases, pack
    mine = {(r["name"], r["types"]) for r in _core.ops() if r["types"] == "u8"} | {("REQUANTIZE", "s8")}
    found = cases(tmp_path, only=mine)
    assert {c.row for c in found} == mine
    cpu = fw.ARM_CPUS[CPU]
    runtime = fw.cached_runtime(fw.ARM_CC, fw.arm_flags(cpu), cpu.name)
    wrong = []
    exports = [c.export for c in found]
    for i, members in enumerate(pack(exports, cpu.board)):
        image = fw.build_arm_batch([exports[k] for k in members], cpu, runtime, tmp_path / f"image{i}",
                                   inputs=[found[k].inputs for k in members])
        raws, _ = fw.run_batch(image, len(members))
        for k, raw in zip(members, raws):
            got = fw.split_outputs(raw, [(w.dtype, w.shape) for w in found[k].want])
            for g, w in zip(got, found[k].want):
                if not np.array_equal(g.view(np.uint8), w.view(np.uint8)):
                    wrong.append(f"{found[k].label}: {int((g != w).sum())} of {w.size} outputs differ")
    assert not wrong, wrong
