/* float32 SVDF (arenaplan/ops.h, ap_svdf_f32_params): TFLite's reference_ops::EvalFloatSVDF
   (LiteRT) and TensorFlow Lite Micro's EvalFloatSvdfReference, each sum in its order with no
   contraction (float32_common.h), so the outputs and the state equal theirs bit for bit (TANH:
   the C library's tanhf, as theirs call it). */
#include "float32_common.h"

#include <math.h>

#define SVDF_F32_OP "SVDF float32"

static ap_status svdf_f32_check(const ap_svdf_f32_params *p, size_t *state_count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, SVDF_F32_OP ": params must not be NULL");
    }
    if (p->batches < 1 || p->input_size < 1 || p->filters < 1 || p->memory < 1 || p->rank < 1) {
        return AP_OPS_INVALID(error, SVDF_F32_OP ": batches %d, input_size %d, filters %d, memory %d and rank %d "
                              "must all be >= 1", (int)p->batches, (int)p->input_size, (int)p->filters,
                              (int)p->memory, (int)p->rank);
    }
    if (p->filters % p->rank != 0) {
        return AP_OPS_INVALID(error, SVDF_F32_OP ": rank %d does not divide filters %d", (int)p->rank,
                              (int)p->filters);
    }
    if (p->activation < AP_RNN_F32_ACT_NONE || p->activation > AP_RNN_F32_ACT_TANH) {
        return AP_OPS_INVALID(error, SVDF_F32_OP ": activation %d is not an ap_rnn_f32_act", (int)p->activation);
    }
    if (p->reference != 0 && p->reference != 1) {
        return AP_OPS_INVALID(error, SVDF_F32_OP ": reference %d must be 0 (LiteRT) or 1 (TensorFlow Lite Micro)",
                              (int)p->reference);
    }
    if (p->reference == 0 && p->activation == AP_RNN_F32_ACT_RELU_N1_TO_1) {
        return AP_OPS_INVALID(error, SVDF_F32_OP ": LiteRT's SVDF has no RELU_N1_TO_1 activation");
    }
    const int32_t x[2] = {p->batches, p->input_size}, w[2] = {p->filters, p->input_size},
                  t[2] = {p->filters, p->memory}, s[3] = {p->batches, p->filters, p->memory};
    size_t n = 0;
    if (!ap_ops_product(x, 2, &n) || n > SIZE_MAX / sizeof(float) || !ap_ops_product(w, 2, &n) ||
        n > SIZE_MAX / sizeof(float) || !ap_ops_product(t, 2, &n) || n > SIZE_MAX / sizeof(float) ||
        !ap_ops_product(s, 3, state_count) || *state_count > SIZE_MAX / sizeof(float)) {
        return AP_OPS_OVERFLOW(error, SVDF_F32_OP ": the tensors' sizes overflow");
    }
    return AP_OK;
}

ap_status ap_svdf_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out)
{
    const ap_svdf_f32_params *p = params;
    size_t state_count = 0;
    ap_status st = svdf_f32_check(p, &state_count, error_out);
    if (st != AP_OK) {
        return st;
    }
    const uint64_t macs = (uint64_t)p->batches * (uint64_t)p->filters *
                          ((uint64_t)p->input_size + (uint64_t)p->memory);
    return ap_f32_direct(macs, 0, isa, variants_out, capacity, count_out, SVDF_F32_OP, error_out);
}

