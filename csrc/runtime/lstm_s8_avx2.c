/* LSTM gate activations, AVX2: gemmlowp's int16 logistic (Q3.12 in) and tanh (Q(ib) in) on 16
   lanes, Q0.15 out, bit-exact with the scalar functions of fixedpoint_int16.h, which they follow
   step by step. int16 lanes add, subtract and negate with wrap-around exactly as those do. */
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"

#if AP_OPS_HAVE_AVX2

#include "ops_s8_avx2.h"

AP_AVX2_INLINE __m256i fp16_set(int32_t v)
{
    return _mm256_set1_epi16((short)v);
}

/* SaturatingRoundingDoublingHighMul<int16_t>. vpmulhrsw gives floor((a*b + 2^14) / 2^15), which
   equals gemmlowp's sign-dependent nudge with truncating division for every pair except
   -32768 * -32768 (2^15, wrapped to -32768; gemmlowp saturates to 32767). No other pair gives
   -32768 (the most negative product, -32768 * 32767, gives -32767), so those lanes are flipped. */
AP_AVX2_INLINE __m256i fp16_mul(__m256i a, __m256i b)
{
    const __m256i r = _mm256_mulhrs_epi16(a, b);
    return _mm256_xor_si256(r, _mm256_cmpeq_epi16(r, fp16_set(-32768)));
}

/* RoundingDivideByPOT by exponent in [1, 14]. */
AP_AVX2_INLINE __m256i fp16_rdbpot(__m256i x, int exponent)
{
    const __m256i mask = fp16_set((1 << exponent) - 1), one = fp16_set(1);
    const __m128i count = _mm_cvtsi32_si128(exponent);
    const __m256i remainder = _mm256_and_si256(x, mask);
    const __m256i threshold = _mm256_add_epi16(
        _mm256_srai_epi16(mask, 1), _mm256_and_si256(_mm256_cmpgt_epi16(_mm256_setzero_si256(), x), one));
    return _mm256_add_epi16(_mm256_sra_epi16(x, count),
                            _mm256_and_si256(_mm256_cmpgt_epi16(remainder, threshold), one));
}

/* SaturatingRoundingMultiplyByPOT<exponent> for exponent in [1, 14]. */
AP_AVX2_INLINE __m256i fp16_sat_shl(__m256i x, int exponent)
{
    const int32_t threshold = (1 << (15 - exponent)) - 1;
    const __m256i above = _mm256_cmpgt_epi16(x, fp16_set(threshold));
    const __m256i below = _mm256_cmpgt_epi16(fp16_set(-threshold), x);
    __m256i r = _mm256_sll_epi16(x, _mm_cvtsi32_si128(exponent));
    r = _mm256_blendv_epi8(r, fp16_set(32767), above);
    return _mm256_blendv_epi8(r, fp16_set(-32768), below);
}

/* exp on [-1/4, 0), Q0.15 (ap_fp16_exp_quarter). */
AP_AVX2_INLINE __m256i fp16_exp_quarter(__m256i a)
{
    const __m256i constant_term = fp16_set(28918), one_third = fp16_set(10923);
    const __m256i x = _mm256_add_epi16(a, fp16_set(1 << 12));
    const __m256i x2 = fp16_mul(x, x);
    const __m256i x3 = fp16_mul(x2, x);
    const __m256i x4 = fp16_mul(x2, x2);
    const __m256i x4_over_4 = fp16_rdbpot(x4, 2);
    const __m256i poly = fp16_rdbpot(
        _mm256_add_epi16(fp16_mul(_mm256_add_epi16(x4_over_4, x3), one_third), x2), 1);
    return _mm256_adds_epi16(constant_term, fp16_mul(constant_term, _mm256_add_epi16(x, poly)));
}

