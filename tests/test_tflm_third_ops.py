"""ap.tflm's rules for the third ops (comparisons, logical ops, ARG_MAX / ARG_MIN, GATHER,
EMBEDDING_LOOKUP, SELECT_V2, CAST, FILL, ZEROS_LIKE, SHAPE, FLOOR_DIV, FLOOR_MOD, ADD_N),
against TensorFlow Lite Micro itself.

Each model is written with the TFLite schema (harness.tflm_support: the builders of
FAMILIES["third_ops"] and ["third_prepare_peak"], random_third_op_model). For each,
``ap.tflm.arena(m, pointer_bytes=8)`` must be the smallest arena with which the tflite-micro
package's interpreter allocates and runs the model (it does at the prediction and does not
16 bytes below it), with its allocation report's head and tail. The types TFLM's kernels
do not take are refused, by TFLM at any arena size and by the rules naming op, tensor and
type.
"""
from __future__ import annotations

import numpy as np
import pytest

import arenaplan as ap
from harness.tflm_support import (FAMILIES, HAVE_TFLM, add_n, arg_min_max, cast, compare, embedding_lookup, fill,
                                  floor_op, gather, random_third_op_model, select_v2, shape_op, trial, zeros_like)
from test_tflm_fourth_ops import _REFUSED as _FOURTH_REFUSED
from test_tflm_ops import _refused, check_exact, load

needs_tflm = pytest.mark.skipif(not HAVE_TFLM, reason="tflite-micro is not importable")
CASES = [(f, c) for f in ("third_ops", "third_prepare_peak") for c in FAMILIES[f]]


@needs_tflm
@pytest.mark.parametrize("family,case", CASES, ids=[f"{f}-{c}" for f, c in CASES])
def test_arena_is_tflms(family, case, tmp_path):
    r = check_exact(FAMILIES[family][case](), tmp_path)
    small = ap.tflm.arena(load(FAMILIES[family][case](), tmp_path), pointer_bytes=4)
    assert small.predicted and small.arena_size < r.arena_size


@needs_tflm
@pytest.mark.parametrize("seed", [3, 4])
def test_random_third_op_models_are_tflms(seed, tmp_path):
    """40 random one-op models a seed (harness.tflm_support.random_third_op_model), each
    exact (300 of 300 over two seeds of 150 when the rules were written)."""
    rng = np.random.default_rng(seed)
    kinds = set()
    for _ in range(40):
        kind, content = random_third_op_model(rng)
        check_exact(content, tmp_path)
        kinds.add(kind)
    assert len(kinds) >= 9, kinds


def _scratch(content, tmp_path, pointer_bytes=8):
    r = ap.tflm.arena(load(content, tmp_path), pointer_bytes=pointer_bytes)
    return [(a.op_type, a.bytes) for a in r.scratch()], r


@needs_tflm
def test_breakdown_of_the_third_ops(tmp_path):
    # ADD_N asks for one data pointer per input (8 B each on the host, 4 on a Cortex-M:
    # 40 and 20 B, placed 16-aligned)
    assert _scratch(add_n("float32", 5), tmp_path)[0] == [("ADD_N", 48)]
    assert _scratch(add_n("float32", 5), tmp_path, 4)[0] == [("ADD_N", 32)]
    # the comparisons keep ComparisonParams (32 B), int8 ADD_N its OpData (40 B)
    ops = lambda r: {(a.op_type, a.bytes) for a in r.allocations if a.kind == "kernel op data"}  # noqa: E731
    assert ops(_scratch(compare("LESS"), tmp_path)[1]) == {("LESS", 32)}
    assert ops(_scratch(add_n("int8"), tmp_path)[1]) == {("ADD_N", 40)}
    # GATHER and EMBEDDING_LOOKUP copy their output's dims into the tail in Prepare (a
    # TfLiteIntArray: 4 B and 4 a dimension), EMBEDDING_LOOKUP its OpData too (a float and a
    # size_t: 16 B on the host, 8 on a Cortex-M)
    def persistent(content, p=8):
        g = ap.tflm.graph.file_graph(load(content, tmp_path))
        return ap.tflm.rules.kernel_persistent(g, g.ops[0], ap.tflm.rules.sizes_for(p))
    assert persistent(gather("int8", shape=(3, 10, 2), axis=1)) == [("output dims", 16)]
    assert persistent(embedding_lookup("int8", cols=(4, 2))) == [("output dims", 16), ("prepare op data", 16)]
    assert persistent(embedding_lookup("int8", cols=(4, 2)), 4) == [("output dims", 16), ("prepare op data", 8)]
    e = _scratch(embedding_lookup("int8", cols=(4, 2)), tmp_path)[1]
    assert "output dims" in e.tail_by_kind() and [op for op, _ in ops(e)] == ["EMBEDDING_LOOKUP"]
    # options: TfLiteGatherParams 8 B, TfLiteArgMaxParams 4, TfLiteCastParams 8, TfLiteShapeParams 4
    opts = lambda c: [a.bytes for a in _scratch(c, tmp_path)[1].allocations if a.kind == "op options"]  # noqa: E731
    assert opts(gather()) == [8] and opts(arg_min_max("ARG_MAX")) == [4]
    assert opts(cast()) == [8] and opts(shape_op()) == [4] and opts(compare("EQUAL")) == []


