/* int32 DIV, ADD, SUB and MUL (arenaplan/ops.h): reference_ops::Div / BroadcastDivSlow and the
   Add, Sub and Mul of int32_t, with the activation's clamp and 4-D broadcasting. DIV is C's
   truncating division; ADD, SUB and MUL wrap in two's complement, as TFLite's kernels do on
   every compiler it is built with (the overflow is undefined in its C++). */
#include "arenaplan/ops.h"

#include "broadcast4.h"
#include "ops_s8_common.h"

#define DIV_OP "DIV int32"

/* The params of op (its name in messages): broadcasting shapes, an output size without
   overflow, min <= max; the output's element count in *count. */
static ap_status s32_check(const ap_binary_s32_params *p, size_t *count, const char *op, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    ap_status st = ap_bcast4_check(p->input1_shape, p->input2_shape, p->output_shape, op, error);
    if (st != AP_OK) {
        return st;
    }
    if (!ap_ops_product(p->output_shape, 4, count) || *count > SIZE_MAX / sizeof(int32_t)) {
        return AP_OPS_OVERFLOW(error, "%s: the output's size overflows", op);
    }
    if (p->activation_min > p->activation_max) {
        return AP_OPS_INVALID(error, "%s: activation range [%d, %d] must have min <= max", op,
                              (int)p->activation_min, (int)p->activation_max);
    }
    return AP_OK;
}

/* The one "direct" variant of every int32 binary row. */
static ap_status s32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, const char *op, ap_error *error)
{
    const ap_binary_s32_params *p = params;
    size_t n = 0;
    ap_status st = s32_check(p, &n, op, error);
    if (st != AP_OK) {
        return st;
    }
    return ap_bcast4_direct_variant(p->input1_shape, p->input2_shape, p->output_shape, (uint64_t)n, isa, variants_out,
                                    capacity, count_out, op, error);
}

/* The checks every int32 binary run() starts with. */
static ap_status s32_begin(const ap_op_call *call, ap_isa isa, const char *op, ap_error *error)
{
    if (call == NULL || call->params == NULL) {
        return AP_OPS_INVALID(error, "%s: the call and its params must not be NULL", op);
    }
    size_t n = 0;
    ap_status st = s32_check(call->params, &n, op, error);
    return st != AP_OK ? st : ap_bcast4_check_call(call, isa, op, error);
}

ap_status ap_div_s32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    return s32_variants(params, isa, variants_out, capacity, count_out, DIV_OP, error_out);
}

/* a / b truncated toward zero (b != 0); INT32_MIN / -1 wraps to INT32_MIN instead of trapping */
static int32_t div_one(int32_t a, int32_t b, int32_t lo, int32_t hi)
{
    const int32_t q = (a == INT32_MIN && b == -1) ? INT32_MIN : a / b;
    return q < lo ? lo : q > hi ? hi : q;
}

ap_status ap_div_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = s32_begin(call, isa, DIV_OP, error_out);
    if (st != AP_OK) {
        return st;
    }
    const ap_binary_s32_params *p = call->params;
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

/* ADD, SUB and MUL: the result wraps (in uint32_t, where C defines it), then the clamp. */
#define S32_BINARY(name, op, expr)                                                                    \
    ap_status ap_##name##_s32_variants(const void *params, ap_isa isa, ap_variant *variants_out,      \
                                       uint32_t capacity, uint32_t *count_out, ap_error *error_out)   \
    {                                                                                                 \
        return s32_variants(params, isa, variants_out, capacity, count_out, op, error_out);          \
    }                                                                                                 \
    ap_status ap_##name##_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)           \
    {                                                                                                 \
        ap_status st = s32_begin(call, isa, op, error_out);                                          \
        if (st != AP_OK) {                                                                            \
            return st;                                                                                \
        }                                                                                             \
        const ap_binary_s32_params *p = call->params;                                                \
        const int32_t *a = call->inputs[0], *b = call->inputs[1];                                    \
        int32_t *y = call->output;                                                                    \
        const int32_t lo = p->activation_min, hi = p->activation_max;                                \
        AP_BCAST4_FOR_EACH(p->output_shape, p->input1_shape, p->input2_shape, ia, ib, at, {          \
            const uint32_t ua = (uint32_t)a[ia], ub = (uint32_t)b[ib];                                \
            const int32_t v = ap_s32_from_bits(expr);                                                 \
            y[at] = v < lo ? lo : v > hi ? hi : v;                                                    \
        });                                                                                           \
        return AP_OK;                                                                                 \
    }

/* The int32 of a uint32_t's bits (two's complement, without an implementation-defined cast). */
static int32_t ap_s32_from_bits(uint32_t u)
{
    return u <= (uint32_t)INT32_MAX ? (int32_t)u : (int32_t)(u - (uint32_t)INT32_MAX - 1u) + INT32_MIN;
}

S32_BINARY(add, "ADD int32", ua + ub)
S32_BINARY(sub, "SUB int32", ua - ub)
S32_BINARY(mul, "MUL int32", ua * ub)
/* MAXIMUM and MINIMUM (TFLite's MaximumOp / MinimumOp) and SQUARED_DIFFERENCE ((a - b) * (a - b),
   wrapping as TFLite's int32 kernel does): no activation, the lowering gives the whole range */
S32_BINARY(maximum, "MAXIMUM int32", a[ia] > b[ib] ? ua : ub)
S32_BINARY(minimum, "MINIMUM int32", a[ia] < b[ib] ? ua : ub)
S32_BINARY(squared_difference, "SQUARED_DIFFERENCE int32", (ua - ub) * (ua - ub))
