"""Resource variables and CALL_ONCE (issue 27, state and subgraphs): a two-subgraph streaming
model (harness/resource_models.py: CALL_ONCE initialises a streaming buffer and an
accumulator, the main graph reads them, adds the input frame, concatenates and slices, and
assigns them back) planned, verified and run call by call with its state carried, equal to
LiteRT's reference kernels (BUILTIN_REF) and to TensorFlow Lite Micro, also after
reset_state(); its C export built for the host carries and resets the state as the
Interpreter does; the bad forms (a subgraph index out of range, a recursive call, an
initialisation that does not fold, a read before any assignment, two shapes for one
variable, an IF whose branch holds resource ops) are refused naming the subgraph, op and what is wrong."""
from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

import arenaplan as ap
from arenaplan.errors import ModelError, UnsupportedModel
from harness import resource_models as R
from harness.reference import litert_layers as L
from harness.tflm_support import HAVE_TFLM

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
CALLS = 5


def _run_litert(content: bytes, xs: list) -> list:
    return L.run_sequence(content, [[x] for x in xs])[0]


def _same(got, want, what: str) -> None:
    assert len(got) == len(want) >= 1
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, what
        np.testing.assert_array_equal(g, w, err_msg=what)


def test_the_importer_makes_the_variables_state():
    content, initial = R.streaming_model(np.random.default_rng(0))
    m = ap.parse_tflite(content)
    assert [op.type for op in m.operators] == ["READ_VARIABLE", "CONCATENATION", "STRIDED_SLICE",
                                              "ASSIGN_VARIABLE", "READ_VARIABLE", "RESHAPE", "ADD",
                                              "ASSIGN_VARIABLE"]
    state = {m.tensors[t].name: m.tensors[t] for t in m.variable_tensors()}
    assert sorted(state) == ["streaming/acc", "streaming/buf"]
    for name, t in state.items():
        want = initial[name.split("/")[1]]
        assert t.shape == want.shape and t.dtype == "int8" and t.data is None
        np.testing.assert_array_equal(t.initial, want)
    assert state["streaming/buf"].quantization.zero_point == (R.X_Q[1],)
    reads = [op for op in m.operators if op.type == "READ_VARIABLE"]
    assert [m.tensors[op.inputs[0]].name for op in reads] == ["streaming/buf", "streaming/acc"]
    assert [op.options["source_op"] for op in m.operators if op.type.endswith("VARIABLE")] == [3, 6, 7, 10]
    p = ap.plan(m)
    assert p.verify() and p.state_bytes == 32 and len(p.state_buffers) == 2
    it = ap.Interpreter(p)
    for t in m.variable_tensors():   # the initial values before the first run
        np.testing.assert_array_equal(it.state_tensor(t), m.tensors[t].initial)


@needs_litert
@pytest.mark.parametrize("init", ["const", "quantize", "nested"])
@pytest.mark.parametrize("mode", ["size", "speed"])
def test_streaming_state_matches_litert_call_by_call(init, mode):
    rng = np.random.default_rng({"const": 1, "quantize": 2, "nested": 3}[init])
    content, initial = R.streaming_model(rng, init=init)
    xs = R.frames(rng, CALLS)
    wants = _run_litert(content, xs)
    m = ap.parse_tflite(content)
    if init == "quantize":
        acc = next(t for t in m.variable_tensors() if m.tensors[t].name.endswith("acc"))
        np.testing.assert_array_equal(m.tensors[acc].initial, initial["acc"])
    p = ap.plan(m, mode=mode)
    assert p.verify()
    it = ap.Interpreter(p)
    for k, (x, want) in enumerate(zip(xs, wants)):
        _same(it.run(x), want, f"call {k}")
    assert len({w[1].tobytes() for w in wants}) > 2   # the accumulator carries state
    it.reset_state()   # back to the CALL_ONCE values: a fresh LiteRT interpreter's outputs again
    for k, (x, want) in enumerate(zip(xs, wants)):
        _same(it.run(x), want, f"call {k} after reset_state")
    again = ap.Plan.from_json(p.to_json(), m)   # the file's state starts at the initial values too
    assert [b.initial for b in again.state_buffers] == [b.initial for b in p.state_buffers]
    _same(ap.Interpreter(again).run(xs[0]), wants[0], "plan from JSON")


