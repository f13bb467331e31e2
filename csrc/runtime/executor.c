/* The executor: check a graph's tables once, then run its nodes in order. */
#include "arenaplan/executor.h"

#include <string.h>
#include <stdio.h>

#include "arenaplan/conv2d.h"
#include "arenaplan/depthwise_conv2d.h"
#include "arenaplan/elementwise.h"
#include "arenaplan/fully_connected.h"
#include "arenaplan/pooling.h"
#include "arenaplan/quantize.h"
#include "arenaplan/shape_ops.h"
#include "arenaplan/softmax.h"

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

/* Inputs each op takes: exact count, or 0 for "one or more" (concatenation). */
static uint32_t ap_exec_input_count(ap_op op)
{
    switch (op) {
    case AP_OP_ADD:
    case AP_OP_MUL:
        return 2;
    case AP_OP_CONCATENATION:
        return 0;
    default:
        return 1;
    }
}

static int ap_exec_needs_prepared(ap_op op)
{
    return op == AP_OP_CONV2D || op == AP_OP_DEPTHWISE_CONV2D || op == AP_OP_FULLY_CONNECTED;
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
        if ((unsigned)n->op >= AP_OP_COUNT || n->params == NULL) {
            return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, k, -1, 0, 0,
                                "unknown op or missing params");
        }
        if (ap_exec_needs_prepared(n->op) && n->prepared == NULL) {
            return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, k, -1, 0, 0,
                                "a weighted op has no prepared constants");
        }
        uint32_t want = ap_exec_input_count(n->op);
        if ((want != 0 && n->input_count != want) || n->input_count == 0 ||
            n->input_count > AP_CONCAT_MAX_INPUTS) {
            return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, k, -1, want, n->input_count,
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

static ap_status ap_exec_node(const ap_graph *g, const ap_node *n, void *const *pools,
                              ap_error *error)
{
    const void *in[AP_CONCAT_MAX_INPUTS];
    for (uint32_t i = 0; i < n->input_count; i++) {
        in[i] = ap_exec_pointer(&g->places[g->operands[n->inputs_at + i]], pools);
    }
    void *out = ap_exec_pointer(&g->places[n->output], pools);
    ap_scratch scratch[AP_MAX_SCRATCH];
    for (uint32_t s = 0; s < n->scratch_count; s++) {
        const ap_place *pl = &g->places[g->operands[n->scratch_at + s]];
        scratch[s].data = ap_exec_pointer(pl, pools);
        scratch[s].bytes = pl->bytes;
    }
    const ap_variant *v = &n->variant;
    const ap_scratch *sc = n->scratch_count ? scratch : NULL;
    uint32_t ns = n->scratch_count;
    switch (n->op) {
    case AP_OP_CONV2D:
        return ap_conv2d_s8_run(n->params, v, n->prepared, in[0], out, sc, ns, error);
    case AP_OP_DEPTHWISE_CONV2D:
        return ap_depthwise_conv2d_s8_run(n->params, v, n->prepared, in[0], out, sc, ns, error);
    case AP_OP_FULLY_CONNECTED:
        return ap_fully_connected_s8_run(n->params, v, n->prepared, in[0], out, sc, ns, error);
    case AP_OP_AVERAGE_POOL2D:
        return ap_average_pool2d_s8_run(n->params, v, in[0], out, sc, ns, error);
    case AP_OP_MAX_POOL2D:
        return ap_max_pool2d_s8_run(n->params, v, in[0], out, sc, ns, error);
    case AP_OP_ADD:
        return ap_add_s8_run(n->params, v, in[0], in[1], out, sc, ns, error);
    case AP_OP_MUL:
        return ap_mul_s8_run(n->params, v, in[0], in[1], out, sc, ns, error);
    case AP_OP_SOFTMAX:
        return ap_softmax_s8_run(n->params, v, in[0], out, sc, ns, error);
    case AP_OP_RESHAPE:
        /* An aliased reshape shares its input's bytes: nothing to move. */
        return in[0] == out ? AP_OK : ap_reshape_run(n->params, v, in[0], out, sc, ns, error);
    case AP_OP_QUANTIZE:
        return ap_quantize_s8_run(n->params, v, in[0], out, sc, ns, error);
    case AP_OP_DEQUANTIZE:
        return ap_dequantize_s8_run(n->params, v, in[0], out, sc, ns, error);
    case AP_OP_REQUANTIZE:
        return ap_requantize_s8_run(n->params, v, in[0], out, sc, ns, error);
    case AP_OP_CONCATENATION:
        return ap_concatenation_s8_run(n->params, v, (const int8_t *const *)in, out, sc, ns, error);
    case AP_OP_PAD:
        return ap_pad_s8_run(n->params, v, in[0], out, sc, ns, error);
    case AP_OP_MEAN:
        return ap_mean_s8_run(n->params, v, in[0], out, sc, ns, error);
    }
    return AP_ERR_UNSUPPORTED;
}

ap_status ap_graph_invoke_range(const ap_graph *graph, uint32_t first_node, uint32_t end_node,
                                void *const *pools, uint32_t pool_count, ap_error *error_out)
{
    if (graph == NULL || end_node > graph->node_count || first_node > end_node ||
        (pool_count > 0 && pools == NULL)) {
        return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, -1, -1, 0, 0,
                            "invalid graph, node range or pools");
    }
    for (uint32_t k = first_node; k < end_node; k++) {
        ap_status status = ap_exec_node(graph, &graph->nodes[k], pools, error_out);
        if (status != AP_OK) {
            if (error_out != NULL) {
                error_out->op = k;
            }
            return status;
        }
    }
    return AP_OK;
}

ap_status ap_graph_invoke(const ap_graph *graph, void *const *pools, uint32_t pool_count,
                          ap_error *error_out)
{
    if (graph == NULL) {
        return ap_exec_fail(error_out, AP_ERR_INVALID_ARGUMENT, -1, -1, 0, 0, "graph is NULL");
    }
    return ap_graph_invoke_range(graph, 0, graph->node_count, pools, pool_count, error_out);
}
