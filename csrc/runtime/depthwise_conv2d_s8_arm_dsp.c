/*
 * DEPTHWISE_CONV_2D int8, arm-dsp: the "direct" variant for depth multiplier 1 (no scratch).
 *
 * Four channels at a time: a tap's four input bytes and its four weights are one word each
 * (NHWC input, weights [tap][channel]); SXTAB16 sign-extends bytes 0 and 2 (or, with ROR 8,
 * 1 and 3) into int16 lanes and adds the input offset to both in the same instruction, and
 * SMLABB / SMLATT take one channel's product each, so a tap of four channels is two loads,
 * four extensions and four multiply-accumulates, with no bounds checks inside a row: the
 * taps outside the image are cut from each pixel's ranges first (as the portable kernel
 * skips them: they add nothing). The sums are the portable kernel's (x + offset) * w, in
 * the same int32, then the same requantisation: its outputs bit for bit.
 */
#include <stdint.h>

#include "arm_dsp.h"
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"

/* The taps k in [0, n) whose position start + k * step lies in [0, limit): [*lo, *hi). */
static void dw_dsp_inside(int32_t start, int32_t step, int32_t n, int32_t limit, int32_t *lo, int32_t *hi)
{
    int32_t a = 0, b = n;
    while (a < b && start + a * step < 0) {
        ++a;
    }
    while (b > a && start + (b - 1) * step >= limit) {
        --b;
    }
    *lo = a;
    *hi = b;
}

/* One tap of four channels: input bytes at x (offset added), weights at w. */
#define DW_DSP_TAP(x, w)                                                                   \
    do {                                                                                   \
        const uint32_t xv_ = ap_dsp_load32(x), wv_ = ap_dsp_load32(w);                     \
        const uint32_t xe_ = ap_dsp_sxtab16(off2, xv_), xo_ = ap_dsp_sxtab16_ror8(off2, xv_); \
        const uint32_t we_ = ap_dsp_sxtb16(wv_), wo_ = ap_dsp_sxtb16_ror8(wv_);            \
        a0 = ap_dsp_smlabb(xe_, we_, a0);                                                  \
        a2 = ap_dsp_smlatt(xe_, we_, a2);                                                  \
        a1 = ap_dsp_smlabb(xo_, wo_, a1);                                                  \
        a3 = ap_dsp_smlatt(xo_, wo_, a3);                                                  \
    } while (0)

void ap_dw_direct_arm_dsp(const ap_dw_direct *d)
{
    /* a copy the output stores cannot alias: its fields stay in registers */
    const ap_requant rq = *d->requant;
    const int32_t C = d->channels, iw = d->input_w;
    const uint32_t off2 = ((uint32_t)d->input_offset & 0xffffu) | ((uint32_t)d->input_offset << 16);
    const int32_t groups = C / 4;
    for (int32_t oy = 0; oy < d->output_h; ++oy) {
        const int32_t y0 = oy * d->stride_h - d->pad_h;
        int32_t ky_lo, ky_hi;
        dw_dsp_inside(y0, d->dilation_h, d->filter_h, d->input_h, &ky_lo, &ky_hi);
        for (int32_t ox = 0; ox < d->output_w; ++ox) {
            const int32_t x0 = ox * d->stride_w - d->pad_w;
            int32_t kx_lo, kx_hi;
            dw_dsp_inside(x0, d->dilation_w, d->filter_w, iw, &kx_lo, &kx_hi);
            int8_t *out = d->out + ((size_t)oy * d->output_w + ox) * C;
            const size_t x_step = (size_t)d->dilation_w * C;
            for (int32_t g = 0; g < groups; ++g) {
                const int32_t c = 4 * g;
                int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
                for (int32_t ky = ky_lo; ky < ky_hi; ++ky) {
                    const int32_t iy = y0 + ky * d->dilation_h;
                    const int8_t *x = d->input + ((size_t)iy * iw + (size_t)(x0 + kx_lo * d->dilation_w)) * C + c;
                    const int8_t *w = d->w8 + ((size_t)ky * d->filter_w + kx_lo) * C + c;
                    int32_t kx = kx_lo;
                    /* whole rows of three taps (3 x 3 filters inside the image) unrolled */
                    if (kx_hi - kx_lo == 3) {
                        DW_DSP_TAP(x, w);
                        DW_DSP_TAP(x + x_step, w + C);
                        DW_DSP_TAP(x + 2 * x_step, w + 2 * C);
                        kx = kx_hi;
                    }
                    for (; kx < kx_hi; ++kx, x += x_step, w += C) {
                        DW_DSP_TAP(x, w);
                    }
                }
                out[c] = ap_dw_requant1(ap_ops_wrap_add(a0, d->bias[c]), &rq, c);
                out[c + 1] = ap_dw_requant1(ap_ops_wrap_add(a1, d->bias[c + 1]), &rq, c + 1);
                out[c + 2] = ap_dw_requant1(ap_ops_wrap_add(a2, d->bias[c + 2]), &rq, c + 2);
                out[c + 3] = ap_dw_requant1(ap_ops_wrap_add(a3, d->bias[c + 3]), &rq, c + 3);
            }
            /* the last channels % 4, one at a time (no word read past the last channel) */
            for (int32_t c = 4 * groups; c < C; ++c) {
                int32_t acc = 0;
                for (int32_t ky = ky_lo; ky < ky_hi; ++ky) {
                    const int32_t iy = y0 + ky * d->dilation_h;
                    for (int32_t kx = kx_lo; kx < kx_hi; ++kx) {
                        const int32_t ix = x0 + kx * d->dilation_w;
                        acc += (d->input[((size_t)iy * iw + ix) * C + c] + d->input_offset) *
                               d->w8[((size_t)ky * d->filter_w + kx) * C + c];
                    }
                }
                out[c] = ap_dw_requant1(ap_ops_wrap_add(acc, d->bias[c]), &rq, c);
            }
        }
    }
}
