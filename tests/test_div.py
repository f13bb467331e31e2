"""DIV on float32 (the float32 binary row's loop), int8 (div_s8.c, TFLite's reference
DivElementwise) and int32 (binary_s32.c, C's truncating division): one-op .tflite models built with the flatbuffer schema (4-D broadcasting both
ways, scalars, the fused activations; float32 +-0, +-inf, NaN and division by zero, which TFLite
turns into +-FLT_MAX by the activation's clamp; int8 scales over three decades, zero points at the
ends, every numerator and divisor value, numerators at their zero point, whose final shift of 32 or
more TFLite leaves undefined; int32 extremes and every sign), bit-exact with LiteRT's reference kernels (BUILTIN_REF) and TensorFlow
Lite Micro's interpreter; hypothesis over shapes, scales and activations; the poisoned arena; an
int8 divisor at its zero point a run error (an activation) or a refusal (a constant); refusals
naming the op."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import ArenaplanError, UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from poisoned_arena import poisoned_run
from test_comparisons import tflm_run
from test_float32 import assert_bits
from unary_s8 import host_isas, load

S = pytest.importorskip("ai_edge_litert.schema_py_generated")
_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
ACTS = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3}


def div_model(dtype, a_shape, b_shape, qs=None, act="NONE", y_shape=None, b_data=None, b_dtype=None) -> bytes:
    """A one-op DIV; ``qs``: (scale, zero point) of input1, input2 and the output (int8)."""
    o = S.DivOptionsT()
    o.fusedActivationFunction = ACTS[act]
    if y_shape is None:
        y_shape = tuple(np.broadcast_shapes(a_shape, b_shape))
    q = [dict(scale=s, zero_point=z) for s, z in qs] if qs else [{}, {}, {}]
    tensors = [dict(shape=a_shape, dtype=dtype, **q[0]), dict(shape=b_shape, dtype=b_dtype or dtype, data=b_data, **q[1]),
               dict(shape=y_shape, dtype=dtype, **q[2])]
    return L.single_op_model("DIV", tensors, [0, 1], [2], "DivOptions", o, version=1)


def float_feeds(a_shape, b_shape, seed) -> list:
    """Normal values with the edges among them: divisors +-0 (x / 0 is +-inf, clamped), +-inf,
    NaN, subnormals; 0 / 0 and inf / inf (NaN)."""
    rng = np.random.default_rng(seed)
    edges = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 3e38, 1e-30, 7.0], np.float32)
    out = []
    for _ in range(3):
        pair = []
        for shape in (a_shape, b_shape):
            v = (rng.standard_normal(int(np.prod(shape))) * 4).astype(np.float32)
            k = min(v.size, edges.size)
            v[rng.permutation(v.size)[:k]] = edges[rng.permutation(edges.size)[:k]]
            pair.append(v.reshape(shape))
        out.append(pair)
    return out


def int8_feeds(a_shape, b_shape, z1, z2, seed) -> list:
    """Random numerators with -128, 127 and the zero point among them; random divisors but the
    divisor's zero point (TFLite fails a division by zero); every value against every value
    where the shapes allow."""
    rng = np.random.default_rng(seed)
    others = np.array([v for v in range(-128, 128) if v != z2], np.int8)
    out = []
    for _ in range(3):
        a = rng.integers(-128, 128, size=a_shape).astype(np.int8)
        a.reshape(-1)[:3] = np.array([-128, 127, z1], np.int8)[:a.size]
        b = rng.choice(others, size=b_shape).astype(np.int8)
        out.append([a, b])
    out.append([np.resize(np.arange(-128, 128, dtype=np.int8), a_shape), np.resize(others[::-1], b_shape)])
    out.append([np.full(a_shape, z1, np.int8), np.resize(others, b_shape)])
    return out


def int32_feeds(a_shape, b_shape, seed) -> list:
    """Random dividends with the int32 extremes but INT32_MIN (INT32_MIN / -1 traps in TFLite's
    kernels), divisors of every sign but 0."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(3):
        a = rng.integers(-1000, 1001, size=int(np.prod(a_shape))).astype(np.int64)
        a[:min(a.size, 4)] = [2 ** 31 - 1, -2 ** 31 + 1, 7, -7][:min(a.size, 4)]
        b = rng.integers(-9, 10, size=int(np.prod(b_shape))).astype(np.int64)
        b[b == 0] = 3
        b[:min(b.size, 3)] = [-1, 2 ** 31 - 1, -2][:min(b.size, 3)]
        out.append([a.astype(np.int32).reshape(a_shape), b.astype(np.int32)[rng.permutation(b.size)].reshape(b_shape)])
    return out


