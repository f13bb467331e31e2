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
 *
 * Each output pixel finds its window once (first tap's input and weight pointers, taps per
 * row and rows); the channel groups then walk it with pointer increments only. A 3x3 window
 * wholly inside the input (most pixels of a 3x3 layer) has its nine taps unrolled: a tap is
 * ten instructions for four channels (2.5 a MAC) and requantising an output about twenty.
 *
 * A 3x3 layer whose blob was packed for arm-dsp (its weights already widened into int16
 * lanes) and whose outputs all take the fast requantisation runs every window, cut or whole,
 * in asm routines of eight instructions a tap and about twelve an output (dw_px_run); the
 * code above runs the other layers.
 */
#include <stddef.h>
#include <stdint.h>

#include "arm_dsp.h"
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"
#include "requant_arm_dsp.h"

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

/* Four channels' products of one tap: the input's even and odd int16 lanes xe, xo against
   the weight word at w split the same way (SMLABB / SMLATT, one channel each). */
#define DW_DSP_MAC4(xe, xo, w)                                                             \
    do {                                                                                   \
        const uint32_t xe_ = (xe), xo_ = (xo), wv_ = ap_dsp_load32(w);                    \
        const uint32_t we_ = ap_dsp_sxtb16(wv_), wo_ = ap_dsp_sxtb16_ror8(wv_);            \
        a0 = ap_dsp_smlabb(xe_, we_, a0);                                                  \
        a2 = ap_dsp_smlatt(xe_, we_, a2);                                                  \
        a1 = ap_dsp_smlabb(xo_, wo_, a1);                                                  \
        a3 = ap_dsp_smlatt(xo_, wo_, a3);                                                  \
    } while (0)

/* One tap of four channels: input bytes at x (offset added), weights at w. */
#define DW_DSP_TAP(x, w)                                                                   \
    do {                                                                                   \
        const uint32_t xv_ = ap_dsp_load32(x);                                             \
        DW_DSP_MAC4(ap_dsp_sxtab16(off2, xv_), ap_dsp_sxtab16_ror8(off2, xv_), w);         \
    } while (0)

/* One tap of four channels of a window with no padded tap: the input offset is in the folded
   bias the sums start from (exact: int32 sums wrap alike in either order), so plain SXTB16. */
#define DW_DSP_TAP_FOLDED(x, w)                                                            \
    do {                                                                                   \
        const uint32_t xv_ = ap_dsp_load32(x);                                             \
        DW_DSP_MAC4(ap_dsp_sxtb16(xv_), ap_dsp_sxtb16_ror8(xv_), w);                       \
    } while (0)

/* The requantisation's fields in locals: the int8 output stores may alias anything, so
   fields read through a pointer would be reloaded after every store. */
typedef struct dw_dsp_quant {
    const int32_t *multiplier, *shift, *bias, *bias_folded;
    int32_t step, offset, lo, hi;
    int fast;   /* ap_dsp_fast_layer: every output takes ap_dsp_requant_fast */
} dw_dsp_quant;

/* Output channel c from its sum, bias included. */
static inline int8_t dw_dsp_out(int32_t acc, const dw_dsp_quant *q, int32_t c)
{
    const int32_t i = c * q->step;
    const int32_t m = q->multiplier[i], sh = q->shift[i];
    if (q->fast) {
        return (int8_t)ap_dsp_requant_fast(acc, m, sh, q->offset);
    }
    int32_t v = ap_fp_multiply_by_nonneg_multiplier(acc, m, sh) + q->offset;
    v = v < q->lo ? q->lo : v;
    return (int8_t)(v > q->hi ? q->hi : v);
}

/* Output channels c .. c + 3 from their sums. */
static inline void dw_dsp_out4(int32_t a0, int32_t a1, int32_t a2, int32_t a3, const dw_dsp_quant *q,
                               int32_t c, int8_t *out)
{
    out[c] = dw_dsp_out(a0, q, c);
    out[c + 1] = dw_dsp_out(a1, q, c + 1);
    out[c + 2] = dw_dsp_out(a2, q, c + 2);
    out[c + 3] = dw_dsp_out(a3, q, c + 3);
}

/* One window: its first tap's input and weights, its taps per row (>= 1) and rows (>= 1), the
   steps between taps of a row and between rows. */
typedef struct dw_dsp_window {
    const int8_t *x, *w;
    int32_t cols, rows;
    size_t x_col, x_row, w_row;   /* w_col is the channel count */
} dw_dsp_window;

/* Channel groups [0, groups) of one pixel, any window. */
static void dw_dsp_groups_any(const dw_dsp_window *win, int32_t C, int32_t groups, uint32_t off2,
                              const dw_dsp_quant *q, int8_t *out)
{
    const size_t x_col = win->x_col, x_skip = win->x_row - (size_t)win->cols * win->x_col;
    const size_t w_skip = win->w_row - (size_t)win->cols * (size_t)C;
    for (int32_t g = 0; g < groups; ++g) {
        const int8_t *x = win->x + 4 * g, *w = win->w + 4 * g;
        const int32_t *b = q->bias + 4 * g;
        int32_t a0 = b[0], a1 = b[1], a2 = b[2], a3 = b[3];
        for (int32_t r = 0; r < win->rows; ++r, x += x_skip, w += w_skip) {
            for (int32_t k = 0; k < win->cols; ++k, x += x_col, w += C) {
                DW_DSP_TAP(x, w);
            }
        }
        dw_dsp_out4(a0, a1, a2, a3, q, 4 * g, out);
    }
}

/* Channel groups of one pixel whose 3x3 window (dilation 1) lies inside the input: the
   weights' nine taps are C bytes apart, the input's three taps of a row too. */
/* One row of three taps of a window with no padded tap, four channels: the taps are C bytes
   apart in the input and in the weights (c2 = 2 * C). On a DSP core one asm block of 30
   instructions, so that the compiler's scheduling (which hoists the loads of all nine taps
   and then spills the accumulators) cannot stretch it; elsewhere the same in C. */
#if AP_ARM_DSP_NATIVE
#define DW_DSP_TAP_ASM(xa, wa)                                                            \
    "ldr %[t0], " xa "\n\t"                                                               \
    "ldr %[t1], " wa "\n\t"                                                               \
    "sxtb16 %[t2], %[t0]\n\t"                                                             \
    "sxtb16 %[t3], %[t1]\n\t"                                                             \
    "smlabb %[a0], %[t2], %[t3], %[a0]\n\t"                                               \
    "smlatt %[a2], %[t2], %[t3], %[a2]\n\t"                                               \
    "sxtb16 %[t2], %[t0], ror #8\n\t"                                                     \
    "sxtb16 %[t3], %[t1], ror #8\n\t"                                                     \
    "smlabb %[a1], %[t2], %[t3], %[a1]\n\t"                                               \
    "smlatt %[a3], %[t2], %[t3], %[a3]\n\t"
#define DW_DSP_ROW3_FOLDED(x, w, c, c2)                                                    \
    do {                                                                                   \
        uint32_t t0_, t1_, t2_, t3_;                                                       \
        __asm__(DW_DSP_TAP_ASM("[%[xp]]", "[%[wp]]")                                       \
                DW_DSP_TAP_ASM("[%[xp], %[cc]]", "[%[wp], %[cc]]")                         \
                DW_DSP_TAP_ASM("[%[xp], %[cc2]]", "[%[wp], %[cc2]]")                       \
                : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3),              \
                  [t0] "=&r"(t0_), [t1] "=&r"(t1_), [t2] "=&r"(t2_), [t3] "=&r"(t3_)       \
                : [xp] "r"(x), [wp] "r"(w), [cc] "r"(c), [cc2] "r"(c2));                   \
    } while (0)
#else
#define DW_DSP_ROW3_FOLDED(x, w, c, c2)                                                    \
    do {                                                                                   \
        DW_DSP_TAP_FOLDED(x, w);                                                           \
        DW_DSP_TAP_FOLDED((x) + (c), (w) + (c));                                           \
        DW_DSP_TAP_FOLDED((x) + (c2), (w) + (c2));                                         \
    } while (0)
#endif

static void dw_dsp_groups_3x3(const int8_t *x, const int8_t *w, int32_t C, size_t x_row,
                              int32_t groups, const dw_dsp_quant *q, int8_t *out)
{
    const int32_t C2 = 2 * C;
    for (int32_t g = 0; g < groups; ++g, x += 4, w += 4) {
        const int32_t *b = q->bias_folded + 4 * g;
        int32_t a0 = b[0], a1 = b[1], a2 = b[2], a3 = b[3];
        DW_DSP_ROW3_FOLDED(x, w, C, C2);
        DW_DSP_ROW3_FOLDED(x + x_row, w + 3 * C, C, C2);
        DW_DSP_ROW3_FOLDED(x + 2 * x_row, w + 6 * C, C, C2);
        dw_dsp_out4(a0, a1, a2, a3, q, 4 * g, out);
    }
}

