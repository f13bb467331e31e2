/*
 * SOFTMAX int8 -> int8 | int16, arm-dsp: the portable kernel's gemmlowp arithmetic (softmax_s8.c,
 * fixedpoint_exp.h) with its rounding doubling high multiplies as SMMULR where an operand is
 * known to be small, the row maximum four bytes a step with SSUB8 + SEL, the reciprocal's
 * leading zeros with CLZ and the output's clamp with SSAT.
 *
 * SRDHM(a, b), gemmlowp's rounding doubling high multiply, is floor((a * b + 2^30) / 2^31)
 * (fixedpoint.h). SMMULR(2a, b) is floor((2ab + 2^31) / 2^32), the same value, whenever 2a
 * fits in int32, and so is SMMULR(a, 2b). Inside exp_on_negative_values every operand but the
 * barrel shifter's running result is small whatever the input: the polynomial's argument is
 * a + 1/8 with a in [-1/4, 0) (|x| <= 2^28), its powers smaller still, and the constants
 * 1/3 and exp(-1) .. exp(-16) are below 2^30. So nine of the twelve multiplies of one exp are
 * one SMMULR each (the portable form is an SMLAL, two moves and two shifts); exp(-1/4),
 * exp(-1/2) and exp(-1/8) times values near one keep the general form. The barrel shifter
 * branches on each bit of the remainder instead of selecting, so it multiplies only for the
 * bits that are set. The exp is exact for every int32 input, so the kernel is bit-exact
 * with the portable one for every params the op accepts, not only TFLite's.
 *
 * Both passes produce the same values as the portable kernel's: the exp of a difference is
 * a value in [0, 2^31) (the polynomial's result is positive and at most one, the barrel
 * shifter's constants positive), so the rounding divides by 2^12 (the sum's Q12.19) and by
 * 2^exponent (the output) are those of non-negative values.
 */
#include <stdint.h>

#include "arenaplan/softmax.h"
#include "arm_dsp.h"
#include "fixedpoint.h"
#include "fixedpoint_exp.h"
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"

/* SRDHM(a, c) for a constant 0 <= c < 2^30: SMMULR(a, 2c). */
#define SMD_MUL_SMALL_CONST(a, c) ap_dsp_smmulr((a), (int32_t)(2 * (c)))

/* The row loops are inlined into one copy per combination of cache and output type, so no
   loop tests which. */
#define SMD_INLINE static inline __attribute__((always_inline))

/* exp(a) for a in [-2^29, 0), Q0.31 (gemmlowp's exp_on_interval_between_negative_one_quarter
   _and_0_excl of a Q0.31 value): the Taylor polynomial around -1/8. */
static inline int32_t smd_exp_quarter(int32_t a)
{
    const int32_t constant_term = 1895147668; /* exp(-1/8) */
    const int32_t x = a + ((int32_t)1 << 28); /* [-2^28, 2^28) */
    const int32_t x2 = ap_dsp_smmulr(2 * x, x);        /* [0, 2^25] */
    const int32_t x3 = ap_dsp_smmulr(2 * x2, x);       /* |x3| <= 2^22 + 1 */
    const int32_t x4 = ap_dsp_smmulr(2 * x2, x2);      /* [0, 2^19 + 1] */
    const int32_t x4_over_4 = (x4 + 2) >> 2;           /* rounding divide of a value >= 0 */
    const int32_t t = SMD_MUL_SMALL_CONST(x4_over_4 + x3, 715827883) + x2; /* 1/3 */
    const int32_t poly = (t + 1 + (t >> 31)) >> 1;     /* rounding divide by 2 of any sign */
    return constant_term + ap_dsp_smmulr(constant_term, 2 * (x + poly));   /* |x + poly| < 2^29 */
}

