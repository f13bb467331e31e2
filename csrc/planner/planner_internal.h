/*
 * Internals shared by the planner's strategies (not part of the public API).
 *
 * Every strategy works on one ap_pl_problem: the validated buffers with their
 * sizes rounded up to their alignment, the live-bytes lower bound, and the
 * conflict graph (which buffers are live at a common op) in CSR form. The graph
 * is built once by a sweep over lifetimes and shared by all strategies, so a
 * placement only ever looks at a buffer's own conflicts.
 *
 * Zero-size buffers occupy nothing: they are left out of the graph and every
 * strategy puts them at offset 0.
 */
#ifndef ARENAPLAN_PLANNER_INTERNAL_H
#define ARENAPLAN_PLANNER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/planner.h"
#include "arenaplan/status.h"

/* ---- errors ------------------------------------------------------------ */

/* Fill `error` (may be NULL) and return `status`. printf-style message. */
ap_status ap_pl_fail(ap_error *error, ap_status status, ap_subject subject, int64_t index,
                     const char *format, ...);

/* Check the options every planning entry point takes: non-NULL, a known strategy.
   Returns AP_OK or AP_ERR_INVALID_ARGUMENT (error filled). */
ap_status ap_pl_check_options(const ap_plan_options *options, ap_error *error);

/* ---- checked size arithmetic ------------------------------------------- */

/* *out = a + b; returns 0 on overflow (and leaves *out untouched). */
static inline int ap_pl_add(size_t a, size_t b, size_t *out)
{
    if (a > SIZE_MAX - b) {
        return 0;
    }
    *out = a + b;
    return 1;
}

/* *out = a * b; returns 0 on overflow. */
static inline int ap_pl_mul(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) {
        return 0;
    }
    *out = a * b;
    return 1;
}

/* Round `value` up to `alignment` (a power of two); returns 0 on overflow. */
static inline int ap_pl_align_up(size_t value, size_t alignment, size_t *out)
{
    size_t bumped;
    if (!ap_pl_add(value, alignment - 1, &bumped)) {
        return 0;
    }
    *out = bumped & ~(alignment - 1);
    return 1;
}

/* Unchecked round-up, for values already known to stay below a checked bound
   (see ap_pl_problem.padded_total). */
static inline size_t ap_pl_align_up_fast(size_t value, size_t alignment)
{
    return (value + alignment - 1) & ~(alignment - 1);
}

/* malloc(count * size) with the product checked; NULL on overflow or failure. */
void *ap_pl_alloc(size_t count, size_t size);
/* calloc with the same contract. */
void *ap_pl_zalloc(size_t count, size_t size);

/* ---- deadlines, cancellation and progress ------------------------------------- */

/*
 * One call's polling state, shared by all its phases (and the sub-problems they
 * build). Phases report work with ap_pl_tick (cheap: a counter) and ask
 * ap_pl_expired at their own check points; either reads the clock at most every
 * AP_PL_TICK_WORK units of work and calls the caller's hook at most every
 * AP_PL_POLL_S seconds. Once the hook asks to stop, `cancelled` stays set and every
 * check point answers "expired", so each phase winds down as on its deadline and
 * the dispatcher returns AP_ERR_CANCELLED.
 */
typedef struct ap_pl_control {
    ap_plan_poll_fn poll;   /* NULL: none */
    void *context;
    double t0, limit;       /* progress = (now - t0) / limit, unless `placing` */
    double next_poll;       /* clock value of the next hook call */
    double now;             /* the clock when last read */
    uint64_t work;          /* work since the clock was last read */
    size_t placed, total;   /* greedy strategies: progress = placed / total */
    int placing;
    int cancelled;
} ap_pl_control;

/* Units of ap_pl_tick work (about a nanosecond each) between clock reads, and the
   seconds between hook calls. */
#define AP_PL_TICK_WORK 65536u
#define AP_PL_POLL_S 0.02

/* Read the clock, call the hook if it is due; returns control->cancelled. */
int ap_pl_poll(ap_pl_control *control);

/* Count `work` units; returns nonzero when cancelled (control may be NULL). */
static inline int ap_pl_tick(ap_pl_control *control, uint64_t work)
{
    if (control == NULL) {
        return 0;
    }
    control->work += work;
    if (control->work >= AP_PL_TICK_WORK) {
        return ap_pl_poll(control);
    }
    return control->cancelled;
}

/* ap_pl_tick, then 1 also when the clock, as last read, is past `deadline`. */
static inline int ap_pl_tick_until(ap_pl_control *control, uint64_t work, double deadline)
{
    if (control == NULL) {
        return 0;
    }
    return ap_pl_tick(control, work) || control->now > deadline;
}

