/* RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR (arenaplan/ops.h): TFLite's reference
   ResizeNearestNeighbor (int8, int16, float32 rows: a copy), ResizeBilinearInteger (int8) and
   ResizeBilinear (float32), NHWC. RESIZE_BILINEAR's variants beside direct spend scratch on what
   direct recomputes: column_table (int8, float32) each output column's input columns and
   weights, row_cache (int8) input rows interpolated across, shared by the output rows that read
   them; every variant gives the same bits (ap_resize_kind). */
#include "arenaplan/ops.h"

#include <math.h>
#include <string.h>

#include "ops_s8_common.h"

#define NEAREST_OP "resize_nearest_neighbor"
#define BILINEAR_OP "resize_bilinear"

/* The geometry both ops share: every dimension >= 1, and the element counts in size_t. */
static ap_status resize_check_geometry(const int32_t *dims, const char *op, size_t *output_count, ap_error *error)
{
    static const char *const names[6] = {"batches", "input_h", "input_w", "channels", "output_h", "output_w"};
    for (int i = 0; i < 6; ++i) {
        if (dims[i] < 1) {
            return AP_OPS_INVALID(error, "%s: %s = %d; it must be >= 1", op, names[i], (int)dims[i]);
        }
    }
    const int32_t in[4] = {dims[0], dims[1], dims[2], dims[3]};
    const int32_t out[4] = {dims[0], dims[4], dims[5], dims[3]};
    size_t n;
    if (!ap_ops_product(in, 4, &n) || !ap_ops_product(out, 4, output_count)) {
        return AP_OPS_OVERFLOW(error, "%s: a tensor size overflows size_t", op);
    }
    return AP_OK;
}

/* The checks run() shares: the call, the variant (of this ISA, its kind at most last_kind), one
   input, the output. */
static ap_status resize_check_call(const ap_op_call *call, ap_isa isa, const char *op, int32_t last_kind,
                                   ap_error *error)
{
    ap_status st = ap_ops_check_variant_ptr(call->variant, op, error);
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error, "%s: variant '%s' is a %s variant; asked to run it as %s", op,
                            call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st == AP_OK && (call->variant->kind < AP_RESIZE_DIRECT || call->variant->kind > last_kind)) {
        st = AP_OPS_INVALID(error, "%s: variant kind %d does not apply", op, (int)call->variant->kind);
    }
    if (st == AP_OK && (call->input_count != 1 || call->inputs == NULL || call->inputs[0] == NULL ||
                        call->output == NULL)) {
        st = AP_OPS_INVALID(error, "%s: one input and the output must not be NULL", op);
    }
    return st;
}

/* The variants: direct; with `table` RESIZE_BILINEAR's column_table (output_w entries of four
   int32 / float32 values; bilinear_table_bytes); with `rows` too, int8's row_cache. */
static ap_status resize_variants(size_t output_count, size_t table, size_t rows, ap_isa isa,
                                 ap_variant *variants_out, uint32_t capacity, uint32_t *count_out, const char *op,
                                 ap_error *error)
{
    ap_variant found[3];
    uint32_t n = 1;
    const size_t bytes[2] = {table, rows}, align[2] = {4, 4};
    /* a gather: the output may not overlap its input */
    ap_ops_variant_set(&found[0], AP_RESIZE_DIRECT, 0, "direct", 0, NULL, NULL, (uint64_t)output_count, 0);
    if (table > 0) {
        ap_ops_variant_set(&found[n++], AP_RESIZE_COLUMN_TABLE, 0, "column_table", 1, bytes, align,
                           (uint64_t)output_count, 0);
    }
    if (table > 0 && rows > 0) {
        ap_ops_variant_set(&found[n++], AP_RESIZE_ROW_CACHE, 0, "row_cache", 2, bytes, align,
                           (uint64_t)output_count, 0);
    }
    return ap_ops_variants_out(found, n, isa, variants_out, capacity, count_out, op, error);
}

/* RESIZE_BILINEAR's column table: 16 bytes an output column, or 0 (no column_table variant)
   when x * channels may not fit int32 (the table's offsets) or the bytes would not fit size_t. */
