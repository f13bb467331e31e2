/* TRANSPOSE (arenaplan/ops.h): TFLite's reference Transpose over five axes, one copy for every
   element size (the int8 row moves bytes, the 16x8 row int16 values). */
#include "arenaplan/ops.h"

#include <string.h>

#include "ops_s8_common.h"

#define TRANSPOSE_OP "transpose"

enum { TR_AXES = AP_TRANSPOSE_MAX_AXES };

/* The shape is positive and perm a permutation of 0..4: checked once for variants() and run(),
   so every index the walk forms lies inside the input. */
static ap_status transpose_check(const ap_transpose_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, TRANSPOSE_OP ": params must not be NULL");
    }
    int seen[TR_AXES] = {0};
    size_t count = 1;
    for (int a = 0; a < TR_AXES; ++a) {
        if (p->input_shape[a] < 1) {
            return AP_OPS_INVALID(error, TRANSPOSE_OP ": axis %d has size %d; it must be >= 1", a,
                                  (int)p->input_shape[a]);
        }
        if (p->perm[a] < 0 || p->perm[a] >= TR_AXES || seen[p->perm[a]]) {
            return AP_OPS_INVALID(error, TRANSPOSE_OP ": perm[%d] = %d; perm must be a permutation of 0..%d", a,
                                  (int)p->perm[a], TR_AXES - 1);
        }
        seen[p->perm[a]] = 1;
        if (!ap_ops_mul(count, (size_t)p->input_shape[a], &count)) {
            return AP_OPS_OVERFLOW(error, TRANSPOSE_OP ": the element count overflows size_t");
        }
    }
    return AP_OK;
}

ap_status ap_transpose_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                   uint32_t *count_out, ap_error *error_out)
{
    const ap_transpose_params *p = params;
    ap_status st = transpose_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    size_t count = 1;
    ap_ops_product(p->input_shape, TR_AXES, &count);
    ap_variant found[1];
    /* a gather: the output may not overlap its input */
    ap_ops_variant_set(&found[0], AP_TRANSPOSE_COPY, 0, "copy", 0, NULL, NULL, (uint64_t)count, 0);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, TRANSPOSE_OP, error_out);
}

/* The gather, for elements of `elem` bytes (1 or 2; a constant where it is inlined). */
static inline void transpose_copy(const ap_transpose_params *p, const unsigned char *in, unsigned char *out,
                                  size_t elem)
{
    size_t in_step[TR_AXES];
    in_step[TR_AXES - 1] = 1;
    for (int a = TR_AXES - 1; a > 0; --a) {
        in_step[a - 1] = in_step[a] * (size_t)p->input_shape[a];
    }
    /* output axis a walks input axis perm[a] */
    int32_t n[TR_AXES];
    size_t s[TR_AXES];
    for (int a = 0; a < TR_AXES; ++a) {
        n[a] = p->input_shape[p->perm[a]];
        s[a] = in_step[p->perm[a]];
    }
    for (int32_t i0 = 0; i0 < n[0]; ++i0) {
        for (int32_t i1 = 0; i1 < n[1]; ++i1) {
            for (int32_t i2 = 0; i2 < n[2]; ++i2) {
                const size_t r2 = (size_t)i0 * s[0] + (size_t)i1 * s[1] + (size_t)i2 * s[2];
                for (int32_t i3 = 0; i3 < n[3]; ++i3) {
                    const size_t r3 = r2 + (size_t)i3 * s[3];
                    for (int32_t i4 = 0; i4 < n[4]; ++i4, out += elem) {
                        memcpy(out, in + (r3 + (size_t)i4 * s[4]) * elem, elem);
                    }
                }
            }
        }
    }
}

/* run() of both rows: the checks, then the copy of `elem`-byte elements */
static ap_status transpose_run(const ap_op_call *call, ap_isa isa, size_t elem, ap_error *error_out)
{
    /* one code for every ISA: an index walk */
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, TRANSPOSE_OP ": call must not be NULL");
    }
    const ap_transpose_params *p = call->params;
    ap_status st = transpose_check(p, error_out);
    if (st == AP_OK) {
        st = ap_ops_check_variant_ptr(call->variant, TRANSPOSE_OP, error_out);
    }
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error_out, TRANSPOSE_OP ": variant '%s' is a %s variant; asked to run it as %s",
                            call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st != AP_OK) {
        return st;
    }
    if (call->variant->kind != AP_TRANSPOSE_COPY) {
        return AP_OPS_INVALID(error_out, TRANSPOSE_OP ": variant kind %d does not apply", (int)call->variant->kind);
    }
    if (call->input_count != 1 || call->inputs == NULL || call->inputs[0] == NULL || call->output == NULL) {
        return AP_OPS_INVALID(error_out, TRANSPOSE_OP ": one input and the output must not be NULL");
    }
    if (elem == 1) {
        transpose_copy(p, call->inputs[0], call->output, 1);
    } else {
        transpose_copy(p, call->inputs[0], call->output, 2);
    }
    return AP_OK;
}

ap_status ap_transpose_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return transpose_run(call, isa, 1, error_out);
}

ap_status ap_transpose_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return transpose_run(call, isa, 2, error_out);
}
