/*
 * Helpers shared by every planning strategy: error records, validation, the
 * live-bytes lower bound, the conflict graph, sorting, first/best-fit placement,
 * a clock and a PRNG.
 */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 199309L /* clock_gettime; the rest is plain C99 */
#endif

#include "planner_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

ap_status ap_pl_fail(ap_error *error, ap_status status, ap_subject subject, int64_t index,
                     const char *format, ...)
{
    va_list args;
    if (error == NULL) {
        return status;
    }
    ap_error_clear(error);
    error->status = status;
    error->subject = subject;
    error->index = index;
    va_start(args, format);
    vsnprintf(error->message, sizeof(error->message), format, args);
    va_end(args);
    return status;
}

void *ap_pl_alloc(size_t count, size_t size)
{
    size_t bytes;
    if (!ap_pl_mul(count, size, &bytes)) {
        return NULL;
    }
    /* malloc(0) may return NULL; callers treat NULL as failure, so ask for one byte */
    return malloc(bytes == 0 ? 1 : bytes);
}

void *ap_pl_zalloc(size_t count, size_t size)
{
    if (count == 0 || size == 0) {
        return calloc(1, 1);
    }
    if (size > SIZE_MAX / count) {
        return NULL;
    }
    return calloc(count, size);
}

/* ---- validation ----------------------------------------------------------- */

ap_status ap_pl_check(const ap_buffer *buffers, size_t count, size_t *total_out,
                      ap_error *error)
{
    size_t total = 0;
    size_t i;
    if (count > 0 && buffers == NULL) {
        return ap_pl_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1,
                          "buffers is NULL but count is %zu", count);
    }
    for (i = 0; i < count; ++i) {
        const ap_buffer *b = &buffers[i];
        size_t aligned;
        if (b->alignment == 0 || (b->alignment & (b->alignment - 1)) != 0) {
            return ap_pl_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_BUFFER, (int64_t)i,
                              "buffer %zu: alignment %zu is not a power of two", i,
                              b->alignment);
        }
        if (b->first < 0) {
            return ap_pl_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_BUFFER, (int64_t)i,
                              "buffer %zu: first op %" PRId32 " < 0", i, b->first);
        }
        if (b->first > b->last) {
            return ap_pl_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_BUFFER, (int64_t)i,
                              "buffer %zu: first op %" PRId32 " > last op %" PRId32, i,
                              b->first, b->last);
        }
        if (!ap_pl_align_up(b->size, b->alignment, &aligned)) {
            return ap_pl_fail(error, AP_ERR_OVERFLOW, AP_SUBJECT_BUFFER, (int64_t)i,
                              "buffer %zu: size %zu rounded up to alignment %zu overflows size_t",
                              i, b->size, b->alignment);
        }
        if (!ap_pl_add(total, aligned, &total)) {
            return ap_pl_fail(error, AP_ERR_OVERFLOW, AP_SUBJECT_BUFFER, (int64_t)i,
                              "buffer %zu: sum of aligned sizes up to it overflows size_t", i);
        }
    }
    if (total_out != NULL) {
        *total_out = total;
    }
    return AP_OK;
}

ap_status ap_buffers_check(const ap_buffer *buffers, size_t count, ap_error *error_out)
{
    ap_error_clear(error_out);
    return ap_pl_check(buffers, count, NULL, error_out);
}

/* ---- sorting ---------------------------------------------------------------- */

/* Stable counting sort when the keys span a small range (op indices, sizes of one
   order of magnitude): O(n + range), the same order as the merge sort's. Returns 0
   (nothing done) when the range is too wide or its counts cannot be allocated. */
static int sort_keyed_counting(ap_pl_keyed *items, size_t n, ap_pl_keyed *tmp)
{
    uint64_t lo = UINT64_MAX, hi = 0, range;
    size_t i, *count, sum = 0;
    for (i = 0; i < n; ++i) {
        lo = items[i].key < lo ? items[i].key : lo;
        hi = items[i].key > hi ? items[i].key : hi;
    }
    range = hi - lo;
    if (range >= 2 * (uint64_t)n + 65536u) {
        return 0;
    }
    count = (size_t *)ap_pl_zalloc((size_t)range + 1, sizeof(size_t));
    if (count == NULL) {
        return 0;
    }
    for (i = 0; i < n; ++i) {
        ++count[items[i].key - lo];
    }
    for (i = 0; i <= (size_t)range; ++i) {
        size_t c = count[i];
        count[i] = sum;
        sum += c;
    }
    for (i = 0; i < n; ++i) {
        tmp[count[items[i].key - lo]++] = items[i];
    }
    memcpy(items, tmp, n * sizeof(*items));
    free(count);
    return 1;
}

