"""The type audit against TensorFlow Lite Micro (arenaplan.ops.tflm_types): every (op, type)
its kernels take is an op table row arenaplan runs or left out with a reason; the probe model
of each pair plans in arenaplan exactly when a row covers it; and the facts are the pinned
tflite-micro package's (a one-op model of each op in each type allocates and runs there
exactly for the types listed)."""
from __future__ import annotations

import os
import tempfile

import pytest

from arenaplan import UnsupportedModel, _core
from arenaplan.model.importers.tflite import load_tflite
from arenaplan.ops import tflm_types as A
from arenaplan.ops.lowering import REFERENCES, lower_op
from arenaplan.tflm.rules import TFLM_KERNELS
from harness import tflm_type_probe as P
from harness.tflm_support import HAVE_TFLM

ROWS = {(r["name"], r["types"]) for r in _core.ops()}


def test_every_registered_op_is_audited():
    assert set(A.TFLM_TYPES) | set(A.STRUCTURAL) == set(TFLM_KERNELS)
    assert not set(A.TFLM_TYPES) & set(A.STRUCTURAL)


def test_every_pair_is_a_row_or_left_out_with_its_reason():
    pairs = set(A.pairs())
    unaccounted = [p for p in sorted(pairs) if A.covering_row(*p, rows=ROWS) is None and p not in A.LEFT_OUT]
    assert not unaccounted, f"TFLite Micro pairs neither run nor left out: {unaccounted}"
    covered_yet_left_out = [p for p in A.LEFT_OUT if A.covering_row(*p, rows=ROWS)]
    assert not covered_yet_left_out, f"left out but an op table row runs them: {covered_yet_left_out}"
    assert set(A.LEFT_OUT) <= pairs, sorted(set(A.LEFT_OUT) - pairs)
    assert all(A.covering_row(*p, rows=ROWS) in ROWS for p in pairs if p not in A.LEFT_OUT)
    assert all(why and "\n" not in why for why in A.LEFT_OUT.values())


def test_the_totals():
    t = A.totals(ROWS)
    assert t["tflm"] == len(A.pairs()) == t["covered"] + t["left_out"]
    assert t["left_out"] == len(A.LEFT_OUT)


def _plans(content: bytes) -> tuple:
    fd, path = tempfile.mkstemp(suffix=".tflite")
    os.write(fd, content)
    os.close(fd)
    try:
        m = load_tflite(path)
        why = []
        for ref in REFERENCES:
            try:
                for op in m.operators:
                    lower_op(m, op, "portable", ref)
                return True, ""
            except UnsupportedModel as exc:
                why.append(str(exc))
        return False, why
    finally:
        os.unlink(path)


PROBED = [p for p in A.pairs() if p[0] not in A.FROM_SOURCE]


@pytest.mark.parametrize("op,label", PROBED, ids=[f"{o}-{t}" for o, t in PROBED])
def test_a_pairs_model_plans_exactly_when_covered(op, label):
    ok, why = _plans(P.model_for(op, label))
    if A.covering_row(op, label, rows=ROWS):
        assert ok, f"{op} {label}: covered by {A.covering_row(op, label, rows=ROWS)} but refused: {why}"
    else:
        assert not ok, f"{op} {label}: left out ({A.LEFT_OUT[(op, label)]}) but arenaplan plans it"
        assert all(f"({op})" in w or op in w for w in why), why


@pytest.mark.skipif(not HAVE_TFLM, reason="tflite-micro is not importable")
@pytest.mark.parametrize("op", sorted(set(A.TFLM_TYPES) - A.FROM_SOURCE - set(A.NOT_COUNTED)))
def test_the_facts_are_the_packages(op):
    assert set(P.tflm_labels(op)) == set(A.TFLM_TYPES[op][1])


@pytest.mark.skipif(not HAVE_TFLM, reason="tflite-micro is not importable")
def test_logical_ops_take_any_bytes_in_the_package():
    """Not counted: logical.cc reads its inputs as bool whatever their type."""
    assert set(P.tflm_labels("LOGICAL_AND")) > {"bool"}


@pytest.mark.skipif(not HAVE_TFLM, reason="tflite-micro is not importable")
def test_the_fixed_operands_are_the_packages():
    for (op, operand), types in A.ROLES.items():
        role = {"output": "out", "indices": "indices", "dims": "dims"}[operand]
        got = {k for k, b in P.ROLE_BUILDERS[(op, role)].items() if P.runs(b())}
        assert got == set(types), (op, operand, got)