static size_t bilinear_table_bytes(int32_t input_w, int32_t channels, int32_t output_w)
{
    size_t bytes = 0;
    if ((int64_t)input_w * channels > INT32_MAX || !ap_ops_mul((size_t)output_w, 16, &bytes)) {
        return 0;
    }
    return bytes;
}

/* int8 row_cache's second buffer: two rows of output_w * channels int32, or 0 (no row_cache)
   when the bytes would not fit size_t. */
static size_t bilinear_rows_bytes(int32_t channels, int32_t output_w)
{
    size_t bytes = 0;
    return ap_ops_mul((size_t)output_w, (size_t)channels, &bytes) && ap_ops_mul(bytes, 8, &bytes) ? bytes : 0;
}

/* A column_table or row_cache call's scratch: the variant applies and its buffers fit (`rows`:
   row_cache's second buffer's bytes, 0 for column_table). */
static ap_status bilinear_check_table(const ap_op_call *call, int32_t input_w, int32_t channels,
                                      int32_t output_w, size_t rows, const char *op, ap_error *error)
{
    const size_t need[2] = {bilinear_table_bytes(input_w, channels, output_w), rows};
    const uint32_t buffers = call->variant->kind == AP_RESIZE_ROW_CACHE ? 2 : 1;
    if (need[0] == 0 || (buffers == 2 && rows == 0)) {
        return AP_OPS_INVALID(error, "%s: variant '%s' does not apply to these sizes", op, call->variant->name);
    }
    return ap_ops_check_scratch(op, call->variant->name, need, buffers, call->scratch, call->scratch_count, error);
}

/* ---- RESIZE_NEAREST_NEIGHBOR ------------------------------------------------------------- */
static ap_status nearest_check(const ap_resize_nearest_params *p, size_t *output_count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, NEAREST_OP ": params must not be NULL");
    }
    const int32_t dims[6] = {p->batches, p->input_h, p->input_w, p->channels, p->output_h, p->output_w};
    ap_status st = resize_check_geometry(dims, NEAREST_OP, output_count, error);
    if (st != AP_OK) {
        return st;
    }
    if (p->y_index == NULL || p->x_index == NULL) {
        return AP_OPS_INVALID(error, NEAREST_OP ": y_index and x_index must not be NULL");
    }
    for (int32_t y = 0; y < p->output_h; ++y) {
        if (p->y_index[y] < 0 || p->y_index[y] >= p->input_h) {
            return AP_OPS_INVALID(error, NEAREST_OP ": y_index[%d] = %d lies outside [0, %d)", (int)y,
                                  (int)p->y_index[y], (int)p->input_h);
        }
    }
    for (int32_t x = 0; x < p->output_w; ++x) {
        if (p->x_index[x] < 0 || p->x_index[x] >= p->input_w) {
            return AP_OPS_INVALID(error, NEAREST_OP ": x_index[%d] = %d lies outside [0, %d)", (int)x,
                                  (int)p->x_index[x], (int)p->input_w);
        }
    }
    return AP_OK;
}

ap_status ap_resize_nearest_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                        uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    size_t count = 0;
    ap_status st = nearest_check(params, &count, error_out);
    return st != AP_OK ? st : resize_variants(count, 0, 0, isa, variants_out, capacity, count_out, NEAREST_OP,
                                              error_out);
}

