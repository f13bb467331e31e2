"""ap.tflm's rules for the fourth ops (EXP, LOG, SIN, COS, SQRT, RSQRT, SQUARE, NEG, ROUND,
FLOOR, CEIL, ELU, DIV, L2_NORMALIZATION, L2_POOL_2D, LOG_SOFTMAX, CUMSUM, BATCH_MATMUL,
GATHER_ND, BROADCAST_ARGS), against TensorFlow Lite Micro itself.

As tests/test_tflm_third_ops.py: each model (harness.tflm_support: FAMILIES["fourth_ops"],
["fourth_prepare_peak"], random_fourth_op_model) must allocate and run in the tflite-micro
package's interpreter at ``ap.tflm.arena(m, pointer_bytes=8).arena_size`` and not 16 bytes
below it, with its allocation report's head and tail; the types the kernels do not take
(_REFUSED: test_tflm_third_ops.py's test_types_the_kernels_lack_are_named runs it beside the
third ops' table) are refused, by TFLM at any arena size and by the rules naming op, tensor and type.
"""
from __future__ import annotations

import numpy as np
import pytest

import arenaplan as ap
from harness.tflm_support import (FAMILIES, HAVE_TFLM, act_s16, batch_matmul, broadcast_args, cumsum, div, gather_nd,
                                  l2_pool, math_unary, norm, random_fourth_op_model, svdf, trial)
from test_tflm_ops import check_exact, load

needs_tflm = pytest.mark.skipif(not HAVE_TFLM, reason="tflite-micro is not importable")
CASES = [(f, c) for f in ("fourth_ops", "fourth_prepare_peak", "fourth_int16", "fourth_chains")
         for c in FAMILIES[f]]


@needs_tflm
@pytest.mark.parametrize("family,case", CASES, ids=[f"{f}-{c}" for f, c in CASES])
def test_arena_is_tflms(family, case, tmp_path):
    r = check_exact(FAMILIES[family][case](), tmp_path)
    small = ap.tflm.arena(load(FAMILIES[family][case](), tmp_path), pointer_bytes=4)
    assert small.predicted and small.arena_size < r.arena_size


@needs_tflm
@pytest.mark.parametrize("seed", [5, 6])
def test_random_fourth_op_models_are_tflms(seed, tmp_path):
    """40 random one-op models a seed, each exact (300 of 300 over two seeds of 150 and
    200 of 200 random BATCH_MATMUL when the rules were written)."""
    rng = np.random.default_rng(seed)
    kinds = set()
    for _ in range(40):
        kind, content = random_fourth_op_model(rng)
        check_exact(content, tmp_path)
        kinds.add(kind)
    assert len(kinds) >= 7, kinds


def _arena(content, tmp_path, p=8):
    return ap.tflm.arena(load(content, tmp_path), pointer_bytes=p)


@needs_tflm
def test_breakdown_of_the_fourth_ops(tmp_path):
    ops = lambda r: [(a.op_type, a.bytes) for a in r.allocations if a.kind == "kernel op data"]  # noqa: E731
    # no Init, no options: the float32 math ops
    r = _arena(math_unary("SIN"), tmp_path)
    assert ops(r) == [] and "op options" not in r.tail_by_kind()
    # RSQRT's OpDataAbsRsqrt (28 B), ELU's int8 table (256 B), DIV's OpData (28 B) and
    # TfLiteDivParams; L2_NORMALIZATION's L2NormalizationParams (4 B) and TfLiteL2NormParams
    def first(content):
        g = ap.tflm.graph.file_graph(load(content, tmp_path))
        return ap.tflm.rules.kernel_persistent(g, g.ops[0], ap.tflm.rules.sizes_for(8))[:1]
    assert first(math_unary("RSQRT")) == [("op data", 28)] and first(div("int8")) == [("op data", 28)]
    assert first(math_unary("ELU", "int8")) == first(math_unary("ELU")) == [("op data", 256)]
    assert first(norm("L2_NORMALIZATION")) == [("op data", 4)]
    assert _arena(div("int8"), tmp_path).tail_by_kind()["op options"] == 4
    assert _arena(norm("L2_NORMALIZATION"), tmp_path).tail_by_kind()["op options"] == 4
    # LOG_SOFTMAX and CUMSUM keep an OpData for int8 only, allocated in Prepare
    assert ops(_arena(norm("LOG_SOFTMAX", "float32"), tmp_path)) == []
    assert [op for op, _ in ops(_arena(norm("LOG_SOFTMAX", "int8"), tmp_path))] == ["LOG_SOFTMAX"]
    assert ops(_arena(cumsum("float32"), tmp_path)) == [] and len(ops(_arena(cumsum("int8"), tmp_path))) == 1
    # GATHER_ND copies its output's dims (rank 2: 12 B)
    g = ap.tflm.graph.file_graph(load(gather_nd("int8"), tmp_path))
    assert ap.tflm.rules.kernel_persistent(g, g.ops[0], ap.tflm.rules.sizes_for(8)) == [("output dims", 12)]
    # BATCH_MATMUL: its OpData (three pointers, three bools), the quantisation data of int8
    # and int16, the RHS transposed unless adj_y (an eval tensor, its dims and its data), the
    # LHS when adj_x, and the output's dims
    def persistent(content, p=8):
        g = ap.tflm.graph.file_graph(load(content, tmp_path))
        return ap.tflm.rules.kernel_persistent(g, g.ops[0], ap.tflm.rules.sizes_for(p))
    assert persistent(batch_matmul("float32")) == [("op data", 32), ("transposed operands", 24),
                                                   ("transposed operands", 12), ("transposed operands", 384),
                                                   ("output dims", 16)]
    assert persistent(batch_matmul("int16", adj_y=True, b=(8, 12))) == [("op data", 32), ("prepare op data", 28),
                                                                       ("output dims", 16)]
    assert persistent(batch_matmul("int8", adj_x=True, a=(2, 12, 4)), 4)[:3] == [
        ("op data", 16), ("prepare op data", 28), ("transposed operands", 12)]
    bmm = _arena(batch_matmul("int8"), tmp_path)
    assert bmm.tail_by_kind()["transposed operands"] == 32 + 16 + 96


