"""BATCH_MATMUL on int8, 16x8 (int16 x int16, int64 sums) and float32 (batch_matmul.c): one-op
.tflite models built with the flatbuffer schema (ranks 2 to 5, batch dimensions broadcast either
way, size-1 dimensions, adj_x / adj_y, a constant RHS or LHS, zero points at the ends, sums that
saturate the output), both variants (direct, packed) on every instruction set this host runs
(arm-dsp by its instructions' C definitions) inside a verified plan, bit-exact with LiteRT's
reference kernels (BUILTIN_REF) and TensorFlow Lite Micro's interpreter; hypothesis over shapes
and options; the poisoned arena; the packed variant's scratch exactly and one byte short through
the C API; bad models refused naming the op."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from poisoned_arena import poisoned_run
from test_comparisons import tflm_run
from unary_s8 import host_isas, load

sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
from ops_harness import Guarded, guarded_from, message, scratch_for, variants  # noqa: E402

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
VARIANTS = ["direct", "packed"]
#: (scale, zero point) of LHS, RHS and output by type.
QUANT = {"int8": ((0.05, 3), (0.02, -5), (0.1, -7)), "int16": ((0.05, 0), (0.02, 0), (30.0, 0)),
         "float32": (None, None, None)}


def out_shape(ls, rs, adj_x=False, adj_y=False):
    rank = max(len(ls), len(rs))
    le, re_ = (1,) * (rank - len(ls)) + tuple(ls), (1,) * (rank - len(rs)) + tuple(rs)
    batch = tuple(max(a, b) for a, b in zip(le[:-2], re_[:-2]))
    return batch + ((le[-1] if adj_x else le[-2]), (re_[-2] if adj_y else re_[-1]))


def bmm_model(dtype, ls, rs, adj_x=False, adj_y=False, qs=None, lhs=None, rhs=None, y_shape=None, y_dtype=None,
              rhs_dtype=None) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = S.BatchMatMulOptionsT()
    o.adjX, o.adjY = bool(adj_x), bool(adj_y)
    qs = QUANT[dtype] if qs is None else qs
    q = [dict(scale=s, zero_point=z) if s is not None else {} for s, z in ((q or (None, 0)) for q in qs)]
    y_shape = out_shape(ls, rs, adj_x, adj_y) if y_shape is None else y_shape
    tensors = [dict(shape=ls, dtype=dtype, data=lhs, **q[0]), dict(shape=rs, dtype=rhs_dtype or dtype, data=rhs, **q[1]),
               dict(shape=y_shape, dtype=y_dtype or dtype, **q[2])]
    return L.single_op_model("BATCH_MATMUL", tensors, [0, 1], [2], "BatchMatMulOptions", o, version=1)


def values(dtype, shape, rng, kind):
    """Random values of the type; "edges": the type's ends only (sums that saturate)."""
    if dtype == "float32":
        v = rng.standard_normal(shape) * 10.0 ** rng.uniform(-2, 2, size=shape)
        return v.astype(np.float32)
    info = np.iinfo(dtype)
    if kind == "edges":
        return rng.choice(np.array([info.min, info.max, info.min + 1, 0, -1], dtype), size=shape)
    return rng.integers(info.min, info.max + 1, size=shape).astype(dtype)


def feeds(dtype, shapes, seed):
    rng = np.random.default_rng(seed)
    return [[values(dtype, s, rng, kind) for s in shapes] for kind in ("random", "random", "edges")]


