/*
 * ap_plan_buffers: validation, the strategy dispatcher and `auto`.
 *
 * auto: every greedy heuristic (each O(E log) once the conflict graph is
 * built); stop if the best reaches the lower bound (then it is optimal). Else
 * the exact search gets the first part of the remaining time (it proves the
 * bound reachable, or finds a plan within it, quickly on network-shaped graphs)
 * and annealing the rest (above AUTO_ANNEAL_MAX_BUFFERS buffers, exact gets it
 * all). The best plan is returned; greedy_size runs first and only a strictly
 * smaller arena replaces it, so auto is never worse than it.
 */
#include "planner_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Used when options->time_limit_s <= 0: the whole call, heuristics included,
   stays within it. */
#define DEFAULT_TIME_LIMIT_S 1.0
/* Share of auto's search time given to the exact search before annealing. */
#define AUTO_EXACT_SHARE 0.75
/* Above this many non-empty buffers auto gives all its search time to the exact
   search: an annealing move re-decodes O(n) buffers, so it makes too few moves
   to matter, while one exact descent (n nodes of O(n)) often lands on the bound. */
#define AUTO_ANNEAL_MAX_BUFFERS 2000u

const char *ap_strategy_str(ap_strategy strategy)
{
    switch (strategy) {
    case AP_STRATEGY_AUTO: return "auto";
    case AP_STRATEGY_GREEDY_SIZE: return "greedy_size";
    case AP_STRATEGY_GREEDY_SIZE_BEST_FIT: return "greedy_size_best_fit";
    case AP_STRATEGY_GREEDY_CONFLICTS: return "greedy_conflicts";
    case AP_STRATEGY_GREEDY_CONFLICTS_BEST_FIT: return "greedy_conflicts_best_fit";
    case AP_STRATEGY_ANNEAL: return "anneal";
    case AP_STRATEGY_EXACT: return "exact";
    }
    return NULL;
}

typedef struct plan_run {
    const ap_pl_problem *p;
    size_t *best;          /* offsets of the best plan so far */
    size_t best_arena;
    ap_strategy best_strategy;
    size_t *work;          /* scratch offsets */
    int proven;
    uint64_t steps;
} plan_run;

/* Run a greedy strategy into run->work; keep it if strictly better. */
static ap_status try_greedy(plan_run *run, ap_strategy strategy)
{
    size_t arena;
    ap_status st = ap_pl_greedy(run->p, strategy, run->work);
    if (st != AP_OK) {
        return st;
    }
    arena = ap_pl_arena(run->p, run->work);
    if (arena < run->best_arena) {
        size_t *swap = run->best;
        run->best = run->work;
        run->work = swap;
        run->best_arena = arena;
        run->best_strategy = strategy;
    }
    return AP_OK;
}

static ap_status run_exact(plan_run *run, double deadline, size_t capacity, int *infeasible)
{
    ap_pl_search search;
    ap_status st;
    memset(&search, 0, sizeof(search));
    search.deadline = deadline;
    search.capacity = capacity;
    st = ap_pl_exact(run->p, run->best, &run->best_arena, &search);
    run->steps += search.steps;
    if (search.improved) {
        run->best_strategy = AP_STRATEGY_EXACT;
    }
    if (search.proven) {
        run->proven = 1;
    }
    if (infeasible != NULL) {
        *infeasible = search.infeasible;
    }
    return st;
}

/* same lifetime together; in a block, larger alignments first so that every
   member stays aligned when they are stacked */
static int merge_before(const void *context, uint32_t a, uint32_t b)
{
    const ap_buffer *x = &((const ap_pl_problem *)context)->buffers[a];
    const ap_buffer *y = &((const ap_pl_problem *)context)->buffers[b];
    if (x->first != y->first) {
        return x->first < y->first;
    }
    if (x->last != y->last) {
        return x->last < y->last;
    }
    if (x->alignment != y->alignment) {
        return x->alignment > y->alignment;
    }
    return a < b;
}

/*
 * Exact search on the problem with every set of same-lifetime buffers stacked
 * into one block. Such buffers conflict with exactly the same others, so the
 * blocks are a restriction of the original problem (a plan for them is a plan
 * for it, and with the same lower bound), and often a much smaller one: the
 * scratch buffers of one op, or a tensor cut into pieces. Skipped when it
 * shrinks the problem by less than 10 %.
 */
