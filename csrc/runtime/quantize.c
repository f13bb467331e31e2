/* QUANTIZE (float32 -> int8, int8 -> int8) and DEQUANTIZE (int8 -> float32); requantisation
   between int8, int16 and int32, and int8 <-> uint8; DEQUANTIZE uint8 -> float32. */
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

static ap_status q_variants(size_t count, int32_t in_place, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                            uint32_t *count_out, const char *op, ap_error *error)
{
    ap_variant found[1];
    uint32_t n = 0;
    size_t bytes[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
    if (q_variant_applies(AP_QUANTIZE_DIRECT, 0)) {
        uint32_t sc = q_variant_scratch(AP_QUANTIZE_DIRECT, 0, bytes, align);
        ap_ops_variant_set(&found[n++], AP_QUANTIZE_DIRECT, 0, "direct", sc, bytes, align, (uint64_t)count, in_place);
    }
    return ap_ops_variants_out(found, n, isa, variants_out, capacity, count_out, op, error);
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

ap_status ap_quantize_s8_variants(const ap_affine_quant_params *params, ap_isa isa, ap_variant *variants_out,
                                  uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    ap_status st = affine_check(params, "quantize", error_out);
    return st != AP_OK ? st : q_variants(params->count, 0, isa, variants_out, capacity, count_out, "quantize", error_out);
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
        /* static_cast<int32>(q) in TFLite's reference kernel is undefined where q is NaN
           or outside int32; LiteRT's x86 build gives INT32_MIN there (the conversion's
           "indefinite" value), and its int32 sum with the zero point wraps. Both are
           done here without undefined behaviour, so every target gives LiteRT's bits:
           +-inf, NaN and |x/scale| >= 2^31 become INT32_MIN + zp, i.e. -128 when
           zp >= 0 and 127 when zp < 0. */
        int64_t sum = (q >= -2147483648.0f && q < 2147483648.0f) ? (int64_t)q : (int64_t)INT32_MIN;
        sum += zp;
        if (sum > INT32_MAX) {
            sum -= (int64_t)1 << 32;
        } else if (sum < INT32_MIN) {
            sum += (int64_t)1 << 32;
        }
        output[i] = (int8_t)(sum < -128 ? -128 : sum > 127 ? 127 : sum);
    }
    return AP_OK;
}

ap_status ap_dequantize_s8_variants(const ap_affine_quant_params *params, ap_isa isa, ap_variant *variants_out,
                                    uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    ap_status st = affine_check(params, "dequantize", error_out);
    return st != AP_OK ? st : q_variants(params->count, 0, isa, variants_out, capacity, count_out, "dequantize", error_out);
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

/* Bytes of one element of a requantisation type; 0 for a type it does not take. */
static size_t requant_type_size(int32_t type)
{
    switch (type) {
    case AP_DTYPE_INT8: return 1;
    case AP_DTYPE_UINT8: return 1;
    case AP_DTYPE_INT16: return 2;
    case AP_DTYPE_INT32: return 4;
    default: return 0;
    }
}

static const char *requant_type_name(int32_t type)
{
    switch (type) {
    case AP_DTYPE_INT8: return "int8";
    case AP_DTYPE_UINT8: return "uint8";
    case AP_DTYPE_INT16: return "int16";
    case AP_DTYPE_INT32: return "int32";
    default: return "unknown";
    }
}

/* The pairs TFLite's QUANTIZE requantises between. */
static int requant_pair_supported(int32_t in, int32_t out)
{
    switch (in) {
    case AP_DTYPE_INT8: return out == AP_DTYPE_INT8 || out == AP_DTYPE_UINT8 || out == AP_DTYPE_INT16 ||
                               out == AP_DTYPE_INT32;
    case AP_DTYPE_UINT8: return out == AP_DTYPE_INT8;
    case AP_DTYPE_INT16: return out == AP_DTYPE_INT8 || out == AP_DTYPE_INT16 || out == AP_DTYPE_INT32;
    case AP_DTYPE_INT32: return out == AP_DTYPE_INT8 || out == AP_DTYPE_INT16;
    default: return 0;
    }
}

/* [lo, hi] of a type's values (int64 so that int32's range is representable). */
static void requant_type_range(int32_t type, int64_t *lo, int64_t *hi)
{
    switch (type) {
    case AP_DTYPE_INT8: *lo = INT8_MIN; *hi = INT8_MAX; break;
    case AP_DTYPE_UINT8: *lo = 0; *hi = UINT8_MAX; break;
    case AP_DTYPE_INT16: *lo = INT16_MIN; *hi = INT16_MAX; break;
    default: *lo = INT32_MIN; *hi = INT32_MAX; break;
    }
}

static ap_status requant_check(const ap_requantize_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "requantize: params must not be NULL");
    }
    if (p->count < 1) {
        return AP_OPS_INVALID(error, "requantize: count must be >= 1");
    }
    if (!requant_pair_supported(p->input_type, p->output_type)) {
        return AP_OPS_INVALID(error, "requantize: %s (type %d) -> %s (type %d) is not supported (int8 -> "
                              "int8/uint8/int16/int32, uint8 -> int8, int16 -> int8/int16/int32, "
                              "int32 -> int8/int16 are)",
                              requant_type_name(p->input_type), (int)p->input_type,
                              requant_type_name(p->output_type), (int)p->output_type);
    }
    int64_t in_lo, in_hi, out_lo, out_hi;
    requant_type_range(p->input_type, &in_lo, &in_hi);
    requant_type_range(p->output_type, &out_lo, &out_hi);
    if (p->input_zero_point < in_lo || p->input_zero_point > in_hi || p->output_zero_point < out_lo ||
        p->output_zero_point > out_hi) {
        return AP_OPS_INVALID(error, "requantize: zero points (%d, %d) outside the %s and %s ranges",
                              (int)p->input_zero_point, (int)p->output_zero_point,
                              requant_type_name(p->input_type), requant_type_name(p->output_type));
    }
    if (p->multiplier < 0 || p->shift < -31 || p->shift > 31) {
        return AP_OPS_INVALID(error, "requantize: multiplier %d must be >= 0 and shift %d in [-31, 31]",
                              (int)p->multiplier, (int)p->shift);
    }
    size_t bytes;
    if (!ap_ops_mul(p->count, requant_type_size(p->input_type) > requant_type_size(p->output_type)
                                  ? requant_type_size(p->input_type) : requant_type_size(p->output_type),
                    &bytes)) {
        return AP_OPS_OVERFLOW(error, "requantize: count * element size overflows");
    }
    return AP_OK;
}

