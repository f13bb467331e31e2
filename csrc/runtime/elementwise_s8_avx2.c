/* ADD and MUL int8: AVX2 rows, 8 elements a step (bit-exact with the portable loops).
   Each returns how many leading elements it wrote; the caller finishes the tail. */
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"

#if AP_OPS_HAVE_AVX2

#include "ops_s8_avx2.h"

/* 8 int8 -> int32 lanes, or one value broadcast when the input's stride is 0. */
AP_AVX2_INLINE __m256i ew_load8(const int8_t *p, int stride, size_t i)
{
    if (stride == 0) {
        return _mm256_set1_epi32(p[0]);
    }
    return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(p + i)));
}

/* TFLite's int8 ADD on 8 lanes: both inputs rescaled to a common scale, summed,
   requantised. Every shift is <= 0 here (run() refuses others), so the expanded-constant
   MultiplyByQuantizedMultiplier needs no left shift. */
AP_AVX2_INLINE __m256i ew_add8(const ap_avx2_rq8 *q1, const ap_avx2_rq8 *q2, const ap_avx2_rq8 *qo,
                               __m256i x1, __m256i x2, __m256i off1, __m256i off2, __m128i ls,
                               __m256i offo, __m256i lo, __m256i hi)
{
    x1 = _mm256_sll_epi32(_mm256_add_epi32(x1, off1), ls);
    x2 = _mm256_sll_epi32(_mm256_add_epi32(x2, off2), ls);
    __m256i s = _mm256_add_epi32(ap_avx2_rq8_mbqm(q1, x1, 0), ap_avx2_rq8_mbqm(q2, x2, 0));
    s = _mm256_add_epi32(ap_avx2_rq8_mbqm(qo, s, 0), offo);
    return _mm256_min_epi32(_mm256_max_epi32(s, lo), hi);
}

AP_AVX2_FUNC size_t ap_add_row_avx2(const ap_add_params *p, const int8_t *a, int stride_a, const int8_t *b,
                                    int stride_b, int8_t *out, size_t n)
{
    const __m256i off1 = _mm256_set1_epi32(p->input1_offset);
    const __m256i off2 = _mm256_set1_epi32(p->input2_offset);
    const __m128i ls = _mm_cvtsi32_si128(p->left_shift);
    const ap_avx2_rq8 q1 = ap_avx2_rq8_make(_mm256_set1_epi32(p->input1_multiplier), _mm256_set1_epi32(p->input1_shift));
    const ap_avx2_rq8 q2 = ap_avx2_rq8_make(_mm256_set1_epi32(p->input2_multiplier), _mm256_set1_epi32(p->input2_shift));
    const ap_avx2_rq8 qo = ap_avx2_rq8_make(_mm256_set1_epi32(p->output_multiplier), _mm256_set1_epi32(p->output_shift));
    const __m256i offo = _mm256_set1_epi32(p->output_offset);
    const __m256i lo = _mm256_set1_epi32(p->activation_min), hi = _mm256_set1_epi32(p->activation_max);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i o0 = ew_add8(&q1, &q2, &qo, ew_load8(a, stride_a, i), ew_load8(b, stride_b, i), off1, off2, ls,
                             offo, lo, hi);
        __m256i o1 = ew_add8(&q1, &q2, &qo, ew_load8(a, stride_a, i + 8), ew_load8(b, stride_b, i + 8), off1,
                             off2, ls, offo, lo, hi);
        _mm_storeu_si128((__m128i *)(void *)(out + i), ap_avx2_pack16(o0, o1));
    }
    for (; i + 8 <= n; i += 8) {
        __m256i o = ew_add8(&q1, &q2, &qo, ew_load8(a, stride_a, i), ew_load8(b, stride_b, i), off1, off2, ls,
                            offo, lo, hi);
        _mm_storel_epi64((__m128i *)(void *)(out + i), ap_avx2_pack8(o));
    }
    return i;
}

AP_AVX2_FUNC size_t ap_mul_row_avx2(const ap_mul_params *p, const int8_t *a, int stride_a, const int8_t *b,
                                    int stride_b, int8_t *out, size_t n)
{
    const __m256i off1 = _mm256_set1_epi32(p->input1_offset);
    const __m256i off2 = _mm256_set1_epi32(p->input2_offset);
    __m256i left, right;
    ap_avx2_split_shift(_mm256_set1_epi32(p->output_shift), &left, &right);
    const __m256i mo = _mm256_set1_epi32(p->output_multiplier);
    const __m256i offo = _mm256_set1_epi32(p->output_offset);
    const __m256i lo = _mm256_set1_epi32(p->activation_min), hi = _mm256_set1_epi32(p->activation_max);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i x1 = _mm256_add_epi32(ew_load8(a, stride_a, i), off1);
        __m256i x2 = _mm256_add_epi32(ew_load8(b, stride_b, i), off2);
        __m256i o = ap_avx2_requant(_mm256_mullo_epi32(x1, x2), mo, left, right, offo, lo, hi);
        _mm_storel_epi64((__m128i *)(void *)(out + i), ap_avx2_pack8(o));
    }
    return i;
}

#else

size_t ap_add_row_avx2(const ap_add_params *p, const int8_t *a, int stride_a, const int8_t *b, int stride_b,
                       int8_t *out, size_t n)
{
    (void)p, (void)a, (void)stride_a, (void)b, (void)stride_b, (void)out, (void)n;
    return 0;
}

size_t ap_mul_row_avx2(const ap_mul_params *p, const int8_t *a, int stride_a, const int8_t *b, int stride_b,
                       int8_t *out, size_t n)
{
    (void)p, (void)a, (void)stride_a, (void)b, (void)stride_b, (void)out, (void)n;
    return 0;
}

#endif
