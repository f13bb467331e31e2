"""The fuzz targets' checks (tests/fuzz/targets.py) on their seeds and on every input a
fuzz run once found (tests/fuzz/regressions/): each is handled cleanly today."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "fuzz"))
import targets  # noqa: E402

CASES = [(name, f"seed {i}", seed) for name, (_, seeds) in targets.TARGETS.items()
         for i, seed in enumerate(seeds())]
CASES += [(path.parent.name, path.name, path.read_bytes())
          for path in sorted(targets.REGRESSIONS.glob("*/*"))]


@pytest.mark.parametrize("target, label, data", CASES, ids=[f"{t}-{label}" for t, label, _ in CASES])
def test_fuzz_input_is_handled_cleanly(target, label, data):
    check, _ = targets.TARGETS[target]
    check(data)


def test_a_model_op_without_its_output_is_an_unsupported_model():
    import arenaplan as ap
    data = (targets.REGRESSIONS / "import" / "fc-without-output").read_bytes()
    m = ap.parse_tflite(data)
    p = ap.plan(m, require_kernels=False)
    assert p.verify() and any("outputs; arenaplan's kernels write exactly one" in u for u in p.unsupported)
