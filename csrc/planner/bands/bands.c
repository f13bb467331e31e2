/*
 * Band decomposition: look for a perfect packing (arena == live-bytes bound) of
 * a problem that is a cut-up address x time rectangle, or give up.
 *
 * Sizes are counted in granules. solve(S, [t0, t1], w) places the set S within
 * w granules or fails:
 *  1. a set that failed before (memo of failed sets) fails again;
 *  2. time split: at the first boundary t0 < c <= t1 that no buffer of S
 *     crosses, the part before and the part from c on are solved apart, both in w;
 *  3. full-span peel: the buffers living over the whole window are stacked at
 *     the bottom, the rest is solved above them;
 *  4. bands: a band is a subset B of S whose live bytes are one value wb at every
 *     op of the window, 0 < 2 * wb <= w. It starts with a non-empty proper subset
 *     of the buffers starting at t0 (by count, then in lexicographic order) and
 *     is extended left to right: at each boundary t where band buffers ended at
 *     t - 1, a subset of the buffers starting at t with exactly those bytes
 *     joins it. Those subsets are listed fewest buffers first (up to
 *     BANDS_FEW_MAX), then the others largest buffers first, by a depth-first
 *     walk that a subset-sum reachability bitset prunes, at most
 *     BANDS_SUBSET_CAP of each kind per boundary. Each band is tried as solve(B, ..., wb)
 *     below solve(S - B, ..., w - wb); when every band fails, S joins the memo.
 * Two paths of the extension differ in the buffers chosen at some boundary, so
 * no band is listed twice. Every solve step, opening combination and extension
 * step is a node; the node budget (search->max_steps), the clock or a memory cap
 * ends the whole search with "not found".
 *
 * Everything lives on explicit stacks (solve frames, extension levels, index
 * and bitset arenas) that grow on the heap; the C stack stays flat. A failed
 * set is remembered by a 128-bit order-free hash (sums of per-buffer random
 * keys): a false hit can only lose a plan, and the plan found is checked
 * against the conflict graph before it is returned.
 *
 * Bands that do not split in time are skipped (see bs_band_splits).
 *
 * The exact search runs forward with a quarter of the phase's nodes and time,
 * then with time reversed (bands grown from the last op back) up to 4/10:
 * which end opens on true bands differs from problem to problem. When both
 * fail on a problem whose live bytes are the bound at every op (a rectangle to
 * fill), the descent (bands_descent.c) makes a plan from what is left: each set
 * first gets a short exact search; failing that, it is split in time, its
 * full-span buffers are stacked, or the first band found is descended below the
 * rest; a set with none of these (a leftover) is planned on its own by the other
 * strategies. A wrong band then costs only the part it spoils: on
 * bench_planner's cut rectangles this reaches the bound on 300 s4 and 300 s8,
 * where the exact search commits to a band that is no union of the generator's
 * pieces and runs out of nodes below it. Its band hunts are capped and look
 * on for coarser bands (which reach the bound on 500 s15 and 500 s16). Each
 * plan is checked against the conflict graph and kept only if it beats the
 * incumbent. A descent that ends above the bound is followed by one whose hunts
 * also find bands by their hinges, where they split in time (bands_hinge.c).
 *
 * Runs only when every non-empty buffer has the same alignment (offsets are
 * then sums of sizes), the bound is at most BANDS_MAX_UNITS granules and the
 * ops span at most BANDS_MAX_SPAN.
 */
#include "bands_internal.h"

#include <stdlib.h>
#include <string.h>

#define BANDS_MAX_UNITS 65536u
#define BANDS_MAX_SPAN 65536
#define BANDS_SUBSET_CAP 2000u
/* Subsets of up to this many buffers are listed first, fewest first. */
#define BANDS_FEW_MAX 7u
/* Where the exact search forward and then with time reversed end, as parts of
   the phase's nodes and time; the descent has the rest. In bench_planner's wider
   hard sample (seeds 0-19) each direction reaches the bound on rectangles where
   the other runs out of nodes, within 3M nodes when at all (400 s1: 2.45M
   forward); the descent that looks on for coarser bands takes 6.4M on 500 s16
   (with the ends at 0.5 and 0.75 it ran out there, and on 500 s15). */
#define BANDS_FORWARD_END 0.25
#define BANDS_REVERSED_END 0.4
/* The descent (bands_descent.c) takes this part of what is left; the rest goes
   back to auto's later phases, whose neighbourhood search polishes the
   descent's plan. A second, plain descent (hunts not capped) once had the rest:
   in bench_planner's wider hard sample at 10 s it improved no plan, and its time
   given to the neighbourhood search takes 400 s32 from 4.9 % above the bound to
   3.8 %.
   When the descent ends above the bound, a second one whose hunts also look
   for bands by their hinges (bands_hinge.c) gets as many nodes again, beyond
   the phase's cap, and the phase's time left: its nodes run out first on the
   wider sample at 10 s, where with 0.7 of the time 500 s30 reached the bound or
   not with the speed of the machine. It runs second because the hinge hunt
   also finds bands that trade a piece for another of its width (500 s15: 110
   buffers over 1,081 granules where the generator's band has 112), and the
   descent that takes those first ends 6 % above the bound where the plain one
   reaches it. In bench_planner's wider sample at 10 s it takes 500 s30 and
   400 s34 to the bound (from 4.3 % and 2.7 % above). */
#define BANDS_DESCENT_SHARE 0.7
enum { PH_ENTER, PH_SPLIT_LEFT, PH_SPLIT_RIGHT, PH_PEEL, PH_BAND_NEXT, PH_BAND_BELOW,
       PH_BAND_ABOVE };
/* What a frame step returns: finished (failed, placed, failed by the memo), still
   running (a child was pushed, or the next step is its own), or the search is over. */