/* A row of one, two or three taps of a window the padding cuts (dilation 1), four channels,
   the input offset added by SXTAB16: the taps are C bytes apart in the input and in the
   weights (c2 = 2 * C). On a DSP core one asm block of ten instructions a tap, so that the
   compiler cannot spill the accumulators between taps (its own loop over the taps took
   sixteen a tap and eighteen a row); elsewhere the same in C. */
#if AP_ARM_DSP_NATIVE
#define DW_DSP_TAP_OFF_ASM(xa, wa)                                                        \
    "ldr %[t0], " xa "\n\t"                                                               \
    "ldr %[t1], " wa "\n\t"                                                               \
    "sxtab16 %[t2], %[off], %[t0]\n\t"                                                    \
    "sxtb16 %[t3], %[t1]\n\t"                                                             \
    "smlabb %[a0], %[t2], %[t3], %[a0]\n\t"                                               \
    "smlatt %[a2], %[t2], %[t3], %[a2]\n\t"                                               \
    "sxtab16 %[t2], %[off], %[t0], ror #8\n\t"                                            \
    "sxtb16 %[t3], %[t1], ror #8\n\t"                                                     \
    "smlabb %[a1], %[t2], %[t3], %[a1]\n\t"                                               \
    "smlatt %[a3], %[t2], %[t3], %[a3]\n\t"
#define DW_DSP_ROW_ASM(code, ...)                                                          \
    do {                                                                                   \
        uint32_t t0_, t1_, t2_, t3_;                                                       \
        __asm__(code                                                                       \
                : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3),              \
                  [t0] "=&r"(t0_), [t1] "=&r"(t1_), [t2] "=&r"(t2_), [t3] "=&r"(t3_)       \
                : __VA_ARGS__);                                                            \
    } while (0)
#define DW_DSP_ROW_CUT(n, x, w, c, c2)                                                     \
    do {                                                                                   \
        if ((n) == 3) {                                                                    \
            DW_DSP_ROW_ASM(DW_DSP_TAP_OFF_ASM("[%[xp]]", "[%[wp]]")                        \
                           DW_DSP_TAP_OFF_ASM("[%[xp], %[cc]]", "[%[wp], %[cc]]")          \
                           DW_DSP_TAP_OFF_ASM("[%[xp], %[cc2]]", "[%[wp], %[cc2]]"),       \
                           [xp] "r"(x), [wp] "r"(w), [cc] "r"(c), [cc2] "r"(c2), [off] "r"(off2)); \
        } else if ((n) == 2) {                                                             \
            DW_DSP_ROW_ASM(DW_DSP_TAP_OFF_ASM("[%[xp]]", "[%[wp]]")                        \
                           DW_DSP_TAP_OFF_ASM("[%[xp], %[cc]]", "[%[wp], %[cc]]"),         \
                           [xp] "r"(x), [wp] "r"(w), [cc] "r"(c), [off] "r"(off2));        \
        } else {                                                                           \
            DW_DSP_ROW_ASM(DW_DSP_TAP_OFF_ASM("[%[xp]]", "[%[wp]]"),                       \
                           [xp] "r"(x), [wp] "r"(w), [off] "r"(off2));                     \
        }                                                                                  \
    } while (0)
#else
#define DW_DSP_ROW_CUT(n, x, w, c, c2)                                                     \
    do {                                                                                   \
        DW_DSP_TAP(x, w);                                                                  \
        if ((n) > 1) {                                                                     \
            DW_DSP_TAP((x) + (c), (w) + (c));                                              \
        }                                                                                  \
        if ((n) > 2) {                                                                     \
            DW_DSP_TAP((x) + (c2), (w) + (c2));                                            \
        }                                                                                  \
    } while (0)
#endif

/* Each width of cut window a function of its own: inlined into the pixel loop, the three-tap
   row's thirteen asm operands find no registers. */
#if defined(__GNUC__)
#define AP_DW_NOINLINE __attribute__((noinline))
#else
#define AP_DW_NOINLINE
#endif

/* Channel groups of one pixel whose window (dilation 1) the padding cuts to `cols` taps a row,
   cols in 1..3 (a constant where each caller inlines it). */
static inline void dw_dsp_groups_cut(const dw_dsp_window *win, int32_t C, int32_t cols, int32_t groups,
                                     uint32_t off2, const dw_dsp_quant *q, int8_t *out)
{
    const int32_t C2 = 2 * C, rows = win->rows;
    const size_t x_row = win->x_row, w_row = win->w_row;
    const dw_dsp_quant ql = *q;   /* in locals: the output stores may alias *q */
    for (int32_t g = 0; g < groups; ++g) {
        const int8_t *x = win->x + 4 * g, *w = win->w + 4 * g;
        const int32_t *b = ql.bias + 4 * g;
        int32_t a0 = b[0], a1 = b[1], a2 = b[2], a3 = b[3];
        for (int32_t r = 0; r < rows; ++r, x += x_row, w += w_row) {
            DW_DSP_ROW_CUT(cols, x, w, C, C2);
        }
        dw_dsp_out4(a0, a1, a2, a3, &ql, 4 * g, out);
    }
}

static AP_DW_NOINLINE void dw_dsp_groups_cut3(const dw_dsp_window *win, int32_t C, int32_t groups, uint32_t off2,
                               const dw_dsp_quant *q, int8_t *out)
{
    dw_dsp_groups_cut(win, C, 3, groups, off2, q, out);
}

static AP_DW_NOINLINE void dw_dsp_groups_cut2(const dw_dsp_window *win, int32_t C, int32_t groups, uint32_t off2,
                               const dw_dsp_quant *q, int8_t *out)
{
    dw_dsp_groups_cut(win, C, 2, groups, off2, q, out);
}

static AP_DW_NOINLINE void dw_dsp_groups_cut1(const dw_dsp_window *win, int32_t C, int32_t groups, uint32_t off2,
                               const dw_dsp_quant *q, int8_t *out)
{
    dw_dsp_groups_cut(win, C, 1, groups, off2, q, out);
}

/* ------------------------------------------------------------------------------------------ */
/* A pixel's channel groups from the blob's weight lanes (ap_dw_direct.lanes), for a 3x3 layer */
/* whose outputs all take the fast requantisation (sums below 2^29) with per-channel           */
/* constants: one routine per window shape (the rows x cols of a 3x3 window the padding        */
/* leaves, 1..3 each).                                                                         */

/*
 * A tap of four channels is eight instructions: the input word, the weights' two lane words
 * (one LDRD: widened when the blob was made), the input's two lanes with the offset added
 * (SXTAB16) and four multiply-accumulates; 2 a MAC, where widening the weights at each tap
 * took 2.5. A cut window runs the same code with fewer taps: the input offset is added at
 * each tap, so no bias is folded and no padded tap is read.
 *
 * A group's four outputs are one shared routine of 50 instructions: the multipliers and the
 * shifts four at a time (LDM), and per output ap_dsp_requant_fast_e's sequence with its last
 * steps merged: (t & 1) + (t >> 1) + offset is (t + 2 * offset + 1) >> 1, and SSAT takes that
 * shift. t + 2 * offset + 1 cannot overflow as |t| < 2^30 when the sums are below 2^29.
 */
typedef struct dw_px {
    const int8_t *x;        /* the window's first tap, channel 0 */
    const uint32_t *w;      /* its lanes, group 0 */
    int32_t c;              /* channels: bytes between a row's taps */
    uint32_t off2;          /* the input offset in both int16 lanes */
    int32_t x_row;          /* bytes between the window's input rows */
    const int32_t *mult;    /* per-channel multipliers and shifts (shift <= 0), channel 0 */
    const int32_t *shift;
    int8_t *out;            /* the pixel's output, channel 0 */
    int32_t round;          /* 2 * output offset + 1 */
    const int32_t *bias;    /* plain bias, channel 0 */
    int8_t *out_end;        /* out + 4 * groups (groups >= 1) */
} dw_px;

#if AP_ARM_DSP_NATIVE && defined(__GNUC__)
/* Functions whose body is one asm block: no prologue, no copy made by the optimiser (the asm
   calls dw_dsp_requant4 by name). */
#if defined(__clang__)
#define AP_DW_ASM_FN __attribute__((naked, noinline, used))
#else
#define AP_DW_ASM_FN __attribute__((naked, noinline, noclone, used))
#endif

/* The routines read dw_px by these offsets (32-bit pointers). */
typedef char dw_px_offsets_checked[offsetof(dw_px, w) == 4 && offsetof(dw_px, x_row) == 16 &&
                                   offsetof(dw_px, mult) == 20 && offsetof(dw_px, out_end) == 40 ? 1 : -1];

