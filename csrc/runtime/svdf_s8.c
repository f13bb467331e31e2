/* SVDF int8 with an int16 state, TFLite reference_ops::EvalIntegerSVDF. */
#include "arenaplan/svdf.h"

#include <string.h>

#include "fixedpoint.h"
#include "ops_s8_common.h"
#include "svdf_s8_internal.h"

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
    if ((p->time_weights_int8 != 0 && p->time_weights_int8 != 1) ||
        (p->time_weights_int8 ? !ap_ops_int8_range(p->state_zero_point) : p->state_zero_point != 0)) {
        return AP_OPS_INVALID(error, SVDF_OP ": time_weights_int8 %d must be 0 or 1 and state_zero_point %d "
                              "within [-128, 127] (int8 state) or 0 (int16 state)", (int)p->time_weights_int8,
                              (int)p->state_zero_point);
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
    return (kind == AP_SVDF_FUSED || kind == AP_SVDF_DIRECT) && param == 0;
}

/* The scratch requests of a variant that applies: none for "fused", TFLite's int32 scratch
   of the time step for "direct". */
static uint32_t svdf_variant_scratch(int32_t kind, const svdf_sizes *s, size_t *bytes, size_t *alignment)
{
    if (kind == AP_SVDF_FUSED) {
        return 0;
    }
    bytes[0] = s->scratch * sizeof(int32_t);
    alignment[0] = 16;
    return 1;
}

ap_status ap_svdf_s8_variants(const ap_svdf_params *params, ap_isa isa, ap_variant *variants_out,
                              uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    static const struct { int32_t kind; const char *name; } table[] = {
        {AP_SVDF_FUSED, "fused"}, {AP_SVDF_DIRECT, "direct"}   /* least scratch first */
    };
    svdf_sizes s;
    ap_status st = svdf_check(params, &s, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[2];
    uint32_t n = 0;
    const uint64_t macs = (uint64_t)s.scratch * ((uint64_t)params->input_size + (uint64_t)params->memory);
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); ++i) {
        if (svdf_variant_applies(table[i].kind, 0)) {
            size_t bytes[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
            uint32_t count = svdf_variant_scratch(table[i].kind, &s, bytes, align);
            ap_ops_variant_set(&found[n++], table[i].kind, 0, table[i].name, count, bytes, align, macs, 0);
        }
    }
    return ap_ops_variants_out(found, n, isa, variants_out, capacity, count_out, SVDF_OP, error_out);
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
    *bytes_out = s.state * (params->time_weights_int8 ? sizeof(int8_t) : sizeof(int16_t));
    return AP_OK;
}

/* Input elements per block of the feature step (the stack buffer of input - zero point).
   An input longer than a block is widened again for each chunk of filters. On a
   microcontroller 64 keeps the runtime's worst stack path at 1,276 bytes on a Cortex-M4
   (256 made it 1,572), for 9 % more instructions in the keyword model's 96-feature SVDF;
   where the AVX2 path is built (hosts) 256 keeps such inputs in one block, which halves
   that op's time there. The block size does not change any result. */
#if AP_OPS_HAVE_AVX2
#define SVDF_BLOCK 256
#else
#define SVDF_BLOCK 64
#endif

/* acc[j] = (first ? 0 : acc[j]) + sum_c weights[j * stride + c] * xz[c] over one block, for
   count filters (svdf_s8_internal.h's contract). |w * xz| <= 128 * 255, so the int32 sum of a
   block cannot overflow and compiles to multiply-add vector code; blocks add up with wrap-around. */
static void svdf_feature(const int8_t *weights, size_t stride, const int16_t *xz, int32_t block, int32_t count,
                         int32_t first, uint32_t *acc, int use_avx2)
{
#if AP_OPS_HAVE_AVX2
    if (use_avx2) {
        ap_svdf_feature_avx2(weights, stride, xz, block, count, first, acc);
        return;
    }
#endif
    (void)use_avx2;
    for (int32_t j = 0; j < count; ++j) {
        const int8_t *w = weights + (size_t)j * stride;
        int32_t sum = 0;
        for (int32_t c = 0; c < block; ++c) {
            sum += (int32_t)w[c] * (int32_t)xz[c];
        }
        acc[j] = (first ? 0u : acc[j]) + (uint32_t)sum;
    }
}

/* out[j] = the time dot product of filter j's weights with its state row, for count
   consecutive filters (int16 x int16 fits int32; the sum wraps). */
