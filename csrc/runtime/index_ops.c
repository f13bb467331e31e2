/* ARG_MAX and ARG_MIN, GATHER and SELECT_V2 on int8 and float32 (arenaplan/ops.h): index and
   selection ops whose values are moved or compared as stored. */
#include "float32_common.h"

/* ---- ARG_MAX / ARG_MIN --------------------------------------------------------------------- */
static ap_status arg_check(const ap_arg_minmax_params *p, const char *op, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    if (p->outer < 1 || p->axis_size < 1 || p->inner < 1) {
        return AP_OPS_INVALID(error, "%s: outer %d, axis_size %d and inner %d must be >= 1", op, (int)p->outer,
                              (int)p->axis_size, (int)p->inner);
    }
    if (p->output_type != AP_DTYPE_INT32 && p->output_type != AP_DTYPE_INT64) {
        return AP_OPS_INVALID(error, "%s: output_type %d is not int32 (%d) or int64 (%d)", op, (int)p->output_type,
                              (int)AP_DTYPE_INT32, (int)AP_DTYPE_INT64);
    }
    const int32_t dims[3] = {p->outer, p->axis_size, p->inner};
    size_t n;
    if (!ap_ops_product(dims, 3, &n) || !ap_ops_mul(n, 8, &n)) {
        return AP_OPS_OVERFLOW(error, "%s: a tensor size overflows", op);
    }
    return AP_OK;
}

ap_status ap_arg_minmax_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, ap_error *error_out)
{
    const ap_arg_minmax_params *p = params;
    ap_status st = arg_check(p, "arg_min_max", error_out);
    if (st != AP_OK) {
        return st;
    }
    const uint64_t n = (uint64_t)p->outer * (uint64_t)p->axis_size * (uint64_t)p->inner;
    return ap_f32_direct(n, 0, isa, variants_out, capacity, count_out, "arg_min_max", error_out);
}

/* The index of the first greatest (is_max) or least value along the axis: TFLite's loop with
   std::greater / std::less, so a later equal value (or a NaN) never replaces the running one. */
#define ARG_LOOP(T)                                                                                   \
    do {                                                                                              \
        const T *x = call->inputs[0];                                                                 \
        for (size_t o = 0; o < outer; ++o) {                                                          \
            for (size_t i = 0; i < inner; ++i) {                                                      \
                const T *base = x + o * axis * inner + i;                                             \
                T best = base[0];                                                                     \
                int32_t at = 0;                                                                       \
                for (size_t a = 1; a < axis; ++a) {                                                   \
                    const T v = base[a * inner];                                                      \
                    if (is_max ? v > best : v < best) {                                               \
                        best = v;                                                                     \
                        at = (int32_t)a;                                                              \
                    }                                                                                 \
                }                                                                                     \
                if (p->output_type == AP_DTYPE_INT64) {                                               \
                    const int64_t wide = at;                                                          \
                    memcpy((uint8_t *)call->output + (o * inner + i) * 8u, &wide, 8);                 \
                } else {                                                                              \
                    ((int32_t *)call->output)[o * inner + i] = at;                                    \
                }                                                                                     \
            }                                                                                         \
        }                                                                                             \
    } while (0)

enum { ARG_S8, ARG_F32, ARG_S32 };

static ap_status arg_run(const ap_op_call *call, ap_isa isa, int is_max, int elem, ap_error *error)
{
    const char *op = is_max ? "arg_max" : "arg_min";
    ap_status st = ap_f32_check_call(call, isa, 1, op, error);
    const ap_arg_minmax_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : arg_check(p, op, error);
    if (st != AP_OK) {
        return st;
    }
    const size_t outer = (size_t)p->outer, axis = (size_t)p->axis_size, inner = (size_t)p->inner;
    if (elem == ARG_F32) {
        ARG_LOOP(float);
    } else if (elem == ARG_S32) {
        ARG_LOOP(int32_t);
    } else {
        ARG_LOOP(int8_t);
    }
    return AP_OK;
}

ap_status ap_arg_max_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return arg_run(call, isa, 1, ARG_S8, error_out);
}

