/*
 * The hinge hunt of the band phase's descent: bands found where they split in
 * time.
 *
 * A band that splits at boundary c (none of its members lives at both c - 1
 * and c) is two halves of the same width w: its members that end by c - 1,
 * a band of [t0, c - 1] whose members live at c - 1 all end there, and those
 * that start from c, a band of [c, t1] whose members live at c all start
 * there. So the band is fixed by its hinge at c: a subset of the members
 * ending at c - 1 and a subset of those starting at c, both w wide. Each half
 * is then hunted with its side of the hinge as its only opening (the one
 * before c with time reversed).
 *
 * Hinges are small where openings at the window's ends are not. In 500 s34
 * the set of 414 buffers over ops 0-53 holds four generator bands (55 buffers
 * over 607 granules, 91 over 987, 114 over 1,124 and 137 over 1,252, besides
 * smaller ones) whose openings at op 0 have 22, 30, 5 and 4 of the 61
 * buffers starting there, and the end-opened hunts find only coincidences of
 * a few small pieces. The same bands have hinges of 2 + 1, 2 + 1, 1 + 4 and
 * 1 + 1 buffers (at c = 26, 47, 47 and 12), among the 8 to 18 buffers that
 * end or start at those boundaries, and two equal widths on both sides of a
 * boundary are rarer by far than subsets of one side adding up. The hunt
 * finds the first band whole; the second's half before op 47 takes more than
 * 200,000 nodes, the third's hinge has more than HINGE_MAX_SIDE buffers a side,
 * and the fourth's gives a band of 130 buffers that trades pieces for others
 * of their widths.
 *
 * Hinges of up to HINGE_MAX_SIDE buffers a side are tried fewest buffers
 * first, then widest first, over every boundary of the window.
 *
 * The descent hunts again in what is left of a set after each band, mostly
 * over the same window, so the hinges whose hunts ran their course without a
 * band are kept (`barren`) and passed over there: no part of the set has a
 * band with that hinge either. In 400 s32 the second level's hunt then tries
 * 21 such hinges (825 nodes) where it tried 1,288 (77,744 nodes). Hinges whose
 * hunts ran out of nodes are tried again: kept too, they cost nothing deeper
 * down, but the hunts there find more bands and the descent takes others
 * (bench_planner's wider sample at 10 s: 500 s30 from the bound to 4.3 % above,
 * 500 s34 from 4.1 % to 5.3 %).
 */
#include "bands_internal.h"

#include <stdlib.h>
#include <string.h>

/* Buffers on one side of a hinge, at most. */
#define HINGE_MAX_SIDE 3u
/* Subsets listed on one side of one boundary, at most (fewest buffers first). */
#define HINGE_MAX_SUBSETS 4096u
/* Hinges listed in all, at most. */
#define HINGE_MAX_HINGES 65536u
/* Nodes of each half's hunt. */
#define HINGE_HALF_NODES 20000u

static const bs_hunt HUNT_HINGE_HALF = {HINGE_HALF_NODES, 0, 1, 1, 1, 1};

/* Members on one side of a boundary: count of them, their sum in granules. */
typedef struct hinge_side {
    uint32_t sum;
    uint32_t rank;         /* listing order */
    uint32_t n;
    uint32_t member[HINGE_MAX_SIDE];
} hinge_side;

typedef struct hinge {
    int32_t c;
    uint32_t seq;          /* listing order: the last tie-break */
    hinge_side before, after;
} hinge;

/* By sum, then as listed: a total order, so that qsort gives the same order
   with any C library. */
static int hinge_side_by_sum(const void *a, const void *b)
{
    const hinge_side *x = (const hinge_side *)a, *y = (const hinge_side *)b;
    if (x->sum != y->sum) {
        return x->sum < y->sum ? -1 : 1;
    }
    return x->rank < y->rank ? -1 : x->rank > y->rank ? 1 : 0;
}

/* Fewest buffers first, then widest, then as listed. */
static int hinge_order(const void *a, const void *b)
{
    const hinge *x = (const hinge *)a, *y = (const hinge *)b;
    uint32_t nx = x->before.n + x->after.n, ny = y->before.n + y->after.n;
    if (nx != ny) {
        return nx < ny ? -1 : 1;
    }
    if (x->before.sum != y->before.sum) {
        return x->before.sum > y->before.sum ? -1 : 1;
    }
    return x->seq < y->seq ? -1 : x->seq > y->seq ? 1 : 0;
}

/* The subsets of side[0 .. n) of up to HINGE_MAX_SIDE members narrower than
   width into out (at most HINGE_MAX_SUBSETS, fewest members first): how many. */
