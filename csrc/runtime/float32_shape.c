/* float32 CONCATENATION, MEAN and STRIDED_SLICE (arenaplan/ops.h, AP_TYPES_F32): TFLite's float
   reference kernels (MEAN's sums in the input's order, float32_common.h); int64 CONCATENATION
   (AP_TYPES_S64), the float32 row's copy of wider values. */
#include "float32_common.h"

#include "arenaplan/shape_ops.h"

/* ---- CONCATENATION (float32; int64 on the same params, arenaplan/ops.h) --------------------- */
#define CONCAT_OP "CONCATENATION float32"
#define CONCAT64_OP "CONCATENATION int64"

static ap_status concat_check(const ap_concatenation_f32_params *p, size_t elem, const char *op, size_t *count,
                              ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    if (p->axis < 0 || p->axis > 3 || p->input_count < 1 || p->input_count > AP_CONCAT_MAX_INPUTS ||
        p->input_axis_sizes == NULL) {
        return AP_OPS_INVALID(error, "%s: axis %d must lie in [0, 4) and input_count %u in [1, %d] with "
                              "its axis sizes", op, (int)p->axis, (unsigned)p->input_count, (int)AP_CONCAT_MAX_INPUTS);
    }
    int64_t total = 0;
    for (uint32_t i = 0; i < p->input_count; ++i) {
        if (p->input_axis_sizes[i] < 1) {
            return AP_OPS_INVALID(error, "%s: input %u has axis size %d", op, (unsigned)i,
                                  (int)p->input_axis_sizes[i]);
        }
        total += p->input_axis_sizes[i];
    }
    for (int d = 0; d < 4; ++d) {
        if (p->output_shape[d] < 1) {
            return AP_OPS_INVALID(error, "%s: output dimension %d is %d", op, d, (int)p->output_shape[d]);
        }
    }
    if (total != p->output_shape[p->axis]) {
        return AP_OPS_INVALID(error, "%s: the inputs' axis sizes sum to %lld, the output has %d", op,
                              (long long)total, (int)p->output_shape[p->axis]);
    }
    if (!ap_ops_product(p->output_shape, 4, count) || *count > SIZE_MAX / elem) {
        return AP_OPS_OVERFLOW(error, "%s: the output's size overflows", op);
    }
    return AP_OK;
}

static ap_status concat_variants(const void *params, size_t elem, const char *op, ap_isa isa,
                                 ap_variant *variants_out, uint32_t capacity, uint32_t *count_out, ap_error *error)
{
    size_t n = 0;
    ap_status st = concat_check(params, elem, op, &n, error);
    return st != AP_OK ? st : ap_f32_direct((uint64_t)n, 0, isa, variants_out, capacity, count_out, op, error);
}

/* A copy of `elem`-byte values: each input's rows in turn into each output row. */
static ap_status concat_run(const ap_op_call *call, ap_isa isa, size_t elem, const char *op, ap_error *error)
{
    const ap_concatenation_f32_params *p = call != NULL ? call->params : NULL;
    size_t n = 0;
    ap_status st = concat_check(p, elem, op, &n, error);
    st = st != AP_OK ? st : ap_f32_check_call(call, isa, p->input_count, op, error);
    if (st != AP_OK) {
        return st;
    }
    size_t outer = 1, inner = 1;
    for (int d = 0; d < p->axis; ++d) {
        outer *= (size_t)p->output_shape[d];
    }
    for (int d = p->axis + 1; d < 4; ++d) {
        inner *= (size_t)p->output_shape[d];
    }
    unsigned char *y = call->output;
    for (size_t o = 0; o < outer; ++o) {
        for (uint32_t i = 0; i < p->input_count; ++i) {
            const size_t run = (size_t)p->input_axis_sizes[i] * inner * elem;
            memcpy(y, (const unsigned char *)call->inputs[i] + o * run, run);
            y += run;
        }
    }
    return AP_OK;
}

ap_status ap_concatenation_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                        uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    return concat_variants(params, sizeof(float), CONCAT_OP, isa, variants_out, capacity, count_out, error_out);
}

ap_status ap_concatenation_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return concat_run(call, isa, sizeof(float), CONCAT_OP, error_out);
}

ap_status ap_concatenation_s64_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                        uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    return concat_variants(params, sizeof(int64_t), CONCAT64_OP, isa, variants_out, capacity, count_out,
                           error_out);
}

