/* DEPTHWISE_CONV_2D int8: AVX2 inner loops (bit-exact with the portable C ones). */
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"

#if AP_OPS_HAVE_AVX2

#include "fixedpoint.h"
#include "ops_s8_avx2.h"

typedef struct dw_rq8 {
    __m256i multiplier, left, right;
} dw_rq8;

AP_AVX2_INLINE void dw_load_rq8(const ap_requant *rq, int32_t c, dw_rq8 *out)
{
    __m256i shift;
    if (rq->per_channel) {
        out->multiplier = _mm256_loadu_si256((const __m256i *)(const void *)(rq->multiplier + c));
        shift = _mm256_loadu_si256((const __m256i *)(const void *)(rq->shift + c));
    } else {
        out->multiplier = _mm256_set1_epi32(rq->multiplier[0]);
        shift = _mm256_set1_epi32(rq->shift[0]);
    }
    ap_avx2_split_shift(shift, &out->left, &out->right);
}

static inline int8_t dw_requant1(int32_t acc, const ap_requant *rq, int32_t c)
{
    int32_t i = rq->per_channel ? c : 0;
    int32_t v = ap_fp_multiply_by_quantized_multiplier(acc, rq->multiplier[i], rq->shift[i]) + rq->output_offset;
    return (int8_t)ap_ops_clamp(v, rq->activation_min, rq->activation_max);
}

/* Tap pairs (2p, 2p+1) interleaved byte-wise: the int16 lanes then line up with the
   [pair][channel][2] weights, so one vpmaddwd does two taps of 8 channels. */
AP_AVX2_FUNC void ap_dw_padded_row_avx2(const ap_dw_row *row)
{
    const int32_t oc = row->channels;
    const ap_requant *rq = row->requant;
    const __m256i out_off = _mm256_set1_epi32(rq->output_offset);
    const __m256i act_min = _mm256_set1_epi32(rq->activation_min);
    const __m256i act_max = _mm256_set1_epi32(rq->activation_max);
    const int32_t *off = row->tap_offset;
    for (int32_t ox = 0; ox < row->output_w; ++ox) {
        const int8_t *px = row->base + (size_t)ox * (size_t)row->pixel_step;
        int8_t *out = row->out + (size_t)ox * (size_t)oc;
        int32_t c = 0;
        for (; c + 16 <= oc; c += 16) {
            __m256i acc0 = _mm256_loadu_si256((const __m256i *)(const void *)(row->bias + c));
            __m256i acc1 = _mm256_loadu_si256((const __m256i *)(const void *)(row->bias + c + 8));
            const int16_t *w = row->w16p + (size_t)c * 2;
            const size_t wstep = (size_t)oc * 2;
            for (int32_t p = 0; p < row->pairs; ++p, w += wstep) {
                __m128i xa = _mm_loadu_si128((const __m128i *)(const void *)(px + off[2 * p] + c));
                __m128i xb = _mm_loadu_si128((const __m128i *)(const void *)(px + off[2 * p + 1] + c));
                __m256i lo = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(xa, xb));
                __m256i hi = _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(xa, xb));
                acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(lo, _mm256_loadu_si256((const __m256i *)(const void *)w)));
                acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(hi, _mm256_loadu_si256((const __m256i *)(const void *)(w + 16))));
            }
            dw_rq8 q0, q1;
            dw_load_rq8(rq, c, &q0);
            dw_load_rq8(rq, c + 8, &q1);
            acc0 = ap_avx2_requant(acc0, q0.multiplier, q0.left, q0.right, out_off, act_min, act_max);
            acc1 = ap_avx2_requant(acc1, q1.multiplier, q1.left, q1.right, out_off, act_min, act_max);
            _mm_storeu_si128((__m128i *)(void *)(out + c), ap_avx2_pack16(acc0, acc1));
        }
        for (; c + 8 <= oc; c += 8) {
            __m256i acc0 = _mm256_loadu_si256((const __m256i *)(const void *)(row->bias + c));
            const int16_t *w = row->w16p + (size_t)c * 2;
            const size_t wstep = (size_t)oc * 2;
            for (int32_t p = 0; p < row->pairs; ++p, w += wstep) {
                __m128i xa = _mm_loadl_epi64((const __m128i *)(const void *)(px + off[2 * p] + c));
                __m128i xb = _mm_loadl_epi64((const __m128i *)(const void *)(px + off[2 * p + 1] + c));
                __m256i lo = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(xa, xb));
                acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(lo, _mm256_loadu_si256((const __m256i *)(const void *)w)));
            }
            dw_rq8 q0;
            dw_load_rq8(rq, c, &q0);
            acc0 = ap_avx2_requant(acc0, q0.multiplier, q0.left, q0.right, out_off, act_min, act_max);
            _mm_storel_epi64((__m128i *)(void *)(out + c), ap_avx2_pack8(acc0));
        }
        for (; c < oc; ++c) {
            int32_t acc = 0;
            for (int32_t t = 0; t < row->taps; ++t) {
                acc += px[off[t] + c] * row->w8[(size_t)t * oc + c];
            }
            out[c] = dw_requant1(ap_ops_wrap_add(acc, row->bias[c]), rq, c);
        }
    }
}

