/*
 * CONV_2D, int8 (TensorFlow Lite reference_integer_ops::ConvPerChannel semantics).
 *
 * Life of a conv op:
 *   ap_conv2d_s8_variants()       host, plan time: the variants that apply, least scratch first;
 *   ap_conv2d_s8_prepared_size()  host, plan time: bytes of the prepared constant blob;
 *   ap_conv2d_s8_prepare()        host, plan time: repacks the filter and folds the input
 *                                 offset into the bias; the blob is CPU-independent (the same
 *                                 bytes serve every variant and every SIMD level, and can be
 *                                 shipped to a target as const data);
 *   ap_conv2d_s8_run()            any time: runs one variant with the scratch the planner placed.
 *
 * Layouts: input NHWC [batches][input_h][input_w][input_c], filter OHWI
 * [output_c][filter_h][filter_w][input_c], output NHWC [batches][output_h][output_w][output_c],
 * all int8; bias int32 [output_c]. Padding is explicit (top/left); the bottom/right padding
 * is implied by the output size.
 *
 * Variants (ap_variant.kind / .param / .name), listed least scratch first:
 *   AP_CONV2D_DIRECT         "direct"            no scratch; reads the input in place.
 *   AP_CONV2D_GEMM_1X1       "gemm_1x1"          no scratch; 1x1 filter, stride 1, no padding,
 *                                                output size == input size: the input already is
 *                                                the GEMM matrix.
 *   AP_CONV2D_IM2COL_ROWS    "im2col_rows_<R>"   one scratch of R * k_pad bytes: im2col of R output
 *                                                pixels at a time, then GEMM (param = R; offered for
 *                                                R = t, 4t, 16t, ... < output_h * output_w, t the
 *                                                ISA's tile: 2 on arm-dsp, 3 elsewhere;
 *                                                run accepts any 1 <= R < output_h * output_w).
 *   AP_CONV2D_IM2COL         "im2col"            one scratch of output_h * output_w * k_pad bytes:
 *                                                the whole im2col matrix of one image, then GEMM.
 *   AP_CONV2D_IM2COL16_ROWS  "im2col16_rows_<C>" arm-dsp only, every shape, C = 2 or 4: one
 *                                                scratch of (2 * C + 1) * k_pad bytes: the im2col
 *                                                rows of C pixels widened to int16 once
 *                                                (2 * C * k_pad) and one int8 row to gather into
 *                                                (param = C).
 *   AP_CONV2D_IM2COL16W_ROWS "im2col16w_rows_4"  arm-dsp only, every shape: one scratch of
 *                                                9 * k_pad + output_c * (2 * k_pad + 12) bytes:
 *                                                im2col16_rows_4's, then per output channel its
 *                                                weights widened to int16 with its bias,
 *                                                multiplier and shift (once a run), so that no
 *                                                multiply-add widens a value (param = 4).
 *   AP_CONV2D_LANES          "lanes"             x86-avx2 only, layers with small weights (k <= 576,
 *                                                output_c rounded up to 8 = oc8 <= 256,
 *                                                ceil(k / 2) * oc8 <= 8192, and from 32 output
 *                                                pixels on past half of that): one scratch of
 *                                                4 * ceil(k / 2) * oc8 (the weights widened to
 *                                                int16, once a run) + 28 * oc8 (per-channel
 *                                                requantisation constants) + 24 * ps (12 im2col
 *                                                rows of int16, ps = k + 16 rounded up to 16)
 *                                                bytes; each vpmaddwd lane is an output channel.
 *   AP_CONV2D_STRIP16        "strip16"           arm-dsp only, layers of at most 4 input channels
 *                                                (first layers), dilation_w 1, not pointwise, with
 *                                                k2 = filter_h * ceil(filter_w * input_c / 2) <= 32:
 *                                                one scratch of oc_pad * (12 + 4 * k2) (the weights
 *                                                widened to int16 pairs with each block's biases and
 *                                                requantisation constants, once a run) + 4 * copies *
 *                                                filter_h * (v / 2 + 1) bytes (one output row's input
 *                                                rows widened to int16, v = ((output_w - 1) *
 *                                                stride_w + filter_w) * input_c values a padded row;
 *                                                copies 2 where stride_w * input_c is odd and
 *                                                output_w > 1, else 1): no per-pixel gather.
 * where k_pad = filter_h * filter_w * input_c rounded up to a multiple of 4. The im2col
 * variants do not apply where gemm_1x1 does (their matrix would be a copy of the input).
 * Every variant gives bit-identical output on every CPU.
 */
