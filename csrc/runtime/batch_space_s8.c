/* int8 BATCH_TO_SPACE_ND and SPACE_TO_BATCH_ND (arenaplan/ops.h): TFLite's reference
   BatchToSpaceND and SpaceToBatchND over NHWC, each output pixel gathered. */
#include "arenaplan/ops.h"

#include <string.h>

#include "ops_s8_common.h"

#define B2S_OP "batch_to_space_nd"
#define S2B_OP "space_to_batch_nd"

/* What both ops check: positive shapes, blocks and channels, non-negative pads, the sizes in
   size_t, and the batch relation (the larger batch is the other times the block's area). */
static ap_status batch_space_check(const ap_batch_space_params *p, int to_space, size_t *output_count,
                                   ap_error *error)
{
    const char *op = to_space ? B2S_OP : S2B_OP;
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    for (int a = 0; a < 4; ++a) {
        if (p->input_shape[a] < 1 || p->output_shape[a] < 1) {
            return AP_OPS_INVALID(error, "%s: axis %d has sizes %d in and %d out; they must be >= 1", op, a,
                                  (int)p->input_shape[a], (int)p->output_shape[a]);
        }
    }
    size_t n;
    if (!ap_ops_product(p->input_shape, 4, &n) || !ap_ops_product(p->output_shape, 4, output_count)) {
        return AP_OPS_OVERFLOW(error, "%s: a tensor size overflows size_t", op);
    }
    if (p->block_h < 1 || p->block_w < 1 || p->pad_top < 0 || p->pad_left < 0) {
        return AP_OPS_INVALID(error, "%s: block (%d, %d) must be >= 1 and pads (%d, %d) >= 0", op, (int)p->block_h,
                              (int)p->block_w, (int)p->pad_top, (int)p->pad_left);
    }
    if (p->input_shape[3] != p->output_shape[3]) {
        return AP_OPS_INVALID(error, "%s: %d channels in, %d out", op, (int)p->input_shape[3],
                              (int)p->output_shape[3]);
    }
    const int64_t area = (int64_t)p->block_h * p->block_w;
    const int64_t small = to_space ? p->output_shape[0] : p->input_shape[0];
    const int64_t large = to_space ? p->input_shape[0] : p->output_shape[0];
    if (small * area != large) {
        return AP_OPS_INVALID(error, "%s: batch %d is not %d times the block's %d x %d", op, (int)large, (int)small,
                              (int)p->block_h, (int)p->block_w);
    }
    if (to_space) {
        /* every output position, cropped, reads inside the input */
        const int64_t last_h = ((int64_t)p->output_shape[1] - 1 + p->pad_top) / p->block_h;
        const int64_t last_w = ((int64_t)p->output_shape[2] - 1 + p->pad_left) / p->block_w;
        if (last_h >= p->input_shape[1] || last_w >= p->input_shape[2]) {
            return AP_OPS_INVALID(error, B2S_OP ": output %d x %d with crops (%d, %d) reads beyond the %d x %d input",
                                  (int)p->output_shape[1], (int)p->output_shape[2], (int)p->pad_top,
                                  (int)p->pad_left, (int)p->input_shape[1], (int)p->input_shape[2]);
        }
        if (p->pad_value != 0) {
            return AP_OPS_INVALID(error, B2S_OP ": pad_value %d must be 0 (nothing is padded)", (int)p->pad_value);
        }
    } else {
        if (!ap_ops_int8_range(p->pad_value)) {
            return AP_OPS_INVALID(error, S2B_OP ": pad_value %d must lie in [-128, 127]", (int)p->pad_value);
        }
    }
    return AP_OK;
}

static ap_status batch_space_variants(const void *params, int to_space, ap_isa isa, ap_variant *variants_out,
                                      uint32_t capacity, uint32_t *count_out, ap_error *error)
{
    size_t count = 0;
    ap_status st = batch_space_check(params, to_space, &count, error);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[1];
    /* a gather: the output may not overlap its input */
    ap_ops_variant_set(&found[0], AP_BATCH_SPACE_COPY, 0, "copy", 0, NULL, NULL, (uint64_t)count, 0);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, to_space ? B2S_OP : S2B_OP, error);
}

