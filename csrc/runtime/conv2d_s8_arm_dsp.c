/*
 * CONV_2D int8, arm-dsp: the rows function (ap_conv2d_rows_fn) every conv variant's driver
 * calls -- gemm_1x1 straight on the input, im2col_rows and im2col over their scratch -- so
 * each of them runs SMLAD code with no memory of its own beyond a few registers' spill.
 *
 * The packed filter is the portable one: per block of 4 output channels and group of 4
 * k values, 16 bytes, channel j's four weights one word at 4 * j. A word of four int8
 * values becomes two words of int16 lanes, SXTB16 (bytes 0 and 2) and SXTB16 ROR 8 (bytes
 * 1 and 3); the same split of the im2col row pairs each lane with its weight, so two
 * SMLADs take four products. Pixels go in pairs against channel pairs (2 x 2 accumulators:
 * per group of 4 k values 2 + 2 loads, 8 extensions, 8 SMLADs for 16 multiply-adds); an odd
 * pixel takes four channels at once. The sums wrap in 32 bits as the portable kernel's do,
 * so the outputs are its outputs bit for bit.
 */
#include "conv2d_s8_internal.h"

#include "arm_dsp.h"

/* Two pixels (rows a0, a1) x two channels (weight words at w and w + 4, groups 16 bytes
   apart): s[0], s[1] for a0, s[2], s[3] for a1. */
static void conv_dsp_2x2(const int8_t *a0, const int8_t *a1, const int8_t *w, size_t groups,
                         uint32_t s[4])
{
    int32_t p0c0 = 0, p0c1 = 0, p1c0 = 0, p1c1 = 0;
    for (size_t g = 0; g < groups; ++g, a0 += 4, a1 += 4, w += 16) {
        const uint32_t x0 = ap_dsp_load32(a0), x1 = ap_dsp_load32(a1);
        const uint32_t x0e = ap_dsp_sxtb16(x0), x0o = ap_dsp_sxtb16_ror8(x0);
        const uint32_t x1e = ap_dsp_sxtb16(x1), x1o = ap_dsp_sxtb16_ror8(x1);
        uint32_t v = ap_dsp_load32(w);
        uint32_t ve = ap_dsp_sxtb16(v), vo = ap_dsp_sxtb16_ror8(v);
        p0c0 = ap_dsp_smlad(x0o, vo, ap_dsp_smlad(x0e, ve, p0c0));
        p1c0 = ap_dsp_smlad(x1o, vo, ap_dsp_smlad(x1e, ve, p1c0));
        v = ap_dsp_load32(w + 4);
        ve = ap_dsp_sxtb16(v);
        vo = ap_dsp_sxtb16_ror8(v);
        p0c1 = ap_dsp_smlad(x0o, vo, ap_dsp_smlad(x0e, ve, p0c1));
        p1c1 = ap_dsp_smlad(x1o, vo, ap_dsp_smlad(x1e, ve, p1c1));
    }
    s[0] = (uint32_t)p0c0;
    s[1] = (uint32_t)p0c1;
    s[2] = (uint32_t)p1c0;
    s[3] = (uint32_t)p1c1;
}

/* One pixel (row a) x the four channels of a block. */
static void conv_dsp_1x4(const int8_t *a, const int8_t *w, size_t groups, uint32_t s[4])
{
    int32_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    for (size_t g = 0; g < groups; ++g, a += 4, w += 16) {
        const uint32_t x = ap_dsp_load32(a);
        const uint32_t xe = ap_dsp_sxtb16(x), xo = ap_dsp_sxtb16_ror8(x);
        uint32_t v = ap_dsp_load32(w);
        c0 = ap_dsp_smlad(ap_dsp_sxtb16_ror8(v), xo, ap_dsp_smlad(ap_dsp_sxtb16(v), xe, c0));
        v = ap_dsp_load32(w + 4);
        c1 = ap_dsp_smlad(ap_dsp_sxtb16_ror8(v), xo, ap_dsp_smlad(ap_dsp_sxtb16(v), xe, c1));
        v = ap_dsp_load32(w + 8);
        c2 = ap_dsp_smlad(ap_dsp_sxtb16_ror8(v), xo, ap_dsp_smlad(ap_dsp_sxtb16(v), xe, c2));
        v = ap_dsp_load32(w + 12);
        c3 = ap_dsp_smlad(ap_dsp_sxtb16_ror8(v), xo, ap_dsp_smlad(ap_dsp_sxtb16(v), xe, c3));
    }
    s[0] = (uint32_t)c0;
    s[1] = (uint32_t)c1;
    s[2] = (uint32_t)c2;
    s[3] = (uint32_t)c3;
}

void ap_conv2d_s8_rows_arm_dsp(const ap_conv2d_ctx *c, const int8_t *const *a, size_t mr, int8_t *out)
{
    const size_t groups = c->k_pad / AP_CONV2D_KB;
    const size_t blocks = c->oc_pad / AP_CONV2D_OB;
    size_t r = 0;
    for (; r + 2 <= mr; r += 2) {
        int8_t *out0 = out + r * c->oc, *out1 = out0 + c->oc;
        for (size_t b = 0; b < blocks; ++b) {
            const int8_t *w = c->weights + b * c->w_block_stride;
            for (size_t j = 0; j < AP_CONV2D_OB; j += 2) {
                const size_t oc = b * AP_CONV2D_OB + j;
                uint32_t s[4];
                if (oc >= c->oc) {
                    break;
                }
                conv_dsp_2x2(a[r], a[r + 1], w + 4 * j, groups, s);
                out0[oc] = ap_conv2d_requant1(c, oc, s[0]);
                out1[oc] = ap_conv2d_requant1(c, oc, s[2]);
                if (oc + 1 < c->oc) {
                    out0[oc + 1] = ap_conv2d_requant1(c, oc + 1, s[1]);
                    out1[oc + 1] = ap_conv2d_requant1(c, oc + 1, s[3]);
                }
            }
        }
    }
    for (; r < mr; ++r) {
        int8_t *o = out + r * c->oc;
        for (size_t b = 0; b < blocks; ++b) {
            uint32_t s[4];
            conv_dsp_1x4(a[r], c->weights + b * c->w_block_stride, groups, s);
            for (size_t j = 0; j < AP_CONV2D_OB && b * AP_CONV2D_OB + j < c->oc; ++j) {
                o[b * AP_CONV2D_OB + j] = ap_conv2d_requant1(c, b * AP_CONV2D_OB + j, s[j]);
            }
        }
    }
}