void ap_pl_sort_keyed(ap_pl_keyed *items, size_t n, ap_pl_keyed *tmp)
{
    /* bottom-up merge sort: stable, O(n log n), no recursion */
    size_t width;
    ap_pl_keyed *src = items;
    ap_pl_keyed *dst = tmp;
    if (n >= 4096 && sort_keyed_counting(items, n, tmp)) {
        return;
    }
    for (width = 1; width < n; width *= 2) {
        size_t lo;
        for (lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi) {
                dst[k++] = (src[b].key < src[a].key) ? src[b++] : src[a++];
            }
            while (a < mid) {
                dst[k++] = src[a++];
            }
            while (b < hi) {
                dst[k++] = src[b++];
            }
        }
        {
            ap_pl_keyed *swap = src;
            src = dst;
            dst = swap;
        }
    }
    if (src != items) {
        memcpy(items, src, n * sizeof(*items));
    }
}

void ap_pl_sort_indices(uint32_t *items, size_t n, uint32_t *tmp, ap_pl_before_fn before,
                        const void *context)
{
    size_t width;
    uint32_t *src = items;
    uint32_t *dst = tmp;
    for (width = 1; width < n; width *= 2) {
        size_t lo;
        for (lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi) {
                dst[k++] = before(context, src[b], src[a]) ? src[b++] : src[a++];
            }
            while (a < mid) {
                dst[k++] = src[a++];
            }
            while (b < hi) {
                dst[k++] = src[b++];
            }
        }
        {
            uint32_t *swap = src;
            src = dst;
            dst = swap;
        }
    }
    if (src != items) {
        memcpy(items, src, n * sizeof(*items));
    }
}

/* Spans by begin. Neighbour lists are short (a few buffers live at once in a
   network), so insertion sort wins there; heap sort keeps the worst case
   O(k log k) without extra memory. */
static void sort_spans(ap_pl_span *s, size_t k)
{
    size_t i;
    if (k <= 24) {
        for (i = 1; i < k; ++i) {
            ap_pl_span v = s[i];
            size_t j = i;
            while (j > 0 && s[j - 1].begin > v.begin) {
                s[j] = s[j - 1];
                --j;
            }
            s[j] = v;
        }
        return;
    }
    {
        size_t start = k / 2;
        size_t end = k;
        while (end > 1) {
            size_t root, child;
            ap_pl_span v;
            if (start > 0) {
                --start;
                root = start;
            } else {
                --end;
                v = s[end];
                s[end] = s[0];
                s[0] = v;
                root = 0;
            }
            v = s[root];
            while ((child = 2 * root + 1) < end) {
                if (child + 1 < end && s[child + 1].begin > s[child].begin) {
                    ++child;
                }
                if (s[child].begin <= v.begin) {
                    break;
                }
                s[root] = s[child];
                root = child;
            }
            s[root] = v;
        }
    }
}

/* ---- lower bound ------------------------------------------------------------- */

/* Ops span [0, ap_pl_op_span) when that is small enough (at most 2 count + 65536
   values) for per-op tables; 0 otherwise. */
static size_t op_span(const ap_buffer *buffers, size_t count)
{
    size_t i, limit = 2 * count + 65536u;
    uint64_t top = 0;
    for (i = 0; i < count; ++i) {
        top = (uint64_t)buffers[i].last > top ? (uint64_t)buffers[i].last : top;
    }
    /* ops 0..top and the removal at top + 1 */
    return top + 2 <= limit ? (size_t)top + 2 : 0;
}

/* ap_pl_lower_bound over per-op tables of bytes added and removed, O(n + ops) without
   sorting: the live bytes after every op, in op order, are those after every event
   time (between events they do not change). 0 when the tables cannot be allocated. */
static int lower_bound_by_op(const ap_buffer *buffers, size_t count, size_t span,
                             size_t *bytes_out, int *flat_out)
{
    size_t *added = (size_t *)ap_pl_zalloc(span, sizeof(size_t));
    size_t *removed = (size_t *)ap_pl_zalloc(span, sizeof(size_t));
    size_t i, t, live = 0, best = 0, least = SIZE_MAX;
    uint64_t tmin = UINT64_MAX, tmax = 0;
    if (added == NULL || removed == NULL) {
        free(added);
        free(removed);
        return 0;
    }
    for (i = 0; i < count; ++i) {
        size_t size = ap_pl_align_up_fast(buffers[i].size, buffers[i].alignment);
        if (size > 0) {
            tmin = (uint64_t)buffers[i].first < tmin ? (uint64_t)buffers[i].first : tmin;
            tmax = (uint64_t)buffers[i].last > tmax ? (uint64_t)buffers[i].last : tmax;
        }
        added[buffers[i].first] += size;
        removed[(size_t)buffers[i].last + 1] += size;
    }
    for (t = 0; t < span; ++t) {
        /* removals first so the sum never exceeds the total (known to fit) */
        live = live - removed[t] + added[t];
        best = live > best ? live : best;
        if (t >= tmin && t <= tmax && live < least) {
            least = live;
        }
    }
    free(added);
    free(removed);
    *bytes_out = best;
    if (flat_out != NULL) {
        *flat_out = tmin != UINT64_MAX && least == best;
    }
    return 1;
}

