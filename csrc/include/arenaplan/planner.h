/*
 * arenaplan buffer planner: offsets for buffers with lifetimes in one arena.
 *
 * A buffer lives from op `first` to op `last` (both inclusive, op indices in
 * schedule order). Two buffers whose lifetimes intersect must not share a byte
 * unless an ap_overlap record allows it. The planner knows buffers and
 * capacities, nothing of models; the schedule (op order) is an input.
 *
 * Host side: these functions allocate working memory with malloc and free it
 * before returning. They never print or abort.
 */
#ifndef ARENAPLAN_PLANNER_H
#define ARENAPLAN_PLANNER_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One buffer to place. */
typedef struct ap_buffer {
    size_t size;       /* bytes; 0 is allowed and occupies nothing */
    size_t alignment;  /* power of two >= 1; the offset is a multiple of it and the
                          size is rounded up to it when placed (as TFLite Micro does) */
    int32_t first;     /* first op that uses it, >= 0 */
    int32_t last;      /* last op that uses it, >= first */
} ap_buffer;

/** How two buffers with intersecting lifetimes may still share bytes. */
typedef enum ap_overlap_kind {
    /** Declared in-place alias: any sharing is allowed. */
    AP_OVERLAP_ALIAS = 0,
    /** `output` may share bytes with `input` when offset(input) >= offset(output) + min_lead
        (a kernel that consumes its input in raster order ahead of its writes). */
    AP_OVERLAP_LEAD = 1
} ap_overlap_kind;

typedef struct ap_overlap {
    uint32_t input;    /* buffer index */
    uint32_t output;   /* buffer index */
    ap_overlap_kind kind;
    size_t min_lead;   /* bytes, used by AP_OVERLAP_LEAD */
} ap_overlap;

/** Placement strategies. Values are stable; names from ap_strategy_str. */
typedef enum ap_strategy {
    /** Run the heuristics, then improve / prove with search; return the best. */
    AP_STRATEGY_AUTO = 0,
    /** TFLite Micro's GreedyMemoryPlanner: largest first (ties: later buffer first), first fit. */
    AP_STRATEGY_GREEDY_SIZE = 1,
    /** Largest first, best fit (the smallest gap that holds the buffer). */
    AP_STRATEGY_GREEDY_SIZE_BEST_FIT = 2,
    /** Most-conflicted first (as TVM's USMP greedy_by_conflicts), first fit. */
    AP_STRATEGY_GREEDY_CONFLICTS = 3,
    /** Most-conflicted first, best fit. */
    AP_STRATEGY_GREEDY_CONFLICTS_BEST_FIT = 4,
    /** Time-bounded improving search over placement orders (deterministic for a seed). */
    AP_STRATEGY_ANNEAL = 5,
    /** Branch and bound over canonical placements; proves optimality or times out. */
    AP_STRATEGY_EXACT = 6,
    /** Large-neighbourhood search from the best heuristic plan: parts of the plan are
        freed and placed again (the top of the arena by the exact search). Also the name
        auto reports when this search improved its plan. */
    AP_STRATEGY_LNS = 7,
    /** Band decomposition after the greedy heuristics, with the whole time budget:
        looks for a plan at exactly the lower bound on a problem whose live bytes are
        the bound at every op (an address x time rectangle cut into buffers), by
        splitting it into bands of constant live bytes. Skipped unless every non-empty
        buffer has the same alignment. Also the name auto reports when this phase
        made its plan (auto runs it only on such problems, after the exact search). */
    AP_STRATEGY_BANDS = 8,
    /** A sweep over ops in order of first op, each buffer first fit into the free
        address ranges left by the buffers that died before it (an interval tree of
        free ranges): O(n log n) time and O(n) memory, no conflict graph. auto's first
        plan on a problem whose conflict graph would take too long or too much memory
        to build; the name auto reports when it returns this plan (then greedy_size's
        figure was not computed: see ap_plan_stats.skipped). */
    AP_STRATEGY_SWEEP = 9
} ap_strategy;

enum { AP_STRATEGY_COUNT = 10 };

/**
 * Polling hook of a long call (ap_plan_options.poll): called from the planning
 * thread about every 20 ms of planning (never more often, never while holding
 * planner locks: there are none). context: ap_plan_options.poll_context.
 * fraction: estimated part of the call done, in [0, 1] (the time spent over the
 * time limit for the search strategies; buffers placed over buffers for the greedy
 * ones). Return 0 to go on, nonzero to cancel: the call then stops within a few
 * milliseconds and returns AP_ERR_CANCELLED, writing no offsets.
 */
typedef int (*ap_plan_poll_fn)(void *context, double fraction);

