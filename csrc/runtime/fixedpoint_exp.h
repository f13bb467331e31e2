/*
 * Internal gemmlowp fixed-point helpers that TFLite's reference int8 softmax,
 * LOGISTIC and TANH use: exp on negative values (Q5.26 in, Q0.31 out), 1/(1+x)
 * and (1-x)/(1+x) on [0, 1), the reciprocal with its exponent (TFLite
 * GetReciprocal), and gemmlowp's logistic and tanh of a Q4.27 value. Scalar, int32 raw
 * values; gemmlowp's plain int32 add/sub wrap here (two's complement) instead
 * of overflowing. Not a public header.
 */
#ifndef ARENAPLAN_FIXEDPOINT_EXP_H
#define ARENAPLAN_FIXEDPOINT_EXP_H

#include <stdint.h>

#include "fixedpoint.h"

static inline int32_t ap_fpx_add(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

static inline int32_t ap_fpx_sub(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a - (uint32_t)b);
}

static inline int32_t ap_fpx_mul(int32_t a, int32_t b)
{
    return ap_fp_saturating_rounding_doubling_high_mul(a, b);
}

/* gemmlowp SaturatingRoundingMultiplyByPOT<exponent> for exponent > 0. */
static inline int32_t ap_fpx_sat_shl(int32_t x, int exponent)
{
    const int32_t threshold = (int32_t)(((int64_t)1 << (31 - exponent)) - 1);
    if (x > threshold) {
        return INT32_MAX;
    }
    if (x < -threshold) {
        return INT32_MIN;
    }
    return (int32_t)((uint32_t)x << exponent);
}

/* exp(a) for a in [-1/4, 0), Q0.31 in and out. */
static inline int32_t ap_fpx_exp_on_interval_between_negative_one_quarter_and_0_excl(int32_t a)
{
    const int32_t constant_term = 1895147668;    /* exp(-1/8) */
    const int32_t constant_1_over_3 = 715827883;
    int32_t x = ap_fpx_add(a, (int32_t)1 << 28); /* a + 1/8 */
    int32_t x2 = ap_fpx_mul(x, x);
    int32_t x3 = ap_fpx_mul(x2, x);
    int32_t x4 = ap_fpx_mul(x2, x2);
    int32_t x4_over_4 = ap_fp_rounding_divide_by_pot(x4, 2);
    int32_t poly = ap_fp_rounding_divide_by_pot(
        ap_fpx_add(ap_fpx_mul(ap_fpx_add(x4_over_4, x3), constant_1_over_3), x2), 1);
    return ap_fpx_add(constant_term, ap_fpx_mul(constant_term, ap_fpx_add(x, poly)));
}

/* exp(a) for a <= 0 given in Q(integer_bits).(31-integer_bits); result Q0.31.
   TFLite's softmax uses integer_bits = 5. */
static inline int32_t ap_fpx_exp_on_negative_values(int32_t a, int integer_bits)
{
    const int fractional_bits = 31 - integer_bits;
    const int32_t one_quarter = (int32_t)1 << (fractional_bits - 2);
    const int32_t mask = one_quarter - 1;
    int32_t a_mod_quarter_minus_one_quarter = ap_fpx_sub(a & mask, one_quarter);
    int32_t result = ap_fpx_exp_on_interval_between_negative_one_quarter_and_0_excl(
        integer_bits > 0 ? ap_fpx_sat_shl(a_mod_quarter_minus_one_quarter, integer_bits)
                         : a_mod_quarter_minus_one_quarter);
    int32_t remainder = ap_fpx_sub(a_mod_quarter_minus_one_quarter, a);

    static const int32_t multipliers[7] = {
        1672461947, /* exp(-1/4) */
        1302514674, /* exp(-1/2) */
        790015084,  /* exp(-1) */
        290630308,  /* exp(-2) */
        39332535,   /* exp(-4) */
        720401,     /* exp(-8) */
        242         /* exp(-16) */
    };
    for (int exponent = -2; exponent <= 4; ++exponent) {
        if (integer_bits > exponent) {
            const int shift = fractional_bits + exponent;
            if (remainder & (int32_t)((uint32_t)1 << shift)) {
                result = ap_fpx_mul(result, multipliers[exponent + 2]);
            }
        }
    }
    if (integer_bits > 5) {
        const int32_t clamp = -((int32_t)1 << (36 - integer_bits)); /* -32 */
        if (a < clamp) {
            result = 0;
        }
    }
    if (a == 0) {
        result = INT32_MAX;
    }
    return result;
}

