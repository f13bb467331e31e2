/*
 * Large neighbourhood search, two kinds of move:
 *
 * - Band (one move in 16): free the buffers in a top band of addresses, keep
 *   the rest, and ask the exact search (capacity mode, each freed buffer
 *   starting no lower than the top of its fixed conflicts) for a placement of
 *   the freed ones within arena - granule, LNS_BAND_NODES nodes at most per
 *   move. The band grows after a proof that no such placement exists and
 *   shrinks when a move runs out of nodes.
 * - Window: free the buffers that overlap a random window of ops x addresses
 *   (centred on a buffer, usually one that touches the peak) and place them again, in a random order
 * (sizes first with noise, or shuffled), by first or best fit into the gaps
 * left by the buffers that stay put. The move is kept when the arena does not
 * grow and neither does the "excess" (the area, bytes x ops, of buffers above
 * the live-bytes bound), so the search walks plateaus and keeps every gain;
 * otherwise the freed buffers go back. Each move costs O(n) for the window
 * scan plus the decode of the freed buffers against their conflicts.
 *
 * Our own PRNG, seeded from the seed; no global state. Every move is bounded by
 * counts, not by the clock, so the path depends only on the input and the seed;
 * the deadline only decides how far along it the search gets. A step limit
 * (search->max_steps: a move is a step, and so is every node of a band move's
 * exact search) stops it at the same point on every machine.
 */
#include "planner_internal.h"

#include <stdlib.h>
#include <string.h>

/* Most buffers freed by one move: larger windows are cut at random. */
#define LNS_MAX_FREE 48u

typedef struct lns_state {
    const ap_pl_problem *p;
    size_t *off;
    size_t bound;          /* live bytes rounded up to the granule */
} lns_state;

/* arena and excess of the plan in s->off */
static size_t lns_measure(const lns_state *s, double *excess)
{
    const ap_pl_problem *p = s->p;
    size_t i, arena = 0;
    double x = 0.0;
    for (i = 0; i < p->n; ++i) {
        size_t end;
        if (p->size[i] == 0) {
            continue;
        }
        end = s->off[i] + p->size[i];
        if (end > arena) {
            arena = end;
        }
        if (end > s->bound) {
            x += (double)(end - s->bound) *
                 ((double)p->buffers[i].last - (double)p->buffers[i].first + 1.0);
        }
    }
    *excess = x;
    return arena;
}

/* Nodes given to one band move's exact search: about 0.2 s on this kind of
   machine for a few hundred buffers. */
#define LNS_BAND_NODES 100000u

typedef struct lns_band {
    ap_pl_keyed *by_off;   /* nonempty entries */
    ap_pl_keyed *ktmp;
    uint32_t *sub_of;      /* n: index in the band, UINT32_MAX if not in it */
    uint32_t *members;     /* nonempty entries */
    ap_buffer *sub;        /* nonempty entries */
    size_t *sub_base;
    size_t *sub_off;
} lns_band;

/*
 * Band move: free the buffers whose offset is at least a0 (the `want` highest,
 * extended down to every buffer touching the peak), keep the others, and ask
 * the exact search for a placement of the freed ones above the fixed ones
 * (each freed buffer's base is the top of its fixed conflicts) within
 * arena - granule, within `max_nodes` nodes (and the deadline). Returns 1 if it
 * found one (offsets updated), 0 if there is none (or the move was skipped), 2
 * if the search ran out of nodes or time, -1 on out of memory.
 */
