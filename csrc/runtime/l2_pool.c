/* L2_POOL_2D float32 (arenaplan/ops.h): TFLite's reference L2Pool. */
#include "float32_common.h"

#include <math.h>

#define L2P_OP "L2_POOL_2D float32"

/* The window's taps of output position `o` along one axis, clipped to the input: [start, end)
   filter offsets, as TFLite clamps them. */
static void l2p_window(int64_t o, int32_t stride, int32_t pad, int32_t filter, int32_t in, int64_t *start,
                       int64_t *end)
{
    const int64_t origin = o * stride - pad;
    *start = origin < 0 ? -origin : 0;
    *end = (int64_t)in - origin < filter ? (int64_t)in - origin : filter;
}

static ap_status l2p_check(const ap_pool2d_f32_params *p, uint64_t *taps, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, L2P_OP ": params must not be NULL");
    }
    const int32_t dims[] = {p->batches, p->input_h, p->input_w, p->channels, p->output_h, p->output_w,
                            p->filter_h, p->filter_w, p->stride_h, p->stride_w};
    for (size_t i = 0; i < sizeof(dims) / sizeof(dims[0]); ++i) {
        if (dims[i] < 1) {
            return AP_OPS_INVALID(error, L2P_OP ": every dimension and stride must be >= 1 (field %u is %d)",
                                  (unsigned)i, (int)dims[i]);
        }
    }
    if (p->pad_h < 0 || p->pad_w < 0) {
        return AP_OPS_INVALID(error, L2P_OP ": padding (%d, %d) must be >= 0", (int)p->pad_h, (int)p->pad_w);
    }
    const int32_t in[4] = {p->batches, p->input_h, p->input_w, p->channels};
    const int32_t out[4] = {p->batches, p->output_h, p->output_w, p->channels};
    size_t n = 0;
    if (!ap_ops_product(in, 4, &n) || n > SIZE_MAX / sizeof(float) || !ap_ops_product(out, 4, &n) ||
        n > SIZE_MAX / sizeof(float)) {
        return AP_OPS_OVERFLOW(error, L2P_OP ": the tensors' sizes overflow");
    }
    /* every window must hold a tap: TFLite divides by the count (0 / 0 where it has none) */
    int64_t s = 0, e = 0;
    for (int32_t o = 0; o < p->output_h; ++o) {
        l2p_window(o, p->stride_h, p->pad_h, p->filter_h, p->input_h, &s, &e);
        if (s >= e) {
            return AP_OPS_INVALID(error, L2P_OP ": output row %d's window holds no input", (int)o);
        }
    }
    for (int32_t o = 0; o < p->output_w; ++o) {
        l2p_window(o, p->stride_w, p->pad_w, p->filter_w, p->input_w, &s, &e);
        if (s >= e) {
            return AP_OPS_INVALID(error, L2P_OP ": output column %d's window holds no input", (int)o);
        }
    }
    *taps = (uint64_t)n * (uint64_t)p->filter_h * (uint64_t)p->filter_w;
    return ap_f32_check_range(p->activation_min, p->activation_max, L2P_OP, error);
}

ap_status ap_l2_pool2d_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                    uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    uint64_t taps = 0;
    ap_status st = l2p_check(params, &taps, error_out);
    return st != AP_OK ? st : ap_f32_direct(taps, 0, isa, variants_out, capacity, count_out, L2P_OP, error_out);
}

ap_status ap_l2_pool2d_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    ap_status st = ap_f32_check_call(call, isa, 1, L2P_OP, error_out);
    const ap_pool2d_f32_params *p = st == AP_OK ? call->params : NULL;
    uint64_t taps = 0;
    st = st != AP_OK ? st : l2p_check(p, &taps, error_out);
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
            l2p_window((int64_t)oy, p->stride_h, p->pad_h, p->filter_h, p->input_h, &ys, &ye);
            const int64_t y0 = (int64_t)oy * p->stride_h - p->pad_h;
            for (size_t ox = 0; ox < ow; ++ox) {
                int64_t xs = 0, xe = 0;
                l2p_window((int64_t)ox, p->stride_w, p->pad_w, p->filter_w, p->input_w, &xs, &xe);
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
