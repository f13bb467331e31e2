/*
 * The sweep heuristic: a plan without the conflict graph.
 *
 * On a problem with thousands of buffers live at every op the conflict graph has
 * billions of edges: building it takes seconds and gigabytes, and every greedy
 * pass over it (TFLite Micro's included) walks each edge again. The sweep instead
 * visits the ops in order, as an allocator would at run time:
 *
 *   - buffers sorted by first op, larger first among those of one op (the larger
 *     ones get the low, unfragmented addresses; ties by index, for determinism);
 *   - before the buffers of op t are placed, every buffer whose last op is before t
 *     gives its range back (a min-heap on last op), merged with free neighbours;
 *   - each buffer goes first fit: the lowest free range that holds it aligned.
 *
 * Free ranges live in a treap keyed by start address, each node also holding the
 * longest free range in its subtree, so "the lowest range of at least s bytes" is
 * one descent. The range above everything placed is a free range without end.
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
    uint64_t prio;
    uint32_t left, right;
} sw_node;

typedef struct sw_tree {
    sw_node *node;
    uint32_t root;
    uint32_t free_list;   /* nodes given back, linked through .left */
    uint32_t unused;      /* nodes [unused, capacity) never taken: their pages stay untouched */
    uint64_t seed;
} sw_tree;

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
    if (t->node[a].prio > t->node[b].prio) {
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
    t->node[x].prio = ap_pl_splitmix64(&t->seed);
    t->node[x].left = t->node[x].right = NIL;
    return x;
}

static void drop_node(sw_tree *t, uint32_t x)
{
    t->node[x].left = t->free_list;
    t->free_list = x;
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

/* Longest paths the in-place updates follow (a treap's depth is about 2 ln n: 128 is never
   reached in practice; a deeper path takes the split-and-merge way). */
#define SW_PATH_MAX 128

/* Recompute `longest` on path[depth - 1], then its ancestors up to the root. */
static void pull_path(sw_tree *t, const uint32_t *path, int depth)
{
    while (depth-- > 0) {
        pull(t, path[depth]);
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

/* Take [at, at + size) out of free range g. Ranges are disjoint, so a range that shrinks
   keeps its place in address order: that is done in place, with `longest` refreshed up
   its path (the common case: an aligned size taken from a range's start). A range that
   splits in two or vanishes goes through split and merge. */
static void take(sw_tree *t, uint32_t g, size_t at, size_t size)
{
    size_t begin = t->node[g].begin, end = t->node[g].end;
    uint32_t l, mid, r, path[SW_PATH_MAX];
    int only_one_side = (at == begin) != (end - at == size);
    if (only_one_side && end - begin > size) {
        int depth = path_to(t, begin, path);
        if (depth > 0) {
            if (at == begin) {
                t->node[g].begin = at + size;
            } else {
                t->node[g].end = at;
            }
            pull_path(t, path, depth);
            return;
        }
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

/* Give [at, at + size) back, merged with the free ranges that touch it. Where it touches
   exactly one, that range grows in place (its neighbours in address order are on the
   search path for `at`: the last node passed on the right and on the left); where it
   touches none or both, split and merge insert or join. */
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
    size_t from = 0;
    int tries;
    uint32_t g;
    for (tries = 0; tries < MISALIGNED_TRIES; ++tries) {
        size_t at;
        g = lowest_fit(t, t->root, size, from);
        if (g == NIL) {
            break;
        }
        at = ap_pl_align_up_fast(t->node[g].begin, align);
        if (at >= t->node[g].begin && t->node[g].end - at >= size && at <= t->node[g].end) {
            take(t, g, at, size);
            return at;
        }
        from = t->node[g].begin + 1;
    }
    /* a range of size + align - 1 bytes holds it wherever it starts; the range
       without end always qualifies (everything stays below padded_total) */
    g = lowest_fit(t, t->root, size + align - 1, 0);
    {
        size_t at = ap_pl_align_up_fast(t->node[g].begin, align);
        take(t, g, at, size);
        return at;
    }
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

/* One buffer in sweep order: what the loop reads and writes, side by side (gathered from
   the index-ordered records once, in a loop whose loads do not wait on each other). */
typedef struct sw_item {
    size_t size;
    size_t alignment;
    size_t offset;
    uint32_t index;
    int32_t last;
} sw_item;

size_t ap_pl_sweep_bytes(const ap_pl_problem *p)
{
    /* the keyed sort and its scratch, the items, the heap, and tree nodes */
    size_t a, b;
    if (!ap_pl_mul(p->n, sizeof(sw_item) + sizeof(uint64_t) + 2 * sizeof(ap_pl_keyed), &a) ||
        !ap_pl_mul(p->n + 2, sizeof(sw_node), &b) || !ap_pl_add(a, b, &a)) {
        return SIZE_MAX;
    }
    return a;
}

ap_status ap_pl_sweep(const ap_pl_problem *p, size_t *offsets_out)
{
    const ap_buffer *b = p->buffers;
    ap_pl_keyed *keyed = (ap_pl_keyed *)ap_pl_alloc(p->n, sizeof(ap_pl_keyed));
    ap_pl_keyed *tmp = (ap_pl_keyed *)ap_pl_alloc(p->n, sizeof(ap_pl_keyed));
    sw_item *item = (sw_item *)ap_pl_alloc(p->n, sizeof(sw_item));
    sw_heap heap;
    sw_tree tree;
    size_t i, m = 0;
    ap_status st = AP_OK;

    heap.item = (uint64_t *)ap_pl_alloc(p->n, sizeof(uint64_t));
    heap.count = 0;
    /* free ranges never outnumber live buffers + 1; one more for take's split */
    tree.node = (sw_node *)ap_pl_alloc(p->n + 2, sizeof(sw_node));
    if (keyed == NULL || tmp == NULL || item == NULL || heap.item == NULL || tree.node == NULL) {
        st = AP_ERR_OUT_OF_MEMORY;
        goto out;
    }
    tree.seed = 0x5eed5eedu;
    tree.free_list = NIL;
    tree.unused = 0;
    tree.root = new_node(&tree, 0, SIZE_MAX);

    /* by first op, larger first, then by index: two stable keyed sorts (sizes, then
       ops), which take counting sorts when the keys span a small range */
    for (i = 0; i < p->n; ++i) {
        offsets_out[i] = 0; /* zero-size buffers stay at 0 */
        if (p->size[i] > 0) {
            keyed[m].key = (uint64_t)(SIZE_MAX - p->size[i]);
            keyed[m].index = (uint32_t)i;
            ++m;
        }
    }
    ap_pl_sort_keyed(keyed, m, tmp);
    for (i = 0; i < m; ++i) {
        keyed[i].key = (uint64_t)b[keyed[i].index].first;
    }
    ap_pl_sort_keyed(keyed, m, tmp);
    for (i = 0; i < m; ++i) {
        uint32_t k = keyed[i].index;
        item[i].size = p->size[k];
        item[i].alignment = b[k].alignment;
        item[i].index = k;
        item[i].last = b[k].last;
    }
    for (i = 0; i < m; ++i) {
        uint64_t first = keyed[i].key;
        /* heap entries: (last op << 32 | position in sweep order) */
        while (heap.count > 0 && (heap.item[0] >> 32) < first) {
            const sw_item *dead = &item[(uint32_t)heap_pop(&heap)];
            give(&tree, dead->offset, dead->size);
        }
        item[i].offset = place(&tree, item[i].size, item[i].alignment);
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
    free(keyed);
    free(tmp);
    free(item);
    free(heap.item);
    free(tree.node);
    return st;
}