ap_status ap_pl_lower_bound(const ap_buffer *buffers, size_t count, size_t *bytes_out,
                            int *flat_out)
{
    /* Sweep: +size at `first`, -size at `last + 1`; the live bytes at an op are the
       running sum after every event at that op. Keys put time in the high bits and
       "remove" before "add" is irrelevant since we sample after the whole op. */
    ap_pl_keyed *events, *tmp;
    size_t *sizes;
    size_t i, k = 0, live = 0, best = 0, least = SIZE_MAX;
    /* ops of the non-empty buffers: flat asks for the bound at each of them */
    uint64_t tmin = UINT64_MAX, tmax = 0;
    if (flat_out != NULL) {
        *flat_out = 0;
    }
    if (count == 0) {
        *bytes_out = 0;
        return AP_OK;
    }
    {
        size_t span = op_span(buffers, count);
        if (span > 0 && lower_bound_by_op(buffers, count, span, bytes_out, flat_out)) {
            return AP_OK;
        }
    }
    events = (ap_pl_keyed *)ap_pl_alloc(count, 2 * sizeof(ap_pl_keyed));
    tmp = (ap_pl_keyed *)ap_pl_alloc(count, 2 * sizeof(ap_pl_keyed));
    sizes = (size_t *)ap_pl_alloc(count, sizeof(size_t));
    if (events == NULL || tmp == NULL || sizes == NULL) {
        free(events);
        free(tmp);
        free(sizes);
        return AP_ERR_OUT_OF_MEMORY;
    }
    for (i = 0; i < count; ++i) {
        sizes[i] = ap_pl_align_up_fast(buffers[i].size, buffers[i].alignment);
        if (sizes[i] > 0) {
            if ((uint64_t)buffers[i].first < tmin) {
                tmin = (uint64_t)buffers[i].first;
            }
            if ((uint64_t)buffers[i].last > tmax) {
                tmax = (uint64_t)buffers[i].last;
            }
        }
        /* bit 0 of the key marks a removal; time first, so both sort together */
        events[k].key = ((uint64_t)buffers[i].first << 1) | 0u;
        events[k].index = (uint32_t)i;
        ++k;
        events[k].key = (((uint64_t)buffers[i].last + 1u) << 1) | 1u;
        events[k].index = (uint32_t)i;
        ++k;
    }
    ap_pl_sort_keyed(events, k, tmp);
    for (i = 0; i < k;) {
        uint64_t t = events[i].key >> 1;
        /* removals before additions within one time so the sum never exceeds the
           total (which is known to fit) */
        size_t j = i;
        while (j < k && (events[j].key >> 1) == t) {
            ++j;
        }
        {
            size_t e;
            for (e = i; e < j; ++e) {
                if (events[e].key & 1u) {
                    live -= sizes[events[e].index];
                }
            }
            for (e = i; e < j; ++e) {
                if (!(events[e].key & 1u)) {
                    live += sizes[events[e].index];
                }
            }
        }
        if (live > best) {
            best = live;
        }
        /* the live bytes hold from t to the next event time, so the least over
           event times within [tmin, tmax] is the least over those ops */
        if (t >= tmin && t <= tmax && live < least) {
            least = live;
        }
        i = j;
    }
    free(events);
    free(tmp);
    free(sizes);
    *bytes_out = best;
    if (flat_out != NULL) {
        *flat_out = tmin != UINT64_MAX && least == best;
    }
    return AP_OK;
}

ap_status ap_buffers_lower_bound(const ap_buffer *buffers, size_t count, size_t *bytes_out,
                                 ap_error *error_out)
{
    ap_status st;
    size_t bytes = 0;
    ap_error_clear(error_out);
    if (bytes_out == NULL) {
        return ap_pl_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1,
                          "bytes_out is NULL");
    }
    st = ap_pl_check(buffers, count, NULL, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (count > UINT32_MAX) {
        return ap_pl_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1,
                          "count %zu exceeds %" PRIu32 " buffers", count, UINT32_MAX);
    }
    st = ap_pl_lower_bound(buffers, count, &bytes, NULL);
    if (st != AP_OK) {
        return ap_pl_fail(error_out, st, AP_SUBJECT_NONE, -1,
                          "out of memory computing the lower bound of %zu buffers", count);
    }
    *bytes_out = bytes;
    return AP_OK;
}

