/*
 * CONV_2D int8, arm-dsp: the variants over int16 im2col columns in scratch --
 * im2col16_rows_2 and _4 (2 or 4 pixels' columns against the packed int8 weights) and
 * im2col16w_rows_4 (the weights widened too, into a table in scratch, once a run) -- and the
 * asm routines that run their full tiles. A last tile of one or two pixels takes the rows
 * kernel (conv2d_s8_arm_dsp.c).
 */
#include "conv2d_s8_arm_dsp.h"

#include <stddef.h>

/*
 * Scratch (im2col16_rows_C, C = 2 or 4): the columns, 2 * C * k_pad bytes, per group of 4 k
 * values 8 * C bytes: pixel 0's two words (SXTB16 and SXTB16 ROR 8 of its four bytes), then
 * pixel 1's, ...; after them k_pad bytes where a pixel's int8 row is gathered before it is
 * widened. Widening once per pixel instead of once per channel pair leaves the weights' two
 * extensions, shared by the tile's pixels: with four, per group 1 + 2 loads (an LDM of both
 * pixel pairs' words at a time), 2 extensions and 8 SMLADs for 16 multiply-adds, against 20
 * instructions in the rows kernel.
 */
/* The instruction texts of a group, in the operands' names (v and ve the weight word's lane
   words, a the columns, w the weights, e0-o1 two pixels' words, s0-s3 the sums): one text
   serves the compiled loops' inline asm (named operands) and the tile routines (fixed
   registers). First the end of the four-pixel groups: the multiply-adds of four pixels' words
   (two LDMs of a pixel pair) by a weight word's even (lo) and odd (hi) lanes. */
#define CONV_DSP_4PX_MACS(lo, hi, a, e0, o0, e1, o1, s0, s1, s2, s3)                       \
    "smlad " s0 ", " e0 ", " lo ", " s0 "\n\t"                                             \
    "smlad " s0 ", " o0 ", " hi ", " s0 "\n\t"                                             \
    "smlad " s1 ", " e1 ", " lo ", " s1 "\n\t"                                             \
    "smlad " s1 ", " o1 ", " hi ", " s1 "\n\t"                                             \
    "ldm " a "!, {" e0 ", " o0 ", " e1 ", " o1 "}\n\t"                                     \
    "smlad " s2 ", " e0 ", " lo ", " s2 "\n\t"                                             \
    "smlad " s2 ", " o0 ", " hi ", " s2 "\n\t"                                             \
    "smlad " s3 ", " e1 ", " lo ", " s3 "\n\t"                                             \
    "smlad " s3 ", " o1 ", " hi ", " s3 "\n\t"
#define CONV_DSP_4X1_TEXT(v, ve, a, w, e0, o0, e1, o1, s0, s1, s2, s3)                     \
    "ldr " v ", [" w "], #16\n\t"                                                          \
    "ldm " a "!, {" e0 ", " o0 ", " e1 ", " o1 "}\n\t"                                     \
    "sxtb16 " ve ", " v "\n\t"                                                             \
    "sxtb16 " v ", " v ", ror #8\n\t"                                                      \
    CONV_DSP_4PX_MACS(ve, v, a, e0, o0, e1, o1, s0, s1, s2, s3)
/* The inline forms' named operands (e0-o1 pinned to r8-r11 by CONV_DSP_PIXEL_WORDS). */
#define CONV_DSP_NAMED                                                                     \
    "%[v]", "%[ve]", "%[a]", "%[w]", "%[e0]", "%[o0]", "%[e1]", "%[o1]", "%[s0]", "%[s1]", \
        "%[s2]", "%[s3]"
#define CONV_DSP_OPERANDS                                                                  \
    : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [a] "+r"(a),             \
      [w] "+r"(w), [v] "=&r"(v), [ve] "=&r"(ve), [e0] "=&r"(e0), [o0] "=&r"(o0),           \
      [e1] "=&r"(e1), [o1] "=&r"(o1)                                                       \
    :                                                                                      \
    : "memory"
/* The text with its operands (a macro of one argument expands the list before the call). */
#define CONV_DSP_ASM(TEXT, operands) TEXT(operands)

#if AP_ARM_DSP_NATIVE
/* LDM loads its list in register order: the four words of a pixel pair go to fixed,
   ascending registers. */
#define CONV_DSP_GROUP_4X1() __asm__(CONV_DSP_ASM(CONV_DSP_4X1_TEXT, CONV_DSP_NAMED) CONV_DSP_OPERANDS)
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

/* A tile's four sums over every group of 4 k values by one group macro (CONV_DSP_GROUP_*: sums
   s0-s3, weight words v and ve, column pointer a, weight pointer w, two pixels' words in e0-o1,
   on a DSP core fixed ascending registers for LDM), two groups a turn. The sums start from
   b0, b1, b0, b1 (the channels' biases: they wrap mod 2^32 as the portable kernel's sums do).
   Always inlined into the channel loops, so the sums go to the requantisation in registers. */
#if AP_ARM_DSP_NATIVE
#define CONV_DSP_PIXEL_WORDS                                                               \
    register uint32_t e0 __asm__("r8");                                                    \
    register uint32_t o0 __asm__("r9");                                                    \
    register uint32_t e1 __asm__("r10");                                                   \
    register uint32_t o1 __asm__("r11");
