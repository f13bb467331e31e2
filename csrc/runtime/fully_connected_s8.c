/* FULLY_CONNECTED int8: variants, prepare, run (portable C; the AVX2 and arm-dsp row kernels dispatched). */
#include "arenaplan/fully_connected.h"

#include <string.h>

#include "fixedpoint.h"
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"

#define FC_OP "fully_connected"
#define FC_MAGIC 0x43464141u /* "AAFC" */
#define FC_VERSION 2u
#define FC_MAX_DEPTH 65536
#define FC_ROWS 8   /* output rows per packed block */
#define FC_DEPTH 4  /* depth per packed group: [block][group][8 rows][4 depth] */
/* header.flags: every weight is within [-127, 127] (TFLite's int8 weight range), so
   |x| * (sign(x) * w) pairs fit vpmaddubsw's int16 without saturating. */
#define FC_FLAG_NO_MIN_WEIGHT 1u

typedef struct fc_header {
    uint32_t magic;
    uint32_t version;
    int32_t input_depth;
    int32_t output_depth;
    int32_t input_offset;
    int32_t filter_offset;
    uint32_t flags;
    int32_t isa;          /* the ISA the blob was packed for (every ISA reads this layout) */
} fc_header;

typedef struct fc_layout {
    size_t rows_padded;
    size_t depth_padded;
    size_t bias;    /* byte offsets */
    size_t packed;
    size_t total;
} fc_layout;

static ap_status fc_check_shape(const ap_fully_connected_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, FC_OP ": params must not be NULL");
    }
    if (p->batches < 1 || p->input_depth < 1 || p->output_depth < 1) {
        return AP_OPS_INVALID(error, FC_OP ": batches, input_depth and output_depth must be >= 1 "
                              "(got %d, %d, %d)", (int)p->batches, (int)p->input_depth, (int)p->output_depth);
    }
    if (p->input_depth > FC_MAX_DEPTH) {
        return AP_OPS_UNSUPPORTED(error, FC_OP ": input_depth %d exceeds %d", (int)p->input_depth, FC_MAX_DEPTH);
    }
    if (!ap_ops_input_offset_ok(p->input_offset) || !ap_ops_input_offset_ok(p->filter_offset)) {
        return AP_OPS_INVALID(error, FC_OP ": input_offset %d / filter_offset %d outside [-127, 128]",
                              (int)p->input_offset, (int)p->filter_offset);
    }
    size_t n;
    const int32_t in_dims[] = {p->batches, p->input_depth};
    const int32_t out_dims[] = {p->batches, p->output_depth};
    if (!ap_ops_product(in_dims, 2, &n) || !ap_ops_product(out_dims, 2, &n)) {
        return AP_OPS_OVERFLOW(error, FC_OP ": a tensor size overflows");
    }
    return AP_OK;
}

/* Requantisation fields: fixed point (ap_requant arrays) or LiteRT's double scales. */
static ap_status fc_check_requant(const ap_fully_connected_params *p, ap_error *error)
{
    if (p->reference != AP_REFERENCE_LITERT && p->reference != AP_REFERENCE_TFLM) {
        return AP_OPS_INVALID(error, FC_OP ": reference %d is neither litert (0) nor tflm (1)", (int)p->reference);
    }
    if (p->reference == AP_REFERENCE_TFLM && p->real_scale != NULL) {
        return AP_OPS_INVALID(error, FC_OP ": reference tflm requantises in fixed point; real_scale must be NULL");
    }
    if (p->real_scale == NULL) {
        return ap_ops_check_requant(&p->requant, p->output_depth, 31, FC_OP, error);
    }
    const ap_requant *rq = &p->requant;
    if (rq->per_channel != 0 && rq->per_channel != 1) {
        return AP_OPS_INVALID(error, FC_OP ": requant.per_channel must be 0 or 1 (got %d)", (int)rq->per_channel);
    }
    if (!ap_ops_int8_range(rq->output_offset) || !ap_ops_int8_range(rq->activation_min) ||
        !ap_ops_int8_range(rq->activation_max) || rq->activation_min > rq->activation_max) {
        return AP_OPS_INVALID(error, FC_OP ": output_offset %d or activation range [%d, %d] invalid",
                              (int)rq->output_offset, (int)rq->activation_min, (int)rq->activation_max);
    }
    const int32_t n = rq->per_channel ? p->output_depth : 1;
    /* Checked at every run: a branch-free pass first (NaN fails `v >= 0`), the loop that
       names the offending entry only when it fails. */
    int all_ok = 1;
    for (int32_t i = 0; i < n; ++i) {
        const double v = p->real_scale[i];
        all_ok &= (v >= 0.0) & (v <= 1e300);
    }
    if (all_ok) {
        return AP_OK;
    }
    for (int32_t i = 0; i < n; ++i) {
        const double v = p->real_scale[i];
        if (!(v >= 0.0) || v > 1e300) {
            return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, i, 0, 0,
                               FC_OP ": real_scale[%d] must be finite and >= 0", (int)i);
        }
    }
    return AP_OK;
}

