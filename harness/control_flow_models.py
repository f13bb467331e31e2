"""Models with IF and WHILE, written with the TFLite schema (the object API of ai_edge_litert's
schema_py_generated), for tests/test_control_flow.py.

- ``if_model(nested=False)``: inputs cond (bool (1,)), x and y (int8 (1, 8)); IF(cond, x, y):
  THEN adds them (int8 ADD), ELSE multiplies them and adds x (MUL -> ADD); then an ADD of the
  IF's result and x, the output. ``nested``: a second condition c2 (an input after cond),
  and ELSE is itself an IF on c2 between the MUL chain and a SUB.
- ``while_model(kind)``: a counter i (int32, from 0) and a limit n (int32 input) carried with
  values; COND is LESS(i, n); BODY increments i with ADD_N(i, 1) and updates the values:
  kind "int8": acc = ADD(acc, step) (int8); "float32": acc = acc * 0.75 + step (float32 MUL, ADD);
  "swap": (a, b) -> (b, a) (a permutation of carried values); "fib": (a, b) -> (b, ADD(a, b));
  "view": (a, b) -> (ADD(b, step), a through two RESHAPEs read after the ADD); "branchy": an IF
  in the body adds a step to acc while i < 2, then subtracts it.
  The outputs: the final values (and i).
Keyword arguments break them in the ways the importer must refuse (``bad``).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

OPS = ["IF", "WHILE", "ADD", "MUL", "SUB", "LESS", "ADD_N", "CALL_ONCE", "RESHAPE"]
XQ, YQ, OQ, MQ = (0.05, 2), (0.04, -3), (0.08, 1), (0.02, -5)
N = 8


class Builder:
    def __init__(self, ops=OPS) -> None:
        from ai_edge_litert import schema_py_generated as S
        self.S = S
        self.model = S.ModelT()
        self.model.version = 3
        self.model.operatorCodes = []
        for n in ops:
            c = S.OperatorCodeT()
            c.builtinCode = getattr(S.BuiltinOperator, n)
            c.deprecatedBuiltinCode = min(c.builtinCode, 127)
            c.version = 1
            self.model.operatorCodes.append(c)
        self.code = {n: i for i, n in enumerate(ops)}
        self.model.buffers = [S.BufferT()]
        self.model.subgraphs = []

    def graph(self):
        sg = self.S.SubGraphT()
        sg.tensors, sg.operators, sg.inputs, sg.outputs = [], [], [], []
        self.model.subgraphs.append(sg)
        return sg

    def tensor(self, sg, shape, dtype, q=None, data=None, name=None) -> int:
        S = self.S
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
        self.model.buffers.append(buf)
        t.buffer = len(self.model.buffers) - 1
        sg.tensors.append(t)
        return len(sg.tensors) - 1

    def op(self, sg, name, ins, outs, opt_type=None, opt=None) -> None:
        S = self.S
        o = S.OperatorT()
        o.opcodeIndex = self.code[name]
        o.inputs, o.outputs = list(ins), list(outs)
        if opt_type:
            o.builtinOptionsType = getattr(S.BuiltinOptions, opt_type)
            o.builtinOptions = opt
        elif name in ("ADD", "MUL", "SUB"):
            o.builtinOptionsType = getattr(S.BuiltinOptions, name.capitalize() + "Options")
            o.builtinOptions = getattr(S, name.capitalize() + "OptionsT")()
        sg.operators.append(o)

    def if_op(self, sg, cond, ins, outs, then_index, else_index) -> None:
        o = self.S.IfOptionsT()
        o.thenSubgraphIndex, o.elseSubgraphIndex = then_index, else_index
        self.op(sg, "IF", [cond] + list(ins), outs, "IfOptions", o)

    def while_op(self, sg, ins, outs, cond_index, body_index) -> None:
        o = self.S.WhileOptionsT()
        o.condSubgraphIndex, o.bodySubgraphIndex = cond_index, body_index
        self.op(sg, "WHILE", ins, outs, "WhileOptions", o)

    def bytes(self) -> bytes:
        import flatbuffers
        b = flatbuffers.Builder(4096)
        b.Finish(self.model.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())


def _branch_add(m: Builder, sg, a, b):
    out = m.tensor(sg, (1, N), "int8", OQ, name="sum")
    m.op(sg, "ADD", [a, b], [out])
    return out


def _branch_mul_add(m: Builder, sg, a, b):
    prod = m.tensor(sg, (1, N), "int8", MQ, name="prod")
    m.op(sg, "MUL", [a, b], [prod])
    out = m.tensor(sg, (1, N), "int8", OQ, name="prod_plus_a")
    m.op(sg, "ADD", [prod, a], [out])
    return out


def _branch_sub(m: Builder, sg, a, b):
    out = m.tensor(sg, (1, N), "int8", OQ, name="diff")
    m.op(sg, "SUB", [a, b], [out])
    return out


def _branch_sub_add(m: Builder, sg, a, b):
    diff = m.tensor(sg, (1, N), "int8", MQ, name="diff")
    m.op(sg, "SUB", [a, b], [diff])
    out = m.tensor(sg, (1, N), "int8", OQ, name="diff_plus_a")
    m.op(sg, "ADD", [diff, a], [out])
    return out


def if_model(nested: bool = False, bad: Optional[str] = None, then_chain: bool = False) -> bytes:
    """See the module docstring; ``then_chain``: THEN is SUB -> ADD (a tensor of its own, as
    ELSE has). ``bad``: "index" (ELSE names subgraph 9), "recursive" (THEN
    is subgraph 0), "count" (THEN takes one input), "type" (THEN's first input is int16),
    "cond" (the condition is int32), "state" (THEN holds a CALL_ONCE)."""
    m = Builder()
    main = m.graph()
    cond = m.tensor(main, (1,), "int32" if bad == "cond" else "bool", name="cond")
    conds = [cond]
    if nested:
        conds.append(m.tensor(main, (1,), "bool", name="c2"))
    x = m.tensor(main, (1, N), "int8", XQ, name="x")
    y = m.tensor(main, (1, N), "int8", YQ, name="y")
    r = m.tensor(main, (1, N), "int8", OQ, name="if_out")
    args = conds[1:] + [x, y]
    m.if_op(main, cond, args, [r], 0 if bad == "recursive" else 1, 9 if bad == "index" else 2)
    out = m.tensor(main, (1, N), "int8", OQ, name="out")
    m.op(main, "ADD", [r, x], [out])
    main.inputs, main.outputs = conds + [x, y], [out]

    def branch(fn, inner_if=False):
        sg = m.graph()
        ins = [m.tensor(sg, (1,), "bool", name="c2")] if nested else []
        a = m.tensor(sg, (1, N), "int16" if bad == "type" and fn is _branch_add else "int8", XQ, name="a")
        b = m.tensor(sg, (1, N), "int8", YQ, name="b")
        ins += [a, b]
        if bad == "count" and fn is _branch_add:
            ins = ins[:-1]
        if inner_if:
            res = m.tensor(sg, (1, N), "int8", OQ, name="inner_out")
            m.if_op(sg, ins[0], [a, b], [res], 3, 4)
        else:
            res = fn(m, sg, a, b)
        if bad == "state" and fn is _branch_add:
            co = m.S.CallOnceOptionsT()
            co.initSubgraphIndex = 2
            m.op(sg, "CALL_ONCE", [], [], "CallOnceOptions", co)
        sg.inputs, sg.outputs = ins, [res]

    branch(_branch_sub_add if then_chain else _branch_add)
    branch(_branch_mul_add, inner_if=nested)
    if nested:   # subgraphs 3 and 4: the inner IF's branches, taking (a, b)
        for fn in (_branch_mul_add, _branch_sub):
            sg = m.graph()
            a = m.tensor(sg, (1, N), "int8", XQ, name="a")
            b = m.tensor(sg, (1, N), "int8", YQ, name="b")
            sg.inputs, sg.outputs = [a, b], [fn(m, sg, a, b)]
    return m.bytes()


def while_model(kind: str = "int8", bad: Optional[str] = None) -> bytes:
    """See the module docstring. ``bad``: "index" (BODY names subgraph 7), "recursive" (BODY is
    subgraph 0), "shape" (BODY's acc output is (1, 4)), "cond" (COND returns int32),
    "count" (BODY has one output fewer)."""
    m = Builder()
    main = m.graph()
    cond_g, body_g = m.graph(), m.graph()
    dt = "float32" if kind == "float32" else "int8"
    q = None if kind == "float32" else XQ
    n = m.tensor(main, (1,), "int32", name="n")
    x = m.tensor(main, (1, N), dt, q, name="x")
    i0 = m.tensor(main, (1,), "int32", data=np.array([0], np.int32), name="i0")
    values = [x] if kind in ("int8", "float32", "branchy") else [x, m.tensor(main, (1, N), dt, q, name="y")]
    carried_in = [i0, n] + values
    carried_out = [m.tensor(main, (1,), "int32", name="i_out"), m.tensor(main, (1,), "int32", name="n_out")]
    carried_out += [m.tensor(main, (1, N), dt, q, name=f"v{k}_out") for k in range(len(values))]
    m.while_op(main, carried_in, carried_out, 1, 0 if bad == "recursive" else 7 if bad == "index" else 2)
    main.inputs = [n] + [x] + ([values[1]] if len(values) > 1 else [])
    main.outputs = [carried_out[0]] + carried_out[2:]

    def params(sg):
        return [m.tensor(sg, (1,), "int32", name="i"), m.tensor(sg, (1,), "int32", name="n")] + \
               [m.tensor(sg, (1, N), dt, q, name=f"v{k}") for k in range(len(values))]

    c_in = params(cond_g)
    lt = m.tensor(cond_g, (1,), "int32" if bad == "cond" else "bool", name="less")
    m.op(cond_g, "LESS", c_in[:2], [lt])
    cond_g.inputs, cond_g.outputs = c_in, [lt]

    b_in = params(body_g)
    one = m.tensor(body_g, (1,), "int32", data=np.array([1], np.int32), name="one")
    i1 = m.tensor(body_g, (1,), "int32", name="i_next")
    m.op(body_g, "ADD_N", [b_in[0], one], [i1], "AddNOptions", m.S.AddNOptionsT())
    vals = b_in[2:]
    if kind == "int8":
        step = m.tensor(body_g, (1, N), "int8", XQ, data=np.arange(-4, 4, dtype=np.int8).reshape(1, N) * 9,
                        name="step")
        acc = m.tensor(body_g, (1, 4) if bad == "shape" else (1, N), "int8", XQ, name="acc_next")
        m.op(body_g, "ADD", [vals[0], step], [acc])
        outs = [acc]
    elif kind == "float32":
        half = m.tensor(body_g, (1,), "float32", data=np.array([0.75], np.float32), name="scale")
        scaled = m.tensor(body_g, (1, N), "float32", name="scaled")
        m.op(body_g, "MUL", [vals[0], half], [scaled])
        step = m.tensor(body_g, (1, N), "float32", data=np.linspace(-1, 1, N, dtype=np.float32).reshape(1, N),
                        name="step")
        acc = m.tensor(body_g, (1, N), "float32", name="acc_next")
        m.op(body_g, "ADD", [scaled, step], [acc])   # acc * 0.75 + step: ADD may write the carried acc
        outs = [acc]
    elif kind == "swap":
        outs = [vals[1], vals[0]]
    elif kind == "branchy":   # an IF inside the body: ADD a step in the first two iterations, then SUB it
        two = m.tensor(body_g, (1,), "int32", data=np.array([2], np.int32), name="two")
        early = m.tensor(body_g, (1,), "bool", name="early")
        m.op(body_g, "LESS", [b_in[0], two], [early])
        acc = m.tensor(body_g, (1, N), "int8", XQ, name="acc_next")
        m.if_op(body_g, early, [vals[0]], [acc], 3, 4)
        outs = [acc]
        for fn in ("ADD", "SUB"):
            sg = m.graph()
            a = m.tensor(sg, (1, N), "int8", XQ, name="a")
            step = m.tensor(sg, (1, N), "int8", XQ, data=np.arange(N, dtype=np.int8).reshape(1, N) * 3 - 9,
                            name="step")
            r = m.tensor(sg, (1, N), "int8", XQ, name=fn.lower())
            m.op(sg, fn, [a, step], [r])
            sg.inputs, sg.outputs = [a], [r]
    elif kind == "view":   # a reshape of a, read after a's next value is made
        flat = m.tensor(body_g, (N,), dt, q, name="a_flat")
        ro = m.S.ReshapeOptionsT()
        ro.newShape = [N]
        m.op(body_g, "RESHAPE", [vals[0], m.tensor(body_g, (1,), "int32", data=np.array([N], np.int32))], [flat],
             "ReshapeOptions", ro)
        step = m.tensor(body_g, (1, N), "int8", XQ, data=np.arange(N, dtype=np.int8).reshape(1, N) * 5 - 17,
                        name="step")
        nxt = m.tensor(body_g, (1, N), dt, q, name="b_plus_step")
        m.op(body_g, "ADD", [vals[1], step], [nxt])
        back = m.tensor(body_g, (1, N), dt, q, name="a_again")
        ro2 = m.S.ReshapeOptionsT()
        ro2.newShape = [1, N]
        m.op(body_g, "RESHAPE", [flat, m.tensor(body_g, (2,), "int32", data=np.array([1, N], np.int32))], [back],
             "ReshapeOptions", ro2)
        outs = [nxt, back]
    else:   # fib
        s = m.tensor(body_g, (1, N), dt, q, name="ab")
        m.op(body_g, "ADD", [vals[0], vals[1]], [s])
        outs = [vals[1], s]
    body_g.inputs = b_in
    body_g.outputs = [i1, b_in[1]] + outs
    if bad == "count":
        body_g.outputs = body_g.outputs[:-1]
    return m.bytes()
