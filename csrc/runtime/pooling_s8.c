/* AVERAGE_POOL_2D and MAX_POOL_2D, int8 and int16 (portable C; channel-innermost loops
   vectorise). One window walk for both types; each type its chunk functions, the int8 ones
   for arm-dsp variants in pooling_s8_arm_dsp.c. */
#include "arenaplan/pooling.h"

#include "arenaplan/ops.h"

#include <string.h>

#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"

#define POOL_CHUNK 64

/* The types' value ranges and the most taps whose sum fits TFLite's int32 accumulator. */
typedef struct pool_type {
    int32_t lo, hi;
    int64_t max_taps;
    size_t elem;
} pool_type;

static const pool_type POOL_S8 = {-128, 127, (int64_t)1 << 23, 1};
static const pool_type POOL_S16 = {-32768, 32767, ((int64_t)1 << 16) - 1, 2};

static ap_status pool_check_typed(const ap_pool2d_params *p, const pool_type *t, const char *op, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    const int32_t dims[] = {p->batches, p->input_h, p->input_w, p->channels, p->output_h, p->output_w,
                            p->filter_h, p->filter_w, p->stride_h, p->stride_w};
    static const char *names[] = {"batches", "input_h", "input_w", "channels", "output_h", "output_w",
                                  "filter_h", "filter_w", "stride_h", "stride_w"};
    for (size_t i = 0; i < sizeof(dims) / sizeof(dims[0]); ++i) {
        if (dims[i] < 1) {
            return AP_OPS_INVALID(error, "%s: %s must be >= 1 (got %d)", op, names[i], (int)dims[i]);
        }
    }
    if (p->pad_h < 0 || p->pad_w < 0) {
        return AP_OPS_INVALID(error, "%s: padding must be >= 0 (got %d, %d)", op, (int)p->pad_h, (int)p->pad_w);
    }
    if (p->activation_min < t->lo || p->activation_max > t->hi || p->activation_min > p->activation_max) {
        return AP_OPS_INVALID(error, "%s: activation range [%d, %d] is not within [%d, %d] with min <= max",
                              op, (int)p->activation_min, (int)p->activation_max, (int)t->lo, (int)t->hi);
    }
    if ((int64_t)(p->output_h - 1) * p->stride_h > INT32_MAX || (int64_t)(p->output_w - 1) * p->stride_w > INT32_MAX) {
        return AP_OPS_OVERFLOW(error, "%s: output positions overflow int32", op);
    }
    const ap_ops_window_axis ah = ap_ops_window_axis_of(p->input_h, p->output_h, p->filter_h, p->stride_h, 1, p->pad_h);
    const ap_ops_window_axis aw = ap_ops_window_axis_of(p->input_w, p->output_w, p->filter_w, p->stride_w, 1, p->pad_w);
    if (!ap_ops_window_axis_overlaps(ah, p->pad_h) || !ap_ops_window_axis_overlaps(aw, p->pad_w)) {
        return AP_OPS_INVALID(error, "%s: some output window has no input tap (padding %d,%d, filter %dx%d, "
                              "output %dx%d for input %dx%d)", op, (int)p->pad_h, (int)p->pad_w,
                              (int)p->filter_h, (int)p->filter_w, (int)p->output_h, (int)p->output_w,
                              (int)p->input_h, (int)p->input_w);
    }
    if ((int64_t)p->filter_h * p->filter_w > t->max_taps) {
        return AP_OPS_UNSUPPORTED(error, "%s: filter %dx%d is too large for an int32 sum", op,
                                  (int)p->filter_h, (int)p->filter_w);
    }
    size_t n;
    const int32_t in_dims[] = {p->batches, p->input_h, p->input_w, p->channels};
    const int32_t out_dims[] = {p->batches, p->output_h, p->output_w, p->channels};
    if (!ap_ops_product(in_dims, 4, &n) || !ap_ops_product(out_dims, 4, &n) || n > SIZE_MAX / t->elem) {
        return AP_OPS_OVERFLOW(error, "%s: a tensor size overflows", op);
    }
    return AP_OK;
}


static int pool_variant_applies(int32_t kind, int32_t param)
{
    return kind == AP_POOL2D_DIRECT && param == 0;
}

static uint32_t pool_variant_scratch(int32_t kind, int32_t param, size_t *bytes, size_t *alignment)
{
    (void)kind, (void)param, (void)bytes, (void)alignment;
    return 0;
}

