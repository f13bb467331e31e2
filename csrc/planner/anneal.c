/*
 * Improving search: simulated annealing over placement orders.
 *
 * A state is an order of the non-empty buffers; it is decoded into offsets by
 * first fit (the same routine as greedy_size), so every state is a valid plan
 * and its cost is its arena. Moves:
 *   - take a buffer that touches the peak (its end is the arena) and insert it
 *     earlier in the order: placed earlier, it usually lands lower;
 *   - swap two random positions;
 *   - move a random buffer to a random position.
 * Only the suffix of the order from the first changed position is decoded
 * again; a rejected move restores that suffix from a copy. Worse states are
 * accepted with probability exp(-delta / T), T falling linearly to zero at the
 * deadline; after a long stretch without a new best the search restarts from
 * the best order. The move sequence depends only on the seed (our own PRNG, no
 * global state); how far it gets depends on the time limit, or on the step
 * limit (search->max_steps, one step a move) when that comes first: then the
 * temperature falls with the moves instead of the clock and the plan is the
 * same on every machine.
 */
#include "planner_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct an_state {
    const ap_pl_problem *p;
    size_t m;              /* non-empty buffers: positions [0, m) of the order */
    uint32_t *order;
    size_t *offsets;       /* per buffer */
    size_t *prefix_max;    /* per position: max end over order[0 .. pos] */
    ap_pl_placer placer;
} an_state;

static size_t an_end(const an_state *s, size_t pos)
{
    uint32_t b = s->order[pos];
    return s->offsets[b] + s->p->size[b];
}

/* Decode positions [from, m) and return the arena. */
static size_t an_decode(an_state *s, size_t from)
{
    size_t pos, run = from > 0 ? s->prefix_max[from - 1] : 0;
    ap_pl_decode(s->p, s->order, from, AP_PL_FIRST_FIT, &s->placer, s->offsets);
    for (pos = from; pos < s->m; ++pos) {
        size_t end = an_end(s, pos);
        if (end > run) {
            run = end;
        }
        s->prefix_max[pos] = run;
    }
    return s->m > 0 ? s->prefix_max[s->m - 1] : 0;
}

