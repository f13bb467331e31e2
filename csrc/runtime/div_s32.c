/* int32 DIV (arenaplan/ops.h): reference_ops::Div / BroadcastDivSlow of int32_t, C's truncating
   division with the activation's clamp and 4-D broadcasting. */
#include "arenaplan/ops.h"

#include "ops_s8_common.h"

#define DIV_OP "DIV int32"

static ap_status div_check(const ap_div_s32_params *p, size_t *count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, DIV_OP ": params must not be NULL");
    }
    for (int d = 0; d < 4; ++d) {
        const int32_t a = p->input1_shape[d], b = p->input2_shape[d], o = p->output_shape[d];
        if (a < 1 || b < 1 || o != (a > b ? a : b) || (a != 1 && a != o) || (b != 1 && b != o)) {
            return AP_OPS_INVALID(error, DIV_OP ": dimension %d does not broadcast (%d and %d -> %d)", d, (int)a,
                                  (int)b, (int)o);
        }
    }
    if (!ap_ops_product(p->output_shape, 4, count) || *count > SIZE_MAX / sizeof(int32_t)) {
        return AP_OPS_OVERFLOW(error, DIV_OP ": the output's size overflows");
    }
    if (p->activation_min > p->activation_max) {
        return AP_OPS_INVALID(error, DIV_OP ": activation range [%d, %d] must have min <= max",
                              (int)p->activation_min, (int)p->activation_max);
    }
    return AP_OK;
}

static int same_shape(const int32_t *a, const int32_t *b)
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

ap_status ap_div_s32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    const ap_div_s32_params *p = params;
    size_t n = 0;
    ap_status st = div_check(p, &n, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[1];
    ap_ops_variant_set(&found[0], 0, 0, "direct", 0, NULL, NULL, (uint64_t)n,
                       same_shape(p->input1_shape, p->output_shape) || same_shape(p->input2_shape, p->output_shape));
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, DIV_OP, error_out);
}

/* a / b truncated toward zero (b != 0); INT32_MIN / -1 wraps to INT32_MIN instead of trapping */
static int32_t div_one(int32_t a, int32_t b, int32_t lo, int32_t hi)
{
    const int32_t q = (a == INT32_MIN && b == -1) ? INT32_MIN : a / b;
    return q < lo ? lo : q > hi ? hi : q;
}

ap_status ap_div_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL || call->params == NULL) {
        return AP_OPS_INVALID(error_out, DIV_OP ": the call and its params must not be NULL");
    }
    const ap_div_s32_params *p = call->params;
    size_t n = 0;
    ap_status st = div_check(p, &n, error_out);
    st = st != AP_OK ? st : ap_ops_check_variant_ptr(call->variant, DIV_OP, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (call->variant->isa != (int32_t)isa || call->variant->kind != 0) {
        return AP_OPS_INVALID(error_out, DIV_OP ": variant '%s' (%s, kind %d) is not this row's direct variant "
                              "for %s", call->variant->name, ap_isa_name(call->variant->isa),
                              (int)call->variant->kind, ap_isa_name(isa));
    }
    if (call->input_count != 2 || call->inputs == NULL || call->inputs[0] == NULL || call->inputs[1] == NULL ||
        call->output == NULL) {
        return AP_OPS_INVALID(error_out, DIV_OP ": two inputs and the output must not be NULL");
    }
    const int32_t *a = call->inputs[0], *b = call->inputs[1];
    int32_t *y = call->output;
    size_t n2 = 0;
    ap_ops_product(p->input2_shape, 4, &n2);
    for (size_t i = 0; i < n2; ++i) {   /* LiteRT's CheckNonZero, before any output */
        if (b[i] == 0) {
            return AP_OPS_INVALID(error_out, "div: division by zero (element %lu of the divisor)", (unsigned long)i);
        }
    }
    size_t sa[4], sb[4];
    ap_ops_broadcast_strides(p->input1_shape, sa);
    ap_ops_broadcast_strides(p->input2_shape, sb);
    const int32_t *o = p->output_shape;
    size_t i = 0;
    for (size_t d0 = 0; d0 < (size_t)o[0]; ++d0) {
        for (size_t d1 = 0; d1 < (size_t)o[1]; ++d1) {
            for (size_t d2 = 0; d2 < (size_t)o[2]; ++d2) {
                const size_t ia = d0 * sa[0] + d1 * sa[1] + d2 * sa[2], ib = d0 * sb[0] + d1 * sb[1] + d2 * sb[2];
                for (size_t d3 = 0; d3 < (size_t)o[3]; ++d3, ++i) {
                    y[i] = div_one(a[ia + d3 * sa[3]], b[ib + d3 * sb[3]], p->activation_min, p->activation_max);
                }
            }
        }
    }
    return AP_OK;
}