static void svdf_time(const int16_t *weights_time, const int16_t *state, int32_t memory, int32_t count,
                      int32_t *out, int use_avx2)
{
#if AP_OPS_HAVE_AVX2
    if (use_avx2) {
        ap_svdf_time_avx2(weights_time, state, memory, count, out);
        return;
    }
#endif
    (void)use_avx2;
    for (int32_t j = 0; j < count; ++j) {
        const int16_t *w = weights_time + (size_t)j * (size_t)memory;
        const int16_t *s = state + (size_t)j * (size_t)memory;
        uint32_t acc = 0;
        for (int32_t m = 0; m < memory; ++m) {
            acc += (uint32_t)((int32_t)w[m] * (int32_t)s[m]);
        }
        out[j] = (int32_t)acc;
    }
}

/* xz[c] = x[c] - zero_point for one block of the input. */
static void svdf_widen(const int8_t *x, int32_t zero_point, int32_t block, int16_t *xz)
{
    for (int32_t c = 0; c < block; ++c) {
        xz[c] = (int16_t)((int32_t)x[c] - zero_point);
    }
}

/* The feature sums of `count` filters from weights row `weights`, over the whole input x;
   xz already holds x's only block when the input fits one (`widened`). */
static void svdf_feature_rows(const ap_svdf_params *p, const int8_t *weights, const int8_t *x, int16_t *xz,
                              int widened, int32_t count, uint32_t *acc, int use_avx2)
{
    const int32_t n_input = p->input_size;
    for (int32_t c0 = 0; c0 < n_input; c0 += SVDF_BLOCK) {
        const int32_t block = n_input - c0 < SVDF_BLOCK ? n_input - c0 : SVDF_BLOCK;
        if (!widened) {
            svdf_widen(x + c0, p->input_zero_point, block, xz);
        }
        svdf_feature(weights + c0, (size_t)n_input, xz, block, count, c0 == 0, acc, use_avx2);
    }
}

/* out[j] = clamp(MBQM(acc[j], multiplier, shift) + offset, lo, hi) for j < count
   (svdf_s8_internal.h's contract). */
static void svdf_requant(const int32_t *acc, int32_t count, int32_t multiplier, int32_t shift, int32_t offset,
                         int32_t lo, int32_t hi, int32_t *out, int use_avx2)
{
#if AP_OPS_HAVE_AVX2
    if (use_avx2) {
        ap_svdf_requant_avx2(acc, count, multiplier, shift, offset, lo, hi, out);
        return;
    }
#endif
    (void)use_avx2;
    for (int32_t j = 0; j < count; ++j) {
        const int32_t v = ap_fp_multiply_by_quantized_multiplier(acc[j], multiplier, shift);
        out[j] = ap_ops_clamp(ap_ops_wrap_add(v, offset), lo, hi);
    }
}

/* The newest state element of `count` filters (every `memory` elements from `newest`). */
static void svdf_store_newest(const ap_svdf_params *p, const uint32_t *acc, int32_t count, int16_t *newest,
                              int use_avx2)
{
    /* zeroed: arm-none-eabi-gcc -O2 cannot see that the first count lanes are always set */
    int32_t acc32[AP_SVDF_CHUNK] = {0}, v[AP_SVDF_CHUNK] = {0};
    for (int32_t j = 0; j < count; ++j) {
        acc32[j] = (int32_t)acc[j];
    }
    svdf_requant(acc32, count, p->feature_multiplier, p->feature_shift, 0, INT16_MIN, INT16_MAX, v, use_avx2);
    for (int32_t j = 0; j < count; ++j) {
        newest[(size_t)j * (size_t)p->memory] = (int16_t)v[j];
    }
}

/* Outputs of `count` units (up to AP_SVDF_CHUNK) from their wrapped rank sums, bias included. */
static void svdf_store_outputs(const ap_svdf_params *p, const uint32_t *sums, int32_t count, int8_t *y,
                               int use_avx2)
{
    /* zeroed: arm-none-eabi-gcc -O2 cannot see that the first count lanes are always set */
    int32_t acc32[AP_SVDF_CHUNK] = {0}, v[AP_SVDF_CHUNK] = {0};
    for (int32_t j = 0; j < count; ++j) {
        acc32[j] = (int32_t)sums[j];
    }
    svdf_requant(acc32, count, p->time_multiplier, p->time_shift, p->output_zero_point, -128, 127, v, use_avx2);
    for (int32_t j = 0; j < count; ++j) {
        y[j] = (int8_t)v[j];
    }
}