/* A phase's check point: 1 when the clock is past `deadline` or the call was
   cancelled (control may be NULL). Reads the clock every time. */
int ap_pl_expired(ap_pl_control *control, double deadline);

/* ---- the problem --------------------------------------------------------- */

typedef struct ap_pl_problem {
    const ap_buffer *buffers;
    size_t n;
    size_t *size;          /* aligned size of each buffer */
    size_t lower_bound;    /* max over ops of the aligned bytes live there */
    size_t total;          /* sum of aligned sizes */
    /* Sum over buffers of (aligned size + alignment - 1). Every offset and end our
       placements produce is below it (each buffer rests on a conflicting buffer's
       end rounded up to its own alignment), so once it is known to fit in size_t
       the placement code can add without checks. */
    size_t padded_total;
    size_t granule;        /* smallest alignment among non-empty buffers (1 if none):
                              every arena is a multiple of it */
    /* conflict graph: neighbours of i are adj[adj_start[i] .. adj_start[i + 1]) */
    size_t *adj_start;     /* n + 1 entries */
    uint32_t *adj;
    size_t edge_count;     /* undirected edges */
    size_t max_degree;
    size_t nonempty;       /* buffers with size > 0 */
    /* 1 when the live bytes equal lower_bound at every op from the first op of a
       non-empty buffer to the last one (a rectangle to fill, where the band phase
       can help); 0 otherwise and when every buffer is empty */
    int flat;
    /* the call's polling state (NULL: none); sub-problems a phase builds share it */
    ap_pl_control *control;
    /* 1 once adj_start / adj hold the conflict graph (ap_pl_problem_graph) */
    int has_graph;
} ap_pl_problem;

/* Validate buffers (the checks of ap_buffers_check plus the padded-total bound),
   and build sizes, lower bound and conflict graph. On error nothing is left allocated. */
ap_status ap_pl_problem_init(ap_pl_problem *problem, const ap_buffer *buffers, size_t count,
                             ap_error *error);
/* The same without the graph: sizes, bounds, and edge_count counted in O(n log n)
   (by binary search over the sorted last ops), so that the graph's cost can be
   judged before it is built. control is stored in the problem. */
ap_status ap_pl_problem_init_lazy(ap_pl_problem *problem, const ap_buffer *buffers, size_t count,
                                  ap_pl_control *control, ap_error *error);
/* Bytes ap_pl_problem_graph allocates (its peak, temporaries included); SIZE_MAX if
   that overflows. */
size_t ap_pl_graph_bytes(const ap_pl_problem *problem);
/* Build the conflict graph of a lazily initialised problem. Stops at `deadline`
   (or on cancellation) with AP_ERR_TIMEOUT, the problem left without a graph;
   AP_ERR_OUT_OF_MEMORY if an allocation fails. */
ap_status ap_pl_problem_graph(ap_pl_problem *problem, double deadline);
void ap_pl_problem_free(ap_pl_problem *problem);

/* Validation shared by ap_buffers_check and ap_pl_problem_init; *total_out gets the
   sum of aligned sizes. */
ap_status ap_pl_check(const ap_buffer *buffers, size_t count, size_t *total_out,
                      ap_error *error);

/* Lower bound by a sweep over lifetimes; buffers already validated. flat_out (may
   be NULL) gets ap_pl_problem.flat of these buffers. */
ap_status ap_pl_lower_bound(const ap_buffer *buffers, size_t count, size_t *bytes_out,
                            int *flat_out);

/* ---- sorting --------------------------------------------------------------- */

typedef struct ap_pl_keyed {
    uint64_t key;
    uint32_t index;
} ap_pl_keyed;

/* Stable sort by ascending key; `tmp` has n entries. */
void ap_pl_sort_keyed(ap_pl_keyed *items, size_t n, ap_pl_keyed *tmp);

/* Stable sort of indices with a "comes before" predicate; `tmp` has n entries. */
typedef int (*ap_pl_before_fn)(const void *context, uint32_t a, uint32_t b);
void ap_pl_sort_indices(uint32_t *items, size_t n, uint32_t *tmp, ap_pl_before_fn before,
                        const void *context);

/* ---- placement ------------------------------------------------------------- */

typedef enum ap_pl_fit {
    AP_PL_FIRST_FIT = 0,  /* lowest offset that fits (TFLite Micro's rule) */
    AP_PL_BEST_FIT = 1    /* smallest gap that fits; above everything if none does */
} ap_pl_fit;