#else
#define CONV_DSP_PIXEL_WORDS
#endif
#define CONV_DSP_SUMS_FN(name, weight_t, GROUP)                                            \
    static inline __attribute__((always_inline)) void name(const uint32_t *cols, const weight_t *wt, \
                                                           size_t groups, int32_t b0, int32_t b1, \
                                                           int32_t s[4])                   \
    {                                                                                      \
        int32_t s0 = b0, s1 = b1, s2 = b0, s3 = b1;                                        \
        const uint32_t *a = cols;                                                          \
        const weight_t *w = wt;                                                            \
        uint32_t v, ve;                                                                    \
        CONV_DSP_PIXEL_WORDS                                                               \
        for (size_t g = groups / 2; g > 0; --g) {                                          \
            GROUP();                                                                       \
            GROUP();                                                                       \
        }                                                                                  \
        if (groups % 2 != 0) {                                                             \
            GROUP();                                                                       \
        }                                                                                  \
        s[0] = s0;                                                                         \
        s[1] = s1;                                                                         \
        s[2] = s2;                                                                         \
        s[3] = s3;                                                                         \
    }

/* Four pixels' int16 columns x one channel (weight words at w, groups 16 bytes apart): s[i]
   pixel i's sum (b0 == b1, the channel's bias). */
CONV_DSP_SUMS_FN(conv_dsp_cols4, int8_t, CONV_DSP_GROUP_4X1)

/*
 * im2col16_rows_2: two pixels' columns x two channels. Per group 1 LDM of both pixels' four
 * words, the two channels' weight words loaded and widened one after the other (2 loads and 4
 * extensions) and 8 SMLADs for 16 multiply-adds: 15 instructions, against 20 in the rows
 * kernel (which widens the pixels' values again for every channel pair) and 13 with four
 * columns. Half im2col16_rows_4's scratch.
 */
/* One channel's weight word (`load` puts it in v) widened and taken by two pixels' words:
   sums sa (pixel 0) and sb (pixel 1). */
#define CONV_DSP_2PX_CHANNEL(load, v, ve, e0, o0, e1, o1, sa, sb)                          \
    load                                                                                   \
    "sxtb16 " ve ", " v "\n\t"                                                             \
    "sxtb16 " v ", " v ", ror #8\n\t"                                                      \
    "smlad " sa ", " e0 ", " ve ", " sa "\n\t"                                             \
    "smlad " sa ", " o0 ", " v ", " sa "\n\t"                                              \
    "smlad " sb ", " e1 ", " ve ", " sb "\n\t"                                             \
    "smlad " sb ", " o1 ", " v ", " sb "\n\t"
#define CONV_DSP_2X2_TEXT(v, ve, a, w, e0, o0, e1, o1, s0, s1, s2, s3)                     \
    "ldm " a "!, {" e0 ", " o0 ", " e1 ", " o1 "}\n\t"                                     \
    CONV_DSP_2PX_CHANNEL("ldr " v ", [" w "], #16\n\t", v, ve, e0, o0, e1, o1, s0, s2)     \
    CONV_DSP_2PX_CHANNEL("ldr " v ", [" w ", #-12]\n\t", v, ve, e0, o0, e1, o1, s1, s3)
/* im2col16w_rows_4's: the weights already widened, lo and hi the table's two words (LDRD):
   its even lanes' and its odd lanes'. */
#define CONV_DSP_4W_TEXT(lo, hi, a, w, e0, o0, e1, o1, s0, s1, s2, s3)                     \
    "ldrd " lo ", " hi ", [" w "], #8\n\t"                                                 \
    "ldm " a "!, {" e0 ", " o0 ", " e1 ", " o1 "}\n\t"                                     \
    CONV_DSP_4PX_MACS(lo, hi, a, e0, o0, e1, o1, s0, s1, s2, s3)
#if AP_ARM_DSP_NATIVE
#define CONV_DSP_GROUP_2X2_16() __asm__(CONV_DSP_ASM(CONV_DSP_2X2_TEXT, CONV_DSP_NAMED) CONV_DSP_OPERANDS)
#else
#define CONV_DSP_GROUP_2X2_16()                                                            \
    do {                                                                                   \
        v = ap_dsp_load32(w);                                                              \
        ve = ap_dsp_sxtb16(v);                                                             \
        v = ap_dsp_sxtb16_ror8(v);                                                         \
        s0 = ap_dsp_smlad(a[1], v, ap_dsp_smlad(a[0], ve, s0));                            \
        s2 = ap_dsp_smlad(a[3], v, ap_dsp_smlad(a[2], ve, s2));                            \
        v = ap_dsp_load32(w + 4);                                                          \
        ve = ap_dsp_sxtb16(v);                                                             \
        v = ap_dsp_sxtb16_ror8(v);                                                         \
        s1 = ap_dsp_smlad(a[1], v, ap_dsp_smlad(a[0], ve, s1));                            \
        s3 = ap_dsp_smlad(a[3], v, ap_dsp_smlad(a[2], ve, s3));                            \
        a += 4;                                                                            \
        w += 16;                                                                           \
    } while (0)
#endif

/* Two pixels' int16 columns x channels oc and oc + 1 (weight words at w and w + 4), the sums
   starting from the channels' biases b0 and b1: s[0], s[1] pixel 0's, s[2], s[3] pixel 1's. */
CONV_DSP_SUMS_FN(conv_dsp_cols2, int8_t, CONV_DSP_GROUP_2X2_16)

/* Pixel i of the tile (cols16 of them) into the columns: its int8 row (gathered into row
   unless it is the input's own, a pointwise layer with k a multiple of 4) widened into its
   two words a group. */
