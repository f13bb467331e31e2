/*
 * DEPTHWISE_CONV_2D int8, arm-dsp: the "planar_rows_R" variant (depth multiplier 1,
 * dilation 1, any filter, stride and channel count).
 *
 * One channel at a time. A band of the channel's input rows, padding included, is copied
 * into scratch as int16 (a plane: the channel's values next to each other), so that two
 * neighbouring taps of a row are one word and SMLAD takes both; the channel's weights,
 * multiplier and shift stay in registers for the whole band. A padded tap holds the input
 * zero point, which the folded bias cancels (x + offset = 0 there), so no output takes an
 * edge path. A 3x3 filter at stride 1 takes two outputs at a time: with the row's words
 * A = (x0, x1) and B = (x2, x3), SMLAD(A, (w0, w1)) + x2 * w2 is the first output and
 * SMLADX(PKHBT(B, A), (w0, w1)) + x3 * w2 the second, seven instructions a row for six MACs.
 *
 * Against "widened" (four channels a tap, in-register channel lanes) it reads each input
 * once per channel instead of widening rows per channel group, and spends one plane of
 * int16 instead of three rows of every channel: 2 * rows * row_len bytes, where a band of
 * R output rows needs rows = (R - 1) * stride + filter input rows. A filter one column wide
 * (the 1-D convolutions of audio models, Kx1 over a column of pixels) is taken transposed:
 * the plane's rows run down the columns, so its taps are neighbours again.
 *
 * The sums are the portable kernel's in wrapping int32 (the same products, the input offset
 * moved into the folded bias), then the same requantisation: its outputs bit for bit.
 */
#include <stdint.h>

#include "arm_dsp.h"
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"
#include "requant_arm_dsp.h"

/* The walk over one channel: plane axis a across rows (bands), axis b along them. */
typedef struct dw_plane_walk {
    ap_dw_planar_shape s;
    int32_t in_a, in_b, pad_a, pad_b;
    size_t in_step_a, in_step_b;     /* bytes between input pixels along a and b */
    size_t out_step_a, out_step_b;   /* bytes between output pixels along a and b */
    size_t w_step_a, w_step_b;       /* bytes between weights along a and b */
} dw_plane_walk;

static dw_plane_walk dw_plane_walk_of(const ap_dw_direct *d, int32_t band_rows)
{
    dw_plane_walk w;
    const size_t C = (size_t)d->channels;
    w.s = ap_dw_planar_shape_of(d->filter_h, d->filter_w, d->stride_h, d->stride_w, d->output_h, d->output_w);
    (void)ap_dw_planar_scratch(&w.s, band_rows);   /* row_len; run() has checked the size */
    if (!w.s.transposed) {
        w.in_a = d->input_h, w.in_b = d->input_w, w.pad_a = d->pad_h, w.pad_b = d->pad_w;
        w.in_step_a = (size_t)d->input_w * C, w.in_step_b = C;
        w.out_step_a = (size_t)d->output_w * C, w.out_step_b = C;
        w.w_step_a = (size_t)d->filter_w * C, w.w_step_b = C;
    } else {
        w.in_a = d->input_w, w.in_b = d->input_h, w.pad_a = d->pad_w, w.pad_b = d->pad_h;
        w.in_step_a = C, w.in_step_b = (size_t)d->input_w * C;
        w.out_step_a = C, w.out_step_b = (size_t)d->output_w * C;
        w.w_step_a = C, w.w_step_b = (size_t)d->filter_w * C;
    }
    return w;
}

/* A band's plane of `rows` rows, every value the zero point `pad` (two a word: row_len is
   even and the plane 4-byte aligned). The channels of the band then overwrite only the
   values that lie inside the input, the same ones each time, so the padding is written
   once a band rather than once a channel. */
static void dw_plane_fill(int16_t *plane, int32_t rows, int32_t row_len, int16_t pad)
{
    uint32_t *p = (uint32_t *)(void *)plane;
    const uint32_t two = ((uint32_t)(uint16_t)pad) * 0x10001u;
    const size_t words = (size_t)rows * (size_t)row_len / 2;
    for (size_t i = 0; i < words; ++i) {
        p[i] = two;
    }
}

