/* float32 EXP, LOG, SIN, COS, SQRT, RSQRT, SQUARE, NEG, ROUND, FLOOR, CEIL and ELU (arenaplan/ops.h,
   AP_TYPES_F32): one function of each element, as TFLite's float kernels compute it (elementwise.cc,
   exp.cc, neg.cc, round.cc, floor.cc, ceil.cc, elu.cc; LiteRT's and TensorFlow Lite Micro's give
   the same bits). One row per op, the params naming the function. */
#include "float32_common.h"

#include <math.h>

#define MATH_OP "EXP/LOG/SIN/COS/SQRT/RSQRT/SQUARE/NEG/ROUND/FLOOR/CEIL/ELU float32"

static ap_status math_check(const ap_math_f32_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, MATH_OP ": params must not be NULL");
    }
    if (p->fn < AP_MATH_F32_EXP || p->fn > AP_MATH_F32_ABS) {
        return AP_OPS_INVALID(error, MATH_OP ": fn %d is not an ap_math_f32_fn", (int)p->fn);
    }
    if (p->count > SIZE_MAX / sizeof(float)) {
        return AP_OPS_OVERFLOW(error, MATH_OP ": %llu elements overflow the tensor's size",
                               (unsigned long long)p->count);
    }
    return AP_OK;
}

ap_status ap_math_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out)
{
    const ap_math_f32_params *p = params;
    ap_status st = math_check(p, error_out);
    return st != AP_OK ? st : ap_f32_direct((uint64_t)p->count, 1, isa, variants_out, capacity, count_out,
                                            MATH_OP, error_out);
}

/* TFLite's RoundToNearest (reference_ops::Round): the floor, then up where the rest is above one
   half or is one half and the floor odd. The rest is exactly 0.5 only below 2^23, where the floor
   fits an int; inf and NaN take the last branch (inf - inf is NaN) and stay what they are. */
static float round_to_nearest(float x)
{
    const float f = floorf(x);
    const float d = x - f;
    if (d < 0.5f || (d == 0.5f && (int32_t)f % 2 == 0)) {
        return f;
    }
    return f + 1.0f;
}

ap_status ap_math_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 1, MATH_OP, error_out);
    const ap_math_f32_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : math_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    const float *x = call->inputs[0];
    float *y = call->output;   /* each y[i] from x[i] alone: in place is safe */
    const size_t n = p->count;
    switch (p->fn) {
    case AP_MATH_F32_EXP:
        for (size_t i = 0; i < n; ++i) {
            y[i] = expf(x[i]);
        }
        break;
    case AP_MATH_F32_LOG:
        for (size_t i = 0; i < n; ++i) {
            y[i] = logf(x[i]);
        }
        break;
    case AP_MATH_F32_SIN:
        for (size_t i = 0; i < n; ++i) {
            y[i] = sinf(x[i]);
        }
        break;
    case AP_MATH_F32_COS:
        for (size_t i = 0; i < n; ++i) {
            y[i] = cosf(x[i]);
        }
        break;
    case AP_MATH_F32_SQRT:
        for (size_t i = 0; i < n; ++i) {
            y[i] = sqrtf(x[i]);
        }
        break;
    case AP_MATH_F32_RSQRT:
        for (size_t i = 0; i < n; ++i) {
            y[i] = 1.0f / sqrtf(x[i]);
        }
        break;
    case AP_MATH_F32_SQUARE:
        for (size_t i = 0; i < n; ++i) {
            y[i] = x[i] * x[i];
        }
        break;
    case AP_MATH_F32_NEG:
        for (size_t i = 0; i < n; ++i) {
            y[i] = -x[i];
        }
        break;
    case AP_MATH_F32_ROUND:
        for (size_t i = 0; i < n; ++i) {
            y[i] = round_to_nearest(x[i]);
        }
        break;
    case AP_MATH_F32_FLOOR:
        for (size_t i = 0; i < n; ++i) {
            y[i] = floorf(x[i]);
        }
        break;
    case AP_MATH_F32_CEIL:
        for (size_t i = 0; i < n; ++i) {
            y[i] = ceilf(x[i]);
        }
        break;
    case AP_MATH_F32_ABS:
        for (size_t i = 0; i < n; ++i) {
            y[i] = fabsf(x[i]);
        }
        break;
    default:   /* AP_MATH_F32_ELU: reference_ops::Elu, TfLiteExpm1 below 0 */
        for (size_t i = 0; i < n; ++i) {
            y[i] = x[i] < 0.0f ? expm1f(x[i]) : x[i];
        }
        break;
    }
    return AP_OK;
}
