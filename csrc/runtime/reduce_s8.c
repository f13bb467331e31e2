/* int8 REDUCE_MAX and REDUCE_MIN (arenaplan/ops.h): TFLite's reference ReduceGeneric over four
   axes, the stored values compared; and SUM, TensorFlow Lite Micro's requantised sum. */
#include "arenaplan/ops.h"
#include "arenaplan/quant.h"

#include <string.h>

#include "ops_s8_common.h"

enum { RD_AXES = 4 };

static ap_status reduce_check(const ap_reduce_params *p, const char *op, size_t *input_count, size_t *output_count,
                              ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    int32_t out[RD_AXES];
    for (int a = 0; a < RD_AXES; ++a) {
        if (p->input_shape[a] < 1) {
            return AP_OPS_INVALID(error, "%s: axis %d has size %d; it must be >= 1", op, a, (int)p->input_shape[a]);
        }
        if (p->reduce[a] != 0 && p->reduce[a] != 1) {
            return AP_OPS_INVALID(error, "%s: reduce[%d] = %d must be 0 or 1", op, a, (int)p->reduce[a]);
        }
        out[a] = p->reduce[a] ? 1 : p->input_shape[a];
    }
    if (!ap_ops_product(p->input_shape, RD_AXES, input_count) || !ap_ops_product(out, RD_AXES, output_count)) {
        return AP_OPS_OVERFLOW(error, "%s: a tensor size overflows size_t", op);
    }
    return AP_OK;
}

static ap_status reduce_variants(const void *params, const char *op, ap_isa isa, ap_variant *variants_out,
                                 uint32_t capacity, uint32_t *count_out, ap_error *error)
{
    size_t in_count = 0, out_count = 0;
    ap_status st = reduce_check(params, op, &in_count, &out_count, error);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[1];
    /* the output is written before all of the input is read: never in place */
    ap_ops_variant_set(&found[0], AP_REDUCE_DIRECT, 0, "direct", 0, NULL, NULL, (uint64_t)in_count, 0);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, op, error);
}

static ap_status reduce_run(const ap_op_call *call, int is_max, ap_isa isa, ap_error *error)
{
    /* one code for every ISA: a compare a byte */
    const char *op = is_max ? "reduce_max" : "reduce_min";
    if (call == NULL) {
        return AP_OPS_INVALID(error, "%s: call must not be NULL", op);
    }
    const ap_reduce_params *p = call->params;
    size_t in_count = 0, out_count = 0;
    ap_status st = reduce_check(p, op, &in_count, &out_count, error);
    if (st == AP_OK) {
        st = ap_ops_check_variant_ptr(call->variant, op, error);
    }
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error, "%s: variant '%s' is a %s variant; asked to run it as %s", op, call->variant->name,
                            ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st == AP_OK && call->variant->kind != AP_REDUCE_DIRECT) {
        st = AP_OPS_INVALID(error, "%s: variant kind %d does not apply", op, (int)call->variant->kind);
    }
    if (st == AP_OK && (call->input_count != 1 || call->inputs == NULL || call->inputs[0] == NULL ||
                        call->output == NULL)) {
        st = AP_OPS_INVALID(error, "%s: one input and the output must not be NULL", op);
    }
    if (st != AP_OK) {
        return st;
    }
    const int8_t *in = call->inputs[0];
    int8_t *out = call->output;
    memset(out, is_max ? 0x80 : 0x7F, out_count);   /* -128 and 127: ReduceGeneric's initial values */
    /* the output's step along each input axis: 0 where the axis is reduced */
    size_t step[RD_AXES], size = 1;
    for (int a = RD_AXES - 1; a >= 0; --a) {
        step[a] = p->reduce[a] ? 0 : size;
        size *= p->reduce[a] ? 1 : (size_t)p->input_shape[a];
    }
    const int32_t *n = p->input_shape;
    for (int32_t i0 = 0; i0 < n[0]; ++i0) {
        for (int32_t i1 = 0; i1 < n[1]; ++i1) {
            for (int32_t i2 = 0; i2 < n[2]; ++i2) {
                int8_t *row = out + (size_t)i0 * step[0] + (size_t)i1 * step[1] + (size_t)i2 * step[2];
                for (int32_t i3 = 0; i3 < n[3]; ++i3) {
                    int8_t *o = row + (size_t)i3 * step[3];
                    const int8_t v = *in++;
                    *o = is_max ? (v > *o ? v : *o) : (v < *o ? v : *o);
                }
            }
        }
    }
    return AP_OK;
}