static void conv_dsp_widen(const ap_conv2d_ctx *c, size_t pixel, int direct_rows, int8_t *row,
                           uint32_t *cols, size_t i, size_t cols16)
{
    const size_t groups = c->k_pad / AP_CONV2D_KB;
    const int8_t *src = row;
    if (direct_rows) {
        src = c->input + pixel * c->k;
    } else {
        ap_conv2d_s8_gather(c, pixel, row);
    }
    for (size_t g = 0; g < groups; ++g) {
        ap_dsp_widen4(src + 4 * g, cols + 2 * cols16 * g + 2 * i);
    }
}

/* The int8 output of sum x (bias included) of a channel with multiplier m and shift sh, in
   the layer's form (a constant where this is inlined; e = -sh, e1 = -sh - 1). */
static inline __attribute__((always_inline)) int8_t conv_dsp_out(const conv_dsp_quant *q, int32_t x,
                                                                 int32_t m, int32_t sh)
{
    if (q->mode == AP_DSP_REQUANT_FAST) {
        return (int8_t)ap_dsp_requant_fast_e(x, m, -sh, q->output_offset);
    }
    return conv_dsp_requant(q, x, m, sh);
}

/* One channel's outputs of n pixels (sums s, bias included) at o, o + stride, ...: the wide
   form's choice between its two shapes made once for the channel, not per output. */
static inline __attribute__((always_inline)) void conv_dsp_out_n(const conv_dsp_quant *q, const int32_t *s,
                                                                 size_t n, int32_t m, int32_t sh, int8_t *o,
                                                                 size_t stride)
{
    if (q->mode == AP_DSP_REQUANT_WIDE && sh == 0) {
        for (size_t i = 0; i < n; ++i, o += stride) {
            *o = (int8_t)ap_dsp_requant_wide0(s[i], m, q->output_offset);
        }
    } else if (q->mode == AP_DSP_REQUANT_WIDE) {
        const int32_t e1 = -sh - 1;
        for (size_t i = 0; i < n; ++i, o += stride) {
            *o = (int8_t)ap_dsp_requant_wide_e(s[i], m, e1, q->output_offset);
        }
    } else {
        for (size_t i = 0; i < n; ++i, o += stride) {
            *o = conv_dsp_out(q, s[i], m, sh);
        }
    }
}

/*
 * A whole tile in asm (a DSP core): one routine per tile width runs a block of up to four
 * channels from a table of their constants (im2col16w_rows_4: every channel, from its table in
 * scratch), the sums never leaving registers. Per channel of a four-pixel tile: 13
 * instructions a group of 4 k values (11 with the weights widened), then per output one of two
 * requantisations and the store:
 *   fast (sums below 2^29): ap_dsp_requant_fast_e's sequence with its last steps merged,
 *     (t & 1) + (t >> 1) + offset = (t + 2 * offset + 1) >> 1 with SSAT taking that shift
 *     (t + 2 * offset + 1 cannot overflow: |t| < 2^30): 7 instructions;
 *   wide (ap_dsp_wide_layer: any sum, every multiplier >= 0): ap_dsp_requant_wide_e's SRDHM
 *     from SMULL's full product and the same merged ending, the addition saturating (QADD: a
 *     t near 2^31 saturates to what SSAT makes of it anyway): 9 instructions; a channel whose
 *     shift is 0 (its table e is -1) takes ap_dsp_requant_wide0's 7 instead.
 * The compiled loops spent about 14 an output and 25 a channel reloading their constants.
 */
typedef struct conv_dsp_tile {
    const uint32_t *cols;   /* the tile's int16 columns */
    uint32_t pairs, odd;    /* groups / 2, groups % 2 (groups >= 1) */
    int32_t stride;         /* oc: bytes between a channel's outputs of successive pixels */
    int32_t round;          /* 2 * output offset + 1 */
    uint32_t channels;      /* of this block (im2col16w_rows_4: of the layer) */
    int32_t bias[4], mult[4], e[4];   /* fast: e = -shift; wide: e = -shift - 1 (-1: none) */
    int32_t offset;         /* the output offset (the wide form's channels of shift 0) */
} conv_dsp_tile;

/* The tile routines' forms of requantisation (conv_dsp_tile_form). */
enum { CONV_DSP_TILE_C = 0, CONV_DSP_TILE_FAST = 1, CONV_DSP_TILE_WIDE = 2 };

/* How a layer's full tiles run: in asm where a form applies, else the compiled loops. */
static int conv_dsp_tile_form(const ap_conv2d_ctx *c)
{
    const size_t step = c->per_channel ? 1 : 0;
    if (c->requant_mode == AP_DSP_REQUANT_FAST &&
        ap_dsp_fast_layer_below(c->bias, c->shift, step, c->oc, (uint64_t)c->k, 128u * 128u, c->act_min,
                                c->act_max, 29)) {
        return CONV_DSP_TILE_FAST;
    }
    return ap_dsp_wide_layer(c->multiplier, c->shift, step, c->oc, c->act_min, c->act_max) ? CONV_DSP_TILE_WIDE
                                                                                            : CONV_DSP_TILE_C;
}

/* The table's e of a channel of shift sh in a form. */
static inline int32_t conv_dsp_tile_e(int form, int32_t sh)
{
    return form == CONV_DSP_TILE_FAST ? -sh : -sh - 1;
}

#if AP_ARM_DSP_NATIVE && defined(__GNUC__)
#define CONV_DSP_TILE_ASM 1
#if defined(__clang__)
#define CONV_DSP_ASM_FN __attribute__((naked, noinline, used))
#else
#define CONV_DSP_ASM_FN __attribute__((naked, noinline, noclone, used))
#endif

