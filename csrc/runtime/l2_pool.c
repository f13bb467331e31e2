/* L2_POOL_2D float32 (arenaplan/ops.h): TFLite's reference L2Pool. */
#include "float32_common.h"

#include <math.h>

#define L2P_OP "L2_POOL_2D float32"

ap_status ap_l2_pool2d_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                    uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    const ap_pool2d_f32_params *p = params;
    ap_status st = ap_f32_pool_check(p, L2P_OP, error_out);
    if (st != AP_OK) {
        return st;
    }
    const uint64_t taps = (uint64_t)p->batches * (uint64_t)p->output_h * (uint64_t)p->output_w *
                          (uint64_t)p->channels * (uint64_t)p->filter_h * (uint64_t)p->filter_w;
    return ap_f32_direct(taps, 0, isa, variants_out, capacity, count_out, L2P_OP, error_out);
}

ap_status ap_l2_pool2d_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 1, L2P_OP, error_out);
    const ap_pool2d_f32_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : ap_f32_pool_check(p, L2P_OP, error_out);
    if (st != AP_OK) {
        return st;
    }
    const float *x = call->inputs[0];
    float *y = call->output;
    const size_t ih = (size_t)p->input_h, iw = (size_t)p->input_w, ch = (size_t)p->channels;
    const size_t oh = (size_t)p->output_h, ow = (size_t)p->output_w;
    for (size_t b = 0; b < (size_t)p->batches; ++b) {
        for (size_t oy = 0; oy < oh; ++oy) {
            int64_t ys = 0, ye = 0;
            ap_f32_pool_window((int64_t)oy, p->stride_h, p->pad_h, p->filter_h, p->input_h, &ys, &ye);
            const int64_t y0 = (int64_t)oy * p->stride_h - p->pad_h;
            for (size_t ox = 0; ox < ow; ++ox) {
                int64_t xs = 0, xe = 0;
                ap_f32_pool_window((int64_t)ox, p->stride_w, p->pad_w, p->filter_w, p->input_w, &xs, &xe);
                const int64_t x0 = (int64_t)ox * p->stride_w - p->pad_w;
                /* TFLite's int count, converted to float for the division */
                const float count = (float)((ye - ys) * (xe - xs));
                for (size_t c = 0; c < ch; ++c) {
                    float squares = 0.0f;
                    for (int64_t fy = ys; fy < ye; ++fy) {
                        for (int64_t fx = xs; fx < xe; ++fx) {
                            const float v = x[((b * ih + (size_t)(y0 + fy)) * iw + (size_t)(x0 + fx)) * ch + c];
                            squares += v * v;
                        }
                    }
                    const float r = sqrtf(squares / count);
                    y[((b * oh + oy) * ow + ox) * ch + c] = ap_f32_act(r, p->activation_min, p->activation_max);
                }
            }
        }
    }
    return AP_OK;
}
