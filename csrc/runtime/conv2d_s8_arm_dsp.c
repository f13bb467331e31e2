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
 *
 * The requantisation reads a channel's bias, multiplier and shift once for both pixels of a
 * pair, from a copy of the constants in locals: the int8 stores may alias anything, so
 * through the context the compiler would reload every field after every store.
 */
#include "conv2d_s8_arm_dsp.h"

/* Channel oc's outputs of two pixels from their accumulators (mod 2^32). */
static inline __attribute__((always_inline)) void conv_dsp_out2(const conv_dsp_quant *q, size_t oc,
                                                                uint32_t s0, uint32_t s1, int8_t *o0,
                                                                int8_t *o1)
{
    const uint32_t b = (uint32_t)q->bias[oc];
    const int32_t m = q->multiplier[oc * q->per_channel], sh = q->shift[oc * q->per_channel];
    *o0 = conv_dsp_requant(q, (int32_t)(s0 + b), m, sh);
    *o1 = conv_dsp_requant(q, (int32_t)(s1 + b), m, sh);
}

static inline __attribute__((always_inline)) int8_t conv_dsp_out1(const conv_dsp_quant *q, size_t oc,
                                                                  uint32_t s)
{
    const uint32_t b = (uint32_t)q->bias[oc];
    const int32_t m = q->multiplier[oc * q->per_channel], sh = q->shift[oc * q->per_channel];
    return conv_dsp_requant(q, (int32_t)(s + b), m, sh);
}

/* One group of 4 k values of two pixels (words at a0, a1) x two channels (weight words at w
   and w + 4), the pointers stepped past it: 20 instructions on a DSP core, in one asm block
   so that the compiler cannot hoist loads across groups and spill the accumulators. */
#if AP_ARM_DSP_NATIVE
#define CONV_DSP_GROUP_2X2()                                                               \
    __asm__("ldr %[x0], [%[a0]], #4\n\t"                                                   \
            "ldr %[x1], [%[a1]], #4\n\t"                                                   \
            "ldr %[v], [%[w]], #16\n\t"                                                    \
            "sxtb16 %[e0], %[x0]\n\t"                                                      \
            "sxtb16 %[x0], %[x0], ror #8\n\t"                                              \
            "sxtb16 %[e1], %[x1]\n\t"                                                      \
            "sxtb16 %[x1], %[x1], ror #8\n\t"                                              \
            "sxtb16 %[ve], %[v]\n\t"                                                       \
            "sxtb16 %[v], %[v], ror #8\n\t"                                                \
            "smlad %[p00], %[e0], %[ve], %[p00]\n\t"                                       \
            "smlad %[p10], %[e1], %[ve], %[p10]\n\t"                                       \
            "smlad %[p00], %[x0], %[v], %[p00]\n\t"                                        \
            "smlad %[p10], %[x1], %[v], %[p10]\n\t"                                        \
            "ldr %[v], [%[w], #-12]\n\t"                                                   \
            "sxtb16 %[ve], %[v]\n\t"                                                       \
            "sxtb16 %[v], %[v], ror #8\n\t"                                                \
            "smlad %[p01], %[e0], %[ve], %[p01]\n\t"                                       \
            "smlad %[p11], %[e1], %[ve], %[p11]\n\t"                                       \
            "smlad %[p01], %[x0], %[v], %[p01]\n\t"                                        \
            "smlad %[p11], %[x1], %[v], %[p11]\n\t"                                        \
            : [p00] "+r"(p00), [p01] "+r"(p01), [p10] "+r"(p10), [p11] "+r"(p11),          \
              [a0] "+r"(a0), [a1] "+r"(a1), [w] "+r"(w), [x0] "=&r"(x0), [x1] "=&r"(x1),   \
              [e0] "=&r"(e0), [e1] "=&r"(e1), [v] "=&r"(v), [ve] "=&r"(ve)                 \
            :                                                                              \
            : "memory")
#else
#define CONV_DSP_GROUP_2X2()                                                               \
    do {                                                                                   \
        x0 = ap_dsp_load32(a0);                                                            \
        x1 = ap_dsp_load32(a1);                                                            \
        e0 = ap_dsp_sxtb16(x0);                                                            \
        x0 = ap_dsp_sxtb16_ror8(x0);                                                       \
        e1 = ap_dsp_sxtb16(x1);                                                            \
        x1 = ap_dsp_sxtb16_ror8(x1);                                                       \
        v = ap_dsp_load32(w);                                                              \
        ve = ap_dsp_sxtb16(v);                                                             \
        v = ap_dsp_sxtb16_ror8(v);                                                         \
        p00 = ap_dsp_smlad(x0, v, ap_dsp_smlad(e0, ve, p00));                              \
        p10 = ap_dsp_smlad(x1, v, ap_dsp_smlad(e1, ve, p10));                              \
        v = ap_dsp_load32(w + 4);                                                          \
        ve = ap_dsp_sxtb16(v);                                                             \
        v = ap_dsp_sxtb16_ror8(v);                                                         \
        p01 = ap_dsp_smlad(x0, v, ap_dsp_smlad(e0, ve, p01));                              \
        p11 = ap_dsp_smlad(x1, v, ap_dsp_smlad(e1, ve, p11));                              \
        a0 += 4;                                                                           \
        a1 += 4;                                                                           \
        w += 16;                                                                           \
    } while (0)
