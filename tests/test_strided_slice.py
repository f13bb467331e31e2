"""int8 and int16 STRIDED_SLICE: one-op .tflite models built with the flatbuffer schema (begin / end /
shrink-axis masks, negative indices and strides, clamped ends, size-1 dimensions, ranks 1 to
5), the copy variant on every instruction set this host runs inside a verified plan,
bit-exact with LiteRT's reference kernels (BUILTIN_REF) and, for int16 (the 16x8 row), with
the tflite-micro interpreter too; hypothesis over shapes and slices;
masks TFLite Micro does not run refused naming the op; out-of-range params refused by the C
kernel."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from arenaplan.ops.lowering import HOST_ISA, TYPES_CODES
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))


def host_isas() -> list:
    return ["portable"] + (["x86-avx2"] if HOST_ISA == "x86-avx2" else [])


def _reference_shape(shape, begin, end, strides, begin_mask=0, end_mask=0, shrink=0):
    """The output shape by NumPy's slicing (the same rules as TFLite's for these masks)."""
    idx = []
    for a in range(len(shape)):
        if shrink & (1 << a):
            b = begin[a] + shape[a] if begin[a] < 0 else begin[a]
            idx.append(b)
            continue
        idx.append(slice(None if begin_mask & (1 << a) else begin[a],
                         None if end_mask & (1 << a) else end[a], strides[a]))
    return np.zeros(shape, np.int8)[tuple(idx)].shape


def slice_model(shape, begin, end, strides, begin_mask=0, end_mask=0, shrink=0, ellipsis=0, new_axis=0,
                out_shape=None, scale=0.05, zp=-3, dtype="int8") -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = S.StridedSliceOptionsT()
    o.beginMask, o.endMask, o.shrinkAxisMask = begin_mask, end_mask, shrink
    o.ellipsisMask, o.newAxisMask = ellipsis, new_axis
    if out_shape is None:
        out_shape = _reference_shape(shape, begin, end, strides, begin_mask, end_mask, shrink)
    rank = len(shape)
    tensors = [dict(shape=shape, dtype=dtype, scale=scale, zero_point=zp),
               dict(shape=(rank,), dtype="int32", data=np.array(begin, np.int32)),
               dict(shape=(rank,), dtype="int32", data=np.array(end, np.int32)),
               dict(shape=(rank,), dtype="int32", data=np.array(strides, np.int32)),
               dict(shape=tuple(out_shape), dtype=dtype, scale=scale, zero_point=zp)]
    return L.single_op_model("STRIDED_SLICE", tensors, [0, 1, 2, 3], [4], "StridedSliceOptions", o, version=4)


def load(content: bytes, tmp_path, name="m") -> ap.Model:
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(content)
    return ap.load_tflite(path)


def int8_inputs(rng, shape, count=2, dtype="int8"):
    """Random values, then a ramp through the type's range (int16: both ends included)."""
    info = np.iinfo(dtype)
    xs = [rng.integers(info.min, info.max + 1, size=shape).astype(dtype) for _ in range(count)]
    ramp = np.arange(-128, 128) if dtype == "int8" else np.linspace(info.min, info.max, 301).round()
    return xs + [np.resize(ramp.astype(dtype), shape)]


def tflm_outputs(content: bytes, xs: list, outputs: int = 1) -> list:
    """[[output, ...]] per input from the tflite-micro interpreter, as run_sequence gives LiteRT's."""
    from tflite_micro.python.tflite_micro import runtime
    micro = runtime.Interpreter.from_bytes(content, arena_size=1 << 20)
    wants = []
    for x in xs:
        micro.set_input(x, 0)
        micro.invoke()
        wants.append([np.array(micro.get_output(i)) for i in range(outputs)])
    return wants


def check(content: bytes, tmp_path, shape, seed=0, dtype="int8"):
    """The copy on each host ISA in a verified plan equals LiteRT (and, for int16, TFLite Micro)."""
    model = load(content, tmp_path)
    rng = np.random.default_rng(seed)
    xs = int8_inputs(rng, shape, dtype=dtype)
    wants = L.run_sequence(content, [[x] for x in xs])[0]
    if dtype == "int16" and len(shape) <= 4:   # TFLite Micro's kernel takes ranks up to 4
        for w, m in zip(wants, tflm_outputs(content, xs)):
            np.testing.assert_array_equal(m[0].reshape(w[0].shape), w[0], err_msg="LiteRT and TFLite Micro")
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference="litert")
        (kernel,) = ctx.kernels
        assert kernel.types == TYPES_CODES["s16x8" if dtype == "int16" else "s8"]
        assert [v.name for v in kernel.variants] == ["copy"]
        assert not kernel.variants[0].in_place and kernel.variants[0].scratch == ()
        p = ctx.make([kernel.variants[0]], "size")
        assert p.verify() and p.isa == isa
        it = ap.Interpreter(p)
        for x, want in zip(xs, wants):
            got = it.run(x)
            assert got.dtype == np.dtype(dtype) and got.shape == want[0].shape
            np.testing.assert_array_equal(got, want[0], err_msg=f"{isa}")


