/* float32 FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV (arenaplan/ops.h,
   AP_TYPES_F32): TFLite's float reference kernels, each sum in the reference's order with no
   contraction (float32_common.h), so the outputs equal LiteRT's bit for bit. */
#include "float32_common.h"

#define FC_OP "FULLY_CONNECTED float32"
#define CONV_OP "CONV_2D float32"
#define DW_OP "DEPTHWISE_CONV_2D float32"

/* An op's constant_counts (ap_<op>_f32_constant_counts). */
typedef ap_status (*weighted_counts)(const void *params, size_t *filter_count_out, size_t *bias_count_out,
                                     ap_error *error_out);

/* prepared_size() of an op of this file: the bytes of the blob of its constant counts. */
static ap_status weighted_prepared_size(weighted_counts counts, const void *params, size_t *bytes_out,
                                        const char *op, ap_error *error)
{
    size_t filter_count = 0, bias_count = 0;
    ap_status st = counts(params, &filter_count, &bias_count, error);
    return st != AP_OK ? st : ap_f32_blob_bytes(filter_count, bias_count, bytes_out, op, error);
}

/* prepare() of an op of this file: the blob of its constant counts, filled. */
static ap_status weighted_prepare(weighted_counts counts, const void *params, ap_isa isa, const void *filter,
                                  const void *bias, void *prepared_out, size_t prepared_bytes, const char *op,
                                  ap_error *error)
{
    size_t filter_count = 0, bias_count = 0;
    ap_status st = counts(params, &filter_count, &bias_count, error);
    return st != AP_OK ? st : ap_f32_blob_fill(filter, filter_count, bias, bias_count, isa, prepared_out,
                                               prepared_bytes, op, error);
}

/* The entry points of op `name` (ap_<name>_f32_variants, _constant_counts, _prepared_size,
   _prepare and _run) from its params type T, its check (T's params, the filter's element
   count), its kernel (T's params, the input, the output, the weights, the biases) and, of the
   checked T *p, `biases`, the bias count, and `positions`, the outputs each applying the whole
   filter once: the MACs are positions times the filter's size. */
#define F32_WEIGHTED_OP(name, T, check, kernel, op, biases, positions)                                          \
    ap_status ap_##name##_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out,                \
                                       uint32_t capacity, uint32_t *count_out, ap_error *error_out)             \
    {                                                                                                           \
        const T *p = params;                                                                                    \
        size_t filter_count = 0;                                                                                \
        ap_status st = check(p, &filter_count, error_out);                                                      \
        return st != AP_OK ? st : ap_f32_direct((positions) * (uint64_t)filter_count, 0, isa, variants_out,     \
                                                capacity, count_out, op, error_out);                            \
    }                                                                                                           \
    ap_status ap_##name##_f32_constant_counts(const void *params, size_t *filter_count_out,                     \
                                              size_t *bias_count_out, ap_error *error_out)                      \
    {                                                                                                           \
        const T *p = params;                                                                                    \
        ap_status st = check(p, filter_count_out, error_out);                                                   \
        if (st == AP_OK) {                                                                                      \
            *bias_count_out = (size_t)(biases);                                                                 \
        }                                                                                                       \
        return st;                                                                                              \
    }                                                                                                           \
    ap_status ap_##name##_f32_prepared_size(const void *params, ap_isa isa, size_t *bytes_out,                  \
                                            ap_error *error_out)                                                \
    {                                                                                                           \
        (void)isa;                                                                                              \
        return weighted_prepared_size(ap_##name##_f32_constant_counts, params, bytes_out, op, error_out);       \
    }                                                                                                           \
    ap_status ap_##name##_f32_prepare(const void *params, ap_isa isa, const void *filter, const void *bias,     \
                                      void *prepared_out, size_t prepared_bytes, ap_error *error_out)           \
    {                                                                                                           \
        return weighted_prepare(ap_##name##_f32_constant_counts, params, isa, filter, bias, prepared_out,       \
                                prepared_bytes, op, error_out);                                                 \
    }                                                                                                           \
    ap_status ap_##name##_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)                      \
    {                                                                                                           \
        ap_status st = ap_f32_check_call(call, isa, 1, op, error_out);                                          \
        const T *p = st == AP_OK ? call->params : NULL;                                                         \
        size_t filter_count = 0;                                                                                \
        st = st != AP_OK ? st : check(p, &filter_count, error_out);                                             \
        const float *w = NULL, *bias = NULL;                                                                    \
        st = st != AP_OK ? st : ap_f32_blob_read(call->prepared, filter_count, (size_t)(biases), &w, &bias, op, \
                                                 error_out);                                                    \
        if (st == AP_OK) {                                                                                      \
            kernel(p, call->inputs[0], call->output, w, bias);                                                  \
        }                                                                                                       \
        return st;                                                                                              \
    }

