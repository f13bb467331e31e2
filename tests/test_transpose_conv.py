"""TRANSPOSE_CONV, int8 and 16x8: one-op .tflite models built with the flatbuffer schema, the
gather and scatter variants on every instruction set this host runs inside a verified plan,
bit-exact with LiteRT's reference kernels (BUILTIN_REF) over strides 1 and 2 (and 3), SAME and
VALID padding, output shapes TFLite accepts beyond the usual ones, fused activations, zero points
at the ends and saturating inputs; hypothesis over shapes; the scatter scratch exactly and one
byte short through the C API; bad models refused naming the op; the one-op host C export."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import Unsupported, UnsupportedModel
from arenaplan.ops.lowering import HOST_ISA, TYPES_CODES
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L

sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
from ops_harness import Guarded, guarded_from, message, scratch_for, variants  # noqa: E402

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
VARIANTS = ["gather", "scatter"]


def host_isas() -> list:
    return ["portable"] + (["x86-avx2"] if HOST_ISA == "x86-avx2" else [])


def usual_size(size: int, k: int, stride: int, padding: str, extra: int = 0) -> int:
    """The output size TensorFlow's converter gives, and with ``extra`` in [0, stride) the
    others TFLite accepts (those whose windowed size is ``size`` again)."""
    return size * stride - extra if padding == "SAME" else (size - 1) * stride + k + extra


def tconv_model(rng, x_shape, oc, k, stride=(1, 1), padding="SAME", out_hw=None, act=0, bias=True,
                int16=False, xq=(0.05, 3), yq=(0.2, -5), per_channel=True, bias_dtype=None,
                bias_type_option=None, shape_constant=True, shape_override=None, version=3) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    n, h, w, c = x_shape
    if out_hw is None:
        out_hw = (usual_size(h, k[0], stride[0], padding), usual_size(w, k[1], stride[1], padding))
    y_shape = (n, out_hw[0], out_hw[1], oc)
    f_shape = (oc, k[0], k[1], c)
    f_scales = list(rng.uniform(0.002, 0.02, oc)) if per_channel else [0.01]
    dtype = "int16" if int16 else "int8"
    xs, xz = xq
    ys, yz = yq
    if int16:
        xz = yz = 0
    shape_data = np.asarray(shape_override if shape_override is not None else y_shape, dtype=np.int32)
    tensors = [dict(shape=(len(shape_data),), dtype="int32", data=shape_data if shape_constant else None),
               dict(shape=f_shape, dtype="int8", scale=f_scales, zero_point=[0] * len(f_scales),
                    data=rng.integers(-127, 128, size=f_shape, dtype=np.int8)),
               dict(shape=x_shape, dtype=dtype, scale=xs, zero_point=xz)]
    ins = [0, 1, 2]
    if bias:
        bias_dtype = bias_dtype or ("int64" if int16 else "int32")
        lim = 2 ** 24 if int16 else 2 ** 14
        tensors.append(dict(shape=(oc,), dtype=bias_dtype, scale=[xs * s for s in f_scales] * (oc // len(f_scales)),
                            zero_point=[0] * oc, data=rng.integers(-lim, lim, size=oc).astype(bias_dtype)))
        ins.append(3)
    tensors.append(dict(shape=y_shape, dtype=dtype, scale=ys, zero_point=yz))
    o = S.TransposeConvOptionsT()
    o.padding = getattr(S.Padding, padding)
    o.strideH, o.strideW = stride
    o.fusedActivationFunction = act
    if bias_type_option is not None:
        o.quantizedBiasType = getattr(S.TensorType, bias_type_option)
    return L.single_op_model("TRANSPOSE_CONV", tensors, ins, [len(tensors) - 1], "TransposeConvOptions", o,
                             version=version)


def load(content: bytes, tmp_path, name="m") -> ap.Model:
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(content)
    return ap.load_tflite(path)


def data_inputs(rng, shape, int16=False) -> list:
    """Random tensors, then every value at the type's minimum, then at its maximum."""
    info = np.iinfo(np.int16 if int16 else np.int8)
    dt = np.int16 if int16 else np.int8
    xs = [rng.integers(info.min, info.max + 1, size=shape).astype(dt) for _ in range(2)]
    return xs + [np.full(shape, info.min, dt), np.full(shape, info.max, dt)]


