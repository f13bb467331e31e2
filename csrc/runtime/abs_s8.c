/* int8 ABS (arenaplan/ops.h): TFLite's AbsEvalQuantized. */
#include "arenaplan/ops.h"
#include "arenaplan/quant.h"

#include "ops_s8_common.h"
#include "unary_s8_common.h"

#define ABS_OP "abs"

static ap_status abs_check(const ap_abs_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, ABS_OP ": params must not be NULL");
    }
    if (!ap_ops_int8_range(p->input_zero_point) || !ap_ops_int8_range(p->output_zero_point)) {
        return AP_OPS_INVALID(error, ABS_OP ": zero points %d and %d must lie in [-128, 127]",
                              (int)p->input_zero_point, (int)p->output_zero_point);
    }
    if (p->rescale != 0 && p->rescale != 1) {
        return AP_OPS_INVALID(error, ABS_OP ": rescale %d must be 0 or 1", (int)p->rescale);
    }
    if (p->multiplier < 0 || p->shift < -31 || p->shift > 30) {
        return AP_OPS_INVALID(error, ABS_OP ": multiplier %d must be >= 0 and shift %d in [-31, 30]",
                              (int)p->multiplier, (int)p->shift);
    }
    return AP_OK;
}

static int8_t abs_one(const void *params, int32_t x)
{
    const ap_abs_params *p = params;
    const int32_t d = x - p->input_zero_point;   /* [-255, 255] */
    const int32_t v = d < 0 ? -d : d;
    const int32_t scaled = p->rescale ? ap_multiply_by_quantized_multiplier(v, p->multiplier, p->shift) : v;
    return (int8_t)ap_ops_clamp(p->output_zero_point + scaled, -128, 127);
}

ap_status ap_abs_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out)
{
    const ap_abs_params *p = params;
    ap_status st = abs_check(p, error_out);
    return st != AP_OK ? st : ap_unary_s8_variants(p->count, NULL, isa, variants_out, capacity, count_out, ABS_OP,
                                                   error_out);
}

ap_status ap_abs_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, ABS_OP ": call must not be NULL");
    }
    const ap_abs_params *p = call->params;
    ap_status st = abs_check(p, error_out);
    return st != AP_OK ? st : ap_unary_s8_run(call, isa, p->count, abs_one, NULL, ABS_OP, error_out);
}
