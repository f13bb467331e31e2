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
 *     records copied once in index order and the copies sorted, by counting where the
 *     ops and the sizes (in granules) span few values, so the loop reads them in order;
 *   - before the buffers of op t are placed, every buffer whose last op is before t
 *     gives its range back (a min-heap on last op), merged with free neighbours;
 *   - each buffer goes first fit: the lowest free range that holds it aligned.
 *
 * Free ranges live in a treap keyed by start address, each node also holding the
 * longest free range in its subtree, so "the lowest range of at least s bytes" is
 * one descent, which also gives the path that take() updates. A range that shrinks or
 * grows keeps its place in address order and is changed in place, `longest` refreshed
 * up its path only as far as it changes; one that appears or vanishes is inserted or
 * erased where it sits (the whole tree split and merged only past SW_PATH_MAX levels).
 * The range above everything placed is a free range without end.
 * A range long enough but whose aligned start leaves too little is passed over
 * (a few times at most; then a range of s + alignment - 1 bytes, which always
 * holds it, is asked for). Time O(n log n), memory O(n); the plan is valid by
 * construction: a range is free at op t only when every buffer that used it died
 * before t.
 */
#include "planner_internal.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX
/* Ranges that are long enough but misaligned tried before asking for a longer one. */
#define MISALIGNED_TRIES 4

typedef struct sw_node {
    size_t begin, end;    /* a free range [begin, end); end SIZE_MAX: no end */
    size_t longest;       /* longest end - begin in the subtree */
    uint32_t left, right; /* 32 bytes a node: the treap's priority is prio(index) */
} sw_node;

typedef struct sw_tree {
    sw_node *node;
    uint32_t root;
    uint32_t free_list;   /* nodes given back, linked through .left */
    uint32_t unused;      /* nodes [unused, capacity) never taken: their pages stay untouched */
} sw_tree;

/* A node's treap priority: a fixed mix of its index (a node given back and taken again
   keeps it), so the priorities are as random as a seeded generator's and take no room. */
