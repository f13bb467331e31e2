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
    int32_t v = ap_fp_multiply_by_nonneg_multiplier(acc, rq->multiplier[i], rq->shift[i]) + rq->output_offset;
    return (int8_t)ap_ops_clamp(v, rq->activation_min, rq->activation_max);
}

/* Requantisation constants of 8 channels from c (per channel or the one per-tensor entry). */
AP_AVX2_INLINE ap_avx2_rq8 dw_consts8(const ap_requant *rq, int32_t c)
{
    if (rq->per_channel) {
        return ap_avx2_rq8_make(_mm256_loadu_si256((const __m256i *)(const void *)(rq->multiplier + c)),
                                _mm256_loadu_si256((const __m256i *)(const void *)(rq->shift + c)));
    }
    return ap_avx2_rq8_make(_mm256_set1_epi32(rq->multiplier[0]), _mm256_set1_epi32(rq->shift[0]));
}

AP_AVX2_INLINE __m256i dw_load(const void *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}

/* Offset of tap t of a 3x3 filter (t = 9 repeats tap 8, whose pair weight is zero). */
static inline size_t dw_tap3x3(int32_t t, size_t dy, size_t dx)
{
    if (t > 8) {
        t = 8;
    }
    return (size_t)(t / 3) * dy + (size_t)(t % 3) * dx;
}

/* 16 output lanes per step. The buffer holds int16, so two taps' 16 channels interleave
   with vpunpck{l,h}wd inside 128-bit lanes: `lo` holds channels 0-3 | 8-11 and `hi` 4-7 |
   12-15 (the order of the prepared int16 weights, see dw_pair_slot), and vpackssdw(lo, hi)
   puts them back in order. PAIRED (8 channels, stride 1): the 16 lanes are the 8 channels of
   this pixel and of the next, whose inputs are the next 8 elements; lo/hi are then channels
   0-3 / 4-7 of both pixels. Channel block outside, pixels inside: the requantisation
   constants are expanded once per block. PAIRS > 0: a compile-time tap-pair count. */
