/*
 * CONV_2D int8: parameter checks, variants, weight preparation, run-time dispatch, and the
 * portable C paths. Semantics: TensorFlow Lite reference_integer_ops::ConvPerChannel.
 *
 * Every variant computes acc = sum_k x'[k] * w[k] + folded_bias, where x' is the im2col value
 * (the input byte, or the input zero point for a padding tap) and folded_bias = bias +
 * input_offset * sum_k w[k] (prepare). That equals TFLite's sum over in-image taps of
 * (x + input_offset) * w + bias: a padding tap adds (zp + input_offset) * w = 0. Sums wrap
 * modulo 2^32 (unsigned arithmetic), so they equal TFLite's int32 result whenever that one
 * does not overflow (where TFLite's behaviour is undefined).
 */
#include "arenaplan/conv2d.h"

#include <stdio.h>
#include <string.h>

#include "conv2d_s8_internal.h"
#include "fixedpoint.h"
#include "message.h"
#include "ops_s8_common.h"
#include "requant_arm_dsp.h"

/* ------------------------------------------------------------------------------------------ */
/* Checked sizes (errors and checked add/multiply: ops_s8_common.h)                             */

static int ap_conv2d_round4(size_t a, size_t *out)
{
    if (!ap_ops_add(a, 3, out)) {
        return 0;
    }
    *out &= ~(size_t)3;
    return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* Shapes                                                                                      */

/* Sizes derived from valid shapes. */
typedef struct ap_conv2d_geom {
    size_t k, k_pad, oc, oc_pad, pixels, in_image, input_bytes, output_bytes, prepared_bytes;
    uint64_t macs;
    int strip_ok;                   /* strip16's shapes (any ISA's answer; arm-dsp runs it) */
    ap_conv2d_strip_layout strip;   /* its layout where strip_ok */
} ap_conv2d_geom;

static ap_status ap_conv2d_check_axis(const char *axis, int32_t in, int32_t out, int32_t filter,
                                      int32_t stride, int32_t dilation, int32_t pad,
                                      ap_error *error)
{
    const ap_ops_window_axis a = ap_ops_window_axis_of(in, out, filter, stride, dilation, pad);
    const int64_t effective = a.span;
    /* Coordinates y * stride - pad + f * dilation stay within [-effective, in + effective]. */
    if (effective > INT32_MAX || (int64_t)in + 2 * effective > INT32_MAX) {
        return ap_ops_fail(error, AP_ERR_OVERFLOW, AP_SUBJECT_ARGUMENT, -1, 0, 0,
                              "conv2d: input_%s %d with dilated filter_%s %lld exceeds int32 coordinates",
                              axis, (int)in, axis, (long long)effective);
    }
    if (pad >= effective) {
        return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, 0, 0,
                              "conv2d: pad_%s %d must be below the dilated filter_%s %lld",
                              axis, (int)pad, axis, (long long)effective);
    }
    {
        const int64_t bottom = a.far;
        if (bottom < 1 - (int64_t)stride || bottom > effective - 1) {
            return ap_ops_fail(
                error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, 0, 0,
                "conv2d: output_%s %d does not match input_%s %d, dilated filter %lld, stride %d, "
                "pad %d (implied far padding %lld, must be in [%lld, %lld])",
                axis, (int)out, axis, (int)in, (long long)effective, (int)stride, (int)pad,
                (long long)bottom, (long long)(1 - (int64_t)stride), (long long)(effective - 1));
        }
    }
    return AP_OK;
}

static ap_status ap_conv2d_check_shapes(const ap_conv2d_params *p, ap_conv2d_geom *g,
                                        ap_error *error)
{
    static const char *const names[] = {"batches", "input_h", "input_w", "input_c", "output_h",
                                        "output_w", "output_c", "filter_h", "filter_w",
                                        "stride_h", "stride_w", "dilation_h", "dilation_w"};
    ap_status status;
    size_t t;
    memset(g, 0, sizeof(*g));
    if (p == NULL) {
        return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, 0, 0, 0,
                              "conv2d: params is NULL");
    }
    {
        const int32_t values[] = {p->batches, p->input_h, p->input_w, p->input_c, p->output_h,
                                  p->output_w, p->output_c, p->filter_h, p->filter_w,
                                  p->stride_h, p->stride_w, p->dilation_h, p->dilation_w};
        size_t i;
        for (i = 0; i < sizeof(values) / sizeof(values[0]); ++i) {
            if (values[i] < 1) {
                return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, 0,
                                      0, "conv2d: %s must be >= 1 (got %d)", names[i],
                                      (int)values[i]);
            }
        }
    }
    if (p->pad_h < 0 || p->pad_w < 0) {
        return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, 0, 0,
                              "conv2d: pad_h and pad_w must be >= 0 (got %d, %d)",
                              (int)p->pad_h, (int)p->pad_w);
    }
    status = ap_conv2d_check_axis("h", p->input_h, p->output_h, p->filter_h, p->stride_h,
                                  p->dilation_h, p->pad_h, error);
    if (status != AP_OK) {
        return status;
    }
    status = ap_conv2d_check_axis("w", p->input_w, p->output_w, p->filter_w, p->stride_w,
                                  p->dilation_w, p->pad_w, error);
    if (status != AP_OK) {
        return status;
    }
    if (!ap_ops_mul((size_t)p->filter_h, (size_t)p->filter_w, &t) ||
        !ap_ops_mul(t, (size_t)p->input_c, &g->k) || !ap_conv2d_round4(g->k, &g->k_pad) ||
        !ap_conv2d_round4((size_t)p->output_c, &g->oc_pad) ||
        !ap_ops_mul((size_t)p->output_h, (size_t)p->output_w, &g->pixels) ||
        !ap_ops_mul((size_t)p->input_h, (size_t)p->input_w, &t) ||
        !ap_ops_mul(t, (size_t)p->input_c, &g->in_image) ||
        !ap_ops_mul(g->in_image, (size_t)p->batches, &g->input_bytes) ||
        !ap_ops_mul(g->pixels, (size_t)p->output_c, &t) ||
        !ap_ops_mul(t, (size_t)p->batches, &g->output_bytes) ||
        !ap_ops_mul(g->oc_pad, g->k_pad + 4, &t) ||
        !ap_ops_add(t, AP_CONV2D_PREPARED_HEADER_BYTES, &g->prepared_bytes) ||
        !ap_ops_mul(g->output_bytes, g->k, &t)) {
        return ap_ops_fail(error, AP_ERR_OVERFLOW, AP_SUBJECT_ARGUMENT, -1, 0, 0,
                              "conv2d: tensor or weight sizes overflow size_t");
    }
    g->macs = (uint64_t)t;
    g->oc = (size_t)p->output_c;
    g->strip_ok = ap_conv2d_strip_layout_of(p, g->oc_pad, &g->strip);
    return AP_OK;
}

