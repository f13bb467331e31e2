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
 * Pre-placed buffers (TFLM's offline-planned ones) keep their offsets and are
 * placed first, in index order; the others go around them.
 */
#include "planner_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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
    return ap_pl_greedy_fixed_until(problem, strategy, NULL, offsets_out, 1e300);
}

ap_status ap_pl_greedy_until(const ap_pl_problem *problem, ap_strategy strategy,
                             size_t *offsets_out, double deadline)
{
    return ap_pl_greedy_fixed_until(problem, strategy, NULL, offsets_out, deadline);
}

ap_status ap_pl_check_fixed(const ap_pl_problem *problem, const size_t *fixed, ap_error *error)
{
    size_t i, e, end, top = 0, bound;
    for (i = 0; i < problem->n; ++i) {
        size_t align = problem->buffers[i].alignment;
        if (fixed[i] == SIZE_MAX) {
            continue;
        }
        if (fixed[i] % align != 0) {
            return ap_pl_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_BUFFER, (int64_t)i,
                              "buffer %zu: fixed offset %zu is not a multiple of its alignment %zu "
                              "(%zu bytes off)", i, fixed[i], align, fixed[i] % align);
        }
        if (!ap_pl_add(fixed[i], problem->size[i], &end)) {
            return ap_pl_fail(error, AP_ERR_OVERFLOW, AP_SUBJECT_BUFFER, (int64_t)i,
                              "buffer %zu: fixed offset %zu plus its %zu bytes overflows size_t",
                              i, fixed[i], problem->size[i]);
        }
        if (end > top) {
            top = end;
        }
    }
    /* every buffer placed around them rests at most padded_total above the highest */
    if (!ap_pl_add(top, problem->padded_total, &bound)) {
        return ap_pl_fail(error, AP_ERR_OVERFLOW, AP_SUBJECT_ARGUMENT, -1,
                          "fixed offsets end at %zu; with the %zu bytes the other buffers may "
                          "take above them that overflows size_t", top, problem->padded_total);
    }
    /* the conflict graph holds the non-empty buffers live at a common op */
    for (i = 0; i < problem->n; ++i) {
        if (fixed[i] == SIZE_MAX) {
            continue;
        }
        for (e = problem->adj_start[i]; e < problem->adj_start[i + 1]; ++e) {
            uint32_t j = problem->adj[e];
            const ap_buffer *a = &problem->buffers[j], *b = &problem->buffers[i];
            if (j >= i || fixed[j] == SIZE_MAX || fixed[j] >= fixed[i] + problem->size[i] ||
                fixed[i] >= fixed[j] + problem->size[j]) {
                continue;
            }
            {
                int32_t op = a->first > b->first ? a->first : b->first;
                size_t from = fixed[i] > fixed[j] ? fixed[i] : fixed[j];
                size_t to = fixed[i] + problem->size[i] < fixed[j] + problem->size[j]
                                ? fixed[i] + problem->size[i]
                                : fixed[j] + problem->size[j];
                ap_pl_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_BUFFER, (int64_t)j,
                           "fixed buffers %" PRIu32 " (offset %zu) and %zu (offset %zu) share "
                           "bytes [%zu, %zu) while both live at op %" PRId32,
                           j, fixed[j], i, fixed[i], from, to, op);
                if (error != NULL) {
                    error->other = (int64_t)i;
                    error->op = op;
                }
                return AP_ERR_INVALID_ARGUMENT;
            }
        }
    }
    return AP_OK;
}

/* The pass checks the clock (and the call's cancellation) as it goes: on a large
   problem one pass can take minutes, since it walks every conflict pair. The
   placements are those of ap_pl_decode, so a pass that completes is TFLM's plan.
   Pre-placed buffers go first in index order (a stable partition of the strategy's
   order, which keeps the others' order): TFLM lists offline-planned buffers first,
   in that order, and sorts only the rest. */
ap_status ap_pl_greedy_fixed_until(const ap_pl_problem *problem, ap_strategy strategy,
                                   const size_t *fixed, size_t *offsets_out, double deadline)
{
    ap_pl_placer placer;
    uint32_t *order = (uint32_t *)ap_pl_alloc(problem->n, sizeof(uint32_t));
    uint32_t *tmp = (uint32_t *)ap_pl_alloc(problem->n, sizeof(uint32_t));
    ap_pl_fit fit;
    ap_status st = AP_OK;
    size_t i, from = 0, k = 0;
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
    if (st == AP_OK && fixed != NULL) {
        for (i = 0; i < problem->n; ++i) {
            if (fixed[i] != SIZE_MAX) {
                offsets_out[i] = fixed[i];
                tmp[from++] = (uint32_t)i;
            }
        }
        k = from;
        for (i = 0; i < problem->n; ++i) {
            if (fixed[order[i]] == SIZE_MAX) {
                tmp[k++] = order[i];
            }
        }
        memcpy(order, tmp, problem->n * sizeof(uint32_t));
    }
    if (st == AP_OK) {
        fit = (strategy == AP_STRATEGY_GREEDY_SIZE_BEST_FIT ||
               strategy == AP_STRATEGY_GREEDY_CONFLICTS_BEST_FIT)
                  ? AP_PL_BEST_FIT
                  : AP_PL_FIRST_FIT;
        if (!ap_pl_decode_until(problem, order, from, fit, &placer, offsets_out, deadline)) {
            st = AP_ERR_TIMEOUT;
        }
    }
    ap_pl_placer_free(&placer);
    free(order);
    free(tmp);
    return st;
}