ap_status ap_concatenation_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return concat_run(call, isa, sizeof(int64_t), CONCAT64_OP, error_out);
}

/* ---- MEAN ---------------------------------------------------------------------------------- */
#define MEAN_OP "MEAN float32"

static ap_status mean_check(const ap_mean_f32_params *p, size_t *in_count, size_t *out_count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, MEAN_OP ": params must not be NULL");
    }
    if (p->reduce < 1 || p->reduce > 15) {
        return AP_OPS_INVALID(error, MEAN_OP ": reduce %d must mark some of axes 0-3 (bits 0-3)", (int)p->reduce);
    }
    if (!ap_ops_product(p->input_shape, 4, in_count) || *in_count > SIZE_MAX / sizeof(float)) {
        return AP_OPS_OVERFLOW(error, MEAN_OP ": the input's size overflows");
    }
    *out_count = 1;
    for (int d = 0; d < 4; ++d) {
        if (p->input_shape[d] < 1) {
            return AP_OPS_INVALID(error, MEAN_OP ": input dimension %d is %d", d, (int)p->input_shape[d]);
        }
        if (!(p->reduce & (1 << d))) {
            *out_count *= (size_t)p->input_shape[d];
        }
    }
    return AP_OK;
}

ap_status ap_mean_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    size_t n = 0, m = 0;
    ap_status st = mean_check(params, &n, &m, error_out);
    return st != AP_OK ? st : ap_f32_direct((uint64_t)n, 0, isa, variants_out, capacity, count_out, MEAN_OP,
                                            error_out);
}

ap_status ap_mean_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 1, MEAN_OP, error_out);
    const ap_mean_f32_params *p = st == AP_OK ? call->params : NULL;
    size_t n = 0, m = 0;
    st = st != AP_OK ? st : mean_check(p, &n, &m, error_out);
    if (st != AP_OK) {
        return st;
    }
    const float *x = call->inputs[0];
    float *y = call->output;
    /* TFLite sums into the output (from 0.0f) walking the input in order, then divides each
       sum by the count: the output is the accumulator. */
    size_t ostride[4], step = 1, count = 1;
    for (int d = 3; d >= 0; --d) {
        if (p->reduce & (1 << d)) {
            ostride[d] = 0;
            count *= (size_t)p->input_shape[d];
        } else {
            ostride[d] = step;
            step *= (size_t)p->input_shape[d];
        }
    }
    for (size_t i = 0; i < m; ++i) {
        y[i] = 0.0f;
    }
    const int32_t *s = p->input_shape;
    size_t i = 0;
    for (size_t a = 0; a < (size_t)s[0]; ++a) {
        for (size_t b = 0; b < (size_t)s[1]; ++b) {
            for (size_t c = 0; c < (size_t)s[2]; ++c) {
                const size_t base = a * ostride[0] + b * ostride[1] + c * ostride[2];
                for (size_t d = 0; d < (size_t)s[3]; ++d, ++i) {
                    y[base + d * ostride[3]] += x[i];
                }
            }
        }
    }
    const float divisor = (float)count;
    for (size_t k = 0; k < m; ++k) {
        y[k] = y[k] / divisor;
    }
    return AP_OK;
}

/* ---- SUM, REDUCE_MAX, REDUCE_MIN -------------------------------------------------------------- */
#define REDUCE_OP "SUM/REDUCE_MAX/REDUCE_MIN float32"

static ap_status reduce_check(const ap_reduce_f32_params *p, size_t *in_count, size_t *out_count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, REDUCE_OP ": params must not be NULL");
    }
    if (p->fn < AP_REDUCE_F32_SUM || p->fn > AP_REDUCE_F32_MIN) {
        return AP_OPS_INVALID(error, REDUCE_OP ": fn %d is not an ap_reduce_f32_fn", (int)p->fn);
    }
    const ap_mean_f32_params shapes = {{p->input_shape[0], p->input_shape[1], p->input_shape[2], p->input_shape[3]},
                                       p->reduce};
    return mean_check(&shapes, in_count, out_count, error);
}

ap_status ap_reduce_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, ap_error *error_out)
{
    size_t n = 0, m = 0;
    ap_status st = reduce_check(params, &n, &m, error_out);
    return st != AP_OK ? st : ap_f32_direct((uint64_t)n, 0, isa, variants_out, capacity, count_out, REDUCE_OP,
                                            error_out);
}

