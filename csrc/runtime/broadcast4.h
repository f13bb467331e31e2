/*
 * Internal helpers of the binary ops with 4-D broadcasting (the int16 elementwise ops, DIV
 * int8 and int32, the float32 binary ops): the shape check, the in-place test and the walk
 * over the output's elements. Not a public header; everything is static inline or a macro.
 */
#ifndef ARENAPLAN_BROADCAST4_H
#define ARENAPLAN_BROADCAST4_H

#include <stddef.h>
#include <stdint.h>

#include "ops_s8_common.h"

/* Each input's dimension is 1 or the output's, and the output's is the larger of the two. */
static inline ap_status ap_bcast4_check(const int32_t *s1, const int32_t *s2, const int32_t *so, const char *op,
                                        ap_error *error)
{
    for (int d = 0; d < 4; ++d) {
        const int32_t a = s1[d], b = s2[d], o = so[d];
        if (a < 1 || b < 1 || o != (a > b ? a : b) || (a != 1 && a != o) || (b != 1 && b != o)) {
            return AP_OPS_INVALID(error, "%s: dimension %d does not broadcast (%d and %d -> %d)", op, d, (int)a,
                                  (int)b, (int)o);
        }
    }
    return AP_OK;
}

/* Whether two 4-D shapes are equal (an input of the output's shape may be overwritten in place). */
static inline int ap_bcast4_same(const int32_t *a, const int32_t *b)
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

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