/* ---- FULLY_CONNECTED --------------------------------------------------------------------------- */
static ap_status fc_check(const ap_fully_connected_f32_params *p, size_t *filter_count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, FC_OP ": params must not be NULL");
    }
    if (p->batches < 1 || p->input_depth < 1 || p->output_depth < 1) {
        return AP_OPS_INVALID(error, FC_OP ": batches %d, input_depth %d and output_depth %d must be >= 1",
                              (int)p->batches, (int)p->input_depth, (int)p->output_depth);
    }
    const int32_t w[2] = {p->output_depth, p->input_depth}, x[2] = {p->batches, p->input_depth},
                  y[2] = {p->batches, p->output_depth};
    size_t n = 0;
    if (!ap_ops_product(w, 2, filter_count) || !ap_ops_product(x, 2, &n) || !ap_ops_product(y, 2, &n) ||
        *filter_count > SIZE_MAX / sizeof(float)) {
        return AP_OPS_OVERFLOW(error, FC_OP ": the tensors' sizes overflow");
    }
    return ap_f32_check_range(p->activation_min, p->activation_max, FC_OP, error);
}

static void fc_kernel(const ap_fully_connected_f32_params *p, const float *x, float *y, const float *w,
                      const float *bias)
{
    const size_t depth = (size_t)p->input_depth, units = (size_t)p->output_depth;
    for (size_t b = 0; b < (size_t)p->batches; ++b) {
        const float *row = x + b * depth;
        for (size_t o = 0; o < units; ++o) {
            const float *wr = w + o * depth;
            float total = 0.0f;
            for (size_t d = 0; d < depth; ++d) {
                total += row[d] * wr[d];
            }
            y[b * units + o] = ap_f32_act(total + bias[o], p->activation_min, p->activation_max);
        }
    }
}

F32_WEIGHTED_OP(fully_connected, ap_fully_connected_f32_params, fc_check, fc_kernel, FC_OP, p->output_depth,
                (uint64_t)p->batches)

/* ---- CONV_2D and DEPTHWISE_CONV_2D -------------------------------------------------------------- */
/* The geometry both share (the fields of ap_conv2d_f32_params up to pad_w). */
typedef struct conv_geometry {
    int32_t batches, input_h, input_w, input_c, output_h, output_w, output_c, filter_h, filter_w;
    int32_t stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w;
} conv_geometry;

static ap_status conv_geometry_check(const conv_geometry *g, size_t filter_count, const char *op,
                                     ap_error *error)
{
    const int32_t dims[] = {g->batches, g->input_h, g->input_w, g->input_c, g->output_h, g->output_w,
                            g->output_c, g->filter_h, g->filter_w, g->stride_h, g->stride_w, g->dilation_h,
                            g->dilation_w};
    for (size_t i = 0; i < sizeof(dims) / sizeof(dims[0]); ++i) {
        if (dims[i] < 1) {
            return AP_OPS_INVALID(error, "%s: every dimension, stride and dilation must be >= 1 (field %u is %d)",
                                  op, (unsigned)i, (int)dims[i]);
        }
    }
    if (g->pad_h < 0 || g->pad_w < 0) {
        return AP_OPS_INVALID(error, "%s: padding (%d, %d) must be >= 0", op, (int)g->pad_h, (int)g->pad_w);
    }
    const int32_t in[4] = {g->batches, g->input_h, g->input_w, g->input_c};
    const int32_t out[4] = {g->batches, g->output_h, g->output_w, g->output_c};
    size_t n = 0;
    if (!ap_ops_product(in, 4, &n) || n > SIZE_MAX / sizeof(float) || !ap_ops_product(out, 4, &n) ||
        n > SIZE_MAX / sizeof(float) || filter_count > SIZE_MAX / sizeof(float)) {
        return AP_OPS_OVERFLOW(error, "%s: the tensors' sizes overflow", op);
    }
    return AP_OK;
}

static ap_status conv_check(const ap_conv2d_f32_params *p, size_t *filter_count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, CONV_OP ": params must not be NULL");
    }
    conv_geometry g;
    memcpy(&g, p, sizeof(g));
    const int32_t f[4] = {p->output_c, p->filter_h, p->filter_w, p->input_c};
    if (!ap_ops_product(f, 4, filter_count)) {
        return AP_OPS_OVERFLOW(error, CONV_OP ": the filter's size overflows");
    }
    ap_status st = conv_geometry_check(&g, *filter_count, CONV_OP, error);
    return st != AP_OK ? st : ap_f32_check_range(p->activation_min, p->activation_max, CONV_OP, error);
}