static uint32_t prio(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static size_t len_of(const sw_node *x)
{
    return x->end - x->begin;
}

static void pull(sw_tree *t, uint32_t x)
{
    sw_node *n = &t->node[x];
    size_t best = len_of(n);
    if (n->left != NIL && t->node[n->left].longest > best) {
        best = t->node[n->left].longest;
    }
    if (n->right != NIL && t->node[n->right].longest > best) {
        best = t->node[n->right].longest;
    }
    n->longest = best;
}

/* Split x into ranges starting below `key` (*l) and at or above it (*r). */
static void split(sw_tree *t, uint32_t x, size_t key, uint32_t *l, uint32_t *r)
{
    if (x == NIL) {
        *l = *r = NIL;
        return;
    }
    if (t->node[x].begin < key) {
        split(t, t->node[x].right, key, &t->node[x].right, r);
        *l = x;
    } else {
        split(t, t->node[x].left, key, l, &t->node[x].left);
        *r = x;
    }
    pull(t, x);
}

/* Join two treaps, every range of a below every range of b. */
static uint32_t merge(sw_tree *t, uint32_t a, uint32_t b)
{
    if (a == NIL) {
        return b;
    }
    if (b == NIL) {
        return a;
    }
    if (prio(a) > prio(b)) {
        t->node[a].right = merge(t, t->node[a].right, b);
        pull(t, a);
        return a;
    }
    t->node[b].left = merge(t, a, t->node[b].left);
    pull(t, b);
    return b;
}

static uint32_t new_node(sw_tree *t, size_t begin, size_t end)
{
    uint32_t x = t->free_list;
    if (x != NIL) {
        t->free_list = t->node[x].left;
    } else {
        x = t->unused++;
    }
    t->node[x].begin = begin;
    t->node[x].end = end;
    t->node[x].longest = end - begin;
    t->node[x].left = t->node[x].right = NIL;
    return x;
}

static void drop_node(sw_tree *t, uint32_t x)
{
    t->node[x].left = t->free_list;
    t->free_list = x;
}

/* Longest paths the in-place updates follow (a treap's depth is about 2 ln n: 128 is never
   reached in practice; a deeper path takes the split-and-merge way). */
#define SW_PATH_MAX 128

/* The lowest range with at least `need` bytes, or NIL; path[0 .. *depth) gets the nodes
   from the root to it (*depth 0 when the path is longer than SW_PATH_MAX). Every range
   qualifies by its start, so `longest` says which way at each node: no backtracking. */
static uint32_t lowest_fit_path(const sw_tree *t, size_t need, uint32_t path[SW_PATH_MAX],
                                int *depth)
{
    uint32_t x = t->root;
    int d = 0;
    *depth = 0;
    if (x == NIL || t->node[x].longest < need) {
        return NIL;
    }
    for (;;) {
        const sw_node *n = &t->node[x];
        if (d < SW_PATH_MAX) {
            path[d] = x;
        }
        ++d;
        if (n->left != NIL && t->node[n->left].longest >= need) {
            x = n->left;
        } else if (len_of(n) >= need) {
            *depth = d <= SW_PATH_MAX ? d : 0;
            return x;
        } else {
            x = n->right; /* its `longest` is at least need */
        }
    }
}

/* The lowest range starting at or above `from` with at least `need` bytes, or NIL. */
static uint32_t lowest_fit(const sw_tree *t, uint32_t x, size_t need, size_t from)
{
    while (x != NIL) {
        const sw_node *n = &t->node[x];
        if (n->longest < need) {
            return NIL;
        }
        if (n->begin >= from) {
            uint32_t found = lowest_fit(t, n->left, need, from);
            if (found != NIL) {
                return found;
            }
            if (len_of(n) >= need) {
                return x;
            }
        }
        x = n->right;
    }
    return NIL;
}

static uint32_t leftmost(const sw_tree *t, uint32_t x)
{
    while (x != NIL && t->node[x].left != NIL) {
        x = t->node[x].left;
    }
    return x;
}

static uint32_t rightmost(const sw_tree *t, uint32_t x)
{
    while (x != NIL && t->node[x].right != NIL) {
        x = t->node[x].right;
    }
    return x;
}

/* Insert node z into the subtree x: down to where z's priority belongs, then the
   subtree there is split around it (one path, not the whole tree's split and merge). */
static uint32_t insert(sw_tree *t, uint32_t x, uint32_t z)
{
    if (x == NIL) {
        return z;
    }
    if (prio(z) > prio(x)) {
        split(t, x, t->node[z].begin, &t->node[z].left, &t->node[z].right);
        pull(t, z);
        return z;
    }
    if (t->node[z].begin < t->node[x].begin) {
        t->node[x].left = insert(t, t->node[x].left, z);
    } else {
        t->node[x].right = insert(t, t->node[x].right, z);
    }
    pull(t, x);
    return x;
}

/* Remove the range that starts at `begin` from the subtree x (it is there): its
   children are merged in its place. */
static uint32_t erase(sw_tree *t, uint32_t x, size_t begin)
{
    if (t->node[x].begin == begin) {
        uint32_t joined = merge(t, t->node[x].left, t->node[x].right);
        drop_node(t, x);
        return joined;
    }
    if (begin < t->node[x].begin) {
        t->node[x].left = erase(t, t->node[x].left, begin);
    } else {
        t->node[x].right = erase(t, t->node[x].right, begin);
    }
    pull(t, x);
    return x;
}


/* Recompute `longest` on path[depth - 1], the one node whose range changed, then on its
   ancestors up to the first whose `longest` stays as it was (those above depend on
   nothing else that changed). */
static void pull_path(sw_tree *t, const uint32_t *path, int depth)
{
    while (depth-- > 0) {
        size_t was = t->node[path[depth]].longest;
        pull(t, path[depth]);
        if (t->node[path[depth]].longest == was) {
            return;
        }
    }
}

/* The nodes from the root to the range that starts at `begin`: their count, or 0 when the
   path is longer than SW_PATH_MAX. */
static int path_to(const sw_tree *t, size_t begin, uint32_t path[SW_PATH_MAX])
{
    uint32_t x = t->root;
    int depth = 0;
    while (x != NIL && depth < SW_PATH_MAX) {
        path[depth++] = x;
        if (t->node[x].begin == begin) {
            return depth;
        }
        x = begin < t->node[x].begin ? t->node[x].left : t->node[x].right;
    }
    return 0;
}

/* Point the link to the subtree whose root was at depth d of `path` (the root, or a child
   of path[d - 1]: the one on the side of `key`, the subtree's keys) at x. */
static void relink(sw_tree *t, const uint32_t *path, int d, size_t key, uint32_t x)
{
    if (d == 0) {
        t->root = x;
    } else if (key < t->node[path[d - 1]].begin) {
        t->node[path[d - 1]].left = x;
    } else {
        t->node[path[d - 1]].right = x;
    }
}

/* Erase path[depth - 1] (path: the nodes from the root to it): its children merged in
   its place, `longest` refreshed above. */
static void erase_at(sw_tree *t, const uint32_t *path, int depth)
{
    uint32_t x = path[depth - 1];
    size_t key = t->node[x].begin;
    uint32_t joined = merge(t, t->node[x].left, t->node[x].right);
    drop_node(t, x);
    relink(t, path, depth - 1, key, joined);
    pull_path(t, path, depth - 1);
}

/* Insert node z, path[0 .. depth) being the search path for its start down to an empty
   link: z goes below the last node on it with a higher priority, the subtree there split
   around it. */
static void insert_at(sw_tree *t, const uint32_t *path, int depth, uint32_t z)
{
    size_t key = t->node[z].begin;
    uint32_t sub;
    int d = 0;
    while (d < depth && prio(path[d]) > prio(z)) {
        ++d;
    }
    sub = d < depth ? path[d] : NIL;
    split(t, sub, key, &t->node[z].left, &t->node[z].right);
    pull(t, z);
    relink(t, path, d, key, z);
    pull_path(t, path, d);
}

/* Take [at, at + size) out of free range g (path[0 .. depth): the nodes from the root to
   g, or depth 0 if not known). Ranges are disjoint, so a range that shrinks
   keeps its place in address order: that is done in place, with `longest` refreshed up
   its path (the common case: an aligned size taken from a range's start). A range taken
   whole is erased; one that splits in two keeps its lower part and inserts the upper. */
static void take(sw_tree *t, uint32_t g, size_t at, size_t size, uint32_t path[SW_PATH_MAX],
                 int depth)
{
    size_t begin = t->node[g].begin, end = t->node[g].end;
    uint32_t l, mid, r;
    if (at == begin && end - begin == size) {
        if (depth > 0) {
            erase_at(t, path, depth);
        } else {
            t->root = erase(t, t->root, begin);
        }
        return;
    }
    if (depth == 0) {
        depth = path_to(t, begin, path);
    }
    if (depth > 0) {
        if (at == begin) {
            t->node[g].begin = at + size;
        } else {
            t->node[g].end = at;
        }
        pull_path(t, path, depth);
        if (at > begin && end - at > size) {
            t->root = insert(t, t->root, new_node(t, at + size, end));
        }
        return;
    }
    split(t, t->root, begin, &l, &r);
    split(t, r, begin + 1, &mid, &r);
    drop_node(t, mid); /* mid == g: ranges are disjoint, so one starts at `begin` */
    if (at > begin) {
        l = merge(t, l, new_node(t, begin, at));
    }
    if (end - at > size) {
        r = merge(t, new_node(t, at + size, end), r);
    }
    t->root = merge(t, l, r);
}

/* Give [at, at + size) back, merged with the free ranges that touch it. Its neighbours
   in address order are on the search path for `at` (the last node passed on the right
   and on the left): where it touches one, that range grows in place; where it touches
   both, the lower one grows over the upper, which is erased; where it touches none, a
   range is inserted. */
static void give(sw_tree *t, size_t at, size_t size)
{
    size_t begin = at, end = at + size;
    uint32_t l, r, x, path[SW_PATH_MAX];
    int depth = 0, below = -1, above = -1;
    for (x = t->root; x != NIL && depth < SW_PATH_MAX; ++depth) {
        path[depth] = x;
        if (t->node[x].begin < at) {
            below = depth;
            x = t->node[x].right;
        } else {
            above = depth;
            x = t->node[x].left;
        }
    }
    if (x == NIL) {
        int joins_below = below >= 0 && t->node[path[below]].end == at;
        int joins_above = above >= 0 && t->node[path[above]].begin == end;
        if (joins_below && !joins_above) {
            t->node[path[below]].end = end;
            pull_path(t, path, below + 1);
            return;
        }
        if (joins_above && !joins_below) {
            t->node[path[above]].begin = at;
            pull_path(t, path, above + 1);
            return;
        }
        if (!joins_below && !joins_above) {
            insert_at(t, path, depth, new_node(t, at, end));
            return;
        }
        {
            uint32_t lower = path[below];
            size_t upper_end = t->node[path[above]].end;
            erase_at(t, path, above + 1);
            depth = path_to(t, t->node[lower].begin, path);
            if (depth > 0) {
                t->node[lower].end = upper_end;
                pull_path(t, path, depth);
                return;
            }
            /* too deep for the path: put the upper range back, take the long way */
            t->root = insert(t, t->root, new_node(t, end, upper_end));
        }
    }
    split(t, t->root, at, &l, &r);
    x = rightmost(t, l);
    if (x != NIL && t->node[x].end == at) {
        uint32_t only;
        begin = t->node[x].begin;
        split(t, l, begin, &l, &only);
        drop_node(t, only);
    }
    x = leftmost(t, r);
    if (x != NIL && t->node[x].begin == end) {
        uint32_t only;
        end = t->node[x].end;
        split(t, r, t->node[x].begin + 1, &only, &r);
        drop_node(t, only);
    }
    t->root = merge(t, merge(t, l, new_node(t, begin, end)), r);
}

/* First fit of `size` bytes aligned to `align`; takes the range, returns the offset. */
static size_t place(sw_tree *t, size_t size, size_t align)
{
    uint32_t g, path[SW_PATH_MAX];
    int tries, depth;
    size_t at;
    g = lowest_fit_path(t, size, path, &depth);
    for (tries = 0; g != NIL && tries < MISALIGNED_TRIES; ++tries) {
        at = ap_pl_align_up_fast(t->node[g].begin, align);
        if (at >= t->node[g].begin && t->node[g].end - at >= size && at <= t->node[g].end) {
            take(t, g, at, size, path, depth);
            return at;
        }
        g = lowest_fit(t, t->root, size, t->node[g].begin + 1);
        depth = 0;
    }
    /* a range of size + align - 1 bytes holds it wherever it starts; the range
       without end always qualifies (everything stays below padded_total) */
    g = lowest_fit_path(t, size + align - 1, path, &depth);
    at = ap_pl_align_up_fast(t->node[g].begin, align);
    take(t, g, at, size, path, depth);
    return at;
}

/* Min-heap of live buffers by last op: entries are (last op << 32 | position in sweep
   order), so a comparison reads no buffer record. Buffers that die at one op come out in
   sweep order; the free ranges they leave are the same in any order, since all of them are
   given back before the next placement. */
typedef struct sw_heap {
    uint64_t *item;
    size_t count;
} sw_heap;

static void heap_push(sw_heap *h, uint64_t key)
{
    size_t k = h->count++;
    while (k > 0) {
        size_t up = (k - 1) / 2;
        if (h->item[up] <= key) {
            break;
        }
        h->item[k] = h->item[up];
        k = up;
    }
    h->item[k] = key;
}

static uint64_t heap_pop(sw_heap *h)
{
    uint64_t top = h->item[0], v = h->item[--h->count];
    size_t k = 0;
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= h->count) {
            break;
        }
        if (c + 1 < h->count && h->item[c + 1] < h->item[c]) {
            ++c;
        }
        if (v <= h->item[c]) {
            break;
        }
        h->item[k] = h->item[c];
        k = c;
    }
    if (h->count > 0) {
        h->item[k] = v;
    }
    return top;
}

