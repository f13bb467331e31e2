/* The 16x8 weighted ops (arenaplan/ops.h): CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED
   with int16 activations, int8 weights and int64 (or int32) accumulators, as TFLite's
   reference_integer_ops kernels for int16 input. */
#include "arenaplan/ops.h"

#include "ops_s16_common.h"

#define CONV_OP "conv2d_s16"
#define DW_OP "depthwise_conv2d_s16"
#define FC_OP "fully_connected_s16"

/* The window fields of a conv's params, in ap_s16_check_window's order. */
#define AP_S16_GEOMETRY(p) ((const int32_t[15]){(p)->batches, (p)->input_h, (p)->input_w, (p)->input_c, \
    (p)->output_h, (p)->output_w, (p)->output_c, (p)->filter_h, (p)->filter_w, (p)->stride_h, (p)->stride_w, \
    (p)->dilation_h, (p)->dilation_w, (p)->pad_h, (p)->pad_w})

/* The constant entry points of op `name` (ap_<name>_s16_constant_counts, _prepared_size and
   _prepare) from its params type T, its check, its filter's element count (int
   filter_count(const T *, size_t *), 0 on overflow; `what` names the filter then) and, of the
   checked T *p, its bias count. */
#define S16_WEIGHTED_CONSTANTS(name, T, check, op, filter_count, what, bias_count)                           \
    ap_status ap_##name##_s16_prepared_size(const void *params, ap_isa isa, size_t *bytes_out,               \
                                            ap_error *error_out)                                             \
    {                                                                                                        \
        (void)isa;                                                                                           \
        size_t filters = 0, biases = 0;                                                                      \
        ap_status st = ap_##name##_s16_constant_counts(params, &filters, &biases, error_out);                \
        return st != AP_OK ? st : ap_s16_blob_bytes(biases, filters, bytes_out, op, error_out);              \
    }                                                                                                        \
    ap_status ap_##name##_s16_prepare(const void *params, ap_isa isa, const void *filter, const void *bias,  \
                                      void *prepared_out, size_t prepared_bytes, ap_error *error_out)        \
    {                                                                                                        \
        size_t filters = 0, biases = 0;                                                                      \
        ap_status st = ap_##name##_s16_constant_counts(params, &filters, &biases, error_out);                \
        const T *p = params;                                                                                 \
        return st != AP_OK ? st : ap_s16_blob_write(biases, filters, p->accumulator_bits, isa, filter, bias, \
                                                    prepared_out, prepared_bytes, op, error_out);            \
    }                                                                                                        \
    ap_status ap_##name##_s16_constant_counts(const void *params, size_t *filter_count_out,                  \
                                              size_t *bias_count_out, ap_error *error_out)                   \
    {                                                                                                        \
        ap_status st = check(params, error_out);                                                             \
        if (st != AP_OK) {                                                                                   \
            return st;                                                                                       \
        }                                                                                                    \
        const T *p = params;                                                                                 \
        if (filter_count_out == NULL || bias_count_out == NULL) {                                            \
            return AP_OPS_INVALID(error_out, op ": the count out-parameters must not be NULL");              \
        }                                                                                                    \
        if (!filter_count(p, filter_count_out)) {                                                            \
            return AP_OPS_OVERFLOW(error_out, op ": the " what " size overflows");                           \
        }                                                                                                    \
        *bias_count_out = (size_t)(bias_count);                                                              \
        return AP_OK;                                                                                        \
    }

/* Output channel `oc` of a sum: its bias added, then requantised by its own (per channel) or the
   one multiplier and shift, and clamped. */
static int16_t s16_output(int64_t acc, const unsigned char *bias, size_t oc, const ap_requant *rq, int32_t bits)
{
    const size_t ch = rq->per_channel ? oc : 0;
    return ap_s16_requant(acc + ap_s16_bias(bias, oc), bits, rq->multiplier[ch], rq->shift[ch], rq->activation_min,
                          rq->activation_max);
}

/* The one variant of DEPTHWISE_CONV_2D and FULLY_CONNECTED: direct, `macs` operations. */
static ap_status s16_direct(uint64_t macs, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                            uint32_t *count_out, const char *op, ap_error *error)
{
    ap_variant found[1];
    ap_ops_variant_set(&found[0], AP_CONV2D_S16_DIRECT, 0, "direct", 0, NULL, NULL, macs, 0);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, op, error);
}

/* ---- CONV_2D ------------------------------------------------------------------------------ */

