"""Models with resource variables and CALL_ONCE, written with the TFLite schema
(harness.subgraph_models.Builder), as the streaming wake-word models hold their state.

``streaming_model(rng, ...)`` -> (flatbuffer bytes, {variable: initial value}):

- subgraph 1, the initialisation CALL_ONCE runs: VAR_HANDLE "buf" and "acc", then
  ASSIGN_VARIABLE of an int8 (1, 4, 3) constant to buf and of an int8 (1, 3) one to acc (or
  of a float32 constant through QUANTIZE, or from a nested CALL_ONCE of subgraph 2);
- subgraph 0: CALL_ONCE(1); buf: READ_VARIABLE -> CONCATENATION with the input frame x
  (1, 1, 3) along time -> the window (1, 5, 3), an output -> STRIDED_SLICE of its last four
  frames -> ASSIGN_VARIABLE (a streaming buffer); acc: READ_VARIABLE -> int8 ADD of the frame
  -> the sum (1, 3), an output -> ASSIGN_VARIABLE (an accumulator).

The keyword arguments break it in the ways the importer and the lowering must refuse.
"""
from __future__ import annotations

from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from .subgraph_models import Builder

OPS = ["CALL_ONCE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "CONCATENATION", "STRIDED_SLICE",
       "ADD", "RESHAPE", "QUANTIZE", "IF"]
BUF, ACC = (1, 4, 3), (1, 3)
X_Q, ACC_Q = (0.05, 2), (0.1, -3)   # (scale, zero point): the frame and buf; acc and the sum


