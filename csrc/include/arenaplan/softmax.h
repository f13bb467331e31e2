/*
 * SOFTMAX int8 -> int8 or int8 -> int16 over the last dimension, bit-exact with TensorFlow
 * Lite's reference_ops::Softmax<int8_t, int8_t | int16_t> (gemmlowp fixed point: differences
 * to the row maximum rescaled to Q5.26, exp_on_negative_values, sum in Q12.19, GetReciprocal,
 * RoundingDivideByPOT by num_bits_over_unit + 31 - output bits, + the output type's minimum).
 * The output quantisation is fixed by TFLite: int8 scale 1/256, zero point -128; int16 scale
 * 1/65536, zero point -32768. The input zero point does not enter (only differences).
 *
 * Variants:
 *   "direct"     kind AP_SOFTMAX_DIRECT, param 0, no scratch: exp computed twice per
 *                element (once for the sum, once for the output), as TFLite does.
 *   "exp_cache"  kind AP_SOFTMAX_EXP_CACHE, param 0, one scratch buffer of depth * 4 bytes
 *                (alignment 16): each row's exp values are kept between the two passes.
 * in_place 0 for both. MACs reported: outer_size * depth.
 *
 * Where TFLite's own TFLITE_CHECK would abort (a row whose sum of exp(diff) reaches 512, only
 * possible for depth >= 512), the affected outputs are the output type's minimum instead.
 */
#ifndef ARENAPLAN_SOFTMAX_H
#define ARENAPLAN_SOFTMAX_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/kernel.h"
#include "arenaplan/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Variant kinds of SOFTMAX (stable values). */
typedef enum ap_softmax_kind {
    AP_SOFTMAX_DIRECT = 0,
    AP_SOFTMAX_EXP_CACHE = 1
} ap_softmax_kind;

/**
 * One SOFTMAX. outer_size = product of all dims but the last (>= 1); depth = last dim (>= 1).
 * The quantisation fields are TFLite's SoftmaxPrepare for int8 (kScaledDiffIntegerBits = 5):
 *   real = min(beta * input_scale * 2^26, 2^31 - 1)          (double; beta from the options)
 *   (input_beta_multiplier, input_beta_left_shift) = QuantizeMultiplierGreaterThanOne(real)
 *     (= QuantizeMultiplier; left shift in [0, 31], multiplier >= 0)
 *   diff_min = -floor(31 * 2^26 / 2^input_beta_left_shift)   (TFLite CalculateInputRadius; <= 0)
 */
typedef struct ap_softmax_params {
    int32_t outer_size;
    int32_t depth;
    int32_t input_beta_multiplier;
    int32_t input_beta_left_shift;
    int32_t diff_min;
    int32_t output_type;   /* AP_DTYPE_INT8 (0) or AP_DTYPE_INT16 */
} ap_softmax_params;

/** Variants of SOFTMAX; convention as ap_depthwise_conv2d_s8_variants. */
ap_status ap_softmax_s8_variants(const ap_softmax_params *params, ap_isa isa, ap_variant *variants_out,
                                 uint32_t capacity, uint32_t *count_out, ap_error *error_out);

/**
 * Run SOFTMAX int8 -> int8 (output_type AP_DTYPE_INT8). input / output: outer_size * depth
 * int8, not overlapping.
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT (NULL, bad dims or fields, bad variant),
 * AP_ERR_OVERFLOW, AP_ERR_SCRATCH_TOO_SMALL.
 */
ap_status ap_softmax_s8_run(const ap_softmax_params *params, const ap_variant *variant,
                            const int8_t *input, int8_t *output, const ap_scratch *scratch,
                            uint32_t scratch_count, ap_error *error_out);

/**
 * Run SOFTMAX int8 -> int16 (output_type AP_DTYPE_INT16). input: outer_size * depth int8;
 * output: as many int16 (2-byte aligned), not overlapping. Statuses as ap_softmax_s8_run.
 */
ap_status ap_softmax_s8_s16_run(const ap_softmax_params *params, const ap_variant *variant,
                                const int8_t *input, int16_t *output, const ap_scratch *scratch,
                                uint32_t scratch_count, ap_error *error_out);

#ifdef __cplusplus
}
#endif
#endif
