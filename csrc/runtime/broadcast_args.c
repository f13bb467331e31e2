/* BROADCAST_ARGS on int32 and int64 shape vectors (arenaplan/ops.h): TFLite's reference
   BroadcastArgs, the broadcast shape of two shapes computed at run time. */
#include "float32_common.h"

static const char *const bca_op = "broadcast_args";

static ap_status bca_check(const ap_broadcast_args_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", bca_op);
    }
    if (p->length1 < 1 || p->length2 < 1 || p->length1 > 1024 || p->length2 > 1024) {
        return AP_OPS_INVALID(error, "%s: lengths %d and %d must be in [1, 1024]", bca_op, (int)p->length1,
                              (int)p->length2);
    }
    if (p->dtype != AP_DTYPE_INT32 && p->dtype != AP_DTYPE_INT64) {
        return AP_OPS_INVALID(error, "%s: dtype %d is not int32 (%d) or int64 (%d)", bca_op, (int)p->dtype,
                              (int)AP_DTYPE_INT32, (int)AP_DTYPE_INT64);
    }
    return AP_OK;
}

ap_status ap_broadcast_args_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                     uint32_t *count_out, ap_error *error_out)
{
    const ap_broadcast_args_params *p = params;
    ap_status st = bca_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    const int32_t n = p->length1 > p->length2 ? p->length1 : p->length2;
    return ap_f32_direct((uint64_t)n, 0, isa, variants_out, capacity, count_out, bca_op, error_out);
}

/* Element `back` counted from the end of a shape vector of `length`, 1 past its start; int64
   values truncated to their low 32 bits as TFLite's `int` does. */
static int32_t bca_at(const void *v, int32_t length, int32_t back, int32_t dtype)
{
    const int32_t at = length - 1 - back;
    if (at < 0) {
        return 1;
    }
    if (dtype == AP_DTYPE_INT32) {
        return ((const int32_t *)v)[at];
    }
    int64_t w;
    memcpy(&w, (const unsigned char *)v + (size_t)at * 8u, 8);
    const uint32_t u = (uint32_t)((uint64_t)w & 0xFFFFFFFFu);
    return u <= (uint32_t)INT32_MAX ? (int32_t)u : (int32_t)(u - 2147483648u) - INT32_MAX - 1;
}

ap_status ap_broadcast_args_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 2, bca_op, error_out);
    const ap_broadcast_args_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : bca_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    const int32_t n = p->length1 > p->length2 ? p->length1 : p->length2;
    /* checked before anything is written (TFLite's kernels abort there) */
    for (int32_t i = 0; i < n; ++i) {
        const int32_t a = bca_at(call->inputs[0], p->length1, i, p->dtype);
        const int32_t b = bca_at(call->inputs[1], p->length2, i, p->dtype);
        if (a != 1 && b != 1 && a != b) {
            return ap_ops_fail(error_out, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, (uint64_t)(n - 1 - i), 0,
                               "%s: the shapes do not broadcast: element %d from the end is %ld and %ld", bca_op,
                               (int)i, (long)a, (long)b);
        }
    }
    for (int32_t i = 0; i < n; ++i) {
        const int32_t a = bca_at(call->inputs[0], p->length1, i, p->dtype);
        const int32_t b = bca_at(call->inputs[1], p->length2, i, p->dtype);
        const int32_t v = a == 1 ? b : a;
        const size_t at = (size_t)(n - 1 - i);
        if (p->dtype == AP_DTYPE_INT32) {
            ((int32_t *)call->output)[at] = v;
        } else {
            const int64_t w = v;
            memcpy((unsigned char *)call->output + at * 8u, &w, 8);
        }
    }
    return AP_OK;
}