/* gemmlowp's exp_on_negative_values(a, 5) for every int32 a: Q5.26 in, Q0.31 out. */
static inline int32_t smd_exp(int32_t a)
{
    const int32_t a_mod_quarter_minus_one_quarter = (a & 0xffffff) - ((int32_t)1 << 24); /* [-2^24, 0) */
    /* SaturatingRoundingMultiplyByPOT<5> of a value in [-2^24, 0) never saturates */
    int32_t result = smd_exp_quarter(a_mod_quarter_minus_one_quarter * 32);
    const uint32_t remainder = (uint32_t)a_mod_quarter_minus_one_quarter - (uint32_t)a;
    if (remainder & (1u << 24)) {
        result = ap_dsp_srdhm(result, 1672461947); /* exp(-1/4) */
    }
    if (remainder & (1u << 25)) {
        result = ap_dsp_srdhm(result, 1302514674); /* exp(-1/2) */
    }
    if (remainder & (1u << 26)) {
        result = SMD_MUL_SMALL_CONST(result, 790015084); /* exp(-1) */
    }
    if (remainder & (1u << 27)) {
        result = SMD_MUL_SMALL_CONST(result, 290630308); /* exp(-2) */
    }
    if (remainder & (1u << 28)) {
        result = SMD_MUL_SMALL_CONST(result, 39332535); /* exp(-4) */
    }
    if (remainder & (1u << 29)) {
        result = SMD_MUL_SMALL_CONST(result, 720401); /* exp(-8) */
    }
    if (remainder & (1u << 30)) {
        result = SMD_MUL_SMALL_CONST(result, 242); /* exp(-16) */
    }
    return a == 0 ? INT32_MAX : result;
}

/* exp(diff * beta) in Q0.31 for one difference to the row maximum (the portable sm_exp):
   diff << left_shift wraps as TFLite's int32 does; the multiplier is >= 0, so the doubling
   high multiply never saturates. */
static inline int32_t smd_exp_of_diff(int32_t diff, int32_t left_shift, int32_t multiplier)
{
    const int32_t shifted = (int32_t)((uint32_t)diff << left_shift);
    return smd_exp(ap_dsp_srdhm(shifted, multiplier));
}

/* The row maximum: four bytes a step (SSUB8 + SEL), the lanes folded, the rest one by one. */
static inline int32_t smd_row_max(const int8_t *x, size_t depth)
{
    size_t c = 0;
    int32_t best = -128;
    if (depth >= 4) {
        uint32_t m = ap_dsp_load32(x);
        for (c = 4; c + 4 <= depth; c += 4) {
            m = ap_dsp_max8(ap_dsp_load32(x + c), m);
        }
        m = ap_dsp_max8(m, (m >> 16) | (m << 16));
        m = ap_dsp_max8(m, (m >> 8) | (m << 24));
        best = (int8_t)(uint8_t)(m & 0xffu);
    }
    for (; c < depth; ++c) {
        best = x[c] > best ? x[c] : best;
    }
    return best;
}

/* The row's Q12.19 sum of its exps, each rounded by 2^12 (each in [0, 2^31): an unsigned
   add, wrapping as the portable one does); cache, when not NULL, keeps them. */
SMD_INLINE uint32_t smd_sum_of_exps(const int8_t *x, size_t depth, int32_t max_in_row,
                                       const ap_softmax_params *p, int32_t *cache)
{
    const int32_t left = p->input_beta_left_shift, multiplier = p->input_beta_multiplier;
    const int32_t diff_min = p->diff_min;
    uint32_t sum = 0;
    for (size_t c = 0; c < depth; ++c) {
        const int32_t diff = (int32_t)x[c] - max_in_row;
        if (diff >= diff_min) {
            const int32_t e = smd_exp_of_diff(diff, left, multiplier);
            if (cache != NULL) {
                cache[c] = e;
            }
            sum += ((uint32_t)e + 2048u) >> 12;
        }
    }
    return sum;
}

/* TFLite's GetReciprocal (ap_fpx_get_reciprocal) with CLZ for the leading zeros. */
static inline int32_t smd_reciprocal(uint32_t sum, int *num_bits_over_unit)
{
    const int headroom_plus_one = ap_dsp_clz(sum);
    *num_bits_over_unit = 12 - headroom_plus_one;
    /* a sum of 0 (only a wrapped one: the row maximum's exp(0) alone is 2^19) shifts to 0 */
    const uint32_t shifted_sum = headroom_plus_one < 32 ? sum << headroom_plus_one : 0;
    return ap_fpx_one_over_one_plus_x_for_x_in_0_1((int32_t)(shifted_sum - ((uint32_t)1 << 31)));
}

/* One row's outputs for an exponent in [1, 31] (every row whose sum is below 2^28, in int8,
   and every TFLite row in int16): the exps from cache or computed again, out8 or out16 (the
   other NULL). */