/* One output pixel a memcpy of channels * element bytes: the int8, int16 and float32 rows alike. */
static ap_status nearest_run(const ap_op_call *call, ap_isa isa, size_t element, ap_error *error_out)
{
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, NEAREST_OP ": call must not be NULL");
    }
    const ap_resize_nearest_params *p = call->params;
    size_t count = 0, bytes = 0;
    ap_status st = nearest_check(p, &count, error_out);
    if (st == AP_OK && !ap_ops_mul(count, element, &bytes)) {
        st = AP_OPS_OVERFLOW(error_out, NEAREST_OP ": the output's bytes overflow");
    }
    if (st == AP_OK) {
        st = resize_check_call(call, isa, NEAREST_OP, AP_RESIZE_DIRECT, error_out);
    }
    if (st != AP_OK) {
        return st;
    }
    const unsigned char *in = call->inputs[0];
    unsigned char *out = call->output;
    const size_t c = (size_t)p->channels * element, row = (size_t)p->input_w * c, image = (size_t)p->input_h * row;
    for (int32_t b = 0; b < p->batches; ++b) {
        const unsigned char *src = in + (size_t)b * image;
        for (int32_t y = 0; y < p->output_h; ++y) {
            const unsigned char *src_row = src + (size_t)p->y_index[y] * row;
            for (int32_t x = 0; x < p->output_w; ++x) {
                memcpy(out, src_row + (size_t)p->x_index[x] * c, c);
                out += c;
            }
        }
    }
    return AP_OK;
}

ap_status ap_resize_nearest_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return nearest_run(call, isa, sizeof(int16_t), error_out);
}

ap_status ap_resize_nearest_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return nearest_run(call, isa, sizeof(float), error_out);
}

ap_status ap_resize_nearest_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    /* one code for every ISA: row copies */
    return nearest_run(call, isa, sizeof(int8_t), error_out);
}

/* ---- RESIZE_BILINEAR ---------------------------------------------------------------------- */
/* TFLite's ComputeInterpolationValues (integer): the Q10 position of output index i and the two
   input indices around it (C's division truncates toward zero, as C++'s does). */
static void bilinear_axis(int32_t i, int32_t scale_10, int32_t half_pixel_centers, int32_t input_size,
                          int32_t *position, int32_t *lower, int32_t *upper)
{
    const int32_t v = half_pixel_centers ? i * scale_10 + scale_10 / 2 - (1 << 9) : i * scale_10;
    const int32_t lo = v / (1 << 10), hi = (v + (1 << 10) - 1) / (1 << 10);
    *position = v;
    *lower = lo > 0 ? lo : 0;
    *upper = hi < input_size - 1 ? hi : input_size - 1;
}

/* One axis' scale: positions fit int32 and the last output index's lower input index lies in
   the input (positions grow with the index, so the last bounds them all). */
static ap_status bilinear_check_axis(int32_t scale_10, int32_t half_pixel_centers, int32_t input_size,
                                     int32_t output_size, const char *axis, ap_error *error)
{
    if (scale_10 < 0) {
        return AP_OPS_INVALID(error, BILINEAR_OP ": %s_scale_10 %d must be >= 0", axis, (int)scale_10);
    }
    const int64_t last = (int64_t)(output_size - 1) * scale_10 + scale_10 / 2 + (1 << 10);
    if (last > INT32_MAX) {
        return AP_OPS_INVALID(error, BILINEAR_OP ": %s_scale_10 %d over %d outputs overflows int32", axis,
                              (int)scale_10, (int)output_size);
    }
    int32_t v, lo, hi;
    bilinear_axis(output_size - 1, scale_10, half_pixel_centers, input_size, &v, &lo, &hi);
    if (lo > input_size - 1) {
        return AP_OPS_INVALID(error, BILINEAR_OP ": %s_scale_10 %d reads input index %d of %d", axis,
                              (int)scale_10, (int)lo, (int)input_size);
    }
    return AP_OK;
}

/* What the int8 and float32 RESIZE_BILINEAR rows check alike: the geometry
   (resize_check_geometry) and half_pixel_centers 0 or 1. */
static ap_status bilinear_check_shape(const int32_t *dims, int32_t half_pixel_centers, const char *op,
                                      size_t *output_count, ap_error *error)
{
    ap_status st = resize_check_geometry(dims, op, output_count, error);
    if (st == AP_OK && half_pixel_centers != 0 && half_pixel_centers != 1) {
        st = AP_OPS_INVALID(error, "%s: half_pixel_centers %d must be 0 or 1", op, (int)half_pixel_centers);
    }
    return st;
}

