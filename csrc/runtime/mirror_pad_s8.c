/* int8 MIRROR_PAD (arenaplan/ops.h): TFLite's reference MirrorPad over four axes. */
#include "arenaplan/ops.h"

#include <string.h>

#include "ops_s8_common.h"

#define MIRROR_OP "mirror_pad"

enum { MP_AXES = 4 };

static ap_status mirror_check(const ap_mirror_pad_params *p, size_t *output_count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, MIRROR_OP ": params must not be NULL");
    }
    if (p->offset != 0 && p->offset != 1) {
        return AP_OPS_INVALID(error, MIRROR_OP ": offset %d must be 0 (SYMMETRIC) or 1 (REFLECT)", (int)p->offset);
    }
    int32_t out[MP_AXES];
    for (int a = 0; a < MP_AXES; ++a) {
        const int32_t n = p->input_shape[a], most = n - p->offset;
        if (n < 1) {
            return AP_OPS_INVALID(error, MIRROR_OP ": axis %d has size %d; it must be >= 1", a, (int)n);
        }
        if (p->pad_before[a] < 0 || p->pad_before[a] > most || p->pad_after[a] < 0 || p->pad_after[a] > most) {
            return AP_OPS_INVALID(error, MIRROR_OP ": paddings (%d, %d) on axis %d of size %d must lie in [0, %d]",
                                  (int)p->pad_before[a], (int)p->pad_after[a], a, (int)n, (int)most);
        }
        if (n > INT32_MAX / 3) {
            return AP_OPS_OVERFLOW(error, MIRROR_OP ": axis %d of size %d overflows int32 padded", a, (int)n);
        }
        out[a] = n + p->pad_before[a] + p->pad_after[a];   /* at most 3n - 2 */
    }
    size_t in_count;
    if (!ap_ops_product(p->input_shape, MP_AXES, &in_count) || !ap_ops_product(out, MP_AXES, output_count)) {
        return AP_OPS_OVERFLOW(error, MIRROR_OP ": a tensor size overflows size_t");
    }
    return AP_OK;
}

/* TFLite's GetInputDimension for paddings within [0, n - offset]. */
static int32_t mirror_index(int32_t p, int32_t before, int32_t n, int32_t offset)
{
    if (p < before) {
        return before + offset - 1 - p;
    }
    p -= before;
    return p < n ? p : n - 1 - offset - (p - n);
}

ap_status ap_mirror_pad_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                    uint32_t *count_out, ap_error *error_out)
{
    size_t count = 0;
    ap_status st = mirror_check(params, &count, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[1];
    /* a gather: the output may not overlap its input */
    ap_ops_variant_set(&found[0], AP_MIRROR_PAD_COPY, 0, "copy", 0, NULL, NULL, (uint64_t)count, 0);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, MIRROR_OP, error_out);
}

static ap_status mirror_run(const ap_op_call *call, ap_isa isa, size_t elem, ap_error *error_out)
{
    /* one code for every ISA: an index walk */
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, MIRROR_OP ": call must not be NULL");
    }
    const ap_mirror_pad_params *p = call->params;
    size_t count = 0;
    ap_status st = mirror_check(p, &count, error_out);
    if (st == AP_OK) {
        st = ap_ops_check_variant_ptr(call->variant, MIRROR_OP, error_out);
    }
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error_out, MIRROR_OP ": variant '%s' is a %s variant; asked to run it as %s",
                            call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st == AP_OK && call->variant->kind != AP_MIRROR_PAD_COPY) {
        st = AP_OPS_INVALID(error_out, MIRROR_OP ": variant kind %d does not apply", (int)call->variant->kind);
    }
    if (st == AP_OK && (call->input_count != 1 || call->inputs == NULL || call->inputs[0] == NULL ||
                        call->output == NULL)) {
        st = AP_OPS_INVALID(error_out, MIRROR_OP ": one input and the output must not be NULL");
    }
    if (st != AP_OK) {
        return st;
    }
    /* elements of `elem` bytes: int8 values, or float32 ones (elem 4) */
    const unsigned char *in = call->inputs[0];
    unsigned char *out = call->output;
    const int32_t *n = p->input_shape, *before = p->pad_before, off = p->offset;
    int32_t m[MP_AXES];
    for (int a = 0; a < MP_AXES; ++a) {
        m[a] = n[a] + p->pad_before[a] + p->pad_after[a];
    }
    const size_t s2 = (size_t)n[3] * elem, s1 = s2 * (size_t)n[2], s0 = s1 * (size_t)n[1];
    for (int32_t i0 = 0; i0 < m[0]; ++i0) {
        const size_t r0 = (size_t)mirror_index(i0, before[0], n[0], off) * s0;
        for (int32_t i1 = 0; i1 < m[1]; ++i1) {
            const size_t r1 = r0 + (size_t)mirror_index(i1, before[1], n[1], off) * s1;
            for (int32_t i2 = 0; i2 < m[2]; ++i2) {
                const unsigned char *row = in + r1 + (size_t)mirror_index(i2, before[2], n[2], off) * s2;
                /* the last axis: the mirrored head, the row itself, the mirrored tail */
                for (int32_t i3 = 0; i3 < before[3]; ++i3, out += elem) {
                    memcpy(out, row + (size_t)(before[3] + off - 1 - i3) * elem, elem);
                }
                memcpy(out, row, s2);
                out += s2;
                for (int32_t i3 = 0; i3 < p->pad_after[3]; ++i3, out += elem) {
                    memcpy(out, row + (size_t)(n[3] - 1 - off - i3) * elem, elem);
                }
            }
        }
    }
    return AP_OK;
}

ap_status ap_mirror_pad_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return mirror_run(call, isa, 1, error_out);
}

ap_status ap_mirror_pad_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return mirror_run(call, isa, sizeof(float), error_out);
}
