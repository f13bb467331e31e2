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
#include "conv2d_s8_internal.h"

#include "arm_dsp.h"
#include "requant_arm_dsp.h"

/* The requantisation constants of one run. */
typedef struct conv_dsp_quant {
    const int32_t *bias, *multiplier, *shift;
    size_t per_channel;   /* 1 or 0: the multiplier index is oc * per_channel */
    int32_t output_offset, act_min, act_max;
    int mode;             /* the context's requant_mode (AP_DSP_REQUANT_*) */
} conv_dsp_quant;

/* The output of sum x (bias included) with channel multiplier m and shift sh. */
static inline int8_t conv_dsp_requant(const conv_dsp_quant *q, int32_t x, int32_t m, int32_t sh)
{
    if (q->mode == AP_DSP_REQUANT_FAST) {
        return (int8_t)ap_dsp_requant_fast(x, m, sh, q->output_offset);
    }
    if (q->mode == AP_DSP_REQUANT_WIDE) {
        return (int8_t)ap_dsp_requant_wide(x, m, sh, q->output_offset);
    }
    int32_t v = ap_fp_multiply_by_nonneg_multiplier(x, m, sh) + q->output_offset;
    v = v < q->act_min ? q->act_min : v;
    v = v > q->act_max ? q->act_max : v;
    return (int8_t)v;
}

/* Channel oc's outputs of two pixels from their accumulators (mod 2^32). */
static inline void conv_dsp_out2(const conv_dsp_quant *q, size_t oc, uint32_t s0, uint32_t s1,
                                 int8_t *o0, int8_t *o1)
{
    const uint32_t b = (uint32_t)q->bias[oc];
    const int32_t m = q->multiplier[oc * q->per_channel], sh = q->shift[oc * q->per_channel];
    *o0 = conv_dsp_requant(q, (int32_t)(s0 + b), m, sh);
    *o1 = conv_dsp_requant(q, (int32_t)(s1 + b), m, sh);
}

static inline int8_t conv_dsp_out1(const conv_dsp_quant *q, size_t oc, uint32_t s)
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

/* ------------------------------------------------------------------------------------------ */
/* im2col16_rows_4: four pixels' im2col rows widened to int16 once, in scratch, then one     */
/* channel at a time against all four.                                                       */

/*
 * Scratch layout (ap_conv2d_im2col16_scratch_bytes): the columns, 8 * k_pad bytes, per group
 * of 4 k values 32 bytes: pixel 0's two words (SXTB16 and SXTB16 ROR 8 of its four bytes),
 * then pixels 1, 2 and 3's; after them k_pad bytes where a pixel's int8 row is gathered
 * before it is widened. Widening once per pixel instead of once per channel pair leaves the
 * weights' two extensions, shared by four pixels: per group 1 + 2 loads (an LDM of both
 * pixel pairs' words at a time), 2 extensions and 8 SMLADs for 16 multiply-adds, against
 * 20 instructions in the rows kernel.
 */
#if AP_ARM_DSP_NATIVE
/* LDM loads its list in register order: the four words of a pixel pair go to fixed,
   ascending registers. */
#define CONV_DSP_GROUP_4X1()                                                               \
    __asm__("ldr %[v], [%[w]], #16\n\t"                                                    \
            "ldm %[a]!, {%[e0], %[o0], %[e1], %[o1]}\n\t"                                  \
            "sxtb16 %[ve], %[v]\n\t"                                                       \
            "sxtb16 %[v], %[v], ror #8\n\t"                                                \
            "smlad %[s0], %[e0], %[ve], %[s0]\n\t"                                         \
            "smlad %[s0], %[o0], %[v], %[s0]\n\t"                                          \
            "smlad %[s1], %[e1], %[ve], %[s1]\n\t"                                         \
            "smlad %[s1], %[o1], %[v], %[s1]\n\t"                                          \
            "ldm %[a]!, {%[e0], %[o0], %[e1], %[o1]}\n\t"                                  \
            "smlad %[s2], %[e0], %[ve], %[s2]\n\t"                                         \
            "smlad %[s2], %[o0], %[v], %[s2]\n\t"                                          \
            "smlad %[s3], %[e1], %[ve], %[s3]\n\t"                                         \
            "smlad %[s3], %[o1], %[v], %[s3]\n\t"                                          \
            : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [a] "+r"(a),     \
              [w] "+r"(w), [v] "=&r"(v), [ve] "=&r"(ve), [e0] "=&r"(e0), [o0] "=&r"(o0),   \
              [e1] "=&r"(e1), [o1] "=&r"(o1)                                               \
            :                                                                              \
            : "memory")
#else
#define CONV_DSP_GROUP_4X1()                                                               \
    do {                                                                                   \
        v = ap_dsp_load32(w);                                                              \
        ve = ap_dsp_sxtb16(v);                                                             \
        v = ap_dsp_sxtb16_ror8(v);                                                         \
        s0 = ap_dsp_smlad(a[1], v, ap_dsp_smlad(a[0], ve, s0));                            \
        s1 = ap_dsp_smlad(a[3], v, ap_dsp_smlad(a[2], ve, s1));                            \
        s2 = ap_dsp_smlad(a[5], v, ap_dsp_smlad(a[4], ve, s2));                            \
        s3 = ap_dsp_smlad(a[7], v, ap_dsp_smlad(a[6], ve, s3));                            \
        a += 8;                                                                            \
        w += 16;                                                                           \
    } while (0)
#endif

