/*
 * Internal to the CONV_2D int8 kernels: the run context, the contract a SIMD level
 * implements (ap_conv2d_rows_fn), and the im2col gather. Not a public header.
 */
#ifndef ARENAPLAN_CONV2D_S8_INTERNAL_H
#define ARENAPLAN_CONV2D_S8_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/conv2d.h"

#include "fixedpoint.h"
#include "isa.h"

/* The AVX2 micro-kernels are compiled where isa.h says; they run for x86-avx2 variants only. */
#define AP_CONV2D_HAVE_AVX2 AP_HAVE_X86_AVX2

enum {
    AP_CONV2D_MR = 3,   /* output pixels (GEMM rows) of one tile */
    AP_CONV2D_NR = 12,  /* output channels of one tile: 3 blocks of 4 */
    AP_CONV2D_KB = 4,   /* k values per packed group */
    AP_CONV2D_OB = 4    /* output channels per packed block */
};

/* The AVX2 "lanes" kernel's bounds (ap_conv2d_lanes_applies): the layers whose weights are
   small enough that widening them once a run pays. */
enum {
    AP_LANES_MR = 12,          /* panel rows (output pixels) per gather */
    AP_LANES_W_PAIRS = 8192,   /* k_pairs * oc8 int16 pairs: 32 KiB of int16 weights */
    AP_LANES_MAX_K = 576,
    AP_LANES_MAX_OC = 256
};
/* Output pixels a SIMD level's rows function takes at a time, and the smallest im2col row
   block its variants offer (blocks of tile * 4^j pixels): the arm-dsp kernel works on pixel
   pairs (a third row would take its slower one-pixel path), the others on AP_CONV2D_MR. */
static inline size_t ap_conv2d_tile_rows(int32_t isa)
{
    return isa == AP_ISA_ARM_DSP ? 2 : AP_CONV2D_MR;
}

/* gemm_1x1 applies: a pointwise stride-1 conv without padding, whose im2col matrix is its
   input (the portable variant list and the AVX2 kernels' pointwise paths both ask this). */
static inline int ap_conv2d_gemm_1x1_applies(const ap_conv2d_params *p)
{
    return p->filter_h == 1 && p->filter_w == 1 && p->stride_h == 1 && p->stride_w == 1 &&
           p->pad_h == 0 && p->pad_w == 0 && p->output_h == p->input_h &&
           p->output_w == p->input_w;
}

/* The x86-avx2 "lanes" variant applies (variants() and run() both ask this): k <=
   AP_LANES_MAX_K, output_c rounded up to 8 <= AP_LANES_MAX_OC and ceil(k / 2) * that <=
   AP_LANES_W_PAIRS, and, past half of that, only from 32 output pixels on (widening the
   weights costs about as much as multiplying them with a few rows: measured, 128 -> 128
   channels 1x1 loses at 15 and 24 pixels, wins at 36). */
static inline int ap_conv2d_lanes_applies(int32_t isa, size_t k, size_t output_c,
                                          size_t total_pixels)
{
    const size_t chans = (output_c + 7) / 8 * 8;
    const size_t kp2 = (k + 1) / 2;
    if (isa != AP_ISA_X86_AVX2 || k > AP_LANES_MAX_K || chans > AP_LANES_MAX_OC ||
        kp2 * chans > AP_LANES_W_PAIRS) {
        return 0;
    }
    return !(kp2 * chans > AP_LANES_W_PAIRS / 2 && total_pixels < 32);
}

/* The lanes variant's one scratch buffer, in this order (each part a multiple of 32 bytes):
   the weights widened to int16, [ceil(k / 2)][oc8][2]; 7 per-channel int32 constants of oc8
   channels; AP_LANES_MR im2col rows of ap_conv2d_lanes_row(k) int16. Within the bounds above
   (at most 32 KiB + 7 KiB + 14 KiB), so no product overflows. */
static inline size_t ap_conv2d_lanes_row(size_t k)
{
    return (k + 16 + 15) & ~(size_t)15;
}

static inline size_t ap_conv2d_lanes_scratch(size_t k, size_t output_c)
{
    const size_t chans = (output_c + 7) / 8 * 8;
    return 4 * ((k + 1) / 2) * chans + 28 * chans + 2 * AP_LANES_MR * ap_conv2d_lanes_row(k);
}