@needs_tflm
def test_persistent_buffers_over_live_temporaries(tmp_path):
    """GATHER's and EMBEDDING_LOOKUP's Prepare allocate persistent buffers while their
    temporary TfLiteTensors are live; TFLM checks those against the head only, so they may
    overlap the temporaries, and the arena is the smallest where no write lands on a field
    still to be read: the output dims alone do not count (GATHER), the int8 table's OpData
    does (its num_columns over the output's zero-point pointer), the float32 output's type
    may be overwritten by a dims word of a type no wider (rank 2 or 3) but not 4 (int64)."""
    peak = lambda c: ap.tflm.arena(load(c, tmp_path), pointer_bytes=8).peaks["prepare"]  # noqa: E731
    for content, arena in ((gather("int8", shape=(2, 1), n=1), 1088),
                           (embedding_lookup("int8", rows=2, cols=(1,), n=1), 1088),
                           (embedding_lookup("int8", rows=2, cols=(1, 1, 1), n=1), 1104),
                           (embedding_lookup("int8", rows=2, cols=(1,), n=1, out="float32"), 1040),
                           (embedding_lookup("int8", rows=2, cols=(1, 1, 1), n=1, out="float32"), 1072)):
        assert peak(content) == arena
        assert trial(content, arena)["ok"] and not trial(content, arena - 16)["ok"]


_REFUSED = {
    # ops arenaplan runs in types TFLM's kernels do not take
    "GATHER int32": (lambda: gather("int32"), "GATHER", 0, "int32"),
    "GATHER bool": (lambda: gather("bool"), "GATHER", 0, "bool"),
    "SELECT_V2 int32": (lambda: select_v2("int32"), "SELECT_V2", 1, "int32"),
    "SELECT_V2 bool": (lambda: select_v2("bool"), "SELECT_V2", 1, "bool"),
    "FILL bool": (lambda: fill("bool"), "FILL", 1, "bool"),
    "FLOOR_DIV int32": (lambda: floor_op("FLOOR_DIV", "int32"), "FLOOR_DIV", 0, "int32"),
    "FLOOR_MOD int32": (lambda: floor_op("FLOOR_MOD", "int32"), "FLOOR_MOD", 0, "int32"),
    "ADD_N int32": (lambda: add_n("int32"), "ADD_N", 0, "int32"),
    "ARG_MAX int32": (lambda: arg_min_max("ARG_MAX", "int32"), "ARG_MAX", 0, "int32"),
    "ARG_MIN int32": (lambda: arg_min_max("ARG_MIN", "int32"), "ARG_MIN", 0, "int32"),
    "ARG_MAX int64 out": (lambda: arg_min_max("ARG_MAX", out="int64"), "ARG_MAX", 2, "int64"),
    "SHAPE int64 out": (lambda: shape_op(out="int64"), "SHAPE", 1, "int64"),
    "LESS int16": (lambda: compare("LESS", "int16"), "LESS", 0, "int16"),
    "EQUAL int16": (lambda: compare("EQUAL", "int16"), "EQUAL", 0, "int16"),
    "GREATER bool": (lambda: compare("GREATER", "bool"), "GREATER", 0, "bool"),
    "ZEROS_LIKE bool": (lambda: zeros_like("bool"), "ZEROS_LIKE", 0, "bool"),
}


