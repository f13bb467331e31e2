"""ap.Interpreter: planned models run bit-exactly with LiteRT's reference kernels."""
from __future__ import annotations

import numpy as np
import pytest

import arenaplan as ap
from conftest import RUNNABLE, model_path

KEYWORD = "tflm_keyword_scrambled_int8"   # SVDF: seven int16 state tensors
LSTM = "tflm_mnist_lstm_int8"             # LSTM: int8 output state, int16 cell state


def litert_interpreter(path, preserve=False):
    """LiteRT with its reference kernels (BUILTIN_REF)."""
    litert = pytest.importorskip("ai_edge_litert.interpreter",
                                 reason="ai-edge-litert is not installable on this platform")
    from harness.reference.litert_layers import _patched_model
    # person_detect's 1-D biases declare quantized_dimension 3, which LiteRT's loader
    # rejects (TFLite Micro accepts it; no kernel reads it): LiteRT gets them reset to 0.
    it = litert.Interpreter(model_content=_patched_model(path),
                            experimental_op_resolver_type=litert.OpResolverType.BUILTIN_REF,
                            experimental_preserve_all_tensors=preserve)
    it.allocate_tensors()
    return it


def litert_step(it, x):
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"]).copy()


def litert_reference(path, inputs):
    """Outputs of LiteRT's reference kernels, one per input, run in order by one interpreter
    (a stateful model's variable tensors carry over, as in ap.Interpreter)."""
    it = litert_interpreter(path)
    return [litert_step(it, x) for x in inputs]


def random_inputs(model, count, seed=0):
    rng = np.random.default_rng(seed)
    t = model.tensors[model.inputs[0]]
    info = np.iinfo(np.dtype(t.dtype))
    return [rng.integers(info.min, info.max, size=t.shape, dtype=np.dtype(t.dtype), endpoint=True)
            for _ in range(count)]


@pytest.mark.parametrize("name", RUNNABLE)
@pytest.mark.parametrize("mode", ["size", "speed"])
def test_bit_exact_with_litert_reference(name, mode):
    path = model_path(name)
    m = ap.load_tflite(path)
    p = ap.plan(m, mode=mode)
    assert p.verify()
    xs = random_inputs(m, 3)
    expected = litert_reference(path, xs)
    it = ap.Interpreter(p)
    for x, want in zip(xs, expected):
        got = it.run(x)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def keyword_inputs(model, count, seed):
    """int16 inputs whose int8 requantisation spans the whole range (the model's first op
    maps [0, ~24000] onto int8; wider inputs only saturate)."""
    rng = np.random.default_rng(seed)
    t = model.tensors[model.inputs[0]]
    return [rng.integers(-2000, 26000, size=t.shape).astype(np.int16) for _ in range(count)]


@pytest.mark.parametrize("mode", ["size", "speed"])
def test_keyword_model_state_carries_bit_exactly(mode):
    """Seven SVDFs keep their int16 state across runs: outputs and every state tensor equal
    LiteRT's after each of 6 runs of one interpreter; reset_state starts over as a fresh
    LiteRT interpreter does."""
    path = model_path(KEYWORD)
    m = ap.load_tflite(path)
    p = ap.plan(m, mode=mode)
    assert p.verify() and len(p.state_buffers) == 7 and p.state_bytes == 10240
    variables = m.variable_tensors()
    it = ap.Interpreter(p)
    ref = litert_interpreter(path, preserve=True)
    xs = keyword_inputs(m, 6, seed=4)
    for step, x in enumerate(xs):
        got, want = it.run(x), litert_step(ref, x)
        assert got.dtype == np.int32 and got.shape == (1, 2)
        np.testing.assert_array_equal(got, want)
        for t in variables:
            np.testing.assert_array_equal(it.state_tensor(t), ref.get_tensor(t), err_msg=f"state {t}, run {step}")
    assert all(it.state_tensor(t).any() for t in variables)
    it.reset_state()
    assert not it.state.any()
    fresh = litert_interpreter(path, preserve=True)
    for step, x in enumerate(xs[3:] + xs[:2]):
        np.testing.assert_array_equal(it.run(x), litert_step(fresh, x))
        for t in variables:
            np.testing.assert_array_equal(it.state_tensor(t), fresh.get_tensor(t), err_msg=f"state {t}, run {step}")


