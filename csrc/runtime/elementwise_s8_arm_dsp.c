/*
 * ADD int8, arm-dsp: TFLite's AddElementwise / BroadcastAdd bit for bit with SMMULR.
 *
 * Each input is (x + offset) << left_shift, SRDHM by its multiplier, then a rounding divide
 * by 2^e (e = -shift >= 0); the two are summed and the sum requantised the same way with
 * the output's multiplier. With left_shift <= 20 (TFLite's 20 for int8) every value taken
 * there is below 2^29 in magnitude: |(x + offset) << 20| <= 255 * 2^20, the SRDHM never
 * grows a value and the sum of two stays below 2^29. So (requant_arm_dsp.h):
 *   - the SRDHM of a is SMMULR(2a, m) (|a| < 2^30), and (x + offset) * 2^(left_shift + 1)
 *     is one MLA of the loaded byte;
 *   - the divide of h by 2^e rounding half away from zero is
 *     (2h + [h < 0] * -1 + 2^e) >> (e + 1) for e <= 30: requant_arm_dsp.h's
 *     y = (2h + (h >> 31)) >> e, (y >> 1) + (y & 1), written as (y + 1) >> 1 with the 1
 *     moved inside the shift (2h + 2^e stays below 2^31 for |h| < 2^29); three instructions
 *     (two ADDs with a shifted operand and an ASR).
 * Seven instructions an input, nine for the output with its store, where the general form
 * (ap_fp_multiply_by_quantized_multiplier) takes about thirty an input: 32 an element counted
 * on a Cortex-M4 with the loop and the constants it keeps on the stack (74 portable); the
 * common case (ew_dsp_half_rows below: every ADD of ResNet-8) runs one asm loop of 19. Any
 * other parameters (left_shift > 20 or a shift below -30) take the portable row: the caller
 * finishes what this returns undone. A broadcast (stride 0) input is scaled once a row.
 * ADD's arithmetic is the same under both rounding references.
 */
#include <stdint.h>

#include "arm_dsp.h"
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"

/* The rows below must be inlined per case for their constants to fold (GCC would not). */
#if defined(__GNUC__)
#define EW_DSP_INLINE __attribute__((always_inline))
#else
#define EW_DSP_INLINE
#endif

/* h / 2^e rounded half away from zero, for |h| < 2^29 and 0 <= e <= 30; round = 2^e. */
static inline int32_t ew_dsp_round(int32_t h, int32_t e, int32_t round)
{
    const uint32_t t = ((uint32_t)h << 1) + (uint32_t)round + (uint32_t)(h >> 31);
    return (int32_t)t >> (e + 1);
}

/* One input byte rescaled: scale = 2^(left_shift + 1), folded = offset * scale. */
static inline int32_t ew_dsp_input(int32_t x, int32_t scale, int32_t folded, int32_t m, int32_t e, int32_t round)
{
    const int32_t a = (int32_t)((uint32_t)x * (uint32_t)scale + (uint32_t)folded);
    return ew_dsp_round(ap_dsp_smmulr(a, m), e, round);
}

typedef struct ew_dsp_add {
    int32_t scale, folded1, folded2, m1, e1, r1, m2, e2, r2, mo, eo, ro, offset, lo, hi;
} ew_dsp_add;

static inline int8_t ew_dsp_out(const ew_dsp_add *q, int32_t s1, int32_t s2, int full)
{
    const int32_t sum = s1 + s2;
    int32_t v = ew_dsp_round(ap_dsp_smmulr((int32_t)((uint32_t)sum << 1), q->mo), q->eo, q->ro) + q->offset;
    v = ap_dsp_ssat(v, 8);
    return (int8_t)(full ? v : ap_ops_clamp(v, q->lo, q->hi));
}

/* The rows, inlined per (left_shift is TFLite's 20, full activation range) so that a
   constant shift and no clamp leave the loop's constants in registers. */