static ap_status dw_check(const ap_depthwise_conv2d_f32_params *p, size_t *filter_count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, DW_OP ": params must not be NULL");
    }
    conv_geometry g;
    memcpy(&g, p, sizeof(g));
    const int32_t f[3] = {p->filter_h, p->filter_w, p->output_c};
    if (!ap_ops_product(f, 3, filter_count)) {
        return AP_OPS_OVERFLOW(error, DW_OP ": the filter's size overflows");
    }
    ap_status st = conv_geometry_check(&g, *filter_count, DW_OP, error);
    if (st == AP_OK && (p->depth_multiplier < 1 || (int64_t)p->input_c * p->depth_multiplier != p->output_c)) {
        return AP_OPS_INVALID(error, DW_OP ": output_c %d must be input_c %d times depth_multiplier %d",
                              (int)p->output_c, (int)p->input_c, (int)p->depth_multiplier);
    }
    return st != AP_OK ? st : ap_f32_check_range(p->activation_min, p->activation_max, DW_OP, error);
}

static void conv_kernel(const ap_conv2d_f32_params *p, const float *x, float *y, const float *w, const float *bias)
{
    const size_t ih = (size_t)p->input_h, iw = (size_t)p->input_w, ic = (size_t)p->input_c;
    const size_t oh = (size_t)p->output_h, ow = (size_t)p->output_w, oc = (size_t)p->output_c;
    const size_t kh = (size_t)p->filter_h, kw = (size_t)p->filter_w;
    for (size_t b = 0; b < (size_t)p->batches; ++b) {
        const float *xb = x + b * ih * iw * ic;
        for (size_t oy = 0; oy < oh; ++oy) {
            const int64_t y0 = (int64_t)oy * p->stride_h - p->pad_h;
            for (size_t ox = 0; ox < ow; ++ox) {
                const int64_t x0 = (int64_t)ox * p->stride_w - p->pad_w;
                float *out = y + ((b * oh + oy) * ow + ox) * oc;
                for (size_t o = 0; o < oc; ++o) {
                    float total = 0.0f;
                    for (size_t fy = 0; fy < kh; ++fy) {
                        const int64_t iy = y0 + (int64_t)fy * p->dilation_h;
                        if (iy < 0 || iy >= (int64_t)ih) {
                            continue;
                        }
                        for (size_t fx = 0; fx < kw; ++fx) {
                            const int64_t ix = x0 + (int64_t)fx * p->dilation_w;
                            if (ix < 0 || ix >= (int64_t)iw) {
                                continue;
                            }
                            const float *xp = xb + ((size_t)iy * iw + (size_t)ix) * ic;
                            const float *wp = w + ((o * kh + fy) * kw + fx) * ic;
                            for (size_t c = 0; c < ic; ++c) {
                                total += xp[c] * wp[c];
                            }
                        }
                    }
                    out[o] = ap_f32_act(total + bias[o], p->activation_min, p->activation_max);
                }
            }
        }
    }
}

static void dw_kernel(const ap_depthwise_conv2d_f32_params *p, const float *x, float *y, const float *w,
                      const float *bias)
{
    const size_t ih = (size_t)p->input_h, iw = (size_t)p->input_w, ic = (size_t)p->input_c;
    const size_t oh = (size_t)p->output_h, ow = (size_t)p->output_w, oc = (size_t)p->output_c;
    const size_t kh = (size_t)p->filter_h, kw = (size_t)p->filter_w, mult = (size_t)p->depth_multiplier;
    for (size_t b = 0; b < (size_t)p->batches; ++b) {
        const float *xb = x + b * ih * iw * ic;
        for (size_t oy = 0; oy < oh; ++oy) {
            const int64_t y0 = (int64_t)oy * p->stride_h - p->pad_h;
            for (size_t ox = 0; ox < ow; ++ox) {
                const int64_t x0 = (int64_t)ox * p->stride_w - p->pad_w;
                float *out = y + ((b * oh + oy) * ow + ox) * oc;
                for (size_t c = 0; c < ic; ++c) {
                    for (size_t m = 0; m < mult; ++m) {
                        const size_t o = c * mult + m;
                        float total = 0.0f;
                        for (size_t fy = 0; fy < kh; ++fy) {
                            const int64_t iy = y0 + (int64_t)fy * p->dilation_h;
                            if (iy < 0 || iy >= (int64_t)ih) {
                                continue;
                            }
                            for (size_t fx = 0; fx < kw; ++fx) {
                                const int64_t ix = x0 + (int64_t)fx * p->dilation_w;
                                if (ix < 0 || ix >= (int64_t)iw) {
                                    continue;
                                }
                                total += xb[((size_t)iy * iw + (size_t)ix) * ic + c] * w[(fy * kw + fx) * oc + o];
                            }
                        }
                        out[o] = ap_f32_act(total + bias[o], p->activation_min, p->activation_max);
                    }
                }
            }
        }
    }
}

