/*
 * QUANTIZE and DEQUANTIZE, TensorFlow Lite reference semantics, elementwise over `count`
 * elements (any shape):
 *   ap_quantize_s8    float32 -> int8   (reference_ops::AffineQuantize)
 *                     q = round_half_away(x / scale) + zero_point, clamped to int8
 *                     (the quotient in float32, as TfLiteRound(val / (float)scale))
 *   ap_dequantize_s8  int8 -> float32   (reference_ops::Dequantize)
 *                     y = (float)((double)scale * (q - zero_point))
 *   ap_requantize_s8  int8 -> int8      (QUANTIZE with an int8 input: reference_ops::Requantize)
 *                     q = clamp(MBQM(x - input_zero_point, multiplier, shift) + output_zero_point)
 *   ap_requantize     the same for the integer type pairs TFLite's QUANTIZE requantises:
 *                     int8 -> int8 | int16 | int32 (int32: TensorFlow Lite Micro's; LiteRT
 *                     stops at int16), int16 -> int8 | int16 | int32, int32 -> int8 | int16
 *                     (types in the params); the clamp is the output type's range. Where
 *                     TFLite's int32 arithmetic would overflow (x - zero point of an int32
 *                     input, + output zero point of an int32 output) the result wraps.
 *
 * Variants: one each, "direct", kind AP_QUANTIZE_DIRECT, param 0, no scratch.
 * in_place: 1 for requantisation to a type no wider than the input's (each output element
 * is written after the input elements it covers were read), 0 for the float conversions and
 * widening requantisation. MACs reported: count.
 *
 * Non-finite or out-of-int32-range quotients in ap_quantize_s8 (undefined in TFLite's C++)
 * are defined here: NaN -> zero_point, +-large -> 127 / -128.
 */
#ifndef ARENAPLAN_QUANTIZE_H
#define ARENAPLAN_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/kernel.h"
#include "arenaplan/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Variant kinds of the (de)quantisation ops (stable values). */
typedef enum ap_quantize_kind {
    AP_QUANTIZE_DIRECT = 0
} ap_quantize_kind;

/**
 * float32 <-> int8 affine (de)quantisation of one tensor.
 * count >= 1 elements; scale = the int8 tensor's float32 scale (> 0, finite);
 * zero_point in [-128, 127].
 */
typedef struct ap_affine_quant_params {
    size_t count;
    float scale;
    int32_t zero_point;
} ap_affine_quant_params;

/**
 * Integer requantisation (TFLite quantize.cc Prepare for an integer input):
 * (multiplier, shift) = QuantizeMultiplier((double)input_scale / (double)output_scale);
 * multiplier >= 0, shift in [-31, 31]; each zero point within its tensor type's range.
 * input_type / output_type: ap_dtype values (0, 0: int8 -> int8).
 */
typedef struct ap_requantize_params {
    size_t count;
    int32_t input_zero_point;
    int32_t output_zero_point;
    int32_t multiplier;
    int32_t shift;
    int32_t input_type;
    int32_t output_type;
} ap_requantize_params;

/** Variants of QUANTIZE float32 -> int8; convention as ap_depthwise_conv2d_s8_variants. */
ap_status ap_quantize_s8_variants(const ap_affine_quant_params *params, ap_isa isa, ap_variant *variants_out,
                                  uint32_t capacity, uint32_t *count_out, ap_error *error_out);

/**
 * Run QUANTIZE float32 -> int8. input: count floats; output: count int8, not overlapping.
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT (NULL, count 0, bad scale or zero point, variant),
 * AP_ERR_SCRATCH_TOO_SMALL.
 */
ap_status ap_quantize_s8_run(const ap_affine_quant_params *params, const ap_variant *variant,
                             const float *input, int8_t *output, const ap_scratch *scratch,
                             uint32_t scratch_count, ap_error *error_out);

/** Variants of DEQUANTIZE int8 -> float32; convention as ap_depthwise_conv2d_s8_variants. */
ap_status ap_dequantize_s8_variants(const ap_affine_quant_params *params, ap_isa isa, ap_variant *variants_out,
                                    uint32_t capacity, uint32_t *count_out, ap_error *error_out);

/** Run DEQUANTIZE int8 -> float32 (output not overlapping input); statuses as ap_quantize_s8_run. */
ap_status ap_dequantize_s8_run(const ap_affine_quant_params *params, const ap_variant *variant,
                               const int8_t *input, float *output, const ap_scratch *scratch,
                               uint32_t scratch_count, ap_error *error_out);

/** Variants of requantisation (any supported type pair); convention as
    ap_depthwise_conv2d_s8_variants. */
ap_status ap_requantize_s8_variants(const ap_requantize_params *params, ap_isa isa, ap_variant *variants_out,
                                    uint32_t capacity, uint32_t *count_out, ap_error *error_out);

/** Run int8 -> int8 requantisation (output may equal input; params types must be int8);
    statuses as ap_quantize_s8_run. */
ap_status ap_requantize_s8_run(const ap_requantize_params *params, const ap_variant *variant,
                               const int8_t *input, int8_t *output, const ap_scratch *scratch,
                               uint32_t scratch_count, ap_error *error_out);

/**
 * Run requantisation of the params' type pair. input: count elements of input_type;
 * output: count elements of output_type, each aligned to its element size; the output may
 * start at the input when it is no wider. Statuses as ap_quantize_s8_run (an unsupported
 * type pair or misaligned buffer is AP_ERR_INVALID_ARGUMENT).
 */
ap_status ap_requantize_run(const ap_requantize_params *params, const ap_variant *variant,
                            const void *input, void *output, const ap_scratch *scratch,
                            uint32_t scratch_count, ap_error *error_out);

#ifdef __cplusplus
}
#endif
#endif
