/* SVDF's dot products, AVX2: int8 and int16 operands widened to int16 and multiplied pairwise
   into int32 with vpmaddwd (16 MACs an instruction), eight filters' sums kept in eight
   registers and reduced together. vpmaddwd and vpaddd wrap mod 2^32 (the one pair that
   overflows, -32768 * -32768 twice, gives 2^31 wrapped, as the scalar sum would), so the sums
   equal the portable loops' bit for bit. */
#include "ops_s8_common.h"
#include "svdf_s8_internal.h"

#if AP_OPS_HAVE_AVX2

#include "ops_s8_avx2.h"

/* The sums of each of a0..a7's eight lanes, as lanes 0..7 of one vector. */
AP_AVX2_INLINE __m256i svdf_reduce8(__m256i a0, __m256i a1, __m256i a2, __m256i a3, __m256i a4, __m256i a5,
                                    __m256i a6, __m256i a7)
{
    /* lanes: a0 a1 a2 a3 (low halves' sums) | a0 a1 a2 a3 (high halves'); likewise a4..a7 */
    const __m256i q0 = _mm256_hadd_epi32(_mm256_hadd_epi32(a0, a1), _mm256_hadd_epi32(a2, a3));
    const __m256i q1 = _mm256_hadd_epi32(_mm256_hadd_epi32(a4, a5), _mm256_hadd_epi32(a6, a7));
    return _mm256_add_epi32(_mm256_permute2x128_si256(q0, q1, 0x20), _mm256_permute2x128_si256(q0, q1, 0x31));
}

/* A scalar sum in lane 0 of an otherwise zero vector. */
AP_AVX2_INLINE __m256i svdf_lane0(uint32_t v)
{
    return _mm256_zextsi128_si256(_mm_cvtsi32_si128((int)v));
}

/* Lanes whose sum is row j's feature dot product over one block (zero when j >= count). */
AP_AVX2_INLINE __m256i svdf_feature_row(const int8_t *weights, size_t stride, const int16_t *xz, int32_t block,
                                        int32_t count, int32_t j)
{
    __m256i s = _mm256_setzero_si256();
    if (j >= count) {
        return s;
    }
    const int8_t *w = weights + (size_t)j * stride;
    const int32_t full = block & ~15, half = block & ~7;
    for (int32_t c = 0; c < full; c += 16) {
        const __m256i w16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(w + c)));
        const __m256i x16 = _mm256_loadu_si256((const __m256i *)(const void *)(xz + c));
        s = _mm256_add_epi32(s, _mm256_madd_epi16(w16, x16));
    }
    if (half > full) {
        const __m128i w8 = _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(w + full)));
        const __m128i x8 = _mm_loadu_si128((const __m128i *)(const void *)(xz + full));
        s = _mm256_add_epi32(s, _mm256_zextsi128_si256(_mm_madd_epi16(w8, x8)));
    }
    if (half < block) {
        uint32_t tail = 0;
        for (int32_t c = half; c < block; ++c) {
            tail += (uint32_t)((int32_t)w[c] * (int32_t)xz[c]);
        }
        s = _mm256_add_epi32(s, svdf_lane0(tail));
    }
    return s;
}

/* Lanes whose sum is filter j's time dot product (zero when j >= count). */
AP_AVX2_INLINE __m256i svdf_time_row(const int16_t *weights_time, const int16_t *state, int32_t memory,
                                     int32_t count, int32_t j)
{
    __m256i a = _mm256_setzero_si256();
    if (j >= count) {
        return a;
    }
    const int16_t *w = weights_time + (size_t)j * (size_t)memory;
    const int16_t *s = state + (size_t)j * (size_t)memory;
    const int32_t full = memory & ~15, half = memory & ~7;
    for (int32_t m = 0; m < full; m += 16) {
        a = _mm256_add_epi32(a, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(w + m)),
                                                  _mm256_loadu_si256((const __m256i *)(const void *)(s + m))));
    }
    if (half > full) {
        const __m128i p = _mm_madd_epi16(_mm_loadu_si128((const __m128i *)(const void *)(w + full)),
                                         _mm_loadu_si128((const __m128i *)(const void *)(s + full)));
        a = _mm256_add_epi32(a, _mm256_zextsi128_si256(p));
    }
    if (half < memory) {
        uint32_t tail = 0;
        for (int32_t m = half; m < memory; ++m) {
            tail += (uint32_t)((int32_t)w[m] * (int32_t)s[m]);
        }
        a = _mm256_add_epi32(a, svdf_lane0(tail));
    }
    return a;
}