static ap_status conv_check(const ap_conv2d_s16_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, CONV_OP ": params must not be NULL");
    }
    ap_status st = ap_s16_check_window(AP_S16_GEOMETRY(p), CONV_OP, error);
    if (st != AP_OK) {
        return st;
    }
    if (!ap_s16_taps_within(p->filter_h, p->filter_w, p->input_c)) {
        return AP_OPS_UNSUPPORTED(error, CONV_OP ": %d x %d x %d filter taps exceed 2^24 (the int64 multiply's "
                                  "range)", (int)p->filter_h, (int)p->filter_w, (int)p->input_c);
    }
    return ap_s16_check_requant(&p->requant, p->output_c, p->accumulator_bits, CONV_OP, error);
}

static size_t conv_taps(const ap_conv2d_s16_params *p)
{
    return (size_t)p->filter_h * (size_t)p->filter_w * (size_t)p->input_c;
}

/* Bytes of the im2col variant's scratch: one output row's columns, int16. */
static int conv_im2col_bytes(const ap_conv2d_s16_params *p, size_t *bytes)
{
    return ap_ops_mul(conv_taps(p), (size_t)p->output_w, bytes) && ap_ops_mul(*bytes, 2, bytes);
}

ap_status ap_conv2d_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, ap_error *error_out)
{
    const ap_conv2d_s16_params *p = params;
    ap_status st = conv_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    size_t outputs = 0, bytes[1] = {0};
    const size_t align[1] = {16};
    const int32_t out_dims[4] = {p->batches, p->output_h, p->output_w, p->output_c};
    ap_ops_product(out_dims, 4, &outputs);
    const uint64_t macs = (uint64_t)outputs * (uint64_t)conv_taps(p);
    ap_variant found[2];
    uint32_t n = 0;
    ap_ops_variant_set(&found[n++], AP_CONV2D_S16_DIRECT, 0, "direct", 0, NULL, NULL, macs, 0);
    if (conv_im2col_bytes(p, &bytes[0])) {
        ap_ops_variant_set(&found[n++], AP_CONV2D_S16_IM2COL, 0, "im2col", 1, bytes, align, macs, 0);
    }
    return ap_ops_variants_out(found, n, isa, variants_out, capacity, count_out, CONV_OP, error_out);
}

/* The filter's element count, 0 if it overflows. */
static int conv_filters(const ap_conv2d_s16_params *p, size_t *count)
{
    return ap_ops_mul(conv_taps(p), (size_t)p->output_c, count);
}

S16_WEIGHTED_CONSTANTS(conv2d, ap_conv2d_s16_params, conv_check, CONV_OP, conv_filters, "filter's", p->output_c)

/* Sum of filter row `w` (taps values) times the window of output (b, oy, ox), read in place. */
static int64_t conv_direct_dot(const ap_conv2d_s16_params *p, const int16_t *in, const int8_t *w, int32_t b,
                               int32_t oy, int32_t ox)
{
    int64_t acc = 0;
    const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
    for (int32_t fy = 0; fy < p->filter_h; ++fy) {
        const int32_t iy = y0 + fy * p->dilation_h;
        if (iy < 0 || iy >= p->input_h) {
            continue;
        }
        for (int32_t fx = 0; fx < p->filter_w; ++fx) {
            const int32_t ix = x0 + fx * p->dilation_w;
            if (ix < 0 || ix >= p->input_w) {
                continue;
            }
            const int16_t *x = in + (((size_t)b * (size_t)p->input_h + (size_t)iy) * (size_t)p->input_w +
                                     (size_t)ix) * (size_t)p->input_c;
            const int8_t *f = w + ((size_t)fy * (size_t)p->filter_w + (size_t)fx) * (size_t)p->input_c;
            int64_t part = 0;   /* at most 2^24 * 2^22 over the whole filter: no overflow */
            for (int32_t c = 0; c < p->input_c; ++c) {
                part += (int32_t)f[c] * (int32_t)x[c];
            }
            acc += part;
        }
    }
    return acc;
}

/* The columns of output row (b, oy): col[ox][fy][fx][c], zero outside the input (the
   int16 zero point is 0, so padding adds nothing, as TFLite's skipped taps). */
