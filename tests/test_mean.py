"""int16 MEAN over H and W (the 16x8 row; the int8 row is held to LiteRT by test_layers and
tests/c/test_shape_ops.py): one-op .tflite models built with the flatbuffer schema (keep_dims
true and false, negative axes, more channels than one chunk, one element a channel, outputs
that saturate at both ends of int16), both variants on every instruction set this host runs
inside a verified plan, bit-exact with LiteRT's reference kernels (BUILTIN_REF) under
reference "litert" and with the tflite-micro interpreter under "tflm" (which also takes int16
zero points LiteRT refuses); hypothesis over shapes and scales; row_sums' scratch exactly and
one byte short through the C API; refusals naming the op."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import UnsupportedModel
from arenaplan.ops.lowering import TYPES_CODES
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from test_strided_slice import tflm_outputs
from unary_s8 import host_isas, load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
I16 = np.iinfo(np.int16)


def mean_model(shape, xs, ys, keep=True, axes=(1, 2), xz=0, yz=0) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = S.ReducerOptionsT()
    o.keepDims = keep
    n, _, _, c = shape
    tensors = [dict(shape=shape, dtype="int16", scale=xs, zero_point=xz),
               dict(shape=(len(axes),), dtype="int32", data=np.array(axes, np.int32)),
               dict(shape=(n, 1, 1, c) if keep else (n, c), dtype="int16", scale=ys, zero_point=yz)]
    return L.single_op_model("MEAN", tensors, [0, 1], [2], "ReducerOptions", o, version=3)


def int16_inputs(shape, seed):
    rng = np.random.default_rng(seed)
    xs = [rng.integers(I16.min, I16.max + 1, size=shape).astype(np.int16) for _ in range(2)]
    xs.append(rng.integers(-40, 40, size=shape).astype(np.int16))   # small sums: the rounding
    return xs + [np.full(shape, I16.min, np.int16), np.full(shape, I16.max, np.int16)]


def check(content, tmp_path, shape, seed=0, references=("litert", "tflm")):
    model = load(content, tmp_path)
    xs = int16_inputs(shape, seed)
    wants = {}
    for reference in references:
        wants[reference] = tflm_outputs(content, xs) if reference == "tflm" else \
            L.run_sequence(content, [[x] for x in xs])[0]
        for isa in host_isas():
            ctx = PlanContext.build(model, isa=isa, reference=reference)
            (k,) = ctx.kernels
            assert k.types == TYPES_CODES["s16x8"]
            assert [v.name for v in k.variants] == ["direct", "row_sums"]
            assert k.variant("row_sums").scratch == ((shape[3] * 4, 16),)
            for v in k.variants:
                p = ctx.make([v], "size")
                assert p.verify()
                it = ap.Interpreter(p)
                for x, want in zip(xs, wants[reference]):
                    got = it.run(x)
                    assert got.dtype == np.int16
                    np.testing.assert_array_equal(got, want[0].reshape(got.shape),
                                                  err_msg=f"{v.name} on {isa} ({reference})")
    return wants


CASES = [  # (shape, input scale, output scale, keep_dims, axes)
    ((1, 4, 4, 3), 1e-3, 1e-3, True, (1, 2)),
    ((2, 5, 7, 4), 1e-3, 3e-4, False, (1, 2)),       # the output range magnifies: saturates at both ends
    ((1, 8, 8, 70), 2e-3, 1e-3, True, (2, 1)),      # two channel chunks; the axes in another order
    ((1, 3, 3, 5), 1e-4, 1e-3, False, (-3, -2)),    # negative axes
    ((3, 1, 1, 2), 1e-3, 2e-3, True, (1, 2)),        # one element a channel
    ((1, 16, 10, 1), 5e-4, 5e-4, True, (1, 2)),
]


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
def test_mean_16x8_matches_litert_and_tflm(case, tmp_path):
    shape, xs, ys, keep, axes = CASES[case]
    wants = check(mean_model(shape, xs, ys, keep, axes), tmp_path, shape, seed=case)
    if case == 1:
        values = set(np.concatenate([w[0].ravel() for w in wants["litert"]]).tolist())
        assert {I16.min, I16.max} <= values


@pytest.mark.parametrize("xz, yz", [(100, -7), (-32768, 32767)])
def test_mean_16x8_zero_points_under_tflm(xz, yz, tmp_path):
    """TensorFlow Lite Micro's int16 MEAN takes zero points (subtracted from the sum, added to the
    result); equal to its interpreter under "tflm", refused under "litert" as LiteRT refuses them."""
    content = mean_model((1, 4, 6, 3), 1e-3, 2e-3, True, (1, 2), xz, yz)
    check(content, tmp_path, (1, 4, 6, 3), references=("tflm",))
    with pytest.raises(UnsupportedModel, match=r"op 0 \(MEAN\): input tensor 0 .* is int16 with zero point"):
        PlanContext.build(load(content, tmp_path, "l"), isa="portable", reference="litert")


@needs_litert
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_mean_16x8_hypothesis(data, tmp_path_factory):
    shape = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 9)), data.draw(st.integers(1, 9)),
             data.draw(st.integers(1, 9)))
    xs, ys = data.draw(st.floats(1e-4, 1e-2)), data.draw(st.floats(1e-4, 1e-2))
    check(mean_model(shape, xs, ys, data.draw(st.booleans())), tmp_path_factory.mktemp("mean"), shape,
          seed=sum(shape))


def test_bad_mean_16x8_is_refused(tmp_path):
    model = load(mean_model((1, 4, 4, 3), 1e-3, 1e-3, True, (3,)), tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(MEAN\): MEAN over axes \[3\]"):
        ap.plan(model)


def test_mean_16x8_scratch_through_the_c_api(ffi, lib, tmp_path):
    """Both variants give the Interpreter's outputs between guard bytes; row_sums with exactly its
    scratch, and with one byte too few AP_ERR_SCRATCH_TOO_SMALL naming both sizes, writing
    nothing; a window of 2^16 elements a channel (an int32 sum TFLite's kernel overflows) and a
    zero point beyond int16 refused."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
    from ops_harness import Guarded, guarded_from, message, scratch_for, variants
    shape = (2, 5, 7, 9)
    model = load(mean_model(shape, 1e-3, 3e-4, True), tmp_path)
    (k,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    p = ffi.new("ap_mean_params *")
    for key, value in k.spec.items():
        setattr(p, key, value)
    x = int16_inputs(shape, 9)[0]
    want = ap.Interpreter(ap.plan(model, mode="size")).run(x).reshape(-1)
    listed = variants(ffi, lib, lib.ap_mean_s16_variants, p)
    assert [ffi.string(v.name).decode() for v in listed] == ["direct", "row_sums"]
    for v in listed:
        for short in ([None, 0] if v.scratch_count else [None]):
            inp = guarded_from(ffi, x.reshape(-1).view(np.int8))
            out = Guarded(ffi, 2 * want.size, fill=0x5A)
            before = out.payload.copy()
            scr, bufs = scratch_for(ffi, v, short)
            call = ffi.new("ap_op_call *")
            ins = ffi.new("void *[]", [inp.ptr])
            call.params, call.variant, call.inputs, call.input_count = p, v, ins, 1
            call.output, call.scratch, call.scratch_count = out.ptr, scr, v.scratch_count
            err = ffi.new("ap_error *")
            status = lib.ap_mean_s16_run(call, lib.AP_ISA_PORTABLE, err)
            assert inp.intact() and out.intact() and all(b.intact() for b in bufs)
            if short is None:
                assert status == lib.AP_OK, message(ffi, err)
                np.testing.assert_array_equal(out.view(np.int8).view(np.int16), want)
            else:
                assert status == lib.AP_ERR_SCRATCH_TOO_SMALL
                assert (err.needed, err.available) == (36, 35), message(ffi, err)
                np.testing.assert_array_equal(out.payload, before)
    err = ffi.new("ap_error *")
    n = ffi.new("uint32_t *")
    p.input_h, p.input_w = 256, 256
    assert lib.ap_mean_s16_variants(p, lib.AP_ISA_PORTABLE, ffi.NULL, 0, n, err) == lib.AP_ERR_UNSUPPORTED
    assert "exceed 65535 (int32 sum)" in message(ffi, err)
    p.input_h, p.input_w, p.input_zero_point = 5, 7, 40000
    assert lib.ap_mean_s16_variants(p, lib.AP_ISA_PORTABLE, ffi.NULL, 0, n, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert "outside [-32768, 32767]" in message(ffi, err)