/*
 * Registers while the taps run: r0-r2 the window's input rows (a group's four bytes; each
 * row's first tap loads with a post-increment of 4), r3 the lanes (post-increment 72, a
 * group's nine taps), r4 channels, r5 the input offset, r6-r9 the sums of channels 0-3, r10
 * the input word, r11 its lanes, r12 and lr the weights' lanes. The frame below the saved
 * registers holds dw_px's six fields from mult on, the requantisation's state.
 */
#define DW_LT(xa, wa)                                                                      \
    "ldr r10, " xa "\n\t"                                                                  \
    "ldrd r12, lr, " wa "\n\t"                                                             \
    "sxtab16 r11, r5, r10\n\t"                                                             \
    "smlabb r6, r11, r12, r6\n\t"                                                          \
    "smlatt r8, r11, r12, r8\n\t"                                                          \
    "sxtab16 r11, r5, r10, ror #8\n\t"                                                     \
    "smlabb r7, r11, lr, r7\n\t"                                                           \
    "smlatt r9, r11, lr, r9\n\t"
/* Row r (input row register xr, lanes of its taps at o0, o1, o2 bytes) of one to three taps;
   row 0's first tap moves the lanes on to the next group. */
#define DW_R1(xr, o0) DW_LT("[" xr "], #4", "[r3, #" o0 "]")
#define DW_R2(xr, o0, o1) DW_LT("[" xr ", r4]", "[r3, #" o1 "]") DW_R1(xr, o0)
#define DW_R3(xr, o0, o1, o2) DW_LT("[" xr ", r4, lsl #1]", "[r3, #" o2 "]") DW_R2(xr, o0, o1)
#define DW_R1_0 DW_LT("[r0], #4", "[r3], #72")
#define DW_R2_0 DW_LT("[r0, r4]", "[r3, #8]") DW_R1_0
#define DW_R3_0 DW_LT("[r0, r4, lsl #1]", "[r3, #16]") DW_R2_0

/* One output from h = SMMULR(2 * sum) in a and its shift in s (r2 the output, r3 round). */
#define DW_REQ(a, s)                                                                       \
    "rsb " s ", " s ", #0\n\t"                                                             \
    "lsl r12, " a ", #1\n\t"                                                               \
    "add r12, r12, " a ", asr #31\n\t"                                                     \
    "asr r12, r12, " s "\n\t"                                                              \
    "add r12, r12, r3\n\t"                                                                 \
    "ssat " a ", #8, r12, asr #1\n\t"                                                      \
    "strb " a ", [r2], #1\n\t"
#define DW_SRDHM(a, m) "lsl " a ", " a ", #1\n\t" "smmulr " a ", " a ", " m "\n\t"

/* Called by the routines after a group's taps: its four outputs, then, unless it was the last
   group (Z set then), the next group's bias in r6-r9; r0-r5 kept. */
static AP_DW_ASM_FN void dw_dsp_requant4(void)
{
    __asm__ volatile("push {r0-r5, lr}\n\t"
                     "add lr, sp, #28\n\t"
                     "ldm lr, {r0-r3}\n\t"
                     "ldm r0!, {r4, r5, r10, r11}\n\t"
                     DW_SRDHM("r6", "r4") DW_SRDHM("r7", "r5") DW_SRDHM("r8", "r10") DW_SRDHM("r9", "r11")
                     "ldm r1!, {r4, r5, r10, r11}\n\t"
                     DW_REQ("r6", "r4") DW_REQ("r7", "r5") DW_REQ("r8", "r10") DW_REQ("r9", "r11")
                     "stm lr, {r0-r2}\n\t"
                     "ldr r4, [lr, #20]\n\t"
                     "cmp r2, r4\n\t"
                     "ittt ne\n\t"
                     "ldrne r3, [lr, #16]\n\t"
                     "ldmne r3!, {r6-r9}\n\t"
                     "strne r3, [lr, #16]\n\t"
                     "pop {r0-r5, pc}\n\t");
}

/* A routine's entry (the frame, the first group's bias, the tap registers) and exit. */
#define DW_PX_ENTER                                                                        \
    "push {r4-r11, lr}\n\t"                                                                \
    "sub sp, sp, #24\n\t"                                                                  \
    "add r1, r0, #20\n\t"                                                                  \
    "ldm r1, {r4-r9}\n\t"                                                                  \
    "stm sp, {r4-r9}\n\t"                                                                  \
    "add r1, r8, #16\n\t"                                                                  \
    "str r1, [sp, #16]\n\t"                                                                \
    "ldm r8, {r6-r9}\n\t"                                                                  \
    "ldm r0, {r0, r3, r4, r5, r12}\n\t"                                                    \
    "add r1, r0, r12\n\t"                                                                  \
    "add r2, r1, r12\n\t"
#define DW_PX_LEAVE                                                                        \
    "add sp, sp, #24\n\t"                                                                  \
    "pop {r4-r11, pc}\n\t"
#define DW_PX_FN(name, taps)                                                               \
    static AP_DW_ASM_FN void name(const dw_px *p __attribute__((unused)))                   \
    {                                                                                      \
        __asm__ volatile(DW_PX_ENTER "1:\n\t" taps "bl dw_dsp_requant4\n\t"                \
                         "bne 1b\n\t" DW_PX_LEAVE);                                        \
    }

DW_PX_FN(dw_px_1x1, DW_R1_0)
DW_PX_FN(dw_px_1x2, DW_R2_0)
DW_PX_FN(dw_px_1x3, DW_R3_0)
DW_PX_FN(dw_px_2x1, DW_R1("r1", "24") DW_R1_0)
DW_PX_FN(dw_px_2x2, DW_R2("r1", "24", "32") DW_R2_0)
DW_PX_FN(dw_px_2x3, DW_R3("r1", "24", "32", "40") DW_R3_0)
DW_PX_FN(dw_px_3x1, DW_R1("r2", "48") DW_R1("r1", "24") DW_R1_0)
DW_PX_FN(dw_px_3x2, DW_R2("r2", "48", "56") DW_R2("r1", "24", "32") DW_R2_0)
DW_PX_FN(dw_px_3x3, DW_R3("r2", "48", "56", "64") DW_R3("r1", "24", "32", "40") DW_R3_0)

static void dw_px_run(const dw_px *p, int32_t rows, int32_t cols)
{
    static void (*const fns[3][3])(const dw_px *) = {{dw_px_1x1, dw_px_1x2, dw_px_1x3},
                                                      {dw_px_2x1, dw_px_2x2, dw_px_2x3},
                                                      {dw_px_3x1, dw_px_3x2, dw_px_3x3}};
    fns[rows - 1][cols - 1](p);
}
#else
/* One output as the routines requantise it. */
static int8_t dw_px_out(int32_t sum, int32_t m, int32_t shift, int32_t round)
{
    const int32_t h = ap_dsp_smmulr((int32_t)((uint32_t)sum << 1), m);
    const int32_t t = (int32_t)(((uint32_t)h << 1) + (uint32_t)(h >> 31)) >> -shift;
    return (int8_t)ap_dsp_ssat((t + round) >> 1, 8);
}

/* The routines' arithmetic in C (rows, cols in 1..3; a group's nine taps' lanes 18 words
   apart). */
static void dw_px_run(const dw_px *p, int32_t rows, int32_t cols)
{
    const int32_t groups = (int32_t)((p->out_end - p->out) / 4);
    for (int32_t g = 0; g < groups; ++g) {
        const int32_t *b = p->bias + 4 * g;
        int32_t a0 = b[0], a1 = b[1], a2 = b[2], a3 = b[3];
        for (int32_t r = 0; r < rows; ++r) {
            for (int32_t k = 0; k < cols; ++k) {
                const uint32_t xv = ap_dsp_load32(p->x + (size_t)r * (size_t)p->x_row + (size_t)k * (size_t)p->c +
                                                  4 * (size_t)g);
                const uint32_t *w = p->w + ((size_t)g * 9 + (size_t)r * 3 + (size_t)k) * 2;
                const uint32_t xe = ap_dsp_sxtab16(p->off2, xv), xo = ap_dsp_sxtab16_ror8(p->off2, xv);
                a0 = ap_dsp_smlabb(xe, w[0], a0);
                a2 = ap_dsp_smlatt(xe, w[0], a2);
                a1 = ap_dsp_smlabb(xo, w[1], a1);
                a3 = ap_dsp_smlatt(xo, w[1], a3);
            }
        }
        const int32_t c = 4 * g;
        p->out[c] = dw_px_out(a0, p->mult[c], p->shift[c], p->round);
        p->out[c + 1] = dw_px_out(a1, p->mult[c + 1], p->shift[c + 1], p->round);
        p->out[c + 2] = dw_px_out(a2, p->mult[c + 2], p->shift[c + 2], p->round);
        p->out[c + 3] = dw_px_out(a3, p->mult[c + 3], p->shift[c + 3], p->round);
    }
}
#endif