#: (shape, begin, end, strides, begin_mask, end_mask, shrink_axis_mask)
CASES = [
    ((1, 8, 8, 3), [0, 1, 2, 0], [1, 7, 8, 3], [1, 2, 3, 1], 0, 0, 0),
    ((2, 5, 4), [0, 0, 0], [2, 5, 4], [1, 1, 1], 0, 0, 0),                 # the whole tensor
    ((10,), [-3], [-1], [1], 0, 0, 0),                                      # negative indices
    ((10,), [8], [1], [-2], 0, 0, 0),                                       # a negative stride
    ((10,), [-1], [0], [-1], 0, 1, 0),                                      # reversed, end mask
    ((4, 6), [1, 5], [100, -100], [1, -2], 0, 0, 0),                        # ends clamped
    ((4, 6), [3, 2], [3, 4], [1, 1], 1, 0, 0),                              # begin mask
    ((4, 6), [1, 2], [0, 0], [2, 1], 0, 3, 0),                              # end masks
    ((1, 49, 40, 1), [0, 0, 0, 0], [1, 1, 40, 1], [1, 1, 1, 1], 0, 0, 2),   # shrink an axis
    ((3, 4, 5), [1, -1, 2], [2, 0, 3], [1, 1, 1], 0, 0, 7),                 # shrink every axis
    ((2, 3, 4, 5, 6), [1, 0, 1, 4, 5], [2, 3, 4, 0, 0], [1, 2, 2, -1, -3], 0, 0, 0),   # rank 5
    ((1, 1, 1, 7), [0, 0, 0, 1], [1, 1, 1, 7], [1, 1, 1, 3], 0, 0, 0),                 # size-1 dims
    ((2, 16), [0, -8], [2, 0], [1, 1], 0, 2, 1),                           # the last 8 of row 0
]


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
def test_strided_slice_matches_litert(case, tmp_path):
    shape, begin, end, strides, bm, em, sm = CASES[case]
    check(slice_model(shape, begin, end, strides, bm, em, sm), tmp_path, shape, seed=case)


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
def test_strided_slice_16x8_matches_litert_and_tflm(case, tmp_path):
    """int16 (the 16x8 row): the same slices; the values are copied whatever the zero point (TFLite's
    STRIDED_SLICE does not read the quantisation), both ends of int16 among them."""
    shape, begin, end, strides, bm, em, sm = CASES[case]
    content = slice_model(shape, begin, end, strides, bm, em, sm, scale=1e-3, zp=0 if case % 2 else 7, dtype="int16")
    check(content, tmp_path, shape, seed=case, dtype="int16")


@needs_litert
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_strided_slice_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 5))
    shape = tuple(data.draw(st.lists(st.integers(1, 6), min_size=rank, max_size=rank)))
    begin, end, strides = [], [], []
    for d in shape:
        stride = data.draw(st.sampled_from([-3, -2, -1, 1, 2, 3]))
        begin.append(data.draw(st.integers(-d - 2, d + 2)))
        end.append(data.draw(st.integers(-d - 2, d + 2)))
        strides.append(stride)
    bm = data.draw(st.integers(0, 2 ** rank - 1))
    em = data.draw(st.integers(0, 2 ** rank - 1))
    sm = 0
    for a, d in enumerate(shape):   # shrink only where begin names an element
        if -d <= begin[a] < d and strides[a] > 0 and not bm & (1 << a) and data.draw(st.booleans()):
            sm |= 1 << a
    out = _reference_shape(shape, begin, end, strides, bm, em, sm)
    if 0 in out:
        return   # empty outputs are refused (test_bad_slices_are_refused)
    tmp = tmp_path_factory.mktemp("slice")
    dtype = data.draw(st.sampled_from(["int8", "int16"]))
    check(slice_model(shape, begin, end, strides, bm, em, sm, out_shape=out, dtype=dtype), tmp, shape,
          seed=hash((shape, tuple(begin))) % 2 ** 32, dtype=dtype)


@pytest.mark.parametrize("kwargs, match", [
    (dict(ellipsis=1, out_shape=(4, 6)), "ellipsis_mask 1 is not supported"),
    (dict(new_axis=1, out_shape=(1, 4, 6)), "new_axis_mask 1 is not supported"),
    (dict(strides=[0, 1], out_shape=(4, 6)), "stride 0 on axis 0"),
    (dict(begin=[2, 0], end=[2, 6], out_shape=(0, 6)), "axis 0 selects no elements"),
    (dict(begin=[1, 0], strides=[-1, 1], shrink=1, out_shape=(6,)), "shrink_axis_mask on axis 0 with stride -1"),
    (dict(out_shape=(4, 5)), r"output tensor 4 has shape \(4, 5\), the op computes \(4, 6\)"),
])
def test_bad_slices_are_refused(kwargs, match, tmp_path):
    args = dict(shape=(4, 6), begin=[0, 0], end=[4, 6], strides=[1, 1])
    args.update(kwargs)
    model = load(slice_model(**args), tmp_path)
    with pytest.raises(UnsupportedModel, match=r"op 0 \(STRIDED_SLICE\): " + match):
        ap.plan(model)


def test_slice_params_are_checked(tmp_path):
    model = load(slice_model((4, 6), [1, 0], [3, 6], [1, 2]), tmp_path)
    (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    spec = kernel.spec
    assert spec["begin"] == [0, 0, 0, 1, 0] and spec["output_shape"] == [1, 1, 1, 2, 3]
    code = kernel.code
    with pytest.raises(ValueError, match=r"strided_slice: axis 4 reads indices 0 to 6 \(stride 2\)"):
        _core.kernel_variants(code, dict(spec, output_shape=[1, 1, 1, 2, 4]))
    with pytest.raises(ValueError, match=r"strided_slice: axis 3 reads indices -1 to 0"):
        _core.kernel_variants(code, dict(spec, begin=[0, 0, 0, -1, 0]))
    with pytest.raises(ValueError, match="strided_slice: axis 2 has stride 0"):
        _core.kernel_variants(code, dict(spec, stride=[1, 1, 0, 1, 2]))
    with pytest.raises(ValueError, match="strided_slice: axis 0 has input size 0"):
        _core.kernel_variants(code, dict(spec, input_shape=[0, 1, 1, 4, 6]))
