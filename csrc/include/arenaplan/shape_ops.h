/*
 * Data-movement and reduction ops, int8, TensorFlow Lite reference semantics:
 *   CONCATENATION  reference_ops::Concatenation (a copy; TFLite's int8 kernel requires every
 *                  input to share the output's scale and zero point). Inputs with another
 *                  quantisation may be requantised on the way, exactly like QUANTIZE int8->int8.
 *   PAD / PADV2    reference_ops::Pad with a constant value (PAD: the output zero point;
 *                  PADV2: the quantised constant_values), non-negative paddings.
 *   MEAN           over H and W of a 4-D tensor, LiteRT's reference_ops::QuantizedMeanOrSum
 *                  (integer form, what the BUILTIN_REF MEAN kernel runs for int8; keep_dims
 *                  true or false: the output [N,1,1,C] and [N,C] have the same bytes).
 *   RESHAPE        no kernel in a plan (the output aliases the input); ap_reshape_run is the
 *                  plain copy for a non-aliased placement (also SQUEEZE / EXPAND_DIMS).
 *
 * Shapes are 4-D (a rank-r tensor is padded with leading 1s by the caller; an axis moves
 * with it). Variants: CONCATENATION, PAD, RESHAPE: "direct" (kind 0, no scratch). MEAN:
 * "direct" (kind AP_MEAN_DIRECT, no scratch, channel blocks of 64 on the stack) and
 * "row_sums" (kind AP_MEAN_ROW_SUMS, one scratch buffer of channels * 4 bytes, alignment 16,
 * reads the input once in raster order). in_place: 1 only for RESHAPE (memmove).
 */
#ifndef ARENAPLAN_SHAPE_OPS_H
#define ARENAPLAN_SHAPE_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/kernel.h"
#include "arenaplan/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Variant kind of CONCATENATION, PAD and RESHAPE (stable value). */
typedef enum ap_shape_op_kind {
    AP_SHAPE_OP_DIRECT = 0
} ap_shape_op_kind;

/** Variant kinds of MEAN (stable values). */
typedef enum ap_mean_kind {
    AP_MEAN_DIRECT = 0,
    AP_MEAN_ROW_SUMS = 1
} ap_mean_kind;

/** Most inputs one CONCATENATION takes. */
enum { AP_CONCAT_MAX_INPUTS = 64 };

/**
 * CONCATENATION along `axis` (0..3) of `input_count` (1..AP_CONCAT_MAX_INPUTS) int8 tensors.
 * output_shape: 4-D; input i has the output's shape except input_axis_sizes[i] (>= 0, summing
 * to output_shape[axis]) along the axis.
 * Requantisation (optional): input_multipliers / input_shifts / input_zero_points either all
 * NULL (plain copy) or input_count entries each: for input i,
 * (multiplier, shift) = QuantizeMultiplier((double)scale_i / (double)scale_out), zero point
 * zp_i; the kernel copies bytes unchanged when (multiplier, shift, zp_i) is
 * (1 << 30, 1, output_zero_point) - the identity - and requantises otherwise.
 */
typedef struct ap_concatenation_params {
    int32_t output_shape[4];
    int32_t axis;
    uint32_t input_count;
    const int32_t *input_axis_sizes;
    const int32_t *input_multipliers;
    const int32_t *input_shifts;
    const int32_t *input_zero_points;
    int32_t output_zero_point;
} ap_concatenation_params;

/** Variants of CONCATENATION; convention as ap_depthwise_conv2d_s8_variants. */
ap_status ap_concatenation_s8_variants(const ap_concatenation_params *params, ap_isa isa, ap_variant *variants_out,
                                       uint32_t capacity, uint32_t *count_out, ap_error *error_out);

/**
 * Run CONCATENATION. inputs: input_count pointers (non-NULL unless that input is empty);
 * output: the output tensor, overlapping no input.
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT (NULL, bad axis / sizes / requant fields, variant),
 * AP_ERR_OVERFLOW, AP_ERR_SCRATCH_TOO_SMALL.
 */
ap_status ap_concatenation_s8_run(const ap_concatenation_params *params, const ap_variant *variant,
                                  const int8_t *const *inputs, int8_t *output, const ap_scratch *scratch,
                                  uint32_t scratch_count, ap_error *error_out);

/**
 * PAD: output dim d = input_shape[d] + pad_before[d] + pad_after[d]; every pad >= 0;
 * pad_value in [-128, 127] (PAD: the output zero point).
 */
typedef struct ap_pad_params {
    int32_t input_shape[4];
    int32_t pad_before[4];
    int32_t pad_after[4];
    int32_t pad_value;
} ap_pad_params;

/** Variants of PAD; convention as ap_depthwise_conv2d_s8_variants. */
ap_status ap_pad_s8_variants(const ap_pad_params *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out);

/** Run PAD (output not overlapping input); statuses as ap_concatenation_s8_run. */
ap_status ap_pad_s8_run(const ap_pad_params *params, const ap_variant *variant, const int8_t *input,
                        int8_t *output, const ap_scratch *scratch, uint32_t scratch_count,
                        ap_error *error_out);

/**
 * MEAN over H, W of [batches][input_h][input_w][channels] -> [batches][channels]:
 *   n = input_h * input_w; k = min(floor(log2 n), 32, 31 + shift);
 *   m' = (multiplier << k) / n (int64, truncating); s' = shift - k;
 *   out = clamp(MBQM(sum(x - input_zero_point), m', s') + output_zero_point, -128, 127).
 * (multiplier, shift) = QuantizeMultiplier((double)input_scale / (double)output_scale)
 * (TFLite reduce.cc PrepareMeanOrSum); zero points in [-128, 127]; input_h * input_w <= 2^23.
 */
typedef struct ap_mean_params {
    int32_t batches, input_h, input_w, channels;
    int32_t input_zero_point, output_zero_point;
    int32_t multiplier, shift;
} ap_mean_params;

/** Variants of MEAN; convention as ap_depthwise_conv2d_s8_variants. */
ap_status ap_mean_s8_variants(const ap_mean_params *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);

/** Run MEAN (output not overlapping input); statuses as ap_concatenation_s8_run. */
ap_status ap_mean_s8_run(const ap_mean_params *params, const ap_variant *variant, const int8_t *input,
                         int8_t *output, const ap_scratch *scratch, uint32_t scratch_count,
                         ap_error *error_out);

/** RESHAPE copy: `bytes` >= 1 bytes of any dtype. */
typedef struct ap_reshape_params {
    size_t bytes;
} ap_reshape_params;

/** Variants of the RESHAPE copy ("direct", in_place 1); convention as above. */
ap_status ap_reshape_variants(const ap_reshape_params *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);

/** Copy `bytes` from input to output (memmove: any overlap is fine). */
ap_status ap_reshape_run(const ap_reshape_params *params, const ap_variant *variant, const void *input,
                         void *output, const ap_scratch *scratch, uint32_t scratch_count,
                         ap_error *error_out);

#ifdef __cplusplus
}
#endif
#endif
