/* QUANTIZE float32 -> int16 and DEQUANTIZE int16 -> float32 (arenaplan/ops.h), TFLite's
   AffineQuantize / Dequantize with the int16 range. */
#include "arenaplan/ops.h"
#include "arenaplan/quantize.h"

#include <math.h>

#include "ops_s16_common.h"

static ap_status affine16_check(const ap_affine_quant_params *p, const char *op, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    if (p->count < 1 || p->count > SIZE_MAX / sizeof(float)) {
        return AP_OPS_INVALID(error, "%s: count must be >= 1 (and count * 4 bytes fit size_t)", op);
    }
    if (!(p->scale > 0.0f) || !isfinite(p->scale)) {
        return AP_OPS_INVALID(error, "%s: scale must be finite and > 0", op);
    }
    if (!ap_s16_range(p->zero_point)) {
        return AP_OPS_INVALID(error, "%s: zero_point %d outside [-32768, 32767]", op, (int)p->zero_point);
    }
    return AP_OK;
}

static ap_status affine16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                   uint32_t *count_out, const char *op, ap_error *error)
{
    const ap_affine_quant_params *p = params;
    ap_status st = affine16_check(p, op, error);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[1];
    ap_ops_variant_set(&found[0], AP_QUANTIZE_DIRECT, 0, "direct", 0, NULL, NULL, (uint64_t)p->count, 0);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, op, error);
}

static ap_status affine16_run_checks(const ap_op_call *call, const char *op, ap_error *error)
{
    ap_status st = ap_s16_check_call(call, 1, op, error);
    st = st != AP_OK ? st : affine16_check(call->params, op, error);
    if (st == AP_OK && call->variant->kind != AP_QUANTIZE_DIRECT) {
        return AP_OPS_UNSUPPORTED(error, "%s: variant kind %d is not one of its kinds", op, (int)call->variant->kind);
    }
    return st;
}

ap_status ap_quantize_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                   uint32_t *count_out, ap_error *error_out)
{
    return affine16_variants(params, isa, variants_out, capacity, count_out, "quantize_s16", error_out);
}

ap_status ap_quantize_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    (void)isa;
    ap_status st = affine16_run_checks(call, "quantize_s16", error_out);
    if (st != AP_OK) {
        return st;
    }
    const ap_affine_quant_params *p = call->params;
    const float *in = call->inputs[0];
    int16_t *out = call->output;
    for (size_t i = 0; i < p->count; ++i) {
        /* As the int8 kernel (quantize.c): the float32 quotient rounded half away from zero;
           NaN, +-inf and |x / scale| >= 2^31 take LiteRT's x86 value INT32_MIN, and its sum
           with the zero point wraps, before the clamp. */
        const float q = roundf(in[i] / p->scale);
        int64_t sum = (q >= -2147483648.0f && q < 2147483648.0f) ? (int64_t)q : (int64_t)INT32_MIN;
        sum += p->zero_point;
        if (sum > INT32_MAX) {
            sum -= (int64_t)1 << 32;
        } else if (sum < INT32_MIN) {
            sum += (int64_t)1 << 32;
        }
        out[i] = (int16_t)(sum < -32768 ? -32768 : sum > 32767 ? 32767 : sum);
    }
    return AP_OK;
}

ap_status ap_dequantize_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                     uint32_t *count_out, ap_error *error_out)
{
    return affine16_variants(params, isa, variants_out, capacity, count_out, "dequantize_s16", error_out);
}

ap_status ap_dequantize_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    (void)isa;
    ap_status st = affine16_run_checks(call, "dequantize_s16", error_out);
    if (st != AP_OK) {
        return st;
    }
    const ap_affine_quant_params *p = call->params;
    const int16_t *in = call->inputs[0];
    float *out = call->output;
    const double scale = (double)p->scale;
    for (size_t i = 0; i < p->count; ++i) {
        out[i] = (float)(scale * (double)((int32_t)in[i] - p->zero_point));
    }
    return AP_OK;
}
