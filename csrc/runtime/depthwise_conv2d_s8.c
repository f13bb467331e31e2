/* DEPTHWISE_CONV_2D int8: variants, prepare, run (portable C; AVX2 inner loops dispatched). */
#include "arenaplan/depthwise_conv2d.h"

#include <string.h>

#include "fixedpoint.h"
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"

#define DW_OP "depthwise_conv2d"
#define DW_MAGIC 0x57444141u /* "AADW" */
#define DW_VERSION 2u
#define DW_MAX_TAPS 65536
/* Tap offsets of the padded-buffer inner loop live on the stack up to this many taps;
   larger filters use the portable loop, which needs no table. */
#define DW_STACK_TAPS 128
#define DW_CHUNK 32

typedef struct dw_header {
    uint32_t magic;
    uint32_t version;
    int32_t output_c;
    int32_t filter_h;
    int32_t filter_w;
    int32_t input_offset;
    uint32_t pairs;
    int32_t isa;          /* the ISA the blob was packed for: its w16p region's layout */
} dw_header;

typedef struct dw_layout {
    size_t taps;
    size_t pairs;
    size_t bias_folded;   /* byte offsets in the prepared blob */
    size_t bias;
    size_t w8;
    size_t w16p;          /* AVX2's tap pairs (dw_pair_slot), or arm-dsp's lanes (dw_lanes) */
    size_t total;
} dw_layout;

/* Validate shapes (not requant) and the sizes that follow from them. */
/* The window along each axis (the height one for `rows_out` output rows). */
static ap_ops_window_axis dw_window_h(const ap_depthwise_conv2d_params *p, int32_t rows_out)
{
    return ap_ops_window_axis_of(p->input_h, rows_out, p->filter_h, p->stride_h, p->dilation_h, p->pad_h);
}

static ap_ops_window_axis dw_window_w(const ap_depthwise_conv2d_params *p)
{
    return ap_ops_window_axis_of(p->input_w, p->output_w, p->filter_w, p->stride_w, p->dilation_w, p->pad_w);
}

static ap_status dw_check_shape(const ap_depthwise_conv2d_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, DW_OP ": params must not be NULL");
    }
    const int32_t dims[] = {p->batches, p->input_h, p->input_w, p->input_c, p->output_h, p->output_w,
                            p->output_c, p->filter_h, p->filter_w, p->stride_h, p->stride_w,
                            p->dilation_h, p->dilation_w, p->depth_multiplier};
    static const char *names[] = {"batches", "input_h", "input_w", "input_c", "output_h", "output_w",
                                  "output_c", "filter_h", "filter_w", "stride_h", "stride_w",
                                  "dilation_h", "dilation_w", "depth_multiplier"};
    for (size_t i = 0; i < sizeof(dims) / sizeof(dims[0]); ++i) {
        if (dims[i] < 1) {
            return AP_OPS_INVALID(error, DW_OP ": %s must be >= 1 (got %d)", names[i], (int)dims[i]);
        }
    }
    if (p->pad_h < 0 || p->pad_w < 0) {
        return AP_OPS_INVALID(error, DW_OP ": padding must be >= 0 (got %d, %d)", (int)p->pad_h,
                              (int)p->pad_w);
    }
    if ((int64_t)p->input_c * p->depth_multiplier != p->output_c) {
        return AP_OPS_INVALID(error, DW_OP ": output_c %d != input_c %d * depth_multiplier %d",
                              (int)p->output_c, (int)p->input_c, (int)p->depth_multiplier);
    }
    if (!ap_ops_input_offset_ok(p->input_offset)) {
        return AP_OPS_INVALID(error, DW_OP ": input_offset %d is outside [-127, 128] (-zero point)",
                              (int)p->input_offset);
    }
    if ((int64_t)p->filter_h * p->filter_w > DW_MAX_TAPS) {
        return AP_OPS_UNSUPPORTED(error, DW_OP ": %d x %d filter has more than %d taps",
                                  (int)p->filter_h, (int)p->filter_w, DW_MAX_TAPS);
    }
    /* Window extents in int64: the loops use int32 positions. */
    const ap_ops_window_axis ah = dw_window_h(p, p->output_h), aw = dw_window_w(p);
    if (ah.extent + p->pad_h > INT32_MAX || aw.extent + p->pad_w > INT32_MAX) {
        return AP_OPS_OVERFLOW(error, DW_OP ": the filter window extent overflows int32");
    }
    size_t n;
    const int32_t in_dims[] = {p->batches, p->input_h, p->input_w, p->input_c};
    const int32_t out_dims[] = {p->batches, p->output_h, p->output_w, p->output_c};
    const int32_t f_dims[] = {p->filter_h, p->filter_w, p->output_c};
    if (!ap_ops_product(in_dims, 4, &n) || !ap_ops_product(out_dims, 4, &n) ||
        !ap_ops_product(f_dims, 3, &n) || n > (size_t)INT32_MAX) {
        return AP_OPS_OVERFLOW(error, DW_OP ": a tensor size overflows");
    }
    return AP_OK;
}

