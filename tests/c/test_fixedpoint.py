"""The requantising multiply of fixedpoint.h (TFLite's MultiplyByQuantizedMultiplier, written
for few instructions on a Cortex-M) and the arm-dsp kernels' fast int8 requantisation
(requant_arm_dsp.h: SMMULR for the layers whose sums are small) against the NumPy reference,
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
    return np.frombuffer(raw, np.int32).reshape(-1, 3)


def _check(got: np.ndarray, triples: np.ndarray) -> None:
    x, m, s = (triples[:, i].astype(np.int64) for i in range(3))
    want = R.multiply_by_quantized_multiplier(x, m, s)
    off = ((x & 0xFF) ^ 0x80) - 0x80
    want_int8 = np.clip(want + off, -128, 127)
    fast = (m >= 0) & (s <= 0) & (np.abs(x) < (1 << 30))
    assert fast.sum() > 100_000   # the fast form's own cases, not only its fallback
    for col, name, expected in ((0, "general", want), (1, "non-negative multiplier", want),
                                (2, "fast int8", want_int8)):
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
