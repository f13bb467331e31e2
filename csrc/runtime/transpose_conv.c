/* TRANSPOSE_CONV (arenaplan/ops.h), int8 and 16x8: TFLite's reference_integer_ops::TransposeConv.
   Every input pixel scatters input * filter into the outputs its filter window covers; each
   output then adds its bias and is requantised. Two variants give the same sums: "gather"
   computes each output from the inputs that reach it (no scratch), "scatter" is the reference's
   form (an accumulator per output element in scratch). The int32 sums of the int8 and the
   int32-bias 16x8 forms wrap as TFLite's int32 arithmetic does; wrapping is modular, so the
   order of the sum does not change it. */
#include "arenaplan/ops.h"

#include "ops_s16_common.h"

#define TC_OP "transpose_conv"

/* The window fields of the params in check order, and their names for the messages. */
static const char *const tc_field_names[13] = {"batches", "input_h", "input_w", "input_c", "output_h", "output_w",
                                               "output_c", "filter_h", "filter_w", "stride_h", "stride_w",
                                               "pad_h", "pad_w"};

static size_t tc_taps(const ap_transpose_conv_params *p)
{
    return (size_t)p->filter_h * (size_t)p->filter_w * (size_t)p->input_c;
}

/* The params of either row: positive sizes and strides, pads in [0, filter), the scattered
   output coordinates within int32, sizes within size_t, and the requantisation of the row's
   types (int8: an int8 output offset and clamp, 32-bit sums; 16x8: offset 0, an int16 clamp,
   32- or 64-bit sums). */
static ap_status tc_check(const ap_transpose_conv_params *p, int s16, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, TC_OP ": params must not be NULL");
    }
    const int32_t g[13] = {p->batches, p->input_h, p->input_w, p->input_c, p->output_h, p->output_w, p->output_c,
                           p->filter_h, p->filter_w, p->stride_h, p->stride_w, p->pad_h, p->pad_w};
    for (int i = 0; i < 11; ++i) {
        if (g[i] < 1) {
            return AP_OPS_INVALID(error, TC_OP ": %s is %d; every size and stride must be >= 1", tc_field_names[i],
                                  (int)g[i]);
        }
    }
    if (p->pad_h < 0 || p->pad_h >= p->filter_h || p->pad_w < 0 || p->pad_w >= p->filter_w) {
        return AP_OPS_INVALID(error, TC_OP ": padding (%d, %d) must lie in [0, filter) for a %d x %d filter",
                              (int)p->pad_h, (int)p->pad_w, (int)p->filter_h, (int)p->filter_w);
    }
    if ((int64_t)p->input_h * p->stride_h + p->filter_h > INT32_MAX ||
        (int64_t)p->input_w * p->stride_w + p->filter_w > INT32_MAX ||
        (int64_t)p->output_h + p->pad_h > INT32_MAX || (int64_t)p->output_w + p->pad_w > INT32_MAX) {
        return AP_OPS_OVERFLOW(error, TC_OP ": the scattered output coordinates overflow int32");
    }
    size_t n = 0;
    const int32_t in_dims[4] = {p->batches, p->input_h, p->input_w, p->input_c};
    const int32_t out_dims[4] = {p->batches, p->output_h, p->output_w, p->output_c};
    if (!ap_ops_product(in_dims, 4, &n) || !ap_ops_product(out_dims, 4, &n) || n > SIZE_MAX / 8) {
        return AP_OPS_OVERFLOW(error, TC_OP ": a tensor's size overflows size_t");
    }
    if (!ap_s16_taps_within(p->filter_h, p->filter_w, p->input_c)) {
        return AP_OPS_UNSUPPORTED(error, TC_OP ": %d x %d x %d filter taps exceed 2^24", (int)p->filter_h,
                                  (int)p->filter_w, (int)p->input_c);
    }
    if (s16) {
        if (p->input_offset != 0) {
            return AP_OPS_INVALID(error, TC_OP ": input_offset %d must be 0 for int16 input (zero point 0)",
                                  (int)p->input_offset);
        }
        return ap_s16_check_requant(&p->requant, p->output_c, p->accumulator_bits, TC_OP, error);
    }
    if (!ap_ops_input_offset_ok(p->input_offset)) {
        return AP_OPS_INVALID(error, TC_OP ": input_offset %d is outside [-127, 128]", (int)p->input_offset);
    }
    if (p->accumulator_bits != 32) {
        return AP_OPS_INVALID(error, TC_OP ": accumulator_bits %d must be 32 for int8 input",
                              (int)p->accumulator_bits);
    }
    return ap_ops_check_requant(&p->requant, p->output_c, 31, TC_OP, error);
}