static ap_status bilinear_check(const ap_resize_bilinear_params *p, size_t *output_count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, BILINEAR_OP ": params must not be NULL");
    }
    const int32_t dims[6] = {p->batches, p->input_h, p->input_w, p->channels, p->output_h, p->output_w};
    ap_status st = bilinear_check_shape(dims, p->half_pixel_centers, BILINEAR_OP, output_count, error);
    if (st != AP_OK) {
        return st;
    }
    st = bilinear_check_axis(p->height_scale_10, p->half_pixel_centers, p->input_h, p->output_h, "height", error);
    return st != AP_OK ? st : bilinear_check_axis(p->width_scale_10, p->half_pixel_centers, p->input_w,
                                                  p->output_w, "width", error);
}

ap_status ap_resize_bilinear_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                         uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    size_t count = 0;
    ap_status st = bilinear_check(params, &count, error_out);
    const ap_resize_bilinear_params *p = params;
    return st != AP_OK ? st : resize_variants(count, bilinear_table_bytes(p->input_w, p->channels, p->output_w),
                                              bilinear_rows_bytes(p->channels, p->output_w), isa, variants_out,
                                              capacity, count_out, BILINEAR_OP, error_out);
}

/* column_table: the table is output_w entries {x0 * c, x1 * c, wx0, wx1}; each output row's y
   values once, then every value four int32 products (bounds at AP_RESIZE_COLUMN_TABLE). */
static void bilinear_s8_fill_table(const ap_resize_bilinear_params *p, int32_t *table)
{
    const int32_t c = p->channels;
    for (int32_t x = 0; x < p->output_w; ++x) {
        int32_t vx, x0, x1;
        bilinear_axis(x, p->width_scale_10, p->half_pixel_centers, p->input_w, &vx, &x0, &x1);
        table[4 * x] = x0 * c;
        table[4 * x + 1] = x1 * c;
        table[4 * x + 2] = (1 << 10) - (vx - (1 << 10) * x0);
        table[4 * x + 3] = vx - (1 << 10) * x0;
    }
}

static void bilinear_s8_column_table(const ap_resize_bilinear_params *p, const int8_t *in, int8_t *out,
                                     void *scratch)
{
    int32_t *table = scratch;
    const int32_t c = p->channels;
    bilinear_s8_fill_table(p, table);
    const size_t row = (size_t)p->input_w * (size_t)c, image = (size_t)p->input_h * row;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *src = in + (size_t)b * image;
        for (int32_t y = 0; y < p->output_h; ++y) {
            int32_t vy, y0, y1;
            bilinear_axis(y, p->height_scale_10, p->half_pixel_centers, p->input_h, &vy, &y0, &y1);
            const int32_t wy1 = vy - (1 << 10) * y0, wy0 = (1 << 10) - wy1;
            const int8_t *r0 = src + (size_t)y0 * row, *r1 = src + (size_t)y1 * row;
            const int32_t *t = table;
            for (int32_t x = 0; x < p->output_w; ++x, t += 4) {
                const int8_t *a = r0 + t[0], *b1 = r1 + t[0], *d = r0 + t[1], *e = r1 + t[1];
                const int32_t wx0 = t[2], wx1 = t[3];
                for (int32_t k = 0; k < c; ++k) {
                    const int32_t sum = wx0 * (a[k] * wy0 + b1[k] * wy1) + wx1 * (d[k] * wy0 + e[k] * wy1);
                    *out++ = (int8_t)((sum + (sum > 0 ? (1 << 19) : -(1 << 19))) / (1 << 20));
                }
            }
        }
    }
}

/* One input row interpolated across: h[x * c + k] = wx0 * r[x0 * c + k] + wx1 * r[x1 * c + k]
   (|h| <= 128 * 2048). */
static void bilinear_s8_across(const int8_t *r, const int32_t *table, int32_t output_w, int32_t c, int32_t *h)
{
    for (int32_t x = 0; x < output_w; ++x, table += 4) {
        const int8_t *a = r + table[0], *d = r + table[1];
        const int32_t wx0 = table[2], wx1 = table[3];
        for (int32_t k = 0; k < c; ++k) {
            *h++ = wx0 * a[k] + wx1 * d[k];
        }
    }
}

