/*
 * ap_plan_buffers: validation, the strategy dispatcher and `auto`. Each
 * algorithm has its own file (greedy_size.c, greedy_conflicts.c, exact.c,
 * blocks.c, lns.c, anneal.c, bands/); this one only shares out the time and
 * steps among them and keeps the best plan.
 *
 * auto: every greedy heuristic (each O(E log) once the conflict graph is
 * built); stop if the best reaches the lower bound (then it is optimal). Else
 * the exact search gets AUTO_EXACT_SHARE of the time (it proves the bound
 * reachable, or finds a plan within it, quickly on network-shaped graphs),
 * half of it on the stacked problem of blocks.c first. If a gap to the bound
 * remains and the problem is flat (its live bytes are the bound at every op,
 * as in an address x time rectangle cut into buffers), the band phase of
 * bands/ gets AUTO_BANDS_SHARE of what is left (at most BANDS_NODES nodes,
 * and as many again as its descent had when a second, hinge descent runs): it
 * looks for a plan at exactly the bound, or leaves its descent's plan (bands
 * placed exactly, the rest planned apart) if that is better; either is
 * reported as "bands". On any other problem the band phase cannot close the
 * gap (its descent needs a rectangle to fill) and is not called. The rest of
 * the time goes to the large neighbourhood search of lns.c (annealing instead
 * when a capacity is given); above AUTO_ANNEAL_MAX_BUFFERS buffers neither
 * runs, and the last phase that does (the exact search, or the band phase on
 * a flat problem) gets all that is left. The best plan is returned;
 * greedy_size runs first and only a strictly smaller arena replaces it, so
 * auto is never worse than it.
 *
 * bands: the greedy heuristics, then the band phase with the whole time (and
 * steps, at most BANDS_NODES nodes as in auto), whatever the problem's shape.
 *
 * lns: the greedy heuristics, then the large neighbourhood search for the whole
 * time (with a capacity, until a plan fits).
 *
 * Time: the search strategies (anneal, exact, lns, bands, auto) stop at the time limit
 * (default 1 s), measured from entry, less a small margin for the way out; the
 * greedy strategies ignore it. A search that cannot get its working memory is
 * skipped and the plan in hand is returned.
 *
 * Steps (options->step_limit > 0): the searches also stop after that many
 * steps in all; auto shares them out as it shares its time (the exact phases
 * AUTO_EXACT_SHARE, the band phase AUTO_BANDS_SHARE of what they left, the rest
 * to the neighbourhood search or annealing). Every
 * search bounds its parts by counts, never by the clock, so a call that stops
 * on its steps returns the same plan on any machine.
 *
 * Capacity (options->capacity > 0): every strategy stops at the first plan
 * within it and returns AP_OK (the band phase takes no capacity: it ends when
 * it has its plan, which is then judged like any other). Otherwise AP_ERR_DOES_NOT_FIT, with needed = the
 * best arena found and available = the capacity; the message says whether that
 * is proven ("the live bytes alone exceed it", or the exact search exhausted
 * every plan: "proven: no plan fits") or only that none was found in the time.
 * AP_ERR_TIMEOUT is never returned: there is always a plan (the greedy one),
 * and stats_out (filled on DOES_NOT_FIT too) says whether it is proven optimal.
 *
 * Large problems. The problem is first sized without its conflict graph (the
 * number of conflicting pairs is counted in O(n log n)), so that the graph's
 * bytes (ap_pl_graph_bytes) and the time to build it and make one greedy pass
 * over it (fixed rates: ap_pl_graph_cost_s, ap_pl_greedy_cost_s) are known
 * before anything is allocated. A search strategy on a problem whose graph is
 * over options->memory_limit, or whose graph and one greedy pass would take more
 * than LARGE_TIME_SHARE of its time, starts from the sweep plan (sweep.c: no
 * graph, O(n log n)), reported as "sweep"; then builds the graph and runs the
 * greedy heuristics only if they fit the memory and the time left, each cut off
 * at the deadline (a cut pass is dropped, never half-used), and the searches only
 * on a graph. Whatever auto skipped or cut is in ap_plan_stats.skipped: bit
 * AP_STRATEGY_GREEDY_SIZE there means TFLite Micro's figure was not computed.
 * A greedy strategy (the figure itself) ignores the time limit as before, but
 * refuses a graph over the memory limit with AP_ERR_OUT_OF_MEMORY, needed = its
 * bytes. The exact search is skipped when its trails (ap_pl_exact_bytes) are over
 * the memory limit.
 *
 * Cancellation and progress: options->poll is called every AP_PL_POLL_S seconds
 * from the check points every phase already has (the clock checks of the
 * searches, and ticks counted in the graph build and the greedy and sweep
 * passes, every AP_PL_TICK_WORK units of work); when it returns nonzero every
 * check point reports its deadline passed, and the call returns AP_ERR_CANCELLED.
 */