ap_status ap_reduce_max_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                    uint32_t *count_out, ap_error *error_out)
{
    return reduce_variants(params, "reduce_max", isa, variants_out, capacity, count_out, error_out);
}

ap_status ap_reduce_max_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return reduce_run(call, 1, isa, error_out);
}

ap_status ap_reduce_min_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                    uint32_t *count_out, ap_error *error_out)
{
    return reduce_variants(params, "reduce_min", isa, variants_out, capacity, count_out, error_out);
}

ap_status ap_reduce_min_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return reduce_run(call, 0, isa, error_out);
}

/* ---- SUM (int8, and int16 on the 16x8 row: `wide`) ------------------------------------------- */
static ap_status sum_check(const ap_sum_params *p, int wide, size_t *input_count, size_t *output_count,
                           ap_error *error)
{
    const char *op = wide ? "sum_s16" : "sum";
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    ap_reduce_params shape;
    memcpy(shape.input_shape, p->input_shape, sizeof(shape.input_shape));
    memcpy(shape.reduce, p->reduce, sizeof(shape.reduce));
    ap_status st = reduce_check(&shape, op, input_count, output_count, error);
    if (st != AP_OK) {
        return st;
    }
    const int32_t lo = wide ? INT16_MIN : INT8_MIN, hi = wide ? INT16_MAX : INT8_MAX;
    if (p->input_zero_point < lo || p->input_zero_point > hi || p->output_zero_point < lo ||
        p->output_zero_point > hi) {
        return AP_OPS_INVALID(error, "%s: zero points %d and %d must lie in [%d, %d]", op, (int)p->input_zero_point,
                              (int)p->output_zero_point, (int)lo, (int)hi);
    }
    if (p->multiplier < 0 || p->shift < -31 || p->shift > 30) {
        return AP_OPS_INVALID(error, "%s: multiplier %d must be >= 0 and shift %d in [-31, 30]", op,
                              (int)p->multiplier, (int)p->shift);
    }
    /* every sum of (x - zero point) fits int32, as TFLite Micro's int32 accumulator needs */
    const size_t per_output = *input_count / *output_count;
    if (per_output > (size_t)(INT32_MAX / (wide ? 65535 : 255))) {
        return AP_OPS_INVALID(error, "%s: %lu elements an output overflow the int32 sum", op,
                              (unsigned long)per_output);
    }
    return AP_OK;
}

static ap_status sum_variants(const void *params, int wide, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    size_t in_count = 0, out_count = 0;
    ap_status st = sum_check(params, wide, &in_count, &out_count, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[1];
    ap_ops_variant_set(&found[0], AP_REDUCE_DIRECT, 0, "direct", 0, NULL, NULL, (uint64_t)in_count, 0);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, wide ? "sum_s16" : "sum", error_out);
}

ap_status ap_sum_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out)
{
    return sum_variants(params, 0, isa, variants_out, capacity, count_out, error_out);
}

ap_status ap_sum_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    return sum_variants(params, 1, isa, variants_out, capacity, count_out, error_out);
}

static inline int32_t sum_at(const void *in, int wide, size_t i)
{
    return wide ? (int32_t)((const int16_t *)in)[i] : (int32_t)((const int8_t *)in)[i];
}