ap_status ap_arg_min_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return arg_run(call, isa, 0, ARG_S8, error_out);
}

ap_status ap_arg_max_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return arg_run(call, isa, 1, ARG_F32, error_out);
}

ap_status ap_arg_min_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return arg_run(call, isa, 0, ARG_F32, error_out);
}

ap_status ap_arg_max_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return arg_run(call, isa, 1, ARG_S32, error_out);
}

ap_status ap_arg_min_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return arg_run(call, isa, 0, ARG_S32, error_out);
}

/* ---- GATHER -------------------------------------------------------------------------------- */
static ap_status gather_check(const ap_gather_params *p, const char *op, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    if (p->outer < 1 || p->axis_size < 1 || p->inner < 1 || p->coords < 1 || p->batches < 1) {
        return AP_OPS_INVALID(error, "%s: outer %d, axis_size %d, inner %d, coords %d and batches %d must be >= 1",
                              op, (int)p->outer, (int)p->axis_size, (int)p->inner, (int)p->coords,
                              (int)p->batches);
    }
    const int32_t in[4] = {p->batches, p->outer, p->axis_size, p->inner};
    const int32_t out[4] = {p->batches, p->outer, p->coords, p->inner}, index[2] = {p->batches, p->coords};
    size_t n;
    if (!ap_ops_product(in, 4, &n) || !ap_ops_mul(n, 4, &n) || !ap_ops_product(out, 4, &n) ||
        !ap_ops_mul(n, 4, &n) || !ap_ops_product(index, 2, &n) || !ap_ops_mul(n, 4, &n)) {
        return AP_OPS_OVERFLOW(error, "%s: a tensor size overflows", op);
    }
    return AP_OK;
}

ap_status ap_gather_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out)
{
    const ap_gather_params *p = params;
    ap_status st = gather_check(p, "gather", error_out);
    if (st != AP_OK) {
        return st;
    }
    const uint64_t n = (uint64_t)p->batches * (uint64_t)p->outer * (uint64_t)p->coords * (uint64_t)p->inner;
    return ap_f32_direct(n, 0, isa, variants_out, capacity, count_out, "gather", error_out);
}

static ap_status gather_run(const ap_op_call *call, ap_isa isa, size_t elem, ap_error *error)
{
    ap_status st = ap_f32_check_call(call, isa, 2, "gather", error);
    const ap_gather_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : gather_check(p, "gather", error);
    if (st != AP_OK) {
        return st;
    }
    const uint8_t *x = call->inputs[0];
    const int32_t *index = call->inputs[1];
    uint8_t *y = call->output;
    const size_t row = (size_t)p->inner * elem, coords = (size_t)p->coords, axis = (size_t)p->axis_size;
    const size_t outer = (size_t)p->outer, batches = (size_t)p->batches;
    /* every index checked before anything is written (TFLite fails the op the same way) */
    for (size_t c = 0; c < batches * coords; ++c) {
        if (index[c] < 0 || (size_t)index[c] >= axis) {
            return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, (uint64_t)c, axis,
                               "gather: index %u is %ld, outside [0, %u)", (unsigned)c, (long)index[c],
                               (unsigned)axis);
        }
    }
    /* batch b reads its own indices [b * coords, (b + 1) * coords) and its own params block */
    for (size_t b = 0; b < batches; ++b) {
        const int32_t *bi = index + b * coords;
        for (size_t o = 0; o < outer; ++o) {
            const size_t bo = b * outer + o;
            for (size_t c = 0; c < coords; ++c) {
                memcpy(y + (bo * coords + c) * row, x + (bo * axis + (size_t)bi[c]) * row, row);
            }
        }
    }
    return AP_OK;
}

ap_status ap_gather_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return gather_run(call, isa, 1, error_out);
}

ap_status ap_gather_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return gather_run(call, isa, 4, error_out);
}

ap_status ap_gather_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return gather_run(call, isa, 4, error_out);
}

ap_status ap_gather_bool_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return gather_run(call, isa, 1, error_out);
}