@needs_litert
@pytest.mark.skipif(not HAVE_TFLM, reason="tflite-micro is not importable")
def test_tflite_micro_agrees():
    """TensorFlow Lite Micro runs the model too: a second peer, call by call."""
    from tflite_micro.python.tflite_micro import runtime
    rng = np.random.default_rng(4)
    content, _ = R.streaming_model(rng)
    xs = R.frames(rng, CALLS)
    tflm = runtime.Interpreter.from_bytes(content, arena_size=64 * 1024)
    it = ap.Interpreter(ap.plan(ap.parse_tflite(content)))
    for k, x in enumerate(xs):
        tflm.set_input(x, 0)
        tflm.invoke()
        _same(it.run(x), [tflm.get_output(0), tflm.get_output(1)], f"TFLM call {k}")


@needs_litert
@pytest.mark.parametrize("mode", ["size", "speed"])
def test_c_export_carries_and_resets_the_state(mode, tmp_path, monkeypatch):
    """The export starts its state pool at the CALL_ONCE values, carries it between invokes
    and <name>_reset_state() restores them: the host build equals the Interpreter over
    calls with a reset in the middle."""
    from harness.firmware import build as fw
    rng = np.random.default_rng(5)
    content, initial = R.streaming_model(rng)
    p = ap.plan(ap.parse_tflite(content), mode=mode)
    out = p.export_c(tmp_path, name="net")
    c = out.source.read_text()
    assert "static const uint8_t net_state_initial_0[12u] = {" in c
    assert re.search(r"memcpy\(net_state \+ \d+u, net_state_initial_1, 3u\);", c)
    xs = R.frames(rng, CALLS)
    reset_at = 3
    write_io = fw.write_io

    def write_io_with_reset(exported, out_dir, *args, **kwargs):   # reset before call reset_at
        path = write_io(exported, out_dir, *args, **kwargs)
        text = path.read_text().replace(
            "int ap_io_invoke(const void *const *inputs, void *const *outputs)\n{",
            "int ap_io_invoke(const void *const *inputs, void *const *outputs)\n{\n"
            f"    static unsigned calls;\n    if (calls++ == {reset_at}u) {{ net_reset_state(); }}")
        path.write_text(text)
        return path

    monkeypatch.setattr(fw, "write_io", write_io_with_reset)
    exe = fw.build_host(out, fw.cached_runtime(fw.HOST_CC, fw.HOST_FLAGS, "host"), tmp_path)
    got = fw.run_host(exe, [[x] for x in xs], [("int8", (1, 5, 3)), ("int8", (1, 3))], tmp_path)
    it = ap.Interpreter(p)
    for k, (x, g) in enumerate(zip(xs, got)):
        if k == reset_at:
            it.reset_state()
        _same(g, it.run(x), f"C export, call {k}")
    for k, want in enumerate(_run_litert(content, xs[reset_at:]), reset_at):   # a fresh LiteRT
        _same(got[k], want, f"C export against LiteRT, call {k}")


@needs_litert
def test_reads_use_the_state_in_place_where_the_graph_allows():
    """Both reads of the streaming model are used before their variable's next assignment:
    they take no activation (their readers read the state pool). A read whose value is also
    used after the assignment (the late reader) is a copy, and the old value is what it sees."""
    rng = np.random.default_rng(9)
    content, _ = R.streaming_model(rng)
    m = ap.parse_tflite(content)
    names = {m.tensors[y].name: m.tensors[v].name for y, v in m.state_reads().items()}
    assert names == {"buf_read": "streaming/buf", "acc_read": "streaming/acc"}
    p = ap.plan(m)
    planned = {m.tensors[t].name for b in p.buffers for t in b.tensors}
    assert not planned & set(names) and {"window", "sum"} <= planned
    late, _ = R.streaming_model(rng, late_reader=True)
    ml = ap.parse_tflite(late)
    assert {ml.tensors[y].name for y in ml.state_reads()} == {"buf_read"}
    pl = ap.plan(ml)
    assert pl.verify() and "acc_read" in {ml.tensors[t].name for b in pl.buffers for t in b.tensors}
    it = ap.Interpreter(pl)
    xs = R.frames(rng, CALLS)
    wants = _run_litert(late, xs)
    for k, (x, want) in enumerate(zip(xs, wants)):
        got = it.run(x)
        assert len(got) == 3
        _same(got, want, f"call {k}")
    # the late reader adds the frame to the old value, as the sum does (the new value would
    # give the sum plus the frame again)
    assert all(np.array_equal(w[1], w[2]) for w in wants)


