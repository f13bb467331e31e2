/*
 * Internal to the CONV_2D int8 kernels: the run context, the contract a SIMD level
 * implements (ap_conv2d_rows_fn), and the im2col gather. Not a public header.
 */
#ifndef ARENAPLAN_CONV2D_S8_INTERNAL_H
#define ARENAPLAN_CONV2D_S8_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/conv2d.h"

/* The AVX2 micro-kernel is compiled (with a per-function target attribute, never a global
   -mavx2) wherever GCC-style x86 intrinsics exist; it runs only where ap_cpu_detect() says so. */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define AP_CONV2D_HAVE_AVX2 1
#else
#define AP_CONV2D_HAVE_AVX2 0
#endif

enum {
    AP_CONV2D_MR = 3,   /* output pixels (GEMM rows) of one tile */
    AP_CONV2D_NR = 12,  /* output channels of one tile: 3 blocks of 4 */
    AP_CONV2D_KB = 4,   /* k values per packed group */
    AP_CONV2D_OB = 4    /* output channels per packed block */
};

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
} ap_conv2d_ctx;

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

#if AP_CONV2D_HAVE_AVX2
/* AVX2 rows (conv2d_s8_avx2.c); call only when ap_cpu_detect() >= AP_CPU_AVX2.
   Uses up to 13 KiB of stack. */
void ap_conv2d_s8_rows_avx2(const ap_conv2d_ctx *ctx, const int8_t *const *a, size_t mr,
                            int8_t *out);

/* The whole conv (every output pixel of every image) with the AVX2 "lanes" kernel, for
   layers whose int16 weights fit its stack copy (k <= 576, output_c <= 256, ceil(k / 2) *
   round_up(output_c, 8) <= 4096 pairs, or <= 8192 with 32 output pixels or more): returns 1.
   Otherwise returns 0 having done nothing. Call only when ap_cpu_detect() >= AP_CPU_AVX2.
   Uses up to 56 KiB of stack. */
int ap_conv2d_s8_lanes_avx2(const ap_conv2d_ctx *ctx, size_t total);
#endif

#endif
