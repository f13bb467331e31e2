/*
 * Internal AVX2 helpers (include only from *_avx2.c files, inside
 * `#if AP_OPS_HAVE_AVX2`). Every function carries its own target attribute,
 * so the rest of the build needs no -mavx2 and still runs on CPUs without it.
 *
 * The requantisation here is TFLite's MultiplyByQuantizedMultiplier, exact:
 * SaturatingRoundingDoublingHighMul(a, b) == floor((a*b + 2^30) / 2^31) for
 * every (a, b) except a == b == INT32_MIN (saturates), which covers gemmlowp's
 * sign-dependent nudge plus truncating division in one formula; the 64-bit
 * products come from _mm256_mul_epi32 on even and odd lanes.
 */
#ifndef ARENAPLAN_OPS_S8_AVX2_H
#define ARENAPLAN_OPS_S8_AVX2_H

#include <immintrin.h>
#include <stdint.h>

#define AP_AVX2_INLINE static inline __attribute__((target("avx2,fma"), always_inline))
#define AP_AVX2_FUNC __attribute__((target("avx2,fma")))

/* SaturatingRoundingDoublingHighMul on 8 lanes. */
AP_AVX2_INLINE __m256i ap_avx2_srdhm(__m256i a, __m256i b)
{
    const __m256i nudge = _mm256_set1_epi64x((long long)1 << 30);
    __m256i even = _mm256_add_epi64(_mm256_mul_epi32(a, b), nudge);
    __m256i odd = _mm256_add_epi64(
        _mm256_mul_epi32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)), nudge);
    /* bits 31..62 of each 64-bit sum: low half for even lanes, high half for odd. */
    even = _mm256_srli_epi64(even, 31);
    odd = _mm256_slli_epi64(odd, 1);
    __m256i r = _mm256_blend_epi32(even, odd, 0xAA);
    const __m256i min32 = _mm256_set1_epi32(INT32_MIN);
    __m256i sat = _mm256_and_si256(_mm256_cmpeq_epi32(a, min32), _mm256_cmpeq_epi32(b, min32));
    return _mm256_blendv_epi8(r, _mm256_set1_epi32(INT32_MAX), sat);
}

/* SaturatingRoundingDoublingHighMul for b >= 0 (every validated requant multiplier):
   a == b == INT32_MIN cannot happen, so no saturation select is needed. */
AP_AVX2_INLINE __m256i ap_avx2_srdhm_nonneg(__m256i a, __m256i b)
{
    const __m256i nudge = _mm256_set1_epi64x((long long)1 << 30);
    __m256i even = _mm256_add_epi64(_mm256_mul_epi32(a, b), nudge);
    __m256i odd = _mm256_add_epi64(
        _mm256_mul_epi32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)), nudge);
    return _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA);
}

/* RoundingDivideByPOT on 8 lanes, per-lane exponent in [0, 31]. */
AP_AVX2_INLINE __m256i ap_avx2_rdbpot(__m256i x, __m256i exponent)
{
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i zero = _mm256_setzero_si256();
    __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, exponent), one);
    __m256i remainder = _mm256_and_si256(x, mask);
    __m256i threshold = _mm256_add_epi32(_mm256_srai_epi32(mask, 1),
                                         _mm256_and_si256(_mm256_cmpgt_epi32(zero, x), one));
    return _mm256_add_epi32(_mm256_srav_epi32(x, exponent),
                            _mm256_and_si256(_mm256_cmpgt_epi32(remainder, threshold), one));
}

/* MultiplyByQuantizedMultiplier with left = max(shift, 0), right = max(-shift, 0);
   multiplier >= 0 (checked by every op before it gets here). */
AP_AVX2_INLINE __m256i ap_avx2_mbqm(__m256i x, __m256i multiplier, __m256i left, __m256i right)
{
    return ap_avx2_rdbpot(ap_avx2_srdhm_nonneg(_mm256_sllv_epi32(x, left), multiplier), right);
}

/* Per-lane left/right shift amounts from TFLite shifts. */
AP_AVX2_INLINE void ap_avx2_split_shift(__m256i shift, __m256i *left, __m256i *right)
{
    const __m256i zero = _mm256_setzero_si256();
    *left = _mm256_max_epi32(shift, zero);
    *right = _mm256_max_epi32(_mm256_sub_epi32(zero, shift), zero);
}