/* ap_fp16_exp_on_negative_values, integer_bits in [1, 7]. */
AP_AVX2_INLINE __m256i fp16_exp_on_negative_values(__m256i a, int integer_bits)
{
    static const int16_t multipliers[7] = {25520, 19875, 12055, 4435, 600, 11, 0};
    const int fractional_bits = 15 - integer_bits;
    const int32_t one_quarter = (int32_t)1 << (fractional_bits - 2);
    const __m256i a_mod_quarter_minus_quarter =
        _mm256_sub_epi16(_mm256_and_si256(a, fp16_set(one_quarter - 1)), fp16_set(one_quarter));
    __m256i result = fp16_exp_quarter(fp16_sat_shl(a_mod_quarter_minus_quarter, integer_bits));
    const __m256i remainder = _mm256_sub_epi16(a_mod_quarter_minus_quarter, a);
    for (int e = -2; e <= 4 && e < integer_bits; ++e) {
        const __m256i bit = fp16_set((int32_t)1 << (fractional_bits + e));
        const __m256i set = _mm256_cmpeq_epi16(_mm256_and_si256(remainder, bit), bit);
        result = _mm256_blendv_epi8(result, fp16_mul(result, fp16_set(multipliers[e + 2])), set);
    }
    if (integer_bits > 5) {
        const __m256i below = _mm256_cmpgt_epi16(fp16_set(-((int32_t)1 << (20 - integer_bits))), a);
        result = _mm256_andnot_si256(below, result);
    }
    return _mm256_blendv_epi8(result, fp16_set(32767), _mm256_cmpeq_epi16(a, _mm256_setzero_si256()));
}

/* ap_fp16_newton_reciprocal. RoundingHalfSum(x, 32767) is (x >> 1) + 16384 for every x but
   -32768 (where the sum is -1 and the half -1). */
AP_AVX2_INLINE __m256i fp16_newton_reciprocal(__m256i x)
{
    __m256i half_denominator = _mm256_add_epi16(_mm256_srai_epi16(x, 1), fp16_set(16384));
    half_denominator = _mm256_blendv_epi8(half_denominator, fp16_set(-1),
                                          _mm256_cmpeq_epi16(x, fp16_set(-32768)));
    __m256i r = _mm256_add_epi16(fp16_set(23130), fp16_mul(half_denominator, fp16_set(-15420)));
    for (int i = 0; i < 3; ++i) {
        const __m256i one_minus = _mm256_sub_epi16(fp16_set(1 << 13), fp16_mul(half_denominator, r));
        r = _mm256_add_epi16(r, fp16_sat_shl(fp16_mul(r, one_minus), 2));
    }
    return r;
}

AP_AVX2_FUNC void ap_lstm_sigmoid16_avx2(int16_t *values)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)values);
    const __m256i positive = _mm256_cmpgt_epi16(x, zero);
    const __m256i abs_x = _mm256_blendv_epi8(_mm256_sub_epi16(zero, x), x, positive);
    const __m256i e = fp16_exp_on_negative_values(_mm256_sub_epi16(zero, abs_x), 3);
    const __m256i if_positive = fp16_sat_shl(fp16_newton_reciprocal(e), 1);
    __m256i r = _mm256_blendv_epi8(_mm256_sub_epi16(fp16_set(32767), if_positive), if_positive, positive);
    r = _mm256_blendv_epi8(r, fp16_set(1 << 14), _mm256_cmpeq_epi16(x, zero));
    _mm256_storeu_si256((__m256i *)(void *)values, r);
}

AP_AVX2_FUNC void ap_lstm_tanh16_avx2(int16_t *values, int integer_bits)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)values);
    const __m256i negative = _mm256_cmpgt_epi16(zero, x);
    const __m256i n = _mm256_blendv_epi8(_mm256_sub_epi16(zero, x), x, negative);
    const __m256i e = fp16_exp_on_negative_values(n, integer_bits + 1);
    const __m256i t = fp16_sat_shl(_mm256_sub_epi16(fp16_newton_reciprocal(e), fp16_set(1 << 13)), 2);
    __m256i r = _mm256_blendv_epi8(t, _mm256_sub_epi16(zero, t), negative);
    r = _mm256_andnot_si256(_mm256_cmpeq_epi16(x, zero), r);
    _mm256_storeu_si256((__m256i *)(void *)values, r);
}

#endif