/* ---- SELECT_V2 ----------------------------------------------------------------------------- */
static ap_status select_check(const ap_select_params *p, const char *op, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    for (int d = 0; d < 4; ++d) {
        const int32_t c = p->condition_shape[d], a = p->x_shape[d], b = p->y_shape[d], o = p->output_shape[d];
        const int32_t m = c > a ? (c > b ? c : b) : (a > b ? a : b);
        if (c < 1 || a < 1 || b < 1 || o != m || (c != 1 && c != o) || (a != 1 && a != o) || (b != 1 && b != o)) {
            return AP_OPS_INVALID(error, "%s: dimension %d does not broadcast (%d, %d and %d -> %d)", op, d, (int)c,
                                  (int)a, (int)b, (int)o);
        }
    }
    size_t n;
    if (!ap_ops_product(p->condition_shape, 4, &n) || !ap_ops_product(p->x_shape, 4, &n) ||
        !ap_ops_product(p->y_shape, 4, &n) || !ap_ops_product(p->output_shape, 4, &n) || !ap_ops_mul(n, 4, &n)) {
        return AP_OPS_OVERFLOW(error, "%s: a tensor size overflows", op);
    }
    return AP_OK;
}

static int same4(const int32_t *a, const int32_t *b)
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

ap_status ap_select_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out)
{
    const ap_select_params *p = params;
    ap_status st = select_check(p, "select_v2", error_out);
    if (st != AP_OK) {
        return st;
    }
    size_t n = 0;
    ap_ops_product(p->output_shape, 4, &n);
    /* output[k] is written after reading element k of x or y of the output's shape */
    const int in_place = same4(p->x_shape, p->output_shape) || same4(p->y_shape, p->output_shape);
    return ap_f32_direct((uint64_t)n, in_place, isa, variants_out, capacity, count_out, "select_v2", error_out);
}

static ap_status select_run(const ap_op_call *call, ap_isa isa, size_t elem, ap_error *error)
{
    ap_status st = ap_f32_check_call(call, isa, 3, "select_v2", error);
    const ap_select_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : select_check(p, "select_v2", error);
    if (st != AP_OK) {
        return st;
    }
    const int32_t *shapes[3] = {p->condition_shape, p->x_shape, p->y_shape};
    size_t strides[3][4];
    for (int t = 0; t < 3; ++t) {
        size_t acc = 1;
        for (int d = 3; d >= 0; --d) {
            strides[t][d] = shapes[t][d] == 1 ? 0 : acc;
            acc *= (size_t)shapes[t][d];
        }
    }
    const uint8_t *cond = call->inputs[0], *x = call->inputs[1], *y = call->inputs[2];
    uint8_t *out = call->output;
    const int32_t *so = p->output_shape;
    size_t k = 0;
    for (int32_t i0 = 0; i0 < so[0]; ++i0) {
        for (int32_t i1 = 0; i1 < so[1]; ++i1) {
            for (int32_t i2 = 0; i2 < so[2]; ++i2) {
                size_t at[3];
                for (int t = 0; t < 3; ++t) {
                    at[t] = (size_t)i0 * strides[t][0] + (size_t)i1 * strides[t][1] + (size_t)i2 * strides[t][2];
                }
                for (int32_t i3 = 0; i3 < so[3]; ++i3, ++k) {
                    const size_t c = at[0] + (size_t)i3 * strides[0][3];
                    const uint8_t *src = cond[c] != 0 ? x + (at[1] + (size_t)i3 * strides[1][3]) * elem
                                                      : y + (at[2] + (size_t)i3 * strides[2][3]) * elem;
                    memmove(out + k * elem, src, elem);
                }
            }
        }
    }
    return AP_OK;
}

ap_status ap_select_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return select_run(call, isa, 1, error_out);
}

ap_status ap_select_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return select_run(call, isa, 2, error_out);
}

ap_status ap_select_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return select_run(call, isa, 4, error_out);
}

ap_status ap_select_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return select_run(call, isa, 4, error_out);
}

ap_status ap_select_bool_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return select_run(call, isa, 1, error_out);
}