ap_status ap_buffers_live_bytes(const ap_buffer *buffers, size_t count, size_t op_count,
                                size_t *bytes_out, ap_error *error_out)
{
    ap_status st;
    size_t i, k, live = 0;
    ap_error_clear(error_out);
    if (op_count > 0 && bytes_out == NULL) {
        return ap_pl_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1,
                          "bytes_out is NULL but op_count is %zu", op_count);
    }
    st = ap_pl_check(buffers, count, NULL, error_out);
    if (st != AP_OK) {
        return st;
    }
    for (i = 0; i < count; ++i) {
        if ((size_t)buffers[i].last >= op_count) {
            return ap_pl_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_BUFFER, (int64_t)i,
                              "buffer %zu lives to op %d, past the %zu ops asked for", i,
                              (int)buffers[i].last, op_count);
        }
    }
    /* A difference array in bytes_out itself: + at first, - after last (unsigned
       arithmetic wraps there, and the prefix sums come back exact: every partial sum of
       live bytes is at most the checked total). */
    for (k = 0; k < op_count; ++k) {
        bytes_out[k] = 0;
    }
    for (i = 0; i < count; ++i) {
        size_t a = ap_pl_align_up_fast(buffers[i].size, buffers[i].alignment);
        bytes_out[buffers[i].first] += a;
        if ((size_t)buffers[i].last + 1 < op_count) {
            bytes_out[buffers[i].last + 1] -= a;
        }
    }
    for (k = 0; k < op_count; ++k) {
        live += bytes_out[k];
        bytes_out[k] = live;
    }
    return AP_OK;
}

/* ---- the problem and its conflict graph -------------------------------------- */

/* One sweep over buffers sorted by first op; `active` holds the buffers still
   live. Each pair is met once, when the later-starting buffer arrives, so the
   sweep costs O(n log n + E). With adj == NULL it only counts degrees. Returns 0
   if it stopped at `deadline` or on cancellation (p->control), 1 when done. */
static int sweep_conflicts(const ap_pl_problem *p, const ap_pl_keyed *by_first, size_t m,
                           uint32_t *active, size_t *degree, size_t *cursor, uint32_t *adj,
                           double deadline)
{
    size_t k, live = 0;
    for (k = 0; k < m; ++k) {
        uint32_t i = by_first[k].index;
        int32_t first = p->buffers[i].first;
        size_t a, kept = 0;
        if (ap_pl_tick_until(p->control, live + 8, deadline)) {
            return 0;
        }
        for (a = 0; a < live; ++a) {
            uint32_t j = active[a];
            if (p->buffers[j].last >= first) {
                active[kept++] = j;
                if (adj == NULL) {
                    ++degree[i];
                    ++degree[j];
                } else {
                    adj[cursor[i]++] = j;
                    adj[cursor[j]++] = i;
                }
            }
        }
        live = kept;
        active[live++] = i;
    }
    return 1;
}

/* Number of pairs of non-empty buffers whose lifetimes intersect, without listing
   them: in order of first op, buffer k meets every earlier one except those whose
   last op is before its first (and all of those are earlier). O(n log n). */
static size_t count_conflicts(const ap_pl_problem *p, const ap_pl_keyed *by_first, size_t m,
                              ap_pl_keyed *by_last, ap_pl_keyed *tmp)
{
    size_t k, dead = 0, edges = 0;
    for (k = 0; k < m; ++k) {
        by_last[k].key = (uint64_t)p->buffers[by_first[k].index].last;
        by_last[k].index = by_first[k].index;
    }
    ap_pl_sort_keyed(by_last, m, tmp);
    for (k = 0; k < m; ++k) {
        uint64_t first = (uint64_t)p->buffers[by_first[k].index].first;
        while (dead < m && by_last[dead].key < first) {
            ++dead;
        }
        edges += k - dead; /* dead <= k: those buffers all start before this one */
    }
    return edges;
}

/* count_conflicts over per-op counts when ops span [0, span): every ordered pair
   minus, for each buffer, those that died before its first op. 0 when the counts
   cannot be allocated. */