static ap_status ap_conv2d_check_input_offset(const ap_conv2d_params *p, ap_error *error)
{
    if (p->input_offset < -127 || p->input_offset > 128) {
        return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, 0, 0,
                              "conv2d: input_offset %d is not minus an int8 zero point ([-127, 128])",
                              (int)p->input_offset);
    }
    return AP_OK;
}

/* conv2d's requantisation takes left shifts up to 30 (the accumulator is shifted before
   the multiply in its tiles): the shared check with that bound. */
static ap_status ap_conv2d_check_requant(const ap_conv2d_params *p, ap_error *error)
{
    return ap_ops_check_requant(&p->requant, p->output_c, 30, "conv2d", error);
}

/* ------------------------------------------------------------------------------------------ */
/* Variants: one "applies?" and one "scratch" function each, used by variants() and run().     */

/* gemm_1x1: ap_conv2d_gemm_1x1_applies (conv2d_s8_internal.h, shared with the AVX2 kernels). */

/* The im2col matrix of a pointwise stride-1 conv is a copy of its input: not worth offering. */
static int ap_conv2d_im2col_applies(const ap_conv2d_params *p)
{
    return !ap_conv2d_gemm_1x1_applies(p);
}

static int ap_conv2d_im2col_rows_applies(const ap_conv2d_params *p, const ap_conv2d_geom *g,
                                         int32_t rows)
{
    return ap_conv2d_im2col_applies(p) && rows >= 1 && (size_t)rows < g->pixels;
}

/* im2col16_rows: the arm-dsp code's own, for every shape, with tiles of 2 or 4 pixels. */
static int ap_conv2d_im2col16_applies(int32_t isa, int32_t cols)
{
    return isa == AP_ISA_ARM_DSP && (cols == 2 || cols == AP_CONV2D_COLS16);
}

/* strip16: the arm-dsp code's own, for layers of few input channels (ap_conv2d_strip_layout_of). */
static int ap_conv2d_strip16_applies(const ap_conv2d_geom *g, int32_t isa, int32_t param)
{
    return isa == AP_ISA_ARM_DSP && param == 0 && g->strip_ok;
}

/* lanes: ap_conv2d_lanes_applies (conv2d_s8_internal.h), over every output pixel of every
   image (the weights are widened once a run). */
static size_t ap_conv2d_total_pixels(const ap_conv2d_params *p, const ap_conv2d_geom *g)
{
    return (size_t)p->batches * g->pixels;   /* <= output bytes, checked */
}

static int ap_conv2d_applies(const ap_conv2d_params *p, const ap_conv2d_geom *g, int32_t isa,
                             int32_t kind, int32_t param)
{
    switch (kind) {
    case AP_CONV2D_LANES:
        return param == 0 && ap_conv2d_lanes_applies(isa, g->k, (size_t)p->output_c,
                                                     ap_conv2d_total_pixels(p, g));
    case AP_CONV2D_IM2COL16_ROWS: return ap_conv2d_im2col16_applies(isa, param);
    case AP_CONV2D_IM2COL16W_ROWS: return isa == AP_ISA_ARM_DSP && param == AP_CONV2D_COLS16;
    case AP_CONV2D_STRIP16: return ap_conv2d_strip16_applies(g, isa, param);
    case AP_CONV2D_DIRECT: return 1;
    case AP_CONV2D_GEMM_1X1: return ap_conv2d_gemm_1x1_applies(p);
    case AP_CONV2D_IM2COL_ROWS: return ap_conv2d_im2col_rows_applies(p, g, param);
    case AP_CONV2D_IM2COL: return ap_conv2d_im2col_applies(p);
    default: return 0;
    }
}

/* Scratch bytes of a variant that applies (one buffer; 0 = none). */
static int ap_conv2d_scratch_bytes(const ap_conv2d_geom *g, int32_t kind, int32_t param,
                                   size_t *bytes_out)
{
    switch (kind) {
    case AP_CONV2D_IM2COL_ROWS: return ap_ops_mul((size_t)param, g->k_pad, bytes_out);
    case AP_CONV2D_IM2COL: return ap_ops_mul(g->pixels, g->k_pad, bytes_out);
    case AP_CONV2D_IM2COL16_ROWS: return ap_ops_mul(2 * (size_t)param + 1, g->k_pad, bytes_out);
    case AP_CONV2D_IM2COL16W_ROWS: {
        size_t cols, per_channel, table;
        return ap_ops_mul(2 * (size_t)param + 1, g->k_pad, &cols) &&
               ap_ops_mul(2, g->k_pad, &per_channel) && ap_ops_add(per_channel, 12, &per_channel) &&
               ap_ops_mul(g->oc, per_channel, &table) && ap_ops_add(cols, table, bytes_out);
    }
    case AP_CONV2D_LANES: *bytes_out = ap_conv2d_lanes_scratch(g->k, g->oc_pad); return 1;
    case AP_CONV2D_STRIP16: *bytes_out = g->strip_ok ? g->strip.bytes : 0; return g->strip_ok;
    default: *bytes_out = 0; return 1;
    }
}

