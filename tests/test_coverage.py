"""docs/coverage.md is the coverage module's output (so it stays true to the op table), every
op table row is in it once, its probes reach the variants that need particular shapes, and a
row without a probe is an error naming the row."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arenaplan import _core
from arenaplan.ops import coverage

DOC = Path(__file__).resolve().parents[1] / "docs" / "coverage.md"


def test_the_committed_table_is_the_generated_one():
    assert DOC.read_text() == coverage.render(), \
        "docs/coverage.md is stale: run `python -m arenaplan.ops.coverage > docs/coverage.md`"


def test_the_module_prints_it():
    out = subprocess.run([sys.executable, "-m", "arenaplan.ops.coverage"], capture_output=True, text=True,
                         check=True).stdout
    assert out == coverage.render()


def test_every_row_once_with_its_shape_dependent_variants():
    rows = coverage.rows()
    assert [(r["name"], r["types"]) for r in rows] == [(r["name"], r["types"]) for r in _core.ops()]
    by = {(r["name"], r["types"]): r for r in rows}
    # variants that apply to some shapes only: the probes reach them
    assert by[("CONV_2D", "s8")]["variants"]["portable"] == ["direct", "im2col_rows", "im2col", "gemm_1x1"]
    assert "smlad" in by[("FULLY_CONNECTED", "s8")]["variants"]["arm-dsp"]
    # a rule-dependent row lists each rule's variants
    assert by[("LOGISTIC", "s8")]["variants"]["portable"] == {"litert": ["lookup"], "tflm": ["direct", "table"]}
    assert by[("HARD_SWISH", "s8")]["in_place"] == ["direct", "table"]


def test_a_row_without_a_probe_is_named(monkeypatch):
    probes = dict(coverage._PROBES)
    del probes[("TANH", "s8")]
    monkeypatch.setattr(coverage, "_PROBES", probes)
    with pytest.raises(KeyError, match=r"op table row \('TANH', 's8'\) has no probe model"):
        coverage.rows()