static int count_conflicts_by_op(const ap_pl_problem *p, size_t span, size_t *edges_out)
{
    size_t *starts = (size_t *)ap_pl_zalloc(span, sizeof(size_t));
    size_t *ends = (size_t *)ap_pl_zalloc(span, sizeof(size_t));
    size_t i, t, dead = 0, m = 0, edges;
    if (starts == NULL || ends == NULL) {
        free(starts);
        free(ends);
        return 0;
    }
    for (i = 0; i < p->n; ++i) {
        if (p->size[i] > 0) {
            ++starts[p->buffers[i].first];
            ++ends[p->buffers[i].last];
            ++m;
        }
    }
    /* count_conflicts adds k - dead for the k-th buffer by first op: the k's sum to
       m (m - 1) / 2, and `dead` is the number of buffers whose last op is before its
       first (m < 2^32, so the products fit the 64 bits of size_t) */
    edges = m / 2 * (m - 1) + (m % 2) * ((m - 1) / 2);
    for (t = 0; t < span; ++t) {
        edges -= starts[t] * dead;
        dead += ends[t];
    }
    free(starts);
    free(ends);
    *edges_out = edges;
    return 1;
}

/* Validation, sizes, bounds and the edge count: everything but the graph. */
static ap_status problem_setup(ap_pl_problem *p, const ap_buffer *buffers, size_t count,
                               ap_error *error)
{
    ap_status st;
    ap_pl_keyed *by_first = NULL, *tmp = NULL, *by_last = NULL;
    size_t i, m = 0, span;

    memset(p, 0, sizeof(*p));
    st = ap_pl_check(buffers, count, &p->total, error);
    if (st != AP_OK) {
        return st;
    }
    if (count >= UINT32_MAX) {
        return ap_pl_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1,
                          "count %zu exceeds %" PRIu32 " buffers", count, UINT32_MAX - 1);
    }
    p->buffers = buffers;
    p->n = count;
    p->granule = 0;
    for (i = 0; i < count; ++i) {
        size_t padded;
        if (!ap_pl_add(p->padded_total, buffers[i].alignment - 1, &padded) ||
            !ap_pl_add(padded, ap_pl_align_up_fast(buffers[i].size, buffers[i].alignment),
                       &p->padded_total)) {
            return ap_pl_fail(error, AP_ERR_OVERFLOW, AP_SUBJECT_BUFFER, (int64_t)i,
                              "buffer %zu: sizes plus alignment padding overflow size_t", i);
        }
    }
    p->size = (size_t *)ap_pl_alloc(count, sizeof(size_t));
    if (p->size == NULL) {
        goto oom;
    }
    span = op_span(buffers, count);
    if (span > 0) {
        for (i = 0; i < count; ++i) {
            p->size[i] = ap_pl_align_up_fast(buffers[i].size, buffers[i].alignment);
            if (p->size[i] > 0) {
                ++m;
                if (p->granule == 0 || buffers[i].alignment < p->granule) {
                    p->granule = buffers[i].alignment;
                }
            }
        }
        p->granule = p->granule == 0 ? 1 : p->granule;
        p->nonempty = m;
        /* the per-op tables ap_pl_lower_bound would choose, without finding the span again */
        if (!lower_bound_by_op(buffers, count, span, &p->lower_bound, &p->flat) &&
            ap_pl_lower_bound(buffers, count, &p->lower_bound, &p->flat) != AP_OK) {
            goto oom;
        }
        if (count_conflicts_by_op(p, span, &p->edge_count)) {
            return AP_OK;
        }
        m = 0;
        p->granule = 0;
    }
    by_first = (ap_pl_keyed *)ap_pl_alloc(count, sizeof(ap_pl_keyed));
    tmp = (ap_pl_keyed *)ap_pl_alloc(count, sizeof(ap_pl_keyed));
    by_last = (ap_pl_keyed *)ap_pl_alloc(count, sizeof(ap_pl_keyed));
    if (p->size == NULL || by_first == NULL || tmp == NULL || by_last == NULL) {
        goto oom;
    }
    for (i = 0; i < count; ++i) {
        p->size[i] = ap_pl_align_up_fast(buffers[i].size, buffers[i].alignment);
        if (p->size[i] > 0) {
            by_first[m].key = (uint64_t)buffers[i].first;
            by_first[m].index = (uint32_t)i;
            ++m;
            if (p->granule == 0 || buffers[i].alignment < p->granule) {
                p->granule = buffers[i].alignment;
            }
        }
    }
    if (p->granule == 0) {
        p->granule = 1;
    }
    p->nonempty = m;
    if (ap_pl_lower_bound(buffers, count, &p->lower_bound, &p->flat) != AP_OK) {
        goto oom;
    }
    ap_pl_sort_keyed(by_first, m, tmp);
    p->edge_count = count_conflicts(p, by_first, m, by_last, tmp);
    free(by_first);
    free(tmp);
    free(by_last);
    return AP_OK;

