/*
 * Blocks: the exact search on a stacked problem, a restriction of the problem
 * in which groups of buffers move as one.
 *
 * Two rules, applied in rounds until nothing changes:
 *  - stack: blocks with the same lifetime conflict with exactly the same
 *    others, so they are stacked into one (larger alignments lower, so every
 *    member stays aligned);
 *  - chain: a block that ends just before another of the same size starts,
 *    each being the other's only such partner, shares its offset with it (they
 *    never conflict; the pair becomes one block over both lifetimes).
 * A plan for the blocks is a plan for the buffers, and the live bytes of the
 * blocks equal those of the buffers unless stacking had to pad. On a problem
 * that is a cut-up rectangle the two rules undo many of the cuts (a cut in
 * address leaves pieces with one lifetime, a cut in time pieces of one size
 * that abut): the benchmark's hard problems of 300, 400 and 500 buffers shrink
 * to 66, 86 and 113 blocks. Not to one: stacking also joins unrelated pieces
 * that happen to share a lifetime, and then their partners no longer match.
 */
#include "planner_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct merge_ctx {
    ap_buffer *blk;        /* current blocks */
    size_t nb;
} merge_ctx;

static int stack_before(const void *context, uint32_t a, uint32_t b)
{
    const ap_buffer *x = &((const merge_ctx *)context)->blk[a];
    const ap_buffer *y = &((const merge_ctx *)context)->blk[b];
    if (x->first != y->first) {
        return x->first < y->first;
    }
    if (x->last != y->last) {
        return x->last < y->last;
    }
    if (x->alignment != y->alignment) {
        return x->alignment > y->alignment;
    }
    return a < b;
}

static int chain_before(const void *context, uint32_t a, uint32_t b)
{
    const ap_buffer *x = &((const merge_ctx *)context)->blk[a];
    const ap_buffer *y = &((const merge_ctx *)context)->blk[b];
    if (x->size != y->size) {
        return x->size < y->size;
    }
    if (x->first != y->first) {
        return x->first < y->first;
    }
    return a < b;
}

