/* BATCH_MATMUL on int8, 16x8 (int16 x int16) and float32 (arenaplan/ops.h): TFLite's reference
   BatchMatMul with broadcast batch dimensions and adj_x / adj_y, in two variants.

   "direct" reads each dot product where the operands lie: LHS[i][k] at i * lhs_row + k *
   lhs_step, RHS[k][j] at k * rhs_step + j * rhs_col (the strides follow adj_x and adj_y).
   "packed" copies each distinct RHS matrix (a broadcast one once) as n contiguous columns of k,
   and each LHS row as k contiguous values, into its two scratch buffers (integer columns padded
   with a zero to an even length, so each starts on a word); int8 values are widened to int16
   with their offsets added there, so the inner loop is a dot product of int16 pairs, four
   columns a step against one row word: on arm-dsp one SMLAD (int8: the int32 sums wrap as
   TFLite's do, so the order of the additions does not change a bit) or SMLALD (int16: exact
   int64 sums) a word and column. float32 packs the floats and adds the products in k order
   from 0.0f, as the reference loop does. */
#include "float32_common.h"

#include "arm_dsp.h"
#include "fixedpoint.h"
#include "ops_s16_common.h"

typedef enum bmm_type { BMM_S8, BMM_S16, BMM_F32 } bmm_type;

static const char *const bmm_op = "batch_matmul";

/* Element bytes of the operands as stored and as packed (int8 packs to int16). */
static size_t bmm_elem(bmm_type t)
{
    return t == BMM_S8 ? 1 : t == BMM_S16 ? 2 : 4;
}

static size_t bmm_packed_elem(bmm_type t)
{
    return t == BMM_F32 ? 4 : 2;
}

/* The params checked: shapes that broadcast, sizes that do not overflow, the quantisation of the
   row's type; *batches_out the output's batch count, *macs_out the multiply-adds of a run. */
