"""int8 RELU: one-op .tflite models built with the flatbuffer schema, every variant on the
portable and the AVX2 path inside a verified plan, bit-exact with LiteRT's reference
kernels (BUILTIN_REF) over random inputs and several scales and zero points."""
from __future__ import annotations

import numpy as np
import pytest

import arenaplan as ap
from arenaplan import _core
from arenaplan.ops.lowering import HOST_ISA
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L

_LITERT = L.unavailable_reason()
VARIANTS = ["direct", "table"]
#: (input scale, input zero point, output scale, output zero point, shape)
CASES = [
    (0.05, 0, 0.05, 0, (1, 4, 4, 3)),          # the same quantisation: a plain clamp at 0
    (0.05, -128, 0.05, -128, (2, 33)),
    (0.1, 10, 0.025, -5, (1, 7, 5, 2)),        # the output range magnifies: saturates at 127
    (0.02, -3, 0.07, 120, (257,)),             # the zero point near the top: clamps from 120
    (0.3, 127, 0.01, -128, (3, 1, 9)),
    (1.0 / 255, -128, 1.0 / 127, 0, (64, 3)),
    (0.0123, 45, 0.0456, -77, (5, 5, 5)),
]


def host_isas() -> list:
    """The instruction sets this host runs natively; a plan's ISA picks its kernels."""
    return ["portable"] + (["x86-avx2"] if HOST_ISA == "x86-avx2" else [])


def relu_model(xs: float, xz: int, ys: float, yz: int, shape) -> bytes:
    tensors = [dict(shape=shape, dtype="int8", scale=xs, zero_point=xz),
               dict(shape=shape, dtype="int8", scale=ys, zero_point=yz)]
    return L.single_op_model("RELU", tensors, [0], [1], version=2)


def plans(model: ap.Model) -> dict:
    """{(variant, isa): plan} for every variant on every instruction set this host runs."""
    out = {}
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference="litert")
        (kernel,) = ctx.kernels
        assert [v.name for v in kernel.variants] == VARIANTS
        for name in VARIANTS:
            p = ctx.make([kernel.variant(name)], "size")
            assert p.verify() and p.isa == isa
            out[(name, isa)] = p
    return out


@pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_every_variant_matches_litert(case, tmp_path):
    xs, xz, ys, yz, shape = case
    content = relu_model(xs, xz, ys, yz, shape)
    path = tmp_path / "relu.tflite"
    path.write_bytes(content)
    model = ap.load_tflite(path)
    assert [op.type for op in model.operators] == ["RELU"]
    rng = np.random.default_rng(abs(hash(case)) % 2 ** 32)
    inputs = [rng.integers(-128, 128, size=shape, dtype=np.int8) for _ in range(3)]
    inputs.append(np.resize(np.arange(-128, 128, dtype=np.int8), shape))   # every int8 value
    wants = L.run_sequence(content, [[x] for x in inputs])[0]
    for (name, isa), p in plans(model).items():
        it = ap.Interpreter(p)
        for x, want in zip(inputs, wants):
            got = it.run(x)
            assert got.dtype == np.int8 and got.shape == want[0].shape
            np.testing.assert_array_equal(got, want[0], err_msg=f"{name}, {isa}, {case}")


def test_relu_params_are_checked(tmp_path):
    content = relu_model(0.05, 0, 0.05, 0, (4,))
    path = tmp_path / "relu.tflite"
    path.write_bytes(content)
    (kernel,) = PlanContext.build(ap.load_tflite(path), isa="portable", reference="litert").kernels
    assert kernel.spec["activation_min"] == 0 and kernel.spec["activation_max"] == 127
    code = kernel.code
    with pytest.raises(ValueError, match="relu: activation range"):
        _core.kernel_variants(code, dict(kernel.spec, activation_min=5, activation_max=4))
    with pytest.raises(ValueError, match="RELU: params field 'output_shift' = 4294967296"):
        _core.kernel_variants(code, dict(kernel.spec, output_shift=2 ** 32))
    with pytest.raises(ValueError, match="RELU: params field 'activation_max' .* is missing"):
        _core.kernel_variants(code, {k: v for k, v in kernel.spec.items() if k != "activation_max"})