enum { AP_CONV2D_SCRATCH_ALIGNMENT = 16 };

static ap_status ap_conv2d_describe(const ap_conv2d_geom *g, int32_t kind, int32_t param,
                                    ap_variant *v, ap_error *error)
{
    size_t bytes;
    memset(v, 0, sizeof(*v));
    v->kind = kind;
    v->param = param;
    ap_ops_variant_name(v, kind == AP_CONV2D_DIRECT      ? "direct"
                           : kind == AP_CONV2D_GEMM_1X1  ? "gemm_1x1"
                           : kind == AP_CONV2D_IM2COL_ROWS ? "im2col_rows"
                           : kind == AP_CONV2D_IM2COL16_ROWS ? "im2col16_rows"
                           : kind == AP_CONV2D_IM2COL16W_ROWS ? "im2col16w_rows"
                           : kind == AP_CONV2D_LANES     ? "lanes"
                           : kind == AP_CONV2D_STRIP16   ? "strip16"
                                                           : "im2col",
                        param);
    if (kind == AP_CONV2D_IM2COL16_ROWS) {
        /* the tile width picks the micro-kernel (2 x 2 or 4 x 1): each is its own family, with
           figures of its own in the cost models */
        memcpy(v->family, v->name, sizeof(v->family));
    }
    if (!ap_conv2d_scratch_bytes(g, kind, param, &bytes)) {
        return ap_ops_fail(error, AP_ERR_OVERFLOW, AP_SUBJECT_ARGUMENT, -1, 0, 0,
                              "conv2d: scratch size of %s overflows size_t", v->name);
    }
    if (bytes > 0) {
        v->scratch_count = 1;
        v->scratch[0].bytes = bytes;
        v->scratch[0].alignment = AP_CONV2D_SCRATCH_ALIGNMENT;
    }
    v->macs = g->macs;
    v->in_place = 0;
    return AP_OK;
}

/* One variant that applies, before it is described: the list is kept this small so that
   variants() needs no array of AP_MAX_VARIANTS full descriptions on the stack. */
typedef struct ap_conv2d_entry {
    int32_t kind, param;
    size_t scratch;
} ap_conv2d_entry;

static int ap_conv2d_add(const ap_conv2d_geom *g, int32_t kind, int32_t param,
                         ap_conv2d_entry *list, uint32_t *n)
{
    list[*n].kind = kind;
    list[*n].param = param;
    if (!ap_conv2d_scratch_bytes(g, kind, param, &list[*n].scratch)) {
        return 0;
    }
    ++*n;
    return 1;
}

/* Least scratch first, equal ones in the order listed (an insertion sort of a few entries). */
static void ap_conv2d_sort_by_scratch(ap_conv2d_entry *list, uint32_t n)
{
    for (uint32_t i = 1; i < n; ++i) {
        const ap_conv2d_entry v = list[i];
        uint32_t j = i;
        for (; j > 0 && list[j - 1].scratch > v.scratch; --j) {
            list[j] = list[j - 1];
        }
        list[j] = v;
    }
}

ap_status ap_conv2d_s8_variants(const ap_conv2d_params *params, ap_isa isa, ap_variant *variants_out,
                                uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    ap_conv2d_geom g;
    ap_conv2d_entry list[AP_MAX_VARIANTS];
    uint32_t n = 0, i;
    ap_status status;
    int64_t rows;
    int ok;
    ap_error_clear(error_out);
    if (ap_isa_name(isa) == NULL) {
        return AP_OPS_INVALID(error_out, "conv2d: %d is not an instruction set (ap_isa)", (int)isa);
    }
    if (count_out == NULL) {
        return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, 3, 0, 0,
                              "conv2d: count_out is NULL");
    }
    *count_out = 0;
    status = ap_conv2d_check_shapes(params, &g, error_out);
    if (status != AP_OK) {
        return status;
    }
    /* The two scratch-free variants, then growing row blocks, then the rest (sorted below). */
    ok = ap_conv2d_add(&g, AP_CONV2D_DIRECT, 0, list, &n);
    if (ok && ap_conv2d_gemm_1x1_applies(params)) {
        ok = ap_conv2d_add(&g, AP_CONV2D_GEMM_1X1, 0, list, &n);
    }
    /* Row blocks of tile * 4^j pixels: multiples of the ISA's micro-kernel tile; two entries
       stay free for im2col and the ISA's own variants (five on arm-dsp: it has four). */
    for (rows = (int64_t)ap_conv2d_tile_rows(isa);
         ok && rows <= INT32_MAX && n + (isa == AP_ISA_ARM_DSP ? 5u : 2u) < AP_MAX_VARIANTS; rows *= 4) {
        if (!ap_conv2d_im2col_rows_applies(params, &g, (int32_t)rows)) {
            break;
        }
        ok = ap_conv2d_add(&g, AP_CONV2D_IM2COL_ROWS, (int32_t)rows, list, &n);
    }
    if (ok && ap_conv2d_im2col_applies(params)) {
        ok = ap_conv2d_add(&g, AP_CONV2D_IM2COL, 0, list, &n);
    }
    if (ok && ap_conv2d_im2col16_applies(isa, AP_CONV2D_COLS16)) {
        ok = ap_conv2d_add(&g, AP_CONV2D_IM2COL16_ROWS, 2, list, &n) &&
             ap_conv2d_add(&g, AP_CONV2D_IM2COL16_ROWS, AP_CONV2D_COLS16, list, &n) &&
             ap_conv2d_add(&g, AP_CONV2D_IM2COL16W_ROWS, AP_CONV2D_COLS16, list, &n);
        if (ok && ap_conv2d_strip16_applies(&g, (int32_t)isa, 0)) {
            ok = ap_conv2d_add(&g, AP_CONV2D_STRIP16, 0, list, &n);
        }
    } else if (ok && ap_conv2d_applies(params, &g, (int32_t)isa, AP_CONV2D_LANES, 0)) {
        ok = ap_conv2d_add(&g, AP_CONV2D_LANES, 0, list, &n);
    }
    if (!ok) {
        return ap_ops_fail(error_out, AP_ERR_OVERFLOW, AP_SUBJECT_ARGUMENT, -1, 0, 0,
                              "conv2d: scratch size of variant kind %d param %d overflows size_t",
                              (int)list[n].kind, (int)list[n].param);
    }
    ap_conv2d_sort_by_scratch(list, n);
    *count_out = n;
    if (variants_out == NULL && capacity == 0) {
        return AP_OK;
    }
    if (variants_out == NULL || capacity < n) {
        return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, 1, 0, 0,
                              "conv2d: %u variants apply but variants_out holds %u",
                              (unsigned)n, variants_out == NULL ? 0u : (unsigned)capacity);
    }
    /* The ISA's variants: x86-avx2 runs SIMD code inside the portable list and adds lanes;
       arm-dsp has its own row tile and im2col16_rows. */
    for (i = 0; i < n; ++i) {
        status = ap_conv2d_describe(&g, list[i].kind, list[i].param, &variants_out[i], error_out);
        if (status != AP_OK) {
            return status;   /* not reached: the scratch sizes were computed above */
        }
        variants_out[i].isa = (int32_t)isa;
    }
    return AP_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Prepared blob                                                                                */