static ap_status bmm_check(const ap_batch_matmul_params *p, bmm_type t, size_t *batches_out, uint64_t *macs_out,
                           ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", bmm_op);
    }
    size_t batches = 1, lhs_n = 1, rhs_n = 1;
    for (int d = 0; d < 3; ++d) {
        const int32_t a = p->lhs_batch[d], b = p->rhs_batch[d];
        if (a < 1 || b < 1 || (a != b && a != 1 && b != 1)) {
            return AP_OPS_INVALID(error, "%s: batch dimension %d does not broadcast (%d and %d)", bmm_op, d, (int)a,
                                  (int)b);
        }
        if (!ap_ops_mul(batches, (size_t)(a > b ? a : b), &batches) || !ap_ops_mul(lhs_n, (size_t)a, &lhs_n) ||
            !ap_ops_mul(rhs_n, (size_t)b, &rhs_n)) {
            return AP_OPS_OVERFLOW(error, "%s: the batch count overflows", bmm_op);
        }
    }
    if (p->rows < 1 || p->depth < 1 || p->cols < 1) {
        return AP_OPS_INVALID(error, "%s: rows %d, depth %d and cols %d must be >= 1", bmm_op, (int)p->rows,
                              (int)p->depth, (int)p->cols);
    }
    if ((p->adj_x != 0 && p->adj_x != 1) || (p->adj_y != 0 && p->adj_y != 1)) {
        return AP_OPS_INVALID(error, "%s: adj_x %d and adj_y %d must be 0 or 1", bmm_op, (int)p->adj_x,
                              (int)p->adj_y);
    }
    const size_t e = bmm_elem(t);
    size_t a_bytes = 0, b_bytes = 0, o_bytes = 0, packed = 0;
    if (!ap_ops_mul(lhs_n, (size_t)p->rows, &a_bytes) || !ap_ops_mul(a_bytes, (size_t)p->depth, &a_bytes) ||
        !ap_ops_mul(a_bytes, e, &a_bytes) || !ap_ops_mul(rhs_n, (size_t)p->depth, &b_bytes) ||
        !ap_ops_mul(b_bytes, (size_t)p->cols, &b_bytes) || !ap_ops_mul(b_bytes, e, &b_bytes) ||
        !ap_ops_mul(batches, (size_t)p->rows, &o_bytes) || !ap_ops_mul(o_bytes, (size_t)p->cols, &o_bytes) ||
        !ap_ops_mul(o_bytes, e, &o_bytes) || !ap_ops_mul((size_t)p->cols, (size_t)p->depth + 1, &packed) ||
        !ap_ops_mul(packed, 4, &packed) || a_bytes > (size_t)INT32_MAX || b_bytes > (size_t)INT32_MAX ||
        o_bytes > (size_t)INT32_MAX || packed > (size_t)INT32_MAX) {
        return AP_OPS_OVERFLOW(error, "%s: a tensor size overflows", bmm_op);
    }
    if (t == BMM_F32) {
        if (p->lhs_offset != 0 || p->rhs_offset != 0 || p->output_offset != 0 || p->output_multiplier != 0 ||
            p->output_shift != 0 || p->activation_min != 0 || p->activation_max != 0) {
            return AP_OPS_INVALID(error, "%s: the float32 row takes no quantisation (its fields must be 0)", bmm_op);
        }
    } else {
        const int32_t lo = t == BMM_S8 ? -128 : -32768, hi = t == BMM_S8 ? 127 : 32767;
        const int32_t max_shift = t == BMM_S8 ? 30 : 7;
        if (t == BMM_S8 && (!ap_ops_input_offset_ok(p->lhs_offset) || !ap_ops_input_offset_ok(p->rhs_offset) ||
                            p->output_offset < lo || p->output_offset > hi)) {
            return AP_OPS_INVALID(error, "%s: offsets %d, %d must be in [-127, 128] and the output zero point %d in "
                                  "[-128, 127]", bmm_op, (int)p->lhs_offset, (int)p->rhs_offset,
                                  (int)p->output_offset);
        }
        if (t == BMM_S16 && (p->lhs_offset != 0 || p->rhs_offset != 0 || p->output_offset != 0)) {
            return AP_OPS_INVALID(error, "%s: the 16x8 row takes zero points 0 (offsets %d, %d, %d)", bmm_op,
                                  (int)p->lhs_offset, (int)p->rhs_offset, (int)p->output_offset);
        }
        if (p->output_multiplier < 0 || p->output_shift < -31 || p->output_shift > max_shift) {
            return AP_OPS_INVALID(error, "%s: multiplier %d must be >= 0 and shift %d in [-31, %d]", bmm_op,
                                  (int)p->output_multiplier, (int)p->output_shift, (int)max_shift);
        }
        if (p->activation_min < lo || p->activation_max > hi || p->activation_min > p->activation_max) {
            return AP_OPS_INVALID(error, "%s: activation range [%d, %d] is not within [%d, %d]", bmm_op,
                                  (int)p->activation_min, (int)p->activation_max, (int)lo, (int)hi);
        }
        if (t == BMM_S16 && (size_t)p->depth > AP_S16_MAX_TAPS) {
            return AP_OPS_INVALID(error, "%s: depth %d exceeds the %lu the int64 sums hold", bmm_op, (int)p->depth,
                                  (unsigned long)AP_S16_MAX_TAPS);
        }
    }
    if (batches_out != NULL) {
        *batches_out = batches;
    }
    if (macs_out != NULL) {
        *macs_out = (uint64_t)batches * (uint64_t)p->rows * (uint64_t)p->cols * (uint64_t)p->depth;
    }
    return AP_OK;
}

/* Elements from one packed RHS column to the next: k, or k rounded up to even for int16 values,
   so every column starts on a word (the arm-dsp loop reads two values a word). */