enum { R_FAIL = 0, R_OK = 1, R_RUNNING = 2, R_ABORT = 3, R_MEMO_FAIL = 4 };

/* Make room for `need` elements of `elem` bytes in *data (capacity *cap),
   doubling; 0 if that would pass the memory cap or the heap refuses. */
static int bs_reserve(bs_state *s, void **data, size_t *cap, size_t need, size_t elem)
{
    size_t want = *cap > 0 ? *cap : 64, bytes, grow;
    void *p;
    if (need <= *cap) {
        return 1;
    }
    while (want < need) {
        if (want > SIZE_MAX / 2) {
            return 0;
        }
        want *= 2;
    }
    if (!ap_pl_mul(want, elem, &bytes) || bytes > BANDS_MAX_BYTES) {
        return 0;
    }
    grow = bytes - *cap * elem;
    if (s->bytes + grow > BANDS_MAX_BYTES) {
        return 0;
    }
    p = realloc(*data, bytes);
    if (p == NULL) {
        return 0;
    }
    *data = p;
    *cap = want;
    s->bytes += grow;
    return 1;
}

/* `count` more entries of `elem` bytes on an arena whose top is *top; their
   offset in *at. 0 when it cannot grow. */
static int bs_push(bs_state *s, void **data, size_t *top, size_t *cap, size_t elem, size_t count,
                   size_t *at)
{
    size_t need;
    if (!ap_pl_add(*top, count, &need) || !bs_reserve(s, data, cap, need, elem)) {
        return 0;
    }
    *at = *top;
    *top = need;
    return 1;
}

static int bs_idx_push(bs_state *s, size_t count, size_t *at)
{
    return bs_push(s, (void **)&s->idx, &s->idx_top, &s->idx_cap, sizeof(uint32_t), count, at);
}

static int bs_word_push(bs_state *s, size_t count, size_t *at)
{
    return bs_push(s, (void **)&s->words, &s->word_top, &s->word_cap, sizeof(uint64_t), count, at);
}

/* A node: 0 once the budget or the clock is spent. */
static int bs_node(bs_state *s)
{
    ++s->nodes;
    if (s->nodes > s->node_cap) {
        return 0;
    }
    return (s->nodes & 255u) != 0 || !ap_pl_expired(s->control, s->deadline);
}

/* ---- frames ------------------------------------------------------------------ */

/* Push a frame for the `count` members just written at idx[set ..]. */
static int bs_push_frame(bs_state *s, size_t set, uint32_t count, int32_t t0, int32_t t1,
                         uint32_t width, uint32_t base)
{
    bs_frame *F;
    uint64_t a = 0, b = 0, mix;
    uint32_t k;
    if (!bs_reserve(s, (void **)&s->frames, &s->frame_cap, s->nframes + 1, sizeof(bs_frame))) {
        return 0;
    }
    for (k = 0; k < count; ++k) {
        uint32_t i = s->idx[set + k];
        a += s->key1[i];
        b += s->key2[i];
    }
    mix = count;
    b ^= ap_pl_splitmix64(&mix);
    if (a == 0 && b == 0) {
        a = 1; /* (0, 0) marks an empty memo slot */
    }
    F = &s->frames[s->nframes++];
    memset(F, 0, sizeof(*F));
    F->set = set;
    F->count = count;
    F->t0 = t0;
    F->t1 = t1;
    F->width = width;
    F->base = base;
    F->phase = PH_ENTER;
    F->h1 = a;
    F->h2 = b;
    F->word_entry = s->word_top;
    F->level_entry = s->level_top;
    return 1;
}

/* Child over the members of frame fi that `keep` keeps, in the frame's order. */
static int bs_push_filtered(bs_state *s, size_t fi, bs_keep keep, int32_t cut, int32_t t0,
                            int32_t t1, uint32_t width, uint32_t base)
{
    size_t at, k;
    uint32_t count = 0, n = s->frames[fi].count;
    if (!bs_idx_push(s, n, &at)) {
        return 0;
    }
    for (k = 0; k < n; ++k) {
        uint32_t i = s->idx[s->frames[fi].set + k];
        if (bs_keeps(s, i, keep, cut)) {
            s->idx[at + count++] = i;
        }
    }
    s->idx_top = at + count;
    return bs_push_frame(s, at, count, t0, t1, width, base);
}

static int starts_before(const void *context, uint32_t a, uint32_t b)
{
    const bs_state *s = (const bs_state *)context;
    if (s->f[a] != s->f[b]) {
        return s->f[a] < s->f[b];
    }
    return s->u[a] > s->u[b];
}

/* Arrays of the band enumeration of frame fi. */
static int bs_bands_init(bs_state *s, size_t fi)
{
    size_t span = (size_t)(s->frames[fi].t1 - s->frames[fi].t0) + 1, at, k;
    uint32_t n = s->frames[fi].count;
    bs_frame *F;
    uint32_t *start_at;
    size_t starts, start_at_off, ending, band, combo;
    if (!bs_idx_push(s, n, &starts) || !bs_idx_push(s, span + 1, &start_at_off) ||
        !bs_idx_push(s, span, &ending) || !bs_idx_push(s, n, &band) ||
        !bs_idx_push(s, n, &combo)) {
        return 0;
    }
    F = &s->frames[fi];
    F->starts = starts;
    F->start_at = start_at_off;
    F->ending = ending;
    F->band = band;
    F->combo = combo;
    memcpy(s->idx + starts, s->idx + F->set, n * sizeof(uint32_t));
    ap_pl_sort_indices(s->idx + starts, n, s->sort_tmp, starts_before, s);
    start_at = s->idx + start_at_off;
    at = 0;
    for (k = 0; k <= span; ++k) {
        while (at < n && (size_t)(s->f[s->idx[starts + at]] - F->t0) < k) {
            ++at;
        }
        start_at[k] = (uint32_t)at;
    }
    F->n0 = start_at[1] - start_at[0];
    F->k = 0;
    F->started = 0;
    F->nlevels = 0;
    return 1;
}

