/*
 * The descent of the band phase (see bands.c): a plan for every input, exact
 * where bands are found.
 *
 * Each set first gets an exact band search of DESCENT_TRY_NODES nodes, forward
 * and then with time reversed; failing that, it is split in time, its full-span
 * buffers are stacked, or the first band found (within as many nodes, forward
 * and then reversed) is descended below the rest. A set with none of these (a
 * leftover) is planned on its own by the greedy heuristics, the exact search and
 * the neighbourhood search, with its share of the time and steps left. A wrong
 * band then costs only the part it spoils.
 *
 * With capped hunts, a band hunt that finds nothing looks again, forward and
 * reversed, with up to DESCENT_CAPPED_NODES nodes, dropping each opening after
 * DESCENT_OPENING_NODES. Openings are listed fewest buffers first, and the
 * extension of a wrong one can take any number of nodes: uncapped, the hunt
 * never gets past them. On 500 s15 the band of 112 buffers below its rest of
 * 382 opens with 7 of the 14 buffers starting at its first op, after some 7,000
 * smaller openings; capped, the hunt reaches it in 1.2M nodes and then extends
 * it in a few thousand. The same hunts take coincidental bands elsewhere (a few
 * pieces of true bands whose bytes happen to add up to a constant), so the
 * phase runs the descent both ways and keeps the better plan.
 *
 * A coincidence is also what the plain hunts find first where bands are many:
 * small pieces of different true bands whose widths add up. So in a descent with
 * capped hunts, once a hunt has found a band it looks on, both ways, through up
 * to DESCENT_LOOK_BANDS more (one per opening, openings capped) and takes the
 * coarsest: the fewest buffers per granule of width. On 500 s16 the first band
 * at one level is two 4-granule pieces of two different bands, and no band is
 * then found in the 479 buffers left (8 % above the bound); looking on, the
 * descent takes coarser bands at every level and reaches the bound.
 */
#include "bands_internal.h"

#include <stdlib.h>
#include <string.h>

/* Nodes of each exact try and of each band hunt of the descent. */
#define DESCENT_TRY_NODES 20000u
/* Nodes of a capped band hunt, in each direction, and of each of its openings. */
#define DESCENT_CAPPED_NODES 2000000u
#define DESCENT_OPENING_NODES 4096u
/* After a band is found quickly: this many more, one per opening, within as many
   nodes, in each direction (openings capped as above). */
#define DESCENT_LOOK_BANDS 8u
#define DESCENT_LOOK_NODES 200000u
/* Deeper than this, a set is planned as a leftover. */
#define DESCENT_MAX_DEPTH 200

typedef struct bs_descent {
    bs_state *s;
    size_t granule;        /* bytes; every buffer's alignment (the phase needs one) */
    int32_t span;          /* ops */
    double deadline;
    uint64_t max_steps;    /* 0: none; else the descent's nodes and leftover steps */
    uint64_t steps;        /* leftover steps taken (by earlier descents too) */
    int capped_hunts;      /* a band hunt that finds nothing looks again, capped */
    uint32_t unplaced;     /* items not placed yet: a leftover's share of what is left */
    int failed;            /* out of memory: no plan */
} bs_descent;

/* The phase's steps so far: its nodes (the exact searches' too) and the leftovers'. */
static uint64_t descent_spent(const bs_descent *d)
{
    return d->s->nodes + d->steps;
}

/* `count` more items have their offsets. */
static void descent_placed(bs_descent *d, uint32_t count)
{
    d->unplaced -= count < d->unplaced ? count : d->unplaced;
}

/*
 * A leftover: set[0 .. count), where no band was found, planned on its own by
 * the greedy heuristics, then the exact search and the neighbourhood search,
 * each with half of the set's share of the time and steps left (its share of
 * the unplaced items). Offsets from base; returns the height in granules.
 */
