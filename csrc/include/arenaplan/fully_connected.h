/*
 * FULLY_CONNECTED, int8, TensorFlow Lite reference semantics
 * (reference_integer_ops::FullyConnected / FullyConnectedPerChannel):
 * acc = sum((w + filter_offset) * (x + input_offset)) + bias, then
 * MultiplyByQuantizedMultiplier, + output offset, clamp.
 *
 * Layouts: input [batches][input_depth] (TFLite flattens all leading dims into
 * batches); filter [output_depth][input_depth]; output [batches][output_depth].
 *
 * Variants:
 *   "direct"  kind AP_FULLY_CONNECTED_DIRECT, param 0, no scratch; reads the filter
 *             repacked at prepare time in blocks of 8 output rows, within a block groups of
 *             4 depth, within a group [8 rows][4 depth] (zero padded), so one 32-byte load
 *             holds 4 depth values of 8 outputs; sum(x * w) in int32 and the offsets folded:
 *             sum((w + fo)(x + io)) = sum(x w) + io * sum(w) + fo * sum(x) + depth * fo * io,
 *             everything but fo * sum(x) (per batch row, computed at run time) in the bias.
 * MACs: batches * output_depth * input_depth.
 *
 * Two requantisations (chosen by `reference` and `real_scale`):
 *   real_scale == NULL  fixed point, MultiplyByQuantizedMultiplier(acc, multiplier, shift)
 *                       (TFLite's optimized kernels, TFLite Micro, CMSIS-NN): always with
 *                       reference AP_REFERENCE_TFLM;
 *   real_scale != NULL  (reference AP_REFERENCE_LITERT only) LiteRT's reference kernel (FullyConnectedInt8<kReference> calls the
 *                       float-scale reference_integer_ops::FullyConnected[PerChannel]):
 *                       out = round_half_away((double)acc * real_scale[c]) + output offset,
 *                       clamped; requant.multiplier / shift are then not read (may be NULL).
 *                       Bit-exact with LiteRT's BUILTIN_REF resolver.
 */
#ifndef ARENAPLAN_FULLY_CONNECTED_H
#define ARENAPLAN_FULLY_CONNECTED_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/kernel.h"
#include "arenaplan/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Variant kinds of FULLY_CONNECTED (stable values). */
typedef enum ap_fully_connected_kind {
    AP_FULLY_CONNECTED_DIRECT = 0,     /* portable and x86-avx2: no scratch */
    AP_FULLY_CONNECTED_SMLAD = 1,      /* arm-dsp: four rows at a time with SMLAD, no scratch */
    AP_FULLY_CONNECTED_SMLAD_X16 = 2   /* arm-dsp: the same over an int16 copy of the input
                                          (scratch: 2 * input_depth rounded down to 4 bytes) */
} ap_fully_connected_kind;

/**
 * Shapes and quantisation of one FULLY_CONNECTED.
 * batches, input_depth (accumulation depth, <= 65536, keeps int32 exact), output_depth >= 1.
 * input_offset = -input zero point, in [-127, 128]; filter_offset = -filter zero point
 * (TFLite's weights_offset; 0 for int8 models), in [-127, 128].
 * requant: per_channel 0 (one multiplier/shift: QuantizeMultiplier(input_scale * filter_scale
 * / output_scale), computed in double as TFLite's GetQuantizedConvolutionMultipler) or 1
 * (output_depth entries, one per filter scale); output_offset = output zero point;
 * activation_min/max from CalculateActivationRangeQuantized(fused activation).
 * real_scale: NULL, or (per_channel ? output_depth : 1) finite values >= 0, each
 * (double)input_scale * (double)filter_scale[c] / (double)output_scale. LiteRT's per-channel
 * reference ignores the filter zero point: pass filter_offset 0 with per_channel 1.
 * reference: an ap_reference; AP_REFERENCE_TFLM requires real_scale NULL.
 */
typedef struct ap_fully_connected_params {
    int32_t batches, input_depth, output_depth, input_offset, filter_offset;
    ap_requant requant;
    const double *real_scale;
    int32_t reference;
} ap_fully_connected_params;

/**
 * Variants that apply (shapes only), least scratch first; see ap_depthwise_conv2d_s8_variants
 * for the calling convention. Returns AP_OK, AP_ERR_INVALID_ARGUMENT, AP_ERR_UNSUPPORTED
 * (input_depth too large), AP_ERR_OVERFLOW.
 */
ap_status ap_fully_connected_s8_variants(const ap_fully_connected_params *params,
                                         ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                         uint32_t *count_out, ap_error *error_out);

/**
 * Bytes of the prepared constants: a 32-byte header (which also records whether every
 * weight is within [-127, 127], TFLite's int8 weight range: the AVX2 path then multiplies
 * bytes without widening them), the folded bias (4 * round_up(output_depth, 8)) and the
 * packed filter (round_up(output_depth, 8) * round_up(input_depth, 4)).
 */
ap_status ap_fully_connected_s8_prepared_size(const ap_fully_connected_params *params,
                                              size_t *bytes_out, ap_error *error_out);

/**
 * Build the prepared constants (host side, once per plan). filter: output_depth*input_depth
 * int8; bias: output_depth int32 or NULL. prepared_out: at least _prepared_size bytes,
 * 4-byte aligned (16 recommended). Embeds the shapes and both offsets; _run checks them.
 */
ap_status ap_fully_connected_s8_prepare(const ap_fully_connected_params *params, ap_isa isa,
                                        const int8_t *filter, const int32_t *bias,
                                        void *prepared_out, size_t prepared_bytes,
                                        ap_error *error_out);

/**
 * Run one variant with the code of its ISA (AP_ERR_UNSUPPORTED where this build or CPU
 * lacks it; every ISA gives identical results).
 * input: batches*input_depth int8; output: batches*output_depth int8, not overlapping input.
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT, AP_ERR_UNSUPPORTED, AP_ERR_OVERFLOW,
 * AP_ERR_SCRATCH_TOO_SMALL.
 */
ap_status ap_fully_connected_s8_run(const ap_fully_connected_params *params,
                                    const ap_variant *variant, const void *prepared,
                                    const int8_t *input, int8_t *output,
                                    const ap_scratch *scratch, uint32_t scratch_count,
                                    ap_error *error_out);

#ifdef __cplusplus
}
#endif
#endif