static size_t bmm_col_stride(const ap_batch_matmul_params *p, bmm_type t)
{
    const size_t k = (size_t)p->depth;
    return t == BMM_F32 ? k : k + (k & 1u);
}

/* The packed variant's two buffers: the RHS as n columns, one LHS row of k. */
static void bmm_packed_bytes(const ap_batch_matmul_params *p, bmm_type t, size_t bytes[2])
{
    const size_t e = bmm_packed_elem(t);
    bytes[0] = (size_t)p->cols * bmm_col_stride(p, t) * e;
    bytes[1] = bmm_col_stride(p, t) * e;
}

static ap_status bmm_variants(const void *params, bmm_type t, ap_isa isa, ap_variant *variants_out,
                              uint32_t capacity, uint32_t *count_out, ap_error *error)
{
    const ap_batch_matmul_params *p = params;
    uint64_t macs = 0;
    ap_status st = bmm_check(p, t, NULL, &macs, error);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[2];
    size_t bytes[2], align[2] = {4, 4};
    bmm_packed_bytes(p, t, bytes);
    ap_ops_variant_set(&found[0], AP_BATCH_MATMUL_DIRECT, 0, "direct", 0, NULL, NULL, macs, 0);
    ap_ops_variant_set(&found[1], AP_BATCH_MATMUL_PACKED, 0, "packed", 2, bytes, align, macs, 0);
    return ap_ops_variants_out(found, 2, isa, variants_out, capacity, count_out, bmm_op, error);
}

ap_status ap_batch_matmul_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                      uint32_t *count_out, ap_error *error_out)
{
    return bmm_variants(params, BMM_S8, isa, variants_out, capacity, count_out, error_out);
}

ap_status ap_batch_matmul_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                       uint32_t *count_out, ap_error *error_out)
{
    return bmm_variants(params, BMM_S16, isa, variants_out, capacity, count_out, error_out);
}

ap_status ap_batch_matmul_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                       uint32_t *count_out, ap_error *error_out)
{
    return bmm_variants(params, BMM_F32, isa, variants_out, capacity, count_out, error_out);
}

/* ---- one output from its accumulator ----------------------------------------------------------- */
static inline int8_t bmm_out_s8(int32_t acc, const ap_batch_matmul_params *p)
{
    const int32_t v = ap_fp_multiply_by_quantized_multiplier(acc, p->output_multiplier, p->output_shift);
    return (int8_t)ap_ops_clamp(ap_ops_wrap_add(v, p->output_offset), p->activation_min, p->activation_max);
}

static inline int16_t bmm_out_s16(int64_t acc, const ap_batch_matmul_params *p)
{
    return ap_s16_requant(acc, 64, p->output_multiplier, p->output_shift, p->activation_min, p->activation_max);
}

/* The geometry of one run: strides of the operands' matrices (in elements) and of the batch
   axes (0 where an operand broadcasts). */
typedef struct bmm_geometry {
    size_t m, k, n;
    size_t lhs_row, lhs_step;    /* LHS[i][kk] at i * lhs_row + kk * lhs_step */
    size_t rhs_step, rhs_col;    /* RHS[kk][j] at kk * rhs_step + j * rhs_col */
    size_t out_batch[3];         /* the output's batch dims */
    size_t lhs_stride[3], rhs_stride[3];
} bmm_geometry;

static void bmm_geometry_of(const ap_batch_matmul_params *p, bmm_geometry *g)
{
    g->m = (size_t)p->rows;
    g->k = (size_t)p->depth;
    g->n = (size_t)p->cols;
    g->lhs_row = p->adj_x ? 1 : g->k;
    g->lhs_step = p->adj_x ? g->m : 1;
    g->rhs_step = p->adj_y ? 1 : g->n;
    g->rhs_col = p->adj_y ? g->k : 1;
    size_t lhs_acc = g->m * g->k, rhs_acc = g->k * g->n;
    for (int d = 2; d >= 0; --d) {
        g->out_batch[d] = (size_t)(p->lhs_batch[d] > p->rhs_batch[d] ? p->lhs_batch[d] : p->rhs_batch[d]);
        g->lhs_stride[d] = p->lhs_batch[d] == 1 ? 0 : lhs_acc;
        g->rhs_stride[d] = p->rhs_batch[d] == 1 ? 0 : rhs_acc;
        lhs_acc *= (size_t)p->lhs_batch[d];
        rhs_acc *= (size_t)p->rhs_batch[d];
    }
}