/* One buffer: what the sweep reads and writes, side by side. The records are copied
   once, in index order, and the copies are sorted (so the loop never reads a record
   through its index, a cache miss on large problems). */
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

/* The sweep's keys: its first op (by_first), or its size, larger first, in granules
   (every aligned size is a multiple of the smallest alignment). */
static uint64_t order_key(const sw_item *x, int by_first, size_t granule)
{
    return by_first ? (uint64_t)(uint32_t)x->first : (uint64_t)((SIZE_MAX - x->size) / granule);
}

/* Stable counting sort of in[0..m) into out by order_key - lo, every key within
   [lo, lo + range]. 0 when its counts cannot be allocated. */
static int counting_pass(const sw_item *in, sw_item *out, size_t m, int by_first, size_t granule,
                         uint64_t lo, uint64_t range)
{
    uint32_t *count = (uint32_t *)ap_pl_zalloc((size_t)range + 1, sizeof(uint32_t));
    uint32_t sum = 0;
    size_t i;
    if (count == NULL) {
        return 0;
    }
    for (i = 0; i < m; ++i) {
        ++count[order_key(&in[i], by_first, granule) - lo];
    }
    for (i = 0; i <= (size_t)range; ++i) {
        uint32_t c = count[i];
        count[i] = sum;
        sum += c;
    }
    for (i = 0; i < m; ++i) {
        out[count[order_key(&in[i], by_first, granule) - lo]++] = in[i];
    }
    free(count);
    return 1;
}

