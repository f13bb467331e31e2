/* int8 LOGISTIC and TANH (arenaplan/ops.h, ap_logistic_params): LiteRT's reference kernels'
   table, carried in the params, or TensorFlow Lite Micro's reference_integer_ops::Logistic /
   Tanh in fixed point, by the params' rounding rule. */
#include "arenaplan/ops.h"

#include "fixedpoint.h"
#include "fixedpoint_exp.h"
#include "ops_s8_common.h"
#include "unary_s8_common.h"

enum { LOGISTIC_TABLE_SIZE = 256 };

static ap_status logistic_check(const ap_logistic_params *p, const char *op, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    if (!ap_ops_int8_range(p->input_zero_point)) {
        return AP_OPS_INVALID(error, "%s: input_zero_point %d must lie in [-128, 127]", op,
                              (int)p->input_zero_point);
    }
    if (p->reference == AP_REFERENCE_LITERT) {
        if (p->table == NULL || p->table_size != LOGISTIC_TABLE_SIZE) {
            return AP_OPS_INVALID(error, "%s: reference litert looks its outputs up in the params' table: table "
                                  "must not be NULL and table_size %d must be %d", op, (int)p->table_size,
                                  LOGISTIC_TABLE_SIZE);
        }
        return AP_OK;
    }
    if (p->reference != AP_REFERENCE_TFLM) {
        return AP_OPS_INVALID(error, "%s: reference %d is neither litert (0) nor tflm (1)", op, (int)p->reference);
    }
    if (p->table != NULL || p->table_size != 0) {
        return AP_OPS_INVALID(error, "%s: reference tflm computes its outputs in fixed point: table must be NULL "
                              "and table_size %d must be 0", op, (int)p->table_size);
    }
    if (p->input_range_radius < 0) {
        return AP_OPS_INVALID(error, "%s: input_range_radius %d must be >= 0", op, (int)p->input_range_radius);
    }
    if (p->input_multiplier < ((int32_t)1 << 30)) {
        return AP_OPS_INVALID(error, "%s: input_multiplier %d must lie in [2^30, 2^31 - 1] (a scale's mantissa)",
                              op, (int)p->input_multiplier);
    }
    if (p->input_left_shift < 0 || p->input_left_shift > 31) {
        return AP_OPS_INVALID(error, "%s: input_left_shift %d must lie in [0, 31]", op, (int)p->input_left_shift);
    }
    return AP_OK;
}

/* The input in Q4.27 (|v| < radius keeps v * 2^shift below 15 * 2^27 for params the lowering
   made; other params wrap, never overflow). */
static int32_t logistic_input_q4(const ap_logistic_params *p, int32_t v)
{
    return ap_fp_multiply_by_nonneg_multiplier(v, p->input_multiplier, p->input_left_shift);
}

/* One output of TFLM's kernel: saturated outside the input radius, else fn of the Q4.27
   input in Q0.31, divided down to the output's fraction bits (exponent) and offset by its
   zero point. Inlined with constant arguments into each op's function. */
static inline int8_t logistic_family_one(const ap_logistic_params *p, int32_t x, int32_t (*fn)(int32_t),
                                         int32_t exponent, int32_t zero_point)
{
    const int32_t v = x - p->input_zero_point;
    if (v <= -p->input_range_radius) {
        return -128;
    }
    if (v >= p->input_range_radius) {
        return 127;
    }
    const int32_t y = ap_fp_rounding_divide_by_pot(fn(logistic_input_q4(p, v)), exponent) + zero_point;
    return (int8_t)ap_ops_clamp(y, -128, 127);
}

static int8_t logistic_one(const void *params, int32_t x)
{
    /* Q0.31 to Q0.8 (scale 1/256), then the zero point -128 */
    return logistic_family_one(params, x, ap_fpx_logistic_q4, 23, -128);
}

static int8_t tanh_one(const void *params, int32_t x)
{
    /* Q0.31 to Q0.7 (scale 1/128, zero point 0) */
    return logistic_family_one(params, x, ap_fpx_tanh_q4, 24, 0);
}

static const int8_t *logistic_carried(const ap_logistic_params *p)
{
    return p->reference == AP_REFERENCE_LITERT ? p->table : NULL;
}

static ap_status unary_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                uint32_t *count_out, const char *op, ap_error *error_out)
{
    const ap_logistic_params *p = params;
    ap_status st = logistic_check(p, op, error_out);
    return st != AP_OK ? st : ap_unary_s8_variants(p->count, logistic_carried(p), isa, variants_out, capacity,
                                                   count_out, op, error_out);
}

static ap_status unary_run(const ap_op_call *call, ap_isa isa, ap_unary_s8_fn fn, const char *op,
                           ap_error *error_out)
{
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, "%s: call must not be NULL", op);
    }
    const ap_logistic_params *p = call->params;
    ap_status st = logistic_check(p, op, error_out);
    return st != AP_OK ? st : ap_unary_s8_run(call, isa, p->count, fn, logistic_carried(p), op, error_out);
}

ap_status ap_logistic_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out)
{
    return unary_variants(params, isa, variants_out, capacity, count_out, "logistic", error_out);
}

ap_status ap_logistic_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return unary_run(call, isa, logistic_one, "logistic", error_out);
}

ap_status ap_tanh_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    return unary_variants(params, isa, variants_out, capacity, count_out, "tanh", error_out);
}

ap_status ap_tanh_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return unary_run(call, isa, tanh_one, "tanh", error_out);
}
