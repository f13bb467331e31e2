/*
 * The sweep heuristic: a plan without the conflict graph.
 *
 * On a problem with thousands of buffers live at every op the conflict graph has
 * billions of edges: building it takes seconds and gigabytes, and every greedy
 * pass over it (TFLite Micro's included) walks each edge again. The sweep instead
 * visits the ops in order, as an allocator would at run time:
 *
 *   - buffers sorted by first op, larger first among those of one op (the larger
 *     ones get the low, unfragmented addresses; ties by index, for determinism): their
 *     records copied once, the copy itself the first (by size) of two stable counting
 *     sorts where the ops and the sizes (in granules) span few values, so the loop
 *     reads them in order;
 *   - before the buffers of op t are placed, every buffer whose last op is before t
 *     gives its range back (the buffers in order of last op, counted the same way),
 *     merged with free neighbours;
 *   - each buffer goes first fit: the lowest free range that holds it aligned.
 *
 * The free ranges are never more than the live buffers + 1 and are always the same
 * set, whatever holds them, so any structure gives the same plan; this one is chosen
 * for the cache. They sit in address order in blocks of SW_BLOCK (starts and lengths
 * in two arrays), the blocks in an array of positions with each block's first start
 * and longest range, and the longest of every SW_GROUP positions above them. "The
 * lowest range of at least s bytes" reads a few group maxima, then a group's block
 * maxima, then one block's lengths, all contiguous; "the ranges around address a"
 * is a binary search over first starts and then in one block. A range that shrinks
 * or grows keeps its place and is changed in place; one that appears or vanishes
 * moves the rest of its block (a block split in halves when full, joined with a
 * neighbour when the two fit in half a block). The range above everything placed is
 * a free range without end.
 * A range long enough but whose aligned start leaves too little is passed over
 * (a few times at most; then a range of s + alignment - 1 bytes, which always
 * holds it, is asked for). Time O(n (log n + SW_BLOCK + r / (SW_BLOCK SW_GROUP)))
 * for r free ranges, memory O(n) for the records and O(r) for the ranges; the plan is
 * valid by construction: a range is free at op t only when every buffer that used it
 * died before t.
 */
#include "planner_internal.h"

#include <stdlib.h>
#include <string.h>

/* Ranges that are long enough but misaligned tried before asking for a longer one. */
#define MISALIGNED_TRIES 4
/* Free ranges a block holds, and blocks a group of the summary covers. Every two
   neighbouring blocks hold more than SW_BLOCK / 2 ranges between them, so r ranges
   take fewer than 4 r / SW_BLOCK + 1 blocks. */
#define SW_BLOCK 64u
#define SW_GROUP 32u

/* Free ranges in address order, SW_BLOCK at most, as starts and lengths side by side:
   "the first long enough" reads the lengths alone. */
typedef struct sw_block {
    size_t begin[SW_BLOCK];
    size_t len[SW_BLOCK];   /* end - begin; the range without end ends at SIZE_MAX */
    uint32_t count;
} sw_block;

/* The free ranges: blocks in address order (position k: block id[k], its first start
   first[k], its longest range longest[k]), and the longest range of each SW_GROUP
   positions (group[k / SW_GROUP]). One block, empty, when nothing is free. Blocks
   come from a pool that grows as they are needed (the pool, like every array here,
   is indexed, never pointed into across a call that may grow it). */
typedef struct sw_ranges {
    sw_block *pool;
    uint32_t *id;
    size_t *first;
    size_t *longest;
    size_t *group;
    uint32_t blocks;        /* positions in use */
    uint32_t capacity;      /* of pool and of the position arrays */
    uint32_t limit;         /* most blocks the ranges can ever take */
    uint32_t unused;        /* pool blocks [unused, capacity) never taken */
    uint32_t spare;         /* a pool block given back, or UINT32_MAX (linked through count) */
} sw_ranges;

/* Where a range is: position k's block, index i in it. */
typedef struct sw_at {
    uint32_t k, i;
} sw_at;

static sw_block *blk(const sw_ranges *r, uint32_t k)
{
    return &r->pool[r->id[k]];
}