/* Frame fi's band is its opening combination (F->k positions in F->combo among
   the members starting at t0), wb granules wide: set band and ending. */
static void bs_open_band(bs_state *s, size_t fi, uint32_t wb)
{
    bs_frame *F = &s->frames[fi];
    const uint32_t *combo = s->idx + F->combo;
    const uint32_t *opening = s->idx + F->starts + s->idx[F->start_at];
    size_t span = (size_t)(F->t1 - F->t0) + 1;
    uint32_t j;
    memset(s->idx + F->ending, 0, span * sizeof(uint32_t));
    for (j = 0; j < F->k; ++j) {
        uint32_t i = opening[combo[j]];
        s->idx[F->band + j] = i;
        s->idx[F->ending + (size_t)(s->l[i] - F->t0)] += s->u[i];
    }
    F->band_len = F->k;
    F->wb = wb;
}

/* With s->given_opening, frame fi's one opening: its marked members starting at
   t0 (all of them may be: a hinge's side is), when narrower than the width. 1
   found (band and ending set), 0 none (or already tried), -1 out of nodes. */
static int bs_given_combo(bs_state *s, size_t fi)
{
    bs_frame *F = &s->frames[fi];
    uint32_t *combo = s->idx + F->combo;
    const uint32_t *opening = s->idx + F->starts + s->idx[F->start_at];
    uint32_t j, k = 0, wb = 0;
    if (F->k != 0) {
        return 0;
    }
    for (j = 0; j < F->n0; ++j) {
        if (s->mark[opening[j]]) {
            combo[k++] = j;
            wb += s->u[opening[j]];
        }
    }
    if (k == 0 || wb >= F->width) {
        return 0;
    }
    if (!bs_node(s)) {
        return -1;
    }
    F->k = k;
    bs_open_band(s, fi, wb);
    return 1;
}

/* Next opening combination of frame fi within half its width (with
   s->wide_bands, within its width less a granule): 1 found (band and ending
   set), 0 none left, -1 out of nodes. */
static int bs_next_combo(bs_state *s, size_t fi)
{
    bs_frame *F = &s->frames[fi];
    uint32_t *combo = s->idx + F->combo;
    const uint32_t *opening = s->idx + F->starts + s->idx[F->start_at];
    if (s->given_opening) {
        return bs_given_combo(s, fi);
    }
    for (;;) {
        uint32_t j, wb = 0;
        if (F->k == 0) {
            if (F->n0 < 2) {
                return 0;
            }
            F->k = 1;
            combo[0] = 0;
        } else if (!bs_next_subset(combo, F->k, F->n0)) {
            /* the k-subsets are done: the first of k + 1 */
            if (++F->k >= F->n0) {
                return 0;
            }
            for (j = 0; j < F->k; ++j) {
                combo[j] = j;
            }
        }
        if (!bs_node(s)) {
            return -1;
        }
        for (j = 0; j < F->k; ++j) {
            wb += s->u[opening[combo[j]]];
        }
        if (s->wide_bands ? wb >= F->width : (uint64_t)2 * wb > F->width) {
            continue;
        }
        bs_open_band(s, fi, wb);
        return 1;
    }
}

static int bs_reach(const bs_state *s, const bs_level *L, uint32_t row, uint32_t sum)
{
    return (int)((s->words[L->reach + (size_t)row * L->stride + sum / 64] >> (sum % 64)) & 1u);
}

/* dst = src | src << shift, over `stride` words (bit k of word w is sum 64 w + k).
   In three runs without a branch inside, so that the compiler vectorises them. */
static void bs_shift_or(uint64_t *dst, const uint64_t *src, size_t stride, uint32_t shift)
{
    size_t ws = shift / 64, w;
    unsigned bs = shift % 64;
    for (w = 0; w < stride && w < ws; ++w) {
        dst[w] = src[w];
    }
    if (ws >= stride) {
        return;
    }
    if (bs == 0) {
        for (w = ws; w < stride; ++w) {
            dst[w] = src[w] | src[w - ws];
        }
        return;
    }
    dst[ws] = src[ws] | src[0] << bs;
    for (w = ws + 1; w < stride; ++w) {
        dst[w] = src[w] | src[w - ws] << bs | src[w - ws - 1] >> (64 - bs);
    }
}

/* Push the extension level at boundary t of frame fi (goal: the granules that
   ended at t - 1). 0 when out of memory. */
static int bs_push_level(bs_state *s, size_t fi, int32_t t)
{
    bs_frame *F = &s->frames[fi];
    bs_level *L;
    size_t k = (size_t)(t - F->t0), stride, rows, words, reach, sums, inc,
           idx_entry = s->idx_top, word_entry = s->word_top;
    uint32_t items = s->idx[F->start_at + k], n = s->idx[F->start_at + k + 1] - items;
    uint32_t goal = s->idx[F->ending + k - 1], i;
    const uint32_t *members;
    stride = (size_t)goal / 64 + 1;
    if (!ap_pl_mul((size_t)n + 1, stride, &words) || !bs_word_push(s, words, &reach) ||
        !bs_idx_push(s, (size_t)n + 1, &sums) || !bs_idx_push(s, n, &inc) ||
        !bs_reserve(s, (void **)&s->levels, &s->level_cap, s->level_top + 1, sizeof(bs_level))) {
        return 0;
    }
    F = &s->frames[fi];
    members = s->idx + F->starts + items;
    /* prefix sums of the members' granules: they all live at t, so the total is
       at most the bound's granules (BANDS_MAX_UNITS) */
    s->idx[sums] = 0;
    for (i = 0; i < n; ++i) {
        s->idx[sums + i + 1] = s->idx[sums + i] + s->u[members[i]];
    }
    rows = (size_t)n;
    memset(s->words + reach + rows * stride, 0, stride * sizeof(uint64_t));
    s->words[reach + rows * stride] = 1;
    for (i = n; i-- > 0;) {
        bs_shift_or(s->words + reach + (size_t)i * stride,
                    s->words + reach + ((size_t)i + 1) * stride, stride, s->u[members[i]]);
        if ((goal + 1) % 64 != 0) {
            s->words[reach + (size_t)i * stride + stride - 1] &=
                ((uint64_t)1 << ((goal + 1) % 64)) - 1;
        }
    }
    L = &s->levels[s->level_top++];
    memset(L, 0, sizeof(*L));
    L->t = t;
    L->items = items;
    L->n = n;
    L->goal = goal;
    L->rest = goal;
    L->want = 1;
    L->reach = reach;
    L->stride = stride;
    L->sums = sums;
    L->inc = inc;
    L->band_len = F->band_len;
    L->idx_entry = idx_entry;
    L->word_entry = word_entry;
    ++F->nlevels;
    return 1;
}

