/* Quantisation helpers: TFLite QuantizeMultiplier and MultiplyByQuantizedMultiplier. */
#include "arenaplan/quant.h"

#include <math.h>

#include "fixedpoint.h"

ap_status ap_quantize_multiplier(double real_multiplier, int32_t *multiplier_out, int32_t *shift_out)
{
    if (multiplier_out == NULL || shift_out == NULL || !(real_multiplier >= 0.0) ||
        !isfinite(real_multiplier)) {
        return AP_ERR_INVALID_ARGUMENT;
    }
    if (real_multiplier == 0.0) {
        *multiplier_out = 0;
        *shift_out = 0;
        return AP_OK;
    }
    int shift = 0;
    double q = frexp(real_multiplier, &shift);
    int64_t q_fixed = (int64_t)round(q * (double)((int64_t)1 << 31));
    if (q_fixed == ((int64_t)1 << 31)) {
        q_fixed /= 2;
        ++shift;
    }
    if (shift < -31) {
        shift = 0;
        q_fixed = 0;
    }
    if (shift > 30) {
        /* TFLite would accept it but every consumer left-shifts int32 by it. */
        return AP_ERR_INVALID_ARGUMENT;
    }
    *multiplier_out = (int32_t)q_fixed;
    *shift_out = (int32_t)shift;
    return AP_OK;
}

int32_t ap_multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int32_t shift)
{
    return ap_fp_multiply_by_quantized_multiplier(x, multiplier, shift);
}
