/*
 * What the arm-dsp CONV_2D kernels share (conv2d_s8_arm_dsp.c: the rows kernel;
 * conv2d_s8_arm_dsp_cols.c: the int16-column variants; conv2d_s8_arm_dsp_strip.c: strip16):
 * a run's requantisation constants and the output of one sum. Not a public header.
 */
#ifndef ARENAPLAN_CONV2D_S8_ARM_DSP_H
#define ARENAPLAN_CONV2D_S8_ARM_DSP_H

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

/* The output of sum x (bias included) with channel multiplier m and shift sh (always inlined:
   where the mode is a constant only its form is compiled). */
static inline __attribute__((always_inline)) int8_t conv_dsp_requant(const conv_dsp_quant *q, int32_t x, int32_t m, int32_t sh)
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

#endif
