/*
 * Exact search: branch and bound over canonical placements, after MiniMalloc
 * (Moffitt, "MiniMalloc: A Lightweight Memory Allocator for Hardware-Accelerated
 * Machine Learning", ASPLOS 2023). Our own C, with the same ideas:
 *
 * - Decision version. decide(C) looks for a plan whose arena is at most C; the
 *   minimum is found by lowering C: attempts cycle through the proven lower
 *   bound (initially the live bytes), the midpoint between it and the best plan
 *   known, and a small step below the best. A complete failure raises the
 *   bound; a plan lowers the best; they meet when optimality is proven.
 * - Canonical solutions. Among the plans within C, take one that minimises the
 *   sum of offsets. Every buffer in it rests on a conflicting buffer (else it
 *   could drop), so sorted by (offset, preorder rank) each buffer sits exactly
 *   at its "min offset": the largest end among the conflicting buffers before
 *   it, rounded up to its alignment. The search therefore places one buffer at
 *   a time at its min offset, with keys (offset, rank) strictly increasing along
 *   a branch: each plan is reached once, not once per permutation.
 * - Dominance. In that plan no unplaced buffer u can end (min offset + size) at
 *   or below the offset about to be used: u could move down there without
 *   touching anything placed later (all of which sits higher), lowering the sum.
 *   Such branches are skipped.
 * - Section inference. Time is cut into sections between consecutive lifetime
 *   endpoints; all buffers live in one section conflict pairwise, so the
 *   unplaced ones stack above the section's floor: floor + their total <= C.
 *   The floor is the top of the placed buffers there, raised to the current
 *   offset (placements are monotonic) and to the lowest min offset among the
 *   unplaced buffers of the section (they can go no lower).
 * - Decomposition. Where no unplaced buffer lives across a section boundary,
 *   the rest splits into independent parts, searched one after another; a part
 *   that fails sends the search straight back to the placement that split it,
 *   without retrying the choices made in its siblings.
 * - Restarts. Each attempt has a node limit following Luby's sequence and its
 *   own preorder (the rank that breaks ties between equal min offsets):
 *   MiniMalloc's "WAT", "TAW", "TWA" (lifetime width, area, section total),
 *   then widths with random noise from the seeded PRNG. Search trees of hard
 *   instances have heavy tails; many short varied runs beat one long one.
 *
 * Within one part the search is an explicit-stack loop; parts nest through a
 * call, at most MAX_LEVEL deep (deeper splits are simply not taken, which
 * costs pruning, not correctness), so the C stack stays small. All changes are
 * undone from trails; the clock is read every few hundred nodes. A step limit
 * (search->max_steps) ends the search like the clock, but at the same node on
 * every machine.
 *
 * Two costs dominate a node: the scan for the next candidate over the unplaced
 * buffers, and the floors of the sections whose buffers' min offsets a
 * placement raised. The scan compares (min offset, rank) packed into one word
 * where offsets allow (below 2^38 bytes: ex_packs), and the raised sections are
 * found by one sweep over difference counts rather than by walking each raised
 * buffer's sections. The nodes and the plans are the same; on 400 s32 of
 * bench_planner, 300,000 nodes of the exact strategy take 18 % fewer
 * instructions (callgrind).
 */
#include "planner_internal.h"

#include <stdlib.h>
#include <string.h>

#define NONE ((size_t)-1)
#define MAX_LEVEL 48
/* Candidate keys: (min offset, rank) packed into one word, the offset above
   KEY_RANK_BITS bits of rank, when every min offset is below 2^KEY_OFF_BITS. */
#define KEY_RANK_BITS 24
#define KEY_OFF_BITS (64 - KEY_RANK_BITS)

enum { EX_FOUND = 0, EX_INFEASIBLE = 1, EX_ABORTED = 2 };

typedef struct ex_change {
    uint32_t index;
    size_t old;
} ex_change;

typedef struct ex_placement {
    uint32_t item;
    size_t minoff_mark;    /* trail heights before this placement */
    size_t floor_mark;
} ex_placement;

typedef struct ex_frame {
    size_t mark;           /* placement-stack height before the try at this depth */
    size_t pos;            /* where the placed item sat among the unplaced ones */
    size_t tried_off;      /* key of the last candidate tried here */
    uint32_t tried_rank;
    int fresh;             /* nothing tried yet */
    size_t min_height;
    size_t max_total;      /* upper bound on the unplaced bytes of any section */
} ex_frame;