/* gemmlowp RoundingHalfSum for int32. */
static inline int32_t ap_fpx_rounding_half_sum(int32_t a, int32_t b)
{
    int64_t sum = (int64_t)a + (int64_t)b;
    int64_t sign = sum >= 0 ? 1 : -1;
    return (int32_t)((sum + sign) / 2);
}

/* 2 / (1 + a) in Q2.29 for a in [0, 1) in Q0.31: gemmlowp's Newton-Raphson on the half
   denominator, 3 steps (the common part of the two quotients below). */
static inline int32_t ap_fpx_two_over_one_plus_x_q2(int32_t a)
{
    int32_t half_denominator = ap_fpx_rounding_half_sum(a, INT32_MAX);
    const int32_t constant_48_over_17 = 1515870810;   /* Q2.29 */
    const int32_t constant_neg_32_over_17 = -1010580540;
    const int32_t f2_one = (int32_t)1 << 29;
    int32_t x = ap_fpx_add(constant_48_over_17, ap_fpx_mul(half_denominator, constant_neg_32_over_17));
    for (int i = 0; i < 3; ++i) {
        int32_t half_denominator_times_x = ap_fpx_mul(half_denominator, x);
        int32_t one_minus = ap_fpx_sub(f2_one, half_denominator_times_x);
        x = ap_fpx_add(x, ap_fpx_sat_shl(ap_fpx_mul(x, one_minus), 2));
    }
    return x;
}

/* 1 / (1 + a) for a in [0, 1): Q0.31 in and out. */
static inline int32_t ap_fpx_one_over_one_plus_x_for_x_in_0_1(int32_t a)
{
    return ap_fpx_sat_shl(ap_fpx_two_over_one_plus_x_q2(a), 1);
}

static inline int ap_fpx_count_leading_zeros(uint32_t x)
{
    if (x == 0) {
        return 32;
    }
    int n = 0;
    while ((x & 0x80000000u) == 0) {
        x <<= 1;
        ++n;
    }
    return n;
}

/* TFLite GetReciprocal: 1/x for x in Q(x_integer_digits).(31-x_integer_digits),
   as a Q0.31 value scaled by 2^-num_bits_over_unit. x must be > 0. */
static inline int32_t ap_fpx_get_reciprocal(int32_t x, int x_integer_digits, int *num_bits_over_unit)
{
    int headroom_plus_one = ap_fpx_count_leading_zeros((uint32_t)x);
    *num_bits_over_unit = x_integer_digits - headroom_plus_one;
    int32_t shifted_sum_minus_one =
        (int32_t)(((uint32_t)x << headroom_plus_one) - ((uint32_t)1 << 31));
    return ap_fpx_one_over_one_plus_x_for_x_in_0_1(shifted_sum_minus_one);
}

/* (1 - a) / (1 + a) = 2 / (1 + a) - 1 for a in [0, 1): Q0.31 in and out. */
static inline int32_t ap_fpx_one_minus_x_over_one_plus_x_for_x_in_0_1(int32_t a)
{
    return ap_fpx_sat_shl(ap_fpx_sub(ap_fpx_two_over_one_plus_x_q2(a), (int32_t)1 << 29), 2);
}

/* gemmlowp's logistic of a Q4.27 value, Q0.31 out: 1 / (1 + exp(-|a|)) for |a|, mirrored as
   one (INT32_MAX) minus it for a < 0, and exactly one half at 0. Negation wraps. */
static inline int32_t ap_fpx_logistic_q4(int32_t a)
{
    if (a == 0) {
        return (int32_t)1 << 30;
    }
    const int32_t abs_a = a > 0 ? a : ap_fpx_sub(0, a);
    const int32_t positive = ap_fpx_one_over_one_plus_x_for_x_in_0_1(
        ap_fpx_exp_on_negative_values(ap_fpx_sub(0, abs_a), 4));
    return a > 0 ? positive : ap_fpx_sub(INT32_MAX, positive);
}

/* gemmlowp's tanh of a Q4.27 value, Q0.31 out: (1 - exp(-2|a|)) / (1 + exp(-2|a|)) (the exp
   of -|a| read as Q5.26, which is -2|a| in the same raw bits), negated for a < 0, 0 at 0. */
static inline int32_t ap_fpx_tanh_q4(int32_t a)
{
    if (a == 0) {
        return 0;
    }
    const int32_t neg_abs = a < 0 ? a : ap_fpx_sub(0, a);
    const int32_t t = ap_fpx_one_minus_x_over_one_plus_x_for_x_in_0_1(ap_fpx_exp_on_negative_values(neg_abs, 5));
    return a < 0 ? ap_fpx_sub(0, t) : t;
}

#endif