/* Channels [c, C) of one output pixel, one at a time (the last channels % 4, or every channel
   of a window wholly in the padding): no word read past the last channel. */
static void dw_dsp_tail(const ap_dw_direct *d, const dw_dsp_quant *q, int32_t c, int32_t y0, int32_t x0,
                        int32_t ky_lo, int32_t ky_hi, int32_t kx_lo, int32_t kx_hi, int8_t *out)
{
    const int32_t C = d->channels, iw = d->input_w;
    for (; c < C; ++c) {
        int32_t acc = d->bias[c];
        for (int32_t ky = ky_lo; ky < ky_hi; ++ky) {
            const int32_t iy = y0 + ky * d->dilation_h;
            for (int32_t kx = kx_lo; kx < kx_hi; ++kx) {
                const int32_t ix = x0 + kx * d->dilation_w;
                acc = ap_ops_wrap_add(acc, (d->input[((size_t)iy * iw + ix) * C + c] + d->input_offset) *
                       d->w8[((size_t)ky * d->filter_w + kx) * C + c]);
            }
        }
        out[c] = dw_dsp_out(acc, q, c);
    }
}

/* A 3x3 layer (dilation 1) the lanes' routines run: each pixel's window from dw_dsp_inside,
   its channel groups by the routine of its shape, then its last channels % 4. */
static void dw_dsp_direct_lanes(const ap_dw_direct *d, const dw_dsp_quant *q, uint32_t off2)
{
    const int32_t C = d->channels, iw = d->input_w, groups = C / 4;
    dw_px px = {NULL, NULL, C, off2, (int32_t)((size_t)iw * (size_t)C), q->multiplier, q->shift, NULL,
                2 * q->offset + 1, q->bias, NULL};
    int8_t *out = d->out;
    for (int32_t oy = 0; oy < d->output_h; ++oy) {
        const int32_t y0 = oy * d->stride_h - d->pad_h;
        int32_t ky_lo, ky_hi;
        dw_dsp_inside(y0, 1, 3, d->input_h, &ky_lo, &ky_hi);
        for (int32_t ox = 0; ox < d->output_w; ++ox, out += C) {
            const int32_t x0 = ox * d->stride_w - d->pad_w;
            int32_t kx_lo, kx_hi;
            dw_dsp_inside(x0, 1, 3, iw, &kx_lo, &kx_hi);
            int32_t c = 0;
            if (ky_lo < ky_hi && kx_lo < kx_hi) {
                px.x = d->input + ((size_t)(y0 + ky_lo) * (size_t)iw + (size_t)(x0 + kx_lo)) * (size_t)C;
                px.w = d->lanes + (size_t)(ky_lo * 3 + kx_lo) * 2;
                px.out = out;
                px.out_end = out + 4 * groups;
                dw_px_run(&px, ky_hi - ky_lo, kx_hi - kx_lo);
                c = 4 * groups;
            }
            dw_dsp_tail(d, q, c, y0, x0, ky_lo, ky_hi, kx_lo, kx_hi, out);
        }
    }
}

