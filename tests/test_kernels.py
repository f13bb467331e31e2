"""ap.kernels: every variant through the Python API, against the NumPy references."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arenaplan as ap
from harness.reference import conv as ref_conv
from harness.reference import ops as ref_ops
from harness.reference.quant import quantize_multiplier

SETTINGS = dict(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def conv_cases(draw, depthwise=False):
    n = draw(st.integers(1, 2))
    c = draw(st.sampled_from([1, 3, 7, 17]))
    h, w = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    kh, kw = draw(st.sampled_from([(1, 1), (3, 3), (1, 3), (3, 1), (2, 2), (5, 5)]))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = draw(st.sampled_from(["SAME", "VALID"]))
    if padding == "VALID" and (h < (kh - 1) * dilation[0] + 1 or w < (kw - 1) * dilation[1] + 1):
        padding = "SAME"
    mult = draw(st.integers(1, 3)) if depthwise else 1
    oc = c * mult if depthwise else draw(st.sampled_from([1, 3, 8, 17]))
    seed = draw(st.integers(0, 2 ** 31))
    return n, h, w, c, kh, kw, oc, stride, dilation, padding, mult, seed


def _quant(rng, oc):
    return dict(input_scale=float(rng.uniform(0.01, 0.1)), input_zero_point=int(rng.integers(-128, 128)),
                filter_scales=rng.uniform(0.001, 0.02, size=oc).astype(np.float32).tolist(),
                output_scale=float(rng.uniform(0.05, 0.5)), output_zero_point=int(rng.integers(-128, 128)))


def _fixed(q):
    pairs = [quantize_multiplier(np.float32(q["input_scale"]).item() * np.float32(s).item()
                                 / np.float32(q["output_scale"]).item()) for s in q["filter_scales"]]
    return np.array([m for m, _ in pairs]), np.array([s for _, s in pairs])


@settings(**SETTINGS)
@given(conv_cases())
def test_conv2d_every_variant_matches_reference(case):
    n, h, w, c, kh, kw, oc, stride, dilation, padding, _, seed = case
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, size=(n, h, w, c), dtype=np.int8)
    wt = rng.integers(-127, 128, size=(oc, kh, kw, c), dtype=np.int8)
    bias = rng.integers(-5000, 5000, size=oc, dtype=np.int32)
    q = _quant(rng, oc)
    oh, ow, ph, pw = ref_conv.conv_geometry((h, w), (kh, kw), stride, dilation, padding)
    mult, shift = _fixed(q)
    want = ref_conv.conv_per_channel(x, wt, bias, stride=stride, dilation=dilation, pad=(ph, pw),
                                     out_hw=(oh, ow), input_offset=-q["input_zero_point"],
                                     multiplier=mult, shift=shift, output_offset=q["output_zero_point"])
    names = [v for v, _ in ap.kernels.variants("conv2d", x.shape, wt.shape, stride, padding, dilation)]
    assert names[0] == "direct"
    for name in names:
        got = ap.kernels.conv2d(x, wt, bias, stride, padding.lower(), dilation, variant=name, **q)
        np.testing.assert_array_equal(got, want, err_msg=name)
    # The fixed-point form a firmware holds gives the same bits (VALID as explicit (0, 0)).
    got = ap.kernels.conv2d(x, wt, bias, stride, (0, 0) if padding == "VALID" else padding,
                            dilation, input_zero_point=q["input_zero_point"],
                            output_zero_point=q["output_zero_point"], output_multiplier=mult,
                            output_shift=shift)
    np.testing.assert_array_equal(got, want)


@settings(**SETTINGS)
@given(conv_cases(depthwise=True))
def test_depthwise_every_variant_matches_reference(case):
    n, h, w, c, kh, kw, oc, stride, dilation, padding, mult_dm, seed = case
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, size=(n, h, w, c), dtype=np.int8)
    wt = rng.integers(-127, 128, size=(1, kh, kw, oc), dtype=np.int8)
    bias = rng.integers(-5000, 5000, size=oc, dtype=np.int32)
    q = _quant(rng, oc)
    oh, ow, ph, pw = ref_conv.conv_geometry((h, w), (kh, kw), stride, dilation, padding)
    mult, shift = _fixed(q)
    want = ref_ops.depthwise_conv2d(x, wt, bias, stride=stride, dilation=dilation, pad=(ph, pw),
                                    out_hw=(oh, ow), depth_multiplier=mult_dm,
                                    input_offset=-q["input_zero_point"], multiplier=mult, shift=shift,
                                    output_offset=q["output_zero_point"])
    names = [v for v, _ in ap.kernels.variants("depthwise_conv2d", x.shape, wt.shape, stride, padding,
                                               dilation, depth_multiplier=mult_dm)]
    assert len(names) >= 1
    for name in names:
        got = ap.kernels.depthwise_conv2d(x, wt, bias, stride, padding, dilation, mult_dm, variant=name, **q)
        np.testing.assert_array_equal(got, want, err_msg=name)


@settings(**SETTINGS)
@given(st.integers(1, 4), st.integers(1, 70), st.integers(1, 40), st.booleans(), st.integers(0, 2 ** 31))
def test_fully_connected_matches_reference(batches, depth, units, per_channel, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, size=(batches, depth), dtype=np.int8)
    w = rng.integers(-127, 128, size=(units, depth), dtype=np.int8)
    bias = rng.integers(-5000, 5000, size=units, dtype=np.int32)
    q = _quant(rng, units if per_channel else 1)
    real = [np.float32(q["input_scale"]).item() * np.float32(s).item() / np.float32(q["output_scale"]).item()
            for s in q["filter_scales"]]
    want = ref_ops.fully_connected(x, w, bias, input_offset=-q["input_zero_point"], real_scale=real,
                                   output_offset=q["output_zero_point"])
    np.testing.assert_array_equal(ap.kernels.fully_connected(x, w, bias, **q), want)
    mult, shift = _fixed(q)
    want_fixed = ref_ops.fully_connected(x, w, bias, input_offset=-q["input_zero_point"],
                                         multiplier=mult, shift=shift, output_offset=q["output_zero_point"])
    got = ap.kernels.fully_connected(x, w, bias, input_zero_point=q["input_zero_point"],
                                     output_zero_point=q["output_zero_point"],
                                     output_multiplier=mult, output_shift=shift)
    np.testing.assert_array_equal(got, want_fixed)


def test_variants_are_ordered_by_scratch():
    v = ap.kernels.variants("conv2d", (1, 56, 56, 64), (64, 3, 3, 64))
    scratch = [b for _, b in v]
    assert scratch == sorted(scratch) and scratch[0] == 0
    names = [n for n, _ in v]
    assert names[0] == "direct" and "im2col" in names
    assert sum(n.startswith("im2col_rows_") for n in names) >= 2   # a curve, not a switch
    pointwise = [n for n, _ in ap.kernels.variants("conv2d", (1, 8, 8, 16), (32, 1, 1, 16))]
    assert "gemm_1x1" in pointwise
    dw = ap.kernels.variants("depthwise_conv2d", (1, 48, 48, 8), (1, 3, 3, 8))
    assert dw[0] == ("direct", 0) and len(dw) >= 2


@pytest.mark.parametrize("kwargs, words", [
    (dict(x=np.zeros((1, 4, 4, 3), np.float32)), "int8"),
    (dict(x=np.zeros((4, 4, 3), np.int8)), "4 dimensions"),
    (dict(w=np.zeros((2, 3, 3, 5), np.int8)), "input channels"),
    (dict(bias=np.zeros(5, np.int32)), "bias has 5"),
    (dict(stride=0), "stride"),
    (dict(padding="full"), "padding"),
    (dict(activation="TANH"), "TANH"),
    (dict(variant="winograd"), "winograd"),
    (dict(output_multiplier=[1 << 30] * 2), "not both"),
    (dict(input_zero_point=300), "input_zero_point"),
])
def test_conv2d_bad_input_is_named(kwargs, words):
    args = dict(x=np.zeros((1, 4, 4, 3), np.int8), w=np.zeros((2, 3, 3, 3), np.int8),
                bias=np.zeros(2, np.int32), input_scale=0.1, filter_scales=[0.01, 0.01], output_scale=0.1)
    args.update(kwargs)
    with pytest.raises(ValueError, match=words):
        ap.kernels.conv2d(**args)


def test_filter_larger_than_valid_input():
    with pytest.raises(ap.InvalidArgument, match="does not fit"):
        ap.kernels.conv2d(np.zeros((1, 2, 2, 1), np.int8), np.zeros((1, 3, 3, 1), np.int8),
                          padding="valid", input_scale=0.1, filter_scales=[0.1], output_scale=0.1)


# ---- SVDF: a stateful kernel; the state array is updated in place ----

from harness.reference import svdf as ref_svdf  # noqa: E402


@pytest.mark.parametrize("variant", ["fused", "direct"])
@settings(**SETTINGS)
@given(batches=st.integers(1, 3), input_size=st.integers(1, 40), units=st.integers(1, 8),
       rank=st.integers(1, 3), memory=st.integers(1, 20), bias=st.booleans(), fixed=st.booleans(),
       seed=st.integers(0, 2 ** 31))
def test_svdf_sequence_matches_reference(variant, batches, input_size, units, rank, memory, bias, fixed, seed):
    rng = np.random.default_rng(seed)
    c = ref_svdf.random_case(rng, batches, input_size, units * rank, memory, rank, bias)
    sx, swf, sst, swt, sy = c["scales"]
    quant = (dict(feature_multiplier=c["feature_multiplier"], feature_shift=c["feature_shift"],
                  time_multiplier=c["time_multiplier"], time_shift=c["time_shift"]) if fixed else
             dict(input_scale=sx, weights_feature_scale=swf, state_scale=sst, weights_time_scale=swt,
                  output_scale=sy))
    state = np.zeros((batches, units * rank * memory), dtype=np.int16)
    want_state = state.copy()
    for _ in range(4):
        x = rng.integers(-128, 128, size=(batches, input_size), dtype=np.int8)
        got = ap.kernels.svdf(x, c["wf"], c["wt"], c["bias"], state, rank=rank,
                              input_zero_point=c["input_zero_point"],
                              output_zero_point=c["output_zero_point"], variant=variant, **quant)
        want, want_state = ref_svdf.step(c, x, want_state)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(state, want_state)


def test_svdf_and_lstm_variants():
    """variants() / variant_details() of the recurrent ops, shapes as the kernels take them."""
    assert ap.kernels.variants("svdf", (1, 96), (64, 8)) == [("fused", 0), ("direct", 4 * 64)]
    details = ap.kernels.variant_details("svdf", (3, 20), (12, 5), rank=4)
    assert [(d[0], d[3], d[4]) for d in details] == [("fused", (), 3 * 12 * (20 + 5)),
                                                     ("direct", ((4 * 3 * 12, 16),), 3 * 12 * (20 + 5))]
    assert ap.kernels.variants("lstm", (1, 28, 28), (20, 28)) == [("direct", 0)]
    (lstm,) = ap.kernels.variant_details("lstm", (28, 2, 10), (16, 10), time_major=True)
    assert lstm[0] == "direct" and lstm[3] == () and lstm[4] == 2 * 28 * 4 * 16 * (10 + 16)


@pytest.mark.parametrize("args,kwargs,match", [
    (("svdf", (1, 96), (64, 8)), dict(rank=3), "rank must be a positive divisor of the 64 filters"),
    (("svdf", (1, 96, 1), (64, 8)), {}, r"svdf input_shape \[batches, input_size\] must be 2 positive ints"),
    (("svdf", (1, 96), (64, 0)), {}, r"weights_time\) \[filters, memory\] must be 2 positive ints"),
    (("lstm", (1, 28, 28), (20, 27)), {}, r"has 27 inputs but input_shape \(1, 28, 28\) has 28"),
    (("lstm", (1, 28), (20, 28)), {}, "must be 3 positive ints"),
    (("gru", (1, 2), (3, 2)), {}, "unknown op 'gru'"),
])
def test_variants_bad_shapes(args, kwargs, match):
    with pytest.raises(ap.InvalidArgument, match=match):
        ap.kernels.variants(*args, **kwargs)


def test_svdf_without_state_runs_one_step_from_zero():
    rng = np.random.default_rng(4)
    c = ref_svdf.random_case(rng, 1, 10, 6, 3, 2)
    x = rng.integers(-128, 128, size=(1, 10), dtype=np.int8)
    kwargs = dict(rank=2, input_zero_point=c["input_zero_point"], output_zero_point=c["output_zero_point"],
                  feature_multiplier=c["feature_multiplier"], feature_shift=c["feature_shift"],
                  time_multiplier=c["time_multiplier"], time_shift=c["time_shift"])
    want, _ = ref_svdf.step(c, x, np.zeros((1, 18), np.int16))
    np.testing.assert_array_equal(ap.kernels.svdf(x, c["wf"], c["wt"], c["bias"], **kwargs), want)


@pytest.mark.parametrize("change,match", [
    (dict(rank=4), "rank must be a positive divisor"),
    (dict(state=np.zeros((1, 17), np.int16)), "state must be"),
    (dict(state=np.zeros((1, 18), np.int32)), "state must be"),
    (dict(state=np.zeros((1, 36), np.int16)[:, ::2]), "state must be"),
    (dict(bias=np.zeros(4, np.int32)), "bias has 4 entries for 3 units"),
    (dict(weights_feature=np.zeros((6, 9), np.int8)), "weights_feature has shape"),
    (dict(input_zero_point=200), "input_zero_point"),
    (dict(feature_multiplier=None), "go together"),
    (dict(input_scale=0.1), "not both"),
    (dict(feature_multiplier=-5), "multipliers"),
])
def test_svdf_bad_input(change, match):
    rng = np.random.default_rng(6)
    c = ref_svdf.random_case(rng, 1, 10, 6, 3, 2)
    kwargs = dict(x=rng.integers(-128, 128, size=(1, 10), dtype=np.int8), weights_feature=c["wf"],
                  weights_time=c["wt"], bias=c["bias"], state=np.zeros((1, 18), np.int16), rank=2,
                  feature_multiplier=c["feature_multiplier"], feature_shift=c["feature_shift"],
                  time_multiplier=c["time_multiplier"], time_shift=c["time_shift"])
    kwargs.update(change)
    with pytest.raises(ap.InvalidArgument, match=match):
        ap.kernels.svdf(**kwargs)


@pytest.mark.parametrize("args, field", [
    (("conv2d", (1, 2 ** 40, 56, 64), (64, 3, 3, 64)), "'input_h' = 1099511627776 is outside int32"),
    (("conv2d", (1, 56, 56, 64), (2 ** 40, 3, 3, 64)), "'output_c' = 1099511627776 is outside int32"),
    (("depthwise_conv2d", (1, 2 ** 31, 5, 8), (1, 3, 3, 8)), "'input_h' = 2147483648 is outside int32"),
])
def test_variants_of_shapes_beyond_the_kernels_name_the_field(args, field):
    with pytest.raises(ap.InvalidArgument) as info:
        ap.kernels.variants(*args)
    assert field in str(info.value) and "params[" not in str(info.value)
