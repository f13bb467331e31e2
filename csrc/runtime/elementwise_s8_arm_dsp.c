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
 * (ap_fp_multiply_by_quantized_multiplier) takes about thirty an input (32 an element counted
 * on a Cortex-M4 with the loop and the constants it keeps on the stack, 74 portable). Any other
 * parameters (left_shift > 20 or a shift below -30) take the portable row: the caller
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
static inline EW_DSP_INLINE void ew_dsp_rows(const ew_dsp_add *q, const int8_t *a, int stride_a, const int8_t *b, int stride_b,
                               int8_t *out, size_t n, int32_t scale, int full)
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

size_t ap_add_row_arm_dsp(const ap_add_params *p, const int8_t *a, int stride_a, const int8_t *b, int stride_b,
                          int8_t *out, size_t n)
{
    const int32_t e1 = -p->input1_shift, e2 = -p->input2_shift, eo = -p->output_shift;
    if (p->left_shift > 20 || e1 > 30 || e2 > 30 || eo > 30) {
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
    if (p->left_shift == 20 && full) {
        ew_dsp_rows(&q, a, stride_a, b, stride_b, out, n, (int32_t)1 << 21, 1);
    } else {
        ew_dsp_rows(&q, a, stride_a, b, stride_b, out, n, q.scale, 0);
    }
    return n;
}