@needs_litert
@pytest.mark.parametrize("late_reader", [False, True])
def test_values_are_written_straight_into_the_state_where_the_graph_allows(late_reader):
    """buf's next value (the STRIDED_SLICE) goes straight into buf's state: nothing reads buf
    from the slice to the ASSIGN. The sum (no output here) goes into acc's state only when the
    ADD does not read acc in place (with the late reader, acc's read is a copy); LiteRT agrees
    call by call either way."""
    rng = np.random.default_rng(11)
    content, _ = R.streaming_model(rng, late_reader=late_reader, sum_output=False)
    m = ap.parse_tflite(content)
    writes = {m.tensors[s].name: m.tensors[v].name for s, v in m.state_writes().items()}
    assert writes == ({"buf_next": "streaming/buf", "sum": "streaming/acc"} if late_reader
                      else {"buf_next": "streaming/buf"})
    p = ap.plan(m)
    assert p.verify()
    planned = {m.tensors[t].name for b in p.buffers for t in b.tensors}
    assert not planned & set(writes)
    it = ap.Interpreter(p)
    xs = R.frames(rng, CALLS)
    for k, (x, want) in enumerate(zip(xs, _run_litert(content, xs))):
        got = it.run(x)
        _same(got if isinstance(got, list) else [got], want, f"call {k}")


# --- bad input -------------------------------------------------------------------------------
def _refused(content: bytes, match: str, error=UnsupportedModel) -> None:
    m = ap.parse_tflite(content)
    with pytest.raises(error, match=match):
        ap.plan(m)


@pytest.mark.parametrize("kwargs,match", [
    (dict(call_index=7), r"subgraph 0 op 0 \(CALL_ONCE\): init_subgraph_index 7 is out of range; the "
                         r"model has 2 subgraphs"),
    (dict(call_index=-1), r"subgraph 0 op 0 \(CALL_ONCE\): init_subgraph_index -1 is out of range"),
    (dict(call_index=0), r"subgraph 0 op 0 \(CALL_ONCE\): calls subgraph 0, which is running already "
                         r"\(subgraphs 0 -> 0\): a recursive call"),
    (dict(init_extra="self_call"), r"subgraph 1 op 4 \(CALL_ONCE\): calls subgraph 1, which is running "
                                   r"already \(subgraphs 0 -> 1 -> 1\): a recursive call"),
    (dict(init_extra="main_call"), r"subgraph 1 op 4 \(CALL_ONCE\): calls subgraph 0, which is running "
                                   r"already \(subgraphs 0 -> 1 -> 0\)"),
    (dict(init_extra="add"), r"subgraph 1 op 4 \(ADD\), in the subgraph CALL_ONCE at subgraph 0 op 0 "
                             r"\(CALL_ONCE\) initialises with: ADD does not fold to a constant"),
    (dict(init="none"), r"subgraph 0 op 7 \(READ_VARIABLE\): reads resource variable 'streaming/acc' "
                        r"before any assignment: no CALL_ONCE initialises it"),
    (dict(init="none", read_acc_first=True), r"subgraph 0 op 3 \(READ_VARIABLE\): reads resource "
                                             r"variable 'streaming/acc' before any assignment"),
    (dict(main_if=True), r"subgraph 0 op 11 \(IF\): its subgraph 1 holds VAR_HANDLE \(op 0\); arenaplan "
                         r"keeps state in subgraph 0 only"),
])
def test_bad_models_are_refused_when_planned(kwargs, match):
    content, _ = R.streaming_model(np.random.default_rng(6), **kwargs)
    _refused(content, match)


