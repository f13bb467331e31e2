"""The executor's state operands through the C API: an SVDF node whose state lives in a
pool of its own, carried between ap_graph_invoke calls, and ap_graph_check refusing state
operands that are missing, constant, too small or overlapping the node's other operands."""
from __future__ import annotations

import numpy as np
import pytest

from ops_harness import message, variants
from harness.reference.svdf import PARAM_FIELDS, random_case, step


class SvdfGraph:
    """One SVDF node: pool 0 holds input, output and scratch; pool 1 the state."""

    def __init__(self, ffi, lib, bias=True, seed=0):
        self.ffi, self.lib = ffi, lib
        rng = np.random.default_rng(seed)
        self.c = c = random_case(rng, 2, 12, 8, 3, 2, bias)
        self.p = ffi.new("ap_svdf_params *", {k: int(c[k]) for k in PARAM_FIELDS})
        # "direct": the variant with a scratch buffer, which the checks below place and misplace
        v = [v for v in variants(ffi, lib, lib.ap_svdf_s8_variants, self.p) if v.kind == lib.AP_SVDF_DIRECT][0]
        self.units = c["filters"] // c["rank"]
        self.consts = [np.ascontiguousarray(c["wf"]), np.ascontiguousarray(c["wt"])]
        if bias:
            self.consts.append(np.ascontiguousarray(c["bias"]))
        self.in_bytes = c["batches"] * c["input_size"]
        self.state_bytes = 2 * c["batches"] * c["filters"] * c["memory"]
        self.arena = np.zeros(512, dtype=np.uint8)
        self.state = np.zeros(self.state_bytes + 16, dtype=np.uint8)
        n_const = len(self.consts)
        # places: input, constants, output, scratch, state
        rows = [(0, 0, self.in_bytes, ffi.NULL)]
        rows += [(-1, 0, a.nbytes, ffi.cast("void *", a.ctypes.data)) for a in self.consts]
        rows += [(0, 64, c["batches"] * self.units, ffi.NULL), (0, 128, v.scratch[0].bytes, ffi.NULL),
                 (1, 0, self.state_bytes, ffi.NULL)]
        self.places = ffi.new("ap_place[]", len(rows))
        for i, (pool, offset, nbytes, data) in enumerate(rows):
            self.places[i].pool, self.places[i].offset, self.places[i].bytes = pool, offset, nbytes
            self.places[i].data = data
        out, scratch, state = n_const + 1, n_const + 2, n_const + 3
        self.operands = ffi.new("uint32_t[]", list(range(n_const + 1)) + [scratch, state, 0, 0])
        self.node = ffi.new("ap_node *")
        self.node.op = lib.AP_OP_SVDF
        self.node.params = self.p
        self.node.variant = v[0]
        self.node.inputs_at, self.node.input_count = 0, n_const + 1
        self.node.output = out
        self.node.scratch_at, self.node.scratch_count = n_const + 1, 1
        self.node.state_at, self.node.state_count = n_const + 2, 1
        self.graph = ffi.new("ap_graph *")
        self.graph.nodes, self.graph.node_count = self.node, 1
        self.graph.places, self.graph.place_count = self.places, len(rows)
        self.graph.operands, self.graph.operand_count = self.operands, n_const + 3
        self.pool_bytes = ffi.new("size_t[]", [self.arena.size, self.state_bytes])
        self.pools = ffi.new("void *[]", [ffi.cast("void *", self.arena.ctypes.data),
                                          ffi.cast("void *", self.state.ctypes.data)])
        self.err = ffi.new("ap_error *")

    def check(self):
        return self.lib.ap_graph_check(self.graph, self.pool_bytes, 2, self.err)

    def invoke(self, x):
        self.arena[:self.in_bytes] = x.view(np.uint8).reshape(-1)
        status = self.lib.ap_graph_invoke(self.graph, self.pools, 2, self.err)
        assert status == self.lib.AP_OK, message(self.ffi, self.err)
        return self.arena[64:64 + x.shape[0] * self.units].view(np.int8).reshape(x.shape[0], -1).copy()


@pytest.mark.parametrize("bias", [True, False])
def test_state_persists_between_invocations(ffi, lib, bias):
    g = SvdfGraph(ffi, lib, bias)
    assert g.check() == lib.AP_OK, message(ffi, g.err)
    c = g.c
    rng = np.random.default_rng(9)
    state = np.zeros((c["batches"], c["filters"] * c["memory"]), dtype=np.int16)
    for _ in range(5):
        x = rng.integers(-128, 128, size=(c["batches"], c["input_size"]), dtype=np.int8)
        want, state = step(c, x, state)
        np.testing.assert_array_equal(g.invoke(x), want)
        np.testing.assert_array_equal(g.state[:g.state_bytes].view(np.int16).reshape(state.shape), state)
    assert not g.state[g.state_bytes:].any(), "the kernel wrote past its state"


