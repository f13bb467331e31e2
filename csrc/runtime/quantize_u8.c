/* The uint8 rows of QUANTIZE and DEQUANTIZE (arenaplan/ops.h, AP_TYPES_U8): DEQUANTIZE uint8 ->
   float32 (TFLite's Dequantize, as the int8 row's) and the REQUANTIZE rows' uint8 checks (the
   requantisation itself is quantize.c's). */
#include "arenaplan/ops.h"
#include "arenaplan/quantize.h"

#include <math.h>

#include "ops_s16_common.h"

static ap_status affine_u8_check(const ap_affine_quant_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "dequantize_u8: params must not be NULL");
    }
    if (p->count < 1 || p->count > SIZE_MAX / sizeof(float)) {
        return AP_OPS_INVALID(error, "dequantize_u8: count must be >= 1 (and count * 4 bytes fit size_t)");
    }
    if (!(p->scale > 0.0f) || !isfinite(p->scale)) {
        return AP_OPS_INVALID(error, "dequantize_u8: scale must be finite and > 0");
    }
    if (p->zero_point < 0 || p->zero_point > UINT8_MAX) {
        return AP_OPS_INVALID(error, "dequantize_u8: zero_point %d outside [0, 255]", (int)p->zero_point);
    }
    return AP_OK;
}

ap_status ap_dequantize_u8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                    uint32_t *count_out, ap_error *error_out)
{
    const ap_affine_quant_params *p = params;
    ap_status st = affine_u8_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[1];
    ap_ops_variant_set(&found[0], AP_QUANTIZE_DIRECT, 0, "direct", 0, NULL, NULL, (uint64_t)p->count, 0);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, "dequantize_u8", error_out);
}

ap_status ap_dequantize_u8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    (void)isa;
    ap_status st = ap_s16_check_call(call, 1, "dequantize_u8", error_out);
    st = st != AP_OK ? st : affine_u8_check(call->params, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (call->variant->kind != AP_QUANTIZE_DIRECT || call->variant->param != 0) {
        return AP_OPS_UNSUPPORTED(error_out, "dequantize_u8: variant kind %d param %d is not one of its kinds",
                                  (int)call->variant->kind, (int)call->variant->param);
    }
    const ap_affine_quant_params *p = call->params;
    const uint8_t *in = call->inputs[0];
    float *out = call->output;
    const double scale = (double)p->scale;   /* TFLite's op_params.scale is a double */
    for (size_t i = 0; i < p->count; ++i) {
        out[i] = (float)(scale * (double)((int32_t)in[i] - p->zero_point));
    }
    return AP_OK;
}

/* A REQUANTIZE row reads the type its row names: uint8 input on the uint8 row, any other on the
   int8 row (whose params name int8, int16 or int32 input). */
static ap_status requant_row_check(const void *params, int uint8_row, ap_error *error)
{
    const ap_requantize_params *p = params;
    if (p != NULL && (p->input_type == AP_DTYPE_UINT8) != uint8_row) {
        return AP_OPS_INVALID(error, "requantize: input_type %d on the %s row (the uint8 row takes uint8 input, "
                              "the int8 row int8, int16 or int32)", (int)p->input_type, uint8_row ? "uint8" : "int8");
    }
    return AP_OK;
}

ap_status ap_requantize_u8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                    uint32_t *count_out, ap_error *error_out)
{
    ap_status st = requant_row_check(params, 1, error_out);
    return st != AP_OK ? st : ap_requantize_s8_variants(params, isa, variants_out, capacity, count_out, error_out);
}

ap_status ap_requantize_s8_row_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                        uint32_t *count_out, ap_error *error_out)
{
    ap_status st = requant_row_check(params, 0, error_out);
    return st != AP_OK ? st : ap_requantize_s8_variants(params, isa, variants_out, capacity, count_out, error_out);
}