static uint32_t descent_leftover(bs_descent *d, const uint32_t *set, uint32_t count,
                                 uint32_t base)
{
    bs_state *s = d->s;
    ap_buffer *bufs = (ap_buffer *)ap_pl_alloc(count, sizeof(ap_buffer));
    size_t *off = (size_t *)ap_pl_alloc(count, sizeof(size_t));
    size_t *alt = (size_t *)ap_pl_alloc(count, sizeof(size_t));
    ap_pl_problem sub;
    size_t arena = 0, arena2;
    uint32_t j, height = 0;
    int have = 0;
    memset(&sub, 0, sizeof(sub));
    if (bufs == NULL || off == NULL || alt == NULL) {
        d->failed = 1;
        goto out;
    }
    for (j = 0; j < count; ++j) {
        uint32_t i = set[j];
        bufs[j].size = (size_t)s->u[i] * d->granule;
        bufs[j].alignment = d->granule;
        bufs[j].first = s->f[i];
        bufs[j].last = s->l[i];
    }
    if (ap_pl_problem_init(&sub, bufs, count, NULL) != AP_OK ||
        ap_pl_greedy(&sub, AP_STRATEGY_GREEDY_SIZE, off) != AP_OK ||
        ap_pl_greedy(&sub, AP_STRATEGY_GREEDY_CONFLICTS, alt) != AP_OK) {
        d->failed = 1;
        goto out;
    }
    have = 1;
    arena = ap_pl_arena(&sub, off);
    arena2 = ap_pl_arena(&sub, alt);
    if (arena2 < arena) {
        memcpy(off, alt, count * sizeof(size_t));
        arena = arena2;
    }
    if (arena > sub.lower_bound) {
        double now = ap_pl_now(), share = (double)count / (double)d->unplaced;
        uint64_t spent = descent_spent(d), steps = 0;
        ap_pl_search search;
        int phase;
        if (d->max_steps > 0) {
            steps = spent < d->max_steps ? (uint64_t)(share * (double)(d->max_steps - spent)) : 0;
            steps = steps < 2 ? 2 : steps;
        }
        for (phase = 0; phase < 2 && arena > sub.lower_bound; ++phase) {
            memset(&search, 0, sizeof(search));
            search.deadline = now + share * (d->deadline - now) * (phase == 0 ? 0.5 : 1.0);
            search.max_steps = steps / 2;
            if ((phase == 0 ? ap_pl_exact(&sub, off, &arena, &search)
                            : ap_pl_lns(&sub, off, &arena, &search)) != AP_OK) {
                break; /* no working memory: keep the plan in hand */
            }
            d->steps += search.steps;
        }
    }
out:
    if (have) {
        for (j = 0; j < count; ++j) {
            s->off[set[j]] = base + (uint32_t)(off[j] / d->granule);
        }
        height = (uint32_t)(arena / d->granule);
    }
    descent_placed(d, count);
    ap_pl_problem_free(&sub);
    free(bufs);
    free(off);
    free(alt);
    return height;
}

/* One exact try (band == NULL; offsets from base) or band hunt (ap_bs_hunt) on
   set[0 .. count) over [t0, t1], with time reversed or not. 1 when it succeeded. */
static int descent_pass(bs_descent *d, const uint32_t *set, uint32_t count, int32_t t0,
                        int32_t t1, uint32_t width, uint32_t base, int reversed, uint64_t budget,
                        uint64_t opening_cap, uint32_t max_bands, uint32_t *band, uint32_t *len,
                        uint32_t *wb)
{
    int32_t a = reversed ? d->span - 1 - t1 : t0, b = reversed ? d->span - 1 - t0 : t1;
    int ok;
    if (reversed) {
        ap_bs_reverse_time(d->s, d->span);
    }
    ok = band == NULL ? ap_bs_search(d->s, set, count, a, b, width, base, budget)
                      : ap_bs_hunt(d->s, set, count, a, b, width, budget, opening_cap, max_bands,
                                   band, len, wb);
    if (reversed) {
        ap_bs_reverse_time(d->s, d->span);
    }
    return ok;
}

/* One try of DESCENT_TRY_NODES nodes on set[0 .. count) over [t0, t1], forward
   and then with time reversed: the exact search (band == NULL; offsets from
   base) or a band (into band, *len, *wb). In a descent with capped hunts, a band
   hunt that finds nothing then looks again, both ways, with DESCENT_CAPPED_NODES
   and each opening capped; one that found a band looks on, both ways, for a
   coarser one among DESCENT_LOOK_BANDS more. 1 when it succeeded. */
static int descent_try(bs_descent *d, const uint32_t *set, uint32_t count, int32_t t0,
                       int32_t t1, uint32_t width, uint32_t base, uint32_t *band, uint32_t *len,
                       uint32_t *wb)
{
    int ok = 0, capped = 0, attempt, attempts = band != NULL && d->capped_hunts ? 4 : 2, reversed;
    if (band != NULL) {
        *len = 0;
    }
    for (attempt = 0; attempt < attempts && !ok; ++attempt) {
        capped = attempt >= 2;
        ok = descent_pass(d, set, count, t0, t1, width, base, attempt & 1,
                          capped ? DESCENT_CAPPED_NODES : DESCENT_TRY_NODES,
                          capped ? DESCENT_OPENING_NODES : 0, 1, band, len, wb);
    }
    if (ok && !capped && band != NULL && d->capped_hunts) { /* a plain hunt found it */
        for (reversed = 0; reversed < 2; ++reversed) {
            descent_pass(d, set, count, t0, t1, width, 0, reversed, DESCENT_LOOK_NODES,
                         DESCENT_OPENING_NODES, DESCENT_LOOK_BANDS, band, len, wb);
        }
    }
    return ok;
}