/* realloc(p, count * size) with the product checked: NULL (p kept) on failure. */
static void *resized(void *p, size_t count, size_t size)
{
    size_t bytes;
    return ap_pl_mul(count, size, &bytes) ? realloc(p, bytes) : NULL;
}

/* Make room for more blocks (in the pool and the position arrays), up to the limit.
   0 when memory runs out. */
static int grow(sw_ranges *r)
{
    uint32_t cap = r->capacity < r->limit / 2 ? r->capacity * 2 : r->limit;
    void *p;
    if (cap <= r->capacity) {
        return 0; /* cannot happen: the limit holds every block the ranges can take */
    }
    if ((p = resized(r->pool, cap, sizeof(sw_block))) == NULL) {
        return 0;
    }
    r->pool = (sw_block *)p;
    if ((p = resized(r->id, cap, sizeof(uint32_t))) == NULL) {
        return 0;
    }
    r->id = (uint32_t *)p;
    if ((p = resized(r->first, cap, sizeof(size_t))) == NULL) {
        return 0;
    }
    r->first = (size_t *)p;
    if ((p = resized(r->longest, cap, sizeof(size_t))) == NULL) {
        return 0;
    }
    r->longest = (size_t *)p;
    if ((p = resized(r->group, cap / SW_GROUP + 1, sizeof(size_t))) == NULL) {
        return 0;
    }
    r->group = (size_t *)p;
    r->capacity = cap;
    return 1;
}

static void group_refresh(sw_ranges *r, uint32_t g)
{
    uint32_t k = g * SW_GROUP, stop = k + SW_GROUP < r->blocks ? k + SW_GROUP : r->blocks;
    size_t best = 0;
    for (; k < stop; ++k) {
        best = r->longest[k] > best ? r->longest[k] : best;
    }
    r->group[g] = best;
}

/* Position k's block changed its ranges: its first start, its longest, its group's. */
static void refresh(sw_ranges *r, uint32_t k)
{
    const sw_block *b = blk(r, k);
    size_t best = 0, was = r->longest[k];
    uint32_t i;
    for (i = 0; i < b->count; ++i) {
        best = b->len[i] > best ? b->len[i] : best;
    }
    r->first[k] = b->count > 0 ? b->begin[0] : SIZE_MAX;
    r->longest[k] = best;
    if (best > r->group[k / SW_GROUP]) {
        r->group[k / SW_GROUP] = best;
    } else if (best < was && was == r->group[k / SW_GROUP]) {
        group_refresh(r, k / SW_GROUP);
    }
}

/* A range at position k grew to `len`. */
static void raise_to(sw_ranges *r, uint32_t k, size_t len)
{
    if (len > r->longest[k]) {
        r->longest[k] = len;
        if (len > r->group[k / SW_GROUP]) {
            r->group[k / SW_GROUP] = len;
        }
    }
}

/* A range at position k shrank from `was` (or went): the block's longest again if it
   was that range, and then its group's. */
static void lowered(sw_ranges *r, uint32_t k, size_t was)
{
    const sw_block *b;
    size_t best = 0;
    uint32_t i;
    if (was != r->longest[k]) {
        return;
    }
    b = blk(r, k);
    for (i = 0; i < b->count; ++i) {
        best = b->len[i] > best ? b->len[i] : best;
    }
    r->longest[k] = best;
    if (best < was && was == r->group[k / SW_GROUP]) {
        group_refresh(r, k / SW_GROUP);
    }
}

/* Positions from k on moved: their groups' longest again. */
static void groups_from(sw_ranges *r, uint32_t k)
{
    uint32_t g;
    for (g = k / SW_GROUP; g * SW_GROUP < r->blocks; ++g) {
        group_refresh(r, g);
    }
}

/* Put a new (empty) block at position k, the blocks from k moving up one. 0 when
   memory runs out. */