/* ---- direct: strided dot products --------------------------------------------------------------- */
static void bmm_direct_f32(const bmm_geometry *g, const float *lhs, const float *rhs, float *out)
{
    for (size_t i = 0; i < g->m; ++i) {
        for (size_t j = 0; j < g->n; ++j) {
            const float *a = lhs + i * g->lhs_row, *b = rhs + j * g->rhs_col;
            float acc = 0.0f;
            for (size_t kk = g->k; kk > 0; --kk, a += g->lhs_step, b += g->rhs_step) {
                acc += *a * *b;
            }
            *out++ = acc;
        }
    }
}

static void bmm_direct_s16(const ap_batch_matmul_params *p, const bmm_geometry *g, const int16_t *lhs,
                           const int16_t *rhs, int16_t *out)
{
    for (size_t i = 0; i < g->m; ++i) {
        for (size_t j = 0; j < g->n; ++j) {
            const int16_t *a = lhs + i * g->lhs_row, *b = rhs + j * g->rhs_col;
            int64_t acc = 0;
            for (size_t kk = g->k; kk > 0; --kk, a += g->lhs_step, b += g->rhs_step) {
                acc += (int32_t)*a * (int32_t)*b;
            }
            *out++ = bmm_out_s16(acc, p);
        }
    }
}

static void bmm_direct_s8(const ap_batch_matmul_params *p, const bmm_geometry *g, const int8_t *lhs,
                          const int8_t *rhs, int8_t *out)
{
    const int32_t lo = p->lhs_offset, ro = p->rhs_offset;
    for (size_t i = 0; i < g->m; ++i) {
        for (size_t j = 0; j < g->n; ++j) {
            const int8_t *a = lhs + i * g->lhs_row, *b = rhs + j * g->rhs_col;
            uint32_t acc = 0;   /* TFLite's int32 sum, wrapping */
            for (size_t kk = g->k; kk > 0; --kk, a += g->lhs_step, b += g->rhs_step) {
                acc += (uint32_t)(((int32_t)*a + lo) * ((int32_t)*b + ro));
            }
            *out++ = bmm_out_s8(ap_s16_wrap32((int64_t)acc), p);
        }
    }
}

/* ---- packed: contiguous dot products ------------------------------------------------------------ */
/* Copy `count` values of an operand, `step` elements apart from `src`, contiguous into dst (int8:
   widened to int16 with `offset` added), then zeros up to `stride` elements. */
static void bmm_pack(bmm_type t, const void *src, size_t step, size_t count, size_t stride, int32_t offset,
                     void *dst)
{
    if (t == BMM_S8) {
        const int8_t *s = src;
        int16_t *d = dst;
        for (size_t i = 0; i < count; ++i) {
            d[i] = (int16_t)((int32_t)s[i * step] + offset);
        }
        for (size_t i = count; i < stride; ++i) {
            d[i] = 0;
        }
    } else if (t == BMM_S16) {
        const int16_t *s = src;
        int16_t *d = dst;
        for (size_t i = 0; i < count; ++i) {
            d[i] = s[i * step];
        }
        for (size_t i = count; i < stride; ++i) {
            d[i] = 0;
        }
    } else {
        const float *s = src;
        float *d = dst;
        for (size_t i = 0; i < count; ++i) {
            d[i] = s[i * step];
        }
    }
}