/* Header words (int32, host byte order, which is the targets' too: little-endian). */
enum {
    AP_CONV2D_MAGIC = 0x32435041, /* "APC2" */
    AP_CONV2D_VERSION = 1,
    AP_CONV2D_HEADER_WORDS = 11
};

/* words[10]: the ISA the blob was packed for. Every ISA reads the one layout below today, so
   run() takes a blob of any ISA (the record says what it was made for). */
static void ap_conv2d_header(const ap_conv2d_params *p, const ap_conv2d_geom *g, int32_t isa,
                             int32_t words[AP_CONV2D_HEADER_WORDS])
{
    words[0] = AP_CONV2D_MAGIC;
    words[1] = AP_CONV2D_VERSION;
    words[2] = p->output_c;
    words[3] = p->filter_h;
    words[4] = p->filter_w;
    words[5] = p->input_c;
    words[6] = p->input_offset;
    words[7] = (int32_t)(g->k & 0x7fffffff);
    words[8] = (int32_t)(g->k_pad & 0x7fffffff);
    words[9] = (int32_t)(g->oc_pad & 0x7fffffff);
    words[10] = isa;
}

ap_status ap_conv2d_s8_prepared_size(const ap_conv2d_params *params, size_t *bytes_out,
                                     ap_error *error_out)
{
    ap_conv2d_geom g;
    ap_status status;
    ap_error_clear(error_out);
    if (bytes_out == NULL) {
        return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, 1, 0, 0,
                              "conv2d: bytes_out is NULL");
    }
    status = ap_conv2d_check_shapes(params, &g, error_out);
    if (status != AP_OK) {
        return status;
    }
    *bytes_out = g.prepared_bytes;
    return AP_OK;
}

ap_status ap_conv2d_s8_prepare(const ap_conv2d_params *params, ap_isa isa, const int8_t *filter,
                               const int32_t *bias, void *prepared_out, size_t prepared_bytes,
                               ap_error *error_out)
{
    ap_conv2d_geom g;
    ap_status status;
    int32_t header[AP_CONV2D_HEADER_WORDS];
    unsigned char *blob = (unsigned char *)prepared_out;
    int32_t *folded;
    int8_t *packed;
    size_t oc, k;
    ap_error_clear(error_out);
    if (ap_isa_name(isa) == NULL) {
        return AP_OPS_INVALID(error_out, "conv2d: %d is not an instruction set (ap_isa)", (int)isa);
    }
    status = ap_conv2d_check_shapes(params, &g, error_out);
    if (status != AP_OK) {
        return status;
    }
    status = ap_conv2d_check_input_offset(params, error_out);
    if (status != AP_OK) {
        return status;
    }
    if (filter == NULL || prepared_out == NULL) {
        return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT,
                              filter == NULL ? 1 : 3, 0, 0, "conv2d: %s is NULL",
                              filter == NULL ? "filter" : "prepared_out");
    }
    if ((uintptr_t)prepared_out % AP_CONV2D_PREPARED_ALIGNMENT != 0) {
        return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, 3, 0, 0,
                              "conv2d: prepared_out must be %d-byte aligned",
                              (int)AP_CONV2D_PREPARED_ALIGNMENT);
    }
    if (prepared_bytes < g.prepared_bytes) {
        return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, 4,
                              g.prepared_bytes, prepared_bytes,
                              "conv2d: prepared buffer has %llu bytes, needs %llu",
                              (unsigned long long)prepared_bytes,
                              (unsigned long long)g.prepared_bytes);
    }
    memset(blob, 0, g.prepared_bytes);
    ap_conv2d_header(params, &g, (int32_t)isa, header);
    memcpy(blob, header, sizeof(header));
    folded = (int32_t *)(void *)(blob + AP_CONV2D_PREPARED_HEADER_BYTES);
    packed = (int8_t *)(blob + AP_CONV2D_PREPARED_HEADER_BYTES + 4 * g.oc_pad);
    for (oc = 0; oc < (size_t)params->output_c; ++oc) {
        const int8_t *row = filter + oc * g.k;
        int8_t *block = packed + (oc / AP_CONV2D_OB) * (AP_CONV2D_OB * g.k_pad) +
                        (oc % AP_CONV2D_OB) * AP_CONV2D_KB;
        int64_t sum = 0;
        for (k = 0; k < g.k; ++k) {
            sum += row[k];
            block[(k / AP_CONV2D_KB) * (AP_CONV2D_OB * AP_CONV2D_KB) + k % AP_CONV2D_KB] = row[k];
        }
        /* Wrap to int32 as TFLite's int32 accumulator would. */
        folded[oc] = (int32_t)(uint32_t)((uint64_t)(bias != NULL ? bias[oc] : 0) +
                                         (uint64_t)((int64_t)params->input_offset * sum));
    }
    return AP_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Portable kernels                                                                            */

