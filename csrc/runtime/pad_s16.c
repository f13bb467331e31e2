/* int16 and int32 PAD (arenaplan/ops.h): the output filled with pad_value, the input copied
   inside. */
#include "arenaplan/ops.h"
#include "arenaplan/shape_ops.h"

#include <string.h>

#include "ops_s16_common.h"

#define PAD_OP "pad_s16"

static ap_status pad_wide_check(const ap_pad_params *p, size_t elem, int32_t *out_shape, size_t *total,
                                ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, PAD_OP ": params must not be NULL");
    }
    for (int d = 0; d < 4; ++d) {
        if (p->input_shape[d] < 1 || p->pad_before[d] < 0 || p->pad_after[d] < 0) {
            return AP_OPS_INVALID(error, PAD_OP ": dimension %d has size %d (must be >= 1) or a negative padding "
                                  "(%d, %d)", d, (int)p->input_shape[d], (int)p->pad_before[d], (int)p->pad_after[d]);
        }
        const int64_t o = (int64_t)p->input_shape[d] + p->pad_before[d] + p->pad_after[d];
        if (o > INT32_MAX) {
            return AP_OPS_OVERFLOW(error, PAD_OP ": output dimension %d overflows int32", d);
        }
        out_shape[d] = (int32_t)o;
    }
    if (elem == 2 && !ap_s16_range(p->pad_value)) {
        return AP_OPS_INVALID(error, PAD_OP ": pad_value %d outside [-32768, 32767]", (int)p->pad_value);
    }
    if (!ap_ops_product(out_shape, 4, total) || *total > SIZE_MAX / elem) {
        return AP_OPS_OVERFLOW(error, PAD_OP ": the output's size overflows");
    }
    return AP_OK;
}

/* The output walk: each output pixel's channels the pad value, or the pad value around the input
   pixel's channels. `elem` (2 or 4) is a constant where this is inlined. */
static inline void pad_walk(const ap_pad_params *p, const int32_t *os, const unsigned char *in, unsigned char *dst,
                            size_t elem)
{
    const int32_t *is = p->input_shape, *pb = p->pad_before;
    const int16_t v16 = (int16_t)p->pad_value;
    const int32_t v32 = p->pad_value;
    const void *value = elem == 2 ? (const void *)&v16 : (const void *)&v32;
    const size_t c_out = (size_t)os[3], c_in = (size_t)is[3];
    for (int32_t n = 0; n < os[0]; ++n) {
        const int in_n = n >= pb[0] && n < pb[0] + is[0];
        for (int32_t h = 0; h < os[1]; ++h) {
            const int in_h = in_n && h >= pb[1] && h < pb[1] + is[1];
            for (int32_t w = 0; w < os[2]; ++w, dst += c_out * elem) {
                size_t c = 0;
                if (in_h && w >= pb[2] && w < pb[2] + is[2]) {
                    const unsigned char *src = in + (((size_t)(n - pb[0]) * (size_t)is[1] + (size_t)(h - pb[1])) *
                                                     (size_t)is[2] + (size_t)(w - pb[2])) * c_in * elem;
                    for (; c < (size_t)pb[3]; ++c) {
                        memcpy(dst + c * elem, value, elem);
                    }
                    memcpy(dst + c * elem, src, c_in * elem);
                    c += c_in;
                }
                for (; c < c_out; ++c) {
                    memcpy(dst + c * elem, value, elem);
                }
            }
        }
    }
}

static ap_status pad_wide_variants(const void *params, size_t elem, ap_isa isa, ap_variant *variants_out,
                                   uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    int32_t os[4];
    size_t total = 0;
    ap_status st = pad_wide_check(params, elem, os, &total, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[1];
    ap_ops_variant_set(&found[0], 0, 0, "direct", 0, NULL, NULL, (uint64_t)total, 0);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, PAD_OP, error_out);
}

static ap_status pad_wide_run(const ap_op_call *call, size_t elem, ap_error *error_out)
{
    ap_status st = ap_s16_check_call(call, 1, PAD_OP, error_out);
    const ap_pad_params *p = st == AP_OK ? call->params : NULL;
    int32_t os[4];
    size_t total = 0;
    st = st != AP_OK ? st : pad_wide_check(p, elem, os, &total, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (call->variant->kind != 0) {
        return AP_OPS_UNSUPPORTED(error_out, PAD_OP ": variant kind %d is not one of its kinds",
                                  (int)call->variant->kind);
    }
    if (elem == 2) {
        pad_walk(p, os, call->inputs[0], call->output, 2);
    } else {
        pad_walk(p, os, call->inputs[0], call->output, 4);
    }
    return AP_OK;
}

ap_status ap_pad_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    return pad_wide_variants(params, 2, isa, variants_out, capacity, count_out, error_out);
}

ap_status ap_pad_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    (void)isa;
    return pad_wide_run(call, 2, error_out);
}

/* int32 PAD: the int16 row's walk over int32 values (TFLite's int32 kernels pad with the
   constant value, 0 without one; no quantisation) */
ap_status ap_pad_s32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    return pad_wide_variants(params, 4, isa, variants_out, capacity, count_out, error_out);
}

ap_status ap_pad_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    (void)isa;
    return pad_wide_run(call, 4, error_out);
}