def streaming_model(rng, init: str = "const", call_index: int = 1, init_extra: Optional[str] = None,
                    acc_init_shape: Sequence[int] = ACC, main_if: bool = False,
                    read_acc_first: bool = False, assign_first: bool = False, late_reader: bool = False,
                    sum_output: bool = True) -> Tuple[bytes, Dict[str, np.ndarray]]:
    """The model above. ``init``: how acc gets its value ("const", "quantize": a float32
    constant through QUANTIZE, "nested": a CALL_ONCE of subgraph 2 assigns it, "none": nothing
    does). ``call_index``: subgraph 0's CALL_ONCE target. ``init_extra``: "add" (an ADD in the
    initialisation), "self_call" (it calls itself), "main_call" (it calls subgraph 0).
    ``acc_init_shape``: the shape initialised. ``main_if``: an IF op in subgraph 0.
    ``read_acc_first``: acc is read before buf (no change of meaning). ``assign_first``:
    subgraph 0 assigns the frame to acc before it reads acc (then the sum is the frame
    added to itself, and acc needs no initial value). ``late_reader``: an ADD after acc's
    ASSIGN_VARIABLE reads the value read before it (the old one: that read must be a copy)
    and adds the frame to it, a third output (equal to the sum). ``sum_output``: the sum is
    an output (else only the window and the late reader's sum are)."""
    m = Builder(OPS)

    def handle(sg, shared):
        h = m.tensor(sg, [], "resource")
        m.op(sg, "VAR_HANDLE", [], [h], "VarHandleOptions", container="streaming", sharedName=shared)
        return h

    def call_once(sg, index):
        m.op(sg, "CALL_ONCE", [], [], "CallOnceOptions", initSubgraphIndex=index)

    main, first = m.graph(), m.graph()
    initial = {"buf": rng.integers(-128, 128, BUF, dtype=np.int8),
               "acc": rng.integers(-128, 128, tuple(acc_init_shape), dtype=np.int8)}
    h_buf = handle(first, "buf")
    m.op(first, "ASSIGN_VARIABLE", [h_buf, m.tensor(first, BUF, "int8", X_Q, initial["buf"])], [])
    if init in ("const", "quantize"):
        h_acc = handle(first, "acc")
        if init == "quantize":   # values half-way between steps are avoided: exact in float32
            real = m.tensor(first, acc_init_shape, "float32",
                            data=((initial["acc"].astype(np.float32) - ACC_Q[1]) * np.float32(ACC_Q[0])))
            value = m.tensor(first, acc_init_shape, "int8", ACC_Q)
            m.op(first, "QUANTIZE", [real], [value])
        else:
            value = m.tensor(first, acc_init_shape, "int8", ACC_Q, initial["acc"])
        m.op(first, "ASSIGN_VARIABLE", [h_acc, value], [])
    elif init == "nested":
        call_once(first, 2)
        nested = m.graph()
        h_acc = handle(nested, "acc")
        m.op(nested, "ASSIGN_VARIABLE", [h_acc, m.tensor(nested, acc_init_shape, "int8", ACC_Q, initial["acc"])], [])
    else:
        del initial["acc"]
    if init_extra == "add":
        a = m.tensor(first, (1,), "int8", X_Q, np.array([1], np.int8))
        m.op(first, "ADD", [a, a], [m.tensor(first, (1,), "int8", X_Q)], "AddOptions")
    elif init_extra in ("self_call", "main_call"):
        call_once(first, 1 if init_extra == "self_call" else 0)

    call_once(main, call_index)
    x = m.tensor(main, (1, 1, 3), "int8", X_Q, name="x")
    m_buf = handle(main, "buf")
    m_acc = handle(main, "acc")
    r_acc = m.tensor(main, ACC, "int8", ACC_Q, name="acc_read")
    new_shape = m.tensor(main, (2,), "int32", data=np.array(ACC, np.int32))
    frame = m.tensor(main, ACC, "int8", X_Q, name="frame")

    def reshape():
        m.op(main, "RESHAPE", [x, new_shape], [frame], "ReshapeOptions", newShape=list(ACC))
    if assign_first:
        reshape()
        m.op(main, "ASSIGN_VARIABLE", [m_acc, frame], [])
    if read_acc_first:
        m.op(main, "READ_VARIABLE", [m_acc], [r_acc])
    r_buf = m.tensor(main, BUF, "int8", X_Q, name="buf_read")
    m.op(main, "READ_VARIABLE", [m_buf], [r_buf])
    window = m.tensor(main, (1, 5, 3), "int8", X_Q, name="window")
    m.op(main, "CONCATENATION", [r_buf, x], [window], "ConcatenationOptions", axis=1)
    begin = m.tensor(main, (3,), "int32", data=np.array([0, 1, 0], np.int32))
    end = m.tensor(main, (3,), "int32", data=np.array([1, 5, 3], np.int32))
    strides = m.tensor(main, (3,), "int32", data=np.array([1, 1, 1], np.int32))
    nxt = m.tensor(main, BUF, "int8", X_Q, name="buf_next")
    m.op(main, "STRIDED_SLICE", [window, begin, end, strides], [nxt], "StridedSliceOptions")
    m.op(main, "ASSIGN_VARIABLE", [m_buf, nxt], [])
    if not read_acc_first:
        m.op(main, "READ_VARIABLE", [m_acc], [r_acc])
    if not assign_first:
        reshape()
    total = m.tensor(main, ACC, "int8", ACC_Q, name="sum")
    m.op(main, "ADD", [r_acc, frame], [total], "AddOptions")
    m.op(main, "ASSIGN_VARIABLE", [m_acc, total], [])
    main.inputs, main.outputs = [x], [window, total] if sum_output else [window]
    if late_reader:
        late = m.tensor(main, ACC, "int8", ACC_Q, name="late")
        m.op(main, "ADD", [r_acc, frame], [late], "AddOptions")
        main.outputs.append(late)
    if main_if:  # after the late reader, if any
        cond = m.tensor(main, (1,), "bool", data=np.array([1], np.uint8))
        m.if_op(main, cond, [], [], 1, 1)
    return m.bytes(), initial


def frames(rng, count: int) -> list:
    """``count`` random input frames, then the extremes (every value at -128, then at 127)."""
    xs = [rng.integers(-128, 128, (1, 1, 3), dtype=np.int8) for _ in range(count)]
    return xs + [np.full((1, 1, 3), -128, np.int8), np.full((1, 1, 3), 127, np.int8)]