#include "planner_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Used when options->time_limit_s <= 0: the whole call, heuristics included,
   stays within it. */
#define DEFAULT_TIME_LIMIT_S 1.0
/* Share of auto's search time (and steps) given to the exact search before the
   neighbourhood search (or annealing, with a capacity). Half: on the hard cut
   rectangles of bench_planner (9 instances x 2 seeds, 6M steps each) it was never
   worse than 0.75 and better on 9 of the 18 runs (mean auto / bound 1.0565 -> 1.0542). */
#define AUTO_EXACT_SHARE 0.5
/* The exact phases' share on a flat problem, where the band phase follows. On a
   rectangle cut into buffers the exact search either reaches the bound at once
   (200 s0 of bench_planner: 7,777 nodes) or not in any time the call has, while
   the band phase needs most of the budget: with AUTO_EXACT_SHARE before it, auto
   with 20M steps ended 400 s1 6.3 % above the bound and took 300 s1 there only
   after 10M steps (the band phase alone: 2.45M nodes and 0.1M). */
#define AUTO_FLAT_EXACT_SHARE 0.1
/* Above this many non-empty buffers auto gives all its search time to the exact
   search: an annealing move re-decodes O(n) buffers, so it makes too few moves
   to matter, while one exact descent (n nodes of O(n)) often lands on the bound. */
#define AUTO_ANNEAL_MAX_BUFFERS 2000u
/* The band phase's share of the time and steps auto has left when it runs, and
   its node cap (in auto and in the bands strategy). The share was measured when
   the phase ran first, with the whole time; after AUTO_FLAT_EXACT_SHARE it has
   0.675 of it, and with 27M steps it still reaches the node cap.
   Its exact passes reach the bound on the cut rectangles within about 3M nodes
   when they reach it at all; its descent's capped band hunts need about a
   second more on 500 s15 (one hunt of 1.2M nodes), which 0.4 of 10 s left too
   short. In bench_planner's wider sample (seeds 0-19) 0.6 adds 500 s15 to the
   problems at the bound; the others within 5 % of it stay within. At 0.6 of
   10 s the phase made about 12M nodes here (2.2M a second), and with the
   descent's hunts held to a share of its nodes (bands/bands_descent.c) the sample had
   55 of 58 within 5 %; at 0.75 it reaches the node cap, as with 27M steps, and
   all 58 are within 5 %. */
#define AUTO_BANDS_SHARE 0.75
#define BANDS_NODES 16000000u
/* A search strategy starts from the sweep plan when building the conflict graph and
   one greedy pass over it are estimated to take more than this share of its time:
   the rest is for the searches, and the estimate may be off by a factor of two. */
#define LARGE_TIME_SHARE 0.25
/* options->memory_limit == 0: 4 GiB, or half the address space of a 32-bit host. */
#define DEFAULT_MEMORY_LIMIT ((size_t)-1 > UINT64_C(0xFFFFFFFF) ? (size_t)UINT64_C(4294967296) \
                                                                  : (size_t)-1 / 2)