#ifndef ARENAPLAN_CONV2D_H
#define ARENAPLAN_CONV2D_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/kernel.h"
#include "arenaplan/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Conv variant kinds (ap_variant.kind). Values are stable. */
typedef enum ap_conv2d_kind {
    /** No scratch: the output is computed straight from the input. */
    AP_CONV2D_DIRECT = 0,
    /** Partial im2col of `param` output pixels at a time + GEMM. */
    AP_CONV2D_IM2COL_ROWS = 1,
    /** Whole-image im2col matrix + GEMM. */
    AP_CONV2D_IM2COL = 2,
    /** Pointwise (1x1, stride 1, no padding): GEMM on the input itself. */
    AP_CONV2D_GEMM_1X1 = 3,
    /** arm-dsp: im2col of `param` (4) pixels widened to int16 in scratch, then GEMM. */
    AP_CONV2D_IM2COL16_ROWS = 4,
    /** x86-avx2, small weights: int16 weights and im2col rows in scratch, one lane a channel. */
    AP_CONV2D_LANES = 5,
    /** arm-dsp, few input channels: a row of pixels' input rows widened to int16 in scratch. */
    AP_CONV2D_STRIP16 = 6,
    /** arm-dsp: im2col16_rows with the weights widened to int16 too, into scratch, once a run. */
    AP_CONV2D_IM2COL16W_ROWS = 7
} ap_conv2d_kind;

/** Bytes at the start of every prepared blob (a header that `run` checks against params). */
enum { AP_CONV2D_PREPARED_HEADER_BYTES = 64 };

/** Required alignment of the prepared blob's address (it holds int32 values). */
enum { AP_CONV2D_PREPARED_ALIGNMENT = 4 };

/**
 * Shapes and quantisation of one conv. All sizes are element counts.
 * Ranges: every size >= 1; strides and dilations >= 1; pads >= 0 and each side's padding
 * (top/left given, bottom/right implied by the output size) below the dilated filter size,
 * with output_h = (input_h + pad_h + pad_bottom - ((filter_h - 1) * dilation_h + 1)) / stride_h + 1
 * for an implied pad_bottom in [1 - stride_h, dilated filter_h - 1] (likewise for w).
 * TFLite's SAME and VALID paddings are both of this form.
 */
typedef struct ap_conv2d_params {
    int32_t batches, input_h, input_w, input_c, output_h, output_w, output_c, filter_h, filter_w;
    int32_t stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w;  /* pad: top/left, explicit */
    int32_t input_offset;   /* = -input zero point, in [-127, 128] */
    ap_requant requant;     /* per output channel multiplier/shift, output offset, activation clamp;
                               only `run` reads it (multiplier >= 0, shift in [-31, 30],
                               output_offset in [-128, 127], -128 <= min <= max <= 127) */
} ap_conv2d_params;

/**
 * List the variants that apply to params' shapes, least scratch first (variants_out[0] needs
 * the least; it is always "direct", with no scratch). Reads the shapes only (not requant,
 * not input_offset).
 * variants_out: caller-owned array of `capacity` entries; may be NULL when capacity == 0 to
 *               only count. count_out (required) gets the number of variants that apply.
 * Returns AP_OK; AP_ERR_INVALID_ARGUMENT (NULL params/count_out, bad shapes, or capacity below
 * the count: nothing is written then); AP_ERR_OVERFLOW (a size does not fit size_t).
 */
