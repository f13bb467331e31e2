/* The executor: check a graph's tables once, then run its nodes in order. */
#include "arenaplan/executor.h"

#include <string.h>
#include <stdio.h>

#include "arenaplan/shape_ops.h"

#include "message.h"

static ap_status ap_exec_fail(ap_error *error, ap_status status, int64_t node, int64_t place,
                              uint64_t needed, uint64_t available, const char *what)
{
    if (error != NULL) {
        ap_error_clear(error);
        error->status = status;
        error->subject = AP_SUBJECT_OP;
        error->op = node;
        error->index = place;
        error->needed = needed;
        error->available = available;
        ap_message_format(error->message, sizeof(error->message), "node %lld: %s", (long long)node, what);
    }
    return status;
}

/* State operands the node's op takes, and the bytes each must hold (state_bytes[count]). */
static ap_status ap_exec_state_needs(const ap_op_def *def, const ap_node *n, uint32_t *count,
                                     size_t *state_bytes, ap_error *error)
{
    *count = def->state_count;
    if (def->state_count == 0 || def->state_bytes == NULL) {
        return AP_OK;
    }
    return def->state_bytes(n->params, state_bytes, error);
}

/* 1 if two places share a byte of the same pool. */
static int ap_exec_overlap(const ap_place *a, const ap_place *b)
{
    return a->pool >= 0 && a->pool == b->pool && a->bytes > 0 && b->bytes > 0 &&
           a->offset < b->offset + b->bytes && b->offset < a->offset + a->bytes;
}

/* The state operands of node k: in a pool, large enough, apart from the node's other operands. */
static ap_status ap_exec_check_state(const ap_graph *g, const ap_op_def *def, uint32_t k,
                                     ap_error *error)
{
    const ap_node *n = &g->nodes[k];
    size_t need[AP_MAX_STATE] = {0};
    uint32_t want = 0;
    if (def->state_count > AP_MAX_STATE) {
        return ap_exec_fail(error, AP_ERR_UNSUPPORTED, k, -1, def->state_count, AP_MAX_STATE,
                            "the op takes more state operands than the executor holds");
    }
    ap_status st = ap_exec_state_needs(def, n, &want, need, error);
    if (st != AP_OK) {
        if (error != NULL) {
            error->op = k;
        }
        return st;
    }
    if (n->state_count != want) {
        return ap_exec_fail(error, AP_ERR_INVALID_ARGUMENT, k, -1, want, n->state_count,
                            "wrong number of state operands for the op");
    }
    if (n->state_at > g->operand_count || n->state_count > g->operand_count - n->state_at) {
        return ap_exec_fail(error, AP_ERR_INVALID_ARGUMENT, k, -1, 0, 0,
                            "state operand range outside the operand table");
    }
    for (uint32_t s = 0; s < n->state_count; s++) {
        uint32_t at = g->operands[n->state_at + s];
        if (at >= g->place_count) {
            return ap_exec_fail(error, AP_ERR_INVALID_ARGUMENT, k, at, 0, 0,
                                "a state operand names a place that does not exist");
        }
        const ap_place *pl = &g->places[at];
        if (pl->pool < 0) {
            return ap_exec_fail(error, AP_ERR_INVALID_ARGUMENT, k, at, 0, 0,
                                "a state place is constant; state is written");
        }
        if (pl->bytes < need[s]) {
            return ap_exec_fail(error, AP_ERR_INVALID_ARGUMENT, k, at, need[s], pl->bytes,
                                "a state place is smaller than the op's state");
        }
        if (ap_exec_overlap(pl, &g->places[n->output])) {
            return ap_exec_fail(error, AP_ERR_INVALID_ARGUMENT, k, at, 0, 0,
                                "a state place overlaps the node's output");
        }
        for (uint32_t i = 0; i < n->input_count; i++) {
            if (ap_exec_overlap(pl, &g->places[g->operands[n->inputs_at + i]])) {
                return ap_exec_fail(error, AP_ERR_INVALID_ARGUMENT, k, at, 0, 0,
                                    "a state place overlaps one of the node's inputs");
            }
        }
        for (uint32_t i = 0; i < n->scratch_count; i++) {
            if (ap_exec_overlap(pl, &g->places[g->operands[n->scratch_at + i]])) {
                return ap_exec_fail(error, AP_ERR_INVALID_ARGUMENT, k, at, 0, 0,
                                    "a state place overlaps the node's scratch");
            }
        }
        for (uint32_t t = 0; t < s; t++) {
            if (ap_exec_overlap(pl, &g->places[g->operands[n->state_at + t]])) {
                return ap_exec_fail(error, AP_ERR_INVALID_ARGUMENT, k, at, 0, 0,
                                    "two state places of the node overlap");
            }
        }
    }
    return AP_OK;
}

