/*
 * Internal helpers of the 16x8 kernels (AP_TYPES_S16X8: int16 activations with zero point 0,
 * int8 weights): TFLite's int64 MultiplyByQuantizedMultiplier, the requantisation and
 * geometry checks the weighted ops share, and their prepared blob (a header, the biases as
 * int64, the filter as given). Not a public header; everything is static inline.
 */
#ifndef ARENAPLAN_OPS_S16_COMMON_H
#define ARENAPLAN_OPS_S16_COMMON_H

#include <stdint.h>
#include <string.h>

#include "arenaplan/ops.h"

#include "fixedpoint.h"
#include "ops_s8_common.h"

/* TFLite's int16 LOGISTIC and TANH of one value (logistic_s16.c), params checked by the caller:
   input_multiplier in [1, 65535] (at most 32767 where input_left_shift > 0), shift in [0, 31]. */
int16_t ap_logistic16_value(int32_t x, const ap_logistic_s16_params *p);
int16_t ap_tanh16_value(int32_t x, const ap_logistic_s16_params *p);

/* The largest |x| TFLite's int64 multiply takes (its DCHECK: -2^47 <= x < 2^47). */
#define AP_S16_ACC_LIMIT ((int64_t)1 << 47)
/* Most filter taps one output sums: |sum| <= taps * 128 * 32768 stays below 2^46. */
#define AP_S16_MAX_TAPS ((size_t)1 << 24)

/* Are a * b * c taps (each factor >= 1) at most AP_S16_MAX_TAPS? Counted in 64 bits, so that no
   product wraps (a size_t product of three int32 does, even on a 64-bit host, and would pass
   the bound with a count of 0): a * b < 2^62, and once it is at most 2^24, a * b * c < 2^55. */
static inline int ap_s16_taps_within(int32_t a, int32_t b, int32_t c)
{
    const uint64_t ab = (uint64_t)a * (uint64_t)b;
    return ab <= AP_S16_MAX_TAPS && ab * (uint64_t)c <= AP_S16_MAX_TAPS;
}

enum { AP_S16_BLOB_HEADER = 16, AP_S16_BLOB_MAGIC = 0x36314150 /* "PA16" */ };

/* The int32 of v's low 32 bits (two's complement), without implementation-defined casts. */
static inline int32_t ap_s16_wrap32(int64_t v)
{
    const uint32_t u = (uint32_t)((uint64_t)v & 0xFFFFFFFFu);
    return u <= (uint32_t)INT32_MAX ? (int32_t)u : (int32_t)(u - 2147483648u) - INT32_MAX - 1;
}

/* TFLite's MultiplyByQuantizedMultiplier(int64_t x, ...): the multiplier rounded to 16 bits,
   one rounding right shift by 15 - shift (shift in [-31, 7]). x is saturated to TFLite's
   range first (beyond it TFLite's result is undefined), and the result wraps to int32 as
   TFLite's static_cast does. */
static inline int32_t ap_s16_multiply_by_quantized_multiplier64(int64_t x, int32_t multiplier, int32_t shift)
{
    if (x >= AP_S16_ACC_LIMIT) {
        x = AP_S16_ACC_LIMIT - 1;
    } else if (x < -AP_S16_ACC_LIMIT) {
        x = -AP_S16_ACC_LIMIT;
    }
    const int64_t reduced = multiplier < 0x7FFF0000 ? (((int64_t)multiplier + (1 << 15)) >> 16) : 0x7FFF;
    const int32_t total_shift = 15 - shift;
    const int64_t round = (int64_t)1 << (total_shift - 1);
    /* |x * reduced| < 2^62: no overflow. Arithmetic shift of a negative value, as TFLite. */
    return ap_s16_wrap32((x * reduced + round) >> total_shift);
}

/* The accumulator of one output requantised to int16 by accumulator_bits' rule. */
static inline int16_t ap_s16_requant(int64_t acc, int32_t bits, int32_t multiplier, int32_t shift, int32_t lo,
                                     int32_t hi)
{
    const int32_t v = bits == 64 ? ap_s16_multiply_by_quantized_multiplier64(acc, multiplier, shift)
                                 : ap_fp_multiply_by_quantized_multiplier(ap_s16_wrap32(acc), multiplier, shift);
    return (int16_t)ap_ops_clamp(v, lo, hi);
}

static inline int ap_s16_range(int32_t v)
{
    return v >= -32768 && v <= 32767;
}

/* A 16x8 weighted op's requantisation: the arrays, output offset 0, an int16 clamp, shifts
   within the accumulator's multiply. */