def test_lstm_model_state_carries_bit_exactly():
    """The LSTM's output state (int8, starting at its zero point) and cell state (int16)
    equal LiteRT's after each of 4 runs of one interpreter, in the size and speed plans, and
    so does the LSTM's whole output sequence; reset_state starts over as a fresh interpreter."""
    path = model_path(LSTM)
    m = ap.load_tflite(path)
    lstm = m.operators[0]
    variables = m.variable_tensors()
    assert lstm.type == "UNIDIRECTIONAL_SEQUENCE_LSTM" and len(variables) == 2
    xs = random_inputs(m, 4, seed=6)
    for mode in ("size", "speed"):
        p = ap.plan(m, mode=mode)
        assert p.verify() and p.choices[0] == "direct"
        it = ap.Interpreter(p)
        ref = litert_interpreter(path, preserve=True)
        pool, offset = p.tensor_places[lstm.outputs[0]]
        seq = m.tensors[lstm.outputs[0]]
        for step, x in enumerate(xs):
            np.testing.assert_array_equal(it.run(x), litert_step(ref, x))
            got_seq = it.pools[pool][offset:offset + seq.nbytes].view(np.int8).reshape(seq.shape)
            np.testing.assert_array_equal(got_seq, ref.get_tensor(lstm.outputs[0]), err_msg=f"run {step}")
            for t in variables:
                np.testing.assert_array_equal(it.state_tensor(t), ref.get_tensor(t),
                                              err_msg=f"state {t}, run {step}")
        assert all(it.state_tensor(t).any() for t in variables)
        it.reset_state()
        fresh = litert_interpreter(path)
        np.testing.assert_array_equal(it.run(xs[2]), litert_step(fresh, xs[2]))


def test_keyword_model_every_op_output_bit_exact():
    """Op by op over 5 runs: every intermediate tensor (QUANTIZE int16 -> int8, SVDF, FC,
    SOFTMAX int8 -> int16, QUANTIZE int16 -> int32) equals LiteRT's."""
    path = model_path(KEYWORD)
    m = ap.load_tflite(path)
    p = ap.plan(m, mode="speed")
    it = ap.Interpreter(p)
    ref = litert_interpreter(path, preserve=True)
    places = p.tensor_places

    def tensor(t):
        pool, offset = places[t]
        info = m.tensors[t]
        return it.pools[pool][offset:offset + info.nbytes].view(np.dtype(info.dtype)).reshape(info.shape)

    distinct = set()
    for x in keyword_inputs(m, 5, seed=5):
        litert_step(ref, x)
        it._write_inputs(x)
        for op in m.operators:
            it._graph.invoke(it._pools, op.index, op.index + 1)
            np.testing.assert_array_equal(tensor(op.outputs[0]), ref.get_tensor(op.outputs[0]),
                                          err_msg=f"op {op.index} ({op.type})")
            distinct.add((op.index, tensor(op.outputs[0]).tobytes()))
    # the runs differ from one another at the input QUANTIZE and at every SVDF (the model's
    # scrambled weights leave its FULLY_CONNECTED outputs, and so its output, constant)
    varied = [op.index for op in m.operators if op.type == "SVDF"] + [0]
    assert all(len({v for k, v in distinct if k == op}) == 5 for op in varied)


def test_reset_state_and_state_tensor_errors():
    m = ap.load_tflite(model_path(KEYWORD))
    it = ap.Interpreter(ap.plan(m))
    with pytest.raises(ap.InvalidArgument, match="not a variable tensor"):
        it.state_tensor(0)
    plain = ap.Interpreter(ap.plan(ap.zoo.load("ds_cnn")))
    assert plain.state.size == 0
    plain.reset_state()           # nothing to reset: no error
    with pytest.raises(ap.InvalidArgument, match=r"variable tensors are \[\]"):
        plain.state_tensor(0)


@pytest.mark.parametrize("name", ap.zoo.names())
def test_zoo_models_give_the_same_bits_in_every_mode(name):
    m = ap.zoo.load(name)
    xs = random_inputs(m, 2, seed=1)
    results = {}
    for mode in ("size", "speed"):
        p = ap.plan(m, mode=mode)
        assert p.verify()
        results[mode] = [ap.Interpreter(p).run(x) for x in xs]
    for a, b in zip(results["size"], results["speed"]):
        np.testing.assert_array_equal(a, b)
    # The quantisation keeps activations in range: outputs are not all one value.
    assert len(np.unique(np.concatenate([r.reshape(-1) for r in results["size"]]))) > 1