void ap_dw_direct_arm_dsp(const ap_dw_direct *d)
{
    const ap_requant *rq = d->requant;
    const int32_t C = d->channels, iw = d->input_w, groups = C / 4;
    const uint32_t off2 = ((uint32_t)d->input_offset & 0xffffu) * 0x10001u;
    const int plain_3x3 = d->filter_h == 3 && d->filter_w == 3 && d->dilation_h == 1 && d->dilation_w == 1;
    /* a product is (x + offset) * w: at most 255 * 128 in magnitude */
    if (plain_3x3 && d->lanes != NULL && rq->per_channel && groups > 0 && (size_t)iw * (size_t)C <= (size_t)INT32_MAX &&
        ap_dsp_fast_layer_below(d->bias, rq->shift, 1, (size_t)C, 9, 255u * 128u, rq->activation_min,
                                rq->activation_max, 29)) {
        const dw_dsp_quant q = {rq->multiplier, rq->shift, d->bias, d->bias_folded, 1,
                                rq->output_offset, rq->activation_min, rq->activation_max, 1};
        dw_dsp_direct_lanes(d, &q, off2);
        return;
    }
    const int fast = ap_dsp_fast_layer(d->bias, rq->shift, rq->per_channel ? 1 : 0, (size_t)C,
                                       (uint64_t)d->filter_h * (uint64_t)d->filter_w, 255u * 128u,
                                       rq->activation_min, rq->activation_max);
    const dw_dsp_quant q = {rq->multiplier, rq->shift, d->bias, d->bias_folded, rq->per_channel ? 1 : 0,
                            rq->output_offset, rq->activation_min, rq->activation_max, fast};
    dw_dsp_window win;
    win.x_col = (size_t)d->dilation_w * (size_t)C;
    win.x_row = (size_t)d->dilation_h * (size_t)iw * (size_t)C;
    win.w_row = (size_t)d->filter_w * (size_t)C;
    int8_t *out = d->out;
    for (int32_t oy = 0; oy < d->output_h; ++oy) {
        const int32_t y0 = oy * d->stride_h - d->pad_h;
        int32_t ky_lo, ky_hi;
        dw_dsp_inside(y0, d->dilation_h, d->filter_h, d->input_h, &ky_lo, &ky_hi);
        for (int32_t ox = 0; ox < d->output_w; ++ox, out += C) {
            const int32_t x0 = ox * d->stride_w - d->pad_w;
            int32_t kx_lo, kx_hi;
            dw_dsp_inside(x0, d->dilation_w, d->filter_w, iw, &kx_lo, &kx_hi);
            int32_t c = 0;
            if (ky_lo < ky_hi && kx_lo < kx_hi) {
                const int32_t iy = y0 + ky_lo * d->dilation_h, ix = x0 + kx_lo * d->dilation_w;
                win.x = d->input + ((size_t)iy * (size_t)iw + (size_t)ix) * (size_t)C;
                win.w = d->w8 + ((size_t)ky_lo * (size_t)d->filter_w + (size_t)kx_lo) * (size_t)C;
                win.cols = kx_hi - kx_lo;
                win.rows = ky_hi - ky_lo;
                if (plain_3x3 && win.cols == 3 && win.rows == 3) {
                    dw_dsp_groups_3x3(win.x, win.w, C, win.x_row, groups, &q, out);
                } else if (plain_3x3 && win.cols == 3) {
                    dw_dsp_groups_cut3(&win, C, groups, off2, &q, out);
                } else if (plain_3x3 && win.cols == 2) {
                    dw_dsp_groups_cut2(&win, C, groups, off2, &q, out);
                } else if (plain_3x3) {
                    dw_dsp_groups_cut1(&win, C, groups, off2, &q, out);
                } else {
                    dw_dsp_groups_any(&win, C, groups, off2, &q, out);
                }
                c = 4 * groups;
            }
            dw_dsp_tail(d, &q, c, y0, x0, ky_lo, ky_hi, kx_lo, kx_hi, out);
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* "widened" and "widened_pairs": an output row's window rows in scratch as int16, the input  */
/* offset added and the padding zero, so every window is whole; each group of four channels'  */
/* doubled weights and requantisation constants beside them.                                  */

/*
 * Both keep, for each group of four channels, a block of 34 words in scratch,
 * [bias][weights][multipliers][roundings][shifts]: 2 * bias; 18 words of doubled weights
 * (int16 halves, laid out as each variant's taps read them); the multipliers m; the roundings
 * (2 * output offset + 1) << e; the shifts e = -shift (the last group's fourth with bit 8 set,
 * which ends the group loop: ASR reads bits 0-7).
 *
 * "widened": a ring of three rows, [slot][group][padded_w][2 words], each SXTAB16 and SXTAB16
 * ROR 8 of four input bytes with the offset, lanes (c0, c2) and (c1, c3); padded row j in slot
 * j % 3, so each input row is widened once. A tap of four channels is six instructions (LDRD
 * of the input's lanes, LDRD of the weights', four SMLAxx), a group 87 (54 of taps).
 *
 * "widened_pairs": two blocks a group (even and odd sets), one row of pairs,
 * [group][padded_w][4 words], for c0..c3 (x of the upper row, x of the lower row), and one
 * row of lanes as above. The even set's pair is the window's rows 0 and 1 and its single
 * row 2; the odd set's single is row 0 and its pair rows 1 and 2: at stride 1 an output row
 * 2i + 1 takes the odd set, so each pair is built once for two output rows. A column of the
 * window (three taps, four channels) is six LDRDs, four SMLADs and four SMLAxx, 14
 * instructions for 12 MACs; a group 74. Its weights: for each filter column k the pair rows'
 * weights, one word a channel (lo: the upper row's) for c0..c3, then the single row's as lane
 * pairs.
 *
 * The sums are 2 * the portable kernel's (weights and bias doubled), so SMMULR takes them as
 * they are: h = SMMULR(2 * acc, m) is TFLite's SRDHM of acc, and the output is
 * SSAT(((R << e) + 2h + (h < 0 ? -1 : 0)) >> e >> 1) with R = 2 * offset + 1: direct's
 * (t + R) >> 1 with t = (2h + sign) >> e, the rounding added before the shift as a multiple
 * of 2^e (exact while |R| << e < 2^30, checked per channel). A layer whose sums might reach
 * 2^29, whose outputs are clamped, with one multiplier or a channel past that check runs
 * direct's code.
 */
#define DW_WD_BLOCK 34   /* words of a group's block */
enum { DW_WD_BIAS = 0, DW_WD_W = 4, DW_WD_M = 22, DW_WD_ROUND = 26, DW_WD_E = 30 };

/* One output from its rounded-shift operand t (reg) and shift e (reg). */
#define DW_WQ(t, e) "asr " t ", " t ", " e "\n\t" "ssat " t ", #8, " t ", asr #1\n\t" "strb " t ", [r12], #1\n\t"
/* t += 2a + (a < 0 ? -1 : 0) */
#define DW_WT_ROUND(t, a) "add " t ", " t ", " a ", lsl #1\n\t" "add " t ", " t ", " a ", asr #31\n\t"

/* A group's four outputs from its sums in r4-r7, the block's next words at r3 (the
   multipliers, the rounding terms, the shifts), then on to the next group unless the last
   shift word's bit 8 ends the row: the same in widened and widened_pairs. */
#define DW_W_GROUP_OUT                                                                     \
    "ldm r3!, {r8-r11}\n\t"                                                                \
    "smmulr r4, r4, r8\n\t"                                                                \
    "smmulr r5, r5, r9\n\t"                                                                \
    "smmulr r6, r6, r10\n\t"                                                               \
    "smmulr r7, r7, r11\n\t"                                                               \
    "ldm r3!, {r8-r11}\n\t"                                                                \
    DW_WT_ROUND("r8", "r4") DW_WT_ROUND("r9", "r5") DW_WT_ROUND("r10", "r6") DW_WT_ROUND("r11", "r7") \
    "ldm r3!, {r4-r7}\n\t"                                                                 \
    DW_WQ("r8", "r4") DW_WQ("r9", "r5") DW_WQ("r10", "r6") DW_WQ("r11", "r7")               \
    "tst r7, #256\n\t"                                                                     \
    "beq 1b\n\t"

/* One output row's pixels, every group of each: the routine's arguments (byte offsets fixed:
   the asm reads them). */
typedef struct dw_wrow3 {
    const uint32_t *r0, *r1, *r2;   /* the window's three rows at the row's first pixel, group 0 */
    const uint32_t *blocks;         /* the groups' blocks */
    const uint32_t *blocks_end;
    int8_t *out;                    /* the row's first output, channel 0 */
    int8_t *out_end;                /* past the row's last output */
    int32_t group_bytes;            /* bytes between a slot's groups: 8 * padded_w */
    int32_t back;                   /* groups * group_bytes - 8 * stride_w */
} dw_wrow3;

#if AP_ARM_DSP_NATIVE && defined(__GNUC__)
typedef char dw_wrow3_offsets_checked[offsetof(dw_wrow3, blocks) == 12 && offsetof(dw_wrow3, out_end) == 24 &&
                                     offsetof(dw_wrow3, back) == 32 ? 1 : -1];

/*
 * Registers: r0-r2 the rows (moved on a group by lr, the group stride), r3 the group's block
 * (LDM of the bias, LDRD of the weights at fixed offsets, the last one moving it to the
 * constants, which three LDMs take, leaving it at the next block), r4-r7 the sums of channels
 * 0-3, r8-r11 a tap's lanes, r12 the output. A tap of four channels is six instructions, a
 * group 88 (54 of taps, 27 of requantisation, three to move the rows, three for the loop).
 * The frame: blocks, blocks_end, out_end, back.
 */
#define DW_WT(xa, wa)                                                                      \
    "ldrd r8, r9, " xa "\n\t"                                                              \
    "ldrd r10, r11, " wa "\n\t"                                                            \
    "smlabb r4, r8, r10, r4\n\t"                                                           \
    "smlatt r6, r8, r10, r6\n\t"                                                           \
    "smlabb r5, r9, r11, r5\n\t"                                                           \
    "smlatt r7, r9, r11, r7\n\t"

static AP_DW_ASM_FN void dw_wrow3_run(const dw_wrow3 *r __attribute__((unused)))
{
    __asm__ volatile("push {r4-r11, lr}\n\t"
                     "sub sp, sp, #16\n\t"
                     "add r1, r0, #12\n\t"
                     "ldm r1, {r4-r9}\n\t"
                     "stm sp, {r4, r5, r7, r9}\n\t"
                     "mov r3, r4\n\t"
                     "mov r12, r6\n\t"
                     "mov lr, r8\n\t"
                     "ldm r0, {r0-r2}\n\t"
                     "1:\n\t"
                     "ldm r3!, {r4-r7}\n\t"
                     DW_WT("[r0, #8]", "[r3, #8]") DW_WT("[r0, #16]", "[r3, #16]")
                     DW_WT("[r1]", "[r3, #24]") DW_WT("[r1, #8]", "[r3, #32]") DW_WT("[r1, #16]", "[r3, #40]")
                     "add r1, r1, lr\n\t"
                     DW_WT("[r2]", "[r3, #48]") DW_WT("[r2, #8]", "[r3, #56]") DW_WT("[r2, #16]", "[r3, #64]")
                     "add r2, r2, lr\n\t"
                     DW_WT("[r0]", "[r3], #72")
                     "add r0, r0, lr\n\t"
                     DW_W_GROUP_OUT
                     "ldr r8, [sp, #12]\n\t"
                     "sub r0, r0, r8\n\t"
                     "sub r1, r1, r8\n\t"
                     "sub r2, r2, r8\n\t"
                     "ldr r3, [sp]\n\t"
                     "ldr r8, [sp, #8]\n\t"
                     "cmp r12, r8\n\t"
                     "bne 1b\n\t"
                     "add sp, sp, #16\n\t"
                     "pop {r4-r11, pc}\n\t");
}
#else
/* A group's four sums a to its outputs at out, by its block b's multipliers, roundings and
   shifts (the asm routines' requantisation); returns out + 4. */
static inline int8_t *dw_wd_out4(const uint32_t *b, const int32_t a[4], int8_t *out)
{
    for (int k = 0; k < 4; ++k) {
        const int32_t h = ap_dsp_smmulr(a[k], (int32_t)b[DW_WD_M + k]);
        const int32_t t = (int32_t)(b[DW_WD_ROUND + k] + ((uint32_t)h << 1) + (uint32_t)(h >> 31)) >>
                          (int32_t)(b[DW_WD_E + k] & 0xffu);
        *out++ = (int8_t)ap_dsp_ssat(t >> 1, 8);
    }
    return out;
}

/* The routine's arithmetic in C. */
static void dw_wrow3_run(const dw_wrow3 *r)
{
    const uint32_t *r0 = r->r0, *r1 = r->r1, *r2 = r->r2;
    const size_t gw = (size_t)r->group_bytes / 4, back = (size_t)(r->back / 4);
    int8_t *out = r->out;
    while (out != r->out_end) {
        for (const uint32_t *b = r->blocks; b != r->blocks_end; b += DW_WD_BLOCK, r0 += gw, r1 += gw, r2 += gw) {
            int32_t a[4] = {(int32_t)b[0], (int32_t)b[1], (int32_t)b[2], (int32_t)b[3]};
            const uint32_t *rows[3] = {r0, r1, r2};
            for (int t = 0; t < 9; ++t) {
                const uint32_t *x = rows[t / 3] + 2 * (t % 3), *w = b + DW_WD_W + 2 * t;
                a[0] = ap_dsp_smlabb(x[0], w[0], a[0]);
                a[2] = ap_dsp_smlatt(x[0], w[0], a[2]);
                a[1] = ap_dsp_smlabb(x[1], w[1], a[1]);
                a[3] = ap_dsp_smlatt(x[1], w[1], a[3]);
            }
            out = dw_wd_out4(b, a, out);
        }
        r0 -= back;
        r1 -= back;
        r2 -= back;
    }
}
#endif

/* One output row's pixels, every group of each: the routine's arguments (byte offsets fixed:
   the asm reads them). */
typedef struct dw_wpair {
    const uint32_t *pair, *single;  /* the window's pair and single rows at the row's first pixel, group 0 */
    const uint32_t *blocks;         /* the set's blocks */
    int8_t *out;                    /* the row's first output, channel 0 */
    int8_t *out_end;                /* past the row's last output */
    int32_t pair_group, single_group;   /* bytes between a row's groups: 16 and 8 * padded_w */
    int32_t pair_back, single_back;     /* groups * those - 16 and 8 * stride_w */
} dw_wpair;

#if AP_ARM_DSP_NATIVE && defined(__GNUC__)
typedef char dw_wpair_offsets_checked[offsetof(dw_wpair, blocks) == 8 && offsetof(dw_wpair, pair_group) == 20 &&
                                     offsetof(dw_wpair, single_back) == 32 ? 1 : -1];

/*
 * Registers: r0 the pair row and r1 the single row (moved on a group by r2 and lr, their
 * group strides), r3 the group's block (LDM of the bias, LDRD of the weights at fixed
 * offsets, the last one moving it to the constants, which three LDMs take, leaving it at the
 * next block), r4-r7 the sums of channels 0-3, r8-r11 a tap's values, r12 the output. A group
 * is 74 instructions: 42 of taps, 27 of requantisation, two to move the rows, one LDM of the
 * bias, two to loop (the last group's fourth shift word has bit 8 set; ASR reads bits 0-7).
 * The frame: blocks, out_end, pair_back, single_back.
 */
#define DW_WP(xo, wo, a, b)                                                                \
    "ldrd r8, r9, [r0, #" xo "]\n\t"                                                       \
    "ldrd r10, r11, [r3, #" wo "]\n\t"                                                     \
    "smlad " a ", r8, r10, " a "\n\t"                                                      \
    "smlad " b ", r9, r11, " b "\n\t"
#define DW_WS(xo, wo)                                                                      \
    "ldrd r8, r9, [r1, #" xo "]\n\t"                                                       \
    "ldrd r10, r11, [r3, #" wo "]\n\t"                                                     \
    "smlabb r4, r8, r10, r4\n\t"                                                           \
    "smlatt r6, r8, r10, r6\n\t"                                                           \
    "smlabb r5, r9, r11, r5\n\t"                                                           \
    "smlatt r7, r9, r11, r7\n\t"

static AP_DW_ASM_FN void dw_wpair_run(const dw_wpair *r __attribute__((unused)))
{
    __asm__ volatile("push {r4-r11, lr}\n\t"
                     "sub sp, sp, #16\n\t"
                     "add r1, r0, #8\n\t"
                     "ldm r1, {r4-r10}\n\t"
                     "str r4, [sp]\n\t"
                     "str r6, [sp, #4]\n\t"
                     "strd r9, r10, [sp, #8]\n\t"
                     "mov r3, r4\n\t"
                     "mov r12, r5\n\t"
                     "mov r2, r7\n\t"
                     "mov lr, r8\n\t"
                     "ldm r0, {r0, r1}\n\t"
                     "1:\n\t"
                     "ldm r3!, {r4-r7}\n\t"
                     DW_WP("16", "24", "r4", "r5") DW_WP("24", "32", "r6", "r7") DW_WS("8", "40")
                     DW_WP("32", "48", "r4", "r5") DW_WP("40", "56", "r6", "r7") DW_WS("16", "64")
                     DW_WS("0", "16")
                     "add r1, r1, lr\n\t"
                     DW_WP("8", "8", "r6", "r7")
                     "ldrd r8, r9, [r0]\n\t"
                     "add r0, r0, r2\n\t"
                     "ldrd r10, r11, [r3], #72\n\t"
                     "smlad r4, r8, r10, r4\n\t"
                     "smlad r5, r9, r11, r5\n\t"
                     DW_W_GROUP_OUT
                     "ldr r8, [sp, #8]\n\t"
                     "sub r0, r0, r8\n\t"
                     "ldr r8, [sp, #12]\n\t"
                     "sub r1, r1, r8\n\t"
                     "ldr r3, [sp]\n\t"
                     "ldr r8, [sp, #4]\n\t"
                     "cmp r12, r8\n\t"
                     "bne 1b\n\t"
                     "add sp, sp, #16\n\t"
                     "pop {r4-r11, pc}\n\t");
}
#else
/* The routine's arithmetic in C. */
static void dw_wpair_run(const dw_wpair *r)
{
    const uint32_t *pr = r->pair, *sr = r->single;
    const size_t pg = (size_t)r->pair_group / 4, sg = (size_t)r->single_group / 4;
    const size_t pb = (size_t)r->pair_back / 4, sb = (size_t)r->single_back / 4;
    int8_t *out = r->out;
    while (out != r->out_end) {
        const uint32_t *b = r->blocks;
        for (;; b += DW_WD_BLOCK, pr += pg, sr += sg) {
            int32_t a[4] = {(int32_t)b[0], (int32_t)b[1], (int32_t)b[2], (int32_t)b[3]};
            for (int k = 0; k < 3; ++k) {
                const uint32_t *x = pr + 4 * k, *s = sr + 2 * k, *w = b + DW_WD_W + 6 * k;
                for (int c = 0; c < 4; ++c) {
                    a[c] = ap_dsp_smlad(x[c], w[c], a[c]);
                }
                a[0] = ap_dsp_smlabb(s[0], w[4], a[0]);
                a[2] = ap_dsp_smlatt(s[0], w[4], a[2]);
                a[1] = ap_dsp_smlabb(s[1], w[5], a[1]);
                a[3] = ap_dsp_smlatt(s[1], w[5], a[3]);
            }
            out = dw_wd_out4(b, a, out);
            if (b[DW_WD_E + 3] & 0x100u) {
                pr += pg;
                sr += sg;
                break;
            }
        }
        pr -= pb;
        sr -= sb;
    }
}
#endif

/* Where a row's values go: columns [pad_w, pad_w + n) of each group (n >= 1), the padding
   columns left as the run's start set them, 0. */
typedef struct dw_wd_cols {
    int32_t n;            /* input columns a window reads (input_w, or fewer at VALID) */
    size_t group_words;   /* words between a slot's groups */
} dw_wd_cols;

#if AP_ARM_DSP_NATIVE && defined(__GNUC__)
/* Two input rows' `groups` groups of four channels, `count` pixels each (>= 1), as pairs:
   group g's pixels from src + 4g and src + 4g + row_bytes (C bytes apart) into
   dst + g * group_bytes (16 bytes apart). Twelve instructions a group's pixel. */
typedef struct dw_wd_pairs {
    const int8_t *src;
    uint32_t *dst;
    int32_t count, channels;
    uint32_t off2;
    int32_t row_bytes, groups, group_bytes;
} dw_wd_pairs;

static AP_DW_ASM_FN void dw_wd_pairs_run(const dw_wd_pairs *w __attribute__((unused)))
{
    __asm__ volatile("push {r4-r11, lr}\n\t"
                     "ldr r6, [r0, #28]\n\t"
                     "ldr r5, [r0, #24]\n\t"
                     "push {r5, r6}\n\t"
                     "ldm r0, {r0-r5}\n\t"
                     "1:\n\t"
                     "mov r7, r0\n\t"
                     "mov r8, r1\n\t"
                     "mov r9, r2\n\t"
                     "2:\n\t"
                     "ldr r10, [r7]\n\t"
                     "ldr r11, [r7, r5]\n\t"
                     "add r7, r7, r3\n\t"
                     "pkhbt r12, r10, r11, lsl #16\n\t"
                     "pkhtb lr, r11, r10, asr #16\n\t"
                     "sxtab16 r10, r4, r12\n\t"
                     "sxtab16 r11, r4, r12, ror #8\n\t"
                     "sxtab16 r12, r4, lr\n\t"
                     "sxtab16 lr, r4, lr, ror #8\n\t"
                     "stm r8!, {r10-r12, lr}\n\t"
                     "subs r9, r9, #1\n\t"
                     "bne 2b\n\t"
                     "ldr r6, [sp, #4]\n\t"
                     "add r0, r0, #4\n\t"
                     "add r1, r1, r6\n\t"
                     "ldr r6, [sp]\n\t"
                     "subs r6, r6, #1\n\t"
                     "str r6, [sp]\n\t"
                     "bne 1b\n\t"
                     "add sp, sp, #8\n\t"
                     "pop {r4-r11, pc}\n\t");
}

/* An input row's `groups` groups of four channels, `count` pixels each (>= 1), widened with
   the input offset: group g's pixels from src + 4g (C bytes apart) into dst + g * group_bytes
   (8 bytes apart). Two pixels a loop, 5.5 instructions a group's pixel. */
typedef struct dw_wd_widen {
    const int8_t *src;
    uint32_t *dst;
    int32_t count, channels;
    uint32_t off2;
    int32_t groups, group_bytes;
} dw_wd_widen;

static AP_DW_ASM_FN void dw_wd_widen_run(const dw_wd_widen *w __attribute__((unused)))
{
    __asm__ volatile("push {r4-r11, lr}\n\t"
                     "ldm r0, {r0-r6}\n\t"
                     "1:\n\t"
                     "mov r7, r0\n\t"
                     "mov r8, r1\n\t"
                     "mov r9, r2\n\t"
                     "tst r9, #1\n\t"
                     "beq 2f\n\t"
                     "ldr r10, [r7]\n\t"
                     "add r7, r7, r3\n\t"
                     "sxtab16 r11, r4, r10\n\t"
                     "sxtab16 r12, r4, r10, ror #8\n\t"
                     "strd r11, r12, [r8], #8\n\t"
                     "subs r9, r9, #1\n\t"
                     "beq 3f\n\t"
                     "2:\n\t"
                     "ldr r10, [r7]\n\t"
                     "ldr lr, [r7, r3]\n\t"
                     "add r7, r7, r3, lsl #1\n\t"
                     "sxtab16 r11, r4, r10, ror #8\n\t"
                     "sxtab16 r10, r4, r10\n\t"
                     "sxtab16 r12, r4, lr\n\t"
                     "sxtab16 lr, r4, lr, ror #8\n\t"
                     "stm r8!, {r10-r12, lr}\n\t"
                     "subs r9, r9, #2\n\t"
                     "bne 2b\n\t"
                     "3:\n\t"
                     "add r0, r0, #4\n\t"
                     "add r1, r1, r6\n\t"
                     "subs r5, r5, #1\n\t"
                     "bne 1b\n\t"
                     "pop {r4-r11, pc}\n\t");
}
#endif

/* The input row of padded row j, or NULL where it is padding. */
static const int8_t *dw_wd_input_row(const ap_dw_direct *d, int32_t j)
{
    const int32_t iy = j - d->pad_h;
    return iy >= 0 && iy < d->input_h ? d->input + (size_t)iy * (size_t)d->input_w * (size_t)d->channels : NULL;
}

/* Padded row j as lane pairs into the single slot. */
static void dw_wd_single(const ap_dw_direct *d, int32_t j, const dw_wd_cols *cols, uint32_t off2, uint32_t *slot)
{
    const int32_t C = d->channels, G = C / 4, n = cols->n;
    const int8_t *row = dw_wd_input_row(d, j);
    uint32_t *first = slot + 2 * (size_t)d->pad_w;
    if (row == NULL) {
        for (int32_t g = 0; g < G; ++g) {
            uint32_t *dst = first + (size_t)g * cols->group_words;
            for (int32_t i = 0; i < 2 * n; ++i) {
                dst[i] = 0;
            }
        }
        return;
    }
#if AP_ARM_DSP_NATIVE && defined(__GNUC__)
    const dw_wd_widen w = {row, first, n, C, off2, G, (int32_t)(cols->group_words * 4)};
    dw_wd_widen_run(&w);
#else
    for (int32_t g = 0; g < G; ++g) {
        uint32_t *dst = first + (size_t)g * cols->group_words;
        const int8_t *src = row + 4 * (size_t)g;
        for (int32_t ix = 0; ix < n; ++ix, src += C, dst += 2) {
            const uint32_t v = ap_dsp_load32(src);
            dst[0] = ap_dsp_sxtab16(off2, v);
            dst[1] = ap_dsp_sxtab16_ror8(off2, v);
        }
    }
#endif
}

/* Padded rows j and j + 1 as pairs into the pair slot. */
static void dw_wd_pair(const ap_dw_direct *d, int32_t j, const dw_wd_cols *cols, uint32_t off2, uint32_t *slot)
{
    const int32_t C = d->channels, G = C / 4, n = cols->n;
    const int8_t *a = dw_wd_input_row(d, j), *b = dw_wd_input_row(d, j + 1);
    uint32_t *first = slot + 4 * (size_t)d->pad_w;
#if AP_ARM_DSP_NATIVE && defined(__GNUC__)
    if (a != NULL && b != NULL) {
        const dw_wd_pairs w = {a, first, n, C, off2, (int32_t)(b - a), G, (int32_t)(cols->group_words * 4)};
        dw_wd_pairs_run(&w);
        return;
    }
#endif
    for (int32_t g = 0; g < G; ++g) {
        uint32_t *dst = first + (size_t)g * cols->group_words;
        for (int32_t ix = 0; ix < n; ++ix, dst += 4) {
            const size_t at = (size_t)ix * (size_t)C + 4 * (size_t)g;
            /* lanes (c0, c2) and (c1, c3) of each row, 0 for a padding row */
            const uint32_t va = a != NULL ? ap_dsp_load32(a + at) : 0, vb = b != NULL ? ap_dsp_load32(b + at) : 0;
            const uint32_t ea = a != NULL ? ap_dsp_sxtab16(off2, va) : 0, oa = a != NULL ? ap_dsp_sxtab16_ror8(off2, va) : 0;
            const uint32_t eb = b != NULL ? ap_dsp_sxtab16(off2, vb) : 0, ob = b != NULL ? ap_dsp_sxtab16_ror8(off2, vb) : 0;
            dst[0] = ap_dsp_pkhbt(ea, eb, 16);
            dst[1] = ap_dsp_pkhbt(oa, ob, 16);
            dst[2] = ap_dsp_pkhtb16(eb, ea);
            dst[3] = ap_dsp_pkhtb16(ob, oa);
        }
    }
}

/* Two doubled int8 weights as int16 halves. */
static uint32_t dw_wd_half2(int8_t lo, int8_t hi)
{
    return (uint32_t)(uint16_t)(int16_t)(2 * lo) | (uint32_t)(uint16_t)(int16_t)(2 * hi) << 16;
}

/* Group g's bias, multipliers, roundings and shifts into its block; 0 if a channel's rounding
   (2 * offset + 1) << e would reach 2^30. */
static int dw_wd_consts(const ap_dw_direct *d, int32_t g, uint32_t *b)
{
    const ap_requant *rq = d->requant;
    const int32_t round = 2 * rq->output_offset + 1;
    const uint32_t round_abs = (uint32_t)(round < 0 ? -round : round);
    for (int32_t k = 0; k < 4; ++k) {
        const int32_t c = 4 * g + k, e = -rq->shift[c];
        if (e > 29 || ((uint64_t)round_abs << e) >= ((uint64_t)1 << 30)) {
            return 0;
        }
        b[DW_WD_BIAS + k] = (uint32_t)d->bias[c] << 1;
        b[DW_WD_M + k] = (uint32_t)rq->multiplier[c];
        b[DW_WD_ROUND + k] = (uint32_t)round << e;
        b[DW_WD_E + k] = (uint32_t)e;
    }
    return 1;
}

/* widened_pairs' blocks of both sets (0 as dw_wd_consts says). */
static int dw_wd_pair_blocks(const ap_dw_direct *d, uint32_t *even, uint32_t *odd)
{
    const int32_t C = d->channels, G = C / 4;
    for (int32_t g = 0; g < G; ++g) {
        uint32_t *be = even + (size_t)g * DW_WD_BLOCK, *bo = odd + (size_t)g * DW_WD_BLOCK;
        if (!dw_wd_consts(d, g, be)) {
            return 0;
        }
        for (int32_t k = 0; k < 4; ++k) {
            bo[DW_WD_BIAS + k] = be[DW_WD_BIAS + k];
            bo[DW_WD_M + k] = be[DW_WD_M + k];
            bo[DW_WD_ROUND + k] = be[DW_WD_ROUND + k];
            bo[DW_WD_E + k] = be[DW_WD_E + k];
        }
        for (int32_t k = 0; k < 3; ++k) {
            const int8_t *w0 = d->w8 + (size_t)k * (size_t)C + 4 * (size_t)g;   /* filter row 0, column k */
            const int8_t *w1 = w0 + 3 * (size_t)C, *w2 = w0 + 6 * (size_t)C;
            uint32_t *pe = be + DW_WD_W + 6 * k, *po = bo + DW_WD_W + 6 * k;
            for (int32_t c = 0; c < 4; ++c) {
                pe[c] = dw_wd_half2(w0[c], w1[c]);
                po[c] = dw_wd_half2(w1[c], w2[c]);
            }
            pe[4] = dw_wd_half2(w2[0], w2[2]);
            pe[5] = dw_wd_half2(w2[1], w2[3]);
            po[4] = dw_wd_half2(w0[0], w0[2]);
            po[5] = dw_wd_half2(w0[1], w0[3]);
        }
    }
    even[(size_t)(G - 1) * DW_WD_BLOCK + DW_WD_E + 3] |= 0x100u;   /* the last group (ASR reads bits 0-7) */
    odd[(size_t)(G - 1) * DW_WD_BLOCK + DW_WD_E + 3] |= 0x100u;
    return 1;
}

/* The padding columns, left and right, of a slot's groups (`per` words a column): 0. A
   group's right padding and the next one's left are one run of words. */
static void dw_wd_zero_padding(uint32_t *slot, int32_t groups, int32_t pw, int32_t left, int32_t inside_end,
                               size_t per)
{
    const size_t gw = per * (size_t)pw, lw = per * (size_t)left;
    const size_t right = per * (size_t)(pw - (inside_end > left ? inside_end : left)), run = right + lw;
    for (size_t k = 0; k < lw; ++k) {
        slot[k] = 0;
    }
    for (size_t i = 1; i < (size_t)groups; ++i) {
        uint32_t *at = slot + i * gw - right;
        for (size_t k = 0; k < run; ++k) {
            at[k] = 0;
        }
    }
    for (size_t k = 0; k < right; ++k) {
        slot[(size_t)groups * gw - right + k] = 0;
    }
}

/* "widened_pairs": a 3x3 filter, depth multiplier 1, channels % 4 == 0, dilation 1 (its applies). */
void ap_dw_widened_pairs_arm_dsp(const ap_dw_direct *d, void *scratch)
{
    const ap_requant *rq = d->requant;
    const int32_t C = d->channels, G = C / 4;
    const int32_t pw = (d->output_w - 1) * d->stride_w + 3;
    uint32_t *even = (uint32_t *)scratch;
    uint32_t *odd = even + (size_t)G * DW_WD_BLOCK;
    uint32_t *pair = odd + (size_t)G * DW_WD_BLOCK;
    uint32_t *single = pair + (size_t)G * 4 * (size_t)pw;
    if (!rq->per_channel ||
        !ap_dsp_fast_layer_below(d->bias, rq->shift, 1, (size_t)C, 9, 255u * 128u, rq->activation_min,
                                 rq->activation_max, 29) ||
        !dw_wd_pair_blocks(d, even, odd)) {
        ap_dw_direct_arm_dsp(d);
        return;
    }
    const int32_t inside_end = d->pad_w + d->input_w < pw ? d->pad_w + d->input_w : pw;
    const int32_t left = d->pad_w < pw ? d->pad_w : pw;
    dw_wd_zero_padding(pair, G, pw, left, inside_end, 4);
    dw_wd_zero_padding(single, G, pw, left, inside_end, 2);
    const dw_wd_cols pcols = {inside_end - left, 4 * (size_t)pw}, scols = {inside_end - left, 2 * (size_t)pw};
    const uint32_t off2 = ((uint32_t)d->input_offset & 0xffffu) * 0x10001u;
    dw_wpair row;
    row.pair_group = (int32_t)(pcols.group_words * 4);
    row.single_group = (int32_t)(scols.group_words * 4);
    row.pair_back = (int32_t)((size_t)G * pcols.group_words * 4 - 16 * (size_t)d->stride_w);
    row.single_back = (int32_t)((size_t)G * scols.group_words * 4 - 8 * (size_t)d->stride_w);
    const size_t out_row = (size_t)d->output_w * (size_t)C;
    int32_t paired = -1;   /* the padded row the pair slot starts at */
    for (int32_t oy = 0; oy < d->output_h; ++oy) {
        const int32_t j0 = oy * d->stride_h;   /* padded row of the window's first row */
        const int odd_row = d->stride_h == 1 && (oy & 1);
        const int32_t pj = odd_row ? j0 + 1 : j0;   /* the pair's first row */
        if (pcols.n > 0) {
            if (paired != pj) {
                dw_wd_pair(d, pj, &pcols, off2, pair);
                paired = pj;
            }
            dw_wd_single(d, odd_row ? j0 : j0 + 2, &scols, off2, single);
        }
        row.pair = pair;
        row.single = single;
        row.blocks = odd_row ? odd : even;
        row.out = d->out + (size_t)oy * out_row;
        row.out_end = row.out + out_row;
        dw_wpair_run(&row);
    }
}

/* "widened"'s blocks: the nine taps' weights doubled as lane pairs, [tap][2] (from the blob's
   lanes by SADD16 when it has them); 0 as dw_wd_consts says. */
static int dw_wd_lane_blocks(const ap_dw_direct *d, uint32_t *blocks)
{
    const int32_t C = d->channels, G = C / 4;
    for (int32_t g = 0; g < G; ++g) {
        uint32_t *b = blocks + (size_t)g * DW_WD_BLOCK;
        if (!dw_wd_consts(d, g, b)) {
            return 0;
        }
        if (d->lanes != NULL) {
            const uint32_t *l = d->lanes + (size_t)g * 18;
            for (int32_t i = 0; i < 18; i += 6) {
                const uint32_t l0 = l[i], l1 = l[i + 1], l2 = l[i + 2], l3 = l[i + 3], l4 = l[i + 4], l5 = l[i + 5];
                b[DW_WD_W + i] = ap_dsp_sadd16(l0, l0);
                b[DW_WD_W + i + 1] = ap_dsp_sadd16(l1, l1);
                b[DW_WD_W + i + 2] = ap_dsp_sadd16(l2, l2);
                b[DW_WD_W + i + 3] = ap_dsp_sadd16(l3, l3);
                b[DW_WD_W + i + 4] = ap_dsp_sadd16(l4, l4);
                b[DW_WD_W + i + 5] = ap_dsp_sadd16(l5, l5);
            }
        } else {
            for (int32_t t = 0; t < 9; ++t) {
                const int8_t *w = d->w8 + (size_t)t * (size_t)C + 4 * (size_t)g;
                b[DW_WD_W + 2 * t] = dw_wd_half2(w[0], w[2]);
                b[DW_WD_W + 2 * t + 1] = dw_wd_half2(w[1], w[3]);
            }
        }
    }
    blocks[(size_t)(G - 1) * DW_WD_BLOCK + DW_WD_E + 3] |= 0x100u;   /* the last group (ASR reads bits 0-7) */
    return 1;
}

/* "widened": a 3x3 filter, depth multiplier 1, channels % 4 == 0, dilation 1 (its applies). */
void ap_dw_widened_arm_dsp(const ap_dw_direct *d, void *scratch)
{
    const ap_requant *rq = d->requant;
    const int32_t C = d->channels, G = C / 4;
    const int32_t pw = (d->output_w - 1) * d->stride_w + 3;
    uint32_t *blocks = (uint32_t *)scratch;
    uint32_t *slots = blocks + (size_t)G * DW_WD_BLOCK;
    if (!rq->per_channel ||
        !ap_dsp_fast_layer_below(d->bias, rq->shift, 1, (size_t)C, 9, 255u * 128u, rq->activation_min,
                                 rq->activation_max, 29) ||
        !dw_wd_lane_blocks(d, blocks)) {
        ap_dw_direct_arm_dsp(d);
        return;
    }
    const int32_t inside_end = d->pad_w + d->input_w < pw ? d->pad_w + d->input_w : pw;
    const int32_t left = d->pad_w < pw ? d->pad_w : pw;
    dw_wd_zero_padding(slots, 3 * G, pw, left, inside_end, 2);   /* the three slots' groups in a row */
    const dw_wd_cols cols = {inside_end - left, 2 * (size_t)pw};
    const size_t slot_words = (size_t)G * cols.group_words;
    const uint32_t off2 = ((uint32_t)d->input_offset & 0xffffu) * 0x10001u;
    dw_wrow3 row;
    row.blocks = blocks;
    row.blocks_end = blocks + (size_t)G * DW_WD_BLOCK;
    row.group_bytes = (int32_t)(cols.group_words * 4);
    row.back = (int32_t)(slot_words * 4 - 8 * (size_t)d->stride_w);
    const size_t out_row = (size_t)d->output_w * (size_t)C;
    int32_t next = 0;   /* the first padded row not widened yet */
    for (int32_t oy = 0; oy < d->output_h; ++oy) {
        const int32_t j0 = oy * d->stride_h;   /* padded row of the window's first row */
        for (int32_t j = next > j0 ? next : j0; j < j0 + 3 && cols.n > 0; ++j) {
            dw_wd_single(d, j, &cols, off2, slots + (size_t)(j % 3) * slot_words);
        }
        next = j0 + 3;
        row.r0 = slots + (size_t)(j0 % 3) * slot_words;
        row.r1 = slots + (size_t)((j0 + 1) % 3) * slot_words;
        row.r2 = slots + (size_t)((j0 + 2) % 3) * slot_words;
        row.out = d->out + (size_t)oy * out_row;
        row.out_end = row.out + out_row;
        dw_wrow3_run(&row);
    }
}
