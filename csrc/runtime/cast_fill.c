/* CAST between int8, int16, int32, float32 and bool; ZEROS_LIKE, FILL and SHAPE (arenaplan/ops.h):
   the ops that make values of a type rather than compute them. */
#include "float32_common.h"

/* ---- CAST ---------------------------------------------------------------------------------- */
typedef enum cast_in { IN_S8, IN_F32, IN_S32, IN_BOOL, IN_S16 } cast_in;

static ap_status cast_check(const ap_cast_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "cast: params must not be NULL");
    }
    if (p->output_type != AP_DTYPE_INT8 && p->output_type != AP_DTYPE_INT16 && p->output_type != AP_DTYPE_INT32 &&
        p->output_type != AP_DTYPE_FLOAT32 && p->output_type != AP_DTYPE_BOOL) {
        return AP_OPS_INVALID(error, "cast: output_type %d is not int8, int16, int32, float32 or bool",
                              (int)p->output_type);
    }
    if (p->nan_saturates != 0 && p->nan_saturates != 1) {
        return AP_OPS_INVALID(error, "cast: nan_saturates %d is not 0 or 1", (int)p->nan_saturates);
    }
    size_t n;
    if (p->count < 1 || !ap_ops_mul(p->count, 4, &n)) {
        return AP_OPS_INVALID(error, "cast: count %lu must be >= 1 and its bytes must not overflow",
                              (unsigned long)p->count);
    }
    return AP_OK;
}

ap_status ap_cast_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                           uint32_t *count_out, ap_error *error_out)
{
    const ap_cast_params *p = params;
    ap_status st = cast_check(p, error_out);
    return st != AP_OK ? st : ap_f32_direct((uint64_t)p->count, 0, isa, variants_out, capacity, count_out, "cast",
                                            error_out);
}

/* float32 to an integer type of [lo, hi]: truncated toward zero, saturated at the ends (lo and hi
   are exact float32 values but for INT32_MAX, whose float32 neighbour 2^31 saturates), a NaN to
   hi or 0. */
static inline int32_t f32_to_int(float f, int32_t lo, int32_t hi, int nan_saturates)
{
    if (f != f) {
        return nan_saturates ? hi : 0;
    }
    if (f <= (float)lo) {
        return lo;
    }
    if (f >= (float)hi) {   /* (float)INT32_MAX is 2^31 */
        return hi;
    }
    return (int32_t)f;
}

/* One value as int32 (integers and bool exactly) for an integer output type of [lo, hi]. */
static inline int32_t in_as_int(const void *x, size_t i, cast_in in, int32_t lo, int32_t hi, int nan_saturates)
{
    switch (in) {
    case IN_S8: return ((const int8_t *)x)[i];
    case IN_F32: return f32_to_int(((const float *)x)[i], lo, hi, nan_saturates);
    case IN_S32: return ((const int32_t *)x)[i];
    case IN_S16: return ((const int16_t *)x)[i];
    default: return ((const uint8_t *)x)[i] != 0;
    }
}

static ap_status cast_run(const ap_op_call *call, ap_isa isa, cast_in in, ap_error *error)
{
    ap_status st = ap_f32_check_call(call, isa, 1, "cast", error);
    const ap_cast_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : cast_check(p, error);
    if (st != AP_OK) {
        return st;
    }
    const void *x = call->inputs[0];
    void *y = call->output;
    const size_t n = p->count;
    switch (p->output_type) {
    case AP_DTYPE_INT8:
        for (size_t i = 0; i < n; ++i) {
            ((int8_t *)y)[i] = (int8_t)(uint8_t)(uint32_t)in_as_int(x, i, in, -128, 127, p->nan_saturates);
        }
        break;
    case AP_DTYPE_INT16:
        for (size_t i = 0; i < n; ++i) {
            ((int16_t *)y)[i] = (int16_t)(uint16_t)(uint32_t)in_as_int(x, i, in, -32768, 32767, p->nan_saturates);
        }
        break;
    case AP_DTYPE_INT32:
        for (size_t i = 0; i < n; ++i) {
            ((int32_t *)y)[i] = in_as_int(x, i, in, INT32_MIN, INT32_MAX, p->nan_saturates);
        }
        break;
    case AP_DTYPE_FLOAT32:
        for (size_t i = 0; i < n; ++i) {
            ((float *)y)[i] = in == IN_F32 ? ((const float *)x)[i] : (float)in_as_int(x, i, in, 0, 0, 0);
        }
        break;
    default:   /* bool */
        for (size_t i = 0; i < n; ++i) {
            const int t = in == IN_F32 ? ((const float *)x)[i] != 0.0f : in_as_int(x, i, in, 0, 0, 0) != 0;
            ((uint8_t *)y)[i] = (uint8_t)t;
        }
        break;
    }
    return AP_OK;
}

