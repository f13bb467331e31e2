/* REVERSE_V2 on int8, int16, float32, int32, int64 and bool (arenaplan/ops.h): TFLite's reference
   Reverse over contiguous axes, a pure data move of `elem`-byte elements. */
#include "float32_common.h"

static const char *const rev_op = "reverse_v2";

static ap_status rev_check(const ap_reverse_params *p, size_t elem, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", rev_op);
    }
    if (p->outer < 1 || p->middle < 1 || p->inner < 1) {
        return AP_OPS_INVALID(error, "%s: outer %d, middle %d and inner %d must be >= 1", rev_op, (int)p->outer,
                              (int)p->middle, (int)p->inner);
    }
    const int32_t dims[3] = {p->outer, p->middle, p->inner};
    size_t n;
    if (!ap_ops_product(dims, 3, &n) || !ap_ops_mul(n, elem, &n)) {
        return AP_OPS_OVERFLOW(error, "%s: the tensor's size overflows", rev_op);
    }
    return AP_OK;
}

ap_status ap_reverse_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    const ap_reverse_params *p = params;
    ap_status st = rev_check(p, 8, error_out);   /* the widest element's bytes */
    if (st != AP_OK) {
        return st;
    }
    const uint64_t n = (uint64_t)p->outer * (uint64_t)p->middle * (uint64_t)p->inner;
    return ap_f32_direct(n, 0, isa, variants_out, capacity, count_out, rev_op, error_out);
}

static ap_status rev_run(const ap_op_call *call, ap_isa isa, size_t elem, ap_error *error)
{
    ap_status st = ap_f32_check_call(call, isa, 1, rev_op, error);
    const ap_reverse_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : rev_check(p, elem, error);
    if (st != AP_OK) {
        return st;
    }
    const uint8_t *x = call->inputs[0];
    uint8_t *y = call->output;
    const size_t middle = (size_t)p->middle, block = (size_t)p->inner * elem;
    for (size_t o = 0; o < (size_t)p->outer; ++o) {
        const uint8_t *src = x + o * middle * block;
        uint8_t *dst = y + o * middle * block;
        if (block == elem) {
            /* one element a block (the last axis reversed): move elements, not memcpy calls */
            const uint8_t *s = src + (middle - 1) * elem;
            for (size_t m = 0; m < middle; ++m, s -= elem, dst += elem) {
                for (size_t b = 0; b < elem; ++b) {
                    dst[b] = s[b];
                }
            }
        } else {
            for (size_t m = 0; m < middle; ++m) {
                memcpy(dst + m * block, src + (middle - 1 - m) * block, block);
            }
        }
    }
    return AP_OK;
}

ap_status ap_reverse_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return rev_run(call, isa, 1, error_out);
}

ap_status ap_reverse_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return rev_run(call, isa, 2, error_out);
}

ap_status ap_reverse_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return rev_run(call, isa, 4, error_out);
}

ap_status ap_reverse_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return rev_run(call, isa, 4, error_out);
}

ap_status ap_reverse_bool_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return rev_run(call, isa, 1, error_out);
}

ap_status ap_reverse_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return rev_run(call, isa, 8, error_out);
}