/* "direct": TFLite's order. The whole state shifts, every feature sum goes to the scratch,
   then every time sum (over the feature sums, which are consumed first), then the units. */
static void svdf_run_direct(const ap_svdf_params *p, const svdf_sizes *s, const int8_t *input,
                            const int8_t *weights_feature, const int16_t *weights_time, const int32_t *bias,
                            int16_t *state, int8_t *output, int32_t *time_out, int use_avx2)
{
    const int32_t filters = p->filters, memory = p->memory, rank = p->rank, n_input = p->input_size;
    const size_t row = (size_t)filters * (size_t)memory;
    int16_t xz[SVDF_BLOCK];
    /* The whole state moves one element left (across filter rows, as TFLite's std::copy
       does); each row's last element is overwritten by the feature step below. */
    memmove(state, state + 1, (s->state - 1) * sizeof(int16_t));
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *x = input + (size_t)b * (size_t)n_input;
        const int widened = n_input <= SVDF_BLOCK;
        if (widened) {
            svdf_widen(x, p->input_zero_point, n_input, xz);
        }
        uint32_t *acc = (uint32_t *)(void *)(time_out + (size_t)b * (size_t)filters);
        int16_t *newest = state + (size_t)b * row + (size_t)(memory - 1);
        for (int32_t f0 = 0; f0 < filters; f0 += AP_SVDF_CHUNK) {
            const int32_t count = filters - f0 < AP_SVDF_CHUNK ? filters - f0 : AP_SVDF_CHUNK;
            svdf_feature_rows(p, weights_feature + (size_t)f0 * (size_t)n_input, x, xz, widened, count,
                              acc + f0, use_avx2);
            svdf_store_newest(p, acc + f0, count, newest + (size_t)f0 * (size_t)memory, use_avx2);
        }
    }
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *state_b = state + (size_t)b * row;
        int32_t *t = time_out + (size_t)b * (size_t)filters;
        for (int32_t f0 = 0; f0 < filters; f0 += AP_SVDF_CHUNK) {
            const int32_t count = filters - f0 < AP_SVDF_CHUNK ? filters - f0 : AP_SVDF_CHUNK;
            svdf_time(weights_time + (size_t)f0 * (size_t)memory, state_b + (size_t)f0 * (size_t)memory, memory,
                      count, t + f0, use_avx2);
        }
    }
    for (int32_t b = 0; b < p->batches; ++b) {
        const int32_t *t = time_out + (size_t)b * (size_t)filters;
        int8_t *y = output + (size_t)b * s->units;
        for (size_t u0 = 0; u0 < s->units; u0 += AP_SVDF_CHUNK) {
            const int32_t count = s->units - u0 < AP_SVDF_CHUNK ? (int32_t)(s->units - u0) : AP_SVDF_CHUNK;
            uint32_t sums[AP_SVDF_CHUNK];
            for (int32_t j = 0; j < count; ++j) {
                const size_t u = u0 + (size_t)j;
                uint32_t acc = bias != NULL ? (uint32_t)bias[u] : 0u;
                for (int32_t r = 0; r < rank; ++r) {
                    acc += (uint32_t)t[u * (size_t)rank + (size_t)r];
                }
                sums[j] = acc;
            }
            svdf_store_outputs(p, sums, count, y + u0, use_avx2);
        }
    }
}

/* "fused": AP_SVDF_CHUNK filters at a time, each chunk's rows shifted, fed their newest
   feature, dotted with the time weights and summed into the open unit while they are in
   cache; no scratch. Shifting each chunk's rows alone equals TFLite's shift of the whole
   state: the one element a row receives from the next row is the one the feature step
   overwrites. */