/* The values of channel input `in` (the channel's first byte) that lie inside the input,
   for the band whose first padded row is a0, into its plane of `rows` rows. */
static void dw_plane_gather(const dw_plane_walk *w, const int8_t *in, int32_t a0, int32_t rows, int16_t *plane)
{
    const int32_t len = w->s.row_len;
    const int32_t lo = w->pad_b < len ? w->pad_b : len;
    const int32_t hi = w->pad_b + w->in_b < len ? w->pad_b + w->in_b : len;
    const size_t step = w->in_step_b;
    int32_t j = w->pad_a - a0 > 0 ? w->pad_a - a0 : 0;   /* the first row inside the input */
    const int32_t j_end = w->pad_a + w->in_a - a0 < rows ? w->pad_a + w->in_a - a0 : rows;
    for (; j < j_end; ++j) {
        const int8_t *src = in + (size_t)(a0 + j - w->pad_a) * w->in_step_a;
        int16_t *dst = plane + (size_t)j * (size_t)len + lo;
        int32_t n = hi - lo;
        for (; n >= 4; n -= 4, dst += 4, src += 4 * step) {
            dst[0] = src[0];
            dst[1] = src[step];
            dst[2] = src[2 * step];
            dst[3] = src[3 * step];
        }
        for (; n > 0; --n, src += step) {
            *dst++ = *src;
        }
    }
}

/* A channel's constants, in scratch before its weights (word offsets): the multiplier,
   e = -shift, K = 2 * output offset + 1 and the folded bias (all four for a fast layer's
   requantisation, the bias doubled), then for the row loop the bytes between plane rows and
   between outputs along b, and where the row's groups of four end (bytes from its start;
   the asm loop keeps the address in word 7). */
enum { DW_CTX_M = 0, DW_CTX_E = 1, DW_CTX_K = 2, DW_CTX_BIAS = 3, DW_CTX_LEN2 = 4, DW_CTX_STEP = 5,
       DW_CTX_END = 6, DW_CTX_END_AT = 7, DW_CTX_WEIGHTS = 8 };
/* A 1-D filter has one plane row: its loop reads word 4 as the weights' end instead (an
   address on a DSP core, the pair count elsewhere). */
enum { DW_CTX_WEND = DW_CTX_LEN2 };

/*
 * The requantisation of a layer ap_dsp_fast_layer_below(..., 29) passed, from a doubled sum
 * a2 = 2 * acc (the weights and bias are doubled: |acc| < 2^29, so a2 and every step below
 * fit): h = SMMULR(a2, m) is TFLite's SRDHM of acc (ap_dsp_requant_fast_e's first step
 * without its shift), t = (2h + (h < 0 ? -1 : 0)) >> e its rounding divide taken at twice
 * the scale, and the output SSAT((t + 2 * offset + 1) >> 1): (t >> 1) + (t & 1) + offset,
 * ap_dsp_requant_fast_e's last steps, with the halving inside SSAT. Five instructions
 * before the store.
 */
static inline int32_t dw_plane_requant(int32_t a2, int32_t m, int32_t e, int32_t k)
{
    const int32_t h = ap_dsp_smmulr(a2, m);
    const int32_t t = (int32_t)(((uint32_t)h << 1) - ((uint32_t)h >> 31)) >> e;
    return ap_dsp_ssat((t + k) >> 1, 8);
}

/* The general requantisation (a layer that is not fast), from an undoubled sum. */
static inline int8_t dw_plane_out_general(int32_t acc, const ap_requant *rq, int32_t c)
{
    const int32_t i = rq->per_channel ? c : 0;
    int32_t v = ap_fp_multiply_by_nonneg_multiplier(acc, rq->multiplier[i], rq->shift[i]) + rq->output_offset;
    v = v < rq->activation_min ? rq->activation_min : v;
    return (int8_t)(v > rq->activation_max ? rq->activation_max : v);
}

/* Output rows [0, rows) of a band, any filter: ceil(k_b / 2) SMLADs a filter row, the
   weights as pairs (the odd last one with a zero partner, so the word it reads past the
   last tap adds nothing; row_len leaves room for that word). */
