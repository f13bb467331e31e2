/* int8 DIV (arenaplan/ops.h): TFLite's reference DivElementwise / BroadcastDivSlow, the divisor's
   reciprocal in gemmlowp fixed point, with 4-D broadcasting. */
#include "arenaplan/ops.h"

#include "fixedpoint.h"
#include "fixedpoint_exp.h"
#include "broadcast4.h"
#include "ops_s8_common.h"

#define DIV_OP "DIV int8"

static ap_status div_check(const ap_div_s8_params *p, size_t *count, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, DIV_OP ": params must not be NULL");
    }
    ap_status st = ap_bcast4_check(p->input1_shape, p->input2_shape, p->output_shape, DIV_OP, error);
    if (st != AP_OK) {
        return st;
    }
    if (!ap_ops_product(p->output_shape, 4, count)) {
        return AP_OPS_OVERFLOW(error, DIV_OP ": the output's size overflows");
    }
    if (!ap_ops_int8_range(p->input1_zero_point) || !ap_ops_int8_range(p->input2_zero_point) ||
        !ap_ops_int8_range(p->output_zero_point)) {
        return AP_OPS_INVALID(error, DIV_OP ": zero points %d, %d and %d must lie in [-128, 127]",
                              (int)p->input1_zero_point, (int)p->input2_zero_point, (int)p->output_zero_point);
    }
    /* QuantizeMultiplier gives [2^30, 2^31); a shift above 23 could make the final shift negative
       (the numerator's headroom is at least 23 leading sign bits). */
    if (p->output_multiplier < (1 << 30) || p->output_shift < -31 || p->output_shift > 23) {
        return AP_OPS_INVALID(error, DIV_OP ": output multiplier %d must lie in [2^30, 2^31) and shift %d in "
                              "[-31, 23]", (int)p->output_multiplier, (int)p->output_shift);
    }
    if (!ap_ops_int8_range(p->activation_min) || !ap_ops_int8_range(p->activation_max) ||
        p->activation_min > p->activation_max) {
        return AP_OPS_INVALID(error, DIV_OP ": activation range [%d, %d] is not within [-128, 127] with min <= max",
                              (int)p->activation_min, (int)p->activation_max);
    }
    return AP_OK;
}

ap_status ap_div_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out)
{
    const ap_div_s8_params *p = params;
    size_t n = 0;
    ap_status st = div_check(p, &n, error_out);
    if (st != AP_OK) {
        return st;
    }
    return ap_bcast4_direct_variant(p->input1_shape, p->input2_shape, p->output_shape, (uint64_t)n, isa, variants_out,
                                    capacity, count_out, DIV_OP, error_out);
}

/* gemmlowp's CountLeadingSignBits of an int32 (31 for 0). */
static int leading_sign_bits(int32_t x)
{
    return ap_fpx_count_leading_zeros(x >= 0 ? (uint32_t)x : ~(uint32_t)x) - 1;
}

/* gemmlowp's RoundingDivideByPOT(x, e) as TFLite's x86 builds compute it for every e in [0, 70]:
   mask = (1ll << e) - 1 in 64 bits (the count taken mod 64) truncated to int32, remainder x & mask,
   threshold (mask >> 1) + (x < 0), and x >> e in 32 bits (the count taken mod 32). Up to 31 that is
   the rounding division; beyond, where C++ leaves the shifts undefined and the exact quotient is 0,
   it is what LiteRT and TensorFlow Lite Micro give on the host (a numerator at its zero point
   divides to output_zero_point + 1 there), so the kernel matches them bit for bit on every ISA. */
static int32_t rounding_divide_by_pot_x86(int32_t x, int32_t e)
{
    const int32_t mask = (int32_t)(uint32_t)(((uint64_t)1 << (e & 63)) - 1u);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> (e & 31)) + (remainder > threshold ? 1 : 0);
}

/* One quotient (b != 0 after its offset). a and b lie in [-255, 255]. */
static int8_t div_one(const ap_div_s8_params *p, int32_t in1, int32_t in2)
{
    int32_t a = in1 - p->input1_zero_point, b = in2 - p->input2_zero_point;
    if (b < 0) {   /* the reciprocal's multiplier must be positive */
        a = -a;
        b = -b;
    }
    int recip_shift = 0;
    const int32_t inv = ap_fpx_get_reciprocal(b, 31, &recip_shift);
    const int headroom = leading_sign_bits(a);
    /* a * 2^headroom fits int32 by the headroom's definition */
    const int32_t q = ap_fp_saturating_rounding_doubling_high_mul((int32_t)((uint32_t)a << headroom), inv);
    const int32_t h = ap_fp_saturating_rounding_doubling_high_mul(q, p->output_multiplier);
    /* headroom >= 23 and recip_shift >= 0, so with output_shift <= 23 the exponent is >= 0 */
    const int32_t scaled = rounding_divide_by_pot_x86(h, headroom + recip_shift - p->output_shift);
    return (int8_t)ap_ops_clamp(p->output_zero_point + scaled, p->activation_min, p->activation_max);
}

ap_status ap_div_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL || call->params == NULL) {
        return AP_OPS_INVALID(error_out, DIV_OP ": the call and its params must not be NULL");
    }
    const ap_div_s8_params *p = call->params;
    size_t n = 0;
    ap_status st = div_check(p, &n, error_out);
    st = st != AP_OK ? st : ap_bcast4_check_call(call, isa, DIV_OP, error_out);
    if (st != AP_OK) {
        return st;
    }
    const int8_t *a = call->inputs[0], *b = call->inputs[1];
    int8_t *y = call->output;
    size_t n2 = 0;
    ap_ops_product(p->input2_shape, 4, &n2);
    /* LiteRT's CheckNonZero: every divisor element against its zero point, before any output */
    for (size_t i = 0; i < n2; ++i) {
        if (b[i] == p->input2_zero_point) {
            return AP_OPS_INVALID(error_out, "div: division by zero (element %lu of the divisor equals its zero "
                                  "point %d)", (unsigned long)i, (int)p->input2_zero_point);
        }
    }
    AP_BCAST4_FOR_EACH(p->output_shape, p->input1_shape, p->input2_shape, ia, ib, at, {
        y[at] = div_one(p, a[ia], b[ib]);
    });
    return AP_OK;
}