def check(content, tmp_path, xs, tflm=True):
    """Every variant on every host ISA and arm-dsp, in a verified plan, equals LiteRT (and
    TensorFlow Lite Micro); the poisoned arena on the first feed."""
    model = load(content, tmp_path)
    wants = [w[0] for w in L.run_sequence(content, xs)[0]]
    if tflm:
        for m, w in zip(tflm_run(content, xs), wants):
            np.testing.assert_array_equal(m, w, err_msg="TFLite Micro differs from LiteRT")
    for isa in host_isas() + ["arm-dsp"]:
        ctx = PlanContext.build(model, isa=isa, reference="litert")
        (kernel,) = ctx.kernels
        assert [v.name for v in kernel.variants] == VARIANTS and kernel.variants[0].scratch == ()
        for v in kernel.variants:
            p = ctx.make([v], "size")
            assert p.verify() and p.isa == isa
            it = ap.Interpreter(p)
            for x, want in zip(xs, wants):
                got = it.run(x if len(x) > 1 else x[0])
                assert got.dtype == want.dtype and got.shape == want.shape
                np.testing.assert_array_equal(got, want, err_msg=f"{v.name} on {isa}")
    poisoned_run(model, xs[0] if len(xs[0]) > 1 else xs[0][0])
    return model


#: (LHS shape, RHS shape, adj_x, adj_y)
CASES = [
    ((2, 3, 4), (4, 5), False, False),           # RHS broadcast over the batch
    ((3, 4), (2, 4, 5), False, False),           # LHS broadcast
    ((2, 1, 3, 4), (3, 4, 5), False, False),     # both ways
    ((2, 1, 2, 3, 7), (1, 3, 1, 7, 5), False, False),   # rank 5
    ((2, 4, 3), (2, 4, 5), True, False),
    ((2, 3, 4), (2, 5, 4), False, True),
    ((2, 4, 3), (5, 4), True, True),
    ((1, 1), (1, 1), False, False),              # size-1 everything
    ((1, 1, 9), (9, 1), False, False),
    ((4, 1, 33), (1, 33, 6), False, False),       # an odd depth, n not a multiple of four
]


