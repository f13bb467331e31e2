/*
 * Internal entry points of the AVX2 inner loops of the non-conv int8 ops,
 * called by the portable files after ap_cpu_detect(). The AVX2 definitions
 * live in the *_avx2.c files; on builds without AVX2 support they are never
 * called (AP_OPS_HAVE_AVX2 == 0). Not a public header.
 */
#ifndef ARENAPLAN_OPS_S8_DISPATCH_H
#define ARENAPLAN_OPS_S8_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/depthwise_conv2d.h"
#include "arenaplan/elementwise.h"
#include "arenaplan/softmax.h"
#include "fixedpoint.h"
#include "arenaplan/kernel.h"

/* Output rows of the depthwise "padded_rows" variant: every tap read from a
   channel-expanded, zero-point-padded int16 buffer, no bounds checks. */
typedef struct ap_dw_row {
    const int16_t *base;         /* buffer position of output pixel 0's tap 0 */
    const int32_t *tap_offset;   /* taps + 1 entries, elements from `base` (last repeats the previous) */
    int32_t taps;
    int32_t pairs;               /* ceil(taps / 2) */
    int32_t is_3x3;              /* 3x3 filter: tap t at (t / 3) * tap_offset[3] + (t % 3) * tap_offset[1] */
    int32_t output_w;
    int32_t rows;                /* output rows of this call (>= 1) */
    int32_t row_step;            /* elements between consecutive output rows' tap 0 in the buffer */
    int32_t channels;            /* output channels */
    int32_t pixel_step;          /* elements between consecutive output pixels' tap 0 (stride_w * channels) */
    const int32_t *bias;         /* folded bias: bias + input_offset * sum(w) */
    const int8_t *w8;            /* [taps][channels] */
    const int16_t *w16p;         /* [pairs][channel slot][2], see dw_pair_slot */
    const ap_requant *requant;
    int8_t *out;                 /* rows * output_w * channels bytes */
} ap_dw_row;

/* One output pixel range of the depthwise "direct" variant for depth multiplier 1. */
typedef struct ap_dw_direct {
    const int8_t *input;         /* batch base */
    int32_t input_h, input_w, channels;
    int32_t filter_h, filter_w, stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w;
    int32_t output_h, output_w;
    int32_t input_offset;
    const int32_t *bias;         /* plain bias */
    const int32_t *bias_folded;  /* bias + input_offset * sum of the channel's weights */
    const int8_t *w8;            /* [taps][channels] */
    const uint32_t *lanes;       /* a blob packed for arm-dsp: [channels / 4][taps][2] int16
                                    lane pairs, (c0, c2) and (c1, c3); else NULL */
    const ap_requant *requant;
    int8_t *out;                 /* batch base */
} ap_dw_direct;

void ap_dw_padded_row_avx2(const ap_dw_row *row);
/* arm-dsp "direct" for a depth multiplier that is a multiple of 4
   (depthwise_conv2d_s8_mult_arm_dsp.c): every batch, with filters of at most AP_DW_MULT_TAPS
   taps (its window is on the stack). */
enum { AP_DW_MULT_TAPS = 128 };
typedef struct ap_dw_mult {
    const ap_depthwise_conv2d_params *params;
    const int8_t *input;
    const int32_t *bias;         /* plain bias */
    const uint32_t *pairs;       /* [ceil(taps / 2)][channels] words: w[t0] low, w[t1] high */
    int8_t *output;
} ap_dw_mult;
void ap_dw_direct_mult_arm_dsp(const ap_dw_mult *args);
/* arm-dsp "direct" for depth multiplier 1 (depthwise_conv2d_s8_arm_dsp.c). */
void ap_dw_direct_arm_dsp(const ap_dw_direct *args);
/* arm-dsp "widened" (3x3, depth multiplier 1, channels % 4 == 0, dilation 1): scratch as
   depthwise_conv2d.h's AP_DEPTHWISE_CONV2D_WIDENED says, 16-byte aligned. */
