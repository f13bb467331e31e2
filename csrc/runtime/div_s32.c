/* int32 DIV (arenaplan/ops.h): reference_ops::Div / BroadcastDivSlow of int32_t, C's truncating
   division with the activation's clamp and 4-D broadcasting. */
#include "arenaplan/ops.h"

#include "broadcast4.h"
#include "ops_s8_common.h"

#define DIV_OP "DIV int32"

static ap_status div_check(const ap_div_s32_params *p, size_t *count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, DIV_OP ": params must not be NULL");
    }
    ap_status st = ap_bcast4_check(p->input1_shape, p->input2_shape, p->output_shape, DIV_OP, error);
    if (st != AP_OK) {
        return st;
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

ap_status ap_div_s32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    const ap_div_s32_params *p = params;
    size_t n = 0;
    ap_status st = div_check(p, &n, error_out);
    if (st != AP_OK) {
        return st;
    }
    return ap_bcast4_direct_variant(p->input1_shape, p->input2_shape, p->output_shape, (uint64_t)n, isa, variants_out,
                                    capacity, count_out, DIV_OP, error_out);
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
    st = st != AP_OK ? st : ap_bcast4_check_call(call, isa, DIV_OP, error_out);
    if (st != AP_OK) {
        return st;
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
    AP_BCAST4_FOR_EACH(p->output_shape, p->input1_shape, p->input2_shape, ia, ib, at, {
        y[at] = div_one(a[ia], b[ib], p->activation_min, p->activation_max);
    });
    return AP_OK;
}
