/* float32 ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE, PRELU, LOGISTIC, TANH, RELU (RELU6, RELU_N1_TO_1), SOFTMAX, AVERAGE_POOL_2D and
   MAX_POOL_2D (arenaplan/ops.h, AP_TYPES_F32): TFLite's float reference kernels, each in the
   reference's order with no contraction (float32_common.h). */
#include "float32_common.h"

#include "broadcast4.h"

#include <math.h>

/* ---- ADD, SUB, MUL, DIV with 4-D broadcasting ------------------------------------------------------- */
static ap_status binary_check(const ap_binary_f32_params *p, size_t *count, const char *op, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    ap_status st = ap_bcast4_check(p->input1_shape, p->input2_shape, p->output_shape, op, error);
    if (st != AP_OK) {
        return st;
    }
    if (!ap_ops_product(p->output_shape, 4, count) || *count > SIZE_MAX / sizeof(float)) {
        return AP_OPS_OVERFLOW(error, "%s: the output's size overflows", op);
    }
    return ap_f32_check_range(p->activation_min, p->activation_max, op, error);
}

ap_status ap_binary_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, ap_error *error_out)
{
    const ap_binary_f32_params *p = params;
    size_t n = 0;
    ap_status st = binary_check(p, &n, "ADD/SUB/MUL/DIV float32", error_out);
    if (st != AP_OK) {
        return st;
    }
    return ap_bcast4_direct_variant(p->input1_shape, p->input2_shape, p->output_shape, (uint64_t)n, isa, variants_out,
                                    capacity, count_out, "ADD/SUB/MUL/DIV float32", error_out);
}

enum { BINARY_ADD, BINARY_SUB, BINARY_MUL, BINARY_DIV, BINARY_MAXIMUM, BINARY_MINIMUM, BINARY_SQDIFF,
       BINARY_PRELU };

/* One element: IEEE 754 throughout (a division by zero is +-inf or NaN, then the activation's
   clamp; TFLite's float DIV checks no divisor). */
static float binary_one(int kind, float u, float v)
{
    switch (kind) {
    case BINARY_ADD:
        return u + v;
    case BINARY_SUB:
        return u - v;
    case BINARY_MUL:
        return u * v;
    case BINARY_DIV:
        return u / v;
    case BINARY_MAXIMUM:
        return u > v ? u : v;
    case BINARY_MINIMUM:
        return u < v ? u : v;
    case BINARY_SQDIFF: {
        const float d = u - v;
        return d * d;
    }
    default:   /* BINARY_PRELU: v is the alpha */
        return u >= 0.0f ? u : u * v;
    }
}

static ap_status binary_run(const ap_op_call *call, ap_isa isa, int kind, const char *op, ap_error *error)
{
    ap_status st = ap_f32_check_call(call, isa, 2, op, error);
    const ap_binary_f32_params *p = st == AP_OK ? call->params : NULL;
    size_t n = 0;
    st = st != AP_OK ? st : binary_check(p, &n, op, error);
    if (st != AP_OK) {
        return st;
    }
    const float *a = call->inputs[0], *b = call->inputs[1];
    float *y = call->output;
    const float lo = p->activation_min, hi = p->activation_max;
    if (kind >= BINARY_MAXIMUM) {   /* ops without an activation: no clamp (inf and NaN pass) */
        if (ap_bcast4_same(p->input1_shape, p->input2_shape)) {
            for (size_t i = 0; i < n; ++i) {
                y[i] = binary_one(kind, a[i], b[i]);
            }
            return AP_OK;
        }
        AP_BCAST4_FOR_EACH(p->output_shape, p->input1_shape, p->input2_shape, ia, ib, at, {
            y[at] = binary_one(kind, a[ia], b[ib]);
        });
        return AP_OK;
    }
    if (ap_bcast4_same(p->input1_shape, p->input2_shape)) {
        for (size_t i = 0; i < n; ++i) {
            y[i] = ap_f32_act(binary_one(kind, a[i], b[i]), lo, hi);
        }
        return AP_OK;
    }
    AP_BCAST4_FOR_EACH(p->output_shape, p->input1_shape, p->input2_shape, ia, ib, at, {
        y[at] = ap_f32_act(binary_one(kind, a[ia], b[ib]), lo, hi);
    });
    return AP_OK;
}

