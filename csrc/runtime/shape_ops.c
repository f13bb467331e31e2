/* CONCATENATION, PAD, MEAN (over H, W) and the RESHAPE copy, int8; the int16 CONCATENATION and
   MEAN. */
#include "arenaplan/shape_ops.h"

#include "arenaplan/ops.h"

#include <string.h>

#include "fixedpoint.h"
#include "ops_s8_common.h"

#define MEAN_CHUNK 64

/* Shared variant plumbing for the single-variant ops. */
static ap_status one_direct_variant(uint64_t work, int32_t in_place, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                    uint32_t *count_out, const char *op, ap_error *error)
{
    ap_variant v;
    ap_ops_variant_set(&v, AP_SHAPE_OP_DIRECT, 0, "direct", 0, NULL, NULL, work, in_place);
    return ap_ops_variants_out(&v, 1, isa, variants_out, capacity, count_out, op, error);
}

static ap_status direct_variant_checks(const ap_variant *variant, const ap_scratch *scratch, uint32_t scratch_count,
                                       const char *op, ap_error *error)
{
    ap_status st = ap_ops_check_variant_ptr(variant, op, error);
    if (st != AP_OK) {
        return st;
    }
    if (variant->kind != AP_SHAPE_OP_DIRECT || variant->param != 0) {
        return AP_OPS_INVALID(error, "%s: variant kind %d param %d does not apply", op, (int)variant->kind,
                              (int)variant->param);
    }
    return ap_ops_check_scratch(op, variant->name, NULL, 0, scratch, scratch_count, error);
}

/* ---- CONCATENATION ---- */

static ap_status concat_check(const ap_concatenation_params *p, size_t *total, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "concatenation: params must not be NULL");
    }
    for (int d = 0; d < 4; ++d) {
        if (p->output_shape[d] < 0) {
            return AP_OPS_INVALID(error, "concatenation: output_shape[%d] = %d < 0", d, (int)p->output_shape[d]);
        }
    }
    if (p->axis < 0 || p->axis > 3) {
        return AP_OPS_INVALID(error, "concatenation: axis %d outside [0, 3]", (int)p->axis);
    }
    if (p->input_count < 1 || p->input_count > AP_CONCAT_MAX_INPUTS || p->input_axis_sizes == NULL) {
        return AP_OPS_INVALID(error, "concatenation: input_count %u outside [1, %d] or input_axis_sizes NULL",
                              (unsigned)p->input_count, AP_CONCAT_MAX_INPUTS);
    }
    int64_t sum = 0;
    for (uint32_t i = 0; i < p->input_count; ++i) {
        if (p->input_axis_sizes[i] < 0) {
            return AP_OPS_INVALID(error, "concatenation: input_axis_sizes[%u] = %d < 0", (unsigned)i,
                                  (int)p->input_axis_sizes[i]);
        }
        sum += p->input_axis_sizes[i];
    }
    if (sum != p->output_shape[p->axis]) {
        return AP_OPS_INVALID(error, "concatenation: input sizes along axis %d sum to %lld, output has %d",
                              (int)p->axis, (long long)sum, (int)p->output_shape[p->axis]);
    }
    const int some = p->input_multipliers != NULL || p->input_shifts != NULL || p->input_zero_points != NULL;
    const int all = p->input_multipliers != NULL && p->input_shifts != NULL && p->input_zero_points != NULL;
    if (some && !all) {
        return AP_OPS_INVALID(error, "concatenation: input_multipliers, input_shifts and input_zero_points must "
                              "be all NULL or all set");
    }
    if (all) {
        if (!ap_ops_int8_range(p->output_zero_point)) {
            return AP_OPS_INVALID(error, "concatenation: output_zero_point %d outside [-128, 127]",
                                  (int)p->output_zero_point);
        }
        for (uint32_t i = 0; i < p->input_count; ++i) {
            if (p->input_multipliers[i] < 0 || p->input_shifts[i] < -31 || p->input_shifts[i] > 31 ||
                !ap_ops_int8_range(p->input_zero_points[i])) {
                return AP_OPS_INVALID(error, "concatenation: requantisation of input %u out of range", (unsigned)i);
            }
        }
    }
    if (!ap_ops_product(p->output_shape, 4, total)) {
        return AP_OPS_OVERFLOW(error, "concatenation: output size overflows");
    }
    return AP_OK;
}

