/*
 * Internal helpers shared by the non-conv int8 op families (depthwise conv,
 * fully connected, pooling, elementwise, softmax, quantize, shape ops):
 * error records, checked size arithmetic, parameter and scratch checks,
 * variant descriptors. Not a public header; everything is static inline.
 */
#ifndef ARENAPLAN_OPS_S8_COMMON_H
#define ARENAPLAN_OPS_S8_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arenaplan/kernel.h"
#include "arenaplan/status.h"
#include "message.h"

#include "isa.h"

/* AVX2 code is compiled where isa.h says (AP_HAVE_X86_AVX2); a kernel runs it only for a
   variant whose ISA is x86-avx2 (ap_ops_runs_avx2). */
#define AP_OPS_HAVE_AVX2 AP_HAVE_X86_AVX2

/* Fill *error (if any) and return status. */
static inline ap_status ap_ops_fail(ap_error *error, ap_status status, ap_subject subject,
                                    int64_t index, uint64_t needed, uint64_t available,
                                    const char *format, ...)
{
    if (error != NULL) {
        va_list args;
        ap_error_clear(error);
        error->status = status;
        error->subject = subject;
        error->index = index;
        error->needed = needed;
        error->available = available;
        va_start(args, format);
        ap_message_vformat(error->message, sizeof(error->message), format, args);
        va_end(args);
    }
    return status;
}

#define AP_OPS_INVALID(error, ...) \
    ap_ops_fail((error), AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, 0, 0, __VA_ARGS__)
#define AP_OPS_UNSUPPORTED(error, ...) \
    ap_ops_fail((error), AP_ERR_UNSUPPORTED, AP_SUBJECT_OP, -1, 0, 0, __VA_ARGS__)
#define AP_OPS_OVERFLOW(error, ...) \
    ap_ops_fail((error), AP_ERR_OVERFLOW, AP_SUBJECT_ARGUMENT, -1, 0, 0, __VA_ARGS__)

/* Checked size_t arithmetic: return 0 on overflow, 1 on success. */
static inline int ap_ops_mul(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) {
        return 0;
    }
    *out = a * b;
    return 1;
}

static inline int ap_ops_add(size_t a, size_t b, size_t *out)
{
    if (b > SIZE_MAX - a) {
        return 0;
    }
    *out = a + b;
    return 1;
}

/* Product of `count` positive int32 dimensions in size_t; 0 on overflow. */
/* Strides, in elements, of a 4-D tensor of `shape` read in the index space of the output it
   broadcasts into: 0 along a dimension of size 1 (the broadcasting binary ops' walk). */
static inline void ap_ops_broadcast_strides(const int32_t shape[4], size_t strides[4])
{
    size_t step = 1;
    for (int d = 3; d >= 0; --d) {
        strides[d] = shape[d] == 1 ? 0 : step;
        step *= (size_t)shape[d];
    }
}

static inline int ap_ops_product(const int32_t *dims, int count, size_t *out)
{
    size_t total = 1;
    for (int i = 0; i < count; ++i) {
        if (dims[i] < 0 || !ap_ops_mul(total, (size_t)dims[i], &total)) {
            return 0;
        }
    }
    *out = total;
    return 1;
}

static inline size_t ap_ops_align_up(size_t value, size_t alignment)
{
    return (value + alignment - 1) & ~(alignment - 1);
}