/* One packed LHS row against every packed RHS column: float32 in k order from 0.0f. */
static void bmm_packed_row_f32(const bmm_geometry *g, const float *row, const float *cols, size_t stride,
                               float *out)
{
    for (size_t j = 0; j < g->n; ++j) {
        const float *b = cols + j * stride;
        float acc = 0.0f;
        for (size_t kk = 0; kk < g->k; ++kk) {
            acc += row[kk] * b[kk];
        }
        out[j] = acc;
    }
}

/* int8 (its int16 values with the offsets added, |v| <= 256): `words` pairs (the zero padding
   adds nothing) against four columns at a time, int32 sums that wrap as TFLite's do; on arm-dsp
   one SMLAD a pair and column. */
static void bmm_packed_row_s8(const ap_batch_matmul_params *p, const bmm_geometry *g, const int16_t *row,
                              const int16_t *cols, size_t stride, int8_t *out, int32_t isa)
{
    const size_t words = stride / 2;
    size_t j = 0;
    if (ap_ops_runs_arm_dsp(isa)) {
        for (; j + 4 <= g->n; j += 4) {
            const int16_t *c0 = cols + j * stride, *c1 = c0 + stride, *c2 = c1 + stride, *c3 = c2 + stride;
            int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
            for (size_t w = 0; w < 2 * words; w += 2) {
                const uint32_t x = ap_dsp_load32(row + w);
                a0 = ap_dsp_smlad(x, ap_dsp_load32(c0 + w), a0);
                a1 = ap_dsp_smlad(x, ap_dsp_load32(c1 + w), a1);
                a2 = ap_dsp_smlad(x, ap_dsp_load32(c2 + w), a2);
                a3 = ap_dsp_smlad(x, ap_dsp_load32(c3 + w), a3);
            }
            out[j] = bmm_out_s8(a0, p);
            out[j + 1] = bmm_out_s8(a1, p);
            out[j + 2] = bmm_out_s8(a2, p);
            out[j + 3] = bmm_out_s8(a3, p);
        }
        for (; j < g->n; ++j) {
            const int16_t *c0 = cols + j * stride;
            int32_t a0 = 0;
            for (size_t w = 0; w < 2 * words; w += 2) {
                a0 = ap_dsp_smlad(ap_dsp_load32(row + w), ap_dsp_load32(c0 + w), a0);
            }
            out[j] = bmm_out_s8(a0, p);
        }
        return;
    }
    for (; j + 4 <= g->n; j += 4) {
        const int16_t *c0 = cols + j * stride, *c1 = c0 + stride, *c2 = c1 + stride, *c3 = c2 + stride;
        uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (size_t kk = 0; kk < stride; ++kk) {
            const int32_t x = row[kk];
            a0 += (uint32_t)(x * c0[kk]);
            a1 += (uint32_t)(x * c1[kk]);
            a2 += (uint32_t)(x * c2[kk]);
            a3 += (uint32_t)(x * c3[kk]);
        }
        out[j] = bmm_out_s8(ap_s16_wrap32((int64_t)a0), p);
        out[j + 1] = bmm_out_s8(ap_s16_wrap32((int64_t)a1), p);
        out[j + 2] = bmm_out_s8(ap_s16_wrap32((int64_t)a2), p);
        out[j + 3] = bmm_out_s8(ap_s16_wrap32((int64_t)a3), p);
    }
    for (; j < g->n; ++j) {
        const int16_t *c0 = cols + j * stride;
        uint32_t a0 = 0;
        for (size_t kk = 0; kk < stride; ++kk) {
            a0 += (uint32_t)((int32_t)row[kk] * c0[kk]);
        }
        out[j] = bmm_out_s8(ap_s16_wrap32((int64_t)a0), p);
    }
}

