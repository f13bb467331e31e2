/*
 * The descent of the band phase (see bands.c): a plan for every input, exact
 * where bands are found.
 *
 * Each set first gets an exact band search of DESCENT_TRY_NODES nodes, forward
 * and then with time reversed; failing that, it is split in time, its full-span
 * buffers are stacked, or a band found (by the hunts below) is descended below
 * the rest. A set with none of these (a leftover) is planned on its own by the
 * greedy heuristics, the exact search and the neighbourhood search, with its
 * share of the time and steps left. A wrong band then costs only the part it
 * spoils.
 *
 * A plain hunt (DESCENT_TRY_NODES, forward and then reversed) that finds
 * nothing looks again, both ways, with up to DESCENT_CAPPED_NODES nodes,
 * dropping each opening after DESCENT_OPENING_NODES. Openings are listed fewest buffers first, and the
 * extension of a wrong one can take any number of nodes: uncapped, the hunt
 * never gets past them. On 500 s15 the band of 112 buffers below its rest of
 * 382 opens with 7 of the 14 buffers starting at its first op, after some 7,000
 * smaller openings; capped, the hunt reaches it in 1.2M nodes and then extends
 * it in a few thousand. The same hunts take coincidental bands elsewhere (a few
 * pieces of true bands whose bytes happen to add up to a constant). A plain
 * descent beside this one (hunts not capped, nor looking on) once ran after it;
 * it improved no plan of bench_planner's wider hard sample (bands.c).
 *
 * A coincidence is also what the plain hunts find first where bands are many:
 * small pieces of different true bands whose widths add up. So once a plain
 * hunt has found a band, the descent looks on, both ways, through up to
 * DESCENT_LOOK_BANDS more (one per opening, openings capped), and prefers the
 * coarsest: the fewest buffers per granule of width. On 500 s16 the first band
 * at one level is two 4-granule pieces of two different bands, and no band is
 * then found in the 479 buffers left (8 % above the bound); looking on, the
 * descent takes coarser bands at every level and reaches the bound.
 *
 * A coincidence can be the coarsest too, so of the bands found the descent takes
 * the coarsest whose rest looks viable: it splits in time, has a full-span
 * buffer, holds another band found (over the same window that is a band of the
 * rest too), the exact try places it or a plain hunt finds a band in it (else
 * the coarsest). Seeing another band found costs no nodes, where the exact try
 * and the plain hunts cost up to 80,000 a band and can miss a band the look-on
 * found; it took 500 s25 from 0.6 % above the bound to the bound at 27M steps.
 * The look-on hunts also take bands wider than half the set, whose openings can
 * be far smaller than their complements'. 300 s39 is two generator bands, 55
 * buffers over 799 granules below 245 over 3,297; at op 0 the narrow one opens
 * with 17 of the 22 buffers starting there, the wide one with the other 5. The
 * coarsest bands found, 3 buffers over 123 granules and 15 over 231, leave rests
 * where no band is found (9.7 % above the bound); the wide band leaves the
 * narrow one, and the descent reaches the bound.
 *
 * 400 s39 has the same two top-level bands, but the wide one opens with 7 of
 * the 25 buffers starting at op 0, and the look-on runs out of nodes first.
 * So when no band found leaves a viable rest, the look-on ran out of nodes and
 * the set holds at least half the items, a deep hunt looks on with
 * DESCENT_DEEP_NODES each way; it finds the wide band. Where it finds nothing
 * new it costs its nodes for nothing (500 s31, a set of 113, went from 3.1 % to
 * 7.7 % above the bound before the half-the-items rule).
 *
 * Bands that cross (share members, neither holding the other) cannot both be
 * generator bands. When every band found in a set of at least half the items
 * crosses another, the end-opened hunts have found only coincidences, and the
 * middle hunt (bands_middle.c) opens bands where the fewest members live. Run
 * wherever the set held half the items, it displaced working end-opened bands (45 of the 58 rectangles at the bound
 * where 49 were); gated so, it takes 400 s37 to the bound and moves no other
 * row of bench_planner's wider sample by more than the timing noise (0.3 %).
 * Its bands go first, widest first, when the widest holds a quarter of the
 * width: in 300 s37 it finds the generator's 112 buffers over 1,565 granules,
 * but coarsest first a coincidence of 91 over 1,297 went before it.
 *
 * In the hinge descent (ap_pl_bands runs it when this one ends above the
 * bound), each set of at least DESCENT_HINGE_MIN_PART of the items also gets
 * the hinge hunt (bands_hinge.c), which finds bands by where they split in
 * time; its bands join the others and the coarsest viable is taken as before.
 * In 500 s34 the set of 414 buffers over ops 0-53 then descends the
 * generator's 55 buffers over 607 granules (hinged at op 26 by 2 + 1 buffers)
 * where this descent took a coincidence of 4 buffers over 40; in 500 s30 the
 * top set takes 14 buffers over 110 granules and then 174 over 1,344 (hinged at
 * op 1 by 3 + 2), and reaches the bound.
 *
 * The budget. The exact tries and hunts stop at DESCENT_HUNT_SHARE of the
 * descent's nodes and time, and the rest is kept for its leftovers: in 400 s32
 * the hunts ten levels down spent everything and left a leftover of 224 buffers
 * to the greedy heuristics alone, 26 % above its width (8.9 % above the bound
 * in all; 3.7 % with the share, at 27M steps). It costs sets whose last bands need the
 * nodes: 500 s16 now ends 0.8 % above the bound, 400 s39 2.2 %. And a leftover
 * of DESCENT_MAX_LEFTOVER of the items or more ends the descent with no plan:
 * the later phases plan the whole from the greedy plan instead. In 500 s30 a
 * leftover of 470 of 500 buffers planned apart gave a plan 8.1 % above the
 * bound, from which the neighbourhood search reached only 7.5 %; from the
 * greedy plan, 4.3 %. With both, and auto's band share at 0.75, bench_planner's
 * wider sample at 10 s has all 58 within 5 % and 49 at the bound (56 and 51
 * without them, at 0.6); at 27M steps the same.
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
   nodes, in each direction (openings capped as above, bands up to the whole
   width). */
