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
   sum, at most |bias[c]| + products * per_product in magnitude, below 2^bits (2^30 for
   ap_dsp_fast_layer) (the shift of
   channel c is shift[c * step], step 1 per channel or 0 per tensor). The sums the kernels
   compute in wrapping int32 then equal those true values. */
static inline int ap_dsp_fast_layer_below(const int32_t *bias, const int32_t *shift, size_t step, size_t n,
                                          uint64_t products, uint64_t per_product, int32_t act_min,
                                          int32_t act_max, unsigned bits)
{
    const uint64_t limit = (uint64_t)1 << bits;
    if (act_min != -128 || act_max != 127 || (per_product != 0 && products >= limit / per_product)) {
        return 0;
    }
    /* every |bias| must stay below room (>= 1): 32-bit passes that take the largest |bias|
       and the largest shift without a branch (a run checks every channel: a few instructions
       each, against the ten a requantisation saves per output) */
    const uint32_t room = (uint32_t)(limit - products * per_product);
    uint32_t largest = 0;
    int32_t shift_max = shift[0];
    for (size_t c = 0; c < n; ++c) {
        const uint32_t b = (uint32_t)bias[c], sign = (uint32_t)(bias[c] >> 31);
        const uint32_t magnitude = (b ^ sign) - sign;   /* |bias|, 2^31 for INT32_MIN */
        largest = magnitude > largest ? magnitude : largest;
    }
    for (size_t c = 0; step != 0 && c < n; ++c) {
        shift_max = shift[c] > shift_max ? shift[c] : shift_max;
    }
    return shift_max <= 0 && largest < room;
}

static inline int ap_dsp_fast_layer(const int32_t *bias, const int32_t *shift, size_t step, size_t n,
                                    uint64_t products, uint64_t per_product, int32_t act_min,
                                    int32_t act_max)
{
    return ap_dsp_fast_layer_below(bias, shift, step, n, products, per_product, act_min, act_max, 30);
}

/* The int8 output of sum x for a layer ap_dsp_fast_layer passed: h = SMMULR(2x, m) (the
   SRDHM, |x| < 2^30), then h / 2^e (e = -shift >= 0) rounded half away from zero as
   ap_fp_round_srdhm_by_pot does, taken as 2h / 2^(e + 1) so that e = 0 needs no branch (2h
   fits: |h| <= |x| < 2^30), then the offset and SSAT to [-128, 127]. Nine instructions on a
   DSP core, in one asm block; e is an argument so that a per-tensor layer negates its shift
   once. */
static inline int32_t ap_dsp_requant_fast_e(int32_t x, int32_t m, int32_t e, int32_t offset)
{
#if AP_ARM_DSP_NATIVE
    int32_t v, t;
    __asm__("lsl %[v], %[x], #1\n\t"
            "smmulr %[v], %[v], %[m]\n\t"
            "lsl %[t], %[v], #1\n\t"
            "add %[t], %[t], %[v], asr #31\n\t"
            "asr %[t], %[t], %[e]\n\t"
            "and %[v], %[t], #1\n\t"
            "add %[v], %[v], %[t], asr #1\n\t"
            "add %[v], %[v], %[off]\n\t"
            "ssat %[v], #8, %[v]\n\t"
            : [v] "=&r"(v), [t] "=&r"(t)
            : [x] "r"(x), [m] "r"(m), [e] "r"(e), [off] "r"(offset));
    return v;
#else
    const int32_t h = ap_dsp_smmulr((int32_t)((uint32_t)x << 1), m);
    const int32_t y = (int32_t)(((uint32_t)h << 1) + (uint32_t)(h >> 31)) >> e;
    return ap_dsp_ssat((y >> 1) + (y & 1) + offset, 8);
#endif
}

/* The same with the layer's shift (<= 0) as TFLite stores it. */
static inline int32_t ap_dsp_requant_fast(int32_t x, int32_t m, int32_t shift, int32_t offset)
{
    return ap_dsp_requant_fast_e(x, m, -shift, offset);
}

#endif
