/* GATHER_ND on int8, float32 and int32 params with int32 indices (arenaplan/ops.h): TFLite's
   reference GatherNd, a slice of params copied for each index tuple. */
#include "float32_common.h"

static const char *const gnd_op = "gather_nd";

static ap_status gnd_check(const ap_gather_nd_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", gnd_op);
    }
    if (p->index_depth < 1 || p->index_depth > AP_GATHER_ND_MAX_DEPTH) {
        return AP_OPS_INVALID(error, "%s: index_depth %d is outside [1, %d]", gnd_op, (int)p->index_depth,
                              (int)AP_GATHER_ND_MAX_DEPTH);
    }
    if (p->slice_size < 1 || p->slices < 1 || (p->bounds != 0 && p->bounds != 1)) {
        return AP_OPS_INVALID(error, "%s: slice_size %d and slices %d must be >= 1, bounds %d 0 or 1", gnd_op,
                              (int)p->slice_size, (int)p->slices, (int)p->bounds);
    }
    size_t n = (size_t)p->slice_size, out = 0;
    for (int d = 0; d < p->index_depth; ++d) {
        if (p->dims[d] < 1) {
            return AP_OPS_INVALID(error, "%s: dims[%d] is %d; it must be >= 1", gnd_op, d, (int)p->dims[d]);
        }
        if (!ap_ops_mul(n, (size_t)p->dims[d], &n)) {
            return AP_OPS_OVERFLOW(error, "%s: the params' size overflows", gnd_op);
        }
    }
    if (n > (size_t)INT32_MAX / 4 || !ap_ops_mul((size_t)p->slices, (size_t)p->slice_size, &out) ||
        out > (size_t)INT32_MAX / 4 || !ap_ops_mul((size_t)p->slices, (size_t)p->index_depth, &out)) {
        return AP_OPS_OVERFLOW(error, "%s: a tensor size overflows", gnd_op);
    }
    return AP_OK;
}

ap_status ap_gather_nd_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                uint32_t *count_out, ap_error *error_out)
{
    const ap_gather_nd_params *p = params;
    ap_status st = gnd_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    const uint64_t n = (uint64_t)p->slices * (uint64_t)p->slice_size;
    return ap_f32_direct(n, 0, isa, variants_out, capacity, count_out, gnd_op, error_out);
}

static ap_status gnd_run(const ap_op_call *call, ap_isa isa, size_t elem, ap_error *error)
{
    ap_status st = ap_f32_check_call(call, isa, 2, gnd_op, error);
    const ap_gather_nd_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : gnd_check(p, error);
    if (st != AP_OK) {
        return st;
    }
    const int32_t *index = call->inputs[1];
    const size_t depth = (size_t)p->index_depth, slices = (size_t)p->slices, slice = (size_t)p->slice_size;
    int64_t stride[AP_GATHER_ND_MAX_DEPTH];
    int64_t flat = (int64_t)slice;
    for (int d = p->index_depth - 1; d >= 0; --d) {
        stride[d] = flat;
        flat *= p->dims[d];
    }
    /* every tuple checked before anything is written (TFLite fails the op the same way) */
    for (size_t s = 0; s < slices; ++s) {
        int64_t at = 0;
        for (size_t d = 0; d < depth; ++d) {
            const int32_t v = index[s * depth + d];
            if (p->bounds == 0 && (v < 0 || v >= p->dims[d])) {
                return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, (uint64_t)s,
                                   (uint64_t)p->dims[d], "%s: index %u component %u is %ld, outside [0, %d)", gnd_op,
                                   (unsigned)s, (unsigned)d, (long)v, (int)p->dims[d]);
            }
            at += (int64_t)v * stride[d];
        }
        if (at < 0 || at + (int64_t)slice > flat) {
            return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, (uint64_t)s, (uint64_t)flat,
                               "%s: index %u reads at element %lld, outside the params' %lld", gnd_op, (unsigned)s,
                               (long long)at, (long long)flat);
        }
    }
    const uint8_t *x = call->inputs[0];
    uint8_t *y = call->output;
    for (size_t s = 0; s < slices; ++s) {
        size_t at = 0;
        for (size_t d = 0; d < depth; ++d) {
            at += (size_t)index[s * depth + d] * (size_t)stride[d];
        }
        memcpy(y + s * slice * elem, x + at * elem, slice * elem);
    }
    return AP_OK;
}

ap_status ap_gather_nd_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return gnd_run(call, isa, 1, error_out);
}

ap_status ap_gather_nd_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return gnd_run(call, isa, 4, error_out);
}

ap_status ap_gather_nd_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return gnd_run(call, isa, 4, error_out);
}