def test_two_shapes_for_one_variable():
    content, _ = R.streaming_model(np.random.default_rng(7), acc_init_shape=(1, 4))
    with pytest.raises(ModelError, match=r"resource variable 'streaming/acc' has two shapes: int8 \(1, 4\) "
                                         r"at subgraph 1 op 3 \(ASSIGN_VARIABLE\) and int8 \(1, 3\) at "
                                         r"subgraph 0 op 10 \(ASSIGN_VARIABLE\)"):
        ap.parse_tflite(content)


@needs_litert
def test_a_variable_assigned_before_it_is_read_needs_no_initial_value():
    """acc uninitialised, but subgraph 0 assigns it before reading it: the graph decides it,
    nothing is refused, and the outputs are LiteRT's call by call."""
    rng = np.random.default_rng(8)
    content, initial = R.streaming_model(rng, init="none", assign_first=True)
    m = ap.parse_tflite(content)
    acc = next(t for t in m.variable_tensors() if m.tensors[t].name.endswith("acc"))
    assert m.tensors[acc].initial is None and "acc" not in initial
    p = ap.plan(m)
    assert p.verify()
    it = ap.Interpreter(p)
    xs = R.frames(rng, CALLS)
    for k, (x, want) in enumerate(zip(xs, _run_litert(content, xs))):
        _same(it.run(x), want, f"call {k}")


@needs_litert
def test_cortex_m4_under_qemu_carries_the_state(tmp_path):
    """The exported streaming model on a Cortex-M4 (QEMU mps2-an386, the arm-dsp plan of the
    preset's pools): its state pool starts at the CALL_ONCE values and carries over, call by
    call equal to LiteRT's outputs."""
    from harness.firmware import build as fw
    rng = np.random.default_rng(10)
    content, _ = R.streaming_model(rng)
    p = ap.plan(ap.parse_tflite(content), target=ap.targets.get("cortex-m4"))
    assert p.isa == "arm-dsp" and p.verify()
    xs = R.frames(rng, CALLS)
    run = fw.run_plan_on_core(p, "cortex-m4", [[x] for x in xs], tmp_path, timeout=300)
    for k, (got, want) in enumerate(zip(run.outputs, _run_litert(content, xs))):
        assert [(g.dtype, g.shape) for g in got] == [("int8", (1, 5, 3)), ("int8", (1, 3))]
        _same(got, want, f"Cortex-M4, call {k}")


def _chained_writes_model() -> ap.Model:
    """x -> ADD(x, x) = a -> ASSIGN v; ADD(a, x) = b -> ASSIGN v; READ v -> ADD(read, x) = y.
    a may go straight into v's state (its readers run before v's next change); b may not: its
    ADD reads a, which would then be the state it writes."""
    q = ap.Quantization((0.05,), (3,))
    tensors = [ap.Tensor(0, "x", (1, 3), "int8", q), ap.Tensor(1, "a", (1, 3), "int8", q),
               ap.Tensor(2, "b", (1, 3), "int8", q), ap.Tensor(3, "read", (1, 3), "int8", q),
               ap.Tensor(4, "y", (1, 3), "int8", q),
               ap.Tensor(5, "v", (1, 3), "int8", q, None, True, np.array([[5, -7, 100]], np.int8))]
    add = {"fused_activation_function": "NONE"}
    ops = [ap.Operator(0, "ADD", (0, 0), (1,), add), ap.Operator(1, "ASSIGN_VARIABLE", (1,), (5,)),
           ap.Operator(2, "ADD", (1, 0), (2,), add), ap.Operator(3, "ASSIGN_VARIABLE", (2,), (5,)),
           ap.Operator(4, "READ_VARIABLE", (5,), (3,)), ap.Operator(5, "ADD", (3, 0), (4,), add)]
    return ap.Model("chained_writes", tensors, ops, (0,), (4,))