typedef struct ex_ctx {
    const ap_pl_problem *p;
    size_t m;              /* items: buffers with size > 0 */
    uint32_t *item_buf;    /* item -> buffer */
    uint32_t *buf_item;    /* buffer -> item */
    size_t *size;          /* per item */
    size_t *align;
    uint32_t *sec_lo;      /* per item: sections [sec_lo, sec_hi) */
    uint32_t *sec_hi;
    size_t sections;
    size_t *sec_total0;    /* per section: aligned bytes live there */
    size_t *sec_start;     /* sections + 1: CSR of the items live in each section */
    uint32_t *sec_items;
    size_t *cut0;          /* per boundary (between section b-1 and b): items crossing */
    size_t parts;
    uint32_t *part_sec;    /* parts + 1: section ranges */
    uint32_t *part_item;   /* parts + 1: ranges into `pre` */
    uint32_t *item_part;
    /* preorder heuristics */
    double *width;
    double *area;
    double *noisy;         /* width times a random factor, redrawn per attempt */
    size_t *total;         /* max section total over the item's sections */
    uint32_t *pre;         /* items grouped by part, ordered by the heuristic */
    uint32_t *rank;        /* item -> position in `pre` */
    const char *heuristic;
    const size_t *base;    /* NULL or per buffer: lowest offset allowed */
    /* search state */
    size_t cap;
    size_t *off;           /* NONE while unplaced */
    size_t *minoff;
    uint64_t *key;         /* (minoff, rank) packed, when `packed` */
    int packed;
    size_t *floor;
    size_t *sec_total;
    size_t *cut;
    int32_t *cover;        /* sections + 1, zero between placements: how many of the
                              buffers whose min offsets one placement raised each
                              section holds, as differences */
    uint32_t *witness;     /* per section: an item last seen unplaced at or below the
                              floor (a hint, checked before use): the floor cannot rise */
    ex_change *minoff_trail;
    size_t minoff_top;
    ex_change *floor_trail;
    size_t floor_top;
    size_t floor_trail_cap;
    ex_placement *placed;
    size_t placed_top;
    ex_frame *frames;
    size_t frame_top;
    uint32_t *pool;        /* item lists of split parts, used as a stack */
    size_t pool_top;
    size_t pool_cap;
    size_t *cuts_pool;     /* new cut boundaries of a placement, used as a stack */
    size_t cuts_top;
    /* budget */
    double deadline;
    uint64_t nodes;
    uint64_t node_limit;   /* of the current attempt, at most step_cap */
    uint64_t step_cap;     /* nodes of the whole call (search->max_steps, or no limit) */
    int timed_out;         /* the clock or step_cap ended the search */
} ex_ctx;

static void ex_free(ex_ctx *c)
{
    free(c->item_buf);
    free(c->buf_item);
    free(c->size);
    free(c->align);
    free(c->sec_lo);
    free(c->sec_hi);
    free(c->sec_total0);
    free(c->sec_start);
    free(c->sec_items);
    free(c->cut0);
    free(c->part_sec);
    free(c->part_item);
    free(c->item_part);
    free(c->width);
    free(c->area);
    free(c->noisy);
    free(c->total);
    free(c->pre);
    free(c->rank);
    free(c->off);
    free(c->minoff);
    free(c->key);
    free(c->floor);
    free(c->sec_total);
    free(c->cut);
    free(c->cover);
    free(c->witness);
    free(c->minoff_trail);
    free(c->floor_trail);
    free(c->placed);
    free(c->frames);
    free(c->pool);
    free(c->cuts_pool);
}

static size_t find_time(const int64_t *times, size_t count, int64_t t)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (times[mid] < t) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

static int heuristic_before(const void *context, uint32_t a, uint32_t b)
{
    const ex_ctx *c = (const ex_ctx *)context;
    const char *h;
    if (c->item_part[a] != c->item_part[b]) {
        return c->item_part[a] < c->item_part[b];
    }
    for (h = c->heuristic; *h; ++h) {
        switch (*h) {
        case 'W':
            if (c->width[a] != c->width[b]) {
                return c->width[a] > c->width[b];
            }
            break;
        case 'N':
            if (c->noisy[a] != c->noisy[b]) {
                return c->noisy[a] > c->noisy[b];
            }
            break;
        case 'A':
            if (c->area[a] != c->area[b]) {
                return c->area[a] > c->area[b];
            }
            break;
        case 'T':
            if (c->total[a] != c->total[b]) {
                return c->total[a] > c->total[b];
            }
            break;
        default:
            break;
        }
    }
    return c->item_buf[a] < c->item_buf[b];
}

static void ex_preorder(ex_ctx *c, const char *heuristic, uint32_t *tmp)
{
    size_t i;
    c->heuristic = heuristic;
    for (i = 0; i < c->m; ++i) {
        c->pre[i] = (uint32_t)i;
    }
    ap_pl_sort_indices(c->pre, c->m, tmp, heuristic_before, c);
    for (i = 0; i < c->m; ++i) {
        c->rank[c->pre[i]] = (uint32_t)i;
    }
}

