/* UNIDIRECTIONAL_SEQUENCE_LSTM int8 ("8x8_16"): variants, prepare, run (portable C; the gate
   activations of 16 cells at a time dispatched to AVX2 where the CPU has it). */
#include "arenaplan/lstm.h"

#include <string.h>

#include "arm_dsp.h"
#include "fixedpoint.h"
#include "fixedpoint_int16.h"
#include "ops_s16_common.h"
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"

#define LSTM_OP "lstm"
#define LSTM_MAGIC 0x4D544C41u /* "ALTM" */
#define LSTM_VERSION 1u
#define LSTM_MAX_SIZE 65536 /* input_size, cell_size: keeps every dot product within int32 */
#define LSTM_GATES 4
#define LSTM_BLOCK 16 /* cells whose activations run together (one AVX2 vector of int16) */
#define LSTM_CELL_SCALE_MIN (-15)
#define LSTM_CELL_SCALE_MAX (-9)

static const char *const lstm_gate_names[LSTM_GATES] = {"input", "forget", "cell", "output"};

typedef struct lstm_header {
    uint32_t magic;
    uint32_t version;
    int32_t input_size;
    int32_t cell_size;
    int32_t input_offset;
    int32_t output_state_offset;
    int32_t isa;          /* the ISA the blob was packed for (every ISA reads this layout today) */
    uint32_t reserved;
} lstm_header;

typedef struct lstm_layout {
    size_t bias;        /* byte offset of the effective biases: [cell][8] int32 */
    size_t weights;     /* byte offset of the weights: [cell][4 * input_size + 4 * cell_size] */
    size_t cell_block;  /* bytes of one cell's weights */
    size_t total;
} lstm_layout;

/* Everything one step of one batch row reads and writes. */
typedef struct lstm_step {
    const ap_lstm_params *p;
    const int32_t *bias;     /* prepared effective biases */
    const int8_t *weights;   /* prepared weights */
    size_t cell_block;
    const int8_t *x;         /* input row: input_size */
    const int8_t *h;         /* previous output state: cell_size */
    int16_t *c;              /* cell state, updated in place: cell_size */
    int8_t *out;             /* new hidden state: cell_size */
    int dsp;                 /* the dot products as the DSP extension's SMLAD */
} lstm_step;

static ap_status lstm_check_shape(const ap_lstm_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, LSTM_OP ": params must not be NULL");
    }
    if (p->batches < 1 || p->time_steps < 1 || p->input_size < 1 || p->cell_size < 1) {
        return AP_OPS_INVALID(error, LSTM_OP ": batches, time_steps, input_size and cell_size must "
                              "be >= 1 (got %d, %d, %d, %d)", (int)p->batches, (int)p->time_steps,
                              (int)p->input_size, (int)p->cell_size);
    }
    if (p->input_size > LSTM_MAX_SIZE || p->cell_size > LSTM_MAX_SIZE) {
        return AP_OPS_UNSUPPORTED(error, LSTM_OP ": input_size %d / cell_size %d exceeds %d",
                                  (int)p->input_size, (int)p->cell_size, LSTM_MAX_SIZE);
    }
    if (p->time_major != 0 && p->time_major != 1) {
        return AP_OPS_INVALID(error, LSTM_OP ": time_major must be 0 or 1 (got %d)", (int)p->time_major);
    }
    if (!ap_ops_input_offset_ok(p->input_offset) || !ap_ops_input_offset_ok(p->output_state_offset)) {
        return AP_OPS_INVALID(error, LSTM_OP ": input_offset %d / output_state_offset %d outside "
                              "[-127, 128] (each is minus an int8 zero point)",
                              (int)p->input_offset, (int)p->output_state_offset);
    }
    size_t n;
    const int32_t in_dims[] = {p->batches, p->time_steps, p->input_size};
    const int32_t out_dims[] = {p->batches, p->time_steps, p->cell_size};
    const int32_t state_dims[] = {p->batches, p->cell_size, 2};
    if (!ap_ops_product(in_dims, 3, &n) || !ap_ops_product(out_dims, 3, &n) ||
        !ap_ops_product(state_dims, 3, &n)) {
        return AP_OPS_OVERFLOW(error, LSTM_OP ": a tensor size overflows");
    }
    return AP_OK;
}

