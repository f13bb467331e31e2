/*
 * Internal helpers of the binary ops with 4-D broadcasting (the int16 elementwise ops, DIV
 * int8 and int32, the float32 binary ops): the shape check, the one "direct" variant, the
 * run's call check, the in-place test and the walk over the output's elements. Not a public
 * header. The checks run once a call and live in broadcast4.c, one copy in an image; the walk
 * is a macro.
 */
#ifndef ARENAPLAN_BROADCAST4_H
#define ARENAPLAN_BROADCAST4_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/ops.h"

#include "ops_s8_common.h"

/* Whether each input's dimension is 1 or the output's and the output's the larger of the two:
   AP_OK, else AP_ERR_INVALID_ARGUMENT naming op and the dimension. */
ap_status ap_bcast4_check(const int32_t *s1, const int32_t *s2, const int32_t *so, const char *op, ap_error *error);

/* Whether two 4-D shapes are equal (an input of the output's shape may be overwritten in place). */
static inline int ap_bcast4_same(const int32_t *a, const int32_t *b)
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

/* The one variant of a binary op whose shapes are checked: "direct", kind 0, no scratch, `macs`
   per run, written through ap_ops_variants_out. Each output element reads the inputs' elements
   at its own index (or broadcast ones, read before any write of that row's later elements): in
   place is safe over an input of the output's shape. */
ap_status ap_bcast4_direct_variant(const int32_t *s1, const int32_t *s2, const int32_t *so, uint64_t macs, ap_isa isa,
                                   ap_variant *variants_out, uint32_t capacity, uint32_t *count_out, const char *op,
                                   ap_error *error);

/* The checks of a binary op's run() after its params' own: the variant pointer, the variant
   being the row's direct one (kind 0) for isa, two inputs and the output (call itself not
   NULL). AP_OK or AP_ERR_INVALID_ARGUMENT. */
ap_status ap_bcast4_check_call(const ap_op_call *call, ap_isa isa, const char *op, ap_error *error);

/* Runs the statements given last once per element of the 4-D output shape `o`, in order, with
   `at` the element's output index and `ia`, `ib` the indices of the elements of the inputs of
   shapes `s1` and `s2` it reads (stride 0 along a broadcast dimension, ap_ops_broadcast_strides).
   A macro so that every op's element code sits inside the walk with no call per element (C99 has
   no inlined callback); `o`, `s1` and `s2` must be expressions without side effects. */
#define AP_BCAST4_FOR_EACH(o, s1, s2, ia, ib, at, ...)                                                     \
    do {                                                                                                     \
        size_t bc4_sa_[4], bc4_sb_[4], at = 0;                                                               \
        ap_ops_broadcast_strides((s1), bc4_sa_);                                                             \
        ap_ops_broadcast_strides((s2), bc4_sb_);                                                             \
        for (size_t bc4_d0_ = 0; bc4_d0_ < (size_t)(o)[0]; ++bc4_d0_) {                                      \
            for (size_t bc4_d1_ = 0; bc4_d1_ < (size_t)(o)[1]; ++bc4_d1_) {                                  \
                for (size_t bc4_d2_ = 0; bc4_d2_ < (size_t)(o)[2]; ++bc4_d2_) {                              \
                    const size_t bc4_ra_ = bc4_d0_ * bc4_sa_[0] + bc4_d1_ * bc4_sa_[1] + bc4_d2_ * bc4_sa_[2]; \
                    const size_t bc4_rb_ = bc4_d0_ * bc4_sb_[0] + bc4_d1_ * bc4_sb_[1] + bc4_d2_ * bc4_sb_[2]; \
                    for (size_t bc4_d3_ = 0; bc4_d3_ < (size_t)(o)[3]; ++bc4_d3_, ++at) {                    \
                        const size_t ia = bc4_ra_ + bc4_d3_ * bc4_sa_[3], ib = bc4_rb_ + bc4_d3_ * bc4_sb_[3]; \
                        __VA_ARGS__                                                                          \
                    }                                                                                        \
                }                                                                                            \
            }                                                                                                \
        }                                                                                                    \
    } while (0)

#endif