static int open_block(sw_ranges *r, uint32_t k)
{
    uint32_t b;
    if (r->spare == UINT32_MAX && r->unused == r->capacity && !grow(r)) {
        return 0;
    }
    if (r->spare != UINT32_MAX) {
        b = r->spare;
        r->spare = r->pool[b].count;
    } else {
        b = r->unused++;
    }
    memmove(&r->id[k + 1], &r->id[k], (r->blocks - k) * sizeof(uint32_t));
    memmove(&r->first[k + 1], &r->first[k], (r->blocks - k) * sizeof(size_t));
    memmove(&r->longest[k + 1], &r->longest[k], (r->blocks - k) * sizeof(size_t));
    ++r->blocks;
    r->id[k] = b;
    r->pool[b].count = 0;
    r->first[k] = SIZE_MAX;
    r->longest[k] = 0;
    return 1;
}

/* Remove the block at position k (its ranges gone or moved). */
static void close_block(sw_ranges *r, uint32_t k)
{
    uint32_t b = r->id[k];
    r->pool[b].count = r->spare;
    r->spare = b;
    --r->blocks;
    memmove(&r->id[k], &r->id[k + 1], (r->blocks - k) * sizeof(uint32_t));
    memmove(&r->first[k], &r->first[k + 1], (r->blocks - k) * sizeof(size_t));
    memmove(&r->longest[k], &r->longest[k + 1], (r->blocks - k) * sizeof(size_t));
}

/* Insert [begin, begin + len) at index i of position k's block (it belongs there in
   address order); a full block is split in halves first. 0 when memory runs out. */
static int insert(sw_ranges *r, uint32_t k, uint32_t i, size_t begin, size_t len)
{
    sw_block *b = blk(r, k);
    if (b->count == SW_BLOCK) {
        sw_block *upper;
        if (!open_block(r, k + 1)) {
            return 0;
        }
        b = blk(r, k); /* the pool may have moved */
        upper = blk(r, k + 1);
        memcpy(upper->begin, &b->begin[SW_BLOCK / 2], SW_BLOCK / 2 * sizeof(size_t));
        memcpy(upper->len, &b->len[SW_BLOCK / 2], SW_BLOCK / 2 * sizeof(size_t));
        upper->count = SW_BLOCK / 2;
        b->count = SW_BLOCK / 2;
        refresh(r, k);
        refresh(r, k + 1);
        groups_from(r, k);
        if (i > SW_BLOCK / 2) {
            ++k;
            i -= SW_BLOCK / 2;
            b = upper;
        }
    }
    memmove(&b->begin[i + 1], &b->begin[i], (b->count - i) * sizeof(size_t));
    memmove(&b->len[i + 1], &b->len[i], (b->count - i) * sizeof(size_t));
    b->begin[i] = begin;
    b->len[i] = len;
    ++b->count;
    if (i == 0) {
        r->first[k] = begin;
    }
    raise_to(r, k, len);
    return 1;
}

/* Join position k + 1's block onto k's (their ranges fit one block). */
static void join(sw_ranges *r, uint32_t k)
{
    sw_block *b = blk(r, k), *upper = blk(r, k + 1);
    memcpy(&b->begin[b->count], upper->begin, upper->count * sizeof(size_t));
    memcpy(&b->len[b->count], upper->len, upper->count * sizeof(size_t));
    b->count += upper->count;
    close_block(r, k + 1);
    refresh(r, k);
    groups_from(r, k);
}

/* Remove the range at (k, i). A block left empty goes (unless it is the only one); a
   block left with so few ranges that it and a neighbour fit in half a block is joined
   with it, so that blocks stay more than a quarter full on average. */
static void erase(sw_ranges *r, uint32_t k, uint32_t i)
{
    sw_block *b = blk(r, k);
    size_t was = b->len[i];
    --b->count;
    memmove(&b->begin[i], &b->begin[i + 1], (b->count - i) * sizeof(size_t));
    memmove(&b->len[i], &b->len[i + 1], (b->count - i) * sizeof(size_t));
    if (b->count == 0 && r->blocks > 1) {
        close_block(r, k);
        groups_from(r, k);
        return;
    }
    if (i == 0) {
        r->first[k] = b->count > 0 ? b->begin[0] : SIZE_MAX;
    }
    lowered(r, k, was);
    if (k > 0 && blk(r, k - 1)->count + b->count <= SW_BLOCK / 2) {
        join(r, --k);
    }
    if (k + 1 < r->blocks && blk(r, k)->count + blk(r, k + 1)->count <= SW_BLOCK / 2) {
        join(r, k);
    }
}