static inline EW_DSP_INLINE void ew_dsp_rows(const ew_dsp_add *q, const int8_t *a, int stride_a, const int8_t *b,
                                             int stride_b, int8_t *out, size_t n, int32_t scale, int full)
{
#define EW_IN1(x) ew_dsp_input((x), scale, q->folded1, q->m1, q->e1, q->r1)
#define EW_IN2(x) ew_dsp_input((x), scale, q->folded2, q->m2, q->e2, q->r2)
    if (stride_a && stride_b) {
        for (size_t i = 0; i < n; ++i) {   /* reads i before writing i: in place is safe */
            out[i] = ew_dsp_out(q, EW_IN1(a[i]), EW_IN2(b[i]), full);
        }
    } else if (stride_a) {
        const int32_t sb = EW_IN2(b[0]);
        for (size_t i = 0; i < n; ++i) {
            out[i] = ew_dsp_out(q, EW_IN1(a[i]), sb, full);
        }
    } else if (stride_b) {
        const int32_t sa = EW_IN1(a[0]);
        for (size_t i = 0; i < n; ++i) {
            out[i] = ew_dsp_out(q, sa, EW_IN2(b[i]), full);
        }
    } else {
        const int8_t v = ew_dsp_out(q, EW_IN1(a[0]), EW_IN2(b[0]), full);
        for (size_t i = 0; i < n; ++i) {
            out[i] = v;
        }
    }
#undef EW_IN1
#undef EW_IN2
}

/*
 * The common case in one loop: equal shapes, left_shift 20, the full activation range and one
 * input at TFLite's multiplier 0.5 exactly (the input of the larger scale: 2^30, shift 0), so
 * that its rescaled value is (x + offset) << 19 with no rounding (twice it is one ADD of the
 * loaded byte shifted by 20); the other at any shift in [-30, 0]. The other input takes
 * SMMLAR, whose accumulate adds the rounding's 2^(e-1) (e >= 1), and the sign of its operand
 * (equal to the SRDHM's wherever that is not 0, and either sign gives 0 there); the output
 * the same, with its offset folded into the accumulate as offset * 2^eo (eo <= 21 keeps every
 * sum below 2^31). Per element: two loads, one ADD, five instructions for the other input,
 * one ADD for the doubled sum, six for the output with SSAT, its store and the two shift
 * counts loaded from the stack, and the loop's compare and branch: 19 on a Cortex-M4.
 */
typedef struct ew_dsp_half {
    int32_t fa, fb, lb, mb, rb, sb, mo, ro, so;   /* lb: the other input's shift, 21 (or 22, below) */
} ew_dsp_half;

#if AP_ARM_DSP_NATIVE
/* The loop with the other input's shift LB (an immediate). */
#define EW_DSP_HALF_LOOP(name, LB)                                                                     \
    static void name(const ew_dsp_half *c, const int8_t *a, const int8_t *b, int8_t *out, size_t n)   \
    {                                                                                                  \
        const int8_t *end = a + n;                                                                     \
        int32_t x, y, v;                                                                               \
        const int32_t sb = c->sb, so = c->so;                                                          \
        __asm__ volatile("1:\n\t"                                                                      \
                         "ldrsb %[x], [%[a]], #1\n\t"                                                  \
                         "ldrsb %[y], [%[b]], #1\n\t"                                                  \
                         "add %[x], %[fa], %[x], lsl #20\n\t"                                          \
                         "add %[y], %[fb], %[y], lsl #" LB "\n\t"                                      \
                         "smmlar %[v], %[y], %[mb], %[rb]\n\t"                                         \
                         "asr %[y], %[y], #31\n\t"                                                     \
                         "add %[v], %[y], %[v], lsl #1\n\t"                                            \
                         "ldr %[y], %[sb]\n\t"                                                         \
                         "asr %[v], %[v], %[y]\n\t"                                                    \
                         "add %[x], %[x], %[v], lsl #1\n\t"                                            \
                         "smmlar %[v], %[x], %[mo], %[ro]\n\t"                                         \
                         "asr %[x], %[x], #31\n\t"                                                     \
                         "add %[v], %[x], %[v], lsl #1\n\t"                                            \
                         "ldr %[y], %[so]\n\t"                                                         \
                         "asr %[v], %[v], %[y]\n\t"                                                    \
                         "ssat %[v], #8, %[v]\n\t"                                                     \
                         "strb %[v], [%[o]], #1\n\t"                                                   \
                         "cmp %[a], %[end]\n\t"                                                        \
                         "bne 1b\n\t"                                                                  \
                         : [x] "=&r"(x), [y] "=&r"(y), [v] "=&r"(v), [a] "+r"(a), [b] "+r"(b),         \
                           [o] "+r"(out)                                                               \
                         : [end] "r"(end), [fa] "r"(c->fa), [fb] "r"(c->fb), [mb] "r"(c->mb),          \
                           [rb] "r"(c->rb), [mo] "r"(c->mo), [ro] "r"(c->ro), [sb] "m"(sb), [so] "m"(so) \
                         : "cc", "memory");                                                            \
    }
