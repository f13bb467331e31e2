/*
 * Internal helpers of the float32 kernels (AP_TYPES_F32, arenaplan/ops.h): the activation
 * clamp as TFLite's ActivationFunctionWithMinMax, the checks every entry point makes, and the
 * prepared blob of the weighted ops, the pools' window and check. Not a public header; all is
 * static inline but ap_f32_pool_check (float32_ops.c, one copy for the three pools).
 *
 * Include it first in a float32 kernel file: it turns floating-point contraction off for the
 * rest of the file. TFLite's reference kernels round every product and every sum (LiteRT's
 * builds do not fuse them), and a fused multiply-add (x86 FMA, the Cortex-M4's VFMA) rounds
 * once: GCC fuses a * b + c by default in its GNU modes (-std=gnu99; -std=c99 does not), which
 * would change the last bits. tests/test_float32.py compiles these files in both modes for
 * x86-64 with FMA and for the Cortex-M4 and looks for fused instructions.
 */
#ifndef ARENAPLAN_FLOAT32_COMMON_H
#define ARENAPLAN_FLOAT32_COMMON_H

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <float.h>
#include <stdint.h>
#include <string.h>

#include "arenaplan/ops.h"

#include "ops_s8_common.h"

/* TFLite's ActivationFunctionWithMinMax: std::min(std::max(x, lo), hi), with std::max(a, b) =
   a < b ? b : a and std::min(a, b) = b < a ? b : a (a NaN x passes through). */
static inline float ap_f32_act(float x, float lo, float hi)
{
    const float m = x < lo ? lo : x;
    return hi < m ? hi : m;
}

/* An activation range: finite, lo <= hi. */
static inline ap_status ap_f32_check_range(float lo, float hi, const char *op, ap_error *error)
{
    if (!(lo >= -FLT_MAX && hi <= FLT_MAX && lo <= hi)) {
        return AP_OPS_INVALID(error, "%s: activation range [%g, %g] must be finite with min <= max", op,
                              (double)lo, (double)hi);
    }
    return AP_OK;
}

/* What every float32 run() checks first: the call, its params, a variant of `isa` with kind 0
   ("direct"), `inputs` non-NULL input pointers and the output. */