static void svdf_run_fused(const ap_svdf_params *p, const svdf_sizes *s, const int8_t *input,
                           const int8_t *weights_feature, const int16_t *weights_time, const int32_t *bias,
                           int16_t *state, int8_t *output, int use_avx2)
{
    const int32_t filters = p->filters, memory = p->memory, rank = p->rank, n_input = p->input_size;
    const size_t row = (size_t)filters * (size_t)memory;
    int16_t xz[SVDF_BLOCK];
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *x = input + (size_t)b * (size_t)n_input;
        int16_t *state_b = state + (size_t)b * row;
        int8_t *y = output + (size_t)b * s->units;
        const int widened = n_input <= SVDF_BLOCK;
        if (widened) {
            svdf_widen(x, p->input_zero_point, n_input, xz);
        }
        size_t unit = 0;             /* the open unit */
        int32_t summed = 0;          /* its filters summed so far */
        uint32_t open = 0;           /* their wrapped sum */
        uint32_t done[AP_SVDF_CHUNK];  /* sums of the finished units unit - ready .. unit - 1 */
        int32_t ready = 0;
        /* Chunk k's rows are shifted and given their newest features one chunk before they are
           read by the time step: a wide load right after the narrow stores it overlaps would
           wait for them (failed store-to-load forwarding). */
        for (int32_t f0 = 0, prev = -1; prev < filters; prev = f0, f0 += AP_SVDF_CHUNK) {
            if (f0 < filters) {
                const int32_t count = filters - f0 < AP_SVDF_CHUNK ? filters - f0 : AP_SVDF_CHUNK;
                int16_t *rows = state_b + (size_t)f0 * (size_t)memory;
                memmove(rows, rows + 1, ((size_t)count * (size_t)memory - 1) * sizeof(int16_t));
                uint32_t acc[AP_SVDF_CHUNK];
                svdf_feature_rows(p, weights_feature + (size_t)f0 * (size_t)n_input, x, xz, widened, count, acc,
                                  use_avx2);
                svdf_store_newest(p, acc, count, rows + (size_t)(memory - 1), use_avx2);
            }
            if (prev < 0) {
                continue;
            }
            const int32_t count = filters - prev < AP_SVDF_CHUNK ? filters - prev : AP_SVDF_CHUNK;
            int32_t t[AP_SVDF_CHUNK];
            const size_t at = (size_t)prev * (size_t)memory;
            svdf_time(weights_time + at, state_b + at, memory, count, t, use_avx2);
            for (int32_t j = 0; j < count; ++j) {
                open += (uint32_t)t[j];
                if (++summed == rank) {
                    done[ready++] = open + (bias != NULL ? (uint32_t)bias[unit] : 0u);
                    ++unit;
                    summed = 0;
                    open = 0;
                    if (ready == AP_SVDF_CHUNK) {
                        svdf_store_outputs(p, done, ready, y + unit - (size_t)ready, use_avx2);
                        ready = 0;
                    }
                }
            }
        }
        if (ready > 0) {
            svdf_store_outputs(p, done, ready, y + unit - (size_t)ready, use_avx2);
        }
    }
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
    if (params->time_weights_int8) {
        return AP_OPS_INVALID(error_out, SVDF_OP ": params with int8 time weights run through "
                              "ap_svdf_s8_time8_run");
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
    uint32_t need_count = svdf_variant_scratch(variant->kind, &s, need, align);
    st = ap_ops_check_scratch(SVDF_OP, variant->name, need, need_count, scratch, scratch_count, error_out);
    if (st != AP_OK) {
        return st;
    }
    const int use_avx2 = ap_ops_runs_avx2(variant->isa);
    if (variant->kind == AP_SVDF_FUSED) {
        svdf_run_fused(params, &s, input, weights_feature, weights_time, bias, state, output, use_avx2);
        return AP_OK;
    }
    if (((uintptr_t)scratch[0].data & 3u) != 0) {
        return AP_OPS_INVALID(error_out, SVDF_OP ": scratch must be 4-byte aligned");
    }
    svdf_run_direct(params, &s, input, weights_feature, weights_time, bias, state, output,
                    (int32_t *)scratch[0].data, use_avx2);
    return AP_OK;
}

/* ---- int8 time weights and state (TensorFlow Lite Micro's EvalInt8SvdfReference) ---- */

/* The feature step of every filter of batch b: the newest element of each state row. */
static void svdf8_feature(const ap_svdf_params *p, const int8_t *x, const int8_t *weights_feature, int8_t *state_b)
{
    for (int32_t f = 0; f < p->filters; ++f) {
        const int8_t *w = weights_feature + (size_t)f * (size_t)p->input_size;
        uint32_t acc = 0;
        for (int32_t c = 0; c < p->input_size; ++c) {
            acc += (uint32_t)((int32_t)w[c] * ((int32_t)x[c] - p->input_zero_point));
        }
        const int32_t v = ap_ops_clamp(ap_fp_multiply_by_quantized_multiplier((int32_t)acc, p->feature_multiplier,
                                                                               p->feature_shift), -128, 127);
        /* the zero point after the clamp, the sum narrowed to int8 (wrapping), as the package does */
        state_b[(size_t)f * (size_t)p->memory + (size_t)(p->memory - 1)] =
            (int8_t)(uint8_t)((uint32_t)(v + p->state_zero_point) & 0xFFu);
    }
}