static void conv_gather_row(const ap_conv2d_s16_params *p, const int16_t *in, int32_t b, int32_t oy, int16_t *col)
{
    const size_t c = (size_t)p->input_c;
    for (int32_t ox = 0; ox < p->output_w; ++ox) {
        const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
        for (int32_t fy = 0; fy < p->filter_h; ++fy) {
            const int32_t iy = y0 + fy * p->dilation_h;
            for (int32_t fx = 0; fx < p->filter_w; ++fx, col += c) {
                const int32_t ix = x0 + fx * p->dilation_w;
                if (iy < 0 || iy >= p->input_h || ix < 0 || ix >= p->input_w) {
                    memset(col, 0, c * sizeof(int16_t));
                } else {
                    memcpy(col, in + (((size_t)b * (size_t)p->input_h + (size_t)iy) * (size_t)p->input_w +
                                      (size_t)ix) * c, c * sizeof(int16_t));
                }
            }
        }
    }
}

ap_status ap_conv2d_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    (void)isa;
    ap_status st = ap_s16_check_call(call, 1, CONV_OP, error_out);
    const ap_conv2d_s16_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : conv_check(p, error_out);
    size_t filters = 0;
    if (st == AP_OK && !conv_filters(p, &filters)) {
        st = AP_OPS_OVERFLOW(error_out, CONV_OP ": the filter's size overflows");
    }
    const unsigned char *bias = NULL;
    const int8_t *w = NULL;
    st = st != AP_OK ? st : ap_s16_blob_read(call->prepared, (size_t)p->output_c, filters, &bias, &w, CONV_OP,
                                             error_out);
    if (st != AP_OK) {
        return st;
    }
    const int kind = call->variant->kind;
    int16_t *col = NULL;
    if (kind == AP_CONV2D_S16_IM2COL) {
        size_t need[1] = {0};
        if (!conv_im2col_bytes(p, &need[0])) {
            return AP_OPS_OVERFLOW(error_out, CONV_OP ": the im2col scratch size overflows");
        }
        st = ap_ops_check_scratch(CONV_OP, call->variant->name, need, 1, call->scratch, call->scratch_count,
                                  error_out);
        if (st != AP_OK) {
            return st;
        }
        col = call->scratch[0].data;
    } else if (kind != AP_CONV2D_S16_DIRECT) {
        return AP_OPS_UNSUPPORTED(error_out, CONV_OP ": variant kind %d is not one of its kinds", kind);
    }
    const int16_t *in = call->inputs[0];
    int16_t *out = call->output;
    const ap_requant *rq = &p->requant;
    const size_t taps = conv_taps(p);
    for (int32_t b = 0; b < p->batches; ++b) {
        for (int32_t oy = 0; oy < p->output_h; ++oy) {
            if (col != NULL) {
                conv_gather_row(p, in, b, oy, col);
            }
            for (int32_t ox = 0; ox < p->output_w; ++ox) {
                int16_t *o = out + (((size_t)b * (size_t)p->output_h + (size_t)oy) * (size_t)p->output_w +
                                    (size_t)ox) * (size_t)p->output_c;
                const int16_t *x = col != NULL ? col + (size_t)ox * taps : NULL;
                for (int32_t oc = 0; oc < p->output_c; ++oc) {
                    const int8_t *f = w + (size_t)oc * taps;
                    int64_t acc = 0;
                    if (x != NULL) {
                        for (size_t k = 0; k < taps; ++k) {
                            acc += (int32_t)f[k] * (int32_t)x[k];
                        }
                    } else {
                        acc = conv_direct_dot(p, in, f, b, oy, ox);
                    }
                    o[oc] = s16_output(acc, bias, (size_t)oc, rq, p->accumulator_bits);
                }
            }
        }
    }
    return AP_OK;
}

/* ---- DEPTHWISE_CONV_2D ---------------------------------------------------------------------- */

static ap_status dw_check(const ap_depthwise_conv2d_s16_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, DW_OP ": params must not be NULL");
    }
    ap_status st = ap_s16_check_window(AP_S16_GEOMETRY(p), DW_OP, error);
    if (st != AP_OK) {
        return st;
    }
    if (p->depth_multiplier < 1 || (int64_t)p->input_c * p->depth_multiplier != p->output_c) {
        return AP_OPS_INVALID(error, DW_OP ": output_c %d must be input_c %d times depth_multiplier %d",
                              (int)p->output_c, (int)p->input_c, (int)p->depth_multiplier);
    }
    if (!ap_s16_taps_within(p->filter_h, p->filter_w, 1)) {
        return AP_OPS_UNSUPPORTED(error, DW_OP ": %d x %d filter taps exceed 2^24", (int)p->filter_h,
                                  (int)p->filter_w);
    }
    return ap_s16_check_requant(&p->requant, p->output_c, p->accumulator_bits, DW_OP, error);
}

