"""int8 DEPTH_TO_SPACE and SPACE_TO_DEPTH on the TRANSPOSE row (one swap of two axes of the
input read as five): one-op .tflite models built with the flatbuffer schema (blocks 1 to 4,
batches, size-1 dimensions, an output quantised unlike the input, which TFLite copies as
stored), on every instruction set this host runs inside a verified plan, bit-exact with
LiteRT's reference kernels (BUILTIN_REF) and TensorFlow Lite Micro's interpreter; hypothesis
over shapes and blocks; the poisoned-arena property; what TFLite rejects refused naming the op,
when the plan is made."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import arenaplan as ap
from arenaplan.errors import UnsupportedModel
from arenaplan.ops.lowering import OP_CODES
from harness.reference import litert_layers as L
from unary_s8 import check_one_variant, inputs, load

_LITERT = L.unavailable_reason()
needs_litert = pytest.mark.skipif(_LITERT is not None, reason=str(_LITERT))
OPS = ["DEPTH_TO_SPACE", "SPACE_TO_DEPTH"]
OPTIONS = {"DEPTH_TO_SPACE": "DepthToSpaceOptions", "SPACE_TO_DEPTH": "SpaceToDepthOptions"}


def out_shape(op, shape, b):
    n, h, w, c = shape
    return (n, h * b, w * b, c // (b * b)) if op == "DEPTH_TO_SPACE" else (n, h // b, w // b, c * b * b)


def depth_space_model(op, shape, block, out=None, out_q=(0.03, -4)) -> bytes:
    from ai_edge_litert import schema_py_generated as S
    o = getattr(S, OPTIONS[op] + "T")()
    o.blockSize = block
    tensors = [dict(shape=shape, dtype="int8", scale=0.03, zero_point=-4),
               dict(shape=out or out_shape(op, shape, block), dtype="int8", scale=out_q[0], zero_point=out_q[1])]
    return L.single_op_model(op, tensors, [0], [1], OPTIONS[op], o, version=1)


def check(content, tmp_path, shape, seed=0):
    check_one_variant(content, tmp_path, inputs(shape, seed)[:4], "copy", code=OP_CODES["TRANSPOSE"])


#: (op, input shape, block)
CASES = [
    ("DEPTH_TO_SPACE", (1, 2, 4, 16), 2),
    ("DEPTH_TO_SPACE", (2, 3, 2, 18), 3),     # batches, block 3
    ("DEPTH_TO_SPACE", (1, 1, 1, 16), 4),
    ("DEPTH_TO_SPACE", (1, 3, 5, 7), 1),      # block 1: a copy
    ("SPACE_TO_DEPTH", (1, 4, 8, 3), 2),
    ("SPACE_TO_DEPTH", (2, 6, 3, 2), 3),
    ("SPACE_TO_DEPTH", (1, 4, 4, 1), 4),
    ("SPACE_TO_DEPTH", (3, 1, 1, 5), 1),
]


@needs_litert
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_litert_and_tflm(case, tmp_path):
    op, shape, block = CASES[case]
    check(depth_space_model(op, shape, block), tmp_path, shape, seed=case)


@needs_litert
@pytest.mark.parametrize("op", OPS)
def test_another_output_quantisation_is_copied_as_stored(op, tmp_path):
    check(depth_space_model(op, (1, 2, 2, 4), 2, out_q=(0.5, 100)), tmp_path, (1, 2, 2, 4))


@needs_litert
@settings(max_examples=30, deadline=None)
@given(op=st.sampled_from(OPS), n=st.integers(1, 2), h=st.integers(1, 3), w=st.integers(1, 3), c=st.integers(1, 3),
       b=st.integers(1, 3))
def test_hypothesis(op, n, h, w, c, b, tmp_path_factory):
    shape = (n, h, w, c * b * b) if op == "DEPTH_TO_SPACE" else (n, h * b, w * b, c)
    check(depth_space_model(op, shape, b), tmp_path_factory.mktemp("ds"), shape, seed=n + h + w + c + b)


@pytest.mark.parametrize("op, shape, block, out, match", [
    ("DEPTH_TO_SPACE", (1, 2, 2, 6), 2, (1, 4, 4, 1), r"block_size 2: the depth 6 is not a multiple of 4"),
    ("DEPTH_TO_SPACE", (1, 2, 2, 4), 0, (1, 2, 2, 4), r"block_size 0 must be >= 1"),
    ("SPACE_TO_DEPTH", (1, 3, 4, 2), 2, (1, 1, 2, 8), r"block_size 2 does not divide the height 3 and width 4"),
    ("SPACE_TO_DEPTH", (4, 4, 2), 2, (2, 1, 8), r"input has shape \(4, 4, 2\); TFLite requires rank 4"),
    ("DEPTH_TO_SPACE", (1, 2, 2, 4), 2, (1, 4, 2, 2), r"output tensor 1 has shape \(1, 4, 2, 2\), the op computes "
                                                       r"\(1, 4, 4, 1\)"),
])
def test_bad_blocks_are_refused(op, shape, block, out, match, tmp_path):
    model = load(depth_space_model(op, shape, block, out), tmp_path)
    with pytest.raises(UnsupportedModel, match=rf"op 0 \({op}\): " + match):
        ap.plan(model)