/* A JUMP node: a target inside the graph (node_count ends the run), a known `when`, no input
   to jump always, one to jump on: a place of one byte (a bool of one element). Its output
   place is not read. Node k's operand ranges are checked already. */
static ap_status ap_exec_check_jump(const ap_graph *g, uint32_t k, ap_error *error)
{
    const ap_node *n = &g->nodes[k];
    const ap_jump_params *p = (const ap_jump_params *)n->params;
    if (n->scratch_count != 0 || n->state_count != 0) {
        return ap_exec_fail(error, AP_ERR_INVALID_ARGUMENT, k, -1, 0, n->scratch_count + n->state_count,
                            "a jump takes no scratch or state");
    }
    if (p->target > g->node_count) {
        return ap_exec_fail(error, AP_ERR_INVALID_ARGUMENT, k, -1, g->node_count, p->target,
                            "a jump's target is beyond the graph's last node");
    }
    if (p->when == AP_JUMP_ALWAYS) {
        if (n->input_count != 0) {
            return ap_exec_fail(error, AP_ERR_INVALID_ARGUMENT, k, -1, 0, n->input_count,
                                "an unconditional jump takes no input");
        }
        return AP_OK;
    }
    if (p->when != AP_JUMP_IF_FALSE) {
        return ap_exec_fail(error, AP_ERR_INVALID_ARGUMENT, k, -1, 0, 0, "a jump's `when` is not an ap_jump_when");
    }
    if (n->input_count != 1) {
        return ap_exec_fail(error, AP_ERR_INVALID_ARGUMENT, k, -1, 1, n->input_count,
                            "a conditional jump takes one input (the condition)");
    }
    uint32_t at = g->operands[n->inputs_at];
    if (at >= g->place_count) {
        return ap_exec_fail(error, AP_ERR_INVALID_ARGUMENT, k, at, 0, 0,
                            "a jump's condition names a place that does not exist");
    }
    if (g->places[at].bytes != 1) {
        return ap_exec_fail(error, AP_ERR_INVALID_ARGUMENT, k, at, 1, g->places[at].bytes,
                            "a jump's condition is not one byte (a bool of one element)");
    }
    return AP_OK;
}