/* The first range from (k, i) on, in address order, with at least `need` bytes: 1 and
   *at set, or 0. Groups, then positions, then ranges: each skipped whole when its
   longest is too short. */
static int fit_from(const sw_ranges *r, uint32_t k, uint32_t i, size_t need, sw_at *at)
{
    uint32_t g;
    if (k < r->blocks && r->longest[k] >= need) {
        const sw_block *b = blk(r, k);
        for (; i < b->count; ++i) {
            if (b->len[i] >= need) {
                at->k = k;
                at->i = i;
                return 1;
            }
        }
    }
    ++k;
    if (k % SW_GROUP != 0 && k < r->blocks && r->group[k / SW_GROUP] >= need) {
        for (; k < r->blocks && k % SW_GROUP != 0; ++k) {
            if (r->longest[k] >= need) {
                goto found;
            }
        }
    }
    k = (k + SW_GROUP - 1) / SW_GROUP * SW_GROUP; /* the next group's first position */
    for (g = k / SW_GROUP; g * SW_GROUP < r->blocks; ++g) {
        if (r->group[g] >= need) {
            for (k = g * SW_GROUP; r->longest[k] < need; ++k) {
            }
            goto found;
        }
    }
    return 0;
found:
    {
        const sw_block *b = blk(r, k);
        for (i = 0; b->len[i] < need; ++i) {
        }
        at->k = k;
        at->i = i;
        return 1;
    }
}

/* Take [at, at + size) out of the free range at g (it holds it). A range taken from
   its start shrinks in place; one taken whole is erased; one split in two keeps its
   lower part and the upper is inserted after it. 0 when memory runs out. */
static int take(sw_ranges *r, sw_at g, size_t at, size_t size)
{
    sw_block *b = blk(r, g.k);
    size_t begin = b->begin[g.i], len = b->len[g.i], end = begin + len;
    if (at == begin && len == size) {
        erase(r, g.k, g.i);
        return 1;
    }
    if (at == begin) {
        b->begin[g.i] = at + size;
        b->len[g.i] = len - size;
        if (g.i == 0) {
            r->first[g.k] = at + size;
        }
        lowered(r, g.k, len);
        return 1;
    }
    b->len[g.i] = at - begin;
    lowered(r, g.k, len);
    if (end - at > size) {
        return insert(r, g.k, g.i + 1, at + size, end - at - size);
    }
    return 1;
}

/* Give [at, at + size) back, merged with the free ranges that touch it: the last range
   starting below `at` and the one after it. Where it touches one, that range grows in
   place; where it touches both, the lower one grows over the upper, which is erased;
   where it touches none, a range is inserted between them. 0 when memory runs out. */
static int give(sw_ranges *r, size_t at, size_t size)
{
    size_t end = at + size;
    uint32_t k, i, n, nk, ni;
    const sw_block *b;
    int below = 0, above;
    /* k: the last position whose first start is below `at` (0 if none); i: one past the
       last range there starting below it. Halvings without branches on the data. */
    for (k = 0, n = r->blocks; n > 1; n -= n / 2) {
        k = r->first[k + n / 2] < at ? k + n / 2 : k;
    }
    b = blk(r, k);
    i = 0;
    if (r->first[k] < at) {
        for (i = 0, n = b->count; n > 1; n -= n / 2) {
            i = b->begin[i + n / 2] < at ? i + n / 2 : i;
        }
        ++i; /* begin[i] < at: the range is at least the first */
        below = b->begin[i - 1] + b->len[i - 1] == at;
    }
    nk = k;
    ni = i;
    if (ni == b->count && k + 1 < r->blocks) {
        nk = k + 1;
        ni = 0;
    }
    above = ni < blk(r, nk)->count && blk(r, nk)->begin[ni] == end;
    if (below) {
        sw_block *lower = blk(r, k);
        size_t len = lower->len[i - 1] + size;
        if (above) {
            len += blk(r, nk)->len[ni];
        }
        lower->len[i - 1] = len;
        raise_to(r, k, len);
        if (above) {
            erase(r, nk, ni);
        }
        return 1;
    }
    if (above) {
        sw_block *upper = blk(r, nk);
        upper->begin[ni] = at;
        upper->len[ni] += size;
        if (ni == 0) {
            r->first[nk] = at;
        }
        raise_to(r, nk, upper->len[ni]);
        return 1;
    }
    return insert(r, k, i, at, size);
}