/* The routines read conv_dsp_tile by these offsets. */
typedef char conv_dsp_tile_offsets_checked[offsetof(conv_dsp_tile, stride) == 12 &&
                                           offsetof(conv_dsp_tile, round) == 16 &&
                                           offsetof(conv_dsp_tile, channels) == 20 &&
                                           offsetof(conv_dsp_tile, bias) == 24 &&
                                           offsetof(conv_dsp_tile, mult) == 40 &&
                                           offsetof(conv_dsp_tile, e) == 56 &&
                                           offsetof(conv_dsp_tile, offset) == 72 ? 1 : -1];

/* Registers while a channel's groups run: r0-r3 the sums, r4 and r5 the weight word's two
   lane words (the widened table's: r4 its even lanes), r6 the columns, r7 the weights, r8-r11
   two pixels' words (LDM: ascending), r12 the count, lr the tile; the group texts in them. */
#define CONV_DSP_FIXED "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r0", "r1", "r2", "r3"
#define CONV_DSP_T4_GROUP CONV_DSP_ASM(CONV_DSP_4X1_TEXT, CONV_DSP_FIXED)
/* Two pixels x channels j (r0 pixel 0, r2 pixel 1) and j + 1 (r1, r3). */
#define CONV_DSP_T2_GROUP CONV_DSP_ASM(CONV_DSP_2X2_TEXT, CONV_DSP_FIXED)
/* im2col16w_rows_4: four pixels x one channel with its weights already widened (the table's
   two words, LDRD): 11 instructions for 16 multiply-adds. */
#define CONV_DSP_T4W_GROUP CONV_DSP_ASM(CONV_DSP_4W_TEXT, CONV_DSP_FIXED)
/* The groups of one channel (pair): pairs of groups, then an odd one. */
#define CONV_DSP_T_GROUPS(group)                                                           \
    "ldr r6, [lr]\n\t"                                                                     \
    "ldr r12, [lr, #4]\n\t"                                                                \
    "cmp r12, #0\n\t"                                                                      \
    "beq 3f\n\t"                                                                           \
    "2:\n\t" group group                                                                   \
    "subs r12, r12, #1\n\t"                                                                \
    "bne 2b\n\t"                                                                           \
    "3:\n\t"                                                                               \
    "ldr r12, [lr, #8]\n\t"                                                                \
    "cmp r12, #0\n\t"                                                                      \
    "beq 4f\n\t" group "4:\n\t"

/* Sum a (r0-r3) to its output in a: multiplier m, e and round rnd registers (r10, r11 and
   the flags clobbered). */
#define CONV_DSP_T_REQ_FAST(a, m, e, rnd)                                                  \
    "lsl r10, " a ", #1\n\t"                                                               \
    "smmulr r10, r10, " m "\n\t"                                                           \
    "lsl r11, r10, #1\n\t"                                                                 \
    "add r11, r11, r10, asr #31\n\t"                                                       \
    "asr r11, r11, " e "\n\t"                                                              \
    "add r11, r11, " rnd "\n\t"                                                            \
    "ssat " a ", #8, r11, asr #1\n\t"
#define CONV_DSP_T_SRDHM(a, m)                                                             \
    "smull r10, r11, " a ", " m "\n\t"                                                     \
    "adds r10, r10, #0x40000000\n\t"                                                       \
    "adc r11, r11, #0\n\t"                                                                 \
    "lsl r11, r11, #1\n\t"                                                                 \
    "orr r11, r11, r10, lsr #31\n\t"
#define CONV_DSP_T_REQ_WIDE(a, m, e, rnd)                                                  \
    CONV_DSP_T_SRDHM(a, m)                                                                 \
    "add r11, r11, r11, asr #31\n\t"                                                       \
    "asr r11, r11, " e "\n\t"                                                              \
    "qadd r11, r11, " rnd "\n\t"                                                           \
    "ssat " a ", #8, r11, asr #1\n\t"
/* rnd holds the plain output offset here */
#define CONV_DSP_T_REQ_WIDE0(a, m, e, rnd)                                                 \
    CONV_DSP_T_SRDHM(a, m)                                                                 \
    "qadd r11, r11, " rnd "\n\t"                                                           \
    "ssat " a ", #8, r11\n\t"

/* A channel's four outputs (sums r0-r3) at [r8] + i * r9. */
#define CONV_DSP_T_OUT4(REQ, m, e, rnd)                                                    \
    REQ("r0", m, e, rnd) "strb r0, [r8]\n\t"                                               \
    REQ("r1", m, e, rnd) "strb r1, [r8, r9]\n\t"                                           \
    REQ("r2", m, e, rnd) "strb r2, [r8, r9, lsl #1]\n\t"                                   \
    REQ("r3", m, e, rnd) "add r10, r8, r9\n\t" "strb r3, [r10, r9, lsl #1]\n\t"
/* A pair's channel of two outputs (sums a0, a1) at [r8 + at] and [r8 + at + r9]. */
#define CONV_DSP_T_OUT2(REQ, a0, a1, at, m, e, rnd)                                        \
    REQ(a0, m, e, rnd) "strb " a0 ", [r8, #" at "]\n\t"                                    \
    REQ(a1, m, e, rnd) "add r10, r8, #" at "\n\t" "strb " a1 ", [r10, r9]\n\t"