ap_status ap_requantize_s8_variants(const ap_requantize_params *params, ap_isa isa, ap_variant *variants_out,
                                    uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    ap_status st = requant_check(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    const int32_t in_place = requant_type_size(params->output_type) <= requant_type_size(params->input_type);
    return q_variants(params->count, in_place, isa, variants_out, capacity, count_out, "requantize", error_out);
}

/* One requantised element before the output clamp: MBQM(x - in_zp) + out_zp, wrapping where
   TFLite's int32 arithmetic would overflow. */
static inline int32_t requant_one(int32_t x, const ap_requantize_params *p)
{
    const int32_t v = ap_fp_multiply_by_quantized_multiplier((int32_t)((uint32_t)x - (uint32_t)p->input_zero_point),
                                                             p->multiplier, p->shift);
    return ap_ops_wrap_add(v, p->output_zero_point);
}

/* One loop of a (input type, output type) pair: each y[i], of type T, requant_one(x[i], p)
   clamped to [lo, hi] (x and output in scope; an int32 output's clamp is the identity). */
#define REQUANT_LOOP(T, lo, hi)                                   \
    do {                                                          \
        T *y = output;                                            \
        for (size_t i = 0; i < p->count; ++i) {                   \
            y[i] = (T)ap_ops_clamp(requant_one(x[i], p), lo, hi); \
        }                                                         \
    } while (0)

/* The loops of one input type, each output type its own loop (no per-element dispatch).
   Element i is read before it (or any later element) is written, so an output no wider
   than the input may start at the input. */
static void requant_from_s16(const ap_requantize_params *p, const int16_t *x, void *output)
{
    if (p->output_type == AP_DTYPE_INT8) {
        REQUANT_LOOP(int8_t, INT8_MIN, INT8_MAX);
    } else if (p->output_type == AP_DTYPE_INT16) {
        REQUANT_LOOP(int16_t, INT16_MIN, INT16_MAX);
    } else {
        REQUANT_LOOP(int32_t, INT32_MIN, INT32_MAX);
    }
}

/* int8 to uint8 or a wider type (int8 -> int8 has its own loop in ap_requantize_run). int8 <->
   uint8 is TFLite's Requantize: its fast path for equal scales and zero points 128 apart (the
   byte's top bit flipped) gives what this loop gives there (MultiplyByQuantizedMultiplier of
   (1 << 30, 1) is exact on these values), so one loop serves both. */
static void requant_from_s8(const ap_requantize_params *p, const int8_t *x, void *output)
{
    if (p->output_type == AP_DTYPE_UINT8) {
        REQUANT_LOOP(uint8_t, 0, UINT8_MAX);
    } else if (p->output_type == AP_DTYPE_INT16) {
        REQUANT_LOOP(int16_t, INT16_MIN, INT16_MAX);
    } else {
        REQUANT_LOOP(int32_t, INT32_MIN, INT32_MAX);
    }
}

static void requant_from_s32(const ap_requantize_params *p, const int32_t *x, void *output)
{
    if (p->output_type == AP_DTYPE_INT8) {
        REQUANT_LOOP(int8_t, INT8_MIN, INT8_MAX);
    } else {
        REQUANT_LOOP(int16_t, INT16_MIN, INT16_MAX);
    }
}

/* uint8 to int8, the one pair from uint8. */
static void requant_from_u8(const ap_requantize_params *p, const uint8_t *x, void *output)
{
    REQUANT_LOOP(int8_t, INT8_MIN, INT8_MAX);
}

ap_status ap_requantize_run(const ap_requantize_params *params, const ap_variant *variant,
                            const void *input, void *output, const ap_scratch *scratch,
                            uint32_t scratch_count, ap_error *error_out)
{
    ap_status st = requant_check(params, error_out);
    if (st != AP_OK ||
        (st = q_run_checks(variant, input, output, scratch, scratch_count, "requantize", error_out)) != AP_OK) {
        return st;
    }
    const size_t in_size = requant_type_size(params->input_type);
    const size_t out_size = requant_type_size(params->output_type);
    if (((uintptr_t)input & (in_size - 1)) != 0 || ((uintptr_t)output & (out_size - 1)) != 0) {
        return AP_OPS_INVALID(error_out, "requantize: input and output must be aligned to their element sizes "
                              "(%u and %u bytes)", (unsigned)in_size, (unsigned)out_size);
    }
    const int32_t in_type = params->input_type, out_type = params->output_type;
    const int32_t in_zp = params->input_zero_point, out_zp = params->output_zero_point;
    if (in_type == AP_DTYPE_INT8 && out_type == AP_DTYPE_INT8) {
        const int8_t *x = input;
        int8_t *y = output;
        for (size_t i = 0; i < params->count; ++i) {
            const int32_t v = ap_fp_multiply_by_quantized_multiplier((int32_t)x[i] - in_zp, params->multiplier,
                                                                      params->shift);
            y[i] = (int8_t)ap_ops_clamp(ap_ops_wrap_add(v, out_zp), -128, 127);
        }
        return AP_OK;
    }
    if (in_type == AP_DTYPE_INT8) {
        requant_from_s8(params, input, output);
    } else if (in_type == AP_DTYPE_UINT8) {
        requant_from_u8(params, input, output);
    } else if (in_type == AP_DTYPE_INT16) {
        requant_from_s16(params, input, output);
    } else {
        requant_from_s32(params, input, output);
    }
    return AP_OK;
}

ap_status ap_requantize_s8_run(const ap_requantize_params *params, const ap_variant *variant,
                               const int8_t *input, int8_t *output, const ap_scratch *scratch,
                               uint32_t scratch_count, ap_error *error_out)
{
    if (params != NULL && (params->input_type != AP_DTYPE_INT8 || params->output_type != AP_DTYPE_INT8)) {
        return AP_OPS_INVALID(error_out, "requantize: ap_requantize_s8_run takes int8 -> int8 params; "
                              "use ap_requantize_run for types %d -> %d", (int)params->input_type,
                              (int)params->output_type);
    }
    return ap_requantize_run(params, variant, input, output, scratch, scratch_count, error_out);
}
