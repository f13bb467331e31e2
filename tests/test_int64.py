"""The int64 rows (AP_TYPES_S64): the ops TensorFlow Lite Micro's kernels take int64 in, as the
pinned tflite-micro package runs them: EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS,
LESS_EQUAL (compare.c), MAXIMUM and MINIMUM, ZEROS_LIKE, BROADCAST_TO, CONCATENATION (and PACK
on it), REVERSE_V2. One-op .tflite models built with the flatbuffer schema, every host ISA's
direct variant inside a verified plan, bit-exact with LiteRT's reference kernels (BUILTIN_REF)
and the tflite-micro interpreter on values at the ends of int64 and across its two 32-bit words
(a 32-bit core compares and moves them as word pairs), broadcasting both ways and size-1
dimensions; hypothesis over shapes; the poisoned arena; refusals naming the op."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from harness.reference import litert_layers as L
from test_comparisons import CASES, check, compare_model
from unary_s8 import load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
COMPARISONS = ["EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL"]
I64_MIN, I64_MAX = -2 ** 63, 2 ** 63 - 1
#: Values whose order a compare of the high words alone, of the low words alone, or of either
#: word unsigned instead of signed (or the reverse) gets wrong: the ends, -1 / 0 / 1, both sides
#: of 2^31 and 2^32 and their negatives, equal high words with the low word's top bit set.
EDGES = np.array([I64_MIN, I64_MAX, -1, 0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1,
                  -2 ** 31, -2 ** 31 - 1, -2 ** 32, -2 ** 32 + 1, -2 ** 32 - 1, I64_MIN + 1, I64_MAX - 1,
                  0x7FFFFFFF80000000, -0x7FFFFFFF80000000, 0x100000000 + 0x80000000], dtype=np.int64)


def values(shape, rng) -> np.ndarray:
    """EDGES and their neighbours drawn at random, so equal values and one-apart values meet."""
    n = int(np.prod(shape))
    pool = np.concatenate([EDGES, EDGES[2:] + 1, EDGES[2:] - 1, rng.integers(I64_MIN, I64_MAX, 8, dtype=np.int64)])
    v = rng.choice(pool, size=n)
    v[:min(n, len(EDGES))] = EDGES[:min(n, len(EDGES))]
    return v[rng.permutation(n)].reshape(shape).astype(np.int64)


def pairs(a_shape, b_shape, seed):
    """Random draws, then every edge against every edge (where the shapes hold them)."""
    rng = np.random.default_rng(seed)
    out = [[values(a_shape, rng), values(b_shape, rng)] for _ in range(3)]
    na, nb = int(np.prod(a_shape)), int(np.prod(b_shape))
    for k in range(len(EDGES)):
        a = np.resize(EDGES, na).reshape(a_shape)
        b = np.resize(np.roll(EDGES, k), nb).reshape(b_shape)
        out.append([a, b])
    return out


# --- the comparisons -------------------------------------------------------------------------
@needs_litert
@pytest.mark.parametrize("op", COMPARISONS)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_compare_matches_litert_and_tflm(op, case, tmp_path):
    a, b = CASES[case]
    check(compare_model(op, "int64", a, b), tmp_path, op, pairs(a, b, case))


@needs_litert
@pytest.mark.parametrize("op", COMPARISONS)
def test_compare_every_edge_pair(op, tmp_path):
    """Every ordered pair of edges, broadcast: [n, 1] against [1, n]."""
    n = len(EDGES)
    xs = [[EDGES.reshape(n, 1).copy(), EDGES.reshape(1, n).copy()]]
    check(compare_model(op, "int64", (n, 1), (1, n)), tmp_path, op, xs)


@needs_litert
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_compare_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    full = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    a = tuple(d if data.draw(st.booleans()) else 1 for d in full)
    b = tuple(d if data.draw(st.booleans()) else 1 for d in full)
    b = b[data.draw(st.integers(0, rank - 1)):]
    op = data.draw(st.sampled_from(COMPARISONS))
    rng = np.random.default_rng(sum(full))
    xs = [[values(a, rng), values(b, rng)] for _ in range(2)]
    check(compare_model(op, "int64", a, b), tmp_path_factory.mktemp("cmp64"), op, xs, tflm=False)


def test_compare_rows():
    """A row per comparison, AP_TYPES_S64 (5), never in place (eight bytes in, one out)."""
    rows = {(r["name"], r["types"]): r["types_code"] for r in _core.ops()}
    for op in COMPARISONS:
        assert rows[(op, "s64")] == 5
    from arenaplan.ops.coverage import _compare
    from arenaplan.planning.context import PlanContext
    (kernel,) = PlanContext.build(_compare("LESS", "int64"), isa="portable", reference="tflm").kernels
    assert kernel.variants[0].in_place is False and kernel.spec["left_shift"] == 0


def test_compare_refusals_name_the_op(tmp_path):
    cases = [
        (compare_model("LESS", "int64", (3, 4), (3, 4), b_dtype="int32"),
         r"op 0 \(LESS\): input2 tensor 1 is int32, input1 int64; TFLite requires one type"),
        (compare_model("EQUAL", "int64", (3, 4), (3, 4), y_dtype="int64"),
         r"op 0 \(EQUAL\): output tensor 2 is int64; EQUAL writes bool"),
        (compare_model("GREATER", "int64", (3, 4), (2, 4), y_shape=(3, 4)),
         r"op 0 \(GREATER\): shapes \(3, 4\) and \(2, 4\) do not broadcast"),
        (compare_model("LESS_EQUAL", "int64", (1, 2, 1, 2, 1), (2, 1, 2, 1, 2)),
         r"op 0 \(LESS_EQUAL\): the broadcast shape \(2, 2, 2, 2, 2\) has rank 5; at most 4 is supported"),
    ]
    for k, (content, pattern) in enumerate(cases):
        for reference in ("litert", "tflm"):
            with pytest.raises(UnsupportedModel, match=pattern):
                ap.plan(load(content, tmp_path, f"m{k}"), reference=reference)