/* row_cache: rows[0..n) and rows[n..2n) hold the input rows held[0] and held[1] interpolated
   across (-1: none yet); an output row reuses them when its y0 or y1 is one of them. */
static void bilinear_s8_row_cache(const ap_resize_bilinear_params *p, const int8_t *in, int8_t *out,
                                  void *table_scratch, void *rows)
{
    int32_t *table = table_scratch;
    const int32_t c = p->channels;
    const size_t n = (size_t)p->output_w * (size_t)c, row = (size_t)p->input_w * (size_t)c;
    const size_t image = (size_t)p->input_h * row;
    bilinear_s8_fill_table(p, table);
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *src = in + (size_t)b * image;
        int32_t *h[2] = {rows, (int32_t *)rows + n};
        int32_t held[2] = {-1, -1};
        for (int32_t y = 0; y < p->output_h; ++y) {
            int32_t vy, y0, y1;
            bilinear_axis(y, p->height_scale_10, p->half_pixel_centers, p->input_h, &vy, &y0, &y1);
            const int32_t wy1 = vy - (1 << 10) * y0, wy0 = (1 << 10) - wy1;
            if (held[0] != y0) {
                if (held[1] == y0) {   /* the last row's y1 is this row's y0 */
                    int32_t *t = h[0];
                    h[0] = h[1], h[1] = t;
                    held[1] = held[0], held[0] = y0;
                } else {
                    bilinear_s8_across(src + (size_t)y0 * row, table, p->output_w, c, h[0]);
                    held[0] = y0;
                }
            }
            if (y1 != y0 && held[1] != y1) {
                bilinear_s8_across(src + (size_t)y1 * row, table, p->output_w, c, h[1]);
                held[1] = y1;
            }
            const int32_t *h0 = h[0], *h1 = y1 == y0 ? h[0] : h[1];
            for (size_t i = 0; i < n; ++i) {
                const int32_t sum = wy0 * h0[i] + wy1 * h1[i];
                *out++ = (int8_t)((sum + (sum > 0 ? (1 << 19) : -(1 << 19))) / (1 << 20));
            }
        }
    }
}

ap_status ap_resize_bilinear_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    /* one code for every ISA: four int64 products an output */
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, BILINEAR_OP ": call must not be NULL");
    }
    const ap_resize_bilinear_params *p = call->params;
    size_t count = 0;
    ap_status st = bilinear_check(p, &count, error_out);
    if (st == AP_OK) {
        st = resize_check_call(call, isa, BILINEAR_OP, AP_RESIZE_ROW_CACHE, error_out);
    }
    if (st == AP_OK && call->variant->kind != AP_RESIZE_DIRECT) {
        st = bilinear_check_table(call, p->input_w, p->channels, p->output_w,
                                  bilinear_rows_bytes(p->channels, p->output_w), BILINEAR_OP, error_out);
    }
    if (st != AP_OK) {
        return st;
    }
    const int8_t *in = call->inputs[0];
    int8_t *out = call->output;
    const size_t c = (size_t)p->channels, row = (size_t)p->input_w * c, image = (size_t)p->input_h * row;
    if (call->variant->kind == AP_RESIZE_COLUMN_TABLE) {
        bilinear_s8_column_table(p, in, out, call->scratch[0].data);
        return AP_OK;
    }
    if (call->variant->kind == AP_RESIZE_ROW_CACHE) {
        bilinear_s8_row_cache(p, in, out, call->scratch[0].data, call->scratch[1].data);
        return AP_OK;
    }
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *src = in + (size_t)b * image;
        for (int32_t y = 0; y < p->output_h; ++y) {
            int32_t vy, y0, y1;
            bilinear_axis(y, p->height_scale_10, p->half_pixel_centers, p->input_h, &vy, &y0, &y1);
            const int64_t wy1 = (int64_t)vy - (int64_t)(1 << 10) * y0, wy0 = (1 << 10) - wy1;
            const int8_t *r0 = src + (size_t)y0 * row, *r1 = src + (size_t)y1 * row;
            for (int32_t x = 0; x < p->output_w; ++x) {
                int32_t vx, x0, x1;
                bilinear_axis(x, p->width_scale_10, p->half_pixel_centers, p->input_w, &vx, &x0, &x1);
                const int64_t wx1 = (int64_t)vx - (int64_t)(1 << 10) * x0, wx0 = (1 << 10) - wx1;
                const int8_t *a = r0 + (size_t)x0 * c, *b1 = r1 + (size_t)x0 * c;
                const int8_t *d = r0 + (size_t)x1 * c, *e = r1 + (size_t)x1 * c;
                for (size_t k = 0; k < c; ++k) {
                    const int64_t sum = a[k] * wy0 * wx0 + b1[k] * wy1 * wx0 + d[k] * wy0 * wx1 + e[k] * wy1 * wx1;
                    const int64_t round = sum > 0 ? (1 << 19) : -(1 << 19);
                    /* the weights sum to 2^20 and every value is int8: the quotient is too */
                    *out++ = (int8_t)((sum + round) / (1 << 20));
                }
            }
        }
    }
    return AP_OK;
}