static void dw_plane_rows_any(const dw_plane_walk *w, const int16_t *plane, int32_t rows, const uint32_t *ctx,
                              int fast, const ap_requant *rq, int32_t c, int8_t *out)
{
    const int32_t len = w->s.row_len, pairs = (w->s.k_b + 1) / 2, k_a = w->s.k_a;
    const int32_t m = (int32_t)ctx[DW_CTX_M], e = (int32_t)ctx[DW_CTX_E], k = (int32_t)ctx[DW_CTX_K];
    const int32_t bias = (int32_t)ctx[DW_CTX_BIAS];
    const uint32_t *wp = ctx + DW_CTX_WEIGHTS;
    for (int32_t r = 0; r < rows; ++r) {
        const int16_t *row = plane + (size_t)r * (size_t)w->s.s_a * (size_t)len;
        int8_t *o = out + (size_t)r * w->out_step_a;
        for (int32_t ob = 0; ob < w->s.out_b; ++ob, o += w->out_step_b) {
            const int16_t *x = row + (size_t)ob * (size_t)w->s.s_b;
            const uint32_t *p = wp;
            int32_t acc = bias;
            for (int32_t ka = 0; ka < k_a; ++ka, x += len) {
                for (int32_t i = 0; i < pairs; ++i, ++p) {
                    acc = ap_dsp_smlad(ap_dsp_load32(x + 2 * i), *p, acc);
                }
            }
            *o = (int8_t)(fast ? dw_plane_requant(acc, m, e, k) : dw_plane_out_general(acc, rq, c));
        }
    }
}

/*
 * Groups of four outputs along a plane row of a 3x3 filter at stride s (1 or 2) in a fast
 * layer: the group at p (row 0's first value) and its output o, then p + 4s values and
 * o + 4 steps, ... while p is below ctx's end (at least one group). A group is its 36 taps,
 * then dw_plane_requant and a store for each output. A filter row is one LDRD of weights,
 * (w0, w1) and (w2, 0), and at stride 1 three words of input, X = (x0, x1), Y = (x2, x3),
 * Z = (x4, x5):
 *   acc0 += SMLAD(X, w01) + x2 w2          acc1 += SMLADX((x2, x1), w01) + x3 w2
 *   acc2 += SMLAD(Y, w01) + x4 w2          acc3 += SMLADX((x4, x3), w01) + x5 w2
 * at stride 2 five words X0 .. X4, one at a time: acc_j += SMLAD(X_j, w01) + lo(X_j+1) w2.
 * On a DSP core the whole loop is one asm block, 89 instructions a group (stride 2: 89),
 * thirteen registers chosen so that nothing is spilled (the constants it lacks registers
 * for are read from ctx); elsewhere the same sums in C.
 */
#if AP_ARM_DSP_NATIVE
#define DW_PLANE_TAPS_S1_ASM(row, woff)                                                    \
    "ldrd %[wa], %[wb], [%[ctx], #" woff "]\n\t"                                           \
    "ldr %[x], [%[" row "]]\n\t"                                                          \
    "ldr %[y], [%[" row "], #4]\n\t"                                                      \
    "ldr %[z], [%[" row "], #8]\n\t"                                                      \
    "smlad %[a0], %[x], %[wa], %[a0]\n\t"                                                 \
    "smlabb %[a0], %[y], %[wb], %[a0]\n\t"                                                \
    "pkhbt %[x], %[y], %[x]\n\t"                                                          \
    "smladx %[a1], %[x], %[wa], %[a1]\n\t"                                                \
    "smlatb %[a1], %[y], %[wb], %[a1]\n\t"                                                \
    "smlad %[a2], %[y], %[wa], %[a2]\n\t"                                                 \
    "smlabb %[a2], %[z], %[wb], %[a2]\n\t"                                                \
    "pkhbt %[x], %[z], %[y]\n\t"                                                          \
    "smladx %[a3], %[x], %[wa], %[a3]\n\t"                                                \
    "smlatb %[a3], %[z], %[wb], %[a3]\n\t"