ap_status ap_depthwise_conv2d_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                           uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    const ap_depthwise_conv2d_s16_params *p = params;
    ap_status st = dw_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    size_t outputs = 0;
    const int32_t out_dims[4] = {p->batches, p->output_h, p->output_w, p->output_c};
    ap_ops_product(out_dims, 4, &outputs);
    return s16_direct((uint64_t)outputs * (uint64_t)p->filter_h * (uint64_t)p->filter_w, isa, variants_out,
                      capacity, count_out, DW_OP, error_out);
}

/* The filter's element count, 0 if it overflows. */
static int dw_filters(const ap_depthwise_conv2d_s16_params *p, size_t *count)
{
    const int32_t dims[3] = {p->filter_h, p->filter_w, p->output_c};
    return ap_ops_product(dims, 3, count);
}

S16_WEIGHTED_CONSTANTS(depthwise_conv2d, ap_depthwise_conv2d_s16_params, dw_check, DW_OP, dw_filters, "filter's",
                       p->output_c)

ap_status ap_depthwise_conv2d_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    (void)isa;
    ap_status st = ap_s16_check_call(call, 1, DW_OP, error_out);
    const ap_depthwise_conv2d_s16_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : dw_check(p, error_out);
    const size_t oc_n = st == AP_OK ? (size_t)p->output_c : 0;
    const unsigned char *bias = NULL;
    const int8_t *w = NULL;
    st = st != AP_OK ? st : ap_s16_blob_read(call->prepared, oc_n,
                                             (size_t)p->filter_h * (size_t)p->filter_w * oc_n, &bias, &w, DW_OP,
                                             error_out);
    if (st != AP_OK) {
        return st;
    }
    if (call->variant->kind != AP_CONV2D_S16_DIRECT) {
        return AP_OPS_UNSUPPORTED(error_out, DW_OP ": variant kind %d is not one of its kinds",
                                  (int)call->variant->kind);
    }
    const int16_t *in = call->inputs[0];
    int16_t *out = call->output;
    const ap_requant *rq = &p->requant;
    const size_t ic_n = (size_t)p->input_c;
    for (int32_t b = 0; b < p->batches; ++b) {
        for (int32_t oy = 0; oy < p->output_h; ++oy) {
            const int32_t y0 = oy * p->stride_h - p->pad_h;
            for (int32_t ox = 0; ox < p->output_w; ++ox) {
                const int32_t x0 = ox * p->stride_w - p->pad_w;
                int16_t *o = out + (((size_t)b * (size_t)p->output_h + (size_t)oy) * (size_t)p->output_w +
                                    (size_t)ox) * oc_n;
                for (size_t oc = 0; oc < oc_n; ++oc) {
                    const size_t ic = oc / (size_t)p->depth_multiplier;
                    int64_t acc = 0;
                    for (int32_t fy = 0; fy < p->filter_h; ++fy) {
                        const int32_t iy = y0 + fy * p->dilation_h;
                        if (iy < 0 || iy >= p->input_h) {
                            continue;
                        }
                        for (int32_t fx = 0; fx < p->filter_w; ++fx) {
                            const int32_t ix = x0 + fx * p->dilation_w;
                            if (ix < 0 || ix >= p->input_w) {
                                continue;
                            }
                            const int16_t x = in[(((size_t)b * (size_t)p->input_h + (size_t)iy) *
                                                  (size_t)p->input_w + (size_t)ix) * ic_n + ic];
                            const int8_t f = w[((size_t)fy * (size_t)p->filter_w + (size_t)fx) * oc_n + oc];
                            acc += (int32_t)f * (int32_t)x;
                        }
                    }
                    o[oc] = s16_output(acc, bias, oc, rq, p->accumulator_bits);
                }
            }
        }
    }
    return AP_OK;
}

/* ---- FULLY_CONNECTED ------------------------------------------------------------------------ */

