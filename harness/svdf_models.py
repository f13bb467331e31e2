"""A stateful model built in code, for tests that need outputs that vary with the state
(the shared keyword model's scrambled weights give a constant output).

``svdf_chain(seed)``: int8 [1, 24] -> SVDF (16 filters, rank 2, memory 4, bias) -> int8 [1, 8]
-> SVDF (8 filters, rank 1, memory 6, no bias) -> int8 [1, 8]; plus an int8 variable tensor
no op reads, with zero point -3 (the state pool must start it, and reset it, at 0xFD, as
TFLite resets int8 variable tensors). ``reference_outputs(model, xs)`` runs it through
the NumPy reference of TFLite's SVDF. ``one_svdf(c)``: the one-SVDF model of a
reference/svdf.py random_case (LiteRT's twin: reference/litert_svdf.py). ``plan_with(model,
variant)``: a plan whose SVDF ops all run ``variant``.
"""
from __future__ import annotations

import numpy as np

import arenaplan as ap
from .reference.svdf import svdf, svdf_params

SPECS = [  # (filters, rank, memory, bias)
    (16, 2, 4, True),
    (8, 1, 6, False),
]


def svdf_chain(seed: int = 0) -> ap.Model:
    rng = np.random.default_rng(seed)
    tensors = []

    def add(shape, dtype, scale=None, zp=0, data=None, variable=False):
        q = None if scale is None else ap.Quantization((float(np.float32(scale)),), (int(zp),))
        tensors.append(ap.Tensor(len(tensors), f"t{len(tensors)}", tuple(shape), dtype, q, data, variable))
        return len(tensors) - 1

    x_scale, x = 0.05, add((1, 24), "int8", 0.05, 5)
    ops = []
    for k, (filters, rank, memory, bias) in enumerate(SPECS):
        n = tensors[x].shape[1]
        units = filters // rank
        feature, time = 1.5 / np.sqrt(n), 3e-7 / np.sqrt(memory * rank)   # effective scales
        wf_scale, y_scale = 0.01, 0.1
        state_scale = x_scale * wf_scale / feature
        wt_scale = time * y_scale / state_scale
        wf = add((filters, n), "int8", wf_scale, 0, rng.integers(-128, 128, (filters, n), dtype=np.int8))
        wt = add((filters, memory), "int16", wt_scale, 0,
                 rng.integers(-32768, 32768, (filters, memory), dtype=np.int16))
        b = add((units,), "int32", x_scale * wf_scale, 0,
                rng.integers(-10 ** 7, 10 ** 7, units).astype(np.int32)) if bias else -1
        state = add((1, filters * memory), "int16", state_scale, 0, variable=True)
        y = add((1, units), "int8", y_scale, int(rng.integers(-20, 20)))
        ops.append(ap.Operator(k, "SVDF", (x, wf, wt, b, state), (y,),
                               {"rank": rank, "fused_activation_function": "RELU"}))
        x, x_scale = y, y_scale
    add((1, 4), "int8", 0.1, -3, variable=True)
    return ap.Model("svdf_chain", tensors, ops, (0,), (x,), source="test:svdf_chain")


def one_svdf(c: dict) -> ap.Model:
    """int8 [batches, input_size] -> one SVDF of random_case c -> int8 [batches, units]."""
    x, wf, st_, wt, y = c["scales"]
    b, f, m, r = c["batches"], c["filters"], c["memory"], c["rank"]
    units = f // r

    tensors = []

    def add(shape, dtype, scale, zp=0, data=None, variable=False):
        q = ap.Quantization((float(np.float32(scale)),), (int(zp),))
        tensors.append(ap.Tensor(len(tensors), f"t{len(tensors)}", tuple(shape), dtype, q, data, variable))
        return len(tensors) - 1

    xi = add((b, c["input_size"]), "int8", x, c["input_zero_point"])
    wfi = add((f, c["input_size"]), "int8", wf, data=c["wf"])
    wti = add((f, m), "int16", wt, data=c["wt"])
    bi = -1 if c["bias"] is None else add((units,), "int32", x * wf, data=c["bias"])
    si = add((b, f * m), "int16", st_, variable=True)
    yi = add((b, units), "int8", y, c["output_zero_point"])
    op = ap.Operator(0, "SVDF", (xi, wfi, wti, bi, si), (yi,), {"rank": r, "fused_activation_function": "RELU"})
    return ap.Model("one_svdf", tensors, [op], (xi,), (yi,), source="test:one_svdf")


def plan_with(model: ap.Model, variant: str, isa: str = "portable") -> "ap.Plan":
    """A plan of ``model`` whose SVDF ops all run ``variant`` on instruction set ``isa``;
    every other op its first variant."""
    from arenaplan.planning.context import PlanContext
    ctx = PlanContext.build(model, isa=isa, reference="litert")
    chosen = [None if k is None else k.variant(variant) if k.type == "SVDF" else k.variants[0]
              for k in ctx.kernels]
    return ctx.make(chosen, "size")


def reference_outputs(model: ap.Model, xs) -> list:
    """The model's outputs for inputs run in order from a zero state, by the NumPy reference."""
    states = {op.index: np.zeros(model.tensors[op.inputs[4]].shape, np.int16) for op in model.operators}
    outs = []
    for x in xs:
        for op in model.operators:
            t = [model.tensors[i] if i >= 0 else None for i in op.inputs]
            y = model.tensors[op.outputs[0]]
            s = [t_.quantization.scale[0] for t_ in (t[0], t[1], t[4], t[2], y)]
            x, states[op.index] = svdf(
                x, t[1].data, t[2].data, None if t[3] is None else t[3].data, states[op.index],
                rank=op.options["rank"], input_zero_point=t[0].quantization.zero_point[0],
                output_zero_point=y.quantization.zero_point[0], **svdf_params(*s))
        outs.append(x)
    return outs


def inputs(model: ap.Model, count: int, seed: int = 1) -> list:
    rng = np.random.default_rng(seed)
    return [rng.integers(-128, 128, size=model.tensors[model.inputs[0]].shape, dtype=np.int8)
            for _ in range(count)]
