"""int16 AVERAGE_POOL_2D and MAX_POOL_2D (the 16x8 rows; the int8 rows are held to LiteRT by
test_layers and tests/c/test_pooling.py): one-op .tflite models built with the flatbuffer
schema (SAME and VALID padding, strides, windows clipped at the edges, 1x1 and whole-image
windows, fused RELU / RELU6 / RELU_N1_TO_1, non-zero zero points), the direct variant on every
instruction set this host runs inside a verified plan, bit-exact with LiteRT's reference
kernels (BUILTIN_REF) and the tflite-micro interpreter over random int16 inputs and both ends
of int16; hypothesis over shapes and windows; the C API between guard bytes; input and output
quantised differently refused naming the op."""
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


def pool_model(op, x_shape, k, stride, padding="VALID", act=0, scale=1e-3, zp=0, out_q=None) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = S.Pool2DOptionsT()
    o.padding = getattr(S.Padding, padding)
    o.strideH, o.strideW = stride
    o.filterHeight, o.filterWidth = k
    o.fusedActivationFunction = act
    n, h, w, c = x_shape
    if padding == "SAME":
        oh, ow = -(-h // stride[0]), -(-w // stride[1])
    else:
        oh, ow = (h - k[0]) // stride[0] + 1, (w - k[1]) // stride[1] + 1
    ys, yz = out_q or (scale, zp)
    tensors = [dict(shape=x_shape, dtype="int16", scale=scale, zero_point=zp),
               dict(shape=(n, oh, ow, c), dtype="int16", scale=ys, zero_point=yz)]
    return L.single_op_model(op, tensors, [0], [1], "Pool2DOptions", o, version=3)


def int16_inputs(shape, seed):
    rng = np.random.default_rng(seed)
    xs = [rng.integers(I16.min, I16.max + 1, size=shape).astype(np.int16) for _ in range(2)]
    xs.append(rng.integers(-300, 300, size=shape).astype(np.int16))   # small: the rounding of the mean
    return xs + [np.full(shape, I16.min, np.int16), np.full(shape, I16.max, np.int16)]


def check(content, tmp_path, shape, seed=0):
    model = load(content, tmp_path)
    xs = int16_inputs(shape, seed)
    wants = L.run_sequence(content, [[x] for x in xs])[0]
    for w, m in zip(wants, tflm_outputs(content, xs)):
        np.testing.assert_array_equal(m[0], w[0], err_msg="LiteRT and TFLite Micro")
    for isa in host_isas():
        for reference in ("litert", "tflm"):
            ctx = PlanContext.build(model, isa=isa, reference=reference)
            (k,) = ctx.kernels
            assert k.types == TYPES_CODES["s16x8"]
            assert [(v.name, v.scratch, v.in_place) for v in k.variants] == [("direct", (), False)]
            p = ctx.make(k.variants, "size")
            assert p.verify()
            it = ap.Interpreter(p)
            for x, want in zip(xs, wants):
                got = it.run(x)
                assert got.dtype == np.int16
                np.testing.assert_array_equal(got, want[0], err_msg=f"{isa} ({reference})")
    return wants


CASES = [  # (input shape, window, stride, padding, fused activation, zero point)
    ((1, 8, 8, 3), (2, 2), (2, 2), "VALID", 0, 0),
    ((2, 7, 9, 5), (3, 3), (2, 2), "SAME", 0, 0),       # edge windows clipped
    ((1, 6, 5, 70), (3, 2), (1, 2), "SAME", 1, 0),      # RELU; more channels than one chunk
    ((1, 5, 5, 2), (5, 5), (1, 1), "VALID", 3, 0),      # the whole image; RELU6
    ((1, 4, 6, 4), (1, 1), (1, 1), "VALID", 2, 0),      # 1x1; RELU_N1_TO_1
    ((1, 9, 9, 2), (4, 4), (3, 3), "SAME", 0, 5),       # a non-zero zero point (neither runtime reads it)
]


@needs_litert
@pytest.mark.parametrize("op", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_pool_16x8_matches_litert_and_tflm(op, case, tmp_path):
    shape, k, s, pad, act, zp = CASES[case]
    scale = 0.02 if act else 1e-3   # RELU6 and RELU_N1_TO_1 clamp inside int16 at this scale
    wants = check(pool_model(op, shape, k, s, pad, act, scale, zp), tmp_path, shape, seed=case)
    if case == 0:
        values = set(np.concatenate([w[0].ravel() for w in wants]).tolist())
        assert {I16.min, I16.max} <= values


@needs_litert
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_pool_16x8_hypothesis(data, tmp_path_factory):
    h, w, c = data.draw(st.integers(1, 9)), data.draw(st.integers(1, 9)), data.draw(st.integers(1, 9))
    k = (data.draw(st.integers(1, h)), data.draw(st.integers(1, w)))
    s = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
    pad = data.draw(st.sampled_from(["SAME", "VALID"]))
    op = data.draw(st.sampled_from(["AVERAGE_POOL_2D", "MAX_POOL_2D"]))
    shape = (data.draw(st.integers(1, 2)), h, w, c)
    check(pool_model(op, shape, k, s, pad), tmp_path_factory.mktemp("pool"), shape, seed=h * w)


def test_mismatched_pool_quantisation_is_refused(tmp_path):
    model = load(pool_model("MAX_POOL_2D", (1, 4, 4, 2), (2, 2), (2, 2), out_q=(2e-3, 0)), tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(MAX_POOL_2D\): input \(0.001.*, 0\) and output "
                                               r"\(0.002.*, 0\) quantisation differ"):
        ap.plan(model)


def test_pool_16x8_c_api(ffi, lib, tmp_path):
    """Through the C API: both ops write the Interpreter's int16 outputs between guard bytes,
    read nothing outside the input, and refuse an activation range beyond int16 and a window
    whose int32 sum TFLite's kernel would overflow."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
    from ops_harness import Guarded, guarded_from, message, variants
    for op, (variants_fn, run_fn) in {"AVERAGE_POOL_2D": (lib.ap_average_pool2d_s16_variants,
                                                          lib.ap_average_pool2d_s16_run),
                                      "MAX_POOL_2D": (lib.ap_max_pool2d_s16_variants,
                                                      lib.ap_max_pool2d_s16_run)}.items():
        model = load(pool_model(op, (1, 7, 9, 5), (3, 3), (2, 2), "SAME"), tmp_path, op)
        (k,) = PlanContext.build(model, isa="portable", reference="litert").kernels
        p = ffi.new("ap_pool2d_params *")
        for key, value in k.spec.items():
            setattr(p, key, value)
        x = int16_inputs((1, 7, 9, 5), 3)[0]
        want = ap.Interpreter(ap.plan(model, mode="size")).run(x)
        (v,) = variants(ffi, lib, variants_fn, p)
        inp = guarded_from(ffi, x.reshape(-1).view(np.int8))
        out = Guarded(ffi, 2 * want.size, fill=0x5A)
        call = ffi.new("ap_op_call *")
        ins = ffi.new("void *[]", [inp.ptr])
        call.params, call.variant, call.inputs, call.input_count, call.output = p, v, ins, 1, out.ptr
        err = ffi.new("ap_error *")
        assert run_fn(call, lib.AP_ISA_PORTABLE, err) == lib.AP_OK, message(ffi, err)
        assert inp.intact() and out.intact()
        np.testing.assert_array_equal(out.view(np.int8).view(np.int16).reshape(want.shape), want)
        p.activation_max = 40000
        assert run_fn(call, lib.AP_ISA_PORTABLE, err) == lib.AP_ERR_INVALID_ARGUMENT
        assert "not within [-32768, 32767]" in message(ffi, err)
        p.activation_max, p.filter_h, p.filter_w, p.input_h, p.input_w = 32767, 256, 256, 256, 256
        p.output_h = p.output_w = 1
        n = ffi.new("uint32_t *")
        assert variants_fn(p, lib.AP_ISA_PORTABLE, ffi.NULL, 0, n, err) == lib.AP_ERR_UNSUPPORTED
        assert "too large for an int32 sum" in message(ffi, err)
