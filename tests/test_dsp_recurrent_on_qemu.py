"""The arm-dsp code of UNIDIRECTIONAL_SEQUENCE_LSTM (s8 under both rounding rules, s16x8) and
BATCH_MATMUL (s8, s16x8) through the op table's entry points on the Cortex-M cores themselves,
under QEMU, on the host suites' shape sets.

On the host the arm-dsp dot products run as their instructions' C definitions; here they run
as SXTB16 / SMLAD (lstm_s8.c's lstm_dot4), PKHBT / PKHTB / SMLALD (lstm_s16.c's lstm16_dot) and
SMLAD / SMLALD over packed rows (batch_matmul.c's packed variant, four columns at a time and
its tail) on the cores. The cases are the host tests' own (harness/firmware/dsp_cases.py
makes each a node of its row and checks the portable kernel on it first):

- LSTM s8, reference "litert": draws of tests/c/test_lstm.py's test_random_lstm_matches_reference
  (its Case, random_layer and raw_quant; two calls each, the second from the state the first
  left), its activation sweeps and extreme sizes, the shared mnist_lstm op, against the NumPy
  reference of LiteRT's integer LSTM (harness/reference/lstm.py);
- LSTM s8, reference "tflm": draws of tests/test_lstm_int8_tflm.py's test_hypothesis and its
  seeded random_model models (saturating gates, clips, another hidden scale), the mnist_lstm op,
  against the tflite-micro interpreter call after call;
- LSTM s16x8: draws of tests/test_lstm_16x8.py's test_hypothesis, its named CASES and wide
  biases, against the tflite-micro interpreter call after call;
- BATCH_MATMUL s8 and s16x8: draws of tests/test_batch_matmul.py's test_hypothesis shapes (and
  the same with deeper sums and more columns, for the 4-column blocks and their tails and odd
  depths), its named CASES, constant operands, int8 zero points at the ends and int16 sums past
  int32, against LiteRT's reference kernels (BUILTIN_REF).

The LSTM rows' params, weights and biases come from the project's own lowering where the case
is a model (PlanContext), the output state and cell state the kernel updates in place are its
two state operands (each checked before and after, the expected state the reference's). One
emulator run per row and core runs every arm-dsp variant of every case with exactly its
scratch between poisoned guard bytes and with each scratch buffer one byte short; on the M4
again with the inputs and output 1 and 2 bytes off their alignment (int16 buffers at 2), and
with the scratch so (BATCH_MATMUL's packed buffers: used or refused, never a fault).
"""
from __future__ import annotations

import itertools
import time
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import numpy as np
import pytest
from hypothesis import strategies as st

from arenaplan import _core
from harness.firmware import build as fw
from harness.firmware import dsp_cases as dc
from harness.reference import litert_layers as L

CORES = ["cortex-m4", "cortex-m7", "cortex-m33"]
#: the case sets, one op-table row each (one emulator run per row and core)
ROW_KEYS = {"lstm_s8": ("UNIDIRECTIONAL_SEQUENCE_LSTM", "s8"), "lstm_s16x8": ("UNIDIRECTIONAL_SEQUENCE_LSTM", "s16x8"),
            "batch_matmul_s8": ("BATCH_MATMUL", "s8"), "batch_matmul_s16x8": ("BATCH_MATMUL", "s16x8")}
ROWS = list(ROW_KEYS)
#: draws per strategy (the host tests' max_examples are 60, 15, 15 and 30)
COUNTS = {"lstm_litert": 120, "lstm_tflm": 100, "lstm_s16x8": 60, "bmm": 80, "bmm_wide": 60}
LITERT, TFLM = 0, 1   # ap_lstm_params.reference

_MISSING = fw.missing_arm_tools()
pytestmark = pytest.mark.skipif(bool(_MISSING), reason=f"Cortex-M toolchain not installed ({', '.join(_MISSING)}); "
                                "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm")

_LITERT = L.unavailable_reason()


def _tflm_missing() -> Optional[str]:
    import importlib.util
    return None if importlib.util.find_spec("tflite_micro") else "tflite-micro is not installed"


_TFLM = _tflm_missing()


# ---- a node checked on the host ----------------------------------------------------------------

#: each case's params by (row key, case id)
SPECS: Dict[tuple, dict] = {}