#define DESCENT_LOOK_BANDS 8u
#define DESCENT_LOOK_NODES 200000u
/* When no band found leaves a viable rest (see descent_choose): this many more,
   within as many nodes, in each direction (openings as above). */
#define DESCENT_DEEP_BANDS 16u
#define DESCENT_DEEP_NODES 1000000u
/* When every band found in a set of at least half the items crosses another
   (see descent_all_cross) and there are at least DESCENT_MIDDLE_MIN_FOUND: the
   middle hunt of bands_middle.c, this many more bands within as many nodes.
   When the widest of them holds at least a quarter of the set's width, they
   are tried first, widest first. */
#define DESCENT_MIDDLE_MIN_FOUND 4u
#define DESCENT_MIDDLE_BANDS 8u
#define DESCENT_MIDDLE_NODES 1000000u
/* In the hinge descent: the hinge hunt (bands_hinge.c) in each set of at least
   this part of the items, as many bands as found has room for, within about as
   many nodes. */
#define DESCENT_HINGE_MIN_PART 0.2
#define DESCENT_HINGE_NODES 1000000u
/* The exact tries and band hunts stop at this share of the descent's nodes and
   time; the rest is kept for its leftovers. */
#define DESCENT_HUNT_SHARE 0.6
/* A leftover of at least this part of the items ends the descent with no plan. */
#define DESCENT_MAX_LEFTOVER 0.875
/* Deeper than this, a set is planned as a leftover. */
#define DESCENT_MAX_DEPTH 200