def check(content, tmp_path, feeds, dtype, tflm=True) -> ap.Model:
    """Every host ISA's verified plan equals LiteRT bit for bit (and TensorFlow Lite Micro equals
    LiteRT); the poisoned arena on the first feed."""
    model = load(content, tmp_path)
    wants = [w[0] for w in L.run_sequence(content, feeds)[0]]
    same = assert_bits if dtype == "float32" else (lambda g, w, what: np.testing.assert_array_equal(g, w, what))
    if tflm:
        for micro, want in zip(tflm_run(content, feeds), wants):
            same(micro, want, "TensorFlow Lite Micro against LiteRT")
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa)
        (kernel,) = ctx.kernels
        assert [v.name for v in kernel.variants] == ["direct"] and kernel.variants[0].scratch == ()
        p = ctx.make([kernel.variants[0]], "size")
        assert p.verify() and p.isa == isa
        it = ap.Interpreter(p)
        for x, want in zip(feeds, wants):
            got = it.run(x)
            assert got.dtype == want.dtype and got.shape == want.shape
            same(got, want, f"DIV {dtype} on {isa}")
    poisoned_run(model, feeds[0])
    return model


#: (input1 shape, input2 shape)
CASES = [((2, 3, 4), (2, 3, 4)), ((3, 1, 8), (1, 5, 1)), ((17,), (1,)), ((1,), (3, 4)), ((2, 3, 4, 5), (2, 1, 4, 1)),
         ((1, 1, 1, 1), (1, 1, 1, 1))]
#: int8 quantisations: (input1, input2, output) (scale, zero point), the zero points at the ends too
QUANTS = [((0.05, 3), (0.1, -7), (0.2, 0)), ((0.02, -128), (0.004, 127), (0.5, -128)),
          ((0.0015, 127), (0.3, -128), (0.01, 127)), ((0.3, 0), (0.002, 5), (1.5, -20)),
          ((0.01, -1), (0.01, 1), (0.001, 0))]
#: The quantisations of QUANTS whose int8 DIV TensorFlow Lite Micro's interpreter computes otherwise
#: than LiteRT (their real multipliers, 0.5 and 100.0, are exact in float32).
TFLM_DIFFERS = (2, 3)


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("act", list(ACTS))
def test_float32_matches_litert_and_tflm(case, act, tmp_path):
    a, b = CASES[case]
    model = check(div_model("float32", a, b, act=act), tmp_path, float_feeds(a, b, case), "float32")
    assert model.operators[0].type == "DIV"


@needs_litert
def test_float32_division_by_zero_is_clamped(tmp_path):
    """x / +-0 is +-inf, which TFLite's activation range (the finite floats with none) clamps to
    +-FLT_MAX; 0 / 0 is NaN; RELU6 clamps inf to 6."""
    a = np.array([1.0, -1.0, 0.0, -2.0, np.inf], np.float32)
    b = np.array([0.0, 0.0, 0.0, -0.0, 0.0], np.float32)
    for act, want in (("NONE", [3.4028235e38, -3.4028235e38, np.nan, 3.4028235e38, 3.4028235e38]),
                      ("RELU6", [6.0, 0.0, np.nan, 6.0, 6.0])):
        content = div_model("float32", (5,), (5,), act=act)
        got = ap.Interpreter(ap.plan(load(content, tmp_path, act))).run([a, b])
        assert_bits(got, np.array(want, np.float32), act)
        assert_bits(got, L.run_single_op(content, [a, b]), f"{act} against LiteRT")


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("quant", range(len(QUANTS)))
def test_int8_matches_litert_and_tflm(case, quant, tmp_path):
    a, b = CASES[case]
    qs = QUANTS[quant]
    act = list(ACTS)[(case + quant) % 4]
    check(div_model("int8", a, b, qs, act), tmp_path, int8_feeds(a, b, qs[0][1], qs[1][1], case), "int8",
          tflm=quant not in TFLM_DIFFERS)


@needs_litert
def test_tflm_differs_from_litert_where_the_multiplier_is_exact(tmp_path):
    """TensorFlow Lite Micro's interpreter (the tflite-micro package) gives LiteRT's int8 DIV for
    the quantisations of QUANTS but those of TFLM_DIFFERS, whose real multipliers (0.5, 100.0)
    are exact in float32: there it differs on some of the 65,280 numerator / divisor pairs (11,184
    and 169 measured). arenaplan follows LiteRT under either rounding rule."""
    for quant in range(len(QUANTS)):
        qs = QUANTS[quant]
        content = div_model("int8", (256, 1), (1, 255), qs)
        a = np.arange(-128, 128, dtype=np.int8).reshape(256, 1)
        b = np.array([v for v in range(-128, 128) if v != qs[1][1]], np.int8).reshape(1, 255)
        want = L.run_sequence(content, [[a, b]])[0][0][0]
        differ = int((tflm_run(content, [[a, b]])[0] != want).sum())
        assert (differ > 0) == (quant in TFLM_DIFFERS), (quant, differ)
        for reference in ("litert", "tflm"):
            got = ap.Interpreter(ap.plan(load(content, tmp_path, f"q{quant}"), reference=reference)).run([a, b])
            np.testing.assert_array_equal(got, want, f"quantisation {quant} under {reference}")


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("act", list(ACTS))
def test_int32_matches_litert_and_tflm(case, act, tmp_path):
    a, b = CASES[case]
    check(div_model("int32", a, b, act=act), tmp_path, int32_feeds(a, b, case), "int32")