/* ---- RESIZE_BILINEAR float32 ------------------------------------------------------------- */
#define BILINEAR_F32_OP "resize_bilinear float32"

static ap_status bilinear_f32_check(const ap_resize_bilinear_f32_params *p, size_t *output_count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, BILINEAR_F32_OP ": params must not be NULL");
    }
    const int32_t dims[6] = {p->batches, p->input_h, p->input_w, p->channels, p->output_h, p->output_w};
    ap_status st = bilinear_check_shape(dims, p->half_pixel_centers, BILINEAR_F32_OP, output_count, error);
    if (st != AP_OK) {
        return st;
    }
    /* positions stay below 2^24 + 1, so floorf and ceilf convert to int32 exactly */
    const float limit_h = 16777216.0f / (float)p->output_h, limit_w = 16777216.0f / (float)p->output_w;
    if (!(p->height_scale >= 0.0f && p->height_scale <= limit_h) ||
        !(p->width_scale >= 0.0f && p->width_scale <= limit_w)) {
        return AP_OPS_INVALID(error, BILINEAR_F32_OP ": scales %g and %g must be finite, >= 0 and at most 2^24 over "
                              "the output size", (double)p->height_scale, (double)p->width_scale);
    }
    if (*output_count > SIZE_MAX / sizeof(float)) {
        return AP_OPS_OVERFLOW(error, BILINEAR_F32_OP ": the output's size overflows");
    }
    return AP_OK;
}

ap_status ap_resize_bilinear_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                          uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    size_t count = 0;
    ap_status st = bilinear_f32_check(params, &count, error_out);
    const ap_resize_bilinear_f32_params *p = params;
    return st != AP_OK ? st : resize_variants(count, bilinear_table_bytes(p->input_w, p->channels, p->output_w), 0,
                                              isa, variants_out, capacity, count_out, BILINEAR_F32_OP, error_out);
}

/* TFLite's ComputeInterpolationValues (float): the position v of output index i and the two input
   indices around it, each kept inside the input. */
static void bilinear_f32_axis(int32_t i, float scale, int32_t half_pixel_centers, int32_t input_size, float *v,
                              int32_t *lower, int32_t *upper)
{
    const float x = half_pixel_centers ? ((float)i + 0.5f) * scale - 0.5f : (float)i * scale;
    const int32_t lo = (int32_t)floorf(x), hi = (int32_t)ceilf(x);
    *v = x;
    *lower = lo < 0 ? 0 : lo > input_size - 1 ? input_size - 1 : lo;
    *upper = hi > input_size - 1 ? input_size - 1 : hi < 0 ? 0 : hi;
}

/* column_table: the table is output_w entries {x0 * c, x1 * c (int32), dx, 1 - dx (float)}; the
   blend is direct's, in its order. */
