/*
 * UNIDIRECTIONAL_SEQUENCE_LSTM, full integer ("8x8_16"): int8 input, weights and output
 * state, int16 cell state, int32 gate biases. Bit-exact with TensorFlow Lite's integer LSTM
 * (LiteRT lstm_eval.cc EvalInteger8x8_16 and the portable tensor_utils it calls) for the
 * plain form: an input gate (no CIFG), no peephole, no projection, no layer norm.
 *
 * One step, for one batch row, previous output state h (int8) and cell state c (int16):
 *   for each gate G in (input, forget, cell, output), per cell k:
 *     pre = clamp16(MBQM(bx[G][k] + sum_i x[i] * Wx[G][k][i], input_multiplier[G], input_shift[G]))
 *     pre = clamp16(MBQM(bh[G][k] + sum_j h[j] * Wh[G][k][j], recurrent_multiplier[G],
 *                        recurrent_shift[G]) + pre)
 *     with the effective biases bx = gate_bias + input_offset * rowsum(Wx),
 *     bh = output_state_offset * rowsum(Wh) (TFLite's PrecomputeZeroPointTimesWeightWithBias),
 *     MBQM = MultiplyByQuantizedMultiplier; the gate value is Q3.12;
 *   i, f, o = sigmoid(pre) and g = tanh(pre) in gemmlowp's int16 fixed point (Q0.15 out);
 *   c = wrap16(RDBPOT(f * c, 15)); c = sat16(c + wrap16(RDBPOT(i * g, 30 + cell_scale_log2)));
 *   c = clamp(c, -cell_clip, cell_clip) when cell_clip > 0;
 *   h = clamp8(MBQM(o * tanh_Q(15 + cell_scale_log2)(c), hidden_multiplier, hidden_shift)
 *              + hidden_zero_point),
 * and h is both the step's output row and the next step's output state.
 *
 * Life of an LSTM op: _variants and _prepared_size / _prepare once at plan time (the blob
 * holds the folded biases and the weights, so a target ships it as const data); _run once per
 * inference, reading and writing the output state and cell state the caller keeps between
 * runs (TFLite's variable tensors). TFLite's initial state (ResetVariableTensor) is the output
 * state filled with its zero point (-output_state_offset), not with 0, and the cell state 0.
 *
 * Layouts: input [batches][time_steps][input_size] (time_major 0, TFLite's default) or
 * [time_steps][batches][input_size] (time_major 1); output the same with cell_size last;
 * output_state [batches][cell_size] int8; cell_state [batches][cell_size] int16; weights
 * row-major [cell_size][input_size] (input-to-gate) and [cell_size][cell_size]
 * (recurrent-to-gate), gate order input, forget, cell, output (TFLite's operand order).
 *
 * Variants:
 *   "direct"  kind AP_LSTM_DIRECT, param 0, no scratch. Each cell's four gates depend only on
 *             its own weight rows and the previous output state, so the kernel works through
 *             the cells 16 at a time (their gates in 160 bytes of stack; the activations of the
 *             16 run as one AVX2 vector for x86-avx2 variants, bit-identical), updates the
 *             cell state in place, writes the new hidden values into the step's output row and
 *             copies that row into the output state when the step is done: none of the gate
 *             buffers TFLite allocates (four int16, one int8 and one int32 of batches x
 *             cell_size each) is needed.
 * MACs: batches * time_steps * 4 * cell_size * (input_size + cell_size).
 */
#ifndef ARENAPLAN_LSTM_H
#define ARENAPLAN_LSTM_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/kernel.h"
#include "arenaplan/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Variant kinds of UNIDIRECTIONAL_SEQUENCE_LSTM (stable values). */
typedef enum ap_lstm_kind {
    AP_LSTM_DIRECT = 0
} ap_lstm_kind;

/** Required alignment of the prepared blob's address (it holds int32 values). */
enum { AP_LSTM_PREPARED_ALIGNMENT = 4 };

