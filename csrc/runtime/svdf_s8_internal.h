/*
 * Internal to the SVDF int8 kernel: the two dot-product loops that a SIMD level implements,
 * on blocks of up to AP_SVDF_CHUNK filters (one AVX2 register of int32 sums). Not a public
 * header. Every sum wraps mod 2^32, as TFLite's int32 sums would (their overflow is undefined).
 */
#ifndef ARENAPLAN_SVDF_S8_INTERNAL_H
#define ARENAPLAN_SVDF_S8_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Filters handled by one call of the loops below. */
#define AP_SVDF_CHUNK 8

/* acc[j] = (first ? 0 : acc[j]) + sum_{c < block} weights[j * stride + c] * xz[c] for j < count
   (1..AP_SVDF_CHUNK). xz holds input - input_zero_point, in [-255, 255]. Reads exactly `block`
   bytes of each row. */
void ap_svdf_feature_avx2(const int8_t *weights, size_t stride, const int16_t *xz, int32_t block,
                          int32_t count, int32_t first, uint32_t *acc);

/* out[j] = sum_{m < memory} weights_time[j * memory + m] * state[j * memory + m] for
   j < count (1..AP_SVDF_CHUNK): the rows of consecutive filters, contiguous in both arrays. */
void ap_svdf_time_avx2(const int16_t *weights_time, const int16_t *state, int32_t memory, int32_t count,
                       int32_t *out);

/* out[j] = clamp(MultiplyByQuantizedMultiplier(acc[j], multiplier, shift) + offset, lo, hi) for
   j < count (1..AP_SVDF_CHUNK); multiplier >= 0, shift in [-31, 31]; the + offset wraps. */
void ap_svdf_requant_avx2(const int32_t *acc, int32_t count, int32_t multiplier, int32_t shift, int32_t offset,
                          int32_t lo, int32_t hi, int32_t *out);

#endif
