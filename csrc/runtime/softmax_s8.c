/* SOFTMAX int8 -> int8 | int16, TFLite reference_ops::Softmax with gemmlowp fixed point; the
   arm-dsp rows in softmax_s8_arm_dsp.c. */
#include "arenaplan/softmax.h"

#include <string.h>

#include "fixedpoint.h"
#include "fixedpoint_exp.h"
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"

#define SM_OP "softmax"
#define SM_SCALED_DIFF_INTEGER_BITS 5
#define SM_ACCUMULATION_INTEGER_BITS 12

static ap_status sm_check(const ap_softmax_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, SM_OP ": params must not be NULL");
    }
    if (p->outer_size < 1 || p->depth < 1) {
        return AP_OPS_INVALID(error, SM_OP ": outer_size and depth must be >= 1 (got %d, %d)", (int)p->outer_size,
                              (int)p->depth);
    }
    if (p->input_beta_left_shift < 0 || p->input_beta_left_shift > 31 || p->input_beta_multiplier < 0) {
        return AP_OPS_INVALID(error, SM_OP ": input_beta_left_shift %d outside [0, 31] or negative multiplier",
                              (int)p->input_beta_left_shift);
    }
    if (p->diff_min > 0) {
        return AP_OPS_INVALID(error, SM_OP ": diff_min %d must be <= 0", (int)p->diff_min);
    }
    if (p->output_type != AP_DTYPE_INT8 && p->output_type != AP_DTYPE_INT16) {
        return AP_OPS_INVALID(error, SM_OP ": output_type %d is neither int8 (%d) nor int16 (%d)",
                              (int)p->output_type, (int)AP_DTYPE_INT8, (int)AP_DTYPE_INT16);
    }
    size_t n;
    if (!ap_ops_mul((size_t)p->outer_size, (size_t)p->depth, &n)) {
        return AP_OPS_OVERFLOW(error, SM_OP ": tensor size overflows");
    }
    return AP_OK;
}

static int sm_variant_applies(int32_t kind, int32_t param)
{
    return (kind == AP_SOFTMAX_DIRECT || kind == AP_SOFTMAX_EXP_CACHE) && param == 0;
}

static uint32_t sm_variant_scratch(const ap_softmax_params *p, int32_t kind, size_t *bytes, size_t *alignment)
{
    if (kind == AP_SOFTMAX_EXP_CACHE) {
        bytes[0] = (size_t)p->depth * sizeof(int32_t);
        alignment[0] = 16;
        return 1;
    }
    return 0;
}

