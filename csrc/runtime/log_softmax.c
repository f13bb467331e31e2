/* LOG_SOFTMAX over the last axis, float32 and int8 (arenaplan/ops.h). */
#include "float32_common.h"

#include <math.h>

#include "fixedpoint.h"
#include "fixedpoint_exp.h"

#define LS_OP "LOG_SOFTMAX"
#define LS_INPUT_INTEGER_BITS 5          /* the differences in Q5.26 */
#define LS_ACCUMULATION_INTEGER_BITS 12  /* the sum of exps in Q12.19 */
#define LS_OUTPUT_INTEGER_BITS 4         /* the output's 1/16 steps */
#define LS_OUTPUT_ZERO_POINT 127

enum { LS_DIRECT = 0, LS_EXP_TABLE = 1 };
/* exp_table: one Q12.19 value per difference in [-255, 0] */
#define LS_TABLE_ENTRIES 256
#define LS_TABLE_BYTES (LS_TABLE_ENTRIES * sizeof(int32_t))

/* exp_table pays where the tensor has more values than the table has entries: it makes 256 exps
   a call where direct makes one a value (on a Cortex-M4, 4 x 64 values cost the same both ways,
   16 x 64 half as much with the table). */
static int ls_exp_table_applies(size_t count)
{
    return count > LS_TABLE_ENTRIES;
}

static ap_status ls_check(const ap_log_softmax_params *p, int s8, size_t *count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, LS_OP ": params must not be NULL");
    }
    ap_status st = ap_f32_check_rows(p->outer_size, p->depth, count, LS_OP, error);
    if (st != AP_OK) {
        return st;
    }
    if (s8 && (p->input_multiplier < 0 || p->input_left_shift < 0 || p->input_left_shift > 31 ||
               p->reverse_scaling_divisor < 0 || p->reverse_scaling_shift < -31 || p->reverse_scaling_shift > 0 ||
               p->diff_min > 0 || p->diff_min == INT32_MIN)) {
        return AP_OPS_INVALID(error, LS_OP " int8: input_multiplier %d and reverse_scaling_divisor %d must be >= 0, "
                              "input_left_shift %d in [0, 31], reverse_scaling_shift %d in [-31, 0], diff_min %d "
                              "in (INT32_MIN, 0]", (int)p->input_multiplier, (int)p->reverse_scaling_divisor,
                              (int)p->input_left_shift, (int)p->reverse_scaling_shift, (int)p->diff_min);
    }
    return AP_OK;
}

ap_status ap_log_softmax_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out)
{
    size_t n = 0;
    ap_status st = ls_check(params, 0, &n, error_out);
    return st != AP_OK ? st : ap_f32_direct((uint64_t)n, 1, isa, variants_out, capacity, count_out, LS_OP,
                                            error_out);
}

ap_status ap_log_softmax_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                     uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    size_t n = 0;
    ap_status st = ls_check(params, 1, &n, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[2];
    const size_t bytes[1] = {LS_TABLE_BYTES}, align[1] = {4};
    ap_ops_variant_set(&found[0], LS_DIRECT, 0, "direct", 0, NULL, NULL, (uint64_t)n, 1);
    ap_ops_variant_set(&found[1], LS_EXP_TABLE, 0, "exp_table", 1, bytes, align, (uint64_t)n, 1);
    return ap_ops_variants_out(found, ls_exp_table_applies(n) ? 2 : 1, isa, variants_out, capacity, count_out,
                               LS_OP, error_out);
}

ap_status ap_log_softmax_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 1, LS_OP " float32", error_out);
    const ap_log_softmax_params *p = st == AP_OK ? call->params : NULL;
    size_t n = 0;
    st = st != AP_OK ? st : ls_check(p, 0, &n, error_out);
    if (st != AP_OK) {
        return st;
    }
    const size_t depth = (size_t)p->depth;
    for (size_t r = 0; r < (size_t)p->outer_size; ++r) {
        /* In place is safe: the row is read whole before y[c] is written over x[c]. */
        const float *x = (const float *)call->inputs[0] + r * depth;
        float *y = (float *)call->output + r * depth;
        float max = -FLT_MAX;   /* std::numeric_limits<float>::lowest(); std::max passes NaN by */
        for (size_t c = 0; c < depth; ++c) {
            max = max < x[c] ? x[c] : max;
        }
        float sum = 0.0f;
        for (size_t c = 0; c < depth; ++c) {
            sum += expf(x[c] - max);
        }
        const float log_sum = logf(sum);
        for (size_t c = 0; c < depth; ++c) {
            y[c] = x[c] - max - log_sum;
        }
    }
    return AP_OK;
}