/* The time dot product of filter f's weights with its state row less the state's zero point. */
static int32_t svdf8_time(const ap_svdf_params *p, const int8_t *weights_time, const int8_t *state_b, int32_t f)
{
    const int8_t *w = weights_time + (size_t)f * (size_t)p->memory;
    const int8_t *s = state_b + (size_t)f * (size_t)p->memory;
    uint32_t acc = 0;
    for (int32_t m = 0; m < p->memory; ++m) {
        acc += (uint32_t)((int32_t)w[m] * ((int32_t)s[m] - p->state_zero_point));
    }
    return (int32_t)acc;
}

static int8_t svdf8_output(const ap_svdf_params *p, uint32_t sum)
{
    const int32_t v = ap_fp_multiply_by_quantized_multiplier((int32_t)sum, p->time_multiplier, p->time_shift);
    return (int8_t)ap_ops_clamp(ap_ops_wrap_add(v, p->output_zero_point), -128, 127);
}

ap_status ap_svdf_s8_time8_run(const ap_svdf_params *params, const ap_variant *variant,
                               const int8_t *input, const int8_t *weights_feature,
                               const int8_t *weights_time, const int32_t *bias, int8_t *state,
                               int8_t *output, const ap_scratch *scratch, uint32_t scratch_count,
                               ap_error *error_out)
{
    svdf_sizes s;
    ap_status st = svdf_check(params, &s, error_out);
    if (st != AP_OK || (st = ap_ops_check_variant_ptr(variant, SVDF_OP, error_out)) != AP_OK) {
        return st;
    }
    if (!params->time_weights_int8) {
        return AP_OPS_INVALID(error_out, SVDF_OP ": params with int16 time weights run through ap_svdf_s8_run");
    }
    if (input == NULL || weights_feature == NULL || weights_time == NULL || state == NULL || output == NULL) {
        return AP_OPS_INVALID(error_out, SVDF_OP ": input, weights, state and output must not be NULL "
                              "(only bias may be)");
    }
    if (((uintptr_t)bias & 3u) != 0) {
        return AP_OPS_INVALID(error_out, SVDF_OP ": bias must be 4-byte aligned");
    }
    if (!svdf_variant_applies(variant->kind, variant->param)) {
        return AP_OPS_INVALID(error_out, SVDF_OP ": variant kind %d param %d does not apply",
                              (int)variant->kind, (int)variant->param);
    }
    size_t need[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
    const uint32_t need_count = svdf_variant_scratch(variant->kind, &s, need, align);
    st = ap_ops_check_scratch(SVDF_OP, variant->name, need, need_count, scratch, scratch_count, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (need_count > 0 && ((uintptr_t)scratch[0].data & 3u) != 0) {
        return AP_OPS_INVALID(error_out, SVDF_OP ": scratch must be 4-byte aligned");
    }
    const int32_t filters = params->filters, rank = params->rank;
    const size_t row = (size_t)filters * (size_t)params->memory;
    /* the whole state one element left; each row's last element is the feature step's */
    memmove(state, state + 1, s.state - 1);
    for (int32_t b = 0; b < params->batches; ++b) {
        svdf8_feature(params, input + (size_t)b * (size_t)params->input_size, weights_feature, state + (size_t)b * row);
    }
    int32_t *time_out = need_count > 0 ? (int32_t *)scratch[0].data : NULL;
    if (time_out != NULL) {   /* "direct": every time sum first, in TFLite Micro's order */
        for (int32_t b = 0; b < params->batches; ++b) {
            for (int32_t f = 0; f < filters; ++f) {
                time_out[(size_t)b * (size_t)filters + (size_t)f] = svdf8_time(params, weights_time,
                                                                              state + (size_t)b * row, f);
            }
        }
    }
    for (int32_t b = 0; b < params->batches; ++b) {
        for (size_t u = 0; u < s.units; ++u) {
            uint32_t sum = bias != NULL ? (uint32_t)bias[u] : 0u;
            for (int32_t r = 0; r < rank; ++r) {
                const int32_t f = (int32_t)(u * (size_t)rank) + r;
                sum += (uint32_t)(time_out != NULL ? time_out[(size_t)b * (size_t)filters + (size_t)f]
                                                   : svdf8_time(params, weights_time, state + (size_t)b * row, f));
            }
            output[(size_t)b * s.units + u] = svdf8_output(params, sum);
        }
    }
    return AP_OK;
}
