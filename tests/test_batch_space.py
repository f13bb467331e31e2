"""int8 BATCH_TO_SPACE_ND and SPACE_TO_BATCH_ND (batch_space_s8.c): one-op .tflite models built
with the flatbuffer schema (blocks of 1 to 3 each way, crops and paddings on every side, batches,
rank 3 inputs, zero points at both ends for the padding), the copy variant on every instruction
set this host runs inside a verified plan, bit-exact with LiteRT's reference kernels
(BUILTIN_REF) and TensorFlow Lite Micro's interpreter (except where SPACE_TO_BATCH_ND pads:
TFLite Micro's kernel never sets its pad value, so its padding holds whatever that memory
held; arenaplan pads with the zero point as LiteRT does, under both rules); hypothesis over shapes, blocks and pads;
the poisoned-arena property; what TFLite rejects refused naming the op, when the plan is made,
and params the kernel cannot run refused by the C kernel."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import UnsupportedModel
from arenaplan.planning.context import PlanContext
from harness.reference import litert_layers as L
from unary_s8 import check_one_variant, load, tflm_outputs

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
OPTIONS = {"BATCH_TO_SPACE_ND": "BatchToSpaceNDOptions", "SPACE_TO_BATCH_ND": "SpaceToBatchNDOptions"}


def out_shape(op, shape, block, pads):
    spatial = len(block)
    n, dims, c = shape[0], list(shape[1:1 + spatial]), shape[-1]
    area = int(np.prod(block))
    if op == "BATCH_TO_SPACE_ND":
        return (n // area, *[d * b - sum(p) for d, b, p in zip(dims, block, pads)], c)
    return (n * area, *[(d + sum(p)) // b for d, b, p in zip(dims, block, pads)], c)


def batch_space_model(op, shape, block, pads, out=None, q=(0.04, -7), out_q=None) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    out_q = out_q or q
    tensors = [dict(shape=shape, dtype="int8", scale=q[0], zero_point=q[1]),
               dict(shape=(len(block),), dtype="int32", data=np.array(block, np.int32)),
               dict(shape=(len(pads), 2), dtype="int32", data=np.array(pads, np.int32).reshape(-1, 2)),
               dict(shape=out or out_shape(op, shape, block, pads), dtype="int8", scale=out_q[0],
                    zero_point=out_q[1])]
    return L.single_op_model(op, tensors, [0, 1, 2], [3], OPTIONS[op], getattr(S, OPTIONS[op] + "T")(), version=2)


def feeds(shape, seed):
    rng = np.random.default_rng(seed)
    xs = [rng.integers(-128, 128, size=shape, dtype=np.int8) for _ in range(2)]
    return xs + [np.resize(np.arange(-128, 128, dtype=np.int8), shape)]


def check(content, tmp_path, shape, seed=0, tflm=True):
    check_one_variant(content, tmp_path, feeds(shape, seed), "copy", tflm=tflm)


#: (op, input shape, block, crops or paddings, quantisation)
CASES = [
    ("BATCH_TO_SPACE_ND", (4, 2, 3, 3), [2, 2], [[0, 0], [0, 0]], (0.04, -7)),
    ("BATCH_TO_SPACE_ND", (4, 2, 3, 3), [2, 2], [[0, 1], [1, 0]], (0.04, -7)),
    ("BATCH_TO_SPACE_ND", (12, 3, 2, 2), [3, 2], [[2, 1], [0, 3]], (0.04, 127)),
    ("BATCH_TO_SPACE_ND", (6, 1, 4, 1), [1, 3], [[0, 0], [2, 2]], (0.04, -128)),
    ("BATCH_TO_SPACE_ND", (2, 5, 3), [2], [[1, 2]], (0.04, 3)),              # rank 3
    ("SPACE_TO_BATCH_ND", (1, 4, 4, 3), [2, 2], [[0, 0], [0, 0]], (0.04, -7)),
    ("SPACE_TO_BATCH_ND", (1, 3, 5, 3), [2, 2], [[1, 0], [0, 1]], (0.04, -7)),
    ("SPACE_TO_BATCH_ND", (2, 4, 1, 2), [3, 2], [[2, 0], [1, 2]], (0.04, 127)),   # pads at the zero point's ends
    ("SPACE_TO_BATCH_ND", (1, 2, 2, 1), [1, 1], [[1, 1], [2, 0]], (0.04, -128)),
    ("SPACE_TO_BATCH_ND", (2, 5, 3), [3], [[0, 1]], (0.04, 50)),              # rank 3
]


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(case, tmp_path):
    op, shape, block, pads, q = CASES[case]
    padded = op == "SPACE_TO_BATCH_ND" and np.any(pads)
    check(batch_space_model(op, shape, block, pads, q=q), tmp_path, shape, seed=case, tflm=not padded)


def test_tflm_agrees_off_the_padding(tmp_path):
    """The padded SPACE_TO_BATCH_ND against TFLite Micro off the padding (its pad value is memory
    its kernel never sets); the padding is the zero point under both rules."""
    content = batch_space_model("SPACE_TO_BATCH_ND", (1, 3, 5, 3), [2, 2], [[1, 0], [0, 1]])
    x = np.arange(45, dtype=np.int8).reshape(1, 3, 5, 3)     # no element equals the zero point -7
    model = load(content, tmp_path)
    for reference in ("litert", "tflm"):
        got = ap.Interpreter(ap.plan(model, reference=reference)).run(x)
        pad = got == -7
        assert pad.sum() == 4 * 2 * 3 * 3 - 45
        (micro,) = tflm_outputs(content, [x])
        np.testing.assert_array_equal(micro[0][~pad], got[~pad])


@needs_litert
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_hypothesis(data, tmp_path_factory):
    op = data.draw(st.sampled_from(list(OPTIONS)))
    bh, bw = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    n, c = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3))
    if op == "BATCH_TO_SPACE_ND":
        h, w = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
        ct = data.draw(st.integers(0, h * bh - 1))
        cl = data.draw(st.integers(0, w * bw - 1))
        pads = [[ct, data.draw(st.integers(0, h * bh - 1 - ct))], [cl, data.draw(st.integers(0, w * bw - 1 - cl))]]
        shape = (n * bh * bw, h, w, c)
    else:
        pads = [[data.draw(st.integers(0, 3)) for _ in range(2)] for _ in range(2)]
        h = data.draw(st.integers(1, 3)) * bh - sum(pads[0])
        w = data.draw(st.integers(1, 3)) * bw - sum(pads[1])
        if h < 1 or w < 1:
            pads = [[0, 0], [0, 0]]
            h, w = bh, bw
        shape = (n, h, w, c)
    zp = data.draw(st.integers(-128, 127))
    check(batch_space_model(op, shape, [bh, bw], pads, q=(0.04, zp)), tmp_path_factory.mktemp("bs"), shape,
          seed=bh + bw + n, tflm=False)


@pytest.mark.parametrize("op, shape, block, pads, kwargs, match", [
    ("BATCH_TO_SPACE_ND", (3, 2, 2, 1), [2, 2], [[0, 0], [0, 0]], dict(out=(1, 4, 4, 1)),
     r"batch 3 is not a multiple of the block's 2 x 2"),
    ("BATCH_TO_SPACE_ND", (4, 2, 2, 1), [2, 2], [[2, 2], [0, 0]], dict(out=(1, 1, 4, 1)),
     r"crops \[\[2, 2\], \[0, 0\]\] leave no pixels of the 4 x 4 image"),
    ("BATCH_TO_SPACE_ND", (4, 2, 2, 1), [2, 0], [[0, 0], [0, 0]], dict(out=(1, 4, 4, 1)),
     r"block_shape \[2, 0\]: every block must be >= 1"),
    ("BATCH_TO_SPACE_ND", (4, 2, 2, 1), [2, 2], [[0, -1], [0, 0]], dict(out=(1, 4, 4, 1)),
     r"crops \[\[0, -1\], \[0, 0\]\]: every value must be >= 0"),
    ("SPACE_TO_BATCH_ND", (1, 3, 4, 1), [2, 2], [[0, 0], [0, 0]], dict(out=(4, 2, 2, 1)),
     r"the padded size 3 x 4 is not a multiple of block_shape \[2, 2\]"),
    ("SPACE_TO_BATCH_ND", (1, 4, 4, 1), [2, 2], [[0, 0], [0, 0]], dict(out_q=(0.04, -6)),
     r"output tensor 3 has scale 0.04 and zero point -6, the input 0.04 and -7; TFLite's int8 SPACE_TO_BATCH_ND "
     r"requires them equal"),
    ("SPACE_TO_BATCH_ND", (1, 4, 4, 1), [2, 2], [[0, 0], [0, 0]], dict(out=(4, 2, 1, 2)),
     r"output tensor 3 has shape \(4, 2, 1, 2\), the op computes \(4, 2, 2, 1\)"),
])
def test_bad_batch_space_is_refused(op, shape, block, pads, kwargs, match, tmp_path):
    model = load(batch_space_model(op, shape, block, pads, **kwargs), tmp_path)
    with pytest.raises(UnsupportedModel, match=rf"op 0 \({op}\): " + match):
        ap.plan(model)


def test_kernel_params_are_checked(tmp_path):
    model = load(batch_space_model("BATCH_TO_SPACE_ND", (4, 2, 3, 3), [2, 2], [[0, 1], [1, 0]]), tmp_path)
    (k,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    assert k.spec == {"input_shape": [4, 2, 3, 3], "output_shape": [1, 3, 5, 3], "block_h": 2, "block_w": 2,
                      "pad_top": 0, "pad_left": 1, "pad_value": 0}
    with pytest.raises(ValueError, match=r"batch_to_space_nd: output 5 x 5 with crops \(0, 1\) reads beyond"):
        _core.kernel_variants(k.code, dict(k.spec, output_shape=[1, 5, 5, 3]))
    with pytest.raises(ValueError, match=r"batch_to_space_nd: batch 4 is not 2 times the block's 2 x 2"):
        _core.kernel_variants(k.code, dict(k.spec, output_shape=[2, 3, 5, 3]))
    model = load(batch_space_model("SPACE_TO_BATCH_ND", (1, 3, 5, 3), [2, 2], [[1, 0], [0, 1]]), tmp_path, "s2b")
    (k,) = PlanContext.build(model, isa="portable", reference="litert").kernels
    assert k.spec["pad_value"] == -7
    with pytest.raises(ValueError, match=r"space_to_batch_nd: pad_value 128 must lie in \[-128, 127\]"):
        _core.kernel_variants(k.code, dict(k.spec, pad_value=128))