def check_against_litert(content: bytes, tmp_path, xs, int16=False, reference="litert"):
    """Every variant on every host ISA, each in a verified plan, equal to LiteRT's outputs."""
    model = load(content, tmp_path)
    wants = L.run_sequence(content, [[x] for x in xs])[0]
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference=reference)
        (kernel,) = ctx.kernels
        assert kernel.types == TYPES_CODES["s16x8" if int16 else "s8"]
        assert [v.name for v in kernel.variants] == VARIANTS
        assert kernel.variants[0].scratch == ()
        outputs = int(np.prod(model.tensors[model.outputs[0]].shape))
        wide = int16 and kernel.spec["accumulator_bits"] == 64
        assert kernel.variants[1].scratch == ((outputs * (8 if wide else 4), 8),)
        for v in kernel.variants:
            p = ctx.make([v], "size")
            assert p.verify() and p.isa == isa
            it = ap.Interpreter(p)
            for x, want in zip(xs, wants):
                got = it.run(x)
                assert got.dtype == want[0].dtype and got.shape == want[0].shape
                np.testing.assert_array_equal(got, want[0], err_msg=f"{v.name} on {isa}")
    return model, wants


# --- int8 against LiteRT ------------------------------------------------------------------------
S8_CASES = [  # (input shape, output channels, kernel, stride, padding, output (h, w) or None, act)
    ((1, 4, 4, 3), 2, (3, 3), (1, 1), "SAME", None, 0),
    ((1, 4, 5, 3), 4, (3, 3), (2, 2), "SAME", None, 0),
    ((2, 3, 4, 2), 3, (3, 2), (2, 1), "VALID", None, 0),
    ((1, 5, 5, 8), 5, (4, 4), (2, 2), "SAME", None, 1),          # RELU
    ((1, 3, 3, 4), 2, (2, 2), (2, 2), "VALID", None, 3),         # RELU6
    ((1, 3, 3, 2), 2, (3, 3), (3, 3), "VALID", None, 0),         # stride 3
    ((1, 4, 4, 2), 3, (3, 3), (2, 2), "SAME", (7, 8), 0),         # an output TFLite accepts, not the usual one
    ((1, 1, 2, 2), 2, (5, 5), (2, 2), "VALID", (6, 8), 0),        # VALID, one beyond the usual size
    ((1, 1, 1, 1), 1, (1, 1), (1, 1), "VALID", None, 0),          # size-1 everything
    ((1, 2, 2, 3), 2, (2, 2), (3, 3), "VALID", (7, 6), 0),        # outputs no input reaches: bias alone
]


@needs_litert
@pytest.mark.parametrize("case", range(len(S8_CASES)))
def test_transpose_conv_s8_matches_litert(case, tmp_path):
    x_shape, oc, k, stride, padding, out_hw, act = S8_CASES[case]
    rng = np.random.default_rng(300 + case)
    content = tconv_model(rng, x_shape, oc, k, stride, padding, out_hw, act,
                          yq=(float(rng.uniform(0.05, 0.5)), int(rng.integers(-20, 20))))
    check_against_litert(content, tmp_path, data_inputs(rng, x_shape))


@needs_litert
@pytest.mark.parametrize("xz, yz", [(-128, -128), (127, 127), (-128, 127)])
def test_transpose_conv_s8_zero_points_at_the_ends(xz, yz, tmp_path):
    """Zero points at the ends of int8, a per-tensor filter scale, no bias, saturating outputs."""
    rng = np.random.default_rng(abs(xz * 7 + yz))
    content = tconv_model(rng, (1, 3, 4, 6), 3, (3, 3), (2, 2), "SAME", bias=False, per_channel=False,
                          xq=(0.1, xz), yq=(0.02, yz))
    _, wants = check_against_litert(content, tmp_path, data_inputs(rng, (1, 3, 4, 6)))
    values = set(np.concatenate([w[0].ravel() for w in wants]).tolist())
    assert {-128, 127} <= values


@needs_litert
@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 2), h=st.integers(1, 5), w=st.integers(1, 5), c=st.integers(1, 5), oc=st.integers(1, 4),
       kh=st.integers(1, 4), kw=st.integers(1, 4), sh=st.integers(1, 3), sw=st.integers(1, 3),
       same=st.booleans(), extra=st.integers(0, 2), seed=st.integers(0, 2 ** 16))
def test_transpose_conv_s8_hypothesis(n, h, w, c, oc, kh, kw, sh, sw, same, extra, seed, tmp_path_factory):
    rng = np.random.default_rng(seed)
    padding = "SAME" if same else "VALID"
    oh = usual_size(h, kh, sh, padding, extra % sh)
    ow = usual_size(w, kw, sw, padding, (extra + 1) % sw)
    content = tconv_model(rng, (n, h, w, c), oc, (kh, kw), (sh, sw), padding, (oh, ow),
                          xq=(float(rng.uniform(0.01, 0.2)), int(rng.integers(-128, 128))),
                          yq=(float(rng.uniform(0.05, 1.0)), int(rng.integers(-128, 128))))
    check_against_litert(content, tmp_path_factory.mktemp("tc"), data_inputs(rng, (n, h, w, c))[:2])