/**
 * Shapes and quantisation of one LSTM (python/arenaplan/lstm_params.py derives the integer
 * fields from the tensors' scales exactly as TFLite's Prepare does). Per-gate arrays are in
 * gate order input, forget, cell, output.
 * batches, time_steps, input_size, cell_size >= 1; input_size and cell_size <= 65536.
 * time_major: 0 or 1 (see the layouts above).
 * input_offset = -input zero point, output_state_offset = -output state zero point, both in
 * [-127, 128]; hidden_zero_point (the zero point of TFLite's fifth intermediate, written into
 * the output state) in [-128, 127].
 * input_multiplier / input_shift: QuantizeMultiplier(input weight scale * input scale / 2^-12);
 * recurrent_multiplier / recurrent_shift: QuantizeMultiplier(recurrent weight scale * output
 * state scale / 2^-12); hidden_multiplier / hidden_shift: QuantizeMultiplier(2^-30 / hidden
 * scale). Multipliers >= 0, shifts in [-31, 30].
 * cell_scale_log2: the cell state scale is 2^cell_scale_log2, in [-15, -9] (TFLite's tanh of
 * the cell state reads it as Q(15 + cell_scale_log2), defined for 0..6 integer bits).
 * cell_clip: under AP_REFERENCE_LITERT 0 for none, else in [1, 32767]; under AP_REFERENCE_TFLM
 * -1 for none, else in [0, 32767] (TensorFlow Lite Micro clamps whenever the float clip is
 * > 0, even where it quantises to 0): the cell state is clamped to [-clip, clip].
 * reference: the rounding rule (an ap_reference, 0 when the struct is zeroed):
 *   AP_REFERENCE_LITERT  LiteRT's EvalInteger8x8_16, as in the formula above;
 *   AP_REFERENCE_TFLM    TensorFlow Lite Micro's lstm_eval (CalculateLstmGate, UpdateLstmCell,
 *                        UpdateLstmHidden), where it differs from LiteRT's:
 *     the recurrent FullyConnected's result is clamped to int16 before it is added to the
 *     input one (sat16(clamp16(in) + clamp16(rec)), not clamp16(rec + clamp16(in)));
 *     sigmoid and tanh are TFLite's int16 LOGISTIC / TANH kernels (the 256-entry table with
 *     linear interpolation, input x 3), not gemmlowp's fixed-point functions;
 *     f * c and i * g are MultiplyByQuantizedMultiplier by QuantizeMultiplier(2^-15) and
 *     QuantizeMultiplier(2^(-30 - cell_scale_log2)), each clamped to int16 (one rounding
 *     split in two, where LiteRT takes one RoundingDivideByPOT and wraps);
 *     the cell state's tanh reads it through the table kernel's input scaling (3 << (12 + k),
 *     or 3 and a right shift of -(12 + k));
 *   and the lowering derives the multipliers as TensorFlow Lite Micro's Prepare does (double
 *   products; the hidden requantisation and hidden_zero_point from the output state tensor,
 *   not the fifth intermediate).
 */
typedef struct ap_lstm_params {
    int32_t batches, time_steps, input_size, cell_size;
    int32_t time_major;
    int32_t input_offset, output_state_offset, hidden_zero_point;
    int32_t input_multiplier[4], input_shift[4];
    int32_t recurrent_multiplier[4], recurrent_shift[4];
    int32_t hidden_multiplier, hidden_shift;
    int32_t cell_scale_log2;
    int32_t cell_clip;
    int32_t reference;
} ap_lstm_params;

/**
 * The constant operands prepare reads (gate order input, forget, cell, output).
 * input_to_gate[g]: cell_size * input_size int8, row-major; recurrent_to_gate[g]:
 * cell_size * cell_size int8; gate_bias[g]: cell_size int32, or NULL for zeros.
 */
typedef struct ap_lstm_weights {
    const int8_t *input_to_gate[4];
    const int8_t *recurrent_to_gate[4];
    const int32_t *gate_bias[4];
} ap_lstm_weights;