/* The wide form: the shape chosen once a channel (e < 0: a shift of 0). */
#define CONV_DSP_T_WIDE(OUT_WIDE, OUT_WIDE0, e, rnd)                                       \
    "ldr " rnd ", [lr, #16]\n\t"                                                           \
    "cmp " e ", #0\n\t"                                                                    \
    "blt 7f\n\t" OUT_WIDE "b 8f\n\t"                                                       \
    "7:\n\t"                                                                               \
    "ldr " rnd ", [lr, #72]\n\t" OUT_WIDE0 "8:\n\t"

#define CONV_DSP_T_OUT4_FAST(m, e, rnd) CONV_DSP_T_OUT4(CONV_DSP_T_REQ_FAST, m, e, rnd)
#define CONV_DSP_T_OUT4_WIDE(m, e, rnd)                                                    \
    CONV_DSP_T_WIDE(CONV_DSP_T_OUT4(CONV_DSP_T_REQ_WIDE, m, e, rnd),                       \
                    CONV_DSP_T_OUT4(CONV_DSP_T_REQ_WIDE0, m, e, rnd), e, rnd)
#define CONV_DSP_T_OUT2_FAST(a0, a1, at) CONV_DSP_T_OUT2(CONV_DSP_T_REQ_FAST, a0, a1, at, "r5", "r6", "r7")
#define CONV_DSP_T_OUT2_WIDE(a0, a1, at)                                                   \
    CONV_DSP_T_WIDE(CONV_DSP_T_OUT2(CONV_DSP_T_REQ_WIDE, a0, a1, at, "r5", "r6", "r7"),    \
                    CONV_DSP_T_OUT2(CONV_DSP_T_REQ_WIDE0, a0, a1, at, "r5", "r6", "r7"), "r6", "r7")

/* The frame of conv_dsp_block4 / _block2: [sp] channel 0's weights (its word of group 0),
   [sp, #4] its output, [sp, #8] the channel (pair) index j. */
#define CONV_DSP_T_ENTER                                                                   \
    "push {r4-r11, lr}\n\t"                                                                \
    "sub sp, sp, #16\n\t"                                                                  \
    "mov lr, r0\n\t"                                                                       \
    "str r1, [sp]\n\t"                                                                     \
    "str r2, [sp, #4]\n\t"                                                                 \
    "movs r3, #0\n\t"                                                                      \
    "str r3, [sp, #8]\n\t"
#define CONV_DSP_T_LEAVE                                                                   \
    "add sp, sp, #16\n\t"                                                                  \
    "pop {r4-r11, pc}\n\t"

/* The block routines' shared parts: a channel (pair) j's start (r7 its weights, r4 the tile
   plus 4j), its outputs' constants (r5 multiplier, r6 e, r7 round, r8 the output, r9 the
   stride), and the step to the next j. */
#define CONV_DSP_T_BLOCK_HEAD                                                              \
    "1:\n\t"                                                                               \
    "ldr r12, [sp, #8]\n\t"                                                                \
    "ldr r7, [sp]\n\t"                                                                     \
    "add r7, r7, r12, lsl #2\n\t"                                                          \
    "add r4, lr, r12, lsl #2\n\t"
#define CONV_DSP_T_OUT_SETUP                                                               \
    "ldr r12, [sp, #8]\n\t"                                                                \
    "add r4, lr, r12, lsl #2\n\t"                                                          \
    "ldr r5, [r4, #40]\n\t"                                                                \
    "ldr r6, [r4, #56]\n\t"                                                                \
    "ldr r7, [lr, #16]\n\t"                                                                \
    "ldr r8, [sp, #4]\n\t"                                                                 \
    "add r8, r8, r12\n\t"                                                                  \
    "ldr r9, [lr, #12]\n\t"
#define CONV_DSP_T_BLOCK_NEXT                                                              \
    "add r12, r12, #1\n\t"                                                                 \
    "str r12, [sp, #8]\n\t"                                                                \
    "ldr r4, [lr, #20]\n\t"                                                                \
    "cmp r12, r4\n\t"                                                                      \
    "blt 1b\n\t"

/* Four pixels x channels 0 .. channels - 1 of a block (w: channel 0's word of group 0), the
   outputs of channel j at out + j + i * stride. */
#define CONV_DSP_BLOCK4_FN(name, OUT4)                                                     \
    static CONV_DSP_ASM_FN void name(const conv_dsp_tile *t __attribute__((unused)),       \
                                     const int8_t *w __attribute__((unused)),              \
                                     int8_t *out __attribute__((unused)))                  \
    {                                                                                      \
        __asm__ volatile(CONV_DSP_T_ENTER                                                  \
                         CONV_DSP_T_BLOCK_HEAD                                             \
                         "ldr r0, [r4, #24]\n\t"                                           \
                         "mov r1, r0\n\t"                                                  \
                         "mov r2, r0\n\t"                                                  \
                         "mov r3, r0\n\t"                                                  \
                         CONV_DSP_T_GROUPS(CONV_DSP_T4_GROUP)                              \
                         CONV_DSP_T_OUT_SETUP                                              \
                         OUT4("r5", "r6", "r7")                                            \
                         CONV_DSP_T_BLOCK_NEXT                                             \
                         CONV_DSP_T_LEAVE);                                                \
    }

/* Two pixels x the channel pairs (j, j + 1) of a block; a pair's second channel past
   `channels` (a zero-weight padding channel) is computed, not stored. */