static ap_status sum_run(const ap_op_call *call, ap_isa isa, int wide, ap_error *error_out)
{
    /* one code for every ISA: each output gathers its input elements */
    const char *op = wide ? "sum_s16" : "sum";
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, "%s: call must not be NULL", op);
    }
    const ap_sum_params *p = call->params;
    size_t in_count = 0, out_count = 0;
    ap_status st = sum_check(p, wide, &in_count, &out_count, error_out);
    if (st == AP_OK) {
        st = ap_ops_check_variant_ptr(call->variant, op, error_out);
    }
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error_out, "%s: variant '%s' is a %s variant; asked to run it as %s", op,
                            call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st == AP_OK && call->variant->kind != AP_REDUCE_DIRECT) {
        st = AP_OPS_INVALID(error_out, "%s: variant kind %d does not apply", op, (int)call->variant->kind);
    }
    if (st == AP_OK && (call->input_count != 1 || call->inputs == NULL || call->inputs[0] == NULL ||
                        call->output == NULL)) {
        st = AP_OPS_INVALID(error_out, "%s: one input and the output must not be NULL", op);
    }
    if (st == AP_OK && wide && (((uintptr_t)call->inputs[0] & 1u) != 0 || ((uintptr_t)call->output & 1u) != 0)) {
        st = AP_OPS_INVALID(error_out, "%s: the input and output must be 2-byte aligned", op);
    }
    if (st != AP_OK) {
        return st;
    }
    const void *in = call->inputs[0];
    const int32_t lo = wide ? INT16_MIN : INT8_MIN, hi = wide ? INT16_MAX : INT8_MAX;
    /* kept axes walk the output, reduced axes the elements of one output */
    int32_t keep[RD_AXES], red[RD_AXES];
    size_t stride[RD_AXES], size = 1;
    for (int a = RD_AXES - 1; a >= 0; --a) {
        keep[a] = p->reduce[a] ? 1 : p->input_shape[a];
        red[a] = p->reduce[a] ? p->input_shape[a] : 1;
        stride[a] = size;
        size *= (size_t)p->input_shape[a];
    }
    const int32_t n_zp = (int32_t)(in_count / out_count) * p->input_zero_point;
    size_t o = 0;
    for (int32_t k0 = 0; k0 < keep[0]; ++k0) {
        for (int32_t k1 = 0; k1 < keep[1]; ++k1) {
            for (int32_t k2 = 0; k2 < keep[2]; ++k2) {
                for (int32_t k3 = 0; k3 < keep[3]; ++k3) {
                    const size_t base = (size_t)k0 * stride[0] + (size_t)k1 * stride[1] + (size_t)k2 * stride[2] +
                                        (size_t)k3 * stride[3];
                    int32_t sum = 0;
                    for (int32_t r0 = 0; r0 < red[0]; ++r0) {
                        for (int32_t r1 = 0; r1 < red[1]; ++r1) {
                            for (int32_t r2 = 0; r2 < red[2]; ++r2) {
                                const size_t row = base + (size_t)r0 * stride[0] + (size_t)r1 * stride[1] +
                                                   (size_t)r2 * stride[2];
                                for (int32_t r3 = 0; r3 < red[3]; ++r3) {
                                    sum += sum_at(in, wide, row + (size_t)r3 * stride[3]);
                                }
                            }
                        }
                    }
                    const int32_t v = ap_ops_clamp(
                        p->output_zero_point + ap_multiply_by_quantized_multiplier(sum - n_zp, p->multiplier, p->shift),
                        lo, hi);
                    if (wide) {
                        ((int16_t *)call->output)[o++] = (int16_t)v;
                    } else {
                        ((int8_t *)call->output)[o++] = (int8_t)v;
                    }
                }
            }
        }
    }
    return AP_OK;
}

ap_status ap_sum_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return sum_run(call, isa, 0, error_out);
}

ap_status ap_sum_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return sum_run(call, isa, 1, error_out);
}
