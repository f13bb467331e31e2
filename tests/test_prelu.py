"""int8 PRELU (elementwise_s8.c on ADD's broadcast walk): one-op .tflite models built with the
flatbuffer schema (per-channel alpha as the converter writes it, a scalar alpha, alpha of the
input's shape, alpha fed as a second graph input, zero points at both ends, negative alphas and
alphas beyond one, saturation), the direct variant on every instruction set this host runs inside
a verified plan, bit-exact with LiteRT's reference kernels (BUILTIN_REF, reference "litert":
float32 multipliers) and TensorFlow Lite Micro's interpreter (reference "tflm": double);
hypothesis over shapes and quantisations under both rules; in place over the input through the
C API; the poisoned-arena property; an alpha that does not broadcast refused naming the op."""
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
from unary_s8 import host_isas, load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))


def prelu_model(shape, alpha_shape, qx=(0.05, -3), qa=(0.01, 0), qy=(0.04, 5), alpha=None, seed=0,
                alpha_input=False, out=None) -> bytes:
    if alpha is None and not alpha_input:
        alpha = np.random.default_rng(seed).integers(-128, 128, size=alpha_shape, dtype=np.int8)
    tensors = [dict(shape=shape, dtype="int8", scale=qx[0], zero_point=qx[1]),
               dict(shape=alpha_shape, dtype="int8", scale=qa[0], zero_point=qa[1],
                    data=None if alpha_input else np.asarray(alpha, np.int8).reshape(alpha_shape)),
               dict(shape=out or shape, dtype="int8", scale=qy[0], zero_point=qy[1])]
    return L.single_op_model("PRELU", tensors, [0, 1], [2], version=1)


def feeds(shapes, seed):
    rng = np.random.default_rng(seed)
    out = [[rng.integers(-128, 128, size=s, dtype=np.int8) for s in shapes] for _ in range(2)]
    out.append([np.resize(np.arange(-128, 128, dtype=np.int8), s) for s in shapes])
    out.append([np.full(s, v, np.int8) for s, v in zip(shapes, (-128, 127))])
    out.append([np.full(s, v, np.int8) for s, v in zip(shapes, (127, -128))])
    return out


def tflm_run(content, xs):
    from tflite_micro.python.tflite_micro import runtime
    micro = runtime.Interpreter.from_bytes(content, arena_size=1 << 20)
    outs = []
    for x in xs:
        for i, v in enumerate(x):
            micro.set_input(v, i)
        micro.invoke()
        outs.append([np.array(micro.get_output(0))])
    return outs


def check(content, tmp_path, shapes, seed=0, references=("litert", "tflm")):
    model = load(content, tmp_path)
    xs = feeds(shapes, seed)
    wants = {}
    if "litert" in references:
        wants["litert"] = L.run_sequence(content, xs)[0]
    if "tflm" in references:
        wants["tflm"] = tflm_run(content, xs)
    for isa in host_isas():
        for reference, outs in wants.items():
            ctx = PlanContext.build(model, isa=isa, reference=reference)
            (kernel,) = ctx.kernels
            assert [v.name for v in kernel.variants] == ["direct"] and kernel.variants[0].in_place
            p = ctx.make([kernel.variants[0]], "size")
            assert p.verify() and p.isa == isa
            it = ap.Interpreter(p)
            for x, want in zip(xs, outs):
                got = it.run(x if len(x) > 1 else x[0])
                assert got.dtype == np.int8 and got.shape == want[0].shape
                np.testing.assert_array_equal(got, want[0], err_msg=f"{isa}, {reference}")
    poisoned_run(model, xs[0] if len(xs[0]) > 1 else xs[0][0])
    return model