/* int16: the same with int64 sums (on arm-dsp SMLALD, exact). */
static void bmm_packed_row_s16(const ap_batch_matmul_params *p, const bmm_geometry *g, const int16_t *row,
                               const int16_t *cols, size_t stride, int16_t *out, int32_t isa)
{
    size_t j = 0;
    if (ap_ops_runs_arm_dsp(isa)) {
        for (; j + 4 <= g->n; j += 4) {
            const int16_t *c0 = cols + j * stride, *c1 = c0 + stride, *c2 = c1 + stride, *c3 = c2 + stride;
            int64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
            for (size_t w = 0; w < stride; w += 2) {
                const uint32_t x = ap_dsp_load32(row + w);
                a0 = ap_dsp_smlald(x, ap_dsp_load32(c0 + w), a0);
                a1 = ap_dsp_smlald(x, ap_dsp_load32(c1 + w), a1);
                a2 = ap_dsp_smlald(x, ap_dsp_load32(c2 + w), a2);
                a3 = ap_dsp_smlald(x, ap_dsp_load32(c3 + w), a3);
            }
            out[j] = bmm_out_s16(a0, p);
            out[j + 1] = bmm_out_s16(a1, p);
            out[j + 2] = bmm_out_s16(a2, p);
            out[j + 3] = bmm_out_s16(a3, p);
        }
        for (; j < g->n; ++j) {
            const int16_t *c0 = cols + j * stride;
            int64_t a0 = 0;
            for (size_t w = 0; w < stride; w += 2) {
                a0 = ap_dsp_smlald(ap_dsp_load32(row + w), ap_dsp_load32(c0 + w), a0);
            }
            out[j] = bmm_out_s16(a0, p);
        }
        return;
    }
    for (; j + 4 <= g->n; j += 4) {
        const int16_t *c0 = cols + j * stride, *c1 = c0 + stride, *c2 = c1 + stride, *c3 = c2 + stride;
        int64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (size_t kk = 0; kk < stride; ++kk) {
            const int32_t x = row[kk];
            a0 += x * c0[kk];
            a1 += x * c1[kk];
            a2 += x * c2[kk];
            a3 += x * c3[kk];
        }
        out[j] = bmm_out_s16(a0, p);
        out[j + 1] = bmm_out_s16(a1, p);
        out[j + 2] = bmm_out_s16(a2, p);
        out[j + 3] = bmm_out_s16(a3, p);
    }
    for (; j < g->n; ++j) {
        const int16_t *c0 = cols + j * stride;
        int64_t a0 = 0;
        for (size_t kk = 0; kk < stride; ++kk) {
            a0 += (int32_t)row[kk] * (int32_t)c0[kk];
        }
        out[j] = bmm_out_s16(a0, p);
    }
}