/* gemmlowp's SaturatingRoundingMultiplyByPOTParam for exponent >= 0. */
static int32_t ls_sat_shl(int32_t x, int exponent)
{
    return exponent == 0 ? x : ap_fpx_sat_shl(x, exponent);
}

static int32_t ls_sat_add(int32_t a, int32_t b)
{
    const int64_t s = (int64_t)a + (int64_t)b;
    return s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : (int32_t)s;
}

static int32_t ls_sat_sub(int32_t a, int32_t b)
{
    const int64_t s = (int64_t)a - (int64_t)b;
    return s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : (int32_t)s;
}

/* TFLite's log_x_for_x_greater_than_or_equal_to_1<5> of a Q12.19 value (> 0), Q5.26 out: the
   input split as 2^k * r with r near [sqrt(1/2), 1], k's log(2) multiples plus a rational
   approximation of log(r) about sqrt(sqrt(1/2)), accumulated in Q6.25. */
static int32_t ls_log_q12_to_q5(int32_t input)
{
    enum { IN_BITS = LS_ACCUMULATION_INTEGER_BITS, OUT_BITS = LS_INPUT_INTEGER_BITS, ACC_BITS = OUT_BITS + 1 };
    const int32_t log_2 = 1488522236, sqrt_sqrt_half = 1805811301, sqrt_half = 1518500250;
    const int32_t one_quarter = 536870912;
    const int32_t alpha_n = 117049297, alpha_d = 127690142, alpha_i = 1057819769, alpha_f = 638450708;
    const int32_t shifted_quarter = ap_fp_rounding_divide_by_pot(one_quarter, ACC_BITS);

    const int32_t z_a = input;   /* read as Q0.31: the shift is worked out here */
    const int z_a_headroom_plus_1 = ap_fpx_count_leading_zeros((uint32_t)z_a);
    const int32_t r_a_tmp = ls_sat_shl(z_a, z_a_headroom_plus_1 - 1);
    const int32_t r_a_raw = ls_sat_shl(ap_fpx_mul(r_a_tmp, sqrt_half), 1);
    const int32_t z_a_pow_2_adj =
        ls_sat_add(ls_sat_shl(IN_BITS - z_a_headroom_plus_1, 31 - ACC_BITS), shifted_quarter);

    const int32_t z_b = ap_fpx_mul(z_a, sqrt_half);
    const int z_b_headroom = ap_fpx_count_leading_zeros((uint32_t)z_b) - 1;
    const int32_t r_b_raw = ls_sat_shl(z_a, z_b_headroom);
    const int32_t z_b_pow_2_adj = ls_sat_sub(ls_sat_shl(IN_BITS - z_b_headroom, 31 - ACC_BITS), shifted_quarter);

    const int32_t r = r_a_raw < r_b_raw ? r_a_raw : r_b_raw;
    const int32_t z_pow_2_adj = z_a_pow_2_adj > z_b_pow_2_adj ? z_a_pow_2_adj : z_b_pow_2_adj;

    const int32_t p = ap_fpx_rounding_half_sum(r, sqrt_sqrt_half);
    int32_t q = ap_fpx_sub(r, sqrt_sqrt_half);
    q = ap_fpx_add(q, q);
    const int32_t common_sq = ap_fpx_mul(q, q);
    const int32_t num = ap_fpx_add(ap_fpx_mul(q, r), ap_fpx_mul(ap_fpx_mul(q, common_sq), alpha_n));
    const int32_t denom_minus_one_0 = ap_fpx_add(
        ap_fpx_mul(p, ap_fpx_add(ap_fpx_add(alpha_i, q), ap_fpx_mul(alpha_d, common_sq))), ap_fpx_mul(alpha_f, q));
    const int32_t recip_denom = ap_fpx_one_over_one_plus_x_for_x_in_0_1(denom_minus_one_0);
    const int32_t num_scaled = ap_fp_rounding_divide_by_pot(num, ACC_BITS);
    const int32_t sum = ap_fpx_add(ap_fpx_mul(z_pow_2_adj, log_2), ap_fpx_mul(num_scaled, recip_denom));
    return ls_sat_shl(sum, ACC_BITS - OUT_BITS);
}

/* Rescale<12>(exp_on_negative_values(the Q5.26 difference)) of one difference >= diff_min. */
static int32_t ls_exp_q12(int32_t diff, const ap_log_softmax_params *p)
{
    const int32_t q5 = ap_fp_multiply_by_quantized_multiplier(diff, p->input_multiplier, p->input_left_shift);
    return ap_fp_rounding_divide_by_pot(ap_fpx_exp_on_negative_values(q5, LS_INPUT_INTEGER_BITS),
                                        LS_ACCUMULATION_INTEGER_BITS);
}

