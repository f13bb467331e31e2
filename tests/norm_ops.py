"""Helpers for the L2_NORMALIZATION, L2_POOL_2D, LOG_SOFTMAX and CUMSUM tests (not a test module):
one-op models, every variant on every host ISA in a verified plan against LiteRT's reference
kernels or TensorFlow Lite Micro's interpreter, bit for bit (float32 NaN against NaN), and the
rows that run them under QEMU on a Cortex-M4."""
from __future__ import annotations

from typing import List, Sequence

import numpy as np
import pytest

import arenaplan as ap
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from poisoned_arena import poisoned_run
from unary_s8 import host_isas, load, tflm_outputs

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))


def assert_same(got: np.ndarray, want: np.ndarray, what: str = "") -> None:
    """Equal bit for bit (float32: a NaN equals a NaN, as both machines' default NaNs differ)."""
    want = np.asarray(want).reshape(got.shape)
    assert got.dtype == want.dtype, f"{what}: {got.dtype} vs {want.dtype}"
    if got.dtype == np.float32:
        same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
    else:
        same = got == want
    if not same.all():
        i = np.flatnonzero(~same.reshape(-1))[:6]
        raise AssertionError(f"{what}: {int((~same).sum())} of {same.size} differ, e.g. at {i.tolist()}: "
                             f"{got.reshape(-1)[i].tolist()} vs {want.reshape(-1)[i].tolist()}")


def wants_of(content: bytes, xs: List[np.ndarray], reference: str) -> list:
    """[[output]] per input: LiteRT's BUILTIN_REF ("litert") or TensorFlow Lite Micro's ("tflm")."""
    if reference == "tflm":
        return tflm_outputs(content, xs)
    return L.run_sequence(content, [[x] for x in xs])[0]


def check_plans(content: bytes, tmp_path, xs: List[np.ndarray], reference: str = "litert",
                variants: Sequence[str] = ("direct",), name: str = "m", also_tflm: bool = False,
                poisoned: bool = True) -> ap.Model:
    """Each variant (``variants``, in order, all in place) on each host ISA in a verified plan
    equals the ``reference`` runtime on ``xs``; with ``also_tflm`` TensorFlow Lite Micro's
    interpreter gives LiteRT's outputs too; the op alone on a poisoned arena writes only its
    output (and scratch)."""
    model = load(content, tmp_path, name)
    wants = wants_of(content, xs, reference)
    if also_tflm:
        for micro, want in zip(tflm_outputs(content, xs), wants):
            assert_same(np.asarray(micro[0]), want[0], "TFLite Micro against LiteRT")
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference=reference)
        (kernel,) = ctx.kernels
        assert [v.name for v in kernel.variants] == list(variants)
        for v in kernel.variants:
            p = ctx.make([v], "size")
            assert p.verify() and p.isa == isa and p.reference == reference
            it = ap.Interpreter(p)
            for x, want in zip(xs, wants):
                assert_same(it.run(x), want[0], f"{kernel.type} {v.name} on {isa} ({reference})")
    if poisoned:
        poisoned_run(model, xs[0], reference=reference)
        poisoned_run(model, xs[0], mode="speed", reference=reference)
    return model


def refused(content: bytes, tmp_path, *needles: str, reference: str = "litert") -> str:
    """Planning the model raises UnsupportedModel whose message holds every needle."""
    model = load(content, tmp_path, "bad")
    with pytest.raises(UnsupportedModel) as info:
        ap.plan(model, reference=reference)
    for n in needles:
        assert n in str(info.value), str(info.value)
    return str(info.value)


def float_edges(shape, seed: int) -> List[np.ndarray]:
    """float32 inputs: normal values at three magnitudes, values whose squares or sums overflow
    (3e38), tiny and subnormal values with signed zeros, all equal values, and infinities and
    NaN among normal values."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    xs = [(rng.standard_normal(n) * s).astype(np.float32).reshape(shape) for s in (1.0, 1e-3, 1e4)]
    xs.append(rng.choice(np.array([3e38, -3e38, 1e20, -1e20, 1.0, -2.5], np.float32), size=shape))
    xs.append(rng.choice(np.array([0.0, -0.0, 1e-40, -1e-40, 1e-30, 1e-45], np.float32), size=shape))
    xs.append(np.full(shape, 0.75, np.float32))
    special = (rng.standard_normal(n) * 3).astype(np.float32)
    special[rng.integers(0, n, size=max(1, n // 7))] = rng.choice(np.array([np.inf, -np.inf, np.nan], np.float32),
                                                                  size=max(1, n // 7))
    xs.append(special.reshape(shape))
    return [x.astype(np.float32) for x in xs]


def int8_edges(shape, seed: int, zero_point: int = 0) -> List[np.ndarray]:
    """int8 inputs: random, every int8 value in turn, all at the zero point, all -128, all 127,
    and -128 / 127 alternating."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    alt = np.resize(np.array([-128, 127], np.int8), n).reshape(shape)
    return [rng.integers(-128, 128, size=shape, dtype=np.int8), rng.integers(-128, 128, size=shape, dtype=np.int8),
            np.resize(np.arange(-128, 128, dtype=np.int8), shape), np.full(shape, zero_point, np.int8),
            np.full(shape, -128, np.int8), np.full(shape, 127, np.int8), alt]


# --- the Cortex-M4 under QEMU -------------------------------------------------------------------
def run_rows_on_cortex_m4(keys, tmp_path) -> dict:
    """The every-op test's cases for the op table rows ``keys`` (their probe models, every arm-dsp
    variant, both rounding rules, two inputs), built for the Cortex-M4 and run under QEMU; each
    output equals the host Interpreter's bit for bit (the machines' default NaNs aside), but the
    float32 rows in test_every_op_on_cortex_m.TRANSCENDENTAL, which stay within the ulp bounds
    docs/coverage.md states. Returns {row: largest ulp difference} for those."""
    from harness.firmware import build as fw
    import test_every_op_on_cortex_m as every
    missing = fw.missing_arm_tools()
    if missing:
        pytest.skip(f"Cortex-M toolchain not installed ({', '.join(missing)})")
    found = every.cases(tmp_path, only=set(keys))
    assert {c.row for c in found} == set(keys)
    cpu = fw.ARM_CPUS[every.CPU]
    runtime = fw.cached_runtime(fw.ARM_CC, fw.arm_flags(cpu), cpu.name)
    bounds = every.ulp_bounds()
    worst, wrong = {}, []
    for i, members in enumerate(every.pack([c.export for c in found], cpu.board)):
        image = fw.build_arm_batch([found[k].export for k in members], cpu, runtime, tmp_path / f"image{i}",
                                   inputs=[found[k].inputs for k in members])
        raws, _ = fw.run_batch(image, len(members))
        for k, raw in zip(members, raws):
            case = found[k]
            got = fw.split_outputs(raw, [(w.dtype, w.shape) for w in case.want])
            for g, w in zip(got, case.want):
                if case.row[1] == "f32" and case.row[0] in every.TRANSCENDENTAL:
                    d = every.ulp_diff(g, w)
                    worst[case.row] = max(worst.get(case.row, 0), d)
                    if d > bounds[case.row[0]]:
                        wrong.append(f"{case.label}: {d} ulp, bound {bounds[case.row[0]]}")
                elif not every._same_bits(g, w).all():
                    wrong.append(f"{case.label}: {g.reshape(-1)[:8].tolist()} vs {w.reshape(-1)[:8].tolist()}")
    assert not wrong, "\n".join(wrong)
    return worst