/* Back to the deepest included member and take its exclude branch; 0 when the
   walk is over. */
static int bs_backtrack(const bs_state *s, const uint32_t *items, const uint32_t *inc,
                        bs_level *L)
{
    if (L->picks == 0) {
        return 0;
    }
    L->pos = inc[--L->picks];
    L->rest += s->u[items[L->pos]];
    ++L->pos;
    return 1;
}

/* Resume the include-before-exclude walk over the level's members, largest
   first, to its next subset with the goal's granules (of exactly L->want
   members when want > 0); 0 when none is left. A branch is cut when the sum
   left is unreachable and, for a count, when the `left` members still wanted
   cannot make it: the largest `left` from pos on sum to less, or the smallest
   to more (members are by size, descending; sums: prefix sums). The cuts only
   drop branches with no subset, so the subsets and their order are the same. */
static int bs_walk(const bs_state *s, const uint32_t *items, const uint32_t *sums,
                   uint32_t *inc, bs_level *L)
{
    if (L->started && !bs_backtrack(s, items, inc, L)) {
        return 0;
    }
    L->started = 1;
    for (;;) {
        int open = bs_reach(s, L, L->pos, L->rest);
        if (open && L->want > 0) {
            uint32_t left = L->want - L->picks;
            open = left == 0 ? L->rest == 0
                             : L->rest > 0 && left <= L->n - L->pos &&
                                   L->rest <= sums[L->pos + left] - sums[L->pos] &&
                                   L->rest >= sums[L->n] - sums[L->n - left];
        }
        if (open) {
            uint32_t size;
            if (L->rest == 0) {
                return 1;
            }
            /* rest > 0 is reachable, so pos < n */
            size = s->u[items[L->pos]];
            if (size <= L->rest) {
                inc[L->picks++] = L->pos;
                L->rest -= size;
            }
            ++L->pos;
        } else if (!bs_backtrack(s, items, inc, L)) {
            return 0;
        }
    }
}

/* Next subset of the level (members starting at starts + L->items); 0 when none
   is left. First those of 1, 2, ... BANDS_FEW_MAX members (at most
   BANDS_SUBSET_CAP in all; reaching it ends the level), then the walk's other
   subsets, largest first (at most BANDS_SUBSET_CAP found, those already listed
   skipped). Fewest first because a band rarely takes many of the buffers that
   start at one op: on bench_planner's cut rectangles this order reaches the
   bound on 300 s1 and 400 s1, where largest-first runs out of nodes, and needs
   no more nodes elsewhere. */
static int bs_advance(bs_state *s, size_t starts, bs_level *L)
{
    uint32_t *inc = s->idx + L->inc;
    const uint32_t *items = s->idx + starts + L->items, *sums = s->idx + L->sums;
    for (;;) {
        if (L->want == 0) {
            if (L->walked >= BANDS_SUBSET_CAP || !bs_walk(s, items, sums, inc, L)) {
                return 0;
            }
            ++L->walked;
            if (L->picks <= BANDS_FEW_MAX) {
                continue;   /* listed by count already */
            }
            return 1;
        }
        if (L->yielded >= BANDS_SUBSET_CAP) {
            return 0;
        }
        if (bs_walk(s, items, sums, inc, L)) {
            ++L->yielded;
            return 1;
        }
        /* no subset of `want` members is left: one more member, or the walk */
        L->want = L->want < BANDS_FEW_MAX && L->want < L->n ? L->want + 1 : 0;
        L->pos = 0;
        L->rest = L->goal;
        L->picks = 0;
        L->started = 0;
    }
}

/* Add (sign 1) or take back (sign -1) the level's current subset. */
static void bs_apply(bs_state *s, size_t fi, const bs_level *L, int sign)
{
    bs_frame *F = &s->frames[fi];
    const uint32_t *inc = s->idx + L->inc, *items = s->idx + F->starts + L->items;
    uint32_t j;
    if (sign < 0) {
        F->band_len = L->band_len;
    }
    for (j = 0; j < L->picks; ++j) {
        uint32_t i = items[inc[j]];
        uint32_t *e = &s->idx[F->ending + (size_t)(s->l[i] - F->t0)];
        if (sign > 0) {
            s->idx[F->band + F->band_len++] = i;
            *e += s->u[i];
        } else {
            *e -= s->u[i];
        }
    }
}

static void bs_pop_level(bs_state *s, size_t fi)
{
    bs_level *L = &s->levels[s->level_top - 1];
    s->idx_top = L->idx_entry;
    s->word_top = L->word_entry;
    --s->level_top;
    --s->frames[fi].nlevels;
}

/* The first boundary t0 < c <= t1 that no member of set[0 .. count) crosses (a
   member crosses c when it lives at c - 1 and at c), or -1. */
