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


# --- MAXIMUM and MINIMUM ---------------------------------------------------------------------
def binary_model(op, a_shape, b_shape, y_shape=None, b_dtype="int64", y_dtype="int64") -> bytes:
    y_shape = y_shape or tuple(np.broadcast_shapes(a_shape, b_shape))
    tensors = [dict(shape=a_shape, dtype="int64"), dict(shape=b_shape, dtype=b_dtype), dict(shape=y_shape,
                                                                                             dtype=y_dtype)]
    return L.single_op_model(op, tensors, [0, 1], [2], None, None, version=1)


@needs_litert
@pytest.mark.parametrize("op", ["MAXIMUM", "MINIMUM"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_maximum_minimum_match_litert_and_tflm(op, case, tmp_path):
    a, b = CASES[case]
    check(binary_model(op, a, b), tmp_path, op, pairs(a, b, case))


@needs_litert
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_maximum_minimum_hypothesis(data, tmp_path_factory):
    rank = data.draw(st.integers(1, 4))
    full = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    a = tuple(d if data.draw(st.booleans()) else 1 for d in full)
    b = tuple(d if data.draw(st.booleans()) else 1 for d in full)
    b = b[data.draw(st.integers(0, rank - 1)):]
    op = data.draw(st.sampled_from(["MAXIMUM", "MINIMUM"]))
    rng = np.random.default_rng(sum(full))
    check(binary_model(op, a, b), tmp_path_factory.mktemp("mm64"), op, [[values(a, rng), values(b, rng)]],
          tflm=False)


# --- ZEROS_LIKE, BROADCAST_TO, CONCATENATION, PACK, REVERSE_V2 ---------------------------------
def graph(op, ins, out, options_type=None, version=1, **fields) -> bytes:
    """A one-op model of int64 graph inputs ``ins`` (shapes) and constant int32 operands
    (("const", array) entries), its output of shape ``out``."""
    from harness.tflm_support import GraphBuilder
    g = GraphBuilder()
    tensors, graph_inputs = [], []
    for spec in ins:
        if isinstance(spec, tuple) and spec and spec[0] == "const":
            data = np.asarray(spec[1])
            tensors.append(g.tensor(data.shape, str(data.dtype), data=data))
        else:
            tensors.append(g.tensor(spec, "int64"))
            graph_inputs.append(tensors[-1])
    y = g.tensor(out, "int64")
    g.op(op, tensors, [y], options_type, version, **fields)
    return g.build(graph_inputs, [y])


def feeds_of(shapes, seed, n=3):
    rng = np.random.default_rng(seed)
    return [[values(s, rng) for s in shapes] for _ in range(n)]


@needs_litert
@pytest.mark.parametrize("shape", [(2, 3), (1, 4, 5, 3), (1,), (17,)])
def test_zeros_like(shape, tmp_path):
    check(graph("ZEROS_LIKE", [shape], shape), tmp_path, "ZEROS_LIKE", feeds_of([shape], 1))


@needs_litert
@pytest.mark.parametrize("shape,new,shape_type", [((1, 3), (2, 3), "int32"), ((3, 1, 1), (3, 4, 5), "int32"),
                                                  ((1, 1, 1, 1), (2, 2, 2, 2), "int64"), ((5,), (2, 3, 5), "int64"),
                                                  ((2, 1, 3), (2, 1, 3), "int32")])
def test_broadcast_to(shape, new, shape_type, tmp_path):
    content = graph("BROADCAST_TO", [shape, ("const", np.array(new, shape_type))], new, version=2)
    check(content, tmp_path, "BROADCAST_TO", feeds_of([shape], 2))


@needs_litert
@pytest.mark.parametrize("shapes,axis", [([(2, 3), (2, 5)], 1), ([(1, 4, 5, 3), (1, 4, 5, 1), (1, 4, 5, 2)], -1),
                                         ([(2, 3), (1, 3), (4, 3)], 0), ([(3,), (1,)], 0),
                                         ([(1, 2, 1, 3), (1, 2, 4, 3)], 2)])
def test_concatenation(shapes, axis, tmp_path):
    out = list(shapes[0])
    out[axis] = sum(s[axis] for s in shapes)
    content = graph("CONCATENATION", shapes, tuple(out), "ConcatenationOptions", axis=axis)
    check(content, tmp_path, "CONCATENATION", feeds_of(shapes, 3))


@needs_litert
@pytest.mark.parametrize("shape,n,axis", [((2, 3), 2, 0), ((4, 8), 3, 1), ((2, 3), 2, -1), ((5,), 4, 0),
                                          ((1, 2, 3), 2, 3)])
def test_pack(shape, n, axis, tmp_path):
    rank = len(shape)
    k = axis + rank + 1 if axis < 0 else axis
    out = tuple(shape[:k]) + (n,) + tuple(shape[k:])
    content = graph("PACK", [shape] * n, out, "PackOptions", axis=axis, valuesCount=n)
    check(content, tmp_path, "PACK", feeds_of([shape] * n, 4))


@needs_litert
@pytest.mark.parametrize("shape,axes", [((2, 3, 4), (1,)), ((2, 3, 4), (-1,)), ((2, 3, 4, 5), (1, 2)),
                                        ((7,), (0,)), ((1, 5, 1), (0, 1, 2))])
def test_reverse_v2(shape, axes, tmp_path):
    content = graph("REVERSE_V2", [shape, ("const", np.array(axes, np.int32))], shape)
    check(content, tmp_path, "REVERSE_V2", feeds_of([shape], 5))


def test_rows():
    """The int64 rows, AP_TYPES_S64, at the end of the op table; MAXIMUM and MINIMUM may run
    in place over an input of the output's shape."""
    rows = _core.ops()
    s64 = [(r["name"]) for r in rows if r["types"] == "s64"]
    assert s64 == COMPARISONS + ["MAXIMUM", "MINIMUM", "ZEROS_LIKE", "BROADCAST_TO", "CONCATENATION",
                                 "REVERSE_V2"]
    at = [i for i, r in enumerate(rows) if r["types"] == "s64"]
    assert all(r["types"] in ("s64", "s16x8") for r in rows[at[0]:at[-1] + 1])   # appended together
    from arenaplan.ops.coverage import _s64_binary
    from arenaplan.planning.context import PlanContext
    (kernel,) = PlanContext.build(_s64_binary("MAXIMUM"), isa="portable", reference="tflm").kernels
    assert kernel.variants[0].in_place is True


def test_refusals_name_the_op(tmp_path):
    cases = [
        (binary_model("MAXIMUM", (3, 4), (3, 4), b_dtype="int32"),
         r"op 0 \(MAXIMUM\): second input tensor 1 \('t1'\) is int32, expected int64"),
        (binary_model("MINIMUM", (3, 4), (3, 4), y_dtype="int32"),
         r"op 0 \(MINIMUM\): output tensor 2 \('t2'\) is int32, expected int64"),
        (binary_model("MINIMUM", (3, 4), (2, 4), y_shape=(3, 4)),
         r"op 0 \(MINIMUM\): shapes \(3, 4\) and \(2, 4\) do not broadcast to \(3, 4\)"),
        (graph("BROADCAST_TO", [(2, 3), ("const", np.array([4, 3], np.int32))], (4, 3), version=2),
         r"op 0 \(BROADCAST_TO\): input shape \(2, 3\) does not broadcast to \[4, 3\]"),
        (graph("CONCATENATION", [(2, 3), (2, 5)], (2, 7), "ConcatenationOptions", axis=1),
         r"op 0 \(CONCATENATION\): the inputs' sizes along axis 1 sum to 8, the output has 7"),
        (graph("CONCATENATION", [(2, 3), (3, 5)], (2, 8), "ConcatenationOptions", axis=1),
         r"op 0 \(CONCATENATION\): input tensor 1 has shape \(3, 5\), which does not fit the output.s \(2, 8\) outside axis 1"),
        (graph("PACK", [(2, 3)] * 2, (2, 2, 3), "PackOptions", axis=0, valuesCount=3),
         r"op 0 \(PACK\): values_count 3 differs from the op's 2 inputs"),
        (graph("REVERSE_V2", [(2, 3, 4), ("const", np.array([0, 2], np.int32))], (2, 3, 4)),
         r"op 0 \(REVERSE_V2\): axes \[0, 2\] resolve to \[0, 2\], which are not distinct and contiguous"),
        (graph("ZEROS_LIKE", [(2, 3)], (3, 2)),
         r"op 0 \(ZEROS_LIKE\): output tensor 1 has shape \(3, 2\), the op computes \(2, 3\)"),
    ]
    for k, (content, pattern) in enumerate(cases):
        for reference in ("litert", "tflm"):
            with pytest.raises(UnsupportedModel, match=pattern):
                ap.plan(load(content, tmp_path, f"r{k}"), reference=reference)


# --- the C export on a Cortex-M4 -------------------------------------------------------------
def test_rows_on_the_cortex_m4(tmp_path):
    """The every-op Cortex-M4 cases of the int64 rows and the int16 comparisons
    (tests/test_every_op_on_cortex_m.py: each probe, each rule that runs it, both input kinds,
    exported and run under QEMU) equal the host bit for bit; so does every comparison of every
    ordered pair of EDGES, where a 32-bit core's two-word compare meets negative values, equal
    high words and low words with their top bit set."""
    from harness.firmware import build as fw
    missing = fw.missing_arm_tools()
    if missing:
        pytest.skip(f"Cortex-M toolchain not installed ({', '.join(missing)})")
    from arenaplan.planning.context import PlanContext
    from test_every_op_on_cortex_m import CPU, ISA, cases, pack
    mine = {(r["name"], r["types"]) for r in _core.ops()
            if r["types"] == "s64" or (r["types"] == "s16x8" and r["name"] in COMPARISONS)}
    found = cases(tmp_path, only=mine)
    assert {c.row for c in found} == mine
    exports, inputs, wants, labels = ([c.export for c in found], [c.inputs for c in found],
                                      [c.want for c in found], [c.label for c in found])
    n = len(EDGES)
    xs = [EDGES.reshape(n, 1).copy(), EDGES.reshape(1, n).copy()]
    for op in COMPARISONS + ["MAXIMUM", "MINIMUM"]:
        content = compare_model(op, "int64", (n, 1), (1, n)) if op in COMPARISONS else binary_model(op, (n, 1), (1, n))
        model = load(content, tmp_path, f"edges_{op}")
        ctx = PlanContext.build(model, isa=ISA, reference="tflm")
        plan = ctx.make([ctx.kernels[0].variants[0]], "size", with_greedy=False)
        assert plan.verify()
        exports.append(plan.export_c(tmp_path / "src", name=f"edges_{op.lower()}"))
        inputs.append(xs)
        wants.append([np.asarray(ap.Interpreter(plan).run(xs))])
        labels.append(f"{op} (s64) every pair of edges")
    cpu = fw.ARM_CPUS[CPU]
    runtime = fw.cached_runtime(fw.ARM_CC, fw.arm_flags(cpu), cpu.name)
    wrong = []
    for i, members in enumerate(pack(exports, cpu.board)):
        image = fw.build_arm_batch([exports[k] for k in members], cpu, runtime, tmp_path / f"image{i}",
                                   inputs=[inputs[k] for k in members])
        raws, _ = fw.run_batch(image, len(members))
        for k, raw in zip(members, raws):
            got = fw.split_outputs(raw, [(w.dtype, w.shape) for w in wants[k]])
            for g, w in zip(got, wants[k]):
                if not np.array_equal(g.view(np.uint8), w.view(np.uint8)):
                    wrong.append(f"{labels[k]}: {int((g != w).sum())} of {w.size} outputs differ")
    assert not wrong, "\n".join(wrong)
    # the edge comparisons are not all one value (the host equals LiteRT's on them above)
    assert all(len(np.unique(w[0])) == 2 for w in wants[-8:-2])


@needs_litert
def test_constant_operands(tmp_path):
    """A constant int64 operand (the const pool's bytes, read as the activations are): LESS and
    MAXIMUM against a constant of edges, CONCATENATION of an input and a constant."""
    const = EDGES[:8].reshape(1, 8).copy()
    for op in ("LESS", "MAXIMUM"):
        content = graph(op, [(3, 8), ("const", const)], (3, 8))
        if op == "LESS":   # a bool output
            from harness.tflm_support import GraphBuilder
            g = GraphBuilder()
            a, b = g.tensor((3, 8), "int64"), g.tensor((1, 8), "int64", data=const)
            y = g.tensor((3, 8), "bool")
            g.op(op, [a, b], [y])
            content = g.build([a], [y])
        check(content, tmp_path, op, feeds_of([(3, 8)], 6))
    content = graph("CONCATENATION", [(2, 8), ("const", np.concatenate([const, const[:, ::-1]]))], (4, 8),
                    "ConcatenationOptions", axis=0)
    check(content, tmp_path, "CONCATENATION", feeds_of([(2, 8)], 7))


def test_a_plan_is_aligned_for_the_widest_element_it_reads():
    """A plan's alignment is at least what its kernels read: 8 for int64 tensors, 4 for float32
    or int32 ones and for any model (the kernels' int32 scratch); below it the plan is refused
    naming the tensor, never made with misaligned buffers."""
    from arenaplan.ops.coverage import probe_models
    cases = [(("EQUAL", "s64"), 4, r"alignment 4 is below 8, .*tensor \d+ is int64"),
             (("ADD", "f32"), 2, r"alignment 2 is below 4, .*tensor \d+ is float32"),
             (("CONV_2D", "s8"), 1, r"alignment 1 is below 4, .*int32 values in their scratch")]
    for row, alignment, pattern in cases:
        m = probe_models(row)()[0]
        with pytest.raises(ap.InvalidArgument, match=pattern):
            ap.plan(m, alignment=alignment, reference="tflm")
    ap.plan(probe_models(("EQUAL", "s64"))()[0], alignment=8, reference="tflm").verify()
    ap.plan(probe_models(("CONV_2D", "s8"))()[0], alignment=4, reference="tflm").verify()