AP_AVX2_INLINE void dw_row16(const ap_dw_row *row, int32_t c, int32_t iters, size_t in_step,
                             size_t out_step, const int PAIRS, const int PAIRED, const int left)
{
    const ap_requant *rq = row->requant;
    const __m256i out_off = _mm256_set1_epi32(rq->output_offset);
    const __m256i act_min = _mm256_set1_epi32(rq->activation_min);
    const __m256i act_max = _mm256_set1_epi32(rq->activation_max);
    const int32_t pairs = PAIRS > 0 ? PAIRS : row->pairs;
    const size_t wstep = (size_t)row->channels * 2;
    const int32_t *off = row->tap_offset;
    const size_t dy = (size_t)off[3], dx = (size_t)off[1];   /* 3x3 only: taps (1, 0) and (0, 1) */
    __m256i m_lo, m_hi, s_lo, s_hi, b_lo, b_hi;
    ap_avx2_rq8 q_lo, q_hi;
    int32_t i, p, r;
    if (PAIRED) {
        const __m256i m = rq->per_channel ? dw_load(rq->multiplier) : _mm256_set1_epi32(rq->multiplier[0]);
        const __m256i sh = rq->per_channel ? dw_load(rq->shift) : _mm256_set1_epi32(rq->shift[0]);
        const __m256i b = dw_load(row->bias);
        m_lo = _mm256_permute4x64_epi64(m, 0x44), m_hi = _mm256_permute4x64_epi64(m, 0xEE);
        s_lo = _mm256_permute4x64_epi64(sh, 0x44), s_hi = _mm256_permute4x64_epi64(sh, 0xEE);
        b_lo = _mm256_permute4x64_epi64(b, 0x44), b_hi = _mm256_permute4x64_epi64(b, 0xEE);
    } else {
        __m256i m0, m1, s0, s1;
        if (rq->per_channel) {
            m0 = dw_load(rq->multiplier + c), m1 = dw_load(rq->multiplier + c + 8);
            s0 = dw_load(rq->shift + c), s1 = dw_load(rq->shift + c + 8);
        } else {
            m0 = m1 = _mm256_set1_epi32(rq->multiplier[0]);
            s0 = s1 = _mm256_set1_epi32(rq->shift[0]);
        }
        m_lo = _mm256_permute2x128_si256(m0, m1, 0x20), m_hi = _mm256_permute2x128_si256(m0, m1, 0x31);
        s_lo = _mm256_permute2x128_si256(s0, s1, 0x20), s_hi = _mm256_permute2x128_si256(s0, s1, 0x31);
        b_lo = _mm256_permute2x128_si256(dw_load(row->bias + c), dw_load(row->bias + c + 8), 0x20);
        b_hi = _mm256_permute2x128_si256(dw_load(row->bias + c), dw_load(row->bias + c + 8), 0x31);
    }
    q_lo = ap_avx2_rq8_make(m_lo, s_lo);
    q_hi = ap_avx2_rq8_make(m_hi, s_hi);
    for (r = 0; r < row->rows; ++r) {
        const int16_t *px = row->base + (size_t)r * (size_t)row->row_step + c;
        int8_t *out = row->out + (size_t)r * (size_t)row->output_w * (size_t)row->channels + c;
        for (i = 0; i < iters; ++i, px += in_step, out += out_step) {
            const int16_t *w = row->w16p + (size_t)c * 2;
            __m256i acc0 = b_lo, acc1 = b_hi, h;
#pragma GCC unroll 8
            for (p = 0; p < pairs; ++p, w += wstep) {
                /* 3x3: tap offsets from the two strides, kept in registers (a table read
                   costs a load per tap, and the loads are what this loop is short of) */
                const size_t ta = PAIRS == 5 ? dw_tap3x3(2 * p, dy, dx) : (size_t)off[2 * p];
                const size_t tb = PAIRS == 5 ? dw_tap3x3(2 * p + 1, dy, dx) : (size_t)off[2 * p + 1];
                const __m256i xa = dw_load(px + ta);
                const __m256i xb = dw_load(px + tb);
                __m256i w_lo, w_hi;
                if (PAIRED) {
                    w_lo = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)w));
                    w_hi = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(w + 8)));
                } else {
                    w_lo = dw_load(w);
                    w_hi = dw_load(w + 16);
                }
                acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(_mm256_unpacklo_epi16(xa, xb), w_lo));
                acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(_mm256_unpackhi_epi16(xa, xb), w_hi));
            }
            acc0 = _mm256_add_epi32(ap_avx2_rq8_mbqm(&q_lo, acc0, left), out_off);
            acc1 = _mm256_add_epi32(ap_avx2_rq8_mbqm(&q_hi, acc1, left), out_off);
            acc0 = _mm256_min_epi32(_mm256_max_epi32(acc0, act_min), act_max);
            acc1 = _mm256_min_epi32(_mm256_max_epi32(acc1, act_min), act_max);
            h = _mm256_packs_epi32(acc0, acc1);   /* channels 0-7 | 8-15 (or pixel | next pixel) */
            h = _mm256_permute4x64_epi64(_mm256_packs_epi16(h, h), 0x08);
            _mm_storeu_si128((__m128i *)(void *)out, _mm256_castsi256_si128(h));
        }
    }
}

#define DW_ROW16(name, PAIRS, PAIRED, LEFT)                                                        \
    AP_AVX2_FUNC static void name(const ap_dw_row *row, int32_t c, int32_t iters, size_t in_step, \
                                  size_t out_step)                                                 \
    {                                                                                              \
        dw_row16(row, c, iters, in_step, out_step, PAIRS, PAIRED, LEFT);                           \
    }
DW_ROW16(dw_row16_3x3, 5, 0, 0)
DW_ROW16(dw_row16_any, 0, 0, 0)
DW_ROW16(dw_row16_left, 0, 0, 1)
DW_ROW16(dw_row16_paired_3x3, 5, 1, 0)
DW_ROW16(dw_row16_paired_any, 0, 1, 0)
DW_ROW16(dw_row16_paired_left, 0, 1, 1)
#undef DW_ROW16