def test_check_refuses_bad_state_operands(ffi, lib):
    cases = []

    def expect(mutate, words, needed=None):
        g = SvdfGraph(ffi, lib)
        mutate(g)
        assert g.check() == lib.AP_ERR_INVALID_ARGUMENT, words
        assert words in message(ffi, g.err), message(ffi, g.err)
        assert g.err.op == 0
        if needed is not None:
            assert (g.err.needed, g.err.available) == needed
        cases.append(words)

    state_place = lambda g: g.places[g.node.output + 2]  # noqa: E731
    expect(lambda g: setattr(g.node, "state_count", 0), "wrong number of state operands")
    expect(lambda g: setattr(g.node, "state_count", 2), "wrong number of state operands")
    expect(lambda g: setattr(g.node, "state_at", 99), "state operand range outside")
    expect(lambda g: g.operands.__setitem__(g.node.state_at, 77), "does not exist")

    def constant(g):
        state_place(g).pool = -1
        state_place(g).data = g.ffi.cast("void *", g.state.ctypes.data)
    expect(constant, "state place is constant")

    def small(g):
        state_place(g).bytes = g.state_bytes - 2
    expect(small, "smaller than the op's state", (SvdfGraph(ffi, lib).state_bytes,
                                                    SvdfGraph(ffi, lib).state_bytes - 2))

    def over_output(g):
        state_place(g).pool, state_place(g).offset = 0, 64 - 8
        g.pool_bytes[0] = 512
    expect(over_output, "overlaps the node's output")

    def over_input(g):
        state_place(g).pool, state_place(g).offset = 0, 200
        g.places[0].offset = 200 + 4
    expect(over_input, "overlaps one of the node's inputs")

    def over_scratch(g):
        state_place(g).pool, state_place(g).offset = 0, 128 + 16
    expect(over_scratch, "overlaps the node's scratch")

    def too_few_inputs(g):
        g.node.input_count = 2
    expect(too_few_inputs, "wrong number of inputs")
    assert len(cases) == 10


def test_a_node_without_state_may_not_name_one(ffi, lib):
    """A requantisation node given a state operand is refused: only SVDF takes one."""
    arena = np.zeros(64, dtype=np.uint8)
    p = ffi.new("ap_requantize_params *", {"count": 4, "multiplier": 1 << 30, "shift": 1})
    v = variants(ffi, lib, lib.ap_requantize_s8_variants, p)[0]
    places = ffi.new("ap_place[]", [(0, 0, 4, ffi.NULL), (0, 16, 4, ffi.NULL), (0, 32, 8, ffi.NULL)])
    operands = ffi.new("uint32_t[]", [0, 2])
    node = ffi.new("ap_node *", {"op": lib.AP_OP_REQUANTIZE, "params": p, "variant": v[0], "inputs_at": 0,
                                 "input_count": 1, "output": 1, "state_at": 1, "state_count": 1})
    graph = ffi.new("ap_graph *", {"nodes": node, "node_count": 1, "places": places, "place_count": 3,
                                   "operands": operands, "operand_count": 2})
    sizes = ffi.new("size_t[]", [arena.size])
    err = ffi.new("ap_error *")
    assert lib.ap_graph_check(graph, sizes, 1, err) == lib.AP_ERR_INVALID_ARGUMENT
    assert "wrong number of state operands" in message(ffi, err)
    node.state_count = 0
    assert lib.ap_graph_check(graph, sizes, 1, err) == lib.AP_OK