static ap_status ex_init(ex_ctx *c, const ap_pl_problem *p)
{
    size_t i, m, t = 0, nt, span_sum = 0, pool_items, pool_cuts;
    int64_t *times = NULL;
    ap_pl_keyed *keyed = NULL, *ktmp = NULL;
    size_t *fill = NULL;
    ap_status st = AP_ERR_OUT_OF_MEMORY;

    memset(c, 0, sizeof(*c));
    c->p = p;
    c->m = m = p->nonempty;
    c->item_buf = (uint32_t *)ap_pl_alloc(m, sizeof(uint32_t));
    c->buf_item = (uint32_t *)ap_pl_alloc(p->n, sizeof(uint32_t));
    c->size = (size_t *)ap_pl_alloc(m, sizeof(size_t));
    c->align = (size_t *)ap_pl_alloc(m, sizeof(size_t));
    c->sec_lo = (uint32_t *)ap_pl_alloc(m, sizeof(uint32_t));
    c->sec_hi = (uint32_t *)ap_pl_alloc(m, sizeof(uint32_t));
    c->item_part = (uint32_t *)ap_pl_alloc(m, sizeof(uint32_t));
    c->width = (double *)ap_pl_alloc(m, sizeof(double));
    c->area = (double *)ap_pl_alloc(m, sizeof(double));
    c->noisy = (double *)ap_pl_alloc(m, sizeof(double));
    c->total = (size_t *)ap_pl_zalloc(m, sizeof(size_t));
    c->pre = (uint32_t *)ap_pl_alloc(m, sizeof(uint32_t));
    c->rank = (uint32_t *)ap_pl_alloc(m, sizeof(uint32_t));
    c->off = (size_t *)ap_pl_alloc(m, sizeof(size_t));
    c->minoff = (size_t *)ap_pl_alloc(m, sizeof(size_t));
    c->key = (uint64_t *)ap_pl_alloc(m, sizeof(uint64_t));
    c->placed = (ex_placement *)ap_pl_alloc(m + 1, sizeof(ex_placement));
    c->frames = (ex_frame *)ap_pl_alloc(m + MAX_LEVEL + 2, sizeof(ex_frame));
    times = (int64_t *)ap_pl_alloc(m, 2 * sizeof(int64_t));
    keyed = (ap_pl_keyed *)ap_pl_alloc(m, 2 * sizeof(ap_pl_keyed));
    ktmp = (ap_pl_keyed *)ap_pl_alloc(m, 2 * sizeof(ap_pl_keyed));
    if (!c->item_buf || !c->buf_item || !c->size || !c->align || !c->sec_lo || !c->sec_hi ||
        !c->item_part || !c->width || !c->area || !c->noisy || !c->total || !c->pre || !c->rank ||
        !c->off || !c->minoff || !c->key || !c->placed || !c->frames || !times || !keyed || !ktmp) {
        goto out;
    }
    m = 0;
    for (i = 0; i < p->n; ++i) {
        c->buf_item[i] = UINT32_MAX;
        if (p->size[i] > 0) {
            c->buf_item[i] = (uint32_t)m;
            c->item_buf[m] = (uint32_t)i;
            c->size[m] = p->size[i];
            c->align[m] = p->buffers[i].alignment;
            keyed[t].key = (uint64_t)p->buffers[i].first;
            keyed[t++].index = 0;
            keyed[t].key = (uint64_t)p->buffers[i].last + 1u;
            keyed[t++].index = 0;
            ++m;
        }
    }
    /* sections: between consecutive distinct lifetime endpoints */
    ap_pl_sort_keyed(keyed, t, ktmp);
    nt = 0;
    for (i = 0; i < t; ++i) {
        if (nt == 0 || times[nt - 1] != (int64_t)keyed[i].key) {
            times[nt++] = (int64_t)keyed[i].key;
        }
    }
    c->sections = nt > 0 ? nt - 1 : 0;
    c->sec_total0 = (size_t *)ap_pl_zalloc(c->sections + 1, sizeof(size_t));
    c->floor = (size_t *)ap_pl_zalloc(c->sections + 1, sizeof(size_t));
    c->sec_total = (size_t *)ap_pl_zalloc(c->sections + 1, sizeof(size_t));
    c->sec_start = (size_t *)ap_pl_zalloc(c->sections + 2, sizeof(size_t));
    c->cut0 = (size_t *)ap_pl_zalloc(c->sections + 2, sizeof(size_t));
    c->cut = (size_t *)ap_pl_zalloc(c->sections + 2, sizeof(size_t));
    c->cover = (int32_t *)ap_pl_zalloc(c->sections + 1, sizeof(int32_t));
    c->witness = (uint32_t *)ap_pl_alloc(c->sections + 1, sizeof(uint32_t));
    c->part_sec = (uint32_t *)ap_pl_alloc(c->sections + 2, sizeof(uint32_t));
    if (!c->sec_total0 || !c->floor || !c->sec_total || !c->sec_start || !c->cut0 || !c->cut ||
        !c->cover || !c->witness || !c->part_sec) {
        goto out;
    }
    for (i = 0; i < m; ++i) {
        const ap_buffer *b = &p->buffers[c->item_buf[i]];
        size_t s;
        c->sec_lo[i] = (uint32_t)find_time(times, nt, b->first);
        c->sec_hi[i] = (uint32_t)find_time(times, nt, (int64_t)b->last + 1);
        for (s = c->sec_lo[i]; s < c->sec_hi[i]; ++s) {
            c->sec_total0[s] += c->size[i]; /* <= the checked total */
            c->sec_start[s + 1] += 1;
            if (s > c->sec_lo[i]) {
                c->cut0[s] += 1; /* crosses the boundary into section s */
            }
        }
        span_sum += c->sec_hi[i] - c->sec_lo[i];
        c->width[i] = (double)b->last - (double)b->first + 1.0;
        c->area[i] = c->width[i] * (double)c->size[i];
    }
    for (i = 0; i < c->sections; ++i) {
        c->sec_start[i + 1] += c->sec_start[i];
    }
    c->sec_items = (uint32_t *)ap_pl_alloc(span_sum, sizeof(uint32_t));
    fill = (size_t *)ap_pl_alloc(c->sections + 1, sizeof(size_t));
    if (!c->sec_items || !fill) {
        goto out;
    }
    memcpy(fill, c->sec_start, (c->sections + 1) * sizeof(size_t));
    for (i = 0; i < m; ++i) {
        size_t s;
        for (s = c->sec_lo[i]; s < c->sec_hi[i]; ++s) {
            c->sec_items[fill[s]++] = (uint32_t)i;
            if (c->sec_total0[s] > c->total[i]) {
                c->total[i] = c->sec_total0[s];
            }
        }
    }
    /* parts: cut at every boundary no buffer crosses */
    {
        size_t s;
        c->parts = 0;
        c->part_sec[0] = 0;
        for (s = 1; s <= c->sections; ++s) {
            if (s == c->sections || c->cut0[s] == 0) {
                c->part_sec[++c->parts] = (uint32_t)s;
            }
        }
    }
    c->part_item = (uint32_t *)ap_pl_zalloc(c->parts + 1, sizeof(uint32_t));
    if (!c->part_item) {
        goto out;
    }
    for (i = 0; i < m; ++i) {
        /* the part whose section range holds sec_lo */
        size_t lo = 0, hi = c->parts;
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (c->part_sec[mid] <= c->sec_lo[i]) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        c->item_part[i] = (uint32_t)lo;
        c->part_item[lo + 1] += 1;
    }
    for (i = 0; i < c->parts; ++i) {
        c->part_item[i + 1] += c->part_item[i];
    }
    /* Trails. Along a branch a placement lowers nothing and raises each unplaced
       neighbour's min offset at most once: 2E entries. Floors rise for the
       placed buffer's own sections (span_sum in all) and, by inference, for the
       sections of neighbours whose min offset rose: at most sum over items of
       degree * span. That can be large, so it is capped; a full trail only skips
       a floor raise, which weakens pruning and never correctness. */
    c->minoff_trail = (ex_change *)ap_pl_alloc(2 * p->edge_count + 1, sizeof(ex_change));
    {
        size_t bound = span_sum + 1, cap_entries = 4 * span_sum + ((size_t)1 << 20);
        for (i = 0; i < m && bound < cap_entries; ++i) {
            size_t deg = p->adj_start[c->item_buf[i] + 1] - p->adj_start[c->item_buf[i]];
            size_t extra;
            if (!ap_pl_mul(deg, c->sec_hi[i] - c->sec_lo[i], &extra) ||
                !ap_pl_add(bound, extra, &bound)) {
                bound = cap_entries;
            }
        }
        c->floor_trail_cap = bound < cap_entries ? bound : cap_entries;
    }
    c->floor_trail = (ex_change *)ap_pl_alloc(c->floor_trail_cap, sizeof(ex_change));
    /* split lists: per nesting level at most (groups + items) <= sections + 1 + m */
    if (!ap_pl_mul(m + c->sections + 2, MAX_LEVEL + 1, &pool_items) ||
        !ap_pl_mul(c->sections + 1, MAX_LEVEL + 1, &pool_cuts)) {
        goto out;
    }
    c->pool_cap = pool_items;
    c->pool = (uint32_t *)ap_pl_alloc(pool_items, sizeof(uint32_t));
    c->cuts_pool = (size_t *)ap_pl_alloc(pool_cuts, sizeof(size_t));
    if (!c->minoff_trail || !c->floor_trail || !c->pool || !c->cuts_pool) {
        goto out;
    }
    st = AP_OK;
out:
    free(times);
    free(keyed);
    free(ktmp);
    free(fill);
    if (st != AP_OK) {
        ex_free(c);
    }
    return st;
}