/* 8 channels [c, c + 8) (natural weight order) of pixels [first, last). */
AP_AVX2_FUNC static void dw_row8(const ap_dw_row *row, int32_t c, int32_t first, int32_t last)
{
    const ap_requant *rq = row->requant;
    const ap_avx2_rq8 q = dw_consts8(rq, c);
    const int left = ap_avx2_rq8_any_left(&q);
    const __m256i b = dw_load(row->bias + c);
    const __m256i out_off = _mm256_set1_epi32(rq->output_offset);
    const __m256i act_min = _mm256_set1_epi32(rq->activation_min);
    const __m256i act_max = _mm256_set1_epi32(rq->activation_max);
    const size_t wstep = (size_t)row->channels * 2;
    const int32_t *off = row->tap_offset;
    int32_t ox, p, r;
    for (r = 0; r < row->rows; ++r)
    for (ox = first; ox < last; ++ox) {
        const int16_t *px = row->base + (size_t)r * (size_t)row->row_step + (size_t)ox * (size_t)row->pixel_step + c;
        const int16_t *w = row->w16p + (size_t)c * 2;
        __m256i acc = b;
        for (p = 0; p < row->pairs; ++p, w += wstep) {
            const __m128i xa = _mm_loadu_si128((const __m128i *)(const void *)(px + off[2 * p]));
            const __m128i xb = _mm_loadu_si128((const __m128i *)(const void *)(px + off[2 * p + 1]));
            const __m256i x = _mm256_set_m128i(_mm_unpackhi_epi16(xa, xb), _mm_unpacklo_epi16(xa, xb));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x, dw_load(w)));
        }
        acc = left ? ap_avx2_rq8_mbqm(&q, acc, 1) : ap_avx2_rq8_mbqm(&q, acc, 0);
        acc = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(acc, out_off), act_min), act_max);
        _mm_storel_epi64((__m128i *)(void *)(row->out + ((size_t)r * (size_t)row->output_w + (size_t)ox) *
                                                        (size_t)row->channels + c),
                         ap_avx2_pack8(acc));
    }
}

/* Whether any of the 8 or 16 channels from c (or the per-tensor shift) shifts left. */
AP_AVX2_INLINE int dw_any_left(const ap_requant *rq, int32_t c, int32_t n)
{
    __m256i s;
    if (!rq->per_channel) {
        return rq->shift[0] > 0;
    }
    s = dw_load(rq->shift + c);
    if (n > 8) {
        s = _mm256_max_epi32(s, dw_load(rq->shift + c + 8));
    }
    return _mm256_movemask_epi8(_mm256_cmpgt_epi32(s, _mm256_setzero_si256())) != 0;
}

/* One output row of the "padded_rows" variant: every tap read from the channel-expanded,
   zero-point-padded int16 buffer, no bounds checks. */
AP_AVX2_FUNC void ap_dw_padded_row_avx2(const ap_dw_row *row)
{
    const int32_t oc = row->channels;
    const ap_requant *rq = row->requant;
    int32_t c = 0;
    if (oc == 8 && row->pixel_step == 8) {
        /* 8 channels at stride 1: pixel pairs fill the 16 lanes. */
        const int32_t iters = row->output_w / 2;
        if (dw_any_left(rq, 0, 8)) {
            dw_row16_paired_left(row, 0, iters, 16, 16);
        } else if (row->is_3x3) {
            dw_row16_paired_3x3(row, 0, iters, 16, 16);
        } else {
            dw_row16_paired_any(row, 0, iters, 16, 16);
        }
        if (row->output_w % 2 != 0) {
            dw_row8(row, 0, row->output_w - 1, row->output_w);
        }
        return;
    }
    for (; c + 16 <= oc; c += 16) {
        const size_t step = (size_t)row->pixel_step;
        if (dw_any_left(rq, c, 16)) {
            dw_row16_left(row, c, row->output_w, step, (size_t)oc);
        } else if (row->is_3x3) {
            dw_row16_3x3(row, c, row->output_w, step, (size_t)oc);
        } else {
            dw_row16_any(row, c, row->output_w, step, (size_t)oc);
        }
    }
    for (; c + 8 <= oc; c += 8) {
        dw_row8(row, c, 0, row->output_w);
    }
    if (c < oc) {
        for (int32_t i = 0; i < row->rows * row->output_w; ++i) {
            const int32_t r = i / row->output_w, ox = i % row->output_w;
            const int16_t *px = row->base + (size_t)r * (size_t)row->row_step + (size_t)ox * (size_t)row->pixel_step;
            int8_t *out = row->out + (size_t)i * (size_t)oc;
            for (int32_t cc = c; cc < oc; ++cc) {
                int32_t acc = 0;
                for (int32_t t = 0; t < row->taps; ++t) {
                    acc += px[row->tap_offset[t] + cc] * row->w8[(size_t)t * oc + cc];
                }
                out[cc] = dw_requant1(ap_ops_wrap_add(acc, row->bias[cc]), rq, cc);
            }
        }
    }
}

/* dst[0..n) = src[0..n) sign-extended; reads exactly n bytes. */
AP_AVX2_FUNC void ap_dw_widen_avx2(int16_t *dst, const int8_t *src, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        _mm256_storeu_si256((__m256i *)(void *)(dst + i),
                            _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(src + i))));
    }
    for (; i < n; ++i) {
        dst[i] = src[i];
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
void ap_dw_widen_avx2(int16_t *dst, const int8_t *src, size_t n) { (void)dst, (void)src, (void)n; }
void ap_dw_direct_avx2(const ap_dw_direct *args) { (void)args; }

#endif
