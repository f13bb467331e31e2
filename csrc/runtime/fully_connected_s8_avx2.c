/* FULLY_CONNECTED int8: AVX2 row kernel (bit-exact with the portable one). */
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"

#if AP_OPS_HAVE_AVX2

#include "fixedpoint.h"
#include "ops_s8_avx2.h"

/* LiteRT's double requantisation of 4 accumulators (see ap_ops_requant_double): the same
   IEEE product, rounded half away from zero as trunc(x + copysign(0.49999999999999994, x))
   (the largest double below 0.5: adding it carries into the next integer exactly when the
   fraction is at least one half, for every double). Values are limited to +-1024 first:
   anything beyond clamps to the same int8 after the output offset (|offset| <= 128), as
   the scalar path's +-2^30 does, and the conversion cannot overflow. */
AP_AVX2_INLINE __m128i fc_requant_double4(__m128i acc, __m256d scale)
{
    const __m256d sign_mask = _mm256_set1_pd(-0.0);
    const __m256d below_half = _mm256_set1_pd(0.49999999999999994);
    const __m256d limit = _mm256_set1_pd(1024.0);
    __m256d x = _mm256_mul_pd(_mm256_cvtepi32_pd(acc), scale);
    x = _mm256_add_pd(x, _mm256_or_pd(below_half, _mm256_and_pd(x, sign_mask)));
    x = _mm256_min_pd(_mm256_max_pd(x, _mm256_sub_pd(_mm256_setzero_pd(), limit)), limit);
    return _mm256_cvttpd_epi32(x);
}

/* Outputs whose raw sums are staged on the stack at a time: 1 KiB, within the 2 KiB frame
   bound every kernel keeps (tests/c/test_stack.py). */
enum { FC_ACC_CHUNK = 256 };

/* The 4 input bytes of depth group q (zero past the depth) as one int32. */
AP_AVX2_INLINE int32_t fc_quad(const ap_fc_row *r, const int8_t *tail, int32_t q, int32_t full_groups)
{
    int32_t v;
    memcpy(&v, q < full_groups ? r->input + 4 * q : tail, 4);
    return v;
}

/* Sums of NB blocks of 8 outputs from block blk0, lanes = outputs. Every weight within
   [-127, 127]: vpmaddubsw(|x|, sign(x) * w) is exact (a pair is at most 2 * 128 * 127 =
   32512 < 2^15), then vpmaddwd with ones adds the pairs into int32: 32 multiply-adds in
   4 vector ops, without widening the weights. The 4 bytes of a depth group are broadcast to
   every output's 4 weight bytes ([block][group][8 outputs][4]). */
AP_AVX2_INLINE void fc_sums_signed(const ap_fc_row *r, const int8_t *tail, int32_t blk0, __m256i *acc,
                                   const int NB)
{
    const size_t dq = (size_t)r->depth_padded / 4;
    const int32_t groups = (int32_t)dq, full_groups = r->input_depth / 4;
    const int8_t *w = r->packed + (size_t)blk0 * 8 * (size_t)r->depth_padded;
    const size_t bstride = 8 * (size_t)r->depth_padded;
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    int32_t q = 0;
    if (NB == 1) {
        /* One block (the last layers of classifiers: a few outputs, long depth): two groups
           a step into two accumulators, so the loop is not one long chain. */
        for (; q + 2 <= groups; q += 2, w += 64) {
            const __m256i x0 = _mm256_set1_epi32(fc_quad(r, tail, q, full_groups));
            const __m256i x1 = _mm256_set1_epi32(fc_quad(r, tail, q + 1, full_groups));
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(x0), _mm256_sign_epi8(
                     _mm256_loadu_si256((const __m256i *)(const void *)w), x0)), ones));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(x1), _mm256_sign_epi8(
                     _mm256_loadu_si256((const __m256i *)(const void *)(w + 32)), x1)), ones));
        }
        a0 = _mm256_add_epi32(a0, a1);
        a1 = _mm256_setzero_si256();
    }
    for (; q < groups; ++q, w += 32) {
        const __m256i x = _mm256_set1_epi32(fc_quad(r, tail, q, full_groups));
        const __m256i ax = _mm256_abs_epi8(x);
#define FC_SIGNED(k, a) \
    a = _mm256_add_epi32(a, _mm256_madd_epi16(_mm256_maddubs_epi16(ax, _mm256_sign_epi8( \
            _mm256_loadu_si256((const __m256i *)(const void *)(w + (k) * bstride)), x)), ones))
        FC_SIGNED(0, a0);
        if (NB > 1) FC_SIGNED(1, a1);
        if (NB > 2) FC_SIGNED(2, a2);
        if (NB > 3) FC_SIGNED(3, a3);
#undef FC_SIGNED
    }
    acc[0] = a0;
    if (NB > 1) acc[1] = a1;
    if (NB > 2) acc[2] = a2;
    if (NB > 3) acc[3] = a3;
}

