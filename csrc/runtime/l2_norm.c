/* L2_NORMALIZATION over the last axis, float32 and int8 (arenaplan/ops.h). */
#include "float32_common.h"

#include <math.h>

#include "fixedpoint.h"
#include "fixedpoint_exp.h"

#define L2N_OP "L2_NORMALIZATION"
/* The largest int8 depth whose sum of squared differences (each at most 255^2) stays in int32. */
#define L2N_MAX_S8_DEPTH 33025
/* TFLite's epsilon: the float32 norm is at least this. */
#define L2N_EPSILON 1e-6f

static ap_status l2n_check(const ap_l2_norm_params *p, size_t *count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, L2N_OP ": params must not be NULL");
    }
    ap_status st = ap_f32_check_rows(p->outer_size, p->depth, count, L2N_OP, error);
    if (st != AP_OK) {
        return st;
    }
    if (!ap_ops_int8_range(p->input_zero_point)) {
        return AP_OPS_INVALID(error, L2N_OP ": input_zero_point %d outside [-128, 127]", (int)p->input_zero_point);
    }
    return AP_OK;
}

ap_status ap_l2_norm_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    size_t n = 0;
    ap_status st = l2n_check(params, &n, error_out);
    /* two passes over each row: the squares, then the divisions */
    return st != AP_OK ? st : ap_f32_direct(2 * (uint64_t)n, 1, isa, variants_out, capacity, count_out, L2N_OP,
                                            error_out);
}

ap_status ap_l2_norm_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 1, L2N_OP " float32", error_out);
    const ap_l2_norm_params *p = st == AP_OK ? call->params : NULL;
    size_t n = 0;
    st = st != AP_OK ? st : l2n_check(p, &n, error_out);
    if (st != AP_OK) {
        return st;
    }
    const size_t depth = (size_t)p->depth;
    for (size_t r = 0; r < (size_t)p->outer_size; ++r) {
        /* In place is safe: the row is read whole before y[c] is written over x[c]. */
        const float *x = (const float *)call->inputs[0] + r * depth;
        float *y = (float *)call->output + r * depth;
        float squares = 0.0f;
        for (size_t c = 0; c < depth; ++c) {
            const float v = x[c];
            squares += v * v;   /* rounded product, then rounded sum: contraction is off */
        }
        float norm = sqrtf(squares);
        norm = norm < L2N_EPSILON ? L2N_EPSILON : norm;   /* std::max(norm, epsilon); NaN stays */
        for (size_t c = 0; c < depth; ++c) {
            y[c] = x[c] / norm;
        }
    }
    return AP_OK;
}

/* TFLite's GetInvSqrtQuantizedMultiplierExp with reverse_shift -1: 1 / sqrt(input) as a Q0.31
   multiplier and a shift (left positive) such that x * 1/sqrt(input) = MultiplyByQuantizedMultiplier
   (x, *mult, *shift). Newton-Raphson in Q3.28 from 1, five steps, on the input normalised to
   [2^27, 2^29) by pairs of bits. Inputs 0 and 1 give (INT32_MAX, 0). */
static void l2n_inv_sqrt(int32_t input, int32_t *mult, int32_t *shift)
{
    if (input <= 1) {
        *mult = INT32_MAX;
        *shift = 0;
        return;
    }
    int32_t right = 11;
    while (input >= ((int32_t)1 << 29)) {
        input /= 4;
        ++right;
    }
    const int max_left_shift_bits = ap_fpx_count_leading_zeros((uint32_t)input) - 1;
    const int left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
    right -= left_shift_bit_pairs;
    input = (int32_t)((uint32_t)input << (2 * left_shift_bit_pairs));
    const int32_t half_input = ap_fp_rounding_divide_by_pot(input >> 1, 1);  /* Q3.28 */
    const int32_t half_three = ((int32_t)1 << 28) + ((int32_t)1 << 27);      /* 1.5 in Q3.28 */
    int32_t x = (int32_t)1 << 28;                                            /* 1.0 in Q3.28 */
    for (int i = 0; i < 5; ++i) {
        /* x^3 is Q9.22, rescaled to Q3.28; the difference of two Q6.25 products likewise */
        const int32_t x3 = ap_fpx_sat_shl(ap_fpx_mul(ap_fpx_mul(x, x), x), 6);
        x = ap_fpx_sat_shl(ap_fpx_sub(ap_fpx_mul(half_three, x), ap_fpx_mul(half_input, x3)), 3);
    }
    x = ap_fpx_mul(x, 1518500250);   /* times sqrt(2) / 2 in Q0.31 */
    if (right < 0) {
        x = (int32_t)((uint32_t)x << -right);
        right = 0;
    }
    *mult = x;
    *shift = -right;
}

ap_status ap_l2_norm_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 1, L2N_OP " int8", error_out);
    const ap_l2_norm_params *p = st == AP_OK ? call->params : NULL;
    size_t n = 0;
    st = st != AP_OK ? st : l2n_check(p, &n, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (p->depth > L2N_MAX_S8_DEPTH) {
        return AP_OPS_INVALID(error_out, L2N_OP " int8: depth %d over %d: the int32 sum of squares may overflow",
                              (int)p->depth, L2N_MAX_S8_DEPTH);
    }
    const size_t depth = (size_t)p->depth;
    const int32_t zp = p->input_zero_point;
    for (size_t r = 0; r < (size_t)p->outer_size; ++r) {
        const int8_t *x = (const int8_t *)call->inputs[0] + r * depth;
        int8_t *y = (int8_t *)call->output + r * depth;
        int32_t squares = 0;
        for (size_t c = 0; c < depth; ++c) {
            const int32_t d = (int32_t)x[c] - zp;
            squares += d * d;
        }
        int32_t mult = 0, shift = 0;
        l2n_inv_sqrt(squares, &mult, &shift);
        /* the output's 1/128 steps folded into the shift (TFLite's kOutputScale of 7) */
        for (size_t c = 0; c < depth; ++c) {
            const int32_t v = ap_fp_multiply_by_quantized_multiplier((int32_t)x[c] - zp, mult, shift + 7);
            y[c] = (int8_t)ap_ops_clamp(v, -128, 127);
        }
    }
    return AP_OK;
}