ap_status ap_add_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return binary_run(call, isa, BINARY_ADD, "ADD float32", error_out);
}

ap_status ap_sub_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return binary_run(call, isa, BINARY_SUB, "SUB float32", error_out);
}

ap_status ap_mul_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return binary_run(call, isa, BINARY_MUL, "MUL float32", error_out);
}

ap_status ap_div_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return binary_run(call, isa, BINARY_DIV, "DIV float32", error_out);
}

ap_status ap_maximum_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return binary_run(call, isa, BINARY_MAXIMUM, "MAXIMUM float32", error_out);
}

ap_status ap_minimum_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return binary_run(call, isa, BINARY_MINIMUM, "MINIMUM float32", error_out);
}

ap_status ap_squared_difference_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return binary_run(call, isa, BINARY_SQDIFF, "SQUARED_DIFFERENCE float32", error_out);
}

ap_status ap_prelu_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return binary_run(call, isa, BINARY_PRELU, "PRELU float32", error_out);
}

/* ---- LOGISTIC, TANH, RELU ------------------------------------------------------------------------ */
#define UNARY_OP "LOGISTIC/TANH/RELU float32"

static ap_status unary_check(const ap_unary_f32_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, UNARY_OP ": params must not be NULL");
    }
    if (p->fn < AP_UNARY_F32_LOGISTIC || p->fn > AP_UNARY_F32_HARD_SWISH) {
        return AP_OPS_INVALID(error, UNARY_OP ": fn %d is not an ap_unary_f32_fn", (int)p->fn);
    }
    if (!(p->alpha >= -FLT_MAX && p->alpha <= FLT_MAX)) {
        return AP_OPS_INVALID(error, UNARY_OP ": alpha must be finite");
    }
    return AP_OK;
}

ap_status ap_unary_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                uint32_t *count_out, ap_error *error_out)
{
    const ap_unary_f32_params *p = params;
    ap_status st = unary_check(p, error_out);
    return st != AP_OK ? st : ap_f32_direct((uint64_t)p->count, 1, isa, variants_out, capacity, count_out,
                                            UNARY_OP, error_out);
}

/* TFLite's reference_ops::Logistic: its cut-offs, then expf. */
static float logistic_one(float x)
{
    const float upper = 16.619047164916992188f, lower = -9.0f;
    if (x > upper) {
        return 1.0f;
    }
    if (x < lower) {
        return expf(x);
    }
    return 1.0f / (1.0f + expf(-x));
}

ap_status ap_unary_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 1, UNARY_OP, error_out);
    const ap_unary_f32_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : unary_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    const float *x = call->inputs[0];
    float *y = call->output;   /* each y[i] from x[i] alone: in place is safe */
    switch (p->fn) {
    case AP_UNARY_F32_LOGISTIC:
        for (size_t i = 0; i < p->count; ++i) {
            y[i] = logistic_one(x[i]);
        }
        break;
    case AP_UNARY_F32_TANH:
        for (size_t i = 0; i < p->count; ++i) {
            y[i] = tanhf(x[i]);
        }
        break;
    case AP_UNARY_F32_RELU:
        for (size_t i = 0; i < p->count; ++i) {
            y[i] = x[i] < 0.0f ? 0.0f : x[i];
        }
        break;
    case AP_UNARY_F32_RELU6:
        for (size_t i = 0; i < p->count; ++i) {
            y[i] = x[i] > 6.0f ? 6.0f : x[i] < 0.0f ? 0.0f : x[i];
        }
        break;
    case AP_UNARY_F32_RELU_N1_TO_1:
        for (size_t i = 0; i < p->count; ++i) {
            y[i] = x[i] > 1.0f ? 1.0f : x[i] < -1.0f ? -1.0f : x[i];
        }
        break;
    case AP_UNARY_F32_LEAKY_RELU:
        for (size_t i = 0; i < p->count; ++i) {
            y[i] = x[i] > 0.0f ? x[i] : x[i] * p->alpha;
        }
        break;
    default:   /* AP_UNARY_F32_HARD_SWISH: std::min(6, std::max(0, x + 3)) as std:: compares */
        for (size_t i = 0; i < p->count; ++i) {
            const float v = x[i], s = v + 3.0f;
            const float lo = 0.0f < s ? s : 0.0f;
            const float r = lo < 6.0f ? lo : 6.0f;
            y[i] = v * r / 6.0f;
        }
        break;
    }
    return AP_OK;
}

