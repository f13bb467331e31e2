/*
 * SVDF, int8 input and output with an int16 state, bit-exact with TensorFlow Lite's
 * integer SVDF (kernels/svdf.cc Prepare, reference_ops::EvalIntegerSVDF). One run:
 *   1. the whole state moves left by one element: state[i] = state[i + 1];
 *   2. feature matmul, for every batch b and filter f:
 *        acc = sum_c weights_feature[f][c] * (input[b][c] - input_zero_point)
 *        state[b][f * memory + memory - 1] = clamp(MBQM(acc, feature_*), int16)
 *   3. time: scratch[b][f] = sum_m weights_time[f][m] * state[b][f * memory + m]
 *   4. for every unit u (units = filters / rank):
 *        acc = sum_{r < rank} scratch[b][u * rank + r] + bias[u]   (no bias: + 0)
 *        output[b][u] = clamp(MBQM(acc, time_*) + output_zero_point, int8)
 * MBQM is TFLite's MultiplyByQuantizedMultiplier. Every int32 sum wraps (two's complement)
 * where TFLite's would overflow. TFLite accepts only a RELU fused activation on this path
 * and applies no clamp for it beyond int8's range; neither does this kernel.
 *
 * The state is the SVDF's variable tensor: [batches, filters * memory] int16, zero before
 * the first run, read and updated in place by every run (the caller keeps it between runs).
 *
 * Variants, least scratch first (every one gives the same output and state bits):
 *   "fused"   kind AP_SVDF_FUSED, param 0, no scratch. Works through the filters eight at a
 *             time: shifts their state rows, writes their newest features, dots the rows with
 *             the time weights and adds each sum to its unit's running total at once, so no
 *             per-filter int32 buffer is needed.
 *   "direct"  kind AP_SVDF_DIRECT, param 0, one scratch buffer of batches * filters * 4 bytes
 *             (alignment 16): TFLite's int32 scratch of the time step, in TFLite's order.
 * Both take the AVX2 path (vpmaddwd dot products) for x86-avx2 variants, bit-identical
 * to the portable one. in_place 0. MACs reported: batches * filters * (input_size + memory).
 */
#ifndef ARENAPLAN_SVDF_H
#define ARENAPLAN_SVDF_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/kernel.h"
#include "arenaplan/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Variant kinds of SVDF (stable values). */
typedef enum ap_svdf_kind {
    AP_SVDF_DIRECT = 0,
    AP_SVDF_FUSED = 1
} ap_svdf_kind;

/**
 * One SVDF. The fixed-point pairs are TFLite's Prepare (float32 arithmetic on the float32
 * scales, then widened to double):
 *   (feature_multiplier, feature_shift) = QuantizeMultiplier(
 *       (double)(input_scale * weights_feature_scale / state_scale))
 *   (time_multiplier, time_shift) = QuantizeMultiplier(
 *       (double)(state_scale * weights_time_scale / output_scale))
 * multipliers >= 0, shifts in [-31, 31].
 */
typedef struct ap_svdf_params {
    int32_t batches;             /* >= 1: input [batches, input_size], output [batches, units] */
    int32_t input_size;          /* >= 1 */
    int32_t filters;             /* >= 1: weights_feature [filters, input_size] int8 */
    int32_t memory;              /* >= 1: weights_time [filters, memory] int16 */
    int32_t rank;                /* >= 1, divides filters; units = filters / rank; bias [units] int32 */
    int32_t input_zero_point;    /* [-128, 127] */
    int32_t output_zero_point;   /* [-128, 127] */
    int32_t feature_multiplier;
    int32_t feature_shift;
    int32_t time_multiplier;
    int32_t time_shift;
    int32_t time_weights_int8;   /* 0: weights_time and state int16 (TFLite's integer SVDF, LiteRT's and
                                    TensorFlow Lite Micro's); 1: both int8 (TensorFlow Lite Micro's
                                    EvalInt8SvdfReference: ap_svdf_s8_time8_run) */
    int32_t state_zero_point;    /* int8 state: its zero point, [-128, 127]; int16 state: 0 */
} ap_svdf_params;

/** Variants of SVDF; convention as ap_depthwise_conv2d_s8_variants. */
ap_status ap_svdf_s8_variants(const ap_svdf_params *params, ap_isa isa, ap_variant *variants_out,
                              uint32_t capacity, uint32_t *count_out, ap_error *error_out);

/**
 * Bytes of the state tensor: batches * filters * memory * 2 (int8 time weights: * 1).
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT (bad params) or AP_ERR_OVERFLOW.
 */
ap_status ap_svdf_s8_state_bytes(const ap_svdf_params *params, size_t *bytes_out,
                                 ap_error *error_out);

/**
 * Run one SVDF step. input [batches, input_size] int8; weights_feature [filters, input_size]
 * int8; weights_time [filters, memory] int16 (2-byte aligned); bias [units] int32 (4-byte
 * aligned) or NULL; state [batches, filters * memory] int16 (2-byte aligned), read and
 * written; output [batches, units] int8. The state may overlap nothing else.
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT (NULL, bad params, misaligned pointers, variant),
 * AP_ERR_OVERFLOW, AP_ERR_SCRATCH_TOO_SMALL (direct's scratch below batches * filters * 4 bytes).
 * Nothing is written when it fails.
 */
ap_status ap_svdf_s8_run(const ap_svdf_params *params, const ap_variant *variant,
                         const int8_t *input, const int8_t *weights_feature,
                         const int16_t *weights_time, const int32_t *bias, int16_t *state,
                         int8_t *output, const ap_scratch *scratch, uint32_t scratch_count,
                         ap_error *error_out);

/**
 * One SVDF step with int8 time weights and an int8 state (time_weights_int8 1), TensorFlow Lite
 * Micro's EvalInt8SvdfReference as the tflite-micro package runs it: the steps above with
 *   2'. state[b][f * memory + memory - 1] = wrap8(clamp(MBQM(acc, feature_*), int8) + state_zero_point)
 *       (the zero point added after the clamp, the sum narrowed to int8 with wrap-around)
 *   3'. scratch[b][f] = sum_m weights_time[f][m] * (state[b][f * memory + m] - state_zero_point)
 * The state is [batches, filters * memory] int8 (state_zero_point before the first run, as TFLite
 * starts int8 variable tensors). Variants as ap_svdf_s8_variants gives them for these params:
 * "fused" (each unit's rank time sums added as they are made, no scratch) and "direct" (TFLite
 * Micro's order through batches * filters int32 of scratch), portable C on every ISA. Pointers:
 * no alignment for the int8 arrays; bias 4-byte aligned or NULL. Statuses as ap_svdf_s8_run.
 */
ap_status ap_svdf_s8_time8_run(const ap_svdf_params *params, const ap_variant *variant,
                               const int8_t *input, const int8_t *weights_feature,
                               const int8_t *weights_time, const int32_t *bias, int8_t *state,
                               int8_t *output, const ap_scratch *scratch, uint32_t scratch_count,
                               ap_error *error_out);

#ifdef __cplusplus
}
#endif
#endif