/* "direct" with depth multiplier 1: per-pixel valid tap range, (x + offset) * w exact in
   int16 (|x + offset| <= 255, |w| <= 128), widened into int32. */
AP_AVX2_FUNC void ap_dw_direct_avx2(const ap_dw_direct *d)
{
    const int32_t oc = d->channels;
    const ap_requant *rq = d->requant;
    const __m256i out_off = _mm256_set1_epi32(rq->output_offset);
    const __m256i act_min = _mm256_set1_epi32(rq->activation_min);
    const __m256i act_max = _mm256_set1_epi32(rq->activation_max);
    const __m256i in_off16 = _mm256_set1_epi16((int16_t)d->input_offset);
    for (int32_t oy = 0; oy < d->output_h; ++oy) {
        const int32_t y0 = oy * d->stride_h - d->pad_h;
        for (int32_t ox = 0; ox < d->output_w; ++ox) {
            const int32_t x0 = ox * d->stride_w - d->pad_w;
            int8_t *out = d->out + ((size_t)oy * d->output_w + ox) * (size_t)oc;
            int32_t c = 0;
            for (; c + 16 <= oc; c += 16) {
                __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
                for (int32_t ky = 0; ky < d->filter_h; ++ky) {
                    const int32_t iy = y0 + ky * d->dilation_h;
                    if (iy < 0 || iy >= d->input_h) {
                        continue;
                    }
                    for (int32_t kx = 0; kx < d->filter_w; ++kx) {
                        const int32_t ix = x0 + kx * d->dilation_w;
                        if (ix < 0 || ix >= d->input_w) {
                            continue;
                        }
                        const int8_t *x = d->input + ((size_t)iy * d->input_w + ix) * (size_t)oc + c;
                        const int8_t *w = d->w8 + ((size_t)ky * d->filter_w + kx) * (size_t)oc + c;
                        __m256i xv = _mm256_add_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)x)), in_off16);
                        __m256i wv = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)w));
                        __m256i prod = _mm256_mullo_epi16(xv, wv);
                        acc0 = _mm256_add_epi32(acc0, _mm256_cvtepi16_epi32(_mm256_castsi256_si128(prod)));
                        acc1 = _mm256_add_epi32(acc1, _mm256_cvtepi16_epi32(_mm256_extracti128_si256(prod, 1)));
                    }
                }
                acc0 = _mm256_add_epi32(acc0, _mm256_loadu_si256((const __m256i *)(const void *)(d->bias + c)));
                acc1 = _mm256_add_epi32(acc1, _mm256_loadu_si256((const __m256i *)(const void *)(d->bias + c + 8)));
                dw_rq8 q0, q1;
                dw_load_rq8(rq, c, &q0);
                dw_load_rq8(rq, c + 8, &q1);
                acc0 = ap_avx2_requant(acc0, q0.multiplier, q0.left, q0.right, out_off, act_min, act_max);
                acc1 = ap_avx2_requant(acc1, q1.multiplier, q1.left, q1.right, out_off, act_min, act_max);
                _mm_storeu_si128((__m128i *)(void *)(out + c), ap_avx2_pack16(acc0, acc1));
            }
            for (; c < oc; ++c) {
                int32_t acc = 0;
                for (int32_t ky = 0; ky < d->filter_h; ++ky) {
                    const int32_t iy = y0 + ky * d->dilation_h;
                    if (iy < 0 || iy >= d->input_h) {
                        continue;
                    }
                    for (int32_t kx = 0; kx < d->filter_w; ++kx) {
                        const int32_t ix = x0 + kx * d->dilation_w;
                        if (ix < 0 || ix >= d->input_w) {
                            continue;
                        }
                        acc += (d->input[((size_t)iy * d->input_w + ix) * (size_t)oc + c] + d->input_offset) *
                               d->w8[((size_t)ky * d->filter_w + kx) * (size_t)oc + c];
                    }
                }
                out[c] = dw_requant1(ap_ops_wrap_add(acc, d->bias[c]), rq, c);
            }
        }
    }
}

#else

/* Built without x86 intrinsics: the portable path is the only one (never called). */
void ap_dw_padded_row_avx2(const ap_dw_row *row) { (void)row; }
void ap_dw_direct_avx2(const ap_dw_direct *args) { (void)args; }

#endif