#define CONV_DSP_BLOCK2_FN(name, OUT2)                                                     \
    static CONV_DSP_ASM_FN void name(const conv_dsp_tile *t __attribute__((unused)),       \
                                     const int8_t *w __attribute__((unused)),              \
                                     int8_t *out __attribute__((unused)))                  \
    {                                                                                      \
        __asm__ volatile(CONV_DSP_T_ENTER                                                  \
                         CONV_DSP_T_BLOCK_HEAD                                             \
                         "ldrd r0, r1, [r4, #24]\n\t"                                      \
                         "mov r2, r0\n\t"                                                  \
                         "mov r3, r1\n\t"                                                  \
                         CONV_DSP_T_GROUPS(CONV_DSP_T2_GROUP)                              \
                         CONV_DSP_T_OUT_SETUP                                              \
                         OUT2("r0", "r2", "0")                                             \
                         "add r12, r12, #1\n\t"                                            \
                         "ldr r5, [lr, #20]\n\t"                                           \
                         "cmp r12, r5\n\t"                                                 \
                         "bge 5f\n\t"                                                      \
                         "ldr r5, [r4, #44]\n\t"                                           \
                         "ldr r6, [r4, #60]\n\t"                                           \
                         "ldr r7, [lr, #16]\n\t"                                           \
                         OUT2("r1", "r3", "1")                                             \
                         "5:\n\t"                                                          \
                         CONV_DSP_T_BLOCK_NEXT                                             \
                         CONV_DSP_T_LEAVE);                                                \
    }

/* Four pixels x every channel of im2col16w_rows_4, its table (r1: per channel its bias, its
   groups' weight words, its multiplier and e) walked once; the outputs of channel j at out +
   j + i * stride. The frame: [sp] the channel's output, [sp, #4] the channels left. */
#define CONV_DSP_TILE4W_FN(name, OUT4)                                                     \
    static CONV_DSP_ASM_FN void name(const conv_dsp_tile *t __attribute__((unused)),       \
                                     const uint32_t *table __attribute__((unused)),        \
                                     int8_t *out __attribute__((unused)))                  \
    {                                                                                      \
        __asm__ volatile("push {r4-r11, lr}\n\t"                                           \
                         "sub sp, sp, #8\n\t"                                              \
                         "mov lr, r0\n\t"                                                  \
                         "mov r7, r1\n\t"                                                  \
                         "str r2, [sp]\n\t"                                                \
                         "ldr r3, [lr, #20]\n\t"                                           \
                         "str r3, [sp, #4]\n\t"                                            \
                         "1:\n\t"                                                          \
                         "ldr r0, [r7], #4\n\t"                                            \
                         "mov r1, r0\n\t"                                                  \
                         "mov r2, r0\n\t"                                                  \
                         "mov r3, r0\n\t"                                                  \
                         CONV_DSP_T_GROUPS(CONV_DSP_T4W_GROUP)                             \
                         "ldrd r4, r5, [r7], #8\n\t"                                       \
                         "ldr r6, [lr, #16]\n\t"                                           \
                         "ldr r8, [sp]\n\t"                                                \
                         "ldr r9, [lr, #12]\n\t"                                           \
                         OUT4("r4", "r5", "r6")                                            \
                         "add r8, r8, #1\n\t"                                              \
                         "str r8, [sp]\n\t"                                                \
                         "ldr r12, [sp, #4]\n\t"                                           \
                         "subs r12, r12, #1\n\t"                                           \
                         "str r12, [sp, #4]\n\t"                                           \
                         "bne 1b\n\t"                                                      \
                         "add sp, sp, #8\n\t"                                              \
                         "pop {r4-r11, pc}\n\t");                                          \
    }

CONV_DSP_BLOCK4_FN(conv_dsp_block4_fast, CONV_DSP_T_OUT4_FAST)
CONV_DSP_BLOCK4_FN(conv_dsp_block4_wide, CONV_DSP_T_OUT4_WIDE)
CONV_DSP_BLOCK2_FN(conv_dsp_block2_fast, CONV_DSP_T_OUT2_FAST)
CONV_DSP_BLOCK2_FN(conv_dsp_block2_wide, CONV_DSP_T_OUT2_WIDE)
CONV_DSP_TILE4W_FN(conv_dsp_tile4w_fast, CONV_DSP_T_OUT4_FAST)
CONV_DSP_TILE4W_FN(conv_dsp_tile4w_wide, CONV_DSP_T_OUT4_WIDE)
#else
#define CONV_DSP_TILE_ASM 0
#endif

/* One tile of n (1..cols16) pixels whose int8 rows the rows kernel takes (gathered where the
   columns would go): a last tile too small for the column loop to pay (VWW's convs of 3x3
   pixels: a third of the four-pixel loop's work would be repeats). */
static void conv_dsp_rows_tile(const ap_conv2d_ctx *c, void *scratch, int direct_rows, size_t p0, size_t n,
                               int8_t *out)
{
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
}

/* The columns of the tile of n pixels at p0 (of cols16) into the scratch's front, where the
   tile takes them (1); a tile of at most half of cols16 runs the rows kernel here instead (0).
   A last tile of three repeats its last pixel; those outputs are not stored. */
static inline __attribute__((always_inline)) int conv_dsp_tile_columns(const ap_conv2d_ctx *c, void *scratch,
                                                                       int direct_rows, size_t p0, size_t n,
                                                                       size_t cols16, int8_t *out)
{
    if (n <= cols16 / 2) {
        conv_dsp_rows_tile(c, scratch, direct_rows, p0, n, out);
        return 0;
    }
    int8_t *row = (int8_t *)scratch + 2 * cols16 * c->k_pad;
    for (size_t i = 0; i < cols16; ++i) {
        conv_dsp_widen(c, p0 + (i < n ? i : n - 1), direct_rows, row, (uint32_t *)scratch, i, cols16);
    }
    return 1;
}