void ap_dw_widened_arm_dsp(const ap_dw_direct *args, void *scratch);   /* 3x3 filters */
/* arm-dsp "widened_pairs" (the same layers): scratch as AP_DEPTHWISE_CONV2D_WIDENED_PAIRS says. */
void ap_dw_widened_pairs_arm_dsp(const ap_dw_direct *args, void *scratch);

/* arm-dsp "planar_rows_R" (depth multiplier 1, dilation 1; depthwise_conv2d_s8_planar.c):
   the plane's axes. Axis a runs across the plane's rows (bands of R output rows), axis b
   along them; a filter one column wide (filter_w 1, filter_h > 1) is taken transposed, so
   that its taps lie along b, and so is a square filter whose output has more rows than
   columns. row_len: int16 values a plane row holds, the padded extent along b and four
   more (the word an odd last tap pair reads; a row's last group of four outputs reading
   past its end), rounded up to even. */
typedef struct ap_dw_planar_shape {
    int32_t transposed, k_a, k_b, s_a, s_b, out_a, out_b, row_len;
} ap_dw_planar_shape;

static inline ap_dw_planar_shape ap_dw_planar_shape_of(int32_t filter_h, int32_t filter_w, int32_t stride_h,
                                                       int32_t stride_w, int32_t output_h, int32_t output_w)
{
    ap_dw_planar_shape s;
    /* rows along the longer output axis when a square filter allows either (more output pairs
       a row), and always for a filter one column wide */
    s.transposed = (filter_w == 1 && filter_h > 1) ||
                   (filter_h == filter_w && stride_h == stride_w && output_h > output_w);
    s.k_a = s.transposed ? filter_w : filter_h;
    s.k_b = s.transposed ? filter_h : filter_w;
    s.s_a = s.transposed ? stride_w : stride_h;
    s.s_b = s.transposed ? stride_h : stride_w;
    s.out_a = s.transposed ? output_w : output_h;
    s.out_b = s.transposed ? output_h : output_w;
    s.row_len = 0;   /* set by ap_dw_planar_scratch, which checks its size */
    return s;
}

/* Scratch bytes of planar_rows_R for shape s (row_len filled in): a plane of
   (R - 1) * s_a + k_a rows of row_len int16, then a channel's constants, 8 words, and its
   weights, k_a * ceil(k_b / 2) words and one more (a 1-D filter's pairs are taken two at a
   time: an odd count ends with a zero word). 0 when a size overflows. */
static inline size_t ap_dw_planar_scratch(ap_dw_planar_shape *s, int32_t band_rows)
{
    const uint64_t extent = (uint64_t)(s->out_b - 1) * (uint64_t)s->s_b + (uint64_t)s->k_b + 4;
    const uint64_t row_len = (extent + 1) / 2 * 2;
    const uint64_t rows = (uint64_t)(band_rows - 1) * (uint64_t)s->s_a + (uint64_t)s->k_a;
    const uint64_t words = 9 + (uint64_t)s->k_a * (uint64_t)((s->k_b + 1) / 2);
    if (row_len > (uint64_t)INT32_MAX || rows > ((uint64_t)1 << 31) || words > ((uint64_t)1 << 31) ||
        row_len * rows > ((uint64_t)1 << 40)) {
        return 0;
    }
    const uint64_t bytes = 2 * row_len * rows + 4 * words;
    if (bytes > (uint64_t)SIZE_MAX) {
        return 0;
    }
    s->row_len = (int32_t)row_len;
    return (size_t)bytes;
}

/* The kernel: band_rows (R) output rows along axis a per band, 0 for one band of them all
   ("planar"); scratch as ap_dw_planar_scratch says, 4-byte aligned. */
void ap_dw_planar_arm_dsp(const ap_dw_direct *args, int32_t band_rows, void *scratch);

/* One depthwise output from its accumulator (bias added): the portable kernel's rule. */
static inline int8_t ap_dw_requant1(int32_t acc, const ap_requant *rq, int32_t c)
{
    int32_t i = rq->per_channel ? c : 0;
    int32_t v = ap_fp_multiply_by_nonneg_multiplier(acc, rq->multiplier[i], rq->shift[i]) + rq->output_offset;
    return (int8_t)(v < rq->activation_min ? rq->activation_min : v > rq->activation_max ? rq->activation_max : v);
}
/* dst[0..n) = src[0..n) sign-extended (reads exactly n bytes). */
void ap_dw_widen_avx2(int16_t *dst, const int8_t *src, size_t n);
void ap_dw_direct_avx2(const ap_dw_direct *args);

