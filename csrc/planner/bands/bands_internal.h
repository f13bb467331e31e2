/*
 * The band phase's state, shared by its files: bands.c (the exact search and
 * the phase's entry, ap_pl_bands), bands_descent.c (the descent) and the
 * descent's extra hunts, bands_middle.c and bands_hinge.c.
 * Sizes are in granules, ops relative to the earliest first.
 */
#ifndef AP_BANDS_INTERNAL_H
#define AP_BANDS_INTERNAL_H

#include "../planner_internal.h" /* the shared problem, one folder up */

typedef struct bs_frame {
    size_t set;            /* members: idx[set .. set + count), pushed by the parent */
    uint32_t count;
    int32_t t0, t1;        /* window */
    uint32_t width, base;  /* granules */
    int phase;
    int32_t cut;
    uint64_t h1, h2;       /* order-free hash of the members */
    size_t word_entry;     /* arena tops when the frame was pushed */
    size_t level_entry;
    /* band enumeration (idx arena offsets) */
    size_t starts;         /* members by first, then size descending (stable) */
    size_t start_at;       /* span + 1: position in starts of the first member starting
                              at t0 + k */
    size_t ending;         /* span: granules of band members ending at t0 + k */
    size_t band;           /* count entries */
    uint32_t band_len;
    size_t combo;          /* count entries: positions in the opening */
    uint32_t k, n0, wb;
    uint32_t nlevels;
    int started;
    uint64_t opening_left; /* extension nodes the current opening may still take */
} bs_frame;

/* One boundary of a band's extension: the subsets of the members starting at t
   that add up to goal, walked lazily. */
typedef struct bs_level {
    int32_t t;
    uint32_t items;        /* position in the frame's starts */
    uint32_t n;
    uint32_t goal;
    size_t reach;          /* word arena: n + 1 rows of stride words; row i: the sums
                              items i.. can make */
    size_t stride;
    size_t sums;           /* idx arena: n + 1 prefix sums of the members' granules */
    size_t inc;            /* idx arena: positions the walk included, `picks` of them */
    uint32_t pos, rest;
    uint32_t want;         /* subsets of exactly this many members; 0: any */
    uint32_t picks;        /* members included so far by the walk */
    uint32_t yielded;      /* subsets listed by count */
    uint32_t walked;       /* subsets found by the largest-first walk */
    uint32_t band_len;     /* band length before this level's subset */
    int started;
    size_t idx_entry, word_entry;
} bs_level;

/* Heap the band phase may hold (frames, levels, arenas, key sets) before it
   gives up. */
#define BANDS_MAX_BYTES ((size_t)256 << 20)

/* A set of 128-bit keys (bands_keys.c): cap slots, a power of two. */
typedef struct bs_key {
    uint64_t a, b;
} bs_key;
typedef struct bs_keys {
    bs_key *slot;
    size_t count, cap;
} bs_keys;

/* An empty set of cap slots (a power of two): 0 when out of memory. */
int ap_bs_keys_init(bs_keys *keys, size_t cap);
/* 1 when (a, b) is in the set. */
int ap_bs_keys_has(const bs_keys *keys, uint64_t a, uint64_t b);
/* Add (a, b), not (0, 0); *bytes counts the heap held, growing keeps it under
   BANDS_MAX_BYTES. 0 when the set cannot grow. */
int ap_bs_keys_add(bs_keys *keys, uint64_t a, uint64_t b, size_t *bytes);

