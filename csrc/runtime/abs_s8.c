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

/* ---- int16 ABS: the same function on int16 values, zero points 0 (TFLite's int16 ABS requires
   them) and the int16 clamp ---- */
#define ABS16_OP "abs_s16"

static ap_status abs16_check(const ap_abs_params *p, ap_error *error)
{
    ap_status st = abs_check(p, error);
    if (st == AP_OK && (p->input_zero_point != 0 || p->output_zero_point != 0)) {
        st = AP_OPS_INVALID(error, ABS16_OP ": zero points %d and %d must be 0 (TFLite's int16 ABS requires them)",
                            (int)p->input_zero_point, (int)p->output_zero_point);
    }
    return st;
}

ap_status ap_abs_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    const ap_abs_params *p = params;
    ap_status st = abs16_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[1];
    ap_ops_variant_set(&found[0], AP_UNARY_S8_DIRECT, 0, "direct", 0, NULL, NULL, (uint64_t)p->count, 1);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, ABS16_OP, error_out);
}

ap_status ap_abs_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, ABS16_OP ": call must not be NULL");
    }
    const ap_abs_params *p = call->params;
    ap_status st = abs16_check(p, error_out);
    if (st == AP_OK) {
        st = ap_ops_check_variant_ptr(call->variant, ABS16_OP, error_out);
    }
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error_out, ABS16_OP ": variant '%s' is a %s variant; asked to run it as %s",
                            call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st != AP_OK) {
        return st;
    }
    if (call->variant->kind != AP_UNARY_S8_DIRECT) {
        return AP_OPS_INVALID(error_out, ABS16_OP ": variant kind %d does not apply (direct only)",
                              (int)call->variant->kind);
    }
    st = ap_ops_check_scratch(ABS16_OP, call->variant->name, NULL, 0, call->scratch, call->scratch_count, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (call->input_count != 1 || call->inputs == NULL || call->inputs[0] == NULL || call->output == NULL) {
        return AP_OPS_INVALID(error_out, ABS16_OP ": one input and the output must not be NULL");
    }
    if (((uintptr_t)call->inputs[0] & 1u) != 0 || ((uintptr_t)call->output & 1u) != 0) {
        return AP_OPS_INVALID(error_out, ABS16_OP ": the input and output must be 2-byte aligned");
    }
    /* in[i] is read before out[i] is written: the output may be the input */
    const int16_t *in = call->inputs[0];
    int16_t *out = call->output;
    for (size_t i = 0; i < p->count; ++i) {
        const int32_t x = in[i];
        const int32_t v = x < 0 ? -x : x;   /* [0, 32768] */
        const int32_t scaled = p->rescale ? ap_multiply_by_quantized_multiplier(v, p->multiplier, p->shift) : v;
        out[i] = (int16_t)ap_ops_clamp(scaled, -32768, 32767);
    }
    return AP_OK;
}