static ap_status dw_layout_of(const ap_depthwise_conv2d_params *p, dw_layout *l, ap_error *error)
{
    size_t oc = (size_t)p->output_c;
    l->taps = (size_t)p->filter_h * (size_t)p->filter_w;
    l->pairs = (l->taps + 1) / 2;
    size_t bias_bytes, w8_bytes, w16_bytes;
    if (!ap_ops_mul(oc, 4, &bias_bytes) || !ap_ops_mul(l->taps, oc, &w8_bytes) ||
        !ap_ops_mul(l->pairs, oc, &w16_bytes) || !ap_ops_mul(w16_bytes, 4, &w16_bytes)) {
        return AP_OPS_OVERFLOW(error, DW_OP ": prepared size overflows");
    }
    l->bias_folded = sizeof(dw_header);
    l->bias = l->bias_folded + bias_bytes;
    size_t end;
    if (!ap_ops_add(l->bias, bias_bytes, &l->w8) || !ap_ops_add(l->w8, w8_bytes, &end) ||
        end > SIZE_MAX - 16) {
        return AP_OPS_OVERFLOW(error, DW_OP ": prepared size overflows");
    }
    l->w16p = ap_ops_align_up(end, 16);
    if (!ap_ops_add(l->w16p, w16_bytes, &l->total)) {
        return AP_OPS_OVERFLOW(error, DW_OP ": prepared size overflows");
    }
    return AP_OK;
}

static size_t dw_padded_w(const ap_depthwise_conv2d_params *p)
{
    return (size_t)dw_window_w(p).extent;
}

static size_t dw_rows_needed(const ap_depthwise_conv2d_params *p, int32_t rows_out)
{
    return (size_t)dw_window_h(p, rows_out).extent;
}

/* Where channel c's weights sit within a tap pair of the int16 filter copy: channels in
   whole blocks of 16 are stored in the order 0-3, 8-11, 4-7, 12-15, the order in which
   vpunpck{l,h}wd pairs up two taps' 16 channels within 128-bit lanes; the remaining
   channels (oc % 16) in order. A fixed layout (it does not depend on the CPU). */
static size_t dw_pair_slot(size_t c, size_t oc)
{
    const size_t j = c % 16;
    if (c >= oc / 16 * 16) {
        return c;
    }
    return c - j + ((j & 12) == 4 ? j + 4 : ((j & 12) == 8 ? j - 4 : j));
}

/* The arm-dsp layout of the w16p region for a depth multiplier above 1: for each pair of taps
   (t0, t1) and each channel, one word of int16 lanes, w[t0] low and w[t1] high (0 past the
   last tap), as SMLAD takes it against the window's value pairs: [pair][channel], the 4 *
   pairs * oc bytes of the region. */
static void dw_pairs(const int8_t *filter, size_t taps, size_t oc, uint32_t *pairs)
{
    for (size_t t0 = 0; t0 < taps; t0 += 2) {
        for (size_t c = 0; c < oc; ++c, ++pairs) {
            const int8_t w1 = t0 + 1 < taps ? filter[(t0 + 1) * oc + c] : 0;
            *pairs = (uint32_t)(uint16_t)filter[t0 * oc + c] | (uint32_t)(uint16_t)w1 << 16;
        }
    }
}

/* The arm-dsp layout of the w16p region for a depth multiplier of 1: for each group of four channels (oc / 4 groups; the
   last oc % 4 channels are read from w8), each tap, two words of int16 lanes, (c0, c2) and
   (c1, c3), the weights as SXTB16 and SXTB16 ROR 8 take them: [group][tap][2]. 2 * taps * oc
   bytes at most, within the 4 * pairs * oc of the region. */
static void dw_lanes(const int8_t *filter, size_t taps, size_t oc, uint32_t *lanes)
{
    for (size_t g = 0; g < oc / 4; ++g) {
        for (size_t t = 0; t < taps; ++t, lanes += 2) {
            const int8_t *w = filter + t * oc + 4 * g;
            lanes[0] = (uint32_t)(uint16_t)w[0] | (uint32_t)(uint16_t)w[2] << 16;
            lanes[1] = (uint32_t)(uint16_t)w[1] | (uint32_t)(uint16_t)w[3] << 16;
        }
    }
}