def test_int32_division_by_zero_and_the_trap(tmp_path):
    """A zero divisor fails the run (LiteRT's CheckNonZero), a constant one is refused;
    INT32_MIN / -1, which traps in TFLite's kernel (a SIGFPE on x86), wraps to INT32_MIN."""
    it = ap.Interpreter(ap.plan(load(div_model("int32", (2, 3), (3,)), tmp_path)))
    x = np.array([[-2 ** 31, 5, 9], [7, -8, 10]], np.int32)
    with pytest.raises(ArenaplanError, match=r"div: division by zero \(element 2 of the divisor\)"):
        it.run([x, np.array([1, 2, 0], np.int32)])
    np.testing.assert_array_equal(it.run([x, np.array([-1, 2, -4], np.int32)]), [[-2 ** 31, 2, -2], [-7, -4, -2]])
    const = div_model("int32", (2, 3), (3,), b_data=np.array([1, 0, 2], np.int32))
    with pytest.raises(UnsupportedModel, match=r"op 0 \(DIV\): the constant divisor \(tensor 1\) holds 0"):
        ap.plan(load(const, tmp_path, "c"))


@needs_litert
def test_int8_every_pair(tmp_path):
    """Every numerator against every divisor (but the divisor's zero point), for scales whose
    final shift passes 31 (the quotient of a small numerator by a large divisor): LiteRT's x86
    result, a numerator at its zero point giving the output zero point + 1 there."""
    qs = ((0.015497287, 127), (0.0040411437, -128), (0.651201427, -128))
    content = div_model("int8", (256, 1), (1, 255), qs)
    a = np.arange(-128, 128, dtype=np.int8).reshape(256, 1)
    b = np.arange(-127, 128, dtype=np.int8).reshape(1, 255)
    model = check(content, tmp_path, [[a, b]], "int8")
    got = ap.Interpreter(ap.plan(model)).run([a, b])
    assert (got[255, 16:] == -127).all()   # numerator at its zero point (127): zero point + 1


@needs_litert
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    full = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    a = tuple(d if data.draw(st.booleans()) else 1 for d in full)
    b = tuple(d if data.draw(st.booleans()) else 1 for d in full)[data.draw(st.integers(0, rank - 1)):]
    act = data.draw(st.sampled_from(list(ACTS)))
    tmp = tmp_path_factory.mktemp("div")
    dtype = data.draw(st.sampled_from(["float32", "int8", "int32"]))
    if dtype == "int32":
        check(div_model("int32", a, b, act=act), tmp, int32_feeds(a, b, sum(full)), "int32", tflm=False)
        return
    if dtype == "float32":
        check(div_model("float32", a, b, act=act), tmp, float_feeds(a, b, sum(full)), "float32", tflm=False)
        return
    scales = [float(np.float32(10 ** data.draw(st.floats(-3, 0)))) for _ in range(3)]
    zps = [data.draw(st.integers(-128, 127)) for _ in range(3)]
    qs = tuple(zip(scales, zps))
    check(div_model("int8", a, b, qs, act), tmp, int8_feeds(a, b, zps[0], zps[1], sum(full)), "int8", tflm=False)


def test_int8_division_by_zero(tmp_path):
    """A divisor at its zero point fails the run, as LiteRT's CheckNonZero fails it, before any
    output is written; a constant one is refused when the plan is made."""
    qs = ((0.05, 0), (0.1, -7), (0.2, 0))
    it = ap.Interpreter(ap.plan(load(div_model("int8", (2, 3), (3,), qs), tmp_path)))
    x = np.arange(6, dtype=np.int8).reshape(2, 3)
    with pytest.raises(ArenaplanError, match=r"div: division by zero \(element 1 of the divisor equals its zero "
                                             r"point -7\)"):
        it.run([x, np.array([1, -7, 2], np.int8)])
    const = div_model("int8", (2, 3), (3,), qs, b_data=np.array([1, -7, 2], np.int8))
    with pytest.raises(UnsupportedModel, match=r"op 0 \(DIV\): the constant divisor \(tensor 1\) holds its zero "
                                               r"point -7: a division by zero"):
        ap.plan(load(const, tmp_path, "c"))


def test_refusals_name_the_op(tmp_path):
    qs = ((0.05, 0), (0.1, 0), (0.2, 0))
    cases = [
        (div_model("float32", (3,), (3,), b_dtype="int32"),
         r"op 0 \(DIV\): the float32 DIV takes float32 operands only"),
        (div_model("float32", (3, 4), (2, 4), y_shape=(3, 4)), r"op 0 \(DIV\): shapes \(3, 4\) and \(2, 4\) do not "
                                                                r"broadcast"),
        (div_model("int8", (3,), (3,), ((1.0, 0), (1e-4, 0), (1e-4, 0))),
         r"op 0 \(DIV\): input1_scale / \(input2_scale \* output_scale\) = .* is too large"),
        (div_model("int16", (3,), (3,), qs), r"op 0 \(DIV\): input 0 \(tensor 0\) is int16; arenaplan's DIV takes "
                                            r"int8, float32, int32"),
    ]
    for k, (content, pattern) in enumerate(cases):
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, f"m{k}"))
