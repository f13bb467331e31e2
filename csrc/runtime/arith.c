/* FLOOR_DIV and FLOOR_MOD with 4-D broadcasting, and ADD_N, on float32 and int32 (arenaplan/ops.h). */
#include "float32_common.h"
#include "fixedpoint.h"
#include "broadcast4.h"

#include <math.h>

/* ---- FLOOR_DIV / FLOOR_MOD ----------------------------------------------------------------- */
static ap_status floor_check(const ap_floor_params *p, const char *op, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    ap_status st = ap_bcast4_check(p->input1_shape, p->input2_shape, p->output_shape, op, error);
    if (st != AP_OK) {
        return st;
    }
    size_t n;
    if (!ap_ops_product(p->input1_shape, 4, &n) || !ap_ops_product(p->input2_shape, 4, &n) ||
        !ap_ops_product(p->output_shape, 4, &n) || !ap_ops_mul(n, 4, &n)) {
        return AP_OPS_OVERFLOW(error, "%s: a tensor size overflows", op);
    }
    return AP_OK;
}

ap_status ap_floor_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                            uint32_t *count_out, ap_error *error_out)
{
    const ap_floor_params *p = params;
    ap_status st = floor_check(p, "floor_div_mod", error_out);
    if (st != AP_OK) {
        return st;
    }
    size_t n = 0;
    ap_ops_product(p->output_shape, 4, &n);
    /* out[k] is written after element k of a full-shape input is read */
    const int in_place = ap_bcast4_same(p->input1_shape, p->output_shape) || ap_bcast4_same(p->input2_shape, p->output_shape);
    return ap_f32_direct((uint64_t)n, in_place, isa, variants_out, capacity, count_out, "floor_div_mod", error_out);
}

static inline float floor_div_f32(float x, float y)
{
    return (float)floor((double)x / (double)y);
}

static inline float floor_mod_f32(float x, float y)
{
    const float m = fmodf(x, y);
    return (m != 0.0f && ((y < 0.0f) != (m < 0.0f))) ? m + y : m;
}

static inline int32_t floor_div_s32(int32_t x, int32_t y)
{
    const double q = floor((double)x / (double)y);
    return (q >= -2147483648.0 && q < 2147483648.0) ? (int32_t)q : INT32_MIN;
}

static inline int32_t floor_mod_s32(int32_t x, int32_t y)
{
    /* C99's % truncates as std::modulus does; INT32_MIN % -1 is 0 (computed in 64 bits) */
    const int32_t m = (int32_t)((int64_t)x % (int64_t)y);
    return (m != 0 && ((y < 0) != (m < 0))) ? (int32_t)((uint32_t)m + (uint32_t)y) : m;
}