static inline ap_status ap_s16_check_requant(const ap_requant *rq, int32_t channels, int32_t bits, const char *op,
                                             ap_error *error)
{
    if (bits != 64 && bits != 32) {
        return AP_OPS_INVALID(error, "%s: accumulator_bits %d must be 64 (an int64 bias) or 32 (int32)", op,
                              (int)bits);
    }
    if (rq->multiplier == NULL || rq->shift == NULL) {
        return AP_OPS_INVALID(error, "%s: requant.multiplier and requant.shift must not be NULL", op);
    }
    if (rq->per_channel != 0 && rq->per_channel != 1) {
        return AP_OPS_INVALID(error, "%s: requant.per_channel must be 0 or 1 (got %d)", op, (int)rq->per_channel);
    }
    if (rq->output_offset != 0) {
        return AP_OPS_INVALID(error, "%s: requant.output_offset %d must be 0 (an int16 zero point is 0)", op,
                              (int)rq->output_offset);
    }
    if (!ap_s16_range(rq->activation_min) || !ap_s16_range(rq->activation_max) ||
        rq->activation_min > rq->activation_max) {
        return AP_OPS_INVALID(error, "%s: activation range [%d, %d] is not within [-32768, 32767] with min <= max",
                              op, (int)rq->activation_min, (int)rq->activation_max);
    }
    const int32_t max_shift = bits == 64 ? 7 : 30;
    const int32_t n = rq->per_channel ? channels : 1;
    for (int32_t i = 0; i < n; ++i) {
        if (rq->multiplier[i] < 0 || rq->shift[i] < -31 || rq->shift[i] > max_shift) {
            return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, i, 0, 0,
                               "%s: requant.multiplier[%d] = %d must be >= 0 and requant.shift[%d] = %d within "
                               "[-31, %d] (%d-bit accumulators)", op, (int)i, (int)rq->multiplier[i], (int)i,
                               (int)rq->shift[i], (int)max_shift, (int)bits);
        }
    }
    return AP_OK;
}

/* The window geometry of a 16x8 conv: positive sizes, strides and dilations, pads below the
   dilated filter, and every output window starting inside the padded input. The kernels
   bounds-check every read, so this is about meaning, not memory. */
static inline ap_status ap_s16_check_window(const int32_t *g, const char *op, ap_error *error)
{
    /* g: batches, input_h, input_w, input_c, output_h, output_w, output_c, filter_h, filter_w,
       stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w */
    for (int i = 0; i < 13; ++i) {
        if (g[i] < 1) {
            return AP_OPS_INVALID(error, "%s: every size, stride and dilation must be >= 1 (field %d is %d)", op, i,
                                  (int)g[i]);
        }
    }
    for (int axis = 0; axis < 2; ++axis) {
        const int64_t in = g[1 + axis], out = g[4 + axis], k = g[7 + axis], s = g[9 + axis], d = g[11 + axis];
        const int64_t pad = g[13 + axis];
        const ap_ops_window_axis a = ap_ops_window_axis_of(in, out, k, s, d, pad);
        /* the last window starts at in + far - span: inside the input, and reaching it */
        if (!ap_ops_window_axis_overlaps(a, pad) || in + a.far <= 0) {
            return AP_OPS_INVALID(error, "%s: output %s %lld does not follow from input %lld, filter %lld, stride "
                                  "%lld, dilation %lld and padding %lld", op, axis ? "width" : "height",
                                  (long long)out, (long long)in, (long long)k, (long long)s, (long long)d,
                                  (long long)pad);
        }
    }
    size_t n = 0;
    const int32_t in_dims[4] = {g[0], g[1], g[2], g[3]}, out_dims[4] = {g[0], g[4], g[5], g[6]};
    if (!ap_ops_product(in_dims, 4, &n) || !ap_ops_product(out_dims, 4, &n) || n > SIZE_MAX / 2) {
        return AP_OPS_OVERFLOW(error, "%s: a tensor's size overflows size_t", op);
    }
    return AP_OK;
}

/* Bytes of a blob of `bias_count` int64 biases and `filter_count` int8 weights. */
static inline ap_status ap_s16_blob_bytes(size_t bias_count, size_t filter_count, size_t *bytes_out, const char *op,
                                          ap_error *error)
{
    size_t b = 0;
    if (bytes_out == NULL) {
        return AP_OPS_INVALID(error, "%s: bytes_out must not be NULL", op);
    }
    if (bias_count > UINT32_MAX || filter_count > UINT32_MAX || !ap_ops_mul(bias_count, 8, &b) ||
        !ap_ops_add(b, AP_S16_BLOB_HEADER, &b) || !ap_ops_add(b, filter_count, &b)) {
        return AP_OPS_OVERFLOW(error, "%s: the prepared constants' size overflows", op);
    }
    *bytes_out = b;
    return AP_OK;
}

