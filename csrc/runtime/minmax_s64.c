/* MAXIMUM and MINIMUM on int64 (arenaplan/ops.h, AP_TYPES_S64): TFLite's
   MaximumMinimumBroadcastSlow over the stored values with 4-D broadcasting (LiteRT's and
   TensorFlow Lite Micro's kernels alike). A 32-bit core compares and moves each value as two
   words; the signed 64-bit compare is the compiler's. */
#include "arenaplan/ops.h"

#include "broadcast4.h"

static ap_status minmax64_check(const ap_minmax_params *p, const char *op, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    ap_status st = ap_bcast4_check(p->input1_shape, p->input2_shape, p->output_shape, op, error);
    size_t n = 0;
    if (st == AP_OK && (!ap_ops_product(p->output_shape, 4, &n) || n > SIZE_MAX / sizeof(int64_t))) {
        return AP_OPS_OVERFLOW(error, "%s: the output's size overflows", op);
    }
    return st;
}

static ap_status minmax64_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                   uint32_t *count_out, const char *op, ap_error *error)
{
    const ap_minmax_params *p = params;
    ap_status st = minmax64_check(p, op, error);
    size_t n = 0;
    if (st == AP_OK) {
        ap_ops_product(p->output_shape, 4, &n);
        st = ap_bcast4_direct_variant(p->input1_shape, p->input2_shape, p->output_shape, (uint64_t)n, isa,
                                      variants_out, capacity, count_out, op, error);
    }
    return st;
}

static ap_status minmax64_run(const ap_op_call *call, ap_isa isa, int maximum, ap_error *error)
{
    const char *op = maximum ? "maximum_s64" : "minimum_s64";
    if (call == NULL) {
        return AP_OPS_INVALID(error, "%s: call must not be NULL", op);
    }
    const ap_minmax_params *p = call->params;
    ap_status st = minmax64_check(p, op, error);
    st = st != AP_OK ? st : ap_bcast4_check_call(call, isa, op, error);
    if (st != AP_OK) {
        return st;
    }
    const int64_t *a = call->inputs[0], *b = call->inputs[1];
    int64_t *out = call->output;
    AP_BCAST4_FOR_EACH(p->output_shape, p->input1_shape, p->input2_shape, ia, ib, at, {
        /* both read before out[at] is written: in place over an input of the output's shape */
        const int64_t x = a[ia], y = b[ib];
        out[at] = maximum ? (x > y ? x : y) : (x < y ? x : y);
    });
    return AP_OK;
}

ap_status ap_maximum_s64_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out)
{
    return minmax64_variants(params, isa, variants_out, capacity, count_out, "maximum_s64", error_out);
}

ap_status ap_maximum_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return minmax64_run(call, isa, 1, error_out);
}

ap_status ap_minimum_s64_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out)
{
    return minmax64_variants(params, isa, variants_out, capacity, count_out, "minimum_s64", error_out);
}

ap_status ap_minimum_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return minmax64_run(call, isa, 0, error_out);
}