@needs_litert
@pytest.mark.parametrize("dtype", ["int8", "int16", "float32"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(dtype, case, tmp_path):
    ls, rs, ax, ay = CASES[case]
    check(bmm_model(dtype, ls, rs, ax, ay), tmp_path, feeds(dtype, [ls, rs], case))


@needs_litert
@pytest.mark.parametrize("dtype", ["int8", "int16", "float32"])
@pytest.mark.parametrize("which", ["rhs", "lhs"])
def test_constant_operand(dtype, which, tmp_path):
    """A constant RHS (weights) or a constant LHS: the other operand the graph's input."""
    rng = np.random.default_rng(3)
    ls, rs = (2, 3, 8), (8, 6)
    const = values(dtype, rs if which == "rhs" else ls, rng, "random")
    content = bmm_model(dtype, ls, rs, **{which: const})
    xs = [[values(dtype, ls if which == "rhs" else rs, rng, k)] for k in ("random", "edges")]
    check(content, tmp_path, xs)


@needs_litert
@pytest.mark.parametrize("lz,rz,oz", [(-128, 127, -128), (127, -128, 127), (0, 0, 0), (-128, -128, 127)])
def test_int8_zero_points_at_the_ends(lz, rz, oz, tmp_path):
    ls, rs = (2, 3, 16), (16, 5)
    for k, scales in enumerate([(0.05, 0.02, 0.1), (0.5, 0.5, 0.01), (1e-3, 2e-3, 1.0)]):
        qs = tuple(zip(scales, (lz, rz, oz)))
        sub = tmp_path / f"s{k}"
        sub.mkdir()
        check(bmm_model("int8", ls, rs, qs=qs), sub, feeds("int8", [ls, rs], k))


@needs_litert
def test_int16_large_sums(tmp_path):
    """int16 values at the ends over a depth of 300: sums beyond int32 (TFLite sums in int64)."""
    ls, rs = (1, 2, 300), (300, 3)
    x = [[np.full(ls, -32768, np.int16), np.full(rs, -32768, np.int16)],
         [np.full(ls, 32767, np.int16), np.full(rs, -32768, np.int16)]]
    for k, out_scale in enumerate([1e5, 3e6]):
        sub = tmp_path / f"s{k}"
        sub.mkdir()
        check(bmm_model("int16", ls, rs, qs=((0.05, 0), (0.02, 0), (out_scale, 0))), sub,
              x + feeds("int16", [ls, rs], k))


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    dtype = data.draw(st.sampled_from(["int8", "int16", "float32"]))
    lr, rr = data.draw(st.integers(2, 5)), data.draw(st.integers(2, 5))
    m, k, n = (data.draw(st.integers(1, 9)) for _ in range(3))
    rank = max(lr, rr)
    batch = [data.draw(st.integers(1, 3)) for _ in range(rank - 2)]
    lb = [b if data.draw(st.booleans()) else 1 for b in batch][rank - lr:]
    rb = [b if data.draw(st.booleans()) else 1 for b in batch][rank - rr:]
    ax, ay = data.draw(st.booleans()), data.draw(st.booleans())
    ls = tuple(lb) + ((k, m) if ax else (m, k))
    rs = tuple(rb) + ((n, k) if ay else (k, n))
    check(bmm_model(dtype, ls, rs, ax, ay), tmp_path_factory.mktemp("b"), feeds(dtype, [ls, rs], m * 100 + k * 10 + n),
          tflm=False)


# --- the C API: exactly the scratch, one byte short ----------------------------------------------
@pytest.mark.parametrize("dtype", ["int8", "int16", "float32"])
def test_packed_scratch(dtype, ffi, lib, tmp_path):
    """Each variant, given exactly its scratch between guard bytes, writes the Interpreter's
    output; the packed one with either buffer one byte short is AP_ERR_SCRATCH_TOO_SMALL naming
    both sizes and writes nothing."""
    ls, rs = (2, 3, 7), (7, 5)
    model = load(bmm_model(dtype, ls, rs), tmp_path)
    (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    p = ffi.new("ap_batch_matmul_params *")
    for key, value in kernel.spec.items():
        setattr(p, key, value)
    rng = np.random.default_rng(5)
    a, b = values(dtype, ls, rng, "random"), values(dtype, rs, rng, "random")
    want = ap.Interpreter(ap.plan(model, mode="size")).run([a, b]).reshape(-1)
    fns = {"int8": (lib.ap_batch_matmul_s8_variants, lib.ap_batch_matmul_s8_run),
           "int16": (lib.ap_batch_matmul_s16_variants, lib.ap_batch_matmul_s16_run),
           "float32": (lib.ap_batch_matmul_f32_variants, lib.ap_batch_matmul_f32_run)}[dtype]
    for isa in (lib.AP_ISA_PORTABLE, lib.AP_ISA_ARM_DSP):
        listed = variants(ffi, lib, fns[0], p, isa)
        assert [ffi.string(v.name).decode() for v in listed] == VARIANTS
        for v in listed:
            for short in ([None, 0, 1] if v.scratch_count else [None]):
                ia, ib = guarded_from(ffi, a), guarded_from(ffi, b)
                out = Guarded(ffi, want.nbytes, fill=0x5A)
                before = out.payload.copy()
                scr, bufs = scratch_for(ffi, v, short)
                call = ffi.new("ap_op_call *")
                ins = ffi.new("void *[]", [ia.ptr, ib.ptr])
                call.params, call.variant, call.inputs, call.input_count = p, v, ins, 2
                call.output, call.scratch, call.scratch_count = out.ptr, scr, v.scratch_count
                err = ffi.new("ap_error *")
                status = fns[1](call, isa, err)
                assert ia.intact() and ib.intact() and out.intact() and all(g.intact() for g in bufs)
                if short is None:
                    assert status == lib.AP_OK, message(ffi, err)
                    np.testing.assert_array_equal(out.view(want.dtype), want)
                else:
                    need = v.scratch[short].bytes
                    assert status == lib.AP_ERR_SCRATCH_TOO_SMALL
                    assert err.needed == need and err.available == need - 1, message(ffi, err)
                    np.testing.assert_array_equal(out.payload, before)


# --- bad models ------------------------------------------------------------------------------------
def test_refusals_name_the_op(tmp_path):
    cases = [
        (bmm_model("int8", (2, 3, 4), (3, 4, 5), y_shape=(2, 3, 5)),
         r"op 0 \(BATCH_MATMUL\): batch dimension 0 does not broadcast: LHS \(2, 3, 4\), RHS \(3, 4, 5\)"),
        (bmm_model("float32", (3, 4), (5, 6), y_shape=(3, 6)),
         r"op 0 \(BATCH_MATMUL\): the summed dimensions differ: LHS \(3, 4\) \(adj_x False\) gives 4, RHS \(5, 6\) "
         r"\(adj_y False\) gives 5"),
        (bmm_model("float32", (1, 1, 1, 1, 3, 4), (4, 5), y_shape=(1, 1, 1, 1, 3, 5)),
         r"op 0 \(BATCH_MATMUL\): LHS has rank 6; TFLite's BATCH_MATMUL takes ranks 2 to 5"),
        (bmm_model("float32", (4,), (4, 5), y_shape=(5,)),
         r"op 0 \(BATCH_MATMUL\): LHS has rank 1"),
        (bmm_model("float32", (3, 4), (4, 5), qs=(None, (0.1, 0), None), rhs_dtype="int8"),
         r"op 0 \(BATCH_MATMUL\): RHS tensor 1 is int8, LHS float32 \(the hybrid float32 x int8 form"),
        (bmm_model("int8", (3, 4), (4, 5), qs=((0.1, 0), (0.1, 0), (0.1, 0)), y_dtype="int32"),
         r"op 0 \(BATCH_MATMUL\): output tensor 2 is int32, LHS int8; TFLite requires one type \(no int32 output\)"),
        (bmm_model("int16", (3, 4), (4, 5), qs=((0.1, 3), (0.1, 0), (0.1, 0))),
         r"op 0 \(BATCH_MATMUL\): LHS tensor 0 .* is int16 with zero point 3; TFLite's 16x8 kernels require 0"),
        (bmm_model("int32", (3, 4), (4, 5), qs=(None, None, None)),
         r"op 0 \(BATCH_MATMUL\): input 0 \(tensor 0\) is int32; arenaplan's BATCH_MATMUL takes int8, int16, float32"),
        (bmm_model("float32", (3, 4), (4, 5), y_shape=(3, 4)),
         r"op 0 \(BATCH_MATMUL\): output tensor 2 has shape \(3, 4\), the op computes \(3, 5\)"),
        (bmm_model("float32", (3, 4), (4, 5), lhs=np.ones((3, 4), np.float32), rhs=np.ones((4, 5), np.float32)),
         r"op 0 \(BATCH_MATMUL\): both inputs are constants"),
    ]
    for k, (content, pattern) in enumerate(cases):
        with pytest.raises(UnsupportedModel, match=pattern):
            ap.plan(load(content, tmp_path, f"m{k}"))


def test_kernel_checks_its_params():
    from arenaplan import _core
    code = {r["name"]: r["code"] for r in _core.ops()}["BATCH_MATMUL"]
    spec = {"lhs_batch": [1, 1, 2], "rhs_batch": [1, 1, 1], "rows": 3, "depth": 4, "cols": 5, "adj_x": 0,
            "adj_y": 0, "lhs_offset": 0, "rhs_offset": 0, "output_offset": 0, "output_multiplier": 1 << 30,
            "output_shift": -3, "activation_min": -128, "activation_max": 127}
    assert len(_core.kernel_variants(code, spec)) == 2
    with pytest.raises(ValueError, match=r"batch_matmul: batch dimension 2 does not broadcast \(2 and 3\)"):
        _core.kernel_variants(code, dict(spec, rhs_batch=[1, 1, 3]))
    with pytest.raises(ValueError, match=r"batch_matmul: rows 0, depth 4 and cols 5 must be >= 1"):
        _core.kernel_variants(code, dict(spec, rows=0))
    with pytest.raises(ValueError):
        _core.kernel_variants(code, dict(spec, rows=2 ** 20, depth=2 ** 20))
    with pytest.raises(ValueError, match=r"activation range"):
        _core.kernel_variants(code, dict(spec, activation_max=128))