def portable_run(key, spec: dict, inputs: Sequence[np.ndarray], states: Sequence[np.ndarray], like: np.ndarray,
                 filter: Optional[np.ndarray] = None, bias: Optional[np.ndarray] = None):
    """The row's portable variant on its portable blob (the executor's way): (output, states)."""
    row = dc.ROWS[key]
    code, tcode = row["code"], row["types_code"]
    prepared = None
    if row["has_blob"]:
        prepared = _core.kernel_prepare(code, spec, np.ascontiguousarray(filter).reshape(-1),
                                        None if bias is None else np.ascontiguousarray(bias).reshape(-1),
                                        dc.ISAS["portable"], tcode)
    v = _core.kernel_variants(code, spec, dc.ISAS["portable"], tcode)[0]
    got = np.zeros_like(like)
    after = [np.array(s, copy=True) for s in states]
    _core.kernel_run(code, spec, prepared, v[1:3] + (v[6],), [np.ascontiguousarray(x).reshape(-1) for x in inputs],
                     got, after, tcode)
    return got, after


def node(key, spec: dict, inputs, reference: np.ndarray, ids, label: str, *, states=(), states_after=None,
         filter=None, bias=None) -> dc.DspCase:
    """The case of one node: the portable kernel gives the reference's output and (when given)
    its states after the call, on the host, before the node is encoded."""
    inputs = [np.ascontiguousarray(x) for x in inputs]
    states = [np.ascontiguousarray(s).reshape(-1) for s in states]
    reference = np.ascontiguousarray(reference).reshape(-1)
    if states_after is not None:
        got, after = portable_run(key, spec, inputs, states, reference, filter, bias)
        np.testing.assert_array_equal(got, reference, err_msg=f"{label}: portable kernel vs reference")
        for k, (a, want) in enumerate(zip(after, states_after)):
            np.testing.assert_array_equal(a, np.asarray(want).reshape(-1),
                                          err_msg=f"{label}: state {k} of the portable kernel vs reference")
    case = dc.encode_node(*key, spec, inputs, reference, next(ids), label, states=states, filter=filter, bias=bias)
    SPECS[(key, case.id)] = spec
    return case


# ---- LSTM s8 ------------------------------------------------------------------------------------

LSTM_S8 = ROW_KEYS["lstm_s8"]


def lstm_constants(wx, wh, biases):
    """The op table's filter (the four input matrices, then the four recurrent ones) and bias
    (the four gate biases; an absent one is zeros, as prepare reads it)."""
    cells = wx[0].shape[0]
    filt = np.concatenate([np.asarray(w, np.int8).reshape(-1) for w in list(wx) + list(wh)])
    bias = np.concatenate([np.zeros(cells, np.int32) if b is None else np.asarray(b, np.int32) for b in biases])
    return filt, bias


def lstm_litert_calls(ffi, case, calls, ids, label: str) -> List[dc.DspCase]:
    """tests/c/test_lstm.py's Case over several calls (x, initial h, c or None: the state the
    previous call left), each against the NumPy reference."""
    spec = dc.spec_of(ffi, dc.ROWS[LSTM_S8], case.params)
    assert spec["reference"] == LITERT
    filt, bias = lstm_constants(case.wx, case.wh, case.biases)
    made, h, c = [], None, None
    for k, (x, h0, c0) in enumerate(calls):
        h, c = (h0, c0) if h0 is not None else (h, c)
        out, h2, c2 = case.reference(x, h, c)
        made.append(node(LSTM_S8, spec, [np.asarray(x, np.int8)], np.asarray(out, np.int8), ids,
                         f"{label}, call {k}", states=[np.asarray(h, np.int8), np.asarray(c, np.int16)],
                         states_after=[h2, c2], filter=filt, bias=bias))
        h, c = h2, c2
    return made


def lstm_litert_draw(ffi, lib, d, ids) -> List[dc.DspCase]:
    """A draw of test_random_lstm_matches_reference, made as that test makes it."""
    import test_lstm as T
    rng = np.random.default_rng(d["seed"])
    wx, wh, biases, scales = T.random_layer(rng, d["n_input"], d["n_cell"])
    quant = T.raw_quant(rng) if d["raw"] else T.lstm_quant_params(**scales)
    if rng.integers(0, 4) == 0:
        biases[int(rng.integers(0, 4))] = None
    case = T.Case(ffi, lib, batches=d["batches"], time_steps=d["steps"], wx=wx, wh=wh, biases=biases, quant=quant,
                  time_major=d["time_major"])
    x = rng.integers(-128, 128, case.out_shape()[:2] + (d["n_input"],), dtype=np.int8)
    h, c = case.zero_state()
    if d["random_state"]:
        h = rng.integers(-128, 128, h.shape, dtype=np.int8)
        c = rng.integers(-32768, 32768, c.shape, dtype=np.int16)
    x2 = rng.integers(-128, 128, x.shape, dtype=np.int8)
    return lstm_litert_calls(ffi, case, [(x, h, c), (x2, None, None)], ids, f"lstm s8 litert {d}")


