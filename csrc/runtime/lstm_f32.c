/* float32 UNIDIRECTIONAL_SEQUENCE_LSTM (arenaplan/ops.h, ap_lstm_f32_params): TensorFlow Lite
   Micro's float LSTM (lstm_eval.h: CalculateLstmGate, UpdateLstmCell, UpdateLstmHidden) and
   LiteRT's lstm_eval.cc EvalFloat by the rounding rule, each sum in its order with no
   contraction (float32_common.h). The gates' LOGISTIC is reference_ops::Logistic (its
   cut-offs, expf) and their TANH tanhf, as TensorFlow Lite Micro's; LiteRT's are Eigen's (the
   bound tests/test_lstm_f32.py measures). */
#include "float32_common.h"

#include <math.h>

#define LSTM_F32_OP "UNIDIRECTIONAL_SEQUENCE_LSTM float32"

enum { LSTM_F32_INPUTS = 13 };   /* input, 4 input weights, 4 recurrent weights, 4 biases */

static ap_status lstm_f32_check(const ap_lstm_f32_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, LSTM_F32_OP ": params must not be NULL");
    }
    if (p->batches < 1 || p->time_steps < 1 || p->input_size < 1 || p->cell_size < 1) {
        return AP_OPS_INVALID(error, LSTM_F32_OP ": batches %d, time_steps %d, input_size %d and cell_size %d "
                              "must all be >= 1", (int)p->batches, (int)p->time_steps, (int)p->input_size,
                              (int)p->cell_size);
    }
    if ((p->time_major != 0 && p->time_major != 1) || (p->reference != 0 && p->reference != 1)) {
        return AP_OPS_INVALID(error, LSTM_F32_OP ": time_major %d and reference %d must be 0 or 1",
                              (int)p->time_major, (int)p->reference);
    }
    if (!(p->cell_clip >= 0.0f && p->cell_clip <= FLT_MAX)) {
        return AP_OPS_INVALID(error, LSTM_F32_OP ": cell_clip %g must be finite and >= 0 (0: none)",
                              (double)p->cell_clip);
    }
    const int32_t x[3] = {p->batches, p->time_steps, p->input_size}, y[3] = {p->batches, p->time_steps,
                                                                             p->cell_size};
    const int32_t w[3] = {4, p->cell_size, p->input_size}, r[3] = {4, p->cell_size, p->cell_size};
    size_t n = 0;
    if (!ap_ops_product(x, 3, &n) || n > SIZE_MAX / sizeof(float) || !ap_ops_product(y, 3, &n) ||
        n > SIZE_MAX / sizeof(float) || !ap_ops_product(w, 3, &n) || n > SIZE_MAX / sizeof(float) ||
        !ap_ops_product(r, 3, &n) || n > SIZE_MAX / sizeof(float)) {
        return AP_OPS_OVERFLOW(error, LSTM_F32_OP ": the tensors' sizes overflow");
    }
    return AP_OK;
}

ap_status ap_lstm_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out)
{
    const ap_lstm_f32_params *p = params;
    ap_status st = lstm_f32_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    const uint64_t macs = (uint64_t)p->batches * (uint64_t)p->time_steps * 4u * (uint64_t)p->cell_size *
                          ((uint64_t)p->input_size + (uint64_t)p->cell_size);
    return ap_f32_direct(macs, 0, isa, variants_out, capacity, count_out, LSTM_F32_OP, error_out);
}

ap_status ap_lstm_f32_state_bytes(const void *params, size_t *bytes_out, ap_error *error_out)
{
    const ap_lstm_f32_params *p = params;
    ap_status st = lstm_f32_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (bytes_out == NULL) {
        return AP_OPS_INVALID(error_out, LSTM_F32_OP ": bytes_out must not be NULL");
    }
    /* the output (hidden) state and the cell state, [batches, cell_size] each */
    bytes_out[0] = bytes_out[1] = (size_t)p->batches * (size_t)p->cell_size * sizeof(float);
    return AP_OK;
}

/* TFLite's ActivationFunctionWithMinMax over the finite floats (TensorFlow Lite Micro's float
   FullyConnected and Mul in its LSTM): an infinite value becomes +-FLT_MAX. */
static float lstm_f32_finite(float v)
{
    return ap_f32_act(v, -FLT_MAX, FLT_MAX);
}

/* reference_ops::Logistic: its cut-offs, then expf. */
static float lstm_f32_sigmoid(float x)
{
    if (x > 16.619047164916992188f) {
        return 1.0f;
    }
    if (x < -9.0f) {
        return expf(x);
    }
    return 1.0f / (1.0f + expf(-x));
}