/* Stable keyed merge sort of in[0..m) into out (keys too wide to count). */
static int keyed_pass(const sw_item *in, sw_item *out, size_t m, int by_first, size_t granule)
{
    ap_pl_keyed *keyed = (ap_pl_keyed *)ap_pl_alloc(m, sizeof(ap_pl_keyed));
    ap_pl_keyed *scratch = (ap_pl_keyed *)ap_pl_alloc(m, sizeof(ap_pl_keyed));
    size_t i;
    if (keyed == NULL || scratch == NULL) {
        free(keyed);
        free(scratch);
        return 0;
    }
    for (i = 0; i < m; ++i) {
        keyed[i].key = order_key(&in[i], by_first, granule);
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

/* Sort the m items (in index order) into sweep order: by first op, larger first, then
   by index. Two stable passes, by size then by first op, from *items into *spare and
   back (the pointers swap per pass; a pass whose keys are all equal is skipped). 0 when
   a pass cannot allocate its counts or keys. */
static int sweep_order(sw_item **items, sw_item **spare, size_t m, size_t granule)
{
    int pass;
    for (pass = 0; pass < 2; ++pass) {
        uint64_t lo = UINT64_MAX, hi = 0;
        size_t i;
        int done;
        for (i = 0; i < m; ++i) {
            uint64_t key = order_key(&(*items)[i], pass, granule);
            lo = key < lo ? key : lo;
            hi = key > hi ? key : hi;
        }
        if (m < 2 || hi == lo) {
            continue;
        }
        done = hi - lo < counting_span(m) &&
               counting_pass(*items, *spare, m, pass, granule, lo, hi - lo);
        if (!done && !keyed_pass(*items, *spare, m, pass, granule)) {
            return 0;
        }
        {
            sw_item *swap = *items;
            *items = *spare;
            *spare = swap;
        }
    }
    return 1;
}

size_t ap_pl_sweep_bytes(const ap_pl_problem *p)
{
    /* two item arrays and, at the sort's peak, the larger of the counts and the keyed
       sort's two arrays; then the heap and the tree nodes */
    size_t a, b, counts, keyed;
    if (!ap_pl_mul(p->n, 2 * sizeof(ap_pl_keyed), &keyed) ||
        !ap_pl_mul(counting_span(p->n) + 1, sizeof(uint32_t), &counts) ||
        !ap_pl_mul(p->n, 2 * sizeof(sw_item) + sizeof(uint64_t), &a) ||
        !ap_pl_mul(p->n + 2, sizeof(sw_node), &b) || !ap_pl_add(a, b, &a) ||
        !ap_pl_add(a, counts > keyed ? counts : keyed, &a)) {
        return SIZE_MAX;
    }
    return a;
}

ap_status ap_pl_sweep(const ap_pl_problem *p, size_t *offsets_out)
{
    const ap_buffer *b = p->buffers;
    sw_item *item = (sw_item *)ap_pl_alloc(p->n, sizeof(sw_item));
    sw_item *spare = (sw_item *)ap_pl_alloc(p->n, sizeof(sw_item));
    size_t granule = p->granule > 0 ? p->granule : 1;
    sw_heap heap;
    sw_tree tree;
    size_t i, m = 0;
    ap_status st = AP_OK;

    heap.item = NULL;
    heap.count = 0;
    tree.node = NULL;
    if (item == NULL || spare == NULL) {
        st = AP_ERR_OUT_OF_MEMORY;
        goto out;
    }
    for (i = 0; i < p->n; ++i) {
        offsets_out[i] = 0; /* zero-size buffers stay at 0 */
        if (p->size[i] > 0) {
            uint32_t shift = 0;
            while (((size_t)1 << shift) < b[i].alignment) {
                ++shift;
            }
            item[m].size = p->size[i];
            item[m].offset = 0;
            item[m].index = (uint32_t)i;
            item[m].first = b[i].first;
            item[m].last = b[i].last;
            item[m].align_log2 = shift;
            ++m;
        }
    }
    if (!sweep_order(&item, &spare, m, granule)) {
        st = AP_ERR_OUT_OF_MEMORY;
        goto out;
    }
    free(spare);
    spare = NULL;
    heap.item = (uint64_t *)ap_pl_alloc(p->n, sizeof(uint64_t));
    /* free ranges never outnumber live buffers + 1; one more for take's split */
    tree.node = (sw_node *)ap_pl_alloc(p->n + 2, sizeof(sw_node));
    if (heap.item == NULL || tree.node == NULL) {
        st = AP_ERR_OUT_OF_MEMORY;
        goto out;
    }
    tree.free_list = NIL;
    tree.unused = 0;
    tree.root = new_node(&tree, 0, SIZE_MAX);

    for (i = 0; i < m; ++i) {
        uint32_t first = (uint32_t)item[i].first;
        /* heap entries: (last op << 32 | position in sweep order) */
        while (heap.count > 0 && (uint32_t)(heap.item[0] >> 32) < first) {
            const sw_item *dead = &item[(uint32_t)heap_pop(&heap)];
            give(&tree, dead->offset, dead->size);
        }
        item[i].offset = place(&tree, item[i].size, (size_t)1 << item[i].align_log2);
        heap_push(&heap, ((uint64_t)(uint32_t)item[i].last << 32) | (uint64_t)i);
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
    free(spare);
    free(heap.item);
    free(tree.node);
    return st;
}