static uint32_t hinge_subsets(const bs_state *s, const uint32_t *side, uint32_t n,
                              uint32_t width, hinge_side *out)
{
    uint32_t combo[HINGE_MAX_SIDE], k, j, listed = 0;
    for (k = 1; k <= HINGE_MAX_SIDE && k <= n; ++k) {
        for (j = 0; j < k; ++j) {
            combo[j] = j;
        }
        do {
            uint64_t sum = 0;
            for (j = 0; j < k; ++j) {
                sum += s->u[side[combo[j]]];
            }
            if (sum >= width) {
                continue;
            }
            if (listed == HINGE_MAX_SUBSETS) {
                return listed;
            }
            out[listed].sum = (uint32_t)sum;
            out[listed].rank = listed;
            out[listed].n = k;
            for (j = 0; j < k; ++j) {
                out[listed].member[j] = side[combo[j]];
            }
            ++listed;
        } while (bs_next_subset(combo, k, n));
    }
    return listed;
}

/* The hinges at boundary c into hinges (from *n, up to HINGE_MAX_HINGES): the
   subsets of ends[0 .. ne) (the members ending at c - 1) and of starts[0 .. ns)
   (those starting at c) with equal sums. before, after: scratch. */
static void hinge_list(const bs_state *s, int32_t c, const uint32_t *ends, uint32_t ne,
                       const uint32_t *starts, uint32_t ns, uint32_t width, hinge_side *before,
                       hinge_side *after, hinge *hinges, uint32_t *n)
{
    uint32_t nb = hinge_subsets(s, ends, ne, width, before);
    uint32_t na = hinge_subsets(s, starts, ns, width, after);
    uint32_t j, a;
    qsort(after, na, sizeof(hinge_side), hinge_side_by_sum);
    for (j = 0; j < nb; ++j) {
        uint32_t lo = 0, hi = na;
        while (lo < hi) { /* the first of `after` at least as wide */
            uint32_t mid = lo + (hi - lo) / 2;
            if (after[mid].sum < before[j].sum) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        for (a = lo; a < na && after[a].sum == before[j].sum; ++a) {
            if (*n == HINGE_MAX_HINGES) {
                return;
            }
            hinges[*n].c = c;
            hinges[*n].seq = *n;
            hinges[*n].before = before[j];
            hinges[*n].after = after[a];
            ++*n;
        }
    }
}

static int ends_before(const void *context, uint32_t a, uint32_t b)
{
    const bs_state *s = (const bs_state *)context;
    return s->l[a] < s->l[b];
}

static int starts_before(const void *context, uint32_t a, uint32_t b)
{
    const bs_state *s = (const bs_state *)context;
    return s->f[a] < s->f[b];
}

/* The hinges at every boundary t0 < c <= t1 of set[0 .. count) into hinges
   (*n of them): by_last, by_first and tmp are scratch of count entries. */
static void hinge_list_all(const bs_state *s, const uint32_t *set, uint32_t count, int32_t t0,
                           int32_t t1, uint32_t width, uint32_t *by_last, uint32_t *by_first,
                           uint32_t *tmp, hinge_side *before, hinge_side *after, hinge *hinges,
                           uint32_t *n)
{
    uint32_t pe = 0, ps = 0;
    int32_t c;
    memcpy(by_last, set, count * sizeof(uint32_t));
    memcpy(by_first, set, count * sizeof(uint32_t));
    ap_pl_sort_indices(by_last, count, tmp, ends_before, s);
    ap_pl_sort_indices(by_first, count, tmp, starts_before, s);
    for (c = t0 + 1; c <= t1; ++c) {
        uint32_t ne = 0, ns = 0;
        while (pe < count && s->l[by_last[pe]] < c - 1) {
            ++pe;
        }
        while (pe + ne < count && s->l[by_last[pe + ne]] == c - 1) {
            ++ne;
        }
        while (ps < count && s->f[by_first[ps]] < c) {
            ++ps;
        }
        while (ps + ns < count && s->f[by_first[ps + ns]] == c) {
            ++ns;
        }
        hinge_list(s, c, by_last + pe, ne, by_first + ps, ns, width, before, after, hinges, n);
    }
}

/* Mark (value 1) or unmark one side of a hinge. */
static void hinge_mark(bs_state *s, const hinge_side *side, unsigned char value)
{
    uint32_t j;
    for (j = 0; j < side->n; ++j) {
        s->mark[side->member[j]] = value;
    }
}

/* The key of hinge h over [t0, t1] in a set of hinges that hold no band: its
   members' hashes and where it is. */
static void hinge_key(const bs_state *s, const hinge *h, int32_t t0, int32_t t1, uint64_t *a,
                      uint64_t *b)
{
    uint64_t where = ((uint64_t)(uint32_t)t0 << 42) ^ ((uint64_t)(uint32_t)t1 << 21) ^
                     (uint64_t)(uint32_t)h->c;
    uint32_t j;
    *a = ap_pl_splitmix64(&where);
    *b = ap_pl_splitmix64(&where);
    for (j = 0; j < h->before.n; ++j) {
        *a += s->key1[h->before.member[j]];
        *b += s->key2[h->before.member[j]];
    }
    for (j = 0; j < h->after.n; ++j) {
        *a += s->key2[h->after.member[j]];
        *b += s->key1[h->after.member[j]];
    }
    if (*a == 0 && *b == 0) {
        *a = 1; /* (0, 0) is an empty slot */
    }
}

/* One half of the band hinged at h->c, into half: the members of set[0 ..
   count) on its side of c hunted with that side of the hinge as the opening.
   part: scratch. 1 when found; else 0 when the hunt ran its course (no band of
   the set has this hinge, nor of any part of it) and -1 when it ran out. */
static int hinge_half(bs_state *s, const uint32_t *set, uint32_t count, int32_t t0, int32_t t1,
                      uint32_t width, int32_t span, const hinge *h, int later, uint32_t *part,
                      bs_bands *half)
{
    uint32_t j, np = 0;
    int found;
    for (j = 0; j < count; ++j) {
        uint32_t i = set[j];
        if (later ? s->f[i] >= h->c : s->l[i] < h->c) {
            part[np++] = i;
        }
    }
    half->n = 0;
    half->cut_short = 0;
    hinge_mark(s, later ? &h->after : &h->before, 1);
    found = later ? ap_bs_hunt(s, part, np, h->c, t1, width, &HUNT_HINGE_HALF, half) > 0
                  : ap_bs_hunt_reversed(s, part, np, t0, h->c - 1, width, span, &HUNT_HINGE_HALF,
                                        half) > 0;
    hinge_mark(s, later ? &h->after : &h->before, 0);
    return found ? 1 : half->cut_short > 0 ? -1 : 0;
}

void ap_bs_hinge_hunt(bs_state *s, const uint32_t *set, uint32_t count, int32_t t0, int32_t t1,
                      uint32_t width, int32_t span, uint32_t max_bands, uint64_t budget,
                      bs_keys *barren, bs_bands *found)
{
    uint32_t *by_last = NULL, *by_first = NULL, *part = NULL, *band = NULL, n = 0, k, added = 0;
    hinge_side *before = NULL, *after = NULL;
    hinge *hinges = NULL;
    uint64_t stop = s->nodes + budget;
    bs_bands lower, upper;
    int have_lower = ap_bs_bands_init(&lower, count), have_upper = ap_bs_bands_init(&upper, count);
    by_last = (uint32_t *)ap_pl_alloc(count, sizeof(uint32_t));
    by_first = (uint32_t *)ap_pl_alloc(count, sizeof(uint32_t));
    part = (uint32_t *)ap_pl_alloc(count, sizeof(uint32_t));
    band = (uint32_t *)ap_pl_alloc(count, sizeof(uint32_t));
    before = (hinge_side *)ap_pl_alloc(HINGE_MAX_SUBSETS, sizeof(hinge_side));
    after = (hinge_side *)ap_pl_alloc(HINGE_MAX_SUBSETS, sizeof(hinge_side));
    hinges = (hinge *)ap_pl_alloc(HINGE_MAX_HINGES, sizeof(hinge));
    if (!have_lower || !have_upper || !by_last || !by_first || !part || !band || !before ||
        !after || !hinges) {
        goto out; /* no memory: no hinge bands */
    }
    /* part (count entries) is the sort's scratch before it holds a half */
    hinge_list_all(s, set, count, t0, t1, width, by_last, by_first, part, before, after, hinges,
                   &n);
    qsort(hinges, n, sizeof(hinge), hinge_order);
    for (k = 0; k < n && added < max_bands; ++k) {
        const hinge *h = &hinges[k];
        uint32_t j, len;
        uint64_t a, b;
        int got;
        if (s->nodes >= stop || s->nodes >= s->node_cap ||
            ((k & 63u) == 0 && ap_pl_expired(s->control, s->deadline))) {
            break;
        }
        hinge_key(s, h, t0, t1, &a, &b);
        if (barren != NULL && ap_bs_keys_has(barren, a, b)) {
            continue;
        }
        got = hinge_half(s, set, count, t0, t1, width, span, h, 0, part, &lower);
        if (got > 0) {
            got = hinge_half(s, set, count, t0, t1, width, span, h, 1, part, &upper);
        }
        if (got <= 0) {
            if (got == 0 && barren != NULL) {
                ap_bs_keys_add(barren, a, b, &s->bytes); /* full: the hinge is tried again */
            }
            continue;
        }
        len = lower.len[0];
        memcpy(band, bs_band(&lower, 0), len * sizeof(uint32_t));
        for (j = 0; j < upper.len[0]; ++j) {
            band[len++] = bs_band(&upper, 0)[j];
        }
        if (len < count) {
            uint32_t had = found->n;
            ap_bs_keep_band(s, band, len, h->before.sum, found);
            added += found->n > had;
        }
    }
out:
    free(by_last);
    free(by_first);
    free(part);
    free(band);
    free(before);
    free(after);
    free(hinges);
    free(lower.members);
    free(upper.members);
}
