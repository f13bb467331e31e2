"""Shared fixtures: where the real .tflite models are, and plan checking."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The tests' own helpers are importable from every test directory, and so is `harness`
# (the checkout's helpers that the benchmarks share: the NumPy and LiteRT references, the
# cffi build of the C core, the firmware builder and QEMU runner, TFLM trials).
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "c"))
sys.path.insert(0, str(ROOT))
from harness.models import MLPERF_TINY, MODEL_NAMES, MODELS_DIR, RUNNABLE  # noqa: E402,F401


def model_path(name: str) -> Path:
    path = MODELS_DIR / f"{name}.tflite"
    if not path.exists():
        pytest.skip(f"shared model {path} is not present (set ARENAPLAN_MODELS to its folder)")
    return path


@pytest.fixture(scope="session")
def core():
    """(ffi, lib) for the C core built from csrc/ through cffi with the public headers."""
    from harness import cbuild
    return cbuild.build()


@pytest.fixture(scope="session")
def ffi(core):
    return core[0]


@pytest.fixture(scope="session")
def lib(core):
    return core[1]


@pytest.fixture(scope="session")
def dsp_driver(tmp_path_factory):
    """The arm-dsp batch driver (harness/firmware/dsp_cases_main.c) for a core, linked once a
    session: ``dsp_driver("cortex-m4")`` is its image."""
    from harness.firmware import dsp_cases
    work = tmp_path_factory.mktemp("dsp_driver")
    built = {}

    def driver(core: str) -> Path:
        if core not in built:
            built[core] = dsp_cases.build_driver(core, work / core)
        return built[core]
    return driver


@pytest.fixture(scope="module")
def dsp_work(tmp_path_factory, request) -> Path:
    """A folder for a QEMU kernel module's case files."""
    return tmp_path_factory.mktemp(request.module.__name__.rpartition(".")[2])
