"""IF and WHILE (issue 27, state, subgraphs and control flow): models written with the TFLite
schema (harness/subgraph_models.py) import with the subgraphs their IF and WHILE ops run
inlined (JUMP and COPY ops, arenaplan.model.importers.control_flow), plan with every plan
verified, and run equal to LiteRT's reference kernels (BUILTIN_REF) over several inputs, both
branches of an IF hit, nested IFs, loops of 0 and more iterations with int32 counters and int8
or float32 values carried; a permutation of carried values goes through temporaries (LiteRT
copies body outputs one by one over inputs they alias: its (a, b) -> (b, a) gives (b, b), so
that case is held to the loop's meaning); a whole run on an arena poisoned everywhere but the
inputs gives the clean run's outputs; a loop that does not end can be interrupted (Ctrl-C);
the bad forms are refused at plan time naming the subgraph, op and what is wrong; the C export
runs the same on the host and on a Cortex-M4 under QEMU. TensorFlow Lite Micro runs the IF models
the same (its ADD_N has no int32, so not these WHILE models)."""
from __future__ import annotations

import _thread
import re
import threading

import numpy as np
import pytest

import arenaplan as ap
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.lifetimes import loop_ranges, tensor_lifetimes
from harness import subgraph_models as C
from harness.reference import litert_layers as L
from harness.tflm_support import FAMILIES as TFLM_FAMILIES, HAVE_TFLM

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))


def _litert(content: bytes, feeds: list) -> list:
    return L.run_sequence(content, [feeds])[0][0]


def _same(got, want, what: str) -> None:
    got = got if isinstance(got, list) else [got]
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, what
        np.testing.assert_array_equal(g, w, err_msg=what)


def _plans(model):
    """Plans of ``model`` in each mode and for each ISA's variants, every one verified."""
    out = []
    for kwargs in ({"mode": "size"}, {"mode": "speed"}, {"mode": "size", "isa": "arm-dsp"},
                   {"mode": "size", "reference": "tflm"}):
        p = ap.plan(model, **kwargs)
        assert p.verify()
        out.append(p)
    return out


def _if_feeds(rng, count: int, nested: bool = False) -> list:
    feeds = []
    for k in range(count):
        conds = [np.array([k % 2 == 0])] + ([np.array([k % 4 < 2])] if nested else [])
        x = rng.integers(-128, 128, (1, C.N), dtype=np.int8)
        y = rng.integers(-128, 128, (1, C.N), dtype=np.int8)
        if k == count - 1:
            x, y = np.full((1, C.N), 127, np.int8), np.full((1, C.N), -128, np.int8)
        feeds.append(conds + [x, y])
    return feeds


def _while_feeds(rng, kind: str, counts=(0, 1, 2, 5, 9)) -> list:
    feeds = []
    for n in counts:
        if kind == "float32":
            values = [rng.standard_normal((1, C.N)).astype(np.float32)]
        else:
            values = [rng.integers(-128, 128, (1, C.N), dtype=np.int8)
                      for _ in range(1 if kind in ("int8", "branchy") else 2)]
        feeds.append([np.array([n], np.int32)] + values)
    return feeds


# --- import ----------------------------------------------------------------------------------
def test_if_inlines_into_jumps_and_writes_its_output_straight():
    """Each branch's last op writes the IF's output itself (no copy): the output has two writers."""
    m = ap.parse_tflite(C.if_model())
    assert [op.type for op in m.operators] == ["JUMP", "ADD", "JUMP", "MUL", "ADD", "ADD"]
    jf, j = m.operators[0], m.operators[2]
    assert (jf.options["when"], jf.options["target"], j.options["when"], j.options["target"]) == \
        ("if_false", 3, "always", 5)
    assert [op.options.get("subgraph", 0) for op in m.operators] == [0, 1, 0, 2, 2, 0]
    assert [op.options.get("source_op") for op in m.operators] == [0, 0, 0, 0, 1, None]
    out = m.operators[1].outputs[0]
    assert m.tensors[out].name == "if_out" and m.operators[4].outputs == (out,)
    assert m.tensors[m.operators[3].outputs[0]].name == "2/prod"
    assert loop_ranges(m) == []