/* The kernel's loops with the requantisation's form and the tile a constant (always inlined
   once per pair), so that no test of either runs per channel. */
static inline __attribute__((always_inline)) void conv_dsp_im2col16(const ap_conv2d_ctx *c, void *scratch,
                                                                    size_t total, const int mode,
                                                                    const size_t cols16)
{
    const conv_dsp_quant q = {c->bias, c->multiplier, c->shift, c->per_channel ? 1u : 0u,
                              c->output_offset, c->act_min, c->act_max, mode};
    const size_t groups = c->k_pad / AP_CONV2D_KB, oc_n = c->oc, block_stride = c->w_block_stride;
    const uint32_t *cols = (const uint32_t *)scratch;
    const int direct_rows = ap_conv2d_gemm_1x1_applies(c->p) && c->k == c->k_pad;
#if CONV_DSP_TILE_ASM
    const int form = conv_dsp_tile_form(c);
    conv_dsp_tile tile = {cols, (uint32_t)(groups / 2), (uint32_t)(groups % 2), (int32_t)oc_n,
                          2 * c->output_offset + 1, 0, {0}, {0}, {0}, c->output_offset};
    const int32_t e_less = conv_dsp_tile_e(form, 0);   /* e = e_less - shift */
    void (*const run_block)(const conv_dsp_tile *, const int8_t *, int8_t *) =
        cols16 == 2 ? (form == CONV_DSP_TILE_FAST ? conv_dsp_block2_fast : conv_dsp_block2_wide)
                    : (form == CONV_DSP_TILE_FAST ? conv_dsp_block4_fast : conv_dsp_block4_wide);
#endif
    for (size_t p0 = 0; p0 < total; p0 += cols16) {
        const size_t n = total - p0 < cols16 ? total - p0 : cols16;
        int8_t *out = c->output + p0 * oc_n;
        if (!conv_dsp_tile_columns(c, scratch, direct_rows, p0, n, cols16, out)) {
            continue;
        }
#if CONV_DSP_TILE_ASM
        if (form != CONV_DSP_TILE_C && n == cols16) {
            for (size_t oc = 0; oc < oc_n; oc += AP_CONV2D_OB) {
                const size_t nch = oc_n - oc < AP_CONV2D_OB ? oc_n - oc : AP_CONV2D_OB;
                tile.channels = (uint32_t)nch;
                /* a last block's entries past nch keep the block before's: computed, not stored */
                const int32_t *m = q.multiplier + oc * q.per_channel, *sh = q.shift + oc * q.per_channel;
                for (size_t j = 0; j < nch; ++j) {
                    tile.bias[j] = q.bias[oc + j];
                    tile.mult[j] = m[j * q.per_channel];
                    tile.e[j] = e_less - sh[j * q.per_channel];
                }
                run_block(&tile, c->weights + oc / AP_CONV2D_OB * block_stride, out + oc);
            }
            continue;
        }
#endif
        if (cols16 == 2) {
            /* channel pairs; an odd last channel's partner is a zero-weight padding channel
               of its block (computed, not stored) */
            for (size_t oc = 0; oc < oc_n; oc += 2) {
                int32_t s[4];
                const int32_t *bias = q.bias + oc;
                const int32_t b1 = oc + 1 < oc_n ? bias[1] : 0;
                conv_dsp_cols2(cols, c->weights + oc / AP_CONV2D_OB * block_stride + 4 * (oc % AP_CONV2D_OB),
                               groups, bias[0], b1, s);
                const int32_t s0[2] = {s[0], s[2]}, s1[2] = {s[1], s[3]};
                conv_dsp_out_n(&q, s0, 2, q.multiplier[oc * q.per_channel], q.shift[oc * q.per_channel],
                               out + oc, oc_n);
                if (oc + 1 < oc_n) {
                    conv_dsp_out_n(&q, s1, 2, q.multiplier[(oc + 1) * q.per_channel],
                                   q.shift[(oc + 1) * q.per_channel], out + oc + 1, oc_n);
                }
            }
            continue;
        }
        for (size_t oc = 0; oc < oc_n; ++oc) {
            int32_t s[4];
            const int32_t m = q.multiplier[oc * q.per_channel], sh = q.shift[oc * q.per_channel];
            conv_dsp_cols4(cols, c->weights + oc / AP_CONV2D_OB * block_stride + 4 * (oc % AP_CONV2D_OB),
                           groups, q.bias[oc], q.bias[oc], s);
            conv_dsp_out_n(&q, s, n, m, sh, out + oc, oc_n);
        }
    }
}