#define DW_PLANE_TAPS_S2_ASM(row, woff)                                                    \
    "ldrd %[wa], %[wb], [%[ctx], #" woff "]\n\t"                                           \
    "ldr %[x], [%[" row "]]\n\t"                                                          \
    "ldr %[y], [%[" row "], #4]\n\t"                                                      \
    "smlad %[a0], %[x], %[wa], %[a0]\n\t"                                                 \
    "smlabb %[a0], %[y], %[wb], %[a0]\n\t"                                                \
    "ldr %[x], [%[" row "], #8]\n\t"                                                      \
    "smlad %[a1], %[y], %[wa], %[a1]\n\t"                                                 \
    "smlabb %[a1], %[x], %[wb], %[a1]\n\t"                                                \
    "ldr %[y], [%[" row "], #12]\n\t"                                                     \
    "smlad %[a2], %[x], %[wa], %[a2]\n\t"                                                 \
    "smlabb %[a2], %[y], %[wb], %[a2]\n\t"                                                \
    "ldr %[x], [%[" row "], #16]\n\t"                                                     \
    "smlad %[a3], %[y], %[wa], %[a3]\n\t"                                                 \
    "smlabb %[a3], %[x], %[wb], %[a3]\n\t"
/* dw_plane_requant of the sum in operand acc and its store at o, o then moved a step: the
   operands named h and t are free, m, e, k and step hold the channel's constants (each loop
   passes the names of the registers it has free then) */
#define DW_PLANE_REQUANT_ASM(acc, h, t, m, e, k, step)                                     \
    "smmulr %[" h "], %[" acc "], %[" m "]\n\t"                                            \
    "lsl %[" t "], %[" h "], #1\n\t"                                                       \
    "sub %[" t "], %[" t "], %[" h "], lsr #31\n\t"                                          \
    "asr %[" t "], %[" t "], %[" e "]\n\t"                                                   \
    "add %[" t "], %[" t "], %[" k "]\n\t"                                                   \
    "ssat %[" t "], #8, %[" t "], asr #1\n\t"                                                \
    "strb %[" t "], [%[o]]\n\t"                                                           \
    "add %[o], %[o], %[" step "]\n\t"
/* in the 3x3 loop x, y, z, wa, wb and q hold h, t, m, e, K and the output step */
#define DW_PLANE_OUT1_ASM(acc) DW_PLANE_REQUANT_ASM(acc, "x", "y", "z", "wa", "wb", "q")
/* in the 1-D loop x0, x1, wv, t, q and w do */
#define DW_PLANE_OUT1_1D_ASM(acc) DW_PLANE_REQUANT_ASM(acc, "x0", "x1", "wv", "t", "q", "w")
/* The loop, its taps macro and the bytes p moves a group (8 at stride 1, 16 at 2). */
#define DW_PLANE_GROUPS_ASM(TAPS, ADVANCE)                                                 \
    int32_t a0, a1, a2, a3;                                                                \
    uint32_t x, y, z, wa, wb;                                                              \
    const int16_t *q;                                                                      \
    __asm__ volatile("ldr %[x], [%[ctx], #24]\n\t" /* DW_CTX_END, an address in END_AT */  \
                     "add %[x], %[x], %[p]\n\t"                                            \
                     "str %[x], [%[ctx], #28]\n\t"                                         \
                     "1:\n\t"                                                              \
                     "ldr %[a0], [%[ctx], #12]\n\t"                                        \
                     "mov %[a1], %[a0]\n\t"                                                \
                     "mov %[a2], %[a0]\n\t"                                                \
                     "mov %[a3], %[a0]\n\t"                                                \
                     TAPS("p", "32")                                                       \
                     "ldr %[q], [%[ctx], #16]\n\t"                                         \
                     "add %[q], %[q], %[p]\n\t"                                            \
                     TAPS("q", "40")                                                       \
                     "ldr %[x], [%[ctx], #16]\n\t"                                         \
                     "add %[q], %[q], %[x]\n\t"                                            \
                     TAPS("q", "48")                                                       \
                     "ldrd %[z], %[wa], [%[ctx]]\n\t"                                      \
                     "ldr %[wb], [%[ctx], #8]\n\t"                                         \
                     "ldr %[q], [%[ctx], #20]\n\t"                                         \
                     DW_PLANE_OUT1_ASM("a0") DW_PLANE_OUT1_ASM("a1")                       \
                     DW_PLANE_OUT1_ASM("a2") DW_PLANE_OUT1_ASM("a3")                       \
                     "add %[p], %[p], #" ADVANCE "\n\t"                                    \
                     "ldr %[x], [%[ctx], #28]\n\t"                                         \
                     "cmp %[p], %[x]\n\t"                                                  \
                     "blo 1b\n\t"                                                          \
                     : [p] "+r"(p), [o] "+r"(o), [a0] "=&r"(a0), [a1] "=&r"(a1),           \
                       [a2] "=&r"(a2), [a3] "=&r"(a3), [x] "=&r"(x), [y] "=&r"(y),         \
                       [z] "=&r"(z), [wa] "=&r"(wa), [wb] "=&r"(wb), [q] "=&r"(q)          \
                     : [ctx] "r"(ctx)                                                      \
                     : "cc", "memory")