/* First fit of `size` bytes aligned to `align`: the offset in *at_out. 0 when memory
   runs out. */
static int place(sw_ranges *r, size_t size, size_t align, size_t *at_out)
{
    sw_at g;
    int tries, found = fit_from(r, 0, 0, size, &g), fits = 0;
    size_t at = 0;
    for (tries = 0; found && tries < MISALIGNED_TRIES; ++tries) {
        const sw_block *b = blk(r, g.k);
        size_t begin = b->begin[g.i], end = begin + b->len[g.i];
        at = ap_pl_align_up_fast(begin, align);
        if (at >= begin && end - at >= size && at <= end) {
            fits = 1;
            break;
        }
        found = fit_from(r, g.k, g.i + 1, size, &g);
    }
    if (!fits) {
        /* a range of size + align - 1 bytes holds it wherever it starts; the range
           without end always qualifies (everything stays below padded_total), so
           this fails only if that were broken: reported as memory run out */
        if (!fit_from(r, 0, 0, size + align - 1, &g)) {
            return 0;
        }
        at = ap_pl_align_up_fast(blk(r, g.k)->begin[g.i], align);
    }
    *at_out = at;
    return take(r, g, at, size);
}

/* One buffer: what the sweep reads and writes, side by side, in sweep order (so that
   the loop never reads or writes anything through the buffer's index, a cache miss on
   large problems, until the offsets are copied out at the end). */
typedef struct sw_item {
    size_t size;
    size_t offset;
    uint32_t index;
    int32_t first;
    int32_t last;
    uint32_t align_log2; /* alignment 1 << align_log2 (a power of two) */
} sw_item;

/* A sort key spanning at most this many values above its least is sorted by counting;
   a wider one by the keyed merge sort. */
static size_t counting_span(size_t m)
{
    return 2 * m + 65536u;
}

/* The sweep's keys: the first op (by_first), or the size, larger first, in granules
   (every aligned size is a multiple of the smallest alignment, 1 << shift). */
static uint64_t key_of(int32_t first, size_t size, int by_first, unsigned shift)
{
    return by_first ? (uint64_t)(uint32_t)first : (uint64_t)((SIZE_MAX - size) >> shift);
}

static uint64_t buffer_key(const ap_pl_problem *p, size_t i, int by_first, unsigned shift)
{
    return key_of(p->buffers[i].first, p->size[i], by_first, shift);
}

static uint64_t item_key(const sw_item *x, int by_first, unsigned shift)
{
    return key_of(x->first, x->size, by_first, shift);
}

/* Buffer i's record. */
static void fill(sw_item *x, const ap_pl_problem *p, size_t i)
{
    const ap_buffer *b = &p->buffers[i];
    uint32_t align_log2 = 0;
    while (((size_t)1 << align_log2) < b->alignment) {
        ++align_log2;
    }
    x->size = p->size[i];
    x->offset = 0;
    x->index = (uint32_t)i;
    x->first = b->first;
    x->last = b->last;
    x->align_log2 = align_log2;
}

/* Counts for a counting sort of keys in [lo, lo + range], zeroed; NULL when they cannot
   be allocated or the range is too wide for m keys. */
static uint32_t *counts_for(uint64_t range, size_t m)
{
    return range < counting_span(m) ? (uint32_t *)ap_pl_zalloc((size_t)range + 1, sizeof(uint32_t))
                                    : NULL;
}