ap_status ap_graph_check(const ap_graph *graph, const size_t *pool_bytes, uint32_t pool_count,
                         ap_error *error_out)
{
    ap_error_clear(error_out);
    if (graph == NULL || (graph->node_count > 0 && graph->nodes == NULL) ||
        (graph->place_count > 0 && graph->places == NULL) ||
        (graph->operand_count > 0 && graph->operands == NULL) ||
        (pool_count > 0 && pool_bytes == NULL)) {
        return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, -1, -1, 0, 0,
                            "graph tables or pool sizes are NULL");
    }
    for (uint32_t p = 0; p < graph->place_count; p++) {
        const ap_place *pl = &graph->places[p];
        if (pl->pool < 0) {
            if (pl->data == NULL && pl->bytes > 0) {
                return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, -1, p, 0, 0,
                                    "a constant place has no data");
            }
            continue;
        }
        if ((uint32_t)pl->pool >= pool_count) {
            return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, -1, p, (uint64_t)pl->pool + 1,
                                pool_count, "a place names a pool that does not exist");
        }
        size_t cap = pool_bytes[pl->pool];
        if (pl->offset > cap || pl->bytes > cap - pl->offset) {
            return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, -1, p,
                                (uint64_t)pl->offset + (uint64_t)pl->bytes, cap,
                                "a place extends beyond the end of its pool");
        }
    }
    for (uint32_t k = 0; k < graph->node_count; k++) {
        const ap_node *n = &graph->nodes[k];
        const ap_op_def *def = ap_op_find(n->op, n->types);
        if (def == NULL || n->params == NULL) {
            return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, k, -1, 0, 0,
                                "unknown op or missing params");
        }
        if (def->has_blob && n->prepared == NULL) {
            return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, k, -1, 0, 0,
                                "a weighted op has no prepared constants");
        }
        if (n->input_count < def->inputs_min || n->input_count > def->inputs_max ||
            n->input_count > AP_CONCAT_MAX_INPUTS) {
            return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, k, -1, def->inputs_min, n->input_count,
                                "wrong number of inputs for the op");
        }
        if (n->scratch_count > AP_MAX_SCRATCH || n->scratch_count < n->variant.scratch_count) {
            return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, k, -1, n->variant.scratch_count,
                                n->scratch_count, "wrong number of scratch buffers for the variant");
        }
        if (n->inputs_at > graph->operand_count ||
            n->input_count > graph->operand_count - n->inputs_at ||
            n->scratch_at > graph->operand_count ||
            n->scratch_count > graph->operand_count - n->scratch_at) {
            return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, k, -1, 0, 0,
                                "operand range outside the operand table");
        }
        if (n->op == AP_OP_JUMP) {
            ap_status st = ap_exec_check_jump(graph, k, error_out);
            if (st != AP_OK) {
                return st;
            }
            continue;
        }
        if (n->output >= graph->place_count || graph->places[n->output].pool < 0) {
            return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, k, n->output, 0, 0,
                                "the output place is missing or constant");
        }
        for (uint32_t i = 0; i < n->input_count + n->scratch_count; i++) {
            uint32_t at = i < n->input_count ? n->inputs_at + i : n->scratch_at + (i - n->input_count);
            if (graph->operands[at] >= graph->place_count) {
                return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, k, graph->operands[at], 0, 0,
                                    "an operand names a place that does not exist");
            }
        }
        for (uint32_t s = 0; s < n->variant.scratch_count && s < AP_MAX_SCRATCH; s++) {
            const ap_place *pl = &graph->places[graph->operands[n->scratch_at + s]];
            if (pl->pool < 0 || pl->bytes < n->variant.scratch[s].bytes) {
                return ap_exec_fail(error_out, AP_ERR_SCRATCH_TOO_SMALL, k,
                                    graph->operands[n->scratch_at + s], n->variant.scratch[s].bytes,
                                    pl->bytes, "a scratch place is smaller than its request");
            }
        }
        ap_status st = ap_exec_check_state(graph, def, k, error_out);
        if (st != AP_OK) {
            return st;
        }
    }
    return AP_OK;
}

static void *ap_exec_pointer(const ap_place *pl, void *const *pools)
{
    if (pl->pool < 0) {
        return (void *)(uintptr_t)pl->data;  /* kernels only read inputs */
    }
    return (unsigned char *)pools[pl->pool] + pl->offset;
}