void ap_conv2d_s8_im2col16_arm_dsp(const ap_conv2d_ctx *c, void *scratch, size_t total, size_t cols16)
{
    const int mode = c->requant_mode;
    if (cols16 == 2) {
        if (mode == AP_DSP_REQUANT_FAST) {
            conv_dsp_im2col16(c, scratch, total, AP_DSP_REQUANT_FAST, 2);
        } else if (mode == AP_DSP_REQUANT_WIDE) {
            conv_dsp_im2col16(c, scratch, total, AP_DSP_REQUANT_WIDE, 2);
        } else {
            conv_dsp_im2col16(c, scratch, total, AP_DSP_REQUANT_GENERAL, 2);
        }
    } else if (mode == AP_DSP_REQUANT_FAST) {
        conv_dsp_im2col16(c, scratch, total, AP_DSP_REQUANT_FAST, 4);
    } else if (mode == AP_DSP_REQUANT_WIDE) {
        conv_dsp_im2col16(c, scratch, total, AP_DSP_REQUANT_WIDE, 4);
    } else {
        conv_dsp_im2col16(c, scratch, total, AP_DSP_REQUANT_GENERAL, 4);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* im2col16w_rows_4: im2col16_rows_4 with the weights widened too, once a run, into a table in */
/* scratch that also holds each channel's requantisation constants.                           */

/* Four pixels' columns x one channel's widened weights (two words a group): on a DSP core the
   tile routine's group (LDRD of the weights, two LDMs of the columns, 8 SMLADs) in one asm
   block, as CONV_DSP_GROUP_4X1 is. */
#if AP_ARM_DSP_NATIVE
#define CONV_DSP_GROUP_4W() __asm__(CONV_DSP_ASM(CONV_DSP_4W_TEXT, CONV_DSP_NAMED) CONV_DSP_OPERANDS)
#else
#define CONV_DSP_GROUP_4W()                                                                \
    do {                                                                                   \
        ve = w[0];                                                                         \
        v = w[1];                                                                          \
        s0 = ap_dsp_smlad(a[1], v, ap_dsp_smlad(a[0], ve, s0));                            \
        s1 = ap_dsp_smlad(a[3], v, ap_dsp_smlad(a[2], ve, s1));                            \
        s2 = ap_dsp_smlad(a[5], v, ap_dsp_smlad(a[4], ve, s2));                            \
        s3 = ap_dsp_smlad(a[7], v, ap_dsp_smlad(a[6], ve, s3));                            \
        a += 8;                                                                            \
        w += 2;                                                                            \
    } while (0)
#endif

CONV_DSP_SUMS_FN(conv_dsp_cols4w, uint32_t, CONV_DSP_GROUP_4W)

static inline __attribute__((always_inline)) void conv_dsp_im2col16w(const ap_conv2d_ctx *c, void *scratch,
                                                                     size_t total, const int mode)
{
    const conv_dsp_quant q = {c->bias, c->multiplier, c->shift, c->per_channel ? 1u : 0u,
                              c->output_offset, c->act_min, c->act_max, mode};
    const size_t groups = c->k_pad / AP_CONV2D_KB, oc_n = c->oc, block_stride = c->w_block_stride;
    const size_t cols16 = AP_CONV2D_COLS16, per = 3 + 2 * groups;   /* table words a channel */
    const uint32_t *cols = (const uint32_t *)scratch;
    uint32_t *table = (uint32_t *)(void *)((int8_t *)scratch + (2 * cols16 + 1) * c->k_pad);
    const int direct_rows = ap_conv2d_gemm_1x1_applies(c->p) && c->k == c->k_pad;
    /* the table's e in the asm form, where one runs (the compiled loops read the context's) */
    const int form = CONV_DSP_TILE_ASM ? conv_dsp_tile_form(c) : CONV_DSP_TILE_C;
    for (size_t oc = 0; oc < oc_n; ++oc) {
        uint32_t *t = table + oc * per;
        const int8_t *w = c->weights + oc / AP_CONV2D_OB * block_stride + 4 * (oc % AP_CONV2D_OB);
        t[0] = (uint32_t)q.bias[oc];
        for (size_t g = 0; g < groups; ++g) {
            ap_dsp_widen4(w + 16 * g, t + 1 + 2 * g);
        }
        t[1 + 2 * groups] = (uint32_t)q.multiplier[oc * q.per_channel];
        t[2 + 2 * groups] = (uint32_t)conv_dsp_tile_e(form, q.shift[oc * q.per_channel]);
    }
#if CONV_DSP_TILE_ASM
    const conv_dsp_tile tile = {cols, (uint32_t)(groups / 2), (uint32_t)(groups % 2), (int32_t)oc_n,
                                2 * c->output_offset + 1, (uint32_t)oc_n, {0}, {0}, {0}, c->output_offset};
#endif
    for (size_t p0 = 0; p0 < total; p0 += cols16) {
        const size_t n = total - p0 < cols16 ? total - p0 : cols16;
        int8_t *out = c->output + p0 * oc_n;
        if (!conv_dsp_tile_columns(c, scratch, direct_rows, p0, n, cols16, out)) {
            continue;
        }
#if CONV_DSP_TILE_ASM
        if (form != CONV_DSP_TILE_C && n == cols16) {
            (form == CONV_DSP_TILE_FAST ? conv_dsp_tile4w_fast : conv_dsp_tile4w_wide)(&tile, table, out);
            continue;
        }
#endif
        for (size_t oc = 0; oc < oc_n; ++oc) {
            const uint32_t *t = table + oc * per;
            const int32_t m = q.multiplier[oc * q.per_channel], sh = q.shift[oc * q.per_channel];
            int32_t s[4];
            conv_dsp_cols4w(cols, t + 1, groups, (int32_t)t[0], (int32_t)t[0], s);
            conv_dsp_out_n(&q, s, n, m, sh, out + oc, oc_n);
        }
    }
}

void ap_conv2d_s8_im2col16w_arm_dsp(const ap_conv2d_ctx *c, void *scratch, size_t total)
{
    if (c->requant_mode == AP_DSP_REQUANT_FAST) {
        conv_dsp_im2col16w(c, scratch, total, AP_DSP_REQUANT_FAST);
    } else if (c->requant_mode == AP_DSP_REQUANT_WIDE) {
        conv_dsp_im2col16w(c, scratch, total, AP_DSP_REQUANT_WIDE);
    } else {
        conv_dsp_im2col16w(c, scratch, total, AP_DSP_REQUANT_GENERAL);
    }
}