oom:
    free(by_first);
    free(tmp);
    free(by_last);
    ap_pl_problem_free(p);
    return ap_pl_fail(error, AP_ERR_OUT_OF_MEMORY, AP_SUBJECT_NONE, -1,
                      "out of memory sizing the problem of %zu buffers", count);
}

size_t ap_pl_graph_bytes(const ap_pl_problem *p)
{
    /* adj_start, adj (two entries an edge), and the build's temporaries: by_first,
       its sort's scratch, active, degree and cursor */
    size_t directed, bytes, temps;
    if (!ap_pl_mul(p->edge_count, 2 * sizeof(uint32_t), &directed) ||
        !ap_pl_mul(p->n + 1, sizeof(size_t), &bytes) || !ap_pl_add(bytes, directed, &bytes) ||
        !ap_pl_mul(p->n, 2 * sizeof(ap_pl_keyed) + sizeof(uint32_t) + 2 * sizeof(size_t),
                   &temps) ||
        !ap_pl_add(bytes, temps, &bytes)) {
        return SIZE_MAX;
    }
    return bytes;
}

/* Measured on the 300,000-buffer problem of bench_deadlines (1.1e9 edges) and on
   smaller ones: building the graph takes about 2.5 ns an edge, one greedy pass
   about 40 ns an edge (its span sorts grow with the degree). Only the decision
   whether to try the graph at all rests on them; a phase still stops on the clock. */
#define GRAPH_S_PER_EDGE 2.5e-9
#define GREEDY_S_PER_EDGE 40e-9

double ap_pl_graph_cost_s(const ap_pl_problem *p)
{
    return GRAPH_S_PER_EDGE * ((double)p->edge_count + (double)p->n);
}

double ap_pl_greedy_cost_s(const ap_pl_problem *p)
{
    return GREEDY_S_PER_EDGE * ((double)p->edge_count + (double)p->n);
}

ap_status ap_pl_problem_graph(ap_pl_problem *p, double deadline)
{
    const ap_buffer *buffers = p->buffers;
    size_t count = p->n;
    ap_pl_keyed *by_first = NULL, *tmp = NULL;
    uint32_t *active = NULL;
    size_t *degree = NULL, *cursor = NULL;
    size_t i, m = 0, directed = 0;
    ap_status st = AP_OK;

    if (p->has_graph) {
        return AP_OK;
    }
    p->adj_start = (size_t *)ap_pl_zalloc(count + 1, sizeof(size_t));
    by_first = (ap_pl_keyed *)ap_pl_alloc(count, sizeof(ap_pl_keyed));
    tmp = (ap_pl_keyed *)ap_pl_alloc(count, sizeof(ap_pl_keyed));
    active = (uint32_t *)ap_pl_alloc(count, sizeof(uint32_t));
    degree = (size_t *)ap_pl_zalloc(count, sizeof(size_t));
    cursor = (size_t *)ap_pl_alloc(count, sizeof(size_t));
    if (p->adj_start == NULL || by_first == NULL || tmp == NULL || active == NULL ||
        degree == NULL || cursor == NULL) {
        st = AP_ERR_OUT_OF_MEMORY;
        goto out;
    }
    for (i = 0; i < count; ++i) {
        if (p->size[i] > 0) {
            by_first[m].key = (uint64_t)buffers[i].first;
            by_first[m].index = (uint32_t)i;
            ++m;
        }
    }
    ap_pl_sort_keyed(by_first, m, tmp);
    if (!sweep_conflicts(p, by_first, m, active, degree, NULL, NULL, deadline)) {
        st = AP_ERR_TIMEOUT;
        goto out;
    }
    p->max_degree = 0;
    for (i = 0; i < count; ++i) {
        p->adj_start[i] = directed;
        directed += degree[i]; /* <= n * (n - 1), far below SIZE_MAX for n < 2^32 on 64-bit */
        if (degree[i] > p->max_degree) {
            p->max_degree = degree[i];
        }
    }
    p->adj_start[count] = directed;
    p->edge_count = directed / 2;
    p->adj = (uint32_t *)ap_pl_alloc(directed, sizeof(uint32_t));
    if (p->adj == NULL) {
        st = AP_ERR_OUT_OF_MEMORY;
        goto out;
    }
    memcpy(cursor, p->adj_start, count * sizeof(size_t));
    if (!sweep_conflicts(p, by_first, m, active, degree, cursor, p->adj, deadline)) {
        st = AP_ERR_TIMEOUT;
        goto out;
    }
    p->has_graph = 1;
out:
    free(by_first);
    free(tmp);
    free(active);
    free(degree);
    free(cursor);
    if (st != AP_OK) {
        free(p->adj_start);
        free(p->adj);
        p->adj_start = NULL;
        p->adj = NULL;
        p->max_degree = 0;
    }
    return st;
}

