/*
 * Greedy by size: TensorFlow Lite Micro's GreedyMemoryPlanner, reproduced
 * faithfully so that its arena is the baseline every other strategy is compared
 * with, plus a best-fit variant.
 *
 * TFLM sorts buffers by aligned size, largest first. Its sort array is filled
 * from the tail (buffer 0 lands last) and then bubble-sorted descending, which
 * is stable, so among equal sizes the later-added buffer comes first. Each buffer
 * then goes to the first gap, walking the already placed buffers whose lifetimes
 * overlap its own (inclusive) in offset order: the lowest offset that fits.
 */
#include "planner_internal.h"

#include <stdlib.h>

static int size_before(const void *context, uint32_t a, uint32_t b)
{
    const ap_pl_problem *p = (const ap_pl_problem *)context;
    if (p->size[a] != p->size[b]) {
        return p->size[a] > p->size[b];
    }
    return a > b; /* equal sizes: the later-added buffer first, as TFLM */
}

void ap_pl_order_by_size(const ap_pl_problem *problem, uint32_t *order, uint32_t *tmp)
{
    size_t i;
    for (i = 0; i < problem->n; ++i) {
        order[i] = (uint32_t)i;
    }
    ap_pl_sort_indices(order, problem->n, tmp, size_before, problem);
}

/* Shared by the four greedy strategies: order, then one placement pass. */
ap_status ap_pl_greedy(const ap_pl_problem *problem, ap_strategy strategy, size_t *offsets_out)
{
    return ap_pl_greedy_until(problem, strategy, offsets_out, 1e300);
}

/* The pass checks the clock (and the call's cancellation) as it goes: on a large
   problem one pass can take minutes, since it walks every conflict pair. The
   placements are those of ap_pl_decode, so a pass that completes is TFLM's plan. */
ap_status ap_pl_greedy_until(const ap_pl_problem *problem, ap_strategy strategy,
                             size_t *offsets_out, double deadline)
{
    ap_pl_placer placer;
    uint32_t *order = (uint32_t *)ap_pl_alloc(problem->n, sizeof(uint32_t));
    uint32_t *tmp = (uint32_t *)ap_pl_alloc(problem->n, sizeof(uint32_t));
    ap_pl_fit fit;
    ap_status st = AP_OK;
    if (order == NULL || tmp == NULL || ap_pl_placer_init(&placer, problem) != AP_OK) {
        free(order);
        free(tmp);
        return AP_ERR_OUT_OF_MEMORY;
    }
    switch (strategy) {
    case AP_STRATEGY_GREEDY_SIZE:
    case AP_STRATEGY_GREEDY_SIZE_BEST_FIT:
        ap_pl_order_by_size(problem, order, tmp);
        break;
    case AP_STRATEGY_GREEDY_CONFLICTS:
    case AP_STRATEGY_GREEDY_CONFLICTS_BEST_FIT:
        ap_pl_order_by_conflicts(problem, order, tmp);
        break;
    default:
        st = AP_ERR_INVALID_ARGUMENT;
        break;
    }
    if (st == AP_OK) {
        fit = (strategy == AP_STRATEGY_GREEDY_SIZE_BEST_FIT ||
               strategy == AP_STRATEGY_GREEDY_CONFLICTS_BEST_FIT)
                  ? AP_PL_BEST_FIT
                  : AP_PL_FIRST_FIT;
        if (!ap_pl_decode_until(problem, order, fit, &placer, offsets_out, deadline)) {
            st = AP_ERR_TIMEOUT;
        }
    }
    ap_pl_placer_free(&placer);
    free(order);
    free(tmp);
    return st;
}