/* The same sums for any weights: each 16 weight bytes (4 outputs x 4 depth) sign-extended
   and multiplied with the group's 4 inputs (as int16, repeated) by vpmaddwd; the two
   half-sums of an output are added at the end (vphaddd). */
AP_AVX2_INLINE void fc_sums_widened(const ap_fc_row *r, const int8_t *tail, int32_t blk0, __m256i *acc,
                                    const int NB)
{
    const int32_t groups = r->depth_padded / 4, full_groups = r->input_depth / 4;
    const int8_t *w = r->packed + (size_t)blk0 * 8 * (size_t)r->depth_padded;
    const size_t bstride = 8 * (size_t)r->depth_padded;
    __m256i l0 = _mm256_setzero_si256(), h0 = l0, l1 = l0, h1 = l0;
    for (int32_t q = 0; q < groups; ++q, w += 32) {
        const __m256i x = _mm256_cvtepi8_epi16(_mm_set1_epi32(fc_quad(r, tail, q, full_groups)));
#define FC_WIDE(k, lo, hi)                                                                                  \
    lo = _mm256_add_epi32(lo, _mm256_madd_epi16(x, _mm256_cvtepi8_epi16(                                    \
             _mm_loadu_si128((const __m128i *)(const void *)(w + (k) * bstride)))));                        \
    hi = _mm256_add_epi32(hi, _mm256_madd_epi16(x, _mm256_cvtepi8_epi16(                                    \
             _mm_loadu_si128((const __m128i *)(const void *)(w + (k) * bstride + 16)))))
        FC_WIDE(0, l0, h0);
        if (NB > 1) {
            FC_WIDE(1, l1, h1);
        }
#undef FC_WIDE
    }
    /* [o0 o1 | o2 o3] halves and [o4 o5 | o6 o7]: hadd gives o0 o1 o4 o5 | o2 o3 o6 o7 */
    acc[0] = _mm256_permute4x64_epi64(_mm256_hadd_epi32(l0, h0), 0xD8);
    if (NB > 1) {
        acc[1] = _mm256_permute4x64_epi64(_mm256_hadd_epi32(l1, h1), 0xD8);
    }
}

/* Raw sums (bias and row term included) of outputs [o0, o0 + n), n <= FC_ACC_CHUNK, o0 a
   multiple of 8, into acc (n rounded up to 8 entries). */
AP_AVX2_INLINE void fc_sums(const ap_fc_row *r, const int8_t *tail, int32_t o0, int32_t n, int32_t *acc)
{
    const __m256i row_term = _mm256_set1_epi32(r->row_term);
    const int32_t blocks = (n + 7) / 8;
    int32_t b = 0;
    while (b < blocks) {
        __m256i s[4];
        int32_t nb;
        if (r->no_min_weight) {
            nb = blocks - b >= 4 ? 4 : blocks - b >= 2 ? 2 : 1;
            if (nb == 4) {
                fc_sums_signed(r, tail, o0 / 8 + b, s, 4);
            } else if (nb == 2) {
                fc_sums_signed(r, tail, o0 / 8 + b, s, 2);
            } else {
                fc_sums_signed(r, tail, o0 / 8 + b, s, 1);
            }
        } else {
            nb = blocks - b >= 2 ? 2 : 1;
            if (nb == 2) {
                fc_sums_widened(r, tail, o0 / 8 + b, s, 2);
            } else {
                fc_sums_widened(r, tail, o0 / 8 + b, s, 1);
            }
        }
        for (int32_t k = 0; k < nb; ++k, ++b) {
            const __m256i bias = _mm256_loadu_si256((const __m256i *)(const void *)(r->bias + o0 + 8 * b));
            _mm256_storeu_si256((__m256i *)(void *)(acc + 8 * b), _mm256_add_epi32(_mm256_add_epi32(s[k], row_term), bias));
        }
    }
}

