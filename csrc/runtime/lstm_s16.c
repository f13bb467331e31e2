/* 16x8 UNIDIRECTIONAL_SEQUENCE_LSTM (arenaplan/ops.h, ap_lstm_s16_params): TensorFlow Lite
   Micro's integer LSTM with int16 activations, int8 weights, int64 biases and an int16 cell
   state (lstm_eval.h: CalculateLstmGate, UpdateLstmCell, UpdateLstmHidden), cell by cell. */
#include "arenaplan/ops.h"

#include <string.h>

#include "arm_dsp.h"
#include "fixedpoint.h"
#include "ops_s16_common.h"

#define LSTM16_OP "UNIDIRECTIONAL_SEQUENCE_LSTM 16x8"
#define LSTM16_MAX_SIZE 65536   /* input_size, cell_size: every dot product stays below 2^39 */

enum { LSTM16_INPUTS = 13 };   /* input, 4 input weights, 4 recurrent weights, 4 biases */

static const char *const lstm16_gates[4] = {"input", "forget", "cell", "output"};

static ap_status lstm16_check_mul(int32_t multiplier, int32_t shift, int32_t max_shift, const char *what,
                                  const char *gate, ap_error *error)
{
    if (multiplier < 0 || shift < -31 || shift > max_shift) {
        return AP_OPS_INVALID(error, LSTM16_OP ": %s%s%s multiplier %d / shift %d invalid (need multiplier >= 0, "
                              "shift in [-31, %d])", gate, gate[0] ? " gate " : "", what, (int)multiplier,
                              (int)shift, (int)max_shift);
    }
    return AP_OK;
}

static ap_status lstm16_check(const ap_lstm_s16_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, LSTM16_OP ": params must not be NULL");
    }
    if (p->batches < 1 || p->time_steps < 1 || p->input_size < 1 || p->cell_size < 1) {
        return AP_OPS_INVALID(error, LSTM16_OP ": batches %d, time_steps %d, input_size %d and cell_size %d must "
                              "all be >= 1", (int)p->batches, (int)p->time_steps, (int)p->input_size,
                              (int)p->cell_size);
    }
    if (p->input_size > LSTM16_MAX_SIZE || p->cell_size > LSTM16_MAX_SIZE) {
        return AP_OPS_UNSUPPORTED(error, LSTM16_OP ": input_size %d / cell_size %d exceeds %d",
                                  (int)p->input_size, (int)p->cell_size, LSTM16_MAX_SIZE);
    }
    if (p->time_major != 0 && p->time_major != 1) {
        return AP_OPS_INVALID(error, LSTM16_OP ": time_major must be 0 or 1 (got %d)", (int)p->time_major);
    }
    ap_status st;
    for (int g = 0; g < 4; ++g) {
        if ((st = lstm16_check_mul(p->input_multiplier[g], p->input_shift[g], 7, "input", lstm16_gates[g],
                                   error)) != AP_OK ||
            (st = lstm16_check_mul(p->recurrent_multiplier[g], p->recurrent_shift[g], 7, "recurrent",
                                   lstm16_gates[g], error)) != AP_OK) {
            return st;
        }
    }
    if ((st = lstm16_check_mul(p->forget_multiplier, p->forget_shift, 30, "forget x cell", "", error)) != AP_OK ||
        (st = lstm16_check_mul(p->input_gate_multiplier, p->input_gate_shift, 30, "input x cell gate", "",
                               error)) != AP_OK ||
        (st = lstm16_check_mul(p->hidden_multiplier, p->hidden_shift, 30, "hidden", "", error)) != AP_OK) {
        return st;
    }
    if (p->cell_tanh_shift < 0 || p->cell_tanh_shift > 31 || p->cell_tanh_multiplier < 1 ||
        p->cell_tanh_multiplier > (p->cell_tanh_shift > 0 ? 32767 : 65535)) {
        return AP_OPS_INVALID(error, LSTM16_OP ": cell_tanh_multiplier %d must lie in [1, 65535] (in [1, 32767] "
                              "where cell_tanh_shift > 0) and cell_tanh_shift %d in [0, 31]",
                              (int)p->cell_tanh_multiplier, (int)p->cell_tanh_shift);
    }
    if (p->cell_clip < -1 || p->cell_clip > 32767) {
        return AP_OPS_INVALID(error, LSTM16_OP ": cell_clip %d is outside [-1, 32767] (-1: no clip)",
                              (int)p->cell_clip);
    }
    const int32_t x[3] = {p->batches, p->time_steps, p->input_size};
    const int32_t y[3] = {p->batches, p->time_steps, p->cell_size};
    const int32_t w[3] = {4, p->cell_size, p->input_size}, r[3] = {4, p->cell_size, p->cell_size};
    size_t n = 0;
    if (!ap_ops_product(x, 3, &n) || n > SIZE_MAX / 2 || !ap_ops_product(y, 3, &n) || n > SIZE_MAX / 2 ||
        !ap_ops_product(w, 3, &n) || !ap_ops_product(r, 3, &n)) {
        return AP_OPS_OVERFLOW(error, LSTM16_OP ": the tensors' sizes overflow");
    }
    return AP_OK;
}

