"""ap.Interpreter: planned models run bit-exactly with LiteRT's reference kernels."""
from __future__ import annotations

import numpy as np
import pytest

import arenaplan as ap
from conftest import model_path

RUNNABLE = [
    "mlperf_tiny_ad_autoencoder_int8",
    "mlperf_tiny_ic_resnet8_int8",
    "mlperf_tiny_kws_dscnn_int8",
    "mlperf_tiny_sww_dscnn_int8",
    "mlperf_tiny_vww_mobilenetv1_025_int8",
    "tflm_person_detect_int8",
    "tflm_micro_speech_int8",
    "tflm_hello_world_int8",
]


def litert_reference(path, inputs):
    """Outputs of LiteRT with its reference kernels (BUILTIN_REF), one per input."""
    litert = pytest.importorskip("ai_edge_litert.interpreter",
                                 reason="ai-edge-litert is not installable on this platform")
    from reference.litert_layers import _patched_model
    # person_detect's 1-D biases declare quantized_dimension 3, which LiteRT's loader
    # rejects (TFLite Micro accepts it; no kernel reads it): LiteRT gets them reset to 0.
    it = litert.Interpreter(model_content=_patched_model(path),
                            experimental_op_resolver_type=litert.OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    outs = []
    for x in inputs:
        it.set_tensor(it.get_input_details()[0]["index"], x)
        it.invoke()
        outs.append(it.get_tensor(it.get_output_details()[0]["index"]).copy())
    return outs


def random_inputs(model, count, seed=0):
    rng = np.random.default_rng(seed)
    t = model.tensors[model.inputs[0]]
    return [rng.integers(-128, 128, size=t.shape, dtype=np.int8) for _ in range(count)]


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


@pytest.mark.parametrize("name", ["mlperf_tiny_kws_dscnn_int8", "mlperf_tiny_ic_resnet8_int8"])
def test_no_op_writes_outside_its_output_and_scratch(name):
    m = ap.load_tflite(model_path(name))
    p = ap.plan(m, mode="speed")
    it = ap.Interpreter(p)
    x = random_inputs(m, 1, seed=2)[0]
    it.run(x)  # fill every activation with real values
    state = it.arena.copy()
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
        poisoned = np.where(keep, state, np.uint8(0xA5))
        it.arena[:] = poisoned
        graph.invoke([it.arena], op.index, op.index + 1)
        changed = np.flatnonzero((it.arena != poisoned) & ~allowed)
        assert changed.size == 0, f"op {op.index} ({op.type}) wrote at offsets {changed[:8]}"
        # The op's inputs are intact (it only reads them) unless it is an in-place alias.
        if op.type != "RESHAPE":
            assert np.array_equal(it.arena[keep], state[keep]), f"op {op.index} changed its input"
        state = np.where(allowed, it.arena, state)


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