/* Bytes of the scatter variant's scratch: one accumulator per output element, int32 for
   32-bit sums, int64 for 64-bit ones. */
static int tc_scatter_bytes(const ap_transpose_conv_params *p, size_t *bytes)
{
    const int32_t out_dims[4] = {p->batches, p->output_h, p->output_w, p->output_c};
    return ap_ops_product(out_dims, 4, bytes) && ap_ops_mul(*bytes, p->accumulator_bits == 64 ? 8 : 4, bytes);
}

static ap_status tc_variants(const ap_transpose_conv_params *p, int s16, ap_isa isa, ap_variant *variants_out,
                             uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    ap_status st = tc_check(p, s16, error_out);
    if (st != AP_OK) {
        return st;
    }
    size_t inputs = 0, bytes[1] = {0};
    const size_t align[1] = {8};
    const int32_t in_dims[3] = {p->batches, p->input_h, p->input_w};
    ap_ops_product(in_dims, 3, &inputs);
    const uint64_t macs = (uint64_t)inputs * (uint64_t)tc_taps(p) * (uint64_t)p->output_c;
    ap_variant found[2];
    uint32_t n = 0;
    ap_ops_variant_set(&found[n++], AP_TRANSPOSE_CONV_GATHER, 0, "gather", 0, NULL, NULL, macs, 0);
    if (tc_scatter_bytes(p, &bytes[0])) {
        ap_ops_variant_set(&found[n++], AP_TRANSPOSE_CONV_SCATTER, 0, "scatter", 1, bytes, align, macs, 0);
    }
    return ap_ops_variants_out(found, n, isa, variants_out, capacity, count_out, TC_OP, error_out);
}

ap_status ap_transpose_conv_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                        uint32_t *count_out, ap_error *error_out)
{
    return tc_variants(params, 0, isa, variants_out, capacity, count_out, error_out);
}

ap_status ap_transpose_conv_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                         uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    return tc_variants(params, 1, isa, variants_out, capacity, count_out, error_out);
}