# --- 16x8 against LiteRT ------------------------------------------------------------------------
S16_CASES = [  # (input shape, output channels, kernel, stride, padding, output (h, w) or None, act, bias)
    ((1, 4, 4, 3), 2, (3, 3), (1, 1), "SAME", None, 0, "int64"),
    ((1, 4, 5, 3), 4, (3, 3), (2, 2), "SAME", None, 1, "int64"),      # RELU
    ((2, 3, 4, 2), 3, (3, 2), (2, 1), "VALID", None, 0, None),         # no bias: int64 sums
    ((1, 4, 4, 2), 3, (3, 3), (2, 2), "SAME", (7, 8), 3, "int64"),     # RELU6, an output beyond the usual
    ((1, 3, 3, 4), 2, (2, 2), (2, 2), "VALID", None, 0, "int32"),      # int32 bias, quantized_bias_type INT32
    ((1, 2, 2, 3), 2, (2, 2), (3, 3), "VALID", (7, 6), 0, "int32"),     # outputs no input reaches
]


@needs_litert
@pytest.mark.parametrize("case", range(len(S16_CASES)))
def test_transpose_conv_16x8_matches_litert(case, tmp_path):
    x_shape, oc, k, stride, padding, out_hw, act, bias = S16_CASES[case]
    rng = np.random.default_rng(400 + case)
    content = tconv_model(rng, x_shape, oc, k, stride, padding, out_hw, act, bias=bias is not None, int16=True,
                          xq=(0.001, 0), yq=(float(rng.uniform(0.0005, 0.004)), 0), bias_dtype=bias,
                          bias_type_option="INT32" if bias == "int32" else None)
    model, wants = check_against_litert(content, tmp_path, data_inputs(rng, x_shape, int16=True), int16=True)
    (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    assert kernel.spec["accumulator_bits"] == (32 if bias == "int32" else 64)
    if case < 2:   # the extremes saturate: both ends of int16 (of RELU's range) are reached
        values = set(np.concatenate([w[0].ravel() for w in wants]).tolist())
        assert ({-32768, 32767} if act == 0 else {0, 32767}) <= values


@needs_litert
@settings(max_examples=15, deadline=None)
@given(h=st.integers(1, 4), w=st.integers(1, 4), c=st.integers(1, 4), oc=st.integers(1, 3), kh=st.integers(1, 4),
       kw=st.integers(1, 4), sh=st.integers(1, 3), sw=st.integers(1, 3), same=st.booleans(),
       extra=st.integers(0, 2), int32_bias=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_transpose_conv_16x8_hypothesis(h, w, c, oc, kh, kw, sh, sw, same, extra, int32_bias, seed,
                                        tmp_path_factory):
    rng = np.random.default_rng(seed)
    padding = "SAME" if same else "VALID"
    oh = usual_size(h, kh, sh, padding, extra % sh)
    ow = usual_size(w, kw, sw, padding, (extra + 1) % sw)
    content = tconv_model(rng, (1, h, w, c), oc, (kh, kw), (sh, sw), padding, (oh, ow), int16=True,
                          xq=(0.001, 0), yq=(float(rng.uniform(0.0005, 0.01)), 0),
                          bias_dtype="int32" if int32_bias else "int64",
                          bias_type_option="INT32" if int32_bias else None)
    check_against_litert(content, tmp_path_factory.mktemp("tc16"), data_inputs(rng, (1, h, w, c), True)[:2],
                         int16=True)


def test_bad_transpose_conv_16x8_is_refused(tmp_path):
    rng = np.random.default_rng(2)
    cases = [
        (dict(bias_dtype="int32"), r"bias tensor 3 \('t3'\) is int32; quantized_bias_type unset or INT64 makes "
                                   r"LiteRT read it as int64", "litert"),
        (dict(bias_dtype="int64", bias_type_option="INT32"), r"bias tensor 3 \('t3'\) is int64; "
                                                             r"quantized_bias_type INT32", "litert"),
        (dict(bias_dtype="int32", bias_type_option="INT32"), r"bias tensor 3 \('t3'\) is int32; TensorFlow Lite "
                                                             r"Micro reads a 16x8 TRANSPOSE_CONV bias as int64", "tflm"),
        (dict(xq=(0.001, 5)), r"input tensor 2 \('t2'\) is int16 with zero point 5", "litert"),
    ]
    for i, (kw, pattern, reference) in enumerate(cases):
        content = tconv_model(rng, (1, 3, 3, 2), 2, (3, 3), (2, 2), "SAME", int16=True, **kw)
        if "xq" in kw:   # tconv_model zeroes int16 zero points: set one by hand
            model = load(content, tmp_path, f"bad{i}")
            x = model.tensors[2]
            model.tensors[2] = type(x)(x.index, x.name, x.shape, x.dtype,
                                       type(x.quantization)(x.quantization.scale, (5,), 0), x.data, x.is_variable)
        else:
            model = load(content, tmp_path, f"bad{i}")
        with pytest.raises(UnsupportedModel, match=r"op 0 \(TRANSPOSE_CONV\): " + pattern):
            ap.plan(model, reference=reference)


# --- the C API: exactly the scratch, one byte short ----------------------------------------------
def check_scratch(ffi, lib, model: ap.Model, variants_fn, run_fn, int16=False):
    """Through the C API: each variant writes the Interpreter's output with exactly its scratch
    between guard bytes; the scatter with one byte too few is AP_ERR_SCRATCH_TOO_SMALL naming
    both sizes and writes nothing."""
    (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    p = ffi.new("ap_transpose_conv_params *")
    keep = []
    for key, value in kernel.spec.items():
        if isinstance(value, list):
            keep.append(ffi.new("int32_t[]", value))
            value = keep[-1]
        obj, _, field = key.rpartition(".")
        setattr(getattr(p, obj) if obj else p, field, value)
    blob = kernel.prepared()
    dt = np.int16 if int16 else np.int8
    x_t = model.tensors[model.inputs[0]]
    x = np.random.default_rng(5).integers(np.iinfo(dt).min, np.iinfo(dt).max + 1, size=x_t.shape).astype(dt)
    want = ap.Interpreter(ap.plan(model, mode="size")).run(x).reshape(-1)
    listed = variants(ffi, lib, variants_fn, p)
    assert [ffi.string(v.name).decode() for v in listed] == VARIANTS
    prepared = ffi.from_buffer(blob)
    for v in listed:
        for short in ([None, 0] if v.scratch_count else [None]):
            inp = guarded_from(ffi, x.reshape(-1).view(np.int8))
            out = Guarded(ffi, want.size * want.itemsize, fill=0x5A)
            before = out.payload.copy()
            scr, bufs = scratch_for(ffi, v, short)
            call = ffi.new("ap_op_call *")
            ins = ffi.new("void *[]", [inp.ptr])
            call.params, call.variant, call.prepared, call.inputs, call.input_count = p, v, prepared, ins, 1
            call.output, call.scratch, call.scratch_count = out.ptr, scr, v.scratch_count
            err = ffi.new("ap_error *")
            status = run_fn(call, lib.AP_ISA_PORTABLE, err)
            assert inp.intact() and out.intact() and all(b.intact() for b in bufs)
            if short is None:
                assert status == lib.AP_OK, message(ffi, err)
                np.testing.assert_array_equal(out.view(dt), want)
            else:
                need = v.scratch[0].bytes
                assert status == lib.AP_ERR_SCRATCH_TOO_SMALL
                assert err.needed == need and err.available == need - 1, message(ffi, err)
                np.testing.assert_array_equal(out.payload, before)


def test_transpose_conv_s8_scratch(ffi, lib, tmp_path):
    rng = np.random.default_rng(11)
    model = load(tconv_model(rng, (1, 3, 4, 3), 2, (3, 3), (2, 2), "SAME"), tmp_path)
    check_scratch(ffi, lib, model, lib.ap_transpose_conv_s8_variants, lib.ap_transpose_conv_s8_run)


@pytest.mark.parametrize("bias", ["int64", "int32"])
def test_transpose_conv_16x8_scratch(bias, ffi, lib, tmp_path):
    """int64 accumulators (8 bytes an output) with an int64 bias, int32 ones with an int32 bias."""
    rng = np.random.default_rng(12)
    model = load(tconv_model(rng, (1, 3, 4, 3), 2, (3, 3), (2, 2), "SAME", int16=True, bias_dtype=bias,
                             bias_type_option="INT32" if bias == "int32" else None), tmp_path)
    check_scratch(ffi, lib, model, lib.ap_transpose_conv_s16_variants, lib.ap_transpose_conv_s16_run, int16=True)


# --- bad models ------------------------------------------------------------------------------------
def test_bad_transpose_conv_is_refused(tmp_path):
    rng = np.random.default_rng(1)
    cases = [
        (dict(shape_override=(1, 8, 8, 3)), r"output_shape \[1, 8, 8, 3\] differs from the output tensor's "
                                            r"shape \(1, 8, 8, 2\)"),
        (dict(shape_constant=False), r"output_shape tensor 0 \('t0'\) is not a constant"),
        (dict(shape_override=(1, 8, 8)), r"output_shape tensor 0 holds \[1, 8, 8\]"),
        (dict(stride=(0, 1)), r"strides \(0, 1\) must be >= 1"),
        (dict(out_hw=(9, 8)), r"output height 9 does not fit input height 4: a SAME window of 3 at stride 2 over 9 "
                              r"gives 5 \(TFLite requires 4\)"),
    ]
    for i, (kw, pattern) in enumerate(cases):
        model = load(tconv_model(rng, (1, 4, 4, 3), 2, (3, 3), **{"stride": (2, 2), **kw}), tmp_path, f"bad{i}")
        with pytest.raises(UnsupportedModel, match=r"op 0 \(TRANSPOSE_CONV\): " + pattern):
            ap.plan(model)
    # weights whose input channels differ from the input's (TFLite's Prepare refuses it)
    content = tconv_model(rng, (1, 4, 4, 3), 2, (3, 3), (2, 2), "SAME")
    model = load(content, tmp_path, "chan")
    w = model.tensors[1]
    model.tensors[1] = type(w)(w.index, w.name, (2, 3, 3, 2), w.dtype, w.quantization,
                               w.data.reshape(-1)[:36].reshape(2, 3, 3, 2), w.is_variable)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(TRANSPOSE_CONV\): weights have 2 input channels, "
                                               r"the input has 3"):
        ap.plan(model)
    # the kernel's own checks
    (kernel,) = PlanContext.build(load(content, tmp_path, "ok"), isa="portable", reference="litert").kernels
    with pytest.raises(ValueError, match=r"transpose_conv: padding \(3, 0\) must lie in \[0, filter\)"):
        _core.kernel_variants(kernel.code, dict(kernel.spec, pad_h=3))
    with pytest.raises(ValueError, match="transpose_conv: stride_w is 0"):
        _core.kernel_variants(kernel.code, dict(kernel.spec, stride_w=0))
    with pytest.raises(ValueError, match="transpose_conv: accumulator_bits 64 must be 32 for int8 input"):
        _core.kernel_variants(kernel.code, dict(kernel.spec, accumulator_bits=64))
    # taps past 2^24, also where their count wraps a 64-bit product (2^30 x 2^30 x 16 = 2^64: it
    # passed as 0 taps, listing its variants with 0 MACs)
    huge = dict(kernel.spec, input_h=1, input_w=1, input_c=16, output_h=1, output_w=1, filter_h=1 << 30,
                filter_w=1 << 30, pad_h=0, pad_w=0)
    with pytest.raises(Unsupported, match=r"1073741824 x 1073741824 x 16 filter taps exceed 2\^24"):
        _core.kernel_variants(kernel.code, huge)


# --- TensorFlow Lite Micro runs the op too ---------------------------------------------------------
def tflm_outputs(content: bytes, xs: list) -> list:
    runtime = pytest.importorskip("tflite_micro.python.tflite_micro.runtime")
    micro = runtime.Interpreter.from_bytes(content, arena_size=1 << 20)
    outs = []
    for x in xs:
        micro.set_input(x, 0)
        micro.invoke()
        outs.append(np.array(micro.get_output(0)))
    return outs


@pytest.mark.parametrize("int16", [False, True])
@pytest.mark.parametrize("act", [0, 1])
def test_transpose_conv_matches_tflite_micro(int16, act, tmp_path):
    """TFLite Micro's interpreter (its reference kernel, int32 / int64 scratch of the output's
    size) gives the same bits as the plan under reference="tflm", every variant."""
    rng = np.random.default_rng(40 + act)
    content = tconv_model(rng, (1, 4, 5, 3), 4, (3, 3), (2, 2), "SAME", act=act, int16=int16, yq=(0.05, -5))
    xs = data_inputs(rng, (1, 4, 5, 3), int16)
    wants = tflm_outputs(content, xs)
    ctx = PlanContext.build(load(content, tmp_path), isa="portable", reference="tflm")
    for v in ctx.kernels[0].variants:
        plan = ctx.make([v], "size")
        assert plan.verify() and plan.reference == "tflm"
        it = ap.Interpreter(plan)
        for x, want in zip(xs, wants):
            np.testing.assert_array_equal(it.run(x), want, err_msg=v.name)
