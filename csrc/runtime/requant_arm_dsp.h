/*
 * The requantisation of the arm-dsp kernels' int32 sums, TFLite's exactly, in fewer
 * instructions where a layer's sums are known to be small. Not a public header.
 *
 * TFLite's MultiplyByQuantizedMultiplier of x is SRDHM(x << left, m) = floor((a * m + 2^30)
 * / 2^31) with a = x << left, then a rounding divide by 2^right. For |a| < 2^30 the same
 * SRDHM is SMMULR(2a, m) = floor((2a * m + 2^31) / 2^32): one instruction where the general
 * form (ap_fp_multiply_by_nonneg_multiplier) takes an SMLAL, two moves and two shifts. A
 * layer qualifies when every channel's sum is bounded below 2^(30 - left) by its bias and
 * its number of products (ap_dsp_small_sums): true of every layer of the shared models, so
 * the general form runs only for layers whose shifts or biases are extreme.
 */
#ifndef ARENAPLAN_REQUANT_ARM_DSP_H
#define ARENAPLAN_REQUANT_ARM_DSP_H

#include <stddef.h>
#include <stdint.h>

#include "arm_dsp.h"
#include "fixedpoint.h"

/* 1 when every channel c < n's sum, whose true value is at most |bias[c]| + products *
   per_product in magnitude, is below 2^(30 - left) for its shift (left = max(shift, 0); the
   shift of channel c is shift[c * step], step 1 per channel or 0 per tensor). The sums the
   kernels compute in wrapping int32 then equal those true values. bias may be NULL. */
static inline int ap_dsp_small_sums(const int32_t *bias, const int32_t *shift, size_t step, size_t n,
                                    uint64_t products, uint64_t per_product)
{
    if (products > ((uint64_t)1 << 31) / (per_product == 0 ? 1 : per_product)) {
        return 0;
    }
    const uint64_t work = products * per_product;
    for (size_t c = 0; c < n; ++c) {
        const int32_t sh = shift[c * step];
        const int32_t left = sh > 0 ? sh : 0;
        const int64_t b = bias == NULL ? 0 : (int64_t)bias[c];
        const uint64_t bound = (uint64_t)(b < 0 ? -b : b) + work;
        if (left > 29 || bound >= ((uint64_t)1 << (30 - left))) {
            return 0;
        }
    }
    return 1;
}

/* A layer whose every output takes ap_dsp_requant_fast: small sums (as above), shifts <= 0
   (no left shift: every layer of the shared models) and the full int8 activation range. */
static inline int ap_dsp_fast_layer(const int32_t *bias, const int32_t *shift, size_t step, size_t n,
                                    uint64_t products, uint64_t per_product, int32_t act_min,
                                    int32_t act_max)
{
    if (act_min != -128 || act_max != 127) {
        return 0;
    }
    for (size_t c = 0; c < n; ++c) {
        if (shift[c * step] > 0) {
            return 0;
        }
    }
    return ap_dsp_small_sums(bias, shift, step, n, products, per_product);
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