def lstm_litert_named(ffi, lib, ids) -> List[dc.DspCase]:
    """test_lstm.py's activation sweeps (fewer cells: the driver's record holds 1.5 MiB), its
    extreme sizes (an input of 65,536: the largest dot products) and the mnist_lstm op."""
    import test_lstm as T
    made = []
    for cell_scale in (-15, -12, -9):
        for clip in (0, 5000):
            case = T._sweep_case(ffi, lib, cell_scale, clip, n_cell=254)
            h, c = case.zero_state()
            x = np.zeros((1, 4, 1), np.int8)
            spread = np.linspace(-32768, 32767, case.n_cell).astype(np.int16)[None, :]
            made += lstm_litert_calls(ffi, case, [(x, h, c), (x, None, spread)], ids,
                                      f"lstm s8 litert sweep, cell scale 2^{cell_scale}, clip {clip}")
    for n_input, n_cell in [(1, 1), (65536, 1), (1, 300), (4099, 7)]:
        rng = np.random.default_rng(n_input + n_cell)
        wx, wh, b, s = T.random_layer(rng, n_input, n_cell)
        wx = [np.full_like(w, -127) for w in wx]
        case = T.Case(ffi, lib, batches=1, time_steps=2, wx=wx, wh=wh, biases=b, quant=T.raw_quant(rng))
        h, c = case.zero_state()
        made += lstm_litert_calls(ffi, case, [(np.full((1, 2, n_input), -128, np.int8), h, c)], ids,
                                  f"lstm s8 litert extreme sizes {n_input} x {n_cell}")
    if L.unavailable_reason() is None and T.MNIST_LSTM.exists():
        import arenaplan as ap
        from arenaplan.ops.lstm_params import lstm_operands
        ops = lstm_operands(ap.load_tflite(T.MNIST_LSTM), 0)
        case = T.Case(ffi, lib, batches=1, time_steps=28, wx=ops.input_weights, wh=ops.recurrent_weights,
                      biases=ops.biases, quant=ops.params)
        rng = np.random.default_rng(7)
        h, c = case.zero_state()
        xs = [rng.integers(-128, 128, (1, 28, 28), dtype=np.int8) for _ in range(2)]
        made += lstm_litert_calls(ffi, case, [(xs[0], h, c), (xs[1], None, None)], ids, "lstm s8 litert mnist_lstm op 0")
    return made


def _state_of(micro, tensor: int) -> np.ndarray:
    return micro.GetTensor(tensor, 0)["tensor_data"].copy()


def tflm_model_calls(content: bytes, xs: list, key, tmp_path: Path, ids, label: str, op_out: Optional[int] = None,
                     ) -> List[dc.DspCase]:
    """A model whose op 0 is an LSTM of the row ``key``, its params, weights and biases as the
    project lowers them under "tflm" (PlanContext), one case per call of the tflite-micro
    interpreter (its variable tensors carried): the state before the call and TensorFlow Lite
    Micro's output and states after it (op_out: the LSTM's output tensor where it is not the
    model's output)."""
    import arenaplan as ap
    from arenaplan.planning.context import PlanContext
    from tflite_micro.python.tflite_micro import runtime
    path = tmp_path / "lstm.tflite"
    path.write_bytes(content)
    model = ap.load_tflite(path)
    kernel = PlanContext.build(model, isa="portable", reference="tflm").kernels[0]
    assert kernel.types == dc.ROWS[key]["types_code"] and kernel.code == dc.ROWS[key]["code"], label
    consts = [np.ascontiguousarray(model.tensors[t].data) for t in kernel.data_inputs[1:]]
    # the 16x8 row reads its int64 biases byte-wise, at any address (lstm_s16.c): as bytes here,
    # the driver moves them with the int8 weights in the misaligned runs
    consts = [a.reshape(-1).view(np.uint8) if a.dtype == np.int64 else a for a in consts]
    micro = runtime.Interpreter.from_bytes(content, arena_size=1 << 21,
                                           intrepreter_config=runtime.InterpreterConfig.kPreserveAllTensors)
    dtype = np.int8 if key == LSTM_S8 else np.int16
    made = []
    for k, x in enumerate(xs):
        before = [_state_of(micro, t) for t in kernel.states]
        micro.set_input(x, 0)
        micro.invoke()
        want = np.array(micro.get_output(0)) if op_out is None else micro.GetTensor(op_out, 0)["tensor_data"].copy()
        after = [_state_of(micro, t) for t in kernel.states]
        made.append(node(key, kernel.spec, [np.asarray(x, dtype)] + consts, np.asarray(want, dtype), ids,
                         f"{label}, call {k}", states=before, states_after=after,
                         filter=kernel.weights, bias=kernel.bias))
    return made


