/* LEAKY_RELU (arenaplan/ops.h): TFLite's reference QuantizeLeakyRelu, int8 and int16 (one
   formula, the type's clamp). */
#include "arenaplan/ops.h"
#include "arenaplan/quant.h"

#include "ops_s8_common.h"
#include "unary_s8_common.h"

#define LEAKY_OP "leaky_relu"

/* The params of a row whose values lie in [lo, hi] (int8 or int16). */
static ap_status leaky_check(const ap_leaky_relu_params *p, int32_t lo, int32_t hi, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, LEAKY_OP ": params must not be NULL");
    }
    if (p->input_zero_point < lo || p->input_zero_point > hi || p->output_zero_point < lo ||
        p->output_zero_point > hi) {
        return AP_OPS_INVALID(error, LEAKY_OP ": zero points %d and %d must lie in [%d, %d]",
                              (int)p->input_zero_point, (int)p->output_zero_point, (int)lo, (int)hi);
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

/* The output before the clamp: |x - input zero point| < 2^17, so the multiply stays in int32. */
static inline int32_t leaky_value(const ap_leaky_relu_params *p, int32_t x)
{
    const int32_t v = x - p->input_zero_point;
    const int32_t scaled = v >= 0 ? ap_multiply_by_quantized_multiplier(v, p->identity_multiplier, p->identity_shift)
                                  : ap_multiply_by_quantized_multiplier(v, p->alpha_multiplier, p->alpha_shift);
    return p->output_zero_point + scaled;
}

static int8_t leaky_one(const void *params, int32_t x)
{
    return (int8_t)ap_ops_clamp(leaky_value(params, x), -128, 127);
}

ap_status ap_leaky_relu_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                    uint32_t *count_out, ap_error *error_out)
{
    const ap_leaky_relu_params *p = params;
    ap_status st = leaky_check(p, -128, 127, error_out);
    return st != AP_OK ? st : ap_unary_s8_variants(p->count, NULL, isa, variants_out, capacity, count_out, LEAKY_OP,
                                                   error_out);
}

ap_status ap_leaky_relu_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, LEAKY_OP ": call must not be NULL");
    }
    const ap_leaky_relu_params *p = call->params;
    ap_status st = leaky_check(p, -128, 127, error_out);
    return st != AP_OK ? st : ap_unary_s8_run(call, isa, p->count, leaky_one, NULL, LEAKY_OP, error_out);
}

/* ---- int16 (the 16x8 row): "direct" only, in place ---- */

ap_status ap_leaky_relu_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                     uint32_t *count_out, ap_error *error_out)
{
    const ap_leaky_relu_params *p = params;
    ap_status st = leaky_check(p, -32768, 32767, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[1];
    ap_ops_variant_set(&found[0], AP_UNARY_S8_DIRECT, 0, "direct", 0, NULL, NULL, (uint64_t)p->count, 1);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, LEAKY_OP, error_out);
}

ap_status ap_leaky_relu_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, LEAKY_OP ": call must not be NULL");
    }
    const ap_leaky_relu_params *p = call->params;
    ap_status st = leaky_check(p, -32768, 32767, error_out);
    if (st == AP_OK) {
        st = ap_ops_check_variant_ptr(call->variant, LEAKY_OP, error_out);
    }
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error_out, LEAKY_OP ": variant '%s' is a %s variant; asked to run it as %s",
                            call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st != AP_OK) {
        return st;
    }
    if (call->variant->kind != AP_UNARY_S8_DIRECT) {
        return AP_OPS_INVALID(error_out, LEAKY_OP ": variant kind %d does not apply (int16: direct only)",
                              (int)call->variant->kind);
    }
    st = ap_ops_check_scratch(LEAKY_OP, call->variant->name, NULL, 0, call->scratch, call->scratch_count, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (call->input_count != 1 || call->inputs == NULL || call->inputs[0] == NULL || call->output == NULL) {
        return AP_OPS_INVALID(error_out, LEAKY_OP ": one input and the output must not be NULL");
    }
    /* in[i] is read before out[i] is written: the output may be the input */
    const int16_t *in = call->inputs[0];
    int16_t *out = call->output;
    for (size_t i = 0; i < p->count; ++i) {
        out[i] = (int16_t)ap_ops_clamp(leaky_value(p, in[i]), -32768, 32767);
    }
    return AP_OK;
}
