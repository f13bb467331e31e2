/* SVDF int8 with an int16 state, TFLite reference_ops::EvalIntegerSVDF. */
#include "arenaplan/svdf.h"

#include <string.h>

#include "fixedpoint.h"
#include "ops_s8_common.h"

#define SVDF_OP "svdf"

/* Element counts of the op's tensors, checked for overflow. */
typedef struct svdf_sizes {
    size_t input;    /* batches * input_size */
    size_t state;    /* batches * filters * memory */
    size_t scratch;  /* batches * filters */
    size_t units;    /* filters / rank */
} svdf_sizes;

static ap_status svdf_check(const ap_svdf_params *p, svdf_sizes *sizes, ap_error *error)
{
    memset(sizes, 0, sizeof(*sizes));
    if (p == NULL) {
        return AP_OPS_INVALID(error, SVDF_OP ": params must not be NULL");
    }
    if (p->batches < 1 || p->input_size < 1 || p->filters < 1 || p->memory < 1 || p->rank < 1) {
        return AP_OPS_INVALID(error, SVDF_OP ": batches %d, input_size %d, filters %d, memory %d and "
                              "rank %d must all be >= 1", (int)p->batches, (int)p->input_size,
                              (int)p->filters, (int)p->memory, (int)p->rank);
    }
    if (p->filters % p->rank != 0) {
        return AP_OPS_INVALID(error, SVDF_OP ": rank %d does not divide filters %d", (int)p->rank,
                              (int)p->filters);
    }
    if (!ap_ops_int8_range(p->input_zero_point) || !ap_ops_int8_range(p->output_zero_point)) {
        return AP_OPS_INVALID(error, SVDF_OP ": zero points (input %d, output %d) outside [-128, 127]",
                              (int)p->input_zero_point, (int)p->output_zero_point);
    }
    if (p->feature_multiplier < 0 || p->time_multiplier < 0 || p->feature_shift < -31 ||
        p->feature_shift > 31 || p->time_shift < -31 || p->time_shift > 31) {
        return AP_OPS_INVALID(error, SVDF_OP ": multipliers (%d, %d) must be >= 0 and shifts (%d, %d) "
                              "in [-31, 31]", (int)p->feature_multiplier, (int)p->time_multiplier,
                              (int)p->feature_shift, (int)p->time_shift);
    }
    svdf_sizes s;
    size_t state_bytes, scratch_bytes;
    if (!ap_ops_mul((size_t)p->batches, (size_t)p->input_size, &s.input) ||
        !ap_ops_mul((size_t)p->batches, (size_t)p->filters, &s.scratch) ||
        !ap_ops_mul(s.scratch, (size_t)p->memory, &s.state) ||
        !ap_ops_mul(s.state, sizeof(int16_t), &state_bytes) ||
        !ap_ops_mul(s.scratch, sizeof(int32_t), &scratch_bytes)) {
        return AP_OPS_OVERFLOW(error, SVDF_OP ": tensor sizes overflow");
    }
    s.units = (size_t)(p->filters / p->rank);
    *sizes = s;
    return AP_OK;
}

static int svdf_variant_applies(int32_t kind, int32_t param)
{
    return kind == AP_SVDF_DIRECT && param == 0;
}

static uint32_t svdf_variant_scratch(const svdf_sizes *s, size_t *bytes, size_t *alignment)
{
    bytes[0] = s->scratch * sizeof(int32_t);
    alignment[0] = 16;
    return 1;
}