typedef struct plan_run {
    const ap_pl_problem *p;
    size_t *best;          /* offsets of the best plan so far */
    size_t best_arena;     /* meaningful once have_best is set */
    int have_best;         /* run->best holds a plan (an arena of SIZE_MAX is a real one) */
    ap_strategy best_strategy;
    size_t *work;          /* scratch offsets */
    int proven;
    uint64_t steps;
    uint64_t step_limit;   /* options->step_limit: 0 = none */
    double greedy_deadline; /* greedy passes stop here (search strategies: the deadline) */
    int large;             /* the sweep made the first plan: greedies judged by their cost */
    size_t memory_limit;
    uint32_t skipped;      /* ap_plan_stats.skipped */
    const size_t *fixed;   /* options->fixed_offsets (greedy strategies only) */
} plan_run;

static uint32_t bit(ap_strategy strategy)
{
    return 1u << (unsigned)strategy;
}

/* Steps for the next phase: `share` of those left (at least one), or 0 (no
   limit) when the call has no step limit. */
static uint64_t phase_steps(const plan_run *run, double share)
{
    uint64_t left, part;
    if (run->step_limit == 0) {
        return 0;
    }
    left = run->steps < run->step_limit ? run->step_limit - run->steps : 0;
    part = (uint64_t)(share * (double)left);
    return part > 0 ? part : 1;
}

/* The limits of one search phase; its results start cleared. */
static ap_pl_search phase_search(double deadline, uint64_t max_steps, size_t capacity, uint64_t seed)
{
    ap_pl_search search;
    memset(&search, 0, sizeof(search));
    search.deadline = deadline;
    search.max_steps = max_steps;
    search.capacity = capacity;
    search.seed = seed;
    return search;
}

/* Count a finished phase's steps and proof; credit `strategy` if it improved run->best. */
static void absorb_search(plan_run *run, const ap_pl_search *search, ap_strategy strategy)
{
    run->steps += search->steps;
    if (search->improved) {
        run->best_strategy = strategy;
    }
    if (search->proven) {
        run->proven = 1;
    }
}

/* The plan in run->work, made by `strategy`: it becomes run->best if it is the
   first plan or its arena is strictly smaller. */
static void offer_work(plan_run *run, ap_strategy strategy)
{
    size_t arena = ap_pl_arena(run->p, run->work);
    if (!run->have_best || arena < run->best_arena) {
        run->have_best = 1;
        size_t *swap = run->best;
        run->best = run->work;
        run->work = swap;
        run->best_arena = arena;
        run->best_strategy = strategy;
    }
}

/* Run a greedy strategy into run->work; keep it if strictly better. On a large
   problem a pass that would not end before the deadline is not started; one that
   the deadline (or cancellation) cuts is dropped; both are marked skipped. */
static ap_status try_greedy(plan_run *run, ap_strategy strategy)
{
    ap_status st;
    if (!run->p->has_graph ||
        (run->large && ap_pl_now() + ap_pl_greedy_cost_s(run->p) > run->greedy_deadline)) {
        run->skipped |= bit(strategy);
        return AP_OK;
    }
    st = ap_pl_greedy_fixed_until(run->p, strategy, run->fixed, run->work, run->greedy_deadline);
    if (st == AP_OK) {
        offer_work(run, strategy);
    } else if (st == AP_ERR_TIMEOUT) {
        run->skipped |= bit(strategy);
        st = AP_OK;
    }
    return st;
}

/* A search phase needs the graph, a plan to improve, and (exact) its trails within
   the memory limit; else it is marked skipped. */
static int can_search(plan_run *run, ap_strategy strategy)
{
    if (!run->p->has_graph || !run->have_best ||
        (strategy == AP_STRATEGY_EXACT && ap_pl_exact_bytes(run->p) > run->memory_limit)) {
        run->skipped |= bit(strategy);
        return 0;
    }
    return 1;
}