static ap_status bmm_run(const ap_op_call *call, ap_isa isa, bmm_type t, ap_error *error)
{
    if (call == NULL || call->params == NULL) {
        return AP_OPS_INVALID(error, "%s: the call and its params must not be NULL", bmm_op);
    }
    ap_status st = ap_ops_check_variant_ptr(call->variant, bmm_op, error);
    if (st != AP_OK) {
        return st;
    }
    const ap_variant *v = call->variant;
    if (v->isa != (int32_t)isa) {
        return AP_OPS_INVALID(error, "%s: variant '%s' is a %s variant; asked to run it as %s", bmm_op, v->name,
                              ap_isa_name(v->isa), ap_isa_name(isa));
    }
    if (v->kind != AP_BATCH_MATMUL_DIRECT && v->kind != AP_BATCH_MATMUL_PACKED) {
        return AP_OPS_INVALID(error, "%s: variant kind %d is not direct (0) or packed (1)", bmm_op, (int)v->kind);
    }
    if (call->input_count != 2 || call->inputs == NULL || call->inputs[0] == NULL || call->inputs[1] == NULL ||
        call->output == NULL) {
        return AP_OPS_INVALID(error, "%s: two inputs (LHS, RHS) and the output must be given", bmm_op);
    }
    const ap_batch_matmul_params *p = call->params;
    size_t batches = 0;
    st = bmm_check(p, t, &batches, NULL, error);
    if (st != AP_OK) {
        return st;
    }
    size_t need[2];
    bmm_packed_bytes(p, t, need);
    if (v->kind == AP_BATCH_MATMUL_PACKED) {
        st = ap_ops_check_scratch(bmm_op, v->name, need, 2, call->scratch, call->scratch_count, error);
        if (st != AP_OK) {
            return st;
        }
    }
    bmm_geometry g;
    bmm_geometry_of(p, &g);
    const size_t e = bmm_elem(t);
    const unsigned char *lhs = call->inputs[0], *rhs = call->inputs[1];
    unsigned char *out = call->output;
    const unsigned char *packed_from = NULL;   /* the RHS matrix the scratch holds */
    const size_t col_stride = bmm_col_stride(p, t);
    void *cols = v->kind == AP_BATCH_MATMUL_PACKED ? call->scratch[0].data : NULL;
    void *row = v->kind == AP_BATCH_MATMUL_PACKED ? call->scratch[1].data : NULL;
    size_t b = 0;
    for (size_t b0 = 0; b0 < g.out_batch[0]; ++b0) {
        for (size_t b1 = 0; b1 < g.out_batch[1]; ++b1) {
            for (size_t b2 = 0; b2 < g.out_batch[2]; ++b2, ++b) {
                const unsigned char *l =
                    lhs + (b0 * g.lhs_stride[0] + b1 * g.lhs_stride[1] + b2 * g.lhs_stride[2]) * e;
                const unsigned char *r =
                    rhs + (b0 * g.rhs_stride[0] + b1 * g.rhs_stride[1] + b2 * g.rhs_stride[2]) * e;
                unsigned char *o = out + b * g.m * g.n * e;
                if (v->kind == AP_BATCH_MATMUL_DIRECT) {
                    if (t == BMM_F32) {
                        bmm_direct_f32(&g, (const float *)(const void *)l, (const float *)(const void *)r,
                                       (float *)(void *)o);
                    } else if (t == BMM_S16) {
                        bmm_direct_s16(p, &g, (const int16_t *)(const void *)l, (const int16_t *)(const void *)r,
                                       (int16_t *)(void *)o);
                    } else {
                        bmm_direct_s8(p, &g, (const int8_t *)l, (const int8_t *)r, (int8_t *)o);
                    }
                    continue;
                }
                if (r != packed_from) {
                    for (size_t j = 0; j < g.n; ++j) {
                        bmm_pack(t, r + j * g.rhs_col * e, g.rhs_step, g.k, col_stride, p->rhs_offset,
                                 (unsigned char *)cols + j * col_stride * bmm_packed_elem(t));
                    }
                    packed_from = r;
                }
                for (size_t i = 0; i < g.m; ++i) {
                    bmm_pack(t, l + i * g.lhs_row * e, g.lhs_step, g.k, col_stride, p->lhs_offset, row);
                    unsigned char *oi = o + i * g.n * e;
                    if (t == BMM_F32) {
                        bmm_packed_row_f32(&g, row, cols, col_stride, (float *)(void *)oi);
                    } else if (t == BMM_S16) {
                        bmm_packed_row_s16(p, &g, row, cols, col_stride, (int16_t *)(void *)oi, v->isa);
                    } else {
                        bmm_packed_row_s8(p, &g, row, cols, col_stride, (int8_t *)oi, v->isa);
                    }
                }
            }
        }
    }
    return AP_OK;
}

ap_status ap_batch_matmul_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return bmm_run(call, isa, BMM_S8, error_out);
}

ap_status ap_batch_matmul_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return bmm_run(call, isa, BMM_S16, error_out);
}

ap_status ap_batch_matmul_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return bmm_run(call, isa, BMM_F32, error_out);
}