static ap_status tc_counts(const ap_transpose_conv_params *p, int s16, size_t *filter_count_out,
                           size_t *bias_count_out, ap_error *error_out)
{
    ap_status st = tc_check(p, s16, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (filter_count_out == NULL || bias_count_out == NULL) {
        return AP_OPS_INVALID(error_out, TC_OP ": the count out-parameters must not be NULL");
    }
    if (!ap_ops_mul(tc_taps(p), (size_t)p->output_c, filter_count_out)) {
        return AP_OPS_OVERFLOW(error_out, TC_OP ": the filter's size overflows");
    }
    *bias_count_out = (size_t)p->output_c;
    return AP_OK;
}

ap_status ap_transpose_conv_s8_constant_counts(const void *params, size_t *filter_count_out, size_t *bias_count_out,
                                               ap_error *error_out)
{
    return tc_counts(params, 0, filter_count_out, bias_count_out, error_out);
}

ap_status ap_transpose_conv_s16_constant_counts(const void *params, size_t *filter_count_out,
                                                size_t *bias_count_out, ap_error *error_out)
{
    return tc_counts(params, 1, filter_count_out, bias_count_out, error_out);
}

/* The blob of either row is the 16x8 ops' layout (a header, int64 biases, the OHWI filter):
   int8's int32 biases are widened when it is written. */
static ap_status tc_prepared_size(const void *params, int s16, size_t *bytes_out, ap_error *error_out)
{
    size_t filters = 0, biases = 0;
    ap_status st = tc_counts(params, s16, &filters, &biases, error_out);
    return st != AP_OK ? st : ap_s16_blob_bytes(biases, filters, bytes_out, TC_OP, error_out);
}

ap_status ap_transpose_conv_s8_prepared_size(const void *params, ap_isa isa, size_t *bytes_out, ap_error *error_out)
{
    (void)isa;
    return tc_prepared_size(params, 0, bytes_out, error_out);
}

ap_status ap_transpose_conv_s16_prepared_size(const void *params, ap_isa isa, size_t *bytes_out,
                                              ap_error *error_out)
{
    (void)isa;
    return tc_prepared_size(params, 1, bytes_out, error_out);
}

ap_status ap_transpose_conv_s8_prepare(const void *params, ap_isa isa, const void *filter, const void *bias,
                                       void *prepared_out, size_t prepared_bytes, ap_error *error_out)
{
    size_t filters = 0, biases = 0, need = 0;
    ap_status st = tc_counts(params, 0, &filters, &biases, error_out);
    st = st != AP_OK ? st : ap_s16_blob_bytes(biases, filters, &need, TC_OP, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (filter == NULL || prepared_out == NULL) {
        return AP_OPS_INVALID(error_out, TC_OP ": filter and prepared_out must not be NULL");
    }
    if (prepared_bytes < need) {
        return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, need, prepared_bytes,
                           TC_OP ": the prepared blob needs %llu bytes, got %llu", (unsigned long long)need,
                           (unsigned long long)prepared_bytes);
    }
    /* write the 16x8 layout with no bias, then the widened int32 biases over its zeros */
    st = ap_s16_blob_write(biases, filters, 32, isa, filter, NULL, prepared_out, prepared_bytes, TC_OP, error_out);
    if (st != AP_OK || bias == NULL) {
        return st;
    }
    unsigned char *b = (unsigned char *)prepared_out + AP_S16_BLOB_HEADER;
    for (size_t i = 0; i < biases; ++i) {
        int32_t v32;
        memcpy(&v32, (const unsigned char *)bias + i * 4, sizeof(v32));
        const int64_t v = v32;
        memcpy(b + i * 8, &v, sizeof(v));
    }
    return AP_OK;
}

ap_status ap_transpose_conv_s16_prepare(const void *params, ap_isa isa, const void *filter, const void *bias,
                                        void *prepared_out, size_t prepared_bytes, ap_error *error_out)
{
    size_t filters = 0, biases = 0;
    ap_status st = tc_counts(params, 1, &filters, &biases, error_out);
    if (st != AP_OK) {
        return st;
    }
    const ap_transpose_conv_params *p = params;
    return ap_s16_blob_write(biases, filters, p->accumulator_bits, isa, filter, bias, prepared_out, prepared_bytes,
                             TC_OP, error_out);
}

/* One tap's products over the input channels, sum (x + offset) * w: in int64 for 64-bit sums
   (at most 2^24 products below 2^23: no overflow), else in uint32, the int32 sum wrapping as
   TFLite's does (modular: exact whatever the order). */
#define TC_DOTS(T)                                                                                          \
    static inline int64_t tc_dot64_##T(const T *x, const int8_t *f, size_t n, int32_t offset)              \
    {                                                                                                      \
        int64_t acc = 0;                                                                                   \
        for (size_t c = 0; c < n; ++c) {                                                                   \
            acc += ((int32_t)x[c] + offset) * (int32_t)f[c];                                               \
        }                                                                                                  \
        return acc;                                                                                        \
    }                                                                                                      \
    static inline uint32_t tc_dot32_##T(const T *x, const int8_t *f, size_t n, int32_t offset)             \
    {                                                                                                      \
        uint32_t acc = 0;                                                                                  \
        for (size_t c = 0; c < n; ++c) {                                                                   \
            acc += (uint32_t)(((int32_t)x[c] + offset) * (int32_t)f[c]);                                   \
        }                                                                                                  \
        return acc;                                                                                        \
    }

TC_DOTS(int8_t)
TC_DOTS(int16_t)

/* Where the inputs that reach output (oy, ox) start: input row iy reaches it through tap
   fy = oy + pad_h - iy * stride_h, so the first tap is (oy + pad_h) % stride_h at input row
   (oy + pad_h) / stride_h, each further one stride_h taps on and one row back; likewise across. */
typedef struct tc_reach {
    int32_t fy, iy, fx, ix;
} tc_reach;

/* Sum over the inputs that reach an output (its tc_reach) through filter row `w` (OHWI, one
   output channel). 32-bit sums come back wrapped to int32. */
#define TC_GATHER_DOT(name, T)                                                                              \
    static int64_t name(const ap_transpose_conv_params *p, const T *in, const int8_t *w, int32_t b,          \
                        const tc_reach *r)                                                                 \
    {                                                                                                      \
        int64_t acc64 = 0;                                                                                 \
        uint32_t acc32 = 0;                                                                                \
        const int wide = p->accumulator_bits == 64;                                                        \
        const size_t c_n = (size_t)p->input_c;                                                             \
        for (int32_t fy = r->fy, iy = r->iy; fy < p->filter_h && iy >= 0; fy += p->stride_h, --iy) {      \
            if (iy >= p->input_h) {                                                                        \
                continue;                                                                                  \
            }                                                                                              \
            for (int32_t fx = r->fx, ix = r->ix; fx < p->filter_w && ix >= 0; fx += p->stride_w, --ix) {  \
                if (ix >= p->input_w) {                                                                    \
                    continue;                                                                              \
                }                                                                                          \
                const T *x = in + (((size_t)b * (size_t)p->input_h + (size_t)iy) * (size_t)p->input_w +    \
                                   (size_t)ix) * c_n;                                                      \
                const int8_t *f = w + ((size_t)fy * (size_t)p->filter_w + (size_t)fx) * c_n;              \
                if (wide) {                                                                                \
                    acc64 += tc_dot64_##T(x, f, c_n, p->input_offset);                                     \
                } else {                                                                                   \
                    acc32 += tc_dot32_##T(x, f, c_n, p->input_offset);                                     \
                }                                                                                          \
            }                                                                                              \
        }                                                                                                  \
        return wide ? acc64 : (int64_t)ap_s16_wrap32((int64_t)acc32);                                      \
    }

/* Every input pixel's products added into the accumulators of the outputs it reaches
   (acc: one per output element, uint32 wrapping or int64, zeroed first). */
#define TC_SCATTER(name, T)                                                                                 \
    static void name(const ap_transpose_conv_params *p, const T *in, const int8_t *w, void *acc, int wide) \
    {                                                                                                      \
        const size_t c_n = (size_t)p->input_c, oc_n = (size_t)p->output_c, taps = tc_taps(p);              \
        for (int32_t b = 0; b < p->batches; ++b) {                                                         \
            for (int32_t iy = 0; iy < p->input_h; ++iy) {                                                  \
                for (int32_t ix = 0; ix < p->input_w; ++ix) {                                              \
                    const T *x = in + (((size_t)b * (size_t)p->input_h + (size_t)iy) * (size_t)p->input_w + \
                                       (size_t)ix) * c_n;                                                  \
                    for (int32_t fy = 0; fy < p->filter_h; ++fy) {                                         \
                        const int32_t oy = iy * p->stride_h - p->pad_h + fy;                               \
                        if (oy < 0 || oy >= p->output_h) {                                                 \
                            continue;                                                                      \
                        }                                                                                  \
                        for (int32_t fx = 0; fx < p->filter_w; ++fx) {                                     \
                            const int32_t ox = ix * p->stride_w - p->pad_w + fx;                           \
                            if (ox < 0 || ox >= p->output_w) {                                             \
                                continue;                                                                  \
                            }                                                                              \
                            const size_t o = (((size_t)b * (size_t)p->output_h + (size_t)oy) *             \
                                              (size_t)p->output_w + (size_t)ox) * oc_n;                    \
                            const int8_t *f0 = w + ((size_t)fy * (size_t)p->filter_w + (size_t)fx) * c_n;  \
                            if (wide) {                                                                    \
                                int64_t *a = (int64_t *)acc + o;                                           \
                                for (size_t oc = 0; oc < oc_n; ++oc) {                                     \
                                    a[oc] += tc_dot64_##T(x, f0 + oc * taps, c_n, p->input_offset);         \
                                }                                                                          \
                            } else {                                                                       \
                                uint32_t *a = (uint32_t *)acc + o;                                         \
                                for (size_t oc = 0; oc < oc_n; ++oc) {                                     \
                                    a[oc] += tc_dot32_##T(x, f0 + oc * taps, c_n, p->input_offset);         \
                                }                                                                          \
                            }                                                                              \
                        }                                                                                  \
                    }                                                                                      \
                }                                                                                          \
            }                                                                                              \
        }                                                                                                  \
    }

TC_GATHER_DOT(tc_gather_s8, int8_t)
TC_GATHER_DOT(tc_gather_s16, int16_t)
TC_SCATTER(tc_scatter_s8, int8_t)
TC_SCATTER(tc_scatter_s16, int16_t)

/* One output from its sum (bias included, in int64): the int8 row's int32 requantisation,
   offset and clamp, or the 16x8 row's by accumulator_bits. */
static int32_t tc_requant(const ap_transpose_conv_params *p, int s16, int64_t acc, size_t oc)
{
    const ap_requant *rq = &p->requant;
    const size_t ch = rq->per_channel ? oc : 0;
    if (s16) {
        return ap_s16_requant(acc, p->accumulator_bits, rq->multiplier[ch], rq->shift[ch], rq->activation_min,
                              rq->activation_max);
    }
    const int32_t v = ap_fp_multiply_by_quantized_multiplier(ap_s16_wrap32(acc), rq->multiplier[ch], rq->shift[ch]);
    return ap_ops_clamp(ap_ops_wrap_add(v, rq->output_offset), rq->activation_min, rq->activation_max);
}

static ap_status tc_run(const ap_op_call *call, int s16, ap_error *error_out)
{
    ap_status st = ap_s16_check_call(call, 1, TC_OP, error_out);
    const ap_transpose_conv_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : tc_check(p, s16, error_out);
    size_t filters = 0;
    if (st == AP_OK && !ap_ops_mul(tc_taps(p), (size_t)p->output_c, &filters)) {
        st = AP_OPS_OVERFLOW(error_out, TC_OP ": the filter's size overflows");
    }
    const unsigned char *bias = NULL;
    const int8_t *w = NULL;
    st = st != AP_OK ? st : ap_s16_blob_read(call->prepared, (size_t)p->output_c, filters, &bias, &w, TC_OP,
                                             error_out);
    if (st != AP_OK) {
        return st;
    }
    const int kind = call->variant->kind;
    void *acc = NULL;
    const int wide = p->accumulator_bits == 64;
    if (kind == AP_TRANSPOSE_CONV_SCATTER) {
        size_t need[1] = {0};
        if (!tc_scatter_bytes(p, &need[0])) {
            return AP_OPS_OVERFLOW(error_out, TC_OP ": the scatter scratch size overflows");
        }
        st = ap_ops_check_scratch(TC_OP, call->variant->name, need, 1, call->scratch, call->scratch_count,
                                  error_out);
        if (st != AP_OK) {
            return st;
        }
        acc = call->scratch[0].data;
        if (((uintptr_t)acc & (wide ? 7u : 3u)) != 0) {
            return AP_OPS_INVALID(error_out, TC_OP ": the scatter scratch is not %d-byte aligned", wide ? 8 : 4);
        }
        memset(acc, 0, need[0]);
        if (s16) {
            tc_scatter_s16(p, call->inputs[0], w, acc, wide);
        } else {
            tc_scatter_s8(p, call->inputs[0], w, acc, wide);
        }
    } else if (kind != AP_TRANSPOSE_CONV_GATHER) {
        return AP_OPS_UNSUPPORTED(error_out, TC_OP ": variant kind %d is not one of its kinds", kind);
    }
    const size_t oc_n = (size_t)p->output_c, taps = tc_taps(p);
    size_t o = 0;
    for (int32_t b = 0; b < p->batches; ++b) {
        for (int32_t oy = 0; oy < p->output_h; ++oy) {
            for (int32_t ox = 0; ox < p->output_w; ++ox) {
                const int32_t ty = oy + p->pad_h, tx = ox + p->pad_w;
                const tc_reach r = {ty % p->stride_h, ty / p->stride_h, tx % p->stride_w, tx / p->stride_w};
                for (size_t oc = 0; oc < oc_n; ++oc, ++o) {
                    int64_t sum;
                    if (acc == NULL) {
                        sum = s16 ? tc_gather_s16(p, call->inputs[0], w + oc * taps, b, &r)
                                  : tc_gather_s8(p, call->inputs[0], w + oc * taps, b, &r);
                    } else {
                        sum = wide ? ((const int64_t *)acc)[o] : (int64_t)ap_s16_wrap32(((const uint32_t *)acc)[o]);
                    }
                    const int32_t v = tc_requant(p, s16, sum + ap_s16_bias(bias, oc), oc);
                    if (s16) {
                        ((int16_t *)call->output)[o] = (int16_t)v;
                    } else {
                        ((int8_t *)call->output)[o] = (int8_t)v;
                    }
                }
            }
        }
    }
    return AP_OK;
}

ap_status ap_transpose_conv_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    (void)isa;
    return tc_run(call, 0, error_out);
}

ap_status ap_transpose_conv_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    (void)isa;
    return tc_run(call, 1, error_out);
}