static ap_status run_exact(plan_run *run, double deadline, uint64_t max_steps, size_t capacity,
                           int *infeasible)
{
    ap_pl_search search = phase_search(deadline, max_steps, capacity, 0);
    ap_status st;
    if (infeasible != NULL) {
        *infeasible = 0;
    }
    if (!can_search(run, AP_STRATEGY_EXACT)) {
        return AP_OK;
    }
    st = ap_pl_exact(run->p, run->best, &run->best_arena, &search);
    absorb_search(run, &search, AP_STRATEGY_EXACT);
    if (infeasible != NULL) {
        *infeasible = search.infeasible;
    }
    return st;
}

/*
 * The band phase of bands/: `share` of the time and steps left, at most
 * BANDS_NODES nodes. It either reaches the bound (then the plan is optimal),
 * leaves its descent's plan if that is smaller, or leaves the incumbent alone.
 */
static ap_status run_bands(plan_run *run, double deadline, double share)
{
    double now = ap_pl_now();
    uint64_t steps = phase_steps(run, share);
    ap_pl_search search = phase_search(now + share * (deadline - now),
                                       steps == 0 || steps > BANDS_NODES ? BANDS_NODES : steps,
                                       0, 0);
    ap_status st;
    if (!can_search(run, AP_STRATEGY_BANDS)) {
        return AP_OK;
    }
    st = ap_pl_bands(run->p, run->best, &run->best_arena, &search);
    absorb_search(run, &search, AP_STRATEGY_BANDS);
    return st;
}

/* The exact search on the stacked problem of blocks.c; its plan, if any, is
   offered like any other. */
static ap_status run_merged_exact(plan_run *run, double deadline, uint64_t max_steps,
                                  size_t capacity)
{
    ap_pl_search search = phase_search(deadline, max_steps, capacity, 0);
    int planned = 0;
    ap_status st;
    if (!can_search(run, AP_STRATEGY_EXACT)) {
        return AP_OK;
    }
    st = ap_pl_blocks_exact(run->p, run->work, &planned, &search);
    run->steps += search.steps;
    if (st == AP_OK && planned) {
        offer_work(run, AP_STRATEGY_EXACT);
    }
    return st;
}

static ap_status run_lns(plan_run *run, double deadline, uint64_t max_steps, size_t capacity,
                         uint64_t seed)
{
    ap_pl_search search = phase_search(deadline, max_steps, capacity, seed);
    ap_status st;
    if (!can_search(run, AP_STRATEGY_LNS)) {
        return AP_OK;
    }
    st = ap_pl_lns(run->p, run->best, &run->best_arena, &search);
    absorb_search(run, &search, AP_STRATEGY_LNS);
    return st;
}

static ap_status run_anneal(plan_run *run, double deadline, uint64_t max_steps, size_t capacity,
                            uint64_t seed)
{
    ap_pl_search search;
    ap_status st;
    uint32_t *order, *tmp;
    if (!can_search(run, AP_STRATEGY_ANNEAL)) {
        return AP_OK;
    }
    order = (uint32_t *)ap_pl_alloc(run->p->n, sizeof(uint32_t));
    tmp = (uint32_t *)ap_pl_alloc(run->p->n, sizeof(uint32_t));
    if (order == NULL || tmp == NULL) {
        free(order);
        free(tmp);
        return AP_ERR_OUT_OF_MEMORY;
    }
    /* start from TFLM's order: its first-fit decode is greedy_size's plan */
    ap_pl_order_by_size(run->p, order, tmp);
    search = phase_search(deadline, max_steps, capacity, seed);
    st = ap_pl_anneal(run->p, order, run->best, &run->best_arena, &search);
    absorb_search(run, &search, AP_STRATEGY_ANNEAL);
    free(order);
    free(tmp);
    return st;
}

/* Every greedy heuristic, best kept; stops early when nothing is left to search for. */
static int done(const plan_run *run, size_t capacity);
static ap_status try_greedies(plan_run *run, size_t capacity)
{
    static const ap_strategy greedy[] = {
        AP_STRATEGY_GREEDY_SIZE, AP_STRATEGY_GREEDY_SIZE_BEST_FIT,
        AP_STRATEGY_GREEDY_CONFLICTS, AP_STRATEGY_GREEDY_CONFLICTS_BEST_FIT};
    size_t g;
    ap_status st = AP_OK;
    for (g = 0; g < sizeof(greedy) / sizeof(greedy[0]) && st == AP_OK; ++g) {
        st = try_greedy(run, greedy[g]);
        if (done(run, capacity)) {
            break;
        }
    }
    return st;
}