/* acc plus the dot product of n floats, as each runtime sums it. TensorFlow Lite Micro
   (reference 1): the dot alone from 0.0f in order, then + acc. LiteRT (reference 0; its
   tensor_utils' MatrixBatchVectorMultiplyAccumulate on this host's builds): four lanes from
   0.0f over the whole groups of four, acc + ((l0 + l1) + l2) + l3, then each remaining product
   added to it in order. */
static float lstm_f32_dot(float acc, const float *a, const float *b, size_t n, int32_t reference)
{
    size_t i = 0;
    if (reference == 1) {
        float total = 0.0f;
        for (; i < n; ++i) {
            total += a[i] * b[i];
        }
        return total + acc;
    }
    float l[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (; i + 4 <= n; i += 4) {
        l[0] += a[i] * b[i];
        l[1] += a[i + 1] * b[i + 1];
        l[2] += a[i + 2] * b[i + 2];
        l[3] += a[i + 3] * b[i + 3];
    }
    acc += ((l[0] + l[1]) + l[2]) + l[3];
    for (; i < n; ++i) {
        acc += a[i] * b[i];
    }
    return acc;
}

/* One gate's value before its activation: the input's and the previous output's dot products
   with the gate's weights and its bias, in the runtime's order. TensorFlow Lite Micro: two
   FullyConnected (the bias in the input's), each clamped to the finite floats, then added;
   LiteRT: the bias, then the input's products accumulated, then the recurrent ones. */
static float lstm_f32_gate(const float *wx, const float *x, size_t depth, const float *wh, const float *h,
                           size_t cells, float bias, int32_t reference)
{
    if (reference == 1) {
        const float in = lstm_f32_finite(lstm_f32_dot(bias, wx, x, depth, 1));
        const float rec = lstm_f32_finite(lstm_f32_dot(0.0f, wh, h, cells, 1));
        return in + rec;
    }
    return lstm_f32_dot(lstm_f32_dot(bias, wx, x, depth, 0), wh, h, cells, 0);
}

ap_status ap_lstm_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, LSTM_F32_INPUTS, LSTM_F32_OP, error_out);
    const ap_lstm_f32_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : lstm_f32_check(p, error_out);
    if (st == AP_OK && (call->state_count != 2 || call->state == NULL || call->state[0] == NULL ||
                        call->state[1] == NULL)) {
        st = AP_OPS_INVALID(error_out, LSTM_F32_OP ": the output state and the cell state must be given");
    }
    if (st != AP_OK) {
        return st;
    }
    const float *x = call->inputs[0];
    const float *wx[4], *wh[4], *bias[4];   /* gates in TFLite's order: input, forget, cell, output */
    for (int g = 0; g < 4; ++g) {
        wx[g] = call->inputs[1 + g];
        wh[g] = call->inputs[5 + g];
        bias[g] = call->inputs[9 + g];
    }
    float *hidden = call->state[0], *cell = call->state[1], *y = call->output;
    const size_t batches = (size_t)p->batches, steps = (size_t)p->time_steps;
    const size_t depth = (size_t)p->input_size, cells = (size_t)p->cell_size;
    const float clip = p->cell_clip;
    const int32_t ref = p->reference;
    for (size_t t = 0; t < steps; ++t) {
        for (size_t b = 0; b < batches; ++b) {
            /* rows of [time, batch, ...] (time_major) or [batch, time, ...] */
            const size_t row = p->time_major ? t * batches + b : b * steps + t;
            const float *xr = x + row * depth;
            float *h = hidden + b * cells, *c = cell + b * cells, *out = y + row * cells;
            /* unit by unit: its four gates read the previous output state h, so the new
               outputs go to this step's output row, copied into h once the row is done */
            for (size_t u = 0; u < cells; ++u) {
                float gate[4];
                for (int g = 0; g < 4; ++g) {
                    gate[g] = lstm_f32_gate(wx[g] + u * depth, xr, depth, wh[g] + u * cells, h, cells,
                                            bias[g][u], ref);
                }
                const float in = lstm_f32_sigmoid(gate[0]), forget = lstm_f32_sigmoid(gate[1]);
                const float cand = tanhf(gate[2]), outg = lstm_f32_sigmoid(gate[3]);
                float cu;
                if (ref == 1) {
                    cu = lstm_f32_finite(forget * c[u]) + lstm_f32_finite(in * cand);
                } else {
                    cu = forget * c[u];
                    cu += in * cand;
                }
                if (clip > 0.0f) {   /* std::max(std::min(clip, c), -clip) */
                    const float lo = cu < clip ? cu : clip;
                    cu = lo < -clip ? -clip : lo;
                }
                c[u] = cu;
                const float th = tanhf(cu);
                out[u] = ref == 1 ? lstm_f32_finite(th * outg) : outg * th;
            }
            memcpy(h, out, cells * sizeof(float));
        }
    }
    return AP_OK;
}