#: The refusals of both tables: this file's and test_tflm_fourth_ops's (the fourth ops).
_ALL_REFUSED = {**_REFUSED, **_FOURTH_REFUSED}
assert len(_ALL_REFUSED) == len(_REFUSED) + len(_FOURTH_REFUSED)


@needs_tflm
@pytest.mark.parametrize("case", list(_ALL_REFUSED))
def test_types_the_kernels_lack_are_named(case, tmp_path):
    build, op, tensor, dtype = _ALL_REFUSED[case]
    _refused(build(), tmp_path, rf"op 0 \({op}\): tensor {tensor} 't{tensor}' has type {dtype}, which TFLite "
                                rf"Micro's {op} kernel does not support")


def test_every_coverage_probe_has_a_rule_or_a_named_refusal():
    """Every op table row's probe models: ap.tflm gives an arena, or refuses naming the op
    TFLM has no kernel for (RELU_N1_TO_1) or the tensor whose type its kernel does not take."""
    from arenaplan import _core
    from arenaplan.ops.coverage import probe_models
    refused = set()
    for row in _core.ops():
        for m in probe_models((row["name"], row["types"]))():
            try:
                ap.tflm.arena(m, pointer_bytes=8)
            except ap.UnsupportedModel as e:
                assert "no kernel for this op" in str(e) or "kernel does not support" in str(e), str(e)
                refused.add((row["name"], row["types"]))
    assert refused == {("RELU", "f32"), ("FILL", "bool"), ("FLOOR_DIV", "s32"), ("FLOOR_MOD", "s32"),
                       ("ADD_N", "s32"), ("GATHER", "s32"), ("GATHER", "bool"), ("SELECT_V2", "s32"),
                       ("SELECT_V2", "bool"), ("ARG_MAX", "s32"), ("ARG_MIN", "s32"), ("GATHER_ND", "s32"),
                       ("JUMP", "s8"),   # arenaplan's own control node of inlined IF / WHILE
                       # LiteRT's int16 comparisons (TFLM's GREATER takes int16, its others none)
                       *{(op, "s16x8") for op in ("EQUAL", "NOT_EQUAL", "GREATER_EQUAL", "LESS", "LESS_EQUAL")}}


def _gdb_env() -> dict:
    """The environment without the sanitizer runtime CI preloads into the suite: gdb, and the
    unsanitized package it traces, hang under an LD_PRELOADed AddressSanitizer."""
    import os
    return {k: v for k, v in os.environ.items()
            if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "AP_SANITIZE")}


def _sizes_allocated_by(symbol: str):
    """The byte counts a function of the tflite-micro package's binary passes to
    AllocatePersistentBuffer (the immediates it loads into the size argument, %esi)."""
    import re
    import shutil
    import subprocess
    from pathlib import Path
    import tflite_micro
    so = Path(tflite_micro.__file__).parent / "python" / "tflite_micro" / "_runtime.so"
    if shutil.which("gdb") is None or not so.exists():
        pytest.skip("gdb or the package's _runtime.so is not available")
    out = subprocess.run(["gdb", "-batch", "-ex", f"disassemble '{symbol}'", str(so)], capture_output=True,
                         text=True, timeout=120, env=_gdb_env()).stdout
    if "Dump of assembler code" not in out:
        pytest.skip(f"{symbol} is not in the package's symbols")
    return [int(v, 16) for v in re.findall(r"mov\s+\$0x([0-9a-f]+),%esi", out)]