@pytest.mark.parametrize("build", ["chained", "streaming", "late", "late_no_sum"])
def test_state_places_give_the_outputs_of_copies(build, monkeypatch):
    """Whatever the in-place rules choose, the outputs and the state are those of a plan that
    copies every read and every assignment."""
    rng = np.random.default_rng(12)
    if build == "chained":
        m = _chained_writes_model()
        assert {m.tensors[s].name for s in m.state_writes()} == {"a"} and m.state_reads() == {3: 5}
    else:
        content, _ = R.streaming_model(rng, late_reader=build != "streaming", sum_output=build != "late_no_sum")
        m = ap.parse_tflite(content)
    assert m.state_places()
    xs = [rng.integers(-128, 128, m.tensors[m.inputs[0]].shape, dtype=np.int8) for _ in range(CALLS)]

    def run(plan):
        it = ap.Interpreter(plan)
        outs = [it.run(x) for x in xs]
        return outs, [it.state_tensor(t) for t in m.variable_tensors()]

    placed = run(ap.plan(m))
    monkeypatch.setattr(ap.Model, "state_places", lambda self: {})
    copied = run(ap.plan(m))
    for got, want in zip(placed[0] + placed[1], copied[0] + copied[1]):
        for g, w in zip(got if isinstance(got, list) else [got], want if isinstance(want, list) else [want]):
            np.testing.assert_array_equal(g, w)


def test_a_starting_value_belongs_to_a_variable_of_its_type_and_size():
    m = _chained_writes_model()
    for bad, match in [(dict(is_variable=False), r"tensor 5 \('v'\): a starting value of int8 \(1, 3\) for a "
                                                 r"non-variable int8 tensor"),
                       (dict(initial=np.zeros((1, 4), np.int8)), r"starting value of int8 \(1, 4\) for a variable "
                                                                 r"int8 tensor of shape \(1, 3\)"),
                       (dict(initial=np.zeros((1, 3), np.int16)), r"starting value of int16 \(1, 3\)")]:
        tensors = list(m.tensors)
        tensors[5] = dataclasses.replace(tensors[5], **bad)
        with pytest.raises(ModelError, match=match):
            ap.Model("bad", tensors, m.operators, m.inputs, m.outputs)


@pytest.mark.parametrize("late_reader", [False, True])
def test_no_op_writes_outside_its_output_or_reads_bytes_it_does_not_own(late_reader):
    """Every op in turn runs on poisoned pools (arena and state: only its inputs hold real
    values, wherever the rules placed them): it writes its output and scratch only, and its
    output equals the one of an unpoisoned run."""
    from arenaplan.planning.state import STATE_POOL
    from arenaplan.runtime.graph import graph_tables
    rng = np.random.default_rng(13)
    content, _ = R.streaming_model(rng, late_reader=late_reader, sum_output=not late_reader)
    p = ap.plan(ap.parse_tflite(content), mode="speed")
    it = ap.Interpreter(p)
    for x in R.frames(rng, 2):
        it.run(x)     # real values everywhere, the state moved off its start
    places, nodes, _ = graph_tables(p)
    pools = dict(it.pools, **{STATE_POOL: it.state})

    def mask(indices):
        m = {name: np.zeros(a.size, bool) for name, a in pools.items()}
        for i in indices:
            pool, offset, nbytes, data, _ = places[i]
            if pool is not None:
                m[pool][offset:offset + nbytes] = True
        return m

    for k, (kernel, _, ins, out, scratch, states) in enumerate(nodes):
        real = {name: a.copy() for name, a in pools.items()}
        allowed, keep = mask([out, *scratch, *states]), mask(ins)
        for name, a in pools.items():
            a[:] = np.where(keep[name], real[name], np.uint8(0xA5))
        before = {name: a.copy() for name, a in pools.items()}
        it._graph.invoke(it._pools, k, k + 1)
        for name, a in pools.items():
            changed = np.flatnonzero((a != before[name]) & ~allowed[name])
            assert changed.size == 0, f"op {k} ({kernel.type}) wrote {name} at {changed[:8]}"
        pool, offset, nbytes, _, _ = places[out]
        poisoned_out = pools[pool][offset:offset + nbytes].copy()
        for name, a in pools.items():
            a[:] = real[name]
        it._graph.invoke(it._pools, k, k + 1)
        np.testing.assert_array_equal(pools[pool][offset:offset + nbytes], poisoned_out,
                                      err_msg=f"op {k} ({kernel.type}) read poisoned bytes")