int32_t ap_bs_time_cut(bs_state *s, const uint32_t *set, uint32_t count, int32_t t0,
                           int32_t t1)
{
    size_t span = (size_t)(t1 - t0) + 1, k;
    int32_t open = 0;
    uint32_t j;
    memset(s->cross, 0, (span + 1) * sizeof(int32_t));
    for (j = 0; j < count; ++j) {
        uint32_t i = set[j];
        if (s->f[i] < s->l[i]) {
            ++s->cross[s->f[i] - t0 + 1];
            --s->cross[s->l[i] - t0 + 1];
        }
    }
    for (k = 1; k < span; ++k) {
        open += s->cross[k];
        if (open == 0) {
            return t0 + (int32_t)k;
        }
    }
    return -1;
}

/* 1 when frame fi's current band splits in time. Bands that do not are skipped:
   in a guillotine packing of a window with no time cut and no full-span buffer,
   the stack of full-width pieces cut as finely as it goes consists of pieces
   that each split in time, and the narrowest is at most half the width, so one
   of them is always among the bands listed. */
static int bs_band_splits(bs_state *s, size_t fi)
{
    const bs_frame *F = &s->frames[fi];
    return ap_bs_time_cut(s, s->idx + F->band, F->band_len, F->t0, F->t1) >= 0;
}

/* Next band of the top frame that splits in time (bs_band_splits): 1 (band and
   wb set), 0 none left, -1 abort. */
static int bs_next_band(bs_state *s, size_t fi)
{
    enum { NEXT_COMBO, DESCEND, BACKTRACK, ADVANCE } mode;
    int32_t t = 0;
    bs_frame *F = &s->frames[fi];
    if (!F->started) {
        F->started = 1;
        mode = NEXT_COMBO;
    } else {
        mode = BACKTRACK;
    }
    for (;;) {
        F = &s->frames[fi];
        if (mode == NEXT_COMBO) {
            int r = bs_next_combo(s, fi);
            if (r <= 0) {
                return r;
            }
            F = &s->frames[fi];
            F->opening_left = s->opening_cap > 0 ? s->opening_cap : UINT64_MAX;
            t = F->t0 + 1;
            mode = DESCEND;
        }
        if (mode == DESCEND) {
            if (F->opening_left-- == 0) {
                /* this opening took its nodes: drop it */
                while (F->nlevels > 0) {
                    bs_pop_level(s, fi);
                }
                mode = NEXT_COMBO;
                continue;
            }
            if (!bs_node(s)) {
                return -1;
            }
            while (t <= F->t1 && s->idx[F->ending + (size_t)(t - 1 - F->t0)] == 0) {
                ++t;
            }
            if (t > F->t1) {
                if (s->any_band || bs_band_splits(s, fi)) {
                    return 1;
                }
                mode = BACKTRACK;
                continue;
            }
            if (!bs_push_level(s, fi, t)) {
                return -1;
            }
            mode = ADVANCE;
        } else if (mode == BACKTRACK) {
            if (F->nlevels == 0) {
                mode = NEXT_COMBO;
                continue;
            }
            bs_apply(s, fi, &s->levels[s->level_top - 1], -1);
            mode = ADVANCE;
        }
        if (mode == ADVANCE) {
            bs_level *L = &s->levels[s->level_top - 1];
            if (bs_advance(s, F->starts, L)) {
                bs_apply(s, fi, L, 1);
                t = L->t + 1;
                mode = DESCEND;
            } else {
                bs_pop_level(s, fi);
                mode = BACKTRACK;
            }
        }
    }
}

uint32_t ap_bs_stack_full_span(bs_state *s, const uint32_t *set, uint32_t count, int32_t t0,
                               int32_t t1, uint32_t base, uint64_t limit, uint32_t *height)
{
    uint64_t total = 0;
    uint32_t j, peeled = 0, at = 0;
    for (j = 0; j < count; ++j) {
        uint32_t i = set[j];
        if (bs_spans(s, i, t0, t1)) {
            total += s->u[i];
            ++peeled;
        }
    }
    if (total > limit) {
        return UINT32_MAX;
    }
    for (j = 0; j < count && peeled > 0; ++j) {
        uint32_t i = set[j];
        if (bs_spans(s, i, t0, t1)) {
            s->off[i] = base + at;
            at += s->u[i];
            s->mark[i] = 1;
        }
    }
    *height = at;
    return peeled;
}

/* First visit of frame fi: memo, split, peel, or start the bands. */
static int bs_enter(bs_state *s, size_t fi)
{
    bs_frame *F = &s->frames[fi];
    const uint32_t *set = s->idx + F->set;
    int32_t cut;
    uint32_t j, peeled = 0, full = 0;
    if (!bs_node(s)) {
        return R_ABORT;
    }
    if (ap_bs_keys_has(&s->memo, F->h1, F->h2)) {
        return R_MEMO_FAIL;
    }
    cut = ap_bs_time_cut(s, set, F->count, F->t0, F->t1);
    if (cut >= 0) {
        F->cut = cut;
        F->phase = PH_SPLIT_LEFT;
        return bs_push_filtered(s, fi, KEEP_BEFORE, cut, F->t0, cut - 1, F->width, F->base)
                   ? R_RUNNING
                   : R_ABORT;
    }
    peeled = ap_bs_stack_full_span(s, set, F->count, F->t0, F->t1, F->base, F->width, &full);
    if (peeled == UINT32_MAX) {
        return R_FAIL;
    }
    if (peeled > 0) {
        int ok = 1;
        if (peeled < F->count) {
            F->phase = PH_PEEL;
            ok = bs_push_filtered(s, fi, KEEP_UNMARKED, 0, F->t0, F->t1, F->width - full,
                                  F->base + full);
        }
        F = &s->frames[fi];
        for (j = 0; j < F->count; ++j) {
            s->mark[s->idx[F->set + j]] = 0;
        }
        if (!ok) {
            return R_ABORT;
        }
        return peeled < F->count ? R_RUNNING : R_OK;
    }
    if (F->count < 2) {
        return R_FAIL;
    }
    if (!bs_bands_init(s, fi)) {
        return R_ABORT;
    }
    s->frames[fi].phase = PH_BAND_NEXT;
    return R_RUNNING; /* no child: the loop comes back to PH_BAND_NEXT */
}