static void push_floor(ex_ctx *c, size_t s, size_t value)
{
    /* capacity argued in ex_init; the guard keeps a wrong argument from writing
       out of bounds (the inference is then merely skipped) */
    if (c->floor_top < c->floor_trail_cap) {
        c->floor_trail[c->floor_top].index = (uint32_t)s;
        c->floor_trail[c->floor_top++].old = c->floor[s];
        c->floor[s] = value;
    }
}

/* Set item u's min offset (and its key). */
static inline void ex_set_minoff(ex_ctx *c, uint32_t u, size_t minoff)
{
    c->minoff[u] = minoff;
    if (c->packed) {
        c->key[u] = ((uint64_t)minoff << KEY_RANK_BITS) | c->rank[u];
    }
}

/*
 * Place item u at offset o: update min offsets of its unplaced neighbours,
 * floors and totals of its sections, cut counts, and raise the floors of the
 * sections whose unplaced buffers all moved up. New zero-cut boundaries inside
 * [s_lo, s_hi) go to the cuts pool. Returns 0 if some section can no longer fit
 * within the capacity (the placement stays applied; the caller undoes it).
 */
static int ex_place(ex_ctx *c, uint32_t u, size_t o, size_t s_lo, size_t s_hi,
                    size_t *new_cuts)
{
    const ap_pl_problem *p = c->p;
    uint32_t b = c->item_buf[u];
    size_t top = o + c->size[u], e, s, lo = c->sections, hi = 0;
    int32_t raised = 0;
    ex_placement *rec = &c->placed[c->placed_top++];
    int ok = 1;

    rec->item = u;
    rec->minoff_mark = c->minoff_top;
    rec->floor_mark = c->floor_top;
    c->off[u] = o;
    *new_cuts = 0;
    for (s = c->sec_lo[u]; s < c->sec_hi[u]; ++s) {
        if (c->floor[s] < top) {
            push_floor(c, s, top);
        }
        c->sec_total[s] -= c->size[u];
        if (s > c->sec_lo[u] && --c->cut[s] == 0 && s > s_lo && s < s_hi) {
            c->cuts_pool[c->cuts_top + (*new_cuts)++] = s;
        }
        if (c->floor[s] > c->cap || c->sec_total[s] > c->cap - c->floor[s]) {
            ok = 0;
        }
    }
    for (e = p->adj_start[b]; e < p->adj_start[b + 1]; ++e) {
        uint32_t v = c->buf_item[p->adj[e]];
        if (c->off[v] == NONE) {
            size_t want = ap_pl_align_up_fast(top, c->align[v]);
            if (want > c->minoff[v]) {
                c->minoff_trail[c->minoff_top].index = v;
                c->minoff_trail[c->minoff_top++].old = c->minoff[v];
                ex_set_minoff(c, v, want);
                ++c->cover[c->sec_lo[v]];
                --c->cover[c->sec_hi[v]];
                lo = c->sec_lo[v] < lo ? c->sec_lo[v] : lo;
                hi = c->sec_hi[v] > hi ? c->sec_hi[v] : hi;
            }
        }
    }
    /* unallocated floor: a section's unplaced buffers start no lower than the
       smallest of their min offsets; only sections that hold a buffer whose min
       offset rose can change (the sweep also clears `cover`) */
    for (s = lo; s < hi; ++s) {
        size_t k, low = NONE;
        raised += c->cover[s];
        c->cover[s] = 0;
        if (raised == 0 || !ok || c->sec_total[s] == 0) {
            continue;
        }
        {
            uint32_t w = c->witness[s];
            if (w != UINT32_MAX && c->off[w] == NONE && c->minoff[w] <= c->floor[s]) {
                continue;
            }
        }
        for (k = c->sec_start[s]; k < c->sec_start[s + 1]; ++k) {
            uint32_t v = c->sec_items[k];
            if (c->off[v] == NONE && c->minoff[v] < low) {
                low = c->minoff[v];
                if (low <= c->floor[s]) {
                    c->witness[s] = v; /* the floor cannot rise: no need to look further */
                    break;
                }
            }
        }
        if (low != NONE && low > c->floor[s]) {
            push_floor(c, s, low);
            if (low > c->cap || c->sec_total[s] > c->cap - low) {
                ok = 0;
            }
        }
    }
    if (hi > lo) {
        c->cover[hi] = 0;
    }
    return ok;
}

