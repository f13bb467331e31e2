"""Models of several subgraphs (IF, WHILE, CALL_ONCE) and of one, written with the TFLite schema
(the object API of ai_edge_litert's schema_py_generated): the one flatbuffer builder of the
harness and the IF / WHILE models of the tests and of ap.tflm's rules.

- ``Builder``: a model's subgraphs side by side (``graph()`` makes one; ``tensor`` and ``op``
  name the subgraph they add to), for models whose subgraphs are written interleaved:
  tests/test_control_flow.py's and harness.resource_models's.
- ``GraphBuilder``: one subgraph at a time (``subgraph`` finishes one and starts the next),
  for harness.tflm_support's one-op models and its control_flow family below.

tests/test_control_flow.py's models (``if_model``, ``while_model``):

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

harness.tflm_support's control_flow family (bench_tflm.py, tests/test_control_flow.py against
the tflite-micro interpreter): ``if_unary_chains``, ``if_float_two``, ``if_scratch``,
``while_float``, ``while_scratch``, ``while_if`` and ``while_swap``, quantised as that module's
one-op models (``Q8``, ``Q8B``, ``Q16``, ``Q16B``).
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np


class Builder:
    """A .tflite flatbuffer built with the schema's object API, its subgraphs side by side.

        m = Builder()
        main = m.graph()
        x = m.tensor(main, (1, 4), "int8", (0.05, 3), name="x")
        y = m.tensor(main, (1, 4), "int8", (0.05, 3))
        m.op(main, "RELU", [x], [y])
        main.inputs, main.outputs = [x], [y]
        content = m.bytes()

    ``ops``: (name, version 1) operator codes given their indices first, in that order; the
    others get theirs when first used. ``default_options``: the ops given their options object
    (all fields default) when ``op`` names none.
    """

    def __init__(self, ops: Sequence[str] = (), default_options: Sequence[str] = ("ADD", "MUL", "SUB")) -> None:
        from ai_edge_litert import schema_py_generated as S
        self.S = S
        self.model = S.ModelT()
        self.model.version = 3
        self.model.operatorCodes = []
        self.model.buffers = [S.BufferT()]
        self.model.subgraphs = []
        self.codes: list = []   # (name, version), as model.operatorCodes
        self.default_options = tuple(default_options)
        for name in ops:
            self.code(name)

    def code(self, name: str, version: int = 1) -> int:
        """The index of the operator code (name, version), added if new."""
        key = (name, version)
        if key not in self.codes:
            c = self.S.OperatorCodeT()
            c.builtinCode = getattr(self.S.BuiltinOperator, name)
            c.deprecatedBuiltinCode = min(c.builtinCode, 127)
            c.version = version
            self.model.operatorCodes.append(c)
            self.codes.append(key)
        return self.codes.index(key)

    def graph(self):
        """A new subgraph (the next index); set its ``inputs`` and ``outputs``."""
        sg = self.S.SubGraphT()
        sg.tensors, sg.operators, sg.inputs, sg.outputs = [], [], [], []
        self.model.subgraphs.append(sg)
        return sg

    def tensor(self, sg, shape, dtype: str, q=None, data=None, name: Optional[str] = None, qdim: int = 0,
               variable: bool = False) -> int:
        """A tensor of ``sg`` (its index there) with a buffer of its own: ``q`` is (scale, zero
        point), each a scalar or a per-channel list (``qdim`` the channels' dimension); ``data``
        the constant's values, as ``dtype``; ``name`` by default t<index>."""
        S = self.S
        t = S.TensorT()
        t.shape = [int(d) for d in shape]
        t.type = getattr(S.TensorType, dtype.upper())
        t.name = name or f"t{len(sg.tensors)}"
        t.isVariable = variable
        if q is not None:
            qp = S.QuantizationParametersT()
            qp.scale = [float(v) for v in np.atleast_1d(q[0])]
            qp.zeroPoint = [int(v) for v in np.atleast_1d(q[1])]
            qp.quantizedDimension = qdim
            t.quantization = qp
        buf = S.BufferT()
        if data is not None:
            buf.data = np.ascontiguousarray(np.asarray(data, dtype=dtype)).view(np.uint8).reshape(-1).tolist()
        self.model.buffers.append(buf)
        t.buffer = len(self.model.buffers) - 1
        sg.tensors.append(t)
        return len(sg.tensors) - 1

    def op(self, sg, name: str, ins, outs, options_type: Optional[str] = None, options=None, version: int = 1,
           **fields) -> None:
        """An op of ``sg``: its options ``options`` (an object of ``options_type``), or one made
        with ``fields`` set (schema names: ``axis=1``, ``numSplits=2``)."""
        S = self.S
        o = S.OperatorT()
        o.opcodeIndex = self.code(name, version)
        o.inputs, o.outputs = [int(i) for i in ins], [int(i) for i in outs]
        if options_type is None and name in self.default_options:
            options_type = name.capitalize() + "Options"
        if options_type:
            opt = options if options is not None else getattr(S, options_type + "T")()
            for k, v in fields.items():
                setattr(opt, k, v)
            o.builtinOptionsType = getattr(S.BuiltinOptions, options_type)
            o.builtinOptions = opt
        sg.operators.append(o)

    def if_op(self, sg, cond, ins, outs, then_index: int, else_index: int) -> None:
        self.op(sg, "IF", [cond] + list(ins), outs, "IfOptions", thenSubgraphIndex=then_index,
                elseSubgraphIndex=else_index)

    def while_op(self, sg, ins, outs, cond_index: int, body_index: int) -> None:
        self.op(sg, "WHILE", ins, outs, "WhileOptions", condSubgraphIndex=cond_index, bodySubgraphIndex=body_index)

    def bytes(self) -> bytes:
        import flatbuffers
        b = flatbuffers.Builder(4096)
        b.Finish(self.model.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())


class GraphBuilder:
    """A .tflite flatbuffer of any ops, one subgraph at a time (a ``Builder`` beneath).

        g = GraphBuilder()
        x = g.tensor((1, 4), "int8", (0.05, 3))
        y = g.tensor((1, 4), "int8", (0.05, 3))
        g.op("RELU", [x], [y])
        content = g.build([x], [y])

    ``tensor(shape, dtype, q=None, data=None, qdim=0)``: q is (scale, zero point), each a
    scalar or a per-channel list; ``op(name, ins, outs, options_type=None, **fields)`` sets
    the options object's fields (schema names: ``axis=1``, ``numSplits=2``). Several
    subgraphs: ``subgraph(inputs, outputs)`` finishes one (subgraph 0 first) and starts the
    next, whose tensors are numbered from 0 again; ``build`` finishes the last.
    """

    def __init__(self) -> None:
        self.m = Builder(default_options=())
        self.S = self.m.S
        self.sg = self.m.graph()

    def tensor(self, shape, dtype, q=None, data=None, qdim=0, variable=False) -> int:
        return self.m.tensor(self.sg, shape, dtype, q, data, qdim=qdim, variable=variable)

    def op(self, name: str, ins, outs, options_type=None, version: int = 1, **fields) -> None:
        self.m.op(self.sg, name, ins, outs, options_type, version=version, **fields)

    def subgraph(self, inputs, outputs) -> int:
        """Finish the current subgraph (its inputs and outputs: its own tensor indices) and start
        the next; returns the finished one's index. ``build`` finishes the last one."""
        self.sg.inputs, self.sg.outputs = [int(i) for i in inputs], [int(i) for i in outputs]
        self.sg = self.m.graph()
        return len(self.m.model.subgraphs) - 2

    def build(self, inputs, outputs) -> bytes:
        self.sg.inputs, self.sg.outputs = [int(i) for i in inputs], [int(i) for i in outputs]
        return self.m.bytes()


# --- tests/test_control_flow.py's models --------------------------------------------------------
OPS = ["IF", "WHILE", "ADD", "MUL", "SUB", "LESS", "ADD_N", "CALL_ONCE", "RESHAPE"]
XQ, YQ, OQ, MQ = (0.05, 2), (0.04, -3), (0.08, 1), (0.02, -5)
N = 8


def _int8_op(m: Builder, sg, op: str, a, b, q, name: str):
    """``op``(a, b) into a new int8 (1, N) tensor of quantisation ``q``, named ``name``."""
    out = m.tensor(sg, (1, N), "int8", q, name=name)
    m.op(sg, op, [a, b], [out])
    return out


def _branch_add(m: Builder, sg, a, b):
    return _int8_op(m, sg, "ADD", a, b, OQ, "sum")


def _branch_mul_add(m: Builder, sg, a, b):
    return _int8_op(m, sg, "ADD", _int8_op(m, sg, "MUL", a, b, MQ, "prod"), a, OQ, "prod_plus_a")


def _branch_sub(m: Builder, sg, a, b):
    return _int8_op(m, sg, "SUB", a, b, OQ, "diff")


def _branch_sub_add(m: Builder, sg, a, b):
    return _int8_op(m, sg, "ADD", _int8_op(m, sg, "SUB", a, b, MQ, "diff"), a, OQ, "diff_plus_a")


def if_model(nested: bool = False, bad: Optional[str] = None, then_chain: bool = False) -> bytes:
    """See the module docstring; ``then_chain``: THEN is SUB -> ADD (a tensor of its own, as
    ELSE has). ``bad``: "index" (ELSE names subgraph 9), "recursive" (THEN
    is subgraph 0), "count" (THEN takes one input), "type" (THEN's first input is int16),
    "cond" (the condition is int32), "state" (THEN holds a CALL_ONCE)."""
    m = Builder(OPS)
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
            m.op(sg, "CALL_ONCE", [], [], "CallOnceOptions", initSubgraphIndex=2)
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
    m = Builder(OPS)
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
    m.op(body_g, "ADD_N", [b_in[0], one], [i1], "AddNOptions")
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
        m.op(body_g, "RESHAPE", [vals[0], m.tensor(body_g, (1,), "int32", data=np.array([N], np.int32))], [flat],
             "ReshapeOptions", newShape=[N])
        step = m.tensor(body_g, (1, N), "int8", XQ, data=np.arange(N, dtype=np.int8).reshape(1, N) * 5 - 17,
                        name="step")
        nxt = m.tensor(body_g, (1, N), dt, q, name="b_plus_step")
        m.op(body_g, "ADD", [vals[1], step], [nxt])
        back = m.tensor(body_g, (1, N), dt, q, name="a_again")
        m.op(body_g, "RESHAPE", [flat, m.tensor(body_g, (2,), "int32", data=np.array([1, N], np.int32))], [back],
             "ReshapeOptions", newShape=[1, N])
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


# --- harness.tflm_support's control_flow family: several subgraphs, called ones nested in the
# --- caller's scopes; quantised as that module's one-op models ---------------------------------
Q8 = (0.05, 3)
Q8B = (0.08, -7)
Q16 = (0.001, 0)
Q16B = (0.002, 0)


def default_q(dtype, other=False):
    """The quantisation of a ``dtype`` tensor (None for float32 and int64, plain integers);
    ``other``: a second one."""
    if dtype in ("float32", "int64"):
        return None
    if dtype == "int16":
        return Q16B if other else Q16
    return Q8B if other else Q8


def _qc(dtype):
    """The quantisation of a carried tensor: int8 and int16 ones only."""
    return default_q(dtype) if dtype in ("int8", "int16") else None


def _mean_op(g, x, shape, dtype="int8"):
    """A MEAN over axes 1 and 2 of ``x`` (keep dims): the int8 kernel asks for scratch."""
    a = g.tensor((2,), "int32", data=(1, 2))
    y = g.tensor((shape[0], 1, 1, shape[3]), dtype, default_q(dtype, other=True))
    g.op("MEAN", [x, a], [y], "ReducerOptions", version=2, keepDims=True)
    return y


def if_unary_chains(branches=("RELU", "RELU RELU"), dtype="int8", n=64, same_branch=False):
    """IF on a bool input over one tensor: each branch a chain of the unary ops named."""
    q = default_q(dtype)
    g = GraphBuilder()
    c, x, y = g.tensor((1,), "bool"), g.tensor((1, n), dtype, q), g.tensor((1, n), dtype, q)
    g.op("IF", [c, x], [y], "IfOptions", thenSubgraphIndex=1, elseSubgraphIndex=1 if same_branch else 2)
    g.subgraph([c, x], [y])
    for k, chain in enumerate(branches[:1] if same_branch else branches):
        a = t = g.tensor((1, n), dtype, q)
        for name in chain.split():
            u = g.tensor((1, n), dtype, q)
            g.op(name, [t], [u])
            t = u
        if k == len(branches) - 1 or same_branch:
            return g.build([a], [t])
        g.subgraph([a], [t])


def if_float_two(n=48):
    """IF of two float32 inputs and two outputs, an input read again after the call (live
    across it): then (a + b, a * b), else (a - b, b)."""
    g = GraphBuilder()
    c, a, b = g.tensor((1,), "bool"), g.tensor((2, n), "float32"), g.tensor((2, n), "float32")
    y0, y1, z = g.tensor((2, n), "float32"), g.tensor((2, n), "float32"), g.tensor((2, n), "float32")
    g.op("IF", [c, a, b], [y0, y1], "IfOptions", thenSubgraphIndex=1, elseSubgraphIndex=2)
    g.op("ADD", [y0, a], [z], "AddOptions")
    g.subgraph([c, a, b], [z, y1])
    p, r = g.tensor((2, n), "float32"), g.tensor((2, n), "float32")
    s, m = g.tensor((2, n), "float32"), g.tensor((2, n), "float32")
    g.op("ADD", [p, r], [s], "AddOptions")
    g.op("MUL", [p, r], [m], "MulOptions")
    g.subgraph([p, r], [s, m])
    p, r, d = g.tensor((2, n), "float32"), g.tensor((2, n), "float32"), g.tensor((2, n), "float32")
    g.op("SUB", [p, r], [d], "SubOptions")
    return g.build([p, r], [d, r])


def if_scratch(shape=(1, 4, 5, 8)):
    """IF whose branches ask for kernel scratch (int8 MEAN; SUM), the call's own scope
    spanning both."""
    g = GraphBuilder()
    out = (shape[0], 1, 1, shape[3])
    c, x, y = g.tensor((1,), "bool"), g.tensor(shape, "int8", Q8), g.tensor(out, "int8", Q8B)
    g.op("IF", [c, x], [y], "IfOptions", thenSubgraphIndex=1, elseSubgraphIndex=2)
    g.subgraph([c, x], [y])
    a = g.tensor(shape, "int8", Q8)
    g.subgraph([a], [_mean_op(g, a, shape)])
    a = g.tensor(shape, "int8", Q8)
    r = g.tensor(shape, "int8", Q8)
    g.op("RELU", [a], [r])
    ax = g.tensor((2,), "int32", data=(1, 2))
    s = g.tensor(out, "int8", Q8B)
    g.op("SUM", [r, ax], [s], "ReducerOptions", version=2, keepDims=True)
    return g.build([a], [s])


def _while_graph(g, carried, n_loop=5):
    """The main subgraph of a WHILE over ``carried`` (shape, dtype) pairs, an int32 counter
    first; the cond subgraph: counter < n_loop. Returns the body's input tensors after
    starting the body subgraph."""
    ins = [g.tensor(s, d, _qc(d)) for s, d in carried]
    outs = [g.tensor(s, d, _qc(d)) for s, d in carried]
    g.op("WHILE", ins, outs, "WhileOptions", condSubgraphIndex=1, bodySubgraphIndex=2)
    g.subgraph(ins, outs)
    cin = [g.tensor(s, d, _qc(d)) for s, d in carried]
    limit, c = g.tensor((1,), "int32", data=[n_loop]), g.tensor((1,), "bool")
    g.op("LESS", [cin[0], limit], [c])
    g.subgraph(cin, [c])
    body = [g.tensor(s, d, _qc(d)) for s, d in carried]
    one, i2 = g.tensor((1,), "int32", data=[1]), g.tensor((1,), "int32")
    g.op("ADD", [body[0], one], [i2], "AddOptions")
    return body, i2


def while_float(n=64):
    """WHILE i < 5: i += 1, x = x + x (float32)."""
    g = GraphBuilder()
    (i, x), i2 = _while_graph(g, [((1,), "int32"), ((1, n), "float32")])
    x2 = g.tensor((1, n), "float32")
    g.op("ADD", [x, x], [x2], "AddOptions")
    return g.build([i, x], [i2, x2])


def while_scratch(shape=(1, 4, 5, 8)):
    """WHILE whose body asks for kernel scratch: an int8 MEAN beside a RELU of the carried
    tensor, the mean carried too."""
    g = GraphBuilder()
    out = (shape[0], 1, 1, shape[3])
    ins = [g.tensor((1,), "int32"), g.tensor(shape, "int8", Q8), g.tensor(out, "int8", Q8B)]
    outs = [g.tensor((1,), "int32"), g.tensor(shape, "int8", Q8), g.tensor(out, "int8", Q8B)]
    g.op("WHILE", ins, outs, "WhileOptions", condSubgraphIndex=1, bodySubgraphIndex=2)
    g.subgraph(ins, outs)
    cin = [g.tensor((1,), "int32"), g.tensor(shape, "int8", Q8), g.tensor(out, "int8", Q8B)]
    limit, c = g.tensor((1,), "int32", data=[3]), g.tensor((1,), "bool")
    g.op("LESS", [cin[0], limit], [c])
    g.subgraph(cin, [c])
    i, x, _ = g.tensor((1,), "int32"), g.tensor(shape, "int8", Q8), g.tensor(out, "int8", Q8B)
    one, i2 = g.tensor((1,), "int32", data=[1]), g.tensor((1,), "int32")
    g.op("ADD", [i, one], [i2], "AddOptions")
    x2 = g.tensor(shape, "int8", Q8)
    g.op("RELU", [x], [x2])
    m = _mean_op(g, x2, shape)
    return g.build([i, x, _], [i2, x2, m])


def while_if(n=32):
    """WHILE whose body calls IF (subgraph 3 or 4): then while the counter is below 2."""
    g = GraphBuilder()
    (i, x), i2 = _while_graph(g, [((1,), "int32"), ((1, n), "float32")], n_loop=4)
    two = g.tensor((1,), "int32", data=[2])
    c, x2 = g.tensor((1,), "bool"), g.tensor((1, n), "float32")
    g.op("LESS", [i, two], [c])
    g.op("IF", [c, x], [x2], "IfOptions", thenSubgraphIndex=3, elseSubgraphIndex=4)
    g.subgraph([i, x], [i2, x2])
    a, b = g.tensor((1, n), "float32"), g.tensor((1, n), "float32")
    g.op("ADD", [a, a], [b], "AddOptions")
    g.subgraph([a], [b])
    a, b = g.tensor((1, n), "float32"), g.tensor((1, n), "float32")
    g.op("NEG", [a], [b])
    return g.build([a], [b])


def while_swap(n=16):
    """WHILE i < 5: i += 1 and the two carried int8 tensors swapped, the body's outputs its own
    inputs (TFLM copies the body's outputs to the op's and back: the loop's meaning)."""
    g = GraphBuilder()
    (i, a, b), i2 = _while_graph(g, [((1,), "int32"), ((1, n), "int8"), ((1, n), "int8")])
    return g.build([i, a, b], [i2, b, a])
