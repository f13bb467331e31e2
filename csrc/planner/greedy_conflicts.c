/*
 * Greedy by conflicts, after TVM's USMP greedy_by_conflicts: the buffer that is
 * live together with the most other buffers is placed first (it constrains the
 * most), ties by size (largest first), then the later-added buffer first. TVM
 * puts each buffer above all its placed conflicts; we let it drop into a gap
 * below them too (first fit or best fit), so a small buffer does not raise the
 * arena when a hole would hold it. The placement pass itself is shared with
 * greedy_size (ap_pl_greedy).
 */
#include "planner_internal.h"

static int conflicts_before(const void *context, uint32_t a, uint32_t b)
{
    const ap_pl_problem *p = (const ap_pl_problem *)context;
    size_t da = p->adj_start[a + 1] - p->adj_start[a];
    size_t db = p->adj_start[b + 1] - p->adj_start[b];
    if (da != db) {
        return da > db;
    }
    if (p->size[a] != p->size[b]) {
        return p->size[a] > p->size[b];
    }
    return a > b;
}

void ap_pl_order_by_conflicts(const ap_pl_problem *problem, uint32_t *order, uint32_t *tmp)
{
    size_t i;
    for (i = 0; i < problem->n; ++i) {
        order[i] = (uint32_t)i;
    }
    ap_pl_sort_indices(order, problem->n, tmp, conflicts_before, problem);
}