#: (input shape, alpha shape, input q, alpha q, output q)
CASES = [
    ((1, 4, 4, 8), (1, 1, 8), (0.05, -3), (0.01, 0), (0.04, 5)),           # per channel, as converted
    ((1, 4, 4, 8), (1,), (0.05, -3), (0.02, 10), (0.04, 5)),               # one alpha
    ((2, 3, 5), (2, 3, 5), (0.1, 127), (0.005, -128), (0.02, -128)),      # alpha of the input's shape
    ((3, 7), (7,), (0.02, -128), (0.03, 127), (0.01, 127)),                # zero points at the ends
    ((1, 2, 2, 3), (1, 1, 3), (0.3, 0), (0.1, 0), (0.001, 0)),            # saturating both ways
    ((4, 1, 6), (1, 1, 6), (0.004, 20), (0.05, -20), (0.05, 0)),          # alphas beyond one
]


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(case, tmp_path):
    shape, alpha_shape, qx, qa, qy = CASES[case]
    check(prelu_model(shape, alpha_shape, qx, qa, qy, seed=case), tmp_path, [shape], seed=case)


@needs_litert
def test_alpha_as_an_activation(tmp_path):
    check(prelu_model((1, 3, 3, 4), (1, 1, 4), alpha_input=True), tmp_path, [(1, 3, 3, 4), (1, 1, 4)])


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    shape = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    alpha_shape = tuple(d if data.draw(st.booleans()) else 1 for d in shape)[data.draw(st.integers(0, rank - 1)):]
    q = [(data.draw(st.floats(1e-3, 0.5)), data.draw(st.integers(-128, 127))) for _ in range(3)]
    check(prelu_model(shape, alpha_shape, *q, seed=rank), tmp_path_factory.mktemp("pr"), [shape], seed=rank)


def test_in_place_through_the_c_api(ffi, lib, tmp_path):
    sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
    from ops_harness import Guarded, guarded_from, message, variants
    model = load(prelu_model((3, 8), (8,)), tmp_path)
    (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    p = ffi.new("ap_prelu_params *")
    for key, value in kernel.spec.items():
        setattr(p, key, value)
    (v,) = variants(ffi, lib, lib.ap_prelu_s8_variants, p)
    assert v.in_place == 1 and v.scratch_count == 0
    x = feeds([(3, 8)], 1)[0][0]
    alpha = model.tensors[1].data
    want = ap.Interpreter(ap.plan(model)).run(x).reshape(-1)
    for in_place in (False, True):
        a, b = guarded_from(ffi, x.reshape(-1)), guarded_from(ffi, alpha.reshape(-1))
        out = a if in_place else Guarded(ffi, want.size, fill=0x5A)
        call = ffi.new("ap_op_call *")
        ins = ffi.new("void *[]", [a.ptr, b.ptr])
        call.params, call.variant, call.inputs, call.input_count, call.output = p, v, ins, 2, out.ptr
        err = ffi.new("ap_error *")
        assert lib.ap_prelu_s8_run(call, lib.AP_ISA_PORTABLE, err) == lib.AP_OK, message(ffi, err)
        assert a.intact() and b.intact() and out.intact()
        np.testing.assert_array_equal(out.view(np.int8), want)


def test_the_rules_differ_by_the_multipliers(tmp_path):
    """LiteRT's float32 quotients and TFLite Micro's double ones give other multipliers here."""
    model = load(prelu_model((4,), (1,), (0.1, 0), (0.3, 0), (0.7, 0)), tmp_path)
    specs = {r: PlanContext.build(model, isa="portable", reference=r).kernels[0].spec for r in ("litert", "tflm")}
    assert (specs["litert"]["multiplier_2"], specs["litert"]["shift_2"]) != \
        (specs["tflm"]["multiplier_2"], specs["tflm"]["shift_2"]) or \
        (specs["litert"]["multiplier_1"], specs["litert"]["shift_1"]) != \
        (specs["tflm"]["multiplier_1"], specs["tflm"]["shift_1"])


@pytest.mark.parametrize("alpha_shape, out, match", [
    ((3,), None, r"alpha of shape \(3,\) does not broadcast into the input \(2, 4\)"),
    ((2, 1), (2, 4), None),
    ((2, 4), (1, 4), r"alpha of shape \(2, 4\) .* giving the output \(1, 4\)"),
])
def test_bad_alpha_is_refused(alpha_shape, out, match, tmp_path):
    content = prelu_model((2, 4), alpha_shape, out=out)
    model = load(content, tmp_path)
    if match is None:
        assert ap.plan(model).verify()
        return
    with pytest.raises(UnsupportedModel, match=r"op 0 \(PRELU\): " + match):
        ap.plan(model)