ap_status ap_log_softmax_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL || call->params == NULL) {
        return AP_OPS_INVALID(error_out, LS_OP " int8: the call and its params must not be NULL");
    }
    const ap_log_softmax_params *p = call->params;
    const ap_variant *v = call->variant;
    ap_status st = ap_ops_check_variant_ptr(v, LS_OP " int8", error_out);
    if (st != AP_OK) {
        return st;
    }
    if (v->isa != (int32_t)isa || (v->kind != LS_DIRECT && v->kind != LS_EXP_TABLE) || v->param != 0) {
        return AP_OPS_INVALID(error_out, LS_OP " int8: variant '%s' (kind %d, %s) does not apply to a %s run",
                              v->name, (int)v->kind, ap_isa_name(v->isa), ap_isa_name(isa));
    }
    if (call->input_count != 1 || call->inputs == NULL || call->inputs[0] == NULL || call->output == NULL) {
        return AP_OPS_INVALID(error_out, LS_OP " int8: one input and the output must be given");
    }
    size_t n = 0;
    if ((st = ls_check(p, 1, &n, error_out)) != AP_OK) {
        return st;
    }
    int32_t *table = NULL;
    if (v->kind == LS_EXP_TABLE && !ls_exp_table_applies(n)) {
        return AP_OPS_INVALID(error_out, LS_OP " int8: exp_table applies to more than %d values, not %llu",
                              LS_TABLE_ENTRIES, (unsigned long long)n);
    }
    if (v->kind == LS_EXP_TABLE) {
        const size_t need[1] = {LS_TABLE_BYTES};
        st = ap_ops_check_scratch(LS_OP " int8", v->name, need, 1, call->scratch, call->scratch_count, error_out);
        if (st != AP_OK) {
            return st;
        }
        if (((uintptr_t)call->scratch[0].data & 3u) != 0) {
            return AP_OPS_INVALID(error_out, LS_OP " int8: exp_table scratch must be 4-byte aligned");
        }
        table = (int32_t *)call->scratch[0].data;
        /* a difference below diff_min adds nothing to the sum */
        for (int32_t k = 0; k < LS_TABLE_ENTRIES; ++k) {
            table[k] = -k >= p->diff_min ? ls_exp_q12(-k, p) : 0;
        }
    }
    const size_t depth = (size_t)p->depth;
    for (size_t r = 0; r < (size_t)p->outer_size; ++r) {
        /* In place is safe: the row is read whole before y[c] is written over x[c]. */
        const int8_t *x = (const int8_t *)call->inputs[0] + r * depth;
        int8_t *y = (int8_t *)call->output + r * depth;
        int32_t max_in_row = -128;
        for (size_t c = 0; c < depth; ++c) {
            max_in_row = x[c] > max_in_row ? x[c] : max_in_row;
        }
        /* Q12.19, wrapping past 2^12 as TFLite's int32 sum does */
        int32_t sum_of_exps = 0;
        for (size_t c = 0; c < depth; ++c) {
            const int32_t diff = (int32_t)x[c] - max_in_row;
            if (table != NULL) {
                sum_of_exps = ap_fpx_add(sum_of_exps, table[-diff]);
            } else if (diff >= p->diff_min) {
                sum_of_exps = ap_fpx_add(sum_of_exps, ls_exp_q12(diff, p));
            }
        }
        const int32_t log_sum = ls_log_q12_to_q5(sum_of_exps);
        /* the differences whose output is not the lowest: above the Q5.26 floor plus the log-sum,
           taken back to input steps, and above diff_min - 1 */
        const int32_t floor_q5 = ap_fpx_add(log_sum, INT32_MIN);
        const int32_t back = ap_fp_multiply_by_quantized_multiplier(floor_q5, p->reverse_scaling_divisor,
                                                                    p->reverse_scaling_shift);
        const int32_t adjusted_diff_min = p->diff_min - 1 > back ? p->diff_min - 1 : back;
        for (size_t c = 0; c < depth; ++c) {
            const int32_t diff = (int32_t)x[c] - max_in_row;
            int32_t out = -128;
            if (diff > adjusted_diff_min) {
                const int32_t q5 =
                    ap_fp_multiply_by_quantized_multiplier(diff, p->input_multiplier, p->input_left_shift);
                out = ap_fp_rounding_divide_by_pot(ap_fpx_sub(q5, log_sum),
                                                   31 - LS_INPUT_INTEGER_BITS - LS_OUTPUT_INTEGER_BITS) +
                      LS_OUTPUT_ZERO_POINT;
                out = ap_ops_clamp(out, -128, 127);
            }
            y[c] = (int8_t)out;
        }
    }
    return AP_OK;
}