/* Counts to starting positions. */
static void prefix(uint32_t *count, uint64_t range)
{
    uint32_t sum = 0;
    size_t i;
    for (i = 0; i <= (size_t)range; ++i) {
        uint32_t c = count[i];
        count[i] = sum;
        sum += c;
    }
}

/* The records of the m non-empty buffers into out, sorted stably by one key (every
   key within [lo, hi]): the copy and the first sort pass in one, reading the buffers in
   index order. 0 when the keyed sort cannot allocate. */
static int gather_pass(const ap_pl_problem *p, sw_item *out, size_t m, int by_first,
                       unsigned shift, uint64_t lo, uint64_t hi)
{
    size_t i, k = 0;
    uint32_t *count = lo == hi ? NULL : counts_for(hi - lo, m);
    if (lo == hi) {
        for (i = 0; i < p->n; ++i) {
            if (p->size[i] > 0) {
                fill(&out[k++], p, i);
            }
        }
        return 1;
    }
    if (count != NULL) {
        for (i = 0; i < p->n; ++i) {
            if (p->size[i] > 0) {
                ++count[buffer_key(p, i, by_first, shift) - lo];
            }
        }
        prefix(count, hi - lo);
        for (i = 0; i < p->n; ++i) {
            if (p->size[i] > 0) {
                fill(&out[count[buffer_key(p, i, by_first, shift) - lo]++], p, i);
            }
        }
        free(count);
        return 1;
    }
    {
        ap_pl_keyed *keyed = (ap_pl_keyed *)ap_pl_alloc(m, sizeof(ap_pl_keyed));
        ap_pl_keyed *scratch = (ap_pl_keyed *)ap_pl_alloc(m, sizeof(ap_pl_keyed));
        if (keyed == NULL || scratch == NULL) {
            free(keyed);
            free(scratch);
            return 0;
        }
        for (i = 0; i < p->n; ++i) {
            if (p->size[i] > 0) {
                keyed[k].key = buffer_key(p, i, by_first, shift);
                keyed[k++].index = (uint32_t)i;
            }
        }
        ap_pl_sort_keyed(keyed, m, scratch);
        for (k = 0; k < m; ++k) {
            fill(&out[k], p, keyed[k].index);
        }
        free(keyed);
        free(scratch);
        return 1;
    }
}

/* Stable sort of the records in[0..m) into out by one key (within [lo, hi]). 0 when
   the keyed sort cannot allocate. */
static int record_pass(const sw_item *in, sw_item *out, size_t m, int by_first, unsigned shift,
                       uint64_t lo, uint64_t hi)
{
    size_t i;
    uint32_t *count = counts_for(hi - lo, m);
    if (count != NULL) {
        for (i = 0; i < m; ++i) {
            ++count[item_key(&in[i], by_first, shift) - lo];
        }
        prefix(count, hi - lo);
        for (i = 0; i < m; ++i) {
            out[count[item_key(&in[i], by_first, shift) - lo]++] = in[i];
        }
        free(count);
        return 1;
    }
    {
        ap_pl_keyed *keyed = (ap_pl_keyed *)ap_pl_alloc(m, sizeof(ap_pl_keyed));
        ap_pl_keyed *scratch = (ap_pl_keyed *)ap_pl_alloc(m, sizeof(ap_pl_keyed));
        if (keyed == NULL || scratch == NULL) {
            free(keyed);
            free(scratch);
            return 0;
        }
        for (i = 0; i < m; ++i) {
            keyed[i].key = item_key(&in[i], by_first, shift);
            keyed[i].index = (uint32_t)i;
        }
        ap_pl_sort_keyed(keyed, m, scratch);
        for (i = 0; i < m; ++i) {
            out[i] = in[keyed[i].index];
        }
        free(keyed);
        free(scratch);
        return 1;
    }
}

/* The records of the non-empty buffers in sweep order: by first op, larger first,
   then by index. Two stable passes, by size (the copy itself) then by first op (into a
   second array, only when first ops differ). *m_out gets their count, *dies_out
   whether any of them dies before another starts (so that ranges are ever given
   back); the empty buffers' offsets are set to 0. NULL when memory runs out. */
