"""The int16 comparisons (compare.c, AP_TYPES_S16X8 rows), LiteRT's kernels: under "litert"
EQUAL and NOT_EQUAL rescale both inputs as the int8 rows do (LiteRT 2.3 sends int16 through its
int8 rescaling: the offset minus the zero point, a left shift of 8, each scale's multiplier),
GREATER, GREATER_EQUAL, LESS and LESS_EQUAL compare the stored values (scales and zero points
unread). TensorFlow Lite Micro runs none of them well (its int16 GREATER reads params its
Prepare sets for int8 only; its other comparisons take no int16), so under "tflm" each is
refused naming why. One-op .tflite models: every host ISA's direct variant in a verified plan
equals LiteRT BUILTIN_REF over int16's whole range, inputs quantised unlike each other (where
the stored and the rescaled orders differ), zero points at the ends, broadcasting; hypothesis;
the poisoned arena; the kernel's own checks."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from test_comparisons import CASES, check
from unary_s8 import load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
COMPARISONS = ["EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL"]
RESCALED = ("EQUAL", "NOT_EQUAL")


def model16(op, a_shape, b_shape, qs=((0.001, 0), (0.002, 0)), y_shape=None, quantised=True) -> bytes:
    y_shape = y_shape or tuple(np.broadcast_shapes(a_shape, b_shape))
    q = [dict(scale=s, zero_point=z) if quantised else {} for s, z in qs]
    tensors = [dict(shape=a_shape, dtype="int16", **q[0]), dict(shape=b_shape, dtype="int16", **q[1]),
               dict(shape=y_shape, dtype="bool")]
    return L.single_op_model(op, tensors, [0, 1], [2], None, None, version=1)


def feeds(a_shape, b_shape, seed, qs=((0.001, 0), (0.002, 0))):
    """Random int16 values with the ends, b partly a's values rescaled to b's scale (so that the
    rescaled values meet and the stored ones do not), every value class against the ends."""
    rng = np.random.default_rng(seed)
    na, nb = int(np.prod(a_shape)), int(np.prod(b_shape))
    out = []
    for _ in range(3):
        a = rng.integers(-32768, 32768, na)
        a[:min(na, 4)] = [-32768, 32767, 0, -1][:min(na, 4)]
        b = rng.integers(-32768, 32768, nb)
        k = min(na, nb)
        (s1, z1), (s2, z2) = qs
        b[:k // 2] = np.clip(np.round((a[:k // 2] - z1) * s1 / s2) + z2, -32768, 32767)
        out.append([a.astype(np.int16).reshape(a_shape), b.astype(np.int16).reshape(b_shape)])
    out.append([np.full(a_shape, -32768, np.int16), np.resize(np.arange(-32768, 32768, 257, dtype=np.int16),
                                                               nb).reshape(b_shape)])
    out.append([np.resize(np.arange(32767, -32769, -263, dtype=np.int16), na).reshape(a_shape),
                np.full(b_shape, 32767, np.int16)])
    return out


@needs_litert
@pytest.mark.parametrize("op", COMPARISONS)
@pytest.mark.parametrize("case", [0, 1, 2, 3, 6])
def test_matches_litert(op, case, tmp_path):
    a, b = CASES[case]
    check(model16(op, a, b), tmp_path, op, feeds(a, b, case), tflm=False)


@needs_litert
@pytest.mark.parametrize("op", COMPARISONS)
@pytest.mark.parametrize("qs", [((0.001, 0), (0.002, 0)), ((0.5, -32768), (0.003, 32767)), ((0.02, 0), (0.02, 0)),
                                ((0.999, 100), (1e-6, -7)), ((3e-5, 0), (3.1e-5, 0))])
def test_scales_and_zero_points(op, qs, tmp_path):
    """Scales unlike each other (EQUAL / NOT_EQUAL compare the rescaled values, the others the
    stored ones), zero points at int16's ends, scales near 1 and tiny, near each other."""
    a, b = (4, 64), (1, 64)
    check(model16(op, a, b, qs), tmp_path, op, feeds(a, b, 11, qs), tflm=False)


@needs_litert
def test_rescaling_is_what_litert_compares(tmp_path):
    """EQUAL's rescaling is seen: stored values equal but rescaled apart, and stored values apart
    but rescaled equal, on the same model (scales 0.001 and 0.002)."""
    a = np.array([[100, 100, 200, -32768, 32767, 3]], np.int16)
    b = np.array([[100, 50, 100, -16384, 16384, 1]], np.int16)
    content = model16("EQUAL", a.shape, b.shape)
    (want,), _ = L.run_sequence(content, [[a, b]])
    assert want[0].tolist()[0][:3] == [False, True, True]
    check(content, tmp_path, "EQUAL", [[a, b]], tflm=False)
    greater = model16("GREATER", a.shape, b.shape)
    (want,), _ = L.run_sequence(greater, [[a, b]])
    assert want[0].tolist()[0][:3] == [False, True, True]   # the stored values


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    full = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    a = tuple(d if data.draw(st.booleans()) else 1 for d in full)
    b = tuple(d if data.draw(st.booleans()) else 1 for d in full)
    b = b[data.draw(st.integers(0, rank - 1)):]
    op = data.draw(st.sampled_from(COMPARISONS))
    qs = ((data.draw(st.floats(1e-5, 0.9)), data.draw(st.integers(-32768, 32767))),
          (data.draw(st.floats(1e-5, 0.9)), data.draw(st.integers(-32768, 32767))))
    check(model16(op, a, b, qs), tmp_path_factory.mktemp("cmp16"), op, feeds(a, b, sum(full), qs), tflm=False)


