/*
 * The requantisation of the arm-dsp kernels' int32 sums, TFLite's exactly, in fewer
 * instructions where a layer's sums are known to be small. Not a public header.
 *
 * TFLite's MultiplyByQuantizedMultiplier of x is SRDHM(x << left, m) = floor((a * m + 2^30)
 * / 2^31) with a = x << left, then a rounding divide by 2^right. For |a| < 2^30 the same
 * SRDHM is SMMULR(2a, m) = floor((2a * m + 2^31) / 2^32): one instruction where the general
 * form (ap_fp_multiply_by_nonneg_multiplier) takes an SMLAL, two moves and two shifts. A
 * layer qualifies when every channel's sum is bounded below 2^30 by its bias and its number
 * of products and no shift is left (ap_dsp_fast_layer): true of every layer of the shared
 * models, so the general form runs only for layers whose shifts or biases are extreme.
 */
#ifndef ARENAPLAN_REQUANT_ARM_DSP_H
#define ARENAPLAN_REQUANT_ARM_DSP_H

#include <stddef.h>
#include <stdint.h>

#include "arm_dsp.h"
#include "fixedpoint.h"

/* 1 when every output of a layer takes ap_dsp_requant_fast: the full int8 activation range,
   every shift <= 0 (no left shift: every layer of the shared models) and every channel c < n's
   sum, at most |bias[c]| + products * per_product in magnitude, below 2^30 (the shift of
   channel c is shift[c * step], step 1 per channel or 0 per tensor). The sums the kernels
   compute in wrapping int32 then equal those true values. */
static inline int ap_dsp_fast_layer(const int32_t *bias, const int32_t *shift, size_t step, size_t n,
                                    uint64_t products, uint64_t per_product, int32_t act_min,
                                    int32_t act_max)
{
    const uint64_t limit = (uint64_t)1 << 30;
    if (act_min != -128 || act_max != 127 || (per_product != 0 && products >= limit / per_product)) {
        return 0;
    }
    const uint64_t work = products * per_product;
    for (size_t c = 0; c < n; ++c) {
        const int64_t b = bias[c];
        if (shift[c * step] > 0 || (uint64_t)(b < 0 ? -b : b) + work >= limit) {
            return 0;
        }
    }
    return 1;
}

/* The int8 output of sum x for a layer ap_dsp_fast_layer passed: h = SMMULR(2x, m) (the
   SRDHM, |x| < 2^30), then h / 2^e (e = -shift >= 0) rounded half away from zero as
   ap_fp_round_srdhm_by_pot does, taken as 2h / 2^(e + 1) so that e = 0 needs no branch (2h
   fits: |h| <= |x| < 2^30), then the offset and SSAT to [-128, 127]. Ten instructions on a
   DSP core, in one asm block. */
static inline int32_t ap_dsp_requant_fast(int32_t x, int32_t m, int32_t shift, int32_t offset)
{
#if AP_ARM_DSP_NATIVE
    int32_t v, t, e;
    __asm__("lsl %[v], %[x], #1\n\t"
            "smmulr %[v], %[v], %[m]\n\t"
            "lsl %[t], %[v], #1\n\t"
            "add %[t], %[t], %[v], asr #31\n\t"
            "rsb %[e], %[s], #0\n\t"
            "asr %[t], %[t], %[e]\n\t"
            "and %[v], %[t], #1\n\t"
            "add %[v], %[v], %[t], asr #1\n\t"
            "add %[v], %[v], %[off]\n\t"
            "ssat %[v], #8, %[v]\n\t"
            : [v] "=&r"(v), [t] "=&r"(t), [e] "=&r"(e)
            : [x] "r"(x), [m] "r"(m), [s] "r"(shift), [off] "r"(offset));
    return v;
#else
    const int32_t h = ap_dsp_smmulr((int32_t)((uint32_t)x << 1), m);
    const int32_t y = (int32_t)(((uint32_t)h << 1) + (uint32_t)(h >> 31)) >> (-shift);
    return ap_dsp_ssat((y >> 1) + (y & 1) + offset, 8);
#endif
}

#endif