typedef struct ap_plan_options {
    ap_strategy strategy;
    double time_limit_s;   /* search strategies stop after this; <= 0 means the default (1 s) */
    uint64_t seed;         /* makes randomised search deterministic */
    size_t capacity;       /* 0: minimise the arena; otherwise stop as soon as a plan within
                              `capacity` bytes is found (AP_ERR_DOES_NOT_FIT if none is) */
    uint64_t step_limit;   /* 0: none; otherwise the search strategies also stop after about
                              this many search steps (see ap_plan_stats.search_steps). A
                              search that stops on its steps, not on the clock, returns the
                              same plan for the same input and seed on any machine. */
    /* Fields below were appended; zero-initialised options keep the old behaviour. */
    size_t memory_limit;   /* bytes of working memory a phase may ask for, estimated before
                              it allocates (the conflict graph, the exact search's trails);
                              0: the default, 4 GiB (half the address space on a 32-bit
                              host). A search phase over it is skipped (see
                              ap_plan_stats.skipped); a greedy strategy whose conflict
                              graph is over it fails with AP_ERR_OUT_OF_MEMORY, needed =
                              the bytes it would take, available = the limit. */
    ap_plan_poll_fn poll;  /* NULL: none; else polled during planning (cancel, progress) */
    void *poll_context;    /* passed to poll; not touched by the planner */
    /* Appended. Pre-placed buffers, for the greedy strategies only. NULL: the planner
       places every buffer. Else `count` entries (caller-owned, read during the call):
       SIZE_MAX for a buffer the planner places, else the offset that buffer is
       pre-placed at (a multiple of its alignment), which the plan keeps. The
       pre-placed buffers come first, in index order, and the others go around them
       in the strategy's order, as TensorFlow Lite Micro's GreedyMemoryPlanner places
       offline-planned buffers. A zero-size buffer keeps its offset and occupies
       nothing. Two pre-placed buffers live at a common op that share a byte are
       AP_ERR_INVALID_ARGUMENT naming both (error->index, ->other) and the op
       (error->op); an offset whose buffer's end, plus the bytes of every buffer,
       passes SIZE_MAX is AP_ERR_OVERFLOW; any other strategy, and ap_plan_pools,
       refuse the field with AP_ERR_INVALID_ARGUMENT. */
    const size_t *fixed_offsets;
} ap_plan_options;

typedef struct ap_plan_stats {
    size_t arena_bytes;        /* max over buffers of offset + aligned size */
    size_t lower_bound_bytes;  /* max over ops of the aligned bytes live at that op */
    int32_t optimal;           /* 1 if arena_bytes is proven minimal */
    ap_strategy strategy;      /* the strategy whose placement was returned */
    double elapsed_s;
    uint64_t search_steps;     /* nodes (exact), moves (anneal) or moves and the nodes of
                                  their exact re-solves (lns) examined */
    /* Appended. Bit (1u << s) set for each strategy s that the call would have run
       but skipped or cut short, for lack of time or of memory (estimated before the
       phase starts, or its clock ran out mid-way; a cut phase's partial plan is
       dropped). Bit AP_STRATEGY_GREEDY_SIZE set means TFLite Micro's figure was not
       computed: the arena returned is not it. */
    uint32_t skipped;
} ap_plan_stats;

/** Stable lowercase name of a strategy ("auto", "greedy_size", ...); NULL for an unknown value. */
const char *ap_strategy_str(ap_strategy strategy);

/**
 * Validate buffers: sizes/alignments/lifetimes in range and every aligned size and
 * their sum representable in size_t.
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT or AP_ERR_OVERFLOW (error names the buffer).
 */
ap_status ap_buffers_check(const ap_buffer *buffers, size_t count, ap_error *error_out);

/**
 * Lower bound on any plan: max over ops of the sum of aligned sizes live at that op.
 * buffers: `count` records (may be NULL when count == 0).
 * Returns AP_OK or the statuses of ap_buffers_check.
 */
ap_status ap_buffers_lower_bound(const ap_buffer *buffers, size_t count,
                                 size_t *bytes_out, ap_error *error_out);

/**
 * Aligned bytes live at each op: bytes_out[k] = the sum of the aligned sizes of the
 * buffers with first <= k <= last, for k in [0, op_count). The lower bound is their max.
 * buffers: `count` records (may be NULL when count == 0); every `last` below op_count.
 * bytes_out: caller-owned, op_count entries (may be NULL when op_count == 0).
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT (a buffer outlives op_count, NULL outputs) or the
 * statuses of ap_buffers_check.
 */
ap_status ap_buffers_live_bytes(const ap_buffer *buffers, size_t count, size_t op_count,
                                size_t *bytes_out, ap_error *error_out);

/**
 * Place buffers: writes one offset per buffer into offsets_out (caller-owned,
 * `count` entries). stats_out may be NULL.
 * options->fixed_offsets pre-places buffers (greedy strategies; see ap_plan_options).
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT, AP_ERR_OVERFLOW, AP_ERR_OUT_OF_MEMORY
 * (error->needed = the bytes the phase would have needed when it was refused by
 * options->memory_limit, error->available = that limit), AP_ERR_CANCELLED (the poll
 * hook asked to stop), or AP_ERR_DOES_NOT_FIT when options->capacity > 0 and no plan
 * within it was found (error->needed = best arena found, error->available = capacity).
 * The search strategies (and auto) stop within about 10 % + 50 ms of the time limit,
 * whatever the problem's size: on a problem whose conflict graph would not be built
 * in time or memory they return the sweep plan (AP_STRATEGY_SWEEP).
 */
ap_status ap_plan_buffers(const ap_plan_options *options, const ap_buffer *buffers, size_t count,
                          size_t *offsets_out, ap_plan_stats *stats_out, ap_error *error_out);

/**
 * Independent check of a plan: every offset a multiple of its buffer's alignment,
 * offset + aligned size within `capacity` (0: no limit), and no two buffers with
 * intersecting lifetimes sharing a byte unless an `overlaps` record allows it.
 * Zero-size buffers never conflict. arena_bytes_out (may be NULL) gets the arena extent.
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT (bad buffers or overlap indices),
 * AP_ERR_OVERFLOW or AP_ERR_INVALID_PLAN (error names the buffer(s) and op).
 */
ap_status ap_plan_verify(const ap_buffer *buffers, size_t count, const size_t *offsets,
                         const ap_overlap *overlaps, size_t overlap_count, size_t capacity,
                         size_t *arena_bytes_out, ap_error *error_out);

#ifdef __cplusplus
}
#endif
#endif