static void dw_plane_groups_3x3(const int16_t *p, int8_t *o, const uint32_t *ctx, int32_t stride)
{
    if (stride == 1) {
        DW_PLANE_GROUPS_ASM(DW_PLANE_TAPS_S1_ASM, "8");
    } else {
        DW_PLANE_GROUPS_ASM(DW_PLANE_TAPS_S2_ASM, "16");
    }
}
#else
static void dw_plane_groups_3x3(const int16_t *p, int8_t *o, const uint32_t *ctx, int32_t stride)
{
    const size_t len = ctx[DW_CTX_LEN2] / 2, step = ctx[DW_CTX_STEP];
    const int16_t *end = p + ctx[DW_CTX_END] / 2;
    const int32_t m = (int32_t)ctx[DW_CTX_M], e = (int32_t)ctx[DW_CTX_E], k = (int32_t)ctx[DW_CTX_K];
    const uint32_t *wp = ctx + DW_CTX_WEIGHTS;
    do {
        for (int32_t j = 0; j < 4; ++j, o += step) {
            const int16_t *x = p + (size_t)j * (size_t)stride;
            int32_t acc = (int32_t)ctx[DW_CTX_BIAS];
            for (size_t r = 0; r < 3; ++r, x += len) {
                acc = ap_dsp_smlabb(ap_dsp_load32(x + 2), wp[2 * r + 1], ap_dsp_smlad(ap_dsp_load32(x), wp[2 * r], acc));
            }
            *o = (int8_t)dw_plane_requant(acc, m, e, k);
        }
        p += 4 * stride;
    } while (p < end);
}
#endif

/* Output rows of a band of a 3x3 filter at stride 1 or 2 in a fast layer, four outputs at
   a time; a row's last one or two outputs one at a time, its last three a group of the four
   that end it (recomputing one: the same value written again); a row of fewer than four
   outputs takes one group into a buffer and keeps what it needs (row_len leaves room for
   the values that group reads). ctx's row length and output step are set. */
