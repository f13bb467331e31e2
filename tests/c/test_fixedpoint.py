"""The requantising multiply of fixedpoint.h (TFLite's MultiplyByQuantizedMultiplier, written
for few instructions on a Cortex-M) and the arm-dsp kernels' fast int8 requantisation
(requant_arm_dsp.h: SMMULR for the layers whose sums are small, SMULL's full product for
the layers whose biases are large) against the NumPy reference,
on edge and random triples, built for the host and, where the cross compiler and qemu-arm are
installed, as Thumb-2."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from harness import cbuild
from harness.reference import quant as R

HERE = Path(__file__).resolve().parent
RUNTIME = cbuild.ROOT / "csrc" / "runtime"
I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1


def _triples() -> np.ndarray:
    """Every edge x against every edge multiplier and shift in [-31, 31], then 400,000 random."""
    xs = np.array([I32_MIN, I32_MIN + 1, -(1 << 30) - 1, -(1 << 30), -3, -2, -1, 0, 1, 2, 3,
                   (1 << 30), (1 << 30) + 1, I32_MAX - 1, I32_MAX], np.int64)
    ms = np.array([I32_MIN, I32_MIN + 1, -1, 0, 1, 1 << 30, (1 << 30) + 1, 1518500250,
                   I32_MAX - 1, I32_MAX], np.int64)
    shifts = np.arange(-31, 32, dtype=np.int64)
    grid = np.stack(np.meshgrid(xs, ms, shifts, indexing="ij"), -1).reshape(-1, 3)
    rng = np.random.default_rng(7)
    n = 400_000
    x = rng.integers(I32_MIN, I32_MAX, n, endpoint=True)
    small = rng.random(n) < 0.5                         # accumulators of real layers
    x[small] = rng.integers(-(1 << 20), 1 << 20, small.sum())
    m = rng.integers(1 << 30, I32_MAX, n, endpoint=True)
    m[: n // 10] = rng.integers(I32_MIN, I32_MAX, n // 10, endpoint=True)
    s = rng.integers(-31, 8, n)
    s[: n // 4] = rng.integers(-31, 1, n // 4)          # the shifts of real layers, <= 0
    # a left shift may wrap x (TFLite's int32 arithmetic) but x << s stays a product here
    return np.concatenate([grid, np.stack([x, m, s], -1)]).astype(np.int32)


def _run(cmd: list[str], triples: np.ndarray) -> np.ndarray:
    raw = subprocess.run(cmd, input=triples.tobytes(), capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.int32).reshape(-1, 4)


def _check(got: np.ndarray, triples: np.ndarray) -> None:
    x, m, s = (triples[:, i].astype(np.int64) for i in range(3))
    want = R.multiply_by_quantized_multiplier(x, m, s)
    off = ((x & 0xFF) ^ 0x80) - 0x80
    want_int8 = np.clip(want + off, -128, 127)
    fast = (m >= 0) & (s <= 0) & (np.abs(x) < (1 << 30))
    assert fast.sum() > 100_000   # the fast form's own cases, not only its fallback
    wide = (m >= 0) & (s <= 0) & (s >= -31)
    assert (wide & (np.abs(x) >= (1 << 30))).sum() > 50_000   # sums the fast form cannot take
    for col, name, expected in ((0, "general", want), (1, "non-negative multiplier", want),
                                (2, "fast int8", want_int8), (3, "wide int8", want_int8)):
        bad = np.flatnonzero(got[:, col] != expected)
        assert bad.size == 0, (f"{name}: {bad.size} of {len(want)} differ, first (x, m, shift) = "
                               f"{triples[bad[0]].tolist()}: {got[bad[0], col]} != {expected[bad[0]]}")


def _build(cc: str, flags: list[str], exe: Path) -> None:
    subprocess.run([cc, *flags, "-std=c99", "-I", str(RUNTIME), str(HERE / "fixedpoint_main.c"),
                    "-o", str(exe)], check=True)


def test_host_build_equals_the_reference(tmp_path):
    cc = os.environ.get("CC", "gcc")
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler {cc!r}")
    triples = _triples()
    cflags, ldflags = cbuild.compile_flags()
    exe = tmp_path / "fixedpoint"
    _build(cc, [*cflags, *ldflags], exe)
    _check(_run([str(exe)], triples), triples)


def test_thumb2_build_equals_the_reference(tmp_path):
    cc, qemu = "arm-linux-gnueabihf-gcc", "qemu-arm"
    missing = [t for t in (cc, qemu) if shutil.which(t) is None]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")
    triples = _triples()
    exe = tmp_path / "fixedpoint_thumb2"
    _build(cc, ["-O2", "-static", "-mthumb", "-march=armv7-a+fp"], exe)
    _check(_run([qemu, str(exe)], triples), triples)


def _layers(rng: np.random.Generator, count: int):
    """Random layers near ap_dsp_requant_mode's edges: (header, biases, multipliers, shifts, mode)."""
    for _ in range(count):
        n = int(rng.integers(1, 65))
        step = int(rng.integers(0, 2))
        per_product = int(rng.choice([0, 128 * 128, 255 * 128]))
        products = int(rng.choice([1, 9, 640, int(rng.integers(1, 1 << 17))]))
        act = (-128, 127) if rng.random() < 0.9 else (int(rng.integers(-128, 0)), 127)
        work = products * per_product
        room = (1 << 30) - work
        edge = [I32_MIN, I32_MIN + 1, I32_MAX, -(1 << 30), 1 << 30, 0]
        if room > 0:
            edge += [room, room - 1, -room, -(room - 1)]
        bias = rng.integers(-(1 << 21), 1 << 21, n)
        if rng.random() < 0.6:
            bias[int(rng.integers(0, n))] = rng.choice(edge)
        multiplier = rng.integers(1 << 30, I32_MAX, n, endpoint=True)
        if rng.random() < 0.2:
            multiplier[int(rng.integers(0, n))] = rng.choice([0, 1, I32_MAX, -1, I32_MIN])
        shift = rng.integers(-12, 1, n)
        if rng.random() < 0.3:
            shift[int(rng.integers(0, n))] = int(rng.integers(1, 4))
        if rng.random() < 0.2:
            shift[int(rng.integers(0, n))] = int(rng.choice([0, -1, -31, -32]))
        used = slice(None) if step else slice(0, 1)
        full = act == (-128, 127)
        fast = (full and (per_product == 0 or products < (1 << 30) // per_product)
                and bool((shift[used] <= 0).all()) and bool((np.abs(bias.astype(np.int64)) + work < (1 << 30)).all()))
        m = multiplier[used]
        wide = (full and bool(((shift[used] <= 0) & (shift[used] >= -31)).all())
                and bool((m >= 0).all()))
        header = np.array([n, step, products, per_product, act[0], act[1], 0, 0], np.int64)
        yield (header, bias.astype(np.int32), multiplier.astype(np.int32), shift.astype(np.int32),
               1 if fast else 2 if wide else 0)


def test_requant_mode_decision_equals_its_rule(tmp_path):
    """ap_dsp_requant_mode takes the fast form exactly when its rule holds (full int8 activation
    range, no left shift among the shifts it uses (one per channel or the first), every
    channel's |bias| + products * per_product below 2^30, INT32_MIN's magnitude included), else
    the wide form exactly when that one's holds (full range, every shift used in [-31, 0],
    every multiplier used >= 0), else the general one."""
    cc = os.environ.get("CC", "gcc")
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler {cc!r}")
    cflags, ldflags = cbuild.compile_flags()
    exe = tmp_path / "fast_layer"
    subprocess.run([cc, *cflags, *ldflags, "-std=c99", "-I", str(RUNTIME), str(HERE / "fast_layer_main.c"),
                    "-o", str(exe)], check=True)
    layers = list(_layers(np.random.default_rng(11), 6000))
    data = b"".join(h.tobytes() + b.tobytes() + m.tobytes() + s.tobytes() for h, b, m, s, _ in layers)
    got = np.frombuffer(subprocess.run([str(exe)], input=data, capture_output=True, check=True).stdout,
                        np.int32)
    want = np.array([mode for *_, mode in layers], np.int32)
    assert min(np.bincount(want, minlength=3)) > 300      # every answer, many times
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, f"{bad.size} of {len(want)} layers decided wrongly, first {layers[bad[0]][0].tolist()}"
