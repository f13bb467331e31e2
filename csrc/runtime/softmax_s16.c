/* int16 SOFTMAX (arenaplan/ops.h, ap_softmax_s16_params): TFLite's reference_ops::SoftmaxInt16,
   the exp and 1 / (1 + x) tables carried in the params (made by the rounding rule when the plan
   is made). */
#include "arenaplan/ops.h"
#include "arenaplan/softmax.h"

#include "fixedpoint.h"
#include "ops_s8_common.h"

#define SM16_OP "softmax_s16"

static ap_status sm16_check(const ap_softmax_s16_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, SM16_OP ": params must not be NULL");
    }
    if (p->outer_size < 1 || p->depth < 1 || p->depth > 65536) {
        return AP_OPS_INVALID(error, SM16_OP ": outer_size %d must be >= 1 and depth %d within [1, 65536]",
                              (int)p->outer_size, (int)p->depth);
    }
    if (p->input_multiplier < 0 || p->input_left_shift < -31 || p->input_left_shift > 15) {
        return AP_OPS_INVALID(error, SM16_OP ": input_multiplier %d must be >= 0 and input_left_shift %d within "
                              "[-31, 15]", (int)p->input_multiplier, (int)p->input_left_shift);
    }
    if (p->lut_size != AP_SOFTMAX_S16_LUT_SIZE || p->exp_lut == NULL || p->one_over_one_plus_x_lut == NULL) {
        return AP_OPS_INVALID(error, SM16_OP ": lut_size %d must be %d and both tables given", (int)p->lut_size,
                              (int)AP_SOFTMAX_S16_LUT_SIZE);
    }
    size_t n;
    if (!ap_ops_mul((size_t)p->outer_size, (size_t)p->depth, &n)) {
        return AP_OPS_OVERFLOW(error, SM16_OP ": tensor size overflows");
    }
    return AP_OK;
}

static uint32_t sm16_scratch(const ap_softmax_s16_params *p, int32_t kind, size_t *bytes, size_t *alignment)
{
    if (kind == AP_SOFTMAX_EXP_CACHE) {
        bytes[0] = (size_t)p->depth * sizeof(int16_t);
        alignment[0] = 16;
        return 1;
    }
    return 0;
}

