/* int8 LEAKY_RELU (arenaplan/ops.h): TFLite's reference QuantizeLeakyRelu. */
#include "arenaplan/ops.h"
#include "arenaplan/quant.h"

#include "ops_s8_common.h"
#include "unary_s8_common.h"

#define LEAKY_OP "leaky_relu"

static ap_status leaky_check(const ap_leaky_relu_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, LEAKY_OP ": params must not be NULL");
    }
    if (!ap_ops_int8_range(p->input_zero_point) || !ap_ops_int8_range(p->output_zero_point)) {
        return AP_OPS_INVALID(error, LEAKY_OP ": zero points %d and %d must lie in [-128, 127]",
                              (int)p->input_zero_point, (int)p->output_zero_point);
    }
    if (p->identity_multiplier < 0 || p->identity_shift < -31 || p->identity_shift > 30) {
        return AP_OPS_INVALID(error, LEAKY_OP ": identity_multiplier %d must be >= 0 and identity_shift %d in "
                              "[-31, 30]", (int)p->identity_multiplier, (int)p->identity_shift);
    }
    if (p->alpha_multiplier < 0 || p->alpha_shift < -31 || p->alpha_shift > 30) {
        return AP_OPS_INVALID(error, LEAKY_OP ": alpha_multiplier %d must be >= 0 and alpha_shift %d in "
                              "[-31, 30]", (int)p->alpha_multiplier, (int)p->alpha_shift);
    }
    return AP_OK;
}

static int8_t leaky_one(const void *params, int32_t x)
{
    const ap_leaky_relu_params *p = params;
    const int32_t v = x - p->input_zero_point;
    const int32_t scaled = v >= 0 ? ap_multiply_by_quantized_multiplier(v, p->identity_multiplier, p->identity_shift)
                                  : ap_multiply_by_quantized_multiplier(v, p->alpha_multiplier, p->alpha_shift);
    return (int8_t)ap_ops_clamp(p->output_zero_point + scaled, -128, 127);
}

ap_status ap_leaky_relu_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                    uint32_t *count_out, ap_error *error_out)
{
    const ap_leaky_relu_params *p = params;
    ap_status st = leaky_check(p, error_out);
    return st != AP_OK ? st : ap_unary_s8_variants(p->count, NULL, isa, variants_out, capacity, count_out, LEAKY_OP,
                                                   error_out);
}

ap_status ap_leaky_relu_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, LEAKY_OP ": call must not be NULL");
    }
    const ap_leaky_relu_params *p = call->params;
    ap_status st = leaky_check(p, error_out);
    return st != AP_OK ? st : ap_unary_s8_run(call, isa, p->count, leaky_one, NULL, LEAKY_OP, error_out);
}