ap_status ap_reduce_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 1, REDUCE_OP, error_out);
    const ap_reduce_f32_params *p = st == AP_OK ? call->params : NULL;
    size_t n = 0, m = 0;
    st = st != AP_OK ? st : reduce_check(p, &n, &m, error_out);
    if (st != AP_OK) {
        return st;
    }
    const float *x = call->inputs[0];
    float *y = call->output;
    /* the output is the accumulator, the input walked in order (reference_ops::ReduceGeneric) */
    size_t ostride[4], step = 1;
    for (int d = 3; d >= 0; --d) {
        ostride[d] = (p->reduce & (1 << d)) ? 0 : step;
        step *= (p->reduce & (1 << d)) ? 1 : (size_t)p->input_shape[d];
    }
    const float start = p->fn == AP_REDUCE_F32_SUM ? 0.0f : p->fn == AP_REDUCE_F32_MAX ? -FLT_MAX : FLT_MAX;
    for (size_t i = 0; i < m; ++i) {
        y[i] = start;
    }
    const int32_t *s = p->input_shape;
    size_t i = 0;
    for (size_t a = 0; a < (size_t)s[0]; ++a) {
        for (size_t b = 0; b < (size_t)s[1]; ++b) {
            for (size_t c = 0; c < (size_t)s[2]; ++c) {
                float *row = y + a * ostride[0] + b * ostride[1] + c * ostride[2];
                for (size_t d = 0; d < (size_t)s[3]; ++d, ++i) {
                    float *o = row + d * ostride[3];
                    const float v = x[i];
                    if (p->fn == AP_REDUCE_F32_SUM) {
                        *o += v;
                    } else if (p->fn == AP_REDUCE_F32_MAX) {
                        *o = v > *o ? v : *o;
                    } else {
                        *o = v < *o ? v : *o;
                    }
                }
            }
        }
    }
    return AP_OK;
}

/* ---- STRIDED_SLICE ---------------------------------------------------------------------------- */
#define SLICE_OP "STRIDED_SLICE float32"

enum { SLICE_AXES = AP_STRIDED_SLICE_MAX_AXES };

/* Every axis reads begin + k * stride for k < count, all inside [0, dim). */
static ap_status slice_check(const ap_strided_slice_params *p, size_t *out_count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, SLICE_OP ": params must not be NULL");
    }
    size_t in_count = 1;
    *out_count = 1;
    for (int a = 0; a < SLICE_AXES; ++a) {
        const int32_t dim = p->input_shape[a], count = p->output_shape[a], stride = p->stride[a];
        if (dim < 1 || count < 1 || stride == 0) {
            return AP_OPS_INVALID(error, SLICE_OP ": axis %d has input size %d, output size %d and stride %d", a,
                                  (int)dim, (int)count, (int)stride);
        }
        const int64_t first = p->begin[a], last = first + (int64_t)(count - 1) * (int64_t)stride;
        if (first < 0 || first >= dim || last < 0 || last >= dim) {
            return AP_OPS_INVALID(error, SLICE_OP ": axis %d reads indices %lld to %lld of a dimension of %d", a,
                                  (long long)first, (long long)last, (int)dim);
        }
        if (!ap_ops_mul(in_count, (size_t)dim, &in_count) || !ap_ops_mul(*out_count, (size_t)count, out_count) ||
            in_count > SIZE_MAX / sizeof(float)) {
            return AP_OPS_OVERFLOW(error, SLICE_OP ": the element count overflows size_t");
        }
    }
    return AP_OK;
}

ap_status ap_strided_slice_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                        uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    size_t n = 0;
    ap_status st = slice_check(params, &n, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[1];
    ap_ops_variant_set(&found[0], AP_STRIDED_SLICE_COPY, 0, "copy", 0, NULL, NULL, (uint64_t)n, 0);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, SLICE_OP, error_out);
}