ap_status ap_conv2d_s8_variants(const ap_conv2d_params *params, ap_isa isa, ap_variant *variants_out,
                                uint32_t capacity, uint32_t *count_out, ap_error *error_out);

/**
 * Bytes of the prepared blob for params' shapes:
 * AP_CONV2D_PREPARED_HEADER_BYTES + 4 * oc_pad + oc_pad * k_pad, where oc_pad = output_c rounded
 * up to a multiple of 4 and k_pad as in the variants' note above.
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT (NULL pointer, bad shapes) or AP_ERR_OVERFLOW.
 */
ap_status ap_conv2d_s8_prepared_size(const ap_conv2d_params *params, size_t *bytes_out,
                                     ap_error *error_out);

/**
 * Build the prepared blob (host, once per op): a header, the folded bias
 * bias[oc] + input_offset * sum(filter[oc]) (int32, wrapping as TFLite's int32 accumulator
 * would), and the filter repacked for the GEMM micro-kernels: blocks of 4 output channels,
 * within a block groups of 4 consecutive k (k = (fy * filter_w + fx) * input_c + c), within a
 * group [4 channels][4 k]; padding channels and k are zero. The layout does not depend on
 * the CPU; the header records `isa` (the ISA whose code will read it; every ISA reads this one
 * layout today). Reads params' shapes and input_offset (not requant).
 * filter: OHWI int8, output_c * filter_h * filter_w * input_c values (required).
 * bias: output_c int32 values, or NULL for none.
 * prepared_out: caller-owned, prepared_bytes >= ap_conv2d_s8_prepared_size(),
 *               aligned to AP_CONV2D_PREPARED_ALIGNMENT; run() reads it, never writes it.
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT (NULL pointer, bad shapes or input_offset, misaligned
 * or too small blob: error->needed/available say the bytes) or AP_ERR_OVERFLOW.
 */
ap_status ap_conv2d_s8_prepare(const ap_conv2d_params *params, ap_isa isa, const int8_t *filter,
                               const int32_t *bias, void *prepared_out, size_t prepared_bytes,
                               ap_error *error_out);

/**
 * Run one variant. Never allocates; writes nothing but `output` and the scratch buffers, and
 * nothing at all when it fails. Runs the code of the variant's ISA (variant->isa): portable and
 * arm-dsp (today the portable kernels) anywhere they are compiled, x86-avx2 where this build
 * and CPU have it (else AP_ERR_UNSUPPORTED naming both ISAs); every ISA gives the same bits.
 * Stack: every function of it on every ISA has a frame of at most 2 KiB (tests/c/test_stack.py);
 * each variant runs its own code and every larger buffer is its scratch request.
 * params: as given to prepare (shapes and input_offset must match the blob) plus requant.
 * variant: one of ap_conv2d_s8_variants()'s entries (kind and param are read; the scratch
 *          sizes are recomputed, not trusted).
 * prepared: the blob from ap_conv2d_s8_prepare for these params.
 * input: NHWC int8; output: NHWC int8 (must not overlap the input or the scratch).
 * scratch: `scratch_count` buffers, at least the variant's scratch_count, each with
 *          bytes >= the variant's request (requests say 16; the arm-dsp variants that read
 *          int16 words from scratch -- im2col16_rows, im2col16w_rows, strip16 -- require
 *          4, the others none).
 * Returns AP_OK; AP_ERR_INVALID_ARGUMENT (NULL pointer, bad shapes or quantisation, misaligned
 * scratch (above), blob that does not match params, variant that does not apply);
 * AP_ERR_UNSUPPORTED (unknown variant kind, or an ISA this build or CPU lacks);
 * AP_ERR_SCRATCH_TOO_SMALL (error->index = scratch index, needed/available bytes);
 * AP_ERR_OVERFLOW.
 */
ap_status ap_conv2d_s8_run(const ap_conv2d_params *params, const ap_variant *variant,
                           const void *prepared, const int8_t *input, int8_t *output,
                           const ap_scratch *scratch, uint32_t scratch_count,
                           ap_error *error_out);

#ifdef __cplusplus
}
#endif
#endif