#endif

/* Two pixels (rows a0, a1) x two channels (weight words at w and w + 4, groups 16 bytes
   apart): s[0], s[1] for a0, s[2], s[3] for a1. Two groups a turn halve the loop's cost. */
static void conv_dsp_2x2(const int8_t *a0, const int8_t *a1, const int8_t *w, size_t groups,
                         uint32_t s[4])
{
    int32_t p00 = 0, p01 = 0, p10 = 0, p11 = 0;
    uint32_t x0, x1, e0, e1, v, ve;
    for (size_t g = groups / 2; g > 0; --g) {
        CONV_DSP_GROUP_2X2();
        CONV_DSP_GROUP_2X2();
    }
    if (groups % 2 != 0) {
        CONV_DSP_GROUP_2X2();
    }
    s[0] = (uint32_t)p00;
    s[1] = (uint32_t)p01;
    s[2] = (uint32_t)p10;
    s[3] = (uint32_t)p11;
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

/* Every channel of one pixel pair (rows a0, a1 -> out0, out1). Always inlined with a
   constant q->mode, so each requantisation's form is chosen once, outside the loop. */
static inline __attribute__((always_inline)) void conv_dsp_pair(const ap_conv2d_ctx *c,
                                                                const conv_dsp_quant *q,
                                                                const int8_t *a0, const int8_t *a1,
                                                                int8_t *out0, int8_t *out1)
{
    const size_t groups = c->k_pad / AP_CONV2D_KB, oc_n = c->oc, block_stride = c->w_block_stride;
    for (size_t oc = 0; oc < oc_n; oc += 2) {
        uint32_t s[4];
        conv_dsp_2x2(a0, a1, c->weights + oc / AP_CONV2D_OB * block_stride + 4 * (oc % AP_CONV2D_OB),
                     groups, s);
        conv_dsp_out2(q, oc, s[0], s[2], &out0[oc], &out1[oc]);
        if (oc + 1 < oc_n) {
            conv_dsp_out2(q, oc + 1, s[1], s[3], &out0[oc + 1], &out1[oc + 1]);
        }
    }
}

void ap_conv2d_s8_rows_arm_dsp(const ap_conv2d_ctx *c, const int8_t *const *a, size_t mr, int8_t *out)
{
    conv_dsp_quant q = {c->bias, c->multiplier, c->shift, c->per_channel ? 1u : 0u,
                        c->output_offset, c->act_min, c->act_max, 0};
    const int8_t *const weights = c->weights;
    const size_t groups = c->k_pad / AP_CONV2D_KB, oc_n = c->oc;
    size_t r = 0;
    for (; r + 2 <= mr; r += 2) {
        int8_t *out0 = out + r * oc_n;
        if (c->requant_mode == AP_DSP_REQUANT_FAST) {
            q.mode = AP_DSP_REQUANT_FAST;
            conv_dsp_pair(c, &q, a[r], a[r + 1], out0, out0 + oc_n);
        } else if (c->requant_mode == AP_DSP_REQUANT_WIDE) {
            q.mode = AP_DSP_REQUANT_WIDE;
            conv_dsp_pair(c, &q, a[r], a[r + 1], out0, out0 + oc_n);
        } else {
            q.mode = AP_DSP_REQUANT_GENERAL;
            conv_dsp_pair(c, &q, a[r], a[r + 1], out0, out0 + oc_n);
        }
    }
    q.mode = c->requant_mode;
    for (; r < mr; ++r) {
        int8_t *o = out + r * oc_n;
        for (size_t oc = 0; oc < oc_n; oc += AP_CONV2D_OB) {
            uint32_t s[4];
            conv_dsp_1x4(a[r], weights + oc / AP_CONV2D_OB * c->w_block_stride, groups, s);
            for (size_t j = 0; j < AP_CONV2D_OB && oc + j < oc_n; ++j) {
                o[oc + j] = conv_dsp_out1(&q, oc + j, s[j]);
            }
        }
    }
}