/* A search phase that cannot get its working memory (the exact search keeps
   trails of O(E) entries) is skipped: the plan in hand stays valid. */
static ap_status soft(ap_status st)
{
    return st == AP_ERR_OUT_OF_MEMORY ? AP_OK : st;
}

/* Nothing left to search for: optimal, within the capacity, or the capacity is
   below the live bytes (then no plan can fit). */
static int done(const plan_run *run, size_t capacity)
{
    return run->best_arena <= run->p->lower_bound || run->proven ||
           (capacity > 0 && (run->best_arena <= capacity || run->p->lower_bound > capacity));
}

/* Graph-free first plan for a search strategy on a large problem, then the graph
   if it fits the memory and the time left (see the head of this file). Leaves
   run->p without a graph when it is skipped; the phases then skip themselves. */
static ap_status large_prelude(plan_run *run, ap_pl_problem *problem, double deadline,
                               ap_error *error)
{
    ap_status st = AP_OK;
    size_t graph = ap_pl_graph_bytes(problem);
    run->large = 1;
    if (ap_pl_sweep_bytes(problem) <= run->memory_limit || graph > run->memory_limit) {
        st = ap_pl_sweep(problem, run->work);
        if (st == AP_ERR_OUT_OF_MEMORY) {
            return ap_pl_fail(error, st, AP_SUBJECT_NONE, -1,
                              "out of memory in the sweep over %zu buffers", problem->n);
        }
        if (st != AP_OK) {
            return st;
        }
        offer_work(run, AP_STRATEGY_SWEEP);
    }
    if (graph > run->memory_limit ||
        ap_pl_now() + ap_pl_graph_cost_s(problem) + ap_pl_greedy_cost_s(problem) > deadline) {
        /* every phase that needs the graph marks itself skipped as it comes */
        return AP_OK;
    }
    st = ap_pl_problem_graph(problem, deadline);
    if (st == AP_ERR_TIMEOUT || st == AP_ERR_OUT_OF_MEMORY) {
        st = AP_OK; /* as above */
    }
    return st;
}