ap_status ap_svdf_f32_state_bytes(const void *params, size_t *bytes_out, ap_error *error_out)
{
    size_t state_count = 0;
    ap_status st = svdf_f32_check(params, &state_count, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (bytes_out == NULL) {
        return AP_OPS_INVALID(error_out, SVDF_F32_OP ": bytes_out must not be NULL");
    }
    bytes_out[0] = state_count * sizeof(float);
    return AP_OK;
}

/* C's fminf / fmaxf: a NaN operand yields the other. */
static float svdf_f32_fmin(float a, float b)
{
    return a != a ? b : b != b ? a : (a < b ? a : b);
}

static float svdf_f32_fmax(float a, float b)
{
    return a != a ? b : b != b ? a : (a < b ? b : a);
}

/* The fused activation as each runtime applies it. LiteRT's ApplyActivationToVector: RELU
   std::max(0, a), RELU6 std::max(0, std::min(a, 6)), with std::max(a, b) = a < b ? b : a and
   std::min(a, b) = b < a ? b : a (a NaN becomes 0). TensorFlow Lite Micro's ActivationValFloat:
   TfLiteMax / TfLiteMin, which are fmaxf / fminf (RELU6 of a NaN is 6, RELU_N1_TO_1's 1). TANH:
   tanhf (LiteRT's Eigen tanh is within the bound tests/test_svdf_f32.py measures). */
static float svdf_f32_act(float a, int32_t act, int32_t reference)
{
    switch (act) {
    case AP_RNN_F32_ACT_RELU:
        return reference == 0 ? (0.0f < a ? a : 0.0f) : svdf_f32_fmax(0.0f, a);
    case AP_RNN_F32_ACT_RELU_N1_TO_1:
        return svdf_f32_fmax(-1.0f, svdf_f32_fmin(a, 1.0f));
    case AP_RNN_F32_ACT_RELU6:
        if (reference == 0) {
            const float m = 6.0f < a ? 6.0f : a;
            return 0.0f < m ? m : 0.0f;
        }
        return svdf_f32_fmax(0.0f, svdf_f32_fmin(a, 6.0f));
    case AP_RNN_F32_ACT_TANH:
        return tanhf(a);
    default:
        return a;
    }
}

/* A dot product of n floats as each runtime sums it. TensorFlow Lite Micro (lanes 0): in order
   from 0.0f. LiteRT (lanes 1; its tensor_utils on this host's builds): four lanes from 0.0f, lane
   i % 4 taking product i of the whole groups of four, the lanes added ((l0 + l1) + l2) + l3,
   then the products past the last whole group in order. */
static float svdf_f32_dot(const float *a, const float *b, size_t n, int lanes)
{
    size_t i = 0;
    float total = 0.0f;
    if (lanes) {
        float l[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (; i + 4 <= n; i += 4) {
            l[0] += a[i] * b[i];
            l[1] += a[i + 1] * b[i + 1];
            l[2] += a[i + 2] * b[i + 2];
            l[3] += a[i + 3] * b[i + 3];
        }
        total = ((l[0] + l[1]) + l[2]) + l[3];
    }
    for (; i < n; ++i) {
        total += a[i] * b[i];
    }
    return total;
}

ap_status ap_svdf_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    /* inputs: input, weights_feature, weights_time and the optional bias */
    const uint32_t inputs = call != NULL && call->input_count == 4 ? 4 : 3;
    ap_status st = ap_f32_check_call(call, isa, inputs, SVDF_F32_OP, error_out);
    const ap_svdf_f32_params *p = st == AP_OK ? call->params : NULL;
    size_t state_count = 0;
    st = st != AP_OK ? st : svdf_f32_check(p, &state_count, error_out);
    if (st == AP_OK && (call->state_count != 1 || call->state == NULL || call->state[0] == NULL)) {
        st = AP_OPS_INVALID(error_out, SVDF_F32_OP ": one state buffer must be given");
    }
    if (st != AP_OK) {
        return st;
    }
    const float *x = call->inputs[0], *wf = call->inputs[1], *wt = call->inputs[2];
    const float *bias = call->input_count == 4 ? call->inputs[3] : NULL;
    float *state = call->state[0], *y = call->output;
    const size_t batches = (size_t)p->batches, depth = (size_t)p->input_size, filters = (size_t)p->filters;
    const size_t memory = (size_t)p->memory, rank = (size_t)p->rank, units = filters / rank;

    /* 1. the whole state one element to the left (the newest column is written next) */
    for (size_t i = 0; i + 1 < state_count; ++i) {
        state[i] = state[i + 1];
    }
    const int lanes = p->reference == 0;
    for (size_t b = 0; b < batches; ++b) {
        const float *xb = x + b * depth;
        float *sb = state + b * filters * memory;
        /* 2. the features: each filter's dot with the input, into its newest state column */
        for (size_t f = 0; f < filters; ++f) {
            sb[f * memory + memory - 1] = svdf_f32_dot(wf + f * depth, xb, depth, lanes);
        }
        /* 3. per unit, its rank filters' time dots summed (LiteRT: in four lanes from 0, then
           + bias; TensorFlow Lite Micro: in order from the bias), then the activation */
        for (size_t u = 0; u < units; ++u) {
            const size_t whole = lanes ? rank / 4 * 4 : 0;
            float lane[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            for (size_t r = 0; r < whole; ++r) {
                const size_t f = u * rank + r;
                lane[r % 4] += svdf_f32_dot(wt + f * memory, sb + f * memory, memory, lanes);
            }
            float acc = lanes ? ((lane[0] + lane[1]) + lane[2]) + lane[3] : bias == NULL ? 0.0f : bias[u];
            for (size_t r = whole; r < rank; ++r) {
                const size_t f = u * rank + r;
                acc += svdf_f32_dot(wt + f * memory, sb + f * memory, memory, lanes);
            }
            if (lanes && bias != NULL) {
                acc += bias[u];
            }
            y[b * units + u] = svdf_f32_act(acc, p->activation, p->reference);
        }
    }
    return AP_OK;
}