typedef struct ap_pl_span {
    size_t begin;
    size_t end;
} ap_pl_span;

/* Working memory of a placement: reusable across calls. */
typedef struct ap_pl_placer {
    ap_pl_span *spans;     /* max_degree entries */
    uint32_t *rank;        /* n entries: position of each buffer in the order */
} ap_pl_placer;

ap_status ap_pl_placer_init(ap_pl_placer *placer, const ap_pl_problem *problem);
void ap_pl_placer_free(ap_pl_placer *placer);

/*
 * Place order[from .. n) one after another, each against the buffers before it in
 * `order` that conflict with it: gather those, sort them by offset, scan the gaps.
 * order[0 .. from) must already be placed (offsets valid, rank set).
 * Cost: O(sum of degrees * log(max degree)).
 */
void ap_pl_decode(const ap_pl_problem *problem, const uint32_t *order, size_t from,
                  ap_pl_fit fit, ap_pl_placer *placer, size_t *offsets);

/* ap_pl_decode of order[from .. n) (order[0 .. from) already at their offsets; their
   ranks are set here), stopping at the first check point past `deadline` or on
   cancellation (problem->control): returns 1 if every buffer was placed, 0 if it
   stopped (offsets then partial). Updates control->placed. */
int ap_pl_decode_until(const ap_pl_problem *problem, const uint32_t *order, size_t from,
                       ap_pl_fit fit, ap_pl_placer *placer, size_t *offsets, double deadline);

/* max over buffers of offset + aligned size */
size_t ap_pl_arena(const ap_pl_problem *problem, const size_t *offsets);

/* ---- strategies --------------------------------------------------------------- */

/* Orders for the greedy strategies: all n buffers. tmp has n entries. */
void ap_pl_order_by_size(const ap_pl_problem *problem, uint32_t *order, uint32_t *tmp);
void ap_pl_order_by_conflicts(const ap_pl_problem *problem, uint32_t *order, uint32_t *tmp);

/* 1 for the four greedy strategies (one order, one placement pass). */
int ap_pl_is_greedy(ap_strategy strategy);

/* Run one greedy strategy; offsets_out gets n offsets. */
ap_status ap_pl_greedy(const ap_pl_problem *problem, ap_strategy strategy, size_t *offsets_out);
/* The same, stopping at `deadline` or on cancellation: AP_ERR_TIMEOUT then (the
   offsets are partial and must be dropped). */
ap_status ap_pl_greedy_until(const ap_pl_problem *problem, ap_strategy strategy,
                             size_t *offsets_out, double deadline);
/* ap_pl_greedy_until with pre-placed buffers (ap_plan_options.fixed_offsets: n
   entries, SIZE_MAX = placed here; NULL: none), checked by ap_pl_check_fixed: they
   keep their offsets and come first, in index order; the rest follow in the
   strategy's order, each placed around every buffer before it. */
ap_status ap_pl_greedy_fixed_until(const ap_pl_problem *problem, ap_strategy strategy,
                                   const size_t *fixed, size_t *offsets_out, double deadline);
/* Check pre-placed offsets against a problem with its conflict graph: each a multiple
   of its buffer's alignment; its end, plus padded_total, within size_t (so that the
   placements around them add without checks: AP_ERR_OVERFLOW); no two of them that
   conflict (live at a common op) sharing a byte (AP_ERR_INVALID_ARGUMENT naming both,
   error->other the second and error->op the first op they share). */
ap_status ap_pl_check_fixed(const ap_pl_problem *problem, const size_t *fixed, ap_error *error);

/* Estimated seconds of one greedy pass over the conflict graph (gathering and
   sorting every buffer's placed conflicts), from edge_count alone; a fixed rate,
   so that the decision it feeds does not depend on the machine. */
double ap_pl_greedy_cost_s(const ap_pl_problem *problem);
/* Estimated seconds of building the conflict graph, likewise. */
double ap_pl_graph_cost_s(const ap_pl_problem *problem);

/*
 * The sweep heuristic (sweep.c): buffers in order of first op (larger first within
 * an op), each placed first fit among the free address ranges at that op, the
 * ranges of buffers whose last op has passed returned first. Needs no conflict
 * graph: O(n log n) time, O(n) memory. Stops with AP_ERR_CANCELLED on cancellation;
 * on any status but AP_OK offsets_out holds part of a plan (the empty buffers' zeros).
 */