def test_while_inlines_into_a_loop():
    m = ap.parse_tflite(C.while_model("fib"))
    types = [op.type for op in m.operators]
    assert types == ["COPY"] * 4 + ["LESS", "JUMP", "ADD_N", "ADD", "COPY", "COPY", "COPY", "COPY", "JUMP"]
    assert loop_ranges(m) == [(4, 12)]
    assert m.operators[5].options["target"] == 13
    spans = tensor_lifetimes(m)
    carried = [op.outputs[0] for op in m.operators[:4]]
    for t in carried:   # the carried values live over the whole loop
        assert spans[t][0] <= 4 and spans[t][1] >= 12
    # the temporary that keeps b while the values move: made and read inside one iteration
    temp = m.operators[8].outputs[0]
    assert m.tensors[temp].name.endswith("/next") and 4 <= spans[temp][0] <= spans[temp][1] <= 12


def test_the_branches_share_memory():
    """THEN's and ELSE's own tensors never run together: their spans do not meet, and the
    plan meets the bound of the bytes live at one op."""
    m = ap.parse_tflite(C.if_model(then_chain=True))
    spans = tensor_lifetimes(m)
    names = {m.tensors[t].name: t for t in spans}
    assert spans[names["1/diff"]][1] < spans[names["2/prod"]][0]
    p = ap.plan(m)
    assert p.verify()
    assert p.arena_bytes == p.lower_bound_bytes


def test_a_loop_result_is_written_straight_into_its_carried_value():
    """The float32 body's ADD reads the scaled value, not the carried one: it writes the carried
    acc itself; the int32 counter's ADD_N reads the counter it replaces, so it is copied."""
    m = ap.parse_tflite(C.while_model("float32"))
    assert [op.type for op in m.operators] == ["COPY"] * 3 + ["LESS", "JUMP", "ADD_N", "MUL", "ADD", "COPY", "JUMP"]
    acc = m.operators[2].outputs[0]
    assert m.operators[7].outputs == (acc,) and m.operators[8].outputs != (acc,)


# --- against LiteRT ----------------------------------------------------------------------------
@needs_litert
@pytest.mark.parametrize("nested,then_chain", [(False, False), (True, False), (False, True)])
def test_if_matches_litert(nested, then_chain):
    content = C.if_model(nested=nested, then_chain=then_chain)
    m = ap.parse_tflite(content)
    rng = np.random.default_rng(27)
    feeds = _if_feeds(rng, 8, nested)
    wants = [_litert(content, f) for f in feeds]
    for p in _plans(m):
        it = ap.Interpreter(p)
        for f, want in zip(feeds, wants):
            _same(it.run(f), want, f"IF nested={nested} {p.mode} {p.isa}: cond {[bool(c.flat[0]) for c in f if c.dtype == bool]}")
    if nested:   # the four paths: THEN, and ELSE's THEN and ELSE
        assert {(bool(f[0][0]), bool(f[1][0]) if not f[0][0] else None) for f in feeds} == \
            {(True, None), (False, True), (False, False)}


@pytest.mark.skipif(not HAVE_TFLM, reason="tflite-micro is not importable")
@pytest.mark.parametrize("nested", [False, True])
def test_if_matches_tflite_micro(nested):
    """TensorFlow Lite Micro runs the IF models (not the WHILE ones: its ADD_N has no int32)."""
    from tflite_micro.python.tflite_micro import runtime
    content = C.if_model(nested=nested)
    it = ap.Interpreter(ap.plan(ap.parse_tflite(content), reference="tflm"))
    for f in _if_feeds(np.random.default_rng(8), 6, nested):
        tflm = runtime.Interpreter.from_bytes(content, arena_size=64 * 1024)
        for i, x in enumerate(f):
            tflm.set_input(x, i)
        tflm.invoke()
        _same(it.run(f), [tflm.get_output(0)], f"TFLM, nested={nested}")


@needs_litert
@pytest.mark.parametrize("kind", ["int8", "float32", "fib", "view", "branchy"])
def test_while_matches_litert(kind):
    content = C.while_model(kind)
    m = ap.parse_tflite(content)
    feeds = _while_feeds(np.random.default_rng(5), kind)
    wants = [_litert(content, f) for f in feeds]
    for p in _plans(m):
        it = ap.Interpreter(p)
        for f, want in zip(feeds, wants):
            _same(it.run(f), want, f"WHILE {kind} {p.mode} {p.isa}: {int(f[0][0])} iterations")


def test_a_permutation_of_carried_values_is_exact():
    """(a, b) -> (b, a) each iteration: after n iterations the values are swapped n times
    (LiteRT's WHILE copies the body's outputs over its inputs one by one and gives (b, b))."""
    m = ap.parse_tflite(C.while_model("swap"))
    rng = np.random.default_rng(1)
    for p in _plans(m):
        it = ap.Interpreter(p)
        for n, i, a, b in ((f[0], f[0], f[1], f[2]) for f in _while_feeds(rng, "swap")):
            got = it.run([n, a, b])
            want = [n, b, a] if int(n[0]) % 2 else [n, a, b]
            _same(got, want, f"swap, {int(n[0])} iterations")