/* Wrapping int32 addition (two's complement), without signed-overflow UB. */
static inline int32_t ap_ops_wrap_add(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

static inline int32_t ap_ops_clamp(int32_t v, int32_t lo, int32_t hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/* The int8 zero point of a tensor as TFLite stores an offset (-zp or +zp). */
static inline int ap_ops_int8_range(int32_t v)
{
    return v >= -128 && v <= 127;
}

/* An input offset is -zero_point of an int8 tensor: [-127, 128]. */
static inline int ap_ops_input_offset_ok(int32_t v)
{
    return v >= -127 && v <= 128;
}

/* One axis of a conv or pooling window (int8 and 16x8 ops): the dilated filter's span, the
   padded input length that `out` windows cover, and the padding past the input's far edge
   that they imply given the near padding `pad` (TFLite's output-size relation: out = (pad +
   in + far - span) / stride + 1, the last window starting at (out - 1) * stride - pad =
   in + far - span). In int64, which no int32 operands overflow; each op checks them
   against its own rule. */
typedef struct ap_ops_window_axis {
    int64_t span;   /* (filter - 1) * dilation + 1 */
    int64_t extent; /* (out - 1) * stride + span */
    int64_t far;    /* extent - in - pad */
} ap_ops_window_axis;

static inline ap_ops_window_axis ap_ops_window_axis_of(int64_t in, int64_t out, int64_t filter, int64_t stride,
                                                       int64_t dilation, int64_t pad)
{
    ap_ops_window_axis a;
    a.span = (filter - 1) * dilation + 1;
    a.extent = (out - 1) * stride + a.span;
    a.far = a.extent - in - pad;
    return a;
}

/* Every window of the axis overlaps the input: the first one (pad < span) and the last
   (far < span); windows start in order, so those two bound the rest. */
static inline int ap_ops_window_axis_overlaps(ap_ops_window_axis a, int64_t pad)
{
    return pad >= 0 && pad < a.span && a.far < a.span;
}

/* Check an ap_requant: arrays present, shifts in [-31, max_shift], clamps sane.
   `channels` is the number of output channels (entries when per_channel); `max_shift` is
   the largest left shift the op's requantisation takes (31, or 30 where a kernel shifts
   its accumulator before the multiply). */
static inline ap_status ap_ops_check_requant(const ap_requant *rq, int32_t channels, int32_t max_shift,
                                             const char *op, ap_error *error)
{
    if (rq->multiplier == NULL || rq->shift == NULL) {
        return AP_OPS_INVALID(error, "%s: requant.multiplier and requant.shift must not be NULL", op);
    }
    if (rq->per_channel != 0 && rq->per_channel != 1) {
        return AP_OPS_INVALID(error, "%s: requant.per_channel must be 0 or 1 (got %d)", op,
                              (int)rq->per_channel);
    }
    if (!ap_ops_int8_range(rq->output_offset)) {
        return AP_OPS_INVALID(error, "%s: requant.output_offset %d is outside [-128, 127]", op,
                              (int)rq->output_offset);
    }
    if (!ap_ops_int8_range(rq->activation_min) || !ap_ops_int8_range(rq->activation_max) ||
        rq->activation_min > rq->activation_max) {
        return AP_OPS_INVALID(error, "%s: activation range [%d, %d] is not within [-128, 127] "
                              "with min <= max", op, (int)rq->activation_min, (int)rq->activation_max);
    }
    int32_t n = rq->per_channel ? channels : 1;
    /* Every run checks the arrays: a branch-free min/max pass (which the compiler
       vectorises) first, the loop that names the offending entry only when it fails. */
    int32_t min_mult = 0, min_shift = 0, max_shift_seen = 0;
    for (int32_t i = 0; i < n; ++i) {
        min_mult = rq->multiplier[i] < min_mult ? rq->multiplier[i] : min_mult;
        min_shift = rq->shift[i] < min_shift ? rq->shift[i] : min_shift;
        max_shift_seen = rq->shift[i] > max_shift_seen ? rq->shift[i] : max_shift_seen;
    }
    if (min_mult >= 0 && min_shift >= -31 && max_shift_seen <= max_shift) {
        return AP_OK;
    }
    for (int32_t i = 0; i < n; ++i) {
        if (rq->multiplier[i] < 0) {
            return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, i, 0, 0,
                               "%s: requant.multiplier[%d] = %d is negative (QuantizeMultiplier gives >= 0)",
                               op, (int)i, (int)rq->multiplier[i]);
        }
        if (rq->shift[i] < -31 || rq->shift[i] > max_shift) {
            return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, i, 0, 0,
                               "%s: requant.shift[%d] = %d is outside [-31, %d]", op, (int)i,
                               (int)rq->shift[i], (int)max_shift);
        }
    }
    return AP_OK;
}

/* LiteRT's float-scale requantisation of one accumulator: round half away from zero of
   (double)acc * scale, then + offset and the clamp. The product is kept within +-2^30
   before the conversion, so out-of-range values (undefined in TFLite) saturate. */
static inline int8_t ap_ops_requant_double(int32_t acc, double scale, int32_t offset, int32_t lo, int32_t hi)
{
    double x = (double)acc * scale;
    double t = x < 0 ? -x : x;
    double r;
    if (t >= 1073741824.0) {
        r = x < 0 ? -1073741824.0 : 1073741824.0;
    } else {
        double whole = (double)(int64_t)t;   /* trunc, exact below 2^30 */
        r = (t - whole >= 0.5) ? whole + 1.0 : whole;
        r = x < 0 ? -r : r;
    }
    return (int8_t)ap_ops_clamp((int32_t)r + offset, lo, hi);
}

/* A variant's family and name: the one place names are made (the name is the family, then
   "_<param>" when param != 0; callers read kind, param and family, never parse the name). */
static inline void ap_ops_variant_name(ap_variant *v, const char *family, int32_t param)
{
    snprintf(v->family, sizeof(v->family), "%s", family);
    if (param != 0) {
        snprintf(v->name, sizeof(v->name), "%s_%ld", family, (long)param);
    } else {
        snprintf(v->name, sizeof(v->name), "%s", family);
    }
}

/* Fill one variant descriptor. */
static inline void ap_ops_variant_set(ap_variant *v, int32_t kind, int32_t param, const char *family,
                                      uint32_t scratch_count, const size_t *bytes,
                                      const size_t *alignment, uint64_t macs, int32_t in_place)
{
    memset(v, 0, sizeof(*v));
    v->kind = kind;
    v->param = param;
    ap_ops_variant_name(v, family, param);
    v->scratch_count = scratch_count;
    for (uint32_t i = 0; i < scratch_count && i < AP_MAX_SCRATCH; ++i) {
        v->scratch[i].bytes = bytes[i];
        v->scratch[i].alignment = alignment[i];
    }
    v->macs = macs;
    v->in_place = in_place;
}