ap_status ap_pl_anneal(const ap_pl_problem *p, const uint32_t *start_order, size_t *offsets,
                       size_t *arena, ap_pl_search *search)
{
    an_state s;
    ap_pl_rng rng;
    uint32_t *best_order = NULL, *saved_order = NULL;
    size_t *saved_offsets = NULL, *saved_prefix = NULL;
    size_t i, m = 0, z, cur, best_arena = *arena;
    size_t lower = p->lower_bound;
    double start = ap_pl_now(), budget = search->deadline - start, temp0, temp = 0;
    uint64_t moves = 0, since_best = 0;
    ap_status st = AP_OK;

    search->proven = 0;
    search->improved = 0;
    search->infeasible = 0;
    memset(&s, 0, sizeof(s));
    s.p = p;
    s.order = (uint32_t *)ap_pl_alloc(p->n, sizeof(uint32_t));
    s.offsets = (size_t *)ap_pl_alloc(p->n, sizeof(size_t));
    s.prefix_max = (size_t *)ap_pl_alloc(p->n, sizeof(size_t));
    best_order = (uint32_t *)ap_pl_alloc(p->n, sizeof(uint32_t));
    saved_order = (uint32_t *)ap_pl_alloc(p->n, sizeof(uint32_t));
    saved_offsets = (size_t *)ap_pl_alloc(p->n, sizeof(size_t));
    saved_prefix = (size_t *)ap_pl_alloc(p->n, sizeof(size_t));
    if (!s.order || !s.offsets || !s.prefix_max || !best_order || !saved_order ||
        !saved_offsets || !saved_prefix || ap_pl_placer_init(&s.placer, p) != AP_OK) {
        st = AP_ERR_OUT_OF_MEMORY;
        goto out;
    }
    /* non-empty buffers first, in the starting order; empty ones stay at the end */
    z = p->nonempty;
    for (i = 0; i < p->n; ++i) {
        uint32_t b = start_order[i];
        if (p->size[b] > 0) {
            s.order[m++] = b;
        } else {
            s.order[z++] = b;
        }
    }
    s.m = m;
    cur = an_decode(&s, 0);
    memcpy(best_order, s.order, m * sizeof(uint32_t));
    if (cur < best_arena) {
        best_arena = cur;
        memcpy(offsets, s.offsets, p->n * sizeof(size_t));
        search->improved = 1;
    }
    /* A move that raises the arena by 1 % of the bound is taken one time in e
       at the start; the temperature falls linearly to zero at the deadline. */
    temp0 = 0.01 * (double)(lower > 0 ? lower : 1);
    if (budget <= 0) {
        budget = 1e-9;
    }
    ap_pl_rng_seed(&rng, search->seed);

    while (m >= 2 && best_arena > lower &&
           !(search->capacity > 0 && best_arena <= search->capacity)) {
        size_t from, last, a, b, next;
        double u;
        {
            /* a move can cost milliseconds on big problems: read the clock every time */
            double now = ap_pl_now();
            if (now >= search->deadline || ap_pl_expired(p->control, search->deadline) ||
                (search->max_steps > 0 && moves >= search->max_steps)) {
                break;
            }
            /* with a step limit the schedule follows the steps, so that the path
               does not depend on the machine's speed */
            temp = search->max_steps > 0
                       ? temp0 * (1.0 - (double)moves / (double)search->max_steps)
                       : temp0 * (1.0 - (now - start) / budget);
        }
        ++moves;
        ++since_best;
        if (since_best > 20000u + 50u * (uint64_t)m) {
            /* stuck: go back to the best order */
            memcpy(s.order, best_order, m * sizeof(uint32_t));
            cur = an_decode(&s, 0);
            since_best = 0;
            continue;
        }
        u = ap_pl_rng_unit(&rng);
        if (u < 0.5) {
            /* a peak buffer, found by scanning from a random position */
            size_t k, start_pos = ap_pl_rng_below(&rng, (uint32_t)m);
            a = m;
            for (k = 0; k < m; ++k) {
                size_t pos = start_pos + k < m ? start_pos + k : start_pos + k - m;
                if (an_end(&s, pos) == cur) {
                    a = pos;
                    break;
                }
            }
            if (a == 0 || a == m) {
                continue;
            }
            b = ap_pl_rng_below(&rng, (uint32_t)a); /* new position, earlier */
            from = b;
            last = a;
        } else if (u < 0.8) {
            a = ap_pl_rng_below(&rng, (uint32_t)m);
            b = ap_pl_rng_below(&rng, (uint32_t)m);
            if (a == b) {
                continue;
            }
            from = a < b ? a : b;
            last = a < b ? b : a;
        } else {
            a = ap_pl_rng_below(&rng, (uint32_t)m);
            b = ap_pl_rng_below(&rng, (uint32_t)m);
            if (a == b) {
                continue;
            }
            from = a < b ? a : b;
            last = a < b ? b : a;
        }
        /* save what the move and the decode will overwrite */
        memcpy(saved_order + from, s.order + from, (last - from + 1) * sizeof(uint32_t));
        memcpy(saved_prefix + from, s.prefix_max + from, (m - from) * sizeof(size_t));
        for (i = from; i < m; ++i) {
            saved_offsets[i] = s.offsets[s.order[i]];
        }
        if (u < 0.5 || u >= 0.8) {
            /* move the buffer at a to position b */
            uint32_t moving = s.order[a];
            if (b < a) {
                memmove(s.order + b + 1, s.order + b, (a - b) * sizeof(uint32_t));
            } else {
                memmove(s.order + a, s.order + a + 1, (b - a) * sizeof(uint32_t));
            }
            s.order[b] = moving;
        } else {
            uint32_t t = s.order[a];
            s.order[a] = s.order[b];
            s.order[b] = t;
        }
        next = an_decode(&s, from);
        if (next <= cur || (temp > 0 && ap_pl_rng_unit(&rng) < exp(-(double)(next - cur) / temp))) {
            cur = next;
            if (cur < best_arena) {
                best_arena = cur;
                            memcpy(offsets, s.offsets, p->n * sizeof(size_t));
                memcpy(best_order, s.order, m * sizeof(uint32_t));
                search->improved = 1;
                since_best = 0;
            }
            continue;
        }
        /* rejected: put the suffix back */
        memcpy(s.order + from, saved_order + from, (last - from + 1) * sizeof(uint32_t));
        memcpy(s.prefix_max + from, saved_prefix + from, (m - from) * sizeof(size_t));
        for (i = from; i <= last; ++i) {
            s.placer.rank[s.order[i]] = (uint32_t)i;
        }
        for (i = from; i < m; ++i) {
            s.offsets[s.order[i]] = saved_offsets[i];
        }
    }
    *arena = best_arena;
    search->proven = best_arena <= lower;
    search->steps += moves;
out:
    ap_pl_placer_free(&s.placer);
    free(s.order);
    free(s.offsets);
    free(s.prefix_max);
    free(best_order);
    free(saved_order);
    free(saved_offsets);
    free(saved_prefix);
    return st;
}