ap_status ap_strided_slice_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 1, SLICE_OP, error_out);
    const ap_strided_slice_params *p = st == AP_OK ? call->params : NULL;
    size_t n = 0;
    st = st != AP_OK ? st : slice_check(p, &n, error_out);
    if (st != AP_OK) {
        return st;
    }
    const float *x = call->inputs[0];
    float *y = call->output;
    int64_t in_stride[SLICE_AXES], step = 1;
    for (int a = SLICE_AXES - 1; a >= 0; --a) {
        in_stride[a] = step * p->stride[a];
        step *= p->input_shape[a];
    }
    int64_t start = 0;
    for (int a = 0; a < SLICE_AXES; ++a) {
        start += (int64_t)p->begin[a] * (in_stride[a] / p->stride[a]);
    }
    size_t k = 0;
    int64_t at0 = start;
    for (int32_t i0 = 0; i0 < p->output_shape[0]; ++i0, at0 += in_stride[0]) {
        int64_t at1 = at0;
        for (int32_t i1 = 0; i1 < p->output_shape[1]; ++i1, at1 += in_stride[1]) {
            int64_t at2 = at1;
            for (int32_t i2 = 0; i2 < p->output_shape[2]; ++i2, at2 += in_stride[2]) {
                int64_t at3 = at2;
                for (int32_t i3 = 0; i3 < p->output_shape[3]; ++i3, at3 += in_stride[3]) {
                    int64_t at4 = at3;
                    for (int32_t i4 = 0; i4 < p->output_shape[4]; ++i4, at4 += in_stride[4]) {
                        y[k++] = x[at4];
                    }
                }
            }
        }
    }
    return AP_OK;
}

/* ---- TRANSPOSE ------------------------------------------------------------------------------- */
#define TRANSPOSE_OP "TRANSPOSE float32"

enum { T_AXES = AP_TRANSPOSE_MAX_AXES };

static ap_status transpose_check(const ap_transpose_params *p, size_t *count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, TRANSPOSE_OP ": params must not be NULL");
    }
    int seen = 0;
    for (int a = 0; a < T_AXES; ++a) {
        if (p->input_shape[a] < 1 || p->perm[a] < 0 || p->perm[a] >= T_AXES || (seen & (1 << p->perm[a]))) {
            return AP_OPS_INVALID(error, TRANSPOSE_OP ": axis %d: size %d, perm %d (perm must be a permutation of "
                                  "0..4, sizes >= 1)", a, (int)p->input_shape[a], (int)p->perm[a]);
        }
        seen |= 1 << p->perm[a];
    }
    if (!ap_ops_product(p->input_shape, T_AXES, count) || *count > SIZE_MAX / sizeof(float)) {
        return AP_OPS_OVERFLOW(error, TRANSPOSE_OP ": the element count overflows size_t");
    }
    return AP_OK;
}

ap_status ap_transpose_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                   uint32_t *count_out, ap_error *error_out)
{
    size_t n = 0;
    ap_status st = transpose_check(params, &n, error_out);
    return st != AP_OK ? st : ap_f32_direct((uint64_t)n, 0, isa, variants_out, capacity, count_out,
                                            TRANSPOSE_OP, error_out);
}

ap_status ap_transpose_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 1, TRANSPOSE_OP, error_out);
    const ap_transpose_params *p = st == AP_OK ? call->params : NULL;
    size_t n = 0;
    st = st != AP_OK ? st : transpose_check(p, &n, error_out);
    if (st != AP_OK) {
        return st;
    }
    const float *x = call->inputs[0];
    float *y = call->output;
    size_t in_stride[T_AXES], step = 1;
    for (int a = T_AXES - 1; a >= 0; --a) {
        in_stride[a] = step;
        step *= (size_t)p->input_shape[a];
    }
    /* output axis a walks input axis perm[a] */
    size_t os[T_AXES], od[T_AXES];
    for (int a = 0; a < T_AXES; ++a) {
        od[a] = (size_t)p->input_shape[p->perm[a]];
        os[a] = in_stride[p->perm[a]];
    }
    size_t k = 0;
    for (size_t i0 = 0; i0 < od[0]; ++i0) {
        for (size_t i1 = 0; i1 < od[1]; ++i1) {
            for (size_t i2 = 0; i2 < od[2]; ++i2) {
                for (size_t i3 = 0; i3 < od[3]; ++i3) {
                    const size_t base = i0 * os[0] + i1 * os[1] + i2 * os[2] + i3 * os[3];
                    for (size_t i4 = 0; i4 < od[4]; ++i4) {
                        y[k++] = x[base + i4 * os[4]];
                    }
                }
            }
        }
    }
    return AP_OK;
}