static sw_item *sweep_order(const ap_pl_problem *p, unsigned shift, size_t *offsets_out,
                            size_t *m_out, int *dies_out)
{
    uint64_t lo[2] = {UINT64_MAX, UINT64_MAX}, hi[2] = {0, 0};
    int32_t earliest_last = INT32_MAX;
    size_t i, m = 0;
    sw_item *item, *spare;
    int pass;
    for (i = 0; i < p->n; ++i) {
        if (p->size[i] > 0) {
            ++m;
            for (pass = 0; pass < 2; ++pass) {
                uint64_t key = buffer_key(p, i, pass, shift);
                lo[pass] = key < lo[pass] ? key : lo[pass];
                hi[pass] = key > hi[pass] ? key : hi[pass];
            }
            if (p->buffers[i].last < earliest_last) {
                earliest_last = p->buffers[i].last;
            }
        } else {
            offsets_out[i] = 0; /* zero-size buffers stay at 0 */
        }
    }
    *m_out = m;
    *dies_out = m > 0 && hi[1] > (uint64_t)(uint32_t)earliest_last;
    item = (sw_item *)ap_pl_alloc(m, sizeof(sw_item));
    if (item == NULL || !gather_pass(p, item, m, 0, shift, lo[0], hi[0])) {
        free(item);
        return NULL;
    }
    if (m < 2 || lo[1] == hi[1]) {
        return item;
    }
    spare = (sw_item *)ap_pl_alloc(m, sizeof(sw_item));
    if (spare == NULL || !record_pass(item, spare, m, 1, shift, lo[1], hi[1])) {
        free(item);
        free(spare);
        return NULL;
    }
    free(item);
    return spare;
}

/* Most blocks r ranges can take (see SW_BLOCK), for r = m + 1: free ranges never
   outnumber the buffers placed + 1 (each range but the last ends at one). */
static size_t block_limit(size_t m)
{
    return 4 * (m / SW_BLOCK + 1) + 4;
}

/* The sweep order's positions by last op: entries (last op << 32 | position), ascending,
   by counting where the last ops span few values. NULL when memory runs out. */
static uint64_t *death_order(const sw_item *item, size_t m)
{
    uint64_t *out = (uint64_t *)ap_pl_alloc(m, sizeof(uint64_t));
    uint32_t lo = UINT32_MAX, hi = 0;
    size_t i;
    if (out == NULL) {
        return NULL;
    }
    for (i = 0; i < m; ++i) {
        uint32_t last = (uint32_t)item[i].last;
        lo = last < lo ? last : lo;
        hi = last > hi ? last : hi;
    }
    if (m == 0) {
        return out;
    }
    if (hi - lo < counting_span(m)) {
        uint32_t *count = (uint32_t *)ap_pl_zalloc((size_t)(hi - lo) + 1, sizeof(uint32_t));
        uint32_t sum = 0;
        if (count != NULL) {
            for (i = 0; i < m; ++i) {
                ++count[(uint32_t)item[i].last - lo];
            }
            for (i = 0; i <= (size_t)(hi - lo); ++i) {
                uint32_t c = count[i];
                count[i] = sum;
                sum += c;
            }
            for (i = 0; i < m; ++i) {
                uint32_t last = (uint32_t)item[i].last;
                out[count[last - lo]++] = (uint64_t)last << 32 | (uint64_t)i;
            }
            free(count);
            return out;
        }
    }
    {
        ap_pl_keyed *keyed = (ap_pl_keyed *)ap_pl_alloc(m, sizeof(ap_pl_keyed));
        ap_pl_keyed *scratch = (ap_pl_keyed *)ap_pl_alloc(m, sizeof(ap_pl_keyed));
        if (keyed == NULL || scratch == NULL) {
            free(keyed);
            free(scratch);
            free(out);
            return NULL;
        }
        for (i = 0; i < m; ++i) {
            keyed[i].key = (uint32_t)item[i].last;
            keyed[i].index = (uint32_t)i;
        }
        ap_pl_sort_keyed(keyed, m, scratch);
        for (i = 0; i < m; ++i) {
            out[i] = keyed[i].key << 32 | (uint64_t)keyed[i].index;
        }
        free(keyed);
        free(scratch);
        return out;
    }
}

