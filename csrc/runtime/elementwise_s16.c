/* ADD, SUB and MUL in the 16x8 mode (arenaplan/ops.h) with 4-D broadcasting: ADD and SUB by
   TFLite's general int16 path (zero points 0, left shift 15, each input rescaled below one,
   then the output rescale), MUL by reference_integer_ops::MulElementwise (the int32 product
   rescaled once). */
#include "arenaplan/elementwise.h"
#include "arenaplan/ops.h"

#include "broadcast4.h"
#include "ops_s16_common.h"

/* The shapes broadcast (each input's dimension 1 or the output's) and the output's size is
   addressable in int16 elements. */
static ap_status ew16_check_shapes(const int32_t *s1, const int32_t *s2, const int32_t *so, const char *op,
                                   ap_error *error)
{
    ap_status st = ap_bcast4_check(s1, s2, so, op, error);
    if (st != AP_OK) {
        return st;
    }
    size_t n = 0;
    if (!ap_ops_product(so, 4, &n) || n > SIZE_MAX / 2) {
        return AP_OPS_OVERFLOW(error, "%s: the output's size overflows", op);
    }
    return AP_OK;
}

/* ew16_check_shapes, then the offsets: all 0 (int16 zero points are 0), of ADD / SUB's, MUL's
   and SQUARED_DIFFERENCE's params alike. */
static ap_status ew16_check_shapes_offsets(const int32_t *s1, const int32_t *s2, const int32_t *so,
                                           int32_t input1_offset, int32_t input2_offset, int32_t output_offset,
                                           const char *op, ap_error *error)
{
    ap_status st = ew16_check_shapes(s1, s2, so, op, error);
    if (st != AP_OK) {
        return st;
    }
    if (input1_offset != 0 || input2_offset != 0 || output_offset != 0) {
        return AP_OPS_INVALID(error, "%s: offsets (%d, %d, %d) must be 0 (int16 zero points are 0)", op,
                              (int)input1_offset, (int)input2_offset, (int)output_offset);
    }
    return AP_OK;
}

/* An activation range within int16, min <= max. */
static ap_status ew16_check_activation(int32_t lo, int32_t hi, const char *op, ap_error *error)
{
    if (!ap_s16_range(lo) || !ap_s16_range(hi) || lo > hi) {
        return AP_OPS_INVALID(error, "%s: activation range [%d, %d] is not within [-32768, 32767] with min <= max",
                              op, (int)lo, (int)hi);
    }
    return AP_OK;
}

static ap_status ew16_check(const void *params, const char *op, ap_error *error)
{
    const ap_add_params *p = params;
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    ap_status st = ew16_check_shapes_offsets(p->input1_shape, p->input2_shape, p->output_shape, p->input1_offset,
                                             p->input2_offset, p->output_offset, op, error);
    if (st != AP_OK) {
        return st;
    }
    if (p->left_shift != 15) {
        return AP_OPS_INVALID(error, "%s: left_shift %d must be 15 (TFLite's general int16 path)", op,
                              (int)p->left_shift);
    }
    const int32_t mults[3] = {p->input1_multiplier, p->input2_multiplier, p->output_multiplier};
    const int32_t shifts[3] = {p->input1_shift, p->input2_shift, p->output_shift};
    for (int i = 0; i < 3; ++i) {
        if (mults[i] < 0 || shifts[i] < -31 || shifts[i] > (i == 2 ? 30 : 0)) {
            return AP_OPS_INVALID(error, "%s: multiplier %d must be >= 0 and shift %d within [-31, %d]", op,
                                  (int)mults[i], (int)shifts[i], i == 2 ? 30 : 0);
        }
    }
    return ew16_check_activation(p->activation_min, p->activation_max, op, error);
}

/* The one variant of checked shapes. */
static ap_status ew16_variant(const int32_t *s1, const int32_t *s2, const int32_t *so, ap_isa isa,
                              ap_variant *variants_out, uint32_t capacity, uint32_t *count_out, const char *op,
                              ap_error *error)
{
    size_t total = 0;
    ap_ops_product(so, 4, &total);
    return ap_bcast4_direct_variant(s1, s2, so, (uint64_t)total, isa, variants_out, capacity, count_out, op, error);
}

/* One op's params check (ew16_check, mul16_check, minmax16_check, sqdiff16_check). */
typedef ap_status (*ew16_check_fn)(const void *params, const char *op, ap_error *error);

/* The checks every int16 binary run() starts with: the call's pointers, its params, the
   variant's ISA (the one this row was asked to run) and its kind. */
