/*
 * AVERAGE_POOL_2D and MAX_POOL_2D, int8 NHWC, TensorFlow Lite reference semantics
 * (reference_integer_ops::AveragePool / MaxPool). Input and output share one
 * quantisation (TFLite requires it), so there is no requantisation.
 *
 * Average: over the taps inside the image only (count = valid taps),
 *   avg = sum > 0 ? (sum + count/2) / count : (sum - count/2) / count   (C division),
 * then clamped to [activation_min, activation_max].
 * Max: max over valid taps, clamped.
 *
 * Variants (both ops): "direct", kind AP_POOL2D_DIRECT, param 0, no scratch, in_place 0.
 * MACs reported: batches * output_h * output_w * channels * filter_h * filter_w (additions /
 * comparisons).
 */
#ifndef ARENAPLAN_POOLING_H
#define ARENAPLAN_POOLING_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/kernel.h"
#include "arenaplan/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Variant kinds of the pooling ops (stable values). */
typedef enum ap_pool2d_kind {
    AP_POOL2D_DIRECT = 0
} ap_pool2d_kind;

/**
 * Shapes of one pooling op. All dims >= 1; pad_h / pad_w >= 0 are the top / left padding
 * (TFLite ComputePaddingHeightWidth, dilation 1). Every output window must contain at least
 * one input tap (TFLite fails otherwise). activation_min/max: CalculateActivationRangeQuantized
 * of the fused activation with the output's scale and zero point, within [-128, 127].
 */
typedef struct ap_pool2d_params {
    int32_t batches, input_h, input_w, channels, output_h, output_w, filter_h, filter_w,
        stride_h, stride_w, pad_h, pad_w, activation_min, activation_max;
} ap_pool2d_params;

/** Variants of AVERAGE_POOL_2D; convention as ap_depthwise_conv2d_s8_variants. */
ap_status ap_average_pool2d_s8_variants(const ap_pool2d_params *params, ap_isa isa, ap_variant *variants_out,
                                        uint32_t capacity, uint32_t *count_out, ap_error *error_out);

/**
 * Run AVERAGE_POOL_2D. input [batches][input_h][input_w][channels], output
 * [batches][output_h][output_w][channels], not overlapping.
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT (NULL, bad dims, empty window, variant),
 * AP_ERR_OVERFLOW, AP_ERR_SCRATCH_TOO_SMALL.
 */
ap_status ap_average_pool2d_s8_run(const ap_pool2d_params *params, const ap_variant *variant,
                                   const int8_t *input, int8_t *output, const ap_scratch *scratch,
                                   uint32_t scratch_count, ap_error *error_out);

/** Variants of MAX_POOL_2D; convention as ap_depthwise_conv2d_s8_variants. */
ap_status ap_max_pool2d_s8_variants(const ap_pool2d_params *params, ap_isa isa, ap_variant *variants_out,
                                    uint32_t capacity, uint32_t *count_out, ap_error *error_out);

/** Run MAX_POOL_2D; arguments and statuses as ap_average_pool2d_s8_run. */
ap_status ap_max_pool2d_s8_run(const ap_pool2d_params *params, const ap_variant *variant,
                               const int8_t *input, int8_t *output, const ap_scratch *scratch,
                               uint32_t scratch_count, ap_error *error_out);

#ifdef __cplusplus
}
#endif
#endif