static ap_status fc_check(const ap_fully_connected_s16_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, FC_OP ": params must not be NULL");
    }
    if (p->batches < 1 || p->input_depth < 1 || p->output_depth < 1) {
        return AP_OPS_INVALID(error, FC_OP ": batches %d, input_depth %d and output_depth %d must be >= 1",
                              (int)p->batches, (int)p->input_depth, (int)p->output_depth);
    }
    if ((size_t)p->input_depth > AP_S16_MAX_TAPS) {
        return AP_OPS_UNSUPPORTED(error, FC_OP ": input_depth %d exceeds 2^24", (int)p->input_depth);
    }
    size_t n = 0;
    const int32_t a[2] = {p->batches, p->input_depth}, b[2] = {p->batches, p->output_depth};
    if (!ap_ops_product(a, 2, &n) || !ap_ops_product(b, 2, &n) || n > SIZE_MAX / 2) {
        return AP_OPS_OVERFLOW(error, FC_OP ": a tensor's size overflows size_t");
    }
    if (p->reference != AP_REFERENCE_LITERT && p->reference != AP_REFERENCE_TFLM) {
        return AP_OPS_INVALID(error, FC_OP ": reference %d is not an ap_reference", (int)p->reference);
    }
    if ((p->reference == AP_REFERENCE_LITERT) != (p->real_scale != NULL)) {
        return AP_OPS_INVALID(error, FC_OP ": real_scale must be given for LiteRT's rounding and only then");
    }
    const int32_t n_scales = p->requant.per_channel ? p->output_depth : 1;
    for (int32_t i = 0; p->real_scale != NULL && i < n_scales; ++i) {
        if (!(p->real_scale[i] >= 0.0 && p->real_scale[i] < 1e300)) {
            return AP_OPS_INVALID(error, FC_OP ": real_scale[%d] must be finite and >= 0", (int)i);
        }
    }
    return ap_s16_check_requant(&p->requant, p->output_depth, p->accumulator_bits, FC_OP, error);
}

/* LiteRT's float-scale requantisation of an int64 sum: round half away from zero of
   (double)acc * scale, saturated to int32 before the clamp (TFLite's own conversion is
   undefined beyond). */
static int16_t fc_requant_double(int64_t acc, double scale, int32_t lo, int32_t hi)
{
    const double x = (double)acc * scale;
    const double t = x < 0 ? -x : x;
    int32_t r;
    if (t >= 2147483647.0) {
        r = x < 0 ? INT32_MIN : INT32_MAX;
    } else {
        const double whole = (double)(int64_t)t;
        const int32_t m = (int32_t)(t - whole >= 0.5 ? whole + 1.0 : whole);
        r = x < 0 ? -m : m;
    }
    return (int16_t)ap_ops_clamp(r, lo, hi);
}

ap_status ap_fully_connected_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                          uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    const ap_fully_connected_s16_params *p = params;
    ap_status st = fc_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    return s16_direct((uint64_t)p->batches * (uint64_t)p->input_depth * (uint64_t)p->output_depth, isa,
                      variants_out, capacity, count_out, FC_OP, error_out);
}

/* The weights' element count, 0 if it overflows. */
static int fc_weights(const ap_fully_connected_s16_params *p, size_t *count)
{
    const int32_t dims[2] = {p->output_depth, p->input_depth};
    return ap_ops_product(dims, 2, count);
}

S16_WEIGHTED_CONSTANTS(fully_connected, ap_fully_connected_s16_params, fc_check, FC_OP, fc_weights, "weights'",
                       p->output_depth)

ap_status ap_fully_connected_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    (void)isa;
    ap_status st = ap_s16_check_call(call, 1, FC_OP, error_out);
    const ap_fully_connected_s16_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : fc_check(p, error_out);
    const size_t depth = st == AP_OK ? (size_t)p->input_depth : 0, units = st == AP_OK ? (size_t)p->output_depth : 0;
    const unsigned char *bias = NULL;
    const int8_t *w = NULL;
    st = st != AP_OK ? st : ap_s16_blob_read(call->prepared, units, units * depth, &bias, &w, FC_OP, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (call->variant->kind != AP_CONV2D_S16_DIRECT) {
        return AP_OPS_UNSUPPORTED(error_out, FC_OP ": variant kind %d is not one of its kinds",
                                  (int)call->variant->kind);
    }
    const int16_t *in = call->inputs[0];
    int16_t *out = call->output;
    const ap_requant *rq = &p->requant;
    for (size_t b = 0; b < (size_t)p->batches; ++b) {
        const int16_t *x = in + b * depth;
        for (size_t u = 0; u < units; ++u) {
            const int8_t *f = w + u * depth;
            int64_t acc = 0;
            for (size_t d = 0; d < depth; ++d) {
                acc += (int32_t)f[d] * (int32_t)x[d];
            }
            acc += ap_s16_bias(bias, u);
            const size_t ch = rq->per_channel ? u : 0;
            out[b * units + u] = p->real_scale != NULL
                ? fc_requant_double(acc, p->real_scale[ch], rq->activation_min, rq->activation_max)
                : ap_s16_requant(acc, p->accumulator_bits, rq->multiplier[ch], rq->shift[ch], rq->activation_min,
                                 rq->activation_max);
        }
    }
    return AP_OK;
}