ap_status ap_concatenation_s8_variants(const ap_concatenation_params *params, ap_isa isa, ap_variant *variants_out,
                                       uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    size_t total = 0;
    ap_status st = concat_check(params, &total, error_out);
    return st != AP_OK ? st : one_direct_variant(total, 0, isa, variants_out, capacity, count_out, "concatenation", error_out);
}

static ap_status concat_copy(const ap_concatenation_params *params, const void *const *inputs, void *output,
                             size_t elem, ap_error *error_out);

ap_status ap_concatenation_s8_run(const ap_concatenation_params *params, const ap_variant *variant,
                                  const int8_t *const *inputs, int8_t *output, const ap_scratch *scratch,
                                  uint32_t scratch_count, ap_error *error_out)
{
    size_t total = 0;
    ap_status st = concat_check(params, &total, error_out);
    if (st != AP_OK || (st = direct_variant_checks(variant, scratch, scratch_count, "concatenation", error_out)) != AP_OK) {
        return st;
    }
    if (inputs == NULL || (output == NULL && total > 0)) {
        return AP_OPS_INVALID(error_out, "concatenation: inputs and output must not be NULL");
    }
    return concat_copy(params, (const void *const *)inputs, output, 1, error_out);
}

/* The copy of both rows: input i's rows of input_axis_sizes[i] * inner elements of `elem` bytes
   in turn into each output row; int8 inputs whose requantisation is not the identity are
   requantised on the way (elem 1 only: the int16 row carries no requantisation). */
static ap_status concat_copy(const ap_concatenation_params *params, const void *const *inputs, void *output,
                             size_t elem, ap_error *error_out)
{
    size_t outer = 1, inner = 1;
    for (int d = 0; d < params->axis; ++d) {
        outer *= (size_t)params->output_shape[d];
    }
    for (int d = params->axis + 1; d < 4; ++d) {
        inner *= (size_t)params->output_shape[d];
    }
    for (uint32_t i = 0; i < params->input_count; ++i) {
        if (inputs[i] == NULL && params->input_axis_sizes[i] > 0 && outer * inner > 0) {
            return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, i, 0, 0,
                               "concatenation: inputs[%u] is NULL", (unsigned)i);
        }
    }
    const size_t out_row = (size_t)params->output_shape[params->axis] * inner * elem;
    size_t column = 0;
    for (uint32_t i = 0; i < params->input_count; ++i) {
        const size_t count = (size_t)params->input_axis_sizes[i] * inner, chunk = count * elem;
        if (chunk == 0) {
            continue;
        }
        int identity = 1;
        int32_t m = 0, s = 0, zp = 0;
        if (params->input_multipliers != NULL) {
            m = params->input_multipliers[i];
            s = params->input_shifts[i];
            zp = params->input_zero_points[i];
            identity = m == (1 << 30) && s == 1 && zp == params->output_zero_point;
        }
        for (size_t o = 0; o < outer; ++o) {
            const unsigned char *src = (const unsigned char *)inputs[i] + o * chunk;
            unsigned char *dst = (unsigned char *)output + o * out_row + column;
            if (identity) {
                memcpy(dst, src, chunk);
            } else {
                for (size_t j = 0; j < count; ++j) {
                    int32_t v = ap_fp_multiply_by_quantized_multiplier((int32_t)(int8_t)src[j] - zp, m, s) +
                                params->output_zero_point;
                    dst[j] = (unsigned char)(int8_t)ap_ops_clamp(v, -128, 127);
                }
            }
        }
        column += chunk;
    }
    return AP_OK;
}

/* The int16 row: a copy (TFLite's int16 kernels copy every input as it is; its Prepare wants
   zero points 0, which the lowering checks), so it takes no requantisation arrays. */
static ap_status concat_elem_check(const ap_concatenation_params *p, size_t elem, size_t *total, ap_error *error)
{
    ap_status st = concat_check(p, total, error);
    if (st == AP_OK && (p->input_multipliers != NULL || p->input_shifts != NULL || p->input_zero_points != NULL ||
                        p->output_zero_point != 0)) {
        return AP_OPS_INVALID(error, "concatenation (int16): a copy; input_multipliers, input_shifts and "
                              "input_zero_points must be NULL and output_zero_point 0");
    }
    if (st == AP_OK && *total > SIZE_MAX / elem) {
        return AP_OPS_OVERFLOW(error, "concatenation (int16): output size overflows");
    }
    return st;
}