@needs_tflm
def test_allocator_objects_are_the_packages():
    """The 448 B TFLM places in the tail before the model is read, derived from the
    members of its allocator, planner and arena allocator (rules.allocator_objects), are
    what the package's binary allocates: RecordingSingleArenaBufferAllocator 104 B,
    GreedyMemoryPlanner 72 B, RecordingMicroAllocator 272 B (and the plain
    SingleArenaBufferAllocator and MicroAllocator a firmware creates, 72 B each)."""
    from arenaplan.tflm.rules import allocator_objects
    assert allocator_objects(8, recording=True) == ap.tflm.rules.sizes_for(8).fixed == 104 + 72 + 272
    assert allocator_objects(4, recording=False) == ap.tflm.rules.sizes_for(4).fixed == 36 + 44 + 36
    arena = _sizes_allocated_by("tflite::micro::RecordingSingleArenaBufferAllocator::Create(unsigned char*, "
                                "unsigned long)")
    planner_and_allocator = _sizes_allocated_by("tflite::micro::RecordingMicroAllocator::Create(unsigned char*, "
                                                "unsigned long)")
    assert arena == [104] and planner_and_allocator == [72, 272]
    assert sum(arena + planner_and_allocator) == allocator_objects(8, recording=True)
    assert _sizes_allocated_by("tflite::micro::SingleArenaBufferAllocator::Create(unsigned char*, unsigned long)") \
        == [allocator_objects(8, recording=False) - 72 - 72]
    assert _sizes_allocated_by("tflite::micro::MicroAllocator::Create(tflite::micro::SingleArenaBufferAllocator*, "
                               "tflite::micro::MicroMemoryPlanner*)") == [72]
    # MicroResourceVariables (a pointer and two ints) as rules.Sizes counts it
    assert _sizes_allocated_by("tflite::micro::MicroResourceVariables::Create(tflite::micro::MicroAllocator*, int)") \
        [:1] == [ap.tflm.rules.sizes_for(8).resource_variables]


@needs_tflm
def test_subgraph_records_are_three_pointers(tmp_path):
    """Each SubgraphAllocations is three pointers in the package's USE_TFLM_COMPRESSION
    build (nodes, eval tensors, compressed tensors): StartModelAllocation asks for 24 B a
    subgraph, after the 16 B MicroBuiltinDataAllocator (a trace of the package's
    AllocatePersistentBuffer calls under gdb, on the two-subgraph streaming model)."""
    import shutil
    import subprocess
    import sys
    from harness.tflm_support import resource_model
    if shutil.which("gdb") is None:
        pytest.skip("gdb is not available")
    model = tmp_path / "streaming.tflite"
    model.write_bytes(resource_model("streaming"))
    script = tmp_path / "run.py"
    script.write_text("import sys\nfrom tflite_micro.python.tflite_micro import runtime\n"
                      "runtime.Interpreter.from_bytes(open(sys.argv[1], 'rb').read(), arena_size=1 << 16)\n")
    cmd = tmp_path / "trace.gdb"
    cmd.write_text("set pagination off\nset breakpoint pending on\n"
                   "break tflite::micro::MicroAllocator::StartModelAllocation\n"
                   "break tflite::micro::RecordingSingleArenaBufferAllocator::AllocatePersistentBuffer\n"
                   "commands 2\nsilent\nprintf \"ALLOC %lu\\n\", $rsi\ncontinue\nend\n"
                   "commands 1\nsilent\nprintf \"START\\n\"\ncontinue\nend\nrun\n")
    out = subprocess.run(["gdb", "-batch", "-x", str(cmd), "--args", sys.executable, str(script), str(model)],
                         capture_output=True, text=True, timeout=300, env=_gdb_env()).stdout
    if "START" not in out:
        pytest.skip("the package's symbols are not available to gdb")
    import re
    after = [int(v) for v in re.findall(r"ALLOC (\d+)", out.split("START", 1)[1])]
    s = ap.tflm.rules.sizes_for(8)
    assert after[:2] == [s.builtin_data_allocator, s.subgraph_allocations * 2] == [16, 48]
    before = [int(v) for v in re.findall(r"ALLOC (\d+)", out.split("START", 1)[0])]
    # the allocator objects, then MicroResourceVariables and two 40 B records
    assert before == [104, 72, 272, s.resource_variables, 2 * s.resource_variable]