/* Undo placements down to placement-stack height `mark`. */
static void ex_unwind(ex_ctx *c, size_t mark)
{
    while (c->placed_top > mark) {
        const ex_placement *rec = &c->placed[--c->placed_top];
        uint32_t u = rec->item;
        size_t s;
        while (c->minoff_top > rec->minoff_mark) {
            --c->minoff_top;
            ex_set_minoff(c, c->minoff_trail[c->minoff_top].index,
                          c->minoff_trail[c->minoff_top].old);
        }
        while (c->floor_top > rec->floor_mark) {
            --c->floor_top;
            c->floor[c->floor_trail[c->floor_top].index] = c->floor_trail[c->floor_top].old;
        }
        for (s = c->sec_lo[u]; s < c->sec_hi[u]; ++s) {
            c->sec_total[s] += c->size[u];
            if (s > c->sec_lo[u]) {
                ++c->cut[s];
            }
        }
        c->off[u] = NONE;
    }
}

/* Move items[pos] behind the `live` unplaced items; returns the new count. */
static size_t swap_out(uint32_t *items, size_t live, size_t pos)
{
    uint32_t t = items[pos];
    items[pos] = items[live - 1];
    items[live - 1] = t;
    return live - 1;
}

/* Undo the latest swap_out(items, live + 1, pos). */
static size_t unswap(uint32_t *items, size_t live, size_t pos)
{
    uint32_t t = items[pos];
    items[pos] = items[live];
    items[live] = t;
    return live + 1;
}

static size_t max_total(const ex_ctx *c, size_t s_lo, size_t s_hi)
{
    size_t s, best = 0;
    for (s = s_lo; s < s_hi; ++s) {
        if (c->sec_total[s] > best) {
            best = c->sec_total[s];
        }
    }
    return best;
}

static int ex_search(ex_ctx *c, uint32_t *items, size_t k, size_t s_lo, size_t s_hi,
                     int level);

/*
 * After a placement split the unplaced items of `items` at the boundaries
 * cuts[0 .. ncuts): search each part. FOUND leaves them placed.
 */
