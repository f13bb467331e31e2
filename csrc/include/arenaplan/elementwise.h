/*
 * ADD and MUL, int8, TensorFlow Lite reference semantics
 * (reference_integer_ops::AddElementwise / BroadcastAdd, MulElementwise / BroadcastMul),
 * with 4-D broadcasting: shapes are NHWC-aligned (a rank-r tensor is right-aligned and
 * padded with leading 1s by the caller); every input dim equals the output dim or is 1,
 * and each output dim is the larger of the two input dims.
 *
 * ADD per element:
 *   a = (x1 + input1_offset) << left_shift,  b = (x2 + input2_offset) << left_shift
 *   s = MBQM(a, input1_multiplier, input1_shift) + MBQM(b, input2_multiplier, input2_shift)
 *   out = clamp(MBQM(s, output_multiplier, output_shift) + output_offset, act_min, act_max)
 * MUL per element:
 *   out = clamp(MBQM((x1 + input1_offset) * (x2 + input2_offset), output_multiplier,
 *                    output_shift) + output_offset, act_min, act_max)
 * (MBQM = MultiplyByQuantizedMultiplier, TFLite rounding.)
 *
 * Variants (both ops): "direct", kind AP_ELEMENTWISE_DIRECT, param 0, no scratch;
 * in_place = 1 when an input has exactly the output's shape: the output may then be the
 * same buffer as that input (same start address; partial overlap is not allowed).
 * MACs reported: number of output elements.
 */
#ifndef ARENAPLAN_ELEMENTWISE_H
#define ARENAPLAN_ELEMENTWISE_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/kernel.h"
#include "arenaplan/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Variant kinds of ADD and MUL (stable values). */
typedef enum ap_elementwise_kind {
    AP_ELEMENTWISE_DIRECT = 0
} ap_elementwise_kind;

/**
 * ADD. Fields as TFLite's add.cc Prepare computes them for int8:
 *   input1_offset = -zp1, input2_offset = -zp2 (each in [-127, 128]); output_offset = zp_out;
 *   left_shift = 20 (allowed [0, 22]);
 *   twice_max = 2 * max(scale1, scale2)   (double of the float32 scales)
 *   (input1_multiplier, input1_shift) = QuantizeMultiplierSmallerThanOneExp(scale1 / twice_max)
 *   (input2_multiplier, input2_shift) = QuantizeMultiplierSmallerThanOneExp(scale2 / twice_max)
 *   (output_multiplier, output_shift) = QuantizeMultiplierSmallerThanOneExp(
 *                                          twice_max / ((1 << left_shift) * scale_out))
 *   i.e. QuantizeMultiplier with the shift required <= 0 (all three shifts in [-31, 0]);
 *   multipliers >= 0; activation_min/max from CalculateActivationRangeQuantized.
 */
typedef struct ap_add_params {
    int32_t input1_shape[4];
    int32_t input2_shape[4];
    int32_t output_shape[4];
    int32_t input1_offset, input2_offset, output_offset, left_shift;
    int32_t input1_multiplier, input1_shift, input2_multiplier, input2_shift;
    int32_t output_multiplier, output_shift;
    int32_t activation_min, activation_max;
} ap_add_params;

/**
 * MUL. input1_offset = -zp1, input2_offset = -zp2 (each in [-127, 128]); output_offset = zp_out;
 * (output_multiplier, output_shift) = QuantizeMultiplier(scale1 * scale2 / scale_out)
 * (double arithmetic on the float32 scales; shift in [-31, 31], multiplier >= 0);
 * activation_min/max from CalculateActivationRangeQuantized.
 */
typedef struct ap_mul_params {
    int32_t input1_shape[4];
    int32_t input2_shape[4];
    int32_t output_shape[4];
    int32_t input1_offset, input2_offset, output_offset;
    int32_t output_multiplier, output_shift;
    int32_t activation_min, activation_max;
} ap_mul_params;

/** Variants of ADD; convention as ap_depthwise_conv2d_s8_variants. */
ap_status ap_add_s8_variants(const ap_add_params *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out);

/**
 * Run ADD. input1 / input2 / output: int8 tensors of the params' shapes. output may be
 * input1 or input2 when that input has the output's shape (see in_place), otherwise it must
 * not overlap them. Runs the code of the variant's ISA; identical results.
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT (NULL, shapes that do not broadcast, offsets or
 * shifts out of range, bad variant), AP_ERR_UNSUPPORTED (a positive shift),
 * AP_ERR_OVERFLOW, AP_ERR_SCRATCH_TOO_SMALL.
 */
ap_status ap_add_s8_run(const ap_add_params *params, const ap_variant *variant, const int8_t *input1,
                        const int8_t *input2, int8_t *output, const ap_scratch *scratch,
                        uint32_t scratch_count, ap_error *error_out);

/** Variants of SUB (input1 - input2, TFLite's general int8 path: ap_add_params as ADD's
    Prepare computes them); convention as ap_add_s8_variants. */
ap_status ap_sub_s8_variants(const ap_add_params *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out);

/** Run SUB; arguments, in place and statuses as ap_add_s8_run. */
ap_status ap_sub_s8_run(const ap_add_params *params, const ap_variant *variant, const int8_t *input1,
                        const int8_t *input2, int8_t *output, const ap_scratch *scratch,
                        uint32_t scratch_count, ap_error *error_out);

/** Variants of MUL; convention as ap_depthwise_conv2d_s8_variants. */
ap_status ap_mul_s8_variants(const ap_mul_params *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out);

/** Run MUL; arguments and statuses as ap_add_s8_run (no AP_ERR_UNSUPPORTED). */
ap_status ap_mul_s8_run(const ap_mul_params *params, const ap_variant *variant, const int8_t *input1,
                        const int8_t *input2, int8_t *output, const ap_scratch *scratch,
                        uint32_t scratch_count, ap_error *error_out);

#ifdef __cplusplus
}
#endif
#endif