static ap_status ew16_begin(const ap_op_call *call, ew16_check_fn check, ap_isa isa, const char *op,
                            ap_error *error)
{
    ap_status st = ap_s16_check_call(call, 2, op, error);
    st = st != AP_OK ? st : check(call->params, op, error);
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error, "%s: variant '%s' is a %s variant; asked to run it as %s", op, call->variant->name,
                            ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st != AP_OK) {
        return st;
    }
    if (call->variant->kind != AP_ELEMENTWISE_DIRECT) {
        return AP_OPS_UNSUPPORTED(error, "%s: variant kind %d is not one of its kinds", op, (int)call->variant->kind);
    }
    return AP_OK;
}

static ap_status ew16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, const char *op, ap_error *error)
{
    const ap_add_params *p = params;
    ap_status st = ew16_check(p, op, error);
    return st != AP_OK ? st : ew16_variant(p->input1_shape, p->input2_shape, p->output_shape, isa, variants_out,
                                           capacity, count_out, op, error);
}

static ap_status ew16_run(const ap_op_call *call, ap_isa isa, int32_t sign, const char *op, ap_error *error)
{
    const ap_status st = ew16_begin(call, ew16_check, isa, op, error);
    if (st != AP_OK) {
        return st;
    }
    const ap_add_params *p = call->params;
    const int16_t *a = call->inputs[0], *b = call->inputs[1];
    int16_t *out = call->output;
    AP_BCAST4_FOR_EACH(p->output_shape, p->input1_shape, p->input2_shape, ia, ib, at, {
        /* |x| << 15 stays below 2^30; the scaled inputs below 2^30 each */
        const int32_t x1 = (int32_t)a[ia] * (1 << 15);
        const int32_t x2 = (int32_t)b[ib] * (1 << 15);
        const int32_t s1 = ap_fp_multiply_by_quantized_multiplier(x1, p->input1_multiplier, p->input1_shift);
        const int32_t s2 = ap_fp_multiply_by_quantized_multiplier(x2, p->input2_multiplier, p->input2_shift);
        const int32_t raw = ap_fp_multiply_by_quantized_multiplier(s1 + sign * s2, p->output_multiplier,
                                                                   p->output_shift);
        out[at] = (int16_t)ap_ops_clamp(raw, p->activation_min, p->activation_max);
    });
    return AP_OK;
}

ap_status ap_add_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    return ew16_variants(params, isa, variants_out, capacity, count_out, "add_s16", error_out);
}

ap_status ap_add_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return ew16_run(call, isa, 1, "add_s16", error_out);
}

ap_status ap_sub_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    return ew16_variants(params, isa, variants_out, capacity, count_out, "sub_s16", error_out);
}

ap_status ap_sub_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return ew16_run(call, isa, -1, "sub_s16", error_out);
}

/* ---- MUL ---- */

static ap_status mul16_check(const void *params, const char *op, ap_error *error)
{
    const ap_mul_params *p = params;
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    /* TFLite's int16 MUL requires zero points 0: the product of offset inputs could overflow */
    ap_status st = ew16_check_shapes_offsets(p->input1_shape, p->input2_shape, p->output_shape, p->input1_offset,
                                             p->input2_offset, p->output_offset, op, error);
    if (st != AP_OK) {
        return st;
    }
    if (p->output_multiplier < 0 || p->output_shift < -31 || p->output_shift > 30) {
        return AP_OPS_INVALID(error, "%s: output_multiplier %d must be >= 0 and output_shift %d within [-31, 30]", op,
                              (int)p->output_multiplier, (int)p->output_shift);
    }
    return ew16_check_activation(p->activation_min, p->activation_max, op, error);
}

ap_status ap_mul_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    const ap_mul_params *p = params;
    ap_status st = mul16_check(p, "mul_s16", error_out);
    return st != AP_OK ? st : ew16_variant(p->input1_shape, p->input2_shape, p->output_shape, isa, variants_out,
                                           capacity, count_out, "mul_s16", error_out);
}

ap_status ap_mul_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    const ap_status st = ew16_begin(call, mul16_check, isa, "mul_s16", error_out);
    if (st != AP_OK) {
        return st;
    }
    const ap_mul_params *p = call->params;
    const int16_t *a = call->inputs[0], *b = call->inputs[1];
    int16_t *out = call->output;
    AP_BCAST4_FOR_EACH(p->output_shape, p->input1_shape, p->input2_shape, ia, ib, at, {
        /* |x1 * x2| <= 2^30: the int32 product TFLite forms */
        const int32_t prod = (int32_t)a[ia] * (int32_t)b[ib];
        const int32_t raw = ap_fp_multiply_by_quantized_multiplier(prod, p->output_multiplier, p->output_shift);
        out[at] = (int16_t)ap_ops_clamp(raw, p->activation_min, p->activation_max);
    });
    return AP_OK;
}

/* ---- MAXIMUM and MINIMUM (ap_minmax_params): the stored int16 values compared ---- */