@pytest.mark.parametrize("name", ["mlperf_tiny_kws_dscnn_int8", "mlperf_tiny_ic_resnet8_int8", KEYWORD, LSTM])
def test_no_op_writes_outside_its_output_and_scratch(name):
    """Every op in turn runs in a poisoned arena (only its inputs hold real values): it writes
    its output, its scratch and its own state buffers, nothing else, and reads no byte it
    does not own (its output equals the one of an unpoisoned run)."""
    m = ap.load_tflite(model_path(name))
    p = ap.plan(m, mode="speed")
    it = ap.Interpreter(p)
    x = random_inputs(m, 1, seed=2)[0]
    it.run(x)  # fill every activation with real values, and move the state off zero
    it.run(random_inputs(m, 1, seed=3)[0])
    arena, state = it.arena.copy(), it.state.copy()
    graph = it._graph
    for op in m.operators:
        allowed = np.zeros(p.arena_bytes, dtype=bool)
        keep = np.zeros(p.arena_bytes, dtype=bool)
        for b in p.buffers:
            span = slice(b.offset, b.offset + b.size)
            if (b.kind == "scratch" and b.op == op.index) or op.outputs[0] in b.tensors:
                allowed[span] = True
            elif any(t in op.inputs for t in b.tensors):
                keep[span] = True
        own_state = np.zeros(p.state_bytes, dtype=bool)
        for b in p.state_buffers:
            if b.tensor in op.inputs:
                own_state[b.offset:b.offset + b.size] = True
        poisoned = np.where(keep, arena, np.uint8(0xA5))
        # another op's state is poisoned too: a kernel reading it would change its output
        state_in = np.where(own_state, state, np.uint8(0x5A))
        it.arena[:] = poisoned
        it.state[:] = state_in
        graph.invoke(it._pools, op.index, op.index + 1)
        changed = np.flatnonzero((it.arena != poisoned) & ~allowed)
        assert changed.size == 0, f"op {op.index} ({op.type}) wrote at offsets {changed[:8]}"
        changed = np.flatnonzero((it.state != state_in) & ~own_state)
        assert changed.size == 0, f"op {op.index} ({op.type}) wrote another op's state at {changed[:8]}"
        # The op's inputs are intact (it only reads them) unless it is an in-place alias.
        if op.type != "RESHAPE":
            assert np.array_equal(it.arena[keep], arena[keep]), f"op {op.index} changed its input"
        # the same step on unpoisoned memory gives the same output and state: the op read
        # no byte it does not own
        poisoned_run, poisoned_state = it.arena.copy(), it.state.copy()
        it.arena[:] = arena
        it.state[:] = state
        graph.invoke(it._pools, op.index, op.index + 1)
        out = next(b for b in p.buffers if op.outputs[0] in b.tensors)
        span = slice(out.offset, out.offset + out.size)
        if op.type != "RESHAPE":    # an aliased reshape's input is its output: it runs nothing
            assert np.array_equal(it.arena[span], poisoned_run[span]), \
                f"op {op.index} ({op.type}) read poisoned bytes"
        assert np.array_equal(it.state[own_state], poisoned_state[own_state]), \
            f"op {op.index} ({op.type}) read another op's state"
        arena = np.where(allowed, it.arena, arena)
        state = it.state.copy()


def test_profile_reports_every_op():
    p = ap.plan(ap.zoo.load("ds_cnn"), mode="speed")
    prof = ap.Interpreter(p).profile(repeats=3)
    assert [r.index for r in prof] == list(range(13))
    assert all(r.seconds > 0 for r in prof if r.type != "RESHAPE")
    assert prof[1].variant == p.choices[1]


def test_wrong_input_dtype_and_shape():
    it = ap.Interpreter(ap.plan(ap.zoo.load("ds_cnn")))
    with pytest.raises(ap.InvalidArgument, match="int8"):
        it.run(np.zeros((1, 49, 10, 1), dtype=np.float32))
    with pytest.raises(ap.InvalidArgument, match=r"shape \(1, 49, 10, 1\)"):
        it.run(np.zeros((1, 10, 49, 1), dtype=np.int8))
    with pytest.raises(ap.InvalidArgument, match="missing"):
        it.run({})
    with pytest.raises(ap.InvalidArgument, match="unknown input"):
        it.run({"nope": np.zeros((1, 49, 10, 1), dtype=np.int8)})
    with pytest.raises(ap.InvalidArgument, match="1 input"):
        it.run([np.zeros((1, 49, 10, 1), dtype=np.int8)] * 2)


def test_run_by_name():
    m = ap.zoo.load("ds_cnn")
    it = ap.Interpreter(ap.plan(m))
    x = random_inputs(m, 1)[0]
    np.testing.assert_array_equal(it.run({m.tensors[m.inputs[0]].name: x}), it.run(x))


def test_unsupported_op_is_named_when_the_plan_is_made():
    m = ap.load_tflite(model_path("tflm_audio_preprocessor_int8"))
    with pytest.raises(ap.UnsupportedModel) as info:
        ap.plan(m)
    assert "op 0 (CUSTOM:SignalWindow)" in str(info.value)
    p = ap.plan(m, require_kernels=False)    # memory planning still works
    assert p.verify() and p.unsupported
    with pytest.raises(ap.UnsupportedModel):
        ap.Interpreter(p)


