/* STRIDED_SLICE (arenaplan/ops.h): TFLite's reference StridedSlice over five axes, with the
   begin / end / shrink masks resolved to a first index and a count per axis at plan time. One
   copy for every element size: the int8 and bool rows move bytes, the 16x8 row int16 values, the
   int32 row four-byte ones. */
#include "arenaplan/ops.h"

#include <string.h>

#include "ops_s8_common.h"

#define SLICE_OP "strided_slice"

enum { SLICE_AXES = AP_STRIDED_SLICE_MAX_AXES };

/* Every axis reads indices begin + k * stride for k < count, all inside [0, dim): checked
   here, once, for variants() and run() alike, so the copy never leaves the input. */
static ap_status slice_check(const ap_strided_slice_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, SLICE_OP ": params must not be NULL");
    }
    size_t in_count = 1, out_count = 1;
    for (int a = 0; a < SLICE_AXES; ++a) {
        const int32_t dim = p->input_shape[a], count = p->output_shape[a], stride = p->stride[a];
        if (dim < 1 || count < 1) {
            return AP_OPS_INVALID(error, SLICE_OP ": axis %d has input size %d and output size %d; both must "
                                  "be >= 1", a, (int)dim, (int)count);
        }
        if (stride == 0) {
            return AP_OPS_INVALID(error, SLICE_OP ": axis %d has stride 0", a);
        }
        const int64_t first = p->begin[a];
        const int64_t last = first + (int64_t)(count - 1) * (int64_t)stride;
        if (first < 0 || first >= dim || last < 0 || last >= dim) {
            return AP_OPS_INVALID(error, SLICE_OP ": axis %d reads indices %lld to %lld (stride %d) of a "
                                  "dimension of %d; every index must lie in [0, %d)", a, (long long)first,
                                  (long long)last, (int)stride, (int)dim, (int)dim);
        }
        if (!ap_ops_mul(in_count, (size_t)dim, &in_count) || !ap_ops_mul(out_count, (size_t)count, &out_count)) {
            return AP_OPS_OVERFLOW(error, SLICE_OP ": the element count overflows size_t");
        }
    }
    return AP_OK;
}

static size_t slice_output_count(const ap_strided_slice_params *p)
{
    size_t n = 1;
    for (int a = 0; a < SLICE_AXES; ++a) {
        n *= (size_t)p->output_shape[a];   /* slice_check has bounded the product */
    }
    return n;
}

ap_status ap_strided_slice_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                       uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    const ap_strided_slice_params *p = params;
    ap_status st = slice_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[1];
    /* a copy: the output may not overlap the input it gathers from */
    ap_ops_variant_set(&found[0], AP_STRIDED_SLICE_COPY, 0, "copy", 0, NULL, NULL,
                       (uint64_t)slice_output_count(p), 0);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, SLICE_OP, error_out);
}

/* The gather, for elements of `elem` bytes (1, 2 or 4; a constant where it is inlined, so each
   element's memcpy is one load and one store). */
static inline void slice_copy(const ap_strided_slice_params *p, const unsigned char *in, unsigned char *out,
                              size_t elem)
{
    /* element strides of the input, innermost axis last */
    size_t step[SLICE_AXES];
    step[SLICE_AXES - 1] = 1;
    for (int a = SLICE_AXES - 1; a > 0; --a) {
        step[a - 1] = step[a] * (size_t)p->input_shape[a];
    }
    const int32_t *b = p->begin, *s = p->stride, *n = p->output_shape;
    for (int32_t i0 = 0; i0 < n[0]; ++i0) {
        const size_t r0 = (size_t)(b[0] + i0 * s[0]) * step[0];
        for (int32_t i1 = 0; i1 < n[1]; ++i1) {
            const size_t r1 = r0 + (size_t)(b[1] + i1 * s[1]) * step[1];
            for (int32_t i2 = 0; i2 < n[2]; ++i2) {
                const size_t r2 = r1 + (size_t)(b[2] + i2 * s[2]) * step[2];
                for (int32_t i3 = 0; i3 < n[3]; ++i3) {
                    const size_t r3 = r2 + (size_t)(b[3] + i3 * s[3]) * step[3];
                    for (int32_t i4 = 0; i4 < n[4]; ++i4, out += elem) {
                        memcpy(out, in + (r3 + (size_t)(b[4] + i4 * s[4])) * elem, elem);
                    }
                }
            }
        }
    }
}

/* run() of both rows: the checks, then the copy of `elem`-byte elements */
static ap_status slice_run(const ap_op_call *call, ap_isa isa, size_t elem, ap_error *error_out)
{
    /* one code for every ISA: an index walk with nothing to vectorise */
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, SLICE_OP ": call must not be NULL");
    }
    const ap_strided_slice_params *p = call->params;
    ap_status st = slice_check(p, error_out);
    if (st == AP_OK) {
        st = ap_ops_check_variant_ptr(call->variant, SLICE_OP, error_out);
    }
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error_out, SLICE_OP ": variant '%s' is a %s variant; asked to run it as %s",
                            call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st != AP_OK) {
        return st;
    }
    if (call->variant->kind != AP_STRIDED_SLICE_COPY) {
        return AP_OPS_INVALID(error_out, SLICE_OP ": variant kind %d does not apply", (int)call->variant->kind);
    }
    if (call->input_count != 1 || call->inputs == NULL || call->inputs[0] == NULL || call->output == NULL) {
        return AP_OPS_INVALID(error_out, SLICE_OP ": one input and the output must not be NULL");
    }
    if (elem == 1) {
        slice_copy(p, call->inputs[0], call->output, 1);
    } else if (elem == 2) {
        slice_copy(p, call->inputs[0], call->output, 2);
    } else {
        slice_copy(p, call->inputs[0], call->output, 4);
    }
    return AP_OK;
}

ap_status ap_strided_slice_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return slice_run(call, isa, 1, error_out);
}

ap_status ap_strided_slice_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return slice_run(call, isa, 2, error_out);
}

ap_status ap_strided_slice_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return slice_run(call, isa, 4, error_out);
}