/* Does (kind, param) apply to these shapes? Shared by _variants and _run. */
static int dw_variant_applies(const ap_depthwise_conv2d_params *p, int32_t isa, int32_t kind,
                              int32_t param)
{
    switch (kind) {
    case AP_DEPTHWISE_CONV2D_WIDENED:
    case AP_DEPTHWISE_CONV2D_WIDENED_PAIRS:
        return param == 0 && isa == AP_ISA_ARM_DSP && p->depth_multiplier == 1 &&
               p->output_c % 4 == 0 && p->filter_h == 3 && p->filter_w == 3 &&
               p->dilation_h == 1 && p->dilation_w == 1;
    case AP_DEPTHWISE_CONV2D_PLANAR: {
        const ap_dw_planar_shape s = ap_dw_planar_shape_of(p->filter_h, p->filter_w, p->stride_h, p->stride_w,
                                                           p->output_h, p->output_w);
        /* param 0: the whole plane; R: bands of R rows, fewer than the plane's */
        return isa == AP_ISA_ARM_DSP && p->depth_multiplier == 1 && p->dilation_h == 1 &&
               p->dilation_w == 1 && param >= 0 && param < s.out_a;
    }
    case AP_DEPTHWISE_CONV2D_DIRECT:
        return param == 0;
    case AP_DEPTHWISE_CONV2D_PADDED_ROWS:
        return param >= 1 && param <= p->output_h;
    default:
        return 0;
    }
}

/* Scratch requests of an applicable variant. Shared by _variants and _run. */
static ap_status dw_variant_scratch(const ap_depthwise_conv2d_params *p, int32_t kind, int32_t param,
                                    size_t *bytes, size_t *alignment, uint32_t *count, ap_error *error)
{
    *count = 0;
    if (kind == AP_DEPTHWISE_CONV2D_WIDENED || kind == AP_DEPTHWISE_CONV2D_WIDENED_PAIRS) {
        /* per channel: three int16 a padded column (widened: three rows of lanes; pairs: a row
           of pairs and one of lanes), then its nine doubled weights as int16 and its bias,
           multiplier, rounding and shift as int32 (17 int16; two sets for pairs) */
        size_t n;
        if (!ap_ops_mul((size_t)p->filter_h, dw_padded_w(p), &n) ||
            !ap_ops_add(n, kind == AP_DEPTHWISE_CONV2D_WIDENED ? 17 : 34, &n) ||
            !ap_ops_mul(n, (size_t)p->output_c, &n) || !ap_ops_mul(n, sizeof(int16_t), &n)) {
            return AP_OPS_OVERFLOW(error, DW_OP ": widened scratch size overflows");
        }
        bytes[0] = n;
        alignment[0] = 16;
        *count = 1;
    }
    if (kind == AP_DEPTHWISE_CONV2D_PLANAR) {
        ap_dw_planar_shape s = ap_dw_planar_shape_of(p->filter_h, p->filter_w, p->stride_h, p->stride_w,
                                                     p->output_h, p->output_w);
        bytes[0] = ap_dw_planar_scratch(&s, param == 0 ? s.out_a : param);
        if (bytes[0] == 0) {
            return AP_OPS_OVERFLOW(error, DW_OP ": planar_rows_%d scratch size overflows", (int)param);
        }
        alignment[0] = 16;
        *count = 1;
    }
    if (kind == AP_DEPTHWISE_CONV2D_PADDED_ROWS) {
        size_t n;
        /* int16 elements: the input is sign-extended once when a row is copied in, not at
           every tap (each input value is read filter_h * filter_w times). */
        if (!ap_ops_mul(dw_rows_needed(p, param), dw_padded_w(p), &n) ||
            !ap_ops_mul(n, (size_t)p->output_c, &n) || !ap_ops_mul(n, sizeof(int16_t), &n)) {
            return AP_OPS_OVERFLOW(error, DW_OP ": padded_rows_%d scratch size overflows", (int)param);
        }
        bytes[0] = n;
        alignment[0] = 16;
        *count = 1;
    }
    return AP_OK;
}

static uint64_t dw_macs(const ap_depthwise_conv2d_params *p)
{
    return (uint64_t)p->batches * (uint64_t)p->output_h * (uint64_t)p->output_w * (uint64_t)p->output_c *
           (uint64_t)p->filter_h * (uint64_t)p->filter_w;
}

