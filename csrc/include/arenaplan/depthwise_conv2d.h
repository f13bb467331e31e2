/*
 * DEPTHWISE_CONV_2D, int8 NHWC, TensorFlow Lite reference semantics
 * (reference_integer_ops::DepthwiseConvPerChannel): padded taps are skipped,
 * acc = sum((x + input_offset) * w) + bias, then MultiplyByQuantizedMultiplier,
 * + output offset, clamp.
 *
 * Layouts: input [batches][input_h][input_w][input_c]; filter [1][filter_h][filter_w][output_c]
 * (TFLite's 1HW(C*M)); output [batches][output_h][output_w][output_c] with
 * output channel = input channel * depth_multiplier + m.
 *
 * Phases: _variants (what applies, scratch per variant), _prepared_size and
 * _prepare (once, on the host, at plan time: repacked weights and folded bias;
 * the layout does not depend on the CPU, so it can ship as const data), _run.
 *
 * Variants (least to most scratch; all give bit-identical output):
 *   "direct"         kind AP_DEPTHWISE_CONV2D_DIRECT, param 0, no scratch.
 *   "padded_rows_R"  kind AP_DEPTHWISE_CONV2D_PADDED_ROWS, param R (output rows per block):
 *                    one scratch buffer (alignment 16; run requires at least 2) holding the
 *                    input rows that R output rows read as int16, padded with the input zero
 *                    point and with each input channel repeated depth_multiplier times, so the
 *                    inner loop has no bounds checks and sign-extends nothing (each input
 *                    value is read filter_h * filter_w times but widened once):
 *                      bytes = 2 * ((R-1)*stride_h + (filter_h-1)*dilation_h + 1)
 *                            * ((output_w-1)*stride_w + (filter_w-1)*dilation_w + 1) * output_c
 *                    Offered for R = 1, R = 4 (when output_h > 4) and R = output_h
 *                    (the whole padded input, each input row copied once).
 *   AP_DEPTHWISE_CONV2D_WIDENED "widened" (arm-dsp only; a 3x3 filter, depth multiplier 1,
 *                    output_c a multiple of 4, dilation 1): one scratch of
 *                      bytes = 2 * output_c * (3 * padded_w + 17)
 *                    (padded_w = (output_w-1)*stride_w + 3): a ring of three input rows with
 *                    their padding, the input offset added, as SXTB16 lane pairs (each input
 *                    row widened once), and each group of four channels' doubled weights (as
 *                    lane pairs), bias and requantisation constants, so that a tap of four
 *                    channels is two LDRDs and four multiplies and no pixel takes an edge
 *                    path (the scratch must be 4-byte aligned; 16 asked).
 *   AP_DEPTHWISE_CONV2D_WIDENED_PAIRS "widened_pairs" (arm-dsp only; the layers "widened"
 *                    takes): one scratch of
 *                      bytes = 2 * output_c * (3 * padded_w + 34)
 *                    a row of pairs (one channel's values in two window rows, so that one SMLAD
 *                    takes two taps) and a row of lane pairs, the input offset added, and two
 *                    sets of each group's doubled weights and constants (the pair rows first or
 *                    last: at stride 1 each row of pairs serves two output rows); 4-byte aligned
 *                    (16 asked).
 *   AP_DEPTHWISE_CONV2D_PLANAR "planar" (param 0) and "planar_rows_R" (param R, bands of
 *                    R < output_a output rows) (arm-dsp only; depth multiplier 1, dilation 1,
 *                    any filter, stride and channel count): one channel at a time, its padded
 *                    input rows (all of them, or a band's) as int16 in scratch (4-byte aligned;
 *                    16 asked), so two taps of a row are one SMLAD, with the channel's
 *                    constants and weights after them:
 *                      bytes = 2 * ((R-1)*stride_a + filter_a) * row_len
 *                            + 4 * (9 + filter_a * ceil(filter_b / 2))
 *                    R = output_a for "planar"; row_len = (output_b-1)*stride_b + filter_b + 4
 *                    rounded up to even; a = h and b = w, or a = w and b = h for a filter one
 *                    column wide (filter_w 1, filter_h > 1) and for a square filter (equal
 *                    strides) whose output has more rows than columns, so that the filter's
 *                    taps, or most outputs, lie along a plane row. "planar_rows_4" is offered
 *                    when output_a > 4.
 * Variants are listed least scratch first (ties in the order above).
 * MACs of every variant: batches * output_h * output_w * output_c * filter_h * filter_w.
 */
