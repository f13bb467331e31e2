/* int8 REDUCE_MAX and REDUCE_MIN (arenaplan/ops.h): TFLite's reference ReduceGeneric over four
   axes, the stored values compared. */
#include "arenaplan/ops.h"

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