@needs_litert
@pytest.mark.parametrize("content", [C.if_model(nested=True), C.while_model("fib"), C.while_model("float32"),
                                     C.while_model("branchy")], ids=["if", "while", "while_f32", "while_if"])
def test_a_poisoned_arena_gives_the_clean_outputs(content):
    """Every run on an arena of 0xA5 everywhere but the inputs (which ``run`` writes) gives the
    outputs of a clean run: no op reads a byte before an op of the same run wrote it."""
    m = ap.parse_tflite(content)
    rng = np.random.default_rng(3)
    kind = "float32" if m.tensors[m.inputs[1]].dtype == "float32" else "fib" if len(m.inputs) == 3 else "branchy"
    feeds = _if_feeds(rng, 6, True) if m.operators[0].type == "JUMP" else _while_feeds(rng, kind)
    for p in _plans(m)[:2]:
        it = ap.Interpreter(p)
        for f in feeds:
            it.arena[:] = 0xA5
            _same(it.run(f), _litert(content, f), f"{p.mode}, poisoned")


def test_a_loop_that_does_not_end_can_be_interrupted():
    """2**31 - 1 iterations: Ctrl-C (here interrupt_main) stops the run with KeyboardInterrupt,
    and the interpreter runs again after it."""
    m = ap.parse_tflite(C.while_model("int8"))
    it = ap.Interpreter(ap.plan(m))
    x = np.zeros((1, C.N), np.int8)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            it.run([np.array([2**31 - 1], np.int32), x])
    finally:
        timer.cancel()
    got = it.run([np.array([2], np.int32), x])
    assert int(got[0][0]) == 2


# --- bad input -----------------------------------------------------------------------------------
@pytest.mark.parametrize("make,match", [
    (lambda: C.if_model(bad="index"), r"subgraph 0 op 0 \(IF\): else_subgraph_index 9 is out of range; "
                                      r"the model has 3 subgraphs"),
    (lambda: C.if_model(bad="recursive"), r"subgraph 0 op 0 \(IF\): then_subgraph_index 0 names a subgraph "
                                          r"that is running already \(subgraphs 0 -> 0\): a recursive call"),
    (lambda: C.if_model(bad="count"), r"subgraph 0 op 0 \(IF\): 2 inputs after the condition, but subgraph 1 "
                                      r"has 1 inputs"),
    (lambda: C.if_model(bad="type"), r"subgraph 0 op 0 \(IF\): inputs after the condition 0 is int8 \(1, 8\), "
                                     r"subgraph 1's input 0 \('a'\) is int16 \(1, 8\)"),
    (lambda: C.if_model(bad="cond"), r"subgraph 0 op 0 \(IF\): the condition \(tensor 0, 'cond'\) is int32 \(1,\); "
                                     r"the condition must be a bool of one element"),
    (lambda: C.if_model(bad="state"), r"subgraph 0 op 0 \(IF\): its subgraph 1 holds CALL_ONCE \(op 1\); "
                                      r"arenaplan keeps state in subgraph 0 only"),
    (lambda: C.while_model(bad="index"), r"subgraph 0 op 0 \(WHILE\): body_subgraph_index 7 is out of range"),
    (lambda: C.while_model(bad="recursive"), r"subgraph 0 op 0 \(WHILE\): body_subgraph_index 0 names a "
                                             r"subgraph that is running already"),
    (lambda: C.while_model(bad="shape"), r"subgraph 0 op 0 \(WHILE\): loop values 2 is int8 \(1, 8\), "
                                         r"subgraph 2's output 2 \('acc_next'\) is int8 \(1, 4\); arenaplan runs "
                                         r"static shapes"),
    (lambda: C.while_model(bad="cond"), r"subgraph 0 op 0 \(WHILE\): subgraph 1's output \(tensor 3, 'less'\) is int32 "
                                        r"\(1,\); the condition must be a bool"),
    (lambda: C.while_model(bad="count"), r"subgraph 0 op 0 \(WHILE\): 3 loop values, but subgraph 2 has 2 outputs"),
], ids=["if_index", "if_recursive", "if_count", "if_type", "if_cond", "if_state", "while_index",
        "while_recursive", "while_shape", "while_cond", "while_count"])
def test_bad_control_flow_is_refused_at_plan_time(make, match):
    m = ap.parse_tflite(make())   # the import keeps what cannot run; the plan names it
    with pytest.raises(UnsupportedModel, match=match):
        ap.plan(m)


