/* CUMSUM along one axis, float32 and int8 (arenaplan/ops.h). */
#include "float32_common.h"

#include "fixedpoint.h"

#define CS_OP "CUMSUM"

static ap_status cs_check(const ap_cumsum_params *p, int s8, size_t *count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, CS_OP ": params must not be NULL");
    }
    const int32_t dims[3] = {p->outer, p->axis_size, p->inner};
    if (p->outer < 1 || p->axis_size < 1 || p->inner < 1) {
        return AP_OPS_INVALID(error, CS_OP ": outer %d, axis_size %d and inner %d must be >= 1", (int)p->outer,
                              (int)p->axis_size, (int)p->inner);
    }
    if (!ap_ops_product(dims, 3, count) || *count > SIZE_MAX / sizeof(float)) {
        return AP_OPS_OVERFLOW(error, CS_OP ": the tensor's size overflows");
    }
    if ((p->exclusive != 0 && p->exclusive != 1) || (p->reverse != 0 && p->reverse != 1)) {
        return AP_OPS_INVALID(error, CS_OP ": exclusive %d and reverse %d must be 0 or 1", (int)p->exclusive,
                              (int)p->reverse);
    }
    if (s8 && (!ap_ops_input_offset_ok(p->input_offset) || !ap_ops_int8_range(p->output_offset) ||
               p->left_shift < 0 || p->left_shift > 20 || p->input_multiplier < 0 || p->output_multiplier < 0 ||
               p->input_shift < -31 || p->input_shift > 0 || p->output_shift < -31 || p->output_shift > 0)) {
        return AP_OPS_INVALID(error, CS_OP " int8: input_offset %d must lie in [-127, 128], output_offset %d in "
                              "[-128, 127], left_shift %d in [0, 20], the multipliers (%d, %d) >= 0 and the shifts "
                              "(%d, %d) in [-31, 0]", (int)p->input_offset, (int)p->output_offset,
                              (int)p->left_shift, (int)p->input_multiplier, (int)p->output_multiplier,
                              (int)p->input_shift, (int)p->output_shift);
    }
    return AP_OK;
}

static ap_status cs_variants(const void *params, int s8, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out)
{
    size_t n = 0;
    ap_status st = cs_check(params, s8, &n, error_out);
    return st != AP_OK ? st : ap_f32_direct((uint64_t)n, 1, isa, variants_out, capacity, count_out, CS_OP,
                                            error_out);
}

ap_status ap_cumsum_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out)
{
    return cs_variants(params, 0, isa, variants_out, capacity, count_out, error_out);
}

ap_status ap_cumsum_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                uint32_t *count_out, ap_error *error_out)
{
    return cs_variants(params, 1, isa, variants_out, capacity, count_out, error_out);
}

/* Element k (0-based, in summation order) of the line (o, i) along the axis: its index. */
static inline size_t cs_index(const ap_cumsum_params *p, size_t o, size_t k, size_t i)
{
    const size_t d = p->reverse ? (size_t)p->axis_size - 1 - k : k;
    return (o * (size_t)p->axis_size + d) * (size_t)p->inner + i;
}

ap_status ap_cumsum_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 1, CS_OP " float32", error_out);
    const ap_cumsum_params *p = st == AP_OK ? call->params : NULL;
    size_t n = 0;
    st = st != AP_OK ? st : cs_check(p, 0, &n, error_out);
    if (st != AP_OK) {
        return st;
    }
    const float *x = call->inputs[0];
    float *y = call->output;
    for (size_t o = 0; o < (size_t)p->outer; ++o) {
        for (size_t i = 0; i < (size_t)p->inner; ++i) {
            float acc = 0.0f;
            for (size_t k = 0; k < (size_t)p->axis_size; ++k) {
                /* In place is safe: x[at] is read before y[at] is written, and never again. */
                const size_t at = cs_index(p, o, k, i);
                const float v = x[at];
                if (p->exclusive) {
                    y[at] = acc;
                    acc += v;
                } else {
                    acc += v;
                    y[at] = acc;
                }
            }
        }
    }
    return AP_OK;
}

/* TFLite's MultiplyByQuantizedMultiplierSmallerThanOneExp: shift <= 0. */
static inline int32_t cs_scale(int32_t x, int32_t multiplier, int32_t shift)
{
    return ap_fp_rounding_divide_by_pot(ap_fp_saturating_rounding_doubling_high_mul(x, multiplier), -shift);
}

ap_status ap_cumsum_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 1, CS_OP " int8", error_out);
    const ap_cumsum_params *p = st == AP_OK ? call->params : NULL;
    size_t n = 0;
    st = st != AP_OK ? st : cs_check(p, 1, &n, error_out);
    if (st != AP_OK) {
        return st;
    }
    const int8_t *x = call->inputs[0];
    int8_t *y = call->output;
    /* TensorFlow Lite Micro's accumulator starts at the scaled input offset, not at 0, and is
       int32 arithmetic that wraps; both are kept so the bits are its bits. */
    const int32_t start = cs_scale(p->input_offset * ((int32_t)1 << p->left_shift), p->input_multiplier,
                                   p->input_shift);
    for (size_t o = 0; o < (size_t)p->outer; ++o) {
        for (size_t i = 0; i < (size_t)p->inner; ++i) {
            int32_t acc = start;
            for (size_t k = 0; k < (size_t)p->axis_size; ++k) {
                const size_t at = cs_index(p, o, k, i);
                const int32_t shifted = (p->input_offset + (int32_t)x[at]) * ((int32_t)1 << p->left_shift);
                const int32_t scaled = cs_scale(shifted, p->input_multiplier, p->input_shift);
                int32_t sum;
                if (p->exclusive) {
                    sum = acc;
                    acc = ap_ops_wrap_add(acc, scaled);
                } else {
                    acc = ap_ops_wrap_add(acc, scaled);
                    sum = acc;
                }
                const int32_t out = ap_ops_wrap_add(cs_scale(sum, p->output_multiplier, p->output_shift),
                                                    p->output_offset);
                y[at] = (int8_t)ap_ops_clamp(out, -128, 127);
            }
        }
    }
    return AP_OK;
}