static int lns_band_move(const ap_pl_problem *p, lns_band *w, size_t *offsets,
                         const uint32_t *nonempty, size_t m, size_t arena, size_t want,
                         double deadline, uint64_t max_nodes, uint64_t seed, uint64_t *steps)
{
    size_t i, k = 0, a0, g = p->granule, sub_arena = 0, fixed_top = 0;
    ap_pl_problem sp;
    ap_pl_search search;
    int result = 0;
    if (arena < g || m == 0) {
        return 0;
    }
    for (i = 0; i < m; ++i) {
        /* descending offset: key = arena - offset */
        w->by_off[i].key = (uint64_t)(arena - offsets[nonempty[i]]);
        w->by_off[i].index = nonempty[i];
    }
    ap_pl_sort_keyed(w->by_off, m, w->ktmp);
    if (want > m) {
        want = m;
    }
    if (want == 0) {
        return 0;
    }
    a0 = offsets[w->by_off[want - 1].index];
    for (i = 0; i < m; ++i) {
        uint32_t b = nonempty[i];
        if (offsets[b] + p->size[b] == arena && offsets[b] < a0) {
            a0 = offsets[b];
        }
    }
    for (i = 0; i < m && offsets[w->by_off[i].index] >= a0; ++i) {
        w->members[k++] = w->by_off[i].index;
    }
    if (k < 2) {
        return 0;
    }
    for (i = 0; i < k; ++i) {
        uint32_t b = w->members[i];
        w->sub_of[b] = (uint32_t)i;
        w->sub[i] = p->buffers[b];
        w->sub[i].size = p->size[b];
        w->sub_off[i] = offsets[b];
        if (offsets[b] + p->size[b] > sub_arena) {
            sub_arena = offsets[b] + p->size[b];
        }
    }
    for (i = 0; i < k; ++i) {
        uint32_t b = w->members[i];
        size_t e, top = 0;
        for (e = p->adj_start[b]; e < p->adj_start[b + 1]; ++e) {
            uint32_t j = p->adj[e];
            if (w->sub_of[j] == UINT32_MAX && offsets[j] + p->size[j] > top) {
                top = offsets[j] + p->size[j];
            }
        }
        /* below padded_total, so rounding up cannot overflow */
        w->sub_base[i] = ap_pl_align_up_fast(top, p->buffers[b].alignment);
        if (w->sub_base[i] > fixed_top) {
            fixed_top = w->sub_base[i];
        }
    }
    memset(&sp, 0, sizeof(sp));
    if (fixed_top <= arena - g && ap_pl_problem_init(&sp, w->sub, k, NULL) == AP_OK) {
        sp.control = p->control;
        memset(&search, 0, sizeof(search));
        search.deadline = deadline;
        search.max_steps = max_nodes;
        search.capacity = arena - g;
        search.seed = seed;
        search.base = w->sub_base;
        if (ap_pl_exact(&sp, w->sub_off, &sub_arena, &search) != AP_OK) {
            result = -1;
        } else if (search.improved && sub_arena <= arena - g) {
            for (i = 0; i < k; ++i) {
                offsets[w->members[i]] = w->sub_off[i];
            }
            result = 1;
        } else if (!search.infeasible) {
            result = 2; /* out of nodes or time: the band was too large */
        }
        *steps += search.steps;
        ap_pl_problem_free(&sp);
    }
    for (i = 0; i < k; ++i) {
        w->sub_of[w->members[i]] = UINT32_MAX;
    }
    return result;
}

static int64_t rand_span(ap_pl_rng *rng, int64_t limit)
{
    if (limit <= 0) {
        return 0;
    }
    if (limit > (int64_t)UINT32_MAX - 1) {
        limit = (int64_t)UINT32_MAX - 1;
    }
    return (int64_t)ap_pl_rng_below(rng, (uint32_t)limit + 1u);
}