EW_DSP_HALF_LOOP(ew_dsp_half_loop21, "21")
EW_DSP_HALF_LOOP(ew_dsp_half_loop22, "22")
#endif

/* n >= 1 elements; in place over a or b is safe (each is read before its output is written). */
static void ew_dsp_half_rows(const ew_dsp_half *c, const int8_t *a, const int8_t *b, int8_t *out, size_t n)
{
#if AP_ARM_DSP_NATIVE
    if (c->lb == 21) {
        ew_dsp_half_loop21(c, a, b, out, n);
    } else {
        ew_dsp_half_loop22(c, a, b, out, n);
    }
#else
    for (size_t i = 0; i < n; ++i) {
        const int32_t sa2 = (int32_t)((uint32_t)a[i] * (1u << 20) + (uint32_t)c->fa);
        const int32_t ab = (int32_t)((uint32_t)b[i] * (1u << c->lb) + (uint32_t)c->fb);
        const int32_t vb = c->rb + ap_dsp_smmulr(ab, c->mb);
        const int32_t sb = (int32_t)(((uint32_t)vb << 1) + (uint32_t)(ab >> 31)) >> c->sb;
        const int32_t sum2 = (int32_t)((uint32_t)sa2 + ((uint32_t)sb << 1));
        const int32_t vo = c->ro + ap_dsp_smmulr(sum2, c->mo);
        out[i] = (int8_t)ap_dsp_ssat((int32_t)(((uint32_t)vo << 1) + (uint32_t)(sum2 >> 31)) >> c->so, 8);
    }
#endif
}

/* 1 (and c filled) when ADD's parameters take ew_dsp_half_rows, input 1 the exact half. */
static int ew_dsp_half_of(const ap_add_params *p, int swap, ew_dsp_half *c)
{
    const int32_t ma = swap ? p->input2_multiplier : p->input1_multiplier;
    const int32_t ea = -(swap ? p->input2_shift : p->input1_shift);
    const int32_t mb = swap ? p->input1_multiplier : p->input2_multiplier;
    int32_t eb = -(swap ? p->input1_shift : p->input2_shift);
    const int32_t eo = -p->output_shift;
    if (p->left_shift != 20 || p->activation_min != -128 || p->activation_max != 127 || ma != (1 << 30) ||
        ea != 0 || eb < 0 || eb > 30 || (eb == 0 && mb != (1 << 30)) || eo < 1 || eo > 21) {
        return 0;
    }
    /* the other input at the exact half too (equal scales): taken as (x + offset) << 22 with
       e = 1, whose SMMULR by 2^30 is (x + offset) << 20 exactly and whose halving then is too */
    c->lb = eb == 0 ? 22 : 21;
    eb = eb == 0 ? 1 : eb;
    c->fa = (swap ? p->input2_offset : p->input1_offset) * (1 << 20);
    c->fb = (swap ? p->input1_offset : p->input2_offset) * (1 << c->lb);
    c->mb = mb, c->rb = 1 << (eb - 1), c->sb = eb + 1;
    c->mo = p->output_multiplier, c->ro = (1 << (eo - 1)) + p->output_offset * (1 << eo), c->so = eo + 1;
    return 1;
}

size_t ap_add_row_arm_dsp(const ap_add_params *p, const int8_t *a, int stride_a, const int8_t *b, int stride_b,
                          int8_t *out, size_t n)
{
    const int32_t e1 = -p->input1_shift, e2 = -p->input2_shift, eo = -p->output_shift;
    if (p->left_shift > 20 || e1 > 30 || e2 > 30 || eo > 30) {
        return 0;
    }
    if (n == 0) {
        return 0;
    }
    ew_dsp_add q;
    q.scale = (int32_t)1 << (p->left_shift + 1);
    q.folded1 = p->input1_offset * q.scale;
    q.folded2 = p->input2_offset * q.scale;
    q.m1 = p->input1_multiplier, q.e1 = e1, q.r1 = (int32_t)1 << e1;
    q.m2 = p->input2_multiplier, q.e2 = e2, q.r2 = (int32_t)1 << e2;
    q.mo = p->output_multiplier, q.eo = eo, q.ro = (int32_t)1 << eo;
    q.offset = p->output_offset, q.lo = p->activation_min, q.hi = p->activation_max;
    const int full = q.lo == -128 && q.hi == 127;
    ew_dsp_half half;
    if (stride_a && stride_b && ew_dsp_half_of(p, 0, &half)) {
        ew_dsp_half_rows(&half, a, b, out, n);
    } else if (stride_a && stride_b && ew_dsp_half_of(p, 1, &half)) {
        ew_dsp_half_rows(&half, b, a, out, n);
    } else if (p->left_shift == 20 && full) {
        ew_dsp_rows(&q, a, stride_a, b, stride_b, out, n, (int32_t)1 << 21, 1);
    } else {
        ew_dsp_rows(&q, a, stride_a, b, stride_b, out, n, q.scale, 0);
    }
    return n;
}