/* ---- SOFTMAX ---------------------------------------------------------------------------------- */
#define SOFTMAX_OP "SOFTMAX float32"

static ap_status softmax_check(const ap_softmax_f32_params *p, size_t *count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, SOFTMAX_OP ": params must not be NULL");
    }
    ap_status st = ap_f32_check_rows(p->outer_size, p->depth, count, SOFTMAX_OP, error);
    if (st != AP_OK) {
        return st;
    }
    if (!(p->beta >= -FLT_MAX && p->beta <= FLT_MAX)) {
        return AP_OPS_INVALID(error, SOFTMAX_OP ": beta must be finite");
    }
    return AP_OK;
}

ap_status ap_softmax_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out)
{
    size_t n = 0;
    ap_status st = softmax_check(params, &n, error_out);
    return st != AP_OK ? st : ap_f32_direct((uint64_t)n, 1, isa, variants_out, capacity, count_out, SOFTMAX_OP,
                                            error_out);
}

ap_status ap_softmax_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 1, SOFTMAX_OP, error_out);
    const ap_softmax_f32_params *p = st == AP_OK ? call->params : NULL;
    size_t n = 0;
    st = st != AP_OK ? st : softmax_check(p, &n, error_out);
    if (st != AP_OK) {
        return st;
    }
    const size_t depth = (size_t)p->depth;
    for (size_t r = 0; r < (size_t)p->outer_size; ++r) {
        /* In place is safe: y[c] is written after x[c] and the maximum are read, and only y is
           read after that. */
        const float *x = (const float *)call->inputs[0] + r * depth;
        float *y = (float *)call->output + r * depth;
        float max = -FLT_MAX;
        for (size_t c = 0; c < depth; ++c) {
            max = max < x[c] ? x[c] : max;
        }
        float sum = 0.0f;
        for (size_t c = 0; c < depth; ++c) {
            const float e = expf((x[c] - max) * p->beta);
            y[c] = e;
            sum += e;
        }
        for (size_t c = 0; c < depth; ++c) {
            y[c] = y[c] / sum;
        }
    }
    return AP_OK;
}

/* ---- AVERAGE_POOL_2D and MAX_POOL_2D ------------------------------------------------------------ */
#define POOL_OP "AVERAGE_POOL_2D/MAX_POOL_2D float32"