/* In `sorted` (by size, then first), the range of blocks with this size and first. */
static size_t chain_count(const merge_ctx *mc, const uint32_t *sorted, size_t size, int64_t first,
                          uint32_t *one)
{
    size_t lo = 0, hi = mc->nb, k, count = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const ap_buffer *x = &mc->blk[sorted[mid]];
        if (x->size < size || (x->size == size && (int64_t)x->first < first)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (k = lo; k < mc->nb && count < 2; ++k) {
        const ap_buffer *x = &mc->blk[sorted[k]];
        if (x->size != size || (int64_t)x->first != first) {
            break;
        }
        *one = sorted[k];
        ++count;
    }
    return count;
}

/*
 * The exact search on the blocks; skipped when they shrink the problem by less
 * than 10 %.
 */
ap_status ap_pl_blocks_exact(const ap_pl_problem *problem, size_t *offsets_out, int *planned,
                             ap_pl_search *search)
{
    const ap_pl_problem *p = problem;
    double deadline = search->deadline;
    merge_ctx mc;
    uint32_t *order = NULL, *tmp = NULL, *item_blk = NULL, *remap = NULL, *ends = NULL;
    ap_buffer *next = NULL;
    size_t *rel = NULL, *shift = NULL, *moff = NULL;
    size_t i, m = 0, arena;
    ap_pl_problem mp;
    ap_pl_search inner;
    ap_status st = AP_OK;
    int changed = 1;

    *planned = 0;

    memset(&mp, 0, sizeof(mp));
    memset(&mc, 0, sizeof(mc));
    order = (uint32_t *)ap_pl_alloc(p->n, sizeof(uint32_t));
    tmp = (uint32_t *)ap_pl_alloc(p->n, sizeof(uint32_t));
    item_blk = (uint32_t *)ap_pl_alloc(p->n, sizeof(uint32_t));
    remap = (uint32_t *)ap_pl_alloc(p->n, sizeof(uint32_t));
    ends = (uint32_t *)ap_pl_alloc(p->n, sizeof(uint32_t));
    mc.blk = (ap_buffer *)ap_pl_alloc(p->n, sizeof(ap_buffer));
    next = (ap_buffer *)ap_pl_alloc(p->n, sizeof(ap_buffer));
    rel = (size_t *)ap_pl_zalloc(p->n, sizeof(size_t));
    shift = (size_t *)ap_pl_alloc(p->n, sizeof(size_t));
    moff = (size_t *)ap_pl_alloc(p->n, sizeof(size_t));
    if (!order || !tmp || !item_blk || !remap || !ends || !mc.blk || !next || !rel || !shift ||
        !moff) {
        st = AP_ERR_OUT_OF_MEMORY;
        goto out;
    }
    /* one block per non-empty buffer; item_blk / rel map buffers into blocks */
    for (i = 0; i < p->n; ++i) {
        item_blk[i] = UINT32_MAX;
        if (p->size[i] > 0) {
            mc.blk[m] = p->buffers[i];
            mc.blk[m].size = p->size[i];
            item_blk[i] = (uint32_t)m++;
        }
    }
    mc.nb = m;
    while (changed && mc.nb > 1) {
        size_t nn = 0, b;
        changed = 0;
        /* chain equal sizes that abut, when the partner is unique both ways */
        for (b = 0; b < mc.nb; ++b) {
            order[b] = (uint32_t)b;
            ends[b] = UINT32_MAX; /* partner that follows */
            remap[b] = UINT32_MAX;
        }
        ap_pl_sort_indices(order, mc.nb, tmp, chain_before, &mc);
        for (b = 0; b < mc.nb; ++b) {
            const ap_buffer *x = &mc.blk[b];
            uint32_t y = UINT32_MAX, back = UINT32_MAX;
            if (chain_count(&mc, order, x->size, (int64_t)x->last + 1, &y) != 1) {
                continue;
            }
            /* y's only predecessor of its size must be x: count blocks of that size
               ending at y.first - 1 (a linear scan of the size's range is fine:
               equal sizes are few) */
            {
                size_t lo = 0, hi = mc.nb, k, count = 0;
                while (lo < hi) {
                    size_t mid = lo + (hi - lo) / 2;
                    if (mc.blk[order[mid]].size < x->size) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                for (k = lo; k < mc.nb && mc.blk[order[k]].size == x->size; ++k) {
                    if (mc.blk[order[k]].last == x->last) {
                        back = order[k];
                        ++count;
                    }
                }
                if (count == 1 && back == (uint32_t)b) {
                    ends[b] = y;
                }
            }
        }
        nn = 0;
        for (b = 0; b < mc.nb; ++b) {
            uint32_t y = ends[b];
            if (remap[b] != UINT32_MAX) {
                continue;
            }
            next[nn] = mc.blk[b];
            remap[b] = (uint32_t)nn;
            shift[b] = 0;
            if (y != UINT32_MAX && remap[y] == UINT32_MAX && ends[y] == UINT32_MAX) {
                size_t align = mc.blk[y].alignment > next[nn].alignment ? mc.blk[y].alignment
                                                                        : next[nn].alignment;
                /* equal sizes, each a multiple of its own alignment, so of both */
                next[nn].alignment = align;
                next[nn].last = mc.blk[y].last;
                remap[y] = (uint32_t)nn;
                shift[y] = 0;
                changed = 1;
            }
            ++nn;
        }
        for (i = 0; i < p->n; ++i) {
            if (item_blk[i] != UINT32_MAX) {
                item_blk[i] = remap[item_blk[i]];
            }
        }
        memcpy(mc.blk, next, nn * sizeof(ap_buffer));
        mc.nb = nn;
        /* stack equal lifetimes */
        nn = 0;
        for (b = 0; b < mc.nb; ++b) {
            order[b] = (uint32_t)b;
        }
        ap_pl_sort_indices(order, mc.nb, tmp, stack_before, &mc);
        for (b = 0; b < mc.nb; ++b) {
            const ap_buffer *x = &mc.blk[order[b]];
            if (nn == 0 || x->first != next[nn - 1].first || x->last != next[nn - 1].last) {
                next[nn] = *x;
                next[nn].size = 0;
                ++nn;
            } else {
                changed = 1;
            }
            /* sizes are multiples of their own alignment, which does not exceed
               the ones below it: each member lands aligned; the sum stays below
               the checked padded total */
            shift[order[b]] = next[nn - 1].size;
            remap[order[b]] = (uint32_t)(nn - 1);
            next[nn - 1].size += x->size;
        }
        for (i = 0; i < p->n; ++i) {
            if (item_blk[i] != UINT32_MAX) {
                rel[i] += shift[item_blk[i]];
                item_blk[i] = remap[item_blk[i]];
            }
        }
        memcpy(mc.blk, next, nn * sizeof(ap_buffer));
        mc.nb = nn;
        if (ap_pl_expired(p->control, deadline)) {
            goto out;
        }
    }
    if (mc.nb == 0 || (double)mc.nb > 0.9 * (double)m) {
        goto out;
    }
    if (ap_pl_problem_init(&mp, mc.blk, mc.nb, NULL) != AP_OK) {
        goto out; /* e.g. padding overflow of the blocks: just skip this phase */
    }
    mp.control = p->control;
    if ((st = ap_pl_greedy_until(&mp, AP_STRATEGY_GREEDY_SIZE, moff, deadline)) != AP_OK) {
        if (st == AP_ERR_TIMEOUT) {
            st = AP_OK; /* out of time: skip this phase */
        }
        goto out;
    }
    arena = ap_pl_arena(&mp, moff);
    /* the blocks' own search: its results are not the caller's incumbent's */
    memset(&inner, 0, sizeof(inner));
    inner.deadline = deadline;
    inner.max_steps = search->max_steps;
    inner.capacity = search->capacity;
    st = ap_pl_exact(&mp, moff, &arena, &inner);
    search->steps += inner.steps;
    if (st == AP_OK) {
        /* the caller judges it by the buffers' own arena: a stack padded to its
           first member's alignment can make the blocks' arena larger */
        for (i = 0; i < p->n; ++i) {
            offsets_out[i] = item_blk[i] == UINT32_MAX ? 0 : moff[item_blk[i]] + rel[i];
        }
        *planned = 1;
    }
out:
    ap_pl_problem_free(&mp);
    free(order);
    free(tmp);
    free(item_blk);
    free(remap);
    free(ends);
    free(mc.blk);
    free(next);
    free(rel);
    free(shift);
    free(moff);
    return st;
}