static ap_status fc_layout_of(const ap_fully_connected_params *p, fc_layout *l, ap_error *error)
{
    l->rows_padded = ap_ops_align_up((size_t)p->output_depth, FC_ROWS);
    l->depth_padded = ap_ops_align_up((size_t)p->input_depth, FC_DEPTH);
    size_t packed_bytes;
    if (!ap_ops_mul(l->rows_padded, l->depth_padded, &packed_bytes)) {
        return AP_OPS_OVERFLOW(error, FC_OP ": prepared size overflows");
    }
    l->bias = sizeof(fc_header);
    l->packed = l->bias + 4 * l->rows_padded;
    if (!ap_ops_add(l->packed, packed_bytes, &l->total)) {
        return AP_OPS_OVERFLOW(error, FC_OP ": prepared size overflows");
    }
    return AP_OK;
}

/* Each ISA's variants: arm-dsp has SMLAD kernels of its own, the others run "direct" (the
   portable loop, or the AVX2 row kernel on x86-avx2). The int16 copy exists only where the
   input has a whole group of four depths. */
static int fc_variant_applies(const ap_fully_connected_params *p, int32_t isa, int32_t kind, int32_t param)
{
    if (param != 0) {
        return 0;
    }
    if (ap_ops_runs_arm_dsp(isa)) {
        return kind == AP_FULLY_CONNECTED_SMLAD || (kind == AP_FULLY_CONNECTED_SMLAD_X16 && p->input_depth >= FC_DEPTH);
    }
    return kind == AP_FULLY_CONNECTED_DIRECT;
}

static ap_status fc_variant_scratch(const ap_fully_connected_params *p, int32_t kind, int32_t param,
                                    size_t *bytes, size_t *alignment, uint32_t *count, ap_error *error)
{
    (void)param, (void)error;
    *count = 0;
    if (kind == AP_FULLY_CONNECTED_SMLAD_X16) {
        /* two int16 words per whole group: input_depth <= FC_MAX_DEPTH, no overflow */
        bytes[0] = 2 * (size_t)(p->input_depth / FC_DEPTH) * FC_DEPTH;
        alignment[0] = 4;
        *count = 1;
    }
    return AP_OK;
}

ap_status ap_fully_connected_s8_variants(const ap_fully_connected_params *params,
                                         ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                         uint32_t *count_out, ap_error *error_out)
{
    ap_status st = fc_check_shape(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (ap_isa_name(isa) == NULL) {
        return AP_OPS_INVALID(error_out, FC_OP ": %d is not an instruction set (ap_isa)", (int)isa);
    }
    /* least scratch first */
    static const struct { int32_t kind; const char *name; } kinds[] = {
        {AP_FULLY_CONNECTED_DIRECT, "direct"},
        {AP_FULLY_CONNECTED_SMLAD, "smlad"},
        {AP_FULLY_CONNECTED_SMLAD_X16, "smlad_x16"},
    };
    ap_variant found[3];
    size_t bytes[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
    uint32_t count;
    uint32_t n = 0;
    const uint64_t macs = (uint64_t)params->batches * (uint64_t)params->output_depth * (uint64_t)params->input_depth;
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); ++k) {
        if (!fc_variant_applies(params, (int32_t)isa, kinds[k].kind, 0)) {
            continue;
        }
        if ((st = fc_variant_scratch(params, kinds[k].kind, 0, bytes, align, &count, error_out)) != AP_OK) {
            return st;
        }
        ap_ops_variant_set(&found[n++], kinds[k].kind, 0, kinds[k].name, count, bytes, align, macs, 0);
    }
    return ap_ops_variants_out(found, n, isa, variants_out, capacity, count_out, FC_OP, error_out);
}

