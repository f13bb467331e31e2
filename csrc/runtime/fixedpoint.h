/*
 * Internal fixed-point primitives (gemmlowp / TFLite reference semantics),
 * inline so kernels' hot loops can use them. Not a public header.
 */
#ifndef ARENAPLAN_FIXEDPOINT_H
#define ARENAPLAN_FIXEDPOINT_H

#include <stdint.h>

/* gemmlowp's rounding doubling high multiply for every (a, b) but (INT32_MIN, INT32_MIN), the
   one product that overflows: (ab + nudge) / 2^31 truncated toward zero, nudge 2^30 for ab >= 0
   and 1 - 2^30 below. For ab < 0 the sum is negative and truncating it is flooring it plus
   2^31 - 1, so both cases are floor((ab + 2^30) / 2^31): one multiply-accumulate and an
   arithmetic shift (a branch-free handful of instructions on a Cortex-M, not a 64-bit
   division). Arithmetic right shift of a negative value: implementation-defined in C99,
   arithmetic on every compiler this builds with, as below. */
static inline int32_t ap_fp_rounding_doubling_high_mul(int32_t a, int32_t b)
{
    return (int32_t)(((int64_t)a * (int64_t)b + ((int64_t)1 << 30)) >> 31);
}

static inline int32_t ap_fp_saturating_rounding_doubling_high_mul(int32_t a, int32_t b)
{
    if (a == INT32_MIN && b == INT32_MIN) {
        return INT32_MAX;
    }
    return ap_fp_rounding_doubling_high_mul(a, b);
}

static inline int32_t ap_fp_rounding_divide_by_pot(int32_t x, int32_t exponent)
{
    /* exponent in [0, 31] (the callers' shifts are checked): a 32-bit mask, no 64-bit shift */
    int32_t mask = (int32_t)((1u << exponent) - 1u);
    int32_t remainder = x & mask;
    int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    /* Arithmetic shift of a negative value: implementation-defined in C99 but
       arithmetic on every compiler this builds with, as TFLite assumes. */
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* Round half away from zero of h / 2^e for e in [1, 31] and h > INT32_MIN (every SRDHM result:
   |a * b| <= 2^31 * (2^31 - 1) keeps it >= INT32_MIN + 1), equal to ap_fp_rounding_divide_by_pot.
   That rule is floor((h + 2^(e-1)) / 2^e) for h >= 0 and floor((h + 2^(e-1) - 1) / 2^e) below
   (remainder > threshold, case by case); with t = h - [h < 0] (no overflow, h > INT32_MIN) and
   y = t >> (e - 1) (floor of floors), it is floor((y + 1) / 2) = (y >> 1) + (y & 1), which
   cannot overflow either. Five instructions on a Cortex-M against about twelve for the mask,
   remainder and threshold. */
static inline int32_t ap_fp_round_srdhm_by_pot(int32_t h, int32_t e)
{
    const int32_t y = (h + (h >> 31)) >> (e - 1);
    return (y >> 1) + (y & 1);
}

static inline int32_t ap_fp_multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int32_t shift)
{
    int32_t left = shift > 0 ? shift : 0;
    int32_t right = left - shift;
    /* TFLite computes x * (1 << left) in int32; wrap instead of overflowing. */
    int32_t shifted = (int32_t)((uint32_t)x << left);
    int32_t h = ap_fp_saturating_rounding_doubling_high_mul(shifted, multiplier);
    return right == 0 ? h : ap_fp_round_srdhm_by_pot(h, right);
}

/* The same for a multiplier >= 0 (every requantisation the kernels validate: QuantizeMultiplier
   gives [2^30, 2^31) or 0), which is never INT32_MIN, so the doubling high multiply needs no
   saturating case: one SMLAL and two shifts on a Cortex-M. */
static inline int32_t ap_fp_multiply_by_nonneg_multiplier(int32_t x, int32_t multiplier, int32_t shift)
{
    int32_t left = shift > 0 ? shift : 0;
    int32_t right = left - shift;
    int32_t shifted = (int32_t)((uint32_t)x << left);
    int32_t h = ap_fp_rounding_doubling_high_mul(shifted, multiplier);
    return right == 0 ? h : ap_fp_round_srdhm_by_pot(h, right);
}

#endif