static void dw_plane_rows_3x3(const dw_plane_walk *w, const int16_t *plane, int32_t rows, uint32_t *ctx,
                              int8_t *out)
{
    const int32_t out_b = w->s.out_b, s = w->s.s_b, groups = out_b / 4;
    const size_t row_step = (size_t)w->s.s_a * (size_t)w->s.row_len, ostep = w->out_step_b;
    const uint32_t one = 8u * (uint32_t)s;   /* bytes a group moves along a plane row */
    if (groups == 0) {
        int8_t group[4];
        ctx[DW_CTX_STEP] = 1;
        ctx[DW_CTX_END] = one;
        for (int32_t r = 0; r < rows; ++r, plane += row_step, out += w->out_step_a) {
            dw_plane_groups_3x3(plane, group, ctx, s);
            for (int32_t i = 0; i < out_b; ++i) {
                out[(size_t)i * ostep] = group[i];
            }
        }
        ctx[DW_CTX_STEP] = (uint32_t)ostep;
        return;
    }
    /* one or two outputs left over each take a single window; three, a group that ends the
       row (cheaper than three single windows) */
    const int32_t left = out_b - 4 * groups;
    const size_t last_in = (size_t)(out_b - 4) * (size_t)s, last_out = (size_t)(out_b - 4) * ostep;
    const size_t len = (size_t)w->s.row_len;
    const int32_t m = (int32_t)ctx[DW_CTX_M], e = (int32_t)ctx[DW_CTX_E], k = (int32_t)ctx[DW_CTX_K];
    const uint32_t *wp = ctx + DW_CTX_WEIGHTS;
    for (int32_t r = 0; r < rows; ++r, plane += row_step, out += w->out_step_a) {
        ctx[DW_CTX_END] = one * (uint32_t)groups;
        dw_plane_groups_3x3(plane, out, ctx, s);
        if (left == 3) {
            ctx[DW_CTX_END] = one;
            dw_plane_groups_3x3(plane + last_in, out + last_out, ctx, s);
            continue;
        }
        for (int32_t ob = 4 * groups; ob < out_b; ++ob) {
            const int16_t *x = plane + (size_t)ob * (size_t)s;
            int32_t acc = (int32_t)ctx[DW_CTX_BIAS];
            acc = ap_dsp_smlabb(ap_dsp_load32(x + 2), wp[1], ap_dsp_smlad(ap_dsp_load32(x), wp[0], acc));
            acc = ap_dsp_smlabb(ap_dsp_load32(x + len + 2), wp[3], ap_dsp_smlad(ap_dsp_load32(x + len), wp[2], acc));
            acc = ap_dsp_smlabb(ap_dsp_load32(x + 2 * len + 2), wp[5],
                                ap_dsp_smlad(ap_dsp_load32(x + 2 * len), wp[4], acc));
            out[(size_t)ob * ostep] = (int8_t)dw_plane_requant(acc, m, e, k);
        }
    }
}

/*
 * Groups of four outputs along a plane row of a 1-D filter (one plane row: k_a 1) at stride
 * 1 in a fast layer, any length: the group at p and its output o, then p + 4 and o + 4
 * steps, ... while p is below ctx's end. The weights are pairs W_i = (w_2i, w_2i+1), an
 * even count of them (zero words after); with the input's words X_i = (x_2i, x_2i+1) from p,
 *   acc0 += SMLAD(X_i, W_i)        acc1 += SMLADX((x_2i+2, x_2i+1), W_i)
 *   acc2 += SMLAD(X_i+1, W_i)      acc3 += SMLADX((x_2i+4, x_2i+3), W_i)
 * one new input word a pair, eleven instructions for eight MACs. On a DSP core one asm block,
 * the pair loop unrolled twice (the two words in hand trade places); ctx's DW_CTX_WEND holds
 * the weights' end as an address. Elsewhere the same sums in C.
 */
#if AP_ARM_DSP_NATIVE
/* one pair: x0 = X_i, x1 = X_i+1 on entry; x0 = X_i+2 on exit */
#define DW_PLANE_PAIR_1D_ASM(x0, x1)                                                       \
    "ldr %[wv], [%[w]], #4\n\t"                                                           \
    "smlad %[a0], %[" x0 "], %[wv], %[a0]\n\t"                                            \
    "smlad %[a2], %[" x1 "], %[wv], %[a2]\n\t"                                            \
    "pkhbt %[" x0 "], %[" x1 "], %[" x0 "]\n\t"                                           \
    "smladx %[a1], %[" x0 "], %[wv], %[a1]\n\t"                                           \
    "ldr %[" x0 "], [%[q], #8]\n\t"                                                       \
    "pkhbt %[t], %[" x0 "], %[" x1 "]\n\t"                                                \
    "smladx %[a3], %[t], %[wv], %[a3]\n\t"                                                \
    "add %[q], %[q], #4\n\t"