ap_status ap_lstm_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out)
{
    const ap_lstm_s16_params *p = params;
    ap_status st = lstm16_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    const uint64_t macs = (uint64_t)p->batches * (uint64_t)p->time_steps * 4u * (uint64_t)p->cell_size *
                          ((uint64_t)p->input_size + (uint64_t)p->cell_size);
    ap_variant found[1];
    ap_ops_variant_set(&found[0], 0, 0, "direct", 0, NULL, NULL, macs, 0);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, LSTM16_OP, error_out);
}

ap_status ap_lstm_s16_state_bytes(const void *params, size_t *bytes_out, ap_error *error_out)
{
    const ap_lstm_s16_params *p = params;
    ap_status st = lstm16_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (bytes_out == NULL) {
        return AP_OPS_INVALID(error_out, LSTM16_OP ": bytes_out must not be NULL");
    }
    /* the output (hidden) state and the cell state, [batches, cell_size] int16 each */
    bytes_out[0] = bytes_out[1] = (size_t)p->batches * (size_t)p->cell_size * sizeof(int16_t);
    return AP_OK;
}

/* sum of a[i] * w[i]: each product in int32 (|.| <= 2^22), the sum in int64, as TFLite's
   FullyConnected with an int64 accumulator (exact: the order does not matter). Four at a time;
   on arm-dsp as two SMLALD of int16 pairs, the weights widened by SXTB16 (lanes 0 and 2, 1 and
   3) and the inputs paired to match by PKHBT / PKHTB. */
static int64_t lstm16_dot(const int16_t *a, const int8_t *w, size_t n, int dsp)
{
    int64_t acc = 0;
    size_t i = 0;
    if (dsp) {
        const int8_t *const end = w + (n & ~(size_t)3);
        const int16_t *ap = a;
        const int8_t *wp = w;
        while (wp != end) {
            const uint32_t wv = ap_dsp_load32(wp);
            const uint32_t x01 = ap_dsp_load32(ap), x23 = ap_dsp_load32(ap + 2);
            acc = ap_dsp_smlald(ap_dsp_pkhbt(x01, x23, 16), ap_dsp_sxtb16(wv), acc);        /* x0 w0 + x2 w2 */
            acc = ap_dsp_smlald(ap_dsp_pkhtb16(x23, x01), ap_dsp_sxtb16_ror8(wv), acc);    /* x1 w1 + x3 w3 */
            ap += 4;
            wp += 4;
        }
        i = n & ~(size_t)3;
    } else {
        for (; i + 4 <= n; i += 4) {
            acc += (int32_t)a[i] * (int32_t)w[i];
            acc += (int32_t)a[i + 1] * (int32_t)w[i + 1];
            acc += (int32_t)a[i + 2] * (int32_t)w[i + 2];
            acc += (int32_t)a[i + 3] * (int32_t)w[i + 3];
        }
    }
    for (; i < n; ++i) {
        acc += (int32_t)a[i] * (int32_t)w[i];
    }
    return acc;
}

