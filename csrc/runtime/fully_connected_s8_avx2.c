/* FULLY_CONNECTED int8: AVX2 row kernel (bit-exact with the portable one). */
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"

#if AP_OPS_HAVE_AVX2

#include "fixedpoint.h"
#include "ops_s8_avx2.h"

/* Sum of the 8 lanes of each of a0..a7, as one vector [s0 .. s7]. */
AP_AVX2_INLINE __m256i fc_reduce8(__m256i a0, __m256i a1, __m256i a2, __m256i a3, __m256i a4, __m256i a5,
                                  __m256i a6, __m256i a7)
{
    __m256i h01 = _mm256_hadd_epi32(a0, a1);
    __m256i h23 = _mm256_hadd_epi32(a2, a3);
    __m256i h45 = _mm256_hadd_epi32(a4, a5);
    __m256i h67 = _mm256_hadd_epi32(a6, a7);
    __m256i h0123 = _mm256_hadd_epi32(h01, h23); /* [s0 s1 s2 s3](lo half) | (hi half) */
    __m256i h4567 = _mm256_hadd_epi32(h45, h67);
    __m256i lo = _mm256_permute2x128_si256(h0123, h4567, 0x20);
    __m256i hi = _mm256_permute2x128_si256(h0123, h4567, 0x31);
    return _mm256_add_epi32(lo, hi);
}

/* LiteRT's double requantisation of 4 accumulators (see ap_ops_requant_double): the same
   IEEE product, round half away from zero, saturation at +-2^30. */
AP_AVX2_INLINE __m128i fc_requant_double4(__m128i acc, __m256d scale)
{
    const __m256d sign_mask = _mm256_set1_pd(-0.0);
    const __m256d limit = _mm256_set1_pd(1073741824.0);
    __m256d x = _mm256_mul_pd(_mm256_cvtepi32_pd(acc), scale);
    __m256d ax = _mm256_andnot_pd(sign_mask, x);
    __m256d whole = _mm256_round_pd(ax, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m256d up = _mm256_and_pd(_mm256_cmp_pd(_mm256_sub_pd(ax, whole), _mm256_set1_pd(0.5), _CMP_GE_OQ),
                               _mm256_set1_pd(1.0));
    __m256d r = _mm256_min_pd(_mm256_add_pd(whole, up), limit);
    r = _mm256_or_pd(r, _mm256_and_pd(x, sign_mask));
    return _mm256_cvttpd_epi32(r);
}

/* 8 output rows at a time: the input chunk is widened once and multiplied with the 8
   rows' chunks by vpmaddwd (int8 -> int16 products, exact), then the 8 accumulators
   are reduced into one vector and requantised together. */
AP_AVX2_FUNC void ap_fc_row_avx2(const ap_fc_row *r)
{
    const ap_requant *rq = r->requant;
    const int32_t depth = r->input_depth;
    const size_t dp = (size_t)r->depth_padded;
    const int32_t full = depth / 16 * 16;
    int8_t tail[16];
    memset(tail, 0, sizeof(tail));
    if (full < depth) {
        memcpy(tail, r->input + full, (size_t)(depth - full));
    }
    const __m256i row_term = _mm256_set1_epi32(r->row_term);
    const __m256i out_off = _mm256_set1_epi32(rq->output_offset);
    const __m256i act_min = _mm256_set1_epi32(rq->activation_min);
    const __m256i act_max = _mm256_set1_epi32(rq->activation_max);
    __m256i mult_all = _mm256_setzero_si256(), left_all = mult_all, right_all = mult_all;
    if (r->real_scale == NULL) {
        mult_all = _mm256_set1_epi32(rq->multiplier[0]);
        ap_avx2_split_shift(_mm256_set1_epi32(rq->shift[0]), &left_all, &right_all);
    }
    for (int32_t o0 = 0; o0 < r->output_depth; o0 += 8) {
        const int8_t *block = r->packed + (size_t)(o0 / 8) * 8 * dp;
        __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
        int32_t d = 0;
        for (; d < depth; d += 16, block += 128) {
            const int8_t *xp = d < full ? r->input + d : tail;
            __m256i x = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)xp));
#define FC_ROW(k, acc) \
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x, _mm256_cvtepi8_epi16( \
              _mm_loadu_si128((const __m128i *)(const void *)(block + 16 * (k))))))
            FC_ROW(0, a0);
            FC_ROW(1, a1);
            FC_ROW(2, a2);
            FC_ROW(3, a3);
            FC_ROW(4, a4);
            FC_ROW(5, a5);
            FC_ROW(6, a6);
            FC_ROW(7, a7);
#undef FC_ROW
        }
        __m256i acc = fc_reduce8(a0, a1, a2, a3, a4, a5, a6, a7);
        acc = _mm256_add_epi32(_mm256_add_epi32(acc, row_term),
                               _mm256_loadu_si256((const __m256i *)(const void *)(r->bias + o0)));
        const int32_t n = r->output_depth - o0 < 8 ? r->output_depth - o0 : 8;
        if (r->real_scale != NULL) {
            double sc[8];
            for (int32_t k = 0; k < 8; ++k) {
                sc[k] = r->real_scale[rq->per_channel ? (k < n ? o0 + k : o0) : 0];
            }
            __m128i lo4 = fc_requant_double4(_mm256_castsi256_si128(acc), _mm256_loadu_pd(sc));
            __m128i hi4 = fc_requant_double4(_mm256_extracti128_si256(acc, 1), _mm256_loadu_pd(sc + 4));
            __m256i v = _mm256_add_epi32(_mm256_set_m128i(hi4, lo4), out_off);
            v = _mm256_min_epi32(_mm256_max_epi32(v, act_min), act_max);
            __m128i bytes = ap_avx2_pack8(v);
            int8_t tmp[16];
            _mm_storeu_si128((__m128i *)(void *)tmp, bytes);
            memcpy(r->out + o0, tmp, (size_t)n);
            continue;
        }
        __m256i mult = mult_all, left = left_all, right = right_all;
        if (rq->per_channel) {
            int32_t m8[8] = {0}, s8[8] = {0};
            memcpy(m8, rq->multiplier + o0, (size_t)n * sizeof(int32_t));
            memcpy(s8, rq->shift + o0, (size_t)n * sizeof(int32_t));
            mult = _mm256_loadu_si256((const __m256i *)(const void *)m8);
            ap_avx2_split_shift(_mm256_loadu_si256((const __m256i *)(const void *)s8), &left, &right);
        }
        __m128i bytes = ap_avx2_pack8(ap_avx2_requant(acc, mult, left, right, out_off, act_min, act_max));
        if (n == 8) {
            _mm_storel_epi64((__m128i *)(void *)(r->out + o0), bytes);
        } else {
            int8_t tmp[16];
            _mm_storeu_si128((__m128i *)(void *)tmp, bytes);
            memcpy(r->out + o0, tmp, (size_t)n);
        }
    }
}

#else

void ap_fc_row_avx2(const ap_fc_row *row) { (void)row; }

#endif