/* Copies and fills of a few bytes (first layers: 1-3 channels) inline; libc for longer ones.
   A libc call per 3-byte tap would cost more than the tap's multiply-adds. */
static void ap_conv2d_copy(int8_t *dst, const int8_t *src, size_t n)
{
    if (n > 16) {
        memcpy(dst, src, n);
        return;
    }
    while (n-- > 0) {
        *dst++ = *src++;
    }
}

static void ap_conv2d_fill(int8_t *dst, int8_t value, size_t n)
{
    if (n > 16) {
        memset(dst, value, n);
        return;
    }
    while (n-- > 0) {
        *dst++ = value;
    }
}

void ap_conv2d_s8_gather(const ap_conv2d_ctx *c, size_t pixel, int8_t *dst)
{
    const ap_conv2d_params *p = c->p;
    const size_t ic = (size_t)p->input_c;
    const size_t row_bytes = (size_t)p->filter_w * ic;
    const size_t image = pixel / c->pixels;
    const size_t rest = pixel % c->pixels;
    const int32_t iy0 = (int32_t)(rest / (size_t)p->output_w) * p->stride_h - p->pad_h;
    const int32_t ix0 = (int32_t)(rest % (size_t)p->output_w) * p->stride_w - p->pad_w;
    const int8_t *img = c->input + image * c->in_image;
    /* Filter columns inside the image: fx in [fx_lo, fx_hi) (dilation_w == 1 only). */
    const int32_t fx_lo = ix0 < 0 ? -ix0 : 0;
    const int32_t fx_hi = p->input_w - ix0 < p->filter_w ? p->input_w - ix0 : p->filter_w;
    int32_t fy, fx;
    for (fy = 0; fy < p->filter_h; ++fy, dst += row_bytes) {
        const int32_t iy = iy0 + fy * p->dilation_h;
        const int8_t *row;
        if (iy < 0 || iy >= p->input_h) {
            ap_conv2d_fill(dst, c->pad_value, row_bytes);
            continue;
        }
        row = img + (size_t)iy * (size_t)p->input_w * ic;
        if (p->dilation_w == 1) {
            /* The taps of one filter row inside the image are contiguous in the input. */
            if (fx_hi <= fx_lo) {
                ap_conv2d_fill(dst, c->pad_value, row_bytes);
                continue;
            }
            ap_conv2d_fill(dst, c->pad_value, (size_t)fx_lo * ic);
            ap_conv2d_copy(dst + (size_t)fx_lo * ic, row + (size_t)(ix0 + fx_lo) * ic,
                           (size_t)(fx_hi - fx_lo) * ic);
            ap_conv2d_fill(dst + (size_t)fx_hi * ic, c->pad_value,
                           (size_t)(p->filter_w - fx_hi) * ic);
            continue;
        }
        for (fx = 0; fx < p->filter_w; ++fx) {
            const int32_t ix = ix0 + fx * p->dilation_w;
            if (ix < 0 || ix >= p->input_w) {
                ap_conv2d_fill(dst + (size_t)fx * ic, c->pad_value, ic);
            } else {
                ap_conv2d_copy(dst + (size_t)fx * ic, row + (size_t)ix * ic, ic);
            }
        }
    }
    /* k_pad - k tail: zero (its weights are zero too; any value would do). */
    ap_conv2d_fill(dst, 0, c->k_pad - c->k);
}


/* One portable micro-kernel call: up to MR rows x up to NR channels from oc0, whole k. */
typedef struct ap_conv2d_tile {
    const int8_t *const *a; /* MR rows of k_pad bytes (rows past mr repeat a valid one) */
    size_t mr;
    const int8_t *w;        /* packed block of channel oc0 */
    size_t oc0, nc;         /* nc in 1..NR */
    int8_t *out;            /* row 0 at channel oc0; rows ctx->oc apart */
} ap_conv2d_tile;

static void ap_conv2d_tile_portable(const ap_conv2d_ctx *c, const ap_conv2d_tile *t)
{
    const size_t blocks = (t->nc + AP_CONV2D_OB - 1) / AP_CONV2D_OB;
    const size_t k4 = c->k_pad / AP_CONV2D_KB;
    uint32_t acc[AP_CONV2D_MR][AP_CONV2D_NR];
    size_t r, j, b;
    for (b = 0; b < blocks; ++b) {
        /* 3 rows x 4 channels: each weight load serves three rows (rows past mr repeat one). */
        const int8_t *w = t->w + b * c->w_block_stride;
        const int8_t *a0 = t->a[0], *a1 = t->a[1], *a2 = t->a[2];
        uint32_t s[AP_CONV2D_MR][AP_CONV2D_OB] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
        size_t g;
        for (g = 0; g < k4; ++g, a0 += 4, a1 += 4, a2 += 4, w += 16) {
            for (j = 0; j < AP_CONV2D_OB; ++j) {
                const int32_t w0 = w[4 * j], w1 = w[4 * j + 1], w2 = w[4 * j + 2], w3 = w[4 * j + 3];
                s[0][j] += (uint32_t)(a0[0] * w0 + a0[1] * w1 + a0[2] * w2 + a0[3] * w3);
                s[1][j] += (uint32_t)(a1[0] * w0 + a1[1] * w1 + a1[2] * w2 + a1[3] * w3);
                s[2][j] += (uint32_t)(a2[0] * w0 + a2[1] * w1 + a2[2] * w2 + a2[3] * w3);
            }
        }
        for (r = 0; r < AP_CONV2D_MR; ++r) {
            for (j = 0; j < AP_CONV2D_OB; ++j) {
                acc[r][AP_CONV2D_OB * b + j] = s[r][j];
            }
        }
    }
    for (r = 0; r < t->mr; ++r) {
        for (j = 0; j < t->nc; ++j) {
            t->out[r * c->oc + j] = ap_conv2d_requant1(c, t->oc0 + j, acc[r][j]);
        }
    }
}