static void dw_plane_groups_1d(const int16_t *p, int8_t *o, const uint32_t *ctx)
{
    int32_t a0, a1, a2, a3;
    uint32_t x0, x1, wv, t;
    const int16_t *q;
    const uint32_t *w;
    __asm__ volatile("ldr %[t], [%[ctx], #24]\n\t"   /* DW_CTX_END, an address in END_AT */
                     "add %[t], %[t], %[p]\n\t"
                     "str %[t], [%[ctx], #28]\n\t"
                     "1:\n\t"
                     "ldr %[a0], [%[ctx], #12]\n\t"
                     "mov %[a1], %[a0]\n\t"
                     "mov %[a2], %[a0]\n\t"
                     "mov %[a3], %[a0]\n\t"
                     "add %[w], %[ctx], #32\n\t"
                     "mov %[q], %[p]\n\t"
                     "ldr %[x0], [%[q]]\n\t"
                     "ldr %[x1], [%[q], #4]\n\t"
                     "2:\n\t"
                     DW_PLANE_PAIR_1D_ASM("x0", "x1")
                     DW_PLANE_PAIR_1D_ASM("x1", "x0")
                     "ldr %[t], [%[ctx], #16]\n\t"
                     "cmp %[w], %[t]\n\t"
                     "blo 2b\n\t"
                     /* the requantisation: x0, x1, wv, t, q and w hold h, t, m, e, K, step */
                     "ldrd %[wv], %[t], [%[ctx]]\n\t"
                     "ldr %[q], [%[ctx], #8]\n\t"
                     "ldr %[w], [%[ctx], #20]\n\t"
                     DW_PLANE_OUT1_1D_ASM("a0") DW_PLANE_OUT1_1D_ASM("a1")
                     DW_PLANE_OUT1_1D_ASM("a2") DW_PLANE_OUT1_1D_ASM("a3")
                     "add %[p], %[p], #8\n\t"
                     "ldr %[t], [%[ctx], #28]\n\t"
                     "cmp %[p], %[t]\n\t"
                     "blo 1b\n\t"
                     : [p] "+r"(p), [o] "+r"(o), [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2),
                       [a3] "=&r"(a3), [x0] "=&r"(x0), [x1] "=&r"(x1), [wv] "=&r"(wv), [t] "=&r"(t),
                       [q] "=&r"(q), [w] "=&r"(w)
                     : [ctx] "r"(ctx)
                     : "cc", "memory");
}
#else
static void dw_plane_groups_1d(const int16_t *p, int8_t *o, const uint32_t *ctx)
{
    const size_t step = ctx[DW_CTX_STEP], pairs = ctx[DW_CTX_WEND];
    const int16_t *end = p + ctx[DW_CTX_END] / 2;
    const int32_t m = (int32_t)ctx[DW_CTX_M], e = (int32_t)ctx[DW_CTX_E], k = (int32_t)ctx[DW_CTX_K];
    const uint32_t *wp = ctx + DW_CTX_WEIGHTS;
    do {
        for (int32_t j = 0; j < 4; ++j, o += step) {
            int32_t acc = (int32_t)ctx[DW_CTX_BIAS];
            for (size_t i = 0; i < pairs; ++i) {
                acc = ap_dsp_smlad(ap_dsp_load32(p + j + 2 * i), wp[i], acc);
            }
            *o = (int8_t)dw_plane_requant(acc, m, e, k);
        }
        p += 4;
    } while (p < end);
}
#endif

/* Output rows of a band of a 1-D filter at stride 1 in a fast layer (one plane row a band
   row), four outputs at a time, a row's last group the four that end it; ctx's output step
   and weights' end are set, the weight pairs an even count. Rows of fewer than four outputs
   take the general loop. */
static void dw_plane_rows_1d(const dw_plane_walk *w, const int16_t *plane, int32_t rows, uint32_t *ctx,
                             int8_t *out)
{
    const int32_t out_b = w->s.out_b, groups = out_b / 4;
    const size_t row_step = (size_t)w->s.s_a * (size_t)w->s.row_len, ostep = w->out_step_b;
    for (int32_t r = 0; r < rows; ++r, plane += row_step, out += w->out_step_a) {
        ctx[DW_CTX_END] = 8u * (uint32_t)groups;
        dw_plane_groups_1d(plane, out, ctx);
        if (groups * 4 < out_b) {
            ctx[DW_CTX_END] = 8u;
            dw_plane_groups_1d(plane + (out_b - 4), out + (size_t)(out_b - 4) * ostep, ctx);
        }
    }
}