/* Order candidates least scratch first (the sum of their requests; a stable insertion sort,
   so equal totals keep their order): the first variant is the op's minimum. */
static inline void ap_ops_variants_by_scratch(ap_variant *found, uint32_t n)
{
    for (uint32_t i = 1; i < n; ++i) {
        const ap_variant v = found[i];
        size_t total = 0;
        for (uint32_t k = 0; k < v.scratch_count && k < AP_MAX_SCRATCH; ++k) {
            total += v.scratch[k].bytes;
        }
        uint32_t j = i;
        for (; j > 0; --j) {
            size_t before = 0;
            for (uint32_t k = 0; k < found[j - 1].scratch_count && k < AP_MAX_SCRATCH; ++k) {
                before += found[j - 1].scratch[k].bytes;
            }
            if (before <= total) {
                break;
            }
            found[j] = found[j - 1];
        }
        found[j] = v;
    }
}

/* Copy a candidate list into the caller's array, each record marked with `isa` (or report
   the count only when variants_out is NULL and capacity is 0). Every ISA lists the same
   variants today: x86-avx2 runs SIMD code inside each variant, and arm-dsp's variants are the
   portable kernels until its SMLAD kernels land. */
static inline ap_status ap_ops_variants_out(const ap_variant *found, uint32_t n, ap_isa isa,
                                            ap_variant *variants_out, uint32_t capacity,
                                            uint32_t *count_out, const char *op, ap_error *error)
{
    if (ap_isa_name(isa) == NULL) {
        return AP_OPS_INVALID(error, "%s: %d is not an instruction set (ap_isa)", op, (int)isa);
    }
    if (count_out == NULL) {
        return AP_OPS_INVALID(error, "%s: count_out must not be NULL", op);
    }
    *count_out = n;
    if (variants_out == NULL && capacity == 0) {
        return AP_OK;
    }
    if (variants_out == NULL) {
        return AP_OPS_INVALID(error, "%s: variants_out is NULL but capacity is %u", op, (unsigned)capacity);
    }
    if (capacity < n) {
        return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, n, capacity,
                           "%s: %u variants apply but capacity is %u (AP_MAX_VARIANTS is enough)",
                           op, (unsigned)n, (unsigned)capacity);
    }
    memcpy(variants_out, found, n * sizeof(ap_variant));
    for (uint32_t i = 0; i < n; ++i) {
        variants_out[i].isa = (int32_t)isa;
    }
    return AP_OK;
}

/* 1 when a variant of `isa` runs the AVX2 code (compiled in; ap_isa_check has said the CPU
   has it). */
static inline int ap_ops_runs_avx2(int32_t isa)
{
    return AP_OPS_HAVE_AVX2 && isa == AP_ISA_X86_AVX2;
}

/* 1 when a variant of `isa` runs the arm-dsp code (every build has it: arm_dsp.h). An op
   without arm-dsp code of its own runs the portable code for arm-dsp variants. */
static inline int ap_ops_runs_arm_dsp(int32_t isa)
{
    return isa == AP_ISA_ARM_DSP;
}

/* Check the scratch buffers handed to run() against the sizes a variant needs. */
static inline ap_status ap_ops_check_scratch(const char *op, const char *variant_name, const size_t *needed,
                                             uint32_t needed_count, const ap_scratch *scratch,
                                             uint32_t scratch_count, ap_error *error)
{
    if (needed_count == 0) {
        return AP_OK;
    }
    if (scratch == NULL || scratch_count < needed_count) {
        return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_ARGUMENT, -1, needed_count,
                           scratch == NULL ? 0 : scratch_count,
                           "%s variant '%s' needs %u scratch buffer(s), got %u", op, variant_name,
                           (unsigned)needed_count, (unsigned)(scratch == NULL ? 0 : scratch_count));
    }
    for (uint32_t i = 0; i < needed_count; ++i) {
        if (scratch[i].data == NULL) {
            return ap_ops_fail(error, AP_ERR_INVALID_ARGUMENT, AP_SUBJECT_BUFFER, i, needed[i], 0,
                               "%s variant '%s': scratch buffer %u is NULL", op, variant_name, (unsigned)i);
        }
        if (scratch[i].bytes < needed[i]) {
            return ap_ops_fail(error, AP_ERR_SCRATCH_TOO_SMALL, AP_SUBJECT_BUFFER, i, needed[i],
                               scratch[i].bytes,
                               "%s variant '%s': scratch buffer %u needs %llu bytes, got %llu", op,
                               variant_name, (unsigned)i, (unsigned long long)needed[i],
                               (unsigned long long)scratch[i].bytes);
        }
    }
    return AP_OK;
}

/* The variant pointer handed to run(): present and of this family's kinds. */
static inline ap_status ap_ops_check_variant_ptr(const ap_variant *variant, const char *op, ap_error *error)
{
    if (variant == NULL) {
        return AP_OPS_INVALID(error, "%s: variant must not be NULL (take one from the _variants list)", op);
    }
    return ap_isa_check(variant->isa, op, error);
}

#endif
