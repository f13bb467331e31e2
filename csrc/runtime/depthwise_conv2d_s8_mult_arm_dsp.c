/*
 * DEPTHWISE_CONV_2D int8, arm-dsp "direct" for a depth multiplier M that is a multiple of 4
 * (the micro speech model's 10x8 filter over one input channel, eight outputs): output channel
 * c = ic * M + m reads input channel ic, so the M outputs of an input channel share its window.
 * (A multiplier of 2 or 3 runs the portable loop: building the window for two or three
 * outputs costs more than it saves, 25 instructions a MAC against 20 on a 3x3 filter.)
 *
 * Per output pixel and input channel the window's values, (x + input_offset) as int16 and 0
 * where the padding cuts it, go into a stack array of taps; two consecutive taps are then one
 * word, and the blob's weights are the same pairs (dw_pairs in depthwise_conv2d_s8.c: per
 * pair of taps and channel one word, w[t0] low and w[t1] high). A pair of taps of four
 * channels is then one load of the values, two LDRDs of the weights and four SMLADs (8
 * multiply-adds); the window is built once for the M outputs. The sums are exact in int32 as
 * the portable loop's are (unfolded, plain bias), so the outputs are its outputs bit for bit.
 * Stack: the window, at most AP_DW_MULT_TAPS int16 (the caller runs the portable loop past it).
 */
#include <string.h>

#include "arm_dsp.h"
#include "ops_s8_dispatch.h"

/* The window of output pixel (oy, ox) over input channel ic, as tap pairs in v (pairs words:
   an odd last tap pairs with 0). */
static void dw_mult_window(const ap_dw_mult *a, const int8_t *in, int32_t oy, int32_t ox, int32_t ic,
                           int16_t *v)
{
    const ap_depthwise_conv2d_params *p = a->params;
    const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
    const int32_t off = p->input_offset, ic_n = p->input_c;
    int16_t *t = v;
    for (int32_t ky = 0; ky < p->filter_h; ++ky) {
        const int32_t iy = y0 + ky * p->dilation_h;
        if (iy < 0 || iy >= p->input_h) {
            memset(t, 0, (size_t)p->filter_w * sizeof(*t));
            t += p->filter_w;
            continue;
        }
        const int8_t *row = in + (size_t)iy * (size_t)p->input_w * (size_t)ic_n + (size_t)ic;
        for (int32_t kx = 0; kx < p->filter_w; ++kx, ++t) {
            const int32_t ix = x0 + kx * p->dilation_w;
            *t = (int16_t)(ix < 0 || ix >= p->input_w ? 0 : row[(size_t)ix * (size_t)ic_n] + off);
        }
    }
    *t = 0;   /* an odd last tap's partner */
}

/* Channels c .. c + n - 1 (n <= 4, one input channel's) of one pixel from its window's pairs. */
static void dw_mult_channels(const ap_dw_mult *a, const uint32_t *v, size_t pairs, int32_t c, int32_t n,
                             int8_t *out)
{
    const size_t oc = (size_t)a->params->output_c;
    const uint32_t *w = a->pairs + c;
    int32_t s[4];
    if (n == 4) {
        int32_t s0 = a->bias[c], s1 = a->bias[c + 1], s2 = a->bias[c + 2], s3 = a->bias[c + 3];
        for (size_t q = 0; q < pairs; ++q, w += oc) {
            const uint32_t x = v[q];
            s0 = ap_dsp_smlad(x, w[0], s0);
            s1 = ap_dsp_smlad(x, w[1], s1);
            s2 = ap_dsp_smlad(x, w[2], s2);
            s3 = ap_dsp_smlad(x, w[3], s3);
        }
        s[0] = s0;
        s[1] = s1;
        s[2] = s2;
        s[3] = s3;
    } else {
        for (int32_t j = 0; j < n; ++j) {
            int32_t acc = a->bias[c + j];
            const uint32_t *wj = w + j;
            for (size_t q = 0; q < pairs; ++q, wj += oc) {
                acc = ap_dsp_smlad(v[q], *wj, acc);
            }
            s[j] = acc;
        }
    }
    for (int32_t j = 0; j < n; ++j) {
        out[c + j] = ap_dw_requant1(s[j], &a->params->requant, c + j);
    }
}

void ap_dw_direct_mult_arm_dsp(const ap_dw_mult *a)
{
    const ap_depthwise_conv2d_params *p = a->params;
    const int32_t mult = p->depth_multiplier, oc = p->output_c;
    const size_t taps = (size_t)p->filter_h * (size_t)p->filter_w, pairs = (taps + 1) / 2;
    const size_t in_batch = (size_t)p->input_h * (size_t)p->input_w * (size_t)p->input_c;
    uint32_t window[AP_DW_MULT_TAPS / 2 + 1];
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *in = a->input + (size_t)b * in_batch;
        for (int32_t oy = 0; oy < p->output_h; ++oy) {
            for (int32_t ox = 0; ox < p->output_w; ++ox) {
                int8_t *out = a->output + (((size_t)b * (size_t)p->output_h + (size_t)oy) * (size_t)p->output_w +
                                           (size_t)ox) * (size_t)oc;
                for (int32_t ic = 0; ic < p->input_c; ++ic) {
                    dw_mult_window(a, in, oy, ox, ic, (int16_t *)(void *)window);
                    for (int32_t m = 0; m < mult; m += 4) {
                        dw_mult_channels(a, window, pairs, ic * mult + m, mult - m < 4 ? mult - m : 4, out);
                    }
                }
            }
        }
    }
}