static ap_status batch_space_run(const ap_op_call *call, int to_space, ap_isa isa, size_t elem, ap_error *error)
{
    /* one code for every ISA: channel-row copies */
    const char *op = to_space ? B2S_OP : S2B_OP;
    if (call == NULL) {
        return AP_OPS_INVALID(error, "%s: call must not be NULL", op);
    }
    const ap_batch_space_params *p = call->params;
    size_t count = 0;
    ap_status st = batch_space_check(p, to_space, &count, error);
    if (st == AP_OK) {
        st = ap_ops_check_variant_ptr(call->variant, op, error);
    }
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error, "%s: variant '%s' is a %s variant; asked to run it as %s", op,
                            call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st == AP_OK && call->variant->kind != AP_BATCH_SPACE_COPY) {
        st = AP_OPS_INVALID(error, "%s: variant kind %d does not apply", op, (int)call->variant->kind);
    }
    if (st == AP_OK && (call->input_count != 1 || call->inputs == NULL || call->inputs[0] == NULL ||
                        call->output == NULL)) {
        st = AP_OPS_INVALID(error, "%s: one input and the output must not be NULL", op);
    }
    if (st == AP_OK && elem != 1 && p->pad_value != 0) {
        st = AP_OPS_INVALID(error, "%s: pad_value %d; the float32 row pads with 0.0 (pad_value 0)", op,
                            (int)p->pad_value);
    }
    if (st != AP_OK) {
        return st;
    }
    /* channel rows of c bytes: int8 values, or float32 ones (elem 4; 0.0f is all zero bytes) */
    const unsigned char *in = call->inputs[0];
    unsigned char *out = call->output;
    const size_t c = (size_t)p->input_shape[3] * elem;
    const size_t in_row = (size_t)p->input_shape[2] * c, in_image = (size_t)p->input_shape[1] * in_row;
    const int32_t out_n = p->output_shape[0], out_h = p->output_shape[1], out_w = p->output_shape[2];
    const int32_t in_n = p->input_shape[0], in_h = p->input_shape[1], in_w = p->input_shape[2];
    for (int32_t b = 0; b < out_n; ++b) {
        for (int32_t h = 0; h < out_h; ++h) {
            for (int32_t w = 0; w < out_w; ++w, out += c) {
                int64_t src_b, src_h, src_w;
                if (to_space) {
                    const int64_t ph = (int64_t)h + p->pad_top, pw = (int64_t)w + p->pad_left;
                    src_b = ((ph % p->block_h) * p->block_w + pw % p->block_w) * out_n + b;
                    src_h = ph / p->block_h;
                    src_w = pw / p->block_w;
                } else {
                    const int64_t shift = b / in_n;
                    src_b = b % in_n;
                    src_h = (int64_t)h * p->block_h + shift / p->block_w - p->pad_top;
                    src_w = (int64_t)w * p->block_w + shift % p->block_w - p->pad_left;
                    if (src_h < 0 || src_h >= in_h || src_w < 0 || src_w >= in_w) {
                        memset(out, (unsigned char)(int8_t)p->pad_value, c);
                        continue;
                    }
                }
                memcpy(out, in + (size_t)src_b * in_image + (size_t)src_h * in_row + (size_t)src_w * c, c);
            }
        }
    }
    return AP_OK;
}

ap_status ap_batch_to_space_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                        uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    return batch_space_variants(params, 1, isa, variants_out, capacity, count_out, error_out);
}

ap_status ap_batch_to_space_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return batch_space_run(call, 1, isa, 1, error_out);
}

ap_status ap_batch_to_space_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return batch_space_run(call, 1, isa, sizeof(float), error_out);
}

ap_status ap_space_to_batch_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                        uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    return batch_space_variants(params, 0, isa, variants_out, capacity, count_out, error_out);
}

ap_status ap_space_to_batch_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return batch_space_run(call, 0, isa, 1, error_out);
}

ap_status ap_space_to_batch_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return batch_space_run(call, 0, isa, sizeof(float), error_out);
}