/**
 * Variants that apply (shapes only), least scratch first; one today ("direct", no scratch).
 * variants_out: caller-owned array of `capacity` entries, may be NULL with capacity 0 to count.
 * Returns AP_OK; AP_ERR_INVALID_ARGUMENT (NULL params / count_out, bad shapes, capacity below
 * the count); AP_ERR_UNSUPPORTED (input_size or cell_size above 65536); AP_ERR_OVERFLOW.
 */
ap_status ap_lstm_s8_variants(const ap_lstm_params *params, ap_isa isa, ap_variant *variants_out,
                              uint32_t capacity, uint32_t *count_out, ap_error *error_out);

/**
 * Bytes of the prepared blob: a 32-byte header, the effective biases (8 * cell_size int32:
 * per cell, the input-side bias of the four gates then the recurrent-side one) and the weights
 * regrouped per cell (cell_size * 4 * (input_size + cell_size) int8: per cell, its row of each
 * input-to-gate matrix then its row of each recurrent-to-gate matrix), so a step reads the
 * blob once, front to back. Reads the shapes only.
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT, AP_ERR_UNSUPPORTED or AP_ERR_OVERFLOW.
 */
ap_status ap_lstm_s8_prepared_size(const ap_lstm_params *params, size_t *bytes_out,
                                   ap_error *error_out);

/**
 * Bytes of the two state operands the caller keeps between runs: output_state_bytes =
 * batches * cell_size (int8), cell_state_bytes = 2 * batches * cell_size (int16).
 * Returns AP_OK, AP_ERR_INVALID_ARGUMENT (bad shapes, NULL outputs), AP_ERR_UNSUPPORTED or
 * AP_ERR_OVERFLOW.
 */
ap_status ap_lstm_s8_state_bytes(const ap_lstm_params *params, size_t *output_state_bytes,
                                 size_t *cell_state_bytes, ap_error *error_out);

/**
 * Build the prepared blob (host side, once per plan). Reads params' shapes, input_offset and
 * output_state_offset (the blob records them; run checks they match). The effective biases
 * wrap mod 2^32 as TFLite's int32 arithmetic does.
 * weights: all eight matrices required; biases may be NULL.
 * prepared_out: caller-owned, prepared_bytes >= ap_lstm_s8_prepared_size(), aligned to
 * AP_LSTM_PREPARED_ALIGNMENT; run reads it and never writes it.
 * Returns AP_OK; AP_ERR_INVALID_ARGUMENT (NULL pointer, bad shapes or offsets, misaligned or
 * too small blob: error->needed / available give the bytes); AP_ERR_UNSUPPORTED;
 * AP_ERR_OVERFLOW.
 */
ap_status ap_lstm_s8_prepare(const ap_lstm_params *params, ap_isa isa, const ap_lstm_weights *weights,
                             void *prepared_out, size_t prepared_bytes, ap_error *error_out);

/**
 * Run the whole sequence (time_steps steps for each batch row). Never allocates; writes only
 * output, output_state and cell_state, and nothing when it fails (every check comes first).
 * params: as given to prepare, plus the requantisation fields (checked at every run).
 * variant: one of ap_lstm_s8_variants()'s entries. prepared: the blob for these params.
 * input: int8, batches * time_steps * input_size; output: int8, batches * time_steps *
 * cell_size; output_state: int8 batches * cell_size and cell_state: int16 batches * cell_size,
 * read as the state before the first step and left holding the state after the last.
 * None of the four may overlap another (or the blob).
 * scratch / scratch_count: the variant's scratch buffers (none for "direct"; may be NULL / 0).
 * Returns AP_OK; AP_ERR_INVALID_ARGUMENT (NULL pointer, bad params, blob that does not match);
 * AP_ERR_UNSUPPORTED (unknown variant, cell scale outside [-15, -9], sizes above 65536);
 * AP_ERR_SCRATCH_TOO_SMALL; AP_ERR_OVERFLOW.
 */
ap_status ap_lstm_s8_run(const ap_lstm_params *params, const ap_variant *variant,
                         const void *prepared, const int8_t *input, int8_t *output,
                         int8_t *output_state, int16_t *cell_state,
                         const ap_scratch *scratch, uint32_t scratch_count, ap_error *error_out);

#ifdef __cplusplus
}
#endif
#endif