static ap_status run_merged_exact(plan_run *run, double deadline, size_t capacity)
{
    const ap_pl_problem *p = run->p;
    uint32_t *order = NULL, *tmp = NULL, *group_start = NULL;
    ap_buffer *merged = NULL;
    size_t *moff = NULL;
    size_t i, m = 0, groups = 0, arena;
    ap_pl_problem mp;
    ap_pl_search search;
    ap_status st = AP_OK;

    memset(&mp, 0, sizeof(mp));
    order = (uint32_t *)ap_pl_alloc(p->n, sizeof(uint32_t));
    tmp = (uint32_t *)ap_pl_alloc(p->n, sizeof(uint32_t));
    group_start = (uint32_t *)ap_pl_alloc(p->n + 1, sizeof(uint32_t));
    merged = (ap_buffer *)ap_pl_alloc(p->n, sizeof(ap_buffer));
    moff = (size_t *)ap_pl_alloc(p->n, sizeof(size_t));
    if (!order || !tmp || !group_start || !merged || !moff) {
        st = AP_ERR_OUT_OF_MEMORY;
        goto out;
    }
    for (i = 0; i < p->n; ++i) {
        if (p->size[i] > 0) {
            order[m++] = (uint32_t)i;
        }
    }
    ap_pl_sort_indices(order, m, tmp, merge_before, p);
    for (i = 0; i < m; ++i) {
        const ap_buffer *b = &p->buffers[order[i]];
        if (groups == 0 || b->first != merged[groups - 1].first ||
            b->last != merged[groups - 1].last) {
            group_start[groups] = (uint32_t)i;
            merged[groups].size = 0;
            merged[groups].alignment = b->alignment; /* the largest: sorted first */
            merged[groups].first = b->first;
            merged[groups].last = b->last;
            ++groups;
        }
        merged[groups - 1].size += p->size[order[i]]; /* <= the checked total */
    }
    group_start[groups] = (uint32_t)m;
    if (groups == 0 || (double)groups > 0.9 * (double)m) {
        goto out;
    }
    if (ap_pl_problem_init(&mp, merged, groups, NULL) != AP_OK) {
        goto out; /* e.g. padding overflow of the blocks: just skip this phase */
    }
    if ((st = ap_pl_greedy(&mp, AP_STRATEGY_GREEDY_SIZE, moff)) != AP_OK) {
        goto out;
    }
    arena = ap_pl_arena(&mp, moff);
    memset(&search, 0, sizeof(search));
    search.deadline = deadline;
    search.capacity = capacity;
    st = ap_pl_exact(&mp, moff, &arena, &search);
    run->steps += search.steps;
    if (st == AP_OK && arena < run->best_arena) {
        size_t g;
        for (i = 0; i < p->n; ++i) {
            run->best[i] = 0;
        }
        for (g = 0; g < groups; ++g) {
            size_t at = moff[g];
            for (i = group_start[g]; i < group_start[g + 1]; ++i) {
                run->best[order[i]] = at;
                at += p->size[order[i]];
            }
        }
        run->best_arena = arena;
        run->best_strategy = AP_STRATEGY_EXACT;
    }
out:
    ap_pl_problem_free(&mp);
    free(order);
    free(tmp);
    free(group_start);
    free(merged);
    free(moff);
    return st;
}

static ap_status run_anneal(plan_run *run, double deadline, size_t capacity, uint64_t seed)
{
    ap_pl_search search;
    ap_status st;
    uint32_t *order = (uint32_t *)ap_pl_alloc(run->p->n, sizeof(uint32_t));
    uint32_t *tmp = (uint32_t *)ap_pl_alloc(run->p->n, sizeof(uint32_t));
    if (order == NULL || tmp == NULL) {
        free(order);
        free(tmp);
        return AP_ERR_OUT_OF_MEMORY;
    }
    /* start from TFLM's order: its first-fit decode is greedy_size's plan */
    ap_pl_order_by_size(run->p, order, tmp);
    memset(&search, 0, sizeof(search));
    search.deadline = deadline;
    search.capacity = capacity;
    search.seed = seed;
    st = ap_pl_anneal(run->p, order, run->best, &run->best_arena, &search);
    run->steps += search.steps;
    if (search.improved) {
        run->best_strategy = AP_STRATEGY_ANNEAL;
    }
    if (search.proven) {
        run->proven = 1;
    }
    free(order);
    free(tmp);
    return st;
}

/* Nothing left to search for: optimal, within the capacity, or the capacity is
   below the live bytes (then no plan can fit). */
static int done(const plan_run *run, size_t capacity)
{
    return run->best_arena <= run->p->lower_bound || run->proven ||
           (capacity > 0 && (run->best_arena <= capacity || run->p->lower_bound > capacity));
}