F32_WEIGHTED_OP(conv2d, ap_conv2d_f32_params, conv_check, conv_kernel, CONV_OP, p->output_c,
                (uint64_t)p->batches * (uint64_t)p->output_h * (uint64_t)p->output_w)
F32_WEIGHTED_OP(depthwise_conv2d, ap_depthwise_conv2d_f32_params, dw_check, dw_kernel, DW_OP, p->output_c,
                (uint64_t)p->batches * (uint64_t)p->output_h * (uint64_t)p->output_w)

/* ---- TRANSPOSE_CONV ----------------------------------------------------------------------------- */
#define TCONV_OP "TRANSPOSE_CONV float32"

static ap_status tconv_check(const ap_transpose_conv_f32_params *p, size_t *filter_count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, TCONV_OP ": params must not be NULL");
    }
    const int32_t dims[] = {p->batches, p->input_h, p->input_w, p->input_c, p->output_h, p->output_w,
                            p->output_c, p->filter_h, p->filter_w, p->stride_h, p->stride_w};
    for (size_t i = 0; i < sizeof(dims) / sizeof(dims[0]); ++i) {
        if (dims[i] < 1) {
            return AP_OPS_INVALID(error, TCONV_OP ": every dimension and stride must be >= 1 (field %u is %d)",
                                  (unsigned)i, (int)dims[i]);
        }
    }
    if (p->pad_h < 0 || p->pad_w < 0 || (p->has_bias != 0 && p->has_bias != 1)) {
        return AP_OPS_INVALID(error, TCONV_OP ": padding (%d, %d) must be >= 0 and has_bias 0 or 1", (int)p->pad_h,
                              (int)p->pad_w);
    }
    const int32_t f[4] = {p->output_c, p->filter_h, p->filter_w, p->input_c};
    const int32_t in[4] = {p->batches, p->input_h, p->input_w, p->input_c};
    const int32_t out[4] = {p->batches, p->output_h, p->output_w, p->output_c};
    size_t n = 0;
    if (!ap_ops_product(f, 4, filter_count) || *filter_count > SIZE_MAX / sizeof(float) ||
        !ap_ops_product(in, 4, &n) || n > SIZE_MAX / sizeof(float) || !ap_ops_product(out, 4, &n) ||
        n > SIZE_MAX / sizeof(float)) {
        return AP_OPS_OVERFLOW(error, TCONV_OP ": the tensors' sizes overflow");
    }
    return ap_f32_check_range(p->activation_min, p->activation_max, TCONV_OP, error);
}

static void tconv_kernel(const ap_transpose_conv_f32_params *p, const float *x, float *y, const float *w,
                         const float *bias)
{
    const size_t ih = (size_t)p->input_h, iw = (size_t)p->input_w, ic = (size_t)p->input_c;
    const size_t oh = (size_t)p->output_h, ow = (size_t)p->output_w, oc = (size_t)p->output_c;
    const size_t kh = (size_t)p->filter_h, kw = (size_t)p->filter_w, total = (size_t)p->batches * oh * ow * oc;
    for (size_t i = 0; i < total; ++i) {
        y[i] = 0.0f;
    }
    for (size_t b = 0; b < (size_t)p->batches; ++b) {
        float *yb = y + b * oh * ow * oc;
        for (size_t iy = 0; iy < ih; ++iy) {
            const int64_t y0 = (int64_t)iy * p->stride_h - p->pad_h;
            for (size_t ix = 0; ix < iw; ++ix) {
                const int64_t x0 = (int64_t)ix * p->stride_w - p->pad_w;
                const float *xp = x + ((b * ih + iy) * iw + ix) * ic;
                for (size_t c = 0; c < ic; ++c) {
                    const float v = xp[c];
                    for (size_t fy = 0; fy < kh; ++fy) {
                        const int64_t oy = y0 + (int64_t)fy;
                        if (oy < 0 || oy >= (int64_t)oh) {
                            continue;
                        }
                        for (size_t fx = 0; fx < kw; ++fx) {
                            const int64_t ox = x0 + (int64_t)fx;
                            if (ox < 0 || ox >= (int64_t)ow) {
                                continue;
                            }
                            float *out = yb + ((size_t)oy * ow + (size_t)ox) * oc;
                            for (size_t o = 0; o < oc; ++o) {
                                out[o] += v * w[((o * kh + fy) * kw + fx) * ic + c];
                            }
                        }
                    }
                }
            }
        }
    }
    for (size_t i = 0; i < total; ++i) {
        const float acc = p->has_bias ? y[i] + bias[i % oc] : y[i];
        y[i] = ap_f32_act(acc, p->activation_min, p->activation_max);
    }
}

F32_WEIGHTED_OP(transpose_conv, ap_transpose_conv_f32_params, tconv_check, tconv_kernel, TCONV_OP, p->output_c,
                (uint64_t)p->batches * (uint64_t)p->input_h * (uint64_t)p->input_w)