ap_status ap_plan_buffers(const ap_plan_options *options, const ap_buffer *buffers, size_t count,
                          size_t *offsets_out, ap_plan_stats *stats_out, ap_error *error_out)
{
    double t0 = ap_pl_now(), limit, deadline;
    ap_pl_problem problem;
    ap_pl_control control;
    plan_run run;
    ap_status st;
    size_t capacity;
    int infeasible = 0, greedy_only;

    ap_error_clear(error_out);
    st = ap_pl_check_options(options, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (count > 0 && offsets_out == NULL) {
        return ap_pl_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1,
                          "offsets_out is NULL but count is %zu", count);
    }
    /* NaN and non-positive limits mean the default. The searches stop a little
       before the limit (10 %, at most 100 ms) so that copying the result out and the
       caller's own overhead still fit within it. */
    limit = options->time_limit_s > 0 ? options->time_limit_s : DEFAULT_TIME_LIMIT_S;
    deadline = t0 + limit - (0.1 * limit < 0.1 ? 0.1 * limit : 0.1);
    capacity = options->capacity;
    greedy_only = ap_pl_is_greedy(options->strategy);

    memset(&control, 0, sizeof(control));
    control.poll = options->poll;
    control.context = options->poll_context;
    control.t0 = t0;
    control.limit = limit;
    control.now = t0;
    control.next_poll = t0 + AP_PL_POLL_S;
    control.placing = greedy_only;
    control.total = count;
    st = ap_pl_problem_init_lazy(&problem, buffers, count, &control, error_out);
    if (st != AP_OK) {
        return st;
    }

    memset(&run, 0, sizeof(run));
    run.p = &problem;
    run.step_limit = options->step_limit;
    run.memory_limit = options->memory_limit > 0 ? options->memory_limit : DEFAULT_MEMORY_LIMIT;
    run.greedy_deadline = greedy_only ? 1e300 : deadline;
    run.fixed = options->fixed_offsets; /* ap_pl_check_options: only with a greedy strategy */
    run.best = (size_t *)ap_pl_alloc(count, sizeof(size_t));
    run.work = (size_t *)ap_pl_alloc(count, sizeof(size_t));
    run.best_arena = SIZE_MAX;
    if (run.best == NULL || run.work == NULL) {
        st = AP_ERR_OUT_OF_MEMORY;
        goto out;
    }

    if (greedy_only) {
        size_t graph = ap_pl_graph_bytes(&problem);
        if (graph > run.memory_limit) {
            st = ap_pl_fail(error_out, AP_ERR_OUT_OF_MEMORY, AP_SUBJECT_NONE, -1,
                            "the conflict graph of %zu buffers (%zu conflicts) needs %zu bytes; "
                            "the memory limit is %zu",
                            count, problem.edge_count, graph, run.memory_limit);
            if (error_out != NULL) {
                error_out->needed = graph;
                error_out->available = run.memory_limit;
            }
            goto out;
        }
    }
    if (options->strategy == AP_STRATEGY_SWEEP) {
        /* no graph at all */
    } else if (!greedy_only && (ap_pl_graph_bytes(&problem) > run.memory_limit ||
                         ap_pl_graph_cost_s(&problem) + ap_pl_greedy_cost_s(&problem) >
                             LARGE_TIME_SHARE * (deadline - t0))) {
        st = large_prelude(&run, &problem, deadline, error_out);
        if (st != AP_OK) {
            goto out;
        }
    } else {
        st = ap_pl_problem_graph(&problem, greedy_only ? 1e300 : deadline);
        if (st == AP_ERR_TIMEOUT && control.cancelled) {
            st = AP_OK; /* every phase skips itself without a graph; reported below */
        } else if (st == AP_ERR_TIMEOUT) {
            /* the estimate was off: the sweep needs no graph */
            run.large = 1;
            st = ap_pl_sweep(&problem, run.work);
            if (st == AP_OK) {
                offer_work(&run, AP_STRATEGY_SWEEP);
            }
        }
        if (st != AP_OK) {
            if (st == AP_ERR_OUT_OF_MEMORY) {
                ap_pl_fail(error_out, st, AP_SUBJECT_NONE, -1,
                           "out of memory building the conflict graph of %zu buffers "
                           "(%zu bytes)", count, ap_pl_graph_bytes(&problem));
                if (error_out != NULL) {
                    error_out->needed = ap_pl_graph_bytes(&problem);
                }
            }
            goto out;
        }
    }

    if (run.fixed != NULL && problem.has_graph) {
        st = ap_pl_check_fixed(&problem, run.fixed, error_out);
        if (st != AP_OK) {
            goto out;
        }
    }

    switch (options->strategy) {
    case AP_STRATEGY_GREEDY_SIZE:
    case AP_STRATEGY_GREEDY_SIZE_BEST_FIT:
    case AP_STRATEGY_GREEDY_CONFLICTS:
    case AP_STRATEGY_GREEDY_CONFLICTS_BEST_FIT:
        st = try_greedy(&run, options->strategy);
        break;
    case AP_STRATEGY_SWEEP:
        st = ap_pl_sweep(&problem, run.work);
        if (st == AP_OK) {
            offer_work(&run, AP_STRATEGY_SWEEP);
        }
        break;
    case AP_STRATEGY_ANNEAL:
        st = try_greedy(&run, AP_STRATEGY_GREEDY_SIZE);
        if (st == AP_OK && !done(&run, capacity)) {
            st = soft(run_anneal(&run, deadline, phase_steps(&run, 1.0), capacity, options->seed));
        }
        break;
    case AP_STRATEGY_LNS:
        st = try_greedies(&run, capacity);
        if (st == AP_OK && !done(&run, capacity)) {
            st = soft(run_lns(&run, deadline, phase_steps(&run, 1.0), capacity, options->seed));
        }
        break;
    case AP_STRATEGY_BANDS:
        st = try_greedies(&run, capacity);
        if (st == AP_OK && !done(&run, capacity)) {
            st = soft(run_bands(&run, deadline, 1.0));
        }
        break;
    case AP_STRATEGY_EXACT:
    case AP_STRATEGY_AUTO: {
        int is_auto = options->strategy == AP_STRATEGY_AUTO;
        /* the band phase only where it can close the gap: a rectangle to fill */
        int bands_next = is_auto && problem.flat;
        int lns_next = is_auto && problem.nonempty <= AUTO_ANNEAL_MAX_BUFFERS;
        /* the heuristics give the search its incumbent (and often the answer) */
        st = try_greedies(&run, capacity);
        if (st != AP_OK || done(&run, capacity)) {
            break;
        }
        {
            double share = bands_next ? AUTO_FLAT_EXACT_SHARE
                                      : (lns_next ? AUTO_EXACT_SHARE : 1.0);
            double now = ap_pl_now();
            double exact_deadline = now + share * (deadline - now);
            uint64_t exact_steps = phase_steps(&run, share);
            /* half of the exact search's time and steps on the stacked problem first */
            st = soft(run_merged_exact(&run, now + 0.5 * (exact_deadline - now),
                                       exact_steps / 2 + (exact_steps == 1), capacity));
            if (st != AP_OK || done(&run, capacity)) {
                break;
            }
            if (run.step_limit > 0) {
                /* what the stacked problem left of the exact share */
                uint64_t spent = run.steps, cap = run.step_limit;
                uint64_t target = (uint64_t)(share * (double)cap);
                exact_steps = spent < target ? target - spent : 1;
            }
            st = soft(run_exact(&run, exact_deadline, exact_steps, capacity, &infeasible));
            if (!is_auto || st != AP_OK || done(&run, capacity) || infeasible) {
                break;
            }
        }
        if (bands_next) {
            st = soft(run_bands(&run, deadline, lns_next ? AUTO_BANDS_SHARE : 1.0));
            if (st != AP_OK || done(&run, capacity)) {
                break;
            }
        }
        if (!lns_next) {
            break;
        }
        if (capacity == 0) {
            st = soft(run_lns(&run, deadline, phase_steps(&run, 1.0), 0, options->seed));
        } else {
            st = soft(run_anneal(&run, deadline, phase_steps(&run, 1.0), capacity, options->seed));
        }
        break;
    }
    }
    if (st == AP_OK && count > 0 && !run.have_best && !control.cancelled && run.fixed == NULL) {
        /* every pass that needs the graph was cut: the sweep does not (nor does it take
           pre-placed buffers; the greedy strategies that do build their graph whole) */
        st = ap_pl_sweep(&problem, run.work);
        if (st == AP_OK) {
            offer_work(&run, AP_STRATEGY_SWEEP);
        }
    }
    if (control.cancelled || st == AP_ERR_CANCELLED) {
        st = ap_pl_fail(error_out, AP_ERR_CANCELLED, AP_SUBJECT_NONE, -1,
                        "planning %zu buffers cancelled after %.3f s", count, ap_pl_now() - t0);
        goto out;
    }
    if (st != AP_OK) {
        if (st == AP_ERR_OUT_OF_MEMORY) {
            ap_pl_fail(error_out, st, AP_SUBJECT_NONE, -1,
                       "out of memory planning %zu buffers", count);
        }
        goto out;
    }
    if (count > 0 && !run.have_best) {
        /* every strategy starts from a greedy plan; never copy out offsets no phase wrote */
        st = ap_pl_fail(error_out, AP_ERR_INVALID_PLAN, AP_SUBJECT_NONE, -1,
                        "no phase produced a plan for %zu buffers", count);
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
        stats_out->skipped = run.skipped;
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