/* Try the next band of frame fi below the rest. */
static int bs_band_next(bs_state *s, size_t fi)
{
    size_t at;
    int r = bs_next_band(s, fi);
    bs_frame *F;
    if (r < 0) {
        return R_ABORT;
    }
    if (r == 0) {
        return R_FAIL;
    }
    F = &s->frames[fi];
    if (!bs_idx_push(s, F->band_len, &at)) {
        return R_ABORT;
    }
    F = &s->frames[fi];
    memcpy(s->idx + at, s->idx + F->band, F->band_len * sizeof(uint32_t));
    F->phase = PH_BAND_BELOW;
    return bs_push_frame(s, at, F->band_len, F->t0, F->t1, F->wb, F->base) ? R_RUNNING : R_ABORT;
}

/* Resume frame fi after its child finished with s->result. */
static int bs_resume(bs_state *s, size_t fi)
{
    bs_frame *F = &s->frames[fi];
    uint32_t j;
    int ok;
    switch (F->phase) {
    case PH_ENTER:
        return bs_enter(s, fi);
    case PH_SPLIT_LEFT:
        if (!s->result) {
            return R_FAIL;
        }
        F->phase = PH_SPLIT_RIGHT;
        return bs_push_filtered(s, fi, KEEP_FROM, F->cut, F->cut, F->t1, F->width, F->base)
                   ? R_RUNNING
                   : R_ABORT;
    case PH_SPLIT_RIGHT:
    case PH_PEEL:
        return s->result ? R_OK : R_FAIL;
    case PH_BAND_BELOW:
        if (!s->result) {
            return bs_band_next(s, fi);
        }
        for (j = 0; j < F->band_len; ++j) {
            s->mark[s->idx[F->band + j]] = 1;
        }
        F->phase = PH_BAND_ABOVE;
        ok = bs_push_filtered(s, fi, KEEP_UNMARKED, 0, F->t0, F->t1, F->width - F->wb,
                              F->base + F->wb);
        F = &s->frames[fi];
        for (j = 0; j < F->band_len; ++j) {
            s->mark[s->idx[F->band + j]] = 0;
        }
        return ok ? R_RUNNING : R_ABORT;
    case PH_BAND_ABOVE:
        if (s->result) {
            return R_OK;
        }
        return bs_band_next(s, fi);
    case PH_BAND_NEXT:
    default:
        return bs_band_next(s, fi);
    }
}

/* Run the frames on the stack to the end: 1 when the bottom one placed its set. */
static int bs_loop(bs_state *s)
{
    while (s->nframes > 0) {
        size_t fi = s->nframes - 1;
        int r = bs_resume(s, fi);
        if (r == R_ABORT) {
            return 0;
        }
        if (r == R_RUNNING) {
            continue;
        }
        /* the frame is finished: remember a failure, free what it holds */
        {
            bs_frame *F = &s->frames[fi];
            if (r == R_FAIL && !ap_bs_keys_add(&s->memo, F->h1, F->h2, &s->bytes)) {
                return 0;
            }
            s->idx_top = F->set;
            s->word_top = F->word_entry;
            s->level_top = F->level_entry;
            s->result = r == R_OK;
            --s->nframes;
        }
    }
    return s->result;
}

/* Where the stacks stand between searches, and the node cap. */
typedef struct bs_mark {
    size_t idx_top, word_top, level_top;
    uint64_t node_cap;
} bs_mark;

/* Push a frame over set[0 .. count) (not in the idx arena) with at most `budget`
   more nodes; 0 when it cannot. */
static int bs_open(bs_state *s, const uint32_t *set, uint32_t count, int32_t t0, int32_t t1,
                   uint32_t width, uint32_t base, uint64_t budget, bs_mark *mark)
{
    size_t at;
    mark->idx_top = s->idx_top;
    mark->word_top = s->word_top;
    mark->level_top = s->level_top;
    mark->node_cap = s->node_cap;
    if (s->nodes < s->node_cap && s->node_cap - s->nodes > budget) {
        s->node_cap = s->nodes + budget;
    }
    if (!bs_idx_push(s, count, &at)) {
        return 0;
    }
    memcpy(s->idx + at, set, count * sizeof(uint32_t));
    s->result = 0;
    return bs_push_frame(s, at, count, t0, t1, width, base);
}

/* Drop whatever the search left on the stacks. */
static void bs_close(bs_state *s, const bs_mark *mark)
{
    s->nframes = 0;
    s->idx_top = mark->idx_top;
    s->word_top = mark->word_top;
    s->level_top = mark->level_top;
    s->node_cap = mark->node_cap;
}

/* Place set[0 .. count) within `width` granules from `base` (s->off), with at
   most `budget` nodes: 1 when placed. */
int ap_bs_search(bs_state *s, const uint32_t *set, uint32_t count, int32_t t0, int32_t t1,
                     uint32_t width, uint32_t base, uint64_t budget)
{
    bs_mark mark;
    int ok = bs_open(s, set, count, t0, t1, width, base, budget, &mark) && bs_loop(s);
    bs_close(s, &mark);
    return ok;
}

int ap_bs_bands_init(bs_bands *bands, uint32_t stride)
{
    memset(bands, 0, sizeof(*bands));
    bands->stride = stride;
    bands->members = (uint32_t *)ap_pl_alloc((size_t)BS_MAX_BANDS * stride, sizeof(uint32_t));
    return bands->members != NULL;
}

