/*
 * Internal int16 gemmlowp fixed point, as TFLite's integer LSTM uses it (PortableApplySigmoid:
 * gemmlowp::logistic on Q3.12; PortableApplyTanh<IntegerBits>: gemmlowp::tanh; both give Q0.15).
 *
 * Values are int16 held in int32_t. gemmlowp's plain int16 add / sub / negate wrap (the C++
 * int16 casts do in practice); here every such wrap is written out with ap_fp16_wrap, so no
 * step depends on implementation-defined conversions. The int32 constants gemmlowp writes in
 * its source are rounded to int16 by RescaleConstantInitializer (RoundingDivideByPOT by 16);
 * the values below are those roundings. Not a public header.
 */
#ifndef ARENAPLAN_FIXEDPOINT_INT16_H
#define ARENAPLAN_FIXEDPOINT_INT16_H

#include <stdint.h>

#include "fixedpoint.h"

#define AP_FP16_MIN (-32768)
#define AP_FP16_MAX 32767

/* Two's complement wrap of an int32 to the int16 range. */
static inline int32_t ap_fp16_wrap(int32_t v)
{
    const uint32_t u = (uint32_t)v & 0xFFFFu;
    return u >= 0x8000u ? (int32_t)u - 65536 : (int32_t)u;
}

static inline int32_t ap_fp16_sat(int32_t v)
{
    return v < AP_FP16_MIN ? AP_FP16_MIN : (v > AP_FP16_MAX ? AP_FP16_MAX : v);
}

/* gemmlowp SaturatingRoundingDoublingHighMul<int16_t>. */
static inline int32_t ap_fp16_mul(int32_t a, int32_t b)
{
    if (a == AP_FP16_MIN && b == AP_FP16_MIN) {
        return AP_FP16_MAX;
    }
    const int32_t ab = a * b; /* |ab| <= 2^30 */
    const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
    return ap_fp16_wrap((ab + nudge) / (1 << 15)); /* C division truncates, as gemmlowp's */
}

/* gemmlowp SaturatingRoundingMultiplyByPOT<exponent> for exponent in [1, 14] on int16. */
static inline int32_t ap_fp16_sat_shl(int32_t x, int exponent)
{
    const int32_t threshold = (1 << (15 - exponent)) - 1;
    if (x > threshold) {
        return AP_FP16_MAX;
    }
    if (x < -threshold) {
        return AP_FP16_MIN;
    }
    return x * (1 << exponent);
}

/* exp(a) for a in [-1/4, 0): Q0.15 in and out (a Taylor expansion around -1/8). */
static inline int32_t ap_fp16_exp_quarter(int32_t a)
{
    const int32_t constant_term = 28918; /* exp(-1/8) */
    const int32_t one_third = 10923;
    const int32_t x = ap_fp16_wrap(a + (1 << 12)); /* a + 1/8 */
    const int32_t x2 = ap_fp16_mul(x, x);
    const int32_t x3 = ap_fp16_mul(x2, x);
    const int32_t x4 = ap_fp16_mul(x2, x2);
    const int32_t x4_over_4 = ap_fp_rounding_divide_by_pot(x4, 2);
    const int32_t poly = ap_fp_rounding_divide_by_pot(
        ap_fp16_wrap(ap_fp16_mul(ap_fp16_wrap(x4_over_4 + x3), one_third) + x2), 1);
    return ap_fp16_sat(constant_term + ap_fp16_mul(constant_term, ap_fp16_wrap(x + poly)));
}

/* gemmlowp exp_on_negative_values<int16_t, integer_bits> for integer_bits in [1, 7]:
   a <= 0 in Q(integer_bits).(15 - integer_bits), result Q0.15. */
static inline int32_t ap_fp16_exp_on_negative_values(int32_t a, int integer_bits)
{
    /* exp(-2^e) for e = -2 .. 4, as int16 Q0.15 */
    static const int32_t multipliers[7] = {25520, 19875, 12055, 4435, 600, 11, 0};
    const int fractional_bits = 15 - integer_bits;
    const int32_t one_quarter = (int32_t)1 << (fractional_bits - 2);
    const int32_t a_mod_quarter_minus_quarter = ap_fp16_wrap((a & (one_quarter - 1)) - one_quarter);
    int32_t result = ap_fp16_exp_quarter(ap_fp16_sat_shl(a_mod_quarter_minus_quarter, integer_bits));
    const int32_t remainder = ap_fp16_wrap(a_mod_quarter_minus_quarter - a);
    for (int e = -2; e <= 4 && e < integer_bits; ++e) {
        if (remainder & ((int32_t)1 << (fractional_bits + e))) {
            result = ap_fp16_mul(result, multipliers[e + 2]);
        }
    }
    if (integer_bits > 5 && a < -((int32_t)1 << (20 - integer_bits))) {
        result = 0; /* below -32: gemmlowp's clamp, its -2^(36 - ib) constant rounded to int16 */
    }
    return a == 0 ? AP_FP16_MAX : result;
}

/* gemmlowp's Newton-Raphson reciprocal shared by 1/(1+x) and (1-x)/(1+x) for x in (0, 1):
   x in Q0.15, result Q2.13 close to 1/(1+x) * 2. */
static inline int32_t ap_fp16_newton_reciprocal(int32_t x)
{
    /* RoundingHalfSum(x, One()): (x + 1) / 2 rounded, in Q0.15 */
    const int32_t sum = x + AP_FP16_MAX;
    const int32_t half_denominator = ap_fp16_wrap((sum + (sum >= 0 ? 1 : -1)) / 2);
    int32_t r = ap_fp16_wrap(23130 + ap_fp16_mul(half_denominator, -15420)); /* 48/17 - 32/17 d */
    for (int i = 0; i < 3; ++i) {
        const int32_t one_minus = ap_fp16_wrap((1 << 13) - ap_fp16_mul(half_denominator, r));
        r = ap_fp16_wrap(r + ap_fp16_sat_shl(ap_fp16_mul(r, one_minus), 2));
    }
    return r;
}

/* TFLite PortableApplySigmoid on one value: gemmlowp logistic, Q3.12 in, Q0.15 out. */
static inline int16_t ap_fp16_sigmoid_q3(int32_t x)
{
    if (x == 0) {
        return (int16_t)(1 << 14);
    }
    const int positive = x > 0;
    const int32_t abs_x = positive ? x : ap_fp16_wrap(-x);
    const int32_t e = ap_fp16_exp_on_negative_values(ap_fp16_wrap(-abs_x), 3);
    const int32_t if_positive = ap_fp16_sat_shl(ap_fp16_newton_reciprocal(e), 1);
    return (int16_t)(positive ? if_positive : ap_fp16_wrap(AP_FP16_MAX - if_positive));
}

/* TFLite PortableApplyTanh<integer_bits> on one value, integer_bits in [0, 6]:
   gemmlowp tanh, Q(integer_bits).(15 - integer_bits) in, Q0.15 out. */
static inline int16_t ap_fp16_tanh(int32_t x, int integer_bits)
{
    if (x == 0) {
        return 0;
    }
    const int negative = x < 0;
    const int32_t n = negative ? x : ap_fp16_wrap(-x);
    const int32_t e = ap_fp16_exp_on_negative_values(n, integer_bits + 1);
    const int32_t t = ap_fp16_sat_shl(ap_fp16_wrap(ap_fp16_newton_reciprocal(e) - (1 << 13)), 2);
    return (int16_t)(negative ? ap_fp16_wrap(-t) : t);
}

#endif