/* Store the first n (<= 8) bytes of v. */
AP_AVX2_INLINE void fc_store8(int8_t *out, __m128i v, int32_t n)
{
    if (n == 8) {
        _mm_storel_epi64((__m128i *)(void *)out, v);
    } else {
        int8_t tmp[16];
        _mm_storeu_si128((__m128i *)(void *)tmp, v);
        for (int32_t i = 0; i < n; ++i) {
            out[i] = tmp[i];
        }
    }
}

/* Sums first, then requantisation as a separate pass: the reduction and the requantisation
   are long dependency chains, and staged this way they no longer sit between one block's
   multiply-adds and the next (a 128-deep layer ran at half speed because of them). */
AP_AVX2_FUNC void ap_fc_row_avx2(const ap_fc_row *r)
{
    const ap_requant *rq = r->requant;
    const int32_t depth = r->input_depth;
    const int32_t full = depth / 4 * 4;
    int8_t tail[4] = {0, 0, 0, 0};
    int32_t acc[FC_ACC_CHUNK];
    for (int32_t d = full; d < depth; ++d) {
        tail[d - full] = r->input[d];
    }
    const __m256i out_off = _mm256_set1_epi32(rq->output_offset);
    const __m256i act_min = _mm256_set1_epi32(rq->activation_min);
    const __m256i act_max = _mm256_set1_epi32(rq->activation_max);
    for (int32_t c0 = 0; c0 < r->output_depth; c0 += FC_ACC_CHUNK) {
        const int32_t n = r->output_depth - c0 < FC_ACC_CHUNK ? r->output_depth - c0 : FC_ACC_CHUNK;
        fc_sums(r, tail, c0, n, acc);
        if (r->real_scale != NULL) {
            const int pc = rq->per_channel;
            __m256d s_all = _mm256_set1_pd(r->real_scale[0]);
            for (int32_t b = 0; b < n; b += 8) {
                const int32_t m = n - b < 8 ? n - b : 8;
                const __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(acc + b));
                __m256d s_lo = s_all, s_hi = s_all;
                if (pc && m == 8) {
                    s_lo = _mm256_loadu_pd(r->real_scale + c0 + b);
                    s_hi = _mm256_loadu_pd(r->real_scale + c0 + b + 4);
                } else if (pc) {
                    double sc[8];
                    for (int32_t k = 0; k < 8; ++k) {
                        sc[k] = r->real_scale[c0 + b + (k < m ? k : 0)];
                    }
                    s_lo = _mm256_loadu_pd(sc);
                    s_hi = _mm256_loadu_pd(sc + 4);
                }
                __m128i lo4 = fc_requant_double4(_mm256_castsi256_si128(a), s_lo);
                __m128i hi4 = fc_requant_double4(_mm256_extracti128_si256(a, 1), s_hi);
                __m256i v = _mm256_add_epi32(_mm256_set_m128i(hi4, lo4), out_off);
                v = _mm256_min_epi32(_mm256_max_epi32(v, act_min), act_max);
                fc_store8(r->out + c0 + b, ap_avx2_pack8(v), m);
            }
            continue;
        }
        {
            ap_avx2_rq8 q = ap_avx2_rq8_make(_mm256_set1_epi32(rq->multiplier[0]), _mm256_set1_epi32(rq->shift[0]));
            for (int32_t b = 0; b < n; b += 8) {
                const int32_t m = n - b < 8 ? n - b : 8;
                __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(acc + b));
                if (rq->per_channel && m == 8) {
                    q = ap_avx2_rq8_make(_mm256_loadu_si256((const __m256i *)(const void *)(rq->multiplier + c0 + b)),
                                         _mm256_loadu_si256((const __m256i *)(const void *)(rq->shift + c0 + b)));
                } else if (rq->per_channel) {
                    int32_t m8[8] = {0}, s8[8] = {0};
                    for (int32_t k = 0; k < m; ++k) {
                        m8[k] = rq->multiplier[c0 + b + k];
                        s8[k] = rq->shift[c0 + b + k];
                    }
                    q = ap_avx2_rq8_make(_mm256_loadu_si256((const __m256i *)(const void *)m8),
                                         _mm256_loadu_si256((const __m256i *)(const void *)s8));
                }
                v = ap_avx2_rq8_any_left(&q) ? ap_avx2_rq8_mbqm(&q, v, 1) : ap_avx2_rq8_mbqm(&q, v, 0);
                v = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(v, out_off), act_min), act_max);
                fc_store8(r->out + c0 + b, ap_avx2_pack8(v), m);
            }
        }
    }
}

#else

void ap_fc_row_avx2(const ap_fc_row *row) { (void)row; }

#endif