typedef struct bs_descent {
    bs_state *s;
    size_t granule;        /* bytes; every buffer's alignment (the phase needs one) */
    int32_t span;          /* ops */
    double deadline;
    uint64_t max_steps;    /* 0: none; else the descent's nodes and leftover steps */
    uint64_t steps;        /* leftover steps taken */
    uint32_t unplaced;     /* items not placed yet: a leftover's share of what is left */
    int hinges;            /* the hinge hunt looks too (descent_hinges) */
    bs_keys barren;        /* hinges that hold no band (ap_bs_hinge_hunt) */
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
        (sub.control = s->control, 0) ||
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

/* One exact try (hunt == NULL; DESCENT_TRY_NODES, offsets from base) or band hunt
   (ap_bs_hunt, into found) on set[0 .. count) over [t0, t1], with time reversed
   or not: 1 when it placed the set or found a band. */
static int descent_pass(bs_descent *d, const uint32_t *set, uint32_t count, int32_t t0,
                        int32_t t1, uint32_t width, uint32_t base, int reversed,
                        const bs_hunt *hunt, bs_bands *found)
{
    int32_t a = reversed ? d->span - 1 - t1 : t0, b = reversed ? d->span - 1 - t0 : t1;
    int ok;
    if (reversed) {
        ap_bs_reverse_time(d->s, d->span);
    }
    ok = hunt == NULL ? ap_bs_search(d->s, set, count, a, b, width, base, DESCENT_TRY_NODES)
                      : ap_bs_hunt(d->s, set, count, a, b, width, hunt, found) > 0;
    if (reversed) {
        ap_bs_reverse_time(d->s, d->span);
    }
    return ok;
}

/* The exact search on set[0 .. count) over [t0, t1] in `width` granules from
   base, DESCENT_TRY_NODES forward and then as many with time reversed: 1 when
   it placed the set. */
static int descent_exact(bs_descent *d, const uint32_t *set, uint32_t count, int32_t t0,
                         int32_t t1, uint32_t width, uint32_t base)
{
    return descent_pass(d, set, count, t0, t1, width, base, 0, NULL, NULL) ||
           descent_pass(d, set, count, t0, t1, width, base, 1, NULL, NULL);
}

/* The hunts of the descent. */
static const bs_hunt HUNT_PLAIN = {DESCENT_TRY_NODES, 0, 1, 0, 0, 0};
static const bs_hunt HUNT_CAPPED = {DESCENT_CAPPED_NODES, DESCENT_OPENING_NODES, 1, 0, 0, 0};
static const bs_hunt HUNT_LOOK_ON = {DESCENT_LOOK_NODES, DESCENT_OPENING_NODES,
                                     DESCENT_LOOK_BANDS, 1, 0, 0};
static const bs_hunt HUNT_DEEP = {DESCENT_DEEP_NODES, DESCENT_OPENING_NODES, DESCENT_DEEP_BANDS,
                                  1, 0, 0};

/* Set s->mark of members[0 .. len) to `value`. */
static void descent_mark(bs_state *s, const uint32_t *members, uint32_t len, unsigned char value)
{
    uint32_t j;
    for (j = 0; j < len; ++j) {
        s->mark[members[j]] = value;
    }
}

/* Set s->mark of found's band b's members to `value`. */
static void descent_mark_band(bs_state *s, const bs_bands *found, uint32_t b, unsigned char value)
{
    descent_mark(s, bs_band(found, b), found->len[b], value);
}

/* How many members of found's band k are marked. */
static uint32_t descent_marked(const bs_state *s, const bs_bands *found, uint32_t k)
{
    const uint32_t *band = bs_band(found, k);
    uint32_t j, marked = 0;
    for (j = 0; j < found->len[k]; ++j) {
        marked += s->mark[band[j]];
    }
    return marked;
}

/* 1 when every band of found crosses another: they share members and neither
   holds the other. */
static int descent_all_cross(bs_state *s, const bs_bands *found)
{
    unsigned char crosses[BS_MAX_BANDS];
    uint32_t b, k, crossing = 0;
    memset(crosses, 0, sizeof(crosses));
    for (b = 0; b < found->n; ++b) {
        descent_mark_band(s, found, b, 1);
        for (k = b + 1; k < found->n; ++k) {
            uint32_t shared = descent_marked(s, found, k);
            if (shared > 0 && shared < found->len[k] && shared < found->len[b]) {
                crosses[b] = crosses[k] = 1;
            }
        }
        descent_mark_band(s, found, b, 0);
        crossing += crosses[b]; /* final: later pairs only set later bands */
    }
    return crossing == found->n;
}

/* The middle hunt into found, when the set holds at least half the items, at
   least DESCENT_MIDDLE_MIN_FOUND bands were found and each crosses another: the
   end-opened hunts found only coincidences. Its bands go first when the widest
   holds at least a quarter of the width. */
static void descent_middle(bs_descent *d, const uint32_t *set, uint32_t count, int32_t t0,
                           int32_t t1, uint32_t width, bs_bands *found)
{
    uint32_t had = found->n, k, widest = 0;
    if (2 * (uint64_t)count < d->s->m || found->n < DESCENT_MIDDLE_MIN_FOUND ||
        !descent_all_cross(d->s, found)) {
        return;
    }
    ap_bs_middle_hunt(d->s, set, count, t0, t1, width, d->span, DESCENT_MIDDLE_BANDS,
                      DESCENT_MIDDLE_NODES, found);
    for (k = had; k < found->n; ++k) {
        widest = found->wb[k] > widest ? found->wb[k] : widest;
    }
    if (4 * (uint64_t)widest >= width) {
        found->first_from = had;
        found->first_end = found->n;
    }
}

/* The hinge hunt into found, in the hinge descent, for a set of at least
   DESCENT_HINGE_MIN_PART of the items. */
static void descent_hinges(bs_descent *d, const uint32_t *set, uint32_t count, int32_t t0,
                           int32_t t1, uint32_t width, bs_bands *found)
{
    if (d->hinges && count >= DESCENT_HINGE_MIN_PART * d->s->m) {
        ap_bs_hinge_hunt(d->s, set, count, t0, t1, width, d->span, BS_MAX_BANDS,
                         DESCENT_HINGE_NODES, d->barren.slot != NULL ? &d->barren : NULL,
                         found);
    }
}

/* Bands of set[0 .. count) over [t0, t1] into `found`: the first a plain hunt
   finds, forward and then reversed; when those find none, a capped hunt both
   ways, and when they found one, the look-on hunt both ways; then the middle
   hunt where descent_middle says, and the hinge hunt where descent_hinges
   says. 1 when any was found. */
static int descent_hunt(bs_descent *d, const uint32_t *set, uint32_t count, int32_t t0,
                        int32_t t1, uint32_t width, bs_bands *found)
{
    int plain = 0, reversed;
    for (reversed = 0; reversed < 2 && !plain; ++reversed) {
        plain = descent_pass(d, set, count, t0, t1, width, 0, reversed, &HUNT_PLAIN, found);
    }
    found->cut_short = 0; /* from here: whether the look-on (or capped) hunts ran out */
    for (reversed = 0; reversed < 2 && (plain || found->n == 0); ++reversed) {
        descent_pass(d, set, count, t0, t1, width, 0, reversed,
                     plain ? &HUNT_LOOK_ON : &HUNT_CAPPED, found);
    }
    descent_middle(d, set, count, t0, t1, width, found);
    descent_hinges(d, set, count, t0, t1, width, found);
    return found->n > 0;
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

/* The members of set[0 .. count) not among band[0 .. len) into a new array
   (*rest, *nr): 0 when out of memory. */
static int descent_rest(bs_state *s, const uint32_t *set, uint32_t count, const uint32_t *band,
                        uint32_t len, uint32_t **rest, uint32_t *nr)
{
    int ok;
    descent_mark(s, band, len, 1);
    ok = descent_filter(s, set, count, KEEP_UNMARKED, 0, rest, nr);
    descent_mark(s, band, len, 0);
    return ok;
}

/* 1 when a band of `found` shares no member with band b: it lies wholly in b's
   rest (every band found is part of the hunted set), and over the same window
   its live bytes are the same, so it is a band of the rest too. */
static int descent_other_band_apart(bs_state *s, const bs_bands *found, uint32_t b)
{
    uint32_t k;
    int any = 0;
    descent_mark_band(s, found, b, 1);
    for (k = 0; k < found->n && !any; ++k) {
        any = k != b && descent_marked(s, found, k) == 0;
    }
    descent_mark_band(s, found, b, 0);
    return any;
}

/* 1 when set[0 .. count), the part above a band, looks as if the descent can
   place it exactly at the next level: it splits in time, has a full-span member,
   the exact try places it or a plain hunt finds a band in it (descent_first_viable
   first looks for another band found apart from the one taken). */
static int descent_viable(bs_descent *d, const uint32_t *set, uint32_t count, int32_t t0,
                          int32_t t1, uint32_t width)
{
    const bs_state *s = d->s;
    uint32_t j;
    if (count < 2 || ap_bs_time_cut(d->s, set, count, t0, t1) >= 0) {
        return 1;
    }
    for (j = 0; j < count; ++j) {
        if (bs_spans(s, set[j], t0, t1)) {
            return 1;
        }
    }
    return descent_exact(d, set, count, t0, t1, width, 0) ||
           descent_pass(d, set, count, t0, t1, width, 0, 0, &HUNT_PLAIN, NULL) ||
           descent_pass(d, set, count, t0, t1, width, 0, 1, &HUNT_PLAIN, NULL);
}

/* 1 when found's band a goes before band b: those in [first_from, first_end)
   first, widest first; then the coarsest (fewest members per granule of width). */
static int descent_before(const bs_bands *found, uint32_t a, uint32_t b)
{
    int first_a = a >= found->first_from && a < found->first_end;
    int first_b = b >= found->first_from && b < found->first_end;
    if (first_a != first_b) {
        return first_a;
    }
    if (first_a) {
        return found->wb[a] > found->wb[b];
    }
    return (uint64_t)found->len[a] * found->wb[b] < (uint64_t)found->len[b] * found->wb[a];
}

/* found's bands into order, as descent_before says. */
static void descent_order(const bs_bands *found, uint32_t *order)
{
    uint32_t j, k;
    for (j = 0; j < found->n; ++j) { /* insertion sort */
        for (k = j; k > 0 && descent_before(found, j, order[k - 1]); --k) {
            order[k] = order[k - 1];
        }
        order[k] = j;
    }
}

/* The coarsest band of found[from ..] whose rest is viable (it holds another
   band found, or descent_viable; a lone band is taken as it is), its rest into
   a new array (*rest, *nr): its index; found->n when there is none,
   BS_MAX_BANDS when out of memory. */
static uint32_t descent_first_viable(bs_descent *d, const uint32_t *set, uint32_t count,
                                     int32_t t0, int32_t t1, uint32_t width,
                                     const bs_bands *found, uint32_t from, uint32_t **rest,
                                     uint32_t *nr)
{
    uint32_t order[BS_MAX_BANDS], j, b;
    descent_order(found, order);
    for (j = 0; j < found->n; ++j) {
        b = order[j];
        if (b < from) {
            continue;
        }
        if (!descent_rest(d->s, set, count, bs_band(found, b),
                          found->len[b], rest, nr)) {
            return BS_MAX_BANDS;
        }
        if (found->n == 1 || descent_other_band_apart(d->s, found, b) ||
            descent_viable(d, *rest, *nr, t0, t1, width - found->wb[b])) {
            return b;
        }
        free(*rest);
        *rest = NULL;
    }
    return found->n;
}

/* The band of `found` to descend, its rest into a new array (*rest, *nr): the
   coarsest whose rest is viable. When none is, the look-on hunts ran out of
   nodes and the set holds at least half the items (a leftover that size would
   cost most of the plan), the deep hunt looks on, both ways, and the coarsest
   viable of what it adds is taken. Else the coarsest found. Its index;
   BS_MAX_BANDS when out of memory. */
static uint32_t descent_choose(bs_descent *d, const uint32_t *set, uint32_t count, int32_t t0,
                               int32_t t1, uint32_t width, bs_bands *found, uint32_t **rest,
                               uint32_t *nr)
{
    uint32_t order[BS_MAX_BANDS], b, had = found->n;
    int reversed;
    descent_order(found, order); /* before the deep hunt adds to found */
    b = descent_first_viable(d, set, count, t0, t1, width, found, 0, rest, nr);
    if (b == had && had >= 2 && found->cut_short > 0 && 2 * (uint64_t)count >= d->s->m) {
        for (reversed = 0; reversed < 2; ++reversed) {
            descent_pass(d, set, count, t0, t1, width, 0, reversed, &HUNT_DEEP, found);
        }
        b = descent_first_viable(d, set, count, t0, t1, width, found, had, rest, nr);
    }
    if (b < found->n) {
        return b;
    }
    b = order[0];
    return descent_rest(d->s, set, count, bs_band(found, b),
                        found->len[b], rest, nr)
               ? b
               : BS_MAX_BANDS;
}

/*
 * Place set[0 .. count) over [t0, t1] from `base`, in about `width` granules:
 * the exact search where it succeeds within DESCENT_TRY_NODES; else a time
 * split, the full-span buffers at the bottom, or a band found (descent_hunt,
 * descent_choose; below the rest, each descended); a set with none of these is
 * a leftover. Returns
 * the height used (>= width unless the set is empty).
 */
static uint32_t descend(bs_descent *d, const uint32_t *set, uint32_t count, int32_t t0,
                        int32_t t1, uint32_t width, uint32_t base, int depth)
{
    bs_state *s = d->s;
    uint32_t *part = NULL, *rest = NULL, n = 0, nr = 0, j, height = 0, full = 0, len = 0, wb = 0;
    bs_bands found;
    int32_t cut;
    if (count == 0 || d->failed) {
        return 0;
    }
    if (depth >= DESCENT_MAX_DEPTH) {
        return descent_leftover(d, set, count, base);
    }
    if (descent_exact(d, set, count, t0, t1, width, base)) {
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
    /* the bands found, then the one chosen on its own (found freed before the
       descent goes deeper) */
    if (!ap_bs_bands_init(&found, count)) {
        d->failed = 1;
        return 0;
    }
    if (count >= 2 && descent_hunt(d, set, count, t0, t1, width, &found)) {
        uint32_t b = descent_choose(d, set, count, t0, t1, width, &found, &rest, &nr);
        if (b < BS_MAX_BANDS) {
            len = found.len[b];
            wb = found.wb[b];
            part = (uint32_t *)ap_pl_alloc(len, sizeof(uint32_t));
        }
        if (part == NULL) {
            d->failed = 1;
        } else {
            uint32_t below, above;
            memcpy(part, bs_band(&found, b), len * sizeof(uint32_t));
            free(found.members);
            found.members = NULL;
            below = descend(d, part, len, t0, t1, wb, base, depth + 1);
            above = descend(d, rest, nr, t0, t1, width - wb, base + below, depth + 1);
            height = below + above;
        }
        free(rest);
    } else if (depth == 0 || count >= DESCENT_MAX_LEFTOVER * d->s->m) {
        /* nothing to descend, or almost all of it left over: the later phases
           plan it whole, from the greedy plan, with the time it would take */
        d->failed = 1;
    } else {
        height = descent_leftover(d, set, count, base);
    }
    free(found.members);
    free(part);
    return height;
}

int ap_bs_descend(bs_state *s, const uint32_t *all, int32_t span, uint32_t units,
                  size_t granule, uint64_t max_steps, int hinges, uint64_t *steps)
{
    bs_descent d;
    uint32_t height;
    uint64_t node_cap = s->node_cap;
    double deadline = s->deadline, now = ap_pl_now();
    memset(&d, 0, sizeof(d));
    d.s = s;
    d.granule = granule;
    d.span = span;
    d.deadline = deadline;
    d.max_steps = max_steps;
    d.unplaced = s->m;
    d.hinges = hinges;
    if (hinges) {
        ap_bs_keys_init(&d.barren, 4096); /* out of memory: no set kept (slot NULL) */
    }
    /* the hunts' share; the leftovers count against the whole */
    if (node_cap > s->nodes && node_cap != UINT64_MAX) {
        s->node_cap = s->nodes + (uint64_t)(DESCENT_HUNT_SHARE * (double)(node_cap - s->nodes));
    }
    s->deadline = now + DESCENT_HUNT_SHARE * (deadline - now);
    height = descend(&d, all, s->m, 0, span - 1, units, 0, 0);
    s->node_cap = node_cap;
    s->deadline = deadline;
    free(d.barren.slot);
    *steps = d.steps;
    return !d.failed && height > 0;
}