static void bilinear_f32_column_table(const ap_resize_bilinear_f32_params *p, const float *in, float *out,
                                      void *scratch)
{
    int32_t *offsets = scratch;
    float *weights = scratch;
    const int32_t c = p->channels;
    for (int32_t x = 0; x < p->output_w; ++x) {
        float vx;
        int32_t x0, x1;
        bilinear_f32_axis(x, p->width_scale, p->half_pixel_centers, p->input_w, &vx, &x0, &x1);
        const float dx = vx - (float)x0;
        offsets[4 * x] = x0 * c;
        offsets[4 * x + 1] = x1 * c;
        weights[4 * x + 2] = dx;
        weights[4 * x + 3] = 1.0f - dx;
    }
    const size_t row = (size_t)p->input_w * (size_t)c, image = (size_t)p->input_h * row;
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *src = in + (size_t)b * image;
        for (int32_t y = 0; y < p->output_h; ++y) {
            float vy;
            int32_t y0, y1;
            bilinear_f32_axis(y, p->height_scale, p->half_pixel_centers, p->input_h, &vy, &y0, &y1);
            const float dy = vy - (float)y0, ey = 1.0f - dy;
            const float *r0 = src + (size_t)y0 * row, *r1 = src + (size_t)y1 * row;
            for (int32_t x = 0; x < p->output_w; ++x) {
                const float *p00 = r0 + offsets[4 * x], *p10 = r1 + offsets[4 * x];
                const float *p01 = r0 + offsets[4 * x + 1], *p11 = r1 + offsets[4 * x + 1];
                const float dx = weights[4 * x + 2], ex = weights[4 * x + 3];
                for (int32_t k = 0; k < c; ++k) {
                    *out++ = p00[k] * ey * ex + p10[k] * dy * ex + p01[k] * ey * dx + p11[k] * dy * dx + 0.0f;
                }
            }
        }
    }
}

ap_status ap_resize_bilinear_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    /* one code for every ISA: four products an output, in the reference's order */
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, BILINEAR_F32_OP ": call must not be NULL");
    }
    const ap_resize_bilinear_f32_params *p = call->params;
    size_t count = 0;
    ap_status st = bilinear_f32_check(p, &count, error_out);
    if (st == AP_OK) {
        st = resize_check_call(call, isa, BILINEAR_F32_OP, AP_RESIZE_COLUMN_TABLE, error_out);
    }
    if (st == AP_OK && call->variant->kind == AP_RESIZE_COLUMN_TABLE) {
        st = bilinear_check_table(call, p->input_w, p->channels, p->output_w, 0, BILINEAR_F32_OP, error_out);
    }
    if (st != AP_OK) {
        return st;
    }
    const float *in = call->inputs[0];
    float *out = call->output;
    const size_t c = (size_t)p->channels, row = (size_t)p->input_w * c, image = (size_t)p->input_h * row;
    if (call->variant->kind == AP_RESIZE_COLUMN_TABLE) {
        bilinear_f32_column_table(p, in, out, call->scratch[0].data);
        return AP_OK;
    }
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *src = in + (size_t)b * image;
        for (int32_t y = 0; y < p->output_h; ++y) {
            float vy;
            int32_t y0, y1;
            bilinear_f32_axis(y, p->height_scale, p->half_pixel_centers, p->input_h, &vy, &y0, &y1);
            const float dy = vy - (float)y0;
            for (int32_t x = 0; x < p->output_w; ++x) {
                float vx;
                int32_t x0, x1;
                bilinear_f32_axis(x, p->width_scale, p->half_pixel_centers, p->input_w, &vx, &x0, &x1);
                const float dx = vx - (float)x0;
                const float *p00 = src + (size_t)y0 * row + (size_t)x0 * c, *p10 = src + (size_t)y1 * row + (size_t)x0 * c;
                const float *p01 = src + (size_t)y0 * row + (size_t)x1 * c, *p11 = src + (size_t)y1 * row + (size_t)x1 * c;
                for (size_t k = 0; k < c; ++k) {
                    /* + 0.0f: the reference's rounding offset (0 for float), so -0 sums to +0 */
                    *out++ = p00[k] * (1.0f - dy) * (1.0f - dx) + p10[k] * dy * (1.0f - dx) +
                             p01[k] * (1.0f - dy) * dx + p11[k] * dy * dx + 0.0f;
                }
            }
        }
    }
    return AP_OK;
}