static void ap_conv2d_rows_portable(const ap_conv2d_ctx *c, const int8_t *const *a, size_t mr,
                                    int8_t *out)
{
    ap_conv2d_tile t;
    size_t oc0;
    t.a = a;
    t.mr = mr;
    for (oc0 = 0; oc0 < c->oc; oc0 += AP_CONV2D_NR) {
        t.oc0 = oc0;
        t.nc = c->oc - oc0 < AP_CONV2D_NR ? c->oc - oc0 : AP_CONV2D_NR;
        t.w = c->weights + (oc0 / AP_CONV2D_OB) * c->w_block_stride;
        t.out = out + oc0;
        ap_conv2d_tile_portable(c, &t);
    }
}

/* The scratch-free direct conv for any CPU: no buffer at all, one pixel and 4 channels at a time. */
static void ap_conv2d_direct_portable(const ap_conv2d_ctx *c, ap_conv2d_rows_fn rows,
                                      size_t pixel_begin, size_t pixel_end)
{
    const ap_conv2d_params *p = c->p;
    const size_t ic = (size_t)p->input_c;
    size_t pixel;
    (void)rows;
    for (pixel = pixel_begin; pixel < pixel_end; ++pixel) {
        const size_t image = pixel / c->pixels, rest = pixel % c->pixels;
        const int32_t iy0 = (int32_t)(rest / (size_t)p->output_w) * p->stride_h - p->pad_h;
        const int32_t ix0 = (int32_t)(rest % (size_t)p->output_w) * p->stride_w - p->pad_w;
        const int8_t *img = c->input + image * c->in_image;
        size_t block;
        for (block = 0; block < c->oc_pad / AP_CONV2D_OB; ++block) {
            const int8_t *w = c->weights + block * c->w_block_stride;
            uint32_t s[AP_CONV2D_OB] = {0, 0, 0, 0};
            size_t k = 0, j, nc;
            int32_t fy, fx;
            for (fy = 0; fy < p->filter_h; ++fy) {
                const int32_t iy = iy0 + fy * p->dilation_h;
                for (fx = 0; fx < p->filter_w; ++fx) {
                    const int32_t ix = ix0 + fx * p->dilation_w;
                    const int inside = iy >= 0 && iy < p->input_h && ix >= 0 && ix < p->input_w;
                    const int8_t *src =
                        inside ? img + ((size_t)iy * (size_t)p->input_w + (size_t)ix) * ic : NULL;
                    size_t ch;
                    for (ch = 0; ch < ic; ++ch, ++k) {
                        const int32_t x = inside ? src[ch] : c->pad_value;
                        const int8_t *wk = w + (k / AP_CONV2D_KB) * 16 + k % AP_CONV2D_KB;
                        s[0] += (uint32_t)(x * wk[0]);
                        s[1] += (uint32_t)(x * wk[4]);
                        s[2] += (uint32_t)(x * wk[8]);
                        s[3] += (uint32_t)(x * wk[12]);
                    }
                }
            }
            nc = c->oc - block * AP_CONV2D_OB;
            nc = nc < AP_CONV2D_OB ? nc : AP_CONV2D_OB;
            for (j = 0; j < nc; ++j) {
                c->output[pixel * c->oc + block * AP_CONV2D_OB + j] =
                    ap_conv2d_requant1(c, block * AP_CONV2D_OB + j, s[j]);
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Drivers shared by every SIMD level (they call the level's rows function)                   */

enum {
    AP_CONV2D_DIRECT_KC = 576 /* longest im2col row direct gathers on the stack (SIMD levels):
                                 3 rows, 1.7 KiB; 3x3x64, ResNet-8's largest */
};

/* out[rows][oc] = requant(a[rows][k_pad] * W), tile (<= AP_CONV2D_MR) rows at a time. */
static void ap_conv2d_gemm(const ap_conv2d_ctx *c, ap_conv2d_rows_fn rows_fn, size_t tile,
                           const int8_t *a, size_t lda, size_t rows, int8_t *out)
{
    const int8_t *ptr[AP_CONV2D_MR];
    size_t r0, i;
    for (r0 = 0; r0 < rows; r0 += tile) {
        const size_t mr = rows - r0 < tile ? rows - r0 : tile;
        for (i = 0; i < AP_CONV2D_MR; ++i) {
            ptr[i] = a + (r0 + (i < mr ? i : mr - 1)) * lda;
        }
        rows_fn(c, ptr, mr, out + r0 * c->oc);
    }
}

static void ap_conv2d_direct_portable(const ap_conv2d_ctx *c, ap_conv2d_rows_fn rows,
                                      size_t pixel_begin, size_t pixel_end);

#if AP_CONV2D_HAVE_AVX2
/* direct on SIMD levels: im2col of AP_CONV2D_MR pixels at a time on the stack
   (AP_CONV2D_MR * AP_CONV2D_DIRECT_KC bytes at most); longer rows take the portable path. */
static void ap_conv2d_direct_gathered(const ap_conv2d_ctx *c, ap_conv2d_rows_fn rows_fn,
                                      size_t pixel_begin, size_t pixel_end)
{
    int8_t rows[AP_CONV2D_MR][AP_CONV2D_DIRECT_KC];
    const int8_t *ptr[AP_CONV2D_MR];
    size_t p0, i;
    if (c->k_pad > AP_CONV2D_DIRECT_KC) {
        ap_conv2d_direct_portable(c, rows_fn, pixel_begin, pixel_end);
        return;
    }
    for (p0 = pixel_begin; p0 < pixel_end; p0 += AP_CONV2D_MR) {
        const size_t mr = pixel_end - p0 < AP_CONV2D_MR ? pixel_end - p0 : AP_CONV2D_MR;
        for (i = 0; i < AP_CONV2D_MR; ++i) {
            ptr[i] = rows[i < mr ? i : mr - 1];
        }
        for (i = 0; i < mr; ++i) {
            ap_conv2d_s8_gather(c, p0 + i, rows[i]);
        }
        rows_fn(c, ptr, mr, c->output + p0 * c->oc);
    }
}
#endif

/* One SIMD level's implementation of the variants. */
typedef struct ap_conv2d_level {
    ap_conv2d_rows_fn rows;
    size_t tile;   /* rows per call of rows (ap_conv2d_tile_rows) */
    void (*direct)(const ap_conv2d_ctx *c, ap_conv2d_rows_fn rows, size_t pixel_begin,
                   size_t pixel_end);
} ap_conv2d_level;

/* The code of the variant's ISA (ap_isa_check has said this build and CPU run it). */
static ap_conv2d_level ap_conv2d_select_level(int32_t isa)
{
    ap_conv2d_level level;
    level.tile = ap_conv2d_tile_rows(isa);
    if (ap_ops_runs_arm_dsp(isa)) {
        /* direct stays the scratch- and stack-free portable loop: gathering rows for the
           SIMD kernel would take a stack buffer; the im2col rows variants are that, placed */
        level.rows = ap_conv2d_s8_rows_arm_dsp;
        level.direct = ap_conv2d_direct_portable;
        return level;
    }
#if AP_CONV2D_HAVE_AVX2
    if (ap_ops_runs_avx2(isa)) {
        level.rows = ap_conv2d_s8_rows_avx2;
        level.direct = ap_conv2d_direct_gathered;
        return level;
    }
#endif
    level.rows = ap_conv2d_rows_portable;
    level.direct = ap_conv2d_direct_portable;
    return level;
}

static void ap_conv2d_run_im2col(const ap_conv2d_ctx *c, const ap_conv2d_level *level,
                                 size_t block, int8_t *scratch, int32_t batches)
{
    size_t image, p0, i;
    for (image = 0; image < (size_t)batches; ++image) {
        for (p0 = 0; p0 < c->pixels; p0 += block) {
            const size_t rows = c->pixels - p0 < block ? c->pixels - p0 : block;
            const size_t first = image * c->pixels + p0;
            for (i = 0; i < rows; ++i) {
                ap_conv2d_s8_gather(c, first + i, scratch + i * c->k_pad);
            }
            ap_conv2d_gemm(c, level->rows, level->tile, scratch, c->k_pad, rows, c->output + first * c->oc);
        }
    }
}

static void ap_conv2d_run_gemm_1x1(const ap_conv2d_ctx *c, const ap_conv2d_level *level,
                                   size_t total)
{
    /* A row is read as k_pad bytes from input + pixel * input_c: the bytes past input_c
       belong to the next pixels and meet zero weights. The last rows, whose reads would
       run past the input, go through the direct path (only when input_c % 4 != 0). */
    const size_t bytes = total * c->k;
    size_t rows = bytes >= c->k_pad ? (bytes - c->k_pad) / c->k + 1 : 0;
    ap_conv2d_gemm(c, level->rows, level->tile, c->input, c->k, rows, c->output);
    if (rows < total) {
        level->direct(c, level->rows, rows, total);
    }
}

static int ap_conv2d_overlaps(const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return a_bytes > 0 && b_bytes > 0 && x < y + b_bytes && y < x + a_bytes;
}

ap_status ap_conv2d_s8_run(const ap_conv2d_params *params, const ap_variant *variant,
                           const void *prepared, const int8_t *input, int8_t *output,
                           const ap_scratch *scratch, uint32_t scratch_count,
                           ap_error *error_out)
{
    ap_conv2d_geom g;
    ap_conv2d_ctx c;
    ap_conv2d_level level;
    ap_status status;
    int32_t expected[AP_CONV2D_HEADER_WORDS], header[AP_CONV2D_HEADER_WORDS];
    size_t scratch_bytes, total;
    ap_error_clear(error_out);
    status = ap_conv2d_check_shapes(params, &g, error_out);
    if (status != AP_OK) {
        return status;
    }
    if (variant == NULL || prepared == NULL || input == NULL || output == NULL) {
        return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT,
                              variant == NULL ? 1 : prepared == NULL ? 2 : input == NULL ? 3 : 4,
                              0, 0, "conv2d: %s is NULL",
                              variant == NULL    ? "variant"
                              : prepared == NULL ? "prepared"
                              : input == NULL    ? "input"
                                                 : "output");
    }
    status = ap_conv2d_check_input_offset(params, error_out);
    if (status == AP_OK) {
        status = ap_conv2d_check_requant(params, error_out);
    }
    if (status != AP_OK) {
        return status;
    }
    if ((uintptr_t)prepared % AP_CONV2D_PREPARED_ALIGNMENT != 0) {
        return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, 2, 0, 0,
                              "conv2d: prepared must be %d-byte aligned",
                              (int)AP_CONV2D_PREPARED_ALIGNMENT);
    }
    memcpy(header, prepared, sizeof(header));
    ap_conv2d_header(params, &g, header[10], expected);
    if (ap_isa_name(header[10]) == NULL || memcmp(header, expected, sizeof(header)) != 0) {
        return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, 2, 0, 0,
                              "conv2d: prepared data was not made by ap_conv2d_s8_prepare for "
                              "these shapes and input_offset");
    }
    status = ap_isa_check(variant->isa, "conv2d", error_out);
    if (status != AP_OK) {
        return status;
    }
    if (variant->kind < AP_CONV2D_DIRECT || variant->kind > AP_CONV2D_IM2COL16W_ROWS) {
        return ap_ops_fail(error_out, AP_ERR_UNSUPPORTED, AP_SUBJECT_ARGUMENT, 1, 0, 0,
                              "conv2d: unknown variant kind %d", (int)variant->kind);
    }
    if (!ap_conv2d_applies(params, &g, variant->isa, variant->kind, variant->param)) {
        return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, 1, 0, 0,
                              "conv2d: variant kind %d param %d does not apply to these shapes",
                              (int)variant->kind, (int)variant->param);
    }
    if (!ap_conv2d_scratch_bytes(&g, variant->kind, variant->param, &scratch_bytes)) {
        return ap_ops_fail(error_out, AP_ERR_OVERFLOW, AP_SUBJECT_ARGUMENT, 1, 0, 0,
                              "conv2d: scratch size overflows size_t");
    }
    if (scratch_bytes > 0) {
        ap_status st = ap_ops_check_scratch("conv2d", variant->name, &scratch_bytes, 1, scratch,
                                            scratch_count, error_out);
        if (st != AP_OK) {
            return st;
        }
        if ((variant->kind == AP_CONV2D_IM2COL16_ROWS || variant->kind == AP_CONV2D_IM2COL16W_ROWS ||
             variant->kind == AP_CONV2D_STRIP16) &&
            ((uintptr_t)scratch[0].data & 3u) != 0) {
            /* int16 columns and tables read a word or two at a time (LDM and LDRD fault on an
               address that is not a multiple of 4) */
            return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_BUFFER, 0, 0, 0,
                               "conv2d: scratch 0 of %s must be 4-byte aligned", variant->name);
        }
        if (ap_conv2d_overlaps(scratch[0].data, scratch_bytes, output, g.output_bytes) ||
            ap_conv2d_overlaps(scratch[0].data, scratch_bytes, input, g.input_bytes)) {
            return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_BUFFER, 0, 0, 0,
                                  "conv2d: scratch 0 overlaps the input or the output");
        }
    }
    if (ap_conv2d_overlaps(input, g.input_bytes, output, g.output_bytes)) {
        return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, 4, 0, 0,
                              "conv2d: output overlaps input (no variant runs in place)");
    }

    c.p = params;
    c.input = input;
    c.output = output;
    c.bias = (const int32_t *)(const void *)((const unsigned char *)prepared +
                                             AP_CONV2D_PREPARED_HEADER_BYTES);
    c.weights = (const int8_t *)((const unsigned char *)prepared +
                                 AP_CONV2D_PREPARED_HEADER_BYTES + 4 * g.oc_pad);
    c.k = g.k;
    c.k_pad = g.k_pad;
    c.oc = (size_t)params->output_c;
    c.oc_pad = g.oc_pad;
    c.w_block_stride = AP_CONV2D_OB * g.k_pad;
    c.pixels = g.pixels;
    c.in_image = g.in_image;
    c.pad_value = (int8_t)(-params->input_offset);
    c.multiplier = params->requant.multiplier;
    c.shift = params->requant.shift;
    c.per_channel = params->requant.per_channel;
    c.output_offset = params->requant.output_offset;
    c.act_min = params->requant.activation_min;
    c.act_max = params->requant.activation_max;
    /* a product is x * w of the raw int8 values (the offset is in the folded bias) */
    c.requant_mode = ap_ops_runs_arm_dsp(variant->isa)
                         ? ap_dsp_requant_mode(c.bias, c.multiplier, c.shift, c.per_channel ? 1 : 0, c.oc,
                                               (uint64_t)c.k, 128u * 128u, c.act_min, c.act_max)
                         : AP_DSP_REQUANT_GENERAL;
    level = ap_conv2d_select_level(variant->isa);
    total = (size_t)params->batches * g.pixels;

    switch (variant->kind) {
#if AP_CONV2D_HAVE_AVX2
    case AP_CONV2D_LANES: ap_conv2d_s8_lanes_avx2(&c, scratch[0].data, total); break;
#endif
    case AP_CONV2D_DIRECT: level.direct(&c, level.rows, 0, total); break;
    case AP_CONV2D_GEMM_1X1: ap_conv2d_run_gemm_1x1(&c, &level, total); break;
    case AP_CONV2D_IM2COL16_ROWS:
        ap_conv2d_s8_im2col16_arm_dsp(&c, scratch[0].data, total, (size_t)variant->param);
        break;
    case AP_CONV2D_IM2COL16W_ROWS: ap_conv2d_s8_im2col16w_arm_dsp(&c, scratch[0].data, total); break;
    case AP_CONV2D_STRIP16: ap_conv2d_s8_strip16_arm_dsp(&c, scratch[0].data); break;
    case AP_CONV2D_IM2COL_ROWS:
        ap_conv2d_run_im2col(&c, &level, (size_t)variant->param, (int8_t *)scratch[0].data,
                             params->batches);
        break;
    default:
        ap_conv2d_run_im2col(&c, &level, g.pixels, (int8_t *)scratch[0].data, params->batches);
        break;
    }
    return AP_OK;
}