static ap_status concat16_check(const ap_concatenation_params *p, size_t *total, ap_error *error)
{
    return concat_elem_check(p, 2, total, error);
}

ap_status ap_concatenation_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                        uint32_t *count_out, ap_error *error_out)
{
    size_t total = 0;
    ap_status st = concat16_check(params, &total, error_out);
    return st != AP_OK ? st : one_direct_variant(total, 0, isa, variants_out, capacity, count_out, "concatenation",
                                                 error_out);
}

/* run() of the copying rows (int16, int32 and bool): `elem`-byte elements copied as they are */
static ap_status concat_copy_run(const ap_op_call *call, ap_isa isa, size_t elem, ap_error *error_out)
{
    /* one code for every ISA: memcpy */
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, "concatenation: call must not be NULL");
    }
    const ap_concatenation_params *p = call->params;
    size_t total = 0;
    ap_status st = concat_elem_check(p, elem, &total, error_out);
    if (st != AP_OK ||
        (st = direct_variant_checks(call->variant, call->scratch, call->scratch_count, "concatenation", error_out)) !=
            AP_OK) {
        return st;
    }
    if (call->variant->isa != (int32_t)isa) {
        return AP_OPS_INVALID(error_out, "concatenation: variant '%s' is a %s variant; asked to run it as %s",
                              call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (call->inputs == NULL || call->input_count != p->input_count || (call->output == NULL && total > 0)) {
        return AP_OPS_INVALID(error_out, "concatenation: %u inputs and the output must be given",
                              (unsigned)p->input_count);
    }
    return concat_copy(p, call->inputs, call->output, elem, error_out);
}

ap_status ap_concatenation_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return concat_copy_run(call, isa, 2, error_out);
}

/* The int32 and bool rows: the int16 row's copy of four-byte and one-byte elements (TFLite's
   kernels copy them, no quantisation). */
ap_status ap_concatenation_s32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                        uint32_t *count_out, ap_error *error_out)
{
    size_t total = 0;
    ap_status st = concat_elem_check(params, 4, &total, error_out);
    return st != AP_OK ? st : one_direct_variant(total, 0, isa, variants_out, capacity, count_out, "concatenation",
                                                 error_out);
}

ap_status ap_concatenation_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return concat_copy_run(call, isa, 4, error_out);
}

ap_status ap_concatenation_bool_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return concat_copy_run(call, isa, 1, error_out);
}

/* ---- PAD ---- */

static ap_status pad_check(const ap_pad_params *p, int32_t *out_shape, size_t *total, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "pad: params must not be NULL");
    }
    for (int d = 0; d < 4; ++d) {
        if (p->input_shape[d] < 0 || p->pad_before[d] < 0 || p->pad_after[d] < 0) {
            return AP_OPS_INVALID(error, "pad: dimension %d has a negative size or padding (%d, %d, %d)", d,
                                  (int)p->input_shape[d], (int)p->pad_before[d], (int)p->pad_after[d]);
        }
        int64_t o = (int64_t)p->input_shape[d] + p->pad_before[d] + p->pad_after[d];
        if (o > INT32_MAX) {
            return AP_OPS_OVERFLOW(error, "pad: output dimension %d overflows int32", d);
        }
        out_shape[d] = (int32_t)o;
    }
    if (!ap_ops_int8_range(p->pad_value)) {
        return AP_OPS_INVALID(error, "pad: pad_value %d outside [-128, 127]", (int)p->pad_value);
    }
    size_t in_total;
    if (!ap_ops_product(out_shape, 4, total) || !ap_ops_product(p->input_shape, 4, &in_total)) {
        return AP_OPS_OVERFLOW(error, "pad: tensor size overflows");
    }
    return AP_OK;
}

ap_status ap_pad_s8_variants(const ap_pad_params *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out)
{
    int32_t out_shape[4];
    size_t total = 0;
    ap_status st = pad_check(params, out_shape, &total, error_out);
    return st != AP_OK ? st : one_direct_variant(total, 0, isa, variants_out, capacity, count_out, "pad", error_out);
}