static ap_status lstm_check_multiplier(int32_t multiplier, int32_t shift, const char *what,
                                       const char *gate, ap_error *error)
{
    if (multiplier < 0 || shift < -31 || shift > 30) {
        return AP_OPS_INVALID(error, LSTM_OP ": %s%s%s multiplier %d / shift %d invalid (need "
                              "multiplier >= 0, shift in [-31, 30])", gate, gate[0] ? " gate " : "",
                              what, (int)multiplier, (int)shift);
    }
    return AP_OK;
}

/* The requantisation fields, which only run reads. */
static ap_status lstm_check_quant(const ap_lstm_params *p, ap_error *error)
{
    ap_status st;
    for (int g = 0; g < LSTM_GATES; ++g) {
        if ((st = lstm_check_multiplier(p->input_multiplier[g], p->input_shift[g], "input",
                                        lstm_gate_names[g], error)) != AP_OK ||
            (st = lstm_check_multiplier(p->recurrent_multiplier[g], p->recurrent_shift[g], "recurrent",
                                        lstm_gate_names[g], error)) != AP_OK) {
            return st;
        }
    }
    if ((st = lstm_check_multiplier(p->hidden_multiplier, p->hidden_shift, "hidden", "", error)) != AP_OK) {
        return st;
    }
    if (!ap_ops_int8_range(p->hidden_zero_point)) {
        return AP_OPS_INVALID(error, LSTM_OP ": hidden_zero_point %d is outside [-128, 127]",
                              (int)p->hidden_zero_point);
    }
    if (p->cell_scale_log2 < LSTM_CELL_SCALE_MIN || p->cell_scale_log2 > LSTM_CELL_SCALE_MAX) {
        return AP_OPS_UNSUPPORTED(error, LSTM_OP ": cell state scale 2^%d is outside 2^%d..2^%d "
                                  "(its tanh reads Q(15 + k), defined for 0..6 integer bits)",
                                  (int)p->cell_scale_log2, LSTM_CELL_SCALE_MIN, LSTM_CELL_SCALE_MAX);
    }
    if (p->reference != AP_REFERENCE_LITERT && p->reference != AP_REFERENCE_TFLM) {
        return AP_OPS_INVALID(error, LSTM_OP ": reference %d is neither litert (0) nor tflm (1)",
                              (int)p->reference);
    }
    if (p->reference == AP_REFERENCE_TFLM && (p->cell_clip < -1 || p->cell_clip > 32767)) {
        return AP_OPS_INVALID(error, LSTM_OP ": cell_clip %d is outside [-1, 32767] (-1: no clip; "
                              "reference tflm)", (int)p->cell_clip);
    }
    if (p->reference == AP_REFERENCE_LITERT && (p->cell_clip < 0 || p->cell_clip > 32767)) {
        return AP_OPS_INVALID(error, LSTM_OP ": cell_clip %d is outside [0, 32767] (0: no clip)",
                              (int)p->cell_clip);
    }
    return AP_OK;
}

static ap_status lstm_layout_of(const ap_lstm_params *p, lstm_layout *l, ap_error *error)
{
    const size_t cells = (size_t)p->cell_size;
    size_t bias_bytes, weight_bytes;
    int ok = ap_ops_mul(cells, 8 * sizeof(int32_t), &bias_bytes);
    ok = ok && ap_ops_add((size_t)p->input_size, cells, &l->cell_block);
    ok = ok && ap_ops_mul(l->cell_block, LSTM_GATES, &l->cell_block);
    ok = ok && ap_ops_mul(l->cell_block, cells, &weight_bytes);
    l->bias = sizeof(lstm_header);
    ok = ok && ap_ops_add(l->bias, bias_bytes, &l->weights);
    ok = ok && ap_ops_add(l->weights, weight_bytes, &l->total);
    if (!ok) {
        return AP_OPS_OVERFLOW(error, LSTM_OP ": prepared size overflows");
    }
    return AP_OK;
}