ap_status ap_depthwise_conv2d_s8_variants(const ap_depthwise_conv2d_params *params,
                                          ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                          uint32_t *count_out, ap_error *error_out)
{
    ap_status st = dw_check_shape(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[AP_MAX_VARIANTS];
    uint32_t n = 0;
    int32_t candidates[8][2] = {{AP_DEPTHWISE_CONV2D_DIRECT, 0},
                                {AP_DEPTHWISE_CONV2D_PADDED_ROWS, 1},
                                {AP_DEPTHWISE_CONV2D_WIDENED, 0},
                                {AP_DEPTHWISE_CONV2D_WIDENED_PAIRS, 0},
                                {AP_DEPTHWISE_CONV2D_PADDED_ROWS, 4},
                                {AP_DEPTHWISE_CONV2D_PADDED_ROWS, params->output_h},
                                {AP_DEPTHWISE_CONV2D_PLANAR, 4},
                                {AP_DEPTHWISE_CONV2D_PLANAR, 0}};
    int32_t last_rows = 0;
    for (int i = 0; i < 8; ++i) {
        int32_t kind = candidates[i][0], param = candidates[i][1];
        if (!dw_variant_applies(params, (int32_t)isa, kind, param)) {
            continue;
        }
        if (kind == AP_DEPTHWISE_CONV2D_PADDED_ROWS) {
            if (param <= last_rows) {
                continue; /* R = 4 and R = output_h coincide, or output_h == 1 */
            }
            last_rows = param;
        }
        size_t bytes[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
        uint32_t count;
        st = dw_variant_scratch(params, kind, param, bytes, align, &count, error_out);
        if (st != AP_OK) {
            return st;
        }
        const char *family = kind == AP_DEPTHWISE_CONV2D_DIRECT    ? "direct"
                             : kind == AP_DEPTHWISE_CONV2D_WIDENED ? "widened"
                             : kind == AP_DEPTHWISE_CONV2D_WIDENED_PAIRS ? "widened_pairs"
                             : kind == AP_DEPTHWISE_CONV2D_PLANAR  ? (param == 0 ? "planar" : "planar_rows")
                                                                   : "padded_rows";
        ap_ops_variant_set(&found[n], kind, param, family, count, bytes, align, dw_macs(params), 0);
        if (kind == AP_DEPTHWISE_CONV2D_PADDED_ROWS && param == 1) {
            /* one output row a band pads its filter_h input rows for every row, where larger
               bands share them: its own family, with figures of its own in the cost models */
            memcpy(found[n].family, found[n].name, sizeof(found[n].family));
        }
        ++n;
    }
    ap_ops_variants_by_scratch(found, n);
    return ap_ops_variants_out(found, n, isa, variants_out, capacity, count_out, DW_OP, error_out);
}

ap_status ap_depthwise_conv2d_s8_prepared_size(const ap_depthwise_conv2d_params *params,
                                               size_t *bytes_out, ap_error *error_out)
{
    ap_status st = dw_check_shape(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (bytes_out == NULL) {
        return AP_OPS_INVALID(error_out, DW_OP ": bytes_out must not be NULL");
    }
    dw_layout l = {0, 0, 0, 0, 0, 0, 0};
    st = dw_layout_of(params, &l, error_out);
    if (st == AP_OK) {
        *bytes_out = l.total;
    }
    return st;
}

ap_status ap_depthwise_conv2d_s8_prepare(const ap_depthwise_conv2d_params *params, ap_isa isa,
                                         const int8_t *filter, const int32_t *bias,
                                         void *prepared_out, size_t prepared_bytes,
                                         ap_error *error_out)
{
    if (ap_isa_name(isa) == NULL) {
        return AP_OPS_INVALID(error_out, DW_OP ": %d is not an instruction set (ap_isa)", (int)isa);
    }
    ap_status st = dw_check_shape(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (filter == NULL || prepared_out == NULL) {
        return AP_OPS_INVALID(error_out, DW_OP ": filter and prepared_out must not be NULL");
    }
    if (((uintptr_t)prepared_out & 3u) != 0) {
        return AP_OPS_INVALID(error_out, DW_OP ": prepared_out must be 4-byte aligned");
    }
    dw_layout l = {0, 0, 0, 0, 0, 0, 0};
    st = dw_layout_of(params, &l, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (prepared_bytes < l.total) {
        return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, l.total,
                           prepared_bytes, DW_OP ": prepared buffer needs %llu bytes, got %llu",
                           (unsigned long long)l.total, (unsigned long long)prepared_bytes);
    }
    uint8_t *base = (uint8_t *)prepared_out;
    memset(base, 0, l.total);
    dw_header h;
    memset(&h, 0, sizeof(h));
    h.magic = DW_MAGIC;
    h.version = DW_VERSION;
    h.output_c = params->output_c;
    h.filter_h = params->filter_h;
    h.filter_w = params->filter_w;
    h.input_offset = params->input_offset;
    h.pairs = (uint32_t)l.pairs;
    h.isa = (int32_t)isa;
    memcpy(base, &h, sizeof(h));

    const size_t oc = (size_t)params->output_c;
    int32_t *bias_folded = (int32_t *)(void *)(base + l.bias_folded);
    int32_t *bias_plain = (int32_t *)(void *)(base + l.bias);
    int8_t *w8 = (int8_t *)(base + l.w8);
    int16_t *w16p = (int16_t *)(void *)(base + l.w16p);
    memcpy(w8, filter, l.taps * oc);
    for (size_t c = 0; c < oc; ++c) {
        int64_t sum = 0;
        for (size_t t = 0; t < l.taps; ++t) {
            sum += filter[t * oc + c];
        }
        int32_t b = bias != NULL ? bias[c] : 0;
        bias_plain[c] = b;
        /* sum((x + off) * w) = sum(x * w) + off * sum(w): the padded buffer holds the
           zero point at padded taps, so the fold is exact there too. Wraps mod 2^32 like
           the accumulator. */
        bias_folded[c] = (int32_t)(uint32_t)((uint64_t)(uint32_t)b +
                                             (uint64_t)((int64_t)params->input_offset * sum));
    }
    if (isa == AP_ISA_ARM_DSP && params->depth_multiplier == 1) {
        dw_lanes(filter, l.taps, oc, (uint32_t *)(void *)w16p);
        return AP_OK;
    }
    if (isa == AP_ISA_ARM_DSP) {
        dw_pairs(filter, l.taps, oc, (uint32_t *)(void *)w16p);
        return AP_OK;
    }
    for (size_t pr = 0; pr < l.pairs; ++pr) {
        for (size_t c = 0; c < oc; ++c) {
            size_t t0 = 2 * pr, t1 = 2 * pr + 1;
            size_t slot = dw_pair_slot(c, oc);
            w16p[(pr * oc + slot) * 2] = filter[t0 * oc + c];
            w16p[(pr * oc + slot) * 2 + 1] = t1 < l.taps ? filter[t1 * oc + c] : 0;
        }
    }
    return AP_OK;
}

static inline int8_t dw_requant1(int32_t acc, const ap_requant *rq, int32_t c)
{
    return ap_dw_requant1(acc, rq, c);
}

/* Portable "direct": bounds per output pixel, unfolded (x + offset) * w, plain bias. */
static void dw_direct_portable(const ap_depthwise_conv2d_params *p, const int32_t *bias, const int8_t *w8,
                               const int8_t *input, int8_t *output)
{
    const int32_t ih = p->input_h, iw = p->input_w, ic = p->input_c, oc = p->output_c;
    const int32_t fh = p->filter_h, fw = p->filter_w, mult = p->depth_multiplier, off = p->input_offset;
    int32_t acc[DW_CHUNK];
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *in_b = input + (size_t)b * ih * iw * ic;
        for (int32_t oy = 0; oy < p->output_h; ++oy) {
            const int32_t y0 = oy * p->stride_h - p->pad_h;
            for (int32_t ox = 0; ox < p->output_w; ++ox) {
                const int32_t x0 = ox * p->stride_w - p->pad_w;
                int8_t *out = output + (((size_t)b * p->output_h + oy) * p->output_w + ox) * oc;
                for (int32_t c0 = 0; c0 < oc; c0 += DW_CHUNK) {
                    const int32_t n = oc - c0 < DW_CHUNK ? oc - c0 : DW_CHUNK;
                    memset(acc, 0, sizeof(acc));
                    for (int32_t ky = 0; ky < fh; ++ky) {
                        const int32_t iy = y0 + ky * p->dilation_h;
                        if (iy < 0 || iy >= ih) {
                            continue;
                        }
                        for (int32_t kx = 0; kx < fw; ++kx) {
                            const int32_t ix = x0 + kx * p->dilation_w;
                            if (ix < 0 || ix >= iw) {
                                continue;
                            }
                            const int8_t *x = in_b + ((size_t)iy * iw + ix) * ic;
                            const int8_t *w = w8 + ((size_t)ky * fw + kx) * oc + c0;
                            if (mult == 1) {
                                for (int32_t j = 0; j < n; ++j) {
                                    acc[j] += (x[c0 + j] + off) * w[j];
                                }
                            } else {
                                for (int32_t j = 0; j < n; ++j) {
                                    acc[j] += (x[(c0 + j) / mult] + off) * w[j];
                                }
                            }
                        }
                    }
                    for (int32_t j = 0; j < n; ++j) {
                        out[c0 + j] = dw_requant1(ap_ops_wrap_add(acc[j], bias[c0 + j]), &p->requant, c0 + j);
                    }
                }
            }
        }
    }
}

/* dst[0..n) = src[0..n) sign-extended to int16. */
static void dw_widen(int16_t *dst, const int8_t *src, size_t n, int use_avx2)
{
    if (use_avx2) {
#if AP_OPS_HAVE_AVX2
        ap_dw_widen_avx2(dst, src, n);
        return;
#endif
    }
    for (size_t i = 0; i < n; ++i) {
        dst[i] = src[i];
    }
}

static void dw_fill16(int16_t *dst, int16_t value, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        dst[i] = value;
    }
}

/* Copy input rows [row0, row0 + rows) (row0 may be negative) into the padded,
   channel-expanded int16 buffer; positions outside the image get the zero point. */
static void dw_fill_rows(const ap_depthwise_conv2d_params *p, const int8_t *in_b, int32_t row0, size_t rows,
                         int16_t *buf, int use_avx2)
{
    const size_t padded_w = dw_padded_w(p);
    const size_t oc = (size_t)p->output_c, ic = (size_t)p->input_c, mult = (size_t)p->depth_multiplier;
    const size_t row_stride = padded_w * oc;
    const int16_t zp = (int16_t)(-p->input_offset);
    /* Columns [x_begin, x_end) of the buffer map to input columns x - pad_w. */
    size_t x_begin = (size_t)p->pad_w < padded_w ? (size_t)p->pad_w : padded_w;
    size_t x_end = (size_t)p->pad_w + (size_t)p->input_w;
    if (x_end > padded_w) {
        x_end = padded_w;
    }
    for (size_t r = 0; r < rows; ++r) {
        const int64_t iy = (int64_t)row0 + (int64_t)r;
        int16_t *dst = buf + r * row_stride;
        if (iy < 0 || iy >= p->input_h || x_begin >= x_end) {
            dw_fill16(dst, zp, row_stride);
            continue;
        }
        const int8_t *src = in_b + (size_t)iy * (size_t)p->input_w * ic;
        dw_fill16(dst, zp, x_begin * oc);
        if (mult == 1) {
            dw_widen(dst + x_begin * oc, src + (x_begin - (size_t)p->pad_w) * ic, (x_end - x_begin) * oc, use_avx2);
        } else {
            const int8_t *s = src + (x_begin - (size_t)p->pad_w) * ic;
            int16_t *d = dst + x_begin * oc;
            for (size_t i = 0; i < (x_end - x_begin) * ic; ++i) {
                const int16_t v = s[i];
                for (size_t m = 0; m < mult; ++m) {
                    *d++ = v;
                }
            }
        }
        dw_fill16(dst + x_end * oc, zp, (padded_w - x_end) * oc);
    }
}

/* Portable inner loop of "padded_rows" for one output row. */
static void dw_padded_row_portable(const ap_depthwise_conv2d_params *p, const int16_t *base, size_t row_stride,
                                   const int32_t *bias_folded, const int8_t *w8, int8_t *out)
{
    const int32_t oc = p->output_c, fh = p->filter_h, fw = p->filter_w;
    const size_t dy = (size_t)p->dilation_h * row_stride, dx = (size_t)p->dilation_w * (size_t)oc;
    int32_t acc[DW_CHUNK];
    for (int32_t ox = 0; ox < p->output_w; ++ox) {
        const int16_t *px = base + (size_t)ox * (size_t)p->stride_w * (size_t)oc;
        for (int32_t c0 = 0; c0 < oc; c0 += DW_CHUNK) {
            const int32_t n = oc - c0 < DW_CHUNK ? oc - c0 : DW_CHUNK;
            memset(acc, 0, sizeof(acc));
            for (int32_t ky = 0; ky < fh; ++ky) {
                for (int32_t kx = 0; kx < fw; ++kx) {
                    const int16_t *x = px + (size_t)ky * dy + (size_t)kx * dx + c0;
                    const int8_t *w = w8 + ((size_t)ky * fw + kx) * oc + c0;
                    for (int32_t j = 0; j < n; ++j) {
                        acc[j] += x[j] * w[j];
                    }
                }
            }
            for (int32_t j = 0; j < n; ++j) {
                out[(size_t)ox * oc + c0 + j] =
                    dw_requant1(ap_ops_wrap_add(acc[j], bias_folded[c0 + j]), &p->requant, c0 + j);
            }
        }
    }
}

ap_status ap_depthwise_conv2d_s8_run(const ap_depthwise_conv2d_params *params,
                                     const ap_variant *variant, const void *prepared,
                                     const int8_t *input, int8_t *output,
                                     const ap_scratch *scratch, uint32_t scratch_count,
                                     ap_error *error_out)
{
    ap_status st = dw_check_shape(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    if ((st = ap_ops_check_variant_ptr(variant, DW_OP, error_out)) != AP_OK) {
        return st;
    }
    if (prepared == NULL || input == NULL || output == NULL) {
        return AP_OPS_INVALID(error_out, DW_OP ": prepared, input and output must not be NULL");
    }
    if (((uintptr_t)prepared & 3u) != 0) {
        return AP_OPS_INVALID(error_out, DW_OP ": prepared must be 4-byte aligned");
    }
    dw_header h;
    memcpy(&h, prepared, sizeof(h));
    if (h.magic != DW_MAGIC || h.version != DW_VERSION || h.output_c != params->output_c ||
        h.filter_h != params->filter_h || h.filter_w != params->filter_w ||
        h.input_offset != params->input_offset || ap_isa_name(h.isa) == NULL) {
        return AP_OPS_INVALID(error_out, DW_OP ": prepared data was not made by _prepare for these "
                              "params (output_c, filter size or input_offset differ)");
    }
    if ((st = ap_ops_check_requant(&params->requant, params->output_c, 31, DW_OP, error_out)) != AP_OK) {
        return st;
    }
    if (!dw_variant_applies(params, variant->isa, variant->kind, variant->param)) {
        return AP_OPS_INVALID(error_out, DW_OP ": variant kind %d param %d does not apply to these shapes",
                              (int)variant->kind, (int)variant->param);
    }
    size_t need[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
    uint32_t need_count;
    if ((st = dw_variant_scratch(params, variant->kind, variant->param, need, align, &need_count,
                                 error_out)) != AP_OK) {
        return st;
    }
    if ((st = ap_ops_check_scratch(DW_OP, variant->name, need, need_count, scratch, scratch_count,
                                   error_out)) != AP_OK) {
        return st;
    }
    dw_layout l = {0, 0, 0, 0, 0, 0, 0};
    if ((st = dw_layout_of(params, &l, error_out)) != AP_OK) {
        return st;
    }
    const uint8_t *base = (const uint8_t *)prepared;
    const int32_t *bias_folded = (const int32_t *)(const void *)(base + l.bias_folded);
    const int32_t *bias_plain = (const int32_t *)(const void *)(base + l.bias);
    const int8_t *w8 = (const int8_t *)(base + l.w8);
    const int16_t *w16p = (const int16_t *)(const void *)(base + l.w16p);
    const int use_avx2 = ap_ops_runs_avx2(variant->isa);
    const int use_dsp = ap_ops_runs_arm_dsp(variant->isa);
    const size_t in_batch = (size_t)params->input_h * params->input_w * params->input_c;
    const size_t out_batch = (size_t)params->output_h * params->output_w * params->output_c;

    if (variant->kind == AP_DEPTHWISE_CONV2D_DIRECT || variant->kind == AP_DEPTHWISE_CONV2D_WIDENED ||
        variant->kind == AP_DEPTHWISE_CONV2D_WIDENED_PAIRS || variant->kind == AP_DEPTHWISE_CONV2D_PLANAR) {
        if (variant->kind == AP_DEPTHWISE_CONV2D_PLANAR && ((uintptr_t)scratch[0].data & 3u) != 0) {
            return AP_OPS_INVALID(error_out, DW_OP ": scratch 0 of planar_rows must be 4-byte aligned");
        }
        if ((variant->kind == AP_DEPTHWISE_CONV2D_WIDENED || variant->kind == AP_DEPTHWISE_CONV2D_WIDENED_PAIRS) &&
            ((uintptr_t)scratch[0].data & 3u) != 0) {
            return AP_OPS_INVALID(error_out, DW_OP ": scratch 0 of %s must be 4-byte aligned", variant->name);
        }
        if ((use_avx2 || use_dsp) && params->depth_multiplier == 1) {
            for (int32_t b = 0; b < params->batches; ++b) {
                ap_dw_direct d;
                d.input = input + (size_t)b * in_batch;
                d.input_h = params->input_h;
                d.input_w = params->input_w;
                d.channels = params->output_c;
                d.filter_h = params->filter_h;
                d.filter_w = params->filter_w;
                d.stride_h = params->stride_h;
                d.stride_w = params->stride_w;
                d.dilation_h = params->dilation_h;
                d.dilation_w = params->dilation_w;
                d.pad_h = params->pad_h;
                d.pad_w = params->pad_w;
                d.output_h = params->output_h;
                d.output_w = params->output_w;
                d.input_offset = params->input_offset;
                d.bias = bias_plain;
                d.bias_folded = bias_folded;
                d.w8 = w8;
                d.lanes = h.isa == AP_ISA_ARM_DSP ? (const uint32_t *)(const void *)w16p : NULL;
                d.requant = &params->requant;
                d.out = output + (size_t)b * out_batch;
                if (variant->kind == AP_DEPTHWISE_CONV2D_WIDENED) {
                    ap_dw_widened_arm_dsp(&d, scratch[0].data);
                } else if (variant->kind == AP_DEPTHWISE_CONV2D_WIDENED_PAIRS) {
                    ap_dw_widened_pairs_arm_dsp(&d, scratch[0].data);
                } else if (variant->kind == AP_DEPTHWISE_CONV2D_PLANAR) {
                    ap_dw_planar_arm_dsp(&d, variant->param, scratch[0].data);   /* 0: one band */
                } else if (use_dsp) {
                    ap_dw_direct_arm_dsp(&d);
                } else {
#if AP_OPS_HAVE_AVX2
                    ap_dw_direct_avx2(&d);
#endif
                }
            }
        } else if (use_dsp && h.isa == AP_ISA_ARM_DSP && variant->kind == AP_DEPTHWISE_CONV2D_DIRECT &&
                   params->depth_multiplier % 4 == 0 && l.taps <= AP_DW_MULT_TAPS) {
            /* (a multiplier of 2 or 3 shares a window among too few outputs to pay for it:
               the portable loop is faster there) */
            const ap_dw_mult m = {params, input, bias_plain, (const uint32_t *)(const void *)w16p, output};
            ap_dw_direct_mult_arm_dsp(&m);
        } else {
            dw_direct_portable(params, bias_plain, w8, input, output);
        }
        return AP_OK;
    }

    /* padded_rows_R */
    const int32_t rows_per_block = variant->param;
    const size_t padded_w = dw_padded_w(params);
    const size_t row_stride = padded_w * (size_t)params->output_c;
    if (((uintptr_t)scratch[0].data & 1u) != 0) {
        return AP_OPS_INVALID(error_out, DW_OP ": scratch 0 must be 2-byte aligned (it holds int16)");
    }
    int16_t *buf = (int16_t *)scratch[0].data;
    /* The AVX2 loop keeps tap offsets in int32. */
    const size_t last_tap = (size_t)(params->filter_h - 1) * (size_t)params->dilation_h * row_stride +
                            (size_t)(params->filter_w - 1) * (size_t)params->dilation_w * (size_t)params->output_c;
    const int fast = use_avx2 && h.isa != AP_ISA_ARM_DSP && l.taps <= DW_STACK_TAPS && last_tap <= (size_t)INT32_MAX &&
                     (size_t)params->stride_w * (size_t)params->output_c <= (size_t)INT32_MAX &&
                     (size_t)params->stride_h * row_stride <= (size_t)INT32_MAX;
    const size_t row_step = (size_t)params->stride_h * row_stride;
    int32_t tap_offset[DW_STACK_TAPS + 1];
    if (fast) {
        for (size_t t = 0; t < l.taps; ++t) {
            size_t ky = t / (size_t)params->filter_w, kx = t % (size_t)params->filter_w;
            tap_offset[t] = (int32_t)(ky * (size_t)params->dilation_h * row_stride +
                                      kx * (size_t)params->dilation_w * (size_t)params->output_c);
        }
        tap_offset[l.taps] = tap_offset[l.taps - 1];
    }
    for (int32_t b = 0; b < params->batches; ++b) {
        const int8_t *in_b = input + (size_t)b * in_batch;
        for (int32_t oy0 = 0; oy0 < params->output_h; oy0 += rows_per_block) {
            int32_t rows_out = params->output_h - oy0 < rows_per_block ? params->output_h - oy0 : rows_per_block;
            dw_fill_rows(params, in_b, oy0 * params->stride_h - params->pad_h, dw_rows_needed(params, rows_out), buf,
                         use_avx2);
            if (fast) {
#if AP_OPS_HAVE_AVX2
                /* All rows of the block in one call (the AVX2 loop expands its per-channel
                   constants once per call). A 1-wide output (the 1-D convs of audio models)
                   runs as one row whose pixels are the block's rows. */
                const int column = params->output_w == 1;
                ap_dw_row row;
                row.base = buf;
                row.tap_offset = tap_offset;
                row.taps = (int32_t)l.taps;
                row.pairs = (int32_t)l.pairs;
                row.is_3x3 = params->filter_h == 3 && params->filter_w == 3;
                row.output_w = column ? rows_out : params->output_w;
                row.rows = column ? 1 : rows_out;
                row.row_step = (int32_t)row_step;
                row.channels = params->output_c;
                row.pixel_step = column ? (int32_t)row_step : params->stride_w * params->output_c;
                row.bias = bias_folded;
                row.w8 = w8;
                row.w16p = w16p;
                row.requant = &params->requant;
                row.out = output + (size_t)b * out_batch +
                          (size_t)oy0 * (size_t)params->output_w * (size_t)params->output_c;
                ap_dw_padded_row_avx2(&row);
#endif
                continue;
            }
            for (int32_t r = 0; r < rows_out; ++r) {
                const int16_t *row_base = buf + (size_t)r * row_step;
                int8_t *out = output + (size_t)b * out_batch +
                              (size_t)(oy0 + r) * (size_t)params->output_w * (size_t)params->output_c;
                dw_padded_row_portable(params, row_base, row_stride, bias_folded, w8, out);
            }
        }
    }
    (void)w16p;
    return AP_OK;
}
