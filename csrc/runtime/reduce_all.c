/* REDUCE_ALL on bool (arenaplan/ops.h): TFLite's reference ReduceGeneric with logical AND, the
   output indexed by the kept axes while the input is read once in order. */
#include "float32_common.h"

static const char *const all_op = "reduce_all";

static ap_status all_check(const ap_reduce_all_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", all_op);
    }
    if (p->rank < 1 || p->rank > AP_REDUCE_ALL_MAX_DIMS) {
        return AP_OPS_INVALID(error, "%s: rank %d is outside [1, %d]", all_op, (int)p->rank,
                              (int)AP_REDUCE_ALL_MAX_DIMS);
    }
    for (int d = 0; d < p->rank; ++d) {
        /* a reduced axis may be empty: its outputs are the AND of nothing, true */
        if (p->dims[d] < (p->reduce[d] == 1 ? 0 : 1) || (p->reduce[d] != 0 && p->reduce[d] != 1)) {
            return AP_OPS_INVALID(error, "%s: dims[%d] is %d and reduce[%d] %d; dims must be >= 1 (>= 0 where "
                                  "reduced), reduce 0 or 1", all_op, d, (int)p->dims[d], d, (int)p->reduce[d]);
        }
    }
    size_t n;
    if (!ap_ops_product(p->dims, p->rank, &n)) {
        return AP_OPS_OVERFLOW(error, "%s: the input's size overflows", all_op);
    }
    return AP_OK;
}

ap_status ap_reduce_all_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, ap_error *error_out)
{
    const ap_reduce_all_params *p = params;
    ap_status st = all_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    size_t n = 0;
    (void)ap_ops_product(p->dims, p->rank, &n);
    return ap_f32_direct((uint64_t)n, 0, isa, variants_out, capacity, count_out, all_op, error_out);
}

ap_status ap_reduce_all_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 1, all_op, error_out);
    const ap_reduce_all_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : all_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    const int rank = (int)p->rank;
    /* the output's stride of each axis: 0 for a reduced one, so its elements share an output */
    size_t stride[AP_REDUCE_ALL_MAX_DIMS], count[AP_REDUCE_ALL_MAX_DIMS] = {0};
    size_t outputs = 1, inputs = 1;
    for (int d = rank - 1; d >= 0; --d) {
        stride[d] = p->reduce[d] ? 0 : outputs;
        outputs *= p->reduce[d] ? 1u : (size_t)p->dims[d];
        inputs *= (size_t)p->dims[d];
    }
    const uint8_t *x = call->inputs[0];
    uint8_t *y = call->output;
    memset(y, 1, outputs);
    size_t at = 0;
    for (size_t i = 0; i < inputs; ++i) {
        if (x[i] == 0) {
            y[at] = 0;
        }
        /* the next input position: carry through the axes from the last, as an odometer */
        for (int d = rank - 1; d >= 0; --d) {
            at += stride[d];
            if (++count[d] < (size_t)p->dims[d]) {
                break;
            }
            at -= stride[d] * count[d];
            count[d] = 0;
        }
    }
    return AP_OK;
}
