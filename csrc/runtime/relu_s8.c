/* RELU (arenaplan/ops.h), int8 and int16: TFLite's reference ReluX with QuantizedReluX's
   parameters (one formula, each type its range). */
#include "arenaplan/ops.h"
#include "arenaplan/quant.h"

#include "ops_s8_common.h"

#define RELU_OP "relu"

enum { RELU_TABLE_BYTES = 256 };

/* The params of a row whose values lie in [lo, hi] (int8 or int16). */
static ap_status relu_check(const ap_relu_params *p, int32_t lo, int32_t hi, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, RELU_OP ": params must not be NULL");
    }
    if (p->input_zero_point < lo || p->input_zero_point > hi || p->output_zero_point < lo ||
        p->output_zero_point > hi) {
        return AP_OPS_INVALID(error, RELU_OP ": zero points %d and %d must lie in [%d, %d]",
                              (int)p->input_zero_point, (int)p->output_zero_point, (int)lo, (int)hi);
    }
    if (p->output_multiplier < 0 || p->output_shift < -31 || p->output_shift > 30) {
        return AP_OPS_INVALID(error, RELU_OP ": output_multiplier %d must be >= 0 and output_shift %d in "
                              "[-31, 30]", (int)p->output_multiplier, (int)p->output_shift);
    }
    if (p->activation_min < lo || p->activation_min > p->activation_max || p->activation_max > hi) {
        return AP_OPS_INVALID(error, RELU_OP ": activation range [%d, %d] must lie within [%d, %d]",
                              (int)p->activation_min, (int)p->activation_max, (int)lo, (int)hi);
    }
    return AP_OK;
}

/* What both run()s check first: the call, its params (a row of values in [lo, hi]), its variant
   and the variant's ISA (the one this row was asked to run). */
static ap_status relu_begin(const ap_op_call *call, ap_isa isa, int32_t lo, int32_t hi, ap_error *error)
{
    if (call == NULL) {
        return AP_OPS_INVALID(error, RELU_OP ": call must not be NULL");
    }
    ap_status st = relu_check(call->params, lo, hi, error);
    if (st == AP_OK) {
        st = ap_ops_check_variant_ptr(call->variant, RELU_OP, error);
    }
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error, RELU_OP ": variant '%s' is a %s variant; asked to run it as %s", call->variant->name,
                            ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    return st;
}

/* One output, clamped to the activation range (within the row's type); |x - zero point| < 2^17 */
static inline int32_t relu_value(const ap_relu_params *p, int32_t x)
{
    const int32_t v = p->output_zero_point + ap_multiply_by_quantized_multiplier(
        x - p->input_zero_point, p->output_multiplier, p->output_shift);
    return ap_ops_clamp(v, p->activation_min, p->activation_max);
}

static int8_t relu_one(const ap_relu_params *p, int32_t x)
{
    return (int8_t)relu_value(p, x);
}

ap_status ap_relu_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    const ap_relu_params *p = params;
    ap_status st = relu_check(p, -128, 127, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[2];
    const size_t bytes[1] = {RELU_TABLE_BYTES}, align[1] = {1};
    ap_ops_variant_set(&found[0], AP_RELU_DIRECT, 0, "direct", 0, NULL, NULL, (uint64_t)p->count, 1);
    ap_ops_variant_set(&found[1], AP_RELU_TABLE, 0, "table", 1, bytes, align, (uint64_t)p->count, 1);
    return ap_ops_variants_out(found, 2, isa, variants_out, capacity, count_out, RELU_OP, error_out);
}

ap_status ap_relu_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    /* one code for every ISA (a table lookup has nothing to vectorise at int8 widths) */
    ap_status st = relu_begin(call, isa, -128, 127, error_out);
    if (st != AP_OK) {
        return st;
    }
    const ap_relu_params *p = call->params;
    if (call->input_count != 1 || call->inputs == NULL || call->inputs[0] == NULL || call->output == NULL) {
        return AP_OPS_INVALID(error_out, RELU_OP ": one input and the output must not be NULL");
    }
    const int8_t *in = call->inputs[0];
    int8_t *out = call->output;
    if (call->variant->kind == AP_RELU_DIRECT) {
        for (size_t i = 0; i < p->count; ++i) {
            out[i] = relu_one(p, in[i]);
        }
        return AP_OK;
    }
    if (call->variant->kind != AP_RELU_TABLE) {
        return AP_OPS_INVALID(error_out, RELU_OP ": variant kind %d does not apply", (int)call->variant->kind);
    }
    const size_t need[1] = {RELU_TABLE_BYTES};
    st = ap_ops_check_scratch(RELU_OP, call->variant->name, need, 1, call->scratch, call->scratch_count,
                              error_out);
    if (st != AP_OK) {
        return st;
    }
    int8_t *table = call->scratch[0].data;   /* table[x + 128]: the output of input x */
    for (int32_t x = -128; x <= 127; ++x) {
        table[x + 128] = relu_one(p, x);
    }
    for (size_t i = 0; i < p->count; ++i) {   /* reads in[i] before writing out[i]: in place is safe */
        out[i] = table[(int32_t)in[i] + 128];
    }
    return AP_OK;
}

/* ---- int16 (the 16x8 row; also RELU6): "direct" only, in place ---- */

ap_status ap_relu_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out)
{
    const ap_relu_params *p = params;
    ap_status st = relu_check(p, -32768, 32767, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[1];
    ap_ops_variant_set(&found[0], AP_RELU_DIRECT, 0, "direct", 0, NULL, NULL, (uint64_t)p->count, 1);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, RELU_OP, error_out);
}

ap_status ap_relu_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = relu_begin(call, isa, -32768, 32767, error_out);
    if (st != AP_OK) {
        return st;
    }
    const ap_relu_params *p = call->params;
    if (call->variant->kind != AP_RELU_DIRECT) {
        return AP_OPS_INVALID(error_out, RELU_OP ": variant kind %d does not apply (int16: direct only)",
                              (int)call->variant->kind);
    }
    st = ap_ops_check_scratch(RELU_OP, call->variant->name, NULL, 0, call->scratch, call->scratch_count, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (call->input_count != 1 || call->inputs == NULL || call->inputs[0] == NULL || call->output == NULL) {
        return AP_OPS_INVALID(error_out, RELU_OP ": one input and the output must not be NULL");
    }
    const int16_t *in = call->inputs[0];
    int16_t *out = call->output;
    for (size_t i = 0; i < p->count; ++i) {   /* reads in[i] before writing out[i]: in place is safe */
        out[i] = (int16_t)relu_value(p, in[i]);
    }
    return AP_OK;
}