#ifndef ARENAPLAN_DEPTHWISE_CONV2D_H
#define ARENAPLAN_DEPTHWISE_CONV2D_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/kernel.h"
#include "arenaplan/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Variant kinds of DEPTHWISE_CONV_2D (stable values). */
typedef enum ap_depthwise_conv2d_kind {
    AP_DEPTHWISE_CONV2D_DIRECT = 0,
    AP_DEPTHWISE_CONV2D_PADDED_ROWS = 1,
    /** arm-dsp: the rows of a window widened to int16 lane pairs in scratch ("widened"). */
    AP_DEPTHWISE_CONV2D_WIDENED = 2,
    /** arm-dsp: one channel at a time from an int16 plane of its input ("planar_rows_R"). */
    AP_DEPTHWISE_CONV2D_PLANAR = 3,
    /** arm-dsp: two window rows as pairs of one channel's values, one SMLAD two taps ("widened_pairs"). */
    AP_DEPTHWISE_CONV2D_WIDENED_PAIRS = 4
} ap_depthwise_conv2d_kind;

/**
 * Shapes and quantisation of one DEPTHWISE_CONV_2D.
 * All dimensions >= 1; output_c == input_c * depth_multiplier; pad_h / pad_w >= 0 are
 * the top / left padding (TFLite's ComputePaddingHeightWidth: for SAME,
 * pad = max((out-1)*stride + (filter-1)*dilation + 1 - in, 0) / 2; VALID: 0).
 * input_offset = -input zero point, in [-127, 128].
 * requant: per_channel 1 with output_c entries (TFLite int8 always has per-channel arrays,
 * also for a per-tensor filter scale), multiplier/shift from
 * QuantizeMultiplier((double)input_scale * (double)filter_scale[c] / (double)output_scale);
 * output_offset = output zero point; activation_min/max from CalculateActivationRangeQuantized.
 * filter_h * filter_w <= 65536 (keeps the int32 accumulator exact).
 */
typedef struct ap_depthwise_conv2d_params {
    int32_t batches, input_h, input_w, input_c, output_h, output_w, output_c, filter_h, filter_w,
        stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w, depth_multiplier, input_offset;
    ap_requant requant;
} ap_depthwise_conv2d_params;

/**
 * The variants that apply to `params` (shapes only; requant is not read), least scratch first.
 * variants_out: `capacity` records (AP_MAX_VARIANTS is always enough); pass NULL and 0 to get
 * only the count. count_out: number of variants.
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT (bad dims, capacity too small), AP_ERR_UNSUPPORTED
 * (filter larger than 65536 taps), AP_ERR_OVERFLOW (a size does not fit size_t / int32).
 */
ap_status ap_depthwise_conv2d_s8_variants(const ap_depthwise_conv2d_params *params,
                                          ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                          uint32_t *count_out, ap_error *error_out);

/**
 * Bytes of the prepared constants for `params` (header, folded and plain bias,
 * filter in TFLite order and in tap-pair-interleaved int16 order: [tap pair][channel][2],
 * where within each whole block of 16 channels the channels are stored in the order 0-3,
 * 8-11, 4-7, 12-15, the order in which two taps' 16 channels interleave within the 128-bit
 * halves of an AVX2 register; the layout is the same on every CPU).
 * Returns AP_OK or the shape errors of _variants.
 */
ap_status ap_depthwise_conv2d_s8_prepared_size(const ap_depthwise_conv2d_params *params,
                                               size_t *bytes_out, ap_error *error_out);

/**
 * Build the prepared constants (host side, once per plan).
 * filter: filter_h*filter_w*output_c int8 (1HWO); bias: output_c int32 or NULL (zeros).
 * prepared_out: caller-owned, at least _prepared_size bytes, 4-byte aligned (16 recommended).
 * The result embeds input_offset and the shapes; _run checks they match its params.
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT (NULL pointer, misaligned or too small buffer,
 * bad dims), AP_ERR_UNSUPPORTED, AP_ERR_OVERFLOW.
 */
ap_status ap_depthwise_conv2d_s8_prepare(const ap_depthwise_conv2d_params *params, ap_isa isa,
                                         const int8_t *filter, const int32_t *bias,
                                         void *prepared_out, size_t prepared_bytes,
                                         ap_error *error_out);

/**
 * Run one variant. variant: a record from _variants for the same params (kind and param
 * are used). prepared: from _prepare with the same params. input / output: NHWC int8,
 * must not overlap. scratch: `scratch_count` buffers, at least the variant's requests
 * (checked; AP_ERR_SCRATCH_TOO_SMALL names the buffer, needed and available bytes; the
 * padded_rows buffer must be at least 2-byte aligned, else AP_ERR_INVALID_ARGUMENT).
 * Never allocates. Runs the code of the variant's ISA (AP_ERR_UNSUPPORTED where
 * this build or CPU lacks it); every ISA gives identical results.
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT, AP_ERR_UNSUPPORTED, AP_ERR_OVERFLOW,
 * AP_ERR_SCRATCH_TOO_SMALL.
 */
ap_status ap_depthwise_conv2d_s8_run(const ap_depthwise_conv2d_params *params,
                                     const ap_variant *variant, const void *prepared,
                                     const int8_t *input, int8_t *output,
                                     const ap_scratch *scratch, uint32_t scratch_count,
                                     ap_error *error_out);

#ifdef __cplusplus
}
#endif
#endif