/*
 * MUL int8, arm-dsp: TFLite's MulElementwise / BroadcastMul bit for bit. The product of the
 * two offset inputs is at most 255 * 255 < 2^16 in magnitude; with a left shift of at most 13
 * it stays below 2^29, so the SRDHM is SMMULR(2 * (product << left), m) and the rounding divide
 * ew_dsp_round's (as ADD's above). Four elements a step where both inputs advance: a word of
 * each, SXTAB16 adding the offsets to two int16 lanes at a time (bytes 0 and 2, then 1 and 3),
 * SMULBB and SMULTT the four products. Any other parameters take the portable row.
 */
static inline int8_t ew_dsp_mul_out(int32_t prod, int32_t left1, int32_t m, int32_t e, int32_t round,
                                    int32_t offset, int32_t lo, int32_t hi)
{
    const int32_t h = ap_dsp_smmulr((int32_t)((uint32_t)prod << left1), m);
    const int32_t v = ap_dsp_ssat(ew_dsp_round(h, e, round) + offset, 8);
    return (int8_t)ap_ops_clamp(v, lo, hi);
}

size_t ap_mul_row_arm_dsp(const ap_mul_params *p, const int8_t *a, int stride_a, const int8_t *b, int stride_b,
                          int8_t *out, size_t n)
{
    const int32_t left = p->output_shift > 0 ? p->output_shift : 0;
    const int32_t e = p->output_shift < 0 ? -p->output_shift : 0;
    if (left > 13 || e > 30 || n == 0) {
        return 0;
    }
    const int32_t left1 = left + 1, m = p->output_multiplier, round = (int32_t)1 << e;
    const int32_t o1 = p->input1_offset, o2 = p->input2_offset, offset = p->output_offset;
    const int32_t lo = p->activation_min, hi = p->activation_max;
    size_t i = 0;
    if (stride_a && stride_b) {
        const uint32_t off1 = ((uint32_t)o1 & 0xffffu) | ((uint32_t)o1 << 16);
        const uint32_t off2 = ((uint32_t)o2 & 0xffffu) | ((uint32_t)o2 << 16);
        for (; i + 4 <= n; i += 4) {
            const uint32_t wa = ap_dsp_load32(a + i), wb = ap_dsp_load32(b + i);
            const uint32_t a02 = ap_dsp_sxtab16(off1, wa), a13 = ap_dsp_sxtab16_ror8(off1, wa);
            const uint32_t b02 = ap_dsp_sxtab16(off2, wb), b13 = ap_dsp_sxtab16_ror8(off2, wb);
            const int32_t p0 = ap_dsp_smlabb(a02, b02, 0), p2 = ap_dsp_smlatt(a02, b02, 0);
            const int32_t p1 = ap_dsp_smlabb(a13, b13, 0), p3 = ap_dsp_smlatt(a13, b13, 0);
            /* both words read before the writes: in place is safe */
            out[i] = ew_dsp_mul_out(p0, left1, m, e, round, offset, lo, hi);
            out[i + 1] = ew_dsp_mul_out(p1, left1, m, e, round, offset, lo, hi);
            out[i + 2] = ew_dsp_mul_out(p2, left1, m, e, round, offset, lo, hi);
            out[i + 3] = ew_dsp_mul_out(p3, left1, m, e, round, offset, lo, hi);
        }
    }
    for (; i < n; ++i) {
        const int32_t x1 = a[stride_a ? i : 0] + o1, x2 = b[stride_b ? i : 0] + o2;
        out[i] = ew_dsp_mul_out(x1 * x2, left1, m, e, round, offset, lo, hi);
    }
    return n;
}