static ap_status minmax16_check(const void *params, const char *op, ap_error *error)
{
    const ap_minmax_params *p = params;
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    return ew16_check_shapes(p->input1_shape, p->input2_shape, p->output_shape, op, error);
}

static ap_status minmax16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                   uint32_t *count_out, const char *op, ap_error *error_out)
{
    const ap_minmax_params *p = params;
    ap_status st = minmax16_check(p, op, error_out);
    return st != AP_OK ? st : ew16_variant(p->input1_shape, p->input2_shape, p->output_shape, isa, variants_out,
                                           capacity, count_out, op, error_out);
}

static ap_status minmax16_run(const ap_op_call *call, ap_isa isa, int maximum, ap_error *error_out)
{
    const char *op = maximum ? "maximum_s16" : "minimum_s16";
    const ap_status st = ew16_begin(call, minmax16_check, isa, op, error_out);
    if (st != AP_OK) {
        return st;
    }
    const ap_minmax_params *p = call->params;
    const int16_t *a = call->inputs[0], *b = call->inputs[1];
    int16_t *out = call->output;
    AP_BCAST4_FOR_EACH(p->output_shape, p->input1_shape, p->input2_shape, ia, ib, at, {
        /* both read before out[at] is written: in place over an input is safe */
        const int16_t x = a[ia], y = b[ib];
        out[at] = maximum ? (x > y ? x : y) : (x < y ? x : y);
    });
    return AP_OK;
}

ap_status ap_maximum_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out)
{
    return minmax16_variants(params, isa, variants_out, capacity, count_out, "maximum_s16", error_out);
}

ap_status ap_maximum_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return minmax16_run(call, isa, 1, error_out);
}

ap_status ap_minimum_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out)
{
    return minmax16_variants(params, isa, variants_out, capacity, count_out, "minimum_s16", error_out);
}

ap_status ap_minimum_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return minmax16_run(call, isa, 0, error_out);
}

/* ---- SQUARED_DIFFERENCE (ap_squared_difference_params), TensorFlow Lite Micro's int16 path ---- */

static ap_status sqdiff16_check(const void *params, const char *op, ap_error *error)
{
    const ap_squared_difference_params *p = params;
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    ap_status st = ew16_check_shapes_offsets(p->input1_shape, p->input2_shape, p->output_shape, p->input1_offset,
                                             p->input2_offset, p->output_offset, op, error);
    if (st != AP_OK) {
        return st;
    }
    /* the inputs' multipliers below one (TFLite's SmallerThanOneExp) keep each scaled input below
       2^15 and the square below 2^31; the output's may shift left (its product wraps as TFLite's) */
    if (p->input1_multiplier < 0 || p->input2_multiplier < 0 || p->output_multiplier < 0 ||
        p->input1_shift < -31 || p->input1_shift > 0 || p->input2_shift < -31 || p->input2_shift > 0 ||
        p->output_shift < -31 || p->output_shift > 30) {
        return AP_OPS_INVALID(error, "%s: multipliers must be >= 0, the inputs' shifts in [-31, 0] and the "
                              "output's in [-31, 30]", op);
    }
    return AP_OK;
}

ap_status ap_squared_difference_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                             uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    const ap_squared_difference_params *p = params;
    ap_status st = sqdiff16_check(p, "squared_difference_s16", error_out);
    return st != AP_OK ? st : ew16_variant(p->input1_shape, p->input2_shape, p->output_shape, isa, variants_out,
                                           capacity, count_out, "squared_difference_s16", error_out);
}

ap_status ap_squared_difference_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    const char *op = "squared_difference_s16";
    const ap_status st = ew16_begin(call, sqdiff16_check, isa, op, error_out);
    if (st != AP_OK) {
        return st;
    }
    const ap_squared_difference_params *p = call->params;
    const int16_t *a = call->inputs[0], *b = call->inputs[1];
    int16_t *out = call->output;
    AP_BCAST4_FOR_EACH(p->output_shape, p->input1_shape, p->input2_shape, ia, ib, at, {
        /* left shift 0: the int16 values rescaled as they are */
        const int32_t x = ap_fp_multiply_by_quantized_multiplier(a[ia], p->input1_multiplier, p->input1_shift);
        const int32_t y = ap_fp_multiply_by_quantized_multiplier(b[ib], p->input2_multiplier, p->input2_shift);
        const int32_t d = x - y;
        const int32_t square = (int32_t)((uint32_t)d * (uint32_t)d);
        const int32_t raw = ap_fp_multiply_by_quantized_multiplier(square, p->output_multiplier, p->output_shift);
        out[at] = (int16_t)ap_ops_clamp(raw, -32768, 32767);
    });
    return AP_OK;
}