ap_status ap_fully_connected_s8_prepared_size(const ap_fully_connected_params *params,
                                              size_t *bytes_out, ap_error *error_out)
{
    ap_status st = fc_check_shape(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (bytes_out == NULL) {
        return AP_OPS_INVALID(error_out, FC_OP ": bytes_out must not be NULL");
    }
    fc_layout l = {0, 0, 0, 0, 0};
    st = fc_layout_of(params, &l, error_out);
    if (st == AP_OK) {
        *bytes_out = l.total;
    }
    return st;
}

ap_status ap_fully_connected_s8_prepare(const ap_fully_connected_params *params, ap_isa isa,
                                        const int8_t *filter, const int32_t *bias,
                                        void *prepared_out, size_t prepared_bytes,
                                        ap_error *error_out)
{
    if (ap_isa_name(isa) == NULL) {
        return AP_OPS_INVALID(error_out, FC_OP ": %d is not an instruction set (ap_isa)", (int)isa);
    }
    ap_status st = fc_check_shape(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (filter == NULL || prepared_out == NULL) {
        return AP_OPS_INVALID(error_out, FC_OP ": filter and prepared_out must not be NULL");
    }
    if (((uintptr_t)prepared_out & 3u) != 0) {
        return AP_OPS_INVALID(error_out, FC_OP ": prepared_out must be 4-byte aligned");
    }
    fc_layout l = {0, 0, 0, 0, 0};
    if ((st = fc_layout_of(params, &l, error_out)) != AP_OK) {
        return st;
    }
    if (prepared_bytes < l.total) {
        return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, l.total,
                           prepared_bytes, FC_OP ": prepared buffer needs %llu bytes, got %llu",
                           (unsigned long long)l.total, (unsigned long long)prepared_bytes);
    }
    uint8_t *base = (uint8_t *)prepared_out;
    memset(base, 0, l.total);
    fc_header h;
    memset(&h, 0, sizeof(h));
    h.magic = FC_MAGIC;
    h.version = FC_VERSION;
    h.isa = (int32_t)isa;
    h.input_depth = params->input_depth;
    h.output_depth = params->output_depth;
    h.input_offset = params->input_offset;
    h.filter_offset = params->filter_offset;
    h.flags = FC_FLAG_NO_MIN_WEIGHT;
    for (size_t i = 0; i < (size_t)params->output_depth * (size_t)params->input_depth; ++i) {
        if (filter[i] == INT8_MIN) {
            h.flags = 0;
            break;
        }
    }
    memcpy(base, &h, sizeof(h));
    int32_t *bias_folded = (int32_t *)(void *)(base + l.bias);
    int8_t *packed = (int8_t *)(base + l.packed);
    const size_t depth = (size_t)params->input_depth;
    const int64_t io = params->input_offset, fo = params->filter_offset;
    for (size_t o = 0; o < (size_t)params->output_depth; ++o) {
        const int8_t *w = filter + o * depth;
        int64_t sum = 0;
        for (size_t d = 0; d < depth; ++d) {
            sum += w[d];
        }
        int64_t b = bias != NULL ? bias[o] : 0;
        /* Wraps mod 2^32 like the int32 accumulator does. */
        bias_folded[o] = (int32_t)(uint32_t)(uint64_t)(b + io * sum + (int64_t)depth * fo * io);
        int8_t *block = packed + (o / FC_ROWS) * FC_ROWS * l.depth_padded + (o % FC_ROWS) * FC_DEPTH;
        for (size_t d = 0; d < depth; ++d) {
            block[(d / FC_DEPTH) * FC_ROWS * FC_DEPTH + d % FC_DEPTH] = w[d];
        }
    }
    return AP_OK;
}

static void fc_row_portable(const ap_fc_row *r)
{
    const ap_requant *rq = r->requant;
    const size_t dp = (size_t)r->depth_padded;
    for (int32_t o = 0; o < r->output_depth; ++o) {
        const int8_t *w = r->packed + (size_t)(o / FC_ROWS) * FC_ROWS * dp + (size_t)(o % FC_ROWS) * FC_DEPTH;
        int32_t acc = 0;
        for (int32_t d = 0; d < r->input_depth; ++d) {
            acc += r->input[d] * w[(size_t)(d / FC_DEPTH) * FC_ROWS * FC_DEPTH + (size_t)(d % FC_DEPTH)];
        }
        acc = ap_ops_wrap_add(ap_ops_wrap_add(acc, r->row_term), r->bias[o]);
        const int32_t i = rq->per_channel ? o : 0;
        if (r->real_scale != NULL) {
            r->out[o] = ap_ops_requant_double(acc, r->real_scale[i], rq->output_offset, rq->activation_min,
                                              rq->activation_max);
            continue;
        }
        int32_t v = ap_fp_multiply_by_nonneg_multiplier(acc, rq->multiplier[i], rq->shift[i]) + rq->output_offset;
        r->out[o] = (int8_t)ap_ops_clamp(v, rq->activation_min, rq->activation_max);
    }
}

ap_status ap_fully_connected_s8_run(const ap_fully_connected_params *params,
                                    const ap_variant *variant, const void *prepared,
                                    const int8_t *input, int8_t *output,
                                    const ap_scratch *scratch, uint32_t scratch_count,
                                    ap_error *error_out)
{
    ap_status st = fc_check_shape(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    if ((st = ap_ops_check_variant_ptr(variant, FC_OP, error_out)) != AP_OK) {
        return st;
    }
    if (prepared == NULL || input == NULL || output == NULL) {
        return AP_OPS_INVALID(error_out, FC_OP ": prepared, input and output must not be NULL");
    }
    if (((uintptr_t)prepared & 3u) != 0) {
        return AP_OPS_INVALID(error_out, FC_OP ": prepared must be 4-byte aligned");
    }
    fc_header h;
    memcpy(&h, prepared, sizeof(h));
    if (h.magic != FC_MAGIC || h.version != FC_VERSION || h.input_depth != params->input_depth ||
        h.output_depth != params->output_depth || h.input_offset != params->input_offset ||
        h.filter_offset != params->filter_offset || ap_isa_name(h.isa) == NULL) {
        return AP_OPS_INVALID(error_out, FC_OP ": prepared data was not made by _prepare for these "
                              "params (depths or offsets differ)");
    }
    /* After the header: the requant arrays' length follows output_depth. */
    if ((st = fc_check_requant(params, error_out)) != AP_OK) {
        return st;
    }
    if (!fc_variant_applies(params, variant->isa, variant->kind, variant->param)) {
        return AP_OPS_INVALID(error_out, FC_OP ": variant kind %d param %d is not one of the %s variants",
                              (int)variant->kind, (int)variant->param, ap_isa_name(variant->isa));
    }
    size_t need[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
    uint32_t need_count;
    if ((st = fc_variant_scratch(params, variant->kind, variant->param, need, align, &need_count, error_out)) != AP_OK ||
        (st = ap_ops_check_scratch(FC_OP, variant->name, need, need_count, scratch, scratch_count, error_out)) != AP_OK) {
        return st;
    }
    if (need_count > 0 && ((uintptr_t)scratch[0].data & (align[0] - 1)) != 0) {
        return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_BUFFER, 0, align[0], 0,
                           FC_OP " variant '%s': scratch buffer 0 must be %llu-byte aligned", variant->name,
                           (unsigned long long)align[0]);
    }
    fc_layout l = {0, 0, 0, 0, 0};
    if ((st = fc_layout_of(params, &l, error_out)) != AP_OK) {
        return st;
    }
    const uint8_t *base = (const uint8_t *)prepared;
    const int use_avx2 = ap_ops_runs_avx2(variant->isa);
    const int use_dsp = ap_ops_runs_arm_dsp(variant->isa);
    uint32_t *widened = variant->kind == AP_FULLY_CONNECTED_SMLAD_X16 ? (uint32_t *)scratch[0].data : NULL;
    for (int32_t b = 0; b < params->batches; ++b) {
        ap_fc_row r;
        r.input = input + (size_t)b * (size_t)params->input_depth;
        r.input_depth = params->input_depth;
        r.depth_padded = (int32_t)l.depth_padded;
        r.output_depth = params->output_depth;
        r.packed = (const int8_t *)(base + l.packed);
        r.bias = (const int32_t *)(const void *)(base + l.bias);
        r.row_term = 0;
        if (params->filter_offset != 0) {
            int32_t sum = 0;
            for (int32_t d = 0; d < params->input_depth; ++d) {
                sum += r.input[d];
            }
            r.row_term = params->filter_offset * sum;
        }
        r.requant = &params->requant;
        r.real_scale = params->real_scale;
        r.no_min_weight = (h.flags & FC_FLAG_NO_MIN_WEIGHT) != 0;
        r.out = output + (size_t)b * (size_t)params->output_depth;
        if (use_dsp) {
            ap_fc_row_arm_dsp(&r, widened);
        } else if (use_avx2) {
#if AP_OPS_HAVE_AVX2
            ap_fc_row_avx2(&r);
#endif
        } else {
            fc_row_portable(&r);
        }
    }
    return AP_OK;
}