static ap_status floor_run(const ap_op_call *call, ap_isa isa, int mod, int f32, ap_error *error)
{
    const char *op = mod ? "floor_mod" : "floor_div";
    ap_status st = ap_f32_check_call(call, isa, 2, op, error);
    const ap_floor_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : floor_check(p, op, error);
    if (st != AP_OK) {
        return st;
    }
    size_t n2 = 0;
    ap_ops_product(p->input2_shape, 4, &n2);
    if (!f32 || !mod) {   /* TFLite fails a division by zero (FLOOR_MOD float32: NaN) before computing */
        for (size_t i = 0; i < n2; ++i) {
            if (f32 ? ((const float *)call->inputs[1])[i] == 0.0f : ((const int32_t *)call->inputs[1])[i] == 0) {
                return AP_OPS_INVALID(error, "%s: division by zero (element %lu of the divisor)", op,
                                      (unsigned long)i);
            }
        }
    }
    const int32_t *s1 = p->input1_shape, *s2 = p->input2_shape, *so = p->output_shape;
    size_t st1[4], st2[4], a1 = 1, a2 = 1;
    for (int d = 3; d >= 0; --d) {
        st1[d] = s1[d] == 1 ? 0 : a1;
        st2[d] = s2[d] == 1 ? 0 : a2;
        a1 *= (size_t)s1[d];
        a2 *= (size_t)s2[d];
    }
    size_t k = 0;
    for (int32_t i0 = 0; i0 < so[0]; ++i0) {
        for (int32_t i1 = 0; i1 < so[1]; ++i1) {
            for (int32_t i2 = 0; i2 < so[2]; ++i2) {
                size_t o1 = (size_t)i0 * st1[0] + (size_t)i1 * st1[1] + (size_t)i2 * st1[2];
                size_t o2 = (size_t)i0 * st2[0] + (size_t)i1 * st2[1] + (size_t)i2 * st2[2];
                for (int32_t i3 = 0; i3 < so[3]; ++i3, ++k, o1 += st1[3], o2 += st2[3]) {
                    if (f32) {
                        const float x = ((const float *)call->inputs[0])[o1];
                        const float y = ((const float *)call->inputs[1])[o2];
                        ((float *)call->output)[k] = mod ? floor_mod_f32(x, y) : floor_div_f32(x, y);
                    } else {
                        const int32_t x = ((const int32_t *)call->inputs[0])[o1];
                        const int32_t y = ((const int32_t *)call->inputs[1])[o2];
                        ((int32_t *)call->output)[k] = mod ? floor_mod_s32(x, y) : floor_div_s32(x, y);
                    }
                }
            }
        }
    }
    return AP_OK;
}

ap_status ap_floor_div_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return floor_run(call, isa, 0, 1, error_out);
}

ap_status ap_floor_div_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return floor_run(call, isa, 0, 0, error_out);
}

ap_status ap_floor_mod_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return floor_run(call, isa, 1, 1, error_out);
}

ap_status ap_floor_mod_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return floor_run(call, isa, 1, 0, error_out);
}

/* ---- ADD_N --------------------------------------------------------------------------------- */
static ap_status add_n_check(const ap_add_n_params *p, ap_error *error)
{
    size_t n;
    if (p == NULL) {
        return AP_OPS_INVALID(error, "add_n: params must not be NULL");
    }
    if (p->count < 1 || !ap_ops_mul(p->count, 4, &n) || (p->tflm_loop != 0 && p->tflm_loop != 1)) {
        return AP_OPS_INVALID(error, "add_n: count %lu must be >= 1 (its bytes not overflowing) and tflm_loop "
                              "%d 0 or 1", (unsigned long)p->count, (int)p->tflm_loop);
    }
    return AP_OK;
}

ap_status ap_add_n_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                            uint32_t *count_out, ap_error *error_out)
{
    const ap_add_n_params *p = params;
    ap_status st = add_n_check(p, error_out);
    return st != AP_OK ? st : ap_f32_direct((uint64_t)p->count, 1, isa, variants_out, capacity, count_out, "add_n",
                                            error_out);
}

static ap_status add_n_run(const ap_op_call *call, ap_isa isa, int f32, ap_error *error)
{
    if (call == NULL || call->input_count < 2 || call->input_count > 16) {
        return AP_OPS_INVALID(error, "add_n: 2 to 16 inputs expected, got %u", call ? (unsigned)call->input_count : 0u);
    }
    ap_status st = ap_f32_check_call(call, isa, call->input_count, "add_n", error);
    const ap_add_n_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : add_n_check(p, error);
    if (st != AP_OK) {
        return st;
    }
    const uint32_t m = call->input_count;
    for (size_t i = 0; i < p->count; ++i) {   /* element i of every input read before out[i] */
        if (f32) {
            const float *const *x = (const float *const *)call->inputs;
            float acc;
            if (p->tflm_loop) {   /* 0.0, then each input added */
                acc = 0.0f + x[0][i];
                for (uint32_t j = 1; j < m; ++j) {
                    acc += x[j][i];
                }
            } else {              /* the first input, then each sum clamped to the finite range */
                acc = x[0][i];
                for (uint32_t j = 1; j < m; ++j) {
                    acc = ap_f32_act(acc + x[j][i], -FLT_MAX, FLT_MAX);
                }
            }
            ((float *)call->output)[i] = acc;
        } else {
            uint32_t acc = (uint32_t)((const int32_t *)call->inputs[0])[i];
            for (uint32_t j = 1; j < m; ++j) {
                acc += (uint32_t)((const int32_t *)call->inputs[j])[i];
            }
            ((int32_t *)call->output)[i] = (int32_t)acc;
        }
    }
    return AP_OK;
}

