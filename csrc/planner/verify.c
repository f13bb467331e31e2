/*
 * ap_plan_verify: an independent check of any plan.
 *
 * Deliberately shares nothing with the planners but validation and sorting:
 * a sweep over buffers in order of their first op keeps the live buffers in a
 * max-tree over address order (each leaf the end of a live buffer, 0 when it is
 * not live); an arriving buffer asks the tree for the live buffers that start
 * below its end and end above its start, which are exactly those it overlaps.
 * Each is a conflict unless an overlap record lets the pair share, so the work
 * is O((n + k) log n) for n buffers and k overlapping pairs that may share --
 * never proportional to the pairs merely live at once (a million buffers live
 * together verify in about a second).
 */
#include "planner_internal.h"

#include <inttypes.h>
#include <stdlib.h>

/* Key of an unordered pair, used to find the overlap records of a pair. */
static uint64_t pair_key(uint32_t a, uint32_t b)
{
    return a < b ? ((uint64_t)a << 32) | b : ((uint64_t)b << 32) | a;
}

/* Is sharing bytes between buffers a and b allowed by some overlap record? */
static int sharing_allowed(const ap_pl_keyed *records, size_t count, const ap_overlap *overlaps,
                           const size_t *offsets, uint32_t a, uint32_t b)
{
    uint64_t key = pair_key(a, b);
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (records[mid].key < key) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (; lo < count && records[lo].key == key; ++lo) {
        const ap_overlap *o = &overlaps[records[lo].index];
        size_t lead_end;
        if (o->kind == AP_OVERLAP_ALIAS) {
            return 1;
        }
        /* LEAD: the output may trail its input by at least min_lead bytes */
        if (ap_pl_add(offsets[o->output], o->min_lead, &lead_end) &&
            offsets[o->input] >= lead_end) {
            return 1;
        }
    }
    return 0;
}

/* The max-tree: `leaves` (a power of two) leaves in address order, node 1 the root. */
typedef struct ends_tree {
    size_t *max;        /* 2 * leaves: max[leaves + p] is leaf p */
    size_t leaves;
} ends_tree;

static void tree_set(ends_tree *t, size_t p, size_t end)
{
    p += t->leaves;
    t->max[p] = end;
    for (p >>= 1; p >= 1; p >>= 1) {
        size_t l = t->max[2 * p], r = t->max[2 * p + 1];
        t->max[p] = l > r ? l : r;
    }
}

/* What find_overlap needs besides the tree. */
typedef struct overlap_query {
    const ap_pl_keyed *by_offset;   /* position -> buffer */
    const ap_pl_keyed *records;
    size_t record_count;
    const ap_overlap *overlaps;
    const size_t *offsets;
    uint32_t arriving;
    size_t limit;                   /* positions below it start before the arriving buffer ends */
    size_t start;                   /* the arriving buffer's offset */
} overlap_query;

/* A live buffer at a position in [lo, hi) under `node` that overlaps the arriving one and
   may not share with it: 1 and its index in *other_out, else 0. Descends only into
   subtrees holding an end above the arriving start, so each visited leaf overlaps. */
static int find_overlap(const ends_tree *t, const overlap_query *q, size_t node, size_t lo, size_t hi,
                        uint32_t *other_out)
{
    if (lo >= q->limit || t->max[node] <= q->start) {
        return 0;
    }
    if (hi - lo == 1) {
        uint32_t j = q->by_offset[lo].index;
        if (!sharing_allowed(q->records, q->record_count, q->overlaps, q->offsets, j, q->arriving)) {
            *other_out = j;
            return 1;
        }
        return 0;
    }
    size_t mid = lo + (hi - lo) / 2;
    return find_overlap(t, q, 2 * node, lo, mid, other_out) ||
           find_overlap(t, q, 2 * node + 1, mid, hi, other_out);
}

