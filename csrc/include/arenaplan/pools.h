/*
 * arenaplan pool assignment: which memory pool each buffer lives in, then its offset.
 *
 * A target has several size-bounded pools (a bounded stack, tightly-coupled RAM,
 * on-chip SRAM, external RAM), listed fastest first. Each buffer may be restricted
 * to some of them (e.g. only small, short-lived scratch may go to the stack pool;
 * model inputs to a pool the user names). The planner puts buffers in the earliest
 * allowed pool and spills to the next where a pool's capacity would be exceeded,
 * then places offsets inside every pool with ap_plan_buffers. Host side: allocates
 * working memory, frees it before returning, never prints or aborts.
 */
#ifndef ARENAPLAN_POOLS_H
#define ARENAPLAN_POOLS_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/planner.h"
#include "arenaplan/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a pool is for (stable values). */
typedef enum ap_pool_kind {
    /** General working memory (SRAM, TCM, external RAM). */
    AP_POOL_WORKSPACE = 0,
    /** The call stack: bounded by the target, lowered by the user, 0 = not used. */
    AP_POOL_STACK = 1,
    /** Read-only memory (flash): holds no planned buffer. */
    AP_POOL_CONST = 2
} ap_pool_kind;

/** Most pools a target may have (a buffer's allowed pools are a 32-bit mask). */
enum { AP_MAX_POOLS = 32 };

/** One memory pool. Pools are given fastest first: that is the order of preference. */
typedef struct ap_pool {
    size_t capacity;     /* bytes available to planned buffers; 0 = unusable */
    size_t alignment;    /* power of two: every offset in this pool is a multiple of it
                            (on top of the buffer's own alignment) */
    ap_pool_kind kind;
} ap_pool;

/**
 * Assign every buffer a pool and an offset in it.
 * options: strategy / time limit / seed / step limit for placing offsets inside each
 *          pool (the step limit applies to each pool's placement; options->capacity is
 *          ignored: each pool's capacity applies; options->fixed_offsets must be NULL).
 * buffers: `count` records as for ap_plan_buffers.
 * allowed: `count` masks, bit p set = the buffer may live in pool p; NULL = every pool
 *          that is not AP_POOL_CONST.
 * pools: `pool_count` (1..AP_MAX_POOLS) pools, fastest first.
 * pool_out, offsets_out: `count` entries each (caller-owned): the pool index and the
 *          offset from that pool's base.
 * pool_bytes_out: `pool_count` entries (caller-owned): bytes used in each pool.
 * Returns AP_OK; AP_ERR_INVALID_ARGUMENT (bad buffers or pools, a buffer with no allowed
 * usable pool: error->index names it); AP_ERR_OVERFLOW; AP_ERR_OUT_OF_MEMORY; or
 * AP_ERR_DOES_NOT_FIT when no assignment fits: error->subject = AP_SUBJECT_POOL,
 * error->index = the pool that overflows, error->needed / available its bytes, error->op
 * the op where that pool's live bytes peak, and a message naming all three.
 */
ap_status ap_plan_pools(const ap_plan_options *options, const ap_buffer *buffers,
                        const uint32_t *allowed, size_t count, const ap_pool *pools,
                        uint32_t pool_count, uint32_t *pool_out, size_t *offsets_out,
                        size_t *pool_bytes_out, ap_error *error_out);

#ifdef __cplusplus
}
#endif
#endif