ap_status ap_pl_lns(const ap_pl_problem *p, size_t *offsets, size_t *arena, ap_pl_search *search)
{
    lns_state s;
    ap_pl_rng rng;
    ap_pl_placer placer;
    uint32_t *order = NULL, *nonempty = NULL, *peak = NULL, *freed = NULL;
    size_t *saved = NULL;
    double *key = NULL;
    lns_band w;
    size_t i, m = 0, cur_arena, g = p->granule;
    int64_t t_lo = INT64_MAX, t_hi = INT64_MIN;
    double cur_excess;
    size_t band_want = 16;
    uint64_t moves = 0, used = 0; /* moves, and moves plus band nodes */
    ap_status st;

    search->improved = 0;
    search->proven = 0;
    search->infeasible = 0;
    s.p = p;
    s.off = offsets;
    s.bound = ((p->lower_bound + g - 1) / g) * g;
    if (p->nonempty == 0 || *arena <= s.bound) {
        return AP_OK;
    }
    memset(&w, 0, sizeof(w));
    st = ap_pl_placer_init(&placer, p);
    if (st != AP_OK) {
        return st;
    }
    w.by_off = (ap_pl_keyed *)ap_pl_alloc(p->nonempty, sizeof(ap_pl_keyed));
    w.ktmp = (ap_pl_keyed *)ap_pl_alloc(p->nonempty, sizeof(ap_pl_keyed));
    w.sub_of = (uint32_t *)ap_pl_alloc(p->n, sizeof(uint32_t));
    w.members = (uint32_t *)ap_pl_alloc(p->nonempty, sizeof(uint32_t));
    w.sub = (ap_buffer *)ap_pl_alloc(p->nonempty, sizeof(ap_buffer));
    w.sub_base = (size_t *)ap_pl_alloc(p->nonempty, sizeof(size_t));
    w.sub_off = (size_t *)ap_pl_alloc(p->nonempty, sizeof(size_t));
    order = (uint32_t *)ap_pl_alloc(p->n, sizeof(uint32_t));
    nonempty = (uint32_t *)ap_pl_alloc(p->nonempty, sizeof(uint32_t));
    peak = (uint32_t *)ap_pl_alloc(p->nonempty, sizeof(uint32_t));
    freed = (uint32_t *)ap_pl_alloc(LNS_MAX_FREE, sizeof(uint32_t));
    saved = (size_t *)ap_pl_alloc(LNS_MAX_FREE, sizeof(size_t));
    key = (double *)ap_pl_alloc(LNS_MAX_FREE, sizeof(double));
    if (!order || !nonempty || !peak || !freed || !saved || !key || !w.by_off || !w.ktmp ||
        !w.sub_of || !w.members || !w.sub || !w.sub_base || !w.sub_off) {
        st = AP_ERR_OUT_OF_MEMORY;
        goto out;
    }
    for (i = 0; i < p->n; ++i) {
        w.sub_of[i] = UINT32_MAX;
        placer.rank[i] = 0; /* everything not being decoded counts as placed */
        order[i] = (uint32_t)i;
        if (p->size[i] > 0) {
            nonempty[m++] = (uint32_t)i;
            if (p->buffers[i].first < t_lo) {
                t_lo = p->buffers[i].first;
            }
            if (p->buffers[i].last > t_hi) {
                t_hi = p->buffers[i].last;
            }
        }
    }
    ap_pl_rng_seed(&rng, search->seed ^ UINT64_C(0x6c6e73));
    cur_arena = lns_measure(&s, &cur_excess);

    while (cur_arena > s.bound && !(search->capacity > 0 && cur_arena <= search->capacity)) {
        size_t npeak = 0, k = 0, from, new_arena, band, seen = 0;
        int64_t w0, w1, span = t_hi - t_lo + 1;
        size_t a0, a1;
        uint32_t centre;
        double new_excess;
        ap_pl_fit fit;
        if ((moves & 63u) == 0 && ap_pl_expired(p->control, search->deadline)) {
            break;
        }
        if (search->max_steps > 0 && used >= search->max_steps) {
            break;
        }
        ++moves;
        ++used;
        if ((moves & 15u) == 1) {
            /* every 16 moves: re-solve a top band exactly; the band grows after a
               proof that it cannot shrink the arena, shrinks after running out of
               nodes */
            uint64_t nodes = LNS_BAND_NODES, band_steps = 0;
            size_t want = band_want / 2 + ap_pl_rng_below(&rng, (uint32_t)band_want);
            int r;
            if (search->max_steps > 0 && search->max_steps - used < nodes) {
                nodes = search->max_steps - used;
            }
            r = lns_band_move(p, &w, offsets, nonempty, m, cur_arena, want, search->deadline,
                              nodes > 0 ? nodes : 1, ap_pl_rng_next(&rng), &band_steps);
            used += band_steps;
            search->steps += band_steps;
            if (r < 0) {
                st = AP_ERR_OUT_OF_MEMORY;
                break;
            }
            if (r == 0 && band_want < m) {
                band_want += band_want / 4 + 1;
            } else if (r == 2 && band_want > 8) {
                band_want -= band_want / 4;
            }
            if (r == 1) {
                cur_arena = lns_measure(&s, &cur_excess);
                if (cur_arena < *arena) {
                    search->improved = 1;
                }
            }
            continue;
        }
        /* centre: a buffer touching the peak (3 moves in 4), else any */
        if (ap_pl_rng_below(&rng, 4) != 0) {
            for (i = 0; i < m; ++i) {
                uint32_t b = nonempty[i];
                if (offsets[b] + p->size[b] == cur_arena) {
                    peak[npeak++] = b;
                }
            }
        }
        centre = npeak > 0 ? peak[ap_pl_rng_below(&rng, (uint32_t)npeak)]
                           : nonempty[ap_pl_rng_below(&rng, (uint32_t)m)];
        /* window: the centre's lifetime and bytes, widened at random */
        w0 = p->buffers[centre].first - rand_span(&rng, span / 4);
        w1 = p->buffers[centre].last + rand_span(&rng, span / 4);
        band = cur_arena / 4 + 1;
        band = (size_t)(((double)band) * ap_pl_rng_unit(&rng));
        a0 = offsets[centre] > band ? offsets[centre] - band : 0;
        a1 = offsets[centre] + p->size[centre] + band; /* < padded_total + arena */
        /* free the buffers overlapping the window; beyond LNS_MAX_FREE keep a
           uniform sample (reservoir) */
        for (i = 0; i < m; ++i) {
            uint32_t b = nonempty[i];
            const ap_buffer *x = &p->buffers[b];
            if (x->last < w0 || x->first > w1 || offsets[b] >= a1 ||
                offsets[b] + p->size[b] <= a0) {
                continue;
            }
            ++seen;
            if (k < LNS_MAX_FREE) {
                freed[k++] = b;
            } else {
                uint32_t r = ap_pl_rng_below(&rng, (uint32_t)(seen > UINT32_MAX ? UINT32_MAX
                                                                                  : seen));
                if (r < LNS_MAX_FREE) {
                    freed[r] = b;
                }
            }
        }
        if (k < 2) {
            continue;
        }
        /* re-insertion order: larger first with noise, or random */
        {
            int by_size = ap_pl_rng_below(&rng, 3) != 0;
            size_t a, b2;
            for (a = 0; a < k; ++a) {
                key[a] = by_size ? (double)p->size[freed[a]] * (0.5 + ap_pl_rng_unit(&rng))
                                 : ap_pl_rng_unit(&rng);
            }
            for (a = 1; a < k; ++a) { /* insertion sort, descending key */
                uint32_t fb = freed[a];
                double fk = key[a];
                b2 = a;
                while (b2 > 0 && key[b2 - 1] < fk) {
                    freed[b2] = freed[b2 - 1];
                    key[b2] = key[b2 - 1];
                    --b2;
                }
                freed[b2] = fb;
                key[b2] = fk;
            }
        }
        fit = ap_pl_rng_below(&rng, 4) == 0 ? AP_PL_BEST_FIT : AP_PL_FIRST_FIT;
        from = p->n - k;
        for (i = 0; i < k; ++i) {
            saved[i] = offsets[freed[i]];
            /* positions [from, n) hold the freed buffers; the rest of `order` is
               never read, as the decode only looks at ranks below its own */
            order[from + i] = freed[i];
            placer.rank[freed[i]] = UINT32_MAX;
        }
        ap_pl_decode(p, order, from, fit, &placer, offsets);
        for (i = 0; i < k; ++i) {
            placer.rank[freed[i]] = 0;
        }
        new_arena = lns_measure(&s, &new_excess);
        if (new_arena < cur_arena || (new_arena == cur_arena && new_excess <= cur_excess)) {
            if (new_arena < *arena) {
                search->improved = 1;
            }
            cur_arena = new_arena;
            cur_excess = new_excess;
        } else {
            for (i = 0; i < k; ++i) {
                offsets[freed[i]] = saved[i];
            }
        }
    }
    *arena = cur_arena;
    if (cur_arena <= s.bound) {
        search->proven = 1;
    }
out:
    search->steps += moves;
    ap_pl_placer_free(&placer);
    free(order);
    free(nonempty);
    free(peak);
    free(freed);
    free(saved);
    free(key);
    free(w.by_off);
    free(w.ktmp);
    free(w.sub_of);
    free(w.members);
    free(w.sub);
    free(w.sub_base);
    free(w.sub_off);
    return st;
}