void ap_bs_keep_band(const bs_state *s, const uint32_t *band, uint32_t len, uint32_t wb,
                     bs_bands *found)
{
    uint64_t hash = len;
    uint32_t j, k;
    for (j = 0; j < len; ++j) {
        hash += s->key1[band[j]];
    }
    for (k = 0; k < found->n; ++k) {
        if (found->hash[k] == hash && found->len[k] == len && found->wb[k] == wb) {
            return;
        }
    }
    if (found->n == BS_MAX_BANDS) {
        return;
    }
    memcpy(bs_band(found, found->n), band, len * sizeof(uint32_t));
    found->len[found->n] = len;
    found->wb[found->n] = wb;
    found->hash[found->n] = hash;
    ++found->n;
}

uint32_t ap_bs_hunt(bs_state *s, const uint32_t *set, uint32_t count, int32_t t0, int32_t t1,
                    uint32_t width, const bs_hunt *hunt, bs_bands *found)
{
    bs_mark mark;
    uint32_t n = 0;
    s->opening_cap = hunt->opening_cap;
    s->wide_bands = hunt->wide;
    s->given_opening = hunt->given_opening;
    s->any_band = hunt->any_band;
    if (bs_open(s, set, count, t0, t1, width, 0, hunt->budget, &mark) && bs_bands_init(s, 0)) {
        int r = 1;
        while (n < hunt->max_bands && (r = bs_next_band(s, 0)) > 0) {
            ++n;
            if (found != NULL) {
                const bs_frame *F = &s->frames[0];
                ap_bs_keep_band(s, s->idx + F->band, F->band_len, F->wb, found);
            }
            s->frames[0].opening_left = 0; /* the next band comes from another opening */
        }
        if (r < 0 && found != NULL) {
            ++found->cut_short;
        }
    }
    bs_close(s, &mark);
    s->opening_cap = 0;
    s->wide_bands = 0;
    s->given_opening = 0;
    s->any_band = 0;
    return n;
}

uint32_t ap_bs_hunt_reversed(bs_state *s, const uint32_t *set, uint32_t count, int32_t t0,
                             int32_t t1, uint32_t width, int32_t span, const bs_hunt *hunt,
                             bs_bands *found)
{
    uint32_t n;
    ap_bs_reverse_time(s, span);
    n = ap_bs_hunt(s, set, count, span - 1 - t1, span - 1 - t0, width, hunt, found);
    ap_bs_reverse_time(s, span);
    return n;
}

/* Every conflicting pair disjoint. */
static int bs_disjoint(const ap_pl_problem *p, const size_t *offsets)
{
    size_t i, k;
    for (i = 0; i < p->n; ++i) {
        for (k = p->adj_start[i]; k < p->adj_start[i + 1]; ++k) {
            size_t j = p->adj[k];
            if (offsets[i] < offsets[j] + p->size[j] && offsets[j] < offsets[i] + p->size[i]) {
                return 0;
            }
        }
    }
    return 1;
}

/* Time reversed: op t becomes span - 1 - t. A plan stays a plan, so the search
   can look for bands from the other end. */
void ap_bs_reverse_time(bs_state *s, int32_t span)
{
    uint32_t i;
    for (i = 0; i < s->m; ++i) {
        int32_t f = s->f[i];
        s->f[i] = span - 1 - s->l[i];
        s->l[i] = span - 1 - f;
    }
}

/* 1 when the live granules are `units` at every op: a rectangle to fill, the
   only shape the descent looks for (elsewhere the later phases have its time). */
static int bs_flat(const bs_state *s, int32_t span, uint32_t units)
{
    int64_t live = 0;
    int32_t t;
    uint32_t i;
    int64_t *delta = (int64_t *)ap_pl_zalloc((size_t)span + 1, sizeof(int64_t));
    int flat = delta != NULL;
    for (i = 0; flat && i < s->m; ++i) {
        delta[s->f[i]] += s->u[i];
        delta[s->l[i] + 1] -= s->u[i];
    }
    for (t = 0; flat && t < span; ++t) {
        live += delta[t];
        flat = live == (int64_t)units;
    }
    free(delta);
    return flat;
}

static void bs_free(bs_state *s)
{
    free(s->u);
    free(s->f);
    free(s->l);
    free(s->item);
    free(s->off);
    free(s->key1);
    free(s->key2);
    free(s->mark);
    free(s->cross);
    free(s->sort_tmp);
    free(s->idx);
    free(s->words);
    free(s->frames);
    free(s->levels);
    free(s->memo.slot);
}

/* The plan in s->off (granules) into offsets when it verifies and beats *arena
   (work: scratch of p->n entries). */
static void bs_offer(const bs_state *s, const ap_pl_problem *p, size_t *work, size_t *offsets,
                     size_t *arena, ap_pl_search *search)
{
    size_t i, found;
    for (i = 0; i < p->n; ++i) {
        work[i] = 0;
    }
    for (i = 0; i < s->m; ++i) {
        work[s->item[i]] = (size_t)s->off[i] * p->granule;
    }
    found = ap_pl_arena(p, work);
    if (found < *arena && bs_disjoint(p, work)) {
        memcpy(offsets, work, p->n * sizeof(size_t));
        *arena = found;
        search->improved = 1;
        search->proven = found == p->lower_bound;
    }
}