def test_a_nested_recursive_call_is_refused():
    """THEN's own IF calls subgraph 0's IF's THEN again: 0 -> 1 -> 1."""
    m = C.Builder(C.OPS)
    main, then, other = m.graph(), m.graph(), m.graph()
    c = m.tensor(main, (1,), "bool", name="c")
    x = m.tensor(main, (1, C.N), "int8", C.XQ, name="x")
    y = m.tensor(main, (1, C.N), "int8", C.XQ, name="y")
    m.if_op(main, c, [c, x], [y], 1, 2)
    main.inputs, main.outputs = [c, x], [y]
    for sg, inner in ((then, True), (other, False)):
        cc = m.tensor(sg, (1,), "bool", name="c")
        a = m.tensor(sg, (1, C.N), "int8", C.XQ, name="a")
        r = m.tensor(sg, (1, C.N), "int8", C.XQ, name="r")
        if inner:
            m.if_op(sg, cc, [cc, a], [r], 1, 2)
        else:
            m.op(sg, "ADD", [a, a], [r])
        sg.inputs, sg.outputs = [cc, a], [r]
    with pytest.raises(UnsupportedModel, match=re.escape("subgraph 1 op 0 (IF): then_subgraph_index 1 names a "
                                                         "subgraph that is running already (subgraphs 0 -> 1 -> 1)")):
        ap.plan(ap.parse_tflite(m.bytes()))


def test_an_if_op_in_a_hand_built_model_is_named():
    content = C.if_model()
    m = ap.parse_tflite(content)
    from arenaplan.model.model import Model, Operator
    hand = Model("hand", m.tensors[:5], [Operator(0, "IF", (0, 1, 2), (3,), {"then_subgraph_index": 1,
                                                                            "else_subgraph_index": 2})],
                 (0, 1, 2), (3,))
    with pytest.raises(UnsupportedModel, match=r"op 0 \(IF: then_subgraph_index 1, else_subgraph_index 2\): "
                                               r"a Model holds control flow inlined"):
        ap.plan(hand)


# --- C export: host and Cortex-M4 -------------------------------------------------------------------
_EXPORTED = {"if_nested": lambda: C.if_model(nested=True), "while_fib": lambda: C.while_model("fib"),
             "while_f32": lambda: C.while_model("float32"), "while_branchy": lambda: C.while_model("branchy")}


def _export_feeds(name: str) -> list:
    rng = np.random.default_rng(11)
    if name.startswith("if"):
        return _if_feeds(rng, 6, nested=True)
    return _while_feeds(rng, {"while_f32": "float32", "while_branchy": "branchy"}.get(name, "fib"),
                        counts=(0, 1, 4, 9))


def _plan_for_export(name: str, isa: str = "portable"):
    content = _EXPORTED[name]()
    p = ap.plan(ap.parse_tflite(content), mode="size", isa=isa)
    assert p.verify()
    return content, p


@pytest.fixture(scope="module")
def host_runtime():
    from harness.firmware import build as fw
    return fw.cached_runtime(fw.HOST_CC, fw.HOST_FLAGS, "host")


@needs_litert
@pytest.mark.parametrize("name", sorted(_EXPORTED))
def test_the_host_build_runs_as_litert(name, host_runtime, tmp_path):
    from harness.firmware import build as fw
    content, p = _plan_for_export(name)
    out = p.export_c(tmp_path, name="net")
    exe = fw.build_host(out, host_runtime, tmp_path)
    feeds = _export_feeds(name)
    specs = [(p.model.tensors[t].dtype, p.model.tensors[t].shape) for t in p.model.outputs]
    got = fw.run_host(exe, feeds, specs, tmp_path)
    assert len(got) == len(feeds)
    for g, f in zip(got, feeds):
        _same(list(g), _litert(content, f), f"{name} host export")


@needs_litert
@pytest.mark.parametrize("name", ["if_nested", "while_fib", "while_branchy"])
def test_cortex_m4_under_qemu_runs_as_litert(name, tmp_path):
    from harness.firmware import build as fw
    content, p = _plan_for_export(name, isa=ap.targets.get("cortex-m4").isa)
    feeds = _export_feeds(name)
    run = fw.run_plan_on_core(p, "cortex-m4", feeds, tmp_path, timeout=300)
    for got, f in zip(run.outputs, feeds):
        _same(got, _litert(content, f), f"{name} on the Cortex-M4")
    print(f"\n{name} cortex-m4: export+runtime text {run.firmware.footprint['text']} B; "
          f"instructions per inference {run.qemu.instructions}")