/* Everything a run needs, derived once from validated params and the prepared blob. */
typedef struct ap_conv2d_ctx {
    const ap_conv2d_params *p;
    const int8_t *input;
    int8_t *output;
    const int32_t *bias;       /* folded bias, oc_pad entries */
    const int8_t *weights;     /* packed filter (see conv2d.h, ap_conv2d_s8_prepare) */
    size_t k;                  /* filter_h * filter_w * input_c */
    size_t k_pad;              /* k rounded up to AP_CONV2D_KB */
    size_t oc;                 /* output_c */
    size_t oc_pad;             /* oc rounded up to AP_CONV2D_OB */
    size_t w_block_stride;     /* bytes between packed blocks of 4 channels: 4 * k_pad */
    size_t pixels;             /* output_h * output_w (one image) */
    size_t in_image;           /* input_h * input_w * input_c (bytes of one image) */
    int8_t pad_value;          /* the input zero point: padding taps contribute 0 */
    const int32_t *multiplier;
    const int32_t *shift;
    int32_t per_channel;
    int32_t output_offset, act_min, act_max;
    int requant_mode;          /* arm-dsp: ap_dsp_requant_mode's answer (requant_arm_dsp.h) */
} ap_conv2d_ctx;

/* Output channel oc of one pixel from its accumulator (mod 2^32, as TFLite's int32 wraps). */
static inline int8_t ap_conv2d_requant1(const ap_conv2d_ctx *c, size_t oc, uint32_t acc)
{
    size_t q = c->per_channel ? oc : 0;
    int32_t v = (int32_t)(acc + (uint32_t)c->bias[oc]);
    v = ap_fp_multiply_by_nonneg_multiplier(v, c->multiplier[q], c->shift[q]);   /* checked >= 0 */
    v += c->output_offset;
    v = v < c->act_min ? c->act_min : v;
    v = v > c->act_max ? c->act_max : v;
    return (int8_t)v;
}

/*
 * The unit of work a SIMD level implements: output rows out[r][0..oc) for r < mr from im2col
 * rows a[r] (k_pad bytes each, already holding padding values; a[mr..MR-1] may repeat a
 * valid row). All output channels, so a level can convert a row tile once and reuse it for
 * every channel block.
 */
typedef void (*ap_conv2d_rows_fn)(const ap_conv2d_ctx *ctx, const int8_t *const *a, size_t mr,
                                  int8_t *out);

/* Write the im2col row (k_pad bytes) of global output pixel `pixel`
   (batch * pixels + y * output_w + x) to dst: padding taps hold pad_value, k >= ctx->k hold 0. */
void ap_conv2d_s8_gather(const ap_conv2d_ctx *ctx, size_t pixel, int8_t *dst);

/* arm-dsp im2col16_rows_2 and _4 (conv2d_s8_arm_dsp.c): every output pixel of every image
   (total), cols16 (2 or 4) at a time, over the variant's scratch of (2 * cols16 + 1) * k_pad
   bytes, 16-byte aligned. */
enum { AP_CONV2D_COLS16 = 4 };
void ap_conv2d_s8_im2col16_arm_dsp(const ap_conv2d_ctx *ctx, void *scratch, size_t total, size_t cols16);
/* arm-dsp im2col16w_rows_4: the same with four-pixel tiles over a scratch of 9 * k_pad bytes
   and then, per output channel, 12 + 2 * k_pad bytes (its bias, its weights widened to int16,
   its multiplier and -shift), 16-byte aligned. */
void ap_conv2d_s8_im2col16w_arm_dsp(const ap_conv2d_ctx *ctx, void *scratch, size_t total);

/*
 * arm-dsp strip16 (conv2d_s8_arm_dsp.c): for layers of few input channels (first layers: the
 * im2col gather of a pixel costs more than its multiply-adds), one output row at a time from
 * its filter_h input rows widened to int16 once, in scratch, interleaved so that a pixel's
 * whole window is k2 consecutive words. A filter row's taps are `run` = filter_w * input_c
 * consecutive values of the padded input row; their pairs are `slots` = ceil(run / 2) words
 * (an odd run's last word pairs its last value with a zero weight). Word j of a strip row
 * holds values 2j and 2j + 1 of the padded row; strip word j * filter_h + r is that word of
 * filter row r, so the window of a pixel whose values start at an even e is the k2 =
 * filter_h * slots words from (e / 2) * filter_h, in the order (slot, filter row). A pixel
 * starting at an odd e (stride_w * input_c odd) reads a second strip of the row shifted by one
 * value. The weights, widened into the same order, are k2 words per channel, four channels
 * interleaved a word each (one LDM), with the block's biases before them and its multipliers
 * and shifts after (12 words). Scratch, one buffer (16-byte aligned): the tables, oc_pad / 4 *
 * (12 + 4 * k2) words, then the strip(s), copies * filter_h * row_words words.
 */