ap_status ap_lstm_s8_variants(const ap_lstm_params *params, ap_isa isa, ap_variant *variants_out,
                              uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    ap_status st = lstm_check_shape(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    const uint64_t macs = (uint64_t)params->batches * (uint64_t)params->time_steps * LSTM_GATES *
                          (uint64_t)params->cell_size *
                          ((uint64_t)params->input_size + (uint64_t)params->cell_size);
    ap_variant found[1];
    ap_ops_variant_set(&found[0], AP_LSTM_DIRECT, 0, "direct", 0, NULL, NULL, macs, 0);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, LSTM_OP, error_out);
}

ap_status ap_lstm_s8_prepared_size(const ap_lstm_params *params, size_t *bytes_out,
                                   ap_error *error_out)
{
    ap_status st = lstm_check_shape(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (bytes_out == NULL) {
        return AP_OPS_INVALID(error_out, LSTM_OP ": bytes_out must not be NULL");
    }
    lstm_layout l = {0, 0, 0, 0};
    if ((st = lstm_layout_of(params, &l, error_out)) == AP_OK) {
        *bytes_out = l.total;
    }
    return st;
}

ap_status ap_lstm_s8_state_bytes(const ap_lstm_params *params, size_t *output_state_bytes,
                                 size_t *cell_state_bytes, ap_error *error_out)
{
    ap_status st = lstm_check_shape(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (output_state_bytes == NULL || cell_state_bytes == NULL) {
        return AP_OPS_INVALID(error_out, LSTM_OP ": the state byte counts must not be NULL");
    }
    /* lstm_check_shape proved batches * cell_size * 2 fits in size_t. */
    *output_state_bytes = (size_t)params->batches * (size_t)params->cell_size;
    *cell_state_bytes = *output_state_bytes * sizeof(int16_t);
    return AP_OK;
}

/* Sum of one weight row, exact in int64. */
static int64_t lstm_row_sum(const int8_t *row, size_t n)
{
    int64_t sum = 0;
    for (size_t i = 0; i < n; ++i) {
        sum += row[i];
    }
    return sum;
}

/* int32 wrap of an int64 (TFLite's effective biases are int32 arithmetic). */
static int32_t lstm_wrap32(int64_t v)
{
    return (int32_t)(uint32_t)(uint64_t)v;
}

ap_status ap_lstm_s8_prepare(const ap_lstm_params *params, ap_isa isa, const ap_lstm_weights *weights,
                             void *prepared_out, size_t prepared_bytes, ap_error *error_out)
{
    if (ap_isa_name(isa) == NULL) {
        return AP_OPS_INVALID(error_out, LSTM_OP ": %d is not an instruction set (ap_isa)", (int)isa);
    }
    ap_status st = lstm_check_shape(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (weights == NULL || prepared_out == NULL) {
        return AP_OPS_INVALID(error_out, LSTM_OP ": weights and prepared_out must not be NULL");
    }
    for (int g = 0; g < LSTM_GATES; ++g) {
        if (weights->input_to_gate[g] == NULL || weights->recurrent_to_gate[g] == NULL) {
            return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, g, 0, 0,
                               LSTM_OP ": the %s gate's input and recurrent weights must not be NULL",
                               lstm_gate_names[g]);
        }
    }
    if (((uintptr_t)prepared_out & (AP_LSTM_PREPARED_ALIGNMENT - 1)) != 0) {
        return AP_OPS_INVALID(error_out, LSTM_OP ": prepared_out must be %d-byte aligned",
                              AP_LSTM_PREPARED_ALIGNMENT);
    }
    lstm_layout l = {0, 0, 0, 0};
    if ((st = lstm_layout_of(params, &l, error_out)) != AP_OK) {
        return st;
    }
    if (prepared_bytes < l.total) {
        return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, l.total,
                           prepared_bytes, LSTM_OP ": prepared buffer needs %llu bytes, got %llu",
                           (unsigned long long)l.total, (unsigned long long)prepared_bytes);
    }
    uint8_t *base = (uint8_t *)prepared_out;
    lstm_header h;
    memset(&h, 0, sizeof(h));
    h.magic = LSTM_MAGIC;
    h.version = LSTM_VERSION;
    h.input_size = params->input_size;
    h.cell_size = params->cell_size;
    h.input_offset = params->input_offset;
    h.output_state_offset = params->output_state_offset;
    h.isa = (int32_t)isa;
    memcpy(base, &h, sizeof(h));
    int32_t *bias = (int32_t *)(void *)(base + l.bias);
    int8_t *packed = (int8_t *)(base + l.weights);
    const size_t n_in = (size_t)params->input_size, n_cell = (size_t)params->cell_size;
    for (size_t k = 0; k < n_cell; ++k) {
        int8_t *block = packed + k * l.cell_block;
        for (int g = 0; g < LSTM_GATES; ++g) {
            const int8_t *wx = weights->input_to_gate[g] + k * n_in;
            const int8_t *wh = weights->recurrent_to_gate[g] + k * n_cell;
            const int64_t b = weights->gate_bias[g] != NULL ? weights->gate_bias[g][k] : 0;
            /* PrecomputeZeroPointTimesWeightWithBias: the gate bias rides on the input side */
            bias[8 * k + (size_t)g] = lstm_wrap32(b + (int64_t)params->input_offset * lstm_row_sum(wx, n_in));
            bias[8 * k + 4 + (size_t)g] =
                lstm_wrap32((int64_t)params->output_state_offset * lstm_row_sum(wh, n_cell));
            memcpy(block + (size_t)g * n_in, wx, n_in);
            memcpy(block + LSTM_GATES * n_in + (size_t)g * n_cell, wh, n_cell);
        }
    }
    return AP_OK;
}

/* The int8 dot products of one vector with a cell's four gate rows (row g at w + g * n; each
   |sum| <= 65536 * 2^14: exact in int32). On arm-dsp four bytes a step: the vector's even and
   odd lanes widened by SXTB16 once for the four rows, two SMLAD a row. */
static void lstm_dot4(const int8_t *a, const int8_t *w, int32_t n, int dsp, int32_t out[LSTM_GATES])
{
    const int8_t *w0 = w, *w1 = w + n, *w2 = w + 2 * (size_t)n, *w3 = w + 3 * (size_t)n;
    int32_t acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
    int32_t i = 0;
    if (dsp) {
        for (; i + 4 <= n; i += 4) {
            const uint32_t av = ap_dsp_load32(a + i);
            const uint32_t even = ap_dsp_sxtb16(av), odd = ap_dsp_sxtb16_ror8(av);
            uint32_t v = ap_dsp_load32(w0 + i);
            acc0 = ap_dsp_smlad(odd, ap_dsp_sxtb16_ror8(v), ap_dsp_smlad(even, ap_dsp_sxtb16(v), acc0));
            v = ap_dsp_load32(w1 + i);
            acc1 = ap_dsp_smlad(odd, ap_dsp_sxtb16_ror8(v), ap_dsp_smlad(even, ap_dsp_sxtb16(v), acc1));
            v = ap_dsp_load32(w2 + i);
            acc2 = ap_dsp_smlad(odd, ap_dsp_sxtb16_ror8(v), ap_dsp_smlad(even, ap_dsp_sxtb16(v), acc2));
            v = ap_dsp_load32(w3 + i);
            acc3 = ap_dsp_smlad(odd, ap_dsp_sxtb16_ror8(v), ap_dsp_smlad(even, ap_dsp_sxtb16(v), acc3));
        }
    }
    for (; i < n; ++i) {
        const int32_t x = a[i];
        acc0 += x * w0[i];
        acc1 += x * w1[i];
        acc2 += x * w2[i];
        acc3 += x * w3[i];
    }
    out[0] = acc0;
    out[1] = acc1;
    out[2] = acc2;
    out[3] = acc3;
}

/* The activations of one block of cells, in place on LSTM_BLOCK int16 values (unused lanes
   hold zeros): the AVX2 path does all lanes at once, the portable one the first n. */
static void lstm_sigmoid_block(int16_t *v, int32_t n, int use_avx2)
{
#if AP_OPS_HAVE_AVX2
    if (use_avx2) {
        ap_lstm_sigmoid16_avx2(v);
        return;
    }
#endif
    (void)use_avx2;
    for (int32_t j = 0; j < n; ++j) {
        v[j] = ap_fp16_sigmoid_q3(v[j]);
    }
}

static void lstm_tanh_block(int16_t *v, int32_t n, int integer_bits, int use_avx2)
{
#if AP_OPS_HAVE_AVX2
    if (use_avx2) {
        ap_lstm_tanh16_avx2(v, integer_bits);
        return;
    }
#endif
    (void)use_avx2;
    for (int32_t j = 0; j < n; ++j) {
        v[j] = ap_fp16_tanh(v[j], integer_bits);
    }
}

/* One step of one batch row, LSTM_BLOCK cells at a time: each cell's gate pre-activations, the
   block's activations, each cell's new cell state, the block's tanh of it, each new hidden value. */
static void lstm_step_run(const lstm_step *s, int use_avx2)
{
    const ap_lstm_params *p = s->p;
    const int32_t n_in = p->input_size, n_cell = p->cell_size;
    const int cell_bits = 15 + p->cell_scale_log2;   /* integer bits of the cell state */
    const int gate_product_shift = 30 + p->cell_scale_log2;
    const int32_t clip = p->cell_clip;
    for (int32_t k0 = 0; k0 < n_cell; k0 += LSTM_BLOCK) {
        const int32_t n = n_cell - k0 < LSTM_BLOCK ? n_cell - k0 : LSTM_BLOCK;
        int16_t gate[LSTM_GATES][LSTM_BLOCK];
        int16_t cell[LSTM_BLOCK];
        memset(gate, 0, sizeof(gate));
        memset(cell, 0, sizeof(cell));
        for (int32_t j = 0; j < n; ++j) {
            const int8_t *w = s->weights + (size_t)(k0 + j) * s->cell_block;
            const int32_t *bias = s->bias + 8 * (size_t)(k0 + j);
            int32_t in_dot[LSTM_GATES], rec_dot[LSTM_GATES];
            lstm_dot4(s->x, w, n_in, s->dsp, in_dot);
            lstm_dot4(s->h, w + LSTM_GATES * (size_t)n_in, n_cell, s->dsp, rec_dot);
            for (int g = 0; g < LSTM_GATES; ++g) {
                /* MatrixBatchVectorMultiplyAccumulate twice: each term requantised, clamped alone */
                int32_t acc = ap_ops_wrap_add(in_dot[g], bias[g]);
                const int32_t from_input = ap_fp16_sat(
                    ap_fp_multiply_by_quantized_multiplier(acc, p->input_multiplier[g], p->input_shift[g]));
                acc = ap_ops_wrap_add(rec_dot[g], bias[4 + g]);
                gate[g][j] = (int16_t)ap_fp16_sat(ap_ops_wrap_add(
                    ap_fp_multiply_by_quantized_multiplier(acc, p->recurrent_multiplier[g], p->recurrent_shift[g]),
                    from_input));
            }
        }
        lstm_sigmoid_block(gate[0], n, use_avx2);   /* input gate */
        lstm_sigmoid_block(gate[1], n, use_avx2);   /* forget gate */
        lstm_tanh_block(gate[2], n, 3, use_avx2);   /* cell gate: Q3.12 in */
        lstm_sigmoid_block(gate[3], n, use_avx2);   /* output gate */
        for (int32_t j = 0; j < n; ++j) {
            /* UpdateLstmCellInteger: CwiseMul casts to int16 (wrapping), CwiseAdd saturates */
            int32_t c = ap_fp16_wrap(ap_fp_rounding_divide_by_pot(gate[1][j] * s->c[k0 + j], 15));
            c = ap_fp16_sat(c + ap_fp16_wrap(ap_fp_rounding_divide_by_pot(gate[0][j] * gate[2][j],
                                                                          gate_product_shift)));
            if (clip > 0) {
                c = ap_ops_clamp(c, -clip, clip);
            }
            s->c[k0 + j] = (int16_t)c;
            cell[j] = (int16_t)c;
        }
        lstm_tanh_block(cell, n, cell_bits, use_avx2);
        for (int32_t j = 0; j < n; ++j) {
            /* CalculateLstmOutputInteger8x8_16 without projection */
            const int32_t hidden = ap_fp_multiply_by_quantized_multiplier(
                gate[3][j] * cell[j], p->hidden_multiplier, p->hidden_shift);
            s->out[k0 + j] = (int8_t)ap_ops_clamp(ap_ops_wrap_add(hidden, p->hidden_zero_point), -128, 127);
        }
    }
}

/* FullyConnected's requantisation into int16 (TFLite's reference_integer_ops::FullyConnected
   with an int16 output of zero point 0): MultiplyByQuantizedMultiplier, then the clamp. */
static int32_t lstm_fc16(int32_t acc, int32_t multiplier, int32_t shift)
{
    return ap_fp16_sat(ap_fp_multiply_by_quantized_multiplier(acc, multiplier, shift));
}

/* One step of one batch row as TensorFlow Lite Micro's lstm_eval runs it (AP_REFERENCE_TFLM),
   cell by cell: each gate is two FullyConnected ops into int16 summed with saturation
   (CalculateLstmGate), its activation TFLite's int16 LOGISTIC / TANH kernel; the cell state is
   MulElementwise(f, c) + MulElementwise(i, g) saturated, then clipped (UpdateLstmCell); the
   hidden value MulElementwise(tanh(c), o) into int8 (UpdateLstmHidden). The same scalar code
   on every ISA. */
static void lstm_step_run_tflm(const lstm_step *s)
{
    const ap_lstm_params *p = s->p;
    const int32_t n_in = p->input_size, n_cell = p->cell_size;
    ap_logistic_s16_params gate_act, cell_act;
    memset(&gate_act, 0, sizeof(gate_act));
    memset(&cell_act, 0, sizeof(cell_act));
    gate_act.input_multiplier = 3;   /* Q3.12 gates: the table kernels' power-of-two case */
    /* the cell state's tanh: TFLM's Tanh(cell_state_scale_power), left shift (15 + k) - 3 */
    const int32_t tanh_shift = 12 + p->cell_scale_log2;   /* in [-3, 3] */
    cell_act.input_multiplier = tanh_shift < 0 ? 3 : 3 << tanh_shift;
    cell_act.input_left_shift = tanh_shift < 0 ? -tanh_shift : 0;
    /* the inter-gate products' multipliers: QuantizeMultiplier(2^-15 * cell / cell) and
       QuantizeMultiplier(2^-15 * 2^-15 / cell), cell = 2^cell_scale_log2 */
    const int32_t forget_shift = -14, input_gate_shift = -29 - p->cell_scale_log2;
    const int32_t clip = p->cell_clip;
    for (int32_t k = 0; k < n_cell; ++k) {
        const int8_t *w = s->weights + (size_t)k * s->cell_block;
        const int32_t *bias = s->bias + 8 * (size_t)k;
        int32_t gate[LSTM_GATES], in_dot[LSTM_GATES], rec_dot[LSTM_GATES];
        lstm_dot4(s->x, w, n_in, s->dsp, in_dot);
        lstm_dot4(s->h, w + LSTM_GATES * (size_t)n_in, n_cell, s->dsp, rec_dot);
        for (int g = 0; g < LSTM_GATES; ++g) {
            const int32_t in = lstm_fc16(ap_ops_wrap_add(in_dot[g], bias[g]), p->input_multiplier[g],
                                         p->input_shift[g]);
            const int32_t rec = lstm_fc16(ap_ops_wrap_add(rec_dot[g], bias[4 + g]), p->recurrent_multiplier[g],
                                          p->recurrent_shift[g]);
            const int32_t pre = ap_fp16_sat(in + rec);
            gate[g] = g == 2 ? ap_tanh16_value(pre, &gate_act) : ap_logistic16_value(pre, &gate_act);
        }
        int32_t c = ap_fp16_sat(lstm_fc16(gate[1] * s->c[k], 1 << 30, forget_shift) +
                                lstm_fc16(gate[0] * gate[2], 1 << 30, input_gate_shift));
        if (clip >= 0) {
            c = ap_ops_clamp(c, -clip, clip);
        }
        s->c[k] = (int16_t)c;
        const int32_t hidden = ap_fp_multiply_by_quantized_multiplier(
            ap_tanh16_value(c, &cell_act) * gate[3], p->hidden_multiplier, p->hidden_shift);
        s->out[k] = (int8_t)ap_ops_clamp(ap_ops_wrap_add(hidden, p->hidden_zero_point), -128, 127);
    }
}

static ap_status lstm_check_prepared(const ap_lstm_params *p, const void *prepared, ap_error *error)
{
    if (((uintptr_t)prepared & (AP_LSTM_PREPARED_ALIGNMENT - 1)) != 0) {
        return AP_OPS_INVALID(error, LSTM_OP ": prepared blob must be %d-byte aligned",
                              AP_LSTM_PREPARED_ALIGNMENT);
    }
    lstm_header h;
    memcpy(&h, prepared, sizeof(h));
    if (h.magic != LSTM_MAGIC || h.version != LSTM_VERSION || ap_isa_name(h.isa) == NULL) {
        return AP_OPS_INVALID(error, LSTM_OP ": prepared blob is not from ap_lstm_s8_prepare "
                              "(magic/version mismatch)");
    }
    if (h.input_size != p->input_size || h.cell_size != p->cell_size ||
        h.input_offset != p->input_offset || h.output_state_offset != p->output_state_offset) {
        return AP_OPS_INVALID(error, LSTM_OP ": prepared blob was built for input_size %d, cell_size %d, "
                              "offsets %d/%d; params say %d, %d, %d/%d", (int)h.input_size,
                              (int)h.cell_size, (int)h.input_offset, (int)h.output_state_offset,
                              (int)p->input_size, (int)p->cell_size, (int)p->input_offset,
                              (int)p->output_state_offset);
    }
    return AP_OK;
}

ap_status ap_lstm_s8_run(const ap_lstm_params *params, const ap_variant *variant,
                         const void *prepared, const int8_t *input, int8_t *output,
                         int8_t *output_state, int16_t *cell_state,
                         const ap_scratch *scratch, uint32_t scratch_count, ap_error *error_out)
{
    ap_status st = lstm_check_shape(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    if ((st = ap_ops_check_variant_ptr(variant, LSTM_OP, error_out)) != AP_OK) {
        return st;
    }
    if (prepared == NULL || input == NULL || output == NULL || output_state == NULL || cell_state == NULL) {
        return AP_OPS_INVALID(error_out, LSTM_OP ": prepared, input, output, output_state and "
                              "cell_state must not be NULL");
    }
    if (variant->kind != AP_LSTM_DIRECT || variant->param != 0) {
        return AP_OPS_UNSUPPORTED(error_out, LSTM_OP ": unknown variant kind %d / param %d",
                                  (int)variant->kind, (int)variant->param);
    }
    if ((st = lstm_check_quant(params, error_out)) != AP_OK ||
        (st = lstm_check_prepared(params, prepared, error_out)) != AP_OK ||
        (st = ap_ops_check_scratch(LSTM_OP, "direct", NULL, 0, scratch, scratch_count, error_out)) != AP_OK) {
        return st;
    }
    lstm_layout l = {0, 0, 0, 0};
    if ((st = lstm_layout_of(params, &l, error_out)) != AP_OK) {
        return st;
    }
    const uint8_t *base = (const uint8_t *)prepared;
    const size_t n_in = (size_t)params->input_size, n_cell = (size_t)params->cell_size;
    const size_t batches = (size_t)params->batches, steps = (size_t)params->time_steps;
    lstm_step s;
    s.p = params;
    s.bias = (const int32_t *)(const void *)(base + l.bias);
    s.weights = (const int8_t *)(base + l.weights);
    s.cell_block = l.cell_block;
    const int use_avx2 = ap_ops_runs_avx2(variant->isa);
    s.dsp = ap_ops_runs_arm_dsp(variant->isa);
    /* Batch rows are independent; each runs its whole sequence (TFLite's batch-major order). */
    for (size_t b = 0; b < batches; ++b) {
        int8_t *h = output_state + b * n_cell;
        s.h = h;
        s.c = cell_state + b * n_cell;
        for (size_t t = 0; t < steps; ++t) {
            const size_t row = params->time_major ? t * batches + b : b * steps + t;
            s.x = input + row * n_in;
            s.out = output + row * n_cell;
            if (params->reference == AP_REFERENCE_TFLM) {
                lstm_step_run_tflm(&s);
            } else {
                lstm_step_run(&s, use_avx2);
            }
            memcpy(h, s.out, n_cell);
        }
    }
    return AP_OK;
}
