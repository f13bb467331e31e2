"""Models with resource variables and CALL_ONCE, written with the TFLite schema (the object
API of ai_edge_litert's schema_py_generated), as the streaming wake-word models hold their
state.

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
    import flatbuffers
    from ai_edge_litert import schema_py_generated as S

    model = S.ModelT()
    model.version = 3
    model.operatorCodes = []
    for n in OPS:
        c = S.OperatorCodeT()
        c.builtinCode = getattr(S.BuiltinOperator, n)
        c.deprecatedBuiltinCode = min(c.builtinCode, 127)
        c.version = 1
        model.operatorCodes.append(c)
    code = {n: i for i, n in enumerate(OPS)}
    model.buffers = [S.BufferT()]

    def graph():
        sg = S.SubGraphT()
        sg.tensors, sg.operators, sg.inputs, sg.outputs = [], [], [], []
        return sg

    def tensor(sg, shape, dtype, q=None, data=None, name=None):
        t = S.TensorT()
        t.shape = list(shape)
        t.type = getattr(S.TensorType, dtype.upper())
        t.name = name or f"t{len(sg.tensors)}"
        if q is not None:
            qp = S.QuantizationParametersT()
            qp.scale, qp.zeroPoint = [float(q[0])], [int(q[1])]
            t.quantization = qp
        buf = S.BufferT()
        if data is not None:
            buf.data = np.ascontiguousarray(data).view(np.uint8).reshape(-1).tolist()
        model.buffers.append(buf)
        t.buffer = len(model.buffers) - 1
        sg.tensors.append(t)
        return len(sg.tensors) - 1

    def op(sg, name, ins, outs, opt_type=None, opt=None):
        o = S.OperatorT()
        o.opcodeIndex = code[name]
        o.inputs, o.outputs = list(ins), list(outs)
        if opt_type:
            o.builtinOptionsType = getattr(S.BuiltinOptions, opt_type)
            o.builtinOptions = opt
        sg.operators.append(o)

    def handle(sg, shared):
        h = tensor(sg, [], "resource")
        o = S.VarHandleOptionsT()
        o.container, o.sharedName = "streaming", shared
        op(sg, "VAR_HANDLE", [], [h], "VarHandleOptions", o)
        return h

    def call_once(sg, index):
        o = S.CallOnceOptionsT()
        o.initSubgraphIndex = index
        op(sg, "CALL_ONCE", [], [], "CallOnceOptions", o)

    main, first, nested = graph(), graph(), graph()
    initial = {"buf": rng.integers(-128, 128, BUF, dtype=np.int8),
               "acc": rng.integers(-128, 128, tuple(acc_init_shape), dtype=np.int8)}
    h_buf = handle(first, "buf")
    op(first, "ASSIGN_VARIABLE", [h_buf, tensor(first, BUF, "int8", X_Q, initial["buf"])], [])
    if init in ("const", "quantize"):
        h_acc = handle(first, "acc")
        if init == "quantize":   # values half-way between steps are avoided: exact in float32
            real = tensor(first, acc_init_shape, "float32",
                          data=((initial["acc"].astype(np.float32) - ACC_Q[1]) * np.float32(ACC_Q[0])))
            value = tensor(first, acc_init_shape, "int8", ACC_Q)
            op(first, "QUANTIZE", [real], [value])
        else:
            value = tensor(first, acc_init_shape, "int8", ACC_Q, initial["acc"])
        op(first, "ASSIGN_VARIABLE", [h_acc, value], [])
    elif init == "nested":
        call_once(first, 2)
        h_acc = handle(nested, "acc")
        op(nested, "ASSIGN_VARIABLE", [h_acc, tensor(nested, acc_init_shape, "int8", ACC_Q, initial["acc"])], [])
    else:
        del initial["acc"]
    if init_extra == "add":
        a = tensor(first, (1,), "int8", X_Q, np.array([1], np.int8))
        op(first, "ADD", [a, a], [tensor(first, (1,), "int8", X_Q)], "AddOptions", S.AddOptionsT())
    elif init_extra in ("self_call", "main_call"):
        call_once(first, 1 if init_extra == "self_call" else 0)

    call_once(main, call_index)
    x = tensor(main, (1, 1, 3), "int8", X_Q, name="x")
    m_buf = handle(main, "buf")
    m_acc = handle(main, "acc")
    r_acc = tensor(main, ACC, "int8", ACC_Q, name="acc_read")
    new_shape = tensor(main, (2,), "int32", data=np.array(ACC, np.int32))
    frame = tensor(main, ACC, "int8", X_Q, name="frame")
    ro = S.ReshapeOptionsT()
    ro.newShape = list(ACC)

    def reshape():
        op(main, "RESHAPE", [x, new_shape], [frame], "ReshapeOptions", ro)
    if assign_first:
        reshape()
        op(main, "ASSIGN_VARIABLE", [m_acc, frame], [])
    if read_acc_first:
        op(main, "READ_VARIABLE", [m_acc], [r_acc])
    r_buf = tensor(main, BUF, "int8", X_Q, name="buf_read")
    op(main, "READ_VARIABLE", [m_buf], [r_buf])
    window = tensor(main, (1, 5, 3), "int8", X_Q, name="window")
    cat = S.ConcatenationOptionsT()
    cat.axis = 1
    op(main, "CONCATENATION", [r_buf, x], [window], "ConcatenationOptions", cat)
    begin = tensor(main, (3,), "int32", data=np.array([0, 1, 0], np.int32))
    end = tensor(main, (3,), "int32", data=np.array([1, 5, 3], np.int32))
    strides = tensor(main, (3,), "int32", data=np.array([1, 1, 1], np.int32))
    nxt = tensor(main, BUF, "int8", X_Q, name="buf_next")
    op(main, "STRIDED_SLICE", [window, begin, end, strides], [nxt], "StridedSliceOptions",
       S.StridedSliceOptionsT())
    op(main, "ASSIGN_VARIABLE", [m_buf, nxt], [])
    if not read_acc_first:
        op(main, "READ_VARIABLE", [m_acc], [r_acc])
    if not assign_first:
        reshape()
    total = tensor(main, ACC, "int8", ACC_Q, name="sum")
    op(main, "ADD", [r_acc, frame], [total], "AddOptions", S.AddOptionsT())
    op(main, "ASSIGN_VARIABLE", [m_acc, total], [])
    main.inputs, main.outputs = [x], [window, total] if sum_output else [window]
    if late_reader:
        late = tensor(main, ACC, "int8", ACC_Q, name="late")
        op(main, "ADD", [r_acc, frame], [late], "AddOptions", S.AddOptionsT())
        main.outputs.append(late)
    if main_if:  # after the late reader, if any
        cond = tensor(main, (1,), "bool", data=np.array([1], np.uint8))
        io = S.IfOptionsT()
        io.thenSubgraphIndex, io.elseSubgraphIndex = 1, 1
        op(main, "IF", [cond], [], "IfOptions", io)
    model.subgraphs = [main, first] + ([nested] if init == "nested" else [])
    b = flatbuffers.Builder(4096)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output()), initial


def frames(rng, count: int) -> list:
    """``count`` random input frames, then the extremes (every value at -128, then at 127)."""
    xs = [rng.integers(-128, 128, (1, 1, 3), dtype=np.int8) for _ in range(count)]
    return xs + [np.full((1, 1, 3), -128, np.int8), np.full((1, 1, 3), 127, np.int8)]