ap_status ap_pl_problem_init_lazy(ap_pl_problem *p, const ap_buffer *buffers, size_t count,
                                  ap_pl_control *control, ap_error *error)
{
    ap_status st = problem_setup(p, buffers, count, error);
    if (st == AP_OK) {
        p->control = control;
    }
    return st;
}

ap_status ap_pl_problem_init(ap_pl_problem *p, const ap_buffer *buffers, size_t count,
                             ap_error *error)
{
    ap_status st = problem_setup(p, buffers, count, error);
    if (st != AP_OK) {
        return st;
    }
    /* no control yet, so no deadline: callers that share one set it afterwards */
    st = ap_pl_problem_graph(p, 1e300);
    if (st != AP_OK) {
        ap_pl_problem_free(p);
        return ap_pl_fail(error, AP_ERR_OUT_OF_MEMORY, AP_SUBJECT_NONE, -1,
                          "out of memory building the conflict graph of %zu buffers", count);
    }
    return AP_OK;
}

void ap_pl_problem_free(ap_pl_problem *p)
{
    free(p->size);
    free(p->adj_start);
    free(p->adj);
    p->size = NULL;
    p->adj_start = NULL;
    p->adj = NULL;
    p->has_graph = 0;
}

/* ---- placement ------------------------------------------------------------------ */

ap_status ap_pl_placer_init(ap_pl_placer *placer, const ap_pl_problem *problem)
{
    placer->spans = (ap_pl_span *)ap_pl_alloc(problem->max_degree, sizeof(ap_pl_span));
    placer->rank = (uint32_t *)ap_pl_alloc(problem->n, sizeof(uint32_t));
    if (placer->spans == NULL || placer->rank == NULL) {
        ap_pl_placer_free(placer);
        return AP_ERR_OUT_OF_MEMORY;
    }
    return AP_OK;
}

void ap_pl_placer_free(ap_pl_placer *placer)
{
    free(placer->spans);
    free(placer->rank);
    placer->spans = NULL;
    placer->rank = NULL;
}

/* Place buffer order[pos] against its conflicts earlier in the order (rank set);
   returns the spans gathered, as a measure of the work done. */
static size_t place_one(const ap_pl_problem *p, uint32_t i, size_t pos, ap_pl_fit fit,
                        ap_pl_placer *placer, size_t *offsets)
{
    const uint32_t *rank = placer->rank;
    ap_pl_span *spans = placer->spans;
    size_t size = p->size[i];
    size_t align = p->buffers[i].alignment;
    size_t e, k = 0, s;
    size_t candidate = 0, chosen, best_gap = SIZE_MAX;
    int found = 0;
    if (size == 0) {
        offsets[i] = 0;
        return 0;
    }
    for (e = p->adj_start[i]; e < p->adj_start[i + 1]; ++e) {
        uint32_t j = p->adj[e];
        if (rank[j] < pos) {
            spans[k].begin = offsets[j];
            spans[k].end = offsets[j] + p->size[j];
            ++k;
        }
    }
    sort_spans(spans, k);
    /* Walk the placed conflicts in offset order; `candidate` is the lowest aligned
       offset above everything seen so far. The first gap that holds the buffer is
       the lowest offset that fits, which is what TFLite Micro's list walk finds.
       No sum here can overflow: everything stays below padded_total. */
    chosen = 0;
    for (s = 0; s < k; ++s) {
        if (spans[s].begin >= candidate && spans[s].begin - candidate >= size) {
            size_t gap = spans[s].begin - candidate;
            if (fit == AP_PL_FIRST_FIT) {
                chosen = candidate;
                found = 1;
                break;
            }
            if (gap < best_gap) {
                best_gap = gap;
                chosen = candidate;
                found = 1;
            }
        }
        if (spans[s].end > candidate) {
            candidate = ap_pl_align_up_fast(spans[s].end, align);
        }
    }
    offsets[i] = found ? chosen : candidate;
    return k;
}

void ap_pl_decode(const ap_pl_problem *p, const uint32_t *order, size_t from, ap_pl_fit fit,
                  ap_pl_placer *placer, size_t *offsets)
{
    size_t pos;
    for (pos = from; pos < p->n; ++pos) {
        placer->rank[order[pos]] = (uint32_t)pos;
    }
    for (pos = from; pos < p->n; ++pos) {
        place_one(p, order[pos], pos, fit, placer, offsets);
    }
}