def test_rows_and_specs(tmp_path):
    """A 16x8 row per comparison, never in place; EQUAL / NOT_EQUAL carry the rescaling, the
    others zeros."""
    rows = {(r["name"], r["types"]) for r in _core.ops()}
    for op in COMPARISONS:
        assert (op, "s16x8") in rows
        (kernel,) = PlanContext.build(load(model16(op, (3, 4), (4,)), tmp_path, op), isa="portable",
                                      reference="litert").kernels
        assert kernel.variants[0].in_place is False
        assert (kernel.spec["left_shift"] == 8) is (op in RESCALED), op
        if op not in RESCALED:
            assert not any(kernel.spec[k] for k in ("input1_offset", "input1_multiplier", "input2_multiplier"))


def test_unquantised_ordering_ops_run(tmp_path):
    """GREATER and the rest read no quantisation, so an int16 input without it plans; EQUAL
    needs each input's scale."""
    ap.plan(load(model16("LESS", (3, 4), (3, 4), quantised=False), tmp_path, "less"), reference="litert").verify()
    with pytest.raises(UnsupportedModel, match=r"op 0 \(EQUAL\): input1 tensor 0 \('t0'\) has no quantisation"):
        ap.plan(load(model16("EQUAL", (3, 4), (3, 4), quantised=False), tmp_path, "eq"), reference="litert")


@pytest.mark.parametrize("op", COMPARISONS)
def test_refused_under_tflm_naming_why(op, tmp_path):
    model = load(model16(op, (3, 4), (3, 4)), tmp_path)
    with pytest.raises(UnsupportedModel, match=rf"op 0 \({op}\): input 0 is int16; TensorFlow Lite Micro's int16 "
                                               r"GREATER rescales with params its Prepare sets for int8 only.*"
                                               r"plan with reference \"litert\""):
        ap.plan(model, reference="tflm")
    assert ap.plan(model, reference="litert").verify()


def test_refusals_name_the_op(tmp_path):
    cases = [
        (model16("EQUAL", (3, 4), (3, 4), qs=((1.5, 0), (0.1, 0))),
         r"op 0 \(EQUAL\): input1 tensor 0 has scale 1.5; TFLite's int16 EQUAL requires a scale below 1"),
        (model16("NOT_EQUAL", (3, 4), (2, 4), y_shape=(3, 4)),
         r"op 0 \(NOT_EQUAL\): shapes \(3, 4\) and \(2, 4\) do not broadcast"),
    ]
    for k, (content, pattern) in enumerate(cases):
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, f"m{k}"), reference="litert")


def test_kernel_checks_its_params(ffi, lib, tmp_path):
    """Through the C API: the int16 row's offsets reach int16's ([-32767, 32768]), not beyond,
    and a row comparing as stored (left_shift 0) takes no multiplier; the result equals the
    Interpreter's."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
    from ops_harness import Guarded, guarded_from, message, variants
    model = load(model16("EQUAL", (3, 4), (1, 4), qs=((0.01, -32768), (0.02, 32767))), tmp_path)
    (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    assert kernel.spec["input1_offset"] == 32768 and kernel.spec["input2_offset"] == -32767
    xs = feeds((3, 4), (1, 4), 5, ((0.01, -32768), (0.02, 32767)))[0]
    want = ap.Interpreter(ap.plan(model, reference="litert")).run(xs).reshape(-1)

    def run(fn, **changes):
        p = ffi.new("ap_compare_params *")
        for key, value in dict(kernel.spec, **changes).items():
            setattr(p, key, value)
        (v,) = variants(ffi, lib, lib.ap_compare_wide_variants, p)
        a, b = guarded_from(ffi, xs[0].reshape(-1)), guarded_from(ffi, xs[1].reshape(-1))
        out = Guarded(ffi, want.size, fill=0x5A)
        call = ffi.new("ap_op_call *")
        ins = ffi.new("void *[]", [a.ptr, b.ptr])
        call.params, call.variant, call.inputs, call.input_count, call.output = p, v, ins, 2, out.ptr
        err = ffi.new("ap_error *")
        st = fn(call, lib.AP_ISA_PORTABLE, err)
        assert a.intact() and b.intact() and out.intact()
        return st, message(ffi, err), out

    st, msg, out = run(lib.ap_equal_s16_run)
    assert st == lib.AP_OK, msg
    np.testing.assert_array_equal(out.view(np.uint8), want.view(np.uint8))
    st, msg, _ = run(lib.ap_equal_s16_run, input1_offset=32769)
    assert st == lib.AP_ERR_INVALID_ARGUMENT and "offsets 32769, -32767 ([-32767, 32768])" in msg
    st, msg, _ = run(lib.ap_greater_s16_run, left_shift=0)
    assert st == lib.AP_ERR_INVALID_ARGUMENT and "the rescaling fields must be 0" in msg
