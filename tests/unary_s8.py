"""Helpers for the int8 ops that are a function of one int8 value (LEAKY_RELU, LOGISTIC,
TANH, HARD_SWISH; not a test module): one-op models, every variant on every host ISA
against LiteRT's reference kernels (reference "litert") or TensorFlow Lite Micro's
interpreter (reference "tflm"), in place, and the table variant's scratch through the C API
with exactly its bytes and with one byte too few."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import arenaplan as ap
from arenaplan.ops.lowering import HOST_ISA
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L

sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
from ops_harness import Guarded, guarded_from, message, scratch_for, variants  # noqa: E402

VARIANTS = ["direct", "table"]
#: What an op that carries its table in the params offers (LOGISTIC and TANH under "litert").
LOOKUP = ["lookup"]


def host_isas() -> list:
    return ["portable"] + (["x86-avx2"] if HOST_ISA == "x86-avx2" else [])


def unary_model(op: str, shape, xs: float, xz: int, ys: float, yz: int, options_type=None, options=None,
                version: int = 2) -> bytes:
    tensors = [dict(shape=shape, dtype="int8", scale=xs, zero_point=xz),
               dict(shape=shape, dtype="int8", scale=ys, zero_point=yz)]
    return L.single_op_model(op, tensors, [0], [1], options_type, options, version=version)


def load(content: bytes, tmp_path, name="m") -> ap.Model:
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(content)
    return ap.load_tflite(path)


def inputs(shape, seed: int) -> list:
    """Random int8 tensors, then every int8 value, then all -128 and all 127."""
    rng = np.random.default_rng(seed)
    xs = [rng.integers(-128, 128, size=shape, dtype=np.int8) for _ in range(2)]
    return xs + [np.resize(np.arange(-128, 128, dtype=np.int8), shape), np.full(shape, -128, np.int8),
                 np.full(shape, 127, np.int8)]


def tflm_outputs(content: bytes, xs: list) -> list:
    """[[output]] per input from TensorFlow Lite Micro's interpreter (the tflite-micro
    package), as run_sequence gives LiteRT's."""
    from tflite_micro.python.tflite_micro import runtime
    micro = runtime.Interpreter.from_bytes(content, arena_size=1 << 20)
    wants = []
    for x in xs:
        micro.set_input(x, 0)
        micro.invoke()
        wants.append([np.array(micro.get_output(0))])
    return wants


def check_every_variant(content: bytes, tmp_path, shape, seed: int = 0, op: str = None,
                        reference: str = "litert", names=VARIANTS) -> ap.Model:
    """Each variant on each host ISA in a verified plan equals LiteRT (or TFLite Micro, for
    reference "tflm") on ``inputs``; the variants are ``names``, all in place, and only the
    table asks for scratch (256 bytes)."""
    model = load(content, tmp_path)
    xs = inputs(shape, seed)
    wants = tflm_outputs(content, xs) if reference == "tflm" else L.run_sequence(content, [[x] for x in xs])[0]
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference=reference)
        (kernel,) = ctx.kernels
        assert [v.name for v in kernel.variants] == list(names)
        assert all(v.in_place for v in kernel.variants)
        assert all(v.scratch == (((256, 1),) if v.name == "table" else ()) for v in kernel.variants)
        for v in kernel.variants:
            p = ctx.make([v], "size")
            assert p.verify() and p.isa == isa and p.reference == reference
            it = ap.Interpreter(p)
            for x, want in zip(xs, wants):
                got = it.run(x)
                assert got.dtype == np.int8 and got.shape == want[0].shape
                np.testing.assert_array_equal(got, want[0].reshape(got.shape),
                                              err_msg=f"{op} {v.name} on {isa} ({reference})")
    return model


def check_one_variant(content: bytes, tmp_path, xs: list, name: str, *, tflm: bool = True,
                      code: int = None) -> ap.Model:
    """A one-input op whose row offers one variant, ``name``, with no scratch (and of op code
    ``code``, where given): on each of ``xs``, TensorFlow Lite Micro's outputs equal LiteRT's
    reference kernels' (``tflm``), and on every host ISA a verified plan of it gives them;
    the op alone on a poisoned arena writes only its output."""
    from poisoned_arena import poisoned_run
    model = load(content, tmp_path)
    wants = L.run_sequence(content, [[x] for x in xs])[0]
    if tflm:
        for micro, want in zip(tflm_outputs(content, xs), wants):
            np.testing.assert_array_equal(micro[0], want[0], err_msg="TFLite Micro and LiteRT differ")
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference="litert")
        (kernel,) = ctx.kernels
        assert [v.name for v in kernel.variants] == [name] and kernel.variants[0].scratch == ()
        assert code is None or kernel.code == code
        p = ctx.make([kernel.variants[0]], "size")
        assert p.verify() and p.isa == isa
        it = ap.Interpreter(p)
        for x, want in zip(xs, wants):
            got = it.run(x)
            assert got.dtype == np.int8 and got.shape == want[0].shape
            np.testing.assert_array_equal(got, want[0], err_msg=isa)
    poisoned_run(model, xs[0])
    return model


def check_scratch_and_in_place(ffi, lib, model: ap.Model, params_type: str, variants_fn, run_fn,
                               reference: str = "litert", names=VARIANTS):
    """Through the C API: every variant (``names``) writes the Interpreter's output with exactly
    its scratch (between guard bytes) and in place over its input; the table with one scratch
    byte too few is AP_ERR_SCRATCH_TOO_SMALL naming 256 and 255, writing nothing."""
    (kernel,) = PlanContext.build(model, isa="portable", reference=reference).kernels
    p = ffi.new(f"{params_type} *")
    keep = []
    for key, value in kernel.spec.items():
        if isinstance(value, list):     # a pointer field: an int8 table
            keep.append(ffi.new("int8_t[]", value))
            value = keep[-1]
        setattr(p, key, ffi.NULL if value is None else value)
    n = int(kernel.spec["count"])
    x = np.resize(np.arange(-128, 128, dtype=np.int8), n)
    want = ap.Interpreter(ap.plan(model, mode="size", reference=reference)).run(
        x.reshape(model.tensors[model.inputs[0]].shape))
    want = want.reshape(-1)
    listed = variants(ffi, lib, variants_fn, p)
    assert [ffi.string(v.name).decode() for v in listed] == list(names)
    for v in listed:
        shorts = [None, 0] if v.scratch_count else [None]
        for short in shorts:
            for in_place in (False, True):
                inp = guarded_from(ffi, x)
                out = inp if in_place else Guarded(ffi, n, fill=0x5A)
                before = out.payload.copy()
                scr, bufs = scratch_for(ffi, v, short)
                call = ffi.new("ap_op_call *")
                ins = ffi.new("void *[]", [inp.ptr])
                call.params, call.variant, call.inputs, call.input_count = p, v, ins, 1
                call.output, call.scratch, call.scratch_count = out.ptr, scr, v.scratch_count
                err = ffi.new("ap_error *")
                status = run_fn(call, lib.AP_ISA_PORTABLE, err)
                assert inp.intact() and out.intact() and all(b.intact() for b in bufs)
                if short is None:
                    assert status == lib.AP_OK, message(ffi, err)
                    np.testing.assert_array_equal(out.view(np.int8), want)
                else:
                    assert status == lib.AP_ERR_SCRATCH_TOO_SMALL
                    assert err.needed == 256 and err.available == 255, message(ffi, err)
                    np.testing.assert_array_equal(out.payload, before)