ap_status ap_cast_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return cast_run(call, isa, IN_S8, error_out);
}

ap_status ap_cast_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return cast_run(call, isa, IN_S16, error_out);
}

ap_status ap_cast_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return cast_run(call, isa, IN_F32, error_out);
}

ap_status ap_cast_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return cast_run(call, isa, IN_S32, error_out);
}

ap_status ap_cast_bool_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return cast_run(call, isa, IN_BOOL, error_out);
}

/* ---- ZEROS_LIKE and FILL ------------------------------------------------------------------- */
/* count >= 1 elements of `elem` bytes whose size does not overflow. */
static ap_status fill_check(const ap_fill_params *p, size_t elem, const char *op, ap_error *error)
{
    size_t n;
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    if (p->count < 1 || !ap_ops_mul(p->count, elem, &n)) {
        return AP_OPS_INVALID(error, "%s: count %lu must be >= 1 and its bytes must not overflow", op,
                              (unsigned long)p->count);
    }
    return AP_OK;
}

ap_status ap_fill_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                           uint32_t *count_out, ap_error *error_out)
{
    const ap_fill_params *p = params;
    ap_status st = fill_check(p, 4, "fill", error_out);
    return st != AP_OK ? st : ap_f32_direct((uint64_t)p->count, 0, isa, variants_out, capacity, count_out, "fill",
                                            error_out);
}

static ap_status fill_run(const ap_op_call *call, ap_isa isa, size_t elem, int zeros, ap_error *error)
{
    const char *op = zeros ? "zeros_like" : "fill";
    ap_status st = ap_f32_check_call(call, isa, 1, op, error);
    const ap_fill_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : fill_check(p, elem, op, error);
    if (st != AP_OK) {
        return st;
    }
    uint8_t *y = call->output;
    if (zeros) {
        memset(y, 0, p->count * elem);   /* 0.0f is all zero bits */
        return AP_OK;
    }
    uint8_t value[4];
    memcpy(value, call->inputs[0], elem);   /* the value may share no byte with y, but copy first */
    for (size_t i = 0; i < p->count; ++i) {
        memcpy(y + i * elem, value, elem);
    }
    return AP_OK;
}

ap_status ap_zeros_like_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return fill_run(call, isa, 4, 1, error_out);
}

ap_status ap_zeros_like_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return fill_run(call, isa, 4, 1, error_out);
}

ap_status ap_zeros_like_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return fill_run(call, isa, 8, 1, error_out);
}

/* int8 ZEROS_LIKE: TensorFlow Lite Micro's kernel writes the value 0 (not the zero point) */
ap_status ap_zeros_like_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return fill_run(call, isa, 1, 1, error_out);
}

ap_status ap_fill_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return fill_run(call, isa, 1, 0, error_out);
}

ap_status ap_fill_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return fill_run(call, isa, 4, 0, error_out);
}

ap_status ap_fill_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return fill_run(call, isa, 4, 0, error_out);
}

ap_status ap_fill_bool_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return fill_run(call, isa, 1, 0, error_out);
}

/* ---- SHAPE --------------------------------------------------------------------------------- */
static ap_status shape_check(const ap_shape_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "shape: params must not be NULL");
    }
    if (p->rank < 0 || p->rank > 8) {
        return AP_OPS_INVALID(error, "shape: rank %d is outside [0, 8]", (int)p->rank);
    }
    if (p->output_type != AP_DTYPE_INT32 && p->output_type != AP_DTYPE_INT64) {
        return AP_OPS_INVALID(error, "shape: output_type %d is not int32 (%d) or int64 (%d)", (int)p->output_type,
                              (int)AP_DTYPE_INT32, (int)AP_DTYPE_INT64);
    }
    for (int32_t d = 0; d < p->rank; ++d) {
        if (p->dims[d] < 0) {
            return AP_OPS_INVALID(error, "shape: dimension %d is %d", (int)d, (int)p->dims[d]);
        }
    }
    return AP_OK;
}

ap_status ap_shape_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                            uint32_t *count_out, ap_error *error_out)
{
    const ap_shape_params *p = params;
    ap_status st = shape_check(p, error_out);
    return st != AP_OK ? st : ap_f32_direct((uint64_t)p->rank, 0, isa, variants_out, capacity, count_out, "shape",
                                            error_out);
}

ap_status ap_shape_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 1, "shape", error_out);
    const ap_shape_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : shape_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    for (int32_t d = 0; d < p->rank; ++d) {
        if (p->output_type == AP_DTYPE_INT64) {
            const int64_t v = p->dims[d];
            memcpy((uint8_t *)call->output + (size_t)d * 8u, &v, 8);
        } else {
            ((int32_t *)call->output)[d] = p->dims[d];
        }
    }
    return AP_OK;
}