ap_status ap_plan_verify(const ap_buffer *buffers, size_t count, const size_t *offsets,
                         const ap_overlap *overlaps, size_t overlap_count, size_t capacity,
                         size_t *arena_bytes_out, ap_error *error_out)
{
    ap_status st;
    ap_pl_keyed *records = NULL, *by_first = NULL, *by_last = NULL, *by_offset = NULL, *tmp = NULL;
    uint32_t *position = NULL;
    size_t *ends = NULL;
    ends_tree tree = {NULL, 1};
    size_t i, m = 0, retired = 0, arena = 0, scratch;

    ap_error_clear(error_out);
    st = ap_pl_check(buffers, count, NULL, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (count > 0 && offsets == NULL) {
        return ap_pl_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1,
                          "offsets is NULL but count is %zu", count);
    }
    if (overlap_count > 0 && overlaps == NULL) {
        return ap_pl_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1,
                          "overlaps is NULL but overlap_count is %zu", overlap_count);
    }
    if (count > UINT32_MAX || overlap_count > UINT32_MAX) {
        return ap_pl_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1,
                          "more than %" PRIu32 " buffers or overlap records", UINT32_MAX);
    }
    for (i = 0; i < overlap_count; ++i) {
        const ap_overlap *o = &overlaps[i];
        if (o->input >= count || o->output >= count) {
            return ap_pl_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT,
                              (int64_t)i,
                              "overlap %zu: buffer index %" PRIu32 " out of range (%zu buffers)",
                              i, o->input >= count ? o->input : o->output, count);
        }
        if (o->kind != AP_OVERLAP_ALIAS && o->kind != AP_OVERLAP_LEAD) {
            return ap_pl_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT,
                              (int64_t)i, "overlap %zu: unknown kind %d", i, (int)o->kind);
        }
    }

    /* per buffer: alignment, extent, capacity */
    ends = (size_t *)ap_pl_alloc(count, sizeof(size_t));
    if (ends == NULL) {
        goto oom;
    }
    for (i = 0; i < count; ++i) {
        size_t aligned = ap_pl_align_up_fast(buffers[i].size, buffers[i].alignment);
        if (offsets[i] % buffers[i].alignment != 0) {
            st = ap_pl_fail(error_out, AP_ERR_INVALID_PLAN, AP_SUBJECT_BUFFER, (int64_t)i,
                            "buffer %zu: offset %zu is not a multiple of its alignment %zu", i,
                            offsets[i], buffers[i].alignment);
            goto done;
        }
        if (!ap_pl_add(offsets[i], aligned, &ends[i])) {
            st = ap_pl_fail(error_out, AP_ERR_OVERFLOW, AP_SUBJECT_BUFFER, (int64_t)i,
                            "buffer %zu: offset %zu + size %zu overflows size_t", i, offsets[i],
                            aligned);
            goto done;
        }
        if (capacity > 0 && ends[i] > capacity) {
            st = ap_pl_fail(error_out, AP_ERR_INVALID_PLAN, AP_SUBJECT_BUFFER, (int64_t)i,
                            "buffer %zu: ends at byte %zu, beyond the capacity of %zu bytes", i,
                            ends[i], capacity);
            if (error_out != NULL) {
                error_out->needed = ends[i];
                error_out->available = capacity;
                error_out->op = buffers[i].first;
            }
            goto done;
        }
        if (ends[i] > arena) {
            arena = ends[i];
        }
    }

    records = (ap_pl_keyed *)ap_pl_alloc(overlap_count, sizeof(ap_pl_keyed));
    scratch = count > overlap_count ? count : overlap_count;
    tmp = (ap_pl_keyed *)ap_pl_alloc(scratch, sizeof(ap_pl_keyed));
    by_first = (ap_pl_keyed *)ap_pl_alloc(count, sizeof(ap_pl_keyed));
    by_last = (ap_pl_keyed *)ap_pl_alloc(count, sizeof(ap_pl_keyed));
    by_offset = (ap_pl_keyed *)ap_pl_alloc(count, sizeof(ap_pl_keyed));
    position = (uint32_t *)ap_pl_alloc(count, sizeof(uint32_t));
    while (tree.leaves < count) {   /* count <= UINT32_MAX: no overflow */
        tree.leaves *= 2;
    }
    tree.max = (size_t *)ap_pl_alloc(2 * tree.leaves, sizeof(size_t));
    if (records == NULL || tmp == NULL || by_first == NULL || by_last == NULL || by_offset == NULL ||
        position == NULL || tree.max == NULL) {
        goto oom;
    }
    for (i = 0; i < 2 * tree.leaves; ++i) {
        tree.max[i] = 0;
    }
    for (i = 0; i < overlap_count; ++i) {
        records[i].key = pair_key(overlaps[i].input, overlaps[i].output);
        records[i].index = (uint32_t)i;
    }
    ap_pl_sort_keyed(records, overlap_count, tmp);
    for (i = 0; i < count; ++i) {
        if (buffers[i].size > 0) { /* zero-size buffers never conflict */
            by_first[m].key = (uint64_t)buffers[i].first;
            by_first[m].index = (uint32_t)i;
            by_last[m].key = (uint64_t)buffers[i].last;
            by_last[m].index = (uint32_t)i;
            by_offset[m].key = (uint64_t)offsets[i];
            by_offset[m].index = (uint32_t)i;
            ++m;
        }
    }
    ap_pl_sort_keyed(by_first, m, tmp);
    ap_pl_sort_keyed(by_last, m, tmp);
    ap_pl_sort_keyed(by_offset, m, tmp);
    for (i = 0; i < m; ++i) {
        position[by_offset[i].index] = (uint32_t)i;
    }

    for (i = 0; i < m; ++i) {
        uint32_t b = by_first[i].index, other = 0;
        overlap_query q;
        size_t lo = 0, hi = m;
        /* retire the buffers whose last op is before this one's first (all arrived earlier) */
        while (retired < m && buffers[by_last[retired].index].last < buffers[b].first) {
            tree_set(&tree, position[by_last[retired].index], 0);
            ++retired;
        }
        while (lo < hi) {   /* the first position that starts at or after this buffer's end */
            size_t mid = lo + (hi - lo) / 2;
            if (by_offset[mid].key < (uint64_t)ends[b]) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        q.by_offset = by_offset;
        q.records = records;
        q.record_count = overlap_count;
        q.overlaps = overlaps;
        q.offsets = offsets;
        q.arriving = b;
        q.limit = lo;
        q.start = offsets[b];
        if (find_overlap(&tree, &q, 1, 0, tree.leaves, &other)) {
            uint32_t j = other, lo_b = j < b ? j : b, hi_b = j < b ? b : j;
            size_t from = offsets[j] > offsets[b] ? offsets[j] : offsets[b];
            size_t to = ends[j] < ends[b] ? ends[j] : ends[b];
            st = ap_pl_fail(error_out, AP_ERR_INVALID_PLAN, AP_SUBJECT_BUFFER, (int64_t)lo_b,
                            "buffers %" PRIu32 " and %" PRIu32
                            " share bytes [%zu, %zu) while both live at op %" PRId32,
                            lo_b, hi_b, from, to, buffers[b].first);
            if (error_out != NULL) {
                error_out->other = hi_b;
                error_out->op = buffers[b].first;
            }
            goto done;
        }
        tree_set(&tree, position[b], ends[b]);
    }
    if (arena_bytes_out != NULL) {
        *arena_bytes_out = arena;
    }
    st = AP_OK;
    goto done;

oom:
    st = ap_pl_fail(error_out, AP_ERR_OUT_OF_MEMORY, AP_SUBJECT_NONE, -1,
                    "out of memory verifying a plan of %zu buffers", count);
done:
    free(records);
    free(by_first);
    free(by_last);
    free(by_offset);
    free(position);
    free(tree.max);
    free(tmp);
    free(ends);
    return st;
}