static ap_status pool_variants(const ap_pool2d_params *params, const pool_type *t, ap_isa isa,
                               ap_variant *variants_out, uint32_t capacity, uint32_t *count_out, const char *op,
                               ap_error *error)
{
    ap_status st = pool_check_typed(params, t, op, error);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[1];
    uint32_t n = 0;
    size_t bytes[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
    if (pool_variant_applies(AP_POOL2D_DIRECT, 0)) {
        uint32_t count = pool_variant_scratch(AP_POOL2D_DIRECT, 0, bytes, align);
        uint64_t macs = (uint64_t)params->batches * (uint64_t)params->output_h * (uint64_t)params->output_w *
                        (uint64_t)params->channels * (uint64_t)params->filter_h * (uint64_t)params->filter_w;
        ap_ops_variant_set(&found[n++], AP_POOL2D_DIRECT, 0, "direct", count, bytes, align, macs, 0);
    }
    return ap_ops_variants_out(found, n, isa, variants_out, capacity, count_out, op, error);
}

static ap_status pool_run_checks(const ap_pool2d_params *params, const pool_type *t, const ap_variant *variant,
                                 const void *input, void *output, const ap_scratch *scratch, uint32_t scratch_count,
                                 const char *op, ap_error *error)
{
    ap_status st = pool_check_typed(params, t, op, error);
    if (st != AP_OK) {
        return st;
    }
    if ((st = ap_ops_check_variant_ptr(variant, op, error)) != AP_OK) {
        return st;
    }
    if (input == NULL || output == NULL) {
        return AP_OPS_INVALID(error, "%s: input and output must not be NULL", op);
    }
    if (!pool_variant_applies(variant->kind, variant->param)) {
        return AP_OPS_INVALID(error, "%s: variant kind %d param %d does not apply", op, (int)variant->kind,
                              (int)variant->param);
    }
    size_t need[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
    uint32_t need_count = pool_variant_scratch(variant->kind, variant->param, need, align);
    return ap_ops_check_scratch(op, variant->name, need, need_count, scratch, scratch_count, error);
}

ap_status ap_average_pool2d_s8_variants(const ap_pool2d_params *params, ap_isa isa, ap_variant *variants_out,
                                        uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    return pool_variants(params, &POOL_S8, isa, variants_out, capacity, count_out, "average_pool2d", error_out);
}

ap_status ap_max_pool2d_s8_variants(const ap_pool2d_params *params, ap_isa isa, ap_variant *variants_out,
                                    uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    return pool_variants(params, &POOL_S8, isa, variants_out, capacity, count_out, "max_pool2d", error_out);
}

/* One window's valid taps over a chunk of at most POOL_CHUNK channels: tap (fy, fx)
   of channel j is in[fy * row + fx * col + j] (elements of the row's type), 0 <= fy < rows,
   0 <= fx < cols. */
typedef struct pool_window {
    const void *in;
    size_t row, col;
    int32_t rows, cols;
} pool_window;

/* Writes out[0 .. n) (elements of the row's type) from the window's taps. */
typedef void (*pool_chunk_fn)(const ap_pool2d_params *p, const pool_window *w, void *out, size_t n);

/* Valid tap range [lo, hi) of a window starting at `origin` over an axis of `size`. */
static void pool_range(int32_t origin, int32_t filter, int32_t size, int32_t *lo, int32_t *hi)
{
    *lo = origin < 0 ? -origin : 0;
    *hi = size - origin < filter ? size - origin : filter;
}

/* chunk() over every output pixel and chunk of channels, windows clipped to the input;
   elements of `elem` bytes. */
static void pool_each_chunk(const ap_pool2d_params *p, const void *input, void *output, size_t elem,
                            pool_chunk_fn chunk)
{
    const size_t c = (size_t)p->channels;
    pool_window w;
    w.col = c;
    w.row = (size_t)p->input_w * c;
    for (int32_t b = 0; b < p->batches; ++b) {
        const unsigned char *in_b = (const unsigned char *)input + (size_t)b * (size_t)p->input_h * w.row * elem;
        for (int32_t oy = 0; oy < p->output_h; ++oy) {
            int32_t y0 = oy * p->stride_h - p->pad_h, fy0, fy1;
            pool_range(y0, p->filter_h, p->input_h, &fy0, &fy1);
            for (int32_t ox = 0; ox < p->output_w; ++ox) {
                int32_t x0 = ox * p->stride_w - p->pad_w, fx0, fx1;
                pool_range(x0, p->filter_w, p->input_w, &fx0, &fx1);
                unsigned char *out =
                    (unsigned char *)output + (((size_t)b * p->output_h + oy) * p->output_w + ox) * c * elem;
                const unsigned char *first = in_b + ((size_t)(y0 + fy0) * w.row + (size_t)(x0 + fx0) * c) * elem;
                w.rows = fy1 - fy0;
                w.cols = fx1 - fx0;
                for (size_t c0 = 0; c0 < c; c0 += POOL_CHUNK) {
                    w.in = first + c0 * elem;
                    chunk(p, &w, out + c0 * elem, c - c0 < POOL_CHUNK ? c - c0 : POOL_CHUNK);
                }
            }
        }
    }
}

/* TFLite's rounding average: half away from zero, over the valid taps only. */
static void average_chunk(const ap_pool2d_params *p, const pool_window *w, void *out_, size_t n)
{
    int8_t *out = out_;
    const int32_t count = w->rows * w->cols;
    int32_t acc[POOL_CHUNK];
    memset(acc, 0, sizeof(acc));
    for (int32_t fy = 0; fy < w->rows; ++fy) {
        for (int32_t fx = 0; fx < w->cols; ++fx) {
            const int8_t *x = (const int8_t *)w->in + (size_t)fy * w->row + (size_t)fx * w->col;
            for (size_t j = 0; j < n; ++j) {
                acc[j] += x[j];
            }
        }
    }
    for (size_t j = 0; j < n; ++j) {
        int32_t a = acc[j];
        a = a > 0 ? (a + count / 2) / count : (a - count / 2) / count;
        out[j] = (int8_t)ap_ops_clamp(a, p->activation_min, p->activation_max);
    }
}

/* arm-dsp: the same averages with SXTAB16, maxima with SSUB8 + SEL (pooling_s8_arm_dsp.c). */
static void average_chunk_arm_dsp(const ap_pool2d_params *p, const pool_window *w, void *out, size_t n)
{
    ap_avgpool_s8_arm_dsp((const int8_t *)w->in, w->row, w->col, w->rows, w->cols, (int8_t *)out, n,
                          p->activation_min, p->activation_max);
}

static void max_chunk_arm_dsp(const ap_pool2d_params *p, const pool_window *w, void *out, size_t n)
{
    ap_maxpool_s8_arm_dsp((const int8_t *)w->in, w->row, w->col, w->rows, w->cols, (int8_t *)out, n,
                          p->activation_min, p->activation_max);
}

static void max_chunk(const ap_pool2d_params *p, const pool_window *w, void *out_, size_t n)
{
    int8_t *out = out_;
    int8_t best[POOL_CHUNK];
    memset(best, 0x80, sizeof(best)); /* -128 */
    for (int32_t fy = 0; fy < w->rows; ++fy) {
        for (int32_t fx = 0; fx < w->cols; ++fx) {
            const int8_t *x = (const int8_t *)w->in + (size_t)fy * w->row + (size_t)fx * w->col;
            for (size_t j = 0; j < n; ++j) {
                best[j] = x[j] > best[j] ? x[j] : best[j];
            }
        }
    }
    for (size_t j = 0; j < n; ++j) {
        out[j] = (int8_t)ap_ops_clamp(best[j], p->activation_min, p->activation_max);
    }
}

/* The int16 chunks: as the int8 ones, TFLite's reference_integer_ops::AveragePool / MaxPool
   for int16 (an int32 sum: pool_check_typed bounds the taps). */
static void average_chunk_s16(const ap_pool2d_params *p, const pool_window *w, void *out_, size_t n)
{
    int16_t *out = out_;
    const int32_t count = w->rows * w->cols;
    int32_t acc[POOL_CHUNK];
    memset(acc, 0, sizeof(acc));
    for (int32_t fy = 0; fy < w->rows; ++fy) {
        for (int32_t fx = 0; fx < w->cols; ++fx) {
            const int16_t *x = (const int16_t *)w->in + (size_t)fy * w->row + (size_t)fx * w->col;
            for (size_t j = 0; j < n; ++j) {
                acc[j] += x[j];
            }
        }
    }
    for (size_t j = 0; j < n; ++j) {
        int32_t a = acc[j];
        a = a > 0 ? (a + count / 2) / count : (a - count / 2) / count;
        out[j] = (int16_t)ap_ops_clamp(a, p->activation_min, p->activation_max);
    }
}

static void max_chunk_s16(const ap_pool2d_params *p, const pool_window *w, void *out_, size_t n)
{
    int16_t *out = out_;
    int16_t best[POOL_CHUNK];
    for (size_t j = 0; j < n; ++j) {
        best[j] = INT16_MIN;
    }
    for (int32_t fy = 0; fy < w->rows; ++fy) {
        for (int32_t fx = 0; fx < w->cols; ++fx) {
            const int16_t *x = (const int16_t *)w->in + (size_t)fy * w->row + (size_t)fx * w->col;
            for (size_t j = 0; j < n; ++j) {
                best[j] = x[j] > best[j] ? x[j] : best[j];
            }
        }
    }
    for (size_t j = 0; j < n; ++j) {
        out[j] = (int16_t)ap_ops_clamp(best[j], p->activation_min, p->activation_max);
    }
}

/* The run checks, then chunk() over every window. */
static ap_status pool_run_typed(const ap_pool2d_params *params, const pool_type *t, const ap_variant *variant,
                                const void *input, void *output, const ap_scratch *scratch, uint32_t scratch_count,
                                const char *op, pool_chunk_fn chunk, ap_error *error)
{
    ap_status st = pool_run_checks(params, t, variant, input, output, scratch, scratch_count, op, error);
    if (st == AP_OK) {
        pool_each_chunk(params, input, output, t->elem, chunk);
    }
    return st;
}

static ap_status pool_run(const ap_pool2d_params *params, const ap_variant *variant, const int8_t *input,
                          int8_t *output, const ap_scratch *scratch, uint32_t scratch_count, const char *op,
                          pool_chunk_fn chunk, ap_error *error)
{
    return pool_run_typed(params, &POOL_S8, variant, input, output, scratch, scratch_count, op, chunk, error);
}

ap_status ap_average_pool2d_s8_run(const ap_pool2d_params *params, const ap_variant *variant,
                                   const int8_t *input, int8_t *output, const ap_scratch *scratch,
                                   uint32_t scratch_count, ap_error *error_out)
{
    const int use_dsp = variant != NULL && ap_ops_runs_arm_dsp(variant->isa);
    return pool_run(params, variant, input, output, scratch, scratch_count, "average_pool2d",
                    use_dsp ? average_chunk_arm_dsp : average_chunk, error_out);
}

ap_status ap_max_pool2d_s8_run(const ap_pool2d_params *params, const ap_variant *variant,
                               const int8_t *input, int8_t *output, const ap_scratch *scratch,
                               uint32_t scratch_count, ap_error *error_out)
{
    const int use_dsp = variant != NULL && ap_ops_runs_arm_dsp(variant->isa);
    return pool_run(params, variant, input, output, scratch, scratch_count, "max_pool2d",
                    use_dsp ? max_chunk_arm_dsp : max_chunk, error_out);
}

/* ---- int16 (the 16x8 rows), with the op table's signatures ---- */

ap_status ap_average_pool2d_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                         uint32_t *count_out, ap_error *error_out)
{
    return pool_variants(params, &POOL_S16, isa, variants_out, capacity, count_out, "average_pool2d", error_out);
}

ap_status ap_max_pool2d_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                     uint32_t *count_out, ap_error *error_out)
{
    return pool_variants(params, &POOL_S16, isa, variants_out, capacity, count_out, "max_pool2d", error_out);
}

static ap_status pool_s16_call(const ap_op_call *call, ap_isa isa, const char *op, pool_chunk_fn chunk,
                               ap_error *error)
{
    if (call == NULL || call->variant == NULL) {
        return AP_OPS_INVALID(error, "%s: the call and its variant must not be NULL", op);
    }
    if (call->variant->isa != (int32_t)isa) {
        return AP_OPS_INVALID(error, "%s: variant '%s' is a %s variant; asked to run it as %s", op,
                              call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (call->input_count != 1 || call->inputs == NULL) {
        return AP_OPS_INVALID(error, "%s: one input must be given", op);
    }
    return pool_run_typed(call->params, &POOL_S16, call->variant, call->inputs[0], call->output, call->scratch,
                          call->scratch_count, op, chunk, error);
}

ap_status ap_average_pool2d_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return pool_s16_call(call, isa, "average_pool2d", average_chunk_s16, error_out);
}

ap_status ap_max_pool2d_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return pool_s16_call(call, isa, "max_pool2d", max_chunk_s16, error_out);
}