size_t ap_pl_sweep_bytes(const ap_pl_problem *p)
{
    /* two item arrays and, at the sort's peak, the larger of the counts and the keyed
       sort's two arrays; then the death order and the blocks at their most */
    size_t a, b, counts, keyed;
    if (!ap_pl_mul(p->n, 2 * sizeof(ap_pl_keyed), &keyed) ||
        !ap_pl_mul(counting_span(p->n) + 1, sizeof(uint32_t), &counts) ||
        !ap_pl_mul(p->n, 2 * sizeof(sw_item) + sizeof(uint64_t), &a) ||
        !ap_pl_mul(block_limit(p->n),
                   sizeof(sw_block) + sizeof(uint32_t) + 2 * sizeof(size_t) + sizeof(size_t),
                   &b) ||
        !ap_pl_add(a, b, &a) || !ap_pl_add(a, counts > keyed ? counts : keyed, &a)) {
        return SIZE_MAX;
    }
    return a;
}

static void ranges_free(sw_ranges *r)
{
    free(r->pool);
    free(r->id);
    free(r->first);
    free(r->longest);
    free(r->group);
}

/* Everything free: one block holding [0, SIZE_MAX). 0 when memory runs out. */
static int ranges_init(sw_ranges *r, size_t m)
{
    size_t limit = block_limit(m);
    memset(r, 0, sizeof(*r));
    r->limit = limit < UINT32_MAX ? (uint32_t)limit : UINT32_MAX - 1;
    r->spare = UINT32_MAX;
    r->capacity = 4; /* none allocated yet: grow() makes it 8 */
    if (!grow(r)) {
        return 0;
    }
    r->blocks = 1;
    r->unused = 1;
    r->id[0] = 0;
    r->pool[0].count = 1;
    r->pool[0].begin[0] = 0;
    r->pool[0].len[0] = SIZE_MAX;
    r->first[0] = 0;
    r->longest[0] = SIZE_MAX;
    r->group[0] = SIZE_MAX;
    return 1;
}

ap_status ap_pl_sweep(const ap_pl_problem *p, size_t *offsets_out)
{
    sw_item *item;
    uint64_t *death = NULL;
    unsigned shift = 0;
    sw_ranges ranges;
    size_t i, j, m = 0;
    int dies = 0;
    ap_status st = AP_OK;

    memset(&ranges, 0, sizeof(ranges));
    while (((size_t)1 << shift) < p->granule) {
        ++shift;
    }
    item = sweep_order(p, shift, offsets_out, &m, &dies);
    if (item == NULL) {
        st = AP_ERR_OUT_OF_MEMORY;
        goto out;
    }
    /* no range is given back when no buffer dies before the last one starts */
    if (dies) {
        death = death_order(item, m);
    }
    if ((dies && death == NULL) || !ranges_init(&ranges, m)) {
        st = AP_ERR_OUT_OF_MEMORY;
        goto out;
    }

    for (i = 0, j = 0; i < m; ++i) {
        uint32_t first = (uint32_t)item[i].first;
        /* every buffer whose last op is before this one's first gives its range back
           (all of them before the next placement: the free ranges they leave are the
           same in any order) */
        while (death != NULL && j < m && (uint32_t)(death[j] >> 32) < first) {
            const sw_item *dead = &item[(uint32_t)death[j++]];
            if (!give(&ranges, dead->offset, dead->size)) {
                st = AP_ERR_OUT_OF_MEMORY;
                goto out;
            }
        }
        if (!place(&ranges, item[i].size, (size_t)1 << item[i].align_log2, &item[i].offset)) {
            st = AP_ERR_OUT_OF_MEMORY;
            goto out;
        }
        if (ap_pl_tick(p->control, 64)) {
            st = AP_ERR_CANCELLED;
            break;
        }
    }
    if (st == AP_OK) {
        for (i = 0; i < m; ++i) {
            offsets_out[item[i].index] = item[i].offset;
        }
    }
out:
    free(item);
    free(death);
    ranges_free(&ranges);
    return st;
}