static int ex_split(ex_ctx *c, const uint32_t *items, size_t k, size_t s_lo, size_t s_hi,
                    const size_t *cuts, size_t ncuts, int level, int *split)
{
    size_t pool_mark = c->pool_top, g, i, groups = ncuts + 1, nonempty = 0;
    uint32_t *counts = c->pool + c->pool_top;
    uint32_t *lists = counts + groups;
    int r = EX_FOUND;
    *split = 0;
    if (groups + k > c->pool_cap - c->pool_top) {
        return EX_FOUND; /* no room: do not split (cannot happen, see ex_init) */
    }
    for (g = 0; g < groups; ++g) {
        counts[g] = 0;
    }
    for (i = 0; i < k; ++i) {
        uint32_t v = items[i];
        size_t lo = 0, hi = ncuts;
        if (c->off[v] != NONE) {
            continue;
        }
        while (lo < hi) { /* number of cuts <= sec_lo[v] */
            size_t mid = lo + (hi - lo) / 2;
            if (cuts[mid] <= c->sec_lo[v]) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if (counts[lo]++ == 0) {
            ++nonempty;
        }
    }
    if (nonempty < 2) {
        return EX_FOUND; /* nothing gained */
    }
    *split = 1;
    c->pool_top += groups + k;
    {
        /* per group, in the order the parent holds them (ties go by rank anyway) */
        size_t start = 0;
        for (g = 0; g < groups; ++g) {
            uint32_t n_g = counts[g];
            counts[g] = (uint32_t)start;
            start += n_g;
        }
        for (i = 0; i < k; ++i) {
            uint32_t v = items[i];
            size_t lo = 0, hi = ncuts;
            if (c->off[v] != NONE) {
                continue;
            }
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (cuts[mid] <= c->sec_lo[v]) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            lists[counts[lo]++] = v;
        }
        start = 0;
        for (g = 0; g < groups && r == EX_FOUND; ++g) {
            size_t end = counts[g];
            size_t g_lo = g == 0 ? s_lo : cuts[g - 1];
            size_t g_hi = g == ncuts ? s_hi : cuts[g];
            if (end > start) {
                r = ex_search(c, lists + start, end - start, g_lo, g_hi, level + 1);
            }
            start = end;
        }
    }
    c->pool_top = pool_mark;
    return r;
}

/* The next candidate of frame f among items[0 .. live): the smallest (min
   offset, rank) below the frame's min height, at or above (canon_off,
   canon_rank) when have_canon and above the last tried unless the frame is
   fresh. Its position into *pos; UINT32_MAX when there is none. */
static uint32_t ex_next(const ex_ctx *c, const uint32_t *items, size_t live, const ex_frame *f,
                        int have_canon, size_t canon_off, uint32_t canon_rank, size_t *pos)
{
    size_t i, best_off = NONE;
    uint32_t best = UINT32_MAX, best_rank = UINT32_MAX;
    for (i = 0; i < live; ++i) {
        uint32_t u = items[i];
        size_t mo = c->minoff[u];
        uint32_t r;
        if (mo >= f->min_height || mo > best_off) {
            continue;
        }
        r = c->rank[u];
        if (mo == best_off && r > best_rank) {
            continue;
        }
        if (have_canon && (mo < canon_off || (mo == canon_off && r < canon_rank))) {
            continue;
        }
        if (!f->fresh && (mo < f->tried_off || (mo == f->tried_off && r <= f->tried_rank))) {
            continue;
        }
        best_off = mo;
        best_rank = r;
        best = u;
        *pos = i;
    }
    return best;
}

/* ex_next with packed keys (c->packed): one compare per item. */
static uint32_t ex_next_packed(const ex_ctx *c, const uint32_t *items, size_t live,
                               const ex_frame *f, int have_canon, size_t canon_off,
                               uint32_t canon_rank, size_t *pos)
{
    uint64_t low = have_canon ? ((uint64_t)canon_off << KEY_RANK_BITS) | canon_rank : 0;
    uint64_t below = (uint64_t)f->min_height < ((uint64_t)1 << KEY_OFF_BITS)
                         ? (uint64_t)f->min_height << KEY_RANK_BITS
                         : UINT64_MAX;
    uint32_t best = UINT32_MAX;
    size_t i;
    if (!f->fresh) {
        uint64_t tried = (((uint64_t)f->tried_off << KEY_RANK_BITS) | f->tried_rank) + 1;
        low = tried > low ? tried : low;
    }
    for (i = 0; i < live; ++i) {
        uint64_t key = c->key[items[i]];
        if (key >= low && key < below) {
            below = key;
            best = items[i];
            *pos = i;
        }
    }
    return best;
}

/*
 * Search items[0 .. k) (all unplaced) within sections [s_lo, s_hi) for a
 * placement within c->cap. FOUND leaves them placed; INFEASIBLE leaves the
 * state as it found it; ABORTED leaves it dirty. The unplaced items are kept
 * at the front of `items` (a placed one is swapped behind them, and back on
 * undo), so each node scans only what is left.
 */
static int ex_search(ex_ctx *c, uint32_t *items, size_t k, size_t s_lo, size_t s_hi,
                     int level)
{
    ex_frame *stack = c->frames + c->frame_top;
    size_t frame_mark = c->frame_top, depth = 0, i, live = k;
    int result;

    c->frame_top += k + 1;
    stack[0].fresh = 1;
    stack[0].max_total = max_total(c, s_lo, s_hi);
    for (;;) {
        ex_frame *f = &stack[depth];
        size_t canon_off = 0, best_off, best_pos = 0, o, ncuts, bound;
        uint32_t canon_rank = 0, best;
        int have_canon = 0, ok;
        if (depth == k) {
            result = EX_FOUND;
            break;
        }
        if (f->fresh) {
            size_t mh = NONE;
            for (i = 0; i < live; ++i) {
                uint32_t u = items[i];
                if (c->minoff[u] + c->size[u] < mh) {
                    mh = c->minoff[u] + c->size[u];
                }
            }
            f->min_height = mh;
        }
        if (depth > 0) {
            uint32_t prev = c->placed[stack[depth - 1].mark].item;
            have_canon = 1;
            canon_off = c->off[prev];
            canon_rank = c->rank[prev];
        }
        /* the next candidate: the smallest (min offset, rank) above both the last
           placement (canonical order) and the last candidate tried at this node */
        best = c->packed ? ex_next_packed(c, items, live, f, have_canon, canon_off, canon_rank,
                                          &best_pos)
                         : ex_next(c, items, live, f, have_canon, canon_off, canon_rank,
                                   &best_pos);
        best_off = best != UINT32_MAX ? c->minoff[best] : NONE;
        if (best == UINT32_MAX) {
            if (depth == 0) {
                result = EX_INFEASIBLE;
                break;
            }
            --depth;
            ex_unwind(c, stack[depth].mark);
            live = unswap(items, live, stack[depth].pos);
            continue;
        }
        if (++c->nodes >= c->node_limit) {
            if (c->nodes >= c->step_cap) {
                c->timed_out = 1;
            }
            result = EX_ABORTED;
            break;
        }
        if ((c->nodes & 255u) == 0 && ap_pl_expired(c->p->control, c->deadline)) {
            c->timed_out = 1;
            result = EX_ABORTED;
            break;
        }
        o = best_off;
        f->fresh = 0;
        f->tried_off = o;
        f->tried_rank = c->rank[best];
        f->mark = c->placed_top;
        f->pos = best_pos;
        live = swap_out(items, live, best_pos);
        ok = ex_place(c, best, o, s_lo, s_hi, &ncuts);
        /* every unplaced buffer goes at >= o: o + the largest section total must fit.
           Totals only fall along a branch, so the parent's figure is an upper bound;
           recompute only when it is not good enough. */
        bound = f->max_total;
        if (ok && (o > c->cap || bound > c->cap - o)) {
            bound = max_total(c, s_lo, s_hi);
            ok = o <= c->cap && bound <= c->cap - o;
        }
        if (!ok) {
            ex_unwind(c, f->mark);
            live = unswap(items, live, f->pos);
            continue;
        }
        if (ncuts > 0 && level < MAX_LEVEL && depth + 1 < k) {
            int split, r;
            /* the parts use the frames above this depth, and their lists and cuts
               the pools above ours */
            c->frame_top = frame_mark + depth + 1;
            c->cuts_top += ncuts;
            r = ex_split(c, items, k, s_lo, s_hi, c->cuts_pool + c->cuts_top - ncuts, ncuts,
                         level, &split);
            c->cuts_top -= ncuts;
            c->frame_top = frame_mark + k + 1;
            if (split) {
                if (r == EX_FOUND) {
                    result = EX_FOUND;
                    break;
                }
                if (r == EX_ABORTED) {
                    result = EX_ABORTED;
                    break;
                }
                ex_unwind(c, f->mark); /* the parts and this placement */
                live = unswap(items, live, f->pos);
                continue;
            }
        }
        ++depth;
        stack[depth].fresh = 1;
        stack[depth].max_total = bound;
    }
    c->frame_top = frame_mark;
    return result;
}

/* 1 when the candidates' keys can be packed for a search within `cap`: every
   rank fits in KEY_RANK_BITS and every min offset stays below 2^KEY_OFF_BITS (a
   min offset is the aligned top of a placed item, placed no higher than cap plus
   one item, or a base). */
static int ex_packs(const ex_ctx *c, size_t cap)
{
    const uint64_t limit = (uint64_t)1 << (KEY_OFF_BITS - 2);
    size_t i, high = cap, grow = 0;
    if ((uint64_t)c->m >= ((uint64_t)1 << KEY_RANK_BITS)) {
        return 0;
    }
    for (i = 0; i < c->m; ++i) {
        size_t step = c->size[i] + c->align[i]; /* each below the checked total */
        grow = step > grow ? step : grow;
        if (c->base != NULL && c->base[c->item_buf[i]] > high) {
            high = c->base[c->item_buf[i]];
        }
    }
    return (uint64_t)high < limit && (uint64_t)grow < limit;
}

/* Decide whether all parts fit within `cap`; on success c->off holds the plan. */
static int ex_decide(ex_ctx *c, size_t cap)
{
    size_t part, i;
    c->cap = cap;
    c->packed = ex_packs(c, cap);
    for (i = 0; i < c->m; ++i) {
        c->off[i] = NONE;
        ex_set_minoff(c, (uint32_t)i, c->base != NULL ? c->base[c->item_buf[i]] : 0);
    }
    for (i = 0; i < c->sections; ++i) {
        size_t low = c->base != NULL ? NONE : 0, k;
        if (c->base != NULL) {
            /* the buffers of the section start no lower than their smallest base */
            for (k = c->sec_start[i]; k < c->sec_start[i + 1]; ++k) {
                if (c->minoff[c->sec_items[k]] < low) {
                    low = c->minoff[c->sec_items[k]];
                }
            }
            if (low == NONE) {
                low = 0;
            }
        }
        c->floor[i] = low;
        c->witness[i] = UINT32_MAX;
        c->sec_total[i] = c->sec_total0[i];
        c->cut[i] = c->cut0[i];
        if (low > cap || c->sec_total[i] > cap - low) {
            return EX_INFEASIBLE;
        }
    }
    c->minoff_top = c->floor_top = c->placed_top = 0;
    c->frame_top = c->pool_top = c->cuts_top = 0;
    for (part = 0; part < c->parts; ++part) {
        size_t k = c->part_item[part + 1] - c->part_item[part];
        int r;
        if (k == 0) {
            continue;
        }
        r = ex_search(c, c->pre + c->part_item[part], k, c->part_sec[part],
                      c->part_sec[part + 1], 0);
        if (r != EX_FOUND) {
            return r;
        }
    }
    return EX_FOUND;
}

static size_t ex_store(const ex_ctx *c, size_t *offsets)
{
    size_t i, arena = 0;
    for (i = 0; i < c->p->n; ++i) {
        offsets[i] = 0;
    }
    for (i = 0; i < c->m; ++i) {
        size_t end = c->off[i] + c->size[i];
        offsets[c->item_buf[i]] = c->off[i];
        if (end > arena) {
            arena = end;
        }
    }
    return arena;
}

/* A capacity between lo and best (multiples of the granule g), at or below
   the midpoint. */
static size_t ex_midpoint(size_t lo, size_t best, size_t g)
{
    size_t steps = (best - lo) / g;
    return lo + (steps / 2) * g;
}

/* The fixed preorders of MiniMalloc, then noisy widths: search trees for hard
   instances have heavy tails, and restarts under varied orders with a growing
   node limit (Luby's sequence) beat one long run. */
static const char *const heuristics[] = {"WAT", "TAW", "TWA"};
enum { HEURISTICS = 3 };

static void ex_attempt_order(ex_ctx *c, uint64_t attempt, ap_pl_rng *rng, uint32_t *tmp)
{
    size_t i;
    if (attempt < HEURISTICS) {
        ex_preorder(c, heuristics[attempt], tmp);
        return;
    }
    for (i = 0; i < c->m; ++i) {
        c->noisy[i] = c->width[i] * (1.0 + 0.5 * ap_pl_rng_unit(rng));
    }
    ex_preorder(c, "NAT", tmp);
}

/* Luby's restart sequence 1 1 2 1 1 2 4 1 1 2 ... for i >= 1 */
static uint64_t luby(uint64_t i)
{
    uint64_t k = 1;
    for (;;) {
        uint64_t full = (UINT64_C(1) << k) - 1; /* length of the block ending in 2^(k-1) */
        if (i == full) {
            return UINT64_C(1) << (k - 1);
        }
        if (i < full) {
            return luby(i - ((UINT64_C(1) << (k - 1)) - 1));
        }
        if (++k >= 63) {
            return UINT64_C(1) << 62;
        }
    }
}

/* Node limit of the next attempt: `nodes` more, within the step cap. */
static uint64_t attempt_limit(const ex_ctx *c, uint64_t nodes)
{
    uint64_t left = c->step_cap - c->nodes;
    return c->nodes + (nodes < left ? nodes : left);
}

ap_status ap_pl_exact(const ap_pl_problem *p, size_t *offsets, size_t *arena,
                      ap_pl_search *search)
{
    ex_ctx c;
    uint32_t *tmp;
    size_t g = p->granule;
    size_t lo, best = *arena;
    uint64_t base, attempt;
    ap_pl_rng rng;
    ap_status st;

    search->proven = 0;
    search->infeasible = 0;
    search->improved = 0;
    lo = ((p->lower_bound + g - 1) / g) * g; /* arenas are multiples of g */
    if (lo >= best && search->capacity == 0) {
        search->proven = 1;
        return AP_OK;
    }
    if (search->capacity > 0) {
        if (best <= search->capacity) {
            return AP_OK;
        }
        if (lo > search->capacity) {
            search->infeasible = 1;
            return AP_OK;
        }
    }
    st = ex_init(&c, p);
    if (st != AP_OK) {
        return st;
    }
    tmp = (uint32_t *)ap_pl_alloc(c.m, sizeof(uint32_t));
    if (tmp == NULL) {
        ex_free(&c);
        return AP_ERR_OUT_OF_MEMORY;
    }
    c.deadline = search->deadline;
    c.step_cap = search->max_steps > 0 ? search->max_steps : UINT64_MAX;
    c.base = search->base;
    base = 2u * (uint64_t)c.m + 256u;
    ap_pl_rng_seed(&rng, search->seed);

    if (search->capacity > 0) {
        /* decision only: is there a plan within the capacity? */
        size_t cap = (search->capacity / g) * g;
        for (attempt = 0; !c.timed_out; ++attempt) {
            int r;
            ex_attempt_order(&c, attempt, &rng, tmp);
            c.node_limit = attempt_limit(&c, base * luby(attempt + 1));
            r = ex_decide(&c, cap);
            if (r == EX_FOUND) {
                *arena = ex_store(&c, offsets);
                search->improved = 1;
                break;
            }
            if (r == EX_INFEASIBLE) {
                search->infeasible = 1;
                break;
            }
        }
    } else {
        /* Minimise: lo is a proven lower bound, best a known arena. Attempts
           cycle through three targets: the bound itself (for network graphs it is
           usually reachable, and then this is the proof of optimality), the
           midpoint between bound and best, and a small step below the best (with
           slack the search finds plans easily, so this one keeps improving when
           the others stall). */
        for (attempt = 0; lo < best && !c.timed_out; ++attempt) {
            size_t cap;
            int r;
            switch (attempt % 3) {
            case 0: cap = lo; break;
            case 1: cap = ex_midpoint(lo, best, g); break;
            default: {
                size_t step = ((best - lo) / 8 / g) * g;
                cap = best - (step > g ? step : g);
                break;
            }
            }
            ex_attempt_order(&c, attempt / 3, &rng, tmp);
            c.node_limit = attempt_limit(&c, base * luby(attempt / 3 + 1));
            r = ex_decide(&c, cap);
            if (r == EX_FOUND) {
                best = ex_store(&c, offsets);
                search->improved = 1;
            } else if (r == EX_INFEASIBLE) {
                lo = cap + g;
            }
        }
        if (lo >= best) {
            search->proven = 1;
        }
        *arena = best;
    }
    search->steps += c.nodes;
    free(tmp);
    ex_free(&c);
    return AP_OK;
}

size_t ap_pl_exact_bytes(const ap_pl_problem *p)
{
    /* An upper estimate of ex_init's allocations. An item's sections are bounded
       by the events inside its lifetime, each a conflicting buffer's start or end,
       so span_sum <= 2E + m; sections <= 2m. Trails: 2E min-offset entries and a
       floor trail capped at 4 span_sum + 2^20; split pools (MAX_LEVEL + 1) x
       (items + sections); some 160 bytes of per-item arrays. Doubles: the sum
       may exceed size_t, which then reads as "too much". */
    double m = (double)p->nonempty, e = (double)p->edge_count;
    double span = 2.0 * e + m, sections = 2.0 * m;
    double bytes = (double)sizeof(ex_change) * (2.0 * e + 1.0 + 4.0 * span + 1048576.0) +
                   (double)sizeof(uint32_t) * span +
                   (double)(MAX_LEVEL + 1) * ((double)sizeof(uint32_t) * (m + sections + 2.0) +
                                              (double)sizeof(size_t) * (sections + 1.0)) +
                   160.0 * m + (double)sizeof(ex_frame) * (m + MAX_LEVEL + 2.0);
    return bytes >= (double)SIZE_MAX ? SIZE_MAX : (size_t)bytes;
}