ap_status ap_svdf_s8_variants(const ap_svdf_params *params, ap_variant *variants_out,
                              uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    svdf_sizes s;
    ap_status st = svdf_check(params, &s, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[1];
    uint32_t n = 0;
    if (svdf_variant_applies(AP_SVDF_DIRECT, 0)) {
        size_t bytes[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
        uint32_t count = svdf_variant_scratch(&s, bytes, align);
        const uint64_t macs = (uint64_t)s.scratch * ((uint64_t)params->input_size + (uint64_t)params->memory);
        ap_ops_variant_set(&found[n++], AP_SVDF_DIRECT, 0, "direct", count, bytes, align, macs, 0);
    }
    return ap_ops_variants_out(found, n, variants_out, capacity, count_out, SVDF_OP, error_out);
}

ap_status ap_svdf_s8_state_bytes(const ap_svdf_params *params, size_t *bytes_out, ap_error *error_out)
{
    svdf_sizes s;
    ap_status st = svdf_check(params, &s, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (bytes_out == NULL) {
        return AP_OPS_INVALID(error_out, SVDF_OP ": bytes_out must not be NULL");
    }
    *bytes_out = s.state * sizeof(int16_t);
    return AP_OK;
}

/* Input elements per block of the feature step: |w * (x - zp)| <= 128 * 255, so an int32
   sum over a block cannot overflow (and compiles to multiply-add vector code); blocks add
   up with wrap-around, as TFLite's int32 sum would (its overflow is undefined). */
#define SVDF_BLOCK 256

/* acc[f] += sum_c weights[f][c] * xz[c] over one block of the input, every filter. */
static void svdf_feature_block(const int8_t *weights, int32_t n_input, int32_t filters, const int16_t *xz,
                               int32_t block, uint32_t *acc)
{
    for (int32_t f = 0; f < filters; ++f) {
        const int8_t *w = weights + (size_t)f * (size_t)n_input;
        int32_t sum = 0;
        for (int32_t c = 0; c < block; ++c) {
            sum += (int32_t)w[c] * (int32_t)xz[c];
        }
        acc[f] += (uint32_t)sum;
    }
}

/* The time dot product of one filter's weights with its state row (int16 x int16 fits int32). */
static int32_t svdf_time_dot(const int16_t *w, const int16_t *s, int32_t n)
{
    uint32_t acc = 0;
    for (int32_t m = 0; m < n; ++m) {
        acc += (uint32_t)((int32_t)w[m] * (int32_t)s[m]);
    }
    return (int32_t)acc;
}

ap_status ap_svdf_s8_run(const ap_svdf_params *params, const ap_variant *variant,
                         const int8_t *input, const int8_t *weights_feature,
                         const int16_t *weights_time, const int32_t *bias, int16_t *state,
                         int8_t *output, const ap_scratch *scratch, uint32_t scratch_count,
                         ap_error *error_out)
{
    svdf_sizes s;
    ap_status st = svdf_check(params, &s, error_out);
    if (st != AP_OK || (st = ap_ops_check_variant_ptr(variant, SVDF_OP, error_out)) != AP_OK) {
        return st;
    }
    if (input == NULL || weights_feature == NULL || weights_time == NULL || state == NULL || output == NULL) {
        return AP_OPS_INVALID(error_out, SVDF_OP ": input, weights, state and output must not be NULL "
                              "(only bias may be)");
    }
    if (((uintptr_t)weights_time & 1u) != 0 || ((uintptr_t)state & 1u) != 0 ||
        ((uintptr_t)bias & 3u) != 0) {
        return AP_OPS_INVALID(error_out, SVDF_OP ": weights_time and state must be 2-byte aligned, "
                              "bias 4-byte aligned");
    }
    if (!svdf_variant_applies(variant->kind, variant->param)) {
        return AP_OPS_INVALID(error_out, SVDF_OP ": variant kind %d param %d does not apply",
                              (int)variant->kind, (int)variant->param);
    }
    size_t need[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
    uint32_t need_count = svdf_variant_scratch(&s, need, align);
    st = ap_ops_check_scratch(SVDF_OP, variant->name, need, need_count, scratch, scratch_count, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (((uintptr_t)scratch[0].data & 3u) != 0) {
        return AP_OPS_INVALID(error_out, SVDF_OP ": scratch must be 4-byte aligned");
    }
    int32_t *time_out = (int32_t *)scratch[0].data;
    const int32_t batches = params->batches, n_input = params->input_size;
    const int32_t filters = params->filters, memory = params->memory, rank = params->rank;
    const size_t row = (size_t)filters * (size_t)memory;

    /* The whole state moves one element left (across filter rows, as TFLite's std::copy
       does); each row's last element is overwritten by the feature step below. */
    memmove(state, state + 1, (s.state - 1) * sizeof(int16_t));
    /* The feature sums go to the time step's scratch first (one per batch and filter), which
       the time step then overwrites. */
    uint32_t *feature = (uint32_t *)scratch[0].data;
    int16_t xz[SVDF_BLOCK];
    for (int32_t b = 0; b < batches; ++b) {
        const int8_t *x = input + (size_t)b * (size_t)n_input;
        uint32_t *acc = feature + (size_t)b * (size_t)filters;
        memset(acc, 0, (size_t)filters * sizeof(uint32_t));
        for (int32_t c0 = 0; c0 < n_input; c0 += SVDF_BLOCK) {
            const int32_t block = n_input - c0 < SVDF_BLOCK ? n_input - c0 : SVDF_BLOCK;
            for (int32_t c = 0; c < block; ++c) {
                xz[c] = (int16_t)((int32_t)x[c0 + c] - params->input_zero_point);
            }
            svdf_feature_block(weights_feature + c0, n_input, filters, xz, block, acc);
        }
        int16_t *newest = state + (size_t)b * row + (size_t)(memory - 1);
        for (int32_t f = 0; f < filters; ++f) {
            const int32_t v = ap_fp_multiply_by_quantized_multiplier((int32_t)acc[f], params->feature_multiplier,
                                                                     params->feature_shift);
            newest[(size_t)f * (size_t)memory] = (int16_t)ap_ops_clamp(v, INT16_MIN, INT16_MAX);
        }
    }
    for (int32_t b = 0; b < batches; ++b) {
        const int16_t *state_b = state + (size_t)b * row;
        int32_t *t = time_out + (size_t)b * (size_t)filters;
        for (int32_t f = 0; f < filters; ++f) {
            t[f] = svdf_time_dot(weights_time + (size_t)f * (size_t)memory, state_b + (size_t)f * (size_t)memory,
                                 memory);
        }
    }
    const size_t units = s.units;
    for (int32_t b = 0; b < batches; ++b) {
        const int32_t *t = time_out + (size_t)b * (size_t)filters;
        int8_t *y = output + (size_t)b * units;
        for (size_t u = 0; u < units; ++u) {
            uint32_t acc = 0;
            for (int32_t r = 0; r < rank; ++r) {
                acc += (uint32_t)t[u * (size_t)rank + (size_t)r];
            }
            if (bias != NULL) {
                acc += (uint32_t)bias[u];
            }
            const int32_t v = ap_fp_multiply_by_quantized_multiplier((int32_t)acc, params->time_multiplier,
                                                                     params->time_shift);
            y[u] = (int8_t)ap_ops_clamp(ap_ops_wrap_add(v, params->output_zero_point), -128, 127);
        }
    }
    return AP_OK;
}