def lstm_tflm_draw(d, tmp_path, ids) -> List[dc.DspCase]:
    """A draw of test_lstm_int8_tflm.py's test_hypothesis, made as that test makes it."""
    import test_lstm_int8_tflm as T
    rng = np.random.default_rng(d["seed"])
    wx, wh, biases, s = T.random_layer(rng, d["n_in"], d["n_cell"], clip=d["clip"], cell_scale=d["log2"])
    content = T.lstm_model(batches=d["batches"], time_steps=d["steps"], input_weights=wx, recurrent_weights=wh,
                           biases=biases, input_scale=s["input_scale"], input_zero_point=s["input_zero_point"],
                           weight_scales=s["input_weight_scales"] + s["recurrent_weight_scales"],
                           output_state_scale=s["output_state_scale"],
                           output_state_zero_point=s["output_state_zero_point"], cell_scale_log2=d["log2"],
                           hidden_scale=s["hidden_scale"], hidden_zero_point=s["hidden_zero_point"],
                           cell_clip=d["clip"], time_major=d["time_major"])
    shape = (d["steps"], d["batches"], d["n_in"]) if d["time_major"] else (d["batches"], d["steps"], d["n_in"])
    xs = [rng.integers(-128, 128, shape, dtype=np.int8) for _ in range(2)]
    return tflm_model_calls(content, xs, LSTM_S8, tmp_path, ids, f"lstm s8 tflm {d}")


def lstm_tflm_named(tmp_path, ids) -> List[dc.DspCase]:
    """test_lstm_int8_tflm.py's seeded models: random ones (the first two blocks), saturating
    gates, clips, a hidden scale that is not the output state's; and the mnist_lstm op."""
    import test_lstm_int8_tflm as T
    made = []
    specs = [(f"random_model({seed})", dict(seed=seed)) for seed in range(12)]
    specs += [(f"random_model({100 + s}, saturate)", dict(seed=100 + s, saturate=True)) for s in range(4)]
    specs += [(f"random_model clip {clip}", dict(seed=200 + int(clip * 7), clip=clip)) for clip in (0.0, 1e-6, 1.0)]
    specs += [("random_model(300) hidden x3", dict(seed=300, hidden_scale_factor=3.0))]
    for label, kw in specs:
        content, xs, _ = T.random_model(**kw)
        made += tflm_model_calls(content, xs, LSTM_S8, tmp_path, ids, f"lstm s8 tflm {label}")
    if T.MNIST_LSTM.exists():
        import arenaplan as ap
        model = ap.load_tflite(T.MNIST_LSTM)
        rng = np.random.default_rng(11)
        xs = [rng.integers(-128, 128, (1, 28, 28), dtype=np.int8) for _ in range(2)]
        made += tflm_model_calls(T.MNIST_LSTM.read_bytes(), xs, LSTM_S8, tmp_path, ids, "lstm s8 tflm mnist_lstm op 0",
                                 op_out=model.operators[0].outputs[0])
    return made


# ---- LSTM s16x8 ---------------------------------------------------------------------------------

LSTM_S16 = ROW_KEYS["lstm_s16x8"]


def lstm16_draw(d, tmp_path, ids) -> List[dc.DspCase]:
    """A draw of test_lstm_16x8.py's test_hypothesis: its model and feeds (two random calls,
    then the int16 extremes)."""
    import test_lstm_16x8 as T
    content = T.lstm16_model(d["seed"], d["batches"], d["steps"], d["depth"], d["cells"], time_major=d["time_major"],
                             input_scale=d["input_scale"], cell_scale=2.0 ** d["log2"], cell_clip=d["clip"])
    shape = (d["steps"], d["batches"], d["depth"]) if d["time_major"] else (d["batches"], d["steps"], d["depth"])
    return tflm_model_calls(content, T.feeds(shape, d["seed"], 2), LSTM_S16, tmp_path, ids, f"lstm s16x8 {d}")