ap_status ap_softmax_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out)
{
    const ap_softmax_s16_params *p = params;
    ap_status st = sm16_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[2];
    const int32_t kinds[2] = {AP_SOFTMAX_DIRECT, AP_SOFTMAX_EXP_CACHE};
    const char *names[2] = {"direct", "exp_cache"};
    const uint64_t ops = (uint64_t)p->outer_size * (uint64_t)p->depth;
    for (int i = 0; i < 2; ++i) {
        size_t bytes[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
        uint32_t count = sm16_scratch(p, kinds[i], bytes, align);
        ap_ops_variant_set(&found[i], kinds[i], 0, names[i], count, bytes, align, ops, 0);
    }
    return ap_ops_variants_out(found, 2, isa, variants_out, capacity, count_out, SM16_OP, error_out);
}

/* TFLite's int16 table lookup: 512 segments of 128 inputs each, interpolated. The slope is the
   int16 difference of neighbouring entries (wrapping, as TFLite's int16_t does) and the sum is
   wrapped to int16 likewise. */
static inline int16_t sm16_lookup(int32_t v, const int16_t *lut)
{
    const int32_t index = 256 + (v >> 7);   /* v in [-32768, 32767]: index in [0, 511] */
    const int32_t offset = v & 0x7f;
    const int32_t base = lut[index];
    const int32_t slope = (int16_t)(uint16_t)((uint32_t)lut[index + 1] - (uint32_t)base);
    const int32_t delta = (slope * offset + 64) >> 7;
    return (int16_t)(uint16_t)((uint32_t)base + (uint32_t)delta);
}

/* exp(diff * beta) in Q0.15 of one difference from the row's maximum (diff in [-65535, 0]). */
static inline int16_t sm16_exp(int32_t diff, const ap_softmax_s16_params *p)
{
    const int32_t scaled = ap_fp_multiply_by_quantized_multiplier(diff, p->input_multiplier, p->input_left_shift);
    /* recentred from [-65535, 0] to [-32768, 32767]; a wrap past INT32_MAX cannot happen
       (scaled <= 0 for diff <= 0 and a non-negative multiplier) */
    return sm16_lookup(ap_ops_clamp(scaled + 32767, -32768, 32767), p->exp_lut);
}

static int32_t sm16_clz32(uint32_t v)
{
    int32_t n = 0;
    if (v == 0) {
        return 32;
    }
    while ((v & 0x80000000u) == 0) {
        v <<= 1;
        ++n;
    }
    return n;
}

ap_status ap_softmax_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, SM16_OP ": call must not be NULL");
    }
    const ap_softmax_s16_params *p = call->params;
    ap_status st = sm16_check(p, error_out);
    if (st == AP_OK) {
        st = ap_ops_check_variant_ptr(call->variant, SM16_OP, error_out);
    }
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error_out, SM16_OP ": variant '%s' is a %s variant; asked to run it as %s",
                            call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st != AP_OK) {
        return st;
    }
    if ((call->variant->kind != AP_SOFTMAX_DIRECT && call->variant->kind != AP_SOFTMAX_EXP_CACHE) ||
        call->variant->param != 0) {
        return AP_OPS_INVALID(error_out, SM16_OP ": variant kind %d param %d does not apply",
                              (int)call->variant->kind, (int)call->variant->param);
    }
    size_t need[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
    const uint32_t need_count = sm16_scratch(p, call->variant->kind, need, align);
    st = ap_ops_check_scratch(SM16_OP, call->variant->name, need, need_count, call->scratch, call->scratch_count,
                              error_out);
    if (st != AP_OK) {
        return st;
    }
    if (need_count > 0 && ((uintptr_t)call->scratch[0].data & 1u) != 0) {
        return AP_OPS_INVALID(error_out, SM16_OP ": exp_cache scratch must be 2-byte aligned");
    }
    if (call->input_count != 1 || call->inputs == NULL || call->inputs[0] == NULL || call->output == NULL) {
        return AP_OPS_INVALID(error_out, SM16_OP ": one input and the output must not be NULL");
    }
    if (((uintptr_t)call->inputs[0] & 1u) != 0 || ((uintptr_t)call->output & 1u) != 0) {
        return AP_OPS_INVALID(error_out, SM16_OP ": the input and output must be 2-byte aligned");
    }
    int16_t *cache = need_count > 0 ? (int16_t *)call->scratch[0].data : NULL;
    const size_t depth = (size_t)p->depth;
    for (int32_t row = 0; row < p->outer_size; ++row) {
        const int16_t *x = (const int16_t *)call->inputs[0] + (size_t)row * depth;
        int16_t *out = (int16_t *)call->output + (size_t)row * depth;
        int32_t max_in_row = INT16_MIN;
        for (size_t c = 0; c < depth; ++c) {
            max_in_row = x[c] > max_in_row ? x[c] : max_in_row;
        }
        /* Q16.15 sum of Q0.15 exps: depth <= 65536 values below 2^15 stay below 2^31 */
        int32_t sum_of_exps = 0;
        for (size_t c = 0; c < depth; ++c) {
            const int16_t e = sm16_exp((int32_t)x[c] - max_in_row, p);
            if (cache != NULL) {
                cache[c] = e;
            }
            sum_of_exps = ap_ops_wrap_add(sum_of_exps, e);
        }
        if (sum_of_exps < 1) {
            for (size_t c = 0; c < depth; ++c) {
                out[c] = 0;
            }
            continue;
        }
        /* the sum normalised to [2^30, 2^31) and taken to Q1.16 (rounded), i.e. 1 + x with x in
           [0, 1) as 65536 steps; then recentred by -(2^15 + 2^16) for the symmetric table */
        const int32_t headroom_plus_one = sm16_clz32((uint32_t)sum_of_exps);
        const int32_t shifted_sum =
            (int32_t)((((int64_t)sum_of_exps << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
        const int32_t reciprocal =
            sm16_lookup(ap_ops_clamp(shifted_sum - ((1 << 15) + (1 << 16)), -32768, 32767),
                        p->one_over_one_plus_x_lut);
        const int32_t right_shift = 31 - headroom_plus_one;   /* [0, 30] */
        const int64_t round = right_shift > 0 ? (int64_t)1 << (right_shift - 1) : 0;
        for (size_t c = 0; c < depth; ++c) {
            const int32_t e = cache != NULL ? cache[c] : sm16_exp((int32_t)x[c] - max_in_row, p);
            /* TFLite keeps the low 32 bits of the int64 before its clamp */
            const int32_t r = (int32_t)(uint32_t)(uint64_t)(((int64_t)e * (int64_t)reciprocal + round) >> right_shift);
            out[c] = (int16_t)ap_ops_clamp(r, 0, 32767);
        }
    }
    return AP_OK;
}