ap_status ap_f32_pool_check(const ap_pool2d_f32_params *p, const char *op, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    const int32_t dims[] = {p->batches, p->input_h, p->input_w, p->channels, p->output_h, p->output_w,
                            p->filter_h, p->filter_w, p->stride_h, p->stride_w};
    for (size_t i = 0; i < sizeof(dims) / sizeof(dims[0]); ++i) {
        if (dims[i] < 1) {
            return AP_OPS_INVALID(error, "%s: every dimension and stride must be >= 1 (field %u is %d)", op,
                                  (unsigned)i, (int)dims[i]);
        }
    }
    if (p->pad_h < 0 || p->pad_w < 0) {
        return AP_OPS_INVALID(error, "%s: padding (%d, %d) must be >= 0", op, (int)p->pad_h, (int)p->pad_w);
    }
    const int32_t in[4] = {p->batches, p->input_h, p->input_w, p->channels};
    const int32_t out[4] = {p->batches, p->output_h, p->output_w, p->channels};
    size_t n = 0;
    if (!ap_ops_product(in, 4, &n) || n > SIZE_MAX / sizeof(float) || !ap_ops_product(out, 4, &n) ||
        n > SIZE_MAX / sizeof(float)) {
        return AP_OPS_OVERFLOW(error, "%s: the tensors' sizes overflow", op);
    }
    int64_t s = 0, e = 0;
    for (int32_t o = 0; o < p->output_h; ++o) {
        ap_f32_pool_window(o, p->stride_h, p->pad_h, p->filter_h, p->input_h, &s, &e);
        if (s >= e) {
            return AP_OPS_INVALID(error, "%s: output row %d's window holds no input", op, (int)o);
        }
    }
    for (int32_t o = 0; o < p->output_w; ++o) {
        ap_f32_pool_window(o, p->stride_w, p->pad_w, p->filter_w, p->input_w, &s, &e);
        if (s >= e) {
            return AP_OPS_INVALID(error, "%s: output column %d's window holds no input", op, (int)o);
        }
    }
    return ap_f32_check_range(p->activation_min, p->activation_max, op, error);
}

ap_status ap_pool2d_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, ap_error *error_out)
{
    const ap_pool2d_f32_params *p = params;
    ap_status st = ap_f32_pool_check(p, POOL_OP, error_out);
    if (st != AP_OK) {
        return st;
    }
    const uint64_t ops = (uint64_t)p->batches * (uint64_t)p->output_h * (uint64_t)p->output_w *
                         (uint64_t)p->channels * (uint64_t)p->filter_h * (uint64_t)p->filter_w;
    return ap_f32_direct(ops, 0, isa, variants_out, capacity, count_out, POOL_OP, error_out);
}

static ap_status pool_run(const ap_op_call *call, ap_isa isa, int average, ap_error *error)
{
    const char *op = average ? "AVERAGE_POOL_2D float32" : "MAX_POOL_2D float32";
    ap_status st = ap_f32_check_call(call, isa, 1, op, error);
    const ap_pool2d_f32_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : ap_f32_pool_check(p, POOL_OP, error);
    if (st != AP_OK) {
        return st;
    }
    const float *x = call->inputs[0];
    float *y = call->output;
    const size_t ih = (size_t)p->input_h, iw = (size_t)p->input_w, ch = (size_t)p->channels;
    const size_t oh = (size_t)p->output_h, ow = (size_t)p->output_w;
    for (size_t b = 0; b < (size_t)p->batches; ++b) {
        for (size_t oy = 0; oy < oh; ++oy) {
            int64_t ys = 0, ye = 0;
            ap_f32_pool_window((int64_t)oy, p->stride_h, p->pad_h, p->filter_h, p->input_h, &ys, &ye);
            const int64_t y0 = (int64_t)oy * p->stride_h - p->pad_h;
            for (size_t ox = 0; ox < ow; ++ox) {
                int64_t xs = 0, xe = 0;
                ap_f32_pool_window((int64_t)ox, p->stride_w, p->pad_w, p->filter_w, p->input_w, &xs, &xe);
                const int64_t x0 = (int64_t)ox * p->stride_w - p->pad_w;
                for (size_t c = 0; c < ch; ++c) {
                    float acc = average ? 0.0f : -FLT_MAX, count = 0.0f;
                    for (int64_t fy = ys; fy < ye; ++fy) {
                        for (int64_t fx = xs; fx < xe; ++fx) {
                            const float v = x[((b * ih + (size_t)(y0 + fy)) * iw + (size_t)(x0 + fx)) * ch + c];
                            if (average) {
                                acc += v;
                                count += 1.0f;
                            } else {
                                acc = acc < v ? v : acc;
                            }
                        }
                    }
                    const float r = average ? acc / count : acc;
                    y[((b * oh + oy) * ow + ox) * ch + c] = ap_f32_act(r, p->activation_min, p->activation_max);
                }
            }
        }
    }
    return AP_OK;
}

