/*
 * The executor: runs a planned graph inside caller-owned memory pools.
 *
 * A graph is plain tables a host builds from a plan (or a C export writes as
 * const data): places (where each tensor and scratch buffer lives), nodes (op,
 * params, prepared constants, chosen variant, operand indices) and one shared
 * operand index array. The executor never allocates: the caller passes the base
 * pointer of each pool. ap_graph_check validates every table against the pool
 * sizes once, so ap_graph_invoke only resolves pointers and calls kernels.
 *
 * State (a model's variable tensors, e.g. SVDF's activation state) is a node operand
 * like the others, listed apart: a place the kernel reads and updates in place, that
 * keeps its bytes between invocations. The caller owns it (typically a pool of its own
 * that it zeroes once and never hands to the planner) and passes that pool's base with
 * the others.
 */
#ifndef ARENAPLAN_EXECUTOR_H
#define ARENAPLAN_EXECUTOR_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/kernel.h"
#include "arenaplan/ops.h"
#include "arenaplan/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Op codes (ap_op) and what each op takes: arenaplan/ops.h, the op table. */

/** Most state operands one node may have. */
enum { AP_MAX_STATE = 4 };

/** Where a tensor or scratch buffer lives. */
typedef struct ap_place {
    int32_t pool;      /* index of the pool, or -1: constant data at `data` */
    size_t offset;     /* bytes from the pool's base */
    size_t bytes;      /* size of the buffer */
    const void *data;  /* constant data when pool == -1, else NULL */
} ap_place;

/** One op of the graph. Operand lists are ranges of ap_graph.operands (place indices). */
typedef struct ap_node {
    ap_op op;
    const void *params;     /* the op's params struct (its op table row's params_type) */
    const void *prepared;   /* prepared constants of weighted ops, else NULL */
    ap_variant variant;     /* as listed by the op's _variants function */
    uint32_t inputs_at;     /* first input in operands */
    uint32_t input_count;
    uint32_t output;        /* place index of the output */
    uint32_t scratch_at;    /* first scratch place in operands */
    uint32_t scratch_count; /* <= AP_MAX_SCRATCH */
    uint32_t state_at;      /* first state place in operands (read and written, persistent) */
    uint32_t state_count;   /* exactly as many as the op's row takes (SVDF 1, LSTM 2, others 0) */
    ap_types types;         /* the tensor types: with `op`, the op table row that runs the node
                               (last, so a zero-initialised node is int8) */
} ap_node;

typedef struct ap_graph {
    const ap_node *nodes;
    uint32_t node_count;
    const ap_place *places;
    uint32_t place_count;
    const uint32_t *operands;
    uint32_t operand_count;
} ap_graph;

/**
 * Validate the tables against pools of `pool_bytes[pool_count]` bytes: every operand index
 * in range, every place inside its pool (checked arithmetic) or constant with data, every
 * node's op known with params, operand counts right for the op, scratch places at least as
 * large as the variant requests, state places in a pool, as large as the op's state and
 * sharing no byte with the node's output, inputs, scratch or other state. Call once after
 * building a graph; invoke trusts it.
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT (error->op names the node, error->index the place),
 * AP_ERR_OVERFLOW or AP_ERR_SCRATCH_TOO_SMALL.
 */
ap_status ap_graph_check(const ap_graph *graph, const size_t *pool_bytes, uint32_t pool_count,
                         ap_error *error_out);

/**
 * Run nodes from first_node while the next node lies in [first_node, end_node): each in
 * order, except that a JUMP node (ops.h, ap_jump_params) that jumps continues at its
 * target; a jump to a node outside the range ends the call (AP_OK). pools: `pool_count`
 * base pointers (the arena(s) the plan placed buffers in). The graph must have passed
 * ap_graph_check for these pools. Returns AP_OK or the first failing kernel's status
 * (error->op = node index). A graph whose loop never ends does not return: run such a
 * graph with ap_graph_invoke_steps to keep control.
 */
ap_status ap_graph_invoke_range(const ap_graph *graph, uint32_t first_node, uint32_t end_node,
                                void *const *pools, uint32_t pool_count, ap_error *error_out);

/**
 * Run the whole graph from node *node_inout (0 to start a run) but take at most
 * max_back_jumps backward jumps (a loop's iterations): before the next one it stops, with
 * *node_inout on that jump node; call again with the same *node_inout to go on. On return
 * *node_inout == node_count when the run has ended. Lets a caller bound the work of one
 * call (to check for an interrupt, or to refuse a loop past a limit) without a clock in
 * the executor. Returns as ap_graph_invoke_range (on a kernel's failure, *node_inout is
 * that node); AP_ERR_INVALID_ARGUMENT for a NULL graph or node_inout or a node past the end.
 */
ap_status ap_graph_invoke_steps(const ap_graph *graph, uint32_t *node_inout, uint32_t max_back_jumps,
                                void *const *pools, uint32_t pool_count, ap_error *error_out);

/** Run the whole graph: ap_graph_invoke_range(graph, 0, node_count, ...). */
ap_status ap_graph_invoke(const ap_graph *graph, void *const *pools, uint32_t pool_count,
                          ap_error *error_out);

#ifdef __cplusplus
}
#endif
#endif