def lstm16_named(tmp_path, ids) -> List[dc.DspCase]:
    """test_lstm_16x8.py's CASES, its small weights and wide biases, and three depths past its
    draws' (a multiple of 4, one past, three past)."""
    import test_lstm_16x8 as T
    made = []
    for case, (b, t, n, cells, tm, xs, hs, cs, clip) in enumerate(T.CASES):
        content = T.lstm16_model(case, b, t, n, cells, time_major=tm, input_scale=xs, state_scale=hs, cell_scale=cs,
                                 cell_clip=clip)
        made += tflm_model_calls(content, T.feeds((t, b, n) if tm else (b, t, n), case), LSTM_S16, tmp_path, ids,
                                 f"lstm s16x8 CASES[{case}]")
    for k, (ws, br) in enumerate(((1e-4, 2 ** 40), (0.05, 2 ** 20), (1e-6, 10))):
        content = T.lstm16_model(40 + k, 2, 3, 6, 5, weight_scale=ws, bias_range=br)
        made += tflm_model_calls(content, T.feeds((2, 3, 6), 40 + k, calls=2), LSTM_S16, tmp_path, ids,
                                 f"lstm s16x8 weight scale {ws}, biases to {br}")
    for depth, cells in ((64, 9), (65, 4), (131, 3)):
        content = T.lstm16_model(depth, 1, 2, depth, cells)
        made += tflm_model_calls(content, T.feeds((1, 2, depth), depth, calls=1), LSTM_S16, tmp_path, ids,
                                 f"lstm s16x8 depth {depth}, {cells} cells")
    return made


# ---- BATCH_MATMUL -------------------------------------------------------------------------------

def bmm_shapes(dims: int, deep: bool = False):
    """test_batch_matmul.py's test_hypothesis draws (ranks 2-5, broadcast batch dims, adj_x /
    adj_y; m, k, n in 1..9) as a strategy of (dtype, LHS shape, RHS shape, adj_x, adj_y); deep:
    ranks 2-3 with k in 1..70 and n in 1..17 (odd depths, the 4-column blocks and their tails)."""
    kn = (st.integers(1, 70), st.integers(1, 17)) if deep else (st.integers(1, dims), st.integers(1, dims))

    @st.composite
    def draw(draw):
        dtype = draw(st.sampled_from(["int8", "int16"]))
        lr, rr = draw(st.integers(2, 3 if deep else 5)), draw(st.integers(2, 3 if deep else 5))
        m, k, n = draw(st.integers(1, 5 if deep else dims)), draw(kn[0]), draw(kn[1])
        rank = max(lr, rr)
        batch = [draw(st.integers(1, 3)) for _ in range(rank - 2)]
        lb = [b if draw(st.booleans()) else 1 for b in batch][rank - lr:]
        rb = [b if draw(st.booleans()) else 1 for b in batch][rank - rr:]
        ax, ay = draw(st.booleans()), draw(st.booleans())
        ls = tuple(lb) + ((k, m) if ax else (m, k))
        rs = tuple(rb) + ((n, k) if ay else (k, n))
        return dtype, ls, rs, ax, ay
    return draw()