ap_status ap_softmax_s8_variants(const ap_softmax_params *params, ap_isa isa, ap_variant *variants_out,
                                 uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    ap_status st = sm_check(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[2];
    uint32_t n = 0;
    const int32_t kinds[2] = {AP_SOFTMAX_DIRECT, AP_SOFTMAX_EXP_CACHE};
    const char *names[2] = {"direct", "exp_cache"};
    const uint64_t ops = (uint64_t)params->outer_size * (uint64_t)params->depth;
    for (int i = 0; i < 2; ++i) {
        if (!sm_variant_applies(kinds[i], 0)) {
            continue;
        }
        size_t bytes[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
        uint32_t count = sm_variant_scratch(params, kinds[i], bytes, align);
        ap_ops_variant_set(&found[n++], kinds[i], 0, names[i], count, bytes, align, ops, 0);
    }
    return ap_ops_variants_out(found, n, isa, variants_out, capacity, count_out, SM_OP, error_out);
}

/* exp(diff * beta) in Q0.31 for one input difference that passed diff_min. */
static inline int32_t sm_exp(int32_t diff, const ap_softmax_params *p)
{
    /* MultiplyByQuantizedMultiplierGreaterThanOne: diff * 2^left in int32 (wraps only for a
       diff_min looser than TFLite's), then the doubling high multiply. */
    const int32_t shifted = (int32_t)((uint32_t)diff << p->input_beta_left_shift);
    const int32_t rescaled = ap_fp_saturating_rounding_doubling_high_mul(shifted, p->input_beta_multiplier);
    return ap_fpx_exp_on_negative_values(rescaled, SM_SCALED_DIFF_INTEGER_BITS);
}

/* Both output types: `want` says which; out8 or out16 is the output, the other NULL. */
static ap_status sm_run(const ap_softmax_params *params, const ap_variant *variant, const int8_t *input,
                        int32_t want, int8_t *out8, int16_t *out16, const ap_scratch *scratch,
                        uint32_t scratch_count, ap_error *error_out)
{
    ap_status st = sm_check(params, error_out);
    if (st != AP_OK || (st = ap_ops_check_variant_ptr(variant, SM_OP, error_out)) != AP_OK) {
        return st;
    }
    if (input == NULL || (out8 == NULL && out16 == NULL)) {
        return AP_OPS_INVALID(error_out, SM_OP ": input and output must not be NULL");
    }
    if (params->output_type != want) {
        return AP_OPS_INVALID(error_out, SM_OP ": params output_type %d, but this entry point writes %s "
                              "(ap_softmax_s8_run: int8, ap_softmax_s8_s16_run: int16)",
                              (int)params->output_type, want == AP_DTYPE_INT16 ? "int16" : "int8");
    }
    if (out16 != NULL && ((uintptr_t)out16 & 1u) != 0) {
        return AP_OPS_INVALID(error_out, SM_OP ": an int16 output must be 2-byte aligned");
    }
    if (!sm_variant_applies(variant->kind, variant->param)) {
        return AP_OPS_INVALID(error_out, SM_OP ": variant kind %d param %d does not apply", (int)variant->kind,
                              (int)variant->param);
    }
    size_t need[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
    uint32_t need_count = sm_variant_scratch(params, variant->kind, need, align);
    if ((st = ap_ops_check_scratch(SM_OP, variant->name, need, need_count, scratch, scratch_count, error_out)) != AP_OK) {
        return st;
    }
    if (need_count > 0 && ((uintptr_t)scratch[0].data & 3u) != 0) {
        return AP_OPS_INVALID(error_out, SM_OP ": exp_cache scratch must be 4-byte aligned");
    }
    int32_t *cache = need_count > 0 ? (int32_t *)scratch[0].data : NULL;
    if (ap_ops_runs_arm_dsp(variant->isa)) {
        ap_softmax_s8_arm_dsp(params, input, out8, out16, cache);
        return AP_OK;
    }
    const size_t depth = (size_t)params->depth;
    /* TFLite: exponent = num_bits_over_unit + 31 - bits of the output type; output + its min. */
    const int out_bits = out16 != NULL ? 16 : 8;
    const int32_t out_min = out16 != NULL ? INT16_MIN : INT8_MIN;
    const int32_t out_max = out16 != NULL ? INT16_MAX : INT8_MAX;
    for (int32_t row = 0; row < params->outer_size; ++row) {
        const int8_t *x = input + (size_t)row * depth;
        const size_t at = (size_t)row * depth;
        int32_t max_in_row = -128;
        for (size_t c = 0; c < depth; ++c) {
            max_in_row = x[c] > max_in_row ? x[c] : max_in_row;
        }
        /* Q12.19 accumulation of Rescale<12>(exp) (a rounding shift by 12). */
        int32_t sum_of_exps = 0;
        for (size_t c = 0; c < depth; ++c) {
            const int32_t diff = (int32_t)x[c] - max_in_row;
            if (diff >= params->diff_min) {
                const int32_t e = sm_exp(diff, params);
                if (cache != NULL) {
                    cache[c] = e;
                }
                sum_of_exps = ap_fpx_add(sum_of_exps, ap_fp_rounding_divide_by_pot(e, SM_ACCUMULATION_INTEGER_BITS));
            }
        }
        int num_bits_over_unit = 0;
        const int32_t shifted_scale =
            ap_fpx_get_reciprocal(sum_of_exps, SM_ACCUMULATION_INTEGER_BITS, &num_bits_over_unit);
        const int exponent = num_bits_over_unit + 31 - out_bits;
        for (size_t c = 0; c < depth; ++c) {
            const int32_t diff = (int32_t)x[c] - max_in_row;
            int32_t v = out_min;
            if (diff >= params->diff_min) {
                const int32_t e = cache != NULL ? cache[c] : sm_exp(diff, params);
                /* exponent is in [0, 31] whenever sum_of_exps >= 1.0 (the row max adds
                   exp(0) = 1); keep the shift defined for pathological params. */
                const int32_t prod = ap_fp_saturating_rounding_doubling_high_mul(shifted_scale, e);
                const int32_t unsat = exponent >= 0 && exponent <= 31 ? ap_fp_rounding_divide_by_pot(prod, exponent)
                                                                      : 0;
                v = ap_ops_clamp(ap_ops_wrap_add(unsat, out_min), out_min, out_max);
            }
            if (out16 != NULL) {
                out16[at + c] = (int16_t)v;
            } else {
                out8[at + c] = (int8_t)v;
            }
        }
    }
    return AP_OK;
}

ap_status ap_softmax_s8_run(const ap_softmax_params *params, const ap_variant *variant,
                            const int8_t *input, int8_t *output, const ap_scratch *scratch,
                            uint32_t scratch_count, ap_error *error_out)
{
    return sm_run(params, variant, input, AP_DTYPE_INT8, output, NULL, scratch, scratch_count, error_out);
}

ap_status ap_softmax_s8_s16_run(const ap_softmax_params *params, const ap_variant *variant,
                                const int8_t *input, int16_t *output, const ap_scratch *scratch,
                                uint32_t scratch_count, ap_error *error_out)
{
    return sm_run(params, variant, input, AP_DTYPE_INT16, NULL, output, scratch, scratch_count, error_out);
}
