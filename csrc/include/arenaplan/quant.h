/*
 * Quantisation helpers with TensorFlow Lite's reference semantics.
 */
#ifndef ARENAPLAN_QUANT_H
#define ARENAPLAN_QUANT_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * TFLite QuantizeMultiplier: real = multiplier_out * 2^(shift_out - 31).
 * real_multiplier must be finite and >= 0. Returns AP_OK or AP_ERR_INVALID_ARGUMENT.
 */
ap_status ap_quantize_multiplier(double real_multiplier, int32_t *multiplier_out, int32_t *shift_out);

/** TFLite MultiplyByQuantizedMultiplier (gemmlowp double rounding). */
int32_t ap_multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int32_t shift);

#ifdef __cplusplus
}
#endif
#endif