ap_status ap_pl_bands(const ap_pl_problem *problem, size_t *offsets, size_t *arena,
                      ap_pl_search *search)
{
    const ap_pl_problem *p = problem;
    bs_state s;
    size_t i, g = p->granule, align = 0;
    int32_t tmin = INT32_MAX, tmax = INT32_MIN, span;
    uint32_t units, m = 0;
    size_t *work = NULL;
    uint32_t *all = NULL;
    ap_status st = AP_OK;
    uint64_t keys = 0; /* per-buffer random keys of the order-free set hash */
    uint64_t leftover_steps = 0;
    double now = ap_pl_now();
    int placed = 0, pass;

    if (*arena <= p->lower_bound || p->nonempty == 0 || p->lower_bound / g > BANDS_MAX_UNITS ||
        p->nonempty > UINT32_MAX / 4) {
        return AP_OK;
    }
    for (i = 0; i < p->n; ++i) {
        if (p->size[i] == 0) {
            continue;
        }
        if (align == 0) {
            align = p->buffers[i].alignment;
        } else if (p->buffers[i].alignment != align) {
            return AP_OK; /* offsets would need padding between sizes */
        }
        if (p->buffers[i].first < tmin) {
            tmin = p->buffers[i].first;
        }
        if (p->buffers[i].last > tmax) {
            tmax = p->buffers[i].last;
        }
    }
    if ((int64_t)tmax - tmin + 1 > BANDS_MAX_SPAN) {
        return AP_OK;
    }
    span = tmax - tmin + 1;
    units = (uint32_t)(p->lower_bound / g);

    memset(&s, 0, sizeof(s));
    s.control = p->control;
    s.m = (uint32_t)p->nonempty;
    s.u = (uint32_t *)ap_pl_alloc(s.m, sizeof(uint32_t));
    s.f = (int32_t *)ap_pl_alloc(s.m, sizeof(int32_t));
    s.l = (int32_t *)ap_pl_alloc(s.m, sizeof(int32_t));
    s.item = (uint32_t *)ap_pl_alloc(s.m, sizeof(uint32_t));
    s.off = (uint32_t *)ap_pl_zalloc(s.m, sizeof(uint32_t));
    s.key1 = (uint64_t *)ap_pl_alloc(s.m, sizeof(uint64_t));
    s.key2 = (uint64_t *)ap_pl_alloc(s.m, sizeof(uint64_t));
    s.mark = (unsigned char *)ap_pl_zalloc(s.m, 1);
    s.cross = (int32_t *)ap_pl_alloc((size_t)span + 2, sizeof(int32_t));
    s.sort_tmp = (uint32_t *)ap_pl_alloc(s.m, sizeof(uint32_t));
    ap_bs_keys_init(&s.memo, 4096);
    work = (size_t *)ap_pl_alloc(p->n, sizeof(size_t));
    all = (uint32_t *)ap_pl_alloc(s.m, sizeof(uint32_t));
    if (!all || !s.u || !s.f || !s.l || !s.item || !s.off || !s.key1 || !s.key2 || !s.mark ||
        !s.cross || !s.sort_tmp || !s.memo.slot || !work) {
        st = AP_ERR_OUT_OF_MEMORY;
        goto out;
    }
    for (i = 0; i < p->n; ++i) {
        if (p->size[i] == 0) {
            continue;
        }
        s.u[m] = (uint32_t)(p->size[i] / g); /* <= lower bound / g <= BANDS_MAX_UNITS */
        s.f[m] = p->buffers[i].first - tmin;
        s.l[m] = p->buffers[i].last - tmin;
        s.item[m] = (uint32_t)i;
        s.key1[m] = ap_pl_splitmix64(&keys);
        s.key2[m] = ap_pl_splitmix64(&keys);
        ++m;
    }
    for (i = 0; i < m; ++i) {
        all[i] = (uint32_t)i;
    }
    /* the exact search forward, then with time reversed: up to BANDS_FORWARD_END
       and BANDS_REVERSED_END of the nodes and the time */
    s.node_cap = search->max_steps > 0 ? search->max_steps : UINT64_MAX;
    for (pass = 0; pass < 2 && !placed; ++pass) {
        double end = pass == 0 ? BANDS_FORWARD_END : BANDS_REVERSED_END;
        uint64_t nodes = (uint64_t)(end * (double)s.node_cap);
        if (pass == 1) {
            ap_bs_reverse_time(&s, span);
        }
        s.deadline = now + end * (search->deadline - now);
        placed = s.nodes < nodes &&
                 ap_bs_search(&s, all, m, 0, span - 1, units, 0, nodes - s.nodes);
    }
    if (placed) {
        bs_offer(&s, p, work, offsets, arena, search);
    } else if (bs_flat(&s, span, units)) {
        /* the descent, with BANDS_DESCENT_SHARE of what is left; the rest goes
           back to auto's later phases */
        uint64_t node_cap = s.node_cap, cap = search->max_steps, spent = s.nodes;
        double at = ap_pl_now();
        ap_bs_reverse_time(&s, span); /* forward again */
        s.deadline = at + BANDS_DESCENT_SHARE * (search->deadline - at);
        if (cap > spent) {
            cap = spent + (uint64_t)(BANDS_DESCENT_SHARE * (double)(cap - spent));
            s.node_cap = cap;
        }
        if (ap_bs_descend(&s, all, span, units, g, cap, 0, &leftover_steps)) {
            bs_offer(&s, p, work, offsets, arena, search);
        }
        if (*arena > p->lower_bound && cap > spent && ap_pl_now() < search->deadline) {
            /* the hinge descent, with as many nodes again and the phase's time */
            uint64_t steps = 0;
            s.deadline = search->deadline;
            s.node_cap = s.nodes + (cap - spent);
            node_cap += cap - spent;
            if (ap_bs_descend(&s, all, span, units, g, s.node_cap, 1, &steps)) {
                bs_offer(&s, p, work, offsets, arena, search);
            }
            leftover_steps += steps;
        }
        s.node_cap = node_cap; /* the phase's cap, for the steps it reports */
    }
    search->steps += (s.nodes > s.node_cap ? s.node_cap : s.nodes) + leftover_steps;
out:
    free(work);
    free(all);
    bs_free(&s);
    return st;
}