static ap_status ap_exec_node(const ap_graph *g, const ap_node *n, void *const *pools, ap_isa isa,
                              ap_error *error)
{
    const ap_op_def *def = ap_op_find(n->op, n->types);
    if (def == NULL) {
        return AP_ERR_UNSUPPORTED;  /* ap_graph_check refuses such a node */
    }
    const void *in[AP_CONCAT_MAX_INPUTS];
    for (uint32_t i = 0; i < n->input_count && i < AP_CONCAT_MAX_INPUTS; i++) {
        in[i] = ap_exec_pointer(&g->places[g->operands[n->inputs_at + i]], pools);
    }
    ap_scratch scratch[AP_MAX_SCRATCH];
    for (uint32_t s = 0; s < n->scratch_count && s < AP_MAX_SCRATCH; s++) {
        const ap_place *pl = &g->places[g->operands[n->scratch_at + s]];
        scratch[s].data = ap_exec_pointer(pl, pools);
        scratch[s].bytes = pl->bytes;
    }
    void *state[AP_MAX_STATE] = {NULL};
    for (uint32_t s = 0; s < n->state_count && s < AP_MAX_STATE; s++) {
        state[s] = ap_exec_pointer(&g->places[g->operands[n->state_at + s]], pools);
    }
    ap_op_call call;
    call.params = n->params;
    call.variant = &n->variant;
    call.prepared = n->prepared;
    call.inputs = in;
    call.input_count = n->input_count;
    call.output = ap_exec_pointer(&g->places[n->output], pools);
    call.state = state;
    call.state_count = n->state_count;
    call.scratch = n->scratch_count ? scratch : NULL;
    call.scratch_count = n->scratch_count;
    return def->run(&call, isa, error);
}

/* Run from *at while it lies in [first, end): a jump to a node outside it ends the call, as
   does reaching `end`. Before each backward jump once `budget` of them have been taken, stop
   with *at on the jump node (it runs again on resume). */
static ap_status ap_exec_run(const ap_graph *graph, uint32_t first, uint32_t end, uint32_t *at, uint64_t budget,
                             void *const *pools, ap_error *error_out)
{
    uint32_t k = *at;
    uint64_t taken = 0;
    while (k >= first && k < end) {
        const ap_node *n = &graph->nodes[k];
        if (n->op == AP_OP_JUMP) {
            const ap_jump_params *p = (const ap_jump_params *)n->params;
            int jump = p->when == AP_JUMP_ALWAYS;
            if (!jump) {
                const unsigned char *cond =
                    (const unsigned char *)ap_exec_pointer(&graph->places[graph->operands[n->inputs_at]], pools);
                jump = cond[0] == 0;
            }
            if (!jump) {
                k++;
                continue;
            }
            if (p->target <= k) {
                if (taken == budget) {
                    break;
                }
                taken++;
            }
            k = p->target;
            continue;
        }
        /* each node runs its variant's ISA: the plan's, never a CPU-wide default */
        ap_status status = ap_exec_node(graph, n, pools, (ap_isa)n->variant.isa, error_out);
        if (status != AP_OK) {
            if (error_out != NULL) {
                error_out->op = k;
            }
            *at = k;
            return status;
        }
        k++;
    }
    *at = k;
    return AP_OK;
}

ap_status ap_graph_invoke_range(const ap_graph *graph, uint32_t first_node, uint32_t end_node,
                                void *const *pools, uint32_t pool_count, ap_error *error_out)
{
    if (graph == NULL || end_node > graph->node_count || first_node > end_node ||
        (pool_count > 0 && pools == NULL)) {
        return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, -1, -1, 0, 0,
                            "invalid graph, node range or pools");
    }
    uint32_t at = first_node;
    return ap_exec_run(graph, first_node, end_node, &at, UINT64_MAX, pools, error_out);
}

ap_status ap_graph_invoke_steps(const ap_graph *graph, uint32_t *node_inout, uint32_t max_back_jumps,
                                void *const *pools, uint32_t pool_count, ap_error *error_out)
{
    if (graph == NULL || node_inout == NULL || *node_inout > graph->node_count ||
        (pool_count > 0 && pools == NULL)) {
        return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, -1, -1, 0, 0,
                            "invalid graph, node or pools");
    }
    return ap_exec_run(graph, 0, graph->node_count, node_inout, max_back_jumps, pools, error_out);
}
ap_status ap_graph_invoke(const ap_graph *graph, void *const *pools, uint32_t pool_count,
                          ap_error *error_out)
{
    if (graph == NULL) {
        return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, -1, -1, 0, 0, "graph is NULL");
    }
    return ap_graph_invoke_range(graph, 0, graph->node_count, pools, pool_count, error_out);
}
