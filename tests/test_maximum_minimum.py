"""int8 MAXIMUM and MINIMUM (one kernel file: elementwise_s8.c, one params struct): one-op
.tflite models built with the flatbuffer schema (4-D broadcasting both ways, a scalar, size-1
dimensions, inputs and output quantised unlike each other, which TFLite compares as stored),
the direct variant on every instruction set this host runs inside a verified plan, bit-exact
with LiteRT's reference kernels (BUILTIN_REF) and TensorFlow Lite Micro's interpreter;
hypothesis over shapes; in place over an input of the output's shape through the C API; the
poisoned-arena property; shapes that do not broadcast refused naming the op, and bad params by
the C kernel."""
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
from unary_s8 import host_isas, load, tflm_outputs

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
OPS = ["MAXIMUM", "MINIMUM"]


def minmax_model(op, a_shape, b_shape, y_shape=None, qs=((0.02, -3), (0.02, -3), (0.02, -3))) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    if y_shape is None:
        y_shape = tuple(np.broadcast_shapes(a_shape, b_shape))
    tensors = [dict(shape=s, dtype="int8", scale=q[0], zero_point=q[1])
               for s, q in zip((a_shape, b_shape, y_shape), qs)]
    return L.single_op_model(op, tensors, [0, 1], [2], "MaximumMinimumOptions", S.MaximumMinimumOptionsT(), version=2)


def feeds(a_shape, b_shape, seed):
    rng = np.random.default_rng(seed)
    out = [[rng.integers(-128, 128, size=a_shape, dtype=np.int8), rng.integers(-128, 128, size=b_shape, dtype=np.int8)]
           for _ in range(2)]
    out.append([np.full(a_shape, 127, np.int8), np.full(b_shape, -128, np.int8)])
    out.append([np.full(a_shape, -128, np.int8), np.resize(np.arange(-128, 128, dtype=np.int8), b_shape)])
    return out


def check(content, tmp_path, a_shape, b_shape, op, seed=0, tflm=False):
    model = load(content, tmp_path)
    xs = feeds(a_shape, b_shape, seed)
    wants = L.run_sequence(content, xs)[0]
    y_shape = wants[0][0].shape
    if tflm:
        micro = tflm_outputs_two(content, xs)
        for m, w in zip(micro, wants):
            np.testing.assert_array_equal(m, w[0])
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference="litert")
        (kernel,) = ctx.kernels
        assert [v.name for v in kernel.variants] == ["direct"] and kernel.variants[0].scratch == ()
        # in place over an input that holds the output's elements in its order
        assert kernel.variants[0].in_place == (int(np.prod(a_shape)) == int(np.prod(y_shape)) or
                                               int(np.prod(b_shape)) == int(np.prod(y_shape)))
        p = ctx.make([kernel.variants[0]], "size")
        assert p.verify() and p.isa == isa
        it = ap.Interpreter(p)
        for x, want in zip(xs, wants):
            got = it.run(x)
            assert got.dtype == np.int8 and got.shape == want[0].shape
            np.testing.assert_array_equal(got, want[0], err_msg=f"{op} on {isa}")
    poisoned_run(model, xs[0])
    return model


def tflm_outputs_two(content, xs):
    from tflite_micro.python.tflite_micro import runtime
    micro = runtime.Interpreter.from_bytes(content, arena_size=1 << 20)
    out = []
    for a, b in xs:
        micro.set_input(a, 0)
        micro.set_input(b, 1)
        micro.invoke()
        out.append(np.array(micro.get_output(0)))
    return out


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
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(op, case, tmp_path):
    a, b = CASES[case]
    check(minmax_model(op, a, b), tmp_path, a, b, op, seed=case, tflm=True)


@needs_litert
@pytest.mark.parametrize("op", OPS)
def test_quantisations_that_differ_are_compared_as_stored(op, tmp_path):
    qs = ((0.05, 3), (0.1, -128), (0.2, 127))
    check(minmax_model(op, (4, 6), (1, 6), qs=qs), tmp_path, (4, 6), (1, 6), op, tflm=True)


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    full = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    a = tuple(d if data.draw(st.booleans()) else 1 for d in full)
    b = tuple(d if data.draw(st.booleans()) else 1 for d in full)
    b = b[data.draw(st.integers(0, rank - 1)):]
    op = data.draw(st.sampled_from(OPS))
    check(minmax_model(op, a, b), tmp_path_factory.mktemp("mm"), a, b, op, seed=sum(full))


@pytest.mark.parametrize("op", OPS)
def test_in_place_through_the_c_api(op, ffi, lib, tmp_path):
    """The direct variant writes the output over the input of the output's shape (either
    input), giving the Interpreter's output."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
    from ops_harness import Guarded, guarded_from, message, variants
    for first_full in (True, False):
        a_shape, b_shape = ((3, 8), (8,)) if first_full else ((8,), (3, 8))
        model = load(minmax_model(op, a_shape, b_shape), tmp_path, f"m{first_full}")
        (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
        p = ffi.new("ap_minmax_params *")
        for key, value in kernel.spec.items():
            setattr(p, key, value)
        fns = (lib.ap_maximum_s8_variants, lib.ap_maximum_s8_run) if op == "MAXIMUM" else \
            (lib.ap_minimum_s8_variants, lib.ap_minimum_s8_run)
        (v,) = variants(ffi, lib, fns[0], p)
        assert v.in_place == 1 and v.scratch_count == 0
        xs = feeds(a_shape, b_shape, 3)[0]
        want = ap.Interpreter(ap.plan(model)).run(xs).reshape(-1)
        for in_place in (False, True):
            a, b = guarded_from(ffi, xs[0].reshape(-1)), guarded_from(ffi, xs[1].reshape(-1))
            full = a if first_full else b
            out = full if in_place else Guarded(ffi, want.size, fill=0x5A)
            call = ffi.new("ap_op_call *")
            ins = ffi.new("void *[]", [a.ptr, b.ptr])
            call.params, call.variant, call.inputs, call.input_count, call.output = p, v, ins, 2, out.ptr
            err = ffi.new("ap_error *")
            assert fns[1](call, lib.AP_ISA_PORTABLE, err) == lib.AP_OK, message(ffi, err)
            assert a.intact() and b.intact() and out.intact()
            np.testing.assert_array_equal(out.view(np.int8), want)


@pytest.mark.parametrize("op", OPS)
def test_bad_shapes_are_refused(op, tmp_path):
    model = load(minmax_model(op, (3, 4), (2, 4), (3, 4)), tmp_path)
    with pytest.raises(UnsupportedModel, match=rf"op 0 \({op}\): shapes \(3, 4\) and \(2, 4\) do not broadcast"):
        ap.plan(model)
    model = load(minmax_model(op, (3, 4), (1, 4), (3, 4)), tmp_path, "ok")
    (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    with pytest.raises(ValueError, match=rf"{op.lower()}: dimension 2 does not broadcast \(3 and 1 -> 2\)"):
        _core.kernel_variants(kernel.code, dict(kernel.spec, output_shape=[1, 1, 2, 4]))