int ap_pl_decode_until(const ap_pl_problem *p, const uint32_t *order, size_t from, ap_pl_fit fit,
                       ap_pl_placer *placer, size_t *offsets, double deadline)
{
    size_t pos;
    ap_pl_control *c = p->control;
    for (pos = 0; pos < p->n; ++pos) {
        placer->rank[order[pos]] = (uint32_t)pos;
    }
    for (pos = from; pos < p->n; ++pos) {
        uint32_t i = order[pos];
        /* the degree is what the gather walks, the spans what the sort orders */
        size_t k = place_one(p, i, pos, fit, placer, offsets);
        size_t walked = p->adj_start[i + 1] - p->adj_start[i];
        if (c != NULL) {
            c->placed = pos + 1;
        }
        if (ap_pl_tick_until(c, 16 + walked + 4 * (uint64_t)k, deadline)) {
            return 0;
        }
    }
    return 1;
}

size_t ap_pl_arena(const ap_pl_problem *p, const size_t *offsets)
{
    size_t i, arena = 0;
    for (i = 0; i < p->n; ++i) {
        size_t end = offsets[i] + p->size[i];
        if (end > arena) {
            arena = end;
        }
    }
    return arena;
}

/* ---- clock, polling and PRNG ------------------------------------------------------ */

int ap_pl_poll(ap_pl_control *c)
{
    c->work = 0;
    c->now = ap_pl_now();
    if (c->poll != NULL && !c->cancelled && c->now >= c->next_poll) {
        double fraction;
        if (c->placing) {
            fraction = c->total > 0 ? (double)c->placed / (double)c->total : 0.0;
        } else {
            fraction = c->limit > 0 ? (c->now - c->t0) / c->limit : 0.0;
        }
        fraction = fraction < 0 ? 0 : (fraction > 1 ? 1 : fraction);
        c->next_poll = c->now + AP_PL_POLL_S;
        if (c->poll(c->context, fraction) != 0) {
            c->cancelled = 1;
        }
    }
    return c->cancelled;
}

int ap_pl_expired(ap_pl_control *c, double deadline)
{
    if (c == NULL) {
        return ap_pl_now() > deadline;
    }
    ap_pl_poll(c);
    return c->cancelled || c->now > deadline;
}


double ap_pl_now(void)
{
#if defined(CLOCK_MONOTONIC)
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0) {
        return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    }
#endif
    /* processor time: good enough for a single-threaded search's budget */
    return (double)clock() / (double)CLOCKS_PER_SEC;
}

uint64_t ap_pl_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void ap_pl_rng_seed(ap_pl_rng *rng, uint64_t seed)
{
    int i;
    for (i = 0; i < 4; ++i) {
        rng->s[i] = ap_pl_splitmix64(&seed);
    }
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t ap_pl_rng_next(ap_pl_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint32_t ap_pl_rng_below(ap_pl_rng *rng, uint32_t bound)
{
    /* multiply-shift: the bias is below 2^-32 for the bounds we use */
    return (uint32_t)(((ap_pl_rng_next(rng) >> 32) * (uint64_t)bound) >> 32);
}

double ap_pl_rng_unit(ap_pl_rng *rng)
{
    return (double)(ap_pl_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
}

int ap_pl_is_greedy(ap_strategy strategy)
{
    return strategy == AP_STRATEGY_GREEDY_SIZE || strategy == AP_STRATEGY_GREEDY_SIZE_BEST_FIT ||
           strategy == AP_STRATEGY_GREEDY_CONFLICTS ||
           strategy == AP_STRATEGY_GREEDY_CONFLICTS_BEST_FIT;
}

ap_status ap_pl_check_options(const ap_plan_options *options, ap_error *error)
{
    if (options == NULL) {
        return ap_pl_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1,
                          "options is NULL");
    }
    if (ap_strategy_str(options->strategy) == NULL) {
        return ap_pl_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1,
                          "unknown strategy %d", (int)options->strategy);
    }
    if (options->fixed_offsets != NULL && !ap_pl_is_greedy(options->strategy)) {
        return ap_pl_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1,
                          "fixed_offsets: strategy %s places every buffer itself; pre-placed "
                          "buffers are for the greedy strategies (greedy_size, "
                          "greedy_size_best_fit, greedy_conflicts, greedy_conflicts_best_fit)",
                          ap_strategy_str(options->strategy));
    }
    return AP_OK;
}
