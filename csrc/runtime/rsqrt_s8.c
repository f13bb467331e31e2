/* int8 RSQRT (arenaplan/ops.h): TFLite's RsqrtEvalQuantized, 1/sqrt of the input's offset value by
   GetInvSqrtQuantizedMultiplierExp's Newton-Raphson iteration in gemmlowp fixed point, then two
   requantisations. */
#include "arenaplan/ops.h"

#include "fixedpoint.h"
#include "fixedpoint_exp.h"
#include "ops_s8_common.h"
#include "unary_s8_common.h"

#define RSQRT_OP "RSQRT int8"

static ap_status rsqrt_check(const ap_rsqrt_s8_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, RSQRT_OP ": params must not be NULL");
    }
    if (!ap_ops_int8_range(p->input_zero_point) || !ap_ops_int8_range(p->output_zero_point)) {
        return AP_OPS_INVALID(error, RSQRT_OP ": zero points %d and %d must lie in [-128, 127]",
                              (int)p->input_zero_point, (int)p->output_zero_point);
    }
    /* the second requantisation shifts by shift - 20: within [-31, 10] its right shift is at most
       31 and its left shift keeps the first result (at most 2^20) within int32 */
    if (p->multiplier < (1 << 30) || p->shift < -11 || p->shift > 30) {
        return AP_OPS_INVALID(error, RSQRT_OP ": multiplier %d must lie in [2^30, 2^31) and shift %d in [-11, 30]",
                              (int)p->multiplier, (int)p->shift);
    }
    return AP_OK;
}

/* TFLite's GetInvSqrtQuantizedMultiplierExp(input, kReverseShift = -1) for input in [2, 255]:
   1/sqrt(input) as a Q0.31 multiplier and a left shift. The input is brought to [2^27, 2^29) by
   pairs of bits, read as Q3.28 halved, and five Newton-Raphson steps x = 1.5x - (input/2)x^3 run
   from x = 1 in Q3.28 (gemmlowp's products: rounding doubling high multiplies, each product's
   extra integer bits taken off by a saturating left shift). */
static void inv_sqrt(int32_t input, int32_t *multiplier_out, int32_t *shift_out)
{
    int32_t shift = 11;
    const int max_left_shift_bits = ap_fpx_count_leading_zeros((uint32_t)input) - 1;
    const int left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
    shift -= left_shift_bit_pairs;
    input = (int32_t)((uint32_t)input << (2 * left_shift_bit_pairs));
    const int32_t fixed_input = input >> 1;                                    /* Q3.28 */
    const int32_t half_input = ap_fp_rounding_divide_by_pot(fixed_input, 1);
    const int32_t half_three = (1 << 28) + (1 << 27);                          /* 1.5 in Q3.28 */
    int32_t x = 1 << 28;                                                       /* 1.0 in Q3.28 */
    for (int i = 0; i < 5; ++i) {
        const int32_t x2 = ap_fpx_mul(x, x);                                   /* Q6.25 */
        const int32_t x3 = ap_fpx_sat_shl(ap_fpx_mul(x2, x), 6);               /* Q9.22 -> Q3.28 */
        const int32_t d = ap_fpx_sub(ap_fpx_mul(half_three, x), ap_fpx_mul(half_input, x3)); /* Q6.25 */
        x = ap_fpx_sat_shl(d, 3);
    }
    x = ap_fpx_mul(x, 1518500250);                                              /* times sqrt(2) / 2 */
    if (shift < 0) {
        x = (int32_t)((uint32_t)x << -shift);
        shift = 0;
    }
    *multiplier_out = x;
    *shift_out = -shift;
}

static int8_t rsqrt_one(const void *params, int32_t in)
{
    const ap_rsqrt_s8_params *p = params;
    const int32_t v = in - p->input_zero_point;   /* [0, 255]: run() refuses inputs below the zero point */
    if (v <= 0) {
        return 127;   /* TFLite: a value at the zero point is the largest output */
    }
    int32_t m = INT32_MAX, s = 0;   /* v == 1: TFLite's special case, 1.0 */
    if (v > 1) {
        inv_sqrt(v, &m, &s);
    }
    const int32_t data = ap_fp_multiply_by_quantized_multiplier(1, m, s + 20);
    const int32_t out = ap_fp_multiply_by_quantized_multiplier(data, p->multiplier, p->shift - 20);
    return (int8_t)ap_ops_clamp(p->output_zero_point + out, -128, 127);
}

ap_status ap_rsqrt_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out)
{
    const ap_rsqrt_s8_params *p = params;
    ap_status st = rsqrt_check(p, error_out);
    return st != AP_OK ? st : ap_unary_s8_variants(p->count, NULL, isa, variants_out, capacity, count_out,
                                                   RSQRT_OP, error_out);
}

ap_status ap_rsqrt_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, RSQRT_OP ": call must not be NULL");
    }
    const ap_rsqrt_s8_params *p = call->params;
    ap_status st = rsqrt_check(p, error_out);
    if (st != AP_OK) {
        return st;
    }
    /* TFLite fails the op at an input below the zero point; here before any output is written */
    if (call->input_count == 1 && call->inputs != NULL && call->inputs[0] != NULL) {
        const int8_t *x = call->inputs[0];
        for (size_t i = 0; i < p->count; ++i) {
            if (x[i] < p->input_zero_point) {
                return AP_OPS_INVALID(error_out, "rsqrt: input element %lu (%d) is below the input zero point %d; "
                                      "RSQRT is only defined for values >= 0", (unsigned long)i, (int)x[i],
                                      (int)p->input_zero_point);
            }
        }
    }
    return ap_unary_s8_run(call, isa, p->count, rsqrt_one, NULL, RSQRT_OP, error_out);
}