def test_a_plan_with_control_flow_reloads_from_json():
    content = C.while_model("fib")
    m = ap.parse_tflite(content)
    p = ap.plan(m, mode="speed")
    q = ap.Plan.from_json(p.to_json(), model=m)
    assert q.verify() and q.choices == p.choices and q.arena_bytes == p.arena_bytes
    f = _while_feeds(np.random.default_rng(2), "fib", counts=(3,))[0]
    _same(ap.Interpreter(q).run(f), ap.Interpreter(p).run(f), "reloaded")
    assert "control flow: 1 loop(s)" in p.summary()


def test_a_split_keeps_one_op_per_output():
    """The importer splits a SPLIT into one op per output once (before inlining), not twice."""
    from harness.tflm_support import split
    m = ap.parse_tflite(split(n=3))
    assert [op.options["output_parts"] for op in m.operators] == [3, 3, 3]


def test_an_op_without_a_kernel_in_a_branch_names_its_subgraph():
    """An op arenaplan has no kernel for, inside ELSE: named by its place in the flat list, its
    subgraph and its index there."""
    m = C.Builder(C.OPS + ["CUSTOM"])
    main, then, other = m.graph(), m.graph(), m.graph()
    c = m.tensor(main, (1,), "bool", name="c")
    x = m.tensor(main, (1, C.N), "int8", C.XQ, name="x")
    y = m.tensor(main, (1, C.N), "int8", C.XQ, name="y")
    m.if_op(main, c, [x], [y], 1, 2)
    main.inputs, main.outputs = [c, x], [y]
    for sg, custom in ((then, False), (other, True)):
        a = m.tensor(sg, (1, C.N), "int8", C.XQ, name="a")
        r = m.tensor(sg, (1, C.N), "int8", C.XQ, name="r")
        m.op(sg, "ADD", [a, a], [a2 := m.tensor(sg, (1, C.N), "int8", C.XQ, name="a2")])
        if custom:
            m.model.operatorCodes[-1].customCode = "Mystery"
            m.op(sg, "CUSTOM", [a2], [r])
        else:
            m.op(sg, "ADD", [a2, a], [r])
        sg.inputs, sg.outputs = [a], [r]
    with pytest.raises(UnsupportedModel, match=r"op 5 \(CUSTOM:Mystery, subgraph 2 op 1\): no kernel for this op "
                                               r"type; arenaplan runs ABS, ADD, ADD_N, ARG_MAX"):
        ap.plan(ap.parse_tflite(m.bytes()))


@pytest.mark.skipif(not HAVE_TFLM, reason="tflite-micro is not importable")
@pytest.mark.parametrize("name", sorted(TFLM_FAMILIES["control_flow"]))
def test_tflm_family_models_match_tflite_micro(name):
    """The IF and WHILE models ap.tflm's rules are checked on (harness.tflm_support's
    control_flow family: int8, int16 and float32 branches, kernel scratch in branches and loop
    bodies, an IF inside a WHILE, a WHILE that swaps two carried tensors) planned under "tflm"
    give the tflite-micro interpreter's every output, over feeds that take each branch and 0 to
    5 iterations."""
    from tflite_micro.python.tflite_micro import runtime
    content = TFLM_FAMILIES["control_flow"][name]()
    model = ap.parse_tflite(content)
    rng = np.random.default_rng(11)
    plans = [ap.plan(model, reference="tflm"), ap.plan(model, reference="tflm", isa="arm-dsp")]
    assert all(p.verify() for p in plans)
    for k in range(6):
        feed = []
        for t in model.inputs:
            tensor = model.tensors[t]
            if tensor.dtype == "bool":
                feed.append(np.array([k % 2 == 0]).reshape(tensor.shape))
            elif tensor.dtype == "int32":
                feed.append(np.full(tensor.shape, k, np.int32))
            elif tensor.dtype == "float32":
                feed.append(rng.standard_normal(tensor.shape).astype(np.float32))
            else:
                info = np.iinfo(tensor.dtype)
                feed.append(rng.integers(info.min, info.max + 1, tensor.shape).astype(tensor.dtype))
        micro = runtime.Interpreter.from_bytes(content, arena_size=64 * 1024)
        for i, x in enumerate(feed):
            micro.set_input(x, i)
        micro.invoke()
        want = [np.array(micro.get_output(o)) for o in range(len(model.outputs))]
        for p in plans:
            _same(ap.Interpreter(p).run(feed), want, f"{name}, feed {k}, {p.isa}")