static inline ap_status ap_f32_check_call(const ap_op_call *call, ap_isa isa, uint32_t inputs, const char *op,
                                          ap_error *error)
{
    if (call == NULL || call->params == NULL) {
        return AP_OPS_INVALID(error, "%s: the call and its params must not be NULL", op);
    }
    ap_status st = ap_ops_check_variant_ptr(call->variant, op, error);
    if (st != AP_OK) {
        return st;
    }
    if (call->variant->isa != (int32_t)isa) {
        return AP_OPS_INVALID(error, "%s: variant '%s' is a %s variant; asked to run it as %s", op,
                              call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (call->variant->kind != 0) {
        return AP_OPS_INVALID(error, "%s: variant kind %d does not apply (\"direct\" is 0)", op,
                              (int)call->variant->kind);
    }
    if (call->input_count != inputs || call->inputs == NULL || call->output == NULL) {
        return AP_OPS_INVALID(error, "%s: %u input(s) and the output must be given", op, (unsigned)inputs);
    }
    for (uint32_t i = 0; i < inputs; ++i) {
        if (call->inputs[i] == NULL) {
            return AP_OPS_INVALID(error, "%s: input %u is NULL", op, (unsigned)i);
        }
    }
    return AP_OK;
}

/* The one variant of a float32 row: "direct", no scratch, `macs` operations. */
static inline ap_status ap_f32_direct(uint64_t macs, int32_t in_place, ap_isa isa, ap_variant *variants_out,
                                      uint32_t capacity, uint32_t *count_out, const char *op, ap_error *error)
{
    ap_variant found[1];
    ap_ops_variant_set(&found[0], 0, 0, "direct", 0, NULL, NULL, macs, in_place);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, op, error);
}

/* The rows of a row-wise op (SOFTMAX float32, LOG_SOFTMAX, L2_NORMALIZATION): outer_size and
   depth >= 1, and their product, *count, addressable in float32 elements. */
static inline ap_status ap_f32_check_rows(int32_t outer_size, int32_t depth, size_t *count, const char *op,
                                          ap_error *error)
{
    if (outer_size < 1 || depth < 1) {
        return AP_OPS_INVALID(error, "%s: outer_size %d and depth %d must be >= 1", op, (int)outer_size, (int)depth);
    }
    const int32_t dims[2] = {outer_size, depth};
    if (!ap_ops_product(dims, 2, count) || *count > SIZE_MAX / sizeof(float)) {
        return AP_OPS_OVERFLOW(error, "%s: the tensor's size overflows", op);
    }
    return AP_OK;
}

/* The window of a float32 pool's output position `o` along one axis, clipped to the input
   [0, in): [start, end) filter offsets, as TFLite clamps them. */
static inline void ap_f32_pool_window(int64_t o, int32_t stride, int32_t pad, int32_t filter, int32_t in,
                                      int64_t *start, int64_t *end)
{
    const int64_t origin = o * stride - pad;
    *start = origin < 0 ? -origin : 0;
    *end = (int64_t)in - origin < filter ? (int64_t)in - origin : filter;
}

/* The params of a float32 pool (AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D; in float32_ops.c):
   sizes and strides >= 1, pads >= 0, the tensors' sizes within size_t, a tap in every window
   (TFLite's average pool fails on an empty one, its L2 pool divides 0 by 0), the activation
   range. AP_OK, AP_ERR_INVALID_ARGUMENT or AP_ERR_OVERFLOW naming op. */
ap_status ap_f32_pool_check(const ap_pool2d_f32_params *p, const char *op, ap_error *error);

/* The prepared blob of a weighted float32 op: a 16-byte header (magic, the ISA it was made for,
   the element counts), then `filter_count` weights and `bias_count` biases as float32. */
enum { AP_F32_BLOB_HEADER = 16, AP_F32_BLOB_MAGIC = 0x32334650 /* "PF32" */ };

typedef struct ap_f32_blob_header {
    uint32_t magic;
    int32_t isa;
    uint32_t filter_count, bias_count;
} ap_f32_blob_header;

/* Bytes of a blob of `filter_count` + `bias_count` floats (0 on overflow, with the status). */
static inline ap_status ap_f32_blob_bytes(size_t filter_count, size_t bias_count, size_t *bytes_out,
                                          const char *op, ap_error *error)
{
    size_t n = 0, bytes = 0;
    if (!ap_ops_add(filter_count, bias_count, &n) || n > UINT32_MAX || !ap_ops_mul(n, sizeof(float), &bytes) ||
        !ap_ops_add(bytes, AP_F32_BLOB_HEADER, &bytes)) {
        return AP_OPS_OVERFLOW(error, "%s: the prepared constants' size overflows", op);
    }
    *bytes_out = bytes;
    return AP_OK;
}

/* Fill a blob: the header, the filter, the biases (zeros where bias is NULL: TFLite adds 0.0f). */
static inline ap_status ap_f32_blob_fill(const float *filter, size_t filter_count, const float *bias,
                                         size_t bias_count, ap_isa isa, void *out, size_t out_bytes,
                                         const char *op, ap_error *error)
{
    size_t need = 0;
    ap_status st = ap_f32_blob_bytes(filter_count, bias_count, &need, op, error);
    if (st != AP_OK) {
        return st;
    }
    if (filter == NULL || out == NULL) {
        return AP_OPS_INVALID(error, "%s: the filter and the blob must not be NULL", op);
    }
    if (out_bytes < need) {
        return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, need, out_bytes,
                           "%s: the prepared blob needs %llu bytes, got %llu", op, (unsigned long long)need,
                           (unsigned long long)out_bytes);
    }
    ap_f32_blob_header h = {AP_F32_BLOB_MAGIC, (int32_t)isa, (uint32_t)filter_count, (uint32_t)bias_count};
    unsigned char *b = out;
    memcpy(b, &h, sizeof(h));
    memcpy(b + AP_F32_BLOB_HEADER, filter, filter_count * sizeof(float));
    if (bias != NULL) {
        memcpy(b + AP_F32_BLOB_HEADER + filter_count * sizeof(float), bias, bias_count * sizeof(float));
    } else {
        const float zero = 0.0f;
        for (size_t i = 0; i < bias_count; ++i) {
            memcpy(b + AP_F32_BLOB_HEADER + (filter_count + i) * sizeof(float), &zero, sizeof(zero));
        }
    }
    return AP_OK;
}

/* The filter and biases of a blob made by ap_f32_blob_fill for these counts, else the status. */
static inline ap_status ap_f32_blob_read(const void *blob, size_t filter_count, size_t bias_count,
                                         const float **filter_out, const float **bias_out, const char *op,
                                         ap_error *error)
{
    if (blob == NULL) {
        return AP_OPS_INVALID(error, "%s: the prepared blob must not be NULL", op);
    }
    ap_f32_blob_header h;
    memcpy(&h, blob, sizeof(h));
    if (h.magic != AP_F32_BLOB_MAGIC || h.filter_count != filter_count || h.bias_count != bias_count) {
        return AP_OPS_INVALID(error, "%s: the prepared blob was not made for these params (%u weights and "
                              "%u biases; the params give %llu and %llu)", op, (unsigned)h.filter_count,
                              (unsigned)h.bias_count, (unsigned long long)filter_count,
                              (unsigned long long)bias_count);
    }
    /* the blob is 4-aligned (the planner's and the export's constants are) */
    *filter_out = (const float *)(const void *)((const unsigned char *)blob + AP_F32_BLOB_HEADER);
    *bias_out = *filter_out + filter_count;
    return AP_OK;
}

#endif