ap_status ap_plan_buffers(const ap_plan_options *options, const ap_buffer *buffers, size_t count,
                          size_t *offsets_out, ap_plan_stats *stats_out, ap_error *error_out)
{
    double t0 = ap_pl_now(), limit, deadline;
    ap_pl_problem problem;
    plan_run run;
    ap_status st;
    size_t capacity;
    int infeasible = 0;

    ap_error_clear(error_out);
    if (options == NULL) {
        return ap_pl_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1,
                          "options is NULL");
    }
    if (ap_strategy_str(options->strategy) == NULL) {
        return ap_pl_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1,
                          "unknown strategy %d", (int)options->strategy);
    }
    if (count > 0 && offsets_out == NULL) {
        return ap_pl_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1,
                          "offsets_out is NULL but count is %zu", count);
    }
    st = ap_pl_problem_init(&problem, buffers, count, error_out);
    if (st != AP_OK) {
        return st;
    }
    /* NaN and non-positive limits mean the default. The searches stop a little
       before the limit (10 %, at most 100 ms) so that copying the result out and the
       caller's own overhead still fit within it. */
    limit = options->time_limit_s > 0 ? options->time_limit_s : DEFAULT_TIME_LIMIT_S;
    deadline = t0 + limit - (0.1 * limit < 0.1 ? 0.1 * limit : 0.1);
    capacity = options->capacity;

    memset(&run, 0, sizeof(run));
    run.p = &problem;
    run.best = (size_t *)ap_pl_alloc(count, sizeof(size_t));
    run.work = (size_t *)ap_pl_alloc(count, sizeof(size_t));
    run.best_arena = SIZE_MAX;
    if (run.best == NULL || run.work == NULL) {
        st = AP_ERR_OUT_OF_MEMORY;
        goto out;
    }

    switch (options->strategy) {
    case AP_STRATEGY_GREEDY_SIZE:
    case AP_STRATEGY_GREEDY_SIZE_BEST_FIT:
    case AP_STRATEGY_GREEDY_CONFLICTS:
    case AP_STRATEGY_GREEDY_CONFLICTS_BEST_FIT:
        st = try_greedy(&run, options->strategy);
        break;
    case AP_STRATEGY_ANNEAL:
        st = try_greedy(&run, AP_STRATEGY_GREEDY_SIZE);
        if (st == AP_OK && !done(&run, capacity)) {
            st = run_anneal(&run, deadline, capacity, options->seed);
        }
        break;
    case AP_STRATEGY_EXACT:
    case AP_STRATEGY_AUTO: {
        static const ap_strategy greedy[] = {
            AP_STRATEGY_GREEDY_SIZE, AP_STRATEGY_GREEDY_SIZE_BEST_FIT,
            AP_STRATEGY_GREEDY_CONFLICTS, AP_STRATEGY_GREEDY_CONFLICTS_BEST_FIT};
        size_t g;
        /* the heuristics give the search its incumbent (and often the answer) */
        for (g = 0; g < sizeof(greedy) / sizeof(greedy[0]) && st == AP_OK; ++g) {
            st = try_greedy(&run, greedy[g]);
            if (done(&run, capacity)) {
                break;
            }
        }
        if (st != AP_OK || done(&run, capacity)) {
            break;
        }
        {
            double now = ap_pl_now();
            double exact_deadline = problem.nonempty <= AUTO_ANNEAL_MAX_BUFFERS &&
                                            options->strategy == AP_STRATEGY_AUTO
                                        ? now + AUTO_EXACT_SHARE * (deadline - now)
                                        : deadline;
            /* half of the exact search's time on the stacked problem first */
            st = run_merged_exact(&run, now + 0.5 * (exact_deadline - now), capacity);
            if (st != AP_OK || done(&run, capacity)) {
                break;
            }
            st = run_exact(&run, exact_deadline, capacity, &infeasible);
            if (options->strategy == AP_STRATEGY_EXACT) {
                break;
            }
            if (st != AP_OK || done(&run, capacity) || infeasible ||
                problem.nonempty > AUTO_ANNEAL_MAX_BUFFERS) {
                break;
            }
        }
        st = run_anneal(&run, deadline, capacity, options->seed);
        break;
    }
    }
    if (st != AP_OK) {
        if (st == AP_ERR_OUT_OF_MEMORY) {
            ap_pl_fail(error_out, st, AP_SUBJECT_NONE, -1,
                       "out of memory planning %zu buffers", count);
        }
        goto out;
    }
    if (run.best_arena <= problem.lower_bound) {
        run.proven = 1;
    }
    if (stats_out != NULL) {
        stats_out->arena_bytes = run.best_arena;
        stats_out->lower_bound_bytes = problem.lower_bound;
        stats_out->optimal = run.proven;
        stats_out->strategy = run.best_strategy;
        stats_out->search_steps = run.steps;
        stats_out->elapsed_s = ap_pl_now() - t0;
    }
    if (capacity > 0 && run.best_arena > capacity) {
        const char *why = problem.lower_bound > capacity
                              ? "the live bytes alone exceed it"
                              : (infeasible ? "proven: no plan fits"
                                            : "no plan found within the time limit");
        st = ap_pl_fail(error_out, AP_ERR_DOES_NOT_FIT, AP_SUBJECT_NONE, -1,
                        "buffers need %zu bytes but capacity is %zu (%s; lower bound %zu)",
                        run.best_arena, capacity, why, problem.lower_bound);
        if (error_out != NULL) {
            error_out->needed = run.best_arena;
            error_out->available = capacity;
        }
        goto out;
    }
    if (count > 0) {
        memcpy(offsets_out, run.best, count * sizeof(size_t));
    }
out:
    free(run.best);
    free(run.work);
    ap_pl_problem_free(&problem);
    return st;
}