typedef struct bs_state {
    uint32_t m;
    uint32_t *u;           /* granules */
    int32_t *f, *l;        /* lifetimes relative to the earliest first */
    uint32_t *item;        /* problem index of each item */
    uint32_t *off;         /* granules, the answer */
    uint64_t *key1, *key2;
    unsigned char *mark;
    int32_t *cross;        /* span + 2 */
    uint32_t *sort_tmp;    /* m */
    uint32_t *idx;
    size_t idx_top, idx_cap;
    uint64_t *words;
    size_t word_top, word_cap;
    bs_frame *frames;
    size_t nframes, frame_cap;
    bs_level *levels;
    size_t level_top, level_cap;
    bs_keys memo;          /* members' hashes of sets that failed */
    size_t bytes;          /* held by the growable parts */
    uint64_t nodes, node_cap;
    uint64_t opening_cap;  /* extension nodes of one opening; 0: no cap */
    int wide_bands;        /* openings up to the whole width less a granule (else half) */
    int given_opening;     /* the only opening: the marked members starting at t0 */
    int any_band;          /* a hunt's bands need not split in time */
    double deadline;
    ap_pl_control *control; /* the call's polling state (cancellation), or NULL */
    int result;            /* of the frame that finished last */
} bs_state;

/* Which members a part of a set keeps: those ending before a cut, those
   starting at or after it, or those not marked. */
typedef enum bs_keep { KEEP_BEFORE, KEEP_FROM, KEEP_UNMARKED } bs_keep;

static inline int bs_keeps(const bs_state *s, uint32_t i, bs_keep keep, int32_t cut)
{
    return keep == KEEP_BEFORE ? s->l[i] < cut : keep == KEEP_FROM ? s->f[i] >= cut : !s->mark[i];
}

/* 1 when item i lives over all of [t0, t1] (its members start at t0 or later). */
static inline int bs_spans(const bs_state *s, uint32_t i, int32_t t0, int32_t t1)
{
    return s->f[i] <= t0 && s->l[i] >= t1;
}

/* Place set[0 .. count) (not in the idx arena) over [t0, t1] within `width`
   granules from `base` (into s->off), with at most `budget` more nodes: 1 when
   placed. */
int ap_bs_search(bs_state *s, const uint32_t *set, uint32_t count, int32_t t0, int32_t t1,
                 uint32_t width, uint32_t base, uint64_t budget);

/* Bands a hunt has found, distinct: band k has members[k * stride ..] (len[k]
   of them) over wb[k] granules; hash[k] is order-free over its members. */
#define BS_MAX_BANDS 49 /* what the descent's hunts can add at one level */
typedef struct bs_bands {
    uint32_t *members;     /* BS_MAX_BANDS * stride entries */
    uint32_t stride;       /* room for one band: the hunted set's count */
    uint32_t n;
    uint32_t len[BS_MAX_BANDS], wb[BS_MAX_BANDS];
    uint64_t hash[BS_MAX_BANDS];
    uint32_t cut_short;    /* hunts that ran out of nodes (or time) */
    uint32_t first_from, first_end; /* bands [first_from, first_end) go first, widest
                                       first (the descent sets them; else equal) */
} bs_bands;

/* An empty `bands` with room for BS_MAX_BANDS bands of up to `stride` members:
   0 when out of memory (its members NULL, which free takes). */
int ap_bs_bands_init(bs_bands *bands, uint32_t stride);

/* Advance combo, k increasing positions among 0 .. n - 1, to its lexicographic
   successor: 0 (combo unchanged) when it was the last. */
static inline int bs_next_subset(uint32_t *combo, uint32_t k, uint32_t n)
{
    int32_t p = (int32_t)k - 1;
    uint32_t j;
    while (p >= 0 && combo[p] == n - k + (uint32_t)p) {
        --p;
    }
    if (p < 0) {
        return 0;
    }
    ++combo[p];
    for (j = (uint32_t)p + 1; j < k; ++j) {
        combo[j] = combo[j - 1] + 1;
    }
    return 1;
}

/* The members of found's band k. */
static inline uint32_t *bs_band(const bs_bands *found, uint32_t k)
{
    return found->members + (size_t)k * found->stride;
}

