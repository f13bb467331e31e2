/* int8 HARD_SWISH (arenaplan/ops.h): TFLite's reference_ops::HardSwish, in int16 fixed point. */
#include "arenaplan/ops.h"

#include "ops_s8_common.h"
#include "unary_s8_common.h"

#define HARD_SWISH_OP "hard_swish"

static ap_status hard_swish_check(const ap_hard_swish_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, HARD_SWISH_OP ": params must not be NULL");
    }
    if (!ap_ops_int8_range(p->input_zero_point) || !ap_ops_int8_range(p->output_zero_point)) {
        return AP_OPS_INVALID(error, HARD_SWISH_OP ": zero points %d and %d must lie in [-128, 127]",
                              (int)p->input_zero_point, (int)p->output_zero_point);
    }
    if (p->output_multiplier < 0 || p->output_multiplier > INT16_MAX || p->output_shift < -31 ||
        p->output_shift > 0) {
        return AP_OPS_INVALID(error, HARD_SWISH_OP ": output_multiplier %d must lie in [0, 32767] and output_shift "
                              "%d in [-31, 0]", (int)p->output_multiplier, (int)p->output_shift);
    }
    if (p->reluish_multiplier < 0 || p->reluish_multiplier > INT16_MAX || p->reluish_shift < -31 ||
        p->reluish_shift > 30) {
        return AP_OPS_INVALID(error, HARD_SWISH_OP ": reluish_multiplier %d must lie in [0, 32767] and "
                              "reluish_shift %d in [-31, 30]", (int)p->reluish_multiplier, (int)p->reluish_shift);
    }
    return AP_OK;
}

/* gemmlowp's int16 SaturatingRoundingDoublingHighMul: (a * b + nudge) / 2^15, truncated. */
static int32_t hs_rounding_doubling_high_mul16(int32_t a, int32_t b)
{
    if (a == INT16_MIN && b == INT16_MIN) {
        return INT16_MAX;
    }
    const int32_t ab = a * b;
    return (ab + (ab >= 0 ? (1 << 14) : 1 - (1 << 14))) / (1 << 15);
}

/* TFLite's SaturatingDoublingHighMul: the same rounded toward zero. */
static int32_t hs_doubling_high_mul16(int32_t a, int32_t b)
{
    if (a == INT16_MIN && b == INT16_MIN) {
        return INT16_MAX;
    }
    return (a * b) / (1 << 15);
}

/* TFLite's SaturatingLeftShift of an int16 value by [0, 30]. */
static int32_t hs_saturating_left_shift16(int32_t x, int32_t amount)
{
    const int64_t v = (int64_t)x * ((int64_t)1 << amount);
    return v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : (int32_t)v;
}

/* gemmlowp's RoundingDivideByPOT of an int16 value by [0, 31]: its mask 2^e - 1 is held in
   int16, so from e = 16 on it is all ones (and the result 1 for x >= 0, -1 below). */
static int32_t hs_rounding_divide_by_pot16(int32_t x, int32_t e)
{
    const int32_t mask = e >= 16 ? -1 : (1 << e) - 1;
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    /* arithmetic shift of a negative value, as every compiler this builds with does it */
    return (x >> (e >= 15 ? 15 : e)) + (remainder > threshold ? 1 : 0);
}

static int8_t hard_swish_one(const void *params, int32_t x)
{
    const ap_hard_swish_params *p = params;
    const int32_t hires = (x - p->input_zero_point) * (1 << 7);   /* |.| <= 255 * 128: int16 */
    const int32_t preshift_output = hs_rounding_doubling_high_mul16(hires, p->output_multiplier);
    int32_t reluish = hires;
    if (p->reluish_shift > 0) {
        reluish = hs_saturating_left_shift16(reluish, p->reluish_shift - 1);
    }
    reluish = hs_rounding_doubling_high_mul16(reluish, p->reluish_multiplier);
    if (p->reluish_shift > 0) {
        reluish = hs_saturating_left_shift16(reluish, 1);
    }
    if (p->reluish_shift < 0) {
        reluish = hs_rounding_divide_by_pot16(reluish, -p->reluish_shift);
    }
    reluish = (reluish + (1 << 15)) >> 1;    /* [-1, 1] to [0, 1] in Q0.15 */
    const int32_t preshift = hs_doubling_high_mul16(reluish, preshift_output);
    /* |preshift| < 32640 and the zero point keeps it an int16, as TFLite holds it */
    const int32_t y = hs_rounding_divide_by_pot16(preshift, -p->output_shift) + p->output_zero_point;
    return (int8_t)ap_ops_clamp(y, -128, 127);
}

ap_status ap_hard_swish_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                    uint32_t *count_out, ap_error *error_out)
{
    const ap_hard_swish_params *p = params;
    ap_status st = hard_swish_check(p, error_out);
    return st != AP_OK ? st : ap_unary_s8_variants(p->count, NULL, isa, variants_out, capacity, count_out,
                                                   HARD_SWISH_OP, error_out);
}

ap_status ap_hard_swish_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, HARD_SWISH_OP ": call must not be NULL");
    }
    const ap_hard_swish_params *p = call->params;
    ap_status st = hard_swish_check(p, error_out);
    return st != AP_OK ? st : ap_unary_s8_run(call, isa, p->count, hard_swish_one, NULL, HARD_SWISH_OP, error_out);
}