ap_status ap_pad_s8_run(const ap_pad_params *params, const ap_variant *variant, const int8_t *input,
                        int8_t *output, const ap_scratch *scratch, uint32_t scratch_count, ap_error *error_out)
{
    int32_t os[4];
    size_t total = 0;
    ap_status st = pad_check(params, os, &total, error_out);
    if (st != AP_OK || (st = direct_variant_checks(variant, scratch, scratch_count, "pad", error_out)) != AP_OK) {
        return st;
    }
    if ((output == NULL && total > 0) || input == NULL) {
        return AP_OPS_INVALID(error_out, "pad: input and output must not be NULL");
    }
    const int32_t *is = params->input_shape, *pb = params->pad_before;
    const int8_t value = (int8_t)params->pad_value;
    const size_t c_out = (size_t)os[3], c_in = (size_t)is[3];
    int8_t *dst = output;
    for (int32_t n = 0; n < os[0]; ++n) {
        const int in_n = n >= pb[0] && n < pb[0] + is[0];
        for (int32_t h = 0; h < os[1]; ++h) {
            const int in_h = in_n && h >= pb[1] && h < pb[1] + is[1];
            for (int32_t w = 0; w < os[2]; ++w, dst += c_out) {
                if (!(in_h && w >= pb[2] && w < pb[2] + is[2]) || c_in == 0) {
                    memset(dst, value, c_out);
                    continue;
                }
                const int8_t *src = input + ((((size_t)(n - pb[0]) * (size_t)is[1] + (size_t)(h - pb[1])) *
                                              (size_t)is[2] + (size_t)(w - pb[2])) * c_in);
                memset(dst, value, (size_t)pb[3]);
                memcpy(dst + pb[3], src, c_in);
                memset(dst + (size_t)pb[3] + c_in, value, c_out - (size_t)pb[3] - c_in);
            }
        }
    }
    return AP_OK;
}

/* ---- MEAN ---- */

/* The types' value ranges and the most elements a channel's int32 sum holds. */
typedef struct mean_type {
    int32_t lo, hi;
    int64_t max_hw;
} mean_type;

static const mean_type MEAN_S8 = {-128, 127, (int64_t)1 << 23};
static const mean_type MEAN_S16 = {-32768, 32767, ((int64_t)1 << 16) - 1};

static ap_status mean_check_typed(const ap_mean_params *p, const mean_type *t, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "mean: params must not be NULL");
    }
    if (p->batches < 1 || p->input_h < 1 || p->input_w < 1 || p->channels < 1) {
        return AP_OPS_INVALID(error, "mean: dims must be >= 1 (got %d, %d, %d, %d)", (int)p->batches,
                              (int)p->input_h, (int)p->input_w, (int)p->channels);
    }
    if ((int64_t)p->input_h * p->input_w > t->max_hw) {
        return AP_OPS_UNSUPPORTED(error, "mean: %d x %d elements per channel exceed %lld (int32 sum)",
                                  (int)p->input_h, (int)p->input_w, (long long)t->max_hw);
    }
    if (p->input_zero_point < t->lo || p->input_zero_point > t->hi || p->output_zero_point < t->lo ||
        p->output_zero_point > t->hi) {
        return AP_OPS_INVALID(error, "mean: zero points (%d, %d) outside [%d, %d]", (int)p->input_zero_point,
                              (int)p->output_zero_point, (int)t->lo, (int)t->hi);
    }
    if (p->multiplier < 0 || p->shift < -31 || p->shift > 31) {
        return AP_OPS_INVALID(error, "mean: multiplier %d must be >= 0 and shift %d in [-31, 31]",
                              (int)p->multiplier, (int)p->shift);
    }
    size_t n;
    const int32_t dims[4] = {p->batches, p->input_h, p->input_w, p->channels};
    if (!ap_ops_product(dims, 4, &n) || n > SIZE_MAX / 2) {
        return AP_OPS_OVERFLOW(error, "mean: tensor size overflows");
    }
    return AP_OK;
}


static int mean_variant_applies(int32_t kind, int32_t param)
{
    return (kind == AP_MEAN_DIRECT || kind == AP_MEAN_ROW_SUMS) && param == 0;
}

static uint32_t mean_variant_scratch(const ap_mean_params *p, int32_t kind, size_t *bytes, size_t *alignment)
{
    if (kind == AP_MEAN_ROW_SUMS) {
        bytes[0] = (size_t)p->channels * sizeof(int32_t);
        alignment[0] = 16;
        return 1;
    }
    return 0;
}

