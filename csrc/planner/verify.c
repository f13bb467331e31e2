/*
 * ap_plan_verify: an independent check of any plan.
 *
 * Deliberately shares nothing with the planners but validation and sorting:
 * a sweep over buffers in order of their first op keeps the buffers still live;
 * each arriving buffer is compared with every live one, so each pair of buffers
 * with intersecting lifetimes is compared exactly once: O(n log n + E).
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

ap_status ap_plan_verify(const ap_buffer *buffers, size_t count, const size_t *offsets,
                         const ap_overlap *overlaps, size_t overlap_count, size_t capacity,
                         size_t *arena_bytes_out, ap_error *error_out)
{
    ap_status st;
    ap_pl_keyed *records = NULL, *by_first = NULL, *tmp = NULL;
    uint32_t *active = NULL;
    size_t *ends = NULL;
    size_t i, m = 0, live = 0, arena = 0, scratch;

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
    active = (uint32_t *)ap_pl_alloc(count, sizeof(uint32_t));
    if (records == NULL || tmp == NULL || by_first == NULL || active == NULL) {
        goto oom;
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
            ++m;
        }
    }
    ap_pl_sort_keyed(by_first, m, tmp);

    for (i = 0; i < m; ++i) {
        uint32_t b = by_first[i].index;
        size_t a, kept = 0;
        for (a = 0; a < live; ++a) {
            uint32_t j = active[a];
            if (buffers[j].last < buffers[b].first) {
                continue; /* retired */
            }
            active[kept++] = j;
            if (offsets[j] < ends[b] && offsets[b] < ends[j] &&
                !sharing_allowed(records, overlap_count, overlaps, offsets, j, b)) {
                uint32_t lo = j < b ? j : b, hi = j < b ? b : j;
                size_t from = offsets[j] > offsets[b] ? offsets[j] : offsets[b];
                size_t to = ends[j] < ends[b] ? ends[j] : ends[b];
                st = ap_pl_fail(error_out, AP_ERR_INVALID_PLAN, AP_SUBJECT_BUFFER, (int64_t)lo,
                                "buffers %" PRIu32 " and %" PRIu32
                                " share bytes [%zu, %zu) while both live at op %" PRId32,
                                lo, hi, from, to, buffers[b].first);
                if (error_out != NULL) {
                    error_out->other = hi;
                    error_out->op = buffers[b].first;
                }
                goto done;
            }
        }
        live = kept;
        active[live++] = b;
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
    free(tmp);
    free(active);
    free(ends);
    return st;
}