enum { AP_CONV2D_STRIP_MAX_C = 4, AP_CONV2D_STRIP_MAX_K2 = 32 };

typedef struct ap_conv2d_strip_layout {
    size_t run, slots, k2;   /* filter_w * input_c; ceil(run / 2); filter_h * slots */
    size_t values;           /* values of a padded row: ((output_w - 1) * stride_w + filter_w) * input_c */
    size_t row_words;        /* words of a strip row: values / 2 + 1 */
    size_t copies;           /* 2 if some pixel starts at an odd value, else 1 */
    size_t weight_bytes, strip_bytes, bytes;   /* the parts and the whole */
} ap_conv2d_strip_layout;

/* strip16 applies (a layer of at most 4 input channels, dilation_w 1, k2 <= 32, not
   pointwise) and its layout fits size_t: 1 and *out filled, else 0. The shapes are valid
   (ap_conv2d_check_shapes: the padded width is at most input_w + 2 * filter_w < 2^31). */
static inline int ap_conv2d_strip_layout_of(const ap_conv2d_params *p, size_t oc_pad,
                                            ap_conv2d_strip_layout *out)
{
    ap_conv2d_strip_layout l;
    uint64_t width, weights, strip, total;
    if (p->input_c > AP_CONV2D_STRIP_MAX_C || p->dilation_w != 1 || ap_conv2d_gemm_1x1_applies(p) ||
        p->filter_h > AP_CONV2D_STRIP_MAX_K2 || p->filter_w > 2 * AP_CONV2D_STRIP_MAX_K2) {
        return 0;
    }
    l.run = (size_t)p->filter_w * (size_t)p->input_c;
    l.slots = (l.run + 1) / 2;
    l.k2 = (size_t)p->filter_h * l.slots;
    if (l.k2 > AP_CONV2D_STRIP_MAX_K2) {
        return 0;
    }
    width = (uint64_t)(p->output_w - 1) * (uint64_t)p->stride_w + (uint64_t)p->filter_w;   /* < 2^63 */
    if (width > ((uint64_t)1 << 40)) {
        return 0;
    }
    weights = (uint64_t)oc_pad * (12 + 4 * l.k2);                      /* < 2^40 */
    strip = 4 * (uint64_t)(width * (uint64_t)p->input_c / 2 + 1);      /* a row, < 2^44 */
    strip *= (uint64_t)p->filter_h * 2;                                 /* < 2^50 */
    total = weights + strip;
    if (total > (uint64_t)SIZE_MAX) {
        return 0;
    }
    l.values = (size_t)(width * (uint64_t)p->input_c);
    l.row_words = l.values / 2 + 1;
    l.copies = ((size_t)p->stride_w * (size_t)p->input_c) % 2 == 1 && p->output_w > 1 ? 2 : 1;
    l.weight_bytes = (size_t)weights;
    l.strip_bytes = 4 * l.copies * (size_t)p->filter_h * l.row_words;
    l.bytes = l.weight_bytes + l.strip_bytes;
    *out = l;
    return 1;
}

/* arm-dsp strip16: every output pixel of every image over the variant's scratch
   (ap_conv2d_strip_layout_of's bytes, 16-byte aligned). */
void ap_conv2d_s8_strip16_arm_dsp(const ap_conv2d_ctx *ctx, void *scratch);

/* arm-dsp rows (conv2d_s8_arm_dsp.c): SXTB16 + SMLAD, pixel pairs x channel pairs; stack
   use a few words. Every build has it (arm_dsp.h). */
void ap_conv2d_s8_rows_arm_dsp(const ap_conv2d_ctx *ctx, const int8_t *const *a, size_t mr,
                               int8_t *out);

#if AP_CONV2D_HAVE_AVX2
/* AVX2 rows (conv2d_s8_avx2.c); call only for an x86-avx2 variant (ap_isa_check passed).
   Its int16 row panel on the stack holds AP_CONV2D_MR * AP_AVX2_KC values (1.5 KiB); longer
   rows go in chunks. */
void ap_conv2d_s8_rows_avx2(const ap_conv2d_ctx *ctx, const int8_t *const *a, size_t mr,
                            int8_t *out);

/* The "lanes" variant (conv2d_s8_avx2.c): the whole conv (every output pixel of every image)
   for a layer ap_conv2d_lanes_applies takes, over its scratch of ap_conv2d_lanes_scratch()
   bytes, 16-byte aligned. */
void ap_conv2d_s8_lanes_avx2(const ap_conv2d_ctx *ctx, void *scratch, size_t total);
#endif

#endif
