"""ap.tflm's rules for REVERSE_V2, REDUCE_ALL and GATHER with batch_dims, against TensorFlow
Lite Micro itself.

The families (harness.tflm_support: FAMILIES["misc_ops"], ["misc_prepare_peak"],
["misc_chains"]) run in tests/test_tflm_ops.py with every family; here: random one-op models
(random_misc_op_model), each of which must allocate and run in the tflite-micro package's
interpreter at ``ap.tflm.arena(m, pointer_bytes=8).arena_size`` and not 16 bytes below it,
with its allocation report's head and tail; the breakdown the rules give these ops; and the
models TFLM fails at any arena size (REVERSE_V2 of rank 7, more axes than the rank, axes
repeated, out of range, not contiguous or none; REDUCE_ALL on other than bool), refused by
the rules naming the op and what is wrong.
"""
from __future__ import annotations

import numpy as np
import pytest

import arenaplan as ap
from harness.tflm_support import (FAMILIES, HAVE_TFLM, GraphBuilder, gather, random_misc_op_model, reduce_all,
                                  reverse_v2, trial)
from test_tflm_ops import check_exact, load

needs_tflm = pytest.mark.skipif(not HAVE_TFLM, reason="tflite-micro is not importable")


@needs_tflm
def test_random_misc_op_models_are_tflms(tmp_path):
    """40 random one-op models, each exact (300 of 300 over two seeds of 150 when the rules
    were written)."""
    rng = np.random.default_rng(3)
    kinds = set()
    for _ in range(40):
        kind, content = random_misc_op_model(rng)
        check_exact(content, tmp_path)
        kinds.add(kind)
    assert kinds == {"reverse_v2", "reduce_all", "gather_batch"}


def _arena(content, tmp_path, p=8):
    return ap.tflm.arena(load(content, tmp_path), pointer_bytes=p)


@needs_tflm
def test_breakdown(tmp_path):
    def ops(r):
        return [(a.op_type, a.bytes) for a in r.allocations if a.kind == "kernel op data"]
    # REVERSE_V2: no Init, no options, no scratch
    r = _arena(reverse_v2("float32"), tmp_path)
    assert ops(r) == [] and "op options" not in r.tail_by_kind() and r.scratch() == []
    # REDUCE_ALL: OpDataReduce (44 B, here 47 with the gap its 4-byte alignment leaves below
    # the 1-byte TfLiteReducerParams), as REDUCE_MAX; scratch the input's dimensions and the
    # resolved axes (an int each)
    r = _arena(reduce_all((2, 3, 4, 5), (0, 2, 2)), tmp_path)
    assert ap.tflm.rules.sizes_for(8).op_data["REDUCE_ALL"] == 44
    assert ops(r) == [("REDUCE_ALL", 47)] and r.tail_by_kind()["op options"] == 1
    assert [(a.op_type, a.bytes) for a in r.scratch()] == [("REDUCE_ALL", 16), ("REDUCE_ALL", 16)]
    # GATHER with batch_dims: its output's dims copied into the tail (rank 3: a TfLiteIntArray
    # of 16 B)
    m = load(gather("float32", (2, 5, 4), axis=1, idx_shape=(2, 3), batch_dims=1), tmp_path)
    assert ap.tflm.rules.kernel_persistent(m, m.operators[0], ap.tflm.rules.sizes_for(8)) == [("output dims", 16)]
    assert ap.tflm.rules.op_types("REVERSE_V2") == ("int8", "int16", "int32", "int64", "float32", "bool", "uint8")


def test_families_are_listed():
    assert len(FAMILIES["misc_ops"]) == 21 and len(FAMILIES["misc_prepare_peak"]) == 7
    assert list(FAMILIES["misc_chains"]) == ["chain_misc"]


def _refused(content, tmp_path, match):
    assert not trial(content, 1 << 17)["ok"]            # TFLM fails it at any arena size
    with pytest.raises(ap.UnsupportedModel, match=match):
        ap.tflm.arena(load(content, tmp_path))


def _reduce_all_of(dtype):
    g = GraphBuilder()
    x = g.tensor((2, 3), dtype, (0.05, 0) if dtype == "int8" else None)
    a = g.tensor((1,), "int32", data=np.array([1], np.int32))
    y = g.tensor((2,), dtype, (0.05, 0) if dtype == "int8" else None)
    g.op("REDUCE_ALL", [x, a], [y], "ReducerOptions", keepDims=False)
    return g.build([x], [y])


_REFUSED = {
    "rank 7": (lambda: reverse_v2("int8", (2, 1, 2, 1, 2, 1, 2), (1,)),
               r"the input has rank 7; TFLite Micro's REVERSE_V2 takes at most 6"),
    "4 axes of rank 3": (lambda: reverse_v2("int8", (2, 3, 4), (0, 1, 2, 0)),
                         r"4 axes for an input of rank 3; TFLite Micro's REVERSE_V2 takes at most the rank"),
    "a gap": (lambda: reverse_v2("float32", (2, 3, 4), (0, 2)),
              r"axes \[0, 2\] are not distinct and contiguous; TFLite Micro's REVERSE_V2 fails every run"),
    "a repeat": (lambda: reverse_v2("int16", (2, 3, 4), (1, -2)), r"axes \[1, -2\] are not distinct and contiguous"),
    "out of range": (lambda: reverse_v2("bool", (2, 3, 4), (3,)), r"axes \[3\] lie outside \[-3, 3\)"),
    "no axes": (lambda: reverse_v2("int8", (2, 3, 4), ()), r"the axes tensor is empty"),
}


@needs_tflm
@pytest.mark.parametrize("case", list(_REFUSED))
def test_reverse_v2_tflm_fails_is_named(case, tmp_path):
    build, match = _REFUSED[case]
    _refused(build(), tmp_path, r"op 0 \(REVERSE_V2\): " + match)


@needs_tflm
@pytest.mark.parametrize("dtype", ["int8", "float32", "int32"])
def test_reduce_all_types_the_kernel_lacks_are_named(dtype, tmp_path):
    _refused(_reduce_all_of(dtype), tmp_path, rf"op 0 \(REDUCE_ALL\): tensor 0 't0' has type {dtype}, which TFLite "
                                              r"Micro's REDUCE_ALL kernel does not support")