void ap_dw_planar_arm_dsp(const ap_dw_direct *d, int32_t band_rows, void *scratch)
{
    const ap_requant *rq = d->requant;
    const ap_dw_planar_shape shape = ap_dw_planar_shape_of(d->filter_h, d->filter_w, d->stride_h, d->stride_w,
                                                           d->output_h, d->output_w);
    band_rows = band_rows == 0 ? shape.out_a : band_rows;
    const dw_plane_walk w = dw_plane_walk_of(d, band_rows);
    const int32_t C = d->channels, pairs = (w.s.k_b + 1) / 2;
    const int32_t rows_max = (band_rows - 1) * w.s.s_a + w.s.k_a;
    /* sums below 2^29: doubled, they and the requantisation's steps fit in 32 bits */
    const int fast = ap_dsp_fast_layer_below(d->bias, rq->shift, rq->per_channel ? 1 : 0, (size_t)C,
                                             (uint64_t)d->filter_h * (uint64_t)d->filter_w, 255u * 128u,
                                             rq->activation_min, rq->activation_max, 29);
    const int groups = fast && w.s.k_a == 3 && w.s.k_b == 3 && w.s.s_b <= 2;
    const int groups_1d = fast && w.s.k_a == 1 && w.s.s_b == 1 && w.s.out_b >= 4;
    const int32_t pairs_even = (pairs + 1) / 2 * 2;
    int16_t *plane = (int16_t *)scratch;
    uint32_t *ctx = (uint32_t *)(void *)(plane + (size_t)rows_max * (size_t)w.s.row_len);
    const int16_t pad = (int16_t)-d->input_offset;   /* the zero point, in [-128, 127] */
    const uint32_t scale = fast ? 2u : 1u;
    ctx[DW_CTX_LEN2] = 2u * (uint32_t)w.s.row_len;
    ctx[DW_CTX_STEP] = (uint32_t)w.out_step_b;
    if (groups_1d) {
        ctx[DW_CTX_WEIGHTS + pairs] = 0;   /* the zero word after an odd count of pairs */
#if AP_ARM_DSP_NATIVE
        ctx[DW_CTX_WEND] = (uint32_t)(uintptr_t)(ctx + DW_CTX_WEIGHTS + pairs_even);
#else
        ctx[DW_CTX_WEND] = (uint32_t)pairs_even;
#endif
    }
    for (int32_t a0 = 0; a0 < w.s.out_a; a0 += band_rows) {
        const int32_t rows = w.s.out_a - a0 < band_rows ? w.s.out_a - a0 : band_rows;
        const int32_t need = (rows - 1) * w.s.s_a + w.s.k_a;
        dw_plane_fill(plane, need, w.s.row_len, pad);
        for (int32_t c = 0; c < C; ++c) {
            /* the channel's weights as int16 pairs along b (doubled in a fast layer), a zero
               after an odd last tap */
            const int8_t *wc = d->w8 + c;
            uint32_t *wp = ctx + DW_CTX_WEIGHTS;
            for (int32_t ka = 0; ka < w.s.k_a; ++ka) {
                for (int32_t i = 0; i < pairs; ++i) {
                    const int8_t *t = wc + (size_t)ka * w.w_step_a + (size_t)(2 * i) * w.w_step_b;
                    const uint32_t lo = (uint32_t)t[0] * scale;
                    const uint32_t hi = 2 * i + 1 < w.s.k_b ? (uint32_t)t[w.w_step_b] * scale : 0u;
                    wp[(size_t)ka * (size_t)pairs + (size_t)i] = (lo & 0xffffu) | (hi << 16);
                }
            }
            const int32_t i = rq->per_channel ? c : 0;
            ctx[DW_CTX_M] = (uint32_t)rq->multiplier[i];
            ctx[DW_CTX_E] = (uint32_t)-rq->shift[i];
            ctx[DW_CTX_K] = 2u * (uint32_t)rq->output_offset + 1u;
            ctx[DW_CTX_BIAS] = (uint32_t)d->bias_folded[c] * scale;
            dw_plane_gather(&w, d->input + c, a0 * w.s.s_a, need, plane);
            int8_t *out = d->out + (size_t)a0 * w.out_step_a + (size_t)c;
            if (groups) {
                dw_plane_rows_3x3(&w, plane, rows, ctx, out);
            } else if (groups_1d) {
                dw_plane_rows_1d(&w, plane, rows, ctx, out);
            } else {
                dw_plane_rows_any(&w, plane, rows, ctx, fast, rq, c, out);
            }
        }
    }
}