ap_status ap_add_n_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return add_n_run(call, isa, 1, error_out);
}

ap_status ap_add_n_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return add_n_run(call, isa, 0, error_out);
}

/* ---- int8 ADD_N (TensorFlow Lite Micro's) ---------------------------------------------------- */
static ap_status add_n_s8_check(const ap_add_n_s8_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "add_n int8: params must not be NULL");
    }
    if (p->count < 1 || p->input_offset < -127 || p->input_offset > 128 || p->output_offset < -128 ||
        p->output_offset > 127) {
        return AP_OPS_INVALID(error, "add_n int8: count %lu must be >= 1, input_offset %d in [-127, 128] and "
                              "output_offset %d in [-128, 127]", (unsigned long)p->count, (int)p->input_offset,
                              (int)p->output_offset);
    }
    if (p->input_multiplier < 0 || p->output_multiplier < 0 || p->input_shift < -31 || p->input_shift > 0 ||
        p->output_shift < -31 || p->output_shift > 0) {
        return AP_OPS_INVALID(error, "add_n int8: multipliers %d and %d must be >= 0 and shifts %d and %d in "
                              "[-31, 0]", (int)p->input_multiplier, (int)p->output_multiplier, (int)p->input_shift,
                              (int)p->output_shift);
    }
    return AP_OK;
}

ap_status ap_add_n_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out)
{
    const ap_add_n_s8_params *p = params;
    ap_status st = add_n_s8_check(p, error_out);
    return st != AP_OK ? st : ap_f32_direct((uint64_t)p->count, 1, isa, variants_out, capacity, count_out,
                                            "add_n int8", error_out);
}

ap_status ap_add_n_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL || call->input_count < 2 || call->input_count > 16) {
        return AP_OPS_INVALID(error_out, "add_n int8: 2 to 16 inputs expected, got %u",
                              call ? (unsigned)call->input_count : 0u);
    }
    ap_status st = ap_f32_check_call(call, isa, call->input_count, "add_n int8", error_out);
    const ap_add_n_s8_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : add_n_s8_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    const uint32_t m = call->input_count;
    /* (input_offset + v) << 20 fits int32 (|.| <= 255 * 2^20); the sum of the scaled terms wraps */
    const int32_t start = ap_fp_multiply_by_quantized_multiplier(p->input_offset * (1 << 20), p->input_multiplier,
                                                                 p->input_shift);
    for (size_t i = 0; i < p->count; ++i) {   /* element i of every input read before out[i] */
        uint32_t acc = (uint32_t)start;
        for (uint32_t j = 0; j < m; ++j) {
            const int32_t y = p->input_offset + ((const int8_t *)call->inputs[j])[i];
            acc += (uint32_t)ap_fp_multiply_by_quantized_multiplier(y * (1 << 20), p->input_multiplier,
                                                                   p->input_shift);
        }
        const int32_t sum = acc <= (uint32_t)INT32_MAX ? (int32_t)acc
                                                       : (int32_t)(acc - (uint32_t)INT32_MAX - 1u) + INT32_MIN;
        const int32_t v = ap_fp_multiply_by_quantized_multiplier(sum, p->output_multiplier, p->output_shift) +
                          p->output_offset;
        ((int8_t *)call->output)[i] = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
    }
    return AP_OK;
}