/* The members of set[0 .. count) that `keep` keeps into a new array (*out, *n):
   0 when out of memory. */
static int descent_filter(const bs_state *s, const uint32_t *set, uint32_t count, bs_keep keep,
                          int32_t cut, uint32_t **out, uint32_t *n)
{
    uint32_t j, k = 0;
    uint32_t *part = (uint32_t *)ap_pl_alloc(count > 0 ? count : 1, sizeof(uint32_t));
    if (part == NULL) {
        return 0;
    }
    for (j = 0; j < count; ++j) {
        uint32_t i = set[j];
        if (bs_keeps(s, i, keep, cut)) {
            part[k++] = i;
        }
    }
    *out = part;
    *n = k;
    return 1;
}

/*
 * Place set[0 .. count) over [t0, t1] from `base`, in about `width` granules:
 * the exact search where it succeeds within DESCENT_TRY_NODES; else a time
 * split, the full-span buffers at the bottom, or the first band found (below
 * the rest, each descended); a set with none of these is a leftover. Returns
 * the height used (>= width unless the set is empty).
 */
static uint32_t descend(bs_descent *d, const uint32_t *set, uint32_t count, int32_t t0,
                        int32_t t1, uint32_t width, uint32_t base, int depth)
{
    bs_state *s = d->s;
    uint32_t *part = NULL, *rest = NULL, n = 0, nr = 0, j, height = 0, full = 0, len = 0, wb = 0;
    int32_t cut;
    if (count == 0 || d->failed) {
        return 0;
    }
    if (depth >= DESCENT_MAX_DEPTH) {
        return descent_leftover(d, set, count, base);
    }
    if (descent_try(d, set, count, t0, t1, width, base, NULL, NULL, NULL)) {
        descent_placed(d, count);
        return width;
    }
    cut = ap_bs_time_cut(s, set, count, t0, t1);
    if (cut >= 0) {
        uint32_t left, right;
        if (!descent_filter(s, set, count, KEEP_BEFORE, cut, &part, &n) ||
            !descent_filter(s, set, count, KEEP_FROM, cut, &rest, &nr)) {
            d->failed = 1;
        } else {
            left = descend(d, part, n, t0, cut - 1, width, base, depth + 1);
            right = descend(d, rest, nr, cut, t1, width, base, depth + 1);
            height = left > right ? left : right;
        }
        free(part);
        free(rest);
        return height;
    }
    if (ap_bs_stack_full_span(s, set, count, t0, t1, base, UINT64_MAX, &full) > 0) {
        uint32_t above = 0;
        int ok = descent_filter(s, set, count, KEEP_UNMARKED, 0, &rest, &nr);
        for (j = 0; j < count; ++j) {
            s->mark[set[j]] = 0;
        }
        if (!ok) {
            d->failed = 1;
            return 0;
        }
        descent_placed(d, count - nr);
        above = descend(d, rest, nr, t0, t1, width > full ? width - full : 0, base + full,
                        depth + 1);
        free(rest);
        return full + above;
    }
    part = (uint32_t *)ap_pl_alloc(count, sizeof(uint32_t));
    if (part == NULL) {
        d->failed = 1;
        return 0;
    }
    if (count >= 2 && descent_try(d, set, count, t0, t1, width, 0, part, &len, &wb)) {
        uint32_t below, above;
        for (j = 0; j < len; ++j) {
            s->mark[part[j]] = 1;
        }
        n = descent_filter(s, set, count, KEEP_UNMARKED, 0, &rest, &nr);
        for (j = 0; j < len; ++j) {
            s->mark[part[j]] = 0;
        }
        if (!n) {
            d->failed = 1;
        } else {
            below = descend(d, part, len, t0, t1, wb, base, depth + 1);
            above = descend(d, rest, nr, t0, t1, width - wb, base + below, depth + 1);
            height = below + above;
        }
        free(rest);
    } else if (depth == 0) {
        d->failed = 1; /* nothing to descend: the later phases plan it whole */
    } else {
        height = descent_leftover(d, set, count, base);
    }
    free(part);
    return height;
}

int ap_bs_descend(bs_state *s, const uint32_t *all, int32_t span, uint32_t units,
                  size_t granule, uint64_t max_steps, int capped_hunts, uint64_t *steps)
{
    bs_descent d;
    uint32_t height;
    memset(&d, 0, sizeof(d));
    d.s = s;
    d.granule = granule;
    d.span = span;
    d.deadline = s->deadline;
    d.max_steps = max_steps;
    d.capped_hunts = capped_hunts;
    d.steps = *steps;
    d.unplaced = s->m;
    height = descend(&d, all, s->m, 0, span - 1, units, 0, 0);
    *steps = d.steps;
    return !d.failed && height > 0;
}