@needs_tflm
def test_float32_elu_runs_without_its_table(tmp_path):
    """A float32 ELU never reads the int8 table its Init allocates: where the table does not
    fit at Init TFLM goes on without it, so the tiny model runs in 960 B, fails from 1,056 B
    (the table fits at Init, the plan then does not) and runs again from 1,216 B. The rules
    give the smallest."""
    c = math_unary("ELU", shape=(1, 2))
    r = _arena(c, tmp_path)
    assert r.arena_size == 960 and "kernel op data" not in r.tail_by_kind()
    assert [trial(c, n)["ok"] for n in (944, 960, 1040, 1056, 1200, 1216)] == [False, True, True, False, False, True]
    # int8 reads it: no such window
    assert "kernel op data" in _arena(math_unary("ELU", "int8", shape=(1, 2)), tmp_path).tail_by_kind()


@needs_tflm
def test_late_writes_are_checked_at_the_arena_itself(tmp_path):
    """BATCH_MATMUL's Prepare allocates its buffers while its temporaries are live; whether a
    write lands on a field still to be read depends on where the tail ends, so a size that
    prepares may be followed by one that does not: the int8 product with a constant RHS
    prepares at 1,232 B, not at 1,248 to 1,280 (where the plan fits), and again at 1,296."""
    c = batch_matmul("int8", const_rhs=True)
    r = _arena(c, tmp_path)
    assert r.peaks["prepare"] == 1232 and r.arena_size == 1296
    assert [trial(c, n)["ok"] for n in (1248, 1264, 1280, 1296)] == [False, False, False, True]


@needs_tflm
def test_int16_softmax_tables_and_svdf_rank(tmp_path):
    """The int16 SOFTMAX keeps two 513-entry int16 tables (1,026 B each) in the tail; SVDF's
    two int32 scratch buffers follow its rank (filters, then filters / rank a batch), read
    from the file's options."""
    r = _arena(act_s16("SOFTMAX"), tmp_path)
    assert r.tail_by_kind()["lookup tables"] >= 2 * 1026
    assert "lookup tables" not in _arena(act_s16("LOGISTIC"), tmp_path).tail_by_kind()
    assert [a.bytes for a in _arena(svdf(rank=2), tmp_path).scratch()] == [64, 32]
    assert [a.bytes for a in _arena(svdf(rank=1), tmp_path).scratch()] == [32, 32]


#: (build, op, tensor index, type): test_tflm_third_ops.py runs them.
_REFUSED = {
    "EXP int8": (lambda: math_unary("EXP", "int8"), "EXP", 0, "int8"),
    "SQRT int16": (lambda: math_unary("SQRT", "int16"), "SQRT", 0, "int16"),
    "NEG int32": (lambda: math_unary("NEG", "int32"), "NEG", 0, "int32"),
    "FLOOR int8": (lambda: math_unary("FLOOR", "int8"), "FLOOR", 0, "int8"),
    "RSQRT int16": (lambda: math_unary("RSQRT", "int16"), "RSQRT", 0, "int16"),
    "ELU int16": (lambda: math_unary("ELU", "int16"), "ELU", 0, "int16"),
    "DIV int16": (lambda: div("int16"), "DIV", 0, "int16"),
    "L2_NORMALIZATION int16": (lambda: norm("L2_NORMALIZATION", "int16"), "L2_NORMALIZATION", 0, "int16"),
    "LOG_SOFTMAX int16": (lambda: norm("LOG_SOFTMAX", "int16"), "LOG_SOFTMAX", 0, "int16"),
    "L2_POOL_2D int8": (lambda: l2_pool(dtype="int8"), "L2_POOL_2D", 0, "int8"),
    "CUMSUM int32": (lambda: cumsum("int32"), "CUMSUM", 0, "int32"),
    "GATHER_ND int32": (lambda: gather_nd("int32"), "GATHER_ND", 0, "int32"),
    "GATHER_ND int16": (lambda: gather_nd("int16"), "GATHER_ND", 0, "int16"),
}


def test_broadcast_args_types():
    assert ap.tflm.rules.op_types("BROADCAST_ARGS") == ("int32", "int64")
    assert broadcast_args("int64")