def test_unsupported_activation_is_named():
    m = ap.zoo.load("ds_cnn")
    m.operators[2].options["fused_activation_function"] = "TANH"
    with pytest.raises(ap.UnsupportedModel, match=r"op 2 \(CONV_2D\).*TANH"):
        ap.plan(m)


def test_quantisation_tflite_rejects_is_named():
    m = ap.zoo.load("ds_cnn")
    w = m.tensors[m.operators[0].inputs[1]]
    w.quantization = ap.Quantization(w.quantization.scale, (3,) * len(w.quantization.scale), 0)
    with pytest.raises(ap.UnsupportedModel, match=r"op 0 \(CONV_2D\).*zero point"):
        ap.plan(m)
    m = ap.zoo.load("ds_cnn")
    y = m.tensors[m.outputs[0]]
    y.quantization = ap.Quantization((0.5,), (0,))
    with pytest.raises(ap.UnsupportedModel, match=r"op 12 \(SOFTMAX\).*1/256"):
        ap.plan(m)


def test_one_call_run_checks_its_buffers():
    m = ap.zoo.load("ds_cnn")
    it = ap.Interpreter(ap.plan(m))
    x = random_inputs(m, 1, seed=3)[0]
    slow = it.run(np.asfortranarray(x))          # not C-contiguous: the general path
    np.testing.assert_array_equal(it.run(x), slow)
    with pytest.raises(ValueError, match="bytes"):
        it._graph.run(it._pools, [x[..., :0]], [np.empty((1, 12), np.int8)])
    with pytest.raises(ValueError, match="1 inputs and 1 outputs"):
        it._graph.run(it._pools, [x, x], [np.empty((1, 12), np.int8)])


# --- threads ------------------------------------------------------------------------
def _run_in_threads(jobs, runs):
    """jobs: (interpreter, inputs, expected outputs) per thread; each thread runs its
    interpreter ``runs`` times, cycling through its inputs. Returns mismatches per thread."""
    import threading
    wrong = [0] * len(jobs)
    gate = threading.Barrier(len(jobs))

    def work(i):
        interp, xs, want = jobs[i]
        gate.wait()
        for r in range(runs):
            k = r % len(xs)
            if not np.array_equal(interp.run(xs[k]), want[k]):
                wrong[i] += 1
    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return wrong


def test_one_interpreter_shared_by_four_threads_gives_single_thread_outputs():
    model = ap.load_tflite(model_path("mlperf_tiny_kws_dscnn_int8"))
    plan = ap.plan(model, mode="speed", latency="model:cortex-m7")
    plan.verify()
    shared = ap.Interpreter(plan)
    inputs = random_inputs(model, 8, seed=3)
    want = [shared.run(x) for x in inputs]
    # each thread its own inputs (a rotation), so a run that another overwrote shows
    jobs = [(shared, inputs[i:] + inputs[:i], want[i:] + want[:i]) for i in range(4)]
    assert _run_in_threads(jobs, 1000) == [0, 0, 0, 0]


def test_four_plans_on_four_threads_run_in_parallel_bit_exactly():
    jobs = []
    for name, mode in [("mlperf_tiny_kws_dscnn_int8", "size"), ("mlperf_tiny_kws_dscnn_int8", "speed"),
                       ("mlperf_tiny_ad_autoencoder_int8", "speed"), ("tflm_hello_world_int8", "size")]:
        model = ap.load_tflite(model_path(name))
        plan = ap.plan(model, mode=mode, latency="model:cortex-m7")
        plan.verify()
        xs = random_inputs(model, 4, seed=len(jobs))
        want = [ap.Interpreter(plan).run(x) for x in xs]
        jobs.append((ap.Interpreter(plan), xs, want))
    assert _run_in_threads(jobs, 1000) == [0, 0, 0, 0]


def test_profile_together_of_a_shared_interpreter_takes_its_lock_once():
    from arenaplan.runtime.profiling import profile_together
    plan = ap.plan(ap.load_tflite(model_path("tflm_hello_world_int8")))
    plan.verify()
    interp = ap.Interpreter(plan)
    rows = profile_together([interp, interp], 3)   # the same one twice: no deadlock
    assert len(rows) == 2 and all(len(r) == 3 for r in rows)


@pytest.mark.parametrize("x", [None, np.int8(3), "abc", b"ab", 3])
def test_run_of_something_that_is_not_arrays_names_what_it_takes(x):
    it = ap.Interpreter(ap.plan(ap.zoo.load("autoencoder")))
    with pytest.raises(ap.InvalidArgument) as info:
        it.run(x)
    text = str(info.value)
    assert f"got {type(x).__name__}" in text and "'input' int8 (1, 640)" in text