AP_AVX2_FUNC void ap_svdf_feature_avx2(const int8_t *weights, size_t stride, const int16_t *xz, int32_t block,
                                       int32_t count, int32_t first, uint32_t *acc)
{
#define SVDF_ROW(j) svdf_feature_row(weights, stride, xz, block, count, j)
    const __m256i sums = svdf_reduce8(SVDF_ROW(0), SVDF_ROW(1), SVDF_ROW(2), SVDF_ROW(3), SVDF_ROW(4),
                                      SVDF_ROW(5), SVDF_ROW(6), SVDF_ROW(7));
#undef SVDF_ROW
    if (count == AP_SVDF_CHUNK) {
        const __m256i old =
            first ? _mm256_setzero_si256() : _mm256_loadu_si256((const __m256i *)(const void *)acc);
        _mm256_storeu_si256((__m256i *)(void *)acc, _mm256_add_epi32(old, sums));
        return;
    }
    uint32_t total[AP_SVDF_CHUNK];
    _mm256_storeu_si256((__m256i *)(void *)total, sums);
    for (int32_t j = 0; j < count; ++j) {
        acc[j] = (first ? 0u : acc[j]) + total[j];
    }
}

AP_AVX2_FUNC void ap_svdf_time_avx2(const int16_t *weights_time, const int16_t *state, int32_t memory,
                                    int32_t count, int32_t *out)
{
#define SVDF_ROW(j) svdf_time_row(weights_time, state, memory, count, j)
    const __m256i sums = svdf_reduce8(SVDF_ROW(0), SVDF_ROW(1), SVDF_ROW(2), SVDF_ROW(3), SVDF_ROW(4),
                                      SVDF_ROW(5), SVDF_ROW(6), SVDF_ROW(7));
#undef SVDF_ROW
    if (count == AP_SVDF_CHUNK) {
        _mm256_storeu_si256((__m256i *)(void *)out, sums);
        return;
    }
    int32_t total[AP_SVDF_CHUNK];
    _mm256_storeu_si256((__m256i *)(void *)total, sums);
    for (int32_t j = 0; j < count; ++j) {
        out[j] = total[j];
    }
}

AP_AVX2_FUNC void ap_svdf_requant_avx2(const int32_t *acc, int32_t count, int32_t multiplier, int32_t shift,
                                       int32_t offset, int32_t lo, int32_t hi, int32_t *out)
{
    /* A full chunk is read in one load (its sums were stored by one vector store: forwarded). */
    int32_t in[AP_SVDF_CHUNK] = {0};
    for (int32_t j = 0; j < count && count < AP_SVDF_CHUNK; ++j) {
        in[j] = acc[j];
    }
    const ap_avx2_rq8 q = ap_avx2_rq8_make(_mm256_set1_epi32(multiplier), _mm256_set1_epi32(shift));
    const __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(count == AP_SVDF_CHUNK ? acc : in));
    __m256i r = _mm256_add_epi32(shift > 0 ? ap_avx2_rq8_mbqm(&q, x, 1) : ap_avx2_rq8_mbqm(&q, x, 0),
                                 _mm256_set1_epi32(offset));
    r = _mm256_min_epi32(_mm256_max_epi32(r, _mm256_set1_epi32(lo)), _mm256_set1_epi32(hi));
    _mm256_storeu_si256((__m256i *)(void *)in, r);
    for (int32_t j = 0; j < count; ++j) {
        out[j] = in[j];
    }
}

#endif
