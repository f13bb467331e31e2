"""EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL on int8, float32, int32 and bool, and
LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT on bool (one kernel file: compare.c): one-op .tflite models
built with the flatbuffer schema (4-D broadcasting both ways, scalars, size-1 dimensions, int8
inputs quantised unlike each other with zero points at the ends, float32 NaN, infinities and
-0.0), the direct variant on every instruction set this host runs inside a verified plan, bit-exact
with LiteRT's reference kernels (BUILTIN_REF) and TensorFlow Lite Micro's interpreter; hypothesis
over shapes, ops and types; the poisoned-arena property; in place through the C API; refusals
naming the op (mixed input types, a non-bool output, scales TFLite rejects, shapes that do not
broadcast, types without a row) and bad params by the C kernel."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from poisoned_arena import poisoned_run
from unary_s8 import host_isas, load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
COMPARISONS = ["EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL"]
LOGICAL = ["LOGICAL_AND", "LOGICAL_OR", "LOGICAL_NOT"]
#: The types each op has a row for.
TYPES = {**{op: ["int8", "float32", "int32"] + (["bool"] if op in ("EQUAL", "NOT_EQUAL") else []) for op in COMPARISONS},
         **{op: ["bool"] for op in LOGICAL}}


def compare_model(op, dtype, a_shape, b_shape=None, qs=((0.05, 3), (0.1, -7)), y_shape=None, y_dtype="bool",
                  b_dtype=None) -> bytes:
    unary = op == "LOGICAL_NOT"
    if y_shape is None:
        y_shape = tuple(a_shape) if unary else tuple(np.broadcast_shapes(a_shape, b_shape))
    q = [dict(scale=s, zero_point=z) if dtype == "int8" else {} for s, z in qs]
    tensors = [dict(shape=a_shape, dtype=dtype, **q[0])]
    if not unary:
        tensors.append(dict(shape=b_shape, dtype=b_dtype or dtype, **q[1]))
    tensors.append(dict(shape=y_shape, dtype=y_dtype))
    ins = [0] if unary else [0, 1]
    return L.single_op_model(op, tensors, ins, [len(tensors) - 1], None, None, version=1)


def values(dtype, shape, rng):
    """Random values with the type's edges: int8 -128 and 127 (and values equal across inputs),
    float32 NaN, +-inf, -0.0 and 0.0 among small halves (so equal values occur)."""
    n = int(np.prod(shape))
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype == "int8":
        v = rng.integers(-128, 128, size=n)
        v[:min(n, 4)] = [-128, 127, 0, -1][:min(n, 4)]
        return v.astype(np.int8).reshape(shape)
    if dtype == "int32":
        v = rng.integers(-4, 4, size=n).astype(np.int64)
        v[:min(n, 2)] = [-2 ** 31, 2 ** 31 - 1][:min(n, 2)]
        return v.astype(np.int32).reshape(shape)
    v = (rng.integers(-4, 4, size=n) / 2).astype(np.float32)
    edges = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5], np.float32)
    v[:min(n, 6)] = edges[:min(n, 6)]
    return v[rng.permutation(n)].reshape(shape)


def feeds(op, dtype, a_shape, b_shape, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(3):
        a = values(dtype, a_shape, rng)
        out.append([a] if op == "LOGICAL_NOT" else [a, values(dtype, b_shape, rng)])
    if dtype == "int8" and op != "LOGICAL_NOT":   # every int8 value against the ends
        out.append([np.resize(np.arange(-128, 128, dtype=np.int8), a_shape), np.full(b_shape, -128, np.int8)])
        out.append([np.full(a_shape, 127, np.int8), np.resize(np.arange(127, -129, -1, dtype=np.int8), b_shape)])
    return out


def tflm_run(content, xs):
    from tflite_micro.python.tflite_micro import runtime
    micro = runtime.Interpreter.from_bytes(content, arena_size=1 << 20)
    out = []
    for x in xs:
        for i, v in enumerate(x):
            micro.set_input(v, i)
        micro.invoke()
        out.append(np.array(micro.get_output(0)))
    return out


def check(content, tmp_path, op, xs, tflm=True, reference="litert", litert=True):
    """Every host ISA's direct variant in a verified plan equals LiteRT (and TFLite Micro) on xs
    (TFLite Micro alone without ``litert``); the poisoned arena on the first feed."""
    model = load(content, tmp_path)
    wants = [w[0] for w in L.run_sequence(content, xs)[0]] if litert else tflm_run(content, xs)
    if tflm and litert:
        for m, w in zip(tflm_run(content, xs), wants):
            np.testing.assert_array_equal(m, w, err_msg=f"{op}: TFLite Micro differs from LiteRT")
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference=reference)
        (kernel,) = ctx.kernels
        assert [v.name for v in kernel.variants] == ["direct"] and kernel.variants[0].scratch == ()
        p = ctx.make([kernel.variants[0]], "size")
        assert p.verify() and p.isa == isa
        it = ap.Interpreter(p)
        for x, want in zip(xs, wants):
            got = it.run(x if len(x) > 1 else x[0])
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want, err_msg=f"{op} on {isa}")
    poisoned_run(model, xs[0] if len(xs[0]) > 1 else xs[0][0])
    return model


#: (a shape, b shape)
CASES = [
    ((1, 4, 5, 3), (1, 4, 5, 3)),
    ((3, 1, 8), (1, 5, 1)),          # broadcast both ways
    ((2, 7), (7,)),
    ((17,), (1,)),                   # a scalar
    ((1,), (3, 4)),
    ((1, 1, 1, 1), (1, 1, 1, 1)),
    ((2, 3, 4, 5), (2, 1, 4, 1)),
]


@needs_litert
@pytest.mark.parametrize("op,dtype", [(op, t) for op in COMPARISONS + LOGICAL for t in TYPES[op]])
@pytest.mark.parametrize("case", [0, 1, 3, 6])
def test_matches_litert_and_tflm(op, dtype, case, tmp_path):
    a, b = CASES[case]
    check(compare_model(op, dtype, a, b), tmp_path, op, feeds(op, dtype, a, b, case))


@needs_litert
@pytest.mark.parametrize("op", COMPARISONS)
@pytest.mark.parametrize("qs", [((0.05, 3), (0.1, -7)), ((0.5, -128), (0.003, 127)), ((0.02, 0), (0.02, 0)),
                                ((0.999, 127), (1e-6, -128))])
def test_int8_scales_and_zero_points(op, qs, tmp_path):
    """Inputs quantised unlike each other (TFLite compares the rescaled values, not the stored
    ones), zero points at the ends, scales near 1 and tiny."""
    a, b = (4, 64), (1, 64)
    check(compare_model(op, "int8", a, b, qs=qs), tmp_path, op, feeds(op, "int8", a, b, 11))


@needs_litert
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    full = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    a = tuple(d if data.draw(st.booleans()) else 1 for d in full)
    b = tuple(d if data.draw(st.booleans()) else 1 for d in full)
    b = b[data.draw(st.integers(0, rank - 1)):]
    op = data.draw(st.sampled_from(COMPARISONS + LOGICAL))
    dtype = data.draw(st.sampled_from(TYPES[op]))
    qs = ((data.draw(st.floats(1e-3, 0.9)), data.draw(st.integers(-128, 127))),
          (data.draw(st.floats(1e-3, 0.9)), data.draw(st.integers(-128, 127))))
    content = compare_model(op, dtype, a, b, qs=qs)
    check(content, tmp_path_factory.mktemp("cmp"), op, feeds(op, dtype, a, b, sum(full)), tflm=False)


def test_rows_and_in_place():
    """One row per op and type; int8 and bool rows may write over an input of the output's
    shape (one byte an element), float32 and int32 rows never."""
    rows = {(r["name"], r["types"]) for r in _core.ops()}
    for op in COMPARISONS + LOGICAL:
        for dtype in TYPES[op]:
            assert (op, {"int8": "s8", "float32": "f32", "int32": "s32", "bool": "bool"}[dtype]) in rows
    for dtype, in_place in (("int8", True), ("bool", True), ("float32", False), ("int32", False)):
        from arenaplan.ops.coverage import _compare
        (kernel,) = PlanContext.build(_compare("EQUAL", dtype), isa="portable", reference="litert").kernels
        assert kernel.variants[0].in_place is in_place, dtype


def test_in_place_through_the_c_api(ffi, lib, tmp_path):
    """int8 LESS written over its full-shape input gives the Interpreter's output."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
    from ops_harness import Guarded, guarded_from, message, variants
    a_shape, b_shape = (3, 8), (8,)
    model = load(compare_model("LESS", "int8", a_shape, b_shape), tmp_path)
    (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    p = ffi.new("ap_compare_params *")
    for key, value in kernel.spec.items():
        setattr(p, key, value)
    (v,) = variants(ffi, lib, lib.ap_compare_variants, p)
    assert v.in_place == 1 and v.scratch_count == 0
    xs = feeds("LESS", "int8", a_shape, b_shape, 3)[0]
    want = ap.Interpreter(ap.plan(model)).run(xs).reshape(-1)
    for in_place in (False, True):
        a, b = guarded_from(ffi, xs[0].reshape(-1)), guarded_from(ffi, xs[1].reshape(-1))
        out = a if in_place else Guarded(ffi, want.size, fill=0x5A)
        call = ffi.new("ap_op_call *")
        ins = ffi.new("void *[]", [a.ptr, b.ptr])
        call.params, call.variant, call.inputs, call.input_count, call.output = p, v, ins, 2, out.ptr
        err = ffi.new("ap_error *")
        assert lib.ap_less_s8_run(call, lib.AP_ISA_PORTABLE, err) == lib.AP_OK, message(ffi, err)
        assert a.intact() and b.intact() and out.intact()
        np.testing.assert_array_equal(out.view(np.uint8), want.view(np.uint8))


def test_refusals_name_the_op(tmp_path):
    cases = [
        (compare_model("EQUAL", "int8", (3, 4), (2, 4), y_shape=(3, 4)),
         r"op 0 \(EQUAL\): shapes \(3, 4\) and \(2, 4\) do not broadcast"),
        (compare_model("LESS", "int8", (3, 4), (3, 4), b_dtype="float32"),
         r"op 0 \(LESS\): input2 tensor 1 is float32, input1 int8; TFLite requires one type"),
        (compare_model("GREATER", "float32", (3, 4), (3, 4), y_dtype="int8"),
         r"op 0 \(GREATER\): output tensor 2 is int8; GREATER writes bool"),
        (compare_model("LESS", "int8", (3, 4), (3, 4), qs=((1.5, 0), (0.1, 0))),
         r"op 0 \(LESS\): input1 tensor 0 has scale 1.5; TFLite's int8 LESS requires a scale below 1"),
        (compare_model("GREATER", "bool", (3, 4), (3, 4)),
         r"op 0 \(GREATER\): input 0 \(tensor 0\) is bool; arenaplan's GREATER takes int8, float32, int32, int64, "
         r"int16"),
        (compare_model("LOGICAL_AND", "int8", (3, 4), (3, 4)),
         r"op 0 \(LOGICAL_AND\): input 0 \(tensor 0\) is int8; arenaplan's LOGICAL_AND takes bool"),
        (compare_model("EQUAL", "int16", (3, 4), (3, 4)),
         r"op 0 \(EQUAL\): input1 tensor 0 \('t0'\) has no quantisation"),
        (compare_model("EQUAL", "float32", (1, 2, 1, 2, 1), (2, 1, 2, 1, 2)),
         r"op 0 \(EQUAL\): the broadcast shape \(2, 2, 2, 2, 2\) has rank 5; at most 4 is supported"),
    ]
    for k, (content, pattern) in enumerate(cases):
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, f"m{k}"))


def test_kernel_checks_its_params(tmp_path):
    model = load(compare_model("EQUAL", "int8", (3, 4), (1, 4)), tmp_path)
    (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    with pytest.raises(ValueError, match=r"compare: dimension 2 does not broadcast \(3 and 1 -> 2\)"):
        _core.kernel_variants(kernel.code, dict(kernel.spec, output_shape=[1, 1, 2, 4]))