class JumpGraph:
    """Node 0: JUMP (if_false on a one-byte condition at arena[0], or always) to node 2 (the
    end); node 1: the RESHAPE copy of arena[16:24] into arena[32:40]."""

    def __init__(self, ffi, lib, when=1, target=2):
        self.ffi, self.lib = ffi, lib
        self.arena = np.zeros(64, dtype=np.uint8)
        self.jp = ffi.new("ap_jump_params *", {"target": target, "when": when})
        self.cp = ffi.new("ap_reshape_params *", {"bytes": 8})
        jv = variants(ffi, lib, lib.ap_jump_variants, self.jp)[0][0]
        cv = variants(ffi, lib, lib.ap_reshape_variants, self.cp)[0][0]
        self.places = ffi.new("ap_place[]", [(0, 0, 1, ffi.NULL), (0, 16, 8, ffi.NULL), (0, 32, 8, ffi.NULL)])
        self.operands = ffi.new("uint32_t[]", [0, 1])
        self.nodes = ffi.new("ap_node[]", 2)
        self.nodes[0].op, self.nodes[0].params, self.nodes[0].variant = lib.AP_OP_JUMP, self.jp, jv
        self.nodes[0].inputs_at, self.nodes[0].input_count = 0, 1 if when == 1 else 0
        self.nodes[1].op, self.nodes[1].params, self.nodes[1].variant = lib.AP_OP_RESHAPE, self.cp, cv
        self.nodes[1].inputs_at, self.nodes[1].input_count, self.nodes[1].output = 1, 1, 2
        self.graph = ffi.new("ap_graph *", {"nodes": self.nodes, "node_count": 2, "places": self.places,
                                            "place_count": 3, "operands": self.operands, "operand_count": 2})
        self.sizes = ffi.new("size_t[]", [self.arena.size])
        self.pools = ffi.new("void *[]", [ffi.cast("void *", self.arena.ctypes.data)])
        self.err = ffi.new("ap_error *")

    def check(self):
        return self.lib.ap_graph_check(self.graph, self.sizes, 1, self.err)


def test_a_conditional_jump_skips_the_copy_when_false(ffi, lib):
    g = JumpGraph(ffi, lib)
    assert g.check() == lib.AP_OK, message(ffi, g.err)
    g.arena[16:24] = np.arange(1, 9)
    for cond, want in ((1, np.arange(1, 9)), (0, np.zeros(8))):
        g.arena[32:40] = 0
        g.arena[0] = cond
        assert lib.ap_graph_invoke(g.graph, g.pools, 1, g.err) == lib.AP_OK
        np.testing.assert_array_equal(g.arena[32:40], want)
    # a range that holds the jump but not its target ends at the jump
    g.arena[0], g.arena[32:40] = 0, 0
    assert lib.ap_graph_invoke_range(g.graph, 0, 1, g.pools, 1, g.err) == lib.AP_OK
    assert not g.arena[32:40].any()


def test_steps_bound_a_loop_that_does_not_end(ffi, lib):
    """JUMP always to itself: ap_graph_invoke_steps stops before the budget's next backward jump,
    on the jump, every call."""
    g = JumpGraph(ffi, lib, when=0, target=0)
    assert g.check() == lib.AP_OK, message(ffi, g.err)
    at = ffi.new("uint32_t *", 0)
    for _ in range(3):
        assert lib.ap_graph_invoke_steps(g.graph, at, 1000, g.pools, 1, g.err) == lib.AP_OK
        assert at[0] == 0
    at[0] = 1   # from the copy on: no jump, the run ends
    assert lib.ap_graph_invoke_steps(g.graph, at, 0, g.pools, 1, g.err) == lib.AP_OK and at[0] == 2
    at[0] = 3
    assert lib.ap_graph_invoke_steps(g.graph, at, 0, g.pools, 1, g.err) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_graph_invoke_steps(g.graph, ffi.NULL, 0, g.pools, 1, g.err) == lib.AP_ERR_INVALID_ARGUMENT


@pytest.mark.parametrize("mutate,words", [
    (lambda g: setattr(g.jp, "target", 3), "target is beyond the graph's last node"),
    (lambda g: setattr(g.jp, "when", 7), "not an ap_jump_when"),
    (lambda g: setattr(g.nodes[0], "input_count", 0), "takes one input (the condition)"),
    (lambda g: setattr(g.places[0], "bytes", 4), "condition is not one byte"),
    (lambda g: g.operands.__setitem__(0, 9), "condition names a place that does not exist"),
    (lambda g: setattr(g.nodes[0], "scratch_count", 1), "takes no scratch or state"),
    (lambda g: (setattr(g.jp, "when", 0)), "an unconditional jump takes no input"),
], ids=["target", "when", "no_condition", "wide_condition", "missing_place", "scratch", "always_with_input"])
def test_check_refuses_bad_jumps_naming_the_node(ffi, lib, mutate, words):
    g = JumpGraph(ffi, lib)
    mutate(g)
    assert g.check() == lib.AP_ERR_INVALID_ARGUMENT
    assert words in message(ffi, g.err) and g.err.op == 0, message(ffi, g.err)
