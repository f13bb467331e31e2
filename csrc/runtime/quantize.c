/* QUANTIZE (float32 -> int8, int8 -> int8) and DEQUANTIZE (int8 -> float32). */
#include "arenaplan/quantize.h"

#include <math.h>
#include <string.h>

#include "fixedpoint.h"
#include "ops_s8_common.h"

static int q_variant_applies(int32_t kind, int32_t param)
{
    return kind == AP_QUANTIZE_DIRECT && param == 0;
}

static uint32_t q_variant_scratch(int32_t kind, int32_t param, size_t *bytes, size_t *alignment)
{
    (void)kind, (void)param, (void)bytes, (void)alignment;
    return 0;
}

static ap_status q_variants(size_t count, int32_t in_place, ap_variant *variants_out, uint32_t capacity,
                            uint32_t *count_out, const char *op, ap_error *error)
{
    ap_variant found[1];
    uint32_t n = 0;
    size_t bytes[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
    if (q_variant_applies(AP_QUANTIZE_DIRECT, 0)) {
        uint32_t sc = q_variant_scratch(AP_QUANTIZE_DIRECT, 0, bytes, align);
        ap_ops_variant_set(&found[n++], AP_QUANTIZE_DIRECT, 0, "direct", sc, bytes, align, (uint64_t)count, in_place);
    }
    return ap_ops_variants_out(found, n, variants_out, capacity, count_out, op, error);
}

static ap_status q_run_checks(const ap_variant *variant, const void *input, const void *output,
                              const ap_scratch *scratch, uint32_t scratch_count, const char *op, ap_error *error)
{
    ap_status st = ap_ops_check_variant_ptr(variant, op, error);
    if (st != AP_OK) {
        return st;
    }
    if (input == NULL || output == NULL) {
        return AP_OPS_INVALID(error, "%s: input and output must not be NULL", op);
    }
    if (!q_variant_applies(variant->kind, variant->param)) {
        return AP_OPS_INVALID(error, "%s: variant kind %d param %d does not apply", op, (int)variant->kind,
                              (int)variant->param);
    }
    size_t need[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
    uint32_t need_count = q_variant_scratch(variant->kind, variant->param, need, align);
    return ap_ops_check_scratch(op, variant->name, need, need_count, scratch, scratch_count, error);
}

static ap_status affine_check(const ap_affine_quant_params *p, const char *op, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    if (p->count < 1) {
        return AP_OPS_INVALID(error, "%s: count must be >= 1", op);
    }
    if (!(p->scale > 0.0f) || !isfinite(p->scale)) {
        return AP_OPS_INVALID(error, "%s: scale must be finite and > 0", op);
    }
    if (!ap_ops_int8_range(p->zero_point)) {
        return AP_OPS_INVALID(error, "%s: zero_point %d outside [-128, 127]", op, (int)p->zero_point);
    }
    if (p->count > SIZE_MAX / sizeof(float)) {
        return AP_OPS_OVERFLOW(error, "%s: count * 4 bytes overflows", op);
    }
    return AP_OK;
}

ap_status ap_quantize_s8_variants(const ap_affine_quant_params *params, ap_variant *variants_out,
                                  uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    ap_status st = affine_check(params, "quantize", error_out);
    return st != AP_OK ? st : q_variants(params->count, 0, variants_out, capacity, count_out, "quantize", error_out);
}

ap_status ap_quantize_s8_run(const ap_affine_quant_params *params, const ap_variant *variant,
                             const float *input, int8_t *output, const ap_scratch *scratch,
                             uint32_t scratch_count, ap_error *error_out)
{
    ap_status st = affine_check(params, "quantize", error_out);
    if (st != AP_OK || (st = q_run_checks(variant, input, output, scratch, scratch_count, "quantize", error_out)) != AP_OK) {
        return st;
    }
    const float scale = params->scale;
    const int32_t zp = params->zero_point;
    for (size_t i = 0; i < params->count; ++i) {
        /* TfLiteRound(val / static_cast<float>(scale)): a float32 quotient, rounded half
           away from zero as std::round(float). */
        const float q = roundf(input[i] / scale);
        int32_t v;
        if (q != q) {
            v = zp;
        } else if (q >= 1024.0f) {
            v = 127;
        } else if (q <= -1024.0f) {
            v = -128;
        } else {
            v = ap_ops_clamp((int32_t)q + zp, -128, 127);
        }
        output[i] = (int8_t)v;
    }
    return AP_OK;
}

ap_status ap_dequantize_s8_variants(const ap_affine_quant_params *params, ap_variant *variants_out,
                                    uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    ap_status st = affine_check(params, "dequantize", error_out);
    return st != AP_OK ? st : q_variants(params->count, 0, variants_out, capacity, count_out, "dequantize", error_out);
}

ap_status ap_dequantize_s8_run(const ap_affine_quant_params *params, const ap_variant *variant,
                               const int8_t *input, float *output, const ap_scratch *scratch,
                               uint32_t scratch_count, ap_error *error_out)
{
    ap_status st = affine_check(params, "dequantize", error_out);
    if (st != AP_OK ||
        (st = q_run_checks(variant, input, output, scratch, scratch_count, "dequantize", error_out)) != AP_OK) {
        return st;
    }
    const double scale = (double)params->scale;
    for (size_t i = 0; i < params->count; ++i) {
        output[i] = (float)(scale * (double)((int32_t)input[i] - params->zero_point));
    }
    return AP_OK;
}

static ap_status requant_check(const ap_requantize_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "requantize: params must not be NULL");
    }
    if (p->count < 1) {
        return AP_OPS_INVALID(error, "requantize: count must be >= 1");
    }
    if (!ap_ops_int8_range(p->input_zero_point) || !ap_ops_int8_range(p->output_zero_point)) {
        return AP_OPS_INVALID(error, "requantize: zero points (%d, %d) outside [-128, 127]",
                              (int)p->input_zero_point, (int)p->output_zero_point);
    }
    if (p->multiplier < 0 || p->shift < -31 || p->shift > 31) {
        return AP_OPS_INVALID(error, "requantize: multiplier %d must be >= 0 and shift %d in [-31, 31]",
                              (int)p->multiplier, (int)p->shift);
    }
    return AP_OK;
}

ap_status ap_requantize_s8_variants(const ap_requantize_params *params, ap_variant *variants_out,
                                    uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    ap_status st = requant_check(params, error_out);
    return st != AP_OK ? st : q_variants(params->count, 1, variants_out, capacity, count_out, "requantize", error_out);
}

ap_status ap_requantize_s8_run(const ap_requantize_params *params, const ap_variant *variant,
                               const int8_t *input, int8_t *output, const ap_scratch *scratch,
                               uint32_t scratch_count, ap_error *error_out)
{
    ap_status st = requant_check(params, error_out);
    if (st != AP_OK ||
        (st = q_run_checks(variant, input, output, scratch, scratch_count, "requantize", error_out)) != AP_OK) {
        return st;
    }
    for (size_t i = 0; i < params->count; ++i) {
        const int32_t v = ap_fp_multiply_by_quantized_multiplier((int32_t)input[i] - params->input_zero_point,
                                                                  params->multiplier, params->shift) +
                          params->output_zero_point;
        output[i] = (int8_t)ap_ops_clamp(v, -128, 127);
    }
    return AP_OK;
}