/* One FullyConnected's int64 requantisation to int16 (ap_s16_multiply_by_quantized_multiplier64
   then the int16 clamp), its constants worked out once per run rather than once per cell. */
typedef struct lstm16_requant {
    int64_t reduced;       /* the multiplier rounded to 16 bits */
    int64_t round;         /* 2^(total_shift - 1) */
    int32_t total_shift;   /* 15 - shift, in [8, 46] */
} lstm16_requant;

static lstm16_requant lstm16_requant_of(int32_t multiplier, int32_t shift)
{
    lstm16_requant r;
    r.reduced = multiplier < 0x7FFF0000 ? (((int64_t)multiplier + (1 << 15)) >> 16) : 0x7FFF;
    r.total_shift = 15 - shift;
    r.round = (int64_t)1 << (r.total_shift - 1);
    return r;
}

static int32_t lstm16_requant_run(int64_t x, const lstm16_requant *r)
{
    if (x >= AP_S16_ACC_LIMIT) {   /* beyond TFLite's range its result is undefined: saturate */
        x = AP_S16_ACC_LIMIT - 1;
    } else if (x < -AP_S16_ACC_LIMIT) {
        x = -AP_S16_ACC_LIMIT;
    }
    /* |x * reduced| < 2^62; an arithmetic shift of a negative value, as TFLite's */
    return ap_ops_clamp(ap_s16_wrap32((x * r->reduced + r->round) >> r->total_shift), -32768, 32767);
}

/* An int64 bias read byte-wise (the constant may sit at any address). */
static int64_t lstm16_bias(const void *biases, size_t k)
{
    int64_t b;
    memcpy(&b, (const uint8_t *)biases + k * sizeof(int64_t), sizeof(b));
    /* beyond 2^48 the sum (a dot product below 2^39 in size) saturates the requantisation the
       same way whatever the bias: clamp it, so the int64 sum cannot overflow */
    const int64_t limit = (int64_t)1 << 48;
    return b > limit ? limit : b < -limit ? -limit : b;
}

static int32_t lstm16_sat(int32_t v)
{
    return ap_ops_clamp(v, -32768, 32767);
}

/* MulElementwise of two int16 values into int16 (zero points 0, TFLite's int32 multiply). */
static int32_t lstm16_mul(int32_t a, int32_t b, int32_t multiplier, int32_t shift)
{
    return lstm16_sat(ap_fp_multiply_by_quantized_multiplier(a * b, multiplier, shift));
}