static ap_status mean_variants(const ap_mean_params *params, const mean_type *t, ap_isa isa,
                               ap_variant *variants_out, uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    ap_status st = mean_check_typed(params, t, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[2];
    uint32_t n = 0;
    const int32_t kinds[2] = {AP_MEAN_DIRECT, AP_MEAN_ROW_SUMS};
    const char *names[2] = {"direct", "row_sums"};
    const uint64_t work = (uint64_t)params->batches * (uint64_t)params->input_h * (uint64_t)params->input_w *
                          (uint64_t)params->channels;
    for (int i = 0; i < 2; ++i) {
        if (mean_variant_applies(kinds[i], 0)) {
            size_t bytes[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
            uint32_t count = mean_variant_scratch(params, kinds[i], bytes, align);
            ap_ops_variant_set(&found[n++], kinds[i], 0, names[i], count, bytes, align, work, 0);
        }
    }
    return ap_ops_variants_out(found, n, isa, variants_out, capacity, count_out, "mean", error_out);
}

ap_status ap_mean_s8_variants(const ap_mean_params *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    return mean_variants(params, &MEAN_S8, isa, variants_out, capacity, count_out, error_out);
}

/* LiteRT's reference_ops::QuantizedMeanOrSum folds 1/n into the multiplier:
   shift = min(floor(log2 n), 32, 31 + output_shift), m' = (m << shift) / n, s' = s - shift. */
typedef struct mean_rq {
    int32_t multiplier, shift;
} mean_rq;

static mean_rq mean_requant(const ap_mean_params *p, int64_t count)
{
    int shift = 0;
    while (((int64_t)1 << (shift + 1)) <= count) {
        ++shift;
    }
    if (shift > 32) {
        shift = 32;
    }
    if (shift > 31 + p->shift) {
        shift = 31 + p->shift;
    }
    mean_rq r;
    r.multiplier = (int32_t)((((int64_t)p->multiplier) << shift) / count);
    r.shift = p->shift - shift;
    return r;
}

static inline int32_t mean_finish(const ap_mean_params *p, const mean_type *t, mean_rq rq, int32_t acc)
{
    acc = ap_fp_multiply_by_quantized_multiplier(acc, rq.multiplier, rq.shift);
    return ap_ops_clamp(acc + p->output_zero_point, t->lo, t->hi);
}

/* Element i of an int8 (elem 1) or int16 (elem 2) tensor; elem is a constant where inlined. */
static inline int32_t mean_load(const void *in, size_t i, size_t elem)
{
    return elem == 1 ? (int32_t)((const int8_t *)in)[i] : (int32_t)((const int16_t *)in)[i];
}

static inline void mean_store(void *out, size_t i, int32_t v, size_t elem)
{
    if (elem == 1) {
        ((int8_t *)out)[i] = (int8_t)v;
    } else {
        ((int16_t *)out)[i] = (int16_t)v;
    }
}

/* Both variants over elements of `elem` bytes (params, variant and scratch checked). */
static inline void mean_sums(const ap_mean_params *params, const mean_type *t, int32_t kind,
                             const ap_scratch *scratch, const void *input, void *output, size_t elem)
{
    const size_t c = (size_t)params->channels;
    const size_t hw = (size_t)params->input_h * (size_t)params->input_w;
    const mean_rq rq = mean_requant(params, (int64_t)hw);
    const int32_t zp = params->input_zero_point;
    for (int32_t b = 0; b < params->batches; ++b) {
        const size_t in_b = (size_t)b * hw * c, out_b = (size_t)b * c;
        if (kind == AP_MEAN_ROW_SUMS) {
            int32_t *acc = (int32_t *)scratch[0].data;
            memset(acc, 0, c * sizeof(int32_t));
            for (size_t i = 0; i < hw; ++i) {
                for (size_t j = 0; j < c; ++j) {
                    acc[j] += mean_load(input, in_b + i * c + j, elem) - zp;
                }
            }
            for (size_t j = 0; j < c; ++j) {
                mean_store(output, out_b + j, mean_finish(params, t, rq, acc[j]), elem);
            }
        } else {
            int32_t acc[MEAN_CHUNK];
            for (size_t c0 = 0; c0 < c; c0 += MEAN_CHUNK) {
                const size_t n = c - c0 < MEAN_CHUNK ? c - c0 : MEAN_CHUNK;
                memset(acc, 0, sizeof(acc));
                for (size_t i = 0; i < hw; ++i) {
                    for (size_t j = 0; j < n; ++j) {
                        acc[j] += mean_load(input, in_b + i * c + c0 + j, elem) - zp;
                    }
                }
                for (size_t j = 0; j < n; ++j) {
                    mean_store(output, out_b + c0 + j, mean_finish(params, t, rq, acc[j]), elem);
                }
            }
        }
    }
}

/* run(): the checks, then mean_sums of the row's element size */
static ap_status mean_run(const ap_mean_params *params, const mean_type *t, const ap_variant *variant,
                          const void *input, void *output, const ap_scratch *scratch, uint32_t scratch_count,
                          ap_error *error_out)
{
    ap_status st = mean_check_typed(params, t, error_out);
    if (st != AP_OK || (st = ap_ops_check_variant_ptr(variant, "mean", error_out)) != AP_OK) {
        return st;
    }
    if (input == NULL || output == NULL) {
        return AP_OPS_INVALID(error_out, "mean: input and output must not be NULL");
    }
    if (!mean_variant_applies(variant->kind, variant->param)) {
        return AP_OPS_INVALID(error_out, "mean: variant kind %d param %d does not apply", (int)variant->kind,
                              (int)variant->param);
    }
    size_t need[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
    uint32_t need_count = mean_variant_scratch(params, variant->kind, need, align);
    if ((st = ap_ops_check_scratch("mean", variant->name, need, need_count, scratch, scratch_count, error_out)) != AP_OK) {
        return st;
    }
    if (need_count > 0 && ((uintptr_t)scratch[0].data & 3u) != 0) {
        return AP_OPS_INVALID(error_out, "mean: row_sums scratch must be 4-byte aligned");
    }
    if (t == &MEAN_S8) {
        mean_sums(params, t, variant->kind, scratch, input, output, 1);
    } else {
        mean_sums(params, t, variant->kind, scratch, input, output, 2);
    }
    return AP_OK;
}

ap_status ap_mean_s8_run(const ap_mean_params *params, const ap_variant *variant, const int8_t *input,
                         int8_t *output, const ap_scratch *scratch, uint32_t scratch_count, ap_error *error_out)
{
    return mean_run(params, &MEAN_S8, variant, input, output, scratch, scratch_count, error_out);
}

/* The int16 row (arenaplan/ops.h): the table's signatures. */
ap_status ap_mean_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out)
{
    return mean_variants(params, &MEAN_S16, isa, variants_out, capacity, count_out, error_out);
}

ap_status ap_mean_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL || call->variant == NULL) {
        return AP_OPS_INVALID(error_out, "mean: the call and its variant must not be NULL");
    }
    if (call->variant->isa != (int32_t)isa) {
        return AP_OPS_INVALID(error_out, "mean: variant '%s' is a %s variant; asked to run it as %s",
                              call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (call->input_count != 1 || call->inputs == NULL) {
        return AP_OPS_INVALID(error_out, "mean: one input must be given");
    }
    return mean_run(call->params, &MEAN_S16, call->variant, call->inputs[0], call->output, call->scratch,
                    call->scratch_count, error_out);
}

/* ---- RESHAPE copy ---- */

ap_status ap_reshape_variants(const ap_reshape_params *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    if (params == NULL || params->bytes < 1) {
        return AP_OPS_INVALID(error_out, "reshape: params must not be NULL and bytes >= 1");
    }
    return one_direct_variant(params->bytes, 1, isa, variants_out, capacity, count_out, "reshape", error_out);
}

ap_status ap_reshape_run(const ap_reshape_params *params, const ap_variant *variant, const void *input,
                         void *output, const ap_scratch *scratch, uint32_t scratch_count, ap_error *error_out)
{
    if (params == NULL || params->bytes < 1) {
        return AP_OPS_INVALID(error_out, "reshape: params must not be NULL and bytes >= 1");
    }
    ap_status st = direct_variant_checks(variant, scratch, scratch_count, "reshape", error_out);
    if (st != AP_OK) {
        return st;
    }
    if (input == NULL || output == NULL) {
        return AP_OPS_INVALID(error_out, "reshape: input and output must not be NULL");
    }
    if (input != output) {
        memmove(output, input, params->bytes);
    }
    return AP_OK;
}