def bmm_model_cases(content: bytes, xs: list, tmp_path: Path, ids, label: str) -> Dict[str, List[dc.DspCase]]:
    """A one-op model of test_batch_matmul.py's bmm_model: its params as the project lowers
    them (PlanContext), each feed (graph inputs in order; a constant operand from the model)
    against LiteRT's reference kernels. Returns the cases by row name."""
    import arenaplan as ap
    from arenaplan.planning.context import PlanContext
    path = tmp_path / "bmm.tflite"
    path.write_bytes(content)
    model = ap.load_tflite(path)
    (kernel,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    name = {0: "batch_matmul_s8", 1: "batch_matmul_s16x8"}[kernel.types]
    wants = [w[0] for w in L.run_sequence(content, xs)[0]]
    made = []
    for k, (x, want) in enumerate(zip(xs, wants)):
        feeds = dict(zip(model.inputs, x))
        inputs = [feeds[t] if t in feeds else np.ascontiguousarray(model.tensors[t].data) for t in kernel.data_inputs]
        made.append(node(ROW_KEYS[name], kernel.spec, inputs, want, ids[name], f"{label}, feed {k}", states_after=()))
    return {name: made}


def bmm_draw(d, tmp_path, ids):
    import test_batch_matmul as T
    dtype, ls, rs, ax, ay = d
    seed = int(np.prod(ls)) * 1000 + int(np.prod(rs)) + 7 * ax + 3 * ay
    return bmm_model_cases(T.bmm_model(dtype, ls, rs, ax, ay), T.feeds(dtype, [ls, rs], seed), tmp_path, ids,
                           f"batch_matmul {dtype} {ls} x {rs} adj_x {ax} adj_y {ay}")


def bmm_named(tmp_path, ids) -> List[Dict[str, List[dc.DspCase]]]:
    """test_batch_matmul.py's CASES, constant operands, int8 zero points at the ends and int16
    sums past int32."""
    import test_batch_matmul as T
    made = []
    for dtype in ("int8", "int16"):
        for case, (ls, rs, ax, ay) in enumerate(T.CASES):
            made.append(bmm_model_cases(T.bmm_model(dtype, ls, rs, ax, ay), T.feeds(dtype, [ls, rs], case), tmp_path,
                                        ids, f"batch_matmul {dtype} CASES[{case}]"))
        for which in ("rhs", "lhs"):
            rng = np.random.default_rng(3)
            ls, rs = (2, 3, 8), (8, 6)
            const = T.values(dtype, rs if which == "rhs" else ls, rng, "random")
            xs = [[T.values(dtype, ls if which == "rhs" else rs, rng, k)] for k in ("random", "edges")]
            made.append(bmm_model_cases(T.bmm_model(dtype, ls, rs, **{which: const}), xs, tmp_path, ids,
                                        f"batch_matmul {dtype} constant {which}"))
    for lz, rz, oz in [(-128, 127, -128), (127, -128, 127), (0, 0, 0), (-128, -128, 127)]:
        for k, scales in enumerate([(0.05, 0.02, 0.1), (0.5, 0.5, 0.01), (1e-3, 2e-3, 1.0)]):
            ls, rs = (2, 3, 16), (16, 5)
            made.append(bmm_model_cases(T.bmm_model("int8", ls, rs, qs=tuple(zip(scales, (lz, rz, oz)))),
                                        T.feeds("int8", [ls, rs], k), tmp_path, ids,
                                        f"batch_matmul int8 zero points {lz} {rz} {oz}, scales {scales}"))
    ls, rs = (1, 2, 300), (300, 3)
    x = [[np.full(ls, -32768, np.int16), np.full(rs, -32768, np.int16)],
         [np.full(ls, 32767, np.int16), np.full(rs, -32768, np.int16)]]
    for k, out_scale in enumerate([1e5, 3e6]):
        made.append(bmm_model_cases(T.bmm_model("int16", ls, rs, qs=((0.05, 0), (0.02, 0), (out_scale, 0))),
                                    x + T.feeds("int16", [ls, rs], k), tmp_path, ids,
                                    f"batch_matmul int16 depth 300, output scale {out_scale}"))
    for depth in (40000, 70001):   # int8 sums of 255 * 255 past 2^31 and 2^32: they wrap, as TFLite's int32 sums
        ls, rs = (1, depth), (depth, 5)
        x = [[np.full(ls, 127, np.int8), np.full(rs, 127, np.int8)], [np.full(ls, 127, np.int8), np.full(rs, -128, np.int8)]]
        made.append(bmm_model_cases(T.bmm_model("int8", ls, rs, qs=((0.05, -128), (0.02, -128), (1e3, 0))), x, tmp_path,
                                    ids, f"batch_matmul int8 depth {depth}, sums that wrap"))
    return made


# ---- the case sets ------------------------------------------------------------------------------

def _given(test) -> dict:
    """A host test's @given arguments as one strategy of dicts."""
    return st.fixed_dictionaries(test.hypothesis._given_kwargs)


@pytest.fixture(scope="module")
def cases(ffi, lib, tmp_path_factory) -> Dict[str, List[dc.DspCase]]:
    """Every row's cases (ids from 0 within a row)."""
    if _LITERT is not None or _TFLM is not None:
        pytest.skip(f"the peers' interpreters are missing: {_LITERT or _TFLM}")
    import test_lstm as T8
    import test_lstm_16x8 as T16
    import test_lstm_int8_tflm as T8M
    tmp = tmp_path_factory.mktemp("recurrent_models")
    t0 = time.perf_counter()
    ids = {name: itertools.count() for name in ROWS}
    out: Dict[str, List[dc.DspCase]] = {name: [] for name in ROWS}
    for d in dc.draws(_given(T8.test_random_lstm_matches_reference), COUNTS["lstm_litert"]):
        out["lstm_s8"] += lstm_litert_draw(ffi, lib, d, ids["lstm_s8"])
    out["lstm_s8"] += lstm_litert_named(ffi, lib, ids["lstm_s8"])
    for d in dc.draws(_given(T8M.test_hypothesis), COUNTS["lstm_tflm"]):
        out["lstm_s8"] += lstm_tflm_draw(d, tmp, ids["lstm_s8"])
    out["lstm_s8"] += lstm_tflm_named(tmp, ids["lstm_s8"])
    for d in dc.draws(_given(T16.test_hypothesis), COUNTS["lstm_s16x8"]):
        out["lstm_s16x8"] += lstm16_draw(d, tmp, ids["lstm_s16x8"])
    out["lstm_s16x8"] += lstm16_named(tmp, ids["lstm_s16x8"])
    bmm = [bmm_draw(d, tmp, ids) for d in dc.draws(bmm_shapes(9), COUNTS["bmm"])]
    bmm += [bmm_draw(d, tmp, ids) for d in dc.draws(bmm_shapes(9, deep=True), COUNTS["bmm_wide"])]
    bmm += bmm_named(tmp, ids)
    for made in bmm:
        for name, got in made.items():
            out[name] += got
    print(f"cases made in {time.perf_counter() - t0:.1f} s: " + ", ".join(f"{k} {len(v)}" for k, v in out.items()))
    return out



def test_the_cases_reach_the_simd_lengths(cases):
    """Each row's cases run its arm-dsp code over lengths of every remainder modulo 4 (the
    four-byte SMLAD steps and their scalar tails; BATCH_MATMUL's four-column blocks and their
    tail columns, and odd depths, which its packed rows pad to a word), both LSTM rules, and
    BATCH_MATMUL's packed variant with its two scratch buffers."""
    seen: Dict[str, Counter] = {name: Counter() for name in ROWS}
    for name, row in cases.items():
        for c in row:
            spec = SPECS[(ROW_KEYS[name], c.id)]
            if name == "lstm_s8":
                rule = ("litert", "tflm")[spec["reference"]]
                seen[name].update([f"{rule} input % 4 = {spec['input_size'] % 4}",
                                   f"{rule} cells % 4 = {spec['cell_size'] % 4}"])
            elif name == "lstm_s16x8":
                seen[name].update([f"input % 4 = {spec['input_size'] % 4}", f"cells % 4 = {spec['cell_size'] % 4}"])
            else:
                seen[name].update([f"depth % 4 = {spec['depth'] % 4}", f"cols % 4 = {spec['cols'] % 4}",
                                   f"cols {'>= 4' if spec['cols'] >= 4 else '< 4'}"])
                assert c.variants == ["direct", "packed"] and len(c.scratch[1]) == 2, c.label
    print({k: dict(v) for k, v in seen.items()})
    for name, counter in seen.items():
        keys = ([f"{rule} {what} % 4 = {r}" for rule in ("litert", "tflm") for what in ("input", "cells")
                 for r in range(4)] if name == "lstm_s8" else
                [f"{what} % 4 = {r}" for what in ("input", "cells") for r in range(4)] if name == "lstm_s16x8" else
                [f"{what} % 4 = {r}" for what in ("depth", "cols") for r in range(4)] + ["cols >= 4", "cols < 4"])
        for key in keys:
            assert counter[key] >= 5, (name, key, dict(counter))


@pytest.mark.parametrize("board_core", CORES)
@pytest.mark.parametrize("row", ROWS)
def test_every_arm_dsp_variant_on_the_core(dsp_driver, cases, dsp_work, row, board_core):
    """Every arm-dsp variant of every case of the row on ``core``: the expected output and
    states with exactly its scratch between guard bytes, AP_ERR_SCRATCH_TOO_SMALL and the
    output and states untouched with one byte too few, nothing written outside its buffers,
    the core's variant list (and the LSTM's blob) the host's, the stack it touched within
    run()'s static bound."""
    ours = cases[row]
    print(dc.check_on_core(dsp_driver(board_core), board_core, dc.write_cases(dsp_work / f"{row}.bin", ours), ours, row))


@pytest.mark.parametrize("row", ROWS)
def test_inputs_and_outputs_at_any_address(dsp_driver, cases, dsp_work, row):
    """Every variant on the M4 gives the same bytes and states with its inputs, output and
    state 1 or 2 bytes past a 16-byte boundary (rounded down to the element: the C API asks an
    int16 or int64 operand's alignment, no more)."""
    ours = cases[row]
    path = dc.write_cases(dsp_work / f"{row}.bin", ours)
    for offset in (1, 2):
        t0 = time.perf_counter()
        results = dc.run_cases(dsp_driver("cortex-m4"), "cortex-m4", path, ours, offset=offset,
                               misaligned=("input", "output", "state"))
        bad = [f"case {c.id}: {c.label}: {results[c.id].failures}" for c in ours if results[c.id].failures]
        assert not bad, f"{len(bad)} cases fail with input, output and state {offset} bytes off:\n" + "\n".join(bad[:20])
        assert all(r.passed == r.variants for r in results.values())
        print(f"{row} with inputs, output and state +{offset}: {len(ours)} cases in {time.perf_counter() - t0:.1f} s")


@pytest.mark.parametrize("row", ["batch_matmul_s8", "batch_matmul_s16x8"])
def test_scratch_at_any_address_is_used_or_refused(dsp_driver, cases, dsp_work, row):
    """BATCH_MATMUL's packed variant on the M4 with its scratch buffers 1 or 2 bytes past their
    alignment either gives the same bytes (and refuses one byte less) or refuses the buffers
    with AP_ERR_INVALID_ARGUMENT, writing nothing; it never faults."""
    ours = cases[row]
    path = dc.write_cases(dsp_work / f"{row}.bin", ours)
    refused = Counter()
    for offset in (1, 2):
        results = dc.run_cases(dsp_driver("cortex-m4"), "cortex-m4", path, ours, offset=offset,
                               misaligned=("scratch",), only="packed")
        bad = [f"case {c.id}: {c.label}: {results[c.id].failures}" for c in ours if results[c.id].failures]
        assert not bad, f"{len(bad)} cases fail with scratch {offset} bytes off:\n" + "\n".join(bad[:20])
        refused.update(f"{name} +{offset}" for r in results.values() for name in r.refused)
    print(f"{row}: refusals {dict(refused)}")


def test_the_driver_reports_a_wrong_output_and_a_wrong_state(dsp_driver, ffi, lib, dsp_work):
    """The driver's checks fail when they should on these rows: an LSTM whose expected output
    has one byte changed, one whose expected cell state after the call has one value changed,
    and a BATCH_MATMUL whose expected int16 output has one value changed (every variant)."""
    import test_lstm as T
    rng = np.random.default_rng(12)
    wx, wh, biases, scales = T.random_layer(rng, 9, 6)
    case = T.Case(ffi, lib, batches=2, time_steps=3, wx=wx, wh=wh, biases=biases, quant=T.lstm_quant_params(**scales))
    spec = dc.spec_of(ffi, dc.ROWS[LSTM_S8], case.params)
    filt, bias = lstm_constants(case.wx, case.wh, case.biases)
    x = rng.integers(-128, 128, (2, 3, 9), dtype=np.int8)
    h, c = case.zero_state()
    out, h2, c2 = case.reference(x, h, c)
    states = [h.reshape(-1), c.reshape(-1)]
    args = (spec, [x], np.asarray(out, np.int8).reshape(-1))
    wrong = np.asarray(out, np.int8).reshape(-1).copy()
    wrong[5] ^= 1
    bad_output = dc.encode_node(*LSTM_S8, *args, 0, "wrong output", states=states, filter=filt, bias=bias,
                                expected=wrong)
    bad_state = dc.encode_node(*LSTM_S8, *args, 1, "wrong cell state", states=states, filter=filt, bias=bias)
    # the record holds the states before the call, then after it: change one cell state value after
    before = b"".join(dc._buffer(s) for s in states)
    after = b"".join(dc._buffer(np.asarray(s).reshape(-1)) for s in (h2, c2))
    at = bad_state.record.index(before + after) + len(before) + len(dc._buffer(h2.reshape(-1))) + 8
    record = bytearray(bad_state.record)
    record[at] ^= 1
    bad_state.record = bytes(record)
    good = dc.encode_node(*LSTM_S8, *args, 2, "right", states=states, filter=filt, bias=bias)
    ours = [bad_output, bad_state, good]
    results = dc.run_cases(dsp_driver("cortex-m4"), "cortex-m4", dc.write_cases(dsp_work / "tampered.bin", ours), ours)
    assert results[0].failures == [f"direct output_differs_at 5 {wrong[5] ^ 1} {wrong[5]}"] and results[0].passed == 0
    assert results[1].failures == ["direct state_differs 1 0"] and results[1].passed == 0
    assert results[2].failures == [] and results[2].passed == 1

    spec = {"lhs_batch": [1, 1, 2], "rhs_batch": [1, 1, 1], "rows": 3, "depth": 7, "cols": 5, "adj_x": 0, "adj_y": 0,
            "lhs_offset": 0, "rhs_offset": 0, "output_offset": 0, "output_multiplier": 1 << 30, "output_shift": -9,
            "activation_min": -32768, "activation_max": 32767}
    a = rng.integers(-32768, 32768, (2, 3, 7)).astype(np.int16)
    b = rng.integers(-32768, 32768, (7, 5)).astype(np.int16)
    want, _ = portable_run(ROW_KEYS["batch_matmul_s16x8"], spec, [a, b], [], np.zeros(30, np.int16))
    wrong = want.copy()
    wrong[17] += 1
    bad = dc.encode_node(*ROW_KEYS["batch_matmul_s16x8"], spec, [a, b], want, 0, "wrong int16 output", expected=wrong)
    results = dc.run_cases(dsp_driver("cortex-m4"), "cortex-m4", dc.write_cases(dsp_work / "tampered16.bin", [bad]), [bad])
    lo = wrong.view(np.int8)[34]   # the driver names the first differing byte, as int8
    assert [f.split()[:3] for f in results[0].failures] == [[v, "output_differs_at", "34" if lo != want.view(np.int8)[34]
                                                              else "35"] for v in ("direct", "packed")]
    assert results[0].passed == 0