/* 8 int32 lanes (already within [-128, 127]) -> 8 int8 bytes in the low 64 bits. */
AP_AVX2_INLINE __m128i ap_avx2_pack8(__m256i v)
{
    __m256i p16 = _mm256_packs_epi32(v, v);
    __m256i p8 = _mm256_packs_epi16(p16, p16);
    return _mm_unpacklo_epi32(_mm256_castsi256_si128(p8), _mm256_extracti128_si256(p8, 1));
}

/* 16 int32 (two vectors, channels 0-7 and 8-15, within [-128, 127]) -> 16 int8. */
AP_AVX2_INLINE __m128i ap_avx2_pack16(__m256i lo, __m256i hi)
{
    __m256i p16 = _mm256_packs_epi32(lo, hi);          /* lo0-3 hi0-3 | lo4-7 hi4-7 */
    p16 = _mm256_permute4x64_epi64(p16, 0xD8);         /* lo0-3 lo4-7 | hi0-3 hi4-7 */
    __m256i p8 = _mm256_packs_epi16(p16, p16);
    p8 = _mm256_permute4x64_epi64(p8, 0x08);
    return _mm256_castsi256_si128(p8);
}

/* Requantise 8 accumulators: mbqm, + offset, clamp. */
AP_AVX2_INLINE __m256i ap_avx2_requant(__m256i acc, __m256i multiplier, __m256i left, __m256i right,
                                       __m256i offset, __m256i act_min, __m256i act_max)
{
    __m256i r = _mm256_add_epi32(ap_avx2_mbqm(acc, multiplier, left, right), offset);
    return _mm256_min_epi32(_mm256_max_epi32(r, act_min), act_max);
}

/* MultiplyByQuantizedMultiplier constants of 8 lanes, expanded once and reused for many
   accumulators (about 13 vector ops per 8 lanes instead of 22 when derived every time). */
typedef struct ap_avx2_rq8 {
    __m256i mult;       /* multiplier (>= 0) */
    __m256i mult_odd;   /* multiplier of lane 2i + 1 in lane 2i (what vpmuldq reads) */
    __m256i left;       /* max(shift, 0) */
    __m256i right;      /* max(-shift, 0) */
    __m256i mask;       /* (1 << right) - 1 */
    __m256i half;       /* mask >> 1 */
} ap_avx2_rq8;

AP_AVX2_INLINE ap_avx2_rq8 ap_avx2_rq8_make(__m256i multiplier, __m256i shift)
{
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    ap_avx2_rq8 q;
    q.mult = multiplier;
    q.mult_odd = _mm256_srli_epi64(multiplier, 32);
    q.left = _mm256_max_epi32(shift, zero);
    q.right = _mm256_max_epi32(_mm256_sub_epi32(zero, shift), zero);
    q.mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, q.right), one);
    q.half = _mm256_srli_epi32(q.mask, 1);
    return q;
}

/* MultiplyByQuantizedMultiplier(x) with expanded constants, exact (see the top of this file).
   `left` is a compile-time flag: 0 when no lane shifts left (saves a vpsllvd). */
AP_AVX2_INLINE __m256i ap_avx2_rq8_mbqm(const ap_avx2_rq8 *q, __m256i x, const int left)
{
    const __m256i nudge = _mm256_set1_epi64x((long long)1 << 30);
    __m256i even, odd, y, r, threshold;
    if (left) {
        x = _mm256_sllv_epi32(x, q->left);
    }
    even = _mm256_add_epi64(_mm256_mul_epi32(x, q->mult), nudge);
    odd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), q->mult_odd), nudge);
    y = _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA);
    /* RoundingDivideByPOT: + 1 where the remainder exceeds half (half + 1 when y < 0). */
    threshold = _mm256_sub_epi32(q->half, _mm256_srai_epi32(y, 31));
    r = _mm256_srav_epi32(y, q->right);
    return _mm256_sub_epi32(r, _mm256_cmpgt_epi32(_mm256_and_si256(y, q->mask), threshold));
}

/* Does any lane of an expanded constant set shift left? */
AP_AVX2_INLINE int ap_avx2_rq8_any_left(const ap_avx2_rq8 *q)
{
    return _mm256_movemask_epi8(_mm256_cmpgt_epi32(q->left, _mm256_setzero_si256())) != 0;
}

#endif