/* How a band hunt looks. */
typedef struct bs_hunt {
    uint64_t budget;       /* nodes */
    uint64_t opening_cap;  /* extension nodes of one opening; 0: no cap */
    uint32_t max_bands;    /* stop after this many, one per opening */
    int wide;              /* bands up to the whole width less a granule (else half) */
    int given_opening;     /* the marked members starting at t0 are the only opening */
    int any_band;          /* bands need not split in time */
} bs_hunt;

/* Bands that split in time (with hunt->any_band, any) of set[0 .. count) (a
   window with no time cut and no full-span member), as `hunt` says. Those not
   in `found` yet are added while it has room (found NULL: only count them). How
   many were found. */
uint32_t ap_bs_hunt(bs_state *s, const uint32_t *set, uint32_t count, int32_t t0, int32_t t1,
                    uint32_t width, const bs_hunt *hunt, bs_bands *found);

/* ap_bs_hunt with time reversed (ops 0 .. span - 1 in all): [t0, t1] is the
   window in forward time, and the bands found are the same members either way. */
uint32_t ap_bs_hunt_reversed(bs_state *s, const uint32_t *set, uint32_t count, int32_t t0,
                             int32_t t1, uint32_t width, int32_t span, const bs_hunt *hunt,
                             bs_bands *found);

/* Bands of set[0 .. count) over [t0, t1] (ops 0 .. span - 1 in all) found by
   their hinges where they split in time (bands_hinge.c), into `found`: at most
   max_bands new ones, within about `budget` nodes. Hinges in `barren` (NULL:
   none) are passed over, and those whose hunts show they hold no band are
   added: over the same window, no part of the set has a band there either. */
void ap_bs_hinge_hunt(bs_state *s, const uint32_t *set, uint32_t count, int32_t t0, int32_t t1,
                      uint32_t width, int32_t span, uint32_t max_bands, uint64_t budget,
                      bs_keys *barren, bs_bands *found);

/* Add band[0 .. len), wb granules wide, to `found` unless it is there or full. */
void ap_bs_keep_band(const bs_state *s, const uint32_t *band, uint32_t len, uint32_t wb,
                     bs_bands *found);

/* Bands of set[0 .. count) over [t0, t1] (ops 0 .. span - 1 in all) that open
   at the op inside the window where the fewest members live, into `found`
   (bands_middle.c): at most max_bands, within `budget` nodes. */
void ap_bs_middle_hunt(bs_state *s, const uint32_t *set, uint32_t count, int32_t t0, int32_t t1,
                       uint32_t width, int32_t span, uint32_t max_bands, uint64_t budget,
                       bs_bands *found);

/* Stack the members of set[0 .. count) that live over all of [t0, t1] from base
   (into s->off) and mark them: how many, their granules in *height; UINT32_MAX
   (nothing placed) when those pass `limit` (UINT64_MAX: no limit; they all live
   at t0, so they never pass the bound). */
uint32_t ap_bs_stack_full_span(bs_state *s, const uint32_t *set, uint32_t count, int32_t t0,
                               int32_t t1, uint32_t base, uint64_t limit, uint32_t *height);

/* Time reversed: op t becomes span - 1 - t. A plan stays a plan. */
void ap_bs_reverse_time(bs_state *s, int32_t span);

/* The first boundary t0 < c <= t1 that no member of set[0 .. count) crosses, or -1. */
int32_t ap_bs_time_cut(bs_state *s, const uint32_t *set, uint32_t count, int32_t t0, int32_t t1);

/* The descent over all s->m items (all: 0 .. m - 1) in `units` granules
   (bands_descent.c), s->node_cap and s->deadline as limits and max_steps (0:
   none) for the leftovers' shares; with `hinges`, the hinge hunt looks too.
   *steps: the steps its leftovers took. 1 when every item has its offset in
   s->off. */
int ap_bs_descend(bs_state *s, const uint32_t *all, int32_t span, uint32_t units,
                  size_t granule, uint64_t max_steps, int hinges, uint64_t *steps);

#endif