/* Four pixels' int16 columns (cols) x one channel (weight words at w, groups 16 bytes apart). */
static void conv_dsp_4x1(const uint32_t *cols, const int8_t *w, size_t groups, uint32_t s[4])
{
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    const uint32_t *a = cols;
    uint32_t v, ve;
#if AP_ARM_DSP_NATIVE
    register uint32_t e0 __asm__("r8");
    register uint32_t o0 __asm__("r9");
    register uint32_t e1 __asm__("r10");
    register uint32_t o1 __asm__("r11");
#endif
    for (size_t g = groups / 2; g > 0; --g) {
        CONV_DSP_GROUP_4X1();
        CONV_DSP_GROUP_4X1();
    }
    if (groups % 2 != 0) {
        CONV_DSP_GROUP_4X1();
    }
    s[0] = (uint32_t)s0;
    s[1] = (uint32_t)s1;
    s[2] = (uint32_t)s2;
    s[3] = (uint32_t)s3;
}

/* Pixel i (0..3) of the tile into the columns: its int8 row (gathered into row unless it is
   the input's own, a pointwise layer with k a multiple of 4) widened into its two words a
   group. */
static void conv_dsp_widen(const ap_conv2d_ctx *c, size_t pixel, int direct_rows, int8_t *row,
                           uint32_t *cols, size_t i)
{
    const size_t groups = c->k_pad / AP_CONV2D_KB;
    const int8_t *src = row;
    if (direct_rows) {
        src = c->input + pixel * c->k;
    } else {
        ap_conv2d_s8_gather(c, pixel, row);
    }
    for (size_t g = 0; g < groups; ++g) {
        ap_dsp_widen4(src + 4 * g, cols + 8 * g + 2 * i);
    }
}

/* The kernel's loops with the requantisation's form a constant (always inlined once per
   form), so that no test of it runs per channel. */
static inline __attribute__((always_inline)) void conv_dsp_im2col16(const ap_conv2d_ctx *c, void *scratch,
                                                                    size_t total, const int mode)
{
    const conv_dsp_quant q = {c->bias, c->multiplier, c->shift, c->per_channel ? 1u : 0u,
                              c->output_offset, c->act_min, c->act_max, mode};
    const size_t groups = c->k_pad / AP_CONV2D_KB, oc_n = c->oc, block_stride = c->w_block_stride;
    uint32_t *cols = (uint32_t *)scratch;
    int8_t *row = (int8_t *)scratch + 8 * c->k_pad;
    const int direct_rows = ap_conv2d_gemm_1x1_applies(c->p) && c->k == c->k_pad;
    for (size_t p0 = 0; p0 < total; p0 += AP_CONV2D_COLS16) {
        const size_t n = total - p0 < AP_CONV2D_COLS16 ? total - p0 : AP_CONV2D_COLS16;
        int8_t *out = c->output + p0 * oc_n;
        if (n <= 2) {
            /* a last tile of one or two pixels: the rows kernel on their int8 rows (gathered
               where the columns would go) computes no repeated pixel, where the four-pixel
               loop would run two or three for nothing (VWW's convs of 3x3 pixels: a third) */
            const int8_t *rows[2];
            for (size_t i = 0; i < n; ++i) {
                if (direct_rows) {
                    rows[i] = c->input + (p0 + i) * c->k;
                } else {
                    int8_t *dst = (int8_t *)scratch + i * c->k_pad;
                    ap_conv2d_s8_gather(c, p0 + i, dst);
                    rows[i] = dst;
                }
            }
            ap_conv2d_s8_rows_arm_dsp(c, rows, n, out);
            continue;
        }
        /* a last tile of three repeats its last pixel; those outputs are not stored */
        for (size_t i = 0; i < AP_CONV2D_COLS16; ++i) {
            conv_dsp_widen(c, p0 + (i < n ? i : n - 1), direct_rows, row, cols, i);
        }
        for (size_t oc = 0; oc < oc_n; ++oc) {
            uint32_t s[4];
            const uint32_t b = (uint32_t)q.bias[oc];
            const int32_t m = q.multiplier[oc * q.per_channel], sh = q.shift[oc * q.per_channel];
            conv_dsp_4x1(cols, c->weights + oc / AP_CONV2D_OB * block_stride + 4 * (oc % AP_CONV2D_OB),
                         groups, s);
            int8_t *o = out + oc;
            if (mode == AP_DSP_REQUANT_FAST) {
                for (size_t i = 0; i < n; ++i, o += oc_n) {
                    *o = (int8_t)ap_dsp_requant_fast((int32_t)(s[i] + b), m, sh, q.output_offset);
                }
            } else if (mode == AP_DSP_REQUANT_WIDE && sh == 0) {
                for (size_t i = 0; i < n; ++i, o += oc_n) {
                    *o = (int8_t)ap_dsp_requant_wide0((int32_t)(s[i] + b), m, q.output_offset);
                }
            } else if (mode == AP_DSP_REQUANT_WIDE) {
                const int32_t e1 = -sh - 1;
                for (size_t i = 0; i < n; ++i, o += oc_n) {
                    *o = (int8_t)ap_dsp_requant_wide_e((int32_t)(s[i] + b), m, e1, q.output_offset);
                }
            } else {
                for (size_t i = 0; i < n; ++i, o += oc_n) {
                    *o = conv_dsp_requant(&q, (int32_t)(s[i] + b), m, sh);
                }
            }
        }
    }
}

void ap_conv2d_s8_im2col16_arm_dsp(const ap_conv2d_ctx *c, void *scratch, size_t total)
{
    if (c->requant_mode == AP_DSP_REQUANT_FAST) {
        conv_dsp_im2col16(c, scratch, total, AP_DSP_REQUANT_FAST);
    } else if (c->requant_mode == AP_DSP_REQUANT_WIDE) {
        conv_dsp_im2col16(c, scratch, total, AP_DSP_REQUANT_WIDE);
    } else {
        conv_dsp_im2col16(c, scratch, total, AP_DSP_REQUANT_GENERAL);
    }
}