ap_status ap_average_pool2d_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return pool_run(call, isa, 1, error_out);
}

ap_status ap_max_pool2d_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return pool_run(call, isa, 0, error_out);
}

/* ---- PAD ------------------------------------------------------------------------------------- */
#define PAD_OP "PAD float32"

static ap_status pad_check(const ap_pad_f32_params *p, size_t *out_count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, PAD_OP ": params must not be NULL");
    }
    int32_t out[4];
    for (int d = 0; d < 4; ++d) {
        if (p->input_shape[d] < 1 || p->pad_before[d] < 0 || p->pad_after[d] < 0 ||
            (int64_t)p->input_shape[d] + p->pad_before[d] + p->pad_after[d] > INT32_MAX) {
            return AP_OPS_INVALID(error, PAD_OP ": dimension %d (%d, padded by %d and %d) is not valid", d,
                                  (int)p->input_shape[d], (int)p->pad_before[d], (int)p->pad_after[d]);
        }
        out[d] = p->input_shape[d] + p->pad_before[d] + p->pad_after[d];
    }
    size_t n = 0;
    if (!ap_ops_product(p->input_shape, 4, &n) || n > SIZE_MAX / sizeof(float) ||
        !ap_ops_product(out, 4, out_count) || *out_count > SIZE_MAX / sizeof(float)) {
        return AP_OPS_OVERFLOW(error, PAD_OP ": the tensors' sizes overflow");
    }
    if (!(p->pad_value >= -FLT_MAX && p->pad_value <= FLT_MAX)) {
        return AP_OPS_INVALID(error, PAD_OP ": pad_value must be finite");
    }
    return AP_OK;
}

ap_status ap_pad_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out)
{
    size_t n = 0;
    ap_status st = pad_check(params, &n, error_out);
    return st != AP_OK ? st : ap_f32_direct((uint64_t)n, 0, isa, variants_out, capacity, count_out, PAD_OP,
                                            error_out);
}

ap_status ap_pad_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 1, PAD_OP, error_out);
    const ap_pad_f32_params *p = st == AP_OK ? call->params : NULL;
    size_t n = 0;
    st = st != AP_OK ? st : pad_check(p, &n, error_out);
    if (st != AP_OK) {
        return st;
    }
    const float *x = call->inputs[0];
    float *y = call->output;
    size_t o[4];
    for (int d = 0; d < 4; ++d) {
        o[d] = (size_t)p->input_shape[d] + (size_t)p->pad_before[d] + (size_t)p->pad_after[d];
    }
    size_t i = 0;
    for (size_t a = 0; a < o[0]; ++a) {
        const int in_a = a >= (size_t)p->pad_before[0] && a - (size_t)p->pad_before[0] < (size_t)p->input_shape[0];
        for (size_t b = 0; b < o[1]; ++b) {
            const int in_b = in_a && b >= (size_t)p->pad_before[1] &&
                             b - (size_t)p->pad_before[1] < (size_t)p->input_shape[1];
            for (size_t c = 0; c < o[2]; ++c) {
                const int in_c = in_b && c >= (size_t)p->pad_before[2] &&
                                 c - (size_t)p->pad_before[2] < (size_t)p->input_shape[2];
                for (size_t d = 0; d < o[3]; ++d, ++i) {
                    if (in_c && d >= (size_t)p->pad_before[3] && d - (size_t)p->pad_before[3] < (size_t)p->input_shape[3]) {
                        const size_t src = (((a - (size_t)p->pad_before[0]) * (size_t)p->input_shape[1] +
                                             (b - (size_t)p->pad_before[1])) * (size_t)p->input_shape[2] +
                                            (c - (size_t)p->pad_before[2])) * (size_t)p->input_shape[3] +
                                           (d - (size_t)p->pad_before[3]);
                        y[i] = x[src];
                    } else {
                        y[i] = p->pad_value;
                    }
                }
            }
        }
    }
    return AP_OK;
}