/* Write the blob: header, biases (int64, zero where bias is NULL; each checked against the
   accumulator: int32 values where bits is 32, |b| < 2^47 where 64), filter. */
static inline ap_status ap_s16_blob_write(size_t bias_count, size_t filter_count, int32_t bits, ap_isa isa,
                                          const int8_t *filter, const int64_t *bias, void *prepared_out,
                                          size_t prepared_bytes, const char *op, ap_error *error)
{
    size_t need = 0;
    ap_status st = ap_s16_blob_bytes(bias_count, filter_count, &need, op, error);
    if (st != AP_OK) {
        return st;
    }
    if (filter == NULL || prepared_out == NULL) {
        return AP_OPS_INVALID(error, "%s: filter and prepared_out must not be NULL", op);
    }
    if (prepared_bytes < need) {
        return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, need, prepared_bytes,
                           "%s: the prepared blob needs %llu bytes, got %llu", op, (unsigned long long)need,
                           (unsigned long long)prepared_bytes);
    }
    unsigned char *out = prepared_out;
    for (size_t i = 0; bias != NULL && i < bias_count; ++i) {
        const int64_t b = bias[i];
        if (bits == 32 ? (b < INT32_MIN || b > INT32_MAX) : (b <= -AP_S16_ACC_LIMIT || b >= AP_S16_ACC_LIMIT)) {
            return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, (int64_t)i, 0, 0,
                               "%s: bias[%llu] = %lld is outside the %d-bit accumulator's range", op,
                               (unsigned long long)i, (long long)b, (int)bits);
        }
    }
    const uint32_t header[4] = {AP_S16_BLOB_MAGIC, (uint32_t)isa, (uint32_t)bias_count, (uint32_t)filter_count};
    memcpy(out, header, sizeof(header));
    if (bias != NULL) {
        memcpy(out + AP_S16_BLOB_HEADER, bias, bias_count * 8);
    } else {
        memset(out + AP_S16_BLOB_HEADER, 0, bias_count * 8);
    }
    memcpy(out + AP_S16_BLOB_HEADER + bias_count * 8, filter, filter_count);
    return AP_OK;
}

/* The blob's biases and filter, after checking its header against the params' counts. */
static inline ap_status ap_s16_blob_read(const void *prepared, size_t bias_count, size_t filter_count,
                                         const unsigned char **bias_out, const int8_t **filter_out, const char *op,
                                         ap_error *error)
{
    if (prepared == NULL) {
        return AP_OPS_INVALID(error, "%s: the prepared constants must not be NULL", op);
    }
    uint32_t header[4];
    memcpy(header, prepared, sizeof(header));
    if (header[0] != AP_S16_BLOB_MAGIC || header[2] != bias_count || header[3] != filter_count) {
        return AP_OPS_INVALID(error, "%s: the prepared blob was not made for these params", op);
    }
    *bias_out = (const unsigned char *)prepared + AP_S16_BLOB_HEADER;
    *filter_out = (const int8_t *)((const unsigned char *)prepared + AP_S16_BLOB_HEADER + bias_count * 8);
    return AP_OK;
}

/* Bias i of a blob (it may sit at any 4-byte boundary in an exported const array). */
static inline int64_t ap_s16_bias(const unsigned char *bias, size_t i)
{
    int64_t b;
    memcpy(&b, bias + i * 8, sizeof(b));
    return b;
}

/* The checks every 16x8 run() starts with: the call's pointers and the variant's ISA. */
static inline ap_status ap_s16_check_call(const ap_op_call *call, uint32_t inputs, const char *op, ap_error *error)
{
    if (call == NULL || call->params == NULL) {
        return AP_OPS_INVALID(error, "%s: call and its params must not be NULL", op);
    }
    ap_status st = ap_ops_check_variant_ptr(call->variant, op, error);
    if (st != AP_OK) {
        return st;
    }
    if (call->input_count != inputs || call->inputs == NULL || call->output == NULL) {
        return AP_OPS_INVALID(error, "%s: %u input(s) and the output must be given", op, (unsigned)inputs);
    }
    for (uint32_t i = 0; i < inputs; ++i) {
        if (call->inputs[i] == NULL) {
            return AP_OPS_INVALID(error, "%s: input %u must not be NULL", op, (unsigned)i);
        }
    }
    return AP_OK;
}

#endif