ap_status ap_pl_sweep(const ap_pl_problem *problem, size_t *offsets_out);
/* Bytes ap_pl_sweep allocates. */
size_t ap_pl_sweep_bytes(const ap_pl_problem *problem);
/* Bytes the exact search's working memory takes at most (its trails are O(E)). */
size_t ap_pl_exact_bytes(const ap_pl_problem *problem);

/* A monotonic clock in seconds. */
double ap_pl_now(void);

/* splitmix64: advance *state and return the next of its well-mixed values. */
uint64_t ap_pl_splitmix64(uint64_t *state);

/* Small deterministic PRNG (xoshiro256** seeded by splitmix64); no global state. */
typedef struct ap_pl_rng {
    uint64_t s[4];
} ap_pl_rng;

void ap_pl_rng_seed(ap_pl_rng *rng, uint64_t seed);
uint64_t ap_pl_rng_next(ap_pl_rng *rng);
/* uniform in [0, bound), bound > 0 */
uint32_t ap_pl_rng_below(ap_pl_rng *rng, uint32_t bound);
/* uniform in [0, 1) */
double ap_pl_rng_unit(ap_pl_rng *rng);

/* Shared by the search strategies. */
typedef struct ap_pl_search {
    double deadline;       /* ap_pl_now() value at which to stop */
    uint64_t max_steps;    /* 0: no limit; else stop once this call has taken this many
                              steps (the clock still stops it first if it runs out) */
    size_t capacity;       /* 0: minimise; else stop at the first plan within it */
    uint64_t seed;
    uint64_t steps;        /* out: nodes or moves examined */
    int proven;            /* out: 1 if the returned arena is proven minimal */
    int infeasible;        /* out (capacity mode): 1 if no plan within capacity exists */
    int improved;          /* out: 1 if the search replaced the incumbent */
    /* exact only: NULL, or per buffer the lowest offset it may take (a multiple of
       its alignment, at most the capacity): the top of buffers fixed below it */
    const size_t *base;
} ap_pl_search;

/*
 * Improve `offsets` (an incumbent placement with arena *arena) in place by
 * simulated annealing over placement orders decoded with first fit. `order` is
 * the starting order (n entries, all buffers).
 */
ap_status ap_pl_anneal(const ap_pl_problem *problem, const uint32_t *order, size_t *offsets,
                       size_t *arena, ap_pl_search *search);

/*
 * Branch and bound over canonical placements (after MiniMalloc): improve the
 * incumbent `offsets` / *arena in place, prove optimality, or (capacity mode)
 * decide whether a plan within the capacity exists.
 */
ap_status ap_pl_exact(const ap_pl_problem *problem, size_t *offsets, size_t *arena,
                      ap_pl_search *search);

/*
 * The exact search on a stacked problem (blocks.c): buffers with one lifetime are
 * stacked into a block and equal sizes that abut in time are chained, and the
 * blocks are placed by ap_pl_exact from their greedy_size plan. Skipped when the
 * blocks shrink the problem by less than 10 %, or at search->deadline. When it
 * places the blocks, offsets_out (n entries) gets that plan for the buffers and
 * *planned is set; the caller judges it by the buffers' own arena, which padding
 * of a stack can make larger than the blocks'. Only search->steps is written
 * back: a proof about the blocks is none about the buffers.
 */
ap_status ap_pl_blocks_exact(const ap_pl_problem *problem, size_t *offsets_out, int *planned,
                             ap_pl_search *search);

/*
 * Large neighbourhood search: improve the incumbent `offsets` / *arena in place
 * by freeing the buffers in random windows of ops x addresses and placing them
 * again around the others (see lns.c). Stops at the deadline, the step limit,
 * the bound, or (capacity mode) at the first plan within the capacity.
 */
ap_status ap_pl_lns(const ap_pl_problem *problem, size_t *offsets, size_t *arena,
                    ap_pl_search *search);

/*
 * Band decomposition (bands/bands.c): look for a plan at exactly the lower bound by
 * splitting the problem into bands of constant live bytes, as a cut-up address x
 * time rectangle allows. On success `offsets` / *arena get that plan and
 * search->proven and ->improved are set. Otherwise its descent's plan (bands
 * placed exactly, the rest planned apart) replaces the incumbent if smaller
 * (->improved set, ->proven only at the bound). search->max_steps is the node
 * budget (0: none). Skipped (AP_OK, nothing found) unless every non-empty buffer
 * has the same alignment and the bound is at most 65,536 granules. Its descent
 * runs only on a flat problem (ap_pl_problem.flat), so auto calls it only there.
 */
ap_status ap_pl_bands(const ap_pl_problem *problem, size_t *offsets, size_t *arena,
                      ap_pl_search *search);

#endif
