"""float32 SVDF (svdf_f32.c, the float32 row of AP_OP_SVDF): one-SVDF models written with the
tflite schema against LiteRT's reference kernels (BUILTIN_REF) bit for bit, output and state,
over several runs with the state carried; TensorFlow Lite Micro's order under reference
"tflm"; hypothesis over shapes, ranks and activations; the poisoned arena; bad options refused
at plan time naming the op."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import UnsupportedModel
from arenaplan.ops.lowering import TYPES_CODES
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from poisoned_arena import poisoned_run
from unary_s8 import host_isas, load, tflm_outputs

S = pytest.importorskip("ai_edge_litert.schema_py_generated")
from test_float32 import assert_bits, ulp_diff   # noqa: E402

F32 = TYPES_CODES["f32"]
ACTS = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3, "TANH": 4, "SIGN_BIT": 5}
STATE = 4   # the state tensor's index in svdf_model
#: TANH is LiteRT's Eigen tanh (ApplyActivationToVector), the C library's tanhf here (as TensorFlow
#: Lite Micro's std::tanh): at most this many ulp apart over test_tanh_within_ulp_bound's 49,152
#: values (5 measured); 0 against TensorFlow Lite Micro on this host (the same glibc).
TANH_ULP_BOUND = 5
#: newlib's tanhf on the Cortex-M4 against LiteRT (measured by test_cortex_m4_newlib_tanh_bound).
NEWLIB_TANH_ULP_BOUND = 5


def svdf_model(rng, batches, input_size, units, rank, memory, act="NONE", bias=True, scale=1.0,
               state_dtype="float32", wf_dtype="float32", constants=None, variable=True) -> bytes:
    """A one-SVDF model: tensors input 0, weights_feature 1, weights_time 2, bias 3 (or -1),
    the variable state 4, output 5."""
    import flatbuffers
    filters = units * rank
    types = {"float32": S.TensorType.FLOAT32, "int8": S.TensorType.INT8}
    wf = (rng.standard_normal((filters, input_size)) * scale).astype(np.float32)
    wt = (rng.standard_normal((filters, memory)) * scale).astype(np.float32)
    b = rng.standard_normal(units).astype(np.float32)
    if constants is not None:
        wf, wt, b = (np.asarray(v, np.float32).reshape(s) for v, s in zip(constants, (wf.shape, wt.shape, b.shape)))
    specs = [((batches, input_size), "float32", None, False), ((filters, input_size), wf_dtype, wf, False),
             ((filters, memory), "float32", wt, False), ((units,), "float32", b, False),
             ((batches, filters * memory), state_dtype, None, variable), ((batches, units), "float32", None, False)]
    model = S.ModelT()
    model.version = 3
    code = S.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = S.BuiltinOperator.SVDF
    code.version = 1
    model.operatorCodes = [code]
    model.buffers = [S.BufferT()]
    sg = S.SubGraphT()
    sg.tensors = []
    for i, (shape, dtype, data, variable) in enumerate(specs):
        t = S.TensorT()
        t.shape, t.type, t.name, t.isVariable = list(shape), types[dtype], f"t{i}", variable
        if dtype == "int8":
            q = S.QuantizationParametersT()
            q.scale, q.zeroPoint = [0.05], [0]
            t.quantization = q
        buf = S.BufferT()
        if data is not None:
            d = data if dtype == "float32" else np.clip(np.round(data / 0.05), -127, 127).astype(np.int8)
            buf.data = np.ascontiguousarray(d).view(np.uint8).reshape(-1).tolist()
        model.buffers.append(buf)
        t.buffer = len(model.buffers) - 1
        sg.tensors.append(t)
    op = S.OperatorT()
    op.opcodeIndex = 0
    op.inputs, op.outputs = [0, 1, 2, 3 if bias else -1, STATE], [5]
    op.builtinOptionsType = S.BuiltinOptions.SVDFOptions
    o = S.SVDFOptionsT()
    o.rank, o.fusedActivationFunction = rank, ACTS[act]
    op.builtinOptions = o
    sg.operators = [op]
    sg.inputs, sg.outputs = [0], [5]
    model.subgraphs = [sg]
    fb = flatbuffers.Builder(1024)
    fb.Finish(model.Pack(fb), file_identifier=b"TFL3")
    return bytes(fb.Output())


def sequence(rng, batches, input_size, runs=5) -> list:
    """Normal inputs, then large ones (products past FLT_MAX), then signed zeros and subnormals."""
    xs = [(rng.standard_normal((batches, input_size)) * 2).astype(np.float32) for _ in range(runs)]
    big = rng.choice(np.array([3e38, -3e38, 1e20, -1e20, 1.0, -2.5], np.float32), size=(batches, input_size))
    tiny = rng.choice(np.array([0.0, -0.0, 1e-40, -1e-40, 1e-30, 5.0], np.float32), size=(batches, input_size))
    return xs + [big, tiny] + xs[:2]


def check(content: bytes, tmp_path, xs, reference="litert", wants=None, bound=0) -> int:
    """Every host ISA's verified plan, run over ``xs`` with the state carried, equals LiteRT (or
    ``wants``) output by output and state by state; returns the largest ulp difference seen."""
    model = load(content, tmp_path)
    if wants is None:
        outs, seen = L.run_sequence(content, [[x] for x in xs], (STATE,))
        wants = [(o[0], s) for o, s in zip(outs, seen[STATE])]
    worst = 0
    for isa in host_isas():
        ctx = PlanContext.build(model, isa=isa, reference=reference)
        (kernel,) = ctx.kernels
        assert kernel.types == F32 and [v.name for v in kernel.variants] == ["direct"]
        assert kernel.states == (STATE,)
        p = ctx.make([kernel.variants[0]], "size")
        assert p.verify() and p.isa == isa
        it = ap.Interpreter(p)
        for run, (x, (want, state)) in enumerate(zip(xs, wants)):
            got = it.run(x)
            where = f"{isa}, run {run}"
            if bound == 0:   # (the state is the activation's input: bit-exact always)
                assert_bits(got, want, where)
            else:
                worst = max(worst, ulp_diff(got, want))
                assert worst <= bound, f"{where}: {worst} ulp"
            if state is not None:
                assert_bits(it.state_tensor(STATE), state, f"{where}, state")
    return worst


@pytest.mark.parametrize("batches,input_size,units,rank,memory,act,bias", [
    (1, 1, 1, 1, 1, "NONE", True), (1, 24, 8, 2, 4, "RELU", True), (2, 13, 5, 3, 10, "NONE", False),
    (3, 40, 4, 1, 7, "RELU6", True), (2, 9, 6, 2, 3, "TANH", True), (1, 300, 2, 4, 33, "NONE", True)])
def test_matches_litert(batches, input_size, units, rank, memory, act, bias, tmp_path):
    rng = np.random.default_rng(batches * 100 + input_size)
    content = svdf_model(rng, batches, input_size, units, rank, memory, act, bias)
    check(content, tmp_path, sequence(rng, batches, input_size), bound=TANH_ULP_BOUND if act == "TANH" else 0)


@pytest.mark.parametrize("act", ["NONE", "RELU", "RELU6"])
def test_rank_past_four_and_big_values(act, tmp_path):
    """Ranks of 4 and more (LiteRT sums a unit's rank terms in four lanes), memories and inputs
    off the lanes, and inputs whose products overflow to inf (inf - inf: NaN, which RELU and
    RELU6 turn to 0 as LiteRT's std::max does)."""
    for k, (batches, input_size, units, rank, memory) in enumerate([(1, 7, 2, 4, 5), (2, 17, 3, 9, 6),
                                                                    (1, 4, 1, 13, 4)]):
        rng = np.random.default_rng(40 + k)
        content = svdf_model(rng, batches, input_size, units, rank, memory, act, scale=0.5)
        check(content, tmp_path, sequence(rng, batches, input_size, runs=max(memory + 2, 5)))


def tanh_grid_model(batches: int) -> bytes:
    """output[b] = tanh(input[b]) exactly: one filter of weight 1, memory 1, rank 1, bias 0."""
    return svdf_model(np.random.default_rng(0), batches, 1, 1, 1, 1, "TANH", constants=([1.0], [1.0], [0.0]))


def tanh_grid(count: int) -> np.ndarray:
    g = np.concatenate([np.linspace(-10, 10, count // 2, dtype=np.float32),
                        np.geomspace(1e-6, 10, count // 4).astype(np.float32),
                        -np.geomspace(1e-6, 10, count - count // 2 - count // 4).astype(np.float32)])
    return g.astype(np.float32)


def test_tanh_within_ulp_bound(tmp_path):
    """The TANH activation over 49,152 values in [-10, 10]: within TANH_ULP_BOUND of LiteRT
    (Eigen's tanh) and equal to TensorFlow Lite Micro's (tanhf) under reference "tflm"."""
    n = 8192
    content = tanh_grid_model(n)
    g = tanh_grid(6 * n)
    xs = [g[i:i + n].reshape(n, 1) for i in range(0, g.size, n)]
    worst = check(content, tmp_path, xs, bound=TANH_ULP_BOUND)
    print(f"\nSVDF float32 TANH: at most {worst} ulp from LiteRT over {g.size} values")
    wants = [(w[0], None) for w in tflm_outputs(content, xs)]
    check(content, tmp_path, xs, reference="tflm", wants=wants)


@pytest.mark.parametrize("act", ["NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH"])
def test_matches_tflite_micro(act, tmp_path):
    """Under reference "tflm" the sums run in TensorFlow Lite Micro's order (in order, a unit's
    from its bias): its interpreter's outputs bit for bit over runs with the state carried."""
    rng = np.random.default_rng(7)
    batches, input_size, units, rank, memory = 2, 11, 3, 5, 6
    content = svdf_model(rng, batches, input_size, units, rank, memory, act, scale=0.7)
    xs = sequence(rng, batches, input_size, runs=8)[:10]
    wants = [(w[0], None) for w in tflm_outputs(content, xs)]
    check(content, tmp_path, xs, reference="tflm", wants=wants)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(batches=st.integers(1, 3), input_size=st.integers(1, 70), units=st.integers(1, 6), rank=st.integers(1, 6),
       memory=st.integers(1, 12), act=st.sampled_from(["NONE", "RELU", "RELU6"]), bias=st.booleans(),
       seed=st.integers(0, 2 ** 31))
def test_hypothesis(batches, input_size, units, rank, memory, act, bias, seed, tmp_path):
    rng = np.random.default_rng(seed)
    content = svdf_model(rng, batches, input_size, units, rank, memory, act, bias)
    xs = [(rng.standard_normal((batches, input_size)) * 2).astype(np.float32) for _ in range(memory + 2)]
    check(content, tmp_path, xs)


def test_poisoned_arena(tmp_path):
    rng = np.random.default_rng(3)
    for reference in ("litert", "tflm"):
        model = load(svdf_model(rng, 2, 13, 3, 2, 5, "RELU"), tmp_path)
        poisoned_run(model, rng.standard_normal((2, 13)).astype(np.float32), reference=reference)


def test_state_carries_and_resets(tmp_path):
    """The state is the variable tensor in the state pool: carried run to run, zero again after
    reset_state(), so the same inputs give the same outputs."""
    rng = np.random.default_rng(4)
    content = svdf_model(rng, 1, 6, 2, 2, 3)
    xs = sequence(rng, 1, 6, runs=4)[:4]
    it = ap.Interpreter(ap.plan(load(content, tmp_path)))
    first = [it.run(x) for x in xs]
    assert it.state_tensor(STATE).any() and not np.array_equal(first[0], first[1])
    it.reset_state()
    assert not it.state_tensor(STATE).any()
    for x, want in zip(xs, first):
        assert_bits(it.run(x), want, "after reset_state")


def _refused(content, tmp_path, *needles, reference="litert"):
    with pytest.raises(UnsupportedModel) as e:
        ap.plan(load(content, tmp_path), reference=reference)
    for needle in ("op 0 (SVDF)",) + needles:
        assert needle in str(e.value), str(e.value)


def test_bad_options_are_refused_at_plan_time(tmp_path):
    rng = np.random.default_rng(5)
    _refused(svdf_model(rng, 1, 4, 2, 2, 3, "RELU_N1_TO_1"), tmp_path, "RELU_N1_TO_1", "reference='tflm'")
    _refused(svdf_model(rng, 1, 4, 2, 2, 3, "SIGN_BIT"), tmp_path, "SIGN_BIT", reference="tflm")
    _refused(svdf_model(rng, 1, 4, 2, 2, 3, wf_dtype="int8"), tmp_path, "weights_feature int8", "hybrid")
    _refused(svdf_model(rng, 1, 4, 2, 2, 3, variable=False), tmp_path, "not a variable tensor")
    _refused(svdf_model(rng, 1, 4, 2, 2, 3, state_dtype="int8"), tmp_path, "state int8")


def test_cortex_m4_newlib_tanh_bound(tmp_path):
    """The export built for the Cortex-M4 (hard float, newlib) under QEMU: a RELU SVDF with its
    state carried over eight runs gives LiteRT's bits; the TANH activation over 49,152 values is
    within NEWLIB_TANH_ULP_BOUND of LiteRT (Eigen's tanh) and within the TANH row's newlib bound
    of the host (glibc's tanhf)."""
    from test_float32 import NEWLIB_ULP_BOUND, _run_m4
    rng = np.random.default_rng(12)
    content = svdf_model(rng, 2, 19, 3, 5, 4, "RELU", scale=0.7)
    xs = sequence(rng, 2, 19, runs=6)[:8]
    outs = L.run_sequence(content, [[x] for x in xs])[0]
    for run, (got, want) in enumerate(zip(_run_m4(content, [[x] for x in xs], _mk(tmp_path / "relu")), outs)):
        assert_bits(got, want[0], f"cortex-m4, run {run}")
    n, k = 1024, 48
    content = tanh_grid_model(n)
    g = tanh_grid(n * k)
    samples = [[g[i * n:(i + 1) * n].reshape(n, 1)] for i in range(k)]
    wants = L.run_sequence(content, samples)[0]
    host = ap.Interpreter(ap.plan(load(content, tmp_path)))
    worst = worst_host = differ = 0
    for s, got, want in zip(samples, _run_m4(content, samples, _mk(tmp_path / "tanh")), wants):
        worst = max(worst, ulp_diff(got, want[0]))
        worst_host = max(worst_host, ulp_diff(got, host.run(s[0])))
        differ += int((got.view(np.uint32) != want[0].view(np.uint32)).sum())
    print(f"\nSVDF float32 TANH on the Cortex-M4 (newlib): {differ} of {n * k} differ from LiteRT, at most "
          f"{worst} ulp; at most {worst_host} ulp from the host's tanhf")
    assert worst <= NEWLIB_TANH_ULP_BOUND and worst_host <= NEWLIB_ULP_BOUND["TANH"]


def _mk(path):
    path.mkdir(parents=True, exist_ok=True)
    return path