SMD_INLINE void smd_output_row(const int8_t *x, size_t depth, int32_t max_in_row, const ap_softmax_params *p,
                                  const int32_t *cache, int32_t shifted_scale, int exponent, int8_t *out8,
                                  int16_t *out16)
{
    const int32_t left = p->input_beta_left_shift, multiplier = p->input_beta_multiplier;
    const int32_t diff_min = p->diff_min;
    const int32_t out_min = out16 != NULL ? INT16_MIN : INT8_MIN;
    for (size_t c = 0; c < depth; ++c) {
        const int32_t diff = (int32_t)x[c] - max_in_row;
        int32_t v = out_min;
        if (diff >= diff_min) {
            const int32_t e = cache != NULL ? cache[c] : smd_exp_of_diff(diff, left, multiplier);
            /* e >= 0 is never INT32_MIN: no saturating case */
            const int32_t prod = ap_dsp_srdhm(shifted_scale, e);
            v = ap_ops_wrap_add(ap_fp_round_srdhm_by_pot(prod, exponent), out_min);
        }
        if (out16 != NULL) {
            out16[c] = (int16_t)ap_dsp_ssat(v, 16);
        } else {
            out8[c] = (int8_t)ap_dsp_ssat(v, 8);
        }
    }
}

/* The same for the other exponents, as the portable kernel: 0 keeps the product, any other
   (a row whose sum passed 2^28) gives 0 before the output's minimum is added. */
static void smd_output_row_any(const int8_t *x, size_t depth, int32_t max_in_row, const ap_softmax_params *p,
                               const int32_t *cache, int32_t shifted_scale, int exponent, int8_t *out8,
                               int16_t *out16)
{
    const int32_t out_min = out16 != NULL ? INT16_MIN : INT8_MIN;
    for (size_t c = 0; c < depth; ++c) {
        const int32_t diff = (int32_t)x[c] - max_in_row;
        int32_t v = out_min;
        if (diff >= p->diff_min) {
            const int32_t e =
                cache != NULL ? cache[c] : smd_exp_of_diff(diff, p->input_beta_left_shift, p->input_beta_multiplier);
            v = ap_ops_wrap_add(exponent == 0 ? ap_dsp_srdhm(shifted_scale, e) : 0, out_min);
        }
        if (out16 != NULL) {
            out16[c] = (int16_t)ap_dsp_ssat(v, 16);
        } else {
            out8[c] = (int8_t)ap_dsp_ssat(v, 8);
        }
    }
}

void ap_softmax_s8_arm_dsp(const ap_softmax_params *p, const int8_t *input, int8_t *out8, int16_t *out16,
                           int32_t *cache)
{
    const size_t depth = (size_t)p->depth;
    const int out_bits = out16 != NULL ? 16 : 8;
    for (int32_t row = 0; row < p->outer_size; ++row) {
        const int8_t *x = input + (size_t)row * depth;
        const size_t at = (size_t)row * depth;
        const int32_t max_in_row = smd_row_max(x, depth);
        const uint32_t sum = cache != NULL ? smd_sum_of_exps(x, depth, max_in_row, p, cache)
                                           : smd_sum_of_exps(x, depth, max_in_row, p, NULL);
        int num_bits_over_unit = 0;
        const int32_t shifted_scale = smd_reciprocal(sum, &num_bits_over_unit);
        /* TFLite: exponent = num_bits_over_unit + 31 - bits of the output type */
        const int exponent = num_bits_over_unit + 31 - out_bits;
        if (exponent < 1 || exponent > 31) {
            smd_output_row_any(x, depth, max_in_row, p, cache, shifted_scale, exponent,
                               out16 != NULL ? NULL : out8 + at, out16 != NULL ? out16 + at : NULL);
        } else if (out16 != NULL && cache != NULL) {
            smd_output_row(x, depth, max_in_row, p, cache, shifted_scale, exponent, NULL, out16 + at);
        } else if (out16 != NULL) {
            smd_output_row(x, depth, max_in_row, p, NULL, shifted_scale, exponent, NULL, out16 + at);
        } else if (cache != NULL) {
            smd_output_row(x, depth, max_in_row, p, cache, shifted_scale, exponent, out8 + at, NULL);
        } else {
            smd_output_row(x, depth, max_in_row, p, NULL, shifted_scale, exponent, out8 + at, NULL);
        }
    }
}