ap_status ap_lstm_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL || call->params == NULL) {
        return AP_OPS_INVALID(error_out, LSTM16_OP ": the call and its params must not be NULL");
    }
    const ap_lstm_s16_params *p = call->params;
    ap_status st = lstm16_check(p, error_out);
    if (st == AP_OK) {
        st = ap_ops_check_variant_ptr(call->variant, LSTM16_OP, error_out);
    }
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error_out, LSTM16_OP ": variant '%s' is a %s variant; asked to run it as %s",
                            call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st == AP_OK && (call->variant->kind != 0 || call->variant->param != 0)) {
        st = AP_OPS_INVALID(error_out, LSTM16_OP ": variant kind %d / param %d does not apply (\"direct\" is 0)",
                            (int)call->variant->kind, (int)call->variant->param);
    }
    if (st == AP_OK) {
        st = ap_ops_check_scratch(LSTM16_OP, call->variant->name, NULL, 0, call->scratch, call->scratch_count,
                                  error_out);
    }
    if (st != AP_OK) {
        return st;
    }
    if (call->input_count != LSTM16_INPUTS || call->inputs == NULL || call->output == NULL ||
        call->state_count != 2 || call->state == NULL || call->state[0] == NULL || call->state[1] == NULL) {
        return AP_OPS_INVALID(error_out, LSTM16_OP ": %d inputs, the output, the output state and the cell "
                              "state must be given", LSTM16_INPUTS);
    }
    for (int i = 0; i < LSTM16_INPUTS; ++i) {
        if (call->inputs[i] == NULL) {
            return AP_OPS_INVALID(error_out, LSTM16_OP ": input %d is NULL", i);
        }
    }
    if ((((uintptr_t)call->inputs[0] | (uintptr_t)call->output | (uintptr_t)call->state[0] |
          (uintptr_t)call->state[1]) & 1u) != 0) {
        return AP_OPS_INVALID(error_out, LSTM16_OP ": the input, output and states must be 2-byte aligned");
    }
    const int16_t *x = call->inputs[0];
    const int8_t *wx[4], *wh[4];
    const void *bias[4];   /* gates in TFLite's order: input, forget, cell, output */
    for (int g = 0; g < 4; ++g) {
        wx[g] = call->inputs[1 + g];
        wh[g] = call->inputs[5 + g];
        bias[g] = call->inputs[9 + g];
    }
    int16_t *hidden = call->state[0], *cell = call->state[1], *y = call->output;
    const size_t batches = (size_t)p->batches, steps = (size_t)p->time_steps;
    const size_t depth = (size_t)p->input_size, cells = (size_t)p->cell_size;
    /* the gates' activations read Q3.12 (2^-12: TFLite's power-of-two case, x * 3); the cell
       state's tanh its own scale */
    ap_logistic_s16_params gate_act, cell_act;
    memset(&gate_act, 0, sizeof(gate_act));
    memset(&cell_act, 0, sizeof(cell_act));
    gate_act.input_multiplier = 3;
    cell_act.input_multiplier = p->cell_tanh_multiplier;
    cell_act.input_left_shift = p->cell_tanh_shift;
    const int32_t clip = p->cell_clip;
    const int dsp = ap_ops_runs_arm_dsp(call->variant->isa);
    lstm16_requant in_rq[4], rec_rq[4];
    for (int g = 0; g < 4; ++g) {
        in_rq[g] = lstm16_requant_of(p->input_multiplier[g], p->input_shift[g]);
        rec_rq[g] = lstm16_requant_of(p->recurrent_multiplier[g], p->recurrent_shift[g]);
    }
    for (size_t t = 0; t < steps; ++t) {
        for (size_t b = 0; b < batches; ++b) {
            /* rows of [time, batch, ...] (time_major) or [batch, time, ...] */
            const size_t row = p->time_major ? t * batches + b : b * steps + t;
            const int16_t *xr = x + row * depth;
            int16_t *h = hidden + b * cells, *c = cell + b * cells, *out = y + row * cells;
            /* cell by cell: its four gates read the previous output state h, so the new outputs
               go to this step's output row, copied into h once the row is done */
            for (size_t k = 0; k < cells; ++k) {
                int32_t gate[4];
                for (int g = 0; g < 4; ++g) {
                    const int32_t in = lstm16_requant_run(lstm16_dot(xr, wx[g] + k * depth, depth, dsp) +
                                                          lstm16_bias(bias[g], k), &in_rq[g]);
                    const int32_t rec = lstm16_requant_run(lstm16_dot(h, wh[g] + k * cells, cells, dsp), &rec_rq[g]);
                    const int32_t pre = lstm16_sat(in + rec);
                    gate[g] = g == 2 ? ap_tanh16_value(pre, &gate_act) : ap_logistic16_value(pre, &gate_act);
                }
                int32_t cu = lstm16_sat(lstm16_mul(gate[1], c[k], p->forget_multiplier, p->forget_shift) +
                                        lstm16_mul(gate[0], gate[2], p->input_gate_multiplier, p->input_gate_shift));
                if (clip >= 0) {
                    cu = ap_ops_clamp(cu, -clip, clip);
                }
                c[k] = (int16_t)cu;
                const int32_t th = ap_tanh16_value(cu, &cell_act);
                out[k] = (int16_t)lstm16_mul(th, gate[3], p->hidden_multiplier, p->hidden_shift);
            }
            memcpy(h, out, cells * sizeof(int16_t));
        }
    }
    return AP_OK;
}