/* Fully connected: one batch row against the 8-row-blocked packed filter. */
typedef struct ap_fc_row {
    const int8_t *input;          /* input_depth bytes */
    int32_t input_depth;
    int32_t depth_padded;         /* multiple of 4 */
    int32_t output_depth;
    int32_t no_min_weight;        /* 1: no weight is -128 (see FC_FLAG_NO_MIN_WEIGHT) */
    const int8_t *packed;         /* [ceil(out/8)][depth_padded/4][8][4] */
    const int32_t *bias;          /* folded bias, output_depth entries (padded to 8) */
    int32_t row_term;             /* filter_offset * sum(input), added to every output */
    const ap_requant *requant;
    const double *real_scale;     /* NULL: fixed point; else round((double)acc * scale) */
    int8_t *out;                  /* output_depth bytes */
} ap_fc_row;

void ap_fc_row_avx2(const ap_fc_row *row);
/* arm-dsp (fully_connected_s8_arm_dsp.c): widened NULL, or 2 * (input_depth / 4) words of
   scratch for the input's int16 lanes. */
void ap_fc_row_arm_dsp(const ap_fc_row *row, uint32_t *widened);

/* Elementwise rows: n outputs, inputs advance by stride_a / stride_b (0 or 1);
   the parameters are the op's own (shapes unused here). */
size_t ap_add_row_avx2(const ap_add_params *p, const int8_t *a, int stride_a, const int8_t *b,
                       int stride_b, int8_t *out, size_t n);
size_t ap_mul_row_avx2(const ap_mul_params *p, const int8_t *a, int stride_a, const int8_t *b,
                       int stride_b, int8_t *out, size_t n);
/* arm-dsp ADD and MUL rows (elementwise_s8_arm_dsp.c): n, or 0 where its bounds do not hold (the
   portable row then runs). */
size_t ap_add_row_arm_dsp(const ap_add_params *p, const int8_t *a, int stride_a, const int8_t *b,
                          int stride_b, int8_t *out, size_t n);
size_t ap_mul_row_arm_dsp(const ap_mul_params *p, const int8_t *a, int stride_a, const int8_t *b,
                          int stride_b, int8_t *out, size_t n);

/* AVERAGE_POOL_2D int8, arm-dsp (pooling_s8_arm_dsp.c): one window's averages over n channels;
   tap (fy, fx) of channel j is in[fy * row + fx * col + j], 0 <= fy < rows, 0 <= fx < cols. */
void ap_avgpool_s8_arm_dsp(const int8_t *in, size_t row, size_t col, int32_t rows, int32_t cols, int8_t *out,
                           size_t n, int32_t lo, int32_t hi);
/* MAX_POOL_2D int8, arm-dsp (pooling_s8_arm_dsp.c): the same window, SSUB8 + SEL. */
void ap_maxpool_s8_arm_dsp(const int8_t *in, size_t row, size_t col, int32_t rows, int32_t cols, int8_t *out,
                           size_t n, int32_t lo, int32_t hi);

/* SOFTMAX int8, arm-dsp (softmax_s8_arm_dsp.c): every row of p (checked by the caller) into
   out8 (int8) or out16 (int16; the other NULL); cache NULL ("direct") or depth int32 values of
   scratch ("exp_cache"). */
void ap_softmax_s8_arm_dsp(const ap_softmax_params *p, const int8_t *input, int8_t *out8, int16_t *out16,
                           int32_t *cache);

/* LSTM gate activations on 16 int16 values in place, Q0.15 out (fixedpoint_int16.h):
   gemmlowp logistic of Q3.12, tanh of Q(integer_bits).(15 - integer_bits), integer_bits 0..6. */
void ap_lstm_sigmoid16_avx2(int16_t *values);
void ap_lstm_tanh16_avx2(int16_t *values, int integer_bits);

#endif
