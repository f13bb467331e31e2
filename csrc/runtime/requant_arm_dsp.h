/*
 * The requantisation of the arm-dsp kernels' int32 sums, TFLite's exactly, in fewer
 * instructions where a layer's sums are known to be small. Not a public header.
 *
 * TFLite's MultiplyByQuantizedMultiplier of x is SRDHM(x << left, m) = floor((a * m + 2^30)
 * / 2^31) with a = x << left, then a rounding divide by 2^right. For |a| < 2^30 the same
 * SRDHM is SMMULR(2a, m) = floor((2a * m + 2^31) / 2^32): one instruction where the general
 * form (ap_fp_multiply_by_nonneg_multiplier) takes an SMLAL, two moves and two shifts. A
 * layer qualifies when every channel's sum is bounded below 2^30 by its bias and its number
 * of products and no shift is left (ap_dsp_fast_layer). A layer with a channel whose bias is
 * near 2^30 (a channel pruned to a constant output: most of VWW's last pointwise layers have
 * such channels) takes the wide form, SMULL's full product, two instructions more (a channel
 * with a shift of 0, as some of VWW's pruned ones have, its own form without the rounding
 * divide), where the general form with its clamps costs about forty an output
 * (ap_dsp_requant_mode). The general form runs only where neither applies: a left shift, a
 * large bias with a negative multiplier, or an activation that clamps inside int8.
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

/* How a layer's outputs are requantised (ap_dsp_requant_mode): the general form, the fast
   form, or the wide form (ap_dsp_requant_wide_e: any int32 sum). */
enum { AP_DSP_REQUANT_GENERAL = 0, AP_DSP_REQUANT_FAST = 1, AP_DSP_REQUANT_WIDE = 2 };

/* The wide form's condition, channel by channel (step 1, or 0: one per tensor): the full int8
   activation range, every shift in [-31, 0] (a right shift, or none: a channel's form is
   chosen once a channel, ap_dsp_requant_wide0 for 0) and every multiplier >= 0. */
static inline int ap_dsp_wide_layer(const int32_t *multiplier, const int32_t *shift, size_t step, size_t n,
                                    int32_t act_min, int32_t act_max)
{
    if (act_min != -128 || act_max != 127) {
        return 0;
    }
    for (size_t c = 0; c < (step != 0 ? n : 1); ++c) {
        if (shift[c] > 0 || shift[c] < -31 || multiplier[c] < 0) {
            return 0;
        }
    }
    return 1;
}

/* AP_DSP_REQUANT_FAST where ap_dsp_fast_layer holds, else AP_DSP_REQUANT_WIDE where
   ap_dsp_wide_layer does, else AP_DSP_REQUANT_GENERAL (arguments as those two take). */
static inline int ap_dsp_requant_mode(const int32_t *bias, const int32_t *multiplier, const int32_t *shift,
                                      size_t step, size_t n, uint64_t products, uint64_t per_product,
                                      int32_t act_min, int32_t act_max)
{
    if (ap_dsp_fast_layer(bias, shift, step, n, products, per_product, act_min, act_max)) {
        return AP_DSP_REQUANT_FAST;
    }
    return ap_dsp_wide_layer(multiplier, shift, step, n, act_min, act_max) ? AP_DSP_REQUANT_WIDE
                                                                           : AP_DSP_REQUANT_GENERAL;
}

/* The same with the layer's shift (<= 0) as TFLite stores it. */
static inline int32_t ap_dsp_requant_fast(int32_t x, int32_t m, int32_t shift, int32_t offset)
{
    return ap_dsp_requant_fast_e(x, m, -shift, offset);
}

/* The int8 output of any sum x for a layer ap_dsp_wide_layer passed, e1 = -shift - 1 in
   [0, 30]: the SRDHM from the full 64-bit product (SMULL, + 2^30, bits 62..31: floor((x * m
   + 2^30) / 2^31) for every x and m >= 0), then ap_fp_round_srdhm_by_pot by e1 + 1, the
   offset and SSAT. Eleven instructions on a DSP core, where the general form with its clamps
   takes about forty. */
static inline int32_t ap_dsp_requant_wide_e(int32_t x, int32_t m, int32_t e1, int32_t offset)
{
#if AP_ARM_DSP_NATIVE
    uint32_t lo;
    int32_t hi, v;
    __asm__("smull %[lo], %[hi], %[x], %[m]\n\t"
            "adds %[lo], %[lo], #0x40000000\n\t"
            "adc %[hi], %[hi], #0\n\t"
            "lsl %[hi], %[hi], #1\n\t"
            "orr %[hi], %[hi], %[lo], lsr #31\n\t"
            "add %[hi], %[hi], %[hi], asr #31\n\t"
            "asr %[hi], %[hi], %[e1]\n\t"
            "and %[v], %[hi], #1\n\t"
            "add %[v], %[v], %[hi], asr #1\n\t"
            "add %[v], %[v], %[off]\n\t"
            "ssat %[v], #8, %[v]\n\t"
            : [lo] "=&r"(lo), [hi] "=&r"(hi), [v] "=&r"(v)
            : [x] "r"(x), [m] "r"(m), [e1] "r"(e1), [off] "r"(offset)
            : "cc");
    return v;
#else
    const int32_t h = ap_fp_rounding_doubling_high_mul(x, m);
    return ap_dsp_ssat(ap_fp_round_srdhm_by_pot(h, e1 + 1) + offset, 8);
#endif
}

/* The wide form of a channel whose shift is 0 (no rounding divide: VWW's pruned pointwise
   channels with a multiplier of at least one half): the SRDHM from SMULL's full product, then
   the offset added saturating (QADD: the SRDHM may lie within 127 of INT32_MAX, where the
   sum's saturation is what the int8 clamp of the exact sum gives) and SSAT. Seven
   instructions on a DSP core. */
static inline int32_t ap_dsp_requant_wide0(int32_t x, int32_t m, int32_t offset)
{
#if AP_ARM_DSP_NATIVE
    uint32_t lo;
    int32_t hi;
    __asm__("smull %[lo], %[hi], %[x], %[m]\n\t"
            "adds %[lo], %[lo], #0x40000000\n\t"
            "adc %[hi], %[hi], #0\n\t"
            "lsl %[hi], %[hi], #1\n\t"
            "orr %[hi], %[hi], %[lo], lsr #31\n\t"
            "qadd %[hi], %[hi], %[off]\n\t"
            "ssat %[hi], #8, %[hi]\n\t"
            : [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [x] "r"(x), [m] "r"(m), [off] "r"(offset)
            : "cc");
    return hi;
#else
    const int64_t v = (int64_t)ap_fp_rounding_doubling_high_mul(x, m) + offset;
    return (int32_t)(v < -128 ? -128 : v > 127 ? 127 : v);
#endif
}

/* The same with the layer's shift (in [-31, 0]) as TFLite stores it. A kernel whose loop runs
   one channel's outputs tests the shift once and calls the two forms itself. */
static inline int32_t ap_dsp_requant_wide(int32_t x, int32_t m, int32_t shift, int32_t offset)
{
    return shift == 0 ? ap_dsp_requant_wide0(x, m, offset) : ap_dsp_requant_wide_e(x, m, -shift - 1, offset);
}

#endif
